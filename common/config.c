/* Cluster layout and thresholds from YAML, with documented defaults. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/conf.h"
#include "apenet/config.h"

void apenet_config_defaults(struct apenet_config *c)
{
	memset(c, 0, sizeof(*c));
	c->thr = (struct apenet_thresholds){
		.fpga_temp_warn_c = 80, .fpga_temp_fail_c = 95,
		.board_temp_warn_c = 60, .board_temp_fail_c = 75,
		.vdroop_warn_pct = 3, .vdroop_fail_pct = 8,
		.v12_tol_warn_pct = 5, .v12_tol_fail_pct = 10,
		.crc_warn_per_min = 1, .crc_fail_per_min = 100,
		.payload_warn_per_min = 1,
		.lane_errors_warn_per_min = 1,
		.flaps_fail = 1,
		.align_restarts_warn = 3, .align_restarts_warn_per_hour = 6,
		.ldm_age_warn_ms = 500, .ldm_age_fail_ms = 2000,
		.fifo_hwm_warn_pct = 95,
		.rate_confidence = 0.95, .rate_min_events = 3, .since_clear_min_s = 600,
		.clear_after_samples = 10, .temp_clear_margin_c = 2, .supply_clear_margin_pct = 0.5,
	};
	c->cl.wrap[0] = c->cl.wrap[1] = c->cl.wrap[2] = 1;
}

void apenet_config_free(struct apenet_config *c)
{
	free(c->cl.nodes);
	c->cl.nodes = NULL;
	c->cl.nnodes = 0;
}

/* name, field, min, max */
static const struct {
	const char *key;
	size_t off;
	double min, max;
} thr_keys[] = {
#define T(k, lo, hi) { #k, offsetof(struct apenet_thresholds, k), lo, hi }
	T(fpga_temp_warn_c, -40, 200), T(fpga_temp_fail_c, -40, 200), T(board_temp_warn_c, -40, 200),
	T(board_temp_fail_c, -40, 200), T(vdroop_warn_pct, 0, 100), T(vdroop_fail_pct, 0, 100),
	T(v12_tol_warn_pct, 0, 100), T(v12_tol_fail_pct, 0, 100), T(crc_warn_per_min, 0, 1e12),
	T(crc_fail_per_min, 0, 1e12), T(payload_warn_per_min, 0, 1e12), T(lane_errors_warn_per_min, 0, 1e12),
	T(flaps_fail, 1, 1e9), T(align_restarts_warn, 1, 1e9), T(align_restarts_warn_per_hour, 0, 1e12),
	T(ldm_age_warn_ms, 0, 1e9), T(ldm_age_fail_ms, 0, 1e9), T(fifo_hwm_warn_pct, 0, 100),
	T(rate_confidence, 0.5, 0.999999), T(rate_min_events, 1, 1e9), T(since_clear_min_s, 0, 1e9),
	T(clear_after_samples, 0, 1e9), T(temp_clear_margin_c, 0, 50), T(supply_clear_margin_pct, 0, 50),
#undef T
};
#define NTHR (sizeof(thr_keys) / sizeof(thr_keys[0]))

/* Warn and fail limits of one measure (both "at or above" limits). */
static const struct {
	const char *warn, *fail;
} thr_pairs[] = {
	{ "fpga_temp_warn_c", "fpga_temp_fail_c" }, { "board_temp_warn_c", "board_temp_fail_c" },
	{ "vdroop_warn_pct", "vdroop_fail_pct" },   { "v12_tol_warn_pct", "v12_tol_fail_pct" },
	{ "crc_warn_per_min", "crc_fail_per_min" }, { "ldm_age_warn_ms", "ldm_age_fail_ms" },
};
#define NPAIRS (sizeof(thr_pairs) / sizeof(thr_pairs[0]))

static double thr_value(const struct apenet_thresholds *t, const char *key)
{
	for (unsigned i = 0; i < NTHR; i++)
		if (!strcmp(thr_keys[i].key, key))
			return *(const double *)((const char *)t + thr_keys[i].off);
	return 0;
}

