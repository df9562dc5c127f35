/* The BER test engine (include/apenet/bertest.h). */
#include <math.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/bertest.h"
#include "apenet/remote.h"


double apenet_bertest_elapsed(const struct apenet_bertest *t)
{
	return (double)(apenet_clock_mono_ms() - t->t0_ms) / 1000.0;
}

static const char *lname(const struct apenet_bertest *t)
{
	return t->d->prof->links[t->o.link].name;
}

/* This end's lane register. */
static uint32_t near_off(const struct apenet_bertest *t, unsigned lane, unsigned reg)
{
	return apenet_lane_off(t->o.link, lane, reg);
}

static int far_write(struct apenet_bertest *t, unsigned lane, unsigned reg, uint32_t v, struct apenet_err *e)
{
	uint32_t off;
	if (apenet_remote_lane_off(t->d, t->o.link, lane, reg, &off, e))
		return -1;
	return apenet_remote_write(t->d, t->o.link, off, v, t->o.timeout_ms, e);
}

static int far_read(struct apenet_bertest *t, unsigned lane, unsigned reg, uint64_t *v, struct apenet_err *e)
{
	uint32_t off;
	if (apenet_remote_lane_off(t->d, t->o.link, lane, reg, &off, e))
		return -1;
	return apenet_remote_read(t->d, t->o.link, off, v, t->o.timeout_ms, e);
}

static uint32_t lanes_of(const struct apenet_bertest *t)
{
	uint32_t all = (1u << t->d->prof->links[t->o.link].lanes) - 1;
	return t->o.lanes ? t->o.lanes : all;
}

/* A run: the far end's lanes in one write (FOLLOW on: the window goes
 * blind once one far lane runs PRBS), then this end's in one write. */
static int run_begin(struct apenet_bertest *t, struct apenet_err *e)
{
	uint32_t lanes = lanes_of(t);
	uint32_t ctrl = APENET_SET(LANE_PRBS_CTRL, PATTERN, (uint32_t)t->o.pattern) |
			APENET_SET(LANE_PRBS_CTRL, ENABLE, 1) | APENET_SET(LANE_PRBS_CTRL, LANES, lanes);
	unsigned first = (unsigned)__builtin_ctz(lanes);
	if (far_write(t, first, APENET_LANE_PRBS_CTRL, ctrl | APENET_SET(LANE_PRBS_CTRL, FOLLOW, 1), e))
		return -1;
	t->far_on = 1;
	apenet_wr32(t->d, near_off(t, first, APENET_LANE_PRBS_CTRL), ctrl);
	t->near_on = 1;
	/* the checkers' time to lock, on both clocks (an emulated card pauses
	 * with its process: apenet_deadline in apenet/dev.h) */
	apenet_deadline_start(t->d, (int)(APENET_BERTEST_LOCK_S * 1000), &t->lock_dl);
	t->verdict = APENET_BER_CONTINUE;
	return 0;
}

