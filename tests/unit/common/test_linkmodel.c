/*
 * Tests of the link efficiency model (common/linkmodel.c) against SPEC §2.
 *
 * Expected values are worked out here from the SPEC's formulas, in integer
 * arithmetic where the SPEC counts cycles (T_RED, X), and compared with the
 * model.  The APEnet+ case is also checked against the published figure: a
 * 28 Gbps link (4 lanes x 7 Gbps, 8b/10b) moves about 2.2 GB/s.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "apenet/linkmodel.h"

#define EPS 1e-12

static void assert_close(double got, double want, double tol, const char *what)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s: got %.12g, expected %.12g", what, got, want);
}

/* SPEC §2 constants, restated here rather than taken from the header. */
enum { S_MAX = 4096, P = 64, WORD = 16, C_DEF = 35, W_DEF = 145 };

struct expect {
	long t_red, x;  /* cycles of 128 bit */
	double e1, e2, e3, et, raw, max;
};

static struct expect spec_model(long fifo_bytes, unsigned lanes, double mbps, double code_rate, unsigned c,
				unsigned w)
{
	struct expect x;
	long smax_cycles = S_MAX / WORD;

	x.t_red = (fifo_bytes - S_MAX) / WORD;
	x.x = (x.t_red / smax_cycles) * smax_cycles; /* floor(T_RED / S_MAX) * S_MAX */
	x.e1 = (double)S_MAX / (P + S_MAX);
	x.e2 = (double)c / (c + 2);
	x.e3 = (double)x.x / (double)(x.x + w);
	x.et = x.e1 * x.e2 * x.e3;
	x.raw = lanes * mbps * code_rate / 8;
	x.max = x.raw * x.et;
	return x;
}

static void check(const struct apenet_linkmodel *m, const struct expect *x)
{
	assert_close(m->t_red_cycles, (double)x->t_red, EPS, "T_RED");
	assert_close(m->x_cycles, (double)x->x, EPS, "X");
	assert_close(m->e1, x->e1, EPS, "E1");
	assert_close(m->e2, x->e2, EPS, "E2");
	assert_close(m->e3, x->e3, EPS, "E3");
	assert_close(m->et, x->et, EPS, "E_T");
	assert_close(m->raw_MBps, x->raw, 1e-9, "raw MB/s");
	assert_close(m->max_MBps, x->max, 1e-9, "max MB/s");
}

static struct apenet_linkmodel model(double fifo, unsigned lanes, double mbps, double code_rate)
{
	struct apenet_linkmodel m;

	memset(&m, 0, sizeof(m));
	m.fifo_bytes = fifo;
	m.lanes = lanes;
	m.lane_mbps = mbps;
	m.code_rate = code_rate;
	return m;
}

/* The deployed APEnet+ link: 16 KB RX FIFO, 4 lanes x 7000 Mbps, 8b/10b. */
static void test_apenetp_16k(void **state)
{
	(void)state;
	struct apenet_linkmodel m = model(16384, 4, 7000, 0.8);

	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.e1, 4096.0 / 4160.0, EPS, "E1");
	assert_close(m.e2, 35.0 / 37.0, EPS, "E2");
	assert_close(m.t_red_cycles, 768, EPS, "T_RED");
	assert_close(m.x_cycles, 768, EPS, "X");
	assert_close(m.e3, 768.0 / 913.0, EPS, "E3");
	assert_close(m.raw_MBps, 2800, 1e-9, "raw");
	assert_close(m.max_MBps, 2800.0 * 4096 / 4160 * 35 / 37 * 768 / 913, 1e-9, "max");
	/* About 2190 MB/s: within 5% of the 2.2 GB/s measured on the card. */
	assert_true(m.max_MBps > 2185 && m.max_MBps < 2200);
	assert_true(fabs(m.max_MBps - 2200) / 2200 < 0.05);
	/* The inputs are left alone. */
	assert_close(m.fifo_bytes, 16384, 0, "fifo");
	assert_int_equal(m.lanes, 4);

	struct expect x = spec_model(16384, 4, 7000, 0.8, C_DEF, W_DEF);
	check(&m, &x);
}

/* The 8 KB FIFO: half the threshold, a quarter of the blocks. */
static void test_8k(void **state)
{
	(void)state;
	struct apenet_linkmodel m = model(8192, 4, 7000, 0.8);

	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.x_cycles, 256, EPS, "X");
	assert_close(m.e3, 256.0 / 401.0, EPS, "E3");
	struct expect x = spec_model(8192, 4, 7000, 0.8, C_DEF, W_DEF);
	check(&m, &x);

	/* A smaller FIFO never gives more bandwidth. */
	struct apenet_linkmodel big = model(16384, 4, 7000, 0.8);
	assert_int_equal(apenet_linkmodel_eval(&big), 0);
	assert_true(m.max_MBps < big.max_MBps);
}

