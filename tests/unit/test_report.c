/*
 * The post-mortem report's model and writers without a database: timeline
 * order at equal timestamps, the first fault and the propagation derived
 * from recorded evidence, recommendations, hostile strings in the HTML,
 * the JSON well formed with the issue's keys, times, and black-box trends
 * read back from a dump written by the snapshot stream writer (and a
 * damaged one named).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "apenet/conf.h"
#include "apenet/hdb.h"
#include "apenet/notify.h"
#include "apenet/out.h"
#include "apenet/postmortem.h"
#include "apenet/snapfile.h"

#define T0 1795751685000LL /* 2026-11-27T03:54:45.000Z */

static struct apenet_pm_event tr(int64_t t, const char *boot, uint64_t seq, unsigned nx, unsigned ny, int path,
				 const char *via, const char *where, const char *code, int st)
{
	struct apenet_pm_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = t;
	ev.kind = APENET_PM_TRANSITION;
	ev.id = (int64_t)seq * 100 + nx * 10 + ny;
	ev.node[0] = nx;
	ev.node[1] = ny;
	ev.has_reporter = sscanf(boot, "%u,%u,%u#", &ev.reporter[0], &ev.reporter[1], &ev.reporter[2]) == 3;
	snprintf(ev.boot, sizeof(ev.boot), "%s", boot);
	ev.seq = seq;
	ev.path = path;
	snprintf(ev.via, sizeof(ev.via), "%s", via);
	snprintf(ev.subject, sizeof(ev.subject), "link");
	snprintf(ev.where, sizeof(ev.where), "%s", where);
	snprintf(ev.code, sizeof(ev.code), "%s", code);
	ev.old_status = st ? 0 : 2;
	ev.new_status = st;
	ev.value = ev.threshold = NAN;
	snprintf(ev.text, sizeof(ev.text), "%s %s", where, code);
	return ev;
}

static struct apenet_hdb_incident cable_incident(void)
{
	struct apenet_hdb_incident in;
	memset(&in, 0, sizeof(in));
	in.id = 7;
	snprintf(in.component, sizeof(in.component), "cable");
	in.node[0] = 1, in.node[1] = 1;
	snprintf(in.link, sizeof(in.link), "Y+");
	in.has_far = 1;
	in.far[0] = 1, in.far[1] = 2;
	snprintf(in.far_link, sizeof(in.far_link), "Y-");
	snprintf(in.rule, sizeof(in.rule), "link-both-ends");
	in.state = APENET_HDB_CLOSED;
	in.opened_ms = T0 + 1639;
	in.closed_ms = T0 + 12000;
	in.first.time_ms = T0;
	in.first.path = APENET_HDB_PATH_SELF;
	snprintf(in.first.reporter, sizeof(in.first.reporter), "1,2,0#1");
	in.first.seq = 5;
	snprintf(in.first.text, sizeof(in.first.text), "LINK_DOWN broken at 1,2,0 Y-");
	in.evidence = 5;
	return in;
}

static void add(struct apenet_pm *pm, struct apenet_pm_event ev)
{
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_pm_add_event(pm, &ev, &e), 0);
}

