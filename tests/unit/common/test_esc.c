/*
 * Tests of the escaping helpers (common/esc.c): the hostile strings of
 * issue 21 (ESC sequences, an OSC title, newline, invalid UTF-8, C1, a
 * <script>, a spreadsheet formula) in each output kind, the UTF-8 edge
 * cases (overlong forms, surrogates, truncated sequences, past U+10FFFF),
 * and the buffer form's cutting.  Every expected string is written out by
 * hand from the rules in include/apenet/esc.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/esc.h"

enum kind { TEXT, CSV_STR, CSV_NUM, JSON, HTML };

/* s written by the helper of kind k, into a static buffer. */
static const char *out(enum kind k, const char *s)
{
	static char buf[4096];
	buf[0] = 0; /* fmemopen writes no NUL for an empty stream */
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	assert_non_null(f);
	switch (k) {
	case TEXT: apenet_esc_text_put(f, s); break;
	case CSV_STR: apenet_esc_csv_put(f, s, 1); break;
	case CSV_NUM: apenet_esc_csv_put(f, s, 0); break;
	case JSON: apenet_esc_json_put(f, s); break;
	case HTML: apenet_esc_html_put(f, s); break;
	}
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* No byte below 0x20, no DEL, no C1 (UTF-8 c2 80..c2 9f), all valid UTF-8. */
static void assert_inert(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	for (; *p; p++) {
		assert_true(*p >= 0x20 && *p != 0x7f);
		if (*p == 0xc2)
			assert_false(p[1] >= 0x80 && p[1] <= 0x9f);
		assert_true(*p < 0xf5 && *p != 0xc0 && *p != 0xc1);
	}
}

static const char *const hostile[] = {
	"\x1b[2J\x1b[H", "\x1b]0;pwned\a", "a\nb", "a\r\nb", "\t", "\xff\xfe", "\xc2\x9b" "31m", "\x7f",
	"<script>alert(1)</script>", "=cmd|' /C calc'!A0", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\xe2\x82", "\xc2", "\x80", "x\x01y\x1fz",
};

static void test_text_hostile(void **state)
{
	(void)state;
	assert_string_equal(out(TEXT, "\x1b[2J\x1b[H"), "\\x1b[2J\\x1b[H");
	assert_string_equal(out(TEXT, "\x1b]0;pwned\a"), "\\x1b]0;pwned\\x07");
	assert_string_equal(out(TEXT, "line\nforged: x"), "line\\x0aforged: x");
	assert_string_equal(out(TEXT, "a\r\tb"), "a\\x0d\\x09b");
	assert_string_equal(out(TEXT, "\x7f"), "\\x7f");
	/* C1 as UTF-8 code points: both bytes shown */
	assert_string_equal(out(TEXT, "\xc2\x9b" "2J"), "\\xc2\\x9b2J");
	assert_string_equal(out(TEXT, "\xc2\x80\xc2\x9f"), "\\xc2\\x80\\xc2\\x9f");
	/* raw C1 bytes, not UTF-8 */
	assert_string_equal(out(TEXT, "\x9b" "2J"), "\\x9b2J");
	assert_string_equal(out(TEXT, "\xff\xfe"), "\\xff\\xfe");
	/* what is neither control nor broken stays as it is */
	assert_string_equal(out(TEXT, "<script>alert(1)</script>"), "<script>alert(1)</script>");
	assert_string_equal(out(TEXT, "=cmd|' /C calc'!A0"), "=cmd|' /C calc'!A0");
	assert_string_equal(out(TEXT, "back\\slash"), "back\\slash");
	assert_string_equal(out(TEXT, NULL), "");
}

static void test_text_utf8(void **state)
{
	(void)state;
	/* printable UTF-8 of every length is kept: °C, €, U+10FFFF's neighbour, an emoji */
	assert_string_equal(out(TEXT, "86.2 \xc2\xb0" "C"), "86.2 \xc2\xb0" "C");
	assert_string_equal(out(TEXT, "\xe2\x82\xac"), "\xe2\x82\xac");
	assert_string_equal(out(TEXT, "\xf0\x9f\x94\xa5"), "\xf0\x9f\x94\xa5");
	assert_string_equal(out(TEXT, "\xc2\xa0"), "\xc2\xa0"); /* U+00A0, just past C1 */
	/* overlong '/', a surrogate, past U+10FFFF, C0/C1 leads: every byte shown */
	assert_string_equal(out(TEXT, "\xc0\xaf"), "\\xc0\\xaf");
	assert_string_equal(out(TEXT, "\xe0\x80\xaf"), "\\xe0\\x80\\xaf");
	assert_string_equal(out(TEXT, "\xed\xa0\x80"), "\\xed\\xa0\\x80");
	assert_string_equal(out(TEXT, "\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");
	assert_string_equal(out(TEXT, "\xf5\x80\x80\x80"), "\\xf5\\x80\\x80\\x80");
	/* a truncated sequence, then a good character: only the broken bytes */
	assert_string_equal(out(TEXT, "\xe2\x82" "A"), "\\xe2\\x82A");
	assert_string_equal(out(TEXT, "\xe2\x82"), "\\xe2\\x82");
	assert_string_equal(out(TEXT, "\xf0\x9f\x94"), "\\xf0\\x9f\\x94");
	assert_true(apenet_esc_text_clean("ok \xc2\xb0" "C"));
	assert_false(apenet_esc_text_clean("a\nb"));
	assert_false(apenet_esc_text_clean("\xff"));
}

static void test_text_width(void **state)
{
	(void)state;
	assert_int_equal(apenet_esc_text_width("abc"), 3);
	assert_int_equal(apenet_esc_text_width("86 \xc2\xb0" "C"), 5);
	assert_int_equal(apenet_esc_text_width("\x1b[H"), 6);
	assert_int_equal(apenet_esc_text_width("\xc2\x9b"), 8);
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const char *t = out(TEXT, hostile[i]);
		size_t cols = 0;
		for (const unsigned char *p = (const unsigned char *)t; *p; p++)
			cols += (*p & 0xc0) != 0x80;
		assert_int_equal(apenet_esc_text_width(hostile[i]), cols);
	}
}

/* The buffer form: the stream form's text, cut whole units at a time. */
static void test_text_buffer(void **state)
{
	(void)state;
	char b[64];
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const char *want = out(TEXT, hostile[i]);
		assert_int_equal(apenet_esc_text(b, sizeof(b), hostile[i]), strlen(want));
		assert_string_equal(b, want);
	}
	/* "a\x1b" is "a\\x1b" (5): 5 bytes of room take "a" alone, never half an escape */
	assert_int_equal(apenet_esc_text(b, 5, "a\x1b" "b"), 6);
	assert_string_equal(b, "a");
	assert_int_equal(apenet_esc_text(b, 6, "a\x1b" "b"), 6);
	assert_string_equal(b, "a\\x1b");
	/* nothing after a unit that did not fit, even when a later one would */
	assert_int_equal(apenet_esc_text(b, 4, "ab\x1b" "c"), 7);
	assert_string_equal(b, "ab");
	/* a UTF-8 character is never split */
	assert_int_equal(apenet_esc_text(b, 3, "a\xe2\x82\xac"), 4);
	assert_string_equal(b, "a");
	assert_int_equal(apenet_esc_text(b, 1, "abc"), 3);
	assert_string_equal(b, "");
	assert_int_equal(apenet_esc_text(NULL, 0, "\n"), 4);
}

