/*
 * The notifier against the real net-snmp receiver: two snmptrapd processes
 * on private loopback ports log every INFORM they accept, one line each.
 * This test is the agent's driver: it submits health transitions and
 * heartbeats and runs the notifier from its own poll loop.
 *
 *   - both receivers log every report, in order;
 *   - one receiver stopped for a while, more reports, the receiver started
 *     again on the same port: every report arrives, in order, none twice
 *     (by boot id and sequence), and no call of the notifier blocked;
 *   - an agent killed (SIGKILL) with reports unacknowledged: a new notifier
 *     on the same spool delivers them;
 *   - SNMPv3 authPriv (SHA, AES) to a receiver that knows the user, and a
 *     wrong passphrase that it refuses (nothing logged, the reason shown).
 *
 * Receivers are stopped by PID; every wait is on a condition with a
 * deadline (a loaded 2-core CI machine is slow, never "sleep 1 and hope").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
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

#include "apenet/keys.h"
#include "apenet/log.h"
#include "apenet/notify.h"
#include "e2e.h"

/* SNMPv3: node 1,0,0's keys from a site secret of 32 times V3_SECRET (the
 * receiver is given the master keys; the agent its key file) */
#define V3_SECRET 7

static void v3_node_key(uint8_t fill, struct apenet_node_key *k)
{
	uint8_t secret[APENET_SITE_SECRET_LEN];
	struct apenet_err e = { 0 };
	memset(secret, fill, sizeof(secret));
	if (apenet_keys_node(secret, 1, 0, 0, k, &e))
		fail_msg("%s", e.msg);
}

static void hex(const uint8_t *v, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", v[i]);
}

struct trapd {
	pid_t pid;
	int port;
	int v3;
	int runs;              /* started this many times (one log, appended) */
	char dir[512];
	char log[600];
};

struct fixture {
	char dir[256];
	char spool[400];
	struct trapd r[2];
};

static double now_s(void)
{
	return e2e_now();
}

/* A free UDP port on loopback: bound by the kernel, then released. */
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

static size_t read_file(const char *path, char *buf, size_t cap)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		buf[0] = 0;
		return 0;
	}
	size_t n = fread(buf, 1, cap - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return n;
}

static int trapd_listening(void *ctx)
{
	struct trapd *t = ctx;
	static char buf[1 << 16];
	int st;
	if (waitpid(t->pid, &st, WNOHANG) == t->pid) {
		t->pid = -1;
		return 1;
	}
	read_file(t->log, buf, sizeof(buf));
	/* snmptrapd logs its version once its transports are open; count
	 * them, since a restart appends to the same log. */
	int n = 0;
	for (const char *p = buf; (p = strstr(p, "NET-SNMP version")); p++)
		n++;
	return n >= t->runs;
}

/* Starts snmptrapd in the foreground on 127.0.0.1:port, logging one line
 * per notification ("NOTE " and the varbinds, numeric OIDs) to its log,
 * appending, with no MIB loaded and no name lookups. */
static void trapd_start(struct trapd *t)
{
	char conf[600], persist[600], pidf[600], addr[64];
	snprintf(conf, sizeof(conf), "%s/snmptrapd.conf", t->dir);
	snprintf(persist, sizeof(persist), "%s/persist", t->dir);
	snprintf(pidf, sizeof(pidf), "%s/pid", t->dir);
	snprintf(addr, sizeof(addr), "udp:127.0.0.1:%d", t->port);
	FILE *fp = fopen(conf, "w");
	assert_non_null(fp);
	fprintf(fp, "authCommunity log,execute,net public\n");
	if (t->v3) {
		struct apenet_node_key k;
		char a[80], p[80];
		v3_node_key(V3_SECRET, &k);
		hex(k.auth_ku, sizeof(k.auth_ku), a);
		hex(k.priv_ku, sizeof(k.priv_ku), p);
		fprintf(fp, "createUser %s SHA-256 -m 0x%s AES -m 0x%s\n", k.user, a, p);
		fprintf(fp, "authUser log,execute %s priv\n", k.user);
	}
	fclose(fp);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		/* Its engine ID and boots live here, kept across restarts. */
		setenv("SNMP_PERSISTENT_DIR", persist, 1);
		/* /usr/sbin is not on every PATH. */
		const char *prog = access("/usr/sbin/snmptrapd", X_OK) == 0 ? "/usr/sbin/snmptrapd" : "snmptrapd";
		execlp(prog, "snmptrapd", "-f", "-A", "-Lf", t->log, "-C", "-c", conf, "-M", "/dev/null", "-m", "",
		       "-On", "-n", "-F", "NOTE %v\n", "-p", pidf, addr, (char *)NULL);
		_exit(127);
	}
	t->pid = pid;
	t->runs++;
	int ok = e2e_wait(trapd_listening, t, 30);
	if (!ok || t->pid < 0)
		fail_msg("snmptrapd on port %d did not start (log %s)", t->port, t->log);
}

