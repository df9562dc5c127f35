/* apenet: the command-line entry point.  Common options may stand before or
 * after the command; everything else goes to the command. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet_version.h"
#include "cli.h"

/* A command's help is data in this one table: the synopsis (usage), a line
 * for the list (help), its own options with a line each (opts), its exit
 * codes (exits) and one example; `apenet COMMAND --help` prints them and
 * tests/e2e/help.sh holds each option to what the command accepts. */
#define DOC(...) ((const struct cli_doc[]){ __VA_ARGS__, { NULL, NULL } })

/* The exit codes most commands share (cli_finish). */
static const struct cli_doc exit_verdict[] = {
	{ "0", "healthy: no finding" },
	{ "1", "a warning or a failure was found (the findings say which)" },
	{ "2", "could not run: no card, a card not responding, bad arguments" },
	{ NULL, NULL },
};
/* Commands that judge nothing. */
static const struct cli_doc exit_done[] = {
	{ "0", "done" },
	{ "2", "could not run: bad arguments" },
	{ NULL, NULL },
};

static const struct cli_cmd cmds[] = {
	{ .name = "list", .usage = "apenet list [--json|--csv]",
	  .help = "every APEnet card: BDF, variant, firmware, node, PCIe trained vs capable", .max_args = 0,
	  .run = cmd_list, .exits = DOC({ "0", "every card found, each trained as it can" },
	  { "1", "a card's PCIe link trained below what it can do" },
	  { "2", "no card found, or a card does not respond" }),
	  .example = "apenet list --json" },
	{ .name = "regs", .usage = "apenet regs [--json|--csv] [--dev BDF]",
	  .help = "a named dump of every register of a card", .max_args = 0, .run = cmd_regs,
	  .exits = DOC({ "0", "dumped (the findings beside it do not change this)" },
		       { "2", "no card, or it left while being read" }),
	  .example = "apenet regs --dev 0000:03:00.0 --csv" },
	{ .name = "status",
	  .usage = "apenet status [--interval S] [--from FILE [--at TIME]] [--config FILE]",
	  .help = "identity, sensors, watchdog, LDMs sent and received, one verdict", .max_args = 16,
	  .run = cmd_status,
	  .opts = DOC({ "--interval S", "seconds between the two samples (default 0.5)" },
		      { "--from FILE", "replay a snapshot or black-box file instead of reading the card" },
		      { "--at TIME", "with --from: the sample (-S or -90s/-2m before the last, +S after the first, epoch ms, ISO)" },
		      { "--config FILE", "thresholds and cluster layout (else $APENET_CONFIG, the installed one)" }),
	  .exits = exit_verdict, .example = "apenet status --interval 2" },
	{ .name = "link", .usage = "apenet link [LINK] [--interval S] [--from FILE [--at TIME]] [--config FILE]",
	  .help = "per link and lane: state, partner, rates, errors, FIFOs, bandwidth, verdict", .max_args = 16,
	  .run = cmd_link,
	  .opts = DOC({ "LINK", "one link in full (X+, Y-, ... or its index); else a row per link" },
		      { "--interval S", "seconds the rates are measured over (default 1)" },
		      { "--from FILE", "replay a snapshot or black-box file instead of reading the card" },
		      { "--at TIME", "with --from: the sample (-S or -90s/-2m before the last, +S after the first, epoch ms, ISO)" },
		      { "--config FILE", "thresholds and cluster layout (else $APENET_CONFIG, the installed one)" }),
	  .exits = exit_verdict, .example = "apenet link Y+ --interval 5" },
	{ .name = "model",
	  .usage = "apenet model --fifo-depth DEPTH --link-gbps RATE [--lanes N] [--encoding E] [--credit-period C] "
		   "| apenet model --table [--lanes N] [--encoding E] [--credit-period C]",
	  .help = "the link efficiency model: E1, E2, E3, E_T, maximum payload bandwidth", .max_args = 16,
	  .run = cmd_model,
	  .opts = DOC({ "--fifo-depth DEPTH", "RX FIFO depth in 128-bit entries (512 = 8 KiB), or bytes: 8KiB, 16K" },
		      { "--link-gbps RATE", "the raw link rate in Gbps (lanes x lane rate)" },
		      { "--lanes N", "lanes of the link (default 4)" },
		      { "--encoding E", "8b10b (default) or 64b66b" },
		      { "--credit-period C", "cycles between credits (default 35)" },
		      { "--table", "the TWEPP 2013 paper's depths (512..4096 entries) at 28 and 34 Gbps" }),
	  .exits = exit_done, .example = "apenet model --fifo-depth 1024 --link-gbps 28" },
	{ .name = "ber",
	  .usage = "apenet ber --link L [--lanes 0,1,2,3] [--pattern prbs7|prbs15|prbs23|prbs31] "
		   "[--target B --cl C | --bits N | --duration S] [--both-ends] [--max-time S] [--loopback MODE]",
	  .help = "PRBS bit error rate test of a link's lanes, both ends from this host: early PASS/FAIL with honest bounds",
	  .max_args = 32, .run = cmd_ber,
	  .opts = DOC({ "--link L", "the link to test: X+, Y-, ... or its index" },
		      { "--lanes 0,1,2,3", "the lanes to test (default every lane)" },
		      { "--pattern P", "prbs7, prbs15, prbs23 or prbs31 (default)" },
		      { "--target B", "the BER to prove each lane below (default 1e-12)" },
		      { "--cl C", "the confidence of that proof, a fraction (default 0.95)" },
		      { "--bits N", "a test of fixed length instead: N bits a lane" },
		      { "--duration S", "a test of fixed length instead: S seconds" },
		      { "--both-ends", "also test this end -> far end (the far end's checkers)" },
		      { "--max-time S", "stop after S seconds; not proven by then: inconclusive" },
		      { "--loopback MODE", "refused: the APEnet+ family has no loopback mode (test across the cable)" }),
	  .exits = DOC({ "0", "pass: every lane proved below the target" },
		       { "1", "fail: a lane is above the target" },
		       { "2", "could not run, or interrupted (the link is back in traffic)" },
		       { "3", "inconclusive: the test did not run long enough to prove the target" }),
	  .example = "apenet ber --link X+ --both-ends --max-time 600" },
	{ .name = "sweep",
	  .usage = "apenet sweep --link L [--lanes 0,1,2,3] [--params P,...] [--range P=a:b[:step]]... "
		   "[--strategy exhaustive|adaptive] [--dwell S | --dwell-bits N] [--target B] [--cl C] "
		   "[--pattern P] [--direction in|out] [--heatmap P,Q] [--out DIR] [--apply] [--save NAME] "
		   "[--max-time S] [--config FILE] [--seed N]",
	  .help = "search a link's PMA settings (far transmitter, this receiver) for the lowest BER: CSV, heat maps",
	  .max_args = 64, .run = cmd_sweep,
	  .opts = DOC({ "--link L", "the link to sweep: X+, Y-, ... or its index" },
		      { "--lanes 0,1,2,3", "the lanes to measure (default every lane)" },
		      { "--params P,...", "what to sweep: vod, pre, post1, post2, rxeq, dcgain (default all)" },
		      { "--range P=a:b[:step]", "one parameter's values (repeatable; sweeps that parameter)" },
		      { "--strategy S", "adaptive (default: screen, climb, race) or exhaustive (every point)" },
		      { "--dwell S", "seconds of PRBS a point" },
		      { "--dwell-bits N", "bits a lane a point (default: the zero-error minimum for the target)" },
		      { "--target B", "the BER the chosen setting must prove (default 1e-12)" },
		      { "--cl C", "the confidence, a fraction (default 0.95)" },
		      { "--pattern P", "prbs7, prbs15, prbs23 or prbs31 (default)" },
		      { "--direction D", "in: far transmitter -> this receiver (default); out: the other way" },
		      { "--heatmap P,Q", "the two parameters of the text heat map" },
		      { "--out DIR", "write points.csv and an SVG heat map per pair of parameters" },
		      { "--apply", "leave the chosen setting on both ends (else the link goes back)" },
		      { "--save NAME", "keep the choice as PMA preset NAME for the node agents" },
		      { "--max-time S", "the longest it may take (default 3600); a longer sweep is refused before it starts" },
		      { "--config FILE", "the config (--save's agent.pma_presets_dir)" },
		      { "--seed N", "the adaptive search's random seed (default 1)" }),
	  .exits = DOC({ "0", "pass: the chosen setting proved below the target" },
		       { "1", "fail: no setting measured below the target" },
		       { "2", "could not run (also: it would take longer than --max-time), or interrupted" },
		       { "3", "inconclusive: --max-time ended it before a setting was proven (nothing applied)" }),
	  .example = "apenet sweep --link X+ --params rxeq,dcgain --out /tmp/sweep --apply" },
	{ .name = "qualify",
	  .usage = "apenet qualify (--link L | --all) [--target B] [--cl C] [--pattern P] [--db FILE] [--config FILE] "
		   "[--no-sweep] [--params P,...] [--range P=a:b[:step]]... [--dwell-bits N] [--max-time S]",
	  .help = "certify a link's cable, both directions (sweeping when its settings fail): a certificate in the health database",
	  .max_args = 32, .run = cmd_qualify,
	  .opts = DOC({ "--link L", "the link whose cable to certify: X+, Y-, ... or its index" },
		      { "--all", "every link with a torus partner" },
		      { "--target B", "the BER to certify (default 1e-12)" },
		      { "--cl C", "the confidence, a fraction (default 0.95)" },
		      { "--pattern P", "prbs7, prbs15, prbs23 or prbs31 (default)" },
		      { "--db FILE", "the health database for the certificate (default: the config's first)" },
		      { "--config FILE", "the config (its supervisor.db)" },
		      { "--no-sweep", "test the settings the link has; never sweep" },
		      { "--params P,...", "what a sweep may change: vod, pre, post1, post2, rxeq, dcgain" },
		      { "--range P=a:b[:step]", "one parameter's values in a sweep (repeatable)" },
		      { "--dwell-bits N", "bits a lane a sweep point" },
		      { "--max-time S", "the longest each BER test may run, and a sweep (default 3600 s: refused beyond)" }),
	  .exits = DOC({ "0", "pass: every link qualified" },
		       { "1", "fail: a link did not qualify (CABLE_NOT_QUALIFIED)" },
		       { "2", "could not run, or interrupted" },
		       { "3", "inconclusive: a test did not run long enough to prove the target (none failed; "
			      "the certificate says so)" }),
	  .example = "apenet qualify --link X+ --db /var/lib/apenet/health-1.db" },
	{ .name = "cable", .usage = "apenet cable SERIAL [--db FILE] [--config FILE]",
	  .help = "a cable's history from the health database: certificates, the links it was seen on, their faults",
	  .max_args = 16, .run = cmd_cable,
	  .opts = DOC({ "SERIAL", "the cable's serial number (its module EEPROM's: apenet module)" },
		      { "--db FILE", "the health database (default: the config's first supervisor's)" },
		      { "--config FILE", "the config (its supervisor.db)" }),
	  .exits = DOC({ "0", "the latest certificate passes" }, { "1", "it does not, or there is none" },
		       { "2", "an unknown cable, or no database" }),
	  .example = "apenet cable APC00100010 --db /var/lib/apenet/health-1.db" },
	{ .name = "ber-plan", .usage = "apenet ber-plan --target BER --cl C --gbps RATE [--lanes N] [--errors E]",
	  .help = "bits and time to certify a BER at a confidence, per lane and lanes pooled (no card needed)",
	  .max_args = 16, .run = cmd_ber_plan,
	  .opts = DOC({ "--target BER", "the BER to certify, e.g. 1e-12" },
		      { "--cl C", "the confidence, a fraction: 0.95, not 95" },
		      { "--gbps RATE", "the line rate of one lane, in Gbps" },
		      { "--lanes N", "lanes pooled into one claim (default 4)" },
		      { "--errors E", "only the row for E errors (default a table for 0..5)" }),
	  .exits = exit_done, .example = "apenet ber-plan --target 1e-12 --cl 0.95 --gbps 7" },
	{ .name = "module", .usage = "apenet module [PORT] [--from FILE] | apenet module --eeprom-file FILE",
	  .help = "QSFP+ and SFP+ module EEPROMs decoded (SFF-8636, SFF-8472): monitors, findings", .max_args = 16,
	  .run = cmd_module,
	  .opts = DOC({ "PORT", "one port (X+, ... or its index); else every port" },
		      { "--from FILE", "replay a snapshot file instead of reading the card" },
		      { "--eeprom-file FILE", "decode a raw dump (ethtool -m DEV raw on > FILE)" }),
	  .exits = DOC({ "0", "every module healthy" }, { "1", "a module's warning or alarm" },
		       { "2", "could not run: no card, a file that is no module image" }),
	  .example = "apenet module X+" },
	{ .name = "snapshot", .usage = "apenet snapshot [--interval S] [--config FILE]",
	  .help = "everything the other commands read, as JSON (replay with --from FILE)", .max_args = 16,
	  .run = cmd_snapshot,
	  .opts = DOC({ "--interval S", "seconds between the two register samples (default 1)" },
		      { "--config FILE", "the thresholds the decoded links are judged with" }),
	  .exits = DOC({ "0", "written (a snapshot is a recording, whatever it holds)" },
		       { "2", "could not run: no card, --csv" }),
	  .example = "apenet snapshot > n1.json" },
	{ .name = "cabling", .usage = "apenet cabling [--config FILE] (--sim-cluster DIR | SNAPSHOT.json...)",
	  .help = "observed cabling against the torus (the boards' or the config's): a punch list", .max_args = 32768,
	  .run = cmd_cabling,
	  .opts = DOC({ "--sim-cluster DIR", "every node of an emulated torus (apenet-sim run --dir DIR)" },
		      { "SNAPSHOT.json...", "or an apenet snapshot file from every node" },
		      { "--config FILE", "the expected torus: dims, wraparound, node names (else the boards')" }),
	  .exits = DOC({ "0", "cabled as the torus says" }, { "1", "the punch list is not empty" },
		       { "2", "could not run: a node unreadable, bad arguments" }),
	  .example = "apenet cabling --sim-cluster /tmp/quong" },
	{ .name = "config", .usage = "apenet config check [FILE] [--config FILE]",
	  .help = "validate a config and show the effective settings, defaults merged", .max_args = 16,
	  .run = cmd_config,
	  .opts = DOC({ "FILE", "the config to check (else the one the tools would use)" },
		      { "--config FILE", "the same, as an option" }),
	  .exits = DOC({ "0", "the config is valid" }, { "2", "it is not: FILE:LINE:COLUMN and why" }),
	  .example = "apenet config check /etc/apenet/apenet.yaml" },
	{ .name = "realign", .usage = "apenet realign LINK", .help = "restart a link's bring-up (after a repair)",
	  .max_args = 16, .run = cmd_realign, .opts = DOC({ "LINK", "the link: X+, Y-, ... or its index" }),
	  .exits = DOC({ "0", "the firmware restarted the bring-up" },
		       { "2", "could not: no card, the DNP did not acknowledge, the lock is held" }),
	  .example = "apenet realign X+" },
	{ .name = "latency-check", .usage = "apenet latency-check --link L [--resets N] [--timeout-ms MS]",
	  .help = "realign a link N times: one latency every time (deterministic) passes", .max_args = 16,
	  .run = cmd_latency_check,
	  .opts = DOC({ "--link L", "the link: X+, Y-, ... or its index" },
		      { "--resets N", "realignments (default 20)" },
		      { "--timeout-ms MS", "how long the link may take to come back up (default 5000)" }),
	  .exits = DOC({ "0", "pass: one latency every time" }, { "1", "fail: LATENCY_NOT_DETERMINISTIC" },
		       { "2", "could not run: no latency measured, the link did not come back" }),
	  .example = "apenet latency-check --link X+ --resets 20" },
	{ .name = "clear-counters", .usage = "apenet clear-counters [LINK]",
	  .help = "clear a link's counters, or all (rates never need it)", .max_args = 16, .run = cmd_clear_counters,
	  .opts = DOC({ "LINK", "the link: X+, Y-, ... or its index (default every link)" }),
	  .exits = DOC({ "0", "the firmware cleared them" },
		       { "2", "could not: no card, the DNP did not acknowledge, the lock is held" }),
	  .example = "apenet clear-counters Y+" },
	{ .name = "watch", .usage = "apenet watch [--interval S | --from FILE] [--count N] [--config FILE]",
	  .help = "live rates per link every interval, until interrupted; or every sample of a file", .max_args = 16,
	  .run = cmd_watch,
	  .opts = DOC({ "--interval S", "seconds between samples (default 1)" },
		      { "--from FILE", "a snapshot or black-box file: every sample, judged as the agent judged it" },
		      { "--count N", "stop after N samples (default: until ^C, or the file's end)" },
		      { "--config FILE", "thresholds (else $APENET_CONFIG, the installed one)" }),
	  .exits = DOC({ "0", "stopped (^C, or --count samples without a fail finding)" },
		       { "1", "with --count N: a fail finding was shown" }, { "2", "could not run, or the card left" }),
	  .example = "apenet watch --interval 0.5 --count 10" },
	{ .name = "agent-status", .usage = "apenet agent-status [--socket PATH] [--config FILE]",
	  .help = "ask the running node agent: watchdog, LDM_HOST, neighbours, black box, transitions", .max_args = 16,
	  .run = cmd_agent_status,
	  .opts = DOC({ "--socket PATH", "the agent's socket (default the config's agent.socket)" },
		      { "--config FILE", "the config (its agent.socket)" }),
	  .exits = DOC({ "0", "the agent answered (its findings are in the answer)" }, { "2", "no agent answered" }),
	  .example = "apenet agent-status --json" },
	{ .name = "health",
	  .usage = "apenet health [--db FILE]... [--node X,Y,Z] [--incidents] [--all] [--since T] [--until T] [--verbose] "
		   "[--silence S] [--config FILE]",
	  .help = "the cluster from the supervisors' health databases: summary, incidents, worst nodes; both databases "
		  "compared",
	  .max_args = 32, .run = cmd_health,
	  .opts = DOC({ "--db FILE", "a health database (repeatable; default every supervisor.db of the config)" },
		      { "--node X,Y,Z", "one node: its links with both ends' view, its states" },
		      { "--incidents", "every incident, closed ones too (default the open ones)" },
		      { "--all", "every node (default those that are not normal)" },
		      { "--since T", "incidents opened at or after T (-1h, 30m, today, ISO 8601, epoch ms)" },
		      { "--until T", "incidents opened before T" },
		      { "--verbose", "every piece of an incident's evidence (default the first 5, +K more)" },
		      { "--silence S", "seconds without a report before a node is silent (default the config's)" },
		      { "--config FILE", "the config (supervisor.db, the silence limit)" }),
	  .exits = DOC({ "0", "no open incident" }, { "1", "an incident is open (in any database)" },
		       { "2", "could not run: no database, bad arguments" }),
	  .example = "apenet health --db /var/lib/apenet/health-1.db --incidents" },
	{ .name = "db",
	  .usage = "apenet db check|vacuum|export|retention [--db FILE] [--since T] [--until T] [--older-than-days D] "
		   "[--config FILE]",
	  .help = "the health database: integrity and invariants, vacuum, a window as JSON lines, retention now",
	  .max_args = 16, .run = cmd_db,
	  .opts = DOC({ "check", "integrity, foreign keys, schema version, the library's invariants" },
		      { "vacuum", "rebuild the file to its smallest size" },
		      { "export", "a window's transitions, incidents and evidence as JSON lines" },
		      { "retention", "delete transitions older than the retention now (never an open incident's)" },
		      { "--db FILE", "the health database (default: the config's first supervisor's)" },
		      { "--since T", "export from T (-1h, 30m, today, yesterday, ISO 8601, epoch ms)" },
		      { "--until T", "export until T (default now)" },
		      { "--older-than-days D", "retention: days kept (default the config's supervisor.retention_days)" },
		      { "--config FILE", "the config (supervisor.db, retention_days)" }),
	  .exits = DOC({ "0", "done; check found nothing" }, { "1", "check found a problem" },
		       { "2", "could not run: not a health database, a damaged or newer one (left unchanged)" }),
	  .example = "apenet db export --db /var/lib/apenet/health-1.db --since -1h" },
	{ .name = "keys",
	  .usage = "apenet keys init|node X,Y,Z|all [--out FILE] [--site FILE] [--dims XxYxZ] [--dir DIR] [--owner USER] "
		   "[--config FILE]",
	  .help = "SNMPv3 keys: the site secret (supervisors), a node's key file (its agent), every node's",
	  .max_args = 16, .run = cmd_keys,
	  .opts = DOC({ "init", "a new site secret into --out (default the config's supervisor.site_key)" },
		      { "node X,Y,Z", "node X,Y,Z's key file into --out (default ./node-X,Y,Z.key)" },
		      { "all", "every node's key file into --dir (default .) as node-X,Y,Z.key" },
		      { "--out FILE", "where init or node writes (never over an existing file)" },
		      { "--site FILE", "the site secret the node keys derive from (default the config's supervisor.site_key)" },
		      { "--dims XxYxZ", "all: the torus (default the config's cluster section)" },
		      { "--dir DIR", "all: where the key files go (made 0700 if missing)" },
		      { "--owner USER", "give the files to USER (default, as root: the config's agent.user if it exists)" },
		      { "--config FILE", "the config (site_key, agent.user, the cluster)" }),
	  .exits = DOC({ "0", "written (0600)" },
		       { "2", "could not: a file exists, a secret unreadable or open to others, a bad argument" }),
	  .example = "apenet keys node 1,0,0 --site /etc/apenet/site.key --out node.key" },
	{ .name = "report",
	  .usage = "apenet report [--db FILE] (--incident ID | --since T [--until T]) [--node X,Y,Z] [--blackbox DIR]... "
		   "[--format text|json|html] [-o FILE | --output FILE] [--max-events N] [--before S] [--config FILE]",
	  .help = "post-mortem: first fault, propagation, black-box trends, cables, what to replace", .max_args = 48,
	  .run = cmd_report,
	  .opts = DOC({ "--db FILE", "the health database, read only (default: the config's first supervisor's)" },
		      { "--incident ID", "one incident and those merged into it (apenet health --incidents)" },
		      { "--since T", "every incident and transition from T (-1h, 30m, today, ISO 8601, epoch ms)" },
		      { "--until T", "the window's end (default now)" },
		      { "--node X,Y,Z", "only what is about that node" },
		      { "--blackbox DIR", "where the agents' black-box dumps are (repeatable)" },
		      { "--format F", "text (default), json or html (one self-contained file)" },
		      { "-o FILE", "write the report to FILE, whole or not at all" },
		      { "--output FILE", "the same as -o" },
		      { "--max-events N", "a window's other transitions shown at most (default 5000; 0: all)" },
		      { "--before S", "seconds of an incident's timeline before its first fault (default 60)" },
		      { "--config FILE", "the config (supervisor.db, node names)" }),
	  .exits = DOC({ "0", "written" },
		       { "2", "bad input, named: no such incident, not a health database, a damaged black box" }),
	  .example = "apenet report --incident 1 --format html -o incident-1.html" },
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

/* apenet's own options, before or after the command: apenet --help prints
 * them, and the completion offers them (a '\n' in a text goes on under it). */
static const struct cli_doc global_opts[] = {
	{ "--sim DIR", "use the emulated board in node directory DIR (also $APENET_SIM_DIR)" },
	{ "--dev BDF", "the card to use when there are several (e.g. 0000:03:00.0)" },
	{ "--json", "JSON output (schema " APENET_JSON_SCHEMA ", docs/json.md)" },
	{ "--csv", "CSV output of the tables" },
	{ "--help", "this text; apenet COMMAND --help (or apenet help COMMAND): its options,\nexit status and an example" },
	{ "--version", "the version and the JSON schema" },
	{ NULL, NULL },
};

static void usage(FILE *f)
{
	fputs("usage: apenet [--sim DIR] [--dev BDF] [--json|--csv] COMMAND [ARGS]\n\n"
	      "Diagnostics for APEnet+ family cards (APEnet+, APEnet v5, NaNet).\n\ncommands:\n", f);
	for (unsigned i = 0; i < NCMDS; i++)
		fprintf(f, "  %-14s %s\n", cmds[i].name, cmds[i].help);
	fputs("\noptions:\n", f);
	for (const struct cli_doc *o = global_opts; o->key; o++) {
		fprintf(f, "  %-11s ", o->key);
		for (const char *p = o->text; *p; p++)
			if (*p == '\n')
				fprintf(f, "\n%14s", "");
			else
				fputc(*p, f);
		fputc('\n', f);
	}
	fputs("\nexit status: 0 healthy, 1 a fault or threshold was found, 2 the command could not run\n"
	      "(ber, sweep and qualify: 3 inconclusive; apenet COMMAND --help says each command's)\n",
	      f);
}

/* TEXT after PREFIX, broken at spaces (outside brackets with GROUPS: a
 * synopsis, where a " | " starts another form on a line of its own) so that
 * no line passes 80 columns when it can help it; the next lines start WORDS
 * words into TEXT (usage: "apenet ber --link L" goes on under "--link"). */
static void print_wrapped(FILE *f, const char *prefix, const char *text, int words, int groups)
{
	size_t indent = strlen(prefix), col = indent;
	int line_start = 1;
	for (const char *p = text; words > 0 && *p; p++)
		if (*p == ' ' && --words == 0)
			indent += (size_t)(p + 1 - text);
	fputs(prefix, f);
	for (const char *p = text; *p;) {
		const char *q = p;
		int depth = 0;
		while (*q && (*q != ' ' || depth > 0)) {
			depth += groups && (*q == '[' || *q == '(');
			depth -= groups && (*q == ']' || *q == ')') && depth > 0;
			q++;
		}
		size_t len = (size_t)(q - p);
		if (groups && len == 1 && *p == '|') { /* another form: a line of its own */
			fprintf(f, "\n%*s", (int)strlen(prefix), "");
			col = strlen(prefix);
			line_start = 1;
			for (p = q; *p == ' '; p++)
				;
			continue;
		}
		if (!line_start && col + 1 + len > 80 && col > indent) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (!line_start) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, len, f);
		col += len;
		line_start = 0;
		for (p = q; *p == ' '; p++)
			;
	}
	fputc('\n', f);
}

