/*
 * The node agent's state machines (lofamo/agent_*.c, lofamo/blackbox.c),
 * driven with made-up sequences of inputs: LDM_HOST composition over every
 * input combination, neighbour events from sequences of received words, the
 * host side of the watchdog, counters that go backwards, findings into
 * transitions, the black box's ring and its dumps through the snapshot codec.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/agent.h"
#include "apenet/blackbox.h"
#include "apenet/snapfile.h"
#include "apenet/verdict.h"

static struct apenet_thresholds thr(void)
{
	struct apenet_config c;
	apenet_config_defaults(&c);
	return c.thr;
}

/* ---- LDM_HOST ---- */

static void test_ldm_host_word(void **state)
{
	(void)state;
	for (unsigned s = 0; s < 5; s++)
		for (unsigned m = 0; m < 5; m++)
			for (unsigned p = 0; p < 5; p++) {
				uint32_t w = apenet_ldm_host_word(s, m, p);
				struct apenet_ldm d;
				apenet_ldm_decode(w | APENET_SET(LDM, VALID, 1), &d);
				/* only the host's fields, never 11, never the host-expired bit */
				assert_int_equal(w & ~APENET_LDM_HOST_MASK, 0);
				assert_int_equal(d.host_expired, 0);
				assert_int_equal(d.ninvalid, 0);
				assert_int_equal(d.field[APENET_LDM_F_SERVICE], s > 2 ? 2 : s);
				assert_int_equal(d.field[APENET_LDM_F_MEMORY], m > 2 ? 2 : m);
				assert_int_equal(d.field[APENET_LDM_F_PERIPHERAL], p > 2 ? 2 : p);
				for (unsigned f = APENET_LDM_F_CORE; f < APENET_LDM_NFIELDS; f++)
					assert_int_equal(d.field[f], 0);
			}
}

static unsigned want_memory(const struct apenet_edac *e, const struct apenet_thresholds *t, double sick)
{
	double rate, lower;
	if (!e->present)
		return APENET_H_NORMAL;
	if (e->ue)
		return APENET_H_BROKEN;
	if (e->window_s > 0 && e->ce_window >= t->rate_min_events &&
	    apenet_rules_rate_proven(e->ce_window, e->window_s, sick, 3600, t, &rate, &lower))
		return APENET_H_SICK;
	return APENET_H_NORMAL;
}

static unsigned want_peripheral(int ok, const struct apenet_pcie_info *p)
{
	if (!ok)
		return APENET_H_SICK;
	if (p->has_aer && (p->aer_uncor_status & ~p->aer_uncor_mask))
		return APENET_H_BROKEN;
	if (p->degraded || (p->has_aer && (p->aer_cor_status & ~p->aer_cor_mask)))
		return APENET_H_SICK;
	return APENET_H_NORMAL;
}

/* Every combination of the three fields' inputs, composed into the word the
 * DNP merges: memory (EDAC present, uncorrected, corrected in a window),
 * peripheral (capability readable, trained down, AER correctable and
 * uncorrectable, masked or not), service (supervisors, acknowledging, time
 * since the last acknowledgement). */
static void test_ldm_host_combinations(void **state)
{
	(void)state;
	struct apenet_thresholds t = thr();
	const double sick = 10; /* corrected errors per hour */
	static const uint64_t ues[] = { 0, 1, 7 }, ces[] = { 0, 2, 3, 40, 100000 };
	static const double windows[] = { 0, 60, 3600 };
	static const uint32_t bits[] = { 0, 0x1, 0x4000 };
	unsigned cases = 0, seen[3][3][3] = { { { 0 } } };
	char why[200];
	for (int present = 0; present < 2; present++)
	for (unsigned iu = 0; iu < 3; iu++)
	for (unsigned ic = 0; ic < 5; ic++)
	for (unsigned iw = 0; iw < 3; iw++) {
		struct apenet_edac e = { present, present ? 2u : 0u, ces[ic] * 3, ues[iu], ces[ic], windows[iw] };
		unsigned mem = apenet_host_memory(&e, sick, &t, why, sizeof(why));
		assert_int_equal(mem, want_memory(&e, &t, sick));
		assert_int_equal(apenet_host_memory(&e, sick, &t, NULL, 0), mem); /* the agent's every-period call */
		assert_true(why[0]);
		if (!present)
			assert_non_null(strstr(why, "no EDAC"));
		for (int ok = 0; ok < 2; ok++)
		for (int degraded = 0; degraded < 2; degraded++)
		for (int aer = 0; aer < 2; aer++)
		for (unsigned icor = 0; icor < 3; icor++)
		for (unsigned iunc = 0; iunc < 3; iunc++)
		for (int masked = 0; masked < 2; masked++) {
			struct apenet_pcie_info p = { 1, 2, 8, degraded ? 1 : 2, degraded ? 4 : 8, degraded, 0, aer,
						      bits[iunc], masked ? bits[iunc] : 0, 0, bits[icor], masked ? bits[icor] : 0 };
			unsigned per = apenet_host_peripheral(ok, &p, why, sizeof(why));
			assert_int_equal(per, want_peripheral(ok, &p));
			assert_int_equal(apenet_host_peripheral(ok, &p, NULL, 0), per);
			for (unsigned conf = 0; conf < 3; conf++)
			for (unsigned ack = 0; ack <= conf; ack++)
			for (int late = 0; late < 3; late++) {
				double since = late == 0 ? 0 : late == 1 ? 59.9 : 60;
				unsigned svc = apenet_host_service(conf, ack, since, 60);
				unsigned want = conf == 0 || ack == conf ? APENET_H_NORMAL
						: ack > 0		 ? APENET_H_SICK
						: late == 2		 ? APENET_H_BROKEN
									 : APENET_H_SICK;
				assert_int_equal(svc, want);
				struct apenet_ldm d;
				uint32_t w = apenet_ldm_host_word(svc, mem, per);
				assert_int_equal(apenet_ldm_decode(w | APENET_SET(LDM, VALID, 1), &d), 0);
				assert_int_equal(d.field[APENET_LDM_F_SERVICE], svc);
				assert_int_equal(d.field[APENET_LDM_F_MEMORY], mem);
				assert_int_equal(d.field[APENET_LDM_F_PERIPHERAL], per);
				assert_int_equal(w & ~APENET_LDM_HOST_MASK, 0);
				seen[svc][mem][per] = 1;
				cases++;
			}
		}
	}
	/* every word the host can send was composed at least once */
	for (unsigned a = 0; a < 3; a++)
		for (unsigned b = 0; b < 3; b++)
			for (unsigned c = 0; c < 3; c++)
				if (!seen[a][b][c])
					fail_msg("service %u memory %u peripheral %u never composed", a, b, c);
	assert_true(cases > 10000);
}

