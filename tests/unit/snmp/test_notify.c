/*
 * The notifier's pieces that need no receiver: its config check (each bad
 * setting named), the MIB's value encodings (decimal text, LDM summary),
 * net-snmp's log routed into apenet_log whole lines at a time, and a
 * notifier whose supervisors do not answer: it stores, polls and
 * dispatches without blocking and keeps every report.  The exchanges with a
 * real receiver are in tests/e2e/test_e2e_notify.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/keys.h"
#include "apenet/log.h"
#include "apenet/notify.h"
#include "apenet/regs.h"

static char dir[256];
static char logged[16384];
static int nwarn;

static void collect(void *ctx, int level, const char *msg)
{
	(void)ctx;
	size_t off = strlen(logged);
	snprintf(logged + off, sizeof(logged) - off, "%d %s\n", level, msg);
	if (level <= APENET_LOG_WARN)
		nwarn++;
}

static int group_setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-notify-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	apenet_log_to_callback(collect, NULL);
	apenet_log_set_level(APENET_LOG_DEBUG);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	apenet_log_to_stderr();
	apenet_log_set_level(APENET_LOG_NOTICE);
	return system(cmd) == 0 ? 0 : -1;
}

static void expect_bad(const struct apenet_notify_config *c, const char *what)
{
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_notify_config_check(c, &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	if (!strstr(e.msg, what))
		fail_msg("expected '%s' in: %s", what, e.msg);
}

static void test_config_check(void **state)
{
	(void)state;
	struct apenet_notify_config c;
	struct apenet_err e = { 0 };
	apenet_notify_config_defaults(&c);
	assert_int_equal(apenet_notify_config_check(&c, &e), 0);
	assert_int_equal(c.nsupervisors, 2); /* duplicated supervisors by default */
	assert_int_equal(c.version, APENET_SNMP_V3); /* authenticated by default */

	static const char *const good[] = { "sup", "10.0.0.1:162", "[::1]:1162", "[fe80::1%eth0]:162", "a-b.c_d:65535" };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		apenet_notify_config_defaults(&c);
		snprintf(c.supervisors[0], sizeof(c.supervisors[0]), "%s", good[i]);
		if (apenet_notify_config_check(&c, &e))
			fail_msg("%s refused: %s", good[i], e.msg);
	}
	static const struct {
		const char *addr, *why;
	} bad[] = {
		{ "", "supervisors[0]: '': empty" },
		{ "sup:0", "port '0' is not a number in 1..65535" },
		{ "sup:65536", "1..65535" },
		{ "sup:16x", "port '16x'" },
		{ "sup:", "port ''" },
		{ "::1:162", "an IPv6 address goes in brackets" },
		{ "[::1:162", "closing ']'" },
		{ "[::1]162", "expected ':port'" },
		{ ":162", "no host" },
		{ "sup 1:162", "' ' cannot be in a host name" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		apenet_notify_config_defaults(&c);
		snprintf(c.supervisors[0], sizeof(c.supervisors[0]), "%s", bad[i].addr);
		expect_bad(&c, bad[i].why);
	}
	apenet_notify_config_defaults(&c);
	snprintf(c.supervisors[1], sizeof(c.supervisors[1]), "%s", c.supervisors[0]);
	expect_bad(&c, "supervisors[1]: 'apenet-sup1:162' is listed twice");
	apenet_notify_config_defaults(&c);
	c.nsupervisors = 0;
	expect_bad(&c, "supervisors: 0 given");
	c.nsupervisors = APENET_NOTIFY_MAX_SUPERVISORS + 1;
	expect_bad(&c, "supervisors: 9 given");
	apenet_notify_config_defaults(&c);
	c.version = 1;
	expect_bad(&c, "version: 1 is neither");
	apenet_notify_config_defaults(&c);
	c.version = APENET_SNMP_V2C;
	c.community[0] = 0;
	expect_bad(&c, "community");
	apenet_notify_config_defaults(&c);
	/* SNMPv3 with a key file is the default */
	assert_int_equal(c.version, APENET_SNMP_V3);
	assert_int_equal(apenet_notify_config_check(&c, &e), 0);
	snprintf(c.key_file, sizeof(c.key_file), "node.key");
	expect_bad(&c, "key_file: 'node.key' is not an absolute path");
	c.version = APENET_SNMP_V2C;
	assert_int_equal(apenet_notify_config_check(&c, &e), 0); /* v2c needs no key */
	apenet_notify_config_defaults(&c);
	c.timeout_ms = 5;
	expect_bad(&c, "timeout_ms: 5");
	apenet_notify_config_defaults(&c);
	c.retries = 100; /* the config's range (common/config_sup.c) */
	assert_int_equal(apenet_notify_config_check(&c, &e), 0);
	c.retries = 101;
	expect_bad(&c, "retries: 101 is outside 0..100");
	apenet_notify_config_defaults(&c);
	c.backoff_ms = 5;
	expect_bad(&c, "backoff_ms: 5 is outside 10..3600000");
	apenet_notify_config_defaults(&c);
	c.spool_max_bytes = 65536; /* spool_max_mib 0.0625 */
	assert_int_equal(apenet_notify_config_check(&c, &e), 0);
	c.spool_max_bytes = 100;
	expect_bad(&c, "spool_max_mib: 9.5367431640625e-05 is outside 0.0625..65536");
	apenet_notify_config_defaults(&c);
	c.spool[0] = 0;
	expect_bad(&c, "spool: no path");
}

