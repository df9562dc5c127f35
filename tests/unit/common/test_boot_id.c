/*
 * The boot id parser (common/boot_id.c): "x,y,z#N" of decimal digits only,
 * read as sscanf("%u,%u,%u#%llu%n") read the same digits (checked against
 * it here), and nothing else taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "apenet/boot_id.h"

static void test_good(void **state)
{
	(void)state;
	unsigned xyz[3];
	uint64_t gen;
	assert_int_equal(apenet_report_boot_parse("1,2,3#4", xyz, &gen), 0);
	assert_true(xyz[0] == 1 && xyz[1] == 2 && xyz[2] == 3 && gen == 4);
	assert_int_equal(apenet_report_boot_parse("31,0,17#18446744073709551615", xyz, &gen), 0);
	assert_true(xyz[0] == 31 && xyz[1] == 0 && xyz[2] == 17 && gen == UINT64_MAX);
	assert_int_equal(apenet_report_boot_parse("007,0,0#0", xyz, &gen), 0);
	assert_true(xyz[0] == 7 && gen == 0);
}

static void test_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",	    "1,2,3",	 "1,2,3#",   "1,2#3",	  ",2,3#4",  "1,,3#4",	 "1,2,3#4#5", "1,2,3#4,",
		"1,2,3,4#5", "+1,2,3#4", "1,-2,3#4", " 1,2,3#4", "1,2,3#4 ", "1,2,3#x",	 "a,b,c#d",   "1.2.3#4",
		"1,2,3##4",  "#1",	 "1,2,3#+4", "1,2,3#\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unsigned xyz[3] = { 9, 9, 9 };
		uint64_t gen = 9;
		if (apenet_report_boot_parse(bad[i], xyz, &gen) != -1)
			fail_msg("'%s' taken", bad[i]);
	}
}

/* What sscanf made of the same digits, the parser this one replaced (it
 * checked the characters first: digits, commas and '#' only). */
static int by_sscanf(const char *boot, unsigned xyz[3], uint64_t *gen)
{
	unsigned long long n;
	int end = -1;
	if (boot[strspn(boot, "0123456789,#")] != '\0')
		return -1;
	if (sscanf(boot, "%u,%u,%u#%llu%n", &xyz[0], &xyz[1], &xyz[2], &n, &end) != 4 || end < 0 || boot[end])
		return -1;
	*gen = n;
	return 0;
}

static void test_as_sscanf(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"4294967295,4294967296,99999999999999999999#18446744073709551616",
		"18446744073709551615,1,2#3",
		"0,0,0#99999999999999999999999999",
		"12,34,56#78",
		"1,2,3#4#",
		"1,2,3",
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		unsigned a[3] = { 0 }, b[3] = { 0 };
		uint64_t ga = 0, gb = 0;
		int ra = apenet_report_boot_parse(ids[i], a, &ga), rb = by_sscanf(ids[i], b, &gb);
		assert_int_equal(ra, rb);
		if (ra == 0 && (memcmp(a, b, sizeof(a)) || ga != gb))
			fail_msg("'%s': %u,%u,%u#%llu, sscanf %u,%u,%u#%llu", ids[i], a[0], a[1], a[2],
				 (unsigned long long)ga, b[0], b[1], b[2], (unsigned long long)gb);
	}
	/* and every short id over a small alphabet */
	static const char alpha[] = "09,#9";
	char s[8];
	for (unsigned len = 0; len <= 7; len++) {
		unsigned long total = 1;
		for (unsigned k = 0; k < len; k++)
			total *= sizeof(alpha) - 1;
		for (unsigned long c = 0; c < total; c++) {
			unsigned long x = c;
			for (unsigned k = 0; k < len; k++, x /= sizeof(alpha) - 1)
				s[k] = alpha[x % (sizeof(alpha) - 1)];
			s[len] = 0;
			unsigned a[3] = { 0 }, b[3] = { 0 };
			uint64_t ga = 0, gb = 0;
			int ra = apenet_report_boot_parse(s, a, &ga), rb = by_sscanf(s, b, &gb);
			if (ra != rb || (ra == 0 && (memcmp(a, b, sizeof(a)) || ga != gb)))
				fail_msg("'%s': %d, sscanf %d", s, ra, rb);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_as_sscanf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
