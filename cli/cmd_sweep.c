/* apenet sweep: search a link's PMA settings for the lowest BER (bertest/
 * sweep.c, the strategies; bertest/sweep_link.c, a point measured on the
 * card: --direction in, the far transmitter through the remote window and
 * this receiver here; out, this transmitter and the far receiver).  Output: the chosen setting with its bounds, a text heat map, and
 * with --out DIR every point as CSV and SVG heat maps of every pair of
 * swept parameters.  The link goes back to its settings after the sweep
 * (also on Ctrl-C) unless --apply leaves the chosen one.  Exit 0 when the
 * chosen setting's upper bound is below the target, 1 when not, 3 when
 * --max-time ended it first (inconclusive), 2 could not run (also: it
 * would take longer than --max-time, said before anything is written) or
 * interrupted (the verdict: lofamo/rules_sweep.c). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apenet/ber_stats.h"
#include "apenet/config.h"
#include "apenet/finding.h"
#include "apenet/preset.h"
#include "apenet/rules_test.h"
#include "apenet/sweep.h"
#include "cli.h"

#define USAGE                                                                                                    \
	"usage: apenet sweep --link L [--lanes 0,1,2,3] [--params vod,pre,post1,post2,rxeq,dcgain]\n"             \
	"                    [--range P=a:b[:step]]... [--strategy exhaustive|adaptive]\n"                       \
	"                    [--dwell S | --dwell-bits N] [--target 1e-12] [--cl 0.95] [--pattern prbs31]\n"       \
	"                    [--direction in|out] [--heatmap P,Q] [--out DIR] [--apply] [--save NAME]\n"     \
	"                    [--max-time S] [--config FILE] [--seed N] [--json]"
#define MAX_RANGES 6
#define SWEEP_MAX_S 3600.0 /* --max-time by default: an hour */

static volatile int sweep_stop;

static void on_signal(int sig)
{
	(void)sig;
	sweep_stop = 1;
}

static void out_point(struct apenet_out *o, const char *key, const struct apenet_sweep_point *p)
{
	apenet_out_obj_begin(o, key);
	for (unsigned k = 0; k < APENET_SWEEP_NPARAM; k++)
		apenet_out_uint(o, apenet_sweep_param_name(k), p->v[k]);
	apenet_out_uint(o, "bits", p->bits);
	apenet_out_uint(o, "errors", p->errors);
	apenet_out_dbl(o, "ber", p->ber, 3);
	apenet_out_dbl(o, "upper", p->upper, 3);
	apenet_out_dbl(o, "lower", p->lower, 3);
	apenet_out_obj_end(o);
}

