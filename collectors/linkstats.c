/* Link measurements from two samples (include/apenet/linkstats.h). */
#include <string.h>

#include "apenet/linkmodel.h"
#include "apenet/linkstats.h"

/* The torus neighbour link l should face, by this node's coordinates. */
static void expected_partner(const struct apenet_view *v, unsigned l, struct apenet_link_stats *st)
{
	const struct apenet_snapshot *s = &v->s1;
	unsigned me[3] = { APENET_GET(NODE_COORD, X, s->g.NODE_COORD), APENET_GET(NODE_COORD, Y, s->g.NODE_COORD),
			   APENET_GET(NODE_COORD, Z, s->g.NODE_COORD) };
	unsigned dims[3] = { APENET_GET(TORUS_DIMS, X, s->g.TORUS_DIMS), APENET_GET(TORUS_DIMS, Y, s->g.TORUS_DIMS),
			     APENET_GET(TORUS_DIMS, Z, s->g.TORUS_DIMS) };
	enum apenet_dir back;
	int dim, wrap;
	st->expect_valid = 0;
	if (apenet_torus_neighbour(dims, me, v->prof->links[l].dir, st->expect, &back, &dim, &wrap))
		return;
	int port = apenet_profile_link_dir(v->prof, back); /* the far node is taken to be the same variant */
	if (port < 0)
		return;
	st->expect_wrap = wrap;
	st->expect_dim = dim;
	st->expect_port = (unsigned)port;
	st->expect_valid = 1;
}

static double per_min(uint64_t d, double dt)
{
	return dt > 0 ? (double)d * 60.0 / dt : 0;
}

static int is_up(unsigned state)
{
	return state == APENET_LINK_UP || state == APENET_LINK_DEGRADED;
}

static unsigned max32(uint64_t a, uint64_t b)
{
	return (unsigned)(a > b ? a : b);
}

