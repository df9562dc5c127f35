/*
 * BER statistics (issue 10): what k bit errors in N checked bits prove, and
 * when a sequential test may stop.  docs/ber.md explains it all with a
 * worked example; in short:
 *
 * - Bit errors of a lane at bit error rate p are a Poisson count with mean
 *   p N (N is huge, p tiny).  At confidence CL (one-sided), after k errors
 *   in N bits:
 *     point estimate  k / N
 *     upper bound     chi2_CL(2k + 2) / 2N     (k = 0: -ln(1 - CL) / N, "3/N" at 95%)
 *     lower bound     chi2_{1-CL}(2k) / 2N     (k = 0: 0)
 *   computed with common/stats.c (apenet_stats_poisson_upper/lower), exact.
 * - The statistical minimum for k errors: the bits a test fixed in advance
 *   must check to certify a target with at most k errors,
 *   upper_mu(k) / target (2.996e12 bits for 1e-12 at 95% with none).
 * - A sequential test looks at its counters again and again and stops at
 *   the first PASS (upper bound below the target) or FAIL (lower bound
 *   above it).  Checked naively, the fixed-sample bounds are wrong far more
 *   often than 1 - CL (at a true BER equal to the target, reading every
 *   second for up to 100x the zero-error minimum: 30% false PASS and 38%
 *   false FAIL instead of 5% each, bench/bench_ber_stats.c).  The
 *   schedule (struct apenet_ber_sched) corrects it: a PASS can only happen at
 *   one bit count per error count (pass_bits(k)), a FAIL only when the k-th
 *   error comes before fail_bits(k); these points are placed by an exact
 *   forward recursion of the Poisson process at BER = target so that the
 *   probability of any wrong PASS, over all looks together, is at most
 *   1 - CL, and so is that of any wrong FAIL, for every true BER and however
 *   often the counters are read.  The error probability is spent mostly on
 *   the first look (no errors): a clean lane certifies with
 *   zero_overhead (1.005) x the statistical minimum; a lane that shows
 *   errors pays more (about 1.9x at one error, 95%).  Past
 *   APENET_BER_EXACT_LOOKS looks the points come from a Bonferroni split.
 * - Per lane and pooled: pooling sums bits and errors over lanes
 *   (apenet_ber_pool) and proves a claim about the lanes' common BER; it is
 *   valid only for lanes that share one BER claim (docs/ber.md).  A link
 *   passes when every lane passes (no correction needed: a false link PASS
 *   needs a false PASS of the bad lane itself); a FAIL of any of N lanes is
 *   a claim about a family, so the schedule of lanes judged together takes
 *   fail_family = N (each lane's FAIL at (1 - CL) / N).
 *
 * A verdict is final: the guarantees are for the first decision of a test.
 * Judging a lane again after it passed (more bits, maybe an error) is not a
 * new test.  Bits always come from the checker's counters, never from wall
 * time (an accelerated emulation counts faster than the clock).
 * Pure functions: no I/O, no allocation.
 */
#ifndef APENET_BER_STATS_H
#define APENET_BER_STATS_H

#include <stdint.h>

#include "apenet/err.h"

/* Looks placed by the exact recursion, per side; past them, Bonferroni. */
#define APENET_BER_EXACT_LOOKS 128
/* The default price of the correction for a clean lane: the zero-error PASS
 * needs this many times the statistical minimum (the goal: 1.01). */
#define APENET_BER_ZERO_OVERHEAD 1.005
/* Inputs a schedule accepts. */
#define APENET_BER_TARGET_MAX 1e-2 /* the Poisson model of bit errors needs a small BER */
#define APENET_BER_CL_MIN 0.5
#define APENET_BER_CL_MAX 0.999999
#define APENET_BER_FAMILY_MAX 4096

enum apenet_ber_verdict { APENET_BER_CONTINUE, APENET_BER_PASS, APENET_BER_FAIL };

/* "continue", "pass", "fail". */
const char *apenet_ber_verdict_name(enum apenet_ber_verdict v);

/* What k errors in N bits say at confidence cl. */
struct apenet_ber_est {
	uint64_t bits, errors;
	double cl;
	double ber;   /* errors / bits; NaN when bits == 0 */
	double lower; /* one-sided lower bound at cl; 0 when errors == 0 */
	double upper; /* one-sided upper bound at cl; infinity when bits == 0 */
};

/* 0 < cl < 1 and errors <= bits, else -1 with the reason in err. */
int apenet_ber_estimate(uint64_t errors, uint64_t bits, double cl, struct apenet_ber_est *e, struct apenet_err *err);

