/*
 * Incidents of the deduction engine (lofamo/deduce_int.h).
 *
 * A fact deduced to belong to an incident that does not exist yet creates
 * a candidate: nothing is said until its settle window (settle_ms after the
 * first evidence arrived; explain_ms for a silence that nothing explains
 * yet) has passed, so that the correlated evidence of one fault (a dark
 * card's neighbours' links, their link fields in their own neighbours'
 * words, the node's own report) lands on one incident.  Then it opens with
 * its first fault (the earliest evidence) and every other piece buffered.
 *
 * Facts move freely between candidates.  From an open incident a fact
 * moves only to a strictly stronger explanation (a provisional cable to the
 * card-gone node at its far end); an open incident left with no facts by
 * moves is merged into the incident that took them when that one is open
 * or has evidence of its own (it opens then), or takes over the
 * candidate's blame (re-blame) when all the candidate holds came from it.  Left with
 * no facts by clears, it closes.  A candidate whose facts all cleared
 * before it opened was a transient and leaves nothing, unless the evidence
 * itself spans the settle window (history from a spool): then it opens and
 * closes at once.
 *
 * A provisional engine (the supervisor's) also says each candidate at once,
 * when a pass is done and its isolation is decided: OPEN provisional with
 * its blame so far, REBLAME (provisional) when that changes, SETTLE when
 * the window passes (the "open" above).  Its evidence stays buffered until
 * then.  Said, it is not dropped silently: whose facts all moved to a
 * candidate not said yet takes that one's blame under its own key (adopt),
 * else it merges into the incident that took them; one whose facts cleared
 * is withdrawn (CLOSE provisional).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deduce_int.h"

static void said(struct apenet_deduce *d, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	I->said_comp = I->comp;
	I->said_node = I->node;
	I->said_aux = I->aux;
	I->said_rule = I->rule;
}

static void blame_action(struct apenet_deduce *d, uint32_t i)
{
	struct apenet_deduce_action *a = apenet_deduce_action(d, APENET_DEDUCE_REBLAME, i);
	if (!a)
		return;
	apenet_deduce_blame(d, &d->inc[i], &a->blame);
	a->time_ms = d->now;
	a->provisional = d->inc[i].state == I_CAND;
	said(d, i);
	d->st.reblamed++;
}

/* A candidate whose provisional blame may have to be said (provisional
 * engines only). */
static void to_announce(struct apenet_deduce *d, uint32_t i)
{
	if (!d->c.provisional || d->inc[i].amark)
		return;
	if (apenet_deduce_vec_push(&d->announce, i)) {
		d->oom = 1;
		return;
	}
	d->inc[i].amark = 1;
}

/* Node-level incidents change what a silence means (deduce_rules.c,
 * unexplained): the node is looked at again. */
static void node_changed(struct apenet_deduce *d, const struct dd_inc *I)
{
	if (I->node != DD_NONE && (I->comp == C_SERVICE || I->comp == C_AGENT))
		apenet_deduce_mark_dirty(d, I->node);
}

static void emit_evidence(struct apenet_deduce *d, uint32_t i, const struct apenet_deduce_evidence *ev)
{
	struct dd_inc *I = &d->inc[i];
	if (I->emitted >= d->c.evidence_max) {
		d->st.evidence_counted++;
		return;
	}
	struct apenet_deduce_action *a = apenet_deduce_action(d, APENET_DEDUCE_EVIDENCE, i);
	if (!a)
		return;
	I = &d->inc[i];
	a->time_ms = ev->time_ms;
	a->ev = *ev;
	if (ev->time_ms < I->first_ms && (ev->new_status || ev->path == APENET_DEDUCE_PATH_SUPERVISOR)) {
		a->first = 1; /* earlier than what opened it (a spooled report): the first fault now */
		I->first = *ev;
		I->first_ms = ev->time_ms;
	}
	I->emitted++;
	d->st.evidence++;
}

void apenet_deduce_add_evidence(struct apenet_deduce *d, uint32_t i, uint32_t origin,
				const struct apenet_deduce_evidence *ev)
{
	if (i == DD_NONE)
		return;
	struct dd_inc *I = &d->inc[i];
	I->nevidence++;
	if (ev->time_ms > I->last_ms)
		I->last_ms = ev->time_ms;
	if (I->state == I_OPEN) {
		emit_evidence(d, i, ev);
		return;
	}
	if (I->nbuf >= d->c.evidence_max) {
		d->st.evidence_counted++;
		return;
	}
	uint32_t r = apenet_deduce_evrec_new(d);
	if (r == DD_NONE)
		return;
	I = &d->inc[i];
	d->evr[r].origin = origin;
	d->evr[r].ev = *ev;
	if (I->evtail != DD_NONE)
		d->evr[I->evtail].next = r;
	else
		I->evhead = r;
	I->evtail = r;
	I->nbuf++;
}

