/*
 * Opening a health database: telling ours from anything else before sqlite
 * writes a byte, upgrading an older schema, the connection's settings.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/filemode.h"
#include "apenet/log.h"
#include "apenet/clock.h"
#include "hdb_int.h"

/* Another process holding the file (a reader's checkpoint, a tool) is
 * waited for this long. */
#define HDB_BUSY_MS 5000

/* Before sqlite touches the file: it exists (or may be created), is a
 * regular file, and is empty or starts with sqlite's 16-byte magic.
 * *fresh is set when there is no file or an empty one. */
static int hdb_identify_file(const char *path, unsigned flags, int *fresh, struct apenet_err *e)
{
	*fresh = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT && (flags & APENET_HDB_CREATE) && !(flags & APENET_HDB_READONLY)) {
			*fresh = 1;
			return 0;
		}
		return apenet_err_set(e, APENET_EIO, "health db %s: %s", path, strerror(errno));
	}
	struct stat sb;
	char head[16];
	ssize_t n = 0;
	int ok = fstat(fd, &sb) == 0;
	int err = errno;
	if (ok && S_ISREG(sb.st_mode) && sb.st_size > 0)
		n = read(fd, head, sizeof(head));
	close(fd);
	if (!ok)
		return apenet_err_set(e, APENET_EIO, "health db %s: %s", path, strerror(err));
	if (!S_ISREG(sb.st_mode))
		return apenet_err_set(e, APENET_EINVAL, "health db %s: not a regular file", path);
	if (sb.st_size == 0) {
		if ((flags & APENET_HDB_READONLY) || !(flags & APENET_HDB_CREATE))
			return apenet_err_set(e, APENET_EINVAL, "health db %s: empty: not a health database yet", path);
		*fresh = 1;
		return 0;
	}
	if (n != (ssize_t)sizeof(head) || memcmp(head, "SQLite format 3", 16) != 0)
		return apenet_err_set(e, APENET_EINVAL,
				      "health db %s: not a health database (not an sqlite database); it was left as it "
				      "is: move it away or name another file",
				      path);
	return 0;
}

static int hdb_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			*out = sqlite3_column_int64(st, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return rc;
}

/* application_id, user_version, number of schema objects. */
static int hdb_identity(struct apenet_hdb *db, int64_t *appid, int64_t *version, int64_t *objects,
			struct apenet_err *e)
{
	int rc;
	if ((rc = hdb_int(db->db, "PRAGMA application_id", appid)) != SQLITE_OK ||
	    (rc = hdb_int(db->db, "PRAGMA user_version", version)) != SQLITE_OK ||
	    (rc = hdb_int(db->db, "SELECT count(*) FROM sqlite_schema", objects)) != SQLITE_OK) {
		int busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
		return apenet_err_set(e, busy ? APENET_EBUSY : APENET_EINVAL, "health db %s: %s%s", db->path,
				      busy ? "in use by another process: "
					   : "cannot be read as a health database, left as it is: ",
				      sqlite3_errmsg(db->db));
	}
	return 0;
}

