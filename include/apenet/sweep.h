/*
 * PMA sweeps (issue 10, `apenet sweep`): search the grid of a lane's six
 * analog settings for the one with the lowest bit error ratio, measuring
 * points through a callback (the CLI runs a PRBS test per point on a link;
 * the benchmark draws errors from the emulator's channel model).
 *
 * Exhaustive: every point of the grid at one dwell, as the vendor toolkits
 * do.  Adaptive: short dwells to screen, longer ones only for candidates
 * (racing: a point is dropped once its lower bound is above the best
 * point's upper bound, or it falls out of a shrinking keep-list), a local
 * search over every neighbour that differs by one step in one or two
 * settings (the settings interact: no axis-by-axis search), restarted from
 * several points of a spread-out screening set (the landscape has more than
 * one optimum), and a final race of the best few at ten times the dwell
 * (zero-error ties at the dwell are not a choice).  docs/ber.md, "Sweeps".
 *
 * The points are in grid order of (vod, pre, post1, post2, rxeq, dcgain);
 * a parameter not swept stays at its `fixed` value.
 */
#ifndef APENET_SWEEP_H
#define APENET_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "apenet/err.h"
#include "apenet/regs.h"

enum apenet_sweep_param {
	APENET_SWEEP_VOD,
	APENET_SWEEP_PRE,
	APENET_SWEEP_POST1,
	APENET_SWEEP_POST2,
	APENET_SWEEP_RXEQ,
	APENET_SWEEP_DCGAIN,
	APENET_SWEEP_NPARAM
};

enum apenet_sweep_strategy { APENET_SWEEP_EXHAUSTIVE, APENET_SWEEP_ADAPTIVE };

/* "vod", "pre", ... ; -1 for a name that is none of them. */
const char *apenet_sweep_param_name(unsigned p);
int apenet_sweep_param_parse(const char *name);

struct apenet_sweep_space {
	unsigned swept;                       /* mask of 1 << enum apenet_sweep_param */
	uint8_t lo[APENET_SWEEP_NPARAM], hi[APENET_SWEEP_NPARAM], step[APENET_SWEEP_NPARAM];
	uint8_t fixed[APENET_SWEEP_NPARAM];   /* the value of a parameter not swept */
};

/* Every parameter swept over the variant's whole range, step 1, fixed ones
 * at start (the lane's current setting). */
void apenet_sweep_space_full(struct apenet_sweep_space *s, const struct apenet_pma_range *r,
			     const uint8_t start[APENET_SWEEP_NPARAM]);
/* Points in the grid (0 when a range is empty). */
uint64_t apenet_sweep_space_size(const struct apenet_sweep_space *s);
/* "P=a:b[:step]" into s (a and b within range r); -1 with e naming the
 * problem. */
int apenet_sweep_range_parse(struct apenet_sweep_space *s, const struct apenet_pma_range *r, const char *spec,
			     struct apenet_err *e);

struct apenet_sweep_point {
	uint8_t v[APENET_SWEEP_NPARAM];
	uint64_t bits, errors;
	double ber, upper, lower; /* point estimate and bounds at cl, from bits and errors */
	unsigned level;           /* adaptive: the dwell level it reached (0 = screening) */
};

/* Measure point v for `bits` more bits: *got_bits and *got_errors are what
 * the measurement saw (bits may differ from the request: a checker counts
 * in words).  0, or -1 with e: the sweep stops. */
typedef int (*apenet_sweep_measure_fn)(void *ctx, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits,
				       uint64_t *got_bits, uint64_t *got_errors, struct apenet_err *e);

struct apenet_sweep_opts {
	enum apenet_sweep_strategy strategy;
	uint64_t dwell_bits;  /* exhaustive: every point; adaptive: the top level of the screening */
	double cl;            /* bounds' confidence level */
	uint64_t seed;        /* adaptive: the screening set is drawn from it */
	const uint8_t *start; /* adaptive: a point screened first (the current setting); may be NULL */
	void (*progress)(void *ctx, const struct apenet_sweep_point *last, uint64_t done_bits, unsigned npoints);
	void *progress_ctx;
};

struct apenet_sweep {
	struct apenet_sweep_point *pt; /* every point measured, in the order first measured */
	size_t n, cap;
	size_t best;                   /* index in pt of the chosen setting */
	uint64_t bits;                 /* all bits measured: test time = bits / lane rate */
	size_t measurements;           /* calls of the measure function */
	/* adaptive internals: an index from a grid point to its entry in pt */
	uint32_t *index;
	size_t index_cap;
};

/* Runs the sweep; 0 with sw->best the chosen setting, -1 with e (what was
 * measured stays in sw).  Free with apenet_sweep_free. */
int apenet_sweep_run(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o,
		     apenet_sweep_measure_fn measure, void *ctx, struct apenet_sweep *sw, struct apenet_err *e);
void apenet_sweep_free(struct apenet_sweep *sw);

