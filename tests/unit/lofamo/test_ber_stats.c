/* BER statistics (lofamo/ber_stats.c): the bounds against published values,
 * the decision schedule's points and its error probabilities, decisions on
 * constructed counter sequences, pooling, and every input it must refuse. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "apenet/ber_stats.h"
#include "apenet/stats.h"
#include "../../../sim/sim.h" /* the emulator's RNG: errors drawn as its PRBS checkers draw them */

#define PI2 9.8696044010893586188

static void near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want))
		fail_msg("got %.9g, want %.9g", got, want);
}

static void within(double got, double want, double abs_tol)
{
	if (fabs(got - want) > abs_tol)
		fail_msg("got %.6g, want %.6g (+- %g)", got, want, abs_tol);
}

static struct apenet_ber_sched sched(double target, double cl, double zero_overhead, unsigned family)
{
	struct apenet_ber_sched s;
	struct apenet_err e;
	struct apenet_ber_opts o = { .zero_overhead = zero_overhead, .fail_family = family };
	if (apenet_ber_sched_init(&s, target, cl, &o, &e))
		fail_msg("%s", e.msg);
	return s;
}

/* SPEC §5 and the issue: 1e-12 at 95% with no error takes 2.996e12 bits
 * ("about 3/N"); -ln(1 - CL) / N in general. */
static void test_zero_errors(void **state)
{
	(void)state;
	near(apenet_ber_min_bits(0, 1e-12, 0.95), 2.995732e12, 1e-6);
	near(apenet_ber_min_bits(0, 1e-12, 0.90), 2.302585e12, 1e-6);
	near(apenet_ber_min_bits(0, 1e-12, 0.99), 4.605170e12, 1e-6);
	near(apenet_ber_min_bits(0, 1e-15, 0.95), 2.995732e15, 1e-6);
	struct apenet_ber_est e;
	struct apenet_err err;
	assert_int_equal(apenet_ber_estimate(0, 2995732000000ull, 0.95, &e, &err), 0);
	near(e.upper, 1e-12, 1e-6);
	assert_true(e.lower == 0 && e.ber == 0 && e.bits == 2995732000000ull && e.cl == 0.95);
	/* the published SPEC §5 bounds, read back: "< 9.80e-13" is 3.057e12 clean bits at 95% */
	assert_int_equal(apenet_ber_estimate(0, 3056870000000ull, 0.95, &e, &err), 0);
	near(e.upper, 9.80e-13, 1e-5);
}

/* Chi-square percentage points (e.g. Abramowitz & Stegun 26.8, three
 * decimals), degrees of freedom 2k + 2 for the upper bound and 2k for the
 * lower, k = 1..10, at 90, 95 and 99%. */
static void test_chi2_tables(void **state)
{
	(void)state;
	static const double up[11][3] = {
		/* dof 2k+2: chi2_0.90, chi2_0.95, chi2_0.99 */
		{ 0, 0, 0 },
		{ 7.779, 9.488, 13.277 },   { 10.645, 12.592, 16.812 }, { 13.362, 15.507, 20.090 },
		{ 15.987, 18.307, 23.209 }, { 18.549, 21.026, 26.217 }, { 21.064, 23.685, 29.141 },
		{ 23.542, 26.296, 32.000 }, { 25.989, 28.869, 34.805 }, { 28.412, 31.410, 37.566 },
		{ 30.813, 33.924, 40.289 },
	};
	static const double lo[11][3] = {
		/* dof 2k: chi2_0.10, chi2_0.05, chi2_0.01 */
		{ 0, 0, 0 },
		{ 0.211, 0.103, 0.0201 }, { 1.064, 0.711, 0.297 }, { 2.204, 1.635, 0.872 },
		{ 3.490, 2.733, 1.646 },  { 4.865, 3.940, 2.558 }, { 6.304, 5.226, 3.571 },
		{ 7.790, 6.571, 4.660 },  { 9.312, 7.962, 5.812 }, { 10.865, 9.390, 7.015 },
		{ 12.443, 10.851, 8.260 },
	};
	static const double cls[3] = { 0.90, 0.95, 0.99 };
	const double n = 1e13;
	for (unsigned k = 1; k <= 10; k++)
		for (unsigned c = 0; c < 3; c++) {
			struct apenet_ber_est e;
			struct apenet_err err;
			assert_int_equal(apenet_ber_estimate(k, (uint64_t)n, cls[c], &e, &err), 0);
			within(2 * n * e.upper, up[k][c], 6e-4);
			within(2 * n * e.lower, lo[k][c], 6e-4);
			within(2 * apenet_ber_min_bits(k, 1, cls[c]), up[k][c], 6e-4);
			near(e.ber, k / n, 1e-15);
		}
}