/* The statistical minimum: the bits a test fixed in advance must check with
 * at most `errors` errors for the upper bound at cl to reach target
 * (upper_mu(errors) / target).  NaN for target <= 0 or cl outside (0, 1). */
double apenet_ber_min_bits(uint64_t errors, double target, double cl);

struct apenet_ber_opts {
	/* The zero-error PASS at this many times the statistical minimum:
	 * 1 <= zero_overhead <= 2; 0: APENET_BER_ZERO_OVERHEAD.  1 spends all
	 * of 1 - CL there: the classic zero-error test (any error, no PASS). */
	double zero_overhead;
	/* Lanes whose FAILs are judged as one claim (1..APENET_BER_FAMILY_MAX; 0: 1). */
	unsigned fail_family;
};

/* The decision schedule for one target and CL (~2 KiB; built in a few ms). */
struct apenet_ber_sched {
	double target, cl, alpha; /* alpha = 1 - cl */
	double zero_overhead;
	unsigned fail_family;
	double pass_share; /* of alpha spent on the zero-error PASS: alpha^(zero_overhead - 1) */
	/* The exact probability at BER = target of a PASS (of a FAIL) through the
	 * exact looks; the Bonferroni looks past them add at most the rest of alpha. */
	double pass_spent, fail_spent;
	/* In expected errors at the target (bits x target): PASS with k errors
	 * once bits x target >= pass_mu[k] (infinity: never), FAIL with k >= 1
	 * errors while bits x target < fail_mu[k]; fail_mu[0] = 0. */
	double pass_mu[APENET_BER_EXACT_LOOKS];
	double fail_mu[APENET_BER_EXACT_LOOKS];
};

/* 0 < target <= APENET_BER_TARGET_MAX, APENET_BER_CL_MIN <= cl <=
 * APENET_BER_CL_MAX; o may be NULL (the defaults).  -1 with the reason. */
int apenet_ber_sched_init(struct apenet_ber_sched *s, double target, double cl, const struct apenet_ber_opts *o,
			  struct apenet_err *err);

/* The bit count at which `errors` errors PASS (infinity: never), and the one
 * below which they FAIL (0 for no errors).  pass_bits(k) >= min_bits(k). */
double apenet_ber_pass_bits(const struct apenet_ber_sched *s, uint64_t errors);
double apenet_ber_fail_bits(const struct apenet_ber_sched *s, uint64_t errors);
/* The confidence the look at `errors` errors works at, as one fixed-length
 * test: 1 - P(X <= errors | pass_mu) (CL itself for a naive look; 1 for a
 * look that never passes). */
double apenet_ber_pass_cl(const struct apenet_ber_sched *s, uint64_t errors);

/* The verdict alone, cheap (a comparison for the exact looks): for a runner
 * that reads many lanes often.  errors > bits: FAIL is not claimed, CONTINUE. */
enum apenet_ber_verdict apenet_ber_judge(const struct apenet_ber_sched *s, uint64_t errors, uint64_t bits);

struct apenet_ber_decision {
	enum apenet_ber_verdict verdict;
	struct apenet_ber_est est; /* at the schedule's cl */
	double min_bits;           /* the statistical minimum for the errors seen */
	double pass_bits;          /* the schedule's PASS point for them (infinity: none) */
	double fail_bits;          /* FAIL while bits < this (0 without errors) */
	double bits_to_pass;       /* if no more errors come: CONTINUE pass_bits - bits, PASS 0, FAIL NaN */
	double overhead;           /* bits / min_bits: at PASS, the price of the correction and of the reads */
	double pass_cl;            /* apenet_ber_pass_cl for the errors seen */
};

/* The verdict and everything behind it.  -1 when errors > bits. */
int apenet_ber_decide(const struct apenet_ber_sched *s, uint64_t errors, uint64_t bits, struct apenet_ber_decision *d,
		      struct apenet_err *err);

/* Counts of a lane, or of lanes pooled. */
struct apenet_ber_count {
	uint64_t bits, errors;
};

/* Sums bits and errors over n lanes: valid only for lanes that share one BER
 * claim (docs/ber.md).  -1 when a sum overflows 64 bits or a lane has more
 * errors than bits. */
int apenet_ber_pool(const struct apenet_ber_count *lanes, unsigned n, struct apenet_ber_count *sum,
		    struct apenet_err *err);

/* A link's verdict from its lanes' (each judged on its own): PASS when every
 * lane passed, FAIL as soon as one failed, else CONTINUE. */
enum apenet_ber_verdict apenet_ber_combine(const enum apenet_ber_verdict *lanes, unsigned n);

#endif
