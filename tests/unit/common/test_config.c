/*
 * Tests of the toolkit's configuration (common/config.c): cluster layout
 * and thresholds, read from YAML files through the one loader.
 *
 * docs/config.md is the contract: its thresholds table (key, default, unit,
 * range, meaning) is parsed here and checked against the loader both ways,
 * a documented key the loader refuses and a key the loader accepts that the
 * doc lacks both fail, and so does a documented default or range that is not
 * the loader's.  The doc is found under $APENET_SRCDIR (tests/run.sh sets
 * it), else the current directory.  Every error is checked for its exact
 * "file:line:column: message" text; positions are computed here from the
 * document text, not taken from the loader.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apenet/config.h"

/* ---- the documented thresholds ---- */

#define MAXDOC 64
#define NTHR_STRUCT (sizeof(struct apenet_thresholds) / sizeof(double))

struct doc_key {
	char key[64];
	double def, lo, hi;
	char unit[32];
};

static struct doc_key doc[MAXDOC];
static unsigned ndoc;
static char tmpdir[64];
static unsigned nfile;

static void trim(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = 0;
	size_t k = strspn(s, " \t");
	memmove(s, s + k, n - k + 1);
}

static int parse_num(const char *s, double *out)
{
	char *end;
	errno = 0;
	*out = strtod(s, &end);
	return end == s || *end || errno ? -1 : 0;
}

/* "LO..HI" (strtod alone would take "-40." of "-40..200"). */
static int parse_range(const char *s, double *lo, double *hi)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%s", s);
	char *dots = strstr(buf, "..");
	if (!dots)
		return -1;
	*dots = 0;
	return parse_num(buf, lo) || parse_num(dots + 2, hi) ? -1 : 0;
}

/* Reads the "## Thresholds" table of docs/config.md: rows "| `key` |
 * default | unit | lo..hi | meaning |". */
static void read_doc(void)
{
	const char *src = getenv("APENET_SRCDIR");
	char path[PATH_MAX], line[1024];
	snprintf(path, sizeof(path), "%s/docs/config.md", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s (set APENET_SRCDIR to the source tree)", path, strerror(errno));
	int in = 0;
	ndoc = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "## ", 3)) {
			in = !strcmp(line, "## Thresholds");
			continue;
		}
		if (!in || strncmp(line, "| `", 3))
			continue;
		char *cell[6];
		unsigned nc = 0;
		for (char *p = line + 1; nc < 6 && p; nc++) {
			cell[nc] = p;
			p = strchr(p, '|');
			if (p)
				*p++ = 0;
		}
		if (nc < 6)
			fail_msg("%s: thresholds row with %u cells, expected 5: %s", path, nc - 1, line);
		for (unsigned i = 0; i < 5; i++)
			trim(cell[i]);
		assert_true(ndoc < MAXDOC);
		struct doc_key *d = &doc[ndoc++];
		size_t kl = strlen(cell[0]);
		if (kl < 3 || cell[0][0] != '`' || cell[0][kl - 1] != '`' || kl - 2 >= sizeof(d->key))
			fail_msg("%s: bad key cell '%s'", path, cell[0]);
		snprintf(d->key, sizeof(d->key), "%.*s", (int)(kl - 2), cell[0] + 1);
		if (parse_num(cell[1], &d->def))
			fail_msg("%s: %s: default '%s' is not a number", path, d->key, cell[1]);
		if (!*cell[2])
			fail_msg("%s: %s has no unit", path, d->key);
		snprintf(d->unit, sizeof(d->unit), "%s", cell[2]);
		char *dots = strstr(cell[3], "..");
		if (!dots)
			fail_msg("%s: %s: range '%s' is not lo..hi", path, d->key, cell[3]);
		*dots = 0;
		if (parse_num(cell[3], &d->lo) || parse_num(dots + 2, &d->hi) || d->lo > d->hi)
			fail_msg("%s: %s: bad range", path, d->key);
		if (!*cell[4])
			fail_msg("%s: %s has no meaning", path, d->key);
		if (d->def < d->lo || d->def > d->hi)
			fail_msg("%s: %s: default %g outside its range %g..%g", path, d->key, d->def, d->lo, d->hi);
	}
	fclose(f);
	if (!ndoc)
		fail_msg("%s: no thresholds table found", path);
}

static const struct doc_key *doc_find(const char *key)
{
	for (unsigned i = 0; i < ndoc; i++)
		if (!strcmp(doc[i].key, key))
			return &doc[i];
	return NULL;
}

/* The fail key of a warn key ("x_warn_y" -> "x_fail_y"), when documented. */
static const struct doc_key *doc_partner(const struct doc_key *d, int want_fail)
{
	char k[80];
	const char *from = want_fail ? "_warn" : "_fail", *to = want_fail ? "_fail" : "_warn";
	const char *p = strstr(d->key, from);
	if (!p)
		return NULL;
	snprintf(k, sizeof(k), "%.*s%.63s%.63s", (int)(p - d->key), d->key, to, p + strlen(from));
	return doc_find(k);
}

/* ---- files ---- */

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/apenet-test-config.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	read_doc();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* files a failed test left behind */
	for (unsigned i = 0; i < nfile; i++) {
		char path[128];
		snprintf(path, sizeof(path), "%s/c%u.yaml", tmpdir, i);
		unlink(path);
	}
	return rmdir(tmpdir);
}