/* Takes the buffered records of fact f (all of them when f is DD_NONE)
 * out of candidate i, in order, as a list. */
static uint32_t take_records(struct apenet_deduce *d, uint32_t i, uint32_t f, uint32_t *n)
{
	struct dd_inc *I = &d->inc[i];
	uint32_t head = DD_NONE, tail = DD_NONE, prev = DD_NONE;
	*n = 0;
	for (uint32_t r = I->evhead; r != DD_NONE;) {
		uint32_t next = d->evr[r].next;
		if (f == DD_NONE || d->evr[r].origin == f) {
			if (prev != DD_NONE)
				d->evr[prev].next = next;
			else
				I->evhead = next;
			if (I->evtail == r)
				I->evtail = prev;
			I->nbuf--;
			d->evr[r].next = DD_NONE;
			if (tail != DD_NONE)
				d->evr[tail].next = r;
			else
				head = r;
			tail = r;
			(*n)++;
		} else {
			prev = r;
		}
		r = next;
	}
	return head;
}

/* Records into incident i: buffered (a candidate) or emitted (open). */
static void give_records(struct apenet_deduce *d, uint32_t i, uint32_t list)
{
	for (uint32_t r = list; r != DD_NONE;) {
		uint32_t next = d->evr[r].next;
		struct dd_inc *I = &d->inc[i];
		if (I->state == I_OPEN || I->nbuf >= d->c.evidence_max) {
			if (I->state == I_OPEN)
				emit_evidence(d, i, &d->evr[r].ev);
			else
				d->st.evidence_counted++;
			apenet_deduce_evrec_free(d, r);
		} else {
			d->evr[r].next = DD_NONE;
			if (I->evtail != DD_NONE)
				d->evr[I->evtail].next = r;
			else
				I->evhead = r;
			I->evtail = r;
			I->nbuf++;
		}
		r = next;
	}
}

static void strengthen(struct apenet_deduce *d, uint32_t i, uint32_t f, unsigned rule)
{
	struct dd_inc *I = &d->inc[i];
	const struct dd_fact *x = &d->fact[f];
	if (I->comp == C_CABLE)
		I->srcmask |= (uint8_t)(x->node == I->node && x->link == I->aux ? 1 : 2); /* which end */
	else
		I->srcmask |= (uint8_t)(x->flags & F_OWN ? 1 : 2); /* the node itself, or its neighbours */
	unsigned r = rule;
	if (rule == R_LINK_ONE || rule == R_LINK_BOTH)
		r = I->srcmask == 3 ? R_LINK_BOTH : R_LINK_ONE;
	else if (rule == R_SELF || rule == R_NBR || rule == R_SELF_NBR)
		r = I->srcmask == 3 ? R_SELF_NBR : I->srcmask & 1 ? R_SELF : R_NBR;
	if (x->status > I->status)
		I->status = x->status;
	if (I->rule == R_NONE || apenet_deduce_rule_strength(r) > apenet_deduce_rule_strength(I->rule)) {
		I->rule = (uint8_t)r;
		if (I->state == I_OPEN)
			blame_action(d, i);
		else
			to_announce(d, i);
	}
}

static uint32_t cand_new(struct apenet_deduce *d, uint16_t comp, uint32_t node, uint8_t aux, uint32_t f)
{
	uint32_t i = apenet_deduce_inc_new(d);
	if (i == DD_NONE)
		return DD_NONE;
	struct dd_inc *I = &d->inc[i];
	I->comp = comp;
	I->node = node;
	I->aux = aux;
	I->state = I_CAND;
	I->rule = R_NONE;
	I->settle_from = d->fact[f].recv_ms;
	I->first_ms = I->last_ms = d->fact[f].first_ms;
	apenet_deduce_inc_hash(d, i);
	apenet_deduce_list_add(d, &d->cand_head, i);
	d->ncand++;
	apenet_deduce_touch(d, i);
	return i;
}

