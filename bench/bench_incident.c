/*
 * Detection latency end to end, fault injected -> incident in the
 * supervisor's health database (issue 9): a 4x4x1 emulated torus, an agent
 * on every one of its 16 nodes with the shipped defaults (P = 100 ms,
 * watchdog 100 ms x 3 beats, dnp_stuck_periods 5, a heartbeat every 1 s),
 * reporting to ONE apenet-supervisor on a loopback port with its own
 * database and the shipped deduction settings (settle_ms 1500, tick_ms 100,
 * batch_max_ms 20, silent_ms 3500).
 *
 * For each fault class, N injections (default 100; BENCH_INCIDENT_N, or
 * BENCH_INCIDENT_N_CABLE / _DNP / _HOST for one class), the database polled
 * read-only through the library (the reader `apenet health` uses) every
 * 2 ms, every incident row of the injection followed: the time from just
 * before `apenet-sim inject` (or the agent's SIGSTOP) to the moment the
 * incident is committed (provisionally, at its first evidence: the first
 * row of the incident the fault ends in, its own or one merged into it),
 * and to the moment it settles (what acts on incidents sees it from then).
 * Then the fault is cleared, the incident awaited closed and the torus quiet
 * again (nothing open, settled or not), and the incident's final component
 * and node are checked against what was injected.
 *
 * Printed per class, nothing asserted: p50, p99 and max of committed and of
 * settled; settled minus the window the deduction waits on purpose
 * (settle_ms after the first evidence for a cable or a DNP; for a hung host
 * the node's silence, silent_ms after it was last heard), which is the
 * machinery's own cost plus the agent's detection; the incident's stored
 * opened time (the deduction stamps it with its first fault's time, as the
 * reporting agent saw it) minus the injection; clear -> closed; the final
 * blames that were wrong, and the incidents said provisionally and withdrawn
 * (never settled, never acted on).  The load average before and after: the
 * machine may be shared.  BENCH_INCIDENT_FAST_N
 * (default 0) adds a second, separately labelled series with settle_ms 0
 * (not the shipped setting): what the same path costs without the window.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apenet/config.h"
#include "apenet/keys.h"
#include "apenet/hdb.h"
#include "spawn.h"
#include "../tests/e2e/e2e.h"

#define DEADLINE_OPEN_S 20.0  /* a detection slower than this counts as missed */
#define DEADLINE_CLOSE_S 90.0 /* the incident closing after the clear */
#define DEADLINE_QUIET_S 90.0 /* nothing open before the next injection */
#define POLL_MS 2

enum { CABLE, DNP, HOST, NCLASS };
static const struct {
	const char *name, *env, *component;
	unsigned node[3];
} cls[NCLASS] = {
	{ "cable unplug", "BENCH_INCIDENT_N_CABLE", "cable", { 1, 1, 0 } },
	{ "DNP hang", "BENCH_INCIDENT_N_DNP", "dnp", { 2, 2, 0 } },
	{ "host hang (SIGSTOP)", "BENCH_INCIDENT_N_HOST", "host", { 0, 3, 0 } },
};

struct series {
	const char *label;
	int settle_ms; /* -1: the shipped default */
	int n[NCLASS];
};

struct result {
	double *lat, *settled, *beyond, *opened, *closed;
	int n, missed, unclosed, wrong, withdrawn;
};

static char dir[PATH_MAX];
static struct e2e_sim sim;
static pid_t sup = -1, agents[16];
static int verbose;
static unsigned others;          /* settled incidents that were not the injected fault's */
static int wrong_total;          /* injections whose incident ended blaming the wrong component or node */
static char other_desc[4][200];

static void describe(const struct apenet_hdb_incident *in, char *out, size_t n)
{
	snprintf(out, n, "#%lld %s on %u,%u,%u%s%s (%s): %.100s", (long long)in->id, in->component, in->node[0],
		 in->node[1], in->node[2], in->link[0] ? " " : "", in->link, in->rule, in->first.text);
}