static void test_ldm_host_reasons(void **state)
{
	(void)state;
	struct apenet_thresholds t = thr();
	char why[200];
	struct apenet_edac e = { 1, 2, 5, 1, 0, 3600 };
	assert_int_equal(apenet_host_memory(&e, 10, &t, why, sizeof(why)), APENET_H_BROKEN);
	assert_string_equal(why, "1 uncorrected memory errors (EDAC, 2 controllers)");
	e = (struct apenet_edac){ 1, 1, 130, 0, 130, 3600 };
	assert_int_equal(apenet_host_memory(&e, 100, &t, why, sizeof(why)), APENET_H_SICK);
	assert_non_null(strstr(why, "130 corrected memory errors in 3600 s"));
	/* 100 in an hour prove only 84/h at 95%: not yet sick at 100/h */
	e = (struct apenet_edac){ 1, 1, 100, 0, 100, 3600 };
	assert_int_equal(apenet_host_memory(&e, 100, &t, why, sizeof(why)), APENET_H_NORMAL);
	struct apenet_pcie_info p = { 1, 2, 8, 1, 4, 1, 0, 1, 0, 0, 0, 0, 0 };
	assert_int_equal(apenet_host_peripheral(1, &p, why, sizeof(why)), APENET_H_SICK);
	assert_string_equal(why, "PCIe trained at gen1 x4, below the card's gen2 x8");
	assert_int_equal(apenet_host_peripheral(0, &p, why, sizeof(why)), APENET_H_SICK);
	assert_string_equal(why, "the card's PCIe capability is unreadable");
}

/* ---- neighbours ---- */

struct nbr_run {
	struct apenet_nbr n;
	struct apenet_nbr_input in;
	struct apenet_thresholds t;
	struct apenet_event ev[APENET_NBR_MAX_EVENTS];
	unsigned cnt;
};

static void nbr_start(struct nbr_run *r)
{
	memset(r, 0, sizeof(*r));
	apenet_nbr_init(&r->n);
	r->t = thr(); /* LDM stale at 500 ms (sick), 2000 ms (broken) */
	r->in = (struct apenet_nbr_input){ 1, 1, 0, 0, { 2, 1, 0 }, 1, APENET_SET(LDM, VALID, 1), 100, 0.2 };
}

static unsigned nbr_word(struct nbr_run *r, uint32_t word, double age_ms)
{
	r->in.word = word;
	r->in.age_ms = age_ms;
	r->in.rx_count += 1000;
	r->cnt = apenet_nbr_step(&r->n, &r->in, &r->t, "X+", r->ev, APENET_NBR_MAX_EVENTS);
	return r->cnt;
}

static uint32_t word_of(unsigned field, unsigned status)
{
	return APENET_SET(LDM, VALID, 1) | (uint32_t)status << apenet_ldm_field_lsb(field);
}

static void expect_ev(const struct apenet_event *ev, const char *subject, const char *where, const char *code,
		      unsigned old, unsigned now)
{
	if (strcmp(ev->subject, subject) || strcmp(ev->where, where) || strcmp(ev->code, code) || ev->old_status != old ||
	    ev->new_status != now)
		fail_msg("event %s/%s %s %u->%u, expected %s/%s %s %u->%u", ev->subject, ev->where, ev->code, ev->old_status,
			 ev->new_status, subject, where, code, old, now);
	/* on the partner's behalf, through the torus, naming the link */
	assert_int_equal(ev->node[0], 2);
	assert_int_equal(ev->node[1], 1);
	assert_int_equal(ev->node[2], 0);
	assert_int_equal(ev->path, APENET_PATH_NEIGHBOUR_LDM);
	assert_string_equal(ev->via, "X+");
	assert_non_null(strstr(ev->evidence, "LINK_LDM_RX"));
	assert_true(ev->message[0]);
}

static void test_nbr_fields(void **state)
{
	(void)state;
	struct nbr_run r;
	nbr_start(&r);
	uint32_t ok = APENET_SET(LDM, VALID, 1);
	assert_int_equal(nbr_word(&r, ok, 0.2), 0);
	assert_int_equal(nbr_word(&r, ok, 0.3), 0);
	/* a sensor field, sick then broken then normal */
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_TEMPERATURE, 1), 0.2), 1);
	expect_ev(&r.ev[0], "sensor", "temperature", "NEIGHBOUR_TEMPERATURE", 0, 1);
	assert_non_null(strstr(r.ev[0].message, "node 2,1,0 reports its temperature sick"));
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_TEMPERATURE, 1), 0.2), 0);
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_TEMPERATURE, 2), 0.2), 1);
	expect_ev(&r.ev[0], "sensor", "temperature", "NEIGHBOUR_TEMPERATURE", 1, 2);
	assert_int_equal(nbr_word(&r, ok, 0.2), 1);
	expect_ev(&r.ev[0], "sensor", "temperature", "NEIGHBOUR_TEMPERATURE", 2, 0);
	/* every field has its own subject and code */
	static const struct {
		unsigned f;
		const char *subject, *where, *code;
	} fields[] = {
		{ APENET_LDM_F_SERVICE, "host", "service", "NEIGHBOUR_SERVICE" },
		{ APENET_LDM_F_MEMORY, "host", "memory", "NEIGHBOUR_MEMORY" },
		{ APENET_LDM_F_PERIPHERAL, "host", "peripheral", "NEIGHBOUR_PERIPHERAL" },
		{ APENET_LDM_F_CORE, "dnp", "core", "NEIGHBOUR_CORE" },
		{ APENET_LDM_F_CURRENT, "sensor", "current", "NEIGHBOUR_CURRENT" },
		{ APENET_LDM_F_VOLTAGE, "sensor", "voltage", "NEIGHBOUR_VOLTAGE" },
		{ APENET_LDM_F_ZMINUS, "link", "Z-", "NEIGHBOUR_LINK" },
		{ APENET_LDM_F_ZPLUS, "link", "Z+", "NEIGHBOUR_LINK" },
		{ APENET_LDM_F_YMINUS, "link", "Y-", "NEIGHBOUR_LINK" },
		{ APENET_LDM_F_YPLUS, "link", "Y+", "NEIGHBOUR_LINK" },
		{ APENET_LDM_F_XMINUS, "link", "X-", "NEIGHBOUR_LINK" },
		{ APENET_LDM_F_XPLUS, "link", "X+", "NEIGHBOUR_LINK" },
	};
	for (unsigned i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		assert_int_equal(nbr_word(&r, word_of(fields[i].f, 2), 0.1), 1);
		expect_ev(&r.ev[0], fields[i].subject, fields[i].where, fields[i].code, 0, 2);
		assert_int_equal(nbr_word(&r, ok, 0.1), 1);
		expect_ev(&r.ev[0], fields[i].subject, fields[i].where, fields[i].code, 2, 0);
	}
	/* several at once: one event each, host-expired first */
	uint32_t w = word_of(APENET_LDM_F_CORE, 2) | word_of(APENET_LDM_F_VOLTAGE, 1) | APENET_SET(LDM, HOST_EXPIRED, 1);
	assert_int_equal(nbr_word(&r, w, 0.1), 3);
	expect_ev(&r.ev[0], "host", "watchdog", "NEIGHBOUR_HOST_EXPIRED", 0, 2);
	assert_non_null(strstr(r.ev[0].message, "declared its host dead"));
	expect_ev(&r.ev[1], "dnp", "core", "NEIGHBOUR_CORE", 0, 2);
	expect_ev(&r.ev[2], "sensor", "voltage", "NEIGHBOUR_VOLTAGE", 0, 1);
	/* the caller's room: what does not fit comes at the next step */
	r.in.word = ok;
	r.cnt = apenet_nbr_step(&r.n, &r.in, &r.t, "X+", r.ev, 2);
	assert_int_equal(r.cnt, 2);
	expect_ev(&r.ev[0], "host", "watchdog", "NEIGHBOUR_HOST_EXPIRED", 2, 0);
	expect_ev(&r.ev[1], "dnp", "core", "NEIGHBOUR_CORE", 2, 0);
	assert_int_equal(nbr_word(&r, ok, 0.1), 1);
	expect_ev(&r.ev[0], "sensor", "voltage", "NEIGHBOUR_VOLTAGE", 1, 0);
}

