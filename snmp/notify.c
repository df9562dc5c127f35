/*
 * The notifier (include/apenet/notify.h): reports to the supervisors as
 * SNMP INFORMs, one net-snmp single-session per supervisor, driven from the
 * caller's poll loop.
 *
 * Per supervisor, one INFORM is out at a time (stop and wait): the oldest
 * event it has not acknowledged.  That keeps the order at the receiver
 * even across losses and outages, and makes the ack rule simple (an answer
 * removes exactly the event sent); it costs one round trip per report,
 * thousands a second on a LAN against the agent's few a second.
 *
 * A try that gets no answer (net-snmp's own resends included) closes the
 * session; after backoff_ms a new one opens and sends the same oldest
 * event again.  A new session per try also rediscovers an SNMPv3
 * supervisor that restarted with a new engine ID.  Callbacks from net-snmp
 * only note what happened; sessions are closed and the next INFORM is sent
 * after net-snmp returned, never from inside its own read or timeout loop.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "apenet/clock.h"
#include "apenet/keys.h"
#include "apenet/ldm.h"
#include "apenet/log.h"
#include "apenet/mib.h"
#include "apenet/agentx.h"
#include "apenet/notify.h"
#include "apenet/regs.h"
#include "apenet/report_pdu.h"
#include "apenet/spool.h"

/* ---- the notifier ------------------------------------------------------- */

struct apenet_notify_sup {
	struct apenet_notifier *n;
	unsigned idx;
	char addr[128];
	char peer[200];
	void *sess;                /* net-snmp single session, NULL when down */
	int fd;                    /* its one socket, -1 when not known */
	int state;                 /* enum apenet_notify_sup_state */
	int reqid;                 /* of the request we wait on; 0 none */
	int64_t inflight;          /* spool id of the event out */
	uint64_t inflight_seq;
	char inflight_boot[40];
	int64_t due_ms;            /* DOWN: monotonic time of the next try */
	/* what the callbacks noted, acted on after net-snmp returned */
	int got_ack, failed, discovered;
	u_char eid[APENET_USM_ENGINE_MAX]; /* the engine ID the probe's Report gave */
	size_t eid_len;
	char why[160];
	int answering;             /* the last try was answered */
	int64_t fail_since_ms;     /* monotonic, when it stopped answering */
	uint64_t sent, acked, unanswered;
	char last_error[160];
};

struct apenet_notifier {
	struct apenet_notify_config cfg;
	struct apenet_spool *spool;
	struct apenet_notify_sup sup[APENET_NOTIFY_MAX_SUPERVISORS];
	unsigned nsup;
	int64_t start_ms;          /* monotonic, for sysUpTime */
	/* v3: this node's USM user and master keys (Ku), from its key file */
	struct apenet_node_key key;
};

const char *apenet_notifier_state_name(int state)
{
	switch (state) {
	case APENET_NOTIFY_DOWN: return "down";
	case APENET_NOTIFY_DISCOVERING: return "discovering";
	case APENET_NOTIFY_IDLE: return "idle";
	case APENET_NOTIFY_SENDING: return "sending";
	}
	return "?";
}

/* net-snmp keeps USM users process-wide, one per engine ID and name, and
 * reuses one it knows with its old keys: after a config reload changed a
 * passphrase, the old keys would go on being used.  A notifier therefore
 * forgets its user's entries when it opens and when it closes. */
static void apenet_notify_forget_users(const char *name)
{
	for (;;) {
		struct usmUser *u = usm_get_userList();
		while (u && (!u->name || strcmp(u->name, name)))
			u = u->next;
		if (!u)
			return;
		usm_remove_user(u);
		usm_free_user(u);
	}
}

static void apenet_notify_close_sess(struct apenet_notify_sup *s)
{
	if (s->sess) {
		void *sess = s->sess;
		s->sess = NULL;
		s->fd = -1;
		s->reqid = 0; /* callbacks run by the close are stale */
		snmp_sess_close(sess);
	}
}

