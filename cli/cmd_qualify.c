/* apenet qualify: certify a link's cable, both directions, at a target
 * BER; when the settings it has fail, sweep (bertest/sweep.c, adaptive),
 * apply the choice and test again; store the certificate, keyed to the
 * cable's serial number from this end's module EEPROM, in the health
 * database (db/hdb_cert.c), with both ends' PMA settings.  Exit 0 when
 * every link qualified passes, 1 when one fails, 3 when none failed but
 * one was inconclusive (the test did not run long enough: a certificate
 * that says so, never "replace the cable"), 2 could not run. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/ber_stats.h"
#include "apenet/bertest.h"
#include "apenet/config.h"
#include "apenet/finding.h"
#include "apenet/hdb.h"
#include "apenet/module.h"
#include "apenet/remote.h"
#include "apenet/rules_test.h"
#include "apenet/sweep.h"
#include "apenet/view.h"
#include "cli.h"

#define USAGE                                                                                                    \
	"usage: apenet qualify (--link L | --all) [--target 1e-12] [--cl 0.95] [--pattern prbs31]\n"               \
	"                      [--db FILE] [--config FILE] [--no-sweep] [--params P,...] [--range P=a:b[:step]]...\n" \
	"                      [--dwell-bits N] [--max-time S] [--json]"

static volatile int q_stop;

/* The sweep of a failed direction: refused beyond this long unless
 * --max-time says otherwise (as apenet sweep) */
#define QUALIFY_SWEEP_MAX_S 3600.0

static void on_signal(int sig)
{
	(void)sig;
	q_stop = 1;
}

struct q_opts {
	enum apenet_prbs pattern;
	double target, cl, max_s;
	uint64_t dwell_bits; /* a lane, for the sweep; 0: the zero-error minimum */
	int sweep;
	unsigned params;     /* the sweep's parameters */
	const char **ranges; /* and its --range narrowings */
	int nranges;
};

/* One BER test of both directions, to a verdict (or max_s); -1 with e. */
static int run_test(struct apenet_dev *d, unsigned link, const struct q_opts *q, struct apenet_bertest *t,
		    struct cli_progress *pg, struct apenet_err *e)
{
	struct apenet_bertest_opts o = { 0 };
	o.link = link;
	o.pattern = q->pattern;
	o.both_ends = 1;
	o.target = q->target;
	o.cl = q->cl;
	double mbps = apenet_rd32(d, apenet_link_off(link, APENET_LINK_LANE_MBPS));
	uint32_t accel = apenet_rd32(d, APENET_REG_BER_ACCEL);
	if (!accel || accel == APENET_ALL_ONES)
		accel = 1;
	double bps = mbps * 1e6 * accel;
	o.max_s = q->max_s > 0 ? q->max_s : fmax(10.0, 20 * apenet_ber_min_bits(0, q->target, q->cl) / (bps > 0 ? bps : 1));
	o.guard_ms = (unsigned)fmin(4e9, (o.max_s + 10) * 1000);
	o.timeout_ms = 2000;
	if (apenet_bertest_start(d, &o, t, e))
		return -1;
	pg->max_s = cli_progress_elapsed(pg) + o.max_s; /* this test's limit, for the ETA */
	int rc = cli_ber_run(t, pg, &q_stop, 50, e);
	if (q_stop)
		return apenet_err_set(e, APENET_EINVAL, "interrupted");
	return rc;
}

/* Each lane's six settings at this end, or at the far end through the
 * window, as "vod/pre/post1/post2/rxeq/dcgain" words. */
