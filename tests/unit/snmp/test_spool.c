/*
 * The notifier's spool (snmp/spool.c): order per supervisor, the ack rule
 * (an event leaves only when every supervisor acknowledged it), replay
 * after a reopen, the byte bound (oldest heartbeats first, transitions
 * never), sequence numbers per boot, and files that are not ours (random
 * bytes, another program's sqlite database, a damaged spool, a newer
 * schema, a spool in use) refused with a clear error and left unwritten.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "apenet/log.h"
#include "apenet/spool.h"

struct fixture {
	char dir[256];
	char path[300];
};

struct logged {
	int n;
	char all[8192];
};
static struct logged logs;

static void collect(void *ctx, int level, const char *msg)
{
	(void)ctx;
	(void)level;
	size_t off = strlen(logs.all);
	snprintf(logs.all + off, sizeof(logs.all) - off, "%s\n", msg);
	logs.n++;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	const char *tmp = getenv("TMPDIR");
	snprintf(f->dir, sizeof(f->dir), "%s/apenet-spool-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/spool.db", f->dir);
	memset(&logs, 0, sizeof(logs));
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

static const char *const two[] = { "127.0.0.1:16201", "127.0.0.1:16202" };

static void health(struct apenet_report *ev, const char *boot, const char *code, int old_st, int new_st)
{
	apenet_report_init(ev, APENET_REPORT_HEALTH);
	snprintf(ev->boot, sizeof(ev->boot), "%s", boot);
	snprintf(ev->code, sizeof(ev->code), "%s", code);
	snprintf(ev->where, sizeof(ev->where), "X+");
	ev->subject = APENET_REPORT_SUBJ_LINK;
	ev->old_status = old_st;
	ev->new_status = new_st;
	ev->x = 1;
	ev->y = 2;
	ev->z = 0;
	ev->time_ms = 1700000000000;
}

static void heartbeat(struct apenet_report *ev, const char *boot)
{
	apenet_report_init(ev, APENET_REPORT_HEARTBEAT);
	snprintf(ev->boot, sizeof(ev->boot), "%s", boot);
	ev->ldm = 0x80000000u;
	ev->time_ms = 1700000000000;
}

static struct apenet_spool *open_ok(const char *path, const char *const *sup, unsigned n, uint64_t max)
{
	struct apenet_spool *s = NULL;
	struct apenet_err e = { 0 };
	int rc = apenet_spool_open(path, sup, n, max, &s, &e);
	if (rc)
		fail_msg("open %s: %s", path, e.msg);
	return s;
}

static int64_t add_ok(struct apenet_spool *s, struct apenet_report *ev)
{
	struct apenet_err e = { 0 };
	int64_t id = 0;
	if (apenet_spool_add(s, ev, &id, &e))
		fail_msg("add: %s", e.msg);
	return id;
}

/* The next event for sup: its code (health) or "hb" with its seq. */
static int next_of(struct apenet_spool *s, unsigned sup, struct apenet_report *ev, int64_t *id)
{
	struct apenet_err e = { 0 };
	int r = apenet_spool_next(s, sup, ev, id, &e);
	if (r < 0)
		fail_msg("next: %s", e.msg);
	return r;
}

static void ack_ok(struct apenet_spool *s, unsigned sup, int64_t id)
{
	struct apenet_err e = { 0 };
	if (apenet_spool_ack(s, sup, id, 1700000000123, &e))
		fail_msg("ack: %s", e.msg);
}

