/*
 * Tests of the YAML config loader (common/conf.c).
 *
 * Documents are loaded from strings and from real files under /tmp; the
 * tree's kinds, keys, values and positions are checked node by node, and
 * every error is checked for its "file:line:col: message" text, because
 * naming the place of the problem is the loader's reason to exist.
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

#include "apenet/conf.h"

/* Loads text as "t.yaml"; fails the test when it does not load. */
static struct apenet_conf *load_ok(const char *text)
{
	struct apenet_conf *c = NULL;
	struct apenet_err e = { 0 };

	if (apenet_conf_load_string("t.yaml", text, &c, &e))
		fail_msg("load failed: %s\n--- document:\n%s", e.msg, text);
	assert_non_null(c);
	assert_non_null(c->root);
	assert_string_equal(c->file, "t.yaml");
	return c;
}

/* Loads text expecting failure with exactly the message want. */
static void load_fails(const char *text, const char *want)
{
	struct apenet_conf *c = (struct apenet_conf *)(uintptr_t)1; /* must stay untouched */
	struct apenet_err e = { 0 };

	assert_int_equal(apenet_conf_load_string("t.yaml", text, &c, &e), -1);
	assert_ptr_equal(c, (struct apenet_conf *)(uintptr_t)1);
	assert_int_equal(e.code, APENET_EINVAL);
	if (strcmp(e.msg, want))
		fail_msg("document:\n%s\nexpected error: %s\n     got error: %s", text, want, e.msg);
}

/* Loads text expecting failure with a message starting with prefix. */
static void load_fails_prefix(const char *text, const char *prefix)
{
	struct apenet_conf *c = NULL;
	struct apenet_err e = { 0 };

	assert_int_equal(apenet_conf_load_string("t.yaml", text, &c, &e), -1);
	assert_null(c);
	assert_int_equal(e.code, APENET_EINVAL);
	if (strncmp(e.msg, prefix, strlen(prefix)))
		fail_msg("document:\n%s\nexpected error starting: %s\n              got error: %s", text, prefix,
			 e.msg);
}

static void check_node(const struct apenet_conf_node *n, enum apenet_conf_kind kind, const char *key, const char *value,
		       int line, int col)
{
	assert_non_null(n);
	assert_int_equal(n->kind, kind);
	if (key)
		assert_string_equal(n->key, key);
	else
		assert_null(n->key);
	if (value)
		assert_string_equal(n->value, value);
	else
		assert_null(n->value);
	if (n->line != line || n->col != col)
		fail_msg("node %s: at %d:%d, expected %d:%d", key ? key : value ? value : "?", n->line, n->col,
			 line, col);
}

/* ---- the tree ---- */

static const char doc[] =
	"a: 1\n"                 /* 1 */
	"b:\n"                   /* 2 */
	"  c: hello world\n"     /* 3 */
	"  d: [1, \"2\"]\n"      /* 4 */
	"seq:\n"                 /* 5 */
	"  - x\n"                /* 6 */
	"  - y: 2\n"             /* 7 */
	"ind:\n"                 /* 8 */
	"- p   # comment\n"      /* 9 */
	"flow: {k: v, n: 3}\n";  /* 10 */

static void test_tree(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok(doc);
	const struct apenet_conf_node *r = c->root, *n;

	check_node(r, APENET_CONF_MAP, NULL, NULL, 1, 1);
	/* A map entry's node sits where its value starts. */
	n = r->child;
	check_node(n, APENET_CONF_SCALAR, "a", "1", 1, 4);
	n = n->next;
	check_node(n, APENET_CONF_MAP, "b", NULL, 3, 3); /* a block map starts at its first key */
	check_node(n->child, APENET_CONF_SCALAR, "c", "hello world", 3, 6);
	const struct apenet_conf_node *d = n->child->next;
	check_node(d, APENET_CONF_SEQ, "d", NULL, 4, 6);
	check_node(d->child, APENET_CONF_SCALAR, NULL, "1", 4, 7);
	check_node(d->child->next, APENET_CONF_SCALAR, NULL, "2", 4, 10);
	assert_null(d->child->next->next);
	assert_null(d->next);
	n = n->next;
	check_node(n, APENET_CONF_SEQ, "seq", NULL, 6, 3);
	check_node(n->child, APENET_CONF_SCALAR, NULL, "x", 6, 5);
	check_node(n->child->next, APENET_CONF_MAP, NULL, NULL, 7, 5);
	check_node(n->child->next->child, APENET_CONF_SCALAR, "y", "2", 7, 8);
	n = n->next;
	check_node(n, APENET_CONF_SEQ, "ind", NULL, 9, 1);
	check_node(n->child, APENET_CONF_SCALAR, NULL, "p", 9, 3);
	assert_null(n->child->next);
	n = n->next;
	check_node(n, APENET_CONF_MAP, "flow", NULL, 10, 7);
	check_node(n->child, APENET_CONF_SCALAR, "k", "v", 10, 11);
	check_node(n->child->next, APENET_CONF_SCALAR, "n", "3", 10, 17);
	assert_null(n->next);
	apenet_conf_free(c);
}

