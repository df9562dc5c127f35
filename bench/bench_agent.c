/*
 * What the node agent costs (issue 8): apenet-agent on an APEnet+ v4 board
 * of a running emulator (a 4x4x1 torus, node 1,1,0), P = 100 ms, reports
 * off (no supervisor), for BENCH_AGENT_S seconds (default 120; 600 for the
 * issue's ten minutes): CPU share of one core (the threads' run time from
 * /proc/PID/task/TID/schedstat over the wall time) and resident memory
 * (VmRSS, VmHWM); register reads a period (the agent's own counts) and the
 * bus time they would cost on a card.
 * Baseline in the same run: the same agent at P = 1 s, so the per-period
 * cost shows apart from what a running process costs anyway.
 */
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apenet/sampler.h"
#include "../tests/e2e/e2e.h"

/* What a register read costs on a real card's bus (docs/design.md). */
#define BENCH_US_PER_READ 1.0

/* The agent's register reads from its own status document (agent-status
 * over its socket): the mean a period (module pages included), the most
 * in one period without and with the module pages; -1 when it does not
 * answer. */
struct bench_reads {
	double mean;
	long max_regs, max;
};

static double json_num(const char *line, const char *key)
{
	const char *k = strstr(line, key);
	return k ? strtod(k + strlen(key), NULL) : -1;
}

static void agent_reads(const char *d, struct bench_reads *r)
{
	char cmd[PATH_MAX * 2 + 64], line[256];
	snprintf(cmd, sizeof(cmd), "'%s/apenet' agent-status --json --socket '%s/sock' 2>/dev/null", e2e_bin(), d);
	*r = (struct bench_reads){ -1, -1, -1 };
	FILE *f = popen(cmd, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "\"reads_mean\":"))
			r->mean = json_num(line, "\"reads_mean\":");
		if (strstr(line, "\"reads_max\":"))
			r->max = (long)json_num(line, "\"reads_max\":");
		if (strstr(line, "\"reads_max_regs\":"))
			r->max_regs = (long)json_num(line, "\"reads_max_regs\":");
	}
	pclose(f);
}

/* CPU time of a process in seconds, to the nanosecond: the sum of its
 * threads' run time (/proc/PID/task/TID/schedstat).  utime + stime of
 * /proc/PID/stat count in clock ticks (10 ms): 120 s at 0.1% of a core is
 * 12 of them, too coarse to tell 0.09% from 0.11%. */
static double proc_cpu_exact_s(pid_t p)
{
	char path[96], line[128];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	double ns = 0;
	struct dirent *t;
	while ((t = readdir(d))) {
		if (t->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/schedstat", (int)p, t->d_name);
		FILE *f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f))
			ns += strtod(line, NULL);
		if (f)
			fclose(f);
	}
	closedir(d);
	return ns * 1e-9;
}

/* The baseline, measured on the same emulated card: one sample as every
 * tool took it before the tiers (and the CLI still does): every register. */
