/*
 * The supervisor's systemic deduction (lofamo/deduce*.c) from sequences of
 * reports built as the agent builds them (agent/report.c: codes, subjects,
 * where, paths, via, boot ids "x,y,z#n"), on a 4x4x1 torus and a 4x2x1 one
 * (a 2-wide dimension: both of a node's Y links go to the same neighbour).
 * Every healthy node heartbeats once a second; a node that cannot reach
 * the supervisor is "muted".  Each case asserts the actions: exactly one
 * incident blaming the right component on the right node with the rule,
 * its evidence, its close after the fault clears, and nothing else; with
 * the evidence in other orders, from one path only, duplicated, late from a
 * spool, and across a supervisor restart.  Every case runs twice: on an
 * engine that says nothing until an incident settles, and on a provisional
 * one seen as whatever acts on incidents sees it (settled incidents only),
 * which must be the same story; then the provisional life itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/deduce.h"
#include "apenet/notify.h"
#include "apenet/regs.h"

#define MAXN 64
#define MAXA 8192

struct h {
	struct apenet_deduce *d;
	struct apenet_deduce_config c;
	int64_t now;
	int64_t next_hb;
	uint64_t seq;
	unsigned boot[MAXN];       /* the agent's run */
	unsigned char mute[MAXN];  /* its reports do not reach this supervisor */
	struct apenet_deduce_action *a;
	int na;
	int64_t ref;               /* the database's ids */
	/* A provisional engine (the second run of every case): a is the
	 * settled view, what acts on an incident sees (an incident appears
	 * when it settles, its provisional life is not in it), raw every
	 * action; vkey/vref: the view's ids of the incidents settled. */
	struct apenet_deduce_action *raw;
	int nraw;
	uint64_t vkey[256];
	int64_t vref[256];
	int nv;
};

static int provisional; /* the engine of the run */

static unsigned idx(const struct h *h, unsigned x, unsigned y, unsigned z)
{
	return x + h->c.dims[0] * (y + h->c.dims[1] * z);
}

static unsigned nnodes(const struct h *h)
{
	return h->c.dims[0] * h->c.dims[1] * h->c.dims[2];
}

static int64_t view_ref(const struct h *h, uint64_t key)
{
	for (int i = 0; i < h->nv; i++)
		if (h->vkey[i] == key)
			return h->vref[i];
	return 0;
}

/* A provisional engine's action as what acts on incidents sees it: 1 when
 * it is in the view (*a rewritten), 0 when it is not.  The actions of a
 * provisional incident: only its CLOSE can come before its SETTLE, and it
 * is not in the view; after, it is settled. */
static int settled_view(struct h *h, struct apenet_deduce_action *a)
{
	if (a->provisional) {
		assert_true(a->kind == APENET_DEDUCE_OPEN || a->kind == APENET_DEDUCE_REBLAME ||
			    a->kind == APENET_DEDUCE_CLOSE);
		assert_int_equal(view_ref(h, a->key), 0);
		return 0;
	}
	if (a->kind == APENET_DEDUCE_SETTLE || a->kind == APENET_DEDUCE_OPEN) {
		assert_int_equal(view_ref(h, a->key), 0);
		assert_true(h->nv < 256);
		h->vkey[h->nv] = a->key;
		h->vref[h->nv++] = ++h->ref + 1000;
		a->kind = APENET_DEDUCE_OPEN;
		a->time_ms = a->ev.time_ms;
	}
	/* nothing of an incident not settled (restored ones have the
	 * database's ids, below 5000) */
	int64_t v = view_ref(h, a->key);
	assert_true(v || (a->ref > 0 && a->ref < 5000));
	a->ref = v ? v : a->ref;
	if (a->merged_into) {
		v = view_ref(h, a->merged_into);
		assert_true(v || (a->merged_into_ref > 0 && a->merged_into_ref < 5000));
		a->merged_into_ref = v ? v : a->merged_into_ref;
	}
	return 1;
}

static void drain(struct h *h)
{
	struct apenet_deduce_action a;
	while (h->na < MAXA && h->nraw < MAXA && apenet_deduce_next_action(h->d, &a)) {
		h->raw[h->nraw++] = a;
		if (a.kind == APENET_DEDUCE_OPEN) {
			assert_int_equal(a.ref, 0);
			apenet_deduce_set_ref(h->d, a.key, provisional ? 5000 + h->nraw : ++h->ref + 1000);
		}
		if (!provisional)
			h->a[h->na++] = a;
		else if (settled_view(h, &a))
			h->a[h->na++] = a;
	}
}

static struct h *start(unsigned dx, unsigned dy, unsigned dz)
{
	struct h *h = calloc(1, sizeof(*h));
	struct apenet_err e = { 0 };
	assert_non_null(h);
	h->a = calloc(MAXA, sizeof(*h->a));
	h->raw = calloc(MAXA, sizeof(*h->raw));
	assert_non_null(h->a);
	assert_non_null(h->raw);
	apenet_deduce_config_defaults(&h->c);
	h->c.provisional = provisional;
	h->c.dims[0] = dx;
	h->c.dims[1] = dy;
	h->c.dims[2] = dz;
	assert_int_equal(apenet_deduce_open(&h->c, &h->d, &e), 0);
	h->now = 1700000000000;
	h->next_hb = h->now;
	for (unsigned i = 0; i < MAXN; i++)
		h->boot[i] = 1;
	return h;
}

static void stop(struct h *h)
{
	apenet_deduce_close(h->d);
	free(h->a);
	free(h->raw);
	free(h);
}

static void boot_id(const struct h *h, unsigned x, unsigned y, unsigned z, char *buf, size_t n)
{
	snprintf(buf, n, "%u,%u,%u#%u", x, y, z, h->boot[idx(h, x, y, z)]);
}

static void send(struct h *h, struct apenet_report *r, unsigned rx, unsigned ry, unsigned rz)
{
	if (h->mute[idx(h, rx, ry, rz)])
		return;
	apenet_deduce_report(h->d, r, h->now);
	drain(h);
}

static void heartbeat(struct h *h, unsigned x, unsigned y, unsigned z)
{
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEARTBEAT);
	r.x = x, r.y = y, r.z = z;
	boot_id(h, x, y, z, r.boot, sizeof(r.boot));
	r.seq = ++h->seq;
	r.time_ms = h->now;
	r.ldm = 0x80000000u;
	send(h, &r, x, y, z);
}

/* Time passes in 100 ms ticks; every node not muted heartbeats each second. */
static void run(struct h *h, int64_t ms)
{
	for (int64_t t = 0; t < ms; t += 100) {
		h->now += 100;
		if (h->now >= h->next_hb) {
			for (unsigned i = 0; i < nnodes(h); i++)
				heartbeat(h, i % h->c.dims[0], i / h->c.dims[0] % h->c.dims[1],
					  i / h->c.dims[0] / h->c.dims[1]);
			h->next_hb += 1000;
		}
		apenet_deduce_tick(h->d, h->now);
		drain(h);
	}
}

/* The node's own report (path self or watchdog), seen at time t. */
static void own_at(struct h *h, int64_t t, unsigned x, unsigned y, unsigned z, int subject, const char *where,
		   const char *code, int old, int now, int path, const char *evidence)
{
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	r.x = x, r.y = y, r.z = z;
	boot_id(h, x, y, z, r.boot, sizeof(r.boot));
	r.seq = ++h->seq;
	r.time_ms = t;
	r.subject = subject;
	snprintf(r.where, sizeof(r.where), "%s", where);
	snprintf(r.code, sizeof(r.code), "%s", code);
	r.old_status = old;
	r.new_status = now;
	r.path = path;
	snprintf(r.evidence, sizeof(r.evidence), "%s", evidence);
	send(h, &r, x, y, z);
}

static void own(struct h *h, unsigned x, unsigned y, unsigned z, int subject, const char *where, const char *code,
		int old, int now, int path, const char *evidence)
{
	own_at(h, h->now, x, y, z, subject, where, code, old, now, path, evidence);
}

static const char *const dirs[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };

/* A neighbour's report about node (x,y,z) (path neighbour-ldm), from the
 * node its link `dir` faces, through that neighbour's link facing back. */
static void nbr_at(struct h *h, int64_t t, unsigned x, unsigned y, unsigned z, unsigned dir, int subject,
		   const char *where, const char *code, int old, int now)
{
	unsigned me[3] = { x, y, z }, far[3];
	enum apenet_dir back;
	int dim, wrap;
	assert_int_equal(apenet_torus_neighbour(h->c.dims, me, (enum apenet_dir)dir, far, &back, &dim, &wrap), 0);
	if (far[0] == x && far[1] == y && far[2] == z)
		return; /* a cable looping back: no neighbour */
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	r.x = x, r.y = y, r.z = z;
	boot_id(h, far[0], far[1], far[2], r.boot, sizeof(r.boot));
	r.seq = ++h->seq;
	r.time_ms = t;
	r.subject = subject;
	snprintf(r.where, sizeof(r.where), "%s", where);
	snprintf(r.code, sizeof(r.code), "%s", code);
	r.old_status = old;
	r.new_status = now;
	r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	snprintf(r.via, sizeof(r.via), "%s", dirs[back]);
	snprintf(r.evidence, sizeof(r.evidence), "LINK_LDM_RX 0x80000000 on %s, 0 ms old", dirs[back]);
	send(h, &r, far[0], far[1], far[2]);
}

