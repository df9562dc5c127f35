/*
 * The notifier's spool: the reports a supervisor has not acknowledged yet,
 * in a sqlite file (WAL, one writer, bound statements only, schema version
 * in PRAGMA user_version with migrations; docs/agent.md).  The file is
 * db/'s (include/apenet/spool_store.h); this is the spool's logic.
 *
 * An event is stored once with one "pending" mark per supervisor; an
 * acknowledgement removes that supervisor's mark, and the event goes when
 * no mark is left.  Each supervisor receives its events in the order they
 * were added.  Past the byte bound the oldest heartbeats are dropped;
 * transitions never are.  The file is held exclusively while open, so a
 * second agent on the same spool is refused rather than interleaved.
 */
#ifndef APENET_SPOOL_H
#define APENET_SPOOL_H

#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

struct apenet_spool;

struct apenet_spool_stats {
	uint64_t events, transitions, heartbeats;
	uint64_t bytes;                 /* the events' sizes (apenet_spool_event_size) */
	uint64_t max_bytes;
	uint64_t dropped;               /* heartbeats dropped for the bound since open */
	unsigned nsup;
	uint64_t outstanding[APENET_NOTIFY_MAX_SUPERVISORS];
	int64_t last_ack_ms[APENET_NOTIFY_MAX_SUPERVISORS];
};

/* sup[0..nsup) are the supervisors' addresses, the spool's names for them:
 * a supervisor the spool did not know receives everything it holds; one it
 * knew that is no longer listed loses its marks (logged).  A corrupt file,
 * a file that is not a spool, one of a newer schema or one held by another
 * process is refused with an error that says so, and is not written. */
int apenet_spool_open(const char *path, const char *const *sup, unsigned nsup, uint64_t max_bytes,
		      struct apenet_spool **out, struct apenet_err *e);
void apenet_spool_close(struct apenet_spool *s);

/* Stores ev, pending for every supervisor; *id (may be NULL) is its place
 * in the order.  ev->seq 0 gets the boot's next number.  Then applies the
 * byte bound.  A heartbeat with its seq set is held in memory instead (*id
 * negative): forgotten when every supervisor acknowledged it, written with
 * the next event added (before it) or at close while one still waits
 * (snmp/spool.c). */
int apenet_spool_add(struct apenet_spool *s, struct apenet_report *ev, int64_t *id, struct apenet_err *e);
/* The oldest event supervisor sup has not acknowledged: 1 (with *ev, *id),
 * 0 when there is none, -1 on error. */
int apenet_spool_next(struct apenet_spool *s, unsigned sup, struct apenet_report *ev, int64_t *id,
		      struct apenet_err *e);
/* Supervisor sup acknowledged event id at now_ms (epoch): its mark goes,
 * and the event with its last mark.  An id that is not pending (dropped
 * meanwhile) is no error.  0 or -1. */
int apenet_spool_ack(struct apenet_spool *s, unsigned sup, int64_t id, int64_t now_ms, struct apenet_err *e);
void apenet_spool_stats(const struct apenet_spool *s, struct apenet_spool_stats *st);
/* What supervisor sup has not acknowledged yet (events). */
uint64_t apenet_spool_outstanding(const struct apenet_spool *s, unsigned sup);
/* What one event counts against the bound: its texts and 64 bytes for
 * the numbers. */
uint64_t apenet_spool_event_size(const struct apenet_report *ev);

#endif
