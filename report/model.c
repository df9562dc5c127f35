/*
 * The post-mortem report's model (include/apenet/postmortem.h): what the
 * builder reads is added here; finish puts the timeline in order, marks the
 * first fault and derives who saw it when and the affected region.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/notify.h"
#include "apenet/out.h"
#include "apenet/postmortem.h"
#include "postmortem_int.h"

void apenet_postmortem_query_defaults(struct apenet_postmortem_query *q)
{
	memset(q, 0, sizeof(*q));
	q->to_ms = INT64_MAX;
	q->max_events = 5000;
	q->before_ms = 60000;
	q->after_ms = 10000;
}

const char *apenet_postmortem_kind_name(int kind)
{
	switch (kind) {
	case APENET_POSTMORTEM_TRANSITION: return "transition";
	case APENET_POSTMORTEM_EVIDENCE: return "evidence";
	case APENET_POSTMORTEM_OPENED: return "incident-opened";
	case APENET_POSTMORTEM_CLOSED: return "incident-closed";
	}
	return "?";
}

struct apenet_postmortem *apenet_postmortem_new(void)
{
	struct apenet_postmortem *pm = calloc(1, sizeof(struct apenet_postmortem));
	struct apenet_config *cfg = malloc(sizeof(*cfg));
	if (!pm || !cfg) {
		free(pm);
		free(cfg);
		return NULL;
	}
	apenet_config_defaults(cfg);
	pm->thr = cfg->thr;
	apenet_config_free(cfg);
	free(cfg);
	return pm;
}

void apenet_postmortem_trend_free(struct apenet_postmortem_trend *t)
{
	free(t->series);
	t->series = NULL;
	t->nseries = 0;
}

void apenet_postmortem_free(struct apenet_postmortem *pm)
{
	if (!pm)
		return;
	free(pm->inc);
	free(pm->ev);
	free(pm->seen);
	for (unsigned i = 0; i < pm->ntrend; i++)
		apenet_postmortem_trend_free(&pm->trend[i]);
	free(pm->trend);
	for (unsigned i = 0; i < pm->ncable; i++) {
		free(pm->cable[i].certs);
		free(pm->cable[i].earlier);
	}
	free(pm->cable);
	free(pm->rec);
	free(pm->slurm);
	free(pm->nodes);
	free(pm);
}

int apenet_postmortem_grow(void **p, size_t *cap, size_t n, size_t size, struct apenet_err *e)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 16;
	void *q = realloc(*p, c * size);
	if (!q) {
		apenet_err_set(e, APENET_EIO, "report: out of memory (%zu entries)", c);
		return -1;
	}
	*p = q;
	*cap = c;
	return 0;
}

int apenet_postmortem_add_incident(struct apenet_postmortem *pm, const struct apenet_hdb_incident *in, struct apenet_err *e)
{
	for (unsigned i = 0; i < pm->ninc; i++)
		if (pm->inc[i].id == in->id)
			return 0;
	size_t cap = pm->ninc; /* exact: incidents are few */
	void *p = pm->inc;
	if (apenet_postmortem_grow(&p, &cap, pm->ninc, sizeof(*in), e))
		return -1;
	pm->inc = p;
	pm->inc[pm->ninc++] = *in;
	return 0;
}

int apenet_postmortem_add_event(struct apenet_postmortem *pm, const struct apenet_postmortem_event *ev, struct apenet_err *e)
{
	void *p = pm->ev;
	if (apenet_postmortem_grow(&p, &pm->cap_ev, pm->nev, sizeof(*ev), e))
		return -1;
	pm->ev = p;
	pm->ev[pm->nev++] = *ev;
	return 0;
}

