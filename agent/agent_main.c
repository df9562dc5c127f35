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
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/log.h"
#include "apenet_version.h"

static void usage(FILE *f)
{
	fputs("usage: apenet-agent [--config FILE] [--foreground] [--card BDF | --sim DIR]\n"
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
	      "status:  apenet agent-status [--json]\n",
	      f);
}

/* --foreground: one line a message on stderr, with its level. */
static void to_stderr(void *ctx, int level, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "apenet-agent[%ld]: %s: %s\n", (long)getpid(), apenet_log_level_name(level), msg);
}

static int parse_args(int argc, char **argv, struct agent_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		const char **val = NULL;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(s, "--version")) {
			puts("apenet-agent " APENET_VERSION_TEXT);
			exit(0);
		} else if (!strcmp(s, "--foreground") || !strcmp(s, "-f")) {
			o->foreground = 1;
			continue;
		} else if (!strcmp(s, "--json")) {
			o->json = 1;
			continue;
		} else if (!strcmp(s, "--config")) {
			val = &o->config;
		} else if (!strcmp(s, "--card") || !strcmp(s, "--dev")) {
			val = &o->card;
		} else if (!strcmp(s, "--sim")) {
			val = &o->sim;
		} else if (!strcmp(s, "--replay")) {
			val = &o->replay;
		} else {
			fprintf(stderr, "apenet-agent: unknown argument '%s'\n", s);
			usage(stderr);
			return -1;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "apenet-agent: %s needs a value\n", s);
			return -1;
		}
		*val = argv[++i];
	}
	return 0;
}

static int fail(const char *what, const struct apenet_err *e)
{
	apenet_log(APENET_LOG_ERR, "%s%s%s", what, what[0] ? ": " : "", e->msg);
	return 2;
}

static int start(struct agent *a)
{
	struct apenet_err e = { 0 };
	const struct apenet_agent_config *c = &a->cfg.agent;
	if (agent_check_user(a, &e))
		return fail("", &e);
	if (apenet_sampler_open(&a->smp, a->opt.sim, a->opt.card, &e))
		return fail("", &e);
	a->card_open = 1;
	if (agent_state_init(a, &e))
		return fail("", &e);
	/* config space read once while root: on a real card libpci keeps the
	 * sysfs file open, and what is opened as root reads past the first 64
	 * bytes after the drop (docs/agent.md, "Privileges") */
	if (apenet_sampler_take(&a->smp, APENET_SAMPLE_PCIE, a->cur, &e))
		return fail("first sample", &e);
	/* nothing else needs root: every file below is the user's */
	if (agent_drop_privileges(a))
		return 2;
	if (agent_lock(a, &e))
		return fail("", &e);
	const char *dirs[] = { c->state_dir, c->blackbox_dir };
	for (unsigned i = 0; i < 2; i++)
		if (agent_mkdirs(dirs[i], 0750)) {
			apenet_err_set(&e, APENET_EIO, "%s: %s", dirs[i], strerror(errno));
			return fail("", &e);
		}
	a->boot_id = agent_boot_count(c->state_dir);
	agent_events_open(a);
	if (agent_events_resize(a)) {
		apenet_err_set(&e, APENET_EIO, "out of memory");
		return fail("", &e);
	}
	if (agent_ctl_open(a, &e))
		return fail("control socket", &e);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	signal(SIGPIPE, SIG_IGN); /* a client that went away is a write error, not a death */
	if (sigprocmask(SIG_BLOCK, &set, NULL) || (a->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
		apenet_err_set(&e, APENET_EIO, "signalfd: %s", strerror(errno));
		return fail("", &e);
	}
	if ((a->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0) {
		apenet_err_set(&e, APENET_EIO, "timerfd: %s", strerror(errno));
		return fail("", &e);
	}
	/* AgentX first: net-snmp's role is chosen before it starts */
	if (agent_mib_open(a, &e))
		return fail("AgentX", &e);
	if (agent_report_open(a, &e))
		return fail("reports", &e);

	unsigned me = (unsigned)a->cur->snap.g.NODE_COORD;
	a->xyz[0] = APENET_GET(NODE_COORD, X, me);
	a->xyz[1] = APENET_GET(NODE_COORD, Y, me);
	a->xyz[2] = APENET_GET(NODE_COORD, Z, me);
	a->ldm_host = apenet_ldm_host_word(APENET_H_NORMAL, APENET_H_NORMAL, APENET_H_NORMAL);
	if (agent_card_setup(a)) {
		apenet_err_set(&e, APENET_EGONE, "the card does not respond");
		return fail("", &e);
	}
	if (agent_timer_arm(a)) {
		apenet_err_set(&e, APENET_EIO, "timerfd: %s", strerror(errno));
		return fail("", &e);
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
	struct apenet_err e = { 0 };
	a.tfd = a.sfd = a.lsock = a.events_fd = a.lock_fd = -1;
	if (parse_args(argc, argv, &a.opt))
		return 2;
	apenet_log_to_callback(to_stderr, NULL); /* until the config says where */
	/* what the agent creates (events, black boxes, the spool, the socket)
	 * is readable by its group (apenet), never by everyone */
	umask(027);
	const char *path = apenet_config_path(a.opt.config, &a.config_from);
	if (apenet_config_load(path, &a.cfg, &e)) {
		apenet_log(APENET_LOG_ERR, "%s", e.msg);
		return 2;
	}
	snprintf(a.config_path, sizeof(a.config_path), "%s", path ? path : "");
	if (a.opt.replay) {
		int rc = agent_replay(&a, a.opt.replay);
		apenet_config_free(&a.cfg);
		return rc;
	}
	if (!a.opt.foreground)
		apenet_log_to_syslog("apenet-agent");
	apenet_log_set_level(apenet_log_level_parse(a.cfg.agent.log_level));
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
