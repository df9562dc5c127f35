/*
 * Systemic deduction, the API (include/apenet/deduce.h; docs/supervisor.md,
 * "Systemic deduction"): reports become facts (lofamo/deduce_map.c says
 * which), time makes silences, and after each change the deduction
 * (lofamo/deduce_rules.c) gives every fact its incident
 * (lofamo/deduce_inc.c), whose changes are queued as actions.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/regs.h"
#include "deduce_int.h"

/* The engine's settings are the supervisor's keys of the same names: their
 * defaults and ranges are the rows of the `supervisor:` table
 * (common/config.c), named here and not written again.  K() does not
 * compile when a name is not a member of both structs. */
#define K(k)                                                                                              \
	{ #k, offsetof(struct apenet_deduce_config, k), offsetof(struct apenet_supervisor_config, k),      \
	  sizeof(((struct apenet_deduce_config *)0)->k) == sizeof(int64_t) }
static const struct {
	const char *key;
	size_t off;     /* in struct apenet_deduce_config */
	size_t svr_off; /* its double in struct apenet_supervisor_config */
	int wide;       /* int64_t, else unsigned */
} keys[] = {
	K(silent_ms), K(settle_ms), K(explain_ms), K(late_ms), K(restore_hold_ms), K(resync_ms), K(evidence_max), K(group_min),
};
#undef K
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

static const struct apenet_config_desc *key_row(size_t i)
{
	return apenet_config_desc_find(apenet_config_table_find("supervisor"), keys[i].key);
}

static void key_put(struct apenet_deduce_config *c, size_t i, double v)
{
	void *p = (char *)c + keys[i].off;
	if (keys[i].wide)
		*(int64_t *)p = (int64_t)v;
	else
		*(unsigned *)p = (unsigned)v;
}

static int64_t key_get(const struct apenet_deduce_config *c, size_t i)
{
	const void *p = (const char *)c + keys[i].off;
	return keys[i].wide ? *(const int64_t *)p : (int64_t) * (const unsigned *)p;
}

void apenet_deduce_config_defaults(struct apenet_deduce_config *c)
{
	memset(c, 0, sizeof(*c));
	c->dims[0] = 4;
	c->dims[1] = 4;
	c->dims[2] = 1;
	for (size_t i = 0; i < NKEYS; i++)
		key_put(c, i, key_row(i)->def);
	c->provisional = 1;
}

void apenet_deduce_config_from(struct apenet_deduce_config *c, const struct apenet_supervisor_config *s,
			       const unsigned dims[3])
{
	memset(c, 0, sizeof(*c));
	memcpy(c->dims, dims, sizeof(c->dims));
	for (size_t i = 0; i < NKEYS; i++)
		key_put(c, i, *(const double *)(const void *)((const char *)s + keys[i].svr_off));
	c->provisional = 1;
}

int apenet_deduce_config_check(const struct apenet_deduce_config *c, struct apenet_err *e)
{
	uint64_t n = 1;
	for (int k = 0; k < 3; k++) {
		if (c->dims[k] < 1 || c->dims[k] > 1024)
			return apenet_err_set(e, APENET_EINVAL, "dims[%d]: %u is not in 1..1024", k, c->dims[k]);
		n *= c->dims[k];
	}
	if (n > 1u << 20)
		return apenet_err_set(e, APENET_EINVAL, "dims: %u x %u x %u nodes are more than 1048576", c->dims[0],
				      c->dims[1], c->dims[2]);
	for (size_t i = 0; i < NKEYS; i++) {
		const struct apenet_config_desc *d = key_row(i);
		int64_t v = key_get(c, i);
		if ((double)v < d->min || (double)v > d->max)
			return apenet_err_set(e, APENET_EINVAL, "%s: %" PRId64 " is not in %.0f..%.0f", d->key, v, d->min,
					      d->max);
	}
	return 0;
}

