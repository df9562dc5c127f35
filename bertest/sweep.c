/*
 * PMA sweeps: the grid, the two strategies and the choice (apenet/sweep.h;
 * docs/ber.md, "Sweeps").  No I/O: points are measured through the caller's
 * callback; the writers are in sweep_out.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/stats.h"
#include "apenet/sweep.h"

static const char *const names[APENET_SWEEP_NPARAM] = { "vod", "pre", "post1", "post2", "rxeq", "dcgain" };

const char *apenet_sweep_param_name(unsigned p)
{
	return p < APENET_SWEEP_NPARAM ? names[p] : "?";
}

int apenet_sweep_param_parse(const char *name)
{
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
		if (!strcmp(name, names[p]))
			return (int)p;
	return -1;
}

static uint8_t range_max(const struct apenet_pma_range *r, unsigned p)
{
	const uint8_t m[APENET_SWEEP_NPARAM] = { r->vod, r->pre, r->post1, r->post2, r->rxeq, r->dcgain };
	return m[p];
}

void apenet_sweep_space_full(struct apenet_sweep_space *s, const struct apenet_pma_range *r,
			     const uint8_t start[APENET_SWEEP_NPARAM])
{
	memset(s, 0, sizeof(*s));
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
		s->swept |= 1u << p;
		s->hi[p] = range_max(r, p);
		s->step[p] = 1;
		s->fixed[p] = start ? start[p] : 0;
	}
}

/* Values of parameter p in the grid. */
static unsigned nvals(const struct apenet_sweep_space *s, unsigned p)
{
	if (!(s->swept & (1u << p)))
		return 1;
	if (s->hi[p] < s->lo[p] || !s->step[p])
		return 0;
	return (unsigned)(s->hi[p] - s->lo[p]) / s->step[p] + 1;
}

uint64_t apenet_sweep_space_size(const struct apenet_sweep_space *s)
{
	uint64_t n = 1;
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
		n *= nvals(s, p);
	return n;
}

int apenet_sweep_range_parse(struct apenet_sweep_space *s, const struct apenet_pma_range *r, const char *spec,
			     struct apenet_err *e)
{
	char name[16];
	const char *eq = strchr(spec, '=');
	if (!eq || (size_t)(eq - spec) >= sizeof(name))
		return apenet_err_set(e, APENET_EINVAL, "--range '%s': say P=a:b[:step] (P one of vod, pre, post1, "
					"post2, rxeq, dcgain)", spec);
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = 0;
	int p = apenet_sweep_param_parse(name);
	if (p < 0)
		return apenet_err_set(e, APENET_EINVAL, "--range '%s': '%s' is not vod, pre, post1, post2, rxeq or dcgain",
				      spec, name);
	unsigned long v[3] = { 0, 0, 1 };
	int n = 0;
	const char *q = eq + 1;
	while (n < 3) {
		char *end;
		if (*q < '0' || *q > '9')
			break;
		v[n++] = strtoul(q, &end, 10);
		q = end;
		if (*q != ':')
			break;
		q++;
	}
	unsigned max = range_max(r, (unsigned)p);
	if (n < 2 || *q)
		return apenet_err_set(e, APENET_EINVAL, "--range '%s': say %s=a:b[:step] with whole numbers", spec, name);
	if (v[0] > v[1] || v[1] > max || v[2] < 1 || v[2] > max + 1u)
		return apenet_err_set(e, APENET_EINVAL,
				      "--range '%s': %s goes 0..%u on this card; need a <= b <= %u and a step of 1..%u",
				      spec, name, max, max, max + 1u);
	s->swept |= 1u << p;
	s->lo[p] = (uint8_t)v[0];
	s->hi[p] = (uint8_t)v[1];
	s->step[p] = (uint8_t)v[2];
	return 0;
}

/* ---- points and the grid index ---- */

static uint64_t key_of(const struct apenet_sweep_space *s, const uint8_t v[APENET_SWEEP_NPARAM])
{
	uint64_t k = 0;
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
		k = k * 256 + v[p];
	(void)s;
	return k;
}