/* A try failed: session closed, the next one after backoff_ms. */
static void apenet_notify_down(struct apenet_notify_sup *s, int64_t now, const char *why)
{
	apenet_notify_close_sess(s);
	snprintf(s->last_error, sizeof(s->last_error), "%s", why);
	if (s->answering || !s->fail_since_ms) {
		/* One line when a supervisor stops answering, not one a try. */
		struct apenet_spool_stats st;
		apenet_spool_stats(s->n->spool, &st);
		apenet_log(APENET_LOG_WARN,
			   "supervisor %s: %s; its %llu unacknowledged reports stay in the spool and are resent in "
			   "order when it answers",
			   s->addr, why, (unsigned long long)st.outstanding[s->idx]);
		s->fail_since_ms = now;
	} else {
		/* Every later try at info: a receiver that got an INFORM whose
		 * answer came too late sees it again, and this line says why. */
		apenet_log(APENET_LOG_INFO, "supervisor %s: %s; trying again in %u ms", s->addr, why,
			   s->n->cfg.backoff_ms);
	}
	s->answering = 0;
	s->state = APENET_NOTIFY_DOWN;
	s->due_ms = now + s->n->cfg.backoff_ms;
}

static int apenet_notify_cb(int op, netsnmp_session *session, int reqid, netsnmp_pdu *pdu, void *magic)
{
	struct apenet_notify_sup *s = magic;
	if (!s || !s->reqid)
		return 1; /* nothing outstanding: a closed session's leftovers */
	/* A Report that refuses an SNMPv3 request (wrong passphrase, unknown
	 * user) comes with request id 0; while an INFORM is out it is the
	 * only request of the session, so it is about that one. */
	int refusal = reqid == 0 && s->state == APENET_NOTIFY_SENDING &&
		      (op == NETSNMP_CALLBACK_OP_SEC_ERROR ||
		       (op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && pdu && pdu->command == SNMP_MSG_REPORT));
	if (reqid != s->reqid && !refusal)
		return 1; /* a stale request */
	/* The probe's answer: a Report (usmStatsUnknownEngineIDs) that
	 * net-snmp hands over as a security error, carrying the supervisor's
	 * engine ID (RFC 3414 4) */
	if (s->state == APENET_NOTIFY_DISCOVERING && pdu && pdu->securityEngineIDLen &&
	    pdu->securityEngineIDLen <= sizeof(s->eid) &&
	    (op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || op == NETSNMP_CALLBACK_OP_SEC_ERROR)) {
		memcpy(s->eid, pdu->securityEngineID, pdu->securityEngineIDLen);
		s->eid_len = pdu->securityEngineIDLen;
		s->discovered = 1;
		s->reqid = 0;
		return 1;
	}
	switch (op) {
	case NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE:
		if (s->state == APENET_NOTIFY_DISCOVERING) {
			if (session->securityEngineIDLen) {
				s->discovered = 1;
				s->reqid = 0;
			}
			break;
		}
		s->reqid = 0;
		if (pdu->command == SNMP_MSG_RESPONSE && pdu->errstat == SNMP_ERR_NOERROR) {
			s->got_ack = 1;
		} else if (pdu->command == SNMP_MSG_REPORT) {
			int t = snmpv3_get_report_type(pdu);
			snprintf(s->why, sizeof(s->why), "refused the report: %s", snmp_api_errstring(t));
			s->failed = 1;
		} else {
			snprintf(s->why, sizeof(s->why), "answered with error %s", snmp_errstring((int)pdu->errstat));
			s->failed = 1;
		}
		break;
	case NETSNMP_CALLBACK_OP_RESEND:
		/* The engine-ID probe's Report taught the session the
		 * supervisor's engine ID, and net-snmp resends the probe: we
		 * need no answer to it. */
		if (s->state == APENET_NOTIFY_DISCOVERING && session->securityEngineIDLen) {
			s->discovered = 1;
			s->reqid = 0;
		}
		break;
	case NETSNMP_CALLBACK_OP_TIMED_OUT:
		s->reqid = 0;
		snprintf(s->why, sizeof(s->why), "no answer (%u tries of %u ms)", s->n->cfg.retries + 1,
			 s->n->cfg.timeout_ms);
		s->failed = 1;
		break;
	case NETSNMP_CALLBACK_OP_SEC_ERROR:
		s->reqid = 0;
		snprintf(s->why, sizeof(s->why), "refused the report: %s",
			 pdu && pdu->command == SNMP_MSG_REPORT ? snmp_api_errstring(snmpv3_get_report_type(pdu))
								: "security error");
		s->failed = 1;
		break;
	case NETSNMP_CALLBACK_OP_SEND_FAILED:
	case NETSNMP_CALLBACK_OP_DISCONNECT:
		s->reqid = 0;
		snprintf(s->why, sizeof(s->why), "%s",
			 op == NETSNMP_CALLBACK_OP_SEND_FAILED ? "sending failed" : "disconnected");
		s->failed = 1;
		break;
	}
	return 1;
}