static void write_file(const char *text, char *path, size_t n)
{
	snprintf(path, n, "%s/c%u.yaml", tmpdir, nfile++);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void load_ok(const char *text, struct apenet_config *cfg)
{
	char path[128];
	struct apenet_err e = { 0 };
	write_file(text, path, sizeof(path));
	if (apenet_config_load(path, cfg, &e))
		fail_msg("load failed: %s\n--- document:\n%s", e.msg, text);
	assert_string_equal(cfg->path, path);
	unlink(path);
}

/* "LINE:COL" of the character p points at in text. */
static void where_ptr(const char *text, const char *p, char *buf, size_t n)
{
	int line = 1, col = 1;
	for (const char *q = text; q < p; q++) {
		if (*q == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	snprintf(buf, n, "%d:%d", line, col);
}

/* "LINE:COL" of the n-th (from 0) occurrence of needle in text. */
static void where(const char *text, const char *needle, unsigned nth, char *buf, size_t n)
{
	const char *p = text;
	for (unsigned i = 0;; i++) {
		p = strstr(p, needle);
		if (!p)
			fail_msg("'%s' not in the document", needle);
		if (i == nth)
			break;
		p++;
	}
	where_ptr(text, p, buf, n);
}

static void load_err_pos(const char *text, const char *pos, const char *msg);

/* Loading text fails with exactly "PATH:L:C: msg", L:C being where the
 * nth occurrence of at is in the text. */
static void load_err_at(const char *text, const char *at, unsigned nth, const char *msg)
{
	char pos[32];
	where(text, at, nth, pos, sizeof(pos));
	load_err_pos(text, pos, msg);
}

/* The same, L:C being where the value of "key: " starts. */
static void load_err_val(const char *text, const char *key, const char *msg)
{
	char needle[96], pos[32];
	snprintf(needle, sizeof(needle), "%s: ", key);
	const char *p = strstr(text, needle);
	if (!p)
		fail_msg("'%s' not in the document", needle);
	where_ptr(text, p + strlen(needle), pos, sizeof(pos));
	load_err_pos(text, pos, msg);
}

static void load_err_pos(const char *text, const char *pos, const char *msg)
{
	char path[128], want[1024];
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	write_file(text, path, sizeof(path));
	snprintf(want, sizeof(want), "%s:%s: %s", path, pos, msg);
	assert_int_equal(apenet_config_load(path, &cfg, &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	if (strcmp(e.msg, want))
		fail_msg("document:\n%s\nexpected error: %s\n     got error: %s", text, want, e.msg);
	/* a failed load leaves nothing allocated and no half layout behind */
	assert_null(cfg.cl.nodes);
	assert_int_equal(cfg.cl.nnodes, 0);
	apenet_config_free(&cfg);
	unlink(path);
}

static void thr_array(const struct apenet_thresholds *t, double a[NTHR_STRUCT])
{
	memcpy(a, t, sizeof(*t));
}

/* ---- defaults ---- */

static void test_defaults_without_file(void **state)
{
	(void)state;
	struct apenet_config cfg, def;
	struct apenet_err e = { 0 };
	memset(&cfg, 0x5a, sizeof(cfg)); /* must all be overwritten */
	assert_int_equal(apenet_config_load(NULL, &cfg, &e), 0);
	apenet_config_defaults(&def);
	assert_memory_equal(&cfg.thr, &def.thr, sizeof(def.thr));
	assert_string_equal(cfg.path, "");
	assert_int_equal(cfg.cl.have, 0);
	assert_null(cfg.cl.nodes);
	assert_int_equal(cfg.cl.nnodes, 0);
	/* without a layout every dimension is taken as a closed ring */
	for (int i = 0; i < 3; i++)
		assert_int_equal(cfg.cl.wrap[i], 1);
	assert_null(apenet_config_node_name(&cfg, 0, 0, 0));
	unsigned xyz[3] = { 7, 7, 7 };
	assert_int_equal(apenet_config_node_by_name(&cfg, "quong01", xyz), -1);
	apenet_config_free(&cfg);

	/* every default a rule compares with is what docs/config.md says, by
	 * name (the loader maps each key to its member; see the next test) */
	double a[NTHR_STRUCT];
	thr_array(&def.thr, a);
	for (unsigned i = 0; i < NTHR_STRUCT; i++)
		assert_true(a[i] == a[i]); /* no NaN left unset */
	/* a default warn is never above its default fail */
	for (unsigned i = 0; i < ndoc; i++) {
		const struct doc_key *f = doc_partner(&doc[i], 1);
		if (f && doc[i].def > f->def)
			fail_msg("doc: %s default %g above %s default %g", doc[i].key, doc[i].def, f->key, f->def);
	}
}

/* Every documented key is accepted, sets exactly one member, and that
 * member's default is the documented one; every member is documented. */
static void test_doc_keys_in_loader(void **state)
{
	(void)state;
	struct apenet_config def;
	apenet_config_defaults(&def);
	double d[NTHR_STRUCT];
	thr_array(&def.thr, d);
	int owner[NTHR_STRUCT];
	for (unsigned i = 0; i < NTHR_STRUCT; i++)
		owner[i] = -1;
	assert_int_equal(ndoc, NTHR_STRUCT);
	for (unsigned k = 0; k < ndoc; k++) {
		char text[256];
		struct apenet_config cfg;
		/* a value off the default in the direction that keeps a warn
		 * under its fail and inside every documented range */
		double x = doc[k].def + 0.25;
		if (x > doc[k].hi) /* a probability near 1 (rate_confidence) */
			x = (doc[k].def + doc[k].lo) / 2;
		snprintf(text, sizeof(text), "thresholds:\n  %.63s: %.17g\n", doc[k].key, x);
		load_ok(text, &cfg);
		double a[NTHR_STRUCT];
		thr_array(&cfg.thr, a);
		int hit = -1;
		for (unsigned i = 0; i < NTHR_STRUCT; i++) {
			if (a[i] == d[i])
				continue;
			if (hit >= 0)
				fail_msg("%s changed two thresholds (%d and %u)", doc[k].key, hit, i);
			hit = (int)i;
		}
		if (hit < 0)
			fail_msg("%s: accepted but no threshold changed", doc[k].key);
		assert_true(a[hit] == x);
		if (d[hit] != doc[k].def)
			fail_msg("%s: default %g, docs/config.md says %g", doc[k].key, d[hit], doc[k].def);
		if (owner[hit] >= 0)
			fail_msg("%s and %s set the same threshold", doc[owner[hit]].key, doc[k].key);
		owner[hit] = (int)k;
		assert_int_equal(cfg.cl.have, 0);
		apenet_config_free(&cfg);
	}
}

/* The unknown-key error lists every key the loader accepts: each must be
 * documented, and the list must be whole. */
static void test_loader_keys_in_doc(void **state)
{
	(void)state;
	static const char text[] = "thresholds:\n  crc_warn_per_min: 2\n  no_such_key: 1\n";
	char path[128], pos[32], prefix[256];
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	write_file(text, path, sizeof(path));
	where(text, "no_such_key", 0, pos, sizeof(pos));
	snprintf(prefix, sizeof(prefix), "%s:%s: unknown key 'no_such_key' (expected one of: ", path, pos);
	assert_int_equal(apenet_config_load(path, &cfg, &e), -1);
	unlink(path);
	assert_int_equal(e.code, APENET_EINVAL);
	if (strncmp(e.msg, prefix, strlen(prefix)))
		fail_msg("expected error starting: %s\n     got: %s", prefix, e.msg);
	size_t len = strlen(e.msg);
	if (e.msg[len - 1] != ')')
		fail_msg("the list of allowed keys is cut short: %s", e.msg);
	char list[1024];
	snprintf(list, sizeof(list), "%.*s", (int)(len - strlen(prefix) - 1), e.msg + strlen(prefix));
	unsigned n = 0;
	for (char *save = NULL, *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		trim(k);
		if (!doc_find(k))
			fail_msg("the loader accepts '%s', docs/config.md does not document it (or the list of "
				 "allowed keys is cut short there): %s", k, e.msg);
		n++;
	}
	assert_int_equal(n, ndoc);
}

/* The documented range of each key is the loader's: both ends accepted,
 * one step past either end refused with the range in the message. */
static void test_doc_ranges(void **state)
{
	(void)state;
	for (unsigned k = 0; k < ndoc; k++) {
		const struct doc_key *d = &doc[k], *fail = doc_partner(d, 1), *warn = doc_partner(d, 0);
		char text[512], msg[256];
		struct apenet_config cfg;
		double a[NTHR_STRUCT], b[NTHR_STRUCT];
		struct apenet_config def;
		apenet_config_defaults(&def);
		thr_array(&def.thr, b);

		/* top of the range; a warn's fail goes up with it */
		snprintf(text, sizeof(text), "thresholds:\n  %.63s: %.17g\n", d->key, d->hi);
		if (fail)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "  %.63s: %.17g\n", fail->key, fail->hi);
		load_ok(text, &cfg);
		thr_array(&cfg.thr, a);
		int found = 0;
		for (unsigned i = 0; i < NTHR_STRUCT; i++)
			found |= a[i] == d->hi && b[i] != d->hi;
		assert_true(found || d->def == d->hi);
		apenet_config_free(&cfg);

		/* bottom; a fail's warn goes down with it */
		snprintf(text, sizeof(text), "thresholds:\n  %.63s: %.17g\n", d->key, d->lo);
		if (warn)
			snprintf(text + strlen(text), sizeof(text) - strlen(text), "  %.63s: %.17g\n", warn->key, warn->lo);
		load_ok(text, &cfg);
		apenet_config_free(&cfg);

		double over = d->hi + (d->hi > 0 ? d->hi : 1) + 1, under = d->lo - 1;
		snprintf(text, sizeof(text), "thresholds:\n  %.63s: %.17g\n", d->key, over);
		snprintf(msg, sizeof(msg), "'%.63s': %g is out of range %g..%g", d->key, over, d->lo, d->hi);
		load_err_val(text, d->key, msg);
		snprintf(text, sizeof(text), "thresholds:\n  %.63s: %.17g\n", d->key, under);
		snprintf(msg, sizeof(msg), "'%.63s': %g is out of range %g..%g", d->key, under, d->lo, d->hi);
		load_err_val(text, d->key, msg);
	}
}

/* ---- errors ---- */

static void test_error_unknown_top_key(void **state)
{
	(void)state;
	load_err_at("thresholds:\n  crc_warn_per_min: 2\nclustr:\n  dims: 4x4x1\n", "clustr", 0,
		    "unknown key 'clustr' (expected one of: cluster, thresholds, agent, supervisors, supervisor, slurm)");
	load_err_at("cluster:\n  dims: 4x4x1\n  wrap: true\n", "wrap", 0,
		    "unknown key 'wrap' (expected one of: dims, wraparound, nodes)");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes:\n    - { name: a, node: \"0,0,0\", rack: 3 }\n", "rack", 0,
		    "unknown key 'rack' (expected one of: name, node)");
}

/* The supervisors section: where the agent reports; checked by the
 * notifier's own check, placed in the file. */
static void test_supervisors(void **state)
{
	(void)state;
	struct apenet_config cfg;
	apenet_config_defaults(&cfg);
	assert_int_equal(cfg.sup.nsupervisors, 2u); /* two, duplicated */
	assert_true(cfg.heartbeat_s == 1);
	load_ok("supervisors:\n  targets: [\"127.0.0.1:16200\", \"[::1]:16201\"]\n  heartbeat_s: 0.5\n"
		"  spool: /tmp/x/spool.db\n  spool_max_mib: 1\n  retries: 1\n", &cfg);
	assert_int_equal(cfg.sup.nsupervisors, 2u);
	assert_string_equal(cfg.sup.supervisors[1], "[::1]:16201");
	assert_true(cfg.heartbeat_s == 0.5 && cfg.spool_given && cfg.sup.spool_max_bytes == 1048576 && cfg.sup.retries == 1);
	apenet_config_free(&cfg);
	/* no targets: reports off */
	load_ok("supervisors:\n  targets: []\n", &cfg);
	assert_int_equal(cfg.sup.nsupervisors, 0u);
	apenet_config_free(&cfg);
	load_ok("supervisors:\n  version: \"3\"\n  key_file: /etc/apenet/n1.key\n", &cfg);
	assert_int_equal(cfg.sup.version, APENET_SNMP_V3);
	assert_string_equal(cfg.sup.key_file, "/etc/apenet/n1.key");
	apenet_config_free(&cfg);
	load_ok("supervisors:\n  version: 2c\n", &cfg);
	assert_int_equal(cfg.sup.version, APENET_SNMP_V2C);
	apenet_config_free(&cfg);
	load_ok("supervisors:\n  heartbeat_s: 2\n", &cfg);
	assert_int_equal(cfg.sup.version, APENET_SNMP_V3); /* the default */
	apenet_config_free(&cfg);
	load_err_at("supervisors:\n  version: 4\n", "4", 0, "'version': '4' is not 2c or 3");
	load_err_at("supervisors:\n  spool: spool.db\n", "spool.db", 0, "'spool': 'spool.db' is not an absolute path");
	load_err_at("supervisors:\n  targets: [\"a:0\"]\n", "targets", 0,
		    "supervisors: supervisors[0]: 'a:0': port '0' is not a number in 1..65535");
	load_err_at("supervisors:\n  version: \"3\"\n  auth_pass: short\n  priv_pass: privpass1\n", "short", 0,
		    "'auth_pass': SNMPv3 uses per-node key files now: remove it and set key_file (apenet keys node; "
		    "docs/security.md)");
	load_err_at("supervisors:\n  key_file: node.key\n", "node.key", 0, "'key_file': 'node.key' is not an absolute path");
	load_err_at("supervisors:\n  heartbeat_s: 0\n", "0", 0, "'heartbeat_s': 0 is out of range 0.1..3600");
}

/* The supervisors section's table: the loader's ranges, the defaults and
 * the notifier's own check are its rows (retries up to 100, as documented:
 * the notifier's check once stopped at 20). */
static void test_supervisors_rows(void **state)
{
	(void)state;
	const struct apenet_config_desc *r = apenet_config_supervisors_rows();
	struct apenet_config cfg;
	apenet_config_defaults(&cfg);
	static const char *const keys[APENET_NSUP_KEYS] = { "targets", "version",    "community", "key_file",
							    "timeout_ms", "retries", "backoff_ms", "spool",
							    "spool_max_mib", "heartbeat_s" };
	for (size_t i = 0; i < APENET_NSUP_KEYS; i++) {
		assert_string_equal(r[i].key, keys[i]);
		assert_int_equal(r[i].is_str, r[i].form != APENET_FORM_NUM);
		assert_true(r[i].unit && r[i].doc && *r[i].doc);
		if (!r[i].is_str)
			assert_true(r[i].min <= r[i].def && r[i].def <= r[i].max);
	}
	/* the defaults are the rows' */
	assert_true(cfg.sup.timeout_ms == r[4].def && cfg.sup.retries == r[5].def && cfg.sup.backoff_ms == r[6].def);
	assert_true((double)cfg.sup.spool_max_bytes == r[8].def * 1048576 && cfg.heartbeat_s == r[9].def);
	assert_string_equal(cfg.sup.community, r[2].def_str);
	assert_string_equal(cfg.sup.key_file, r[3].def_str);
	assert_string_equal(cfg.sup.spool, r[7].def_str);
	char targets[300];
	snprintf(targets, sizeof(targets), "%s,%s", cfg.sup.supervisors[0], cfg.sup.supervisors[1]);
	assert_string_equal(targets, r[0].def_str);
	struct apenet_notify_config n;
	apenet_notify_config_defaults(&n);
	assert_memory_equal(&n, &cfg.sup, sizeof(n));
	/* the range the loader takes is the one the notifier checks */
	load_ok("supervisors:\n  retries: 100\n", &cfg);
	assert_int_equal(cfg.sup.retries, 100u);
	apenet_config_free(&cfg);
	load_err_at("supervisors:\n  retries: 101\n", "101", 0, "'retries': 101 is out of range 0..100");
	load_err_at("supervisors:\n  backoff_ms: 5\n", "5", 0, "'backoff_ms': 5 is out of range 10..3.6e+06");
	load_err_at("supervisors:\n  spool_max_mib: 0.01\n", "0.01", 0, "'spool_max_mib': 0.01 is out of range 0.0625..65536");
}

/* What a reload leaves in force until the daemon restarts: the at_start
 * rows, as docs/agent.md and docs/supervisor.md say. */
static void test_at_start(void **state)
{
	(void)state;
	static const char *const agent[] = { "user",	  "state_dir",	   "blackbox_dir", "socket",
					     "lock_dir", "agentx_socket", "agentx",	   "agentx_ping_s", NULL };
	static const char *const svr[] = { "recv_buffer_kib", "tick_ms",   "silent_ms",	"settle_ms", "explain_ms",
					   "late_ms",	      "restore_hold_ms", "resync_ms", "group_min", "listen",
					   "db",	      "state_dir", "agentx",	"agentx_socket", "agentx_ping_s",
					   NULL };
	static const char *const slurm[] = { NULL }; /* all of it at a reload */
	const char *const *want[3] = { agent, svr, slurm };
	const struct apenet_config_table *t;
	for (size_t k = 0; (t = apenet_config_table(k)); k++) {
		size_t n = 0;
		for (size_t i = 0; i < t->n; i++) {
			int listed = 0;
			for (const char *const *w = want[k]; *w; w++)
				listed |= !strcmp(*w, t->rows[i].key);
			if (listed != t->rows[i].at_start)
				fail_msg("%s: %s %s at start", t->section, t->rows[i].key, listed ? "should take effect" : "is not taken");
			n += listed;
		}
		size_t m = 0;
		while (want[k][m])
			m++;
		assert_int_equal(n, m); /* no name above that the table lacks */
	}
	/* a row found by key, compared and copied between two sections */
	static struct apenet_config a, b;
	apenet_config_defaults(&a);
	apenet_config_defaults(&b);
	t = apenet_config_table_find("supervisor");
	const struct apenet_config_desc *settle = apenet_config_desc_find(t, "settle_ms"),
					*db = apenet_config_desc_find(t, "db");
	assert_non_null(settle);
	assert_non_null(db);
	assert_null(apenet_config_desc_find(t, "settle"));
	assert_null(apenet_config_desc_find(NULL, "settle_ms"));
	assert_false(apenet_config_differs(&a.svr, &b.svr, settle) || apenet_config_differs(&a.svr, &b.svr, db));
	b.svr.settle_ms = 7;
	snprintf(b.svr.db, sizeof(b.svr.db), "/x.db");
	assert_true(apenet_config_differs(&a.svr, &b.svr, settle) && apenet_config_differs(&a.svr, &b.svr, db));
	apenet_config_copy(&a.svr, &b.svr, settle);
	apenet_config_copy(&a.svr, &b.svr, db);
	assert_true(a.svr.settle_ms == 7);
	assert_string_equal(a.svr.db, "/x.db");
	/* strings compare as strings: what follows the NUL does not count */
	snprintf(b.svr.db, sizeof(b.svr.db), "/a-longer-path.db");
	snprintf(b.svr.db, sizeof(b.svr.db), "/x.db");
	assert_false(apenet_config_differs(&a.svr, &b.svr, db));
}

static void test_error_not_a_number(void **state)
{
	(void)state;
	load_err_val("thresholds:\n  board_temp_warn_c: 50\n  crc_warn_per_min: lots\n", "crc_warn_per_min",
		     "'crc_warn_per_min': 'lots' is not a number");
	load_err_at("thresholds:\n  fpga_temp_fail_c: 90C\n", "90C", 0, "'fpga_temp_fail_c': '90C' is not a number");
	load_err_at("thresholds:\n  fpga_temp_fail_c: \"\"\n", "\"\"", 0, "'fpga_temp_fail_c': '' is not a number");
	load_err_at("thresholds:\n  fpga_temp_fail_c: nan\n", "nan", 0, "'fpga_temp_fail_c': 'nan' is not a number");
	load_err_at("thresholds:\n  fpga_temp_fail_c: [1, 2]\n", "[", 0,
		    "'fpga_temp_fail_c': expected a value, found a list");
	load_err_at("thresholds: 3\n", "3", 0, "'thresholds': expected a map, found a value");
}

/* A warn above its fail, for every documented warn/fail pair: the error
 * points at the warn value the file gave, or at the fail value when the
 * warn is the default. */
static void test_error_warn_above_fail(void **state)
{
	(void)state;
	unsigned pairs = 0;
	int fpga = 0, crc = 0;
	for (unsigned k = 0; k < ndoc; k++) {
		const struct doc_key *w = &doc[k], *f = doc_partner(w, 1);
		char text[512], msg[256];
		struct apenet_config cfg;
		if (!f)
			continue;
		pairs++;
		fpga |= !strcmp(w->key, "fpga_temp_warn_c");
		crc |= !strcmp(w->key, "crc_warn_per_min");
		/* both given, warn one above fail; an unrelated key first, so
		 * pointing at the start of the map would be wrong */
		double fv = f->def, wv = f->def + 1;
		assert_true(wv <= w->hi);
		snprintf(text, sizeof(text), "thresholds:\n  fifo_hwm_warn_pct: 90\n  %.63s: %.17g\n  %.63s: %.17g\n", f->key, fv,
			 w->key, wv);
		snprintf(msg, sizeof(msg), "%.63s (%g) is above %.63s (%g)", w->key, wv, f->key, fv);
		load_err_val(text, w->key, msg);

		/* equal is fine: warn and fail at the same level */
		snprintf(text, sizeof(text), "thresholds:\n  %.63s: %.17g\n  %.63s: %.17g\n", w->key, fv, f->key, fv);
		load_ok(text, &cfg);
		apenet_config_free(&cfg);

		/* only the fail given, under the default warn */
		if (w->def > w->lo && w->def - 1 >= f->lo) {
			double low = w->def - 1;
			snprintf(text, sizeof(text), "thresholds:\n  payload_warn_per_min: 2\n  %.63s: %.17g\n", f->key, low);
			snprintf(msg, sizeof(msg), "%.63s (%g, the default) is above %.63s (%g)", w->key, w->def, f->key, low);
			load_err_val(text, f->key, msg);
		}
	}
	assert_true(fpga && crc);
	assert_true(pairs >= 2);
}

static void test_error_cluster(void **state)
{
	(void)state;
	load_err_at("cluster:\n  wraparound: true\n", "wraparound", 0, "'cluster' needs 'dims: XxYxZ'");
	load_err_at("cluster:\n  dims: 4x0x1\n", "4x0x1", 0, "'dims': every size must be at least 1");
	load_err_at("cluster:\n  dims: 0x4x1\n", "0x4x1", 0, "'dims': every size must be at least 1");
	load_err_at("cluster:\n  dims: 4x4\n", "4x4", 0, "'dims': '4x4' is not of the form NxNxN (0..255)");
	load_err_at("cluster:\n  dims: 4x4x1\n  wraparound: xq\n", "xq", 0,
		    "'wraparound': 'xq' is not true, false or a set of x, y, z (e.g. xy)");
	load_err_at("cluster:\n  dims: 4x4x1\n  wraparound: maybe\n", "maybe", 0,
		    "'wraparound': 'maybe' is not true, false or a set of x, y, z (e.g. xy)");
	load_err_at("cluster:\n  dims: 4x4x1\n  wraparound: [x, y]\n", "[", 0,
		    "'wraparound': expected a value, found a list");
	load_err_at("cluster: [1]\n", "[", 0, "'cluster': expected a map, found a list");
}

static void test_error_nodes(void **state)
{
	(void)state;
	/* outside the torus, in each dimension */
	load_err_at("cluster:\n  dims: 4x4x1\n  nodes:\n    - name: a\n      node: 4,0,0\n", "4,0,0", 0,
		    "'node': 4,0,0 is outside the 4x4x1 torus");
	load_err_at("cluster:\n  dims: 4x4x1\n  nodes:\n    - name: a\n      node: 0,4,0\n", "0,4,0", 0,
		    "'node': 0,4,0 is outside the 4x4x1 torus");
	load_err_at("cluster:\n  dims: 4x4x1\n  nodes:\n    - name: a\n      node: 0,0,1\n", "0,0,1", 0,
		    "'node': 0,0,1 is outside the 4x4x1 torus");
	/* the nodes may come before the dims in the file */
	load_err_at("cluster:\n  nodes:\n    - name: a\n      node: 2,0,0\n  dims: 2x2x2\n", "2,0,0", 0,
		    "'node': 2,0,0 is outside the 2x2x2 torus");
	/* the same name twice: at the second name */
	load_err_at("cluster:\n  dims: 4x4x1\n  nodes:\n    - { name: q1, node: \"0,0,0\" }\n"
		    "    - { name: q2, node: \"1,0,0\" }\n    - { name: q1, node: \"2,0,0\" }\n",
		    "q1", 1, "node name 'q1' given twice");
	/* the same node twice: at the second coordinates */
	load_err_at("cluster:\n  dims: 4x4x1\n  nodes:\n    - { name: q1, node: \"1,2,0\" }\n"
		    "    - { name: q2, node: \"1,2,0\" }\n",
		    "\"1,2,0\"", 1, "node 1,2,0 named twice ('q1' and 'q2')");
	/* a name of 64 characters is one too many; an empty one is none */
	char text[512], name[80];
	memset(name, 'n', 64);
	name[64] = 0;
	snprintf(text, sizeof(text), "cluster:\n  dims: 2x1x1\n  nodes:\n    - name: %s\n      node: 0,0,0\n", name);
	load_err_at(text, name, 0, "'name': must be 1..63 characters");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes:\n    - name: \"\"\n      node: 0,0,0\n", "\"\"", 0,
		    "'name': must be 1..63 characters");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes:\n    - node: 0,0,0\n", "node: 0", 0, "a node needs 'name'");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes:\n    - name: a\n", "name", 0, "node 'a' needs 'node: X,Y,Z'");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes:\n    - name: a\n      node: 0;0;0\n", "0;0;0", 0,
		    "'node': '0;0;0' is not of the form N,N,N (0..255)");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes: a\n", "a\n", 0, "'nodes': expected a list, found a value");
	load_err_at("cluster:\n  dims: 2x1x1\n  nodes:\n    - a\n", "a\n", 0, "node: expected a map, found a value");

	/* 63 characters is fine, and kept whole */
	struct apenet_config cfg;
	memset(name, 'n', 63);
	name[63] = 0;
	snprintf(text, sizeof(text), "cluster:\n  dims: 2x1x1\n  nodes:\n    - name: %s\n      node: 1,0,0\n", name);
	load_ok(text, &cfg);
	assert_int_equal(cfg.cl.nnodes, 1);
	assert_string_equal(apenet_config_node_name(&cfg, 1, 0, 0), name);
	apenet_config_free(&cfg);
}

static void test_error_missing_file(void **state)
{
	(void)state;
	char path[128], want[256];
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	snprintf(path, sizeof(path), "%s/not-there.yaml", tmpdir);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	assert_int_equal(apenet_config_load(path, &cfg, &e), -1);
	assert_int_equal(e.code, APENET_EIO);
	assert_string_equal(e.msg, want);
	apenet_config_free(&cfg);
}

/* ---- the layout ---- */

static void test_wraparound(void **state)
{
	(void)state;
	static const struct {
		const char *v;
		int w[3];
	} cases[] = {
		{ "true", { 1, 1, 1 } }, { "yes", { 1, 1, 1 } }, { "false", { 0, 0, 0 } }, { "no", { 0, 0, 0 } },
		{ "none", { 0, 0, 0 } }, { "xy", { 1, 1, 0 } },  { "\"z\"", { 0, 0, 1 } }, { "z", { 0, 0, 1 } },
		{ "yx", { 1, 1, 0 } },   { "xz", { 1, 0, 1 } },  { "xyz", { 1, 1, 1 } },
	};
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[128];
		struct apenet_config cfg;
		snprintf(text, sizeof(text), "cluster:\n  dims: 4x4x2\n  wraparound: %s\n", cases[i].v);
		load_ok(text, &cfg);
		assert_int_equal(cfg.cl.have, 1);
		for (int d = 0; d < 3; d++)
			if (cfg.cl.wrap[d] != cases[i].w[d])
				fail_msg("wraparound %s: dimension %d wrap %d, expected %d", cases[i].v, d, cfg.cl.wrap[d],
					 cases[i].w[d]);
		apenet_config_free(&cfg);
	}
	/* left out: every ring closed */
	struct apenet_config cfg;
	load_ok("cluster:\n  dims: 4x4x1\n", &cfg);
	for (int d = 0; d < 3; d++)
		assert_int_equal(cfg.cl.wrap[d], 1);
	apenet_config_free(&cfg);
}

