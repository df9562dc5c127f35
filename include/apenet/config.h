/*
 * The toolkit's configuration, read through the one YAML loader: the
 * cluster's layout (torus dimensions, wraparound, node names <-> coordinates)
 * and the thresholds behind every verdict.  Every threshold has a documented
 * default (docs/config.md) used when there is no file or it leaves it out.
 */
#ifndef APENET_CONFIG_H
#define APENET_CONFIG_H

#include <limits.h>

#include "apenet/err.h"

struct apenet_thresholds {
	double fpga_temp_warn_c, fpga_temp_fail_c;
	double board_temp_warn_c, board_temp_fail_c;
	double vdroop_warn_pct, vdroop_fail_pct;     /* core supply below nominal */
	double v12_tol_warn_pct, v12_tol_fail_pct;   /* 12 V input off nominal */
	double crc_warn_per_min, crc_fail_per_min;   /* header + footer CRC errors */
	double payload_warn_per_min;                 /* payload CRC errors (left to software) */
	double lane_errors_warn_per_min;             /* 8b/10b code + disparity errors on a lane */
	double flaps_fail;                           /* link down events within the interval */
	double align_restarts_warn;                  /* a lane's restarts since the counters were cleared... */
	double align_restarts_warn_per_hour;         /* ...and at this rate */
	double ldm_age_warn_ms, ldm_age_fail_ms;     /* last LDM received from a neighbour */
	double fifo_hwm_warn_pct;                    /* RX FIFO high-water mark, % of T_RED */
	/* How sure a rate rule must be (docs/verdicts.md, "Rates"): it fires
	 * only on at least rate_min_events events whose rate's lower bound at
	 * rate_confidence clears the threshold. */
	double rate_confidence;
	double rate_min_events;
	double since_clear_min_s;                    /* counts since the clear are judged over at least this */
	/* Hysteresis, for whoever judges sample after sample (the agent): a
	 * finding clears after clear_after_samples clean samples; a sensor
	 * finding clears only this far on the good side of its threshold. */
	double clear_after_samples;
	double temp_clear_margin_c;
	double supply_clear_margin_pct;
};

struct apenet_node_name {
	char name[64];
	unsigned x, y, z;
};

struct apenet_cluster {
	int have;               /* a cluster section was given */
	unsigned dims[3];
	int wrap[3];            /* wraparound cables in each dimension */
	struct apenet_node_name *nodes;
	unsigned nnodes;
};

struct apenet_config {
	char path[APENET_PATH_MAX];    /* empty: defaults only */
	struct apenet_thresholds thr;
	struct apenet_cluster cl;
};

void apenet_config_defaults(struct apenet_config *c);
/* path NULL: defaults. Errors name file:line:column. */
int apenet_config_load(const char *path, struct apenet_config *c, struct apenet_err *e);
void apenet_config_free(struct apenet_config *c);
/* The node's name, or NULL. */
const char *apenet_config_node_name(const struct apenet_config *c, unsigned x, unsigned y, unsigned z);
/* Node by name, 0 or -1. */
int apenet_config_node_by_name(const struct apenet_config *c, const char *name, unsigned xyz[3]);

#endif
