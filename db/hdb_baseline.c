/*
 * The benchmarks' database baseline (hdb_baseline.h): the rows of the
 * health database's reports as plain INSERTs into two tables without
 * indexes, through one prepared statement each, in a file with the health
 * database's settings (WAL, synchronous=FULL: an fsync per commit, the same
 * page cache).  What sqlite costs without the library's logic.
 *
 * It lives in db/ although only the benchmarks use it: every SQL text and
 * sqlite call of the project is in db/, and the baseline's settings are
 * the health database's by construction (apenet_hdb_pragmas), not a copy
 * that could drift.
 */
#include <stdlib.h>

#include "hdb_baseline.h"
#include "hdb_int.h"

static const char *const baseline_steps[1] = {
	"CREATE TABLE hb (node INTEGER, boot TEXT, seq INTEGER, time_ms INTEGER, recv_ms INTEGER, ldm INTEGER,"
	" summary TEXT);"
	"CREATE TABLE tr (boot TEXT, seq INTEGER, x INTEGER, y INTEGER, z INTEGER, subject INTEGER, place TEXT,"
	" code TEXT, old_status INTEGER, new_status INTEGER, value REAL, threshold REAL, unit TEXT, evidence TEXT,"
	" path INTEGER, via TEXT, time_ms INTEGER, recv_ms INTEGER);",
};

static const struct apenet_db_kind baseline_kind = {
	.noun = "baseline db",
	.a_what = "a benchmark baseline",
	.busy_hint = "",
	.writer = "the benchmark",
	.app_id = 0x4150626c, /* "APbl" */
	.schema = 1,
	.steps = baseline_steps,
	.pragmas = apenet_hdb_pragmas,
	.ro_pragmas = NULL,
	.busy_ms = 5000,
	.opts = 0,
};

enum { BL_HB, BL_TR, BL_N };

static const char *const baseline_sql[BL_N] = {
	[BL_HB] = "INSERT INTO hb VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[BL_TR] = "INSERT INTO tr VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
};

struct apenet_hdb_baseline {
	struct apenet_db f;
	sqlite3_stmt *st[BL_N];
};

int apenet_hdb_baseline_open(const char *path, struct apenet_hdb_baseline **out, struct apenet_err *e)
{
	*out = NULL;
	struct apenet_hdb_baseline *b = calloc(1, sizeof(*b));
	if (!b)
		return apenet_err_set(e, APENET_EIO, "baseline db %s: out of memory", path ? path : "");
	if (apenet_db_open(&b->f, &baseline_kind, path, APENET_DB_CREATE | APENET_DB_PREPARE, b->st, baseline_sql, BL_N,
			   e)) {
		free(b);
		return -1;
	}
	*out = b;
	return 0;
}

void apenet_hdb_baseline_close(struct apenet_hdb_baseline *b)
{
	if (!b)
		return;
	apenet_db_close(&b->f);
	free(b);
}

int apenet_hdb_baseline_begin(struct apenet_hdb_baseline *b, struct apenet_err *e)
{
	return apenet_db_begin(&b->f, e);
}

int apenet_hdb_baseline_commit(struct apenet_hdb_baseline *b, struct apenet_err *e)
{
	return apenet_db_commit(&b->f, e);
}

int apenet_hdb_baseline_put(struct apenet_hdb_baseline *b, const struct apenet_report *r, int64_t node,
			    int64_t recv_ms, struct apenet_err *e)
{
	sqlite3_stmt *st;
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		st = b->st[BL_HB];
		sqlite3_bind_int64(st, 1, node);
		apenet_db_bind_text(st, 2, r->boot);
		sqlite3_bind_int64(st, 3, (int64_t)r->seq);
		sqlite3_bind_int64(st, 4, r->time_ms);
		sqlite3_bind_int64(st, 5, recv_ms);
		sqlite3_bind_int64(st, 6, r->ldm);
		apenet_db_bind_text(st, 7, r->evidence);
	} else {
		st = b->st[BL_TR];
		apenet_db_bind_text(st, 1, r->boot);
		sqlite3_bind_int64(st, 2, (int64_t)r->seq);
		sqlite3_bind_int64(st, 3, r->x);
		sqlite3_bind_int64(st, 4, r->y);
		sqlite3_bind_int64(st, 5, r->z);
		sqlite3_bind_int(st, 6, r->subject);
		apenet_db_bind_text(st, 7, r->where);
		apenet_db_bind_text(st, 8, r->code);
		sqlite3_bind_int(st, 9, r->old_status);
		sqlite3_bind_int(st, 10, r->new_status);
		apenet_db_bind_double(st, 11, r->value);
		apenet_db_bind_double(st, 12, r->threshold);
		apenet_db_bind_text(st, 13, r->unit);
		apenet_db_bind_text(st, 14, r->evidence);
		sqlite3_bind_int(st, 15, r->path);
		apenet_db_bind_text(st, 16, r->via);
		sqlite3_bind_int64(st, 17, r->time_ms);
		sqlite3_bind_int64(st, 18, recv_ms);
	}
	/* Step and reset only: every parameter is bound again for the next
	 * row, and the baseline does no more than sqlite needs. */
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		apenet_db_err(&b->f, e, "inserting");
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}