static void test_order_and_per_supervisor_ack(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev, got;
	int64_t ids[6], id;
	uint64_t sizes[6];
	for (int i = 0; i < 6; i++) {
		char code[16];
		snprintf(code, sizeof(code), "E%d", i);
		if (i % 2)
			heartbeat(&ev, "boot-a");
		else
			health(&ev, "boot-a", code, 0, 2);
		ids[i] = add_ok(s, &ev);
		sizes[i] = apenet_spool_event_size(&ev);
		assert_int_equal(ev.seq, (uint64_t)i + 1); /* numbered per boot */
	}
	struct apenet_spool_stats st;
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 6);
	assert_int_equal(st.transitions, 3);
	assert_int_equal(st.heartbeats, 3);
	assert_int_equal(st.outstanding[0], 6);
	assert_int_equal(st.outstanding[1], 6);

	/* Supervisor 0 receives all six in order and acknowledges each. */
	for (int i = 0; i < 6; i++) {
		assert_int_equal(next_of(s, 0, &got, &id), 1);
		assert_int_equal(id, ids[i]);
		assert_int_equal(got.seq, (uint64_t)i + 1);
		/* Unacknowledged, the same event comes again. */
		assert_int_equal(next_of(s, 0, &got, &id), 1);
		assert_int_equal(id, ids[i]);
		ack_ok(s, 0, id);
	}
	assert_int_equal(next_of(s, 0, &got, &id), 0);
	/* Nothing left the spool: supervisor 1 has acknowledged none. */
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 6);
	assert_int_equal(st.outstanding[0], 0);
	assert_int_equal(st.outstanding[1], 6);
	assert_int_equal(st.last_ack_ms[0], 1700000000123);
	assert_int_equal(st.last_ack_ms[1], 0);
	assert_int_equal(next_of(s, 1, &got, &id), 1);
	assert_int_equal(id, ids[0]);
	assert_string_equal(got.code, "E0");
	/* A late duplicate ack of supervisor 0 changes nothing. */
	ack_ok(s, 0, ids[0]);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 6);
	/* Supervisor 1 acknowledges the first three: they leave. */
	for (int i = 0; i < 3; i++)
		ack_ok(s, 1, ids[i]);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.outstanding[1], 3);
	assert_int_equal(st.bytes, sizes[3] + sizes[4] + sizes[5]);
	apenet_spool_close(s);
}

static void test_fields_round_trip(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 1, 1 << 20);
	struct apenet_report ev, got;
	int64_t id;
	health(&ev, "0f7c1e52-8a55-4b7b-9d3e-2a1c9f3b7e10", "FPGA_TEMP", 1, 2);
	ev.subject = APENET_REPORT_SUBJ_SENSOR;
	snprintf(ev.where, sizeof(ev.where), "fpga_temp");
	snprintf(ev.node, sizeof(ev.node), "quong-05");
	snprintf(ev.unit, sizeof(ev.unit), "C");
	snprintf(ev.evidence, sizeof(ev.evidence), "TEMP_FPGA reads 97.3 C");
	snprintf(ev.via, sizeof(ev.via), "Y-");
	ev.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	ev.value = 97.3;
	ev.threshold = 95;
	ev.x = 3;
	ev.y = 1;
	ev.z = 0;
	ev.seq = 41;
	add_ok(s, &ev);
	assert_int_equal(next_of(s, 0, &got, &id), 1);
	assert_int_equal(got.kind, APENET_REPORT_HEALTH);
	assert_string_equal(got.boot, ev.boot);
	assert_int_equal(got.seq, 41);
	assert_int_equal(got.time_ms, ev.time_ms);
	assert_int_equal(got.x, 3);
	assert_int_equal(got.y, 1);
	assert_string_equal(got.node, "quong-05");
	assert_int_equal(got.subject, APENET_REPORT_SUBJ_SENSOR);
	assert_string_equal(got.where, "fpga_temp");
	assert_string_equal(got.code, "FPGA_TEMP");
	assert_int_equal(got.old_status, 1);
	assert_int_equal(got.new_status, 2);
	assert_true(got.value == 97.3);
	assert_true(got.threshold == 95);
	assert_string_equal(got.unit, "C");
	assert_int_equal(got.path, APENET_REPORT_PATH_NEIGHBOUR_LDM);
	assert_string_equal(got.via, "Y-");
	assert_string_equal(got.evidence, "TEMP_FPGA reads 97.3 C");
	/* NaN (no value) survives as NaN, not 0. */
	heartbeat(&ev, "b");
	ev.ldm = 0x80001000u;
	add_ok(s, &ev);
	ack_ok(s, 0, id);
	assert_int_equal(next_of(s, 0, &got, &id), 1);
	assert_true(isnan(got.value) && isnan(got.threshold));
	assert_int_equal(got.ldm, 0x80001000u);
	/* An explicit sequence moves the boot's counter past it. */
	health(&ev, ev.boot, "X", 0, 1);
	ev.seq = 0;
	snprintf(ev.boot, sizeof(ev.boot), "0f7c1e52-8a55-4b7b-9d3e-2a1c9f3b7e10");
	add_ok(s, &ev);
	assert_int_equal(ev.seq, 42);
	/* The same (boot, seq) twice is refused, and nothing is stored. */
	struct apenet_err e = { 0 };
	struct apenet_spool_stats before, after;
	apenet_spool_stats(s, &before);
	ev.seq = 42;
	assert_int_equal(apenet_spool_add(s, &ev, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "already in the spool"));
	apenet_spool_stats(s, &after);
	assert_int_equal(before.events, after.events);
	assert_int_equal(before.bytes, after.bytes);
	/* Unterminated texts and a missing boot id are bad input. */
	health(&ev, "b", "X", 0, 1);
	memset(ev.code, 'A', sizeof(ev.code));
	assert_int_equal(apenet_spool_add(s, &ev, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "code"));
	health(&ev, "", "X", 0, 1);
	assert_int_equal(apenet_spool_add(s, &ev, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "boot"));
	/* So is what no INFORM can carry (apenet_report_check): stored, it
	 * could never be sent. */
	health(&ev, "b", "X", 0, 1);
	ev.subject = 0;
	assert_int_equal(apenet_spool_add(s, &ev, NULL, &e), -1);
	assert_string_equal(e.msg, "event: subject 0 out of range 1..7");
	health(&ev, "b", "X", 0, 4);
	assert_int_equal(apenet_spool_add(s, &ev, NULL, &e), -1);
	assert_string_equal(e.msg, "event: new status 4 out of range 0..3");
	apenet_spool_stats(s, &after);
	assert_int_equal(before.events, after.events);
	apenet_spool_close(s);
}

