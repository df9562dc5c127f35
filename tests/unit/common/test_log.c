/*
 * The library's log hook (common/log.c) and what goes through it: the
 * callback sink gets level and message, the threshold filters, the stderr
 * sink prints "apenet: ..." lines, every sink gets the message with its
 * control characters escaped (one line, no terminal escape), and libpci's
 * fatal errors come back from apenet_pci_scan as error codes with the
 * process carrying on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/dev.h"
#include "apenet/log.h"
#include "apenet/sampler.h"

struct seen {
	int n;
	int level[8];
	char msg[8][APENET_LOG_MSG_MAX];
};

static void collect(void *ctx, int level, const char *msg)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		s->level[s->n] = level;
		snprintf(s->msg[s->n], sizeof(s->msg[s->n]), "%s", msg);
	}
	s->n++;
}

static int reset(void **state)
{
	(void)state;
	apenet_log_to_stderr();
	apenet_log_set_level(APENET_LOG_NOTICE);
	return 0;
}

static void test_callback_gets_level_and_message(void **state)
{
	(void)state;
	struct seen s = { 0 };
	apenet_log_to_callback(collect, &s);
	apenet_log(APENET_LOG_ERR, "card %s: %d", "0000:03:00.0", 7);
	apenet_log(APENET_LOG_WARN, "warned");
	assert_int_equal(s.n, 2);
	assert_int_equal(s.level[0], APENET_LOG_ERR);
	assert_string_equal(s.msg[0], "card 0000:03:00.0: 7");
	assert_int_equal(s.level[1], APENET_LOG_WARN);
	assert_string_equal(s.msg[1], "warned");
}

static void test_threshold_filters(void **state)
{
	(void)state;
	struct seen s = { 0 };
	apenet_log_to_callback(collect, &s);
	assert_int_equal(apenet_log_get_level(), APENET_LOG_NOTICE); /* the default */
	apenet_log(APENET_LOG_INFO, "hidden");
	apenet_log(APENET_LOG_DEBUG, "hidden");
	apenet_log(APENET_LOG_NOTICE, "shown");
	assert_int_equal(s.n, 1);
	assert_string_equal(s.msg[0], "shown");
	assert_false(apenet_log_enabled(APENET_LOG_INFO));

	apenet_log_set_level(APENET_LOG_ERR);
	apenet_log(APENET_LOG_WARN, "hidden");
	apenet_log(APENET_LOG_ERR, "an error");
	assert_int_equal(s.n, 2);

	apenet_log_set_level(APENET_LOG_DEBUG);
	assert_true(apenet_log_enabled(APENET_LOG_DEBUG));
	apenet_log(APENET_LOG_DEBUG, "now shown");
	assert_int_equal(s.n, 3);
	assert_int_equal(s.level[2], APENET_LOG_DEBUG);

	/* Out-of-range levels count as the nearest one. */
	apenet_log_set_level(99);
	assert_int_equal(apenet_log_get_level(), APENET_LOG_DEBUG);
	apenet_log(-5, "as an error");
	assert_int_equal(s.level[3], APENET_LOG_ERR);
}