void apenet_postmortem_event_from_transition(struct apenet_postmortem_event *ev, const struct apenet_hdb_transition *t)
{
	memset(ev, 0, sizeof(*ev));
	ev->time_ms = t->time_ms;
	ev->kind = APENET_POSTMORTEM_TRANSITION;
	ev->id = t->id;
	memcpy(ev->node, t->node, sizeof(ev->node));
	ev->has_reporter = 1;
	memcpy(ev->reporter, t->reporter, sizeof(ev->reporter));
	snprintf(ev->boot, sizeof(ev->boot), "%s", t->boot);
	ev->seq = t->seq;
	ev->path = t->path;
	snprintf(ev->via, sizeof(ev->via), "%s", t->via);
	snprintf(ev->subject, sizeof(ev->subject), "%s", apenet_report_subject_name(t->subject));
	snprintf(ev->where, sizeof(ev->where), "%s", t->where);
	snprintf(ev->code, sizeof(ev->code), "%s", t->code);
	ev->old_status = t->old_status;
	ev->new_status = t->new_status;
	ev->value = t->value;
	ev->threshold = t->threshold;
	snprintf(ev->unit, sizeof(ev->unit), "%s", t->unit);
	snprintf(ev->text, sizeof(ev->text), "%s", t->evidence);
}

void apenet_postmortem_note(struct apenet_postmortem *pm, const char *fmt, ...)
{
	if (pm->nnotes >= sizeof(pm->notes) / sizeof(pm->notes[0]))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pm->notes[pm->nnotes++], sizeof(pm->notes[0]), fmt, ap);
	va_end(ap);
}

/* At the same millisecond: what the agents reported comes before what the
 * supervisor made of it (its evidence, then the incident it opened, then a
 * closing); a reporter's own reports stay in their sequence. */
static int kind_rank(int kind)
{
	return kind == APENET_POSTMORTEM_TRANSITION ? 0 : kind == APENET_POSTMORTEM_EVIDENCE ? 1 : kind == APENET_POSTMORTEM_OPENED ? 2 : 3;
}

int apenet_postmortem_event_cmp(const struct apenet_postmortem_event *a, const struct apenet_postmortem_event *b)
{
	if (a->time_ms != b->time_ms)
		return a->time_ms < b->time_ms ? -1 : 1;
	int ra = kind_rank(a->kind), rb = kind_rank(b->kind);
	if (ra != rb)
		return ra - rb;
	int c = strcmp(a->boot, b->boot);
	if (c)
		return c;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->incident < b->incident ? -1 : a->incident > b->incident;
}

static int ev_cmp(const void *x, const void *y)
{
	return apenet_postmortem_event_cmp(x, y);
}

/* The primary incident: the one asked for, else the one whose first fault
 * came first (not merged: a merged one's story is its survivor's). */
static const struct apenet_hdb_incident *primary(const struct apenet_postmortem *pm)
{
	const struct apenet_hdb_incident *best = NULL;
	for (unsigned i = 0; i < pm->ninc; i++) {
		const struct apenet_hdb_incident *in = &pm->inc[i];
		if (pm->by_incident && in->id == pm->incident)
			return in;
		if (in->state == APENET_HDB_MERGED)
			continue;
		if (!best || in->first.time_ms < best->first.time_ms ||
		    (in->first.time_ms == best->first.time_ms && in->id < best->id))
			best = in;
	}
	return best;
}

/* "x,y,z#N" -> x,y,z; 0 when the reporter is not an agent's boot id. */
int apenet_postmortem_boot_node(const char *boot, unsigned xyz[3])
{
	char hash;
	return sscanf(boot, "%u,%u,%u%c", &xyz[0], &xyz[1], &xyz[2], &hash) == 4 && hash == '#';
}

