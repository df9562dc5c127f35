/*
 * The health database (db/, include/apenet/hdb.h): files that are not ours
 * or are newer refused and left unchanged, the migration from version 1,
 * dedup of transitions and heartbeats, the deferred heartbeat flush and
 * rollbacks, a reporter's new boot, the layout's partners (wraparound,
 * dimensions of 1 and 2), incidents from open to merged and back after a
 * reopen, retention that keeps an open incident's evidence, the readers'
 * orders, the check on a good and a broken file, and the files' modes
 * (0640 whatever the umask, -wal and -shm included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "apenet/hdb.h"
#include "apenet/slurm.h"
#include "apenet/log.h"

#define T0 1700000000000LL
/* A column of node 0,0,0's node_seen row, in SQL. */
#define SEEN(col) "SELECT s." col " FROM node_seen s JOIN node n ON n.id = s.node_id WHERE n.x = 0 AND n.y = 0"

struct fixture {
	char dir[256];
	char path[300];
};

static char logged[8192];

static void collect(void *ctx, int level, const char *msg)
{
	(void)ctx;
	(void)level;
	size_t off = strlen(logged);
	snprintf(logged + off, sizeof(logged) - off, "%s\n", msg);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof(f->dir), "%s/apenet-hdb-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/health.db", f->dir);
	logged[0] = 0;
	apenet_log_to_callback(collect, NULL);
	apenet_log_set_level(APENET_LOG_DEBUG);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	apenet_log_to_stderr();
	apenet_log_set_level(APENET_LOG_NOTICE);
	return 0;
}

/* ---- helpers ---- */

static struct apenet_hdb *open_ok(const char *path, unsigned flags)
{
	struct apenet_hdb *db = NULL;
	struct apenet_err e = { 0 };
	if (apenet_hdb_open(path, flags, &db, &e))
		fail_msg("open %s: %s", path, e.msg);
	return db;
}

static struct apenet_hdb *create_ok(const char *path)
{
	return open_ok(path, APENET_HDB_CREATE);
}

/* A transition from reporter boot about node (x,y,z). */
static void tr(struct apenet_report *r, const char *boot, uint64_t seq, unsigned x, unsigned y, unsigned z,
	       const char *where, const char *code, int old_st, int new_st, int64_t t)
{
	apenet_report_init(r, APENET_REPORT_HEALTH);
	snprintf(r->boot, sizeof(r->boot), "%s", boot);
	r->seq = seq;
	r->x = x;
	r->y = y;
	r->z = z;
	snprintf(r->where, sizeof(r->where), "%s", where);
	snprintf(r->code, sizeof(r->code), "%s", code);
	r->subject = APENET_REPORT_SUBJ_LINK;
	r->old_status = old_st;
	r->new_status = new_st;
	r->time_ms = t;
	snprintf(r->evidence, sizeof(r->evidence), "%s %s", code, where);
}

static void hb(struct apenet_report *r, const char *boot, uint64_t seq, unsigned x, unsigned y, unsigned z, uint32_t ldm,
	       int64_t t)
{
	apenet_report_init(r, APENET_REPORT_HEARTBEAT);
	snprintf(r->boot, sizeof(r->boot), "%s", boot);
	r->seq = seq;
	r->x = x;
	r->y = y;
	r->z = z;
	r->ldm = ldm;
	r->time_ms = t;
	snprintf(r->evidence, sizeof(r->evidence), "%s", ldm == 0x80000000u ? "all normal" : "something");
}

static int put(struct apenet_hdb *db, const struct apenet_report *r, int64_t recv)
{
	struct apenet_err e = { 0 };
	int stored = -1;
	if (apenet_hdb_put_report(db, r, recv, &stored, &e))
		fail_msg("put %s seq %llu: %s", r->boot, (unsigned long long)r->seq, e.msg);
	return stored;
}

static void begin_ok(struct apenet_hdb *db)
{
	struct apenet_err e = { 0 };
	if (apenet_hdb_begin(db, &e))
		fail_msg("begin: %s", e.msg);
}

static void commit_ok(struct apenet_hdb *db)
{
	struct apenet_err e = { 0 };
	if (apenet_hdb_commit(db, &e))
		fail_msg("commit: %s", e.msg);
}

static void layout_ok(struct apenet_hdb *db, unsigned x, unsigned y, unsigned z)
{
	struct apenet_err e = { 0 };
	unsigned dims[3] = { x, y, z };
	if (apenet_hdb_layout(db, dims, NULL, NULL, &e))
		fail_msg("layout: %s", e.msg);
}

static struct apenet_hdb_node node_of(struct apenet_hdb *db, unsigned x, unsigned y, unsigned z, int64_t now)
{
	struct apenet_hdb_node n;
	struct apenet_err e = { 0 };
	unsigned xyz[3] = { x, y, z };
	int r = apenet_hdb_node_get(db, xyz, now, 10000, &n, &e);
	if (r != 1)
		fail_msg("node %u,%u,%u: %d %s", x, y, z, r, e.msg);
	return n;
}

/* One integer from raw SQL on a separate connection. */
static int64_t sql_int(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t v = -1;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void sql_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

struct collected {
	int n;
	char text[64][128];
};

static int collect_transition(void *arg, const struct apenet_hdb_transition *t)
{
	struct collected *c = arg;
	if (c->n < 64)
		snprintf(c->text[c->n], sizeof(c->text[0]), "%lld %s %llu %s", (long long)t->time_ms, t->boot,
			 (unsigned long long)t->seq, t->code);
	c->n++;
	return 0;
}

static struct collected transitions(struct apenet_hdb *db, int64_t from, int64_t to, const unsigned *xyz)
{
	struct collected c = { 0 };
	struct apenet_err e = { 0 };
	if (apenet_hdb_transitions_each(db, from, to, xyz, collect_transition, &c, &e))
		fail_msg("transitions: %s", e.msg);
	return c;
}

/* ---- opening ---- */

static void test_create_and_reopen(void **state)
{
	struct fixture *f = *state;
	struct apenet_err e = { 0 };
	struct apenet_hdb *db = NULL;
	/* Without CREATE a missing file is an error, and none is made. */
	assert_int_equal(apenet_hdb_open(f->path, 0, &db, &e), -1);
	assert_null(db);
	assert_non_null(strstr(e.msg, f->path));
	assert_int_equal(access(f->path, F_OK), -1);
	assert_int_equal(apenet_hdb_open(f->path, APENET_HDB_READONLY | APENET_HDB_CREATE, &db, &e), -1);
	assert_int_equal(access(f->path, F_OK), -1);

	db = create_ok(f->path);
	assert_string_equal(apenet_hdb_file(db), f->path);
	apenet_hdb_close(db);
	/* The WAL and its index stay, so a reader that may not create them
	 * opens the file while no writer runs. */
	char side[400];
	snprintf(side, sizeof(side), "%s-wal", f->path);
	assert_int_equal(access(side, F_OK), 0);
	snprintf(side, sizeof(side), "%s-shm", f->path);
	assert_int_equal(access(side, F_OK), 0);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), APENET_HDB_SCHEMA);
	assert_int_equal(sql_int(f->path, "PRAGMA application_id"), APENET_HDB_APP_ID);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE name = 'node'"), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE name = 'heartbeat'"), 0);
	/* Reopened read-write, read-only, and with a quick check. */
	db = open_ok(f->path, 0);
	apenet_hdb_close(db);
	db = open_ok(f->path, APENET_HDB_READONLY | APENET_HDB_QUICK_CHECK);
	/* A reader cannot write. */
	struct apenet_report r;
	hb(&r, "0,0,0#1", 1, 0, 0, 0, 0x80000000u, T0);
	int stored = 7;
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	assert_int_equal(stored, 0);
	assert_non_null(strstr(e.msg, "read-only"));
	assert_int_equal(apenet_hdb_begin(db, &e), -1);
	apenet_hdb_close(db);
	/* The journal is WAL, set by the library. */
	sqlite3 *raw;
	assert_int_equal(sqlite3_open(f->path, &raw), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(raw);
	apenet_hdb_close(NULL);
}

static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	size_t n = fread(buf, 1, cap, fp);
	fclose(fp);
	return n;
}

/* Opening path with flags fails with expect in the message, naming the
 * file, and the file is byte for byte what it was, with no WAL beside it. */
static void assert_refused_unchanged(const char *path, unsigned flags, const char *expect)
{
	static unsigned char before[1 << 20], after[1 << 20];
	size_t nb = slurp(path, before, sizeof(before));
	struct stat sb0, sb1;
	assert_int_equal(stat(path, &sb0), 0);
	struct apenet_hdb *db = NULL;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_open(path, flags, &db, &e), -1);
	assert_null(db);
	assert_int_equal(e.code, APENET_EINVAL);
	if (!strstr(e.msg, expect))
		fail_msg("expected '%s' in: %s", expect, e.msg);
	assert_non_null(strstr(e.msg, path));
	size_t na = slurp(path, after, sizeof(after));
	assert_int_equal(nb, na);
	assert_memory_equal(before, after, nb);
	assert_int_equal(stat(path, &sb1), 0);
	assert_true(sb0.st_mtim.tv_sec == sb1.st_mtim.tv_sec && sb0.st_mtim.tv_nsec == sb1.st_mtim.tv_nsec);
	char wal[400];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(access(wal, F_OK), -1);
}

static void test_refuses_newer_schema(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 2, 2, 1);
	apenet_hdb_close(db);
	/* One file again (no WAL), then a version from the future. */
	sql_exec(f->path, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99;");
	assert_refused_unchanged(f->path, 0, "schema version 99 is newer");
	assert_refused_unchanged(f->path, APENET_HDB_CREATE, "schema version 99 is newer");
	assert_refused_unchanged(f->path, APENET_HDB_READONLY, "schema version 99 is newer");
}

/* A database of schema version at path with a page of garbage in the
 * middle of the node table, in one file (no WAL). */
static void make_damaged(const char *path, int version)
{
	struct apenet_err e = { 0 };
	if (apenet_hdb_create_at(path, version, &e))
		fail_msg("%s", e.msg);
	sqlite3 *raw;
	assert_int_equal(sqlite3_open(path, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(raw, "INSERT INTO node (x, y, z, name) VALUES (?, 0, 0, printf('%0300d', 1))", -1,
					    &st, NULL),
			 SQLITE_OK);
	for (int i = 0; i < 400; i++) {
		sqlite3_bind_int(st, 1, i);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(raw, "COMMIT; PRAGMA journal_mode = DELETE;", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	int fd = open(path, O_WRONLY);
	unsigned char junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 31 + 7);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 6 * 4096), (ssize_t)sizeof(junk));
	close(fd);
}

