/*
 * The benchmarks' database baseline (db/hdb_baseline.c), for bench/rawdb.c
 * (bench_hdb and bench_supervisor).  Not installed: no program uses it.
 */
#ifndef APENET_HDB_BASELINE_H
#define APENET_HDB_BASELINE_H

#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

struct apenet_hdb_baseline;

/* Creates (or reopens) the file and its two tables. */
int apenet_hdb_baseline_open(const char *path, struct apenet_hdb_baseline **out, struct apenet_err *e);
void apenet_hdb_baseline_close(struct apenet_hdb_baseline *b);
int apenet_hdb_baseline_begin(struct apenet_hdb_baseline *b, struct apenet_err *e);
int apenet_hdb_baseline_commit(struct apenet_hdb_baseline *b, struct apenet_err *e);
/* One row: a heartbeat (node index, boot, seq, time, recv, LDM word,
 * summary) or a transition (every field of the report). */
int apenet_hdb_baseline_put(struct apenet_hdb_baseline *b, const struct apenet_report *r, int64_t node,
			    int64_t recv_ms, struct apenet_err *e);

#endif
