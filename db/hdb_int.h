/*
 * Inside the health database library (include/apenet/hdb.h): the handle,
 * the statements, the node cache.  Not installed.
 */
#ifndef APENET_HDB_INT_H
#define APENET_HDB_INT_H

#include <stdint.h>

#include "apenet/hdb.h"
#include "db_int.h"

/* Every statement the library runs, prepared once (at first use) and kept.
 * The texts are in hdb_sql.c; values are always bound, never written in.
 * Transactions are db_util.c's (apenet_db_begin...). */
enum hdb_st {
	ST_DATA_VERSION,
	/* nodes and the layout */
	ST_NODE_LOAD,
	ST_NODE_INSERT,
	ST_NODE_NAME,
	ST_NODE_LEAVE,
	ST_META_GET,
	ST_META_SET,
	ST_LINK_CLEAR,
	ST_LINK_INSERT,
	/* reports */
	ST_TR_INSERT,
	ST_STATE_UPSERT,
	ST_STATE_CLEAR,
	ST_STATE_PURGE,
	ST_NODE_BOOT,
	ST_NODE_HB_NEWS,
	ST_NODE_SEEN,
	/* incidents */
	ST_INC_INSERT,
	ST_INC_STATE,
	ST_INC_UPDATE,
	ST_INC_CLOSE,
	ST_EV_INSERT,
	ST_INC_GET,
	ST_INC_OPEN_EACH,
	ST_INC_EACH,
	ST_EV_EACH,
	/* the batch scheduler's actions */
	ST_SL_INSERT,
	ST_SL_EACH,
	ST_SL_HELD,
	ST_SL_HOLDER,
	/* cables */
	ST_CABLE_UPSERT,
	ST_CABLE_GET,
	ST_CERT_INSERT,
	ST_CERT_EACH,
	/* retention and upkeep */
	ST_RETENTION,
	ST_VACUUM,
	/* readers */
	ST_SUMMARY,
	ST_OPEN_COUNT,
	ST_NODES_EACH,
	ST_NODE_GET,
	ST_STATES_EACH,
	ST_LINKS_EACH,
	ST_TR_WINDOW,
	ST_TR_WINDOW_NODE,
	/* the post-mortem report's (hdb_read_report.c) */
	ST_TR_COUNT,
	ST_TR_COUNT_NODE,
	ST_CABLE_AT,
	ST_INC_LINK,
	ST_INC_MERGED,
	ST_N
};

extern const char *const apenet_hdb_sql[ST_N];
/* The schema as migration steps (hdb_schema.c), and the writer's settings
 * (hdb_open.c), which the benchmarks' baseline shares (hdb_baseline.c). */
extern const char *const apenet_hdb_steps[APENET_HDB_SCHEMA];
extern const char *const apenet_hdb_pragmas[];

/*
 * What the writer keeps of each node in memory: its row id, its agent's
 * current boot, and every time a report changes (its node_seen row).
 * Reports are decided here without reading the file; the times reach the
 * file at the next flush (at most once a second, all changed rows in row
 * order), or at once with a flush interval of 0.  Entries touched in an
 * open batch are saved first (the undo log) and restored if it rolls back.
 */
struct hdb_node {
	int64_t id;              /* 0: not in the file (created by a batch that rolled back) */
	unsigned xyz[3];
	uint32_t idx;            /* its index in the cache */
	char boot[40];           /* the current boot, "" none yet */
	uint64_t gen;            /* N of its "x,y,z#N" */
	/* node_seen */
	int64_t boot_ms;         /* the latest report time from that boot */
	int64_t self_ms, self_recv_ms, torus_ms, torus_recv_ms;
	uint64_t hb_seq;
	int64_t hb_ms, hb_recv_ms;
	uint32_t ldm;            /* of the latest heartbeat (in node) */
	uint8_t has_hb;          /* a heartbeat is stored... */
	uint8_t hb_current;      /* ...and it is from the current boot */
	uint8_t dirty;           /* its times changed since they were written */
	uint8_t touched;         /* saved in the undo log of the open batch */
};

/* Entries live in blocks that never move, so a pointer to one stays good
 * while others are added. */
