/*
 * Systemic deduction: the supervisor's engine that turns the reports of both
 * paths (a node's own, over the service network; its neighbours', through
 * the torus) into incidents, one per real fault, each blaming one component
 * on one node (docs/supervisor.md, "Systemic deduction").
 *
 * Pure C, no I/O, no clock: the daemon hands it every stored (deduplicated)
 * report and heartbeat with the time it arrived, tells it that time passes,
 * and drains the actions it queues (open, evidence, re-blame, settle,
 * close), which it writes to the health database.
 *
 * An incident opens provisionally at its first evidence and is re-blamed in
 * place as its neighbours' words arrive; it settles when its window passes
 * (settle_ms after the first evidence; explain_ms for a silence nothing
 * explains yet).  Only a settled incident's blame may be acted on; one
 * whose evidence clears before it settles is withdrawn (closed unsettled).
 *
 *     struct apenet_deduce *d;
 *     apenet_deduce_open(&cfg, &d, &e);
 *     ... for every report stored:  apenet_deduce_report(d, &r, now_ms);
 *     ... every ~100 ms:             apenet_deduce_tick(d, now_ms);
 *     while (apenet_deduce_next_action(d, &a)) write a to the database;
 *
 * What it keeps is bounded by the faults, not by the cluster: ~40 bytes a
 * node (32,768 nodes: 1.3 MB), one small record per piece of live evidence,
 * one per incident; a tick costs what became silent or due since the last.
 */
#ifndef APENET_DEDUCE_H
#define APENET_DEDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

struct apenet_deduce_config {
	unsigned dims[3];        /* the torus (x, y, z); every dimension at least 1 */
	int64_t silent_ms;       /* no report from a node itself for this long: silent (3 heartbeats of 1 s) */
	int64_t settle_ms;       /* wait this long after the first evidence for the rest before opening */
	int64_t explain_ms;      /* a silence with nothing (or only a sick service field) to explain it
				  * waits this long for its explanation (the neighbours' words) */
	int64_t late_ms;         /* a report that arrives this much after it was seen comes from a spool:
				  * history, not news (node clocks agree within a fraction of it) */
	int64_t restore_hold_ms; /* a restored incident with no evidence closes after this */
	int64_t resync_ms;       /* an agent restarted (a new boot id) says again what is still wrong
				  * within this (rates need baseline_s): its older reports not said
				  * again by then are superseded */
	unsigned evidence_max;   /* pieces of evidence emitted per incident; the rest are counted */
	unsigned group_min;      /* this many unexplained silences at once: this supervisor is cut off */
	/* Not a supervisor key: 1 (the defaults, and the supervisor's) opens an
	 * incident provisionally at its first evidence (OPEN, provisional) and
	 * re-blames it as the rest arrives, then SETTLEs it when the window
	 * passes; 0 says nothing until it settles (one OPEN, the settled
	 * blame: the view of whatever acts on an incident). */
	int provisional;
};

/* The settings other than dims are the supervisor's keys of the same
 * names (the `supervisor:` section): their defaults and ranges are that
 * table's (common/config.c), stated there once. */
struct apenet_supervisor_config;
/* dims 4x4x1, the rest the config's defaults. */
void apenet_deduce_config_defaults(struct apenet_deduce_config *c);
/* The settings a supervisor runs with: its config's and the cluster's dims. */
void apenet_deduce_config_from(struct apenet_deduce_config *c, const struct apenet_supervisor_config *s,
			       const unsigned dims[3]);
/* Names the bad setting (outside the config's range for its key); 0 or -1. */
int apenet_deduce_config_check(const struct apenet_deduce_config *c, struct apenet_err *e);

struct apenet_deduce;

int apenet_deduce_open(const struct apenet_deduce_config *c, struct apenet_deduce **out, struct apenet_err *e);
void apenet_deduce_close(struct apenet_deduce *d);

/* A stored report (health transition or heartbeat), recv_ms when it
 * arrived (the supervisor's clock).  Any report the node sends itself says
 * its service path is alive.  A report about a node outside the torus is
 * counted and ignored; a copy of the last report of a fact (same boot id
 * and sequence) changes nothing; a report of an older boot of its reporter
 * than one already seen only says the node is alive. */
void apenet_deduce_report(struct apenet_deduce *d, const struct apenet_report *r, int64_t recv_ms);
/* Seeds when a node was last heard (from the database, at start): its
 * silence is then judged from there. */
void apenet_deduce_heard(struct apenet_deduce *d, unsigned x, unsigned y, unsigned z, int64_t recv_ms,
			 int64_t time_ms);
/* Time passes: silences, settle windows, restored incidents' holds. */
void apenet_deduce_tick(struct apenet_deduce *d, int64_t now_ms);

enum apenet_deduce_kind {
	APENET_DEDUCE_OPEN = 1, /* a new incident: blame and first fault */
	APENET_DEDUCE_EVIDENCE, /* one more piece of evidence of an open incident */
	APENET_DEDUCE_REBLAME,  /* the incident blames another component, node or rule */
	APENET_DEDUCE_CLOSE,    /* closed (its evidence cleared) or merged into another */
	APENET_DEDUCE_SETTLE,   /* a provisional incident's blame is final: it may be acted on */
};
enum apenet_deduce_close_state { APENET_DEDUCE_CLOSED = 1, APENET_DEDUCE_MERGED = 2 };

