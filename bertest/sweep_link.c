/*
 * A sweep's points measured on a link of a card (apenet/sweep.h, "A sweep
 * of a link's lanes"): the far transmitter's settings through the remote
 * window, this receiver's here, then a PRBS run of the BER test engine
 * (bertest/run.c) of the bits asked for, judged against the target so that
 * a hopeless point ends early.  Between points the link must be up again:
 * the window rides on it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/bertest.h"
#include "apenet/dev.h"
#include "apenet/remote.h"
#include "apenet/sweep.h"

static const unsigned reg_of[APENET_SWEEP_NPARAM] = {
	APENET_LANE_PMA_VOD,   APENET_LANE_PMA_PRE,  APENET_LANE_PMA_POST1,
	APENET_LANE_PMA_POST2, APENET_LANE_PMA_RXEQ, APENET_LANE_PMA_DCGAIN,
};
#define TX_PARAMS 4 /* vod, pre, post1, post2: a transmitter's; rxeq, dcgain a receiver's */

/* A parameter set at the far end: the transmitter's when this end receives
 * (FAR_TO_NEAR), the receiver's when the far end does (reverse). */
static int remote(const struct apenet_sweep_link *sl, unsigned p)
{
	return sl->reverse ? p >= TX_PARAMS : p < TX_PARAMS;
}


static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int stopped(const struct apenet_sweep_link *sl, struct apenet_err *e)
{
	if (sl->stop && *sl->stop)
		return apenet_err_set(e, APENET_EINVAL, "sweep interrupted");
	return 0;
}

static uint32_t mask_of(const struct apenet_sweep_link *sl)
{
	return sl->lanes ? sl->lanes : (1u << sl->d->prof->links[sl->link].lanes) - 1;
}

/* Up (or degraded: the window works) within ms; 1, 0 when not, -1 gone. */
static int wait_up(struct apenet_sweep_link *sl, int ms, struct apenet_err *e)
{
	int64_t end = apenet_clock_mono_ms() + ms;
	for (;;) {
		uint32_t st = apenet_rd32(sl->d, apenet_link_off(sl->link, APENET_LINK_STATE));
		if (st == APENET_ALL_ONES && apenet_dev_check(sl->d, e))
			return -1;
		unsigned s = APENET_GET(LINK_STATE, STATE, st);
		if (s == APENET_LINK_UP || s == APENET_LINK_DEGRADED)
			return 1;
		if (apenet_clock_mono_ms() >= end)
			return 0;
		if (stopped(sl, e))
			return -1;
		nap_ms(2);
	}
}

/* Back from a point the link could not run at: this end's settings as they
 * were (the far end's go back by themselves after the revert time). */
static int recover_within(struct apenet_sweep_link *sl, int ms, struct apenet_err *e)
{
	sl->dropped++;
	sl->have_cur = 0;
	for (unsigned k = 0; k < sl->nlanes; k++)
		if (mask_of(sl) & (1u << k))
			for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
				if (!remote(sl, p))
					apenet_wr32(sl->d, apenet_lane_off(sl->link, k, reg_of[p]), sl->orig[k][p]);
	int up = wait_up(sl, ms, e);
	if (up < 0)
		return -1;
	if (!up)
		return apenet_err_set(e, APENET_ELINK,
				      "%s: link %s did not come back within %d ms of a point it could not run at",
				      sl->d->bdf, sl->d->prof->links[sl->link].name, ms);
	return 0;
}

static int recover(struct apenet_sweep_link *sl, struct apenet_err *e)
{
	return recover_within(sl, (int)APENET_RMT_PMA_REVERT_MS * 3 + sl->timeout_ms, e);
}

/* Every lane's six settings into orig (the far ones through the window)
 * and the partner's offsets: 0, 1 when the link went down meanwhile, -1. */
static int read_settings(struct apenet_sweep_link *sl, struct apenet_err *e)
{
	struct apenet_dev *d = sl->d;
	for (unsigned k = 0; k < sl->nlanes; k++) {
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
			uint64_t v;
			if (remote(sl, p)) {
				uint32_t off;
				if (apenet_remote_lane_off(d, sl->link, k, reg_of[p], &off, e) ||
				    apenet_remote_read(d, sl->link, off, &v, sl->timeout_ms, e))
					return e->code == APENET_ELINK ? 1 : -1;
				sl->far_off[k][p] = off;
			} else {
				v = apenet_rd32(d, apenet_lane_off(sl->link, k, reg_of[p]));
			}
			sl->orig[k][p] = (uint8_t)v;
		}
	}
	return 0;
}

