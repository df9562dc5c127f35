/*
 * What the health database costs the supervisor (db/, issue 9) at the
 * architecture's largest torus, 32x32x32 = 32,768 nodes:
 *   - heartbeats: BENCH_HDB_ROUNDS rounds (default 10) of one heartbeat from
 *     every node, in a shuffled order, committed in batches of 1000 with
 *     the durability the library uses (WAL, synchronous=FULL: an fsync per
 *     commit).  A round stands for one second at a 1 s heartbeat period, so
 *     the deferred heartbeats are flushed once a round.  Also with every
 *     heartbeat written in its batch (apenet_hdb_set_heartbeat_flush 0).
 *   - transitions: BENCH_HDB_TRANSITIONS (default 100,000) in batches of 1000,
 *     a third of them neighbours' LDM reports.
 *   - baseline, same run, same file settings: the same rows as plain
 *     INSERTs into a table without indexes, through one prepared statement,
 *     in batches of 1000: what sqlite costs without our logic.
 *   - the readers at 32K nodes: summary, the 50 worst nodes, all nodes.
 * Figures: rows per second of wall time, microseconds of CPU (user + system,
 * this process) per row, the share of one core that 32,768 rows a second
 * would take, and the bytes written per row (WAL and checkpoints, from
 * /proc/self/io).  The files go to BENCH_HDB_DIR, else TMPDIR, else
 * /var/tmp (a real disk: fsync is part of the cost).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"
#include "apenet/hdb.h"
#include "rawdb.h"

#define DIM 32
#define NODES (DIM * DIM * DIM)
#define BATCH 1000
#define T0 1700000000000LL

static double cpu_s(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec / 1e6 + (double)r.ru_stime.tv_sec +
	       (double)r.ru_stime.tv_usec / 1e6;
}

/* Bytes this process wrote through write(2) and friends: the WAL, and the
 * checkpoints into the database file. */