static void test_replay_after_reopen(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev, got;
	int64_t id, ids[4];
	for (int i = 0; i < 4; i++) {
		char code[16];
		snprintf(code, sizeof(code), "R%d", i);
		health(&ev, "boot-r", code, 0, 1);
		ids[i] = add_ok(s, &ev);
	}
	ack_ok(s, 0, ids[0]);
	ack_ok(s, 0, ids[1]);
	ack_ok(s, 1, ids[0]);
	/* Closed without ceremony, as a killed agent leaves it. */
	apenet_spool_close(s);

	s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_spool_stats st;
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.outstanding[0], 2);
	assert_int_equal(st.outstanding[1], 3);
	assert_int_equal(st.last_ack_ms[0], 1700000000123);
	for (int i = 2; i < 4; i++) {
		assert_int_equal(next_of(s, 0, &got, &id), 1);
		assert_int_equal(id, ids[i]);
		ack_ok(s, 0, id);
	}
	for (int i = 1; i < 4; i++) {
		assert_int_equal(next_of(s, 1, &got, &id), 1);
		assert_int_equal(id, ids[i]);
		assert_int_equal(got.seq, (uint64_t)i + 1);
		ack_ok(s, 1, id);
	}
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(st.bytes, 0);
	/* The boot's numbering goes on where it was, with nothing held. */
	health(&ev, "boot-r", "R4", 0, 1);
	add_ok(s, &ev);
	assert_int_equal(ev.seq, 5);
	apenet_spool_close(s);
	s = open_ok(f->path, two, 2, 1 << 20);
	health(&ev, "boot-r", "R5", 0, 1);
	int64_t later = add_ok(s, &ev);
	assert_int_equal(ev.seq, 6);
	/* Ids are never reused: order holds across reopens. */
	assert_true(later > ids[3]);
	apenet_spool_close(s);
}

static void test_supervisors_change(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev, got;
	int64_t id;
	for (int i = 0; i < 3; i++) {
		health(&ev, "b", "C", 0, 1);
		add_ok(s, &ev);
	}
	assert_int_equal(next_of(s, 0, &got, &id), 1);
	ack_ok(s, 0, id);
	apenet_spool_close(s);
	/* 16202 goes, 16203 comes: it receives what is held; 16201 keeps its place. */
	const char *const other[] = { "127.0.0.1:16201", "127.0.0.1:16203" };
	s = open_ok(f->path, other, 2, 1 << 20);
	struct apenet_spool_stats st;
	apenet_spool_stats(s, &st);
	assert_int_equal(st.outstanding[0], 2);
	assert_int_equal(st.outstanding[1], 3);
	assert_non_null(strstr(logs.all, "127.0.0.1:16202 is no longer configured"));
	assert_non_null(strstr(logs.all, "new supervisor 127.0.0.1:16203 receives the 3 reports held"));
	apenet_spool_close(s);
	/* Down to one supervisor that acknowledged everything: nothing held. */
	const char *const first[] = { "127.0.0.1:16201" };
	s = open_ok(f->path, first, 1, 1 << 20);
	while (next_of(s, 0, &got, &id) == 1)
		ack_ok(s, 0, id);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 0);
	apenet_spool_close(s);
}