static int hdb_quick_check(struct apenet_hdb *db, struct apenet_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *res;
	if (sqlite3_prepare_v2(db->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		res = (const char *)sqlite3_column_text(st, 0);
	else
		res = sqlite3_errmsg(db->db);
	int bad = !res || strcmp(res, "ok") != 0;
	if (bad)
		apenet_err_set(e, APENET_EINVAL,
			       "health db %s: damaged (%s); it was left as it is for a post-mortem: move it away and "
			       "start a new one",
			       db->path, res ? res : "?");
	sqlite3_finalize(st);
	return bad ? -1 : 0;
}

/* The connection's settings; the file is known to be ours (or new). */
static int hdb_settings(struct apenet_hdb *db, struct apenet_err *e)
{
	const char *const rw[] = {
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
	};
	const char *const ro[] = {
		"PRAGMA foreign_keys = ON",
		"PRAGMA cache_size = -8192",
		"PRAGMA temp_store = MEMORY",
	};
	int readonly = (db->flags & APENET_HDB_READONLY) != 0;
	const char *const *list = readonly ? ro : rw;
	size_t n = readonly ? sizeof(ro) / sizeof(ro[0]) : sizeof(rw) / sizeof(rw[0]);
	for (size_t i = 0; i < n; i++)
		if (sqlite3_exec(db->db, list[i], NULL, NULL, NULL) != SQLITE_OK)
			return apenet_hdb_dberr(db, e, list[i]);
	if (!readonly) {
		/* The WAL and its index stay when the writer closes: a reader
		 * that may not create files beside the database (apenet health
		 * as a user, /var/lib/apenet owned by root) can open it while
		 * the supervisor is stopped. */
		int persist = 1;
		sqlite3_file_control(db->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
		char mode[16] = "";
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db->db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			apenet_hdb_col_text(st, 0, mode, sizeof(mode));
		sqlite3_finalize(st);
		if (strcmp(mode, "wal") != 0)
			return apenet_err_set(e, APENET_EIO, "health db %s: cannot switch to WAL (journal mode '%s')",
					      db->path, mode);
	}
	return 0;
}

/* Creates or upgrades the schema under the write lock; the version is
 * read again inside it (another process may just have done it). */
static int hdb_upgrade(struct apenet_hdb *db, struct apenet_err *e)
{
	int64_t version = 0;
	if (sqlite3_exec(db->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return apenet_hdb_dberr(db, e, "taking the write lock to create or upgrade the schema");
	if (hdb_int(db->db, "PRAGMA user_version", &version) != SQLITE_OK) {
		apenet_hdb_dberr(db, e, "reading the schema version");
		goto fail;
	}
	if (version > APENET_HDB_SCHEMA) {
		apenet_err_set(e, APENET_EINVAL, "health db %s: schema version %lld is newer than this program's (%d)",
			       db->path, (long long)version, APENET_HDB_SCHEMA);
		goto fail;
	}
	if (apenet_hdb_migrate(db->db, db->path, version, APENET_HDB_SCHEMA, e))
		goto fail;
	if (sqlite3_exec(db->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		apenet_hdb_dberr(db, e, "committing the schema");
		goto fail;
	}
	return 0;
fail:
	sqlite3_exec(db->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int apenet_hdb_open(const char *path, unsigned flags, struct apenet_hdb **out, struct apenet_err *e)
{
	*out = NULL;
	if (!path || !*path)
		return apenet_err_set(e, APENET_EINVAL, "health db: no path");
	if (strlen(path) >= APENET_PATH_MAX)
		return apenet_err_set(e, APENET_EINVAL, "health db: path too long");
	int readonly = (flags & APENET_HDB_READONLY) != 0, fresh = 0;
	if (hdb_identify_file(path, flags, &fresh, e))
		return -1;
	struct apenet_hdb *db = calloc(1, sizeof(*db));
	if (!db)
		return apenet_err_set(e, APENET_EIO, "health db %s: out of memory", path);
	snprintf(db->path, sizeof(db->path), "%s", path);
	db->flags = flags;
	db->hb_flush_ms = 1000;
	int oflags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0)) |
		     SQLITE_OPEN_NOFOLLOW;
	int rc = sqlite3_open_v2(path, &db->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "health db %s: %s", path, db->db ? sqlite3_errmsg(db->db) : sqlite3_errstr(rc));
		goto fail;
	}
	/* 0640 before the first write: -wal and -shm get the main file's mode */
	if (!readonly)
		(void)apenet_sqlite_files_mode(path, 0640);
	sqlite3_extended_result_codes(db->db, 1);
	sqlite3_busy_timeout(db->db, HDB_BUSY_MS);
	int64_t appid = 0, version = 0, objects = 0;
	if (hdb_identity(db, &appid, &version, &objects, e))
		goto fail;
	if (appid != APENET_HDB_APP_ID && (appid != 0 || objects != 0 || version != 0)) {
		apenet_err_set(e, APENET_EINVAL,
			       "health db %s: not a health database (a sqlite database of something else: "
			       "application_id %#llx, %lld schema objects); it was left as it is: move it away or name "
			       "another file",
			       path, (unsigned long long)appid, (long long)objects);
		goto fail;
	}
	if (version > APENET_HDB_SCHEMA) {
		apenet_err_set(e, APENET_EINVAL,
			       "health db %s: schema version %lld is newer than this program's (%d): written by a newer "
			       "apenet-diag; left as it is",
			       path, (long long)version, APENET_HDB_SCHEMA);
		goto fail;
	}
	if (readonly && version < APENET_HDB_SCHEMA) {
		apenet_err_set(e, APENET_EINVAL,
			       version ? "health db %s: schema version %lld is older than this program's (%d): the "
					 "supervisor upgrades it when it opens it"
				       : "health db %s: empty (schema version %lld, this program's is %d): not a health "
					 "database yet",
			       path, (long long)version, APENET_HDB_SCHEMA);
		goto fail;
	}
	if (!readonly && version == 0 && objects == 0 && !(flags & APENET_HDB_CREATE)) {
		apenet_err_set(e, APENET_EINVAL, "health db %s: empty: not a health database yet (not told to create one)",
			       path);
		goto fail;
	}
	/* A damaged file is not migrated: the migration would write into it. */
	if (((flags & APENET_HDB_QUICK_CHECK) || (!readonly && version > 0 && version < APENET_HDB_SCHEMA)) &&
	    hdb_quick_check(db, e))
		goto fail;
	/* From here on the file is ours (or new) and may be written. */
	if (hdb_settings(db, e))
		goto fail;
	if (!readonly && version < APENET_HDB_SCHEMA && hdb_upgrade(db, e))
		goto fail;
	if (!readonly) {
		if (hdb_int(db->db, "PRAGMA data_version", &db->data_version) != SQLITE_OK) {
			apenet_hdb_dberr(db, e, "reading the data version");
			goto fail;
		}
		if (apenet_hdb_cache_load(db, e))
			goto fail;
	}
	db->last_flush = apenet_clock_mono_s();
	*out = db;
	return 0;
fail:
	apenet_hdb_close(db);
	/* A file this call created and could not make a database of goes. */
	if (fresh && !readonly) {
		struct stat sb;
		if (stat(path, &sb) == 0 && sb.st_size == 0)
			unlink(path);
	}
	return -1;
}

void apenet_hdb_close(struct apenet_hdb *db)
{
	if (!db)
		return;
	if (db->in_batch)
		apenet_hdb_rollback(db);
	if (db->db && db->cache.deferred) {
		struct apenet_err e = { 0 };
		if (apenet_hdb_flush(db, &e))
			apenet_log(APENET_LOG_WARN, "%s (the last %u routine heartbeats were not written)", e.msg,
				   db->cache.deferred);
	}
	for (int i = 0; i < ST_N; i++)
		sqlite3_finalize(db->st[i]);
	sqlite3_close(db->db);
	apenet_hdb_cache_free(&db->cache);
	free(db);
}

const char *apenet_hdb_file(const struct apenet_hdb *db)
{
	return db->path;
}

int apenet_hdb_create_at(const char *path, int version, struct apenet_err *e)
{
	if (version < 1 || version > APENET_HDB_SCHEMA)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: no schema version %d (1..%d)", path, version,
				      APENET_HDB_SCHEMA);
	struct stat sb;
	if (lstat(path, &sb) == 0)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: exists; not overwritten", path);
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "health db %s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		return -1;
	}
	(void)apenet_sqlite_files_mode(path, 0640);
	int rc = -1;
	if (sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "health db %s: %s", path, sqlite3_errmsg(db));
	} else if (apenet_hdb_migrate(db, path, 0, version, e) == 0) {
		if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
			rc = 0;
		else
			apenet_err_set(e, APENET_EIO, "health db %s: committing: %s", path, sqlite3_errmsg(db));
	}
	if (rc)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return rc;
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
