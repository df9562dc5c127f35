/* Cluster layout and thresholds from YAML, with documented defaults. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apenet/conf.h"
#include "apenet/config.h"
#include "apenet/log.h"
#include "apenet_paths.h" /* APENET_SYSCONFDIR, written by the Makefile */


/* ---- table-driven sections: agent, supervisor ---- */

/* One row per setting: the loader, `apenet config check`, the shipped
 * etc/apenet/apenet.yaml and docs/config.md all follow these tables (the
 * tests check the last two against them), and so do the daemons: their
 * defaults, ranges and what a reload changes are read here, never written
 * again.  A number row gives its range, default and unit; a string row its
 * form (enum apenet_config_form), which the loader checks.  The _START
 * rows take effect when the daemon starts: a reload keeps their values in
 * force (apenet_config_desc.at_start). */
#define NUM(S, k, lo, hi, d, u, doc, st) { #k, 0, APENET_FORM_NUM, offsetof(S, k), 0, lo, hi, d, NULL, u, doc, st }
#define STR(S, k, f, d, doc, st) { #k, 1, f, offsetof(S, k), sizeof(((S *)0)->k), 0, 0, 0, d, "text", doc, st }
#define AN(k, lo, hi, d, u, doc) NUM(struct apenet_agent_config, k, lo, hi, d, u, doc, 0)
#define AS(k, f, d, doc) STR(struct apenet_agent_config, k, APENET_FORM_##f, d, doc, 0)
#define AN_START(k, lo, hi, d, u, doc) NUM(struct apenet_agent_config, k, lo, hi, d, u, doc, 1)
#define AS_START(k, f, d, doc) STR(struct apenet_agent_config, k, APENET_FORM_##f, d, doc, 1)
static const struct apenet_config_desc agent_keys[] = {
	AN(period_ms, 10, 10000, 100, "ms",
	   "the agent's period P: every period one sample, one judgement and one host heartbeat (WD_HOST_HB); at most watchdog_period_ms"),
	AN(watchdog_period_ms, 10, 10000, 100, "ms",
	   "written to WD_PERIOD_US: the DNP beats (WD_DNP_HB) and checks for the host's beat once per this period"),
	AN(watchdog_timeout_beats, 1, 255, 3, "beats",
	   "written to WD_TIMEOUT_BEATS: watchdog periods in a row without a host beat before the DNP declares the host expired (LDM bit 26)"),
	AN(dnp_stuck_periods, 2, 10000, 5, "periods",
	   "agent periods in a row without a change of WD_DNP_HB that make the DNP core broken (DNP_HUNG); they must span at least two watchdog periods"),
	AN(baseline_s, 0, 3600, 10, "s",
	   "rates (CRC, payload and 8b/10b errors, alignment restarts, flaps) are also judged against the sample this long ago, so that a rate has events enough to be proven; 0: the previous sample only"),
	AN(pcie_interval_ms, 0, 3600000, 1000, "ms",
	   "how often PCI config space (link training, AER status) is read again, for the PCIe findings and the peripheral field of LDM_HOST; 0: every period"),
	AN(module_interval_s, 0, 86400, 60, "s",
	   "how often the module EEPROM windows are read, for the black box's dumps; 0: never"),
	AN(blackbox_span_s, 1, 86400, 600, "s",
	   "the black box keeps the samples of this last span in memory (delta-compressed)"),
	AN(blackbox_memory_mib, 0.25, 4096, 8, "MiB",
	   "the most memory the black box's ring takes; when the span does not fit, the oldest samples go first and agent-status says the span held"),
	AN(blackbox_dump_full_s, 0, 86400, 10, "s",
	   "a dump holds every sample of this last span..."),
	AN(blackbox_dump_step_s, 0.01, 86400, 10, "s",
	   "...and, before it, one sample every this many seconds back to the oldest"),
	AN(blackbox_holdoff_s, 0, 3600, 5, "s",
	   "a transition within this long after a dump is written with the next dump, at the end of the holdoff (one dump per burst of transitions)"),
	AN(blackbox_keep_files, 1, 100000, 20, "files",
	   "dump files kept in blackbox_dir (the oldest removed first)..."),
	AN(blackbox_keep_mib, 1, 1000000, 256, "MiB",
	   "...and their total size kept under this"),
	AN(edac_interval_s, 0.1, 3600, 10, "s",
	   "how often the EDAC counters (edac_root/mc*/ce_count, ue_count) are read"),
	AN(edac_window_s, 1, 604800, 3600, "s",
	   "the window over which the corrected-error rate is judged"),
	AN(edac_ce_sick_per_hour, 0, 1e9, 10, "errors/hour",
	   "corrected memory errors proven at this rate (rate_min_events, rate_confidence) make the memory field sick; any uncorrected error makes it broken"),
	AN(service_timeout_s, 1, 86400, 60, "s",
	   "no supervisor acknowledged a report for this long: the service network field says broken (one of two acknowledging: sick)"),
	AN(events_keep, 1, 10000, 64, "events",
	   "the last transitions agent-status shows"),
	AN(events_max_mib, 0.01, 100000, 16, "MiB",
	   "state_dir/events.jsonl (every transition, one JSON object a line) is renamed to events.jsonl.1 past this size"),
	AS_START(user, TEXT, "apenet",
	   "after mapping the BAR and opening libpci, a root agent drops to this user (it must exist and not be root: else the agent does not start); \"\": it stays root, with a warning at every start"),
	AS_START(state_dir, PATH, "/var/lib/apenet", "the agent's files: events.jsonl, the boot counter"),
	AS_START(blackbox_dir, PATH, "/var/lib/apenet/blackbox", "where black-box dumps are written (snapshot files: apenet link --from FILE)"),
	AS_START(socket, SOCKET, "/run/apenet/agent.sock", "the unix socket apenet agent-status talks to"),
	AS_START(lock_dir, PATH_OR_EMPTY, "", "where the lock file apenet-agent-BDF.lock keeps a second agent off the card; empty: /run/lock, or the node directory of an emulated card"),
	AS(edac_root, PATH, "/sys/devices/system/edac/mc", "the EDAC memory controllers (mc*/ce_count, mc*/ue_count); none there: memory is reported normal and agent-status says EDAC is absent"),
	AS(log_level, LOG_LEVEL, "notice", "the least severe messages logged: err, warn, notice, info or debug"),
	AS(pma_presets_dir, PATH_OR_EMPTY, "/etc/apenet/pma.d",
	   "PMA presets (apenet sweep --save NAME writes NAME.yaml here): at start and on reload the agent applies the half of each that its card owns; empty: none"),
	AN_START(agentx, 0, 1, 1, "0/1",
	   "1: serve APENET-MIB's node tables (card, links, lanes, sensors, LDM, watchdog) through the host's snmpd as an AgentX subagent (snmpd.conf: master agentx; docs/snmp.md); 0: not; at start"),
	AS_START(agentx_socket, TEXT, "",
	   "the master agent's AgentX socket: a path, or tcp:HOST:PORT; empty: net-snmp's default (/var/agentx/master); at start"),
	AN_START(agentx_ping_s, 1, 3600, 15, "s",
	   "how often the subagent checks that snmpd is there, and reconnects when it was restarted; at start"),
	AN(agentx_traps, 0, 1, 0, "0/1",
	   "1: every transition also goes to snmpd's trap sinks (trap2sink, informsink) as an apenetHealthChange notification"),
	AS(certificates_db, PATH_OR_EMPTY, "",
	   "the health database apenet qualify stores cable certificates in, read (every minute) for apenetCertTable; empty: the one apenet qualify uses by default (supervisor instance 1's db)"),
};
#undef AN
#undef AS
#undef AN_START
#undef AS_START
#define NAGENT (sizeof(agent_keys) / sizeof(agent_keys[0]))
_Static_assert(NAGENT == APENET_NAGENT, "APENET_NAGENT counts the rows of agent_keys");