static int read_pma(struct apenet_dev *d, unsigned link, int far, char *out, size_t n, struct apenet_err *e)
{
	static const unsigned regs[6] = { APENET_LANE_PMA_VOD,	 APENET_LANE_PMA_PRE,  APENET_LANE_PMA_POST1,
					  APENET_LANE_PMA_POST2, APENET_LANE_PMA_RXEQ, APENET_LANE_PMA_DCGAIN };
	size_t off = 0;
	out[0] = 0;
	for (unsigned k = 0; k < d->prof->links[link].lanes; k++) {
		uint64_t v[6];
		for (unsigned p = 0; p < 6; p++) {
			if (!far) {
				v[p] = apenet_rd32(d, apenet_lane_off(link, k, regs[p]));
				continue;
			}
			uint32_t ro;
			if (apenet_remote_lane_off(d, link, k, regs[p], &ro, e) ||
			    apenet_remote_read(d, link, ro, &v[p], 2000, e))
				return -1;
		}
		off += (size_t)snprintf(out + off, off < n ? n - off : 0, "%s%u/%u/%u/%u/%u/%u", k ? " " : "",
					(unsigned)v[0], (unsigned)v[1], (unsigned)v[2], (unsigned)v[3], (unsigned)v[4],
					(unsigned)v[5]);
	}
	return 0;
}

static const char *verdict_name(const struct apenet_bertest *t)
{
	return t->verdict == APENET_BER_PASS ? "pass" : t->verdict == APENET_BER_FAIL ? "fail" : "inconclusive";
}

/* The test's lanes as the certificate's JSON, and the pooled counts. */
static void lanes_json(const struct apenet_bertest *t, struct apenet_hdb_cert *c)
{
	struct apenet_out *o = apenet_out_mem();
	apenet_out_arr_begin(o, NULL);
	for (unsigned i = 0; i < t->n; i++) {
		const struct apenet_bertest_lane *l = &t->l[i];
		const char *v = l->verdict == APENET_BER_PASS ? "pass" : l->verdict == APENET_BER_FAIL ? "fail" : "inconclusive";
		apenet_out_obj_begin(o, NULL);
		apenet_out_uint(o, "lane", l->lane);
		apenet_out_str(o, "direction", l->dir == APENET_BERTEST_NEAR_TO_FAR ? "near-to-far" : "far-to-near");
		apenet_out_uint(o, "bits", l->bits);
		apenet_out_uint(o, "errors", l->errors);
		apenet_out_dbl_g(o, "ber", l->dec.est.ber, 4); /* the four digits %.3e gave */
		apenet_out_dbl_g(o, "upper", l->dec.est.upper, 4);
		apenet_out_dbl_g(o, "lower", l->dec.est.lower, 4);
		apenet_out_str(o, "verdict", v);
		apenet_out_obj_end(o);
		c->bits += l->bits;
		c->errors += l->errors;
	}
	apenet_out_arr_end(o);
	if (apenet_out_mem_finish(o, c->lanes, sizeof(c->lanes)) < 0)
		snprintf(c->lanes, sizeof(c->lanes), "null"); /* more lanes than the column holds: none, never half */
}

static void out_test(struct apenet_out *o, const char *key, const struct apenet_bertest *t, const struct q_opts *q)
{
	apenet_out_obj_begin(o, key);
	apenet_out_str(o, "verdict", verdict_name(t));
	uint64_t bits = 0, errs = 0;
	double worst = 0;
	for (unsigned i = 0; i < t->n; i++) {
		bits += t->l[i].bits;
		errs += t->l[i].errors;
		if (t->l[i].dec.est.upper > worst)
			worst = t->l[i].dec.est.upper;
	}
	apenet_out_uint(o, "bits", bits);
	apenet_out_uint(o, "errors", errs);
	apenet_out_dbl(o, "worst_lane_upper", worst, 3);
	apenet_out_dbl(o, "target", q->target, 3);
	apenet_out_obj_end(o);
}

