/* apenet ber: a PRBS bit error rate test of a link's lanes, both ends
 * started from this host (bertest/run.c), judged with honest statistics
 * (lofamo/ber_stats.c, docs/ber.md) and said by lofamo/rules_ber.c.  Exit 0 pass, 1 fail, 3 inconclusive
 * (not proven either way within the time allowed: how many more bits it
 * needs is said), 2 could not run or interrupted; the link is back in
 * traffic on every way out, Ctrl-C included. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apenet/bertest.h"
#include "apenet/finding.h"
#include "apenet/rules_test.h"
#include "cli.h"

#define USAGE                                                                                                    \
	"usage: apenet ber --link L [--lanes 0,1,2,3] [--pattern prbs7|prbs15|prbs23|prbs31]\n"                    \
	"                  [--target 1e-12 --cl 0.95 | --bits N | --duration S] [--both-ends] [--max-time S] [--json]"

static volatile int ber_stop;

static void on_signal(int sig)
{
	(void)sig;
	ber_stop = 1;
}

static void out_end(struct apenet_out *o, const char *key, const unsigned xyz[3], const char *link)
{
	apenet_out_obj_begin(o, key);
	apenet_out_strf(o, "node", "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
	apenet_out_str(o, "link", link);
	apenet_out_obj_end(o);
}

int cmd_ber(struct cli *c)
{
	const char *link = NULL, *lanes = NULL, *pattern = "prbs31", *target = NULL, *cl = NULL, *bits = NULL,
		   *duration = NULL, *maxt = NULL, *loopback = NULL;
	int both = 0;
	const struct cli_opt opts[] = { { "--link", &link, NULL },	   { "--lanes", &lanes, NULL },
					{ "--pattern", &pattern, NULL },   { "--target", &target, NULL },
					{ "--cl", &cl, NULL },		   { "--bits", &bits, NULL },
					{ "--duration", &duration, NULL }, { "--max-time", &maxt, NULL },
					{ "--loopback", &loopback, NULL }, { "--both-ends", NULL, &both },
					{ NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double tg = 1e-12, conf = 0.95, nbits = 0, dur = 0, maxs = 0;
	if (cli_parse(c, "ber", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (!link)
		return cli_usage_error("ber", "which link? --link L (e.g. --link X+)\n" USAGE);
	struct apenet_bertest_opts o = { 0 };
	if (cli_parse_pattern(pattern, &o.pattern))
		return cli_usage_error("ber", "--pattern '%s': one of prbs7, prbs15, prbs23, prbs31", pattern);
	if ((target && cli_number("ber", "--target", target, 1e-18, 1e-2, &tg)) ||
	    (cl && cli_number("ber", "--cl", cl, 0.5, 0.999999, &conf)) ||
	    (bits && cli_number("ber", "--bits", bits, 1, 1.8e19, &nbits)) ||
	    (duration && cli_number("ber", "--duration", duration, 0.001, 30 * 86400, &dur)) ||
	    (maxt && cli_number("ber", "--max-time", maxt, 0.1, 30 * 86400, &maxs)))
		return CLI_EXIT_ERROR;
	if (bits && duration)
		return cli_usage_error("ber", "--bits or --duration, not both");
	if (loopback)
		return cli_usage_error("ber", "--loopback %s: the APEnet+ family's register map has no loopback mode: test "
					      "across the cable (both ends from this host through the remote window)",
				       loopback);
	struct apenet_dev d;
	struct apenet_err e = { 0 };
	int l, rc = cli_open_link(c, "ber", link, &d, &l);
	if (rc)
		return rc;
	o.link = (unsigned)l;
	if (lanes && cli_parse_lanes(lanes, d.prof->links[l].lanes, &o.lanes)) {
		apenet_dev_close(&d);
		return cli_usage_error("ber", "--lanes '%s': lane numbers 0..%u, comma separated", lanes,
				       d.prof->links[l].lanes - 1u);
	}
	o.both_ends = both;
	o.target = tg;
	o.cl = conf;
	o.bits = (uint64_t)nbits;
	/* --duration: the bits that long takes at the lane rate (the
	 * counters decide, not the clock, also in an accelerated emulation) */
	double mbps = apenet_rd32(&d, apenet_link_off(o.link, APENET_LINK_LANE_MBPS));
	uint32_t accel = apenet_rd32(&d, APENET_REG_BER_ACCEL);
	if (!accel || accel == APENET_ALL_ONES)
		accel = 1;
	double bps = mbps * 1e6 * accel;
	if (dur > 0)
		o.bits = (uint64_t)(dur * mbps * 1e6);
	/* without a limit: 20 times the zero-error minimum, at least 10 s */
	double need = o.bits ? (double)o.bits : apenet_ber_min_bits(0, tg, conf);
	o.max_s = maxs > 0 ? maxs : fmax(10.0, 20 * need / (bps > 0 ? bps : 1));
	o.guard_ms = (unsigned)fmin(4e9, (o.max_s + 10) * 1000);
	o.timeout_ms = 2000;

	struct sigaction sa = { 0 }, old_int, old_term;
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	struct apenet_bertest t;
	if (apenet_bertest_start(&d, &o, &t, &e)) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		apenet_dev_close(&d);
		return cli_fail(&e);
	}
	struct cli_progress pg;
	cli_progress_init(&pg, c, "apenet ber", o.max_s);
	int rrc = cli_ber_run(&t, &pg, &ber_stop, 100, &e);
	cli_progress_end(&pg);
	int stopped = ber_stop;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rrc) {
		apenet_dev_close(&d);
		return cli_fail(&e);
	}
	uint32_t me = apenet_rd32(&d, APENET_REG_NODE_COORD), pt = apenet_rd32(&d, apenet_link_off(o.link, APENET_LINK_PARTNER));
	unsigned near[3] = { APENET_GET(NODE_COORD, X, me), APENET_GET(NODE_COORD, Y, me), APENET_GET(NODE_COORD, Z, me) };
	unsigned far[3] = { APENET_GET(LINK_PARTNER, X, pt), APENET_GET(LINK_PARTNER, Y, pt), APENET_GET(LINK_PARTNER, Z, pt) };
	unsigned fport = APENET_GET(LINK_PARTNER, PORT, pt);
	const char *flink = fport < d.prof->nlinks ? d.prof->links[fport].name : "?";

	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_out *o2 = apenet_out_new(c->fmt, stdout, "ber");
	apenet_out_str(o2, "bdf", d.bdf);
	apenet_out_str(o2, "link", d.prof->links[l].name);
	apenet_out_str(o2, "pattern", cli_pattern_name(o.pattern));
	apenet_out_dbl(o2, "target", tg, 3);
	apenet_out_dbl(o2, "cl", conf, 6);
	apenet_out_uint(o2, "accelerated", t.accel); /* > 1: the emulator counts this much faster than wall time */
	apenet_out_dbl(o2, "elapsed_s", apenet_bertest_elapsed(&t), 1);
	apenet_out_uint(o2, "runs", t.runs + 1); /* --both-ends: more than one when a far lane needed more bits */
	apenet_out_arr_begin(o2, "lanes");
	struct apenet_ber_count cnt[APENET_BERTEST_MAXLANES];
	unsigned ncnt = 0;
	for (unsigned i = 0; i < t.n; i++) {
		const struct apenet_bertest_lane *ln = &t.l[i];
		if (ln->dir == APENET_BERTEST_NEAR_TO_FAR && stopped)
			continue;
		apenet_out_obj_begin(o2, NULL);
		apenet_out_uint(o2, "lane", ln->lane);
		apenet_out_uint(o2, "bits", ln->bits);
		apenet_out_uint(o2, "errors", ln->errors);
		apenet_out_dbl(o2, "ber", ln->dec.est.ber, 3);
		apenet_out_dbl(o2, "upper", ln->dec.est.upper, 3);
		apenet_out_dbl(o2, "lower", ln->dec.est.lower, 3);
		apenet_out_dbl(o2, "cl", conf, 6);
		/* a lane's verdict is final once it has one; one still open when
		 * Ctrl-C came was interrupted, not inconclusive */
		apenet_out_str(o2, "verdict", ln->verdict == APENET_BER_CONTINUE && stopped
						      ? "interrupted"
						      : apenet_rules_ber_verdict_word(ln->verdict));
		if (both) {
			int n2f = ln->dir == APENET_BERTEST_NEAR_TO_FAR;
			out_end(o2, "from", n2f ? near : far, n2f ? d.prof->links[l].name : flink);
			out_end(o2, "to", n2f ? far : near, n2f ? flink : d.prof->links[l].name);
		}
		apenet_out_obj_end(o2);
		cnt[ncnt].bits = ln->bits;
		cnt[ncnt++].errors = ln->errors;
		struct apenet_ber_lane_result lr = { .lane = ln->lane, .dir = both ? (int)ln->dir : -1, .bits = ln->bits,
						     .errors = ln->errors, .lower = ln->dec.est.lower, .verdict = ln->verdict };
		apenet_rules_ber_lane(&lr, l, d.prof->links[l].name, tg, conf, &fs);
	}
	apenet_out_arr_end(o2);
	struct apenet_ber_count sum;
	struct apenet_ber_est pe;
	if (ncnt && !apenet_ber_pool(cnt, ncnt, &sum, &e) && sum.bits &&
	    !apenet_ber_estimate(sum.errors, sum.bits, conf, &pe, &e)) {
		apenet_out_obj_begin(o2, "pooled");
		apenet_out_uint(o2, "bits", sum.bits);
		apenet_out_uint(o2, "errors", sum.errors);
		apenet_out_dbl(o2, "ber", pe.ber, 3);
		apenet_out_dbl(o2, "upper", pe.upper, 3);
		apenet_out_dbl(o2, "lower", pe.lower, 3);
		apenet_out_obj_end(o2);
	}
	if (!stopped && t.verdict == APENET_BER_CONTINUE) {
		struct apenet_ber_short sh;
		cli_ber_short(&t, &sh);
		apenet_rules_ber_not_proven(&sh, l, d.prof->links[l].name, &fs);
	}
	apenet_out_str(o2, "verdict", stopped ? "interrupted" : apenet_rules_ber_verdict_word(t.verdict));
	rc = cli_finish(o2, &fs);
	apenet_findings_free(&fs);
	apenet_dev_close(&d);
	if (stopped)
		return CLI_EXIT_ERROR;
	return rc == CLI_EXIT_ERROR		 ? rc
	       : t.verdict == APENET_BER_PASS ? CLI_EXIT_OK
	       : t.verdict == APENET_BER_FAIL ? CLI_EXIT_FAULT
					      : CLI_EXIT_INCONCLUSIVE;
}