static void test_refuses_what_is_not_ours(void **state)
{
	struct fixture *f = *state;
	FILE *fp = fopen(f->path, "wb");
	for (int i = 0; i < 5000; i++)
		fputc((i * 7919) & 0xff, fp);
	fclose(fp);
	assert_refused_unchanged(f->path, APENET_HDB_CREATE, "not a health database (not an sqlite database)");
	assert_refused_unchanged(f->path, APENET_HDB_READONLY, "not an sqlite database");
	/* Another program's sqlite database. */
	unlink(f->path);
	sql_exec(f->path, "CREATE TABLE t (a); INSERT INTO t VALUES (1);");
	assert_refused_unchanged(f->path, APENET_HDB_CREATE, "a sqlite database of something else");
	/* Ours, damaged: refused before a migration would write into it, and
	 * by a reader that asks for the check. */
	unlink(f->path);
	make_damaged(f->path, 1);
	assert_refused_unchanged(f->path, 0, "damaged");
	assert_refused_unchanged(f->path, APENET_HDB_READONLY, "schema version 1 is older");
	unlink(f->path);
	make_damaged(f->path, APENET_HDB_SCHEMA);
	assert_refused_unchanged(f->path, APENET_HDB_READONLY | APENET_HDB_QUICK_CHECK, "damaged");
	assert_refused_unchanged(f->path, APENET_HDB_QUICK_CHECK, "damaged");
	struct apenet_err e = { 0 };
	/* create_at never overwrites. */
	assert_int_equal(apenet_hdb_create_at(f->path, 1, &e), -1);
	assert_non_null(strstr(e.msg, "exists"));
}

/* ---- migration ---- */

static void test_migrates_from_v1(void **state)
{
	struct fixture *f = *state;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_create_at(f->path, 1, &e), 0);
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), 1);
	/* What a version-1 writer left: two nodes, a heartbeat row, a
	 * transition, its current state, an incident with evidence. */
	sql_exec(f->path,
		 "INSERT INTO node (id, x, y, z, name, in_layout, boot, boot_ms, self_ms, self_recv_ms, worst, changed_ms)"
		 "  VALUES (1, 0, 0, 0, 'n0', 1, '0,0,0#3', 1700000000500, 1700000000500, 1700000000501, 2, 1700000000400),"
		 "         (2, 1, 0, 0, 'n1', 1, '', 0, 0, 0, 0, 0);"
		 "INSERT INTO heartbeat VALUES (1, '0,0,0#3', 17, 1700000000500, 1700000000501, 2147483648, 'all normal');"
		 "INSERT INTO transition (id, boot, seq, reporter_id, node_id, subject, place, code, old_status, new_status,"
		 "  value, threshold, unit, evidence, path, via, time_ms, recv_ms)"
		 "  VALUES (1, '0,0,0#3', 16, 1, 1, 2, 'X+', 'LINK_DOWN', 0, 2, NULL, NULL, '', 'down', 1, '',"
		 "          1700000000400, 1700000000401);"
		 "INSERT INTO node_state VALUES (1, 1, 2, 'X+', 'LINK_DOWN', 2, '0,0,0#3', 16, 1, '', 1700000000400),"
		 "  (1, 1, 2, 'X-', 'LINK_DOWN', 0, '0,0,0#3', 15, 1, '', 1700000000300);"
		 "INSERT INTO incident (id, component, node_id, link, rule, state, opened_ms, first_ms, first_path,"
		 "  first_evidence, first_reporter, first_seq)"
		 "  VALUES (1, 'cable', 1, 'X+', 'link-both-ends', 'open', 1700000000450, 1700000000400, 1, 'down',"
		 "          '0,0,0#3', 16);"
		 "INSERT INTO evidence (incident_id, time_ms, path, reporter, seq, transition_id, text)"
		 "  VALUES (1, 1700000000400, 1, '0,0,0#3', 16, 1, 'down');");
	/* A reader does not upgrade: it is told why. */
	struct apenet_hdb *db = NULL;
	assert_int_equal(apenet_hdb_open(f->path, APENET_HDB_READONLY, &db, &e), -1);
	assert_non_null(strstr(e.msg, "schema version 1 is older"));
	/* The writer does. */
	db = open_ok(f->path, 0);
	char said[32];
	snprintf(said, sizeof(said), "schema 1 -> %d", APENET_HDB_SCHEMA); /* every step, in one go */
	assert_non_null(strstr(logged, said));
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), APENET_HDB_SCHEMA);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE name = 'heartbeat'"), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node_state"), 1); /* the normal one went */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node_seen"), 2);
	struct apenet_hdb_node n = node_of(db, 0, 0, 0, T0 + 1000);
	assert_string_equal(n.name, "n0");
	assert_string_equal(n.boot, "0,0,0#3");
	assert_int_equal(n.hb_seq, 17);
	assert_int_equal(n.hb_ms, T0 + 500);
	assert_int_equal(n.self_recv_ms, T0 + 501);
	assert_int_equal(n.hb_recv_ms, T0 + 501);
	assert_int_equal(n.ldm, 0x80000000u);
	assert_string_equal(n.summary, "all normal");
	assert_int_equal(n.worst, 2);
	assert_int_equal(n.cls, APENET_HDB_BROKEN);
	struct collected c = transitions(db, 0, INT64_MAX, NULL);
	assert_int_equal(c.n, 1);
	assert_string_equal(c.text[0], "1700000000400 0,0,0#3 16 LINK_DOWN");
	struct apenet_hdb_incident in;
	assert_int_equal(apenet_hdb_incident_get(db, 1, &in, &e), 1);
	assert_string_equal(in.component, "cable");
	assert_int_equal(in.state, APENET_HDB_OPEN);
	assert_int_equal(in.first.transition_id, 1);
	assert_int_equal(in.evidence, 1);
	/* The writer's memory came from the migrated rows: the stored
	 * heartbeat's sequence is known, and the boot. */
	struct apenet_report r;
	hb(&r, "0,0,0#3", 17, 0, 0, 0, 0x80000000u, T0 + 500);
	assert_int_equal(put(db, &r, T0 + 900), 0);
	hb(&r, "0,0,0#3", 18, 0, 0, 0, 0x80000000u, T0 + 1500);
	assert_int_equal(put(db, &r, T0 + 1501), 1);
	tr(&r, "0,0,0#3", 16, 0, 0, 0, "X+", "LINK_DOWN", 0, 2, T0 + 400);
	assert_int_equal(put(db, &r, T0 + 1600), 0);
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	apenet_hdb_close(db);
	/* Nothing is lost when it is opened again. */
	db = open_ok(f->path, APENET_HDB_READONLY);
	n = node_of(db, 0, 0, 0, T0 + 1000);
	assert_int_equal(n.hb_seq, 18);
	apenet_hdb_close(db);
}

/* ---- reports ---- */

struct first_tr {
	struct apenet_hdb_transition t;
	int n;
};

static int first(void *arg, const struct apenet_hdb_transition *x)
{
	struct first_tr *got = arg;
	if (!got->n++)
		got->t = *x;
	return 0;
}

static void test_transition_dedup(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 4, 4, 1);
	struct apenet_report r;
	tr(&r, "1,0,0#1", 5, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, T0);
	r.value = 3;
	snprintf(r.unit, sizeof(r.unit), "lanes");
	begin_ok(db);
	assert_int_equal(put(db, &r, T0 + 1), 1);
	assert_int_equal(put(db, &r, T0 + 2), 0); /* the same in the same batch */
	commit_ok(db);
	assert_int_equal(put(db, &r, T0 + 3), 0); /* a resend, later, outside a batch */
	/* The same sequence from another boot, or about another node, is another report. */
	tr(&r, "1,0,0#2", 5, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, T0 + 10);
	assert_int_equal(put(db, &r, T0 + 11), 1);
	apenet_hdb_close(db);
	db = open_ok(f->path, 0);
	tr(&r, "1,0,0#1", 5, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, T0);
	assert_int_equal(put(db, &r, T0 + 20), 0); /* after a restart too */
	struct collected c = transitions(db, 0, INT64_MAX, NULL);
	assert_int_equal(c.n, 2);
	/* The first one's fields, as stored. */
	struct apenet_err e = { 0 };
	struct first_tr got = { 0 };
	assert_int_equal(apenet_hdb_transitions_each(db, T0, T0 + 1, NULL, first, &got, &e), 0);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.t.boot, "1,0,0#1");
	assert_int_equal(got.t.reporter[0], 1);
	assert_int_equal(got.t.node[0], 1);
	assert_int_equal(got.t.subject, APENET_REPORT_SUBJ_LINK);
	assert_string_equal(got.t.where, "X+");
	assert_true(got.t.value == 3);
	assert_true(isnan(got.t.threshold));
	assert_string_equal(got.t.unit, "lanes");
	assert_int_equal(got.t.recv_ms, T0 + 1);
	struct apenet_hdb_stats st;
	apenet_hdb_stats(db, &st);
	assert_int_equal(st.duplicates, 1);
	/* Bad input is refused and stores nothing. */
	tr(&r, "not-a-boot", 1, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, T0);
	int stored = 5;
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	assert_non_null(strstr(e.msg, "does not name its reporter"));
	assert_int_equal(stored, 0);
	tr(&r, "1,0,0#1", 6, 1, 0, 0, "X+", "LINK_DOWN", 0, 4, T0);
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	tr(&r, "1,0,0#1", 0, 1, 0, 0, "X+", "LINK_DOWN", 0, 1, T0);
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	tr(&r, "1,0,0#1", 7, 1, 0, 0, "X+", "LINK_DOWN", 0, 1, T0);
	memset(r.code, 'A', sizeof(r.code));
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	assert_non_null(strstr(e.msg, "not terminated"));
	/* A refused report inside a batch does not spoil it. */
	begin_ok(db);
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	tr(&r, "1,0,0#1", 7, 1, 0, 0, "X+", "LINK_DOWN", 2, 0, T0 + 30);
	assert_int_equal(put(db, &r, T0 + 31), 1);
	commit_ok(db);
	assert_int_equal(transitions(db, 0, INT64_MAX, NULL).n, 3);
	apenet_hdb_close(db);
}

