/* apenet model: the link efficiency model of SPEC §2 on its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/linkmodel.h"
#include "apenet/finding.h"
#include "cli.h"

/* "16384", "16K", "16KB", "16KiB" -> bytes */
static int parse_bytes(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v <= 0)
		return -1;
	if (!strcasecmp(end, "k") || !strcasecmp(end, "kb") || !strcasecmp(end, "kib"))
		v *= 1024;
	else if (*end)
		return -1;
	*out = v;
	return 0;
}

int cmd_model(struct cli *c)
{
	const char *fifo = NULL, *gbps = NULL, *lanes = NULL, *code = NULL, *cp = NULL;
	const struct cli_opt opts[] = { { "--fifo-depth", &fifo, NULL }, { "--link-gbps", &gbps, NULL },
					{ "--lanes", &lanes, NULL }, { "--encoding", &code, NULL },
					{ "--credit-period", &cp, NULL }, { NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double rate, nl = 4, cpv = APENET_CREDIT_C;
	struct apenet_linkmodel m = { .code_rate = 0.8 };
	if (cli_parse(c, "model", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (!fifo || !gbps)
		return cli_usage_error("model", "usage: apenet model --fifo-depth BYTES --link-gbps RATE [--lanes N] "
						"[--encoding 8b10b|64b66b] [--credit-period C]");
	if (parse_bytes(fifo, &m.fifo_bytes))
		return cli_usage_error("model", "--fifo-depth '%s' is not a size in bytes (e.g. 16384 or 16K)", fifo);
	if (m.fifo_bytes <= APENET_S_MAX_BYTES)
		return cli_usage_error("model", "--fifo-depth %.0f bytes: must be larger than S_MAX (%u bytes)",
				       m.fifo_bytes, APENET_S_MAX_BYTES);
	if (cli_number("model", "--link-gbps", gbps, 0.001, 10000, &rate) ||
	    (lanes && cli_number("model", "--lanes", lanes, 1, 64, &nl)) ||
	    (cp && cli_number("model", "--credit-period", cp, 1, 100000, &cpv)))
		return CLI_EXIT_ERROR;
	if (code && !strcmp(code, "64b66b"))
		m.code_rate = 64.0 / 66;
	else if (code && strcmp(code, "8b10b"))
		return cli_usage_error("model", "--encoding '%s' is not 8b10b or 64b66b", code);
	m.lanes = (unsigned)nl;
	m.lane_mbps = rate * 1000 / m.lanes; /* --link-gbps is the raw rate of the whole link */
	m.c = (unsigned)cpv;
	if (apenet_linkmodel_eval(&m))
		return cli_usage_error("model", "these inputs make no link");
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "model");
	apenet_out_obj_begin(o, "inputs");
	apenet_out_dbl(o, "fifo_depth_bytes", m.fifo_bytes, 0);
	apenet_out_dbl(o, "link_gbps", rate, 3);
	apenet_out_uint(o, "lanes", m.lanes);
	apenet_out_dbl(o, "code_rate", m.code_rate, 4);
	apenet_out_uint(o, "s_max_bytes", APENET_S_MAX_BYTES);
	apenet_out_uint(o, "p_bytes", APENET_P_BYTES);
	apenet_out_uint(o, "credit_period_c", m.c);
	apenet_out_uint(o, "wait_w", APENET_WAIT_W);
	apenet_out_obj_end(o);
	apenet_out_dbl(o, "t_red_cycles", m.t_red_cycles, 1);
	apenet_out_dbl(o, "x_cycles", m.x_cycles, 0);
	apenet_out_dbl(o, "E1", m.e1, 4);
	apenet_out_dbl(o, "E2", m.e2, 4);
	apenet_out_dbl(o, "E3", m.e3, 4);
	apenet_out_dbl(o, "E_T", m.et, 4);
	apenet_out_dbl(o, "raw_payload_MBps", m.raw_MBps, 1);
	apenet_out_dbl(o, "max_payload_MBps", m.max_MBps, 1);
	struct apenet_findings fs; /* a model judges no board: an empty list */
	apenet_findings_init(&fs);
	apenet_findings_write(o, &fs);
	return apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