static int matches(int c, const struct apenet_hdb_incident *in)
{
	const unsigned *x = cls[c].node;
	if (strcmp(in->component, cls[c].component))
		return 0;
	if (in->node[0] == x[0] && in->node[1] == x[1] && in->node[2] == x[2])
		return 1;
	/* a cable is named by its end with the smaller node index */
	return in->has_far && in->far[0] == x[0] && in->far[1] == x[1] && in->far[2] == x[2];
}

/* ---- reading the database ---- */

/* Every row of an injection's incidents (ids above the last before it),
 * with when the bench first saw it committed and first saw it settled. */
#define MAXROWS 64
struct rows {
	int64_t after_id;
	int n;
	struct apenet_hdb_incident in[MAXROWS];
	double seen[MAXROWS], settled[MAXROWS]; /* e2e_now(), 0 not yet */
};

static int rows_cb(void *arg, const struct apenet_hdb_incident *in)
{
	struct rows *r = arg;
	if (in->id <= r->after_id)
		return 0;
	int k = 0;
	while (k < r->n && r->in[k].id != in->id)
		k++;
	if (k == r->n) {
		if (r->n == MAXROWS)
			return 0;
		r->n++;
		r->seen[k] = e2e_now();
		r->settled[k] = 0;
	}
	r->in[k] = *in;
	if (in->settled_ms && !r->settled[k])
		r->settled[k] = e2e_now();
	return 0;
}

