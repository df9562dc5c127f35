/*
 * The report's trends (lofamo/rules_trend.c): each kind of series driven
 * just under and at its "worth a look" bound (a note, severity ok), and a
 * reading at and past its rule's warn limit (that rule's code, warn, with
 * its recommendation).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "apenet/rules_trend.h"
#include "../unit.h"

static struct apenet_trend series(enum apenet_trend_kind kind, const char *unit, double first, double at, double min,
				  double max)
{
	return (struct apenet_trend){ .kind = kind, .unit = unit, .first = first, .at_fault = at, .min = min, .max = max,
				      .warn_low = NAN, .warn_high = NAN, .span_min = 8 };
}

/* The findings of one series (cleared first). */
static size_t judge(const struct apenet_trend *t, struct apenet_findings *fs)
{
	apenet_findings_clear(fs);
	apenet_rules_trend(t, "s", fs);
	return fs->n;
}

static void test_notes(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	const double rise = APENET_TREND_TEMP_RISE_C;
	struct apenet_trend t = series(APENET_TREND_TEMP, "C", 45, 45 + rise - 0.01, 45, 45 + rise);
	assert_int_equal(judge(&t, &fs), 0); /* the peak is not the reading at the fault */
	t.at_fault = 45 + rise;
	assert_int_equal(judge(&t, &fs), 1);
	unit_expect_finding(&fs.f[0], "TREND_TEMP_RISE", APENET_SEV_OK, APENET_SUBJ_SENSOR, -1, -1);
	assert_string_equal(fs.f[0].rec, ""); /* a note: nothing to do */
	assert_string_equal(fs.f[0].message, "rose from 45.0 to 50.0 C in the 8.0 min before the fault");
	t.first = NAN; /* no first sample: no note */
	assert_int_equal(judge(&t, &fs), 0);

	/* a supply: the droop below its first sample */
	double first = 0.9, pct = APENET_TREND_SUPPLY_DROOP_PCT / 100;
	t = series(APENET_TREND_SUPPLY, "V", first, first, first * (1 - pct) + 0.001, first);
	assert_int_equal(judge(&t, &fs), 0);
	t.min = first * (1 - pct) - 0.001;
	assert_int_equal(judge(&t, &fs), 1);
	assert_string_equal(fs.f[0].code, "TREND_SUPPLY_DROOP");
	assert_string_equal(fs.f[0].message, "dropped 5.1% (0.900 to 0.854 V)");
	t.first = 0; /* a board without the sensor reads 0 */
	assert_int_equal(judge(&t, &fs), 0);

	/* a current: the rise above its first sample */
	pct = APENET_TREND_CURRENT_RISE_PCT / 100;
	t = series(APENET_TREND_CURRENT, "A", 10, 10, 10, 10 * (1 + pct) - 0.01);
	assert_int_equal(judge(&t, &fs), 0);
	t.max = 10 * (1 + pct) + 0.01;
	assert_int_equal(judge(&t, &fs), 1);
	assert_string_equal(fs.f[0].code, "TREND_CURRENT_RISE");
	assert_string_equal(fs.f[0].message, "rose 20% (10.00 to 12.01 A)");

	/* a link's errors: any at all */
	t = series(APENET_TREND_ERRORS, "/s", 0, 0, 0, 0);
	assert_int_equal(judge(&t, &fs), 0);
	t.max = 0.5;
	assert_int_equal(judge(&t, &fs), 1);
	unit_expect_finding(&fs.f[0], "TREND_LINK_ERRORS", APENET_SEV_OK, APENET_SUBJ_LINK, -1, -1);
	assert_string_equal(fs.f[0].message, "up to 0.5/s");

	/* the FIFO: its peak */
	t = series(APENET_TREND_FIFO, "%", 0, 0, 0, APENET_TREND_FIFO_PCT - 0.5);
	assert_int_equal(judge(&t, &fs), 0);
	t.max = APENET_TREND_FIFO_PCT;
	assert_int_equal(judge(&t, &fs), 1);
	assert_string_equal(fs.f[0].code, "TREND_FIFO_FILL");
	assert_string_equal(fs.f[0].message, "filled to 75%");
	apenet_findings_free(&fs);
}

static void test_crossed(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	/* a reading past its rule's warn limit: that rule's code and words */
	struct apenet_trend t = series(APENET_TREND_TEMP, "C", 84, 85, 84, 79.99);
	t.code = "FPGA_TEMP";
	t.warn_high = 80;
	assert_int_equal(judge(&t, &fs), 0); /* no rise worth a note, under the limit */
	t.max = 80;                          /* at the limit is past it, as the rule judges */
	assert_int_equal(judge(&t, &fs), 1);
	const struct apenet_finding *f = &fs.f[0];
	unit_expect_finding(f, "FPGA_TEMP", APENET_SEV_WARN, APENET_SUBJ_SENSOR, -1, -1);
	assert_true(f->value == 80 && f->threshold == 80);
	assert_string_equal(f->message, "reached 80 C, past its warn limit 80 C");
	assert_string_equal(f->rec, apenet_code_rec("FPGA_TEMP"));

	/* a warm-up to past the limit: the note and the crossing */
	t.first = 45;
	t.at_fault = t.max = 86.5;
	assert_int_equal(judge(&t, &fs), 2);
	assert_string_equal(fs.f[0].code, "TREND_TEMP_RISE");
	assert_string_equal(fs.f[1].code, "FPGA_TEMP");

	/* the low side; a reading past both limits is told by its peak */
	t = series(APENET_TREND_SUPPLY, "V", 12, 12, 11.3, 12.2);
	t.code = "V12_RANGE";
	t.warn_low = 11.4;
	t.warn_high = 12.6;
	assert_int_equal(judge(&t, &fs), 2);
	assert_string_equal(fs.f[1].code, "V12_RANGE");
	assert_string_equal(fs.f[1].message, "fell to 11.3 V, past its warn limit 11.4 V");
	t.max = 12.7;
	judge(&t, &fs);
	assert_string_equal(fs.f[1].message, "reached 12.7 V, past its warn limit 12.6 V");

	/* limits without a rule's code: no one to word the advice, nothing */
	t.code = NULL;
	assert_int_equal(judge(&t, &fs), 1); /* the droop's note alone */
	assert_int_equal(fs.f[0].sev, APENET_SEV_OK);
	apenet_findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_notes), cmocka_unit_test(test_crossed) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
