/*
 * Reading the nodes: the cluster summary, the node list worst first, one
 * node, its current states and its links with both ends' status.
 */
#include <string.h>

#include "hdb_int.h"

int apenet_hdb_summary(struct apenet_hdb *db, int64_t now_ms, int64_t silence_ms, struct apenet_hdb_summary *s,
		       struct apenet_err *e)
{
	memset(s, 0, sizeof(*s));
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_SUMMARY, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now_ms - silence_ms);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		s->nodes = (unsigned)sqlite3_column_int64(st, 0);
		s->normal = (unsigned)sqlite3_column_int64(st, 1);
		s->sick = (unsigned)sqlite3_column_int64(st, 2);
		s->broken = (unsigned)sqlite3_column_int64(st, 3);
		s->silent = (unsigned)sqlite3_column_int64(st, 4);
		s->torus_only = (unsigned)sqlite3_column_int64(st, 5);
		s->outside_layout = (unsigned)sqlite3_column_int64(st, 6);
		s->last_recv_ms = sqlite3_column_int64(st, 7);
	}
	apenet_db_done(st);
	if (rc != SQLITE_ROW)
		return apenet_db_err(&db->f, e, "summing up the nodes");
	if (!(st = apenet_db_reader(&db->f, ST_OPEN_COUNT, e)))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		s->open_incidents = (unsigned)sqlite3_column_int64(st, 0);
	apenet_db_done(st);
	if (rc != SQLITE_ROW)
		return apenet_db_err(&db->f, e, "counting open incidents");
	return 0;
}

int apenet_hdb_open_incidents(struct apenet_hdb *db, unsigned *n, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_OPEN_COUNT, e);
	if (!st)
		return -1;
	int rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? (unsigned)sqlite3_column_int64(st, 0) : 0;
	apenet_db_done(st);
	if (rc != SQLITE_ROW)
		return apenet_db_err(&db->f, e, "counting open incidents");
	return 0;
}

/* One row of NODE_COLS (hdb_sql.c). */
static void hdb_node_row(sqlite3_stmt *st, struct apenet_hdb_node *n)
{
	memset(n, 0, sizeof(*n));
	n->x = (unsigned)sqlite3_column_int64(st, 0);
	n->y = (unsigned)sqlite3_column_int64(st, 1);
	n->z = (unsigned)sqlite3_column_int64(st, 2);
	apenet_db_col_text(st, 3, n->name, sizeof(n->name));
	n->in_layout = sqlite3_column_int(st, 4);
	apenet_db_col_text(st, 5, n->boot, sizeof(n->boot));
	n->self_ms = sqlite3_column_int64(st, 6);
	n->self_recv_ms = sqlite3_column_int64(st, 7);
	n->torus_ms = sqlite3_column_int64(st, 8);
	n->torus_recv_ms = sqlite3_column_int64(st, 9);
	n->hb_seq = (uint64_t)sqlite3_column_int64(st, 10);
	n->hb_ms = sqlite3_column_int64(st, 11);
	n->hb_recv_ms = sqlite3_column_int64(st, 12);
	n->ldm = (uint32_t)sqlite3_column_int64(st, 13);
	apenet_db_col_text(st, 14, n->summary, sizeof(n->summary));
	n->worst = sqlite3_column_int(st, 15);
	n->changed_ms = sqlite3_column_int64(st, 16);
	n->cls = sqlite3_column_int(st, 17);
}

int apenet_hdb_nodes_each(struct apenet_hdb *db, int64_t now_ms, int64_t silence_ms, size_t limit,
			  apenet_hdb_node_fn cb, void *arg, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_NODES_EACH, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now_ms - silence_ms);
	sqlite3_bind_int64(st, 2, limit && limit < INT64_MAX ? (int64_t)limit : -1);
	struct apenet_hdb_node n;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		hdb_node_row(st, &n);
		if (cb(arg, &n)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "listing the nodes");
	return 0;
}

int apenet_hdb_node_get(struct apenet_hdb *db, const unsigned xyz[3], int64_t now_ms, int64_t silence_ms,
			struct apenet_hdb_node *out, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_NODE_GET, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now_ms - silence_ms);
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int64(st, 2 + i, xyz[i]);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		hdb_node_row(st, out);
	apenet_db_done(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading a node");
	return rc == SQLITE_ROW;
}

int apenet_hdb_node_states_each(struct apenet_hdb *db, const unsigned xyz[3], int min_status, apenet_hdb_state_fn cb,
				void *arg, struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_STATES_EACH, e);
	if (!st)
		return -1;
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int64(st, 1 + i, xyz[i]);
	sqlite3_bind_int(st, 4, min_status);
	struct apenet_hdb_state s;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&s, 0, sizeof(s));
		memcpy(s.node, xyz, sizeof(s.node));
		for (int i = 0; i < 3; i++)
			s.reporter[i] = (unsigned)sqlite3_column_int64(st, i);
		apenet_db_col_text(st, 3, s.boot, sizeof(s.boot));
		s.seq = (uint64_t)sqlite3_column_int64(st, 4);
		s.subject = sqlite3_column_int(st, 5);
		apenet_db_col_text(st, 6, s.where, sizeof(s.where));
		apenet_db_col_text(st, 7, s.code, sizeof(s.code));
		s.status = sqlite3_column_int(st, 8);
		s.path = sqlite3_column_int(st, 9);
		apenet_db_col_text(st, 10, s.via, sizeof(s.via));
		s.time_ms = sqlite3_column_int64(st, 11);
		if (cb(arg, &s)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading a node's states");
	return 0;
}

int apenet_hdb_links_each(struct apenet_hdb *db, const unsigned xyz[3], apenet_hdb_link_fn cb, void *arg,
			  struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_LINKS_EACH, e);
	if (!st)
		return -1;
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int64(st, 1 + i, xyz[i]);
	struct apenet_hdb_link l;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&l, 0, sizeof(l));
		memcpy(l.node, xyz, sizeof(l.node));
		apenet_db_col_text(st, 0, l.name, sizeof(l.name));
		for (int i = 0; i < 3; i++)
			l.partner[i] = (unsigned)sqlite3_column_int64(st, 1 + i);
		apenet_db_col_text(st, 4, l.partner_name, sizeof(l.partner_name));
		apenet_db_col_text(st, 5, l.partner_link, sizeof(l.partner_link));
		l.status = sqlite3_column_int(st, 6);
		l.partner_status = sqlite3_column_int(st, 7);
		if (cb(arg, &l)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading a node's links");
	return 0;
}
