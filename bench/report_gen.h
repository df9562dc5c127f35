/*
 * The health database bench_report measures `apenet report` and `apenet db
 * check` on: 10 million transitions of a 32x32x32 torus over 30 days,
 * written through the library as a supervisor would, from a fixed seed.  It
 * takes minutes to make, so it is made once, kept, and reused while it
 * carries this generator's marker; report_gen.c says what is in it.
 */
#ifndef BENCH_REPORT_GEN_H
#define BENCH_REPORT_GEN_H

#include <stdint.h>

/* Its shape, for the benchmark's heading: a DIM^3 torus, DAYS days from
 * START (a fixed date, so the file is the same every time). */
#define BENCH_REPORT_DIM 32u
#define BENCH_REPORT_DAYS 30
#define BENCH_REPORT_START "2024-05-01T00:00:00Z"
#define BENCH_REPORT_DEFAULT_TRANSITIONS 10000000ULL

/* What to run the reports on, as read back from the file: the
 * representative incident (placed by the generator, the same whatever its
 * other draws) and the one-day window around it. */
struct bench_report_pick {
	int64_t incident;  /* its id */
	int64_t opened_ms;
	unsigned evidence; /* its evidence rows */
	char where[192];   /* "cable X,Y,Z L <-> X,Y,Z L, rule" */
	int64_t since_ms, until_ms; /* the window [since, until) */
	uint64_t win_transitions, win_incidents, win_evidence; /* what the window holds */
};

/* Makes sure the database of `transitions` transitions is at path: reused
 * when it is this generator's and current (stdout: "database: ...,
 * reused"), else made (stdout: what was generated and how fast), writing
 * `batch` reports a transaction.  owned: the path is the benchmark's own
 * (build/bench-data/), so a file there that cannot be used is made again; a
 * file named by the user is never deleted unless it carries the marker.
 * Then fills *pick from it.  All the database work runs in child processes,
 * so the caller stays small (its children's ru_maxrss counts it).  0, or -1
 * with the reason on stderr. */
int bench_report_db(const char *path, int owned, uint64_t transitions, long long batch,
		    struct bench_report_pick *pick);

#endif
