/* apenet: the command-line entry point.  Common options may stand before or
 * after the command; everything else goes to the command. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const struct cli_cmd cmds[] = {
	{ "list", "apenet list [--json|--csv]",
	  "every APEnet card: BDF, variant, firmware, node, PCIe trained vs capable", 0, cmd_list },
	{ "regs", "apenet regs [--json|--csv] [--dev BDF]",
	  "a named dump of every register of a card", 0, cmd_regs },
	{ "status", "apenet status [--interval S] [--from FILE [--at TIME]] [--config FILE]",
	  "identity, sensors, watchdog, LDMs sent and received, one verdict", 16, cmd_status },
	{ "link", "apenet link [LINK] [--interval S] [--from FILE [--at TIME]] [--config FILE]",
	  "per link and lane: state, partner, rates, errors, FIFOs, bandwidth, verdict", 16, cmd_link },
	{ "model", "apenet model --fifo-depth ENTRIES|SIZE --link-gbps RATE [--lanes N] [--encoding E] | apenet model --table",
	  "the link efficiency model: E1, E2, E3, E_T, maximum payload bandwidth", 16, cmd_model },
	{ "ber", "apenet ber --link L [--lanes 0,1,2,3] [--pattern prbs7|prbs15|prbs23|prbs31] [--target B --cl C | --bits N | --duration S] [--both-ends] [--max-time S]",
	  "PRBS bit error rate test of a link's lanes, both ends from this host: early PASS/FAIL with honest bounds", 32,
	  cmd_ber },
	{ "sweep", "apenet sweep --link L [--params P,...] [--range P=a:b[:step]]... [--strategy exhaustive|adaptive] [--dwell S | --dwell-bits N] [--target B] [--out DIR] [--apply]",
	  "search a link's PMA settings (far transmitter, this receiver) for the lowest BER: CSV, heat maps", 64,
	  cmd_sweep },
	{ "qualify", "apenet qualify (--link L | --all) [--target B] [--cl C] [--db FILE] [--no-sweep] [--dwell-bits N] [--max-time S]",
	  "certify a link's cable, both directions (sweeping when its settings fail): a certificate in the health database",
	  32, cmd_qualify },
	{ "cable", "apenet cable SERIAL [--db FILE] [--config FILE]",
	  "a cable's history from the health database: certificates, the links it was seen on, their faults", 16,
	  cmd_cable },
	{ "ber-plan", "apenet ber-plan --target BER --cl C --gbps RATE [--lanes N] [--errors E]",
	  "bits and time to certify a BER at a confidence, per lane and lanes pooled (no card needed)", 16,
	  cmd_ber_plan },
	{ "module", "apenet module [PORT] [--from FILE] | apenet module --eeprom-file FILE",
	  "QSFP+ and SFP+ module EEPROMs decoded (SFF-8636, SFF-8472): monitors, findings", 16, cmd_module },
	{ "snapshot", "apenet snapshot [--interval S]",
	  "everything the other commands read, as JSON (replay with --from FILE)", 16, cmd_snapshot },
	{ "cabling", "apenet cabling [--config FILE] (--sim-cluster DIR | SNAPSHOT.json...)",
	  "observed cabling against the torus (the boards' or the config's): a punch list", 32768, cmd_cabling },
	{ "config", "apenet config check [FILE]",
	  "validate a config and show the effective settings, defaults merged", 16, cmd_config },
	{ "realign", "apenet realign LINK", "restart a link's bring-up (after a repair)", 16, cmd_realign },
	{ "latency-check", "apenet latency-check --link L [--resets N] [--timeout-ms MS]",
	  "realign a link N times: one latency every time (deterministic) passes", 16, cmd_latency_check },
	{ "clear-counters", "apenet clear-counters [LINK]",
	  "clear a link's counters, or all (rates never need it)", 16, cmd_clear_counters },
	{ "watch", "apenet watch [--interval S] [--count N]",
	  "live rates per link every interval, until interrupted", 16, cmd_watch },
	{ "agent-status", "apenet agent-status [--socket PATH] [--config FILE]",
	  "ask the running node agent: watchdog, LDM_HOST, neighbours, black box, transitions", 16, cmd_agent_status },
	{ "health", "apenet health [--db FILE]... [--node X,Y,Z] [--incidents] [--all] [--since T] [--until T] [--verbose] [--silence S] [--config FILE]",
	  "the cluster from the supervisors' health databases: summary, incidents, worst nodes; both databases compared",
	  32, cmd_health },
	{ "db", "apenet db check|vacuum|export|retention [--db FILE] [--since T] [--until T] [--older-than-days D]",
	  "the health database: integrity and invariants, vacuum, a window as JSON lines, retention now", 16, cmd_db },
	{ "report",
	  "apenet report [--db FILE] (--incident ID | --since T [--until T]) [--node X,Y,Z] [--blackbox DIR]... "
	  "[--format text|json|html] [-o FILE] [--max-events N]",
	  "post-mortem: first fault, propagation, black-box trends, cables, what to replace", 48, cmd_report },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	fputs("usage: apenet [--sim DIR] [--dev BDF] [--json|--csv] COMMAND [ARGS]\n\n"
	      "Diagnostics for APEnet+ family cards (APEnet+, APEnet v5, NaNet).\n\ncommands:\n", f);
	for (unsigned i = 0; i < NCMDS; i++)
		fprintf(f, "  %-14s %s\n", cmds[i].name, cmds[i].help);
	fputs("\noptions:\n"
	      "  --sim DIR   use the emulated board in node directory DIR (also $APENET_SIM_DIR)\n"
	      "  --dev BDF   the card to use when there are several (e.g. 0000:03:00.0)\n"
	      "  --json      JSON output (schema " APENET_JSON_SCHEMA ", docs/json.md)\n"
	      "  --csv       CSV output of the tables\n"
	      "\nexit status: 0 healthy, 1 a fault or threshold was found, 2 the command could not run\n",
	      f);
}

int cli_fail(const struct apenet_err *e)
{
	fprintf(stderr, "apenet: %s\n", e->msg);
	return CLI_EXIT_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "apenet %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see apenet --help)\n", stderr);
	return CLI_EXIT_ERROR;
}

int cli_open(struct cli *c, struct apenet_dev *d, struct apenet_site *site)
{
	struct apenet_err e = { 0 };
	if (apenet_site_init(site, c->sim, &e) || apenet_dev_open(d, site, c->bdf, &e))
		return cli_fail(&e);
	return 0;
}

void cli_out_time(struct apenet_out *o, const char *key, int64_t ms)
{
	if (ms <= 0) {
		apenet_out_null(o, key);
		return;
	}
	char buf[40];
	apenet_out_str(o, key, apenet_out_iso_ms(ms, buf, sizeof(buf)));
}

void cli_out_xyz(struct apenet_out *o, const char *key, const unsigned xyz[3])
{
	char t[32];
	snprintf(t, sizeof(t), "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
	apenet_out_obj_begin_text(o, key, t);
	apenet_out_uint(o, "x", xyz[0]);
	apenet_out_uint(o, "y", xyz[1]);
	apenet_out_uint(o, "z", xyz[2]);
	apenet_out_obj_end(o);
}

void cli_out_coord(struct apenet_out *o, const char *key, uint32_t coord)
{
	unsigned xyz[3] = { APENET_GET(NODE_COORD, X, coord), APENET_GET(NODE_COORD, Y, coord),
			    APENET_GET(NODE_COORD, Z, coord) };
	cli_out_xyz(o, key, xyz);
}

static int take_value(int argc, char **argv, int *i, const char **val)
{
	const char *a = argv[*i];
	const char *eq = strchr(a, '=');
	if (eq) {
		*val = eq + 1;
		return 0;
	}
	if (*i + 1 >= argc)
		return -1;
	*val = argv[++*i];
	return 0;
}

int main(int argc, char **argv)
{
	struct cli c = { .fmt = APENET_OUT_TEXT };
	char **rest = calloc((size_t)argc + 1, sizeof(char *));
	int nrest = 0;
	const char *cmdname = NULL;
	if (!rest)
		return CLI_EXIT_ERROR;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			free(rest);
			return 0;
		} else if (!strcmp(a, "--json")) {
			c.fmt = APENET_OUT_JSON;
		} else if (!strcmp(a, "--csv")) {
			c.fmt = APENET_OUT_CSV;
		} else if (!strncmp(a, "--sim", 5) && (a[5] == 0 || a[5] == '=')) {
			if (take_value(argc, argv, &i, &c.sim)) {
				free(rest);
				return cli_usage_error(cmdname ? cmdname : "", "--sim needs a node directory");
			}
		} else if (!strncmp(a, "--dev", 5) && (a[5] == 0 || a[5] == '=')) {
			if (take_value(argc, argv, &i, &c.bdf)) {
				free(rest);
				return cli_usage_error(cmdname ? cmdname : "", "--dev needs a BDF");
			}
		} else if (!cmdname && a[0] != '-') {
			cmdname = a;
		} else {
			rest[nrest++] = argv[i];
		}
	}
	if (!cmdname) {
		usage(stderr);
		free(rest);
		return CLI_EXIT_ERROR;
	}
	for (unsigned i = 0; i < NCMDS; i++) {
		if (strcmp(cmds[i].name, cmdname))
			continue;
		c.argc = nrest;
		c.argv = rest;
		if (nrest > cmds[i].max_args) {
			int r = cli_usage_error(cmdname, "unexpected argument '%s'; usage: %s", rest[0], cmds[i].usage);
			free(rest);
			return r;
		}
		int r = cmds[i].run(&c);
		free(rest);
		return r;
	}
	fprintf(stderr, "apenet: unknown command '%s' (see apenet --help)\n", cmdname);
	free(rest);
	return CLI_EXIT_ERROR;
}
