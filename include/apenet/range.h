/*
 * Threshold ranges as the Monitoring Plugins Development Guidelines write
 * them (check_apenet's -w/-c/--temp-*): a range is START:END, inclusive,
 * and a value is alerted on when it lies outside it; a leading '@' alerts
 * when it lies inside instead.
 *
 *   10       0..10        alert when < 0 or > 10
 *   10:      10..inf      alert when < 10
 *   ~:10     -inf..10     alert when > 10
 *   10:20    10..20       alert when < 10 or > 20
 *   @10:20   10..20       alert when >= 10 and <= 20
 *
 * The numbers are decimals (a sign, digits, a point, an exponent); START
 * must not be above END.  Pure codec: no I/O.
 */
#ifndef APENET_RANGE_H
#define APENET_RANGE_H

#include <stddef.h>

struct apenet_range {
	double start, end;  /* -INFINITY / INFINITY: open on that side */
	int inside;         /* '@': alert inside start..end */
	char text[40];      /* as given: what perfdata's warn/crit fields carry */
};

/* Parses s into r; 0, or -1 with err saying what is wrong with it (the
 * caller names the option): "'20:10': the start 20 is above the end 10". */
int apenet_range_parse(const char *s, struct apenet_range *r, char *err, size_t errlen);

/* 1 when v is to be alerted on (NaN never is). */
int apenet_range_alerts(const struct apenet_range *r, double v);

/* Why v alerts, for a status line: "> 10", "< 5", "inside 10:20"; "" when
 * it does not. */
const char *apenet_range_why(const struct apenet_range *r, double v, char *buf, size_t n);

/* 1 when both alert outside their ranges and in's lies within out's: then
 * every value out alerts on, in alerts on too (a -w that is wider than -c
 * never warns). */
int apenet_range_within(const struct apenet_range *in, const struct apenet_range *out);

#endif
