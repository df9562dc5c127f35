/*
 * The output writer out of memory: it must neither exit nor crash.
 *
 * This binary is linked with -Wl,--wrap for the allocation functions the
 * writer uses (Makefile, TEST_LDFLAGS): __wrap_* fail the n-th allocation
 * when told to.  Every allocation of a document is made to fail in turn; each
 * time apenet_out_finish must print nothing, return -1 with errno ENOMEM,
 * log one error, and leave nothing allocated (ASan's leak check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/log.h"
#include "apenet/out.h"

/* 0: allocations succeed; n > 0: the n-th from now fails, and the rest too
 * (a process out of memory stays so for a while). */
static long fail_at;
static long calls;

static int should_fail(void)
{
	calls++;
	return fail_at > 0 && calls >= fail_at;
}

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
char *__real_strdup(const char *s);
int __real_vasprintf(char **s, const char *fmt, va_list ap);
int __real___vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
char *__wrap_strdup(const char *s);
int __wrap_vasprintf(char **s, const char *fmt, va_list ap);
int __wrap___vasprintf_chk(char **s, int flag, const char *fmt, va_list ap);

void *__wrap_malloc(size_t n)
{
	return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
	return should_fail() ? NULL : __real_calloc(n, m);
}

char *__wrap_strdup(const char *s)
{
	return should_fail() ? NULL : __real_strdup(s);
}

int __wrap_vasprintf(char **s, const char *fmt, va_list ap)
{
	return should_fail() ? -1 : __real_vasprintf(s, fmt, ap);
}

/* What vasprintf becomes with _FORTIFY_SOURCE (the non-sanitizer build). */
int __wrap___vasprintf_chk(char **s, int flag, const char *fmt, va_list ap)
{
	return should_fail() ? -1 : __real___vasprintf_chk(s, flag, fmt, ap);
}

static int logged;
static char last_log[APENET_LOG_MSG_MAX];

static void log_sink(void *ctx, int level, const char *msg)
{
	(void)ctx;
	if (level == APENET_LOG_ERR) {
		logged++;
		snprintf(last_log, sizeof(last_log), "%s", msg);
	}
}

/* A document with every kind of node, nested. */
static void build(struct apenet_out *o)
{
	apenet_out_str(o, "name", "board \"one\"");
	apenet_out_strf(o, "bdf", "%04x:%02x:%02x.%d", 0, 3, 0, 0);
	apenet_out_obj_begin_text(o, "node", "1,0,0");
	apenet_out_uint(o, "x", 1);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "links");
	for (int i = 0; i < 3; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_int(o, "index", i);
		apenet_out_hex(o, "state", 0x10u + (unsigned)i, 4);
		apenet_out_dbl(o, "rate", 1.5 * i, 2);
		apenet_out_bool(o, "up", i != 1);
		apenet_out_null(o, "partner");
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_arr_begin_vertical(o, "modules");
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "vendor", "ACME");
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
}

/* Renders the document with allocation fail_at failing; returns finish's result. */
static int render(enum apenet_out_fmt fmt, long at, char **text, size_t *len)
{
	FILE *f = open_memstream(text, len);
	assert_non_null(f);
	calls = 0;
	fail_at = at;
	struct apenet_out *o = apenet_out_new(fmt, f, "oomtest");
	build(o);
	errno = 0;
	int rc = apenet_out_finish(o);
	int err = errno;
	fail_at = 0;
	assert_int_equal(fclose(f), 0);
	errno = err;
	return rc;
}

static void test_every_allocation_may_fail(void **state)
{
	(void)state;
	apenet_log_to_callback(log_sink, NULL);
	for (int fmt = APENET_OUT_TEXT; fmt <= APENET_OUT_CSV; fmt++) {
		char *text = NULL;
		size_t len = 0;
		/* How many allocations the whole document takes. */
		assert_int_equal(render((enum apenet_out_fmt)fmt, 0, &text, &len), 0);
		long total = calls;
		assert_true(total > 10);
		assert_true(len > 0);
		free(text);
		for (long at = 1; at <= total; at++) {
			logged = 0;
			text = NULL;
			int rc = render((enum apenet_out_fmt)fmt, at, &text, &len);
			int err = errno;
			assert_int_equal(rc, -1);
			assert_int_equal(err, ENOMEM);
			assert_int_equal(len, 0); /* all or nothing: not half a document */
			assert_int_equal(logged, 1);
			free(text);
		}
		/* Rendering itself allocates nothing: failures start only after the last. */
		text = NULL;
		assert_int_equal(render((enum apenet_out_fmt)fmt, total + 1, &text, &len), 0);
		assert_true(len > 0);
		free(text);
	}
	assert_non_null(strstr(last_log, "out of memory"));
	assert_non_null(strstr(last_log, "oomtest"));
	apenet_log_to_stderr();
}

