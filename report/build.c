/*
 * Building the post-mortem report from the health database and the black
 * boxes (include/apenet/postmortem.h).
 *
 * An incident's report: the incident and those merged into it; its story
 * is every transition about the blamed node(s) and their torus neighbours
 * from a minute before the first fault to ten seconds after it closed, the
 * evidence the supervisor recorded and its own deductions.
 *
 * A window's report: the incidents opened in it, each with its story, and
 * the window's other transitions in time order up to max_events (a day of
 * a large cluster holds hundreds of thousands: a report is something to
 * attach to a ticket, `apenet db export` is the whole window); how many
 * were left out is said.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "postmortem_int.h"

struct ctx {
	struct apenet_postmortem *pm;
	struct apenet_hdb *db;
	const struct apenet_postmortem_query *q;
	struct apenet_err *e;
	size_t general;          /* the window's own transitions kept */
	int full;                /* max_events reached */
	int failed;
	/* evidence rows that name a transition: marked on it afterwards */
	struct ev_link {
		int64_t transition, incident;
	} *links;
	size_t nlinks, cap_links;
	int64_t incident;        /* the one whose evidence is being read */
	struct apenet_hdb_incident *tmp; /* merged incidents / earlier faults being collected */
	unsigned ntmp;
	size_t cap_tmp;
	struct apenet_postmortem_cable *cable; /* the one whose certificates are being read */
};

static int on_transition(void *arg, const struct apenet_hdb_transition *t)
{
	struct ctx *c = arg;
	struct apenet_postmortem_event ev;
	apenet_postmortem_event_from_transition(&ev, t);
	if (apenet_postmortem_add_event(c->pm, &ev, c->e)) {
		c->failed = 1;
		return 1;
	}
	return 0;
}

static int on_general(void *arg, const struct apenet_hdb_transition *t)
{
	struct ctx *c = arg;
	if (c->q->max_events && c->general >= c->q->max_events) {
		c->full = 1;
		return 1;
	}
	c->general++;
	return on_transition(arg, t);
}

static int on_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct ctx *c = arg;
	const struct apenet_postmortem_query *q = c->q;
	if (q->has_node && !(in->node[0] == q->node[0] && in->node[1] == q->node[1] && in->node[2] == q->node[2]) &&
	    !(in->has_far && in->far[0] == q->node[0] && in->far[1] == q->node[1] && in->far[2] == q->node[2]))
		return 0;
	if (apenet_postmortem_add_incident(c->pm, in, c->e)) {
		c->failed = 1;
		return 1;
	}
	return 0;
}

static int on_evidence(void *arg, const struct apenet_hdb_evidence *x)
{
	struct ctx *c = arg;
	if (x->transition_id) {
		void *p = c->links;
		if (apenet_postmortem_grow(&p, &c->cap_links, c->nlinks, sizeof(*c->links), c->e)) {
			c->failed = 1;
			return 1;
		}
		c->links = p;
		c->links[c->nlinks].transition = x->transition_id;
		c->links[c->nlinks++].incident = c->incident;
		return 0;
	}
	/* the supervisor's own (silence, absence), or a transition retention
	 * removed: told as the evidence row says it */
	struct apenet_postmortem_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = x->time_ms;
	ev.kind = APENET_POSTMORTEM_EVIDENCE;
	ev.id = x->id;
	ev.incident = c->incident;
	ev.path = x->path;
	ev.value = ev.threshold = NAN;
	snprintf(ev.boot, sizeof(ev.boot), "%s", x->reporter);
	ev.seq = x->seq;
	ev.has_reporter = apenet_postmortem_boot_node(x->reporter, ev.reporter);
	snprintf(ev.text, sizeof(ev.text), "%s", x->text);
	if (apenet_postmortem_add_event(c->pm, &ev, c->e)) {
		c->failed = 1;
		return 1;
	}
	return 0;
}

static int on_tmp(void *arg, const struct apenet_hdb_incident *in)
{
	struct ctx *c = arg;
	void *p = c->tmp;
	if (apenet_postmortem_grow(&p, &c->cap_tmp, c->ntmp, sizeof(*in), c->e)) {
		c->failed = 1;
		return 1;
	}
	c->tmp = p;
	c->tmp[c->ntmp++] = *in;
	return 0;
}

static int cmp_link(const void *x, const void *y)
{
	const struct ev_link *a = x, *b = y;
	return a->transition < b->transition ? -1 : a->transition > b->transition;
}

