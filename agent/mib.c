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
#include <stdlib.h>
#include <string.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/agentx.h"
#include "apenet/log.h"
#include "apenet/mib_node.h"
#include "apenet/module.h"
#include "apenet/regs.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"

static void refresh(struct apenet_mib *m, void *ctx)
{
	struct agent *a = ctx;
	const struct apenet_module_health *mod[APENET_MAX_LINKS];
	for (unsigned l = 0; l < APENET_MAX_LINKS; l++)
		mod[l] = a->cable_module_ok[l] ? &a->cable_module[l] : NULL;
	struct apenet_mib_node_in in = {
		.v = a->judge.vshort,
		.cfg = &a->cfg,
		.raised = &a->raised,
		.wd = &a->wd,
		.host_hb = a->host_hb,
		.now_ms = apenet_clock_epoch_ms(),
		.periods = a->periods,
		.serial = (const char (*)[17])a->cable_serial,
		.cert = (const struct apenet_hdb_cert *const *)a->cable_cert,
		.module = mod,
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
	for (unsigned l = 0; l < APENET_MAX_LINKS; l++) {
		free(a->cable_cert[l]);
		a->cable_cert[l] = NULL;
	}
	if (a->certdb)
		apenet_hdb_close(a->certdb);
	a->certdb = NULL;
}

/* Link l's module decoded into a->cable_module[l] (its receivers' power
 * and thresholds for apenetModuleTable); not ok when there is no module or
 * the image does not decode. */
static void cable_module(struct agent *a, unsigned l, const struct apenet_module_image *img, uint32_t ee_status)
{
	static struct apenet_sff8636 q; /* large: one each, the agent is one thread */
	static struct apenet_sff8472 s;
	char err[256];
	a->cable_module_ok[l] = 0;
	if (!APENET_GET(EE_STATUS, PRESENT, ee_status))
		return;
	if (img->layout == APENET_EE_SFF8472) {
		if (apenet_sff8472_decode(img->b, img->len, &s, err, sizeof(err)))
			return;
		apenet_sff8472_health(&s, &a->cable_module[l]);
	} else {
		if (apenet_sff8636_decode(img->b, img->len, &q, err, sizeof(err)))
			return;
		apenet_sff8636_health(&q, &a->cable_module[l]);
	}
	a->cable_module_ok[l] = 1;
}

/* Each link's module serial (and its decoded health), from a period whose
 * sample read the EEPROM windows (every agent.module_interval_s); 1 when a
 * serial changed. */
static int cable_serials(struct agent *a)
{
	const struct apenet_view *v = a->judge.vshort;
	int changed = 0;
	for (unsigned l = 0; v->prof && l < v->s1.nlinks && l < APENET_MAX_LINKS; l++) {
		if (!v->ee_status[l])
			continue; /* not read this period: the last serial stays */
		struct apenet_module_image img;
		struct apenet_module_id id;
		char why[160], serial[17] = "";
		apenet_module_from_window(v->ee[l], v->ee_status[l], &img);
		cable_module(a, l, &img, v->ee_status[l]);
		if (!apenet_module_identity(&img, &id, why, sizeof(why)))
			snprintf(serial, sizeof(serial), "%s", id.serial);
		if (strcmp(serial, a->cable_serial[l])) {
			memcpy(a->cable_serial[l], serial, sizeof(serial));
			changed = 1;
		}
	}
	return changed;
}

struct first_cert {
	struct apenet_hdb_cert *out;
	int found;
};

static int on_cert(void *arg, const struct apenet_hdb_cert *c)
{
	struct first_cert *f = arg;
	if (!f->found) { /* newest first: the first is the latest */
		*f->out = *c;
		f->found = 1;
	}
	return 0;
}

/* The latest certificate of each link's cable, from the certificates
 * database (read-only; a missing file is said once, then tried again every
 * minute: apenet qualify may create it later). */
static void cable_certs(struct agent *a)
{
	struct apenet_err e = { 0 };
	if (!a->certdb) {
		char path[APENET_PATH_MAX], listen[256];
		if (a->cfg.agent.certificates_db[0])
			snprintf(path, sizeof(path), "%s", a->cfg.agent.certificates_db);
		else if (apenet_config_instance(&a->cfg.svr, 1, listen, sizeof(listen), path, sizeof(path), &e))
			path[0] = 0;
		if (!path[0] || apenet_hdb_open(path, APENET_HDB_READONLY, &a->certdb, &e)) {
			if (!a->certdb_logged)
				apenet_log(APENET_LOG_INFO, "certificates: %s; apenetCertTable says none until it can be read",
					   e.msg[0] ? e.msg : "no database");
			a->certdb_logged = 1;
			a->certdb = NULL;
			return;
		}
		a->certdb_logged = 0;
	}
	for (unsigned l = 0; l < APENET_MAX_LINKS; l++) {
		free(a->cable_cert[l]);
		a->cable_cert[l] = NULL;
		if (!a->cable_serial[l][0])
			continue;
		struct apenet_hdb_cert *c = calloc(1, sizeof(*c));
		struct first_cert f = { c, 0 };
		if (!c || apenet_hdb_certs_each(a->certdb, a->cable_serial[l], on_cert, &f, &e) || !f.found) {
			if (c && e.msg[0])
				apenet_log(APENET_LOG_WARN, "certificates of %s: %s", a->cable_serial[l], e.msg);
			free(c);
			continue;
		}
		a->cable_cert[l] = c;
	}
}

void agent_mib_period(struct agent *a)
{
	if (!a->mib_on)
		return;
	if (!a->mib.registered) {
		struct apenet_err e = { 0 };
		if (!a->judge.fed)
			return;
		if (apenet_mib_register(&a->mib, &e)) {
			apenet_log(APENET_LOG_ERR, "AgentX: %s; APENET-MIB not served", e.msg);
			apenet_mib_free(&a->mib);
			a->mib_on = 0;
			return;
		}
	}
	int64_t now = apenet_clock_epoch_ms();
	if (cable_serials(a) || now >= a->next_cert_ms) {
		a->next_cert_ms = now + 60000;
		cable_certs(a);
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
