/*
 * The writer's memory of the nodes (struct hdb_node): row ids, each
 * agent's current boot and each node's times (heard on each path, latest
 * heartbeat), found by coordinates in O(1).  Reports are decided here
 * without a read of the file; the times wait here until the next flush
 * writes the changed ones in row order.  A batch that rolls back takes the memory back with it: every
 * entry is copied before the batch first changes it.
 *
 * Memory: about 150 bytes a node plus 8 bytes of index, 5 MB at 32K nodes.
 */
#include <stdlib.h>
#include <string.h>

#include "hdb_int.h"

static struct hdb_node *hdb_at(const struct hdb_cache *c, uint32_t i)
{
	return &c->blk[i / HDB_BLOCK][i % HDB_BLOCK];
}

static uint32_t hdb_hash(const unsigned xyz[3])
{
	uint64_t h = (uint64_t)xyz[0] * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)xyz[1] * 0xc2b2ae3d27d4eb4full + (h >> 29);
	h ^= (uint64_t)xyz[2] * 0x165667b19e3779f9ull + (h >> 31);
	return (uint32_t)(h ^ (h >> 32));
}

static int hdb_push(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 256;
		uint32_t *p = realloc(*a, nc * sizeof(*p));
		if (!p)
			return -1;
		*a = p;
		*cap = nc;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* Keeps the slots at most half full. */
static int hdb_slots_grow(struct hdb_cache *c)
{
	if (c->mask && (uint64_t)(c->n + 1) * 2 <= (uint64_t)c->mask + 1)
		return 0;
	uint32_t size = c->mask ? (c->mask + 1) * 2 : 1024;
	uint32_t *s = calloc(size, sizeof(*s));
	if (!s)
		return -1;
	for (uint32_t i = 0; i < c->n; i++) {
		uint32_t h = hdb_hash(hdb_at(c, i)->xyz) & (size - 1);
		while (s[h])
			h = (h + 1) & (size - 1);
		s[h] = i + 1;
	}
	free(c->slot);
	c->slot = s;
	c->mask = size - 1;
	return 0;
}

struct hdb_node *apenet_hdb_cache_find(struct apenet_hdb *db, const unsigned xyz[3])
{
	struct hdb_cache *c = &db->cache;
	if (!c->mask)
		return NULL;
	for (uint32_t h = hdb_hash(xyz) & c->mask; c->slot[h]; h = (h + 1) & c->mask) {
		struct hdb_node *n = hdb_at(c, c->slot[h] - 1);
		if (n->xyz[0] == xyz[0] && n->xyz[1] == xyz[1] && n->xyz[2] == xyz[2])
			return n;
	}
	return NULL;
}

static struct hdb_node *hdb_cache_new(struct apenet_hdb *db, const unsigned xyz[3], struct apenet_err *e)
{
	struct hdb_cache *c = &db->cache;
	if (hdb_slots_grow(c))
		goto oom;
	if (c->n == c->nblk * HDB_BLOCK) {
		struct hdb_node **b = realloc(c->blk, (c->nblk + 1) * sizeof(*b));
		if (!b)
			goto oom;
		c->blk = b;
		if (!(c->blk[c->nblk] = calloc(HDB_BLOCK, sizeof(struct hdb_node))))
			goto oom;
		c->nblk++;
	}
	uint32_t i = c->n++;
	struct hdb_node *n = hdb_at(c, i);
	memset(n, 0, sizeof(*n));
	memcpy(n->xyz, xyz, sizeof(n->xyz));
	n->idx = i;
	uint32_t h = hdb_hash(xyz) & c->mask;
	while (c->slot[h])
		h = (h + 1) & c->mask;
	c->slot[h] = i + 1;
	return n;
oom:
	apenet_err_set(e, APENET_EIO, "health db %s: out of memory for the node cache", db->f.path);
	return NULL;
}

/* Forgets what an entry knew, keeping its place. */
static void hdb_node_reset(struct hdb_node *n)
{
	unsigned xyz[3];
	uint32_t idx = n->idx;
	memcpy(xyz, n->xyz, sizeof(xyz));
	memset(n, 0, sizeof(*n));
	memcpy(n->xyz, xyz, sizeof(xyz));
	n->idx = idx;
}

int apenet_hdb_cache_touch(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e)
{
	struct hdb_cache *c = &db->cache;
	if (!db->in_batch || n->touched)
		return 0;
	if (c->nundo == c->undo_cap) {
		uint32_t nc = c->undo_cap ? c->undo_cap * 2 : 256;
		struct hdb_node *u = realloc(c->undo, nc * sizeof(*u));
		if (!u)
			return apenet_err_set(e, APENET_EIO, "health db %s: out of memory for the undo log", db->f.path);
		c->undo = u;
		c->undo_cap = nc;
	}
	c->undo[c->nundo++] = *n;
	n->touched = 1;
	return 0;
}

int apenet_hdb_cache_mark_dirty(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e)
{
	struct hdb_cache *c = &db->cache;
	if (n->dirty)
		return 0;
	if (apenet_hdb_cache_touch(db, n, e))
		return -1;
	if (hdb_push(&c->dirty, &c->ndirty, &c->dirty_cap, n->idx))
		return apenet_err_set(e, APENET_EIO, "health db %s: out of memory", db->f.path);
	n->dirty = 1;
	c->deferred++;
	return 0;
}

/* The statement's binding of an entry's node_seen row. */
static void hdb_bind_seen(sqlite3_stmt *st, const struct hdb_node *n)
{
	sqlite3_bind_int64(st, 1, n->id);
	sqlite3_bind_int64(st, 2, n->boot_ms);
	sqlite3_bind_int64(st, 3, n->self_ms);
	sqlite3_bind_int64(st, 4, n->self_recv_ms);
	sqlite3_bind_int64(st, 5, n->torus_ms);
	sqlite3_bind_int64(st, 6, n->torus_recv_ms);
	sqlite3_bind_int64(st, 7, (int64_t)n->hb_seq);
	sqlite3_bind_int64(st, 8, n->hb_ms);
	sqlite3_bind_int64(st, 9, n->hb_recv_ms);
}

int apenet_hdb_seen_write(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_SEEN, e);
	if (!st)
		return -1;
	hdb_bind_seen(st, n);
	if (apenet_db_run(&db->f, st, e, "writing when a node was heard"))
		return -1;
	db->stats.seen_written++;
	if (n->dirty) {
		if (apenet_hdb_cache_touch(db, n, e))
			return -1;
		n->dirty = 0; /* its entry in the dirty list is skipped */
		db->cache.deferred--;
	}
	return 0;
}