static void find_first(struct apenet_postmortem *pm)
{
	const struct apenet_hdb_incident *in = primary(pm);
	pm->has_first = 0;
	if (in) {
		struct apenet_postmortem_event *f = &pm->first;
		memset(f, 0, sizeof(*f));
		f->time_ms = in->first.time_ms;
		f->path = in->first.path;
		f->incident = in->id;
		memcpy(f->node, in->node, sizeof(f->node));
		snprintf(f->text, sizeof(f->text), "%s", in->first.text);
		snprintf(f->boot, sizeof(f->boot), "%s", in->first.reporter);
		f->seq = in->first.seq;
		f->has_reporter = apenet_postmortem_boot_node(in->first.reporter, f->reporter);
		f->kind = f->has_reporter && f->seq ? APENET_POSTMORTEM_TRANSITION : APENET_POSTMORTEM_EVIDENCE;
		snprintf(pm->first_component, sizeof(pm->first_component), "%s", in->component);
		memcpy(pm->first_blamed, in->node, sizeof(pm->first_blamed));
		pm->first_incident = in->id;
		snprintf(pm->first_link, sizeof(pm->first_link), "%s", in->link);
		pm->first_has_far = in->has_far;
		memcpy(pm->first_far, in->far, sizeof(pm->first_far));
		snprintf(pm->first_far_link, sizeof(pm->first_far_link), "%s", in->far_link);
		pm->first_until_ms = in->closed_ms ? in->closed_ms : INT64_MAX;
		pm->has_first = 1;
		/* the timeline's copy of it, when the transition is there */
		for (size_t i = 0; i < pm->nev; i++) {
			struct apenet_postmortem_event *ev = &pm->ev[i];
			if (ev->kind == APENET_POSTMORTEM_TRANSITION && f->seq && ev->seq == f->seq && !strcmp(ev->boot, f->boot)) {
				ev->first = 1;
				/* the node it is about: the blamed end of a cable may
				 * be the other one */
				memcpy(f->node, ev->node, sizeof(f->node));
				snprintf(f->where, sizeof(f->where), "%s", ev->where);
				snprintf(f->code, sizeof(f->code), "%s", ev->code);
				snprintf(f->subject, sizeof(f->subject), "%s", ev->subject);
				snprintf(f->via, sizeof(f->via), "%s", ev->via);
				f->id = ev->id;
				f->old_status = ev->old_status;
				f->new_status = ev->new_status;
				f->value = ev->value;
				f->threshold = ev->threshold;
				snprintf(f->unit, sizeof(f->unit), "%s", ev->unit);
				return;
			}
		}
		f->value = f->threshold = NAN;
		return;
	}
	/* no incident: the first thing that went wrong */
	for (size_t i = 0; i < pm->nev; i++) {
		struct apenet_postmortem_event *ev = &pm->ev[i];
		if (ev->kind == APENET_POSTMORTEM_TRANSITION && ev->new_status > ev->old_status && ev->new_status > 0) {
			ev->first = 1;
			pm->first = *ev;
			memcpy(pm->first_blamed, ev->node, sizeof(pm->first_blamed));
			pm->first_until_ms = INT64_MAX;
			pm->has_first = 1;
			snprintf(pm->first_component, sizeof(pm->first_component), "%s", ev->subject);
			if (!strcmp(ev->subject, "link"))
				snprintf(pm->first_link, sizeof(pm->first_link), "%.7s", ev->where);
			return;
		}
	}
}

static int same_xyz(const unsigned a[3], const unsigned b[3])
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* Whether an event belongs to the story of the first fault's incident: its
 * evidence, or an agent's report about the blamed node(s). */
static int about_first(const struct apenet_postmortem *pm, const struct apenet_postmortem_event *ev)
{
	if (ev->incident && ev->incident == pm->first_incident)
		return 1;
	if (ev->kind != APENET_POSTMORTEM_TRANSITION || ev->new_status <= 0 || ev->time_ms > pm->first_until_ms)
		return 0;
	if (same_xyz(ev->node, pm->first.node) || same_xyz(ev->node, pm->first_blamed))
		return 1;
	return pm->first_has_far && same_xyz(ev->node, pm->first_far);
}

static struct apenet_postmortem_seen *seen_new(struct apenet_postmortem *pm, size_t *cap, struct apenet_err *e)
{
	void *p = pm->seen;
	if (apenet_postmortem_grow(&p, cap, pm->nseen, sizeof(*pm->seen), e))
		return NULL;
	pm->seen = p;
	struct apenet_postmortem_seen *s = &pm->seen[pm->nseen++];
	memset(s, 0, sizeof(*s));
	return s;
}

/* Who saw the first fault's incident, when: one entry per observer and path
 * (and link it came through), its first piece of evidence; oldest first. */
