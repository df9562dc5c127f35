/*
 * apenet cabling over an emulated cluster: wall time and peak memory of the
 * real command (a child process, measured with wait4's rusage), for a
 * 16x16x16 cluster (4096 nodes, 12288 cables) with one swapped pair, and in
 * the same run the 4x4x1 QUonG torus as the baseline.  Also: the same 4x4x1
 * from `apenet snapshot` files, the way a site gathers them with pdsh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"

static int timed(const char *out, char *const argv[], double *wall, long *maxrss_kb)
{
	double t0 = e2e_now();
	fflush(NULL); /* a child must not repeat our buffered output */
	pid_t pid = fork();
	if (pid == 0) {
		FILE *f = freopen(out, "w", stdout);
		(void)f;
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0)
		return -1;
	*wall = e2e_now() - t0;
	*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run(const char *label, const char *dims, const char *swap_node, int from_files)
{
	struct e2e_sim sim;
	char cfg[PATH_MAX + 32], prog[PATH_MAX], out[PATH_MAX + 32], cmd[8 * PATH_MAX];
	if (e2e_sim_start(&sim, "--dims", dims, NULL)) {
		fprintf(stderr, "bench: apenet-sim %s did not start (APENET_BIN=%s)\n", dims, e2e_bin());
		return -1;
	}
	snprintf(cfg, sizeof(cfg), "%s/cluster.yaml", sim.dir);
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	fprintf(f, "cluster:\n  dims: %s\n  wraparound: true\n", dims);
	fclose(f);
	/* one swapped pair to find */
	char *args[4] = { "cable-swap", "--link", "X+", NULL };
	if (e2e_inject(&sim, swap_node, args[0], args[1], args[2], "--with", "0,0,0:X-", NULL))
		return -1;
	snprintf(prog, sizeof(prog), "%s/apenet", e2e_bin());
	snprintf(out, sizeof(out), "%s/cabling.json", sim.dir);
	double wall = 0;
	long rss = 0;
	int rc;
	/* wait until the swap shows (the links retrain) */
	for (double end = e2e_now() + 60;;) {
		char *argv[] = { prog, "cabling", "--json", "--config", cfg, "--sim-cluster", sim.dir, NULL };
		rc = timed(out, argv, &wall, &rss);
		snprintf(cmd, sizeof(cmd), "grep -q '\"swapped\"' '%s'", out);
		if ((rc == 1 && system(cmd) == 0) || e2e_now() > end)
			break;
	}
	printf("%-24s %7s %10.3f %10.1f %6s\n", label, dims, wall, rss / 1024.0, rc == 1 ? "found" : "MISSED");
	if (from_files) {
		snprintf(cmd, sizeof(cmd),
			 "mkdir -p '%s/snaps' && for d in '%s'/node-*; do '%s' snapshot --interval 0 --sim \"$d\" >'%s/snaps/'\"${d##*/}\".json || exit 1; done",
			 sim.dir, sim.dir, prog, sim.dir);
		if (system(cmd) != 0)
			return -1;
		snprintf(cmd, sizeof(cmd), "exec '%s' cabling --json --config '%s' '%s'/snaps/*.json", prog, cfg, sim.dir);
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		rc = timed(out, argv, &wall, &rss);
		printf("%-24s %7s %10.3f %10.1f %6s\n", "snapshot files", dims, wall, rss / 1024.0, rc == 1 ? "found" : "MISSED");
	}
	e2e_sim_stop(&sim);
	return 0;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	printf("# apenet cabling on an emulated cluster with one swapped pair\n");
	printf("%-24s %7s %10s %10s %6s\n", "input", "torus", "wall s", "peak MB", "swap");
	if (run("--sim-cluster (baseline)", "4x4x1", "0,0,0", 1))
		return 2;
	if (!quick && run("--sim-cluster", "16x16x16", "0,0,0", 0))
		return 2;
	return 0;
}