static long full_reads(const char *nodedir)
{
	static struct apenet_sampler smp;
	static struct apenet_sample x;
	struct apenet_err e = { 0 };
	if (apenet_sampler_open(&smp, nodedir, NULL, &e) || apenet_sampler_take(&smp, 0, &x, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return -1;
	}
	apenet_sampler_close(&smp);
	return (long)x.snap.reads;
}

static int run(const struct e2e_sim *sim, const char *dir, double period_ms, double secs)
{
	char d[PATH_MAX + 32], cfg[PATH_MAX + 64], nd[PATH_MAX + 32], bin[PATH_MAX + 16], err[PATH_MAX + 64];
	snprintf(d, sizeof(d), "%s/p%.0f", dir, period_ms);
	mkdir(d, 0755);
	snprintf(cfg, sizeof(cfg), "%s/agent.yaml", d);
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	fprintf(f, "agent:\n  period_ms: %g\n  watchdog_period_ms: %g\n  state_dir: %s/state\n  blackbox_dir: %s/bb\n"
		   "  socket: %s/sock\n  edac_root: %s/edac\n  user: \"\"\nsupervisors:\n  targets: []\n",
		period_ms, period_ms < 100 ? 100 : period_ms, d, d, d, d);
	fclose(f);
	snprintf(nd, sizeof(nd), "%s/node-1-1-0", sim->dir);
	snprintf(bin, sizeof(bin), "%s/apenet-agent", e2e_bin());
	snprintf(err, sizeof(err), "%s/log", d);
	pid_t p = fork();
	if (p == 0) {
		if (!freopen(err, "a", stderr))
			_exit(127);
		execl(bin, bin, "--config", cfg, "--foreground", "--sim", nd, (char *)NULL);
		_exit(127);
	}
	/* settle (the first second fills the baselines), then measure */
	struct timespec one = { 1, 0 };
	nanosleep(&one, NULL);
	double c0 = proc_cpu_exact_s(p), t0 = e2e_now();
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	nanosleep(&ts, NULL);
	double c1 = proc_cpu_exact_s(p), t1 = e2e_now();
	long rss = e2e_proc_kb(p, "VmRSS:"), hwm = e2e_proc_kb(p, "VmHWM:");
	struct bench_reads rd;
	agent_reads(d, &rd);
	kill(p, SIGTERM);
	int st;
	waitpid(p, &st, 0);
	if (c0 < 0 || c1 < 0) {
		fprintf(stderr, "bench: the agent died (see %s)\n", err);
		return -1;
	}
	double periods = (t1 - t0) * 1000 / period_ms;
	/* On a card every read is a PCIe round trip the CPU waits for (~1 us,
	 * docs/design.md); the emulator's reads are memory loads. */
	double bus_pct = rd.mean >= 0 ? 100 * rd.mean * BENCH_US_PER_READ * 1e-6 / (period_ms / 1000) : -1;
	printf("%-8.0f %8.0f %10.3f %12.1f %9.1f %9.1f %10.1f %9ld %9ld %12.3f\n", period_ms, t1 - t0,
	       100 * (c1 - c0) / (t1 - t0), (c1 - c0) / periods * 1e6, rss / 1024.0, hwm / 1024.0, rd.mean, rd.max_regs,
	       rd.max, bus_pct);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- reports on: the same agent reporting to two supervisors (issue 23) ----
 *
 * Two real apenet-supervisor processes on loopback ports (SNMPv3 authPriv as
 * shipped: a site secret, the node's key), the agent on node 1,1,0 at P =
 * 100 ms with its heartbeat a second to both, and beside it, at the same
 * time on the same emulator, the same agent with reports off on node 2,1,0:
 * both see the same load, so their difference is what the reports cost.
 * Measured after both supervisors acknowledged a first report, from each
 * process's own run time in nanoseconds (proc_cpu_exact_s). */

static pid_t rep_sup[2] = { -1, -1 };

/* The sum of every "key":N in the agent's status document; -1 when it does
 * not answer. */
static long rep_status_sum(const char *d, const char *key)
{
	char cmd[PATH_MAX * 2 + 64], buf[16384], pat[64];
	snprintf(cmd, sizeof(cmd), "'%s/apenet' agent-status --json --socket '%s/sock' 2>/dev/null", e2e_bin(), d);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	int rc = pclose(f);
	if (!n || rc)
		return -1;
	long sum = 0;
	for (const char *k = strstr(buf, pat); k; k = strstr(k + 1, pat))
		sum += strtol(k + strlen(pat), NULL, 10);
	return sum;
}

struct rep_wait {
	const char *what;
	const char *log;
	long want;
};

static int rep_file_has(void *ctx)
{
	const struct rep_wait *w = ctx;
	char line[512];
	FILE *f = fopen(w->log, "r");
	int found = 0;
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, w->what) != NULL;
	fclose(f);
	return found;
}

/* Both supervisors acknowledged at least want reports. */
static int rep_acked(void *ctx)
{
	const struct rep_wait *w = ctx;
	return rep_status_sum(w->log, "acked") >= w->want;
}

static void rep_stop(void)
{
	for (int i = 0; i < 2; i++)
		if (rep_sup[i] > 0) {
			kill(rep_sup[i], SIGTERM);
			waitpid(rep_sup[i], NULL, 0);
			rep_sup[i] = -1;
		}
}

/* Supervisor i of two on a free loopback port; the port, or 0. */
static int rep_sup_start(const char *dir, int i, const char *cfg)
{
	char db[PATH_MAX + 64], log[PATH_MAX + 64], bin[PATH_MAX + 32], listen[64];
	snprintf(db, sizeof(db), "%s/health-%d.db", dir, i);
	snprintf(log, sizeof(log), "%s/sup-%d.log", dir, i);
	snprintf(bin, sizeof(bin), "%s/apenet-supervisor", e2e_bin());
	for (int p = 30000 + (getpid() * 7 + i * 977) % 20000, tries = 0; tries < 10; tries++, p += 13) {
		snprintf(listen, sizeof(listen), "127.0.0.1:%d", p);
		unlink(log);
		char *argv[] = { bin, "--config", (char *)cfg, "--foreground", "--listen", listen, "--db", db, NULL };
		struct rep_wait w = { "listening on", log, 0 };
		rep_sup[i] = e2e_spawn(argv, log);
		if (rep_sup[i] > 0 && e2e_wait(rep_file_has, &w, 20) && waitpid(rep_sup[i], NULL, WNOHANG) == 0)
			return p;
		if (rep_sup[i] > 0) {
			kill(rep_sup[i], SIGTERM);
			waitpid(rep_sup[i], NULL, 0);
			rep_sup[i] = -1;
		}
	}
	fprintf(stderr, "bench: apenet-supervisor did not start (see %s)\n", log);
	return 0;
}

/* The floor: a process that only wakes every period (timerfd, poll, read)
 * and does nothing else, measured beside the agents: what a period's
 * wake-up alone costs on this machine (on this VM most of the agent's). */
static pid_t floor_start(double period_ms)
{
	pid_t p = fork();
	if (p != 0)
		return p;
	long ns = (long)(period_ms * 1e6);
	struct itimerspec it = { { ns / 1000000000L, ns % 1000000000L }, { ns / 1000000000L, ns % 1000000000L } };
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0 || timerfd_settime(fd, 0, &it, NULL))
		_exit(127);
	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		uint64_t n;
		if (poll(&pf, 1, -1) > 0 && read(fd, &n, sizeof(n)) < 0)
			_exit(1);
	}
}

