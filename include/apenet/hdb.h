/*
 * The cluster health database (db/; docs/design.md, "The health database").
 *
 * One sqlite file per supervisor: the cluster's nodes and links, every
 * health transition the agents reported, the latest heartbeat of each node,
 * the incidents the supervisor deduced with their evidence, and the cables
 * seen.  The supervisor writes it through this library and every reader
 * (`apenet health`, apenet-top, the post-mortem report, SNMP) reads it
 * through this library: there is no SQL outside db/.
 *
 * The file: WAL, a busy timeout, foreign keys on, integer epoch-millisecond
 * timestamps, `PRAGMA application_id` "APhd" and the schema version in
 * `PRAGMA user_version`.  An older schema is upgraded when the file is opened
 * read-write; a newer one, another program's file or a damaged one is
 * refused with an error naming the file and why, and is left as it is.
 *
 * Writing: one writer per file (the supervisor), in batches:
 *
 *     apenet_hdb_begin(db, &e);
 *     for each report received: apenet_hdb_put_report(db, &r, now_ms, &stored, &e);
 *     if (apenet_hdb_commit(db, &e) == 0) acknowledge them all;
 *     else nothing was stored: acknowledge nothing (the agents resend).
 *
 * A commit is durable (synchronous=FULL: the WAL is fsynced before COMMIT
 * returns), so an acknowledged transition is on disk.  The times of routine
 * heartbeats are the one deliberate exception (apenet_hdb_set_heartbeat_flush):
 * see there.  A call made outside a batch runs in a transaction of its own;
 * a call that fails half-way inside a batch leaves it able only to roll
 * back (commit refuses it); a call refused for bad input changes nothing
 * and the batch goes on.
 *
 * The library never exits and never prints; errors come back in struct
 * apenet_err naming the file and the operation, and the few things worth
 * telling beside a return value (a migration, a failed flush at close) go
 * through apenet_log.  A handle is used by one thread at a time.  Readers'
 * callbacks return 0 to go on, anything else to stop (the reader then
 * returns 0); a callback may call other functions on the same handle, but
 * not the reader that is calling it.
 */
#ifndef APENET_HDB_H
#define APENET_HDB_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

/* PRAGMA application_id of a health database ("APhd"): a sqlite file without
 * it is someone else's and is never written. */
#define APENET_HDB_APP_ID 0x41506864
/* The schema this library writes (PRAGMA user_version). */
#define APENET_HDB_SCHEMA 5

struct apenet_hdb;

/* ---- opening ---- */

enum apenet_hdb_flags {
	APENET_HDB_READONLY = 1,    /* readers: never writes, refuses an old schema */
	APENET_HDB_CREATE = 2,      /* make the file when it does not exist (read-write only) */
	APENET_HDB_QUICK_CHECK = 4, /* PRAGMA quick_check before use (always done before a migration) */
};

/* Opens (or creates) path.  Read-write: upgrades an older schema, loads the
 * nodes' latest boots and heartbeats into memory (the heartbeat path needs
 * no SQL read).  Refused, left unchanged, with the reason in e: a file that
 * is not sqlite, another program's database, a newer schema, a damaged file,
 * an older schema opened read-only.  APENET_EBUSY when another process holds
 * the file longer than the busy timeout (5 s). */
int apenet_hdb_open(const char *path, unsigned flags, struct apenet_hdb **out, struct apenet_err *e);
/* Rolls back an open batch, writes the times waiting for the flush (a
 * failure is logged), closes.  NULL is fine. */
void apenet_hdb_close(struct apenet_hdb *db);
const char *apenet_hdb_file(const struct apenet_hdb *db);

/* Makes a new database at path at schema version 1..APENET_HDB_SCHEMA (not
 * the latest: to test migrations, or to hand a tool an old file).  Refuses
 * an existing file. */
int apenet_hdb_create_at(const char *path, int version, struct apenet_err *e);

/* ---- batches ---- */

