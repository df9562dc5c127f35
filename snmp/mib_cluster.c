/*
 * The cluster tables of APENET-MIB filled from a supervisor's health
 * database: one row per node (apenet_hdb_nodes_each, the order and classes
 * `apenet health` uses) and one per open incident.  The tables are a
 * cache the supervisor marks stale every agentx_cache_ms: a walk of a
 * 32,768-node machine is served from one pair of queries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/mib.h"
#include "apenet/mib_cluster.h"

enum { T_NODES, T_INCIDENTS, T_N };

#define COL_(t, c, name, arc, type) { name, arc, APENET_MIB_##type },
static const struct apenet_mib_col node_cols[] = { APENET_MIB_NODES_COLUMNS(COL_) };
static const struct apenet_mib_col incident_cols[] = { APENET_MIB_INCIDENT_COLUMNS(COL_) };
#undef COL_
#define NCOL(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

int apenet_mib_cluster_init(struct apenet_mib *m, struct apenet_err *e)
{
	if (!apenet_mib_add_table(m, "apenetNodeTable", APENET_MIB_T_NODES, node_cols, NCOL(node_cols), 3, 0, e) ||
	    !apenet_mib_add_table(m, "apenetIncidentTable", APENET_MIB_T_INCIDENT, incident_cols, NCOL(incident_cols), 1,
				  0, e)) {
		apenet_mib_free(m);
		return -1;
	}
	return 0;
}

struct grow {
	void *v;
	size_t n, cap, size;
	int oom;
};

static void *grow_add(struct grow *g)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 64;
		void *v = realloc(g->v, cap * g->size);
		if (!v) {
			g->oom = 1;
			return NULL;
		}
		g->v = v;
		g->cap = cap;
	}
	return (char *)g->v + g->size * g->n++;
}

static int on_node(void *arg, const struct apenet_hdb_node *n)
{
	struct apenet_hdb_node *d = grow_add(arg);
	if (!d)
		return -1;
	*d = *n;
	return 0;
}

static int on_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct apenet_hdb_incident *d = grow_add(arg);
	if (!d)
		return -1;
	*d = *in;
	return 0;
}

static uint32_t key_of(const unsigned xyz[3])
{
	return (uint32_t)(xyz[0] & 0xff) << 16 | (uint32_t)(xyz[1] & 0xff) << 8 | (uint32_t)(xyz[2] & 0xff);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* How many of the sorted keys equal k. */
static unsigned count_key(const uint32_t *keys, size_t n, uint32_t k)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (keys[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	unsigned c = 0;
	while (lo < n && keys[lo++] == k)
		c++;
	return c;
}

static uint64_t age_s(int64_t now, int64_t then)
{
	if (!then)
		return 0xffffffffu;
	return now > then ? (uint64_t)((now - then) / 1000) : 0;
}

static void xyz_text(char *b, size_t n, const unsigned xyz[3])
{
	snprintf(b, n, "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
}

int apenet_mib_cluster_fill(struct apenet_mib *m, const struct apenet_mib_cluster_in *in, struct apenet_err *e)
{
	if (m->ntab != T_N)
		return apenet_err_set(e, APENET_EINVAL, "cluster tables: not initialised");
	struct grow nodes = { .size = sizeof(struct apenet_hdb_node) };
	struct grow incs = { .size = sizeof(struct apenet_hdb_incident) };
	uint32_t *keys = NULL;
	int rc = 0;
	if (apenet_hdb_nodes_each(in->db, in->now_ms, in->silence_ms, 0, on_node, &nodes, e) ||
	    apenet_hdb_incidents_open_each(in->db, on_incident, &incs, e) || nodes.oom || incs.oom) {
		if (nodes.oom || incs.oom)
			apenet_err_set(e, APENET_EIO, "cluster tables: out of memory");
		rc = -1;
		nodes.n = incs.n = 0;
	}
	keys = calloc(incs.n + 1, sizeof(*keys));
	if (!keys) {
		rc = apenet_err_set(e, APENET_EIO, "cluster tables: out of memory");
		nodes.n = incs.n = 0;
	}
	const struct apenet_hdb_incident *iv = incs.v;
	for (size_t i = 0; i < incs.n; i++)
		keys[i] = key_of(iv[i].node);
	if (incs.n)
		qsort(keys, incs.n, sizeof(*keys), cmp_u32);

	struct apenet_mib_tab *t = &m->tab[T_NODES];
	char b[40];
	if (apenet_mib_set_rows(t, (unsigned)nodes.n, e))
		rc = -1;
	else {
		const struct apenet_hdb_node *nv = nodes.v;
		for (unsigned r = 0; r < nodes.n; r++) {
			const struct apenet_hdb_node *n = &nv[r];
			unsigned xyz[3] = { n->x, n->y, n->z };
			uint32_t idx[3] = { n->x, n->y, n->z };
			apenet_mib_row_index(t, r, idx);
			apenet_mib_set_str(t, r, APENET_MIB_NODES_NAME, "%s", n->name);
			/* ApenetNodeHealth: normal(1) sick(2) broken(3) silent(4) */
			apenet_mib_set_int(t, r, APENET_MIB_NODES_CLASS,
					   n->cls >= APENET_HDB_NORMAL && n->cls <= APENET_HDB_SILENT ? n->cls + 1 : 3);
			apenet_mib_set_str(t, r, APENET_MIB_NODES_SUMMARY, "%.95s", n->summary);
			apenet_mib_set_u(t, r, APENET_MIB_NODES_SELF_AGE, age_s(in->now_ms, n->self_recv_ms));
			apenet_mib_set_u(t, r, APENET_MIB_NODES_TORUS_AGE, age_s(in->now_ms, n->torus_recv_ms));
			apenet_mib_set_str(t, r, APENET_MIB_NODES_BOOT_ID, "%s", n->boot);
			apenet_mib_set_u(t, r, APENET_MIB_NODES_LDM_WORD, n->ldm);
			apenet_mib_set_u(t, r, APENET_MIB_NODES_OPEN_INCIDENTS, count_key(keys, incs.n, key_of(xyz)));
			apenet_mib_set_int(t, r, APENET_MIB_NODES_IN_LAYOUT, n->in_layout ? 1 : 2);
		}
	}

	t = &m->tab[T_INCIDENTS];
	if (apenet_mib_set_rows(t, (unsigned)incs.n, e))
		rc = -1;
	else {
		for (unsigned r = 0; r < incs.n; r++) {
			const struct apenet_hdb_incident *x = &iv[r];
			uint32_t id = (uint32_t)x->id;
			apenet_mib_row_index(t, r, &id);
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_COMPONENT, "%s", x->component);
			xyz_text(b, sizeof(b), x->node);
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_NODE, "%s", b);
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_NODE_NAME, "%s", x->node_name);
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_LINK, "%s", x->link);
			if (x->has_far)
				xyz_text(b, sizeof(b), x->far);
			else
				b[0] = 0;
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_FAR_NODE, "%s", b);
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_FAR_LINK, "%s", x->has_far ? x->far_link : "");
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_RULE, "%s", x->rule);
			apenet_mib_set_u(t, r, APENET_MIB_INCIDENT_OPENED, x->opened_ms > 0 ? (uint64_t)(x->opened_ms / 1000) : 0);
			apenet_mib_set_str(t, r, APENET_MIB_INCIDENT_FIRST_FAULT, "%.95s", x->first.text);
			apenet_mib_set_u(t, r, APENET_MIB_INCIDENT_EVIDENCE, x->evidence);
		}
	}
	free(keys);
	free(nodes.v);
	free(incs.v);
	return rc;
}