/* The deductions: an incident opened, closed or merged. */
static int deductions(struct ctx *c, const struct apenet_hdb_incident *in)
{
	struct apenet_postmortem_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.value = ev.threshold = NAN;
	ev.kind = APENET_POSTMORTEM_OPENED;
	ev.time_ms = in->opened_ms;
	ev.id = in->id;
	ev.incident = in->id;
	ev.path = APENET_HDB_PATH_SUPERVISOR;
	memcpy(ev.node, in->node, sizeof(ev.node));
	snprintf(ev.where, sizeof(ev.where), "%s", in->link);
	snprintf(ev.code, sizeof(ev.code), "%s", in->rule);
	if (in->has_far)
		snprintf(ev.text, sizeof(ev.text), "incident #%lld opened: %s %u,%u,%u %s - %u,%u,%u %s (rule %s)",
			 (long long)in->id, in->component, in->node[0], in->node[1], in->node[2], in->link, in->far[0],
			 in->far[1], in->far[2], in->far_link, in->rule);
	else
		snprintf(ev.text, sizeof(ev.text), "incident #%lld opened: %s of %u,%u,%u%s%s (rule %s)", (long long)in->id,
			 in->component, in->node[0], in->node[1], in->node[2], in->link[0] ? " " : "", in->link, in->rule);
	if (apenet_postmortem_add_event(c->pm, &ev, c->e))
		return -1;
	if (!in->closed_ms)
		return 0;
	ev.kind = APENET_POSTMORTEM_CLOSED;
	ev.time_ms = in->closed_ms;
	if (in->state == APENET_HDB_MERGED)
		snprintf(ev.text, sizeof(ev.text), "incident #%lld merged into #%lld", (long long)in->id,
			 (long long)in->merged_into);
	else
		snprintf(ev.text, sizeof(ev.text), "incident #%lld closed: its evidence cleared", (long long)in->id);
	return apenet_postmortem_add_event(c->pm, &ev, c->e);
}

/* An incident's story: what was said about its node(s) and their
 * neighbours while it lasted, its evidence, its deductions. */
static int story(struct ctx *c, const struct apenet_hdb_incident *in)
{
	struct apenet_postmortem *pm = c->pm;
	int64_t from = in->first.time_ms - c->q->before_ms;
	int64_t to = (in->closed_ms ? in->closed_ms : c->q->now_ms) + c->q->after_ms;
	unsigned set[14][3], n = 0;
	const unsigned *ends[2] = { in->node, in->has_far ? in->far : NULL };
	for (int k = 0; k < 2; k++) {
		if (!ends[k])
			continue;
		memcpy(set[n++], ends[k], sizeof(set[0]));
		for (int l = 0; l < APENET_HDB_NLINKS && pm->dims[0]; l++) {
			unsigned far[3];
			int fl;
			unsigned xyz[3];
			memcpy(xyz, ends[k], sizeof(xyz));
			if (apenet_hdb_partner(pm->dims, xyz, l, far, &fl))
				continue;
			unsigned i;
			for (i = 0; i < n; i++)
				if (!memcmp(set[i], far, sizeof(far)))
					break;
			if (i == n)
				memcpy(set[n++], far, sizeof(far));
		}
	}
	for (unsigned i = 0; i < n; i++) {
		if (apenet_hdb_transitions_each(c->db, from, to, set[i], on_transition, c, c->e) || c->failed)
			return -1;
	}
	c->incident = in->id;
	if (apenet_hdb_evidence_each(c->db, in->id, on_evidence, c, c->e) || c->failed)
		return -1;
	return deductions(c, in);
}

static int cmp_event_id(const void *x, const void *y)
{
	const struct apenet_postmortem_event *a = x, *b = y;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->incident < b->incident ? -1 : a->incident > b->incident;
}

/* One row of each transition (stories overlap), evidence marked on the
 * transitions it names. */
static void dedupe_and_mark(struct ctx *c)
{
	struct apenet_postmortem *pm = c->pm;
	if (!pm->nev)
		return;
	qsort(pm->ev, pm->nev, sizeof(*pm->ev), cmp_event_id);
	size_t w = 0;
	for (size_t i = 0; i < pm->nev; i++) {
		if (w && pm->ev[i].kind == pm->ev[w - 1].kind && pm->ev[i].id == pm->ev[w - 1].id &&
		    pm->ev[i].incident == pm->ev[w - 1].incident)
			continue;
		pm->ev[w++] = pm->ev[i];
	}
	pm->nev = w;
	if (c->nlinks)
		qsort(c->links, c->nlinks, sizeof(*c->links), cmp_link);
	for (size_t i = 0; i < pm->nev; i++) {
		struct apenet_postmortem_event *ev = &pm->ev[i];
		if (ev->kind != APENET_POSTMORTEM_TRANSITION || !c->nlinks)
			continue;
		struct ev_link key = { ev->id, 0 };
		struct ev_link *l = bsearch(&key, c->links, c->nlinks, sizeof(*c->links), cmp_link);
		if (l) {
			/* the first incident that names it (the links are sorted by transition only) */
			while (l > c->links && l[-1].transition == ev->id)
				l--;
			ev->incident = l->incident;
		}
	}
}

