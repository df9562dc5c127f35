/*
 * Times and durations as a person types them on a command line (--since,
 * --until, --at; common/timeparse.c, tests/unit/common/test_timeparse.c).
 *
 * Every time is UTC, as every time the tools print is (ISO 8601 with Z):
 * "today" is 00:00 UTC of the current day, whatever the local time zone,
 * so the same command names the same window on every host of a cluster.
 */
#ifndef APENET_TIMEPARSE_H
#define APENET_TIMEPARSE_H

#include <stddef.h>
#include <stdint.h>

/* The forms, for messages: what a refused time should have been. */
#define APENET_TIME_FORMS                                                                                      \
	"a time ago (-1h, 30m, -90s, 2d), now, today, yesterday (00:00 UTC), ISO 8601 (2026-11-23, "           \
	"2026-11-23T20:37:40Z, 2026-11-23 20:37+01:00) or epoch milliseconds"

/*
 * s as epoch milliseconds, given the current time now_ms:
 *   - a duration ago: "-1h", "30m", "-90s", "1.5h", "2d", "250ms" (units ms,
 *     s, m, h, d, w; the minus sign may be left out: "30m" is 30 minutes ago);
 *   - "now", "today" and "yesterday" (00:00 UTC of the day), any case;
 *   - ISO 8601: YYYY-MM-DD (00:00 UTC), then optionally 'T' or a space and
 *     HH:MM, HH:MM:SS or HH:MM:SS.fff (any number of fraction digits,
 *     rounded to the millisecond), then 'Z', +HH:MM, +HHMM, +HH (or '-'),
 *     or nothing (UTC);
 *   - digits alone: epoch milliseconds.
 * 0, or -1 when s is none of these (a date that does not exist, a field
 * out of range, a time before 1970, anything left over).
 */
int apenet_time_parse(const char *s, int64_t now_ms, int64_t *out);

/*
 * A duration: a number, optionally with a fraction, and a unit (ms, s, m,
 * h, d, w); a bare number counts in unit_ms (1000: seconds).  No sign.
 * 0 with *ms, or -1.
 */
int apenet_duration_parse(const char *s, int64_t unit_ms, int64_t *ms);

/*
 * A duration in seconds as a person reads it: "4.2 s", "42 s", "3m05s",
 * "2h10m", "8.8 d", "2.1 years"; "?" for a negative or non-finite one.
 * Returns buf.
 */
const char *apenet_duration_str(double s, char *buf, size_t n);

#endif
