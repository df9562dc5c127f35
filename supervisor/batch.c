/*
 * One batch: every queued report stored (deduplicated by the database), the
 * new ones handed to the deduction, its actions written as incidents, one
 * COMMIT (fsynced), and only then the acknowledgements.  A batch is bounded
 * by count (supervisor.batch_max_events) and by the wait of its oldest
 * report (batch_max_ms), so that ingest costs one fsync per batch, not per
 * INFORM, and an agent waits at most about batch_max_ms for its ack.
 *
 * When the database cannot commit, nothing of the batch is acknowledged
 * (the agents keep it in their spools and send it again) and the daemon
 * stops with an error: the deduction's memory already holds the batch, so
 * the only consistent way on is a restart from what the file holds
 * (restore.c), which systemd does (Restart=on-failure).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/clock.h"
#include "apenet/log.h"
#include "sup.h"

static void drop_replies(struct sup *s)
{
	for (size_t i = 0; i < s->nq; i++) {
		if (s->q[i].reply)
			snmp_free_pdu(s->q[i].reply);
		free(s->q[i].ack);
	}
	s->nq = 0;
}

static void send_replies(struct sup *s)
{
	if (s->sock >= 0)
		s->n.acked += sup_ack_send(s->sock, s->q, s->nq);
	for (size_t i = 0; i < s->nq; i++) {
		free(s->q[i].ack);
		netsnmp_pdu *r = s->q[i].reply;
		if (!r)
			continue;
		if (s->sess && snmp_sess_send(s->sess, r))
			s->n.acked++;
		else
			snmp_free_pdu(r);
	}
	s->nq = 0;
}

static void evidence_of(const struct apenet_deduce_evidence *d, struct apenet_hdb_evidence *h)
{
	memset(h, 0, sizeof(*h));
	h->time_ms = d->time_ms;
	h->path = d->path ? d->path : APENET_HDB_PATH_SUPERVISOR;
	snprintf(h->reporter, sizeof(h->reporter), "%s", d->reporter[0] ? d->reporter : d->path ? "" : "supervisor");
	h->seq = d->reporter[0] ? d->seq : 0;
	/* a report's evidence says what it saw, not what it is: the code,
	 * the status and the node it is about go first */
	static const char *const st[] = { "normal", "sick", "broken", "invalid" };
	if (d->path && d->code[0])
		snprintf(h->text, sizeof(h->text), "%s %s at %u,%u,%u%s%s: %.120s", d->code,
			 d->new_status >= 0 && d->new_status <= 3 ? st[d->new_status] : "?", d->x, d->y, d->z,
			 d->where[0] ? " " : "", d->where, d->text);
	else
		snprintf(h->text, sizeof(h->text), "%s", d->text);
}

static void blame_of(const struct apenet_deduce_blame *b, struct apenet_hdb_incident *in)
{
	snprintf(in->component, sizeof(in->component), "%s", b->component);
	snprintf(in->rule, sizeof(in->rule), "%s", b->rule);
	in->node[0] = b->x;
	in->node[1] = b->y;
	in->node[2] = b->z;
	snprintf(in->link, sizeof(in->link), "%s", b->link);
	in->has_far = b->has_far;
	in->far[0] = b->fx;
	in->far[1] = b->fy;
	in->far[2] = b->fz;
	snprintf(in->far_link, sizeof(in->far_link), "%s", b->far_link);
}

