/*
 * The control socket: `apenet agent-status` connects, sends "status\n" and
 * reads one JSON document (schema apenet-diag/2, command "agent-status")
 * until the agent closes.  Everything is non-blocking inside the one poll
 * loop: a client that does not finish within 2 s is dropped, so no client
 * can stall the watchdog's beat.  The socket is mode 0660, the agent's user
 * and group (apenet once root is dropped): a monitoring user reads it as a
 * member of that group (docs/commands/check_apenet.md, local mode).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/agentx.h"
#include "apenet/notify.h"
#include "apenet/log.h"
#include "apenet/out.h"

#define CLIENT_MS 2000

int agent_ctl_open(struct agent *a, struct apenet_err *e)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(a->sock_path, sizeof(a->sock_path), "%s", a->cfg.agent.socket);
	if (strlen(a->sock_path) >= sizeof(sa.sun_path))
		return apenet_err_set(e, APENET_EINVAL, "%s: too long for a unix socket", a->sock_path);
	memcpy(sa.sun_path, a->sock_path, strlen(a->sock_path) + 1);
	char dir[APENET_PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", a->sock_path);
	if (agent_mkdirs(dirname(dir), 0750))
		return apenet_err_set(e, APENET_EIO, "%s: %s", dir, strerror(errno));
	a->lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->lsock < 0)
		return apenet_err_set(e, APENET_EIO, "socket: %s", strerror(errno));
	/* a socket file left by an agent that died: nobody answers on it */
	struct stat st;
	if (lstat(a->sock_path, &st) == 0) {
		int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int alive = probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof(sa)) == 0;
		if (probe >= 0)
			close(probe);
		if (alive || !S_ISSOCK(st.st_mode)) {
			close(a->lsock);
			a->lsock = -1;
			return apenet_err_set(e, APENET_EBUSY, "%s: %s", a->sock_path,
					      alive ? "another agent answers on it (each card's agent needs its own socket)"
						    : "exists and is not a socket");
		}
		unlink(a->sock_path);
	}
	if (bind(a->lsock, (struct sockaddr *)&sa, sizeof(sa)) || listen(a->lsock, AGENT_MAX_CLIENTS)) {
		apenet_err_set(e, APENET_EIO, "%s: %s", a->sock_path, strerror(errno));
		close(a->lsock);
		a->lsock = -1;
		return -1;
	}
	if (chmod(a->sock_path, 0660))
		apenet_log(APENET_LOG_WARN, "%s: chmod 0660: %s", a->sock_path, strerror(errno));
	for (unsigned i = 0; i < AGENT_MAX_CLIENTS; i++)
		a->cl[i].fd = -1;
	return 0;
}

static void client_close(struct agent_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->out);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

void agent_ctl_close(struct agent *a)
{
	for (unsigned i = 0; i < AGENT_MAX_CLIENTS; i++)
		if (a->cl[i].fd >= 0)
			client_close(&a->cl[i]);
	if (a->lsock >= 0) {
		close(a->lsock);
		a->lsock = -1;
		unlink(a->sock_path);
	}
}

/* ---- the status document ---- */

static void out_xyz(struct apenet_out *o, const char *key, const unsigned xyz[3])
{
	apenet_out_strf(o, key, "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
}

static void out_num(struct apenet_out *o, const char *key, double v, int prec)
{
	if (isfinite(v))
		apenet_out_dbl(o, key, v, prec);
	else
		apenet_out_null(o, key);
}

void agent_out_event(struct apenet_out *o, const struct apenet_event *ev)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_uint(o, "seq", ev->seq);
	apenet_out_int(o, "time_ms", ev->time_ms);
	apenet_out_str(o, "kind", ev->kind == APENET_EV_NOTICE ? "notice" : "transition");
	out_xyz(o, "node", ev->node);
	apenet_event_out_change(o, ev);
	out_num(o, "value", ev->value, 3);
	out_num(o, "threshold", ev->threshold, 3);
	apenet_out_str(o, "unit", ev->unit);
	apenet_out_str(o, "path", apenet_path_name(ev->path));
	apenet_out_str(o, "via", ev->via);
	apenet_out_str(o, "message", ev->message);
	apenet_out_str(o, "evidence", ev->evidence);
	apenet_out_obj_end(o);
}

