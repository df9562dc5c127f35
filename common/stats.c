/*
 * Poisson confidence bounds through the regularized incomplete gamma
 * function: P(X >= k | mu) = P(k, mu) and P(X <= k | mu) = Q(k + 1, mu) =
 * 1 - P(k + 1, mu).  The bound is found by bisection on mu, which is
 * monotone in both; 200 halvings of a bracket that starts at
 * [0, k + 50 sqrt(k+1) + 50] reach double precision.  Past LARGE_K events
 * the gamma series would need ~sqrt(k) terms: there the Wilson-Hilferty form
 * of the chi-square quantile is exact to far better than a counter's own
 * noise.
 *
 * Every bound is computed from its tail probability a = 1 - cl, never from
 * cl: the BER decision schedule (lofamo/ber_stats.c) asks for bounds at tail
 * probabilities of 1e-12 and below, where 1 - (1 - a) has lost the digits.
 * P and Q each come from the side of the function where they are not a
 * difference of two numbers near 1.
 */
#include <math.h>

#include "apenet/stats.h"

#define LARGE_K 100000

/* z with Phi(z) = p, by bisection on erfc (no dependency, called rarely).
 * Accurate for small p (the lower tail): Phi(z) there is erfc of a positive
 * argument, not 1 minus something. */
static double norm_quantile(double p)
{
	double lo = -40, hi = 40;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);
		if (0.5 * erfc(-mid / sqrt(2)) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* The Poisson bound from chi2 with 2n degrees of freedom at z: n (1 - 1/(9n) + z/(3 sqrt n))^3. */
static double wilson_hilferty(double n, double z)
{
	double t = 1 - 1 / (9 * n) + z / (3 * sqrt(n));
	return n * t * t * t;
}

/* P(a, x) and Q(a, x) = 1 - P(a, x): the series for x < a + 1 (P small or
 * moderate, Q = 1 - P), the continued fraction (Lentz) otherwise (Q small). */
static void gamma_pq(double a, double x, double *p, double *q)
{
	if (x <= 0 || a <= 0) {
		*p = 0;
		*q = 1;
		return;
	}
	double lg = lgamma(a), pre = a * log(x) - x - lg;
	if (x < a + 1) {
		double sum = 1.0 / a, term = sum, ap = a;
		for (int n = 0; n < 100000; n++) {
			ap += 1;
			term *= x / ap;
			sum += term;
			if (fabs(term) < fabs(sum) * 1e-16)
				break;
		}
		*p = sum * exp(pre);
		*q = 1 - *p;
		return;
	}
	const double tiny = 1e-300;
	double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-16)
			break;
	}
	*q = exp(pre) * h;
	*p = 1 - *q;
}

double apenet_stats_gamma_p(double a, double x)
{
	double p, q;
	gamma_pq(a, x, &p, &q);
	return p;
}

double apenet_stats_gamma_q(double a, double x)
{
	double p, q;
	gamma_pq(a, x, &p, &q);
	return q;
}

double apenet_stats_poisson_cdf(uint64_t k, double mu)
{
	return mu > 0 ? apenet_stats_gamma_q((double)k + 1, mu) : 1;
}

double apenet_stats_poisson_sf(uint64_t k, double mu)
{
	if (k == 0)
		return 1;
	return mu > 0 ? apenet_stats_gamma_p((double)k, mu) : 0;
}

double apenet_stats_poisson_pmf(uint64_t n, double mu)
{
	if (!(mu > 0))
		return n == 0 ? 1 : 0;
	double nn = (double)n;
	return exp(nn * log(mu) - mu - lgamma(nn + 1));
}

static double upper_end(uint64_t k)
{
	double kk = (double)k;
	return kk + 50 * sqrt(kk + 1) + 50;
}

/* The mu in [lo, hi] where f(mu) crosses target; f increasing in mu when
 * rising, else decreasing.  To 1e-15 relative: a lower bound at a tiny tail
 * is itself tiny (k = 1 at a = 1e-18: mu = 1e-18), so the halvings go on
 * until the bracket is narrow against its own end, not against 1. */
static double bisect(double (*f)(double a, double mu), double a, double target, int rising, double lo, double hi)
{
	for (int i = 0; i < 2000 && hi - lo > 1e-15 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if ((f(a, mid) < target) == !!rising)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double apenet_stats_poisson_lower_tail(uint64_t k, double a)
{
	if (k == 0 || !(a > 0 && a < 1))
		return 0;
	if (k > LARGE_K)
		return wilson_hilferty((double)k, norm_quantile(a));
	/* P(X >= k | mu) = P(k, mu) rises with mu: find where it reaches a */
	return bisect(apenet_stats_gamma_p, (double)k, a, 1, 0, upper_end(k));
}

double apenet_stats_poisson_upper_tail(uint64_t k, double a)
{
	if (!(a > 0 && a < 1))
		return INFINITY;
	if (k == 0)
		return -log(a);
	if (k > LARGE_K)
		return wilson_hilferty((double)k + 1, -norm_quantile(a));
	/* P(X <= k | mu) = Q(k + 1, mu) falls as mu rises: find where it reaches a */
	double hi = upper_end(k);
	while (apenet_stats_gamma_q((double)k + 1, hi) > a && hi < 1e300)
		hi *= 2; /* tails below ~1e-400 only */
	return bisect(apenet_stats_gamma_q, (double)k + 1, a, 0, 0, hi);
}

double apenet_stats_poisson_lower(uint64_t k, double cl)
{
	return cl > 0 && cl < 1 ? apenet_stats_poisson_lower_tail(k, 1 - cl) : 0;
}

double apenet_stats_poisson_upper(uint64_t k, double cl)
{
	return cl > 0 && cl < 1 ? apenet_stats_poisson_upper_tail(k, 1 - cl) : INFINITY;
}

static double chi2_cdf(double half_dof, double half_x)
{
	return apenet_stats_gamma_p(half_dof, half_x);
}

static double chi2_sf(double half_dof, double half_x)
{
	return apenet_stats_gamma_q(half_dof, half_x);
}

double apenet_stats_chi2_quantile(double p, double dof)
{
	if (!(p > 0 && p < 1) || !(dof > 0) || !isfinite(dof))
		return NAN;
	double a = dof / 2, hi = a + 50 * sqrt(a + 1) + 50;
	/* P(chi2 <= x) = P(dof/2, x/2); the upper half solved on Q, where p is near 1 */
	if (p <= 0.5) {
		while (chi2_cdf(a, hi) < p && hi < 1e300)
			hi *= 2;
		return 2 * bisect(chi2_cdf, a, p, 1, 0, hi);
	}
	while (chi2_sf(a, hi) > 1 - p && hi < 1e300)
		hi *= 2;
	return 2 * bisect(chi2_sf, a, 1 - p, 0, 0, hi);
}