int apenet_sweep_link_begin(struct apenet_sweep_link *sl, struct apenet_err *e)
{
	struct apenet_dev *d = sl->d;
	if (sl->link >= d->prof->nlinks)
		return apenet_err_set(e, APENET_EINVAL, "%s: no link %u", d->bdf, sl->link);
	sl->nlanes = d->prof->links[sl->link].lanes;
	sl->have_cur = 0;
	sl->dropped = 0;
	sl->guard_ms = 0;
	sl->lane_mbps = apenet_rd32(d, apenet_link_off(sl->link, APENET_LINK_LANE_MBPS));
	sl->accel = apenet_rd32(d, APENET_REG_BER_ACCEL);
	if (!sl->accel || sl->accel == APENET_ALL_ONES)
		sl->accel = 1;
	if (apenet_remote_supported(d, e) <= 0) {
		if (e->code == APENET_OK)
			apenet_err_set(e, APENET_ENOTSUP,
				       "%s: the card has no remote-register window (ID_CAPS.RMT 0): a sweep sets the far "
				       "end's transmitter through it",
				       d->bdf);
		return -1;
	}
	/* the far settings and the partner's port, read while the link is
	 * up; a link that trains meanwhile (a tool before us left it
	 * realigning) is waited for, within the revert time and more */
	int64_t end = apenet_clock_mono_ms() + (int64_t)APENET_RMT_PMA_REVERT_MS * 3 + sl->timeout_ms;
	for (;;) {
		int up = wait_up(sl, (int)(end - apenet_clock_mono_ms() > 0 ? end - apenet_clock_mono_ms() : 0), e);
		if (up < 0)
			return -1;
		if (!up)
			return apenet_err_set(e, APENET_ELINK, "%s: link %s is not up: nothing to sweep", d->bdf,
					      d->prof->links[sl->link].name);
		int rc = read_settings(sl, e);
		if (rc <= 0)
			return rc;
		if (apenet_clock_mono_ms() >= end)
			return -1;
	}
}

/* Writes v (only what differs from what is there) on every lane under
 * test; 0, 1 when the link went down meanwhile, -1 with e. */
static int write_point(struct apenet_sweep_link *sl, const uint8_t v[APENET_SWEEP_NPARAM], struct apenet_err *e)
{
	/* the far end's first: while they are written the link must be up,
	 * and this end's at the point could take it down */
	static const unsigned order[2][APENET_SWEEP_NPARAM] = { { 0, 1, 2, 3, 4, 5 }, { 4, 5, 0, 1, 2, 3 } };
	for (unsigned i = 0; i < APENET_SWEEP_NPARAM; i++) {
		unsigned p = order[sl->reverse ? 1 : 0][i];
		if (sl->have_cur && sl->cur[p] == v[p])
			continue;
		for (unsigned k = 0; k < sl->nlanes; k++) {
			if (!(mask_of(sl) & (1u << k)))
				continue;
			if (!remote(sl, p)) {
				apenet_wr32(sl->d, apenet_lane_off(sl->link, k, reg_of[p]), v[p]);
				continue;
			}
			if (apenet_remote_write(sl->d, sl->link, sl->far_off[k][p], v[p], sl->timeout_ms, e))
				return e->code == APENET_ELINK ? 1 : -1;
		}
	}
	memcpy(sl->cur, v, APENET_SWEEP_NPARAM);
	sl->have_cur = 1;
	return 0;
}