#define SN(k, lo, hi, d, u, doc) NUM(struct apenet_supervisor_config, k, lo, hi, d, u, doc, 0)
#define SS(k, f, d, doc) STR(struct apenet_supervisor_config, k, APENET_FORM_##f, d, doc, 0)
#define SN_START(k, lo, hi, d, u, doc) NUM(struct apenet_supervisor_config, k, lo, hi, d, u, doc, 1)
#define SS_START(k, f, d, doc) STR(struct apenet_supervisor_config, k, APENET_FORM_##f, d, doc, 1)
static const struct apenet_config_desc svr_keys[] = {
	SN(batch_max_events, 1, 100000, 1000, "events",
	   "reports are committed to the health database in batches: a batch is committed at this many reports..."),
	SN(batch_max_ms, 0, 10000, 20, "ms",
	   "...or when its oldest report has waited this long; the acknowledgements (INFORM responses) follow the commit"),
	SN_START(recv_buffer_kib, 64, 1048576, 16384, "KiB",
	   "the UDP receive buffer (SO_RCVBUF): bursts of reports wait there while a batch commits"),
	SN_START(tick_ms, 10, 10000, 100, "ms",
	   "how often the deduction looks at the time (silences, settle windows)"),
	SN_START(silent_ms, 100, 86400000, 3500, "ms",
	   "no report from a node itself for this long: the node is silent (3 heartbeats at the default heartbeat_s of 1 s, plus margin)"),
	SN_START(settle_ms, 0, 600000, 1500, "ms",
	   "after the first evidence of a fault, the supervisor waits this long for the rest before it opens an incident"),
	SN_START(explain_ms, 0, 600000, 5000, "ms",
	   "a silence waits this long for the neighbours' words (their LDM reports) that explain it"),
	SN_START(late_ms, 0, 86400000, 2000, "ms",
	   "a report this much older than its arrival comes from an agent's spool: history, not news"),
	SN_START(restore_hold_ms, 0, 86400000, 8000, "ms",
	   "an incident open when the supervisor starts that no evidence supports closes after this"),
	SN_START(resync_ms, 0, 86400000, 15000, "ms",
	   "a restarted agent says again what is still wrong within this"),
	SN_START(group_min, 1, 1000000, 2, "nodes",
	   "this many unexplained silences at once: this supervisor is cut off, not the nodes"),
	SN(evidence_max, 1, 1000000, 256, "pieces",
	   "evidence rows written per incident (the rest are counted)"),
	SN(heartbeat_flush_ms, 0, 600000, 1000, "ms",
	   "the node times from routine heartbeats reach the database at most this late; 0: at every commit"),
	SN(retention_days, 0, 36500, 90, "days",
	   "transitions older than this are deleted (never the evidence of an open incident); 0: everything is kept"),
	SS_START(listen, ADDR_LIST, "0.0.0.0:162,0.0.0.0:10162",
	   "where each instance listens (UDP): comma-separated host:port or [v6addr]:port, 1..8; --instance N takes the Nth"),
	SS_START(db, PATH_LIST, "/var/lib/apenet/health-1.db,/var/lib/apenet/health-2.db",
	   "each instance's health database: comma-separated absolute paths, distinct, as many as listen has; --instance N takes the Nth"),
	SS_START(state_dir, PATH, "/var/lib/apenet",
	   "where net-snmp's persistent files (the SNMPv3 engine ID) go: state_dir/supervisor-N for instance N"),
	SS(log_level, LOG_LEVEL, "notice", "the least severe messages logged: err, warn, notice, info or debug"),
	SN_START(agentx, 0, 1, 1, "0/1",
	   "1: serve the cluster tables (apenetNodeTable, apenetIncidentTable) through the host's snmpd as an AgentX subagent (docs/snmp.md); 0: not; at start. Two instances on one host: set it on one"),
	SS_START(agentx_socket, TEXT, "",
	   "the master agent's AgentX socket: a path, or tcp:HOST:PORT; empty: net-snmp's default (/var/agentx/master); at start"),
	SN_START(agentx_ping_s, 1, 3600, 15, "s",
	   "how often the subagent checks that snmpd is there, and reconnects when it was restarted; at start"),
	SN(agentx_cache_ms, 100, 600000, 5000, "ms",
	   "the cluster tables are read from the health database again at most this often (a walk is served from one read)"),
	SS(site_key, PATH, "/etc/apenet/site.key",
	   "SNMPv3: the site secret every node's keys derive from (apenet keys init; 0600, the supervisor's user's; docs/security.md)"),
	SS(site_key_previous, PATH_OR_EMPTY, "",
	   "SNMPv3, while keys roll: the previous site secret, whose node keys are still accepted; empty: none"),
};
#undef SN
#undef SS
#undef SN_START
#undef SS_START
#define NSVR (sizeof(svr_keys) / sizeof(svr_keys[0]))
_Static_assert(NSVR == APENET_NSVR, "APENET_NSVR counts the rows of svr_keys");

/* The batch scheduler: off unless asked (acting on a batch system is the
 * site's choice); every component the deduction blames has its policy
 * (include/apenet/deduce.h's list; "other" for the rest).  Everything
 * takes effect at a reload. */
