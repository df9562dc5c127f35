/*
 * The sqlite layer under every file db/ keeps: the health database
 * (hdb_*.c), the agent's report spool (spool_store.c) and the benchmarks'
 * baseline (hdb_baseline.c).  Telling our files from others before sqlite
 * writes a byte, the connection's settings, the schema as forward
 * migrations, statements prepared once and bound, transactions, errors
 * that name the file.  Not installed: nothing outside db/ includes it.
 */
#ifndef APENET_DB_INT_H
#define APENET_DB_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "apenet/err.h"

enum apenet_db_opts {
	/* PRAGMA locking_mode = EXCLUSIVE before the first access: WAL then
	 * needs no shared-memory file, and the lock the first write takes is
	 * kept until close (one writer, enforced: a second is told the file
	 * is in use). */
	APENET_DB_EXCLUSIVE = 1,
	/* The WAL and its index stay when the writer closes: a reader that may
	 * not create files beside the database can open it while the writer
	 * is stopped. */
	APENET_DB_PERSIST_WAL = 2,
};

/* One kind of file (one const instance per kind). */
struct apenet_db_kind {
	const char *noun;            /* every message begins "NOUN PATH: " ("health db") */
	const char *a_what;          /* "not A_WHAT" ("a health database") */
	const char *busy_hint;       /* after "in use by another process" ("" or " (...)") */
	const char *writer;          /* who upgrades an old file ("the supervisor") */
	int32_t app_id;              /* PRAGMA application_id: without it a file is someone else's */
	int schema;                  /* PRAGMA user_version this program writes */
	const char *const *steps;    /* steps[v] takes a file from version v to v + 1 */
	const char *const *pragmas;  /* a writer's settings, NULL-terminated */
	const char *const *ro_pragmas; /* a reader's (NULL: no readers) */
	int busy_ms;                 /* another process holding the file is waited for this long */
	unsigned opts;               /* enum apenet_db_opts */
};

enum apenet_db_flags {
	APENET_DB_READONLY = 1,    /* never writes; refuses an older schema (the writer upgrades it) */
	APENET_DB_CREATE = 2,      /* makes the file when there is none (read-write only) */
	APENET_DB_QUICK_CHECK = 4, /* PRAGMA quick_check before use (always done before a migration) */
	APENET_DB_PREPARE = 8,     /* every statement prepared at open: tables that do not fit are found then */
};

enum { APENET_DB_BEGIN, APENET_DB_COMMIT, APENET_DB_ROLLBACK, APENET_DB_NTX };

/* An open file: embedded in the handle of its kind (struct apenet_hdb,
 * struct apenet_spool_store), which owns the statements' array. */
struct apenet_db {
	sqlite3 *conn;
	const struct apenet_db_kind *kind;
	unsigned flags;
	sqlite3_stmt **st;           /* the kind's statements, prepared on first use */
	const char *const *sql;      /* their texts: values bound (?N), never written in */
	unsigned nst;
	sqlite3_stmt *tx[APENET_DB_NTX];
	char path[APENET_PATH_MAX];
};

/* Opens path as a file of kind k, its schema created or upgraded to
 * k->schema (read-write), with st[0..nst) the statements sql[0..nst)
 * (NULL until used).  A file that is not sqlite, another program's, a
 * damaged one, one of a newer schema or one held by another process is
 * refused with an error naming it and why, and left as it is; an empty file
 * this call created and could not make a database of goes.  On failure d
 * holds nothing to close. */
int apenet_db_open(struct apenet_db *d, const struct apenet_db_kind *k, const char *path, unsigned flags,
		   sqlite3_stmt **st, const char *const *sql, unsigned nst, struct apenet_err *e);
/* Finalizes the statements and closes the connection; d may be closed twice. */
void apenet_db_close(struct apenet_db *d);
/* A new file of kind k at schema version (1..k->schema), for tests of the
 * migrations; an existing path is refused. */
int apenet_db_create_at(const struct apenet_db_kind *k, const char *path, int version, struct apenet_err *e);

/* e from the connection's last error: "NOUN PATH: what: sqlite's message";
 * busy or locked is APENET_EBUSY, a constraint APENET_EINVAL, else APENET_EIO.
 * Returns -1. */
int apenet_db_err(struct apenet_db *d, struct apenet_err *e, const char *what);
/* Statement which, prepared on first use (or at open: APENET_DB_PREPARE);
 * NULL with e set. */
sqlite3_stmt *apenet_db_stmt(struct apenet_db *d, unsigned which, struct apenet_err *e);
/* A reader's statement, refused when it is already running (a callback
 * calling its own reader). */
sqlite3_stmt *apenet_db_reader(struct apenet_db *d, unsigned which, struct apenet_err *e);
/* Steps a bound statement to completion (rows ignored) and resets it. */
int apenet_db_run(struct apenet_db *d, sqlite3_stmt *st, struct apenet_err *e, const char *what);
/* Resets a statement (and its bindings) after a reader used it. */
void apenet_db_done(sqlite3_stmt *st);
/* Rows the last statement changed; the row id of the last INSERT. */
int apenet_db_changes(struct apenet_db *d);
int64_t apenet_db_last_id(struct apenet_db *d);

/* Transactions: BEGIN IMMEDIATE (the write lock at once, never upgraded
 * half-way), COMMIT, and a rollback that first resets every statement
 * (a reader left running would keep the transaction open). */
int apenet_db_begin(struct apenet_db *d, struct apenet_err *e);
int apenet_db_commit(struct apenet_db *d, struct apenet_err *e);
void apenet_db_rollback(struct apenet_db *d);

void apenet_db_bind_text(sqlite3_stmt *st, int i, const char *s);
/* NaN is bound as NULL (sqlite has no NaN; NULL is "no value"). */
void apenet_db_bind_double(sqlite3_stmt *st, int i, double v);
/* A text, "" for NULL, copied into dst. */
void apenet_db_col_text(sqlite3_stmt *st, int col, char *dst, size_t size);
/* A real, NaN for NULL. */
double apenet_db_col_double(sqlite3_stmt *st, int col);

#endif
