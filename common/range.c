/*
 * Monitoring Plugins threshold ranges (include/apenet/range.h): the codec
 * check_apenet reads -w/-c/--temp-* with.  Stricter than the reference
 * implementation (which reads "abc" as 0 and ":10" as 0:10): a range that
 * is not one of the guidelines' forms is refused with what is wrong with it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/err.h"
#include "apenet/range.h"

/* A decimal of n characters at s; 0, or -1. */
static int number(const char *s, size_t n, double *out)
{
	char buf[40];
	if (!n || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = 0;
	/* strtod alone would take "inf", "nan" and hex */
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789+-.eE", buf[i]))
			return -1;
	char *end;
	errno = 0;
	double d = strtod(buf, &end);
	if (*end || errno || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

int apenet_range_parse(const char *s, struct apenet_range *r, char *err, size_t errlen)
{
	static const char forms[] = "a range is N, N:, ~:N, N:M or @N:M";
	memset(r, 0, sizeof(*r));
	if (!s || !*s)
		return apenet_errbuf(err, errlen, "an empty range (%s)", forms);
	if (strlen(s) >= sizeof(r->text))
		return apenet_errbuf(err, errlen, "'%.20s...': too long for a range", s);
	snprintf(r->text, sizeof(r->text), "%s", s);
	const char *p = s;
	if (*p == '@') {
		r->inside = 1;
		p++;
	}
	const char *colon = strchr(p, ':');
	if (!colon) {
		/* "N": 0..N */
		if (*p == '~')
			return apenet_errbuf(err, errlen, "'%s': '~' (minus infinity) goes before a ':', as in ~:10", s);
		if (number(p, strlen(p), &r->end))
			return apenet_errbuf(err, errlen, "'%s' is not a number (%s)", s, forms);
		r->start = 0;
		if (r->end < 0)
			return apenet_errbuf(err, errlen, "'%s' means 0:%s: the start 0 is above the end %s", s, p, p);
		return 0;
	}
	const char *a = p, *b = colon + 1;
	size_t na = (size_t)(colon - p);
	if (strchr(b, ':'))
		return apenet_errbuf(err, errlen, "'%s': more than one ':' (%s)", s, forms);
	if (!na)
		return apenet_errbuf(err, errlen, "'%s': no start before ':' (~:N for no lower limit, 0:N from zero)", s);
	if (na == 1 && *a == '~')
		r->start = -INFINITY;
	else if (number(a, na, &r->start))
		return apenet_errbuf(err, errlen, "'%s': the start '%.*s' is not a number (%s)", s, (int)na, a, forms);
	if (!*b)
		r->end = INFINITY;
	else if (number(b, strlen(b), &r->end))
		return apenet_errbuf(err, errlen, "'%s': the end '%s' is not a number (%s)", s, b,
				     *b == '~' ? "'~' stands only for the start" : forms);
	if (r->start > r->end)
		return apenet_errbuf(err, errlen, "'%s': the start %g is above the end %g", s, r->start, r->end);
	return 0;
}

int apenet_range_alerts(const struct apenet_range *r, double v)
{
	if (isnan(v))
		return 0;
	int in = v >= r->start && v <= r->end;
	return r->inside ? in : !in;
}

const char *apenet_range_why(const struct apenet_range *r, double v, char *buf, size_t n)
{
	if (!apenet_range_alerts(r, v))
		snprintf(buf, n, "%s", "");
	else if (r->inside)
		snprintf(buf, n, "inside %s", r->text + 1);
	else if (v > r->end)
		snprintf(buf, n, "> %g", r->end);
	else
		snprintf(buf, n, "< %g", r->start);
	return buf;
}

int apenet_range_within(const struct apenet_range *in, const struct apenet_range *out)
{
	return !in->inside && !out->inside && in->start >= out->start && in->end <= out->end;
}
