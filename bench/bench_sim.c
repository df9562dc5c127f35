/*
 * The emulator's cost: start-up and the CPU time of one firmware tick, per
 * torus size, on one core.  Baseline in the same run: the 4x4x1 QUonG
 * torus; the figure to compare is the per-board cost, and the share of one
 * core the emulator needs at the tick it picks (10 ms up to 256 boards, else
 * 100 ms, doubled while a tick takes more than half its period).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"

static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static const unsigned sizes[][3] = { { 4, 4, 1 }, { 8, 8, 4 }, { 16, 16, 16 } };
	unsigned nsizes = argc > 1 && !strcmp(argv[1], "--quick") ? 2 : 3;
	char tmpl[] = "/tmp/apenet-bench-XXXXXX";
	if (!mkdtemp(tmpl))
		return 2;
	printf("# apenet-sim firmware model, one core\n");
	printf("%-10s %7s %10s %10s %12s %8s %10s\n", "torus", "boards", "start s", "tick ms", "us/board", "tick",
	       "core %");
	for (unsigned i = 0; i < nsizes; i++) {
		struct sim_conf c = { .dims = { sizes[i][0], sizes[i][1], sizes[i][2] },
				      .prof = apenet_profile(APENET_V_APENETP), .seed = 1, .ber_accel = 1,
				      .cable_kind = -1 };
		static struct sim_torus t;
		struct apenet_err e = { 0 };
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/t%u", tmpl, i);
		double c0 = cpu();
		if (sim_torus_create(&t, &c, dir, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return 2;
		}
		double c1 = cpu();
		double dt = t.tick_ms / 1000.0;
		int ticks = 0;
		for (; ticks < 10; ticks++) { /* bring-up */
			t.now_ts += (uint64_t)(dt * SIM_TS_HZ);
			sim_torus_tick(&t, dt);
		}
		double c2 = cpu();
		int n = t.nboards > 1000 ? 10 : 100;
		for (int k = 0; k < n; k++) {
			t.now_ts += (uint64_t)(dt * SIM_TS_HZ);
			sim_torus_tick(&t, dt);
		}
		double per_tick = (cpu() - c2) / n;
		unsigned tick = t.tick_ms;
		while (per_tick > 0.5 * tick / 1000.0 && tick < 2000)
			tick *= 2;
		char name[32];
		snprintf(name, sizeof(name), "%ux%ux%u", sizes[i][0], sizes[i][1], sizes[i][2]);
		printf("%-10s %7u %10.2f %10.2f %12.2f %6u ms %9.1f%%\n", name, t.nboards, c1 - c0, per_tick * 1e3,
		       per_tick / t.nboards * 1e6, tick, 100 * per_tick / (tick / 1000.0));
		sim_torus_destroy(&t);
	}
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	return system(cmd) == 0 ? 0 : 1;
}
