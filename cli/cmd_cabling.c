/*
 * apenet cabling: compare every link's observed partner (from the ALIGN OK
 * words, LINK_PARTNER) with the torus the config describes, and print a
 * punch list: missing, swapped, crossed, wrong-port, unexpected cables, and
 * nodes that could not be read.  Input: the nodes of an emulated cluster
 * (--sim-cluster DIR) or `apenet snapshot` files gathered from every node.
 * One problem per physical fault: a plug swap is one "swapped" record, not
 * the four mismatched ends it causes.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/verdict.h"
#include "apenet/snapfile.h"
#include "cli.h"

#define NONE (-1)
#define EXT (-2)

struct cab_note {
	const char *kind;                       /* "unreachable", "layout" */
	char text[600];
};

struct node_obs {
	int have;                               /* data was read */
	char err[200];                          /* why not */
	const struct apenet_profile *prof;
	int obs[APENET_MAX_LINKS];              /* observed far end: end id, NONE or EXT */
	unsigned state[APENET_MAX_LINKS];
};

struct cab {
	struct apenet_config cfg;
	unsigned dims[3], n;
	struct node_obs *nodes;
	const struct apenet_profile *prof;      /* the variant expected where a node has no data */
	unsigned char *done;                    /* per end: already reported */
	struct cab_note *notes;                 /* problems that are not about one cable */
	unsigned nnotes;
};

/* An end is node index * APENET_MAX_LINKS + link. */
static int end_id(const struct cab *cb, const unsigned xyz[3], unsigned link)
{
	return (int)((xyz[0] + cb->dims[0] * (xyz[1] + cb->dims[1] * xyz[2])) * APENET_MAX_LINKS + link);
}

static void end_xyz(const struct cab *cb, int end, unsigned xyz[3])
{
	unsigned n = (unsigned)end / APENET_MAX_LINKS;
	xyz[0] = n % cb->dims[0];
	xyz[1] = n / cb->dims[0] % cb->dims[1];
	xyz[2] = n / cb->dims[0] / cb->dims[1];
}

static const struct apenet_profile *prof_of(const struct cab *cb, int end)
{
	const struct node_obs *no = &cb->nodes[end / APENET_MAX_LINKS];
	return no->prof ? no->prof : cb->prof;
}

static const char *link_name(const struct cab *cb, int end)
{
	const struct apenet_profile *p = prof_of(cb, end);
	unsigned l = (unsigned)end % APENET_MAX_LINKS;
	return l < p->nlinks ? p->links[l].name : "?";
}

/* The end the cluster layout says this end is cabled to (NONE: no cable). */
static int expected(const struct cab *cb, int end)
{
	const struct apenet_profile *p = prof_of(cb, end);
	unsigned l = (unsigned)end % APENET_MAX_LINKS, xyz[3];
	if (l >= p->nlinks)
		return NONE;
	end_xyz(cb, end, xyz);
	enum apenet_dir back;
	unsigned far[3];
	int dim, wrap;
	if (apenet_torus_neighbour(cb->dims, xyz, p->links[l].dir, far, &back, &dim, &wrap) ||
	    (wrap && !cb->cfg.cl.wrap[dim]))
		return NONE;
	int fe = end_id(cb, far, 0);
	int k = apenet_profile_link_dir(prof_of(cb, fe), back);
	return k < 0 ? NONE : fe + k;
}

static int observed(const struct cab *cb, int end)
{
	const struct node_obs *no = &cb->nodes[end / APENET_MAX_LINKS];
	return no->have ? no->obs[end % APENET_MAX_LINKS] : NONE;
}

static void out_end(struct apenet_out *o, const struct cab *cb, const char *key, int end)
{
	if (end < 0) {
		apenet_out_null(o, key);
		return;
	}
	unsigned xyz[3];
	char t[128];
	end_xyz(cb, end, xyz);
	const char *name = apenet_config_node_name(&cb->cfg, xyz[0], xyz[1], xyz[2]);
	snprintf(t, sizeof(t), "%s%s%u,%u,%u:%s", name ? name : "", name ? " " : "", xyz[0], xyz[1], xyz[2],
		 link_name(cb, end));
	apenet_out_obj_begin_text(o, key, t);
	cli_out_xyz(o, "node", xyz);
	apenet_out_str(o, "name", name);
	apenet_out_str(o, "link", link_name(cb, end));
	apenet_out_obj_end(o);
}

