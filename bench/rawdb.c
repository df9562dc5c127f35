/*
 * The database baseline (bench/rawdb.h): plain INSERTs, no indexes, no
 * logic, the health database's file settings.  The SQL is db/'s
 * (db/hdb_baseline.c); this adapter prints what the library returns.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../db/hdb_baseline.h"
#include "rawdb.h"

struct bench_rawdb {
	struct apenet_hdb_baseline *b;
};

static int said(int rc, const struct apenet_err *e)
{
	if (rc)
		fprintf(stderr, "rawdb: %s\n", e->msg);
	return rc;
}

struct bench_rawdb *bench_rawdb_open(const char *path)
{
	struct bench_rawdb *db = calloc(1, sizeof(*db));
	struct apenet_err e = { 0 };
	if (!db)
		return NULL;
	if (said(apenet_hdb_baseline_open(path, &db->b, &e), &e)) {
		free(db);
		return NULL;
	}
	return db;
}

void bench_rawdb_close(struct bench_rawdb *db)
{
	if (!db)
		return;
	apenet_hdb_baseline_close(db->b);
	free(db);
}

int bench_rawdb_begin(struct bench_rawdb *db)
{
	struct apenet_err e = { 0 };
	return said(apenet_hdb_baseline_begin(db->b, &e), &e);
}

int bench_rawdb_commit(struct bench_rawdb *db)
{
	struct apenet_err e = { 0 };
	return said(apenet_hdb_baseline_commit(db->b, &e), &e);
}

int bench_rawdb_put(struct bench_rawdb *db, const struct apenet_report *r, int64_t node, int64_t recv_ms)
{
	struct apenet_err e; /* set on failure, read only then: not cleared for every row */
	return said(apenet_hdb_baseline_put(db->b, r, node, recv_ms, &e), &e);
}