static void print_docs(FILE *f, const struct cli_doc *d)
{
	int w = 0;
	char key[64];
	for (const struct cli_doc *x = d; x && x->key; x++)
		if ((int)strlen(x->key) > w)
			w = (int)strlen(x->key);
	for (const struct cli_doc *x = d; x && x->key; x++) {
		snprintf(key, sizeof(key), "  %-*s  ", w, x->key);
		print_wrapped(f, key, x->text, 0, 0);
	}
}

/* apenet COMMAND --help: the synopsis, the line of the list, the command's
 * options, its exit codes and an example. */
static void cmd_usage(FILE *f, const struct cli_cmd *cmd)
{
	char what[256];
	print_wrapped(f, "usage: ", cmd->usage, 2, 1);
	snprintf(what, sizeof(what), "%c%s.", toupper((unsigned char)cmd->help[0]), cmd->help + 1);
	fputc('\n', f);
	print_wrapped(f, "", what, 0, 0);
	fputs("\noptions:\n", f);
	if (!cmd->opts)
		fputs("  (none of its own)\n", f);
	print_docs(f, cmd->opts);
	fputs("  and apenet's own: --sim DIR, --dev BDF, --json, --csv (apenet --help)\n\nexit status:\n", f);
	print_docs(f, cmd->exits);
	fprintf(f, "\nexample:\n  %s\n", cmd->example);
}

