/*
 * BER statistics and the sequential decision schedule (include/apenet/
 * ber_stats.h, docs/ber.md).
 *
 * The schedule works in expected errors at the target, mu = bits x target,
 * so it depends on the CL and the spending only.  Its two sides are placed
 * apart, each against the Poisson process at BER = target, the worst case
 * for both (a higher BER only makes a PASS rarer and a FAIL likelier, and a
 * lower BER the reverse; the other side's stops can only make a wrong
 * decision rarer still):
 *
 * PASS: look j is at mu_j, where a path with at most j errors passes.  A
 * path not passed by look j - 1 has at least j errors, so it passes at look
 * j only with exactly j at mu_{j-1} and none since.  The forward recursion
 * carries the distribution of the error count of the paths still running
 * (counts 0..EXACT; a larger count can never pass an exact look) and puts
 * mu_j where the probability of passing there is alpha w_j:
 *   w_0 = pass_share = alpha^(zero_overhead - 1)   (mu_0 = zero_overhead x -ln alpha)
 *   w_j = (1 - pass_share) 6 / (pi^2 j^2)           (j >= 1; sum of all w_j = 1)
 * never below the fixed-sample bound: mu_j >= upper_mu(j, cl).
 *
 * FAIL: look k fails a path whose k-th error comes before lambda_k.  Paths
 * still running after look k - 1 have at most k - 2 errors at lambda_{k-1};
 * lambda_k is put where the probability of reaching k errors by then is
 * alpha w_k / fail_family, w_k = 6 / (pi^2 k^2) (k >= 1), never above the
 * fixed-sample bound lower_mu(k, cl).
 *
 * Past APENET_BER_EXACT_LOOKS looks the points are the fixed-sample bounds
 * at the look's own share of alpha (Bonferroni: the probability of a union
 * is at most the exact probability of the first looks plus the sum of the
 * later looks' own), kept monotone.  All sums converge: any number of
 * looks, any budget.
 */
#include <math.h>
#include <string.h>

#include "apenet/ber_stats.h"
#include "apenet/stats.h"

#define EXACT APENET_BER_EXACT_LOOKS
#define SIX_OVER_PI2 0.60792710185402662866 /* 6 / pi^2: sum of 1/j^2 over j >= 1 is pi^2 / 6 */

const char *apenet_ber_verdict_name(enum apenet_ber_verdict v)
{
	switch (v) {
	case APENET_BER_PASS:
		return "pass";
	case APENET_BER_FAIL:
		return "fail";
	default:
		return "continue";
	}
}

int apenet_ber_estimate(uint64_t errors, uint64_t bits, double cl, struct apenet_ber_est *e, struct apenet_err *err)
{
	if (!(cl > 0 && cl < 1))
		return apenet_err_set(err, APENET_EINVAL, "confidence %g is not between 0 and 1", cl);
	if (errors > bits)
		return apenet_err_set(err, APENET_EINVAL, "%llu errors in %llu bits: more errors than bits checked",
				      (unsigned long long)errors, (unsigned long long)bits);
	e->bits = bits;
	e->errors = errors;
	e->cl = cl;
	double n = (double)bits;
	e->ber = bits ? (double)errors / n : NAN;
	e->lower = bits ? apenet_stats_poisson_lower(errors, cl) / n : 0;
	e->upper = bits ? apenet_stats_poisson_upper(errors, cl) / n : INFINITY;
	return 0;
}

double apenet_ber_min_bits(uint64_t errors, double target, double cl)
{
	if (!(target > 0) || !(cl > 0 && cl < 1))
		return NAN;
	return apenet_stats_poisson_upper(errors, cl) / target;
}

/* --- the exact recursion --------------------------------------------------- */

/* pmf[i] = P(Poisson(d) = i), i = 0..n; lgf[i] = ln i!. */
static void pois_row(const double *lgf, double d, unsigned n, double *pmf)
{
	if (!(d > 0)) {
		for (unsigned i = 0; i <= n; i++)
			pmf[i] = i == 0;
		return;
	}
	double ld = log(d);
	for (unsigned i = 0; i <= n; i++)
		pmf[i] = exp((double)i * ld - d - lgf[i]);
}

/* The running paths' count distribution d expected errors later. */
static void evolve(double *dist, const double *lgf, double d, double *pmf, double *tmp)
{
	pois_row(lgf, d, EXACT, pmf);
	for (unsigned n = 0; n <= EXACT; n++) {
		double s = 0;
		for (unsigned m = 0; m <= n; m++)
			s += dist[m] * pmf[n - m];
		tmp[n] = s;
	}
	memcpy(dist, tmp, sizeof(tmp[0]) * (EXACT + 1));
}

/* Probability that a running path has at most j errors d later (sums of
 * positive terms only: exact down to tiny values). */
static double pass_cross(const double *dist, const double *lgf, unsigned j, double d, double *pmf)
{
	pois_row(lgf, d, j, pmf);
	double cdf = 0, s = 0;
	for (unsigned r = 0; r <= j; r++) {
		cdf += pmf[r];
		s += dist[j - r] * cdf;
	}
	return s;
}