static void test_scalar_root(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok("  just text\n");

	check_node(c->root, APENET_CONF_SCALAR, NULL, "just text", 1, 3);
	apenet_conf_free(c);
	c = load_ok("- 1\n- 2\n");
	check_node(c->root, APENET_CONF_SEQ, NULL, NULL, 1, 1);
	apenet_conf_free(c);
	apenet_conf_free(NULL); /* allowed */
}

static void test_get(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok(doc);
	const struct apenet_conf_node *b = apenet_conf_get(c->root, "b");

	assert_non_null(b);
	assert_int_equal(b->kind, APENET_CONF_MAP);
	assert_string_equal(apenet_conf_get(b, "c")->value, "hello world");
	assert_string_equal(apenet_conf_get(c->root, "a")->value, "1");
	assert_ptr_equal(apenet_conf_get(c->root, "ind"), b->next->next);
	assert_null(apenet_conf_get(c->root, "zz"));
	assert_null(apenet_conf_get(c->root, "c"));              /* not recursive */
	assert_null(apenet_conf_get(apenet_conf_get(c->root, "a"), "a")); /* a scalar has no keys */
	assert_null(apenet_conf_get(apenet_conf_get(c->root, "seq"), "y"));
	assert_null(apenet_conf_get(NULL, "a"));
	apenet_conf_free(c);
}

/* ---- checks on nodes ---- */

static void test_check_keys(void **state)
{
	(void)state;
	static const char *const ab[] = { "a", "b", NULL };
	static const char *const abx[] = { "a", "b", "x", NULL };
	struct apenet_conf *c = load_ok("a: 1\nb: 2\nx: 3\n");
	struct apenet_err e = { 0 };

	assert_int_equal(apenet_conf_check_keys(c, c->root, abx, &e), 0);
	assert_int_equal(apenet_conf_check_keys(c, c->root, ab, &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	assert_string_equal(e.msg, "t.yaml:3:1: unknown key 'x' (expected one of: a, b)");
	apenet_conf_free(c);

	/* A nested map reports its own position. */
	c = load_ok("top:\n  a: 1\n  zzz: [1]\n");
	memset(&e, 0, sizeof(e));
	assert_int_equal(apenet_conf_check_keys(c, apenet_conf_get(c->root, "top"), ab, &e), -1);
	assert_string_equal(e.msg, "t.yaml:3:3: unknown key 'zzz' (expected one of: a, b)");
	apenet_conf_free(c);
}

static void test_expect_and_error(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok(doc);
	struct apenet_err e = { 0 };

	assert_int_equal(apenet_conf_expect(c, apenet_conf_get(c->root, "b"), APENET_CONF_MAP, "b", &e), 0);
	assert_int_equal(apenet_conf_expect(c, apenet_conf_get(c->root, "b"), APENET_CONF_SEQ, "b", &e), -1);
	assert_string_equal(e.msg, "t.yaml:3:3: 'b': expected a list, found a map");
	assert_int_equal(apenet_conf_expect(c, apenet_conf_get(c->root, "seq")->child, APENET_CONF_MAP, "cable", &e), -1);
	assert_string_equal(e.msg, "t.yaml:6:5: cable: expected a map, found a value");
	assert_int_equal(apenet_conf_expect(c, apenet_conf_get(c->root, "a"), APENET_CONF_MAP, "a", &e), -1);
	assert_string_equal(e.msg, "t.yaml:1:4: 'a': expected a map, found a value");

	memset(&e, 0, sizeof(e));
	assert_int_equal(apenet_conf_error(c, apenet_conf_get(c->root, "ind"), &e, "custom %d", 7), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	assert_string_equal(e.msg, "t.yaml:9:1: custom 7");
	assert_int_equal(apenet_conf_error(c, NULL, &e, "no node"), -1);
	assert_string_equal(e.msg, "t.yaml:0:0: no node");
	/* A NULL error sink is allowed. */
	assert_int_equal(apenet_conf_error(c, NULL, NULL, "x"), -1);
	apenet_conf_free(c);
}

static void test_uint(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok("ok: 42\n"
				 "hex: 0x10\n"
				 "word: abc\n"
				 "neg: -1\n"
				 "tail: 12abc\n"
				 "big: 300\n"
				 "huge: 99999999999999999999999\n"
				 "empty:\n"
				 "spaced: \" -1\"\n"
				 "plus: \"+5\"\n"
				 "map: {a: 1}\n"
				 "max: 18446744073709551615\n");
	struct apenet_err e = { 0 };
	unsigned long v = 7;
	const struct apenet_conf_node *r = c->root;

	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "ok"), 0, 100, &v, &e), 0);
	assert_int_equal(v, 42);
	/* The bounds are inclusive. */
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "ok"), 42, 42, &v, &e), 0);
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "hex"), 0, 100, &v, &e), 0);
	assert_int_equal(v, 16);
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "max"), 0, ULONG_MAX, &v, &e), 0);
	assert_true(v == ULONG_MAX);

	v = 7;
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "word"), 0, 100, &v, &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	assert_string_equal(e.msg, "t.yaml:3:7: 'word': 'abc' is not a whole number");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "neg"), 0, 100, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:4:6: 'neg': '-1' is not a whole number");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "tail"), 0, 100, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:5:7: 'tail': '12abc' is not a whole number");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "big"), 0, 255, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:6:6: 'big': 300 is out of range 0..255");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "ok"), 43, 50, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:1:5: 'ok': 42 is out of range 43..50");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "huge"), 0, ULONG_MAX, &v, &e), -1);
	assert_true(strncmp(e.msg, "t.yaml:7:7: 'huge': ", 20) == 0);
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "empty"), 0, 100, &v, &e), -1);
	assert_true(strncmp(e.msg, "t.yaml:8:", 9) == 0);
	assert_non_null(strstr(e.msg, "is not a whole number"));
	/* A sign or blank hidden behind quotes is no more a whole number:
	 * strtoul would turn " -1" into ULONG_MAX. */
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "spaced"), 0, ULONG_MAX, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:9:9: 'spaced': ' -1' is not a whole number");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "plus"), 0, 100, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:10:7: 'plus': '+5' is not a whole number");
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(r, "map"), 0, 100, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:11:6: 'map': expected a value, found a map");
	assert_int_equal(v, 7); /* untouched by every failure */
	apenet_conf_free(c);
}

