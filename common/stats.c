/*
 * Poisson confidence bounds through the regularized incomplete gamma
 * function: P(X >= k | mu) = P(k, mu) and P(X <= k | mu) = 1 - P(k + 1, mu).
 * The bound is found by bisection on mu, which is monotone in both; 200
 * halvings of a bracket that starts at [0, k + 50 sqrt(k+1) + 50] reach
 * double precision.  Past LARGE_K events the gamma series would need ~sqrt(k)
 * terms: there the Wilson-Hilferty form of the chi-square quantile is exact
 * to far better than a counter's own noise.
 */
#include <math.h>

#include "apenet/stats.h"

#define LARGE_K 100000

/* z with Phi(z) = p, by bisection on erfc (no dependency, called rarely). */
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

/* Series for x < a + 1, continued fraction (Lentz) otherwise. */
double apenet_gamma_p(double a, double x)
{
	if (x <= 0 || a <= 0)
		return 0;
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
		return sum * exp(pre);
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
	return 1 - exp(pre) * h; /* Q(a, x) = exp(pre) * h */
}

static double upper_end(uint64_t k)
{
	double kk = (double)k;
	return kk + 50 * sqrt(kk + 1) + 50;
}

/* The mu in [lo, hi] where f(mu) crosses target; f increasing in mu. */
static double bisect(double (*f)(double a, double mu), double a, double target, double lo, double hi)
{
	for (int i = 0; i < 200 && hi - lo > 1e-15 * (hi > 1 ? hi : 1); i++) {
		double mid = 0.5 * (lo + hi);
		if (f(a, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

double apenet_poisson_lower(uint64_t k, double cl)
{
	if (k == 0 || !(cl > 0 && cl < 1))
		return 0;
	if (k > LARGE_K)
		return wilson_hilferty((double)k, -norm_quantile(cl));
	/* P(X >= k | mu) = P(k, mu) rises with mu: find where it reaches 1 - cl */
	return bisect(apenet_gamma_p, (double)k, 1 - cl, 0, upper_end(k));
}

static double cdf_tail(double a, double mu)
{
	/* 1 - P(X <= k | mu) = P(k + 1, mu), increasing in mu */
	return apenet_gamma_p(a, mu);
}

double apenet_poisson_upper(uint64_t k, double cl)
{
	if (!(cl > 0 && cl < 1))
		return INFINITY;
	if (k == 0)
		return -log(1 - cl);
	if (k > LARGE_K)
		return wilson_hilferty((double)k + 1, norm_quantile(cl));
	/* P(X <= k | mu) = 1 - cl  <=>  P(k + 1, mu) = cl */
	return bisect(cdf_tail, (double)k + 1, cl, 0, upper_end(k));
}
