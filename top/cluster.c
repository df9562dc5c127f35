/*
 * apenet-top's cluster scope: a supervisor's health database (read-only,
 * through db/, as `apenet health` reads it).  The map draws one Z slice, X
 * across and Y down, each node a letter ('.' normal, 's' sick, 'B' broken,
 * '?' silent) coloured by its class; below it the nodes worst first, or
 * (i) the open incidents; Enter on a node, or on an incident, shows that
 * node's open incidents and current states.  A node an open incident
 * blames says so instead of its LDM summary (apenet_top_node_mark): its
 * last heartbeat may well say "all normal" (a card gone keeps its word).  A database being written is read
 * between commits (WAL); one that cannot be read is said on the screen and
 * tried again every refresh.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/hdb.h"
#include "top.h"

int top_cluster_open(struct top *t)
{
	struct apenet_err e = { 0 };
	t->map = 1;
	if (apenet_hdb_open(t->db, APENET_HDB_READONLY, &t->hdb, &e)) {
		snprintf(t->msg, sizeof(t->msg), "%.255s", e.msg);
		t->hdb = NULL;
	}
	return 0;
}

void top_cluster_close(struct top *t)
{
	if (t->hdb)
		apenet_hdb_close(t->hdb);
	t->hdb = NULL;
	free(t->nodes);
	free(t->shown);
	free(t->grid);
	free(t->incs);
}

static int on_node(void *arg, const struct apenet_hdb_node *n)
{
	struct top *t = arg;
	if (t->nnodes == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct apenet_top_node *a = realloc(t->nodes, cap * sizeof(*a)), *b;
		if (!a)
			return -1;
		t->nodes = a;
		b = realloc(t->shown, cap * sizeof(*b));
		if (!b)
			return -1;
		t->shown = b;
		t->cap = cap;
	}
	struct apenet_top_node *d = &t->nodes[t->nnodes++];
	d->x = n->x;
	d->y = n->y;
	d->z = n->z;
	snprintf(d->name, sizeof(d->name), "%s", n->name);
	d->cls = n->cls;
	snprintf(d->summary, sizeof(d->summary), "%s", n->summary);
	d->incidents = 0;
	d->incident[0] = 0;
	return 0;
}

static int on_open_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct top *t = arg;
	if (t->ninc == t->inc_cap) {
		size_t cap = t->inc_cap ? t->inc_cap * 2 : 16;
		struct apenet_top_incident *a = realloc(t->incs, cap * sizeof(*a));
		if (!a)
			return -1;
		t->incs = a;
		t->inc_cap = cap;
	}
	struct apenet_top_incident *d = &t->incs[t->ninc++];
	memset(d, 0, sizeof(*d));
	d->id = in->id;
	snprintf(d->component, sizeof(d->component), "%s", in->component);
	/* a supervisor's incident blames none of the nodes (supervisor/restore.c) */
	d->has_node = strcmp(in->component, "supervisor") != 0;
	memcpy(d->node, in->node, sizeof(d->node));
	snprintf(d->link, sizeof(d->link), "%s", in->link);
	d->has_far = in->has_far;
	memcpy(d->far, in->far, sizeof(d->far));
	snprintf(d->far_link, sizeof(d->far_link), "%s", in->far_link);
	snprintf(d->rule, sizeof(d->rule), "%s", in->rule);
	d->opened_ms = in->opened_ms;
	snprintf(d->first, sizeof(d->first), "%s", in->first.text);
	return 0;
}

/* The node at xyz in the list being read, through the grid; NULL none. */
static struct apenet_top_node *node_mut(struct top *t, const unsigned xyz[3])
{
	if (xyz[0] >= t->dims[0] || xyz[1] >= t->dims[1] || xyz[2] >= t->dims[2])
		return NULL;
	int i = t->grid[((size_t)xyz[2] * t->dims[1] + xyz[1]) * t->dims[0] + xyz[0]];
	return i >= 0 ? &t->nodes[i] : NULL;
}

