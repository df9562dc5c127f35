/*
 * apenet-top's model: rows, sorting, filtering and the slice layout,
 * without a terminal (include/apenet/top.h; tests/unit/top/test_top.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/linkstats.h"
#include "apenet/regs.h"
#include "apenet/top.h"

const char *apenet_top_sort_name(enum apenet_top_sort s)
{
	static const char *const n[] = { "worst first", "by name", "by traffic", "by errors" };
	return s < APENET_TOP_NSORT ? n[s] : "?";
}

unsigned apenet_top_links(const struct apenet_view *v, const struct apenet_findings *fs, struct apenet_top_link *rows,
			  unsigned max)
{
	unsigned n = 0;
	for (unsigned l = 0; v->prof && l < v->s1.nlinks && n < max; l++) {
		struct apenet_top_link *r = &rows[n++];
		struct apenet_link_stats st;
		apenet_link_stats(v, l, &st);
		memset(r, 0, sizeof(*r));
		r->link = l;
		snprintf(r->name, sizeof(r->name), "%s", v->prof->links[l].name);
		r->state = st.state;
		r->lanes_up = (unsigned)__builtin_popcount(st.lanes_up);
		r->lanes = st.nlanes;
		if (!st.partner_valid)
			snprintf(r->partner, sizeof(r->partner), "-");
		else if (st.partner_ext)
			snprintf(r->partner, sizeof(r->partner), "external");
		else
			snprintf(r->partner, sizeof(r->partner), "%u,%u,%u %s", st.partner[0], st.partner[1], st.partner[2],
				 st.partner_port < v->prof->nlinks ? v->prof->links[st.partner_port].name : "?");
		r->tx_MBps = st.tx_Bps / 1e6;
		r->rx_MBps = st.rx_Bps / 1e6;
		r->crc_per_min = st.crc_per_min;
		r->retrans_per_min = st.retrans_per_min;
		r->fifo_pct = st.fifo_level_pct;
		long at = -1;
		r->sev = fs ? apenet_findings_worst_at(fs, (int)l, &at) : APENET_SEV_OK;
		snprintf(r->code, sizeof(r->code), "%s", at >= 0 ? fs->f[at].code : "OK");
	}
	return n;
}

static enum apenet_top_sort sort_key;

static int cmp_link(const void *a, const void *b)
{
	const struct apenet_top_link *x = a, *y = b;
	double dx, dy;
	switch (sort_key) {
	case APENET_TOP_SORT_WORST:
		if (x->sev != y->sev)
			return x->sev > y->sev ? -1 : 1;
		/* a link that is down is worse than one that is up, verdict equal */
		if ((x->state == APENET_LINK_UP) != (y->state == APENET_LINK_UP))
			return x->state == APENET_LINK_UP ? 1 : -1;
		break;
	case APENET_TOP_SORT_TRAFFIC:
		dx = x->tx_MBps + x->rx_MBps;
		dy = y->tx_MBps + y->rx_MBps;
		if (dx != dy)
			return dx > dy ? -1 : 1;
		break;
	case APENET_TOP_SORT_ERRORS:
		dx = x->crc_per_min + x->retrans_per_min;
		dy = y->crc_per_min + y->retrans_per_min;
		if (dx != dy)
			return dx > dy ? -1 : 1;
		break;
	default:
		break;
	}
	return x->link < y->link ? -1 : x->link > y->link;
}

void apenet_top_sort_links(struct apenet_top_link *rows, unsigned n, enum apenet_top_sort s)
{
	sort_key = s;
	qsort(rows, n, sizeof(*rows), cmp_link);
}

