/*
 * Storing the agents' reports: transitions (a row each, once per boot and
 * sequence, and the current state they set) and heartbeats (the node's one
 * latest-heartbeat row).
 *
 * The boot id "x,y,z#N" names the reporting agent: node x,y,z in its N-th
 * run.  A boot replaces the reporter's previous one when its N is larger or
 * its report is later than anything heard from the previous one (either
 * suffices: N restarts when an agent loses its state directory, a clock may
 * step back over a reboot).  The states the previous boot reported are
 * then forgotten: the new agent starts from "all normal" and reports again
 * whatever is still wrong.
 */
#include <stdio.h>
#include <string.h>

#include "hdb_int.h"

enum { BOOT_OLDER, BOOT_CURRENT, BOOT_NEWER };

static int hdb_boot_rank(const struct hdb_node *rep, const char *boot, uint64_t gen, int64_t t)
{
	if (!strcmp(rep->boot, boot))
		return BOOT_CURRENT;
	if (!rep->boot[0] || gen > rep->gen || t > rep->boot_ms)
		return BOOT_NEWER;
	return BOOT_OLDER;
}

/* The reporter's current boot becomes boot: what its previous boot said is
 * forgotten. */
static int hdb_boot_adopt(struct apenet_hdb *db, struct hdb_node *rep, const char *boot, uint64_t gen, int64_t t,
			  struct apenet_err *e)
{
	if (apenet_hdb_cache_touch(db, rep, e))
		return -1;
	if (rep->boot[0]) {
		sqlite3_stmt *purge = apenet_db_stmt(&db->f, ST_STATE_PURGE, e);
		if (!purge)
			return -1;
		sqlite3_bind_int64(purge, 1, rep->id);
		apenet_db_bind_text(purge, 2, boot);
		if (apenet_db_run(&db->f, purge, e, "forgetting the states of a previous boot"))
			return -1;
	}
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_BOOT, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, rep->id);
	apenet_db_bind_text(st, 2, boot);
	if (apenet_db_run(&db->f, st, e, "storing a node's new boot"))
		return -1;
	snprintf(rep->boot, sizeof(rep->boot), "%s", boot);
	rep->gen = gen;
	rep->boot_ms = t;
	rep->hb_current = 0;
	return 0;
}

static int hdb_check_report(struct apenet_hdb *db, const struct apenet_report *r, unsigned rep[3], uint64_t *gen,
			    struct apenet_err *e)
{
	if (r->kind != APENET_REPORT_HEALTH && r->kind != APENET_REPORT_HEARTBEAT)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: report kind %d is neither health nor heartbeat",
				      db->f.path, (int)r->kind);
	if (apenet_hdb_check_text(db, "report node name", r->node, sizeof(r->node), e) ||
	    apenet_hdb_check_text(db, "report boot id", r->boot, sizeof(r->boot), e) ||
	    apenet_hdb_check_text(db, "report where", r->where, sizeof(r->where), e) ||
	    apenet_hdb_check_text(db, "report code", r->code, sizeof(r->code), e) ||
	    apenet_hdb_check_text(db, "report unit", r->unit, sizeof(r->unit), e) ||
	    apenet_hdb_check_text(db, "report evidence", r->evidence, sizeof(r->evidence), e) ||
	    apenet_hdb_check_text(db, "report via", r->via, sizeof(r->via), e))
		return -1;
	if (apenet_report_boot_parse(r->boot, rep, gen))
		return apenet_err_set(e, APENET_EINVAL, "health db %s: boot id '%s' does not name its reporter (x,y,z#N)",
				      db->f.path, r->boot);
	if (r->seq == 0 || r->seq > INT64_MAX)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: report %s: sequence %llu out of range 1..2^63-1",
				      db->f.path, r->boot, (unsigned long long)r->seq);
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		if (rep[0] != r->x || rep[1] != r->y || rep[2] != r->z)
			return apenet_err_set(e, APENET_EINVAL,
					      "health db %s: heartbeat %s seq %llu is about node %u,%u,%u: a heartbeat "
					      "is about its sender",
					      db->f.path, r->boot, (unsigned long long)r->seq, r->x, r->y, r->z);
		return 0;
	}
	if (r->old_status < 0 || r->old_status > 3 || r->new_status < 0 || r->new_status > 3)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: report %s seq %llu: status %d -> %d out of range 0..3",
				      db->f.path, r->boot, (unsigned long long)r->seq, r->old_status, r->new_status);
	if (r->path < APENET_REPORT_PATH_SELF || r->path > APENET_REPORT_PATH_WATCHDOG)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: report %s seq %llu: path %d out of range 1..3",
				      db->f.path, r->boot, (unsigned long long)r->seq, (int)r->path);
	if (r->subject < APENET_REPORT_SUBJ_BOARD || r->subject > APENET_REPORT_SUBJ_HOST)
		return apenet_err_set(e, APENET_EINVAL, "health db %s: report %s seq %llu: subject %d out of range 1..7",
				      db->f.path, r->boot, (unsigned long long)r->seq, (int)r->subject);
	return 0;
}

