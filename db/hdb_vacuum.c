/*
 * Vacuum: the file rebuilt to its smallest size once retention has deleted
 * much (`apenet db vacuum`).  VACUUM cannot run inside a transaction, so
 * the cached node times are written first, in one of their own.
 */
#include "hdb_int.h"

int apenet_hdb_vacuum(struct apenet_hdb *db, struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "vacuum"))
		return -1;
	if (db->in_batch)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: vacuum inside a batch", db->f.path);
	if (apenet_hdb_flush(db, e))
		return -1;
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_VACUUM, e);
	return st ? apenet_db_run(&db->f, st, e, "vacuum") : -1;
}