/* Reads the rows again; -1 when the database could not be read. */
static int rows_read(struct apenet_hdb *db, struct rows *r, int64_t from_ms)
{
	struct apenet_err e = { 0 };
	if (apenet_hdb_incidents_each(db, APENET_HDB_EVERY_ROW, from_ms, INT64_MAX, rows_cb, r, &e)) {
		fprintf(stderr, "bench: reading the database: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* A settled incident of the injection (open, or closed since: not merged)
 * that blames what was injected (want: 1) or anything (0); -1 when none. */
static int rows_settled(const struct rows *r, int c, int want)
{
	for (int k = 0; k < r->n; k++)
		if (r->in[k].settled_ms && r->in[k].state != APENET_HDB_MERGED && (!want || matches(c, &r->in[k])))
			return k;
	return -1;
}

static int max_cb(void *arg, const struct apenet_hdb_incident *in)
{
	int64_t *m = arg;
	if (in->id > *m)
		*m = in->id;
	return 0;
}

static int64_t max_id(struct apenet_hdb *db)
{
	struct apenet_err e = { 0 };
	int64_t m = 0;
	apenet_hdb_incidents_each(db, APENET_HDB_EVERY_ROW, 0, INT64_MAX, max_cb, &m, &e);
	return m;
}

static int count_cb(void *arg, const struct apenet_hdb_incident *in)
{
	(void)in;
	++*(int *)arg;
	return 0;
}

/* Waits until nothing is open, settled or not (polls every 10 ms); 1 when
 * quiet. */
static int wait_quiet(struct apenet_hdb *db, double deadline_s)
{
	double t = e2e_now();
	while (e2e_now() - t < deadline_s) {
		struct apenet_err e = { 0 };
		int n = 0;
		if (apenet_hdb_incidents_open_each(db, count_cb, &n, &e) == 0 &&
		    apenet_hdb_incidents_provisional_each(db, count_cb, &n, &e) == 0 && n == 0)
			return 1;
		e2e_sleep_ms(10);
	}
	return 0;
}

/* ---- the processes ---- */

static int sup_listening(void *ctx)
{
	return bench_file_has(ctx, "listening on") || waitpid(sup, NULL, WNOHANG) == sup;
}

static void stop_sup(void)
{
	if (sup > 0) {
		kill(sup, SIGTERM);
		waitpid(sup, NULL, 0);
		sup = -1;
	}
}

static void stop_agents(void)
{
	for (int i = 0; i < 16; i++)
		if (agents[i] > 0) {
			kill(agents[i], SIGCONT);
			kill(agents[i], SIGTERM);
			waitpid(agents[i], NULL, 0);
			agents[i] = -1;
		}
}

/* One series' processes: the supervisor (its config and database under
 * sdir), then the 16 agents; *port is the port it got. */
static int start_series(const char *sdir, int settle_ms, int *port, struct apenet_config *cfg)
{
	char cfgf[PATH_MAX + 32], db[PATH_MAX + 32], log[PATH_MAX + 32], bin[PATH_MAX + 32], listen[64];
	mkdir(sdir, 0755);
	snprintf(cfgf, sizeof(cfgf), "%s/cluster.yaml", sdir);
	snprintf(db, sizeof(db), "%s/health.db", sdir);
	snprintf(log, sizeof(log), "%s/supervisor.log", sdir);
	snprintf(bin, sizeof(bin), "%s/apenet-supervisor", e2e_bin());
	FILE *f = fopen(cfgf, "w");
	if (!f)
		return -1;
	/* SNMPv3 as shipped: a site secret, each agent its node's key */
	char sk[PATH_MAX + 32];
	uint8_t secret[APENET_SITE_SECRET_LEN];
	struct apenet_err ke = { 0 };
	snprintf(sk, sizeof(sk), "%s/site.key", sdir);
	unlink(sk);
	if (apenet_keys_new_secret(secret, &ke) || apenet_keys_write_secret(sk, secret, (uid_t)-1, (gid_t)-1, &ke)) {
		fprintf(stderr, "bench: %s\n", ke.msg);
		fclose(f);
		return -1;
	}
	fputs("cluster:\n  dims: 4x4x1\n", f);
	fprintf(f, "supervisor:\n  site_key: %s\n", sk);
	if (settle_ms >= 0)
		fprintf(f, "  settle_ms: %d\n", settle_ms);
	if (fclose(f))
		return -1;
	struct apenet_err e = { 0 };
	if (apenet_config_load(cfgf, cfg, &e)) {
		fprintf(stderr, "bench: %s: %s\n", cfgf, e.msg);
		return -1;
	}
	*port = 0;
	for (int p = 30000 + getpid() % 20000 + (settle_ms >= 0 ? 7 : 0), tries = 0; tries < 10 && !*port;
	     tries++, p += 13) {
		snprintf(listen, sizeof(listen), "127.0.0.1:%d", p);
		unlink(log);
		char *argv[] = { bin, "--config", cfgf, "--foreground", "--listen", listen, "--db", db, NULL };
		sup = e2e_spawn(argv, log);
		if (sup > 0 && e2e_wait(sup_listening, log, 20) && waitpid(sup, NULL, WNOHANG) == 0)
			*port = p;
		else if (sup > 0) {
			kill(sup, SIGTERM);
			waitpid(sup, NULL, 0);
			sup = -1;
		}
	}
	if (!*port) {
		fprintf(stderr, "bench: apenet-supervisor did not start (see %s)\n", log);
		return -1;
	}
	for (int i = 0; i < 16; i++) {
		char d[PATH_MAX + 32], node[16], extra[PATH_MAX + 256], key[PATH_MAX + 48];
		struct apenet_node_key nk;
		snprintf(d, sizeof(d), "%s/agent-%d-%d-0", sdir, i % 4, i / 4);
		snprintf(node, sizeof(node), "%d-%d-0", i % 4, i / 4);
		snprintf(key, sizeof(key), "%s/node-%d.key", sdir, i);
		unlink(key);
		if (apenet_keys_node(secret, (unsigned)(i % 4), (unsigned)(i / 4), 0, &nk, &ke) ||
		    apenet_keys_write_node(key, &nk, (uid_t)-1, (gid_t)-1, &ke)) {
			fprintf(stderr, "bench: %s\n", ke.msg);
			return -1;
		}
		/* the shipped defaults but for the black box's files (disk) */
		snprintf(extra, sizeof(extra),
			 "  blackbox_keep_files: 2\nsupervisors:\n  targets: [\"127.0.0.1:%d\"]\n  key_file: %s\n", *port, key);
		agents[i] = e2e_agent_start(&sim, d, node, extra);
		if (agents[i] <= 0)
			return -1;
	}
	return 0;
}

/* ---- one injection ---- */

static void inject(int c)
{
	if (c == CABLE)
		e2e_inject(&sim, "1,1,0", "cable-unplug", "--link", "Y+", NULL);
	else if (c == DNP)
		e2e_inject(&sim, "2,2,0", "dnp-hang", NULL);
	else
		kill(agents[cls[HOST].node[0] + 4 * cls[HOST].node[1]], SIGSTOP);
}

static void clear(int c)
{
	if (c == CABLE)
		e2e_inject(&sim, "1,1,0", "clear", NULL);
	else if (c == DNP)
		e2e_inject(&sim, "2,2,0", "clear", NULL);
	else
		kill(agents[cls[HOST].node[0] + 4 * cls[HOST].node[1]], SIGCONT);
}

static void one(struct apenet_hdb *db, int c, const struct apenet_config *cfg, struct result *r)
{
	struct apenet_err e = { 0 };
	if (!wait_quiet(db, DEADLINE_QUIET_S))
		fprintf(stderr, "bench: %s: an incident still open after %.0f s; injecting anyway\n", cls[c].name,
			DEADLINE_QUIET_S);
	static struct rows rw;
	memset(&rw, 0, sizeof(rw));
	rw.after_id = max_id(db);
	double settle = cfg->svr.settle_ms;
	double t0 = e2e_now(), w0 = e2e_wall_ms();
	int64_t from = (int64_t)w0 - 60000; /* opened_ms: the first fault's time, after the injection */
	inject(c);
	int k = -1;
	while ((k = rows_settled(&rw, c, 1)) < 0 && e2e_now() - t0 < DEADLINE_OPEN_S) {
		rows_read(db, &rw, from);
		if ((k = rows_settled(&rw, c, 1)) < 0)
			e2e_sleep_ms(POLL_MS);
	}
	/* none blames it: the fault ended as something else (wrong), or as
	 * nothing (missed) */
	if (k < 0)
		k = rows_settled(&rw, c, 0);
	double settled = k >= 0 ? (rw.settled[k] - t0) * 1000 : 0;
	double beyond = settled - settle;
	if (k >= 0 && c == HOST) {
		/* the silence: silent_ms after the node was last heard */
		struct apenet_hdb_node n;
		if (apenet_hdb_node_get(db, cls[HOST].node, (int64_t)e2e_wall_ms(), (int64_t)cfg->svr.silent_ms, &n,
					&e) == 1) {
			int64_t heard = n.self_recv_ms > n.hb_recv_ms ? n.self_recv_ms : n.hb_recv_ms;
			beyond = settled - ((double)heard + cfg->svr.silent_ms - w0);
		}
	}
	double tc = e2e_now();
	clear(c);
	if (k < 0) {
		r->missed++;
		fprintf(stderr, "bench: %s: no settled incident within %.0f s\n", cls[c].name, DEADLINE_OPEN_S);
		wait_quiet(db, DEADLINE_QUIET_S);
		return;
	}
	int64_t id = rw.in[k].id;
	struct apenet_hdb_incident in = rw.in[k];
	while (in.state == APENET_HDB_OPEN && e2e_now() - tc < DEADLINE_CLOSE_S) {
		e2e_sleep_ms(POLL_MS);
		if (apenet_hdb_incident_get(db, id, &in, &e) != 1)
			in.state = APENET_HDB_OPEN;
	}
	int i = r->n++;
	r->closed[i] = in.state == APENET_HDB_OPEN ? -1 : (e2e_now() - tc) * 1000;
	r->unclosed += in.state == APENET_HDB_OPEN;
	/* everything this injection set off has closed: the rows as they end */
	wait_quiet(db, DEADLINE_QUIET_S);
	rows_read(db, &rw, from);
	in = rw.in[k];
	/* committed: the first row of the incident it ended in (its own, or
	 * one said before that merged into it) */
	double seen = rw.seen[k];
	for (int j = 0; j < rw.n; j++)
		if (rw.in[j].merged_into == id && rw.seen[j] < seen)
			seen = rw.seen[j];
	r->lat[i] = (seen - t0) * 1000;
	r->settled[i] = settled;
	r->beyond[i] = beyond;
	r->opened[i] = (double)in.opened_ms - w0;
	/* its final blame, which the bench knows */
	if (!matches(c, &in)) {
		r->wrong++;
		char d[256];
		describe(&in, d, sizeof(d));
		fprintf(stderr, "bench: %s: WRONG final blame: %s\n", cls[c].name, d);
	}
	for (int j = 0; j < rw.n; j++) {
		const struct apenet_hdb_incident *x = &rw.in[j];
		if (j == k || x->state == APENET_HDB_MERGED)
			continue;
		if (!x->settled_ms) {
			r->withdrawn++; /* said provisionally, never acted on */
			continue;
		}
		if (others < sizeof(other_desc) / sizeof(other_desc[0]))
			describe(x, other_desc[others], sizeof(other_desc[0]));
		others++;
	}
	if (verbose) {
		char d[256];
		describe(&in, d, sizeof(d));
		fprintf(stderr,
			"bench: %-20s committed %6.0f ms, settled %6.0f ms (beyond the window %5.0f, stored opened %+5.0f), "
			"closed %6.0f ms, %d rows: %s\n",
			cls[c].name, r->lat[i], settled, beyond, r->opened[i], r->closed[i], rw.n, d);
	}
}

/* ---- output ---- */

static void q3(double *v, int n, char *out, size_t len)
{
	double p50, p99, mx;
	if (n <= 0) {
		snprintf(out, len, "%6s %6s %6s", "-", "-", "-");
		return;
	}
	e2e_quantiles(v, n, &p50, &p99, &mx);
	snprintf(out, len, "%6.0f %6.0f %6.0f", p50, p99, mx);
}

static void print_series(const struct series *se, const struct apenet_config *cfg, struct result *r, double secs)
{
	const struct apenet_supervisor_config *sv = &cfg->svr;
	printf("# %s: settle_ms %.0f, tick_ms %.0f, batch_max_ms %.0f, silent_ms %.0f; agents: P = %.0f ms, watchdog "
	       "%.0f ms x %.0f beats, dnp_stuck_periods %.0f, heartbeat %.1f s (%.0f s)\n",
	       se->label, sv->settle_ms, sv->tick_ms, sv->batch_max_ms, sv->silent_ms, cfg->agent.period_ms,
	       cfg->agent.watchdog_period_ms, cfg->agent.watchdog_timeout_beats, cfg->agent.dnp_stuck_periods,
	       cfg->heartbeat_s, secs);
	printf("%-20s %4s  %-20s  %-20s  %-20s  %-20s  %-13s %s\n", "fault", "n", "injected->committed",
	       "injected->settled", "settled beyond window", "stored opened-inject", "clear->closed",
	       "missed wrong withdrawn");
	printf("%-20s %4s  %6s %6s %6s  %6s %6s %6s  %6s %6s %6s  %6s %6s %6s  %6s %6s\n", "", "", "p50", "p99", "max",
	       "p50", "p99", "max", "p50", "p99", "max", "p50", "p99", "max", "p50", "max");
	for (int c = 0; c < NCLASS; c++) {
		if (!se->n[c])
			continue;
		char a[64], st[64], b[64], o[64], cl[64];
		int nc = 0;
		for (int i = 0; i < r[c].n; i++)
			if (r[c].closed[i] >= 0)
				r[c].closed[nc++] = r[c].closed[i];
		q3(r[c].lat, r[c].n, a, sizeof(a));
		q3(r[c].settled, r[c].n, st, sizeof(st));
		q3(r[c].beyond, r[c].n, b, sizeof(b));
		q3(r[c].opened, r[c].n, o, sizeof(o));
		/* clear->closed: p50 and max only */
		double p50, p99, mx;
		if (nc) {
			e2e_quantiles(r[c].closed, nc, &p50, &p99, &mx);
			snprintf(cl, sizeof(cl), "%6.0f %6.0f", p50, mx);
		} else
			snprintf(cl, sizeof(cl), "%6s %6s", "-", "-");
		printf("%-20s %4d  %s  %s  %s  %s  %s  %6d %5d %9d%s\n", cls[c].name, r[c].n, a, st, b, o, cl,
		       r[c].missed, r[c].wrong, r[c].withdrawn, r[c].unclosed ? " (some never closed)" : "");
		wrong_total += r[c].wrong;
	}
}

static int run_series(const struct series *se, int idx, double *secs_out)
{
	char sdir[PATH_MAX + 16];
	snprintf(sdir, sizeof(sdir), "%s/s%d", dir, idx);
	struct apenet_config cfg;
	apenet_config_defaults(&cfg);
	int port;
	double t_start = e2e_now();
	if (start_series(sdir, se->settle_ms, &port, &cfg))
		return -1;
	char dbf[PATH_MAX + 32];
	snprintf(dbf, sizeof(dbf), "%s/health.db", sdir);
	struct apenet_hdb *db = NULL;
	struct apenet_err e = { 0 };
	if (apenet_hdb_open(dbf, APENET_HDB_READONLY, &db, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return -1;
	}
	/* every node heard, nothing open */
	double t = e2e_now();
	struct apenet_hdb_summary sum = { 0 };
	while (e2e_now() - t < 60) {
		if (apenet_hdb_summary(db, (int64_t)e2e_wall_ms(), (int64_t)cfg.svr.silent_ms, &sum, &e) == 0 &&
		    sum.normal == 16 && sum.open_incidents == 0)
			break;
		e2e_sleep_ms(20);
	}
	if (sum.normal != 16 || sum.open_incidents) {
		fprintf(stderr, "bench: the torus never looked healthy: %u normal, %u open (see %s)\n", sum.normal,
			sum.open_incidents, sdir);
		apenet_hdb_close(db);
		return -1;
	}
	fprintf(stderr, "bench: %s: 16 agents heard by the supervisor on 127.0.0.1:%d in %.1f s\n", se->label, port,
		e2e_now() - t_start);
	struct result r[NCLASS];
	memset(r, 0, sizeof(r));
	for (int c = 0; c < NCLASS; c++) {
		int n = se->n[c] > 0 ? se->n[c] : 1;
		r[c].lat = calloc((size_t)n, sizeof(double));
		r[c].settled = calloc((size_t)n, sizeof(double));
		r[c].beyond = calloc((size_t)n, sizeof(double));
		r[c].opened = calloc((size_t)n, sizeof(double));
		r[c].closed = calloc((size_t)n, sizeof(double));
		if (!r[c].lat || !r[c].settled || !r[c].beyond || !r[c].opened || !r[c].closed)
			return -1;
	}
	/* the classes in turn, one injection each per round, so that a slow
	 * moment of the shared machine falls on all of them alike */
	double t0 = e2e_now();
	int rounds = 0;
	for (int c = 0; c < NCLASS; c++)
		rounds = se->n[c] > rounds ? se->n[c] : rounds;
	for (int i = 0; i < rounds; i++) {
		for (int c = 0; c < NCLASS; c++)
			if (i < se->n[c])
				one(db, c, &cfg, &r[c]);
		if ((i + 1) % 10 == 0 || i + 1 == rounds)
			fprintf(stderr, "bench: %s: %d of %d rounds in %.0f s\n", se->label, i + 1, rounds, e2e_now() - t0);
	}
	*secs_out = e2e_now() - t0;
	print_series(se, &cfg, r, *secs_out);
	for (int c = 0; c < NCLASS; c++) {
		free(r[c].lat);
		free(r[c].settled);
		free(r[c].beyond);
		free(r[c].opened);
		free(r[c].closed);
	}
	apenet_hdb_close(db);
	apenet_config_free(&cfg);
	stop_agents();
	stop_sup();
	return 0;
}

static void print_load(const char *when)
{
	char l[128] = "?";
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (!fgets(l, sizeof(l), f))
			snprintf(l, sizeof(l), "?");
		fclose(f);
	}
	l[strcspn(l, "\n")] = 0;
	printf("# load average %s: %s (%ld cores)\n", when, l, sysconf(_SC_NPROCESSORS_ONLN));
}

static int env_n(const char *name, int def)
{
	const char *v = getenv(name);
	return v && *v ? atoi(v) : def;
}

int main(void)
{
	double start = e2e_now();
	verbose = env_n("BENCH_VERBOSE", 0);
	int n = env_n("BENCH_INCIDENT_N", 100), fast = env_n("BENCH_INCIDENT_FAST_N", 0);
	struct series se[2] = {
		{ "shipped settings (the headline)", -1, { 0 } },
		{ "SECOND SERIES, settle_ms 0 (not the shipped setting: the path without the window)", 0, { 0 } },
	};
	for (int c = 0; c < NCLASS; c++) {
		se[0].n[c] = env_n(cls[c].env, n);
		se[1].n[c] = c == HOST ? 0 : fast; /* a silence has no settle window */
	}
	for (int i = 0; i < 16; i++)
		agents[i] = -1;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-incident-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || e2e_sim_start(&sim, "--dims", "4x4x1", "--seed", "9", NULL)) {
		fprintf(stderr, "bench: cannot start apenet-sim (APENET_BIN=%s)\n", e2e_bin());
		return 2;
	}
	printf("# detection latency end to end: fault injected -> incident committed (provisionally, at its first\n"
	       "# evidence) and -> settled (its blame final: what acts on incidents sees) in the supervisor's health\n"
	       "# database (ms), polled read-only through the library every %d ms.  4x4x1 emulator, an agent on\n"
	       "# each of the 16 nodes, one apenet-supervisor on a loopback port with its own database.\n"
	       "# Faults: cable 1,1,0 Y+ unplugged; 2,2,0's DNP hung; 0,3,0's agent SIGSTOPped (host hang).\n"
	       "# What bounds it: an incident is committed in the batch of its first evidence (the agent's\n"
	       "# detection: one period P for a link, dnp_stuck_periods x P for a DNP; the INFORM; the batch, at\n"
	       "# most batch_max_ms); a cable or a DNP settles settle_ms after its first evidence arrived, at the\n"
	       "# next tick (tick_ms); a hung host settles once the node falls silent, silent_ms after its last\n"
	       "# report (a heartbeat every heartbeat_s), at the next tick.  'wrong': the incident's final\n"
	       "# component or node is not what was injected.\n"
	       "# 'settled beyond window': settled minus settle_ms (cable, DNP), or minus the time from the\n"
	       "# injection to the end of the node's silence window (host): the agent's detection (cable, DNP)\n"
	       "# and the supervisor's own cost.  'stored opened': the incident's opened time in the database,\n"
	       "# which is its first fault's time as the agent saw it, minus the injection.\n",
	       POLL_MS);
	int rc = 0;
	double secs[2] = { 0, 0 };
	print_load("before");
	for (int i = 0; i < 2 && !rc; i++) {
		int any = 0;
		for (int c = 0; c < NCLASS; c++)
			any |= se[i].n[c] > 0;
		if (any && run_series(&se[i], i, &secs[i])) {
			fprintf(stderr, "bench: the series '%s' could not run\n", se[i].label);
			rc = 2;
		}
	}
	printf("final blame wrong: %d; settled incidents other than the injected ones: %u\n", wrong_total, others);
	for (unsigned i = 0; i < others && i < sizeof(other_desc) / sizeof(other_desc[0]); i++)
		printf("  %s\n", other_desc[i]);
	print_load("after");
	printf("elapsed: %.0f s (injections %.0f s)\n", e2e_now() - start, secs[0] + secs[1]);
	stop_agents();
	stop_sup();
	e2e_sim_stop(&sim);
	if (!getenv("BENCH_KEEP")) {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			fprintf(stderr, "bench: could not remove %s\n", dir);
	} else
		fprintf(stderr, "bench: kept %s\n", dir);
	return rc;
}