/* BEGIN IMMEDIATE: the write lock is taken now, not at the first write. */
int apenet_hdb_begin(struct apenet_hdb *db, struct apenet_err *e);
/* Writes the times if the flush is due, then COMMIT (fsynced).  On failure
 * the batch is rolled back and nothing of it is stored. */
int apenet_hdb_commit(struct apenet_hdb *db, struct apenet_err *e);
/* Undoes the open batch (the in-memory heartbeat state too).  No batch: no-op. */
void apenet_hdb_rollback(struct apenet_hdb *db);

/*
 * The times of a node (heard from it, heard of it through the torus, its
 * latest heartbeat's sequence and times) are kept in memory by the writer
 * and reach the file at the first commit at least ms after the last flush
 * (default 1000 ms): every changed node's row at once, in row order.  What
 * carries news is written in its own batch: transitions and current
 * states, a new boot, a heartbeat's changed LDM word (with its times).
 * So a routine heartbeat (same boot, same word: "still alive at t") costs
 * no write of its own.  Why: at 32,768 nodes a batch of 1000 heartbeats
 * touches most pages of the table, and writing them at every commit costs
 * over twice the CPU and 25 times the bytes written (bench/bench_hdb.c).  What
 * it costs: after a crash the times on file may be up to ms older than
 * what was acknowledged (the next heartbeat, a period later, says it
 * again), and readers see times as of the last flush: a silence limit must
 * be longer than the flush interval plus the heartbeat period.  0: the
 * times are written with every report (an acknowledged heartbeat is then
 * on disk too).
 */
void apenet_hdb_set_heartbeat_flush(struct apenet_hdb *db, unsigned ms);
/* Writes the times waiting for the flush now (in the open batch, or in a
 * transaction of its own). */
int apenet_hdb_flush(struct apenet_hdb *db, struct apenet_err *e);

struct apenet_hdb_stats {
	uint64_t transitions;        /* stored since open */
	uint64_t duplicates;         /* reports already stored (same boot, sequence) */
	uint64_t stale;              /* transitions stored but not applied: from a boot already replaced */
	uint64_t heartbeats;         /* accepted */
	uint64_t heartbeats_ignored; /* older than or the same as the latest */
	uint64_t seen_written;       /* node_seen rows written (at once, or by a flush) */
	uint64_t flushes;
	uint64_t batches, rollbacks;
	unsigned deferred;           /* nodes whose times wait for the next flush */
};
void apenet_hdb_stats(const struct apenet_hdb *db, struct apenet_hdb_stats *st);

/* ---- the cluster's layout ---- */

/* Links, in the order of the LDM's and the card's: X+ X- Y+ Y- Z+ Z-. */
enum { APENET_HDB_NLINKS = 6 };
/* "X+" ... "Z-"; "?" out of range. */
const char *apenet_hdb_link_name(int link);
/* 0..5, or -1. */
int apenet_hdb_link_index(const char *name);
/* The far end of link of node xyz on a torus of dims (wraparound in every
 * dimension): its node and its link.  -1 when there is no such link (a
 * dimension of size 1, or xyz outside dims).  On a dimension of size 2, X+
 * and X- of a node reach the same partner (its X- and X+). */
int apenet_hdb_partner(const unsigned dims[3], const unsigned xyz[3], int link, unsigned far[3], int *far_link);

/* A node's name, NULL or "" for none (e.g. apenet_config_node_name). */
typedef const char *(*apenet_hdb_name_fn)(void *arg, unsigned x, unsigned y, unsigned z);

/* Stores the torus: every node of dims (named through name, which may be
 * NULL) and each node's links with their partners.  Idempotent: a second
 * call with the same layout writes nothing.  Nodes outside new dims keep
 * their history but leave the layout (they show again only while they
 * report); links follow the new dims.  Nodes a report names that the
 * layout does not are added as they come, outside the layout. */
int apenet_hdb_layout(struct apenet_hdb *db, const unsigned dims[3], apenet_hdb_name_fn name, void *arg,
		      struct apenet_err *e);

