/*
 * The cluster's layout: nodes of a torus and each node's links to its
 * partners, with wraparound in every dimension.
 */
#include <stdio.h>
#include <string.h>

#include "hdb_int.h"

/* 32x32x32 is the architecture's largest torus; a little room beyond. */
#define HDB_MAX_NODES (1u << 20)

int apenet_hdb_partner(const unsigned dims[3], const unsigned xyz[3], int link, unsigned far[3], int *far_link)
{
	if (link < 0 || link >= APENET_HDB_NLINKS)
		return -1;
	for (int d = 0; d < 3; d++)
		if (dims[d] == 0 || xyz[d] >= dims[d])
			return -1;
	int d = link / 2, plus = link % 2 == 0;
	if (dims[d] < 2)
		return -1; /* nothing to reach along a dimension of one node */
	memcpy(far, xyz, 3 * sizeof(*far));
	far[d] = plus ? (xyz[d] + 1) % dims[d] : (xyz[d] + dims[d] - 1) % dims[d];
	/* X+ arrives at the partner's X-, and X- at its X+ */
	*far_link = plus ? link + 1 : link - 1;
	return 0;
}

static int hdb_layout_node(struct apenet_hdb *db, const unsigned xyz[3], const char *name, struct apenet_err *e)
{
	if (!name)
		name = "";
	if (strlen(name) >= sizeof(((struct apenet_hdb_node *)0)->name))
		return apenet_err_set(e, APENET_EINVAL, "health db %s: node %u,%u,%u: name '%.40s...' longer than %zu",
				      db->f.path, xyz[0], xyz[1], xyz[2], name,
				      sizeof(((struct apenet_hdb_node *)0)->name) - 1);
	struct hdb_node *n = apenet_hdb_cache_find(db, xyz);
	sqlite3_stmt *st;
	if (n && n->id) {
		if (!(st = apenet_db_stmt(&db->f, ST_NODE_NAME, e)))
			return -1;
		sqlite3_bind_int64(st, 1, n->id);
		apenet_db_bind_text(st, 2, name);
		return apenet_db_run(&db->f, st, e, "naming a node");
	}
	if (!(st = apenet_db_stmt(&db->f, ST_NODE_INSERT, e)))
		return -1;
	sqlite3_bind_int64(st, 1, xyz[0]);
	sqlite3_bind_int64(st, 2, xyz[1]);
	sqlite3_bind_int64(st, 3, xyz[2]);
	apenet_db_bind_text(st, 4, name);
	sqlite3_bind_int(st, 5, 1);
	if (apenet_db_run(&db->f, st, e, "adding a node"))
		return -1;
	return apenet_hdb_cache_add(db, xyz, sqlite3_last_insert_rowid(db->f.conn), e) ? 0 : -1;
}

/* The dims the layout was stored with ("AxBxC" in meta), "" none: 1, 0, -1. */
static int hdb_stored_dims(struct apenet_hdb *db, char *have, size_t n, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_META_GET, e);
	if (!st)
		return -1;
	have[0] = 0;
	apenet_db_bind_text(st, 1, "dims");
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		apenet_db_col_text(st, 0, have, n);
	apenet_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading the stored layout");
	return rc == SQLITE_ROW;
}

/* The links of every node, written when the dimensions are not the ones
 * stored (links are a function of them). */
static int hdb_layout_links(struct apenet_hdb *db, const unsigned dims[3], struct apenet_err *e)
{
	char want[48], have[48];
	snprintf(want, sizeof(want), "%ux%ux%u", dims[0], dims[1], dims[2]);
	if (hdb_stored_dims(db, have, sizeof(have), e) < 0)
		return -1;
	if (!strcmp(want, have))
		return 0;
	sqlite3_stmt *st;
	if (!(st = apenet_db_stmt(&db->f, ST_LINK_CLEAR, e)) || apenet_db_run(&db->f, st, e, "clearing the links"))
		return -1;
	if (!(st = apenet_db_stmt(&db->f, ST_LINK_INSERT, e)))
		return -1;
	unsigned xyz[3], far[3];
	for (xyz[2] = 0; xyz[2] < dims[2]; xyz[2]++)
		for (xyz[1] = 0; xyz[1] < dims[1]; xyz[1]++)
			for (xyz[0] = 0; xyz[0] < dims[0]; xyz[0]++) {
				const struct hdb_node *n = apenet_hdb_cache_find(db, xyz);
				for (int l = 0; l < APENET_HDB_NLINKS; l++) {
					int fl;
					if (apenet_hdb_partner(dims, xyz, l, far, &fl))
						continue;
					const struct hdb_node *p = apenet_hdb_cache_find(db, far);
					sqlite3_bind_int64(st, 1, n->id);
					sqlite3_bind_int(st, 2, l);
					apenet_db_bind_text(st, 3, apenet_hdb_link_name(l));
					sqlite3_bind_int64(st, 4, p->id);
					apenet_db_bind_text(st, 5, apenet_hdb_link_name(fl));
					if (apenet_db_run(&db->f, st, e, "adding a link"))
						return -1;
				}
			}
	if (!(st = apenet_db_stmt(&db->f, ST_META_SET, e)))
		return -1;
	apenet_db_bind_text(st, 1, "dims");
	apenet_db_bind_text(st, 2, want);
	return apenet_db_run(&db->f, st, e, "storing the layout");
}

int apenet_hdb_layout(struct apenet_hdb *db, const unsigned dims[3], apenet_hdb_name_fn name, void *arg,
		      struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "storing the layout"))
		return -1;
	uint64_t total = 1;
	for (int d = 0; d < 3; d++) {
		if (dims[d] == 0)
			return apenet_err_set(e, APENET_EINVAL, "health db %s: layout %ux%ux%u: a dimension of 0",
					      db->f.path, dims[0], dims[1], dims[2]);
		total *= dims[d];
	}
	if (total > HDB_MAX_NODES)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: layout %ux%ux%u: more than %u nodes", db->f.path,
				      dims[0], dims[1], dims[2], HDB_MAX_NODES);
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	int ok = 1;
	unsigned xyz[3];
	for (xyz[2] = 0; ok && xyz[2] < dims[2]; xyz[2]++)
		for (xyz[1] = 0; ok && xyz[1] < dims[1]; xyz[1]++)
			for (xyz[0] = 0; ok && xyz[0] < dims[0]; xyz[0]++)
				ok = hdb_layout_node(db, xyz, name ? name(arg, xyz[0], xyz[1], xyz[2]) : NULL, e) == 0;
	if (ok) {
		sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_LEAVE, e);
		if (st) {
			sqlite3_bind_int64(st, 1, dims[0]);
			sqlite3_bind_int64(st, 2, dims[1]);
			sqlite3_bind_int64(st, 3, dims[2]);
		}
		ok = st && apenet_db_run(&db->f, st, e, "taking nodes out of the layout") == 0 && hdb_layout_links(db, dims, e) == 0;
	}
	return apenet_hdb_tx_end(db, own, ok, e);
}

int apenet_hdb_dims(struct apenet_hdb *db, unsigned dims[3], struct apenet_err *e)
{
	char have[48];
	int rc = hdb_stored_dims(db, have, sizeof(have), e);
	dims[0] = dims[1] = dims[2] = 0;
	if (rc < 0)
		return -1;
	if (rc == 0 || sscanf(have, "%ux%ux%u", &dims[0], &dims[1], &dims[2]) != 3) {
		dims[0] = dims[1] = dims[2] = 0;
		return 0;
	}
	return 1;
}
