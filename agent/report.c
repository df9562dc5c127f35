/*
 * The agent's reports to the supervisors: every transition the agent emits
 * and a heartbeat every heartbeat_s go to the SNMP notifier (snmp/notify.c:
 * spooled first, then an INFORM to each supervisor, resent in order until
 * acknowledged; a heartbeat is held in memory until both have it:
 * include/apenet/spool.h).  The notifier's descriptors join the one poll
 * loop; its view of the supervisors drives the service field of LDM_HOST
 * (both acknowledging: normal; one: sick; none for service_timeout_s:
 * broken).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/log.h"
#include "apenet/usm.h"
#include "apenet/notify.h"

static int subject_of(const char *s)
{
	static const struct {
		const char *agent;
		int report;
	} map[] = {
		{ "board", APENET_REPORT_SUBJ_BOARD },   { "link", APENET_REPORT_SUBJ_LINK },
		{ "lane", APENET_REPORT_SUBJ_LANE },     { "module", APENET_REPORT_SUBJ_MODULE },
		{ "sensor", APENET_REPORT_SUBJ_SENSOR }, { "cabling", APENET_REPORT_SUBJ_CABLING },
		{ "host", APENET_REPORT_SUBJ_HOST },     { "memory", APENET_REPORT_SUBJ_HOST },
		{ "service", APENET_REPORT_SUBJ_HOST },  { "dnp", APENET_REPORT_SUBJ_BOARD },
		{ "card", APENET_REPORT_SUBJ_BOARD },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].agent, s))
			return map[i].report;
	return APENET_REPORT_SUBJ_BOARD; /* an LDM field of a neighbour: its board's health */
}

static void node_name(const struct agent *a, const unsigned xyz[3], char *buf, size_t n)
{
	const char *name = apenet_config_node_name(&a->cfg, xyz[0], xyz[1], xyz[2]);
	snprintf(buf, n, "%s", name ? name : "");
}

/* The boot id names the reporting agent and its run: "1,1,0#7".  A report
 * about a neighbour carries the neighbour's coordinates, so (node, boot,
 * sequence) alone would mix two reporters' sequences; the reporter in the
 * boot id keeps the key unique across the machine. */
static void boot_of(const struct agent *a, char *buf, size_t n)
{
	snprintf(buf, n, "%u,%u,%u#%llu", a->xyz[0], a->xyz[1], a->xyz[2], (unsigned long long)a->boot_id);
}

static void submit(struct agent *a, struct apenet_report *r)
{
	struct apenet_err e = { 0 };
	if (apenet_notifier_submit(a->notifier, r, &e)) {
		a->report_errors++;
		apenet_log(APENET_LOG_ERR, "report %s seq %llu not stored: %s", r->code[0] ? r->code : "heartbeat",
			   (unsigned long long)r->seq, e.msg);
	}
}

/* The report of a transition, as the supervisors and the trap sinks get it. */
void agent_report_of_event(const struct agent *a, const struct apenet_event *ev, struct apenet_report *out)
{
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	r.x = ev->node[0];
	r.y = ev->node[1];
	r.z = ev->node[2];
	node_name(a, ev->node, r.node, sizeof(r.node));
	boot_of(a, r.boot, sizeof(r.boot));
	r.seq = ev->seq;
	r.time_ms = ev->time_ms;
	r.subject = subject_of(ev->subject);
	snprintf(r.where, sizeof(r.where), "%s", ev->where[0] ? ev->where : ev->subject);
	snprintf(r.code, sizeof(r.code), "%s", ev->code);
	r.old_status = ev->old_status;
	r.new_status = ev->new_status;
	r.value = ev->value;
	r.threshold = ev->threshold;
	snprintf(r.unit, sizeof(r.unit), "%s", ev->unit);
	snprintf(r.evidence, sizeof(r.evidence), "%.199s", ev->evidence[0] ? ev->evidence : ev->message);
	r.path = ev->path == APENET_PATH_NEIGHBOUR_LDM ? APENET_REPORT_PATH_NEIGHBOUR_LDM
		 : ev->path == APENET_PATH_WATCHDOG    ? APENET_REPORT_PATH_WATCHDOG
						       : APENET_REPORT_PATH_SELF;
	snprintf(r.via, sizeof(r.via), "%.7s", ev->via);
	*out = r;
}

/* The hook agent_emit calls for every event, after logging it. */
static void on_event(void *ctx, const struct apenet_event *ev)
{
	struct agent *a = ctx;
	struct apenet_report r;
	if (ev->kind != APENET_EV_TRANSITION)
		return; /* notices (counters cleared) stay in the log and events.jsonl */
	agent_report_of_event(a, ev, &r);
	submit(a, &r);
}

static int join(char *dst, size_t n, const char *dir, const char *leaf)
{
	size_t a = strlen(dir), b = strlen(leaf);
	if (a + b + 1 > n)
		return -1;
	memcpy(dst, dir, a);
	memcpy(dst + a, leaf, b + 1);
	return 0;
}

