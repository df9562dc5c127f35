/*
 * apenet cabling: gathers what every node says about its links (NODE_COORD,
 * TORUS_DIMS, and per link LINK_STATE and LINK_PARTNER, the partner learned
 * from the ALIGN OK words) and prints the punch list lofamo/cabling.c makes
 * of it.  Input: the nodes of an emulated cluster (--sim-cluster DIR) or
 * `apenet snapshot` files gathered from every node.  The torus is the
 * config's cluster section when there is one, else the one the boards
 * declare; the config adds names and wraparound.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/cabling.h"
#include "apenet/config.h"
#include "apenet/snapfile.h"
#include "apenet/view.h"
#include "cli.h"

/* ---- gathering ---- */

struct gather {
	struct apenet_cabling_obs *obs;
	size_t n;
	char **owned;           /* strings the observations point to */
	size_t nowned;
};

static const char *own(struct gather *g, char *s)
{
	if (s)
		g->owned[g->nowned++] = s;
	return s;
}

static void obs_from_view(struct apenet_cabling_obs *o, const struct apenet_view *v, const char *src)
{
	const struct apenet_snapshot *s = &v->s1;
	memset(o, 0, sizeof(*o));
	o->src = src;
	o->prof = v->prof;
	o->node_coord = s->g.NODE_COORD;
	o->torus_dims = s->g.TORUS_DIMS;
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		o->link_state[l] = (uint32_t)s->link[l].LINK_STATE;
		o->link_partner[l] = (uint32_t)s->link[l].LINK_PARTNER;
	}
}

/* Reads what cabling needs from a live board: NODE_COORD and TORUS_DIMS,
 * LINK_STATE and LINK_PARTNER of each link, besides what an open checks.
 * Of a node's config-space dump only its address line and first four bytes
 * (apenet_pci_peek): libpci's parse of all 4 KiB was nearly all the time on
 * a big torus; a dump the peek does not take goes to libpci as before, with
 * its errors.  The BAR file is read in three spans (apenet_bar_file): the
 * identity block at open, the links' blocks, ID_MAGIC again.
 * docs/design.md, "What apenet cabling reads". */
static int read_live(struct apenet_cabling_obs *o, const char *dir, struct apenet_err *e)
{
	struct apenet_site site;
	struct apenet_card c;
	struct apenet_bar_file b;
	if ((apenet_site_node(&site, dir) || apenet_pci_peek(&site, &c)) &&
	    (apenet_site_init(&site, dir, e) || apenet_pci_pick(&site, NULL, &c, e)))
		return -1;
	if (apenet_bar_file_open(&b, &site, &c, e))
		return -1;
	o->prof = b.prof;
	o->node_coord = b.id[APENET_REG_NODE_COORD / 4];
	o->torus_dims = b.id[APENET_REG_TORUS_DIMS / 4];
	/* from LINK_STATE of the first link to LINK_PARTNER of the last */
	enum { STRIDE = APENET_LINK_STRIDE / 4 };
	static uint32_t links[(APENET_MAX_LINKS - 1) * STRIDE + APENET_LINK_PARTNER / 4 + 1];
	unsigned nl = b.prof->nlinks;
	if (nl) {
		apenet_bar_file_read(&b, apenet_link_off(0, APENET_LINK_STATE), links,
				     (nl - 1) * STRIDE + (APENET_LINK_PARTNER - APENET_LINK_STATE) / 4 + 1);
		for (unsigned l = 0; l < nl; l++) {
			o->link_state[l] = links[l * STRIDE];
			o->link_partner[l] = links[l * STRIDE + (APENET_LINK_PARTNER - APENET_LINK_STATE) / 4];
		}
	}
	int rc = apenet_bar_file_check(&b, e);
	apenet_bar_file_close(&b);
	return rc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int gather_sim(struct gather *g, const char *root, struct apenet_err *e)
{
	DIR *dp = opendir(root);
	if (!dp)
		return apenet_err_set(e, APENET_EIO, "%s: cannot open the emulated cluster directory", root);
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (struct dirent *de; (de = readdir(dp));) {
		if (strncmp(de->d_name, "node-", 5) || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				rc = apenet_err_set(e, APENET_EIO, "out of memory");
				break;
			}
			names = nn;
		}
		if (!(names[n] = malloc(strlen(root) + strlen(de->d_name) + 2))) {
			rc = apenet_err_set(e, APENET_EIO, "out of memory");
			break;
		}
		sprintf(names[n++], "%s/%s", root, de->d_name);
	}
	closedir(dp);
	if (rc == 0 && n == 0)
		rc = apenet_err_set(e, APENET_ENODEV, "%s: no node-X-Y-Z directories (is apenet-sim running there?)", root);
	g->obs = calloc(n + 1, sizeof(*g->obs));
	g->owned = calloc(2 * n + 1, sizeof(*g->owned));
	if (rc == 0 && (!g->obs || !g->owned))
		rc = apenet_err_set(e, APENET_EIO, "out of memory");
	if (rc) {
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
		return -1;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct apenet_cabling_obs *o = &g->obs[g->n++];
		struct apenet_err ne = { 0 };
		o->src = own(g, names[i]);
		if (read_live(o, o->src, &ne) == 0)
			continue;
		/* An unreadable board still has a place: the directory names it. */
		const char *base = strrchr(o->src, '/') + 1;
		unsigned x, y, z;
		char end;
		o->err = own(g, strdup(ne.msg));
		if (!o->err)
			o->err = "could not be read (and out of memory for why)";
		if (sscanf(base, "node-%u-%u-%u%c", &x, &y, &z, &end) == 3 && x < 256 && y < 256 && z < 256) {
			o->coord_known = 1;
			o->node_coord = x | y << 8 | z << 16;
		}
	}
	free(names);
	return 0;
}