static int derive_seen(struct apenet_postmortem *pm, struct apenet_err *e)
{
	size_t cap = 0;
	pm->nseen = 0;
	if (!pm->has_first)
		return 0;
	for (size_t i = 0; i < pm->nev; i++) {
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		if (ev->kind == APENET_POSTMORTEM_OPENED || ev->kind == APENET_POSTMORTEM_CLOSED || !about_first(pm, ev))
			continue;
		if (ev->time_ms < pm->first.time_ms && !ev->first)
			continue; /* before the fault: not its propagation */
		char obs[24];
		apenet_postmortem_who(ev, obs, sizeof(obs));
		unsigned k;
		for (k = 0; k < pm->nseen; k++)
			if (!strcmp(pm->seen[k].observer, obs) && pm->seen[k].path == ev->path &&
			    !strcmp(pm->seen[k].via, ev->via))
				break;
		if (k < pm->nseen) {
			pm->seen[k].count++;
			continue;
		}
		struct apenet_postmortem_seen *s = seen_new(pm, &cap, e);
		if (!s)
			return -1;
		snprintf(s->observer, sizeof(s->observer), "%s", obs);
		s->path = ev->path;
		snprintf(s->via, sizeof(s->via), "%s", ev->via);
		s->first_ms = ev->time_ms;
		s->delta_ms = ev->time_ms - pm->first.time_ms;
		s->count = 1;
		if (ev->kind == APENET_POSTMORTEM_TRANSITION && ev->code[0])
			snprintf(s->what, sizeof(s->what), "%s%s%.40s %s: %.100s", ev->where, ev->where[0] ? " " : "", ev->code,
				 apenet_postmortem_status_name(ev->new_status), ev->text);
		else
			snprintf(s->what, sizeof(s->what), "%s", ev->text);
	}
	/* the deduction itself, as the supervisor saw it */
	for (unsigned i = 0; i < pm->ninc; i++) {
		const struct apenet_hdb_incident *in = &pm->inc[i];
		if (in->id != pm->first_incident)
			continue;
		struct apenet_postmortem_seen *s = seen_new(pm, &cap, e);
		if (!s)
			return -1;
		snprintf(s->observer, sizeof(s->observer), "supervisor");
		s->path = APENET_HDB_PATH_SUPERVISOR;
		snprintf(s->via, sizeof(s->via), "deduce");
		s->first_ms = in->opened_ms;
		s->delta_ms = in->opened_ms - pm->first.time_ms;
		s->count = 1;
		/* the supervisor dates an incident by its evidence, not by when it
		 * deduced it: say so when the two coincide */
		snprintf(s->what, sizeof(s->what), "incident #%lld opened: %s, rule %s%s", (long long)in->id, in->component,
			 in->rule, in->opened_ms == in->first.time_ms ? " (dated by its first fault)" : "");
	}
	/* oldest first, then by observer (stable for equal times) */
	for (unsigned i = 1; i < pm->nseen; i++) {
		struct apenet_postmortem_seen t = pm->seen[i];
		unsigned j = i;
		while (j > 0 && (pm->seen[j - 1].delta_ms > t.delta_ms ||
				 (pm->seen[j - 1].delta_ms == t.delta_ms && strcmp(pm->seen[j - 1].observer, t.observer) > 0))) {
			pm->seen[j] = pm->seen[j - 1];
			j--;
		}
		pm->seen[j] = t;
	}
	return 0;
}

int apenet_postmortem_add_node(struct apenet_postmortem *pm, const unsigned xyz[3], int role, struct apenet_err *e)
{
	for (unsigned i = 0; i < pm->nnodes; i++)
		if (same_xyz(pm->nodes[i].xyz, xyz)) {
			if (role > pm->nodes[i].role)
				pm->nodes[i].role = role;
			return 0;
		}
	void *p = pm->nodes;
	if (apenet_postmortem_grow(&p, &pm->cap_nodes, pm->nnodes, sizeof(*pm->nodes), e))
		return -1;
	pm->nodes = p;
	struct apenet_postmortem_node *n = &pm->nodes[pm->nnodes++];
	memset(n, 0, sizeof(*n));
	memcpy(n->xyz, xyz, sizeof(n->xyz));
	n->role = role;
	return 0;
}

/* The nodes the map colours: the first fault's, the blamed ones, who saw
 * something (observers), and their torus neighbours. */
