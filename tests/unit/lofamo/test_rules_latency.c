/*
 * Latency determinism (lofamo/rules_latency.c): one latency over every
 * alignment passes, two or more fail however close, with the spread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "apenet/rules_test.h"
#include "../unit.h"

static void test_latency(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	const uint32_t one[] = { 146663 };
	assert_int_equal(apenet_rules_latency(one, 1, 20, 0, "X+", &fs), APENET_BER_PASS);
	assert_int_equal(fs.n, 0);

	const uint32_t two[] = { 146663, 146664 }; /* a picosecond apart: still two */
	assert_int_equal(apenet_rules_latency(two, 2, 20, 2, "Y+", &fs), APENET_BER_FAIL);
	assert_int_equal(fs.n, 1);
	const struct apenet_finding *f = &fs.f[0];
	unit_expect_finding(f, "LATENCY_NOT_DETERMINISTIC", APENET_SEV_FAIL, APENET_SUBJ_LINK, 2, -1);
	assert_string_equal(f->message, "Y+: 2 different latencies in 20 alignments, 146663 to 146664 ps");
	assert_true(f->value == 1 && f->threshold == 0);
	assert_string_equal(f->unit, "ps");
	assert_string_equal(f->evidence, "LINK_LATENCY_PS after each REALIGN");
	assert_string_equal(f->rec, apenet_code_rec("LATENCY_NOT_DETERMINISTIC"));

	/* nothing measured proves nothing: not a pass */
	assert_int_equal(apenet_rules_latency(NULL, 0, 0, 0, "X+", &fs), APENET_BER_FAIL);
	assert_int_equal(fs.n, 1);
	apenet_findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_latency) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