static void test_bounds_monotone(void **state)
{
	(void)state;
	struct apenet_err err;
	struct apenet_ber_est prev = { 0 };
	for (uint64_t k = 0; k < 60; k++) {
		struct apenet_ber_est e, e99;
		assert_int_equal(apenet_ber_estimate(k, 1000000000000ull, 0.95, &e, &err), 0);
		assert_int_equal(apenet_ber_estimate(k, 1000000000000ull, 0.99, &e99, &err), 0);
		assert_true(e.lower <= e.ber && e.ber < e.upper);  /* the estimate between its bounds */
		assert_true(e99.lower <= e.lower && e99.upper > e.upper); /* more confidence, wider */
		if (k) {
			assert_true(e.lower > prev.lower && e.upper > prev.upper); /* more errors, higher */
			assert_true(e.lower > 0);
		}
		prev = e;
	}
	/* more bits, the same errors: lower bounds */
	struct apenet_ber_est a, b;
	assert_int_equal(apenet_ber_estimate(3, 1000000, 0.95, &a, &err), 0);
	assert_int_equal(apenet_ber_estimate(3, 2000000, 0.95, &b, &err), 0);
	near(b.upper, a.upper / 2, 1e-12);
	near(b.lower, a.lower / 2, 1e-12);
}

/* The schedule's first points by hand: the first PASS look keeps
 * alpha * share, the second the probability of exactly one error at the
 * first look and none since; the first FAIL looks likewise. */
static void test_schedule_points(void **state)
{
	(void)state;
	const double a = 0.05;
	struct apenet_ber_sched s = sched(1e-12, 0.95, 0, 0);
	near(s.pass_share, pow(a, 0.005), 1e-12);
	near(s.pass_mu[0], 1.005 * -log(a), 1e-12);
	near(apenet_ber_pass_bits(&s, 0), 1.005 * apenet_ber_min_bits(0, 1e-12, 0.95), 1e-12);
	double mu0 = s.pass_mu[0], mu1 = s.pass_mu[1];
	near(mu0 * exp(-mu0) * exp(-(mu1 - mu0)), a * (1 - s.pass_share) * 6 / PI2, 1e-9);
	double l1 = s.fail_mu[1], l2 = s.fail_mu[2];
	near(-expm1(-l1), a * 6 / PI2, 1e-9);
	/* still running at l1: no error yet; fail at look 2: two errors in (l1, l2) */
	near(exp(-l1) * apenet_stats_poisson_sf(2, l2 - l1), a * 6 / PI2 / 4, 1e-9);
	/* what the exact looks spend: all but the Bonferroni tails */
	assert_true(s.pass_spent <= a && s.pass_spent > a * (1 - 1e-4));
	assert_true(s.fail_spent <= a && s.fail_spent > a * 0.99);
	/* the published look table of docs/ber.md (95%) */
	near(s.pass_mu[1], 8.804, 1e-3);
	near(s.pass_mu[2], 12.18, 1e-3);
	near(s.fail_mu[5], 0.973, 1e-3);
}

static void test_schedule_monotone(void **state)
{
	(void)state;
	static const double cls[] = { 0.5, 0.9, 0.95, 0.99, 0.999999 };
	for (unsigned c = 0; c < sizeof(cls) / sizeof(cls[0]); c++) {
		struct apenet_ber_sched s = sched(1e-12, cls[c], 0, 0);
		double pprev = 0, fprev = 0;
		for (uint64_t k = 0; k < 400; k++) {
			double p = apenet_ber_pass_bits(&s, k), f = apenet_ber_fail_bits(&s, k);
			double mn = apenet_ber_min_bits(k, 1e-12, cls[c]);
			/* never more liberal than a test fixed in advance, on either side */
			assert_true(p >= mn * (1 - 1e-12));
			assert_true(f <= apenet_stats_poisson_lower(k, cls[c]) / 1e-12 * (1 + 1e-12));
			assert_true(p > pprev && f >= fprev && f < p);
			double lcl = apenet_ber_pass_cl(&s, k);
			assert_true(lcl >= cls[c] - 1e-12 && lcl < 1);
			pprev = p;
			fprev = f;
		}
		assert_true(s.pass_spent <= s.alpha && s.fail_spent <= s.alpha);
		near(apenet_ber_pass_bits(&s, 0), 1.005 * apenet_ber_min_bits(0, 1e-12, cls[c]), 1e-12);
	}
	/* huge error counts: still finite, still ordered */
	struct apenet_ber_sched s = sched(1e-12, 0.95, 0, 0);
	double p6 = apenet_ber_pass_bits(&s, 1000000), f6 = apenet_ber_fail_bits(&s, 1000000);
	assert_true(isfinite(p6) && p6 > 1e6 / 1e-12 && f6 < 1e6 / 1e-12 && f6 > 0.99e6 / 1e-12);
	assert_true(apenet_ber_pass_bits(&s, 1000001) > p6);
	/* independent of the target but for the scale */
	struct apenet_ber_sched t = sched(1e-15, 0.95, 0, 0);
	for (uint64_t k = 0; k < 200; k += 7)
		near(apenet_ber_pass_bits(&t, k), 1000 * apenet_ber_pass_bits(&s, k), 1e-12);
}

