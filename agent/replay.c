/*
 * apenet-agent --replay FILE: a recorded stream (a black box, an `apenet
 * snapshot` file) through the agent's own judge and transitions, with the
 * thresholds of --config: what this agent would have held and reported,
 * sample by sample.  For tuning thresholds against a recorded incident, and
 * the agent's side of tests/e2e/judge_replay.sh (the four tools agree).
 * No card, no socket, no reports: transitions go to the document only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "apenet/esc.h"
#include "apenet/out.h"

static int replay_sample(void *arg, const struct apenet_judge *j, unsigned index)
{
	struct agent *a = arg;
	const struct apenet_sample *s = apenet_judge_last(j);
	unsigned me = (unsigned)s->snap.g.NODE_COORD;
	a->xyz[0] = APENET_GET(NODE_COORD, X, me);
	a->xyz[1] = APENET_GET(NODE_COORD, Y, me);
	a->xyz[2] = APENET_GET(NODE_COORD, Z, me);
	a->ev_time_ms = s->host_ms;
	uint64_t seq0 = a->seq;
	agent_judged(a);
	struct apenet_out *o = apenet_out_new(a->opt.json ? APENET_OUT_JSON : APENET_OUT_TEXT, stdout, "replay");
	apenet_out_uint(o, "sample", index);
	apenet_out_int(o, "host_time_ms", s->host_ms);
	apenet_out_arr_begin(o, "events");
	/* the ring holds the newest events_keep; a sample makes far fewer */
	size_t n = (size_t)(a->seq - seq0) < a->ev_n ? (size_t)(a->seq - seq0) : a->ev_n;
	for (size_t i = a->ev_n - n; i < a->ev_n; i++)
		agent_out_event(o, &a->events[(a->ev_0 + i) % a->ev_cap]);
	apenet_out_arr_end(o);
	apenet_findings_write(o, &j->held);
	if (apenet_out_finish(o))
		return -1;
	if (!a->opt.json)
		fputc('\n', stdout);
	return 0;
}

int agent_replay(struct agent *a, const char *file)
{
	struct apenet_err e = { 0 };
	int rc = 2;
	if (apenet_judge_init(&a->judge, &a->cfg, &e)) {
		apenet_esc_text_line(stderr, "apenet-agent", e.msg);
		return 2;
	}
	apenet_findings_init(&a->raised);
	apenet_track_init(&a->track);
	if (a->cfg.agent.events_keep < 64)
		a->cfg.agent.events_keep = 64;
	if (agent_events_resize(a)) {
		fprintf(stderr, "apenet-agent: out of memory\n");
		goto out;
	}
	if (apenet_judge_replay(&a->judge, file, replay_sample, a, &e)) {
		apenet_esc_text_line(stderr, "apenet-agent", e.msg);
		goto out;
	}
	rc = fflush(stdout) ? 2 : 0;
out:
	apenet_judge_free(&a->judge);
	apenet_findings_free(&a->raised);
	apenet_track_free(&a->track);
	free(a->events);
	a->events = NULL;
	return rc;
}
