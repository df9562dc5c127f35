/*
 * The BER tests' verdicts (lofamo/rules_ber.c): a lane proven above its
 * target, a test that ended before it proved anything (how many more bits,
 * how long, the --max-time that allows it), and a cable's certificate.
 * The --max-time is worked out here from the inputs (what ran plus what is
 * missing, a quarter more and ten seconds), not read back from the rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/rules_test.h"
#include "../unit.h"

static void test_words(void **state)
{
	(void)state;
	assert_string_equal(apenet_rules_ber_verdict_word(APENET_BER_PASS), "pass");
	assert_string_equal(apenet_rules_ber_verdict_word(APENET_BER_FAIL), "fail");
	assert_string_equal(apenet_rules_ber_verdict_word(APENET_BER_CONTINUE), "inconclusive");
}

static void test_lane(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_ber_lane_result r = { .lane = 2, .dir = -1, .bits = 3396175222820ull, .errors = 3442,
					    .lower = 9.852e-10, .verdict = APENET_BER_PASS };
	apenet_rules_ber_lane(&r, 0, "X+", 1e-12, 0.95, &fs);
	r.verdict = APENET_BER_CONTINUE;
	apenet_rules_ber_lane(&r, 0, "X+", 1e-12, 0.95, &fs);
	assert_int_equal(fs.n, 0); /* only a failure is a finding */

	r.verdict = APENET_BER_FAIL;
	apenet_rules_ber_lane(&r, 0, "X+", 1e-12, 0.95, &fs);
	assert_int_equal(fs.n, 1);
	const struct apenet_finding *f = &fs.f[0];
	unit_expect_finding(f, "BER_FAIL", APENET_SEV_FAIL, APENET_SUBJ_LANE, 0, 2);
	assert_string_equal(f->where, "X+");
	assert_string_equal(f->message, "X+ lane 2: BER above 1e-12 at 0.95 confidence (3442 errors in 3396175222820 bits)");
	assert_true(f->value == 9.852e-10 && f->threshold == 1e-12);
	assert_string_equal(f->rec, "tune the lane's PMA settings (apenet sweep) or replace the cable");
	assert_non_null(strstr(f->evidence, "lower bound 9.85e-10"));

	/* both ends: the direction is named */
	r.dir = 1;
	apenet_rules_ber_lane(&r, 0, "X+", 1e-12, 0.95, &fs);
	r.dir = 0;
	apenet_rules_ber_lane(&r, 0, "X+", 1e-12, 0.95, &fs);
	assert_non_null(strstr(fs.f[1].message, "X+ lane 2 (this end -> far end): "));
	assert_non_null(strstr(fs.f[2].message, "X+ lane 2 (far end -> this end): "));
	apenet_findings_free(&fs);
}

static void test_not_proven(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	/* 10 s ran; 1e12 more bits at 1e10 a second is 100 s more:
	 * (10 + 100) x 1.25 + 10 = 147.5, so --max-time 148 */
	struct apenet_ber_short s = { .target = 1e-12, .cl = 0.95, .least_bits = 2000000000000ull, .errors = 1,
				      .elapsed_s = 10, .more_bits = 1e12, .lane_bps = 1e10 };
	apenet_rules_ber_not_proven(&s, 3, "Y-", &fs);
	assert_int_equal(fs.n, 1);
	const struct apenet_finding *f = &fs.f[0];
	unit_expect_finding(f, "BER_NOT_PROVEN", APENET_SEV_WARN, APENET_SUBJ_LINK, 3, -1); /* never a failure */
	assert_true(f->value == 1e12);
	assert_string_equal(f->unit, "bits");
	assert_string_equal(f->message, "Y-: inconclusive: the test did not run long enough to prove 1e-12 at 0.95 "
					"confidence; 1e+12 more bits a lane (about 1m40s at this rate) would prove it if no "
					"more errors come");
	char want[400];
	snprintf(want, sizeof(want), "%s; --max-time 148 (2m28s) allows it", apenet_code_rec("BER_NOT_PROVEN"));
	assert_string_equal(f->rec, want);
	assert_null(strstr(f->rec, "replace"));
	assert_string_equal(f->evidence, "1 errors, at least 2e+12 bits a lane checked in 10.0 s; upper bound above 1e-12");

	/* no length proves it with the errors seen: no --max-time to give */
	s.more_bits = INFINITY;
	apenet_rules_ber_not_proven(&s, 3, "Y-", &fs);
	f = &fs.f[1];
	assert_true(f->value == -1);
	assert_string_equal(f->rec, apenet_code_rec("BER_NOT_PROVEN"));
	assert_non_null(strstr(f->message, "neither proves nor disproves 1e-12"));
	apenet_findings_free(&fs);
}

static void test_cable(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_cable_result r = { .serial = "APC00100010", .verdict = APENET_BER_PASS, .bits = 29641550958832ull,
					 .test = { .target = 1e-12, .cl = 0.95 } };
	apenet_rules_cable(&r, 0, "X+", &fs);
	assert_int_equal(fs.n, 0);

	r.verdict = APENET_BER_FAIL;
	r.errors = 11130;
	r.swept = 1;
	apenet_rules_cable(&r, 0, "X+", &fs);
	r.swept = 0;
	r.not_swept = "--no-sweep";
	apenet_rules_cable(&r, 0, "X+", &fs);
	r.not_swept = NULL;
	apenet_rules_cable(&r, 0, "X+", &fs);
	assert_int_equal(fs.n, 3);
	for (size_t i = 0; i < 3; i++) {
		unit_expect_finding(&fs.f[i], "CABLE_NOT_QUALIFIED", APENET_SEV_FAIL, APENET_SUBJ_LINK, 0, -1);
		assert_string_equal(fs.f[i].rec, apenet_code_rec("CABLE_NOT_QUALIFIED")); /* one wording, whatever happened */
		assert_non_null(strstr(fs.f[i].rec, "replace the cable by its serial"));
	}
	assert_string_equal(fs.f[0].message, "X+: cable APC00100010 fails 1e-12 at 0.95 confidence even at the setting a "
					     "sweep chose (11130 errors in 29641550958832 bits)");
	assert_non_null(strstr(fs.f[1].message, "fails 1e-12 at 0.95 confidence at the settings it has (not swept: "
						"--no-sweep) (11130 errors"));
	assert_non_null(strstr(fs.f[2].message, "fails 1e-12 at 0.95 confidence (11130 errors"));

	/* inconclusive: a warning about the cable's test, never "replace" */
	r.verdict = APENET_BER_CONTINUE;
	r.test = (struct apenet_ber_short){ .target = 1e-12, .cl = 0.95, .least_bits = 1000, .elapsed_s = 5,
					    .more_bits = 5e11, .lane_bps = 1e10 };
	apenet_rules_cable(&r, 0, "X+", &fs);
	assert_int_equal(fs.n, 4);
	const struct apenet_finding *f = &fs.f[3];
	unit_expect_finding(f, "CABLE_INCONCLUSIVE", APENET_SEV_WARN, APENET_SUBJ_LINK, 0, -1);
	assert_non_null(strstr(f->message, "X+: inconclusive: the test of cable APC00100010 did not run long enough"));
	/* (5 + 50) x 1.25 + 10 = 78.75: 79 */
	assert_non_null(strstr(f->rec, "; --max-time 79 (1m19s) allows it"));
	assert_null(strstr(f->rec, "replace"));
	apenet_findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_words), cmocka_unit_test(test_lane),
					    cmocka_unit_test(test_not_proven), cmocka_unit_test(test_cable) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
