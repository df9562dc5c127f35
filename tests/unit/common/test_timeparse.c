/*
 * Times a person types (common/timeparse.c): durations ago with and
 * without their sign, now/today/yesterday at a fixed "now", ISO 8601 with
 * every zone form, epoch milliseconds, and what is refused.  The calendar
 * is checked against timegm for every day of 1970..2200.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "apenet/timeparse.h"

/* 2026-11-23T20:37:40.911Z */
#define NOW 1795466260911LL
#define MIDNIGHT 1795392000000LL /* 2026-11-23T00:00:00Z */

static int64_t t(const char *s)
{
	int64_t v = -12345;
	assert_int_equal(apenet_time_parse(s, NOW, &v), 0);
	return v;
}

static void refused(const char *s)
{
	int64_t v = -12345;
	if (apenet_time_parse(s, NOW, &v) != -1)
		fail_msg("'%s' was taken as %lld", s, (long long)v);
	assert_int_equal(v, -12345); /* untouched */
}

static void test_ago(void **state)
{
	(void)state;
	assert_int_equal(t("-1h"), NOW - 3600000);
	assert_int_equal(t("1h"), NOW - 3600000);
	assert_int_equal(t("30m"), NOW - 1800000);
	assert_int_equal(t("-30m"), NOW - 1800000);
	assert_int_equal(t("-90s"), NOW - 90000);
	assert_int_equal(t("90S"), NOW - 90000);
	assert_int_equal(t("2d"), NOW - 2 * 86400000LL);
	assert_int_equal(t("1w"), NOW - 7 * 86400000LL);
	assert_int_equal(t("1.5h"), NOW - 5400000);
	assert_int_equal(t("250ms"), NOW - 250);
	assert_int_equal(t("-0s"), NOW);
	refused("-5");      /* a duration needs its unit */
	refused("+1h");     /* ahead of now */
	refused("1h ago");
	refused("1x");
	refused("h");
	refused("-");
	refused("1.h");
	refused(".5h");
	refused("1e3s");
	refused("inf s");
	refused("99999999w"); /* before 1970 */
}

static void test_words(void **state)
{
	(void)state;
	assert_int_equal(t("now"), NOW);
	assert_int_equal(t("NOW"), NOW);
	assert_int_equal(t("today"), MIDNIGHT);
	assert_int_equal(t("Today"), MIDNIGHT);
	assert_int_equal(t("yesterday"), MIDNIGHT - 86400000);
	/* at midnight exactly, today is that midnight */
	int64_t v;
	assert_int_equal(apenet_time_parse("today", MIDNIGHT, &v), 0);
	assert_int_equal(v, MIDNIGHT);
	assert_int_equal(apenet_time_parse("today", MIDNIGHT - 1, &v), 0);
	assert_int_equal(v, MIDNIGHT - 86400000);
	refused("tomorrow");
	refused("today ");
	refused(" today");
	refused("");
}

static void test_iso(void **state)
{
	(void)state;
	assert_int_equal(t("2026-11-23T20:37:40.911Z"), NOW);
	assert_int_equal(t("2026-11-23T20:37:40.911"), NOW); /* no zone: UTC */
	assert_int_equal(t("2026-11-23t20:37:40.911z"), NOW);
	assert_int_equal(t("2026-11-23 20:37:40.911Z"), NOW);
	assert_int_equal(t("2026-11-23T20:37:40,911Z"), NOW);
	assert_int_equal(t("2026-11-23T20:37:40.9109Z"), NOW); /* rounded to the ms */
	assert_int_equal(t("2026-11-23T20:37:40.9Z"), NOW - 11);
	assert_int_equal(t("2026-11-23T20:37:40Z"), NOW - 911);
	assert_int_equal(t("2026-11-23T20:37Z"), NOW - 40911);
	assert_int_equal(t("2026-11-23T20:37"), NOW - 40911);
	assert_int_equal(t("2026-11-23"), MIDNIGHT);
	assert_int_equal(t("2026-11-23T21:37:40.911+01:00"), NOW);
	assert_int_equal(t("2026-11-23T21:37:40.911+0100"), NOW);
	assert_int_equal(t("2026-11-23T21:37:40.911+01"), NOW);
	assert_int_equal(t("2026-11-23T15:07:40.911-05:30"), NOW);
	assert_int_equal(t("2026-11-24T01:07:40.911+04:30"), NOW);
	assert_int_equal(t("2024-02-29"), 1709164800000LL);
	assert_int_equal(t("2000-03-01T00:00:00Z"), 951868800000LL);
	assert_int_equal(t("1970-01-01T00:00:00Z"), 0);
	refused("2026-02-29");           /* not a leap year */
	refused("2026-11-31");
	refused("2026-13-01");
	refused("2026-00-10");
	refused("2026-11-23T24:00");
	refused("2026-11-23T20:60");
	refused("2026-11-23T20:37:61");
	refused("2026-11-23T20");
	refused("2026-11-23T20:37:40.Z");
	refused("2026-11-23Z");          /* a zone needs a time */
	refused("2026-11-23T20:37+25:00");
	refused("2026-11-23T20:37+01:");
	refused("2026-11-23T20:37:40ZZ");
	refused("2026-1-23");
	refused("26-11-23");
	refused("1969-12-31");
	refused("1970-01-01T00:30+01:00"); /* before 1970 */
}

