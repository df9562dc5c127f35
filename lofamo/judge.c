/*
 * The judging session (apenet/judge.h): pairs, the baseline ring, the latch
 * and the rule table in one object, so that every tool that judges a stream
 * of samples says the same thing about it.  Moved here from the agent's
 * period, where the rate and ownership lists used to live.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/judge.h"
#include "apenet/snapfile.h"

/*
 * The rule table: what the session does with a code beyond "judge it on the
 * short pair and hold it by count".  Codes not listed are states.
 *   RATE: the rule needs events to prove a rate (or counts over a window):
 *         100 ms of counts prove no rate, baseline_s of them do.
 *   OWNED: the agent reports it through another path with its own timing
 *         (the DNP's beat and this host's expiry: the watchdog state
 *         machine; a neighbour's word: the neighbour tracker, on the
 *         neighbour's behalf), so its transitions leave it out.
 *   LEVEL: a sensor: held until the value is back past its clear margin
 *         (the rule reads what is held), then by count.
 *   SECOND: the rule reads registers of a link's second tier (lanes, FIFO
 *         levels: apenet/tiers.h), which a tiered sample reads once a
 *         second: between two reads it has nothing new to say.
 */
static const struct apenet_judge_rule judge_rules[] = {
	{ "LINK_CRC", APENET_RULE_RATE, NULL },
	{ "LINK_PAYLOAD", APENET_RULE_RATE, NULL },
	{ "LANE_CODE_ERRORS", APENET_RULE_RATE | APENET_RULE_SECOND, NULL },
	{ "LANE_ALIGN_RESTARTS", APENET_RULE_RATE | APENET_RULE_SECOND, NULL },
	{ "LINK_FLAPPING", APENET_RULE_RATE, NULL },
	{ "FIFO_HIGH", APENET_RULE_RATE | APENET_RULE_SECOND, NULL },
	{ "DNP_HUNG", APENET_RULE_OWNED, "watchdog" },
	{ "HOST_EXPIRED", APENET_RULE_OWNED, "watchdog" },
	{ "NEIGHBOUR_HOST_EXPIRED", APENET_RULE_OWNED, "neighbour" },
	{ "NEIGHBOUR_SICK", APENET_RULE_OWNED, "neighbour" },
	{ "LDM_STALE", APENET_RULE_OWNED, "neighbour" },
	{ "LDM_INVALID", APENET_RULE_OWNED, "neighbour" },
	{ "FPGA_TEMP", APENET_RULE_LEVEL, NULL },
	{ "BOARD_TEMP", APENET_RULE_LEVEL, NULL },
	{ "VCORE_LOW", APENET_RULE_LEVEL, NULL },
};

const struct apenet_judge_rule *apenet_judge_rule(const char *code)
{
	for (size_t i = 0; i < sizeof(judge_rules) / sizeof(judge_rules[0]); i++)
		if (!strcmp(judge_rules[i].code, code))
			return &judge_rules[i];
	return NULL;
}

unsigned apenet_judge_flags(const char *code)
{
	const struct apenet_judge_rule *r = apenet_judge_rule(code);
	return r ? r->flags : 0;
}

static unsigned clear_count(const struct apenet_config *cfg)
{
	return cfg->thr.clear_after_samples >= 1 ? (unsigned)cfg->thr.clear_after_samples : 1;
}

static int ring_alloc(struct apenet_judge *j, struct apenet_err *e)
{
	size_t cap = (size_t)ceil(j->cfg->agent.baseline_s) + 2;
	struct apenet_sample *b = calloc(cap, sizeof(*b));
	if (!b)
		return apenet_err_set(e, APENET_EIO, "out of memory for %zu baseline samples", cap);
	free(j->base);
	j->base = b;
	j->base_cap = cap;
	j->base_n = j->base_0 = 0;
	j->base_s = j->cfg->agent.baseline_s;
	j->long_next_ms = 0;
	return 0;
}

int apenet_judge_init(struct apenet_judge *j, const struct apenet_config *cfg, struct apenet_err *e)
{
	memset(j, 0, sizeof(*j));
	j->cfg = cfg;
	j->slot[0] = calloc(1, sizeof(*j->slot[0]));
	j->slot[1] = calloc(1, sizeof(*j->slot[1]));
	j->vshort = calloc(1, sizeof(*j->vshort));
	j->vlong = calloc(1, sizeof(*j->vlong));
	apenet_latch_init(&j->latch, 1, clear_count(cfg));
	apenet_findings_init(&j->now);
	apenet_findings_init(&j->longf);
	apenet_findings_init(&j->held);
	apenet_findings_init(&j->shortf);
	if (!j->slot[0] || !j->slot[1] || !j->vshort || !j->vlong) {
		apenet_judge_free(j);
		return apenet_err_set(e, APENET_EIO, "out of memory for the judge");
	}
	if (ring_alloc(j, e)) {
		apenet_judge_free(j);
		return -1;
	}
	return 0;
}