void apenet_link_stats(const struct apenet_view *v, unsigned l, struct apenet_link_stats *st)
{
	const struct apenet_snap_link *a = &v->s0.link[l], *b = &v->s1.link[l];
	const struct apenet_link_profile *lp = &v->prof->links[l];
	memset(st, 0, sizeof(*st));
	st->dt = apenet_view_dt(v);
	st->state = APENET_GET(LINK_STATE, STATE, b->LINK_STATE);
	st->phase = APENET_GET(LINK_STATE, PHASE, b->LINK_STATE);
	st->lanes_up = APENET_GET(LINK_STATE, LANES_UP, b->LINK_STATE);
	st->lanes_used = APENET_GET(LINK_STATE, LANES_USED, b->LINK_STATE);
	st->nlanes = lp->lanes;
	st->prbs = st->state == APENET_LINK_PRBS;
	double dt = st->dt;
	/* the second tier (apenet/tiers.h) has its own interval: a tiered
	 * sample carries the values it last read, and when it was */
	uint64_t r0 = apenet_snap_ts_second(&v->s0, l), r1 = apenet_snap_ts_second(&v->s1, l);
	double dt2 = dt > 0 && r1 > r0 ? apenet_ticks_to_s(&v->s1, r1 - r0) : 0;
	st->dt_second = dt2;
	if (dt > 0) {
		st->crc_events = apenet_view_delta(a->LINK_HDR_CRC_ERR, b->LINK_HDR_CRC_ERR) +
				 apenet_view_delta(a->LINK_FTR_CRC_ERR, b->LINK_FTR_CRC_ERR);
		st->payload_events = apenet_view_delta(a->LINK_PAYLOAD_ERR, b->LINK_PAYLOAD_ERR);
		st->down_delta = apenet_view_delta(a->LINK_DOWN_EVENTS, b->LINK_DOWN_EVENTS);
		st->restarts_delta = apenet_view_delta(a->LINK_ALIGN_RESTARTS, b->LINK_ALIGN_RESTARTS);
	}
	if (dt2 > 0) {
		st->tx_Bps = (double)apenet_view_delta(a->LINK_TX_BYTES, b->LINK_TX_BYTES) / dt2;
		st->rx_Bps = (double)apenet_view_delta(a->LINK_RX_BYTES, b->LINK_RX_BYTES) / dt2;
		st->tx_pps = (double)apenet_view_delta(a->LINK_TX_PKTS, b->LINK_TX_PKTS) / dt2;
		st->rx_pps = (double)apenet_view_delta(a->LINK_RX_PKTS, b->LINK_RX_PKTS) / dt2;
		st->retrans_events = apenet_view_delta(a->LINK_RETRANS, b->LINK_RETRANS);
	}
	st->crc_per_min = per_min(st->crc_events, dt);
	st->retrans_per_min = per_min(st->retrans_events, dt2);
	st->payload_per_min = per_min(st->payload_events, dt);
	for (unsigned k = 0; k < lp->lanes; k++) {
		const struct apenet_snap_lane *la = &a->lane[k], *lb = &b->lane[k];
		if (dt2 > 0) {
			st->lane_err_events[k] = apenet_view_delta(la->LANE_CODE_VIOL, lb->LANE_CODE_VIOL) +
						 apenet_view_delta(la->LANE_DISP_ERR, lb->LANE_DISP_ERR);
			st->lane_restart_events[k] = apenet_view_delta(la->LANE_ALIGN_RESTARTS, lb->LANE_ALIGN_RESTARTS);
		}
		st->lane_err_per_min[k] = per_min(st->lane_err_events[k], dt2);
		st->lane_restarts[k] = lb->LANE_ALIGN_RESTARTS;
	}
	uint64_t since = v->s1.g.CNT_CLEAR_TS > v->s1.g.UPTIME_TS ? v->s1.g.CNT_CLEAR_TS : v->s1.g.UPTIME_TS;
	st->since_clear_s = v->s1.g.TIMESTAMP > since ? apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - since) : 0;
	/* Rates mean something only over a window the link was up for: the
	 * errors of a bring-up (alignment, deskew) are not a cable's error rate. */
	unsigned state0 = APENET_GET(LINK_STATE, STATE, a->LINK_STATE);
	st->up_for_s = is_up(st->state) && v->s1.g.TIMESTAMP >= b->LINK_UP_TS
			       ? apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - b->LINK_UP_TS)
			       : -1;
	st->up_whole = dt > 0 && is_up(st->state) && is_up(state0) && st->down_delta == 0 &&
		       b->LINK_UP_TS <= v->s0.g.TIMESTAMP;
	st->up_whole_second = st->up_whole && dt2 > 0 && b->LINK_UP_TS <= r0;
	unsigned up = 0;
	for (unsigned k = 0; k < lp->lanes; k++)
		up += (st->lanes_up >> k) & 1u;
	struct apenet_linkmodel m = {
		.fifo_bytes = (double)b->LINK_FIFO_DEPTH * APENET_WORD_BYTES,
		.lane_mbps = (double)b->LINK_LANE_MBPS,
		.lanes = up,
		.code_rate = lp->enc == APENET_ENC_64B66B ? 64.0 / 66 : 0.8,
		.c = (unsigned)b->LINK_CREDIT_PERIOD,
	};
	if (apenet_linkmodel_eval(&m) == 0) {
		st->max_MBps = m.max_MBps;
		st->util = m.max_MBps > 0 ? st->rx_Bps / (m.max_MBps * 1e6) : 0;
	}
	uint32_t p = (uint32_t)b->LINK_PARTNER;
	st->partner_valid = (int)APENET_GET(LINK_PARTNER, VALID, p);
	st->partner_ext = (int)APENET_GET(LINK_PARTNER, EXTERNAL, p);
	st->partner[0] = APENET_GET(LINK_PARTNER, X, p);
	st->partner[1] = APENET_GET(LINK_PARTNER, Y, p);
	st->partner[2] = APENET_GET(LINK_PARTNER, Z, p);
	st->partner_port = APENET_GET(LINK_PARTNER, PORT, p);
	expected_partner(v, l, st);
	st->ldm_valid = apenet_ldm_decode((uint32_t)b->LINK_LDM_RX, &st->ldm) == 0;
	st->ldm_age_s = b->LINK_LDM_RX_TS && v->s1.g.TIMESTAMP >= b->LINK_LDM_RX_TS
				? apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - b->LINK_LDM_RX_TS)
				: -1;
	double tred = (double)b->LINK_T_RED;
	unsigned hwm1 = max32(b->LINK_FIFO_HWM0, b->LINK_FIFO_HWM1), hwm0 = max32(a->LINK_FIFO_HWM0, a->LINK_FIFO_HWM1);
	st->fifo_hwm_pct = tred > 0 ? 100.0 * hwm1 / tred : 0;
	/* the mark is latched since the last clear: only a rise (or a mark
	 * that was cleared and set again) says the FIFO filled in the interval */
	st->fifo_hwm_rose = dt2 > 0 && (hwm1 > hwm0 || b->LINK_FIFO_HWM0 < a->LINK_FIFO_HWM0 ||
				       b->LINK_FIFO_HWM1 < a->LINK_FIFO_HWM1);
	st->fifo_level_pct = tred > 0 ? 100.0 * max32(b->LINK_FIFO_LVL0, b->LINK_FIFO_LVL1) / tred : 0;
	double tred0 = (double)a->LINK_T_RED;
	st->fifo_level0_pct = tred0 > 0 ? 100.0 * max32(a->LINK_FIFO_LVL0, a->LINK_FIFO_LVL1) / tred0 : 0;
}