static int derive_nodes(struct apenet_postmortem *pm, struct apenet_err *e)
{
	if (pm->has_first && (apenet_postmortem_add_node(pm, pm->first.node, APENET_POSTMORTEM_FIRST, e) ||
			      apenet_postmortem_add_node(pm, pm->first_blamed, APENET_POSTMORTEM_BLAMED, e)))
		return -1;
	for (unsigned i = 0; i < pm->ninc; i++) {
		if (apenet_postmortem_add_node(pm, pm->inc[i].node, APENET_POSTMORTEM_BLAMED, e) ||
		    (pm->inc[i].has_far && apenet_postmortem_add_node(pm, pm->inc[i].far, APENET_POSTMORTEM_BLAMED, e)))
			return -1;
	}
	for (size_t i = 0; i < pm->nev; i++) {
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		if (ev->kind == APENET_POSTMORTEM_TRANSITION && ev->new_status > 0 &&
		    apenet_postmortem_add_node(pm, ev->reporter, APENET_POSTMORTEM_OBSERVER, e))
			return -1;
		if (pm->nnodes > 4096)
			break; /* a map of more is no region */
	}
	unsigned blamed = pm->nnodes;
	for (unsigned i = 0; i < blamed && pm->dims[0]; i++) {
		if (pm->nodes[i].role < APENET_POSTMORTEM_BLAMED)
			continue;
		for (int l = 0; l < APENET_HDB_NLINKS; l++) {
			unsigned far[3];
			int fl;
			unsigned xyz[3];
			memcpy(xyz, pm->nodes[i].xyz, sizeof(xyz));
			if (apenet_hdb_partner(pm->dims, xyz, l, far, &fl) == 0 &&
			    apenet_postmortem_add_node(pm, far, APENET_POSTMORTEM_NEARBY, e))
				return -1;
		}
	}
	return 0;
}

const char *apenet_postmortem_status_name(int st)
{
	static const char *const n[] = { "normal", "sick", "broken", "invalid" };
	return st >= 0 && st <= 3 ? n[st] : "?";
}

const char *apenet_postmortem_cable_serial(const struct apenet_postmortem_cable *c, const char **from)
{
	const char *s = NULL, *f = NULL;
	if (c->known && c->cable.serial[0])
		s = c->cable.serial, f = "record";
	else if (c->ends[0].serial[0])
		s = c->ends[0].serial, f = "module";
	else if (c->ends[1].serial[0])
		s = c->ends[1].serial, f = "module";
	if (from)
		*from = f;
	return s;
}

/* "the cable between node A link X+ and node B link X- (serial S)", "the
 * host of node A". */
static void component_phrase(const struct apenet_postmortem *pm, const struct apenet_hdb_incident *in, char *b, size_t n)
{
	char a[96], f[96];
	apenet_postmortem_node_label(pm, in->node, a, sizeof(a));
	if (!strcmp(in->component, "cable")) {
		const char *serial = NULL;
		for (unsigned i = 0; i < pm->ncable && !serial; i++)
			if (pm->cable[i].incident == in->id)
				serial = apenet_postmortem_cable_serial(&pm->cable[i], NULL);
		if (in->has_far)
			apenet_postmortem_node_label(pm, in->far, f, sizeof(f));
		snprintf(b, n, "the cable between node %s link %s and %s%s%s%s%s%s", a, in->link[0] ? in->link : "?",
			 in->has_far ? "node " : "its partner", in->has_far ? f : "", in->far_link[0] ? " link " : "",
			 in->far_link, serial ? ", serial " : "", serial ? serial : "");
	} else {
		snprintf(b, n, "the %s of node %s%s%s", in->component, a, in->link[0] ? " link " : "", in->link);
	}
}

/* A duration for a sentence: "11.259 s", "2 min 03.000 s". */
static const char *lasted(int64_t ms, char *b, size_t n)
{
	apenet_postmortem_rel(ms, b, n);
	if (b[0] == '+')
		memmove(b, b + 1, strlen(b));
	return b;
}

/* Appends to b (of n) what fits. */
static void cat(char *b, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *b, size_t n, const char *fmt, ...)
{
	size_t l = strlen(b);
	if (l + 1 >= n)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b + l, n - l, fmt, ap);
	va_end(ap);
}