int apenet_deduce_open(const struct apenet_deduce_config *c, struct apenet_deduce **out, struct apenet_err *e)
{
	*out = NULL;
	if (apenet_deduce_config_check(c, e))
		return -1;
	struct apenet_deduce *d = calloc(1, sizeof(*d));
	if (!d)
		return apenet_err_set(e, APENET_EIO, "out of memory");
	d->c = *c;
	d->n = c->dims[0] * c->dims[1] * c->dims[2];
	d->node = calloc(d->n, sizeof(*d->node));
	if (!d->node) {
		free(d);
		return apenet_err_set(e, APENET_EIO, "out of memory for %u nodes", c->dims[0] * c->dims[1] * c->dims[2]);
	}
	for (uint32_t i = 0; i < d->n; i++) {
		struct dd_node *x = &d->node[i];
		x->lru_prev = x->lru_next = x->facts = x->uidx = DD_NONE;
	}
	d->ffree = d->ifree = d->efree = DD_NONE;
	d->lru_head = d->lru_tail = d->cand_head = d->hold_head = DD_NONE;
	*out = d;
	return 0;
}

void apenet_deduce_close(struct apenet_deduce *d)
{
	if (!d)
		return;
	free(d->node);
	free(d->fact);
	free(d->inc);
	free(d->bucket);
	free(d->evr);
	free(d->dirty.v);
	free(d->rekey.v);
	free(d->touched.v);
	free(d->ulist.v);
	free(d->announce.v);
	free(d->exp);
	free(d->q);
	free(d->str);
	free(d->strhash);
	free(d);
}

static void clock_to(struct apenet_deduce *d, int64_t now)
{
	if (!d->started) {
		d->started = 1;
		d->start = now;
		d->now = now;
	}
	if (now > d->now)
		d->now = now;
}

/* ---- reports in ---- */

static void evidence_of(const struct apenet_report *r, int64_t recv, struct apenet_deduce_evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time_ms = r->time_ms;
	ev->recv_ms = recv;
	ev->path = r->path;
	ev->kind = r->kind;
	ev->seq = r->seq;
	ev->x = r->x;
	ev->y = r->y;
	ev->z = r->z;
	snprintf(ev->reporter, sizeof(ev->reporter), "%.*s", (int)sizeof(r->boot) - 1, r->boot);
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		snprintf(ev->code, sizeof(ev->code), "HEARTBEAT");
		snprintf(ev->text, sizeof(ev->text), "heartbeat, LDM 0x%08x", r->ldm);
		return;
	}
	snprintf(ev->code, sizeof(ev->code), "%.*s", (int)sizeof(ev->code) - 1, r->code);
	snprintf(ev->where, sizeof(ev->where), "%.*s", (int)sizeof(ev->where) - 1, r->where);
	snprintf(ev->via, sizeof(ev->via), "%.*s", (int)sizeof(ev->via) - 1, r->via);
	ev->old_status = r->old_status;
	ev->new_status = r->new_status;
	snprintf(ev->text, sizeof(ev->text), "%.*s", (int)sizeof(ev->text) - 1, r->evidence);
}

/* The node itself spoke: its service path is alive. */
static void heard(struct apenet_deduce *d, uint32_t n, int64_t recv, int64_t time_ms,
		  const struct apenet_deduce_evidence *ev)
{
	struct dd_node *x = &d->node[n];
	if (!x->heard_recv)
		d->heard++;
	if (recv > x->heard_recv)
		x->heard_recv = recv;
	if (time_ms > x->heard_time)
		x->heard_time = time_ms;
	apenet_deduce_lru_touch(d, n);
	if (x->iso == ISO_PENDING)
		apenet_deduce_mark_dirty(d, n); /* it spoke after its links went: not the node */
	if (!(x->flags & N_SILENT))
		return;
	x->flags &= (uint8_t)~N_SILENT;
	d->silent--;
	uint32_t f = apenet_deduce_fact_find_kind(d, n, K_SILENT);
	if (f != DD_NONE) {
		if (ev) {
			struct apenet_deduce_evidence back = *ev;
			char text[sizeof(back.text)];
			snprintf(text, sizeof(text), "heard again: %.186s", ev->text);
			memcpy(back.text, text, sizeof(text));
			d->cause = &back;
			apenet_deduce_add_evidence(d, d->fact[f].inc, f, &back);
			apenet_deduce_fact_drop(d, f);
			apenet_deduce_pass(d);
			d->cause = NULL;
		} else {
			apenet_deduce_fact_drop(d, f);
		}
	}
	apenet_deduce_mark_dirty(d, n);
}