/* Probability that a running path (at most k - 1 errors) has reached k
 * errors d later: tails P(Poisson(d) >= r) from the gamma function at r = k
 * and sums of positive terms below. */
static double fail_cross(const double *dist, const double *lgf, unsigned k, double d, double *pmf)
{
	if (!(d > 0))
		return 0;
	pois_row(lgf, d, k, pmf);
	double tail = apenet_stats_poisson_sf(k, d), s = dist[0] * tail;
	for (unsigned r = k - 1; r >= 1; r--) {
		tail += pmf[r];
		s += dist[k - r] * tail;
	}
	return s;
}

static double pass_weight(const struct apenet_ber_sched *s, uint64_t j)
{
	if (j == 0)
		return s->pass_share;
	double jj = (double)j;
	return (1 - s->pass_share) * SIX_OVER_PI2 / (jj * jj);
}

static double fail_weight(const struct apenet_ber_sched *s, uint64_t k)
{
	double kk = (double)k;
	return SIX_OVER_PI2 / (kk * kk) / s->fail_family;
}

static void build_pass(struct apenet_ber_sched *s, const double *lgf)
{
	double dist[EXACT + 1] = { 1 }, pmf[EXACT + 1], tmp[EXACT + 1], t = 0;
	s->pass_spent = 0;
	for (unsigned j = 0; j < EXACT; j++) {
		double budget = s->alpha * pass_weight(s, j);
		if (!(budget > 0)) { /* the zero-error test: nothing left to spend */
			for (; j < EXACT; j++)
				s->pass_mu[j] = INFINITY;
			return;
		}
		double lo = apenet_stats_poisson_upper(j, s->cl), mu;
		if (lo < t)
			lo = t;
		if (pass_cross(dist, lgf, j, lo - t, pmf) <= budget) {
			mu = lo;
		} else {
			double step = 1, hi = lo + step;
			while (pass_cross(dist, lgf, j, hi - t, pmf) > budget) {
				step *= 2;
				hi = lo + step;
			}
			for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
				double mid = 0.5 * (lo + hi);
				if (pass_cross(dist, lgf, j, mid - t, pmf) > budget)
					lo = mid;
				else
					hi = mid;
			}
			mu = hi; /* the side that spends at most the budget */
		}
		s->pass_mu[j] = mu;
		s->pass_spent += pass_cross(dist, lgf, j, mu - t, pmf);
		evolve(dist, lgf, mu - t, pmf, tmp);
		t = mu;
		for (unsigned n = 0; n <= j; n++)
			dist[n] = 0; /* passed */
	}
}

static void build_fail(struct apenet_ber_sched *s, const double *lgf)
{
	double dist[EXACT + 1] = { 1 }, pmf[EXACT + 1], tmp[EXACT + 1], t = 0;
	s->fail_mu[0] = 0;
	s->fail_spent = 0;
	for (unsigned k = 1; k < EXACT; k++) {
		double budget = s->alpha * fail_weight(s, k);
		double lo = t, hi = apenet_stats_poisson_lower(k, s->cl), lambda;
		if (fail_cross(dist, lgf, k, hi - t, pmf) <= budget) {
			lambda = hi;
		} else {
			for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
				double mid = 0.5 * (lo + hi);
				if (fail_cross(dist, lgf, k, mid - t, pmf) > budget)
					hi = mid;
				else
					lo = mid;
			}
			lambda = lo;
		}
		s->fail_mu[k] = lambda;
		s->fail_spent += fail_cross(dist, lgf, k, lambda - t, pmf);
		evolve(dist, lgf, lambda - t, pmf, tmp);
		t = lambda;
		for (unsigned n = k; n <= EXACT; n++)
			dist[n] = 0; /* failed */
	}
}

int apenet_ber_sched_init(struct apenet_ber_sched *s, double target, double cl, const struct apenet_ber_opts *o,
			  struct apenet_err *err)
{
	double zo = o && o->zero_overhead != 0 ? o->zero_overhead : APENET_BER_ZERO_OVERHEAD;
	unsigned fam = o && o->fail_family ? o->fail_family : 1;
	if (!(target > 0 && target <= APENET_BER_TARGET_MAX))
		return apenet_err_set(err, APENET_EINVAL, "target BER %g is not in (0, %g]", target, APENET_BER_TARGET_MAX);
	if (!(cl >= APENET_BER_CL_MIN && cl <= APENET_BER_CL_MAX))
		return apenet_err_set(err, APENET_EINVAL, "confidence %g is not in [%g, %g]", cl, APENET_BER_CL_MIN,
				      APENET_BER_CL_MAX);
	if (!(zo >= 1 && zo <= 2))
		return apenet_err_set(err, APENET_EINVAL, "zero-error overhead %g is not in [1, 2]", zo);
	if (fam > APENET_BER_FAMILY_MAX)
		return apenet_err_set(err, APENET_EINVAL, "a family of %u lanes is more than %u", fam,
				      APENET_BER_FAMILY_MAX);
	memset(s, 0, sizeof(*s));
	s->target = target;
	s->cl = cl;
	s->alpha = 1 - cl;
	s->zero_overhead = zo;
	s->fail_family = fam;
	s->pass_share = pow(s->alpha, zo - 1);
	double lgf[EXACT + 1];
	for (unsigned i = 0; i <= EXACT; i++)
		lgf[i] = lgamma((double)i + 1);
	build_pass(s, lgf);
	build_fail(s, lgf);
	return 0;
}

