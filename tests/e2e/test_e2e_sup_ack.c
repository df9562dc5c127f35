/*
 * What the real apenet-supervisor answers, byte by byte, to what a sender
 * sends it over UDP (a raw socket of this test: no net-snmp session between
 * them, so every answer is seen as it is on the wire):
 *
 *   - a report (SNMPv2c INFORM): acknowledged, and the acknowledgement is
 *     the INFORM's bytes with the PDU tag Response (RFC 3416 4.2.7: same
 *     request-id and bindings); the report is in the database after;
 *   - the same report again: acknowledged again, stored once;
 *   - an INFORM that is not a report (coldStart): answered genErr, so that a
 *     sender's spool does not stall on it, and not stored;
 *   - a wrong community: no answer at all (refused);
 *   - a report as a TRAP2: no answer (a TRAP2 wants none), stored;
 *   - a stream of reports, one a millisecond: every one acknowledged, and
 *     the daemon woken a few times a batch, not once a datagram (an open
 *     batch gathers in its socket until it is due: supervisor/loop.c).
 *
 * Every wait is on a condition with a deadline.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/report_pdu.h"
#include "e2e.h"

struct fx {
	char dir[256], log[300], db[300];
	pid_t sup;
	int port, sock;
};

/* The supervisor's log has its start line. */
static int log_says_listening(void *ctx)
{
	struct fx *f = ctx;
	char buf[4096];
	FILE *l = fopen(f->log, "r");
	if (!l)
		return 0;
	size_t n = fread(buf, 1, sizeof(buf) - 1, l);
	fclose(l);
	buf[n] = 0;
	return strstr(buf, "listening on") != NULL;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/apenet-supack-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->log, sizeof(f->log), "%s/log", f->dir);
	snprintf(f->db, sizeof(f->db), "%s/health.db", f->dir);
	char cfg[300], bin[PATH_MAX], listen[64];
	snprintf(cfg, sizeof(cfg), "%s/sup.yaml", f->dir);
	FILE *c = fopen(cfg, "w");
	assert_non_null(c);
	/* SNMPv2c said: this test reads the v2c acknowledgement's bytes (the
	 * SNMPv3 ones: tests/e2e/trust.sh, through net-snmp's snmpinform) */
	fputs("cluster:\n  dims: 4x4x1\nsupervisor:\n  batch_max_ms: 20\nsupervisors:\n  version: 2c\n", c);
	fclose(c);
	snprintf(bin, sizeof(bin), "%s/apenet-supervisor", e2e_bin());
	/* a free port: bind port 0, read it, close, give it; tried again when
	 * something else took it meanwhile */
	for (int tries = 0; tries < 10 && !f->sup; tries++) {
		int s = socket(AF_INET, SOCK_DGRAM, 0);
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t l = sizeof(a);
		assert_true(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof(a)) == 0 &&
			    getsockname(s, (struct sockaddr *)&a, &l) == 0);
		close(s);
		f->port = ntohs(a.sin_port);
		snprintf(listen, sizeof(listen), "127.0.0.1:%d", f->port);
		char *argv[] = { bin, "--config", cfg, "--foreground", "--listen", listen, "--db", f->db, NULL };
		unlink(f->log);
		pid_t p = e2e_spawn(argv, f->log);
		if (e2e_wait(log_says_listening, f, 20) && waitpid(p, NULL, WNOHANG) == 0)
			f->sup = p;
		else
			kill(p, SIGTERM), waitpid(p, NULL, 0);
	}
	if (!f->sup)
		fail_msg("apenet-supervisor did not start (see %s)", f->log);
	f->sock = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)f->port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(connect(f->sock, (struct sockaddr *)&to, sizeof(to)), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	if (f->sup > 0) {
		kill(f->sup, SIGTERM);
		waitpid(f->sup, NULL, 0);
	}
	close(f->sock);
	char out[64], err[64];
	if (!getenv("KEEP"))
		e2e_run(out, sizeof(out), err, sizeof(err), "/bin/rm", "-rf", f->dir, NULL);
	free(f);
	return 0;
}

/* The message of pdu as SNMPv2c with this community and request-id. */
static size_t wire(netsnmp_pdu *pdu, const char *community, long reqid, uint8_t *out, size_t cap)
{
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.community = (u_char *)community;
	s.community_len = strlen(community);
	pdu->version = SNMP_VERSION_2c;
	pdu->reqid = reqid;
	size_t bcap = 4096, off = 0;
	u_char *buf = malloc(bcap);
	assert_non_null(buf);
	assert_int_equal(snmp_build(&buf, &bcap, &off, &s, pdu), 0);
	assert_true(off <= cap);
	memcpy(out, buf + bcap - off, off); /* net-snmp builds from the end */
	free(buf);
	return off;
}