/*
 * What a sweep will cost, before it runs: the strategy run against a
 * landscape where every point is clean (no error anywhere), so that no
 * point is dropped early and every race goes the distance: the most bits
 * a sweep of this space and dwell measures, give or take the adaptive
 * search's climbs (a real landscape ends hopeless points at once and
 * climbs where a clean one ties).  Test time = bits / lanes / lane rate;
 * each measurement also costs a PRBS start and stop on the link.
 */
struct apenet_sweep_plan {
	uint64_t bits;          /* pooled over the lanes, as dwell_bits */
	size_t measurements;    /* calls of the measure function */
	size_t points;          /* distinct points */
};
int apenet_sweep_plan(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o,
		      struct apenet_sweep_plan *plan, struct apenet_err *e);

/*
 * A sweep of a link's lanes on a card (bertest/sweep_link.c): the direction
 * far end -> this end, whose errors are made by the far transmitter's
 * settings (vod, pre, post1, post2: written through the remote window,
 * provisionally, APENET_RMT_PMA_REVERT_MS) and this receiver's (rxeq,
 * dcgain: written here), counted by this end's checkers; or (reverse) this
 * end -> far end: this transmitter here, the far receiver through the
 * window, counted by the far checkers (read through the window once each
 * run has ended: the window is blind while the link runs PRBS).  Every lane under
 * test gets the same point; a point's bits and errors are the lanes'
 * pooled.  A point the link cannot run at (it does not come up, or a
 * checker never locks) counts as one error in one bit: the worst there is,
 * and the sweep goes on once the link is back.
 *
 * begin reads every lane's setting (this is what restore puts back, and
 * lane 0's is the adaptive search's start); measure is the sweep's
 * callback; set writes a point and leaves it (--apply); restore writes
 * back what begin read.  set and restore realign the link at the end so
 * that it comes up at full width with what was written.
 */
struct apenet_dev;
struct apenet_sweep_link {
	struct apenet_dev *d;
	unsigned link;
	uint32_t lanes;          /* mask; 0: all the link's lanes */
	unsigned pattern;        /* enum apenet_prbs */
	double target, cl;       /* a point proven worse than target ends early */
	int timeout_ms;          /* each remote access; the link coming back adds the revert time */
	volatile int *stop;      /* non-NULL: when it becomes non-zero, measure returns -1 */
	int reverse;             /* the direction this end -> far end: this transmitter here, the far
				  * receiver through the window, the far checkers read after each run */
	/* filled in by begin */
	uint8_t orig[APENET_MAX_LANES][APENET_SWEEP_NPARAM];
	uint32_t far_off[APENET_MAX_LANES][APENET_SWEEP_NPARAM]; /* the partner's offsets (its port, read once) */
	unsigned nlanes;
	uint8_t cur[APENET_SWEEP_NPARAM];
	int have_cur;
	unsigned dropped;        /* points the link could not run at */
	unsigned guard_ms;       /* what the far lanes' LANE_PRBS_RUN_MS hold (0: not written yet) */
	double lane_mbps;
	uint32_t accel;
};
int apenet_sweep_link_begin(struct apenet_sweep_link *sl, struct apenet_err *e);
int apenet_sweep_link_measure(void *sl, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits, uint64_t *got_bits,
			      uint64_t *got_errors, struct apenet_err *e);
int apenet_sweep_link_set(struct apenet_sweep_link *sl, const uint8_t v[APENET_SWEEP_NPARAM], struct apenet_err *e);
int apenet_sweep_link_restore(struct apenet_sweep_link *sl, struct apenet_err *e);

/* A measurement's own cost on a link beside its bits: the PRBS start and
 * stop at both ends, the far settings written through the window, the
 * link back in traffic.  About half a second on the emulator (10 ms ticks:
 * an adaptive rxeq x dcgain sweep at --ber-accel 10000, 118 runs in 56 s);
 * only estimates use it. */
#define APENET_SWEEP_RUN_OVERHEAD_S 0.5
/* The wall time of a plan on this link (after begin): its bits at the
 * lanes' rate (x BER_ACCEL) plus each run's own cost; *test_s the bits'
 * part alone (the test time a lane). */
double apenet_sweep_link_estimate_s(const struct apenet_sweep_link *sl, const struct apenet_sweep_plan *plan,
				    double *test_s);

/* Writers: every point as CSV (header vod,pre,post1,post2,rxeq,dcgain,
 * bits,errors,ber,upper,lower,level); a heat map of parameters a and b
 * (each cell the best upper bound over the other parameters among the
 * points measured there), as text (one character a decade, '.' not
 * measured) or as a standalone SVG file.  -1 on a write error. */
int apenet_sweep_write_csv(const struct apenet_sweep *sw, FILE *f);
int apenet_sweep_write_heatmap_text(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, unsigned a,
				    unsigned b, FILE *f);
int apenet_sweep_write_heatmap_svg(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, unsigned a,
				   unsigned b, const char *title, FILE *f);

#endif