static int index_grow(struct apenet_sweep *sw, const struct apenet_sweep_space *s);

/* Slot of v in the index: the entry (pt index + 1) or an empty slot. */
static size_t slot(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, const uint8_t *v)
{
	uint64_t k = key_of(s, v), h = k * 0x9E3779B97F4A7C15ull;
	size_t m = sw->index_cap - 1, i = (size_t)(h >> 20) & m;
	while (sw->index[i] && key_of(s, sw->pt[sw->index[i] - 1].v) != k)
		i = (i + 1) & m;
	return i;
}

static int index_grow(struct apenet_sweep *sw, const struct apenet_sweep_space *s)
{
	size_t cap = sw->index_cap ? sw->index_cap * 2 : 1024;
	uint32_t *old = sw->index;
	size_t oldcap = sw->index_cap;
	sw->index = calloc(cap, sizeof(*sw->index));
	if (!sw->index) {
		sw->index = old;
		return -1;
	}
	sw->index_cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i])
			sw->index[slot(sw, s, sw->pt[old[i] - 1].v)] = old[i];
	free(old);
	return 0;
}

/* The entry of v, added (unmeasured) when new; -1 out of memory. */
static long point(struct apenet_sweep *sw, const struct apenet_sweep_space *s, const uint8_t *v)
{
	if ((sw->n + 1) * 2 > sw->index_cap && index_grow(sw, s))
		return -1;
	size_t i = slot(sw, s, v);
	if (sw->index[i])
		return (long)sw->index[i] - 1;
	if (sw->n == sw->cap) {
		size_t cap = sw->cap ? sw->cap * 2 : 256;
		struct apenet_sweep_point *p = realloc(sw->pt, cap * sizeof(*p));
		if (!p)
			return -1;
		sw->pt = p;
		sw->cap = cap;
	}
	struct apenet_sweep_point *p = &sw->pt[sw->n];
	memset(p, 0, sizeof(*p));
	memcpy(p->v, v, APENET_SWEEP_NPARAM);
	p->ber = 0.5;
	p->upper = 1;
	sw->index[i] = (uint32_t)(++sw->n);
	return (long)sw->n - 1;
}

static long find(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, const uint8_t *v)
{
	if (!sw->index_cap)
		return -1;
	size_t i = slot(sw, s, v);
	return sw->index[i] ? (long)sw->index[i] - 1 : -1;
}

static void bounds(struct apenet_sweep_point *p, double cl)
{
	if (!p->bits)
		return;
	p->ber = (double)p->errors / (double)p->bits;
	p->upper = apenet_stats_poisson_upper(p->errors, cl) / (double)p->bits;
	p->lower = p->errors ? apenet_stats_poisson_lower(p->errors, cl) / (double)p->bits : 0;
}

/* Measures entry i up to `upto` bits in all. */
static int measure_to(struct apenet_sweep *sw, size_t i, uint64_t upto, const struct apenet_sweep_opts *o,
		      apenet_sweep_measure_fn fn, void *ctx, struct apenet_err *e)
{
	struct apenet_sweep_point *p = &sw->pt[i];
	if (p->bits >= upto)
		return 0;
	uint64_t got = 0, errs = 0;
	if (fn(ctx, p->v, upto - p->bits, &got, &errs, e))
		return -1;
	p = &sw->pt[i];
	p->bits += got;
	p->errors += errs;
	sw->bits += got;
	sw->measurements++;
	bounds(p, o->cl);
	if (o->progress)
		o->progress(o->progress_ctx, p, sw->bits, (unsigned)sw->n);
	return 0;
}

/* A point's smoothed error ratio, for tie-breaks: (errors + 0.5) / bits. */
static double smooth(const struct apenet_sweep_point *p)
{
	return p->bits ? (p->errors + 0.5) / (double)p->bits : 1;
}

