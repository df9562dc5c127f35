/*
 * Cabling judged against the torus (include/apenet/cabling.h).
 *
 * An end is node index * APENET_MAX_LINKS + link, the node index
 * x + X * (y + Y * z): every lookup (a node's data, the end a link faces,
 * the end it should face) is O(1), so 32K nodes cost a few passes over
 * 256K ends.  One problem per physical fault: a plug swap makes four ends
 * disagree with the layout and is reported once; what is left is reported
 * per observed cable, then missing cables once per expected cable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/cabling.h"

#define NL APENET_MAX_LINKS
#define NONE (-1)    /* no partner */
#define EXT (-2)     /* a partner that is not a torus node (detector, switch) */
#define OUTSIDE (-3) /* a partner whose coordinates lie outside the torus */

/* What became of each observation. */
enum obs_state { OBS_USED, OBS_FAILED, OBS_FAILED_NOWHERE, OBS_OUTSIDE, OBS_TWICE };

struct judge {
	const struct apenet_config *cfg; /* names; may be NULL */
	const struct apenet_cabling_obs *obs;
	size_t nobs;
	unsigned dims[3], n;
	int wrap[3];
	int32_t *at;                     /* node -> observation index, -1: none */
	unsigned char *ostate;           /* per observation: enum obs_state */
	int32_t *first;                  /* OBS_TWICE: the observation that had the node first */
	const struct apenet_profile *prof; /* the variant of nodes without data */
	unsigned char *done;             /* per end: already in a problem */
	struct apenet_cabling *res;
	struct apenet_findings *fs;
	int oom;
};

