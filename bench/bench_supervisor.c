/*
 * apenet-supervisor under load (issue 9): a load generator emulating N nodes
 * (default 32,768 = 32x32x32, BENCH_SUP_NODES) that send real INFORMs, and
 * three receivers of the same load in the same run:
 *
 *   - apenet-supervisor, the real daemon (fork/exec, fresh database), which
 *     acknowledges an INFORM only after the batch holding it is committed;
 *   - a bare net-snmp receiver (this program again, --bare-receiver): a
 *     listening session on a server transport as snmptrapd's, one poll and
 *     one snmp_sess_read per datagram, a callback that clones the INFORM
 *     into a RESPONSE and sends it at once; no decoding, no database;
 *   - the database alone: the same rows as plain sqlite INSERTs in batches
 *     of 1000 (bench/rawdb.c, bench_hdb's baseline), no SNMP.
 *
 * The load: every node sends a heartbeat (apenetHeartbeat, boot id
 * "x,y,z#1") once a period (1 s, BENCH_SUP_PERIOD_MS), the nodes' phases
 * spread evenly over the period, for BENCH_SUP_S seconds (default 20); 1%
 * of the nodes report a transition (FPGA_TEMP sick, then normal again)
 * every 2 s; then, on top of the heartbeats, 10% of the nodes (3,277)
 * report a transition at once, and 3 s later its clear at once; heartbeats
 * go on 2 s more, then whatever is unanswered gets 3 s to be answered.
 *
 * The generator: every INFORM is encoded once per node and kind with
 * net-snmp (apenet_report_pdu, snmp_build: SNMPv2c, community "public");
 * the bytes of its request-id, sequence and time are found by encoding it
 * with marker values, and checked by encoding it again with other values of
 * the same length, which must give the template patched byte for byte.
 * Request-ids (0x01000000 + message number) and sequences (0x01000000 +
 * messages of the node so far: an agent up for half a year) keep their
 * 4-byte encodings, times (epoch ms) their 6 bytes.  Every millisecond
 * what is due is copied, patched and sent with sendmmsg from one connected
 * UDP socket; the RESPONSEs are read with recvmmsg without waiting, each
 * stamped by the kernel on arrival (SO_TIMESTAMPNS), and matched to its
 * INFORM by request-id: the ack delay is arrival - send, and an INFORM never
 * answered is lost.  The generator's own CPU share and how late it sent
 * (against each message's due time) are printed too: it must not be the
 * bottleneck.
 *
 * Figures (over the window from 2 s to BENCH_SUP_S, after the first
 * heartbeats of every node, which are news to a database): events offered
 * and acknowledged a second, INFORMs lost (over the whole run), CPU share of
 * one core (utime + stime from /proc/PID/stat), resident memory (now and
 * peak), ack delay p50/p99/max; the ratio supervisor CPU / bare receiver CPU
 * against the goals (<= 0.65x and 0 lost: issue 23; <= 35% of a core: issue
 * 9); each burst's time from its first send to its last ack; the kernel's
 * UDP receive-buffer drops during each run (/proc/net/snmp, machine-wide);
 * how each receiver was scheduled over the window (its run and its wait for
 * a CPU from /proc/PID/schedstat, its wake-ups and preemptions) and how
 * busy the machine was (/proc/stat): a receiver short of CPU is said so.
 *
 * Runs: BENCH_SUP_RUNS (default 3), each with both receivers of each
 * protocol, the bare receiver first in odd runs and the supervisor first in
 * even ones, each run with its own files; every run's ratio is printed, and
 * the summary says met only when every run met.  The bench runs in a session
 * of its own at nice BENCH_SUP_NICE (default -10; own_session below): the
 * same for both receivers, so that the other work of a shared machine does
 * not decide what each is given.
 *
 * SNMPv3 (the shipped default, BENCH_SUP_SNMP=2c,3 runs both, the default;
 * 2c or 3 one): every INFORM authPriv (HMAC-SHA-256-192, AES-128) as its
 * node's USM user with its key derived from a site secret, re-encrypted and
 * re-signed for every send (snmp/usm.c, the supervisor's own codec; the
 * supervisor's engine ID and boots read from its engine file); the bare
 * receiver's baseline is net-snmp's own USM with one user "bench" for every
 * node (net-snmp searches its users one by one: 32,768 of them would make
 * the baseline slower and the ratio flatter), answering each INFORM with a
 * RESPONSE net-snmp encrypts and signs.  RESPONSEs are matched by msgID (=
 * the request-id) and decrypted for their error-status.
 *
 * BENCH_SUP_ONLY=bare,supervisor,raw picks receivers;
 * BENCH_SUP_RCVBUF_KIB sets the supervisor's recv_buffer_kib (default 16384,
 * its own default; the bare receiver always has 16384); files go to
 * BENCH_SUP_DIR, else TMPDIR, else /var/tmp (a real disk: fsync is part of
 * the supervisor's cost); BENCH_KEEP=1 keeps them.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "../tests/e2e/e2e.h"
#include "apenet/keys.h"
#include "apenet/report_pdu.h"
#include "apenet/usm.h"
#include "rawdb.h"

#define DIM 32
#define MAX_NODES (DIM * DIM * DIM)
#define REQ_BASE 0x01000000u
#define SEQ_BASE 0x01000000u
#define TMPL_MAX 1024
#define SLOT_MAX 1536 /* a template wrapped in SNMPv3 */
#define SEND_BATCH 256
#define RECV_BATCH 256
#define TICK_NS 1000000L
#define WARM_S 2.0
#define STEADY_EVERY_S 2.0
#define BURST_GAP_S 3.0
#define TAIL_S 2.0
#define DRAIN_S 3.0
#define RCVBUF_KIB 16384 /* the supervisor's default recv_buffer_kib, for the bare receiver too */

/* ---- templates ---------------------------------------------------------- */

struct tmpl {
	uint8_t buf[TMPL_MAX];
	uint16_t len, off_req, off_seq, off_time;
	uint16_t off_pdu; /* where the PDU starts (after version and community) */
};

static void xyz_of(unsigned i, unsigned *x, unsigned *y, unsigned *z);

static double now_rt(void);

/* ---- SNMPv3 ------------------------------------------------------------ */

static int v3;                          /* this pass sends SNMPv3 authPriv */
static int v3_one;                      /* ...as one user "bench" (the bare receiver) */
static uint8_t v3_secret[APENET_SITE_SECRET_LEN];
static struct apenet_usm_keys *v3_keys; /* per node, localized to the receiver's engine; [0] for "bench" */
static uint8_t v3_engine[APENET_USM_ENGINE_MAX];
static size_t v3_engine_len;
static long v3_boots;
static double v3_time0;                 /* realtime when the receiver's engine time was 0 */
static uint64_t v3_salt;

/* The receiver's engine (its engine file, include/apenet/keys.h; its time 0
 * when it became ready) and every user's keys localized to it. */
static int v3_setup(const char *engine_file, double ready_rt, unsigned nusers)
{
	struct apenet_err e = { 0 };
	if (apenet_keys_read_engine(engine_file, v3_engine, &v3_engine_len, &v3_boots, &e)) {
		fprintf(stderr, "bench: no engine in %s %s\n", engine_file, e.msg);
		return -1;
	}
	v3_time0 = ready_rt;
	free(v3_keys);
	v3_keys = calloc(nusers, sizeof(*v3_keys));
	if (!v3_keys)
		return -1;
	for (unsigned i = 0; i < nusers; i++) {
		char user[40];
		uint8_t a[APENET_USM_KEY_LEN], p[APENET_USM_KEY_LEN];
		unsigned x, y, z;
		xyz_of(i, &x, &y, &z);
		if (v3_one)
			snprintf(user, sizeof(user), "bench");
		else
			apenet_usm_node_user(x, y, z, user, sizeof(user));
		if (apenet_usm_node_ku(v3_secret, sizeof(v3_secret), user, a, p))
			return -1;
		apenet_usm_localize(a, v3_engine, v3_engine_len, v3_keys[i].auth);
		apenet_usm_localize(p, v3_engine, v3_engine_len, v3_keys[i].priv);
	}
	return 0;
}