static const struct cli_cmd *find_cmd(const char *name)
{
	for (unsigned i = 0; i < NCMDS; i++)
		if (!strcmp(cmds[i].name, name))
			return &cmds[i];
	return NULL;
}

/* ---- apenet --completion-table: the tables above as words, one fact a
 * line, for tools/gen-completion.sh (make writes the bash completion from
 * it; tests/e2e/completion.sh):
 *   link NAME...                  the link names of every variant
 *   cmd NAME                      a command
 *   opt CTX NAME [ARG [WORD...]]  an option of command CTX (- for apenet's
 *                                 own, anywhere); ARG its value's
 *                                 placeholder, WORDs the values it takes
 *   arg CTX N ARG [WORD...]       CTX's Nth positional argument (ARG -:
 *                                 WORDs only; an ARG ending in ... repeats)
 * Hidden from --help: it is for the build, not for people. */

/* The values the synopsis of any command gives option NAME ("--pattern
 * prbs7|prbs15|..."), as " a b c"; "" when none does. */
static void synopsis_words(const char *name, char *out, size_t n)
{
	size_t len = strlen(name), o = 0;
	out[0] = 0;
	for (unsigned i = 0; i < NCMDS && !out[0]; i++)
		for (const char *p = cmds[i].usage; (p = strstr(p, name)) != NULL; p += len) {
			if ((p > cmds[i].usage && !strchr("[( ", p[-1])) || p[len] != ' ')
				continue;
			const char *v = p + len + 1, *end = v + strcspn(v, " ");
			if (!memchr(v, '|', (size_t)(end - v)))
				continue;
			while (v < end && o + 2 < n) {
				size_t w = strcspn(v, "|])");
				if (v + w > end)
					w = (size_t)(end - v);
				if (w > 0 && islower((unsigned char)v[0]) && o + w + 2 < n)
					o += (size_t)snprintf(out + o, n - o, " %.*s", (int)w, v);
				v += w + 1;
			}
			break;
		}
}

