/*
 * apenet-sim: the lane channel model, cable + PMA settings -> bit error
 * ratio, and its replacement by measured points.
 *
 * The emulator's PRBS checkers draw their errors from sim_channel_ber().
 * The model (sim/channel.c, formulas in docs/channel-model.md) is physically
 * flavoured: copper loss grows with length and with sqrt(f) and f, TX
 * pre-emphasis and RX equalization compensate it with an optimum that moves
 * with the loss, over-equalization amplifies noise, VOD buys signal but
 * adds crosstalk, DC gain trades sampler noise against saturation.  It is
 * calibrated so that the variants' default PMA settings reproduce the BER
 * bounds published for APEnet+ and APEnet v5 (SPEC §5), and it has more
 * than one local optimum over the PMA grid, as real channels do, so that
 * sweep tools meet the same landscape they meet on hardware.
 *
 * Measured points (a CSV exported from a transceiver toolkit or from our own
 * sweeps) can replace the model for a lane: see sim_ber_table_load().
 */
#ifndef APENET_SIM_CHANNEL_H
#define APENET_SIM_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/regs.h"

/* The six analog settings of a lane, in register steps (LANE_PMA_*). */
struct sim_pma {
	uint8_t vod, pre, post1, post2, rxeq, dcgain;
};

enum sim_cable_kind { SIM_CABLE_COPPER, SIM_CABLE_OPTICAL };

struct sim_ber_table; /* measured points, opaque */

struct sim_channel {
	enum sim_cable_kind kind;
	double length_m;
	unsigned lane_mbps;
	const struct apenet_pma_range *range; /* the variant's legal PMA maxima (regs.h) */
	uint32_t lane_seed;                   /* small per-lane variation, deterministic */
	unsigned xcvr_max_mbps;               /* the transceiver's top lane rate (the link
						 profile's lane_mbps_max); 0: the largest
						 among the variants whose PMA range is
						 *range, as jitter scales with rate / top */
	double extra_ber;                     /* injected impairment (fault injection), added */
	const struct sim_ber_table *measured; /* non-NULL: replay measured points instead */
};

/* Clamp range of every BER this module returns. */
#define SIM_BER_MIN 1e-18
#define SIM_BER_MAX 0.5

/*
 * BER of one lane of ch with the given settings, in [SIM_BER_MIN,
 * SIM_BER_MAX].  Settings above the range maxima count as the maxima; a
 * NULL range means the Stratix IV ranges.  With ch->measured the
 * exact or nearest measured point is used (sim_ber_table_lookup()), plus
 * extra_ber.
 * Pure function of its arguments.
 */
double sim_channel_ber(const struct sim_channel *ch, const struct sim_pma *pma);

/* The model's intermediate quantities (docs/channel-model.md names them). */
struct sim_channel_terms {
	double loss_db, skin_db, dc_loss_db; /* channel loss at Nyquist, its skin part, at LF */
	double swing_mv, tx_lf;              /* TX swing (p-p) and LF level left by the FIR */
	double boost_tx_db, boost_rx_db;     /* Nyquist boost of post1 and of the CTLE */
	double gain_lf_db;                   /* RX low-frequency gain (DC gain - CTLE LF cut) */
	double resid_db;                     /* residual loss: > 0 under-, < 0 over-equalized */
	double isi_h1, isi_pre, isi_tail;    /* residual cursors / main cursor (rms-summed) */
	double isi_sat, eye;                 /* eye lost to overdrive, eye left */
	double s0_mv, signal_mv;             /* main cursor; after overdrive compression */
	double n_thermal_mv, n_sampler_mv, n_xtalk_mv, n_jitter_mv, n_isi_mv; /* rms, RX input */
	double q_el, q_opt, q;               /* electrical Q, optical floor (0: copper), total */
};

/* Q factor of the model for ch and pma (BER = 0.5 erfc(Q / sqrt 2) before
 * extra_ber and clamping); terms (may be NULL) receives the intermediate
 * quantities.  Ignores ch->measured. */
double sim_channel_q(const struct sim_channel *ch, const struct sim_pma *pma,
		     struct sim_channel_terms *terms);

/* 0.5 * erfc(q / sqrt(2)), and its inverse (for ber in (0, 0.5)). */
double sim_q_to_ber(double q);
double sim_ber_to_q(double ber);

/*
 * Measured points.  CSV, one point a line:
 *   # comment lines (first non-blank character '#') and blank lines skipped
 *   vod,pre,post1,post2,rxeq,dcgain,ber      header: these 7 names, any order,
 *                                            other columns ignored
 *   4,0,3,0,4,1,2.5e-13                      settings: decimal integers 0..255
 *                                            ber: a number with 0 <= ber <= 0.5
 * Errors: -1 and err = "FILE:LINE:COL: field 'NAME': what is wrong" (COL is
 * the 1-based character column of the field), or "FILE:LINE: ..." for
 * whole-line problems (wrong field count, duplicate point, missing column).
 * A point that appears twice is an error naming both lines.  Ranges against
 * a variant are checked separately (sim_ber_table_check()), since the file
 * does not say which variant it was measured on.
 */
int sim_ber_table_load(const char *path, struct sim_ber_table **out, char *err, size_t errlen);
void sim_ber_table_free(struct sim_ber_table *t);
size_t sim_ber_table_count(const struct sim_ber_table *t);

/* 0 if every point is inside range; else -1 and err names the first bad
 * one: "FILE:LINE: field 'rxeq': 19 is not an integer in 0..15". */
int sim_ber_table_check(const struct sim_ber_table *t, const struct apenet_pma_range *range,
			char *err, size_t errlen);

/*
 * BER at pma: the point with exactly these settings, else the nearest point
 * by Euclidean distance in normalised PMA space, each setting divided by
 * its range maximum (range NULL: by the largest value of that column in the
 * table; a column whose maximum is 0 is ignored).  Ties go to the point
 * listed first in the file.  *exact (may be NULL) tells which.  The table
 * must hold at least one point (load guarantees it).
 */
double sim_ber_table_lookup(const struct sim_ber_table *t, const struct sim_pma *pma,
			    const struct apenet_pma_range *range, int *exact);

#endif /* APENET_SIM_CHANNEL_H */
