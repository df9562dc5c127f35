/*
 * What one period of the agent costs, per variant, on a board of a running
 * apenet-sim: one sample through the sampler (register reads and
 * microseconds; with the PCI config space re-read through the libpci handle
 * the sampler keeps open, and without), and the judge over two samples
 * (every rule of lofamo/, findings out).  Baseline, in the same run: the
 * way the CLI took a sample before the sampler, opening libpci, scanning
 * the bus and mapping the BAR for each one.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../tests/e2e/e2e.h"
#include "apenet/sampler.h"
#include "apenet/verdict.h"

#define ITER 2000

static struct apenet_sample a, b;
static struct apenet_view v;

int main(void)
{
	printf("# one sample and one judgement per variant (%d iterations, live emulator)\n", ITER);
	printf("%-10s %7s %12s %12s %12s %14s\n", "variant", "reads", "us/sample", "us +pcie", "us judge",
	       "us reopen(old)");
	for (int vi = 1; vi < APENET_V_COUNT; vi++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)vi);
		struct e2e_sim sim;
		struct apenet_sampler s;
		struct apenet_err e = { 0 };
		struct apenet_config cfg;
		struct apenet_findings fs;
		char node[PATH_MAX];
		if (e2e_sim_start(&sim, "--dims", "1x1x1", "--variant", p->name, NULL)) {
			fprintf(stderr, "bench: cannot start apenet-sim for %s (APENET_BIN=%s)\n", p->name, e2e_bin());
			return 2;
		}
		e2e_node_dir(&sim, 0, 0, 0, node, sizeof(node));
		if (apenet_sampler_open(&s, node, NULL, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return 2;
		}
		apenet_config_defaults(&cfg);
		apenet_findings_init(&fs);
		uint64_t reads = 0;
		double t0 = e2e_now();
		for (int i = 0; i < ITER; i++) {
			if (apenet_sampler_take(&s, 0, i % 2 ? &b : &a, &e)) {
				fprintf(stderr, "bench: %s\n", e.msg);
				return 2;
			}
			reads += (i % 2 ? &b : &a)->reads;
		}
		double t1 = e2e_now();
		for (int i = 0; i < ITER; i++)
			if (apenet_sampler_take(&s, APENET_SAMPLE_PCIE, &b, &e)) {
				fprintf(stderr, "bench: %s\n", e.msg);
				return 2;
			}
		double t2 = e2e_now();
		apenet_view_pair(&v, &a, &b);
		size_t nf = 0;
		for (int i = 0; i < ITER; i++) {
			apenet_findings_clear(&fs);
			apenet_rules_pair(&v, &cfg, NULL, &fs);
			nf = fs.n;
		}
		double t3 = e2e_now();
		apenet_sampler_close(&s);
		/* the old way: a fresh libpci scan and BAR mapping per sample */
		int n_old = ITER / 10;
		for (int i = 0; i < n_old; i++) {
			if (apenet_sampler_open(&s, node, NULL, &e) || apenet_sampler_take(&s, APENET_SAMPLE_PCIE, &a, &e)) {
				fprintf(stderr, "bench: %s\n", e.msg);
				return 2;
			}
			apenet_sampler_close(&s);
		}
		double t4 = e2e_now();
		printf("%-10s %7.0f %12.2f %12.2f %12.2f %14.2f\n", p->name, (double)reads / ITER, (t1 - t0) / ITER * 1e6,
		       (t2 - t1) / ITER * 1e6, (t3 - t2) / ITER * 1e6, (t4 - t3) / n_old * 1e6);
		if (nf == (size_t)-1)
			return 2;
		apenet_findings_free(&fs);
		apenet_config_free(&cfg);
		e2e_sim_stop(&sim);
	}
	return 0;
}