static void test_double(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok("len: 2.5\n"
				 "exp: 1e-3\n"
				 "word: abc\n"
				 "nan: nan\n"
				 "inf: inf\n"
				 "over: 1e999\n"
				 "far: 200\n"
				 "seq: [1]\n");
	struct apenet_err e = { 0 };
	double v = -1;
	const struct apenet_conf_node *r = c->root;

	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "len"), 0.1, 100, &v, &e), 0);
	assert_true(v == 2.5);
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "exp"), 0, 1, &v, &e), 0);
	assert_true(v > 0.00099999 && v < 0.00100001);
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "len"), 2.5, 2.5, &v, &e), 0);

	v = -1;
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "word"), 0, 100, &v, &e), -1);
	assert_int_equal(e.code, APENET_EINVAL);
	assert_string_equal(e.msg, "t.yaml:3:7: 'word': 'abc' is not a number");
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "nan"), -1e300, 1e300, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:4:6: 'nan': 'nan' is not a number");
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "inf"), -1e300, 1e300, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:5:6: 'inf': 'inf' is not a number");
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "over"), -1e300, 1e300, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:6:7: 'over': '1e999' is not a number");
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "far"), 0.1, 100, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:7:6: 'far': 200 is out of range 0.1..100");
	assert_int_equal(apenet_conf_double(c, apenet_conf_get(r, "seq"), 0, 1, &v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:8:6: 'seq': expected a value, found a list");
	assert_true(v == -1);
	apenet_conf_free(c);
}

static void test_triple(void **state)
{
	(void)state;
	struct apenet_conf *c = load_ok("node: 1,2,3\n"
				 "dims: 4x4x1\n"
				 "two: 1,2\n"
				 "four: 1,2,3,4\n"
				 "alpha: a,b,c\n"
				 "wide: 300,0,0\n"
				 "edge: 255,0,255\n"
				 "list: [1, 2, 3]\n");
	struct apenet_err e = { 0 };
	unsigned v[3] = { 9, 9, 9 };
	const struct apenet_conf_node *r = c->root;

	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "node"), ',', v, &e), 0);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	assert_int_equal(v[2], 3);
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "dims"), 'x', v, &e), 0);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[1], 4);
	assert_int_equal(v[2], 1);
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "edge"), ',', v, &e), 0);
	assert_int_equal(v[0], 255);
	assert_int_equal(v[2], 255);

	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "dims"), ',', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:2:7: 'dims': '4x4x1' is not of the form N,N,N (0..255)");
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "node"), 'x', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:1:7: 'node': '1,2,3' is not of the form NxNxN (0..255)");
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "two"), ',', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:3:6: 'two': '1,2' is not of the form N,N,N (0..255)");
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "four"), ',', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:4:7: 'four': '1,2,3,4' is not of the form N,N,N (0..255)");
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "alpha"), ',', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:5:8: 'alpha': 'a,b,c' is not of the form N,N,N (0..255)");
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "wide"), ',', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:6:7: 'wide': '300,0,0' is not of the form N,N,N (0..255)");
	assert_int_equal(e.code, APENET_EINVAL);
	assert_int_equal(apenet_conf_triple(c, apenet_conf_get(r, "list"), ',', v, &e), -1);
	assert_string_equal(e.msg, "t.yaml:8:7: 'list': expected a value, found a list");
	apenet_conf_free(c);
}

