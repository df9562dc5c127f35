/*
 * The supervisor's view over SNMP: an AgentX subagent of the host's snmpd
 * in the supervisor's own loop (snmp/agentx.c), serving apenetNodeTable
 * and apenetIncidentTable (snmp/mib_cluster.c) from the health database.
 * The tables are marked stale at most every agentx_cache_ms and refilled
 * by the first request after that: an unpolled supervisor reads nothing
 * for SNMP, a walk reads the database once.
 */
#include <stdio.h>

#include "apenet/clock.h"
#include "apenet/agentx.h"
#include "apenet/log.h"
#include "apenet/mib_cluster.h"
#include "sup.h"

static void refresh(struct apenet_mib *m, void *ctx)
{
	struct sup *s = ctx;
	struct apenet_err e = { 0 };
	struct apenet_mib_cluster_in in = { .db = s->db, .now_ms = apenet_clock_epoch_ms(), .silence_ms = (int64_t)s->cfg.svr.silent_ms };
	if (apenet_mib_cluster_fill(m, &in, &e))
		apenet_log(APENET_LOG_WARN, "AgentX: the cluster tables are empty: %s", e.msg);
}

/* Before sup_recv_open (which starts net-snmp). */
void sup_mib_want(struct sup *s)
{
	if (s->cfg.svr.agentx)
		apenet_agentx_want(s->cfg.svr.agentx_socket, (unsigned)s->cfg.svr.agentx_ping_s);
}

int sup_mib_open(struct sup *s, struct apenet_err *e)
{
	if (!s->cfg.svr.agentx) {
		apenet_log(APENET_LOG_NOTICE, "AgentX off (supervisor.agentx: 0): the cluster tables are not served");
		return 0;
	}
	if (apenet_mib_cluster_init(&s->mib, e))
		return -1;
	s->mib.refresh = refresh;
	s->mib.ctx = s;
	if (apenet_mib_register(&s->mib, e)) {
		apenet_mib_free(&s->mib);
		return -1;
	}
	s->mib_on = 1;
	apenet_log(APENET_LOG_NOTICE, "AgentX: serving the cluster tables through %s (ping every %g s, refilled at most every %g ms)",
		   s->cfg.svr.agentx_socket[0] ? s->cfg.svr.agentx_socket : "net-snmp's default socket",
		   s->cfg.svr.agentx_ping_s, s->cfg.svr.agentx_cache_ms);
	return 0;
}

void sup_mib_close(struct sup *s)
{
	if (s->mib_on)
		apenet_mib_free(&s->mib);
	s->mib_on = 0;
	apenet_agentx_shutdown();
}

void sup_mib_tick(struct sup *s, int64_t mono)
{
	if (!s->mib_on || mono - s->mib_stale_mono < (int64_t)s->cfg.svr.agentx_cache_ms)
		return;
	s->mib_stale_mono = mono;
	apenet_mib_stale(&s->mib);
}
