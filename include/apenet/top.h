/*
 * apenet-top's model (top/rows.c): what the screen shows, computed without
 * a terminal so that it can be unit-tested.  The node view's rows come from
 * a view and the judge's findings (the same library as `apenet link`); the
 * cluster view's from the health database's node list (as `apenet health`).
 */
#ifndef APENET_TOP_H
#define APENET_TOP_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/finding.h"
#include "apenet/view.h"

/* ---- node view: one row per link ---- */

struct apenet_top_link {
	unsigned link;          /* its index on the card */
	char name[12];
	unsigned state;         /* enum apenet_link_state */
	unsigned lanes_up, lanes;
	char partner[40];       /* "1,0,0 X-", "external", "-" */
	double tx_MBps, rx_MBps, crc_per_min, retrans_per_min, fifo_pct;
	enum apenet_sev sev;    /* the worst finding on the link, its lanes and its module */
	char code[32];          /* its code, "OK" when none */
};

enum apenet_top_sort {
	APENET_TOP_SORT_WORST, /* worst verdict first, then by index */
	APENET_TOP_SORT_NAME,  /* by index (X+, X-, ...) */
	APENET_TOP_SORT_TRAFFIC, /* most traffic (tx + rx) first */
	APENET_TOP_SORT_ERRORS,  /* most CRC + retransmissions first */
	APENET_TOP_NSORT
};
const char *apenet_top_sort_name(enum apenet_top_sort s);

/* The rows of every link of v (at most max); the count. */
unsigned apenet_top_links(const struct apenet_view *v, const struct apenet_findings *fs, struct apenet_top_link *rows,
			  unsigned max);
void apenet_top_sort_links(struct apenet_top_link *rows, unsigned n, enum apenet_top_sort s);
/* Keeps the rows whose name, partner or code contains filter (case-blind;
 * "" keeps all), in order; the count kept. */
unsigned apenet_top_filter_links(struct apenet_top_link *rows, unsigned n, const char *filter);

/* ---- cluster view ---- */

/* A node as the cluster view shows it (its class: enum apenet_hdb_class). */
struct apenet_top_node {
	unsigned x, y, z;
	char name[64];
	int cls;                /* 0 normal, 1 sick, 2 broken, 3 silent */
	char summary[200];      /* its latest LDM word's ("all normal", "temperature sick") */
	unsigned incidents;     /* open incidents that blame it */
	char incident[120];     /* the oldest of them: "incident ID COMPONENT (RULE)" */
};

/* An open incident as the cluster view lists it (from the health
 * database's, include/apenet/hdb.h). */
struct apenet_top_incident {
	int64_t id;
	char component[32];
	int has_node;           /* a supervisor's incident blames no node */
	unsigned node[3];
	char link[8];
	int has_far;            /* a cable: its far end, blamed with it */
	unsigned far[3];
	char far_link[8];
	char rule[64];
	int64_t opened_ms;
	char first[200];        /* the first fault */
};
/* The incident as a cell of the list: "1,1,0", "1,1,0 X+", "-" (none). */
void apenet_top_incident_where(const struct apenet_top_incident *in, char *buf, size_t n);
/* Marks node n blamed by an open incident (call it oldest first). */
void apenet_top_node_mark(struct apenet_top_node *n, const struct apenet_top_incident *in);
/* What the list says of a node: its open incidents first ("incident ID
 * COMPONENT (RULE)", "+K more"), then its LDM summary unless that says
 * "all normal": a node an open incident blames never reads "all normal"
 * (its last heartbeat may be older than the fault: a card gone keeps its
 * last word). */
void apenet_top_node_what(const struct apenet_top_node *n, char *buf, size_t size);

/* The letter of a class in the map: '.' normal, 's' sick, 'B' broken, '?' silent. */
char apenet_top_cell_letter(int cls);
/* "normal", "sick", "broken", "silent". */
const char *apenet_top_class_name(int cls);
/* Worst first: broken, silent, sick, normal; within a class the nodes
 * with an open incident first; then by z, y, x. */
void apenet_top_sort_nodes(struct apenet_top_node *n, size_t count);
/* Keeps the nodes whose name, "x,y,z", class or what (the list's WHAT:
 * apenet_top_node_what) contains filter. */
size_t apenet_top_filter_nodes(struct apenet_top_node *n, size_t count, const char *filter);

/* Where a slice's map goes on a screen of width x height lines (the map
 * gets at most map_h lines): cells of cell_w columns (2, or 1 when X is too
 * wide for 2), and the window of the slice shown (x0..x0+cols, y0..y0+rows)
 * around the cell (cx, cy) that must be visible. */
struct apenet_top_layout {
	unsigned cell_w;
	unsigned x0, cols, y0, rows;
	int clipped;            /* the whole slice does not fit */
};
void apenet_top_slice_layout(unsigned dim_x, unsigned dim_y, unsigned width, unsigned map_h, unsigned cx, unsigned cy,
			     struct apenet_top_layout *l);

/* Per class counts of one slice (z) of the nodes. */
struct apenet_top_counts {
	unsigned cls[4];
	unsigned total;
};
void apenet_top_count_slice(const struct apenet_top_node *n, size_t count, unsigned z, struct apenet_top_counts *c);

#endif