static void test_nbr_silence_and_invalid(void **state)
{
	(void)state;
	struct nbr_run r;
	nbr_start(&r);
	uint32_t ok = APENET_SET(LDM, VALID, 1);
	assert_int_equal(nbr_word(&r, ok, 0.2), 0);
	/* the word stops arriving: sick at 500 ms, broken at 2000 ms */
	assert_int_equal(nbr_word(&r, ok, 499), 0);
	assert_int_equal(nbr_word(&r, ok, 500), 1);
	expect_ev(&r.ev[0], "ldm", "ldm", "LDM_STALE", 0, 1);
	assert_true(r.ev[0].value == 500 && r.ev[0].threshold == 500);
	assert_non_null(strstr(r.ev[0].message, "its DNP is probably hung"));
	/* an old word says nothing new: its fields are not judged */
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_CORE, 2), 1000), 0);
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_CORE, 2), 2000), 1);
	expect_ev(&r.ev[0], "ldm", "ldm", "LDM_STALE", 1, 2);
	assert_true(r.ev[0].threshold == 2000);
	/* fresh again, and what it says now */
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_CORE, 2), 0.1), 2);
	expect_ev(&r.ev[0], "ldm", "ldm", "LDM_STALE", 2, 0);
	expect_ev(&r.ev[1], "dnp", "core", "NEIGHBOUR_CORE", 0, 2);
	/* invalid words: reported, their fields never guessed */
	assert_int_equal(nbr_word(&r, ok | (3u << apenet_ldm_field_lsb(APENET_LDM_F_TEMPERATURE)), 0.1), 1);
	expect_ev(&r.ev[0], "ldm", "ldm", "LDM_INVALID", 0, 1);
	assert_non_null(strstr(r.ev[0].message, "a field reads 11"));
	assert_int_equal(nbr_word(&r, 0, 0.1), 0); /* valid bit clear: still invalid */
	assert_int_equal(nbr_word(&r, ok, 0.1), 2);
	expect_ev(&r.ev[0], "ldm", "ldm", "LDM_INVALID", 1, 0);
	expect_ev(&r.ev[1], "dnp", "core", "NEIGHBOUR_CORE", 2, 0);
	/* the valid bit clear from the start is invalid too */
	assert_int_equal(nbr_word(&r, word_of(APENET_LDM_F_CORE, 1) & ~APENET_SET(LDM, VALID, 1), 0.1), 1);
	expect_ev(&r.ev[0], "ldm", "ldm", "LDM_INVALID", 0, 1);
	assert_non_null(strstr(r.ev[0].message, "valid bit is clear"));
}

static void test_nbr_link_and_partner(void **state)
{
	(void)state;
	struct nbr_run r;
	nbr_start(&r);
	uint32_t ok = APENET_SET(LDM, VALID, 1), hot = word_of(APENET_LDM_F_TEMPERATURE, 2);
	assert_int_equal(nbr_word(&r, hot, 0.1), 1);
	/* the link goes down: no word can arrive, nothing is said, the state stays */
	r.in.up = 0;
	assert_int_equal(nbr_word(&r, ok, 5000), 0);
	assert_int_equal(r.n.field[APENET_LDM_F_TEMPERATURE], 2);
	r.in.up = 1;
	assert_int_equal(nbr_word(&r, hot, 0.1), 0);
	assert_int_equal(nbr_word(&r, ok, 0.1), 1);
	expect_ev(&r.ev[0], "sensor", "temperature", "NEIGHBOUR_TEMPERATURE", 2, 0);
	/* nothing ever received */
	struct nbr_run q;
	nbr_start(&q);
	q.in.rx_count = 0;
	q.in.word = hot;
	assert_int_equal(apenet_nbr_step(&q.n, &q.in, &q.t, "X+", q.ev, APENET_NBR_MAX_EVENTS), 0);
	/* no neighbour: a loop-back cable, an external device, no identity */
	nbr_start(&q);
	q.in.partner_self = 1;
	assert_int_equal(nbr_word(&q, hot, 0.1), 0);
	q.in.partner_self = 0;
	q.in.partner_ext = 1;
	assert_int_equal(nbr_word(&q, hot, 0.1), 0);
	q.in.partner_ext = 0;
	q.in.partner_valid = 0;
	assert_int_equal(nbr_word(&q, hot, 0.1), 0);
	/* recabled: another node faces the link: followed afresh, what it
	 * says is reported as news about it */
	r.in.partner[0] = 3;
	assert_int_equal(nbr_word(&r, hot, 0.1), 1);
	assert_int_equal(r.ev[0].node[0], 3);
	assert_string_equal(r.ev[0].code, "NEIGHBOUR_TEMPERATURE");
	assert_int_equal(r.ev[0].old_status, 0);
}

