/*
 * apenet-agent [--config FILE] [--foreground] [--card BDF | --sim DIR]
 *
 * Start-up order (docs/agent.md, "Start and stop"): the config; who a
 * root agent becomes (agent.user: a missing user or root itself stops it);
 * the card (BAR mapped, libpci open, its config space read once while
 * root); root dropped; then, as the user, the lock file (one agent per
 * card), state and black-box directories, the boot counter, events.jsonl,
 * the control socket, signals; and only then does the agent touch the
 * card's watchdog.  It does not fork: systemd (Type=simple) or the shell
 * runs it.
 * Exit: 0 after SIGTERM/SIGINT (the watchdog disabled first), 2 when it
 * could not start.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "agent.h"
#include "apenet/clock.h"
#include "apenet/daemon.h"
#include "apenet/log.h"
#include "apenet_version.h"

static const char usage[] =
	"usage: apenet-agent [--config FILE] [--foreground] [--card BDF | --sim DIR]\n"
	"       apenet-agent [--config FILE] --replay FILE [--json]\n\n"
	"The node agent: the host side of the mutual watchdog with the card's DNP, the host's\n"
	"part of the LDM, judging every sample, neighbours' LDM words, the black box.\n\n"
	"  --config FILE  the config (else $APENET_CONFIG, else " "the installed apenet.yaml, else defaults)\n"
	"  --foreground   log to stderr instead of syslog\n"
	"  --card BDF     the card, when there are several\n"
	"  --sim DIR      an emulated node directory (apenet-sim), also $APENET_SIM_DIR\n"
	"  --replay FILE  judge every sample of a snapshot or black-box file as the agent does and\n"
	"                 print, a sample at a time, what it holds and the transitions it would report\n"
	"  --json         --replay's documents in JSON\n"
	"  --version      the version and the JSON schema\n\n"
	"signals: TERM/INT stop (watchdog disabled first), HUP reload the config, USR1 dump the black box\n"
	"status:  apenet agent-status [--json]\n";

static int start(struct agent *a)
{
	struct apenet_err e = { 0 };
	const struct apenet_agent_config *c = &a->cfg.agent;
	if (agent_check_user(a, &e))
		return apenet_daemon_fail("", &e);
	if (apenet_sampler_open(&a->smp, a->opt.sim, a->opt.card, &e))
		return apenet_daemon_fail("", &e);
	a->card_open = 1;
	/* every register as often as a fault can change it (docs/design.md) */
	if (apenet_sampler_tiered(&a->smp, &e))
		return apenet_daemon_fail("", &e);
	if (agent_state_init(a, &e))
		return apenet_daemon_fail("", &e);
	/* config space read once while root: on a real card libpci keeps the
	 * sysfs file open, and what is opened as root reads past the first 64
	 * bytes after the drop (docs/agent.md, "Privileges") */
	if (apenet_sampler_take(&a->smp, APENET_SAMPLE_PCIE, a->cur, &e))
		return apenet_daemon_fail("first sample", &e);
	/* nothing else needs root: every file below is the user's */
	if (agent_drop_privileges(a))
		return 2;
	if (agent_lock(a, &e))
		return apenet_daemon_fail("", &e);
	const char *dirs[] = { c->state_dir, c->blackbox_dir };
	for (unsigned i = 0; i < 2; i++)
		if (agent_mkdirs(dirs[i], 0750)) {
			apenet_err_set(&e, APENET_EIO, "%s: %s", dirs[i], strerror(errno));
			return apenet_daemon_fail("", &e);
		}
	a->boot_id = agent_boot_count(c->state_dir);
	agent_events_open(a);
	if (agent_events_resize(a)) {
		apenet_err_set(&e, APENET_EIO, "out of memory");
		return apenet_daemon_fail("", &e);
	}
	if (agent_ctl_open(a, &e))
		return apenet_daemon_fail("control socket", &e);

	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1, 0 };
	if ((a->sfd = apenet_daemon_signalfd(sigs, &e)) < 0)
		return apenet_daemon_fail("", &e);
	if ((a->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		apenet_err_set(&e, APENET_EIO, "timerfd: %s", strerror(errno));
		return apenet_daemon_fail("", &e);
	}
	/* the card's coordinates before the reports: agent_report_open checks
	 * that the key file is this node's */
	unsigned me = (unsigned)a->cur->snap.g.NODE_COORD;
	a->xyz[0] = APENET_GET(NODE_COORD, X, me);
	a->xyz[1] = APENET_GET(NODE_COORD, Y, me);
	a->xyz[2] = APENET_GET(NODE_COORD, Z, me);
	/* AgentX first: net-snmp's role is chosen before it starts */
	if (agent_mib_open(a, &e))
		return apenet_daemon_fail("AgentX", &e);
	if (agent_report_open(a, &e))
		return apenet_daemon_fail("reports", &e);

	a->ldm_host = apenet_ldm_host_word(APENET_H_NORMAL, APENET_H_NORMAL, APENET_H_NORMAL);
	if (agent_card_setup(a)) {
		apenet_err_set(&e, APENET_EGONE, "the card does not respond");
		return apenet_daemon_fail("", &e);
	}
	if (agent_timer_arm(a)) {
		apenet_err_set(&e, APENET_EIO, "timerfd: %s", strerror(errno));
		return apenet_daemon_fail("", &e);
	}
	apenet_log(APENET_LOG_NOTICE,
		   "started on %s (%s, node %u,%u,%u), boot %llu: period %g ms, watchdog %g ms x %g beats, config %s, "
		   "status on %s",
		   a->smp.dev.bdf, a->smp.dev.prof->name, a->xyz[0], a->xyz[1], a->xyz[2], (unsigned long long)a->boot_id,
		   c->period_ms, c->watchdog_period_ms, c->watchdog_timeout_beats,
		   a->config_path[0] ? a->config_path : "(defaults)", a->sock_path);
	return 0;
}