static int load_thresholds(const struct apenet_conf *c, const struct apenet_conf_node *m, struct apenet_thresholds *t,
			   struct apenet_err *e)
{
	const char *allowed[NTHR + 1];
	for (unsigned i = 0; i < NTHR; i++)
		allowed[i] = thr_keys[i].key;
	allowed[NTHR] = NULL;
	if (apenet_conf_expect(c, m, APENET_CONF_MAP, "thresholds", e) || apenet_conf_check_keys(c, m, allowed, e))
		return -1;
	for (unsigned i = 0; i < NTHR; i++) {
		const struct apenet_conf_node *n = apenet_conf_get(m, thr_keys[i].key);
		if (n && apenet_conf_double(c, n, thr_keys[i].min, thr_keys[i].max, (double *)((char *)t + thr_keys[i].off), e))
			return -1;
	}
	/* A warn above its fail could never show.  The error points at the
	 * value the file gave (the warn one when it gave both), not at the
	 * start of the map, which may be an unrelated key. */
	for (unsigned i = 0; i < NPAIRS; i++) {
		double w = thr_value(t, thr_pairs[i].warn), f = thr_value(t, thr_pairs[i].fail);
		if (w <= f)
			continue;
		const struct apenet_conf_node *nw = apenet_conf_get(m, thr_pairs[i].warn), *nf = apenet_conf_get(m, thr_pairs[i].fail);
		return apenet_conf_error(c, nw ? nw : nf ? nf : m, e, "%s (%g%s) is above %s (%g%s)", thr_pairs[i].warn, w,
				  nw ? "" : ", the default", thr_pairs[i].fail, f, nf ? "" : ", the default");
	}
	return 0;
}

static int load_wrap(const struct apenet_conf *c, const struct apenet_conf_node *n, int wrap[3], struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "wraparound", e))
		return -1;
	if (!strcmp(n->value, "true") || !strcmp(n->value, "yes")) {
		wrap[0] = wrap[1] = wrap[2] = 1;
		return 0;
	}
	wrap[0] = wrap[1] = wrap[2] = 0;
	if (!strcmp(n->value, "false") || !strcmp(n->value, "no") || !strcmp(n->value, "none"))
		return 0;
	for (const char *p = n->value; *p; p++) {
		if (*p < 'x' || *p > 'z')
			return apenet_conf_error(c, n, e, "'wraparound': '%s' is not true, false or a set of x, y, z (e.g. xy)",
					  n->value);
		wrap[*p - 'x'] = 1;
	}
	return 0;
}

