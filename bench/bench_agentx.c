/*
 * APENET-MIB through snmpd (issue 11): the node agent as an AgentX
 * subagent of a real snmpd on a loopback port, on an APEnet+ v4 board of a
 * running emulator (4x4x1, node 1,1,0).
 *  - A full walk of APENET-MIB against a walk of IF-MIB (interfaces and
 *    ifMIB, which snmpd serves itself) on the same snmpd, in the same run:
 *    time per varbind, GETNEXT (one varbind a request: the round trip
 *    through snmpd and AgentX dominates) and GETBULK (25 a request: the
 *    serving code shows).  Median of BENCH_AGENTX_WALKS walks of each, taken
 *    in turn (default 40).
 *    Goal: APENET-MIB <= 1.5x IF-MIB per varbind.
 *  - The agent's CPU share while being walked (GETBULK) every 10 s, against
 *    the same agent not walked, BENCH_AGENTX_S seconds each (default 60).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "../tests/e2e/e2e.h"

static void *sess;

/* One walk of the subtree base: varbinds seen (-1 on an error). */
static long walk(const oid *base, size_t blen, int bulk)
{
	oid cur[MAX_OID_LEN];
	size_t n = blen;
	long count = 0;
	memcpy(cur, base, blen * sizeof(oid));
	for (;;) {
		netsnmp_pdu *req = snmp_pdu_create(bulk ? SNMP_MSG_GETBULK : SNMP_MSG_GETNEXT), *resp = NULL;
		if (bulk) {
			req->non_repeaters = 0;
			req->max_repetitions = 25;
		}
		snmp_add_null_var(req, cur, n);
		if (snmp_sess_synch_response(sess, req, &resp) != STAT_SUCCESS || !resp || resp->errstat) {
			if (resp)
				snmp_free_pdu(resp);
			return -1;
		}
		int done = !resp->variables;
		for (netsnmp_variable_list *v = resp->variables; v; v = v->next_variable) {
			if (v->type == SNMP_ENDOFMIBVIEW || snmp_oidtree_compare(base, blen, v->name, v->name_length)) {
				done = 1;
				break;
			}
			count++;
			memcpy(cur, v->name, v->name_length * sizeof(oid));
			n = v->name_length;
		}
		snmp_free_pdu(resp);
		if (done)
			return count;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Walks of the two sets of subtrees taken in turn (A, B, A, B, ...: a
 * machine that slows down meanwhile slows both), `times` each; the median
 * time per varbind of each (us) and the varbinds a walk. */
static int per_varbind(const oid *const *ab, const size_t *al, int na, const oid *const *bb, const size_t *bl, int nb,
		       int bulk, int times, double *a_us, long *an, double *b_us, long *bn)
{
	static double va[400], vb[400];
	if (times > 400)
		times = 400;
	for (int i = 0; i < times; i++)
		for (int side = 0; side < 2; side++) {
			const oid *const *bases = side ? bb : ab;
			const size_t *lens = side ? bl : al;
			int n = side ? nb : na;
			double t0 = e2e_now();
			long c = 0;
			for (int b = 0; b < n; b++) {
				long k = walk(bases[b], lens[b], bulk);
				if (k < 0)
					return -1;
				c += k;
			}
			(side ? vb : va)[i] = (e2e_now() - t0) * 1e6 / (double)(c ? c : 1);
			*(side ? bn : an) = c;
		}
	qsort(va, (size_t)times, sizeof(va[0]), cmp_double);
	qsort(vb, (size_t)times, sizeof(vb[0]), cmp_double);
	*a_us = va[times / 2];
	*b_us = vb[times / 2];
	return 0;
}

static int agent_served(void *ctx)
{
	(void)ctx;
	static const oid card[] = { 1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 65, 1, 2 };
	return walk(card, sizeof(card) / sizeof(card[0]), 0) > 0;
}

int main(void)
{
	int walks = getenv("BENCH_AGENTX_WALKS") ? atoi(getenv("BENCH_AGENTX_WALKS")) : 40;
	double secs = getenv("BENCH_AGENTX_S") ? atof(getenv("BENCH_AGENTX_S")) : 60;
	const char *snmpd = access("/usr/sbin/snmpd", X_OK) == 0 ? "/usr/sbin/snmpd" : "snmpd";
	char dir[PATH_MAX], conf[PATH_MAX + 32], sock[PATH_MAX + 32], log[PATH_MAX + 32], persist[PATH_MAX + 32];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-agentx-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 2;
	snprintf(conf, sizeof(conf), "%s/snmpd.conf", dir);
	snprintf(sock, sizeof(sock), "%s/agentx.sock", dir);
	snprintf(log, sizeof(log), "%s/snmpd.log", dir);
	snprintf(persist, sizeof(persist), "%s/persist", dir);
	FILE *f = fopen(conf, "w");
	if (!f)
		return 2;
	fprintf(f, "master agentx\nagentXSocket %s\nagentXPerms 0660 0770\nrocommunity public 127.0.0.1\n", sock);
	fclose(f);
	setenv("SNMP_PERSISTENT_DIR", persist, 1);
	pid_t sd = -1;
	int port = 0;
	for (int t = 0; t < 8 && sd < 0; t++) {
		port = 20000 + (int)((getpid() * 11 + t * 37) % 30000);
		char addr[64];
		snprintf(addr, sizeof(addr), "udp:127.0.0.1:%d", port);
		/* -I -smux: no SMUX listener on port 199 */
		char *argv[] = { (char *)snmpd, "-f", "-Lf", log, "-C", "-c", conf, "-I", "-smux", "-M", "/dev/null", "-m", "",
				 addr, NULL };
		pid_t p = e2e_spawn(argv, log);
		e2e_sleep_ms(300);
		int st;
		if (p > 0 && waitpid(p, &st, WNOHANG) == 0)
			sd = p;
	}
	if (sd < 0) {
		fprintf(stderr, "bench: snmpd did not start (%s)\n", log);
		return 2;
	}
	struct e2e_sim sim;
	if (e2e_sim_start(&sim, "--dims", "4x4x1", NULL)) {
		fprintf(stderr, "bench: cannot start apenet-sim (APENET_BIN=%s)\n", e2e_bin());
		kill(sd, SIGTERM);
		return 2;
	}
	char adir[PATH_MAX + 16], extra[PATH_MAX + 128];
	snprintf(adir, sizeof(adir), "%s/agent", dir);
	snprintf(extra, sizeof(extra), "  agentx_socket: %s\n  agentx_ping_s: 5\nsupervisors:\n  targets: []\n", sock);
	pid_t ag = e2e_agent_start(&sim, adir, "1-1-0", extra);

	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	snmp_disable_log();
	/* no MIB files: the OIDs are numbers */
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS, dir);
	char mibs[] = "mibs :";
	netsnmp_config_remember(mibs);
	init_snmp("bench_agentx");
	netsnmp_session s;
	char peer[64];
	snprintf(peer, sizeof(peer), "udp:127.0.0.1:%d", port);
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.peername = peer;
	s.community = (u_char *)"public";
	s.community_len = 6;
	s.timeout = 3000000;
	s.retries = 1;
	sess = snmp_sess_open(&s);
	int rc = 0;
	if (!sess || !e2e_wait(agent_served, NULL, 30)) {
		fprintf(stderr, "bench: the agent is not served through snmpd (%s/log, %s; kept)\n", adir, log);
		rc = 3;
		goto out;
	}
	static const oid apenet[] = { 1, 3, 6, 1, 4, 1, 8072, 9999, 9999, 65 };
	static const oid ifs[] = { 1, 3, 6, 1, 2, 1, 2 }, ifmib[] = { 1, 3, 6, 1, 2, 1, 31 };
	const oid *ab[] = { apenet }, *ib[] = { ifs, ifmib };
	size_t al[] = { 10 }, il[] = { 7, 7 };
	long an = 0, in = 0;
	printf("# APENET-MIB (apenet-agent via AgentX, APEnet+ v4, emulated 4x4x1 node 1,1,0) vs IF-MIB (snmpd's own)\n");
	printf("# on one snmpd, loopback, SNMPv2c; median of %d walks\n", walks);
	printf("%-10s %-10s %9s %14s\n", "walk", "MIB", "varbinds", "us/varbind");
	for (int bulk = 0; bulk <= 1; bulk++) {
		double a, i;
		if (per_varbind(ab, al, 1, ib, il, 2, bulk, walks, &a, &an, &i, &in)) {
			fprintf(stderr, "bench: a walk failed\n");
			rc = 2;
			goto out;
		}
		printf("%-10s %-10s %9ld %14.1f\n", bulk ? "GETBULK25" : "GETNEXT", "APENET", an, a);
		printf("%-10s %-10s %9ld %14.1f\n", bulk ? "GETBULK25" : "GETNEXT", "IF-MIB", in, i);
		printf("%-10s ratio APENET/IF-MIB per varbind: %.2f (goal <= 1.5)\n", bulk ? "GETBULK25" : "GETNEXT", a / i);
	}
	/* where a varbind's time goes: CPU of the agent and of snmpd over 5
	 * GETNEXT walks of APENET-MIB, and of snmpd over 5 of IF-MIB */
	{
		double a0 = e2e_proc_cpu_s(ag), s0 = e2e_proc_cpu_s(sd), w0 = e2e_now();
		long n = 0;
		for (int k = 0; k < 5; k++)
			n += walk(apenet, 10, 0);
		double a1 = e2e_proc_cpu_s(ag), s1 = e2e_proc_cpu_s(sd), w1 = e2e_now();
		long ni = 0;
		for (int k = 0; k < 5; k++)
			ni += walk(ifs, 7, 0) + walk(ifmib, 7, 0);
		double s2 = e2e_proc_cpu_s(sd), w2 = e2e_now();
		printf("# CPU per varbind, GETNEXT: APENET-MIB %.1f us wall = agent %.1f us + snmpd %.1f us CPU; "
		       "IF-MIB %.1f us wall, snmpd %.1f us CPU\n",
		       (w1 - w0) * 1e6 / (double)n, (a1 - a0) * 1e6 / (double)n, (s1 - s0) * 1e6 / (double)n,
		       (w2 - w1) * 1e6 / (double)ni, (s2 - s1) * 1e6 / (double)ni);
	}
	/* the agent's CPU: not walked, then walked every 10 s */
	double c0 = e2e_proc_cpu_s(ag), t0 = e2e_now();
	e2e_sleep_ms((int)(secs * 1000));
	double c1 = e2e_proc_cpu_s(ag), t1 = e2e_now();
	int nw = 0;
	while (e2e_now() - t1 < secs) {
		if (walk(apenet, 10, 1) < 0) {
			rc = 2;
			break;
		}
		nw++;
		double next = t1 + nw * 10.0;
		while (e2e_now() < next && e2e_now() - t1 < secs)
			e2e_sleep_ms(100);
	}
	double c2 = e2e_proc_cpu_s(ag), t2 = e2e_now();
	printf("# apenet-agent CPU, P = 100 ms, %.0f s each\n", secs);
	printf("%-28s %8.3f %% of a core\n", "not walked", 100 * (c1 - c0) / (t1 - t0));
	printf("%-28s %8.3f %% of a core (%d full walks, GETBULK)\n", "walked every 10 s", 100 * (c2 - c1) / (t2 - t1), nw);
out:
	if (sess)
		snmp_sess_close(sess);
	kill(ag, SIGTERM);
	waitpid(ag, NULL, 0);
	kill(sd, SIGTERM);
	waitpid(sd, NULL, 0);
	e2e_sim_stop(&sim);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (rc != 3 && system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", dir);
	return rc ? 2 : 0;
}
