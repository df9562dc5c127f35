/*
 * The notifier's spool (include/apenet/spool.h): which supervisor waits for
 * which report, the byte bound, the counters and what is logged.  The file
 * itself (schema, settings, statements) is db/'s (db/spool_store.c,
 * include/apenet/spool_store.h), opened and written through the same sqlite
 * layer as the health database.
 *
 * What reaches the file when (docs/agent.md "The spool"):
 *   - a transition (and any report numbered by the spool) is committed to
 *     the file before apenet_spool_add returns, so before its INFORM goes:
 *     a killed agent resends it;
 *   - a heartbeat numbered by the agent is first held in memory, sent from
 *     there, and forgotten when every supervisor acknowledged it (the
 *     steady state: no write at all).  One that a supervisor still waits
 *     for is written with the next report added (before it, in the same
 *     transaction: the order holds) or when the spool closes.  A killed
 *     agent loses at most its newest heartbeat, which a later one
 *     supersedes anyway;
 *   - acknowledgements of held heartbeats reach the file's last_ack_ms at
 *     most ack_write_ms late; acknowledgements of stored events are
 *     committed at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/log.h"
#include "apenet/report_pdu.h"
#include "apenet/spool.h"
#include "apenet/spool_store.h"

/* The newest heartbeat while it is only in memory. */
struct spool_hot {
	int held;
	struct apenet_report ev;
	int64_t id;   /* as next and ack know it: negative, never a rowid */
	uint64_t size;
	unsigned char pending[APENET_NOTIFY_MAX_SUPERVISORS];
};

/* last_ack_ms of held heartbeats' acknowledgements reaches the file at most
 * this late (a restarted agent counts the time since its last ack from it) */
#define SPOOL_ACK_WRITE_MS 10000

