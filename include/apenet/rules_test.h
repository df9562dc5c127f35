/*
 * The verdicts of the active tests (apenet ber, qualify, sweep,
 * latency-check): pure functions over what a test measured that return
 * findings with the stable codes of docs/verdicts.md ("BER tests, sweeps
 * and certificates"), each with its code's one recommendation
 * (lofamo/rulebook.c).  The commands run the tests (bertest/,
 * collectors/latency.c) and print what these say; the statistics behind a
 * BER verdict are apenet/ber_stats.h's.  lofamo/rules_ber.c (ber, qualify),
 * rules_sweep.c, rules_latency.c.
 */
#ifndef APENET_RULES_TEST_H
#define APENET_RULES_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/ber_stats.h"
#include "apenet/finding.h"

/* A verdict as the tests print it: "pass", "fail", "inconclusive" (a test
 * that ended without one: CONTINUE). */
const char *apenet_rules_ber_verdict_word(enum apenet_ber_verdict v);

/* One lane of a BER test, one direction. */
struct apenet_ber_lane_result {
	unsigned lane;
	int dir;                /* -1: a test of this end's checkers only; else enum apenet_bertest_dir:
				 * 0 far end -> this end, 1 this end -> far end */
	uint64_t bits, errors;
	double lower;           /* the BER's lower bound at the test's cl */
	enum apenet_ber_verdict verdict;
};

/* BER_FAIL (subject lane) for a lane whose BER is proven above target at
 * cl; nothing for a lane that passed or has no verdict. */
void apenet_rules_ber_lane(const struct apenet_ber_lane_result *r, int link, const char *name, double target, double cl,
			   struct apenet_findings *out);

/* A BER test that ended without a verdict: what it saw. */
struct apenet_ber_short {
	double target, cl;
	uint64_t least_bits;    /* the fewest bits a lane checked */
	uint64_t errors;        /* every lane's */
	double elapsed_s;
	double more_bits;       /* apenet_bertest_more_bits: infinity when no length proves it */
	double lane_bps;        /* bits a second a lane checks; 0: not known */
};

/* BER_NOT_PROVEN (apenet ber): a warning, never a reason to replace
 * anything, with how many more bits a lane would prove the target if no
 * more errors come (value), how long that is at this rate, and the
 * --max-time that allows it. */
void apenet_rules_ber_not_proven(const struct apenet_ber_short *s, int link, const char *name,
				 struct apenet_findings *out);

/* A cable's certificate (apenet qualify). */
struct apenet_cable_result {
	const char *serial;
	enum apenet_ber_verdict verdict; /* the certifying test's; CONTINUE: it ended without one */
	uint64_t bits, errors;  /* every lane, both directions */
	int swept;              /* certified at the setting a sweep chose */
	const char *not_swept;  /* why a failed test was not swept ("--no-sweep", or what the sweep
				 * would take); NULL when it was, or nothing failed */
	struct apenet_ber_short test; /* the certifying test: its target and cl, and what it
				       * saw (for an inconclusive one) */
};

/* CABLE_NOT_QUALIFIED (fail) or CABLE_INCONCLUSIVE (warn, as
 * BER_NOT_PROVEN); nothing for a pass. */
void apenet_rules_cable(const struct apenet_cable_result *r, int link, const char *name, struct apenet_findings *out);

/* A sweep's end (apenet sweep). */
struct apenet_sweep_result {
	double target, cl;
	double best_upper;      /* the chosen setting's upper bound at cl */
	size_t points;          /* measured */
	int timed_out;          /* --max-time ended it */
	double max_s;           /* that --max-time */
};

/* PASS when the chosen setting's upper bound is at or below the target;
 * else FAIL with SWEEP_NO_SETTING, or, when --max-time ended it first,
 * CONTINUE (inconclusive) with SWEEP_INCOMPLETE. */
enum apenet_ber_verdict apenet_rules_sweep(const struct apenet_sweep_result *r, int link, const char *name,
					   struct apenet_findings *out);

/* Latency determinism (apenet latency-check): the k distinct latencies
 * (val, ascending) of n >= 1 alignments.  PASS when there is one; FAIL
 * with LATENCY_NOT_DETERMINISTIC when there are more. */
enum apenet_ber_verdict apenet_rules_latency(const uint32_t *val, size_t k, size_t n, int link, const char *name,
					     struct apenet_findings *out);

#endif
