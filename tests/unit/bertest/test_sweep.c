/*
 * The PMA sweep engine (bertest/sweep.c) and its writers (sweep_out.c) on
 * synthetic landscapes, measured without noise (errors = BER x bits,
 * rounded), so that what each strategy must choose is known: the grid,
 * --range parsing, exhaustive = the true minimum, adaptive = the global
 * optimum of a landscape with a broad local optimum far from a narrow
 * global one (a greedy search from the defaults stays in the broad one),
 * at a small fraction of the exhaustive search's bits; CSV, text and SVG
 * heat maps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/sweep.h"

static const struct apenet_pma_range SIV = { .vod = 7, .pre = 7, .post1 = 15, .post2 = 7, .rxeq = 15, .dcgain = 4 };

/* Two basins: a broad one around (2, *, 12, *, 3, *) down to 1e-9, and a
 * deeper one at (6, 5, 2, 4, 13, 2) down to 1e-11, with interacting terms
 * (post1 and rxeq trade against each other). */
static double landscape(const uint8_t *v)
{
	double d1 = pow(v[0] - 2, 2) + pow(v[2] - 12, 2) * 0.5 + pow(v[4] - 3, 2) * 0.5;
	double d2 = pow(v[0] - 6, 2) + pow(v[1] - 5, 2) + pow(v[2] - 2, 2) + pow(v[3] - 4, 2) +
		    pow(v[4] - 13, 2) + pow(v[5] - 2, 2) + 0.5 * (v[2] - 2) * (v[4] - 13) * 0.1;
	double broad = -9 + 0.4 * d1, narrow = -11 + 0.4 * d2;
	double l = broad < narrow ? broad : narrow;
	return pow(10, l > -0.3 ? -0.3 : l);
}

struct counter {
	uint64_t calls;
};

static int exact(void *ctx, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits, uint64_t *got, uint64_t *errs,
		 struct apenet_err *e)
{
	(void)e;
	struct counter *c = ctx;
	c->calls++;
	*got = bits;
	*errs = (uint64_t)floor(landscape(v) * (double)bits + 0.5);
	return 0;
}

static void test_space(void **state)
{
	(void)state;
	struct apenet_sweep_space s;
	struct apenet_err e = { 0 };
	uint8_t start[6] = { 4, 0, 3, 0, 4, 1 };
	apenet_sweep_space_full(&s, &SIV, start);
	assert_int_equal(apenet_sweep_space_size(&s), 8ull * 8 * 16 * 8 * 16 * 5);
	memset(&s, 0, sizeof(s));
	memcpy(s.fixed, start, 6);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "rxeq=2:14:3", &e), 0);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "vod=0:7", &e), 0);
	assert_int_equal(apenet_sweep_space_size(&s), 5 * 8);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "rxeq=0:16", &e), -1);
	assert_non_null(strstr(e.msg, "rxeq goes 0..15"));
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "gain=0:1", &e), -1);
	assert_non_null(strstr(e.msg, "'gain' is not"));
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "pre=3", &e), -1);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "pre=3:1", &e), -1);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "pre=1:3:0", &e), -1);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "pre=1:3x", &e), -1);
	assert_int_equal(apenet_sweep_param_parse("dcgain"), APENET_SWEEP_DCGAIN);
	assert_int_equal(apenet_sweep_param_parse("DCGAIN"), -1);
}

/* The true best point of a space, by brute force. */
static double true_min(const struct apenet_sweep_space *s, uint8_t best[6])
{
	double m = 1;
	uint8_t v[6];
	for (v[0] = s->lo[0]; v[0] <= s->hi[0]; v[0] += s->step[0])
		for (v[1] = s->lo[1]; v[1] <= s->hi[1]; v[1] += s->step[1])
			for (v[2] = s->lo[2]; v[2] <= s->hi[2]; v[2] += s->step[2])
				for (v[3] = s->lo[3]; v[3] <= s->hi[3]; v[3] += s->step[3])
					for (v[4] = s->lo[4]; v[4] <= s->hi[4]; v[4] += s->step[4])
						for (v[5] = s->lo[5]; v[5] <= s->hi[5]; v[5] += s->step[5])
							if (landscape(v) < m) {
								m = landscape(v);
								memcpy(best, v, 6);
							}
	return m;
}