/* Mean smoothed ratio of the measured points one and two steps away in one
 * parameter: among points that tie, the one in the middle of a good region
 * (the widest margin) is the one to choose (its true ratio is the lower, as
 * the landscape is smooth); 1 when no neighbour was measured. */
static double around(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, const uint8_t *v)
{
	double sum = 0;
	unsigned n = 0;
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
		if (!(s->swept & (1u << p)))
			continue;
		for (int d = -2; d <= 2; d++) {
			int x = v[p] + d * s->step[p];
			if (!d || x < s->lo[p] || x > s->hi[p])
				continue;
			uint8_t w[APENET_SWEEP_NPARAM];
			memcpy(w, v, sizeof(w));
			w[p] = (uint8_t)x;
			long j = find(sw, s, w);
			if (j >= 0 && sw->pt[j].bits) {
				sum += smooth(&sw->pt[j]);
				n++;
			}
		}
	}
	return n ? sum / n : 1;
}

/* Better of two measured points: the lower upper bound (at equal bits, the
 * fewer errors), then the better neighbourhood, then grid order. */
static int better(const struct apenet_sweep *sw, const struct apenet_sweep_space *s, size_t a, size_t b)
{
	const struct apenet_sweep_point *pa = &sw->pt[a], *pb = &sw->pt[b];
	if (pa->upper != pb->upper)
		return pa->upper < pb->upper;
	double na = around(sw, s, pa->v), nb = around(sw, s, pb->v);
	if (na != nb)
		return na < nb;
	return memcmp(pa->v, pb->v, APENET_SWEEP_NPARAM) < 0;
}

/* ---- exhaustive ---- */

static int exhaustive(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o,
		      apenet_sweep_measure_fn fn, void *ctx, struct apenet_sweep *sw, struct apenet_err *e)
{
	unsigned n[APENET_SWEEP_NPARAM], i[APENET_SWEEP_NPARAM] = { 0 };
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
		n[p] = nvals(s, p);
	for (;;) {
		uint8_t v[APENET_SWEEP_NPARAM];
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
			v[p] = (s->swept & (1u << p)) ? (uint8_t)(s->lo[p] + i[p] * s->step[p]) : s->fixed[p];
		long k = point(sw, s, v);
		if (k < 0)
			return apenet_err_set(e, APENET_EIO, "sweep: out of memory at %zu points", sw->n);
		if (measure_to(sw, (size_t)k, o->dwell_bits, o, fn, ctx, e))
			return -1;
		unsigned p = APENET_SWEEP_NPARAM;
		while (p-- > 0) {
			if (++i[p] < n[p])
				break;
			i[p] = 0;
		}
		if (p >= APENET_SWEEP_NPARAM)
			break;
	}
	size_t best = 0;
	for (size_t k = 1; k < sw->n; k++)
		if (better(sw, s, k, best))
			best = k;
	sw->best = best;
	return 0;
}

/* ---- adaptive ---- */

#define LEVELS 4       /* dwell / 1000, / 100, / 10, dwell */
#define FINALISTS 96   /* at most, points whose neighbourhoods are measured at the dwell */
#define RACE 8         /* at most, points in the final race */
#define RACE_FACTOR 10 /* at ten times the dwell */

struct cand {
	size_t *c;         /* entries of sw->pt still in the race */
	size_t n, cap;
	uint8_t *expanded; /* per entry of sw->pt: neighbourhood measured at this level */
	size_t ecap;
	size_t x[512];     /* the entries expanded at this level */
	size_t nx;
};

/* Within two steps of a point expanded at this level that is better. */
static int dominated(const struct cand *c, const struct apenet_sweep *sw, const struct apenet_sweep_space *s, size_t k)
{
	for (size_t i = 0; i < c->nx; i++) {
		const uint8_t *a = sw->pt[c->x[i]].v, *b = sw->pt[k].v;
		unsigned far = 0;
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM && !far; p++) {
			int d = a[p] > b[p] ? a[p] - b[p] : b[p] - a[p];
			far = d > 2 * (s->step[p] ? s->step[p] : 1);
		}
		if (!far && better(sw, s, c->x[i], k))
			return 1;
	}
	return 0;
}

