/*
 * The deduction (docs/supervisor.md, "Systemic deduction"): which incident
 * each piece of live evidence belongs to.
 *
 * First each node that changed gets a verdict of its own:
 *   - isolation, from the far ends of its cables: the node reports its card
 *     gone (card); at least two of its cables (all, when it has fewer) went
 *     dark at the far end (LINK_DOWN there, or the far end's link field
 *     broken in its neighbours' words) and it is silent (power off), or it
 *     spoke after (every cable dark: its card's links are lost; fewer: the
 *     cables themselves), or neither yet (pending: waits);
 *   - silence: no report from it for silent_ms, explained in that order by
 *     its isolation, its host declared dead, its service field broken, its
 *     DNP, an incident of its own already open; with nothing to explain it,
 *     by this supervisor being cut off when group_min nodes are silent so,
 *     else by its service field, else by its agent.
 * Then each fact of every node whose verdict (or a neighbour's) changed is
 * given its incident: a dark link belongs to the node that went, not to the
 * cable; a stale word to the node's DNP unless the node went; a service
 * field to the node's cut when it is silent, to the supervisor otherwise.
 */
#include <stdint.h>

#include "apenet/regs.h"
#include "deduce_int.h"

int apenet_deduce_node_silent(const struct apenet_deduce *d, uint32_t n)
{
	return (d->node[n].flags & N_SILENT) != 0;
}

/* Silent, or never heard once the engine has run for silent_ms. */
static int not_heard(const struct apenet_deduce *d, uint32_t n)
{
	const struct dd_node *x = &d->node[n];
	return (x->flags & N_SILENT) || (!x->heard_recv && d->started && d->now >= d->start + d->c.silent_ms);
}

struct sum {
	int card, host, svc, svcbroken, dnp;
	unsigned dnprule;
};

static unsigned dnp_rule(uint8_t kind)
{
	switch (kind) {
	case K_DNP:
		return R_DNP_HUNG;
	case K_STALE:
		return R_LDM_STALE;
	case K_NCORE:
		return R_DNP_CORE;
	default:
		return R_LDM_INVALID;
	}
}

static void summarize(const struct apenet_deduce *d, uint32_t n, struct sum *s)
{
	*s = (struct sum){ 0 };
	for (uint32_t f = d->node[n].facts; f != DD_NONE; f = d->fact[f].next) {
		const struct dd_fact *x = &d->fact[f];
		switch (x->kind) {
		case K_CARD:
			s->card = 1;
			break;
		case K_HOST:
		case K_NHOST:
			s->host = 1;
			break;
		case K_SVC:
		case K_NSVC:
			s->svc = 1;
			s->svcbroken |= x->status >= 2;
			break;
		case K_DNP:
		case K_OWNINV:
		case K_STALE:
		case K_NCORE:
		case K_LDMINV: {
			unsigned r = dnp_rule(x->kind);
			if (!s->dnp || apenet_deduce_rule_strength(r) > apenet_deduce_rule_strength(s->dnprule))
				s->dnprule = r;
			s->dnp = 1;
			break;
		}
		default:
			break;
		}
	}
}

/* The far end of the cable on link back of node m went dark: its own
 * finding, or its link field in its neighbours' words. */
static int far_dark(const struct apenet_deduce *d, uint32_t m, uint8_t back, int64_t *when)
{
	for (uint32_t f = d->node[m].facts; f != DD_NONE; f = d->fact[f].next) {
		const struct dd_fact *x = &d->fact[f];
		if ((x->kind == K_LINK || x->kind == K_NLINK) && x->link == back && (x->flags & F_DOWN)) {
			*when = x->first_ms;
			return 1;
		}
	}
	return 0;
}

static unsigned iso_of(const struct apenet_deduce *d, uint32_t n, const struct sum *s)
{
	if (s->card)
		return ISO_CARD;
	unsigned ncab = 0, nlost = 0;
	int64_t first = INT64_MAX;
	for (uint8_t dir = 0; dir < DD_NDIRS; dir++) {
		uint8_t back;
		uint32_t m = apenet_deduce_far(d, n, dir, &back);
		if (m == DD_NONE || m == n)
			continue; /* no cable, or one looping back to the node itself */
		ncab++;
		int64_t when;
		if (far_dark(d, m, back, &when)) {
			nlost++;
			if (when < first)
				first = when;
		}
	}
	unsigned need = ncab >= 2 ? 2 : ncab;
	if (!ncab || nlost < need)
		return ISO_NONE;
	if (not_heard(d, n))
		return ISO_POWER;
	const struct dd_node *x = &d->node[n];
	if (x->heard_recv && x->heard_time > first)
		return nlost == ncab ? ISO_LINKS : ISO_NONE; /* its host spoke after: not the node */
	return ISO_PENDING;
}

