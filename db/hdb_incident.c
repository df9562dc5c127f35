/*
 * Incidents: opened by the supervisor's deduction with the first fault,
 * given evidence, re-blamed, closed or merged into another.
 */
#include <string.h>

#include "hdb_int.h"

static int hdb_check_evidence(struct apenet_hdb *db, const struct apenet_hdb_evidence *ev, struct apenet_err *e)
{
	if (apenet_hdb_check_text(db, "evidence reporter", ev->reporter, sizeof(ev->reporter), e) ||
	    apenet_hdb_check_text(db, "evidence text", ev->text, sizeof(ev->text), e))
		return -1;
	if (ev->path < APENET_HDB_PATH_SELF || ev->path > APENET_HDB_PATH_SUPERVISOR)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: evidence path %d out of range 1..4", db->f.path,
				      ev->path);
	if (ev->seq > INT64_MAX)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: evidence sequence out of range", db->f.path);
	return 0;
}

static int hdb_check_incident(struct apenet_hdb *db, const struct apenet_hdb_incident *in, unsigned fields,
			      struct apenet_err *e)
{
	if (((fields & APENET_HDB_SET_COMPONENT) &&
	     (apenet_hdb_check_text(db, "incident component", in->component, sizeof(in->component), e) ||
	      (!in->component[0] && apenet_err_set(e, APENET_EINVAL, "health db %s: incident without a component",
						   db->f.path)))) ||
	    ((fields & APENET_HDB_SET_RULE) && apenet_hdb_check_text(db, "incident rule", in->rule, sizeof(in->rule), e)) ||
	    ((fields & APENET_HDB_SET_LINK) &&
	     (apenet_hdb_check_text(db, "incident link", in->link, sizeof(in->link), e) ||
	      apenet_hdb_check_text(db, "incident far link", in->far_link, sizeof(in->far_link), e))))
		return -1;
	return 0;
}

/* Binds a nullable text: "" is NULL. */
static void hdb_bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		apenet_db_bind_text(st, i, s);
	else
		sqlite3_bind_null(st, i);
}

/* Binds the first fault's five columns (time, path, text, reporter, seq)
 * from parameter i on: the insert and the update share them. */
static void hdb_bind_first(sqlite3_stmt *st, int i, const struct apenet_hdb_evidence *f)
{
	sqlite3_bind_int64(st, i, f->time_ms);
	sqlite3_bind_int(st, i + 1, f->path);
	apenet_db_bind_text(st, i + 2, f->text);
	apenet_db_bind_text(st, i + 3, f->reporter);
	if (f->seq)
		sqlite3_bind_int64(st, i + 4, (int64_t)f->seq);
	else
		sqlite3_bind_null(st, i + 4);
}

static int hdb_evidence_insert(struct apenet_hdb *db, int64_t id, const struct apenet_hdb_evidence *ev,
			       struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_EV_INSERT, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, ev->time_ms);
	sqlite3_bind_int(st, 3, ev->path);
	apenet_db_bind_text(st, 4, ev->reporter);
	if (ev->seq)
		sqlite3_bind_int64(st, 5, (int64_t)ev->seq);
	else
		sqlite3_bind_null(st, 5);
	apenet_db_bind_text(st, 6, ev->text);
	return apenet_db_run(&db->f, st, e, "adding evidence to an incident");
}

int apenet_hdb_incident_open(struct apenet_hdb *db, const struct apenet_hdb_incident *in, int64_t *id,
			     struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "opening an incident") ||
	    hdb_check_incident(db, in, APENET_HDB_SET_COMPONENT | APENET_HDB_SET_RULE | APENET_HDB_SET_LINK, e) ||
	    hdb_check_evidence(db, &in->first, e))
		return -1;
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	int ok = 0;
	struct hdb_node *n = apenet_hdb_node_entry(db, in->node, "", e), *far = NULL;
	if (n && in->has_far)
		far = apenet_hdb_node_entry(db, in->far, "", e);
	sqlite3_stmt *st = n && (far || !in->has_far) ? apenet_db_stmt(&db->f, ST_INC_INSERT, e) : NULL;
	if (st) {
		apenet_db_bind_text(st, 1, in->component);
		sqlite3_bind_int64(st, 2, n->id);
		hdb_bind_opt(st, 3, in->link);
		if (far)
			sqlite3_bind_int64(st, 4, far->id);
		else
			sqlite3_bind_null(st, 4);
		hdb_bind_opt(st, 5, far ? in->far_link : NULL);
		apenet_db_bind_text(st, 6, in->rule);
		sqlite3_bind_int64(st, 7, in->opened_ms);
		hdb_bind_first(st, 8, &in->first);
		if (in->settled_ms)
			sqlite3_bind_int64(st, 13, in->settled_ms);
		else
			sqlite3_bind_null(st, 13);
		if (apenet_db_run(&db->f, st, e, "opening an incident") == 0) {
			int64_t rowid = sqlite3_last_insert_rowid(db->f.conn);
			if (hdb_evidence_insert(db, rowid, &in->first, e) == 0) {
				if (id)
					*id = rowid;
				ok = 1;
			}
		}
	}
	return apenet_hdb_tx_end(db, own, ok, e);
}

/* The incident's state (enum apenet_hdb_incident_state), 0 when there is
 * none, -1. */
static int hdb_incident_state(struct apenet_hdb *db, int64_t id, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_INC_STATE, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st), state = 0;
	if (rc == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);
		state = !s ? -1 : !strcmp(s, "open") ? APENET_HDB_OPEN : !strcmp(s, "closed") ? APENET_HDB_CLOSED
										     : APENET_HDB_MERGED;
	}
	apenet_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading an incident");
	return state;
}

