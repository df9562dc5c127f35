/*
 * The one loop: poll over the period's timerfd, a signalfd (SIGTERM,
 * SIGINT, SIGHUP, SIGUSR1) and the control socket with its clients.  No
 * threads, no sleeps: the timerfd wakes the loop every period, and whatever
 * else has work to do has a descriptor.  The SNMP notifier will add its
 * descriptors beside the socket's (see "more descriptors" below).
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/log.h"
#include "apenet/notify.h"

int agent_timer_arm(struct agent *a)
{
	long long ns = llround(a->cfg.agent.period_ms * 1e6);
	struct itimerspec it = { { (time_t)(ns / 1000000000), (long)(ns % 1000000000) },
				 { (time_t)(ns / 1000000000), (long)(ns % 1000000000) } };
	return timerfd_settime(a->tfd, 0, &it, NULL);
}

/* A SIGHUP: the file again.  A bad file changes nothing (its error, with
 * file:line:column, is logged); settings that only take effect at start
 * keep their values in force until a restart. */
void agent_reload(struct agent *a)
{
	struct apenet_config n;
	struct apenet_err e = { 0 };
	if (!a->config_path[0]) {
		apenet_log(APENET_LOG_NOTICE, "reload: no config file (running on the defaults): nothing to read");
		return;
	}
	if (apenet_config_load(a->config_path, &n, &e)) {
		a->reload_errors++;
		snprintf(a->reload_error, sizeof(a->reload_error), "%s", e.msg);
		apenet_log(APENET_LOG_ERR, "reload: %s; the settings in force stay", e.msg);
		return;
	}
	/* what takes effect at start (the table's at_start rows) keeps the
	 * value in force */
	const struct apenet_config_table *t = apenet_config_table_find("agent");
	for (size_t i = 0; i < t->n; i++) {
		const struct apenet_config_desc *d = &t->rows[i];
		if (!d->at_start || !apenet_config_differs(&n.agent, &a->cfg.agent, d))
			continue;
		if (d->is_str)
			apenet_log(APENET_LOG_NOTICE, "reload: %s '%s' takes effect when the agent restarts ('%s' stays)",
				   d->key, apenet_config_str(&n.agent, d), apenet_config_str(&a->cfg.agent, d));
		else
			apenet_log(APENET_LOG_NOTICE, "reload: %s %g takes effect when the agent restarts (%g stays)", d->key,
				   apenet_config_num(&n.agent, d), apenet_config_num(&a->cfg.agent, d));
		apenet_config_copy(&n.agent, &a->cfg.agent, d);
	}
	double old_period = a->cfg.agent.period_ms;
	apenet_config_free(&a->cfg);
	a->cfg = n;
	const struct apenet_agent_config *c = &a->cfg.agent;
	apenet_log_set_level(apenet_log_level_parse(c->log_level));
	if (c->period_ms != old_period && agent_timer_arm(a))
		apenet_log(APENET_LOG_ERR, "reload: timerfd: %s", strerror(errno));
	a->wd.stuck_limit = (unsigned)c->dnp_stuck_periods;
	if (apenet_judge_reconfigure(&a->judge, &e))
		apenet_log(APENET_LOG_ERR, "reload: %s (the baseline ring in force stays)", e.msg);
	if (agent_bbox_apply(a, &e))
		apenet_log(APENET_LOG_ERR, "reload: black box: %s (the ring in force stays)", e.msg);
	if (agent_events_resize(a))
		apenet_log(APENET_LOG_ERR, "reload: no memory for %g events", c->events_keep);
	if (!a->card_gone)
		agent_card_setup(a);
	a->reloads++;
	apenet_log(APENET_LOG_NOTICE, "reloaded %s: period %g ms, watchdog %g ms x %g beats", a->config_path, c->period_ms,
		   c->watchdog_period_ms, c->watchdog_timeout_beats);
}

static void on_timer(struct agent *a)
{
	uint64_t exp = 0;
	if (read(a->tfd, &exp, sizeof(exp)) != (ssize_t)sizeof(exp))
		return;
	int64_t now = apenet_clock_epoch_ms();
	if (exp > 1) {
		/* late: the loop missed a period (a slow step, or the host did not
		 * run us); counted, and logged at most every 10 s */
		a->overruns++;
		a->missed_periods += exp - 1;
		a->last_overrun_ms = now;
		if (now - a->last_overrun_log_ms >= 10000) {
			apenet_log(APENET_LOG_WARN, "late by %llu periods of %g ms (%llu late periods, %llu periods missed so far)",
				   (unsigned long long)(exp - 1), a->cfg.agent.period_ms, (unsigned long long)a->overruns,
				   (unsigned long long)a->missed_periods);
			a->last_overrun_log_ms = now;
		}
	}
	agent_period(a);
	agent_mib_period(a);
	now = apenet_clock_epoch_ms();
	agent_report_heartbeat(a, now);
	/* the acknowledgements of the last tick's reports, resends due */
	if (agent_report_at_tick(a))
		agent_report_tick(a);
	if (a->dump_wanted && now - a->last_dump_ms >= (int64_t)(a->cfg.agent.blackbox_holdoff_s * 1000)) {
		a->dump_wanted = 0;
		agent_dump(a, a->dump_reason);
	}
	agent_ctl_expire(a, now);
}

static void on_signal(struct agent *a)
{
	struct signalfd_siginfo si;
	while (read(a->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			apenet_log(APENET_LOG_NOTICE, "%s: stopping", strsignal((int)si.ssi_signo));
			a->stop = 1;
			break;
		case SIGHUP:
			agent_reload(a);
			break;
		case SIGUSR1:
			agent_dump(a, "SIGUSR1");
			break;
		default:
			break;
		}
	}
}

int agent_loop(struct agent *a)
{
	enum { MAXFDS = 2 + 1 + AGENT_MAX_CLIENTS + 16 + APENET_NOTIFY_MAX_FDS + 8 };
	while (!a->stop) {
		struct pollfd fds[MAXFDS];
		unsigned n = 0;
		fds[n++] = (struct pollfd){ a->tfd, POLLIN, 0 };
		fds[n++] = (struct pollfd){ a->sfd, POLLIN, 0 };
		unsigned ctl0 = n;
		agent_ctl_pollfds(a, fds, &n, MAXFDS);
		/* the notifier's, after the socket's, with its next resend as the
		 * timeout; none when it is served at the period's tick */
		unsigned rep0 = n;
		int timeout = -1;
		int at_tick = agent_report_at_tick(a);
		if (!at_tick)
			agent_report_pollfds(a, fds, &n, MAXFDS, &timeout);
		unsigned mib0 = n;
		agent_mib_pollfds(a, fds, &n, MAXFDS, &timeout);
		if (poll(fds, n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			apenet_log(APENET_LOG_ERR, "poll: %s", strerror(errno));
			return -1;
		}
		if (fds[1].revents)
			on_signal(a);
		if (a->stop)
			break;
		if (fds[0].revents)
			on_timer(a);
		agent_ctl_dispatch(a, fds + ctl0, rep0 - ctl0);
		/* Served from this poll only when its descriptors were in it: a
		 * dispatch without them would run net-snmp's timeouts before
		 * reading the acknowledgements waiting in the sockets (after the
		 * host stopped us, every INFORM looks timed out).  A backlog that
		 * began in this pass (on_timer's reports) is served now, reading
		 * first. */
		if (!at_tick)
			agent_report_dispatch(a, fds + rep0, mib0 - rep0);
		else if (!agent_report_at_tick(a))
			agent_report_tick(a);
		agent_mib_dispatch(a, fds + mib0, n - mib0);
	}
	return 0;
}