void apenet_deduce_heard(struct apenet_deduce *d, unsigned x, unsigned y, unsigned z, int64_t recv_ms,
			 int64_t time_ms)
{
	uint32_t n = apenet_deduce_index(d, x, y, z);
	if (n == DD_NONE)
		return;
	heard(d, n, recv_ms, time_ms, NULL);
	apenet_deduce_pass(d);
}

/* Reporter rep runs a new boot, which says again what is still wrong as
 * it starts (its trackers start from normal): what its older boots said
 * is superseded unless said again within resync_ms.  Its reports are about
 * itself and the partners of its links. */
static void resync(struct apenet_deduce *d, uint32_t rep)
{
	uint32_t around[1 + DD_NDIRS];
	unsigned k = 0;
	around[k++] = rep;
	for (uint8_t dir = 0; dir < DD_NDIRS; dir++) {
		uint32_t m = apenet_deduce_far(d, rep, dir, NULL);
		int seen = m == DD_NONE;
		for (unsigned j = 0; j < k && !seen; j++)
			seen = around[j] == m;
		if (!seen)
			around[k++] = m;
	}
	for (unsigned j = 0; j < k; j++)
		for (uint32_t f = d->node[around[j]].facts; f != DD_NONE; f = d->fact[f].next) {
			struct dd_fact *x = &d->fact[f];
			if (x->reporter != rep || x->kind == K_SILENT || (x->flags & F_OLDBOOT))
				continue;
			if (d->nexp == d->capexp) {
				uint32_t cap = d->capexp ? d->capexp * 2 : 64;
				struct dd_expire *ne = realloc(d->exp, cap * sizeof(*ne));
				if (!ne) {
					d->oom = 1;
					return;
				}
				d->exp = ne;
				d->capexp = cap;
			}
			x->flags |= F_OLDBOOT;
			d->exp[d->nexp++] = (struct dd_expire){ f, x->boot, d->now + d->c.resync_ms };
		}
}

/* The older boots' facts that were not said again go. */
static void supersede(struct apenet_deduce *d)
{
	while (d->hexp < d->nexp && d->exp[d->hexp].at <= d->now) {
		struct dd_expire e = d->exp[d->hexp++];
		struct dd_fact *x = &d->fact[e.fact];
		if (!x->live || !(x->flags & F_OLDBOOT) || x->boot != e.boot)
			continue;
		struct apenet_deduce_evidence ev;
		unsigned c[3];
		apenet_deduce_own_evidence(d, x->node, &ev);
		snprintf(ev.code, sizeof(ev.code), "%s", x->code < d->nstr ? d->str[x->code] : "");
		apenet_deduce_coords(d, x->reporter, c);
		snprintf(ev.text, sizeof(ev.text),
			 "superseded: the agent of node %u,%u,%u restarted (boot #%u) and did not report it again", c[0], c[1],
			 c[2], d->node[x->reporter].boot_n);
		d->cause = &ev;
		apenet_deduce_add_evidence(d, x->inc, e.fact, &ev);
		apenet_deduce_fact_drop(d, e.fact);
		d->st.superseded++;
		apenet_deduce_pass(d);
		d->cause = NULL;
	}
	if (d->hexp == d->nexp)
		d->hexp = d->nexp = 0;
}

static uint8_t opposite(uint8_t dir)
{
	return dir < DD_NDIRS ? (uint8_t)(dir ^ 1u) : dir; /* X+ <-> X-; a paired channel faces itself */
}

