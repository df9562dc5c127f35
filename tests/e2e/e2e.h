/* Helpers for end-to-end tests: start the real emulator, run the real tools,
 * wait on conditions with a deadline (never fixed sleeps). */
#ifndef E2E_H
#define E2E_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "apenet/dev.h"

struct e2e_sim {
	pid_t pid;
	char dir[PATH_MAX];
};

/* The programs under test: $APENET_BIN (default build/bin). */
const char *e2e_bin(void);
/* Starts apenet-sim run --dir <tmp> with the extra arguments (NULL-terminated)
 * and waits for DIR/ready; 0 or -1. */
int e2e_sim_start(struct e2e_sim *s, ...);
/* SIGTERM, wait, check it exited 0; removes the directory. Returns its exit status. */
int e2e_sim_stop(struct e2e_sim *s);
/* "<dir>/node-X-Y-Z" */
void e2e_node_dir(const struct e2e_sim *s, unsigned x, unsigned y, unsigned z, char *out, size_t n);
/* Runs argv (NULL-terminated), captures stdout into out (may be NULL) and stderr into err; exit code. */
int e2e_run(char *out, size_t outn, char *err, size_t errn, const char *prog, ...);
/* apenet-sim inject --dir DIR --node NODE args...; exit code. */
int e2e_inject(const struct e2e_sim *s, const char *node, ...);
/* Polls cond(ctx) every 10 ms until it is true or deadline_s pass; 1 when it became true. */
int e2e_wait(int (*cond)(void *ctx), void *ctx, double deadline_s);
double e2e_now(void);
/* The wall clock (CLOCK_REALTIME) in epoch milliseconds: the daemons' time stamps. */
double e2e_wall_ms(void);
void e2e_sleep_ms(int ms);
/* Opens the board of a node through the device layer. */
int e2e_open(const struct e2e_sim *s, unsigned x, unsigned y, unsigned z, struct apenet_dev *d);

/* Starts argv (argv[0] a path, or a name looked up in PATH) with its stderr
 * appended to errfile; its pid, or -1. */
pid_t e2e_spawn(char *const argv[], const char *errfile);
/* Starts apenet-agent --foreground on the emulated board of node ("X-Y-Z"):
 * writes dir/agent.yaml (state, black box, socket and EDAC root under dir,
 * user "", then extra_yaml verbatim: more two-space-indented agent keys, then
 * a supervisors: section), stderr into dir/log.  Its pid, or -1. */
pid_t e2e_agent_start(const struct e2e_sim *s, const char *dir, const char *node, const char *extra_yaml);
/* Sorts v[0..n) and gives its median, 99th percentile (nearest rank) and maximum (n > 0). */
void e2e_quantiles(double *v, int n, double *p50, double *p99, double *max);

/* A process's CPU time so far (utime + stime, s) and a /proc/PID/status
 * field in kB ("VmRSS:", "VmHWM:"); -1 when it is gone.  For benchmarks. */
double e2e_proc_cpu_s(pid_t pid);
long e2e_proc_kb(pid_t pid, const char *key);

#endif
