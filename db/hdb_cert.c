/*
 * Cable certificates (`apenet qualify` writes them, `apenet cable` reads
 * them): one row a qualification of a link, keyed to its cable.
 */
#include <string.h>

#include "hdb_int.h"

static int cert_verdict_ok(const char *v)
{
	return !strcmp(v, "pass") || !strcmp(v, "fail") || !strcmp(v, "inconclusive");
}

int apenet_hdb_cert_put(struct apenet_hdb *db, const struct apenet_hdb_cert *c, int64_t *id, struct apenet_err *e)
{
	if (apenet_hdb_writable(db, e, "storing a certificate") ||
	    apenet_hdb_check_text(db, "certificate serial", c->serial, sizeof(c->serial), e) ||
	    apenet_hdb_check_text(db, "certificate link", c->link, sizeof(c->link), e) ||
	    apenet_hdb_check_text(db, "certificate far link", c->far_link, sizeof(c->far_link), e) ||
	    apenet_hdb_check_text(db, "certificate pattern", c->pattern, sizeof(c->pattern), e) ||
	    apenet_hdb_check_text(db, "certificate verdict", c->verdict, sizeof(c->verdict), e) ||
	    apenet_hdb_check_text(db, "certificate pma_near", c->pma_near, sizeof(c->pma_near), e) ||
	    apenet_hdb_check_text(db, "certificate pma_far", c->pma_far, sizeof(c->pma_far), e) ||
	    apenet_hdb_check_text(db, "certificate lanes", c->lanes, sizeof(c->lanes), e))
		return -1;
	if (!c->serial[0] || !cert_verdict_ok(c->verdict))
		return apenet_err_set(e, APENET_EINVAL, "health db %s: a certificate needs a serial and a verdict "
							"(pass, fail, inconclusive), not '%s'",
				      db->f.path, c->verdict);
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	struct hdb_node *n = apenet_hdb_node_entry(db, c->node, "", e), *f = NULL;
	if (n && c->has_far)
		f = apenet_hdb_node_entry(db, c->far, "", e);
	sqlite3_stmt *st = n && (f || !c->has_far) ? apenet_db_stmt(&db->f, ST_CERT_INSERT, e) : NULL;
	int ok = st != NULL;
	if (ok) {
		apenet_db_bind_text(st, 1, c->serial);
		sqlite3_bind_int64(st, 2, n->id);
		apenet_db_bind_text(st, 3, c->link);
		if (f) {
			sqlite3_bind_int64(st, 4, f->id);
			apenet_db_bind_text(st, 5, c->far_link);
		} else {
			sqlite3_bind_null(st, 4);
			sqlite3_bind_null(st, 5);
		}
		apenet_db_bind_text(st, 6, c->pattern);
		apenet_db_bind_double(st, 7, c->target);
		apenet_db_bind_double(st, 8, c->cl);
		apenet_db_bind_text(st, 9, c->verdict);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)c->bits);
		sqlite3_bind_int64(st, 11, (sqlite3_int64)c->errors);
		apenet_db_bind_double(st, 12, c->upper);
		apenet_db_bind_double(st, 13, c->lower);
		sqlite3_bind_int(st, 14, c->swept);
		apenet_db_bind_text(st, 15, c->pma_near);
		apenet_db_bind_text(st, 16, c->pma_far);
		apenet_db_bind_text(st, 17, c->lanes);
		sqlite3_bind_int64(st, 18, c->started_ms);
		sqlite3_bind_int64(st, 19, c->finished_ms);
		ok = apenet_db_run(&db->f, st, e, "storing a certificate") == 0;
		if (ok && id)
			*id = sqlite3_last_insert_rowid(db->f.conn);
	}
	return apenet_hdb_tx_end(db, own, ok, e);
}

int apenet_hdb_certs_each(struct apenet_hdb *db, const char *serial, apenet_hdb_cert_fn cb, void *arg,
			  struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_CERT_EACH, e);
	if (!st)
		return -1;
	apenet_db_bind_text(st, 1, serial);
	static struct apenet_hdb_cert c; /* 3 KB: not on a caller's stack */
	int rc, stop = 0;
	while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&c, 0, sizeof(c));
		c.id = sqlite3_column_int64(st, 0);
		apenet_db_col_text(st, 1, c.serial, sizeof(c.serial));
		for (int i = 0; i < 3; i++)
			c.node[i] = (unsigned)sqlite3_column_int64(st, 2 + i);
		apenet_db_col_text(st, 5, c.link, sizeof(c.link));
		c.has_far = sqlite3_column_int(st, 6);
		for (int i = 0; i < 3; i++)
			c.far[i] = (unsigned)sqlite3_column_int64(st, 7 + i);
		apenet_db_col_text(st, 10, c.far_link, sizeof(c.far_link));
		apenet_db_col_text(st, 11, c.pattern, sizeof(c.pattern));
		c.target = apenet_db_col_double(st, 12);
		c.cl = apenet_db_col_double(st, 13);
		apenet_db_col_text(st, 14, c.verdict, sizeof(c.verdict));
		c.bits = (uint64_t)sqlite3_column_int64(st, 15);
		c.errors = (uint64_t)sqlite3_column_int64(st, 16);
		c.upper = apenet_db_col_double(st, 17);
		c.lower = apenet_db_col_double(st, 18);
		c.swept = sqlite3_column_int(st, 19);
		apenet_db_col_text(st, 20, c.pma_near, sizeof(c.pma_near));
		apenet_db_col_text(st, 21, c.pma_far, sizeof(c.pma_far));
		apenet_db_col_text(st, 22, c.lanes, sizeof(c.lanes));
		c.started_ms = sqlite3_column_int64(st, 23);
		c.finished_ms = sqlite3_column_int64(st, 24);
		stop = cb(arg, &c);
	}
	apenet_db_done(st);
	if (!stop && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading certificates");
	return 0;
}