#define BN(k, lo, hi, d, u, doc) NUM(struct apenet_slurm_config, k, lo, hi, d, u, doc, 0)
#define BS(k, f, d, doc) STR(struct apenet_slurm_config, k, APENET_FORM_##f, d, doc, 0)
static const struct apenet_config_desc slurm_keys[] = {
	BN(enabled, 0, 1, 0, "0/1",
	   "1: drain the nodes a settled incident affects and resume them when it closes (docs/supervisor.md, \"The batch scheduler (Slurm)\"); 0: leave the scheduler alone"),
	BN(dry_run, 0, 1, 0, "0/1",
	   "1 (with enabled): only log and record in the health database what would be done; Slurm is not called"),
	BN(timeout_ms, 100, 600000, 10000, "ms", "one scontrol call is killed after this and its action recorded as timed out"),
	BS(scontrol, PATH, "/usr/bin/scontrol", "the scontrol program the supervisor runs (as its own user)"),
	BS(slurm_conf, PATH_OR_EMPTY, "",
	   "passed to scontrol as SLURM_CONF: the slurm.conf naming the controller; empty: scontrol's own (SLURM_CONF of the supervisor's environment, else Slurm's default)"),
	BS(card, NODE_POLICY, "node", "an incident blaming a card (gone, dead): node drains its node; none: nothing"),
	BS(dnp, NODE_POLICY, "node", "a DNP (hung, its core sick): node or none"),
	BS(host, NODE_POLICY, "node", "a host (hung or dead): node or none"),
	BS(node_power, NODE_POLICY, "node", "a node without power: node or none"),
	BS(pcie, NODE_POLICY, "node", "the card's PCIe link: node or none"),
	BS(memory, NODE_POLICY, "node", "the host's memory (EDAC): node or none"),
	BS(sensor, NODE_POLICY, "node", "a sensor past its limit (temperature, voltage, current): node or none"),
	BS(cabling, NODE_POLICY, "node", "a cable to the wrong neighbour: node or none"),
	BS(cable, ENDS_POLICY, "ends", "a cable: ends drains the nodes at both ends, node the one it is blamed on, none nothing"),
	BS(link, ENDS_POLICY, "ends", "a link: ends (the node and the neighbour it faces), node or none"),
	BS(module, ENDS_POLICY, "ends", "a link's module (transceiver): ends, node or none"),
	BS(agent, NODE_POLICY, "none", "a node whose agent is silent while its neighbours see nothing wrong: node or none"),
	BS(service_network, NODE_POLICY, "none", "a node cut off the service network (the torus sees it alive): node or none"),
	BS(other, NODE_POLICY, "none", "any other component: node or none (the supervisor incidents name no node and never drain)"),
};
#undef BN
#undef BS
#define NSLURM (sizeof(slurm_keys) / sizeof(slurm_keys[0]))
_Static_assert(NSLURM == APENET_NSLURM, "APENET_NSLURM counts the rows of slurm_keys");
#undef NUM
#undef STR

/* The entries of a comma-separated list, spaces around them removed: the
 * count of entries (all of them, also past max), the first max in sp. */
struct span {
	const char *p;
	size_t n;
};

static unsigned list_split(const char *s, struct span *sp, unsigned max)
{
	unsigned k = 0;
	for (;;) {
		size_t n = strcspn(s, ",");
		const char *p = s;
		while (n && *p == ' ') {
			p++;
			n--;
		}
		while (n && p[n - 1] == ' ')
			n--;
		if (k < max)
			sp[k] = (struct span){ p, n };
		k++;
		s += strcspn(s, ",");
		if (!*s)
			return k;
		s++;
	}
}

/* A listen or db list: 1..APENET_CONFIG_MAX_INSTANCES entries, none empty;
 * addresses host:port with the port given, paths absolute and distinct. */
static int check_list(const struct apenet_conf *c, const struct apenet_conf_node *n, const struct apenet_config_desc *d,
		      struct apenet_err *e)
{
	struct span sp[APENET_CONFIG_MAX_INSTANCES];
	unsigned k = list_split(n->value, sp, APENET_CONFIG_MAX_INSTANCES);
	const char *what = d->form == APENET_FORM_ADDR_LIST ? "host:port" : "absolute paths";
	if (k == 1 && !sp[0].n)
		return apenet_conf_error(c, n, e, "'%s': empty; 1..%d comma-separated %s are needed", d->key,
					 APENET_CONFIG_MAX_INSTANCES, what);
	if (k > APENET_CONFIG_MAX_INSTANCES)
		return apenet_conf_error(c, n, e, "'%s': %u entries, at most %d (instances)", d->key, k,
					 APENET_CONFIG_MAX_INSTANCES);
	for (unsigned i = 0; i < k; i++) {
		const struct span *x = &sp[i];
		if (!x->n)
			return apenet_conf_error(c, n, e, "'%s': entry %u is empty", d->key, i + 1);
		if (d->form == APENET_FORM_PATH_LIST) {
			if (x->p[0] != '/')
				return apenet_conf_error(c, n, e, "'%s': entry %u '%.*s' is not an absolute path", d->key, i + 1,
							 (int)x->n, x->p);
			for (unsigned j = 0; j < i; j++)
				if (sp[j].n == x->n && !memcmp(sp[j].p, x->p, x->n))
					return apenet_conf_error(c, n, e,
								 "'%s': entry %u '%.*s' is also entry %u: each instance needs its own",
								 d->key, i + 1, (int)x->n, x->p, j + 1);
			continue;
		}
		char addr[256], peer[300], why[160];
		snprintf(addr, sizeof(addr), "%.*s", (int)x->n, x->p);
		if (apenet_notify_peer(addr, peer, sizeof(peer), why, sizeof(why)))
			return apenet_conf_error(c, n, e, "'%s': entry %u '%s': %s", d->key, i + 1, addr, why);
		/* the notifier's syntax takes a bare host as port 162; a
		 * listener says which port it binds */
		const char *bracket = addr[0] == '[' ? strchr(addr, ']') : NULL;
		if (!strchr(bracket ? bracket : addr, ':'))
			return apenet_conf_error(c, n, e, "'%s': entry %u '%s': no port (host:port)", d->key, i + 1, addr);
	}
	return 0;
}