/* Qualifies one link; 0 pass, 1 fail, 3 inconclusive, -1 could not (e). */
static int qualify(struct cli *c, struct apenet_dev *d, const struct apenet_view *v, unsigned l, const struct q_opts *q,
		   struct apenet_hdb *db, struct apenet_out *o, struct apenet_findings *fs, struct cli_progress *pg,
		   struct apenet_err *e)
{
	const char *name = d->prof->links[l].name;
	(void)c;
	/* the cable: this end's module */
	if (!APENET_GET(EE_STATUS, PRESENT, v->ee_status[l]))
		return apenet_err_set(e, APENET_EINVAL, "%s: link %s has no module in its cage: no serial number to certify",
				      d->bdf, name);
	static struct apenet_module_image img;
	struct apenet_module_id id;
	char why[256];
	apenet_module_from_window(v->ee[l], v->ee_status[l], &img);
	if (apenet_module_identity(&img, &id, why, sizeof(why)))
		return apenet_err_set(e, APENET_EINVAL, "%s: link %s: module EEPROM: %s", d->bdf, name, why);
	uint32_t me = apenet_rd32(d, APENET_REG_NODE_COORD), pt = apenet_rd32(d, apenet_link_off(l, APENET_LINK_PARTNER));
	static struct apenet_hdb_cert cert;
	memset(&cert, 0, sizeof(cert));
	cert.started_ms = apenet_clock_epoch_ms();
	snprintf(cert.serial, sizeof(cert.serial), "%s", id.serial);
	cert.node[0] = APENET_GET(NODE_COORD, X, me);
	cert.node[1] = APENET_GET(NODE_COORD, Y, me);
	cert.node[2] = APENET_GET(NODE_COORD, Z, me);
	snprintf(cert.link, sizeof(cert.link), "%s", name);
	unsigned fport = APENET_GET(LINK_PARTNER, PORT, pt);
	cert.has_far = APENET_GET(LINK_PARTNER, VALID, pt) && !APENET_GET(LINK_PARTNER, EXTERNAL, pt);
	cert.far[0] = APENET_GET(LINK_PARTNER, X, pt);
	cert.far[1] = APENET_GET(LINK_PARTNER, Y, pt);
	cert.far[2] = APENET_GET(LINK_PARTNER, Z, pt);
	snprintf(cert.far_link, sizeof(cert.far_link), "%s", fport < d->prof->nlinks ? d->prof->links[fport].name : "?");
	snprintf(cert.pattern, sizeof(cert.pattern), "%s", cli_pattern_name(q->pattern));
	cert.target = q->target;
	cert.cl = q->cl;

