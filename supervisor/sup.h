/*
 * apenet-supervisor: receives the node agents' reports (SNMP INFORMs,
 * APENET-MIB) on one UDP port, stores them in its health database (db/) in
 * batches, acknowledges each INFORM only after the batch holding it is
 * committed (an ack means it is on disk), and runs the systemic deduction
 * (lofamo/deduce*.c) over what it stored, writing the incidents it opens,
 * re-blames and closes into the same database.  docs/supervisor.md.
 *
 *   main.c     arguments, config, start-up and stop
 *   recv.c     the listening net-snmp session: decode, check, queue with the ack
 *   batch.c    one batch: store, deduce, apply the actions, commit, then ack
 *   restore.c  a restarted supervisor seeds the deduction from its database
 *   loop.c     the one poll loop: timerfd (ticks), signalfd, net-snmp's sockets
 *   slurm.c    the batch scheduler: settled incidents' nodes drained, resumed (scontrol children)
 *
 * One thread, one writer per database; no sleeps; SIGTERM flushes the open
 * batch (committed and acknowledged) and stops; SIGHUP reloads what can
 * change without a restart.
 */
#ifndef APENET_SUPERVISOR_H
#define APENET_SUPERVISOR_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "apenet/clock.h"
#include "apenet/config.h"
#include "apenet/deduce.h"
#include "apenet/err.h"
#include "apenet/hdb.h"
#include "apenet/mibtab.h"
#include "apenet/notify.h"

struct snmp_pdu;

struct sup_opts {
	const char *config;
	const char *db;       /* overrides the instance's */
	const char *listen;   /* overrides the instance's */
	unsigned instance;    /* 1-based, into supervisor.listen and supervisor.db */
	int foreground;
};

/* A report waiting for its batch's commit, with the acknowledgement that
 * is sent after it: an SNMPv2c INFORM's as bytes (ack, made from the
 * INFORM's own: snmp/v2c_ack.c), sent with the batch's others in one
 * sendmmsg to the sender from the address it wrote to; any other's (SNMPv3)
 * as a net-snmp PDU (reply).  Neither for a TRAP2, which wants none. */
struct sup_item {
	struct apenet_report r;
	int64_t recv_ms;
	struct snmp_pdu *reply;
	uint8_t *ack;
	size_t ack_len;
	struct sockaddr_in ack_to;
	struct in_addr ack_from;
};

/* Why an SNMPv3 message was not taken (v3.c), counted each. */
enum sup_v3_why {
	SUP_V3_PROBE,            /* an engine ID probe: answered, not a refusal */
	SUP_V3_UNKNOWN_ENGINE,
	SUP_V3_LEVEL,            /* not authPriv */
	SUP_V3_UNKNOWN_USER,     /* not node-X,Y,Z of this torus */
	SUP_V3_WRONG_DIGEST,     /* the node's key did not sign it */
	SUP_V3_NOT_IN_WINDOW,    /* boots or time outside the window: a replay, or a sender out of step */
	SUP_V3_DECRYPT,
	SUP_V3_NOT_NOTIFICATION, /* decrypted, but no INFORM or TRAP2 this reader takes */
	SUP_V3_SPEAKS_FOR_OTHER, /* authentic, but about a node its sender may not speak for */
	SUP_V3_NWHY
};
extern const char *const sup_v3_why_name[SUP_V3_NWHY];

struct sup_counters {
	uint64_t received;     /* notifications read */
	uint64_t stored;       /* reports new to the database */
	uint64_t duplicates;   /* already stored: acknowledged again, stored once */
	uint64_t rejected;     /* bad reports: not stored, acknowledged with an error (logged) */
	uint64_t refused;      /* wrong community or security: not acknowledged */
	uint64_t acked;
	uint64_t batches;
	uint64_t commit_us_max;
	uint64_t actions;
	uint64_t v3[SUP_V3_NWHY];
};

/* One drain or resume of one node for one incident (slurm.c). */
struct sup_slurm_job {
	int64_t incident;
	int verb;                /* enum apenet_slurm_verb */
	unsigned node[3];
	char host[64];           /* its Slurm name ("" none) */
	char reason[128];        /* a drain's (APENET_SLURM_REASON_MAX) */
};

/* The queue, oldest first: q[0] runs; q[committed..n) belong to the open
 * batch and wait for its commit.  One scontrol child at a time. */
struct sup_slurm {
	struct sup_slurm_job *q;
	size_t n, cap, committed;
	int step;                /* of q[0]: idle, reading the node, updating it, reading it back */
	pid_t pid;
	int pidfd, outfd;        /* its exit, its stdout and stderr */
	int64_t deadline;        /* monotonic ms: killed past it */
	char out[16384];
	size_t outlen;
	int update_status;       /* the update's exit status and first line */
	char update_said[200];
};