/* A string setting against its form. */
static int check_str(const struct apenet_conf *c, const struct apenet_conf_node *n, const struct apenet_config_desc *d,
		     struct apenet_err *e)
{
	const char *v = n->value;
	if (strlen(v) >= d->size)
		return apenet_conf_error(c, n, e, "'%s': longer than %zu characters", d->key, d->size - 1);
	switch (d->form) {
	case APENET_FORM_PATH:
	case APENET_FORM_PATH_OR_EMPTY:
	case APENET_FORM_SOCKET:
		/* a daemon's paths must not depend on where it was started */
		if (v[0] && v[0] != '/')
			return apenet_conf_error(c, n, e, "'%s': '%s' is not an absolute path", d->key, v);
		if (!v[0] && d->form != APENET_FORM_PATH_OR_EMPTY)
			return apenet_conf_error(c, n, e, "'%s': empty; a path is needed", d->key);
		if (d->form == APENET_FORM_SOCKET && strlen(v) > 107)
			return apenet_conf_error(c, n, e, "'%s': a unix socket path is at most 107 characters", d->key);
		return 0;
	case APENET_FORM_LOG_LEVEL:
		if (apenet_log_level_parse(v) < 0)
			return apenet_conf_error(c, n, e, "'%s': '%s' is not err, warn, notice, info or debug", d->key, v);
		return 0;
	case APENET_FORM_ADDR_LIST:
	case APENET_FORM_PATH_LIST:
		return check_list(c, n, d, e);
	case APENET_FORM_NODE_POLICY:
		if (strcmp(v, "node") && strcmp(v, "none"))
			return apenet_conf_error(c, n, e, "'%s': '%s' is not node or none", d->key, v);
		return 0;
	case APENET_FORM_ENDS_POLICY:
		if (strcmp(v, "ends") && strcmp(v, "node") && strcmp(v, "none"))
			return apenet_conf_error(c, n, e, "'%s': '%s' is not ends, node or none", d->key, v);
		return 0;
	default:
		return 0;
	}
}

/* Settings that only make sense together; the error points at the value the
 * file gave (the first of the pair it gave). */
static int agent_cross(const struct apenet_conf *c, const struct apenet_conf_node *m, const void *sec,
		       struct apenet_err *e)
{
	const struct apenet_agent_config *a = sec;
	const struct apenet_conf_node *np = apenet_conf_get(m, "period_ms"), *nw = apenet_conf_get(m, "watchdog_period_ms"),
				      *ns = apenet_conf_get(m, "dnp_stuck_periods");
	if (a->period_ms > a->watchdog_period_ms)
		return apenet_conf_error(c, np ? np : nw ? nw : m, e,
					 "period_ms (%g%s) is above watchdog_period_ms (%g%s): the DNP would miss host beats",
					 a->period_ms, np ? "" : ", the default", a->watchdog_period_ms, nw ? "" : ", the default");
	if (a->dnp_stuck_periods * a->period_ms < 2 * a->watchdog_period_ms)
		return apenet_conf_error(c, ns ? ns : np ? np : nw ? nw : m, e,
					 "dnp_stuck_periods x period_ms (%g x %g ms) is under two watchdog periods (%g ms): "
					 "a beating DNP would be called hung",
					 a->dnp_stuck_periods, a->period_ms, 2 * a->watchdog_period_ms);
	if (a->blackbox_span_s * 1000 / a->period_ms > 1e6) {
		const struct apenet_conf_node *n = apenet_conf_get(m, "blackbox_span_s");
		return apenet_conf_error(c, n ? n : np ? np : m, e,
					 "blackbox_span_s (%g s) holds more than a million periods of %g ms", a->blackbox_span_s,
					 a->period_ms);
	}
	return 0;
}

/* Instance N is the Nth entry of both lists: they must be as long. */
static int svr_cross(const struct apenet_conf *c, const struct apenet_conf_node *m, const void *sec,
		     struct apenet_err *e)
{
	const struct apenet_supervisor_config *s = sec;
	const struct apenet_conf_node *nl = apenet_conf_get(m, "listen"), *nd = apenet_conf_get(m, "db");
	unsigned kl = list_split(s->listen, NULL, 0), kd = list_split(s->db, NULL, 0);
	if (kl != kd)
		return apenet_conf_error(c, nl ? nl : nd ? nd : m, e,
					 "listen has %u entr%s%s and db %u%s: each instance (--instance N) needs its entry in both",
					 kl, kl == 1 ? "y" : "ies", nl ? "" : " (the default)", kd, nd ? "" : " (the default)");
	return 0;
}

static int no_cross(const struct apenet_conf *c, const struct apenet_conf_node *m, const void *sec,
		    struct apenet_err *e)
{
	(void)c, (void)m, (void)sec, (void)e;
	return 0;
}

/* A section and what the generic loader needs beyond its public view. */
struct section {
	struct apenet_config_table t; /* first: apenet_config_table() hands out &t */
	int (*cross)(const struct apenet_conf *c, const struct apenet_conf_node *m, const void *sec,
		     struct apenet_err *e);
};

static const struct section sections[] = {
	{ { "agent", agent_keys, NAGENT, offsetof(struct apenet_config, agent),
	    offsetof(struct apenet_config, agent_given) }, agent_cross },
	{ { "supervisor", svr_keys, NSVR, offsetof(struct apenet_config, svr),
	    offsetof(struct apenet_config, svr_given) }, svr_cross },
	{ { "slurm", slurm_keys, NSLURM, offsetof(struct apenet_config, slurm),
	    offsetof(struct apenet_config, slurm_given) }, no_cross },
};
#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))
#define MAXROWS 64
_Static_assert(NAGENT < MAXROWS && NSVR < MAXROWS && NSLURM < MAXROWS, "a section has fewer than MAXROWS rows");
_Static_assert(sizeof(((struct apenet_config *)0)->agent_given) == NAGENT, "agent_given has a flag a row");
_Static_assert(sizeof(((struct apenet_config *)0)->svr_given) == NSVR, "svr_given has a flag a row");
_Static_assert(sizeof(((struct apenet_config *)0)->slurm_given) == NSLURM, "slurm_given has a flag a row");

static void section_defaults(const struct section *s, struct apenet_config *c)
{
	char *base = (char *)c + s->t.struct_off;
	for (size_t i = 0; i < s->t.n; i++) {
		const struct apenet_config_desc *d = &s->t.rows[i];
		if (d->is_str)
			snprintf(base + d->off, d->size, "%s", d->def_str);
		else
			*(double *)(void *)(base + d->off) = d->def;
	}
}

static int load_section(const struct apenet_conf *c, const struct apenet_conf_node *m, const struct section *s,
			struct apenet_config *cfg, struct apenet_err *e)
{
	const struct apenet_config_table *t = &s->t;
	char *base = (char *)cfg + t->struct_off;
	unsigned char *given = (unsigned char *)cfg + t->given_off;
	const char *allowed[MAXROWS + 1];
	for (size_t i = 0; i < t->n; i++)
		allowed[i] = t->rows[i].key;
	allowed[t->n] = NULL;
	if (apenet_conf_expect(c, m, APENET_CONF_MAP, t->section, e) || apenet_conf_check_keys(c, m, allowed, e))
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		const struct apenet_config_desc *d = &t->rows[i];
		const struct apenet_conf_node *n = apenet_conf_get(m, d->key);
		char *p = base + d->off;
		given[i] = n != NULL;
		if (!n)
			continue;
		if (!d->is_str) {
			if (apenet_conf_double(c, n, d->min, d->max, (double *)(void *)p, e))
				return -1;
			continue;
		}
		if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, d->key, e) || check_str(c, n, d, e))
			return -1;
		snprintf(p, d->size, "%s", n->value);
	}
	return s->cross(c, m, base, e);
}