static void move(struct apenet_deduce *d, uint32_t f, uint32_t from, uint32_t to)
{
	apenet_deduce_inc_unlink_fact(d, from, f);
	apenet_deduce_inc_link_fact(d, to, f);
	struct dd_inc *F = &d->inc[from], *T = &d->inc[to];
	const struct dd_fact *x = &d->fact[f];
	F->moved_to = to;
	F->lost_by_clear = 0;
	if (F->state == I_OPEN && T->state == I_CAND)
		T->adopted++;
	if (T->state == I_CAND) {
		if (x->recv_ms < T->settle_from)
			T->settle_from = x->recv_ms;
		if (x->first_ms < T->first_ms)
			T->first_ms = x->first_ms;
	}
	if (F->state == I_CAND) {
		uint32_t n;
		uint32_t list = take_records(d, from, f, &n);
		d->inc[from].nevidence -= n <= d->inc[from].nevidence ? n : d->inc[from].nevidence;
		d->inc[to].nevidence += n;
		give_records(d, to, list);
	}
	apenet_deduce_touch(d, from);
	apenet_deduce_touch(d, to);
}

void apenet_deduce_assign(struct apenet_deduce *d, uint32_t f, uint16_t comp, uint32_t node, uint8_t aux, unsigned rule)
{
	uint32_t t = apenet_deduce_inc_find(d, comp, node, aux);
	uint32_t cur = d->fact[f].inc;
	d->fact[f].rule = (uint8_t)rule;
	if (cur != DD_NONE && cur == t) {
		strengthen(d, t, f, rule);
		return;
	}
	if (cur != DD_NONE && d->inc[cur].state == I_OPEN) {
		/* what was said stands, unless this explains strictly more, and
		 * is decided (an isolation still pending is not) */
		if (rule == R_LINKS_PENDING || apenet_deduce_rule_strength(rule) <= apenet_deduce_rule_strength(d->inc[cur].rule))
			return;
		if (t != DD_NONE && d->inc[t].state == I_CAND && d->inc[t].rule == R_LINKS_PENDING)
			return;
	}
	if (t == DD_NONE && (t = cand_new(d, comp, node, aux, f)) == DD_NONE)
		return;
	if (cur == DD_NONE) {
		apenet_deduce_inc_link_fact(d, t, f);
		struct dd_inc *T = &d->inc[t];
		const struct dd_fact *x = &d->fact[f];
		if (T->state == I_CAND) {
			if (x->recv_ms < T->settle_from)
				T->settle_from = x->recv_ms;
			if (x->first_ms < T->first_ms)
				T->first_ms = x->first_ms;
		}
		apenet_deduce_touch(d, t);
	} else {
		move(d, f, cur, t);
	}
	strengthen(d, t, f, rule);
}

void apenet_deduce_fact_drop(struct apenet_deduce *d, uint32_t f)
{
	struct dd_fact *x = &d->fact[f];
	uint32_t i = x->inc, n = x->node;
	if (i != DD_NONE) {
		apenet_deduce_inc_unlink_fact(d, i, f);
		d->inc[i].lost_by_clear = 1;
		if (d->inc[i].state == I_CAND)
			for (uint32_t r = d->inc[i].evhead; r != DD_NONE; r = d->evr[r].next)
				if (d->evr[r].origin == f)
					d->evr[r].origin = DD_NONE; /* history now: stays with the candidate */
		apenet_deduce_touch(d, i);
	}
	apenet_deduce_mark_dirty(d, n);
	if (x->kind == K_LINK || x->kind == K_NLINK)
		apenet_deduce_mark_dirty(d, apenet_deduce_far(d, n, x->link, NULL));
	apenet_deduce_fact_free(d, f);
}

/* ---- open, close, merge, re-blame ---- */

static void coords_of(const struct apenet_deduce *d, uint32_t n, unsigned *x, unsigned *y, unsigned *z)
{
	unsigned c[3] = { 0, 0, 0 };
	if (n != DD_NONE)
		apenet_deduce_coords(d, n, c);
	*x = c[0];
	*y = c[1];
	*z = c[2];
}

void apenet_deduce_own_evidence(const struct apenet_deduce *d, uint32_t n, struct apenet_deduce_evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time_ms = ev->recv_ms = d->now;
	ev->path = APENET_DEDUCE_PATH_SUPERVISOR;
	snprintf(ev->reporter, sizeof(ev->reporter), "supervisor");
	coords_of(d, n, &ev->x, &ev->y, &ev->z);
}