/* Counters read as a runner reads them, every step bits, the lane's errors
 * at the given bit counts; returns the verdict and the bits it came at. */
static enum apenet_ber_verdict run(const struct apenet_ber_sched *s, double step, const double *err_at, unsigned nerr,
				   double max_bits, double *at, uint64_t *errs)
{
	uint64_t k = 0;
	for (double n = step; n <= max_bits; n += step) {
		while (k < nerr && err_at[k] <= n)
			k++;
		enum apenet_ber_verdict v = apenet_ber_judge(s, k, (uint64_t)n);
		struct apenet_ber_decision d;
		struct apenet_err e;
		assert_int_equal(apenet_ber_decide(s, k, (uint64_t)n, &d, &e), 0);
		assert_int_equal(d.verdict, v);
		if (v == APENET_BER_CONTINUE)
			near(d.bits_to_pass, d.pass_bits - n, 1e-12);
		if (v != APENET_BER_CONTINUE) {
			*at = n;
			*errs = k;
			return v;
		}
	}
	*at = max_bits;
	*errs = k;
	return APENET_BER_CONTINUE;
}

static void test_decisions(void **state)
{
	(void)state;
	struct apenet_ber_sched s = sched(1e-12, 0.95, 0, 0);
	struct apenet_ber_decision d;
	struct apenet_err e;
	double at;
	uint64_t k;

	/* a clean lane: PASS at the first read past 1.005 x 2.996e12 bits */
	assert_int_equal(run(&s, 1e10, NULL, 0, 1e14, &at, &k), APENET_BER_PASS);
	assert_true(k == 0 && at >= 3.0107e12 && at < 3.0107e12 + 1e10);
	assert_int_equal(apenet_ber_decide(&s, 0, 3000000000000ull, &d, &e), 0);
	assert_int_equal(d.verdict, APENET_BER_CONTINUE);
	near(d.bits_to_pass, 1.005 * 2.995732e12 - 3e12, 1e-4);
	near(d.min_bits, 2.995732e12, 1e-6);
	assert_int_equal(apenet_ber_decide(&s, 0, 3100000000000ull, &d, &e), 0);
	assert_true(d.verdict == APENET_BER_PASS && d.bits_to_pass == 0 && d.est.upper < 1e-12);
	near(d.overhead, 3.1e12 / 2.995732e12, 1e-6);

	/* one early error: the naive bound passes at 4.74e12 bits, the schedule
	 * waits for 8.80e12 */
	double one[] = { 5e11 };
	assert_int_equal(apenet_ber_decide(&s, 1, 5000000000000ull, &d, &e), 0);
	assert_true(d.est.upper < 1e-12 && d.verdict == APENET_BER_CONTINUE);
	near(d.min_bits, 4.743865e12, 1e-6);
	assert_true(d.pass_cl > 0.998 && d.pass_cl < 0.999);
	assert_int_equal(run(&s, 1e10, one, 1, 1e14, &at, &k), APENET_BER_PASS);
	assert_true(k == 1 && fabs(at - 8.80e12) < 0.02e12);

	/* a bad cable at 1e-9: errors every 1e9 bits; FAIL long before a clean
	 * lane could pass, with the lower bound above the target */
	double bad[200];
	for (unsigned i = 0; i < 200; i++)
		bad[i] = 1e9 * (i + 1);
	assert_int_equal(run(&s, 1e9, bad, 200, 1e14, &at, &k), APENET_BER_FAIL);
	assert_true(at <= 2e9 && k <= 2);
	assert_int_equal(apenet_ber_decide(&s, k, (uint64_t)at, &d, &e), 0);
	assert_true(d.est.lower > 1e-12 && isnan(d.bits_to_pass));
	/* read rarely, it still fails at its first read */
	assert_int_equal(run(&s, 1e11, bad, 200, 1e14, &at, &k), APENET_BER_FAIL);
	assert_true(at == 1e11 && k == 100);

	/* a lane at 3x the target: the naive lower bound clears the target at
	 * its 4th error already; the schedule waits for more */
	double three[400];
	for (unsigned i = 0; i < 400; i++)
		three[i] = (i + 1) / 3e-12;
	assert_int_equal(apenet_ber_decide(&s, 4, (uint64_t)(4 / 3e-12 + 1e10), &d, &e), 0);
	assert_true(d.est.lower > 1e-12 && d.verdict == APENET_BER_CONTINUE);
	assert_int_equal(run(&s, 1e10, three, 400, 1e14, &at, &k), APENET_BER_FAIL);
	assert_true(k >= 10 && k <= 20 && at < apenet_ber_fail_bits(&s, k));
	assert_int_equal(apenet_ber_decide(&s, k, (uint64_t)at, &d, &e), 0);
	assert_true(d.est.lower > 1e-12);

	/* a lane exactly at the target: neither, ever, within 100x the minimum */
	double at_target[400];
	for (unsigned i = 0; i < 400; i++)
		at_target[i] = (i + 0.5) / 1e-12;
	assert_int_equal(run(&s, 1e11, at_target, 400, 3e14, &at, &k), APENET_BER_CONTINUE);
}

