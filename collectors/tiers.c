/* Tiered register reads (include/apenet/tiers.h). */
#include <stddef.h>
#include <string.h>

#include "apenet/tiers.h"

/*
 * What a fault changes within a period, read every period.  Kept short: on
 * APEnet+ it is 8 + 8 a link = 56 reads, plus the two GEN reads of the
 * seqlock (the goal is 120 a period, with room for the slower
 * tiers' chunks).  CNT_CLEAR_TS and UPTIME_TS are here so that a clear or a
 * firmware reset is seen at once, and the slower tiers read again with it.
 */
static const char *const period_global[] = { "TIMESTAMP", "CNT_CLEAR_TS", "UPTIME_TS", "WD_DNP_HB", "WD_STATUS",
					     "WD_EXPIRE_COUNT", "LDM_OWN", "LDM_HOST" };
static const char *const period_link[] = { "LINK_STATE", "LINK_HDR_CRC_ERR", "LINK_FTR_CRC_ERR", "LINK_PAYLOAD_ERR",
					   "LINK_DOWN_EVENTS", "LINK_ALIGN_RESTARTS", "LINK_LDM_RX", "LINK_LDM_RX_TS" };
/* What is judged as a level or a rate over a second or more, read once a
 * second: sensors (their rules are levels with a clear margin), traffic and
 * FIFOs (rates over the second tier's own interval), lanes' state and
 * errors (their rates too; the link's CRC counters above say at once that
 * something is wrong, the lanes say where). */
static const char *const second_global[] = { "SENS_FPGA_TEMP", "SENS_BOARD_TEMP", "SENS_VCORE", "SENS_VXCVR",
					     "SENS_VIO", "SENS_V12", "SENS_ICORE", "SENS_I12", "SENS_VCORE_NOM",
					     "WD_HOST_HB_TS", "LDM_TX_COUNT", "RMT_SERVED" };
static const char *const second_link[] = { "LINK_FIFO_LVL0", "LINK_FIFO_LVL1", "LINK_FIFO_HWM0", "LINK_FIFO_HWM1",
					   "LINK_TX_PKTS", "LINK_TX_BYTES", "LINK_RX_PKTS", "LINK_RX_BYTES",
					   "LINK_RETRANS", "LINK_CREDITS_TX", "LINK_CREDITS_RX", "LINK_STALL_CYCLES",
					   "LINK_LDM_RX_COUNT", "LINK_UP_TS" };
static const char *const second_lane[] = { "LANE_STATE", "LANE_ALIGN_RESTARTS", "LANE_CODE_VIOL", "LANE_DISP_ERR" };
/* Everything else (identity, settings, thresholds, PMA, PRBS, the partner,
 * the command and remote mailboxes) once a minute, and at once when its
 * link changes. */

static int listed(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return 1;
	return 0;
}

#define LISTED(l, name) listed(l, sizeof(l) / sizeof(l[0]), name)

enum apenet_tier apenet_tier_of(enum apenet_block b, unsigned idx)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	if (idx >= n)
		return APENET_TIER_MINUTE;
	const char *name = r[idx].name;
	switch (b) {
	case APENET_BLK_GLOBAL:
		return LISTED(period_global, name) ? APENET_TIER_PERIOD
		       : LISTED(second_global, name) ? APENET_TIER_SECOND : APENET_TIER_MINUTE;
	case APENET_BLK_LINK:
		return LISTED(period_link, name) ? APENET_TIER_PERIOD
		       : LISTED(second_link, name) ? APENET_TIER_SECOND : APENET_TIER_MINUTE;
	case APENET_BLK_LANE:
		return LISTED(second_lane, name) ? APENET_TIER_SECOND : APENET_TIER_MINUTE;
	default:
		return APENET_TIER_MINUTE;
	}
}

const char *apenet_tier_name(enum apenet_tier t)
{
	static const char *const names[] = { "period", "second", "minute" };
	return t < APENET_NTIERS ? names[t] : "?";
}

/* ---- the plan ---- */

static void add_regs(struct apenet_tiers *t, enum apenet_block b, enum apenet_tier tier, uint32_t base,
		     const uint64_t *v0, const struct apenet_snapshot *origin)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	struct apenet_tier_chunk *c = &t->chunk[t->nchunks - 1];
	for (unsigned i = 0; i < n; i++) {
		if (apenet_tier_of(b, i) != tier)
			continue;
		struct apenet_tier_reg *x = &t->regs[c->first + c->n++];
		x->off = base + r[i].off;
		x->bits = (uint8_t)r[i].bits;
		x->pos = (uint16_t)(&v0[i] - (const uint64_t *)(const void *)origin);
	}
}