static void test_layout_and_names(void **state)
{
	(void)state;
	static const char text[] = "# QUonG, part of it\n"
				   "cluster:\n"
				   "  dims: 4x4x1\n"
				   "  wraparound: xy\n"
				   "  nodes:\n"
				   "    - { name: quong01, node: \"0,0,0\" }\n"
				   "    - name: quong03\n"
				   "      node: 2,0,0\n"
				   "    - { name: quong16, node: \"3,3,0\" }\n"
				   "thresholds:\n"
				   "  crc_fail_per_min: 50\n";
	struct apenet_config cfg, def;
	apenet_config_defaults(&def);
	load_ok(text, &cfg);
	assert_int_equal(cfg.cl.have, 1);
	assert_int_equal(cfg.cl.dims[0], 4);
	assert_int_equal(cfg.cl.dims[1], 4);
	assert_int_equal(cfg.cl.dims[2], 1);
	assert_int_equal(cfg.cl.wrap[0], 1);
	assert_int_equal(cfg.cl.wrap[1], 1);
	assert_int_equal(cfg.cl.wrap[2], 0);
	assert_int_equal(cfg.cl.nnodes, 3);
	/* the thresholds not given keep their defaults */
	assert_true(cfg.thr.crc_fail_per_min == 50);
	assert_true(cfg.thr.crc_warn_per_min == def.thr.crc_warn_per_min);
	assert_true(cfg.thr.fpga_temp_fail_c == def.thr.fpga_temp_fail_c);

	/* coordinates -> name */
	assert_string_equal(apenet_config_node_name(&cfg, 0, 0, 0), "quong01");
	assert_string_equal(apenet_config_node_name(&cfg, 2, 0, 0), "quong03");
	assert_string_equal(apenet_config_node_name(&cfg, 3, 3, 0), "quong16");
	assert_null(apenet_config_node_name(&cfg, 1, 0, 0));
	assert_null(apenet_config_node_name(&cfg, 0, 2, 0)); /* 2,0,0 permuted */
	assert_null(apenet_config_node_name(&cfg, 0, 0, 2));

	/* name -> coordinates */
	unsigned xyz[3] = { 9, 9, 9 };
	assert_int_equal(apenet_config_node_by_name(&cfg, "quong03", xyz), 0);
	assert_int_equal(xyz[0], 2);
	assert_int_equal(xyz[1], 0);
	assert_int_equal(xyz[2], 0);
	assert_int_equal(apenet_config_node_by_name(&cfg, "quong16", xyz), 0);
	assert_int_equal(xyz[0], 3);
	assert_int_equal(xyz[1], 3);
	assert_int_equal(xyz[2], 0);
	/* unknown names leave xyz alone */
	assert_int_equal(apenet_config_node_by_name(&cfg, "quong02", xyz), -1);
	assert_int_equal(apenet_config_node_by_name(&cfg, "QUONG03", xyz), -1);
	assert_int_equal(apenet_config_node_by_name(&cfg, "quong0", xyz), -1);
	assert_int_equal(apenet_config_node_by_name(&cfg, "", xyz), -1);
	assert_int_equal(xyz[0], 3);
	/* round trip over every named node */
	for (unsigned i = 0; i < cfg.cl.nnodes; i++) {
		const struct apenet_node_name *n = &cfg.cl.nodes[i];
		assert_int_equal(apenet_config_node_by_name(&cfg, n->name, xyz), 0);
		assert_string_equal(apenet_config_node_name(&cfg, xyz[0], xyz[1], xyz[2]), n->name);
	}
	apenet_config_free(&cfg);
	assert_null(cfg.cl.nodes);
	assert_int_equal(cfg.cl.nnodes, 0);
	apenet_config_free(&cfg); /* twice is harmless */

	/* a cluster without nodes, and an empty list */
	load_ok("cluster:\n  dims: 32x32x32\n  nodes: []\n", &cfg);
	assert_int_equal(cfg.cl.dims[0], 32);
	assert_int_equal(cfg.cl.nnodes, 0);
	assert_null(apenet_config_node_name(&cfg, 0, 0, 0));
	apenet_config_free(&cfg);
}


