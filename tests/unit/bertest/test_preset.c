/*
 * PMA presets (bertest/preset.c): written and read back whole; names that
 * are not file names refused; a bad file refused with file:line:column and
 * what is wrong; the half a card owns, applied to its BAR (a plain memory
 * BAR: the device layer's registers, no emulator).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apenet/preset.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/apenet-preset-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void sample(struct apenet_preset *p)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "x0-xplus");
	p->lanes = 0xb; /* 0, 1, 3 */
	p->tx_node[0] = 1;
	snprintf(p->tx_link, sizeof(p->tx_link), "X-");
	snprintf(p->rx_link, sizeof(p->rx_link), "X+");
	uint8_t v[6] = { 4, 2, 3, 0, 8, 4 };
	memcpy(p->v, v, 6);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct apenet_preset p, q;
	struct apenet_err e = { 0 };
	char path[256];
	sample(&p);
	assert_int_equal(apenet_preset_write(dir, &p, path, sizeof(path), &e), 0);
	assert_non_null(strstr(path, "/x0-xplus.yaml"));
	assert_int_equal(apenet_preset_load(path, &q, &e), 0);
	assert_string_equal(q.name, "x0-xplus");
	assert_int_equal(q.lanes, 0xb);
	assert_memory_equal(q.tx_node, p.tx_node, sizeof(p.tx_node));
	assert_memory_equal(q.rx_node, p.rx_node, sizeof(p.rx_node));
	assert_string_equal(q.tx_link, "X-");
	assert_string_equal(q.rx_link, "X+");
	assert_memory_equal(q.v, p.v, 6);
	/* no temporary file left */
	char tmp[256];
	snprintf(tmp, sizeof(tmp), "%s/.x0-xplus.yaml.tmp", dir);
	assert_int_not_equal(access(tmp, F_OK), 0);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(apenet_preset_name_ok("rack3.x-plus_2"));
	assert_false(apenet_preset_name_ok(""));
	assert_false(apenet_preset_name_ok(".hidden"));
	assert_false(apenet_preset_name_ok("../etc/passwd"));
	assert_false(apenet_preset_name_ok("a b"));
	struct apenet_preset p;
	struct apenet_err e = { 0 };
	char path[256];
	sample(&p);
	snprintf(p.name, sizeof(p.name), "../x");
	assert_int_equal(apenet_preset_write(dir, &p, path, sizeof(path), &e), -1);
	assert_non_null(strstr(e.msg, "preset name '../x'"));
	sample(&p);
	assert_int_equal(apenet_preset_write("/nonexistent/dir", &p, path, sizeof(path), &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/dir/.x0-xplus.yaml.tmp"));
}

/* A bad file: refused, the place and the problem named. */
static void bad(const char *text, const char *want)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/bad.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	struct apenet_preset p;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_preset_load(path, &p, &e), -1);
	if (!strstr(e.msg, want))
		fail_msg("'%s' does not say '%s'", e.msg, want);
}

static void test_bad_files(void **state)
{
	(void)state;
	const char *tx = "transmitter:\n  node: \"1,0,0\"\n  link: X-\n  vod: 4\n  pre: 2\n  post1: 3\n  post2: 0\n";
	const char *rx = "receiver:\n  node: \"0,0,0\"\n  link: X+\n  rxeq: 8\n  dcgain: 4\n";
	char buf[512];
	bad("name: a\nlanes: \"0,9\"\n", "bad.yaml:2:8: lanes '0,9'");
	bad("name: ../a\nlanes: \"0\"\n", "bad.yaml:1:7: '../a' is not a preset name");
	snprintf(buf, sizeof(buf), "name: a\nlanes: \"0\"\n%s", tx);
	bad(buf, "'receiver' is missing");
	snprintf(buf, sizeof(buf), "name: a\nlanes: \"0\"\n%s%s  colour: red\n", tx, rx);
	bad(buf, "unknown key 'colour'");
	snprintf(buf, sizeof(buf), "name: a\nlanes: \"0\"\n%sreceiver:\n  node: \"0,0,0\"\n  link: X+\n  rxeq: 300\n  dcgain: 4\n",
		 tx);
	bad(buf, "bad.yaml:13:9: 'rxeq': 300 is out of range");
	snprintf(buf, sizeof(buf), "name: a\nlanes: \"0\"\n%sreceiver:\n  node: \"0,0\"\n  link: X+\n  rxeq: 3\n  dcgain: 4\n",
		 tx);
	bad(buf, "bad.yaml:11:9");
	bad("- 1\n- 2\n", "a preset");
	bad("name: a\nlanes: \"0\"\nwhat: 1\n", "unknown key 'what'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