static void stop(struct agent *a)
{
	/* first: a planned stop must not read as a dead host */
	agent_card_disarm(a);
	agent_report_close(a);
	agent_mib_close(a);
	agent_ctl_close(a);
	if (a->tfd >= 0)
		close(a->tfd);
	if (a->sfd >= 0)
		close(a->sfd);
	if (a->events_fd >= 0)
		close(a->events_fd);
	if (a->lock_fd >= 0)
		close(a->lock_fd);
	if (a->card_open)
		apenet_sampler_close(&a->smp);
	agent_state_free(a);
	free(a->events);
	apenet_config_free(&a->cfg);
}

int main(int argc, char **argv)
{
	static struct agent a; /* large, and one */
	static const struct apenet_daemon_opt opts[] = {
		{ "--card", "--dev", &a.opt.card, NULL, NULL },
		{ "--sim", NULL, &a.opt.sim, NULL, NULL },
		{ "--replay", NULL, &a.opt.replay, NULL, NULL },
		{ "--json", NULL, NULL, &a.opt.json, NULL },
		{ NULL, NULL, NULL, NULL, NULL },
	};
	static struct apenet_daemon d = { .name = "apenet-agent", .usage = usage,
					  .version = "apenet-agent " APENET_VERSION_TEXT, .section = "agent", .opts = opts };
	a.tfd = a.sfd = a.lsock = a.events_fd = a.lock_fd = -1;
	d.out = stdout;
	d.err = stderr;
	if (apenet_daemon_start(&d, argc, argv, &a.cfg))
		return d.status;
	a.opt.config = d.config;
	a.opt.foreground = d.foreground;
	a.config_from = d.config_from;
	snprintf(a.config_path, sizeof(a.config_path), "%s", d.config_path);
	if (a.opt.replay) {
		int rc = agent_replay(&a, a.opt.replay);
		apenet_config_free(&a.cfg);
		return rc;
	}
	apenet_daemon_log(&d, &a.cfg);
	a.started_ms = apenet_clock_epoch_ms();
	int rc = start(&a);
	if (rc == 0)
		rc = agent_loop(&a) ? 2 : 0;
	stop(&a);
	if (rc == 0)
		apenet_log(APENET_LOG_NOTICE, "stopped after %llu periods, %llu transitions",
			   (unsigned long long)a.periods, (unsigned long long)a.transitions);
	return rc;
}
