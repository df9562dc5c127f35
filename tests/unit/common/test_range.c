/*
 * Monitoring Plugins threshold ranges (common/range.c): every form of the
 * guidelines with the values on and around its ends, the '@' inversion,
 * the text kept as given for perfdata, why a value alerts, and bad input
 * refused with what is wrong named.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "apenet/range.h"

static struct apenet_range ok(const char *s)
{
	struct apenet_range r;
	char err[200] = "";
	if (apenet_range_parse(s, &r, err, sizeof(err)))
		fail_msg("'%s' refused: %s", s, err);
	assert_string_equal(r.text, s);
	return r;
}

/* alerts(r, v) for each v: the expected answers as a string of 0/1 */
static void check(const char *s, const double *v, size_t n, const char *want)
{
	struct apenet_range r = ok(s);
	assert_int_equal(strlen(want), n);
	for (size_t i = 0; i < n; i++)
		if (apenet_range_alerts(&r, v[i]) != want[i] - '0')
			fail_msg("range '%s', value %g: alerts %d, expected %c", s, v[i], apenet_range_alerts(&r, v[i]), want[i]);
}

static void test_forms(void **state)
{
	(void)state;
	static const double v[] = { -1, 0, 5, 9.999, 10, 10.001, 15, 20, 20.5, 1e9 };
	const size_t n = sizeof(v) / sizeof(v[0]);
	/*                      -1 0 5 9.9 10 10+ 15 20 20.5 1e9 */
	check("10", v, n, "1000011111");
	check("10:", v, n, "1111000000");
	check("~:10", v, n, "0000011111");
	check("10:20", v, n, "1111000011");
	check("@10:20", v, n, "0000111100");
	check("@10", v, n, "0111100000");
	check("~:", v, n, "0000000000");
	check("@~:", v, n, "1111111111");
	check("-5:-1", v, n, "0111111111");
	check("0.5:1e1", v, n, "1100011111");

	struct apenet_range r = ok("10");
	assert_true(r.start == 0 && r.end == 10 && !r.inside);
	r = ok("10:");
	assert_true(r.start == 10 && isinf(r.end) && r.end > 0);
	r = ok("~:10");
	assert_true(isinf(r.start) && r.start < 0 && r.end == 10);
	r = ok("@10:20");
	assert_true(r.inside && r.start == 10 && r.end == 20);
	r = ok("10:10"); /* a single value is a range */
	assert_false(apenet_range_alerts(&r, 10));
	assert_true(apenet_range_alerts(&r, 10.5));
	/* no value is NaN's: never alerted on */
	assert_false(apenet_range_alerts(&r, NAN));
	r = ok("@~:");
	assert_false(apenet_range_alerts(&r, NAN));
}

static void test_why(void **state)
{
	(void)state;
	char b[64];
	struct apenet_range r = ok("95");
	assert_string_equal(apenet_range_why(&r, 97.1, b, sizeof(b)), "> 95");
	assert_string_equal(apenet_range_why(&r, -3, b, sizeof(b)), "< 0");
	assert_string_equal(apenet_range_why(&r, 50, b, sizeof(b)), "");
	r = ok("10:");
	assert_string_equal(apenet_range_why(&r, 2.5, b, sizeof(b)), "< 10");
	r = ok("@10:20");
	assert_string_equal(apenet_range_why(&r, 15, b, sizeof(b)), "inside 10:20");
	r = ok("0.5:1.5");
	assert_string_equal(apenet_range_why(&r, 2, b, sizeof(b)), "> 1.5");
}

static void test_within(void **state)
{
	(void)state;
	struct apenet_range w = ok("20"), c = ok("10"), w2 = ok("5:10"), at = ok("@10:20");
	assert_true(apenet_range_within(&c, &w));   /* -w 20 -c 10: the warning never comes first */
	assert_false(apenet_range_within(&w, &c));  /* -w 10 -c 20: the usual */
	assert_true(apenet_range_within(&c, &c));
	assert_true(apenet_range_within(&w2, &c));
	assert_false(apenet_range_within(&c, &w2)); /* 0..5 warns, above 10 is critical */
	assert_false(apenet_range_within(&at, &w)); /* '@' ranges are not compared */
	assert_false(apenet_range_within(&w, &at));
}

static void bad(const char *s, const char *want)
{
	struct apenet_range r;
	char err[200] = "";
	if (!apenet_range_parse(s, &r, err, sizeof(err)))
		fail_msg("'%s' accepted (%g:%g)", s ? s : "(null)", r.start, r.end);
	if (!strstr(err, want))
		fail_msg("'%s': '%s' does not say '%s'", s ? s : "(null)", err, want);
}

static void test_bad(void **state)
{
	(void)state;
	bad("", "an empty range");
	bad(NULL, "an empty range");
	bad("@", "'@' is not a number");
	bad("abc", "'abc' is not a number");
	bad("inf", "'inf' is not a number");
	bad("nan", "'nan' is not a number");
	bad("0x10", "'0x10' is not a number");
	bad("1e999", "'1e999' is not a number");
	bad("10 ", "'10 ' is not a number");
	bad("-5", "the start 0 is above the end -5");
	bad("20:10", "'20:10': the start 20 is above the end 10");
	bad("@20:10", "the start 20 is above the end 10");
	bad(":10", "no start before ':'");
	bad("~10", "'~' (minus infinity) goes before a ':'");
	bad("10:~", "the end '~' is not a number ('~' stands only for the start)");
	bad("1:2:3", "more than one ':'");
	bad("x:10", "the start 'x' is not a number");
	bad("10:y", "the end 'y' is not a number");
	bad("@@10", "'@@10' is not a number");
	bad("1234567890123456789012345678901234567890", "too long for a range");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_why),
		cmocka_unit_test(test_within),
		cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
