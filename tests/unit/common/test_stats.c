/* Poisson confidence bounds against published tables (one-sided, e.g.
 * Gehrels 1986 / the chi-square relation mu = chi2(2k or 2k+2) / 2). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apenet/stats.h"

static void near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want))
		fail_msg("got %.6g, want %.6g", got, want);
}

static void test_zero_events(void **state)
{
	(void)state;
	near(apenet_stats_poisson_upper(0, 0.95), 2.995732, 1e-6); /* the "3/N" of SPEC §5 */
	near(apenet_stats_poisson_upper(0, 0.90), 2.302585, 1e-6);
	assert_true(apenet_stats_poisson_lower(0, 0.95) == 0);
}

static void test_table(void **state)
{
	(void)state;
	/* k, lower 95%, upper 95% (chi-square: 0.5 chi2_{0.05}(2k), 0.5 chi2_{0.95}(2k+2)) */
	static const struct { uint64_t k; double lo, hi; } t[] = {
		{ 1, 0.051293, 4.743865 }, { 2, 0.355362, 6.295794 }, { 3, 0.817691, 7.753657 },
		{ 10, 5.425405, 16.962160 }, { 100, 84.14, 118.08 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		near(apenet_stats_poisson_lower(t[i].k, 0.95), t[i].lo, t[i].k == 100 ? 1e-3 : 1e-5);
		near(apenet_stats_poisson_upper(t[i].k, 0.95), t[i].hi, t[i].k == 100 ? 1e-3 : 1e-5);
	}
}

static void test_monotone_and_huge(void **state)
{
	(void)state;
	double prev = 0;
	for (uint64_t k = 1; k < 200; k++) {
		double lo = apenet_stats_poisson_lower(k, 0.99), hi = apenet_stats_poisson_upper(k, 0.99);
		assert_true(lo > prev && lo < (double)k && hi > (double)k);
		prev = lo;
	}
	/* a counter's worth of events: the bounds close in on k */
	double k = 1e12;
	near(apenet_stats_poisson_lower((uint64_t)k, 0.95), k - 1.644854 * sqrt(k), 1e-9);
	near(apenet_stats_poisson_upper((uint64_t)k, 0.95), k + 1.644854 * sqrt(k), 1e-9);
	/* both sides of LARGE_K agree */
	near(apenet_stats_poisson_lower(100000, 0.95), apenet_stats_poisson_lower(100001, 0.95) - 1, 1e-6);
	near(apenet_stats_poisson_upper(100000, 0.95), apenet_stats_poisson_upper(100001, 0.95) - 1, 1e-6);
	/* nonsense confidence: no bound */
	assert_true(apenet_stats_poisson_lower(5, 1.0) == 0 && isinf(apenet_stats_poisson_upper(5, 0)));
}

static void test_gamma_p(void **state)
{
	(void)state;
	near(apenet_stats_gamma_p(1, 1), 1 - exp(-1), 1e-12);
	near(apenet_stats_gamma_p(3, 10), 1 - exp(-10) * (1 + 10 + 50), 1e-12);
	near(apenet_stats_gamma_p(0.5, 2), erf(sqrt(2)), 1e-12);
}

/* The extensions the BER schedule needs: Q where it is tiny, tails by their
 * probability, the Poisson distribution itself, chi-square quantiles. */
static void test_tails(void **state)
{
	(void)state;
	near(apenet_stats_gamma_q(3, 10), exp(-10) * (1 + 10 + 50), 1e-12);
	near(apenet_stats_gamma_q(0.5, 2), erfc(sqrt(2)), 1e-12);
	near(apenet_stats_gamma_p(2, 0.5) + apenet_stats_gamma_q(2, 0.5), 1, 1e-15);
	/* Q far below what 1 - P can express */
	near(apenet_stats_gamma_q(1, 50), exp(-50), 1e-12);
	near(apenet_stats_poisson_cdf(0, 40), exp(-40), 1e-12);
	near(apenet_stats_poisson_sf(1, 1e-10), 1e-10, 1e-9); /* 1 - e^-mu: not cancelled away */
	assert_true(apenet_stats_poisson_sf(0, 3) == 1 && apenet_stats_poisson_cdf(5, 0) == 1 && apenet_stats_poisson_sf(2, 0) == 0);
	double sum = 0;
	for (uint64_t n = 0; n <= 200; n++)
		sum += apenet_stats_poisson_pmf(n, 37.5);
	near(sum, 1, 1e-12);
	near(apenet_stats_poisson_pmf(3, 2), 8.0 / 6 * exp(-2), 1e-12);
	near(apenet_stats_poisson_cdf(3, 2), exp(-2) * (1 + 2 + 2 + 8.0 / 6), 1e-12);
	/* bounds by tail probability: the same as by cl where both work, and
	 * solving P(X <= k) = a to the last digits where 1 - cl cannot */
	near(apenet_stats_poisson_upper_tail(4, 0.05), apenet_stats_poisson_upper(4, 0.95), 1e-12);
	near(apenet_stats_poisson_lower_tail(4, 0.05), apenet_stats_poisson_lower(4, 0.95), 1e-12);
	near(apenet_stats_poisson_upper_tail(0, 1e-20), 20 * log(10), 1e-14);
	for (uint64_t k = 1; k < 300; k += 37) {
		double up = apenet_stats_poisson_upper_tail(k, 1e-18), lo = apenet_stats_poisson_lower_tail(k, 1e-18);
		near(apenet_stats_poisson_cdf(k, up), 1e-18, 1e-9);
		near(apenet_stats_poisson_sf(k, lo), 1e-18, 1e-9);
	}
	/* past LARGE_K: Wilson-Hilferty at a tiny tail (z = 8.4937932 for 1e-17),
	 * n + z sqrt(n) + (z^2 - 1) / 3 + z^3 / (27 sqrt n), n = k + 1 (upper) or k (lower, -z) */
	double k = 1e8, z = 8.4937932241, n = k + 1;
	near(apenet_stats_poisson_upper_tail((uint64_t)k, 1e-17), n + z * sqrt(n) + (z * z - 1) / 3 + z * z * z / 27 / sqrt(n), 1e-11);
	near(apenet_stats_poisson_lower_tail((uint64_t)k, 1e-17), k - z * sqrt(k) + (z * z - 1) / 3 - z * z * z / 27 / sqrt(k), 1e-11);
	assert_true(isinf(apenet_stats_poisson_upper_tail(3, 0)) && apenet_stats_poisson_lower_tail(3, 1) == 0);
}

static void test_chi2_quantile(void **state)
{
	(void)state;
	/* Abramowitz & Stegun table 26.8 (upper and lower points) */
	near(apenet_stats_chi2_quantile(0.95, 1), 3.841459, 1e-6);
	near(apenet_stats_chi2_quantile(0.95, 2), 5.991465, 1e-6);
	near(apenet_stats_chi2_quantile(0.99, 10), 23.209251, 1e-6);
	near(apenet_stats_chi2_quantile(0.05, 10), 3.940299, 1e-6);
	near(apenet_stats_chi2_quantile(0.01, 3), 0.114832, 1e-5);
	near(apenet_stats_chi2_quantile(0.5, 30), 29.336032, 1e-6);
	near(apenet_stats_chi2_quantile(0.999, 100), 149.449252, 1e-6);
	/* the Poisson bounds are chi-square quantiles: chi2_cl(2k+2) / 2 and chi2_{1-cl}(2k) / 2 */
	for (uint64_t k = 1; k <= 20; k++) {
		near(apenet_stats_poisson_upper(k, 0.9), apenet_stats_chi2_quantile(0.9, 2.0 * k + 2) / 2, 1e-10);
		near(apenet_stats_poisson_lower(k, 0.9), apenet_stats_chi2_quantile(0.1, 2.0 * k) / 2, 1e-10);
	}
	assert_true(isnan(apenet_stats_chi2_quantile(1, 4)) && isnan(apenet_stats_chi2_quantile(0.5, 0)) &&
		    isnan(apenet_stats_chi2_quantile(0.5, INFINITY)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_events),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_monotone_and_huge),
		cmocka_unit_test(test_gamma_p),
		cmocka_unit_test(test_tails),
		cmocka_unit_test(test_chi2_quantile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