static void apenet_notify_sess_error(void *sess, char *buf, size_t len)
{
	int liberr = 0, syserr = 0;
	char *str = NULL;
	snmp_sess_error(sess, &liberr, &syserr, &str);
	snprintf(buf, len, "%s", str ? str : "unknown net-snmp error");
	SNMP_FREE(str);
}

/* The session's socket when it has exactly one (UDP), else -1.  An idle
 * session (no request out) has no timer either: the agent's loop then
 * polls that socket alone and asks net-snmp nothing until it is readable
 * (select_info and timeout calls on every pass cost more than a report). */
static int apenet_notify_sess_fd(void *sess)
{
	netsnmp_large_fd_set set;
	int numfds = 0, block = 1, fd = -1, n = 0;
	struct timeval tv = { 0, 0 };
	netsnmp_large_fd_set_init(&set, FD_SETSIZE);
	NETSNMP_LARGE_FD_ZERO(&set);
	snmp_sess_select_info2(sess, &numfds, &set, &tv, &block);
	for (int i = 0; i < numfds; i++)
		if (NETSNMP_LARGE_FD_ISSET(i, &set)) {
			fd = i;
			n++;
		}
	netsnmp_large_fd_set_cleanup(&set);
	return n == 1 ? fd : -1;
}

/* Idle with its one socket known: nothing for net-snmp to time. */
static int apenet_notify_quiet(const struct apenet_notify_sup *s)
{
	return s->sess && s->fd >= 0 && s->state == APENET_NOTIFY_IDLE && !s->reqid;
}

/* Opens a session.  SNMPv3 without the supervisor's engine ID (eid NULL)
 * starts its discovery; with it, the session is ready to send. */