int apenet_bertest_start(struct apenet_dev *d, const struct apenet_bertest_opts *o, struct apenet_bertest *t,
			 struct apenet_err *e)
{
	memset(t, 0, sizeof(*t));
	t->d = d;
	t->o = *o;
	if (!t->o.timeout_ms)
		t->o.timeout_ms = 1000;
	if (o->link >= d->prof->nlinks)
		return apenet_err_set(e, APENET_EINVAL, "%s: no link %u", d->bdf, o->link);
	unsigned nl = d->prof->links[o->link].lanes;
	uint32_t all = (1u << nl) - 1;
	if (o->lanes & ~all)
		return apenet_err_set(e, APENET_EINVAL, "%s: link %s has lanes 0..%u", d->bdf, lname(t), nl - 1);
	if (apenet_ber_sched_init(&t->sched, o->target, o->cl, NULL, e))
		return -1;
	uint32_t caps = apenet_rd32(d, APENET_REG_ID_CAPS);
	if (caps == APENET_ALL_ONES && apenet_dev_check(d, e))
		return -1;
	if (!APENET_GET(ID_CAPS, PRBS, caps))
		return apenet_err_set(e, APENET_ENOTSUP, "%s: the card has no PRBS generators (ID_CAPS.PRBS 0)", d->bdf);
	if (!APENET_GET(ID_CAPS, RMT, caps))
		return apenet_err_set(e, APENET_ENOTSUP,
				      "%s: the card cannot reach the far end of %s (no remote-register window, ID_CAPS.RMT 0): "
				      "its generator must run for this end's checker to count",
				      d->bdf, lname(t));
	uint32_t st = apenet_rd32(d, apenet_link_off(o->link, APENET_LINK_STATE));
	unsigned state = APENET_GET(LINK_STATE, STATE, st);
	if (state != APENET_LINK_UP && state != APENET_LINK_DEGRADED)
		return apenet_err_set(e, APENET_ELINK, "%s: link %s is %s (LINK_STATE 0x%08x): nothing to test across",
				      d->bdf, lname(t), apenet_link_state_name(state), st);
	uint32_t lanes = lanes_of(t);
	for (unsigned k = 0; k < nl; k++) {
		if (!(lanes & (1u << k)))
			continue;
		if (APENET_GET(LANE_PRBS_CTRL, ENABLE, apenet_rd32(d, near_off(t, k, APENET_LANE_PRBS_CTRL))))
			return apenet_err_set(e, APENET_EBUSY, "%s: %s lane %u already runs PRBS (another test?)", d->bdf,
					      lname(t), k);
		for (int dir = 0; dir <= (o->both_ends ? 1 : 0); dir++) {
			struct apenet_bertest_lane *l = &t->l[t->n++];
			l->lane = k;
			l->dir = (enum apenet_bertest_dir)dir;
			l->verdict = APENET_BER_CONTINUE;
			if (dir == APENET_BERTEST_FAR_TO_NEAR)
				l->start_ts0 = apenet_rd64(d, near_off(t, k, APENET_LANE_PRBS_START_TS));
		}
	}
	t->accel = apenet_rd32(d, APENET_REG_BER_ACCEL);
	if (!t->accel || t->accel == APENET_ALL_ONES)
		t->accel = 1;
	t->lane_bps = (double)apenet_rd32(d, apenet_link_off(o->link, APENET_LINK_LANE_MBPS)) * 1e6 * t->accel;
	/* the far end: its guards lane by lane while the link still carries
	 * the window's packets; this end: the same guard (a tool killed with
	 * -9 leaves nothing running for long) */
	for (unsigned k = 0; k < nl && !o->far_guard_set; k++)
		if ((lanes & (1u << k)) && far_write(t, k, APENET_LANE_PRBS_RUN_MS, o->guard_ms, e))
			return -1;
	for (unsigned k = 0; k < nl; k++)
		if (lanes & (1u << k))
			apenet_wr32(d, near_off(t, k, APENET_LANE_PRBS_RUN_MS), o->guard_ms);
	t->t0_ms = apenet_clock_mono_ms();
	return run_begin(t, e);
}

/* One lane-direction's counters and status. */
static int read_lane(struct apenet_bertest *t, struct apenet_bertest_lane *l, struct apenet_err *e)
{
	uint64_t st, bits, errs;
	if (l->dir == APENET_BERTEST_FAR_TO_NEAR) {
		/* until the firmware started this run, the counters are the last
		 * run's: nothing to judge yet */
		if (!l->started) {
			uint64_t ts = apenet_rd64(t->d, near_off(t, l->lane, APENET_LANE_PRBS_START_TS));
			if (ts == l->start_ts0)
				return 0;
			l->started = 1;
		}
		st = apenet_rd32(t->d, near_off(t, l->lane, APENET_LANE_PRBS_STATUS));
		bits = apenet_rd64(t->d, near_off(t, l->lane, APENET_LANE_PRBS_BITS));
		errs = apenet_rd64(t->d, near_off(t, l->lane, APENET_LANE_PRBS_ERRS));
		if ((st == APENET_ALL_ONES || bits == UINT64_MAX) && apenet_dev_check(t->d, e))
			return -1;
	} else if ((l->started = 1, far_read(t, l->lane, APENET_LANE_PRBS_STATUS, &st, e)) ||
		   far_read(t, l->lane, APENET_LANE_PRBS_BITS, &bits, e) ||
		   far_read(t, l->lane, APENET_LANE_PRBS_ERRS, &errs, e)) {
		return -1;
	}
	if (errs > bits)
		return apenet_err_set(e, APENET_EIO, "%s: %s lane %u: %llu errors in %llu bits (LANE_PRBS_ERRS > BITS)",
				      t->d->bdf, lname(t), l->lane, (unsigned long long)errs, (unsigned long long)bits);
	l->locked = (int)APENET_GET(LANE_PRBS_STATUS, LOCKED, (uint32_t)st);
	l->run_bits = bits;
	/* a lane judged in an earlier run keeps its counts and its verdict */
	if (t->runs && l->dir == APENET_BERTEST_FAR_TO_NEAR && l->verdict != APENET_BER_CONTINUE)
		return 0;
	l->bits = l->acc_bits + bits;
	l->errors = l->acc_errors + errs;
	return 0;
}

