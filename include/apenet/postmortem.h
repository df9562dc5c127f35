/*
 * The post-mortem report (report/; `apenet report`, docs/report.md): what
 * failed first, how it spread, what the nodes' black boxes saw in the
 * minutes before, which cables were involved and what to replace.
 *
 * Built in two steps so that the model can be unit-tested without a
 * database and written in every format from one place:
 *
 *     struct apenet_postmortem *pm;
 *     apenet_postmortem_build(db, &query, &pm, &e);      (reads db/ and black boxes)
 *     apenet_postmortem_write_text|json|html(pm, f, &e);
 *     apenet_postmortem_free(pm);
 *
 * The model's parts are also filled by hand in tests (apenet_postmortem_new, then
 * apenet_postmortem_add_* and apenet_postmortem_finish): finish sorts the timeline, finds
 * the first fault and derives the propagation and the recommendations.
 *
 * Times are epoch milliseconds; the writers show them as UTC ISO 8601 with
 * milliseconds (apenet_out_iso_ms) and relative to the first fault.  The library never prints
 * and never exits.
 */
#ifndef APENET_POSTMORTEM_H
#define APENET_POSTMORTEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "apenet/config.h"
#include "apenet/err.h"
#include "apenet/hdb.h"

/* ---- what the report is asked for ---- */

#define APENET_POSTMORTEM_MAX_BBDIRS 16

struct apenet_postmortem_query {
	int64_t incident;        /* > 0: the report of this incident */
	int64_t from_ms, to_ms;  /* else: the window [from, to) */
	int has_node;            /* only what is about this node (and incidents on it) */
	unsigned node[3];
	const char *bbdirs[APENET_POSTMORTEM_MAX_BBDIRS]; /* black-box directories (searched 3 levels down) */
	unsigned nbbdirs;
	size_t max_events;       /* the window's transitions beyond every incident's own (0: all) */
	int64_t before_ms;       /* an incident's timeline starts this long before its first fault */
	int64_t after_ms;        /* ... and ends this long after it closed */
	int64_t now_ms;          /* the time an open incident is reported at */
	const struct apenet_thresholds *thr; /* the limits black-box readings are judged by (NULL: the defaults) */
};
/* An incident's report: 60 s before to 10 s after; 5000 other events. */
void apenet_postmortem_query_defaults(struct apenet_postmortem_query *q);

/* ---- the model ---- */

enum apenet_postmortem_kind {
	APENET_POSTMORTEM_TRANSITION = 1, /* an agent's report */
	APENET_POSTMORTEM_EVIDENCE,       /* the supervisor's own evidence (silence, absence) */
	APENET_POSTMORTEM_OPENED,         /* a deduction: an incident opened */
	APENET_POSTMORTEM_CLOSED,         /* ... closed or merged */
};
const char *apenet_postmortem_kind_name(int kind);

/* One line of the timeline. */
struct apenet_postmortem_event {
	int64_t time_ms;
	int kind;                /* enum apenet_postmortem_kind */
	int64_t id;              /* the transition's or evidence's row, the incident's id */
	int64_t incident;        /* evidence of / about this incident, 0 none */
	unsigned node[3];        /* what it is about */
	int has_reporter;        /* a transition: the node that reported it */
	unsigned reporter[3];
	char boot[40];
	uint64_t seq;
	int path;                /* enum apenet_hdb_path */
	char via[8];
	char subject[12];
	char where[24];
	char code[64];           /* a finding code; a deduction's rule */
	int old_status, new_status;
	double value, threshold; /* NaN: none */
	char unit[16];
	char text[200];
	int first;               /* this is the first fault */
};

/* Who saw the fault, when (from the recorded evidence and the timeline). */
struct apenet_postmortem_seen {
	char observer[24];       /* "x,y,z" or "supervisor" */
	int path;
	char via[8];
	int64_t first_ms, delta_ms; /* first time, and since the first fault */
	unsigned count;          /* pieces of evidence on this path from this observer */
	char what[200];          /* the first of them */
};