static void end_label(const struct cab *cb, int end, char *buf, size_t n)
{
	unsigned xyz[3];
	end_xyz(cb, end, xyz);
	const char *name = apenet_config_node_name(&cb->cfg, xyz[0], xyz[1], xyz[2]);
	snprintf(buf, n, "%s%s%u,%u,%u %s", name ? name : "", name ? " " : "", xyz[0], xyz[1], xyz[2], link_name(cb, end));
}

static void problem(struct apenet_out *o, const struct cab *cb, const char *kind, int a, int b, int ea, int eb,
		    const char *text)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "kind", kind);
	out_end(o, cb, "a", a);
	out_end(o, cb, "b", b);
	out_end(o, cb, "a_expected", ea);
	out_end(o, cb, "b_expected", eb);
	apenet_out_str(o, "text", text);
	apenet_out_obj_end(o);
}

/* ---- gathering ---- */

static void note(struct cab *cb, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void note(struct cab *cb, const char *kind, const char *fmt, ...)
{
	struct cab_note *n = realloc(cb->notes, (cb->nnotes + 1) * sizeof(*n));
	if (!n)
		return;
	cb->notes = n;
	n += cb->nnotes++;
	n->kind = kind;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(n->text, sizeof(n->text), fmt, ap);
	va_end(ap);
}

static int add_node(struct cab *cb, const struct apenet_view *v, const char *src, struct apenet_err *e)
{
	const struct apenet_snapshot *s = &v->s1;
	unsigned xyz[3] = { APENET_GET(NODE_COORD, X, s->g.NODE_COORD), APENET_GET(NODE_COORD, Y, s->g.NODE_COORD),
			    APENET_GET(NODE_COORD, Z, s->g.NODE_COORD) };
	if (xyz[0] >= cb->dims[0] || xyz[1] >= cb->dims[1] || xyz[2] >= cb->dims[2])
		return apenet_err_set(e, APENET_EINVAL, "%s: node %u,%u,%u is outside the %ux%ux%u torus of %s", src,
				      xyz[0], xyz[1], xyz[2], cb->dims[0], cb->dims[1], cb->dims[2], cb->cfg.path);
	unsigned bd[3] = { APENET_GET(TORUS_DIMS, X, s->g.TORUS_DIMS), APENET_GET(TORUS_DIMS, Y, s->g.TORUS_DIMS),
			   APENET_GET(TORUS_DIMS, Z, s->g.TORUS_DIMS) };
	if (s->g.TORUS_DIMS && memcmp(bd, cb->dims, sizeof(bd)))
		note(cb, "layout", "%s: node %u,%u,%u is configured for a %ux%ux%u torus, %s describes %ux%ux%u", src, xyz[0],
		     xyz[1], xyz[2], bd[0], bd[1], bd[2], cb->cfg.path, cb->dims[0], cb->dims[1], cb->dims[2]);
	struct node_obs *no = &cb->nodes[end_id(cb, xyz, 0) / APENET_MAX_LINKS];
	if (no->have)
		return apenet_err_set(e, APENET_EINVAL, "%s: node %u,%u,%u given twice", src, xyz[0], xyz[1], xyz[2]);
	no->have = 1;
	no->prof = v->prof;
	for (unsigned l = 0; l < APENET_MAX_LINKS; l++)
		no->obs[l] = NONE;
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		uint32_t p = (uint32_t)s->link[l].LINK_PARTNER;
		no->state[l] = APENET_GET(LINK_STATE, STATE, s->link[l].LINK_STATE);
		no->obs[l] = NONE;
		if (!APENET_GET(LINK_PARTNER, VALID, p))
			continue;
		if (APENET_GET(LINK_PARTNER, EXTERNAL, p)) {
			no->obs[l] = EXT;
			continue;
		}
		unsigned f[3] = { APENET_GET(LINK_PARTNER, X, p), APENET_GET(LINK_PARTNER, Y, p),
				  APENET_GET(LINK_PARTNER, Z, p) };
		unsigned port = APENET_GET(LINK_PARTNER, PORT, p);
		if (f[0] < cb->dims[0] && f[1] < cb->dims[1] && f[2] < cb->dims[2] && port < APENET_MAX_LINKS)
			no->obs[l] = end_id(cb, f, port);
	}
	return 0;
}