/* What an incident blames. */
struct apenet_deduce_blame {
	char component[32];      /* host, dnp, card, node-power, cable, service-network, supervisor, agent,
				  * sensor:temperature, sensor:voltage, sensor:current, pcie, memory,
				  * module, link, cabling, or the report's subject for anything else */
	char rule[32];           /* the deduction rule (docs/supervisor.md) */
	int has_node;            /* 0: the supervisor incidents */
	unsigned x, y, z;        /* the node (a cable: one end) */
	char link[8];            /* its link: cable, module port, link; "" */
	int has_far;             /* a cable: its other end */
	unsigned fx, fy, fz;
	char far_link[8];
	char where[24];          /* supervisor: "peer" (another one is missing) or "self" (this one is) */
	int status;              /* worst status of its evidence: 1 sick, 2 broken */
	char summary[200];       /* one line in words */
};

/* The supervisor's own evidence (a silence, a report superseded, a
 * restored incident): beside enum apenet_report_path's three. */
#define APENET_DEDUCE_PATH_SUPERVISOR 4

/* One piece of evidence: a report, or the supervisor's own observation. */
struct apenet_deduce_evidence {
	int64_t time_ms;         /* when it was seen (the report's time) */
	int64_t recv_ms;         /* when it arrived */
	int path;                /* enum apenet_report_path, or APENET_DEDUCE_PATH_SUPERVISOR */
	char reporter[40];       /* the report's boot id ("1,1,0#7"), or "supervisor" */
	uint64_t seq;
	int kind;                /* enum apenet_report_kind; 0 for the supervisor's own */
	unsigned x, y, z;        /* the node the report is about */
	char code[32];
	char where[24];
	char via[8];
	int old_status, new_status;
	char text[200];
};

struct apenet_deduce_action {
	int kind;                /* enum apenet_deduce_kind */
	uint64_t key;            /* the engine's name of the incident, for its whole life */
	int64_t ref;             /* the caller's id for it (apenet_deduce_set_ref), 0 when not set yet */
	int64_t time_ms;         /* OPEN: the first fault; EVIDENCE: the piece's; REBLAME, CLOSE: when */
	struct apenet_deduce_blame blame;   /* OPEN, REBLAME, SETTLE */
	struct apenet_deduce_evidence ev;   /* OPEN: the first fault; EVIDENCE: the piece; CLOSE: what
					     * cleared it (the supervisor's own when time did) */
	int first;               /* EVIDENCE: earlier than the first fault so far: the first fault now */
	int provisional;         /* OPEN: not settled yet (a SETTLE, or a CLOSE that withdraws it, follows);
				  * REBLAME: of a provisional incident; CLOSE: withdrawn, never settled */
	int state;               /* CLOSE: enum apenet_deduce_close_state */
	uint64_t merged_into;    /* CLOSE merged: the incident that took its evidence */
	int64_t merged_into_ref;
	uint64_t nevidence;      /* CLOSE: pieces of evidence it had, emitted or only counted */
};

/* The next queued action: 1 with *a filled, 0 when there is none. */
int apenet_deduce_next_action(struct apenet_deduce *d, struct apenet_deduce_action *a);
/* Remembers the caller's id (a database row) of an incident: later actions
 * carry it as ref. */
void apenet_deduce_set_ref(struct apenet_deduce *d, uint64_t key, int64_t ref);

/* An incident open in the database when the supervisor starts: kept open
 * (no OPEN is queued) and matched to the evidence as it comes, so a
 * restarted supervisor does not open it again.  The daemon seeds the
 * engine in this order: apenet_deduce_restore for each open incident,
 * apenet_deduce_heard for each node, then apenet_deduce_report for the last
 * transition of each fact that is not normal (its latest per reporter,
 * node, code, where).  One that no evidence supports after restore_hold_ms
 * closes.  Returns its key, 0 with e set when the description is not one
 * the engine can hold (an unknown link, a node outside the torus, the same
 * incident twice). */
struct apenet_deduce_restore {
	int64_t ref;
	const char *component, *rule;
	int has_node;
	unsigned x, y, z;
	const char *link;        /* NULL or "" */
	const char *where;       /* supervisor: "peer" or "self" */
	int status;
	int64_t first_ms;
};
uint64_t apenet_deduce_restore(struct apenet_deduce *d, const struct apenet_deduce_restore *r, int64_t now_ms,
			       struct apenet_err *e);

struct apenet_deduce_stats {
	uint64_t reports, heartbeats, ignored, duplicates, stale, superseded;
	uint32_t nodes, heard, silent;
	uint32_t facts, candidates, open;
	uint64_t opened, closed, merged, reblamed, evidence, evidence_counted;
	uint64_t settled, withdrawn; /* provisional incidents settled; closed before they settled */
	size_t bytes;            /* memory held */
};
void apenet_deduce_stats(const struct apenet_deduce *d, struct apenet_deduce_stats *s);

/* "open", "evidence", "reblame", "close", "settle" */
const char *apenet_deduce_kind_name(int kind);

#endif