void apenet_config_defaults(struct apenet_config *c)
{
	memset(c, 0, sizeof(*c));
	c->thr = (struct apenet_thresholds){
		.fpga_temp_warn_c = 80, .fpga_temp_fail_c = 95,
		.board_temp_warn_c = 60, .board_temp_fail_c = 75,
		.vdroop_warn_pct = 3, .vdroop_fail_pct = 8,
		.v12_tol_warn_pct = 5, .v12_tol_fail_pct = 10,
		.crc_warn_per_min = 1, .crc_fail_per_min = 100,
		.payload_warn_per_min = 1,
		.lane_errors_warn_per_min = 1,
		.flaps_fail = 1,
		.align_restarts_warn = 3, .align_restarts_warn_per_hour = 6,
		.ldm_age_warn_ms = 500, .ldm_age_fail_ms = 2000,
		.fifo_hwm_warn_pct = 95,
		.rate_confidence = 0.95, .rate_min_events = 3, .since_clear_min_s = 600,
		.clear_after_samples = 10, .temp_clear_margin_c = 2, .supply_clear_margin_pct = 0.5,
		.icore_sick_ma = 15000,
	};
	c->cl.wrap[0] = c->cl.wrap[1] = c->cl.wrap[2] = 1;
	for (size_t i = 0; i < NSECTIONS; i++)
		section_defaults(&sections[i], c);
	apenet_config_supervisors_defaults(c);
}

void apenet_config_free(struct apenet_config *c)
{
	free(c->cl.nodes);
	free(c->cl.by_coord);
	free(c->cl.by_name);
	c->cl.nodes = NULL;
	c->cl.nnodes = 0;
	c->cl.by_coord = NULL;
	c->cl.by_name = NULL;
	c->cl.name_mask = 0;
}

/* name, field, min, max */
static const struct {
	const char *key;
	size_t off;
	double min, max;
} thr_keys[] = {
#define T(k, lo, hi) { #k, offsetof(struct apenet_thresholds, k), lo, hi }
	T(fpga_temp_warn_c, -40, 200), T(fpga_temp_fail_c, -40, 200), T(board_temp_warn_c, -40, 200),
	T(board_temp_fail_c, -40, 200), T(vdroop_warn_pct, 0, 100), T(vdroop_fail_pct, 0, 100),
	T(v12_tol_warn_pct, 0, 100), T(v12_tol_fail_pct, 0, 100), T(crc_warn_per_min, 0, 1e12),
	T(crc_fail_per_min, 0, 1e12), T(payload_warn_per_min, 0, 1e12), T(lane_errors_warn_per_min, 0, 1e12),
	T(flaps_fail, 1, 1e9), T(align_restarts_warn, 1, 1e9), T(align_restarts_warn_per_hour, 0, 1e12),
	T(ldm_age_warn_ms, 0, 1e9), T(ldm_age_fail_ms, 0, 1e9), T(fifo_hwm_warn_pct, 0, 100),
	T(rate_confidence, 0.5, 0.999999), T(rate_min_events, 1, 1e9), T(since_clear_min_s, 0, 1e9),
	T(clear_after_samples, 0, 1e9), T(temp_clear_margin_c, 0, 50), T(supply_clear_margin_pct, 0, 50),
	T(icore_sick_ma, 0, 1e6),
#undef T
};
#define NTHR (sizeof(thr_keys) / sizeof(thr_keys[0]))

/* Warn and fail limits of one measure (both "at or above" limits). */
static const struct {
	const char *warn, *fail;
} thr_pairs[] = {
	{ "fpga_temp_warn_c", "fpga_temp_fail_c" }, { "board_temp_warn_c", "board_temp_fail_c" },
	{ "vdroop_warn_pct", "vdroop_fail_pct" },   { "v12_tol_warn_pct", "v12_tol_fail_pct" },
	{ "crc_warn_per_min", "crc_fail_per_min" }, { "ldm_age_warn_ms", "ldm_age_fail_ms" },
};
#define NPAIRS (sizeof(thr_pairs) / sizeof(thr_pairs[0]))

static double thr_value(const struct apenet_thresholds *t, const char *key)
{
	for (unsigned i = 0; i < NTHR; i++)
		if (!strcmp(thr_keys[i].key, key))
			return *(const double *)((const char *)t + thr_keys[i].off);
	return 0;
}

static int load_thresholds(const struct apenet_conf *c, const struct apenet_conf_node *m, struct apenet_thresholds *t,
			   struct apenet_err *e)
{
	const char *allowed[NTHR + 1];
	for (unsigned i = 0; i < NTHR; i++)
		allowed[i] = thr_keys[i].key;
	allowed[NTHR] = NULL;
	if (apenet_conf_expect(c, m, APENET_CONF_MAP, "thresholds", e) || apenet_conf_check_keys(c, m, allowed, e))
		return -1;
	for (unsigned i = 0; i < NTHR; i++) {
		const struct apenet_conf_node *n = apenet_conf_get(m, thr_keys[i].key);
		if (n && apenet_conf_double(c, n, thr_keys[i].min, thr_keys[i].max, (double *)((char *)t + thr_keys[i].off), e))
			return -1;
	}
	/* A warn above its fail could never show.  The error points at the
	 * value the file gave (the warn one when it gave both), not at the
	 * start of the map, which may be an unrelated key. */
	for (unsigned i = 0; i < NPAIRS; i++) {
		double w = thr_value(t, thr_pairs[i].warn), f = thr_value(t, thr_pairs[i].fail);
		if (w <= f)
			continue;
		const struct apenet_conf_node *nw = apenet_conf_get(m, thr_pairs[i].warn), *nf = apenet_conf_get(m, thr_pairs[i].fail);
		return apenet_conf_error(c, nw ? nw : nf ? nf : m, e, "%s (%g%s) is above %s (%g%s)", thr_pairs[i].warn, w,
				  nw ? "" : ", the default", thr_pairs[i].fail, f, nf ? "" : ", the default");
	}
	return 0;
}

