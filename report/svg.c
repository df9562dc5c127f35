/*
 * The report's pictures, as inline SVG for the HTML page: the torus map of
 * the affected region, the timeline and the trends' sparklines.  Plain SVG
 * 1.1 drawn server side: no script, no font but the page's, nothing
 * fetched.  Every text from the database goes through the escaper.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/esc.h"
#include "apenet/out.h"
#include "postmortem_int.h"

static const char *role_fill(int role)
{
	switch (role) {
	case APENET_POSTMORTEM_FIRST: return "#d62728";
	case APENET_POSTMORTEM_BLAMED: return "#ff7f0e";
	case APENET_POSTMORTEM_OBSERVER: return "#e6c229";
	}
	return "#d9d9d9";
}

static int role_at(const struct apenet_postmortem *pm, unsigned x, unsigned y, unsigned z, const char **name)
{
	for (unsigned i = 0; i < pm->nnodes; i++) {
		const struct apenet_postmortem_node *n = &pm->nodes[i];
		if (n->xyz[0] == x && n->xyz[1] == y && n->xyz[2] == z) {
			*name = n->name;
			return n->role;
		}
	}
	*name = "";
	return -1;
}

/* Whether the cable on link `link` of node a reaches b around the torus's
 * edge (the wraparound): the direction it leaves a in (+1 up the
 * coordinate, -1 down) and the dimension in *dim; 0 for a direct
 * neighbour.  By the link's name and the torus's size; without them, a
 * partner more than one step away is around the edge. */
static int wrap_dir(const struct apenet_postmortem *pm, const unsigned a[3], const char *link, const unsigned b[3], int *dim)
{
	int li = apenet_hdb_link_index(link);
	if (li >= 0) {
		int d = li / 2, dir = li % 2 ? -1 : 1;
		unsigned dist = a[d] > b[d] ? a[d] - b[d] : b[d] - a[d];
		*dim = d;
		if (pm->dims[d] >= 2)
			return (dir > 0 && a[d] == pm->dims[d] - 1) || (dir < 0 && a[d] == 0) ? dir : 0;
		return dist > 1 ? dir : 0;
	}
	for (int d = 0; d < 3; d++) {
		unsigned dist = a[d] > b[d] ? a[d] - b[d] : b[d] - a[d];
		if (dist > 1) {
			*dim = d;
			return a[d] > b[d] ? 1 : -1;
		}
	}
	return 0;
}

/* One end of a wraparound cable: a stub from the node out past the edge of
 * its cell, in the direction the cable leaves, with an arrowhead. */
static void wrap_stub(FILE *f, double cx, double cy, int dim, int dir, const struct apenet_hdb_incident *in)
{
	enum { CELL = 64 };
	/* screen: x grows to the right with the coordinate, y upwards */
	double ux = dim == 0 ? dir : 0, uy = dim == 1 ? -dir : 0, len = CELL / 2 + 10;
	double tx = cx + ux * len, ty = cy + uy * len;
	fprintf(f, "<g><title>wraparound cable of incident #%lld: %u,%u,%u ", (long long)in->id, in->node[0], in->node[1],
		in->node[2]);
	apenet_esc_html_put(f, in->link);
	fprintf(f, " - %u,%u,%u ", in->far[0], in->far[1], in->far[2]);
	apenet_esc_html_put(f, in->far_link);
	fprintf(f, " (around the torus's edge)</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"bad\"/>"
		   "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" class=\"wrap\"/></g>\n",
		cx, cy, tx - ux * 6, ty - uy * 6, tx + ux * 4, ty + uy * 4, tx - ux * 6 - uy * 7, ty - uy * 6 + ux * 7,
		tx - ux * 6 + uy * 7, ty - uy * 6 - ux * 7);
}

/* The span [lo, hi] of coordinate d over the map's nodes, at most max wide
 * (centred on the first fault's node when wider). */
static void span(const struct apenet_postmortem *pm, int d, unsigned max, unsigned *lo, unsigned *hi)
{
	*lo = ~0u;
	*hi = 0;
	for (unsigned i = 0; i < pm->nnodes; i++) {
		unsigned v = pm->nodes[i].xyz[d];
		if (v < *lo)
			*lo = v;
		if (v > *hi)
			*hi = v;
	}
	if (*lo == ~0u)
		*lo = *hi = 0;
	if (*hi - *lo + 1 > max) {
		unsigned c = pm->has_first ? pm->first.node[d] : *lo;
		*lo = c > max / 2 ? c - max / 2 : 0;
		*hi = *lo + max - 1;
	}
}

