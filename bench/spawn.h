/*
 * The child processes a benchmark measures: one run of a real command,
 * timed on the wall clock with its peak memory from wait4's rusage, and a
 * look into what it wrote.  bench_report, bench_cabling, bench_incident and
 * bench_latency use it, so a child is started and measured the same way in
 * each of them.
 */
#ifndef BENCH_SPAWN_H
#define BENCH_SPAWN_H

#include <sys/types.h>

/* Forks and execs argv (argv[0] a path) with its stdout to the file out (NULL
 * or "": /dev/null) and its stderr to the file errf (NULL: this process's
 * stderr), both truncated; waits for it.  Its exit code (128 + the signal
 * that killed it), *wall its wall seconds from before the fork, *maxrss_kb
 * its ru_maxrss (kB); -1 when it could not be started or waited for.
 *
 * ru_maxrss counts the child as forked, before exec: a big parent shows
 * in it, so a benchmark that reads a child's peak keeps itself small. */
int bench_spawn(char *const argv[], const char *out, const char *errf, double *wall, long *maxrss_kb);
/* Waits for a child forked at t0 (e2e_now()): as bench_spawn's return,
 * *wall and *maxrss_kb. */
int bench_wait(pid_t pid, double t0, double *wall, long *maxrss_kb);

/* 1 when a line of the file at path holds the string what (lines are read
 * 1 KB at a time); 0 when not, or when there is no file yet (a child that
 * has not written it). */
int bench_file_has(const char *path, const char *what);

#endif