static void test_epoch_ms(void **state)
{
	(void)state;
	assert_int_equal(t("1795466260911"), NOW);
	assert_int_equal(t("0"), 0);
	assert_int_equal(t("1000"), 1000);
	assert_int_equal(t("2026"), 2026); /* digits alone are epoch ms, even when they look like a year */
	refused("1795466260911x");
	refused("-1795466260911");
	refused("12345678901234567890"); /* past int64 */
}

static void test_duration(void **state)
{
	(void)state;
	int64_t ms;
	assert_int_equal(apenet_duration_parse("5", 1000, &ms), 0);
	assert_int_equal(ms, 5000);
	assert_int_equal(apenet_duration_parse("4.5", 1000, &ms), 0);
	assert_int_equal(ms, 4500);
	assert_int_equal(apenet_duration_parse("2m", 1000, &ms), 0);
	assert_int_equal(ms, 120000);
	assert_int_equal(apenet_duration_parse("0", 1000, &ms), 0);
	assert_int_equal(ms, 0);
	assert_int_equal(apenet_duration_parse("5", -1, &ms), -1); /* no default unit: it must be named */
	assert_int_equal(apenet_duration_parse("-5", 1000, &ms), -1);
	assert_int_equal(apenet_duration_parse("", 1000, &ms), -1);
	assert_int_equal(apenet_duration_parse(NULL, 1000, &ms), -1);
}

/* Every day of 1970..2200 at a time of day, as timegm has it. */
/* Durations as the long commands and the BER verdicts print them. */
static void test_duration_str(void **state)
{
	(void)state;
	static const struct {
		double s;
		const char *want;
	} c[] = {
		{ 0, "0.0 s" },		{ 9.94, "9.9 s" },	    { 42, "42 s" },	     { 185, "3m05s" },
		{ 3599, "59m59s" },	{ 7800, "2h10m" },	    { 86400 * 2 - 60, "47h59m" }, { 86400 * 8.8, "8.8 d" },
		{ 86400 * 365.25 * 2.1, "2.1 years" }, { -1, "?" }, { NAN, "?" },	     { INFINITY, "?" },
	};
	char buf[24];
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_string_equal(apenet_duration_str(c[i].s, buf, sizeof(buf)), c[i].want);
}

static void test_calendar(void **state)
{
	(void)state;
	char s[40];
	for (time_t day = 0; day < (time_t)84000; day++) {
		time_t x = day * 86400 + 45296; /* 12:34:56 */
		struct tm tm;
		gmtime_r(&x, &tm);
		strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
		int64_t v;
		if (apenet_time_parse(s, NOW, &v) || v != (int64_t)x * 1000)
			fail_msg("%s: got %lld, want %lld", s, (long long)v, (long long)x * 1000);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ago),      cmocka_unit_test(test_words),    cmocka_unit_test(test_iso),
		cmocka_unit_test(test_epoch_ms), cmocka_unit_test(test_duration), cmocka_unit_test(test_calendar),
		cmocka_unit_test(test_duration_str),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
