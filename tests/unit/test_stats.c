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
	near(apenet_poisson_upper(0, 0.95), 2.995732, 1e-6); /* the "3/N" of SPEC §5 */
	near(apenet_poisson_upper(0, 0.90), 2.302585, 1e-6);
	assert_true(apenet_poisson_lower(0, 0.95) == 0);
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
		near(apenet_poisson_lower(t[i].k, 0.95), t[i].lo, t[i].k == 100 ? 1e-3 : 1e-5);
		near(apenet_poisson_upper(t[i].k, 0.95), t[i].hi, t[i].k == 100 ? 1e-3 : 1e-5);
	}
}

static void test_monotone_and_huge(void **state)
{
	(void)state;
	double prev = 0;
	for (uint64_t k = 1; k < 200; k++) {
		double lo = apenet_poisson_lower(k, 0.99), hi = apenet_poisson_upper(k, 0.99);
		assert_true(lo > prev && lo < (double)k && hi > (double)k);
		prev = lo;
	}
	/* a counter's worth of events: the bounds close in on k */
	double k = 1e12;
	near(apenet_poisson_lower((uint64_t)k, 0.95), k - 1.644854 * sqrt(k), 1e-9);
	near(apenet_poisson_upper((uint64_t)k, 0.95), k + 1.644854 * sqrt(k), 1e-9);
	/* both sides of LARGE_K agree */
	near(apenet_poisson_lower(100000, 0.95), apenet_poisson_lower(100001, 0.95) - 1, 1e-6);
	near(apenet_poisson_upper(100000, 0.95), apenet_poisson_upper(100001, 0.95) - 1, 1e-6);
	/* nonsense confidence: no bound */
	assert_true(apenet_poisson_lower(5, 1.0) == 0 && isinf(apenet_poisson_upper(5, 0)));
}

static void test_gamma_p(void **state)
{
	(void)state;
	near(apenet_gamma_p(1, 1), 1 - exp(-1), 1e-12);
	near(apenet_gamma_p(3, 10), 1 - exp(-10) * (1 + 10 + 50), 1e-12);
	near(apenet_gamma_p(0.5, 2), erf(sqrt(2)), 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_events),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_monotone_and_huge),
		cmocka_unit_test(test_gamma_p),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
