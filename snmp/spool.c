/*
 * The notifier's spool (include/apenet/spool.h): which supervisor waits for
 * which report, the byte bound, the counters and what is logged.  The file
 * itself (schema, settings, statements) is db/'s (db/spool_store.c,
 * include/apenet/spool_store.h), opened and written through the same sqlite
 * layer as the health database.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/log.h"
#include "apenet/report_pdu.h"
#include "apenet/spool.h"
#include "apenet/spool_store.h"

struct apenet_spool {
	struct apenet_spool_store *db;
	char path[APENET_PATH_MAX];
	unsigned nsup;
	int64_t sup_id[APENET_NOTIFY_MAX_SUPERVISORS]; /* rowid in table supervisor */
	uint64_t outstanding[APENET_NOTIFY_MAX_SUPERVISORS];
	int64_t last_ack_ms[APENET_NOTIFY_MAX_SUPERVISORS];
	uint64_t events, transitions, heartbeats, bytes, max_bytes;
	uint64_t dropped;          /* since open */
	uint64_t episode_dropped;  /* in the current stretch over the bound */
	int over_with_transitions; /* logged that only transitions are left over the bound */
};

/* The supervisors the file knows that are no longer configured, gathered
 * while the file lists them and removed after (a table is not changed
 * under its own running SELECT). */
struct spool_gone {
	struct apenet_spool *s;
	int64_t *id;
	size_t n;
	struct apenet_err *e;
};

static int apenet_spool_gone(void *ctx, int64_t id, const char *addr, uint64_t pending)
{
	struct spool_gone *g = ctx;
	for (unsigned i = 0; i < g->s->nsup; i++)
		if (g->s->sup_id[i] == id)
			return 0;
	int64_t *d = realloc(g->id, (g->n + 1) * sizeof(*g->id));
	if (!d)
		return apenet_err_set(g->e, APENET_EIO, "spool %s: out of memory", g->s->path);
	g->id = d;
	g->id[g->n++] = id;
	apenet_log(APENET_LOG_NOTICE,
		   "spool %s: supervisor %s is no longer configured: its %llu unacknowledged reports are dropped for it",
		   g->s->path, addr, (unsigned long long)pending);
	return 0;
}

/* Maps the configured supervisors onto the spool's: new ones get every
 * event held, ones no longer configured lose their marks. */
static int apenet_spool_sync_sups(struct apenet_spool *s, const char *const *sup, unsigned nsup,
				  struct apenet_err *e)
{
	struct spool_gone gone = { .s = s, .e = e };
	if (apenet_spool_store_begin(s->db, e))
		return -1;
	for (unsigned i = 0; i < nsup; i++) {
		int added = apenet_spool_store_sup_add(s->db, sup[i], &s->sup_id[i], &s->last_ack_ms[i], e);
		if (added < 0)
			goto fail;
		uint64_t n = 0;
		if (added && apenet_spool_store_sup_give_all(s->db, s->sup_id[i], &n, e))
			goto fail;
		if (n)
			apenet_log(APENET_LOG_NOTICE, "spool %s: new supervisor %s receives the %llu reports held",
				   s->path, sup[i], (unsigned long long)n);
	}
	if (apenet_spool_store_sup_each(s->db, apenet_spool_gone, &gone, e))
		goto fail;
	for (size_t k = 0; k < gone.n; k++)
		if (apenet_spool_store_sup_remove(s->db, gone.id[k], e))
			goto fail;
	if (apenet_spool_store_tidy(s->db, e))
		goto fail;
	for (unsigned i = 0; i < nsup; i++)
		if (apenet_spool_store_pending(s->db, s->sup_id[i], &s->outstanding[i], e))
			goto fail;
	if (apenet_spool_store_commit(s->db, e))
		goto fail;
	free(gone.id);
	return 0;
fail:
	free(gone.id);
	apenet_spool_store_rollback(s->db);
	return -1;
}

