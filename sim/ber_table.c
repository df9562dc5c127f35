/*
 * Measured BER points (CSV) that replace the channel model for a lane: load,
 * range check, exact and nearest lookup.  Format and error wording are in
 * sim/channel.h.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apenet/err.h"
#include "channel.h"

enum { COL_VOD, COL_PRE, COL_POST1, COL_POST2, COL_RXEQ, COL_DCGAIN, COL_BER, NCOLS };
#define NSET 6 /* the integer settings, COL_VOD..COL_DCGAIN */

static const char *const col_names[NCOLS] = { "vod", "pre", "post1", "post2", "rxeq", "dcgain", "ber" };

struct ber_point {
	uint8_t set[NSET]; /* in COL_* order */
	double ber;
	unsigned line;
	uint16_t col[NSET]; /* character column of each setting, for messages */
};

struct key_ent {
	uint64_t key; /* the six settings, 8 bits each */
	size_t idx;   /* into pts */
};

struct sim_ber_table {
	char *path;
	struct ber_point *pts; /* file order */
	size_t n, cap;
	struct key_ent *keys;  /* sorted by settings, then file order: exact lookup */
	unsigned colmax[NSET];
};

static uint8_t pma_get(const struct sim_pma *p, unsigned c)
{
	switch (c) {
	case COL_VOD: return p->vod;
	case COL_PRE: return p->pre;
	case COL_POST1: return p->post1;
	case COL_POST2: return p->post2;
	case COL_RXEQ: return p->rxeq;
	default: return p->dcgain;
	}
}

static unsigned range_get(const struct apenet_pma_range *r, unsigned c)
{
	struct sim_pma p = { r->vod, r->pre, r->post1, r->post2, r->rxeq, r->dcgain };

	return pma_get(&p, c);
}

static uint64_t set_key(const uint8_t *set)
{
	uint64_t k = 0;

	for (unsigned c = 0; c < NSET; c++)
		k = (k << 8) | set[c];
	return k; /* 48 bits */
}

/* One CSV field of a line: [*s, end) trimmed; fields are split in place. */
struct field {
	char *s;
	unsigned col; /* 1-based column of the first non-blank character */
};

/* Split line at commas into at most max fields; returns the count found
 * (which may exceed max: the extra ones are not stored). */
static unsigned split_fields(char *line, struct field *f, unsigned max)
{
	unsigned n = 0;
	char *p = line;

	for (;;) {
		char *start = p, *end;

		while (*p && *p != ',')
			p++;
		end = p;
		while (start < end && (*start == ' ' || *start == '\t'))
			start++;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (n < max) {
			f[n].s = start;
			f[n].col = (unsigned)(start - line) + 1;
		}
		n++;
		if (!*p) {
			*end = 0;
			break;
		}
		*end = 0; /* end <= p, and p is the comma */
		p++;
	}
	return n;
}

static int parse_setting(const char *s, uint8_t *out)
{
	unsigned v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 255)
			return -1;
	}
	*out = (uint8_t)v;
	return 0;
}

static int is_blank_or_comment(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == 0 || *s == '#';
}

