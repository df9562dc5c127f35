/*
 * The one loop: poll over the tick's timerfd, a signalfd (TERM, INT, HUP)
 * and the listening socket.  A readable socket is drained (up to a batch's
 * worth); the batch is committed when it is full, when its oldest report
 * waited batch_max_ms (the poll timeout says when), and at every tick, when
 * the deduction also looks at the time.
 *
 * While a batch is open the socket is left out of the poll when its buffer
 * can hold the wait (s->gather, recv.c): what arrives gathers there and is
 * read when the batch is due (at most SUP_GATHER_MAX_MS after the last
 * read), a few recvmmsg calls for the whole batch.  Read as it arrived,
 * 32,768 nodes a second woke the daemon thousands of times a second for a
 * few datagrams each, and the wake-ups were most of what its CPU share
 * varied with (docs/supervisor.md, "Load").  The oldest report still waits
 * at most batch_max_ms before its batch commits, and a batch never holds
 * more than batch_max_events.  No sleeps; net-snmp's own timers
 * (a listening session has none to speak of; the AgentX subagent's ping
 * has) run after every poll, and the AgentX session's descriptors join the
 * poll when the cluster tables are served.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/clock.h"
#include "apenet/agentx.h"
#include "apenet/log.h"
#include "sup.h"

static void on_signals(struct sup *s)
{
	struct signalfd_siginfo si;
	while (read(s->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			s->reload = 1;
		else
			s->stop = 1;
	}
}

/* Transitions past retention_days go, once an hour (and at start). */
static void retention(struct sup *s, int64_t mono)
{
	if (mono < s->next_retention_mono)
		return;
	s->next_retention_mono = mono + 3600 * 1000;
	if (s->cfg.svr.retention_days <= 0)
		return;
	struct apenet_err e = { 0 };
	int64_t before = apenet_clock_epoch_ms() - (int64_t)(s->cfg.svr.retention_days * 86400000.0);
	int64_t n = apenet_hdb_retention(s->db, before, &e);
	if (n < 0)
		apenet_log(APENET_LOG_WARN, "retention: %s", e.msg);
	else if (n > 0)
		apenet_log(APENET_LOG_INFO, "retention: %lld transitions older than %g days deleted", (long long)n,
			   s->cfg.svr.retention_days);
}

int sup_loop(struct sup *s)
{
	const unsigned max_batch = (unsigned)s->cfg.svr.batch_max_events;
	while (!s->stop && !s->failed) {
		struct pollfd fds[3 + 8 + 2] = { { s->tfd, POLLIN, 0 }, { s->sfd, POLLIN, 0 }, { s->sock, POLLIN, 0 } };
		int timeout = -1;
		int gather = s->gather && s->nq && s->nq < max_batch;
		if (s->nq) {
			int64_t now = apenet_clock_mono_ms(), due = s->q_first_mono + (int64_t)s->cfg.svr.batch_max_ms;
			if (gather && due > s->read_mono + SUP_GATHER_MAX_MS)
				due = s->read_mono + SUP_GATHER_MAX_MS;
			timeout = due < now ? 0 : (int)(due - now);
		}
		if (gather)
			fds[2].fd = -1; /* poll ignores it */
		/* the AgentX session's descriptors and timers (snmp/agentx.c) */
		int nax = s->mib_on ? apenet_agentx_pollfds(fds + 3, 8, &timeout) : 0;
		/* the batch scheduler's scontrol child: its output and exit (slurm.c) */
		int nsl = sup_slurm_pollfds(s, fds + 3 + nax, &timeout);
		if (poll(fds, (nfds_t)(3 + nax + nsl), timeout) < 0) {
			if (errno == EINTR)
				continue;
			apenet_log(APENET_LOG_ERR, "poll: %s", strerror(errno));
			return -1;
		}
		int tick = 0;
		if (fds[0].revents & POLLIN) {
			uint64_t exp;
			if (read(s->tfd, &exp, sizeof(exp)) == (ssize_t)sizeof(exp))
				tick = 1;
		}
		if (fds[1].revents & POLLIN)
			on_signals(s);
		int64_t mono = apenet_clock_mono_ms();
		if ((fds[2].revents & POLLIN) ||
		    (gather && (tick || s->stop || mono - s->read_mono >= SUP_GATHER_MAX_MS ||
				mono - s->q_first_mono >= (int64_t)s->cfg.svr.batch_max_ms)))
			sup_recv_read(s, max_batch > s->nq ? max_batch - (unsigned)s->nq : 1);
		if (s->mib_on)
			apenet_agentx_dispatch(fds + 3, nax); /* runs net-snmp's alarms too */
		run_alarms();
		sup_slurm_dispatch(s, fds + 3 + nax, nsl);
		int full = s->nq >= max_batch;
		int due = s->nq && apenet_clock_mono_ms() - s->q_first_mono >= (int64_t)s->cfg.svr.batch_max_ms;
		if (tick || full || due || s->stop)
			sup_batch_flush(s, tick);
		if (tick) {
			retention(s, apenet_clock_mono_ms());
			sup_mib_tick(s, apenet_clock_mono_ms());
		}
		if (s->reload) {
			s->reload = 0;
			sup_reload(s);
		}
	}
	/* what arrived before the stop is stored and acknowledged */
	if (!s->failed)
		sup_batch_flush(s, 0);
	/* a drain or resume under way is not waited for: recorded abandoned */
	sup_slurm_stop(s);
	return s->failed ? -1 : 0;
}
