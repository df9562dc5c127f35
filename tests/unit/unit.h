/*
 * Helpers of the unit tests that judge (include after cmocka.h): a finding
 * checked field by field, and a file of the source tree (a doc held to the
 * code) opened under $APENET_SRCDIR (tests/run.sh sets it), else the
 * current directory.
 */
#ifndef APENET_TESTS_UNIT_H
#define APENET_TESTS_UNIT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/finding.h"

/* f has this code, severity, subject, link and lane. */
static inline void unit_expect_finding(const struct apenet_finding *f, const char *code, enum apenet_sev sev,
				       enum apenet_subject subj, int link, int lane)
{
	assert_string_equal(f->code, code);
	assert_int_equal(f->sev, sev);
	assert_int_equal(f->subject, subj);
	assert_int_equal(f->link, link);
	assert_int_equal(f->lane, lane);
}

/* Opens rel ("docs/verdicts.md") for reading, its path in path; fails the
 * test when it cannot. */
static inline FILE *unit_src_open(const char *rel, char *path, size_t n)
{
	const char *src = getenv("APENET_SRCDIR");
	snprintf(path, n, "%s/%s", src && *src ? src : ".", rel);
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s (set APENET_SRCDIR to the source tree)", path, strerror(errno));
	return f;
}

#endif