/* The first fault of a candidate: its earliest evidence (arrival order
 * breaks ties), or what it blames in words when it holds none; the record,
 * DD_NONE for the words. */
static uint32_t first_fault(struct apenet_deduce *d, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	uint32_t best = DD_NONE;
	for (uint32_t r = I->evhead; r != DD_NONE; r = d->evr[r].next)
		if (best == DD_NONE || d->evr[r].ev.time_ms < d->evr[best].ev.time_ms)
			best = r;
	if (best != DD_NONE) {
		I->first = d->evr[best].ev;
	} else {
		struct apenet_deduce_blame b;
		apenet_deduce_blame(d, I, &b);
		apenet_deduce_own_evidence(d, I->node, &I->first);
		I->first.time_ms = I->first_ms;
		I->first.recv_ms = I->settle_from;
		snprintf(I->first.text, sizeof(I->first.text), "%s", b.summary);
	}
	return best;
}

static int same_evidence(const struct apenet_deduce_evidence *a, const struct apenet_deduce_evidence *b)
{
	return a->time_ms == b->time_ms && a->recv_ms == b->recv_ms && a->path == b->path && a->seq == b->seq &&
	       a->new_status == b->new_status && !strcmp(a->reporter, b->reporter) && !strcmp(a->code, b->code) &&
	       !strcmp(a->where, b->where) && !strcmp(a->text, b->text);
}

/* A candidate said provisionally: OPEN with its blame so far and its first
 * fault so far; its evidence stays buffered (it moves with its facts) until
 * it settles. */
static void open_provisional(struct apenet_deduce *d, uint32_t i)
{
	first_fault(d, i);
	struct apenet_deduce_action *a = apenet_deduce_action(d, APENET_DEDUCE_OPEN, i);
	struct dd_inc *I = &d->inc[i];
	I->announced = 1;
	said(d, i);
	d->st.opened++;
	if (a) {
		a->time_ms = I->first.time_ms;
		a->provisional = 1;
		apenet_deduce_blame(d, I, &a->blame);
		a->ev = I->first;
	}
}

static void open_now(struct apenet_deduce *d, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	apenet_deduce_list_del(d, &d->cand_head, i);
	d->ncand--;
	d->nopen++;
	I->state = I_OPEN;
	int was = I->announced;
	/* announced: its first fault as said (one earlier found since goes
	 * out as evidence that is the first fault now) */
	struct apenet_deduce_evidence told = I->first;
	uint32_t best = was ? DD_NONE : first_fault(d, i);
	if (was)
		d->st.settled++;
	else
		d->st.opened++;
	I->first_ms = I->first.time_ms;
	struct apenet_deduce_action *a = apenet_deduce_action(d, was ? APENET_DEDUCE_SETTLE : APENET_DEDUCE_OPEN, i);
	I = &d->inc[i];
	if (a) {
		a->time_ms = was ? d->now : I->first.time_ms;
		apenet_deduce_blame(d, I, &a->blame);
		a->ev = I->first;
	}
	I->emitted = 1;
	if (I->nevidence < 1)
		I->nevidence = 1;
	uint32_t n;
	uint32_t list = take_records(d, i, DD_NONE, &n);
	int skipped = !was;
	for (uint32_t r = list; r != DD_NONE;) {
		uint32_t next = d->evr[r].next;
		if (!was ? r != best : skipped || !(skipped = same_evidence(&d->evr[r].ev, &told)))
			emit_evidence(d, i, &d->evr[r].ev);
		apenet_deduce_evrec_free(d, r);
		r = next;
	}
	node_changed(d, &d->inc[i]);
}

static void unlist(struct apenet_deduce *d, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	if (I->state == I_CAND) {
		apenet_deduce_list_del(d, &d->cand_head, i);
		d->ncand--;
	} else if (I->state == I_OPEN) {
		if (I->restored)
			apenet_deduce_list_del(d, &d->hold_head, i);
		d->nopen--;
	}
	apenet_deduce_inc_unhash(d, i);
}

