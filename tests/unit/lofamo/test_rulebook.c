/*
 * One recommendation per code (lofamo/rulebook.c): every finding of a code
 * in the book carries its wording, a fact of the finding follows it, and
 * docs/verdicts.md gives the same words in the code's "what to do" cell.
 * The doc is found under $APENET_SRCDIR (tests/run.sh sets it), else the
 * current directory; its table cells are parsed here, not taken from the
 * book.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>

#include "../unit.h"

static void test_rows(void **state)
{
	(void)state;
	const char *code, *rec, *code2, *rec2;
	size_t n = 0;
	for (; apenet_code_rec_row(n, &code, &rec); n++) {
		assert_true(code[0] && rec[0]);
		assert_true(strlen(rec) < sizeof(((struct apenet_finding *)0)->rec) - 60); /* room for a fact */
		assert_ptr_equal(apenet_code_rec(code), rec);
		for (size_t j = 0; j < n; j++) { /* one wording a code */
			assert_true(apenet_code_rec_row(j, &code2, &rec2));
			assert_string_not_equal(code, code2);
		}
	}
	/* the codes whose wording the post-mortem report takes (report/recommend.c) */
	static const char *const report[] = { "FPGA_TEMP", "BOARD_TEMP", "VCORE_LOW", "V12_RANGE", "ICORE_HIGH",
					      "HOST_EXPIRED", "DNP_HUNG", "CARD_GONE" };
	for (size_t i = 0; i < sizeof(report) / sizeof(report[0]); i++)
		assert_non_null(apenet_code_rec(report[i]));
	assert_null(apenet_code_rec("LINK_DOWN")); /* its rule names the cable */
	assert_null(apenet_code_rec("NO_SUCH_CODE"));
	assert_null(apenet_code_rec(NULL));
}

/* A finding gets its code's wording as it is added; a fact follows it. */
static void test_finding(void **state)
{
	(void)state;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_finding *f = apenet_finding_add(&fs, APENET_SEV_FAIL, APENET_SUBJ_BOARD, -1, -1, "", "DNP_HUNG");
	assert_string_equal(f->rec, apenet_code_rec("DNP_HUNG"));
	assert_non_null(strstr(f->rec, "reset the card"));
	f = apenet_finding_add(&fs, APENET_SEV_WARN, APENET_SUBJ_LINK, 0, -1, "X+", "BER_NOT_PROVEN");
	apenet_finding_rec_fact(f, "--max-time %d allows it", 250);
	char want[400];
	snprintf(want, sizeof(want), "%s; --max-time 250 allows it", apenet_code_rec("BER_NOT_PROVEN"));
	assert_string_equal(f->rec, want);
	/* a code without a wording: none, and a fact alone has no "; " */
	f = apenet_finding_add(&fs, APENET_SEV_FAIL, APENET_SUBJ_LINK, 0, -1, "X+", "LINK_DOWN");
	assert_string_equal(f->rec, "");
	apenet_finding_rec_fact(f, "x");
	assert_string_equal(f->rec, "x");
	/* a fact that does not fit is cut, never past the field */
	f = apenet_finding_add(&fs, APENET_SEV_WARN, APENET_SUBJ_LINK, 0, -1, "X+", "CABLE_NOT_QUALIFIED");
	char big[600];
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	apenet_finding_rec_fact(f, "%s", big);
	assert_int_equal(strlen(f->rec), sizeof(f->rec) - 1);
	assert_memory_equal(f->rec, apenet_code_rec("CABLE_NOT_QUALIFIED"), strlen(apenet_code_rec("CABLE_NOT_QUALIFIED")));
	apenet_findings_free(&fs);
}

/* The doc's "what to do" cell of every code in the book is its wording. */
static void test_doc(void **state)
{
	(void)state;
	char path[PATH_MAX], line[2048];
	FILE *f = unit_src_open("docs/verdicts.md", path, sizeof(path));
	size_t nbook = 0;
	const char *code, *rec;
	while (apenet_code_rec_row(nbook, &code, &rec))
		nbook++;
	unsigned *seen = calloc(nbook, sizeof(*seen));
	assert_non_null(seen);
	unsigned lineno = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "| ", 2))
			continue;
		char *end = strchr(line + 2, ' ');
		if (!end)
			continue;
		*end = 0;
		size_t i;
		for (i = 0; i < nbook && apenet_code_rec_row(i, &code, &rec) && strcmp(code, line + 2); i++)
			;
		if (i == nbook)
			continue;
		/* the last cell: between the last two '|' */
		char *rest = end + 1, *last = strrchr(rest, '|');
		assert_non_null(last);
		*last = 0;
		char *cell = strrchr(rest, '|');
		assert_non_null(cell);
		cell++;
		while (*cell == ' ')
			cell++;
		size_t k = strlen(cell);
		while (k && cell[k - 1] == ' ')
			cell[--k] = 0;
		if (strcmp(cell, rec))
			fail_msg("%s:%u: %s: the doc says \"%s\", the book \"%s\"", path, lineno, code, cell, rec);
		seen[i]++;
	}
	fclose(f);
	for (size_t i = 0; i < nbook; i++) {
		apenet_code_rec_row(i, &code, &rec);
		if (!seen[i])
			fail_msg("%s: no row for %s", path, code);
	}
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_rows), cmocka_unit_test(test_finding),
					    cmocka_unit_test(test_doc) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
