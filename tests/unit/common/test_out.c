/*
 * Tests of the output writer (common/out.c).
 *
 * Every test renders into a memory stream and looks at the text produced.
 * JSON documents are also run through a small recursive-descent validator
 * written here from the JSON grammar (RFC 8259), so a malformed document
 * fails even where no exact string is asserted; the validator is itself
 * tested on broken input so that it cannot silently accept everything.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/out.h"

/* ---- rendering helpers ---- */

typedef void (*build_fn)(struct apenet_out *o);

/* Renders what fn describes in format fmt and returns the text (malloc'd). */
static char *render(enum apenet_out_fmt fmt, const char *command, build_fn fn)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	struct apenet_out *o = apenet_out_new(fmt, f, command);
	assert_non_null(o);
	fn(o);
	assert_int_equal(apenet_out_finish(o), 0);
	assert_int_equal(fclose(f), 0);
	assert_non_null(buf);
	assert_int_equal(strlen(buf), len);
	return buf;
}

/* The n-th line (0-based) of text, without its newline, into dst. */
static int nth_line(const char *text, int n, char *dst, size_t cap)
{
	const char *p = text;

	for (int i = 0; i < n; i++) {
		p = strchr(p, '\n');
		if (!p)
			return -1;
		p++;
	}
	if (!*p)
		return -1;
	const char *e = strchr(p, '\n');
	size_t l = e ? (size_t)(e - p) : strlen(p);
	if (l >= cap)
		return -1;
	memcpy(dst, p, l);
	dst[l] = 0;
	return 0;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (const char *p = text; *p; p++)
		n += *p == '\n';
	return n;
}

/* ---- a JSON validator (RFC 8259 grammar) ---- */

struct jv {
	const char *p;
	int depth;
};

static int jv_value(struct jv *v);

static void jv_ws(struct jv *v)
{
	while (*v->p == ' ' || *v->p == '\t' || *v->p == '\n' || *v->p == '\r')
		v->p++;
}

static int jv_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static int jv_ishex(char c)
{
	return jv_isdigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int jv_string(struct jv *v)
{
	if (*v->p != '"')
		return 0;
	v->p++;
	while (*v->p != '"') {
		unsigned char c = (unsigned char)*v->p;

		if (c == 0 || c < 0x20) /* unterminated, or a raw control character */
			return 0;
		if (c != '\\') {
			v->p++;
			continue;
		}
		v->p++;
		switch (*v->p) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			v->p++;
			break;
		case 'u':
			v->p++;
			for (int i = 0; i < 4; i++, v->p++)
				if (!jv_ishex(*v->p))
					return 0;
			break;
		default:
			return 0;
		}
	}
	v->p++;
	return 1;
}

static int jv_number(struct jv *v)
{
	if (*v->p == '-')
		v->p++;
	if (*v->p == '0') {
		v->p++;
	} else if (jv_isdigit(*v->p)) {
		while (jv_isdigit(*v->p))
			v->p++;
	} else {
		return 0;
	}
	if (*v->p == '.') {
		v->p++;
		if (!jv_isdigit(*v->p))
			return 0;
		while (jv_isdigit(*v->p))
			v->p++;
	}
	if (*v->p == 'e' || *v->p == 'E') {
		v->p++;
		if (*v->p == '+' || *v->p == '-')
			v->p++;
		if (!jv_isdigit(*v->p))
			return 0;
		while (jv_isdigit(*v->p))
			v->p++;
	}
	return 1;
}

static int jv_lit(struct jv *v, const char *lit)
{
	size_t l = strlen(lit);

	if (strncmp(v->p, lit, l))
		return 0;
	v->p += l;
	return 1;
}

/* '[' or '{' already seen: elements separated by ',' up to close. */
static int jv_container(struct jv *v, int obj)
{
	char close = obj ? '}' : ']';

	if (++v->depth > 64)
		return 0;
	v->p++;
	jv_ws(v);
	if (*v->p == close) {
		v->p++;
		v->depth--;
		return 1;
	}
	for (;;) {
		if (obj) {
			if (!jv_string(v))
				return 0;
			jv_ws(v);
			if (*v->p != ':')
				return 0;
			v->p++;
			jv_ws(v);
		}
		if (!jv_value(v))
			return 0;
		jv_ws(v);
		if (*v->p == close) {
			v->p++;
			v->depth--;
			return 1;
		}
		if (*v->p != ',')
			return 0;
		v->p++;
		jv_ws(v);
	}
}

static int jv_value(struct jv *v)
{
	switch (*v->p) {
	case '{': return jv_container(v, 1);
	case '[': return jv_container(v, 0);
	case '"': return jv_string(v);
	case 't': return jv_lit(v, "true");
	case 'f': return jv_lit(v, "false");
	case 'n': return jv_lit(v, "null");
	default: return jv_number(v);
	}
}

