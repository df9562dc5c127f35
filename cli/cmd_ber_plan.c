/* apenet ber-plan: the bits and the wall time it takes to certify a target
 * BER at a confidence, allowing E errors, for one lane and for N lanes
 * pooled; beside the test fixed in advance, what the sequential test of
 * `apenet ber` needs when it sees those errors (lofamo/ber_stats.c,
 * docs/ber.md).  Judges no board. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "apenet/ber_stats.h"
#include "apenet/finding.h"
#include "cli.h"

#define USAGE "usage: apenet ber-plan --target BER --cl C --gbps RATE [--lanes N] [--errors E]"
#define ERRORS_MAX 100000

/* "0.0043 s", "42.8 s", "7 min 08 s", "1 h 11 min", "3 d 04 h", "13.6 years": rounded
 * to the last unit shown. */
static void human_time(char *b, size_t n, double s)
{
	static const struct { double limit, big, small; const char *bigname, *smallname; } u[] = {
		{ 3600, 60, 1, "min", "s" },
		{ 86400, 3600, 60, "h", "min" },
		{ 1000 * 86400.0, 86400, 3600, "d", "h" },
	};
	if (!isfinite(s)) {
		snprintf(b, n, "never");
		return;
	}
	if (s < 0.1) {
		snprintf(b, n, "%.2g s", s);
		return;
	}
	if (s < 59.95) {
		snprintf(b, n, "%.1f s", s);
		return;
	}
	for (unsigned i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		long long r = llround(s / u[i].small), per = (long long)(u[i].big / u[i].small);
		if (r * u[i].small < u[i].limit) {
			snprintf(b, n, "%lld %s %02lld %s", r / per, u[i].bigname, r % per, u[i].smallname);
			return;
		}
	}
	snprintf(b, n, "%.3g years", s / (365.25 * 86400));
}

/* A duration: people read it in text, programs get seconds (JSON, CSV). */
static void out_time(struct apenet_out *o, const char *name, double s)
{
	char key[64], t[64];
	if (apenet_out_format(o) == APENET_OUT_TEXT) {
		snprintf(key, sizeof(key), "%s_time", name);
		human_time(t, sizeof(t), s);
		apenet_out_str(o, key, t);
	} else {
		snprintf(key, sizeof(key), "%s_s", name);
		apenet_out_dbl(o, key, s, 3);
	}
}

/* A bit count, whole: the checker counts whole bits. */
static void out_bits(struct apenet_out *o, const char *key, double bits)
{
	double b = ceil(bits);
	if (!isfinite(b))
		apenet_out_null(o, key);
	else if (b < 18446744073709551615.0)
		apenet_out_uint(o, key, (uint64_t)b);
	else
		apenet_out_dbl(o, key, b, 4);
}

/* The precision that shows v as given (0.95, 0.999999, 1e-12, 2.5e-13) in
 * apenet_out_dbl's notation. */
static int shortest(double v)
{
	int sci = v != 0 && (fabs(v) < 1e-4 || fabs(v) >= 1e15);
	char b[64];
	for (int p = 0; p < 15; p++) {
		snprintf(b, sizeof(b), sci ? "%.*e" : "%.*f", p, v);
		if (strtod(b, NULL) == v)
			return p;
	}
	return 15;
}

static void row(struct apenet_out *o, const struct apenet_ber_sched *s, unsigned e, double lane_bps, unsigned lanes)
{
	double fixed = apenet_ber_min_bits(e, s->target, s->cl), seq = apenet_ber_pass_bits(s, e);
	apenet_out_obj_begin(o, NULL);
	apenet_out_uint(o, "errors", e);
	out_bits(o, "bits", fixed);
	out_time(o, "lane", fixed / lane_bps);
	out_time(o, "pooled", fixed / (lane_bps * lanes));
	out_bits(o, "sequential_bits", seq);
	out_time(o, "sequential_lane", seq / lane_bps);
	out_time(o, "sequential_pooled", seq / (lane_bps * lanes));
	apenet_out_dbl(o, "sequential_cl", apenet_ber_pass_cl(s, e), 6);
	apenet_out_obj_end(o);
}

int cmd_ber_plan(struct cli *c)
{
	const char *target = NULL, *cl = NULL, *gbps = NULL, *lanes = NULL, *errors = NULL;
	const struct cli_opt opts[] = { { "--target", &target, NULL }, { "--cl", &cl, NULL },
					{ "--gbps", &gbps, NULL },     { "--lanes", &lanes, NULL },
					{ "--errors", &errors, NULL }, { NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double t, conf, rate, nl = 4, ne = -1;
	if (cli_parse(c, "ber-plan", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (!target || !cl || !gbps)
		return cli_usage_error("ber-plan", "%s is needed; " USAGE, !target ? "--target" : !cl ? "--cl" : "--gbps");
	if (cli_number("ber-plan", "--target", target, 0, APENET_BER_TARGET_MAX, &t) ||
	    cli_number("ber-plan", "--cl", cl, APENET_BER_CL_MIN, APENET_BER_CL_MAX, &conf) ||
	    cli_number("ber-plan", "--gbps", gbps, 1e-6, 1e4, &rate) ||
	    (lanes && cli_number("ber-plan", "--lanes", lanes, 1, 64, &nl)) ||
	    (errors && cli_number("ber-plan", "--errors", errors, 0, ERRORS_MAX, &ne)))
		return CLI_EXIT_ERROR;
	if (!(t > 0))
		return cli_usage_error("ber-plan", "--target '%s' must be a BER above 0", target);
	if (nl != floor(nl))
		return cli_usage_error("ber-plan", "--lanes '%s' is not a whole number of lanes", lanes);
	if (errors && ne != floor(ne))
		return cli_usage_error("ber-plan", "--errors '%s' is not a whole number of errors", errors);

	struct apenet_ber_sched s;
	struct apenet_err e;
	if (apenet_ber_sched_init(&s, t, conf, NULL, &e))
		return cli_usage_error("ber-plan", "%s", e.msg);
	double lane_bps = rate * 1e9;
	unsigned n = (unsigned)nl;
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "ber-plan");
	apenet_out_obj_begin(o, "inputs");
	apenet_out_dbl(o, "target", t, shortest(t));
	apenet_out_dbl(o, "cl", conf, shortest(conf));
	apenet_out_dbl(o, "lane_gbps", rate, shortest(rate) < 3 ? shortest(rate) : 3);
	apenet_out_uint(o, "lanes", n);
	apenet_out_dbl(o, "pooled_gbps", rate * n, shortest(rate * n) < 3 ? shortest(rate * n) : 3);
	apenet_out_dbl(o, "zero_overhead", s.zero_overhead, 3);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "plan");
	if (errors)
		row(o, &s, (unsigned)ne, lane_bps, n);
	else
		for (unsigned k = 0; k <= 5; k++)
			row(o, &s, k, lane_bps, n);
	apenet_out_arr_end(o);
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	return cli_finish(o, &fs);
}