/* The input taken from registers: partner, self loop, age from TIMESTAMP. */
static void test_nbr_input_of(void **state)
{
	(void)state;
	static struct apenet_view v;
	memset(&v, 0, sizeof(v));
	v.prof = apenet_profile(APENET_V_APENETP);
	v.s1.prof = v.prof;
	v.s1.nlinks = v.prof->nlinks;
	v.s1.g.TS_FREQ_HZ = 250000000;
	v.s1.g.TIMESTAMP = 1000000000;
	v.s1.g.NODE_COORD = APENET_SET(NODE_COORD, X, 1) | APENET_SET(NODE_COORD, Y, 1);
	v.s1.link[0].LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_UP);
	v.s1.link[0].LINK_PARTNER = APENET_SET(LINK_PARTNER, X, 2) | APENET_SET(LINK_PARTNER, Y, 1) |
				    APENET_SET(LINK_PARTNER, PORT, 1) | APENET_SET(LINK_PARTNER, VALID, 1);
	v.s1.link[0].LINK_LDM_RX = 0x80000040u;
	v.s1.link[0].LINK_LDM_RX_COUNT = 7;
	v.s1.link[0].LINK_LDM_RX_TS = 1000000000 - 250000; /* 1 ms ago */
	v.s1.link[4].LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_DEGRADED);
	v.s1.link[4].LINK_PARTNER = APENET_SET(LINK_PARTNER, X, 1) | APENET_SET(LINK_PARTNER, Y, 1) |
				    APENET_SET(LINK_PARTNER, VALID, 1);
	struct apenet_nbr_input in;
	apenet_nbr_input_of(&v, 0, &in);
	assert_true(in.up && in.partner_valid && !in.partner_ext && !in.partner_self);
	assert_int_equal(in.partner[0], 2);
	assert_int_equal(in.partner[1], 1);
	assert_int_equal(in.port, 1);
	assert_int_equal(in.word, 0x80000040u);
	assert_int_equal(in.rx_count, 7);
	assert_true(fabs(in.age_ms - 1.0) < 1e-9);
	apenet_nbr_input_of(&v, 4, &in);
	assert_true(in.up && in.partner_self);
	apenet_nbr_input_of(&v, 1, &in);
	assert_true(!in.up && !in.partner_valid);
}

/* ---- the watchdog ---- */

static unsigned wd(struct apenet_wd *w, int gone, uint32_t hb, uint32_t status, struct apenet_event ev[3])
{
	struct apenet_wd_input in = { gone, hb, status, 0, 100 };
	return apenet_wd_step(w, &in, ev);
}

static void test_watchdog(void **state)
{
	(void)state;
	struct apenet_wd w;
	struct apenet_event ev[3];
	apenet_wd_init(&w, 5);
	uint32_t hb = 100;
	for (int i = 0; i < 20; i++)
		assert_int_equal(wd(&w, 0, hb++, 0, ev), 0);
	/* a beat that moves every other period is alive */
	for (int i = 0; i < 20; i++)
		assert_int_equal(wd(&w, 0, hb += (uint32_t)(i & 1), 0, ev), 0);
	/* stuck: broken at the 5th period without a change, once */
	for (int i = 0; i < 4; i++)
		assert_int_equal(wd(&w, 0, hb, 0, ev), 0);
	assert_int_equal(wd(&w, 0, hb, 0, ev), 1);
	assert_string_equal(ev[0].code, "DNP_HUNG");
	assert_string_equal(ev[0].subject, "dnp");
	assert_int_equal(ev[0].path, APENET_PATH_WATCHDOG);
	assert_int_equal(ev[0].old_status, APENET_H_NORMAL);
	assert_int_equal(ev[0].new_status, APENET_H_BROKEN);
	assert_true(ev[0].value == 5 && ev[0].threshold == 5);
	assert_non_null(strstr(ev[0].evidence, "WD_DNP_HB stuck at"));
	for (int i = 0; i < 10; i++)
		assert_int_equal(wd(&w, 0, hb, 0, ev), 0);
	/* it beats again */
	assert_int_equal(wd(&w, 0, ++hb, 0, ev), 1);
	assert_string_equal(ev[0].code, "DNP_HUNG");
	assert_int_equal(ev[0].new_status, APENET_H_NORMAL);
	/* the card leaves the bus: broken once; nothing else judged meanwhile */
	assert_int_equal(wd(&w, 1, 0xffffffffu, 0xffffffffu, ev), 1);
	assert_string_equal(ev[0].code, "CARD_GONE");
	assert_string_equal(ev[0].subject, "card");
	assert_int_equal(ev[0].new_status, APENET_H_BROKEN);
	for (int i = 0; i < 10; i++)
		assert_int_equal(wd(&w, 1, 0xffffffffu, 0xffffffffu, ev), 0);
	/* back: normal; its beat is counted afresh (not hung for the gap) */
	assert_int_equal(wd(&w, 0, hb, 0, ev), 1);
	assert_string_equal(ev[0].code, "CARD_GONE");
	assert_int_equal(ev[0].new_status, APENET_H_NORMAL);
	for (int i = 0; i < 4; i++)
		assert_int_equal(wd(&w, 0, hb, 0, ev), 0);
	assert_int_equal(wd(&w, 0, hb, 0, ev), 1);
	assert_string_equal(ev[0].code, "DNP_HUNG");
	/* gone while hung, back beating: both told */
	assert_int_equal(wd(&w, 1, 0, 0, ev), 1);
	assert_int_equal(wd(&w, 0, hb + 1, 0, ev), 1);
	assert_int_equal(wd(&w, 0, hb + 2, 0, ev), 1);
	assert_string_equal(ev[0].code, "DNP_HUNG");
	assert_int_equal(ev[0].new_status, APENET_H_NORMAL);
	hb += 2;
	/* the DNP declared this host dead (the agent was stopped): sick, then normal */
	uint32_t expired = APENET_SET(WD_STATUS, HOST_EXPIRED, 1) | APENET_SET(WD_STATUS, ENABLED, 1) |
			   APENET_SET(WD_STATUS, MISSED, 4);
	assert_int_equal(wd(&w, 0, ++hb, expired, ev), 1);
	assert_string_equal(ev[0].code, "HOST_EXPIRED");
	assert_string_equal(ev[0].subject, "host");
	assert_int_equal(ev[0].new_status, APENET_H_SICK);
	assert_true(ev[0].value == 4);
	assert_non_null(strstr(ev[0].message, "after 4 missed heartbeats"));
	assert_int_equal(wd(&w, 0, ++hb, expired, ev), 0);
	assert_int_equal(wd(&w, 0, ++hb, APENET_SET(WD_STATUS, ENABLED, 1), ev), 1);
	assert_string_equal(ev[0].code, "HOST_EXPIRED");
	assert_int_equal(ev[0].new_status, APENET_H_NORMAL);
	/* everything at once: stuck, expired */
	apenet_wd_init(&w, 2);
	assert_int_equal(wd(&w, 0, 7, 0, ev), 0);
	assert_int_equal(wd(&w, 0, 7, 0, ev), 0);
	assert_int_equal(wd(&w, 0, 7, expired, ev), 2);
	assert_string_equal(ev[0].code, "DNP_HUNG");
	assert_string_equal(ev[1].code, "HOST_EXPIRED");
}

/* ---- counters that go backwards ---- */

static struct apenet_snapshot snapa, snapb;