static int fill_names(struct ctx *c, unsigned max)
{
	struct apenet_postmortem *pm = c->pm;
	for (unsigned i = 0; i < pm->nnodes && i < max; i++) {
		struct apenet_hdb_node n;
		if (pm->nodes[i].name[0])
			continue;
		int r = apenet_hdb_node_get(c->db, pm->nodes[i].xyz, c->q->now_ms, 0, &n, c->e);
		if (r < 0)
			return -1;
		if (r)
			snprintf(pm->nodes[i].name, sizeof(pm->nodes[i].name), "%s", n.name);
	}
	return 0;
}

static int on_cert(void *arg, const struct apenet_hdb_cert *k)
{
	struct ctx *c = arg;
	struct apenet_postmortem_cable *cb = c->cable;
	if (cb->ncerts >= 10)
		return 1;
	struct apenet_hdb_cert *p = realloc(cb->certs, (cb->ncerts + 1) * sizeof(*p));
	if (!p) {
		apenet_err_set(c->e, APENET_EIO, "report: out of memory for certificates");
		c->failed = 1;
		return 1;
	}
	cb->certs = p;
	cb->certs[cb->ncerts++] = *k;
	return 0;
}

/* The batch scheduler's actions on the incidents (the supervisor's
 * slurm_action rows), as recorded. */
static int on_slurm(void *arg, const struct apenet_hdb_slurm_action *a)
{
	struct ctx *c = arg;
	struct apenet_postmortem *pm = c->pm;
	struct apenet_hdb_slurm_action *p = realloc(pm->slurm, (pm->nslurm + 1) * sizeof(*p));
	if (!p) {
		apenet_err_set(c->e, APENET_EIO, "report: out of memory");
		c->failed = 1;
		return 1;
	}
	pm->slurm = p;
	pm->slurm[pm->nslurm++] = *a;
	return 0;
}

/* The cable of an incident that names a link: its record, certificates and
 * the incidents on the same link ends before. */
static int cable(struct ctx *c, const struct apenet_hdb_incident *in)
{
	struct apenet_postmortem *pm = c->pm;
	struct apenet_postmortem_cable *p = realloc(pm->cable, (pm->ncable + 1) * sizeof(*p));
	if (!p) {
		apenet_err_set(c->e, APENET_EIO, "report: out of memory for cables");
		return -1;
	}
	pm->cable = p;
	struct apenet_postmortem_cable *cb = &pm->cable[pm->ncable++];
	memset(cb, 0, sizeof(*cb));
	memcpy(cb->node, in->node, sizeof(cb->node));
	snprintf(cb->link, sizeof(cb->link), "%s", in->link);
	cb->has_far = in->has_far;
	memcpy(cb->far, in->far, sizeof(cb->far));
	snprintf(cb->far_link, sizeof(cb->far_link), "%s", in->far_link);
	cb->incident = in->id;
	int r = apenet_hdb_cable_at(c->db, in->node, in->link, &cb->cable, c->e);
	if (r == 0 && in->has_far && in->far_link[0])
		r = apenet_hdb_cable_at(c->db, in->far, in->far_link, &cb->cable, c->e);
	if (r < 0)
		return -1;
	cb->known = r;
	c->cable = cb;
	if (r && (apenet_hdb_certs_each(c->db, cb->cable.serial, on_cert, c, c->e) || c->failed))
		return -1;
	c->ntmp = 0;
	if (apenet_hdb_link_incidents_each(c->db, in->node, in->link, in->opened_ms, 10, on_tmp, c, c->e) || c->failed)
		return -1;
	if (c->ntmp) {
		cb->earlier = malloc(c->ntmp * sizeof(*cb->earlier));
		if (!cb->earlier) {
			apenet_err_set(c->e, APENET_EIO, "report: out of memory");
			return -1;
		}
		memcpy(cb->earlier, c->tmp, c->ntmp * sizeof(*cb->earlier));
		cb->nearlier = c->ntmp;
	}
	return 0;
}

