/*
 * Tables served over SNMP (AgentX) from values the daemon fills in: the
 * node agent's card, links, lanes, sensors, LDM words and watchdog
 * (snmp/mib_node.c), the supervisor's cluster view.
 *
 * A table here is a grid of values (rows x columns) with each row's index;
 * snmp/mibtab.c serves a set of them through net-snmp's table_data (tdata)
 * helper, which keeps the rows in index order and does GETNEXT and
 * GETBULK.  The values are a cache: the daemon marks the set stale once per
 * period (apenet_mib_stale) and the first request after that fills every
 * table again through the set's refresh callback (a handler ahead of the
 * table helper, as net-snmp's cache helper does), so a walk costs one fill
 * per period, never a register read per varbind, and an agent nobody polls
 * fills nothing.
 */
#ifndef APENET_MIBTAB_H
#define APENET_MIBTAB_H

#include <stdint.h>

#include "apenet/err.h"

#define APENET_MIB_MAX_TABLES 8
#define APENET_MIB_MAX_INDEX 3
#define APENET_MIB_STR 96   /* the longest text a cell holds, with its NUL */

enum apenet_mib_type {
	APENET_MIB_INTEGER,   /* INTEGER, Integer32, enumerations, TruthValue */
	APENET_MIB_UNSIGNED,  /* Unsigned32 */
	APENET_MIB_GAUGE,     /* Gauge32 */
	APENET_MIB_COUNTER,   /* Counter32 */
	APENET_MIB_COUNTER64, /* Counter64 */
	APENET_MIB_STRING,    /* OCTET STRING, DisplayString */
};

/* One accessible column: its name in APENET-MIB, its arc under the
 * table's entry, its type. */
struct apenet_mib_col {
	const char *name;
	unsigned arc;
	enum apenet_mib_type type;
};

struct apenet_mib_val {
	uint64_t n;           /* integers (as int64_t for INTEGER), counters */
	char s[APENET_MIB_STR];
};

struct apenet_mib;

struct apenet_mib_tab {
	const char *name;     /* "apenetLinkTable" */
	unsigned arc;         /* apenetObjects.arc */
	const struct apenet_mib_col *cols; /* contiguous arcs, in order */
	unsigned ncols;
	unsigned nidx;        /* index components of a row */
	unsigned nrows;
	uint32_t *idx;        /* nrows * nidx */
	struct apenet_mib_val *val; /* nrows * ncols */
	struct apenet_mib *owner;
	void *tdata, *reg, *tinfo; /* net-snmp's, while registered */
	int rows_changed;     /* apenet_mib_set_rows was called: the rows are rebuilt */
};

struct apenet_mib {
	struct apenet_mib_tab tab[APENET_MIB_MAX_TABLES];
	unsigned ntab;
	/* fills every table's values (not the rows: those are fixed at init) */
	void (*refresh)(struct apenet_mib *m, void *ctx);
	void *ctx;
	int stale;            /* set by apenet_mib_stale, cleared by a refresh */
	uint64_t refreshes, requests;
	int registered;
};

/* A table of nrows rows with nidx index components; every value starts 0/"". */
struct apenet_mib_tab *apenet_mib_add_table(struct apenet_mib *m, const char *name, unsigned arc,
					    const struct apenet_mib_col *cols, unsigned ncols, unsigned nidx,
					    unsigned nrows, struct apenet_err *e);
/* The index of row r (nidx values). */
void apenet_mib_row_index(struct apenet_mib_tab *t, unsigned r, const uint32_t *idx);
/* Setting a cell: row r, column arc (a column the table does not have is
 * ignored, so that a fill function cannot write out of bounds). */
void apenet_mib_set_int(struct apenet_mib_tab *t, unsigned r, unsigned arc, int64_t v);
void apenet_mib_set_u(struct apenet_mib_tab *t, unsigned r, unsigned arc, uint64_t v);
void apenet_mib_set_str(struct apenet_mib_tab *t, unsigned r, unsigned arc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const struct apenet_mib_val *apenet_mib_cell(const struct apenet_mib_tab *t, unsigned r, unsigned arc);
/* A table whose rows change (the supervisor's nodes and incidents): the
 * refresh callback sets the new number of rows (every cell and index
 * zeroed), then every row's index (any order) and cells; the rows are
 * rebuilt before the request that asked for the refill is looked up. */
int apenet_mib_set_rows(struct apenet_mib_tab *t, unsigned nrows, struct apenet_err *e);
/* Row of an index (-1: none). */
long apenet_mib_find_row(const struct apenet_mib_tab *t, const uint32_t *idx);

/* The values are out of date: the next request refills them. */
void apenet_mib_stale(struct apenet_mib *m);
/* Refill now if stale (requests call it; tests too). */
void apenet_mib_fresh(struct apenet_mib *m);

/* Registers every table with the agent library (init_agent done, in
 * subagent or master mode), under APENET-MIB's apenetObjects. */
int apenet_mib_register(struct apenet_mib *m, struct apenet_err *e);
void apenet_mib_unregister(struct apenet_mib *m);
void apenet_mib_free(struct apenet_mib *m);

#endif
