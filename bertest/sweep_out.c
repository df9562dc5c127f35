/*
 * What a sweep measured, written out: every point as CSV, and heat maps of
 * two parameters as text (a terminal, a ticket) and as SVG (apenet/sweep.h).
 * A heat-map cell holds the best upper bound among the points measured with
 * those two values, whatever the other parameters were: "how good can it
 * get here".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/esc.h"
#include "apenet/sweep.h"

int apenet_sweep_write_csv(const struct apenet_sweep *sw, FILE *f)
{
	fprintf(f, "vod,pre,post1,post2,rxeq,dcgain,bits,errors,ber,upper,lower,level\n");
	for (size_t i = 0; i < sw->n; i++) {
		const struct apenet_sweep_point *p = &sw->pt[i];
		if (!p->bits)
			continue;
		fprintf(f, "%u,%u,%u,%u,%u,%u,%llu,%llu,%.3e,%.3e,%.3e,%u\n", p->v[0], p->v[1], p->v[2], p->v[3],
			p->v[4], p->v[5], (unsigned long long)p->bits, (unsigned long long)p->errors, p->ber, p->upper,
			p->lower, p->level);
	}
	return ferror(f) ? -1 : 0;
}

/* The grid of a x b: cell (i, j) the best upper bound, 0 where nothing was
 * measured.  Caller frees. */
static double *cells(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, unsigned a, unsigned b,
		     unsigned *na, unsigned *nb)
{
	*na = (unsigned)(s->hi[a] - s->lo[a]) / (s->step[a] ? s->step[a] : 1) + 1;
	*nb = (unsigned)(s->hi[b] - s->lo[b]) / (s->step[b] ? s->step[b] : 1) + 1;
	double *c = calloc((size_t)*na * *nb, sizeof(double));
	if (!c)
		return NULL;
	for (size_t i = 0; i < sw->n; i++) {
		const struct apenet_sweep_point *p = &sw->pt[i];
		if (!p->bits || p->v[a] < s->lo[a] || p->v[b] < s->lo[b])
			continue;
		unsigned x = (p->v[a] - s->lo[a]) / (s->step[a] ? s->step[a] : 1);
		unsigned y = (p->v[b] - s->lo[b]) / (s->step[b] ? s->step[b] : 1);
		if (x >= *na || y >= *nb)
			continue;
		double *q = &c[(size_t)y * *na + x];
		if (*q == 0 || p->upper < *q)
			*q = p->upper;
	}
	return c;
}

/* The decade of a bound, 0..9 for 1e-18 .. 1e-9 and worse. */
static int decade(double u)
{
	int d = (int)floor(log10(u)) + 18;
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

int apenet_sweep_write_heatmap_text(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, unsigned a,
				    unsigned b, FILE *f)
{
	unsigned na, nb;
	double *c = cells(sw, s, a, b, &na, &nb);
	if (!c)
		return -1;
	fprintf(f, "%s (down) x %s (across): best upper bound measured, one digit a decade "
		   "(0 = 1e-18 or better ... 9 = 1e-9 or worse; . not measured)\n",
		apenet_sweep_param_name(b), apenet_sweep_param_name(a));
	fprintf(f, "%6s ", "");
	for (unsigned x = 0; x < na; x++)
		fprintf(f, "%3u", s->lo[a] + x * s->step[a]);
	fputc('\n', f);
	for (unsigned y = 0; y < nb; y++) {
		fprintf(f, "%6u ", s->lo[b] + y * s->step[b]);
		for (unsigned x = 0; x < na; x++) {
			double u = c[(size_t)y * na + x];
			if (u == 0)
				fprintf(f, "  .");
			else
				fprintf(f, "  %d", decade(u));
		}
		fputc('\n', f);
	}
	free(c);
	return ferror(f) ? -1 : 0;
}

/* A colour for a decade: green (good) through yellow to red (bad). */
static void colour(int d, char *out, size_t n)
{
	double t = d / 9.0;
	int r = (int)(t < 0.5 ? 510 * t : 255), g = (int)(t < 0.5 ? 200 : 200 * (1 - t) * 2);
	snprintf(out, n, "#%02x%02x40", r > 255 ? 255 : r, g < 0 ? 0 : g > 255 ? 255 : g);
}

int apenet_sweep_write_heatmap_svg(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, unsigned a,
				   unsigned b, const char *title, FILE *f)
{
	unsigned na, nb;
	double *c = cells(sw, s, a, b, &na, &nb);
	if (!c)
		return -1;
	const unsigned cw = 24, left = 60, top = 40;
	unsigned w = left + na * cw + 20, h = top + nb * cw + 60;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
		   "font-family=\"sans-serif\" font-size=\"11\">\n<title>", w, h);
	apenet_esc_html_put(f, title ? title : "sweep");
	fprintf(f, "</title>\n<text x=\"%u\" y=\"16\" font-size=\"13\">", left);
	apenet_esc_html_put(f, title ? title : "sweep");
	fprintf(f, "</text>\n<text x=\"%u\" y=\"32\">%s across, %s down: best upper bound at each cell</text>\n", left,
		apenet_sweep_param_name(a), apenet_sweep_param_name(b));
	for (unsigned x = 0; x < na; x++)
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\">%u</text>\n", left + x * cw + cw / 2,
			top + nb * cw + 14, s->lo[a] + x * s->step[a]);
	for (unsigned y = 0; y < nb; y++) {
		fprintf(f, "<text x=\"%u\" y=\"%u\" text-anchor=\"end\">%u</text>\n", left - 6, top + y * cw + cw / 2 + 4,
			s->lo[b] + y * s->step[b]);
		for (unsigned x = 0; x < na; x++) {
			double u = c[(size_t)y * na + x];
			char col[16] = "#eeeeee";
			if (u > 0)
				colour(decade(u), col, sizeof(col));
			fprintf(f, "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" stroke=\"#ffffff\">"
				   "<title>%s=%u %s=%u: ",
				left + x * cw, top + y * cw, cw, cw, col, apenet_sweep_param_name(a),
				s->lo[a] + x * s->step[a], apenet_sweep_param_name(b), s->lo[b] + y * s->step[b]);
			if (u > 0)
				fprintf(f, "BER &lt; %.2e</title></rect>\n", u);
			else
				fprintf(f, "not measured</title></rect>\n");
		}
	}
	fprintf(f, "<text x=\"%u\" y=\"%u\">green: 1e-18 or better; red: 1e-9 or worse; grey: not measured</text>\n",
		left, top + nb * cw + 34);
	fprintf(f, "</svg>\n");
	free(c);
	return ferror(f) ? -1 : 0;
}
