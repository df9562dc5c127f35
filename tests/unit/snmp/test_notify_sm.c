/*
 * The notifier's per-supervisor state machine against in-process fake
 * supervisors (net-snmp server sessions on loopback, in the same poll
 * loop), which can be told to drop INFORMs or to answer with an error:
 *
 *   - an unanswered INFORM is tried again after the backoff, and the
 *     reports that follow wait for it (order at the receiver);
 *   - an error answer is no acknowledgement;
 *   - one supervisor away does not hold the other back, and receives
 *     everything, in order, when it answers again;
 *   - every report leaves the spool once both acknowledged it.
 *
 * A receiver that got an INFORM but whose answer was lost gets it again:
 * the supervisor drops copies by (node, boot, sequence); what counts here
 * is the order of the reports it acknowledged.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "apenet/log.h"
#include "apenet/notify.h"
#include "apenet/report_pdu.h"

enum fake_mode { FAKE_ANSWER, FAKE_DROP, FAKE_ERROR };

struct fake {
	void *sess;
	int port;
	enum fake_mode mode;
	int drop_next;              /* drop this many INFORMs, then act by mode */
	int nrecv;                  /* INFORMs received */
	uint64_t received[256];     /* their sequence numbers */
	uint64_t answered[256];     /* sequence numbers acknowledged, in order */
	int nanswered;
};

static char dir[256];

static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || getsockname(fd, (struct sockaddr *)&a, &len))
		fail_msg("no free port: %s", strerror(errno));
	close(fd);
	return ntohs(a.sin_port);
}

/* Read as the supervisors read it (include/apenet/report_pdu.h): every
 * INFORM the notifier sends must decode. */
static uint64_t seq_of(const netsnmp_pdu *pdu)
{
	struct apenet_report r;
	struct apenet_err e = { 0 };
	if (apenet_report_from_pdu(pdu, &r, &e))
		fail_msg("the fake supervisor cannot decode the INFORM: %s", e.msg);
	return r.seq;
}

static int fake_cb(int op, netsnmp_session *session, int reqid, netsnmp_pdu *pdu, void *magic)
{
	(void)session;
	(void)reqid;
	struct fake *f = magic;
	if (op != NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE || pdu->command != SNMP_MSG_INFORM)
		return 1;
	if (f->nrecv < 256)
		f->received[f->nrecv] = seq_of(pdu);
	f->nrecv++;
	if (f->drop_next > 0) {
		f->drop_next--;
		return 1;
	}
	if (f->mode == FAKE_DROP)
		return 1;
	netsnmp_pdu *r = snmp_clone_pdu(pdu);
	assert_non_null(r);
	r->command = SNMP_MSG_RESPONSE;
	r->errstat = f->mode == FAKE_ERROR ? SNMP_ERR_GENERR : SNMP_ERR_NOERROR;
	r->errindex = 0;
	if (!snmp_sess_send(f->sess, r)) {
		snmp_free_pdu(r);
		fail_msg("the fake supervisor could not answer");
	}
	/* A copy right after the same one is net-snmp resending an INFORM
	 * whose answer was late (a loaded machine): the same report. */
	uint64_t seq = seq_of(pdu);
	if (f->mode == FAKE_ANSWER && f->nanswered < 256 && (!f->nanswered || f->answered[f->nanswered - 1] != seq))
		f->answered[f->nanswered++] = seq;
	return 1;
}

static void fake_open(struct fake *f)
{
	char addr[64];
	memset(f, 0, sizeof(*f));
	f->port = free_port();
	snprintf(addr, sizeof(addr), "udp:127.0.0.1:%d", f->port);
	netsnmp_transport *t = netsnmp_transport_open_server("apenet-test", addr);
	assert_non_null(t);
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.callback = fake_cb;
	s.callback_magic = f;
	f->sess = snmp_sess_add(&s, t, NULL, NULL);
	assert_non_null(f->sess);
}

static void fake_close(struct fake *f)
{
	snmp_sess_close(f->sess);
}

static int group_setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-notify-sm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return -1;
	char sdir[300];
	struct apenet_err e = { 0 };
	snprintf(sdir, sizeof(sdir), "%s/snmp", dir);
	apenet_log_set_level(APENET_LOG_ERR);
	return apenet_snmp_init(sdir, &e);
}

