/*
 * PRBS generators and checkers per lane.  The checker at this end checks
 * what the far end's generator sends (an external device reflects our own
 * pattern).  The first SIM_PRBS_EXACT_BITS of a run go word by word through
 * the real generator, the line's bit errors and the real checker (bit-exact);
 * past that, counts advance statistically: Poisson errors at the lane's BER,
 * --ber-accel times faster than wall time.  The capture registers keep
 * showing real pattern words with their errors.
 */
#include <math.h>

#include "sim.h"

#define SIM_PRBS_EXACT_BITS (1u << 20)

/* Bits until the next line error at this BER (geometric). */
static double next_error(struct sim_rng *r, double ber)
{
	if (!(ber > 0))
		return INFINITY;
	if (ber >= 0.5)
		return 0;
	double u = sim_rng_uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return floor(log(u) / log1p(-ber));
}

/* The error mask of one 32-bit word on the line. */
static uint32_t line_errors(struct sim_rng *r, struct sim_lane *ln)
{
	uint32_t mask = 0;
	double pos = 0;
	while (ln->err_skip < 32 - pos) {
		pos += ln->err_skip;
		mask |= 1u << (31 - (unsigned)pos);
		pos += 1;
		ln->err_skip = next_error(r, ln->ber);
	}
	ln->err_skip -= 32 - pos;
	return mask;
}

static void prbs_start(struct sim_torus *t, struct sim_board *b, struct sim_lane *ln, unsigned pat)
{
	ln->prbs_on = 1;
	ln->prbs_pat = (uint8_t)pat;
	ln->prbs_bits = 0;
	ln->prbs_errs = 0;
	ln->prbs_bits_frac = 0;
	ln->prbs_start_ts = t->now_ts;
	apenet_prbs_gen_init(&ln->gen, (enum apenet_prbs)pat, (uint32_t)sim_rng_next(&b->rng));
	apenet_prbs_chk_init(&ln->chk, (enum apenet_prbs)pat);
	ln->err_skip = next_error(&b->rng, ln->ber);
}

void sim_lane_prbs_tick(struct sim_torus *t, struct sim_board *b, struct sim_link *lk, struct sim_lane *ln,
			double dt)
{
	unsigned k = (unsigned)(ln - lk->lane);
	uint32_t ctrl = ln->prbs_ctrl;
	unsigned pat = APENET_GET(LANE_PRBS_CTRL, PATTERN, ctrl);
	if (!APENET_GET(LANE_PRBS_CTRL, ENABLE, ctrl)) {
		ln->prbs_on = 0;
		return;
	}
	if (!ln->prbs_on) { /* switched on: the run time counts from here */
		ln->prbs_on_ts = t->now_ts;
		ln->prbs_ended = 0;
		ln->prbs_followed = 0;
		ln->prbs_locked_once = 0;
		ln->prbs_nosrc_ts = 0;
	}
	if (!ln->prbs_on || pat != ln->prbs_pat || APENET_GET(LANE_PRBS_CTRL, CLEAR, ctrl))
		prbs_start(t, b, ln, pat);
	/* PRBS_RUN_MS: the firmware ends the run by itself (a far end started
	 * through the remote window goes back to traffic with nobody to tell
	 * it); the counters stay as they are for whoever reads them next */
	if (ln->prbs_run_ms && t->now_ts - ln->prbs_on_ts >= (uint64_t)ln->prbs_run_ms * (SIM_TS_HZ / 1000u)) {
		ln->prbs_on = 0;
		ln->prbs_ended = 1;
		ln->prbs_stop = 1; /* ENABLE leaves the BAR at publish */
		return;
	}

	const struct sim_link *pl = lk->peer_board >= 0 ? &t->b[lk->peer_board].link[lk->peer_link] : NULL;
	int source = ln->phase != APENET_PHASE_RESET &&
		     (!pl || (k < pl->lp->lanes && pl->lane[k].prbs_on && pl->lane[k].prbs_pat == pat));
	if (!source) {
		/* FOLLOW: a checker that had locked and hears nothing for
		 * APENET_PRBS_FOLLOW_MS ends the run: the partner stopped, so a
		 * far end started through the remote window goes back to
		 * traffic with it */
		if (APENET_GET(LANE_PRBS_CTRL, FOLLOW, ctrl) && ln->prbs_locked_once) {
			if (!ln->prbs_nosrc_ts)
				ln->prbs_nosrc_ts = t->now_ts ? t->now_ts : 1;
			if (t->now_ts - ln->prbs_nosrc_ts >= (uint64_t)APENET_PRBS_FOLLOW_MS * (SIM_TS_HZ / 1000u)) {
				ln->prbs_on = 0;
				ln->prbs_ended = 1;
				ln->prbs_followed = 1;
				ln->prbs_stop = 1;
				return;
			}
		}
		/* nothing (or not this pattern) arrives: the checker cannot lock */
		apenet_prbs_chk_init(&ln->chk, (enum apenet_prbs)pat);
		ln->rxword = (uint32_t)sim_rng_next(&b->rng);
		ln->errword = 0;
		return;
	}
	ln->prbs_nosrc_ts = 0;
	ln->err_skip = next_error(&b->rng, ln->ber); /* memoryless gaps: redraw at this tick's BER */

	double want = lk->lp->lane_mbps * 1e6 * dt * t->ber_accel + ln->prbs_bits_frac;
	uint64_t bits = (uint64_t)want;
	ln->prbs_bits_frac = want - (double)bits;

	/* bit-exact: real words through the real checker */
	uint64_t words = 0;
	if (ln->chk.bits + ln->chk.lock_losses * 32 < SIM_PRBS_EXACT_BITS) {
		uint64_t left = (SIM_PRBS_EXACT_BITS - ln->chk.bits) / 32;
		words = bits / 32 < left ? bits / 32 : left;
		uint64_t b0 = ln->chk.bits, e0 = ln->chk.errs;
		for (uint64_t i = 0; i < words; i++) {
			uint32_t w = apenet_prbs_gen_next(&ln->gen) ^ line_errors(&b->rng, ln);
			ln->errword = apenet_prbs_chk_feed(&ln->chk, w);
			ln->rxword = w;
		}
		ln->prbs_bits += ln->chk.bits - b0;
		ln->prbs_errs += ln->chk.errs - e0;
	}
	/* statistical for the rest */
	uint64_t rest = bits - words * 32;
	if (ln->chk.locked)
		ln->prbs_locked_once = 1;
	if (rest && ln->chk.locked) {
		ln->prbs_bits += rest;
		ln->prbs_errs += sim_rng_poisson(&b->rng, (double)rest * ln->ber);
		uint32_t e = line_errors(&b->rng, ln);
		uint32_t w = apenet_prbs_gen_next(&ln->gen) ^ e;
		ln->errword = apenet_prbs_chk_feed(&ln->chk, w);
		ln->rxword = w;
	}
}