void apenet_postmortem_svg_map(FILE *f, const struct apenet_postmortem *pm)
{
	enum { CELL = 64, PAD = 28, MAXW = 12, MAXZ = 4 };
	unsigned x0, x1, y0, y1, zs[MAXZ], nz = 0;
	span(pm, 0, MAXW, &x0, &x1);
	span(pm, 1, MAXW, &y0, &y1);
	/* the slices (z) that hold a blamed node or the first fault, first */
	for (int want = APENET_POSTMORTEM_FIRST; want >= APENET_POSTMORTEM_NEARBY && nz < MAXZ; want--)
		for (unsigned i = 0; i < pm->nnodes && nz < MAXZ; i++) {
			if (pm->nodes[i].role != want)
				continue;
			unsigned j;
			for (j = 0; j < nz; j++)
				if (zs[j] == pm->nodes[i].xyz[2])
					break;
			if (j == nz)
				zs[nz++] = pm->nodes[i].xyz[2];
		}
	if (!nz)
		zs[nz++] = 0;
	unsigned w = (x1 - x0 + 1) * CELL, h = (y1 - y0 + 1) * CELL;
	unsigned W = nz * (w + PAD) + PAD, H = h + 2 * PAD + 32; /* room below for a wraparound's stub */
	if (W < 4 * 110 + PAD)
		W = 4 * 110 + PAD; /* room for the legend */
	fprintf(f, "<svg id=\"map\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		   "role=\"img\" aria-label=\"torus map of the affected region\">\n",
		W, H, W, H);
	for (unsigned k = 0; k < nz; k++) {
		unsigned ox = PAD + k * (w + PAD), oy = PAD + 14;
		fprintf(f, "<text x=\"%u\" y=\"%u\" class=\"lbl\">z = %u</text>\n", ox, PAD, zs[k]);
		/* the torus links between neighbours of the region (grid) */
		for (unsigned y = y0; y <= y1; y++)
			for (unsigned x = x0; x <= x1; x++) {
				unsigned cx = ox + (x - x0) * CELL + CELL / 2, cy = oy + (y1 - y) * CELL + CELL / 2;
				if (x < x1)
					fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"lk\"/>\n", cx, cy, cx + CELL, cy);
				if (y < y1)
					fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"lk\"/>\n", cx, cy, cx, cy - CELL);
			}
		/* blamed cables: thick, red */
		for (unsigned i = 0; i < pm->ninc; i++) {
			const struct apenet_hdb_incident *in = &pm->inc[i];
			if (!in->has_far || in->state == APENET_HDB_MERGED || in->node[2] != zs[k] || in->far[2] != zs[k])
				continue;
			const unsigned *a = in->node, *b = in->far;
			int ina = a[0] >= x0 && a[0] <= x1 && a[1] >= y0 && a[1] <= y1;
			int inb = b[0] >= x0 && b[0] <= x1 && b[1] >= y0 && b[1] <= y1;
			int da = 0, db = 0, wa = wrap_dir(pm, a, in->link, b, &da), wb = wrap_dir(pm, b, in->far_link, a, &db);
			if (wa || wb) {
				/* around the edge: a stub leaving each end outwards, not a
				 * line across the row */
				if (!wa)
					da = db, wa = -wb;
				if (!wb)
					db = da, wb = -wa;
				if (ina)
					wrap_stub(f, ox + (a[0] - x0) * CELL + CELL / 2, oy + (y1 - a[1]) * CELL + CELL / 2, da, wa, in);
				if (inb)
					wrap_stub(f, ox + (b[0] - x0) * CELL + CELL / 2, oy + (y1 - b[1]) * CELL + CELL / 2, db, wb, in);
				continue;
			}
			if (!ina || !inb)
				continue;
			fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"bad\"><title>cable of incident #%lld",
				ox + (a[0] - x0) * CELL + CELL / 2, oy + (y1 - a[1]) * CELL + CELL / 2,
				ox + (b[0] - x0) * CELL + CELL / 2, oy + (y1 - b[1]) * CELL + CELL / 2, (long long)in->id);
			fprintf(f, "</title></line>\n");
		}
		for (unsigned y = y0; y <= y1; y++)
			for (unsigned x = x0; x <= x1; x++) {
				const char *name;
				int role = role_at(pm, x, y, zs[k], &name);
				unsigned cx = ox + (x - x0) * CELL + CELL / 2, cy = oy + (y1 - y) * CELL + CELL / 2;
				fprintf(f, "<g><title>%u,%u,%u", x, y, zs[k]);
				if (name[0]) {
					fputs(" ", f);
					apenet_esc_html_put(f, name);
				}
				fprintf(f, "</title><circle cx=\"%u\" cy=\"%u\" r=\"17\" fill=\"%s\" class=\"nd\"/>"
					   "<text x=\"%u\" y=\"%u\" class=\"nl\">%u,%u</text></g>\n",
					cx, cy, role < 0 ? "#ffffff" : role_fill(role), cx, cy + 4, x, y);
			}
	}
	/* the legend */
	static const char *const what[] = { "first fault", "blamed", "saw it", "neighbour" };
	for (int r = 0; r < 4; r++) {
		unsigned lx = PAD + (unsigned)r * 110, ly = H - 10;
		fprintf(f, "<circle cx=\"%u\" cy=\"%u\" r=\"6\" fill=\"%s\" class=\"nd\"/><text x=\"%u\" y=\"%u\" "
			   "class=\"lbl\">%s</text>\n",
			lx, ly - 4, role_fill(APENET_POSTMORTEM_FIRST - r), lx + 10, ly, what[r]);
	}
	fprintf(f, "</svg>\n");
}