static void apenet_notify_connect(struct apenet_notify_sup *s, int64_t now, const u_char *eid, size_t eidlen)
{
	const struct apenet_notify_config *c = &s->n->cfg;
	netsnmp_session ss;
	char why[256];
	snmp_sess_init(&ss);
	ss.peername = s->peer;
	ss.timeout = (long)c->timeout_ms * 1000;
	ss.retries = (int)c->retries;
	if (c->version == APENET_SNMP_V2C) {
		ss.version = SNMP_VERSION_2c;
		ss.community = (u_char *)s->n->cfg.community;
		ss.community_len = strlen(c->community);
	} else {
		ss.version = SNMP_VERSION_3;
		ss.securityName = s->n->key.user;
		ss.securityNameLen = strlen(s->n->key.user);
		ss.securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
		ss.securityModel = SNMP_SEC_MODEL_USM;
		ss.securityAuthProto = usmHMAC192SHA256AuthProtocol;
		ss.securityAuthProtoLen = OID_LENGTH(usmHMAC192SHA256AuthProtocol);
		memcpy(ss.securityAuthKey, s->n->key.auth_ku, APENET_USM_KEY_LEN);
		ss.securityAuthKeyLen = APENET_USM_KEY_LEN;
		ss.securityPrivProto = usmAESPrivProtocol;
		ss.securityPrivProtoLen = USM_PRIV_PROTO_AES_LEN;
		memcpy(ss.securityPrivKey, s->n->key.priv_ku, APENET_USM_KEY_LEN);
		ss.securityPrivKeyLen = APENET_USM_KEY_LEN;
		/* net-snmp would probe for the engine ID inside the first send,
		 * blocking for timeout x (retries + 1) when the supervisor is
		 * away; we probe asynchronously instead. */
		ss.flags |= SNMP_FLAGS_DONT_PROBE;
		if (eid) {
			ss.securityEngineID = (u_char *)eid;
			ss.securityEngineIDLen = eidlen;
		}
	}
	s->sess = snmp_sess_open(&ss);
	if (!s->sess) {
		int liberr = 0, syserr = 0;
		char *str = NULL;
		snmp_error(&ss, &liberr, &syserr, &str);
		snprintf(why, sizeof(why), "cannot open a session to %.60s: %.120s", s->peer, str ? str : "?");
		SNMP_FREE(str);
		apenet_notify_down(s, now, why);
		return;
	}
	s->fd = apenet_notify_sess_fd(s->sess);
	if (c->version == APENET_SNMP_V2C) {
		s->state = APENET_NOTIFY_IDLE;
		return;
	}
	/* The flag given to snmp_sess_open does not reach the session it
	 * opens (net-snmp 5.9): without it on the session itself, sending the
	 * probe below runs net-snmp's own probe first, synchronously, and the
	 * agent's loop stalls timeout x (retries + 1) whenever a supervisor
	 * is away (the watchdog then declares this host dead). */
	snmp_sess_session(s->sess)->flags |= SNMP_FLAGS_DONT_PROBE;
	if (eid) {
		/* Keys localized to the supervisor's engine (net-snmp may have
		 * made its user already while it processed the Report). */
		netsnmp_session *sp = snmp_sess_session(s->sess);
		if (!(sp->flags & SNMP_FLAGS_USER_CREATED) && create_user_from_session(sp) != SNMPERR_SUCCESS) {
			apenet_notify_down(s, now, "cannot set up the SNMPv3 user for the supervisor's engine");
			return;
		}
		s->state = APENET_NOTIFY_IDLE;
		return;
	}
	/* RFC 3414 4: a request without engine ID, noAuthNoPriv, empty user:
	 * the supervisor answers with a Report that carries its engine ID,
	 * boots and time. */
	netsnmp_pdu *probe = snmp_pdu_create(SNMP_MSG_GET);
	if (!probe) {
		apenet_notify_down(s, now, "out of memory");
		return;
	}
	probe->version = SNMP_VERSION_3;
	probe->securityName = strdup("");
	probe->securityNameLen = 0;
	probe->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	probe->securityModel = SNMP_SEC_MODEL_USM;
	s->discovered = 0;
	s->eid_len = 0;
	s->state = APENET_NOTIFY_DISCOVERING;
	int reqid = snmp_sess_async_send(s->sess, probe, apenet_notify_cb, s);
	if (!reqid) {
		apenet_notify_sess_error(s->sess, why, sizeof(why));
		snmp_free_pdu(probe);
		char msg[220];
		snprintf(msg, sizeof(msg), "engine ID probe: %.200s", why);
		apenet_notify_down(s, now, msg);
		return;
	}
	s->reqid = reqid;
}

/* Sends the oldest event supervisor s has not acknowledged, if any. */
static void apenet_notify_pump(struct apenet_notify_sup *s, int64_t now)
{
	if (s->state != APENET_NOTIFY_IDLE || !s->sess)
		return;
	struct apenet_report ev;
	struct apenet_err e = { 0 };
	int64_t id;
	netsnmp_pdu *pdu;
	for (;;) {
		int r = apenet_spool_next(s->n->spool, s->idx, &ev, &id, &e);
		if (r < 0) {
			apenet_log(APENET_LOG_ERR, "supervisor %s: %s", s->addr, e.msg);
			apenet_notify_down(s, now, "the spool could not be read");
			return;
		}
		if (r == 0)
			return;
		pdu = apenet_report_pdu(&ev, (uint32_t)((now - s->n->start_ms) / 10), &e);
		if (pdu)
			break;
		if (e.code != APENET_EINVAL) {
			apenet_notify_down(s, now, "cannot build the INFORM (out of memory)");
			return;
		}
		/* Stored by an older agent that let it in, and no INFORM can
		 * carry it: waiting for it would hold back every later report. */
		apenet_log(APENET_LOG_ERR, "supervisor %s: report %s/%llu cannot be sent and is dropped: %s", s->addr,
			   ev.boot, (unsigned long long)ev.seq, e.msg);
		if (apenet_spool_ack(s->n->spool, s->idx, id, apenet_clock_epoch_ms(), &e)) {
			apenet_log(APENET_LOG_ERR, "supervisor %s: %s", s->addr, e.msg);
			apenet_notify_down(s, now, "the spool could not be written");
			return;
		}
	}
	int reqid = snmp_sess_async_send(s->sess, pdu, apenet_notify_cb, s);
	if (!reqid) {
		char why[200], msg[256];
		apenet_notify_sess_error(s->sess, why, sizeof(why));
		snmp_free_pdu(pdu);
		snprintf(msg, sizeof(msg), "sending failed: %.200s", why);
		apenet_notify_down(s, now, msg);
		return;
	}
	s->reqid = reqid;
	s->inflight = id;
	s->inflight_seq = ev.seq;
	snprintf(s->inflight_boot, sizeof(s->inflight_boot), "%s", ev.boot);
	s->state = APENET_NOTIFY_SENDING;
	s->sent++;
}