static int role_of(const struct apenet_postmortem *pm, const unsigned xyz[3])
{
	for (unsigned i = 0; i < pm->nnodes; i++)
		if (same_xyz(pm->nodes[i].xyz, xyz))
			return pm->nodes[i].role;
	return -1;
}

/* The three lines the report opens with: what failed, since when, what it
 * affected. */
static void derive_summary(struct apenet_postmortem *pm)
{
	struct apenet_postmortem_summary *y = &pm->summary;
	memset(y, 0, sizeof(*y));
	const struct apenet_hdb_incident *main = apenet_postmortem_main_incident(pm);
	char a[96], t[40], d[40];
	if (main) {
		component_phrase(pm, main, y->failed, sizeof(y->failed));
		cat(y->failed, sizeof(y->failed), " (incident #%lld, %s)", (long long)main->id, apenet_hdb_state_name(main->state));
		unsigned more = 0;
		for (unsigned i = 0; i < pm->ninc; i++)
			more += pm->inc[i].id != main->id && pm->inc[i].state != APENET_HDB_MERGED;
		for (unsigned i = 0, k = 0; i < pm->ninc && more; i++) {
			const struct apenet_hdb_incident *in = &pm->inc[i];
			if (in->id == main->id || in->state == APENET_HDB_MERGED)
				continue;
			if (k == 0)
				cat(y->failed, sizeof(y->failed), "; %u more incident%s: ", more, more == 1 ? "" : "s");
			if (k == 3) {
				cat(y->failed, sizeof(y->failed), ", ...");
				break;
			}
			cat(y->failed, sizeof(y->failed), "%s%s of %s (#%lld)", k ? ", " : "", in->component,
			    apenet_postmortem_node_label(pm, in->node, a, sizeof(a)), (long long)in->id);
			k++;
		}
	} else if (pm->has_first) {
		snprintf(y->failed, sizeof(y->failed), "no incident was deduced; the first thing that got worse: node %s %s %s %s",
			 apenet_postmortem_node_label(pm, pm->first.node, a, sizeof(a)), pm->first.where, pm->first.code,
			 apenet_postmortem_status_name(pm->first.new_status));
	} else {
		snprintf(y->failed, sizeof(y->failed), "nothing: no fault in this window");
	}

	if (!pm->has_first) {
		snprintf(y->since, sizeof(y->since), "-");
	} else {
		snprintf(y->since, sizeof(y->since), "%s", apenet_out_iso_ms(pm->first.time_ms, t, sizeof(t)));
		if (main && main->closed_ms)
			cat(y->since, sizeof(y->since), "; over at %s, after %s", apenet_out_iso_ms(main->closed_ms, t, sizeof(t)),
			    lasted(main->closed_ms - pm->first.time_ms, d, sizeof(d)));
		else if (main)
			cat(y->since, sizeof(y->since), "; still open when the report was made, %s later",
			    lasted(pm->generated_ms - pm->first.time_ms, d, sizeof(d)));
	}

	/* the blamed nodes, their links that went down, who else saw it */
	char names[240] = "", obs[120] = "";
	unsigned nb = 0, nobs = 0, ndown = 0, total = 0;
	for (unsigned i = 0; i < pm->nnodes; i++)
		total += pm->nodes[i].role >= APENET_POSTMORTEM_BLAMED;
	for (unsigned i = 0; i < pm->nnodes; i++) {
		if (pm->nodes[i].role < APENET_POSTMORTEM_BLAMED)
			continue;
		/* "A", "A and B", "A, B and C", "A, B, C, D and 3 more" */
		if (nb < 4)
			cat(names, sizeof(names), "%s%s", !nb ? "" : nb + 1 == total ? " and " : ", ",
			    apenet_postmortem_node_label(pm, pm->nodes[i].xyz, a, sizeof(a)));
		nb++;
	}
	/* the propagation's observers (one entry per path): each node once */
	for (unsigned i = 0; i < pm->nseen; i++) {
		unsigned xyz[3];
		char tail;
		if (sscanf(pm->seen[i].observer, "%u,%u,%u%c", &xyz[0], &xyz[1], &xyz[2], &tail) != 3 ||
		    role_of(pm, xyz) >= APENET_POSTMORTEM_BLAMED)
			continue;
		unsigned j;
		for (j = 0; j < i; j++)
			if (!strcmp(pm->seen[j].observer, pm->seen[i].observer))
				break;
		if (j < i)
			continue;
		if (nobs < 4)
			cat(obs, sizeof(obs), "%s%s", nobs ? ", " : "", pm->seen[i].observer);
		else if (nobs == 4)
			cat(obs, sizeof(obs), ", ...");
		nobs++;
	}
	if (nb)
		snprintf(y->affected, sizeof(y->affected), "node%s %s", nb > 1 ? "s" : "", names);
	if (nb > 4)
		cat(y->affected, sizeof(y->affected), " and %u more", nb - 4);
	/* the first four links (of blamed nodes) that went down, each once */
	const struct apenet_postmortem_event *down[4];
	for (size_t i = 0; i < pm->nev && ndown <= 4; i++) {
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		if (ev->kind != APENET_POSTMORTEM_TRANSITION || strcmp(ev->code, "LINK_DOWN") || ev->new_status < 2 ||
		    role_of(pm, ev->node) < APENET_POSTMORTEM_BLAMED)
			continue;
		unsigned j;
		for (j = 0; j < ndown; j++)
			if (same_xyz(down[j]->node, ev->node) && !strcmp(down[j]->where, ev->where))
				break;
		if (j < ndown)
			continue;
		if (ndown == 4) {
			cat(y->affected, sizeof(y->affected), ", ...");
			break;
		}
		cat(y->affected, sizeof(y->affected), "%s%u,%u,%u %s", ndown ? ", " : "; links down: ", ev->node[0],
		    ev->node[1], ev->node[2], ev->where);
		down[ndown++] = ev;
	}
	if (nobs)
		cat(y->affected, sizeof(y->affected), "; seen by %u other node%s (%s)", nobs, nobs == 1 ? "" : "s", obs);
	if (main)
		cat(y->affected, sizeof(y->affected), "%s the supervisor", nobs ? " and" : "; seen by");
	if (!y->affected[0])
		snprintf(y->affected, sizeof(y->affected), "nothing");
	else if (y->affected[0] == ';')
		memmove(y->affected, y->affected + 2, strlen(y->affected + 2) + 1); /* no node blamed */
}

