/*
 * The notifier's spool in sqlite (include/apenet/spool.h).
 *
 * Why sqlite and not an append-only file: the spool is read in order per
 * supervisor, marked per supervisor, trimmed from the middle (old
 * heartbeats) and must survive a kill -9 at any instruction; a WAL database
 * gives atomic multi-row updates and crash recovery for a few lines of SQL.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "apenet/filemode.h"
#include "apenet/log.h"
#include "apenet/report_pdu.h"
#include "apenet/spool.h"

/* Migrations: entry i takes a spool from schema version i to i + 1.  A new
 * file is version 0 and runs them all; never edit one that shipped, add
 * the next. */
static const char *const apenet_spool_migrations[APENET_SPOOL_SCHEMA] = {
	/* 0 -> 1 */
	"CREATE TABLE event ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT," /* never reused: an old ack cannot hit a new event */
	"  kind INTEGER NOT NULL,"
	"  boot TEXT NOT NULL, seq INTEGER NOT NULL, time_ms INTEGER NOT NULL,"
	"  node_x INTEGER NOT NULL, node_y INTEGER NOT NULL, node_z INTEGER NOT NULL, node_name TEXT NOT NULL,"
	"  subject INTEGER NOT NULL, place TEXT NOT NULL, code TEXT NOT NULL,"
	"  old_status INTEGER NOT NULL, new_status INTEGER NOT NULL,"
	"  value REAL, threshold REAL, unit TEXT NOT NULL,"
	"  path INTEGER NOT NULL, via TEXT NOT NULL, evidence TEXT NOT NULL,"
	"  ldm INTEGER NOT NULL, size INTEGER NOT NULL,"
	"  UNIQUE (boot, seq));"
	"CREATE INDEX event_kind ON event (kind, id);"
	"CREATE TABLE supervisor ("
	"  id INTEGER PRIMARY KEY, addr TEXT NOT NULL UNIQUE, last_ack_ms INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE pending ("
	"  sup INTEGER NOT NULL REFERENCES supervisor (id) ON DELETE CASCADE,"
	"  event INTEGER NOT NULL REFERENCES event (id) ON DELETE CASCADE,"
	"  PRIMARY KEY (sup, event)) WITHOUT ROWID;"
	"CREATE INDEX pending_event ON pending (event);"
	"CREATE TABLE boot (id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, first_ms INTEGER NOT NULL);",
};

enum {
	ST_INSERT, ST_PEND_ALL, ST_NEXT, ST_UNPEND, ST_DEL_ORPHAN, ST_SUP_ACK, ST_SEQ_NEXT, ST_SEQ_SEEN,
	ST_OLDEST_HB, ST_SUPS_OF, ST_DEL_EVENT, ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_N
};

static const char *const apenet_spool_sql[ST_N] = {
	[ST_INSERT] = "INSERT INTO event (kind, boot, seq, time_ms, node_x, node_y, node_z, node_name, subject, place,"
		      " code, old_status, new_status, value, threshold, unit, path, via, evidence, ldm, size)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
	[ST_PEND_ALL] = "INSERT INTO pending (sup, event) SELECT id, ?1 FROM supervisor",
	[ST_NEXT] = "SELECT e.id, kind, boot, seq, time_ms, node_x, node_y, node_z, node_name, subject, place, code,"
		    " old_status, new_status, value, threshold, unit, path, via, evidence, ldm"
		    " FROM pending p JOIN event e ON e.id = p.event WHERE p.sup = ?1 ORDER BY p.event LIMIT 1",
	[ST_UNPEND] = "DELETE FROM pending WHERE sup = ?1 AND event = ?2",
	[ST_DEL_ORPHAN] = "DELETE FROM event WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM pending WHERE event = ?1)"
			  " RETURNING kind, size",
	[ST_SUP_ACK] = "UPDATE supervisor SET last_ack_ms = ?2 WHERE id = ?1",
	[ST_SEQ_NEXT] = "INSERT INTO boot (id, last_seq, first_ms) VALUES (?1, 1, ?2)"
			" ON CONFLICT (id) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq",
	[ST_SEQ_SEEN] = "INSERT INTO boot (id, last_seq, first_ms) VALUES (?1, ?2, ?3)"
			" ON CONFLICT (id) DO UPDATE SET last_seq = max(last_seq, ?2)",
	[ST_OLDEST_HB] = "SELECT id, size FROM event WHERE kind = 2 ORDER BY id LIMIT 1",
	[ST_SUPS_OF] = "SELECT sup FROM pending WHERE event = ?1",
	[ST_DEL_EVENT] = "DELETE FROM event WHERE id = ?1",
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
};