static void snaps(void)
{
	memset(&snapa, 0, sizeof(snapa));
	snapa.prof = apenet_profile(APENET_V_APENETP);
	snapa.nlinks = snapa.prof->nlinks;
	snapa.g.TS_FREQ_HZ = 250000000;
	snapa.g.TIMESTAMP = 250000000ull * 100;
	snapa.g.UPTIME_TS = 1000;
	snapa.g.CNT_CLEAR_TS = 2000;
	for (unsigned l = 0; l < snapa.nlinks; l++) {
		snapa.link[l].LINK_TX_PKTS = 1000 + l;
		snapa.link[l].LINK_HDR_CRC_ERR = 5;
		for (unsigned k = 0; k < 4; k++)
			snapa.link[l].lane[k].LANE_CODE_VIOL = 9;
	}
	snapb = snapa;
	snapb.g.TIMESTAMP += 25000000; /* 100 ms later */
	for (unsigned l = 0; l < snapb.nlinks; l++)
		snapb.link[l].LINK_TX_PKTS += 50;
}

static void test_counter_resets(void **state)
{
	(void)state;
	struct apenet_reset r[8];
	struct apenet_event ev;
	snaps();
	assert_int_equal(apenet_counter_resets(&snapa, &snapb, r, 8), 0);
	/* a clear of everything by command: CNT_CLEAR_TS moved */
	snapb.g.CNT_CLEAR_TS = snapb.g.TIMESTAMP - 250000000ull / 20; /* 50 ms ago */
	snapb.link[0].LINK_TX_PKTS = 3;
	assert_int_equal(apenet_counter_resets(&snapa, &snapb, r, 8), 1);
	assert_int_equal(r[0].link, -1);
	assert_int_equal(r[0].cause, APENET_RESET_COMMAND);
	assert_int_equal(r[0].at_ts, snapb.g.CNT_CLEAR_TS);
	apenet_reset_event(&snapb, &r[0], &ev);
	assert_int_equal(ev.kind, APENET_EV_NOTICE);
	assert_string_equal(ev.code, "COUNTERS_CLEARED");
	assert_string_equal(ev.subject, "counters");
	assert_string_equal(ev.message, "every counter was cleared 0.1 s ago by a command; rates restart from here");
	/* a firmware reset: UPTIME_TS moved (and TIMESTAMP may restart) */
	snaps();
	snapb.g.UPTIME_TS = 5000;
	assert_int_equal(apenet_counter_resets(&snapa, &snapb, r, 8), 1);
	assert_int_equal(r[0].cause, APENET_RESET_FIRMWARE);
	apenet_reset_event(&snapb, &r[0], &ev);
	assert_string_equal(ev.code, "COUNTERS_RESET");
	assert_non_null(strstr(ev.message, "by a firmware reset"));
	snaps();
	snapb.g.TIMESTAMP = 10;
	assert_int_equal(apenet_counter_resets(&snapa, &snapb, r, 8), 1);
	assert_int_equal(r[0].cause, APENET_RESET_FIRMWARE);
	/* some links cleared: their counters went backwards, nothing else moved */
	snaps();
	snapb.link[2].LINK_HDR_CRC_ERR = 0;
	snapb.link[4].lane[3].LANE_CODE_VIOL = 1;
	assert_int_equal(apenet_counter_resets(&snapa, &snapb, r, 8), 2);
	assert_int_equal(r[0].link, 2);
	assert_int_equal(r[1].link, 4);
	assert_int_equal(r[0].cause, APENET_RESET_COMMAND);
	apenet_reset_event(&snapb, &r[0], &ev);
	assert_string_equal(ev.where, snapb.prof->links[2].name);
	assert_non_null(strstr(ev.message, "were cleared by a command"));
	assert_int_equal(apenet_counter_resets(&snapa, &snapb, r, 1), 1);
	/* across the clear, the judge sees no rate, never a negative or huge one */
	static struct apenet_view v;
	memset(&v, 0, sizeof(v));
	v.prof = snapa.prof;
	snaps();
	snapb.link[0].LINK_HDR_CRC_ERR = 1;
	v.s0 = snapa;
	v.s1 = snapb;
	struct apenet_link_stats st;
	apenet_link_stats(&v, 0, &st);
	assert_true(st.crc_events == 0 && st.crc_per_min == 0);
}

/* ---- findings -> transitions ---- */

static void test_track(void **state)
{
	(void)state;
	struct apenet_track t;
	struct apenet_findings fs;
	struct apenet_event ev[8];
	apenet_track_init(&t);
	apenet_findings_init(&fs);
	struct apenet_finding *f = apenet_finding_add(&fs, APENET_SEV_FAIL, APENET_SUBJ_LINK, 0, -1, "X+", "LINK_DOWN");
	apenet_finding_message(f, "X+ is down");
	f = apenet_finding_add(&fs, APENET_SEV_WARN, APENET_SUBJ_SENSOR, -1, -1, "fpga_temp", "FPGA_TEMP");
	apenet_finding_measure(f, 82, 80, "C");
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 2);
	assert_string_equal(ev[0].code, "LINK_DOWN");
	assert_string_equal(ev[0].subject, "link");
	assert_string_equal(ev[0].where, "X+");
	assert_int_equal(ev[0].old_status, APENET_H_NORMAL);
	assert_int_equal(ev[0].new_status, APENET_H_BROKEN);
	assert_int_equal(ev[0].path, APENET_PATH_SELF);
	assert_string_equal(ev[1].subject, "sensor");
	assert_int_equal(ev[1].new_status, APENET_H_SICK);
	assert_true(ev[1].value == 82 && ev[1].threshold == 80);
	assert_string_equal(ev[1].unit, "C");
	/* the same again: nothing */
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 0);
	/* the temperature goes to fail: sick -> broken */
	fs.f[1].sev = APENET_SEV_FAIL;
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 1);
	assert_int_equal(ev[0].old_status, APENET_H_SICK);
	assert_int_equal(ev[0].new_status, APENET_H_BROKEN);
	/* the link comes back: broken -> normal, said so */
	fs.f[0] = fs.f[1];
	fs.n = 1;
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 1);
	assert_string_equal(ev[0].code, "LINK_DOWN");
	assert_int_equal(ev[0].new_status, APENET_H_NORMAL);
	assert_string_equal(ev[0].message, "cleared: X+ is down");
	/* the same code on another link is another subject */
	f = apenet_finding_add(&fs, APENET_SEV_FAIL, APENET_SUBJ_LINK, 1, -1, "X-", "LINK_DOWN");
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 1);
	assert_string_equal(ev[0].where, "X-");
	/* the caller's room: the rest comes at the next step */
	fs.n = 0;
	assert_int_equal(apenet_track_step(&t, &fs, ev, 1), 1);
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 1);
	assert_int_equal(apenet_track_step(&t, &fs, ev, 8), 0);
	apenet_findings_free(&fs);
	apenet_track_free(&t);
}