static void test_heartbeats(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 2, 1, 1);
	apenet_hdb_set_heartbeat_flush(db, 3600 * 1000); /* only explicit flushes */
	struct apenet_report r;
	/* The first heartbeat of a boot is news: written with its batch. */
	hb(&r, "0,0,0#1", 10, 0, 0, 0, 0x80000000u, T0);
	begin_ok(db);
	assert_int_equal(put(db, &r, T0 + 1), 1);
	commit_ok(db);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 10);
	/* Older and equal ones are ignored. */
	assert_int_equal(put(db, &r, T0 + 2), 0);
	hb(&r, "0,0,0#1", 9, 0, 0, 0, 0x80000000u, T0 - 100);
	assert_int_equal(put(db, &r, T0 + 3), 0);
	/* A routine one (same boot, same word) waits for the flush... */
	hb(&r, "0,0,0#1", 11, 0, 0, 0, 0x80000000u, T0 + 1000);
	assert_int_equal(put(db, &r, T0 + 1001), 1);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 10);
	struct apenet_hdb_stats st;
	apenet_hdb_stats(db, &st);
	assert_int_equal(st.deferred, 1);
	/* ...but counts for dedup at once. */
	assert_int_equal(put(db, &r, T0 + 1002), 0);
	hb(&r, "0,0,0#1", 12, 0, 0, 0, 0x80000000u, T0 + 2000);
	assert_int_equal(put(db, &r, T0 + 2001), 1);
	/* A changed LDM word is news: written now, with its summary. */
	hb(&r, "0,0,0#1", 13, 0, 0, 0, 0x80001000u, T0 + 3000);
	assert_int_equal(put(db, &r, T0 + 3001), 1);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 13);
	assert_int_equal(sql_int(f->path, "SELECT ldm FROM node WHERE x = 0"), 0x80001000u);
	apenet_hdb_stats(db, &st);
	assert_int_equal(st.deferred, 0);
	hb(&r, "0,0,0#1", 14, 0, 0, 0, 0x80001000u, T0 + 4000);
	assert_int_equal(put(db, &r, T0 + 4001), 1);
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_flush(db, &e), 0);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 14);
	assert_int_equal(sql_int(f->path, SEEN("self_recv_ms")), T0 + 4001);
	/* A rolled-back batch takes its heartbeats back, in memory too. */
	hb(&r, "0,0,0#1", 15, 0, 0, 0, 0x80001000u, T0 + 5000);
	begin_ok(db);
	assert_int_equal(put(db, &r, T0 + 5001), 1);
	hb(&r, "1,0,0#1", 1, 1, 0, 0, 0x80000000u, T0 + 5000);
	assert_int_equal(put(db, &r, T0 + 5001), 1);
	apenet_hdb_rollback(db);
	apenet_hdb_stats(db, &st);
	assert_int_equal(st.deferred, 0);
	hb(&r, "0,0,0#1", 15, 0, 0, 0, 0x80001000u, T0 + 5000);
	assert_int_equal(put(db, &r, T0 + 5002), 1);
	hb(&r, "1,0,0#1", 1, 1, 0, 0, 0x80000000u, T0 + 5000);
	assert_int_equal(put(db, &r, T0 + 5002), 1);
	/* A rollback also undoes a flush made in its batch. */
	hb(&r, "0,0,0#1", 16, 0, 0, 0, 0x80001000u, T0 + 6000);
	assert_int_equal(put(db, &r, T0 + 6001), 1);
	begin_ok(db);
	assert_int_equal(apenet_hdb_flush(db, &e), 0);
	apenet_hdb_rollback(db);
	apenet_hdb_stats(db, &st);
	assert_int_equal(st.deferred, 1);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 14); /* the last flush's */
	/* A new boot is news; a heartbeat of the old one is then older. */
	hb(&r, "0,0,0#2", 1, 0, 0, 0, 0x80000000u, T0 + 7000);
	assert_int_equal(put(db, &r, T0 + 7001), 1);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 1);
	hb(&r, "0,0,0#1", 17, 0, 0, 0, 0x80001000u, T0 + 6500);
	assert_int_equal(put(db, &r, T0 + 7002), 0);
	/* A heartbeat is about its sender. */
	hb(&r, "0,0,0#2", 2, 1, 0, 0, 0x80000000u, T0 + 8000);
	int stored;
	assert_int_equal(apenet_hdb_put_report(db, &r, T0, &stored, &e), -1);
	assert_non_null(strstr(e.msg, "about its sender"));
	/* Close writes what waits. */
	hb(&r, "0,0,0#2", 2, 0, 0, 0, 0x80000000u, T0 + 8000);
	assert_int_equal(put(db, &r, T0 + 8001), 1);
	apenet_hdb_close(db);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 2);
	assert_int_equal(sql_int(f->path, SEEN("hb_recv_ms")), T0 + 8001);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node"), 2); /* no row a heartbeat */
	/* With no deferral every heartbeat is on file at commit. */
	db = open_ok(f->path, 0);
	apenet_hdb_set_heartbeat_flush(db, 0);
	hb(&r, "0,0,0#2", 3, 0, 0, 0, 0x80000000u, T0 + 9000);
	begin_ok(db);
	assert_int_equal(put(db, &r, T0 + 9001), 1);
	commit_ok(db);
	assert_int_equal(sql_int(f->path, SEEN("hb_seq")), 3);
	/* A node first named by a batch that rolls back is added again. */
	begin_ok(db);
	hb(&r, "5,5,5#1", 1, 5, 5, 5, 0x80000000u, T0 + 9000);
	assert_int_equal(put(db, &r, T0 + 9001), 1);
	apenet_hdb_rollback(db);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node"), 2);
	assert_int_equal(put(db, &r, T0 + 9002), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node"), 3);
	/* Another writer on the file: this one notices at its next batch. */
	struct apenet_hdb *other = open_ok(f->path, 0);
	apenet_hdb_set_heartbeat_flush(other, 0);
	hb(&r, "0,0,0#2", 50, 0, 0, 0, 0x80000000u, T0 + 10000);
	assert_int_equal(put(other, &r, T0 + 10001), 1);
	apenet_hdb_close(other);
	assert_int_equal(put(db, &r, T0 + 10002), 0);
	hb(&r, "0,0,0#2", 49, 0, 0, 0, 0x80000000u, T0 + 9900);
	assert_int_equal(put(db, &r, T0 + 10003), 0);
	apenet_hdb_close(db);
}

static int count_states(void *arg, const struct apenet_hdb_state *s)
{
	(void)s;
	(*(int *)arg)++;
	return 0;
}