/* Acts on what the callbacks noted. */
static void apenet_notify_settle(struct apenet_notify_sup *s, int64_t now)
{
	if (s->got_ack) {
		struct apenet_err e = { 0 };
		s->got_ack = 0;
		s->acked++;
		if (apenet_spool_ack(s->n->spool, s->idx, s->inflight, apenet_clock_epoch_ms(), &e))
			apenet_log(APENET_LOG_ERR, "supervisor %s: %s", s->addr, e.msg);
		if (!s->answering) {
			struct apenet_spool_stats st;
			apenet_spool_stats(s->n->spool, &st);
			if (s->fail_since_ms)
				apenet_log(APENET_LOG_NOTICE,
					   "supervisor %s answers again after %.1f s; %llu reports left to resend",
					   s->addr, (double)(now - s->fail_since_ms) / 1000.0,
					   (unsigned long long)st.outstanding[s->idx]);
			s->answering = 1;
			s->fail_since_ms = 0;
			s->last_error[0] = 0;
		}
		s->state = APENET_NOTIFY_IDLE;
	}
	if (s->discovered) {
		/* The probe taught the session the engine ID; net-snmp still
		 * holds the probe as outstanding (it resent it).  A new session
		 * that starts with the engine ID has no such leftover, so any
		 * answer on it is about our INFORM. */
		u_char eid[64];
		netsnmp_session *sp = snmp_sess_session(s->sess);
		size_t len = sp->securityEngineIDLen < sizeof(eid) ? sp->securityEngineIDLen : sizeof(eid);
		memcpy(eid, sp->securityEngineID, len);
		if (s->eid_len) {
			len = s->eid_len;
			memcpy(eid, s->eid, len);
			s->eid_len = 0;
		}
		s->discovered = 0;
		apenet_notify_close_sess(s);
		apenet_notify_connect(s, now, eid, len);
	}
	if (s->failed) {
		char why[256];
		s->failed = 0;
		s->unanswered++;
		if (s->state == APENET_NOTIFY_SENDING)
			snprintf(why, sizeof(why), "report %s/%llu: %s", s->inflight_boot,
				 (unsigned long long)s->inflight_seq, s->why);
		else
			snprintf(why, sizeof(why), "engine ID probe: %s", s->why);
		apenet_notify_down(s, now, why);
	}
}

int apenet_notifier_open(const struct apenet_notify_config *c, struct apenet_notifier **out, struct apenet_err *e)
{
	*out = NULL;
	if (apenet_notify_config_check(c, e))
		return -1;
	struct apenet_notifier *n = calloc(1, sizeof(*n));
	if (!n)
		return apenet_err_set(e, APENET_EIO, "notifier: out of memory");
	n->cfg = *c;
	n->nsup = c->nsupervisors;
	n->start_ms = apenet_clock_mono_ms();
	char dir[APENET_PATH_MAX];
	if (c->snmp_dir[0]) {
		snprintf(dir, sizeof(dir), "%s", c->snmp_dir);
	} else {
		const char *slash = strrchr(c->spool, '/');
		if (slash)
			snprintf(dir, sizeof(dir), "%.*s/snmp", (int)(slash - c->spool), c->spool);
		else
			snprintf(dir, sizeof(dir), "snmp");
	}
	const char *names[APENET_NOTIFY_MAX_SUPERVISORS];
	for (unsigned i = 0; i < n->nsup; i++) {
		struct apenet_notify_sup *s = &n->sup[i];
		s->n = n;
		s->idx = i;
		snprintf(s->addr, sizeof(s->addr), "%s", c->supervisors[i]);
		apenet_notify_peer(s->addr, s->peer, sizeof(s->peer), NULL, 0);
		s->state = APENET_NOTIFY_DOWN;
		s->answering = 1; /* until a try says otherwise */
		s->fd = -1;
		names[i] = s->addr;
	}
	if (apenet_spool_open(c->spool, names, n->nsup, c->spool_max_bytes, &n->spool, e) ||
	    apenet_snmp_init(dir, e)) {
		apenet_notifier_close(n);
		return -1;
	}
	if (c->version == APENET_SNMP_V3) {
		if (apenet_keys_read_node(c->key_file, &n->key, e)) {
			apenet_notifier_close(n);
			return -1;
		}
		apenet_notify_forget_users(n->key.user);
	}
	int64_t now = apenet_clock_mono_ms();
	for (unsigned i = 0; i < n->nsup; i++)
		apenet_notify_connect(&n->sup[i], now, NULL, 0);
	struct apenet_spool_stats st;
	apenet_spool_stats(n->spool, &st);
	if (c->version == APENET_SNMP_V3)
		apenet_log(APENET_LOG_INFO, "notifier: %u supervisors, SNMPv3 authPriv as %s, spool %s with %llu reports held",
			   n->nsup, n->key.user, c->spool, (unsigned long long)st.events);
	else
		/* said at every start: anyone on the service network can send
		 * what this agent sends (docs/security.md) */
		apenet_log(APENET_LOG_WARN,
			   "notifier: %u supervisors, SNMPv2c (community, unauthenticated: any host can forge these "
			   "reports; version 3 is the default), spool %s with %llu reports held",
			   n->nsup, c->spool, (unsigned long long)st.events);
	*out = n;
	return 0;
}