/* Node i's message (an SNMPv2c one, patched) as SNMPv3 authPriv into out. */
static size_t v3_wrap(unsigned i, const uint8_t *msg, const struct tmpl *t, uint32_t reqid, uint8_t *out, size_t cap)
{
	uint8_t sp[SLOT_MAX];
	char user[40];
	unsigned x, y, z;
	size_t sl = apenet_usm_scoped_write(v3_engine, v3_engine_len, msg + t->off_pdu, t->len - t->off_pdu, sp,
					    sizeof(sp));
	xyz_of(i, &x, &y, &z);
	if (v3_one)
		snprintf(user, sizeof(user), "bench");
	else
		apenet_usm_node_user(x, y, z, user, sizeof(user));
	struct apenet_usm_head h = { .msg_id = (long)reqid,
				     .flags = APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV | APENET_USM_FLAG_REPORTABLE,
				     .engine = v3_engine, .engine_len = v3_engine_len, .boots = v3_boots,
				     .time = (long)(now_rt() - v3_time0), .user = (const uint8_t *)user,
				     .user_len = strlen(user), .salt = ++v3_salt };
	return apenet_usm_write(&h, sp, sl, &v3_keys[v3_one ? 0 : i], out, cap);
}

enum { T_HB, T_RAISE, T_CLEAR };

struct node {
	struct tmpl *t[3]; /* heartbeat; transition raise and clear (NULL: not in a transition set) */
	uint64_t seq;      /* messages sent so far in this run */
};

static unsigned nnodes;
static struct node *nodes;

static void xyz_of(unsigned i, unsigned *x, unsigned *y, unsigned *z)
{
	*x = i % DIM;
	*y = i / DIM % DIM;
	*z = i / (DIM * DIM);
}

/* The report node i sends, of kind T_*: what an agent sends (agent/report.c). */
static void report_of(unsigned i, int kind, uint64_t seq, int64_t time_ms, struct apenet_report *r)
{
	apenet_report_init(r, kind == T_HB ? APENET_REPORT_HEARTBEAT : APENET_REPORT_HEALTH);
	xyz_of(i, &r->x, &r->y, &r->z);
	snprintf(r->boot, sizeof(r->boot), "%u,%u,%u#1", r->x, r->y, r->z);
	r->seq = seq;
	r->time_ms = time_ms;
	if (kind == T_HB) {
		r->ldm = 0x80000000u; /* valid, every field normal */
		return;
	}
	r->subject = APENET_REPORT_SUBJ_SENSOR;
	snprintf(r->where, sizeof(r->where), "fpga_temp");
	snprintf(r->code, sizeof(r->code), "FPGA_TEMP");
	snprintf(r->unit, sizeof(r->unit), "C");
	r->threshold = 80;
	if (kind == T_RAISE) {
		r->old_status = 0;
		r->new_status = 1;
		r->value = 82.5;
		snprintf(r->evidence, sizeof(r->evidence), "FPGA at 82.5 C (warn at 80 C)");
	} else {
		r->old_status = 1;
		r->new_status = 0;
		r->value = 71.25;
		snprintf(r->evidence, sizeof(r->evidence), "FPGA at 71.25 C (warn at 80 C)");
	}
}

/* The SNMPv2c message of r with that request-id; its length or 0. */
static size_t encode(const struct apenet_report *r, uint32_t reqid, uint8_t *out, size_t cap)
{
	struct apenet_err e = { 0 };
	netsnmp_pdu *pdu = apenet_report_pdu(r, 360000, &e);
	if (!pdu) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 0;
	}
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.community = (u_char *)"public";
	s.community_len = 6;
	pdu->version = SNMP_VERSION_2c;
	pdu->reqid = (long)reqid;
	size_t bcap = 2048, off = 0, len = 0;
	u_char *buf = malloc(bcap);
	/* net-snmp builds from the end of the buffer */
	if (buf && snmp_build(&buf, &bcap, &off, &s, pdu) == 0 && off <= cap) {
		memcpy(out, buf + bcap - off, off);
		len = off;
	}
	free(buf);
	snmp_free_pdu(pdu);
	return len;
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

/* Where tag, length n and the n bytes of v occur in b, when exactly once:
 * the offset of the value, or -1. */
static int find_once(const uint8_t *b, size_t len, uint8_t tag, uint64_t v, int n)
{
	uint8_t pat[10] = { tag, (uint8_t)n };
	put_be(pat + 2, v, n);
	int at = -1;
	for (size_t i = 0; i + 2 + (size_t)n <= len; i++)
		if (!memcmp(b + i, pat, 2 + (size_t)n)) {
			if (at >= 0)
				return -1;
			at = (int)i + 2;
		}
	return at;
}

static void patch(uint8_t *b, const struct tmpl *t, uint32_t reqid, uint64_t seq, uint64_t time_ms)
{
	put_be(b + t->off_req, reqid, 4);
	put_be(b + t->off_seq, seq, 4);
	put_be(b + t->off_time, time_ms, 6);
}

/* Encodes node i's message of a kind with marker values, finds the bytes
 * to patch, and checks that patching gives what net-snmp encodes. */
static int make_template(unsigned i, int kind, struct tmpl *t)
{
	const uint32_t req_a = 0x2a5c3e71u, req_b = 0x13572468u;
	const uint64_t seq_a = 0x2b6d4f13u, seq_b = 0x01000005u;
	const uint64_t time_a = 0x018c2a4b6d7fULL, time_b = 0x0190a1b2c3d4ULL;
	struct apenet_report r;
	report_of(i, kind, seq_a, (int64_t)time_a, &r);
	size_t n = encode(&r, req_a, t->buf, sizeof(t->buf));
	int oq = find_once(t->buf, n, ASN_INTEGER, req_a, 4), os = find_once(t->buf, n, ASN_COUNTER64, seq_a, 4),
	    ot = find_once(t->buf, n, ASN_COUNTER64, time_a, 6);
	if (!n || oq < 0 || os < 0 || ot < 0)
		return -1;
	t->len = (uint16_t)n;
	/* the PDU: after SEQUENCE's header, the version and the community */
	size_t at = t->buf[1] & 0x80 ? 2 + (t->buf[1] & 0x7f) : 2;
	at += 2 + t->buf[at + 1];
	at += 2 + t->buf[at + 1];
	if (at >= n || t->buf[at] != SNMP_MSG_INFORM)
		return -1;
	t->off_pdu = (uint16_t)at;
	t->off_req = (uint16_t)oq;
	t->off_seq = (uint16_t)os;
	t->off_time = (uint16_t)ot;
	uint8_t other[TMPL_MAX], patched[TMPL_MAX];
	report_of(i, kind, seq_b, (int64_t)time_b, &r);
	if (encode(&r, req_b, other, sizeof(other)) != n)
		return -1;
	memcpy(patched, t->buf, n);
	patch(patched, t, req_b, seq_b, time_b);
	return memcmp(patched, other, n) ? -1 : 0;
}

/* Node sets: 10% burst (i % 10 == 0: 3,277 of 32,768) and 1% steady
 * (i % 100 == 55: 328), disjoint. */
static int in_burst(unsigned i)
{
	return i % 10 == 0;
}
static int in_steady(unsigned i)
{
	return i % 100 == 55;
}

static int make_templates(void)
{
	nodes = calloc(nnodes, sizeof(*nodes));
	if (!nodes)
		return -1;
	for (unsigned i = 0; i < nnodes; i++)
		for (int k = T_HB; k <= T_CLEAR; k++) {
			if (k != T_HB && !in_burst(i) && !in_steady(i))
				continue;
			nodes[i].t[k] = malloc(sizeof(struct tmpl));
			if (!nodes[i].t[k] || make_template(i, k, nodes[i].t[k])) {
				fprintf(stderr, "bench: node %u: the template cannot be patched safely\n", i);
				return -1;
			}
		}
	return 0;
}