static const char *status_fill(const struct apenet_postmortem_event *ev)
{
	if (ev->kind == APENET_POSTMORTEM_OPENED || ev->kind == APENET_POSTMORTEM_CLOSED)
		return "#1f77b4";
	if (ev->kind == APENET_POSTMORTEM_EVIDENCE)
		return "#9467bd";
	return ev->new_status >= 2 ? "#d62728" : ev->new_status == 1 ? "#e6c229" : "#2ca02c";
}

void apenet_postmortem_svg_timeline(FILE *f, const struct apenet_postmortem *pm)
{
	enum { LANES = 24, LANE_H = 18, LEFT = 120, RIGHT = 20, TOP = 24, W = 1100 };
	char lanes[LANES][24];
	unsigned nl = 0;
	int64_t t0 = 0, t1 = 0;
	for (size_t i = 0; i < pm->nev; i++) {
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		if (!i || ev->time_ms < t0)
			t0 = ev->time_ms;
		if (!i || ev->time_ms > t1)
			t1 = ev->time_ms;
	}
	if (t1 <= t0)
		t1 = t0 + 1000;
	/* lanes: who reported, in order of their first report; the rest share
	 * the last lane */
	for (size_t i = 0; i < pm->nev && nl < LANES; i++) {
		char who[24];
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		apenet_postmortem_who(ev, who, sizeof(who));
		unsigned j;
		for (j = 0; j < nl; j++)
			if (!strcmp(lanes[j], who))
				break;
		if (j == nl)
			snprintf(lanes[nl++], sizeof(lanes[0]), "%s", who);
	}
	if (!nl)
		snprintf(lanes[nl++], sizeof(lanes[0]), "-");
	unsigned H = TOP + nl * LANE_H + 40;
	double sx = (double)(W - LEFT - RIGHT) / (double)(t1 - t0);
	fprintf(f, "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u "
		   "%u\" role=\"img\" aria-label=\"timeline\">\n",
		W, H, W, H);
	for (unsigned j = 0; j < nl; j++) {
		unsigned y = TOP + j * LANE_H + LANE_H / 2;
		fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"lane\"/><text x=\"4\" y=\"%u\" class=\"lbl\">",
			LEFT, y, W - RIGHT, y, y + 4);
		apenet_esc_html_put(f, lanes[j]);
		fprintf(f, "%s</text>\n", j == LANES - 1 ? " and more" : "");
	}
	/* the axis: ticks every "nice" step, labelled relative to the first fault */
	int64_t ref = pm->has_first ? pm->first.time_ms : t0;
	static const int64_t steps[] = { 100, 200, 500, 1000, 2000, 5000, 10000, 30000, 60000, 120000, 300000, 600000,
					 1800000, 3600000, 7200000, 21600000, 43200000, 86400000 };
	int64_t step = steps[sizeof(steps) / sizeof(steps[0]) - 1];
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if ((t1 - t0) / steps[i] <= 10) {
			step = steps[i];
			break;
		}
	unsigned ay = TOP + nl * LANE_H + 6;
	fprintf(f, "<line x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" class=\"axis\"/>\n", LEFT, ay, W - RIGHT, ay);
	int64_t first_tick = ref + ((t0 - ref) / step) * step;
	for (int64_t t = first_tick; t <= t1; t += step) {
		if (t < t0)
			continue;
		double x = LEFT + (double)(t - t0) * sx;
		char r[32];
		fprintf(f, "<line x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" class=\"axis\"/><text x=\"%.1f\" y=\"%u\" "
			   "class=\"tick\">%s</text>\n",
			x, ay, x, ay + 5, x, ay + 18, apenet_postmortem_rel(t - ref, r, sizeof(r)));
	}
	if (pm->has_first) {
		double x = LEFT + (double)(pm->first.time_ms - t0) * sx;
		fprintf(f, "<line x1=\"%.1f\" y1=\"%u\" x2=\"%.1f\" y2=\"%u\" class=\"first\"/><text x=\"%.1f\" y=\"%u\" "
			   "class=\"lbl\">first fault</text>\n",
			x, TOP - 6, x, ay, x + 3, TOP - 10);
	}
	for (size_t i = 0; i < pm->nev; i++) {
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		char who[24], t[40], r[32];
		apenet_postmortem_who(ev, who, sizeof(who));
		unsigned j;
		for (j = 0; j < nl - 1; j++)
			if (!strcmp(lanes[j], who))
				break;
		double x = LEFT + (double)(ev->time_ms - t0) * sx;
		unsigned y = TOP + j * LANE_H + LANE_H / 2;
		fprintf(f, "<g><title>%s (%s) ", apenet_out_iso_ms(ev->time_ms, t, sizeof(t)),
			pm->has_first ? apenet_postmortem_rel(ev->time_ms - ref, r, sizeof(r)) : "");
		if (ev->kind == APENET_POSTMORTEM_TRANSITION) {
			fprintf(f, "%u,%u,%u ", ev->node[0], ev->node[1], ev->node[2]);
			apenet_esc_html_put(f, ev->where);
			fputc(' ', f);
			apenet_esc_html_put(f, ev->code);
			fprintf(f, " %s: ", apenet_postmortem_status_name(ev->new_status));
		}
		apenet_esc_html_put(f, ev->text);
		if (ev->kind == APENET_POSTMORTEM_OPENED || ev->kind == APENET_POSTMORTEM_CLOSED)
			fprintf(f, "</title><rect x=\"%.1f\" y=\"%u\" width=\"9\" height=\"9\" transform=\"rotate(45 %.1f %u)\" "
				   "fill=\"%s\" class=\"mk\"/></g>\n",
				x - 4.5, y - 4, x, y, status_fill(ev));
		else
			fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%u\" r=\"%s\" fill=\"%s\" class=\"mk\"/></g>\n", x, y,
				ev->first ? "7" : "4.5", status_fill(ev));
	}
	fprintf(f, "</svg>\n");
}

