/*
 * What the node agent costs (issue 8): apenet-agent on an APEnet+ v4 board
 * of a running emulator (a 4x4x1 torus, node 1,1,0), P = 100 ms, reports
 * off (no supervisor), for BENCH_AGENT_S seconds (default 120; 600 for the
 * issue's ten minutes): CPU share of one core (utime + stime from
 * /proc/PID/stat over the wall time) and resident memory (VmRSS, VmHWM).
 * Baseline in the same run: the same agent at P = 1 s, so the per-period
 * cost shows apart from what a running process costs anyway.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"

/* What a register read costs on a real card's bus (docs/design.md). */
#define BENCH_US_PER_READ 1.0

/* The register reads of the agent's last sample, from its own status
 * document (agent-status over its socket); -1 when it does not answer. */
static long agent_reads(const char *d)
{
	char cmd[PATH_MAX * 2 + 64], line[256];
	snprintf(cmd, sizeof(cmd), "'%s/apenet' agent-status --json --socket '%s/sock' 2>/dev/null", e2e_bin(), d);
	FILE *f = popen(cmd, "r");
	long reads = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *k = strstr(line, "\"reads_last\":");
		if (k)
			reads = strtol(k + strlen("\"reads_last\":"), NULL, 10);
	}
	pclose(f);
	return reads;
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
	double c0 = e2e_proc_cpu_s(p), t0 = e2e_now();
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	nanosleep(&ts, NULL);
	double c1 = e2e_proc_cpu_s(p), t1 = e2e_now();
	long rss = e2e_proc_kb(p, "VmRSS:"), hwm = e2e_proc_kb(p, "VmHWM:");
	long reads = agent_reads(d);
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
	double bus_pct = reads > 0 ? 100 * reads * BENCH_US_PER_READ * 1e-6 / (period_ms / 1000) : -1;
	printf("%-8.0f %8.0f %10.3f %12.1f %9.1f %9.1f %8ld %14.3f\n", period_ms, t1 - t0, 100 * (c1 - c0) / (t1 - t0),
	       (c1 - c0) / periods * 1e6, rss / 1024.0, hwm / 1024.0, reads, bus_pct < 0 ? -1 : bus_pct);
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
	printf("%-8s %8s %10s %12s %9s %9s %8s %14s\n", "P ms", "wall s", "core %", "us CPU/period", "RSS MB", "peak MB",
	       "reads", "+bus core %");
	int rc = run(&sim, dir, 100, secs) || run(&sim, dir, 1000, secs);
	printf("# reads: register reads per sample; +bus core %%: what they would add on a card at %.1f us a read\n",
	       BENCH_US_PER_READ);
	e2e_sim_stop(&sim);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", dir);
	return rc ? 2 : 0;
}