/* ---- the bare receiver (a child: this program, --bare-receiver) --------- */

static volatile sig_atomic_t bare_stop;
static void *bare_sess; /* snmp_sess_pointer() finds only sessions of the global list, not snmp_sess_add's */

static void on_term(int sig)
{
	(void)sig;
	bare_stop = 1;
}

static int bare_cb(int op, netsnmp_session *ss, int reqid, netsnmp_pdu *pdu, void *magic)
{
	(void)reqid;
	(void)magic;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu->command != SNMP_MSG_INFORM)
		return 1;
	netsnmp_pdu *r = snmp_clone_pdu(pdu);
	if (!r)
		return 1;
	r->command = SNMP_MSG_RESPONSE;
	r->errstat = SNMP_ERR_NOERROR;
	r->errindex = 0;
	(void)ss;
	if (!snmp_sess_send(bare_sess, r))
		snmp_free_pdu(r);
	return 1;
}

static int set_rcvbuf(int fd, int bytes)
{
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) == 0)
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

static int bare_main(const char *port, int ready_fd, const char *dir, int use_v3)
{
	struct apenet_err e = { 0 };
	char spec[64];
	snprintf(spec, sizeof(spec), "udp:127.0.0.1:%s", port);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	if (apenet_snmp_init(dir, &e)) {
		fprintf(stderr, "bare receiver: %s\n", e.msg);
		return 2;
	}
	if (use_v3) {
		/* one USM user, "bench", its master keys from the bench's secret
		 * (as the generator derives them), localized by net-snmp */
		char path[700], line[400], a[2 * APENET_USM_KEY_LEN + 1], pv[2 * APENET_USM_KEY_LEN + 1];
		uint8_t ak[APENET_USM_KEY_LEN], pk[APENET_USM_KEY_LEN];
		snprintf(path, sizeof(path), "%s/../site.key", dir);
		if (apenet_keys_read_secret(path, v3_secret, &e) ||
		    apenet_usm_node_ku(v3_secret, sizeof(v3_secret), "bench", ak, pk)) {
			fprintf(stderr, "bare receiver: %s\n", e.msg);
			return 2;
		}
		for (int i = 0; i < APENET_USM_KEY_LEN; i++) {
			snprintf(a + 2 * i, 3, "%02x", ak[i]);
			snprintf(pv + 2 * i, 3, "%02x", pk[i]);
		}
		snprintf(line, sizeof(line), "bench SHA-256 -m 0x%s AES -m 0x%s", a, pv);
		usm_parse_create_usmUser("createUser", line);
	}
	netsnmp_transport *t = netsnmp_transport_open_server("bench", spec);
	if (!t) {
		fprintf(stderr, "bare receiver: cannot listen on %s\n", spec);
		return 2;
	}
	set_rcvbuf(t->sock, RCVBUF_KIB * 1024);
	netsnmp_session in;
	snmp_sess_init(&in);
	in.peername = SNMP_DEFAULT_PEERNAME;
	in.version = SNMP_DEFAULT_VERSION;
	in.community_len = SNMP_DEFAULT_COMMUNITY_LEN;
	in.retries = SNMP_DEFAULT_RETRIES;
	in.timeout = SNMP_DEFAULT_TIMEOUT;
	in.callback = bare_cb;
	in.isAuthoritative = SNMP_SESS_UNKNOWNAUTH;
	void *sess = bare_sess = snmp_sess_add(&in, t, NULL, NULL);
	if (!sess) {
		fprintf(stderr, "bare receiver: no session\n");
		return 2;
	}
	int sock = t->sock;
	if (use_v3) {
		/* its engine, for the generator (v3_setup) */
		char path[700];
		uint8_t eid[APENET_USM_ENGINE_MAX];
		size_t n = snmpv3_get_engineID(eid, sizeof(eid));
		snprintf(path, sizeof(path), "%s/engine", dir);
		if (apenet_keys_write_engine(path, eid, n, (long)snmpv3_local_snmpEngineBoots(), &e)) {
			fprintf(stderr, "bare receiver: %s\n", e.msg);
			return 2;
		}
	}
	if (write(ready_fd, "1", 1) != 1)
		return 2;
	close(ready_fd);
	/* as snmptrapd: a wake-up and a read per datagram */
	while (!bare_stop) {
		struct pollfd p = { sock, POLLIN, 0 };
		if (poll(&p, 1, 200) <= 0)
			continue;
		fd_set set;
		FD_ZERO(&set);
		FD_SET(sock, &set);
		snmp_sess_read(sess, &set);
	}
	snmp_sess_close(sess);
	return 0;
}

/* ---- the run ----------------------------------------------------------- */

enum { K_WARM, K_HB, K_TR, K_RAISE, K_CLEAR, K_TAIL };

struct msg {
	double sent;    /* realtime s; 0: the send failed */
	float delay_ms; /* ack arrival - send; < 0: never acknowledged */
	float late_ms;  /* send - due */
	uint32_t node;
	uint8_t kind, tkind, err;
};

/* How a process was scheduled: CPU time and time waiting for a CPU
 * (/proc/PID/schedstat, ns), and its context switches (/proc/PID/status):
 * voluntary ones are its wake-ups. */
struct sched_sample {
	double run_s, wait_s;
	long vcs, ivcs;
};

static void sched_sample(pid_t pid, struct sched_sample *s)
{
	char path[64];
	unsigned long long run = 0, wait = 0;
	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	FILE *f = fopen(path, "r");
	if (f && fscanf(f, "%llu %llu", &run, &wait) == 2) {
		s->run_s = (double)run / 1e9;
		s->wait_s = (double)wait / 1e9;
	}
	if (f)
		fclose(f);
	s->vcs = e2e_proc_kb(pid, "voluntary_ctxt_switches:");
	s->ivcs = e2e_proc_kb(pid, "nonvoluntary_ctxt_switches:");
}

/* The machine's busy CPU time, s over all CPUs (/proc/stat). */
static double machine_busy_s(void)
{
	unsigned long long v[10] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n = f ? fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7])
		  : 0;
	if (f)
		fclose(f);
	if (n < 8)
		return 0;
	/* user nice system idle iowait irq softirq steal: all but idle, iowait and steal */
	return (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)sysconf(_SC_CLK_TCK);
}

struct run {
	const char *name;
	pid_t pid;            /* the receiver, 0: none (raw) */
	struct msg *m;
	size_t nm, capm;
	double t0;            /* realtime of the schedule's start */
	double cpu_w0, cpu_w1, gen_w0, gen_w1, wall_w0, wall_w1;
	struct sched_sample s_w0, s_w1; /* the receiver's scheduling over the window */
	double busy_w0, busy_w1;        /* the machine's */
	long rss_kb, hwm_kb;
	double slip_max;      /* how late the generator sent, s */
	uint64_t late;        /* messages sent more than 5 ms late */
	uint64_t dup_acks, stray, errs, send_fail;
	uint64_t udp_drops;   /* kernel RcvbufErrors during the run */
	int ok;
};