/* A health change of node x,1,0 (its FPGA temperature sick), boot "x,1,0#1". */
static void report(struct apenet_report *r, unsigned x, uint64_t seq)
{
	apenet_report_init(r, APENET_REPORT_HEALTH);
	r->x = x;
	r->y = 1;
	snprintf(r->node, sizeof(r->node), "n%u", x);
	snprintf(r->boot, sizeof(r->boot), "%u,1,0#1", x);
	r->seq = seq;
	r->time_ms = (int64_t)e2e_wall_ms();
	r->subject = APENET_REPORT_SUBJ_SENSOR;
	snprintf(r->where, sizeof(r->where), "fpga_temp");
	snprintf(r->code, sizeof(r->code), "FPGA_TEMP");
	r->old_status = 0;
	r->new_status = 1;
	r->value = 87.25;
	r->threshold = 85;
	snprintf(r->unit, sizeof(r->unit), "C");
	snprintf(r->evidence, sizeof(r->evidence), "test_e2e_sup_ack");
}

/* Sends msg; the answer's length within wait_ms (0: none came). */
static size_t exchange(struct fx *f, const uint8_t *msg, size_t n, uint8_t *ans, size_t cap, int wait_ms)
{
	assert_int_equal(send(f->sock, msg, n, 0), (ssize_t)n);
	struct pollfd p = { f->sock, POLLIN, 0 };
	int r = poll(&p, 1, wait_ms);
	if (r <= 0)
		return 0;
	ssize_t got = recv(f->sock, ans, cap, 0);
	assert_true(got > 0);
	return (size_t)got;
}

/* Times s occurs in the database's export.  The tests count a report's
 * transition by its "boot" key: the incident the deduction opens for it on
 * a later tick names the same boot id as its evidence's "reporter". */
static int exported(struct fx *f, const char *s)
{
	static char out[1 << 16];
	char err[512], cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "%s/apenet", e2e_bin());
	int rc = e2e_run(out, sizeof(out), err, sizeof(err), cmd, "db", "export", "--db", f->db, NULL);
	if (rc)
		fail_msg("apenet db export: exit %d: %s%s", rc, err, out);
	int n = 0;
	for (const char *p = out; (p = strstr(p, s)); p += strlen(s))
		n++;
	return n;
}

static int trap_stored(void *ctx)
{
	return exported(ctx, "\"boot\":\"1,1,0#1\"") == 1;
}

static void test_answers(void **state)
{
	struct fx *f = *state;
	struct apenet_err e = { 0 };
	struct apenet_report r;
	uint8_t msg[4096], ans[4096];

	/* a report: its acknowledgement is its own bytes, tag Response */
	report(&r, 2, 1);
	netsnmp_pdu *pdu = apenet_report_pdu(&r, 100, &e);
	assert_non_null(pdu);
	size_t n = wire(pdu, "public", 0x12345, msg, sizeof(msg));
	size_t an = exchange(f, msg, n, ans, sizeof(ans), 10000);
	assert_int_equal(an, n);
	size_t diff = 0, where = 0;
	for (size_t i = 0; i < n; i++)
		if (ans[i] != msg[i])
			diff++, where = i;
	assert_int_equal(diff, 1);
	assert_int_equal(msg[where], 0xA6);
	assert_int_equal(ans[where], 0xA2);
	/* acked means stored */
	assert_int_equal(exported(f, "\"boot\":\"2,1,0#1\""), 1);

	/* the same again: acknowledged again (the first ack may have been
	 * lost), stored once */
	an = exchange(f, msg, n, ans, sizeof(ans), 10000);
	assert_int_equal(an, n);
	assert_int_equal(exported(f, "\"boot\":\"2,1,0#1\""), 1);

	/* not a report: genErr (5), nothing stored */
	snmp_free_pdu(pdu);
	pdu = snmp_pdu_create(SNMP_MSG_INFORM);
	oid uptime[] = { 1, 3, 6, 1, 2, 1, 1, 3, 0 }, trapoid[] = { 1, 3, 6, 1, 6, 3, 1, 1, 4, 1, 0 },
	    cold[] = { 1, 3, 6, 1, 6, 3, 1, 1, 5, 1 };
	long ticks = 1;
	snmp_pdu_add_variable(pdu, uptime, OID_LENGTH(uptime), ASN_TIMETICKS, &ticks, sizeof(ticks));
	snmp_pdu_add_variable(pdu, trapoid, OID_LENGTH(trapoid), ASN_OBJECT_ID, cold, sizeof(cold));
	n = wire(pdu, "public", 0x777, msg, sizeof(msg));
	an = exchange(f, msg, n, ans, sizeof(ans), 10000);
	assert_true(an > 0);
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	netsnmp_pdu *back = snmp_pdu_create(0);
	assert_int_equal(snmp_parse(NULL, &s, back, ans, an), 0);
	assert_int_equal(back->command, SNMP_MSG_RESPONSE);
	assert_int_equal(back->reqid, 0x777);
	assert_int_equal(back->errstat, SNMP_ERR_GENERR);
	snmp_free_pdu(back);

	/* a wrong community: no answer */
	snmp_free_pdu(pdu);
	report(&r, 3, 1);
	pdu = apenet_report_pdu(&r, 100, &e);
	n = wire(pdu, "not-public", 0x888, msg, sizeof(msg));
	assert_int_equal(exchange(f, msg, n, ans, sizeof(ans), 1500), 0);
	assert_int_equal(exported(f, "\"boot\":\"3,1,0#1\""), 0);

	/* a TRAP2: no answer, stored */
	report(&r, 1, 1);
	snmp_free_pdu(pdu);
	pdu = apenet_report_pdu(&r, 100, &e);
	pdu->command = SNMP_MSG_TRAP2;
	n = wire(pdu, "public", 0x999, msg, sizeof(msg));
	assert_int_equal(exchange(f, msg, n, ans, sizeof(ans), 1500), 0);
	if (!e2e_wait(trap_stored, f, 20))
		fail_msg("the TRAP2's report was not stored");
	snmp_free_pdu(pdu);
}