/* Reads only what cabling needs from a live board: coordinates and partners. */
static int read_live(struct cab *cb, const char *dir, struct apenet_err *e)
{
	struct apenet_site site;
	struct apenet_dev d;
	static struct apenet_view v;
	if (apenet_site_init(&site, dir, e) || apenet_dev_open(&d, &site, NULL, e))
		return -1;
	memset(&v, 0, sizeof(v));
	v.prof = d.prof;
	v.s1.g.NODE_COORD = apenet_rd32(&d, APENET_REG_NODE_COORD);
	v.s1.g.TORUS_DIMS = apenet_rd32(&d, APENET_REG_TORUS_DIMS);
	for (unsigned l = 0; l < d.prof->nlinks; l++) {
		v.s1.link[l].LINK_STATE = apenet_rd32(&d, apenet_link_off(l, APENET_LINK_STATE));
		v.s1.link[l].LINK_PARTNER = apenet_rd32(&d, apenet_link_off(l, APENET_LINK_PARTNER));
	}
	int rc = apenet_dev_check(&d, e) ? -1 : add_node(cb, &v, dir, e);
	apenet_dev_close(&d);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int gather_sim(struct cab *cb, const char *root, struct apenet_err *e)
{
	DIR *dp = opendir(root);
	if (!dp)
		return apenet_err_set(e, APENET_EIO, "%s: cannot open the emulated cluster directory", root);
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *de; (de = readdir(dp));) {
		if (strncmp(de->d_name, "node-", 5) || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn)
				break;
			names = nn;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), cmp_str);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct apenet_err ne = { 0 };
		snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		if (rc == 0 && read_live(cb, path, &ne)) {
			if (ne.code == APENET_EINVAL && strstr(ne.msg, "given twice")) {
				*e = ne;
				rc = -1;
			} else {
				note(cb, "unreachable", "%s", ne.msg);
			}
		}
		free(names[i]);
	}
	free(names);
	if (rc == 0 && n == 0)
		return apenet_err_set(e, APENET_ENODEV, "%s: no node-X-Y-Z directories (is apenet-sim running there?)", root);
	return rc;
}

/* ---- the punch list ---- */

static void mark(struct cab *cb, int end)
{
	if (end >= 0)
		cb->done[end] = 1;
}