static int gather_files(struct gather *g, const char *const *files, int nfiles, struct apenet_err *e)
{
	static struct apenet_view v;
	g->obs = calloc((size_t)nfiles + 1, sizeof(*g->obs));
	if (!g->obs)
		return apenet_err_set(e, APENET_EIO, "out of memory");
	for (int i = 0; i < nfiles; i++) {
		if (apenet_snapfile_load(files[i], &v, e))
			return -1;
		obs_from_view(&g->obs[g->n++], &v, files[i]);
	}
	return 0;
}

static void gather_free(struct gather *g)
{
	for (size_t i = 0; i < g->nowned; i++)
		free(g->owned[i]);
	free(g->owned);
	free(g->obs);
}

/* ---- printing ---- */

static void out_end(struct apenet_out *o, const char *key, const struct apenet_cabling_end *e)
{
	if (!e->valid) {
		apenet_out_null(o, key);
		return;
	}
	char t[128];
	snprintf(t, sizeof(t), "%s%s%u,%u,%u%s%s", e->name ? e->name : "", e->name ? " " : "", e->xyz[0], e->xyz[1],
		 e->xyz[2], e->link_name ? ":" : "", e->link_name ? e->link_name : "");
	apenet_out_obj_begin_text(o, key, t);
	cli_out_xyz(o, "node", e->xyz);
	apenet_out_str(o, "name", e->name);
	apenet_out_str(o, "link", e->link_name);
	apenet_out_obj_end(o);
}

int cmd_cabling(struct cli *c)
{
	const char *config = NULL, *simc = NULL;
	const struct cli_opt opts[] = { { "--config", &config, NULL }, { "--sim-cluster", &simc, NULL },
					{ NULL, NULL, NULL } };
	enum { MAXFILES = 32768 };
	static const char *files[MAXFILES];
	int nfiles, rc;
	struct apenet_err e = { 0 };
	struct apenet_config cfg;
	struct gather g = { 0 };
	struct apenet_cabling res = { 0 };
	struct apenet_findings fs;
	if (cli_parse(c, "cabling", opts, files, MAXFILES, &nfiles))
		return CLI_EXIT_ERROR;
	if (!simc == !nfiles)
		return cli_usage_error("cabling", "give either --sim-cluster DIR or the snapshot files of the nodes");
	if ((rc = cli_config("cabling", config, &cfg)))
		return rc;
	apenet_findings_init(&fs);
	if ((simc ? gather_sim(&g, simc, &e) : gather_files(&g, files, nfiles, &e)) ||
	    apenet_cabling_judge(g.obs, g.n, &cfg, &res, &fs, &e)) {
		rc = cli_fail(&e);
		goto out;
	}

	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "cabling");
	char wrap[8] = "";
	for (int d = 0; d < 3; d++)
		if (res.wrap[d])
			strncat(wrap, &"xyz"[d], 1);
	apenet_out_obj_begin(o, "summary");
	apenet_out_strf(o, "torus", "%ux%ux%u", res.dims[0], res.dims[1], res.dims[2]);
	apenet_out_str(o, "torus_from", res.dims_from_config ? "config" : "boards");
	apenet_out_str(o, "wraparound", wrap[0] ? wrap : "none");
	apenet_out_uint(o, "nodes", res.nodes);
	apenet_out_uint(o, "nodes_read", res.nodes_read);
	apenet_out_uint(o, "cables_expected", res.cables_expected);
	apenet_out_uint(o, "cables_ok", res.cables_ok);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "problems");
	for (size_t i = 0; i < res.np; i++) {
		const struct apenet_cabling_problem *p = &res.p[i];
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "kind", apenet_cabling_kind_name(p->kind));
		out_end(o, "a", &p->a);
		out_end(o, "b", &p->b);
		out_end(o, "a_expected", &p->a_expected);
		out_end(o, "b_expected", &p->b_expected);
		apenet_out_str(o, "text", p->text);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	/* The findings repeat the punch list with the register readings as
	 * evidence; every problem is one, warn or fail, so any problem exits 1. */
	rc = cli_finish(o, &fs);
out:
	apenet_cabling_free(&res);
	apenet_findings_free(&fs);
	gather_free(&g);
	apenet_config_free(&cfg);
	return rc;
}
