/*
 * PMA sweeps, adaptive against exhaustive (issue 10), on the emulator's
 * channel model (sim/channel.c): each point's errors are a Poisson draw
 * (sim/rng.c) of its true BER times the bits asked for, as the emulator's
 * PRBS checkers draw them, so the two strategies meet the landscape a
 * sweep on the emulator meets, without the wall time: test time is bits /
 * lane rate.  For every channel profile, in the same run: the exhaustive
 * search at the dwell that certifies the target with no error (as vendor
 * toolkits sweep), the adaptive search with the same dwell as its top
 * level, the test time each spent, and the TRUE BER of the setting each
 * chose (known here, never to the search), against the grid's true optimum.
 * Goals: adaptive <= 2% of exhaustive's test time, its choice <= 2x the
 * exhaustive choice's true BER.
 *   bench_sweep [SEEDS]    (default 3 seeds of the adaptive search a profile)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../sim/channel.h"
#include "../sim/sim.h"
#include "apenet/sweep.h"

#define TARGET 1e-12
#define CL 0.95

struct profile {
	const char *name;
	enum apenet_variant variant;
	enum sim_cable_kind kind;
	double length_m;
	unsigned mbps;
	uint32_t seed;
	const char *ranges[APENET_SWEEP_NPARAM]; /* NULL: the whole range, step 1 */
};

/* Stratix V ranges are too fine for an exhaustive bench: every 8th VOD etc. */
#define SV_STEPS { "vod=0:63:7", "pre=0:31:4", "post1=0:31:4", "post2=0:15:3", NULL, NULL }

static const struct profile profiles[] = {
	{ "APEnet+ copper 5 m 8.5 Gbps", APENET_V_APENETP, SIM_CABLE_COPPER, 5, 8500, 1, { NULL } },
	{ "APEnet+ copper 10 m 8.5 Gbps", APENET_V_APENETP, SIM_CABLE_COPPER, 10, 8500, 2, { NULL } },
	{ "APEnet+ copper 7 m 8.5 Gbps", APENET_V_APENETP, SIM_CABLE_COPPER, 7, 8500, 3, { NULL } },
	{ "APEnet+ copper 2 m 7 Gbps", APENET_V_APENETP, SIM_CABLE_COPPER, 2, 7000, 4, { NULL } },
	{ "APEnet v5 copper 1 m 10 Gbps", APENET_V_V5, SIM_CABLE_COPPER, 1, 10000, 5, SV_STEPS },
	{ "APEnet v5 optical 10 m 11.3 Gbps", APENET_V_V5, SIM_CABLE_OPTICAL, 10, 11300, 6, SV_STEPS },
};

struct oracle {
	struct sim_channel ch;
	struct sim_rng rng;
};

static double true_ber(const struct oracle *o, const uint8_t *v)
{
	struct sim_pma p = { v[0], v[1], v[2], v[3], v[4], v[5] };
	return sim_channel_ber(&o->ch, &p);
}

static int measure(void *ctx, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits, uint64_t *got, uint64_t *errs,
		   struct apenet_err *e)
{
	(void)e;
	struct oracle *o = ctx;
	*got = bits;
	*errs = sim_rng_poisson(&o->rng, true_ber(o, v) * (double)bits);
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *fmt_time(double s, char *buf, size_t n)
{
	if (s < 120)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.1f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, n, "%.1f h", s / 3600);
	else if (s < 730 * 86400)
		snprintf(buf, n, "%.1f days", s / 86400);
	else
		snprintf(buf, n, "%.1f years", s / (365.25 * 86400));
	return buf;
}

