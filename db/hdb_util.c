/*
 * Small shared pieces of the health database library: statements, errors,
 * binding and reading columns, names.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "hdb_int.h"

sqlite3_stmt *apenet_hdb_stmt(struct apenet_hdb *db, enum hdb_st which, struct apenet_err *e)
{
	if (!db->st[which] &&
	    sqlite3_prepare_v3(db->db, apenet_hdb_sql_text(which), -1, SQLITE_PREPARE_PERSISTENT, &db->st[which], NULL) != SQLITE_OK) {
		apenet_hdb_dberr(db, e, "preparing a statement");
		return NULL;
	}
	return db->st[which];
}

int apenet_hdb_dberr(struct apenet_hdb *db, struct apenet_err *e, const char *what)
{
	int rc = sqlite3_extended_errcode(db->db) & 0xff;
	int code = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? APENET_EBUSY
		   : rc == SQLITE_CONSTRAINT			 ? APENET_EINVAL
								 : APENET_EIO;
	return apenet_err_set(e, code, "health db %s: %s: %s", db->path, what, sqlite3_errmsg(db->db));
}

int apenet_hdb_run(struct apenet_hdb *db, sqlite3_stmt *st, struct apenet_err *e, const char *what)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (rc != SQLITE_DONE) {
		apenet_hdb_dberr(db, e, what);
		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		return -1;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return 0;
}

void apenet_hdb_done(sqlite3_stmt *st)
{
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

int apenet_hdb_writable(struct apenet_hdb *db, struct apenet_err *e, const char *what)
{
	if (db->flags & APENET_HDB_READONLY)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: %s: opened read-only", db->path, what);
	return 0;
}

sqlite3_stmt *apenet_hdb_reader(struct apenet_hdb *db, enum hdb_st which, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_hdb_stmt(db, which, e);
	if (st && sqlite3_stmt_busy(st)) {
		apenet_err_set(e, APENET_EINVAL, "health db %s: a reader called again from its own callback", db->path);
		return NULL;
	}
	return st;
}

void apenet_hdb_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

void apenet_hdb_bind_double(sqlite3_stmt *st, int i, double v)
{
	/* sqlite has no NaN; NULL is "no value". */
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

void apenet_hdb_col_text(sqlite3_stmt *st, int col, char *dst, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

double apenet_hdb_col_double(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

int apenet_hdb_check_text(struct apenet_hdb *db, const char *what, const char *s, size_t size, struct apenet_err *e)
{
	if (strnlen(s, size) >= size)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: %s is not terminated within %zu bytes", db->path,
				      what, size);
	return 0;
}

static const char *const link_names[APENET_HDB_NLINKS] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };

const char *apenet_hdb_link_name(int link)
{
	return link >= 0 && link < APENET_HDB_NLINKS ? link_names[link] : "?";
}

int apenet_hdb_link_index(const char *name)
{
	for (int i = 0; i < APENET_HDB_NLINKS; i++)
		if (name && !strcmp(name, link_names[i]))
			return i;
	return -1;
}

const char *apenet_hdb_path_name(int path)
{
	static const char *const names[] = { "?", "self", "neighbour-ldm", "watchdog", "supervisor" };
	return path >= 1 && path <= 4 ? names[path] : "?";
}

const char *apenet_hdb_state_name(int state)
{
	static const char *const names[] = { "?", "open", "closed", "merged" };
	return state >= 1 && state <= 3 ? names[state] : "?";
}

const char *apenet_hdb_class_name(int cls)
{
	static const char *const names[] = { "normal", "sick", "broken", "silent" };
	return cls >= 0 && cls <= 3 ? names[cls] : "?";
}