/* ---- indexes at scale: the full 32x32x32 torus ---- */

/* A 32x32x32 layout naming every node in a scrambled order, so that neither
 * index can lean on the file order. */
static char *big_layout(unsigned *order, unsigned n)
{
	size_t cap = 64 + (size_t)n * 48, len = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	len += (size_t)snprintf(t, cap, "cluster:\n  dims: 32x32x32\n  nodes:\n");
	for (unsigned i = 0; i < n; i++) {
		unsigned k = order[i];
		len += (size_t)snprintf(t + len, cap - len, "    - { name: n%05u, node: \"%u,%u,%u\" }\n", k, k % 32, k / 32 % 32,
					k / 1024);
	}
	return t;
}

static void test_lookup_32k(void **state)
{
	(void)state;
	enum { N = 32768 };
	static unsigned order[N];
	for (unsigned i = 0; i < N; i++)
		order[i] = (i * 7919u) % N; /* 7919 is prime to 2^15: a permutation */
	char *text = big_layout(order, N);
	struct apenet_config cfg;
	load_ok(text, &cfg);
	assert_int_equal(cfg.cl.nnodes, N);
	char want[16];
	for (unsigned k = 0; k < N; k++) {
		unsigned xyz[3] = { 99, 99, 99 };
		snprintf(want, sizeof(want), "n%05u", k);
		const char *name = apenet_config_node_name(&cfg, k % 32, k / 32 % 32, k / 1024);
		if (!name || strcmp(name, want))
			fail_msg("node %u: name %s, expected %s", k, name ? name : "(none)", want);
		assert_int_equal(apenet_config_node_by_name(&cfg, want, xyz), 0);
		if (xyz[0] != k % 32 || xyz[1] != k / 32 % 32 || xyz[2] != k / 1024)
			fail_msg("%s at %u,%u,%u", want, xyz[0], xyz[1], xyz[2]);
	}
	unsigned xyz[3];
	assert_null(apenet_config_node_name(&cfg, 32, 0, 0));
	assert_null(apenet_config_node_name(&cfg, 0, 0, 32));
	assert_int_equal(apenet_config_node_by_name(&cfg, "n32768", xyz), -1);
	assert_int_equal(apenet_config_node_by_name(&cfg, "n0000", xyz), -1);
	apenet_config_free(&cfg);
	assert_null(cfg.cl.by_coord);
	assert_null(cfg.cl.by_name);

	/* half of them named: the others have no name */
	char *half = big_layout(order, N / 2);
	load_ok(half, &cfg);
	unsigned named = 0;
	for (unsigned k = 0; k < N; k++)
		named += apenet_config_node_name(&cfg, k % 32, k / 32 % 32, k / 1024) != NULL;
	assert_int_equal(named, N / 2);
	apenet_config_free(&cfg);
	free(half);

	/* the same name again as the last of 32769 entries: the error is at it */
	size_t len = strlen(text);
	char *dup = malloc(len + 128);
	assert_non_null(dup);
	memcpy(dup, text, len);
	snprintf(dup + len, 128, "    - { name: n%05u, node: \"0,0,0\" }\n", order[N / 2]);
	char pos[32], nm[16];
	snprintf(nm, sizeof(nm), "n%05u", order[N / 2]);
	where(dup, nm, 1, pos, sizeof(pos));
	load_err_pos(dup, pos, "node name 'n16384' given twice");
	/* the same coordinates again, under a new name */
	snprintf(dup + len, 128, "    - { name: extra, node: \"31,31,31\" }\n");
	where(dup, "\"31,31,31\"", 1, pos, sizeof(pos));
	load_err_pos(dup, pos, "node 31,31,31 named twice ('n32767' and 'extra')");
	free(dup);
	free(text);
}