static int cand_add(struct cand *c, size_t k)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->c[i] == k)
			return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 256;
		size_t *p = realloc(c->c, cap * sizeof(*p));
		if (!p)
			return -1;
		c->c = p;
		c->cap = cap;
	}
	c->c[c->n++] = k;
	return 0;
}

/* The expanded flags cover n entries. */
static int expanded_fit(struct cand *c, size_t n)
{
	if (c->ecap >= n)
		return 0;
	uint8_t *x = realloc(c->expanded, n);
	if (!x)
		return -1;
	memset(x + c->ecap, 0, n - c->ecap);
	c->expanded = x;
	c->ecap = n;
	return 0;
}

static const struct apenet_sweep *sort_sw;
static const struct apenet_sweep_space *sort_s;
static int by_score(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (x == y)
		return 0;
	return better(sort_sw, sort_s, x, y) ? -1 : 1;
}

static void cand_sort(struct cand *c, const struct apenet_sweep *sw, const struct apenet_sweep_space *s)
{
	sort_sw = sw;
	sort_s = s;
	qsort(c->c, c->n, sizeof(*c->c), by_score);
}

/* A value of p by grid index. */
static uint8_t val(const struct apenet_sweep_space *s, unsigned p, unsigned i)
{
	return (s->swept & (1u << p)) ? (uint8_t)(s->lo[p] + i * s->step[p]) : s->fixed[p];
}

/* Spread-out screening: a Latin hypercube of m points (each parameter's
 * values covered evenly, combined at random), plus the start point. */
static int screen(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o, struct apenet_sweep *sw,
		  struct cand *c, unsigned m)
{
	uint64_t rng = o->seed * 0x9E3779B97F4A7C15ull + 1;
	unsigned *perm[APENET_SWEEP_NPARAM] = { 0 };
	int rc = 0;
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM && !rc; p++) {
		perm[p] = malloc(m * sizeof(unsigned));
		if (!perm[p]) {
			rc = -1;
			break;
		}
		for (unsigned i = 0; i < m; i++)
			perm[p][i] = i;
		for (unsigned i = m; i > 1; i--) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			unsigned j = (unsigned)(rng % i), t = perm[p][i - 1];
			perm[p][i - 1] = perm[p][j];
			perm[p][j] = t;
		}
	}
	for (unsigned i = 0; i < m && !rc; i++) {
		uint8_t v[APENET_SWEEP_NPARAM];
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
			unsigned nv = nvals(s, p);
			v[p] = val(s, p, (unsigned)(((uint64_t)perm[p][i] * nv + nv / 2) / m) % nv);
		}
		long k = point(sw, s, v);
		rc = k < 0 || cand_add(c, (size_t)k) ? -1 : 0;
	}
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++)
		free(perm[p]);
	if (!rc && o->start) {
		uint8_t v[APENET_SWEEP_NPARAM];
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
			v[p] = o->start[p];
			if ((s->swept & (1u << p)) &&
			    (v[p] < s->lo[p] || v[p] > s->hi[p] || (v[p] - s->lo[p]) % s->step[p]))
				return 0; /* not on the grid: not screened */
			if (!(s->swept & (1u << p)))
				v[p] = s->fixed[p];
		}
		long k = point(sw, s, v);
		rc = k < 0 || cand_add(c, (size_t)k) ? -1 : 0;
	}
	return rc;
}

/* The neighbours of v one step away in one or two parameters, added to
 * the candidates. */
