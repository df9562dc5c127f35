/*
 * The agent's report spool as a file (include/apenet/spool_store.h): its
 * schema, its settings and every statement it runs.  snmp/spool.c keeps
 * the logic.
 *
 * Why sqlite and not an append-only file: the spool is read in order per
 * supervisor, marked per supervisor, trimmed from the middle (old
 * heartbeats) and must survive a kill -9 at any instruction; a WAL database
 * gives atomic multi-row updates and crash recovery for a few lines of SQL.
 */
#include <stdlib.h>
#include <string.h>

#include "apenet/spool_store.h"
#include "db_int.h"

/* Migrations: entry i takes a spool from schema version i to i + 1.  A new
 * file is version 0 and runs them all; never edit one that shipped, add
 * the next. */
static const char *const spool_steps[APENET_SPOOL_SCHEMA] = {
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

static const char *const spool_pragmas[] = {
	"PRAGMA journal_mode = WAL",
	/* A commit survives the process dying (kill -9); only a power loss
	 * may undo the last ones, and then the node's neighbours report it
	 * anyway.  FULL would cost an fsync per report. */
	"PRAGMA synchronous = NORMAL",
	"PRAGMA foreign_keys = ON",
	/* 512 KiB of page cache: the agent's memory budget is small. */
	"PRAGMA cache_size = -512",
	NULL,
};

static const struct apenet_db_kind spool_kind = {
	.noun = "spool",
	.a_what = "a spool",
	.busy_hint = " (another agent on the same spool?)",
	.writer = "the agent",
	.app_id = APENET_SPOOL_APP_ID,
	.schema = APENET_SPOOL_SCHEMA,
	.steps = spool_steps,
	.pragmas = spool_pragmas,
	.ro_pragmas = NULL,
	/* Another process on the same spool waits this long, then is told it
	 * is in use (the lock is held for as long as the spool is open). */
	.busy_ms = 250,
	/* One writer, enforced: the file is held from the first write to close. */
	.opts = APENET_DB_EXCLUSIVE,
};

enum spool_st {
	SP_INSERT,
	SP_PEND_ALL,
	SP_NEXT,
	SP_UNPEND,
	SP_DEL_ORPHAN,
	SP_SUP_ACK,
	SP_SEQ_NEXT,
	SP_SEQ_SEEN,
	SP_OLDEST_HB,
	SP_SUPS_OF,
	SP_DEL_EVENT,
	/* opening: the supervisors, tidying, counting */
	SP_SUP_ADD,
	SP_SUP_GET,
	SP_SUP_GIVE_ALL,
	SP_SUP_EACH,
	SP_SUP_DEL,
	SP_PENDING,
	SP_ORPHANS,
	SP_BOOT_TRIM,
	SP_TOTALS,
	SP_N
};

static const char *const spool_sql[SP_N] = {
	[SP_INSERT] = "INSERT INTO event (kind, boot, seq, time_ms, node_x, node_y, node_z, node_name, subject, place,"
		      " code, old_status, new_status, value, threshold, unit, path, via, evidence, ldm, size)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
	[SP_PEND_ALL] = "INSERT INTO pending (sup, event) SELECT id, ?1 FROM supervisor",
	[SP_NEXT] = "SELECT e.id, kind, boot, seq, time_ms, node_x, node_y, node_z, node_name, subject, place, code,"
		    " old_status, new_status, value, threshold, unit, path, via, evidence, ldm"
		    " FROM pending p JOIN event e ON e.id = p.event WHERE p.sup = ?1 ORDER BY p.event LIMIT 1",
	[SP_UNPEND] = "DELETE FROM pending WHERE sup = ?1 AND event = ?2",
	[SP_DEL_ORPHAN] = "DELETE FROM event WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM pending WHERE event = ?1)"
			  " RETURNING kind, size",
	[SP_SUP_ACK] = "UPDATE supervisor SET last_ack_ms = ?2 WHERE id = ?1",
	[SP_SEQ_NEXT] = "INSERT INTO boot (id, last_seq, first_ms) VALUES (?1, 1, ?2)"
			" ON CONFLICT (id) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq",
	[SP_SEQ_SEEN] = "INSERT INTO boot (id, last_seq, first_ms) VALUES (?1, ?2, ?3)"
			" ON CONFLICT (id) DO UPDATE SET last_seq = max(last_seq, ?2)",
	[SP_OLDEST_HB] = "SELECT id, size FROM event WHERE kind = 2 ORDER BY id LIMIT 1",
	[SP_SUPS_OF] = "SELECT sup FROM pending WHERE event = ?1",
	[SP_DEL_EVENT] = "DELETE FROM event WHERE id = ?1",

	[SP_SUP_ADD] = "INSERT INTO supervisor (addr) VALUES (?1) ON CONFLICT (addr) DO NOTHING",
	[SP_SUP_GET] = "SELECT id, last_ack_ms FROM supervisor WHERE addr = ?1",
	[SP_SUP_GIVE_ALL] = "INSERT INTO pending (sup, event) SELECT ?1, id FROM event",
	[SP_SUP_EACH] = "SELECT s.id, s.addr, (SELECT count(*) FROM pending p WHERE p.sup = s.id) FROM supervisor s",
	[SP_SUP_DEL] = "DELETE FROM supervisor WHERE id = ?1",
	[SP_PENDING] = "SELECT count(*) FROM pending WHERE sup = ?1",
	[SP_ORPHANS] = "DELETE FROM event WHERE id NOT IN (SELECT event FROM pending)",
	[SP_BOOT_TRIM] = "DELETE FROM boot WHERE id NOT IN (SELECT boot FROM event)"
			 " AND first_ms < (SELECT max(first_ms) FROM boot)",
	[SP_TOTALS] = "SELECT kind, count(*), coalesce(sum(size), 0) FROM event GROUP BY kind",
};

struct apenet_spool_store {
	struct apenet_db f;
	sqlite3_stmt *st[SP_N];
};

int apenet_spool_store_open(const char *path, struct apenet_spool_store **out, struct apenet_err *e)
{
	*out = NULL;
	struct apenet_spool_store *d = calloc(1, sizeof(*d));
	if (!d)
		return apenet_err_set(e, APENET_EIO, "spool %s: out of memory", path ? path : "");
	/* Every existing spool is checked: the agent's files see kill -9 and
	 * power cuts, and the check of a small file is quick. */
	unsigned flags = APENET_DB_CREATE | APENET_DB_QUICK_CHECK | APENET_DB_PREPARE;
	if (apenet_db_open(&d->f, &spool_kind, path, flags, d->st, spool_sql, SP_N, e)) {
		free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void apenet_spool_store_close(struct apenet_spool_store *d)
{
	if (!d)
		return;
	apenet_db_close(&d->f);
	free(d);
}

int apenet_spool_store_begin(struct apenet_spool_store *d, struct apenet_err *e)
{
	return apenet_db_begin(&d->f, e);
}

int apenet_spool_store_commit(struct apenet_spool_store *d, struct apenet_err *e)
{
	return apenet_db_commit(&d->f, e);
}

void apenet_spool_store_rollback(struct apenet_spool_store *d)
{
	apenet_db_rollback(&d->f);
}

/* One row of one integer or two; 1 row, 0 none, -1 error (e set). */
static int spool_row(struct apenet_spool_store *d, sqlite3_stmt *st, int64_t *a, int64_t *b, struct apenet_err *e,
		     const char *what)
{
	int rc = sqlite3_step(st);
	int row = rc == SQLITE_ROW;
	if (row) {
		*a = sqlite3_column_int64(st, 0);
		if (b)
			*b = sqlite3_column_int64(st, 1);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
	}
	if (rc != SQLITE_DONE) {
		apenet_db_err(&d->f, e, what);
		apenet_db_done(st);
		return -1;
	}
	apenet_db_done(st);
	return row;
}

int apenet_spool_store_sup_add(struct apenet_spool_store *d, const char *addr, int64_t *id, int64_t *last_ack_ms,
			       struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SUP_ADD];
	apenet_db_bind_text(st, 1, addr);
	if (apenet_db_run(&d->f, st, e, "adding a supervisor"))
		return -1;
	int added = apenet_db_changes(&d->f) > 0;
	st = d->st[SP_SUP_GET];
	apenet_db_bind_text(st, 1, addr);
	int r = spool_row(d, st, id, last_ack_ms, e, "reading a supervisor");
	if (r == 0)
		apenet_err_set(e, APENET_EIO, "spool %s: supervisor %s vanished as it was added", d->f.path, addr);
	return r <= 0 ? -1 : added;
}

int apenet_spool_store_sup_give_all(struct apenet_spool_store *d, int64_t sup, uint64_t *n, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SUP_GIVE_ALL];
	sqlite3_bind_int64(st, 1, sup);
	if (apenet_db_run(&d->f, st, e, "marking the held events for a new supervisor"))
		return -1;
	*n = (uint64_t)apenet_db_changes(&d->f);
	return 0;
}

int apenet_spool_store_sup_each(struct apenet_spool_store *d,
				int (*fn)(void *ctx, int64_t id, const char *addr, uint64_t pending), void *ctx,
				struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SUP_EACH];
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *addr = sqlite3_column_text(st, 1);
		if (fn(ctx, sqlite3_column_int64(st, 0), addr ? (const char *)addr : "",
		       (uint64_t)sqlite3_column_int64(st, 2))) {
			apenet_db_done(st);
			return -1;
		}
	}
	if (rc != SQLITE_DONE)
		apenet_db_err(&d->f, e, "listing supervisors");
	apenet_db_done(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int apenet_spool_store_sup_remove(struct apenet_spool_store *d, int64_t sup, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SUP_DEL];
	sqlite3_bind_int64(st, 1, sup);
	return apenet_db_run(&d->f, st, e, "removing a supervisor");
}