static void test_bound_drops_heartbeats_first_never_transitions(void **state)
{
	struct fixture *f = *state;
	struct apenet_report ev, got;
	heartbeat(&ev, "boot-b");
	uint64_t hb = apenet_spool_event_size(&ev);
	health(&ev, "boot-b", "LINK_DOWN", 0, 2);
	uint64_t tr = apenet_spool_event_size(&ev);
	/* Room for the 10 transitions to come and 6 heartbeats. */
	uint64_t max = 10 * tr + 6 * hb;
	struct apenet_spool *s = open_ok(f->path, two, 2, max);
	int64_t id;
	int ntr = 0, nhb = 0;
	/* 3 heartbeats to 1 transition, far past the bound. */
	for (int i = 0; i < 40; i++) {
		if (i % 4 == 3) {
			health(&ev, "boot-b", "LINK_DOWN", 0, 2);
			ntr++;
		} else {
			heartbeat(&ev, "boot-b");
			nhb++;
		}
		add_ok(s, &ev);
		struct apenet_spool_stats st;
		apenet_spool_stats(s, &st);
		/* Within the bound as long as heartbeats can make room. */
		if (st.heartbeats)
			assert_true(st.bytes <= max);
		assert_int_equal(st.transitions, (uint64_t)ntr);
	}
	struct apenet_spool_stats st;
	apenet_spool_stats(s, &st);
	assert_true(st.dropped > 0);
	assert_int_equal(st.events, st.transitions + st.heartbeats);
	assert_int_equal(st.bytes, st.transitions * tr + st.heartbeats * hb);
	assert_int_equal(st.outstanding[0], st.events);
	assert_int_equal(st.outstanding[1], st.events);
	assert_non_null(strstr(logs.all, "dropping the oldest heartbeats"));
	assert_non_null(strstr(logs.all, "transitions are never dropped"));
	/* What is left is in order, every transition there, and the
	 * heartbeats kept are the newest. */
	uint64_t last_seq = 0, first_hb = 0;
	int seen_tr = 0;
	while (next_of(s, 0, &got, &id) == 1) {
		assert_true(got.seq > last_seq);
		last_seq = got.seq;
		if (got.kind == APENET_REPORT_HEALTH)
			seen_tr++;
		else if (!first_hb)
			first_hb = got.seq;
		ack_ok(s, 0, id);
	}
	assert_int_equal(seen_tr, ntr);
	assert_true(first_hb > 20);
	/* Only transitions: over the bound, and all of them kept. */
	for (int i = 0; i < 20; i++) {
		health(&ev, "boot-b", "LINK_DOWN", 0, 2);
		add_ok(s, &ev);
	}
	apenet_spool_stats(s, &st);
	assert_int_equal(st.heartbeats, 0);
	assert_int_equal(st.transitions, (uint64_t)ntr + 20);
	assert_true(st.bytes > max);
	assert_non_null(strstr(logs.all, "no heartbeat left to drop"));
	apenet_spool_close(s);
	/* Reopened with the same bound: nothing is lost either. */
	s = open_ok(f->path, two, 2, max);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.transitions, (uint64_t)ntr + 20);
	apenet_spool_close(s);
}

/* The whole file, to show that a refused file was not written. */
static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	size_t n = fread(buf, 1, cap, fp);
	fclose(fp);
	return n;
}