/* A cluster filled by hand (no index) is searched one node after the other. */
static void test_lookup_without_index(void **state)
{
	(void)state;
	struct apenet_config cfg;
	struct apenet_node_name names[2] = { { "a", 1, 0, 0 }, { "b", 0, 1, 0 } };
	unsigned xyz[3];
	apenet_config_defaults(&cfg);
	cfg.cl.nodes = names;
	cfg.cl.nnodes = 2;
	assert_string_equal(apenet_config_node_name(&cfg, 0, 1, 0), "b");
	assert_null(apenet_config_node_name(&cfg, 0, 0, 0));
	assert_int_equal(apenet_config_node_by_name(&cfg, "a", xyz), 0);
	assert_int_equal(xyz[0], 1);
	assert_int_equal(apenet_config_node_by_name(&cfg, "c", xyz), -1);
}

/* ---- the descriptors `apenet config check` prints ---- */

static void test_threshold_desc(void **state)
{
	(void)state;
	struct apenet_config def;
	struct apenet_thr_desc d;
	size_t i;
	apenet_config_defaults(&def);
	for (i = 0; apenet_config_threshold_desc(i, &d) == 0; i++) {
		const struct doc_key *k = doc_find(d.key);
		if (!k)
			fail_msg("%s: not in docs/config.md", d.key);
		if (!strcmp(d.unit, "?") || !d.doc[0])
			fail_msg("%s: no unit or meaning in config.c's thr_docs", d.key);
		if (strcmp(d.unit, k->unit))
			fail_msg("%s: unit '%s', docs/config.md says '%s'", d.key, d.unit, k->unit);
		assert_true(d.def == k->def && d.min == k->lo && d.max == k->hi);
		assert_true(apenet_config_threshold_value(&def.thr, &d) == d.def);
	}
	assert_int_equal(i, NTHR_STRUCT);
	assert_int_equal(apenet_config_threshold_desc(i + 5, &d), -1);

	/* which thresholds a file set */
	struct apenet_config cfg;
	load_ok("thresholds:\n  crc_fail_per_min: 50\n", &cfg);
	for (i = 0; apenet_config_threshold_desc(i, &d) == 0; i++)
		assert_int_equal(cfg.thr_given[i], !strcmp(d.key, "crc_fail_per_min"));
	apenet_config_free(&cfg);
	load_ok("cluster:\n  dims: 2x2x2\n", &cfg);
	for (i = 0; i < NTHR_STRUCT; i++)
		assert_int_equal(cfg.thr_given[i], 0);
	apenet_config_free(&cfg);
}

/* etc/apenet/apenet.yaml as shipped loads, sets every threshold to its
 * default and says so next to it, and its commented cluster example loads
 * once uncommented. */
static void test_shipped_config(void **state)
{
	(void)state;
	const char *src = getenv("APENET_SRCDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/etc/apenet/apenet.yaml", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	static char text[65536], uncommented[65536];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;

	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	if (apenet_config_load(path, &cfg, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(cfg.cl.have, 0);
	struct apenet_thr_desc d;
	for (size_t i = 0; apenet_config_threshold_desc(i, &d) == 0; i++) {
		if (!cfg.thr_given[i])
			fail_msg("%s: %s is not in it", path, d.key);
		if (apenet_config_threshold_value(&cfg.thr, &d) != d.def)
			fail_msg("%s: %s is not its default %g", path, d.key, d.def);
		/* the line above the key: "# Unit: U; range LO..HI; default D." */
		char key[96], unit[64];
		snprintf(key, sizeof(key), "\n  %s: ", d.key);
		const char *p = strstr(text, key), *q;
		if (!p)
			fail_msg("%s: no line '  %s: '", path, d.key);
		for (q = p - 1; q > text && *q != '\n'; q--)
			;
		double lo, hi, def;
		char range[64], *dots = NULL;
		/* (a range is read as text: strtod would take "-40." of "-40..200") */
		if (sscanf(q, "\n  # Unit: %63[^;]; range %63[^;]; default %lf.", unit, range, &def) != 3 ||
		    !(dots = strstr(range, "..")))
			fail_msg("%s: the line above %s is not '# Unit: U; range LO..HI; default D.'", path, d.key);
		*dots = 0;
		if (parse_num(range, &lo) || parse_num(dots + 2, &hi))
			fail_msg("%s: %s: bad range", path, d.key);
		if (strcmp(unit, d.unit) || lo != d.min || hi != d.max || def != d.def)
			fail_msg("%s: %s says %s %g..%g %g, the loader %s %g..%g %g", path, d.key, unit, lo, hi, def, d.unit,
				 d.min, d.max, d.def);
	}
	apenet_config_free(&cfg);

	/* uncomment the cluster block: from "#cluster:" to the first line that is no comment */
	char *o = uncommented;
	int in = 0;
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l + 1) : strlen(l);
		if (!strncmp(l, "#cluster:", 9))
			in = 1;
		else if (in && *l != '#')
			in = 0;
		if (in) {
			l++;
			n--;
		}
		memcpy(o, l, n);
		o += n;
		l += n;
	}
	*o = 0;
	load_ok(uncommented, &cfg);
	assert_int_equal(cfg.cl.have, 1);
	assert_int_equal(cfg.cl.dims[0], 4);
	assert_int_equal(cfg.cl.nnodes, 2);
	assert_string_equal(apenet_config_node_name(&cfg, 1, 0, 0), "quong02");
	apenet_config_free(&cfg);
}

/* From memory: the same result as from a file, errors named after name. */
static void test_load_string(void **state)
{
	(void)state;
	static const char text[] = "cluster:\n  dims: 2x1x1\n  nodes:\n    - { name: a, node: \"1,0,0\" }\n"
				  "thresholds:\n  fpga_temp_warn_c: 70\n";
	struct apenet_config cfg, from_file;
	struct apenet_err e = { 0 };
	unsigned xyz[3];

	assert_int_equal(apenet_config_load_string("mem.yaml", text, &cfg, &e), 0);
	assert_string_equal(cfg.path, "mem.yaml");
	load_ok(text, &from_file);
	assert_memory_equal(&cfg.thr, &from_file.thr, sizeof(cfg.thr));
	assert_int_equal(cfg.cl.nnodes, 1);
	assert_int_equal(apenet_config_node_by_name(&cfg, "a", xyz), 0);
	assert_int_equal(xyz[0], 1);
	apenet_config_free(&cfg);
	apenet_config_free(&from_file);

	assert_int_equal(apenet_config_load_string("mem.yaml", "thresholds:\n  flaps_fail: 0\n", &cfg, &e), -1);
	assert_string_equal(e.msg, "mem.yaml:2:15: 'flaps_fail': 0 is out of range 1..1e+09");
	assert_null(cfg.cl.nodes);
	assert_int_equal(apenet_config_load_string("mem.yaml", "", &cfg, &e), -1);
	assert_non_null(strstr(e.msg, "mem.yaml"));
}


/* ---- the table-driven sections: agent, supervisor ---- */

/* Reads the "## Agent" (or "## Supervisor") table of docs/config.md into
 * rows of cells. */
struct section_doc {
	char key[64], def[APENET_PATH_MAX], unit[32], range[64];
};
static struct section_doc adoc[64];
static unsigned nadoc;

static void read_section_doc(const char *heading)
{
	const char *src = getenv("APENET_SRCDIR");
	char path[PATH_MAX], line[2048];
	snprintf(path, sizeof(path), "%s/docs/config.md", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	int in = 0;
	nadoc = 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "## ", 3)) {
			in = !strcmp(line + 3, heading);
			continue;
		}
		if (!in || strncmp(line, "| `", 3))
			continue;
		char *cell[6];
		unsigned nc = 0;
		for (char *p = line + 1; nc < 6 && p; nc++) {
			cell[nc] = p;
			p = strchr(p, '|');
			if (p)
				*p++ = 0;
		}
		if (nc < 6)
			fail_msg("%s: %s row with %u cells: %s", path, heading, nc - 1, line);
		for (unsigned i = 0; i < 5; i++)
			trim(cell[i]);
		assert_true(nadoc < 64);
		struct section_doc *d = &adoc[nadoc++];
		size_t kl = strlen(cell[0]);
		snprintf(d->key, sizeof(d->key), "%.*s", (int)(kl - 2), cell[0] + 1);
		snprintf(d->def, sizeof(d->def), "%s", cell[1]);
		snprintf(d->unit, sizeof(d->unit), "%s", cell[2]);
		snprintf(d->range, sizeof(d->range), "%s", cell[3]);
		if (!*cell[4])
			fail_msg("%s: %s key %s has no meaning", path, heading, d->key);
	}
	fclose(f);
}