static double now_rt(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double self_cpu(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

/* Udp RcvbufErrors from /proc/net/snmp (the header line names the columns). */
static uint64_t udp_rcvbuf_errors(void)
{
	FILE *f = fopen("/proc/net/snmp", "r");
	char head[512], vals[512];
	uint64_t v = 0;
	while (f && fgets(head, sizeof(head), f)) {
		if (strncmp(head, "Udp:", 4) || !fgets(vals, sizeof(vals), f))
			continue;
		char *hs, *vs, *h = strtok_r(head, " \n", &hs), *x = strtok_r(vals, " \n", &vs);
		while (h && x) {
			if (!strcmp(h, "RcvbufErrors"))
				v = strtoull(x, NULL, 10);
			h = strtok_r(NULL, " \n", &hs);
			x = strtok_r(NULL, " \n", &vs);
		}
		break;
	}
	if (f)
		fclose(f);
	return v;
}

static int add_msg(struct run *r, unsigned node, int kind, int tkind)
{
	if (r->nm == r->capm) {
		size_t cap = r->capm ? r->capm * 2 : 1 << 20;
		struct msg *m = realloc(r->m, cap * sizeof(*m));
		if (!m)
			return -1;
		r->m = m;
		r->capm = cap;
	}
	struct msg *m = &r->m[r->nm++];
	m->sent = 0;
	m->delay_ms = -1;
	m->node = node;
	m->kind = (uint8_t)kind;
	m->tkind = (uint8_t)tkind;
	m->err = 0;
	m->late_ms = 0;
	return 0;
}

/* Minimal BER reading of a RESPONSE: SEQUENCE { version, community,
 * [A2] { request-id, error-status, ... } }. */
static int ber_tl(const uint8_t **p, const uint8_t *end, unsigned *tag, size_t *len)
{
	if (end - *p < 2)
		return -1;
	*tag = *(*p)++;
	size_t l = *(*p)++;
	if (l & 0x80) {
		unsigned n = l & 0x7f;
		if (n == 0 || n > 3 || end - *p < (long)n)
			return -1;
		for (l = 0; n--;)
			l = l << 8 | *(*p)++;
	}
	if ((size_t)(end - *p) < l)
		return -1;
	*len = l;
	return 0;
}

static int ber_int(const uint8_t **p, const uint8_t *end, long *v)
{
	unsigned tag;
	size_t len;
	if (ber_tl(p, end, &tag, &len) || tag != ASN_INTEGER || len < 1 || len > 4)
		return -1;
	long x = (**p & 0x80) ? -1 : 0;
	for (size_t i = 0; i < len; i++)
		x = (long)((unsigned long)x << 8 | *(*p)++);
	*v = x;
	return 0;
}

static int parse_response(const uint8_t *b, size_t n, long *reqid, long *errstat)
{
	const uint8_t *p = b, *end = b + n;
	unsigned tag;
	size_t len;
	long version;
	if (ber_tl(&p, end, &tag, &len) || tag != (ASN_SEQUENCE | ASN_CONSTRUCTOR))
		return -1;
	end = p + len;
	if (ber_int(&p, end, &version) || ber_tl(&p, end, &tag, &len) || tag != ASN_OCTET_STR)
		return -1;
	p += len;
	if (ber_tl(&p, end, &tag, &len) || tag != SNMP_MSG_RESPONSE)
		return -1;
	return ber_int(&p, end, reqid) || ber_int(&p, end, errstat) ? -1 : 0;
}

/* An SNMPv3 RESPONSE: its msgID is the request-id of the INFORM it
 * answers (v3_wrap), which names the node whose key decrypts it. */
static int parse_v3_response(const struct run *r, const uint8_t *b, size_t n, long *reqid, long *errstat)
{
	static uint8_t plain[4096];
	struct apenet_usm_msg m;
	const uint8_t *ce, *pdu;
	size_t cel, pl;
	if (apenet_usm_parse(b, n, &m) || m.msg_id < (long)REQ_BASE || (size_t)(m.msg_id - (long)REQ_BASE) >= r->nm ||
	    m.data_len > sizeof(plain))
		return -1;
	const struct apenet_usm_keys *k = &v3_keys[v3_one ? 0 : r->m[m.msg_id - (long)REQ_BASE].node];
	if (!apenet_usm_authentic(b, n, &m, k->auth) || apenet_usm_decrypt(&m, k->priv, plain) ||
	    apenet_usm_scoped(plain, m.data_len, &ce, &cel, &pdu, &pl))
		return -1;
	const uint8_t *p = pdu, *end = pdu + pl;
	unsigned tag;
	size_t len;
	if (ber_tl(&p, end, &tag, &len) || tag != SNMP_MSG_RESPONSE || ber_int(&p, end, reqid) ||
	    ber_int(&p, end, errstat) || *reqid != m.msg_id)
		return -1;
	return 0;
}

/* Reads every RESPONSE waiting on the socket. */
static void drain(int fd, struct run *r)
{
	static uint8_t bufs[RECV_BATCH][2048];
	static char ctl[RECV_BATCH][CMSG_SPACE(sizeof(struct timespec))];
	static struct iovec iov[RECV_BATCH];
	static struct mmsghdr mm[RECV_BATCH];
	for (;;) {
		for (int i = 0; i < RECV_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = sizeof(bufs[i]);
			memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_control = ctl[i];
			mm[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
		}
		int k = recvmmsg(fd, mm, RECV_BATCH, MSG_DONTWAIT, NULL);
		if (k <= 0)
			return;
		double fallback = now_rt();
		for (int i = 0; i < k; i++) {
			double at = fallback;
			for (struct cmsghdr *c = CMSG_FIRSTHDR(&mm[i].msg_hdr); c; c = CMSG_NXTHDR(&mm[i].msg_hdr, c))
				if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
					struct timespec ts;
					memcpy(&ts, CMSG_DATA(c), sizeof(ts));
					at = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
				}
			long reqid, errstat;
			if ((v3 ? parse_v3_response(r, bufs[i], mm[i].msg_len, &reqid, &errstat)
				: parse_response(bufs[i], mm[i].msg_len, &reqid, &errstat)) ||
			    reqid < (long)REQ_BASE || (size_t)(reqid - (long)REQ_BASE) >= r->nm) {
				r->stray++;
				continue;
			}
			struct msg *m = &r->m[reqid - (long)REQ_BASE];
			if (m->delay_ms >= 0) {
				r->dup_acks++;
				continue;
			}
			m->delay_ms = (float)((at - m->sent) * 1e3);
			if (errstat) {
				m->err = 1;
				r->errs++;
			}
		}
		if (k < RECV_BATCH)
			return;
	}
}

/* Sends messages [from, to) of r (queued by the caller), patched: a send
 * that fails is marked (sent = 0) and skipped. */
static void send_msgs(int fd, struct run *r, size_t from, size_t to)
{
	static uint8_t slot[SEND_BATCH][SLOT_MAX], plain[TMPL_MAX];
	static struct iovec iov[SEND_BATCH];
	static struct mmsghdr mm[SEND_BATCH];
	while (from < to) {
		int n = (int)(to - from < SEND_BATCH ? to - from : SEND_BATCH);
		double t = now_rt();
		uint64_t ms = (uint64_t)(t * 1e3);
		for (int i = 0; i < n; i++) {
			struct msg *m = &r->m[from + (size_t)i];
			struct node *nd = &nodes[m->node];
			const struct tmpl *tp = nd->t[m->tkind];
			uint32_t reqid = REQ_BASE + (uint32_t)(from + (size_t)i);
			size_t len = tp->len;
			if (v3) {
				memcpy(plain, tp->buf, tp->len);
				patch(plain, tp, reqid, SEQ_BASE + ++nd->seq, ms);
				len = v3_wrap(m->node, plain, tp, reqid, slot[i], sizeof(slot[i]));
			} else {
				memcpy(slot[i], tp->buf, tp->len);
				patch(slot[i], tp, reqid, SEQ_BASE + ++nd->seq, ms);
			}
			iov[i].iov_base = slot[i];
			iov[i].iov_len = len;
			memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			m->sent = t;
		}
		int done = 0;
		while (done < n) {
			int k = sendmmsg(fd, mm + done, (unsigned)(n - done), 0);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) { /* this one failed (a refused port, no buffer): skip it */
				r->m[from + (size_t)done].sent = 0;
				r->send_fail++;
				done++;
				continue;
			}
			done += k;
		}
		from += (size_t)n;
	}
}

struct event {
	double at; /* s after t0 */
	int set;   /* 0 steady 1%, 1 burst 10% */
	int tkind; /* T_RAISE or T_CLEAR */
};

static double period_s = 1.0, steady_s = 20;

/* The generator: the whole schedule against a receiver on 127.0.0.1:port;
 * r->pid's CPU is sampled at the window's edges. */
static int generate(struct run *r, int port)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int on = 1;
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on))) {
		perror("bench: generator socket");
		return -1;
	}
	set_rcvbuf(fd, 32 << 20);
	for (unsigned i = 0; i < nnodes; i++)
		nodes[i].seq = 0;
	/* the transitions: 1% every 2 s from 2.5 s (raise, clear, ...), then the
	 * 10% burst and its clear */
	struct event ev[64];
	int nev = 0;
	for (double t = WARM_S + 0.5; t < steady_s && nev < 60; t += STEADY_EVERY_S, nev++)
		ev[nev] = (struct event){ t, 0, nev % 2 ? T_CLEAR : T_RAISE };
	if (nev % 2) /* end cleared */
		ev[nev++] = (struct event){ steady_s - 0.25, 0, T_CLEAR };
	ev[nev++] = (struct event){ steady_s, 1, T_RAISE };
	ev[nev++] = (struct event){ steady_s + BURST_GAP_S, 1, T_CLEAR };
	const double end_send = steady_s + BURST_GAP_S + TAIL_S;
	uint64_t h = 0; /* heartbeats queued */
	int ei = 0, w0 = 0, w1 = 0;
	r->t0 = now_rt() + 0.05;
	r->slip_max = 0;
	struct timespec tick = { (time_t)r->t0, (long)((r->t0 - (double)(time_t)r->t0) * 1e9) };
	uint64_t drops0 = udp_rcvbuf_errors();
	for (;;) {
		clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &tick, NULL);
		tick.tv_nsec += TICK_NS;
		if (tick.tv_nsec >= 1000000000L) {
			tick.tv_nsec -= 1000000000L;
			tick.tv_sec++;
		}
		drain(fd, r);
		double now = now_rt(), el = now - r->t0;
		if (!w0 && el >= WARM_S) {
			w0 = 1;
			r->wall_w0 = now;
			r->gen_w0 = self_cpu();
			r->cpu_w0 = r->pid > 0 ? e2e_proc_cpu_s(r->pid) : 0;
			if (r->pid > 0)
				sched_sample(r->pid, &r->s_w0);
			r->busy_w0 = machine_busy_s();
		}
		if (!w1 && el >= steady_s) {
			w1 = 1;
			r->wall_w1 = now;
			r->gen_w1 = self_cpu();
			r->cpu_w1 = r->pid > 0 ? e2e_proc_cpu_s(r->pid) : 0;
			if (r->pid > 0)
				sched_sample(r->pid, &r->s_w1);
			r->busy_w1 = machine_busy_s();
			r->rss_kb = r->pid > 0 ? e2e_proc_kb(r->pid, "VmRSS:") : 0;
		}
		if (el >= end_send)
			break;
		size_t first = r->nm;
		/* heartbeats due by now: the h-th at h * P / N */
		for (; (double)h * period_s / nnodes <= el && (double)h * period_s / nnodes < end_send; h++) {
			double due = (double)h * period_s / nnodes;
			int kind = due < WARM_S ? K_WARM : due < steady_s ? K_HB : K_TAIL;
			if (add_msg(r, (unsigned)(h % nnodes), kind, T_HB))
				return -1;
			r->m[r->nm - 1].late_ms = (float)((el - due) * 1e3);
			if (el - due > r->slip_max)
				r->slip_max = el - due;
			r->late += el - due > 0.005;

		}
		for (; ei < nev && ev[ei].at <= el; ei++) {
			int kind = ev[ei].set == 0 ? K_TR : ev[ei].tkind == T_RAISE ? K_RAISE : K_CLEAR;
			for (unsigned i = 0; i < nnodes; i++)
				if (ev[ei].set ? in_burst(i) : in_steady(i))
					if (add_msg(r, i, kind, ev[ei].tkind))
						return -1;
		}
		send_msgs(fd, r, first, r->nm);
	}
	/* what is still unanswered gets DRAIN_S */
	double until = now_rt() + DRAIN_S;
	size_t lo = 0;
	while (now_rt() < until) {
		struct timespec ms = { 0, TICK_NS };
		nanosleep(&ms, NULL);
		drain(fd, r);
		while (lo < r->nm && (r->m[lo].delay_ms >= 0 || r->m[lo].sent == 0))
			lo++;
		if (lo == r->nm)
			break;
	}
	r->udp_drops = udp_rcvbuf_errors() - drops0;
	close(fd);
	return 0;
}