static int hdb_put_transition(struct apenet_hdb *db, const struct apenet_report *r, const unsigned repxyz[3],
			      uint64_t gen, int64_t recv_ms, int *stored, struct apenet_err *e)
{
	unsigned xyz[3] = { r->x, r->y, r->z };
	struct hdb_node *about = apenet_hdb_node_entry(db, xyz, r->node, e);
	struct hdb_node *rep = about ? apenet_hdb_node_entry(db, repxyz, "", e) : NULL;
	if (!rep)
		return -1;
	sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_TR_INSERT, e);
	if (!st)
		return -1;
	apenet_db_bind_text(st, 1, r->boot);
	sqlite3_bind_int64(st, 2, (int64_t)r->seq);
	sqlite3_bind_int64(st, 3, rep->id);
	sqlite3_bind_int64(st, 4, about->id);
	sqlite3_bind_int(st, 5, r->subject);
	apenet_db_bind_text(st, 6, r->where);
	apenet_db_bind_text(st, 7, r->code);
	sqlite3_bind_int(st, 8, r->old_status);
	sqlite3_bind_int(st, 9, r->new_status);
	apenet_db_bind_double(st, 10, r->value);
	apenet_db_bind_double(st, 11, r->threshold);
	apenet_db_bind_text(st, 12, r->unit);
	apenet_db_bind_text(st, 13, r->evidence);
	sqlite3_bind_int(st, 14, r->path);
	apenet_db_bind_text(st, 15, r->via);
	sqlite3_bind_int64(st, 16, r->time_ms);
	sqlite3_bind_int64(st, 17, recv_ms);
	if (apenet_db_run(&db->f, st, e, "storing a transition"))
		return -1;
	if (sqlite3_changes(db->f.conn) == 0) {
		db->stats.duplicates++;
		return 0; /* this boot and sequence is stored already */
	}
	int rank = hdb_boot_rank(rep, r->boot, gen, r->time_ms);
	if (rank == BOOT_NEWER && hdb_boot_adopt(db, rep, r->boot, gen, r->time_ms, e))
		return -1;
	if (rank == BOOT_CURRENT && r->time_ms > rep->boot_ms) {
		if (apenet_hdb_cache_touch(db, rep, e))
			return -1;
		rep->boot_ms = r->time_ms;
	}
	if (rank != BOOT_OLDER) {
		int clear = r->new_status == 0;
		if (!(st = apenet_db_stmt(&db->f, clear ? ST_STATE_CLEAR : ST_STATE_UPSERT, e)))
			return -1;
		sqlite3_bind_int64(st, 1, about->id);
		sqlite3_bind_int64(st, 2, rep->id);
		sqlite3_bind_int(st, 3, r->subject);
		apenet_db_bind_text(st, 4, r->where);
		apenet_db_bind_text(st, 5, r->code);
		if (clear) {
			apenet_db_bind_text(st, 6, r->boot);
			sqlite3_bind_int64(st, 7, (int64_t)r->seq);
		} else {
			sqlite3_bind_int(st, 6, r->new_status);
			apenet_db_bind_text(st, 7, r->boot);
			sqlite3_bind_int64(st, 8, (int64_t)r->seq);
			sqlite3_bind_int(st, 9, r->path);
			apenet_db_bind_text(st, 10, r->via);
			sqlite3_bind_int64(st, 11, r->time_ms);
		}
		if (apenet_db_run(&db->f, st, e, "updating a current state"))
			return -1;
	} else {
		db->stats.stale++;
	}
	/* The reporter spoke on the service network, whatever its boot; for a
	 * neighbour's LDM the node it is about was heard through the torus. */
	if (apenet_hdb_cache_touch(db, rep, e))
		return -1;
	if (r->time_ms > rep->self_ms)
		rep->self_ms = r->time_ms;
	if (recv_ms > rep->self_recv_ms)
		rep->self_recv_ms = recv_ms;
	if (apenet_hdb_seen_changed(db, rep, e))
		return -1;
	if (r->path == APENET_REPORT_PATH_NEIGHBOUR_LDM) {
		if (apenet_hdb_cache_touch(db, about, e))
			return -1;
		if (r->time_ms > about->torus_ms)
			about->torus_ms = r->time_ms;
		if (recv_ms > about->torus_recv_ms)
			about->torus_recv_ms = recv_ms;
		if (apenet_hdb_seen_changed(db, about, e))
			return -1;
	}
	db->stats.transitions++;
	*stored = 1;
	return 0;
}

