/*
 * The supervisor's listening session: one net-snmp session on a server
 * transport (as snmptrapd's), read from the one poll loop.  Every
 * notification is checked (community, or SNMPv3 authPriv from a node user
 * speaking for itself: v3.c), decoded with the agents' own codec (snmp/report_pdu.c)
 * and queued with its acknowledgement, which batch.c sends only after the
 * batch that holds the report is committed.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/clock.h"
#include "apenet/log.h"
#include "apenet/report_pdu.h"
#include "apenet/v2c.h"
#include "sup.h"

static int grow(struct sup *s)
{
	if (s->nq < s->capq)
		return 0;
	size_t cap = s->capq ? s->capq * 2 : 256;
	struct sup_item *q = realloc(s->q, cap * sizeof(*q));
	if (!q)
		return -1;
	s->q = q;
	s->capq = cap;
	return 0;
}

/* Who sent it, for the log: "udp: [127.0.0.1]:40000->[...]" as net-snmp
 * formats its transport addresses.  (The session is s->sess:
 * snmp_sess_pointer() finds only the sessions of net-snmp's global list,
 * which snmp_sess_add's is not.) */
static void peer_of(const struct sup *s, const netsnmp_pdu *pdu, char *buf, size_t n)
{
	netsnmp_transport *t = s->sess ? snmp_sess_transport(s->sess) : NULL;
	char *a = t && t->f_fmtaddr ? t->f_fmtaddr(t, pdu->transport_data, pdu->transport_data_length) : NULL;
	snprintf(buf, n, "%s", a ? a : "?");
	free(a);
}

/* The SNMPv3 notification being handed to on_pdu by v3.c, and its node. */
static const struct sup_v3_rx *v3_cur;
static unsigned v3_who[3];

/* Whether the notification comes with the credentials agents are given
 * (the config's `supervisors:` section): the community for SNMPv2c; the
 * user, authenticated and encrypted, for SNMPv3. */
static int allowed(const struct sup *s, const netsnmp_pdu *pdu, char *why, size_t n)
{
	const struct apenet_notify_config *c = &s->cfg.sup;
	if (pdu->version == SNMP_VERSION_2c) {
		if (c->version != APENET_SNMP_V2C) {
			snprintf(why, n, "SNMPv2c, but the config says SNMPv3");
			return 0;
		}
		size_t cl = strlen(c->community);
		if (pdu->community_len != cl || memcmp(pdu->community, c->community, cl)) {
			snprintf(why, n, "wrong community");
			return 0;
		}
		return 1;
	}
	if (pdu->version == SNMP_VERSION_3) {
		if (c->version != APENET_SNMP_V3) {
			snprintf(why, n, "SNMPv3, but the config says SNMPv2c");
			return 0;
		}
		if (!v3_cur) {
			/* only v3.c's USM knows the node users: one net-snmp
			 * let through would be a forgery */
			snprintf(why, n, "SNMPv3 outside the node users' USM");
			return 0;
		}
		return 1;
	}
	snprintf(why, n, "SNMP version %ld", pdu->version);
	return 0;
}

static void complain(struct sup *s, const netsnmp_pdu *pdu, const char *what, const char *why)
{
	if (!sup_complain_now(s))
		return;
	char peer[128];
	peer_of(s, pdu, peer, sizeof(peer));
	apenet_log(APENET_LOG_WARN, "%s from %s: %s (%llu refused, %llu rejected so far)", what, peer, why,
		   (unsigned long long)s->n.refused, (unsigned long long)s->n.rejected);
}

/* The RESPONSE to an INFORM carries its request-id and its variable
 * bindings (RFC 3416 4.2.7).  The bindings are moved into it rather than
 * copied (the report was decoded from them already, and net-snmp frees the
 * INFORM when the callback returns): a deep copy of 16 bindings is most of
 * what a clone costs. */