static void test_new_boot_forgets_old_states(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	apenet_hdb_set_heartbeat_flush(db, 0); /* the times on file at once */
	layout_ok(db, 4, 1, 1);
	struct apenet_report r;
	/* 1,0,0 reports its X+ down and, through X+, 2,0,0's temperature. */
	tr(&r, "1,0,0#4", 1, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, T0);
	assert_int_equal(put(db, &r, T0 + 1), 1);
	tr(&r, "1,0,0#4", 2, 2, 0, 0, "temperature", "NEIGHBOUR_TEMPERATURE", 0, 1, T0 + 5);
	r.subject = APENET_REPORT_SUBJ_SENSOR;
	r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	snprintf(r.via, sizeof(r.via), "X+");
	assert_int_equal(put(db, &r, T0 + 6), 1);
	assert_int_equal(node_of(db, 1, 0, 0, T0 + 10).worst, 2);
	struct apenet_hdb_node n2 = node_of(db, 2, 0, 0, T0 + 10);
	assert_int_equal(n2.worst, 1);
	assert_int_equal(n2.torus_recv_ms, T0 + 6);
	assert_int_equal(n2.self_recv_ms, 0); /* heard of, not from */
	assert_int_equal(node_of(db, 1, 0, 0, T0 + 10).self_recv_ms, T0 + 6);
	/* Its agent restarts: what the old boot said is forgotten. */
	struct apenet_report h;
	hb(&h, "1,0,0#5", 1, 1, 0, 0, 0x80000000u, T0 + 100);
	assert_int_equal(put(db, &h, T0 + 101), 1);
	assert_int_equal(node_of(db, 1, 0, 0, T0 + 200).worst, 0);
	assert_int_equal(node_of(db, 2, 0, 0, T0 + 200).worst, 0);
	assert_string_equal(node_of(db, 1, 0, 0, T0 + 200).boot, "1,0,0#5");
	/* A late report of the old boot is history, not the present. */
	tr(&r, "1,0,0#4", 3, 1, 0, 0, "Y+", "LINK_DOWN", 0, 2, T0 + 50);
	assert_int_equal(put(db, &r, T0 + 150), 1);
	assert_int_equal(node_of(db, 1, 0, 0, T0 + 200).worst, 0);
	assert_int_equal(transitions(db, 0, INT64_MAX, NULL).n, 3);
	struct apenet_hdb_stats st;
	apenet_hdb_stats(db, &st);
	assert_int_equal(st.stale, 1);
	/* The new boot's own reports are the present. */
	tr(&r, "1,0,0#5", 2, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, T0 + 300);
	assert_int_equal(put(db, &r, T0 + 301), 1);
	tr(&r, "1,0,0#5", 3, 1, 0, 0, "X+", "LINK_CRC", 0, 1, T0 + 300);
	assert_int_equal(put(db, &r, T0 + 301), 1);
	assert_int_equal(node_of(db, 1, 0, 0, T0 + 400).worst, 2);
	unsigned xyz[3] = { 1, 0, 0 };
	int n = 0;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_node_states_each(db, xyz, 1, count_states, &n, &e), 0);
	assert_int_equal(n, 2);
	/* A clear brings it back to normal: the state is forgotten. */
	tr(&r, "1,0,0#5", 4, 1, 0, 0, "X+", "LINK_DOWN", 2, 0, T0 + 500);
	assert_int_equal(put(db, &r, T0 + 501), 1);
	tr(&r, "1,0,0#5", 5, 1, 0, 0, "X+", "LINK_CRC", 1, 0, T0 + 500);
	assert_int_equal(put(db, &r, T0 + 501), 1);
	assert_int_equal(node_of(db, 1, 0, 0, T0 + 600).worst, 0);
	n = 0;
	assert_int_equal(apenet_hdb_node_states_each(db, xyz, 1, count_states, &n, &e), 0);
	assert_int_equal(n, 0);
	n = 0;
	assert_int_equal(apenet_hdb_node_states_each(db, xyz, 0, count_states, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node_state"), 0);
	/* A report about a node outside the layout adds it, outside. */
	tr(&r, "1,0,0#5", 6, 9, 9, 9, "X+", "LINK_DOWN", 0, 2, T0 + 700);
	assert_int_equal(put(db, &r, T0 + 701), 1);
	assert_int_equal(node_of(db, 9, 9, 9, T0 + 800).in_layout, 0);
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	apenet_hdb_close(db);
}

/* ---- layout ---- */

static void test_partners(void **state)
{
	(void)state;
	unsigned dims[3] = { 4, 4, 1 }, far[3];
	int fl;
	unsigned a[3] = { 0, 0, 0 };
	assert_int_equal(apenet_hdb_partner(dims, a, apenet_hdb_link_index("X-"), far, &fl), 0);
	assert_int_equal(far[0], 3); /* wraps */
	assert_string_equal(apenet_hdb_link_name(fl), "X+");
	assert_int_equal(apenet_hdb_partner(dims, a, apenet_hdb_link_index("Y+"), far, &fl), 0);
	assert_true(far[0] == 0 && far[1] == 1 && far[2] == 0);
	assert_string_equal(apenet_hdb_link_name(fl), "Y-");
	unsigned b[3] = { 3, 3, 0 };
	assert_int_equal(apenet_hdb_partner(dims, b, 0, far, &fl), 0);
	assert_true(far[0] == 0 && far[1] == 3);
	/* Z has one node: no Z links. */
	assert_int_equal(apenet_hdb_partner(dims, a, 4, far, &fl), -1);
	assert_int_equal(apenet_hdb_partner(dims, a, 5, far, &fl), -1);
	/* Size 2: X+ and X- reach the same partner, at its X- and X+. */
	unsigned two[3] = { 2, 1, 1 };
	assert_int_equal(apenet_hdb_partner(two, a, 0, far, &fl), 0);
	assert_int_equal(far[0], 1);
	assert_int_equal(fl, 1);
	assert_int_equal(apenet_hdb_partner(two, a, 1, far, &fl), 0);
	assert_int_equal(far[0], 1);
	assert_int_equal(fl, 0);
	/* Out of range. */
	unsigned out[3] = { 4, 0, 0 };
	assert_int_equal(apenet_hdb_partner(dims, out, 0, far, &fl), -1);
	assert_int_equal(apenet_hdb_partner(dims, a, 6, far, &fl), -1);
	assert_int_equal(apenet_hdb_link_index("W+"), -1);
	assert_string_equal(apenet_hdb_link_name(7), "?");
}

struct links {
	int n;
	struct apenet_hdb_link l[6];
};

static int collect_link(void *arg, const struct apenet_hdb_link *l)
{
	struct links *c = arg;
	if (c->n < 6)
		c->l[c->n] = *l;
	c->n++;
	return 0;
}

static struct links links_of(struct apenet_hdb *db, unsigned x, unsigned y, unsigned z)
{
	struct links c = { 0 };
	struct apenet_err e = { 0 };
	unsigned xyz[3] = { x, y, z };
	if (apenet_hdb_links_each(db, xyz, collect_link, &c, &e))
		fail_msg("links: %s", e.msg);
	return c;
}

static const char *name_of(void *arg, unsigned x, unsigned y, unsigned z)
{
	static char buf[64];
	snprintf(buf, sizeof(buf), "%s%u%u%u", (const char *)arg, x, y, z);
	return buf;
}

static const char *long_name_at_5(void *arg, unsigned x, unsigned y, unsigned z)
{
	(void)arg;
	(void)y;
	(void)z;
	return x == 5 ? "a-name-far-longer-than-the-sixty-three-bytes-a-node-name-may-have-in-the-db" : "";
}

static void test_layout(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	struct apenet_err e = { 0 };
	unsigned dims[3] = { 4, 4, 1 };
	assert_int_equal(apenet_hdb_layout(db, dims, name_of, "quong-", &e), 0);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node"), 16);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM link"), 64);
	struct links c = links_of(db, 0, 0, 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(c.l[0].name, "X+");
	assert_int_equal(c.l[0].partner[0], 1);
	assert_string_equal(c.l[0].partner_link, "X-");
	assert_string_equal(c.l[0].partner_name, "quong-100");
	assert_string_equal(c.l[1].name, "X-");
	assert_int_equal(c.l[1].partner[0], 3);
	assert_string_equal(c.l[1].partner_link, "X+");
	assert_string_equal(c.l[3].name, "Y-");
	assert_int_equal(c.l[3].partner[1], 3);
	/* Idempotent: the same layout again changes nothing in the file. */
	int64_t dv = sql_int(f->path, "SELECT count(*) FROM node WHERE name = 'quong-000'");
	assert_int_equal(dv, 1);
	struct stat s0, s1;
	char wal[400];
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	assert_int_equal(stat(wal, &s0), 0);
	assert_int_equal(apenet_hdb_layout(db, dims, name_of, "quong-", &e), 0);
	assert_int_equal(stat(wal, &s1), 0);
	assert_int_equal(s0.st_size, s1.st_size);
	assert_true(s0.st_mtim.tv_sec == s1.st_mtim.tv_sec && s0.st_mtim.tv_nsec == s1.st_mtim.tv_nsec);
	/* New names are taken. */
	assert_int_equal(apenet_hdb_layout(db, dims, name_of, "n", &e), 0);
	assert_string_equal(node_of(db, 3, 3, 0, T0).name, "n330");
	/* Size 2 and 1: 2x1x1 has X+ and X- to the same partner, nothing else. */
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	unsigned small[3] = { 2, 1, 1 };
	assert_int_equal(apenet_hdb_layout(db, small, NULL, NULL, &e), 0);
	c = links_of(db, 0, 0, 0);
	assert_int_equal(c.n, 2);
	assert_int_equal(c.l[0].partner[0], 1);
	assert_string_equal(c.l[0].partner_link, "X-");
	assert_int_equal(c.l[1].partner[0], 1);
	assert_string_equal(c.l[1].partner_link, "X+");
	assert_int_equal(links_of(db, 3, 3, 0).n, 0); /* left the layout: no links */
	/* The nodes that left keep their rows but are not shown. */
	struct apenet_hdb_summary s;
	assert_int_equal(apenet_hdb_summary(db, T0, 10000, &s, &e), 0);
	assert_int_equal(s.nodes, 2);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node"), 16);
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	unsigned one[3] = { 1, 1, 1 };
	assert_int_equal(apenet_hdb_layout(db, one, NULL, NULL, &e), 0);
	assert_int_equal(links_of(db, 0, 0, 0).n, 0);
	unsigned zero[3] = { 0, 4, 1 };
	assert_int_equal(apenet_hdb_layout(db, zero, NULL, NULL, &e), -1);
	/* A call that fails half-way in a batch (here after some nodes were
	 * added) leaves it able only to roll back. */
	begin_ok(db);
	unsigned big[3] = { 8, 1, 1 };
	assert_int_equal(apenet_hdb_layout(db, big, long_name_at_5, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "longer than 63"));
	assert_int_equal(apenet_hdb_commit(db, &e), -1);
	assert_non_null(strstr(e.msg, "rolled back"));
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node WHERE x >= 4"), 0);
	layout_ok(db, 8, 1, 1); /* and the handle goes on */
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM node WHERE x >= 4"), 4);
	apenet_hdb_close(db);
}

/* ---- incidents ---- */

struct incidents {
	int n;
	struct apenet_hdb_incident in[8];
};

static int collect_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct incidents *c = arg;
	if (c->n < 8)
		c->in[c->n] = *in;
	c->n++;
	return 0;
}

struct evidences {
	int n;
	struct apenet_hdb_evidence ev[8];
};

static int collect_evidence(void *arg, const struct apenet_hdb_evidence *ev)
{
	struct evidences *c = arg;
	if (c->n < 8)
		c->ev[c->n] = *ev;
	c->n++;
	return 0;
}

static void incident(struct apenet_hdb_incident *in, const char *component, unsigned x, unsigned y, const char *rule,
		     int64_t t)
{
	memset(in, 0, sizeof(*in));
	snprintf(in->component, sizeof(in->component), "%s", component);
	in->node[0] = x;
	in->node[1] = y;
	snprintf(in->rule, sizeof(in->rule), "%s", rule);
	in->opened_ms = t;
	in->settled_ms = t; /* settled as it opened (test_provisional: not yet) */
	in->first.time_ms = t - 10;
	in->first.path = APENET_HDB_PATH_SUPERVISOR;
	snprintf(in->first.reporter, sizeof(in->first.reporter), "supervisor");
	snprintf(in->first.text, sizeof(in->first.text), "%s deduced", rule);
}