static void test_event_json(void **state)
{
	(void)state;
	struct apenet_event ev;
	char buf[2048], line[1024];
	apenet_event_init(&ev);
	ev.node[0] = 2;
	ev.reporter[0] = 1;
	ev.boot_id = 7;
	ev.seq = 42;
	ev.time_ms = 1700000000123;
	snprintf(ev.subject, sizeof(ev.subject), "link");
	snprintf(ev.where, sizeof(ev.where), "X+");
	snprintf(ev.code, sizeof(ev.code), "LINK_DOWN");
	ev.new_status = APENET_H_BROKEN;
	snprintf(ev.message, sizeof(ev.message), "a \"quoted\" \\ line\nbreak");
	ev.path = APENET_PATH_NEIGHBOUR_LDM;
	snprintf(ev.via, sizeof(ev.via), "X-");
	int n = apenet_event_json(&ev, buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n == strlen(buf));
	assert_non_null(strstr(buf, "\"node\":\"2,0,0\",\"reporter\":\"1,0,0\",\"boot_id\":7,\"seq\":42,\"time_ms\":1700000000123"));
	assert_non_null(strstr(buf, "\"message\":\"a \\\"quoted\\\" \\\\ line\\nbreak\""));
	assert_non_null(strstr(buf, "\"old\":\"normal\",\"new\":\"broken\",\"value\":null,\"threshold\":null"));
	assert_non_null(strstr(buf, "\"lane\":null"));
	assert_non_null(strstr(buf, "\"path\":\"neighbour-ldm\",\"via\":\"X-\"}"));
	assert_null(strchr(buf, '\n'));
	assert_int_equal(apenet_event_json(&ev, buf, 40), -1);
	assert_string_equal(buf, "");
	apenet_event_line(&ev, line, sizeof(line));
	assert_non_null(strstr(line, "node 2,0,0 link X+ LINK_DOWN normal -> broken (neighbour-ldm via X-)"));
	/* numbers as %.10g; where and evidence come from outside: escaped */
	ev.value = 85.123456789012;
	ev.threshold = 80;
	ev.lane = 3;
	snprintf(ev.where, sizeof(ev.where), "X+\x1b[2J\xff");
	n = apenet_event_json(&ev, buf, sizeof(buf));
	assert_int_equal(n, (int)strlen(buf));
	assert_non_null(strstr(buf, "\"where\":\"X+\\u001b[2J\\u00ff\",\"lane\":3,\"code\":\"LINK_DOWN\""));
	assert_non_null(strstr(buf, "\"value\":85.12345679,\"threshold\":80,\"unit\":\"\""));
	const char *head = "{\"kind\":\"transition\",\"node\":\"2,0,0\",\"reporter\":";
	assert_memory_equal(buf, head, strlen(head));
}

/* ---- the black box ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Sample i of a made-up board: counters that grow, sensors that wander,
 * settings that stay, a clear of one link's counters at 150 and a firmware
 * reset at 200 (TIMESTAMP restarts), and a value that jumps by 2^63. */
static void gen(unsigned i, struct apenet_sample *s)
{
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	memset(s, 0, sizeof(*s));
	snprintf(s->bdf, sizeof(s->bdf), "0000:03:00.0");
	s->host_ms = 1700000000000ll + (int64_t)i * 100;
	s->pcie_ok = 1;
	s->pcie = (struct apenet_pcie_info){ 1, 2, 8, 2, i > 100 ? 4 : 8, i > 100, 0, 1, 0, 0, 0x62030, 0, 0x2000 };
	s->snap.prof = p;
	s->snap.nlinks = p->nlinks;
	s->snap.g.ID_MAGIC = APENET_MAGIC;
	s->snap.g.ID_VARIANT = p->id;
	s->snap.g.TS_FREQ_HZ = 250000000;
	unsigned since = i >= 200 ? i - 200 : i;
	s->snap.g.TIMESTAMP = 1000 + (uint64_t)since * 25000000;
	s->snap.g.UPTIME_TS = i >= 200 ? 1000 : 5;
	s->snap.g.GEN = 2 * i;
	s->snap.g.SENS_FPGA_TEMP = 45000 + mix(i) % 3000;
	s->snap.g.WD_DNP_HB = i;
	s->snap.g.WD_HOST_HB = i + 1;
	s->snap.g.LDM_OWN = 0x80000000u | (i % 50 == 0 ? 0x1000u : 0);
	for (unsigned l = 0; l < p->nlinks; l++) {
		struct apenet_snap_link *k = &s->snap.link[l];
		uint64_t base = l == 2 && i >= 150 ? (uint64_t)(i - 150) : (uint64_t)since;
		k->LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_UP);
		k->LINK_TX_PKTS = base * 1000 + l;
		k->LINK_TX_BYTES = base * 4096000;
		k->LINK_RX_BYTES = base * 4096000 + mix(i + l) % 100;
		k->LINK_HDR_CRC_ERR = base / 7;
		k->LINK_LDM_RX_TS = s->snap.g.TIMESTAMP - 50;
		k->LINK_STALL_CYCLES = i == 77 ? 1ull << 63 : base;
		for (unsigned n = 0; n < p->links[l].lanes; n++)
			k->lane[n].LANE_CODE_VIOL = base / 13 + n;
	}
}

static void same_sample(const struct apenet_sample *a, const struct apenet_sample *b)
{
	assert_int_equal(a->host_ms, b->host_ms);
	assert_int_equal(a->pcie_ok, b->pcie_ok);
	assert_memory_equal(&a->pcie, &b->pcie, sizeof(a->pcie));
	assert_memory_equal(a->snap.g.v, b->snap.g.v, sizeof(a->snap.g.v));
	assert_ptr_equal(a->snap.prof, b->snap.prof);
	for (unsigned l = 0; l < a->snap.prof->nlinks; l++) {
		assert_memory_equal(a->snap.link[l].v, b->snap.link[l].v, sizeof(a->snap.link[l].v));
		for (unsigned k = 0; k < a->snap.prof->links[l].lanes; k++)
			assert_memory_equal(a->snap.link[l].lane[k].v, b->snap.link[l].lane[k].v,
					    sizeof(a->snap.link[l].lane[k].v));
	}
}

static struct apenet_sample sa, sb;

/* Reads the ring back: it holds samples first..last of gen(). */
static void ring_holds(const struct apenet_bbox *b, unsigned first, unsigned last)
{
	struct apenet_bbox_iter it;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_bbox_count(b), last - first + 1);
	assert_int_equal(apenet_bbox_iter_begin(b, &it, &e), 0);
	for (unsigned i = first; i <= last; i++) {
		assert_int_equal(apenet_bbox_iter_next(&it, &sa), 1);
		gen(i, &sb);
		same_sample(&sa, &sb);
	}
	assert_int_equal(apenet_bbox_iter_next(&it, &sa), 0);
	apenet_bbox_iter_end(&it);
	gen(first, &sb);
	assert_int_equal(apenet_bbox_first_ms(b), sb.host_ms);
	gen(last, &sb);
	assert_int_equal(apenet_bbox_last_ms(b), sb.host_ms);
}

