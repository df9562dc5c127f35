/*
 * The deduction engine's inside (include/apenet/deduce.h), shared by
 * lofamo/deduce*.c:
 *   deduce.c        the API: reports in, time, actions out;
 *   deduce_map.c    what a report says: its kind of fact, component, link;
 *                   names of components and rules; torus geometry;
 *   deduce_store.c  the pools (facts, incidents, buffered evidence), the
 *                   incident hash, the silence list, the action queue;
 *   deduce_rules.c  the deduction: each node's verdict, each fact's
 *                   incident;
 *   deduce_inc.c    incidents: attach, move, open, re-blame, merge, close.
 *
 * Facts are the live evidence: one per (node it is about, what, reporter,
 * the reporter's link), kept while it is not normal, in two lists (its
 * node's, its incident's).  Nodes are a dense array indexed by
 * coordinates.  Incidents are candidates (settling: nothing said yet, or
 * announced provisionally when the engine is provisional) or open
 * (settled); a closed one is freed.
 */
#ifndef APENET_DEDUCE_INT_H
#define APENET_DEDUCE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/deduce.h"

#define DD_NONE 0xffffffffu
#define DD_NOLINK 0xff
#define DD_NDIRS 6 /* X+ X- Y+ Y- Z+ Z- (enum apenet_dir) */

/* What a fact says about its node. */
enum dd_kind {
	K_SILENT,  /* the supervisor's own: no report from the node for silent_ms */
	K_CARD,    /* CARD_GONE (watchdog) */
	K_DNP,     /* DNP_HUNG (watchdog) */
	K_OWNINV,  /* LDM_OWN_INVALID */
	K_HOST,    /* HOST_EXPIRED (watchdog) */
	K_SVC,     /* SERVICE_NETWORK (self) */
	K_NHOST,   /* NEIGHBOUR_HOST_EXPIRED */
	K_NSVC,    /* NEIGHBOUR_SERVICE */
	K_STALE,   /* LDM_STALE */
	K_NCORE,   /* NEIGHBOUR_CORE */
	K_LDMINV,  /* LDM_INVALID */
	K_LINK,    /* the node's own finding on a link (or its module's signal) */
	K_NLINK,   /* NEIGHBOUR_LINK: the node's link field, as its neighbours hear it */
	K_GENERIC, /* anything else: one incident per (node, component, link) */
};

/* Components: the fixed ones, then interned names (the subject of a report
 * nobody knows). */
enum dd_comp {
	C_HOST, C_DNP, C_CARD, C_POWER, C_CABLE, C_SERVICE, C_SUPERVISOR, C_AGENT,
	C_TEMP, C_VOLT, C_CURR, C_PCIE, C_MEMORY, C_MODULE, C_LINK, C_CABLING,
	C_NFIXED
};

/* Rules, strongest last within no order: each has a strength (apenet_deduce_rule_strength). */
enum dd_rule {
	R_NONE,
	R_CARD_GONE, R_POWER_OFF, R_LINKS_PENDING, R_LINKS_LOST,
	R_DNP_HUNG, R_LDM_STALE, R_DNP_CORE, R_LDM_INVALID,
	R_HOST_HUNG, R_HOST_EXPIRED,
	R_SERVICE_CUT, R_SUP_MISSING, R_SUP_UNREACHABLE, R_AGENT_SILENT,
	R_LINK_BOTH, R_LINK_ONE,
	R_SELF_NBR, R_SELF, R_NBR,
	R_COUNT
};

/* A node's isolation verdict: its links, seen from the far ends. */
enum dd_iso { ISO_NONE, ISO_CARD, ISO_POWER, ISO_LINKS, ISO_PENDING };

enum { F_DOWN = 1, F_LATE = 2, F_OWN = 4, F_OLDBOOT = 8 };
enum { N_LRU = 1, N_DIRTY = 2, N_REKEY = 4, N_SILENT = 8 };
enum { I_FREE, I_CAND, I_OPEN };

struct dd_node {
	int64_t heard_recv;      /* arrival of its last own report; 0: never heard */
	int64_t heard_time;      /* the latest time_ms of its own reports */
	uint32_t lru_prev, lru_next; /* the silence list: oldest heard first */
	uint32_t facts;          /* its facts */
	uint32_t uidx;           /* in the unexplained-silence list, DD_NONE */
	uint32_t ldm;            /* the LDM word of its last heartbeat */
	uint32_t boot_n;         /* as a reporter: the newest run ("x,y,z#n") seen, 0 none */
	uint8_t flags;           /* N_* */
	uint8_t iso;             /* enum dd_iso */
	uint8_t pad[2];
};

struct dd_fact {
	uint32_t next;           /* its node's next fact; the free list */
	uint32_t iprev, inext;   /* its incident's list */
	uint32_t node, reporter, inc;
	uint32_t boot;           /* hash of the last report's boot id (copies) */
	uint16_t code, comp;     /* interned code; K_GENERIC: its component */
	uint8_t kind, link, via, status;
	uint8_t flags;           /* F_* */
	uint8_t rule;            /* as last deduced */
	uint8_t live;
	uint8_t pad;
	uint64_t seq;
	int64_t first_ms;        /* event time of its first report */
	int64_t recv_ms;         /* arrival of its first report */
};