static void nbr(struct h *h, unsigned x, unsigned y, unsigned z, unsigned dir, int subject, const char *where,
		const char *code, int old, int now)
{
	nbr_at(h, h->now, x, y, z, dir, subject, where, code, old, now);
}

/* Every neighbour of (x,y,z) reports the same about it. */
static void nbr_all(struct h *h, unsigned x, unsigned y, unsigned z, int subject, const char *where, const char *code,
		    int old, int now)
{
	for (unsigned dir = 0; dir < 6; dir++)
		nbr(h, x, y, z, dir, subject, where, code, old, now);
}

/* Node (x,y,z)'s link `dir` changes at its far end: the far node reports
 * its own link down (self), and the far node's other neighbours report its
 * link field (NEIGHBOUR_LINK) through their links. */
static void far_link(struct h *h, unsigned x, unsigned y, unsigned z, unsigned dir, int old, int now)
{
	unsigned me[3] = { x, y, z }, far[3];
	enum apenet_dir back;
	int dim, wrap;
	assert_int_equal(apenet_torus_neighbour(h->c.dims, me, (enum apenet_dir)dir, far, &back, &dim, &wrap), 0);
	if (far[0] == x && far[1] == y && far[2] == z)
		return;
	own(h, far[0], far[1], far[2], APENET_REPORT_SUBJ_LINK, dirs[back], "LINK_DOWN", old, now,
	    APENET_REPORT_PATH_SELF, "LINK_STATE DOWN, LANES_UP 0");
	for (unsigned d2 = 0; d2 < 6; d2++) {
		unsigned f2[3];
		enum apenet_dir b2;
		apenet_torus_neighbour(h->c.dims, far, (enum apenet_dir)d2, f2, &b2, &dim, &wrap);
		if (d2 == back || (f2[0] == x && f2[1] == y && f2[2] == z))
			continue; /* the dark link itself carries nothing */
		nbr(h, far[0], far[1], far[2], d2, APENET_REPORT_SUBJ_LINK, dirs[back], "NEIGHBOUR_LINK", old, now);
	}
}

/* Every link toward (x,y,z), as its neighbours see it. */
static void all_far_links(struct h *h, unsigned x, unsigned y, unsigned z, int old, int now)
{
	for (unsigned dir = 0; dir < 6; dir++)
		far_link(h, x, y, z, dir, old, now);
}

/* ---- what the actions say ---- */

static void dump(const struct h *h)
{
	for (int i = 0; i < h->na; i++) {
		const struct apenet_deduce_action *a = &h->a[i];
		fprintf(stderr, "%3d %-8s key %llx ref %lld t %lld %s %s %u,%u,%u %s | ev %s %s %s first %d state %d into %llx\n", i,
			apenet_deduce_kind_name(a->kind), (unsigned long long)a->key, (long long)a->ref,
			(long long)(a->time_ms % 100000), a->blame.component, a->blame.rule, a->blame.x, a->blame.y,
			a->blame.z, a->blame.link, a->ev.reporter, a->ev.code, a->ev.where, a->first, a->state,
			(unsigned long long)a->merged_into);
	}
}

static int count(const struct h *h, int kind)
{
	int n = 0;
	for (int i = 0; i < h->na; i++)
		n += h->a[i].kind == kind;
	return n;
}

static const struct apenet_deduce_action *nth(const struct h *h, int kind, int k)
{
	for (int i = 0; i < h->na; i++)
		if (h->a[i].kind == kind && k-- == 0)
			return &h->a[i];
	return NULL;
}

static int evidence_of(const struct h *h, uint64_t key)
{
	int n = 0;
	for (int i = 0; i < h->na; i++)
		n += h->a[i].kind == APENET_DEDUCE_EVIDENCE && h->a[i].key == key;
	return n;
}

/* The incidents as the database holds them after every action: blame of
 * the latest OPEN/REBLAME, open or closed/merged. */
struct view {
	uint64_t key;
	struct apenet_deduce_blame b;
	int state; /* 0 open, else the close state */
	uint64_t merged_into;
};

static int replay(const struct h *h, struct view *v, int max)
{
	int n = 0;
	for (int i = 0; i < h->na; i++) {
		const struct apenet_deduce_action *a = &h->a[i];
		int k;
		for (k = 0; k < n && v[k].key != a->key; k++)
			;
		if (a->kind == APENET_DEDUCE_OPEN) {
			assert_int_equal(k, n); /* a key opens once */
			assert_true(n < max);
			v[n].key = a->key;
			v[n].b = a->blame;
			v[n].state = 0;
			n++;
			continue;
		}
		assert_true(k < n); /* nothing about an incident that never opened */
		if (a->kind == APENET_DEDUCE_REBLAME)
			v[k].b = a->blame;
		else if (a->kind == APENET_DEDUCE_CLOSE) {
			assert_int_equal(v[k].state, 0);
			v[k].state = a->state;
			v[k].merged_into = a->merged_into;
		} else {
			assert_int_equal(v[k].state, 0); /* evidence of an open incident */
		}
	}
	return n;
}

/* Exactly one incident that was not merged away, blaming comp with rule on
 * node (x,y,z), in state `state` (0 open): its key. */
static uint64_t the_one(const struct h *h, const char *comp, const char *rule, int x, int y, int z, int state)
{
	struct view v[64];
	int n = replay(h, v, 64), found = -1;
	for (int k = 0; k < n; k++) {
		if (v[k].state == APENET_DEDUCE_MERGED)
			continue;
		if (found >= 0)
			fail_msg("a second incident: %s %s at %u,%u,%u", v[k].b.component, v[k].b.rule, v[k].b.x, v[k].b.y,
				 v[k].b.z);
		found = k;
	}
	assert_true(found >= 0);
	assert_string_equal(v[found].b.component, comp);
	if (rule)
		assert_string_equal(v[found].b.rule, rule);
	if (x >= 0) {
		assert_int_equal(v[found].b.has_node, 1);
		assert_int_equal(v[found].b.x, x);
		assert_int_equal(v[found].b.y, y);
		assert_int_equal(v[found].b.z, z);
	}
	assert_int_equal(v[found].state, state);
	return v[found].key;
}

static void assert_quiet(const struct h *h)
{
	if (h->na)
		fail_msg("%d actions, the first %s %s %s", h->na, apenet_deduce_kind_name(h->a[0].kind),
			 h->a[0].blame.component, h->a[0].blame.rule);
}

static struct apenet_deduce_stats stats(const struct h *h)
{
	struct apenet_deduce_stats s;
	apenet_deduce_stats(h->d, &s);
	return s;
}

/* ---- no fault ---- */

static void test_heartbeats_only(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 60000);
	assert_quiet(h);
	struct apenet_deduce_stats s = stats(h);
	assert_int_equal(s.heard, 16);
	assert_int_equal(s.silent, 0);
	assert_int_equal(s.facts, 0);
	assert_true(s.heartbeats >= 16 * 59);
	stop(h);
}

/* ---- card gone ---- */

static void card_gone(struct h *h, unsigned x, unsigned y, unsigned z, int now)
{
	own(h, x, y, z, APENET_REPORT_SUBJ_BOARD, "card", "CARD_GONE", now ? 0 : 2, now, APENET_REPORT_PATH_WATCHDOG,
	    now ? "BAR0 reads 0xffffffff" : "the card responds again");
}

static void test_card_gone(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	card_gone(h, 1, 1, 0, 2);
	all_far_links(h, 1, 1, 0, 0, 2);
	run(h, 5000);
	uint64_t key = the_one(h, "card", "card-gone", 1, 1, 0, 0);
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 1);
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	/* the first fault is the node's own report, the rest is evidence:
	 * 4 LINK_DOWN and 4 x 3 NEIGHBOUR_LINK */
	assert_string_equal(o->ev.code, "CARD_GONE");
	assert_string_equal(o->ev.reporter, "1,1,0#1");
	assert_string_equal(o->ev.text, "BAR0 reads 0xffffffff");
	assert_string_equal(o->blame.summary,
			    "node 1,1,0's card is gone: it reports CARD_GONE, and its neighbours lost their links to it");
	assert_int_equal(evidence_of(h, key), 4 + 4 * 3);
	assert_int_equal(count(h, APENET_DEDUCE_REBLAME), 0);
	/* the card comes back: every link up again, the incident closes */
	card_gone(h, 1, 1, 0, 0);
	all_far_links(h, 1, 1, 0, 2, 0);
	run(h, 3000);
	the_one(h, "card", "card-gone", 1, 1, 0, APENET_DEDUCE_CLOSED);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_int_equal(c->key, key);
	assert_int_equal(c->ref, 1001);
	assert_int_equal(c->nevidence, 1 + 16 + 1 + 16);
	assert_int_equal(stats(h).facts, 0);
	stop(h);
}