static void test_bbox_roundtrip(void **state)
{
	(void)state;
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	struct apenet_bbox b;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_bbox_init(&b, p, "0000:03:00.0", 8u << 20, 600000, 6001, &e), 0);
	for (unsigned i = 0; i < 300; i++) {
		gen(i, &sa);
		assert_int_equal(apenet_bbox_push(&b, &sa, &e), 0);
	}
	ring_holds(&b, 0, 299);
	/* the point of deltas: a sample costs far less than its 5 KB of values */
	double per = (double)b.used / 299;
	assert_true(per < 400);
	print_message("black box: %.0f bytes a sample (APEnet+: %u values)\n", per, b.nvals);
	/* a sample of another variant is refused */
	memset(&sa, 0, sizeof(sa));
	sa.snap.prof = apenet_profile(APENET_V_V5);
	assert_int_equal(apenet_bbox_push(&b, &sa, &e), -1);
	assert_non_null(strstr(e.msg, "a apenet-v5 sample in a apenet+ ring"));
	apenet_bbox_free(&b);
	/* too little memory to be a ring */
	assert_int_equal(apenet_bbox_init(&b, p, "x", 1000, 1000, 10, &e), -1);
	assert_non_null(strstr(e.msg, "fewer than 4 samples"));
}

static void test_bbox_bounds(void **state)
{
	(void)state;
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	struct apenet_bbox b, c;
	struct apenet_err e = { 0 };
	/* the span: samples 100 ms apart, 1 s kept */
	assert_int_equal(apenet_bbox_init(&b, p, "x", 1u << 20, 1000, 100, &e), 0);
	for (unsigned i = 0; i < 50; i++) {
		gen(i, &sa);
		assert_int_equal(apenet_bbox_push(&b, &sa, &e), 0);
	}
	ring_holds(&b, 39, 49);
	assert_int_equal(b.dropped_span, 39);
	apenet_bbox_free(&b);
	/* the record count */
	assert_int_equal(apenet_bbox_init(&b, p, "x", 1u << 20, 1000000, 20, &e), 0);
	for (unsigned i = 0; i < 250; i++) {
		gen(i, &sa);
		assert_int_equal(apenet_bbox_push(&b, &sa, &e), 0);
	}
	ring_holds(&b, 230, 249);
	apenet_bbox_free(&b);
	/* the bytes: a small ring wraps around its end many times and keeps
	 * what fits, always the newest */
	/* (a sample's values: the header, the registers and the tiers' stamps) */
	size_t mem = 4 * (4 + (size_t)12 * (15 + APENET_NGLOBAL + 2 + 6 * (APENET_NLINKREG + 2 + 4 * APENET_NLANEREG)));
	assert_int_equal(apenet_bbox_init(&b, p, "x", mem, 10000000, 1000, &e), 0);
	for (unsigned i = 0; i < 260; i++) {
		gen(i, &sa);
		assert_int_equal(apenet_bbox_push(&b, &sa, &e), 0);
		assert_true(b.used <= b.cap);
	}
	assert_true(b.dropped_memory > 0);
	assert_true(apenet_bbox_footprint(&b) < mem + 100000);
	ring_holds(&b, 260 - (unsigned)apenet_bbox_count(&b), 259);
	/* into a ring of another size, oldest first */
	assert_int_equal(apenet_bbox_init(&c, p, "x", 1u << 20, 100000000, 1000, &e), 0);
	assert_int_equal(apenet_bbox_copy(&c, &b, &e), 0);
	ring_holds(&c, 260 - (unsigned)apenet_bbox_count(&b), 259);
	apenet_bbox_free(&c);
	apenet_bbox_free(&b);
}

/* A dump is a snapshot document: the snapshot codec loads it, picks the pair
 * asked for, never across the firmware reset at 200. */