/* The minute tier's chunks are cut to this many registers, so that one
 * landing on the same period as a link's second tier (30 on APEnet+) keeps
 * that period near the others: 58 + 30 + 16 = 104 reads at most. */
#define MINUTE_CHUNK_MAX 16

static void split(struct apenet_tiers *t, unsigned max);

static void new_chunk(struct apenet_tiers *t, enum apenet_tier tier, int link, int lane)
{
	struct apenet_tier_chunk *c = &t->chunk[t->nchunks++];
	unsigned first = t->nchunks > 1 ? t->chunk[t->nchunks - 2].first + t->chunk[t->nchunks - 2].n : 0;
	*c = (struct apenet_tier_chunk){ tier, link, lane, first, 0, 0 };
}

/* Cuts the last chunk into pieces of at most max registers. */
static void split(struct apenet_tiers *t, unsigned max)
{
	struct apenet_tier_chunk c = t->chunk[t->nchunks - 1];
	unsigned first = c.first, left = c.n;
	t->nchunks--;
	while (left) {
		unsigned n = left < max ? left : max;
		/* halves rather than a full chunk and a crumb */
		if (left > max && left < 2 * max)
			n = (left + 1) / 2;
		t->chunk[t->nchunks] = c;
		t->chunk[t->nchunks].first = first;
		t->chunk[t->nchunks].n = n;
		t->nchunks++;
		first += n;
		left -= n;
	}
}

void apenet_tiers_init(struct apenet_tiers *t, const struct apenet_profile *p)
{
	/* positions are offsets into a snapshot: taken on a static one */
	static struct apenet_snapshot o;
	memset(t, 0, sizeof(*t));
	t->prof = p;
	t->interval_ms[APENET_TIER_SECOND] = 1000;
	t->interval_ms[APENET_TIER_MINUTE] = 60000;
	new_chunk(t, APENET_TIER_PERIOD, -1, -1);
	add_regs(t, APENET_BLK_GLOBAL, APENET_TIER_PERIOD, 0, o.g.v, &o);
	for (unsigned l = 0; l < p->nlinks; l++)
		add_regs(t, APENET_BLK_LINK, APENET_TIER_PERIOD, apenet_link_off(l, 0), o.link[l].v, &o);
	new_chunk(t, APENET_TIER_SECOND, -1, -1);
	add_regs(t, APENET_BLK_GLOBAL, APENET_TIER_SECOND, 0, o.g.v, &o);
	for (unsigned l = 0; l < p->nlinks; l++) {
		new_chunk(t, APENET_TIER_SECOND, (int)l, -1);
		add_regs(t, APENET_BLK_LINK, APENET_TIER_SECOND, apenet_link_off(l, 0), o.link[l].v, &o);
		for (unsigned k = 0; k < p->links[l].lanes; k++)
			add_regs(t, APENET_BLK_LANE, APENET_TIER_SECOND, apenet_lane_off(l, k, 0), o.link[l].lane[k].v, &o);
	}
	new_chunk(t, APENET_TIER_MINUTE, -1, -1);
	add_regs(t, APENET_BLK_GLOBAL, APENET_TIER_MINUTE, 0, o.g.v, &o);
	split(t, MINUTE_CHUNK_MAX);
	for (unsigned l = 0; l < p->nlinks; l++) {
		new_chunk(t, APENET_TIER_MINUTE, (int)l, -1);
		add_regs(t, APENET_BLK_LINK, APENET_TIER_MINUTE, apenet_link_off(l, 0), o.link[l].v, &o);
		/* a lane's PMA and PRBS registers are a chunk of their own: a whole
		 * link's would be 64 reads in one period */
		for (unsigned k = 0; k < p->links[l].lanes; k++) {
			new_chunk(t, APENET_TIER_MINUTE, (int)l, (int)k);
			add_regs(t, APENET_BLK_LANE, APENET_TIER_MINUTE, apenet_lane_off(l, k, 0), o.link[l].lane[k].v, &o);
		}
	}
}

unsigned apenet_tiers_count(const struct apenet_tiers *t, enum apenet_tier tier)
{
	unsigned n = 0;
	for (unsigned i = 0; i < t->nchunks; i++)
		if (t->chunk[i].tier == tier)
			n += t->chunk[i].n;
	return n;
}

/* ---- one sample ---- */

/* What the previous sample said, for the change triggers (s is overwritten
 * by the first try of the seqlock; a retry must decide the same way). */
