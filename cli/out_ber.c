/* A BER test for the command line (apenet ber, apenet qualify): its
 * progress line, its run to the end, and what an inconclusive one saw, for
 * its rule (lofamo/rules_ber.c: a warning that says how many more bits
 * would prove the target, never a reason to replace anything). */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "apenet/bertest.h"
#include "apenet/rules_test.h"
#include "apenet/sweep.h"
#include "cli.h"

/* The least bits any lane has checked against the most it may need: the
 * progress line (a terminal only). */
void cli_ber_progress(const struct apenet_bertest *t, struct cli_progress *p)
{
	uint64_t bits = UINT64_MAX, errs = 0;
	double upper = 0, goal = 0;
	for (unsigned i = 0; i < t->n; i++) {
		const struct apenet_bertest_lane *l = &t->l[i];
		if (l->dir != APENET_BERTEST_FAR_TO_NEAR)
			continue;
		if (l->bits < bits)
			bits = l->bits;
		errs += l->errors;
		if (l->dec.est.upper > upper)
			upper = l->dec.est.upper;
		double want = t->o.bits ? (double)t->o.bits : l->dec.pass_bits;
		if (isfinite(want) && want > goal)
			goal = want;
	}
	if (bits == UINT64_MAX)
		bits = 0;
	/* both ends: the first run goes on until a far lane could pass with
	 * one error, a later one as long as the far lanes still open need
	 * (bertest/run.c) */
	if (t->o.both_ends && !t->o.bits && !t->runs)
		goal = fmax(goal, apenet_ber_min_bits(1, t->o.target, t->o.cl));
	if (t->runs) {
		bits = UINT64_MAX;
		for (unsigned i = 0; i < t->n; i++)
			if (t->l[i].dir == APENET_BERTEST_FAR_TO_NEAR && t->l[i].run_bits < bits)
				bits = t->l[i].run_bits;
		goal = t->far_need;
	}
	double frac = goal > 0 ? (double)bits / goal : -1;
	double eta = t->lane_bps > 0 && goal > 0 ? fmax(0, goal - (double)bits) / t->lane_bps : -1;
	cli_progress_show(p, frac, eta, "%.3g bits a lane, %llu errors, upper bound %.2g", (double)bits,
			  (unsigned long long)errs, upper);
}

void cli_ber_short(const struct apenet_bertest *t, struct apenet_ber_short *s)
{
	uint64_t bits = UINT64_MAX, errs = 0;
	for (unsigned i = 0; i < t->n; i++) {
		if (t->l[i].bits < bits)
			bits = t->l[i].bits;
		errs += t->l[i].errors;
	}
	*s = (struct apenet_ber_short){ .target = t->o.target, .cl = t->o.cl, .least_bits = bits == UINT64_MAX ? 0 : bits,
					.errors = errs, .elapsed_s = apenet_bertest_elapsed(t),
					.more_bits = apenet_bertest_more_bits(t), .lane_bps = t->lane_bps };
}

void cli_sweep_progress(void *ctx, const struct apenet_sweep_point *p, uint64_t bits, unsigned npoints)
{
	struct cli_sweep_prog *g = ctx;
	g->calls++;
	if (p->upper < g->best_upper || !g->best_upper)
		g->best_upper = p->upper;
	double el = cli_progress_elapsed(g->pg) - g->t0_s;
	if (g->max_s > 0 && el >= g->max_s && g->stop && !*g->stop) {
		g->timed_out = 1; /* its limit: the sweep ends, the link goes back */
		*g->stop = 1;
	}
	struct apenet_sweep_plan done = { .bits = bits, .measurements = g->calls };
	double frac = g->est_s > 0 ? fmin(apenet_sweep_link_estimate_s(g->sl, &done, NULL) / g->est_s, 0.99) : -1;
	double eta = frac > 0 ? el * (1 - frac) / frac : -1;
	cli_progress_show(g->pg, frac, eta, "%u points, best upper bound %.2g", npoints, g->best_upper);
}

int cli_ber_run(struct apenet_bertest *t, struct cli_progress *pg, volatile int *stop, long nap_ms,
		struct apenet_err *e)
{
	int done = 0, srv;
	struct apenet_err se = { 0 };
	for (;;) {
		while (!*stop && !(done = apenet_bertest_poll(t, e))) {
			cli_ber_progress(t, pg);
			struct timespec ts = { nap_ms / 1000, (nap_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
		}
		srv = apenet_bertest_stop(t, &se); /* back to traffic, always */
		/* a far lane that saw errors may need another run */
		if (done < 0 || srv < 0 || *stop || !apenet_bertest_far_open(t))
			break;
		if (apenet_bertest_again(t, &se)) {
			srv = -1;
			break;
		}
	}
	if (done >= 0 && srv < 0)
		*e = se;
	return done < 0 || srv < 0 ? -1 : 0;
}