static int trends(struct ctx *c)
{
	struct apenet_postmortem *pm = c->pm;
	const struct apenet_postmortem_query *q = c->q;
	if (!q->nbbdirs)
		return 0;
	/* the blamed nodes (both ends of a cable), the first fault's first */
	unsigned want[8][3], nw = 0;
	const char *focus[8];
	int64_t at[8];
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < pm->ninc && nw < 7; i++) {
			const struct apenet_hdb_incident *in = &pm->inc[i];
			if (in->state == APENET_HDB_MERGED || (in->id == pm->first_incident) != (pass == 0))
				continue;
			const unsigned *ends[2] = { in->node, in->has_far ? in->far : NULL };
			const char *links[2] = { in->link, in->far_link };
			for (int k = 0; k < 2 && nw < 8; k++) {
				if (!ends[k])
					continue;
				unsigned j;
				for (j = 0; j < nw; j++)
					if (!memcmp(want[j], ends[k], sizeof(want[j])))
						break;
				if (j < nw)
					continue;
				memcpy(want[nw], ends[k], sizeof(want[nw]));
				focus[nw] = links[k][0] ? links[k] : NULL;
				at[nw++] = in->first.time_ms;
			}
		}
	if (!nw && pm->has_first) {
		memcpy(want[0], pm->first.node, sizeof(want[0]));
		focus[0] = pm->first_link[0] ? pm->first_link : NULL;
		at[nw++] = pm->first.time_ms;
	}
	pm->trend = calloc(nw ? nw : 1, sizeof(*pm->trend));
	if (!pm->trend) {
		apenet_err_set(c->e, APENET_EIO, "report: out of memory");
		return -1;
	}
	for (unsigned i = 0; i < nw; i++) {
		char note[sizeof(pm->notes[0])] = "";
		int r = apenet_postmortem_trend_load(q->bbdirs, q->nbbdirs, want[i], at[i], focus[i], &pm->thr, &pm->trend[pm->ntrend],
					     note, sizeof(note), c->e);
		if (r < 0)
			return -1;
		if (note[0])
			apenet_postmortem_note(pm, "%s", note);
		if (r > 0)
			pm->ntrend++;
	}
	return 0;
}

/* The module in a port, as the node's agent read it (its black box). */
static const struct apenet_postmortem_module *module_at(const struct apenet_postmortem *pm, const unsigned xyz[3], const char *port)
{
	for (unsigned i = 0; i < pm->ntrend; i++) {
		const struct apenet_postmortem_trend *t = &pm->trend[i];
		if (memcmp(t->node, xyz, sizeof(t->node)))
			continue;
		for (unsigned k = 0; k < t->nmodules; k++)
			if (!strcmp(t->modules[k].port, port))
				return &t->modules[k];
	}
	return NULL;
}

/* Each cable's modules, from the agents' black boxes: what names a cable
 * that was never qualified (no record at either end), and finds its record
 * when it was qualified in another port. */
static int cable_modules(struct ctx *c)
{
	struct apenet_postmortem *pm = c->pm;
	for (unsigned i = 0; i < pm->ncable; i++) {
		struct apenet_postmortem_cable *cb = &pm->cable[i];
		const struct apenet_postmortem_module *m[2] = { module_at(pm, cb->node, cb->link),
							 cb->has_far ? module_at(pm, cb->far, cb->far_link) : NULL };
		for (int k = 0; k < 2; k++)
			if (m[k])
				cb->ends[k] = *m[k];
		if (cb->known)
			continue;
		for (int k = 0; k < 2 && !cb->known; k++) {
			if (!m[k])
				continue;
			int r = apenet_hdb_cable_get(c->db, m[k]->serial, &cb->cable, c->e);
			if (r < 0)
				return -1;
			cb->known = r;
		}
		c->cable = cb;
		if (cb->known && (apenet_hdb_certs_each(c->db, cb->cable.serial, on_cert, c, c->e) || c->failed))
			return -1;
	}
	return 0;
}