/* ---- figures ----------------------------------------------------------- */

static int cmpf(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

struct figures {
	double offered, acked_s, core, gen_core, p50, p99, max, slip_p99;
	uint64_t lost, sent, lost_kind[K_TAIL + 1];
};

static void figures_of(const struct run *r, struct figures *f)
{
	memset(f, 0, sizeof(*f));
	double win = r->wall_w1 - r->wall_w0;
	float *d = malloc(r->nm * sizeof(float) + 1), *late = malloc(r->nm * sizeof(float) + 1);
	size_t nd = 0, nl = 0, offered = 0, acked = 0;
	for (size_t i = 0; i < r->nm; i++) {
		const struct msg *m = &r->m[i];
		if (m->sent == 0)
			continue;
		f->sent++;
		f->lost += m->delay_ms < 0;
		f->lost_kind[m->kind] += m->delay_ms < 0;
		if (m->tkind == T_HB)
			late[nl++] = m->late_ms;
		if (m->kind != K_HB && m->kind != K_TR)
			continue;
		offered++;
		if (m->delay_ms >= 0) {
			acked++;
			d[nd++] = m->delay_ms;
		}
	}
	f->offered = offered / win;
	f->acked_s = acked / win;
	f->core = 100 * (r->cpu_w1 - r->cpu_w0) / win;
	f->gen_core = 100 * (r->gen_w1 - r->gen_w0) / win;
	if (nd) {
		qsort(d, nd, sizeof(*d), cmpf);
		f->p50 = d[nd / 2];
		f->p99 = d[(size_t)(0.99 * (double)(nd - 1))];
		f->max = d[nd - 1];
	}
	if (nl) {
		qsort(late, nl, sizeof(*late), cmpf);
		f->slip_p99 = late[(size_t)(0.99 * (double)(nl - 1))];
	}
	free(d);
	free(late);
}

/* A burst's time from its first send to its last ack (ms), and how many of
 * it were never answered. */
static double burst_ms(const struct run *r, int kind, unsigned *n, unsigned *lost)
{
	double first = 0, last = 0;
	*n = *lost = 0;
	for (size_t i = 0; i < r->nm; i++) {
		const struct msg *m = &r->m[i];
		if (m->kind != kind || m->sent == 0)
			continue;
		(*n)++;
		if (first == 0 || m->sent < first)
			first = m->sent;
		if (m->delay_ms < 0) {
			(*lost)++;
			continue;
		}
		double at = m->sent + m->delay_ms / 1e3;
		if (at > last)
			last = at;
	}
	return last > first ? (last - first) * 1e3 : 0;
}

static void print_row(const struct run *r, const struct figures *f)
{
	char slip[32];
	snprintf(slip, sizeof(slip), "%.1f/%.0f", f->slip_p99, r->slip_max * 1e3);
	printf("%-22s %9.0f %9.0f %6llu %7.1f %7.1f %7.1f %8.2f %8.2f %8.1f %7.1f %10s %6llu\n", r->name, f->offered,
	       f->acked_s, (unsigned long long)f->lost, f->core, r->rss_kb / 1024.0, r->hwm_kb / 1024.0, f->p50, f->p99,
	       f->max, f->gen_core, slip, (unsigned long long)r->udp_drops);
	double win = r->wall_w1 - r->wall_w0;
	if (win > 0 && r->pid > 0)
		printf("  %-20s sched: run %.1f%%, waiting for a CPU %.1f%%, %.0f wake-ups/s, %.0f preempted/s; machine busy %.0f%% "
		       "of %ld CPUs\n",
		       "", 100 * (r->s_w1.run_s - r->s_w0.run_s) / win, 100 * (r->s_w1.wait_s - r->s_w0.wait_s) / win,
		       (double)(r->s_w1.vcs - r->s_w0.vcs) / win, (double)(r->s_w1.ivcs - r->s_w0.ivcs) / win,
		       100 * (r->busy_w1 - r->busy_w0) / win / (double)sysconf(_SC_NPROCESSORS_ONLN),
		       sysconf(_SC_NPROCESSORS_ONLN));
}

static void print_burst(const struct run *r, int kind, const char *what)
{
	unsigned n, lost;
	double ms = burst_ms(r, kind, &n, &lost);
	if (!lost)
		printf("%s, %u at once: all acknowledged in %.0f ms", what, n, ms);
	else if (lost == n)
		printf("%s, %u at once: none acknowledged", what, n);
	else
		printf("%s, %u at once: %u never acknowledged, the last of the rest after %.0f ms", what, n, lost, ms);
}

static void print_bursts(const struct run *r)
{
	printf("  %-22s ", r->name);
	print_burst(r, K_RAISE, "transitions");
	print_burst(r, K_CLEAR, "; their clear");
	printf("\n");
}

/* ---- receivers --------------------------------------------------------- */

static char dir[512];
static int run_no = 1; /* which of BENCH_SUP_RUNS: each has its own files */

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(a);
	int port = -1;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && getsockname(fd, (struct sockaddr *)&a, &l) == 0)
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static char sup_log[600];