/* The neighbours' reports first; the node's own CARD_GONE (and its
 * heartbeats) 6 s late, from its spool: first it looks powered off. */
static void test_card_gone_own_report_late(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	int64_t t0 = h->now;
	h->mute[idx(h, 1, 1, 0)] = 1;
	all_far_links(h, 1, 1, 0, 0, 2);
	run(h, 6000);
	the_one(h, "node-power", "power-off", 1, 1, 0, 0);
	h->mute[idx(h, 1, 1, 0)] = 0;
	own_at(h, t0, 1, 1, 0, APENET_REPORT_SUBJ_BOARD, "card", "CARD_GONE", 0, 2, APENET_REPORT_PATH_WATCHDOG,
	       "BAR0 reads 0xffffffff");
	run(h, 3000);
	/* the power-off is merged into the card, which opens at once */
	uint64_t key = the_one(h, "card", "card-gone", 1, 1, 0, 0);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_non_null(c);
	assert_int_equal(c->state, APENET_DEDUCE_MERGED);
	assert_int_equal(c->merged_into, key);
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 2);
	assert_int_equal(nth(h, APENET_DEDUCE_OPEN, 1)->ev.time_ms, t0);
	card_gone(h, 1, 1, 0, 0);
	all_far_links(h, 1, 1, 0, 2, 0);
	run(h, 2000);
	the_one(h, "card", "card-gone", 1, 1, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* One neighbour's LINK_DOWN alone for 2 s opens a provisional cable
 * incident; then the rest arrives, with the card-gone: the cable is
 * merged into the card. */
static void test_cable_merged_into_card(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	far_link(h, 1, 1, 0, APENET_DIR_XM, 0, 2); /* 0,1,0's X+ */
	run(h, 2000);
	uint64_t cable = the_one(h, "cable", "link-one-end", 0, 1, 0, 0); /* 0,1,0's end, and its field */
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_string_equal(o->blame.link, "X+");
	assert_int_equal(o->blame.has_far, 1);
	assert_int_equal(o->blame.fx, 1);
	assert_string_equal(o->blame.far_link, "X-");
	card_gone(h, 1, 1, 0, 2);
	for (unsigned dir = 0; dir < 6; dir++)
		if (dir != APENET_DIR_XM)
			far_link(h, 1, 1, 0, dir, 0, 2);
	run(h, 3000);
	uint64_t card = the_one(h, "card", "card-gone", 1, 1, 0, 0);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_int_equal(c->key, cable);
	assert_int_equal(c->state, APENET_DEDUCE_MERGED);
	assert_int_equal(c->merged_into, card);
	assert_int_equal(c->merged_into_ref, 1002);
	assert_int_equal(c->ref, 1001);
	/* the card's evidence includes the cable it absorbed, with its earlier
	 * first fault */
	int first = 0;
	for (int i = 0; i < h->na; i++)
		first += h->a[i].kind == APENET_DEDUCE_EVIDENCE && h->a[i].key == card && h->a[i].first;
	if (getenv("DUMP"))
		dump(h);
	assert_int_equal(first, 1);
	card_gone(h, 1, 1, 0, 0);
	all_far_links(h, 1, 1, 0, 2, 0);
	run(h, 2000);
	the_one(h, "card", "card-gone", 1, 1, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* 4x2x1: Y+ and Y- of 1,0,0 both go to 1,1,0 (two cables). */
static void test_card_gone_two_wide(void **state)
{
	(void)state;
	struct h *h = start(4, 2, 1);
	run(h, 2000);
	card_gone(h, 1, 0, 0, 2);
	all_far_links(h, 1, 0, 0, 0, 2);
	run(h, 4000);
	uint64_t key = the_one(h, "card", "card-gone", 1, 0, 0, 0);
	/* 4 LINK_DOWN (two from 1,1,0); NEIGHBOUR_LINK: 2,0,0 and 0,0,0 are
	 * heard by three other neighbours each (X, and 2,1,0 or 0,1,0 through
	 * both Y links), 1,1,0 by its X neighbours, once per dark Y link */
	assert_int_equal(evidence_of(h, key), 4 + 3 + 3 + 2 + 2);
	card_gone(h, 1, 0, 0, 0);
	all_far_links(h, 1, 0, 0, 2, 0);
	run(h, 2000);
	the_one(h, "card", "card-gone", 1, 0, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* ---- power off ---- */

static void test_power_off(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	h->mute[idx(h, 2, 1, 0)] = 1;
	run(h, 100);
	all_far_links(h, 2, 1, 0, 0, 2);
	run(h, 2000);
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 0); /* not silent yet: undecided */
	run(h, 4000);
	uint64_t key = the_one(h, "node-power", "power-off", 2, 1, 0, 0);
	assert_string_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.summary,
			    "node 2,1,0 is off (power): it is silent, and its neighbours lost their links to it");
	assert_int_equal(count(h, APENET_DEDUCE_REBLAME), 0);
	/* 16 link reports and the silence */
	assert_int_equal(evidence_of(h, key), 16);
	/* power back: it heartbeats, the links come up */
	h->mute[idx(h, 2, 1, 0)] = 0;
	h->boot[idx(h, 2, 1, 0)]++;
	run(h, 1000);
	the_one(h, "node-power", NULL, 2, 1, 0, 0);
	all_far_links(h, 2, 1, 0, 2, 0);
	run(h, 1000);
	the_one(h, "node-power", "power-off", 2, 1, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* The neighbours' reports reach this supervisor only after the node went
 * silent (their own path was slow): the same end. */
static void test_power_off_links_late(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	int64_t t0 = h->now;
	h->mute[idx(h, 3, 3, 0)] = 1;
	run(h, 4000); /* silent: waiting for an explanation */
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 0);
	for (unsigned dir = 0; dir < 6; dir++) {
		unsigned me[3] = { 3, 3, 0 }, far[3];
		enum apenet_dir back;
		int dim, wrap;
		apenet_torus_neighbour(h->c.dims, me, (enum apenet_dir)dir, far, &back, &dim, &wrap);
		if (far[2] == 0 && !(far[0] == 3 && far[1] == 3))
			own_at(h, t0 + 100, far[0], far[1], far[2], APENET_REPORT_SUBJ_LINK, dirs[back], "LINK_DOWN", 0, 2,
			       APENET_REPORT_PATH_SELF, "LINK_STATE DOWN");
	}
	run(h, 2000);
	the_one(h, "node-power", "power-off", 3, 3, 0, 0);
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 1);
	assert_int_equal(nth(h, APENET_DEDUCE_OPEN, 0)->time_ms, t0 + 100); /* the first fault: a dark link */
	stop(h);
}

/* The neighbours' words that its host is dead arrive after the silence was
 * already an agent incident: the host explains more; the agent incident is
 * merged into it. */
static void test_host_hung_words_late(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	int64_t t0 = h->now;
	h->mute[idx(h, 0, 1, 0)] = 1;
	run(h, 10000);
	uint64_t agent = the_one(h, "agent", "agent-silent", 0, 1, 0, 0);
	for (unsigned dir = 0; dir < 6; dir++)
		nbr_at(h, t0 + 400, 0, 1, 0, dir, APENET_REPORT_SUBJ_HOST, "watchdog", "NEIGHBOUR_HOST_EXPIRED", 0, 2);
	run(h, 2000);
	uint64_t host = the_one(h, "host", "host-hung", 0, 1, 0, 0);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_int_equal(c->key, agent);
	assert_int_equal(c->state, APENET_DEDUCE_MERGED);
	assert_int_equal(c->merged_into, host);
	assert_int_equal(nth(h, APENET_DEDUCE_OPEN, 1)->time_ms, t0 + 400);
	h->mute[idx(h, 0, 1, 0)] = 0;
	nbr_all(h, 0, 1, 0, APENET_REPORT_SUBJ_HOST, "watchdog", "NEIGHBOUR_HOST_EXPIRED", 2, 0);
	run(h, 2000);
	the_one(h, "host", "host-hung", 0, 1, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* ---- DNP hung ---- */

static void test_dnp_hung(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	nbr_all(h, 3, 3, 0, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 0, 1);
	run(h, 100);
	own(h, 3, 3, 0, APENET_REPORT_SUBJ_BOARD, "dnp", "DNP_HUNG", 0, 2, APENET_REPORT_PATH_WATCHDOG,
	    "WD_DNP_HB stuck at 77 for 5 periods of 100 ms");
	run(h, 1500);
	nbr_all(h, 3, 3, 0, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 1, 2);
	run(h, 3000);
	uint64_t key = the_one(h, "dnp", "dnp-hung", 3, 3, 0, 0);
	assert_string_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.summary,
			    "node 3,3,0's DNP is hung: its watchdog says so, and its neighbours hear no diagnostic word from it");
	assert_int_equal(count(h, APENET_DEDUCE_REBLAME), 0);
	/* 4 sick (one the first fault), DNP_HUNG, 4 broken */
	assert_int_equal(evidence_of(h, key), 3 + 1 + 4);
	own(h, 3, 3, 0, APENET_REPORT_SUBJ_BOARD, "dnp", "DNP_HUNG", 2, 0, APENET_REPORT_PATH_WATCHDOG,
	    "WD_DNP_HB moved to 78");
	run(h, 500);
	the_one(h, "dnp", NULL, 3, 3, 0, 0);
	nbr_all(h, 3, 3, 0, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 2, 0);
	run(h, 500);
	the_one(h, "dnp", "dnp-hung", 3, 3, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* Only the torus path: the node's own DNP_HUNG never arrives (then late). */
static void test_dnp_hung_neighbours_only(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	nbr_all(h, 0, 2, 0, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 0, 1);
	run(h, 3000);
	uint64_t key = the_one(h, "dnp", "ldm-stale", 0, 2, 0, 0);
	/* the node's own report comes: a stronger rule, the same incident */
	own(h, 0, 2, 0, APENET_REPORT_SUBJ_BOARD, "dnp", "DNP_HUNG", 0, 2, APENET_REPORT_PATH_WATCHDOG,
	    "WD_DNP_HB stuck");
	run(h, 100);
	assert_int_equal(the_one(h, "dnp", "dnp-hung", 0, 2, 0, 0), key);
	assert_int_equal(count(h, APENET_DEDUCE_REBLAME), 1);
	own(h, 0, 2, 0, APENET_REPORT_SUBJ_BOARD, "dnp", "DNP_HUNG", 2, 0, APENET_REPORT_PATH_WATCHDOG, "moved");
	nbr_all(h, 0, 2, 0, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 1, 0);
	run(h, 500);
	the_one(h, "dnp", "dnp-hung", 0, 2, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* A word late for a moment: gone before the settle window, no incident. */
static void test_transient(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	nbr(h, 2, 2, 0, APENET_DIR_XP, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 0, 1);
	run(h, 500);
	nbr(h, 2, 2, 0, APENET_DIR_XP, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 1, 0);
	run(h, 5000);
	assert_quiet(h);
	assert_int_equal(stats(h).candidates, 0);
	stop(h);
}

/* ---- host hung or dead ---- */

static void test_host_hung(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	h->mute[idx(h, 1, 2, 0)] = 1; /* SIGSTOP */
	run(h, 400);
	nbr_all(h, 1, 2, 0, APENET_REPORT_SUBJ_HOST, "watchdog", "NEIGHBOUR_HOST_EXPIRED", 0, 2);
	run(h, 6000);
	uint64_t key = the_one(h, "host", "host-hung", 1, 2, 0, 0);
	assert_int_equal(count(h, APENET_DEDUCE_REBLAME), 0);
	assert_int_equal(evidence_of(h, key), 4); /* 4 neighbours + the silence, one of them first */
	/* SIGCONT: it reports again, its watchdog saw itself expired */
	h->mute[idx(h, 1, 2, 0)] = 0;
	own(h, 1, 2, 0, APENET_REPORT_SUBJ_HOST, "host", "HOST_EXPIRED", 0, 1, APENET_REPORT_PATH_WATCHDOG,
	    "WD_STATUS 0x00000103, WD_EXPIRE_COUNT 1");
	run(h, 100);
	nbr_all(h, 1, 2, 0, APENET_REPORT_SUBJ_HOST, "watchdog", "NEIGHBOUR_HOST_EXPIRED", 2, 0);
	run(h, 100);
	the_one(h, "host", NULL, 1, 2, 0, 0); /* its own report is still raised */
	own(h, 1, 2, 0, APENET_REPORT_SUBJ_HOST, "host", "HOST_EXPIRED", 1, 0, APENET_REPORT_PATH_WATCHDOG,
	    "WD_STATUS 0x00000001");
	run(h, 1000);
	the_one(h, "host", "host-hung", 1, 2, 0, APENET_DEDUCE_CLOSED);
	/* heard again, its own expiry, 4 neighbours, its own clear */
	assert_int_equal(evidence_of(h, key), 4 + 1 + 1 + 4 + 1);
	stop(h);
}

/* A killed agent restarted within a second: its DNP declared the host
 * dead for a moment, the node was never silent; nothing to keep. */
static void test_agent_restart_is_transient(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	h->mute[idx(h, 1, 2, 0)] = 1;
	run(h, 400);
	nbr_all(h, 1, 2, 0, APENET_REPORT_SUBJ_HOST, "watchdog", "NEIGHBOUR_HOST_EXPIRED", 0, 2);
	run(h, 300);
	h->mute[idx(h, 1, 2, 0)] = 0;
	h->boot[idx(h, 1, 2, 0)]++;
	heartbeat(h, 1, 2, 0);
	run(h, 200);
	nbr_all(h, 1, 2, 0, APENET_REPORT_SUBJ_HOST, "watchdog", "NEIGHBOUR_HOST_EXPIRED", 2, 0);
	run(h, 8000);
	assert_quiet(h);
	stop(h);
}

/* ---- service network cut ---- */

static void test_service_cut(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	h->mute[idx(h, 3, 0, 0)] = 1;
	run(h, 4000);
	/* its notifier gave up on both supervisors: its field goes sick */
	int64_t t_sick = h->now;
	nbr_all(h, 3, 0, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 0, 1);
	run(h, 8000);
	uint64_t key = the_one(h, "service-network", "service-cut", 3, 0, 0, 0);
	run(h, 60000);
	int64_t t_broken = h->now;
	nbr_all(h, 3, 0, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 1, 2);
	run(h, 2000);
	assert_int_equal(the_one(h, "service-network", "service-cut", 3, 0, 0, 0), key);
	/* back: its spool drains (its own reports of the cut, late), then its
	 * field is normal again */
	h->mute[idx(h, 3, 0, 0)] = 0;
	own_at(h, t_sick, 3, 0, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 0, 1,
	       APENET_REPORT_PATH_SELF, "LDM_HOST service field");
	own_at(h, t_broken, 3, 0, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 1, 2,
	       APENET_REPORT_PATH_SELF, "LDM_HOST service field");
	run(h, 300);
	own(h, 3, 0, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 2, 0, APENET_REPORT_PATH_SELF,
	    "LDM_HOST service field");
	run(h, 100);
	the_one(h, "service-network", NULL, 3, 0, 0, 0);
	nbr_all(h, 3, 0, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 2, 0);
	run(h, 5000);
	the_one(h, "service-network", "service-cut", 3, 0, 0, APENET_DEDUCE_CLOSED);
	assert_int_equal(count(h, APENET_DEDUCE_REBLAME), 0);
	stop(h);
}

/* ---- supervisors ---- */

/* This supervisor's view when the other one is unreachable from the nodes
 * of x >= 2: they report their service field sick (one of two acks), and
 * so do their neighbours about them. */
static void test_supervisor_missing(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	for (unsigned x = 2; x < 4; x++)
		for (unsigned y = 0; y < 4; y++) {
			own(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 0, 1, APENET_REPORT_PATH_SELF,
			    "LDM_HOST service field");
			nbr_all(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 0, 1);
		}
	run(h, 3000);
	uint64_t key = the_one(h, "supervisor", "supervisor-missing", -1, 0, 0, 0);
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_int_equal(o->blame.has_node, 0);
	assert_string_equal(o->blame.where, "peer");
	assert_string_equal(o->blame.summary, "another supervisor is unreachable from part of the cluster: nodes report one "
					      "supervisor missing");
	assert_int_equal(evidence_of(h, key), 8 + 8 * 4 - 1);
	for (unsigned x = 2; x < 4; x++)
		for (unsigned y = 0; y < 4; y++) {
			own(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 1, 0, APENET_REPORT_PATH_SELF,
			    "LDM_HOST service field");
			nbr_all(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 1, 0);
		}
	run(h, 1000);
	the_one(h, "supervisor", "supervisor-missing", -1, 0, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* The same fault seen by the supervisor that is cut off: the nodes of
 * x >= 2 fall silent, the ones of x = 1 report their neighbours' service
 * field sick; then the part comes back with its spooled reports. */
static void test_supervisor_unreachable(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	int64_t t0 = h->now;
	for (unsigned x = 2; x < 4; x++)
		for (unsigned y = 0; y < 4; y++)
			h->mute[idx(h, x, y, 0)] = 1;
	run(h, 4000);
	for (unsigned x = 2; x < 4; x++)
		for (unsigned y = 0; y < 4; y++)
			nbr_all(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 0, 1);
	run(h, 8000);
	the_one(h, "supervisor", "supervisor-unreachable", -1, 0, 0, 0);
	assert_string_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.where, "self");
	assert_string_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.summary,
			    "this supervisor is unreachable from part of the cluster: nodes went silent with nothing else wrong");
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 1);
	for (unsigned x = 2; x < 4; x++)
		for (unsigned y = 0; y < 4; y++) {
			h->mute[idx(h, x, y, 0)] = 0;
			own_at(h, t0 + 3000, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 0, 1,
			       APENET_REPORT_PATH_SELF, "LDM_HOST service field");
		}
	run(h, 500);
	for (unsigned x = 2; x < 4; x++)
		for (unsigned y = 0; y < 4; y++) {
			own(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", 1, 0, APENET_REPORT_PATH_SELF,
			    "LDM_HOST service field");
			nbr_all(h, x, y, 0, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", 1, 0);
		}
	run(h, 2000);
	the_one(h, "supervisor", "supervisor-unreachable", -1, 0, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* A node whose agent was stopped cleanly: silent, nothing else wrong. */
static void test_agent_silent(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	h->mute[idx(h, 0, 0, 0)] = 1;
	run(h, 4000);
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 0); /* waiting for an explanation */
	run(h, 6000);
	the_one(h, "agent", "agent-silent", 0, 0, 0, 0);
	/* the first fault is the supervisor's own observation */
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_int_equal(o->ev.path, APENET_DEDUCE_PATH_SUPERVISOR);
	assert_string_equal(o->ev.reporter, "supervisor");
	assert_string_equal(o->ev.code, "SILENT");
	assert_non_null(strstr(o->ev.text, "no report from node 0,0,0"));
	h->mute[idx(h, 0, 0, 0)] = 0;
	run(h, 1100);
	the_one(h, "agent", "agent-silent", 0, 0, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* ---- cables ---- */

static void unplug(struct h *h, unsigned x, unsigned y, unsigned z, unsigned dir, int old, int now, int ends)
{
	unsigned me[3] = { x, y, z }, far[3];
	enum apenet_dir back;
	int dim, wrap;
	apenet_torus_neighbour(h->c.dims, me, (enum apenet_dir)dir, far, &back, &dim, &wrap);
	if (ends & 1)
		far_link(h, far[0], far[1], far[2], back, old, now); /* x,y,z's end, and its link field */
	if (ends & 2)
		far_link(h, x, y, z, dir, old, now);                 /* the far end */
}

static void test_cable_unplug(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	unplug(h, 2, 1, 0, APENET_DIR_XM, 0, 2, 3); /* 2,1,0 X- <-> 1,1,0 X+ */
	run(h, 3000);
	uint64_t key = the_one(h, "cable", "link-both-ends", 1, 1, 0, 0);
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_string_equal(o->blame.link, "X+");
	assert_int_equal(o->blame.has_far, 1);
	assert_int_equal(o->blame.fx, 2);
	assert_int_equal(o->blame.fy, 1);
	assert_string_equal(o->blame.far_link, "X-");
	assert_int_equal(o->blame.status, 2);
	assert_string_equal(o->blame.summary, "cable 1,1,0 X+ <-> 2,1,0 X- broken (both ends say so)");
	assert_int_equal(evidence_of(h, key), 2 * 4 - 1);
	unplug(h, 2, 1, 0, APENET_DIR_XM, 2, 0, 3);
	run(h, 1000);
	the_one(h, "cable", "link-both-ends", 1, 1, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* One end's own report and the other end's link field through its
 * neighbours, in a 2-wide dimension (the other cable between the same two
 * nodes carries the word). */
static void test_cable_one_end_two_wide(void **state)
{
	(void)state;
	struct h *h = start(4, 2, 1);
	run(h, 2000);
	own(h, 1, 0, 0, APENET_REPORT_SUBJ_LINK, "Y+", "LINK_DOWN", 0, 2, APENET_REPORT_PATH_SELF, "LINK_STATE DOWN");
	/* 1,1,0 hears 1,0,0's Y+ field broken on its own Y+ (the Y- cable of 1,0,0) */
	nbr(h, 1, 0, 0, APENET_DIR_YM, APENET_REPORT_SUBJ_LINK, "Y+", "NEIGHBOUR_LINK", 0, 2);
	run(h, 3000);
	the_one(h, "cable", "link-one-end", 1, 0, 0, 0);
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_string_equal(o->blame.link, "Y+");
	assert_int_equal(o->blame.fx, 1);
	assert_int_equal(o->blame.fy, 1);
	assert_string_equal(o->blame.far_link, "Y-");
	/* the far end's own report: both ends now */
	own(h, 1, 1, 0, APENET_REPORT_SUBJ_LINK, "Y-", "LINK_DOWN", 0, 2, APENET_REPORT_PATH_SELF, "LINK_STATE DOWN");
	run(h, 100);
	the_one(h, "cable", "link-both-ends", 1, 0, 0, 0);
	own(h, 1, 0, 0, APENET_REPORT_SUBJ_LINK, "Y+", "LINK_DOWN", 2, 0, APENET_REPORT_PATH_SELF, "up");
	own(h, 1, 1, 0, APENET_REPORT_SUBJ_LINK, "Y-", "LINK_DOWN", 2, 0, APENET_REPORT_PATH_SELF, "up");
	nbr(h, 1, 0, 0, APENET_DIR_YM, APENET_REPORT_SUBJ_LINK, "Y+", "NEIGHBOUR_LINK", 2, 0);
	run(h, 1000);
	the_one(h, "cable", "link-both-ends", 1, 0, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* Duplicates (a report resent after a lost ack) change nothing. */
static void test_duplicates(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	r.x = 1, r.y = 1, r.z = 0;
	snprintf(r.boot, sizeof(r.boot), "1,1,0#1");
	r.seq = 777;
	r.time_ms = h->now;
	r.subject = APENET_REPORT_SUBJ_LINK;
	snprintf(r.where, sizeof(r.where), "Y+");
	snprintf(r.code, sizeof(r.code), "LINK_CRC");
	r.new_status = 1;
	snprintf(r.evidence, sizeof(r.evidence), "130 in 60.0 s; at least 108/min at 95%% confidence");
	for (int k = 0; k < 3; k++)
		apenet_deduce_report(h->d, &r, h->now);
	run(h, 3000);
	uint64_t key = the_one(h, "cable", "link-one-end", 1, 1, 0, 0);
	assert_int_equal(evidence_of(h, key), 0);
	assert_int_equal(stats(h).duplicates, 2);
	assert_int_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.status, 1);
	apenet_deduce_report(h->d, &r, h->now);
	run(h, 100);
	assert_int_equal(evidence_of(h, key), 0);
	r.seq = 778;
	r.new_status = 0;
	apenet_deduce_report(h->d, &r, h->now);
	apenet_deduce_report(h->d, &r, h->now);
	run(h, 100);
	the_one(h, "cable", NULL, 1, 1, 0, APENET_DEDUCE_CLOSED);
	assert_int_equal(count(h, APENET_DEDUCE_CLOSE), 1);
	stop(h);
}

/* ---- what a node says of itself and its neighbours of it ---- */

static void test_overheat(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	nbr_all(h, 2, 3, 0, APENET_REPORT_SUBJ_SENSOR, "temperature", "NEIGHBOUR_TEMPERATURE", 0, 1);
	own(h, 2, 3, 0, APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "FPGA_TEMP", 0, 1, APENET_REPORT_PATH_SELF,
	    "SENS_FPGA_TEMP 92.0 C");
	run(h, 3000);
	uint64_t key = the_one(h, "sensor:temperature", "self-and-neighbours", 2, 3, 0, 0);
	assert_int_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.status, 1);
	assert_string_equal(nth(h, APENET_DEDUCE_OPEN, 0)->blame.summary,
			    "node 2,3,0: sensor:temperature sick (the node and its neighbours say so)");
	own(h, 2, 3, 0, APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "FPGA_TEMP", 1, 2, APENET_REPORT_PATH_SELF,
	    "SENS_FPGA_TEMP 101.0 C");
	nbr_all(h, 2, 3, 0, APENET_REPORT_SUBJ_SENSOR, "temperature", "NEIGHBOUR_TEMPERATURE", 1, 2);
	own(h, 2, 3, 0, APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "FPGA_TEMP", 2, 0, APENET_REPORT_PATH_SELF,
	    "SENS_FPGA_TEMP 60.0 C");
	nbr_all(h, 2, 3, 0, APENET_REPORT_SUBJ_SENSOR, "temperature", "NEIGHBOUR_TEMPERATURE", 2, 0);
	run(h, 500);
	assert_int_equal(the_one(h, "sensor:temperature", NULL, 2, 3, 0, APENET_DEDUCE_CLOSED), key);
	assert_int_equal(evidence_of(h, key), 4 + 5 + 5);
	stop(h);
}

/* ---- two faults at once ---- */

static void test_two_faults(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	h->mute[idx(h, 0, 0, 0)] = 1;
	all_far_links(h, 0, 0, 0, 0, 2);                   /* 0,0,0 powered off */
	own(h, 2, 2, 0, APENET_REPORT_SUBJ_BOARD, "dnp", "DNP_HUNG", 0, 2, APENET_REPORT_PATH_WATCHDOG, "stuck");
	nbr_all(h, 2, 2, 0, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 0, 2); /* 2,2,0's DNP */
	run(h, 8000);
	struct view v[16];
	int n = replay(h, v, 16);
	assert_int_equal(n, 2);
	int power = !strcmp(v[0].b.component, "node-power") ? 0 : 1;
	assert_string_equal(v[power].b.component, "node-power");
	assert_int_equal(v[power].b.x, 0);
	assert_string_equal(v[!power].b.component, "dnp");
	assert_int_equal(v[!power].b.x, 2);
	assert_int_equal(v[!power].b.y, 2);
	assert_int_equal(v[0].state, 0);
	assert_int_equal(v[1].state, 0);
	stop(h);
}

/* ---- a supervisor restarted ---- */

static void test_restore(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	card_gone(h, 1, 1, 0, 2);
	all_far_links(h, 1, 1, 0, 0, 2);
	run(h, 3000);
	uint64_t key = the_one(h, "card", "card-gone", 1, 1, 0, 0);
	const struct apenet_deduce_action o = *nth(h, APENET_DEDUCE_OPEN, 0);
	assert_int_equal(key, o.key);
	/* the supervisor restarts: a new engine, seeded from the database */
	apenet_deduce_close(h->d);
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_deduce_open(&h->c, &h->d, &e), 0);
	h->na = 0;
	h->nv = 0; /* a new engine: its keys are new */
	struct apenet_deduce_restore r = { .ref = 4242, .component = "card", .rule = "card-gone", .has_node = 1,
					   .x = 1, .y = 1, .z = 0, .status = 2, .first_ms = o.time_ms };
	uint64_t k2 = apenet_deduce_restore(h->d, &r, h->now, &e);
	assert_true(k2 != 0);
	assert_int_equal(apenet_deduce_restore(h->d, &r, h->now, &e), 0); /* not twice */
	/* a cable restored by its other end is the same cable */
	struct apenet_deduce_restore rc = { .ref = 4343, .component = "cable", .rule = "link-both-ends", .has_node = 1,
					    .x = 3, .y = 3, .z = 0, .link = "X+", .status = 2, .first_ms = o.time_ms };
	uint64_t kc = apenet_deduce_restore(h->d, &rc, h->now, &e);
	assert_true(kc != 0);
	rc.x = 0, rc.link = "X-";
	assert_int_equal(apenet_deduce_restore(h->d, &rc, h->now, &e), 0);
	for (unsigned i = 0; i < 16; i++)
		apenet_deduce_heard(h->d, i % 4, i / 4, 0, h->now - 500, h->now - 500);
	/* the last transition of each fact that is not normal, replayed */
	card_gone(h, 1, 1, 0, 2);
	all_far_links(h, 1, 1, 0, 0, 2);
	run(h, 10000);
	/* nothing opens again; the cable nobody speaks of closes after its hold */
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 0);
	assert_int_equal(count(h, APENET_DEDUCE_CLOSE), 1);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_int_equal(c->key, kc);
	assert_int_equal(c->ref, 4343);
	assert_int_equal(evidence_of(h, k2), 17);
	for (int i = 0; i < h->na; i++)
		if (h->a[i].kind == APENET_DEDUCE_EVIDENCE)
			assert_int_equal(h->a[i].ref, 4242);
	int before = h->na;
	card_gone(h, 1, 1, 0, 0);
	all_far_links(h, 1, 1, 0, 2, 0);
	run(h, 1000);
	c = NULL;
	for (int i = before; i < h->na; i++)
		if (h->a[i].kind == APENET_DEDUCE_CLOSE)
			c = &h->a[i];
	assert_non_null(c);
	assert_int_equal(c->key, k2);
	assert_int_equal(c->ref, 4242);
	assert_int_equal(c->state, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* The ack of a supervisor that was away comes late: its spool replays a
 * whole fault (history) at once, which opens and closes. */
static void test_history_from_spool(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	int64_t t0 = h->now - 60000;
	own_at(h, t0, 3, 2, 0, APENET_REPORT_SUBJ_SENSOR, "vcore", "VCORE_LOW", 0, 1, APENET_REPORT_PATH_SELF,
	       "VCORE 0.95 V");
	own_at(h, t0 + 20000, 3, 2, 0, APENET_REPORT_SUBJ_SENSOR, "vcore", "VCORE_LOW", 1, 0, APENET_REPORT_PATH_SELF,
	       "VCORE 1.0 V");
	run(h, 3000);
	uint64_t key = the_one(h, "sensor:voltage", "self", 3, 2, 0, APENET_DEDUCE_CLOSED);
	const struct apenet_deduce_action *o = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_int_equal(o->time_ms, t0);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_int_equal(c->key, key);
	assert_int_equal(c->time_ms, t0 + 20000);
	stop(h);
}

/* An agent restarted (a new boot id) says again what is still wrong; what
 * its older run said and the new one does not is superseded. */
static void test_agent_restart_supersedes(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	own(h, 0, 3, 0, APENET_REPORT_SUBJ_LINK, "Z+", "LINK_CRC", 0, 1, APENET_REPORT_PATH_SELF, "130 in 60.0 s");
	own(h, 3, 0, 0, APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "FPGA_TEMP", 0, 1, APENET_REPORT_PATH_SELF, "88 C");
	run(h, 3000);
	assert_int_equal(count(h, APENET_DEDUCE_OPEN), 2);
	/* both agents restart; 3,0,0's is still hot and says so, 0,3,0's
	 * cable healed while it was down and nobody says it */
	h->boot[idx(h, 0, 3, 0)]++;
	h->boot[idx(h, 3, 0, 0)]++;
	run(h, 1000);
	own(h, 3, 0, 0, APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "FPGA_TEMP", 0, 1, APENET_REPORT_PATH_SELF, "88 C");
	run(h, 10000);
	assert_int_equal(count(h, APENET_DEDUCE_CLOSE), 0);
	run(h, 6000);
	assert_int_equal(count(h, APENET_DEDUCE_CLOSE), 1);
	const struct apenet_deduce_action *c = nth(h, APENET_DEDUCE_CLOSE, 0);
	const struct apenet_deduce_action *o0 = nth(h, APENET_DEDUCE_OPEN, 0);
	assert_non_null(o0);
	int k = !strcmp(o0->blame.component, "cable") ? 0 : 1;
	assert_string_equal(nth(h, APENET_DEDUCE_OPEN, k)->blame.component, "cable");
	assert_int_equal(c->key, nth(h, APENET_DEDUCE_OPEN, k)->key);
	assert_non_null(strstr(c->ev.text, "superseded"));
	assert_int_equal(stats(h).superseded, 1);
	/* a late report of the older run changes nothing */
	h->boot[idx(h, 3, 0, 0)]--;
	own(h, 3, 0, 0, APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "FPGA_TEMP", 1, 0, APENET_REPORT_PATH_SELF, "60 C");
	run(h, 2000);
	assert_int_equal(count(h, APENET_DEDUCE_CLOSE), 1);
	assert_true(stats(h).stale >= 1); /* and its heartbeats */
	assert_int_equal(stats(h).silent, 0);
	stop(h);
}

/* ---- real agents ---- */

/* tests/data/deduce/agents-4x4x1.tsv: what 16 real agents on an emulated
 * torus reported (tests/data/deduce/record.sh), replayed: their reports at
 * the times they were seen, every reachable node's heartbeat each second,
 * a muted node's reports held back until it is unmuted (its spool). */
struct rec {
	int64_t t;
	char kind[8], node[16], reporter[16], boot[8], seq[16], subject[16], where[24], code[32], old[8], new[8],
		path[16], via[8], evidence[200];
};

static int field(char **p, char *dst, size_t n)
{
	char *tab = strchr(*p, '\t');
	size_t len = tab ? (size_t)(tab - *p) : strlen(*p);
	snprintf(dst, n, "%.*s", (int)len, *p);
	*p += len + (tab ? 1 : 0);
	return tab != NULL;
}

static int status_of(const char *s)
{
	return !strcmp(s, "sick") ? 1 : !strcmp(s, "broken") ? 2 : !strcmp(s, "invalid") ? 3 : 0;
}

/* As agent/report.c maps the agent's subjects. */
static int subject_of(const char *s)
{
	static const struct {
		const char *agent;
		int report;
	} map[] = { { "board", 1 }, { "link", 2 }, { "lane", 3 }, { "module", 4 }, { "sensor", 5 }, { "cabling", 6 },
		    { "host", 7 },  { "memory", 7 }, { "service", 7 }, { "dnp", 1 }, { "card", 1 } };
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].agent, s))
			return map[i].report;
	return 1;
}

static void deliver(struct h *h, const struct rec *q)
{
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	assert_int_equal(sscanf(q->node, "%u,%u,%u", &r.x, &r.y, &r.z), 3);
	snprintf(r.boot, sizeof(r.boot), "%s#%s", q->reporter, q->boot);
	r.seq = strtoull(q->seq, NULL, 10);
	r.time_ms = q->t;
	r.subject = subject_of(q->subject);
	snprintf(r.where, sizeof(r.where), "%s", q->where[0] ? q->where : q->subject);
	snprintf(r.code, sizeof(r.code), "%s", q->code);
	r.old_status = status_of(q->old);
	r.new_status = status_of(q->new);
	r.path = !strcmp(q->path, "neighbour-ldm") ? APENET_REPORT_PATH_NEIGHBOUR_LDM
		 : !strcmp(q->path, "watchdog")    ? APENET_REPORT_PATH_WATCHDOG
						   : APENET_REPORT_PATH_SELF;
	snprintf(r.via, sizeof(r.via), "%s", q->via);
	snprintf(r.evidence, sizeof(r.evidence), "%s", q->evidence);
	apenet_deduce_report(h->d, &r, h->now);
	drain(h);
}

static void test_recorded_agents(void **state)
{
	(void)state;
	const char *src = getenv("APENET_SRCDIR");
	char path[4096], line[1024];
	snprintf(path, sizeof(path), "%s/tests/data/deduce/agents-4x4x1.tsv", src && *src ? src : ".");
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("%s: cannot read it (set APENET_SRCDIR to the source tree)", path);
	static struct rec recs[1024], held[1024];
	int n = 0, nheld = 0;
	while (fgets(line, sizeof(line), f) && n < 1024) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '#' || !line[0])
			continue;
		char *p = line, t[24];
		struct rec *q = &recs[n++];
		memset(q, 0, sizeof(*q));
		field(&p, t, sizeof(t));
		q->t = strtoll(t, NULL, 10);
		field(&p, q->kind, sizeof(q->kind));
		field(&p, q->node, sizeof(q->node));
		if (!strcmp(q->kind, "BOOT")) {
			field(&p, q->boot, sizeof(q->boot));
			continue;
		}
		if (strcmp(q->kind, "health"))
			continue;
		field(&p, q->reporter, sizeof(q->reporter));
		field(&p, q->boot, sizeof(q->boot));
		field(&p, q->seq, sizeof(q->seq));
		field(&p, q->subject, sizeof(q->subject));
		field(&p, q->where, sizeof(q->where));
		field(&p, q->code, sizeof(q->code));
		field(&p, q->old, sizeof(q->old));
		field(&p, q->new, sizeof(q->new));
		field(&p, q->path, sizeof(q->path));
		field(&p, q->via, sizeof(q->via));
		field(&p, q->evidence, sizeof(q->evidence));
	}
	fclose(f);
	assert_true(n > 200);
	struct h *h = start(4, 4, 1);
	h->now = recs[0].t - 5000;
	h->next_hb = h->now;
	run(h, 4000);
	for (int i = 0; i < n; i++) {
		const struct rec *q = &recs[i];
		while (h->now + 100 <= q->t)
			run(h, 100);
		if (q->t > h->now)
			h->now = q->t;
		unsigned x, y, z;
		if (!strcmp(q->kind, "health")) {
			sscanf(q->reporter, "%u,%u,%u", &x, &y, &z);
			if (h->mute[idx(h, x, y, z)])
				held[nheld++] = *q; /* in its spool */
			else
				deliver(h, q);
			continue;
		}
		if (sscanf(q->node, "%u,%u,%u", &x, &y, &z) != 3)
			continue;
		if (!strcmp(q->kind, "MUTE"))
			h->mute[idx(h, x, y, z)] = 1;
		else if (!strcmp(q->kind, "BOOT"))
			h->boot[idx(h, x, y, z)] = (unsigned)atoi(q->boot);
		else if (!strcmp(q->kind, "UNMUTE")) {
			h->mute[idx(h, x, y, z)] = 0;
			int keep = 0;
			for (int k = 0; k < nheld; k++) {
				unsigned a, b, c;
				sscanf(held[k].reporter, "%u,%u,%u", &a, &b, &c);
				if (a == x && b == y && c == z)
					deliver(h, &held[k]);
				else
					held[keep++] = held[k];
			}
			nheld = keep;
		}
	}
	run(h, 20000);
	if (getenv("DUMP"))
		dump(h);
	static const struct {
		const char *comp, *rule;
		unsigned x, y, z;
		const char *link;
	} want[] = {
		{ "card", "card-gone", 1, 1, 0, "" },
		{ "dnp", "dnp-hung", 1, 1, 0, "" },
		{ "cable", "link-both-ends", 1, 1, 0, "X+" },
		{ "sensor:temperature", "self-and-neighbours", 1, 1, 0, "" },
		{ "sensor:voltage", "self-and-neighbours", 1, 1, 0, "" },
		{ "pcie", "self-and-neighbours", 1, 1, 0, "" },
		{ "host", "host-hung", 2, 2, 0, "" },
		{ "host", "host-hung", 3, 3, 0, "" },
		{ "service-network", "service-cut", 1, 2, 0, "" },
	};
	struct view v[64];
	int nv = replay(h, v, 64), k = 0;
	for (int i = 0; i < nv; i++) {
		if (v[i].state == APENET_DEDUCE_MERGED)
			continue;
		if (k >= (int)(sizeof(want) / sizeof(want[0])))
			fail_msg("an incident too many: %s %s at %u,%u,%u", v[i].b.component, v[i].b.rule, v[i].b.x,
				 v[i].b.y, v[i].b.z);
		assert_string_equal(v[i].b.component, want[k].comp);
		assert_string_equal(v[i].b.rule, want[k].rule);
		assert_int_equal(v[i].b.x, want[k].x);
		assert_int_equal(v[i].b.y, want[k].y);
		assert_int_equal(v[i].b.z, want[k].z);
		assert_string_equal(v[i].b.link, want[k].link);
		assert_int_equal(v[i].state, APENET_DEDUCE_CLOSED);
		k++;
	}
	assert_int_equal(k, sizeof(want) / sizeof(want[0]));
	assert_int_equal(count(h, APENET_DEDUCE_CLOSE), nv);
	assert_int_equal(stats(h).facts, 0);
	assert_int_equal(stats(h).open, 0);
	assert_int_equal(stats(h).candidates, 0);
	stop(h);
}

/* ---- the provisional life of an incident (the raw actions) ---- */

static int raw_count(const struct h *h, int kind, uint64_t key)
{
	int n = 0;
	for (int i = 0; i < h->nraw; i++)
		n += h->raw[i].kind == kind && (!key || h->raw[i].key == key);
	return n;
}

static const struct apenet_deduce_action *raw_nth(const struct h *h, int kind, int k)
{
	for (int i = 0; i < h->nraw; i++)
		if (h->raw[i].kind == kind && k-- == 0)
			return &h->raw[i];
	return NULL;
}

/* A cable opens at its first evidence, blaming it at once, and settles
 * settle_ms later with nothing new said in between. */
static void test_provisional_cable(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	int64_t t0 = h->now;
	unplug(h, 2, 1, 0, APENET_DIR_XM, 0, 2, 3); /* 2,1,0 X- <-> 1,1,0 X+ */
	/* said before a single tick: at the first evidence */
	const struct apenet_deduce_action *o = raw_nth(h, APENET_DEDUCE_OPEN, 0);
	assert_non_null(o);
	assert_int_equal(o->provisional, 1);
	assert_string_equal(o->blame.component, "cable");
	assert_int_equal(o->blame.x, 1);
	assert_int_equal(o->blame.y, 1);
	assert_string_equal(o->blame.link, "X+");
	assert_int_equal(h->na, 0); /* nothing settled: nothing to act on */
	uint64_t key = o->key;
	run(h, h->c.settle_ms - 100);
	assert_int_equal(raw_count(h, APENET_DEDUCE_SETTLE, 0), 0);
	assert_int_equal(h->na, 0);
	run(h, 200);
	const struct apenet_deduce_action *st = raw_nth(h, APENET_DEDUCE_SETTLE, 0);
	assert_non_null(st);
	assert_int_equal(st->key, key);
	assert_int_equal(st->provisional, 0);
	assert_true(st->time_ms >= t0 + h->c.settle_ms && st->time_ms <= t0 + h->c.settle_ms + 100);
	assert_string_equal(st->blame.rule, "link-both-ends");
	/* one incident, said once: the rule grew (one end, then both) in place */
	assert_int_equal(raw_count(h, APENET_DEDUCE_OPEN, 0), 1);
	assert_int_equal(raw_count(h, APENET_DEDUCE_CLOSE, 0), 0);
	for (int i = 0; i < h->nraw; i++)
		if (h->raw[i].kind == APENET_DEDUCE_REBLAME) {
			assert_int_equal(h->raw[i].key, key);
			assert_string_equal(h->raw[i].blame.component, "cable");
		}
	assert_int_equal(evidence_of(h, key), 2 * 4 - 1);
	struct apenet_deduce_stats s = stats(h);
	assert_int_equal(s.opened, 1);
	assert_int_equal(s.settled, 1);
	assert_int_equal(s.withdrawn, 0);
	stop(h);
}

/* A neighbour's dark link first says "cable"; the card's own CARD_GONE and
 * the other neighbours' links say "card": the incident first said is
 * re-blamed in place (same key), the others said meanwhile merge into it,
 * and only the card settles. */
static void test_provisional_reblame(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	far_link(h, 1, 1, 0, APENET_DIR_XM, 0, 2); /* 0,1,0's X+ */
	run(h, 200);
	const struct apenet_deduce_action *o = raw_nth(h, APENET_DEDUCE_OPEN, 0);
	assert_non_null(o);
	assert_int_equal(o->provisional, 1);
	assert_string_equal(o->blame.component, "cable");
	uint64_t key = o->key;
	far_link(h, 1, 1, 0, APENET_DIR_XP, 0, 2);
	run(h, 100);
	card_gone(h, 1, 1, 0, 2);
	for (unsigned dir = 0; dir < 6; dir++)
		if (dir != APENET_DIR_XM && dir != APENET_DIR_XP)
			far_link(h, 1, 1, 0, dir, 0, 2);
	run(h, 100);
	/* re-blamed before it settled: the card, on the node */
	const struct apenet_deduce_action *rb = NULL;
	for (int i = 0; i < h->nraw; i++)
		if (h->raw[i].kind == APENET_DEDUCE_REBLAME && h->raw[i].key == key)
			rb = &h->raw[i];
	assert_non_null(rb);
	assert_int_equal(rb->provisional, 1);
	assert_string_equal(rb->blame.component, "card");
	assert_int_equal(rb->blame.x, 1);
	assert_int_equal(rb->blame.y, 1);
	assert_int_equal(raw_count(h, APENET_DEDUCE_SETTLE, 0), 0);
	run(h, 3000);
	/* the one that settles is the first said, blaming the card */
	assert_int_equal(raw_count(h, APENET_DEDUCE_SETTLE, 0), 1);
	const struct apenet_deduce_action *st = raw_nth(h, APENET_DEDUCE_SETTLE, 0);
	assert_int_equal(st->key, key);
	assert_string_equal(st->blame.component, "card");
	assert_string_equal(st->blame.rule, "card-gone");
	/* every other incident said provisionally is gone, merged into it,
	 * before it settled and without a settle of its own */
	for (int i = 0; i < h->nraw; i++) {
		const struct apenet_deduce_action *a = &h->raw[i];
		if (a->kind == APENET_DEDUCE_OPEN && a->key != key) {
			assert_int_equal(a->provisional, 1);
			assert_int_equal(raw_count(h, APENET_DEDUCE_CLOSE, a->key), 1);
			assert_int_equal(raw_count(h, APENET_DEDUCE_SETTLE, a->key), 0);
		}
		if (a->kind == APENET_DEDUCE_CLOSE) {
			assert_int_equal(a->provisional, 1);
			assert_int_equal(a->state, APENET_DEDUCE_MERGED);
			assert_int_equal(a->merged_into, key);
		}
	}
	the_one(h, "card", "card-gone", 1, 1, 0, 0);
	card_gone(h, 1, 1, 0, 0);
	all_far_links(h, 1, 1, 0, 2, 0);
	run(h, 2000);
	the_one(h, "card", "card-gone", 1, 1, 0, APENET_DEDUCE_CLOSED);
	stop(h);
}

/* Evidence that clears before the window passes: the provisional incident
 * is withdrawn (closed, never settled), and nothing reaches the view. */
static void test_provisional_withdrawn(void **state)
{
	(void)state;
	struct h *h = start(4, 4, 1);
	run(h, 2000);
	nbr(h, 2, 2, 0, APENET_DIR_XP, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 0, 1);
	run(h, 500);
	const struct apenet_deduce_action *o = raw_nth(h, APENET_DEDUCE_OPEN, 0);
	assert_non_null(o);
	assert_int_equal(o->provisional, 1);
	assert_string_equal(o->blame.component, "dnp");
	uint64_t key = o->key;
	nbr(h, 2, 2, 0, APENET_DIR_XP, APENET_REPORT_SUBJ_BOARD, "ldm", "LDM_STALE", 1, 0);
	const struct apenet_deduce_action *c = raw_nth(h, APENET_DEDUCE_CLOSE, 0);
	assert_non_null(c);
	assert_int_equal(c->key, key);
	assert_int_equal(c->provisional, 1);
	assert_int_equal(c->state, APENET_DEDUCE_CLOSED);
	assert_string_equal(c->ev.code, "LDM_STALE"); /* what cleared it */
	run(h, 5000);
	assert_int_equal(raw_count(h, APENET_DEDUCE_SETTLE, 0), 0);
	assert_int_equal(raw_count(h, APENET_DEDUCE_EVIDENCE, 0), 0);
	assert_quiet(h);
	struct apenet_deduce_stats s = stats(h);
	assert_int_equal(s.withdrawn, 1);
	assert_int_equal(s.candidates, 0);
	assert_int_equal(s.open, 0);
	stop(h);
}

static void test_config(void **state)
{
	(void)state;
	struct apenet_deduce_config c;
	struct apenet_err e = { 0 };
	struct apenet_deduce *d;
	apenet_deduce_config_defaults(&c);
	assert_int_equal(apenet_deduce_config_check(&c, &e), 0);
	c.dims[2] = 0;
	assert_int_equal(apenet_deduce_open(&c, &d, &e), -1);
	assert_non_null(strstr(e.msg, "dims[2]"));
	apenet_deduce_config_defaults(&c);
	c.group_min = 0;
	assert_int_equal(apenet_deduce_config_check(&c, &e), -1);
	assert_non_null(strstr(e.msg, "group_min"));
	/* the settings, their defaults and ranges are the supervisor's keys
	 * (the config's table) */
	static struct apenet_config cfg;
	assert_int_equal(apenet_config_load_string("t.yaml", "cluster:\n  dims: 3x2x1\nsupervisor:\n  settle_ms: 700\n  group_min: 5\n",
						   &cfg, &e), 0);
	struct apenet_deduce_config def;
	apenet_deduce_config_defaults(&def);
	apenet_deduce_config_from(&c, &cfg.svr, cfg.cl.dims);
	assert_int_equal(c.dims[0], 3);
	assert_int_equal(c.dims[1], 2);
	assert_int_equal(c.settle_ms, 700);
	assert_int_equal(c.group_min, 5);
	assert_int_equal(c.silent_ms, def.silent_ms);
	apenet_config_free(&cfg);
	apenet_config_defaults(&cfg);
	apenet_deduce_config_from(&c, &cfg.svr, def.dims);
	assert_memory_equal(&c, &def, sizeof(c));
	const struct apenet_config_desc *row = apenet_config_desc_find(apenet_config_table_find("supervisor"), "settle_ms");
	assert_int_equal(def.settle_ms, (int64_t)row->def);
	c.settle_ms = (int64_t)row->max + 1;
	assert_int_equal(apenet_deduce_config_check(&c, &e), -1);
	assert_string_equal(e.msg, "settle_ms: 600001 is not in 0..600000");
	c = def;
	c.silent_ms = 99;
	assert_int_equal(apenet_deduce_config_check(&c, &e), -1);
	assert_string_equal(e.msg, "silent_ms: 99 is not in 100..86400000");
	/* reports about nodes outside the torus are ignored */
	apenet_deduce_config_defaults(&c);
	assert_int_equal(apenet_deduce_open(&c, &d, &e), 0);
	struct apenet_report r;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	r.x = 9;
	snprintf(r.code, sizeof(r.code), "CARD_GONE");
	r.new_status = 2;
	apenet_deduce_report(d, &r, 1000);
	struct apenet_deduce_stats s;
	apenet_deduce_stats(d, &s);
	assert_int_equal(s.ignored, 1);
	assert_int_equal(s.facts, 0);
	apenet_deduce_close(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heartbeats_only),
		cmocka_unit_test(test_card_gone),
		cmocka_unit_test(test_card_gone_own_report_late),
		cmocka_unit_test(test_cable_merged_into_card),
		cmocka_unit_test(test_card_gone_two_wide),
		cmocka_unit_test(test_power_off),
		cmocka_unit_test(test_power_off_links_late),
		cmocka_unit_test(test_dnp_hung),
		cmocka_unit_test(test_dnp_hung_neighbours_only),
		cmocka_unit_test(test_transient),
		cmocka_unit_test(test_host_hung),
		cmocka_unit_test(test_agent_restart_is_transient),
		cmocka_unit_test(test_host_hung_words_late),
		cmocka_unit_test(test_service_cut),
		cmocka_unit_test(test_supervisor_missing),
		cmocka_unit_test(test_supervisor_unreachable),
		cmocka_unit_test(test_agent_silent),
		cmocka_unit_test(test_cable_unplug),
		cmocka_unit_test(test_cable_one_end_two_wide),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_overheat),
		cmocka_unit_test(test_two_faults),
		cmocka_unit_test(test_restore),
		cmocka_unit_test(test_history_from_spool),
		cmocka_unit_test(test_agent_restart_supersedes),
		cmocka_unit_test(test_recorded_agents),
		cmocka_unit_test(test_config),
	};
	const struct CMUnitTest ptests[] = {
		cmocka_unit_test(test_provisional_cable),
		cmocka_unit_test(test_provisional_reblame),
		cmocka_unit_test(test_provisional_withdrawn),
	};
	int rc = cmocka_run_group_tests_name("settled only", tests, NULL, NULL);
	/* the same cases on a provisional engine, as what acts sees them */
	provisional = 1;
	rc |= cmocka_run_group_tests_name("provisional, the settled view", tests, NULL, NULL);
	return rc | cmocka_run_group_tests_name("provisional, every action", ptests, NULL, NULL);
}