const char *apenet_notifier_user(const struct apenet_notifier *n)
{
	return n->cfg.version == APENET_SNMP_V3 ? n->key.user : "";
}

void apenet_notifier_close(struct apenet_notifier *n)
{
	if (!n)
		return;
	for (unsigned i = 0; i < n->nsup; i++)
		apenet_notify_close_sess(&n->sup[i]);
	if (n->cfg.version == APENET_SNMP_V3 && apenet_snmp_started())
		apenet_notify_forget_users(n->key.user);
	apenet_spool_close(n->spool);
	/* Passphrases and keys do not outlive the notifier in its memory. */
	explicit_bzero(n, sizeof(*n));
	free(n);
}

int apenet_notifier_submit(struct apenet_notifier *n, struct apenet_report *ev, struct apenet_err *e)
{
	if (!ev->time_ms)
		ev->time_ms = apenet_clock_epoch_ms();
	if (apenet_spool_add(n->spool, ev, NULL, e))
		return -1;
	int64_t now = apenet_clock_mono_ms();
	for (unsigned i = 0; i < n->nsup; i++)
		apenet_notify_pump(&n->sup[i], now);
	return 0;
}

int apenet_notifier_pollfds(struct apenet_notifier *n, struct pollfd *fds, int max, int *timeout_ms)
{
	int64_t now = apenet_clock_mono_ms();
	int64_t next = -1;
	int k = 0, full = 0;
	for (unsigned i = 0; i < n->nsup; i++) {
		struct apenet_notify_sup *s = &n->sup[i];
		if (!s->sess) {
			int64_t d = s->due_ms > now ? s->due_ms - now : 0;
			if (next < 0 || d < next)
				next = d;
			continue;
		}
		if (apenet_notify_quiet(s)) {
			if (k >= max) {
				full = 1;
				continue;
			}
			fds[k].fd = s->fd;
			fds[k].events = POLLIN;
			fds[k].revents = 0;
			k++;
			continue;
		}
		netsnmp_large_fd_set set;
		int numfds = 0, block = 1;
		struct timeval tv = { 0, 0 };
		netsnmp_large_fd_set_init(&set, FD_SETSIZE);
		NETSNMP_LARGE_FD_ZERO(&set);
		snmp_sess_select_info2(s->sess, &numfds, &set, &tv, &block);
		for (int fd = 0; fd < numfds; fd++) {
			if (!NETSNMP_LARGE_FD_ISSET(fd, &set))
				continue;
			if (k >= max) {
				full = 1;
				continue;
			}
			fds[k].fd = fd;
			fds[k].events = POLLIN;
			fds[k].revents = 0;
			k++;
		}
		netsnmp_large_fd_set_cleanup(&set);
		if (!block) {
			/* Rounded up: waking before net-snmp's timer is due would
			 * only spin. */
			int64_t d = (int64_t)tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000;
			if (next < 0 || d < next)
				next = d;
		}
	}
	if (next >= 0 && (*timeout_ms < 0 || next < *timeout_ms))
		*timeout_ms = next > 0x7fffffff ? 0x7fffffff : (int)next;
	if (full) {
		errno = ENOSPC;
		return -1;
	}
	return k;
}