struct dd_evrec {
	uint32_t next;
	uint32_t origin;         /* the fact it came with, DD_NONE */
	struct apenet_deduce_evidence ev;
};

struct dd_inc {
	uint64_t key;
	int64_t ref;
	uint32_t node;           /* DD_NONE: the supervisor's */
	uint16_t comp;
	uint8_t aux;             /* cable: its canonical end's link; module, link, cabling: the link;
				  * supervisor: 0 peer, 1 self */
	uint8_t state;           /* I_* */
	uint8_t rule, srcmask, status, restored;
	uint8_t lost_by_clear;   /* its last fact went by a clear, not a move */
	uint8_t mark;            /* touched in this pass */
	uint8_t hashed;          /* in the hash by (comp, node, aux) */
	uint8_t announced;       /* a candidate said provisionally (OPEN provisional) */
	uint8_t amark;           /* in the announce list */
	uint8_t said_aux, said_rule; /* the blame last said of it while provisional */
	uint16_t said_comp;
	uint32_t said_node;
	uint32_t gen;            /* slot generation, in the key */
	uint32_t nfacts, fhead;
	uint32_t hnext;          /* hash chain */
	uint32_t lprev, lnext;   /* candidates, or restored incidents on hold */
	uint32_t moved_to;       /* where its last fact moved */
	uint32_t adopted;        /* a candidate: facts it took from open incidents */
	uint32_t evhead, evtail, nbuf; /* evidence buffered while a candidate */
	uint64_t nevidence, emitted;
	int64_t settle_from;     /* arrival of its first fact */
	int64_t first_ms;        /* event time of the first fault */
	int64_t last_ms;         /* event time of its latest evidence */
	int64_t hold_until;      /* restored: kept without evidence until then */
	struct apenet_deduce_evidence first;
};

/* A fact of an older boot of its reporter, dropped at `at` unless said
 * again by the new one. */
struct dd_expire {
	uint32_t fact, boot;
	int64_t at;
};

struct dd_vec {
	uint32_t *v;
	uint32_t n, cap;
};

struct apenet_deduce {
	struct apenet_deduce_config c;
	uint32_t n;              /* nodes */
	struct dd_node *node;
	struct dd_fact *fact;
	uint32_t nfact, capfact, ffree, live_facts;
	struct dd_inc *inc;
	uint32_t ninc, capinc, ifree, ncand, nopen;
	uint32_t *bucket;
	uint32_t nbucket, nhashed;
	struct dd_evrec *evr;
	uint32_t nevr, capevr, efree;
	uint32_t lru_head, lru_tail;
	uint32_t cand_head;      /* candidates */
	uint32_t hold_head;      /* restored incidents on hold */
	struct dd_vec dirty, rekey, touched, ulist;
	struct dd_vec announce;  /* candidates whose provisional blame may have to be said */
	struct dd_expire *exp;   /* in time order */
	uint32_t nexp, capexp, hexp;
	struct apenet_deduce_action *q;
	size_t qhead, qlen, qcap;
	char (*str)[32];         /* interned codes and component names */
	uint32_t nstr, capstr;
	uint16_t *strhash;
	uint32_t nstrhash;
	int64_t now, start;
	int started;
	uint32_t heard, silent;
	/* the report being taken in: what a CLOSE it causes names */
	const struct apenet_deduce_evidence *cause;
	int oom;                 /* an allocation failed: evidence was dropped */
	struct apenet_deduce_stats st;
};

/* ---- deduce_map.c ---- */
struct dd_class {
	uint8_t kind, link, down;
	uint16_t comp;
};
int apenet_deduce_classify(struct apenet_deduce *d, const struct apenet_report *r, struct dd_class *k);
uint8_t apenet_deduce_dir_of(const char *name);
const char *apenet_deduce_dir_name(uint8_t dir);
uint32_t apenet_deduce_index(const struct apenet_deduce *d, unsigned x, unsigned y, unsigned z);
void apenet_deduce_coords(const struct apenet_deduce *d, uint32_t i, unsigned xyz[3]);
/* The node link dir of node i faces, and the link there facing back;
 * DD_NONE when there is none. */
uint32_t apenet_deduce_far(const struct apenet_deduce *d, uint32_t i, uint8_t dir, uint8_t *back);
/* A reporter's node from a boot id "x,y,z#n"; DD_NONE when it names none. */
uint32_t apenet_deduce_reporter(const struct apenet_deduce *d, const char *boot);
/* The run number n of a boot id "x,y,z#n", 0 when there is none. */
uint32_t apenet_deduce_boot_number(const char *boot);
uint32_t apenet_deduce_hash(const char *s);
uint16_t apenet_deduce_intern(struct apenet_deduce *d, const char *s);
const char *apenet_deduce_comp_name(const struct apenet_deduce *d, uint16_t comp);
int apenet_deduce_comp_of(struct apenet_deduce *d, const char *name);
const char *apenet_deduce_rule_name(unsigned rule);
int apenet_deduce_rule_of(const char *name);
unsigned apenet_deduce_rule_strength(unsigned rule);
uint16_t apenet_deduce_rule_comp(unsigned rule);
/* Rules whose candidates wait for explain_ms rather than settle_ms. */
int apenet_deduce_rule_explains(unsigned rule);

