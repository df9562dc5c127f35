/*
 * apenet cabling over emulated clusters: wall time and peak memory of the
 * real command (a child process, measured with wait4's rusage), without a
 * config (the torus the boards declare), each cluster with one swapped pair
 * to find: the 4x4x1 QUonG torus as the baseline (also from `apenet
 * snapshot` files, the way a site gathers them with pdsh), 16x16x16 (4096
 * nodes) and 32x32x32 (32768 nodes, the architecture's limit).  For each, what
 * the emulator itself costs to get there: time to ready, its peak memory and
 * the BAR files on disk, and the tick it settled on.
 *   bench_cabling [--quick]    (--quick: 4x4x1 only)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spawn.h"
#include "../tests/e2e/e2e.h"

/* Disk taken by the emulated cluster's directory (its BAR and PCI files). */
static long disk_kb(const char *dir)
{
	char cmd[PATH_MAX + 32];
	long kb = -1;
	snprintf(cmd, sizeof(cmd), "du -sk '%s' 2>/dev/null", dir);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (fscanf(p, "%ld", &kb) != 1)
			kb = -1;
		pclose(p);
	}
	return kb;
}

/* The tick the emulator settled on, from its log ("tick now N ms"). */
static unsigned tick_ms(const char *dir)
{
	char path[PATH_MAX + 16], line[256];
	unsigned t = 0;
	snprintf(path, sizeof(path), "%s/sim.log", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return t;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "tick now ");
		if (p)
			t = (unsigned)atoi(p + 9);
		else if ((p = strstr(line, ", tick ")))
			t = (unsigned)atoi(p + 7);
	}
	fclose(f);
	return t;
}

static int run(const char *dims, int from_files)
{
	struct e2e_sim sim;
	char prog[PATH_MAX], out[PATH_MAX + 32], cmd[8 * PATH_MAX];
	double t0 = e2e_now();
	if (e2e_sim_start(&sim, "--dims", dims, NULL)) {
		fprintf(stderr, "bench: apenet-sim %s did not start (APENET_BIN=%s)\n", dims, e2e_bin());
		return -1;
	}
	double ready = e2e_now() - t0;
	/* one swapped pair to find */
	if (e2e_inject(&sim, "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-", NULL)) {
		e2e_sim_stop(&sim);
		return -1;
	}
	snprintf(prog, sizeof(prog), "%s/apenet", e2e_bin());
	snprintf(out, sizeof(out), "%s/cabling.json", sim.dir);
	double wall = 0;
	long rss = 0;
	int rc, runs = 0;
	/* until the swap shows (the links retrain over a few ticks) */
	for (double end = e2e_now() + 180;;) {
		char *argv[] = { prog, "cabling", "--json", "--sim-cluster", sim.dir, NULL };
		rc = bench_spawn(argv, out, NULL, &wall, &rss);
		runs++;
		snprintf(cmd, sizeof(cmd), "grep -q '\"swapped\"' '%s'", out);
		if ((rc == 1 && system(cmd) == 0) || e2e_now() > end)
			break;
	}
	long sim_kb = e2e_proc_kb(sim.pid, "VmHWM:"), disk = disk_kb(sim.dir);
	printf("%-16s %9s %9.3f %8.1f %6s | %8.2f %8.0f %8.0f %7u\n", "--sim-cluster", dims, wall, rss / 1024.0,
	       rc == 1 ? "found" : "MISSED", ready, sim_kb / 1024.0, disk / 1024.0, tick_ms(sim.dir));
	if (from_files) {
		snprintf(cmd, sizeof(cmd),
			 "mkdir -p '%s/snaps' && for d in '%s'/node-*; do '%s' snapshot --interval 0 --sim \"$d\" >'%s/snaps/'\"${d##*/}\".json || exit 1; done",
			 sim.dir, sim.dir, prog, sim.dir);
		if (system(cmd) != 0) {
			e2e_sim_stop(&sim);
			return -1;
		}
		snprintf(cmd, sizeof(cmd), "exec '%s' cabling --json '%s'/snaps/*.json", prog, sim.dir);
		char *argv[] = { "/bin/sh", "-c", cmd, NULL };
		rc = bench_spawn(argv, out, NULL, &wall, &rss);
		printf("%-16s %9s %9.3f %8.1f %6s |\n", "snapshot files", dims, wall, rss / 1024.0, rc == 1 ? "found" : "MISSED");
	}
	e2e_sim_stop(&sim);
	return 0;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "--quick");
	printf("# apenet cabling (no config: the torus the boards declare), one swapped pair to find;\n"
	       "# the command is a child process (wait4 rusage); right: what the emulator took\n");
	printf("%-16s %9s %9s %8s %6s | %8s %8s %8s %7s\n", "input", "torus", "wall s", "peak MB", "swap", "sim ready",
	       "sim MB", "disk MB", "tick ms");
	if (run("4x4x1", 1))
		return 2;
	if (quick)
		return 0;
	if (run("16x16x16", 0) || run("32x32x32", 0))
		return 2;
	return 0;
}