struct sup {
	struct sup_opts opt;
	struct apenet_config cfg;
	char config_path[APENET_PATH_MAX];
	char listen[128];
	char db_path[APENET_PATH_MAX];
	char snmp_dir[APENET_PATH_MAX + 32];
	struct apenet_hdb *db;
	struct apenet_deduce *ded;
	void *sess;           /* net-snmp single session (snmp_sess_*) */
	struct sup_v3 *v3;    /* SNMPv3: the node users' keys (v3.c); NULL for SNMPv2c */
	int sock;             /* its UDP socket */
	int gather;           /* its buffer holds a batch's wait: read when the batch is due (loop.c) */
	int64_t read_mono;    /* when it was last read (monotonic ms) */
	int tfd, sfd;
	/* the open batch */
	struct sup_item *q;
	size_t nq, capq;
	int64_t q_first_mono; /* when its oldest report arrived (monotonic ms) */
	int64_t next_tick_mono, next_retention_mono;
	int stop, reload;
	int failed;           /* the database could not commit: stop, unacknowledged */
	struct sup_counters n;
	int64_t last_reject_log_ms;
	/* the cluster tables over AgentX (mib.c) */
	struct apenet_mib mib;
	int mib_on;
	int64_t mib_stale_mono;
	/* the batch scheduler (slurm.c) */
	struct sup_slurm sl;
};


/* A socket buffer that holds at least this (SO_RCVBUF as the kernel
 * reports it) lets an open batch gather there until it is due, read at most
 * SUP_GATHER_MAX_MS apart (loop.c). */
#define SUP_GATHER_MIN_BUF (16 << 20)
#define SUP_GATHER_MAX_MS 20

int sup_recv_open(struct sup *s, struct apenet_err *e);
/* The acknowledgements of q[0..n) that are bytes, in sendmmsg batches from
 * the listening socket; how many went out.  ack.c */
size_t sup_ack_send(int sock, struct sup_item *q, size_t n);
void sup_recv_close(struct sup *s);
/* Reads what arrived on the socket (at most max notifications). */
void sup_recv_read(struct sup *s, unsigned max);

/* Commits the open batch (when there is one or the deduction has actions)
 * and acknowledges it; runs the deduction's tick when due.  -1 when the
 * database failed (s->failed set). */
int sup_batch_flush(struct sup *s, int tick);
void sup_batch_free(struct sup *s);

int sup_restore(struct sup *s, struct apenet_err *e);
int sup_deduce_config(const struct apenet_config *cfg, struct apenet_deduce_config *dc, struct apenet_err *e);

/* mib.c: the cluster tables through the host's snmpd */
void sup_mib_want(struct sup *s);                  /* before sup_recv_open */
int sup_mib_open(struct sup *s, struct apenet_err *e);
void sup_mib_close(struct sup *s);
void sup_mib_tick(struct sup *s, int64_t mono);    /* stale every agentx_cache_ms */

/* v3.c: the agents' SNMPv3 messages, read and answered here. */
struct apenet_v2c_msg;
struct sup_v3_rx {
	const uint8_t *buf;
	size_t len;
	struct sockaddr_in from;   /* the sender */
	struct in_addr local;      /* the address it came to */
};
int sup_v3_open(struct sup *s, struct apenet_err *e);
void sup_v3_reload(struct sup *s, const struct apenet_supervisor_config *c);
void sup_v3_close(struct sup *s);
/* -1: not an SNMPv3 message this reader takes (net-snmp's); 0: handled
 * (refused, counted, answered with a Report if asked); 1: an authentic
 * notification of node xyz, its PDU in out, to be handed on. */
int sup_v3_take(struct sup *s, const struct sup_v3_rx *rx, struct apenet_v2c_msg *out, unsigned xyz[3]);
/* The acknowledgement of the notification sup_v3_take returned last, as
 * bytes into it; 0 when there is none to send (a TRAP2). */
int sup_v3_ack(struct sup *s, unsigned errstat, struct sup_item *it, const struct sup_v3_rx *rx);
/* A refusal logged at most once a second (recv.c). */
void sup_v3_complain(struct sup *s, const struct sup_v3_rx *rx, enum sup_v3_why why, const char *detail);
/* A sender's problem is logged at most once a second (a misconfigured node
 * must not flood the log); 1 when now is such a moment (v3.c). */
int sup_complain_now(struct sup *s);

/* slurm.c: the batch scheduler.  An action of the deduction (applied in
 * the open batch, id its incident's row) queues the drains and resumes it
 * calls for; they run after the batch commits. */
void sup_slurm_init(struct sup *s);
int sup_slurm_action(struct sup *s, const struct apenet_deduce_action *a, int64_t id, struct apenet_err *e);
void sup_slurm_commit(struct sup *s);
void sup_slurm_rollback(struct sup *s);
/* The running child's descriptors (2, or 0 when none runs) into fds, and
 * its deadline into *timeout; then what the poll said of them. */
struct pollfd;
int sup_slurm_pollfds(struct sup *s, struct pollfd *fds, int *timeout);
void sup_slurm_dispatch(struct sup *s, const struct pollfd *fds, int n);
/* At the stop: the running child killed, it and the queue recorded as
 * abandoned. */
void sup_slurm_stop(struct sup *s);

int sup_loop(struct sup *s);
/* SIGHUP: the config again; a bad file is logged and the old one stays. */
void sup_reload(struct sup *s); /* reload.c */
/* A node's name from the config (arg), for the database's layout. */
const char *sup_node_name(void *arg, unsigned x, unsigned y, unsigned z);

#endif
