/* Read a consistent snapshot of a board's registers (seqlock on GEN). */
#include <sched.h>
#include <string.h>

#include "apenet/snapshot.h"

#define SNAP_TRIES 50

static void read_block(struct apenet_dev *d, enum apenet_block b, uint32_t base, uint64_t *v)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	for (unsigned i = 0; i < n; i++)
		v[i] = r[i].bits == 64 ? apenet_rd64(d, base + r[i].off) : apenet_rd32(d, base + r[i].off);
}

static void read_all(struct apenet_dev *d, struct apenet_snapshot *s, void *arg)
{
	(void)arg;
	read_block(d, APENET_BLK_GLOBAL, 0, s->g.v);
	for (unsigned l = 0; l < s->nlinks; l++) {
		read_block(d, APENET_BLK_LINK, apenet_link_off(l, 0), s->link[l].v);
		for (unsigned k = 0; k < d->prof->links[l].lanes; k++)
			read_block(d, APENET_BLK_LANE, apenet_lane_off(l, k, 0), s->link[l].lane[k].v);
	}
}

void apenet_snapshot_all_fresh(struct apenet_snapshot *s)
{
	s->ts_second = s->ts_minute = s->g.TIMESTAMP;
	for (unsigned l = 0; l < s->nlinks; l++)
		s->link[l].ts_second = s->link[l].ts_minute = s->g.TIMESTAMP;
}

int apenet_snapshot_read(struct apenet_dev *d, struct apenet_snapshot *s, struct apenet_err *e)
{
	memset(s, 0, sizeof(*s));
	s->prof = d->prof;
	s->nlinks = d->prof->nlinks;
	if (apenet_snapshot_read_fn(d, s, read_all, NULL, e))
		return -1;
	apenet_snapshot_all_fresh(s);
	return 0;
}

int apenet_snapshot_read_fn(struct apenet_dev *d, struct apenet_snapshot *s, apenet_snapshot_fn fn, void *arg,
			    struct apenet_err *e)
{
	uint64_t before = d->nreads;
	s->retries = 0;
	for (unsigned t = 0; t < SNAP_TRIES; t++) {
		uint32_t g0 = apenet_rd32(d, APENET_REG_GEN);
		if (g0 == APENET_ALL_ONES) {
			if (apenet_dev_check(d, e))
				return -1;
		}
		if (g0 & 1) {
			s->retries++;
			sched_yield();
			continue;
		}
		fn(d, s, arg);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		uint32_t g1 = apenet_rd32(d, APENET_REG_GEN);
		if (g1 == APENET_ALL_ONES || s->g.ID_MAGIC != APENET_MAGIC) {
			if (apenet_dev_check(d, e))
				return -1;
		} else if (g1 == g0) {
			s->reads = d->nreads - before;
			return 0;
		}
		s->retries++;
	}
	s->reads = d->nreads - before;
	return apenet_err_set(e, APENET_EBUSY, "%s: no consistent snapshot in %d tries (GEN keeps moving)",
			      d->bdf, SNAP_TRIES);
}

double apenet_ticks_to_s(const struct apenet_snapshot *s, uint64_t ticks)
{
	return s->g.TS_FREQ_HZ ? (double)ticks / (double)s->g.TS_FREQ_HZ : 0.0;
}
