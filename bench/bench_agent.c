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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	e2e_sim_stop(&sim);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", dir);
	return rc ? 2 : 0;
}