/* The tables the loader has: agent, then supervisor, and no more. */
static void test_tables(void **state)
{
	(void)state;
	const struct apenet_config_table *t;
	size_t k;
	static const char *const names[] = { "agent", "supervisor", "slurm" };
	static const size_t rows[] = { APENET_NAGENT, APENET_NSVR, APENET_NSLURM };
	static const size_t sizes[] = { sizeof(struct apenet_agent_config), sizeof(struct apenet_supervisor_config),
					sizeof(struct apenet_slurm_config) };
	struct apenet_config def;
	apenet_config_defaults(&def);
	for (k = 0; (t = apenet_config_table(k)); k++) {
		assert_true(k < 3);
		assert_string_equal(t->section, names[k]);
		assert_int_equal(t->n, rows[k]);
		assert_ptr_equal(apenet_config_table_find(names[k]), t);
		/* every member of the section's struct has its row: the rows'
		 * sizes add up to the struct, and no two rows share a member */
		size_t sum = 0;
		for (size_t i = 0; i < t->n; i++) {
			const struct apenet_config_desc *d = &t->rows[i];
			sum += d->is_str ? d->size : sizeof(double);
			assert_int_equal(d->is_str, d->form != APENET_FORM_NUM);
			for (size_t j = 0; j < i; j++)
				if (t->rows[j].off == d->off || !strcmp(t->rows[j].key, d->key))
					fail_msg("%s: rows %s and %s share a member or a key", t->section, t->rows[j].key, d->key);
			/* no file: nothing given */
			assert_int_equal(apenet_config_given(&def, t, i), 0);
		}
		assert_int_equal(sum, sizes[k]);
		assert_int_equal(apenet_config_given(&def, t, t->n), 0);
	}
	assert_int_equal(k, 3);
	assert_null(apenet_config_table_find("supervisors")); /* its own rows: apenet_config_supervisors_rows */
	assert_null(apenet_config_table_find("thresholds"));
	assert_ptr_equal(apenet_config_section(&def, apenet_config_table(0)), &def.agent);
	assert_ptr_equal(apenet_config_section(&def, apenet_config_table(1)), &def.svr);
	assert_ptr_equal(apenet_config_section(&def, apenet_config_table(2)), &def.slurm);
}

/* The slurm section: off by default, every policy word checked at its
 * value. */
static void test_slurm_section(void **state)
{
	(void)state;
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_config_load(NULL, &cfg, &e), 0);
	assert_true(cfg.slurm.enabled == 0 && cfg.slurm.dry_run == 0 && cfg.slurm.timeout_ms == 10000);
	assert_string_equal(cfg.slurm.scontrol, "/usr/bin/scontrol");
	assert_string_equal(cfg.slurm.cable, "ends");
	assert_string_equal(cfg.slurm.card, "node");
	assert_string_equal(cfg.slurm.agent, "none");
	assert_int_equal(apenet_config_load_string("t.yaml", "slurm:\n  enabled: 1\n  cable: node\n  host: none\n", &cfg, &e), 0);
	assert_true(cfg.slurm.enabled == 1);
	assert_string_equal(cfg.slurm.cable, "node");
	assert_string_equal(cfg.slurm.host, "none");
	apenet_config_free(&cfg);
	assert_int_equal(apenet_config_load_string("t.yaml", "slurm:\n  host: ends\n", &cfg, &e), -1);
	assert_string_equal(e.msg, "t.yaml:2:9: 'host': 'ends' is not node or none");
	assert_int_equal(apenet_config_load_string("t.yaml", "slurm:\n  link: both\n", &cfg, &e), -1);
	assert_string_equal(e.msg, "t.yaml:2:9: 'link': 'both' is not ends, node or none");
	assert_int_equal(apenet_config_load_string("t.yaml", "slurm:\n  scontrol: scontrol\n", &cfg, &e), -1);
	assert_non_null(strstr(e.msg, "not an absolute path"));
}

/* docs/config.md's table of each section is the loader's table, row for
 * row. */
static void test_section_docs(void **state)
{
	(void)state;
	const struct apenet_config_table *t;
	struct apenet_config def;
	apenet_config_defaults(&def);
	for (size_t k = 0; (t = apenet_config_table(k)); k++) {
		char heading[64];
		snprintf(heading, sizeof(heading), "%s", t->section);
		heading[0] = (char)(heading[0] - 'a' + 'A');
		read_section_doc(heading);
		const void *sec = apenet_config_section(&def, t);
		for (size_t i = 0; i < t->n; i++) {
			const struct apenet_config_desc *d = &t->rows[i];
			if (i >= nadoc)
				fail_msg("%s: not in the %s table of docs/config.md", d->key, heading);
			const struct section_doc *a = &adoc[i];
			if (strcmp(a->key, d->key))
				fail_msg("docs/config.md %s row %zu is %s, the loader's %s", heading, i, a->key, d->key);
			if (strcmp(a->unit, d->unit))
				fail_msg("%s: unit '%s', the loader '%s'", d->key, a->unit, d->unit);
			if (d->is_str) {
				char want[APENET_PATH_MAX + 8];
				snprintf(want, sizeof(want), "\"%s\"", d->def_str);
				assert_string_equal(apenet_config_str(sec, d), d->def_str);
				assert_true(strlen(d->def_str) < d->size);
				if (strcmp(a->def, want) || strcmp(a->range, "-"))
					fail_msg("%s: docs say default %s range %s, the loader %s -", d->key, a->def, a->range, want);
			} else {
				/* compared as numbers: "1048576" and "3.6e+06" both read exactly */
				double dv, lo, hi;
				assert_true(apenet_config_num(sec, d) == d->def);
				assert_true(d->min <= d->def && d->def <= d->max);
				if (parse_num(a->def, &dv) || parse_range(a->range, &lo, &hi) || dv != d->def || lo != d->min ||
				    hi != d->max)
					fail_msg("%s: docs say default %s range %s, the loader %.17g %.17g..%.17g", d->key, a->def,
						 a->range, d->def, d->min, d->max);
			}
			if (!d->doc[0])
				fail_msg("%s: no meaning", d->key);
		}
		if (nadoc != t->n)
			fail_msg("docs/config.md's %s table has %u rows, the loader's %zu", heading, nadoc, t->n);
	}
}

/* Every number setting of every section: both ends of its range load and
 * set it, one past either end is refused at the value, and the file's keys
 * are marked given. */
static void test_section_ranges(void **state)
{
	(void)state;
	const struct apenet_config_table *t;
	for (size_t k = 0; (t = apenet_config_table(k)); k++) {
		for (size_t i = 0; i < t->n; i++) {
			const struct apenet_config_desc *d = &t->rows[i];
			if (d->is_str)
				continue;
			char text[512], msg[256];
			struct apenet_config cfg;
			/* the agent's period keys are checked together: give a pair that holds */
			int agent = !strcmp(t->section, "agent");
			const char *extra = !agent ? ""
					    : !strcmp(d->key, "period_ms") ? "  watchdog_period_ms: 10000\n  dnp_stuck_periods: 10000\n"
					    : !strcmp(d->key, "watchdog_period_ms") ? "  period_ms: 10\n  dnp_stuck_periods: 10000\n"
					    : !strcmp(d->key, "dnp_stuck_periods")  ? "  period_ms: 10\n  watchdog_period_ms: 10\n"
					    : !strcmp(d->key, "blackbox_span_s")    ? "  period_ms: 100\n"
										    : "";
			double ends[2] = { d->min, d->max };
			for (int e = 0; e < 2; e++) {
				snprintf(text, sizeof(text), "%s:\n  %s: %.17g\n%s", t->section, d->key, ends[e], extra);
				if (agent && !strcmp(d->key, "dnp_stuck_periods") && e == 0)
					snprintf(text, sizeof(text), "agent:\n  %s: %.17g\n  period_ms: 10\n  watchdog_period_ms: 10\n",
						 d->key, ends[e]);
				load_ok(text, &cfg);
				assert_true(apenet_config_num(apenet_config_section(&cfg, t), d) == ends[e]);
				assert_int_equal(apenet_config_given(&cfg, t, i), 1);
				apenet_config_free(&cfg);
			}
			double over = d->max + (d->max > 0 ? d->max : 1) + 1, under = d->min - 1;
			snprintf(text, sizeof(text), "%s:\n  %s: %.17g\n", t->section, d->key, over);
			snprintf(msg, sizeof(msg), "'%s': %g is out of range %g..%g", d->key, over, d->min, d->max);
			load_err_val(text, d->key, msg);
			snprintf(text, sizeof(text), "%s:\n  %s: %.17g\n", t->section, d->key, under);
			snprintf(msg, sizeof(msg), "'%s': %g is out of range %g..%g", d->key, under, d->min, d->max);
			load_err_val(text, d->key, msg);
			snprintf(text, sizeof(text), "%s:\n  %s: soon\n", t->section, d->key);
			snprintf(msg, sizeof(msg), "'%s': 'soon' is not a number", d->key);
			load_err_val(text, d->key, msg);
			snprintf(text, sizeof(text), "%s:\n  %s: [1]\n", t->section, d->key);
			snprintf(msg, sizeof(msg), "'%s': expected a value, found a list", d->key);
			load_err_val(text, d->key, msg);
		}
	}
}