static int load_wrap(const struct apenet_conf *c, const struct apenet_conf_node *n, int wrap[3], struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "wraparound", e))
		return -1;
	if (!strcmp(n->value, "true") || !strcmp(n->value, "yes")) {
		wrap[0] = wrap[1] = wrap[2] = 1;
		return 0;
	}
	wrap[0] = wrap[1] = wrap[2] = 0;
	if (!strcmp(n->value, "false") || !strcmp(n->value, "no") || !strcmp(n->value, "none"))
		return 0;
	for (const char *p = n->value; *p; p++) {
		if (*p < 'x' || *p > 'z')
			return apenet_conf_error(c, n, e, "'wraparound': '%s' is not true, false or a set of x, y, z (e.g. xy)",
					  n->value);
		wrap[*p - 'x'] = 1;
	}
	return 0;
}

/* ---- the cluster layout ---- */

static size_t coord_slot(const struct apenet_cluster *cl, unsigned x, unsigned y, unsigned z)
{
	return x + (size_t)cl->dims[0] * (y + (size_t)cl->dims[1] * z);
}

/* FNV-1a: short host names spread well and it needs no table. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The by_name slot holding name, or the empty slot where it would go. */
static uint32_t *name_slot(const struct apenet_cluster *cl, const char *name)
{
	for (uint32_t i = name_hash(name) & cl->name_mask;; i = (i + 1) & cl->name_mask) {
		uint32_t *s = &cl->by_name[i];
		if (!*s || !strcmp(cl->nodes[*s - 1].name, name))
			return s;
	}
}

/* Both indexes hold every name the file gives, so a duplicate is found when
 * it is read (O(1) each, O(n) in all: 32K nodes load at once) and the error
 * points at the second occurrence, as a reader goes through the file.  The
 * coordinate index is an array over the whole torus (at most 255^3 slots,
 * calloc'd so the untouched pages of a sparse list cost nothing). */
static int index_alloc(struct apenet_cluster *cl, unsigned cnt, struct apenet_err *e)
{
	uint32_t slots = 16;
	while (slots < 2u * cnt)
		slots *= 2;
	cl->by_coord = calloc((size_t)cl->dims[0] * cl->dims[1] * cl->dims[2], sizeof(*cl->by_coord));
	cl->by_name = calloc(slots, sizeof(*cl->by_name));
	cl->name_mask = slots - 1;
	if (!cl->by_coord || !cl->by_name)
		return apenet_err_set(e, APENET_EIO, "out of memory for the index of %u nodes", cnt);
	return 0;
}

static int load_cluster(const struct apenet_conf *c, const struct apenet_conf_node *m, struct apenet_cluster *cl,
			struct apenet_err *e)
{
	static const char *const keys[] = { "dims", "wraparound", "nodes", NULL };
	static const char *const node_keys[] = { "name", "node", NULL };
	const struct apenet_conf_node *n;
	if (apenet_conf_expect(c, m, APENET_CONF_MAP, "cluster", e) || apenet_conf_check_keys(c, m, keys, e))
		return -1;
	if (!(n = apenet_conf_get(m, "dims")))
		return apenet_conf_error(c, m, e, "'cluster' needs 'dims: XxYxZ'");
	if (apenet_conf_triple(c, n, 'x', cl->dims, e))
		return -1;
	if (!cl->dims[0] || !cl->dims[1] || !cl->dims[2])
		return apenet_conf_error(c, n, e, "'dims': every size must be at least 1");
	if ((n = apenet_conf_get(m, "wraparound")) && load_wrap(c, n, cl->wrap, e))
		return -1;
	if ((n = apenet_conf_get(m, "nodes"))) {
		unsigned cnt = 0;
		if (apenet_conf_expect(c, n, APENET_CONF_SEQ, "nodes", e))
			return -1;
		for (const struct apenet_conf_node *i = n->child; i; i = i->next)
			cnt++;
		cl->nodes = calloc(cnt + 1, sizeof(*cl->nodes));
		if (!cl->nodes)
			return apenet_err_set(e, APENET_EIO, "out of memory");
		if (cnt && index_alloc(cl, cnt, e))
			return -1;
		for (const struct apenet_conf_node *i = n->child; i; i = i->next) {
			const struct apenet_conf_node *nm, *xyz;
			unsigned v[3];
			if (apenet_conf_expect(c, i, APENET_CONF_MAP, "node", e) || apenet_conf_check_keys(c, i, node_keys, e))
				return -1;
			if (!(nm = apenet_conf_get(i, "name")) || apenet_conf_expect(c, nm, APENET_CONF_SCALAR, "name", e))
				return nm ? -1 : apenet_conf_error(c, i, e, "a node needs 'name'");
			if (!(xyz = apenet_conf_get(i, "node")))
				return apenet_conf_error(c, i, e, "node '%s' needs 'node: X,Y,Z'", nm->value);
			if (apenet_conf_triple(c, xyz, ',', v, e))
				return -1;
			if (v[0] >= cl->dims[0] || v[1] >= cl->dims[1] || v[2] >= cl->dims[2])
				return apenet_conf_error(c, xyz, e, "'node': %u,%u,%u is outside the %ux%ux%u torus", v[0], v[1], v[2],
						  cl->dims[0], cl->dims[1], cl->dims[2]);
			if (strlen(nm->value) >= sizeof(cl->nodes[0].name) || !*nm->value)
				return apenet_conf_error(c, nm, e, "'name': must be 1..63 characters");
			uint32_t *ns = name_slot(cl, nm->value), *cs = &cl->by_coord[coord_slot(cl, v[0], v[1], v[2])];
			if (*ns)
				return apenet_conf_error(c, nm, e, "node name '%s' given twice", nm->value);
			if (*cs)
				return apenet_conf_error(c, xyz, e, "node %u,%u,%u named twice ('%s' and '%s')", v[0], v[1], v[2],
							 cl->nodes[*cs - 1].name, nm->value);
			struct apenet_node_name *nn = &cl->nodes[cl->nnodes++];
			snprintf(nn->name, sizeof(nn->name), "%s", nm->value);
			nn->x = v[0];
			nn->y = v[1];
			nn->z = v[2];
			*ns = *cs = cl->nnodes;
		}
	}
	cl->have = 1;
	return 0;
}


/* `supervisor:` (the supervisor's own settings) and `supervisors:` (where
 * the agents report) are a letter apart: a key of one written in the other
 * is named as such, rather than answered with the other's key list. */
