/*
 * The post-mortem report's model and writers without a database: timeline
 * order at equal timestamps, the first fault and the propagation derived
 * from recorded evidence, recommendations, hostile strings in the HTML,
 * the JSON well formed with the issue's keys, times, and black-box trends
 * read back from a dump written by the snapshot stream writer (and a
 * damaged one named); no recommendation for readings inside their limits,
 * a cable named by the module its agent read, wraparound cables drawn as
 * such on the map, the three-line summary in every format.
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
#include "apenet/config.h"
#include "apenet/esc.h"
#include "apenet/finding.h"
#include "apenet/hdb.h"
#include "apenet/notify.h"
#include "apenet/out.h"
#include "apenet/postmortem.h"
#include "apenet/snapfile.h"
#include "../../../sim/eeprom.h"

#define T0 1795751685000LL /* 2026-11-27T03:54:45.000Z */

static struct apenet_postmortem_event tr(int64_t t, const char *boot, uint64_t seq, unsigned nx, unsigned ny, int path,
				 const char *via, const char *where, const char *code, int st)
{
	struct apenet_postmortem_event ev;
	memset(&ev, 0, sizeof(ev));
	ev.time_ms = t;
	ev.kind = APENET_POSTMORTEM_TRANSITION;
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

static void add(struct apenet_postmortem *pm, struct apenet_postmortem_event ev)
{
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_postmortem_add_event(pm, &ev, &e), 0);
}

static void test_equal_timestamps(void **state)
{
	(void)state;
	struct apenet_postmortem *pm = apenet_postmortem_new();
	struct apenet_err e = { 0 };
	struct apenet_postmortem_event op, evd;
	memset(&op, 0, sizeof(op));
	op.time_ms = T0;
	op.kind = APENET_POSTMORTEM_OPENED;
	op.id = op.incident = 3;
	memset(&evd, 0, sizeof(evd));
	evd.time_ms = T0;
	evd.kind = APENET_POSTMORTEM_EVIDENCE;
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
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_int_equal(pm->nev, 7);
	/* time first; at T0 the agents' reports by boot id and sequence, then
	 * the supervisor's evidence, then the incident it opened */
	assert_string_equal(pm->ev[0].code, "Z");
	assert_string_equal(pm->ev[1].code, "A");
	assert_string_equal(pm->ev[2].code, "C");
	assert_string_equal(pm->ev[3].code, "D");
	assert_string_equal(pm->ev[4].code, "B");
	assert_int_equal(pm->ev[5].kind, APENET_POSTMORTEM_EVIDENCE);
	assert_int_equal(pm->ev[6].kind, APENET_POSTMORTEM_OPENED);
	for (size_t i = 1; i < pm->nev; i++)
		assert_true(apenet_postmortem_event_cmp(&pm->ev[i - 1], &pm->ev[i]) < 0);
	/* no incident: the first fault is the first thing that went wrong */
	assert_true(pm->has_first);
	assert_string_equal(pm->first.code, "Z");
	assert_true(pm->ev[0].first);
	apenet_postmortem_free(pm);
}

/* A cable fault as the supervisor recorded it: the far end first (its own
 * report), two neighbours through their LDM words, the near end, the
 * supervisor's deduction; noise before and elsewhere. */
static struct apenet_postmortem *cable_story(void)
{
	struct apenet_postmortem *pm = apenet_postmortem_new();
	struct apenet_err e = { 0 };
	struct apenet_hdb_incident in = cable_incident();
	pm->by_incident = 1;
	pm->incident = 7;
	pm->dims[0] = pm->dims[1] = 4;
	pm->dims[2] = 1;
	assert_int_equal(apenet_postmortem_add_incident(pm, &in, &e), 0);
	struct apenet_postmortem_event ev;
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
	struct apenet_postmortem_event sup;
	memset(&sup, 0, sizeof(sup));
	sup.time_ms = T0 + 1500;
	sup.kind = APENET_POSTMORTEM_EVIDENCE;
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
	struct apenet_postmortem *pm = cable_story();
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
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
			saw_first = pm->nodes[i].role == APENET_POSTMORTEM_FIRST;
		if (pm->nodes[i].xyz[0] == 1 && pm->nodes[i].xyz[1] == 1)
			saw_blamed = pm->nodes[i].role == APENET_POSTMORTEM_BLAMED;
	}
	assert_true(saw_first);
	assert_true(saw_blamed);
	/* no cable record: reseat/replace the cable between both ends */
	assert_true(pm->nrec >= 1);
	assert_string_equal(pm->rec[0].component, "cable");
	assert_non_null(strstr(pm->rec[0].text, "1,1,0 link Y+"));
	assert_non_null(strstr(pm->rec[0].text, "1,2,0 link Y-"));
	apenet_postmortem_free(pm);
}

static void test_recommend_cable_serial(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_postmortem *pm = cable_story();
	pm->cable = calloc(1, sizeof(*pm->cable));
	pm->ncable = 1;
	struct apenet_postmortem_cable *c = &pm->cable[0];
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
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_non_null(strstr(pm->rec[0].text, "Replace the cable with serial APC123"));
	assert_non_null(strstr(pm->rec[0].text, "says fail"));
	assert_non_null(strstr(pm->rec[0].text, "1 of 2 certificates failed"));
	apenet_postmortem_free(pm);
}

