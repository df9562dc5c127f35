/* The emulator's YAML config (mixed variants, cables, measured channels),
 * read through the project's one config loader. */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/conf.h"
#include "sim.h"

static const char *const top_keys[] = { "dims", "variant", "seed", "ber_accel", "tick_ms", "cable", "nodes",
					"cables", "remote_window", NULL };
static const char *const cable_keys[] = { "kind", "length", NULL };
static const char *const node_keys[] = { "node", "variant", "remote_window", NULL };
static const char *const link_keys[] = { "node", "link", "kind", "length", "measured", "vendor", NULL };

static int variant(const struct apenet_conf *c, const struct apenet_conf_node *n, const struct apenet_profile **p,
		   struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "variant", e))
		return -1;
	*p = apenet_profile_by_name(n->value);
	if (!*p)
		return apenet_conf_error(c, n, e,
				  "unknown variant '%s' (expected apenet+, apenet-v5, nanet-1, nanet-km3 or nanet-10)",
				  n->value);
	return 0;
}

static int kind(const struct apenet_conf *c, const struct apenet_conf_node *n, int *k, struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "kind", e))
		return -1;
	if (!strcmp(n->value, "copper"))
		*k = SIM_CABLE_COPPER;
	else if (!strcmp(n->value, "optical"))
		*k = SIM_CABLE_OPTICAL;
	else
		return apenet_conf_error(c, n, e, "'kind': '%s' is not copper or optical", n->value);
	return 0;
}

/* remote_window: true/yes or false/no: does the firmware have the remote
 * register window (ID_CAPS.RMT)? */
static int yesno(const struct apenet_conf *c, const struct apenet_conf_node *n, const char *what, int *out,
		 struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, what, e))
		return -1;
	if (!strcmp(n->value, "true") || !strcmp(n->value, "yes"))
		*out = 1;
	else if (!strcmp(n->value, "false") || !strcmp(n->value, "no"))
		*out = 0;
	else
		return apenet_conf_error(c, n, e, "'%s': '%s' is not true or false", what, n->value);
	return 0;
}

static unsigned count(const struct apenet_conf_node *seq)
{
	unsigned n = 0;
	for (const struct apenet_conf_node *i = seq->child; i; i = i->next)
		n++;
	return n;
}

static int load_cables(const struct apenet_conf *c, const struct apenet_conf_node *seq, struct sim_conf *sc, struct apenet_err *e)
{
	if (apenet_conf_expect(c, seq, APENET_CONF_SEQ, "cables", e))
		return -1;
	sc->cables = calloc(count(seq) + 1, sizeof(*sc->cables));
	if (!sc->cables)
		return apenet_err_set(e, APENET_EIO, "out of memory");
	char base[PATH_MAX];
	snprintf(base, sizeof(base), "%s", c->file);
	const char *dir = dirname(base);
	for (const struct apenet_conf_node *i = seq->child; i; i = i->next) {
		struct sim_cable_conf *cc = &sc->cables[sc->ncables];
		unsigned v[3];
		const struct apenet_conf_node *n;
		cc->kind = -1;
		if (apenet_conf_expect(c, i, APENET_CONF_MAP, "cable", e) || apenet_conf_check_keys(c, i, link_keys, e))
			return -1;
		if (!(n = apenet_conf_get(i, "node")) || apenet_conf_triple(c, n, ',', v, e))
			return n ? -1 : apenet_conf_error(c, i, e, "a cable needs 'node: X,Y,Z'");
		/* Checked here, as for 'nodes': an override for a board the torus
		 * does not have would silently apply to no cable. */
		if (v[0] >= sc->dims[0] || v[1] >= sc->dims[1] || v[2] >= sc->dims[2])
			return apenet_conf_error(c, n, e, "'node': %u,%u,%u is outside the %ux%ux%u torus", v[0], v[1], v[2],
						 sc->dims[0], sc->dims[1], sc->dims[2]);
		cc->x = v[0];
		cc->y = v[1];
		cc->z = v[2];
		if (!(n = apenet_conf_get(i, "link")) || apenet_conf_expect(c, n, APENET_CONF_SCALAR, "link", e))
			return n ? -1 : apenet_conf_error(c, i, e, "a cable needs 'link: NAME' (e.g. X+)");
		const struct apenet_profile *p = sc->prof;
		for (unsigned k = 0; k < sc->nnodes; k++)
			if (sc->nodes[k].x == v[0] && sc->nodes[k].y == v[1] && sc->nodes[k].z == v[2])
				p = sc->nodes[k].prof;
		int found = -1;
		for (unsigned l = 0; l < p->nlinks; l++)
			if (!strcmp(p->links[l].name, n->value))
				found = (int)l;
		if (found < 0)
			return apenet_conf_error(c, n, e, "'link': %s has no link '%s'", p->name, n->value);
		cc->link = (unsigned)found;
		if ((n = apenet_conf_get(i, "kind")) && kind(c, n, &cc->kind, e))
			return -1;
		if ((n = apenet_conf_get(i, "length")) && apenet_conf_double(c, n, 0.1, 100, &cc->length_m, e))
			return -1;
		/* the modules' vendor name, as is: a test's way to put any bytes in an EEPROM */
		if ((n = apenet_conf_get(i, "vendor"))) {
			if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "vendor", e))
				return -1;
			if (strlen(n->value) > 16)
				return apenet_conf_error(c, n, e, "'vendor': longer than the EEPROM's 16 bytes");
			snprintf(cc->vendor, sizeof(cc->vendor), "%s", n->value);
			cc->has_vendor = 1;
		}
		if ((n = apenet_conf_get(i, "measured"))) {
			if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "measured", e))
				return -1;
			int w = n->value[0] == '/' ? snprintf(cc->csv, sizeof(cc->csv), "%s", n->value)
						   : snprintf(cc->csv, sizeof(cc->csv), "%s/%s", dir, n->value);
			if (w < 0 || (size_t)w >= sizeof(cc->csv))
				return apenet_conf_error(c, n, e, "'measured': path too long");
		}
		sc->ncables++;
	}
	return 0;
}