#define HDB_BLOCK 4096

struct hdb_cache {
	struct hdb_node **blk;
	uint32_t nblk, n;
	uint32_t *slot;          /* open addressing by coordinates: entry index + 1, 0 empty */
	uint32_t mask;           /* slots - 1 (a power of two), 0 before the first entry */
	struct hdb_node *undo;   /* copies of entries as they were when the batch began */
	uint32_t nundo, undo_cap;
	uint32_t *flushed;       /* entries flushed by this batch that it did not otherwise touch */
	uint32_t nflushed, flushed_cap;
	uint32_t n_at_begin;     /* entries that existed when the batch began */
	uint32_t *dirty;         /* indexes of dirty entries (may repeat; the flag decides) */
	uint32_t ndirty, dirty_cap;
	unsigned deferred;       /* entries with dirty set (waiting for the flush) */
};

struct apenet_hdb {
	struct apenet_db f;      /* the file: connection, path, flags (APENET_DB_*) */
	sqlite3_stmt *st[ST_N];
	int in_batch;            /* a batch (or an implicit transaction) is open */
	int batch_failed;        /* a call failed half-way in it: it may only roll back */
	unsigned hb_flush_ms;
	double last_flush;       /* monotonic seconds */
	int64_t data_version;    /* PRAGMA data_version after our last commit */
	struct hdb_cache cache;
	struct apenet_hdb_stats stats;
};

/* Statements, errors, binding: db_int.h (apenet_db_stmt(&db->f, ...)). */
/* Refuses writes on a read-only handle. */
int apenet_hdb_writable(struct apenet_hdb *db, struct apenet_err *e, const char *what);

/* PRAGMA data_version: changes when another connection wrote the file. */
int apenet_hdb_data_version(struct apenet_hdb *db, int64_t *v, struct apenet_err *e);
/* An implicit transaction around a write made outside a batch: *own is set
 * when apenet_hdb_tx_begin opened one, and apenet_hdb_tx_end commits (ok) or rolls it back. */
int apenet_hdb_tx_begin(struct apenet_hdb *db, int *own, struct apenet_err *e);
int apenet_hdb_tx_end(struct apenet_hdb *db, int own, int ok, struct apenet_err *e);

/* A text argument that must end within its array. */
int apenet_hdb_check_text(struct apenet_hdb *db, const char *what, const char *s, size_t size, struct apenet_err *e);

/* The node cache (hdb_cache.c). */
int apenet_hdb_cache_load(struct apenet_hdb *db, struct apenet_err *e);
void apenet_hdb_cache_free(struct hdb_cache *c);
/* The entry of node xyz, or NULL when the writer does not know it. */
struct hdb_node *apenet_hdb_cache_find(struct apenet_hdb *db, const unsigned xyz[3]);
/* The entry of node xyz, created in the file (outside the layout, named
 * name) when it is not there.  NULL with e set. */
struct hdb_node *apenet_hdb_node_entry(struct apenet_hdb *db, const unsigned xyz[3], const char *name, struct apenet_err *e);
/* Adds an entry for a row just inserted. */
struct hdb_node *apenet_hdb_cache_add(struct apenet_hdb *db, const unsigned xyz[3], int64_t id, struct apenet_err *e);
/* Saves the entry in the undo log before the batch changes it. */
int apenet_hdb_cache_touch(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e);
int apenet_hdb_cache_mark_dirty(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e);
/* The entry's times changed: written now (flush interval 0) or marked for
 * the next flush.  Touch the entry before changing it. */
int apenet_hdb_seen_changed(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e);
/* Writes the entry's node_seen row now. */
int apenet_hdb_seen_write(struct apenet_hdb *db, struct hdb_node *n, struct apenet_err *e);
/* End of a batch: forget the undo log (commit) or restore from it. */
void apenet_hdb_cache_commit(struct apenet_hdb *db);
void apenet_hdb_cache_rollback(struct apenet_hdb *db);
/* Writes every dirty entry (inside the open transaction). */
int apenet_hdb_cache_flush(struct apenet_hdb *db, struct apenet_err *e);

#endif
