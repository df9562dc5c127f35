/*
 * The BER decision schedule (lofamo/ber_stats.c, docs/ber.md) on simulated
 * error streams: lanes at true BERs around the target, errors a Poisson
 * process (exponential gaps drawn with the emulator's RNG, sim/rng.c, as its
 * PRBS checkers draw theirs), counters read the way `apenet ber` will read
 * them: every second, and at the bit count where the lane would pass if no
 * more errors come (bits_to_pass / rate).  For each true BER: how often the
 * test passed, failed or ran out of budget, how often it was wrong, and at
 * a PASS the bits it used against the statistical minimum for the errors it
 * saw.  The same streams judged naively (the fixed-sample bounds at every
 * read) show what the correction is for; then the price of other
 * zero-error overheads.
 *   bench_ber_stats [RUNS]    (default 20000 streams per true BER)
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/sim.h" /* its RNG only: the emulator's error draws */
#include "apenet/ber_stats.h"
#include "apenet/stats.h"

#define TARGET 1e-12
#define CL 0.95
#define LANE_BPS 7e9       /* one lane at 7 Gbps */
#define READ_BITS LANE_BPS /* counters read every second */
#define BUDGET 100         /* give up after 100x the zero-error minimum (~12 h) */
#define K 1024             /* error counts with precomputed points (more: out of budget) */

/* A rule: PASS with k errors at pass[k] bits, FAIL while bits < fail[k]. */
struct rule {
	const char *name;
	double pass[K], fail[K];
};

struct outcome {
	unsigned pass, fail, open;
	double pass_bits, fail_bits; /* sums */
	double *ovh;                 /* bits / min_bits(errors seen), one per PASS */
	unsigned *errs;              /* errors seen, one per PASS */
};

static double min_bits[K];

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One stream: errors at exponential gaps of mean 1 / ber bits.  Between two
 * errors the count is constant: a PASS comes at the pass point if it lies
 * before the next error (the runner wakes there), a FAIL at the first read
 * after an error (on the second grid), if no other error came first and the
 * bits read are still below the FAIL point.  wake: 0 reads on the grid only. */
static void stream(const struct rule *r, struct sim_rng *g, double ber, int wake, struct outcome *o)
{
	double t = 0, next = -log1p(-sim_rng_uniform(g)) / ber, cap = BUDGET * min_bits[0];
	for (unsigned k = 0; k + 1 < K; k++) {
		double p = r->pass[k];
		if (!wake)
			p = ceil(p / READ_BITS) * READ_BITS;
		if (p < next && p <= cap) {
			o->ovh[o->pass] = p / min_bits[k];
			o->errs[o->pass] = k;
			o->pass_bits += p;
			o->pass++;
			return;
		}
		if (next > cap)
			break;
		t = next;
		next = t - log1p(-sim_rng_uniform(g)) / ber;
		double read = ceil(t / READ_BITS) * READ_BITS; /* the first read that sees error k + 1 */
		if (read < next && read < r->fail[k + 1]) {
			o->fail_bits += read;
			o->fail++;
			return;
		}
	}
	o->open++;
}

static void run(const struct rule *r, double rho, unsigned runs, int wake, uint64_t seed, struct outcome *o)
{
	struct sim_rng g;
	sim_rng_seed(&g, seed);
	memset(o, 0, offsetof(struct outcome, ovh));
	for (unsigned i = 0; i < runs; i++)
		stream(r, &g, rho * TARGET, wake, o);
}

static void schedule_rule(struct rule *r, const struct apenet_ber_sched *s, const char *name)
{
	r->name = name;
	for (unsigned k = 0; k < K; k++) {
		r->pass[k] = apenet_ber_pass_bits(s, k);
		r->fail[k] = apenet_ber_fail_bits(s, k);
	}
}

static void report(const char *name, double rho, unsigned runs, const struct outcome *o)
{
	double wrong = (rho >= 1 ? o->pass : 0) + (rho <= 1 ? o->fail : 0);
	printf("  %-9s %5.2f  %6.2f%% %6.2f%% %6.2f%%  %6.2f%%", name, rho, 100.0 * o->pass / runs,
	       100.0 * o->fail / runs, 100.0 * o->open / runs, 100.0 * wrong / runs);
	if (o->pass) {
		qsort(o->ovh, o->pass, sizeof(o->ovh[0]), cmp_dbl);
		double sum = 0, mean_k = 0;
		unsigned within = 0;
		for (unsigned i = 0; i < o->pass; i++) {
			sum += o->ovh[i];
			within += o->ovh[i] <= 1.01;
			mean_k += o->errs[i];
		}
		printf("  %6.2f  %7.4f %7.4f %7.4f  %6.1f%%  %7.2f", mean_k / o->pass, o->ovh[o->pass / 2], sum / o->pass,
		       o->ovh[(unsigned)(0.95 * (o->pass - 1))], 100.0 * within / o->pass,
		       o->pass_bits / o->pass / min_bits[0]);
	} else {
		printf("  %6s  %7s %7s %7s  %7s  %7s", "-", "-", "-", "-", "-", "-");
	}
	if (o->fail)
		printf("  %7.3f", o->fail_bits / o->fail / min_bits[0]);
	else
		printf("  %7s", "-");
	printf("\n");
}

