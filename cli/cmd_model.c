/* apenet model: the link efficiency model of SPEC §2 on its own, for one
 * link or (--table) for the FIFO depths and rates of the TWEPP 2013 paper. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/linkmodel.h"
#include "apenet/finding.h"
#include "cli.h"

#define USAGE                                                                                             \
	"usage: apenet model --fifo-depth DEPTH --link-gbps RATE [--lanes N] [--encoding 8b10b|64b66b] " \
	"[--credit-period C] | apenet model --table [--lanes N] [--encoding E] [--credit-period C]"

static void out_inputs(struct apenet_out *o, const struct apenet_linkmodel *m)
{
	apenet_out_uint(o, "lanes", m->lanes);
	apenet_out_dbl(o, "code_rate", m->code_rate, 4);
	apenet_out_uint(o, "s_max_bytes", APENET_S_MAX_BYTES);
	apenet_out_uint(o, "p_bytes", APENET_P_BYTES);
	apenet_out_uint(o, "credit_period_c", m->c);
	apenet_out_uint(o, "wait_w", APENET_WAIT_W);
}

/* A model judges no board: its findings list is empty, and there. */
static int finish(struct apenet_out *o)
{
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	return cli_finish(o, &fs);
}

/* The paper's table: RX FIFO depths of 512..4096 entries at 28 and 34 Gbps. */
static int table(struct cli *c, struct apenet_linkmodel m)
{
	static const unsigned depths[] = { 512, 1024, 2048, 4096 };
	static const double gbps[] = { 28, 34 };
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "model");
	apenet_out_obj_begin(o, "inputs");
	out_inputs(o, &m);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "table");
	for (unsigned g = 0; g < sizeof(gbps) / sizeof(gbps[0]); g++)
		for (unsigned i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
			m.fifo_bytes = (double)depths[i] * APENET_WORD_BYTES;
			m.lane_mbps = gbps[g] * 1000 / m.lanes;
			if (apenet_linkmodel_eval(&m)) {
				apenet_out_discard(o);
				return cli_usage_error("model", "these inputs make no link");
			}
			apenet_out_obj_begin(o, NULL);
			apenet_out_uint(o, "fifo_depth_entries", depths[i]);
			apenet_out_strf(o, "fifo_depth", "%u KiB", depths[i] * APENET_WORD_BYTES / 1024);
			apenet_out_dbl(o, "link_gbps", gbps[g], 0);
			apenet_out_dbl(o, "E1", m.e1, 4);
			apenet_out_dbl(o, "E2", m.e2, 4);
			apenet_out_dbl(o, "E3", m.e3, 4);
			apenet_out_dbl(o, "E_T", m.et, 4);
			apenet_out_dbl(o, "max_payload_MBps", m.max_MBps, 1);
			apenet_out_obj_end(o);
		}
	apenet_out_arr_end(o);
	return finish(o);
}

int cmd_model(struct cli *c)
{
	const char *fifo = NULL, *gbps = NULL, *lanes = NULL, *code = NULL, *cp = NULL;
	int tab = 0;
	const struct cli_opt opts[] = { { "--fifo-depth", &fifo, NULL }, { "--link-gbps", &gbps, NULL },
					{ "--lanes", &lanes, NULL },	  { "--encoding", &code, NULL },
					{ "--credit-period", &cp, NULL }, { "--table", NULL, &tab },
					{ NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double rate, nl = 4, cpv = APENET_CREDIT_C;
	char err[256];
	struct apenet_linkmodel m = { .code_rate = 0.8 };
	if (cli_parse(c, "model", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	if (tab ? fifo || gbps : !fifo || !gbps)
		return cli_usage_error("model", tab ? "--table shows its own depths and rates: leave out --fifo-depth and --link-gbps; " USAGE : USAGE);
	if ((lanes && cli_number("model", "--lanes", lanes, 1, 64, &nl)) ||
	    (cp && cli_number("model", "--credit-period", cp, 1, 100000, &cpv)))
		return CLI_EXIT_ERROR;
	if (code && !strcmp(code, "64b66b"))
		m.code_rate = 64.0 / 66;
	else if (code && strcmp(code, "8b10b"))
		return cli_usage_error("model", "--encoding '%s' is not 8b10b or 64b66b", code);
	m.lanes = (unsigned)nl;
	m.c = (unsigned)cpv;
	if (tab)
		return table(c, m);

	if (apenet_linkmodel_parse_depth(fifo, &m.fifo_bytes, err, sizeof(err)))
		return cli_usage_error("model", "--fifo-depth %s", err);
	if (m.fifo_bytes <= APENET_S_MAX_BYTES)
		return cli_usage_error("model", "--fifo-depth %s is %.0f entries (%.0f bytes): must be larger than S_MAX (%u entries, %u bytes)",
				       fifo, m.fifo_bytes / APENET_WORD_BYTES, m.fifo_bytes,
				       APENET_S_MAX_BYTES / APENET_WORD_BYTES, APENET_S_MAX_BYTES);
	if (cli_number("model", "--link-gbps", gbps, 0.001, 10000, &rate))
		return CLI_EXIT_ERROR;
	m.lane_mbps = rate * 1000 / m.lanes; /* --link-gbps is the raw rate of the whole link */
	if (apenet_linkmodel_eval(&m))
		return cli_usage_error("model", "these inputs make no link");
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "model");
	apenet_out_obj_begin(o, "inputs");
	apenet_out_dbl(o, "fifo_depth_entries", m.fifo_bytes / APENET_WORD_BYTES, 0);
	apenet_out_dbl(o, "fifo_depth_bytes", m.fifo_bytes, 0);
	apenet_out_dbl(o, "link_gbps", rate, 3);
	out_inputs(o, &m);
	apenet_out_obj_end(o);
	apenet_out_dbl(o, "t_red_cycles", m.t_red_cycles, 1);
	apenet_out_dbl(o, "x_cycles", m.x_cycles, 0);
	apenet_out_dbl(o, "E1", m.e1, 4);
	apenet_out_dbl(o, "E2", m.e2, 4);
	apenet_out_dbl(o, "E3", m.e3, 4);
	apenet_out_dbl(o, "E_T", m.et, 4);
	apenet_out_dbl(o, "raw_payload_MBps", m.raw_MBps, 1);
	apenet_out_dbl(o, "max_payload_MBps", m.max_MBps, 1);
	return finish(o);
}
