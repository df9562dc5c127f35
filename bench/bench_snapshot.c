/*
 * Register reads per full-board snapshot, and time per snapshot, for each
 * variant, through the real device layer on an emulated board.  Baseline,
 * measured in the same run: the same registers read the naive way, 32 bits
 * at a time with every 64-bit counter as two reads and no seqlock.  On a real
 * PCIe bus a read costs ~1 us, so reads are the figure that matters there;
 * the mmap'ed emulator shows the software overhead alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/sim.h"
#include "apenet/snapshot.h"

#define ITER 20000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Baseline: every register with 32-bit reads, no consistency. */
static uint64_t naive_snapshot(struct apenet_dev *d, uint64_t *sink)
{
	uint64_t before = d->nreads;
	unsigned n;
	const struct apenet_regdesc *g = apenet_regdescs(APENET_BLK_GLOBAL, &n);
	for (unsigned i = 0; i < n; i++)
		for (unsigned w = 0; w < g[i].bits / 32u; w++)
			*sink += apenet_rd32(d, g[i].off + 4 * w);
	for (unsigned l = 0; l < d->prof->nlinks; l++) {
		const struct apenet_regdesc *r = apenet_regdescs(APENET_BLK_LINK, &n);
		for (unsigned i = 0; i < n; i++)
			for (unsigned w = 0; w < r[i].bits / 32u; w++)
				*sink += apenet_rd32(d, apenet_link_off(l, r[i].off) + 4 * w);
		for (unsigned k = 0; k < d->prof->links[l].lanes; k++) {
			const struct apenet_regdesc *q = apenet_regdescs(APENET_BLK_LANE, &n);
			for (unsigned i = 0; i < n; i++)
				for (unsigned w = 0; w < q[i].bits / 32u; w++)
					*sink += apenet_rd32(d, apenet_lane_off(l, k, q[i].off) + 4 * w);
		}
	}
	return d->nreads - before;
}

int main(void)
{
	char tmpl[] = "/tmp/apenet-bench-XXXXXX";
	if (!mkdtemp(tmpl))
		return 2;
	printf("# snapshot of every diagnostic register, per variant (%d iterations)\n", ITER);
	printf("%-10s %8s %8s %10s %10s %12s %12s\n", "variant", "reads", "naive", "saved", "us/snap",
	       "naive us", "bus us@1us");
	for (int v = 1; v < APENET_V_COUNT; v++) {
		struct sim_conf c = { .dims = { 1, 1, 1 }, .prof = apenet_profile((enum apenet_variant)v),
				      .seed = 1, .ber_accel = 1, .tick_ms = 10, .cable_kind = -1 };
		static struct sim_torus t;
		struct apenet_err e = { 0 };
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s/%s", tmpl, c.prof->name);
		if (sim_torus_create(&t, &c, dir, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return 2;
		}
		t.now_ts = SIM_TS_HZ / 100;
		sim_torus_tick(&t, 0.01);
		struct apenet_site site;
		struct apenet_dev d;
		static struct apenet_snapshot s;
		char node[PATH_MAX + 32];
		snprintf(node, sizeof(node), "%s/node-0-0-0", t.dir);
		if (apenet_site_init(&site, node, &e) || apenet_dev_open(&d, &site, NULL, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return 2;
		}
		uint64_t reads = 0, nreads = 0, sink = 0;
		double t0 = now();
		for (int i = 0; i < ITER; i++) {
			if (apenet_snapshot_read(&d, &s, &e)) {
				fprintf(stderr, "bench: %s\n", e.msg);
				return 2;
			}
			reads = s.reads;
		}
		double t1 = now();
		for (int i = 0; i < ITER; i++)
			nreads = naive_snapshot(&d, &sink);
		double t2 = now();
		printf("%-10s %8llu %8llu %9.0f%% %10.2f %12.2f %12.0f\n", c.prof->name, (unsigned long long)reads,
		       (unsigned long long)nreads, 100.0 * (1 - (double)reads / (double)nreads),
		       (t1 - t0) / ITER * 1e6, (t2 - t1) / ITER * 1e6, (double)reads);
		apenet_dev_close(&d);
		sim_torus_destroy(&t);
		if (sink == 42)
			putchar(' ');
	}
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpl);
	return system(cmd) == 0 ? 0 : 1;
}