/* 1 when s is exactly one JSON value, surrounded by whitespace at most. */
static int json_valid(const char *s)
{
	struct jv v = { s, 0 };

	jv_ws(&v);
	if (!jv_value(&v))
		return 0;
	jv_ws(&v);
	return *v.p == 0;
}

static void test_validator(void **state)
{
	(void)state;
	static const char *good[] = {
		"{}", "[]", " {\"a\": [1, -2.5e3, 0, 0.25, 1E+2, true, false, null, \"x\\u00e9\\n\"]} ",
		"{\"a\": {\"b\": {}}, \"c\": []}", "\"\"", "-0",
	};
	static const char *bad[] = {
		"{\"a\": 1,}",       /* trailing comma */
		"{\"a\" 1}",         /* missing colon */
		"[\"x\\q\"]",        /* bad escape */
		"[01]",              /* leading zero */
		"{\"a\": tru}",      /* truncated literal */
		"\"abc",             /* unterminated string */
		"[\"a\tb\"]",        /* raw control character in a string */
		"{\"a\": 1} x",      /* trailing garbage */
		"{a: 1}",            /* unquoted key */
		"[1.]",              /* no digits after the point */
		"[\"\\u12g4\"]",     /* bad \u escape */
		"",                  /* nothing */
		"[1, 2",             /* unterminated array */
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!json_valid(good[i]))
			fail_msg("validator rejected valid JSON: %s", good[i]);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (json_valid(bad[i]))
			fail_msg("validator accepted malformed JSON: %s", bad[i]);
}

/* ---- JSON ---- */

static void build_json_doc(struct apenet_out *o)
{
	apenet_out_str(o, "s", "q\"b\\n\nt\tc\x01" "d\x7f");
	apenet_out_int(o, "neg", -42);
	apenet_out_uint(o, "big", UINT64_MAX);
	apenet_out_hex(o, "h", 0xdead, 8);
	apenet_out_dbl(o, "pi", 3.14159, 2);
	apenet_out_dbl(o, "tiny", 1.5e-6, 2);
	apenet_out_dbl(o, "nan", NAN, 3);
	apenet_out_dbl(o, "inf", INFINITY, 3);
	apenet_out_dbl(o, "minf", -INFINITY, 3);
	apenet_out_bool(o, "yes", 1);
	apenet_out_bool(o, "no", 0);
	apenet_out_null(o, "nothing");
	apenet_out_str(o, "nullstr", NULL);
	apenet_out_strf(o, "fmt", "%s-%03d", "lane", 7);
	apenet_out_obj_begin(o, "nested");
	apenet_out_obj_begin(o, "deeper");
	apenet_out_int(o, "x", 1);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "list");
	apenet_out_int(o, NULL, 1);
	apenet_out_str(o, NULL, "two");
	apenet_out_obj_begin(o, NULL);
	apenet_out_bool(o, "in", 1);
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "empty");
	apenet_out_arr_end(o);
	apenet_out_obj_begin(o, "eobj");
	apenet_out_obj_end(o);
	apenet_out_obj_begin_text(o, "node", "1,0,0");
	apenet_out_int(o, "x", 1);
	apenet_out_int(o, "y", 0);
	apenet_out_obj_end(o);
	apenet_out_str(o, "k\"ey", "v");
}

static void test_json_document(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_JSON, "test \"cmd\"", build_json_doc);

	if (!json_valid(s))
		fail_msg("writer produced malformed JSON:\n%s", s);
	/* The schema and the command come first. */
	const char *head = "{\n  \"schema\": \"" APENET_JSON_SCHEMA "\",\n  \"command\": \"test \\\"cmd\\\"\",\n";
	if (strncmp(s, head, strlen(head)))
		fail_msg("JSON does not start with schema and command:\n%s", s);
	assert_string_equal(APENET_JSON_SCHEMA, "apenet-diag/2");
	/* Escapes: quote, backslash, newline, tab, control 0x01, DEL. */
	assert_non_null(strstr(s, "\"s\": \"q\\\"b\\\\n\\nt\\tc\\u0001d\\u007f\""));
	assert_non_null(strstr(s, "\"neg\": -42,"));
	assert_non_null(strstr(s, "\"big\": 18446744073709551615,"));
	/* A hex value is a plain decimal number in JSON. */
	assert_non_null(strstr(s, "\"h\": 57005,"));
	assert_null(strstr(s, "0x"));
	assert_non_null(strstr(s, "\"pi\": 3.14,"));
	assert_non_null(strstr(s, "\"tiny\": 1.50e-06,"));
	assert_non_null(strstr(s, "\"nan\": null,"));
	assert_non_null(strstr(s, "\"inf\": null,"));
	assert_non_null(strstr(s, "\"minf\": null,"));
	assert_non_null(strstr(s, "\"yes\": true,"));
	assert_non_null(strstr(s, "\"no\": false,"));
	assert_non_null(strstr(s, "\"nothing\": null,"));
	assert_non_null(strstr(s, "\"nullstr\": null,"));
	assert_non_null(strstr(s, "\"fmt\": \"lane-007\","));
	/* Nesting is indented two spaces a level. */
	assert_non_null(strstr(s, "\n  \"nested\": {\n    \"deeper\": {\n      \"x\": 1\n    },\n"
				  "    \"list\": [\n      1,\n      \"two\",\n      {\n        \"in\": true\n"
				  "      }\n    ]\n  },\n"));
	assert_non_null(strstr(s, "\"empty\": [],"));
	assert_non_null(strstr(s, "\"eobj\": {},"));
	/* A one-cell object is still a full object in JSON. */
	assert_non_null(strstr(s, "\"node\": {\n    \"x\": 1,\n    \"y\": 0\n  },"));
	assert_null(strstr(s, "1,0,0"));
	/* Keys are escaped too, and the document ends with "}\n". */
	assert_non_null(strstr(s, "\"k\\\"ey\": \"v\"\n}\n"));
	assert_int_equal(s[strlen(s) - 1], '\n');
	free(s);
}