void top_cluster_refresh(struct top *t)
{
	struct apenet_err e = { 0 };
	double t0 = apenet_clock_mono_s();
	if (t0 < t->next_read_s && t->nnodes)
		return; /* the last read is recent for what reads cost: the screen redraws it */
	if (!t->hdb && apenet_hdb_open(t->db, APENET_HDB_READONLY, &t->hdb, &e)) {
		snprintf(t->msg, sizeof(t->msg), "%.255s", e.msg);
		t->hdb = NULL;
		return;
	}
	int64_t now = apenet_clock_epoch_ms(), silence = (int64_t)t->cfg.svr.silent_ms;
	t->nnodes = 0;
	/* one pass over the nodes; the summary's counts come from the list
	 * (not a second query of every node: a 4,096-node refresh is mostly
	 * these queries) */
	memset(&t->sum, 0, sizeof(t->sum));
	t->ninc = 0;
	if (apenet_hdb_nodes_each(t->hdb, now, silence, 0, on_node, t, &e) ||
	    apenet_hdb_incidents_open_each(t->hdb, on_open_incident, t, &e)) {
		snprintf(t->msg, sizeof(t->msg), "%.255s", e.msg[0] ? e.msg : "out of memory");
		return;
	}
	t->sum.open_incidents = (unsigned)t->ninc;
	t->msg[0] = 0;
	t->sum.nodes = (unsigned)t->nnodes;
	for (size_t i = 0; i < t->nnodes; i++) {
		int c = t->nodes[i].cls;
		t->sum.normal += c == 0;
		t->sum.sick += c == 1;
		t->sum.broken += c == 2;
		t->sum.silent += c == 3;
	}
	memset(t->dims, 0, sizeof(t->dims));
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct apenet_top_node *n = &t->nodes[i];
		if (n->x + 1 > t->dims[0])
			t->dims[0] = n->x + 1;
		if (n->y + 1 > t->dims[1])
			t->dims[1] = n->y + 1;
		if (n->z + 1 > t->dims[2])
			t->dims[2] = n->z + 1;
	}
	if (t->z >= t->dims[2])
		t->z = t->dims[2] ? t->dims[2] - 1 : 0;
	/* the map looks every cell up: an index, not a search of the list */
	size_t cells = (size_t)t->dims[0] * t->dims[1] * t->dims[2];
	if (cells > t->grid_cap) {
		int *g = realloc(t->grid, cells * sizeof(*g));
		if (!g) {
			snprintf(t->msg, sizeof(t->msg), "out of memory for a %ux%ux%u map", t->dims[0], t->dims[1], t->dims[2]);
			return;
		}
		t->grid = g;
		t->grid_cap = cells;
	}
	for (size_t i = 0; i < cells; i++)
		t->grid[i] = -1;
	for (size_t i = 0; i < t->nnodes; i++) {
		const struct apenet_top_node *n = &t->nodes[i];
		t->grid[((size_t)n->z * t->dims[1] + n->y) * t->dims[0] + n->x] = (int)i;
	}
	/* the nodes the open incidents blame (a cable: both ends) */
	for (size_t i = 0; i < t->ninc; i++) {
		const struct apenet_top_incident *in = &t->incs[i];
		struct apenet_top_node *a = in->has_node ? node_mut(t, in->node) : NULL;
		struct apenet_top_node *b = in->has_node && in->has_far ? node_mut(t, in->far) : NULL;
		if (a)
			apenet_top_node_mark(a, in);
		if (b && b != a)
			apenet_top_node_mark(b, in);
	}
	if (t->nnodes)
		memcpy(t->shown, t->nodes, t->nnodes * sizeof(*t->shown));
	apenet_top_sort_nodes(t->shown, t->nnodes);
	t->nshown = apenet_top_filter_nodes(t->shown, t->nnodes, t->filter);
	/* a 4,096-node read takes ~12 ms: every 1.2 s at most, 1% of a core */
	double t1 = apenet_clock_mono_s();
	t->read_ms = (t1 - t0) * 1000;
	t->next_read_s = t1 + (t1 - t0) * 100 - 0.05;
}

/* A filter or sort changed: read now, whatever the budget says. */
void top_cluster_reread(struct top *t)
{
	t->next_read_s = 0;
	top_cluster_refresh(t);
}

int top_cluster_rows(const struct top *t)
{
	if (t->view != TOP_CLUSTER)
		return 0;
	return t->incidents ? (int)t->ninc : (int)t->nshown;
}

void top_cluster_drill(struct top *t)
{
	if (t->view != TOP_CLUSTER || t->sel < 0)
		return;
	if (t->incidents) {
		if ((size_t)t->sel >= t->ninc || !t->incs[t->sel].has_node)
			return;
		memcpy(t->cnode, t->incs[t->sel].node, sizeof(t->cnode));
	} else {
		if ((size_t)t->sel >= t->nshown)
			return;
		const struct apenet_top_node *n = &t->shown[t->sel];
		t->cnode[0] = n->x;
		t->cnode[1] = n->y;
		t->cnode[2] = n->z;
	}
	t->view = TOP_CNODE;
}