/* One series of a black box's trend, at most APENET_POSTMORTEM_MAX_POINTS points. */
#define APENET_POSTMORTEM_MAX_POINTS 160
struct apenet_postmortem_series {
	char name[32];           /* "fpga_temp", "X+ crc_errors", ... */
	char label[48];          /* "FPGA temperature" */
	char unit[12];
	unsigned n;
	int64_t t[APENET_POSTMORTEM_MAX_POINTS];
	double v[APENET_POSTMORTEM_MAX_POINTS];
	double first, last, min, max, at_fault; /* NaN: no sample */
	int64_t max_ms;
	int notable;             /* it moved before the fault (lofamo/rules_trend.c): a note */
	char note[120];
	double warn_low, warn_high; /* the configured warn limits of the reading (NaN: none) */
	int crossed;             /* a reading went past one: worth a recommendation */
	char crossed_note[120];  /* "reached 86.2 C, past its warn limit 80 C" */
	char crossed_code[32];   /* the code of the rule whose limit it is (FPGA_TEMP): its recommendation's */
};

/* A link's module as its agent read it (the black box's EEPROM pages). */
#define APENET_POSTMORTEM_MAX_PORTS 8
struct apenet_postmortem_module {
	char port[8];            /* "X+" */
	char serial[17], vendor[17], part[17];
	double length_m;         /* a copper cable's; NaN: not said */
};

struct apenet_postmortem_trend {
	unsigned node[3];
	char file[512];
	char reason[200];
	int64_t from_ms, to_ms;  /* the samples' span */
	unsigned samples;
	int64_t unreadable_ms;   /* the first sample the card read all-ones (fell off the bus), 0 none */
	struct apenet_postmortem_series *series;
	unsigned nseries;
	struct apenet_postmortem_module modules[APENET_POSTMORTEM_MAX_PORTS]; /* the ports with a module that named itself */
	unsigned nmodules;
};

struct apenet_postmortem_cable {
	unsigned node[3];
	char link[8];
	int has_far;
	unsigned far[3];
	char far_link[8];
	int64_t incident;        /* the incident that named it */
	int known;               /* a cable record (serial) was found */
	struct apenet_hdb_cable cable;
	struct apenet_postmortem_module ends[2]; /* the module at node's / far's end, as its agent read it; serial "": not read */
	struct apenet_hdb_cert *certs; /* newest first */
	unsigned ncerts;
	struct apenet_hdb_incident *earlier; /* earlier incidents on these link ends, newest first */
	unsigned nearlier;
};

struct apenet_postmortem_rec {
	char component[32];
	unsigned node[3];
	char text[400];
};

struct apenet_postmortem_node {
	unsigned xyz[3];
	char name[64];
	int role;                /* enum apenet_postmortem_role */
};
enum apenet_postmortem_role { APENET_POSTMORTEM_NEARBY = 0, APENET_POSTMORTEM_OBSERVER = 1, APENET_POSTMORTEM_BLAMED = 2, APENET_POSTMORTEM_FIRST = 3 };

/* The three lines a report opens with. */
struct apenet_postmortem_summary {
	char failed[320];        /* what failed: the blamed component, and how many more incidents */
	char since[160];         /* since when: the first fault, and whether it is over */
	char affected[320];      /* what it affected: nodes, links down, who saw it */
};

struct apenet_postmortem {
	char db[512];
	int64_t generated_ms;
	int by_incident;         /* the report of one incident */
	int64_t incident;
	int64_t from_ms, to_ms;
	int has_node;
	unsigned node[3];
	unsigned dims[3];        /* the torus (0,0,0: unknown) */

	struct apenet_hdb_incident *inc; /* the incident first, then those merged into it / the window's */
	unsigned ninc;

	struct apenet_postmortem_event *ev;
	size_t nev, cap_ev;
	uint64_t omitted;        /* the window's transitions left out (max_events) */

	int has_first;
	struct apenet_postmortem_event first; /* the first fault */
	char first_component[32];
	unsigned first_blamed[3]; /* the node its incident blames (the fault's own node when none) */
	int64_t first_incident;
	char first_link[8];
	int first_has_far;
	unsigned first_far[3];
	char first_far_link[8];
	int64_t first_until_ms;  /* its incident closed then (INT64_MAX: open) */