static void close_now(struct apenet_deduce *d, uint32_t i, int state, uint32_t into, const char *why)
{
	struct apenet_deduce_action *a = apenet_deduce_action(d, APENET_DEDUCE_CLOSE, i);
	struct dd_inc *I = &d->inc[i];
	if (a) {
		a->state = state;
		a->provisional = I->state == I_CAND;
		a->nevidence = I->nevidence;
		if (d->cause && state == APENET_DEDUCE_CLOSED) {
			a->ev = *d->cause;
			a->time_ms = d->cause->time_ms;
		} else {
			apenet_deduce_own_evidence(d, I->node, &a->ev);
			snprintf(a->ev.text, sizeof(a->ev.text), "%s", why);
		}
		if (into != DD_NONE) {
			a->merged_into = d->inc[into].key;
			a->merged_into_ref = d->inc[into].ref;
		}
	}
	if (state == APENET_DEDUCE_MERGED)
		d->st.merged++;
	else
		d->st.closed++;
	if (I->state == I_CAND && state != APENET_DEDUCE_MERGED)
		d->st.withdrawn++;
	if (I->state == I_OPEN)
		node_changed(d, I); /* a candidate's going changes no verdict (drop_candidate) */
	unlist(d, i);
	apenet_deduce_inc_free(d, i);
}

static void drop_candidate(struct apenet_deduce *d, uint32_t i)
{
	unlist(d, i);
	apenet_deduce_inc_free(d, i);
}

/* Incident i (open, or a candidate said provisionally) lost its facts to
 * incident t (open, or said provisionally). */
static void merge(struct apenet_deduce *d, uint32_t i, uint32_t t)
{
	struct apenet_deduce_evidence ev = d->inc[i].first;
	if (d->inc[i].state == I_CAND) {
		/* not settled: its evidence went with its facts (its history,
		 * facts cleared, goes with it, as a candidate's does); its row
		 * says where it went */
		char why[96];
		snprintf(why, sizeof(why), "its evidence is explained by incident %" PRIu64 " (%s)", d->inc[t].key,
			 apenet_deduce_comp_name(d, d->inc[t].comp));
		close_now(d, i, APENET_DEDUCE_MERGED, t, why);
		return;
	}
	struct apenet_deduce_blame b;
	apenet_deduce_blame(d, &d->inc[i], &b);
	char text[sizeof(ev.text) + 128];
	snprintf(text, sizeof(text), "merged in: incident %" PRIu64 " (%s %s); its first fault: %s", d->inc[i].key,
		 b.component, b.rule, ev.text);
	snprintf(ev.text, sizeof(ev.text), "%.*s", (int)sizeof(ev.text) - 1, text);
	char why[96];
	snprintf(why, sizeof(why), "its evidence is explained by incident %" PRIu64 " (%s)", d->inc[t].key,
		 apenet_deduce_comp_name(d, d->inc[t].comp));
	close_now(d, i, APENET_DEDUCE_MERGED, t, why);
	if (d->inc[t].state == I_OPEN) {
		d->inc[t].nevidence++;
		emit_evidence(d, t, &ev);
	} else {
		apenet_deduce_add_evidence(d, t, DD_NONE, &ev);
	}
}

/* Open incident i lost its facts to candidate t: i takes t's blame and
 * facts, and goes on under its own key. */
static void reblame_into(struct apenet_deduce *d, uint32_t i, uint32_t t)
{
	while (d->inc[t].fhead != DD_NONE) {
		uint32_t f = d->inc[t].fhead;
		apenet_deduce_inc_unlink_fact(d, t, f);
		apenet_deduce_inc_link_fact(d, i, f);
	}
	apenet_deduce_inc_unhash(d, i);
	struct dd_inc *I = &d->inc[i], *T = &d->inc[t];
	if (I->restored) {
		apenet_deduce_list_del(d, &d->hold_head, i);
		I->restored = 0;
	}
	node_changed(d, I);
	I->comp = T->comp;
	I->node = T->node;
	I->aux = T->aux;
	I->rule = T->rule;
	I->srcmask = T->srcmask;
	if (T->status > I->status)
		I->status = T->status;
	I->moved_to = DD_NONE;
	I->lost_by_clear = 0;
	uint32_t n;
	uint32_t list = take_records(d, t, DD_NONE, &n);
	I->nevidence += n;
	if (T->announced) {
		/* said provisionally: its row is merged into i, which goes on */
		struct apenet_deduce_action *a = apenet_deduce_action(d, APENET_DEDUCE_CLOSE, t);
		I = &d->inc[i];
		T = &d->inc[t];
		if (a) {
			a->state = APENET_DEDUCE_MERGED;
			a->provisional = 1;
			a->nevidence = T->nevidence;
			apenet_deduce_own_evidence(d, T->node, &a->ev);
			snprintf(a->ev.text, sizeof(a->ev.text), "its evidence is explained by incident %" PRIu64,
				 I->key);
			a->merged_into = I->key;
			a->merged_into_ref = I->ref;
		}
		d->st.merged++;
	}
	apenet_deduce_list_del(d, &d->cand_head, t);
	d->ncand--;
	apenet_deduce_inc_unhash(d, t);
	apenet_deduce_inc_free(d, t);
	apenet_deduce_inc_hash(d, i);
	blame_action(d, i);
	give_records(d, i, list);
	node_changed(d, &d->inc[i]);
}