/* ---- reports ---- */

/*
 * Stores one decoded report, received at recv_ms (the supervisor's clock).
 * The boot id ("x,y,z#N") names the reporter; r->x,y,z is the node the
 * report is about (a neighbour, for PATH_NEIGHBOUR_LDM).
 *
 * A health transition becomes a row (deduplicated by boot id and sequence:
 * a copy sets *stored 0 and writes nothing), updates the current state of
 * (node, reporter, subject, where, code), the reporter's "heard on the
 * service network" times and, for a neighbour's LDM, the node's "heard
 * through the torus" times.  A transition from a boot older than the
 * reporter's latest is kept as history but changes no current state.  A new
 * boot of a reporter forgets the states its previous boot reported (the new
 * agent reports again what is still wrong).
 *
 * A heartbeat updates the node's latest heartbeat (one row a node, not a
 * row a heartbeat): an older one (same boot, lower or equal sequence; or an
 * older boot) sets *stored 0 and is ignored.
 *
 * Texts must be terminated within their arrays; statuses 0..3; -1 with
 * APENET_EINVAL when not, or when the boot id does not name its reporter.
 */
int apenet_hdb_put_report(struct apenet_hdb *db, const struct apenet_report *r, int64_t recv_ms, int *stored,
			  struct apenet_err *e);

/* ---- incidents ---- */

/* How a piece of evidence was learnt: the report paths, plus the
 * supervisor's own deduction (silence, the absence of something). */
enum apenet_hdb_path {
	APENET_HDB_PATH_SELF = APENET_REPORT_PATH_SELF,
	APENET_HDB_PATH_NEIGHBOUR_LDM = APENET_REPORT_PATH_NEIGHBOUR_LDM,
	APENET_HDB_PATH_WATCHDOG = APENET_REPORT_PATH_WATCHDOG,
	APENET_HDB_PATH_SUPERVISOR = 4,
};
/* "self", "neighbour-ldm", "watchdog", "supervisor", "?". */
const char *apenet_hdb_path_name(int path);

enum apenet_hdb_incident_state { APENET_HDB_OPEN = 1, APENET_HDB_CLOSED = 2, APENET_HDB_MERGED = 3 };
/* "open", "closed", "merged", "?". */
const char *apenet_hdb_state_name(int state);

struct apenet_hdb_evidence {
	int64_t id;              /* readers */
	int64_t time_ms;
	int path;                /* enum apenet_hdb_path */
	char reporter[40];       /* the reporting agent's boot id, or "supervisor", or "" */
	uint64_t seq;            /* with reporter: the transition it came from (linked when stored), 0: none */
	int64_t transition_id;   /* readers: that transition's row, 0 when none (or retained away) */
	char text[200];
};

struct apenet_hdb_incident {
	int64_t id;              /* readers, and what incident_open returns */
	char component[32];      /* "host", "dnp", "card", "node-power", "cable", "service-network",
				    "supervisor", "sensor:temperature", ... */
	unsigned node[3];
	char node_name[64];      /* readers */
	char link[8];            /* "" none */
	int has_far;             /* a cable: its far end */
	unsigned far[3];
	char far_link[8];
	char rule[64];           /* the deduction rule that blamed it */
	int state;               /* enum apenet_hdb_incident_state (readers) */
	int64_t opened_ms;
	int64_t closed_ms;       /* 0 while open */
	int64_t settled_ms;      /* when its blame settled: from then on it may be acted on; 0: provisional
				  * (open), or withdrawn before it settled (closed, merged) */
	int64_t merged_into;     /* 0 none */
	struct apenet_hdb_evidence first; /* the first fault */
	unsigned evidence;       /* readers: how many evidence rows */
};

/* Opens an incident: component, node, link and far end, rule, opened_ms,
 * settled_ms (0: provisional, its blame may still change) and the first
 * fault (first.time_ms, path, text, and reporter and seq when it came from a
 * report), which is also its first evidence row. */