void apenet_judge_free(struct apenet_judge *j)
{
	free(j->slot[0]);
	free(j->slot[1]);
	free(j->vshort);
	free(j->vlong);
	free(j->base);
	apenet_latch_free(&j->latch);
	apenet_findings_free(&j->now);
	apenet_findings_free(&j->longf);
	apenet_findings_free(&j->held);
	apenet_findings_free(&j->shortf);
	memset(j, 0, sizeof(*j));
}

int apenet_judge_reconfigure(struct apenet_judge *j, struct apenet_err *e)
{
	j->latch.clear_after = clear_count(j->cfg);
	/* the baselines are kept one a second: a longer window starts over */
	if (j->cfg->agent.baseline_s != j->base_s)
		return ring_alloc(j, e);
	return 0;
}

struct apenet_sample *apenet_judge_slot(struct apenet_judge *j)
{
	return j->slot[j->cur ^ 1];
}

const struct apenet_sample *apenet_judge_last(const struct apenet_judge *j)
{
	return j->fed ? j->slot[j->cur] : NULL;
}

void apenet_judge_rebase(struct apenet_judge *j)
{
	j->base_n = j->base_0 = 0;
}

/* ---- the baseline ring ---- */

static struct apenet_sample *base_at(struct apenet_judge *j, size_t i)
{
	return &j->base[(j->base_0 + i) % j->base_cap];
}

/* One sample a second goes into the baseline ring. */
static void base_push(struct apenet_judge *j, const struct apenet_sample *s)
{
	if (j->base_n && s->host_ms - base_at(j, j->base_n - 1)->host_ms < 1000)
		return;
	if (j->base_n == j->base_cap) {
		j->base_0 = (j->base_0 + 1) % j->base_cap;
		j->base_n--;
	}
	struct apenet_sample *b = base_at(j, j->base_n++);
	*b = *s;
	b->have_modules = 0; /* the ring needs registers, not module pages */
}

/* The baseline for rates: the newest sample at least baseline_s old, else
 * the oldest there is; NULL when that is no older than prev. */
static const struct apenet_sample *baseline(struct apenet_judge *j, const struct apenet_sample *prev,
					    const struct apenet_sample *cur)
{
	if (j->cfg->agent.baseline_s <= 0 || !j->base_n)
		return NULL;
	int64_t want = cur->host_ms - (int64_t)(j->cfg->agent.baseline_s * 1000);
	const struct apenet_sample *b = base_at(j, 0);
	for (size_t i = 0; i < j->base_n; i++)
		if (base_at(j, i)->host_ms <= want)
			b = base_at(j, i);
	if (b->snap.g.TIMESTAMP >= prev->snap.g.TIMESTAMP || b->snap.g.TIMESTAMP > cur->snap.g.TIMESTAMP)
		return NULL;
	return b;
}

/* ---- judging ---- */

static int same_key(const struct apenet_finding *x, const struct apenet_finding *y)
{
	return x->subject == y->subject && x->link == y->link && x->lane == y->lane && !strcmp(x->code, y->code) &&
	       !strcmp(x->where, y->where);
}

/* The baseline pair's rate findings, judged again once a second: the pair
 * spans baseline_s (60 s), so a period more or less moves its rates by a
 * sixtieth, and judging it every period doubled the agent's cost (bench_agent).
 * A clear of the counters drops them at once (no baseline across it). */
static void judge_long(struct apenet_judge *j, const struct apenet_sample *b, const struct apenet_sample *cur)
{
	if (!b) {
		j->long_dt = 0;
		j->long_next_ms = 0;
		apenet_findings_clear(&j->longf);
		return;
	}
	if (j->long_next_ms && cur->host_ms < j->long_next_ms)
		return;
	j->long_next_ms = cur->host_ms + 1000;
	apenet_view_pair(j->vlong, b, cur);
	j->long_dt = apenet_view_dt(j->vlong);
	apenet_findings_clear(&j->longf);
	apenet_rules_pair(j->vlong, j->cfg, &j->held, &j->longf);
	size_t keep = 0;
	for (size_t i = 0; i < j->longf.n; i++)
		if (apenet_judge_flags(j->longf.f[i].code) & APENET_RULE_RATE)
			j->longf.f[keep++] = j->longf.f[i];
	j->longf.n = keep;
}

/* The SECOND rules of each link whose second tier the pair (a, b) did not
 * read again: what they said at the last sample, not "nothing" (their
 * counters did not move because nobody read them). */