static int build(struct ctx *c, const char *db_path)
{
	struct apenet_postmortem *pm = c->pm;
	const struct apenet_postmortem_query *q = c->q;
	snprintf(pm->db, sizeof(pm->db), "%s", db_path);
	pm->generated_ms = q->now_ms;
	if (q->thr)
		pm->thr = *q->thr;
	pm->has_node = q->has_node;
	memcpy(pm->node, q->node, sizeof(pm->node));
	if (apenet_hdb_dims(c->db, pm->dims, c->e) < 0)
		return -1;
	if (q->incident > 0) {
		struct apenet_hdb_incident in;
		int r = apenet_hdb_incident_get(c->db, q->incident, &in, c->e);
		if (r < 0)
			return -1;
		if (!r) {
			apenet_err_set(c->e, APENET_EINVAL, "%s: no incident %lld", db_path, (long long)q->incident);
			return -1;
		}
		pm->by_incident = 1;
		pm->incident = in.id;
		if (apenet_postmortem_add_incident(pm, &in, c->e))
			return -1;
		c->ntmp = 0;
		if (apenet_hdb_merged_each(c->db, in.id, on_tmp, c, c->e) || c->failed)
			return -1;
		pm->from_ms = in.first.time_ms;
		pm->to_ms = in.closed_ms ? in.closed_ms : q->now_ms;
		for (unsigned i = 0; i < c->ntmp; i++) {
			if (apenet_postmortem_add_incident(pm, &c->tmp[i], c->e))
				return -1;
			if (c->tmp[i].first.time_ms < pm->from_ms)
				pm->from_ms = c->tmp[i].first.time_ms;
		}
		pm->from_ms -= q->before_ms;
		pm->to_ms += q->after_ms;
	} else {
		pm->from_ms = q->from_ms;
		pm->to_ms = q->to_ms;
		if (apenet_hdb_incidents_each(c->db, 0, q->from_ms, q->to_ms, on_incident, c, c->e) || c->failed)
			return -1;
	}
	for (unsigned i = 0; i < pm->ninc; i++) {
		const struct apenet_hdb_incident *in = &pm->inc[i];
		/* the blamed nodes, named before the recommendations are worded */
		if (story(c, in) || apenet_postmortem_add_node(pm, in->node, APENET_POSTMORTEM_NEARBY, c->e) ||
		    (in->has_far && apenet_postmortem_add_node(pm, in->far, APENET_POSTMORTEM_NEARBY, c->e)))
			return -1;
		if (in->link[0] && strcmp(in->component, "supervisor") && cable(c, in))
			return -1;
	}
	for (unsigned i = 0; i < pm->ninc; i++)
		if (apenet_hdb_slurm_each(c->db, pm->inc[i].id, on_slurm, c, c->e) || c->failed)
			return -1;
	if (!pm->by_incident) {
		if (apenet_hdb_transitions_each(c->db, q->from_ms, q->to_ms, q->has_node ? q->node : NULL, on_general, c,
						c->e) ||
		    c->failed)
			return -1;
	}
	dedupe_and_mark(c);
	if (!pm->by_incident && c->full) {
		uint64_t total = 0, kept = 0;
		if (apenet_hdb_transitions_count(c->db, q->from_ms, q->to_ms, q->has_node ? q->node : NULL, &total, c->e))
			return -1;
		for (size_t i = 0; i < pm->nev; i++) {
			const struct apenet_postmortem_event *ev = &pm->ev[i];
			if (ev->kind == APENET_POSTMORTEM_TRANSITION && ev->time_ms >= q->from_ms && ev->time_ms < q->to_ms &&
			    (!q->has_node || !memcmp(ev->node, q->node, sizeof(ev->node))))
				kept++;
		}
		pm->omitted = total > kept ? total - kept : 0;
	}
	if (fill_names(c, 64))
		return -1;
	/* the first fault is known once the timeline is in order; the trends
	 * are read around it, and the recommendations use them */
	apenet_postmortem_order(pm);
	if (trends(c) || cable_modules(c) || apenet_postmortem_finish(pm, c->e))
		return -1;
	return fill_names(c, 512);
}

int apenet_postmortem_build(struct apenet_hdb *db, const char *db_path, const struct apenet_postmortem_query *q, struct apenet_postmortem **out,
		    struct apenet_err *e)
{
	struct ctx c;
	memset(&c, 0, sizeof(c));
	c.pm = apenet_postmortem_new();
	c.db = db;
	c.q = q;
	c.e = e;
	*out = NULL;
	if (!c.pm) {
		apenet_err_set(e, APENET_EIO, "report: out of memory");
		return -1;
	}
	int rc = build(&c, db_path);
	free(c.links);
	free(c.tmp);
	if (rc) {
		apenet_postmortem_free(c.pm);
		return -1;
	}
	*out = c.pm;
	return 0;
}

/* The model's derivations, then the recommender over them, then the summary:
 * here rather than in model.c, so that the model does not call its
 * recommender (which reads the model). */
int apenet_postmortem_finish(struct apenet_postmortem *pm, struct apenet_err *e)
{
	if (apenet_postmortem_derive(pm, e) || apenet_postmortem_recommend(pm, e))
		return -1;
	apenet_postmortem_summarize(pm);
	return 0;
}
