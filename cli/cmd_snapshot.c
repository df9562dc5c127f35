/* apenet snapshot: everything the other commands read, as one JSON document,
 * so any of them can be replayed offline with --from FILE. */
#include <stdio.h>

#include "apenet/config.h"
#include "apenet/snapfile.h"
#include "apenet/verdict.h"
#include "cli.h"

int cmd_snapshot(struct cli *c)
{
	const char *interval = NULL, *config = NULL;
	const struct cli_opt opts[] = { { "--interval", &interval, NULL }, { "--config", &config, NULL },
					{ NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double iv = 1.0;
	static struct apenet_view v;
	if (cli_parse(c, "snapshot", opts, pos, 0, &npos) ||
	    (interval && cli_number("snapshot", "--interval", interval, 0, 3600, &iv)))
		return CLI_EXIT_ERROR;
	if (c->fmt == APENET_OUT_CSV)
		return cli_usage_error("snapshot", "a snapshot is a JSON document; --csv does not apply");
	int rc = cli_view(c, NULL, iv, 1, &v);
	if (rc)
		return rc;
	struct apenet_config cfg;
	struct apenet_findings fs;
	if ((rc = cli_config("snapshot", config, &cfg)))
		return rc;
	apenet_findings_init(&fs);
	apenet_rules_pair(&v, &cfg, NULL, &fs);
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, stdout, "snapshot");
	apenet_snapfile_write(&v, o);
	/* the decoded links, in the shape `link` and `status` write: the raw
	 * samples above are what --from replays */
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < v.prof->nlinks; l++) {
		struct apenet_link_stats st;
		apenet_link_stats(&v, l, &st);
		cli_out_link(o, &v, l, &st, &fs, &cfg);
	}
	apenet_out_arr_end(o);
	apenet_findings_write(o, &fs);
	/* a snapshot is a recording, not a verdict: it exits 0 whatever it holds */
	rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	apenet_findings_free(&fs);
	apenet_config_free(&cfg);
	return rc;
}
