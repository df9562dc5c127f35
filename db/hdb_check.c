/*
 * `apenet db check`: sqlite's own checks, the file's identity and the
 * library's invariants, each problem in words.
 */
#include <stdio.h>
#include <string.h>

#include "hdb_int.h"

/* Each query returns one row per problem: its description. */
static const char *const hdb_invariants[] = {
	"SELECT printf('evidence %d: its incident %d does not exist', id, incident_id) FROM evidence"
	" WHERE incident_id NOT IN (SELECT id FROM incident)",
	"SELECT printf('incident %d: merged into %d, which does not exist', id, merged_into) FROM incident"
	" WHERE merged_into IS NOT NULL AND merged_into NOT IN (SELECT id FROM incident)",
	"SELECT printf('incident %d: merged into itself', id) FROM incident WHERE merged_into = id",
	"SELECT printf('incident %d: state %s with merged_into %s', id, state, coalesce(merged_into, 'none'))"
	" FROM incident WHERE (state = 'merged') <> (merged_into IS NOT NULL)",
	"SELECT printf('incident %d: state %s with closed_ms %s', id, state, coalesce(closed_ms, 'none'))"
	" FROM incident WHERE state NOT IN ('open', 'closed', 'merged') OR (state = 'open') <> (closed_ms IS NULL)",
	"SELECT printf('current state %s %s of node id %d: from boot %s, but its reporter''s boot is %s', s.place,"
	" s.code, s.node_id, s.boot, r.boot) FROM node_state s JOIN node r ON r.id = s.reporter_id WHERE s.boot <> r.boot",
	"SELECT printf('node %d,%d,%d: no node_seen row', x, y, z) FROM node WHERE id NOT IN (SELECT node_id FROM node_seen)",
	"SELECT printf('link %d,%d,%d %s: its far end %d,%d,%d %s does not lead back', n.x, n.y, n.z, l.name, p.x, p.y,"
	" p.z, l.partner_link) FROM link l JOIN node n ON n.id = l.node_id JOIN node p ON p.id = l.partner_id"
	" WHERE NOT EXISTS (SELECT 1 FROM link m WHERE m.node_id = l.partner_id AND m.name = l.partner_link"
	"  AND m.partner_id = l.node_id AND m.partner_link = l.name)",
	"SELECT printf('transition %d: status %d -> %d or path %d out of range', id, old_status, new_status, path)"
	" FROM transition WHERE old_status NOT BETWEEN 0 AND 3 OR new_status NOT BETWEEN 0 AND 3"
	" OR path NOT BETWEEN 1 AND 3",
	"SELECT printf('current state of node id %d (%s %s): status %d out of range 1..3 (normal ones are deleted)',"
	" node_id, place, code, status) FROM node_state WHERE status NOT BETWEEN 1 AND 3",
	"SELECT printf('evidence %d: path %d out of range', id, path) FROM evidence WHERE path NOT BETWEEN 1 AND 4",
};

struct hdb_problems {
	struct apenet_hdb *db;
	apenet_hdb_problem_fn cb;
	void *arg;
	int n;
};

static void hdb_problem(struct hdb_problems *p, const char *what)
{
	p->n++;
	if (p->cb)
		p->cb(p->arg, what);
}

/* Runs sql; every row is a problem, told as prefix + the row's columns;
 * ok_row: a single row reading this is no problem (integrity_check's "ok"). */
static int hdb_check_query(struct hdb_problems *p, const char *sql, const char *prefix, const char *ok_row,
			   struct apenet_err *e)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(p->db->f.conn, sql, -1, &st, NULL) != SQLITE_OK)
		return apenet_db_err(&p->db->f, e, "preparing a check");
	int rc, rows = 0;
	char msg[1024];
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rows++;
		int off = snprintf(msg, sizeof(msg), "%s", prefix);
		for (int c = 0; c < sqlite3_column_count(st) && off < (int)sizeof(msg); c++) {
			const unsigned char *t = sqlite3_column_text(st, c);
			off += snprintf(msg + off, sizeof(msg) - (size_t)off, "%s%s", c ? " " : "", t ? (const char *)t : "NULL");
		}
		if (ok_row && rows == 1 && !strcmp(msg + strlen(prefix), ok_row))
			continue;
		hdb_problem(p, msg);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&p->db->f, e, "running a check");
	return 0;
}

static int hdb_check_int(struct apenet_hdb *db, const char *sql, int64_t *v, struct apenet_err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db->f.conn, sql, -1, &st, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW)
		*v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return apenet_db_err(&db->f, e, sql);
	return 0;
}

int apenet_hdb_check(struct apenet_hdb *db, apenet_hdb_problem_fn cb, void *arg, struct apenet_err *e)
{
	struct hdb_problems p = { db, cb, arg, 0 };
	int64_t appid = 0, version = 0;
	char msg[160];
	if (hdb_check_int(db, "PRAGMA application_id", &appid, e) || hdb_check_int(db, "PRAGMA user_version", &version, e))
		return -1;
	if (appid != APENET_HDB_APP_ID) {
		snprintf(msg, sizeof(msg), "application_id %#llx, not a health database's (%#x)", (unsigned long long)appid,
			 APENET_HDB_APP_ID);
		hdb_problem(&p, msg);
	}
	if (version != APENET_HDB_SCHEMA) {
		snprintf(msg, sizeof(msg), "schema version %lld, this program's is %d", (long long)version,
			 APENET_HDB_SCHEMA);
		hdb_problem(&p, msg);
		return p.n; /* the invariants below are the current schema's */
	}
	if (hdb_check_query(&p, "PRAGMA integrity_check", "integrity: ", "ok", e) ||
	    hdb_check_query(&p, "PRAGMA foreign_key_check", "foreign key (table rowid parent index): ", NULL, e))
		return -1;
	for (size_t i = 0; i < sizeof(hdb_invariants) / sizeof(hdb_invariants[0]); i++)
		if (hdb_check_query(&p, hdb_invariants[i], "", NULL, e))
			return -1;
	return p.n;
}