static void write_status(struct agent *a, struct apenet_out *o)
{
	const struct apenet_agent_config *c = &a->cfg.agent;
	int64_t now = apenet_clock_epoch_ms();
	apenet_out_obj_begin(o, "agent");
	apenet_out_int(o, "pid", (int64_t)getpid());
	apenet_out_uint(o, "boot_id", a->boot_id);
	apenet_out_uint(o, "last_seq", a->seq);
	apenet_out_int(o, "started_ms", a->started_ms);
	apenet_out_dbl(o, "uptime_s", (double)(now - a->started_ms) / 1000, 1);
	apenet_out_str(o, "config", a->config_path[0] ? a->config_path : NULL);
	apenet_out_str(o, "config_from", a->config_from);
	apenet_out_uint(o, "reloads", (uint64_t)a->reloads);
	apenet_out_uint(o, "pma_presets", a->presets_applied);
	apenet_out_uint(o, "reload_errors", (uint64_t)a->reload_errors);
	apenet_out_str(o, "last_reload_error", a->reload_error[0] ? a->reload_error : NULL);
	apenet_out_str(o, "bdf", a->smp.dev.bdf);
	apenet_out_str(o, "variant", a->smp.dev.prof->name);
	out_xyz(o, "node", a->xyz);
	apenet_out_str(o, "privileges", a->privileges);
	apenet_out_str(o, "log_level", apenet_log_level_name(apenet_log_get_level()));
	apenet_out_obj_end(o);

	apenet_out_obj_begin(o, "period");
	out_num(o, "period_ms", c->period_ms, 1);
	apenet_out_uint(o, "periods", a->periods);
	apenet_out_uint(o, "overruns", a->overruns);
	apenet_out_uint(o, "missed_periods", a->missed_periods);
	if (a->last_overrun_ms)
		apenet_out_int(o, "last_overrun_ms", a->last_overrun_ms);
	else
		apenet_out_null(o, "last_overrun_ms");
	apenet_out_int(o, "step_us_last", a->step_us_last);
	apenet_out_int(o, "step_us_max", a->step_us_max);
	apenet_out_dbl(o, "step_us_mean", a->periods ? a->step_us_sum / (double)a->periods : 0, 1);
	apenet_out_uint(o, "sample_errors", a->sample_errors);
	/* register reads of the last sample: on a real card each is a PCIe
	 * round trip (~1 us), a cost no emulator figure shows */
	apenet_out_uint(o, "reads_last", apenet_judge_last(&a->judge) ? apenet_judge_last(&a->judge)->reads : 0);
	/* by tiers: the mean a period (module pages included), the most in one
	 * period, and the most without the module pages (docs/design.md) */
	apenet_out_dbl(o, "reads_mean", a->periods ? (double)a->reads_sum / (double)a->periods : 0, 1);
	apenet_out_uint(o, "reads_max", a->reads_max);
	apenet_out_uint(o, "reads_max_regs", a->reads_max_regs);
	out_num(o, "baseline_s", a->judge.long_dt, 1);
	apenet_out_obj_end(o);

	/* APENET-MIB through snmpd: connected, and how often it was read */
	struct apenet_agentx_stats ax;
	apenet_agentx_stats(&ax);
	apenet_out_obj_begin(o, "agentx");
	apenet_out_bool(o, "enabled", a->mib_on);
	apenet_out_bool(o, "connected", ax.connected);
	apenet_out_str(o, "socket", ax.socket[0] ? ax.socket : NULL);
	apenet_out_uint(o, "ping_s", ax.ping_s);
	apenet_out_uint(o, "connects", ax.connects);
	apenet_out_uint(o, "requests", a->mib.requests);
	apenet_out_uint(o, "refreshes", a->mib.refreshes);
	apenet_out_uint(o, "notifications", ax.notifications);
	apenet_out_obj_end(o);

	apenet_out_obj_begin(o, "watchdog");
	apenet_out_obj_begin(o, "host");
	apenet_out_bool(o, "armed", a->wd_armed);
	apenet_out_uint(o, "heartbeat", a->host_hb);
	out_num(o, "period_ms", c->watchdog_period_ms, 1);
	out_num(o, "timeout_beats", c->watchdog_timeout_beats, 0);
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, "dnp");
	apenet_out_str(o, "core", apenet_health_name(a->wd.dnp));
	apenet_out_str(o, "card", apenet_health_name(a->wd.card));
	apenet_out_uint(o, "heartbeat", a->wd.dnp_hb);
	apenet_out_uint(o, "stuck_periods", a->wd.stuck);
	apenet_out_uint(o, "stuck_limit", a->wd.stuck_limit);
	apenet_out_bool(o, "enabled", APENET_GET(WD_STATUS, ENABLED, a->wd.wd_status));
	apenet_out_bool(o, "host_expired", APENET_GET(WD_STATUS, HOST_EXPIRED, a->wd.wd_status));
	apenet_out_uint(o, "missed_beats", APENET_GET(WD_STATUS, MISSED, a->wd.wd_status));
	apenet_out_uint(o, "expire_count", a->wd.expire_count);
	apenet_out_obj_end(o);
	apenet_out_obj_end(o);

	char why[3][200];
	agent_host_why(a, why[0], why[1], why[2], sizeof(why[0]));
	apenet_out_obj_begin(o, "ldm_host");
	apenet_out_strf(o, "word", "0x%08x", a->ldm_host);
	apenet_out_str(o, "service", apenet_health_name(a->service));
	apenet_out_str(o, "service_why", why[0]);
	apenet_out_str(o, "memory", apenet_health_name(a->memory));
	apenet_out_str(o, "memory_why", why[1]);
	apenet_out_str(o, "peripheral", apenet_health_name(a->peripheral));
	apenet_out_str(o, "peripheral_why", why[2]);
	apenet_out_obj_end(o);

	apenet_out_obj_begin(o, "edac");
	apenet_out_bool(o, "present", a->edac.now.present);
	apenet_out_str(o, "root", c->edac_root);
	apenet_out_uint(o, "controllers", a->edac.now.controllers);
	apenet_out_uint(o, "ce", a->edac.now.ce);
	apenet_out_uint(o, "ue", a->edac.now.ue);
	apenet_out_uint(o, "ce_in_window", a->edac.now.ce_window);
	apenet_out_dbl(o, "window_s", a->edac.now.window_s, 0);
	apenet_out_str(o, "absent_because", a->edac.now.present ? NULL : a->edac.error);
	apenet_out_obj_end(o);

	apenet_out_arr_begin(o, "neighbours");
	for (unsigned l = 0; l < a->smp.dev.prof->nlinks; l++) {
		const struct apenet_nbr *n = &a->nbr[l];
		if (!n->known)
			continue;
		unsigned worst = 0;
		for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++)
			worst = n->field[f] > worst ? n->field[f] : worst;
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "link", a->smp.dev.prof->links[l].name);
		out_xyz(o, "node", n->partner);
		apenet_out_strf(o, "ldm", "0x%08x", n->word);
		apenet_out_dbl(o, "age_ms", n->age_ms, 1);
		apenet_out_str(o, "host", apenet_health_name(n->host));
		apenet_out_str(o, "silent", apenet_health_name(n->stale));
		apenet_out_str(o, "invalid", apenet_health_name(n->invalid));
		apenet_out_str(o, "worst_field", apenet_health_name(worst));
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);

	const struct apenet_bbox *b = &a->bbox;
	size_t cnt = apenet_bbox_count(b);
	apenet_out_obj_begin(o, "blackbox");
	apenet_out_uint(o, "samples", cnt);
	apenet_out_dbl(o, "span_s", cnt > 1 ? (double)(apenet_bbox_last_ms(b) - apenet_bbox_first_ms(b)) / 1000 : 0, 1);
	out_num(o, "span_max_s", c->blackbox_span_s, 0);
	apenet_out_uint(o, "bytes_used", b->used);
	apenet_out_uint(o, "bytes_max", b->cap);
	apenet_out_uint(o, "memory_bytes", apenet_bbox_footprint(b));
	apenet_out_dbl(o, "bytes_per_sample", cnt > 1 ? (double)b->used / (double)(cnt - 1) : 0, 0);
	apenet_out_uint(o, "dropped_for_room", b->dropped_memory);
	apenet_out_str(o, "dir", c->blackbox_dir);
	apenet_out_uint(o, "dumps", a->dumps);
	apenet_out_uint(o, "dump_errors", a->dump_errors);
	apenet_out_str(o, "last_dump", a->last_dump[0] ? a->last_dump : NULL);
	apenet_out_uint(o, "last_dump_samples", a->last_dump_samples);
	apenet_out_obj_end(o);

	/* the reports to the supervisors (report.c, snmp/notify.c) */
	struct apenet_notify_status ns;
	memset(&ns, 0, sizeof(ns));
	if (a->notifier)
		apenet_notifier_status(a->notifier, &ns);
	apenet_out_obj_begin(o, "supervisors");
	apenet_out_bool(o, "reporting", a->notifier != NULL);
	apenet_out_uint(o, "configured", a->svc_configured);
	apenet_out_uint(o, "acknowledging", a->svc_acking);
	apenet_out_uint(o, "report_errors", a->report_errors);
	apenet_out_arr_begin(o, "list");
	for (unsigned i = 0; i < ns.nsupervisors; i++) {
		const struct apenet_notify_sup_status *u = &ns.sup[i];
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "address", u->addr);
		apenet_out_str(o, "state", apenet_notifier_state_name(u->state));
		apenet_out_bool(o, "answering", u->answering);
		if (u->last_ack_ms)
			apenet_out_dbl(o, "last_ack_s_ago", (double)(apenet_clock_epoch_ms() - u->last_ack_ms) / 1000, 1);
		else
			apenet_out_null(o, "last_ack_s_ago");
		apenet_out_uint(o, "outstanding", u->outstanding);
		apenet_out_uint(o, "sent", u->sent);
		apenet_out_uint(o, "acked", u->acked);
		apenet_out_uint(o, "unanswered", u->unanswered);
		apenet_out_str(o, "last_error", u->last_error[0] ? u->last_error : NULL);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, "spool");
	if (a->notifier) {
		apenet_out_uint(o, "depth", ns.spool_events);
		apenet_out_uint(o, "transitions", ns.spool_transitions);
		apenet_out_uint(o, "heartbeats", ns.spool_heartbeats);
		apenet_out_uint(o, "bytes", ns.spool_bytes);
		apenet_out_uint(o, "max_bytes", ns.spool_max_bytes);
		apenet_out_uint(o, "heartbeats_dropped", ns.heartbeats_dropped);
	} else {
		apenet_out_null(o, "depth");
		apenet_out_null(o, "bytes");
	}
	apenet_out_obj_end(o);

	apenet_out_obj_begin(o, "events");
	apenet_out_uint(o, "transitions", a->transitions);
	apenet_out_uint(o, "notices", a->notices);
	apenet_out_strf(o, "file", "%s/events.jsonl", c->state_dir);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "raised");
	for (size_t i = 0; i < a->raised.n; i++) {
		const struct apenet_finding *f = &a->raised.f[i];
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "severity", apenet_sev_name(f->sev));
		apenet_out_str(o, "subject", apenet_subject_name(f->subject));
		apenet_out_str(o, "where", f->where);
		apenet_out_str(o, "code", f->code);
		/* what was judged and the limit it crossed: check_apenet's status line */
		out_num(o, "value", f->value, 3);
		out_num(o, "threshold", f->threshold, 3);
		apenet_out_str(o, "unit", f->unit);
		apenet_out_str(o, "message", f->message);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_arr_begin_vertical(o, "transitions");
	for (size_t i = 0; i < a->ev_n; i++)
		agent_out_event(o, &a->events[(a->ev_0 + a->ev_n - 1 - i) % a->ev_cap]); /* newest first */
	apenet_out_arr_end(o);
}

