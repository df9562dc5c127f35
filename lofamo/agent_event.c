/*
 * The agent's event record (include/apenet/agent.h) and the tracker that
 * turns the latch's raised findings into transitions.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/agent.h"
#include "apenet/out.h"

const char *apenet_health_name(unsigned h)
{
	static const char *const n[] = { "normal", "sick", "broken", "invalid" };
	return h < 4 ? n[h] : "invalid";
}

unsigned apenet_health_of_sev(enum apenet_sev s)
{
	return s == APENET_SEV_FAIL ? APENET_H_BROKEN : s == APENET_SEV_WARN ? APENET_H_SICK : APENET_H_NORMAL;
}

const char *apenet_path_name(enum apenet_path p)
{
	switch (p) {
	case APENET_PATH_SELF:
		return "self";
	case APENET_PATH_NEIGHBOUR_LDM:
		return "neighbour-ldm";
	case APENET_PATH_WATCHDOG:
		return "watchdog";
	}
	return "?";
}

void apenet_event_init(struct apenet_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = APENET_EV_TRANSITION;
	ev->lane = -1;
	ev->value = NAN;
	ev->threshold = NAN;
}

/* ---- JSON, one line ---- */

void apenet_event_out_change(struct apenet_out *o, const struct apenet_event *ev)
{
	apenet_out_str(o, "subject", ev->subject);
	apenet_out_str(o, "where", ev->where);
	if (ev->lane >= 0)
		apenet_out_int(o, "lane", ev->lane);
	else
		apenet_out_null(o, "lane");
	apenet_out_str(o, "code", ev->code);
	apenet_out_str(o, "old", apenet_health_name(ev->old_status));
	apenet_out_str(o, "new", apenet_health_name(ev->new_status));
}

/* events.jsonl's record: its keys, their order and the numbers' %.10g are
 * what its readers (tests, jq, grep) know. */
int apenet_event_json(const struct apenet_event *ev, char *buf, size_t n)
{
	struct apenet_out *o = apenet_out_mem();
	apenet_out_str(o, "kind", ev->kind == APENET_EV_NOTICE ? "notice" : "transition");
	apenet_out_strf(o, "node", "%u,%u,%u", ev->node[0], ev->node[1], ev->node[2]);
	apenet_out_strf(o, "reporter", "%u,%u,%u", ev->reporter[0], ev->reporter[1], ev->reporter[2]);
	apenet_out_uint(o, "boot_id", ev->boot_id);
	apenet_out_uint(o, "seq", ev->seq);
	apenet_out_int(o, "time_ms", ev->time_ms);
	apenet_event_out_change(o, ev);
	apenet_out_dbl_g(o, "value", ev->value, 10);
	apenet_out_dbl_g(o, "threshold", ev->threshold, 10);
	apenet_out_str(o, "unit", ev->unit);
	apenet_out_str(o, "evidence", ev->evidence);
	apenet_out_str(o, "message", ev->message);
	apenet_out_str(o, "path", apenet_path_name(ev->path));
	apenet_out_str(o, "via", ev->via);
	return apenet_out_mem_finish(o, buf, n);
}

void apenet_event_line(const struct apenet_event *ev, char *buf, size_t n)
{
	char where[48] = "";
	if (ev->where[0] && ev->lane >= 0)
		snprintf(where, sizeof(where), " %s lane %d", ev->where, ev->lane);
	else if (ev->where[0])
		snprintf(where, sizeof(where), " %s", ev->where);
	char via[40] = "";
	if (ev->via[0])
		snprintf(via, sizeof(via), " via %s", ev->via);
	if (ev->kind == APENET_EV_NOTICE)
		snprintf(buf, n, "node %u,%u,%u %s%s %s (%s%s): %s", ev->node[0], ev->node[1], ev->node[2], ev->subject,
			 where, ev->code, apenet_path_name(ev->path), via, ev->message);
	else
		snprintf(buf, n, "node %u,%u,%u %s%s %s %s -> %s (%s%s): %s", ev->node[0], ev->node[1], ev->node[2],
			 ev->subject, where, ev->code, apenet_health_name(ev->old_status),
			 apenet_health_name(ev->new_status), apenet_path_name(ev->path), via, ev->message);
}

/* ---- findings -> transitions ---- */

void apenet_track_init(struct apenet_track *t)
{
	memset(t, 0, sizeof(*t));
}

void apenet_track_free(struct apenet_track *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}

/* The latch's key (lofamo/latch.c): the same finding is the same subject. */
static int same(const struct apenet_finding *a, const struct apenet_finding *b)
{
	return a->subject == b->subject && a->link == b->link && a->lane == b->lane && !strcmp(a->code, b->code) &&
	       !strcmp(a->where, b->where);
}

static void event_of(const struct apenet_finding *f, unsigned old, unsigned now, struct apenet_event *ev)
{
	apenet_event_init(ev);
	snprintf(ev->subject, sizeof(ev->subject), "%s", apenet_subject_name(f->subject));
	/* An agent's locations are links, ports, sensors and BDFs: an event's where holds them. */
	snprintf(ev->where, sizeof(ev->where), "%.*s", (int)sizeof(ev->where) - 1, f->where);
	ev->lane = f->lane;
	snprintf(ev->code, sizeof(ev->code), "%s", f->code);
	ev->old_status = (uint8_t)old;
	ev->new_status = (uint8_t)now;
	ev->value = f->value;
	ev->threshold = f->threshold;
	snprintf(ev->unit, sizeof(ev->unit), "%s", f->unit);
	snprintf(ev->evidence, sizeof(ev->evidence), "%s", f->evidence);
	if (now == APENET_H_NORMAL)
		snprintf(ev->message, sizeof(ev->message), "cleared: %.300s", f->message);
	else
		snprintf(ev->message, sizeof(ev->message), "%s", f->message);
	ev->path = APENET_PATH_SELF;
}

unsigned apenet_track_step(struct apenet_track *t, const struct apenet_findings *raised, struct apenet_event *out,
			   unsigned max)
{
	unsigned n = 0;
	/* gone: reported normal, and forgotten */
	size_t keep = 0;
	for (size_t i = 0; i < t->n; i++) {
		int still = 0;
		for (size_t k = 0; k < raised->n && !still; k++)
			still = same(&t->e[i].f, &raised->f[k]);
		if (!still && n < max) {
			event_of(&t->e[i].f, t->e[i].status, APENET_H_NORMAL, &out[n++]);
			continue;
		}
		t->e[keep++] = t->e[i];
	}
	t->n = keep;
	/* new, or another severity */
	for (size_t k = 0; k < raised->n && n < max; k++) {
		const struct apenet_finding *f = &raised->f[k];
		unsigned h = apenet_health_of_sev(f->sev);
		struct apenet_track_entry *e = NULL;
		for (size_t i = 0; i < t->n && !e; i++)
			if (same(&t->e[i].f, f))
				e = &t->e[i];
		if (!e) {
			if (t->n == t->cap) {
				size_t cap = t->cap ? t->cap * 2 : 16;
				struct apenet_track_entry *ne = realloc(t->e, cap * sizeof(*ne));
				if (!ne)
					break; /* no memory: reported at a later step */
				t->e = ne;
				t->cap = cap;
			}
			e = &t->e[t->n++];
			e->f = *f;
			e->status = APENET_H_NORMAL;
		}
		e->f = *f;
		if (e->status != h) {
			event_of(f, e->status, h, &out[n++]);
			e->status = (uint8_t)h;
		}
	}
	return n;
}