static int misplaced(const struct apenet_conf *c, const struct apenet_conf_node *root, struct apenet_err *e)
{
	static const char *const what[2] = { "the supervisor's own settings", "where the agents report" };
	const struct apenet_config_table *t = apenet_config_table_find("supervisor");
	const struct apenet_config_desc *rows[2] = { t->rows, apenet_config_supervisors_rows() };
	const size_t nrows[2] = { t->n, APENET_NSUP_KEYS };
	const char *name[2] = { "supervisor", "supervisors" };
	for (int h = 0; h < 2; h++) {
		const struct apenet_conf_node *m = apenet_conf_get(root, name[h]);
		for (const struct apenet_conf_node *n = m && m->kind == APENET_CONF_MAP ? m->child : NULL; n; n = n->next) {
			int here = 0, there = 0;
			for (size_t k = 0; k < nrows[h]; k++)
				here |= !strcmp(rows[h][k].key, n->key);
			for (size_t k = 0; k < nrows[!h]; k++)
				there |= !strcmp(rows[!h][k].key, n->key);
			if (!here && there)
				return apenet_err_set(e, APENET_EINVAL, "%s:%d:%d: '%s' belongs in '%s:' (%s), not in '%s:'",
						      c->file, n->key_line, n->key_col, n->key, name[!h], what[!h], name[h]);
		}
	}
	return 0;
}

/* Both entry points end here: the tree is parsed, whatever held the text. */
static int config_from_tree(struct apenet_conf *c, struct apenet_config *cfg, struct apenet_err *e)
{
	static const char *const keys[] = { "cluster", "thresholds", "agent", "supervisors", "supervisor", "slurm", NULL };
	const struct apenet_conf_node *n;
	int rc = -1;
	if (apenet_conf_expect(c, c->root, APENET_CONF_MAP, "document", e) || apenet_conf_check_keys(c, c->root, keys, e) ||
	    misplaced(c, c->root, e))
		goto out;
	if ((n = apenet_conf_get(c->root, "cluster")) && load_cluster(c, n, &cfg->cl, e))
		goto out;
	if ((n = apenet_conf_get(c->root, "thresholds")) && load_thresholds(c, n, &cfg->thr, e))
		goto out;
	/* which thresholds the file set, for `apenet config check` */
	for (unsigned i = 0; n && i < NTHR; i++)
		cfg->thr_given[i] = apenet_conf_get(n, thr_keys[i].key) != NULL;
	for (size_t i = 0; i < NSECTIONS; i++)
		if ((n = apenet_conf_get(c->root, sections[i].t.section)) && load_section(c, n, &sections[i], cfg, e))
			goto out;
	if ((n = apenet_conf_get(c->root, "supervisors")) && apenet_config_load_supervisors(c, n, cfg, e))
		goto out;
	rc = 0;
out:
	apenet_conf_free(c);
	if (rc)
		apenet_config_free(cfg);
	return rc;
}

int apenet_config_load(const char *path, struct apenet_config *cfg, struct apenet_err *e)
{
	struct apenet_conf *c;
	apenet_config_defaults(cfg);
	if (!path)
		return 0;
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	if (apenet_conf_load(path, &c, e))
		return -1;
	return config_from_tree(c, cfg, e);
}

int apenet_config_load_string(const char *name, const char *text, struct apenet_config *cfg, struct apenet_err *e)
{
	struct apenet_conf *c;
	apenet_config_defaults(cfg);
	snprintf(cfg->path, sizeof(cfg->path), "%s", name);
	if (apenet_conf_load_string(name, text, &c, e))
		return -1;
	return config_from_tree(c, cfg, e);
}

const char *apenet_config_node_name(const struct apenet_config *c, unsigned x, unsigned y, unsigned z)
{
	const struct apenet_cluster *cl = &c->cl;
	if (cl->by_coord) {
		if (x >= cl->dims[0] || y >= cl->dims[1] || z >= cl->dims[2])
			return NULL;
		uint32_t k = cl->by_coord[coord_slot(cl, x, y, z)];
		return k ? cl->nodes[k - 1].name : NULL;
	}
	for (unsigned i = 0; i < cl->nnodes; i++)
		if (cl->nodes[i].x == x && cl->nodes[i].y == y && cl->nodes[i].z == z)
			return cl->nodes[i].name;
	return NULL;
}

int apenet_config_node_by_name(const struct apenet_config *c, const char *name, unsigned xyz[3])
{
	const struct apenet_cluster *cl = &c->cl;
	const struct apenet_node_name *n = NULL;
	if (cl->by_name) {
		uint32_t k = *name_slot(cl, name);
		n = k ? &cl->nodes[k - 1] : NULL;
	} else {
		for (unsigned i = 0; i < cl->nnodes && !n; i++)
			if (!strcmp(cl->nodes[i].name, name))
				n = &cl->nodes[i];
	}
	if (!n)
		return -1;
	xyz[0] = n->x;
	xyz[1] = n->y;
	xyz[2] = n->z;
	return 0;
}

/* ---- descriptors: the thresholds table, for `apenet config check` ---- */

_Static_assert(NTHR == APENET_NTHR, "every double of struct apenet_thresholds has a row in thr_keys");

/* Unit and meaning of each threshold, as docs/config.md gives them (the
 * key list itself is thr_keys: a key without a row here still shows, with
 * unit "?", and test_config fails until it is documented). */
static const struct {
	const char *key, *unit, *doc;
} thr_docs[] = {
	{ "fpga_temp_warn_c", "°C", "FPGA die temperature (SENS_FPGA_TEMP) that gives FPGA_TEMP warn" },
	{ "fpga_temp_fail_c", "°C", "FPGA die temperature that gives FPGA_TEMP fail" },
	{ "board_temp_warn_c", "°C", "board temperature (SENS_BOARD_TEMP) that gives BOARD_TEMP warn" },
	{ "board_temp_fail_c", "°C", "board temperature that gives BOARD_TEMP fail" },
	{ "vdroop_warn_pct", "%", "core supply (SENS_VCORE) this far below its nominal (SENS_VCORE_NOM) gives VCORE_LOW warn" },
	{ "vdroop_fail_pct", "%", "core supply droop that gives VCORE_LOW fail" },
	{ "v12_tol_warn_pct", "%", "12 V input (SENS_V12) this far off 12 V, either way, gives V12_RANGE warn" },
	{ "v12_tol_fail_pct", "%", "12 V input deviation that gives V12_RANGE fail" },
	{ "crc_warn_per_min", "errors/min", "header + footer CRC errors of a link (each retransmitted) that give LINK_CRC warn" },
	{ "crc_fail_per_min", "errors/min", "header + footer CRC errors of a link that give LINK_CRC fail" },
	{ "payload_warn_per_min", "errors/min", "payload CRC errors (flagged in the footer, passed to software) that give LINK_PAYLOAD warn" },
	{ "lane_errors_warn_per_min", "errors/min", "8b/10b code violations + disparity errors of one lane that give LANE_CODE_ERRORS warn" },
	{ "flaps_fail", "events", "up-to-down transitions of a link within the interval that give LINK_FLAPPING fail" },
	{ "align_restarts_warn", "events", "the fewest RESTART ALIGN events of one lane (since the counters were cleared, or in the interval: see since_clear_min_s) that can give LANE_ALIGN_RESTARTS warn" },
	{ "align_restarts_warn_per_hour", "events/hour", "the rate those restarts must be proven to reach over that same time, so that a few restarts over weeks stay quiet" },
	{ "ldm_age_warn_ms", "ms", "age of the last LDM from the neighbour of a link that is up that gives LDM_STALE warn" },
	{ "ldm_age_fail_ms", "ms", "LDM age that gives LDM_STALE fail: the neighbour's DNP has probably hung" },
	{ "fifo_hwm_warn_pct", "% of T_RED", "RX FIFO level (the higher of LINK_FIFO_LVL0/1) as a share of LINK_T_RED that, reached at both samples of an interval, gives FIFO_HIGH warn" },
	{ "rate_confidence", "probability", "confidence of the lower bound a rate must clear: the higher, the more events a rate rule needs before it fires" },
	{ "rate_min_events", "events", "the fewest events a rate rule fires on, whatever the interval" },
	{ "since_clear_min_s", "s", "counts since the counters were cleared (alignment restarts) are judged only over at least this long; shorter, the interval's own deltas are" },
	{ "clear_after_samples", "samples", "hysteresis for repeated judging (apenet watch, the agent): a finding clears after this many samples in a row without it" },
	{ "temp_clear_margin_c", "°C", "hysteresis: a raised temperature finding clears only this far below its limit" },
	{ "supply_clear_margin_pct", "% of nominal", "hysteresis: a raised supply finding clears only this far back inside its limit" },
	{ "icore_sick_ma", "mA", "FPGA core current (SENS_ICORE) above which the DNP's own LDM current field says sick; the agent writes it to THR_ICORE_SICK (no host rule judges the current)" },
};