static double written(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	char line[128];
	double v = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "wchar: %lf", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

struct clock {
	double wall, cpu, bytes;
};

static struct clock start(void)
{
	struct clock c = { e2e_now(), cpu_s(), written() };
	return c;
}

/* The share of a core at 32,768 rows a second is shown for heartbeats, the
 * rows that come at that rate. */
static void report(const char *what, struct clock c, double rows)
{
	double wall = e2e_now() - c.wall, cpu = cpu_s() - c.cpu, bytes = written() - c.bytes;
	char share[32] = "";
	if (strstr(what, "heartbeat"))
		snprintf(share, sizeof(share), "%.1f%%", 100.0 * cpu / rows * NODES);
	printf("%-44s %8.0f %9.0f %8.2f %10s %9.0f\n", what, rows, rows / wall, cpu / rows * 1e6, share, bytes / rows);
}

static void die(const char *what, const struct apenet_err *e)
{
	fprintf(stderr, "bench_hdb: %s: %s\n", what, e->msg);
	exit(2);
}

static unsigned perm[NODES];

static void shuffle(unsigned seed)
{
	for (unsigned i = 0; i < NODES; i++)
		perm[i] = i;
	srand(seed);
	for (unsigned i = NODES - 1; i > 0; i--) {
		unsigned j = (unsigned)rand() % (i + 1), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

static void xyz_of(unsigned i, unsigned xyz[3])
{
	xyz[0] = i % DIM;
	xyz[1] = i / DIM % DIM;
	xyz[2] = i / (DIM * DIM);
}

/* Without apenet_report_init: that one lives with the notifier (net-snmp). */
static void report_init(struct apenet_report *r, enum apenet_report_kind kind)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->subject = APENET_REPORT_SUBJ_BOARD;
	r->value = NAN;
	r->threshold = NAN;
	r->path = APENET_REPORT_PATH_SELF;
}

static void heartbeat(struct apenet_report *r, unsigned node, unsigned round)
{
	unsigned xyz[3];
	xyz_of(node, xyz);
	report_init(r, APENET_REPORT_HEARTBEAT);
	r->x = xyz[0];
	r->y = xyz[1];
	r->z = xyz[2];
	snprintf(r->boot, sizeof(r->boot), "%u,%u,%u#1", xyz[0], xyz[1], xyz[2]);
	r->seq = round + 1;
	r->time_ms = T0 + (int64_t)round * 1000 + node % 1000;
	r->ldm = 0x80000000u;
	snprintf(r->evidence, sizeof(r->evidence), "all normal");
}

/* The heartbeats of rounds [from, to) into db. */
static void heartbeats(struct apenet_hdb *db, unsigned from, unsigned to, int flush_each_round)
{
	struct apenet_err e = { 0 };
	struct apenet_report r;
	int stored;
	for (unsigned round = from; round < to; round++) {
		shuffle(round);
		for (unsigned i = 0; i < NODES; i++) {
			if (i % BATCH == 0 && apenet_hdb_begin(db, &e))
				die("begin", &e);
			heartbeat(&r, perm[i], round);
			if (apenet_hdb_put_report(db, &r, r.time_ms + 2, &stored, &e) || !stored)
				die("heartbeat", &e);
			if ((i % BATCH == BATCH - 1 || i == NODES - 1) && apenet_hdb_commit(db, &e))
				die("commit", &e);
		}
		if (flush_each_round && apenet_hdb_flush(db, &e))
			die("flush", &e);
	}
}

static const char *const codes[] = { "LINK_DOWN", "LINK_CRC", "TEMP_HIGH", "NEIGHBOUR_LINK", "LDM_STALE" };

static void transition(struct apenet_report *r, unsigned k)
{
	unsigned rep = (k * 2654435761u) % NODES, about = rep, xyz[3];
	report_init(r, APENET_REPORT_HEALTH);
	xyz_of(rep, xyz);
	snprintf(r->boot, sizeof(r->boot), "%u,%u,%u#1", xyz[0], xyz[1], xyz[2]);
	r->seq = 1000000 + k; /* above the heartbeats' */
	if (k % 3 == 2) {
		about = (rep + 1) % NODES; /* its X+ neighbour, roughly */
		r->path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
		snprintf(r->via, sizeof(r->via), "X+");
	}
	xyz_of(about, xyz);
	r->x = xyz[0];
	r->y = xyz[1];
	r->z = xyz[2];
	r->subject = APENET_REPORT_SUBJ_LINK;
	snprintf(r->where, sizeof(r->where), "%s", k % 2 ? "X+" : "Y-");
	snprintf(r->code, sizeof(r->code), "%s", codes[k % 5]);
	r->old_status = (int)(k / 5 % 2) * 2;
	r->new_status = 2 - r->old_status;
	r->value = 3;
	r->threshold = 1;
	snprintf(r->unit, sizeof(r->unit), "/min");
	snprintf(r->evidence, sizeof(r->evidence), "%u CRC errors in 10.0 s, >= 1.3/min at 95%%", k % 97);
	r->time_ms = T0 + 100000 + k;
}

/* The baseline: the same rows, plain INSERTs, no indexes, no logic
 * (bench/rawdb.c, which bench_supervisor uses too). */
static void raw_rows(const char *path, int heartbeats_not_transitions, unsigned rows, const char *label)
{
	struct bench_rawdb *db = bench_rawdb_open(path);
	if (!db)
		exit(2);
	struct apenet_report r;
	struct clock c = start();
	for (unsigned i = 0; i < rows; i++) {
		if (i % BATCH == 0 && bench_rawdb_begin(db))
			exit(2);
		int64_t node = 0;
		if (heartbeats_not_transitions) {
			if (i % NODES == 0)
				shuffle(i / NODES);
			node = perm[i % NODES];
			heartbeat(&r, perm[i % NODES], i / NODES);
		} else {
			transition(&r, i);
		}
		if (bench_rawdb_put(db, &r, node, r.time_ms + 2))
			exit(2);
		if ((i % BATCH == BATCH - 1 || i == rows - 1) && bench_rawdb_commit(db))
			exit(2);
	}
	report(label, c, rows);
	bench_rawdb_close(db);
}

static int count_node(void *arg, const struct apenet_hdb_node *n)
{
	(void)n;
	(*(unsigned *)arg)++;
	return 0;
}

static void readers(struct apenet_hdb *db, int64_t now)
{
	struct apenet_err e = { 0 };
	struct apenet_hdb_summary s;
	double t = e2e_now();
	if (apenet_hdb_summary(db, now, 5000, &s, &e))
		die("summary", &e);
	double t1 = e2e_now();
	unsigned n50 = 0, nall = 0;
	if (apenet_hdb_nodes_each(db, now, 5000, 50, count_node, &n50, &e))
		die("nodes", &e);
	double t2 = e2e_now();
	if (apenet_hdb_nodes_each(db, now, 5000, 0, count_node, &nall, &e))
		die("nodes", &e);
	double t3 = e2e_now();
	printf("readers at %u nodes (%u normal, %u sick, %u broken, %u silent): summary %.1f ms, 50 worst %.1f ms, "
	       "all %u %.1f ms\n",
	       s.nodes, s.normal, s.sick, s.broken, s.silent, (t1 - t) * 1e3, (t2 - t1) * 1e3, nall, (t3 - t2) * 1e3);
}

int main(void)
{
	const char *env = getenv("BENCH_HDB_DIR");
	if (!env || !*env)
		env = getenv("TMPDIR");
	char dir[512];
	snprintf(dir, sizeof(dir), "%s/apenet-bench-hdb-XXXXXX", env && *env ? env : "/var/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	unsigned rounds = getenv("BENCH_HDB_ROUNDS") ? (unsigned)atoi(getenv("BENCH_HDB_ROUNDS")) : 10;
	unsigned ntr = getenv("BENCH_HDB_TRANSITIONS") ? (unsigned)atoi(getenv("BENCH_HDB_TRANSITIONS")) : 100000;
	if (rounds < 2)
		rounds = 2;
	char path[600], raw[600], wt[600];
	snprintf(path, sizeof(path), "%s/health.db", dir);
	snprintf(raw, sizeof(raw), "%s/raw.db", dir);
	snprintf(wt, sizeof(wt), "%s/write-through.db", dir);
	printf("# health database at %u nodes (%ux%ux%u), batches of %d, WAL + synchronous=FULL, files in %s\n", NODES, DIM,
	       DIM, DIM, BATCH, dir);
	struct apenet_err e = { 0 };
	struct apenet_hdb *db;
	unsigned dims[3] = { DIM, DIM, DIM };
	if (apenet_hdb_open(path, APENET_HDB_CREATE, &db, &e))
		die("open", &e);
	double t = e2e_now();
	if (apenet_hdb_layout(db, dims, NULL, NULL, &e))
		die("layout", &e);
	double t1 = e2e_now();
	if (apenet_hdb_layout(db, dims, NULL, NULL, &e))
		die("layout", &e);
	printf("layout: %.0f ms the first time (%u nodes, %u links), %.0f ms again (no change)\n", (t1 - t) * 1e3, NODES,
	       6 * NODES, (e2e_now() - t1) * 1e3);

	printf("%-44s %8s %9s %8s %10s %9s\n", "", "rows", "rows/s", "cpu us", "32K/s cpu", "bytes/row");
	/* The first round is every node's first heartbeat: news, written at
	 * once.  The rounds after are routine. */
	struct clock c = start();
	heartbeats(db, 0, 1, 1);
	report("heartbeats, first of each node (news)", c, NODES);
	c = start();
	heartbeats(db, 1, rounds, 1);
	report("heartbeats, routine (flushed once a round)", c, (double)NODES * (rounds - 1));
	struct apenet_hdb_stats st;
	apenet_hdb_stats(db, &st);

	struct apenet_hdb *w;
	if (apenet_hdb_open(wt, APENET_HDB_CREATE, &w, &e))
		die("open", &e);
	if (apenet_hdb_layout(w, dims, NULL, NULL, &e))
		die("layout", &e);
	apenet_hdb_set_heartbeat_flush(w, 0);
	heartbeats(w, 0, 1, 0);
	c = start();
	heartbeats(w, 1, rounds, 0);
	report("heartbeats, routine, each written (flush 0)", c, (double)NODES * (rounds - 1));
	apenet_hdb_close(w);

	c = start();
	struct apenet_report r;
	int stored;
	for (unsigned k = 0; k < ntr; k++) {
		if (k % BATCH == 0 && apenet_hdb_begin(db, &e))
			die("begin", &e);
		transition(&r, k);
		if (apenet_hdb_put_report(db, &r, r.time_ms + 2, &stored, &e) || !stored)
			die("transition", &e);
		if ((k % BATCH == BATCH - 1 || k == ntr - 1) && apenet_hdb_commit(db, &e))
			die("commit", &e);
	}
	report("transitions", c, ntr);
	/* Every one again: all duplicates, the resend case. */
	c = start();
	for (unsigned k = 0; k < ntr; k++) {
		if (k % BATCH == 0 && apenet_hdb_begin(db, &e))
			die("begin", &e);
		transition(&r, k);
		if (apenet_hdb_put_report(db, &r, r.time_ms + 2, &stored, &e) || stored)
			die("duplicate", &e);
		if ((k % BATCH == BATCH - 1 || k == ntr - 1) && apenet_hdb_commit(db, &e))
			die("commit", &e);
	}
	report("transitions, all duplicates", c, ntr);

	raw_rows(raw, 1, NODES * (rounds - 1), "baseline: raw INSERT of the heartbeat rows");
	raw_rows(raw, 0, ntr, "baseline: raw INSERT of the transition rows");

	readers(db, T0 + (int64_t)rounds * 1000);
	printf("memory: VmHWM %ld kB (the node cache and 32 MiB of sqlite page cache at most, per open writer)\n",
	       e2e_proc_kb(getpid(), "VmHWM"));
	apenet_hdb_close(db);
	char cmd[700];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_hdb: could not remove %s\n", dir);
	return 0;
}