static void test_incidents(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 4, 4, 1);
	struct apenet_err e = { 0 };
	struct apenet_report r;
	tr(&r, "1,1,0#1", 7, 1, 1, 0, "X+", "LINK_DOWN", 0, 2, T0);
	assert_int_equal(put(db, &r, T0 + 1), 1);
	/* A cable incident whose first fault is that transition. */
	struct apenet_hdb_incident in;
	incident(&in, "cable", 1, 1, "link-one-end", T0 + 100);
	snprintf(in.link, sizeof(in.link), "X+");
	in.has_far = 1;
	in.far[0] = 2;
	in.far[1] = 1;
	snprintf(in.far_link, sizeof(in.far_link), "X-");
	in.first.path = APENET_HDB_PATH_SELF;
	snprintf(in.first.reporter, sizeof(in.first.reporter), "1,1,0#1");
	in.first.seq = 7;
	int64_t a = 0, b = 0, c = 0;
	assert_int_equal(apenet_hdb_incident_open(db, &in, &a, &e), 0);
	assert_true(a > 0);
	struct apenet_hdb_evidence ev = { 0 };
	ev.time_ms = T0 + 200;
	ev.path = APENET_HDB_PATH_NEIGHBOUR_LDM;
	snprintf(ev.reporter, sizeof(ev.reporter), "2,1,0#3");
	snprintf(ev.text, sizeof(ev.text), "2,1,0 sees X- dark");
	assert_int_equal(apenet_hdb_incident_evidence(db, a, &ev, &e), 0);
	/* Two more in one batch: a host, then a node-power that swallows it. */
	begin_ok(db);
	incident(&in, "host", 3, 3, "host-expired", T0 + 300);
	assert_int_equal(apenet_hdb_incident_open(db, &in, &b, &e), 0);
	incident(&in, "node-power", 3, 3, "all-links-dark", T0 + 400);
	assert_int_equal(apenet_hdb_incident_open(db, &in, &c, &e), 0);
	commit_ok(db);
	assert_int_equal(apenet_hdb_incident_close(db, b, T0 + 450, APENET_HDB_MERGED, c, &e), 0);
	/* Re-blame: the cable was the far end's module after all. */
	struct apenet_hdb_incident re = { 0 };
	snprintf(re.component, sizeof(re.component), "module");
	snprintf(re.rule, sizeof(re.rule), "module-los");
	re.node[0] = 2;
	re.node[1] = 1;
	snprintf(re.link, sizeof(re.link), "X-");
	assert_int_equal(apenet_hdb_incident_update(db, a, &re, APENET_HDB_SET_COMPONENT | APENET_HDB_SET_RULE, &e), 0);
	struct apenet_hdb_incident got;
	assert_int_equal(apenet_hdb_incident_get(db, a, &got, &e), 1);
	assert_string_equal(got.component, "module");
	assert_string_equal(got.rule, "module-los");
	assert_int_equal(got.node[0], 1); /* not in the mask: kept */
	assert_string_equal(got.link, "X+");
	assert_int_equal(got.has_far, 1);
	assert_int_equal(got.far[0], 2);
	assert_string_equal(got.far_link, "X-");
	assert_int_equal(got.first.time_ms, T0 + 90);
	assert_int_equal(got.first.seq, 7);
	assert_true(got.first.transition_id > 0);
	assert_int_equal(got.evidence, 2);
	assert_int_equal(apenet_hdb_incident_update(db, a, &re, APENET_HDB_SET_NODE | APENET_HDB_SET_LINK, &e), 0);
	assert_int_equal(apenet_hdb_incident_get(db, a, &got, &e), 1);
	assert_int_equal(got.node[0], 2);
	assert_string_equal(got.link, "X-");
	assert_int_equal(got.has_far, 0);
	assert_string_equal(got.node_name, "");
	/* Errors, none of which changes anything. */
	assert_int_equal(apenet_hdb_incident_close(db, b, T0 + 500, APENET_HDB_CLOSED, 0, &e), -1);
	assert_non_null(strstr(e.msg, "is merged"));
	assert_int_equal(apenet_hdb_incident_close(db, a, T0 + 500, APENET_HDB_MERGED, a, &e), -1);
	assert_int_equal(apenet_hdb_incident_close(db, a, T0 + 500, APENET_HDB_MERGED, 999, &e), -1);
	assert_non_null(strstr(e.msg, "no such incident"));
	assert_int_equal(apenet_hdb_incident_close(db, a, T0 + 500, APENET_HDB_OPEN, 0, &e), -1);
	assert_int_equal(apenet_hdb_incident_evidence(db, 999, &ev, &e), -1);
	assert_non_null(strstr(e.msg, "no incident 999"));
	assert_int_equal(apenet_hdb_incident_update(db, b, &re, APENET_HDB_SET_RULE, &e), -1);
	/* ...also inside a batch, which goes on. */
	begin_ok(db);
	assert_int_equal(apenet_hdb_incident_close(db, b, T0 + 500, APENET_HDB_CLOSED, 0, &e), -1);
	assert_int_equal(apenet_hdb_incident_evidence(db, a, &ev, &e), 0);
	commit_ok(db);
	apenet_hdb_close(db);

	/* A restarted supervisor finds the open ones, with their first fault. */
	db = open_ok(f->path, APENET_HDB_READONLY);
	struct incidents open = { 0 };
	assert_int_equal(apenet_hdb_incidents_open_each(db, collect_incident, &open, &e), 0);
	assert_int_equal(open.n, 2);
	assert_int_equal(open.in[0].id, a);
	assert_int_equal(open.in[1].id, c);
	assert_string_equal(open.in[1].component, "node-power");
	assert_string_equal(open.in[1].first.text, "all-links-dark deduced");
	assert_int_equal(open.in[1].first.path, APENET_HDB_PATH_SUPERVISOR);
	assert_int_equal(open.in[0].evidence, 3);
	struct incidents all = { 0 };
	assert_int_equal(apenet_hdb_incidents_each(db, 0, 0, INT64_MAX, collect_incident, &all, &e), 0);
	assert_int_equal(all.n, 3);
	assert_int_equal(all.in[1].state, APENET_HDB_MERGED);
	assert_int_equal(all.in[1].merged_into, c);
	assert_int_equal(all.in[1].closed_ms, T0 + 450);
	struct incidents late = { 0 };
	assert_int_equal(apenet_hdb_incidents_each(db, 1, T0 + 350, INT64_MAX, collect_incident, &late, &e), 0);
	assert_int_equal(late.n, 1);
	struct evidences evs = { 0 };
	assert_int_equal(apenet_hdb_evidence_each(db, a, collect_evidence, &evs, &e), 0);
	assert_int_equal(evs.n, 3);
	assert_int_equal(evs.ev[0].seq, 7);
	assert_true(evs.ev[0].transition_id > 0);
	assert_string_equal(evs.ev[1].text, "2,1,0 sees X- dark");
	assert_int_equal(evs.ev[1].path, APENET_HDB_PATH_NEIGHBOUR_LDM);
	assert_int_equal(evs.ev[1].transition_id, 0);
	struct apenet_hdb_summary s;
	assert_int_equal(apenet_hdb_summary(db, T0, 1000, &s, &e), 0);
	assert_int_equal(s.open_incidents, 2);
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	apenet_hdb_close(db);
	db = open_ok(f->path, 0);
	assert_int_equal(apenet_hdb_incident_close(db, a, T0 + 900, APENET_HDB_CLOSED, 0, &e), 0);
	assert_int_equal(apenet_hdb_incident_get(db, a, &got, &e), 1);
	assert_int_equal(got.state, APENET_HDB_CLOSED);
	assert_int_equal(got.closed_ms, T0 + 900);
	assert_int_equal(apenet_hdb_incident_get(db, 12345, &got, &e), 0);
	apenet_hdb_close(db);
}

/* An incident opened provisionally (settled_ms 0): committed, re-blamed,
 * then settled once; nothing that acts on incidents sees it before. */
static void test_provisional(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 4, 4, 1);
	struct apenet_err e = { 0 };
	struct apenet_hdb_incident in;
	int64_t a = 0, b = 0;
	incident(&in, "cable", 1, 1, "link-one-end", T0 + 100);
	in.settled_ms = 0;
	assert_int_equal(apenet_hdb_incident_open(db, &in, &a, &e), 0);
	incident(&in, "dnp", 2, 2, "ldm-stale", T0 + 200);
	in.settled_ms = 0;
	assert_int_equal(apenet_hdb_incident_open(db, &in, &b, &e), 0);
	struct incidents open = { 0 }, prov = { 0 }, all = { 0 };
	assert_int_equal(apenet_hdb_incidents_open_each(db, collect_incident, &open, &e), 0);
	assert_int_equal(open.n, 0);
	assert_int_equal(apenet_hdb_incidents_each(db, 1, 0, INT64_MAX, collect_incident, &open, &e), 0);
	assert_int_equal(open.n, 0);
	unsigned n = 9;
	assert_int_equal(apenet_hdb_open_incidents(db, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_int_equal(apenet_hdb_incidents_provisional_each(db, collect_incident, &prov, &e), 0);
	assert_int_equal(prov.n, 2);
	assert_int_equal(prov.in[0].id, a);
	assert_int_equal(prov.in[0].settled_ms, 0);
	/* re-blamed in place while provisional, then settled with its blame */
	struct apenet_hdb_incident re = { 0 };
	snprintf(re.component, sizeof(re.component), "card");
	snprintf(re.rule, sizeof(re.rule), "card-gone");
	re.node[0] = 2;
	re.node[1] = 1;
	assert_int_equal(apenet_hdb_incident_update(db, a, &re, APENET_HDB_SET_COMPONENT | APENET_HDB_SET_RULE |
							       APENET_HDB_SET_NODE | APENET_HDB_SET_LINK, &e), 0);
	re.settled_ms = T0 + 1600;
	assert_int_equal(apenet_hdb_incident_update(db, a, &re, APENET_HDB_SET_RULE | APENET_HDB_SET_SETTLED, &e), 0);
	/* once */
	assert_int_equal(apenet_hdb_incident_update(db, a, &re, APENET_HDB_SET_SETTLED, &e), -1);
	assert_non_null(strstr(e.msg, "settled already"));
	re.settled_ms = 0;
	assert_int_equal(apenet_hdb_incident_update(db, b, &re, APENET_HDB_SET_SETTLED, &e), -1);
	assert_non_null(strstr(e.msg, "a time"));
	/* an earlier first fault (the re-blame brought its evidence): the
	 * row's first fault and opening follow it, the blame stays */
	struct apenet_hdb_incident early = { 0 };
	early.first.time_ms = T0 + 40;
	early.first.path = APENET_HDB_PATH_SELF;
	snprintf(early.first.reporter, sizeof(early.first.reporter), "2,1,0#1");
	early.first.seq = 7;
	snprintf(early.first.text, sizeof(early.first.text), "CARD_GONE broken at 2,1,0 card");
	assert_int_equal(apenet_hdb_incident_update(db, a, &early, APENET_HDB_SET_FIRST, &e), 0);
	struct apenet_hdb_incident got;
	assert_int_equal(apenet_hdb_incident_get(db, a, &got, &e), 1);
	assert_string_equal(got.component, "card");
	assert_int_equal(got.node[0], 2);
	assert_string_equal(got.link, "");
	assert_int_equal(got.settled_ms, T0 + 1600);
	assert_int_equal(got.opened_ms, T0 + 40);
	assert_int_equal(got.first.time_ms, T0 + 40);
	assert_int_equal(got.first.seq, 7);
	assert_string_equal(got.first.reporter, "2,1,0#1");
	assert_string_equal(got.first.text, "CARD_GONE broken at 2,1,0 card");
	memset(&open, 0, sizeof(open));
	assert_int_equal(apenet_hdb_incidents_open_each(db, collect_incident, &open, &e), 0);
	assert_int_equal(open.n, 1);
	assert_int_equal(open.in[0].id, a);
	assert_int_equal(apenet_hdb_open_incidents(db, &n, &e), 0);
	assert_int_equal(n, 1);
	/* withdrawn: closed before it settled, and it stays unsettled */
	assert_int_equal(apenet_hdb_incident_close(db, b, T0 + 900, APENET_HDB_CLOSED, 0, &e), 0);
	assert_int_equal(apenet_hdb_incidents_each(db, APENET_HDB_SETTLED, 0, INT64_MAX, collect_incident, &all, &e), 0);
	assert_int_equal(all.n, 1); /* the withdrawn one is history no one acted on */
	assert_int_equal(all.in[0].id, a);
	memset(&all, 0, sizeof(all));
	assert_int_equal(apenet_hdb_incidents_each(db, APENET_HDB_EVERY_ROW, 0, INT64_MAX, collect_incident, &all, &e), 0);
	assert_int_equal(all.n, 2);
	assert_int_equal(all.in[1].state, APENET_HDB_CLOSED);
	assert_int_equal(all.in[1].settled_ms, 0);
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	apenet_hdb_close(db);
}

/* A version-3 file: its incidents were settled when they opened. */
static void test_migrates_from_v3(void **state)
{
	struct fixture *f = *state;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_create_at(f->path, 3, &e), 0);
	sql_exec(f->path, "INSERT INTO node (id, x, y, z, name, in_layout) VALUES (1, 0, 0, 0, 'n0', 1);"
			  "INSERT INTO incident (component, node_id, rule, state, opened_ms, first_ms, first_path,"
			  "  first_evidence, first_reporter) VALUES ('card', 1, 'card-gone', 'open', 5000, 4990, 4, 'x',"
			  "  'supervisor');");
	struct apenet_hdb *db = open_ok(f->path, 0);
	assert_non_null(strstr(logged, "schema 3 -> 5"));
	struct incidents open = { 0 };
	assert_int_equal(apenet_hdb_incidents_open_each(db, collect_incident, &open, &e), 0);
	assert_int_equal(open.n, 1);
	assert_int_equal(open.in[0].settled_ms, 5000);
	apenet_hdb_close(db);
}