int apenet_sweep_link_measure(void *ctx, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits, uint64_t *got_bits,
			      uint64_t *got_errors, struct apenet_err *e)
{
	struct apenet_sweep_link *sl = ctx;
	*got_bits = *got_errors = 0;
	if (stopped(sl, e))
		return -1;
	int up = wait_up(sl, (int)APENET_RMT_PMA_REVERT_MS * 3 + sl->timeout_ms, e);
	if (up < 0)
		return -1;
	if (!up && recover(sl, e))
		return -1;
	int w = write_point(sl, v, e);
	if (w < 0)
		return -1;
	unsigned n = 0;
	for (unsigned k = 0; k < sl->nlanes; k++)
		n += !!(mask_of(sl) & (1u << k));
	struct apenet_bertest_opts o = { 0 };
	o.link = sl->link;
	o.lanes = mask_of(sl);
	o.both_ends = sl->reverse; /* the far checkers, read after the run */
	o.pattern = (enum apenet_prbs)sl->pattern;
	o.target = sl->target;
	o.cl = sl->cl;
	o.bits = (bits + n - 1) / n;
	double bps = sl->lane_mbps * 1e6 * sl->accel;
	o.max_s = 10 + 4 * (double)o.bits / (bps > 0 ? bps : 1);
	o.guard_ms = (unsigned)(o.max_s * 1000 + 10000);
	/* the far guards persist between runs: written again only when a
	 * longer dwell needs a longer one */
	if (sl->guard_ms >= o.guard_ms) {
		o.guard_ms = sl->guard_ms;
		o.far_guard_set = 1;
	}
	o.timeout_ms = sl->timeout_ms;
	struct apenet_bertest t;
	int dropped = w == 1;
	if (!dropped && apenet_bertest_start(sl->d, &o, &t, e)) {
		if (e->code != APENET_ELINK)
			return -1;
		dropped = 1; /* the point took the link down before the run */
	} else if (!dropped) {
		sl->guard_ms = o.guard_ms;
	}
	if (!dropped) {
		int done;
		long nap = 1;
		while (!(done = apenet_bertest_poll(&t, e)) && !(sl->stop && *sl->stop)) {
			nap_ms(nap);
			if (nap < 20)
				nap *= 2;
		}
		struct apenet_err se = { 0 };
		int srv = apenet_bertest_stop(&t, &se);
		if (done < 0 || (srv < 0 && se.code != APENET_ELINK)) {
			if (done >= 0)
				*e = se;
			return -1;
		}
		if (stopped(sl, e))
			return -1;
		if (srv < 0) {
			/* the far end could not be reached after the run: this
			 * end's receiver at the point keeps the link from
			 * aligning (its own settings are not on trial), or the
			 * far end is still in PRBS.  A point it cannot run at:
			 * this end's settings back, the far end's come back by
			 * themselves, the far counts (reverse) are lost */
			if (recover_within(sl, (int)(APENET_RMT_PMA_REVERT_MS * 3 + sl->guard_ms) + sl->timeout_ms, e))
				return -1;
			*got_bits = 1;
			*got_errors = 1;
			return 0;
		}
		enum apenet_bertest_dir want = sl->reverse ? APENET_BERTEST_NEAR_TO_FAR : APENET_BERTEST_FAR_TO_NEAR;
		for (unsigned i = 0; i < t.n; i++) {
			if (t.l[i].dir != want)
				continue;
			if (t.l[i].no_lock)
				dropped = 1;
			*got_bits += t.l[i].bits;
			*got_errors += t.l[i].errors;
		}
		/* the link realigns after the run: a point it cannot come up at
		 * is recovered before the next one */
		up = wait_up(sl, sl->timeout_ms, e);
		if (up < 0)
			return -1;
		if (!up && recover(sl, e))
			return -1;
	} else if (recover(sl, e)) {
		return -1;
	}
	if (dropped || !*got_bits) {
		*got_bits = 1; /* the worst a point can be (apenet/sweep.h) */
		*got_errors = 1;
	}
	return 0;
}

/* REALIGN, and up again (a new LINK_UP_TS: this bring-up, not the last). */
static int realign(struct apenet_sweep_link *sl, struct apenet_err *e)
{
	uint32_t ts_off = apenet_link_off(sl->link, APENET_LINK_UP_TS);
	uint64_t up0 = apenet_rd64(sl->d, ts_off);
	if (apenet_dev_command(sl->d, APENET_CMD_REALIGN, sl->link, sl->timeout_ms, e))
		return -1;
	int64_t end = apenet_clock_mono_ms() + sl->timeout_ms + 1000;
	for (;;) {
		int up = wait_up(sl, (int)(end - apenet_clock_mono_ms() > 0 ? end - apenet_clock_mono_ms() : 0), e);
		if (up < 0)
			return -1;
		if (up && apenet_rd64(sl->d, ts_off) != up0)
			return 0;
		if (apenet_clock_mono_ms() >= end)
			return apenet_err_set(e, APENET_ELINK, "%s: link %s not up again after REALIGN", sl->d->bdf,
					      sl->d->prof->links[sl->link].name);
		nap_ms(2);
	}
}