static void test_agent_errors(void **state)
{
	(void)state;
	load_err_at("agent:\n  period_ms: 100\n  perod: 3\n", "perod", 0,
		    "unknown key 'perod' (expected one of: period_ms, watchdog_period_ms, watchdog_timeout_beats, "
		    "dnp_stuck_periods, baseline_s, pcie_interval_ms, module_interval_s, blackbox_span_s, "
		    "blackbox_memory_mib, blackbox_dump_full_s, blackbox_dump_step_s, blackbox_holdoff_s, "
		    "blackbox_keep_files, blackbox_keep_mib, edac_interval_s, edac_window_s, edac_ce_sick_per_hour, "
		    "service_timeout_s, events_keep, events_max_mib, user, state_dir, blackbox_dir, socket, lock_dir, "
		    "edac_root, log_level, pma_presets_dir, agentx, agentx_socket, agentx_ping_s, agentx_traps, "
		    "certificates_db)");
	load_err_at("agent: 3\n", "3", 0, "'agent': expected a map, found a value");
	load_err_at("agent:\n  state_dir: [a]\n", "[", 0, "'state_dir': expected a value, found a list");
	/* the host must beat at least once per watchdog period */
	load_err_at("agent:\n  watchdog_period_ms: 100\n  period_ms: 200\n", "200", 0,
		     "period_ms (200) is above watchdog_period_ms (100): the DNP would miss host beats");
	load_err_val("agent:\n  watchdog_period_ms: 50\n", "watchdog_period_ms",
		     "period_ms (100, the default) is above watchdog_period_ms (50): the DNP would miss host beats");
	/* a stuck DNP must be stuck over two of its own periods */
	load_err_val("agent:\n  dnp_stuck_periods: 2\n  period_ms: 50\n", "dnp_stuck_periods",
		     "dnp_stuck_periods x period_ms (2 x 50 ms) is under two watchdog periods (200 ms): "
		     "a beating DNP would be called hung");
	load_err_val("agent:\n  period_ms: 10\n", "period_ms",
		     "dnp_stuck_periods x period_ms (5 x 10 ms) is under two watchdog periods (200 ms): "
		     "a beating DNP would be called hung");
	load_err_val("agent:\n  period_ms: 10\n  blackbox_span_s: 86400\n  watchdog_period_ms: 10\n  dnp_stuck_periods: 2\n", "blackbox_span_s",
		     "blackbox_span_s (86400 s) holds more than a million periods of 10 ms");
	/* paths are absolute; only lock_dir may be empty */
	load_err_val("agent:\n  state_dir: var/lib\n", "state_dir", "'state_dir': 'var/lib' is not an absolute path");
	load_err_val("agent:\n  socket: \"\"\n", "socket", "'socket': empty; a path is needed");
	load_err_val("agent:\n  blackbox_dir: \"\"\n", "blackbox_dir", "'blackbox_dir': empty; a path is needed");
	load_err_val("agent:\n  log_level: chatty\n", "log_level",
		     "'log_level': 'chatty' is not err, warn, notice, info or debug");
	char text[512], longp[200];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = 0;
	snprintf(text, sizeof(text), "agent:\n  socket: %s\n", longp);
	load_err_val(text, "socket", "'socket': a unix socket path is at most 107 characters");
	char user[80];
	memset(user, 'u', 70);
	user[70] = 0;
	snprintf(text, sizeof(text), "agent:\n  user: %s\n", user);
	load_err_val(text, "user", "'user': longer than 63 characters");

	/* good strings are kept; an empty user and lock_dir are allowed */
	struct apenet_config cfg;
	load_ok("agent:\n  user: \"\"\n  lock_dir: \"\"\n  state_dir: /tmp/x\n  socket: /tmp/x/a.sock\n"
		"  log_level: debug\n", &cfg);
	assert_string_equal(cfg.agent.user, "");
	assert_string_equal(cfg.agent.state_dir, "/tmp/x");
	assert_string_equal(cfg.agent.socket, "/tmp/x/a.sock");
	assert_string_equal(cfg.agent.log_level, "debug");
	assert_string_equal(cfg.agent.blackbox_dir, "/var/lib/apenet/blackbox");
	assert_true(cfg.agent.period_ms == 100);
	apenet_config_free(&cfg);
}

/* The shipped file sets every key of every section to its default, with a
 * comment line giving unit, range and default (or the default of a string)
 * above it. */
static void test_shipped_sections(void **state)
{
	(void)state;
	const char *src = getenv("APENET_SRCDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/etc/apenet/apenet.yaml", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	static char text[65536], sec[65536];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	if (apenet_config_load(path, &cfg, &e))
		fail_msg("%s", e.msg);
	const struct apenet_config_table *t;
	for (size_t k = 0; (t = apenet_config_table(k)); k++) {
		/* the section: from its key to the next line that starts with a key */
		char head[64];
		snprintf(head, sizeof(head), "\n%s:\n", t->section);
		const char *p0 = strstr(text, head), *p1;
		if (!p0)
			fail_msg("%s: no %s section", path, t->section);
		for (p1 = p0 + strlen(head); *p1 && !(p1[-1] == '\n' && p1[0] >= 'a' && p1[0] <= 'z'); p1++)
			;
		snprintf(sec, sizeof(sec), "%.*s", (int)(p1 - p0), p0);
		const void *v = apenet_config_section(&cfg, t);
		for (size_t i = 0; i < t->n; i++) {
			const struct apenet_config_desc *d = &t->rows[i];
			if (!apenet_config_given(&cfg, t, i))
				fail_msg("%s: %s key %s is not in it", path, t->section, d->key);
			char key[96], want[APENET_PATH_MAX + 96];
			snprintf(key, sizeof(key), "\n  %s: ", d->key);
			const char *p = strstr(sec, key), *q;
			if (!p)
				fail_msg("%s: no line '  %s: ' in the %s section", path, d->key, t->section);
			for (q = p - 1; q > sec && *q != '\n'; q--)
				;
			if (d->is_str) {
				if (strcmp(apenet_config_str(v, d), d->def_str))
					fail_msg("%s: %s is not its default", path, d->key);
				snprintf(want, sizeof(want), "\n  # Default: \"%s\".\n", d->def_str);
				if (strncmp(q, want, strlen(want)))
					fail_msg("%s: the line above %s is not '%s'", path, d->key, want + 1);
				continue;
			}
			if (apenet_config_num(v, d) != d->def)
				fail_msg("%s: %s is not its default %g", path, d->key, d->def);
			/* "# Unit: U; range LO..HI; default D.", the numbers read exactly */
			char unit[64], range[64], def[64], end;
			double lo, hi, x;
			if (sscanf(q, "\n  # Unit: %63[^;]; range %63[^;]; default %63[^.\n]%c", unit, range, def, &end) != 4 ||
			    end != '.' || strcmp(unit, d->unit) || parse_range(range, &lo, &hi) || parse_num(def, &x) ||
			    lo != d->min || hi != d->max || x != d->def)
				fail_msg("%s: the line above %s is not '# Unit: %s; range %.17g..%.17g; default %.17g.'", path,
					 d->key, d->unit, d->min, d->max, d->def);
		}
	}
	apenet_config_free(&cfg);
}

/* ---- the supervisor section ---- */

static void test_supervisor_defaults(void **state)
{
	(void)state;
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_config_load(NULL, &cfg, &e), 0);
	const struct apenet_supervisor_config *s = &cfg.svr;
	assert_true(s->batch_max_events == 1000 && s->batch_max_ms == 20 && s->recv_buffer_kib == 16384);
	assert_true(s->tick_ms == 100 && s->silent_ms == 3500 && s->settle_ms == 1500 && s->explain_ms == 5000);
	assert_true(s->late_ms == 2000 && s->restore_hold_ms == 8000 && s->resync_ms == 15000);
	assert_true(s->group_min == 2 && s->evidence_max == 256 && s->heartbeat_flush_ms == 1000);
	assert_true(s->retention_days == 90);
	assert_string_equal(s->listen, "0.0.0.0:162,0.0.0.0:10162");
	assert_string_equal(s->db, "/var/lib/apenet/health-1.db,/var/lib/apenet/health-2.db");
	assert_string_equal(s->state_dir, "/var/lib/apenet");
	assert_string_equal(s->log_level, "notice");
	/* silent is three default heartbeats and a margin */
	assert_true(s->silent_ms > 3 * cfg.heartbeat_s * 1000);
	for (unsigned i = 0; i < APENET_NSVR; i++)
		assert_int_equal(cfg.svr_given[i], 0);
	apenet_config_free(&cfg);
}

/* A whole section: every key set, kept as given; the agent's untouched. */
static void test_supervisor_full(void **state)
{
	(void)state;
	struct apenet_config cfg, def;
	apenet_config_defaults(&def);
	load_ok("supervisor:\n"
		"  batch_max_events: 500\n  batch_max_ms: 0\n  recv_buffer_kib: 65536\n  tick_ms: 50\n"
		"  silent_ms: 5000\n  settle_ms: 0\n  explain_ms: 10000\n  late_ms: 60000\n  restore_hold_ms: 0\n"
		"  resync_ms: 30000\n  group_min: 4\n  evidence_max: 1000\n  heartbeat_flush_ms: 0\n  retention_days: 0\n"
		"  listen: \"10.0.0.1:162, [::1]:10162 ,sup3.example:1\"\n"
		"  db: \"/srv/h1.db,/srv/h2.db,/srv/h3.db\"\n  state_dir: /srv/apenet\n  log_level: debug\n"
		"  agentx: 0\n  agentx_socket: tcp:localhost:705\n  agentx_ping_s: 3\n  agentx_cache_ms: 250\n"
		"  site_key: /srv/site.key\n  site_key_previous: /srv/site.key.old\n",
		&cfg);
	const struct apenet_supervisor_config *s = &cfg.svr;
	assert_true(s->agentx == 0 && s->agentx_ping_s == 3 && s->agentx_cache_ms == 250);
	assert_string_equal(s->agentx_socket, "tcp:localhost:705");
	assert_true(s->batch_max_events == 500 && s->batch_max_ms == 0 && s->recv_buffer_kib == 65536);
	assert_true(s->tick_ms == 50 && s->silent_ms == 5000 && s->settle_ms == 0 && s->explain_ms == 10000);
	assert_true(s->late_ms == 60000 && s->restore_hold_ms == 0 && s->resync_ms == 30000);
	assert_true(s->group_min == 4 && s->evidence_max == 1000 && s->heartbeat_flush_ms == 0);
	assert_true(s->retention_days == 0);
	assert_string_equal(s->listen, "10.0.0.1:162, [::1]:10162 ,sup3.example:1");
	assert_string_equal(s->db, "/srv/h1.db,/srv/h2.db,/srv/h3.db");
	assert_string_equal(s->state_dir, "/srv/apenet");
	assert_string_equal(s->log_level, "debug");
	for (unsigned i = 0; i < APENET_NSVR; i++)
		assert_int_equal(cfg.svr_given[i], 1);
	assert_memory_equal(&cfg.agent, &def.agent, sizeof(def.agent));
	assert_memory_equal(&cfg.thr, &def.thr, sizeof(def.thr));
	/* and the agents' section beside it is its own */
	assert_int_equal(cfg.sup.nsupervisors, def.sup.nsupervisors);
	apenet_config_free(&cfg);

	/* one instance, both lists of one */
	load_ok("supervisor:\n  listen: \"[::]:162\"\n  db: /var/lib/apenet/health.db\n", &cfg);
	assert_string_equal(cfg.svr.db, "/var/lib/apenet/health.db");
	assert_true(cfg.svr.silent_ms == 3500);
	assert_int_equal(cfg.svr_given[0], 0);
	apenet_config_free(&cfg);
	/* eight */
	load_ok("supervisor:\n  listen: \"h:1,h:2,h:3,h:4,h:5,h:6,h:7,h:8\"\n  db: \"/1,/2,/3,/4,/5,/6,/7,/8\"\n", &cfg);
	apenet_config_free(&cfg);
	/* instances on different hosts may listen on the same address */
	load_ok("supervisor:\n  listen: \"0.0.0.0:162,0.0.0.0:162\"\n", &cfg);
	apenet_config_free(&cfg);
}

