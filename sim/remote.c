/*
 * The remote-register window (RMT_*; docs/design.md, "The remote-register
 * window"), the firmware's side.  Once per tick of a running DNP:
 *
 *   1. A request in flight whose answer is due (TIMESTAMP has reached the
 *      modelled round trip) finishes: RMT_STATUS gets its SEQ and result,
 *      RMT_RDATA and RMT_RTT their values.
 *   2. A new doorbell (RMT_CTRL.SEQ != RMT_STATUS.DONE_SEQ) is taken.  What
 *      the firmware can decide alone (a bad OP or LINK, no DNP at the far
 *      end, the link down or running PRBS) finishes at once, nothing sent.
 *      Otherwise the request goes out as a LOFAMO packet: the partner's
 *      firmware checks the address against its window (apenet_rmt_allowed),
 *      reads or writes its own register as its BAR holds it, counts
 *      RMT_SERVED and answers.  A partner that cannot answer (its DNP hung,
 *      or a firmware without the window, which drops the unknown request)
 *      leaves the request to time out after APENET_RMT_ANSWER_US.
 *
 * The partner acts when the request is sent, and the answer is published
 * once the round trip has passed in emulated time: a tool never sees an
 * answer dated before it could have arrived.  With 10 ms ticks that is the
 * tick after the one that took the doorbell; tests stepping time by the
 * microsecond see the round trip itself.
 */
#include <math.h>

#include "sim.h"

#define BAR32(b, off) ((b)->bar[(off) / 4])
#define BAR64(b, off) (*(volatile uint64_t *)(volatile void *)((b)->bar + (off) / 4))

/* DESIGN: the parts of a round trip besides the two link latencies. */
#define RMT_LOCAL_PS 500000.0        /* this DNP forms the packet and takes the answer apart: 0.5 us */
#define RMT_ROUTER_PS 60000.0        /* the router, each way (SPEC §1: 60 ns) */
#define RMT_SERVICE_PS 2000000.0     /* the partner's Nios II serves the LOFAMO request: 2 us, */
#define RMT_SERVICE_JITTER_PS 1000000.0 /* plus up to 1 us for whatever else it is doing */
#define PS_PER_TICK (1e12 / SIM_TS_HZ)

uint32_t sim_rmt_rtt_ticks(struct sim_torus *t, const struct sim_board *b, unsigned l)
{
	const struct sim_link *lk = &b->link[l];
	struct sim_board *pb = &t->b[lk->peer_board];
	const struct sim_link *pl = &pb->link[lk->peer_link];
	double ps = (double)lk->latency_ps + pl->latency_ps + 2 * RMT_ROUTER_PS + RMT_LOCAL_PS + RMT_SERVICE_PS +
		    RMT_SERVICE_JITTER_PS * sim_rng_uniform(&pb->rng);
	return (uint32_t)ceil(ps / PS_PER_TICK);
}

static int lanes_prbs(const struct sim_link *lk, int host_side)
{
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		if (lk->lane[k].prbs_on || (host_side && APENET_GET(LANE_PRBS_CTRL, ENABLE, lk->lane[k].prbs_ctrl)))
			return 1;
	return 0;
}

/* Width of the register at off (the window only reaches global and lane
 * registers): 64 or 32. */
static unsigned reg_bits(uint32_t off)
{
	unsigned n;
	const struct apenet_regdesc *r;
	uint32_t reg = off;
	if (off < APENET_LINK_BASE) {
		r = apenet_regdescs(APENET_BLK_GLOBAL, &n);
	} else {
		r = apenet_regdescs(APENET_BLK_LANE, &n);
		reg = ((off - APENET_LINK_BASE) % APENET_LINK_STRIDE - APENET_LANE_BASE) % APENET_LANE_STRIDE;
	}
	for (unsigned i = 0; i < n; i++)
		if (r[i].off == reg)
			return r[i].bits;
	return 32;
}

static void finish(struct sim_rmt *r, uint16_t seq, unsigned result, uint64_t rdata)
{
	r->rdata = rdata;
	r->done_seq = seq;
	r->result = (uint8_t)result;
	r->busy = 0;
}

/* The partner's firmware serves the request that came in on its link pl_idx. */
static unsigned serve(struct sim_board *pb, unsigned pl_idx, unsigned op, uint32_t addr, uint32_t wdata,
		      uint64_t *rdata)
{
	int write = op == APENET_RMT_WRITE;
	pb->rmt.served++;
	if (!apenet_rmt_allowed(pb->prof, pl_idx, addr, write))
		return APENET_RMT_DENIED;
	if (write) {
		/* as if its own host had written it: the firmware reads it at its
		 * next tick, like any host write; a PMA setting is on trial */
		sim_pma_trial(pb, pl_idx, addr);
		BAR32(pb, addr) = wdata;
		*rdata = 0;
	} else {
		*rdata = reg_bits(addr) == 64 ? BAR64(pb, addr) : BAR32(pb, addr);
	}
	return APENET_RMT_OK;
}

void sim_rmt_tick(struct sim_torus *t, struct sim_board *b)
{
	struct sim_rmt *r = &b->rmt;
	if (r->busy) {
		if (t->now_ts < r->due_ts)
			return;
		if (r->p_result != APENET_RMT_NO_ANSWER)
			r->rtt = r->p_rtt;
		finish(r, r->seq, r->p_result, r->p_rdata);
	}
	uint16_t seq = (uint16_t)APENET_GET(RMT_CTRL, SEQ, r->ctrl);
	if (seq == r->done_seq)
		return;
	unsigned op = APENET_GET(RMT_CTRL, OP, r->ctrl), l = APENET_GET(RMT_CTRL, LINK, r->ctrl);
	if (op > APENET_RMT_WRITE || l >= b->prof->nlinks) {
		finish(r, seq, APENET_RMT_BADREQ, 0);
		return;
	}
	struct sim_link *lk = &b->link[l];
	if (lk->peer_board < 0) {
		finish(r, seq, APENET_RMT_NO_PARTNER, 0);
		return;
	}
	if (lk->state != APENET_LINK_UP && lk->state != APENET_LINK_DEGRADED) {
		finish(r, seq, APENET_RMT_LINK_DOWN, 0);
		return;
	}
	struct sim_board *pb = &t->b[lk->peer_board];
	struct sim_link *pl = &pb->link[lk->peer_link];
	if (lanes_prbs(lk, 1) || lanes_prbs(pl, 0)) {
		finish(r, seq, APENET_RMT_LINK_PRBS, 0);
		return;
	}
	/* sent */
	r->busy = 1;
	r->seq = seq;
	r->p_rdata = 0;
	if (pb->gone || pb->dnp_hung || pb->no_rmt) {
		r->p_result = APENET_RMT_NO_ANSWER;
		r->due_ts = t->now_ts + (uint64_t)APENET_RMT_ANSWER_US * (SIM_TS_HZ / 1000000u);
		return;
	}
	r->p_rtt = sim_rmt_rtt_ticks(t, b, l);
	r->p_result = (uint8_t)serve(pb, (unsigned)lk->peer_link, op, r->addr, r->wdata, &r->p_rdata);
	r->due_ts = t->now_ts + r->p_rtt;
}