int apenet_spool_store_pending(struct apenet_spool_store *d, int64_t sup, uint64_t *n, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_PENDING];
	sqlite3_bind_int64(st, 1, sup);
	int64_t v = 0;
	if (spool_row(d, st, &v, NULL, e, "counting") < 0)
		return -1;
	*n = (uint64_t)v;
	return 0;
}

int apenet_spool_store_tidy(struct apenet_spool_store *d, struct apenet_err *e)
{
	if (apenet_db_run(&d->f, d->st[SP_ORPHANS], e, "dropping events nobody waits for") ||
	    apenet_db_run(&d->f, d->st[SP_BOOT_TRIM], e, "forgetting old boots"))
		return -1;
	return 0;
}

int apenet_spool_store_totals(struct apenet_spool_store *d, uint64_t *heartbeats, uint64_t *others,
			      uint64_t *bytes, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_TOTALS];
	*heartbeats = *others = *bytes = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		uint64_t n = (uint64_t)sqlite3_column_int64(st, 1);
		if (sqlite3_column_int(st, 0) == APENET_REPORT_HEARTBEAT)
			*heartbeats += n;
		else
			*others += n;
		*bytes += (uint64_t)sqlite3_column_int64(st, 2);
	}
	if (rc != SQLITE_DONE)
		apenet_db_err(&d->f, e, "counting events");
	apenet_db_done(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int apenet_spool_store_seq_seen(struct apenet_spool_store *d, const char *boot, uint64_t seq, int64_t time_ms,
				struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SEQ_SEEN];
	apenet_db_bind_text(st, 1, boot);
	sqlite3_bind_int64(st, 2, (int64_t)seq);
	sqlite3_bind_int64(st, 3, time_ms);
	return apenet_db_run(&d->f, st, e, "numbering the event");
}