static int hdb_put_heartbeat(struct apenet_hdb *db, const struct apenet_report *r, uint64_t gen, int64_t recv_ms,
			     int *stored, struct apenet_err *e)
{
	unsigned xyz[3] = { r->x, r->y, r->z };
	struct hdb_node *n = apenet_hdb_node_entry(db, xyz, r->node, e);
	if (!n)
		return -1;
	int rank = hdb_boot_rank(n, r->boot, gen, r->time_ms);
	if (rank == BOOT_OLDER || (rank == BOOT_CURRENT && n->has_hb && n->hb_current && r->seq <= n->hb_seq)) {
		db->stats.heartbeats_ignored++;
		return 0;
	}
	if (rank == BOOT_NEWER && hdb_boot_adopt(db, n, r->boot, gen, r->time_ms, e))
		return -1;
	int news = rank == BOOT_NEWER || !n->has_hb || !n->hb_current || n->ldm != r->ldm;
	if (apenet_hdb_cache_touch(db, n, e))
		return -1;
	if (r->time_ms > n->boot_ms)
		n->boot_ms = r->time_ms;
	if (r->time_ms > n->self_ms)
		n->self_ms = r->time_ms;
	if (recv_ms > n->self_recv_ms)
		n->self_recv_ms = recv_ms;
	n->has_hb = 1;
	n->hb_current = 1;
	n->hb_seq = r->seq;
	n->hb_ms = r->time_ms;
	n->hb_recv_ms = recv_ms;
	n->ldm = r->ldm;
	if (news) {
		/* A new boot or word is written with its batch, times and all. */
		sqlite3_stmt *st = apenet_db_stmt(&db->f, ST_NODE_HB_NEWS, e);
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, n->id);
		apenet_db_bind_text(st, 2, r->boot);
		sqlite3_bind_int64(st, 3, r->ldm);
		apenet_db_bind_text(st, 4, r->evidence);
		if (apenet_db_run(&db->f, st, e, "storing a heartbeat") || apenet_hdb_seen_write(db, n, e))
			return -1;
	} else if (apenet_hdb_seen_changed(db, n, e)) {
		return -1;
	}
	db->stats.heartbeats++;
	*stored = 1;
	return 0;
}

int apenet_hdb_put_report(struct apenet_hdb *db, const struct apenet_report *r, int64_t recv_ms, int *stored,
			  struct apenet_err *e)
{
	int ignored;
	if (!stored)
		stored = &ignored;
	*stored = 0;
	unsigned rep[3];
	uint64_t gen;
	if (apenet_hdb_writable(db, e, "storing a report") || hdb_check_report(db, r, rep, &gen, e))
		return -1;
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	int rc = r->kind == APENET_REPORT_HEALTH ? hdb_put_transition(db, r, rep, gen, recv_ms, stored, e)
						 : hdb_put_heartbeat(db, r, gen, recv_ms, stored, e);
	if (rc)
		*stored = 0;
	return apenet_hdb_tx_end(db, own, rc == 0, e);
}
