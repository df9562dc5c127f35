/*
 * Reading transitions in a time window, in the order the post-mortem
 * report tells them: by time, then boot id and sequence (so that two
 * reports of the same millisecond always come out the same way).
 */
#include <string.h>

#include "hdb_int.h"

/* A window statement with its bounds (?1, ?2) and node (?3..?5) bound. */
static sqlite3_stmt *window(struct apenet_hdb *db, enum hdb_st which, int64_t from_ms, int64_t to_ms,
			    const unsigned *xyz, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, which, e);
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, from_ms);
	sqlite3_bind_int64(st, 2, to_ms);
	for (int i = 0; xyz && i < 3; i++)
		sqlite3_bind_int64(st, 3 + i, xyz[i]);
	return st;
}

int apenet_hdb_transitions_each(struct apenet_hdb *db, int64_t from_ms, int64_t to_ms, const unsigned *xyz,
				apenet_hdb_transition_fn cb, void *arg, struct apenet_err *e)
{
	sqlite3_stmt *st = window(db, xyz ? ST_TR_WINDOW_NODE : ST_TR_WINDOW, from_ms, to_ms, xyz, e);
	if (!st)
		return -1;
	struct apenet_hdb_transition t;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&t, 0, sizeof(t));
		t.id = sqlite3_column_int64(st, 0);
		apenet_db_col_text(st, 1, t.boot, sizeof(t.boot));
		t.seq = (uint64_t)sqlite3_column_int64(st, 2);
		for (int i = 0; i < 3; i++) {
			t.reporter[i] = (unsigned)sqlite3_column_int64(st, 3 + i);
			t.node[i] = (unsigned)sqlite3_column_int64(st, 6 + i);
		}
		t.subject = sqlite3_column_int(st, 9);
		apenet_db_col_text(st, 10, t.where, sizeof(t.where));
		apenet_db_col_text(st, 11, t.code, sizeof(t.code));
		t.old_status = sqlite3_column_int(st, 12);
		t.new_status = sqlite3_column_int(st, 13);
		t.value = apenet_db_col_double(st, 14);
		t.threshold = apenet_db_col_double(st, 15);
		apenet_db_col_text(st, 16, t.unit, sizeof(t.unit));
		apenet_db_col_text(st, 17, t.evidence, sizeof(t.evidence));
		t.path = sqlite3_column_int(st, 18);
		apenet_db_col_text(st, 19, t.via, sizeof(t.via));
		t.time_ms = sqlite3_column_int64(st, 20);
		t.recv_ms = sqlite3_column_int64(st, 21);
		if (cb(arg, &t)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading transitions");
	return 0;
}

int apenet_hdb_transitions_count(struct apenet_hdb *db, int64_t from_ms, int64_t to_ms, const unsigned *xyz,
				 uint64_t *n, struct apenet_err *e)
{
	sqlite3_stmt *st = window(db, xyz ? ST_TR_COUNT_NODE : ST_TR_COUNT, from_ms, to_ms, xyz, e);
	if (!st)
		return -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*n = (uint64_t)sqlite3_column_int64(st, 0);
	apenet_db_done(st);
	if (rc != SQLITE_ROW)
		return apenet_db_err(&db->f, e, "counting transitions");
	return 0;
}