static void test_decimal(void **state)
{
	(void)state;
	char b[40];
	assert_string_equal(apenet_report_decimal(NAN, b, sizeof(b)), "");
	assert_string_equal(apenet_report_decimal(71.3, b, sizeof(b)), "71.3");
	assert_string_equal(apenet_report_decimal(95, b, sizeof(b)), "95");
	assert_string_equal(apenet_report_decimal(-0.5, b, sizeof(b)), "-0.5");
	assert_string_equal(apenet_report_decimal(7.04e-11, b, sizeof(b)), "7.04e-11");
	/* Nothing is lost: it reads back to the same double. */
	assert_string_equal(apenet_report_decimal(0.1 + 0.2, b, sizeof(b)), "0.30000000000000004");
	assert_true(strtod(b, NULL) == 0.1 + 0.2);
	assert_true(strlen(apenet_report_decimal(-1.2345678901234567e-300, b, sizeof(b))) <= 32);
}

static void test_ldm_summary(void **state)
{
	(void)state;
	char b[200];
	const uint32_t valid = 1u << 31;
	assert_string_equal(apenet_report_ldm_summary(valid, b, sizeof(b)), "all normal");
	/* temperature (bits 13-12) sick, X+ link (25-24) broken */
	assert_string_equal(apenet_report_ldm_summary(valid | (1u << 12) | (2u << 24), b, sizeof(b)),
			    "temperature sick, X+ link broken");
	assert_string_equal(apenet_report_ldm_summary(valid | (1u << 26), b, sizeof(b)), "host expired");
	apenet_report_ldm_summary(0, b, sizeof(b));
	assert_non_null(strstr(b, "invalid word"));
	apenet_report_ldm_summary(valid | (3u << 2), b, sizeof(b));
	assert_string_equal(b, "memory invalid");
	/* A small buffer is cut, never overrun. */
	char tiny[8];
	apenet_report_ldm_summary(valid | (1u << 12) | (2u << 24), tiny, sizeof(tiny));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(apenet_report_kind_name(APENET_REPORT_HEARTBEAT), "heartbeat");
	assert_string_equal(apenet_report_subject_name(APENET_REPORT_SUBJ_HOST), "host");
	assert_string_equal(apenet_report_subject_name(99), "?");
	assert_string_equal(apenet_report_path_name(APENET_REPORT_PATH_NEIGHBOUR_LDM), "neighbour-ldm");
	assert_string_equal(apenet_notifier_state_name(APENET_NOTIFY_SENDING), "sending");
	struct apenet_report ev;
	apenet_report_init(&ev, APENET_REPORT_HEALTH);
	assert_true(isnan(ev.value) && isnan(ev.threshold));
	assert_int_equal(ev.path, APENET_REPORT_PATH_SELF);
}