static void test_bbox_dump(void **state)
{
	(void)state;
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	struct apenet_bbox b;
	struct apenet_err e = { 0 };
	static struct apenet_view v;
	char *doc = NULL;
	size_t len = 0;
	unsigned n;
	assert_int_equal(apenet_bbox_init(&b, p, "0000:03:00.0", 4u << 20, 600000, 6001, &e), 0);
	for (unsigned i = 0; i < 250; i++) {
		gen(i, &sa);
		if (i == 3) {
			sa.have_modules = 1;
			sa.ee_status[1] = APENET_SET(EE_STATUS, PRESENT, 1) | APENET_SET(EE_STATUS, VALID, 1);
			sa.ee[1][0] = 0x0d;
			sa.ee[1][639] = 0x5a;
		}
		assert_int_equal(apenet_bbox_push(&b, &sa, &e), 0);
	}
	FILE *f = open_memstream(&doc, &len);
	assert_non_null(f);
	struct apenet_out *o = apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
	apenet_out_obj_begin(o, "blackbox");
	apenet_out_str(o, "reason", "test");
	apenet_out_obj_end(o);
	/* every sample of the last 2 s (20), one every 5 s before (0, 50, ..., 200) */
	assert_int_equal(apenet_bbox_dump(&b, o, 2000, 5000, &n, &e), 0);
	assert_int_equal(apenet_out_finish(o), 0);
	fclose(f);
	assert_int_equal(n, 21 + 5);
	assert_non_null(strstr(doc, "\"blackbox\": {\n    \"reason\": \"test\"\n  },"));
	/* a sample a line: the header's eight lines (the blackbox member's three), the samples, the
	 * modules' lines (six ports) and the closing ones */
	size_t lines = 0;
	for (const char *c = doc; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 3 + 3 + 2 + 15 + 1 + n + 2 + 6 + 2);
	/* the last sample and the one a second before it */
	if (apenet_snapfile_load_string("dump.json", doc, &v, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(v.nsamples, n);
	assert_int_equal(v.pair[1], n - 1);
	assert_int_equal(v.pair[0], n - 11);
	gen(249, &sb);
	assert_memory_equal(v.s1.g.v, sb.snap.g.v, sizeof(sb.snap.g.v));
	assert_int_equal(v.host_ms[1], sb.host_ms);
	gen(239, &sb);
	assert_int_equal(v.host_ms[0], sb.host_ms);
	assert_true(fabs(apenet_view_dt(&v) - 1.0) < 1e-9);
	assert_int_equal(v.pcie.sta_width, 4); /* the newest sample's PCIe */
	assert_int_equal(v.ee[1][639], 0x5a);
	assert_int_equal(v.ee_status[1] & 1, 1);
	/* --at: 4.5 s before the last is sample 200 (the reset): no interval */
	struct apenet_snapfile_pick pk = { APENET_AT_FROM_END, 4500, 1.0 };
	assert_int_equal(apenet_snapfile_load_string_pick("dump.json", doc, &pk, &v, &e), 0);
	gen(200, &sb);
	assert_int_equal(v.host_ms[1], sb.host_ms);
	assert_int_equal(v.host_ms[0], sb.host_ms);
	/* 6 s before the last: sample 150, and 1 s before it (100) is too far
	 * back in a 5 s step: the latest at least 1 s before is 100 */
	pk.at_ms = 9900;
	assert_int_equal(apenet_snapfile_load_string_pick("dump.json", doc, &pk, &v, &e), 0);
	gen(150, &sb);
	assert_int_equal(v.host_ms[1], sb.host_ms);
	gen(100, &sb);
	assert_int_equal(v.host_ms[0], sb.host_ms);
	/* an epoch time, and after the first */
	gen(50, &sb);
	pk = (struct apenet_snapfile_pick){ APENET_AT_TIME, sb.host_ms + 10, 1.0 };
	assert_int_equal(apenet_snapfile_load_string_pick("dump.json", doc, &pk, &v, &e), 0);
	assert_int_equal(v.host_ms[1], sb.host_ms);
	assert_int_equal(v.pair[1], 1);
	pk = (struct apenet_snapfile_pick){ APENET_AT_FROM_START, 0, 1.0 };
	assert_int_equal(apenet_snapfile_load_string_pick("dump.json", doc, &pk, &v, &e), 0);
	assert_int_equal(v.pair[0], 0);
	assert_int_equal(v.pair[1], 0);
	/* before the first sample: an error naming the span */
	pk = (struct apenet_snapfile_pick){ APENET_AT_TIME, 1000, 1.0 };
	assert_int_equal(apenet_snapfile_load_string_pick("dump.json", doc, &pk, &v, &e), -1);
	assert_non_null(strstr(e.msg, "no sample at or before the time asked"));
	free(doc);
	/* fewer than two samples: no dump */
	apenet_bbox_free(&b);
	assert_int_equal(apenet_bbox_init(&b, p, "x", 1u << 20, 1000, 10, &e), 0);
	gen(0, &sa);
	apenet_bbox_push(&b, &sa, &e);
	f = open_memstream(&doc, &len);
	o = apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
	assert_int_equal(apenet_bbox_dump(&b, o, 1000, 1000, &n, &e), -1);
	apenet_out_discard(o);
	fclose(f);
	free(doc);
	apenet_bbox_free(&b);
}

/* The streaming writer and the tree writer (apenet snapshot) write documents
 * that load to the same view. */
static void test_stream_same_as_tree(void **state)
{
	(void)state;
	static struct apenet_view v, a, b;
	struct apenet_err e = { 0 };
	gen(10, &sa);
	gen(20, &sb);
	sa.have_modules = 1;
	sa.ee_status[0] = APENET_SET(EE_STATUS, PRESENT, 1);
	for (unsigned i = 0; i < APENET_EE_DATA_LEN; i++)
		sa.ee[0][i] = (uint8_t)mix(i);
	apenet_view_pair(&v, &sa, &sb);
	snprintf(v.bdf, sizeof(v.bdf), "00\"00:03");
	char *t1 = NULL, *t2 = NULL;
	size_t l1 = 0, l2 = 0;
	FILE *f = open_memstream(&t1, &l1);
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, f, "snapshot");
	apenet_snapfile_write(&v, o);
	assert_int_equal(apenet_out_finish(o), 0);
	fclose(f);
	f = open_memstream(&t2, &l2);
	struct apenet_snapfile_stream st;
	o = apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
	apenet_snapfile_stream_begin(&st, o, v.bdf, v.prof, v.pcie_ok, &v.pcie, v.pcie_err);
	apenet_snapfile_stream_sample(&st, &v.s0, v.host_ms[0]);
	apenet_snapfile_stream_sample(&st, &v.s1, v.host_ms[1]);
	assert_int_equal(apenet_snapfile_stream_end(&st, v.ee_status, v.ee), 0);
	assert_int_equal(apenet_out_finish(o), 0);
	fclose(f);
	if (apenet_snapfile_load_string("tree", t1, &a, &e) || apenet_snapfile_load_string("stream", t2, &b, &e))
		fail_msg("%s", e.msg);
	assert_string_equal(a.bdf, "00\"00:03");
	assert_string_equal(a.bdf, b.bdf);
	assert_ptr_equal(a.prof, b.prof);
	assert_int_equal(a.pcie_ok, b.pcie_ok);
	assert_memory_equal(&a.pcie, &b.pcie, sizeof(a.pcie));
	assert_memory_equal(&a.s0.g, &b.s0.g, sizeof(a.s0.g));
	assert_memory_equal(&a.s1.g, &b.s1.g, sizeof(a.s1.g));
	assert_memory_equal(a.s0.link, b.s0.link, sizeof(a.s0.link));
	assert_memory_equal(a.s1.link, b.s1.link, sizeof(a.s1.link));
	assert_memory_equal(a.host_ms, b.host_ms, sizeof(a.host_ms));
	assert_memory_equal(a.ee_status, b.ee_status, sizeof(a.ee_status));
	assert_memory_equal(a.ee, b.ee, sizeof(a.ee));
	/* with a PCIe error instead */
	free(t2);
	t2 = NULL;
	f = open_memstream(&t2, &l2);
	o = apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
	apenet_snapfile_stream_begin(&st, o, "b", v.prof, 0, &v.pcie, "unreadable \"x\"");
	apenet_snapfile_stream_sample(&st, &v.s0, v.host_ms[0]);
	apenet_snapfile_stream_sample(&st, &v.s1, v.host_ms[1]);
	assert_int_equal(apenet_snapfile_stream_end(&st, NULL, NULL), 0);
	assert_int_equal(apenet_out_finish(o), 0);
	fclose(f);
	if (apenet_snapfile_load_string("stream", t2, &b, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(b.pcie_ok, 0);
	assert_string_equal(b.pcie_err, "unreadable \"x\"");
	free(t1);
	free(t2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ldm_host_word),
		cmocka_unit_test(test_ldm_host_combinations),
		cmocka_unit_test(test_ldm_host_reasons),
		cmocka_unit_test(test_nbr_fields),
		cmocka_unit_test(test_nbr_silence_and_invalid),
		cmocka_unit_test(test_nbr_link_and_partner),
		cmocka_unit_test(test_nbr_input_of),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test(test_counter_resets),
		cmocka_unit_test(test_track),
		cmocka_unit_test(test_event_json),
		cmocka_unit_test(test_bbox_roundtrip),
		cmocka_unit_test(test_bbox_bounds),
		cmocka_unit_test(test_bbox_dump),
		cmocka_unit_test(test_stream_same_as_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