static void build_empty(struct apenet_out *o)
{
	(void)o;
}

static void test_json_minimal(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_JSON, "list", build_empty);

	assert_string_equal(s, "{\n  \"schema\": \"apenet-diag/2\",\n  \"command\": \"list\"\n}\n");
	assert_true(json_valid(s));
	free(s);
	s = render(APENET_OUT_JSON, NULL, build_empty);
	assert_string_equal(s, "{\n  \"schema\": \"apenet-diag/2\",\n  \"command\": null\n}\n");
	assert_true(json_valid(s));
	free(s);
}

/* Every control character and a few UTF-8 bytes survive a round of the
 * validator, and each control byte shows as \u00XX or its short escape. */
static void build_controls(struct apenet_out *o)
{
	char str[64];
	int j = 0;

	for (int c = 1; c < 0x20; c++)
		str[j++] = (char)c;
	str[j++] = (char)0xc3; /* é in UTF-8 passes through untouched */
	str[j++] = (char)0xa9;
	str[j] = 0;
	apenet_out_str(o, "ctl", str);
}

static void test_json_controls(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_JSON, "c", build_controls);

	if (!json_valid(s))
		fail_msg("malformed JSON:\n%s", s);
	for (int c = 1; c < 0x20; c++) {
		char want[8];

		if (c == '\n' || c == '\t' || c == '\r')
			snprintf(want, sizeof(want), "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
		else
			snprintf(want, sizeof(want), "\\u%04x", c);
		if (!strstr(s, want))
			fail_msg("control 0x%02x not escaped as %s:\n%s", c, want, s);
	}
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n')
			fail_msg("raw control byte 0x%02x in JSON output", (unsigned char)*p);
	assert_non_null(strstr(s, "\xc3\xa9\""));
	free(s);
}

/* ---- text ---- */

static void build_scalars(struct apenet_out *o)
{
	apenet_out_str(o, "a", "1");
	apenet_out_str(o, "long_key", "x");
	apenet_out_int(o, "mid", -3);
	apenet_out_bool(o, "flag", 0);
	apenet_out_null(o, "gone");
	apenet_out_hex(o, "reg", 0xbeef, 8);
	apenet_out_dbl(o, "nan", NAN, 1);
	apenet_out_obj_begin_text(o, "node", "1,0,0");
	apenet_out_int(o, "x", 1);
	apenet_out_obj_end(o);
}

static void test_text_scalars(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_TEXT, "t", build_scalars);
	static const char *key[] = { "a", "long_key", "mid", "flag", "gone", "reg", "nan", "node" };
	static const char *val[] = { "1", "x", "-3", "no", "-", "0x0000beef", "-", "1,0,0" };
	size_t n = sizeof(key) / sizeof(key[0]), kw = 0;

	/* The command name is not part of the text rendering. */
	assert_null(strstr(s, "schema"));
	assert_int_equal(count_lines(s), (int)n);
	for (size_t i = 0; i < n; i++)
		if (strlen(key[i]) > kw)
			kw = strlen(key[i]);
	for (size_t i = 0; i < n; i++) {
		char line[256], want[256];

		assert_int_equal(nth_line(s, (int)i, line, sizeof(line)), 0);
		/* "key:" then spaces so that every value starts in column kw + 2. */
		snprintf(want, sizeof(want), "%s:", key[i]);
		for (size_t k = strlen(key[i]) + 1; k < kw + 2; k++)
			strcat(want, " ");
		strcat(want, val[i]);
		assert_string_equal(line, want);
		assert_int_equal(strstr(line, val[i]) - line, (long)(kw + 2));
	}
	free(s);
}