static void trapd_stop(struct trapd *t)
{
	if (t->pid <= 0)
		return;
	kill(t->pid, SIGTERM);
	int st;
	waitpid(t->pid, &st, 0);
	t->pid = -1;
}

struct report {
	char boot[40];
	unsigned long long seq;
	int heartbeat;
	char code[32];
};

/* The reports a receiver logged, in the order it logged them. */
static int parse_log(const struct trapd *t, struct report *out, int max)
{
	static char buf[1 << 20];
	read_file(t->log, buf, sizeof(buf));
	int n = 0;
	for (char *line = buf; line && *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		if (!strncmp(line, "NOTE ", 5) && strstr(line, ".1.3.6.1.4.1.8072.9999.9999.65.")) {
			struct report r = { 0 };
			char *p = strstr(line, ".65.1.1.5.0 = STRING: \"");
			if (p)
				sscanf(p + strlen(".65.1.1.5.0 = STRING: \""), "%39[^\"]", r.boot);
			p = strstr(line, ".65.1.1.6.0 = Counter64: ");
			if (p)
				r.seq = strtoull(p + strlen(".65.1.1.6.0 = Counter64: "), NULL, 10);
			r.heartbeat = strstr(line, "OID: .1.3.6.1.4.1.8072.9999.9999.65.0.2") != NULL;
			p = strstr(line, ".65.1.1.10.0 = STRING: \"");
			if (p)
				sscanf(p + strlen(".65.1.1.10.0 = STRING: \""), "%31[^\"]", r.code);
			if (n < max)
				out[n] = r;
			n++;
		}
		line = end ? end + 1 : NULL;
	}
	return n;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof(f->dir), "%s/apenet-notify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	char base[256], rdir[300];
	memcpy(base, f->dir, sizeof(base));
	snprintf(f->spool, sizeof(f->spool), "%s/spool.db", base);
	for (int i = 0; i < 2; i++) {
		struct trapd *t = &f->r[i];
		t->pid = -1;
		t->port = free_port();
		snprintf(rdir, sizeof(rdir), "%s/r%d", base, i);
		snprintf(t->dir, sizeof(t->dir), "%s", rdir);
		mkdir(rdir, 0700);
		snprintf(t->log, sizeof(t->log), "%s/log", rdir);
	}
	apenet_log_set_level(getenv("E2E_DEBUG") ? APENET_LOG_DEBUG : APENET_LOG_INFO);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int i = 0; i < 2; i++)
		trapd_stop(&f->r[i]);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	apenet_log_set_level(APENET_LOG_NOTICE);
	return 0;
}

static void config(const struct fixture *f, struct apenet_notify_config *c, int nsup)
{
	apenet_notify_config_defaults(c);
	c->nsupervisors = (unsigned)nsup;
	c->version = APENET_SNMP_V2C; /* test_v3_authpriv says 3 */
	for (int i = 0; i < nsup; i++)
		snprintf(c->supervisors[i], sizeof(c->supervisors[i]), "127.0.0.1:%d", f->r[i].port);
	/* Generous for a loaded machine: a late answer would be a resend,
	 * and a resend a duplicate at the receiver. */
	c->timeout_ms = 3000;
	c->retries = 1;
	c->backoff_ms = 200;
	snprintf(c->spool, sizeof(c->spool), "%s", f->spool);
}