static netsnmp_pdu *reply_for(netsnmp_pdu *pdu, long errstat)
{
	if (pdu->command != SNMP_MSG_INFORM)
		return NULL;
	netsnmp_variable_list *vars = pdu->variables;
	pdu->variables = NULL;
	netsnmp_pdu *r = snmp_clone_pdu(pdu);
	if (!r) {
		pdu->variables = vars;
		return NULL;
	}
	r->variables = vars;
	r->command = SNMP_MSG_RESPONSE;
	r->errstat = errstat;
	r->errindex = 0;
	return r;
}

static int raw_ack(const netsnmp_pdu *pdu, unsigned errstat, struct sup_item *it);
static void raw_send_now(struct sup *s, struct sup_item *it);
/* on_pdu is called by this file's own SNMPv2c reader (1) rather than by
 * net-snmp: the PDU is not net-snmp's to clone or free. */
static int fast_mode;

static int on_pdu(int op, netsnmp_session *ss, int reqid, netsnmp_pdu *pdu, void *magic)
{
	struct sup *s = magic;
	(void)ss;
	(void)reqid;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE)
		return 1;
	if (pdu->command != SNMP_MSG_INFORM && pdu->command != SNMP_MSG_TRAP2)
		return 1; /* a GET, a stray response: not for us */
	s->n.received++;
	char why[160];
	if (!allowed(s, pdu, why, sizeof(why))) {
		s->n.refused++;
		complain(s, pdu, "notification refused", why);
		return 1;
	}
	if (grow(s)) {
		/* no ack: the agent sends it again */
		apenet_log(APENET_LOG_ERR, "out of memory: a report dropped unacknowledged");
		return 1;
	}
	struct sup_item *it = &s->q[s->nq];
	struct apenet_err e = { 0 };
	if (apenet_report_from_pdu(pdu, &it->r, &e)) {
		/* Not a report we can ever store: acknowledged with an error, so
		 * that it does not block the agent's spool forever; the log says
		 * what was wrong with it. */
		s->n.rejected++;
		complain(s, pdu, "report rejected", e.msg);
		struct sup_item rej = { 0 };
		if (raw_ack(pdu, SNMP_ERR_GENERR, &rej)) {
			raw_send_now(s, &rej);
		} else if (!fast_mode) {
			netsnmp_pdu *r = reply_for(pdu, SNMP_ERR_GENERR);
			if (r && !(s->sess && snmp_sess_send(s->sess, r)))
				snmp_free_pdu(r);
		}
		return 1;
	}
	if (v3_cur && !apenet_report_speaker_ok(&it->r, v3_who, s->cfg.cl.have ? s->cfg.cl.dims : NULL, why, sizeof(why))) {
		/* authentic, but not the sender's to say: not stored, not
		 * acknowledged */
		s->n.v3[SUP_V3_SPEAKS_FOR_OTHER]++;
		s->n.refused++;
		sup_v3_complain(s, v3_cur, SUP_V3_SPEAKS_FOR_OTHER, why);
		return 1;
	}
	it->recv_ms = apenet_clock_epoch_ms();
	it->reply = NULL;
	it->ack = NULL;
	if (!raw_ack(pdu, SNMP_ERR_NOERROR, it) && !fast_mode)
		it->reply = reply_for(pdu, SNMP_ERR_NOERROR);
	if (!s->nq)
		s->q_first_mono = apenet_clock_mono_ms();
	s->nq++;
	return 1;
}

/*
 * Reading in batches.  net-snmp reads one datagram per snmp_sess_read,
 * through its transport's f_recv: for UDP over IPv4 a poll to see whether
 * there is more, a recvmsg and a getsockname per datagram.  On an IPv4
 * socket that hook is replaced by rx_recv, which hands out the datagrams of
 * one recvmmsg (up to RX_BATCH), each with the address pair net-snmp's own
 * (netsnmp_udpbase_recv) returns: the sender, and the local address and
 * interface it came to (IP_PKTINFO, so that the acknowledgement leaves from
 * that address), the port from the socket's own address, read once.  The
 * rest of net-snmp's path (parsing, SNMPv3 security, the callback) is
 * unchanged.  One listening session per process: the batch is file-scope.
 */
#define RX_BATCH 64
#define RX_MAX 8192 /* an agent's INFORM is under 1.5 KB; larger is not ours and is skipped */

