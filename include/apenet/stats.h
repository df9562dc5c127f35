/*
 * Counting statistics with no dependency: confidence bounds on the mean of
 * a Poisson count.  The verdict rules use them to tell a rate from noise (a
 * rate fires only when its lower bound clears the threshold), and BER tests
 * use the same bounds on bit errors (k errors in N bits: BER < upper / N).
 */
#ifndef APENET_STATS_H
#define APENET_STATS_H

#include <stdint.h>

/* Regularized lower incomplete gamma P(a, x), a > 0, x >= 0. */
double apenet_gamma_p(double a, double x);

/* One-sided bounds at confidence cl (0 < cl < 1) on the Poisson mean mu
 * after observing k events:
 *   lower: the mu with P(X >= k | mu) = 1 - cl (0 when k == 0);
 *   upper: the mu with P(X <= k | mu) = 1 - cl (-ln(1 - cl) when k == 0). */
double apenet_poisson_lower(uint64_t k, double cl);
double apenet_poisson_upper(uint64_t k, double cl);

#endif