static struct apenet_notifier *open_ok(const struct apenet_notify_config *c)
{
	struct apenet_notifier *n = NULL;
	struct apenet_err e = { 0 };
	if (apenet_notifier_open(c, &n, &e))
		fail_msg("notifier: %s", e.msg);
	return n;
}

/* The longest any notifier call took: it must never block the agent. */
static double longest_call;

static void timed_start(double *t0)
{
	*t0 = now_s();
}

static void timed_end(double t0)
{
	double d = now_s() - t0;
	if (d > longest_call)
		longest_call = d;
}

/* The agent's loop: poll the notifier's descriptors (at most 50 ms at a
 * time), dispatch, until cond or the deadline. */
static int run_until(struct apenet_notifier *n, int (*cond)(void *), void *ctx, double deadline_s)
{
	double end = now_s() + deadline_s;
	for (;;) {
		if (cond && cond(ctx))
			return 1;
		if (now_s() > end)
			return 0;
		struct pollfd fds[APENET_NOTIFY_MAX_FDS];
		int timeout = 50, t0d;
		double t0;
		timed_start(&t0);
		int k = apenet_notifier_pollfds(n, fds, APENET_NOTIFY_MAX_FDS, &timeout);
		timed_end(t0);
		assert_true(k >= 0);
		assert_true(timeout >= 0 && timeout <= 50);
		t0d = poll(fds, (nfds_t)k, timeout);
		assert_true(t0d >= 0 || errno == EINTR);
		timed_start(&t0);
		apenet_notifier_dispatch(n, fds, k);
		timed_end(t0);
	}
}

static void submit(struct apenet_notifier *n, int heartbeat, const char *boot, const char *code)
{
	struct apenet_report ev;
	struct apenet_err e = { 0 };
	apenet_report_init(&ev, heartbeat ? APENET_REPORT_HEARTBEAT : APENET_REPORT_HEALTH);
	snprintf(ev.boot, sizeof(ev.boot), "%s", boot);
	ev.x = 1;
	ev.y = 0;
	ev.z = 0;
	snprintf(ev.node, sizeof(ev.node), "quong-01");
	if (heartbeat) {
		ev.ldm = 0x80000000u;
	} else {
		ev.subject = APENET_REPORT_SUBJ_LINK;
		snprintf(ev.where, sizeof(ev.where), "X+");
		snprintf(ev.code, sizeof(ev.code), "%s", code);
		ev.old_status = 0;
		ev.new_status = 2;
		ev.value = 0;
		ev.threshold = 1;
		snprintf(ev.evidence, sizeof(ev.evidence), "LINK_STATE reads down on every lane");
	}
	double t0;
	timed_start(&t0);
	if (apenet_notifier_submit(n, &ev, &e))
		fail_msg("submit: %s", e.msg);
	timed_end(t0);
}

/* The apenetEvent arcs of the varbinds of the first logged line of a kind,
 * in the order they came on the wire; sysUpTime.0 and snmpTrapOID.0 must
 * come first. */
static int wire_order(const struct trapd *t, int heartbeat, int *arcs, int max)
{
	static char buf[1 << 20];
	read_file(t->log, buf, sizeof(buf));
	const char *want = heartbeat ? "OID: .1.3.6.1.4.1.8072.9999.9999.65.0.2" : "OID: .1.3.6.1.4.1.8072.9999.9999.65.0.1";
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, "NOTE ", 5) || !strstr(line, want))
			continue;
		assert_int_equal(strncmp(line, "NOTE .1.3.6.1.2.1.1.3.0 = ", 26), 0);
		char *p = strstr(line, "\t.1.3.6.1.6.3.1.1.4.1.0 = ");
		assert_non_null(p);
		int k = 0;
		while ((p = strstr(p + 1, "\t.1.3.6.1.4.1.8072.9999.9999.65.1.1."))) {
			int arc = atoi(p + strlen("\t.1.3.6.1.4.1.8072.9999.9999.65.1.1."));
			if (k < max)
				arcs[k] = arc;
			k++;
		}
		return k;
	}
	return -1;
}

struct want {
	const struct trapd *t;
	int n;
};

static int logged_at_least(void *ctx)
{
	struct want *w = ctx;
	static struct report r[1];
	return parse_log(w->t, r, 0) >= w->n;
}

