/*
 * Cables by serial number, with both ends, as cable qualification and the
 * BER history will need them.
 */
#include <math.h>
#include <string.h>

#include "hdb_int.h"

static int hdb_cable_end(struct apenet_hdb *db, sqlite3_stmt *st, int col, int has, const unsigned xyz[3],
			 const char *link, struct apenet_err *e)
{
	if (!has) {
		sqlite3_bind_null(st, col);
		sqlite3_bind_null(st, col + 1);
		return 0;
	}
	struct hdb_node *n = apenet_hdb_node_entry(db, xyz, "", e);
	if (!n)
		return -1;
	sqlite3_bind_int64(st, col, n->id);
	apenet_db_bind_text(st, col + 1, link);
	return 0;
}

int apenet_hdb_cable_seen(struct apenet_hdb *db, const struct apenet_hdb_cable *c, int64_t when_ms,
			  struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "storing a cable") ||
	    apenet_hdb_check_text(db, "cable serial", c->serial, sizeof(c->serial), e) ||
	    apenet_hdb_check_text(db, "cable vendor", c->vendor, sizeof(c->vendor), e) ||
	    apenet_hdb_check_text(db, "cable part", c->part, sizeof(c->part), e) ||
	    apenet_hdb_check_text(db, "cable end a link", c->a_link, sizeof(c->a_link), e) ||
	    apenet_hdb_check_text(db, "cable end b link", c->b_link, sizeof(c->b_link), e))
		return -1;
	if (!c->serial[0])
		return apenet_err_set(e, APENET_EINVAL, "health db %s: a cable without a serial number", db->f.path);
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_CABLE_UPSERT, e);
	int ok = st && hdb_cable_end(db, st, 5, c->has_a, c->a, c->a_link, e) == 0 &&
		 hdb_cable_end(db, st, 7, c->has_b, c->b, c->b_link, e) == 0;
	if (ok) {
		apenet_db_bind_text(st, 1, c->serial);
		apenet_db_bind_text(st, 2, c->vendor);
		apenet_db_bind_text(st, 3, c->part);
		apenet_db_bind_double(st, 4, c->length_m);
		sqlite3_bind_int64(st, 9, when_ms);
		ok = apenet_db_run(&db->f, st, e, "storing a cable") == 0;
	} else if (st) {
		apenet_db_done(st);
	}
	return apenet_hdb_tx_end(db, own, ok, e);
}

int apenet_hdb_cable_get(struct apenet_hdb *db, const char *serial, struct apenet_hdb_cable *out, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_CABLE_GET, e);
	if (!st)
		return -1;
	apenet_db_bind_text(st, 1, serial);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		memset(out, 0, sizeof(*out));
		apenet_db_col_text(st, 0, out->serial, sizeof(out->serial));
		apenet_db_col_text(st, 1, out->vendor, sizeof(out->vendor));
		apenet_db_col_text(st, 2, out->part, sizeof(out->part));
		out->length_m = apenet_db_col_double(st, 3);
		out->has_a = sqlite3_column_int(st, 4);
		for (int i = 0; i < 3; i++)
			out->a[i] = (unsigned)sqlite3_column_int64(st, 5 + i);
		apenet_db_col_text(st, 8, out->a_link, sizeof(out->a_link));
		out->has_b = sqlite3_column_int(st, 9);
		for (int i = 0; i < 3; i++)
			out->b[i] = (unsigned)sqlite3_column_int64(st, 10 + i);
		apenet_db_col_text(st, 13, out->b_link, sizeof(out->b_link));
		out->first_ms = sqlite3_column_int64(st, 14);
		out->last_ms = sqlite3_column_int64(st, 15);
	}
	apenet_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading a cable");
	return rc == SQLITE_ROW;
}

int apenet_hdb_cable_at(struct apenet_hdb *db, const unsigned xyz[3], const char *link, struct apenet_hdb_cable *out,
			struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_CABLE_AT, e);
	if (!st)
		return -1;
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int64(st, 1 + i, xyz[i]);
	apenet_db_bind_text(st, 4, link);
	char serial[sizeof(out->serial)] = "";
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		apenet_db_col_text(st, 0, serial, sizeof(serial));
	apenet_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "finding the cable at a link");
	return rc == SQLITE_ROW ? apenet_hdb_cable_get(db, serial, out, e) : 0;
}