int apenet_spool_store_unmark(struct apenet_spool_store *d, int64_t sup, int64_t id, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_UNPEND];
	sqlite3_bind_int64(st, 1, sup);
	sqlite3_bind_int64(st, 2, id);
	return apenet_db_run(&d->f, st, e, "unmarking an acknowledged event");
}

int apenet_spool_store_sup_acked(struct apenet_spool_store *d, int64_t sup, int64_t now_ms, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SUP_ACK];
	sqlite3_bind_int64(st, 1, sup);
	sqlite3_bind_int64(st, 2, now_ms);
	return apenet_db_run(&d->f, st, e, "recording the acknowledgement");
}

int apenet_spool_store_put(struct apenet_spool_store *d, const struct apenet_report *ev, uint64_t seq,
			   uint64_t size, uint64_t *seq_out, int64_t *id, struct apenet_err *e)
{
	/* The boot's numbering lives in the spool, so a restarted agent with
	 * the same boot id never repeats a number the supervisors have seen. */
	sqlite3_stmt *st;
	if (seq == 0) {
		st = d->st[SP_SEQ_NEXT];
		apenet_db_bind_text(st, 1, ev->boot);
		sqlite3_bind_int64(st, 2, ev->time_ms);
		int64_t next = 0;
		int r = spool_row(d, st, &next, NULL, e, "numbering the event");
		if (r < 0)
			return -1;
		if (r == 0 || next <= 0)
			return apenet_err_set(e, APENET_EIO, "spool %s: numbering the event: no number", d->f.path);
		seq = (uint64_t)next;
	} else if (apenet_spool_store_seq_seen(d, ev->boot, seq, ev->time_ms, e)) {
		return -1;
	}
	st = d->st[SP_INSERT];
	sqlite3_bind_int(st, 1, ev->kind);
	apenet_db_bind_text(st, 2, ev->boot);
	sqlite3_bind_int64(st, 3, (int64_t)seq);
	sqlite3_bind_int64(st, 4, ev->time_ms);
	sqlite3_bind_int64(st, 5, ev->x);
	sqlite3_bind_int64(st, 6, ev->y);
	sqlite3_bind_int64(st, 7, ev->z);
	apenet_db_bind_text(st, 8, ev->node);
	sqlite3_bind_int(st, 9, ev->subject);
	apenet_db_bind_text(st, 10, ev->where);
	apenet_db_bind_text(st, 11, ev->code);
	sqlite3_bind_int(st, 12, ev->old_status);
	sqlite3_bind_int(st, 13, ev->new_status);
	apenet_db_bind_double(st, 14, ev->value);
	apenet_db_bind_double(st, 15, ev->threshold);
	apenet_db_bind_text(st, 16, ev->unit);
	sqlite3_bind_int(st, 17, ev->path);
	apenet_db_bind_text(st, 18, ev->via);
	apenet_db_bind_text(st, 19, ev->evidence);
	sqlite3_bind_int64(st, 20, ev->ldm);
	sqlite3_bind_int64(st, 21, (int64_t)size);
	if (sqlite3_step(st) != SQLITE_DONE) {
		int dup = sqlite3_extended_errcode(d->f.conn) == SQLITE_CONSTRAINT_UNIQUE;
		if (dup)
			apenet_err_set(e, APENET_EINVAL, "event: boot %s sequence %llu is already in the spool", ev->boot,
				       (unsigned long long)seq);
		else
			apenet_db_err(&d->f, e, "storing the event");
		apenet_db_done(st);
		return -1;
	}
	apenet_db_done(st);
	int64_t rowid = apenet_db_last_id(&d->f);
	st = d->st[SP_PEND_ALL];
	sqlite3_bind_int64(st, 1, rowid);
	if (apenet_db_run(&d->f, st, e, "marking the event for the supervisors"))
		return -1;
	*seq_out = seq;
	*id = rowid;
	return 0;
}