void apenet_postmortem_svg_spark(FILE *f, const struct apenet_postmortem *pm, const struct apenet_postmortem_series *s, int64_t from_ms, int64_t to_ms)
{
	enum { W = 220, H = 36, P = 3 };
	fprintf(f, "<svg class=\"spark\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u "
		   "%u\">",
		W, H, W, H);
	if (to_ms <= from_ms)
		to_ms = from_ms + 1;
	double lo = s->min, hi = s->max;
	if (!(hi > lo))
		hi = lo + 1;
	double sx = (double)(W - 2 * P) / (double)(to_ms - from_ms), sy = (double)(H - 2 * P) / (hi - lo);
	if (pm->has_first && pm->first.time_ms >= from_ms && pm->first.time_ms <= to_ms) {
		double x = P + (double)(pm->first.time_ms - from_ms) * sx;
		fprintf(f, "<line x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%u\" class=\"first\"/>", x, x, H);
	}
	fprintf(f, "<polyline class=\"sp\" points=\"");
	for (unsigned i = 0; i < s->n; i++)
		fprintf(f, "%s%.1f,%.1f", i ? " " : "", P + (double)(s->t[i] - from_ms) * sx, H - P - (s->v[i] - lo) * sy);
	fprintf(f, "\"/></svg>");
}
