/*
 * Reading incidents and their evidence (a restarted supervisor, `apenet
 * health --incidents`, the post-mortem report).
 */
#include <string.h>

#include "hdb_int.h"

/* One row of INCIDENT_COLS (hdb_sql.c). */
static void hdb_incident_row(sqlite3_stmt *st, struct apenet_hdb_incident *in)
{
	memset(in, 0, sizeof(*in));
	in->id = sqlite3_column_int64(st, 0);
	apenet_db_col_text(st, 1, in->component, sizeof(in->component));
	for (int i = 0; i < 3; i++)
		in->node[i] = (unsigned)sqlite3_column_int64(st, 2 + i);
	apenet_db_col_text(st, 5, in->node_name, sizeof(in->node_name));
	apenet_db_col_text(st, 6, in->link, sizeof(in->link));
	in->has_far = sqlite3_column_int(st, 7);
	for (int i = 0; i < 3 && in->has_far; i++)
		in->far[i] = (unsigned)sqlite3_column_int64(st, 8 + i);
	apenet_db_col_text(st, 11, in->far_link, sizeof(in->far_link));
	apenet_db_col_text(st, 12, in->rule, sizeof(in->rule));
	const char *s = (const char *)sqlite3_column_text(st, 13);
	in->state = !s ? 0 : !strcmp(s, "open") ? APENET_HDB_OPEN : !strcmp(s, "closed") ? APENET_HDB_CLOSED
							     : !strcmp(s, "merged") ? APENET_HDB_MERGED
										    : 0;
	in->opened_ms = sqlite3_column_int64(st, 14);
	in->closed_ms = sqlite3_column_int64(st, 15);
	in->merged_into = sqlite3_column_int64(st, 16);
	in->first.time_ms = sqlite3_column_int64(st, 17);
	in->first.path = sqlite3_column_int(st, 18);
	apenet_db_col_text(st, 19, in->first.text, sizeof(in->first.text));
	apenet_db_col_text(st, 20, in->first.reporter, sizeof(in->first.reporter));
	in->first.seq = (uint64_t)sqlite3_column_int64(st, 21);
	in->first.transition_id = sqlite3_column_int64(st, 22);
	in->evidence = (unsigned)sqlite3_column_int64(st, 23);
	in->settled_ms = sqlite3_column_int64(st, 24);
}

int apenet_hdb_incident_get(struct apenet_hdb *db, int64_t id, struct apenet_hdb_incident *out, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_INC_GET, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		hdb_incident_row(st, out);
	apenet_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading an incident");
	return rc == SQLITE_ROW;
}

static int hdb_incidents_run(struct apenet_hdb *db, sqlite3_stmt *st, apenet_hdb_incident_fn cb, void *arg,
			     struct apenet_err *e)
{
	struct apenet_hdb_incident in;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hdb_incident_row(st, &in);
		if (cb(arg, &in)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading incidents");
	return 0;
}

static int hdb_incidents_open(struct apenet_hdb *db, int settled, apenet_hdb_incident_fn cb, void *arg,
			      struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_INC_OPEN_EACH, e);
	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, settled);
	return hdb_incidents_run(db, st, cb, arg, e);
}

int apenet_hdb_incidents_open_each(struct apenet_hdb *db, apenet_hdb_incident_fn cb, void *arg, struct apenet_err *e)
{
	return hdb_incidents_open(db, 1, cb, arg, e);
}

int apenet_hdb_incidents_provisional_each(struct apenet_hdb *db, apenet_hdb_incident_fn cb, void *arg,
					  struct apenet_err *e)
{
	return hdb_incidents_open(db, 0, cb, arg, e);
}

struct hdb_window {
	apenet_hdb_incident_fn cb;
	void *arg;
	int64_t from_ms, to_ms;
};

static int hdb_in_window(void *arg, const struct apenet_hdb_incident *in)
{
	struct hdb_window *w = arg;
	if (in->opened_ms < w->from_ms || in->opened_ms >= w->to_ms)
		return 0;
	return w->cb(w->arg, in);
}

int apenet_hdb_incidents_each(struct apenet_hdb *db, int which, int64_t from_ms, int64_t to_ms,
			      apenet_hdb_incident_fn cb, void *arg, struct apenet_err *e)
{
	if (which == APENET_HDB_SETTLED_OPEN) {
		/* few: the partial index of the open ones, filtered here */
		struct hdb_window w = { cb, arg, from_ms, to_ms };
		return apenet_hdb_incidents_open_each(db, hdb_in_window, &w, e);
	}
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_INC_EACH, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, from_ms);
	sqlite3_bind_int64(st, 2, to_ms);
	sqlite3_bind_int(st, 3, which == APENET_HDB_EVERY_ROW);
	return hdb_incidents_run(db, st, cb, arg, e);
}

int apenet_hdb_evidence_each(struct apenet_hdb *db, int64_t incident, apenet_hdb_evidence_fn cb, void *arg,
			     struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_EV_EACH, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, incident);
	struct apenet_hdb_evidence ev;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&ev, 0, sizeof(ev));
		ev.id = sqlite3_column_int64(st, 0);
		ev.time_ms = sqlite3_column_int64(st, 1);
		ev.path = sqlite3_column_int(st, 2);
		apenet_db_col_text(st, 3, ev.reporter, sizeof(ev.reporter));
		ev.seq = (uint64_t)sqlite3_column_int64(st, 4);
		ev.transition_id = sqlite3_column_int64(st, 5);
		apenet_db_col_text(st, 6, ev.text, sizeof(ev.text));
		if (cb(arg, &ev)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading evidence");
	return 0;
}

int apenet_hdb_link_incidents_each(struct apenet_hdb *db, const unsigned xyz[3], const char *link, int64_t before_ms,
				   unsigned limit, apenet_hdb_incident_fn cb, void *arg, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_INC_LINK, e);
	if (!st)
		return -1;
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int64(st, 1 + i, xyz[i]);
	apenet_db_bind_text(st, 4, link);
	sqlite3_bind_int64(st, 5, before_ms);
	sqlite3_bind_int64(st, 6, limit ? (int64_t)limit : -1);
	return hdb_incidents_run(db, st, cb, arg, e);
}

int apenet_hdb_merged_each(struct apenet_hdb *db, int64_t into, apenet_hdb_incident_fn cb, void *arg,
			   struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_INC_MERGED, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, into);
	return hdb_incidents_run(db, st, cb, arg, e);
}