int apenet_spool_open(const char *path, const char *const *sup, unsigned nsup, uint64_t max_bytes,
		      struct apenet_spool **out, struct apenet_err *e)
{
	*out = NULL;
	if (!path || !*path)
		return apenet_err_set(e, APENET_EINVAL, "spool: no path");
	if (strlen(path) >= APENET_PATH_MAX)
		return apenet_err_set(e, APENET_EINVAL, "spool: path too long");
	if (nsup > APENET_NOTIFY_MAX_SUPERVISORS)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: %u supervisors, at most %d", path, nsup,
				      APENET_NOTIFY_MAX_SUPERVISORS);
	struct apenet_spool *s = calloc(1, sizeof(*s));
	if (!s)
		return apenet_err_set(e, APENET_EIO, "spool %s: out of memory", path);
	snprintf(s->path, sizeof(s->path), "%s", path);
	s->nsup = nsup;
	s->max_bytes = max_bytes;
	if (apenet_spool_store_open(path, &s->db, e) || apenet_spool_sync_sups(s, sup, nsup, e) ||
	    apenet_spool_store_totals(s->db, &s->heartbeats, &s->transitions, &s->bytes, e)) {
		apenet_spool_close(s);
		return -1;
	}
	s->events = s->heartbeats + s->transitions;
	apenet_log(APENET_LOG_INFO, "spool %s: %llu reports held (%llu bytes)", path, (unsigned long long)s->events,
		   (unsigned long long)s->bytes);
	*out = s;
	return 0;
}

void apenet_spool_close(struct apenet_spool *s)
{
	if (!s)
		return;
	apenet_spool_store_close(s->db);
	free(s);
}

uint64_t apenet_spool_event_size(const struct apenet_report *ev)
{
	return 64 + strnlen(ev->node, sizeof(ev->node)) + strnlen(ev->boot, sizeof(ev->boot)) +
	       strnlen(ev->where, sizeof(ev->where)) + strnlen(ev->code, sizeof(ev->code)) +
	       strnlen(ev->unit, sizeof(ev->unit)) + strnlen(ev->evidence, sizeof(ev->evidence)) +
	       strnlen(ev->via, sizeof(ev->via));
}

/* A supervisor that was waiting for a dropped event waits for one less. */
static void apenet_spool_unwait(void *ctx, int64_t sid)
{
	struct apenet_spool *s = ctx;
	for (unsigned i = 0; i < s->nsup; i++)
		if (s->sup_id[i] == sid && s->outstanding[i])
			s->outstanding[i]--;
}

/* The byte bound: oldest heartbeats first, transitions never. */
static int apenet_spool_bound(struct apenet_spool *s, struct apenet_err *e)
{
	uint64_t n = 0, bytes = 0;
	while (s->bytes > s->max_bytes) {
		int64_t id = 0;
		uint64_t size = 0;
		int r = apenet_spool_store_oldest_heartbeat(s->db, &id, &size, e);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		if (apenet_spool_store_drop(s->db, id, apenet_spool_unwait, s, e))
			return -1;
		s->events--;
		s->heartbeats--;
		s->bytes -= size;
		n++;
		bytes += size;
	}
	if (n) {
		s->dropped += n;
		/* One line when the spool first goes over, not one a second. */
		if (!s->episode_dropped)
			apenet_log(APENET_LOG_WARN,
				   "spool %s: over its bound of %llu bytes: dropping the oldest heartbeats (%llu so "
				   "far, %llu bytes); transitions are never dropped",
				   s->path, (unsigned long long)s->max_bytes, (unsigned long long)n,
				   (unsigned long long)bytes);
		s->episode_dropped += n;
	}
	if (s->bytes > s->max_bytes) {
		if (!s->over_with_transitions)
			apenet_log(APENET_LOG_WARN,
				   "spool %s: %llu bytes in %llu transitions, over its bound of %llu bytes: no "
				   "heartbeat left to drop, and transitions are never dropped",
				   s->path, (unsigned long long)s->bytes, (unsigned long long)s->transitions,
				   (unsigned long long)s->max_bytes);
		s->over_with_transitions = 1;
	}
	return 0;
}