/* A table of three rows; name widths differ so the padding is visible. */
static const char *tbl_name[] = { "X+", "Yminus", "Z" };
static const char *tbl_speed[] = { "7000", "10", "123456" };
static const char *tbl_node[] = { "1,0,0", "0,10,0", "0,0,1" };
static const int tbl_vod[] = { 4, 40, 7 };

static void build_table(struct apenet_out *o)
{
	apenet_out_str(o, "title", "links");
	apenet_out_arr_begin(o, "rows");
	for (int i = 0; i < 3; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", tbl_name[i]);
		apenet_out_str(o, "speed", tbl_speed[i]);
		apenet_out_obj_begin_text(o, "node", tbl_node[i]);
		apenet_out_int(o, "x", i);
		apenet_out_obj_end(o);
		apenet_out_obj_begin(o, "pma");
		apenet_out_int(o, "vod", tbl_vod[i]);
		apenet_out_bool(o, "adapt", i == 1);
		apenet_out_obj_end(o);
		if (i == 2)
			apenet_out_str(o, "extra", "late");
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

static void test_text_table(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_TEXT, "t", build_table);
	const char *cols[] = { "name", "speed", "node", "pma.vod", "pma.adapt", "extra" };
	enum { NC = 6 };
	char cells[3][NC][32];
	size_t w[NC], start[NC];
	char line[256];

	for (int r = 0; r < 3; r++) {
		snprintf(cells[r][0], 32, "%s", tbl_name[r]);
		snprintf(cells[r][1], 32, "%s", tbl_speed[r]);
		snprintf(cells[r][2], 32, "%s", tbl_node[r]);
		snprintf(cells[r][3], 32, "%d", tbl_vod[r]);
		snprintf(cells[r][4], 32, "%s", r == 1 ? "yes" : "no");
		snprintf(cells[r][5], 32, "%s", r == 2 ? "late" : "");
	}
	/* Each column is as wide as its widest cell (header included), two
	 * spaces between columns, the table indented by two. */
	for (int c = 0; c < NC; c++) {
		w[c] = strlen(cols[c]);
		for (int r = 0; r < 3; r++)
			if (strlen(cells[r][c]) > w[c])
				w[c] = strlen(cells[r][c]);
		start[c] = c ? start[c - 1] + w[c - 1] + 2 : 2;
	}
	assert_int_equal(nth_line(s, 0, line, sizeof(line)), 0);
	assert_string_equal(line, "title: links");
	assert_int_equal(nth_line(s, 1, line, sizeof(line)), 0);
	assert_string_equal(line, "rows:");
	assert_int_equal(count_lines(s), 2 + 1 + 3);
	for (int r = -1; r < 3; r++) {
		assert_int_equal(nth_line(s, r + 3, line, sizeof(line)), 0);
		size_t len = strlen(line);
		/* No trailing blanks, also on rows whose last cells are empty. */
		if (len == 0 || line[len - 1] == ' ')
			fail_msg("table line ends in a blank: '%s'", line);
		for (int c = 0; c < NC; c++) {
			const char *want = r < 0 ? cols[c] : cells[r][c];
			size_t wl = strlen(want);

			if (!wl) {
				/* An empty cell is blanks (or the end of the line). */
				for (size_t k = start[c]; k < start[c] + w[c] && k < len; k++)
					assert_int_equal(line[k], ' ');
				continue;
			}
			assert_true(start[c] + wl <= len);
			if (strncmp(line + start[c], want, wl))
				fail_msg("row %d column %s: expected '%s' at offset %zu in '%s'", r, cols[c],
					 want, start[c], line);
			/* Nothing but blanks between this cell and the next column. */
			size_t end = c + 1 < NC ? start[c + 1] : len;
			for (size_t k = start[c] + wl; k < end && k < len; k++)
				assert_int_equal(line[k], ' ');
			for (size_t k = 0; k < start[0]; k++)
				assert_int_equal(line[k], ' ');
		}
	}
	/* The one-cell object does not explode into node.x. */
	assert_null(strstr(s, "node.x"));
	free(s);
}

/* Rows that hold arrays cannot be a table: "key[i]:" sections instead. */
static void build_nontabular(struct apenet_out *o)
{
	apenet_out_arr_begin(o, "links");
	for (int i = 0; i < 2; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", i ? "X-" : "X+");
		apenet_out_arr_begin(o, "lanes");
		for (int l = 0; l < 2; l++) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_int(o, "lane", l);
			apenet_out_str(o, "phase", l ? "deskew" : "up");
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "ids");
	apenet_out_int(o, NULL, 1);
	apenet_out_int(o, NULL, 2);
	apenet_out_int(o, NULL, 3);
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "none");
	apenet_out_arr_end(o);
	apenet_out_obj_begin(o, "sub");
	apenet_out_int(o, "k", 5);
	apenet_out_obj_end(o);
}