void apenet_postmortem_order(struct apenet_postmortem *pm)
{
	if (pm->nev > 1)
		qsort(pm->ev, pm->nev, sizeof(*pm->ev), ev_cmp);
	find_first(pm);
}

int apenet_postmortem_derive(struct apenet_postmortem *pm, struct apenet_err *e)
{
	apenet_postmortem_order(pm);
	return derive_seen(pm, e) || derive_nodes(pm, e) ? -1 : 0;
}

void apenet_postmortem_summarize(struct apenet_postmortem *pm)
{
	derive_summary(pm);
}

const struct apenet_hdb_incident *apenet_postmortem_main_incident(const struct apenet_postmortem *pm)
{
	int64_t id = pm->by_incident ? pm->incident : pm->first_incident;
	for (unsigned i = 0; i < pm->ninc; i++)
		if (pm->inc[i].id == id)
			return &pm->inc[i];
	return NULL;
}

const char *apenet_postmortem_who(const struct apenet_postmortem_event *ev, char *buf, size_t n)
{
	if (ev->has_reporter)
		snprintf(buf, n, "%u,%u,%u", ev->reporter[0], ev->reporter[1], ev->reporter[2]);
	else
		snprintf(buf, n, "supervisor");
	return buf;
}

const char *apenet_postmortem_node_label(const struct apenet_postmortem *pm, const unsigned xyz[3], char *buf, size_t n)
{
	for (unsigned i = 0; i < pm->nnodes; i++)
		if (same_xyz(pm->nodes[i].xyz, xyz) && pm->nodes[i].name[0]) {
			snprintf(buf, n, "%u,%u,%u (%s)", xyz[0], xyz[1], xyz[2], pm->nodes[i].name);
			return buf;
		}
	snprintf(buf, n, "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
	return buf;
}
