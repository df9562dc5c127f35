/*
 * The deduction engine's storage (lofamo/deduce_int.h): pools of facts,
 * incidents and buffered evidence (arrays that grow, with free lists, so an
 * index stays valid while a pointer does not across an allocation), the
 * incident hash by (component, node, link), the silence list (nodes in the
 * order they were last heard: the oldest is the next to fall silent, so a
 * tick looks at no node that is not due), and the action queue.
 */
#include <stdlib.h>
#include <string.h>

#include "deduce_int.h"

static int grow(void **p, uint32_t *cap, size_t size, uint32_t need)
{
	if (need <= *cap)
		return 0;
	uint32_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

int apenet_deduce_vec_push(struct dd_vec *v, uint32_t x)
{
	if (grow((void **)&v->v, &v->cap, sizeof(*v->v), v->n + 1))
		return -1;
	v->v[v->n++] = x;
	return 0;
}

/* ---- facts ---- */

uint32_t apenet_deduce_fact_new(struct apenet_deduce *d, uint32_t node)
{
	uint32_t f;
	if (d->ffree != DD_NONE) {
		f = d->ffree;
		d->ffree = d->fact[f].next;
	} else {
		if (grow((void **)&d->fact, &d->capfact, sizeof(*d->fact), d->nfact + 1)) {
			d->oom = 1;
			return DD_NONE;
		}
		f = d->nfact++;
	}
	struct dd_fact *x = &d->fact[f];
	memset(x, 0, sizeof(*x));
	x->node = node;
	x->inc = x->iprev = x->inext = DD_NONE;
	x->live = 1;
	x->next = d->node[node].facts;
	d->node[node].facts = f;
	d->live_facts++;
	return f;
}

void apenet_deduce_fact_free(struct apenet_deduce *d, uint32_t f)
{
	struct dd_fact *x = &d->fact[f];
	uint32_t *p = &d->node[x->node].facts;
	while (*p != DD_NONE && *p != f)
		p = &d->fact[*p].next;
	if (*p == f)
		*p = x->next;
	x->live = 0;
	x->next = d->ffree;
	d->ffree = f;
	d->live_facts--;
}

uint32_t apenet_deduce_fact_find(const struct apenet_deduce *d, uint32_t node, uint8_t kind, uint16_t code,
				 uint8_t link, uint32_t reporter, uint8_t via)
{
	for (uint32_t f = d->node[node].facts; f != DD_NONE; f = d->fact[f].next) {
		const struct dd_fact *x = &d->fact[f];
		if (x->kind == kind && x->code == code && x->link == link && x->reporter == reporter && x->via == via)
			return f;
	}
	return DD_NONE;
}

uint32_t apenet_deduce_fact_find_kind(const struct apenet_deduce *d, uint32_t node, uint8_t kind)
{
	for (uint32_t f = d->node[node].facts; f != DD_NONE; f = d->fact[f].next)
		if (d->fact[f].kind == kind)
			return f;
	return DD_NONE;
}

/* ---- incidents ---- */

uint32_t apenet_deduce_inc_new(struct apenet_deduce *d)
{
	uint32_t i, gen;
	if (d->ifree != DD_NONE) {
		i = d->ifree;
		d->ifree = d->inc[i].hnext;
		gen = d->inc[i].gen + 1;
	} else {
		if (grow((void **)&d->inc, &d->capinc, sizeof(*d->inc), d->ninc + 1)) {
			d->oom = 1;
			return DD_NONE;
		}
		i = d->ninc++;
		gen = 1;
	}
	struct dd_inc *I = &d->inc[i];
	memset(I, 0, sizeof(*I));
	I->gen = gen ? gen : 1;
	I->key = (uint64_t)I->gen << 32 | i;
	I->node = DD_NONE;
	I->aux = DD_NOLINK;
	I->fhead = I->hnext = I->lprev = I->lnext = I->moved_to = I->evhead = I->evtail = DD_NONE;
	return i;
}

void apenet_deduce_inc_free(struct apenet_deduce *d, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	for (uint32_t r = I->evhead; r != DD_NONE;) {
		uint32_t next = d->evr[r].next;
		apenet_deduce_evrec_free(d, r);
		r = next;
	}
	I->evhead = I->evtail = DD_NONE;
	I->state = I_FREE;
	I->hnext = d->ifree;
	d->ifree = i;
}

static uint32_t key_hash(uint16_t comp, uint32_t node, uint8_t aux)
{
	uint32_t h = (uint32_t)comp * 0x9e3779b1u ^ node * 0x85ebca6bu ^ (uint32_t)aux * 0xc2b2ae35u;
	return h ^ (h >> 15);
}

static int rehash(struct apenet_deduce *d)
{
	uint32_t n = d->nbucket ? d->nbucket * 2 : 1024;
	uint32_t *b = malloc((size_t)n * sizeof(*b));
	if (!b)
		return -1;
	memset(b, 0xff, (size_t)n * sizeof(*b));
	for (uint32_t i = 0; i < d->ninc; i++) {
		struct dd_inc *I = &d->inc[i];
		if (I->state == I_FREE || !I->hashed)
			continue; /* (the one being hashed is not yet) */
		uint32_t h = key_hash(I->comp, I->node, I->aux) & (n - 1);
		I->hnext = b[h];
		b[h] = i;
	}
	free(d->bucket);
	d->bucket = b;
	d->nbucket = n;
	return 0;
}

void apenet_deduce_inc_hash(struct apenet_deduce *d, uint32_t i)
{
	if (d->nhashed + 1 > d->nbucket && rehash(d) && !d->nbucket) {
		d->oom = 1;
		return;
	}
	struct dd_inc *I = &d->inc[i];
	if (I->hashed)
		return;
	uint32_t h = key_hash(I->comp, I->node, I->aux) & (d->nbucket - 1);
	I->hnext = d->bucket[h];
	d->bucket[h] = i;
	I->hashed = 1;
	d->nhashed++;
}

void apenet_deduce_inc_unhash(struct apenet_deduce *d, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	if (!d->nbucket || !I->hashed)
		return;
	I->hashed = 0;
	uint32_t *p = &d->bucket[key_hash(I->comp, I->node, I->aux) & (d->nbucket - 1)];
	while (*p != DD_NONE && *p != i)
		p = &d->inc[*p].hnext;
	if (*p == i) {
		*p = I->hnext;
		d->nhashed--;
	}
	I->hnext = DD_NONE;
}

uint32_t apenet_deduce_inc_find(const struct apenet_deduce *d, uint16_t comp, uint32_t node, uint8_t aux)
{
	if (!d->nbucket)
		return DD_NONE;
	for (uint32_t i = d->bucket[key_hash(comp, node, aux) & (d->nbucket - 1)]; i != DD_NONE; i = d->inc[i].hnext) {
		const struct dd_inc *I = &d->inc[i];
		if (I->comp == comp && I->node == node && I->aux == aux)
			return i;
	}
	return DD_NONE;
}

uint32_t apenet_deduce_inc_by_key(const struct apenet_deduce *d, uint64_t key)
{
	uint32_t i = (uint32_t)key;
	if (i >= d->ninc || d->inc[i].state == I_FREE || d->inc[i].key != key)
		return DD_NONE;
	return i;
}

/* Candidates and restored incidents on hold: doubly linked lists. */
void apenet_deduce_list_add(struct apenet_deduce *d, uint32_t *head, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	I->lprev = DD_NONE;
	I->lnext = *head;
	if (*head != DD_NONE)
		d->inc[*head].lprev = i;
	*head = i;
}

void apenet_deduce_list_del(struct apenet_deduce *d, uint32_t *head, uint32_t i)
{
	struct dd_inc *I = &d->inc[i];
	if (I->lprev != DD_NONE)
		d->inc[I->lprev].lnext = I->lnext;
	else if (*head == i)
		*head = I->lnext;
	if (I->lnext != DD_NONE)
		d->inc[I->lnext].lprev = I->lprev;
	I->lprev = I->lnext = DD_NONE;
}

void apenet_deduce_inc_link_fact(struct apenet_deduce *d, uint32_t i, uint32_t f)
{
	struct dd_inc *I = &d->inc[i];
	struct dd_fact *x = &d->fact[f];
	x->inc = i;
	x->iprev = DD_NONE;
	x->inext = I->fhead;
	if (I->fhead != DD_NONE)
		d->fact[I->fhead].iprev = f;
	I->fhead = f;
	I->nfacts++;
}

void apenet_deduce_inc_unlink_fact(struct apenet_deduce *d, uint32_t i, uint32_t f)
{
	struct dd_inc *I = &d->inc[i];
	struct dd_fact *x = &d->fact[f];
	if (x->iprev != DD_NONE)
		d->fact[x->iprev].inext = x->inext;
	else
		I->fhead = x->inext;
	if (x->inext != DD_NONE)
		d->fact[x->inext].iprev = x->iprev;
	x->iprev = x->inext = DD_NONE;
	x->inc = DD_NONE;
	I->nfacts--;
}

/* ---- buffered evidence ---- */

uint32_t apenet_deduce_evrec_new(struct apenet_deduce *d)
{
	uint32_t r;
	if (d->efree != DD_NONE) {
		r = d->efree;
		d->efree = d->evr[r].next;
	} else {
		if (grow((void **)&d->evr, &d->capevr, sizeof(*d->evr), d->nevr + 1)) {
			d->oom = 1;
			return DD_NONE;
		}
		r = d->nevr++;
	}
	d->evr[r].next = DD_NONE;
	d->evr[r].origin = DD_NONE;
	return r;
}

void apenet_deduce_evrec_free(struct apenet_deduce *d, uint32_t r)
{
	d->evr[r].next = d->efree;
	d->efree = r;
}

/* ---- silence: nodes by the time they were last heard ---- */

void apenet_deduce_lru_del(struct apenet_deduce *d, uint32_t i)
{
	struct dd_node *n = &d->node[i];
	if (!(n->flags & N_LRU))
		return;
	if (n->lru_prev != DD_NONE)
		d->node[n->lru_prev].lru_next = n->lru_next;
	else
		d->lru_head = n->lru_next;
	if (n->lru_next != DD_NONE)
		d->node[n->lru_next].lru_prev = n->lru_prev;
	else
		d->lru_tail = n->lru_prev;
	n->lru_prev = n->lru_next = DD_NONE;
	n->flags &= (uint8_t)~N_LRU;
}

/* Heard: into the list by its arrival time.  Arrivals come in order (one
 * receiver loop), so that is the young end and costs nothing; seeds from
 * the database (apenet_deduce_heard) cost a walk unless they come oldest
 * first.  The head is always the next to fall silent. */
void apenet_deduce_lru_touch(struct apenet_deduce *d, uint32_t i)
{
	struct dd_node *n = &d->node[i];
	if (n->flags & N_LRU) {
		if (d->lru_tail == i)
			return;
		apenet_deduce_lru_del(d, i);
	}
	uint32_t after = d->lru_tail;
	while (after != DD_NONE && d->node[after].heard_recv > n->heard_recv)
		after = d->node[after].lru_prev;
	n->lru_prev = after;
	n->lru_next = after != DD_NONE ? d->node[after].lru_next : d->lru_head;
	if (after != DD_NONE)
		d->node[after].lru_next = i;
	else
		d->lru_head = i;
	if (n->lru_next != DD_NONE)
		d->node[n->lru_next].lru_prev = i;
	else
		d->lru_tail = i;
	n->flags |= N_LRU;
}

/* ---- work lists ---- */

void apenet_deduce_mark_dirty(struct apenet_deduce *d, uint32_t node)
{
	if (node == DD_NONE || (d->node[node].flags & N_DIRTY))
		return;
	if (apenet_deduce_vec_push(&d->dirty, node)) {
		d->oom = 1;
		return;
	}
	d->node[node].flags |= N_DIRTY;
}

void apenet_deduce_mark_rekey(struct apenet_deduce *d, uint32_t node)
{
	if (node == DD_NONE || (d->node[node].flags & N_REKEY))
		return;
	if (apenet_deduce_vec_push(&d->rekey, node)) {
		d->oom = 1;
		return;
	}
	d->node[node].flags |= N_REKEY;
}

void apenet_deduce_touch(struct apenet_deduce *d, uint32_t inc)
{
	if (inc == DD_NONE || d->inc[inc].mark)
		return;
	if (apenet_deduce_vec_push(&d->touched, inc)) {
		d->oom = 1;
		return;
	}
	d->inc[inc].mark = 1;
}

/* ---- actions ---- */

struct apenet_deduce_action *apenet_deduce_action(struct apenet_deduce *d, int kind, uint32_t inc)
{
	if (d->qlen == d->qcap) {
		size_t cap = d->qcap ? d->qcap * 2 : 64;
		struct apenet_deduce_action *q = malloc(cap * sizeof(*q));
		if (!q) {
			d->oom = 1;
			return NULL;
		}
		for (size_t k = 0; k < d->qlen; k++)
			q[k] = d->q[(d->qhead + k) % d->qcap];
		free(d->q);
		d->q = q;
		d->qhead = 0;
		d->qcap = cap;
	}
	struct apenet_deduce_action *a = &d->q[(d->qhead + d->qlen++) % d->qcap];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->key = d->inc[inc].key;
	a->ref = d->inc[inc].ref;
	a->time_ms = d->now;
	return a;
}