/* One action of the deduction into the database (inside the batch). */
static int apply(struct sup *s, const struct apenet_deduce_action *a, struct apenet_err *e)
{
	struct apenet_hdb_incident in;
	struct apenet_hdb_evidence ev;
	memset(&in, 0, sizeof(in));
	switch (a->kind) {
	case APENET_DEDUCE_OPEN: {
		blame_of(&a->blame, &in);
		in.opened_ms = a->time_ms;
		/* provisional: committed now, acted on only once it settles */
		in.settled_ms = a->provisional ? 0 : apenet_clock_epoch_ms();
		evidence_of(&a->ev, &in.first);
		int64_t id;
		if (apenet_hdb_incident_open(s->db, &in, &id, e))
			return -1;
		apenet_deduce_set_ref(s->ded, a->key, id);
		if (sup_slurm_action(s, a, id, e))
			return -1;
		apenet_log(a->provisional ? APENET_LOG_NOTICE : APENET_LOG_WARN, "incident %lld opened%s: %s on %u,%u,%u%s%s (%s): %s",
			   (long long)id, a->provisional ? " provisionally" : "", in.component, in.node[0], in.node[1],
			   in.node[2], in.link[0] ? " " : "", in.link, in.rule, a->blame.summary);
		return 0;
	}
	case APENET_DEDUCE_SETTLE:
		if (!a->ref)
			return 0;
		blame_of(&a->blame, &in);
		in.settled_ms = a->time_ms > 0 ? a->time_ms : apenet_clock_epoch_ms();
		apenet_log(APENET_LOG_WARN, "incident %lld settled: %s on %u,%u,%u%s%s (%s): %s", (long long)a->ref,
			   in.component, in.node[0], in.node[1], in.node[2], in.link[0] ? " " : "", in.link, in.rule,
			   a->blame.summary);
		if (apenet_hdb_incident_update(s->db, a->ref, &in,
					       APENET_HDB_SET_COMPONENT | APENET_HDB_SET_RULE | APENET_HDB_SET_NODE |
						       APENET_HDB_SET_LINK | APENET_HDB_SET_SETTLED,
					       e))
			return -1;
		/* only now may it be acted on */
		return sup_slurm_action(s, a, a->ref, e);
	case APENET_DEDUCE_EVIDENCE:
		if (!a->ref)
			return 0;
		evidence_of(&a->ev, &ev);
		if (apenet_hdb_incident_evidence(s->db, a->ref, &ev, e))
			return -1;
		if (!a->first)
			return 0;
		/* earlier than the first fault the row holds (a spooled report,
		 * a provisional incident's re-blame): the first fault now, which
		 * a post-mortem starts from */
		in.first = ev;
		return apenet_hdb_incident_update(s->db, a->ref, &in, APENET_HDB_SET_FIRST, e);
	case APENET_DEDUCE_REBLAME:
		if (!a->ref)
			return 0;
		blame_of(&a->blame, &in);
		apenet_log(a->provisional ? APENET_LOG_NOTICE : APENET_LOG_WARN, "incident %lld now blames %s on %u,%u,%u%s%s (%s)%s",
			   (long long)a->ref, in.component, in.node[0], in.node[1], in.node[2], in.link[0] ? " " : "", in.link,
			   in.rule, a->provisional ? ", provisionally" : "");
		if (apenet_hdb_incident_update(s->db, a->ref, &in,
					       APENET_HDB_SET_COMPONENT | APENET_HDB_SET_RULE | APENET_HDB_SET_NODE |
						       APENET_HDB_SET_LINK,
					       e))
			return -1;
		/* each change of blame recorded: the row holds the latest */
		memset(&ev, 0, sizeof(ev));
		ev.time_ms = a->time_ms > 0 ? a->time_ms : apenet_clock_epoch_ms();
		ev.path = APENET_HDB_PATH_SUPERVISOR;
		snprintf(ev.reporter, sizeof(ev.reporter), "supervisor");
		snprintf(ev.text, sizeof(ev.text), "re-blamed%s: %.140s (%.24s)", a->provisional ? " provisionally" : "",
			 a->blame.summary, a->blame.rule);
		if (apenet_hdb_incident_evidence(s->db, a->ref, &ev, e))
			return -1;
		/* a settled incident's new blame: its new nodes drained, the
		 * ones it no longer blames resumed */
		return sup_slurm_action(s, a, a->ref, e);
	case APENET_DEDUCE_CLOSE: {
		if (!a->ref)
			return 0;
		int merged = a->state == APENET_DEDUCE_MERGED && a->merged_into_ref;
		apenet_log(APENET_LOG_NOTICE, "incident %lld %s%.0lld%s", (long long)a->ref,
			   merged ? "merged into " : a->provisional ? "withdrawn" : "closed",
			   merged ? (long long)a->merged_into_ref : 0LL, merged && a->provisional ? " before it settled" : "");
		if (apenet_hdb_incident_close(s->db, a->ref, a->time_ms, merged ? APENET_HDB_MERGED : APENET_HDB_CLOSED,
					      merged ? a->merged_into_ref : 0, e))
			return -1;
		/* the nodes it holds drained are resumed (a withdrawn one holds none) */
		return sup_slurm_action(s, a, a->ref, e);
	}
	}
	return 0;
}

int sup_batch_flush(struct sup *s, int tick)
{
	struct apenet_err e = { 0 };
	struct apenet_deduce_action a;
	if (s->failed)
		return -1;
	int64_t now = apenet_clock_epoch_ms(), t0 = apenet_clock_mono_ms();
	if (tick)
		apenet_deduce_tick(s->ded, now);
	/* anything to write?  Reports, or actions the tick queued */
	int have_action = apenet_deduce_next_action(s->ded, &a);
	if (!s->nq && !have_action)
		return 0;
	if (apenet_hdb_begin(s->db, &e))
		goto fail;
	if (have_action && apply(s, &a, &e))
		goto fail;
	for (size_t i = 0; i < s->nq; i++) {
		struct sup_item *it = &s->q[i];
		int stored = 0;
		struct apenet_err re = { 0 };
		if (apenet_hdb_put_report(s->db, &it->r, it->recv_ms, &stored, &re)) {
			if (re.code != APENET_EINVAL) {
				e = re;
				goto fail;
			}
			/* refused as input (the decoder let it through, the
			 * database's own checks did not): acknowledged, logged */
			s->n.rejected++;
			apenet_log(APENET_LOG_WARN, "report %s seq %llu not stored: %s", it->r.boot,
				   (unsigned long long)it->r.seq, re.msg);
			continue;
		}
		if (!stored) {
			s->n.duplicates++;
			continue;
		}
		s->n.stored++;
		apenet_deduce_report(s->ded, &it->r, it->recv_ms);
	}
	while (apenet_deduce_next_action(s->ded, &a)) {
		s->n.actions++;
		if (apply(s, &a, &e))
			goto fail;
	}
	if (apenet_hdb_commit(s->db, &e))
		goto fail;
	sup_slurm_commit(s); /* its drains and resumes may run: the incidents are on disk */
	s->n.batches++;
	uint64_t us = (uint64_t)(apenet_clock_mono_ms() - t0) * 1000;
	if (us > s->n.commit_us_max)
		s->n.commit_us_max = us;
	send_replies(s);
	return 0;
fail:
	apenet_hdb_rollback(s->db);
	sup_slurm_rollback(s);
	apenet_log(APENET_LOG_ERR, "health database %s: %s: %zu reports left unacknowledged (the agents send them again); "
				   "stopping",
		   s->db_path, e.msg, s->nq);
	drop_replies(s);
	s->failed = 1;
	return -1;
}

void sup_batch_free(struct sup *s)
{
	drop_replies(s);
	free(s->q);
	s->q = NULL;
	s->capq = 0;
}
