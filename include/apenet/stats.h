/*
 * Counting statistics with no dependency: confidence bounds on the mean of
 * a Poisson count.  The verdict rules use them to tell a rate from noise (a
 * rate fires only when its lower bound clears the threshold), and BER tests
 * use the same bounds on bit errors (k errors in N bits: BER < upper / N;
 * include/apenet/ber_stats.h).
 */
#ifndef APENET_STATS_H
#define APENET_STATS_H

#include <stdint.h>

/* Regularized lower incomplete gamma P(a, x), a > 0, x >= 0, and the upper
 * Q(a, x) = 1 - P(a, x), each accurate where it is small. */
double apenet_stats_gamma_p(double a, double x);
double apenet_stats_gamma_q(double a, double x);

/* The Poisson distribution with mean mu >= 0: P(X = n), P(X <= k) and
 * P(X >= k) (1 for k == 0), each accurate down to tiny tails. */
double apenet_stats_poisson_pmf(uint64_t n, double mu);
double apenet_stats_poisson_cdf(uint64_t k, double mu);
double apenet_stats_poisson_sf(uint64_t k, double mu);

/* One-sided bounds at confidence cl (0 < cl < 1) on the Poisson mean mu
 * after observing k events:
 *   lower: the mu with P(X >= k | mu) = 1 - cl (0 when k == 0);
 *          = chi2_{1-cl}(2k) / 2;
 *   upper: the mu with P(X <= k | mu) = 1 - cl (-ln(1 - cl) when k == 0);
 *          = chi2_{cl}(2k + 2) / 2.
 * Outside 0 < cl < 1: lower 0, upper infinity. */
double apenet_stats_poisson_lower(uint64_t k, double cl);
double apenet_stats_poisson_upper(uint64_t k, double cl);
/* The same, given the tail probability a = 1 - cl (0 < a < 1): exact for
 * tails far below what 1 - cl can express (1e-15 and less). */
double apenet_stats_poisson_lower_tail(uint64_t k, double a);
double apenet_stats_poisson_upper_tail(uint64_t k, double a);

/* The chi-square quantile: x with P(chi2(dof) <= x) = p, 0 < p < 1, dof > 0
 * (NaN otherwise). */
double apenet_stats_chi2_quantile(double p, double dof);

#endif