int apenet_hdb_incident_evidence(struct apenet_hdb *db, int64_t id, const struct apenet_hdb_evidence *ev,
				 struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "adding evidence") || hdb_check_evidence(db, ev, e))
		return -1;
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	int state = hdb_incident_state(db, id, e);
	if (state == 0) {
		apenet_err_set(e, APENET_EINVAL, "health db %s: no incident %lld", db->f.path, (long long)id);
		return own ? apenet_hdb_tx_end(db, own, 0, e) : -1; /* nothing written: the batch goes on */
	}
	int ok = state > 0 && hdb_evidence_insert(db, id, ev, e) == 0;
	return apenet_hdb_tx_end(db, own, ok, e);
}

/* Why an incident cannot change: it does not exist, or is not open.  Writes
 * nothing, so an enclosing batch goes on. */
static int hdb_not_open(struct apenet_hdb *db, int64_t id, int own, const char *what, struct apenet_err *e)
{
	int state = hdb_incident_state(db, id, e);
	if (state == 0)
		apenet_err_set(e, APENET_EINVAL, "health db %s: %s: no incident %lld", db->f.path, what, (long long)id);
	else if (state == APENET_HDB_OPEN)
		apenet_err_set(e, APENET_EINVAL, "health db %s: %s: incident %lld is settled already", db->f.path, what,
			       (long long)id);
	else if (state > 0)
		apenet_err_set(e, APENET_EINVAL, "health db %s: %s: incident %lld is %s", db->f.path, what, (long long)id,
			       apenet_hdb_state_name(state));
	if (own)
		apenet_hdb_rollback(db);
	return -1;
}

int apenet_hdb_incident_update(struct apenet_hdb *db, int64_t id, const struct apenet_hdb_incident *in, unsigned fields,
			       struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "re-blaming an incident") || hdb_check_incident(db, in, fields, e))
		return -1;
	if ((fields & APENET_HDB_SET_FIRST) && hdb_check_evidence(db, &in->first, e))
		return -1;
	if ((fields & APENET_HDB_SET_SETTLED) && in->settled_ms <= 0)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: incident %lld settled at %lld: a time", db->f.path,
				      (long long)id, (long long)in->settled_ms);
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	struct hdb_node *n = NULL, *far = NULL;
	int ok = 1;
	if ((fields & APENET_HDB_SET_NODE) && !(n = apenet_hdb_node_entry(db, in->node, "", e)))
		ok = 0;
	if (ok && (fields & APENET_HDB_SET_LINK) && in->has_far && !(far = apenet_hdb_node_entry(db, in->far, "", e)))
		ok = 0;
	sqlite3_stmt *st = ok ? apenet_db_stmt(&db->f, ST_INC_UPDATE, e) : NULL;
	if (!st)
		return apenet_hdb_tx_end(db, own, 0, e);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, (int)fields);
	apenet_db_bind_text(st, 3, in->component);
	apenet_db_bind_text(st, 4, in->rule);
	sqlite3_bind_int64(st, 5, n ? n->id : 0);
	hdb_bind_opt(st, 6, in->link);
	if (far)
		sqlite3_bind_int64(st, 7, far->id);
	else
		sqlite3_bind_null(st, 7);
	hdb_bind_opt(st, 8, far ? in->far_link : NULL);
	sqlite3_bind_int64(st, 9, in->settled_ms);
	hdb_bind_first(st, 10, &in->first);
	if (apenet_db_run(&db->f, st, e, "re-blaming an incident"))
		return apenet_hdb_tx_end(db, own, 0, e);
	if (sqlite3_changes(db->f.conn) == 0)
		return hdb_not_open(db, id, own, "re-blaming", e);
	return apenet_hdb_tx_end(db, own, 1, e);
}

int apenet_hdb_incident_close(struct apenet_hdb *db, int64_t id, int64_t when_ms, int state, int64_t merged_into,
			      struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "closing an incident"))
		return -1;
	if (state != APENET_HDB_CLOSED && state != APENET_HDB_MERGED)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: incident %lld closed as '%s': closed or merged",
				      db->f.path, (long long)id, apenet_hdb_state_name(state));
	if (state == APENET_HDB_MERGED && (merged_into <= 0 || merged_into == id))
		return apenet_err_set(e, APENET_EINVAL, "health db %s: incident %lld merged into %lld: another incident",
				      db->f.path, (long long)id, (long long)merged_into);
	if (state == APENET_HDB_CLOSED)
		merged_into = 0;
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	if (merged_into) {
		int target = hdb_incident_state(db, merged_into, e);
		if (target <= 0) {
			if (target == 0)
				apenet_err_set(e, APENET_EINVAL, "health db %s: incident %lld merged into %lld: no such incident",
					       db->f.path, (long long)id, (long long)merged_into);
			if (own)
				apenet_hdb_rollback(db);
			return -1;
		}
	}
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_INC_CLOSE, e);
	if (!st)
		return apenet_hdb_tx_end(db, own, 0, e);
	sqlite3_bind_int64(st, 1, id);
	apenet_db_bind_text(st, 2, state == APENET_HDB_CLOSED ? "closed" : "merged");
	sqlite3_bind_int64(st, 3, when_ms);
	if (merged_into)
		sqlite3_bind_int64(st, 4, merged_into);
	else
		sqlite3_bind_null(st, 4);
	if (apenet_db_run(&db->f, st, e, "closing an incident"))
		return apenet_hdb_tx_end(db, own, 0, e);
	if (sqlite3_changes(db->f.conn) == 0)
		return hdb_not_open(db, id, own, "closing", e);
	return apenet_hdb_tx_end(db, own, 1, e);
}