static void test_exhaustive_and_adaptive(void **state)
{
	(void)state;
	struct apenet_sweep_space s;
	struct apenet_err e = { 0 };
	uint8_t start[6] = { 2, 0, 12, 0, 3, 1 }; /* in the broad basin */
	apenet_sweep_space_full(&s, &SIV, start);
	uint8_t best[6];
	double m = true_min(&s, best);
	assert_true(m < 2e-11);

	/* a dwell that resolves 1e-11: the exhaustive search finds the minimum
	 * (its bits, 655,360 x 1e13, still fit the 64-bit total) */
	struct apenet_sweep ex, ad;
	struct counter c = { 0 };
	struct apenet_sweep_opts o = { .strategy = APENET_SWEEP_EXHAUSTIVE, .dwell_bits = 10000000000000ull,
				       .cl = 0.95 };
	if (apenet_sweep_run(&s, &o, exact, &c, &ex, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(ex.n, apenet_sweep_space_size(&s));
	assert_int_equal(c.calls, ex.n);
	assert_memory_equal(ex.pt[ex.best].v, best, 6);

	/* adaptive from the broad basin: the narrow global optimum, in well
	 * under 2% of the bits */
	o.strategy = APENET_SWEEP_ADAPTIVE;
	o.start = start;
	o.seed = 7;
	c.calls = 0;
	if (apenet_sweep_run(&s, &o, exact, &c, &ad, &e))
		fail_msg("%s", e.msg);
	const uint8_t *v = ad.pt[ad.best].v;
	print_message("adaptive: %zu points, %.3g bits (%.3f%% of exhaustive), chose %u/%u/%u/%u/%u/%u at %.2e\n",
		      ad.n, (double)ad.bits, 100.0 * (double)ad.bits / (double)ex.bits, v[0], v[1], v[2], v[3], v[4],
		      v[5], landscape(v));
	assert_true(landscape(v) <= 2 * m);
	assert_true((double)ad.bits < 0.02 * (double)ex.bits);
	assert_true(ad.n < ex.n / 20);
	/* the start point was screened */
	int seen = 0;
	for (size_t i = 0; i < ad.n; i++)
		seen |= !memcmp(ad.pt[i].v, start, 6) && ad.pt[i].bits > 0;
	assert_true(seen);
	apenet_sweep_free(&ex);
	apenet_sweep_free(&ad);
}

static int failing(void *ctx, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits, uint64_t *got, uint64_t *errs,
		   struct apenet_err *e)
{
	struct counter *c = ctx;
	(void)v;
	if (++c->calls == 5)
		return apenet_err_set(e, APENET_ELINK, "link X+ went down");
	*got = bits;
	*errs = 0;
	return 0;
}

static void test_errors_stop(void **state)
{
	(void)state;
	struct apenet_sweep_space s;
	struct apenet_err e = { 0 };
	struct apenet_sweep sw;
	struct counter c = { 0 };
	apenet_sweep_space_full(&s, &SIV, NULL);
	struct apenet_sweep_opts o = { .strategy = APENET_SWEEP_EXHAUSTIVE, .dwell_bits = 1000, .cl = 0.95 };
	assert_int_equal(apenet_sweep_run(&s, &o, failing, &c, &sw, &e), -1);
	assert_string_equal(e.msg, "link X+ went down");
	assert_int_equal(sw.measurements, 4); /* what was measured stays */
	apenet_sweep_free(&sw);
	o.dwell_bits = 0;
	assert_int_equal(apenet_sweep_run(&s, &o, failing, &c, &sw, &e), -1);
	s.hi[0] = 0;
	s.lo[0] = 1;
	o.dwell_bits = 10;
	assert_int_equal(apenet_sweep_run(&s, &o, failing, &c, &sw, &e), -1);
	assert_non_null(strstr(e.msg, "empty"));
}

static char *slurp(FILE *f)
{
	fflush(f);
	long n = ftell(f);
	rewind(f);
	char *b = calloc(1, (size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	return b;
}

static void test_writers(void **state)
{
	(void)state;
	struct apenet_sweep_space s;
	struct apenet_err e = { 0 };
	struct apenet_sweep sw;
	struct counter c = { 0 };
	uint8_t start[6] = { 4, 0, 3, 0, 4, 1 };
	memset(&s, 0, sizeof(s));
	memcpy(s.fixed, start, 6);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "vod=5:7", &e), 0);
	assert_int_equal(apenet_sweep_range_parse(&s, &SIV, "rxeq=12:14", &e), 0);
	struct apenet_sweep_opts o = { .strategy = APENET_SWEEP_EXHAUSTIVE, .dwell_bits = 1000000000000ull, .cl = 0.95 };
	assert_int_equal(apenet_sweep_run(&s, &o, exact, &c, &sw, &e), 0);

	FILE *f = tmpfile();
	assert_int_equal(apenet_sweep_write_csv(&sw, f), 0);
	char *t = slurp(f);
	assert_memory_equal(t, "vod,pre,post1,post2,rxeq,dcgain,bits,errors,ber,upper,lower,level\n", 65);
	unsigned lines = 0;
	for (char *p = t; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 1 + 9);
	assert_non_null(strstr(t, "\n5,0,3,0,12,1,1000000000000,"));
	free(t);
	fclose(f);

	/* the text map: 3 x 3 cells, each a decade digit */
	f = tmpfile();
	assert_int_equal(apenet_sweep_write_heatmap_text(&sw, &s, APENET_SWEEP_VOD, APENET_SWEEP_RXEQ, f), 0);
	t = slurp(f);
	assert_non_null(strstr(t, "rxeq (down) x vod (across)"));
	assert_non_null(strstr(t, "       5  6  7\n"));
	/* each cell: the decade of its upper bound */
	for (unsigned y = 12; y <= 14; y++) {
		char row[64];
		int off = snprintf(row, sizeof(row), "%6u ", y);
		for (unsigned x = 5; x <= 7; x++) {
			uint8_t v[6] = { (uint8_t)x, 0, 3, 0, (uint8_t)y, 1 };
			uint64_t k = (uint64_t)floor(landscape(v) * 1e12 + 0.5);
			(void)k;
			size_t i = 0;
			while (i < sw.n && memcmp(sw.pt[i].v, v, 6))
				i++;
			assert_true(i < sw.n);
			int d = (int)floor(log10(sw.pt[i].upper)) + 18;
			off += snprintf(row + off, sizeof(row) - (size_t)off, "  %d", d < 0 ? 0 : d > 9 ? 9 : d);
		}
		assert_non_null(strstr(t, row));
	}
	free(t);
	fclose(f);

	/* the SVG: one document, a cell per point, the title escaped */
	f = tmpfile();
	assert_int_equal(apenet_sweep_write_heatmap_svg(&sw, &s, APENET_SWEEP_VOD, APENET_SWEEP_RXEQ,
							 "link X+ <0,0,0> & \"friends\"", f),
			 0);
	t = slurp(f);
	assert_memory_equal(t, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39);
	assert_non_null(strstr(t, "</svg>\n"));
	assert_non_null(strstr(t, "link X+ &lt;0,0,0&gt; &amp; &quot;friends&quot;"));
	assert_null(strstr(t, "<0,0,0>"));
	unsigned rects = 0;
	for (char *p = t; (p = strstr(p, "<rect ")); p++)
		rects++;
	assert_int_equal(rects, 9);
	free(t);
	fclose(f);
	apenet_sweep_free(&sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_space),
		cmocka_unit_test(test_exhaustive_and_adaptive),
		cmocka_unit_test(test_errors_stop),
		cmocka_unit_test(test_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