static void completion_opt(const char *ctx, const char *key)
{
	char name[64], words[256];
	size_t w = strcspn(key, " ");
	snprintf(name, sizeof(name), "%.*s", (int)w, key);
	printf("opt %s %s", ctx, name);
	if (key[w]) {
		const char *arg = key + w + 1;
		synopsis_words(name, words, sizeof(words));
		printf(" %.*s%s", (int)strcspn(arg, " "), arg, words);
	}
	putchar('\n');
}

/* A command's literal words: those its synopsis starts with ("apenet db
 * check|vacuum|...", "apenet config check") and the lowercase keys of its
 * options ("init", "node X,Y,Z"), each once. */
static void completion_words(const struct cli_cmd *c, char *out, size_t n)
{
	size_t o = 0;
	const char *p = c->usage + strlen("apenet ") + strlen(c->name);
	out[0] = 0;
	for (;;) {
		while (*p == ' ' || *p == '|')
			p++;
		size_t w = strcspn(p, " |");
		if (!w || !islower((unsigned char)*p))
			break;
		if (o + w + 2 < n)
			o += (size_t)snprintf(out + o, n - o, " %.*s", (int)w, p);
		p += w;
		if (*p == ' ' && p[1] != '|' && !islower((unsigned char)p[1]))
			break;
	}
	for (const struct cli_doc *d = c->opts; d && d->key; d++) {
		char word[64];
		if (!islower((unsigned char)d->key[0]))
			continue;
		snprintf(word, sizeof(word), " %.*s", (int)strcspn(d->key, " "), d->key);
		size_t wl = strlen(word);
		const char *q = out;
		while ((q = strstr(q, word)) && q[wl] && q[wl] != ' ')
			q += wl;
		if (!q && o + wl + 1 < n)
			o += (size_t)snprintf(out + o, n - o, "%s", word);
	}
}