static void test_text_nontabular(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_TEXT, "t", build_nontabular);
	const char *want =
		"links[0]:\n"
		"  name: X+\n"
		"  lanes:\n"
		"    lane  phase\n"
		"    0     up\n"
		"    1     deskew\n"
		"links[1]:\n"
		"  name: X-\n"
		"  lanes:\n"
		"    lane  phase\n"
		"    0     up\n"
		"    1     deskew\n"
		"ids: 1, 2, 3\n"
		"none: (none)\n"
		"sub:\n"
		"  k: 5\n";

	assert_string_equal(s, want);
	free(s);
}

/* An array whose first element is a scalar but later ones are not: each
 * element gets its own section (the text of a scalar, never a NULL). */
static void build_mixed(struct apenet_out *o)
{
	apenet_out_arr_begin(o, "mix");
	apenet_out_int(o, NULL, 1);
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "a", 2);
	apenet_out_obj_end(o);
	apenet_out_obj_begin_text(o, NULL, "0,1,0");
	apenet_out_int(o, "y", 1);
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
}

static void test_text_mixed_array(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_TEXT, "t", build_mixed);

	assert_null(strstr(s, "(null)"));
	assert_string_equal(s, "mix[0]:\n  1\nmix[1]:\n  a: 2\nmix[2]:\n  0,1,0\n");
	free(s);
}

/* ---- CSV ---- */

static void build_csv(struct apenet_out *o)
{
	apenet_out_str(o, "ignored", "scalar"); /* top-level scalars are not CSV */
	apenet_out_arr_begin(o, "t1");
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", "a,b");
	apenet_out_str(o, "note", "say \"hi\"");
	apenet_out_str(o, "multi", "l1\nl2");
	apenet_out_str(o, "plain", "p");
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", "c");
	apenet_out_str(o, "note", "");
	apenet_out_str(o, "multi", "cr\r");
	apenet_out_hex(o, "plain", 0x1f, 2);
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
	apenet_out_obj_begin(o, "grp");
	apenet_out_arr_begin(o, "t2");
	apenet_out_obj_begin(o, NULL);
	apenet_out_obj_begin_text(o, "node", "1,2,3");
	apenet_out_int(o, "x", 1);
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, "pma");
	apenet_out_int(o, "vod", 4);
	apenet_out_obj_end(o);
	apenet_out_bool(o, "ok", 1);
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

static void test_csv(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_CSV, "c", build_csv);
	const char *want =
		"# t1\n"
		"name,note,multi,plain\n"
		"\"a,b\",\"say \"\"hi\"\"\",l1\\x0al2,p\n" /* one record a line: controls escaped */
		"c,,cr\\x0d,0x1f\n"
		"\n"
		"# grp.t2\n"
		"node,pma.vod,ok\n"
		"\"1,2,3\",4,yes\n";

	assert_string_equal(s, want);
	free(s);
}

/* Strings from outside (issue 21): whatever they hold, text is one line
 * per field with no control byte, table columns stay aligned on what is
 * printed, CSV neutralises formulas in strings but not in numbers, JSON
 * stays valid UTF-8 with every control escaped. */
static void build_hostile(struct apenet_out *o)
{
	apenet_out_str(o, "evidence", "\x1b[2J\x1b[H\x1b]0;pwned\a");
	apenet_out_str(o, "boot", "b\nforged: line");
	apenet_out_arr_begin(o, "rows");
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", "\xff\xfe\xc2\x9b");
	apenet_out_str(o, "cmd", "=cmd|' /C calc'!A0");
	apenet_out_dbl(o, "value", -3.5, 1);
	apenet_out_int(o, "delta", -2);
	apenet_out_str(o, "text", "-3.5");
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", "ok");
	apenet_out_str(o, "cmd", "@x");
	apenet_out_null(o, "value");
	apenet_out_int(o, "delta", 1);
	apenet_out_str(o, "text", "+1");
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
}

static void test_hostile_text(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_TEXT, "h", build_hostile);
	const char *want =
		"evidence: \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\n"
		"boot:     b\\x0aforged: line\n"
		"rows:\n"
		"  name              cmd                 value  delta  text\n"
		"  \\xff\\xfe\\xc2\\x9b  =cmd|' /C calc'!A0  -3.5   -2     -3.5\n"
		"  ok                @x                  -      1      +1\n";
	assert_string_equal(s, want);
	free(s);
}

static void test_hostile_csv(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_CSV, "h", build_hostile);
	const char *want =
		"# rows\n"
		"name,cmd,value,delta,text\n"
		"\\xff\\xfe\\xc2\\x9b,\"'=cmd|' /C calc'!A0\",-3.5,-2,\"'-3.5\"\n"
		"ok,\"'@x\",-,1,\"'+1\"\n";
	assert_string_equal(s, want);
	free(s);
}

/* build_hostile's strings in JSON, whatever the layout: a valid document,
 * each string escaped, no raw control byte. */