static unsigned punch(struct apenet_out *o, struct cab *cb)
{
	unsigned nends = cb->n * APENET_MAX_LINKS, np = 0;
	char t[1024], la[128], lb[128], lc[128], ld[128];
	/* 1. swaps: obs(A) == exp(B) and obs(B) == exp(A) */
	for (int a = 0; a < (int)nends; a++) {
		int x = observed(cb, a), ea = expected(cb, a);
		if (cb->done[a] || x < 0 || x == ea || ea < 0)
			continue;
		int b = expected(cb, x); /* the end that should face what A faces */
		if (b < 0 || b == a || observed(cb, b) != ea)
			continue;
		/* the same state reads as a swap at (A,B) or at (X,Y): name the pair on one node */
		int y = ea;
		int sa = a, sb = b;
		if (a / APENET_MAX_LINKS != b / APENET_MAX_LINKS && x / APENET_MAX_LINKS == y / APENET_MAX_LINKS) {
			sa = x < y ? x : y;
			sb = x < y ? y : x;
		} else if (b < a) {
			sa = b;
			sb = a;
		}
		end_label(cb, sa, la, sizeof(la));
		end_label(cb, sb, lb, sizeof(lb));
		snprintf(t, sizeof(t), "the plugs at %s and %s are swapped: swap them back", la, lb);
		problem(o, cb, "swapped", sa, sb, expected(cb, sa), expected(cb, sb), t);
		np++;
		mark(cb, a);
		mark(cb, b);
		mark(cb, x);
		mark(cb, y);
	}
	/* 2. cables that are there but not where the layout wants them */
	for (int a = 0; a < (int)nends; a++) {
		int p = observed(cb, a), ea = expected(cb, a);
		if (cb->done[a] || p < 0 || p == ea)
			continue;
		int back = observed(cb, p), ep = expected(cb, p);
		end_label(cb, a, la, sizeof(la));
		end_label(cb, p, lb, sizeof(lb));
		if (back != a && cb->nodes[p / APENET_MAX_LINKS].have) {
			snprintf(t, sizeof(t), "%s sees %s, which does not see it back: stale or inconsistent data; read both again",
				 la, lb);
			problem(o, cb, "inconsistent", a, p, ea, ep, t);
			np++;
			mark(cb, a);
			continue;
		}
		if (ea < 0 && ep < 0) {
			snprintf(t, sizeof(t), "a cable joins %s and %s where the layout has none", la, lb);
			problem(o, cb, "unexpected", a, p, ea, ep, t);
		} else if (ea >= 0 && ea / APENET_MAX_LINKS == p / APENET_MAX_LINKS) {
			end_label(cb, ea, lc, sizeof(lc));
			snprintf(t, sizeof(t), "%s reaches the right node but the wrong port: move the plug from %s to %s", la,
				 lb, lc);
			problem(o, cb, "wrong-port", a, p, ea, ep, t);
		} else {
			if (ea >= 0)
				end_label(cb, ea, lc, sizeof(lc));
			else
				snprintf(lc, sizeof(lc), "nothing");
			if (ep >= 0)
				end_label(cb, ep, ld, sizeof(ld));
			else
				snprintf(ld, sizeof(ld), "nothing");
			snprintf(t, sizeof(t), "%s is cabled to %s; the layout wants %s <-> %s and %s <-> %s", la, lb, la, lc, lb,
				 ld);
			problem(o, cb, "crossed", a, p, ea, ep, t);
		}
		np++;
		mark(cb, a);
		mark(cb, p);
	}
	/* 3. expected cables that are not there (once per cable) */
	for (int a = 0; a < (int)nends; a++) {
		int ea = expected(cb, a);
		const struct node_obs *no = &cb->nodes[a / APENET_MAX_LINKS];
		if (cb->done[a] || ea < 0 || !no->have || observed(cb, a) >= 0 || observed(cb, a) == EXT)
			continue;
		if (observed(cb, ea) == a)
			continue; /* the far end sees us: a one-sided read, not a missing cable */
		end_label(cb, a, la, sizeof(la));
		end_label(cb, ea, lb, sizeof(lb));
		if (!cb->nodes[ea / APENET_MAX_LINKS].have)
			snprintf(t, sizeof(t), "%s has no link to %s (and that node could not be read)", la, lb);
		else
			snprintf(t, sizeof(t), "no cable between %s and %s: plug it (or replace it if it is plugged)", la, lb);
		problem(o, cb, "missing", a, ea, ea, a, t);
		np++;
		mark(cb, a);
		if (observed(cb, ea) < 0)
			mark(cb, ea);
	}
	return np;
}