static void carry_second(struct apenet_judge *j, const struct apenet_sample *a, const struct apenet_sample *b)
{
	if (a == b)
		return;
	unsigned stale = 0;
	for (unsigned l = 0; l < b->snap.nlinks && l < APENET_MAX_LINKS; l++)
		if (apenet_snap_ts_second(&a->snap, l) == apenet_snap_ts_second(&b->snap, l))
			stale |= 1u << l;
	if (!stale)
		return;
	size_t keep = 0;
	for (size_t i = 0; i < j->now.n; i++) {
		const struct apenet_finding *f = &j->now.f[i];
		if (!(f->link >= 0 && (stale >> f->link & 1u) && (apenet_judge_flags(f->code) & APENET_RULE_SECOND)))
			j->now.f[keep++] = *f;
	}
	j->now.n = keep;
	for (size_t i = 0; i < j->shortf.n; i++) {
		const struct apenet_finding *f = &j->shortf.f[i];
		if (!(f->link >= 0 && (stale >> f->link & 1u) && (apenet_judge_flags(f->code) & APENET_RULE_SECOND)))
			continue;
		/* with its link's findings, where the rules would have put it:
		 * after the last of that link's (or before the next link's) */
		size_t at = j->now.n;
		for (size_t k = 0; k < j->now.n; k++) {
			const struct apenet_finding *g = &j->now.f[k];
			if (g->subject != APENET_SUBJ_LINK && g->subject != APENET_SUBJ_LANE)
				continue;
			if (g->link == f->link)
				at = k + 1;
			else if (g->link > f->link && at == j->now.n) {
				at = k;
				break;
			}
		}
		size_t n0 = j->now.n;
		apenet_finding_add(&j->now, f->sev, f->subject, f->link, f->lane, f->where, f->code);
		if (j->now.n == n0)
			continue; /* not stored (counted as lost) */
		memmove(&j->now.f[at + 1], &j->now.f[at], (j->now.n - 1 - at) * sizeof(j->now.f[0]));
		j->now.f[at] = *f;
	}
}

/* s into the slot (unless it is the slot) */
static struct apenet_sample *take(struct apenet_judge *j, const struct apenet_sample *s)
{
	struct apenet_sample *cur = apenet_judge_slot(j);
	if (s != cur)
		*cur = *s;
	return cur;
}

/* cur becomes the previous sample, and a baseline once a second */
static void advance(struct apenet_judge *j, const struct apenet_sample *cur)
{
	base_push(j, cur);
	j->cur ^= 1;
	j->have_prev = 1;
}

const struct apenet_findings *apenet_judge_feed(struct apenet_judge *j, const struct apenet_sample *s)
{
	struct apenet_sample *cur = take(j, s);
	const struct apenet_sample *prev = j->have_prev ? j->slot[j->cur] : cur;
	j->nresets = 0;
	if (j->have_prev) {
		j->nresets = apenet_counter_resets(&prev->snap, &cur->snap, j->resets, APENET_MAX_LINKS);
		if (j->nresets)
			apenet_judge_rebase(j); /* rates resume from the new base */
	}
	/* across a clear the short pair has no interval: states, no rates */
	const struct apenet_sample *a = j->nresets ? cur : prev;
	apenet_view_pair(j->vshort, a, cur);
	apenet_findings_clear(&j->now);
	apenet_rules_pair(j->vshort, j->cfg, &j->held, &j->now);
	carry_second(j, a, cur);
	apenet_findings_clear(&j->shortf);
	apenet_findings_append(&j->shortf, &j->now);
	judge_long(j, j->nresets || !j->have_prev ? NULL : baseline(j, prev, cur), cur);
	for (size_t i = 0; i < j->longf.n; i++) {
		const struct apenet_finding *f = &j->longf.f[i];
		int dup = 0;
		for (size_t k = 0; k < j->now.n && !dup; k++)
			dup = same_key(f, &j->now.f[k]);
		if (!dup)
			*apenet_finding_add(&j->now, f->sev, f->subject, f->link, f->lane, f->where, f->code) = *f;
	}
	apenet_findings_clear(&j->held);
	j->changes = apenet_latch_step(&j->latch, &j->now, &j->held);
	advance(j, cur);
	j->fed++;
	return &j->held;
}

void apenet_judge_prime(struct apenet_judge *j, const struct apenet_sample *s)
{
	advance(j, take(j, s));
}

/* ---- a recorded stream ---- */

struct replay {
	struct apenet_judge *j;
	apenet_judge_sample_fn cb;
	void *arg;
	unsigned index;
	int stopped;
};

static int replay_one(void *arg, const struct apenet_snapfile_info *info, const struct apenet_snapshot *s,
		      int64_t host_ms)
{
	struct replay *r = arg;
	struct apenet_sample *x = apenet_judge_slot(r->j);
	memset(x->bdf, 0, sizeof(x->bdf));
	snprintf(x->bdf, sizeof(x->bdf), "%s", info->bdf);
	x->snap = *s;
	x->host_ms = host_ms;
	x->pcie_ok = info->pcie_ok;
	x->pcie = info->pcie;
	snprintf(x->pcie_err, sizeof(x->pcie_err), "%s", info->pcie_err);
	/* the document keeps its modules once, the latest: every sample has them */
	x->have_modules = info->ee_status != NULL;
	if (info->ee_status) {
		memcpy(x->ee_status, info->ee_status, sizeof(x->ee_status));
		memcpy(x->ee, info->ee, sizeof(x->ee));
	}
	x->reads = 0;
	apenet_judge_feed(r->j, x);
	if (r->cb && r->cb(r->arg, r->j, r->index)) {
		r->stopped = 1;
		return 1;
	}
	r->index++;
	return 0;
}

int apenet_judge_replay(struct apenet_judge *j, const char *path, apenet_judge_sample_fn cb, void *arg,
			struct apenet_err *e)
{
	struct replay r = { j, cb, arg, 0, 0 };
	return apenet_snapfile_each(path, replay_one, &r, e);
}
