/*
 * Every event the agent produces goes through agent_emit, the one place
 * that stamps it (node, reporter, boot id, sequence, time) and hands it on:
 *   - the log, at notice (syslog, or stderr with --foreground);
 *   - the last events_keep of them, for agent-status;
 *   - state_dir/events.jsonl, one JSON object a line (tests and tools read
 *     it; rotated to events.jsonl.1 past events_max_mib);
 *   - the notifier hook (SNMP INFORMs to the supervisors), when one is set;
 *   - a transition to sick or broken asks for a black-box dump.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/log.h"

int agent_events_open(struct agent *a)
{
	char path[APENET_PATH_MAX + 32];
	struct stat st;
	snprintf(path, sizeof(path), "%s/events.jsonl", a->cfg.agent.state_dir);
	a->events_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (a->events_fd < 0) {
		apenet_log(APENET_LOG_ERR, "%s: %s: events are logged, not kept in a file", path, strerror(errno));
		return -1;
	}
	a->events_bytes = fstat(a->events_fd, &st) == 0 ? st.st_size : 0;
	return 0;
}

/* The ring of the last events_keep; resized (newest kept) after a reload. */
int agent_events_resize(struct agent *a)
{
	size_t cap = (size_t)a->cfg.agent.events_keep;
	if (cap == a->ev_cap)
		return 0;
	struct apenet_event *n = calloc(cap, sizeof(*n));
	if (!n)
		return -1;
	size_t keep = a->ev_n < cap ? a->ev_n : cap;
	for (size_t i = 0; i < keep; i++)
		n[i] = a->events[(a->ev_0 + a->ev_n - keep + i) % a->ev_cap];
	free(a->events);
	a->events = n;
	a->ev_cap = cap;
	a->ev_n = keep;
	a->ev_0 = 0;
	return 0;
}

static void rotate(struct agent *a)
{
	char path[APENET_PATH_MAX + 32], old[APENET_PATH_MAX + 40];
	snprintf(path, sizeof(path), "%s/events.jsonl", a->cfg.agent.state_dir);
	snprintf(old, sizeof(old), "%s.1", path);
	close(a->events_fd);
	a->events_fd = -1;
	if (rename(path, old))
		apenet_log(APENET_LOG_WARN, "%s: cannot rotate: %s", path, strerror(errno));
	agent_events_open(a);
}

static void to_file(struct agent *a, const struct apenet_event *ev)
{
	char line[2048];
	int n = apenet_event_json(ev, line, sizeof(line) - 1);
	if (n < 0 || a->events_fd < 0)
		return;
	line[n++] = '\n';
	if (a->events_bytes + n > (int64_t)(a->cfg.agent.events_max_mib * 1024 * 1024))
		rotate(a);
	if (a->events_fd < 0)
		return;
	ssize_t w = write(a->events_fd, line, (size_t)n);
	if (w != n) {
		apenet_log(APENET_LOG_WARN, "events.jsonl: %s", w < 0 ? strerror(errno) : "short write");
		return;
	}
	a->events_bytes += n;
}

void agent_emit(struct agent *a, struct apenet_event *ev)
{
	if (ev->path != APENET_PATH_NEIGHBOUR_LDM)
		memcpy(ev->node, a->xyz, sizeof(ev->node));
	memcpy(ev->reporter, a->xyz, sizeof(ev->reporter));
	ev->boot_id = a->boot_id;
	ev->seq = ++a->seq;
	if (!ev->time_ms)
		ev->time_ms = a->ev_time_ms ? a->ev_time_ms : apenet_clock_epoch_ms();
	char line[1024];
	apenet_event_line(ev, line, sizeof(line));
	apenet_log(ev->kind == APENET_EV_TRANSITION && ev->new_status == APENET_H_BROKEN ? APENET_LOG_WARN
											    : APENET_LOG_NOTICE,
		   "%s", line);
	if (ev->kind == APENET_EV_TRANSITION)
		a->transitions++;
	else
		a->notices++;
	if (a->ev_cap) {
		if (a->ev_n == a->ev_cap) {
			a->ev_0 = (a->ev_0 + 1) % a->ev_cap;
			a->ev_n--;
		}
		a->events[(a->ev_0 + a->ev_n++) % a->ev_cap] = *ev;
	}
	to_file(a, ev);
	if (a->notify)
		a->notify(a->notify_ctx, ev);
	agent_mib_event(a, ev);
	if (ev->kind == APENET_EV_TRANSITION && ev->new_status != APENET_H_NORMAL && ev->new_status != ev->old_status &&
	    !a->dump_wanted) {
		a->dump_wanted = 1;
		snprintf(a->dump_reason, sizeof(a->dump_reason), "%s %s %s", ev->code, ev->where[0] ? ev->where : ev->subject,
			 apenet_health_name(ev->new_status));
	}
}
