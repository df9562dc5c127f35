/*
 * Verdicts: from a board view and the thresholds, a severity (ok / warn /
 * fail), a stable code and a one-line recommendation in plain words, per link
 * and for the board.  The rules live in lofamo/ (the local fault rules the
 * node agent will run too); the codes are documented in docs/verdicts.md and
 * never change meaning.
 */
#ifndef APENET_VERDICT_H
#define APENET_VERDICT_H

#include "apenet/config.h"
#include "apenet/finding.h"
#include "apenet/ldm.h"
#include "apenet/view.h"


#define APENET_MAX_FINDINGS 16

struct apenet_vfinding {
	enum apenet_sev sev;
	char code[32];
	char text[320];
};

struct apenet_verdict {
	enum apenet_sev sev;   /* the worst finding's */
	char code[32];         /* "OK" or the worst finding's code */
	char rec[320];         /* its recommendation */
	struct apenet_vfinding f[APENET_MAX_FINDINGS];
	unsigned n;
};

/* What a link did over the interval, from counter and TIMESTAMP deltas. */
struct apenet_link_stats {
	double dt;                      /* seconds between the samples */
	unsigned state, phase, lanes_up, lanes_used, nlanes;
	double tx_Bps, rx_Bps, tx_pps, rx_pps;
	double crc_per_min, retrans_per_min, payload_per_min;
	uint64_t down_delta, restarts_delta;
	double lane_err_per_min[APENET_MAX_LANES]; /* 8b/10b code + disparity */
	uint64_t lane_restarts[APENET_MAX_LANES];  /* since cleared */
	double since_clear_s;
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
	double fifo_hwm_pct;
	int prbs;
};

void apenet_verdict_init(struct apenet_verdict *v);
void apenet_verdict_add(struct apenet_verdict *v, enum apenet_sev sev, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

void apenet_link_stats(const struct apenet_view *v, unsigned l, struct apenet_link_stats *st);
/* "node 1,0,0" or "node quong02 (1,0,0)" */
void apenet_node_label(const struct apenet_config *cfg, const unsigned xyz[3], char *buf, size_t n);
void apenet_rules_link(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		       const struct apenet_config *cfg, struct apenet_verdict *out);
void apenet_rules_board(const struct apenet_view *v, const struct apenet_config *cfg, struct apenet_verdict *out);

#endif