	/* the settings it has */
	static struct apenet_bertest t0, t1;
	cli_progress_step(pg, "%s (cable %s): as found, both directions", name, id.serial);
	if (run_test(d, l, q, &t0, pg, e))
		return -1;
	struct apenet_bertest *t = &t0;
	int swept = 0;
	/* a direction that failed is swept (far -> near first: the reverse
	 * sweep runs both directions, and reads the far checkers only once
	 * this end's run ends), its choice applied, then everything tested
	 * again.  Only a failure: a test that did not run long enough proves
	 * nothing about the settings, and is said as such */
	int bad_dir[2] = { 0, 0 };
	for (unsigned i = 0; i < t0.n; i++)
		if (t0.l[i].verdict == APENET_BER_FAIL)
			bad_dir[t0.l[i].dir] = 1;
	char chose[2][32] = { "", "" };
	char too_long[160] = "";
	unsigned points = 0;
	for (int dir = 0; dir < 2 && q->sweep && t0.verdict == APENET_BER_FAIL && !too_long[0]; dir++) {
		if (!bad_dir[dir])
			continue;
		struct apenet_sweep_link sl = { .d = d, .link = l, .pattern = q->pattern, .target = q->target,
						.cl = q->cl, .timeout_ms = 2000, .stop = &q_stop, .reverse = dir };
		struct apenet_sweep_space sp;
		if (apenet_sweep_link_begin(&sl, e))
			return -1;
		apenet_sweep_space_full(&sp, &d->prof->pma, sl.orig[0]);
		sp.swept = q->params;
		for (int i = 0; i < q->nranges; i++)
			if (apenet_sweep_range_parse(&sp, &d->prof->pma, q->ranges[i], e))
				return -1; /* checked before: not reached */
		struct apenet_sweep_opts so = { .strategy = APENET_SWEEP_ADAPTIVE, .cl = q->cl, .seed = 1, .start = sl.orig[0] };
		uint64_t lane_bits = q->dwell_bits ? q->dwell_bits : (uint64_t)ceil(apenet_ber_min_bits(0, q->target, q->cl));
		so.dwell_bits = lane_bits * sl.nlanes;
		/* what the sweep will cost, before it starts: one that cannot end
		 * within its limit is not started, and the certificate says why */
		struct cli_sweep_prog g = { .pg = pg, .sl = &sl, .t0_s = cli_progress_elapsed(pg) };
		struct apenet_sweep_plan plan;
		if (apenet_sweep_plan(&sp, &so, &plan, e))
			return -1;
		g.est_s = apenet_sweep_link_estimate_s(&sl, &plan, NULL);
		double limit = q->max_s > 0 ? q->max_s : QUALIFY_SWEEP_MAX_S;
		if (g.est_s > limit) {
			char a[24], b[24];
			snprintf(too_long, sizeof(too_long), "a sweep of %zu points would take about %s, longer than the %s "
				 "allowed", plan.points, cli_progress_dur(g.est_s, a, sizeof(a)),
				 cli_progress_dur(limit, b, sizeof(b)));
			break;
		}
		cli_progress_step(pg, "%s: sweeping %s", name, dir ? "this end -> far end" : "far end -> this end");
		so.progress = cli_sweep_progress;
		so.progress_ctx = &g;
		struct apenet_sweep sw;
		int rc = apenet_sweep_run(&sp, &so, apenet_sweep_link_measure, &sl, &sw, e);
		struct apenet_err re = { 0 };
		int saved_stop = q_stop;
		q_stop = 0;
		int back = rc == 0 ? apenet_sweep_link_set(&sl, sw.pt[sw.best].v, &re) : apenet_sweep_link_restore(&sl, &re);
		q_stop = saved_stop;
		if (!rc) {
			const uint8_t *b = sw.pt[sw.best].v;
			snprintf(chose[dir], sizeof(chose[dir]), "%u/%u/%u/%u/%u/%u", b[0], b[1], b[2], b[3], b[4], b[5]);
			points += (unsigned)sw.n;
		}
		apenet_sweep_free(&sw);
		if (rc || back) {
			if (!rc)
				*e = re;
			return -1;
		}
		swept = 1;
	}
	if (swept) {
		cli_progress_step(pg, "%s: certifying at the chosen setting", name);
		if (run_test(d, l, q, &t1, pg, e))
			return -1;
		t = &t1;
	}
	cli_progress_step(pg, "%s: storing the certificate", name);
	cert.swept = swept;
	snprintf(cert.verdict, sizeof(cert.verdict), "%s", verdict_name(t));
	lanes_json(t, &cert);
	struct apenet_ber_est est;
	if (apenet_ber_estimate(cert.errors, cert.bits ? cert.bits : 1, q->cl, &est, e))
		return -1;
	cert.upper = est.upper;
	cert.lower = est.lower;
	if (read_pma(d, l, 0, cert.pma_near, sizeof(cert.pma_near), e) ||
	    read_pma(d, l, 1, cert.pma_far, sizeof(cert.pma_far), e))
		return -1;
	cert.finished_ms = apenet_clock_epoch_ms();