/* Every output file under dir; -1 with e. */
static int write_files(const char *dir, const struct apenet_sweep *sw, const struct apenet_sweep_space *sp,
		       const char *title, struct apenet_err *e)
{
	if (mkdir(dir, 0777) && errno != EEXIST)
		return apenet_err_set(e, APENET_EIO, "--out %s: %s", dir, strerror(errno));
	char path[APENET_PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/points.csv", dir);
	FILE *f = fopen(path, "w");
	if (!f || apenet_sweep_write_csv(sw, f) || fclose(f)) {
		if (f)
			fclose(f);
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
	}
	for (unsigned a = 0; a < APENET_SWEEP_NPARAM; a++)
		for (unsigned b = a + 1; b < APENET_SWEEP_NPARAM; b++) {
			if (!(sp->swept & (1u << a)) || !(sp->swept & (1u << b)))
				continue;
			snprintf(path, sizeof(path), "%s/heatmap-%s-%s.svg", dir, apenet_sweep_param_name(a),
				 apenet_sweep_param_name(b));
			f = fopen(path, "w");
			if (!f || apenet_sweep_write_heatmap_svg(sw, sp, a, b, title, f) || fclose(f)) {
				if (f)
					fclose(f);
				return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
			}
		}
	return 0;
}

int cmd_sweep(struct cli *c)
{
	const char *link = NULL, *lanes = NULL, *params = NULL, *strategy = "adaptive", *dwell = NULL,
		   *dwell_bits = NULL, *target = NULL, *cl = NULL, *pattern = "prbs31", *heat = NULL, *outdir = NULL,
		   *seed = NULL, *direction = "in", *save = NULL, *config = NULL, *maxt = NULL, *ranges[MAX_RANGES];
	int apply = 0, nranges = 0;
	const struct cli_opt opts[] = {
		{ "--link", &link, NULL },	     { "--lanes", &lanes, NULL },	{ "--params", &params, NULL },
		{ "--strategy", &strategy, NULL },   { "--dwell", &dwell, NULL },	{ "--dwell-bits", &dwell_bits, NULL },
		{ "--target", &target, NULL },	     { "--cl", &cl, NULL },		{ "--pattern", &pattern, NULL },
		{ "--heatmap", &heat, NULL },	     { "--out", &outdir, NULL },	{ "--seed", &seed, NULL },
		{ "--apply", NULL, &apply },	     { "--direction", &direction, NULL }, { "--save", &save, NULL },
		{ "--config", &config, NULL },	     { "--max-time", &maxt, NULL },	{ NULL, NULL, NULL },
	};
	const char *pos[1];
	int npos;
	if (cli_take_repeated(c, "sweep", "--range", ranges, MAX_RANGES, &nranges) ||
	    cli_parse(c, "sweep", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (!link)
		return cli_usage_error("sweep", "which link? --link L (e.g. --link X+)\n" USAGE);
	struct apenet_sweep_opts so = { .cl = 0.95, .seed = 1 };
	if (strcmp(direction, "in") && strcmp(direction, "out"))
		return cli_usage_error("sweep", "--direction '%s': in (far end -> this end) or out (this end -> far end)",
				       direction);
	if (!strcmp(strategy, "exhaustive"))
		so.strategy = APENET_SWEEP_EXHAUSTIVE;
	else if (!strcmp(strategy, "adaptive"))
		so.strategy = APENET_SWEEP_ADAPTIVE;
	else
		return cli_usage_error("sweep", "--strategy '%s': exhaustive or adaptive", strategy);
	enum apenet_prbs pat;
	if (cli_parse_pattern(pattern, &pat))
		return cli_usage_error("sweep", "--pattern '%s': one of prbs7, prbs15, prbs23, prbs31", pattern);
	double tg = 1e-12, dw = 0, dwb = 0, sd = 1, maxs = SWEEP_MAX_S;
	if ((target && cli_number("sweep", "--target", target, 1e-18, 1e-2, &tg)) ||
	    (cl && cli_number("sweep", "--cl", cl, 0.5, 0.999999, &so.cl)) ||
	    (dwell && cli_number("sweep", "--dwell", dwell, 1e-6, 86400, &dw)) ||
	    (dwell_bits && cli_number("sweep", "--dwell-bits", dwell_bits, 1e3, 1e16, &dwb)) ||
	    (seed && cli_number("sweep", "--seed", seed, 0, 4e9, &sd)) ||
	    (maxt && cli_number("sweep", "--max-time", maxt, 1, 365 * 86400.0, &maxs)))
		return CLI_EXIT_ERROR;
	if (dwell && dwell_bits)
		return cli_usage_error("sweep", "--dwell or --dwell-bits, not both");
	so.seed = (uint64_t)sd;
	/* --save: where the preset goes, known before anything runs */
	char presets[APENET_PATH_MAX] = "";
	if (save) {
		if (!apenet_preset_name_ok(save))
			return cli_usage_error("sweep", "--save '%s': a preset name is letters, digits, '-', '_' and '.' (not first)",
					       save);
		struct apenet_config cfg;
		int crc = cli_config("sweep", config, &cfg);
		if (crc)
			return crc;
		snprintf(presets, sizeof(presets), "%s", cfg.agent.pma_presets_dir);
		apenet_config_free(&cfg);
		if (!presets[0])
			return cli_usage_error("sweep", "--save: the config has no agent.pma_presets_dir");
	}
	unsigned pmask = (1u << APENET_SWEEP_NPARAM) - 1;
	char bad[64];
	if (params && cli_parse_params(params, &pmask, bad, sizeof(bad)))
		return cli_usage_error("sweep", "--params '%s': '%s' is not vod, pre, post1, post2, rxeq or dcgain", params,
				       bad);
	int ha = -1, hb = -1;
	if (heat) {
		unsigned hm = 0;
		if (cli_parse_params(heat, &hm, bad, sizeof(bad)) || __builtin_popcount(hm) != 2)
			return cli_usage_error("sweep", "--heatmap '%s': two parameters, e.g. --heatmap post1,rxeq", heat);
		ha = __builtin_ctz(hm);
		hb = 31 - __builtin_clz(hm);
	}

	struct apenet_dev d;
	struct apenet_err e = { 0 };
	int l, rc = cli_open_link(c, "sweep", link, &d, &l);
	if (rc)
		return rc;
	struct apenet_sweep_link sl = { .d = &d, .pattern = pat, .target = tg, .cl = so.cl, .timeout_ms = 2000 };
	sl.link = (unsigned)l;
	sl.reverse = !strcmp(direction, "out");
	if (lanes && cli_parse_lanes(lanes, d.prof->links[l].lanes, &sl.lanes)) {
		apenet_dev_close(&d);
		return cli_usage_error("sweep", "--lanes '%s': lane numbers 0..%u, comma separated", lanes,
				       d.prof->links[l].lanes - 1u);
	}
	/* the space: every parameter named (all by default) over its whole
	 * range, --range narrowing one (and naming it swept) */
	struct apenet_sweep_space sp;
	apenet_sweep_space_full(&sp, &d.prof->pma, NULL);
	sp.swept = pmask;
	for (int i = 0; i < nranges; i++)
		if (apenet_sweep_range_parse(&sp, &d.prof->pma, ranges[i], &e)) {
			apenet_dev_close(&d);
			return cli_usage_error("sweep", "%s", e.msg);
		}
	if (ha >= 0 && (!(sp.swept & (1u << ha)) || !(sp.swept & (1u << hb)))) {
		apenet_dev_close(&d);
		return cli_usage_error("sweep", "--heatmap %s: both must be swept (--params, --range)", heat);
	}
	if (ha < 0) { /* the two swept parameters with the most values */
		unsigned best[2] = { 0, 0 };
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
			if (!(sp.swept & (1u << p)))
				continue;
			unsigned n = (unsigned)(sp.hi[p] - sp.lo[p]) / sp.step[p] + 1;
			if (ha < 0 || n > best[0]) {
				hb = ha, best[1] = best[0];
				ha = (int)p, best[0] = n;
			} else if (hb < 0 || n > best[1]) {
				hb = (int)p, best[1] = n;
			}
		}
		if (hb >= 0 && ha > hb) {
			int t = ha;
			ha = hb;
			hb = t;
		}
	}

	/* Ctrl-C, a kill, a closed terminal: the sweep stops and the link is
	 * put back; a closed pipe must not kill it half way either */
	struct sigaction saved[CLI_CATCH_N];
	cli_catch_signals(on_signal, saved);
	sl.stop = &sweep_stop;
	if (apenet_sweep_link_begin(&sl, &e)) {
		cli_restore_signals(saved);
		apenet_dev_close(&d);
		return cli_fail(&e);
	}
	unsigned nl = (unsigned)__builtin_popcount(sl.lanes ? sl.lanes : (1u << sl.nlanes) - 1);
	double lane_bits = dwb > 0 ? dwb : dw > 0 ? dw * sl.lane_mbps * 1e6 : apenet_ber_min_bits(0, tg, so.cl);
	so.dwell_bits = (uint64_t)ceil(lane_bits) * nl; /* the sweep counts the lanes' bits pooled */
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
		sp.fixed[p] = sl.orig[0][p];
	so.start = sl.orig[0];
	/* what it will cost, before anything is written: a sweep that cannot
	 * end within --max-time is refused with what it needs and what
	 * shortens it (on a card a full default grid takes days a lane) */
	struct cli_progress pg;
	struct cli_sweep_prog g = { .pg = &pg, .sl = &sl, .max_s = maxs, .stop = &sweep_stop };
	struct apenet_sweep_plan plan;
	if (apenet_sweep_plan(&sp, &so, &plan, &e)) {
		cli_restore_signals(saved);
		apenet_dev_close(&d);
		return cli_usage_error("sweep", "%s", e.msg);
	}
	double test_s;
	g.est_s = apenet_sweep_link_estimate_s(&sl, &plan, &test_s);
	if (g.est_s > maxs) {
		char a[24], b[24], m[24];
		cli_restore_signals(saved);
		apenet_dev_close(&d);
		return cli_usage_error("sweep",
				       "this sweep needs about %s (%s of test time a lane at %.0f Mb/s%s, %zu runs over %zu of "
				       "%llu points at %.3g bits a lane) and --max-time allows %s; shorten it with --params "
				       "or --range (fewer points) or --dwell-bits (shorter runs)%s, or allow it with "
				       "--max-time %.0f",
				       cli_progress_dur(g.est_s, a, sizeof(a)), cli_progress_dur(test_s, b, sizeof(b)),
				       (double)sl.lane_mbps, sl.accel > 1 ? " accelerated" : "", plan.measurements,
				       plan.points, (unsigned long long)apenet_sweep_space_size(&sp), lane_bits,
				       cli_progress_dur(maxs, m, sizeof(m)),
				       sl.accel > 1 ? "" : "; on the emulator, apenet-sim run --ber-accel K counts K times faster",
				       ceil(g.est_s * 1.5));
	}
	cli_progress_init(&pg, c, "apenet sweep", maxs);
	so.progress = cli_sweep_progress;
	so.progress_ctx = &g;
	struct apenet_sweep sw;
	int run = apenet_sweep_run(&sp, &so, apenet_sweep_link_measure, &sl, &sw, &e);
	cli_progress_end(&pg);
	int stopped = sweep_stop && !g.timed_out;
	sweep_stop = 0; /* what follows puts the link back: it must not stop half way */
	if (run && g.timed_out && sw.n) {
		/* --max-time: what was measured stands, its best is reported
		 * (inconclusive), nothing is applied */
		run = 0;
		apply = 0;
		sw.best = 0;
		for (size_t i = 1; i < sw.n; i++)
			if (sw.pt[i].bits && sw.pt[i].upper < sw.pt[sw.best].upper)
				sw.best = i;
	}
	struct apenet_err re = { 0 };
	int back = run == 0 && apply ? apenet_sweep_link_set(&sl, sw.pt[sw.best].v, &re)
				     : apenet_sweep_link_restore(&sl, &re);
	cli_restore_signals(saved);
	if (run || back) {
		if (run)
			cli_fail(&e);
		if (back)
			fprintf(stderr, "apenet sweep: putting the link back: %s\n", re.msg);
		apenet_sweep_free(&sw);
		apenet_dev_close(&d);
		return CLI_EXIT_ERROR;
	}
	char title[160];
	uint32_t me = apenet_rd32(&d, APENET_REG_NODE_COORD);
	snprintf(title, sizeof(title), "%s link %s (node %u,%u,%u): %s sweep", d.bdf, d.prof->links[l].name,
		 APENET_GET(NODE_COORD, X, me), APENET_GET(NODE_COORD, Y, me), APENET_GET(NODE_COORD, Z, me), strategy);
	if (outdir && write_files(outdir, &sw, &sp, title, &e)) {
		apenet_sweep_free(&sw);
		apenet_dev_close(&d);
		return cli_fail(&e);
	}
	const struct apenet_sweep_point *best = &sw.pt[sw.best], *start = NULL;
	char saved_to[APENET_PATH_MAX + 80] = "";
	if (save) {
		/* the transmitter's end and the receiver's: this end and the
		 * partner, by the direction swept */
		struct apenet_preset pr;
		memset(&pr, 0, sizeof(pr));
		snprintf(pr.name, sizeof(pr.name), "%s", save);
		pr.lanes = sl.lanes ? sl.lanes : (1u << sl.nlanes) - 1;
		memcpy(pr.v, best->v, sizeof(pr.v));
		uint32_t pt = apenet_rd32(&d, apenet_link_off(sl.link, APENET_LINK_PARTNER));
		unsigned near[3] = { APENET_GET(NODE_COORD, X, me), APENET_GET(NODE_COORD, Y, me),
				     APENET_GET(NODE_COORD, Z, me) };
		unsigned far[3] = { APENET_GET(LINK_PARTNER, X, pt), APENET_GET(LINK_PARTNER, Y, pt),
				    APENET_GET(LINK_PARTNER, Z, pt) };
		unsigned fport = APENET_GET(LINK_PARTNER, PORT, pt);
		const char *flink = fport < d.prof->nlinks ? d.prof->links[fport].name : "?";
		memcpy(pr.tx_node, sl.reverse ? near : far, sizeof(pr.tx_node));
		snprintf(pr.tx_link, sizeof(pr.tx_link), "%s", sl.reverse ? d.prof->links[l].name : flink);
		memcpy(pr.rx_node, sl.reverse ? far : near, sizeof(pr.rx_node));
		snprintf(pr.rx_link, sizeof(pr.rx_link), "%s", sl.reverse ? flink : d.prof->links[l].name);
		if (apenet_preset_write(presets, &pr, saved_to, sizeof(saved_to), &e)) {
			apenet_sweep_free(&sw);
			apenet_dev_close(&d);
			return cli_fail(&e);
		}
	}
	for (size_t i = 0; i < sw.n; i++)
		if (!memcmp(sw.pt[i].v, sl.orig[0], APENET_SWEEP_NPARAM) && sw.pt[i].bits)
			start = &sw.pt[i];
	if (c->fmt == APENET_OUT_TEXT && ha >= 0 && hb >= 0)
		apenet_sweep_write_heatmap_text(&sw, &sp, (unsigned)ha, (unsigned)hb, stdout);

	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "sweep");
	apenet_out_str(o, "bdf", d.bdf);
	apenet_out_str(o, "link", d.prof->links[l].name);
	apenet_out_str(o, "strategy", strategy);
	apenet_out_str(o, "direction", sl.reverse ? "out" : "in");
	apenet_out_str(o, "pattern", cli_pattern_name(pat));
	apenet_out_dbl(o, "target", tg, 3);
	apenet_out_dbl(o, "cl", so.cl, 6);
	apenet_out_uint(o, "lanes", nl);
	apenet_out_uint(o, "grid_points", apenet_sweep_space_size(&sp));
	apenet_out_uint(o, "points_measured", sw.n);
	apenet_out_uint(o, "points_dropped", sl.dropped);
	apenet_out_uint(o, "dwell_bits", so.dwell_bits);
	apenet_out_uint(o, "bits", sw.bits);
	apenet_out_dbl(o, "test_time_s", (double)sw.bits / nl / (sl.lane_mbps * 1e6), 1);
	apenet_out_uint(o, "accelerated", sl.accel);
	apenet_out_dbl(o, "elapsed_s", cli_progress_elapsed(&pg), 1);
	apenet_out_dbl(o, "estimate_s", g.est_s, 1);
	if (start)
		out_point(o, "start", start);
	out_point(o, "chosen", best);
	apenet_out_str(o, "applied", apply ? "yes" : "no: the link is back at its settings");
	if (outdir)
		apenet_out_str(o, "out", outdir);
	if (saved_to[0])
		apenet_out_str(o, "saved", saved_to);
	struct apenet_sweep_result res = { .target = tg, .cl = so.cl, .best_upper = best->upper, .points = sw.n,
					   .timed_out = g.timed_out, .max_s = maxs };
	enum apenet_ber_verdict verdict = apenet_rules_sweep(&res, l, d.prof->links[l].name, &fs);
	apenet_out_str(o, "verdict", apenet_rules_ber_verdict_word(verdict));
	rc = cli_finish(o, &fs);
	apenet_findings_free(&fs);
	apenet_sweep_free(&sw);
	apenet_dev_close(&d);
	if (stopped)
		return CLI_EXIT_ERROR;
	return rc == CLI_EXIT_ERROR		? rc
	       : verdict == APENET_BER_PASS ? CLI_EXIT_OK
	       : verdict == APENET_BER_FAIL ? CLI_EXIT_FAULT
					    : CLI_EXIT_INCONCLUSIVE;
}