struct tiers_read {
	struct apenet_tiers *t;
	int64_t now_ms;
	int full;
	uint64_t clear_ts, uptime_ts;
	uint64_t state[APENET_MAX_LINKS], down[APENET_MAX_LINKS], errs[APENET_MAX_LINKS];
};

static uint64_t link_errs(const struct apenet_snap_link *k)
{
	return k->LINK_HDR_CRC_ERR + k->LINK_FTR_CRC_ERR + k->LINK_PAYLOAD_ERR + k->LINK_ALIGN_RESTARTS;
}

static void read_chunk(struct apenet_dev *d, struct apenet_snapshot *s, const struct apenet_tiers *t,
		       const struct apenet_tier_chunk *c)
{
	uint64_t *v = (uint64_t *)(void *)s;
	for (unsigned i = c->first; i < c->first + c->n; i++) {
		const struct apenet_tier_reg *r = &t->regs[i];
		v[r->pos] = r->bits == 64 ? apenet_rd64(d, r->off) : apenet_rd32(d, r->off);
	}
}

static void read_tiered(struct apenet_dev *d, struct apenet_snapshot *s, void *arg)
{
	struct tiers_read *x = arg;
	struct apenet_tiers *t = x->t;
	read_chunk(d, s, t, &t->chunk[0]);
	t->read[0] = 1;
	/* a clear or a reset moves every counter: read everything with it */
	int all = x->full || s->g.CNT_CLEAR_TS != x->clear_ts || s->g.UPTIME_TS != x->uptime_ts;
	int changed[APENET_MAX_LINKS] = { 0 };
	for (unsigned l = 0; l < t->prof->nlinks; l++) {
		const struct apenet_snap_link *k = &s->link[l];
		changed[l] = all || k->LINK_STATE != x->state[l] || k->LINK_DOWN_EVENTS != x->down[l] ||
			     link_errs(k) < x->errs[l];
	}
	for (unsigned i = 1; i < t->nchunks; i++) {
		const struct apenet_tier_chunk *c = &t->chunk[i];
		t->read[i] = all || c->due_ms <= x->now_ms || (c->link >= 0 && changed[c->link]);
		if (t->read[i])
			read_chunk(d, s, t, c);
	}
}

int apenet_tiers_read(struct apenet_tiers *t, struct apenet_dev *d, struct apenet_snapshot *s, int64_t now_ms,
		      struct apenet_err *e)
{
	struct tiers_read x = { .t = t, .now_ms = now_ms };
	x.full = s->prof != t->prof || s->nlinks != t->prof->nlinks || s->g.ID_MAGIC != APENET_MAGIC;
	if (x.full) {
		memset(s, 0, sizeof(*s));
		s->prof = t->prof;
		s->nlinks = t->prof->nlinks;
	}
	x.clear_ts = s->g.CNT_CLEAR_TS;
	x.uptime_ts = s->g.UPTIME_TS;
	for (unsigned l = 0; l < s->nlinks; l++) {
		x.state[l] = s->link[l].LINK_STATE;
		x.down[l] = s->link[l].LINK_DOWN_EVENTS;
		x.errs[l] = link_errs(&s->link[l]);
	}
	if (apenet_snapshot_read_fn(d, s, read_tiered, &x, e))
		return -1;
	/* stamps and the next due times of what was read */
	unsigned nth[APENET_NTIERS] = { 0 }, count[APENET_NTIERS] = { 0 };
	for (unsigned i = 1; i < t->nchunks; i++)
		count[t->chunk[i].tier]++;
	for (unsigned i = 1; i < t->nchunks; i++) {
		struct apenet_tier_chunk *c = &t->chunk[i];
		int64_t iv = t->interval_ms[c->tier];
		unsigned k = nth[c->tier]++;
		if (!t->read[i])
			continue;
		uint64_t *ts = c->tier == APENET_TIER_SECOND ? (c->link < 0 ? &s->ts_second : &s->link[c->link].ts_second)
				 : (c->link < 0 ? &s->ts_minute : &s->link[c->link].ts_minute);
		/* a link's minute stamp is its own registers' (PARTNER, settings);
		 * its lanes' settings follow within the minute */
		if (c->lane < 0)
			*ts = s->g.TIMESTAMP;
		if (c->due_ms == 0)
			/* after the first (whole) read: spread over the interval */
			c->due_ms = now_ms + iv * (int64_t)(k + 1) / (int64_t)count[c->tier];
		else if (c->due_ms <= now_ms)
			c->due_ms = c->due_ms + iv > now_ms ? c->due_ms + iv : now_ms + iv;
	}
	return 0;
}