/* Whether the supervisor's socket gets a buffer of 16 MiB as the kernel
 * counts it (SUP_GATHER_MIN_BUF): its default recv_buffer_kib is 16 MiB,
 * forced with CAP_NET_ADMIN (root here), else capped at rmem_max. */
static int gathers(void)
{
	long max = 0;
	FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
	if (f && fscanf(f, "%ld", &max) != 1)
		max = 0;
	if (f)
		fclose(f);
	return geteuid() == 0 || 2 * max >= (16 << 20);
}

/* The answers waiting on the socket, without waiting for more. */
static unsigned drain_answers(struct fx *f)
{
	uint8_t ans[4096];
	unsigned n = 0;
	while (recv(f->sock, ans, sizeof(ans), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

static void test_stream(void **state)
{
	struct fx *f = *state;
	enum { N = 600 };
	if (!gathers())
		skip();
	struct apenet_err e = { 0 };
	struct apenet_report r;
	static uint8_t msg[N][1024];
	size_t len[N];
	/* node 2,1,0's heartbeats, each news (a later sequence), encoded first */
	for (unsigned i = 0; i < N; i++) {
		apenet_report_init(&r, APENET_REPORT_HEARTBEAT);
		r.x = 2;
		r.y = 1;
		snprintf(r.boot, sizeof(r.boot), "2,1,0#1");
		r.seq = 1 + i;
		r.time_ms = (int64_t)e2e_wall_ms();
		r.ldm = 0x80000000u;
		netsnmp_pdu *pdu = apenet_report_pdu(&r, 100, &e);
		assert_non_null(pdu);
		len[i] = wire(pdu, "public", 0x10000 + (long)i, msg[i], sizeof(msg[i]));
		snmp_free_pdu(pdu);
	}
	long woke0 = e2e_proc_kb(f->sup, "voluntary_ctxt_switches:");
	unsigned acked = 0, groups = 0;
	double t0 = e2e_now();
	/* one a millisecond; when this test wakes late, what is due goes
	 * together (a group: to a daemon that reads as datagrams come, one
	 * wake-up) */
	for (unsigned i = 0; i < N; groups++) {
		double due = t0 + (i + 1) * 1e-3, now = e2e_now();
		if (due > now) {
			struct timespec d = { 0, (long)((due - now) * 1e9) };
			nanosleep(&d, NULL);
			now = e2e_now();
		}
		do {
			assert_int_equal(send(f->sock, msg[i], len[i], 0), (ssize_t)len[i]);
			i++;
		} while (i < N && t0 + (i + 1) * 1e-3 <= now);
		acked += drain_answers(f);
	}
	double sent_ms = (e2e_now() - t0) * 1e3;
	double until = e2e_now() + 20;
	while (acked < N && e2e_now() < until) {
		struct pollfd p = { f->sock, POLLIN, 0 };
		if (poll(&p, 1, 100) > 0)
			acked += drain_answers(f);
	}
	long woke = e2e_proc_kb(f->sup, "voluntary_ctxt_switches:") - woke0;
	assert_int_equal(acked, N);
	/* Read as they came, each group is about a wake-up (a daemon that did
	 * not gather woke 0.9-1.7 times a group in six runs); gathered, a read
	 * and a commit every 20 ms and the ticks: about 100 a second, 60 here.
	 * When this test was itself so short of CPU that its sends came in
	 * fewer than N / 3 groups, the count says nothing either way. */
	if (groups >= N / 3 && woke * 2 >= (long)groups)
		fail_msg("%u reports in %u groups over %.0f ms woke the supervisor %ld times", N, groups, sent_ms, woke);
	print_message("%u reports in %u groups over %.0f ms: the supervisor woke %ld times\n", N, groups, sent_ms, woke);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_answers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