static void test_csv(void **state)
{
	(void)state;
	/* formulas: a leading ' inside quotes */
	assert_string_equal(out(CSV_STR, "=cmd|' /C calc'!A0"), "\"'=cmd|' /C calc'!A0\"");
	assert_string_equal(out(CSV_STR, "+1"), "\"'+1\"");
	assert_string_equal(out(CSV_STR, "-2+3"), "\"'-2+3\"");
	assert_string_equal(out(CSV_STR, "@SUM(A1)"), "\"'@SUM(A1)\"");
	assert_string_equal(out(CSV_STR, "\t=1"), "\"'\\x09=1\"");
	assert_string_equal(out(CSV_STR, "\r=1"), "\"'\\x0d=1\"");
	assert_string_equal(out(CSV_STR, "=\"x\",1"), "\"'=\"\"x\"\",1\"");
	/* a number the program wrote stays a number */
	assert_string_equal(out(CSV_NUM, "-3.5"), "-3.5");
	assert_string_equal(out(CSV_NUM, "-1.2e-05"), "-1.2e-05");
	assert_string_equal(out(CSV_NUM, "-"), "-");
	/* plain cells as RFC 4180 wants them, controls as in text: one record a line */
	assert_string_equal(out(CSV_STR, "X+"), "X+");
	assert_string_equal(out(CSV_STR, "1,0,0"), "\"1,0,0\"");
	assert_string_equal(out(CSV_STR, "say \"hi\""), "\"say \"\"hi\"\"\"");
	assert_string_equal(out(CSV_STR, "a\nb"), "a\\x0ab");
	assert_string_equal(out(CSV_STR, "\x1b[2J,x"), "\"\\x1b[2J,x\"");
	assert_string_equal(out(CSV_STR, ""), "");
	/* the sign alone is a placeholder, no formula */
	assert_string_equal(out(CSV_STR, "-"), "-");
	assert_string_equal(out(CSV_STR, "="), "=");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		assert_inert(out(CSV_STR, hostile[i]));
}