const char *apenet_cabling_kind_name(enum apenet_cabling_kind k)
{
	static const char *const names[] = { "swapped", "crossed", "wrong-port", "unexpected",
					     "missing", "inconsistent", "unreachable", "layout" };
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *apenet_cabling_kind_code(enum apenet_cabling_kind k)
{
	static const char *const codes[] = { "CABLE_SWAPPED",    "CABLE_CROSSED",      "CABLE_WRONG_PORT",
					     "CABLE_UNEXPECTED", "CABLE_MISSING",      "CABLE_INCONSISTENT",
					     "NODE_UNREACHABLE", "TORUS_LAYOUT" };
	return (unsigned)k < sizeof(codes) / sizeof(codes[0]) ? codes[k] : "?";
}

/* ---- ends ---- */

static void coord_xyz(uint32_t reg, unsigned xyz[3])
{
	/* NODE_COORD, TORUS_DIMS and LINK_PARTNER share the X, Y, Z byte layout */
	xyz[0] = APENET_GET(NODE_COORD, X, reg);
	xyz[1] = APENET_GET(NODE_COORD, Y, reg);
	xyz[2] = APENET_GET(NODE_COORD, Z, reg);
}

static int inside(const struct judge *j, const unsigned xyz[3])
{
	return xyz[0] < j->dims[0] && xyz[1] < j->dims[1] && xyz[2] < j->dims[2];
}

static unsigned node_index(const struct judge *j, const unsigned xyz[3])
{
	return xyz[0] + j->dims[0] * (xyz[1] + j->dims[1] * xyz[2]);
}

static void node_xyz(const struct judge *j, unsigned node, unsigned xyz[3])
{
	xyz[0] = node % j->dims[0];
	xyz[1] = node / j->dims[0] % j->dims[1];
	xyz[2] = node / j->dims[0] / j->dims[1];
}

/* The node's data, or NULL (not read, or could not be). */
static const struct apenet_cabling_obs *data(const struct judge *j, unsigned node)
{
	int32_t k = j->at[node];
	return k >= 0 && j->ostate[k] == OBS_USED ? &j->obs[k] : NULL;
}

static const struct apenet_profile *prof_of(const struct judge *j, int end)
{
	const struct apenet_cabling_obs *o = data(j, (unsigned)end / NL);
	return o ? o->prof : j->prof;
}

static const char *link_name(const struct judge *j, int end)
{
	const struct apenet_profile *p = prof_of(j, end);
	unsigned l = (unsigned)end % NL;
	return l < p->nlinks ? p->links[l].name : "?";
}

static const char *node_name(const struct judge *j, const unsigned xyz[3])
{
	return j->cfg ? apenet_config_node_name(j->cfg, xyz[0], xyz[1], xyz[2]) : NULL;
}

/* The end the layout says this end is cabled to (NONE: no cable there). */
static int expected(const struct judge *j, int end)
{
	const struct apenet_profile *p = prof_of(j, end);
	unsigned l = (unsigned)end % NL, xyz[3], far[3];
	if (l >= p->nlinks)
		return NONE;
	node_xyz(j, (unsigned)end / NL, xyz);
	enum apenet_dir back;
	int dim, wrap;
	if (apenet_torus_neighbour(j->dims, xyz, p->links[l].dir, far, &back, &dim, &wrap) || (wrap && !j->wrap[dim]))
		return NONE;
	int fe = (int)(node_index(j, far) * NL);
	int k = apenet_profile_link_dir(prof_of(j, fe), back);
	return k < 0 ? NONE : fe + k;
}

/* The end this end's LINK_PARTNER names (or NONE, EXT, OUTSIDE). */
static int observed(const struct judge *j, int end)
{
	const struct apenet_cabling_obs *o = data(j, (unsigned)end / NL);
	unsigned l = (unsigned)end % NL, f[3];
	if (!o || l >= o->prof->nlinks)
		return NONE;
	uint32_t p = o->link_partner[l];
	if (!APENET_GET(LINK_PARTNER, VALID, p))
		return NONE;
	if (APENET_GET(LINK_PARTNER, EXTERNAL, p))
		return EXT;
	coord_xyz(p, f);
	unsigned port = APENET_GET(LINK_PARTNER, PORT, p);
	if (!inside(j, f) || port >= NL)
		return OUTSIDE;
	return (int)(node_index(j, f) * NL + port);
}

static struct apenet_cabling_end mk_end(const struct judge *j, int end)
{
	struct apenet_cabling_end e = { .link = -1 };
	if (end < 0)
		return e;
	e.valid = 1;
	node_xyz(j, (unsigned)end / NL, e.xyz);
	e.link = end % NL;
	e.link_name = link_name(j, end);
	e.name = node_name(j, e.xyz);
	return e;
}

static struct apenet_cabling_end mk_node(const struct judge *j, const unsigned xyz[3])
{
	struct apenet_cabling_end e = { .valid = 1, .link = -1 };
	memcpy(e.xyz, xyz, sizeof(e.xyz));
	e.name = inside(j, xyz) ? node_name(j, xyz) : NULL;
	return e;
}

/* "quong01 0,0,0 X+", "0,0,0 X+" */
static const char *label(const struct judge *j, int end, char *buf, size_t n)
{
	unsigned xyz[3];
	node_xyz(j, (unsigned)end / NL, xyz);
	const char *name = node_name(j, xyz);
	snprintf(buf, n, "%s%s%u,%u,%u %s", name ? name : "", name ? " " : "", xyz[0], xyz[1], xyz[2],
		 link_name(j, end));
	return buf;
}

/* "node quong02 (1,0,0)", "node 1,0,0" */
static const char *node_label(const struct judge *j, const unsigned xyz[3], char *buf, size_t n)
{
	const char *name = inside(j, xyz) ? node_name(j, xyz) : NULL;
	if (name)
		snprintf(buf, n, "node %s (%u,%u,%u)", name, xyz[0], xyz[1], xyz[2]);
	else
		snprintf(buf, n, "node %u,%u,%u", xyz[0], xyz[1], xyz[2]);
	return buf;
}

/* What an end's registers say, for the evidence: "0,0,0 X+: up, partner 3,0,0 X+". */
static const char *reading(const struct judge *j, int end, char *buf, size_t n)
{
	char l[128], p[160], pl[128];
	const struct apenet_cabling_obs *o = data(j, (unsigned)end / NL);
	unsigned li = (unsigned)end % NL;
	label(j, end, l, sizeof(l));
	if (!o) {
		snprintf(buf, n, "%s: not read", l);
		return buf;
	}
	int ob = observed(j, end);
	uint32_t reg = li < o->prof->nlinks ? o->link_partner[li] : 0;
	if (ob == NONE)
		snprintf(p, sizeof(p), "no partner");
	else if (ob == EXT)
		snprintf(p, sizeof(p), "an external partner");
	else if (ob == OUTSIDE)
		snprintf(p, sizeof(p), "partner %u,%u,%u port %u (outside the torus)", APENET_GET(LINK_PARTNER, X, reg),
			 APENET_GET(LINK_PARTNER, Y, reg), APENET_GET(LINK_PARTNER, Z, reg),
			 APENET_GET(LINK_PARTNER, PORT, reg));
	else
		snprintf(p, sizeof(p), "partner %s", label(j, ob, pl, sizeof(pl)));
	snprintf(buf, n, "%s: %s, %s", l,
		 li < o->prof->nlinks ? apenet_link_state_name(APENET_GET(LINK_STATE, STATE, o->link_state[li])) : "no link",
		 p);
	return buf;
}

/* ---- problems ---- */

static void problem(struct judge *j, enum apenet_cabling_kind kind, enum apenet_sev sev, struct apenet_cabling_end a,
		    struct apenet_cabling_end b, struct apenet_cabling_end ea, struct apenet_cabling_end eb, const char *msg,
		    const char *rec, const char *evidence)
{
	struct apenet_cabling *r = j->res;
	if (r->np == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct apenet_cabling_problem *p = realloc(r->p, cap * sizeof(*p));
		if (!p) {
			j->oom = 1;
			return;
		}
		r->p = p;
		r->cap = cap;
	}
	size_t len = strlen(msg) + (rec ? strlen(rec) + 2 : 0) + 1;
	char *text = malloc(len);
	if (!text) {
		j->oom = 1;
		return;
	}
	snprintf(text, len, "%s%s%s", msg, rec ? ": " : "", rec ? rec : "");
	r->p[r->np++] = (struct apenet_cabling_problem){ kind, a, b, ea, eb, text };

	char where[24] = "";
	if (a.valid && a.link >= 0)
		snprintf(where, sizeof(where), "%u,%u,%u:%.6s", a.xyz[0], a.xyz[1], a.xyz[2], a.link_name);
	else if (a.valid)
		snprintf(where, sizeof(where), "%u,%u,%u", a.xyz[0], a.xyz[1], a.xyz[2]);
	struct apenet_finding *f = apenet_finding_add(j->fs, sev, APENET_SUBJ_CABLING, a.valid ? a.link : -1, -1, where,
						      apenet_cabling_kind_code(kind));
	apenet_finding_message(f, "%s", msg);
	if (rec)
		apenet_finding_rec(f, "%s", rec);
	if (evidence)
		apenet_finding_evidence(f, "%s", evidence);
}

static void mark(struct judge *j, int end)
{
	if (end >= 0)
		j->done[end] = 1;
}

/* An end that should face `end` and faces nothing is part of the same fault. */
static void mark_if_empty(struct judge *j, int end)
{
	if (end >= 0 && observed(j, end) == NONE)
		mark(j, end);
}

/* 1. swaps: A observes what B expects and B observes what A expects. */
static void find_swaps(struct judge *j, int nends)
{
	char la[128], lb[128], m[400], ev[700], r1[320], r2[320];
	for (int a = 0; a < nends; a++) {
		int x = observed(j, a), ea = expected(j, a);
		if (j->done[a] || x < 0 || x == ea || ea < 0)
			continue;
		int b = expected(j, x); /* the end that should face what A faces */
		if (b < 0 || b == a || observed(j, b) != ea)
			continue;
		/* The same state reads as a swap at (A, B) or at (X, EA): name the
		 * pair that sits on one node (the "X+ <-> X-" mistake). */
		int y = ea, sa = a, sb = b;
		if (a / NL != b / NL && x / NL == y / NL) {
			sa = x < y ? x : y;
			sb = x < y ? y : x;
		} else if (b < a) {
			sa = b;
			sb = a;
		}
		snprintf(m, sizeof(m), "the plugs at %s and %s are swapped", label(j, sa, la, sizeof(la)),
			 label(j, sb, lb, sizeof(lb)));
		snprintf(ev, sizeof(ev), "%s; %s", reading(j, sa, r1, sizeof(r1)), reading(j, sb, r2, sizeof(r2)));
		problem(j, APENET_CABLING_SWAPPED, APENET_SEV_FAIL, mk_end(j, sa), mk_end(j, sb), mk_end(j, expected(j, sa)),
			mk_end(j, expected(j, sb)), m, "swap them back", ev);
		mark(j, a);
		mark(j, b);
		mark(j, x);
		mark(j, y);
	}
}

/* 2. cables that are there, but not where the layout wants them. */
static void find_misplaced(struct judge *j, int nends)
{
	char la[128], lb[128], lc[128], ld[128], m[600], rec[600], ev[700], r1[320], r2[320];
	for (int a = 0; a < nends; a++) {
		int p = observed(j, a), ea = expected(j, a);
		if (j->done[a] || p == NONE || p == ea)
			continue;
		label(j, a, la, sizeof(la));
		if (p == EXT || p == OUTSIDE) {
			/* an external partner where no torus cable belongs is a channel doing its job */
			if (p == EXT && ea < 0)
				continue;
			reading(j, a, r1, sizeof(r1));
			if (ea < 0) {
				snprintf(m, sizeof(m), "%s is cabled to a node outside the %ux%ux%u torus, where the layout has no cable",
					 la, j->dims[0], j->dims[1], j->dims[2]);
				problem(j, APENET_CABLING_UNEXPECTED, APENET_SEV_WARN, mk_end(j, a), mk_end(j, NONE), mk_end(j, NONE),
					mk_end(j, NONE), m, "check the layout (dims, wraparound) or remove the cable", r1);
			} else {
				snprintf(m, sizeof(m), "%s is cabled to %s", la,
					 p == EXT ? "a device that is not a torus node" : "a node outside the torus");
				snprintf(rec, sizeof(rec), "the layout wants %s <-> %s: re-cable it", la, label(j, ea, lc, sizeof(lc)));
				problem(j, APENET_CABLING_CROSSED, APENET_SEV_FAIL, mk_end(j, a), mk_end(j, NONE), mk_end(j, ea),
					mk_end(j, NONE), m, rec, r1);
				mark_if_empty(j, ea);
			}
			mark(j, a);
			continue;
		}
		int back = observed(j, p), ep = expected(j, p);
		label(j, p, lb, sizeof(lb));
		snprintf(ev, sizeof(ev), "%s; %s", reading(j, a, r1, sizeof(r1)), reading(j, p, r2, sizeof(r2)));
		if (back != a && data(j, (unsigned)p / NL)) {
			snprintf(m, sizeof(m), "%s sees %s, which does not see it back", la, lb);
			problem(j, APENET_CABLING_INCONSISTENT, APENET_SEV_WARN, mk_end(j, a), mk_end(j, p), mk_end(j, ea),
				mk_end(j, ep), m, "stale or inconsistent data; read both again", ev);
			mark(j, a);
			continue;
		}
		if (ea < 0 && ep < 0) {
			snprintf(m, sizeof(m), "a cable joins %s and %s where the layout has none", la, lb);
			problem(j, APENET_CABLING_UNEXPECTED, APENET_SEV_WARN, mk_end(j, a), mk_end(j, p), mk_end(j, ea),
				mk_end(j, ep), m, "check the layout (dims, wraparound) or remove the cable", ev);
		} else if (ea >= 0 && ea / NL == p / NL) {
			snprintf(m, sizeof(m), "%s reaches the right node but the wrong port", la);
			snprintf(rec, sizeof(rec), "move the plug from %s to %s", lb, label(j, ea, lc, sizeof(lc)));
			problem(j, APENET_CABLING_WRONG_PORT, APENET_SEV_FAIL, mk_end(j, a), mk_end(j, p), mk_end(j, ea),
				mk_end(j, ep), m, rec, ev);
		} else {
			if (ea >= 0)
				label(j, ea, lc, sizeof(lc));
			else
				snprintf(lc, sizeof(lc), "nothing");
			if (ep >= 0)
				label(j, ep, ld, sizeof(ld));
			else
				snprintf(ld, sizeof(ld), "nothing");
			snprintf(m, sizeof(m), "%s is cabled to %s", la, lb);
			snprintf(rec, sizeof(rec), "the layout wants %s <-> %s and %s <-> %s: re-cable them", la, lc, lb, ld);
			problem(j, APENET_CABLING_CROSSED, APENET_SEV_FAIL, mk_end(j, a), mk_end(j, p), mk_end(j, ea), mk_end(j, ep),
				m, rec, ev);
		}
		mark(j, a);
		mark(j, p);
		/* Moving the plug fills ea; the crossed record also names what p's
		 * side wants, the wrong-port one does not (its own missing cable). */
		mark_if_empty(j, ea);
		if (ea < 0 || ea / NL != p / NL)
			mark_if_empty(j, ep);
	}
}

/* 3. expected cables that are not there, once per cable. */
static void find_missing(struct judge *j, int nends)
{
	char la[128], lb[128], m[400], ev[700], r1[320], r2[320];
	for (int a = 0; a < nends; a++) {
		int ea = expected(j, a);
		if (j->done[a] || ea < 0 || !data(j, (unsigned)a / NL) || observed(j, a) != NONE)
			continue;
		if (observed(j, ea) == a)
			continue; /* the far end sees us: a one-sided read, not a missing cable */
		label(j, a, la, sizeof(la));
		label(j, ea, lb, sizeof(lb));
		snprintf(ev, sizeof(ev), "%s; %s", reading(j, a, r1, sizeof(r1)), reading(j, ea, r2, sizeof(r2)));
		if (!data(j, (unsigned)ea / NL)) {
			snprintf(m, sizeof(m), "%s has no link to %s, and that node could not be read", la, lb);
			problem(j, APENET_CABLING_MISSING, APENET_SEV_WARN, mk_end(j, a), mk_end(j, ea), mk_end(j, ea), mk_end(j, a),
				m, "check that node first (powered? its card?), then the cable", ev);
		} else {
			snprintf(m, sizeof(m), "no cable between %s and %s", la, lb);
			problem(j, APENET_CABLING_MISSING, APENET_SEV_FAIL, mk_end(j, a), mk_end(j, ea), mk_end(j, ea), mk_end(j, a),
				m, "plug it (or replace it if it is plugged)", ev);
		}
		mark(j, a);
		mark_if_empty(j, ea);
	}
}

/* ---- the torus and the nodes ---- */

static const char *src_of(const struct apenet_cabling_obs *o)
{
	return o->src ? o->src : "(no source)";
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The dimensions most boards declare (ties: the one read first), 0 when none does.
 * Sorted, then counted once per distinct value: O(n log n) (counting each
 * board's run anew was O(n^2), half a second at 32K nodes). */
static uint32_t board_dims(const struct apenet_cabling_obs *obs, size_t n, size_t *agree, size_t *declared)
{
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v));
	size_t *count = malloc((n ? n : 1) * sizeof(*count));
	size_t k = 0, u = 0, best = 0;
	uint32_t mode = 0;
	if (!v || !count) {
		free(v);
		free(count);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		if (!obs[i].err && obs[i].torus_dims)
			v[k++] = obs[i].torus_dims & 0xffffffu;
	qsort(v, k, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < k; i++) { /* v[0..u): the distinct values, count[]: how many of each */
		if (u && v[u - 1] == v[i]) {
			count[u - 1]++;
			continue;
		}
		v[u] = v[i];
		count[u++] = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (obs[i].err || !obs[i].torus_dims)
			continue;
		uint32_t d = obs[i].torus_dims & 0xffffffu;
		const uint32_t *at = bsearch(&d, v, u, sizeof(*v), cmp_u32);
		size_t c = count[at - v];
		if (c > best) {
			best = c;
			mode = d;
		}
	}
	free(v);
	free(count);
	*agree = best;
	*declared = k;
	return mode;
}

static int setup(struct judge *j, const struct apenet_cabling_obs *obs, size_t n, const struct apenet_config *cfg,
		 size_t *agree, size_t *declared, struct apenet_err *e)
{
	struct apenet_cabling *r = j->res;
	j->wrap[0] = j->wrap[1] = j->wrap[2] = 1;
	if (cfg && cfg->cl.have) {
		memcpy(j->dims, cfg->cl.dims, sizeof(j->dims));
		memcpy(j->wrap, cfg->cl.wrap, sizeof(j->wrap));
		r->dims_from_config = 1;
	} else {
		coord_xyz(board_dims(obs, n, agree, declared), j->dims);
		if (!*declared) {
			for (size_t i = 0; i < n; i++)
				if (!obs[i].err)
					return apenet_err_set(e, APENET_EINVAL,
							      "%s: the board does not declare its torus dimensions (TORUS_DIMS is 0): "
							      "the layout must come from a config (cluster.dims)",
							      src_of(&obs[i]));
		} else if (!j->dims[0] || !j->dims[1] || !j->dims[2]) {
			return apenet_err_set(e, APENET_EINVAL, "the boards declare a %ux%ux%u torus: every size must be at least 1",
					      j->dims[0], j->dims[1], j->dims[2]);
		}
	}
	memcpy(r->dims, j->dims, sizeof(r->dims));
	memcpy(r->wrap, j->wrap, sizeof(r->wrap));
	j->n = j->dims[0] * j->dims[1] * j->dims[2];
	if (j->n > APENET_CABLING_MAX_NODES)
		return apenet_err_set(e, APENET_EINVAL, "a %ux%ux%u torus has %u nodes: more than %u cannot be judged",
				      j->dims[0], j->dims[1], j->dims[2], j->n, APENET_CABLING_MAX_NODES);
	r->nodes = j->n;
	j->at = malloc(((size_t)j->n + 1) * sizeof(*j->at));
	j->done = calloc((size_t)j->n * NL + 1, 1);
	j->ostate = calloc(n + 1, 1);
	j->first = calloc(n + 1, sizeof(*j->first));
	if (!j->at || !j->done || !j->ostate || !j->first)
		return apenet_err_set(e, APENET_EIO, "out of memory for a %ux%ux%u torus", j->dims[0], j->dims[1], j->dims[2]);
	for (unsigned i = 0; i < j->n; i++)
		j->at[i] = -1;
	/* place every observation; the variant of nodes without data is that of the first node read */
	j->prof = NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned xyz[3];
		coord_xyz(obs[i].node_coord, xyz);
		if (obs[i].err && !obs[i].coord_known) {
			j->ostate[i] = OBS_FAILED_NOWHERE;
			continue;
		}
		if (j->n == 0 || !inside(j, xyz)) {
			j->ostate[i] = obs[i].err ? OBS_FAILED_NOWHERE : OBS_OUTSIDE;
			continue;
		}
		unsigned k = node_index(j, xyz);
		if (j->at[k] >= 0) {
			j->ostate[i] = OBS_TWICE;
			j->first[i] = j->at[k];
			continue;
		}
		j->at[k] = (int32_t)i;
		j->ostate[i] = obs[i].err ? OBS_FAILED : OBS_USED;
		if (!obs[i].err) {
			r->nodes_read++;
			if (!j->prof)
				j->prof = obs[i].prof;
		}
	}
	if (!j->prof)
		j->prof = apenet_profile(APENET_V_APENETP);
	return 0;
}

/* Layout and reachability, per observation and per node without data. */
static void node_problems(struct judge *j, size_t agree, size_t declared)
{
	char m[700], ev[200], lbl[160], t[64];
	const char *cfgpath = j->cfg && j->cfg->path[0] ? j->cfg->path : "the config";
	for (size_t i = 0; i < j->nobs; i++) {
		const struct apenet_cabling_obs *o = &j->obs[i];
		unsigned xyz[3], bd[3];
		coord_xyz(o->node_coord, xyz);
		coord_xyz(o->torus_dims, bd);
		snprintf(ev, sizeof(ev), "%s: NODE_COORD %u,%u,%u, TORUS_DIMS %ux%ux%u", src_of(o), xyz[0], xyz[1],
			 xyz[2], bd[0], bd[1], bd[2]);
		switch ((enum obs_state)j->ostate[i]) {
		case OBS_FAILED:
		case OBS_FAILED_NOWHERE:
			snprintf(m, sizeof(m), "%s", o->err);
			problem(j, APENET_CABLING_UNREACHABLE, APENET_SEV_WARN,
				j->ostate[i] == OBS_FAILED ? mk_node(j, xyz) : mk_end(j, NONE), mk_end(j, NONE), mk_end(j, NONE),
				mk_end(j, NONE), m, "check that node and its card, then read it again", src_of(o));
			continue;
		case OBS_OUTSIDE:
			snprintf(m, sizeof(m), "%s: %s is outside the %ux%ux%u torus %s", src_of(o),
				 node_label(j, xyz, lbl, sizeof(lbl)), j->dims[0], j->dims[1], j->dims[2],
				 j->res->dims_from_config ? "of the config" : "the boards declare");
			problem(j, APENET_CABLING_LAYOUT, APENET_SEV_FAIL, mk_node(j, xyz), mk_end(j, NONE), mk_end(j, NONE),
				mk_end(j, NONE), m, "set the board's coordinates, or leave its data out", ev);
			continue;
		case OBS_TWICE:
			snprintf(m, sizeof(m), "%s and %s both are %s: the second is left out", src_of(&j->obs[j->first[i]]),
				 src_of(o), node_label(j, xyz, lbl, sizeof(lbl)));
			problem(j, APENET_CABLING_LAYOUT, APENET_SEV_FAIL, mk_node(j, xyz), mk_end(j, NONE), mk_end(j, NONE),
				mk_end(j, NONE), m, "give each node once, or correct the board's coordinates", ev);
			continue;
		case OBS_USED:
			break;
		}
		if (!o->torus_dims || !memcmp(bd, j->dims, sizeof(bd)))
			continue;
		if (j->res->dims_from_config)
			snprintf(m, sizeof(m), "%s: %s is configured for a %ux%ux%u torus, %.200s describes %ux%ux%u", src_of(o),
				 node_label(j, xyz, lbl, sizeof(lbl)), bd[0], bd[1], bd[2], cfgpath, j->dims[0], j->dims[1],
				 j->dims[2]);
		else
			snprintf(m, sizeof(m), "%s: %s declares a %ux%ux%u torus; %zu of the %zu boards that declare one say %ux%ux%u",
				 src_of(o), node_label(j, xyz, lbl, sizeof(lbl)), bd[0], bd[1], bd[2], agree, declared, j->dims[0],
				 j->dims[1], j->dims[2]);
		problem(j, APENET_CABLING_LAYOUT, APENET_SEV_FAIL, mk_node(j, xyz), mk_end(j, NONE), mk_end(j, NONE),
			mk_end(j, NONE), m, "set the same torus dimensions on every board (and in the config)", ev);
	}
	for (unsigned k = 0; k < j->n; k++) {
		if (j->at[k] >= 0)
			continue;
		unsigned xyz[3];
		node_xyz(j, k, xyz);
		snprintf(m, sizeof(m), "nothing was read from %s: no snapshot file or node directory gave it",
			 node_label(j, xyz, lbl, sizeof(lbl)));
		snprintf(t, sizeof(t), "%u nodes read of %u", j->res->nodes_read, j->n);
		problem(j, APENET_CABLING_UNREACHABLE, APENET_SEV_WARN, mk_node(j, xyz), mk_end(j, NONE), mk_end(j, NONE),
			mk_end(j, NONE), m, "gather its snapshot too (apenet snapshot on that node), or check that it is up", t);
	}
}

int apenet_cabling_judge(const struct apenet_cabling_obs *obs, size_t n, const struct apenet_config *cfg,
			 struct apenet_cabling *res, struct apenet_findings *fs, struct apenet_err *e)
{
	struct judge j = { .cfg = cfg, .obs = obs, .nobs = n, .res = res, .fs = fs };
	size_t agree = 0, declared = 0;
	int rc = -1;
	memset(res, 0, sizeof(*res));
	if (setup(&j, obs, n, cfg, &agree, &declared, e))
		goto out;
	int nends = (int)(j.n * NL);
	for (int a = 0; a < nends; a++) {
		int ea = expected(&j, a);
		if (ea >= a) {
			res->cables_expected++;
			res->cables_ok += observed(&j, a) == ea && observed(&j, ea) == a;
		}
	}
	find_swaps(&j, nends);
	find_misplaced(&j, nends);
	find_missing(&j, nends);
	node_problems(&j, agree, declared);
	if (j.oom) {
		apenet_err_set(e, APENET_EIO, "out of memory for the punch list");
		goto out;
	}
	rc = 0;
out:
	free(j.at);
	free(j.done);
	free(j.ostate);
	free(j.first);
	if (rc)
		apenet_cabling_free(res);
	return rc;
}

void apenet_cabling_free(struct apenet_cabling *res)
{
	for (size_t i = 0; i < res->np; i++)
		free(res->p[i].text);
	free(res->p);
	res->p = NULL;
	res->np = res->cap = 0;
}