static void answer(struct agent *a, struct agent_client *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		client_close(c);
		return;
	}
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, f, "agent-status");
	c->req[strcspn(c->req, "\r\n")] = 0;
	if (!strcmp(c->req, "status") || !c->req[0]) {
		write_status(a, o);
	} else {
		apenet_out_obj_begin(o, "error");
		apenet_out_str(o, "code", "UNKNOWN_REQUEST");
		apenet_out_strf(o, "message", "unknown request '%s' (known: status)", c->req);
		apenet_out_obj_end(o);
	}
	apenet_out_finish(o);
	fclose(f);
	c->out = buf;
	c->outlen = len;
	c->outoff = 0;
}

void agent_ctl_pollfds(struct agent *a, struct pollfd *fds, unsigned *n, unsigned max)
{
	if (a->lsock >= 0 && *n < max)
		fds[(*n)++] = (struct pollfd){ a->lsock, POLLIN, 0 };
	for (unsigned i = 0; i < AGENT_MAX_CLIENTS && *n < max; i++)
		if (a->cl[i].fd >= 0)
			fds[(*n)++] = (struct pollfd){ a->cl[i].fd, a->cl[i].out ? POLLOUT : POLLIN, 0 };
}

static void accept_all(struct agent *a)
{
	for (;;) {
		int fd = accept4(a->lsock, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		unsigned i = 0;
		while (i < AGENT_MAX_CLIENTS && a->cl[i].fd >= 0)
			i++;
		if (i == AGENT_MAX_CLIENTS) {
			close(fd); /* busy: the client sees the connection closed and tries again */
			continue;
		}
		memset(&a->cl[i], 0, sizeof(a->cl[i]));
		a->cl[i].fd = fd;
		a->cl[i].deadline_ms = apenet_clock_epoch_ms() + CLIENT_MS;
	}
}

static void client_io(struct agent *a, struct agent_client *c, short revents)
{
	if (!c->out && (revents & (POLLIN | POLLHUP | POLLERR))) {
		ssize_t r = read(c->fd, c->req + c->reqlen, sizeof(c->req) - 1 - c->reqlen);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (r > 0)
			c->reqlen += (size_t)r;
		c->req[c->reqlen] = 0;
		if (r > 0 && !strchr(c->req, '\n') && c->reqlen < sizeof(c->req) - 1)
			return; /* the rest of the line is coming */
		answer(a, c);
		if (!c->out)
			return;
	}
	if (c->out) {
		ssize_t w = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (w <= 0) {
			client_close(c);
			return;
		}
		c->outoff += (size_t)w;
		if (c->outoff == c->outlen)
			client_close(c);
	}
}

void agent_ctl_dispatch(struct agent *a, const struct pollfd *fds, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		if (!fds[k].revents)
			continue;
		if (fds[k].fd == a->lsock) {
			accept_all(a);
			continue;
		}
		for (unsigned i = 0; i < AGENT_MAX_CLIENTS; i++)
			if (a->cl[i].fd == fds[k].fd) {
				client_io(a, &a->cl[i], fds[k].revents);
				break;
			}
	}
}

void agent_ctl_expire(struct agent *a, int64_t now_ms)
{
	for (unsigned i = 0; i < AGENT_MAX_CLIENTS; i++)
		if (a->cl[i].fd >= 0 && now_ms > a->cl[i].deadline_ms)
			client_close(&a->cl[i]);
}