void apenet_deduce_report(struct apenet_deduce *d, const struct apenet_report *r, int64_t recv_ms)
{
	uint32_t n = apenet_deduce_index(d, r->x, r->y, r->z);
	if (n == DD_NONE) {
		d->st.ignored++;
		return;
	}
	clock_to(d, recv_ms);
	struct apenet_deduce_evidence ev;
	evidence_of(r, recv_ms, &ev);
	uint32_t rep = apenet_deduce_reporter(d, r->boot);
	uint8_t via = r->path == APENET_REPORT_PATH_NEIGHBOUR_LDM ? apenet_deduce_dir_of(r->via) : DD_NOLINK;
	if (rep == DD_NONE)
		/* no reporter in the boot id: the node itself, or the neighbour
		 * whose link `via` faces it */
		rep = via != DD_NOLINK ? apenet_deduce_far(d, n, opposite(via), NULL) : n;
	int own = rep == n && r->path != APENET_REPORT_PATH_NEIGHBOUR_LDM;
	uint32_t bn = apenet_deduce_boot_number(r->boot);
	if (rep != DD_NONE && bn) {
		struct dd_node *R = &d->node[rep];
		if (bn < R->boot_n) {
			/* an older run than one already heard: superseded */
			d->st.stale++;
			if (own)
				heard(d, n, recv_ms, r->time_ms, &ev);
			apenet_deduce_pass(d);
			return;
		}
		if (bn > R->boot_n) {
			if (R->boot_n)
				resync(d, rep);
			R->boot_n = bn;
		}
	}
	if (own)
		heard(d, n, recv_ms, r->time_ms, &ev);
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		d->st.heartbeats++;
		d->node[n].ldm = r->ldm;
		apenet_deduce_pass(d);
		return;
	}
	d->st.reports++;
	struct dd_class k;
	if (rep == DD_NONE || apenet_deduce_classify(d, r, &k)) {
		d->st.ignored++;
		apenet_deduce_pass(d);
		return;
	}
	uint16_t code = apenet_deduce_intern(d, r->code);
	uint8_t status = r->new_status <= 0 ? 0 : r->new_status == 2 ? 2 : 1; /* invalid counts as sick */
	uint32_t boot = apenet_deduce_hash(r->boot);
	uint32_t f = apenet_deduce_fact_find(d, n, k.kind, code, k.link, rep, via);
	d->cause = &ev;
	if (!status) {
		if (f != DD_NONE) {
			apenet_deduce_add_evidence(d, d->fact[f].inc, f, &ev);
			apenet_deduce_fact_drop(d, f);
		}
		apenet_deduce_pass(d);
		d->cause = NULL;
		return;
	}
	if (f != DD_NONE && d->fact[f].boot == boot && d->fact[f].seq == r->seq && r->seq) {
		d->st.duplicates++;
		d->cause = NULL;
		return;
	}
	if (f == DD_NONE) {
		if ((f = apenet_deduce_fact_new(d, n)) == DD_NONE) {
			d->cause = NULL;
			return;
		}
		struct dd_fact *x = &d->fact[f];
		x->kind = k.kind;
		x->code = code;
		x->comp = k.comp;
		x->link = k.link;
		x->reporter = rep;
		x->via = via;
		x->first_ms = r->time_ms;
		x->recv_ms = recv_ms;
	}
	struct dd_fact *x = &d->fact[f];
	x->status = status;
	x->boot = boot;
	x->seq = r->seq;
	x->flags = (uint8_t)((own ? F_OWN : 0) | (recv_ms - r->time_ms > d->c.late_ms ? F_LATE : 0) |
			     (k.down || (k.kind == K_NLINK && status == 2) ? F_DOWN : 0));
	apenet_deduce_mark_dirty(d, n);
	if (k.kind == K_LINK || k.kind == K_NLINK)
		apenet_deduce_mark_dirty(d, apenet_deduce_far(d, n, k.link, NULL));
	apenet_deduce_assign_pass(d);
	apenet_deduce_add_evidence(d, d->fact[f].inc, f, &ev);
	apenet_deduce_pass(d);
	d->cause = NULL;
}

/* ---- time ---- */

/* After a cluster-wide event (a supervisor missing: every node's and its
 * neighbours' reports) the pools that emptied give their memory back. */
static void compact(struct apenet_deduce *d)
{
	if (!d->ncand && d->capevr > 4096) {
		free(d->evr); /* only candidates hold buffered evidence */
		d->evr = NULL;
		d->nevr = d->capevr = 0;
		d->efree = DD_NONE;
	}
	if (!d->live_facts && !d->nexp && d->capfact > 65536) {
		for (uint32_t i = 0; i < d->n; i++)
			d->node[i].facts = DD_NONE;
		free(d->fact);
		d->fact = NULL;
		d->nfact = d->capfact = 0;
		d->ffree = DD_NONE;
	}
}