int apenet_hdb_incident_open(struct apenet_hdb *db, const struct apenet_hdb_incident *in, int64_t *id,
			     struct apenet_err *e);
/* One more piece of evidence for an incident (open or not). */
int apenet_hdb_incident_evidence(struct apenet_hdb *db, int64_t id, const struct apenet_hdb_evidence *ev,
				 struct apenet_err *e);

/* What apenet_hdb_incident_update changes. */
enum {
	APENET_HDB_SET_COMPONENT = 1,
	APENET_HDB_SET_RULE = 2,
	APENET_HDB_SET_NODE = 4,
	APENET_HDB_SET_LINK = 8, /* link, has_far, far, far_link */
	APENET_HDB_SET_SETTLED = 16, /* settled_ms: a provisional incident settles (once) */
	APENET_HDB_SET_FIRST = 32,   /* opened_ms and the first fault: an earlier one arrived (a spooled
				      * report, or a re-blamed provisional incident's evidence) */
};
/* Re-blames an open incident: the fields of in named by the mask. */
int apenet_hdb_incident_update(struct apenet_hdb *db, int64_t id, const struct apenet_hdb_incident *in, unsigned fields,
			       struct apenet_err *e);
/* Closes an open incident at when_ms as APENET_HDB_CLOSED, or as
 * APENET_HDB_MERGED into another (existing, not itself) incident. */
int apenet_hdb_incident_close(struct apenet_hdb *db, int64_t id, int64_t when_ms, int state, int64_t merged_into,
			      struct apenet_err *e);
/* 1 with *out filled, 0 when there is no such incident, -1. */
int apenet_hdb_incident_get(struct apenet_hdb *db, int64_t id, struct apenet_hdb_incident *out, struct apenet_err *e);

typedef int (*apenet_hdb_incident_fn)(void *arg, const struct apenet_hdb_incident *in);
typedef int (*apenet_hdb_evidence_fn)(void *arg, const struct apenet_hdb_evidence *ev);
/* The open incidents whose blame settled, oldest first: what a restarted
 * supervisor continues, and all that whatever acts on incidents may see
 * (the MIB's table, `apenet health`'s open list and exit code, top). */
int apenet_hdb_incidents_open_each(struct apenet_hdb *db, apenet_hdb_incident_fn cb, void *arg, struct apenet_err *e);
/* The open incidents not settled yet (provisional), oldest first. */
int apenet_hdb_incidents_provisional_each(struct apenet_hdb *db, apenet_hdb_incident_fn cb, void *arg,
					  struct apenet_err *e);
/* Incidents opened in [from_ms, to_ms) (all of them: 0, INT64_MAX), oldest
 * first: which APENET_HDB_SETTLED (0) the settled ones, open or not (never
 * one withdrawn before it settled); APENET_HDB_SETTLED_OPEN (1) the settled
 * ones still open; APENET_HDB_EVERY_ROW (2) every row, provisional and
 * withdrawn ones too (settled_ms 0: nothing may act on them). */
enum { APENET_HDB_SETTLED = 0, APENET_HDB_SETTLED_OPEN = 1, APENET_HDB_EVERY_ROW = 2 };
int apenet_hdb_incidents_each(struct apenet_hdb *db, int which, int64_t from_ms, int64_t to_ms,
			      apenet_hdb_incident_fn cb, void *arg, struct apenet_err *e);
/* An incident's evidence in time order. */
int apenet_hdb_evidence_each(struct apenet_hdb *db, int64_t incident, apenet_hdb_evidence_fn cb, void *arg,
			     struct apenet_err *e);

/* ---- the batch scheduler's actions (include/apenet/slurm.h) ---- */