static int neighbours(const struct apenet_sweep_space *s, struct apenet_sweep *sw, struct cand *c, const uint8_t *v0)
{
	uint8_t v[APENET_SWEEP_NPARAM];
	memcpy(v, v0, sizeof(v));
	for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
		if (!(s->swept & (1u << p)))
			continue;
		for (int dp = -1; dp <= 1; dp++) {
			int xp = v0[p] + dp * s->step[p];
			if (xp < s->lo[p] || xp > s->hi[p])
				continue;
			for (unsigned q = p; q < APENET_SWEEP_NPARAM; q++) {
				if (!(s->swept & (1u << q)))
					continue;
				for (int dq = -1; dq <= 1; dq++) {
					if ((q == p && dq) || (!dp && (q == p || !dq)))
						continue;
					int xq = v0[q] + dq * s->step[q];
					if (xq < s->lo[q] || xq > s->hi[q])
						continue;
					memcpy(v, v0, sizeof(v));
					v[p] = (uint8_t)xp;
					v[q] = (uint8_t)xq;
					long k = point(sw, s, v);
					if (k < 0 || cand_add(c, (size_t)k))
						return -1;
				}
			}
		}
	}
	return 0;
}

static int adaptive(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o,
		    apenet_sweep_measure_fn fn, void *ctx, struct apenet_sweep *sw, struct apenet_err *e)
{
	uint64_t size = apenet_sweep_space_size(s);
	unsigned m = (unsigned)(size / 1000 < 48 ? 48 : size / 1000 > 1024 ? 1024 : size / 1000);
	if (m > size)
		m = (unsigned)size;
	struct cand c = { 0 };
	int rc = -1;
	if (screen(s, o, sw, &c, m))
		goto oom;
	static const unsigned tops[LEVELS] = { 8, 4, 2, 1 };
	/* the lists scale with the grid (a grid of 245,000 points or more
	 * keeps 128 and 96): on a small grid the finalists' neighbourhoods
	 * would otherwise cover it all, several times */
	size_t fin = (size_t)(size / 2500);
	fin = fin < 4 ? 4 : fin > FINALISTS ? FINALISTS : fin;
	size_t k0 = (size_t)(size / 1900);
	k0 = k0 > 128 ? 128 : k0 < fin ? fin : k0;
	const size_t keep[LEVELS] = { k0, fin, fin, fin };
	const size_t race = fin < RACE ? fin : RACE;
	for (unsigned lv = 0; lv < LEVELS; lv++) {
		uint64_t d = o->dwell_bits;
		for (unsigned k = lv; k < LEVELS - 1; k++)
			d /= 10;
		if (!d)
			d = 1;
		if (c.ecap)
			memset(c.expanded, 0, c.ecap);
		c.nx = 0;
		for (int round = 0; round < 12; round++) {
			for (size_t i = 0; i < c.n; i++) {
				if (measure_to(sw, c.c[i], d, o, fn, ctx, e))
					goto out;
				sw->pt[c.c[i]].level = lv;
			}
			cand_sort(&c, sw, s);
			/* local search: the neighbourhoods of the best few, at this
			 * level, until the best few have all been expanded */
			int grew = 0;
			unsigned took = 0;
			for (size_t i = 0; i < c.n && took < tops[lv]; i++) {
				size_t k = c.c[i];
				if (expanded_fit(&c, sw->cap))
					goto oom;
				if (c.expanded[k]) {
					took++;
					continue;
				}
				/* one climb a basin: a point beside a better one
				 * already expanded is that climb's business */
				if (dominated(&c, sw, s, k))
					continue;
				c.expanded[k] = 1;
				took++;
				if (c.nx < sizeof(c.x) / sizeof(c.x[0]))
					c.x[c.nx++] = k;
				size_t before = c.n;
				uint8_t v[APENET_SWEEP_NPARAM];
				memcpy(v, sw->pt[k].v, sizeof(v));
				if (neighbours(s, sw, &c, v))
					goto oom;
				grew |= c.n > before;
			}
			if (!grew)
				break;
		}
		/* racing: out once proven worse than the best, and the list
		 * shrinks level by level */
		cand_sort(&c, sw, s);
		double best_up = sw->pt[c.c[0]].upper;
		size_t w = 0;
		for (size_t i = 0; i < c.n && w < keep[lv]; i++)
			if (sw->pt[c.c[i]].lower <= best_up)
				c.c[w++] = c.c[i];
		c.n = w;
	}
	/* The finalists' neighbourhoods, one and two steps away, at the full
	 * dwell: finalists that tie (no error at the dwell, as every good
	 * point shows) are told apart by them (better(): the one deepest in
	 * a good region), as the exhaustive search tells its ties apart with
	 * every neighbour measured.  Then a race of the best few at ten
	 * times the dwell. */
	for (size_t i = 0; i < c.n; i++) {
		uint8_t v0[APENET_SWEEP_NPARAM];
		memcpy(v0, sw->pt[c.c[i]].v, sizeof(v0));
		for (unsigned p = 0; p < APENET_SWEEP_NPARAM; p++) {
			if (!(s->swept & (1u << p)))
				continue;
			for (int d = -2; d <= 2; d++) {
				int x = v0[p] + d * s->step[p];
				if (!d || x < s->lo[p] || x > s->hi[p])
					continue;
				uint8_t v[APENET_SWEEP_NPARAM];
				memcpy(v, v0, sizeof(v));
				v[p] = (uint8_t)x;
				long k = point(sw, s, v);
				if (k < 0)
					goto oom;
				if (measure_to(sw, (size_t)k, o->dwell_bits, o, fn, ctx, e))
					goto out;
			}
		}
	}
	cand_sort(&c, sw, s);
	if (c.n > race)
		c.n = race;
	for (size_t i = 0; i < c.n; i++)
		if (measure_to(sw, c.c[i], o->dwell_bits * RACE_FACTOR, o, fn, ctx, e))
			goto out;
	cand_sort(&c, sw, s);
	sw->best = c.c[0];
	rc = 0;
	goto out;
oom:
	apenet_err_set(e, APENET_EIO, "sweep: out of memory at %zu points", sw->n);
out:
	free(c.c);
	free(c.expanded);
	return rc;
}