int sim_conf_load(const char *path, struct sim_conf *sc, struct apenet_err *e)
{
	struct apenet_conf *c;
	if (apenet_conf_load(path, &c, e))
		return -1;
	const struct apenet_conf_node *r = c->root, *n;
	int rc = -1;
	unsigned long u;
	if (apenet_conf_expect(c, r, APENET_CONF_MAP, "document", e) || apenet_conf_check_keys(c, r, top_keys, e))
		goto out;
	if ((n = apenet_conf_get(r, "dims"))) {
		if (apenet_conf_triple(c, n, 'x', sc->dims, e))
			goto out;
		/* Said here with the file's line, not later by the torus builder. */
		if (!sc->dims[0] || !sc->dims[1] || !sc->dims[2]) {
			apenet_conf_error(c, n, e, "'dims': every size must be at least 1");
			goto out;
		}
	}
	if ((n = apenet_conf_get(r, "variant")) && variant(c, n, &sc->prof, e))
		goto out;
	if ((n = apenet_conf_get(r, "seed"))) {
		if (apenet_conf_uint(c, n, 0, 0xffffffffu, &u, e))
			goto out;
		sc->seed = u;
	}
	if ((n = apenet_conf_get(r, "ber_accel"))) {
		if (apenet_conf_uint(c, n, 1, 1000000000u, &u, e))
			goto out;
		sc->ber_accel = (uint32_t)u;
	}
	if ((n = apenet_conf_get(r, "tick_ms"))) {
		if (apenet_conf_uint(c, n, 1, 10000, &u, e))
			goto out;
		sc->tick_ms = (unsigned)u;
	}
	if ((n = apenet_conf_get(r, "remote_window"))) {
		int yes;
		if (yesno(c, n, "remote_window", &yes, e))
			goto out;
		sc->no_remote_window = !yes;
	}
	if ((n = apenet_conf_get(r, "cable"))) {
		const struct apenet_conf_node *m;
		if (apenet_conf_expect(c, n, APENET_CONF_MAP, "cable", e) || apenet_conf_check_keys(c, n, cable_keys, e))
			goto out;
		if ((m = apenet_conf_get(n, "kind")) && kind(c, m, &sc->cable_kind, e))
			goto out;
		if ((m = apenet_conf_get(n, "length")) && apenet_conf_double(c, m, 0.1, 100, &sc->cable_m, e))
			goto out;
	}
	if ((n = apenet_conf_get(r, "nodes"))) {
		if (apenet_conf_expect(c, n, APENET_CONF_SEQ, "nodes", e))
			goto out;
		sc->nodes = calloc(count(n) + 1, sizeof(*sc->nodes));
		if (!sc->nodes) {
			apenet_err_set(e, APENET_EIO, "out of memory");
			goto out;
		}
		for (const struct apenet_conf_node *i = n->child; i; i = i->next) {
			struct sim_node_conf *nc = &sc->nodes[sc->nnodes];
			unsigned v[3];
			const struct apenet_conf_node *m;
			if (apenet_conf_expect(c, i, APENET_CONF_MAP, "node", e) || apenet_conf_check_keys(c, i, node_keys, e))
				goto out;
			if (!(m = apenet_conf_get(i, "node"))) {
				apenet_conf_error(c, i, e, "an entry of 'nodes' needs 'node: X,Y,Z'");
				goto out;
			}
			if (apenet_conf_triple(c, m, ',', v, e))
				goto out;
			if (v[0] >= sc->dims[0] || v[1] >= sc->dims[1] || v[2] >= sc->dims[2]) {
				apenet_conf_error(c, m, e, "'node': %u,%u,%u is outside the %ux%ux%u torus", v[0], v[1], v[2],
					   sc->dims[0], sc->dims[1], sc->dims[2]);
				goto out;
			}
			nc->x = v[0];
			nc->y = v[1];
			nc->z = v[2];
			nc->prof = sc->prof;
			nc->remote_window = -1;
			if ((m = apenet_conf_get(i, "variant")) && variant(c, m, &nc->prof, e))
				goto out;
			if ((m = apenet_conf_get(i, "remote_window")) && yesno(c, m, "remote_window", &nc->remote_window, e))
				goto out;
			sc->nnodes++;
		}
	}
	if ((n = apenet_conf_get(r, "cables")) && load_cables(c, n, sc, e))
		goto out;
	rc = 0;
out:
	apenet_conf_free(c);
	return rc;
}

void sim_conf_free(struct sim_conf *c)
{
	free(c->nodes);
	free(c->cables);
	c->nodes = NULL;
	c->cables = NULL;
}