void apenet_deduce_tick(struct apenet_deduce *d, int64_t now_ms)
{
	int64_t was = d->started ? d->now : now_ms;
	clock_to(d, now_ms);
	/* never-heard nodes count as silent from start + silent_ms on: an
	 * isolation that waited on them is decided now */
	if (was < d->start + d->c.silent_ms && d->now >= d->start + d->c.silent_ms)
		for (uint32_t i = d->cand_head; i != DD_NONE; i = d->inc[i].lnext)
			if (d->inc[i].rule == R_LINKS_PENDING)
				apenet_deduce_mark_dirty(d, d->inc[i].node);
	struct dd_vec fresh = { 0 };
	while (d->lru_head != DD_NONE && d->node[d->lru_head].heard_recv + d->c.silent_ms <= d->now) {
		uint32_t n = d->lru_head;
		struct dd_node *x = &d->node[n];
		apenet_deduce_lru_del(d, n);
		x->flags |= N_SILENT;
		d->silent++;
		uint32_t f = apenet_deduce_fact_new(d, n);
		if (f == DD_NONE)
			continue;
		struct dd_fact *s = &d->fact[f];
		s->kind = K_SILENT;
		s->code = 0xffff;
		s->link = s->via = DD_NOLINK;
		s->reporter = n;
		s->status = 2;
		s->first_ms = d->now;
		s->recv_ms = d->now;
		apenet_deduce_mark_dirty(d, n);
		if (apenet_deduce_vec_push(&fresh, f))
			d->oom = 1;
	}
	apenet_deduce_assign_pass(d);
	for (uint32_t k = 0; k < fresh.n; k++) {
		uint32_t f = fresh.v[k];
		const struct dd_fact *s = &d->fact[f];
		if (!s->live || s->kind != K_SILENT)
			continue;
		const struct dd_node *x = &d->node[s->node];
		struct apenet_deduce_evidence ev;
		apenet_deduce_own_evidence(d, s->node, &ev);
		snprintf(ev.code, sizeof(ev.code), "SILENT");
		ev.new_status = 2;
		snprintf(ev.text, sizeof(ev.text), "no report from node %u,%u,%u for %.1f s (the last seen at %" PRId64 ")",
			 ev.x, ev.y, ev.z, (double)(d->now - x->heard_recv) / 1000, x->heard_time);
		apenet_deduce_add_evidence(d, s->inc, f, &ev);
	}
	free(fresh.v);
	apenet_deduce_pass(d);
	supersede(d);
	apenet_deduce_due(d);
	apenet_deduce_pass(d);
	compact(d);
}

/* ---- actions out ---- */

int apenet_deduce_next_action(struct apenet_deduce *d, struct apenet_deduce_action *a)
{
	if (!d->qlen)
		return 0;
	*a = d->q[d->qhead];
	d->qhead = (d->qhead + 1) % d->qcap;
	d->qlen--;
	if (!d->qlen && d->qcap > 1024) {
		/* a burst (a thousand incidents opening) is over: its queue goes */
		free(d->q);
		d->q = NULL;
		d->qcap = d->qhead = 0;
	}
	/* a ref set after the action was queued */
	uint32_t i;
	if (!a->ref && (i = apenet_deduce_inc_by_key(d, a->key)) != DD_NONE)
		a->ref = d->inc[i].ref;
	if (a->merged_into && !a->merged_into_ref && (i = apenet_deduce_inc_by_key(d, a->merged_into)) != DD_NONE)
		a->merged_into_ref = d->inc[i].ref;
	return 1;
}

void apenet_deduce_set_ref(struct apenet_deduce *d, uint64_t key, int64_t ref)
{
	uint32_t i = apenet_deduce_inc_by_key(d, key);
	if (i != DD_NONE)
		d->inc[i].ref = ref;
}

const char *apenet_deduce_kind_name(int kind)
{
	static const char *const n[] = { "?", "open", "evidence", "reblame", "close", "settle" };
	return kind >= 1 && kind <= 5 ? n[kind] : "?";
}

/* ---- restart ---- */