int apenet_spool_store_next(struct apenet_spool_store *d, int64_t sup, struct apenet_report *ev, int64_t *id,
			    struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_NEXT];
	sqlite3_bind_int64(st, 1, sup);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		apenet_db_done(st);
		return 0;
	}
	if (rc != SQLITE_ROW) {
		apenet_db_err(&d->f, e, "reading the next event");
		apenet_db_done(st);
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	*id = sqlite3_column_int64(st, 0);
	ev->kind = (enum apenet_report_kind)sqlite3_column_int(st, 1);
	apenet_db_col_text(st, 2, ev->boot, sizeof(ev->boot));
	ev->seq = (uint64_t)sqlite3_column_int64(st, 3);
	ev->time_ms = sqlite3_column_int64(st, 4);
	ev->x = (unsigned)sqlite3_column_int64(st, 5);
	ev->y = (unsigned)sqlite3_column_int64(st, 6);
	ev->z = (unsigned)sqlite3_column_int64(st, 7);
	apenet_db_col_text(st, 8, ev->node, sizeof(ev->node));
	ev->subject = (enum apenet_report_subject)sqlite3_column_int(st, 9);
	apenet_db_col_text(st, 10, ev->where, sizeof(ev->where));
	apenet_db_col_text(st, 11, ev->code, sizeof(ev->code));
	ev->old_status = sqlite3_column_int(st, 12);
	ev->new_status = sqlite3_column_int(st, 13);
	ev->value = apenet_db_col_double(st, 14);
	ev->threshold = apenet_db_col_double(st, 15);
	apenet_db_col_text(st, 16, ev->unit, sizeof(ev->unit));
	ev->path = (enum apenet_report_path)sqlite3_column_int(st, 17);
	apenet_db_col_text(st, 18, ev->via, sizeof(ev->via));
	apenet_db_col_text(st, 19, ev->evidence, sizeof(ev->evidence));
	ev->ldm = (uint32_t)sqlite3_column_int64(st, 20);
	apenet_db_done(st);
	return 1;
}

