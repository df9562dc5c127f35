/*
 * Hysteresis between samples (apenet_latch in apenet/verdict.h): a judge
 * that runs every 100 ms must not raise and clear an alarm on every other
 * sample.  Entries are few (the findings of one board), so a linear table.
 */
#include <stdlib.h>
#include <string.h>

#include "apenet/verdict.h"

void apenet_latch_init(struct apenet_latch *l, unsigned raise_after, unsigned clear_after)
{
	memset(l, 0, sizeof(*l));
	l->raise_after = raise_after ? raise_after : 1;
	l->clear_after = clear_after ? clear_after : 1;
}

void apenet_latch_free(struct apenet_latch *l)
{
	free(l->e);
	memset(l, 0, sizeof(*l));
}

static int same(const struct apenet_finding *a, const struct apenet_finding *b)
{
	return a->subject == b->subject && a->link == b->link && a->lane == b->lane && !strcmp(a->code, b->code) &&
	       !strcmp(a->where, b->where);
}

static struct apenet_latch_entry *lookup(struct apenet_latch *l, const struct apenet_finding *f)
{
	for (size_t i = 0; i < l->n; i++)
		if (same(&l->e[i].f, f))
			return &l->e[i];
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct apenet_latch_entry *e = realloc(l->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		l->e = e;
		l->cap = cap;
	}
	struct apenet_latch_entry *e = &l->e[l->n++];
	memset(e, 0, sizeof(*e));
	e->f = *f;
	return e;
}

unsigned apenet_latch_step(struct apenet_latch *l, const struct apenet_findings *now, struct apenet_findings *raised)
{
	unsigned changes = 0;
	for (size_t i = 0; i < l->n; i++)
		l->e[i].hit = 0;
	for (size_t i = 0; i < now->n; i++) {
		struct apenet_latch_entry *e = lookup(l, &now->f[i]);
		if (!e) {
			/* no memory for the table: pass the finding through unlatched */
			*apenet_finding_add(raised, now->f[i].sev, now->f[i].subject, now->f[i].link, now->f[i].lane,
					    now->f[i].where, now->f[i].code) = now->f[i];
			continue;
		}
		if (!e->hit) {
			e->hit = 1;
			e->seen++;
		}
		e->clean = 0;
		e->f = now->f[i];
		if (!e->raised && e->seen >= l->raise_after) {
			e->raised = 1;
			changes++;
		}
	}
	size_t keep = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct apenet_latch_entry *e = &l->e[i];
		if (!e->hit) {
			e->seen = 0;
			if (++e->clean >= l->clear_after || !e->raised) {
				changes += (unsigned)e->raised;
				continue; /* cleared: dropped from the table */
			}
		}
		l->e[keep++] = *e;
	}
	l->n = keep;
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].raised)
			*apenet_finding_add(raised, l->e[i].f.sev, l->e[i].f.subject, l->e[i].f.link, l->e[i].f.lane,
					    l->e[i].f.where, l->e[i].f.code) = l->e[i].f;
	return changes;
}
