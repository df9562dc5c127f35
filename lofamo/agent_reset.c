/*
 * Counters that go backwards (docs/agent.md, "Counters cleared").
 *
 * A counter that is lower than in the sample before was cleared: by the
 * clear command (CNT_CLEAR_TS moves when every counter is cleared; a clear
 * of some links moves nothing, their counters just restart) or by a
 * firmware reset (UPTIME_TS moves, and TIMESTAMP itself may restart).  The
 * agent reports each clear once, as a notice, and restarts its rate
 * baselines from the sample after it, so that a rate is never negative or
 * huge across a clear.
 */
#include <stdio.h>

#include "apenet/agent.h"

/* The link's monotonic counters, and its lanes'. */
static int link_backwards(const struct apenet_snapshot *a, const struct apenet_snapshot *b, unsigned l)
{
	const struct apenet_snap_link *x = &a->link[l], *y = &b->link[l];
	const uint64_t before[] = { x->LINK_TX_PKTS, x->LINK_TX_BYTES, x->LINK_RX_PKTS, x->LINK_RX_BYTES,
				    x->LINK_HDR_CRC_ERR, x->LINK_FTR_CRC_ERR, x->LINK_RETRANS, x->LINK_PAYLOAD_ERR,
				    x->LINK_CREDITS_TX, x->LINK_CREDITS_RX, x->LINK_DOWN_EVENTS, x->LINK_ALIGN_RESTARTS,
				    x->LINK_STALL_CYCLES };
	const uint64_t after[] = { y->LINK_TX_PKTS, y->LINK_TX_BYTES, y->LINK_RX_PKTS, y->LINK_RX_BYTES,
				   y->LINK_HDR_CRC_ERR, y->LINK_FTR_CRC_ERR, y->LINK_RETRANS, y->LINK_PAYLOAD_ERR,
				   y->LINK_CREDITS_TX, y->LINK_CREDITS_RX, y->LINK_DOWN_EVENTS, y->LINK_ALIGN_RESTARTS,
				   y->LINK_STALL_CYCLES };
	for (unsigned i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		if (after[i] < before[i])
			return 1;
	unsigned lanes = b->prof ? b->prof->links[l].lanes : APENET_MAX_LANES;
	for (unsigned k = 0; k < lanes; k++) {
		const struct apenet_snap_lane *p = &x->lane[k], *q = &y->lane[k];
		if (q->LANE_ALIGN_RESTARTS < p->LANE_ALIGN_RESTARTS || q->LANE_CODE_VIOL < p->LANE_CODE_VIOL ||
		    q->LANE_DISP_ERR < p->LANE_DISP_ERR)
			return 1;
	}
	return 0;
}

unsigned apenet_counter_resets(const struct apenet_snapshot *a, const struct apenet_snapshot *b, struct apenet_reset *out,
			       unsigned max)
{
	if (!max)
		return 0;
	if (b->g.UPTIME_TS != a->g.UPTIME_TS || b->g.TIMESTAMP < a->g.TIMESTAMP) {
		out[0] = (struct apenet_reset){ -1, APENET_RESET_FIRMWARE, b->g.UPTIME_TS };
		return 1;
	}
	if (b->g.CNT_CLEAR_TS != a->g.CNT_CLEAR_TS) {
		out[0] = (struct apenet_reset){ -1, APENET_RESET_COMMAND, b->g.CNT_CLEAR_TS };
		return 1;
	}
	unsigned n = 0;
	unsigned nl = b->nlinks < a->nlinks ? b->nlinks : a->nlinks;
	for (unsigned l = 0; l < nl && n < max; l++)
		if (link_backwards(a, b, l))
			out[n++] = (struct apenet_reset){ (int)l, APENET_RESET_COMMAND, b->g.TIMESTAMP };
	return n;
}

void apenet_reset_event(const struct apenet_snapshot *b, const struct apenet_reset *r, struct apenet_event *ev)
{
	apenet_event_init(ev);
	ev->kind = APENET_EV_NOTICE;
	snprintf(ev->subject, sizeof(ev->subject), "counters");
	const char *name = r->link >= 0 && b->prof && (unsigned)r->link < b->prof->nlinks ? b->prof->links[r->link].name : "";
	snprintf(ev->where, sizeof(ev->where), "%s", name);
	snprintf(ev->code, sizeof(ev->code), "%s", r->cause == APENET_RESET_FIRMWARE ? "COUNTERS_RESET" : "COUNTERS_CLEARED");
	ev->path = APENET_PATH_SELF;
	double ago = b->g.TIMESTAMP >= r->at_ts ? apenet_ticks_to_s(b, b->g.TIMESTAMP - r->at_ts) : 0;
	if (r->link < 0)
		snprintf(ev->message, sizeof(ev->message), "every counter was cleared %.1f s ago %s; rates restart from here",
			 ago, r->cause == APENET_RESET_FIRMWARE ? "by a firmware reset" : "by a command");
	else
		snprintf(ev->message, sizeof(ev->message), "the counters of %s were cleared by a command; rates restart from here",
			 name);
	if (r->cause == APENET_RESET_FIRMWARE)
		snprintf(ev->evidence, sizeof(ev->evidence), "UPTIME_TS moved to %llu", (unsigned long long)r->at_ts);
	else if (r->link < 0)
		snprintf(ev->evidence, sizeof(ev->evidence), "CNT_CLEAR_TS moved to %llu", (unsigned long long)r->at_ts);
	else
		snprintf(ev->evidence, sizeof(ev->evidence), "counters of %s went backwards", name);
}