static void assert_hostile_json(const char *s)
{
	if (!json_valid(s))
		fail_msg("malformed JSON:\n%s", s);
	assert_non_null(strstr(s, "\"\\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007\""));
	assert_non_null(strstr(s, "\"b\\nforged: line\""));
	assert_non_null(strstr(s, "\"\\u00ff\\u00fe\\u009b\""));
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		assert_true(*p >= 0x20 || *p == '\n');
}

static void test_hostile_json(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_JSON, "h", build_hostile);
	assert_hostile_json(s);
	assert_non_null(strstr(s, "\"evidence\": \"\\u001b[2J"));
	assert_non_null(strstr(s, "\"boot\": \"b\\nforged"));
	assert_non_null(strstr(s, "\"name\": \"\\u00ff"));
	assert_non_null(strstr(s, "\"cmd\": \"=cmd|' /C calc'!A0\""));
	free(s);
}

static void test_csv_nothing(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_CSV, "c", build_scalars);

	assert_string_equal(s, "");
	free(s);
}

/* An empty array with its columns declared: CSV prints its header (a
 * reader sees an empty table, not a missing one); one with rows is printed
 * as always, the declaration unused; text and JSON are unchanged. */
static void build_empty_cols(struct apenet_out *o)
{
	apenet_out_arr_begin(o, "none");
	apenet_out_arr_columns(o, "id,name");
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "some");
	apenet_out_arr_columns(o, "ignored,cols");
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "id", 1);
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "undeclared");
	apenet_out_arr_end(o);
}

static void test_csv_empty_header(void **state)
{
	(void)state;
	char *s = render(APENET_OUT_CSV, "c", build_empty_cols);
	assert_string_equal(s, "# none\nid,name\n\n# some\nid\n1\n");
	free(s);
	s = render(APENET_OUT_TEXT, "c", build_empty_cols);
	assert_string_equal(s, "none: (none)\nsome:\n  id\n  1\nundeclared: (none)\n");
	free(s);
	s = render(APENET_OUT_JSON, "c", build_empty_cols);
	assert_non_null(strstr(s, "\"none\": []"));
	assert_null(strstr(s, "cols"));
	free(s);
}

/* ---- streaming ---- */

/* A stream writer into memory: m->buf once m->f is closed. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static struct apenet_out *mem_stream(struct mem *m, enum apenet_out_fmt fmt, const char *command)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	struct apenet_out *o = apenet_out_stream(fmt, m->f, command);
	assert_non_null(o);
	assert_int_equal(apenet_out_format(o), fmt);
	return o;
}

/* Renders what fn describes with a stream writer (malloc'd text). */
static char *render_stream(enum apenet_out_fmt fmt, const char *command, build_fn fn)
{
	struct mem m;
	struct apenet_out *o = mem_stream(&m, fmt, command);
	fn(o);
	assert_int_equal(apenet_out_finish(o), 0);
	assert_int_equal(fclose(m.f), 0);
	assert_non_null(m.buf);
	assert_int_equal(strlen(m.buf), m.len);
	return m.buf;
}

/* s without the whitespace between JSON tokens (strings kept as they are). */
static char *squeeze(const char *s)
{
	char *d = malloc(strlen(s) + 1), *w = d;
	int in = 0;

	assert_non_null(d);
	for (; *s; s++) {
		if (in && *s == '\\') {
			*w++ = *s++;
			*w++ = *s;
			continue;
		}
		if (*s == '"')
			in = !in;
		if (in || (*s != ' ' && *s != '\n'))
			*w++ = *s;
	}
	*w = 0;
	return d;
}

/* A stream writes the tree's document: the same tokens, the same escapes
 * and numbers (NaN and inf as null); only the layout of an array's
 * elements differs, each compact on a line of its own. */
static void test_stream_json(void **state)
{
	(void)state;
	char *t = render(APENET_OUT_JSON, "test \"cmd\"", build_json_doc);
	char *s = render_stream(APENET_OUT_JSON, "test \"cmd\"", build_json_doc);

	if (!json_valid(s))
		fail_msg("stream produced malformed JSON:\n%s", s);
	char *ts = squeeze(t), *ss = squeeze(s);
	assert_string_equal(ss, ts);
	free(ts);
	free(ss);
	const char *head = "{\n  \"schema\": \"" APENET_JSON_SCHEMA "\",\n  \"command\": \"test \\\"cmd\\\"\",\n";
	assert_memory_equal(s, head, strlen(head));
	assert_non_null(strstr(s, "\"nan\": null,\n  \"inf\": null,\n  \"minf\": null,"));
	/* objects indented as the tree's; an array's element on one line */
	assert_non_null(strstr(s, "\n  \"nested\": {\n    \"deeper\": {\n      \"x\": 1\n    },\n"
				  "    \"list\": [\n      1,\n      \"two\",\n      {\"in\":true}\n    ]\n  },\n"));
	assert_non_null(strstr(s, "\"empty\": [],"));
	assert_non_null(strstr(s, "\"eobj\": {},"));
	assert_non_null(strstr(s, "\"node\": {\n    \"x\": 1,\n    \"y\": 0\n  },"));
	assert_non_null(strstr(s, "\"k\\\"ey\": \"v\"\n}\n"));
	free(t);
	free(s);
	s = render_stream(APENET_OUT_JSON, "list", build_empty);
	assert_string_equal(s, "{\n  \"schema\": \"apenet-diag/2\",\n  \"command\": \"list\"\n}\n");
	free(s);
}