static void assert_refused_unchanged(const char *path, const char *expect, int code)
{
	static unsigned char before[1 << 20], after[1 << 20];
	size_t nb = slurp(path, before, sizeof(before));
	struct stat sb0, sb1;
	assert_int_equal(stat(path, &sb0), 0);
	struct apenet_spool *s = NULL;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_spool_open(path, two, 2, 1 << 20, &s, &e), -1);
	assert_null(s);
	assert_int_equal(e.code, code);
	if (!strstr(e.msg, expect))
		fail_msg("expected '%s' in: %s", expect, e.msg);
	assert_non_null(strstr(e.msg, path)); /* it names the file */
	size_t na = slurp(path, after, sizeof(after));
	assert_int_equal(nb, na);
	assert_memory_equal(before, after, nb);
	assert_int_equal(stat(path, &sb1), 0);
	assert_true(sb0.st_mtim.tv_sec == sb1.st_mtim.tv_sec && sb0.st_mtim.tv_nsec == sb1.st_mtim.tv_nsec);
	char wal[400];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_equal(access(wal, F_OK), -1);
}

static void test_refuses_random_bytes(void **state)
{
	struct fixture *f = *state;
	FILE *fp = fopen(f->path, "wb");
	for (int i = 0; i < 5000; i++)
		fputc((i * 7919) & 0xff, fp);
	fclose(fp);
	assert_refused_unchanged(f->path, "not a spool (not an sqlite database)", APENET_EINVAL);
	/* A text file that merely starts like one is no better. */
	fp = fopen(f->path, "wb");
	fputs("SQLite format 2 is what this says\n", fp);
	fclose(fp);
	assert_refused_unchanged(f->path, "not a spool", APENET_EINVAL);
}

static void test_refuses_foreign_database(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (a); INSERT INTO t VALUES (1);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_refused_unchanged(f->path, "a sqlite database of something else", APENET_EINVAL);
}

static void test_refuses_newer_schema(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	apenet_spool_close(s);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99;", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_refused_unchanged(f->path, "schema version 99 is newer", APENET_EINVAL);
}

static void test_refuses_damaged_spool(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev;
	for (int i = 0; i < 200; i++) {
		health(&ev, "boot-d", "LINK_CRC", 0, 1);
		snprintf(ev.evidence, sizeof(ev.evidence), "%0150d", i);
		add_ok(s, &ev);
	}
	apenet_spool_close(s);
	/* Back to a single file (checkpointed, rollback journal) so the
	 * damage below is all there is. */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	struct stat sb;
	assert_int_equal(stat(f->path, &sb), 0);
	assert_true(sb.st_size > 8 * 4096);
	/* Garbage over a page in the middle of the event table. */
	int fd = open(f->path, O_WRONLY);
	unsigned char junk[4096];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 31 + 7);
	assert_int_equal(pwrite(fd, junk, sizeof(junk), 4 * 4096), (ssize_t)sizeof(junk));
	close(fd);
	assert_refused_unchanged(f->path, "damaged", APENET_EINVAL);
}

static void test_refuses_a_spool_in_use(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev;
	health(&ev, "boot-u", "LINK_DOWN", 0, 2);
	add_ok(s, &ev);
	/* A second agent (here: a second connection) is refused. */
	struct apenet_spool *t = NULL;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_spool_open(f->path, two, 2, 1 << 20, &t, &e), -1);
	assert_null(t);
	assert_int_equal(e.code, APENET_EBUSY);
	assert_non_null(strstr(e.msg, "in use by another process"));
	/* The first one carries on. */
	health(&ev, "boot-u", "LINK_DOWN", 2, 0);
	add_ok(s, &ev);
	assert_int_equal(ev.seq, 2);
	apenet_spool_close(s);
	s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_spool_stats st;
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 2);
	apenet_spool_close(s);
}

/* A spool as schema version 1 was first written (the agent before the
 * spool's file moved into db/): the same tables, an event pending for one
 * supervisor, the boot's numbering.  Kept as it shipped: a change that no
 * longer reads it breaks every agent's spool on upgrade. */
