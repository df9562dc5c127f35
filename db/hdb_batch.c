/*
 * Batches: one transaction for many reports, committed durably, and the
 * writer's memory kept in step with what the file holds (the node cache is
 * restored when a batch rolls back, and re-read when another process wrote
 * the file since our last batch).
 */
#include "apenet/clock.h"
#include "hdb_int.h"

int apenet_hdb_data_version(struct apenet_hdb *db, int64_t *v, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_DATA_VERSION, e);
	if (!st)
		return -1;
	int row = sqlite3_step(st) == SQLITE_ROW;
	if (row)
		*v = sqlite3_column_int64(st, 0);
	else
		apenet_db_err(&db->f, e, "reading the data version");
	apenet_db_done(st);
	return row ? 0 : -1;
}

static int hdb_begin(struct apenet_hdb *db, struct apenet_err *e)
{
	if (apenet_db_begin(&db->f, e))
		return -1;
	db->in_batch = 1;
	db->batch_failed = 0;
	/* Someone else wrote the file (a tool, another writer): what we keep
	 * of the nodes may be stale. */
	int64_t dv = 0;
	if (apenet_hdb_data_version(db, &dv, e))
		goto fail;
	if (dv != db->data_version) {
		if (apenet_hdb_cache_load(db, e))
			goto fail;
		db->data_version = dv;
	}
	db->cache.n_at_begin = db->cache.n;
	return 0;
fail:
	apenet_hdb_rollback(db);
	return -1;
}

int apenet_hdb_begin(struct apenet_hdb *db, struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "beginning a batch"))
		return -1;
	if (db->in_batch)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: a batch is already open", db->f.path);
	return hdb_begin(db, e);
}

static int hdb_flush_due(struct apenet_hdb *db)
{
	if (!db->cache.deferred)
		return 0;
	return db->hb_flush_ms == 0 || (apenet_clock_mono_s() - db->last_flush) * 1000.0 >= (double)db->hb_flush_ms;
}

int apenet_hdb_commit(struct apenet_hdb *db, struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "committing"))
		return -1;
	if (!db->in_batch)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: no batch to commit", db->f.path);
	if (db->batch_failed) {
		apenet_err_set(e, APENET_EINVAL, "health db %s: a call in this batch failed: it was rolled back", db->f.path);
		apenet_hdb_rollback(db);
		return -1;
	}
	int flushed = 0;
	if (hdb_flush_due(db)) {
		if (apenet_hdb_cache_flush(db, e)) {
			apenet_hdb_rollback(db);
			return -1;
		}
		flushed = 1;
	}
	if (apenet_db_commit(&db->f, e)) {
		apenet_hdb_rollback(db);
		return -1;
	}
	db->in_batch = 0;
	apenet_hdb_cache_commit(db);
	if (flushed) {
		db->last_flush = apenet_clock_mono_s();
		db->stats.flushes++;
	}
	db->stats.batches++;
	return 0;
}

void apenet_hdb_rollback(struct apenet_hdb *db)
{
	if (!db || !db->in_batch)
		return;
	apenet_db_rollback(&db->f);
	apenet_hdb_cache_rollback(db);
	db->in_batch = 0;
	db->batch_failed = 0;
	db->stats.rollbacks++;
}

int apenet_hdb_tx_begin(struct apenet_hdb *db, int *own, struct apenet_err *e)
{
	*own = 0;
	if (db->in_batch)
		return 0;
	if (hdb_begin(db, e))
		return -1;
	*own = 1;
	return 0;
}

int apenet_hdb_tx_end(struct apenet_hdb *db, int own, int ok, struct apenet_err *e)
{
	if (!ok) {
		if (own)
			apenet_hdb_rollback(db);
		else
			db->batch_failed = 1; /* the batch holds part of this call: it must not commit */
		return -1;
	}
	return own ? apenet_hdb_commit(db, e) : 0;
}

int apenet_hdb_flush(struct apenet_hdb *db, struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "flushing heartbeats"))
		return -1;
	if (!db->cache.deferred)
		return 0;
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	int ok = apenet_hdb_cache_flush(db, e) == 0;
	if (apenet_hdb_tx_end(db, own, ok, e))
		return -1;
	db->last_flush = apenet_clock_mono_s();
	db->stats.flushes++;
	return 0;
}