	/* on disk before anyone is told */
	struct apenet_hdb_cable cab;
	memset(&cab, 0, sizeof(cab));
	snprintf(cab.serial, sizeof(cab.serial), "%s", id.serial);
	snprintf(cab.vendor, sizeof(cab.vendor), "%s", id.vendor);
	snprintf(cab.part, sizeof(cab.part), "%s", id.part);
	cab.length_m = id.length_m;
	cab.has_a = 1;
	memcpy(cab.a, cert.node, sizeof(cab.a));
	snprintf(cab.a_link, sizeof(cab.a_link), "%s", cert.link);
	cab.has_b = cert.has_far;
	memcpy(cab.b, cert.far, sizeof(cab.b));
	snprintf(cab.b_link, sizeof(cab.b_link), "%s", cert.far_link);
	if (apenet_hdb_cable_seen(db, &cab, cert.finished_ms, e) || apenet_hdb_cert_put(db, &cert, &cert.id, e))
		return -1;

	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "link", name);
	apenet_out_strf(o, "node", "%u,%u,%u", cert.node[0], cert.node[1], cert.node[2]);
	if (cert.has_far) {
		apenet_out_strf(o, "far_node", "%u,%u,%u", cert.far[0], cert.far[1], cert.far[2]);
		apenet_out_str(o, "far_link", cert.far_link);
	}
	apenet_out_obj_begin(o, "cable");
	apenet_out_str(o, "serial", id.serial);
	apenet_out_str(o, "vendor", id.vendor);
	apenet_out_str(o, "part", id.part);
	if (isfinite(id.length_m))
		apenet_out_dbl(o, "length_m", id.length_m, 1);
	apenet_out_obj_end(o);
	out_test(o, "as_found", &t0, q);
	apenet_out_str(o, "swept", swept ? "yes" : "no");
	if (swept) {
		/* what each direction's sweep chose: its transmitter's four and
		 * its receiver's two (in: far TX, this RX; out: this TX, far RX) */
		if (chose[0][0])
			apenet_out_str(o, "sweep_in", chose[0]);
		if (chose[1][0])
			apenet_out_str(o, "sweep_out", chose[1]);
		apenet_out_uint(o, "sweep_points", points);
	}
	apenet_out_obj_begin(o, "certificate");
	apenet_out_int(o, "id", cert.id);
	apenet_out_str(o, "verdict", cert.verdict);
	apenet_out_uint(o, "bits", cert.bits);
	apenet_out_uint(o, "errors", cert.errors);
	apenet_out_dbl(o, "upper", cert.upper, 3);
	apenet_out_dbl(o, "lower", cert.lower, 3);
	apenet_out_dbl(o, "cl", cert.cl, 6);
	apenet_out_str(o, "pma_near", cert.pma_near);
	apenet_out_str(o, "pma_far", cert.pma_far);
	apenet_out_obj_end(o);
	apenet_out_obj_end(o);
	/* the verdict, by lofamo/rules_ber.c */
	struct apenet_cable_result res = { .serial = id.serial, .verdict = t->verdict, .bits = cert.bits,
					   .errors = cert.errors, .swept = swept,
					   .not_swept = swept ? NULL : too_long[0] ? too_long : !q->sweep ? "--no-sweep" : NULL };
	cli_ber_short(t, &res.test);
	apenet_rules_cable(&res, (int)l, name, fs);
	return t->verdict == APENET_BER_FAIL ? 1 : t->verdict == APENET_BER_PASS ? 0 : 3;
}

