/*
 * The emulator's cost, measured on the real apenet-sim process: time until
 * DIR/ready, then over a window its CPU share (utime+stime from /proc), the
 * tick it settled on, the CPU per board per tick, and its peak memory.
 * Baseline in the same run: the 4x4x1 QUonG torus; compare the per-board
 * cost across sizes, and the share of one core.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"

/* The tick it settled on, from its log ("tick now N ms"), else the start value. */
static unsigned tick_ms(const char *dir, unsigned boards)
{
	char path[4200], line[256];
	unsigned t = boards <= 256 ? 10 : 100;
	snprintf(path, sizeof(path), "%s/sim.log", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return t;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "tick now ");
		if (p)
			t = (unsigned)atoi(p + 9);
	}
	fclose(f);
	return t;
}

int main(int argc, char **argv)
{
	static const char *sizes[] = { "4x4x1", "8x8x4", "16x16x16" };
	static const unsigned boards[] = { 16, 256, 4096 };
	unsigned nsizes = argc > 1 && !strcmp(argv[1], "--quick") ? 2 : 3;
	const double window = 5.0;
	printf("# apenet-sim, the real process, one core; CPU over a %.0f s window after ready\n", window);
	printf("%-10s %7s %9s %8s %8s %12s %10s\n", "torus", "boards", "ready s", "tick", "core %", "us/board/tick",
	       "peak MB");
	for (unsigned i = 0; i < nsizes; i++) {
		struct e2e_sim sim;
		double t0 = e2e_now();
		if (e2e_sim_start(&sim, "--dims", sizes[i], NULL)) {
			fprintf(stderr, "bench: apenet-sim %s did not start (APENET_BIN=%s)\n", sizes[i], e2e_bin());
			return 2;
		}
		double ready = e2e_now() - t0;
		double c0 = e2e_proc_cpu_s(sim.pid), w0 = e2e_now();
		while (e2e_now() - w0 < window)
			usleep(100000);
		double share = (e2e_proc_cpu_s(sim.pid) - c0) / (e2e_now() - w0);
		unsigned tick = tick_ms(sim.dir, boards[i]);
		long hwm = e2e_proc_kb(sim.pid, "VmHWM:");
		printf("%-10s %7u %9.2f %5u ms %7.1f%% %12.2f %10.1f\n", sizes[i], boards[i], ready, tick, 100 * share,
		       share * tick / 1000.0 / boards[i] * 1e6, hwm / 1024.0);
		e2e_sim_stop(&sim);
	}
	return 0;
}