static void test_opens_a_version_1_spool(void **state)
{
	struct fixture *f = *state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	char *msg = NULL;
	int rc = sqlite3_exec(
		db,
		"PRAGMA journal_mode = WAL; PRAGMA application_id = 1095791472; PRAGMA user_version = 1;"
		"CREATE TABLE event (id INTEGER PRIMARY KEY AUTOINCREMENT, kind INTEGER NOT NULL,"
		"  boot TEXT NOT NULL, seq INTEGER NOT NULL, time_ms INTEGER NOT NULL,"
		"  node_x INTEGER NOT NULL, node_y INTEGER NOT NULL, node_z INTEGER NOT NULL, node_name TEXT NOT NULL,"
		"  subject INTEGER NOT NULL, place TEXT NOT NULL, code TEXT NOT NULL,"
		"  old_status INTEGER NOT NULL, new_status INTEGER NOT NULL,"
		"  value REAL, threshold REAL, unit TEXT NOT NULL,"
		"  path INTEGER NOT NULL, via TEXT NOT NULL, evidence TEXT NOT NULL,"
		"  ldm INTEGER NOT NULL, size INTEGER NOT NULL, UNIQUE (boot, seq));"
		"CREATE INDEX event_kind ON event (kind, id);"
		"CREATE TABLE supervisor (id INTEGER PRIMARY KEY, addr TEXT NOT NULL UNIQUE,"
		"  last_ack_ms INTEGER NOT NULL DEFAULT 0);"
		"CREATE TABLE pending (sup INTEGER NOT NULL REFERENCES supervisor (id) ON DELETE CASCADE,"
		"  event INTEGER NOT NULL REFERENCES event (id) ON DELETE CASCADE,"
		"  PRIMARY KEY (sup, event)) WITHOUT ROWID;"
		"CREATE INDEX pending_event ON pending (event);"
		"CREATE TABLE boot (id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, first_ms INTEGER NOT NULL);"
		"INSERT INTO supervisor (id, addr, last_ack_ms) VALUES (7, '127.0.0.1:16201', 1700000000050);"
		"INSERT INTO event VALUES (3, 1, 'boot-v1', 5, 1700000000001, 1, 2, 0, 'quong-02', 2, 'X+', 'LINK_CRC',"
		"  0, 1, 3.5, NULL, '/min', 1, '', 'CRC errors', 0, 150);"
		"INSERT INTO pending VALUES (7, 3);"
		"INSERT INTO boot VALUES ('boot-v1', 5, 1700000000001);",
		NULL, NULL, &msg);
	if (rc != SQLITE_OK)
		fail_msg("%s", msg);
	sqlite3_close(db);
	/* The known supervisor finds its event; a new one receives it too. */
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_spool_stats st;
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.transitions, 1);
	assert_int_equal(st.bytes, 150);
	assert_int_equal(st.last_ack_ms[0], 1700000000050);
	assert_int_equal(st.outstanding[0], 1);
	assert_int_equal(st.outstanding[1], 1);
	struct apenet_report got, ev;
	int64_t id;
	assert_int_equal(next_of(s, 0, &got, &id), 1);
	assert_int_equal(id, 3);
	assert_string_equal(got.boot, "boot-v1");
	assert_int_equal(got.seq, 5);
	assert_string_equal(got.node, "quong-02");
	assert_string_equal(got.code, "LINK_CRC");
	assert_true(got.value == 3.5 && isnan(got.threshold));
	/* The boot's numbering goes on from the file's. */
	health(&ev, "boot-v1", "LINK_CRC", 1, 0);
	assert_true(add_ok(s, &ev) > 3);
	assert_int_equal(ev.seq, 6);
	apenet_spool_close(s);
}

