/*
 * The database baseline (bench/rawdb.h): plain INSERTs, no indexes, no
 * logic, the health database's file settings.
 */
#include <stdio.h>
#include <stdlib.h>

#include <sqlite3.h>

#include "rawdb.h"

struct bench_rawdb {
	sqlite3 *db;
	sqlite3_stmt *hb, *tr;
};

void bench_rawdb_close(struct bench_rawdb *db)
{
	if (!db)
		return;
	sqlite3_finalize(db->hb);
	sqlite3_finalize(db->tr);
	sqlite3_close(db->db);
	free(db);
}

struct bench_rawdb *bench_rawdb_open(const char *path)
{
	struct bench_rawdb *db = calloc(1, sizeof(*db));
	if (!db)
		return NULL;
	if (sqlite3_open(path, &db->db) != SQLITE_OK ||
	    sqlite3_exec(db->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA cache_size = -32768;",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db->db,
			 "CREATE TABLE IF NOT EXISTS hb (node INTEGER, boot TEXT, seq INTEGER, time_ms INTEGER,"
			 " recv_ms INTEGER, ldm INTEGER, summary TEXT);"
			 "CREATE TABLE IF NOT EXISTS tr (boot TEXT, seq INTEGER, x INTEGER, y INTEGER, z INTEGER,"
			 " subject INTEGER, place TEXT, code TEXT, old_status INTEGER, new_status INTEGER, value REAL,"
			 " threshold REAL, unit TEXT, evidence TEXT, path INTEGER, via TEXT, time_ms INTEGER,"
			 " recv_ms INTEGER);",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->db, "INSERT INTO hb VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &db->hb, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(db->db,
			       "INSERT INTO tr VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
			       " ?16, ?17, ?18)",
			       -1, &db->tr, NULL) != SQLITE_OK) {
		fprintf(stderr, "rawdb: %s: %s\n", path, sqlite3_errmsg(db->db));
		bench_rawdb_close(db);
		return NULL;
	}
	return db;
}

static int exec(struct bench_rawdb *db, const char *sql)
{
	if (sqlite3_exec(db->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	fprintf(stderr, "rawdb: %s: %s\n", sql, sqlite3_errmsg(db->db));
	return -1;
}

int bench_rawdb_begin(struct bench_rawdb *db)
{
	return exec(db, "BEGIN");
}

int bench_rawdb_commit(struct bench_rawdb *db)
{
	return exec(db, "COMMIT");
}

int bench_rawdb_put(struct bench_rawdb *db, const struct apenet_report *r, int64_t node, int64_t recv_ms)
{
	sqlite3_stmt *st;
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		st = db->hb;
		sqlite3_bind_int64(st, 1, node);
		sqlite3_bind_text(st, 2, r->boot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, (int64_t)r->seq);
		sqlite3_bind_int64(st, 4, r->time_ms);
		sqlite3_bind_int64(st, 5, recv_ms);
		sqlite3_bind_int64(st, 6, r->ldm);
		sqlite3_bind_text(st, 7, r->evidence, -1, SQLITE_STATIC);
	} else {
		st = db->tr;
		sqlite3_bind_text(st, 1, r->boot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)r->seq);
		sqlite3_bind_int64(st, 3, r->x);
		sqlite3_bind_int64(st, 4, r->y);
		sqlite3_bind_int64(st, 5, r->z);
		sqlite3_bind_int(st, 6, r->subject);
		sqlite3_bind_text(st, 7, r->where, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 8, r->code, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 9, r->old_status);
		sqlite3_bind_int(st, 10, r->new_status);
		sqlite3_bind_double(st, 11, r->value);
		sqlite3_bind_double(st, 12, r->threshold);
		sqlite3_bind_text(st, 13, r->unit, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 14, r->evidence, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 15, r->path);
		sqlite3_bind_text(st, 16, r->via, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 17, r->time_ms);
		sqlite3_bind_int64(st, 18, recv_ms);
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;
	fprintf(stderr, "rawdb: insert: %s\n", sqlite3_errmsg(db->db));
	return -1;
}