/* Every report of boot numbered 1..n exactly once and in order. */
static void assert_delivered(const struct trapd *t, const char *boot, int n)
{
	static struct report r[4096];
	int got = parse_log(t, r, 4096);
	if (got != n) {
		for (int i = 0; i < got && i < 4096; i++)
			print_message("  %s/%llu %s\n", r[i].boot, r[i].seq, r[i].heartbeat ? "heartbeat" : r[i].code);
		fail_msg("receiver on port %d logged %d reports, expected %d", t->port, got, n);
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(r[i].boot, boot) || r[i].seq != (unsigned long long)i + 1)
			fail_msg("receiver on port %d: report %d is %s/%llu, expected %s/%d", t->port, i, r[i].boot,
				 r[i].seq, boot, i + 1);
	}
}

struct idle_ctx {
	struct apenet_notifier *n;
	int sup;
	int want_unanswered;
};

static int sup_idle(void *ctx)
{
	struct idle_ctx *c = ctx;
	struct apenet_notify_status st;
	apenet_notifier_status(c->n, &st);
	return st.sup[c->sup].outstanding == 0 && st.sup[c->sup].state == APENET_NOTIFY_IDLE;
}

static int sup_unanswered(void *ctx)
{
	struct idle_ctx *c = ctx;
	struct apenet_notify_status st;
	apenet_notifier_status(c->n, &st);
	return st.sup[c->sup].unanswered >= (uint64_t)c->want_unanswered;
}

static int all_idle(void *ctx)
{
	struct apenet_notifier *n = ctx;
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	for (unsigned i = 0; i < st.nsupervisors; i++)
		if (st.sup[i].outstanding)
			return 0;
	return st.spool_events == 0;
}

static void test_both_receivers_log_everything_in_order(void **state)
{
	struct fixture *f = *state;
	trapd_start(&f->r[0]);
	trapd_start(&f->r[1]);
	struct apenet_notify_config c;
	config(f, &c, 2);
	struct apenet_notifier *n = open_ok(&c);
	const int N = 30;
	for (int i = 0; i < N; i++) {
		submit(n, i % 3 != 0, "boot-order", "LINK_DOWN");
		/* Some at once, some with the loop turning in between. */
		if (i % 5 == 4)
			run_until(n, NULL, NULL, 0.02);
	}
	assert_true(run_until(n, all_idle, n, 60));
	for (int i = 0; i < 2; i++) {
		struct want w = { &f->r[i], N };
		assert_true(e2e_wait(logged_at_least, &w, 30));
		assert_delivered(&f->r[i], "boot-order", N);
	}
	/* What a health report carries. */
	static char buf[1 << 20];
	read_file(f->r[0].log, buf, sizeof(buf));
	assert_non_null(strstr(buf, ".65.1.1.10.0 = STRING: \"LINK_DOWN\""));
	assert_non_null(strstr(buf, ".65.1.1.9.0 = STRING: \"X+\""));
	assert_non_null(strstr(buf, ".65.1.1.12.0 = INTEGER: 3")); /* broken */
	assert_non_null(strstr(buf, ".65.1.1.4.0 = STRING: \"quong-01\""));
	assert_non_null(strstr(buf, ".65.1.1.20.0 = STRING: \"all normal\""));
	/* The objects in the MIB's order (tests/unit/snmp/test_mib.c checks the
	 * MIB's OBJECTS clauses against the same lists). */
	int arcs[32];
	assert_int_equal(wire_order(&f->r[0], 0, arcs, 32), 18);
	for (int i = 0; i < 18; i++)
		assert_int_equal(arcs[i], i + 1);
	static const int hb[] = { 1, 2, 3, 4, 5, 6, 7, 19, 20 };
	assert_int_equal(wire_order(&f->r[0], 1, arcs, 32), 9);
	for (int i = 0; i < 9; i++)
		assert_int_equal(arcs[i], hb[i]);
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(st.sup[i].outstanding, 0);
		assert_int_equal(st.sup[i].acked, N);
		assert_int_equal(st.sup[i].sent, N);
		assert_true(st.sup[i].last_ack_ms > 0);
	}
	assert_int_equal(st.spool_events, 0);
	assert_int_equal(st.spool_bytes, 0);
	apenet_notifier_close(n);
	print_message("longest notifier call: %.1f ms\n", longest_call * 1e3);
}