struct apenet_spool {
	sqlite3 *db;
	sqlite3_stmt *st[ST_N];
	char path[APENET_PATH_MAX];
	unsigned nsup;
	int64_t sup_id[APENET_NOTIFY_MAX_SUPERVISORS]; /* rowid in table supervisor */
	uint64_t outstanding[APENET_NOTIFY_MAX_SUPERVISORS];
	int64_t last_ack_ms[APENET_NOTIFY_MAX_SUPERVISORS];
	uint64_t events, transitions, heartbeats, bytes, max_bytes;
	uint64_t dropped;          /* since open */
	uint64_t episode_dropped;  /* in the current stretch over the bound */
	int over_with_transitions; /* logged that only transitions are left over the bound */
};

static int apenet_spool_dberr(struct apenet_spool *s, struct apenet_err *e, const char *what)
{
	return apenet_err_set(e, APENET_EIO, "spool %s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

/* Runs one statement to completion (no rows wanted) and resets it. */
static int apenet_spool_step(struct apenet_spool *s, int which, struct apenet_err *e)
{
	sqlite3_stmt *st = s->st[which];
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return apenet_spool_dberr(s, e, apenet_spool_sql[which]);
	return 0;
}

static void apenet_spool_rollback(struct apenet_spool *s)
{
	for (int i = 0; i < ST_N; i++)
		if (s->st[i] && i != ST_ROLLBACK)
			sqlite3_reset(s->st[i]);
	if (!sqlite3_get_autocommit(s->db)) {
		sqlite3_step(s->st[ST_ROLLBACK]);
		sqlite3_reset(s->st[ST_ROLLBACK]);
	}
}

/* One integer from a PRAGMA or a count: used while the file is still being
 * identified, before any statement is prepared for good. */
static int apenet_spool_int(sqlite3 *db, const char *sql, int64_t *out)
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

/* Tells a database we may write from anything else, before sqlite touches
 * the file: the first 16 bytes of every sqlite 3 file are its magic. */
static int apenet_spool_identify_file(const char *path, struct apenet_err *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0; /* a new spool */
		return apenet_err_set(e, APENET_EIO, "spool %s: %s", path, strerror(errno));
	}
	struct stat sb;
	char head[16];
	ssize_t n = 0;
	int ok = fstat(fd, &sb) == 0;
	if (ok && !S_ISREG(sb.st_mode)) {
		close(fd);
		return apenet_err_set(e, APENET_EINVAL, "spool %s: not a regular file", path);
	}
	if (ok && sb.st_size > 0)
		n = read(fd, head, sizeof(head));
	close(fd);
	if (!ok)
		return apenet_err_set(e, APENET_EIO, "spool %s: %s", path, strerror(errno));
	if (sb.st_size == 0)
		return 0; /* empty: sqlite makes a database of it */
	if (n != (ssize_t)sizeof(head) || memcmp(head, "SQLite format 3", 16) != 0)
		return apenet_err_set(e, APENET_EINVAL,
				      "spool %s: not a spool (not an sqlite database); it was left as it is: move it "
				      "away or name another spool file",
				      path);
	return 0;
}

static int apenet_spool_migrate(struct apenet_spool *s, int64_t from, struct apenet_err *e)
{
	char *msg = NULL;
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	/* PRAGMAs take no bound parameters: the numbers are our constants,
	 * not input. */
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d", APENET_SPOOL_APP_ID);
	if (from == 0 && sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	for (int64_t v = from; v < APENET_SPOOL_SCHEMA; v++) {
		if (sqlite3_exec(s->db, apenet_spool_migrations[v], NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", (int)(v + 1));
		if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK)
			goto fail;
	}
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
		goto fail;
	if (from != APENET_SPOOL_SCHEMA)
		apenet_log(from ? APENET_LOG_NOTICE : APENET_LOG_INFO, "spool %s: schema %d -> %d", s->path, (int)from,
			   APENET_SPOOL_SCHEMA);
	return 0;
fail:
	apenet_err_set(e, APENET_EIO, "spool %s: creating or migrating the schema: %s", s->path,
		       msg ? msg : sqlite3_errmsg(s->db));
	sqlite3_free(msg);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Maps the configured supervisors onto the spool's: new ones get every
 * event held, ones no longer configured lose their marks. */
static int apenet_spool_sync_sups(struct apenet_spool *s, const char *const *sup, unsigned nsup,
				  struct apenet_err *e)
{
	sqlite3_stmt *ins = NULL, *sel = NULL, *all = NULL, *gone = NULL, *orph = NULL, *cnt = NULL, *del = NULL;
	int rc = -1;
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return apenet_spool_dberr(s, e, "taking the spool (is another agent using it?)");
	if (sqlite3_prepare_v2(s->db, "INSERT INTO supervisor (addr) VALUES (?1) ON CONFLICT (addr) DO NOTHING", -1,
			       &ins, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT id, last_ack_ms FROM supervisor WHERE addr = ?1", -1, &sel, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "INSERT INTO pending (sup, event) SELECT ?1, id FROM event", -1, &all, NULL) !=
		    SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT s.id, s.addr, (SELECT count(*) FROM pending p WHERE p.sup = s.id) FROM supervisor s",
			       -1, &gone, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "DELETE FROM event WHERE id NOT IN (SELECT event FROM pending)", -1, &orph,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "SELECT count(*) FROM pending WHERE sup = ?1", -1, &cnt, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(s->db, "DELETE FROM supervisor WHERE id = ?1", -1, &del, NULL) != SQLITE_OK) {
		apenet_spool_dberr(s, e, "preparing");
		goto out;
	}
	for (unsigned i = 0; i < nsup; i++) {
		sqlite3_bind_text(ins, 1, sup[i], -1, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			apenet_spool_dberr(s, e, "adding a supervisor");
			goto out;
		}
		int added = sqlite3_changes(s->db) > 0;
		sqlite3_reset(ins);
		sqlite3_bind_text(sel, 1, sup[i], -1, SQLITE_STATIC);
		if (sqlite3_step(sel) != SQLITE_ROW) {
			apenet_spool_dberr(s, e, "reading a supervisor");
			goto out;
		}
		s->sup_id[i] = sqlite3_column_int64(sel, 0);
		s->last_ack_ms[i] = sqlite3_column_int64(sel, 1);
		sqlite3_reset(sel);
		if (added) {
			sqlite3_bind_int64(all, 1, s->sup_id[i]);
			if (sqlite3_step(all) != SQLITE_DONE) {
				apenet_spool_dberr(s, e, "marking the held events for a new supervisor");
				goto out;
			}
			int n = sqlite3_changes(s->db);
			sqlite3_reset(all);
			if (n)
				apenet_log(APENET_LOG_NOTICE, "spool %s: new supervisor %s receives the %d reports held",
					   s->path, sup[i], n);
		}
	}
	/* Supervisors no longer configured: gathered first, removed after the
	 * scan (a table is not changed under its own running SELECT). */
	int64_t *drop = NULL;
	size_t ndrop = 0;
	for (;;) {
		int r = sqlite3_step(gone);
		if (r == SQLITE_DONE)
			break;
		if (r != SQLITE_ROW) {
			apenet_spool_dberr(s, e, "listing supervisors");
			free(drop);
			goto out;
		}
		int64_t id = sqlite3_column_int64(gone, 0);
		int known = 0;
		for (unsigned i = 0; i < nsup; i++)
			known |= s->sup_id[i] == id;
		if (known)
			continue;
		int64_t *d = realloc(drop, (ndrop + 1) * sizeof(*drop));
		if (!d) {
			apenet_err_set(e, APENET_EIO, "spool %s: out of memory", s->path);
			free(drop);
			goto out;
		}
		drop = d;
		drop[ndrop++] = id;
		apenet_log(APENET_LOG_NOTICE,
			   "spool %s: supervisor %s is no longer configured: its %lld unacknowledged reports are "
			   "dropped for it",
			   s->path, (const char *)sqlite3_column_text(gone, 1), (long long)sqlite3_column_int64(gone, 2));
	}
	sqlite3_reset(gone);
	for (size_t k = 0; k < ndrop; k++) {
		sqlite3_bind_int64(del, 1, drop[k]);
		if (sqlite3_step(del) != SQLITE_DONE) {
			apenet_spool_dberr(s, e, "removing a supervisor");
			free(drop);
			goto out;
		}
		sqlite3_reset(del);
	}
	free(drop);
	if (sqlite3_step(orph) != SQLITE_DONE) {
		apenet_spool_dberr(s, e, "dropping events nobody waits for");
		goto out;
	}
	for (unsigned i = 0; i < nsup; i++) {
		sqlite3_bind_int64(cnt, 1, s->sup_id[i]);
		if (sqlite3_step(cnt) != SQLITE_ROW) {
			apenet_spool_dberr(s, e, "counting");
			goto out;
		}
		s->outstanding[i] = (uint64_t)sqlite3_column_int64(cnt, 0);
		sqlite3_reset(cnt);
	}
	/* Boot rows that no event needs, except the newest: its numbering
	 * goes on if the agent comes back with the same boot id. */
	if (sqlite3_exec(s->db,
			 "DELETE FROM boot WHERE id NOT IN (SELECT boot FROM event)"
			 " AND first_ms < (SELECT max(first_ms) FROM boot)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		apenet_spool_dberr(s, e, "committing");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	sqlite3_finalize(all);
	sqlite3_finalize(gone);
	sqlite3_finalize(orph);
	sqlite3_finalize(cnt);
	sqlite3_finalize(del);
	if (rc)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int apenet_spool_load_counts(struct apenet_spool *s, struct apenet_err *e)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(s->db, "SELECT kind, count(*), coalesce(sum(size), 0) FROM event GROUP BY kind", -1, &st,
			       NULL) != SQLITE_OK)
		return apenet_spool_dberr(s, e, "counting events");
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t n = (uint64_t)sqlite3_column_int64(st, 1);
		if (sqlite3_column_int(st, 0) == APENET_REPORT_HEARTBEAT)
			s->heartbeats += n;
		else
			s->transitions += n;
		s->events += n;
		s->bytes += (uint64_t)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return apenet_spool_dberr(s, e, "counting events");
	return 0;
}

int apenet_spool_open(const char *path, const char *const *sup, unsigned nsup, uint64_t max_bytes,
		      struct apenet_spool **out, struct apenet_err *e)
{
	*out = NULL;
	if (!path || !*path)
		return apenet_err_set(e, APENET_EINVAL, "spool: no path");
	if (nsup > APENET_NOTIFY_MAX_SUPERVISORS)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: %u supervisors, at most %d", path, nsup,
				      APENET_NOTIFY_MAX_SUPERVISORS);
	if (apenet_spool_identify_file(path, e))
		return -1;
	struct apenet_spool *s = calloc(1, sizeof(*s));
	if (!s)
		return apenet_err_set(e, APENET_EIO, "spool %s: out of memory", path);
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->nsup = nsup;
	s->max_bytes = max_bytes;
	int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		apenet_err_set(e, APENET_EIO, "spool %s: %s", path, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		goto fail;
	}
	(void)apenet_sqlite_files_mode(path, 0640); /* the agent's and its group's */
	sqlite3_extended_result_codes(s->db, 1);
	/* Another process on the same spool waits this long, then is told it
	 * is in use (the lock is held for as long as the spool is open). */
	sqlite3_busy_timeout(s->db, 250);
	/* EXCLUSIVE before the first access: WAL then needs no shared-memory
	 * file, and the lock taken by the first write is kept until close:
	 * one writer, enforced. */
	int64_t appid = 0, version = 0, tables = 0;
	if (sqlite3_exec(s->db, "PRAGMA locking_mode = EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK ||
	    (rc = apenet_spool_int(s->db, "PRAGMA application_id", &appid)) != SQLITE_OK ||
	    (rc = apenet_spool_int(s->db, "PRAGMA user_version", &version)) != SQLITE_OK ||
	    (rc = apenet_spool_int(s->db, "SELECT count(*) FROM sqlite_schema", &tables)) != SQLITE_OK) {
		int busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
		apenet_err_set(e, busy ? APENET_EBUSY : APENET_EINVAL, "spool %s: %s%s", path,
			       busy ? "in use by another process (another agent on the same spool?): "
				    : "cannot be read as a spool, left as it is: ",
			       sqlite3_errmsg(s->db));
		goto fail;
	}
	if (appid != APENET_SPOOL_APP_ID && (appid != 0 || tables != 0 || version != 0)) {
		apenet_err_set(e, APENET_EINVAL,
			       "spool %s: not a spool (a sqlite database of something else: application_id %#llx, "
			       "%lld schema objects); it was left as it is: move it away or name another spool file",
			       path, (unsigned long long)appid, (long long)tables);
		goto fail;
	}
	if (version > APENET_SPOOL_SCHEMA) {
		apenet_err_set(e, APENET_EINVAL,
			       "spool %s: schema version %lld is newer than this agent's (%d): written by a newer "
			       "agent; left as it is",
			       path, (long long)version, APENET_SPOOL_SCHEMA);
		goto fail;
	}
	if (appid == APENET_SPOOL_APP_ID) {
		sqlite3_stmt *st = NULL;
		const char *res = "?";
		if (sqlite3_prepare_v2(s->db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW)
			res = (const char *)sqlite3_column_text(st, 0);
		else
			res = sqlite3_errmsg(s->db);
		if (!res || strcmp(res, "ok") != 0) {
			apenet_err_set(e, APENET_EINVAL,
				       "spool %s: corrupt (%s); it was left as it is for a post-mortem: move it away "
				       "and the agent starts a new one",
				       path, res ? res : "?");
			sqlite3_finalize(st);
			goto fail;
		}
		sqlite3_finalize(st);
	}
	/* From here on the file is ours and may be written. */
	if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK ||
	    /* A commit survives the process dying (kill -9); only a power
	     * loss may undo the last ones, and then the node's neighbours
	     * report it anyway.  FULL would cost an fsync per report. */
	    sqlite3_exec(s->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK ||
	    /* 512 KiB of page cache: the agent's memory budget is small. */
	    sqlite3_exec(s->db, "PRAGMA cache_size = -512", NULL, NULL, NULL) != SQLITE_OK) {
		if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY)
			apenet_err_set(e, APENET_EBUSY,
				       "spool %s: in use by another process (another agent on the same spool?)", path);
		else
			apenet_spool_dberr(s, e, "setting up");
		goto fail;
	}
	if (apenet_spool_migrate(s, version, e))
		goto fail;
	if (apenet_spool_sync_sups(s, sup, nsup, e) || apenet_spool_load_counts(s, e))
		goto fail;
	for (int i = 0; i < ST_N; i++)
		if (sqlite3_prepare_v3(s->db, apenet_spool_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i], NULL) !=
		    SQLITE_OK) {
			apenet_spool_dberr(s, e, "preparing");
			goto fail;
		}
	apenet_log(APENET_LOG_INFO, "spool %s: %llu reports held (%llu bytes)", path, (unsigned long long)s->events,
		   (unsigned long long)s->bytes);
	*out = s;
	return 0;
fail:
	apenet_spool_close(s);
	return -1;
}

void apenet_spool_close(struct apenet_spool *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_N; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s);
}

uint64_t apenet_spool_event_size(const struct apenet_report *ev)
{
	return 64 + strnlen(ev->node, sizeof(ev->node)) + strnlen(ev->boot, sizeof(ev->boot)) +
	       strnlen(ev->where, sizeof(ev->where)) + strnlen(ev->code, sizeof(ev->code)) +
	       strnlen(ev->unit, sizeof(ev->unit)) + strnlen(ev->evidence, sizeof(ev->evidence)) +
	       strnlen(ev->via, sizeof(ev->via));
}

static void apenet_spool_bind_double(sqlite3_stmt *st, int i, double v)
{
	/* sqlite has no NaN; NULL is "no value". */
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Removes one event and its marks, keeping the counters. */
static int apenet_spool_drop(struct apenet_spool *s, int64_t id, uint64_t size, struct apenet_err *e)
{
	sqlite3_stmt *st = s->st[ST_SUPS_OF];
	sqlite3_bind_int64(st, 1, id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t sid = sqlite3_column_int64(st, 0);
		for (unsigned i = 0; i < s->nsup; i++)
			if (s->sup_id[i] == sid && s->outstanding[i])
				s->outstanding[i]--;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return apenet_spool_dberr(s, e, "finding a heartbeat's supervisors");
	sqlite3_bind_int64(s->st[ST_DEL_EVENT], 1, id);
	if (apenet_spool_step(s, ST_DEL_EVENT, e))
		return -1;
	s->events--;
	s->heartbeats--;
	s->bytes -= size;
	return 0;
}

/* The byte bound: oldest heartbeats first, transitions never. */
static int apenet_spool_bound(struct apenet_spool *s, struct apenet_err *e)
{
	uint64_t n = 0, bytes = 0;
	while (s->bytes > s->max_bytes) {
		sqlite3_stmt *st = s->st[ST_OLDEST_HB];
		int rc = sqlite3_step(st);
		if (rc == SQLITE_DONE) {
			sqlite3_reset(st);
			break;
		}
		if (rc != SQLITE_ROW) {
			sqlite3_reset(st);
			return apenet_spool_dberr(s, e, "finding the oldest heartbeat");
		}
		int64_t id = sqlite3_column_int64(st, 0);
		uint64_t size = (uint64_t)sqlite3_column_int64(st, 1);
		sqlite3_reset(st);
		if (apenet_spool_drop(s, id, size, e))
			return -1;
		n++;
		bytes += size;
	}
	if (n) {
		s->dropped += n;
		/* One line when the spool first goes over, not one a second. */
		if (!s->episode_dropped)
			apenet_log(APENET_LOG_WARN,
				   "spool %s: over its bound of %llu bytes: dropping the oldest heartbeats (%llu so "
				   "far, %llu bytes); transitions are never dropped",
				   s->path, (unsigned long long)s->max_bytes, (unsigned long long)n,
				   (unsigned long long)bytes);
		s->episode_dropped += n;
	}
	if (s->bytes > s->max_bytes) {
		if (!s->over_with_transitions)
			apenet_log(APENET_LOG_WARN,
				   "spool %s: %llu bytes in %llu transitions, over its bound of %llu bytes: no "
				   "heartbeat left to drop, and transitions are never dropped",
				   s->path, (unsigned long long)s->bytes, (unsigned long long)s->transitions,
				   (unsigned long long)s->max_bytes);
		s->over_with_transitions = 1;
	}
	return 0;
}

/* Called when the spool went below its bound again. */
static void apenet_spool_episode_end(struct apenet_spool *s)
{
	if (s->bytes > s->max_bytes)
		return;
	if (s->episode_dropped)
		apenet_log(APENET_LOG_NOTICE, "spool %s: back within its bound; %llu heartbeats were dropped", s->path,
			   (unsigned long long)s->episode_dropped);
	s->episode_dropped = 0;
	s->over_with_transitions = 0;
}

int apenet_spool_add(struct apenet_spool *s, struct apenet_report *ev, int64_t *id, struct apenet_err *e)
{
	/* Only what an INFORM can carry: a report stored is a report that can
	 * be sent (include/apenet/report_pdu.h). */
	if (apenet_report_check(ev, e))
		return -1;
	uint64_t size = apenet_spool_event_size(ev);
	uint64_t seq = ev->seq;
	if (apenet_spool_step(s, ST_BEGIN, e))
		return -1;
	/* The boot's numbering lives in the spool, so a restarted agent with
	 * the same boot id never repeats a number the supervisors have seen. */
	if (seq == 0) {
		sqlite3_stmt *st = s->st[ST_SEQ_NEXT];
		sqlite3_bind_text(st, 1, ev->boot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, ev->time_ms);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			seq = (uint64_t)sqlite3_column_int64(st, 0);
		while (rc == SQLITE_ROW)
			rc = sqlite3_step(st);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_DONE || seq == 0) {
			apenet_spool_dberr(s, e, "numbering the event");
			goto fail;
		}
	} else {
		sqlite3_stmt *st = s->st[ST_SEQ_SEEN];
		sqlite3_bind_text(st, 1, ev->boot, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, (int64_t)seq);
		sqlite3_bind_int64(st, 3, ev->time_ms);
		if (apenet_spool_step(s, ST_SEQ_SEEN, e))
			goto fail;
	}
	sqlite3_stmt *st = s->st[ST_INSERT];
	sqlite3_bind_int(st, 1, ev->kind);
	sqlite3_bind_text(st, 2, ev->boot, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)seq);
	sqlite3_bind_int64(st, 4, ev->time_ms);
	sqlite3_bind_int64(st, 5, ev->x);
	sqlite3_bind_int64(st, 6, ev->y);
	sqlite3_bind_int64(st, 7, ev->z);
	sqlite3_bind_text(st, 8, ev->node, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 9, ev->subject);
	sqlite3_bind_text(st, 10, ev->where, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 11, ev->code, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 12, ev->old_status);
	sqlite3_bind_int(st, 13, ev->new_status);
	apenet_spool_bind_double(st, 14, ev->value);
	apenet_spool_bind_double(st, 15, ev->threshold);
	sqlite3_bind_text(st, 16, ev->unit, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 17, ev->path);
	sqlite3_bind_text(st, 18, ev->via, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 19, ev->evidence, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 20, ev->ldm);
	sqlite3_bind_int64(st, 21, (int64_t)size);
	if (sqlite3_step(st) != SQLITE_DONE) {
		int dup = sqlite3_extended_errcode(s->db) == SQLITE_CONSTRAINT_UNIQUE;
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (dup)
			apenet_err_set(e, APENET_EINVAL, "event: boot %s sequence %llu is already in the spool",
				       ev->boot, (unsigned long long)seq);
		else
			apenet_spool_dberr(s, e, "storing the event");
		goto fail;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	int64_t rowid = sqlite3_last_insert_rowid(s->db);
	sqlite3_bind_int64(s->st[ST_PEND_ALL], 1, rowid);
	if (apenet_spool_step(s, ST_PEND_ALL, e))
		goto fail;
	/* Counters move with the transaction: on failure they are restored. */
	uint64_t saved[5] = { s->events, s->transitions, s->heartbeats, s->bytes, s->dropped };
	uint64_t saved_out[APENET_NOTIFY_MAX_SUPERVISORS];
	memcpy(saved_out, s->outstanding, sizeof(saved_out));
	s->events++;
	if (ev->kind == APENET_REPORT_HEARTBEAT)
		s->heartbeats++;
	else
		s->transitions++;
	s->bytes += size;
	for (unsigned i = 0; i < s->nsup; i++)
		s->outstanding[i]++;
	if (apenet_spool_bound(s, e) || apenet_spool_step(s, ST_COMMIT, e)) {
		s->events = saved[0];
		s->transitions = saved[1];
		s->heartbeats = saved[2];
		s->bytes = saved[3];
		s->dropped = saved[4];
		memcpy(s->outstanding, saved_out, sizeof(saved_out));
		goto fail;
	}
	ev->seq = seq;
	if (id)
		*id = rowid;
	return 0;
fail:
	apenet_spool_rollback(s);
	return -1;
}

static void apenet_spool_text(sqlite3_stmt *st, int col, char *dst, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

static double apenet_spool_double(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

int apenet_spool_next(struct apenet_spool *s, unsigned sup, struct apenet_report *ev, int64_t *id,
		      struct apenet_err *e)
{
	if (sup >= s->nsup)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: no supervisor %u", s->path, sup);
	sqlite3_stmt *st = s->st[ST_NEXT];
	sqlite3_bind_int64(st, 1, s->sup_id[sup]);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		apenet_spool_dberr(s, e, "reading the next event");
		sqlite3_reset(st);
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	*id = sqlite3_column_int64(st, 0);
	ev->kind = (enum apenet_report_kind)sqlite3_column_int(st, 1);
	apenet_spool_text(st, 2, ev->boot, sizeof(ev->boot));
	ev->seq = (uint64_t)sqlite3_column_int64(st, 3);
	ev->time_ms = sqlite3_column_int64(st, 4);
	ev->x = (unsigned)sqlite3_column_int64(st, 5);
	ev->y = (unsigned)sqlite3_column_int64(st, 6);
	ev->z = (unsigned)sqlite3_column_int64(st, 7);
	apenet_spool_text(st, 8, ev->node, sizeof(ev->node));
	ev->subject = (enum apenet_report_subject)sqlite3_column_int(st, 9);
	apenet_spool_text(st, 10, ev->where, sizeof(ev->where));
	apenet_spool_text(st, 11, ev->code, sizeof(ev->code));
	ev->old_status = sqlite3_column_int(st, 12);
	ev->new_status = sqlite3_column_int(st, 13);
	ev->value = apenet_spool_double(st, 14);
	ev->threshold = apenet_spool_double(st, 15);
	apenet_spool_text(st, 16, ev->unit, sizeof(ev->unit));
	ev->path = (enum apenet_report_path)sqlite3_column_int(st, 17);
	apenet_spool_text(st, 18, ev->via, sizeof(ev->via));
	apenet_spool_text(st, 19, ev->evidence, sizeof(ev->evidence));
	ev->ldm = (uint32_t)sqlite3_column_int64(st, 20);
	sqlite3_reset(st);
	return 1;
}

int apenet_spool_ack(struct apenet_spool *s, unsigned sup, int64_t id, int64_t now_ms, struct apenet_err *e)
{
	if (sup >= s->nsup)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: no supervisor %u", s->path, sup);
	if (apenet_spool_step(s, ST_BEGIN, e))
		return -1;
	sqlite3_bind_int64(s->st[ST_UNPEND], 1, s->sup_id[sup]);
	sqlite3_bind_int64(s->st[ST_UNPEND], 2, id);
	if (apenet_spool_step(s, ST_UNPEND, e))
		goto fail;
	int unmarked = sqlite3_changes(s->db) > 0;
	int kind = 0;
	uint64_t size = 0;
	if (unmarked) {
		sqlite3_stmt *st = s->st[ST_DEL_ORPHAN];
		sqlite3_bind_int64(st, 1, id);
		int rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			kind = sqlite3_column_int(st, 0);
			size = (uint64_t)sqlite3_column_int64(st, 1);
			rc = sqlite3_step(st);
		}
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		if (rc != SQLITE_DONE) {
			apenet_spool_dberr(s, e, "removing an acknowledged event");
			goto fail;
		}
	}
	sqlite3_bind_int64(s->st[ST_SUP_ACK], 1, s->sup_id[sup]);
	sqlite3_bind_int64(s->st[ST_SUP_ACK], 2, now_ms);
	if (apenet_spool_step(s, ST_SUP_ACK, e) || apenet_spool_step(s, ST_COMMIT, e))
		goto fail;
	s->last_ack_ms[sup] = now_ms;
	if (unmarked && s->outstanding[sup])
		s->outstanding[sup]--;
	if (kind) {
		s->events--;
		s->bytes -= size;
		if (kind == APENET_REPORT_HEARTBEAT)
			s->heartbeats--;
		else
			s->transitions--;
		apenet_spool_episode_end(s);
	}
	return 0;
fail:
	apenet_spool_rollback(s);
	return -1;
}

void apenet_spool_stats(const struct apenet_spool *s, struct apenet_spool_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = s->events;
	st->transitions = s->transitions;
	st->heartbeats = s->heartbeats;
	st->bytes = s->bytes;
	st->max_bytes = s->max_bytes;
	st->dropped = s->dropped;
	st->nsup = s->nsup;
	for (unsigned i = 0; i < s->nsup; i++) {
		st->outstanding[i] = s->outstanding[i];
		st->last_ack_ms[i] = s->last_ack_ms[i];
	}
}