/* zero_overhead 1: the classic zero-error test, exactly -ln(1 - CL) / target
 * and no PASS once an error came; the family splits the FAIL side. */
static void test_options(void **state)
{
	(void)state;
	struct apenet_ber_sched z = sched(1e-12, 0.95, 1, 0), s = sched(1e-12, 0.95, 0, 0);
	near(apenet_ber_pass_bits(&z, 0), apenet_ber_min_bits(0, 1e-12, 0.95), 1e-12);
	assert_true(isinf(apenet_ber_pass_bits(&z, 1)) && isinf(apenet_ber_pass_bits(&z, 500)));
	near(z.pass_spent, 0.05, 1e-12);
	struct apenet_ber_decision d;
	struct apenet_err e;
	assert_int_equal(apenet_ber_decide(&z, 1, 100000000000000ull, &d, &e), 0);
	assert_true(d.verdict == APENET_BER_CONTINUE && isinf(d.bits_to_pass) && d.pass_cl == 1);
	assert_int_equal(apenet_ber_judge(&z, 0, 2995733000000ull), APENET_BER_PASS);

	struct apenet_ber_sched f4 = sched(1e-12, 0.95, 0, 4);
	near(-expm1(-f4.fail_mu[1]), 0.05 / 4 * 6 / PI2, 1e-9);
	for (unsigned k = 1; k < 50; k++)
		assert_true(f4.fail_mu[k] < s.fail_mu[k]);
	assert_true(f4.fail_spent <= 0.05 / 4);
	for (unsigned k = 0; k < 50; k++) /* the PASS side is the lanes' own */
		assert_true(f4.pass_mu[k] == s.pass_mu[k]);
	/* a larger zero-error overhead buys cheaper looks after an error */
	struct apenet_ber_sched b = sched(1e-12, 0.95, 1.1, 0);
	near(b.pass_mu[0], 1.1 * -log(0.05), 1e-12);
	assert_true(b.pass_mu[1] < s.pass_mu[1] && b.pass_mu[1] / apenet_stats_poisson_upper(1, 0.95) < 1.35);
}

/* Simulated error streams (Poisson, as the emulator's checkers draw them),
 * read continuously: at a true BER equal to the target the naive rule is
 * wrong far more often than 5%, the schedule at most 5% on either side. */
