/*
 * The daemons' shared start (common/daemon.c): the command line (the
 * common options, a daemon's own with values and flags, a check on a
 * value, what stops it and with which status), the config it loads and
 * the log level it then takes, and the signalfd.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "apenet/daemon.h"
#include "apenet/log.h"

static const char *card, *sim, *inst;
static int json;

static const char *inst_check(const char *v)
{
	return strcmp(v, "1") && strcmp(v, "2") ? "not 1 or 2" : NULL;
}

static const struct apenet_daemon_opt opts[] = {
	{ "--card", "--dev", &card, NULL, NULL },
	{ "--sim", NULL, &sim, NULL, NULL },
	{ "--json", NULL, NULL, &json, NULL },
	{ "--instance", NULL, &inst, NULL, inst_check },
	{ NULL, NULL, NULL, NULL, NULL },
};

/* apenet_daemon_start on a NULL-terminated list of arguments, what it
 * prints (usage, errors) put away. */
static int run(struct apenet_daemon *d, struct apenet_config *cfg, const char *const *args)
{
	char *argv[16] = { "apenet-test" };
	int argc = 1;
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	memset(d, 0, sizeof(*d));
	d->name = "apenet-test";
	d->usage = "usage: apenet-test\n";
	d->version = "apenet-test 0";
	d->section = "agent";
	d->opts = opts;
	card = sim = inst = NULL;
	json = 0;
	static FILE *null;
	if (!null)
		assert_non_null(null = fopen("/dev/null", "w"));
	d->out = d->err = null; /* the usage and the errors */
	int rc = apenet_daemon_start(d, argc, argv, cfg);
	return rc;
}

static void test_stops(void **state)
{
	(void)state;
	static struct apenet_daemon d;
	static struct apenet_config cfg;
	static const struct {
		const char *args[4];
		int status;
	} t[] = {
		{ { "--help", NULL }, 0 },
		{ { "-h", NULL }, 0 },
		{ { "--version", NULL }, 0 },
		{ { "--bogus", NULL }, 2 },
		{ { "--card", NULL }, 2 },                /* needs a value */
		{ { "--json", "--sim", NULL }, 2 },
		{ { "--instance", "3", NULL }, 2 },       /* its check */
		{ { "--card", "x", "--help", NULL }, 0 }, /* in order: --help ends it */
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (run(&d, &cfg, t[i].args) != -1)
			fail_msg("%s %s: went on", t[i].args[0], t[i].args[1] ? t[i].args[1] : "");
		assert_int_equal(d.status, t[i].status);
	}
}

/* A config file for a test: made before it (state: its path), removed
 * after. */
static int tmp_setup(void **state)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/apenet-test-daemon-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	*state = path;
	return 0;
}

static int tmp_teardown(void **state)
{
	unlink(*state);
	return 0;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* A config that does not load stops it too: its error is logged (on the
 * caller's stderr, the log not being set up yet), status 2. */
static void test_bad_config(void **state)
{
	static struct apenet_daemon d;
	static struct apenet_config cfg;
	put(*state, "agent:\n  period_ms: often\n");
	const char *args[] = { "--config", *state, NULL };
	assert_int_equal(run(&d, &cfg, args), -1);
	assert_int_equal(d.status, 2);
	const char *none[] = { "--config", "/nonexistent/apenet.yaml", NULL };
	assert_int_equal(run(&d, &cfg, none), -1);
	assert_int_equal(d.status, 2);
}

static void test_goes_on(void **state)
{
	static struct apenet_daemon d;
	static struct apenet_config cfg;
	const char *path = *state;
	put(path, "agent:\n  period_ms: 50\n  log_level: debug\n");
	const char *args[] = { "--dev", "0000:01:00.0", "--json", "-f", "--config", path, "--instance", "2", NULL };
	assert_int_equal(run(&d, &cfg, args), 0);
	assert_string_equal(card, "0000:01:00.0");
	assert_null(sim);
	assert_int_equal(json, 1);
	assert_string_equal(inst, "2");
	assert_int_equal(d.foreground, 1);
	assert_string_equal(d.config_path, path);
	assert_string_equal(d.config_from, "--config");
	assert_true(cfg.agent.period_ms == 50);
	/* the log where the config says: stderr still (--foreground), at its level */
	apenet_daemon_log(&d, &cfg);
	assert_int_equal(apenet_log_get_level(), APENET_LOG_DEBUG);
	apenet_log_to_stderr();
	apenet_log_set_level(APENET_LOG_NOTICE);
	apenet_config_free(&cfg);
	/* no file: the defaults, and the config_path says so */
	setenv("APENET_CONFIG", "", 1);
	const char *none[] = { NULL };
	assert_int_equal(run(&d, &cfg, none), 0);
	assert_string_equal(d.config_path, "");
	assert_int_equal(d.foreground, 0);
	apenet_config_free(&cfg);
}

static void test_signalfd(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	static const int sigs[] = { SIGUSR2, 0 };
	int fd = apenet_daemon_signalfd(sigs, &e);
	assert_true(fd >= 0);
	struct signalfd_siginfo si;
	assert_int_equal(read(fd, &si, sizeof(si)), -1); /* non-blocking, nothing yet */
	raise(SIGUSR2);                                  /* blocked: to the fd, not fatal */
	assert_int_equal(read(fd, &si, sizeof(si)), (ssize_t)sizeof(si));
	assert_int_equal(si.ssi_signo, SIGUSR2);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stops),
		cmocka_unit_test_setup_teardown(test_bad_config, tmp_setup, tmp_teardown),
		cmocka_unit_test_setup_teardown(test_goes_on, tmp_setup, tmp_teardown),
		cmocka_unit_test(test_signalfd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