static void test_retention(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 4, 1, 1);
	struct apenet_err e = { 0 };
	struct apenet_report r;
	for (int i = 1; i <= 10; i++) {
		tr(&r, "0,0,0#1", (uint64_t)i, 0, 0, 0, "X+", i % 2 ? "LINK_DOWN" : "LINK_UP", i % 2 ? 0 : 2, i % 2 ? 2 : 0,
		   T0 + i * 1000);
		assert_int_equal(put(db, &r, T0 + i * 1000 + 1), 1);
	}
	/* seq 2 is evidence of an open incident, seq 3 of a closed one. */
	struct apenet_hdb_incident in;
	int64_t open_id, closed_id;
	incident(&in, "cable", 0, 0, "r", T0 + 2500);
	snprintf(in.first.reporter, sizeof(in.first.reporter), "0,0,0#1");
	in.first.seq = 2;
	assert_int_equal(apenet_hdb_incident_open(db, &in, &open_id, &e), 0);
	incident(&in, "cable", 1, 0, "r", T0 + 3500);
	snprintf(in.first.reporter, sizeof(in.first.reporter), "0,0,0#1");
	in.first.seq = 3;
	assert_int_equal(apenet_hdb_incident_open(db, &in, &closed_id, &e), 0);
	assert_int_equal(apenet_hdb_incident_close(db, closed_id, T0 + 4000, APENET_HDB_CLOSED, 0, &e), 0);
	/* Everything received before 6 s goes (seq 1..5), but seq 2. */
	assert_int_equal(apenet_hdb_retention(db, T0 + 6000, &e), 4);
	struct collected c = transitions(db, 0, INT64_MAX, NULL);
	assert_int_equal(c.n, 6);
	assert_string_equal(c.text[0], "1700000002000 0,0,0#1 2 LINK_UP");
	struct evidences evs = { 0 };
	assert_int_equal(apenet_hdb_evidence_each(db, closed_id, collect_evidence, &evs, &e), 0);
	assert_int_equal(evs.n, 1);
	assert_int_equal(evs.ev[0].transition_id, 0); /* its transition went; the evidence stays */
	assert_int_equal(evs.ev[0].seq, 3);
	assert_int_equal(apenet_hdb_retention(db, T0 + 6000, &e), 0);
	/* Once closed, its evidence may go too. */
	assert_int_equal(apenet_hdb_incident_close(db, open_id, T0 + 7000, APENET_HDB_CLOSED, 0, &e), 0);
	assert_int_equal(apenet_hdb_retention(db, T0 + 6000, &e), 1);
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM incident"), 2); /* incidents stay */
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	/* vacuum: refused inside a batch, then the data is all still there */
	assert_int_equal(apenet_hdb_begin(db, &e), 0);
	assert_int_equal(apenet_hdb_vacuum(db, &e), -1);
	assert_non_null(strstr(e.msg, "inside a batch"));
	apenet_hdb_rollback(db);
	assert_int_equal(apenet_hdb_vacuum(db, &e), 0);
	c = transitions(db, 0, INT64_MAX, NULL);
	assert_int_equal(c.n, 5);
	assert_int_equal(apenet_hdb_check(db, NULL, NULL, &e), 0);
	apenet_hdb_close(db);
}

/* ---- readers ---- */

struct nodes {
	int n;
	char text[32][64];
};

static int collect_node(void *arg, const struct apenet_hdb_node *n)
{
	struct nodes *c = arg;
	if (c->n < 32)
		snprintf(c->text[c->n], sizeof(c->text[0]), "%u,%u,%u %s", n->x, n->y, n->z, apenet_hdb_class_name(n->cls));
	c->n++;
	return 0;
}

static int stop_after_one(void *arg, const struct apenet_hdb_transition *t)
{
	(void)t;
	(*(int *)arg)++;
	return 1;
}

static void test_readers(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	apenet_hdb_set_heartbeat_flush(db, 0);
	layout_ok(db, 3, 2, 1);
	struct apenet_err e = { 0 };
	struct apenet_report r;
	int64_t now = T0 + 60000;
	/* Every node beats but 2,1,0; 1,1,0 has been silent 30 s. */
	for (unsigned y = 0; y < 2; y++)
		for (unsigned x = 0; x < 3; x++) {
			if (x == 2 && y == 1)
				continue;
			char boot[40];
			snprintf(boot, sizeof(boot), "%u,%u,0#1", x, y);
			int64_t t = x == 1 && y == 1 ? now - 30000 : now - 500;
			hb(&r, boot, 1, x, y, 0, 0x80000000u, t);
			assert_int_equal(put(db, &r, t), 1);
		}
	/* 0,1,0 sick; 1,0,0 broken (twice, two codes); 2,0,0 sick then broken
	 * earlier; 2,1,0 (silent) heard through the torus. */
	tr(&r, "0,1,0#1", 2, 0, 1, 0, "fpga_temp", "TEMP_HIGH", 0, 1, now - 400);
	r.subject = APENET_REPORT_SUBJ_SENSOR;
	assert_int_equal(put(db, &r, now - 400), 1);
	tr(&r, "1,0,0#1", 2, 1, 0, 0, "X+", "LINK_DOWN", 0, 2, now - 300);
	assert_int_equal(put(db, &r, now - 300), 1);
	tr(&r, "1,0,0#1", 3, 1, 0, 0, "X+", "LINK_CRC", 0, 1, now - 300);
	assert_int_equal(put(db, &r, now - 300), 1);
	tr(&r, "2,0,0#1", 2, 2, 0, 0, "X-", "LINK_DOWN", 0, 2, now - 350);
	assert_int_equal(put(db, &r, now - 350), 1);
	tr(&r, "1,1,0#1", 2, 2, 1, 0, "host", "NEIGHBOUR_HOST_EXPIRED", 0, 2, now - 35000);
	r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	snprintf(r.via, sizeof(r.via), "X+");
	assert_int_equal(put(db, &r, now - 35000), 1);
	tr(&r, "2,0,0#1", 3, 2, 1, 0, "X-", "NEIGHBOUR_LINK", 0, 1, now - 200);
	r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	snprintf(r.via, sizeof(r.via), "Y+");
	assert_int_equal(put(db, &r, now - 200), 1);

	struct apenet_hdb_summary s;
	assert_int_equal(apenet_hdb_summary(db, now, 10000, &s, &e), 0);
	assert_int_equal(s.nodes, 6);
	assert_int_equal(s.normal, 1);
	assert_int_equal(s.sick, 1);
	assert_int_equal(s.broken, 2);
	assert_int_equal(s.silent, 2);
	assert_int_equal(s.torus_only, 1);
	assert_int_equal(s.outside_layout, 0);
	assert_int_equal(s.last_recv_ms, now - 200);
	/* Worst first: broken (the most recent change first), silent (by
	 * worst, then coordinates), sick, normal. */
	struct nodes c = { 0 };
	assert_int_equal(apenet_hdb_nodes_each(db, now, 10000, 0, collect_node, &c, &e), 0);
	assert_int_equal(c.n, 6);
	assert_string_equal(c.text[0], "1,0,0 broken");
	assert_string_equal(c.text[1], "2,0,0 broken");
	assert_string_equal(c.text[2], "2,1,0 silent");
	assert_string_equal(c.text[3], "1,1,0 silent");
	assert_string_equal(c.text[4], "0,1,0 sick");
	assert_string_equal(c.text[5], "0,0,0 normal");
	struct nodes top = { 0 };
	assert_int_equal(apenet_hdb_nodes_each(db, now, 10000, 2, collect_node, &top, &e), 0);
	assert_int_equal(top.n, 2);
	/* A longer silence limit: 1,1,0 speaks again. */
	assert_int_equal(apenet_hdb_summary(db, now, 40000, &s, &e), 0);
	assert_int_equal(s.silent, 1);
	/* Links with both ends: 1,0,0 X+ (broken) faces 2,0,0 X- (broken,
	 * and sick as 2,1,0's DNP says of its own X-). */
	struct links l = links_of(db, 1, 0, 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.l[0].name, "X+");
	assert_int_equal(l.l[0].status, 2);
	assert_int_equal(l.l[0].partner_status, 2);
	assert_int_equal(l.l[1].status, 0); /* X- */
	l = links_of(db, 2, 1, 0);
	assert_string_equal(l.l[1].name, "X-");
	assert_int_equal(l.l[1].status, 1);

	/* Transitions in a window, equal times ordered by boot, then seq. */
	tr(&r, "0,0,0#1", 9, 0, 0, 0, "Y+", "B", 0, 1, T0 + 5);
	assert_int_equal(put(db, &r, now), 1);
	tr(&r, "0,0,0#1", 8, 0, 0, 0, "Y+", "A", 0, 1, T0 + 5);
	assert_int_equal(put(db, &r, now), 1);
	tr(&r, "0,0,0#0", 30, 0, 0, 0, "Y+", "C", 0, 1, T0 + 5);
	assert_int_equal(put(db, &r, now), 1);
	tr(&r, "2,0,0#1", 4, 1, 0, 0, "Y+", "D", 0, 1, T0 + 4);
	r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	assert_int_equal(put(db, &r, now), 1);
	tr(&r, "0,0,0#1", 10, 0, 0, 0, "Y+", "E", 0, 1, T0 + 6);
	assert_int_equal(put(db, &r, now), 1);
	struct collected w = transitions(db, T0, T0 + 6, NULL);
	assert_int_equal(w.n, 4);
	assert_string_equal(w.text[0], "1700000000004 2,0,0#1 4 D");
	assert_string_equal(w.text[1], "1700000000005 0,0,0#0 30 C");
	assert_string_equal(w.text[2], "1700000000005 0,0,0#1 8 A");
	assert_string_equal(w.text[3], "1700000000005 0,0,0#1 9 B");
	unsigned one[3] = { 0, 0, 0 };
	w = transitions(db, T0, T0 + 100, one);
	assert_int_equal(w.n, 4);
	assert_string_equal(w.text[0], "1700000000005 0,0,0#0 30 C");
	assert_string_equal(w.text[3], "1700000000006 0,0,0#1 10 E");
	unsigned nobody[3] = { 7, 7, 7 };
	assert_int_equal(transitions(db, 0, INT64_MAX, nobody).n, 0);
	int calls = 0;
	assert_int_equal(apenet_hdb_transitions_each(db, 0, INT64_MAX, NULL, stop_after_one, &calls, &e), 0);
	assert_int_equal(calls, 1);
	unsigned missing[3] = { 5, 5, 5 };
	struct apenet_hdb_node n;
	assert_int_equal(apenet_hdb_node_get(db, missing, now, 1000, &n, &e), 0);
	apenet_hdb_close(db);
}