int apenet_sweep_run(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o,
		     apenet_sweep_measure_fn measure, void *ctx, struct apenet_sweep *sw, struct apenet_err *e)
{
	memset(sw, 0, sizeof(*sw));
	uint64_t size = apenet_sweep_space_size(s);
	if (!size)
		return apenet_err_set(e, APENET_EINVAL, "sweep: the grid is empty");
	if (size > 50000000)
		return apenet_err_set(e, APENET_EINVAL, "sweep: %llu points is more than 50 million; give --range steps",
				      (unsigned long long)size);
	if (!o->dwell_bits || !(o->cl > 0 && o->cl < 1))
		return apenet_err_set(e, APENET_EINVAL, "sweep: a dwell of at least one bit and 0 < CL < 1");
	return o->strategy == APENET_SWEEP_EXHAUSTIVE ? exhaustive(s, o, measure, ctx, sw, e)
						      : adaptive(s, o, measure, ctx, sw, e);
}

/* The plan's measure: every point clean, every bit asked for delivered. */
static int plan_measure(void *ctx, const uint8_t v[APENET_SWEEP_NPARAM], uint64_t bits, uint64_t *got_bits,
			uint64_t *got_errors, struct apenet_err *e)
{
	(void)ctx;
	(void)v;
	(void)e;
	*got_bits = bits;
	*got_errors = 0;
	return 0;
}

int apenet_sweep_plan(const struct apenet_sweep_space *s, const struct apenet_sweep_opts *o,
		      struct apenet_sweep_plan *plan, struct apenet_err *e)
{
	struct apenet_sweep_opts po = *o;
	po.progress = NULL;
	po.progress_ctx = NULL;
	struct apenet_sweep sw;
	memset(plan, 0, sizeof(*plan));
	int rc = apenet_sweep_run(s, &po, plan_measure, NULL, &sw, e);
	plan->bits = sw.bits;
	plan->measurements = sw.measurements;
	plan->points = sw.n;
	apenet_sweep_free(&sw);
	return rc;
}

void apenet_sweep_free(struct apenet_sweep *sw)
{
	free(sw->pt);
	free(sw->index);
	memset(sw, 0, sizeof(*sw));
}