int apenet_hdb_seen_changed(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e)
{
	return db->hb_flush_ms == 0 ? apenet_hdb_seen_write(db, n, e) : apenet_hdb_cache_mark_dirty(db, n, e);
}

struct hdb_node *apenet_hdb_cache_add(struct apenet_hdb *db, const unsigned xyz[3], int64_t id, struct apenet_err *e)
{
	struct hdb_node *n = apenet_hdb_cache_find(db, xyz);
	if (n) {
		if (apenet_hdb_cache_touch(db, n, e))
			return NULL;
		hdb_node_reset(n);
	} else if (!(n = hdb_cache_new(db, xyz, e))) {
		return NULL;
	}
	n->id = id;
	return n;
}

struct hdb_node *apenet_hdb_node_entry(struct apenet_hdb *db, const unsigned xyz[3], const char *name, struct apenet_err *e)
{
	struct hdb_node *n = apenet_hdb_cache_find(db, xyz);
	if (n && n->id)
		return n;
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_INSERT, e);
	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, xyz[0]);
	sqlite3_bind_int64(st, 2, xyz[1]);
	sqlite3_bind_int64(st, 3, xyz[2]);
	apenet_db_bind_text(st, 4, name ? name : "");
	sqlite3_bind_int(st, 5, 0);
	if (apenet_db_run(&db->f, st, e, "adding a node"))
		return NULL;
	return apenet_hdb_cache_add(db, xyz, sqlite3_last_insert_rowid(db->f.conn), e);
}

int apenet_hdb_cache_load(struct apenet_hdb *db, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_LOAD, e);
	if (!st)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		unsigned xyz[3] = { (unsigned)sqlite3_column_int64(st, 1), (unsigned)sqlite3_column_int64(st, 2),
				    (unsigned)sqlite3_column_int64(st, 3) };
		struct hdb_node *n = apenet_hdb_cache_find(db, xyz);
		if (n && n->dirty)
			continue; /* its newer heartbeat is here, not there yet */
		if (!n && !(n = hdb_cache_new(db, xyz, e))) {
			apenet_db_done(st);
			return -1;
		}
		hdb_node_reset(n);
		n->id = sqlite3_column_int64(st, 0);
		apenet_db_col_text(st, 4, n->boot, sizeof(n->boot));
		unsigned rep[3];
		if (apenet_report_boot_parse(n->boot, rep, &n->gen))
			n->gen = 0;
		const unsigned char *hb_boot = sqlite3_column_text(st, 5);
		n->has_hb = hb_boot && *hb_boot;
		n->hb_current = n->has_hb && !strcmp((const char *)hb_boot, n->boot);
		n->ldm = (uint32_t)sqlite3_column_int64(st, 6);
		n->boot_ms = sqlite3_column_int64(st, 7);
		n->self_ms = sqlite3_column_int64(st, 8);
		n->self_recv_ms = sqlite3_column_int64(st, 9);
		n->torus_ms = sqlite3_column_int64(st, 10);
		n->torus_recv_ms = sqlite3_column_int64(st, 11);
		n->hb_seq = (uint64_t)sqlite3_column_int64(st, 12);
		n->hb_ms = sqlite3_column_int64(st, 13);
		n->hb_recv_ms = sqlite3_column_int64(st, 14);
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "loading the nodes");
	return 0;
}