static void test_equal_timestamps(void **state)
{
	(void)state;
	struct apenet_pm *pm = apenet_pm_new();
	struct apenet_err e = { 0 };
	struct apenet_pm_event op, evd;
	memset(&op, 0, sizeof(op));
	op.time_ms = T0;
	op.kind = APENET_PM_OPENED;
	op.id = op.incident = 3;
	memset(&evd, 0, sizeof(evd));
	evd.time_ms = T0;
	evd.kind = APENET_PM_EVIDENCE;
	evd.id = 9;
	evd.incident = 3;
	/* added in the worst order: the supervisor's first, later seqs first */
	add(pm, op);
	add(pm, evd);
	add(pm, tr(T0, "2,0,0#1", 4, 2, 0, 1, "", "X+", "B", 2));
	add(pm, tr(T0, "1,0,0#1", 8, 1, 0, 1, "", "X-", "C", 2));
	add(pm, tr(T0, "1,0,0#1", 7, 1, 0, 1, "", "X-", "A", 2));
	add(pm, tr(T0 - 1, "3,0,0#2", 1, 3, 0, 1, "", "X+", "Z", 1));
	add(pm, tr(T0, "1,0,0#10", 1, 1, 0, 1, "", "X-", "D", 2));
	assert_int_equal(apenet_pm_finish(pm, &e), 0);
	assert_int_equal(pm->nev, 7);
	/* time first; at T0 the agents' reports by boot id and sequence, then
	 * the supervisor's evidence, then the incident it opened */
	assert_string_equal(pm->ev[0].code, "Z");
	assert_string_equal(pm->ev[1].code, "A");
	assert_string_equal(pm->ev[2].code, "C");
	assert_string_equal(pm->ev[3].code, "D");
	assert_string_equal(pm->ev[4].code, "B");
	assert_int_equal(pm->ev[5].kind, APENET_PM_EVIDENCE);
	assert_int_equal(pm->ev[6].kind, APENET_PM_OPENED);
	for (size_t i = 1; i < pm->nev; i++)
		assert_true(apenet_pm_event_cmp(&pm->ev[i - 1], &pm->ev[i]) < 0);
	/* no incident: the first fault is the first thing that went wrong */
	assert_true(pm->has_first);
	assert_string_equal(pm->first.code, "Z");
	assert_true(pm->ev[0].first);
	apenet_pm_free(pm);
}

/* A cable fault as the supervisor recorded it: the far end first (its own
 * report), two neighbours through their LDM words, the near end, the
 * supervisor's deduction; noise before and elsewhere. */
static struct apenet_pm *cable_story(void)
{
	struct apenet_pm *pm = apenet_pm_new();
	struct apenet_err e = { 0 };
	struct apenet_hdb_incident in = cable_incident();
	pm->by_incident = 1;
	pm->incident = 7;
	pm->dims[0] = pm->dims[1] = 4;
	pm->dims[2] = 1;
	assert_int_equal(apenet_pm_add_incident(pm, &in, &e), 0);
	struct apenet_pm_event ev;
	ev = tr(T0 - 5000, "1,1,0#1", 2, 1, 1, 1, "", "Z+", "FIFO_HIGH", 1); /* before the fault */
	add(pm, ev);
	ev = tr(T0, "1,2,0#1", 5, 1, 2, APENET_HDB_PATH_SELF, "", "Y-", "LINK_DOWN", 2);
	ev.incident = 7;
	add(pm, ev);
	ev = tr(T0 + 1, "0,2,0#1", 3, 1, 2, APENET_HDB_PATH_NEIGHBOUR_LDM, "X+", "Y-", "NEIGHBOUR_LINK", 2);
	ev.incident = 7;
	add(pm, ev);
	ev = tr(T0 + 3, "0,1,0#1", 3, 1, 1, APENET_HDB_PATH_NEIGHBOUR_LDM, "X+", "Y+", "NEIGHBOUR_LINK", 2);
	ev.incident = 7;
	add(pm, ev);
	ev = tr(T0 + 12, "1,1,0#1", 3, 1, 1, APENET_HDB_PATH_SELF, "", "Y+", "LINK_DOWN", 2);
	ev.incident = 7;
	add(pm, ev);
	ev = tr(T0 + 12, "1,1,0#1", 4, 1, 1, APENET_HDB_PATH_SELF, "", "Y+", "LINK_FLAPPING", 2);
	ev.incident = 7;
	add(pm, ev);
	add(pm, tr(T0 + 50, "3,3,0#1", 9, 3, 3, APENET_HDB_PATH_SELF, "", "X+", "CRC_RATE", 1)); /* elsewhere */
	struct apenet_pm_event sup;
	memset(&sup, 0, sizeof(sup));
	sup.time_ms = T0 + 1500;
	sup.kind = APENET_PM_EVIDENCE;
	sup.id = 44;
	sup.incident = 7;
	sup.path = APENET_HDB_PATH_SUPERVISOR;
	snprintf(sup.text, sizeof(sup.text), "both ends agree");
	add(pm, sup);
	return pm;
}

