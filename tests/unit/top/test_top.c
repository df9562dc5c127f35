/*
 * apenet-top's model without a terminal: link rows sorted and filtered,
 * node classes to letters, the worst-first node list, filters, the slice
 * layout of a 32x32 torus at 80x24 and at 132x43, and slice counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "apenet/top.h"

static struct apenet_top_link mk(unsigned link, const char *name, enum apenet_sev sev, const char *code, double tx,
				 double crc, unsigned state)
{
	struct apenet_top_link r;
	memset(&r, 0, sizeof(r));
	r.link = link;
	snprintf(r.name, sizeof(r.name), "%s", name);
	r.sev = sev;
	snprintf(r.code, sizeof(r.code), "%s", code);
	r.tx_MBps = tx;
	r.crc_per_min = crc;
	r.state = state;
	snprintf(r.partner, sizeof(r.partner), "1,0,0 %s", name);
	return r;
}

static void test_link_sort(void **state)
{
	(void)state;
	struct apenet_top_link r[4] = { mk(0, "X+", APENET_SEV_OK, "OK", 100, 0, 2),
					mk(1, "X-", APENET_SEV_WARN, "CRC_RATE", 50, 3, 2),
					mk(2, "Y+", APENET_SEV_FAIL, "LINK_DOWN", 0, 0, 0),
					mk(3, "Y-", APENET_SEV_OK, "OK", 900, 0.5, 2) };
	apenet_top_sort_links(r, 4, APENET_TOP_SORT_WORST);
	assert_string_equal(r[0].name, "Y+");
	assert_string_equal(r[1].name, "X-");
	assert_string_equal(r[2].name, "X+"); /* equal verdicts: by index */
	assert_string_equal(r[3].name, "Y-");
	apenet_top_sort_links(r, 4, APENET_TOP_SORT_TRAFFIC);
	assert_string_equal(r[0].name, "Y-");
	apenet_top_sort_links(r, 4, APENET_TOP_SORT_ERRORS);
	assert_string_equal(r[0].name, "X-");
	assert_string_equal(r[1].name, "Y-");
	apenet_top_sort_links(r, 4, APENET_TOP_SORT_NAME);
	assert_string_equal(r[0].name, "X+");
	assert_string_equal(r[3].name, "Y-");
	/* a down link is worse than an up one with the same verdict */
	struct apenet_top_link d[2] = { mk(0, "X+", APENET_SEV_OK, "OK", 0, 0, 2), mk(1, "X-", APENET_SEV_OK, "OK", 0, 0, 0) };
	apenet_top_sort_links(d, 2, APENET_TOP_SORT_WORST);
	assert_string_equal(d[0].name, "X-");
}

static void test_link_filter(void **state)
{
	(void)state;
	struct apenet_top_link r[3] = { mk(0, "X+", APENET_SEV_OK, "OK", 1, 0, 2),
					mk(1, "X-", APENET_SEV_FAIL, "LINK_DOWN", 0, 0, 0),
					mk(2, "Y+", APENET_SEV_OK, "OK", 1, 0, 2) };
	assert_int_equal(apenet_top_filter_links(r, 3, "link_d"), 1); /* case-blind, in the code */
	assert_string_equal(r[0].name, "X-");
	struct apenet_top_link s[3] = { mk(0, "X+", APENET_SEV_OK, "OK", 1, 0, 2), mk(1, "X-", APENET_SEV_OK, "OK", 0, 0, 2),
					mk(2, "Y+", APENET_SEV_OK, "OK", 1, 0, 2) };
	assert_int_equal(apenet_top_filter_links(s, 3, "x"), 2);
	assert_string_equal(s[1].name, "X-");
	assert_int_equal(apenet_top_filter_links(s, 2, ""), 2);
	assert_int_equal(apenet_top_filter_links(s, 2, "nothing"), 0);
}

static struct apenet_top_node nd(unsigned x, unsigned y, unsigned z, int cls, const char *name)
{
	struct apenet_top_node n;
	memset(&n, 0, sizeof(n));
	n.x = x;
	n.y = y;
	n.z = z;
	n.cls = cls;
	snprintf(n.name, sizeof(n.name), "%s", name);
	return n;
}

static void test_nodes(void **state)
{
	(void)state;
	assert_int_equal(apenet_top_cell_letter(0), '.');
	assert_int_equal(apenet_top_cell_letter(1), 's');
	assert_int_equal(apenet_top_cell_letter(2), 'B');
	assert_int_equal(apenet_top_cell_letter(3), '?');
	struct apenet_top_node n[5] = { nd(0, 0, 0, 0, "a"), nd(1, 0, 0, 1, "b"), nd(2, 0, 1, 3, "c"),
					nd(3, 1, 0, 2, "quong07"), nd(0, 1, 0, 2, "d") };
	apenet_top_sort_nodes(n, 5);
	/* broken (by z, y, x), silent, sick, normal */
	assert_string_equal(n[0].name, "d");
	assert_string_equal(n[1].name, "quong07");
	assert_string_equal(n[2].name, "c");
	assert_string_equal(n[3].name, "b");
	assert_string_equal(n[4].name, "a");
	assert_int_equal(apenet_top_filter_nodes(n, 5, "QUONG"), 1);
	assert_string_equal(n[0].name, "quong07");
	struct apenet_top_node m[3] = { nd(2, 0, 1, 3, "c"), nd(1, 2, 1, 0, "e"), nd(1, 2, 0, 0, "f") };
	assert_int_equal(apenet_top_filter_nodes(m, 3, "silent"), 1);
	struct apenet_top_node k[3] = { nd(2, 0, 1, 3, "c"), nd(1, 2, 1, 0, "e"), nd(1, 2, 0, 0, "f") };
	assert_int_equal(apenet_top_filter_nodes(k, 3, "1,2,"), 2);
	struct apenet_top_counts c;
	struct apenet_top_node s[4] = { nd(0, 0, 1, 2, ""), nd(1, 0, 1, 3, ""), nd(0, 1, 1, 3, ""), nd(0, 0, 0, 0, "") };
	apenet_top_count_slice(s, 4, 1, &c);
	assert_int_equal(c.total, 3);
	assert_int_equal(c.cls[2], 1);
	assert_int_equal(c.cls[3], 2);
}