static int sup_listening(void *ctx)
{
	pid_t *p = ctx;
	if (waitpid(*p, NULL, WNOHANG) == *p) {
		*p = -1;
		return 1;
	}
	FILE *f = fopen(sup_log, "r");
	char line[1024];
	int ok = 0;
	while (f && !ok && fgets(line, sizeof(line), f))
		ok = strstr(line, "listening on") != NULL;
	if (f)
		fclose(f);
	return ok;
}

static pid_t start_supervisor(int *port, double *ready_s)
{
	char cfg[600], db[600], listen[64], bin[PATH_MAX + 32];
	snprintf(cfg, sizeof(cfg), "%s/supervisor.yaml", dir);
	snprintf(sup_log, sizeof(sup_log), "%s/supervisor%s-%d.log", dir, v3 ? "-v3" : "", run_no);
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	const char *kib = getenv("BENCH_SUP_RCVBUF_KIB");
	fprintf(f, "cluster:\n  dims: %dx%dx%d\nsupervisor:\n  batch_max_events: 1000\n  batch_max_ms: 20\n"
		   "  recv_buffer_kib: %d\n  state_dir: %s\n  site_key: %s/site.key\n",
		DIM, DIM, DIM, kib && *kib ? atoi(kib) : RCVBUF_KIB, dir, dir);
	if (!v3)
		fprintf(f, "supervisors:\n  version: 2c\n");
	fclose(f);
	snprintf(bin, sizeof(bin), "%s/apenet-supervisor", e2e_bin());
	for (int tries = 0; tries < 5; tries++) {
		*port = free_port();
		snprintf(listen, sizeof(listen), "127.0.0.1:%d", *port);
		snprintf(db, sizeof(db), "%s/health-%s%d-%d.db", dir, v3 ? "v3-" : "", run_no, tries);
		double t = e2e_now();
		pid_t p = fork();
		if (p == 0) {
			if (!freopen(sup_log, "a", stderr))
				_exit(127);
			execl(bin, bin, "--config", cfg, "--foreground", "--listen", listen, "--db", db, (char *)NULL);
			_exit(127);
		}
		pid_t w = p;
		if (p > 0 && e2e_wait(sup_listening, &w, 180) && w > 0) {
			*ready_s = e2e_now() - t;
			char ef[700];
			snprintf(ef, sizeof(ef), "%s.snmp/engine", db);
			/* its engine time started before it listened: at most
			 * the start-up early, well inside the 150 s window */
			if (!v3 || !v3_setup(ef, now_rt() - *ready_s, nnodes))
				return p;
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
			return -1;
		}
		if (w > 0) {
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
		}
	}
	fprintf(stderr, "bench: apenet-supervisor did not start (%s; APENET_BIN=%s)\n", sup_log, e2e_bin());
	return -1;
}

static pid_t start_bare(const char *self, int *port)
{
	for (int tries = 0; tries < 5; tries++) {
		int pfd[2];
		if (pipe(pfd))
			return -1;
		*port = free_port();
		char ps[16], fs[16], sd[600];
		snprintf(ps, sizeof(ps), "%d", *port);
		snprintf(fs, sizeof(fs), "%d", pfd[1]);
		snprintf(sd, sizeof(sd), "%s/bare-snmp%s-%d", dir, v3 ? "-v3" : "", run_no);
		pid_t p = fork();
		if (p == 0) {
			close(pfd[0]);
			execl("/proc/self/exe", self, "--bare-receiver", ps, fs, sd, v3 ? "3" : "2c", (char *)NULL);
			_exit(127);
		}
		close(pfd[1]);
		char c;
		struct pollfd pp = { pfd[0], POLLIN, 0 };
		int ok = p > 0 && poll(&pp, 1, 10000) == 1 && read(pfd[0], &c, 1) == 1;
		close(pfd[0]);
		char ef[700];
		snprintf(ef, sizeof(ef), "%s/engine", sd);
		/* net-snmp's engine time starts at its init, just before ready */
		if (ok && (!v3 || !v3_setup(ef, now_rt(), 1)))
			return p;
		if (p > 0) {
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
		}
	}
	fprintf(stderr, "bench: the bare receiver did not start\n");
	return -1;
}

/* SIGTERM, then its exit status (-1 when it had to be killed). */
static int stop(pid_t p)
{
	kill(p, SIGTERM);
	for (int i = 0; i < 3000; i++) {
		int st;
		if (waitpid(p, &st, WNOHANG) == p)
			return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
		struct timespec ms = { 0, 10000000L };
		nanosleep(&ms, NULL);
	}
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
	return -1;
}

static void last_line_with(const char *path, const char *what, char *out, size_t n)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	out[0] = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, what)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, n, "%s", line);
		}
	if (f)
		fclose(f);
}

/* The same rows as plain sqlite INSERTs in batches of 1000; figures into
 * the run's CPU fields. */
static int raw_insert(const struct run *load, double *rows_s, double *cpu_per_row)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/raw.db", dir);
	struct bench_rawdb *db = bench_rawdb_open(path);
	if (!db)
		return -1;
	uint64_t *seq = calloc(nnodes, sizeof(*seq));
	size_t rows = 0;
	double c0 = self_cpu(), t0 = e2e_now();
	for (size_t i = 0; i < load->nm; i++) {
		const struct msg *m = &load->m[i];
		if (m->sent == 0)
			continue;
		struct apenet_report r;
		report_of(m->node, m->tkind, SEQ_BASE + ++seq[m->node], (int64_t)(m->sent * 1e3), &r);
		if (rows % 1000 == 0 && bench_rawdb_begin(db))
			return -1;
		if (bench_rawdb_put(db, &r, m->node, (int64_t)(m->sent * 1e3) + 1))
			return -1;
		if (++rows % 1000 == 0 && bench_rawdb_commit(db))
			return -1;
	}
	if (rows % 1000 && bench_rawdb_commit(db))
		return -1;
	double wall = e2e_now() - t0, cpu = self_cpu() - c0;
	bench_rawdb_close(db);
	free(seq);
	*rows_s = rows / wall;
	*cpu_per_row = rows ? cpu / rows : 0;
	return (int)rows;
}