/* With both ends, the far checkers are judged once, at the length the run
 * had (they are read after it).  A good lane (1e-15) passes this end's
 * sequential test at ~3e12 bits a lane, where a single far error leaves the
 * far lane's bound above the target ("inconclusive": a few runs in a
 * hundred, and qualify then swept a good cable).  So the run goes on until
 * every lane has checked the bits a test fixed in advance needs to pass
 * with one error (apenet_ber_min_bits(1, ...): 4.7e12 at 1e-12, 95%). */
static int far_short(struct apenet_bertest *t)
{
	if (!t->o.both_ends || t->o.bits)
		return 0;
	double need = t->runs ? t->far_need : apenet_ber_min_bits(1, t->o.target, t->o.cl);
	if (!(need > 0))
		return 0;
	for (unsigned i = 0; i < t->n; i++) {
		const struct apenet_bertest_lane *l = &t->l[i];
		if (l->dir == APENET_BERTEST_FAR_TO_NEAR && !l->no_lock && (double)l->run_bits < need)
			return 1;
	}
	return 0;
}

int apenet_bertest_poll(struct apenet_bertest *t, struct apenet_err *e)
{
	int open = 0;
	double el = apenet_bertest_elapsed(t);
	for (unsigned i = 0; i < t->n; i++) {
		struct apenet_bertest_lane *l = &t->l[i];
		if (l->dir == APENET_BERTEST_NEAR_TO_FAR)
			continue; /* the far checkers: read once both ends stopped */
		if (read_lane(t, l, e))
			return -1;
		if (l->started && !l->locked && !l->bits && l->verdict == APENET_BER_CONTINUE &&
		    apenet_deadline_passed(t->d, &t->lock_dl)) {
			/* no pattern recognised at all: a dead lane, or one so bad
			 * that nothing can be counted */
			l->verdict = APENET_BER_FAIL;
			l->no_lock = 1;
			continue;
		}
		if (!l->started || (!l->locked && l->verdict == APENET_BER_CONTINUE)) {
			open++; /* this run's counters, from a locked checker, or nothing */
			continue;
		}
		if (apenet_ber_decide(&t->sched, l->errors, l->bits, &l->dec, e))
			return -1;
		if (l->verdict != APENET_BER_CONTINUE)
			continue; /* a verdict is final: the guarantees are for the first */
		if (t->o.bits) {
			/* fixed in advance: judged once, at the length */
			if (l->bits >= t->o.bits)
				l->verdict = l->dec.est.upper <= t->o.target  ? APENET_BER_PASS
					     : l->dec.est.lower > t->o.target ? APENET_BER_FAIL
									       : APENET_BER_CONTINUE;
			if (l->bits >= t->o.bits && l->verdict == APENET_BER_CONTINUE)
				t->inconclusive = 1;
		} else {
			l->verdict = l->dec.verdict;
		}
		if (l->verdict == APENET_BER_CONTINUE && !(t->o.bits && l->bits >= t->o.bits))
			open++;
	}
	enum apenet_ber_verdict v[APENET_BERTEST_MAXLANES];
	unsigned nv = 0;
	for (unsigned i = 0; i < t->n; i++)
		if (t->l[i].dir == APENET_BERTEST_FAR_TO_NEAR)
			v[nv++] = t->l[i].verdict;
	t->verdict = apenet_ber_combine(v, nv);
	if (t->verdict != APENET_BER_FAIL && !open && far_short(t))
		open = 1;
	if (!open || t->verdict == APENET_BER_FAIL)
		return 1;
	if (t->o.max_s > 0 && el >= t->o.max_s) {
		t->inconclusive = 1;
		return 1;
	}
	return 0;
}