	struct apenet_postmortem_seen *seen;
	unsigned nseen;
	struct apenet_postmortem_trend *trend;
	unsigned ntrend;
	struct apenet_postmortem_cable *cable;
	unsigned ncable;
	struct apenet_postmortem_rec *rec;
	unsigned nrec;
	struct apenet_hdb_slurm_action *slurm; /* the batch scheduler's actions on the incidents, in order */
	unsigned nslurm;
	struct apenet_postmortem_node *nodes; /* the affected region's nodes worth a colour on the map */
	unsigned nnodes;
	size_t cap_nodes;
	char notes[4][200];      /* what the report could not do (black box not found, ...) */
	unsigned nnotes;
	struct apenet_thresholds thr; /* the limits the black boxes' readings are judged by */
	struct apenet_postmortem_summary summary;
};

/* A model with the default thresholds. */
struct apenet_postmortem *apenet_postmortem_new(void);
void apenet_postmortem_free(struct apenet_postmortem *pm);
/* Adders copy; -1 with e only when out of memory. */
int apenet_postmortem_add_incident(struct apenet_postmortem *pm, const struct apenet_hdb_incident *in, struct apenet_err *e);
int apenet_postmortem_add_event(struct apenet_postmortem *pm, const struct apenet_postmortem_event *ev, struct apenet_err *e);
/* The transition row as a timeline event. */
void apenet_postmortem_event_from_transition(struct apenet_postmortem_event *ev, const struct apenet_hdb_transition *t);
void apenet_postmortem_note(struct apenet_postmortem *pm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Sorts the timeline (time; at the same millisecond agents' reports before
 * the supervisor's evidence, openings and closings, then boot id and
 * sequence, then row), marks the first fault, derives the propagation, the
 * map's nodes, the recommendations and the summary. */
int apenet_postmortem_finish(struct apenet_postmortem *pm, struct apenet_err *e);
/* The timeline's order (exposed for the tests). */
int apenet_postmortem_event_cmp(const struct apenet_postmortem_event *a, const struct apenet_postmortem_event *b);

/* Reads the database (opened read-only) and the black boxes. */
int apenet_postmortem_build(struct apenet_hdb *db, const char *db_path, const struct apenet_postmortem_query *q, struct apenet_postmortem **out,
		    struct apenet_err *e);

/* Black-box trends of a node around t_ms (report/trend.c): the dump in
 * dirs that holds the most of the minutes before t_ms, its readings judged
 * against thr's warn limits (NULL: none), and the modules it read.  1 with
 * *out filled, 0 when no dump of that node covers it (why in note), -1 (a
 * damaged dump names file:line:column). */
int apenet_postmortem_trend_load(const char *const *dirs, unsigned ndirs, const unsigned xyz[3], int64_t t_ms,
			 const char *focus_link, const struct apenet_thresholds *thr, struct apenet_postmortem_trend *out,
			 char *note, size_t nnote, struct apenet_err *e);

/* A cable's serial: its record's, else the module's its agent read (from
 * "record" or "module"); NULL when neither is known. */
const char *apenet_postmortem_cable_serial(const struct apenet_postmortem_cable *c, const char **from);
void apenet_postmortem_trend_free(struct apenet_postmortem_trend *t);

/* ---- writers ---- */

int apenet_postmortem_write_text(const struct apenet_postmortem *pm, FILE *f);
int apenet_postmortem_write_json(const struct apenet_postmortem *pm, FILE *f);
int apenet_postmortem_write_html(const struct apenet_postmortem *pm, FILE *f);

/* "normal", "sick", "broken", "invalid", "?". */
const char *apenet_postmortem_status_name(int status);
/* "+1.234 s", "-2 min 3.456 s", "+1 h 02 min": since the first fault. */
char *apenet_postmortem_rel(int64_t delta_ms, char *buf, size_t n);

#endif