static void test_receiver_outage_every_report_once_in_order(void **state)
{
	struct fixture *f = *state;
	trapd_start(&f->r[0]);
	trapd_start(&f->r[1]);
	struct apenet_notify_config c;
	config(f, &c, 2);
	struct apenet_notifier *n = open_ok(&c);
	int sent = 0;
	for (; sent < 5; sent++)
		submit(n, sent % 2, "boot-outage", "LINK_DOWN");
	struct idle_ctx idle1 = { n, 1, 0 };
	assert_true(run_until(n, sup_idle, &idle1, 60));

	/* Receiver 1 goes away with nothing in flight to it. */
	trapd_stop(&f->r[1]);
	longest_call = 0;
	for (; sent < 25; sent++) {
		submit(n, sent % 2, "boot-outage", sent % 2 ? "" : "LINK_FLAPPING");
		run_until(n, NULL, NULL, 0.05);
	}
	/* It stays away for several tries of the notifier. */
	struct idle_ctx un = { n, 1, 3 };
	assert_true(run_until(n, sup_unanswered, &un, 120));
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	assert_int_equal(st.sup[0].outstanding, 0);
	assert_int_equal(st.sup[1].outstanding, 20);
	assert_int_equal(st.spool_events, 20);
	assert_int_equal(st.sup[1].answering, 0);
	assert_true(st.sup[1].last_error[0] != 0);
	print_message("while receiver 1 was away: %s; longest call %.1f ms\n", st.sup[1].last_error,
		      longest_call * 1e3);
	/* No call waited for the absent receiver. */
	assert_true(longest_call < 1.0);
	/* Receiver 0 had everything meanwhile. */
	assert_delivered(&f->r[0], "boot-outage", 25);

	/* Back on the same port: the 20 it missed arrive, in order, once. */
	trapd_start(&f->r[1]);
	assert_true(run_until(n, all_idle, n, 120));
	struct want w = { &f->r[1], 25 };
	assert_true(e2e_wait(logged_at_least, &w, 30));
	assert_delivered(&f->r[1], "boot-outage", 25);
	assert_delivered(&f->r[0], "boot-outage", 25);
	apenet_notifier_status(n, &st);
	assert_int_equal(st.sup[1].answering, 1);
	assert_int_equal(st.sup[1].acked, 25);
	apenet_notifier_close(n);
}

static void test_killed_agent_spool_is_delivered(void **state)
{
	struct fixture *f = *state;
	trapd_start(&f->r[0]);
	struct apenet_notify_config c;
	config(f, &c, 2); /* receiver 1 never runs in this test */
	/* The first agent: 3 reports delivered to receiver 0, then receiver 0
	 * goes away, 6 more, and the agent dies without closing anything.
	 * Two pipes let this process stop the receiver at the right moment. */
	int to_parent[2], to_child[2];
	assert_int_equal(pipe(to_parent), 0);
	assert_int_equal(pipe(to_child), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b = 0;
		struct apenet_notifier *n = open_ok(&c);
		for (int i = 0; i < 3; i++)
			submit(n, i == 1, "boot-killed", "LINK_DOWN");
		struct idle_ctx idle0 = { n, 0, 0 };
		if (!run_until(n, sup_idle, &idle0, 60))
			_exit(3);
		if (write(to_parent[1], "d", 1) != 1 || read(to_child[0], &b, 1) != 1)
			_exit(5);
		for (int i = 3; i < 9; i++)
			submit(n, i % 2, "boot-killed", "LINK_DOWN");
		run_until(n, NULL, NULL, 0.2);
		raise(SIGKILL);
		_exit(4);
	}
	char b = 0;
	assert_int_equal(read(to_parent[0], &b, 1), 1);
	trapd_stop(&f->r[0]);
	assert_int_equal(write(to_child[1], "g", 1), 1);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	for (int i = 0; i < 2; i++) {
		close(to_parent[i]);
		close(to_child[i]);
	}
	assert_delivered(&f->r[0], "boot-killed", 3);

	/* The receiver is back; the restarted agent finds 6 reports for
	 * receiver 0 and 9 for receiver 1 in the spool. */
	trapd_start(&f->r[0]);
	struct apenet_notifier *n = open_ok(&c);
	struct apenet_notify_status ns;
	apenet_notifier_status(n, &ns);
	assert_int_equal(ns.sup[0].outstanding, 6);
	assert_int_equal(ns.sup[1].outstanding, 9);
	struct idle_ctx idle0 = { n, 0, 0 };
	assert_true(run_until(n, sup_idle, &idle0, 60));
	struct want w = { &f->r[0], 9 };
	assert_true(e2e_wait(logged_at_least, &w, 30));
	assert_delivered(&f->r[0], "boot-killed", 9);
	/* The new agent numbers its own boot from 1. */
	submit(n, 0, "boot-second", "LINK_UP");
	assert_true(run_until(n, sup_idle, &idle0, 60));
	static struct report r[16];
	assert_int_equal(parse_log(&f->r[0], r, 16), 10);
	assert_string_equal(r[9].boot, "boot-second");
	assert_int_equal(r[9].seq, 1);
	apenet_notifier_close(n);
}