static void test_snmp_log_goes_to_apenet_log(void **state)
{
	(void)state;
	char sdir[300];
	struct apenet_err e = { 0 };
	snprintf(sdir, sizeof(sdir), "%s/snmp", dir);
	logged[0] = 0;
	nwarn = 0;
	assert_int_equal(apenet_snmp_init(sdir, &e), 0);
	/* Initializing loads no MIB and complains about none. */
	assert_int_equal(nwarn, 0);
	assert_null(strstr(logged, "Cannot find module"));
	struct stat sb;
	assert_int_equal(stat(sdir, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	/* A line in pieces arrives whole, at its level. */
	logged[0] = 0;
	snmp_log(LOG_WARNING, "part one, ");
	snmp_log(LOG_WARNING, "part two\n");
	snmp_log(LOG_ERR, "an error\n");
	snmp_log(LOG_CRIT, "critical\n");
	assert_non_null(strstr(logged, "4 net-snmp: part one, part two\n"));
	assert_non_null(strstr(logged, "3 net-snmp: an error\n"));
	assert_non_null(strstr(logged, "3 net-snmp: critical\n"));
	/* A flood (a malformed packet a line, from anyone) is held back: of
	 * 100 lines at once, at most the bucket's 10 get through. */
	logged[0] = 0;
	for (int i = 0; i < 100; i++)
		snmp_log(LOG_ERR, "bad type returned (%d)\n", i);
	int lines = 0;
	for (const char *p = logged; (p = strstr(p, "bad type returned")); p++)
		lines++;
	assert_true(lines >= 1 && lines <= 10);
	/* Twice is fine. */
	assert_int_equal(apenet_snmp_init(sdir, &e), 0);
}

static int64_t mono_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void test_unanswered_supervisors_block_nothing(void **state)
{
	(void)state;
	struct apenet_notify_config c;
	struct apenet_err e = { 0 };
	apenet_notify_config_defaults(&c);
	/* Port 9 (discard) on loopback: nothing listens, nobody answers. */
	snprintf(c.supervisors[0], sizeof(c.supervisors[0]), "127.0.0.1:9");
	snprintf(c.supervisors[1], sizeof(c.supervisors[1]), "[::1]:9");
	c.timeout_ms = 100;
	c.retries = 0;
	c.backoff_ms = 100;
	snprintf(c.spool, sizeof(c.spool), "%s/spool.db", dir);
	snprintf(c.snmp_dir, sizeof(c.snmp_dir), "%s/snmp", dir);
	/* SNMPv3, the default: engine ID probes that nobody answers block
	 * nothing either */
	uint8_t secret[APENET_SITE_SECRET_LEN] = { 1 };
	struct apenet_node_key nk;
	snprintf(c.key_file, sizeof(c.key_file), "%s/node.key", dir);
	unlink(c.key_file);
	if (apenet_keys_node(secret, 0, 0, 0, &nk, &e) || apenet_keys_write_node(c.key_file, &nk, (uid_t)-1, (gid_t)-1, &e))
		fail_msg("key: %s", e.msg);
	struct apenet_notifier *n = NULL;
	if (apenet_notifier_open(&c, &n, &e))
		fail_msg("open: %s", e.msg);
	int64_t worst = 0;
	for (int i = 0; i < 20; i++) {
		struct apenet_report ev;
		apenet_report_init(&ev, i % 2 ? APENET_REPORT_HEARTBEAT : APENET_REPORT_HEALTH);
		snprintf(ev.boot, sizeof(ev.boot), "unit");
		int64_t t0 = mono_ms();
		assert_int_equal(apenet_notifier_submit(n, &ev, &e), 0);
		assert_int_equal(ev.seq, (uint64_t)i + 1);
		assert_true(ev.time_ms > 0);
		struct pollfd fds[APENET_NOTIFY_MAX_FDS];
		int timeout = 1000;
		int k = apenet_notifier_pollfds(n, fds, APENET_NOTIFY_MAX_FDS, &timeout);
		assert_true(k >= 0 && k <= 2);
		assert_true(timeout >= 0 && timeout <= 1000);
		/* A descriptor array that is too small says so. */
		if (k > 0) {
			int t2 = -1;
			assert_int_equal(apenet_notifier_pollfds(n, fds, 0, &t2), -1);
			/* -1 (no timeout of the caller's) is lowered to the notifier's. */
			assert_true(t2 >= 0);
		}
		poll(fds, (nfds_t)k, timeout < 30 ? timeout : 30);
		apenet_notifier_dispatch(n, fds, k);
		apenet_notifier_dispatch(n, NULL, 0);
		int64_t d = mono_ms() - t0;
		if (d > worst)
			worst = d;
	}
	/* Every call returned at once (poll waited at most 30 ms). */
	assert_true(worst < 500);
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	assert_int_equal(st.nsupervisors, 2);
	assert_int_equal(st.spool_events, 20);
	assert_int_equal(st.spool_transitions, 10);
	assert_int_equal(st.spool_heartbeats, 10);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(st.sup[i].outstanding, 20);
		assert_int_equal(st.sup[i].acked, 0);
		assert_int_equal(st.sup[i].last_ack_ms, 0);
	}
	apenet_notifier_close(n);
	/* A restarted notifier finds them all. */
	assert_int_equal(apenet_notifier_open(&c, &n, &e), 0);
	apenet_notifier_status(n, &st);
	assert_int_equal(st.spool_events, 20);
	apenet_notifier_close(n);
}

static void test_open_refuses_what_is_not_a_spool(void **state)
{
	(void)state;
	struct apenet_notify_config c;
	struct apenet_err e = { 0 };
	apenet_notify_config_defaults(&c);
	snprintf(c.supervisors[0], sizeof(c.supervisors[0]), "127.0.0.1:9");
	snprintf(c.supervisors[1], sizeof(c.supervisors[1]), "127.0.0.1:10");
	snprintf(c.spool, sizeof(c.spool), "%s/not-a-spool", dir);
	FILE *fp = fopen(c.spool, "w");
	fputs("hello, I am a text file, not a spool\n", fp);
	fclose(fp);
	struct apenet_notifier *n = NULL;
	assert_int_equal(apenet_notifier_open(&c, &n, &e), -1);
	assert_null(n);
	assert_non_null(strstr(e.msg, "not a spool"));
	assert_non_null(strstr(e.msg, c.spool));
	/* And a bad setting before anything is opened. */
	snprintf(c.supervisors[1], sizeof(c.supervisors[1]), "127.0.0.1:0");
	assert_int_equal(apenet_notifier_open(&c, &n, &e), -1);
	assert_non_null(strstr(e.msg, "supervisors[1]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_check),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_ldm_summary),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_snmp_log_goes_to_apenet_log),
		cmocka_unit_test(test_unanswered_supervisors_block_nothing),
		cmocka_unit_test(test_open_refuses_what_is_not_a_spool),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