void apenet_notifier_dispatch(struct apenet_notifier *n, const struct pollfd *fds, int nfds)
{
	for (unsigned i = 0; i < n->nsup; i++) {
		struct apenet_notify_sup *s = &n->sup[i];
		if (!s->sess)
			continue;
		if (apenet_notify_quiet(s)) {
			int ready = 0;
			for (int j = 0; fds && j < nfds; j++)
				ready |= fds[j].fd == s->fd && fds[j].revents;
			if (!ready)
				continue;
		}
		/* This session's descriptors that poll found readable. */
		netsnmp_large_fd_set mine, ready;
		int numfds = 0, block = 1, any = 0;
		struct timeval tv = { 0, 0 };
		netsnmp_large_fd_set_init(&mine, FD_SETSIZE);
		netsnmp_large_fd_set_init(&ready, FD_SETSIZE);
		NETSNMP_LARGE_FD_ZERO(&mine);
		NETSNMP_LARGE_FD_ZERO(&ready);
		snmp_sess_select_info2(s->sess, &numfds, &mine, &tv, &block);
		for (int j = 0; fds && j < nfds; j++)
			if (fds[j].fd >= 0 && fds[j].fd < numfds && fds[j].revents &&
			    NETSNMP_LARGE_FD_ISSET(fds[j].fd, &mine)) {
				NETSNMP_LARGE_FD_SET(fds[j].fd, &ready);
				any = 1;
			}
		if (any)
			snmp_sess_read2(s->sess, &ready);
		/* Resends and timeouts that are due (it looks at the clock). */
		if (s->sess)
			snmp_sess_timeout(s->sess);
		netsnmp_large_fd_set_cleanup(&mine);
		netsnmp_large_fd_set_cleanup(&ready);
	}
	run_alarms();
	int64_t now = apenet_clock_mono_ms();
	for (unsigned i = 0; i < n->nsup; i++) {
		struct apenet_notify_sup *s = &n->sup[i];
		apenet_notify_settle(s, now);
		if (!s->sess && s->state == APENET_NOTIFY_DOWN && now >= s->due_ms)
			apenet_notify_connect(s, now, NULL, 0);
		apenet_notify_pump(s, now);
	}
}

int apenet_notifier_backlog(const struct apenet_notifier *n)
{
	for (unsigned i = 0; i < n->nsup; i++) {
		const struct apenet_notify_sup *s = &n->sup[i];
		/* a supervisor that does not answer is tried on its own
		 * schedule: its backlog is no reason to wake sooner */
		if (s->sess && s->answering && apenet_spool_outstanding(s->n->spool, s->idx) > (s->reqid ? 1u : 0u))
			return 1;
	}
	return 0;
}

/* The agent asks for the status every pass of its loop: strings copied
 * without a format. */
static void apenet_notify_copy(char *dst, size_t n, const char *src)
{
	size_t len = strnlen(src, n - 1);
	memcpy(dst, src, len);
	dst[len] = 0;
}

void apenet_notifier_status(const struct apenet_notifier *n, struct apenet_notify_status *st)
{
	struct apenet_spool_stats ss;
	memset(st, 0, sizeof(*st));
	apenet_spool_stats(n->spool, &ss);
	st->nsupervisors = n->nsup;
	for (unsigned i = 0; i < n->nsup; i++) {
		const struct apenet_notify_sup *s = &n->sup[i];
		struct apenet_notify_sup_status *o = &st->sup[i];
		apenet_notify_copy(o->addr, sizeof(o->addr), s->addr);
		o->state = s->state;
		o->answering = s->answering;
		o->last_ack_ms = ss.last_ack_ms[i];
		o->outstanding = ss.outstanding[i];
		o->sent = s->sent;
		o->acked = s->acked;
		o->unanswered = s->unanswered;
		apenet_notify_copy(o->last_error, sizeof(o->last_error), s->last_error);
	}
	st->spool_events = ss.events;
	st->spool_transitions = ss.transitions;
	st->spool_heartbeats = ss.heartbeats;
	st->spool_bytes = ss.bytes;
	st->spool_max_bytes = ss.max_bytes;
	st->heartbeats_dropped = ss.dropped;
}