static int open_of(const struct apenet_deduce *d, uint16_t comp, uint32_t n)
{
	uint32_t i = apenet_deduce_inc_find(d, comp, n, DD_NOLINK);
	return i != DD_NONE && d->inc[i].state == I_OPEN;
}

static int unexplained(const struct apenet_deduce *d, uint32_t n, const struct sum *s)
{
	const struct dd_node *x = &d->node[n];
	return (x->flags & N_SILENT) && x->iso != ISO_CARD && x->iso != ISO_POWER && !s->host && !s->svcbroken &&
	       !s->dnp && !open_of(d, C_SERVICE, n) && !open_of(d, C_AGENT, n);
}

static void ulist_set(struct apenet_deduce *d, uint32_t n, int in)
{
	struct dd_node *x = &d->node[n];
	if (in && x->uidx == DD_NONE) {
		if (apenet_deduce_vec_push(&d->ulist, n)) {
			d->oom = 1;
			return;
		}
		x->uidx = d->ulist.n - 1;
	} else if (!in && x->uidx != DD_NONE) {
		uint32_t last = d->ulist.v[--d->ulist.n];
		if (last != n) {
			d->ulist.v[x->uidx] = last;
			d->node[last].uidx = x->uidx;
		}
		x->uidx = DD_NONE;
	}
}

struct want {
	uint16_t comp;
	uint32_t node;
	uint8_t aux;
	unsigned rule;
};

static struct want W(uint16_t comp, uint32_t node, uint8_t aux, unsigned rule)
{
	return (struct want){ comp, node, aux, rule };
}

static struct want iso_want(uint32_t n, unsigned iso)
{
	switch (iso) {
	case ISO_CARD:
		return W(C_CARD, n, DD_NOLINK, R_CARD_GONE);
	case ISO_POWER:
		return W(C_POWER, n, DD_NOLINK, R_POWER_OFF);
	case ISO_LINKS:
		return W(C_CARD, n, DD_NOLINK, R_LINKS_LOST);
	default:
		return W(C_POWER, n, DD_NOLINK, R_LINKS_PENDING);
	}
}

static struct want supervisor(int self)
{
	return W(C_SUPERVISOR, DD_NONE, (uint8_t)self, self ? R_SUP_UNREACHABLE : R_SUP_MISSING);
}

/* What explains node n's silence (and its service field while silent);
 * cur: the incident the fact is evidence of now. */
static struct want silent_want(const struct apenet_deduce *d, uint32_t n, const struct sum *s, uint32_t cur)
{
	unsigned iso = d->node[n].iso;
	if (iso == ISO_CARD || iso == ISO_POWER)
		return iso_want(n, iso);
	if (s->host)
		return W(C_HOST, n, DD_NOLINK, R_HOST_HUNG);
	if (s->svcbroken)
		return W(C_SERVICE, n, DD_NOLINK, R_SERVICE_CUT);
	if (s->dnp)
		return W(C_DNP, n, DD_NOLINK, s->dnprule);
	/* one of the silences this supervisor was cut off from stays so while
	 * the others are heard again (they come back one by one) */
	if (cur != DD_NONE && d->inc[cur].state == I_OPEN && d->inc[cur].comp == C_SUPERVISOR && d->inc[cur].aux == 1)
		return supervisor(1);
	if (open_of(d, C_SERVICE, n))
		return W(C_SERVICE, n, DD_NOLINK, R_SERVICE_CUT);
	if (open_of(d, C_AGENT, n))
		return W(C_AGENT, n, DD_NOLINK, R_AGENT_SILENT);
	if (d->ulist.n >= d->c.group_min)
		return supervisor(1);
	if (s->svc)
		return W(C_SERVICE, n, DD_NOLINK, R_SERVICE_CUT);
	return W(C_AGENT, n, DD_NOLINK, R_AGENT_SILENT);
}