/* ---- deduce_store.c ---- */
int apenet_deduce_vec_push(struct dd_vec *v, uint32_t x);
uint32_t apenet_deduce_fact_new(struct apenet_deduce *d, uint32_t node);
void apenet_deduce_fact_free(struct apenet_deduce *d, uint32_t f);
uint32_t apenet_deduce_fact_find(const struct apenet_deduce *d, uint32_t node, uint8_t kind, uint16_t code,
				 uint8_t link, uint32_t reporter, uint8_t via);
uint32_t apenet_deduce_fact_find_kind(const struct apenet_deduce *d, uint32_t node, uint8_t kind);
uint32_t apenet_deduce_inc_new(struct apenet_deduce *d);
void apenet_deduce_inc_free(struct apenet_deduce *d, uint32_t i);
uint32_t apenet_deduce_inc_find(const struct apenet_deduce *d, uint16_t comp, uint32_t node, uint8_t aux);
uint32_t apenet_deduce_inc_by_key(const struct apenet_deduce *d, uint64_t key);
void apenet_deduce_inc_hash(struct apenet_deduce *d, uint32_t i);
void apenet_deduce_inc_unhash(struct apenet_deduce *d, uint32_t i);
void apenet_deduce_list_add(struct apenet_deduce *d, uint32_t *head, uint32_t i);
void apenet_deduce_list_del(struct apenet_deduce *d, uint32_t *head, uint32_t i);
void apenet_deduce_inc_link_fact(struct apenet_deduce *d, uint32_t i, uint32_t f);
void apenet_deduce_inc_unlink_fact(struct apenet_deduce *d, uint32_t i, uint32_t f);
uint32_t apenet_deduce_evrec_new(struct apenet_deduce *d);
void apenet_deduce_evrec_free(struct apenet_deduce *d, uint32_t r);
void apenet_deduce_lru_touch(struct apenet_deduce *d, uint32_t i);
void apenet_deduce_lru_del(struct apenet_deduce *d, uint32_t i);
struct apenet_deduce_action *apenet_deduce_action(struct apenet_deduce *d, int kind, uint32_t inc);
void apenet_deduce_mark_dirty(struct apenet_deduce *d, uint32_t node);
void apenet_deduce_mark_rekey(struct apenet_deduce *d, uint32_t node);
void apenet_deduce_touch(struct apenet_deduce *d, uint32_t inc);

/* ---- deduce_rules.c ---- */
/* Recomputes the dirty nodes' verdicts and the incidents of the facts of
 * every node they affect, then settles the incidents touched. */
void apenet_deduce_pass(struct apenet_deduce *d);
/* Only the verdicts and the facts' incidents, not the settling: a new
 * fact's evidence is attached to its incident before that can open. */
void apenet_deduce_assign_pass(struct apenet_deduce *d);
int apenet_deduce_node_silent(const struct apenet_deduce *d, uint32_t n);

/* ---- deduce_inc.c ---- */
/* A fact goes to the incident (comp, node, aux) with a rule: attached,
 * moved from its candidate, moved from an open incident to a stronger
 * explanation, or left where it is. */
void apenet_deduce_assign(struct apenet_deduce *d, uint32_t f, uint16_t comp, uint32_t node, uint8_t aux,
			  unsigned rule);
/* A fact's evidence: emitted for an open incident, buffered for a candidate. */
void apenet_deduce_add_evidence(struct apenet_deduce *d, uint32_t inc, uint32_t origin,
				const struct apenet_deduce_evidence *ev);
/* A fact goes (cleared). */
void apenet_deduce_fact_drop(struct apenet_deduce *d, uint32_t f);
/* The incidents touched: empty candidates go, empty open ones close, merge
 * or take a candidate's blame. */
void apenet_deduce_reconcile(struct apenet_deduce *d);
/* Candidates whose settle window passed open; restored ones whose hold
 * passed close when nothing supports them. */
void apenet_deduce_due(struct apenet_deduce *d);
/* Provisional: the candidates touched that are not said yet open
 * provisionally, those whose blame changed are re-blamed. */
void apenet_deduce_announce(struct apenet_deduce *d);
void apenet_deduce_blame(const struct apenet_deduce *d, const struct dd_inc *I, struct apenet_deduce_blame *b);
/* Evidence of the supervisor's own about node n (DD_NONE: none), now. */
void apenet_deduce_own_evidence(const struct apenet_deduce *d, uint32_t n, struct apenet_deduce_evidence *ev);

#endif