static void test_json(void **state)
{
	(void)state;
	assert_string_equal(out(JSON, "\x1b[2J"), "\"\\u001b[2J\"");
	assert_string_equal(out(JSON, "\x1b]0;pwned\a"), "\"\\u001b]0;pwned\\u0007\"");
	assert_string_equal(out(JSON, "a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
	assert_string_equal(out(JSON, "\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
	assert_string_equal(out(JSON, "q\"b\\"), "\"q\\\"b\\\\\"");
	/* C1 as its code point; bytes that are not UTF-8 as their value */
	assert_string_equal(out(JSON, "\xc2\x9b"), "\"\\u009b\"");
	assert_string_equal(out(JSON, "\xff\xfe"), "\"\\u00ff\\u00fe\"");
	assert_string_equal(out(JSON, "\xe2\x82"), "\"\\u00e2\\u0082\"");
	/* printable UTF-8 and markup stay (a JSON string is no HTML) */
	assert_string_equal(out(JSON, "\xc2\xb0" "C \xe2\x82\xac"), "\"\xc2\xb0" "C \xe2\x82\xac\"");
	assert_string_equal(out(JSON, "<script>"), "\"<script>\"");
	assert_string_equal(out(JSON, NULL), "\"\"");
	/* kept runs between escapes, in and out of UTF-8 */
	assert_string_equal(out(JSON, "long run\xc3\xa9 then\xff\"x\"\xe2\x82\xac end"),
			    "\"long run\xc3\xa9 then\\u00ff\\\"x\\\"\xe2\x82\xac end\"");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++)
		assert_inert(out(JSON, hostile[i]));
	/* clean: exactly when the literal is the string in quotes */
	static const char *some[] = { "", "LINK_HDR_CRC_ERR", "86 \xc2\xb0" "C", "<script>", "a b", "q\"", "b\\",
				      "\x7f", "\xc2\x9b", "\xff", "\xe2\x82", "\t" };
	for (size_t i = 0; i < sizeof(some) / sizeof(some[0]) + sizeof(hostile) / sizeof(hostile[0]); i++) {
		const char *x = i < sizeof(some) / sizeof(some[0]) ? some[i] : hostile[i - sizeof(some) / sizeof(some[0])];
		const char *j = out(JSON, x);
		int same = strlen(j) == strlen(x) + 2 && !strncmp(j + 1, x, strlen(x));
		assert_int_equal(apenet_esc_json_clean(x), same);
		if (i < sizeof(some) / sizeof(some[0]))
			assert_int_equal(same, i < 5);
	}
	assert_int_equal(apenet_esc_json_clean(NULL), 1);
}

static void test_html(void **state)
{
	(void)state;
	assert_string_equal(out(HTML, "<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
	assert_string_equal(out(HTML, "a&b \"c\" 'd'"), "a&amp;b &quot;c&quot; &#39;d&#39;");
	assert_string_equal(out(HTML, "\x1b[2J\nx"), "\\x1b[2J\\x0ax");
	assert_string_equal(out(HTML, "\xc2\x9b\xff"), "\\xc2\\x9b\\xff");
	assert_string_equal(out(HTML, "86 \xc2\xb0" "C"), "86 \xc2\xb0" "C");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const char *h = out(HTML, hostile[i]);
		assert_inert(h);
		assert_null(strpbrk(h, "<>\"'"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_hostile), cmocka_unit_test(test_text_utf8), cmocka_unit_test(test_text_width),
		cmocka_unit_test(test_text_buffer),  cmocka_unit_test(test_csv),	cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
