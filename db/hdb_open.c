/*
 * Opening a health database: what kind of file it is (its settings, its
 * schema; db_open.c tells ours from anything else, creates and upgrades),
 * and the writer's memory of it.
 */
#include <stdlib.h>

#include "apenet/clock.h"
#include "apenet/log.h"
#include "hdb_int.h"

/* The writer's settings (the benchmarks' baseline uses them too). */
const char *const apenet_hdb_pragmas[] = {
	/* WAL: readers (apenet health, top, SNMP) never block the writer. */
	"PRAGMA journal_mode = WAL",
	/* An acknowledged report is on disk: the WAL is fsynced at every
	 * commit.  NORMAL would only survive the process dying. */
	"PRAGMA synchronous = FULL",
	"PRAGMA foreign_keys = ON",
	/* 32 MiB of page cache: the node table of 32K nodes and the hot
	 * index pages stay in memory. */
	"PRAGMA cache_size = -32768",
	"PRAGMA temp_store = MEMORY",
	/* The WAL is truncated back to this after a checkpoint. */
	"PRAGMA journal_size_limit = 67108864",
	NULL,
};

static const char *const hdb_ro_pragmas[] = {
	"PRAGMA foreign_keys = ON",
	"PRAGMA cache_size = -8192",
	"PRAGMA temp_store = MEMORY",
	NULL,
};

static const struct apenet_db_kind hdb_kind = {
	.noun = "health db",
	.a_what = "a health database",
	.busy_hint = "",
	.writer = "the supervisor",
	.app_id = APENET_HDB_APP_ID,
	.schema = APENET_HDB_SCHEMA,
	.steps = apenet_hdb_steps,
	.pragmas = apenet_hdb_pragmas,
	.ro_pragmas = hdb_ro_pragmas,
	/* Another process holding the file (a reader's checkpoint, a tool) is
	 * waited for this long. */
	.busy_ms = 5000,
	/* The WAL and its index stay when the writer closes: a reader that may
	 * not create files beside the database (apenet health as a user,
	 * /var/lib/apenet owned by root) can open it while the supervisor is
	 * stopped. */
	.opts = APENET_DB_PERSIST_WAL,
};

int apenet_hdb_open(const char *path, unsigned flags, struct apenet_hdb **out, struct apenet_err *e)
{
	*out = NULL;
	struct apenet_hdb *db = calloc(1, sizeof(*db));
	if (!db)
		return apenet_err_set(e, APENET_EIO, "health db %s: out of memory", path ? path : "");
	unsigned dflags = ((flags & APENET_HDB_READONLY) ? APENET_DB_READONLY : 0) |
			  ((flags & APENET_HDB_CREATE) ? APENET_DB_CREATE : 0) |
			  ((flags & APENET_HDB_QUICK_CHECK) ? APENET_DB_QUICK_CHECK : 0);
	if (apenet_db_open(&db->f, &hdb_kind, path, dflags, db->st, apenet_hdb_sql, ST_N, e)) {
		free(db);
		return -1;
	}
	db->hb_flush_ms = 1000;
	if (!(flags & APENET_HDB_READONLY) &&
	    (apenet_hdb_data_version(db, &db->data_version, e) || apenet_hdb_cache_load(db, e)))
		goto fail;
	db->last_flush = apenet_clock_mono_s();
	*out = db;
	return 0;
fail:
	apenet_hdb_close(db);
	return -1;
}

void apenet_hdb_close(struct apenet_hdb *db)
{
	if (!db)
		return;
	if (db->in_batch)
		apenet_hdb_rollback(db);
	if (db->f.conn && db->cache.deferred) {
		struct apenet_err e = { 0 };
		if (apenet_hdb_flush(db, &e))
			apenet_log(APENET_LOG_WARN, "%s (the last %u routine heartbeats were not written)", e.msg,
				   db->cache.deferred);
	}
	apenet_db_close(&db->f);
	apenet_hdb_cache_free(&db->cache);
	free(db);
}

const char *apenet_hdb_file(const struct apenet_hdb *db)
{
	return db->f.path;
}

int apenet_hdb_create_at(const char *path, int version, struct apenet_err *e)
{
	return apenet_db_create_at(&hdb_kind, path, version, e);
}

void apenet_hdb_set_heartbeat_flush(struct apenet_hdb *db, unsigned ms)
{
	db->hb_flush_ms = ms;
}

void apenet_hdb_stats(const struct apenet_hdb *db, struct apenet_hdb_stats *st)
{
	*st = db->stats;
	st->deferred = db->cache.deferred;
}