uint64_t apenet_deduce_restore(struct apenet_deduce *d, const struct apenet_deduce_restore *r, int64_t now_ms,
			       struct apenet_err *e)
{
	clock_to(d, now_ms);
	int comp = r->component ? apenet_deduce_comp_of(d, r->component) : -1;
	if (comp < 0) {
		apenet_err_set(e, APENET_EINVAL, "component '%s' is not one the engine knows",
			       r->component ? r->component : "");
		return 0;
	}
	uint32_t node = DD_NONE;
	uint8_t aux = DD_NOLINK;
	if (comp == C_SUPERVISOR) {
		aux = r->where && !strcmp(r->where, "self");
	} else {
		if (!r->has_node || (node = apenet_deduce_index(d, r->x, r->y, r->z)) == DD_NONE) {
			apenet_err_set(e, APENET_EINVAL, "%s incident: node %u,%u,%u is not in the torus", r->component, r->x,
				       r->y, r->z);
			return 0;
		}
		if (comp == C_CABLE || comp == C_MODULE || comp == C_LINK || comp == C_CABLING) {
			aux = r->link ? apenet_deduce_dir_of(r->link) : DD_NOLINK;
			if (comp == C_CABLE) {
				uint8_t back;
				uint32_t m = apenet_deduce_far(d, node, aux, &back);
				if (m == DD_NONE) {
					apenet_err_set(e, APENET_EINVAL, "cable incident: node %u,%u,%u has no link '%s'",
						       r->x, r->y, r->z, r->link ? r->link : "");
					return 0;
				}
				if ((uint64_t)m * 16 + back < (uint64_t)node * 16 + aux) {
					node = m; /* named by its other end: the engine's is the smaller */
					aux = back;
				}
			}
		}
	}
	if (apenet_deduce_inc_find(d, (uint16_t)comp, node, aux) != DD_NONE) {
		apenet_err_set(e, APENET_EINVAL, "%s incident restored twice", r->component);
		return 0;
	}
	uint32_t i = apenet_deduce_inc_new(d);
	if (i == DD_NONE) {
		apenet_err_set(e, APENET_EIO, "out of memory");
		return 0;
	}
	struct dd_inc *I = &d->inc[i];
	I->comp = (uint16_t)comp;
	I->node = node;
	I->aux = aux;
	I->state = I_OPEN;
	I->ref = r->ref;
	int rule = r->rule ? apenet_deduce_rule_of(r->rule) : -1;
	I->rule = (uint8_t)(rule > 0 ? rule : R_NONE);
	I->status = (uint8_t)(r->status == 1 ? 1 : 2);
	I->restored = 1;
	I->hold_until = d->now + d->c.restore_hold_ms;
	I->first_ms = I->last_ms = r->first_ms;
	apenet_deduce_own_evidence(d, node, &I->first);
	I->first.time_ms = r->first_ms;
	snprintf(I->first.text, sizeof(I->first.text), "restored from the database");
	I->emitted = 1;
	apenet_deduce_inc_hash(d, i);
	apenet_deduce_list_add(d, &d->hold_head, i);
	d->nopen++;
	return d->inc[i].key;
}

void apenet_deduce_stats(const struct apenet_deduce *d, struct apenet_deduce_stats *s)
{
	*s = d->st;
	s->nodes = d->n;
	s->heard = d->heard;
	s->silent = d->silent;
	s->facts = d->live_facts;
	s->candidates = d->ncand;
	s->open = d->nopen;
	s->bytes = sizeof(*d) + (size_t)d->n * sizeof(*d->node) + (size_t)d->capfact * sizeof(*d->fact) +
		   (size_t)d->capinc * sizeof(*d->inc) + (size_t)d->nbucket * sizeof(*d->bucket) +
		   (size_t)d->capevr * sizeof(*d->evr) + d->qcap * sizeof(*d->q) + (size_t)d->capstr * sizeof(*d->str) +
		   (size_t)d->nstrhash * sizeof(*d->strhash) +
		   ((size_t)d->dirty.cap + d->rekey.cap + d->touched.cap + d->ulist.cap + d->announce.cap) * sizeof(uint32_t) +
		   (size_t)d->capexp * sizeof(*d->exp);
}