int agent_report_open(struct agent *a, struct apenet_err *e)
{
	struct apenet_notify_config c = a->cfg.sup;
	if (!c.nsupervisors) {
		apenet_log(APENET_LOG_NOTICE, "no supervisors configured: reports off");
		return 0;
	}
	/* the spool lives with the agent's state unless the config says where */
	if ((!a->cfg.spool_given && join(c.spool, sizeof(c.spool), a->cfg.agent.state_dir, "/spool.db")) ||
	    join(c.snmp_dir, sizeof(c.snmp_dir), a->cfg.agent.state_dir, "/snmp"))
		return apenet_err_set(e, APENET_EINVAL, "%s: state_dir too long for the spool", a->cfg.agent.state_dir);
	if (apenet_notifier_open(&c, &a->notifier, e))
		return -1;
	/* A key file of another node speaks for another node: every report
	 * would be refused (docs/security.md).  Said at every start; the
	 * agent runs on (the watchdog and the LDM need no supervisor). */
	char me[APENET_USM_USER_MAX + 1];
	apenet_usm_node_user(a->xyz[0], a->xyz[1], a->xyz[2], me, sizeof(me));
	if (c.version == APENET_SNMP_V3 && strcmp(apenet_notifier_user(a->notifier), me))
		apenet_log(APENET_LOG_ERR,
			   "supervisors.key_file %s is %s's key, but this card is node %u,%u,%u: the supervisors will "
			   "refuse every report (install node-%u,%u,%u's: apenet keys node %u,%u,%u)",
			   c.key_file, apenet_notifier_user(a->notifier), a->xyz[0], a->xyz[1], a->xyz[2], a->xyz[0],
			   a->xyz[1], a->xyz[2], a->xyz[0], a->xyz[1], a->xyz[2]);
	a->notify = on_event;
	a->notify_ctx = a;
	a->next_heartbeat_ms = apenet_clock_epoch_ms();
	apenet_log(APENET_LOG_NOTICE, "reports to %u supervisors (SNMP%s), spool %s, heartbeat every %g s",
		   c.nsupervisors, c.version == APENET_SNMP_V3 ? "v3 authPriv" : "v2c", c.spool, a->cfg.heartbeat_s);
	return 0;
}

void agent_report_close(struct agent *a)
{
	if (a->notifier)
		apenet_notifier_close(a->notifier);
	a->notifier = NULL;
	a->notify = NULL;
}

void agent_report_heartbeat(struct agent *a, int64_t now_ms)
{
	if (!a->notifier || now_ms < a->next_heartbeat_ms)
		return;
	a->next_heartbeat_ms = now_ms + (int64_t)llround(a->cfg.heartbeat_s * 1000);
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEARTBEAT);
	r.x = a->xyz[0];
	r.y = a->xyz[1];
	r.z = a->xyz[2];
	node_name(a, a->xyz, r.node, sizeof(r.node));
	boot_of(a, r.boot, sizeof(r.boot));
	r.seq = ++a->seq; /* one sequence per boot for everything the agent reports */
	r.time_ms = now_ms;
	r.ldm = a->judge.fed ? (uint32_t)apenet_judge_last(&a->judge)->snap.g.LDM_OWN : 0;
	submit(a, &r);
}

int agent_report_pollfds(struct agent *a, struct pollfd *fds, unsigned *n, unsigned max, int *timeout_ms)
{
	if (!a->notifier)
		return 0;
	int k = apenet_notifier_pollfds(a->notifier, fds + *n, (int)(max - *n), timeout_ms);
	if (k < 0)
		return -1;
	*n += (unsigned)k;
	return k;
}

/*
 * A wake-up is what a report costs most on a virtual machine (~100 us of
 * the hypervisor's each, bench_agent): the acknowledgements of each second's
 * heartbeat to two supervisors woke the agent two to four times a second
 * more than its period does.  When the period is at most a quarter of an
 * INFORM's timeout, the agent reads them at its next tick instead: an
 * acknowledgement is taken at most a period late, a resend goes at most a
 * period after it is due, both far inside the timeout.  Not while reports
 * wait behind the one in flight (one INFORM at a time to each supervisor):
 * a burst (a card back on the bus says sixteen things at once) would reach
 * the supervisors a period apart, and their deduction would see the
 * neighbours' news of the links coming back before the card's own news of
 * them going (supervisor.sh, "card gone").
 */
int agent_report_at_tick(const struct agent *a)
{
	return a->notifier && a->cfg.agent.period_ms * 4 <= (double)a->cfg.sup.timeout_ms &&
	       !apenet_notifier_backlog(a->notifier);
}

void agent_report_tick(struct agent *a)
{
	struct pollfd fds[APENET_NOTIFY_MAX_FDS];
	unsigned n = 0;
	int timeout = -1;
	if (agent_report_pollfds(a, fds, &n, APENET_NOTIFY_MAX_FDS, &timeout) < 0)
		return;
	if (n && poll(fds, n, 0) < 0)
		n = 0;
	agent_report_dispatch(a, fds, n);
}

void agent_report_dispatch(struct agent *a, const struct pollfd *fds, unsigned n)
{
	if (!a->notifier)
		return;
	apenet_notifier_dispatch(a->notifier, fds, (int)n);
	struct apenet_notify_status st;
	apenet_notifier_status(a->notifier, &st);
	unsigned acking = 0;
	int64_t last = 0, now = apenet_clock_epoch_ms();
	/* A fresh agent's first report takes an engine-ID discovery (SNMPv3)
	 * and a batch's commit before its acknowledgement: a supervisor not
	 * heard yet counts as acknowledging until its first try could have
	 * been answered (net-snmp's tries of timeout_ms), so that no agent
	 * starts with a service-network transition. */
	int64_t grace = (int64_t)a->cfg.sup.timeout_ms * (a->cfg.sup.retries + 1);
	for (unsigned i = 0; i < st.nsupervisors; i++) {
		acking += st.sup[i].answering &&
			  (st.sup[i].last_ack_ms || now - a->started_ms < grace);
		if (st.sup[i].last_ack_ms > last)
			last = st.sup[i].last_ack_ms;
	}
	/* never acknowledged: count from the start, so a fresh agent is not
	 * broken before its first try could be answered */
	double since = (double)(now - (last ? last : a->started_ms)) / 1000;
	/* the service network's state as the period's host fields read it */
	a->svc_configured = st.nsupervisors;
	a->svc_acking = acking;
	a->svc_since_ack_s = since;
}