/* Candidate i, said provisionally, lost its facts to candidate t, not
 * said: i becomes t (its blame, facts, evidence, window: the deduction
 * goes on exactly as it would have with t) under its own key, re-blamed
 * when the rounds are done.  Its own history (facts cleared) goes, as it
 * would have with i. */
static void adopt(struct apenet_deduce *d, uint32_t i, uint32_t t)
{
	while (d->inc[t].fhead != DD_NONE) {
		uint32_t f = d->inc[t].fhead;
		apenet_deduce_inc_unlink_fact(d, t, f);
		apenet_deduce_inc_link_fact(d, i, f);
	}
	apenet_deduce_inc_unhash(d, i);
	apenet_deduce_inc_unhash(d, t);
	uint32_t n;
	uint32_t old = take_records(d, i, DD_NONE, &n);
	for (uint32_t r = old; r != DD_NONE;) {
		uint32_t next = d->evr[r].next;
		apenet_deduce_evrec_free(d, r);
		r = next;
	}
	uint32_t list = take_records(d, t, DD_NONE, &n);
	struct dd_inc *I = &d->inc[i], *T = &d->inc[t];
	I->comp = T->comp;
	I->node = T->node;
	I->aux = T->aux;
	I->rule = T->rule;
	I->srcmask = T->srcmask;
	I->status = T->status;
	I->adopted = T->adopted;
	I->settle_from = T->settle_from;
	I->first_ms = T->first_ms;
	I->last_ms = T->last_ms;
	I->nevidence = T->nevidence;
	I->moved_to = DD_NONE;
	I->lost_by_clear = 0;
	apenet_deduce_list_del(d, &d->cand_head, t);
	d->ncand--;
	apenet_deduce_inc_free(d, t);
	apenet_deduce_inc_hash(d, i);
	give_records(d, i, list);
	to_announce(d, i);
}

void apenet_deduce_reconcile(struct apenet_deduce *d)
{
	for (uint32_t k = 0; k < d->touched.n; k++) {
		uint32_t i = d->touched.v[k];
		struct dd_inc *I = &d->inc[i];
		I->mark = 0;
		if (I->state == I_FREE)
			continue;
		if (I->nfacts) {
			I->moved_to = DD_NONE;
			if (I->state == I_CAND)
				to_announce(d, i);
			continue;
		}
		if (I->state == I_CAND) {
			/* gone before it settled: a transient, unless the evidence
			 * itself spans the window (history, from a spool) */
			uint32_t t = I->moved_to;
			if (I->lost_by_clear && I->rule != R_LINKS_PENDING && I->rule != R_NONE &&
			    I->last_ms - I->first_ms >= d->c.settle_ms) {
				open_now(d, i);
				close_now(d, i, APENET_DEDUCE_CLOSED, DD_NONE, "cleared");
			} else if (!I->announced) {
				drop_candidate(d, i);
			} else if (!I->lost_by_clear && t != DD_NONE && d->inc[t].state != I_FREE && d->inc[t].nfacts) {
				/* said provisionally, and its evidence blames something
				 * else now: it goes on under that blame, or merges into
				 * the incident that blames it when that one is said */
				if (d->inc[t].state == I_CAND && !d->inc[t].announced)
					adopt(d, i, t);
				else
					merge(d, i, t);
			} else {
				close_now(d, i, APENET_DEDUCE_CLOSED, DD_NONE,
					  "withdrawn: its evidence cleared before it settled");
			}
			continue;
		}
		if (I->restored && d->now < I->hold_until)
			continue;
		uint32_t t = I->moved_to;
		if (!I->lost_by_clear && t != DD_NONE && d->inc[t].state != I_FREE && d->inc[t].nfacts) {
			/* re-explained: the same evidence blames something else
			 * (re-blame); explained by another fault with evidence of
			 * its own, which out-ranks it (that opens now: merge) */
			if (d->inc[t].state == I_CAND && d->inc[t].nfacts > d->inc[t].adopted)
				open_now(d, t);
			if (d->inc[t].state == I_OPEN)
				merge(d, i, t);
			else
				reblame_into(d, i, t);
			continue;
		}
		close_now(d, i, APENET_DEDUCE_CLOSED, DD_NONE, "its evidence cleared");
	}
	d->touched.n = 0;
}