struct apenet_hdb_slurm_action {
	int64_t id;              /* readers */
	int64_t incident;
	unsigned node[3];
	char host[64];           /* its Slurm name; "" when cluster.nodes names none */
	int verb;                /* enum apenet_slurm_verb */
	int outcome;             /* enum apenet_slurm_outcome */
	char message[256];       /* in words: the outcome, and what Slurm said */
	int64_t time_ms;
};
/* One action and its outcome (its own transaction outside a batch). */
int apenet_hdb_slurm_add(struct apenet_hdb *db, const struct apenet_hdb_slurm_action *a, struct apenet_err *e);
typedef int (*apenet_hdb_slurm_fn)(void *arg, const struct apenet_hdb_slurm_action *a);
/* An incident's actions in the order they were recorded. */
int apenet_hdb_slurm_each(struct apenet_hdb *db, int64_t incident, apenet_hdb_slurm_fn cb, void *arg,
			  struct apenet_err *e);
/* The nodes the incident holds drained (its latest action on each holds
 * it: apenet_slurm_holds), at most max into out, how many in *n. */
int apenet_hdb_slurm_held(struct apenet_hdb *db, int64_t incident, unsigned (*out)[3], unsigned max, unsigned *n,
			  struct apenet_err *e);
/* Another open incident than except that holds node drained: its id in
 * *holder, 0 when none. */
int apenet_hdb_slurm_holder(struct apenet_hdb *db, const unsigned node[3], int64_t except, int64_t *holder,
			    struct apenet_err *e);

/* ---- cables (cable qualification and BER history) ---- */

struct apenet_hdb_cable {
	char serial[32];         /* the key */
	char vendor[32];
	char part[32];
	double length_m;         /* NaN: unknown */
	int has_a, has_b;        /* each end: its node and link, when known */
	unsigned a[3];
	char a_link[8];
	unsigned b[3];
	char b_link[8];
	int64_t first_ms, last_ms; /* readers */
};

/* Inserts or updates the cable with this serial, seen at when_ms: vendor,
 * part and length replace the stored ones when given (non-empty, not NaN);
 * an end given replaces the stored end. */
int apenet_hdb_cable_seen(struct apenet_hdb *db, const struct apenet_hdb_cable *c, int64_t when_ms,
			  struct apenet_err *e);
/* 1 found, 0 not, -1. */
int apenet_hdb_cable_get(struct apenet_hdb *db, const char *serial, struct apenet_hdb_cable *out, struct apenet_err *e);

/* ---- certificates (`apenet qualify`, `apenet cable`) ---- */

struct apenet_hdb_cert {
	int64_t id;              /* readers, and what cert_put returns */
	char serial[32];         /* the cable: the tested end's module serial (stored in cable first) */
	unsigned node[3];        /* the tested end */
	char link[8];
	int has_far;
	unsigned far[3];
	char far_link[8];
	char pattern[8];         /* "prbs31" */
	double target, cl;
	char verdict[16];        /* "pass", "fail", "inconclusive" */
	uint64_t bits, errors;   /* pooled over the lanes and both directions */
	double upper, lower;
	int swept;               /* the defaults failed, a sweep chose the setting */
	char pma_near[96];       /* each lane's six settings, "vod/pre/post1/post2/rxeq/dcgain" space-separated */
	char pma_far[96];
	char lanes[2048];        /* the lanes as JSON: [{"lane", "from", "to", "bits", "errors", ...}] */
	int64_t started_ms, finished_ms;
};
/* Stores a certificate (its cable must be stored, apenet_hdb_cable_seen). */
int apenet_hdb_cert_put(struct apenet_hdb *db, const struct apenet_hdb_cert *c, int64_t *id, struct apenet_err *e);
typedef int (*apenet_hdb_cert_fn)(void *arg, const struct apenet_hdb_cert *c);
/* A cable's certificates, newest first. */
int apenet_hdb_certs_each(struct apenet_hdb *db, const char *serial, apenet_hdb_cert_fn cb, void *arg,
			  struct apenet_err *e);

/* ---- retention ---- */

/* Deletes the transitions received before older_than_ms (the supervisor's
 * clock), except those that are evidence of an open incident.  Returns how
 * many went, or -1.  Incidents are never deleted. */
