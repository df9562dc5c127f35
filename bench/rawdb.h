/*
 * The database baseline of the supervisor's benchmarks: reports stored as
 * plain INSERTs into two tables without indexes (heartbeats, transitions),
 * through one prepared statement each, with the durability the health
 * database uses (WAL, synchronous=FULL: an fsync per commit).  What sqlite
 * costs without the library's logic; bench_hdb and bench_supervisor both
 * use it, so their baselines are the same rows the same way.  The SQL and
 * the file's settings are db/'s (db/hdb_baseline.c); this prints errors.
 */
#ifndef BENCH_RAWDB_H
#define BENCH_RAWDB_H

#include <stdint.h>

#include "apenet/notify.h"

struct bench_rawdb;

/* Creates (or reopens) the file and its tables; NULL with a message on
 * stderr when sqlite refuses. */
struct bench_rawdb *bench_rawdb_open(const char *path);
void bench_rawdb_close(struct bench_rawdb *db);
int bench_rawdb_begin(struct bench_rawdb *db);
int bench_rawdb_commit(struct bench_rawdb *db);
/* One row: a heartbeat (node index, boot, seq, time, recv, LDM word, summary)
 * or a transition (every field of the report).  0 or -1 (stderr). */
int bench_rawdb_put(struct bench_rawdb *db, const struct apenet_report *r, int64_t node, int64_t recv_ms);

#endif