int apenet_spool_store_ack(struct apenet_spool_store *d, int64_t sup, int64_t id, int64_t now_ms, int *unmarked,
			   int *kind, uint64_t *size, struct apenet_err *e)
{
	*unmarked = 0;
	*kind = 0;
	*size = 0;
	sqlite3_stmt *st = d->st[SP_UNPEND];
	sqlite3_bind_int64(st, 1, sup);
	sqlite3_bind_int64(st, 2, id);
	if (apenet_db_run(&d->f, st, e, "unmarking an acknowledged event"))
		return -1;
	*unmarked = apenet_db_changes(&d->f) > 0;
	if (*unmarked) {
		st = d->st[SP_DEL_ORPHAN];
		sqlite3_bind_int64(st, 1, id);
		int64_t k = 0, sz = 0;
		int r = spool_row(d, st, &k, &sz, e, "removing an acknowledged event");
		if (r < 0)
			return -1;
		if (r) {
			*kind = (int)k;
			*size = (uint64_t)sz;
		}
	}
	return apenet_spool_store_sup_acked(d, sup, now_ms, e);
}

int apenet_spool_store_oldest_heartbeat(struct apenet_spool_store *d, int64_t *id, uint64_t *size,
					struct apenet_err *e)
{
	int64_t sz = 0;
	int r = spool_row(d, d->st[SP_OLDEST_HB], id, &sz, e, "finding the oldest heartbeat");
	if (r > 0)
		*size = (uint64_t)sz;
	return r;
}

int apenet_spool_store_drop(struct apenet_spool_store *d, int64_t id, void (*each)(void *ctx, int64_t sup),
			    void *ctx, struct apenet_err *e)
{
	sqlite3_stmt *st = d->st[SP_SUPS_OF];
	sqlite3_bind_int64(st, 1, id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		each(ctx, sqlite3_column_int64(st, 0));
	if (rc != SQLITE_DONE)
		apenet_db_err(&d->f, e, "finding an event's supervisors");
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return -1;
	st = d->st[SP_DEL_EVENT];
	sqlite3_bind_int64(st, 1, id);
	return apenet_db_run(&d->f, st, e, "dropping an event");
}