/* The far checkers, once the far end followed this one back to traffic:
 * the window answers again (it refuses with LINK_PRBS until then). */
static int read_far(struct apenet_bertest *t, struct apenet_err *e)
{
	struct apenet_deadline dl;
	apenet_deadline_start(t->d, 2000 + (int)APENET_PRBS_FOLLOW_MS, &dl);
	for (unsigned i = 0; i < t->n; i++) {
		struct apenet_bertest_lane *l = &t->l[i];
		if (l->dir != APENET_BERTEST_NEAR_TO_FAR || l->verdict != APENET_BER_CONTINUE)
			continue; /* (a verdict of an earlier run is final) */
		for (;;) {
			struct apenet_err re = { 0 };
			if (!read_lane(t, l, &re))
				break;
			if (re.code != APENET_ELINK || apenet_deadline_passed(t->d, &dl)) {
				*e = re;
				return -1;
			}
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
		if (apenet_ber_decide(&t->sched, l->errors, l->bits, &l->dec, e))
			return -1;
		if (t->o.bits) {
			/* fixed in advance: one look, at the length the run had */
			l->verdict = l->dec.est.upper <= t->o.target  ? APENET_BER_PASS
				     : l->dec.est.lower > t->o.target ? APENET_BER_FAIL
								       : APENET_BER_CONTINUE;
		} else {
			/* the sequential schedule, a look at the end of each run:
			 * its looks are the error counts, so a look after many
			 * errors loses nothing, and another run may follow
			 * (apenet_bertest_again) */
			l->verdict = l->dec.verdict;
		}
		if (l->verdict == APENET_BER_CONTINUE)
			t->inconclusive = 1;
	}
	enum apenet_ber_verdict v[APENET_BERTEST_MAXLANES];
	for (unsigned i = 0; i < t->n; i++)
		v[i] = t->l[i].verdict;
	t->verdict = apenet_ber_combine(v, t->n);
	return 0;
}

/* The far end back in traffic: the window answers again once it followed
 * this end (it refuses with LINK_PRBS until then). */
static int far_back(struct apenet_bertest *t, struct apenet_err *e)
{
	struct apenet_deadline dl;
	apenet_deadline_start(t->d, 2000 + (int)APENET_PRBS_FOLLOW_MS, &dl);
	unsigned first = (unsigned)__builtin_ctz(lanes_of(t));
	for (;;) {
		uint64_t st;
		struct apenet_err re = { 0 };
		if (!far_read(t, first, APENET_LANE_PRBS_STATUS, &st, &re))
			return 0;
		if (re.code != APENET_ELINK || apenet_deadline_passed(t->d, &dl))
			return apenet_err_set(e, re.code,
					      "%s; the far end of %s is still in PRBS and goes back to traffic by itself "
					      "within %u s (its PRBS_RUN_MS)",
					      re.msg, lname(t), (t->o.guard_ms + 999) / 1000);
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
	}
}

/* A checker of this end locked in this run (PRBS_START_TS moved, LOCKED). */
static int near_locked(struct apenet_bertest *t)
{
	for (unsigned i = 0; i < t->n; i++) {
		const struct apenet_bertest_lane *l = &t->l[i];
		if (l->dir != APENET_BERTEST_FAR_TO_NEAR)
			continue;
		uint64_t ts = apenet_rd64(t->d, near_off(t, l->lane, APENET_LANE_PRBS_START_TS));
		uint32_t st = apenet_rd32(t->d, near_off(t, l->lane, APENET_LANE_PRBS_STATUS));
		if (ts != l->start_ts0 && st != APENET_ALL_ONES && APENET_GET(LANE_PRBS_STATUS, LOCKED, st))
			return 1;
	}
	return 0;
}

int apenet_bertest_stop(struct apenet_bertest *t, struct apenet_err *e)
{
	uint32_t lanes = lanes_of(t);
	if (t->near_on && t->far_on) {
		/* The far end notices that this one stopped only once its
		 * checkers locked (FOLLOW): a stop right after the start (Ctrl-C,
		 * a sweep's hopeless point) would leave it in PRBS until its
		 * guard.  Its checkers see this end's pattern from about when
		 * this end's see its own: wait for one of ours to lock (the
		 * lock-or-fail time at most), then one FOLLOW time more. */
		while (!near_locked(t) && !apenet_deadline_passed(t->d, &t->lock_dl)) {
			struct timespec ts = { 0, 2000000 };
			nanosleep(&ts, NULL);
		}
		struct timespec ts = { 0, (long)APENET_PRBS_FOLLOW_MS * 1000000L };
		nanosleep(&ts, NULL);
	}
	if (t->near_on) {
		/* every lane in one write: ENABLE 0 */
		apenet_wr32(t->d, near_off(t, (unsigned)__builtin_ctz(lanes), APENET_LANE_PRBS_CTRL),
			    APENET_SET(LANE_PRBS_CTRL, LANES, lanes));
		t->near_on = 0;
	}
	if (t->far_on) {
		t->far_on = 0; /* it follows (FOLLOW), or its guard ends it */
		if (far_back(t, e))
			return -1;
		if (t->o.both_ends)
			return read_far(t, e);
	}
	return 0;
}

double apenet_bertest_more_bits(const struct apenet_bertest *t)
{
	double more = 0;
	for (unsigned i = 0; i < t->n; i++) {
		const struct apenet_bertest_lane *l = &t->l[i];
		if (l->verdict != APENET_BER_CONTINUE)
			continue;
		double need = !t->o.bits ? l->dec.pass_bits : apenet_ber_min_bits(l->errors, t->o.target, t->o.cl);
		if (!(need >= 0)) /* NaN: no claim can be made */
			return INFINITY;
		/* both ends: the run goes on until the far lanes, judged once,
		 * could pass with one error (far_short) */
		if (t->o.both_ends && !t->o.bits)
			need = fmax(need, apenet_ber_min_bits(1, t->o.target, t->o.cl));
		double m = need - (double)l->bits;
		if (m > more)
			more = m;
	}
	return more;
}

int apenet_bertest_far_open(const struct apenet_bertest *t)
{
	if (!t->o.both_ends || t->o.bits || t->verdict == APENET_BER_FAIL || t->near_on || t->far_on)
		return 0;
	if (t->o.max_s > 0 && apenet_bertest_elapsed(t) >= t->o.max_s)
		return 0;
	int open = 0;
	for (unsigned i = 0; i < t->n; i++) {
		const struct apenet_bertest_lane *l = &t->l[i];
		if (l->verdict != APENET_BER_CONTINUE)
			continue;
		if (l->dir == APENET_BERTEST_FAR_TO_NEAR)
			return 0; /* this end's lane undecided: the run ended on max_s */
		if (!isfinite(apenet_ber_pass_bits(&t->sched, l->errors)))
			return 0; /* no length passes it with these errors */
		open = 1;
	}
	return open;
}

int apenet_bertest_again(struct apenet_bertest *t, struct apenet_err *e)
{
	if (!apenet_bertest_far_open(t))
		return apenet_err_set(e, APENET_EINVAL, "%s: %s: no far lane left to test", t->d->bdf, lname(t));
	double need = 0;
	for (unsigned i = 0; i < t->n; i++) {
		struct apenet_bertest_lane *l = &t->l[i];
		if (l->dir == APENET_BERTEST_FAR_TO_NEAR) {
			/* this run's counters are told from the last one's by
			 * PRBS_START_TS, as at the start */
			l->started = 0;
			l->run_bits = 0;
			l->start_ts0 = apenet_rd64(t->d, near_off(t, l->lane, APENET_LANE_PRBS_START_TS));
			continue;
		}
		if (l->verdict != APENET_BER_CONTINUE)
			continue;
		l->acc_bits = l->bits;
		l->acc_errors = l->errors;
		/* as long as its PASS point for the errors it has */
		double more = apenet_ber_pass_bits(&t->sched, l->errors) - (double)l->bits;
		if (more > need)
			need = more;
	}
	uint32_t st = apenet_rd32(t->d, apenet_link_off(t->o.link, APENET_LINK_STATE));
	unsigned state = APENET_GET(LINK_STATE, STATE, st);
	if (state != APENET_LINK_UP && state != APENET_LINK_DEGRADED)
		return apenet_err_set(e, APENET_ELINK, "%s: link %s is %s (LINK_STATE 0x%08x) after run %u",
				      t->d->bdf, lname(t), apenet_link_state_name(state), st, t->runs + 1);
	t->far_need = need;
	t->runs++;
	t->inconclusive = 0;
	return run_begin(t, e);
}