static int load_cluster(const struct apenet_conf *c, const struct apenet_conf_node *m, struct apenet_cluster *cl,
			struct apenet_err *e)
{
	static const char *const keys[] = { "dims", "wraparound", "nodes", NULL };
	static const char *const node_keys[] = { "name", "node", NULL };
	const struct apenet_conf_node *n;
	if (apenet_conf_expect(c, m, APENET_CONF_MAP, "cluster", e) || apenet_conf_check_keys(c, m, keys, e))
		return -1;
	if (!(n = apenet_conf_get(m, "dims")))
		return apenet_conf_error(c, m, e, "'cluster' needs 'dims: XxYxZ'");
	if (apenet_conf_triple(c, n, 'x', cl->dims, e))
		return -1;
	if (!cl->dims[0] || !cl->dims[1] || !cl->dims[2])
		return apenet_conf_error(c, n, e, "'dims': every size must be at least 1");
	if ((n = apenet_conf_get(m, "wraparound")) && load_wrap(c, n, cl->wrap, e))
		return -1;
	if ((n = apenet_conf_get(m, "nodes"))) {
		unsigned cnt = 0;
		if (apenet_conf_expect(c, n, APENET_CONF_SEQ, "nodes", e))
			return -1;
		for (const struct apenet_conf_node *i = n->child; i; i = i->next)
			cnt++;
		cl->nodes = calloc(cnt + 1, sizeof(*cl->nodes));
		if (!cl->nodes)
			return apenet_err_set(e, APENET_EIO, "out of memory");
		for (const struct apenet_conf_node *i = n->child; i; i = i->next) {
			const struct apenet_conf_node *nm, *xyz;
			unsigned v[3];
			if (apenet_conf_expect(c, i, APENET_CONF_MAP, "node", e) || apenet_conf_check_keys(c, i, node_keys, e))
				return -1;
			if (!(nm = apenet_conf_get(i, "name")) || apenet_conf_expect(c, nm, APENET_CONF_SCALAR, "name", e))
				return nm ? -1 : apenet_conf_error(c, i, e, "a node needs 'name'");
			if (!(xyz = apenet_conf_get(i, "node")))
				return apenet_conf_error(c, i, e, "node '%s' needs 'node: X,Y,Z'", nm->value);
			if (apenet_conf_triple(c, xyz, ',', v, e))
				return -1;
			if (v[0] >= cl->dims[0] || v[1] >= cl->dims[1] || v[2] >= cl->dims[2])
				return apenet_conf_error(c, xyz, e, "'node': %u,%u,%u is outside the %ux%ux%u torus", v[0], v[1], v[2],
						  cl->dims[0], cl->dims[1], cl->dims[2]);
			if (strlen(nm->value) >= sizeof(cl->nodes[0].name) || !*nm->value)
				return apenet_conf_error(c, nm, e, "'name': must be 1..63 characters");
			for (unsigned k = 0; k < cl->nnodes; k++) {
				if (!strcmp(cl->nodes[k].name, nm->value))
					return apenet_conf_error(c, nm, e, "node name '%s' given twice", nm->value);
				if (cl->nodes[k].x == v[0] && cl->nodes[k].y == v[1] && cl->nodes[k].z == v[2])
					return apenet_conf_error(c, xyz, e, "node %u,%u,%u named twice ('%s' and '%s')", v[0], v[1],
							  v[2], cl->nodes[k].name, nm->value);
			}
			struct apenet_node_name *nn = &cl->nodes[cl->nnodes++];
			snprintf(nn->name, sizeof(nn->name), "%s", nm->value);
			nn->x = v[0];
			nn->y = v[1];
			nn->z = v[2];
		}
	}
	cl->have = 1;
	return 0;
}

int apenet_config_load(const char *path, struct apenet_config *cfg, struct apenet_err *e)
{
	static const char *const keys[] = { "cluster", "thresholds", NULL };
	struct apenet_conf *c;
	const struct apenet_conf_node *n;
	int rc = -1;
	apenet_config_defaults(cfg);
	if (!path)
		return 0;
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	if (apenet_conf_load(path, &c, e))
		return -1;
	if (apenet_conf_expect(c, c->root, APENET_CONF_MAP, "document", e) || apenet_conf_check_keys(c, c->root, keys, e))
		goto out;
	if ((n = apenet_conf_get(c->root, "cluster")) && load_cluster(c, n, &cfg->cl, e))
		goto out;
	if ((n = apenet_conf_get(c->root, "thresholds")) && load_thresholds(c, n, &cfg->thr, e))
		goto out;
	rc = 0;
out:
	apenet_conf_free(c);
	if (rc)
		apenet_config_free(cfg);
	return rc;
}

const char *apenet_config_node_name(const struct apenet_config *c, unsigned x, unsigned y, unsigned z)
{
	for (unsigned i = 0; i < c->cl.nnodes; i++)
		if (c->cl.nodes[i].x == x && c->cl.nodes[i].y == y && c->cl.nodes[i].z == z)
			return c->cl.nodes[i].name;
	return NULL;
}

int apenet_config_node_by_name(const struct apenet_config *c, const char *name, unsigned xyz[3])
{
	for (unsigned i = 0; i < c->cl.nnodes; i++)
		if (!strcmp(c->cl.nodes[i].name, name)) {
			xyz[0] = c->cl.nodes[i].x;
			xyz[1] = c->cl.nodes[i].y;
			xyz[2] = c->cl.nodes[i].z;
			return 0;
		}
	return -1;
}