/* The run's files go, unless BENCH_KEEP says to keep them. */
static void remove_dir(void)
{
	const char *keep = getenv("BENCH_KEEP");
	if (keep && *keep) {
		printf("kept: %s\n", dir);
		return;
	}
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", dir);
}

static int wanted(const char *what)
{
	const char *only = getenv("BENCH_SUP_ONLY");
	return !only || !*only || strstr(only, what);
}

/* A pass's verdict against the goals, for the summary of the runs: the
 * ratio and 0 lost (issue 23), the supervisor's share (issue 9). */
struct verdict {
	int have; /* both receivers ran */
	int judged; /* at the goals' load (32,768 nodes, 1 s) */
	double ratio, core;
	uint64_t lost;
	int met, core_met;
};

/* One protocol's pass: the bare receiver and the supervisor, each under
 * the whole load, one after the other (sup_first: the supervisor first, so
 * that over the runs neither always comes first); the raw INSERT baseline
 * with the first pass. */
static int pass(const char *self, int with_raw, int sup_first, struct verdict *v)
{
	struct run runs[2];
	memset(runs, 0, sizeof(runs));
	memset(v, 0, sizeof(*v));
	runs[0].name = "bare net-snmp receiver";
	runs[1].name = "apenet-supervisor";
	int rc = 0;
	char stopped[1024] = "";
	double sup_ready = 0;
	for (int j = 0; j < 2; j++) {
		int k = sup_first ? 1 - j : j;
		struct run *r = &runs[k];
		if (!wanted(k == 0 ? "bare" : "supervisor"))
			continue;
		int port = 0;
		v3_one = k == 0;
		r->pid = k == 0 ? start_bare(self, &port) : start_supervisor(&port, &sup_ready);
		if (r->pid <= 0) {
			rc = 2;
			continue;
		}
		if (generate(r, port)) {
			stop(r->pid);
			rc = 2;
			continue;
		}
		r->hwm_kb = e2e_proc_kb(r->pid, "VmHWM:");
		int st = stop(r->pid);
		r->ok = st == 0;
		if (k == 1) {
			last_line_with(sup_log, "stopped:", stopped, sizeof(stopped));
			if (st != 0) {
				fprintf(stderr, "bench: apenet-supervisor exited %d (%s)\n", st, sup_log);
				rc = 2;
			}
		}
	}
	printf("%-22s %9s %9s %6s %7s %7s %7s %8s %8s %8s %7s %10s %6s\n", "receiver", "offered/s", "acked/s", "lost",
	       "core %", "RSS MB", "peak MB", "p50 ms", "p99 ms", "max ms", "gen %", "slip ms", "drops");
	struct figures f[2];
	for (int j = 0; j < 2; j++) {
		int k = sup_first ? 1 - j : j;
		if (runs[k].nm) {
			figures_of(&runs[k], &f[k]);
			print_row(&runs[k], &f[k]);
		}
	}
	const struct run *ref = runs[1].nm ? &runs[1] : runs[0].nm ? &runs[0] : NULL;
	if (ref && with_raw && wanted("raw")) {
		double rows_s, cpu_row;
		int rows = raw_insert(ref, &rows_s, &cpu_row);
		if (rows < 0) {
			rc = 2;
		} else {
			double rate = ref == &runs[1] ? f[1].offered : f[0].offered;
			printf("%-22s %9.0f %9s %6s %7.1f %7s %7s %8s %8s %8s   (%d rows, %.0f rows/s, %.2f us CPU a row)\n",
			       "raw sqlite INSERT", rate, "-", "-", 100 * cpu_row * rate, "-", "-", "-", "-", "-", rows, rows_s,
			       cpu_row * 1e6);
		}
	}
	for (int k = 0; k < 2; k++)
		if (runs[k].nm)
			print_bursts(&runs[k]);
	for (int k = 0; k < 2; k++)
		if (runs[k].nm && f[k].lost)
			printf("  %-22s lost: %llu of the first %.0f s, %llu of the window's heartbeats and transitions, %llu of "
			       "the bursts, %llu after\n",
			       runs[k].name, (unsigned long long)f[k].lost_kind[K_WARM], WARM_S,
			       (unsigned long long)(f[k].lost_kind[K_HB] + f[k].lost_kind[K_TR]),
			       (unsigned long long)(f[k].lost_kind[K_RAISE] + f[k].lost_kind[K_CLEAR]),
			       (unsigned long long)f[k].lost_kind[K_TAIL]);
	if (runs[0].nm && runs[1].nm && f[0].core > 0) {
		v->have = 1;
		v->ratio = f[1].core / f[0].core;
		v->core = f[1].core;
		v->lost = f[1].lost;
		v->judged = nnodes == MAX_NODES && period_s == 1.0;
		v->met = v->ratio <= 0.65 && f[1].lost == 0;
		v->core_met = f[1].core <= 35;
		if (v->judged)
			printf("run %d: supervisor CPU / bare receiver CPU: %.2f (goal <= 0.65), %llu lost (goal 0): %s; supervisor "
			       "%.1f%% of a core (goal <= 35%%): %s\n",
			       run_no, v->ratio, (unsigned long long)f[1].lost, v->met ? "met" : "NOT met", f[1].core,
			       v->core_met ? "met" : "NOT met");
		else
			printf("run %d: supervisor CPU / bare receiver CPU: %.2f (the issue's goals are for 32,768 nodes at 1 s)\n",
			       run_no, v->ratio);
		for (int k = 0; k < 2; k++) {
			double win = runs[k].wall_w1 - runs[k].wall_w0;
			double wait = win > 0 ? (runs[k].s_w1.wait_s - runs[k].s_w0.wait_s) / win : 0;
			if (f[k].lost && k == 0)
				printf("  (the %s lost INFORMs: out of CPU, it did less than the load, so its share is "
				       "below what the load costs it and the ratio above)\n",
				       runs[k].name);
			else if (wait > 0.2)
				printf("  (the %s waited for a CPU over a fifth of the window: short of CPU, its share is "
				       "not what it costs on a machine of its own)\n",
				       runs[k].name);
		}
	}
	if (runs[1].nm) {
		printf("apenet-supervisor: ready in %.1f s (layout of %d nodes); %s\n", sup_ready, MAX_NODES,
		       strstr(stopped, "stopped:") ? strstr(stopped, "stopped:") : "(no summary in its log)");
		printf("generator: %llu send failures, %llu stray and %llu duplicate responses, %llu genErr; %llu sent > 5 ms late\n",
		       (unsigned long long)runs[1].send_fail, (unsigned long long)runs[1].stray,
		       (unsigned long long)runs[1].dup_acks, (unsigned long long)runs[1].errs,
		       (unsigned long long)runs[1].late);
	}
	for (int k = 0; k < 2; k++)
		free(runs[k].m);
	return rc;
}

/*
 * On a shared machine each receiver must get the CPU it asks for, or its
 * share says what it was given, not what it costs: a bare receiver short
 * of CPU reads fewer datagrams, loses the rest and looks cheap, a
 * supervisor short of CPU reads bigger batches and looks cheap.  Linux
 * shares the CPUs between sessions first (autogroups: a nice value alone
 * does nothing against another session's work), so the bench runs in a
 * session of its own, its autogroup and its processes at nice
 * BENCH_SUP_NICE (-10; it needs CAP_SYS_NICE, and says so when refused);
 * the receivers it starts inherit both, the same for both.  The parent
 * waits for it and passes INT and TERM on to the whole session.
 */
static char session_note[200];
static pid_t bench_child;

static void pass_on(int sig)
{
	if (bench_child > 0)
		kill(-bench_child, sig);
}

