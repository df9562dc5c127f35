/*
 * What a link did between two samples: rates from counter and TIMESTAMP
 * deltas (never from clearing counters), the raw event counts behind every
 * rate (a rule needs the count and the window, not only their ratio, to
 * know how sure a rate is), the partner the ALIGN OK words name and the
 * neighbour the torus says it should be.  Measurement only: the rules that
 * judge it live in lofamo/.
 */
#ifndef APENET_LINKSTATS_H
#define APENET_LINKSTATS_H

#include "apenet/ldm.h"
#include "apenet/view.h"

struct apenet_link_stats {
	double dt;                      /* seconds between the samples (board time) */
	double dt_second;               /* seconds between the reads of this link's second tier
					 * (traffic, FIFO, retransmissions, lanes): dt for full
					 * snapshots, 0 when a tiered sample did not read it again */
	unsigned state, phase, lanes_up, lanes_used, nlanes;
	int up_whole_second;            /* up_whole, and up already when the second tier's
					 * interval began (its lanes' errors are not a bring-up's) */
	int up_whole;                   /* up (or degraded) at both samples, no down event,
					   and up since before the first: the window of the rates */
	double tx_Bps, rx_Bps, tx_pps, rx_pps;
	uint64_t crc_events, retrans_events, payload_events; /* in the interval */
	double crc_per_min, retrans_per_min, payload_per_min;
	uint64_t down_delta, restarts_delta;
	uint64_t lane_err_events[APENET_MAX_LANES];  /* 8b/10b code + disparity, in the interval */
	double lane_err_per_min[APENET_MAX_LANES];
	uint64_t lane_restart_events[APENET_MAX_LANES]; /* in the interval */
	uint64_t lane_restarts[APENET_MAX_LANES];  /* since cleared */
	double since_clear_s;
	double up_for_s;                /* since LINK_UP_TS, -1 when not up */
	double max_MBps;                /* the efficiency model's bound for the lanes up */
	double util;                    /* rx payload / bound */
	int partner_valid, partner_ext;
	unsigned partner[3], partner_port;
	int expect_valid;               /* the torus neighbour this link should face */
	unsigned expect[3], expect_port;
	int expect_wrap, expect_dim;    /* the cable closes the ring of dimension expect_dim */
	int ldm_valid;
	double ldm_age_s;
	struct apenet_ldm ldm;
	double fifo_hwm_pct;            /* high-water mark (higher VC) in % of T_RED, since clear */
	int fifo_hwm_rose;              /* the mark rose between the samples: it was reached in the interval */
	double fifo_level_pct;          /* the level now (higher VC) in % of T_RED */
	double fifo_level0_pct;         /* the same at the first sample */
	int prbs;
};

void apenet_link_stats(const struct apenet_view *v, unsigned l, struct apenet_link_stats *st);

#endif