static int cmp_key(const void *a, const void *b)
{
	const struct key_ent *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sort keys; report the duplicate whose second occurrence comes first in
 * the file, naming both lines. */
static int index_points(struct sim_ber_table *t, char *err, size_t errlen)
{
	size_t dup_a = 0, dup_b = 0;
	int have_dup = 0;

	t->keys = malloc(t->n * sizeof(*t->keys));
	if (!t->keys) {
		apenet_errbuf(err, errlen, "%s: out of memory", t->path);
		return -1;
	}
	for (size_t i = 0; i < t->n; i++) {
		t->keys[i].key = set_key(t->pts[i].set);
		t->keys[i].idx = i;
	}
	qsort(t->keys, t->n, sizeof(*t->keys), cmp_key);
	for (size_t i = 1; i < t->n; i++) {
		/* equal settings sort by index, so [i-1] is the earlier one */
		size_t a = t->keys[i - 1].idx, b = t->keys[i].idx;

		if (t->keys[i].key != t->keys[i - 1].key)
			continue;
		if (!have_dup || b < dup_b) {
			dup_a = a;
			dup_b = b;
			have_dup = 1;
		}
	}
	if (have_dup) {
		const struct ber_point *p = &t->pts[dup_b];

		apenet_errbuf(err, errlen,
			"%s:%u: duplicate point vod=%u pre=%u post1=%u post2=%u rxeq=%u dcgain=%u "
			"(first at line %u)",
			t->path, p->line, p->set[0], p->set[1], p->set[2], p->set[3], p->set[4],
			p->set[5], t->pts[dup_a].line);
		return -1;
	}
	return 0;
}

/* Parse one data line into a new point. */
static int parse_row(struct sim_ber_table *t, char *line, unsigned lineno, const int *colmap,
		     unsigned ncols, char *err, size_t errlen)
{
	struct field f[64];
	struct ber_point pt = { .line = lineno };
	unsigned n = split_fields(line, f, 64);

	if (n != ncols) {
		apenet_errbuf(err, errlen, "%s:%u: expected %u fields as in the header, found %u", t->path,
			lineno, ncols, n);
		return -1;
	}
	for (unsigned i = 0; i < ncols; i++) {
		int c = colmap[i];

		if (c < 0)
			continue;
		if (c == COL_BER) {
			char *end;
			double v;

			errno = 0;
			v = strtod(f[i].s, &end);
			if (!*f[i].s || *end || errno == ERANGE || !isfinite(v)) {
				apenet_errbuf(err, errlen, "%s:%u:%u: field 'ber': '%s' is not a number",
					t->path, lineno, f[i].col, f[i].s);
				return -1;
			}
			if (!(v >= 0.0 && v <= 0.5)) {
				apenet_errbuf(err, errlen, "%s:%u:%u: field 'ber': %s is out of range 0..0.5",
					t->path, lineno, f[i].col, f[i].s);
				return -1;
			}
			pt.ber = v;
		} else {
			if (parse_setting(f[i].s, &pt.set[c]) < 0) {
				apenet_errbuf(err, errlen,
					"%s:%u:%u: field '%s': '%s' is not an integer in 0..255",
					t->path, lineno, f[i].col, col_names[c], f[i].s);
				return -1;
			}
			pt.col[c] = (uint16_t)(f[i].col > 65535 ? 65535 : f[i].col);
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct ber_point *np;

		np = realloc(t->pts, cap * sizeof(*np));
		if (!np) {
			apenet_errbuf(err, errlen, "%s: out of memory", t->path);
			return -1;
		}
		t->pts = np;
		t->cap = cap;
	}
	t->pts[t->n++] = pt;
	for (unsigned c = 0; c < NSET; c++)
		if (pt.set[c] > t->colmax[c])
			t->colmax[c] = pt.set[c];
	return 0;
}

/* The header: map each CSV column to a COL_* (or -1: ignored). */
static int parse_header(struct sim_ber_table *t, char *line, unsigned lineno, int *colmap,
			unsigned *ncols, char *err, size_t errlen)
{
	struct field f[64];
	unsigned n = split_fields(line, f, 64), seen[NCOLS] = { 0 };

	if (n > 64) {
		apenet_errbuf(err, errlen, "%s:%u: header has %u columns, at most 64", t->path, lineno, n);
		return -1;
	}
	for (unsigned i = 0; i < n; i++) {
		colmap[i] = -1;
		for (unsigned c = 0; c < NCOLS; c++) {
			if (strcasecmp(f[i].s, col_names[c]) != 0)
				continue;
			if (seen[c]) {
				apenet_errbuf(err, errlen, "%s:%u:%u: header: column '%s' appears twice",
					t->path, lineno, f[i].col, col_names[c]);
				return -1;
			}
			seen[c] = 1;
			colmap[i] = (int)c;
		}
	}
	for (unsigned c = 0; c < NCOLS; c++) {
		if (!seen[c]) {
			apenet_errbuf(err, errlen,
				"%s:%u: header: missing column '%s' (want vod,pre,post1,post2,rxeq,dcgain,ber)",
				t->path, lineno, col_names[c]);
			return -1;
		}
	}
	*ncols = n;
	return 0;
}

int sim_ber_table_load(const char *path, struct sim_ber_table **out, char *err, size_t errlen)
{
	struct sim_ber_table *t;
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0, ncols = 0;
	int colmap[64], have_header = 0, rc = -1;

	*out = NULL;
	fp = fopen(path, "r");
	if (!fp) {
		apenet_errbuf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->path = strdup(path))) {
		apenet_errbuf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if ((size_t)len != strlen(line)) {
			apenet_errbuf(err, errlen, "%s:%u: NUL byte in line", path, lineno);
			goto out;
		}
		if (is_blank_or_comment(line))
			continue;
		if (!have_header) {
			if (parse_header(t, line, lineno, colmap, &ncols, err, errlen) < 0)
				goto out;
			have_header = 1;
		} else if (parse_row(t, line, lineno, colmap, ncols, err, errlen) < 0) {
			goto out;
		}
	}
	if (ferror(fp)) {
		apenet_errbuf(err, errlen, "%s: read error", path);
		goto out;
	}
	if (!have_header) {
		apenet_errbuf(err, errlen, "%s: no header line (want vod,pre,post1,post2,rxeq,dcgain,ber)",
			path);
		goto out;
	}
	if (t->n == 0) {
		apenet_errbuf(err, errlen, "%s: no data points", path);
		goto out;
	}
	if (index_points(t, err, errlen) < 0)
		goto out;
	*out = t;
	t = NULL;
	rc = 0;
out:
	free(line);
	fclose(fp);
	sim_ber_table_free(t);
	return rc;
}

void sim_ber_table_free(struct sim_ber_table *t)
{
	if (!t)
		return;
	free(t->path);
	free(t->pts);
	free(t->keys);
	free(t);
}

size_t sim_ber_table_count(const struct sim_ber_table *t)
{
	return t ? t->n : 0;
}

int sim_ber_table_check(const struct sim_ber_table *t, const struct apenet_pma_range *range,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct ber_point *p = &t->pts[i];

		for (unsigned c = 0; c < NSET; c++) {
			unsigned max = range_get(range, c);

			if (p->set[c] > max) {
				apenet_errbuf(err, errlen, "%s:%u:%u: field '%s': %u is not an integer in 0..%u",
					t->path, p->line, p->col[c], col_names[c], p->set[c], max);
				return -1;
			}
		}
	}
	return 0;
}