int cmd_qualify(struct cli *c)
{
	const char *link = NULL, *target = NULL, *cl = NULL, *pattern = "prbs31", *dbpath = NULL, *config = NULL,
		   *dwell = NULL, *maxt = NULL, *params = NULL, *ranges[6];
	int all = 0, nosweep = 0, nranges = 0;
	const struct cli_opt opts[] = {
		{ "--link", &link, NULL },     { "--target", &target, NULL },	  { "--cl", &cl, NULL },
		{ "--pattern", &pattern, NULL }, { "--db", &dbpath, NULL },	  { "--config", &config, NULL },
		{ "--dwell-bits", &dwell, NULL }, { "--max-time", &maxt, NULL },  { "--all", NULL, &all },
		{ "--no-sweep", NULL, &nosweep }, { "--params", &params, NULL }, { NULL, NULL, NULL },
	};
	const char *pos[1];
	int npos;
	if (cli_take_repeated(c, "qualify", "--range", ranges, 6, &nranges) ||
	    cli_parse(c, "qualify", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (!link == !all)
		return cli_usage_error("qualify", "--link L or --all\n" USAGE);
	struct q_opts q = { .target = 1e-12, .cl = 0.95, .sweep = !nosweep };
	double dwb = 0;
	if (cli_parse_pattern(pattern, &q.pattern))
		return cli_usage_error("qualify", "--pattern '%s': one of prbs7, prbs15, prbs23, prbs31", pattern);
	if ((target && cli_number("qualify", "--target", target, 1e-18, 1e-2, &q.target)) ||
	    (cl && cli_number("qualify", "--cl", cl, 0.5, 0.999999, &q.cl)) ||
	    (dwell && cli_number("qualify", "--dwell-bits", dwell, 1e3, 1e16, &dwb)) ||
	    (maxt && cli_number("qualify", "--max-time", maxt, 0.1, 30 * 86400, &q.max_s)))
		return CLI_EXIT_ERROR;
	q.dwell_bits = (uint64_t)dwb;
	q.params = (1u << APENET_SWEEP_NPARAM) - 1;
	char bad[64];
	if (params && cli_parse_params(params, &q.params, bad, sizeof(bad)))
		return cli_usage_error("qualify", "--params '%s': '%s' is not vod, pre, post1, post2, rxeq or dcgain", params,
				       bad);
	q.ranges = ranges;
	q.nranges = nranges;
	char path[APENET_PATH_MAX];
	struct apenet_err e = { 0 };
	int rc = cli_db_path(c, "qualify", dbpath, config, path, sizeof(path));
	if (rc)
		return rc;

	/* the modules (one snapshot of the card), then the card */
	static struct apenet_view v;
	rc = cli_view(c, NULL, 0, 1, &v);
	if (rc)
		return rc;
	struct apenet_dev d;
	int only;
	rc = cli_open_link(c, "qualify", link, &d, &only);
	if (rc)
		return rc;
	/* the sweep's ranges, checked before anything runs */
	struct apenet_sweep_space chk;
	apenet_sweep_space_full(&chk, &d.prof->pma, NULL);
	for (int i = 0; i < nranges; i++)
		if (apenet_sweep_range_parse(&chk, &d.prof->pma, ranges[i], &e)) {
			apenet_dev_close(&d);
			return cli_usage_error("qualify", "%s", e.msg);
		}
	unsigned links[APENET_MAX_LINKS], nl = 0;
	if (link) {
		links[nl++] = (unsigned)only;
	} else {
		for (unsigned l = 0; l < d.prof->nlinks; l++) {
			uint32_t pt = apenet_rd32(&d, apenet_link_off(l, APENET_LINK_PARTNER));
			if (APENET_GET(LINK_PARTNER, VALID, pt) && !APENET_GET(LINK_PARTNER, EXTERNAL, pt))
				links[nl++] = l;
		}
		if (!nl) {
			apenet_dev_close(&d);
			return cli_input_error(c, "qualify", "NO_LINK", "%s: no link with a torus partner to qualify", d.bdf);
		}
	}
	struct apenet_hdb *db;
	if (apenet_hdb_open(path, APENET_HDB_CREATE, &db, &e)) {
		apenet_dev_close(&d);
		return cli_input_error(c, "qualify", "BAD_DATABASE", "%s", e.msg);
	}
	struct sigaction saved[CLI_CATCH_N];
	cli_catch_signals(on_signal, saved);
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "qualify");
	apenet_out_str(o, "bdf", d.bdf);
	apenet_out_str(o, "db", path);
	apenet_out_str(o, "pattern", cli_pattern_name(q.pattern));
	apenet_out_dbl(o, "target", q.target, 3);
	apenet_out_dbl(o, "cl", q.cl, 6);
	uint32_t accel = apenet_rd32(&d, APENET_REG_BER_ACCEL);
	apenet_out_uint(o, "accelerated", accel && accel != APENET_ALL_ONES ? accel : 1);
	apenet_out_arr_begin(o, "links");
	int failed = 0, inconclusive = 0, broke = 0;
	struct cli_progress pg;
	cli_progress_init(&pg, c, "apenet qualify", 0);
	for (unsigned i = 0; i < nl && !q_stop; i++) {
		int r = qualify(c, &d, &v, links[i], &q, db, o, &fs, &pg, &e);
		if (r < 0) {
			cli_progress_end(&pg);
			fprintf(stderr, "apenet qualify: link %s: %s\n", d.prof->links[links[i]].name, e.msg);
			broke = 1;
			break;
		}
		failed |= r == 1;
		inconclusive |= r == 3;
	}
	cli_progress_end(&pg);
	apenet_out_arr_end(o);
	apenet_out_str(o, "verdict", broke || q_stop ? "could not run" : failed ? "fail" : inconclusive ? "inconclusive" : "pass");
	if (broke || q_stop)
		apenet_out_discard(o);
	else
		rc = cli_finish(o, &fs);
	apenet_findings_free(&fs);
	apenet_hdb_close(db);
	apenet_dev_close(&d);
	cli_restore_signals(saved);
	if (broke || q_stop)
		return CLI_EXIT_ERROR;
	return rc == CLI_EXIT_ERROR ? rc
	       : failed		    ? CLI_EXIT_FAULT
	       : inconclusive	    ? CLI_EXIT_INCONCLUSIVE
				    : CLI_EXIT_OK;
}