static void own_session(void)
{
	const char *env = getenv("BENCH_SUP_NICE");
	int nice = env && *env ? atoi(env) : -10;
	fflush(NULL);
	pid_t p = fork();
	if (p < 0) {
		snprintf(session_note, sizeof(session_note), "in the caller's session (fork: %s)", strerror(errno));
		return;
	}
	if (p > 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = pass_on;
		bench_child = p;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		int st = 0;
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		exit(WIFEXITED(st) ? WEXITSTATUS(st) : 2);
	}
	setsid();
	FILE *f = fopen("/proc/self/autogroup", "w");
	int group = f && fprintf(f, "%d", nice) > 0;
	if (f && fclose(f))
		group = 0;
	int proc = setpriority(PRIO_PROCESS, 0, nice) == 0;
	snprintf(session_note, sizeof(session_note), "a session of its own, nice %d: %s", nice,
		 group && proc ? "its autogroup and its processes"
		 : proc	       ? "its processes (its autogroup refused it)"
			       : "refused (CAP_SYS_NICE), shares as they come");
}

static void load_average(char *out, size_t n)
{
	FILE *lf = fopen("/proc/loadavg", "r");
	out[0] = 0;
	if (lf && fgets(out, (int)n, lf))
		out[strcspn(out, "\n")] = 0;
	if (lf)
		fclose(lf);
}

/* A run's databases and net-snmp directories go when it is done (100 MB
 * each), unless BENCH_KEEP says to keep them. */
static void remove_run_files(void)
{
	const char *keep = getenv("BENCH_KEEP");
	if (keep && *keep)
		return;
	char cmd[2200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'/health-%d-*.db* '%s'/health-v3-%d-*.db* '%s'/bare-snmp-%d '%s'/bare-snmp-v3-%d",
		 dir, run_no, dir, run_no, dir, run_no, dir, run_no);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove run %d's files in %s\n", run_no, dir);
}

#define MAX_RUNS 20

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "--bare-receiver"))
		return bare_main(argv[2], atoi(argv[3]), argv[4], !strcmp(argv[5], "3"));
	const char *env = getenv("BENCH_SUP_NODES");
	nnodes = env && *env ? (unsigned)atoi(env) : MAX_NODES;
	if (nnodes < 1 || nnodes > MAX_NODES) {
		fprintf(stderr, "bench: BENCH_SUP_NODES is 1..%d (the layout is %dx%dx%d)\n", MAX_NODES, DIM, DIM, DIM);
		return 2;
	}
	env = getenv("BENCH_SUP_S");
	steady_s = env && *env ? atof(env) : 20;
	if (steady_s < WARM_S + 2)
		steady_s = WARM_S + 2;
	env = getenv("BENCH_SUP_PERIOD_MS");
	period_s = env && *env ? atof(env) / 1e3 : 1.0;
	if (period_s < 0.01)
		period_s = 0.01;
	env = getenv("BENCH_SUP_RUNS");
	int nruns = env && *env ? atoi(env) : 3;
	if (nruns < 1 || nruns > MAX_RUNS) {
		fprintf(stderr, "bench: BENCH_SUP_RUNS is 1..%d\n", MAX_RUNS);
		return 2;
	}
	own_session();

	env = getenv("BENCH_SUP_DIR");
	if (!env || !*env)
		env = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-bench-sup-XXXXXX", env && *env ? env : "/var/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	char snmpdir[600];
	snprintf(snmpdir, sizeof(snmpdir), "%s/snmp", dir);
	struct apenet_err e = { 0 };
	if (apenet_snmp_init(snmpdir, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		remove_dir();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	double t = e2e_now();
	if (make_templates()) {
		remove_dir();
		return 2;
	}
	unsigned nburst = 0, nsteady = 0;
	for (unsigned i = 0; i < nnodes; i++) {
		nburst += in_burst(i);
		nsteady += in_steady(i);
	}
	char load[128];
	load_average(load, sizeof(load));
	printf("# apenet-supervisor under load: %u emulated nodes (in %dx%dx%d), a heartbeat INFORM from each every %.0f ms\n"
	       "# (phases spread evenly), %u transitions every %.0f s, for %.0f s; then %u transitions at once and %.0f s later\n"
	       "# their clear, heartbeats going on.  Figures over s %.0f-%.0f; lost = never acknowledged in the whole run.\n"
	       "# INFORMs encoded once per node (%.1f s for all), patched (SNMPv3: then wrapped, encrypted and signed), sent\n"
	       "# with sendmmsg from one socket; files in %s.\n"
	       "# %d run%s, each: per protocol both receivers, one after the other (the supervisor first in even runs);\n"
	       "# the bench in %s; load average at start: %s\n",
	       nnodes, DIM, DIM, DIM, period_s * 1e3, nsteady, STEADY_EVERY_S, steady_s, nburst, BURST_GAP_S, WARM_S,
	       steady_s, e2e_now() - t, dir, nruns, nruns == 1 ? "" : "s", session_note, load);

	/* the bench's site secret: the supervisor's site_key, the generator's
	 * and the bare receiver's node keys */
	char sk[700];
	snprintf(sk, sizeof(sk), "%s/site.key", dir);
	if (apenet_keys_new_secret(v3_secret, &e) || apenet_keys_write_secret(sk, v3_secret, (uid_t)-1, (gid_t)-1, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		remove_dir();
		return 2;
	}
	const char *protos = getenv("BENCH_SUP_SNMP");
	if (!protos || !*protos)
		protos = "2c,3";
	int rc = 0, first = 1;
	static struct verdict vd[2][MAX_RUNS];
	for (run_no = 1; run_no <= nruns; run_no++) {
		for (int pv = 2; pv <= 3; pv++) {
			if (!strstr(protos, pv == 2 ? "2c" : "3"))
				continue;
			v3 = pv == 3;
			load_average(load, sizeof(load));
			printf("\n## run %d of %d, %s; load average at its start: %s\n", run_no, nruns,
			       v3 ? "SNMPv3 authPriv (HMAC-SHA-256-192, AES-128): per-node users at the supervisor, one user "
				    "at the bare receiver"
				  : "SNMPv2c (community)",
			       load);
			int r = pass(argv[0], first, run_no % 2 == 0, &vd[pv - 2][run_no - 1]);
			fflush(stdout);
			first = 0;
			if (r)
				rc = r;
		}
		remove_run_files();
	}
	printf("\n## supervisor CPU / bare receiver CPU, run by run (goal: <= 0.65 and 0 lost in every run); the "
	       "supervisor's share of a core (goal <= 35%%)\n");
	for (int pv = 2; pv <= 3; pv++) {
		int have = 0, judged = 0, met = 0, core_met = 0;
		double lo = 0, hi = 0, clo = 0, chi = 0;
		printf("%-8s", pv == 2 ? "SNMPv2c" : "SNMPv3");
		for (int i = 0; i < nruns; i++) {
			const struct verdict *x = &vd[pv - 2][i];
			if (!x->have)
				continue;
			printf(" %.2f", x->ratio);
			lo = !have || x->ratio < lo ? x->ratio : lo;
			hi = !have || x->ratio > hi ? x->ratio : hi;
			clo = !have || x->core < clo ? x->core : clo;
			chi = !have || x->core > chi ? x->core : chi;
			have++;
			judged += x->judged;
			met += x->judged && x->met;
			core_met += x->judged && x->core_met;
		}
		if (!have)
			printf(" (not run)\n");
		else if (!judged)
			printf(": %.2f-%.2f; %.1f-%.1f%% of a core (the issue's goals are for 32,768 nodes at 1 s)\n", lo, hi,
			       clo, chi);
		else
			printf(": %.2f-%.2f, met in %d of %d run%s: %s; %.1f-%.1f%% of a core, <= 35%% in %d of %d: %s\n", lo,
			       hi, met, nruns, nruns == 1 ? "" : "s", met == nruns ? "met" : "NOT met", clo, chi, core_met,
			       nruns, core_met == nruns ? "met" : "NOT met");
	}
	for (unsigned i = 0; i < nnodes; i++)
		for (int k = 0; k < 3; k++)
			free(nodes[i].t[k]);
	free(nodes);
	remove_dir();
	return rc;
}