static const struct apenet_top_node *node_at(const struct top *t, unsigned x, unsigned y, unsigned z)
{
	if (!t->grid || x >= t->dims[0] || y >= t->dims[1] || z >= t->dims[2])
		return NULL;
	int i = t->grid[((size_t)z * t->dims[1] + y) * t->dims[0] + x];
	return i >= 0 ? &t->nodes[i] : NULL;
}

/* The node the selection is on: the list's, or the selected incident's. */
static const struct apenet_top_node *selected_node(const struct top *t)
{
	if (t->sel < 0)
		return NULL;
	if (t->incidents)
		return (size_t)t->sel < t->ninc && t->incs[t->sel].has_node
			       ? node_at(t, t->incs[t->sel].node[0], t->incs[t->sel].node[1], t->incs[t->sel].node[2])
			       : NULL;
	return (size_t)t->sel < t->nshown ? &t->shown[t->sel] : NULL;
}

static int map_draw(struct top *t, int y0, int map_h)
{
	/* the selected node's cell stays in view */
	const struct apenet_top_node *sel = selected_node(t);
	struct apenet_top_layout l;
	apenet_top_slice_layout(t->dims[0], t->dims[1], (unsigned)COLS, (unsigned)map_h - 1, sel ? sel->x : 0,
				sel ? sel->y : 0, &l);
	top_mvprintw(y0, 0, "    ");
	for (unsigned x = l.x0; x < l.x0 + l.cols; x++)
		if (l.cell_w == 2 || x % 5 == 0)
			top_printw(l.cell_w == 2 ? "%-2u" : "%-5u", l.cell_w == 2 ? x % 100 : x);
	int y = y0 + 1;
	for (unsigned r = l.y0; r < l.y0 + l.rows; r++, y++) {
		top_mvprintw(y, 0, "Y%-3u", r);
		for (unsigned x = l.x0; x < l.x0 + l.cols; x++) {
			const struct apenet_top_node *n = node_at(t, x, r, t->z);
			int cls = n ? n->cls : -1;
			int a = n ? top_attr_class(t, cls) : 0;
			int mark = sel && n == node_at(t, sel->x, sel->y, sel->z) && sel->z == t->z;
			if (mark)
				a |= A_REVERSE;
			attron(a);
			addch(n ? (chtype)apenet_top_cell_letter(cls) : ' ');
			attroff(a);
			if (l.cell_w == 2)
				addch(' ');
		}
	}
	return y;
}

static int state_line(void *arg, const struct apenet_hdb_state *s)
{
	int *y = arg;
	if (*y >= LINES - 2)
		return 0;
	top_mvprintw((*y)++, 2, "%-8s %-24s %-7s from %u,%u,%u (%s%s%s)", apenet_top_class_name(s->status < 3 ? s->status : 2),
		 s->code, s->where, s->reporter[0], s->reporter[1], s->reporter[2], apenet_hdb_path_name(s->path),
		 s->via[0] ? " via " : "", s->via);
	return 0;
}

struct link_ctx {
	const struct top *t;
	int y;
};

static int link_line(void *arg, const struct apenet_hdb_link *l)
{
	struct link_ctx *c = arg;
	int *y = &c->y;
	const struct top *t = c->t;
	if (*y >= LINES - 6)
		return 0;
	char p[40];
	snprintf(p, sizeof(p), "%u,%u,%u %s", l->partner[0], l->partner[1], l->partner[2], l->partner_link);
	top_mvprintw((*y)++, 0, "%-5s %-20s ", l->name, p);
	int st = l->status < 3 ? l->status : 2, ps = l->partner_status < 3 ? l->partner_status : 2;
	int a = top_attr_class(t, st);
	attron(a);
	top_printw("%-9s", apenet_top_class_name(st));
	attroff(a);
	a = top_attr_class(t, ps);
	attron(a);
	top_printw(" %-9s", apenet_top_class_name(ps));
	attroff(a);
	return 0;
}