int apenet_config_threshold_desc(size_t i, struct apenet_thr_desc *d)
{
	if (i >= NTHR)
		return -1;
	struct apenet_config def;
	apenet_config_defaults(&def);
	d->key = thr_keys[i].key;
	d->off = thr_keys[i].off;
	d->min = thr_keys[i].min;
	d->max = thr_keys[i].max;
	d->def = thr_value(&def.thr, d->key);
	d->unit = "?";
	d->doc = "";
	for (size_t k = 0; k < sizeof(thr_docs) / sizeof(thr_docs[0]); k++)
		if (!strcmp(thr_docs[k].key, d->key)) {
			d->unit = thr_docs[k].unit;
			d->doc = thr_docs[k].doc;
		}
	return 0;
}

double apenet_config_threshold_value(const struct apenet_thresholds *t, const struct apenet_thr_desc *d)
{
	return *(const double *)((const char *)t + d->off);
}

const char *apenet_config_default_path(void)
{
	return APENET_SYSCONFDIR "/apenet/apenet.yaml";
}

const struct apenet_config_table *apenet_config_table(size_t i)
{
	return i < NSECTIONS ? &sections[i].t : NULL;
}

const struct apenet_config_table *apenet_config_table_find(const char *section)
{
	for (size_t i = 0; i < NSECTIONS; i++)
		if (!strcmp(sections[i].t.section, section))
			return &sections[i].t;
	return NULL;
}

const void *apenet_config_section(const struct apenet_config *c, const struct apenet_config_table *t)
{
	return (const char *)c + t->struct_off;
}

double apenet_config_num(const void *section, const struct apenet_config_desc *d)
{
	return d->is_str ? 0 : *(const double *)(const void *)((const char *)section + d->off);
}

const char *apenet_config_str(const void *section, const struct apenet_config_desc *d)
{
	return d->is_str ? (const char *)section + d->off : "";
}

int apenet_config_given(const struct apenet_config *c, const struct apenet_config_table *t, size_t i)
{
	return i < t->n && ((const unsigned char *)c + t->given_off)[i];
}

const struct apenet_config_desc *apenet_config_desc_find(const struct apenet_config_table *t, const char *key)
{
	for (size_t i = 0; t && i < t->n; i++)
		if (!strcmp(t->rows[i].key, key))
			return &t->rows[i];
	return NULL;
}

int apenet_config_differs(const void *a, const void *b, const struct apenet_config_desc *d)
{
	if (d->is_str)
		return strcmp(apenet_config_str(a, d), apenet_config_str(b, d)) != 0;
	return apenet_config_num(a, d) != apenet_config_num(b, d);
}

void apenet_config_copy(void *dst, const void *src, const struct apenet_config_desc *d)
{
	char *p = (char *)dst + d->off;
	if (d->is_str)
		snprintf(p, d->size, "%s", apenet_config_str(src, d));
	else
		*(double *)(void *)p = apenet_config_num(src, d);
}

int apenet_config_instance(const struct apenet_supervisor_config *s, unsigned n, char *listen, size_t ln, char *db,
			   size_t dn, struct apenet_err *e)
{
	struct span l[APENET_CONFIG_MAX_INSTANCES], d[APENET_CONFIG_MAX_INSTANCES];
	unsigned kl = list_split(s->listen, l, APENET_CONFIG_MAX_INSTANCES);
	unsigned kd = list_split(s->db, d, APENET_CONFIG_MAX_INSTANCES);
	unsigned k = kl < kd ? kl : kd; /* the loader makes them equal */
	if (k > APENET_CONFIG_MAX_INSTANCES)
		k = APENET_CONFIG_MAX_INSTANCES;
	if (n < 1 || n > k)
		return apenet_err_set(e, APENET_EINVAL, "--instance %u: the config lists %u (supervisor: listen, db)%s", n,
				      k, n < 1 ? "; instances count from 1" : "");
	const struct span *x = &l[n - 1], *y = &d[n - 1];
	if (x->n >= ln)
		return apenet_err_set(e, APENET_EINVAL, "--instance %u: listen '%.*s' is longer than its buffer", n,
				      (int)x->n, x->p);
	if (y->n >= dn)
		return apenet_err_set(e, APENET_EINVAL, "--instance %u: db '%.*s' is longer than its buffer", n, (int)y->n,
				      y->p);
	snprintf(listen, ln, "%.*s", (int)x->n, x->p);
	snprintf(db, dn, "%.*s", (int)y->n, y->p);
	return 0;
}

const char *apenet_config_path(const char *opt, const char **from)
{
	const char *env = getenv("APENET_CONFIG"), *def = apenet_config_default_path();
	if (opt) {
		*from = "--config";
		return opt;
	}
	/* set but empty: the defaults, even when a config is installed */
	if (env) {
		*from = *env ? "$APENET_CONFIG" : "defaults ($APENET_CONFIG is empty)";
		return *env ? env : NULL;
	}
	if (access(def, F_OK) == 0) {
		*from = "installed default";
		return def;
	}
	*from = "defaults";
	return NULL;
}
