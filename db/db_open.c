/*
 * Opening a file of db/ (db_int.h): telling ours from anything else before
 * sqlite writes a byte, the connection's settings, creating or upgrading
 * the schema.
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
#include "db_int.h"

/* Before sqlite touches the file: it exists (or may be created), is a
 * regular file, and is empty or starts with sqlite's 16-byte magic.
 * *fresh is set when there is no file or an empty one. */
static int db_identify_file(const struct apenet_db_kind *k, const char *path, unsigned flags, int *fresh,
			    struct apenet_err *e)
{
	int may_create = (flags & APENET_DB_CREATE) && !(flags & APENET_DB_READONLY);
	*fresh = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT && may_create) {
			*fresh = 1;
			return 0;
		}
		return apenet_err_set(e, APENET_EIO, "%s %s: %s", k->noun, path, strerror(errno));
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
		return apenet_err_set(e, APENET_EIO, "%s %s: %s", k->noun, path, strerror(err));
	if (!S_ISREG(sb.st_mode))
		return apenet_err_set(e, APENET_EINVAL, "%s %s: not a regular file", k->noun, path);
	if (sb.st_size == 0) {
		if (!may_create)
			return apenet_err_set(e, APENET_EINVAL, "%s %s: empty: not %s yet", k->noun, path, k->a_what);
		*fresh = 1;
		return 0;
	}
	if (n != (ssize_t)sizeof(head) || memcmp(head, "SQLite format 3", 16) != 0)
		return apenet_err_set(e, APENET_EINVAL,
				      "%s %s: not %s (not an sqlite database); it was left as it is: move it away or "
				      "name another file",
				      k->noun, path, k->a_what);
	return 0;
}

/* One integer from a PRAGMA or a count, before any statement is prepared
 * for good. */