int main(int argc, char **argv)
{
	unsigned runs = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
	if (runs < 100 || runs > 10000000) {
		fprintf(stderr, "usage: bench_ber_stats [RUNS 100..10000000]\n");
		return 2;
	}
	static const double rhos[] = { 0.01, 0.1, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 10 };
	static struct rule sched_r, naive_r, grid_r;
	struct apenet_ber_sched s;
	struct apenet_err e;
	if (apenet_ber_sched_init(&s, TARGET, CL, NULL, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 2;
	}
	for (unsigned k = 0; k < K; k++) {
		min_bits[k] = apenet_ber_min_bits(k, TARGET, CL);
		naive_r.pass[k] = min_bits[k];
		naive_r.fail[k] = apenet_stats_poisson_lower(k, CL) / TARGET;
	}
	naive_r.name = "naive";
	schedule_rule(&sched_r, &s, "schedule");
	grid_r = sched_r;
	struct outcome o = { .ovh = malloc(sizeof(double) * runs), .errs = malloc(sizeof(unsigned) * runs) };
	if (!o.ovh || !o.errs)
		return 2;

	printf("# BER decision schedule: target %g at %g%%, one lane at %g Gbps, counters read every second and at the\n"
	       "# pass point; %u streams per true BER, a budget of %dx the zero-error minimum (%.3g bits, %.1f h)\n",
	       TARGET, CL * 100, LANE_BPS / 1e9, runs, BUDGET, BUDGET * min_bits[0], BUDGET * min_bits[0] / LANE_BPS / 3600);
	printf("# exact probability of a wrong PASS at BER = target: %.5f over the first %d looks (+ <= %.1e Bonferroni); "
	       "of a wrong FAIL: %.5f (+ <= %.1e)\n",
	       s.pass_spent, APENET_BER_EXACT_LOOKS, s.alpha - s.pass_spent, s.fail_spent, s.alpha - s.fail_spent);
	printf("# looks: errors, statistical minimum, PASS point (x minimum, its one-look CL), FAIL point (x naive)\n");
	for (unsigned k = 0; k <= 5; k++)
		printf("  %u  %.4g  %.4g (%.3fx, %.5f)  %.4g (%.3fx)\n", k, min_bits[k], sched_r.pass[k],
		       sched_r.pass[k] / min_bits[k], apenet_ber_pass_cl(&s, k), sched_r.fail[k],
		       k ? sched_r.fail[k] / naive_r.fail[k] : 0.0);
	printf("\n  %-9s %5s  %7s %7s %7s  %7s  %6s  %7s %7s %7s  %7s  %7s  %7s\n", "rule", "BER/T", "PASS", "FAIL", "open",
	       "wrong", "errors", "ovh.med", "ovh.avg", "ovh.p95", "<=1.01x", "bits/M0", "fail/M0");
	for (unsigned i = 0; i < sizeof(rhos) / sizeof(rhos[0]); i++) {
		uint64_t seed = 1000 + i; /* the same streams for every rule */
		run(&sched_r, rhos[i], runs, 1, seed, &o);
		report("schedule", rhos[i], runs, &o);
		run(&grid_r, rhos[i], runs, 0, seed, &o);
		report("grid-only", rhos[i], runs, &o);
		run(&naive_r, rhos[i], runs, 1, seed, &o);
		report("naive", rhos[i], runs, &o);
	}
	printf("  (ovh: bits used at PASS / statistical minimum for the errors seen; bits/M0: mean bits at PASS in units\n"
	       "   of the zero-error minimum %.4g; wrong: PASS at BER >= target, FAIL at BER <= target;\n"
	       "   grid-only: the schedule read every second only, without waking at the pass point)\n",
	       min_bits[0]);

	printf("\n# the zero-error overhead: the share of 1 - CL the clean look takes, and what a lane with errors pays\n");
	printf("  %-8s  %7s %7s %7s  %9s %9s  %9s %9s  %9s\n", "zero_ovh", "k=0", "k=1", "k=2", "ovh@0.1", "bits@0.1",
	       "ovh@0.5", "bits@0.5", "PASS@0.5");
	static const double zos[] = { 1, 1.005, 1.02, 1.05, 1.1, 1.2 };
	for (unsigned z = 0; z < sizeof(zos) / sizeof(zos[0]); z++) {
		struct apenet_ber_opts opt = { .zero_overhead = zos[z] };
		struct apenet_ber_sched sz;
		static struct rule rz;
		if (apenet_ber_sched_init(&sz, TARGET, CL, &opt, &e))
			return 2;
		schedule_rule(&rz, &sz, "z");
		printf("  %-8.3f  %7.3f %7.3f %7.3f", zos[z], rz.pass[0] / min_bits[0], rz.pass[1] / min_bits[1],
		       rz.pass[2] / min_bits[2]);
		static const double at[] = { 0.1, 0.5 };
		double pass05 = 0;
		for (unsigned a = 0; a < 2; a++) {
			run(&rz, at[a], runs, 1, 2000 + a, &o);
			double sum = 0;
			for (unsigned i = 0; i < o.pass; i++)
				sum += o.ovh[i];
			printf("  %9.4f %9.3f", o.pass ? sum / o.pass : NAN, o.pass ? o.pass_bits / o.pass / min_bits[0] : NAN);
			pass05 = 100.0 * o.pass / runs;
		}
		printf("  %8.2f%%\n", pass05);
	}
	printf("  (k=N: PASS point / statistical minimum with N errors; ovh@r, bits@r: mean overhead and mean bits at PASS\n"
	       "   (x the zero-error minimum) of lanes at r x the target; 1.000 is the classic zero-error test)\n");
	free(o.ovh);
	free(o.errs);
	return 0;
}
