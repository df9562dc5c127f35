/* Operator actions through the card's command region: realign a link,
 * clear counters.  The firmware acknowledges each one (CMD_DONE_SEQ); a card
 * that does not is reported (a hung DNP), never assumed done. */
#include <stdio.h>

#include "apenet/finding.h"
#include "cli.h"

static int action(struct cli *c, const char *cmd, uint32_t code, int need_link)
{
	const char *pos[1] = { NULL };
	int npos;
	struct apenet_site site;
	struct apenet_dev d;
	struct apenet_err e = { 0 };
	if (cli_parse(c, cmd, NULL, pos, 1, &npos))
		return CLI_EXIT_ERROR;
	if (need_link && !pos[0])
		return cli_usage_error(cmd, "which link? (e.g. apenet %s X+)", cmd);
	int rc = cli_open(c, &d, &site);
	if (rc)
		return rc;
	int l = -1;
	if (pos[0] && (l = cli_link_index(d.prof, pos[0])) < 0) {
		apenet_dev_close(&d);
		return cli_usage_error(cmd, "no link '%s' on a %s", pos[0], d.prof->name);
	}
	uint32_t arg = code == APENET_CMD_REALIGN ? (uint32_t)l : l >= 0 ? 1u << l : APENET_ALL_ONES;
	rc = apenet_dev_command(&d, code, arg, 5000, &e) ? cli_fail(&e) : CLI_EXIT_OK;
	if (rc == CLI_EXIT_OK) {
		struct apenet_out *o = apenet_out_new(c->fmt, stdout, cmd);
		apenet_out_str(o, "bdf", d.bdf);
		apenet_out_str(o, "link", l >= 0 ? d.prof->links[l].name : "all");
		apenet_out_str(o, "done", code == APENET_CMD_REALIGN ? "bring-up restarted" : "counters cleared");
		struct apenet_findings fs; /* a command that judges nothing says so: an empty list */
		apenet_findings_init(&fs);
		apenet_findings_write(o, &fs);
		rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	}
	apenet_dev_close(&d);
	return rc;
}

int cmd_realign(struct cli *c)
{
	return action(c, "realign", APENET_CMD_REALIGN, 1);
}

int cmd_clear_counters(struct cli *c)
{
	return action(c, "clear-counters", APENET_CMD_CLEAR_COUNTERS, 0);
}