/* What apenet_out_new gives without memory is NULL; every call takes it. */
static void test_null_writer(void **state)
{
	(void)state;
	apenet_log_to_callback(log_sink, NULL);
	logged = 0;
	build(NULL);
	errno = 0;
	assert_int_equal(apenet_out_finish(NULL), -1);
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(logged, 1);
	apenet_out_discard(NULL);
	apenet_log_to_stderr();
}

/* Failed then discarded (the caller gave up for its own reasons): no leak, no log. */
static void test_discard_after_failure(void **state)
{
	(void)state;
	apenet_log_to_callback(log_sink, NULL);
	logged = 0;
	calls = 0;
	fail_at = 5;
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, stdout, "x");
	build(o);
	fail_at = 0;
	apenet_out_discard(o);
	assert_int_equal(logged, 0);
	apenet_log_to_stderr();
}

/* A stream allocates nothing once it is made: every allocation failing,
 * thousands of values are written whole. */
static void test_stream_allocates_nothing(void **state)
{
	(void)state;
	for (int fmt = APENET_OUT_JSON; fmt <= APENET_OUT_JSON_LINE; fmt += APENET_OUT_JSON_LINE - APENET_OUT_JSON) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		assert_non_null(f);
		calls = 0;
		fail_at = 0;
		struct apenet_out *o = apenet_out_stream((enum apenet_out_fmt)fmt, f, "stream");
		assert_non_null(o);
		fail_at = calls + 1;
		build(o);
		apenet_out_arr_begin(o, "samples");
		for (int i = 0; i < 5000; i++) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_uint(o, "n", (uint64_t)i);
			apenet_out_strf(o, "s", "sample %d", i);
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		assert_int_equal(apenet_out_finish(o), 0);
		fail_at = 0;
		assert_int_equal(fclose(f), 0);
		assert_non_null(strstr(text, "\"vendor\""));
		assert_non_null(strstr(text, "{\"n\":4999,\"s\":\"sample 4999\"}"));
		free(text);
	}
	/* and a record in memory, once made */
	calls = 0;
	struct apenet_out *o = apenet_out_mem();
	fail_at = calls + 1;
	build(o);
	char b[1024];
	assert_true(apenet_out_mem_finish(o, b, sizeof(b)) > 100);
	fail_at = 0;
	assert_non_null(strstr(b, "\"bdf\":\"0000:03:00.0\""));
}

/* A string too long for the stack, without memory for it: written as null,
 * the document whole, finish says it failed (and logs it once). */
static void test_stream_strf_fails(void **state)
{
	(void)state;
	apenet_log_to_callback(log_sink, NULL);
	logged = 0;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	struct apenet_out *o = apenet_out_stream(APENET_OUT_JSON_LINE, f, "strf");
	calls = 0;
	fail_at = 1;
	apenet_out_strf(o, "long", "%300s", "x");
	apenet_out_int(o, "after", 1);
	errno = 0;
	assert_int_equal(apenet_out_finish(o), -1);
	fail_at = 0;
	assert_int_equal(fclose(f), 0);
	assert_string_equal(text, "{\"long\":null,\"after\":1}\n");
	assert_int_equal(logged, 1);
	assert_non_null(strstr(last_log, "strf"));
	free(text);
	/* a memory stream that could not be made */
	logged = 0;
	calls = 0;
	fail_at = 1;
	o = apenet_out_mem();
	fail_at = 0;
	assert_null(o);
	char b[8] = "x";
	errno = 0;
	assert_int_equal(apenet_out_mem_finish(o, b, sizeof(b)), -1);
	assert_int_equal(errno, ENOMEM);
	assert_string_equal(b, "");
	assert_int_equal(logged, 1);
	apenet_log_to_stderr();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_allocation_may_fail),
		cmocka_unit_test(test_null_writer),
		cmocka_unit_test(test_discard_after_failure),
		cmocka_unit_test(test_stream_allocates_nothing),
		cmocka_unit_test(test_stream_strf_fails),
	};
	return cmocka_run_group_tests_name("out_oom", tests, NULL, NULL);
}
