/*
 * apenet-top (docs/top.md): the operator's live screen.
 *
 *   main.c     arguments, the terminal, the key loop (halfdelay), views
 *   node.c     the node scope: a card through the library's sampler and
 *              judge; node, link and lane views
 *   cluster.c  the cluster scope: a health database through db/; the map of
 *              a Z slice, the worst-first node list, a node's states
 *   draw.c     the drawing primitives: escaped, cut text; colours
 *   rows.c     rows, sorting, filtering, slice layout (no terminal, in the library)
 */
#ifndef APENET_TOP_DAEMON_H
#define APENET_TOP_DAEMON_H

#include <stddef.h>

#include "apenet/config.h"
#include "apenet/hdb.h"
#include "apenet/judge.h"
#include "apenet/sampler.h"
#include "apenet/top.h"
#include "apenet/verdict.h"

enum top_view { TOP_NODE, TOP_LINK, TOP_LANE, TOP_CLUSTER, TOP_CNODE };

/* colour pairs (or, on a monochrome terminal, attributes) */
enum { TOP_C_OK = 1, TOP_C_WARN, TOP_C_FAIL, TOP_C_SILENT, TOP_C_HEAD };

struct top {
	/* arguments */
	const char *sim, *dev, *db, *config;
	const char *from;       /* --from FILE: a snapshot or black-box dump, every sample replayed */
	int delay_ds;           /* -d: refresh every this many tenths of a second */
	int color;              /* the terminal has colours and NO_COLOR is not set */
	/* what is shown */
	enum top_view view;
	int help;
	enum apenet_top_sort sort;
	char filter[48];
	int sel;                /* the highlighted row of the current list */
	unsigned link, lane;    /* drilled into */
	char msg[1100];         /* a problem, shown on the screen instead of data */
	struct apenet_config cfg;

	/* the node scope */
	struct apenet_sampler smp;
	int smp_open;
	struct apenet_judge judge;  /* the samples, their pairs and what is held */
	const struct apenet_view *v; /* the latest pair (the judge's) */
	const struct apenet_findings *held; /* what the judge holds */
	struct apenet_top_link rows[APENET_MAX_LINKS];
	unsigned nrows;
	/* alignment restarts of every lane, the last 60 refreshes */
	unsigned hist[APENET_MAX_LINKS][APENET_MAX_LANES][60];
	unsigned nhist, hist0;

	/* the cluster scope */
	struct apenet_hdb *hdb;
	struct apenet_top_node *nodes, *shown;
	size_t nnodes, nshown, cap;
	unsigned dims[3], z;
	struct apenet_hdb_summary sum;
	int map;                /* F5: the map of the slice (1) or the node list alone */
	int incidents;          /* i: the open incidents instead of the node list */
	struct apenet_top_incident *incs; /* the open incidents, oldest first (read with the nodes) */
	size_t ninc, inc_cap;
	int *grid;              /* node index by (z, y, x), -1 none: the map's lookups */
	/* the database is read at most every 100x what a read costs (1% of a
	 * core at most), and at most every refresh */
	double read_ms;         /* the last read's cost */
	double next_read_s;     /* monotonic time the next read may start */
	size_t grid_cap;
	unsigned cnode[3];      /* drilled into */
};

/* Every text on the screen is drawn through these (printw's formats): the
 * formatted line is escaped whole (apenet/esc.h: control characters and
 * bytes that are not UTF-8 as \xNN), since names, codes, evidence and
 * incidents come from the health database, module EEPROMs and snapshot
 * files and are data, never control (an ESC from a report would otherwise
 * reach curses, a newline break the screen's lines); and it is cut at the
 * right edge rather than wrapped onto the next line. */
void top_printw(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void top_mvprintw(int y, int x, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "apenet-top: MSG" on stderr before or after the screen, MSG escaped (it
 * may quote a file or a database) */
void top_error(const char *msg);
/* colour or attribute of a severity / node class */
int top_attr_sev(const struct top *t, enum apenet_sev s);
int top_attr_class(const struct top *t, int cls);
/* the key hints on the last line */
void top_hints(const struct top *t, const char *hints);

/* node.c */
int top_node_open(struct top *t);
void top_node_refresh(struct top *t);
void top_node_close(struct top *t);
void top_node_draw(struct top *t);
int top_node_rows(const struct top *t); /* rows of the current list */

/* cluster.c */
int top_cluster_open(struct top *t);
void top_cluster_refresh(struct top *t);
void top_cluster_reread(struct top *t); /* now, whatever the read budget says */
void top_cluster_close(struct top *t);
void top_cluster_draw(struct top *t);
void top_cluster_incidents(struct top *t, int y); /* the open incidents from line y */
int top_cluster_rows(const struct top *t);
/* Enter in the cluster view: the selected node's, or the selected
 * incident's node (a supervisor's incident has none: nothing happens). */
void top_cluster_drill(struct top *t);

#endif