static char *render(const struct apenet_postmortem *pm, int (*w)(const struct apenet_postmortem *, FILE *))
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
	struct apenet_postmortem *pm = cable_story();
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
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	char *html = render(pm, apenet_postmortem_write_html);
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
	apenet_esc_html_put(f, "a&b<c>d\"e'f\x01g");
	fclose(f);
	assert_string_equal(buf, "a&amp;b&lt;c&gt;d&quot;e&#39;f\\x01g");
	free(buf);
	apenet_postmortem_free(pm);
}

/* No byte that could act on a terminal: nothing below 0x20 but the
 * newlines that end lines, no DEL, no C1 (as UTF-8 or raw), nothing that
 * is not UTF-8. */
static void assert_inert(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		assert_true(*p >= 0x20 || *p == '\n');
		assert_true(*p != 0x7f && *p != 0xff && *p != 0xfe && *p != 0x9b);
		if (*p == 0xc2)
			assert_false(p[1] >= 0x80 && p[1] <= 0x9f);
	}
}

static unsigned lines(const char *s)
{
	unsigned n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The model with every string from outside set to hostile bytes (issue
 * 21): ESC sequences, an OSC title, newlines, invalid UTF-8, C1. */
static struct apenet_postmortem *hostile_story(int hostile)
{
	struct apenet_postmortem *pm = cable_story();
	static const char h[] = "\x1b[2J\x1b[H\x1b]0;pwned\a\nforged\xff\xfe\xc2\x9b";
	const char *v = hostile ? h : "benign";
	pm->nodes = calloc(1, sizeof(*pm->nodes));
	pm->nnodes = 1;
	pm->nodes[0].xyz[0] = 1;
	pm->nodes[0].xyz[1] = 2;
	snprintf(pm->nodes[0].name, sizeof(pm->nodes[0].name), "%s", v);
	for (size_t i = 0; i < pm->nev; i++) {
		snprintf(pm->ev[i].text, sizeof(pm->ev[i].text), "%s", v);
		snprintf(pm->ev[i].unit, sizeof(pm->ev[i].unit), "%s", hostile ? "\x1b[1m" : "C");
		pm->ev[i].value = 1;
	}
	snprintf(pm->ev[2].via, sizeof(pm->ev[2].via), "%s", hostile ? "\x1b\n" : "X+");
	snprintf(pm->inc[0].component, sizeof(pm->inc[0].component), "%s", hostile ? "c\x1b]2;t\a" : "cable");
	snprintf(pm->inc[0].rule, sizeof(pm->inc[0].rule), "%s", v);
	snprintf(pm->db, sizeof(pm->db), "/tmp/%s.db", v);
	apenet_postmortem_note(pm, "note: %s", v);
	return pm;
}

static void test_control_escaping(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_postmortem *pm = hostile_story(1), *ok = hostile_story(0);
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_int_equal(apenet_postmortem_finish(ok, &e), 0);
	int (*const writers[])(const struct apenet_postmortem *, FILE *) = { apenet_postmortem_write_text, apenet_postmortem_write_html,
								     apenet_postmortem_write_json };
	for (size_t w = 0; w < 3; w++) {
		char *a = render(pm, writers[w]), *b = render(ok, writers[w]);
		assert_inert(a);
		/* not one line more than with harmless strings: no field broke one */
		assert_int_equal(lines(a), lines(b));
		free(a);
		free(b);
	}
	char *text = render(pm, apenet_postmortem_write_text);
	assert_non_null(strstr(text, "\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07\\x0aforged\\xff\\xfe\\xc2\\x9b"));
	free(text);
	char *json = render(pm, apenet_postmortem_write_json);
	assert_non_null(strstr(json, "\\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007\\nforged\\u00ff\\u00fe\\u009b"));
	free(json);
	apenet_postmortem_free(pm);
	apenet_postmortem_free(ok);
}

static void test_json(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_postmortem *pm = cable_story();
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	char *json = render(pm, apenet_postmortem_write_json);
	struct apenet_conf *c;
	assert_int_equal(apenet_conf_load_string("report.json", json, &c, &e), 0);
	static const char *const keys[] = { "summary", "incident", "timeline", "first_fault", "propagation",
					    "trends", "cables", "recommendations" };
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(apenet_conf_get(c->root, keys[i]));
	const struct apenet_conf_node *ff = apenet_conf_get(c->root, "first_fault");
	assert_string_equal(apenet_conf_get(ff, "time")->value, "2026-11-27T03:54:45.000Z");
	assert_string_equal(apenet_conf_get(ff, "time_rel_ms")->value, "0");
	assert_string_equal(apenet_conf_get(apenet_conf_get(c->root, "incident"), "component")->value, "cable");
	apenet_conf_free(c);
	free(json);
	apenet_postmortem_free(pm);
}

static void test_times(void **state)
{
	(void)state;
	char b[40];
	assert_string_equal(apenet_out_iso_ms(T0 + 618, b, sizeof(b)), "2026-11-27T03:54:45.618Z");
	assert_string_equal(apenet_postmortem_rel(0, b, sizeof(b)), "+0.000 s");
	assert_string_equal(apenet_postmortem_rel(-1500, b, sizeof(b)), "-1.500 s");
	assert_string_equal(apenet_postmortem_rel(61234, b, sizeof(b)), "+1 min 01.234 s");
	assert_string_equal(apenet_postmortem_rel(3723000, b, sizeof(b)), "+1 h 02 min 03 s");
}

/* A dump written by the stream writer: the FPGA from temp0 C warming by
 * step C a sample, X+ taking CRC errors from the 10th sample on; a copper
 * cable with serial (when not NULL) in Y+. */
static void write_dump_of(const char *path, unsigned n, double temp0, double step, const char *serial)
{
	const struct apenet_profile *p = apenet_profile_by_name("apenet+");
	assert_non_null(p);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	struct apenet_snapfile_stream s;
	struct apenet_out *o = apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
	apenet_out_obj_begin(o, "blackbox");
	apenet_out_str(o, "reason", "FPGA_TEMP sick");
	apenet_out_str(o, "node", "2,3,0");
	apenet_out_obj_end(o);
	apenet_snapfile_stream_begin(&s, o, "0000:03:00.0", p, 0, NULL, "no PCIe in this test");
	struct apenet_snapshot *snap = calloc(1, sizeof(*snap));
	snap->prof = p;
	snap->nlinks = p->nlinks;
	snap->g.ID_VARIANT = (uint64_t)p->id;
	snap->g.TS_FREQ_HZ = 1000000;
	for (unsigned i = 0; i < n; i++) {
		snap->g.TIMESTAMP = 1000000 + (uint64_t)i * 100000; /* 100 ms */
		snap->g.SENS_FPGA_TEMP = (uint64_t)(temp0 * 1000 + step * 1000 * i + 0.5);
		snap->g.SENS_VCORE = 900;
		snap->g.SENS_VCORE_NOM = 900;
		snap->g.SENS_V12 = 12000;
		for (unsigned l = 0; l < p->nlinks; l++)
			snap->link[l].LINK_FIFO_DEPTH = 1024;
		snap->link[0].LINK_HDR_CRC_ERR = i >= 10 ? (i - 10) * 3 : 0;
		apenet_snapfile_stream_sample(&s, snap, T0 - (int64_t)(n - 1 - i) * 100);
	}
	uint32_t st[APENET_MAX_LINKS] = { 0 };
	static uint8_t ee[APENET_MAX_LINKS][APENET_EE_DATA_LEN];
	memset(ee, 0, sizeof(ee));
	if (serial) {
		struct sim_module m;
		sim_module_default(&m, SIM_MOD_COPPER, 3, 1);
		snprintf(m.serial, sizeof(m.serial), "%s", serial);
		sim_eeprom_build(&m, ee[2]); /* Y+ */
		st[2] = APENET_SET(EE_STATUS, PRESENT, 1) | APENET_SET(EE_STATUS, VALID, 1) |
			APENET_SET(EE_STATUS, LAYOUT, APENET_EE_SFF8636);
	}
	assert_int_equal(apenet_snapfile_stream_end(&s, st, (const uint8_t(*)[APENET_EE_DATA_LEN])ee), 0);
	assert_int_equal(apenet_out_finish(o), 0);
	fclose(f);
	free(snap);
}

static void write_dump(const char *path, unsigned n)
{
	write_dump_of(path, n, 50, 0.5, NULL);
}

static struct apenet_thresholds defaults(void)
{
	struct apenet_config cfg;
	apenet_config_defaults(&cfg);
	struct apenet_thresholds t = cfg.thr;
	apenet_config_free(&cfg);
	return t;
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
	struct apenet_postmortem_trend t;
	struct apenet_err e = { 0 };
	char note[200] = "";
	struct apenet_thresholds thr = defaults();
	assert_int_equal(apenet_postmortem_trend_load(dirs, 1, xyz, T0, "Y+", &thr, &t, note, sizeof(note), &e), 1);
	assert_string_equal(t.file, path);
	assert_string_equal(t.reason, "FPGA_TEMP sick");
	assert_int_equal(t.samples, 40);
	assert_int_equal(t.from_ms, T0 - 3900);
	const struct apenet_postmortem_series *temp = NULL, *crc = NULL, *ycrc = NULL;
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
	/* a rise, inside the limits: a note, nothing to do */
	assert_true(temp->warn_high == 80);
	assert_false(temp->crossed);
	assert_non_null(crc); /* it moved */
	assert_true(fabs(crc->max - 30.0) < 1e-6); /* 3 errors a 100 ms */
	assert_true(crc->notable);
	assert_non_null(ycrc); /* the focus link, though it never moved */
	assert_false(ycrc->notable);
	assert_false(ycrc->crossed); /* no limit judged here */
	assert_int_equal(t.nmodules, 0);
	apenet_postmortem_trend_free(&t);

	/* a lower limit: the same readings are past it */
	thr.fpga_temp_warn_c = 60;
	assert_int_equal(apenet_postmortem_trend_load(dirs, 1, xyz, T0, "Y+", &thr, &t, note, sizeof(note), &e), 1);
	for (unsigned i = 0; i < t.nseries; i++)
		if (!strcmp(t.series[i].name, "fpga_temp")) {
			assert_true(t.series[i].crossed);
			assert_string_equal(t.series[i].crossed_note, "reached 69.5 C, past its warn limit 60 C");
			assert_string_equal(t.series[i].crossed_code, "FPGA_TEMP"); /* its recommendation's */
		} else if (!strcmp(t.series[i].name, "vcore")) {
			assert_false(t.series[i].crossed); /* at its nominal */
			assert_true(fabs(t.series[i].warn_low - 0.873) < 1e-9);
		}
	apenet_postmortem_trend_free(&t);
	/* no thresholds: nothing is judged */
	assert_int_equal(apenet_postmortem_trend_load(dirs, 1, xyz, T0, "Y+", NULL, &t, note, sizeof(note), &e), 1);
	for (unsigned i = 0; i < t.nseries; i++)
		assert_false(t.series[i].crossed);
	apenet_postmortem_trend_free(&t);

	/* the modules the dump holds: a cable in Y+ */
	write_dump_of(path, 20, 50, 0, "APC77");
	assert_int_equal(apenet_postmortem_trend_load(dirs, 1, xyz, T0, NULL, &thr, &t, note, sizeof(note), &e), 1);
	assert_int_equal(t.nmodules, 1);
	assert_string_equal(t.modules[0].port, "Y+");
	assert_string_equal(t.modules[0].serial, "APC77");
	assert_string_equal(t.modules[0].part, "APL-QSFP-CU3M");
	assert_true(t.modules[0].length_m == 3);
	apenet_postmortem_trend_free(&t);

	/* no dump of this node */
	unsigned none[3] = { 0, 0, 0 };
	assert_int_equal(apenet_postmortem_trend_load(dirs, 1, none, T0, NULL, NULL, &t, note, sizeof(note), &e), 0);
	assert_non_null(strstr(note, "no black box of node 0,0,0"));
	/* a damaged dump: named, with its line */
	FILE *f = fopen(path, "w");
	fputs("{\"schema\": \"apenet-diag/2\",\n \"command\": \"snapshot\",\n \"bdf\": [\n", f);
	fclose(f);
	assert_int_equal(apenet_postmortem_trend_load(dirs, 1, xyz, T0, NULL, NULL, &t, note, sizeof(note), &e), -1);
	assert_non_null(strstr(e.msg, "blackbox-2-3-0-"));
	unlink(path);
	unlink(other);
	rmdir(sub);
	rmdir(dir);
}

/* One black box series by hand: a temperature from first to last. */
static void hand_trend(struct apenet_postmortem *pm, unsigned x, unsigned y, double first, double last, double warn)
{
	pm->trend = calloc(1, sizeof(*pm->trend));
	pm->ntrend = 1;
	struct apenet_postmortem_trend *t = &pm->trend[0];
	t->node[0] = x;
	t->node[1] = y;
	t->series = calloc(1, sizeof(*t->series));
	t->nseries = 1;
	struct apenet_postmortem_series *se = &t->series[0];
	snprintf(se->name, sizeof(se->name), "fpga_temp");
	snprintf(se->label, sizeof(se->label), "FPGA temperature");
	snprintf(se->unit, sizeof(se->unit), "C");
	se->first = se->min = first;
	se->last = se->max = se->at_fault = last;
	se->notable = last - first >= 5;
	snprintf(se->note, sizeof(se->note), "rose from %.1f to %.1f C", first, last);
	se->warn_low = NAN;
	se->warn_high = warn;
	se->crossed = last >= warn;
	snprintf(se->crossed_note, sizeof(se->crossed_note), "reached %.4g C, past its warn limit %.4g C", last, warn);
	snprintf(se->crossed_code, sizeof(se->crossed_code), "FPGA_TEMP");
}

static int has_rec(const struct apenet_postmortem *pm, const char *what)
{
	for (unsigned i = 0; i < pm->nrec; i++)
		if (strstr(pm->rec[i].text, what))
			return 1;
	return 0;
}

/* A 45 -> 52 C warm-up on a cable incident's node is a note; past the warn
 * limit it is a recommendation. */
static void test_recommend_limits(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_postmortem *pm = cable_story();
	hand_trend(pm, 1, 1, 45, 52, 80);
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_true(pm->trend[0].series[0].notable);
	assert_false(has_rec(pm, "cooling"));
	assert_int_equal(pm->nrec, 1); /* the cable's alone */
	char *txt = render(pm, apenet_postmortem_write_text);
	assert_non_null(strstr(txt, "<- rose from 45.0 to 52.0 C")); /* the note stays */
	free(txt);
	apenet_postmortem_free(pm);

	pm = cable_story();
	hand_trend(pm, 1, 1, 45, 86.5, 80);
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	/* what to do is the judge's wording for FPGA_TEMP, as apenet status says it */
	char want[400];
	snprintf(want, sizeof(want), "On node 1,1,0 too, the FPGA temperature reached 86.5 C, past its warn limit 80 C; it "
				     "rose from 45.0 to 86.5 C: %s.", apenet_code_rec("FPGA_TEMP"));
	assert_true(has_rec(pm, want));
	assert_non_null(strstr(want, "check the cooling ("));
	assert_string_equal(pm->rec[0].component, "cable"); /* the incident's first */
	txt = render(pm, apenet_postmortem_write_text);
	assert_non_null(strstr(txt, "<- reached 86.5 C, past its warn limit 80 C; rose from"));
	free(txt);
	apenet_postmortem_free(pm);

	/* past the limit, but not notable before the fault: still worth it */
	pm = cable_story();
	hand_trend(pm, 1, 1, 84, 85, 80);
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_true(has_rec(pm, "FPGA temperature reached 85 C, past its warn limit 80 C: check the cooling"));
	apenet_postmortem_free(pm);
}

/* No cable record, but the agent's black box read the module at one end:
 * the cable is named by it everywhere. */
static void test_cable_module_serial(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_postmortem *pm = cable_story();
	pm->cable = calloc(1, sizeof(*pm->cable));
	pm->ncable = 1;
	struct apenet_postmortem_cable *c = &pm->cable[0];
	c->incident = 7;
	c->node[0] = c->node[1] = 1;
	snprintf(c->link, sizeof(c->link), "Y+");
	c->has_far = 1;
	c->far[0] = 1, c->far[1] = 2;
	snprintf(c->far_link, sizeof(c->far_link), "Y-");
	snprintf(c->ends[1].port, sizeof(c->ends[1].port), "Y-");
	snprintf(c->ends[1].serial, sizeof(c->ends[1].serial), "APC999");
	snprintf(c->ends[1].vendor, sizeof(c->ends[1].vendor), "APELINK CABLES");
	snprintf(c->ends[1].part, sizeof(c->ends[1].part), "APL-QSFP-CU2M");
	c->ends[1].length_m = 2;
	const char *from;
	assert_string_equal(apenet_postmortem_cable_serial(c, &from), "APC999");
	assert_string_equal(from, "module");
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_non_null(strstr(pm->rec[0].text, "Replace the cable with serial APC999, part APL-QSFP-CU2M between node "
						"1,1,0 link Y+ and node 1,2,0 link Y-; it was never qualified"));
	assert_non_null(strstr(pm->summary.failed, "serial APC999"));
	char *txt = render(pm, apenet_postmortem_write_text);
	assert_non_null(strstr(txt, "serial APC999, APELINK CABLES APL-QSFP-CU2M, 2.0 m (its module, as the agent read it"));
	assert_non_null(strstr(txt, "module at 1,2,0 Y- (black box): serial APC999"));
	assert_non_null(strstr(txt, "never qualified"));
	free(txt);
	char *json = render(pm, apenet_postmortem_write_json);
	struct apenet_conf *cf;
	assert_int_equal(apenet_conf_load_string("report.json", json, &cf, &e), 0);
	const struct apenet_conf_node *cb = apenet_conf_get(cf->root, "cables")->child;
	assert_string_equal(apenet_conf_get(cb, "serial")->value, "APC999");
	assert_string_equal(apenet_conf_get(cb, "serial_from")->value, "module");
	const struct apenet_conf_node *m = apenet_conf_get(cb, "modules")->child;
	assert_string_equal(apenet_conf_get(m, "node")->value, "1,2,0");
	assert_string_equal(apenet_conf_get(m, "link")->value, "Y-");
	assert_null(m->next);
	apenet_conf_free(cf);
	free(json);
	char *html = render(pm, apenet_postmortem_write_html);
	assert_non_null(strstr(html, "serial <b>APC999</b>"));
	free(html);
	/* with neither: reseat, and where to read the serial */
	memset(&c->ends[1], 0, sizeof(c->ends[1]));
	assert_null(apenet_postmortem_cable_serial(c, &from));
	assert_null(from);
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_non_null(strstr(pm->rec[0].text, "Reseat, then replace, the cable"));
	apenet_postmortem_free(pm);
}

/* The map's cables in the HTML: (x1, y1, x2, y2) of each thick line, and
 * how many wraparound arrowheads. */
static unsigned map_cables(const char *html, double seg[][4], unsigned max, unsigned *arrows)
{
	const char *m = strstr(html, "<svg id=\"map\""), *end = m ? strstr(m, "</svg>") : NULL;
	assert_non_null(end);
	unsigned n = 0;
	*arrows = 0;
	for (const char *p = m; (p = strstr(p, "<line ")) && p < end; p++) {
		double v[4];
		char cls[16];
		if (sscanf(p, "<line x1=\"%lf\" y1=\"%lf\" x2=\"%lf\" y2=\"%lf\" class=\"%15[a-z]\"", &v[0], &v[1], &v[2],
			   &v[3], cls) == 5 &&
		    !strcmp(cls, "bad") && n < max)
			memcpy(seg[n++], v, sizeof(v));
	}
	for (const char *p = m; (p = strstr(p, "class=\"wrap\"")) && p < end; p++)
		(*arrows)++;
	return n;
}

static struct apenet_postmortem *cable_between(unsigned ax, unsigned ay, const char *al, unsigned bx, unsigned by,
				       const char *bl, unsigned dx, unsigned dy)
{
	struct apenet_postmortem *pm = apenet_postmortem_new();
	struct apenet_err e = { 0 };
	struct apenet_hdb_incident in = cable_incident();
	in.node[0] = ax, in.node[1] = ay;
	snprintf(in.link, sizeof(in.link), "%s", al);
	in.far[0] = bx, in.far[1] = by;
	snprintf(in.far_link, sizeof(in.far_link), "%s", bl);
	pm->by_incident = 1;
	pm->incident = in.id;
	pm->dims[0] = dx, pm->dims[1] = dy, pm->dims[2] = 1;
	assert_int_equal(apenet_postmortem_add_incident(pm, &in, &e), 0);
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	return pm;
}

static void test_svg_wraparound(void **state)
{
	(void)state;
	double seg[8][4];
	unsigned arrows;
	/* a direct neighbour: one line, one cell long */
	struct apenet_postmortem *pm = cable_between(1, 1, "Y+", 1, 2, "Y-", 4, 4);
	char *html = render(pm, apenet_postmortem_write_html);
	assert_int_equal(map_cables(html, seg, 8, &arrows), 1);
	assert_int_equal(arrows, 0);
	assert_true(seg[0][0] == seg[0][2] && fabs(seg[0][1] - seg[0][3]) == 64);
	free(html);
	apenet_postmortem_free(pm);

	/* X around the edge of a 4-wide row: a stub leaving each end outwards
	 * (3,1 to the right, 0,1 to the left), no line across the row */
	pm = cable_between(3, 1, "X+", 0, 1, "X-", 4, 4);
	html = render(pm, apenet_postmortem_write_html);
	assert_int_equal(map_cables(html, seg, 8, &arrows), 2);
	assert_int_equal(arrows, 2);
	for (int i = 0; i < 2; i++) {
		assert_true(seg[i][1] == seg[i][3]);             /* horizontal */
		assert_true(fabs(seg[i][2] - seg[i][0]) < 64);   /* shorter than a cell */
	}
	assert_true(seg[0][2] > seg[0][0]); /* 3,1 X+: to the right */
	assert_true(seg[1][2] < seg[1][0]); /* 0,1 X-: to the left */
	assert_non_null(strstr(html, "wraparound cable of incident #7: 3,1,0 X+ - 0,1,0 X-"));
	free(html);
	apenet_postmortem_free(pm);

	/* Y around the edge: 1,3 Y+ up, 1,0 Y- down (the map's y grows upwards) */
	pm = cable_between(1, 3, "Y+", 1, 0, "Y-", 4, 4);
	html = render(pm, apenet_postmortem_write_html);
	assert_int_equal(map_cables(html, seg, 8, &arrows), 2);
	assert_int_equal(arrows, 2);
	assert_true(seg[0][0] == seg[0][2] && seg[0][3] < seg[0][1]);
	assert_true(seg[1][0] == seg[1][2] && seg[1][3] > seg[1][1]);
	free(html);
	apenet_postmortem_free(pm);

	/* a ring of two: X+ of 0 is direct, X- of 0 goes around */
	pm = cable_between(0, 0, "X+", 1, 0, "X-", 2, 2);
	html = render(pm, apenet_postmortem_write_html);
	assert_int_equal(map_cables(html, seg, 8, &arrows), 1);
	assert_int_equal(arrows, 0);
	free(html);
	apenet_postmortem_free(pm);
	pm = cable_between(0, 0, "X-", 1, 0, "X+", 2, 2);
	html = render(pm, apenet_postmortem_write_html);
	assert_int_equal(map_cables(html, seg, 8, &arrows), 2);
	assert_int_equal(arrows, 2);
	assert_true(seg[0][2] < seg[0][0] && seg[1][2] > seg[1][0]);
	free(html);
	apenet_postmortem_free(pm);

	/* no torus size on record: a partner three steps away is around the edge */
	pm = cable_between(3, 1, "X+", 0, 1, "X-", 0, 0);
	html = render(pm, apenet_postmortem_write_html);
	assert_int_equal(map_cables(html, seg, 8, &arrows), 2);
	assert_int_equal(arrows, 2);
	free(html);
	apenet_postmortem_free(pm);
}

static void test_summary(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	struct apenet_postmortem *pm = cable_story();
	pm->generated_ms = T0 + 60000;
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_string_equal(pm->summary.failed,
			    "the cable between node 1,1,0 link Y+ and node 1,2,0 link Y- (incident #7, closed)");
	assert_string_equal(pm->summary.since, "2026-11-27T03:54:45.000Z; over at 2026-11-27T03:54:57.000Z, after 12.000 s");
	assert_string_equal(pm->summary.affected, "nodes 1,2,0 and 1,1,0; links down: 1,2,0 Y-, 1,1,0 Y+; seen by 2 other nodes "
						  "(0,2,0, 0,1,0) and the supervisor");
	/* first in every format */
	char *txt = render(pm, apenet_postmortem_write_text);
	const char *l1 = strstr(txt, "\n  What failed  the cable between"), *l2 = strstr(txt, "\n  Since        2026-"),
		   *l3 = strstr(txt, "\n  Affected     nodes 1,2,0"), *ff = strstr(txt, "First fault");
	assert_true(l1 && l2 && l3 && ff && l1 < l2 && l2 < l3 && l3 < ff);
	assert_ptr_equal(strchr(txt, '\n'), l1); /* right under the title */
	free(txt);
	char *json = render(pm, apenet_postmortem_write_json);
	struct apenet_conf *c;
	assert_int_equal(apenet_conf_load_string("report.json", json, &c, &e), 0);
	const struct apenet_conf_node *y = apenet_conf_get(c->root, "summary");
	assert_non_null(y);
	assert_string_equal(apenet_conf_get(y, "failed")->value, pm->summary.failed);
	assert_string_equal(apenet_conf_get(y, "since")->value, pm->summary.since);
	assert_string_equal(apenet_conf_get(y, "affected")->value, pm->summary.affected);
	assert_string_equal(apenet_conf_get(y, "first_fault_ms")->value, "1795751685000");
	assert_string_equal(apenet_conf_get(y, "over_ms")->value, "1795751697000");
	/* after the report's own header, before everything else */
	const struct apenet_conf_node *k = c->root->child;
	while (k && strcmp(k->key, "report"))
		k = k->next;
	assert_non_null(k);
	assert_string_equal(k->next->key, "summary");
	apenet_conf_free(c);
	free(json);
	char *html = render(pm, apenet_postmortem_write_html);
	const char *h = strstr(html, "id=\"summary\""), *f = strstr(html, "id=\"first-fault\"");
	assert_true(h && f && h < f);
	assert_non_null(strstr(h, "the cable between node 1,1,0 link Y+"));
	free(html);
	apenet_postmortem_free(pm);

	/* still open; a second incident; a hostile name escaped in the HTML */
	pm = cable_story();
	pm->generated_ms = T0 + 125000;
	pm->inc[0].state = APENET_HDB_OPEN;
	pm->inc[0].closed_ms = 0;
	struct apenet_hdb_incident h2 = cable_incident();
	h2.id = 8;
	snprintf(h2.component, sizeof(h2.component), "host");
	h2.node[0] = 2, h2.node[1] = 3;
	h2.has_far = 0;
	h2.link[0] = 0;
	h2.first.time_ms = T0 + 100;
	assert_int_equal(apenet_postmortem_add_incident(pm, &h2, &e), 0);
	pm->nodes = calloc(1, sizeof(*pm->nodes));
	pm->nnodes = 1;
	pm->nodes[0].xyz[0] = 2, pm->nodes[0].xyz[1] = 3;
	snprintf(pm->nodes[0].name, sizeof(pm->nodes[0].name), "<b>n23</b>");
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_non_null(strstr(pm->summary.failed, "(incident #7, open); 1 more incident: host of 2,3,0 (<b>n23</b>) (#8)"));
	assert_string_equal(pm->summary.since, "2026-11-27T03:54:45.000Z; still open when the report was made, "
					       "2 min 05.000 s later");
	html = render(pm, apenet_postmortem_write_html);
	assert_null(strstr(html, "<b>n23"));
	assert_non_null(strstr(html, "&lt;b&gt;n23"));
	free(html);
	apenet_postmortem_free(pm);

	/* nothing happened */
	pm = apenet_postmortem_new();
	assert_int_equal(apenet_postmortem_finish(pm, &e), 0);
	assert_string_equal(pm->summary.failed, "nothing: no fault in this window");
	assert_string_equal(pm->summary.since, "-");
	assert_string_equal(pm->summary.affected, "nothing");
	apenet_postmortem_free(pm);
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
	in.settled_ms = in.opened_ms;
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

	struct apenet_postmortem_query q;
	apenet_postmortem_query_defaults(&q);
	q.now_ms = T0 + 7200000;
	q.from_ms = T0 - 7200000;
	q.to_ms = T0 + 7200000;
	q.max_events = 5;
	struct apenet_postmortem *pm;
	assert_int_equal(apenet_postmortem_build(db, path, &q, &pm, &e), 0);
	assert_int_equal(pm->ninc, 1);
	assert_true(pm->has_first);
	assert_string_equal(pm->first_component, "cable");
	assert_int_equal(pm->first.time_ms, T0);
	assert_int_equal(pm->first.node[1], 2); /* the far end's own report, found by boot and sequence */
	/* the incident's 4 transitions, 5 of the noise, the opening, the closing */
	unsigned trs = 0, noise = 0, linked = 0;
	for (size_t i = 0; i < pm->nev; i++) {
		trs += pm->ev[i].kind == APENET_POSTMORTEM_TRANSITION;
		noise += pm->ev[i].kind == APENET_POSTMORTEM_TRANSITION && pm->ev[i].node[0] == 3;
		linked += pm->ev[i].incident == id && pm->ev[i].kind == APENET_POSTMORTEM_TRANSITION;
	}
	assert_int_equal(trs, 9);
	assert_int_equal(noise, 5);
	assert_int_equal(linked, 2); /* the first fault and the evidence row name their transitions */
	assert_int_equal(pm->omitted, 11);
	assert_int_equal(pm->ncable, 1);
	assert_false(pm->cable[0].known);
	assert_null(apenet_postmortem_cable_serial(&pm->cable[0], NULL));
	apenet_postmortem_free(pm);

	/* the near end's black box read its module: the cable has a serial,
	 * though no certificate or record exists */
	char bb[96], dump[160];
	snprintf(bb, sizeof(bb), "%s/bb", dir);
	assert_int_equal(mkdir(bb, 0700), 0);
	snprintf(dump, sizeof(dump), "%s/blackbox-1-1-0-20261127T035445.000Z-1.json", bb);
	write_dump_of(dump, 20, 45, 0.35, "APC555"); /* a 45 -> 51.7 C warm-up */
	q.bbdirs[0] = bb;
	q.nbbdirs = 1;
	q.incident = id;
	assert_int_equal(apenet_postmortem_build(db, path, &q, &pm, &e), 0);
	assert_int_equal(pm->ncable, 1);
	assert_false(pm->cable[0].known);
	assert_string_equal(pm->cable[0].ends[0].serial, "APC555");
	assert_string_equal(pm->cable[0].ends[0].port, "Y+");
	assert_string_equal(pm->cable[0].ends[1].serial, ""); /* 1,2,0 left no black box */
	assert_int_equal(pm->cable[0].ncerts, 0);
	assert_non_null(strstr(pm->rec[0].text, "Replace the cable with serial APC555, part APL-QSFP-CU3M between node "
						"1,1,0 link Y+ and node 1,2,0 link Y-; it was never qualified"));
	assert_false(has_rec(pm, "cooling")); /* the warm-up stays a note */
	assert_int_equal(pm->nrec, 1);
	apenet_postmortem_free(pm);

	/* the same cable, qualified in another port: its record and certificate */
	struct apenet_hdb_cable cab;
	memset(&cab, 0, sizeof(cab));
	snprintf(cab.serial, sizeof(cab.serial), "APC555");
	snprintf(cab.part, sizeof(cab.part), "APL-QSFP-CU3M");
	cab.length_m = 3;
	cab.has_a = 1;
	cab.a[0] = 3;
	snprintf(cab.a_link, sizeof(cab.a_link), "Z+");
	assert_int_equal(apenet_hdb_cable_seen(db, &cab, T0 - 86400000, &e), 0);
	static struct apenet_hdb_cert k;
	memset(&k, 0, sizeof(k));
	snprintf(k.serial, sizeof(k.serial), "APC555");
	k.node[0] = 3;
	snprintf(k.link, sizeof(k.link), "Z+");
	snprintf(k.pattern, sizeof(k.pattern), "prbs31");
	snprintf(k.verdict, sizeof(k.verdict), "fail");
	k.target = 1e-12;
	k.started_ms = T0 - 86500000;
	k.finished_ms = T0 - 86400000;
	int64_t kid;
	assert_int_equal(apenet_hdb_cert_put(db, &k, &kid, &e), 0);
	assert_int_equal(apenet_postmortem_build(db, path, &q, &pm, &e), 0);
	assert_true(pm->cable[0].known);
	assert_int_equal(pm->cable[0].ncerts, 1);
	assert_non_null(strstr(pm->rec[0].text, "serial APC555"));
	assert_non_null(strstr(pm->rec[0].text, "says fail"));
	apenet_postmortem_free(pm);
	unlink(dump);
	rmdir(bb);
	q.nbbdirs = 0;
	q.incident = 0;

	/* one node: only what is about 3,3,0, all of it, no incident */
	q.has_node = 1;
	q.node[0] = q.node[1] = 3;
	q.max_events = 0;
	assert_int_equal(apenet_postmortem_build(db, path, &q, &pm, &e), 0);
	assert_int_equal(pm->ninc, 0);
	assert_int_equal(pm->nev, 16);
	assert_int_equal(pm->omitted, 0);
	assert_string_equal(pm->first.code, "CRC_RATE"); /* the first that got worse */
	apenet_postmortem_free(pm);

	/* an incident that is not there */
	q.incident = 99;
	assert_int_equal(apenet_postmortem_build(db, path, &q, &pm, &e), -1);
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
		cmocka_unit_test(test_build), cmocka_unit_test(test_recommend_limits),
		cmocka_unit_test(test_cable_module_serial), cmocka_unit_test(test_svg_wraparound),
		cmocka_unit_test(test_summary), cmocka_unit_test(test_control_escaping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