static struct apenet_top_incident inc(int64_t id, const char *component, const char *rule, unsigned x, unsigned y,
				      unsigned z)
{
	struct apenet_top_incident in;
	memset(&in, 0, sizeof(in));
	in.id = id;
	snprintf(in.component, sizeof(in.component), "%s", component);
	snprintf(in.rule, sizeof(in.rule), "%s", rule);
	in.has_node = 1;
	in.node[0] = x;
	in.node[1] = y;
	in.node[2] = z;
	return in;
}

/* A node an open incident blames says so, never its stale "all normal";
 * with incidents it sorts first in its class, and a filter finds it by them. */
static void test_incidents(void **state)
{
	(void)state;
	char w[360];
	struct apenet_top_node n = nd(1, 1, 0, 2, "");
	snprintf(n.summary, sizeof(n.summary), "all normal");
	apenet_top_node_what(&n, w, sizeof(w));
	assert_string_equal(w, "all normal"); /* no incident: its word, whatever it says */
	struct apenet_top_incident a = inc(7, "card", "card-gone", 1, 1, 0), b = inc(9, "cable", "link-both-ends", 1, 1, 0);
	apenet_top_node_mark(&n, &a);
	apenet_top_node_what(&n, w, sizeof(w));
	assert_string_equal(w, "incident 7 card (card-gone)");
	apenet_top_node_mark(&n, &b);
	apenet_top_node_what(&n, w, sizeof(w));
	assert_string_equal(w, "incident 7 card (card-gone) +1 more");
	/* an LDM summary that says something stays, after the incident */
	struct apenet_top_node t = nd(1, 2, 1, 2, "");
	snprintf(t.summary, sizeof(t.summary), "temperature broken");
	struct apenet_top_incident h = inc(3, "sensor:temperature", "self", 1, 2, 1);
	apenet_top_node_mark(&t, &h);
	apenet_top_node_what(&t, w, sizeof(w));
	assert_string_equal(w, "incident 3 sensor:temperature (self); temperature broken");
	/* the list: broken nodes with an incident before broken ones without,
	 * whatever their coordinates */
	struct apenet_top_node l[3] = { nd(1, 0, 0, 2, "plain"), n, nd(0, 0, 0, 0, "ok") };
	apenet_top_sort_nodes(l, 3);
	assert_int_equal(l[0].incidents, 2);
	assert_string_equal(l[1].name, "plain");
	assert_int_equal(apenet_top_filter_nodes(l, 3, "card-gone"), 1);
	assert_int_equal(l[0].x, 1);
	assert_int_equal(l[0].y, 1);
	/* where an incident is */
	apenet_top_incident_where(&a, w, sizeof(w));
	assert_string_equal(w, "1,1,0");
	snprintf(b.link, sizeof(b.link), "X+");
	apenet_top_incident_where(&b, w, sizeof(w));
	assert_string_equal(w, "1,1,0 X+");
	struct apenet_top_incident s = inc(4, "supervisor", "supervisor-missing", 0, 0, 0);
	s.has_node = 0;
	apenet_top_incident_where(&s, w, sizeof(w));
	assert_string_equal(w, "-");
}

static void test_layout(void **state)
{
	(void)state;
	struct apenet_top_layout l;
	/* 32 across fits 80 columns at two a cell */
	apenet_top_slice_layout(32, 32, 80, 12, 0, 0, &l);
	assert_int_equal(l.cell_w, 2);
	assert_int_equal(l.cols, 32);
	assert_int_equal(l.rows, 12); /* 32 rows do not fit 12: a window */
	assert_int_equal(l.y0, 0);
	assert_true(l.clipped);
	/* the window follows the cell that must show, centred when it can */
	apenet_top_slice_layout(32, 32, 80, 12, 5, 20, &l);
	assert_true(20 >= l.y0 && 20 < l.y0 + l.rows);
	assert_int_equal(l.y0, 14);
	apenet_top_slice_layout(32, 32, 80, 12, 5, 31, &l);
	assert_int_equal(l.y0 + l.rows, 32); /* never past the end */
	/* 132x43 shows the whole slice */
	apenet_top_slice_layout(32, 32, 132, 33, 0, 0, &l);
	assert_int_equal(l.cols, 32);
	assert_int_equal(l.rows, 32);
	assert_false(l.clipped);
	/* 40 across does not fit 80 at two a cell: one a cell */
	apenet_top_slice_layout(40, 4, 80, 10, 0, 0, &l);
	assert_int_equal(l.cell_w, 1);
	assert_int_equal(l.cols, 40);
	/* a small torus */
	apenet_top_slice_layout(4, 4, 80, 20, 3, 3, &l);
	assert_int_equal(l.cols, 4);
	assert_int_equal(l.rows, 4);
	assert_int_equal(l.x0, 0);
	assert_false(l.clipped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_sort),
		cmocka_unit_test(test_link_filter),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_incidents),
		cmocka_unit_test(test_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