static struct want fact_want(const struct apenet_deduce *d, uint32_t f, const struct sum *s)
{
	const struct dd_fact *x = &d->fact[f];
	uint32_t n = x->node;
	unsigned iso = d->node[n].iso;
	switch (x->kind) {
	case K_LINK:
	case K_NLINK: {
		uint8_t back = DD_NOLINK;
		uint32_t m = apenet_deduce_far(d, n, x->link, &back);
		if (m != DD_NONE && m != n && d->node[m].iso != ISO_NONE)
			return iso_want(m, d->node[m].iso); /* the far node went: its dark links are its ripple */
		if (iso != ISO_NONE)
			return iso_want(n, iso);
		if (m == DD_NONE)
			return W(C_LINK, n, x->link, (x->flags & F_OWN) ? R_SELF : R_NBR);
		/* a cable is named by its end with the smaller (node, link) */
		if ((uint64_t)n * 16 + x->link <= (uint64_t)m * 16 + back)
			return W(C_CABLE, n, x->link, R_LINK_ONE);
		return W(C_CABLE, m, back, R_LINK_ONE);
	}
	case K_CARD:
		return W(C_CARD, n, DD_NOLINK, R_CARD_GONE);
	case K_DNP:
	case K_OWNINV:
	case K_STALE:
	case K_NCORE:
	case K_LDMINV:
		if (iso != ISO_NONE)
			return iso_want(n, iso);
		return W(C_DNP, n, DD_NOLINK, dnp_rule(x->kind));
	case K_HOST:
	case K_NHOST:
		/* a card back on the bus: its DNP missed the host's beats while
		 * it was gone, and says so for a moment */
		if (iso == ISO_CARD || iso == ISO_LINKS)
			return iso_want(n, iso);
		return W(C_HOST, n, DD_NOLINK, not_heard(d, n) ? R_HOST_HUNG : R_HOST_EXPIRED);
	case K_SVC:
	case K_NSVC: {
		if (apenet_deduce_node_silent(d, n))
			return silent_want(d, n, s, x->inc);
		/* heard again: an open cut or supervisor incident keeps its
		 * evidence until the field is normal (the node catching up) */
		if (x->inc != DD_NONE && d->inc[x->inc].state == I_OPEN &&
		    (d->inc[x->inc].comp == C_SERVICE || d->inc[x->inc].comp == C_SUPERVISOR))
			return W(d->inc[x->inc].comp, d->inc[x->inc].node, d->inc[x->inc].aux, d->inc[x->inc].rule);
		uint32_t i = apenet_deduce_inc_find(d, C_SERVICE, n, DD_NOLINK);
		if (i != DD_NONE || x->status >= 2)
			return W(C_SERVICE, n, DD_NOLINK, R_SERVICE_CUT); /* a cut, still clearing, or history */
		return supervisor((x->flags & F_LATE) != 0);   /* late: it missed this supervisor */
	}
	case K_SILENT:
		return silent_want(d, n, s, x->inc);
	default:
		return W(x->comp, n, x->comp == C_MODULE || x->comp == C_LINK || x->comp == C_CABLING ? x->link : DD_NOLINK,
			 (x->flags & F_OWN) ? R_SELF : R_NBR);
	}
}

/* Verdicts of the dirty nodes; whose facts must be looked at again. */
static void verdicts(struct apenet_deduce *d)
{
	uint32_t before = d->ulist.n;
	for (uint32_t k = 0; k < d->dirty.n; k++) {
		uint32_t n = d->dirty.v[k];
		struct dd_node *x = &d->node[n];
		struct sum s;
		x->flags &= (uint8_t)~N_DIRTY;
		summarize(d, n, &s);
		unsigned iso = iso_of(d, n, &s);
		if (iso != x->iso) {
			x->iso = (uint8_t)iso;
			/* the neighbours' links toward it change hands */
			for (uint8_t dir = 0; dir < DD_NDIRS; dir++)
				apenet_deduce_mark_rekey(d, apenet_deduce_far(d, n, dir, NULL));
		}
		ulist_set(d, n, unexplained(d, n, &s));
		apenet_deduce_mark_rekey(d, n);
	}
	d->dirty.n = 0;
	/* crossing group_min changes what every unexplained silence means */
	if ((before >= d->c.group_min) != (d->ulist.n >= d->c.group_min))
		for (uint32_t k = 0; k < d->ulist.n; k++)
			apenet_deduce_mark_rekey(d, d->ulist.v[k]);
}

static void rekey(struct apenet_deduce *d)
{
	for (uint32_t k = 0; k < d->rekey.n; k++) {
		uint32_t n = d->rekey.v[k];
		struct sum s;
		d->node[n].flags &= (uint8_t)~N_REKEY;
		summarize(d, n, &s);
		for (uint32_t f = d->node[n].facts; f != DD_NONE;) {
			uint32_t next = d->fact[f].next;
			struct want w = fact_want(d, f, &s);
			apenet_deduce_assign(d, f, w.comp, w.node, w.aux, w.rule);
			f = next;
		}
	}
	d->rekey.n = 0;
}

void apenet_deduce_assign_pass(struct apenet_deduce *d)
{
	verdicts(d);
	rekey(d);
}

void apenet_deduce_pass(struct apenet_deduce *d)
{
	/* settling an incident may change a verdict (an incident of its own
	 * that closed): a few rounds, each bounded by what changed */
	for (int round = 0; round < 4; round++) {
		if (!d->dirty.n && !d->rekey.n && !d->touched.n)
			break;
		verdicts(d);
		rekey(d);
		apenet_deduce_reconcile(d);
	}
	/* what the candidates blame now, said once the rounds are done */
	apenet_deduce_announce(d);
}