struct apenet_spool {
	struct apenet_spool_store *db;
	struct spool_hot hot;
	int64_t next_hot_id;        /* -1, -2, ...  */
	int64_t written_hot_id, written_rowid; /* the last held heartbeat written, under both ids */
	char seen_boot[40];         /* the number of the last heartbeat forgotten */
	uint64_t seen_seq;          /* unwritten: 0 when written */
	int64_t seen_ms;
	int ack_dirty[APENET_NOTIFY_MAX_SUPERVISORS];
	int64_t ack_written_ms;
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
	s->next_hot_id = -1;
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

/* Inside a transaction: what memory holds that the file must get: the
 * held heartbeat if a supervisor still waits for it (pending for those
 * only), the number of the last one forgotten, the acknowledgement times. */
static int apenet_spool_write_behind(struct apenet_spool *s, struct apenet_err *e)
{
	struct spool_hot *h = &s->hot;
	if (s->seen_seq && apenet_spool_store_seq_seen(s->db, s->seen_boot, s->seen_seq, s->seen_ms, e))
		return -1;
	s->seen_seq = 0;
	if (h->held) {
		uint64_t seq = 0;
		int64_t rowid = 0;
		if (apenet_spool_store_put(s->db, &h->ev, h->ev.seq, h->size, &seq, &rowid, e))
			return -1;
		for (unsigned i = 0; i < s->nsup; i++)
			if (!h->pending[i] && apenet_spool_store_unmark(s->db, s->sup_id[i], rowid, e))
				return -1;
		s->written_hot_id = h->id;
		s->written_rowid = rowid;
		h->held = 0;
	}
	for (unsigned i = 0; i < s->nsup; i++)
		if (s->ack_dirty[i]) {
			if (apenet_spool_store_sup_acked(s->db, s->sup_id[i], s->last_ack_ms[i], e))
				return -1;
			s->ack_dirty[i] = 0;
		}
	return 0;
}

void apenet_spool_close(struct apenet_spool *s)
{
	if (!s)
		return;
	int dirty = s->hot.held || s->seen_seq;
	for (unsigned i = 0; i < s->nsup; i++)
		dirty |= s->ack_dirty[i];
	if (s->db && dirty) {
		struct apenet_err e = { 0 };
		if (apenet_spool_store_begin(s->db, &e) || apenet_spool_write_behind(s, &e) ||
		    apenet_spool_store_commit(s->db, &e)) {
			apenet_spool_store_rollback(s->db);
			apenet_log(APENET_LOG_ERR, "spool %s: closing: %s", s->path, e.msg);
		}
	}
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

/* A heartbeat numbered by the agent, kept in memory (see the top). */
static int apenet_spool_hold(struct apenet_spool *s, struct apenet_report *ev, uint64_t size, int64_t *id,
			     struct apenet_err *e)
{
	struct spool_hot *h = &s->hot;
	if (h->held) {
		/* the previous one, still awaited by someone (a supervisor
		 * away): to the file, under the byte bound */
		if (apenet_spool_store_begin(s->db, e))
			return -1;
		struct spool_hot saved = *h;
		uint64_t saved_n[4] = { s->events, s->heartbeats, s->bytes, s->dropped };
		uint64_t saved_out[APENET_NOTIFY_MAX_SUPERVISORS];
		memcpy(saved_out, s->outstanding, sizeof(saved_out));
		if (apenet_spool_write_behind(s, e) || apenet_spool_bound(s, e) || apenet_spool_store_commit(s->db, e)) {
			*h = saved;
			s->events = saved_n[0];
			s->heartbeats = saved_n[1];
			s->bytes = saved_n[2];
			s->dropped = saved_n[3];
			memcpy(s->outstanding, saved_out, sizeof(saved_out));
			apenet_spool_store_rollback(s->db);
			return -1;
		}
	}
	h->held = 1;
	h->ev = *ev;
	h->size = size;
	h->id = s->next_hot_id--;
	for (unsigned i = 0; i < s->nsup; i++) {
		h->pending[i] = 1;
		s->outstanding[i]++;
	}
	s->events++;
	s->heartbeats++;
	s->bytes += size;
	if (id)
		*id = h->id;
	return 0;
}

int apenet_spool_add(struct apenet_spool *s, struct apenet_report *ev, int64_t *id, struct apenet_err *e)
{
	/* Only what an INFORM can carry: a report stored is a report that can
	 * be sent (include/apenet/report_pdu.h). */
	if (apenet_report_check(ev, e))
		return -1;
	uint64_t size = apenet_spool_event_size(ev);
	if (ev->kind == APENET_REPORT_HEARTBEAT && ev->seq && s->nsup)
		return apenet_spool_hold(s, ev, size, id, e);
	uint64_t seq = 0;
	int64_t rowid = 0;
	if (apenet_spool_store_begin(s->db, e))
		return -1;
	/* Memory's state moves with the transaction: on failure it is restored. */
	struct spool_hot saved_hot = s->hot;
	uint64_t saved_seen = s->seen_seq;
	int saved_dirty[APENET_NOTIFY_MAX_SUPERVISORS];
	memcpy(saved_dirty, s->ack_dirty, sizeof(saved_dirty));
	/* what memory held goes first: it is older */
	if (apenet_spool_write_behind(s, e) || apenet_spool_store_put(s->db, ev, ev->seq, size, &seq, &rowid, e))
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
	s->hot = saved_hot;
	s->seen_seq = saved_seen;
	memcpy(s->ack_dirty, saved_dirty, sizeof(saved_dirty));
	apenet_spool_store_rollback(s->db);
	return -1;
}

int apenet_spool_next(struct apenet_spool *s, unsigned sup, struct apenet_report *ev, int64_t *id,
		      struct apenet_err *e)
{
	if (sup >= s->nsup)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: no supervisor %u", s->path, sup);
	/* the counts say when the file has nothing for sup: no query */
	if (!s->outstanding[sup])
		return 0;
	const struct spool_hot *h = &s->hot;
	int hot = h->held && h->pending[sup];
	if (hot && s->outstanding[sup] == 1) {
		*ev = h->ev;
		*id = h->id;
		return 1;
	}
	int r = apenet_spool_store_next(s->db, s->sup_id[sup], ev, id, e);
	if (r == 0 && hot) {
		*ev = h->ev;
		*id = h->id;
		return 1;
	}
	return r;
}

/* An acknowledgement of the heartbeat held in memory: no write, unless the
 * last time one reached the file is SPOOL_ACK_WRITE_MS ago. */
static int apenet_spool_ack_held(struct apenet_spool *s, unsigned sup, int64_t now_ms, struct apenet_err *e)
{
	struct spool_hot *h = &s->hot;
	s->last_ack_ms[sup] = now_ms;
	s->ack_dirty[sup] = 1;
	if (h->pending[sup]) {
		h->pending[sup] = 0;
		if (s->outstanding[sup])
			s->outstanding[sup]--;
		int waited = 0;
		for (unsigned i = 0; i < s->nsup; i++)
			waited |= h->pending[i];
		if (!waited) {
			/* everyone has it: it never needs the file, but its
			 * number does (seq 0 must not take it again) */
			h->held = 0;
			snprintf(s->seen_boot, sizeof(s->seen_boot), "%s", h->ev.boot);
			s->seen_seq = h->ev.seq;
			s->seen_ms = h->ev.time_ms;
			s->events--;
			s->heartbeats--;
			s->bytes -= h->size;
			apenet_spool_episode_end(s);
		}
	}
	if (now_ms - s->ack_written_ms < SPOOL_ACK_WRITE_MS)
		return 0;
	s->ack_written_ms = now_ms;
	int dirty[APENET_NOTIFY_MAX_SUPERVISORS];
	memcpy(dirty, s->ack_dirty, sizeof(dirty));
	if (apenet_spool_store_begin(s->db, e))
		return -1;
	for (unsigned i = 0; i < s->nsup; i++)
		if (s->ack_dirty[i]) {
			if (apenet_spool_store_sup_acked(s->db, s->sup_id[i], s->last_ack_ms[i], e))
				goto fail;
			s->ack_dirty[i] = 0;
		}
	if (apenet_spool_store_commit(s->db, e))
		goto fail;
	return 0;
fail:
	memcpy(s->ack_dirty, dirty, sizeof(dirty));
	apenet_spool_store_rollback(s->db);
	return -1;
}

int apenet_spool_ack(struct apenet_spool *s, unsigned sup, int64_t id, int64_t now_ms, struct apenet_err *e)
{
	if (sup >= s->nsup)
		return apenet_err_set(e, APENET_EINVAL, "spool %s: no supervisor %u", s->path, sup);
	if (s->hot.held && id == s->hot.id)
		return apenet_spool_ack_held(s, sup, now_ms, e);
	if (id < 0 && id == s->written_hot_id)
		id = s->written_rowid; /* held when it was sent, in the file since */
	else if (id < 0) {
		/* a held heartbeat forgotten since: a late duplicate */
		s->last_ack_ms[sup] = now_ms;
		s->ack_dirty[sup] = 1;
		return 0;
	}
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
	s->ack_dirty[sup] = 0;
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

uint64_t apenet_spool_outstanding(const struct apenet_spool *s, unsigned sup)
{
	return sup < s->nsup ? s->outstanding[sup] : 0;
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