static void test_cables(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	struct apenet_err e = { 0 };
	struct apenet_hdb_cable c;
	memset(&c, 0, sizeof(c));
	snprintf(c.serial, sizeof(c.serial), "QSFP-1234");
	snprintf(c.vendor, sizeof(c.vendor), "Amphenol");
	snprintf(c.part, sizeof(c.part), "NDAAFF-0003");
	c.length_m = 3;
	c.has_a = 1;
	c.a[0] = 1;
	snprintf(c.a_link, sizeof(c.a_link), "X+");
	assert_int_equal(apenet_hdb_cable_seen(db, &c, T0, &e), 0);
	/* Seen from the other end, later, without its vendor data. */
	memset(&c, 0, sizeof(c));
	snprintf(c.serial, sizeof(c.serial), "QSFP-1234");
	c.length_m = NAN;
	c.has_b = 1;
	c.b[0] = 2;
	snprintf(c.b_link, sizeof(c.b_link), "X-");
	assert_int_equal(apenet_hdb_cable_seen(db, &c, T0 + 100, &e), 0);
	struct apenet_hdb_cable got;
	assert_int_equal(apenet_hdb_cable_get(db, "QSFP-1234", &got, &e), 1);
	assert_string_equal(got.vendor, "Amphenol");
	assert_string_equal(got.part, "NDAAFF-0003");
	assert_true(got.length_m == 3);
	assert_int_equal(got.has_a, 1);
	assert_int_equal(got.a[0], 1);
	assert_string_equal(got.a_link, "X+");
	assert_int_equal(got.has_b, 1);
	assert_int_equal(got.b[0], 2);
	assert_string_equal(got.b_link, "X-");
	assert_int_equal(got.first_ms, T0);
	assert_int_equal(got.last_ms, T0 + 100);
	assert_int_equal(apenet_hdb_cable_get(db, "nope", &got, &e), 0);
	memset(&c, 0, sizeof(c));
	assert_int_equal(apenet_hdb_cable_seen(db, &c, T0, &e), -1);
	apenet_hdb_close(db);
}

struct certs {
	unsigned n;
	struct apenet_hdb_cert c[4];
};

static int collect_cert(void *arg, const struct apenet_hdb_cert *c)
{
	struct certs *x = arg;
	if (x->n < 4)
		x->c[x->n] = *c;
	x->n++;
	return 0;
}

/* Certificates of a cable: stored, read back whole, newest first; a
 * verdict that is none of the three refused; another cable's not mixed in. */
static void test_certificates(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	struct apenet_err e = { 0 };
	struct apenet_hdb_cable c;
	memset(&c, 0, sizeof(c));
	snprintf(c.serial, sizeof(c.serial), "APC00000010");
	c.length_m = 8;
	assert_int_equal(apenet_hdb_cable_seen(db, &c, T0, &e), 0);
	snprintf(c.serial, sizeof(c.serial), "APC00000020");
	assert_int_equal(apenet_hdb_cable_seen(db, &c, T0, &e), 0);
	static struct apenet_hdb_cert k;
	memset(&k, 0, sizeof(k));
	snprintf(k.serial, sizeof(k.serial), "APC00000010");
	snprintf(k.link, sizeof(k.link), "X+");
	k.has_far = 1;
	k.far[0] = 1;
	snprintf(k.far_link, sizeof(k.far_link), "X-");
	snprintf(k.pattern, sizeof(k.pattern), "prbs31");
	k.target = 1e-12;
	k.cl = 0.95;
	snprintf(k.verdict, sizeof(k.verdict), "fail");
	k.bits = 123456789012345ull;
	k.errors = 17;
	k.upper = 2e-13;
	k.lower = 8e-14;
	snprintf(k.pma_near, sizeof(k.pma_near), "4/0/3/0/4/1 4/0/3/0/4/1");
	snprintf(k.pma_far, sizeof(k.pma_far), "4/0/3/0/4/1 4/0/3/0/4/1");
	snprintf(k.lanes, sizeof(k.lanes), "[{\"lane\":0}]");
	k.started_ms = T0;
	k.finished_ms = T0 + 1000;
	int64_t id1, id2;
	assert_int_equal(apenet_hdb_cert_put(db, &k, &id1, &e), 0);
	snprintf(k.verdict, sizeof(k.verdict), "pass");
	k.swept = 1;
	k.errors = 0;
	snprintf(k.pma_near, sizeof(k.pma_near), "4/0/3/0/8/3 4/0/3/0/8/3");
	k.started_ms = T0 + 2000;
	k.finished_ms = T0 + 9000;
	assert_int_equal(apenet_hdb_cert_put(db, &k, &id2, &e), 0);
	assert_true(id2 > id1);
	snprintf(k.verdict, sizeof(k.verdict), "maybe");
	assert_int_equal(apenet_hdb_cert_put(db, &k, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "'maybe'"));
	static struct certs x;
	memset(&x, 0, sizeof(x));
	assert_int_equal(apenet_hdb_certs_each(db, "APC00000010", collect_cert, &x, &e), 0);
	assert_int_equal(x.n, 2);
	assert_int_equal(x.c[0].id, id2);
	assert_string_equal(x.c[0].verdict, "pass");
	assert_int_equal(x.c[0].swept, 1);
	assert_string_equal(x.c[0].pma_near, "4/0/3/0/8/3 4/0/3/0/8/3");
	assert_string_equal(x.c[1].verdict, "fail");
	assert_int_equal(x.c[1].bits, 123456789012345ull);
	assert_int_equal(x.c[1].errors, 17);
	assert_true(x.c[1].upper == 2e-13 && x.c[1].lower == 8e-14 && x.c[1].target == 1e-12);
	assert_int_equal(x.c[1].has_far, 1);
	assert_int_equal(x.c[1].far[0], 1);
	assert_string_equal(x.c[1].far_link, "X-");
	assert_string_equal(x.c[1].lanes, "[{\"lane\":0}]");
	memset(&x, 0, sizeof(x));
	assert_int_equal(apenet_hdb_certs_each(db, "APC00000020", collect_cert, &x, &e), 0);
	assert_int_equal(x.n, 0);
	apenet_hdb_close(db);
}

/* A version-2 file (the supervisors of issue 9) gets the certificate table
 * and keeps what it had. */
static void test_migrates_from_v2(void **state)
{
	struct fixture *f = *state;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_create_at(f->path, 2, &e), 0);
	sql_exec(f->path, "INSERT INTO node (id, x, y, z, name, in_layout) VALUES (1, 0, 0, 0, 'n0', 1);"
			  "INSERT INTO cable (serial, vendor, part, length_m, a_node_id, a_link, first_ms, last_ms)"
			  "  VALUES ('APC00000010', 'APEnet', 'DAC', 8, 1, 'X+', 1, 2);");
	assert_int_equal(sql_int(f->path, "SELECT count(*) FROM sqlite_schema WHERE name = 'certificate'"), 0);
	struct apenet_hdb *db = open_ok(f->path, 0);
	assert_non_null(strstr(logged, "schema 2 -> 5"));
	assert_int_equal(sql_int(f->path, "PRAGMA user_version"), APENET_HDB_SCHEMA);
	struct apenet_hdb_cable got;
	assert_int_equal(apenet_hdb_cable_get(db, "APC00000010", &got, &e), 1);
	assert_string_equal(got.vendor, "APEnet");
	static struct certs x;
	memset(&x, 0, sizeof(x));
	assert_int_equal(apenet_hdb_certs_each(db, "APC00000010", collect_cert, &x, &e), 0);
	assert_int_equal(x.n, 0);
	apenet_hdb_close(db);
}

/* ---- check ---- */

struct problems {
	int n;
	char all[4096];
};

static void collect_problem(void *arg, const char *p)
{
	struct problems *c = arg;
	size_t off = strlen(c->all);
	snprintf(c->all + off, sizeof(c->all) - off, "%s\n", p);
	c->n++;
}

