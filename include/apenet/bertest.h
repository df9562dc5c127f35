/*
 * The BER test engine (issue 10): PRBS generators and checkers of a link's
 * lanes at both ends, the checkers' counters read again and again, each
 * lane judged by the sequential schedule of apenet/ber_stats.h.
 *
 * A lane's checker counts what the far end's generator sends, so both ends
 * run PRBS for any test: the far end is started through the link itself
 * (the remote-register window, apenet/remote.h), every lane in one request
 * (LANE_PRBS_CTRL.LANES: the window goes blind once a far lane runs PRBS),
 * with FOLLOW, so that it goes back to traffic when this end stops.  The
 * engine judges this end's checkers live (the far -> near direction) with
 * the sequential schedule; with both_ends it reads the far end's checkers
 * (near -> far) through the window once both ends stopped, and judges them
 * once, at the length the run had.  Bits come from the checkers' counters
 * (LANE_PRBS_BITS), never from the clock.
 *
 * While the test runs the link carries no traffic (LANE_PRBS_CTRL.ENABLE
 * stops it); apenet_bertest_stop puts this end back and the far end
 * follows; both ends also stop by themselves after LANE_PRBS_RUN_MS
 * (guard_ms), should this process die with the test running.
 *
 * Use: start, then poll (a few times a second) until it says done or the
 * caller gives up, then stop, always.  No thread, no sleep inside.
 */
#ifndef APENET_BERTEST_H
#define APENET_BERTEST_H

#include <stdint.h>

#include "apenet/ber_stats.h"
#include "apenet/dev.h"
#include "apenet/regs.h"

#define APENET_BERTEST_MAXLANES 8 /* lanes x directions */
#define APENET_BERTEST_LOCK_S 2.0  /* a checker that counted nothing by then never locked: FAIL */

enum apenet_bertest_dir {
	APENET_BERTEST_FAR_TO_NEAR = 0, /* the far end's generator, this end's checker */
	APENET_BERTEST_NEAR_TO_FAR = 1, /* this end's generator, the far end's checker */
};

struct apenet_bertest_opts {
	unsigned link;
	uint32_t lanes;         /* mask of the link's lanes; 0: all */
	enum apenet_prbs pattern;
	int both_ends;          /* also judge near -> far at the far end's checker */
	double target, cl;      /* the claim: BER < target at cl */
	uint64_t bits;          /* > 0: a test fixed in advance, this many bits a lane */
	double max_s;           /* give up (inconclusive) after this long; 0: no limit */
	unsigned guard_ms;      /* the far end's LANE_PRBS_RUN_MS */
	int far_guard_set;      /* the far lanes' RUN_MS already hold guard_ms (a sweep's next
				 * run): not written again, a round trip a lane saved */
	int timeout_ms;         /* each remote access */
};

struct apenet_bertest_lane {
	unsigned lane;
	enum apenet_bertest_dir dir;
	int locked;
	int started;            /* the checker's counters are this run's (PRBS_START_TS moved) */
	int no_lock;            /* FAIL because the checker never locked to the pattern */
	uint64_t start_ts0;     /* PRBS_START_TS before the test: counters left from an earlier run */
	uint64_t bits, errors;  /* every run of the test (acc_ plus this run's counters) */
	uint64_t acc_bits, acc_errors; /* the earlier runs' (apenet_bertest_again) */
	uint64_t run_bits;      /* this end's checker, this run: how long the run is */
	struct apenet_ber_decision dec; /* est: point estimate and bounds at cl */
	enum apenet_ber_verdict verdict; /* final once not CONTINUE */
};

struct apenet_bertest {
	struct apenet_dev *d;
	struct apenet_bertest_opts o;
	struct apenet_ber_sched sched;
	unsigned n;
	struct apenet_bertest_lane l[APENET_BERTEST_MAXLANES];
	uint32_t accel;         /* BER_ACCEL: > 1 in an accelerated emulation */
	double lane_bps;        /* bits a second a lane checks (line rate x accel) */
	int64_t t0_ms;          /* monotonic, at start */
	struct apenet_deadline lock_dl; /* APENET_BERTEST_LOCK_S from start, on both clocks */
	int far_on, near_on;
	enum apenet_ber_verdict verdict; /* the link's: every lane passed, one failed */
	int inconclusive;       /* stopped by max_s or a fixed length without a decision */
	unsigned runs;          /* PRBS runs so far (apenet_bertest_again adds one) */
	double far_need;        /* after the first run: bits a lane this run must reach for
				 * the far lanes still open (0: the first run's rule) */
};

/* Starts a test (both ends' generators and checkers); -1 with e naming
 * what stopped it (no PRBS, no window to the far end, a lane busy, the link
 * down...), nothing left running. */
int apenet_bertest_start(struct apenet_dev *d, const struct apenet_bertest_opts *o, struct apenet_bertest *t,
			 struct apenet_err *e);
/* Reads the checkers and judges: 1 when every lane has its verdict (or the
 * test reached its length or max_s), 0 while it runs, -1 with e. */
int apenet_bertest_poll(struct apenet_bertest *t, struct apenet_err *e);
/* Both ends back to traffic (this end stops, the far end follows), then,
 * with both_ends, the far checkers read and judged; safe to call twice and
 * after a failed poll.  -1 when the far end could not be read (said in e;
 * its guard still ends its run). */
int apenet_bertest_stop(struct apenet_bertest *t, struct apenet_err *e);
/*
 * With both_ends the far checkers are read only once a run has ended, and a
 * far lane that saw errors may need more bits than the run had (a 5 m cable
 * near 1e-13: five errors in 7e12 bits a lane, 2e13 needed).  Both are
 * judged with the same sequential schedule as this end's lanes (its looks
 * are the error counts: reading once a run loses nothing of its
 * guarantees), so the test goes on with another run, its counts added to the
 * earlier ones.  far_open: 1 when a far lane is still open, none failed and
 * max_s has not passed (call after stop); again: the next run, both ends
 * (this end's lanes keep the verdicts they have), then poll and stop as
 * before.  -1 with e as start.
 */
int apenet_bertest_far_open(const struct apenet_bertest *t);
int apenet_bertest_again(struct apenet_bertest *t, struct apenet_err *e);
/* Seconds since start. */
double apenet_bertest_elapsed(const struct apenet_bertest *t);
/* An inconclusive test: the most bits a lane still without a verdict must
 * check, beyond what it has, to PASS if no more errors come (the
 * schedule's PASS point for the errors seen; a fixed length: the
 * statistical minimum for them; with both_ends at least what the first run
 * gives every lane); 0 when every lane has its
 * verdict, infinity when no length proves the target (too many errors for
 * a pass, too few for a fail yet). */
double apenet_bertest_more_bits(const struct apenet_bertest *t);

#endif