static void test_propagation(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_pm *pm = cable_story();
	assert_int_equal(apenet_pm_finish(pm, &e), 0);
	/* the first fault: the incident's, found in the timeline (the far
	 * end's report: the node it is about, not the blamed end) */
	assert_true(pm->has_first);
	assert_int_equal(pm->first.time_ms, T0);
	assert_string_equal(pm->first.code, "LINK_DOWN");
	assert_int_equal(pm->first.node[1], 2);
	assert_int_equal(pm->first_blamed[1], 1);
	assert_string_equal(pm->first_component, "cable");
	unsigned firsts = 0;
	for (size_t i = 0; i < pm->nev; i++)
		firsts += pm->ev[i].first;
	assert_int_equal(firsts, 1);
	/* who saw it: the far end, two neighbours (via their links), the near
	 * end twice, the supervisor's evidence, its deduction; not the noise */
	assert_int_equal(pm->nseen, 6);
	assert_string_equal(pm->seen[0].observer, "1,2,0");
	assert_int_equal(pm->seen[0].delta_ms, 0);
	assert_string_equal(pm->seen[1].observer, "0,2,0");
	assert_int_equal(pm->seen[1].path, APENET_HDB_PATH_NEIGHBOUR_LDM);
	assert_string_equal(pm->seen[1].via, "X+");
	assert_int_equal(pm->seen[1].delta_ms, 1);
	assert_string_equal(pm->seen[2].observer, "0,1,0");
	assert_int_equal(pm->seen[2].delta_ms, 3);
	assert_string_equal(pm->seen[3].observer, "1,1,0");
	assert_int_equal(pm->seen[3].delta_ms, 12);
	assert_int_equal(pm->seen[3].count, 2);
	assert_string_equal(pm->seen[4].observer, "supervisor");
	assert_int_equal(pm->seen[4].delta_ms, 1500);
	assert_string_equal(pm->seen[5].via, "deduce");
	assert_int_equal(pm->seen[5].delta_ms, 1639);
	assert_non_null(strstr(pm->seen[5].what, "incident #7"));
	/* the map: the first fault's node, the blamed end, observers, neighbours */
	int saw_first = 0, saw_blamed = 0;
	for (unsigned i = 0; i < pm->nnodes; i++) {
		if (pm->nodes[i].xyz[0] == 1 && pm->nodes[i].xyz[1] == 2)
			saw_first = pm->nodes[i].role == APENET_PM_FIRST;
		if (pm->nodes[i].xyz[0] == 1 && pm->nodes[i].xyz[1] == 1)
			saw_blamed = pm->nodes[i].role == APENET_PM_BLAMED;
	}
	assert_true(saw_first);
	assert_true(saw_blamed);
	/* no cable record: reseat/replace the cable between both ends */
	assert_true(pm->nrec >= 1);
	assert_string_equal(pm->rec[0].component, "cable");
	assert_non_null(strstr(pm->rec[0].text, "1,1,0 link Y+"));
	assert_non_null(strstr(pm->rec[0].text, "1,2,0 link Y-"));
	apenet_pm_free(pm);
}