static void test_long_message_is_cut(void **state)
{
	(void)state;
	struct seen s = { 0 };
	char big[3000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	apenet_log_to_callback(collect, &s);
	apenet_log(APENET_LOG_ERR, "%s", big);
	assert_int_equal(strlen(s.msg[0]), APENET_LOG_MSG_MAX - 1);
	assert_string_equal(s.msg[0] + APENET_LOG_MSG_MAX - 4, "...");
}

/* Fields from outside (issue 21) never end a line nor reach a terminal as
 * control: the whole message is escaped (apenet/esc.h) before any sink. */
static void test_hostile_fields_escaped(void **state)
{
	(void)state;
	struct seen s = { 0 };
	apenet_log_to_callback(collect, &s);
	apenet_log(APENET_LOG_WARN, "report %s seq %d not stored: %s", "b\nJan  1 00:00:00 host sshd[1]: forged", 7,
		   "\x1b[2J\x1b]0;pwned\a\xc2\x9b\xff");
	assert_string_equal(s.msg[0], "report b\\x0aJan  1 00:00:00 host sshd[1]: forged seq 7 not stored: "
				      "\\x1b[2J\\x1b]0;pwned\\x07\\xc2\\x9b\\xff");
	/* a message that grows past the limit when escaped is cut between
	 * escapes, and says so */
	char big[600];
	memset(big, 0x1b, sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	apenet_log(APENET_LOG_ERR, "%s", big);
	size_t l = strlen(s.msg[1]);
	assert_true(l <= APENET_LOG_MSG_MAX - 1 && l > APENET_LOG_MSG_MAX - 8);
	assert_string_equal(s.msg[1] + l - 7, "\\x1b...");
	for (const char *p = s.msg[1]; *p; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

static void test_level_names(void **state)
{
	(void)state;
	const char *names[] = { "err", "warn", "notice", "info", "debug" };
	for (int i = 0; i < 5; i++) {
		assert_int_equal(apenet_log_level_parse(names[i]), APENET_LOG_ERR + i);
		assert_string_equal(apenet_log_level_name(APENET_LOG_ERR + i), names[i]);
	}
	assert_int_equal(apenet_log_level_parse("loud"), -1);
	assert_int_equal(apenet_log_level_parse(NULL), -1);
}

/* Runs fn with stderr sent to a temporary file; returns what it printed. */
static void capture_stderr(void (*fn)(void), char *out, size_t n)
{
	char path[] = "/tmp/apenet-log-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ssize_t r = pread(fd, out, n - 1, 0);
	out[r > 0 ? r : 0] = 0;
	close(fd);
	unlink(path);
}

static void say_things(void)
{
	apenet_log(APENET_LOG_ERR, "no card");
	apenet_log(APENET_LOG_WARN, "odd");
	apenet_log(APENET_LOG_INFO, "not shown");
}

static void test_stderr_sink(void **state)
{
	(void)state;
	char out[256];
	apenet_log_to_stderr();
	capture_stderr(say_things, out, sizeof(out));
	assert_string_equal(out, "apenet: no card\napenet: warning: odd\n");
}

static void test_syslog_sink(void **state)
{
	(void)state;
	/* Where syslog goes cannot be seen from here; switching to it and back,
	 * and logging through it, must simply work. */
	apenet_log_to_syslog("apenet-test");
	apenet_log(APENET_LOG_DEBUG, "below the threshold");
	apenet_log_to_syslog(NULL);
	apenet_log_to_stderr();
	char out[64];
	capture_stderr(say_things, out, sizeof(out));
	assert_non_null(strstr(out, "apenet: no card"));
}

static void say_hostile(void)
{
	apenet_log(APENET_LOG_ERR, "boot %s", "a\nforged\r\x1b[H");
}

static void test_stderr_sink_escapes(void **state)
{
	(void)state;
	char out[256];
	apenet_log_to_stderr();
	capture_stderr(say_hostile, out, sizeof(out));
	assert_string_equal(out, "apenet: boot a\\x0aforged\\x0d\\x1b[H\n");
}

/* ---- libpci's fatal errors come back as error codes ---- */

static int count_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A node directory whose pci.lspci holds text; its path into dir. */
static void node_with_dump(char *dir, size_t n, const char *text)
{
	snprintf(dir, n, "/tmp/apenet-pci-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, APENET_SIM_DUMP);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_node(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, APENET_SIM_DUMP);
	unlink(p);
	rmdir(dir);
}

static void write_file(const char *path, const char *text)
{
	/* Through a rename, as the emulator publishes its dump: a reader sees
	 * the old file or the new one, never half of it. */
	char tmp[PATH_MAX + 8];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

static char *read_text(const char *rel)
{
	const char *src = getenv("APENET_SRCDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", src ? src : ".", rel);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char text[16384];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = 0;
	fclose(f);
	return text;
}

static void scan_fails(const char *dump, const char *want)
{
	char dir[64];
	struct apenet_site site;
	struct apenet_card cards[APENET_MAX_CARDS];
	struct apenet_err e = { 0 };
	int n = 5;
	node_with_dump(dir, sizeof(dir), dump);
	assert_int_equal(apenet_site_init(&site, dir, &e), 0);
	int fds = count_fds();
	/* libpci would have exited the process on the first of these. */
	for (int i = 0; i < 200; i++) {
		memset(&e, 0, sizeof(e));
		assert_int_equal(apenet_pci_scan(&site, cards, APENET_MAX_CARDS, &n, &e), -1);
		assert_int_equal(e.code, APENET_EIO);
		assert_int_equal(n, 0);
	}
	printf("%s\n", e.msg);
	assert_non_null(strstr(e.msg, "libpci: "));
	assert_non_null(strstr(e.msg, want));
	assert_non_null(strstr(e.msg, site.dump));
	assert_int_equal(count_fds(), fds); /* nothing left open behind */
	remove_node(dir);
}

static void test_libpci_fatal_errors_return(void **state)
{
	(void)state;
	/* Config-space bytes that are not hex. */
	scan_fails("0000:03:00.0 Processing accelerators\n00: zz 11\n", "Malformed line");
	/* An offset past the 4096 bytes of config space. */
	scan_fails("0000:03:00.0 Processing accelerators\n1000: 00\n", "4096");
}

/* An offset libpci would take as a negative int (and write before its
 * buffer): refused before libpci reads the file, with file and line. */
static void test_dump_offset_libpci_cannot_take(void **state)
{
	(void)state;
	char dir[64];
	struct apenet_site site;
	struct apenet_card cards[APENET_MAX_CARDS];
	struct apenet_err e = { 0 };
	int n = 5;
	node_with_dump(dir, sizeof(dir), "0000:03:00.0 Processing accelerators\n00: 72 11\nf8444440: 00 00\n");
	assert_int_equal(apenet_site_init(&site, dir, &e), 0);
	assert_int_equal(apenet_pci_scan(&site, cards, APENET_MAX_CARDS, &n, &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	assert_int_equal(n, 0);
	assert_non_null(strstr(e.msg, site.dump));
	assert_non_null(strstr(e.msg, ":3: config-space offset 0xf8444440"));
	remove_node(dir);
}

static void test_scan_works_after_a_fatal_error(void **state)
{
	(void)state;
	char bad[64], good[64];
	struct apenet_site site;
	struct apenet_card cards[APENET_MAX_CARDS];
	struct apenet_err e = { 0 };
	int n = 0;
	node_with_dump(bad, sizeof(bad), "0000:03:00.0 Processing accelerators\n00: zz\n");
	assert_int_equal(apenet_site_init(&site, bad, &e), 0);
	assert_int_equal(apenet_pci_scan(&site, cards, APENET_MAX_CARDS, &n, &e), -1);
	/* A well-formed dump of an APEnet+ (tests/data) scans as before. */
	node_with_dump(good, sizeof(good), read_text("tests/data/apenet-gen2x8.lspci"));
	assert_int_equal(apenet_site_init(&site, good, &e), 0);
	assert_int_equal(apenet_pci_scan(&site, cards, APENET_MAX_CARDS, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_string_equal(cards[0].bdf, "0000:03:00.0");
	remove_node(bad);
	remove_node(good);
}

/* The sampler's long-lived libpci handle: a dump that turns bad is an error
 * on that read, and the handle recovers when the dump is good again. */
static void test_pci_handle_survives_a_bad_dump(void **state)
{
	(void)state;
	char dir[64], dump[PATH_MAX];
	const char *good = read_text("tests/data/apenet-gen2x8.lspci");
	struct apenet_site site;
	struct apenet_err e = { 0 };
	struct apenet_pci_handle *h = NULL;
	struct apenet_card c;
	node_with_dump(dir, sizeof(dir), "0000:03:00.0 Processing accelerators\n00: zz\n");
	snprintf(dump, sizeof(dump), "%s/%s", dir, APENET_SIM_DUMP);
	assert_int_equal(apenet_site_init(&site, dir, &e), 0);
	assert_int_equal(apenet_pci_handle_open(&site, "0000:03:00.0", &h, &e), -1);
	assert_non_null(strstr(e.msg, "libpci: dump: Malformed line"));

	write_file(dump, good);
	assert_int_equal(apenet_pci_handle_open(&site, "0000:03:00.0", &h, &e), 0);
	assert_int_equal(apenet_pci_handle_read(h, &c, &e), 0);
	assert_true(c.pcie_ok);

	/* Bad, with a different size so that the handle sees the change. */
	write_file(dump, "0000:03:00.0 Processing accelerators\n00: zz 11 22\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(apenet_pci_handle_read(h, &c, &e), -1);
	assert_non_null(strstr(e.msg, "libpci: dump: Malformed line"));
	assert_int_equal(apenet_pci_handle_read(h, &c, &e), -1); /* and again, still no exit */

	write_file(dump, good);
	assert_int_equal(apenet_pci_handle_read(h, &c, &e), 0);
	assert_true(c.pcie_ok);
	apenet_pci_handle_close(h);
	remove_node(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_callback_gets_level_and_message, reset),
		cmocka_unit_test_teardown(test_threshold_filters, reset),
		cmocka_unit_test_teardown(test_long_message_is_cut, reset),
		cmocka_unit_test_teardown(test_hostile_fields_escaped, reset),
		cmocka_unit_test_teardown(test_level_names, reset),
		cmocka_unit_test_teardown(test_stderr_sink, reset),
		cmocka_unit_test_teardown(test_syslog_sink, reset),
		cmocka_unit_test_teardown(test_stderr_sink_escapes, reset),
		cmocka_unit_test_teardown(test_libpci_fatal_errors_return, reset),
		cmocka_unit_test_teardown(test_dump_offset_libpci_cannot_take, reset),
		cmocka_unit_test_teardown(test_scan_works_after_a_fatal_error, reset),
		cmocka_unit_test_teardown(test_pci_handle_survives_a_bad_dump, reset),
	};
	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