/* A JSON-lines record streamed is the tree's byte for byte. */
static void test_stream_json_line(void **state)
{
	(void)state;
	build_fn fns[] = { build_json_doc, build_hostile, build_controls, build_empty, build_empty_cols };
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char *t = render(APENET_OUT_JSON_LINE, "l", fns[i]);
		char *s = render_stream(APENET_OUT_JSON_LINE, "l", fns[i]);
		assert_string_equal(s, t);
		assert_true(json_valid(s));
		assert_int_equal(count_lines(s), 1);
		free(t);
		free(s);
	}
}

/* Outside strings in a stream: the escapes of the tree's JSON, keys too,
 * no raw control byte, the document valid UTF-8 JSON. */
static void build_hostile_keys(struct apenet_out *o)
{
	build_hostile(o);
	apenet_out_arr_begin(o, "more");
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "k\x1b[31m\n\"", "v\r\t\\\x7f\xc0\xaf");
	apenet_out_strf(o, "\xe2\x80\xae", "%s", "\xe2\x80\xae rtl \xc3\xa9");
	apenet_out_dbl_g(o, "nan", NAN, 10);
	apenet_out_dbl_g(o, "inf", -INFINITY, 10);
	apenet_out_obj_end(o);
	apenet_out_arr_end(o);
}

static void test_stream_hostile(void **state)
{
	(void)state;
	for (int fmt = APENET_OUT_JSON; fmt <= APENET_OUT_JSON_LINE; fmt += APENET_OUT_JSON_LINE - APENET_OUT_JSON) {
		char *s = render_stream((enum apenet_out_fmt)fmt, "h", build_hostile_keys);
		assert_hostile_json(s);
		assert_non_null(strstr(s, "{\"k\\u001b[31m\\n\\\"\":\"v\\r\\t\\\\\\u007f\\u00c0\\u00af\","
					  "\"\xe2\x80\xae\":\"\xe2\x80\xae rtl \xc3\xa9\",\"nan\":null,\"inf\":null}"));
		free(s);
	}
}

/* Text and CSV cannot be streamed: apenet_out_stream gives the tree. */
static void test_stream_text_is_tree(void **state)
{
	(void)state;
	char *s = render_stream(APENET_OUT_TEXT, "t", build_table);
	char *t = render(APENET_OUT_TEXT, "t", build_table);
	assert_string_equal(s, t);
	free(t);
	free(s);
}

/* Thousands of records, each on its line: no more than a block (1 KiB)
 * is held back from the stream's FILE, and begin/end need not balance for
 * finish to close the document. */
static void test_stream_many(void **state)
{
	(void)state;
	struct mem m;
	struct apenet_out *o = mem_stream(&m, APENET_OUT_JSON, "many");
	apenet_out_arr_begin(o, "samples");
	for (int i = 0; i < 6000; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_int(o, "i", i);
		apenet_out_arr_begin(o, "v");
		apenet_out_uint(o, NULL, UINT64_MAX - (uint64_t)i);
		apenet_out_int(o, NULL, INT64_MIN + i);
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	}
	assert_int_equal(fflush(m.f), 0);
	size_t before = m.len;
	assert_true(before > 6000 * 40);
	/* the samples array is left open */
	assert_int_equal(apenet_out_finish(o), 0);
	assert_int_equal(fclose(m.f), 0);
	assert_true(m.len - before < 1100); /* only the last block and the closing */
	assert_true(json_valid(m.buf));
	assert_int_equal(count_lines(m.buf), 3 + 1 + 6000 + 2);
	assert_non_null(strstr(m.buf, "\n    {\"i\":0,\"v\":[18446744073709551615,-9223372036854775808]},\n"));
	assert_non_null(strstr(m.buf, "\n    {\"i\":5999,\"v\":[18446744073709545616,-9223372036854769809]}\n  ]\n}\n"));
	free(m.buf);
}

/* Discarded halfway: what was written stays, nothing is closed. */
static void test_stream_discard(void **state)
{
	(void)state;
	struct mem m;
	struct apenet_out *o = mem_stream(&m, APENET_OUT_JSON_LINE, "d");
	apenet_out_obj_begin(o, "a");
	apenet_out_int(o, "b", 1);
	apenet_out_discard(o);
	fclose(m.f);
	assert_string_equal(m.buf, "{\"a\":{\"b\":1");
	free(m.buf);
}