static int svc_broken(const struct apenet_deduce *d, uint32_t n)
{
	for (uint32_t f = d->node[n].facts; f != DD_NONE; f = d->fact[f].next)
		if ((d->fact[f].kind == K_SVC || d->fact[f].kind == K_NSVC) && d->fact[f].status >= 2)
			return 1;
	return 0;
}

static int can_open(const struct apenet_deduce *d, uint32_t i)
{
	const struct dd_inc *I = &d->inc[i];
	const struct apenet_deduce_config *c = &d->c;
	if (I->rule == R_NONE || I->rule == R_LINKS_PENDING)
		return 0; /* the isolation is decided first (silence, or the node speaking) */
	int64_t wait = c->settle_ms;
	if (apenet_deduce_rule_explains(I->rule) && !(I->rule == R_SERVICE_CUT && svc_broken(d, I->node)))
		wait = c->explain_ms > c->settle_ms ? c->explain_ms : c->settle_ms;
	if (d->now < I->settle_from + wait)
		return 0;
	if (I->rule == R_HOST_EXPIRED && I->node != DD_NONE) {
		/* host dead while still heard?  wait for it to speak after (the
		 * agent is late) or to fall silent (hung: a stronger rule) */
		const struct dd_node *x = &d->node[I->node];
		if (!(x->heard_recv && x->heard_time > I->first_ms) && d->now < I->settle_from + c->silent_ms + c->settle_ms)
			return 0;
	}
	if (I->rule == R_SUP_MISSING && !(I->srcmask & 1) && d->now < I->settle_from + c->explain_ms)
		return 0; /* only neighbours' words so far: a node about to go silent? */
	return 1;
}