int64_t apenet_hdb_retention(struct apenet_hdb *db, int64_t older_than_ms, struct apenet_err *e);

/* Rebuilds the file to its smallest size (VACUUM), after writing the times
 * waiting for the flush.  Not inside a batch; the file must not be in use
 * by another writer. */
int apenet_hdb_vacuum(struct apenet_hdb *db, struct apenet_err *e);

/* ---- readers ---- */

/* A node's class, given a time and a silence limit. */
enum apenet_hdb_class {
	APENET_HDB_NORMAL = 0,
	APENET_HDB_SICK = 1,
	APENET_HDB_BROKEN = 2, /* broken or invalid */
	APENET_HDB_SILENT = 3, /* nothing from it on the service network within the limit */
};
/* "normal", "sick", "broken", "silent", "?". */
const char *apenet_hdb_class_name(int cls);

struct apenet_hdb_summary {
	unsigned nodes;          /* the layout's, plus nodes outside it heard within the limit */
	unsigned normal, sick, broken, silent;
	unsigned torus_only;     /* of the silent: heard through the torus within the limit */
	unsigned outside_layout; /* of nodes: not in the layout */
	unsigned open_incidents;
	int64_t last_recv_ms;    /* the latest report stored, 0 none */
};
int apenet_hdb_summary(struct apenet_hdb *db, int64_t now_ms, int64_t silence_ms, struct apenet_hdb_summary *s,
		       struct apenet_err *e);
/* The open incidents alone (a reader that has the node list counts the
 * classes itself: apenet-top). */
int apenet_hdb_open_incidents(struct apenet_hdb *db, unsigned *n, struct apenet_err *e);

struct apenet_hdb_node {
	unsigned x, y, z;
	char name[64];
	int in_layout;
	char boot[40];           /* its agent's latest boot id, "" never heard */
	int64_t self_ms, self_recv_ms;   /* latest report from the node itself: its time, received; 0 never */
	int64_t torus_ms, torus_recv_ms; /* latest neighbour's LDM report about it */
	uint64_t hb_seq;         /* its latest heartbeat (0: none) */
	int64_t hb_ms, hb_recv_ms;
	uint32_t ldm;
	char summary[200];
	int worst;               /* enum apenet_ldm_status: its worst current state, 0 none */
	int64_t changed_ms;      /* the time of its latest current state, 0 none */
	int cls;                 /* enum apenet_hdb_class */
};
typedef int (*apenet_hdb_node_fn)(void *arg, const struct apenet_hdb_node *n);
/* Nodes worst first: broken, silent, sick, normal; within a class the most
 * recently changed first, then by coordinates.  limit 0: all. */
int apenet_hdb_nodes_each(struct apenet_hdb *db, int64_t now_ms, int64_t silence_ms, size_t limit,
			  apenet_hdb_node_fn cb, void *arg, struct apenet_err *e);
/* 1 found, 0 no such node, -1. */
int apenet_hdb_node_get(struct apenet_hdb *db, const unsigned xyz[3], int64_t now_ms, int64_t silence_ms,
			struct apenet_hdb_node *out, struct apenet_err *e);

/* One current state: the latest transition of (node, reporter, subject,
 * where, code) from the reporter's current boot, when it is not normal (a
 * state back to normal is forgotten). */
struct apenet_hdb_state {
	unsigned node[3];
	unsigned reporter[3];
	char boot[40];
	uint64_t seq;
	int subject;             /* enum apenet_report_subject */
	char where[24];
	char code[32];
	int status;              /* enum apenet_ldm_status */
	int path;
	char via[8];
	int64_t time_ms;
};
typedef int (*apenet_hdb_state_fn)(void *arg, const struct apenet_hdb_state *s);
/* A node's current states of at least min_status (1: all of them, 2:
 * broken and invalid), worst first, then newest first. */