/* --- looks ----------------------------------------------------------------- */

static double pass_mu(const struct apenet_ber_sched *s, uint64_t k)
{
	if (k < EXACT)
		return s->pass_mu[k];
	double a = s->alpha * pass_weight(s, k), last = s->pass_mu[EXACT - 1];
	if (!(a > 0) || isinf(last))
		return INFINITY;
	double mu = apenet_stats_poisson_upper_tail(k, a);
	return mu > last ? mu : last;
}

/* Past the exact looks, never below the last exact point: k errors before
 * it mean that the (EXACT - 1)-th came before it too, a FAIL already
 * counted, so the raise adds no way to fail (and a bound that shrinks with
 * more errors would read oddly). */
static double fail_mu(const struct apenet_ber_sched *s, uint64_t k)
{
	if (k < EXACT)
		return s->fail_mu[k];
	double mu = apenet_stats_poisson_lower_tail(k, s->alpha * fail_weight(s, k)), naive = apenet_stats_poisson_lower(k, s->cl);
	if (mu > naive)
		mu = naive;
	return mu > s->fail_mu[EXACT - 1] ? mu : s->fail_mu[EXACT - 1];
}

double apenet_ber_pass_bits(const struct apenet_ber_sched *s, uint64_t errors)
{
	return pass_mu(s, errors) / s->target;
}

double apenet_ber_fail_bits(const struct apenet_ber_sched *s, uint64_t errors)
{
	return fail_mu(s, errors) / s->target;
}

double apenet_ber_pass_cl(const struct apenet_ber_sched *s, uint64_t errors)
{
	double mu = pass_mu(s, errors);
	return isinf(mu) ? 1 : 1 - apenet_stats_poisson_cdf(errors, mu);
}

enum apenet_ber_verdict apenet_ber_judge(const struct apenet_ber_sched *s, uint64_t errors, uint64_t bits)
{
	if (errors > bits)
		return APENET_BER_CONTINUE;
	double n = (double)bits;
	if (errors > 0 && n < apenet_ber_fail_bits(s, errors))
		return APENET_BER_FAIL;
	if (bits > 0 && n >= apenet_ber_pass_bits(s, errors))
		return APENET_BER_PASS;
	return APENET_BER_CONTINUE;
}

int apenet_ber_decide(const struct apenet_ber_sched *s, uint64_t errors, uint64_t bits, struct apenet_ber_decision *d,
		      struct apenet_err *err)
{
	memset(d, 0, sizeof(*d));
	if (apenet_ber_estimate(errors, bits, s->cl, &d->est, err))
		return -1;
	d->verdict = apenet_ber_judge(s, errors, bits);
	d->min_bits = apenet_ber_min_bits(errors, s->target, s->cl);
	d->pass_bits = apenet_ber_pass_bits(s, errors);
	d->fail_bits = apenet_ber_fail_bits(s, errors);
	d->pass_cl = apenet_ber_pass_cl(s, errors);
	d->overhead = (double)bits / d->min_bits;
	switch (d->verdict) {
	case APENET_BER_PASS:
		d->bits_to_pass = 0;
		break;
	case APENET_BER_FAIL:
		d->bits_to_pass = NAN;
		break;
	default:
		d->bits_to_pass = d->pass_bits - (double)bits;
	}
	return 0;
}

int apenet_ber_pool(const struct apenet_ber_count *lanes, unsigned n, struct apenet_ber_count *sum,
		    struct apenet_err *err)
{
	struct apenet_ber_count t = { 0, 0 };
	for (unsigned i = 0; i < n; i++) {
		if (lanes[i].errors > lanes[i].bits)
			return apenet_err_set(err, APENET_EINVAL, "lane %u: %llu errors in %llu bits", i,
					      (unsigned long long)lanes[i].errors, (unsigned long long)lanes[i].bits);
		if (t.bits > UINT64_MAX - lanes[i].bits)
			return apenet_err_set(err, APENET_EINVAL, "the pooled bit count of %u lanes overflows 64 bits", n);
		t.bits += lanes[i].bits;
		t.errors += lanes[i].errors; /* errors <= bits: no overflow either */
	}
	*sum = t;
	return 0;
}

enum apenet_ber_verdict apenet_ber_combine(const enum apenet_ber_verdict *lanes, unsigned n)
{
	int all_pass = n > 0;
	for (unsigned i = 0; i < n; i++) {
		if (lanes[i] == APENET_BER_FAIL)
			return APENET_BER_FAIL;
		if (lanes[i] != APENET_BER_PASS)
			all_pass = 0;
	}
	return all_pass ? APENET_BER_PASS : APENET_BER_CONTINUE;
}