/* Every lane under test to want[lane] on both ends, and the link realigned
 * with it: a link that drops meanwhile (the setting it had was a bad
 * point) is waited for and written again, until the revert time has
 * passed ten times over. */
static int put(struct apenet_sweep_link *sl, const uint8_t (*want)[APENET_SWEEP_NPARAM], struct apenet_err *e)
{
	int64_t end = apenet_clock_mono_ms() + (int64_t)APENET_RMT_PMA_REVERT_MS * 10 + sl->timeout_ms;
	uint8_t done[APENET_MAX_LANES][APENET_SWEEP_NPARAM] = { { 0 } };
	for (;;) {
		/* this end's first, before waiting for the link: it is always
		 * reachable, and a receiver left at a point the link cannot
		 * align at (the last one a sweep tried) keeps it down until it
		 * is written back */
		for (unsigned k = 0; k < sl->nlanes; k++)
			if (mask_of(sl) & (1u << k))
				for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
					if (!remote(sl, p))
						apenet_wr32(sl->d, apenet_lane_off(sl->link, k, reg_of[p]), want[k][p]);
		int up = wait_up(sl, (int)(end - apenet_clock_mono_ms() > 0 ? end - apenet_clock_mono_ms() : 0), e);
		if (up < 0)
			return -1;
		int dropped = !up;
		for (unsigned k = 0; up && k < sl->nlanes && !dropped; k++) {
			if (!(mask_of(sl) & (1u << k)))
				continue;
			/* what went through stays written (a flapping link gives
			 * a write or two each time it is up): the rest next time */
			for (unsigned p = 0; p < APENET_SWEEP_NPARAM && !dropped; p++) {
				if (done[k][p] || !remote(sl, p))
					continue;
				if (apenet_remote_write(sl->d, sl->link, sl->far_off[k][p], want[k][p], sl->timeout_ms, e)) {
					if (e->code != APENET_ELINK)
						return -1;
					dropped = 1;
				} else {
					done[k][p] = 1;
				}
			}
		}
		if (!dropped) {
			if (!realign(sl, e))
				return 0;
			if (e->code != APENET_ELINK)
				return -1;
		}
		if (apenet_clock_mono_ms() >= end)
			return apenet_err_set(e, APENET_ELINK,
					      "%s: link %s kept going down while its settings were written (%u ms)",
					      sl->d->bdf, sl->d->prof->links[sl->link].name,
					      APENET_RMT_PMA_REVERT_MS * 10 + sl->timeout_ms);
	}
}

int apenet_sweep_link_set(struct apenet_sweep_link *sl, const uint8_t v[APENET_SWEEP_NPARAM], struct apenet_err *e)
{
	uint8_t want[APENET_MAX_LANES][APENET_SWEEP_NPARAM];
	for (unsigned k = 0; k < APENET_MAX_LANES; k++)
		memcpy(want[k], v, APENET_SWEEP_NPARAM);
	sl->have_cur = 0;
	return put(sl, (const uint8_t (*)[APENET_SWEEP_NPARAM])want, e);
}

int apenet_sweep_link_restore(struct apenet_sweep_link *sl, struct apenet_err *e)
{
	sl->have_cur = 0;
	return put(sl, (const uint8_t (*)[APENET_SWEEP_NPARAM])sl->orig, e);
}

double apenet_sweep_link_estimate_s(const struct apenet_sweep_link *sl, const struct apenet_sweep_plan *plan,
				    double *test_s)
{
	unsigned n = (unsigned)__builtin_popcount(mask_of(sl));
	double bps = sl->lane_mbps * 1e6 * (sl->accel ? sl->accel : 1);
	double t = (double)plan->bits / (n ? n : 1) / (bps > 0 ? bps : 1);
	if (test_s)
		*test_s = t;
	return t + (double)plan->measurements * APENET_SWEEP_RUN_OVERHEAD_S;
}