static void test_error_rates(void **state)
{
	(void)state;
	enum { K = 200 };
	struct apenet_ber_sched s = sched(1e-12, 0.95, 0, 0);
	/* every point in expected errors at the target (bits x target) */
	double sp[K], sf[K], np[K], nf[K];
	for (unsigned k = 0; k < K; k++) {
		sp[k] = apenet_ber_pass_bits(&s, k) * 1e-12;
		sf[k] = apenet_ber_fail_bits(&s, k) * 1e-12;
		np[k] = apenet_stats_poisson_upper(k, 0.95);
		nf[k] = apenet_stats_poisson_lower(k, 0.95);
	}
	struct sim_rng r;
	sim_rng_seed(&r, 10);
	const unsigned runs = 20000;
	unsigned pass = 0, fail = 0, npass = 0, nfail = 0;
	for (unsigned i = 0; i < runs; i++) {
		/* one error stream at BER = target (one expected error per unit),
		 * judged both ways, continuously: the worst case for both */
		double t = 0;
		int sdone = 0, ndone = 0;
		for (unsigned k = 0; k + 1 < K && !(sdone && ndone); k++) {
			double next = t - log1p(-sim_rng_uniform(&r)); /* the (k+1)-th error */
			if (!sdone && next > sp[k]) { /* k errors held until the pass point */
				pass++;
				sdone = 1;
			}
			if (!ndone && next > np[k]) {
				npass++;
				ndone = 1;
			}
			t = next;
			if (!sdone && t < sf[k + 1]) {
				fail++;
				sdone = 1;
			}
			if (!ndone && t < nf[k + 1]) {
				nfail++;
				ndone = 1;
			}
		}
	}
	double sd = sqrt(0.05 * 0.95 / runs);
	if (pass > (0.05 + 3 * sd) * runs || fail > (0.05 + 3 * sd) * runs)
		fail_msg("corrected: %u false PASS, %u false FAIL of %u", pass, fail, runs);
	if (npass < 0.15 * runs || nfail < 0.15 * runs)
		fail_msg("naive: only %u false PASS, %u false FAIL of %u", npass, nfail, runs);
	print_message("at BER = target, %u runs: corrected %u PASS %u FAIL, naive %u PASS %u FAIL\n", runs, pass, fail,
		      npass, nfail);
}

static void test_edges(void **state)
{
	(void)state;
	struct apenet_ber_sched s = sched(1e-12, 0.95, 0, 0);
	struct apenet_ber_decision d;
	struct apenet_ber_est est;
	struct apenet_err e;
	/* nothing checked yet */
	assert_int_equal(apenet_ber_decide(&s, 0, 0, &d, &e), 0);
	assert_true(d.verdict == APENET_BER_CONTINUE && isnan(d.est.ber) && isinf(d.est.upper) && d.est.lower == 0);
	near(d.bits_to_pass, 1.005 * 2.995732e12, 1e-6);
	/* a counter's worth of clean bits */
	assert_int_equal(apenet_ber_decide(&s, 0, UINT64_MAX, &d, &e), 0);
	assert_true(d.verdict == APENET_BER_PASS);
	near(d.est.upper, 2.995732 / 18446744073709551615.0, 1e-6);
	/* every bit wrong */
	assert_int_equal(apenet_ber_decide(&s, 1000, 1000, &d, &e), 0);
	assert_true(d.verdict == APENET_BER_FAIL && d.est.ber == 1);
	/* refused */
	assert_int_equal(apenet_ber_decide(&s, 5, 4, &d, &e), -1);
	assert_non_null(strstr(e.msg, "more errors than bits"));
	assert_int_equal(apenet_ber_judge(&s, 5, 4), APENET_BER_CONTINUE);
	assert_int_equal(apenet_ber_estimate(0, 10, 1, &est, &e), -1);
	assert_int_equal(apenet_ber_estimate(0, 10, 0, &est, &e), -1);
	assert_int_equal(apenet_ber_estimate(0, 10, NAN, &est, &e), -1);
	assert_true(isnan(apenet_ber_min_bits(0, 0, 0.95)) && isnan(apenet_ber_min_bits(0, 1e-12, 1)) &&
		    isnan(apenet_ber_min_bits(0, -1, 0.95)));
	struct apenet_ber_sched t;
	struct apenet_ber_opts o = { 0 };
	static const double bad_targets[] = { 0, -1e-12, 0.5, NAN, INFINITY };
	for (unsigned i = 0; i < sizeof(bad_targets) / sizeof(bad_targets[0]); i++) {
		assert_int_equal(apenet_ber_sched_init(&t, bad_targets[i], 0.95, NULL, &e), -1);
		assert_non_null(strstr(e.msg, "target"));
	}
	static const double bad_cls[] = { 0, 0.49, 1, 0.9999999, NAN, -0.95 };
	for (unsigned i = 0; i < sizeof(bad_cls) / sizeof(bad_cls[0]); i++) {
		assert_int_equal(apenet_ber_sched_init(&t, 1e-12, bad_cls[i], NULL, &e), -1);
		assert_non_null(strstr(e.msg, "confidence"));
	}
	o.zero_overhead = 0.99;
	assert_int_equal(apenet_ber_sched_init(&t, 1e-12, 0.95, &o, &e), -1);
	o.zero_overhead = 2.5;
	assert_int_equal(apenet_ber_sched_init(&t, 1e-12, 0.95, &o, &e), -1);
	o.zero_overhead = NAN;
	assert_int_equal(apenet_ber_sched_init(&t, 1e-12, 0.95, &o, &e), -1);
	assert_non_null(strstr(e.msg, "overhead"));
	o.zero_overhead = 0;
	o.fail_family = APENET_BER_FAMILY_MAX + 1;
	assert_int_equal(apenet_ber_sched_init(&t, 1e-12, 0.95, &o, &e), -1);
	/* the limits themselves are accepted */
	assert_int_equal(apenet_ber_sched_init(&t, APENET_BER_TARGET_MAX, APENET_BER_CL_MAX, NULL, &e), 0);
	assert_int_equal(apenet_ber_sched_init(&t, 1e-300, APENET_BER_CL_MIN, NULL, &e), 0);
	assert_true(isfinite(apenet_ber_pass_bits(&t, 3)) && apenet_ber_pass_bits(&t, 3) > 1e300);
	assert_string_equal(apenet_ber_verdict_name(APENET_BER_PASS), "pass");
	assert_string_equal(apenet_ber_verdict_name(APENET_BER_FAIL), "fail");
	assert_string_equal(apenet_ber_verdict_name(APENET_BER_CONTINUE), "continue");
}

