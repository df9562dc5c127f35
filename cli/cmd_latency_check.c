/* apenet latency-check: realign a link N times and count the latencies it
 * measured (LINK_LATENCY_PS); deterministic (one value) passes, judged by
 * lofamo/rules_latency.c.  KM3link and APElink carry timing: a latency that
 * changes from one alignment to the next breaks it.  Exit 0 pass, 1 fail,
 * 2 could not run. */
#include <stdio.h>
#include <stdlib.h>

#include "apenet/finding.h"
#include "apenet/latency.h"
#include "apenet/rules_test.h"
#include "cli.h"

#define USAGE "usage: apenet latency-check --link L [--resets N] [--timeout-ms MS]"

int cmd_latency_check(struct cli *c)
{
	const char *link = NULL, *resets = NULL, *tmo = NULL;
	const struct cli_opt opts[] = { { "--link", &link, NULL },
					{ "--resets", &resets, NULL },
					{ "--timeout-ms", &tmo, NULL },
					{ NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double n = 20, timeout = 5000;
	if (cli_parse(c, "latency-check", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (!link)
		return cli_usage_error("latency-check", "which link? --link L (e.g. --link X+)\n" USAGE);
	if ((resets && cli_number("latency-check", "--resets", resets, 1, 100000, &n)) ||
	    (tmo && cli_number("latency-check", "--timeout-ms", tmo, 10, 600000, &timeout)))
		return CLI_EXIT_ERROR;
	struct apenet_dev d;
	struct apenet_err e = { 0 };
	int l, rc = cli_open_link(c, "latency-check", link, &d, &l);
	if (rc)
		return rc;
	size_t want = (size_t)n, got = 0;
	uint32_t *ps = calloc(want, sizeof(*ps)), *val = calloc(want, sizeof(*val));
	unsigned *cnt = calloc(want, sizeof(*cnt));
	if (!ps || !val || !cnt) {
		free(ps), free(val), free(cnt);
		apenet_dev_close(&d);
		apenet_err_set(&e, APENET_EIO, "out of memory");
		return cli_fail(&e);
	}
	struct cli_progress pg;
	cli_progress_init(&pg, c, "apenet latency-check", 0);
	for (; got < want; got++) {
		double el = cli_progress_elapsed(&pg);
		cli_progress_show(&pg, (double)got / (double)want, got ? el / (double)got * (double)(want - got) : -1,
				  "%zu of %zu realignments", got, want);
		if (apenet_latency_realign(&d, (unsigned)l, (int)timeout, &ps[got], &e))
			break;
	}
	cli_progress_end(&pg);
	if (got < want) {
		/* nothing judged on part of a run: say how far it got */
		fprintf(stderr, "apenet: latency-check: after %zu of %zu resets: ", got, want);
		rc = cli_fail(&e);
		free(ps), free(val), free(cnt);
		apenet_dev_close(&d);
		return rc;
	}
	size_t k = apenet_latency_hist(ps, got, val, cnt);
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	enum apenet_ber_verdict verdict = apenet_rules_latency(val, k, got, l, d.prof->links[l].name, &fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "latency-check");
	apenet_out_str(o, "bdf", d.bdf);
	apenet_out_str(o, "link", d.prof->links[l].name);
	apenet_out_uint(o, "resets", got);
	apenet_out_arr_begin(o, "histogram");
	for (size_t i = 0; i < k; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_uint(o, "latency_ps", val[i]);
		apenet_out_uint(o, "count", cnt[i]);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_uint(o, "distinct", k);
	apenet_out_uint(o, "spread_ps", k ? val[k - 1] - val[0] : 0);
	apenet_out_str(o, "verdict", apenet_rules_ber_verdict_word(verdict));
	rc = cli_finish(o, &fs); /* 1 with the failure */
	apenet_findings_free(&fs);
	free(ps), free(val), free(cnt);
	apenet_dev_close(&d);
	return rc;
}
