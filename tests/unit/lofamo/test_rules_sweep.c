/*
 * A sweep's verdict (lofamo/rules_sweep.c): the chosen setting's upper
 * bound against the target (at it passes), inconclusive when --max-time
 * ended the sweep first, else a failure.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "apenet/rules_test.h"
#include "../unit.h"

static void test_sweep(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_sweep_result r = { .target = 1e-12, .cl = 0.95, .best_upper = 1e-12, .points = 376, .max_s = 3600 };
	/* at the target is below it: the bound proves BER <= target */
	assert_int_equal(apenet_rules_sweep(&r, 0, "X+", &fs), APENET_BER_PASS);
	r.timed_out = 1; /* a pass found before --max-time stands */
	r.best_upper = 5e-13;
	assert_int_equal(apenet_rules_sweep(&r, 0, "X+", &fs), APENET_BER_PASS);
	assert_int_equal(fs.n, 0);

	r.best_upper = 1.0001e-12;
	assert_int_equal(apenet_rules_sweep(&r, 0, "X+", &fs), APENET_BER_CONTINUE);
	assert_int_equal(fs.n, 1);
	unit_expect_finding(&fs.f[0], "SWEEP_INCOMPLETE", APENET_SEV_WARN, APENET_SUBJ_LINK, 0, -1);
	assert_string_equal(fs.f[0].message, "X+: inconclusive: the sweep reached --max-time (1h00m) after 376 points, "
					     "before a setting below 1e-12 was proven (best upper bound 1e-12)");
	assert_string_equal(fs.f[0].rec, apenet_code_rec("SWEEP_INCOMPLETE"));

	r.timed_out = 0;
	r.best_upper = 5.3e-10;
	assert_int_equal(apenet_rules_sweep(&r, 1, "X-", &fs), APENET_BER_FAIL);
	assert_int_equal(fs.n, 2);
	unit_expect_finding(&fs.f[1], "SWEEP_NO_SETTING", APENET_SEV_FAIL, APENET_SUBJ_LINK, 1, -1);
	assert_string_equal(fs.f[1].message, "X-: no setting measured below 1e-12 at 0.95 confidence (best upper bound 5.3e-10)");
	assert_non_null(strstr(fs.f[1].rec, "replace the cable"));
	apenet_findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_sweep) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