static void test_parse_triple(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		char sep;
		int rc;
		unsigned v[3];
	} cases[] = {
		{ "1,2,3", ',', 0, { 1, 2, 3 } },
		{ "0,0,0", ',', 0, { 0, 0, 0 } },
		{ "255,255,255", ',', 0, { 255, 255, 255 } },
		{ "4x4x1", 'x', 0, { 4, 4, 1 } },
		{ "32x32x32", 'x', 0, { 32, 32, 32 } },
		{ "007,1,2", ',', 0, { 7, 1, 2 } }, /* decimal, not octal */
		{ "1,2", ',', -1, { 0 } },
		{ "1,2,3,4", ',', -1, { 0 } },
		{ "a,b,c", ',', -1, { 0 } },
		{ "300,0,0", ',', -1, { 0 } },
		{ "0,256,0", ',', -1, { 0 } },
		{ "1x2x3", ',', -1, { 0 } },
		{ "1,2,3", 'x', -1, { 0 } },
		{ "", ',', -1, { 0 } },
		{ " 1,2,3", ',', -1, { 0 } },
		{ "1,2,3 ", ',', -1, { 0 } },
		{ "1, 2,3", ',', -1, { 0 } },
		{ "1,,3", ',', -1, { 0 } },
		{ "1,2,", ',', -1, { 0 } },
		{ "-1,2,3", ',', -1, { 0 } },
		{ "1,+2,3", ',', -1, { 0 } },
		{ "99999999999999999999,0,0", ',', -1, { 0 } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned v[3] = { 1000, 1000, 1000 };
		int rc = apenet_parse_triple(cases[i].s, cases[i].sep, v);

		if (rc != cases[i].rc)
			fail_msg("apenet_parse_triple(\"%s\", '%c') = %d, expected %d", cases[i].s, cases[i].sep, rc,
				 cases[i].rc);
		if (rc == 0)
			for (int k = 0; k < 3; k++)
				if (v[k] != cases[i].v[k])
					fail_msg("apenet_parse_triple(\"%s\")[%d] = %u, expected %u", cases[i].s, k,
						 v[k], cases[i].v[k]);
	}
}

/* ---- documents the loader refuses ---- */

static void test_syntax_errors(void **state)
{
	(void)state;
	/* Unclosed flow list: found where the next token cannot continue it. */
	load_fails_prefix("a: [1, 2\nb: 3\n", "t.yaml:2:2: YAML syntax: ");
	/* And at the end of the stream when nothing follows. */
	load_fails_prefix("a: [1, 2", "t.yaml:2:1: YAML syntax: ");
	/* A tab used for indentation, at the tab. */
	load_fails_prefix("a:\n\tb: 1\n", "t.yaml:2:1: YAML syntax: ");
	/* A key indented by one space under a scalar entry. */
	load_fails("a: 1\n b: 2\n", "t.yaml:2:3: YAML syntax: mapping values are not allowed in this context");
	/* An unterminated quoted string. */
	load_fails_prefix("ok: 1\nbad: \"x\n", "t.yaml:3:1: YAML syntax: ");
}

static void test_duplicate_key(void **state)
{
	(void)state;
	load_fails("a: 1\nb: 2\na: 3\n", "t.yaml:3:1: key 'a' given twice (first at line 1)");
	load_fails("top:\n  x: 1\n  y: 2\n  x: [3]\n", "t.yaml:4:3: key 'x' given twice (first at line 2)");
	/* The same key in different maps is fine. */
	struct apenet_conf *c = load_ok("p: {x: 1}\nq: {x: 2}\n");
	apenet_conf_free(c);
}

