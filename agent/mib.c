/*
 * APENET-MIB through the host's snmpd: the agent is an AgentX subagent
 * (snmp/agentx.c) in its own loop, serving its card's tables
 * (snmp/mib_node.c) from the latest period's sample.  Every period marks
 * the tables stale; the first request after that fills them once, so a
 * walk never reads a register and an agent nobody polls fills nothing.
 * With agent.agentx_traps, every transition also goes to snmpd's trap
 * sinks as an apenetHealthChange.
 */
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "apenet/agentx.h"
#include "apenet/log.h"
#include "apenet/mib_node.h"

static void refresh(struct apenet_mib *m, void *ctx)
{
	struct agent *a = ctx;
	struct apenet_mib_node_in in = {
		.v = a->vshort,
		.cfg = &a->cfg,
		.raised = &a->raised,
		.wd = &a->wd,
		.host_hb = a->host_hb,
		.now_ms = agent_now_ms(),
		.periods = a->periods,
	};
	apenet_mib_node_fill(m, &in);
}

/* Before the reports (agent_report_open): the subagent role must be chosen
 * before net-snmp starts. */
int agent_mib_open(struct agent *a, struct apenet_err *e)
{
	const struct apenet_agent_config *c = &a->cfg.agent;
	char dir[APENET_PATH_MAX + 8];
	if (!c->agentx) {
		apenet_log(APENET_LOG_NOTICE, "AgentX off (agent.agentx: 0): APENET-MIB not served");
		return 0;
	}
	if (snprintf(dir, sizeof(dir), "%s/snmp", c->state_dir) >= (int)sizeof(dir))
		return apenet_err_set(e, APENET_EINVAL, "%s: state_dir too long", c->state_dir);
	apenet_agentx_want(c->agentx_socket, (unsigned)c->agentx_ping_s);
	if (apenet_snmp_init(dir, e))
		return -1;
	if (apenet_mib_node_init(&a->mib, a->smp.dev.prof, 1, e))
		return -1;
	a->mib.refresh = refresh;
	a->mib.ctx = a;
	/* registered after the first period (agent_mib_period): no row is
	 * served before there is a sample to fill it */
	a->mib_on = 1;
	apenet_log(APENET_LOG_NOTICE, "AgentX: serving APENET-MIB through %s (ping every %g s)%s",
		   c->agentx_socket[0] ? c->agentx_socket : "net-snmp's default socket", c->agentx_ping_s,
		   c->agentx_traps ? ", transitions to snmpd's trap sinks" : "");
	return 0;
}

void agent_mib_close(struct agent *a)
{
	if (a->mib_on)
		apenet_mib_free(&a->mib);
	a->mib_on = 0;
	apenet_agentx_shutdown();
}

void agent_mib_period(struct agent *a)
{
	if (!a->mib_on)
		return;
	if (!a->mib.registered) {
		struct apenet_err e = { 0 };
		if (!a->have_prev)
			return;
		if (apenet_mib_register(&a->mib, &e)) {
			apenet_log(APENET_LOG_ERR, "AgentX: %s; APENET-MIB not served", e.msg);
			apenet_mib_free(&a->mib);
			a->mib_on = 0;
			return;
		}
	}
	apenet_mib_stale(&a->mib);
}

void agent_mib_event(struct agent *a, const struct apenet_event *ev)
{
	if (!a->mib_on || !a->cfg.agent.agentx_traps || ev->kind != APENET_EV_TRANSITION)
		return;
	struct apenet_report r;
	struct apenet_err e = { 0 };
	agent_report_of_event(a, ev, &r);
	if (apenet_agentx_notify(&r, &e))
		apenet_log(APENET_LOG_INFO, "trap sinks: %s %s not sent: %s", r.code, r.where, e.msg);
}

int agent_mib_pollfds(struct agent *a, struct pollfd *fds, unsigned *n, unsigned max, int *timeout_ms)
{
	if (!a->mib_on)
		return 0;
	int k = apenet_agentx_pollfds(fds + *n, (int)(max - *n), timeout_ms);
	*n += (unsigned)k;
	return k;
}

void agent_mib_dispatch(struct agent *a, const struct pollfd *fds, unsigned n)
{
	if (a->mib_on)
		apenet_agentx_dispatch(fds, (int)n);
}