/* 0640 whatever the umask, the WAL included (common/filemode.c). */
static void test_file_modes(void **state)
{
	struct fixture *f = *state;
	mode_t old = umask(0);
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev;
	health(&ev, "boot-m", "LINK_DOWN", 0, 2);
	add_ok(s, &ev);
	char wal[400];
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	struct stat sb;
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	assert_int_equal(stat(wal, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	apenet_spool_close(s);
	/* one chmod'ed by hand is narrowed again when the agent opens it */
	assert_int_equal(chmod(f->path, 0666), 0);
	s = open_ok(f->path, two, 2, 1 << 20);
	apenet_spool_close(s);
	assert_int_equal(stat(f->path, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
	umask(old);
}

/* A heartbeat the agent numbered is held in memory: sent from there and
 * forgotten once every supervisor acknowledged it; one still awaited goes
 * to the file before the next report (order kept) or at close; its number
 * is never given again. */
static void test_held_heartbeats(void **state)
{
	struct fixture *f = *state;
	struct apenet_spool *s = open_ok(f->path, two, 2, 1 << 20);
	struct apenet_report ev, got;
	struct apenet_spool_stats st;
	int64_t id, id1;

	/* acknowledged by both: gone, the file never had it */
	heartbeat(&ev, "boot-h");
	ev.seq = 1;
	int64_t held = add_ok(s, &ev);
	assert_true(held < 0);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.heartbeats, 1);
	assert_int_equal(st.outstanding[0], 1);
	assert_int_equal(st.outstanding[1], 1);
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(next_of(s, k, &got, &id), 1);
		assert_int_equal(id, held);
		assert_int_equal(got.seq, 1);
		assert_int_equal(got.ldm, 0x80000000u);
		ack_ok(s, k, id);
	}
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.outstanding[0], 0);
	assert_int_equal(st.last_ack_ms[1], 1700000000123);
	assert_int_equal(next_of(s, 0, &got, &id), 0);
	ack_ok(s, 1, held); /* a late duplicate changes nothing */
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 0);

	/* acknowledged by supervisor 0 only, then a transition: the
	 * heartbeat reaches the file first, pending for supervisor 1 alone;
	 * supervisor 1's ack under the id it was sent with still counts */
	heartbeat(&ev, "boot-h");
	ev.seq = 2;
	held = add_ok(s, &ev);
	assert_int_equal(next_of(s, 0, &got, &id), 1);
	ack_ok(s, 0, id);
	assert_int_equal(next_of(s, 1, &got, &id1), 1);
	assert_int_equal(id1, held);
	health(&ev, "boot-h", "T3", 0, 2);
	ev.seq = 3;
	int64_t t3 = add_ok(s, &ev);
	assert_true(t3 > 0);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 2);
	assert_int_equal(st.outstanding[0], 1);
	assert_int_equal(st.outstanding[1], 2);
	assert_int_equal(next_of(s, 0, &got, &id), 1);
	assert_int_equal(id, t3);
	assert_int_equal(next_of(s, 1, &got, &id), 1);
	assert_int_equal(got.seq, 2);
	assert_int_equal(got.kind, APENET_REPORT_HEARTBEAT);
	ack_ok(s, 1, id1);
	assert_int_equal(next_of(s, 1, &got, &id), 1);
	assert_int_equal(id, t3);
	ack_ok(s, 0, t3);
	ack_ok(s, 1, t3);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.events, 0);

	/* supervisor 1 away: its heartbeats pile up in the file, in order,
	 * the newest written at close */
	for (uint64_t q = 4; q < 9; q++) {
		heartbeat(&ev, "boot-h");
		ev.seq = q;
		add_ok(s, &ev);
		assert_int_equal(next_of(s, 0, &got, &id), 1);
		assert_int_equal(got.seq, q);
		ack_ok(s, 0, id);
	}
	apenet_spool_stats(s, &st);
	assert_int_equal(st.heartbeats, 5);
	assert_int_equal(st.outstanding[0], 0);
	assert_int_equal(st.outstanding[1], 5);
	apenet_spool_close(s);
	s = open_ok(f->path, two, 2, 1 << 20);
	apenet_spool_stats(s, &st);
	assert_int_equal(st.heartbeats, 5);
	assert_int_equal(st.outstanding[0], 0);
	assert_int_equal(st.outstanding[1], 5);
	assert_int_equal(st.last_ack_ms[0], 1700000000123);
	for (uint64_t q = 4; q < 9; q++) {
		assert_int_equal(next_of(s, 1, &got, &id), 1);
		assert_int_equal(got.seq, q);
		ack_ok(s, 1, id);
	}
	assert_int_equal(next_of(s, 1, &got, &id), 0);

	/* a heartbeat forgotten without the file keeps its number taken */
	heartbeat(&ev, "boot-h");
	ev.seq = 20;
	add_ok(s, &ev);
	for (unsigned k = 0; k < 2; k++) {
		assert_int_equal(next_of(s, k, &got, &id), 1);
		ack_ok(s, k, id);
	}
	health(&ev, "boot-h", "T21", 0, 2);
	add_ok(s, &ev);
	assert_int_equal(ev.seq, 21);
	apenet_spool_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_order_and_per_supervisor_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fields_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_after_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_heartbeats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_supervisors_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound_drops_heartbeats_first_never_transitions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_random_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_foreign_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_newer_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_damaged_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_a_spool_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_opens_a_version_1_spool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_modes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