/* X is floored to whole S_MAX blocks. */
static void test_floor(void **state)
{
	(void)state;
	static const long fifos[] = { 4096 + 16, 4096 + 4080, 4096 + 4096, 20000, 32768, 65536 + 96 };

	for (size_t i = 0; i < sizeof(fifos) / sizeof(fifos[0]); i++) {
		struct apenet_linkmodel m = model((double)fifos[i], 4, 8500, 0.8);
		struct expect x = spec_model(fifos[i], 4, 8500, 0.8, C_DEF, W_DEF);

		assert_int_equal(apenet_linkmodel_eval(&m), 0);
		check(&m, &x);
		assert_true(fmod(m.x_cycles, 256) == 0);
		assert_true(m.x_cycles <= m.t_red_cycles);
		assert_true(m.t_red_cycles - m.x_cycles < 256);
	}

	/* 20000 bytes: T_RED = 994 cycles, X = 768. */
	struct apenet_linkmodel m = model(20000, 4, 8500, 0.8);
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.t_red_cycles, 994, EPS, "T_RED");
	assert_close(m.x_cycles, 768, EPS, "X");
}

/* One word above S_MAX: T_RED is one cycle, X floors to 0, nothing moves. */
static void test_tiny_fifo(void **state)
{
	(void)state;
	struct apenet_linkmodel m = model(4096 + 16, 4, 7000, 0.8);

	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.t_red_cycles, 1, EPS, "T_RED");
	assert_close(m.x_cycles, 0, 0, "X");
	assert_close(m.e3, 0, 0, "E3");
	assert_close(m.et, 0, 0, "E_T");
	assert_close(m.max_MBps, 0, 0, "max");
	assert_close(m.raw_MBps, 2800, 1e-9, "raw"); /* the line itself is fine */
}

static void test_invalid(void **state)
{
	(void)state;
	struct {
		double fifo;
		unsigned lanes;
		double mbps, code_rate;
	} bad[] = {
		{ 4096, 4, 7000, 0.8 },     /* FIFO not larger than S_MAX */
		{ 4095, 4, 7000, 0.8 },
		{ 0, 4, 7000, 0.8 },
		{ -16384, 4, 7000, 0.8 },
		{ NAN, 4, 7000, 0.8 },
		{ 16384, 0, 7000, 0.8 },    /* no lanes */
		{ 16384, 4, 0, 0.8 },       /* no rate */
		{ 16384, 4, -7000, 0.8 },
		{ 16384, 4, NAN, 0.8 },
		{ 16384, 4, 7000, 0 },      /* no code rate */
		{ 16384, 4, 7000, -0.8 },
		{ 16384, 4, 7000, 1.25 },   /* more payload than line bits */
		{ 16384, 4, 7000, NAN },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct apenet_linkmodel m = model(bad[i].fifo, bad[i].lanes, bad[i].mbps, bad[i].code_rate);
		if (apenet_linkmodel_eval(&m) != -1)
			fail_msg("case %zu (fifo %g lanes %u rate %g code %g) accepted", i, bad[i].fifo,
				 bad[i].lanes, bad[i].mbps, bad[i].code_rate);
	}
	/* A code rate of exactly 1 (no coding) is a valid link. */
	struct apenet_linkmodel m = model(16384, 1, 1000, 1);
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.raw_MBps, 125, 1e-9, "raw");
}

/* c and w override the SPEC's 35 and 145 cycles; 0 keeps the defaults. */
static void test_custom_cw(void **state)
{
	(void)state;
	struct apenet_linkmodel m = model(16384, 4, 7000, 0.8);

	m.c = 10;
	m.w = 50;
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.e2, 10.0 / 12.0, EPS, "E2");
	assert_close(m.e3, 768.0 / 818.0, EPS, "E3");
	struct expect x = spec_model(16384, 4, 7000, 0.8, 10, 50);
	check(&m, &x);

	/* Only c given: w stays 145. */
	m = model(16384, 4, 7000, 0.8);
	m.c = 70;
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	x = spec_model(16384, 4, 7000, 0.8, 70, W_DEF);
	check(&m, &x);

	/* Only w given: c stays 35. */
	m = model(16384, 4, 7000, 0.8);
	m.w = 300;
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	x = spec_model(16384, 4, 7000, 0.8, C_DEF, 300);
	check(&m, &x);

	/* A longer wait costs bandwidth, a longer credit period saves some. */
	struct apenet_linkmodel def = model(16384, 4, 7000, 0.8);
	assert_int_equal(apenet_linkmodel_eval(&def), 0);
	assert_true(m.max_MBps < def.max_MBps);
	m = model(16384, 4, 7000, 0.8);
	m.c = 70;
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_true(m.max_MBps > def.max_MBps);
}