int main(int argc, char **argv)
{
	unsigned seeds = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	if (!seeds)
		seeds = 1;
	uint64_t dwell = (uint64_t)ceil(-log(1 - CL) / TARGET);
	printf("bench_sweep: target %.0e at %.0f%%, dwell %.3g bits a point (no error certifies the target); "
	       "adaptive: %u seeds a profile\n",
	       TARGET, CL * 100, (double)dwell, seeds);
	unsigned met_time = 0, met_ber = 0, runs = 0;
	double worst_frac = 0, worst_ratio = 0;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		const struct profile *pf = &profiles[i];
		const struct apenet_profile *vp = apenet_profile(pf->variant);
		struct oracle o;
		memset(&o, 0, sizeof(o));
		o.ch.kind = pf->kind;
		o.ch.length_m = pf->length_m;
		o.ch.lane_mbps = pf->mbps;
		o.ch.range = &vp->pma;
		o.ch.lane_seed = pf->seed;
		uint8_t def[APENET_SWEEP_NPARAM] = { vp->pma_default.vod,   vp->pma_default.pre,
						     vp->pma_default.post1, vp->pma_default.post2,
						     vp->pma_default.rxeq,  vp->pma_default.dcgain };
		struct apenet_sweep_space sp;
		struct apenet_err e = { 0 };
		apenet_sweep_space_full(&sp, &vp->pma, def);
		for (unsigned k = 0; k < APENET_SWEEP_NPARAM; k++)
			if (pf->ranges[k] && apenet_sweep_range_parse(&sp, &vp->pma, pf->ranges[k], &e)) {
				fprintf(stderr, "bench_sweep: %s\n", e.msg);
				return 2;
			}
		uint64_t size = apenet_sweep_space_size(&sp);

		/* exhaustive, and the grid's true optimum from the same pass */
		struct apenet_sweep ex;
		struct apenet_sweep_opts opt = { .strategy = APENET_SWEEP_EXHAUSTIVE, .dwell_bits = dwell, .cl = CL };
		sim_rng_seed(&o.rng, 1000 + i);
		double t0 = now_s();
		if (apenet_sweep_run(&sp, &opt, measure, &o, &ex, &e)) {
			fprintf(stderr, "bench_sweep: %s\n", e.msg);
			return 2;
		}
		double ex_cpu = now_s() - t0;
		double opt_ber = 1;
		for (size_t k = 0; k < ex.n; k++) {
			double b = true_ber(&o, ex.pt[k].v);
			if (b < opt_ber)
				opt_ber = b;
		}
		double ex_ber = true_ber(&o, ex.pt[ex.best].v), ex_s = (double)ex.bits / (pf->mbps * 1e6);
		char tb[32];
		printf("\n%s: %llu points; defaults %u/%u/%u/%u/%u/%u true BER %.2e; grid optimum %.2e\n", pf->name,
		       (unsigned long long)size, def[0], def[1], def[2], def[3], def[4], def[5], true_ber(&o, def),
		       opt_ber);
		const uint8_t *v = ex.pt[ex.best].v;
		printf("  exhaustive: %.3g bits = %s of test time a lane; chose %u/%u/%u/%u/%u/%u true BER %.2e "
		       "(%.1f s of CPU)\n",
		       (double)ex.bits, fmt_time(ex_s, tb, sizeof(tb)), v[0], v[1], v[2], v[3], v[4], v[5], ex_ber, ex_cpu);
		for (unsigned sd = 0; sd < seeds; sd++) {
			struct apenet_sweep ad;
			opt.strategy = APENET_SWEEP_ADAPTIVE;
			opt.seed = sd + 1;
			opt.start = def;
			sim_rng_seed(&o.rng, 2000 + i * 100 + sd);
			if (apenet_sweep_run(&sp, &opt, measure, &o, &ad, &e)) {
				fprintf(stderr, "bench_sweep: %s\n", e.msg);
				return 2;
			}
			double ad_ber = true_ber(&o, ad.pt[ad.best].v), frac = (double)ad.bits / (double)ex.bits;
			double ratio = ad_ber / ex_ber;
			v = ad.pt[ad.best].v;
			printf("  adaptive seed %u: %.3g bits = %s (%.3f%% of exhaustive), %zu points measured; chose "
			       "%u/%u/%u/%u/%u/%u true BER %.2e (%.2fx exhaustive's choice, %.3gx the optimum)\n",
			       sd + 1, (double)ad.bits, fmt_time((double)ad.bits / (pf->mbps * 1e6), tb, sizeof(tb)),
			       frac * 100, ad.n, v[0], v[1], v[2], v[3], v[4], v[5], ad_ber, ratio, ad_ber / opt_ber);
			runs++;
			met_time += frac <= 0.02;
			met_ber += ratio <= 2;
			if (frac > worst_frac)
				worst_frac = frac;
			if (ratio > worst_ratio)
				worst_ratio = ratio;
			apenet_sweep_free(&ad);
		}
		apenet_sweep_free(&ex);
	}
	printf("\nsummary: %u adaptive runs; test time <= 2%% of exhaustive in %u (worst %.3f%%); chosen true BER <= "
	       "2x exhaustive's choice in %u (worst %.2fx)\n",
	       runs, met_time, worst_frac * 100, met_ber, worst_ratio);
	return 0;
}