/* Each kind of bad value, named by file:line:column and its key. */
static void test_supervisor_errors(void **state)
{
	(void)state;
	load_err_at("supervisor:\n  tick_ms: 100\n  tik_ms: 3\n", "tik_ms", 0,
		    "unknown key 'tik_ms' (expected one of: batch_max_events, batch_max_ms, recv_buffer_kib, tick_ms, "
		    "silent_ms, settle_ms, explain_ms, late_ms, restore_hold_ms, resync_ms, group_min, evidence_max, "
		    "heartbeat_flush_ms, retention_days, listen, db, state_dir, log_level, agentx, agentx_socket, "
		    "agentx_ping_s, agentx_cache_ms, site_key, site_key_previous)");
	load_err_at("supervisor: on\n", "on", 0, "'supervisor': expected a map, found a value");
	load_err_at("supervisor:\n  - listen\n", "-", 0, "'supervisor': expected a map, found a list");
	load_err_val("supervisor:\n  db: [/a, /b]\n", "db", "'db': expected a value, found a list");
	/* the singular and the plural section: a key in the wrong one says where it goes */
	load_err_at("supervisor:\n  tick_ms: 100\n  targets: [\"a:162\"]\n", "targets", 0,
		    "'targets' belongs in 'supervisors:' (where the agents report), not in 'supervisor:'");
	load_err_at("supervisor:\n  community: public\n", "community", 0,
		    "'community' belongs in 'supervisors:' (where the agents report), not in 'supervisor:'");
	load_err_at("supervisors:\n  timeout_ms: 100\n  listen: \"0.0.0.0:162\"\n", "listen", 0,
		    "'listen' belongs in 'supervisor:' (the supervisor's own settings), not in 'supervisors:'");
	/* strings */
	load_err_val("supervisor:\n  state_dir: var/lib/apenet\n", "state_dir",
		     "'state_dir': 'var/lib/apenet' is not an absolute path");
	load_err_val("supervisor:\n  state_dir: \"\"\n", "state_dir", "'state_dir': empty; a path is needed");
	load_err_val("supervisor:\n  log_level: loud\n", "log_level",
		     "'log_level': 'loud' is not err, warn, notice, info or debug");
	char text[9000], big[5000];
	memset(big, 'a', sizeof(big) - 1);
	big[0] = '/';
	big[sizeof(big) - 1] = 0;
	snprintf(text, sizeof(text), "supervisor:\n  db: %s\n", big);
	load_err_val(text, "db", "'db': longer than 4095 characters");
	big[300] = 0;
	snprintf(text, sizeof(text), "supervisor:\n  listen: %s\n", big + 1);
	load_err_val(text, "listen", "'listen': longer than 255 characters");
	/* the listen list: host:port entries, port given and in range */
	load_err_val("supervisor:\n  listen: \"\"\n", "listen",
		     "'listen': empty; 1..8 comma-separated host:port are needed");
	load_err_val("supervisor:\n  listen: \"0.0.0.0:162,\"\n", "listen", "'listen': entry 2 is empty");
	load_err_val("supervisor:\n  listen: \"0.0.0.0:162, ,0.0.0.0:163\"\n", "listen", "'listen': entry 2 is empty");
	load_err_val("supervisor:\n  listen: \"0.0.0.0:162,0.0.0.0\"\n", "listen",
		     "'listen': entry 2 '0.0.0.0': no port (host:port)");
	load_err_val("supervisor:\n  listen: \"[::1],[::]:162\"\n", "listen", "'listen': entry 1 '[::1]': no port (host:port)");
	load_err_val("supervisor:\n  listen: \"0.0.0.0:0,0.0.0.0:162\"\n", "listen",
		     "'listen': entry 1 '0.0.0.0:0': port '0' is not a number in 1..65535");
	load_err_val("supervisor:\n  listen: \"0.0.0.0:162,h:65536\"\n", "listen",
		     "'listen': entry 2 'h:65536': port '65536' is not a number in 1..65535");
	load_err_val("supervisor:\n  listen: \"0.0.0.0:snmp,h:1\"\n", "listen",
		     "'listen': entry 1 '0.0.0.0:snmp': port 'snmp' is not a number in 1..65535");
	load_err_val("supervisor:\n  listen: \"::1:162,h:1\"\n", "listen",
		     "'listen': entry 1 '::1:162': an IPv6 address goes in brackets: [addr]:port");
	load_err_val("supervisor:\n  listen: \"a b:162,h:1\"\n", "listen",
		     "'listen': entry 1 'a b:162': ' ' cannot be in a host name or address");
	load_err_val("supervisor:\n  listen: \"h:1,h:2,h:3,h:4,h:5,h:6,h:7,h:8,h:9\"\n", "listen",
		     "'listen': 9 entries, at most 8 (instances)");
	/* the db list: absolute paths, distinct */
	load_err_val("supervisor:\n  db: \"/a.db,b.db\"\n", "db", "'db': entry 2 'b.db' is not an absolute path");
	load_err_val("supervisor:\n  db: \"/a.db,/b.db,/a.db\"\n", "db",
		     "'db': entry 3 '/a.db' is also entry 1: each instance needs its own");
	load_err_val("supervisor:\n  db: \"/a.db,\"\n", "db", "'db': entry 2 is empty");
	load_err_val("supervisor:\n  db: \" \"\n", "db", "'db': empty; 1..8 comma-separated absolute paths are needed");
	/* as many databases as addresses; the error is at the value the file
	 * gave (listen when it gave both) */
	load_err_val("supervisor:\n  listen: \"0.0.0.0:162\"\n", "listen",
		     "listen has 1 entry and db 2 (the default): each instance (--instance N) needs its entry in both");
	load_err_val("supervisor:\n  db: \"/a,/b,/c\"\n", "db",
		     "listen has 2 entries (the default) and db 3: each instance (--instance N) needs its entry in both");
	load_err_val("supervisor:\n  log_level: info\n  listen: \"h:1,h:2,h:3\"\n  db: \"/a,/b\"\n", "listen",
		     "listen has 3 entries and db 2: each instance (--instance N) needs its entry in both");
}

/* --instance N: the Nth address and database, or an error naming N and
 * how many there are. */
static void test_instance(void **state)
{
	(void)state;
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	char l[64], d[APENET_PATH_MAX];
	apenet_config_defaults(&cfg);
	assert_int_equal(apenet_config_instance(&cfg.svr, 1, l, sizeof(l), d, sizeof(d), &e), 0);
	assert_string_equal(l, "0.0.0.0:162");
	assert_string_equal(d, "/var/lib/apenet/health-1.db");
	assert_int_equal(apenet_config_instance(&cfg.svr, 2, l, sizeof(l), d, sizeof(d), &e), 0);
	assert_string_equal(l, "0.0.0.0:10162");
	assert_string_equal(d, "/var/lib/apenet/health-2.db");
	assert_int_equal(apenet_config_instance(&cfg.svr, 3, l, sizeof(l), d, sizeof(d), &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	assert_string_equal(e.msg, "--instance 3: the config lists 2 (supervisor: listen, db)");
	assert_int_equal(apenet_config_instance(&cfg.svr, 0, l, sizeof(l), d, sizeof(d), &e), -1);
	assert_string_equal(e.msg, "--instance 0: the config lists 2 (supervisor: listen, db); instances count from 1");
	apenet_config_free(&cfg);

	/* spaces around the entries are not part of them */
	load_ok("supervisor:\n  listen: \" 10.0.0.1:162 , [::1]:10162,h:3 \"\n  db: \"/a.db,  /b c.db ,/c.db\"\n", &cfg);
	assert_int_equal(apenet_config_instance(&cfg.svr, 2, l, sizeof(l), d, sizeof(d), &e), 0);
	assert_string_equal(l, "[::1]:10162");
	assert_string_equal(d, "/b c.db");
	assert_int_equal(apenet_config_instance(&cfg.svr, 3, l, sizeof(l), d, sizeof(d), &e), 0);
	assert_string_equal(l, "h:3");
	assert_string_equal(d, "/c.db");
	assert_int_equal(apenet_config_instance(&cfg.svr, 1, l, sizeof(l), d, sizeof(d), &e), 0);
	assert_string_equal(l, "10.0.0.1:162");
	assert_int_equal(apenet_config_instance(&cfg.svr, 4, l, sizeof(l), d, sizeof(d), &e), -1);
	assert_string_equal(e.msg, "--instance 4: the config lists 3 (supervisor: listen, db)");
	/* a buffer too small is an error, not a cut address */
	assert_int_equal(apenet_config_instance(&cfg.svr, 2, l, 11, d, sizeof(d), &e), -1);
	assert_string_equal(e.msg, "--instance 2: listen '[::1]:10162' is longer than its buffer");
	assert_int_equal(apenet_config_instance(&cfg.svr, 2, l, 12, d, 7, &e), -1);
	assert_string_equal(e.msg, "--instance 2: db '/b c.db' is longer than its buffer");
	assert_int_equal(apenet_config_instance(&cfg.svr, 2, l, 12, d, 8, &e), 0);
	apenet_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_string),
		cmocka_unit_test(test_defaults_without_file),
		cmocka_unit_test(test_doc_keys_in_loader),
		cmocka_unit_test(test_loader_keys_in_doc),
		cmocka_unit_test(test_doc_ranges),
		cmocka_unit_test(test_error_unknown_top_key),
		cmocka_unit_test(test_supervisors),
		cmocka_unit_test(test_error_not_a_number),
		cmocka_unit_test(test_error_warn_above_fail),
		cmocka_unit_test(test_error_cluster),
		cmocka_unit_test(test_error_nodes),
		cmocka_unit_test(test_error_missing_file),
		cmocka_unit_test(test_wraparound),
		cmocka_unit_test(test_layout_and_names),
		cmocka_unit_test(test_lookup_32k),
		cmocka_unit_test(test_lookup_without_index),
		cmocka_unit_test(test_threshold_desc),
		cmocka_unit_test(test_shipped_config),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_slurm_section),
		cmocka_unit_test(test_section_docs),
		cmocka_unit_test(test_section_ranges),
		cmocka_unit_test(test_agent_errors),
		cmocka_unit_test(test_shipped_sections),
		cmocka_unit_test(test_supervisor_defaults),
		cmocka_unit_test(test_supervisor_full),
		cmocka_unit_test(test_supervisor_errors),
		cmocka_unit_test(test_instance),
		cmocka_unit_test(test_supervisors_rows),
		cmocka_unit_test(test_at_start),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