/* Nesting past the stack: nothing more is written, finish fails. */
static void test_stream_too_deep(void **state)
{
	(void)state;
	struct mem m;
	struct apenet_out *o = mem_stream(&m, APENET_OUT_JSON_LINE, "deep");
	for (int i = 0; i < 40; i++)
		apenet_out_arr_begin(o, NULL);
	apenet_out_int(o, NULL, 1);
	assert_int_equal(apenet_out_finish(o), -1);
	fclose(m.f);
	assert_string_equal(m.buf, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["); /* 32 */
	free(m.buf);
}

/* A record into memory: the caller's array as the record, an object by
 * default, -1 and "" when it does not fit; %.*g numbers. */
static void test_stream_mem(void **state)
{
	(void)state;
	char b[256];
	struct apenet_out *o = apenet_out_mem();
	apenet_out_arr_begin(o, NULL);
	for (int i = 0; i < 2; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_int(o, "lane", i);
		apenet_out_dbl_g(o, "ber", i ? 1.25e-13 : 0, 4);
		apenet_out_dbl_g(o, "v", 1234567.891, 10);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	const char *want = "[{\"lane\":0,\"ber\":0,\"v\":1234567.891},{\"lane\":1,\"ber\":1.25e-13,\"v\":1234567.891}]";
	assert_int_equal(apenet_out_mem_finish(o, b, sizeof(b)), (int)strlen(want));
	assert_string_equal(b, want);
	o = apenet_out_mem();
	assert_int_equal(apenet_out_mem_finish(o, b, sizeof(b)), 2);
	assert_string_equal(b, "{}");
	/* {"k":"0123456789"}: 18 bytes and the NUL */
	o = apenet_out_mem();
	apenet_out_str(o, "k", "0123456789");
	assert_int_equal(apenet_out_mem_finish(o, b, 19), 18);
	assert_string_equal(b, "{\"k\":\"0123456789\"}");
	o = apenet_out_mem();
	apenet_out_str(o, "k", "0123456789");
	assert_int_equal(apenet_out_mem_finish(o, b, 18), -1);
	assert_string_equal(b, "");
	/* not a memory stream: refused, and freed */
	o = apenet_out_new(APENET_OUT_JSON_LINE, stdout, "x");
	apenet_out_int(o, "a", 1);
	assert_int_equal(apenet_out_mem_finish(o, b, sizeof(b)), -1);
}

/* ---- the rest ---- */

static void test_discard(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	for (int fmt = APENET_OUT_TEXT; fmt <= APENET_OUT_CSV; fmt++) {
		struct apenet_out *o = apenet_out_new((enum apenet_out_fmt)fmt, f, "d");
		build_table(o);
		apenet_out_discard(o);
	}
	assert_int_equal(fflush(f), 0);
	assert_int_equal(len, 0);
	fclose(f);
	free(buf);
}

static void test_fmt_parse(void **state)
{
	(void)state;
	assert_int_equal(apenet_out_fmt_parse("json"), APENET_OUT_JSON);
	assert_int_equal(apenet_out_fmt_parse("csv"), APENET_OUT_CSV);
	assert_int_equal(apenet_out_fmt_parse("text"), APENET_OUT_TEXT);
	assert_int_equal(apenet_out_fmt_parse("xml"), -1);
	assert_int_equal(apenet_out_fmt_parse(""), -1);
	assert_int_equal(apenet_out_fmt_parse("jsonx"), -1);
}

/* A full device: apenet_out_finish reports the failed write, in every format. */
static void test_finish_error(void **state)
{
	(void)state;
	for (int fmt = APENET_OUT_TEXT; fmt <= APENET_OUT_CSV; fmt++) {
		FILE *f = fopen("/dev/full", "w");

		if (!f)
			skip();
		struct apenet_out *o = apenet_out_new((enum apenet_out_fmt)fmt, f, "full");
		build_table(o);
		assert_int_equal(apenet_out_finish(o), -1);
		fclose(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator),
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_json_minimal),
		cmocka_unit_test(test_json_controls),
		cmocka_unit_test(test_text_scalars),
		cmocka_unit_test(test_text_table),
		cmocka_unit_test(test_text_nontabular),
		cmocka_unit_test(test_text_mixed_array),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_nothing),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_hostile_csv),
		cmocka_unit_test(test_hostile_json),
		cmocka_unit_test(test_csv_empty_header),
		cmocka_unit_test(test_discard),
		cmocka_unit_test(test_fmt_parse),
		cmocka_unit_test(test_finish_error),
		cmocka_unit_test(test_stream_json),
		cmocka_unit_test(test_stream_json_line),
		cmocka_unit_test(test_stream_hostile),
		cmocka_unit_test(test_stream_text_is_tree),
		cmocka_unit_test(test_stream_many),
		cmocka_unit_test(test_stream_discard),
		cmocka_unit_test(test_stream_too_deep),
		cmocka_unit_test(test_stream_mem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
