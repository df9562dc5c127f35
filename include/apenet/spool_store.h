/*
 * The agent's report spool as a file (db/spool_store.c): its schema, its
 * statements and its rows, opened, migrated and written in transactions
 * through db/'s sqlite layer like the health database.  The spool's logic
 * (which supervisor waits for what, the byte bound, the counters, what is
 * logged) is snmp/spool.c's, over these calls (include/apenet/spool.h).
 *
 * Every write is made inside apenet_spool_store_begin .. _commit (or
 * _rollback, which undoes all of it).  Errors name the file: "spool PATH: ...".
 */
#ifndef APENET_SPOOL_STORE_H
#define APENET_SPOOL_STORE_H

#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

/* PRAGMA application_id of a spool ("APsp"): a sqlite file without it is
 * someone else's and is never written. */
#define APENET_SPOOL_APP_ID 0x41507370
/* The schema this program writes (PRAGMA user_version). */
#define APENET_SPOOL_SCHEMA 1

struct apenet_spool_store;

/* Opens (or creates) the file, held by this process until closed: WAL,
 * synchronous=NORMAL, locking_mode=EXCLUSIVE, the schema created or
 * upgraded.  A file that is not a spool, a damaged one (PRAGMA
 * quick_check), one of a newer schema or one held by another process
 * (APENET_EBUSY) is refused with an error naming it, and left as it is. */
int apenet_spool_store_open(const char *path, struct apenet_spool_store **out, struct apenet_err *e);
void apenet_spool_store_close(struct apenet_spool_store *d);

int apenet_spool_store_begin(struct apenet_spool_store *d, struct apenet_err *e);
int apenet_spool_store_commit(struct apenet_spool_store *d, struct apenet_err *e);
void apenet_spool_store_rollback(struct apenet_spool_store *d);

/* ---- supervisors (by address; id is their row) ---- */

/* The supervisor at addr, added when the file did not know it: 1 added,
 * 0 known, -1 error; *id and *last_ack_ms (0 never) are its. */
int apenet_spool_store_sup_add(struct apenet_spool_store *d, const char *addr, int64_t *id, int64_t *last_ack_ms,
			       struct apenet_err *e);
/* Marks every event held as pending for supervisor sup; *n: how many. */
int apenet_spool_store_sup_give_all(struct apenet_spool_store *d, int64_t sup, uint64_t *n, struct apenet_err *e);
/* Calls fn for every supervisor in the file with its number of pending
 * events; fn returns 0 to go on, -1 to stop with an error it set in its
 * context (the call then returns -1).  fn may not write the file. */
int apenet_spool_store_sup_each(struct apenet_spool_store *d,
				int (*fn)(void *ctx, int64_t id, const char *addr, uint64_t pending), void *ctx,
				struct apenet_err *e);
/* Removes a supervisor and its marks. */
int apenet_spool_store_sup_remove(struct apenet_spool_store *d, int64_t sup, struct apenet_err *e);
/* Events pending for sup. */
int apenet_spool_store_pending(struct apenet_spool_store *d, int64_t sup, uint64_t *n, struct apenet_err *e);
/* Drops events nobody waits for, and the sequence numbering of boots no
 * event needs (but the newest boot's: its numbering goes on if the agent
 * comes back with the same boot id). */
int apenet_spool_store_tidy(struct apenet_spool_store *d, struct apenet_err *e);
/* The events held: heartbeats, others (transitions), and their sizes. */
int apenet_spool_store_totals(struct apenet_spool_store *d, uint64_t *heartbeats, uint64_t *others,
			      uint64_t *bytes, struct apenet_err *e);

/* ---- events ---- */

/* Stores ev with size (what it counts against the bound), pending for
 * every supervisor.  seq 0 takes the boot's next number, another is
 * recorded as seen (numbers never go back within a boot); *seq_out is the
 * number stored, *id the event's place in the order.  A (boot, sequence)
 * already stored is refused (APENET_EINVAL). */
int apenet_spool_store_put(struct apenet_spool_store *d, const struct apenet_report *ev, uint64_t seq,
			   uint64_t size, uint64_t *seq_out, int64_t *id, struct apenet_err *e);
/* The oldest event pending for sup: 1 (with *ev, *id), 0 none, -1 error. */
int apenet_spool_store_next(struct apenet_spool_store *d, int64_t sup, struct apenet_report *ev, int64_t *id,
			    struct apenet_err *e);
/* Supervisor sup acknowledged event id at now_ms: its mark goes (*unmarked
 * 1 when there was one), and the event with its last mark (*kind and *size
 * of the event removed, *kind 0 when none was); its last_ack_ms is now_ms. */
int apenet_spool_store_ack(struct apenet_spool_store *d, int64_t sup, int64_t id, int64_t now_ms, int *unmarked,
			   int *kind, uint64_t *size, struct apenet_err *e);
/* Supervisor sup's mark on event id goes, nothing else (the spool writing
 * a heartbeat it held in memory that sup acknowledged meanwhile). */
int apenet_spool_store_unmark(struct apenet_spool_store *d, int64_t sup, int64_t id, struct apenet_err *e);
/* Records sup's last acknowledgement at now_ms. */
int apenet_spool_store_sup_acked(struct apenet_spool_store *d, int64_t sup, int64_t now_ms, struct apenet_err *e);
/* Records seq of boot as seen (as a stored event would), so that seq 0
 * never takes a number already sent. */
int apenet_spool_store_seq_seen(struct apenet_spool_store *d, const char *boot, uint64_t seq, int64_t time_ms,
				struct apenet_err *e);
/* The oldest heartbeat: 1 (with *id, *size), 0 none, -1 error. */
int apenet_spool_store_oldest_heartbeat(struct apenet_spool_store *d, int64_t *id, uint64_t *size,
					struct apenet_err *e);
/* Removes event id and its marks; each(ctx, sup) first for every
 * supervisor that was waiting for it. */
int apenet_spool_store_drop(struct apenet_spool_store *d, int64_t id, void (*each)(void *ctx, int64_t sup),
			    void *ctx, struct apenet_err *e);

#endif