static void cnode_view(struct top *t)
{
	const struct apenet_top_node *n = node_at(t, t->cnode[0], t->cnode[1], t->cnode[2]);
	attron(A_BOLD);
	top_mvprintw(0, 0, "apenet-top  node %u,%u,%u %s", t->cnode[0], t->cnode[1], t->cnode[2], n ? n->name : "");
	attroff(A_BOLD);
	if (!n) {
		top_mvprintw(2, 0, "not in the database");
		return;
	}
	int a = top_attr_class(t, n->cls);
	attron(a);
	top_mvprintw(1, 0, "%s", apenet_top_class_name(n->cls));
	attroff(a);
	char what[360];
	apenet_top_node_what(n, what, sizeof(what));
	top_printw("  %.*s", COLS > 12 ? COLS - 12 : 1, what);
	/* its links, both ends' worst current state (the database knows links,
	 * not lanes: a lane is apenet-top on the node itself) */
	attron(A_REVERSE);
	top_mvprintw(3, 0, "%-5s %-20s %-9s %-9s", "LINK", "PARTNER", "THIS END", "FAR END");
	attroff(A_REVERSE);
	struct link_ctx lc = { t, 4 };
	struct apenet_err e = { 0 };
	if (apenet_hdb_links_each(t->hdb, t->cnode, link_line, &lc, &e))
		top_mvprintw(lc.y++, 2, "%s", e.msg);
	int y = lc.y;
	/* the open incidents that blame it (a cable: either end) */
	if (n->incidents) {
		top_mvprintw(++y, 0, "open incidents (apenet health --incidents):");
		int64_t now = apenet_clock_epoch_ms();
		for (size_t i = 0; i < t->ninc && y < LINES - 4; i++) {
			const struct apenet_top_incident *in = &t->incs[i];
			int here = in->has_node && (!memcmp(in->node, t->cnode, sizeof(t->cnode)) ||
						    (in->has_far && !memcmp(in->far, t->cnode, sizeof(t->cnode))));
			if (!here)
				continue;
			int fa = top_attr_sev(t, APENET_SEV_FAIL);
			attron(fa);
			top_mvprintw(++y, 2, "%-5lld %-18.18s %-20.20s %6llds ", (long long)in->id, in->component, in->rule,
				 (long long)(now > in->opened_ms ? (now - in->opened_ms) / 1000 : 0));
			attroff(fa);
			top_printw("%.*s", COLS > 58 ? COLS - 58 : 1, in->first);
		}
		y++;
	}
	top_mvprintw(++y, 0, "current states (apenet health --node %u,%u,%u):", n->x, n->y, n->z);
	int y0 = ++y;
	if (apenet_hdb_node_states_each(t->hdb, t->cnode, 1, state_line, &y, &e))
		top_mvprintw(y++, 2, "%s", e.msg);
	if (y == y0)
		top_mvprintw(y++, 2, n->cls == 3 ? "none: nothing heard from it within the silence limit" : "none");
	if (y < LINES - 2)
		top_mvprintw(y + 1, 0, "its card and lanes: apenet-top on the node itself");
}