static int due_order(const void *a, const void *b, void *ctx)
{
	const struct apenet_deduce *d = ctx;
	const struct dd_inc *x = &d->inc[*(const uint32_t *)a], *y = &d->inc[*(const uint32_t *)b];
	if (x->settle_from != y->settle_from)
		return x->settle_from < y->settle_from ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

void apenet_deduce_due(struct apenet_deduce *d)
{
	/* those due open in the order their evidence came */
	struct dd_vec due = { 0 };
	for (uint32_t i = d->cand_head; i != DD_NONE; i = d->inc[i].lnext)
		if (can_open(d, i) && apenet_deduce_vec_push(&due, i))
			d->oom = 1;
	if (due.n > 1)
		qsort_r(due.v, due.n, sizeof(*due.v), due_order, d);
	for (uint32_t k = 0; k < due.n; k++)
		open_now(d, due.v[k]);
	free(due.v);
	for (uint32_t i = d->hold_head; i != DD_NONE;) {
		uint32_t next = d->inc[i].lnext;
		if (d->now >= d->inc[i].hold_until) {
			apenet_deduce_list_del(d, &d->hold_head, i);
			d->inc[i].restored = 0;
			if (!d->inc[i].nfacts)
				close_now(d, i, APENET_DEDUCE_CLOSED, DD_NONE,
					  "no evidence of it since this supervisor started");
		}
		i = next;
	}
}

void apenet_deduce_announce(struct apenet_deduce *d)
{
	for (uint32_t k = 0; k < d->announce.n; k++) {
		uint32_t i = d->announce.v[k];
		struct dd_inc *I = &d->inc[i];
		I->amark = 0;
		if (I->state != I_CAND || !I->nfacts || I->rule == R_NONE)
			continue;
		if (!I->announced) {
			if (I->rule != R_LINKS_PENDING) /* an isolation is decided first */
				open_provisional(d, i);
		} else if (I->said_comp != I->comp || I->said_node != I->node || I->said_aux != I->aux ||
			   I->said_rule != I->rule) {
			blame_action(d, i);
		}
	}
	d->announce.n = 0;
}

/* ---- what it blames, in words ---- */

void apenet_deduce_blame(const struct apenet_deduce *d, const struct dd_inc *I, struct apenet_deduce_blame *b)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->component, sizeof(b->component), "%s", apenet_deduce_comp_name(d, I->comp));
	snprintf(b->rule, sizeof(b->rule), "%s", apenet_deduce_rule_name(I->rule));
	b->status = I->status ? I->status : 2;
	char node[40] = "";
	if (I->node != DD_NONE) {
		b->has_node = 1;
		coords_of(d, I->node, &b->x, &b->y, &b->z);
		snprintf(node, sizeof(node), "node %u,%u,%u", b->x, b->y, b->z);
		if (I->aux != DD_NOLINK && I->comp != C_SUPERVISOR)
			snprintf(b->link, sizeof(b->link), "%s", apenet_deduce_dir_name(I->aux));
	}
	if (I->comp == C_SUPERVISOR)
		snprintf(b->where, sizeof(b->where), "%s", I->aux ? "self" : "peer");
	if (I->comp == C_CABLE && I->node != DD_NONE) {
		uint8_t back;
		uint32_t m = apenet_deduce_far(d, I->node, I->aux, &back);
		if (m != DD_NONE) {
			b->has_far = 1;
			coords_of(d, m, &b->fx, &b->fy, &b->fz);
			snprintf(b->far_link, sizeof(b->far_link), "%s", apenet_deduce_dir_name(back));
		}
	}
	/* The rules told in words of their own: the node first when it is
	 * named, then the words, then the status when they end with it. */
	static const struct {
		const char *words;
		uint8_t named, status;
	} said[R_COUNT] = {
		[R_CARD_GONE] = { "'s card is gone: it reports CARD_GONE, and its neighbours lost their links to it", 1, 0 },
		[R_LINKS_LOST] = { " lost every link at the far ends while its host still reports: its card is gone or dead", 1, 0 },
		[R_POWER_OFF] = { " is off (power): it is silent, and its neighbours lost their links to it", 1, 0 },
		[R_LINKS_PENDING] = { " is off (power): it is silent, and its neighbours lost their links to it", 1, 0 },
		[R_DNP_HUNG] = { "'s DNP is hung: its watchdog says so, and its neighbours hear no diagnostic word from it", 1, 0 },
		[R_LDM_STALE] = { "'s DNP is probably hung: its neighbours hear no diagnostic word from it", 1, 0 },
		[R_DNP_CORE] = { "'s DNP core says it is ", 1, 1 },
		[R_LDM_INVALID] = { "'s DNP sends invalid diagnostic words", 1, 0 },
		[R_HOST_HUNG] = { "'s host is hung or dead: it is silent, and its DNP declared it dead", 1, 0 },
		[R_HOST_EXPIRED] = { "'s DNP declared its host dead while it still reports: its agent stopped or is late", 1, 0 },
		[R_SERVICE_CUT] = { " is cut off the service network: it is silent, and its neighbours hear its host alive", 1, 0 },
		[R_SUP_MISSING] = { "another supervisor is unreachable from part of the cluster: nodes report one supervisor missing", 0, 0 },
		[R_SUP_UNREACHABLE] = { "this supervisor is unreachable from part of the cluster: nodes went silent with nothing else wrong", 0, 0 },
		[R_AGENT_SILENT] = { " is silent and its neighbours see nothing wrong: its agent stopped, or its reports do not arrive", 1, 0 },
	};
	const char *st = b->status >= 2 ? "broken" : "sick";
	if (I->rule < R_COUNT && said[I->rule].words)
		snprintf(b->summary, sizeof(b->summary), "%s%s%s", said[I->rule].named ? node : "", said[I->rule].words,
			 said[I->rule].status ? st : "");
	else if (I->rule == R_LINK_BOTH || I->rule == R_LINK_ONE)
		snprintf(b->summary, sizeof(b->summary), "cable %u,%u,%u %s <-> %u,%u,%u %s %s (%s)", b->x, b->y, b->z,
			 b->link, b->fx, b->fy, b->fz, b->far_link, st,
			 I->rule == R_LINK_BOTH ? "both ends say so" : "seen at one end");
	else
		snprintf(b->summary, sizeof(b->summary), "%s%s%s: %s %s (%s)", node, b->link[0] ? " " : "", b->link,
			 b->component, st,
			 I->rule == R_SELF_NBR ? "the node and its neighbours say so"
			 : I->rule == R_SELF   ? "the node says so"
					       : "its neighbours say so");
}