int apenet_hdb_node_states_each(struct apenet_hdb *db, const unsigned xyz[3], int min_status, apenet_hdb_state_fn cb,
				void *arg, struct apenet_err *e);

struct apenet_hdb_link {
	unsigned node[3];
	char name[4];            /* "X+" */
	unsigned partner[3];
	char partner_name[64];
	char partner_link[4];
	int status;              /* the worst current state at this end (where = the link), 0 normal */
	int partner_status;      /* the same at the far end */
};
typedef int (*apenet_hdb_link_fn)(void *arg, const struct apenet_hdb_link *l);
/* A node's links in X+ X- Y+ Y- Z+ Z- order. */
int apenet_hdb_links_each(struct apenet_hdb *db, const unsigned xyz[3], apenet_hdb_link_fn cb, void *arg,
			  struct apenet_err *e);

struct apenet_hdb_transition {
	int64_t id;
	char boot[40];
	uint64_t seq;
	unsigned reporter[3];
	unsigned node[3];        /* the node it is about */
	int subject;
	char where[24];
	char code[32];
	int old_status, new_status;
	double value, threshold; /* NaN: none */
	char unit[16];
	char evidence[200];
	int path;                /* enum apenet_hdb_path */
	char via[8];
	int64_t time_ms, recv_ms;
};
typedef int (*apenet_hdb_transition_fn)(void *arg, const struct apenet_hdb_transition *t);
/* Transitions seen in [from_ms, to_ms) (their own time), about one node
 * (xyz) or all (NULL), ordered by time, then boot id, then sequence. */
int apenet_hdb_transitions_each(struct apenet_hdb *db, int64_t from_ms, int64_t to_ms, const unsigned *xyz,
				apenet_hdb_transition_fn cb, void *arg, struct apenet_err *e);

/* How many transitions [from_ms, to_ms) holds, about xyz or all (NULL). */
int apenet_hdb_transitions_count(struct apenet_hdb *db, int64_t from_ms, int64_t to_ms, const unsigned *xyz,
				 uint64_t *n, struct apenet_err *e);

/* ---- the post-mortem report's readers ---- */

/* The torus the layout stored: 1 with dims, 0 when none was stored (dims
 * 0,0,0), -1. */
int apenet_hdb_dims(struct apenet_hdb *db, unsigned dims[3], struct apenet_err *e);
/* The cable last seen at this link end (either of its ends): 1 with *out,
 * 0 none known, -1. */
int apenet_hdb_cable_at(struct apenet_hdb *db, const unsigned xyz[3], const char *link, struct apenet_hdb_cable *out,
			struct apenet_err *e);
/* Incidents that named this link end (as theirs or as the far end),
 * opened before before_ms, settled ones, newest first, at most limit (0: all). */
int apenet_hdb_link_incidents_each(struct apenet_hdb *db, const unsigned xyz[3], const char *link, int64_t before_ms,
				   unsigned limit, apenet_hdb_incident_fn cb, void *arg, struct apenet_err *e);
/* The incidents merged into one, oldest first. */
int apenet_hdb_merged_each(struct apenet_hdb *db, int64_t into, apenet_hdb_incident_fn cb, void *arg,
			   struct apenet_err *e);

/* ---- checking (`apenet db check`) ---- */

typedef void (*apenet_hdb_problem_fn)(void *arg, const char *problem);
/* PRAGMA integrity_check and foreign_key_check, the schema version and
 * application id, and the library's own invariants (every evidence row's
 * incident exists, merged_into names an existing other incident and only
 * merged ones have it, open incidents are not closed and closed ones are,
 * every node has its node_seen row, current states come from their
 * reporter's current boot and are not normal, links are symmetric, statuses
 * and paths in range).  Each problem goes to cb (may be NULL).  Returns how
 * many were found (0: good), or -1 when the check could not run. */
int apenet_hdb_check(struct apenet_hdb *db, apenet_hdb_problem_fn cb, void *arg, struct apenet_err *e);

#endif