static void test_v3_authpriv(void **state)
{
	struct fixture *f = *state;
	f->r[0].v3 = 1;
	trapd_start(&f->r[0]);
	struct apenet_notify_config c;
	config(f, &c, 1);
	c.version = APENET_SNMP_V3;
	struct apenet_node_key k;
	struct apenet_err e = { 0 };
	snprintf(c.key_file, sizeof(c.key_file), "%s/node.key", f->r[0].dir);
	v3_node_key(V3_SECRET, &k);
	if (apenet_keys_write_node(c.key_file, &k, (uid_t)-1, (gid_t)-1, &e))
		fail_msg("%s", e.msg);
	struct apenet_notifier *n = open_ok(&c);
	for (int i = 0; i < 8; i++)
		submit(n, i % 2, "boot-v3", "LINK_DOWN");
	assert_true(run_until(n, all_idle, n, 60));
	struct want w = { &f->r[0], 8 };
	assert_true(e2e_wait(logged_at_least, &w, 30));
	assert_delivered(&f->r[0], "boot-v3", 8);
	apenet_notifier_close(n);

	/* The receiver restarts (same engine ID, more boots): still fine. */
	trapd_stop(&f->r[0]);
	trapd_start(&f->r[0]);
	n = open_ok(&c);
	submit(n, 0, "boot-v3", "LINK_UP");
	assert_true(run_until(n, all_idle, n, 60));
	apenet_notifier_close(n);
	assert_delivered(&f->r[0], "boot-v3", 9);

	/* A key from another site secret: refused by the receiver, kept in
	 * the spool, and the reason is there for agent-status. */
	snprintf(c.key_file, sizeof(c.key_file), "%s/wrong.key", f->r[0].dir);
	v3_node_key(V3_SECRET + 1, &k);
	if (apenet_keys_write_node(c.key_file, &k, (uid_t)-1, (gid_t)-1, &e))
		fail_msg("%s", e.msg);
	n = open_ok(&c);
	submit(n, 0, "boot-v3", "LINK_DOWN");
	struct idle_ctx un = { n, 0, 1 };
	int refused = run_until(n, sup_unanswered, &un, 60);
	struct apenet_notify_status st;
	apenet_notifier_status(n, &st);
	if (!refused)
		fail_msg("wrong key: state %s, sent %llu, acked %llu, unanswered %llu, outstanding %llu: %s",
			 apenet_notifier_state_name(st.sup[0].state), (unsigned long long)st.sup[0].sent,
			 (unsigned long long)st.sup[0].acked, (unsigned long long)st.sup[0].unanswered,
			 (unsigned long long)st.sup[0].outstanding, st.sup[0].last_error);
	print_message("wrong key: %s\n", st.sup[0].last_error);
	assert_int_equal(st.sup[0].outstanding, 1);
	assert_int_equal(st.sup[0].acked, 0);
	apenet_notifier_close(n);
	assert_delivered(&f->r[0], "boot-v3", 9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_both_receivers_log_everything_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_receiver_outage_every_report_once_in_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_agent_spool_is_delivered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v3_authpriv, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
