/* The latency histogram of `apenet latency-check` (collectors/latency.c):
 * distinct values ascending with their counts, whatever the order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "apenet/latency.h"

static void test_hist(void **state)
{
	(void)state;
	uint32_t val[8];
	unsigned cnt[8];
	assert_int_equal(apenet_latency_hist(NULL, 0, val, cnt), 0);
	const uint32_t one[] = { 146663, 146663, 146663 };
	assert_int_equal(apenet_latency_hist(one, 3, val, cnt), 1);
	assert_int_equal(val[0], 146663);
	assert_int_equal(cnt[0], 3);
	const uint32_t many[] = { 300, 100, 200, 100, 300, 300, 0xffffffffu, 100 };
	size_t k = apenet_latency_hist(many, 8, val, cnt);
	assert_int_equal(k, 4);
	const uint32_t wv[] = { 100, 200, 300, 0xffffffffu };
	const unsigned wc[] = { 3, 1, 3, 1 };
	for (size_t i = 0; i < k; i++) {
		assert_int_equal(val[i], wv[i]);
		assert_int_equal(cnt[i], wc[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_hist) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