static void test_alias(void **state)
{
	(void)state;
	load_fails("a: &x 1\nb: *x\n", "t.yaml:2:4: YAML aliases are not supported here");
	load_fails("base: &b {k: 1}\nlist:\n  - *b\n", "t.yaml:3:5: YAML aliases are not supported here");
}

static void test_empty(void **state)
{
	(void)state;
	load_fails("", "t.yaml: empty document");
	load_fails("\n\n", "t.yaml: empty document");
	load_fails("# only a comment\n", "t.yaml: empty document");
	/* An explicit document marker with nothing in it is empty too. */
	load_fails("---\n", "t.yaml: empty document");
	load_fails("--- # nothing\n...\n", "t.yaml: empty document");
}

static void test_bad_key(void **state)
{
	(void)state;
	load_fails("? [a]\n: 1\n", "t.yaml:1:3: a map key must be a plain value");
	load_fails("{a: 1}: 2\n", "t.yaml:1:1: a map key must be a plain value");
}

static void test_depth(void **state)
{
	(void)state;
	char text[300];
	int n;

	/* 64 nested lists load; 65 do not. */
	for (int depth = 64; depth <= 65; depth++) {
		n = 0;
		for (int i = 0; i < depth; i++)
			text[n++] = '[';
		text[n++] = '1';
		for (int i = 0; i < depth; i++)
			text[n++] = ']';
		text[n] = 0;
		if (depth == 64) {
			struct apenet_conf *c = load_ok(text);
			const struct apenet_conf_node *x = c->root;
			for (int i = 0; i < depth; i++) {
				assert_int_equal(x->kind, APENET_CONF_SEQ);
				x = x->child;
			}
			check_node(x, APENET_CONF_SCALAR, NULL, "1", 1, depth + 1);
			apenet_conf_free(c);
		} else {
			load_fails(text, "t.yaml:1:65: nested too deeply");
		}
	}
}

/* ---- real files ---- */

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/apenet-test-conf-XXXXXX");

	assert_non_null(path);
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}

static void test_file(void **state)
{
	(void)state;
	char *path = write_tmp(doc);
	struct apenet_conf *c = NULL;
	struct apenet_err e = { 0 };
	char want[512];

	assert_int_equal(apenet_conf_load(path, &c, &e), 0);
	assert_string_equal(c->file, path);
	check_node(apenet_conf_get(c->root, "seq")->child->next, APENET_CONF_MAP, NULL, NULL, 7, 5);
	/* Errors name the file. */
	unsigned long v;
	assert_int_equal(apenet_conf_uint(c, apenet_conf_get(apenet_conf_get(c->root, "b"), "c"), 0, 1, &v, &e), -1);
	snprintf(want, sizeof(want), "%s:3:6: 'c': 'hello world' is not a whole number", path);
	assert_string_equal(e.msg, want);
	apenet_conf_free(c);
	unlink(path);
	free(path);

	path = write_tmp("ok: 1\nbad: [\n");
	c = NULL;
	assert_int_equal(apenet_conf_load(path, &c, &e), -1);
	assert_null(c);
	snprintf(want, sizeof(want), "%s:3:1: YAML syntax: ", path);
	if (strncmp(e.msg, want, strlen(want)))
		fail_msg("expected '%s...', got '%s'", want, e.msg);
	unlink(path);
	free(path);

	path = write_tmp("x: 1\nx: 2\n");
	assert_int_equal(apenet_conf_load(path, &c, &e), -1);
	snprintf(want, sizeof(want), "%s:2:1: key 'x' given twice (first at line 1)", path);
	assert_string_equal(e.msg, want);
	unlink(path);
	free(path);
}

static void test_missing_file(void **state)
{
	(void)state;
	struct apenet_conf *c = NULL;
	struct apenet_err e = { 0 };
	char path[] = "/tmp/apenet-test-conf-missing-XXXXXX";
	char want[512];

	/* A name that surely does not exist: a fresh file, removed. */
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(apenet_conf_load(path, &c, &e), -1);
	assert_null(c);
	assert_int_equal(e.code, APENET_EIO);
	snprintf(want, sizeof(want), "%s: %s", path, strerror(ENOENT));
	assert_string_equal(e.msg, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_scalar_root),
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_check_keys),
		cmocka_unit_test(test_expect_and_error),
		cmocka_unit_test(test_uint),
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_triple),
		cmocka_unit_test(test_parse_triple),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_duplicate_key),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_key),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