static int group_teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	apenet_log_set_level(APENET_LOG_NOTICE);
	return system(cmd) == 0 ? 0 : -1;
}

static struct apenet_notifier *open_with(struct fake *fakes, int n, const char *name)
{
	struct apenet_notify_config c;
	struct apenet_err e = { 0 };
	apenet_notify_config_defaults(&c);
	c.version = APENET_SNMP_V2C; /* the fake supervisors are SNMPv2c sessions */
	c.nsupervisors = (unsigned)n;
	for (int i = 0; i < n; i++)
		snprintf(c.supervisors[i], sizeof(c.supervisors[i]), "127.0.0.1:%d", fakes[i].port);
	c.timeout_ms = 300;
	c.retries = 1;
	c.backoff_ms = 50;
	snprintf(c.spool, sizeof(c.spool), "%s/%s.db", dir, name);
	struct apenet_notifier *nt = NULL;
	if (apenet_notifier_open(&c, &nt, &e))
		fail_msg("open: %s", e.msg);
	return nt;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* One poll loop for the notifier and the fakes, until cond or deadline. */
static int run_until(struct apenet_notifier *n, struct fake *fakes, int nf, int (*cond)(void *), void *ctx, double secs)
{
	double end = now_s() + secs;
	while (!(cond && cond(ctx))) {
		if (now_s() > end)
			return 0;
		struct pollfd fds[16];
		int timeout = 20;
		int k = apenet_notifier_pollfds(n, fds, APENET_NOTIFY_MAX_FDS, &timeout);
		assert_true(k >= 0);
		int mine = k;
		for (int i = 0; i < nf; i++) {
			netsnmp_large_fd_set set;
			int numfds = 0, block = 1;
			struct timeval tv = { 0, 0 };
			netsnmp_large_fd_set_init(&set, FD_SETSIZE);
			NETSNMP_LARGE_FD_ZERO(&set);
			snmp_sess_select_info2(fakes[i].sess, &numfds, &set, &tv, &block);
			for (int fd = 0; fd < numfds; fd++)
				if (NETSNMP_LARGE_FD_ISSET(fd, &set) && k < 16) {
					fds[k].fd = fd;
					fds[k].events = POLLIN;
					fds[k].revents = 0;
					k++;
				}
			netsnmp_large_fd_set_cleanup(&set);
		}
		poll(fds, (nfds_t)k, timeout);
		apenet_notifier_dispatch(n, fds, mine);
		for (int i = 0; i < nf; i++) {
			netsnmp_large_fd_set set;
			netsnmp_large_fd_set_init(&set, FD_SETSIZE);
			NETSNMP_LARGE_FD_ZERO(&set);
			int any = 0;
			for (int j = mine; j < k; j++)
				if (fds[j].revents) {
					NETSNMP_LARGE_FD_SET(fds[j].fd, &set);
					any = 1;
				}
			if (any)
				snmp_sess_read2(fakes[i].sess, &set);
			netsnmp_large_fd_set_cleanup(&set);
		}
	}
	return 1;
}

static void submit(struct apenet_notifier *n, int i)
{
	struct apenet_report ev;
	struct apenet_err e = { 0 };
	apenet_report_init(&ev, i % 2 ? APENET_REPORT_HEARTBEAT : APENET_REPORT_HEALTH);
	snprintf(ev.boot, sizeof(ev.boot), "sm");
	snprintf(ev.code, sizeof(ev.code), "LINK_DOWN");
	if (apenet_notifier_submit(n, &ev, &e))
		fail_msg("submit: %s", e.msg);
}

static int spool_empty(void *ctx)
{
	struct apenet_notify_status st;
	apenet_notifier_status(ctx, &st);
	return st.spool_events == 0;
}

struct nans {
	struct fake *f;
	int n;
};

static int answered_at_least(void *ctx)
{
	struct nans *w = ctx;
	return w->f->nanswered >= w->n;
}

static void assert_answered_in_order(const struct fake *f, int n)
{
	assert_int_equal(f->nanswered, n);
	for (int i = 0; i < n; i++)
		if (f->answered[i] != (uint64_t)i + 1)
			fail_msg("acknowledged #%d is sequence %llu, expected %d", i, (unsigned long long)f->answered[i], i + 1);
}

static void test_unanswered_is_tried_again_and_the_rest_wait(void **state)
{
	(void)state;
	struct fake f;
	fake_open(&f);
	/* The first INFORM and its resend are lost. */
	f.drop_next = 2;
	struct apenet_notifier *n = open_with(&f, 1, "retry");
	for (int i = 0; i < 5; i++)
		submit(n, i);
	assert_true(run_until(n, &f, 1, spool_empty, n, 20));
	assert_answered_in_order(&f, 5);
	/* 2 lost, then 5 answered: nothing after sequence 1 went out before
	 * it was acknowledged. */
	assert_true(f.nrecv >= 7);
	for (int i = 0; i < 3; i++)
		assert_int_equal(f.received[i], 1);
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	assert_true(st.sup[0].sent >= 6);
	assert_int_equal(st.sup[0].acked, 5);
	assert_true(st.sup[0].unanswered >= 1);
	assert_int_equal(st.sup[0].answering, 1);
	assert_string_equal(st.sup[0].last_error, "");
	apenet_notifier_close(n);
	fake_close(&f);
}

static int received_two(void *ctx)
{
	return ((struct fake *)ctx)->nrecv >= 2;
}

static void test_error_answer_is_no_ack(void **state)
{
	(void)state;
	struct fake f;
	fake_open(&f);
	f.mode = FAKE_ERROR;
	struct apenet_notifier *n = open_with(&f, 1, "error");
	submit(n, 0);
	submit(n, 1);
	struct apenet_notify_status st;
	/* Two tries answered with genErr: still held, the reason shown. */
	assert_true(run_until(n, &f, 1, received_two, &f, 20));
	run_until(n, &f, 1, NULL, NULL, 0.05);
	apenet_notifier_status(n, &st);
	assert_int_equal(st.sup[0].acked, 0);
	assert_int_equal(st.sup[0].outstanding, 2);
	assert_true(st.sup[0].unanswered >= 1);
	assert_non_null(strstr(st.sup[0].last_error, "answered with error"));
	f.mode = FAKE_ANSWER;
	assert_true(run_until(n, &f, 1, spool_empty, n, 20));
	assert_answered_in_order(&f, 2);
	apenet_notifier_close(n);
	fake_close(&f);
}

static int second_unanswered(void *ctx)
{
	struct apenet_notify_status st;
	apenet_notifier_status(ctx, &st);
	return st.sup[1].unanswered >= 2;
}

static void test_one_supervisor_away_holds_nothing_back(void **state)
{
	(void)state;
	struct fake f[2];
	fake_open(&f[0]);
	fake_open(&f[1]);
	f[1].mode = FAKE_DROP;
	struct apenet_notifier *n = open_with(f, 2, "away");
	for (int i = 0; i < 10; i++) {
		submit(n, i);
		run_until(n, f, 2, NULL, NULL, 0.01);
	}
	struct nans w0 = { &f[0], 10 };
	assert_true(run_until(n, f, 2, answered_at_least, &w0, 20));
	assert_true(run_until(n, f, 2, second_unanswered, n, 20));
	assert_answered_in_order(&f[0], 10);
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	assert_int_equal(st.sup[0].outstanding, 0);
	assert_int_equal(st.sup[1].outstanding, 10);
	assert_int_equal(st.sup[1].answering, 0);
	/* Everything is still in the spool, for the one away. */
	assert_int_equal(st.spool_events, 10);
	/* While it is away, one INFORM at a time: only sequence 1 was tried. */
	assert_int_equal(f[1].nanswered, 0);
	assert_true(f[1].nrecv >= 1);
	for (int i = 0; i < f[1].nrecv && i < 256; i++)
		assert_int_equal(f[1].received[i], 1);
	/* It answers again: all ten, in order, then the spool is empty. */
	f[1].mode = FAKE_ANSWER;
	assert_true(run_until(n, f, 2, spool_empty, n, 20));
	assert_answered_in_order(&f[1], 10);
	apenet_notifier_status(n, &st);
	assert_int_equal(st.sup[1].answering, 1);
	assert_int_equal(st.spool_bytes, 0);
	apenet_notifier_close(n);
	fake_close(&f[0]);
	fake_close(&f[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unanswered_is_tried_again_and_the_rest_wait),
		cmocka_unit_test(test_error_answer_is_no_ack),
		cmocka_unit_test(test_one_supervisor_away_holds_nothing_back),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