static struct {
	int on;                       /* the hook is installed */
	struct sockaddr_in local;     /* the socket's own address */
	int n, next;                  /* datagrams read, and handed out */
	struct mmsghdr mm[RX_BATCH];
	struct iovec iov[RX_BATCH];
	struct sockaddr_in from[RX_BATCH];
	char ctl[RX_BATCH][CMSG_SPACE(sizeof(struct in_pktinfo))];
	unsigned char buf[RX_BATCH][RX_MAX];
} rx;

/* One recvmmsg of at most want datagrams, without waiting; how many. */
static int rx_fill(int sock, unsigned want)
{
	if (want > RX_BATCH)
		want = RX_BATCH;
	for (unsigned i = 0; i < want; i++) {
		rx.iov[i].iov_base = rx.buf[i];
		rx.iov[i].iov_len = sizeof(rx.buf[i]);
		memset(&rx.mm[i].msg_hdr, 0, sizeof(rx.mm[i].msg_hdr));
		rx.mm[i].msg_hdr.msg_name = &rx.from[i];
		rx.mm[i].msg_hdr.msg_namelen = sizeof(rx.from[i]);
		rx.mm[i].msg_hdr.msg_iov = &rx.iov[i];
		rx.mm[i].msg_hdr.msg_iovlen = 1;
		rx.mm[i].msg_hdr.msg_control = rx.ctl[i];
		rx.mm[i].msg_hdr.msg_controllen = sizeof(rx.ctl[i]);
	}
	int n;
	do
		n = recvmmsg(sock, rx.mm, want, MSG_DONTWAIT, NULL);
	while (n < 0 && errno == EINTR);
	rx.n = n > 0 ? n : 0;
	rx.next = 0;
	return rx.n;
}

/* A refusal's answer goes at once (nothing of it waits for a commit). */
static void raw_send_now(struct sup *s, struct sup_item *it)
{
	if (s->sock >= 0)
		s->n.acked += sup_ack_send(s->sock, it, 1);
	free(it->ack);
	it->ack = NULL;
}

/* The sender and local address of datagram k, as net-snmp's transport
 * gives them (for the log's "from"). */
static void rx_pair(int k, netsnmp_indexed_addr_pair *a)
{
	memset(a, 0, sizeof(*a));
	memcpy(&a->remote_addr.sin, &rx.from[k], sizeof(rx.from[k]));
	a->local_addr.sin = rx.local;
	const struct msghdr *h = &rx.mm[k].msg_hdr;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c))
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			a->local_addr.sin.sin_addr = pi.ipi_addr;
			a->if_index = pi.ipi_ifindex;
		}
}

/*
 * The next datagram, if it is an SNMPv2c notification this file reads
 * itself (include/apenet/v2c.h: no allocation, no session), handed to
 * on_pdu as net-snmp would hand it; 1 when it was, 0 when net-snmp must
 * read it (SNMPv3, anything the fast reader refuses).  Most of what the
 * supervisor spent per report was net-snmp's parse and its allocations
 * (docs/supervisor.md, "Load").
 */
static struct apenet_v2c_msg *v2c;
static struct sup *rx_sup; /* for raw_ack, which on_pdu calls without it */

/* The local address datagram k came to (IP_PKTINFO), or the socket's. */
static struct in_addr rx_local(int k)
{
	struct in_addr a = rx.local.sin_addr;
	const struct msghdr *h = &rx.mm[k].msg_hdr;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c))
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			a = pi.ipi_addr;
		}
	return a;
}

/* The notification the fast reader read into v2c (an SNMPv2c one, or an
 * authentic SNMPv3 one: r3), handed to on_pdu as net-snmp would. */
static void rx_deliver(struct sup *s, int k, const struct sup_v3_rx *r3)
{
	netsnmp_pdu *pdu = apenet_v2c_pdu(v2c);
	netsnmp_indexed_addr_pair pair;
	rx_pair(k, &pair);
	pdu->transport_data = &pair;
	pdu->transport_data_length = sizeof(pair);
	fast_mode = 1;
	v3_cur = r3;
	rx_sup = s;
	on_pdu(NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE, NULL, (int)pdu->reqid, pdu, s);
	v3_cur = NULL;
	fast_mode = 0;
	pdu->transport_data = NULL;
}

