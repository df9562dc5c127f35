/* apenet snapshot: everything the other commands read, as one JSON document,
 * so any of them can be replayed offline with --from FILE. */
#include <stdio.h>

#include "apenet/view.h"
#include "cli.h"

int cmd_snapshot(struct cli *c)
{
	const char *interval = NULL;
	const struct cli_opt opts[] = { { "--interval", &interval, NULL }, { NULL, NULL, NULL } };
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
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, stdout, "snapshot");
	apenet_view_write(&v, o);
	return apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