/* NaNet-10: one 10GBASE-R lane at 10312 Mbps, 64b/66b. */
static void test_64b66b(void **state)
{
	(void)state;
	struct apenet_linkmodel m = model(16384, 1, 10312, 64.0 / 66.0);

	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_close(m.raw_MBps, 10312.0 * 64 / 66 / 8, 1e-9, "raw");
	assert_true(m.raw_MBps > 1249 && m.raw_MBps < 1250.1);
	struct expect x = spec_model(16384, 1, 10312, 64.0 / 66.0, C_DEF, W_DEF);
	check(&m, &x);

	/* 64b/66b wastes less of the line than 8b/10b. */
	struct apenet_linkmodel m8 = model(16384, 1, 10312, 0.8);
	assert_int_equal(apenet_linkmodel_eval(&m8), 0);
	assert_true(m.max_MBps > m8.max_MBps);
	assert_close(m.max_MBps / m8.max_MBps, (64.0 / 66.0) / 0.8, 1e-12, "ratio");
}

/* Bandwidth scales linearly with lanes and lane rate. */
static void test_scaling(void **state)
{
	(void)state;
	struct apenet_linkmodel one = model(16384, 1, 7000, 0.8), four = model(16384, 4, 7000, 0.8),
				fast = model(16384, 4, 8500, 0.8);

	assert_int_equal(apenet_linkmodel_eval(&one), 0);
	assert_int_equal(apenet_linkmodel_eval(&four), 0);
	assert_int_equal(apenet_linkmodel_eval(&fast), 0);
	assert_close(four.max_MBps, 4 * one.max_MBps, 1e-9, "4 lanes");
	assert_close(fast.max_MBps, four.max_MBps * 8500 / 7000, 1e-9, "8.5 Gbps");
	/* 34 Gbps raw: 3400 MB/s of 8b/10b payload before the efficiencies. */
	assert_close(fast.raw_MBps, 3400, 1e-9, "raw 34G");
	assert_true(fast.et == four.et);
}


/* --fifo-depth: a bare number counts 128-bit entries (the paper's unit),
 * a suffix makes it bytes. */
static void test_parse_depth(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		double bytes;
	} ok[] = {
		{ "512", 8192 },     { "1024", 16384 },   { "4096", 65536 }, { "8KiB", 8192 },  { "8kib", 8192 },
		{ "16K", 16384 },    { "16k", 16384 },    { "16KB", 16384 }, { "16384B", 16384 }, { "16384b", 16384 },
		{ "1MiB", 1048576 }, { "0.5K", 512 },     { "2M", 2097152 }, { "1", 16 },
	};
	static const struct {
		const char *s, *err;
	} bad[] = {
		{ "", "'' is not a positive size" },
		{ "0", "'0' is not a positive size" },
		{ "-512", "'-512' is not a positive size" },
		{ "KiB", "'KiB' is not a positive size" },
		{ "512.5", "'512.5' is not a whole number of 128-bit entries" },
		{ "1000B", "'1000B' is 1000 bytes: not a whole number of 128-bit (16-byte) entries" },
		{ "8Q", "'8Q': unknown unit 'Q'" },
		{ "8 KiB", "'8 KiB': unknown unit ' KiB'" },
		{ "inf", "'inf' is not a positive size" },
		{ "nan", "'nan' is not a positive size" },
	};
	char err[256];
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		double b = -1;
		if (apenet_linkmodel_parse_depth(ok[i].s, &b, err, sizeof(err)))
			fail_msg("'%s': %s", ok[i].s, err);
		if (b != ok[i].bytes)
			fail_msg("'%s': %g bytes, expected %g", ok[i].s, b, ok[i].bytes);
	}
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double b = -1;
		err[0] = 0;
		assert_int_equal(apenet_linkmodel_parse_depth(bad[i].s, &b, err, sizeof(err)), -1);
		if (strncmp(err, bad[i].err, strlen(bad[i].err)))
			fail_msg("'%s': error '%s', expected it to start '%s'", bad[i].s, err, bad[i].err);
		assert_true(b == -1);
	}
	/* the paper's 512-entry FIFO is the 8 KiB one: same model either way */
	struct apenet_linkmodel a = { .lanes = 4, .lane_mbps = 8500, .code_rate = 0.8 }, k = a;
	assert_int_equal(apenet_linkmodel_parse_depth("512", &a.fifo_bytes, err, sizeof(err)), 0);
	assert_int_equal(apenet_linkmodel_parse_depth("8KiB", &k.fifo_bytes, err, sizeof(err)), 0);
	assert_int_equal(apenet_linkmodel_eval(&a), 0);
	assert_int_equal(apenet_linkmodel_eval(&k), 0);
	assert_true(a.e3 == k.e3);
	assert_close(a.e3, 256.0 / 401, EPS, "E3 of 512 entries");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apenetp_16k),
		cmocka_unit_test(test_8k),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_tiny_fifo),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_custom_cw),
		cmocka_unit_test(test_64b66b),
		cmocka_unit_test(test_scaling),
		cmocka_unit_test(test_parse_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