static void completion_table(void)
{
	printf("link");
	for (int v = 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);
		for (unsigned l = 0; p && l < p->nlinks; l++) {
			int seen = 0;
			for (int u = 1; u < v && !seen; u++) {
				const struct apenet_profile *q = apenet_profile((enum apenet_variant)u);
				for (unsigned k = 0; q && k < q->nlinks; k++)
					seen |= !strcmp(q->links[k].name, p->links[l].name);
			}
			if (!seen)
				printf(" %s", p->links[l].name);
		}
	}
	putchar('\n');
	for (const struct cli_doc *o = global_opts; o->key; o++)
		completion_opt("-", o->key);
	/* apenet help COMMAND (not a command of the list: apenet --help says it) */
	printf("arg help 1 -");
	for (unsigned i = 0; i < NCMDS; i++)
		printf(" %s", cmds[i].name);
	putchar('\n');
	for (unsigned i = 0; i < NCMDS; i++) {
		const struct cli_cmd *c = &cmds[i];
		char words[512];
		int pos = 1;
		printf("cmd %s\n", c->name);
		completion_words(c, words, sizeof(words));
		if (words[0])
			printf("arg %s %d -%s\n", c->name, pos++, words);
		for (const struct cli_doc *d = c->opts; d && d->key; d++)
			if (d->key[0] == '-')
				completion_opt(c->name, d->key);
			else if (isupper((unsigned char)d->key[0]))
				printf("arg %s %d %s\n", c->name, pos++, d->key);
	}
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

