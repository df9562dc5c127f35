/*
 * Using a file of db/ (db_int.h): errors, statements, transactions, binding
 * and reading columns.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "db_int.h"

int apenet_db_err(struct apenet_db *d, struct apenet_err *e, const char *what)
{
	int rc = sqlite3_extended_errcode(d->conn) & 0xff;
	int code = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? APENET_EBUSY
		   : rc == SQLITE_CONSTRAINT			 ? APENET_EINVAL
								 : APENET_EIO;
	return apenet_err_set(e, code, "%s %s: %s: %s", d->kind->noun, d->path, what, sqlite3_errmsg(d->conn));
}

static sqlite3_stmt *db_prepare(struct apenet_db *d, sqlite3_stmt **slot, const char *sql, struct apenet_err *e)
{
	if (!*slot && sqlite3_prepare_v3(d->conn, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL) != SQLITE_OK) {
		apenet_db_err(d, e, "preparing a statement");
		return NULL;
	}
	return *slot;
}

sqlite3_stmt *apenet_db_stmt(struct apenet_db *d, unsigned which, struct apenet_err *e)
{
	return db_prepare(d, &d->st[which], d->sql[which], e);
}

sqlite3_stmt *apenet_db_reader(struct apenet_db *d, unsigned which, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_stmt(d, which, e);
	if (st && sqlite3_stmt_busy(st)) {
		apenet_err_set(e, APENET_EINVAL, "%s %s: a reader called again from its own callback", d->kind->noun,
			       d->path);
		return NULL;
	}
	return st;
}

int apenet_db_run(struct apenet_db *d, sqlite3_stmt *st, struct apenet_err *e, const char *what)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE)
		apenet_db_err(d, e, what);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

void apenet_db_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

int apenet_db_changes(struct apenet_db *d)
{
	return sqlite3_changes(d->conn);
}

int64_t apenet_db_last_id(struct apenet_db *d)
{
	return sqlite3_last_insert_rowid(d->conn);
}

static const char *const db_tx_sql[APENET_DB_NTX] = {
	[APENET_DB_BEGIN] = "BEGIN IMMEDIATE",
	[APENET_DB_COMMIT] = "COMMIT",
	[APENET_DB_ROLLBACK] = "ROLLBACK",
};

static int db_tx(struct apenet_db *d, int which, struct apenet_err *e, const char *what)
{
	sqlite3_stmt *st = db_prepare(d, &d->tx[which], db_tx_sql[which], e);
	return st ? apenet_db_run(d, st, e, what) : -1;
}

int apenet_db_begin(struct apenet_db *d, struct apenet_err *e)
{
	return db_tx(d, APENET_DB_BEGIN, e, "beginning a transaction");
}

int apenet_db_commit(struct apenet_db *d, struct apenet_err *e)
{
	return db_tx(d, APENET_DB_COMMIT, e, "committing");
}

void apenet_db_rollback(struct apenet_db *d)
{
	for (unsigned i = 0; i < d->nst; i++)
		if (d->st[i])
			sqlite3_reset(d->st[i]);
	if (!sqlite3_get_autocommit(d->conn)) {
		struct apenet_err ignored;
		db_tx(d, APENET_DB_ROLLBACK, &ignored, "rolling back");
	}
}

void apenet_db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

void apenet_db_bind_double(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

void apenet_db_col_text(sqlite3_stmt *st, int col, char *dst, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

double apenet_db_col_double(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}
