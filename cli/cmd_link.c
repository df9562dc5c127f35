/* apenet link [LINK]: per link and per lane, state, partner, rates from
 * counter deltas over the interval, errors, FIFOs, bandwidth against the
 * efficiency model, and a verdict with a recommendation: the findings the
 * judging session holds (apenet/judge.h), as the agent would hold them for
 * the same samples. */
#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/judge.h"
#include "apenet/verdict.h"
#include "apenet/view.h"
#include "cli.h"

int cmd_link(struct cli *c)
{
	const char *from = NULL, *interval = NULL, *config = NULL;
	const struct cli_opt opts[] = { { "--from", &from, NULL }, { "--interval", &interval, NULL },
					{ "--config", &config, NULL }, { "--at", &c->at, NULL }, { NULL, NULL, NULL } };
	const char *pos[1] = { NULL };
	int npos, only = -1;
	double iv = 1.0;
	static struct apenet_view v;
	struct apenet_config cfg;
	if (cli_parse(c, "link", opts, pos, 1, &npos) ||
	    (interval && cli_number("link", "--interval", interval, 0, 3600, &iv)))
		return CLI_EXIT_ERROR;
	struct apenet_judge j;
	int rc = cli_judge_open("link", config, &cfg, &j);
	if (rc)
		return rc;
	if ((rc = cli_judged_view(c, from, iv, 0, &j, &v))) {
		apenet_judge_free(&j);
		apenet_config_free(&cfg);
		return rc;
	}
	if (pos[0] && (only = cli_link_index(v.prof, pos[0])) < 0) {
		char names[128] = "";
		size_t n = 0;
		for (unsigned l = 0; l < v.prof->nlinks; l++)
			n += (size_t)snprintf(names + n, sizeof(names) - n, " %s", v.prof->links[l].name);
		apenet_judge_free(&j);
		apenet_config_free(&cfg);
		return cli_usage_error("link", "no link '%s' on a %s (links:%s)", pos[0], v.prof->name, names);
	}
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "link");
	/* people and spreadsheets get one row per link unless they name one;
	 * JSON always carries everything */
	int summary = only < 0 && c->fmt != APENET_OUT_JSON;
	apenet_out_str(o, "bdf", v.bdf);
	apenet_out_str(o, "variant", v.prof->name);
	cli_out_coord(o, "node", (uint32_t)v.s1.g.NODE_COORD);
	cli_out_replay(o, &v);
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < v.prof->nlinks; l++) {
		if (only >= 0 && (unsigned)only != l)
			continue;
		struct apenet_link_stats st;
		apenet_link_stats(&v, l, &st);
		/* the link's and its lanes' findings, in the judge's order */
		for (size_t i = 0; i < j.held.n; i++) {
			const struct apenet_finding *f = &j.held.f[i];
			if (f->link == (int)l && (f->subject == APENET_SUBJ_LINK || f->subject == APENET_SUBJ_LANE))
				*apenet_finding_add(&fs, f->sev, f->subject, f->link, f->lane, f->where, f->code) = *f;
		}
		if (summary)
			cli_out_link_row(o, &v, l, &st, &fs, &cfg);
		else
			cli_out_link(o, &v, l, &st, &fs, &cfg);
	}
	apenet_out_arr_end(o);
	rc = cli_finish(o, &fs);
	apenet_findings_free(&fs);
	apenet_judge_free(&j);
	apenet_config_free(&cfg);
	return rc;
}