static int contains(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);
	if (!nl)
		return 1;
	for (const char *p = hay; *p; p++) {
		size_t i = 0;
		while (i < nl && p[i] && tolower((unsigned char)p[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return 1;
	}
	return 0;
}

unsigned apenet_top_filter_links(struct apenet_top_link *rows, unsigned n, const char *filter)
{
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++)
		if (!filter || contains(rows[i].name, filter) || contains(rows[i].partner, filter) ||
		    contains(rows[i].code, filter))
			rows[k++] = rows[i];
	return k;
}

char apenet_top_cell_letter(int cls)
{
	static const char l[] = { '.', 's', 'B', '?' };
	return cls >= 0 && cls < 4 ? l[cls] : '!';
}

const char *apenet_top_class_name(int cls)
{
	static const char *const n[] = { "normal", "sick", "broken", "silent" };
	return cls >= 0 && cls < 4 ? n[cls] : "?";
}

/* broken, silent, sick, normal */
static int rank(int cls)
{
	static const int r[] = { 3, 2, 0, 1 };
	return cls >= 0 && cls < 4 ? r[cls] : 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct apenet_top_node *x = a, *y = b;
	if (rank(x->cls) != rank(y->cls))
		return rank(x->cls) < rank(y->cls) ? -1 : 1;
	if (!x->incidents != !y->incidents)
		return x->incidents ? -1 : 1;
	if (x->z != y->z)
		return x->z < y->z ? -1 : 1;
	if (x->y != y->y)
		return x->y < y->y ? -1 : 1;
	return x->x < y->x ? -1 : x->x > y->x;
}

void apenet_top_incident_where(const struct apenet_top_incident *in, char *buf, size_t n)
{
	if (!in->has_node)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%u,%u,%u%s%s", in->node[0], in->node[1], in->node[2], in->link[0] ? " " : "", in->link);
}

void apenet_top_node_mark(struct apenet_top_node *n, const struct apenet_top_incident *in)
{
	if (!n->incidents++)
		snprintf(n->incident, sizeof(n->incident), "incident %lld %.31s (%.63s)", (long long)in->id, in->component,
			 in->rule);
}

void apenet_top_node_what(const struct apenet_top_node *n, char *buf, size_t size)
{
	if (!n->incidents) {
		snprintf(buf, size, "%s", n->summary);
		return;
	}
	char more[24] = "";
	if (n->incidents > 1)
		snprintf(more, sizeof(more), " +%u more", n->incidents - 1);
	int ldm = n->summary[0] && strcmp(n->summary, "all normal");
	snprintf(buf, size, "%s%s%s%s", n->incident, more, ldm ? "; " : "", ldm ? n->summary : "");
}

void apenet_top_sort_nodes(struct apenet_top_node *n, size_t count)
{
	qsort(n, count, sizeof(*n), cmp_node);
}

size_t apenet_top_filter_nodes(struct apenet_top_node *n, size_t count, const char *filter)
{
	size_t k = 0;
	for (size_t i = 0; i < count; i++) {
		char xyz[40], what[360];
		snprintf(xyz, sizeof(xyz), "%u,%u,%u", n[i].x, n[i].y, n[i].z);
		apenet_top_node_what(&n[i], what, sizeof(what));
		if (!filter || contains(n[i].name, filter) || contains(xyz, filter) ||
		    contains(apenet_top_class_name(n[i].cls), filter) || contains(what, filter))
			n[k++] = n[i];
	}
	return k;
}

static void window(unsigned dim, unsigned room, unsigned c, unsigned *o0, unsigned *on)
{
	if (dim <= room) {
		*o0 = 0;
		*on = dim;
		return;
	}
	/* the window that keeps c visible, c in its middle when it can */
	unsigned start = c > room / 2 ? c - room / 2 : 0;
	if (start + room > dim)
		start = dim - room;
	*o0 = start;
	*on = room;
}

void apenet_top_slice_layout(unsigned dim_x, unsigned dim_y, unsigned width, unsigned map_h, unsigned cx, unsigned cy,
			     struct apenet_top_layout *l)
{
	/* 4 columns for the row labels ("Y31 "); a 32-wide torus fits 80
	 * columns at two a cell */
	unsigned room = width > 4 ? width - 4 : 1;
	l->cell_w = dim_x * 2 <= room ? 2 : 1;
	unsigned cols = room / l->cell_w;
	window(dim_x, cols ? cols : 1, cx, &l->x0, &l->cols);
	window(dim_y, map_h ? map_h : 1, cy, &l->y0, &l->rows);
	l->clipped = l->cols < dim_x || l->rows < dim_y;
}

void apenet_top_count_slice(const struct apenet_top_node *n, size_t count, unsigned z, struct apenet_top_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < count; i++)
		if (n[i].z == z && n[i].cls >= 0 && n[i].cls < 4) {
			c->cls[n[i].cls]++;
			c->total++;
		}
}