double sim_ber_table_lookup(const struct sim_ber_table *t, const struct sim_pma *pma,
			    const struct apenet_pma_range *range, int *exact)
{
	uint8_t want[NSET];
	double scale[NSET], best_d = INFINITY;
	size_t lo = 0, hi = t->n, best = 0;
	uint64_t key;

	for (unsigned c = 0; c < NSET; c++)
		want[c] = pma_get(pma, c);
	key = set_key(want);
	/* Exact: binary search on the sorted keys. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->keys[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->n && t->keys[lo].key == key) {
		if (exact)
			*exact = 1;
		return t->pts[t->keys[lo].idx].ber;
	}
	/* Nearest in normalised space; strict < keeps the first of a tie. */
	for (unsigned c = 0; c < NSET; c++) {
		unsigned max = range ? range_get(range, c) : t->colmax[c];

		scale[c] = max ? 1.0 / max : 0.0;
	}
	for (size_t i = 0; i < t->n; i++) {
		double d = 0;

		for (unsigned c = 0; c < NSET; c++) {
			double x = ((double)t->pts[i].set[c] - want[c]) * scale[c];

			d += x * x;
		}
		if (d < best_d) {
			best_d = d;
			best = i;
		}
	}
	if (exact)
		*exact = 0;
	return t->pts[best].ber;
}
