/*
 * A restarted supervisor goes on from its database, not from nothing: the
 * deduction is seeded, in the order it asks for (include/apenet/deduce.h),
 * with the incidents still open, when each node was last heard, and the
 * current (not normal) states of every node, so that an incident open
 * before the restart is continued, not opened twice, and one whose fault
 * cleared while the supervisor was away closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/clock.h"
#include "apenet/log.h"
#include "sup.h"

int sup_deduce_config(const struct apenet_config *cfg, struct apenet_deduce_config *dc, struct apenet_err *e)
{
	if (!cfg->cl.have)
		return apenet_err_set(e, APENET_EINVAL,
				      "the supervisor needs the cluster's layout: a 'cluster' section with 'dims: XxYxZ'");
	apenet_deduce_config_from(dc, &cfg->svr, cfg->cl.dims);
	return apenet_deduce_config_check(dc, e);
}

struct seed {
	struct sup *s;
	int64_t now;
	unsigned incidents, nodes, states;
	unsigned (*worst)[3];
	size_t nworst, capworst;
	struct apenet_err *e;
	int failed;
};

static int on_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct seed *k = arg;
	struct apenet_deduce_restore r = {
		.ref = in->id,
		.component = in->component,
		.rule = in->rule,
		.has_node = strcmp(in->component, "supervisor") != 0,
		.x = in->node[0],
		.y = in->node[1],
		.z = in->node[2],
		.link = in->link,
		.where = "",
		.status = 2,
		.first_ms = in->first.time_ms ? in->first.time_ms : in->opened_ms,
	};
	struct apenet_err e = { 0 };
	uint64_t key = apenet_deduce_restore(k->s->ded, &r, k->now, &e);
	if (!key) {
		/* the engine cannot hold it (the layout changed...): closed, so
		 * that it does not stay open forever with nothing to close it */
		apenet_log(APENET_LOG_WARN, "incident %lld (%s on %u,%u,%u) cannot be continued: %s; closed", (long long)in->id,
			   in->component, in->node[0], in->node[1], in->node[2], e.msg);
		if (apenet_hdb_incident_close(k->s->db, in->id, k->now, APENET_HDB_CLOSED, 0, k->e)) {
			k->failed = 1;
			return 1;
		}
		return 0;
	}
	apenet_deduce_set_ref(k->s->ded, key, in->id);
	k->incidents++;
	return 0;
}

/* An incident still provisional when the supervisor stopped: nothing has
 * acted on it, and its evidence is deduced again from the current states
 * below (a new provisional incident, which settles in its own window). */
static int on_provisional(void *arg, const struct apenet_hdb_incident *in)
{
	struct seed *k = arg;
	apenet_log(APENET_LOG_NOTICE, "incident %lld (%s on %u,%u,%u) withdrawn: it had not settled when this supervisor "
				      "stopped; its evidence is deduced again",
		   (long long)in->id, in->component, in->node[0], in->node[1], in->node[2]);
	if (apenet_hdb_incident_close(k->s->db, in->id, k->now, APENET_HDB_CLOSED, 0, k->e)) {
		k->failed = 1;
		return 1;
	}
	return 0;
}

static int on_node(void *arg, const struct apenet_hdb_node *n)
{
	struct seed *k = arg;
	/* Heard "now": a supervisor that was itself down for a minute has not
	 * heard anyone in that minute, which says nothing about the nodes.  A
	 * node still silent after silent_ms from here is silent. */
	if (n->self_recv_ms) {
		apenet_deduce_heard(k->s->ded, n->x, n->y, n->z, k->now, k->now);
		k->nodes++;
	}
	if (n->worst) {
		if (k->nworst == k->capworst) {
			size_t cap = k->capworst ? k->capworst * 2 : 64;
			unsigned(*w)[3] = realloc(k->worst, cap * sizeof(*w));
			if (!w) {
				apenet_err_set(k->e, APENET_EIO, "out of memory");
				k->failed = 1;
				return 1;
			}
			k->worst = w;
			k->capworst = cap;
		}
		k->worst[k->nworst][0] = n->x;
		k->worst[k->nworst][1] = n->y;
		k->worst[k->nworst][2] = n->z;
		k->nworst++;
	}
	return 0;
}

static int on_state(void *arg, const struct apenet_hdb_state *st)
{
	struct seed *k = arg;
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	r.x = st->node[0];
	r.y = st->node[1];
	r.z = st->node[2];
	snprintf(r.boot, sizeof(r.boot), "%s", st->boot);
	r.seq = st->seq;
	r.time_ms = st->time_ms;
	r.subject = st->subject;
	snprintf(r.where, sizeof(r.where), "%s", st->where);
	snprintf(r.code, sizeof(r.code), "%s", st->code);
	r.old_status = 0;
	r.new_status = st->status;
	r.path = st->path;
	snprintf(r.via, sizeof(r.via), "%s", st->via);
	/* received when it was seen: it was news then */
	apenet_deduce_report(k->s->ded, &r, st->time_ms);
	k->states++;
	return 0;
}

int sup_restore(struct sup *s, struct apenet_err *e)
{
	struct seed k = { .s = s, .now = apenet_clock_epoch_ms(), .e = e };
	int64_t silence = (int64_t)s->cfg.svr.silent_ms;
	if (apenet_hdb_incidents_provisional_each(s->db, on_provisional, &k, e) || k.failed ||
	    apenet_hdb_incidents_open_each(s->db, on_incident, &k, e) || k.failed)
		goto fail;
	if (apenet_hdb_nodes_each(s->db, k.now, silence, 0, on_node, &k, e) || k.failed)
		goto fail;
	for (size_t i = 0; i < k.nworst; i++)
		if (apenet_hdb_node_states_each(s->db, k.worst[i], 1, on_state, &k, e))
			goto fail;
	free(k.worst);
	if (k.incidents || k.states)
		apenet_log(APENET_LOG_NOTICE, "continuing from %s: %u open incidents, %u nodes heard, %u current states",
			   s->db_path, k.incidents, k.nodes, k.states);
	return 0;
fail:
	free(k.worst);
	return -1;
}
