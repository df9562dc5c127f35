/*
 * apenet-agent: the host side of LO|FA|MO on one node (docs/agent.md).
 *
 * One process per card, one poll loop, no threads.  The decisions are the
 * library's (lofamo/: the judge, the latch, the watchdog, neighbour and
 * LDM_HOST state machines, the black box); this folder holds what only a
 * daemon has: the loop and its descriptors, the files, the control socket,
 * privileges.
 *
 *   agent_main.c  arguments, start-up order, shutdown
 *   loop.c        poll over timerfd + signalfd + the socket and its clients
 *                 (and, later, the notifier's descriptors); reload, dumps
 *   period.c      one period: beat, sample, judge, events, LDM_HOST, black box
 *   sink.c        every event goes through agent_emit: log, last N, events.jsonl
 *   ctl.c         agent-status over a unix socket
 *   files.c       state dir, boot counter, lock file, dump files and retention
 *   edac.c        EDAC counters from sysfs
 *   report.c      transitions and heartbeats to the supervisors (snmp/notify.c)
 *   mib.c         APENET-MIB through the host's snmpd (AgentX subagent)
 */
#ifndef APENET_AGENT_DAEMON_H
#define APENET_AGENT_DAEMON_H

#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

#include "apenet/clock.h"
#include "apenet/agent.h"
#include "apenet/blackbox.h"
#include "apenet/config.h"
#include "apenet/hdb.h"
#include "apenet/judge.h"
#include "apenet/mibtab.h"
#include "apenet/module.h"
#include "apenet/notify.h"
#include "apenet/sampler.h"
#include "apenet/verdict.h"

#define AGENT_MAX_CLIENTS 8
#define AGENT_EDAC_MAX_MC 64

struct agent_opts {
	const char *config;     /* --config FILE */
	int foreground;         /* --foreground: log to stderr */
	const char *card;       /* --card BDF */
	const char *sim;        /* --sim DIR */
	const char *replay;     /* --replay FILE: judge a recorded stream, print, exit */
	int json;               /* --json: --replay writes JSON */
};

/* A connection to the control socket: it sends a request line, gets one
 * JSON document, and the agent closes it. */
struct agent_client {
	int fd;
	char req[64];
	size_t reqlen;
	char *out;              /* the answer, being written */
	size_t outlen, outoff;
	int64_t deadline_ms;    /* a client that takes longer is dropped */
};

/* EDAC: counters read every edac_interval_s, a window of them for the rate. */
struct agent_edac {
	struct apenet_edac now;
	int64_t next_ms;
	struct { int64_t ms; uint64_t ce; } *hist;
	size_t hcap, h0, hn;
	char root[256];
	char error[APENET_PATH_MAX + 128]; /* why it is absent, when it is */
};

struct agent {
	struct agent_opts opt;
	char config_path[APENET_PATH_MAX]; /* "" when running on the defaults */
	const char *config_from;
	struct apenet_config cfg;
	int64_t started_ms;

	/* the card */
	struct apenet_sampler smp;
	int card_open;
	unsigned xyz[3];        /* this node, from NODE_COORD */
	int card_gone;
	uint32_t host_hb;       /* the last value written to WD_HOST_HB */
	int wd_armed;           /* WD_CTRL.ENABLE written (cleared by a clean stop) */

	/* samples and their judging (apenet/judge.h: the pairs, the baseline
	 * ring, the latch); cur is where this period's sample is taken */
	struct apenet_sample *cur;
	int64_t next_pcie_ms, next_modules_ms;
	struct apenet_judge judge;
	struct apenet_findings raised; /* what the judge holds, less what other paths report */
	struct apenet_track track;
	struct apenet_wd wd;
	struct apenet_nbr nbr[APENET_MAX_LINKS];
	struct apenet_bbox bbox;

	/* the host's part of the LDM */
	unsigned service, memory, peripheral;
	uint32_t ldm_host;      /* the word last written */
	/* the notifier's view (report.c): both supervisors acknowledging: normal;
	 * one: sick; none for service_timeout_s: broken */
	unsigned svc_configured, svc_acking;
	double svc_since_ack_s;
	struct agent_edac edac;

	/* the period */
	int tfd, sfd;
	uint64_t periods, overruns, missed_periods, sample_errors;
	int64_t last_overrun_ms, last_overrun_log_ms, last_error_log_ms;
	int64_t step_us_max, step_us_last;
	double step_us_sum;
	/* register reads (tiers, docs/design.md): all of them, and the most in
	 * one period with and without the module pages */
	uint64_t reads_sum, reads_max, reads_max_regs;

	/* events */
	uint64_t boot_id, seq;
	int64_t ev_time_ms;     /* host time of the sample being judged */
	struct apenet_event *events; /* the last events_keep, a ring */
	size_t ev_cap, ev_n, ev_0;
	uint64_t transitions, notices;
	int events_fd;
	int64_t events_bytes;
	/* the hook the SNMP notifier hangs on: every event, after it is logged */
	void (*notify)(void *ctx, const struct apenet_event *ev);
	void *notify_ctx;
	/* the reports to the supervisors (report.c); NULL: none configured */
	struct apenet_notifier *notifier;
	int64_t next_heartbeat_ms;
	uint64_t report_errors;

	/* black-box dumps */
	int dump_wanted;        /* a transition asked for one */
	char dump_reason[96];
	int64_t last_dump_ms;
	uint64_t dumps, dump_errors;
	char last_dump[APENET_PATH_MAX + 256];
	unsigned last_dump_samples;

