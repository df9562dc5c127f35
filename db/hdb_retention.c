/*
 * Retention: transitions go by age; evidence of an open incident stays, and
 * incidents are never deleted.
 */
#include "hdb_int.h"

int64_t apenet_hdb_retention(struct apenet_hdb *db, int64_t older_than_ms, struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "deleting old transitions"))
		return -1;
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_RETENTION, e);
	int64_t n = -1;
	if (st) {
		sqlite3_bind_int64(st, 1, older_than_ms);
		if (apenet_db_run(&db->f, st, e, "deleting old transitions") == 0)
			n = sqlite3_changes64(db->f.conn);
	}
	if (apenet_hdb_tx_end(db, own, n >= 0, e))
		return -1;
	return n;
}