int cmd_cabling(struct cli *c)
{
	const char *config = NULL, *simc = NULL;
	const struct cli_opt opts[] = { { "--config", &config, NULL }, { "--sim-cluster", &simc, NULL },
					{ NULL, NULL, NULL } };
	enum { MAXFILES = 32768 };
	static const char *files[MAXFILES];
	int nfiles, rc = CLI_EXIT_OK;
	struct apenet_err e = { 0 };
	static struct cab cb;
	if (cli_parse(c, "cabling", opts, files, MAXFILES, &nfiles))
		return CLI_EXIT_ERROR;
	if (!config)
		return cli_usage_error("cabling", "--config cluster.yaml is required (it describes the torus to compare with)");
	if (!simc == !nfiles)
		return cli_usage_error("cabling", "give either --sim-cluster DIR or the snapshot files of the nodes");
	memset(&cb, 0, sizeof(cb));
	if ((rc = cli_config("cabling", config, &cb.cfg)))
		return rc;
	if (!cb.cfg.cl.have) {
		apenet_config_free(&cb.cfg);
		return cli_usage_error("cabling", "%s has no 'cluster' section (dims, wraparound, nodes)", config);
	}
	memcpy(cb.dims, cb.cfg.cl.dims, sizeof(cb.dims));
	cb.n = cb.dims[0] * cb.dims[1] * cb.dims[2];
	cb.nodes = calloc(cb.n, sizeof(*cb.nodes));
	cb.done = calloc((size_t)cb.n * APENET_MAX_LINKS, 1);
	cb.prof = apenet_profile(APENET_V_APENETP);
	if (!cb.nodes || !cb.done) {
		rc = CLI_EXIT_ERROR;
		goto out;
	}
	if (simc) {
		if (gather_sim(&cb, simc, &e)) {
			rc = cli_fail(&e);
			goto out;
		}
	} else {
		static struct apenet_view v;
		for (int i = 0; i < nfiles; i++)
			if (apenet_snapfile_load(files[i], &v, &e) || add_node(&cb, &v, files[i], &e)) {
				rc = cli_fail(&e);
				goto out;
			}
	}
	/* the variant of nodes without data: that of the first node read */
	for (unsigned i = 0; i < cb.n; i++)
		if (cb.nodes[i].have) {
			cb.prof = cb.nodes[i].prof;
			break;
		}

	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "cabling");
	unsigned have = 0, expected_cables = 0, ok = 0;
	for (unsigned i = 0; i < cb.n; i++)
		have += (unsigned)cb.nodes[i].have;
	for (int a = 0; a < (int)(cb.n * APENET_MAX_LINKS); a++) {
		int ea = expected(&cb, a);
		if (ea >= a) {
			expected_cables++;
			ok += observed(&cb, a) == ea && observed(&cb, ea) == a;
		}
	}
	apenet_out_obj_begin(o, "summary");
	apenet_out_strf(o, "torus", "%ux%ux%u", cb.dims[0], cb.dims[1], cb.dims[2]);
	apenet_out_uint(o, "nodes", cb.n);
	apenet_out_uint(o, "nodes_read", have);
	apenet_out_uint(o, "cables_expected", expected_cables);
	apenet_out_uint(o, "cables_ok", ok);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "problems");
	unsigned np = punch(o, &cb);
	for (unsigned i = 0; i < cb.nnotes; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "kind", cb.notes[i].kind);
		apenet_out_null(o, "a");
		apenet_out_null(o, "b");
		apenet_out_null(o, "a_expected");
		apenet_out_null(o, "b_expected");
		apenet_out_str(o, "text", cb.notes[i].text);
		apenet_out_obj_end(o);
		np++;
	}
	if (!simc)
		for (unsigned i = 0; i < cb.n; i++)
			if (!cb.nodes[i].have) {
				unsigned xyz[3];
				char lbl[128];
				end_xyz(&cb, (int)(i * APENET_MAX_LINKS), xyz);
				apenet_node_label(&cb.cfg, xyz, lbl, sizeof(lbl));
				apenet_out_obj_begin(o, NULL);
				apenet_out_str(o, "kind", "unreachable");
				out_end(o, &cb, "a", (int)(i * APENET_MAX_LINKS));
				apenet_out_null(o, "b");
				apenet_out_null(o, "a_expected");
				apenet_out_null(o, "b_expected");
				apenet_out_strf(o, "text", "no snapshot of %s was given", lbl);
				apenet_out_obj_end(o);
				np++;
			}
	apenet_out_arr_end(o);
	rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : np ? CLI_EXIT_FAULT : CLI_EXIT_OK;
out:
	free(cb.notes);
	free(cb.nodes);
	free(cb.done);
	apenet_config_free(&cb.cfg);
	return rc;
}
