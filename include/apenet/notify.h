/*
 * The node agent's reports to the supervisors (docs/agent.md, "Reports to
 * the supervisors"): health transitions and heartbeats sent as SNMP INFORMs
 * (APENET-MIB, mibs/APENET-MIB.txt) to every configured supervisor.  The
 * wire format, and its decoder for the supervisors, is
 * include/apenet/report_pdu.h.
 *
 * Nothing is lost on the way: an event is first put in a local spool
 * (include/apenet/spool.h; a transition is committed to its file, a
 * heartbeat the agent numbered is held in memory until every supervisor
 * has it, or written with the next report), then sent to each supervisor
 * in turn; it leaves
 * the spool for a supervisor only when that supervisor acknowledged it, and
 * what a supervisor has not acknowledged is sent again, in order, when it
 * answers again.  A new notifier on the same spool (the agent restarted)
 * sends what the last one could not.
 *
 * No threads and no blocking: the agent's single poll loop drives it.
 *
 *     struct pollfd fds[8 + APENET_NOTIFY_MAX_FDS];
 *     int timeout = period_left_ms;
 *     int k = apenet_notifier_pollfds(n, fds + mine, APENET_NOTIFY_MAX_FDS, &timeout);
 *     poll(fds, mine + k, timeout);
 *     apenet_notifier_dispatch(n, fds + mine, k);
 *
 * The library never exits or prints; net-snmp's own log goes to apenet_log
 * (include/apenet/log.h), and no MIB file is read at run time (the OIDs are
 * constants, include/apenet/mib.h).
 */
#ifndef APENET_NOTIFY_H
#define APENET_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/boot_id.h"
#include "apenet/config.h"
#include "apenet/err.h"

struct pollfd;

enum apenet_report_kind {
	APENET_REPORT_HEALTH = 1,    /* apenetHealthChange: a status transition */
	APENET_REPORT_HEARTBEAT = 2, /* apenetHeartbeat: alive, with the node's LDM word */
};

/* What a report is about (APENET-MIB ApenetSubject).  The first six are the
 * finding subjects of include/apenet/finding.h plus one. */
enum apenet_report_subject {
	APENET_REPORT_SUBJ_BOARD = 1,
	APENET_REPORT_SUBJ_LINK = 2,
	APENET_REPORT_SUBJ_LANE = 3,
	APENET_REPORT_SUBJ_MODULE = 4,
	APENET_REPORT_SUBJ_SENSOR = 5,
	APENET_REPORT_SUBJ_CABLING = 6,
	APENET_REPORT_SUBJ_HOST = 7, /* watchdog, memory, PCIe peripheral, service network */
};

/* How the agent learnt it (APENET-MIB ApenetEvidencePath). */
enum apenet_report_path {
	APENET_REPORT_PATH_SELF = 1,          /* its own card and host */
	APENET_REPORT_PATH_NEIGHBOUR_LDM = 2, /* a neighbour's LDM word, through the torus */
	APENET_REPORT_PATH_WATCHDOG = 3,      /* the mutual watchdog */
};

/* One report.  Statuses are enum apenet_ldm_status (include/apenet/regs.h:
 * 0 normal, 1 sick, 2 broken, 3 invalid; APENET-MIB's ApenetStatus is that
 * plus one).  Texts are NUL-terminated; longer ones are refused. */
struct apenet_report {
	enum apenet_report_kind kind;
	unsigned x, y, z;          /* the node it is about (the neighbour, for PATH_NEIGHBOUR_LDM) */
	char node[64];             /* its name in the cluster layout, "" when none */
	char boot[40];             /* the reporting agent's boot id */
	uint64_t seq;              /* within the boot; 0: apenet_notifier_submit assigns the next */
	int64_t time_ms;           /* when it was seen, ms since the epoch */
	/* health transitions */
	enum apenet_report_subject subject;
	char where[24];            /* link ("X+"), port, sensor ("fpga_temp"), "" */
	char code[32];             /* a finding code (docs/verdicts.md) or an LDM field key */
	int old_status, new_status;
	double value, threshold;   /* NaN: none */
	char unit[16];
	char evidence[200];        /* heartbeats: the LDM summary ("" : made from ldm) */
	enum apenet_report_path path;
	char via[8];               /* PATH_NEIGHBOUR_LDM: this node's link it came through */
	/* heartbeats */
	uint32_t ldm;              /* the node's own LDM word */
};


/* An empty event of a kind: NaN value and threshold, path self. */
void apenet_report_init(struct apenet_report *ev, enum apenet_report_kind kind);
/* "health", "heartbeat"; "board", "link", ...; "self", "neighbour-ldm", "watchdog". */
const char *apenet_report_kind_name(int kind);
const char *apenet_report_subject_name(int subject);
const char *apenet_report_path_name(int path);
/* The summary a heartbeat carries: "all normal", or every field that is not
 * normal ("temperature sick, X+ link broken, host expired"), or why the
 * word is invalid.  Returns buf. */