static int rx_fast(struct sup *s)
{
	int k = rx.next;
	const struct msghdr *h = &rx.mm[k].msg_hdr;
	if ((h->msg_flags & MSG_TRUNC) || (!v2c && !(v2c = apenet_v2c_new())))
		return 0;
	if (s->v3) {
		struct sup_v3_rx r3 = { rx.buf[k], rx.mm[k].msg_len, rx.from[k], rx_local(k) };
		int t = sup_v3_take(s, &r3, v2c, v3_who);
		if (t >= 0) {
			rx.next++;
			if (t == 1)
				rx_deliver(s, k, &r3);
			return 1;
		}
	}
	if (apenet_v2c_parse(rx.buf[k], rx.mm[k].msg_len, v2c))
		return 0;
	rx.next++;
	rx_deliver(s, k, NULL);
	return 1;
}

static int rx_recv(netsnmp_transport *t, void *buf, int size, void **opaque, int *olength)
{
	(void)t;
	*opaque = NULL;
	*olength = 0;
	while (rx.next < rx.n) {
		int k = rx.next++;
		const struct msghdr *h = &rx.mm[k].msg_hdr;
		int len = (int)rx.mm[k].msg_len;
		if ((h->msg_flags & MSG_TRUNC) || len > size)
			continue;
		netsnmp_indexed_addr_pair *a = malloc(sizeof(*a));
		if (!a)
			return -1;
		rx_pair(k, a);
		memcpy(buf, rx.buf[k], (size_t)len);
		*opaque = a;
		*olength = sizeof(*a);
		return len;
	}
	errno = EAGAIN;
	return -1;
}

/* The acknowledgement of the SNMPv2c INFORM being handled, as bytes: net-snmp
 * parses one datagram at a time, from rx_recv, and calls back before it
 * reads the next, so that datagram is the last one handed out.  0 when
 * there is none (no hook, SNMPv3, a TRAP2, or bytes snmp/v2c_ack.c
 * refuses): then net-snmp answers. */
static int raw_ack(const netsnmp_pdu *pdu, unsigned errstat, struct sup_item *it)
{
	if (v3_cur)
		return pdu->command == SNMP_MSG_INFORM && sup_v3_ack(rx_sup, errstat, it, v3_cur);
	if (!rx.on || rx.next < 1 || pdu->command != SNMP_MSG_INFORM || pdu->version != SNMP_VERSION_2c)
		return 0;
	int k = rx.next - 1;
	size_t len = rx.mm[k].msg_len;
	uint8_t *b = malloc(len ? len : 1);
	if (!b)
		return 0;
	if (apenet_v2c_inform_ack(rx.buf[k], len, errstat, b, len) != len) {
		free(b);
		return 0;
	}
	it->ack = b;
	it->ack_len = len;
	it->ack_to = rx.from[k];
	it->ack_from = rx_local(k);
	return 1;
}

/* On an IPv4 UDP transport: rx_recv in place of net-snmp's f_recv, and the
 * destination address of every datagram asked for (net-snmp asks too). */
static void rx_hook(netsnmp_transport *t)
{
	socklen_t l = sizeof(rx.local);
	int on = 1;
	memset(&rx, 0, sizeof(rx));
	if (t->sock < 0 || getsockname(t->sock, (struct sockaddr *)&rx.local, &l) || l != sizeof(rx.local) ||
	    rx.local.sin_family != AF_INET || setsockopt(t->sock, SOL_IP, IP_PKTINFO, &on, sizeof(on)))
		return;
	t->f_recv = rx_recv;
	rx.on = 1;
}