void top_cluster_draw(struct top *t)
{
	if (!t->hdb || (t->msg[0] && !t->nnodes)) {
		top_mvprintw(0, 0, "apenet-top  cluster %s", t->db);
		attron(top_attr_sev(t, APENET_SEV_FAIL));
		top_mvprintw(2, 0, "%.*s", COLS > 0 ? COLS - 1 : 0, t->msg[0] ? t->msg : "no database");
		attroff(top_attr_sev(t, APENET_SEV_FAIL));
		top_mvprintw(4, 0, "trying again every refresh; q quits");
		top_hints(t, "q quit");
		return;
	}
	if (t->view == TOP_CNODE) {
		cnode_view(t);
		top_hints(t, "Left/Esc back  F1 help  q quit");
		return;
	}
	attron(A_BOLD);
	top_mvprintw(0, 0, "apenet-top  cluster %ux%ux%u  %u nodes:", t->dims[0], t->dims[1], t->dims[2], t->sum.nodes);
	attroff(A_BOLD);
	static const int order[] = { 2, 3, 1, 0 };
	for (int i = 0; i < 4; i++) {
		unsigned v = order[i] == 0 ? t->sum.normal : order[i] == 1 ? t->sum.sick : order[i] == 2 ? t->sum.broken
													     : t->sum.silent;
		top_printw(" ");
		int a = v && order[i] ? top_attr_class(t, order[i]) : 0;
		attron(a);
		top_printw("%u %s", v, apenet_top_class_name(order[i]));
		attroff(a);
	}
	struct apenet_top_counts c;
	apenet_top_count_slice(t->nodes, t->nnodes, t->z, &c);
	top_mvprintw(1, 0, "slice Z=%u of %u: %u broken %u silent %u sick %u normal", t->z, t->dims[2] ? t->dims[2] - 1 : 0,
		 c.cls[2], c.cls[3], c.cls[1], c.cls[0]);
	int ia = t->sum.open_incidents ? top_attr_sev(t, APENET_SEV_FAIL) : 0;
	top_printw("   ");
	attron(ia);
	top_printw("%u open incident%s", t->sum.open_incidents, t->sum.open_incidents == 1 ? "" : "s");
	attroff(ia);
	if (t->read_ms * 100 > t->delay_ds * 100) /* read less often than the screen: say so */
		top_printw("   read every %.1f s", t->read_ms / 10);
	int y = 2;
	int rest = LINES - 2 - y;
	if (t->map && t->dims[0]) {
		/* the map takes what the list leaves it, at least 4 rows of nodes */
		int map_h = (int)t->dims[1] + 1;
		if (map_h > rest - 5)
			map_h = rest - 5 > 2 ? rest - 5 : 2;
		y = map_draw(t, y, map_h);
	} else if (t->dims[2]) {
		/* F5: every slice's summary instead of one slice's map, four to a
		 * line (32 slices in 8 lines): where the trouble is, by Z */
		int per = COLS / 20 > 0 ? COLS / 20 : 1;
		for (unsigned z = 0; z < t->dims[2] && y < LINES - 6; z++) {
			struct apenet_top_counts k;
			apenet_top_count_slice(t->nodes, t->nnodes, z, &k);
			if (z % (unsigned)per == 0)
				move(y++, 0);
			int a = k.cls[2] ? top_attr_class(t, 2) : k.cls[3] ? top_attr_class(t, 3) : k.cls[1] ? top_attr_class(t, 1) : 0;
			if (z == t->z)
				a |= A_REVERSE;
			attron(a);
			top_printw("Z%-3u%3uB %3u? %3us", z, k.cls[2], k.cls[3], k.cls[1]);
			attroff(a);
			top_printw("  ");
		}
	}
	if (t->incidents) {
		top_cluster_incidents(t, y);
		top_hints(t, "F1 help  i nodes  z/Z slice  F5 map  Enter its node  q quit");
		return;
	}
	attron(A_REVERSE);
	top_mvprintw(y++, 0, "%-11s %-16s %-7s %-*s", "NODE", "NAME", "CLASS", COLS > 38 ? COLS - 38 : 1, "WHAT");
	attroff(A_REVERSE);
	/* the list scrolls to keep the selection in view */
	int room = LINES - 1 - y;
	int first = t->sel >= room ? t->sel - room + 1 : 0;
	for (int i = first; i < (int)t->nshown && y < LINES - 1; i++, y++) {
		const struct apenet_top_node *n = &t->shown[i];
		char xyz[24];
		snprintf(xyz, sizeof(xyz), "%u,%u,%u", n->x, n->y, n->z);
		if (i == t->sel)
			attron(A_REVERSE);
		top_mvprintw(y, 0, "%-11s %-16.16s ", xyz, n->name);
		int a = top_attr_class(t, n->cls);
		attron(a);
		top_printw("%-7s", apenet_top_class_name(n->cls));
		attroff(a);
		char what[360];
		apenet_top_node_what(n, what, sizeof(what));
		top_printw(" %.*s", COLS > 38 ? COLS - 38 : 1, what);
		if (i == t->sel)
			attroff(A_REVERSE);
	}
	if (!t->nshown)
		top_mvprintw(y, 0, t->filter[0] ? "no node matches '%s'" : "no nodes", t->filter);
	top_hints(t, "F1 help  / filter  z/Z slice  F5 map  i incidents  Enter node  q quit");
}

/* The open incidents, oldest first: id, component, where, how long open,
 * the first fault (apenet health --incidents has the rest); the selected
 * one highlighted, the list scrolled to keep it in view. */
void top_cluster_incidents(struct top *t, int y)
{
	attron(A_REVERSE);
	top_mvprintw(y++, 0, "%-5s %-16s %-14s %7s %-*s", "ID", "COMPONENT", "WHERE", "OPEN", COLS > 46 ? COLS - 46 : 1,
		 "FIRST FAULT");
	attroff(A_REVERSE);
	if (!t->ninc) {
		top_mvprintw(y, 0, "no open incident");
		return;
	}
	int64_t now = apenet_clock_epoch_ms();
	int room = LINES - 1 - y;
	int first = t->sel >= room ? t->sel - room + 1 : 0;
	for (int i = first; i < (int)t->ninc && y < LINES - 1; i++, y++) {
		const struct apenet_top_incident *in = &t->incs[i];
		char where[48];
		apenet_top_incident_where(in, where, sizeof(where));
		int64_t age = now > in->opened_ms ? (now - in->opened_ms) / 1000 : 0;
		if (i == t->sel)
			attron(A_REVERSE);
		top_mvprintw(y, 0, "%-5lld %-16.16s %-14s %6llds ", (long long)in->id, in->component, where, (long long)age);
		int a = top_attr_sev(t, APENET_SEV_FAIL);
		attron(a);
		top_printw("%.*s", COLS > 46 ? COLS - 46 : 1, in->first);
		attroff(a);
		if (i == t->sel)
			attroff(A_REVERSE);
	}
}