static int run_reports(const struct e2e_sim *sim, const char *dir, double secs)
{
	char d[PATH_MAX], cfg[PATH_MAX + 64], sk[PATH_MAX + 64], nk[PATH_MAX + 64], extra[PATH_MAX * 2 + 256];
	char out[256], err[1024];
	int port[2];
	if ((size_t)snprintf(d, sizeof(d), "%s/reports", dir) >= sizeof(d))
		return -1;
	mkdir(d, 0755);
	snprintf(sk, sizeof(sk), "%s/site.key", d);
	snprintf(nk, sizeof(nk), "%s/node.key", d);
	snprintf(cfg, sizeof(cfg), "%s/cluster.yaml", d);
	char apenet[PATH_MAX + 16];
	snprintf(apenet, sizeof(apenet), "%s/apenet", e2e_bin());
	if (e2e_run(out, sizeof(out), err, sizeof(err), apenet, "keys", "init", "--out", sk, NULL) ||
	    e2e_run(out, sizeof(out), err, sizeof(err), apenet, "keys", "node", "1,1,0", "--site", sk, "--out", nk,
		    NULL)) {
		fprintf(stderr, "bench: apenet keys: %s\n", err);
		return -1;
	}
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	fprintf(f, "cluster:\n  dims: 4x4x1\nsupervisor:\n  site_key: %s\n", sk);
	if (fclose(f))
		return -1;
	for (int i = 0; i < 2; i++)
		if (!(port[i] = rep_sup_start(d, i, cfg))) {
			rep_stop();
			return -1;
		}
	snprintf(extra, sizeof(extra),
		 "  period_ms: 100\n  watchdog_period_ms: 100\nsupervisors:\n  targets: [\"127.0.0.1:%d\", "
		 "\"127.0.0.1:%d\"]\n  key_file: %s\n",
		 port[0], port[1], nk);
	pid_t p = e2e_agent_start(sim, d, "1-1-0", extra);
	char doff[PATH_MAX + 16];
	snprintf(doff, sizeof(doff), "%s/off", d);
	pid_t q = e2e_agent_start(sim, doff, "2-1-0",
				  "  period_ms: 100\n  watchdog_period_ms: 100\nsupervisors:\n  targets: []\n");
	if (p <= 0 || q <= 0) {
		pid_t both[2] = { p, q };
		for (int i = 0; i < 2; i++)
			if (both[i] > 0) {
				kill(both[i], SIGTERM);
				waitpid(both[i], NULL, 0);
			}
		rep_stop();
		return -1;
	}
	/* settle: both supervisors acknowledged the first heartbeats (SNMPv3
	 * discovery, the baselines' first second) */
	struct rep_wait w = { NULL, d, 4 };
	if (!e2e_wait(rep_acked, &w, 30))
		fprintf(stderr, "bench: the supervisors did not acknowledge the agent's reports (see %s/log)\n", d);
	pid_t fl = floor_start(100);
	long a0 = rep_status_sum(d, "acked");
	double c0 = proc_cpu_exact_s(p), o0 = proc_cpu_exact_s(q), f0 = proc_cpu_exact_s(fl), t0 = e2e_now();
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	nanosleep(&ts, NULL);
	double c1 = proc_cpu_exact_s(p), o1 = proc_cpu_exact_s(q), f1 = proc_cpu_exact_s(fl), t1 = e2e_now();
	if (fl > 0) {
		kill(fl, SIGTERM);
		waitpid(fl, NULL, 0);
	}
	long a1 = rep_status_sum(d, "acked");
	long rss = e2e_proc_kb(p, "VmRSS:"), hwm = e2e_proc_kb(p, "VmHWM:");
	long orss = e2e_proc_kb(q, "VmRSS:"), ohwm = e2e_proc_kb(q, "VmHWM:");
	double load[1] = { -1 };
	getloadavg(load, 1);
	int st, ost;
	kill(p, SIGTERM);
	waitpid(p, &st, 0);
	kill(q, SIGTERM);
	waitpid(q, &ost, 0);
	rep_stop();
	if (c0 < 0 || c1 < 0 || o0 < 0 || o1 < 0) {
		fprintf(stderr, "bench: an agent died (see %s/log, %s/log)\n", d, doff);
		return -1;
	}
	double periods = (t1 - t0) * 1000 / 100;
	printf("# reports off and on side by side: two agents at P = 100 ms on one emulator at the same time, CPU from "
	       "schedstat; on: heartbeat 1 s to two supervisors (SNMPv3 authPriv, loopback)\n");
	printf("%-8s %8s %10s %12s %9s %9s %10s %8s\n", "reports", "wall s", "core %", "us CPU/period", "RSS MB", "peak MB",
	       "acked/s", "load");
	printf("%-8s %8.0f %10.3f %12.1f %9.1f %9.1f %10s %8.2f\n", "off", t1 - t0, 100 * (o1 - o0) / (t1 - t0),
	       (o1 - o0) / periods * 1e6, orss / 1024.0, ohwm / 1024.0, "-", load[0]);
	printf("%-8s %8.0f %10.3f %12.1f %9.1f %9.1f %10.2f %8.2f\n", "on", t1 - t0, 100 * (c1 - c0) / (t1 - t0),
	       (c1 - c0) / periods * 1e6, rss / 1024.0, hwm / 1024.0,
	       a0 >= 0 && a1 >= 0 ? (double)(a1 - a0) / (t1 - t0) : -1, load[0]);
	if (f0 >= 0 && f1 >= 0)
		printf("%-8s %8.0f %10.3f %12.1f %9s %9s %10s %8.2f\n", "floor", t1 - t0, 100 * (f1 - f0) / (t1 - t0),
		       (f1 - f0) / periods * 1e6, "-", "-", "-", load[0]);
	printf("# the reports' own cost: %.3f%% of a core (%.1f us a period)\n", 100 * ((c1 - c0) - (o1 - o0)) / (t1 - t0),
	       ((c1 - c0) - (o1 - o0)) / periods * 1e6);
	if (f0 >= 0 && f1 >= 0)
		printf("# floor: a process that only wakes every 100 ms (timerfd, poll, read), beside them; the agent above it:\n"
		       "# reports off %.3f%%, on %.3f%% of a core\n",
		       100 * ((o1 - o0) - (f1 - f0)) / (t1 - t0), 100 * ((c1 - c0) - (f1 - f0)) / (t1 - t0));
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 && WIFEXITED(ost) && WEXITSTATUS(ost) == 0 && a1 > a0 ? 0 : -1;
}