static void test_check(void **state)
{
	struct fixture *f = *state;
	struct apenet_hdb *db = create_ok(f->path);
	layout_ok(db, 4, 4, 1);
	struct apenet_err e = { 0 };
	struct apenet_report r;
	tr(&r, "1,1,0#1", 1, 1, 1, 0, "X+", "LINK_DOWN", 0, 2, T0);
	assert_int_equal(put(db, &r, T0), 1);
	struct apenet_hdb_incident in;
	int64_t id;
	incident(&in, "cable", 1, 1, "r", T0);
	assert_int_equal(apenet_hdb_incident_open(db, &in, &id, &e), 0);
	struct problems p = { 0 };
	assert_int_equal(apenet_hdb_check(db, collect_problem, &p, &e), 0);
	assert_int_equal(p.n, 0);
	apenet_hdb_close(db);
	/* Broken behind the library's back. */
	sql_exec(f->path,
		 "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON;"
		 "INSERT INTO evidence (incident_id, time_ms, path, reporter, text) VALUES (999, 0, 4, '', 'orphan');"
		 "UPDATE incident SET merged_into = 77, state = 'open';"
		 "UPDATE node_state SET boot = '1,1,0#0';"
		 "DELETE FROM node_seen WHERE node_id = (SELECT id FROM node WHERE x = 3 AND y = 3);"
		 "DELETE FROM link WHERE node_id = (SELECT id FROM node WHERE x = 2 AND y = 1) AND name = 'X-';");
	db = open_ok(f->path, APENET_HDB_READONLY);
	memset(&p, 0, sizeof(p));
	int n = apenet_hdb_check(db, collect_problem, &p, &e);
	assert_int_equal(n, p.n);
	assert_true(n >= 5);
	assert_non_null(strstr(p.all, "its incident 999 does not exist"));
	assert_non_null(strstr(p.all, "merged into 77, which does not exist"));
	assert_non_null(strstr(p.all, "state open with merged_into 77"));
	assert_non_null(strstr(p.all, "from boot 1,1,0#0, but its reporter's boot is 1,1,0#1"));
	assert_non_null(strstr(p.all, "node 3,3,0: no node_seen row"));
	assert_non_null(strstr(p.all, "link 1,1,0 X+: its far end 2,1,0 X- does not lead back"));
	assert_non_null(strstr(p.all, "foreign key"));
	apenet_hdb_close(db);
}

static mode_t mode_of(const char *path, const char *suffix)
{
	char p[400];
	struct stat st;
	snprintf(p, sizeof(p), "%s%s", path, suffix);
	if (stat(p, &st))
		fail_msg("%s: %s", p, strerror(errno));
	return st.st_mode & 07777;
}

/* The database and its -wal and -shm are the writer's and its group's: 0640
 * under a umask that allows 0644, and an older 0666 file is narrowed when a
 * writer opens it; a reader changes nothing. */
static void test_file_modes(void **state)
{
	struct fixture *f = *state;
	mode_t old = umask(022);
	struct apenet_hdb *db = create_ok(f->path);
	struct apenet_report r;
	hb(&r, "0,0,0#1", 1, 0, 0, 0, 0x80000000u, T0);
	assert_int_equal(put(db, &r, T0), 1);
	apenet_hdb_close(db);
	assert_int_equal(mode_of(f->path, ""), 0640);
	assert_int_equal(mode_of(f->path, "-wal"), 0640);
	assert_int_equal(mode_of(f->path, "-shm"), 0640);
	/* written by an older version, or chmod'ed by hand */
	const char *sfx[] = { "", "-wal", "-shm" };
	for (int i = 0; i < 3; i++) {
		char p[400];
		snprintf(p, sizeof(p), "%s%s", f->path, sfx[i]);
		assert_int_equal(chmod(p, 0666), 0);
	}
	db = open_ok(f->path, APENET_HDB_READONLY);
	apenet_hdb_close(db);
	assert_int_equal(mode_of(f->path, ""), 0666);
	db = open_ok(f->path, 0);
	apenet_hdb_close(db);
	for (int i = 0; i < 3; i++)
		assert_int_equal(mode_of(f->path, sfx[i]), 0640);
	/* an owner-only file stays owner-only: bits are only ever cleared */
	assert_int_equal(chmod(f->path, 0600), 0);
	db = open_ok(f->path, 0);
	apenet_hdb_close(db);
	assert_int_equal(mode_of(f->path, ""), 0600);
	umask(old);
}

/* The batch scheduler's actions: recorded in order, the nodes an incident
 * holds drained (its latest action on each), and another open incident
 * holding a node; a version-4 file gains the table. */
struct slurm_rows {
	unsigned n;
	struct apenet_hdb_slurm_action a[8];
};

static int collect_slurm(void *arg, const struct apenet_hdb_slurm_action *a)
{
	struct slurm_rows *r = arg;
	if (r->n < 8)
		r->a[r->n++] = *a;
	return 0;
}

static void slurm_add(struct apenet_hdb *db, int64_t inc, unsigned x, unsigned y, const char *host, int verb,
		      int outcome, int64_t t)
{
	struct apenet_hdb_slurm_action a;
	struct apenet_err e = { 0 };
	memset(&a, 0, sizeof(a));
	a.incident = inc;
	a.node[0] = x;
	a.node[1] = y;
	snprintf(a.host, sizeof(a.host), "%s", host);
	a.verb = verb;
	a.outcome = outcome;
	snprintf(a.message, sizeof(a.message), "%s", apenet_slurm_outcome_words(verb, outcome));
	a.time_ms = t;
	if (apenet_hdb_slurm_add(db, &a, &e))
		fail_msg("%s", e.msg);
}

static void test_slurm_actions(void **state)
{
	struct fixture *f = *state;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_create_at(f->path, 4, &e), 0);
	struct apenet_hdb *db = open_ok(f->path, 0);
	assert_non_null(strstr(logged, "schema 4 -> 5"));
	layout_ok(db, 4, 4, 1);
	struct apenet_hdb_incident in;
	int64_t a = 0, b = 0, holder = -1;
	incident(&in, "cable", 1, 1, "link-one-end", T0 + 100);
	assert_int_equal(apenet_hdb_incident_open(db, &in, &a, &e), 0);
	incident(&in, "host", 1, 2, "host-hung", T0 + 200);
	assert_int_equal(apenet_hdb_incident_open(db, &in, &b, &e), 0);
	/* a: one end drained, the other left alone (drained by hand) */
	slurm_add(db, a, 1, 1, "quong05", APENET_SLURM_DRAIN, APENET_SLURM_DONE, T0 + 300);
	slurm_add(db, a, 1, 2, "quong09", APENET_SLURM_DRAIN, APENET_SLURM_OTHER, T0 + 301);
	/* b: its node already drained by apenet (held), and one without a name */
	slurm_add(db, b, 1, 2, "quong09", APENET_SLURM_DRAIN, APENET_SLURM_APENET, T0 + 302);
	slurm_add(db, b, 3, 3, "", APENET_SLURM_DRAIN, APENET_SLURM_NO_NAME, T0 + 303);
	unsigned held[4][3], n = 9;
	assert_int_equal(apenet_hdb_slurm_held(db, a, held, 4, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(held[0][0] == 1 && held[0][1] == 1 && held[0][2] == 0);
	assert_int_equal(apenet_hdb_slurm_held(db, b, held, 4, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(held[0][0] == 1 && held[0][1] == 2);
	/* who else holds 1,2: b, for a; nobody else for b */
	const unsigned n12[3] = { 1, 2, 0 }, n11[3] = { 1, 1, 0 };
	assert_int_equal(apenet_hdb_slurm_holder(db, n12, a, &holder, &e), 0);
	assert_int_equal(holder, b);
	assert_int_equal(apenet_hdb_slurm_holder(db, n12, b, &holder, &e), 0);
	assert_int_equal(holder, 0);
	assert_int_equal(apenet_hdb_slurm_holder(db, n11, b, &holder, &e), 0);
	assert_int_equal(holder, a);
	/* a resume releases: the latest row decides */
	slurm_add(db, a, 1, 1, "quong05", APENET_SLURM_RESUME, APENET_SLURM_DONE, T0 + 400);
	assert_int_equal(apenet_hdb_slurm_held(db, a, held, 4, &n, &e), 0);
	assert_int_equal(n, 0);
	assert_int_equal(apenet_hdb_slurm_holder(db, n11, b, &holder, &e), 0);
	assert_int_equal(holder, 0);
	/* a closed incident holds nothing any more */
	assert_int_equal(apenet_hdb_incident_close(db, b, T0 + 500, APENET_HDB_CLOSED, 0, &e), 0);
	assert_int_equal(apenet_hdb_slurm_holder(db, n12, a, &holder, &e), 0);
	assert_int_equal(holder, 0);
	/* read back in order, every field */
	struct slurm_rows r = { 0 };
	assert_int_equal(apenet_hdb_slurm_each(db, a, collect_slurm, &r, &e), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.a[1].incident, a);
	assert_true(r.a[1].node[0] == 1 && r.a[1].node[1] == 2 && r.a[1].node[2] == 0);
	assert_string_equal(r.a[1].host, "quong09");
	assert_int_equal(r.a[1].verb, APENET_SLURM_DRAIN);
	assert_int_equal(r.a[1].outcome, APENET_SLURM_OTHER);
	assert_string_equal(r.a[1].message, "already drained by someone else: left alone");
	assert_int_equal(r.a[1].time_ms, T0 + 301);
	assert_int_equal(r.a[2].verb, APENET_SLURM_RESUME);
	/* refused: an unknown outcome; an unknown incident (foreign key) */
	struct apenet_hdb_slurm_action bad = r.a[0];
	bad.outcome = 0;
	assert_int_equal(apenet_hdb_slurm_add(db, &bad, &e), -1);
	bad = r.a[0];
	bad.incident = 999;
	assert_int_equal(apenet_hdb_slurm_add(db, &bad, &e), -1);
	apenet_hdb_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create_and_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_newer_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_what_is_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_from_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transition_dedup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_heartbeats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_boot_forgets_old_states, setup, teardown),
		cmocka_unit_test(test_partners),
		cmocka_unit_test_setup_teardown(test_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incidents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_retention, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_certificates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_from_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_from_v3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_provisional, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slurm_actions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_modes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