/* Called when the spool went below its bound again. */
static void apenet_spool_episode_end(struct apenet_spool *s)
{
	if (s->bytes > s->max_bytes)
		return;
	if (s->episode_dropped)
		apenet_log(APENET_LOG_NOTICE, "spool %s: back within its bound; %llu heartbeats were dropped", s->path,
			   (unsigned long long)s->episode_dropped);
	s->episode_dropped = 0;
	s->over_with_transitions = 0;
}

int apenet_spool_add(struct apenet_spool *s, struct apenet_report *ev, int64_t *id, struct apenet_err *e)
{
	/* Only what an INFORM can carry: a report stored is a report that can
	 * be sent (include/apenet/report_pdu.h). */
	if (apenet_report_check(ev, e))
		return -1;
	uint64_t size = apenet_spool_event_size(ev);
	uint64_t seq = 0;
	int64_t rowid = 0;
	if (apenet_spool_store_begin(s->db, e))
		return -1;
	if (apenet_spool_store_put(s->db, ev, ev->seq, size, &seq, &rowid, e))
		goto fail;
	/* Counters move with the transaction: on failure they are restored. */
	uint64_t saved[5] = { s->events, s->transitions, s->heartbeats, s->bytes, s->dropped };
	uint64_t saved_out[APENET_NOTIFY_MAX_SUPERVISORS];
	memcpy(saved_out, s->outstanding, sizeof(saved_out));
	s->events++;
	if (ev->kind == APENET_REPORT_HEARTBEAT)
		s->heartbeats++;
	else
		s->transitions++;
	s->bytes += size;
	for (unsigned i = 0; i < s->nsup; i++)
		s->outstanding[i]++;
	if (apenet_spool_bound(s, e) || apenet_spool_store_commit(s->db, e)) {
		s->events = saved[0];
		s->transitions = saved[1];
		s->heartbeats = saved[2];
		s->bytes = saved[3];
		s->dropped = saved[4];
		memcpy(s->outstanding, saved_out, sizeof(saved_out));
		goto fail;
	}
	ev->seq = seq;
	if (id)
		*id = rowid;
	return 0;
fail:
	apenet_spool_store_rollback(s->db);
	return -1;
}

int apenet_spool_next(struct apenet_spool *s, unsigned sup, struct apenet_report *ev, int64_t *id,
		      struct apenet_err *e)
{
	if (sup >= s->nsup)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: no supervisor %u", s->path, sup);
	return apenet_spool_store_next(s->db, s->sup_id[sup], ev, id, e);
}

int apenet_spool_ack(struct apenet_spool *s, unsigned sup, int64_t id, int64_t now_ms, struct apenet_err *e)
{
	if (sup >= s->nsup)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: no supervisor %u", s->path, sup);
	int unmarked = 0, kind = 0;
	uint64_t size = 0;
	if (apenet_spool_store_begin(s->db, e))
		return -1;
	if (apenet_spool_store_ack(s->db, s->sup_id[sup], id, now_ms, &unmarked, &kind, &size, e) ||
	    apenet_spool_store_commit(s->db, e)) {
		apenet_spool_store_rollback(s->db);
		return -1;
	}
	s->last_ack_ms[sup] = now_ms;
	if (unmarked && s->outstanding[sup])
		s->outstanding[sup]--;
	if (kind) {
		s->events--;
		s->bytes -= size;
		if (kind == APENET_REPORT_HEARTBEAT)
			s->heartbeats--;
		else
			s->transitions--;
		apenet_spool_episode_end(s);
	}
	return 0;
}

void apenet_spool_stats(const struct apenet_spool *s, struct apenet_spool_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = s->events;
	st->transitions = s->transitions;
	st->heartbeats = s->heartbeats;
	st->bytes = s->bytes;
	st->max_bytes = s->max_bytes;
	st->dropped = s->dropped;
	st->nsup = s->nsup;
	for (unsigned i = 0; i < s->nsup; i++) {
		st->outstanding[i] = s->outstanding[i];
		st->last_ack_ms[i] = s->last_ack_ms[i];
	}
}