int sup_recv_open(struct sup *s, struct apenet_err *e)
{
	char spec[200], why[160];
	if (apenet_notify_peer(s->listen, spec, sizeof(spec), why, sizeof(why)))
		return apenet_err_set(e, APENET_EINVAL, "listen '%s': %s", s->listen, why);
	if (apenet_snmp_init(s->snmp_dir, e))
		return -1;
	const struct apenet_notify_config *c = &s->cfg.sup;
	if (c->version == APENET_SNMP_V3 && sup_v3_open(s, e))
		return -1;
	if (c->version != APENET_SNMP_V3)
		apenet_log(APENET_LOG_WARN, "SNMPv2c (community): any host on the service network can send reports "
					    "this supervisor stores; version 3 is the default (docs/security.md)");
	netsnmp_transport *t = netsnmp_transport_open_server("apenet-supervisor", spec);
	if (!t)
		return apenet_err_set(e, APENET_EIO, "cannot listen on %s: %s", s->listen,
				      errno ? strerror(errno) : "net-snmp refused the address");
	/* Bursts wait in the socket while a batch commits: a large receive
	 * buffer (docs/supervisor.md, "Load").  SO_RCVBUFFORCE needs
	 * CAP_NET_ADMIN; without it the kernel caps SO_RCVBUF at rmem_max. */
	int want = (int)(s->cfg.svr.recv_buffer_kib * 1024);
	if (setsockopt(t->sock, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)))
		setsockopt(t->sock, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	rx_hook(t);
	if (s->v3 && !rx.on) {
		netsnmp_transport_free(t);
		return apenet_err_set(e, APENET_EINVAL, "listen '%s': SNMPv3 is read on IPv4 addresses only", s->listen);
	}
	netsnmp_session in;
	snmp_sess_init(&in);
	in.peername = SNMP_DEFAULT_PEERNAME;
	in.version = SNMP_DEFAULT_VERSION;
	in.community_len = SNMP_DEFAULT_COMMUNITY_LEN;
	in.retries = SNMP_DEFAULT_RETRIES;
	in.timeout = SNMP_DEFAULT_TIMEOUT;
	in.callback = on_pdu;
	in.callback_magic = s;
	in.authenticator = NULL;
	in.isAuthoritative = SNMP_SESS_UNKNOWNAUTH;
	s->sess = snmp_sess_add(&in, t, NULL, NULL);
	if (!s->sess)
		return apenet_err_set(e, APENET_EIO, "net-snmp: cannot start a session on %s", s->listen);
	s->sock = t->sock;
	/* What the buffer holds (the kernel counts twice what was asked, for
	 * its overhead): with 16 MiB or more an open batch gathers in the
	 * socket until it is due instead of a wake-up per datagram (loop.c);
	 * with less, each arrival is read as it comes.  16 MiB holds a burst
	 * from a tenth of 32,768 nodes, the rest's 20 ms and a commit's with
	 * room to spare; with 8 MiB such a burst overflowed while a batch
	 * gathered (docs/supervisor.md, "Load").  Only through rx_recv's
	 * recvmmsg, which never waits. */
	int have = 0;
	socklen_t hl = sizeof(have);
	s->gather = rx.on && !getsockopt(s->sock, SOL_SOCKET, SO_RCVBUF, &have, &hl) && have >= SUP_GATHER_MIN_BUF;
	return 0;
}

void sup_recv_close(struct sup *s)
{
	if (s->sess)
		snmp_sess_close(s->sess);
	s->sess = NULL;
	s->sock = -1;
	rx.on = rx.n = rx.next = 0;
	free(v2c);
	v2c = NULL;
	sup_v3_close(s);
}

void sup_recv_read(struct sup *s, unsigned max)
{
	s->read_mono = apenet_clock_mono_ms();
	/* net-snmp reads one datagram a call: the socket is drained while it
	 * has more, up to max, so that one wake-up serves a burst.  With the
	 * hook, what one recvmmsg read is handed out first (never more than
	 * max, so nothing waits in the batch while the socket looks empty). */
	for (unsigned i = 0; i < max && s->sess; i++) {
		if (rx.on) {
			if (rx.next == rx.n && rx_fill(s->sock, max - i) == 0)
				break;
			if (rx_fast(s))
				continue;
		} else {
			struct pollfd p = { s->sock, POLLIN, 0 };
			if (i && poll(&p, 1, 0) <= 0)
				break;
		}
		fd_set set;
		FD_ZERO(&set);
		FD_SET(s->sock, &set);
		snmp_sess_read(s->sess, &set);
	}
}