static void test_recommend_cable_serial(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_pm *pm = cable_story();
	pm->cable = calloc(1, sizeof(*pm->cable));
	pm->ncable = 1;
	struct apenet_pm_cable *c = &pm->cable[0];
	c->incident = 7;
	c->known = 1;
	snprintf(c->cable.serial, sizeof(c->cable.serial), "APC123");
	snprintf(c->cable.part, sizeof(c->cable.part), "QSFP-2M");
	c->certs = calloc(2, sizeof(*c->certs));
	c->ncerts = 2;
	snprintf(c->certs[0].verdict, sizeof(c->certs[0].verdict), "fail");
	c->certs[0].target = 1e-12;
	c->certs[0].finished_ms = T0 - 86400000;
	snprintf(c->certs[1].verdict, sizeof(c->certs[1].verdict), "pass");
	assert_int_equal(apenet_pm_finish(pm, &e), 0);
	assert_non_null(strstr(pm->rec[0].text, "Replace the cable with serial APC123"));
	assert_non_null(strstr(pm->rec[0].text, "says fail"));
	assert_non_null(strstr(pm->rec[0].text, "1 of 2 certificates failed"));
	apenet_pm_free(pm);
}

static char *render(const struct apenet_pm *pm, int (*w)(const struct apenet_pm *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(w(pm, f), 0);
	fclose(f);
	return buf;
}

static void test_html_escaping(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_pm *pm = cable_story();
	static const char hostile[] = "<script>alert('x')</script>&\"";
	/* a node name, a transition's text and code, a database path */
	pm->nodes = calloc(1, sizeof(*pm->nodes));
	pm->nnodes = 1;
	pm->nodes[0].xyz[0] = 1;
	pm->nodes[0].xyz[1] = 1;
	snprintf(pm->nodes[0].name, sizeof(pm->nodes[0].name), "%s", hostile);
	snprintf(pm->ev[2].text, sizeof(pm->ev[2].text), "</td><img src=x onerror=alert(1)>");
	snprintf(pm->ev[2].code, sizeof(pm->ev[2].code), "<blink>");
	snprintf(pm->db, sizeof(pm->db), "/tmp/<svg onload=alert(2)>.db");
	snprintf(pm->inc[0].rule, sizeof(pm->inc[0].rule), "<i>rule</i>");
	assert_int_equal(apenet_pm_finish(pm, &e), 0);
	char *html = render(pm, apenet_pm_write_html);
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<svg onload"));
	assert_null(strstr(html, "<i>"));
	assert_null(strstr(html, "<blink>"));
	assert_non_null(strstr(html, "&lt;blink&gt;"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"));
	assert_non_null(strstr(html, "&lt;/td&gt;&lt;img src=x onerror=alert(1)&gt;"));
	/* self-contained: the policy, and nothing fetched */
	assert_non_null(strstr(html, "Content-Security-Policy"));
	assert_null(strstr(html, "src=\"http"));
	assert_null(strstr(html, "href=\"http"));
	assert_non_null(strstr(html, "id=\"map\""));
	assert_non_null(strstr(html, "id=\"timeline\""));
	free(html);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	apenet_pm_html_escape(f, "a&b<c>d\"e'f\x01g");
	fclose(f);
	assert_string_equal(buf, "a&amp;b&lt;c&gt;d&quot;e&#39;f?g");
	free(buf);
	apenet_pm_free(pm);
}

static void test_json(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_pm *pm = cable_story();
	assert_int_equal(apenet_pm_finish(pm, &e), 0);
	char *json = render(pm, apenet_pm_write_json);
	struct apenet_conf *c;
	assert_int_equal(apenet_conf_load_string("report.json", json, &c, &e), 0);
	static const char *const keys[] = { "incident", "timeline", "first_fault", "propagation",
					    "trends", "cables", "recommendations" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(apenet_conf_get(c->root, keys[i]));
	const struct apenet_conf_node *ff = apenet_conf_get(c->root, "first_fault");
	assert_string_equal(apenet_conf_get(ff, "time")->value, "2026-11-27T03:54:45.000Z");
	assert_string_equal(apenet_conf_get(ff, "time_rel_ms")->value, "0");
	assert_string_equal(apenet_conf_get(apenet_conf_get(c->root, "incident"), "component")->value, "cable");
	apenet_conf_free(c);
	free(json);
	apenet_pm_free(pm);
}

static void test_times(void **state)
{
	(void)state;
	char b[40];
	assert_string_equal(apenet_out_iso_ms(T0 + 618, b, sizeof(b)), "2026-11-27T03:54:45.618Z");
	assert_string_equal(apenet_pm_rel(0, b, sizeof(b)), "+0.000 s");
	assert_string_equal(apenet_pm_rel(-1500, b, sizeof(b)), "-1.500 s");
	assert_string_equal(apenet_pm_rel(61234, b, sizeof(b)), "+1 min 01.234 s");
	assert_string_equal(apenet_pm_rel(3723000, b, sizeof(b)), "+1 h 02 min 03 s");
}

/* A dump of node 2,3,0 written by the stream writer: the FPGA warming by
 * 0.5 C a sample, X+ taking CRC errors from the 10th sample on. */
static void write_dump(const char *path, unsigned n)
{
	const struct apenet_profile *p = apenet_profile_by_name("apenet+");
	assert_non_null(p);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	struct apenet_snapfile_stream s;
	apenet_snapfile_stream_begin(&s, f, "0000:03:00.0", p, 0, NULL, "no PCIe in this test",
				     "\"blackbox\": {\"reason\": \"FPGA_TEMP sick\", \"node\": \"2,3,0\"}");
	struct apenet_snapshot *snap = calloc(1, sizeof(*snap));
	snap->prof = p;
	snap->nlinks = p->nlinks;
	snap->g.ID_VARIANT = (uint64_t)p->id;
	snap->g.TS_FREQ_HZ = 1000000;
	for (unsigned i = 0; i < n; i++) {
		snap->g.TIMESTAMP = 1000000 + (uint64_t)i * 100000; /* 100 ms */
		snap->g.SENS_FPGA_TEMP = (uint64_t)(50000 + 500 * i);
		snap->g.SENS_VCORE = 900;
		snap->g.SENS_V12 = 12000;
		for (unsigned l = 0; l < p->nlinks; l++)
			snap->link[l].LINK_FIFO_DEPTH = 1024;
		snap->link[0].LINK_HDR_CRC_ERR = i >= 10 ? (i - 10) * 3 : 0;
		apenet_snapfile_stream_sample(&s, snap, T0 - (int64_t)(n - 1 - i) * 100);
	}
	assert_int_equal(apenet_snapfile_stream_end(&s, NULL, NULL), 0);
	fclose(f);
	free(snap);
}

static void test_trend(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_report_XXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[64], path[128], other[128];
	snprintf(sub, sizeof(sub), "%s/host23", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	/* the dump written at the fault (its name carries the time) */
	snprintf(path, sizeof(path), "%s/blackbox-2-3-0-20261127T035445.000Z-1.json", sub);
	write_dump(path, 40);
	/* another node's: not read */
	snprintf(other, sizeof(other), "%s/blackbox-2-3-1-20261127T035445.000Z-1.json", dir);
	write_dump(other, 3);
	const char *dirs[] = { dir };
	unsigned xyz[3] = { 2, 3, 0 };
	struct apenet_pm_trend t;
	struct apenet_err e = { 0 };
	char note[200] = "";
	assert_int_equal(apenet_pm_trend_load(dirs, 1, xyz, T0, "Y+", &t, note, sizeof(note), &e), 1);
	assert_string_equal(t.file, path);
	assert_string_equal(t.reason, "FPGA_TEMP sick");
	assert_int_equal(t.samples, 40);
	assert_int_equal(t.from_ms, T0 - 3900);
	const struct apenet_pm_series *temp = NULL, *crc = NULL, *ycrc = NULL;
	for (unsigned i = 0; i < t.nseries; i++) {
		if (!strcmp(t.series[i].name, "fpga_temp"))
			temp = &t.series[i];
		if (!strcmp(t.series[i].name, "X+ crc_errors"))
			crc = &t.series[i];
		if (!strcmp(t.series[i].name, "Y+ crc_errors"))
			ycrc = &t.series[i];
	}
	assert_non_null(temp);
	assert_true(fabs(temp->first - 50.0) < 1e-9);
	assert_true(fabs(temp->at_fault - 69.5) < 1e-9);
	assert_true(temp->notable);
	assert_non_null(strstr(temp->note, "rose from 50.0 to 69.5 C"));
	assert_non_null(crc); /* it moved */
	assert_true(fabs(crc->max - 30.0) < 1e-6); /* 3 errors a 100 ms */
	assert_true(crc->notable);
	assert_non_null(ycrc); /* the focus link, though it never moved */
	assert_false(ycrc->notable);
	apenet_pm_trend_free(&t);

	/* no dump of this node */
	unsigned none[3] = { 0, 0, 0 };
	assert_int_equal(apenet_pm_trend_load(dirs, 1, none, T0, NULL, &t, note, sizeof(note), &e), 0);
	assert_non_null(strstr(note, "no black box of node 0,0,0"));
	/* a damaged dump: named, with its line */
	FILE *f = fopen(path, "w");
	fputs("{\"schema\": \"apenet-diag/2\",\n \"command\": \"snapshot\",\n \"bdf\": [\n", f);
	fclose(f);
	assert_int_equal(apenet_pm_trend_load(dirs, 1, xyz, T0, NULL, &t, note, sizeof(note), &e), -1);
	assert_non_null(strstr(e.msg, "blackbox-2-3-0-"));
	unlink(path);
	unlink(other);
	rmdir(sub);
	rmdir(dir);
}

/* The builder on a real database: a window of 20 transitions on a 4x4x1
 * torus and one cable incident with its evidence; --max-events 5 lists the
 * incident's story and 5 more, and counts the rest; --node keeps one node's. */
static void put_tr(struct apenet_hdb *db, const char *boot, uint64_t seq, unsigned x, unsigned y, const char *where,
		   const char *code, int st, int64_t t)
{
	struct apenet_report r;
	struct apenet_err e = { 0 };
	int stored;
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	snprintf(r.boot, sizeof(r.boot), "%s", boot);
	r.seq = seq;
	r.x = x;
	r.y = y;
	snprintf(r.where, sizeof(r.where), "%s", where);
	snprintf(r.code, sizeof(r.code), "%s", code);
	r.subject = APENET_REPORT_SUBJ_LINK;
	r.old_status = st ? 0 : 1;
	r.new_status = st;
	r.time_ms = t;
	snprintf(r.evidence, sizeof(r.evidence), "%s %s", code, where);
	assert_int_equal(apenet_hdb_put_report(db, &r, t + 5, &stored, &e), 0);
	assert_int_equal(stored, 1);
}

static void test_build(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_report_db_XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/h.db", dir);
	struct apenet_hdb *db;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_hdb_open(path, APENET_HDB_CREATE, &db, &e), 0);
	unsigned dims[3] = { 4, 4, 1 };
	assert_int_equal(apenet_hdb_layout(db, dims, NULL, NULL, &e), 0);
	/* noise on 3,3,0 all day: sick and back, 10 times */
	for (unsigned i = 0; i < 10; i++)
		put_tr(db, "3,3,0#1", 1 + i, 3, 3, "X+", "CRC_RATE", i % 2 ? 0 : 1, T0 - 3600000 + (int64_t)i * 60000);
	/* the cable: the far end first, a neighbour, the near end */
	put_tr(db, "1,2,0#1", 1, 1, 2, "Y-", "LINK_DOWN", 2, T0);
	put_tr(db, "1,1,0#1", 1, 1, 1, "Y+", "LINK_DOWN", 2, T0 + 10);
	put_tr(db, "1,1,0#1", 2, 1, 1, "Y+", "LINK_DOWN", 0, T0 + 5000);
	put_tr(db, "1,2,0#1", 2, 1, 2, "Y-", "LINK_DOWN", 0, T0 + 5010);
	struct apenet_hdb_incident in = cable_incident();
	in.first.seq = 1;
	in.opened_ms = T0 + 1500;
	int64_t id;
	assert_int_equal(apenet_hdb_incident_open(db, &in, &id, &e), 0);
	struct apenet_hdb_evidence ev;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = T0 + 10;
	ev.path = APENET_HDB_PATH_SELF;
	snprintf(ev.reporter, sizeof(ev.reporter), "1,1,0#1");
	ev.seq = 1;
	snprintf(ev.text, sizeof(ev.text), "the near end");
	assert_int_equal(apenet_hdb_incident_evidence(db, id, &ev, &e), 0);
	assert_int_equal(apenet_hdb_incident_close(db, id, T0 + 6000, APENET_HDB_CLOSED, 0, &e), 0);
	/* more noise after */
	for (unsigned i = 0; i < 6; i++)
		put_tr(db, "3,3,0#1", 20 + i, 3, 3, "X-", "CRC_RATE", i % 2 ? 0 : 1, T0 + 600000 + (int64_t)i * 1000);

	struct apenet_pm_query q;
	apenet_pm_query_defaults(&q);
	q.now_ms = T0 + 7200000;
	q.from_ms = T0 - 7200000;
	q.to_ms = T0 + 7200000;
	q.max_events = 5;
	struct apenet_pm *pm;
	assert_int_equal(apenet_pm_build(db, path, &q, &pm, &e), 0);
	assert_int_equal(pm->ninc, 1);
	assert_true(pm->has_first);
	assert_string_equal(pm->first_component, "cable");
	assert_int_equal(pm->first.time_ms, T0);
	assert_int_equal(pm->first.node[1], 2); /* the far end's own report, found by boot and sequence */
	/* the incident's 4 transitions, 5 of the noise, the opening, the closing */
	unsigned trs = 0, noise = 0, linked = 0;
	for (size_t i = 0; i < pm->nev; i++) {
		trs += pm->ev[i].kind == APENET_PM_TRANSITION;
		noise += pm->ev[i].kind == APENET_PM_TRANSITION && pm->ev[i].node[0] == 3;
		linked += pm->ev[i].incident == id && pm->ev[i].kind == APENET_PM_TRANSITION;
	}
	assert_int_equal(trs, 9);
	assert_int_equal(noise, 5);
	assert_int_equal(linked, 2); /* the first fault and the evidence row name their transitions */
	assert_int_equal(pm->omitted, 11);
	assert_int_equal(pm->ncable, 1);
	assert_false(pm->cable[0].known);
	apenet_pm_free(pm);

	/* one node: only what is about 3,3,0, all of it, no incident */
	q.has_node = 1;
	q.node[0] = q.node[1] = 3;
	q.max_events = 0;
	assert_int_equal(apenet_pm_build(db, path, &q, &pm, &e), 0);
	assert_int_equal(pm->ninc, 0);
	assert_int_equal(pm->nev, 16);
	assert_int_equal(pm->omitted, 0);
	assert_string_equal(pm->first.code, "CRC_RATE"); /* the first that got worse */
	apenet_pm_free(pm);

	/* an incident that is not there */
	q.incident = 99;
	assert_int_equal(apenet_pm_build(db, path, &q, &pm, &e), -1);
	assert_non_null(strstr(e.msg, "no incident 99"));
	apenet_hdb_close(db);
	char side[80];
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_timestamps), cmocka_unit_test(test_propagation),
		cmocka_unit_test(test_recommend_cable_serial), cmocka_unit_test(test_html_escaping),
		cmocka_unit_test(test_json), cmocka_unit_test(test_times), cmocka_unit_test(test_trend),
		cmocka_unit_test(test_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