/* The command's name when it is one (a usage error names its --help). */
static const char *known(const char *name)
{
	return name && find_cmd(name) ? name : "";
}

static int run(int argc, char **argv, char **rest)
{
	struct cli c = { .fmt = APENET_OUT_TEXT };
	int nrest = 0, help = 0, version = 0;
	const char *cmdname = NULL;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			help = 1;
		} else if (!strcmp(a, "--version")) {
			version = 1;
		} else if (!strcmp(a, "--json")) {
			c.fmt = APENET_OUT_JSON;
		} else if (!strcmp(a, "--csv")) {
			c.fmt = APENET_OUT_CSV;
		} else if (!strncmp(a, "--sim", 5) && (a[5] == 0 || a[5] == '=')) {
			if (take_value(argc, argv, &i, &c.sim))
				return cli_usage_error(known(cmdname), "--sim needs a node directory");
		} else if (!strncmp(a, "--dev", 5) && (a[5] == 0 || a[5] == '=')) {
			if (take_value(argc, argv, &i, &c.bdf))
				return cli_usage_error(known(cmdname), "--dev needs a BDF");
		} else if (!cmdname && a[0] != '-') {
			cmdname = a;
		} else {
			rest[nrest++] = argv[i];
		}
	}
	/* apenet help [COMMAND]: the same as apenet [COMMAND] --help */
	if (cmdname && !strcmp(cmdname, "help")) {
		help = 1;
		cmdname = nrest ? rest[0] : NULL;
	}
	if (help && !cmdname) {
		usage(stdout);
		return CLI_EXIT_OK;
	}
	if (version && !help) {
		puts("apenet " APENET_VERSION_TEXT);
		return CLI_EXIT_OK;
	}
	if (!cmdname) {
		usage(stderr);
		return CLI_EXIT_ERROR;
	}
	const struct cli_cmd *cmd = find_cmd(cmdname);
	if (!cmd) {
		fprintf(stderr, "apenet: unknown command '%s' (see apenet --help)\n", cmdname);
		return CLI_EXIT_ERROR;
	}
	if (help) {
		cmd_usage(stdout, cmd);
		return CLI_EXIT_OK;
	}
	if (nrest > cmd->max_args)
		return cli_usage_error(cmdname, "unexpected argument '%s'; usage: %s", rest[0], cmd->usage);
	c.argc = nrest;
	c.argv = rest;
	return cmd->run(&c);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--completion-table")) {
		completion_table();
		return CLI_EXIT_OK;
	}
	char **rest = calloc((size_t)argc + 1, sizeof(char *));
	if (!rest)
		return CLI_EXIT_ERROR;
	int rc = run(argc, argv, rest);
	free(rest);
	return rc;
}