static void test_pool(void **state)
{
	(void)state;
	struct apenet_ber_count lanes[4] = { { 1000, 1 }, { 2000, 0 }, { 3000, 2 }, { 4000, 0 } }, sum;
	struct apenet_err e;
	assert_int_equal(apenet_ber_pool(lanes, 4, &sum, &e), 0);
	assert_true(sum.bits == 10000 && sum.errors == 3);
	assert_int_equal(apenet_ber_pool(lanes, 0, &sum, &e), 0);
	assert_true(sum.bits == 0 && sum.errors == 0);
	struct apenet_ber_count big[2] = { { UINT64_MAX - 5, 0 }, { 6, 0 } };
	assert_int_equal(apenet_ber_pool(big, 2, &sum, &e), -1);
	assert_non_null(strstr(e.msg, "overflows"));
	struct apenet_ber_count odd[1] = { { 3, 4 } };
	assert_int_equal(apenet_ber_pool(odd, 1, &sum, &e), -1);
	/* four clean lanes at 7.5e11 bits each: none passes alone, the pool does */
	struct apenet_ber_sched s = sched(1e-12, 0.95, 0, 0);
	struct apenet_ber_count four[4] = { { 760000000000ull, 0 }, { 760000000000ull, 0 }, { 760000000000ull, 0 },
					    { 760000000000ull, 0 } };
	assert_int_equal(apenet_ber_judge(&s, 0, four[0].bits), APENET_BER_CONTINUE);
	assert_int_equal(apenet_ber_pool(four, 4, &sum, &e), 0);
	assert_int_equal(apenet_ber_judge(&s, sum.errors, sum.bits), APENET_BER_PASS);

	enum apenet_ber_verdict pp[] = { APENET_BER_PASS, APENET_BER_PASS }, pc[] = { APENET_BER_PASS, APENET_BER_CONTINUE },
				cf[] = { APENET_BER_CONTINUE, APENET_BER_FAIL };
	assert_int_equal(apenet_ber_combine(pp, 2), APENET_BER_PASS);
	assert_int_equal(apenet_ber_combine(pc, 2), APENET_BER_CONTINUE);
	assert_int_equal(apenet_ber_combine(cf, 2), APENET_BER_FAIL);
	assert_int_equal(apenet_ber_combine(pp, 0), APENET_BER_CONTINUE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_errors),	 cmocka_unit_test(test_chi2_tables),
		cmocka_unit_test(test_bounds_monotone),	 cmocka_unit_test(test_schedule_points),
		cmocka_unit_test(test_schedule_monotone), cmocka_unit_test(test_decisions),
		cmocka_unit_test(test_options),		 cmocka_unit_test(test_error_rates),
		cmocka_unit_test(test_edges),		 cmocka_unit_test(test_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