	/* the control socket */
	int lsock;
	char sock_path[APENET_PATH_MAX];
	struct agent_client cl[AGENT_MAX_CLIENTS];

	/* files, privileges */
	int lock_fd;
	char lock_path[APENET_PATH_MAX + 64];
	char privileges[200];   /* what became of root, for agent-status */
	uid_t uid;
	gid_t gid;
	int drop;	 /* root, and agent.user names the user to become (agent_check_user) */
	uid_t drop_uid;
	gid_t drop_gid;

	/* APENET-MIB over AgentX (mib.c) */
	struct apenet_mib mib;
	int mib_on;
	/* each link's cable and its latest certificate, for apenetCertTable */
	char cable_serial[APENET_MAX_LINKS][17];
	struct apenet_hdb_cert *cable_cert[APENET_MAX_LINKS];
	struct apenet_hdb *certdb;
	int64_t next_cert_ms;
	int certdb_logged;
	/* each link's module as last decoded, for apenetModuleTable */
	struct apenet_module_health cable_module[APENET_MAX_LINKS];
	int cable_module_ok[APENET_MAX_LINKS];

	int stop;               /* SIGTERM / SIGINT seen */
	int reloads, reload_errors;
	unsigned presets_applied; /* PMA presets this card took a half of, at the last setup */
	char reload_error[1024];
};

/* period.c */
int agent_card_setup(struct agent *a);      /* watchdog, THR_*, LDM_HOST, enable, PMA presets */
/* presets.c: the PMA presets of agent.pma_presets_dir this card owns a half
 * of, written to it (at card setup: start and reload). */
void agent_presets_apply(struct agent *a);
void agent_card_disarm(struct agent *a);    /* WD_CTRL off: a planned stop */
void agent_period(struct agent *a);
/* After the judge took a sample: counter clears and transitions (period.c). */
void agent_judged(struct agent *a);
/* One event as agent-status writes it (ctl.c). */
struct apenet_out;
void agent_out_event(struct apenet_out *o, const struct apenet_event *ev);
/* --replay FILE: every sample of a recorded stream through the agent's judge
 * and transitions, one JSON document a sample on stdout (replay.c); the
 * exit status. */
int agent_replay(struct agent *a, const char *file);
int agent_state_init(struct agent *a, struct apenet_err *e);
void agent_state_free(struct agent *a);
/* The LDM_HOST fields' reasons in words (service, memory, peripheral). */
void agent_host_why(const struct agent *a, char *svc, char *mem, char *per, size_t n);
/* Black box: sizes from the config (again after a reload). */
int agent_bbox_apply(struct agent *a, struct apenet_err *e);

/* sink.c */
void agent_emit(struct agent *a, struct apenet_event *ev);
int agent_events_open(struct agent *a);
int agent_events_resize(struct agent *a);

/* files.c */
int agent_mkdirs(const char *path, mode_t mode);
int agent_lock(struct agent *a, struct apenet_err *e);
uint64_t agent_boot_count(const char *state_dir);
int agent_dump(struct agent *a, const char *reason);
void agent_retention(struct agent *a);
int agent_check_user(struct agent *a, struct apenet_err *e);
int agent_drop_privileges(struct agent *a);

/* edac.c */
void agent_edac_poll(struct agent *a, int64_t now_ms);
void agent_edac_free(struct agent_edac *e);

/* ctl.c */
int agent_ctl_open(struct agent *a, struct apenet_err *e);
void agent_ctl_close(struct agent *a);
/* pollfds of the socket and its clients: appended at fds[*n] */
void agent_ctl_pollfds(struct agent *a, struct pollfd *fds, unsigned *n, unsigned max);
void agent_ctl_dispatch(struct agent *a, const struct pollfd *fds, unsigned n);
void agent_ctl_expire(struct agent *a, int64_t now_ms);

/* report.c */
int agent_report_open(struct agent *a, struct apenet_err *e);
void agent_report_close(struct agent *a);
void agent_report_heartbeat(struct agent *a, int64_t now_ms);
/* the notifier's descriptors appended at fds[*n]; lowers *timeout_ms */
int agent_report_pollfds(struct agent *a, struct pollfd *fds, unsigned *n, unsigned max, int *timeout_ms);
void agent_report_dispatch(struct agent *a, const struct pollfd *fds, unsigned n);
/* Whether the notifier is served at the period's tick rather than by its
 * own wake-ups (the period is short next to an INFORM's timeout), and that
 * service: what arrived since the last tick, resends that are due. */
int agent_report_at_tick(const struct agent *a);
void agent_report_tick(struct agent *a);

/* The report of a transition (report.c), for the supervisors and the trap sinks. */
void agent_report_of_event(const struct agent *a, const struct apenet_event *ev, struct apenet_report *out);

/* mib.c: APENET-MIB through the host's snmpd (AgentX) */
int agent_mib_open(struct agent *a, struct apenet_err *e);
void agent_mib_close(struct agent *a);
void agent_mib_period(struct agent *a);  /* the tables are stale */
void agent_mib_event(struct agent *a, const struct apenet_event *ev); /* to snmpd's trap sinks */
int agent_mib_pollfds(struct agent *a, struct pollfd *fds, unsigned *n, unsigned max, int *timeout_ms);
void agent_mib_dispatch(struct agent *a, const struct pollfd *fds, unsigned n);

/* loop.c */
int agent_loop(struct agent *a);
int agent_timer_arm(struct agent *a);
void agent_reload(struct agent *a);

#endif
