/*
 * Register reads per full-board snapshot, and time per snapshot, for each
 * variant, through the real device layer on a board of a running apenet-sim
 * (whose firmware keeps publishing meanwhile, so seqlock retries are real).
 * Baseline, measured in the same run: the same registers read the naive way,
 * 32 bits at a time with every 64-bit counter as two reads and no seqlock.
 * On a real PCIe bus a read costs ~1 us, so reads are the figure that matters
 * there; the mmapped emulator shows the software overhead alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/e2e/e2e.h"
#include "apenet/snapshot.h"

#define ITER 20000

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
	printf("# snapshot of every diagnostic register, per variant (%d iterations, live emulator)\n", ITER);
	printf("%-10s %8s %8s %7s %9s %10s %9s %12s\n", "variant", "reads", "naive", "saved", "retries",
	       "us/snap", "naive us", "bus us@1us");
	for (int v = 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);
		struct e2e_sim sim;
		struct apenet_dev d;
		struct apenet_err e = { 0 };
		static struct apenet_snapshot s;
		if (e2e_sim_start(&sim, "--dims", "1x1x1", "--variant", p->name, NULL) || e2e_open(&sim, 0, 0, 0, &d)) {
			fprintf(stderr, "bench: cannot start apenet-sim for %s (APENET_BIN=%s)\n", p->name, e2e_bin());
			return 2;
		}
		uint64_t reads = 0, nreads = 0, sink = 0, retries = 0;
		double t0 = e2e_now();
		for (int i = 0; i < ITER; i++) {
			if (apenet_snapshot_read(&d, &s, &e)) {
				fprintf(stderr, "bench: %s\n", e.msg);
				return 2;
			}
			reads += s.reads;
			retries += s.retries;
		}
		double t1 = e2e_now();
		for (int i = 0; i < ITER; i++)
			nreads = naive_snapshot(&d, &sink);
		double t2 = e2e_now();
		double per = (double)reads / ITER;
		printf("%-10s %8.0f %8llu %6.0f%% %9llu %10.2f %9.2f %12.0f\n", p->name, per, (unsigned long long)nreads,
		       100.0 * (1 - per / (double)nreads), (unsigned long long)retries, (t1 - t0) / ITER * 1e6,
		       (t2 - t1) / ITER * 1e6, per);
		apenet_dev_close(&d);
		e2e_sim_stop(&sim);
		if (sink == 42)
			putchar(' ');
	}
	return 0;
}
