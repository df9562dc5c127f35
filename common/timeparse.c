/*
 * Times a person types (include/apenet/timeparse.h).  A strict hand parser
 * rather than strptime: strptime skips spaces, takes one-digit fields and
 * leaves day 31 of February to timegm to roll into March; a time that is
 * not one should be refused, not guessed.  The calendar is computed here
 * (days from the civil date), not by timegm: the result does not depend
 * on the host's time zone or C library.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <strings.h>

#include "apenet/timeparse.h"

#define DAY_MS 86400000LL

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's method). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static unsigned days_in_month(unsigned y, unsigned m)
{
	static const unsigned char dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : dm[m - 1];
}

/* Exactly n digits at *p into *v; the pointer moves past them. */
static int digits(const char **p, int n, unsigned *v)
{
	unsigned x = 0;
	for (int i = 0; i < n; i++) {
		char c = (*p)[i];
		if (c < '0' || c > '9')
			return -1;
		x = x * 10 + (unsigned)(c - '0');
	}
	*p += n;
	*v = x;
	return 0;
}

/* A decimal number without sign or exponent ("90", "1.5", ".5" refused). */
static int number(const char **p, double *v)
{
	const char *s = *p;
	double x = 0;
	int n = 0;
	while (*s >= '0' && *s <= '9' && n < 15) {
		x = x * 10 + (*s++ - '0');
		n++;
	}
	if (!n || (*s >= '0' && *s <= '9'))
		return -1; /* no digits, or more than a duration needs */
	if (*s == '.') {
		double f = 0.1;
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (int k = 0; *s >= '0' && *s <= '9'; s++, k++)
			if (k < 9) {
				x += (*s - '0') * f;
				f /= 10;
			}
	}
	*p = s;
	*v = x;
	return 0;
}

int apenet_duration_parse(const char *s, int64_t unit_ms, int64_t *ms)
{
	static const struct {
		const char *name;
		int64_t ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", DAY_MS }, { "w", 7 * DAY_MS } };
	double v;
	const char *p = s;
	if (!s || number(&p, &v))
		return -1;
	int64_t u = -1;
	if (!*p) {
		u = unit_ms;
	} else {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcasecmp(p, units[i].name))
				u = units[i].ms;
	}
	if (u <= 0)
		return -1;
	double r = v * (double)u;
	if (!(r < 1e15)) /* 31,000 years: no one means that */
		return -1;
	*ms = (int64_t)llround(r);
	return 0;
}

/* ISO 8601, as the header says; 1 when s is one, 0 when it is not even
 * shaped like one (so other forms may be tried), -1 when it is shaped like
 * one but wrong. */
static int iso(const char *s, int64_t *out)
{
	const char *p = s;
	unsigned y, mo, d, h = 0, mi = 0, sec = 0;
	if (digits(&p, 4, &y) || *p != '-')
		return 0;
	p++;
	if (digits(&p, 2, &mo) || *p++ != '-' || digits(&p, 2, &d))
		return -1;
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
		return -1;
	int64_t ms = days_from_civil(y, mo, d) * DAY_MS;
	if (!*p) {
		*out = ms;
		return 1;
	}
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -1;
	p++;
	if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
		return -1;
	double frac = 0;
	if (*p == ':') {
		p++;
		if (digits(&p, 2, &sec))
			return -1;
		if (*p == '.' || *p == ',') {
			double f = 0.1;
			p++;
			if (*p < '0' || *p > '9')
				return -1;
			for (int k = 0; *p >= '0' && *p <= '9'; p++, k++)
				if (k < 9) {
					frac += (*p - '0') * f;
					f /= 10;
				}
		}
	}
	if (h > 23 || mi > 59 || sec > 59)
		return -1;
	ms += ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + llround(frac * 1000);
	/* the zone: what to subtract to reach UTC */
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '+' ? 1 : -1;
		unsigned zh, zm = 0;
		if (digits(&p, 2, &zh))
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &zm))
				return -1;
		} else if (*p) {
			if (digits(&p, 2, &zm))
				return -1;
		}
		if (zh > 23 || zm > 59)
			return -1;
		ms -= sign * ((int64_t)zh * 3600 + zm * 60) * 1000;
	}
	if (*p || ms < 0)
		return -1;
	*out = ms;
	return 1;
}

int apenet_time_parse(const char *s, int64_t now_ms, int64_t *out)
{
	if (!s || !*s)
		return -1;
	int64_t today = now_ms - ((now_ms % DAY_MS) + DAY_MS) % DAY_MS;
	if (!strcasecmp(s, "now")) {
		*out = now_ms;
		return 0;
	}
	if (!strcasecmp(s, "today")) {
		*out = today;
		return 0;
	}
	if (!strcasecmp(s, "yesterday")) {
		*out = today - DAY_MS;
		return 0;
	}
	int r = iso(s, out);
	if (r)
		return r > 0 ? 0 : -1;
	/* digits alone: epoch milliseconds */
	const char *p = s;
	int64_t v = 0;
	while (*p >= '0' && *p <= '9' && v < 1000000000000000LL)
		v = v * 10 + (*p++ - '0');
	if (!*p) {
		*out = v;
		return 0;
	}
	/* a duration ago, with or without its minus sign */
	int64_t d;
	if (apenet_duration_parse(s[0] == '-' ? s + 1 : s, -1, &d) || d > now_ms)
		return -1;
	*out = now_ms - d;
	return 0;
}

const char *apenet_duration_str(double s, char *buf, size_t n)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, n, "?");
	else if (s < 10)
		snprintf(buf, n, "%.1f s", s);
	else if (s < 60)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 3600)
		snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else if (s < 86400 * 2)
		snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
	else if (s < 86400 * 365.0 * 2)
		snprintf(buf, n, "%.1f d", s / 86400);
	else
		snprintf(buf, n, "%.1f years", s / (86400 * 365.25));
	return buf;
}