void apenet_hdb_cache_commit(struct apenet_hdb *db)
{
	struct hdb_cache *c = &db->cache;
	for (uint32_t i = 0; i < c->nundo; i++)
		hdb_at(c, c->undo[i].idx)->touched = 0;
	c->nundo = 0;
	c->nflushed = 0;
	c->n_at_begin = c->n;
}

void apenet_hdb_cache_rollback(struct apenet_hdb *db)
{
	struct hdb_cache *c = &db->cache;
	/* Newest copy last: the first copy of an entry is its state before
	 * the batch, and there is only one per entry. */
	for (uint32_t i = 0; i < c->nundo; i++)
		*hdb_at(c, c->undo[i].idx) = c->undo[i];
	for (uint32_t i = 0; i < c->nflushed; i++)
		hdb_at(c, c->flushed[i])->dirty = 1;
	for (uint32_t i = c->n_at_begin; i < c->n; i++)
		hdb_node_reset(hdb_at(c, i));
	c->nundo = 0;
	c->nflushed = 0;
	c->n_at_begin = c->n;
	c->ndirty = 0;
	c->deferred = 0;
	for (uint32_t i = 0; i < c->n; i++) {
		struct hdb_node *n = hdb_at(c, i);
		if (!n->dirty)
			continue;
		if (hdb_push(&c->dirty, &c->ndirty, &c->dirty_cap, i)) {
			n->dirty = 0; /* no memory to remember it: the next heartbeat will be */
			continue;
		}
		c->deferred++;
	}
}

static int hdb_by_id(const void *a, const void *b, void *arg)
{
	const struct hdb_cache *c = arg;
	int64_t x = hdb_at(c, *(const uint32_t *)a)->id, y = hdb_at(c, *(const uint32_t *)b)->id;
	return (x > y) - (x < y);
}

int apenet_hdb_cache_flush(struct apenet_hdb *db, struct apenet_err *e)
{
	struct hdb_cache *c = &db->cache;
	if (!c->deferred)
		return 0;
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_SEEN, e);
	if (!st)
		return -1;
	/* Each dirty entry once (marked 2 while collected), in row order so
	 * that the pages are written front to back. */
	uint32_t k = 0;
	for (uint32_t i = 0; i < c->ndirty; i++) {
		struct hdb_node *n = hdb_at(c, c->dirty[i]);
		if (n->dirty == 1) {
			n->dirty = 2;
			c->dirty[k++] = c->dirty[i];
		}
	}
	c->ndirty = k;
	qsort_r(c->dirty, k, sizeof(*c->dirty), hdb_by_id, c);
	for (uint32_t i = 0; i < k; i++) {
		struct hdb_node *n = hdb_at(c, c->dirty[i]);
		if (!n->touched && hdb_push(&c->flushed, &c->nflushed, &c->flushed_cap, n->idx)) {
			apenet_err_set(e, APENET_EIO, "health db %s: out of memory", db->f.path);
			goto fail;
		}
		hdb_bind_seen(st, n);
		if (apenet_db_run(&db->f, st, e, "writing when the nodes were heard")) {
			if (!n->touched)
				c->nflushed--;
			goto fail;
		}
		n->dirty = 0;
		db->stats.seen_written++;
	}
	c->ndirty = 0;
	c->deferred = 0;
	return 0;
fail:
	/* Those not written yet are dirty again (the batch rolls back the
	 * rest). */
	for (uint32_t i = 0; i < c->ndirty; i++) {
		struct hdb_node *n = hdb_at(c, c->dirty[i]);
		if (n->dirty == 2)
			n->dirty = 1;
	}
	return -1;
}

void apenet_hdb_cache_free(struct hdb_cache *c)
{
	for (uint32_t i = 0; i < c->nblk; i++)
		free(c->blk[i]);
	free(c->blk);
	free(c->slot);
	free(c->undo);
	free(c->flushed);
	free(c->dirty);
	memset(c, 0, sizeof(*c));
}
