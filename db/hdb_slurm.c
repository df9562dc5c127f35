/*
 * The batch scheduler's actions on incidents (supervisor/slurm.c writes
 * them, the readers show them): one row an action on a node, with its
 * outcome; the latest row of an (incident, node) says whether the
 * incident holds the node drained.
 */
#include <string.h>

#include "apenet/slurm.h"
#include "hdb_int.h"

int apenet_hdb_slurm_add(struct apenet_hdb *db, const struct apenet_hdb_slurm_action *a, struct apenet_err *e)
{
	const char *verb = apenet_slurm_verb_name(a->verb), *outcome = apenet_slurm_outcome_name(a->outcome);
	if (apenet_hdb_writable(db, e, "recording a batch scheduler action") ||
	    apenet_hdb_check_text(db, "action host", a->host, sizeof(a->host), e) ||
	    apenet_hdb_check_text(db, "action message", a->message, sizeof(a->message), e))
		return -1;
	if (!verb[0] || !outcome[0])
		return apenet_err_set(e, APENET_EINVAL, "health db %s: action verb %d or outcome %d unknown", db->f.path,
				      a->verb, a->outcome);
	int own;
	if (apenet_hdb_tx_begin(db, &own, e))
		return -1;
	int ok = 0;
	struct hdb_node *n = apenet_hdb_node_entry(db, a->node, "", e);
	sqlite3_stmt *st = n ? apenet_db_stmt(&db->f, ST_SL_INSERT, e) : NULL;
	if (st) {
		sqlite3_bind_int64(st, 1, a->incident);
		sqlite3_bind_int64(st, 2, n->id);
		apenet_db_bind_text(st, 3, a->host);
		apenet_db_bind_text(st, 4, verb);
		apenet_db_bind_text(st, 5, outcome);
		sqlite3_bind_int(st, 6, apenet_slurm_holds(a->verb, a->outcome));
		apenet_db_bind_text(st, 7, a->message);
		sqlite3_bind_int64(st, 8, a->time_ms);
		ok = apenet_db_run(&db->f, st, e, "recording a batch scheduler action") == 0;
	}
	return apenet_hdb_tx_end(db, own, ok, e);
}

int apenet_hdb_slurm_each(struct apenet_hdb *db, int64_t incident, apenet_hdb_slurm_fn cb, void *arg,
			  struct apenet_err *e)
{
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_SL_EACH, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, incident);
	struct apenet_hdb_slurm_action a;
	char verb[16], outcome[16];
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&a, 0, sizeof(a));
		a.id = sqlite3_column_int64(st, 0);
		a.incident = sqlite3_column_int64(st, 1);
		for (int i = 0; i < 3; i++)
			a.node[i] = (unsigned)sqlite3_column_int(st, 2 + i);
		apenet_db_col_text(st, 5, a.host, sizeof(a.host));
		apenet_db_col_text(st, 6, verb, sizeof(verb));
		apenet_db_col_text(st, 7, outcome, sizeof(outcome));
		a.verb = !strcmp(verb, "drain") ? APENET_SLURM_DRAIN : APENET_SLURM_RESUME;
		a.outcome = apenet_slurm_outcome_of(outcome);
		apenet_db_col_text(st, 8, a.message, sizeof(a.message));
		a.time_ms = sqlite3_column_int64(st, 9);
		if (cb(arg, &a)) {
			rc = SQLITE_DONE;
			break;
		}
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading batch scheduler actions");
	return 0;
}

int apenet_hdb_slurm_held(struct apenet_hdb *db, int64_t incident, unsigned (*out)[3], unsigned max, unsigned *n,
			  struct apenet_err *e)
{
	*n = 0;
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_SL_HELD, e);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, incident);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (*n < max) {
			for (int i = 0; i < 3; i++)
				out[*n][i] = (unsigned)sqlite3_column_int(st, i);
			(*n)++;
		}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading the nodes an incident holds drained");
	return 0;
}

int apenet_hdb_slurm_holder(struct apenet_hdb *db, const unsigned node[3], int64_t except, int64_t *holder,
			    struct apenet_err *e)
{
	*holder = 0;
	sqlite3_stmt *st = apenet_db_reader(&db->f, ST_SL_HOLDER, e);
	if (!st)
		return -1;
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int(st, i + 1, (int)node[i]);
	sqlite3_bind_int64(st, 4, except);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*holder = sqlite3_column_int64(st, 0);
		rc = SQLITE_DONE;
	}
	apenet_db_done(st);
	if (rc != SQLITE_DONE)
		return apenet_db_err(&db->f, e, "reading which incident holds a node drained");
	return 0;
}