int main(void)
{
	double secs = getenv("BENCH_AGENT_S") ? atof(getenv("BENCH_AGENT_S")) : 120;
	struct e2e_sim sim;
	char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-agentcost-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || e2e_sim_start(&sim, "--dims", "4x4x1", NULL)) {
		fprintf(stderr, "bench: cannot start apenet-sim (APENET_BIN=%s)\n", e2e_bin());
		return 2;
	}
	printf("# apenet-agent on an APEnet+ v4 board (emulated 4x4x1, node 1,1,0), reports off, %.0f s each\n", secs);
	printf("%-8s %8s %10s %12s %9s %9s %10s %9s %9s %12s\n", "P ms", "wall s", "core %", "us CPU/period", "RSS MB",
	       "peak MB", "reads/P", "max regs", "max+mod", "bus %");
	int rc = run(&sim, dir, 100, secs) || run(&sim, dir, 1000, secs);
	printf("# reads/P: register reads a period, the mean (module pages included); max regs: the most in one period\n"
	       "# without the module pages (read every module_interval_s), max+mod: with them; bus %%: the time\n"
	       "# the reads/P would keep the CPU waiting on a card at %.1f us a read, in %% of one core\n",
	       BENCH_US_PER_READ);
	/* the baseline: every register every period, as before the tiers */
	char nd[PATH_MAX + 32];
	snprintf(nd, sizeof(nd), "%s/node-1-1-0", sim.dir);
	long full = full_reads(nd);
	printf("# baseline (every register every period, as before the tiers; measured on the same card): %ld reads a\n"
	       "# period, bus %.3f %% at P = 100 ms; goal <= 120 reads (bus <= 0.12 %%)\n",
	       full, 100 * (double)full * BENCH_US_PER_READ * 1e-6 / 0.1);
	rc = run_reports(&sim, dir, secs) || rc;
	e2e_sim_stop(&sim);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", dir);
	return rc ? 2 : 0;
}