char *apenet_report_ldm_summary(uint32_t word, char *buf, size_t len);
/* A value as the MIB's ApenetDecimal: the shortest decimal that reads back
 * to the same double, "" for NaN.  Returns buf. */
char *apenet_report_decimal(double v, char *buf, size_t len);

/* The notifier's settings (struct apenet_notify_config, its defaults and
 * its check) are the `supervisors:` section of the config:
 * include/apenet/config.h, common/config_sup.c. */
/* One UDP socket per supervisor. */
#define APENET_NOTIFY_MAX_FDS APENET_NOTIFY_MAX_SUPERVISORS

struct apenet_notifier;

/* Opens the spool (refusing one that is corrupt, foreign, newer or in use
 * by another process) and starts a session per supervisor; the events the
 * spool still holds are sent from the first dispatch on.  Sends nothing and
 * waits for nothing itself. */
int apenet_notifier_open(const struct apenet_notify_config *c, struct apenet_notifier **out, struct apenet_err *e);
/* SNMPv3: the USM user its key file names ("node-X,Y,Z"); "" for SNMPv2c. */
const char *apenet_notifier_user(const struct apenet_notifier *n);
/* Closes sessions and the spool; what was not acknowledged stays in it. */
void apenet_notifier_close(struct apenet_notifier *n);

/* Stores the event in the spool (one transaction; a heartbeat with its
 * seq set is held in memory, include/apenet/spool.h) and sends it to every
 * supervisor that has nothing older to receive.  seq 0 is filled in with
 * the next number of the boot (kept in the spool, so it never repeats for a
 * boot id).  -1 when the event could not be stored (one no INFORM can
 * carry, apenet_report_check in include/apenet/report_pdu.h; disk): then it
 * was not sent either. */
int apenet_notifier_submit(struct apenet_notifier *n, struct apenet_report *ev, struct apenet_err *e);

/* Fills up to max entries with the descriptors to poll for reading and
 * lowers *timeout_ms (-1: none yet) to when the notifier must run next
 * (a resend, a supervisor's next try).  Returns the number filled, or -1
 * when max was too small (APENET_NOTIFY_MAX_FDS always is enough). */
int apenet_notifier_pollfds(struct apenet_notifier *n, struct pollfd *fds, int max, int *timeout_ms);
/* After poll(): reads what arrived on the notifier's descriptors among
 * fds[0..nfds) (others are ignored; fds may be NULL), runs net-snmp's due
 * resends and timers, and sends what became sendable.  Call it after every
 * poll, also when poll timed out. */
void apenet_notifier_dispatch(struct apenet_notifier *n, const struct pollfd *fds, int nfds);
/* Whether an answering supervisor has reports waiting behind the one in
 * flight (one INFORM at a time): a caller that serves the notifier only
 * at its own ticks serves it at once while this holds, or a burst of
 * transitions would reach the supervisors one tick apart. */
int apenet_notifier_backlog(const struct apenet_notifier *n);

enum apenet_notify_sup_state {
	APENET_NOTIFY_DOWN,        /* no session: waiting for the next try */
	APENET_NOTIFY_DISCOVERING, /* v3: learning the supervisor's engine ID */
	APENET_NOTIFY_IDLE,        /* nothing to send */
	APENET_NOTIFY_SENDING,     /* one INFORM out, waiting for its answer */
};

struct apenet_notify_sup_status {
	char addr[128];
	int state;                 /* enum apenet_notify_sup_state */
	int answering;             /* the last try was answered */
	int64_t last_ack_ms;       /* epoch ms of the last acknowledgement; 0: never */
	uint64_t outstanding;      /* events in the spool it has not acknowledged */
	uint64_t sent, acked, unanswered; /* INFORMs since open (resends by net-snmp not counted) */
	char last_error[160];      /* why the last try failed, "" */
};

struct apenet_notify_status {
	unsigned nsupervisors;
	struct apenet_notify_sup_status sup[APENET_NOTIFY_MAX_SUPERVISORS];
	uint64_t spool_events, spool_transitions, spool_heartbeats;
	uint64_t spool_bytes, spool_max_bytes;
	uint64_t heartbeats_dropped; /* since open, for the byte bound */
};

/* For `apenet agent-status`: per supervisor, its state, last ack and what it
 * still has to receive; the spool's depth in events and bytes. */
void apenet_notifier_status(const struct apenet_notifier *n, struct apenet_notify_status *st);
const char *apenet_notifier_state_name(int state);

/* net-snmp once per process: its log into apenet_log, no config files, no
 * MIB files, no SIGALRM, its persistent directory dir (created).
 * apenet_notifier_open calls it; a program that also runs net-snmp for
 * something else (AgentX) calls it first.  0 or -1. */
int apenet_snmp_init(const char *dir, struct apenet_err *e);
/* Whether apenet_snmp_init has run (net-snmp's tables exist to be cleaned). */
int apenet_snmp_started(void);

#endif