static int db_int(sqlite3 *c, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(c, sql, -1, &st, NULL);
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

static int db_busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

/* application_id, user_version, number of schema objects (the first read:
 * a file held by another process is found here). */
static int db_identity(struct apenet_db *d, int64_t *appid, int64_t *version, int64_t *objects, struct apenet_err *e)
{
	const struct apenet_db_kind *k = d->kind;
	int rc = SQLITE_OK;
	if (((k->opts & APENET_DB_EXCLUSIVE) &&
	     (rc = sqlite3_exec(d->conn, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL, NULL)) != SQLITE_OK) ||
	    (rc = db_int(d->conn, "PRAGMA application_id", appid)) != SQLITE_OK ||
	    (rc = db_int(d->conn, "PRAGMA user_version", version)) != SQLITE_OK ||
	    (rc = db_int(d->conn, "SELECT count(*) FROM sqlite_schema", objects)) != SQLITE_OK) {
		if (db_busy(rc))
			return apenet_err_set(e, APENET_EBUSY, "%s %s: in use by another process%s: %s", k->noun, d->path,
					      k->busy_hint, sqlite3_errmsg(d->conn));
		return apenet_err_set(e, APENET_EINVAL, "%s %s: cannot be read as %s, left as it is: %s", k->noun,
				      d->path, k->a_what, sqlite3_errmsg(d->conn));
	}
	return 0;
}

static int db_quick_check(struct apenet_db *d, struct apenet_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *res;
	if (sqlite3_prepare_v2(d->conn, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		res = (const char *)sqlite3_column_text(st, 0);
	else
		res = sqlite3_errmsg(d->conn);
	int bad = !res || strcmp(res, "ok") != 0;
	if (bad)
		apenet_err_set(e, APENET_EINVAL,
			       "%s %s: damaged (%s); it was left as it is for a post-mortem: move it away and start a "
			       "new one",
			       d->kind->noun, d->path, res ? res : "?");
	sqlite3_finalize(st);
	return bad ? -1 : 0;
}

/* The connection's settings; the file is known to be ours (or new). */
static int db_settings(struct apenet_db *d, struct apenet_err *e)
{
	const struct apenet_db_kind *k = d->kind;
	int readonly = (d->flags & APENET_DB_READONLY) != 0;
	const char *const *list = readonly ? k->ro_pragmas : k->pragmas;
	for (size_t i = 0; list && list[i]; i++)
		if (sqlite3_exec(d->conn, list[i], NULL, NULL, NULL) != SQLITE_OK) {
			if (db_busy(sqlite3_errcode(d->conn)))
				return apenet_err_set(e, APENET_EBUSY, "%s %s: in use by another process%s", k->noun, d->path,
						      k->busy_hint);
			return apenet_db_err(d, e, list[i]);
		}
	if (readonly)
		return 0;
	if (k->opts & APENET_DB_PERSIST_WAL) {
		int persist = 1;
		sqlite3_file_control(d->conn, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
	}
	char mode[16] = "";
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(d->conn, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		apenet_db_col_text(st, 0, mode, sizeof(mode));
	sqlite3_finalize(st);
	if (strcmp(mode, "wal") != 0)
		return apenet_err_set(e, APENET_EIO, "%s %s: cannot switch to WAL (journal mode '%s')", k->noun, d->path,
				      mode);
	return 0;
}

/* Runs the steps from version from to version to (the caller holds BEGIN
 * IMMEDIATE); a new file gets the kind's application_id first. */
static int db_migrate(sqlite3 *c, const struct apenet_db_kind *k, const char *path, int64_t from, int64_t to,
		      struct apenet_err *e)
{
	char *msg = NULL;
	/* PRAGMAs take no bound parameters: the numbers are our constants. */
	char sql[64];
	if (from == 0) {
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", (int)k->app_id);
		if (sqlite3_exec(c, sql, NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	for (int64_t v = from; v < to; v++) {
		if (sqlite3_exec(c, k->steps[v], NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", (int)(v + 1));
		if (sqlite3_exec(c, sql, NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	if (from != to)
		apenet_log(from ? APENET_LOG_NOTICE : APENET_LOG_INFO, "%s %s: schema %d -> %d", k->noun, path, (int)from,
			   (int)to);
	return 0;
fail:
	apenet_err_set(e, APENET_EIO, "%s %s: %s the schema (version %d -> %d): %s", k->noun, path,
		       from ? "migrating" : "creating", (int)from, (int)to, msg ? msg : sqlite3_errmsg(c));
	sqlite3_free(msg);
	return -1;
}

/* Creates or upgrades the schema under the write lock; the version is
 * read again inside it (another process may just have done it). */
static int db_upgrade(struct apenet_db *d, struct apenet_err *e)
{
	const struct apenet_db_kind *k = d->kind;
	int64_t version = 0;
	if (sqlite3_exec(d->conn, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return apenet_db_err(d, e, "taking the write lock to create or upgrade the schema");
	if (db_int(d->conn, "PRAGMA user_version", &version) != SQLITE_OK) {
		apenet_db_err(d, e, "reading the schema version");
		goto fail;
	}
	if (version > k->schema) {
		apenet_err_set(e, APENET_EINVAL, "%s %s: schema version %lld is newer than this program's (%d)", k->noun,
			       d->path, (long long)version, k->schema);
		goto fail;
	}
	if (db_migrate(d->conn, k, d->path, version, k->schema, e))
		goto fail;
	if (sqlite3_exec(d->conn, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		apenet_db_err(d, e, "committing the schema");
		goto fail;
	}
	return 0;
fail:
	sqlite3_exec(d->conn, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* What the file's identity allows: ours (or empty) at a version this
 * program can use. */
static int db_admit(struct apenet_db *d, int64_t appid, int64_t version, int64_t objects, struct apenet_err *e)
{
	const struct apenet_db_kind *k = d->kind;
	int readonly = (d->flags & APENET_DB_READONLY) != 0;
	if (appid != k->app_id && (appid != 0 || objects != 0 || version != 0))
		return apenet_err_set(e, APENET_EINVAL,
				      "%s %s: not %s (a sqlite database of something else: application_id %#llx, %lld "
				      "schema objects); it was left as it is: move it away or name another file",
				      k->noun, d->path, k->a_what, (unsigned long long)appid, (long long)objects);
	if (version > k->schema)
		return apenet_err_set(e, APENET_EINVAL,
				      "%s %s: schema version %lld is newer than this program's (%d): written by a newer "
				      "apenet-diag; left as it is",
				      k->noun, d->path, (long long)version, k->schema);
	if (readonly && version < k->schema) {
		if (version)
			return apenet_err_set(e, APENET_EINVAL,
					      "%s %s: schema version %lld is older than this program's (%d): %s "
					      "upgrades it when it opens it",
					      k->noun, d->path, (long long)version, k->schema, k->writer);
		return apenet_err_set(e, APENET_EINVAL,
				      "%s %s: empty (schema version %lld, this program's is %d): not %s yet", k->noun,
				      d->path, (long long)version, k->schema, k->a_what);
	}
	if (!readonly && version == 0 && objects == 0 && !(d->flags & APENET_DB_CREATE))
		return apenet_err_set(e, APENET_EINVAL, "%s %s: empty: not %s yet (not told to create one)", k->noun,
				      d->path, k->a_what);
	return 0;
}

int apenet_db_open(struct apenet_db *d, const struct apenet_db_kind *k, const char *path, unsigned flags,
		   sqlite3_stmt **st, const char *const *sql, unsigned nst, struct apenet_err *e)
{
	memset(d, 0, sizeof(*d));
	if (!path || !*path)
		return apenet_err_set(e, APENET_EINVAL, "%s: no path", k->noun);
	if (strlen(path) >= sizeof(d->path))
		return apenet_err_set(e, APENET_EINVAL, "%s: path too long", k->noun);
	int readonly = (flags & APENET_DB_READONLY) != 0, fresh = 0;
	if (db_identify_file(k, path, flags, &fresh, e))
		return -1;
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->kind = k;
	d->flags = flags;
	d->st = st;
	d->sql = sql;
	d->nst = nst;
	int oflags = (readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0)) |
		     SQLITE_OPEN_NOFOLLOW;
	int rc = sqlite3_open_v2(path, &d->conn, oflags, NULL);
	if (rc != SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "%s %s: %s", k->noun, path,
			       d->conn ? sqlite3_errmsg(d->conn) : sqlite3_errstr(rc));
		goto fail;
	}
	/* 0640 before the first write: -wal and -shm get the main file's mode */
	if (!readonly)
		(void)apenet_sqlite_files_mode(path, 0640);
	sqlite3_extended_result_codes(d->conn, 1);
	sqlite3_busy_timeout(d->conn, k->busy_ms);
	int64_t appid = 0, version = 0, objects = 0;
	if (db_identity(d, &appid, &version, &objects, e) || db_admit(d, appid, version, objects, e))
		goto fail;
	/* A damaged file is not migrated: the migration would write into it. */
	if (((flags & APENET_DB_QUICK_CHECK) || (!readonly && version > 0 && version < k->schema)) &&
	    db_quick_check(d, e))
		goto fail;
	/* From here on the file is ours (or new) and may be written. */
	if (db_settings(d, e))
		goto fail;
	if (!readonly && version < k->schema && db_upgrade(d, e))
		goto fail;
	for (unsigned i = 0; (flags & APENET_DB_PREPARE) && i < nst; i++)
		if (!apenet_db_stmt(d, i, e))
			goto fail;
	return 0;
fail:
	apenet_db_close(d);
	/* A file this call created and could not make a database of goes. */
	if (fresh && !readonly) {
		struct stat sb;
		if (stat(path, &sb) == 0 && sb.st_size == 0)
			unlink(path);
	}
	return -1;
}

void apenet_db_close(struct apenet_db *d)
{
	for (unsigned i = 0; i < d->nst; i++) {
		sqlite3_finalize(d->st[i]);
		d->st[i] = NULL;
	}
	for (int i = 0; i < APENET_DB_NTX; i++) {
		sqlite3_finalize(d->tx[i]);
		d->tx[i] = NULL;
	}
	sqlite3_close(d->conn);
	d->conn = NULL;
}

int apenet_db_create_at(const struct apenet_db_kind *k, const char *path, int version, struct apenet_err *e)
{
	if (version < 1 || version > k->schema)
		return apenet_err_set(e, APENET_EINVAL, "%s %s: no schema version %d (1..%d)", k->noun, path, version,
				      k->schema);
	struct stat sb;
	if (lstat(path, &sb) == 0)
		return apenet_err_set(e, APENET_EINVAL, "%s %s: exists; not overwritten", k->noun, path);
	sqlite3 *c = NULL;
	if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "%s %s: %s", k->noun, path, c ? sqlite3_errmsg(c) : "cannot open");
		sqlite3_close(c);
		return -1;
	}
	(void)apenet_sqlite_files_mode(path, 0640);
	int rc = -1;
	if (sqlite3_exec(c, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(c, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "%s %s: %s", k->noun, path, sqlite3_errmsg(c));
	} else if (db_migrate(c, k, path, 0, version, e) == 0) {
		if (sqlite3_exec(c, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
			rc = 0;
		else
			apenet_err_set(e, APENET_EIO, "%s %s: committing: %s", k->noun, path, sqlite3_errmsg(c));
	}
	if (rc)
		sqlite3_exec(c, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(c);
	return rc;
}
