/*
 * Tests of the judging session (lofamo/judge.c) on streams of samples built
 * by hand: a healthy APEnet+ board at 1,0,0 of a 4x4x1 torus sampled every
 * 100 ms, with CRC errors, a link going down, a counter clear and a hot FPGA
 * put into the registers as a card would show them.  What is checked is what
 * the session adds to the rules (test_verdict.c): which pair judges a rate,
 * the latch, the counter clears, the rule table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "apenet/judge.h"

#define HZ 250000000ull          /* TS_FREQ_HZ */
#define PERIOD_MS 100
#define LDM_VALID (1u << 31)

static struct apenet_config CFG;
static struct apenet_sample S;  /* the sample being made (large: static) */

/* Sample i of a healthy stream: every link up and cabled as it should be,
 * traffic, the DNP's beat moving, and a clock 100 ms a sample. */
static void healthy(unsigned i)
{
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	struct apenet_snapshot *s = &S.snap;
	memset(&S, 0, sizeof(S));
	snprintf(S.bdf, sizeof(S.bdf), "0000:03:00.0");
	S.host_ms = 1700000000000ll + (int64_t)i * PERIOD_MS;
	S.pcie_ok = 1;
	S.pcie.has_pcie = 1;
	S.pcie.cap_gen = S.pcie.sta_gen = 2;
	S.pcie.cap_width = S.pcie.sta_width = 8;
	s->prof = p;
	s->nlinks = p->nlinks;
	s->g.ID_MAGIC = APENET_MAGIC;
	s->g.ID_VARIANT = APENET_V_APENETP;
	s->g.TS_FREQ_HZ = HZ;
	s->g.TIMESTAMP = 10000ull * HZ + (uint64_t)i * (HZ / 10);
	s->g.NODE_COORD = APENET_SET(NODE_COORD, X, 1);
	s->g.TORUS_DIMS = APENET_SET(TORUS_DIMS, X, 4) | APENET_SET(TORUS_DIMS, Y, 4) | APENET_SET(TORUS_DIMS, Z, 1);
	s->g.SENS_FPGA_TEMP = 55000;
	s->g.SENS_BOARD_TEMP = 40000;
	s->g.SENS_VCORE = s->g.SENS_VCORE_NOM = 900;
	s->g.SENS_V12 = 12000;
	s->g.WD_PERIOD_US = 100000;
	s->g.WD_TIMEOUT_BEATS = 3;
	s->g.WD_CTRL = APENET_SET(WD_CTRL, ENABLE, 1);
	s->g.WD_STATUS = APENET_SET(WD_STATUS, ENABLED, 1);
	s->g.WD_DNP_HB = 100000 + i;
	s->g.LDM_OWN = LDM_VALID;
	s->g.LDM_TX_COUNT = 1000 + i;
	for (unsigned l = 0; l < p->nlinks; l++) {
		struct apenet_snap_link *k = &s->link[l];
		unsigned mask = (1u << p->links[l].lanes) - 1;
		/* the neighbour across link l (X+ X- Y+ Y- Z+ Z-) and its port facing back */
		unsigned nb[3] = { 1, 0, 0 }, d = l / 2;
		nb[d] = (nb[d] + (l % 2 ? 3u : 1u)) % (d == 2 ? 1u : 4u);
		k->LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_UP) | APENET_SET(LINK_STATE, PHASE, APENET_PHASE_UP) |
				APENET_SET(LINK_STATE, LANES_UP, mask) | APENET_SET(LINK_STATE, LANES_USED, mask);
		k->LINK_CTRL = APENET_SET(LINK_CTRL, ENABLE, 1);
		k->LINK_LANE_MBPS = p->links[l].lane_mbps;
		k->LINK_FIFO_DEPTH = 1024;
		k->LINK_T_RED = 768;
		k->LINK_T_YEL = 512;
		k->LINK_CREDIT_PERIOD = 35;
		k->LINK_TX_PKTS = k->LINK_RX_PKTS = 1000000 + 100ull * i;
		k->LINK_TX_BYTES = k->LINK_RX_BYTES = 4096000000ull + 409600ull * i;
		k->LINK_LDM_RX = LDM_VALID;
		k->LINK_LDM_RX_COUNT = 5000 + i;
		k->LINK_LDM_RX_TS = s->g.TIMESTAMP - HZ / 1000;
		k->LINK_UP_TS = 2 * HZ;
		k->LINK_PARTNER = APENET_SET(LINK_PARTNER, X, nb[0]) | APENET_SET(LINK_PARTNER, Y, nb[1]) |
				  APENET_SET(LINK_PARTNER, Z, nb[2]) | APENET_SET(LINK_PARTNER, PORT, l ^ 1u) |
				  APENET_SET(LINK_PARTNER, VALID, 1);
		for (unsigned n = 0; n < p->links[l].lanes; n++)
			k->lane[n].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_UP) | APENET_SET(LANE_STATE, SIGNAL, 1);
	}
}

static int holds(const struct apenet_findings *f, const char *code)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->f[i].code, code))
			return 1;
	return 0;
}

static int setup(void **state)
{
	(void)state;
	apenet_config_defaults(&CFG);
	CFG.agent.baseline_s = 5;
	CFG.thr.clear_after_samples = 10;
	return 0;
}

/* The stream builder itself: a healthy stream holds nothing. */
static void test_healthy_stream(void **state)
{
	(void)state;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &CFG, &e), 0);
	for (unsigned i = 0; i < 100; i++) {
		healthy(i);
		const struct apenet_findings *h = apenet_judge_feed(&j, &S);
		if (h->n)
			fail_msg("sample %u: %s %s", i, h->f[0].code, h->f[0].message);
	}
	assert_int_equal(j.fed, 100);
	assert_true(j.long_dt > 4.9 && j.long_dt < 6.1); /* the baseline pair spans baseline_s */
	apenet_judge_free(&j);
}

/*
 * One CRC error every period (600/min): a 100 ms pair holds one event, which
 * proves no rate (3 at least); the baseline pair does, within a second or
 * two.  When the errors stop, the rate stays proven while the window still
 * holds them, then the latch keeps it clear_after_samples more.
 */
static void test_rate_needs_the_baseline(void **state)
{
	(void)state;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &CFG, &e), 0);
	unsigned first = 0, crc = 0, last_held = 0;
	for (unsigned i = 0; i < 300; i++) {
		healthy(i);
		if (i >= 50 && i < 150)
			crc = i - 49;
		S.snap.link[0].LINK_HDR_CRC_ERR = crc;
		const struct apenet_findings *h = apenet_judge_feed(&j, &S);
		if (holds(h, "LINK_CRC")) {
			if (!first)
				first = i;
			last_held = i;
		}
	}
	/* 3 events at least (samples 50, 51, 52), over the baseline pair,
	 * judged once a second */
	assert_true(first >= 52 && first <= 62);
	/* the errors stop at sample 150; the 5 s window holds them until about
	 * 200, the latch 10 samples more; then it clears */
	assert_true(last_held >= 190 && last_held < 230);
	apenet_judge_free(&j);

	/* without a baseline (baseline_s 0) the 100 ms pairs never prove it */
	struct apenet_config cfg = CFG;
	cfg.agent.baseline_s = 0;
	assert_int_equal(apenet_judge_init(&j, &cfg, &e), 0);
	for (unsigned i = 0; i < 300; i++) {
		healthy(i);
		S.snap.link[0].LINK_HDR_CRC_ERR = i >= 50 && i < 150 ? i - 49 : i < 50 ? 0 : 100;
		assert_false(holds(apenet_judge_feed(&j, &S), "LINK_CRC"));
	}
	apenet_judge_free(&j);
}

/* A state: raised at the first sample that shows it, held clear_after
 * samples after it is gone, then cleared. */
static void test_latch_holds_then_clears(void **state)
{
	(void)state;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &CFG, &e), 0);
	int down_at = -1, clear_at = -1;
	for (unsigned i = 0; i < 60; i++) {
		healthy(i);
		if (i == 20)
			S.snap.link[2].LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_DOWN);
		const struct apenet_findings *h = apenet_judge_feed(&j, &S);
		int down = holds(h, "LINK_DOWN");
		if (down && down_at < 0)
			down_at = (int)i;
		if (!down && down_at >= 0 && clear_at < 0)
			clear_at = (int)i;
		if (i == 20)
			assert_true(j.changes >= 1);
	}
	assert_int_equal(down_at, 20);
	assert_int_equal(clear_at, 21 + 10 - 1); /* 10 clean samples in a row: 21..30 */
	apenet_judge_free(&j);
}

/* Counters cleared between two samples: the session says so (the agent
 * reports it), and no rate is judged across the clear. */
static void test_counter_clear(void **state)
{
	(void)state;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &CFG, &e), 0);
	for (unsigned i = 0; i < 80; i++) {
		healthy(i);
		/* a large count that a clear at sample 60 takes back to zero */
		S.snap.link[0].LINK_HDR_CRC_ERR = i < 60 ? 1000000 : 0;
		if (i >= 60)
			S.snap.g.CNT_CLEAR_TS = 10000ull * HZ + 60 * (HZ / 10) - HZ / 20;
		const struct apenet_findings *h = apenet_judge_feed(&j, &S);
		if (i == 60)
			assert_true(j.nresets >= 1);
		else
			assert_int_equal(j.nresets, 0);
		assert_false(holds(h, "LINK_CRC"));
		if (i == 60)
			assert_int_equal(j.base_n, 1); /* the ring starts over from the clear */
	}
	apenet_judge_free(&j);
}

/* A hot FPGA: held until it is back past the clear margin (LEVEL), not as
 * soon as it dips under the warning threshold. */
static void test_sensor_level(void **state)
{
	(void)state;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &CFG, &e), 0);
	double warn = CFG.thr.fpga_temp_warn_c, margin = CFG.thr.temp_clear_margin_c;
	assert_true(margin > 0.5);
	unsigned i = 0;
	for (; i < 5; i++) {
		healthy(i);
		S.snap.g.SENS_FPGA_TEMP = (uint64_t)((warn + 3) * 1000);
		assert_true(holds(apenet_judge_feed(&j, &S), "FPGA_TEMP"));
	}
	/* under the threshold but within the margin: still held, whatever the count */
	for (; i < 40; i++) {
		healthy(i);
		S.snap.g.SENS_FPGA_TEMP = (uint64_t)((warn - margin / 2) * 1000);
		assert_true(holds(apenet_judge_feed(&j, &S), "FPGA_TEMP"));
	}
	/* past the margin: clear_after_samples later it is gone */
	unsigned gone = 0;
	for (; i < 70 && !gone; i++) {
		healthy(i);
		S.snap.g.SENS_FPGA_TEMP = (uint64_t)((warn - margin - 1) * 1000);
		if (!holds(apenet_judge_feed(&j, &S), "FPGA_TEMP"))
			gone = i;
	}
	assert_int_equal(gone, 40 + 10 - 1);
	apenet_judge_free(&j);
}

/* The table: rates, owners, levels; a state has no row. */
static void test_rule_table(void **state)
{
	(void)state;
	assert_true(apenet_judge_flags("LINK_CRC") & APENET_RULE_RATE);
	assert_true(apenet_judge_flags("LINK_FLAPPING") & APENET_RULE_RATE);
	assert_false(apenet_judge_flags("LINK_CRC") & APENET_RULE_OWNED);
	assert_true(apenet_judge_flags("DNP_HUNG") & APENET_RULE_OWNED);
	assert_string_equal(apenet_judge_rule("DNP_HUNG")->owner, "watchdog");
	assert_string_equal(apenet_judge_rule("LDM_STALE")->owner, "neighbour");
	assert_true(apenet_judge_flags("FPGA_TEMP") & APENET_RULE_LEVEL);
	assert_true(apenet_judge_flags("LANE_CODE_ERRORS") & APENET_RULE_SECOND);
	assert_false(apenet_judge_flags("LINK_CRC") & APENET_RULE_SECOND);
	assert_null(apenet_judge_rule("LINK_DOWN"));
	assert_int_equal(apenet_judge_flags("NO_SUCH_CODE"), 0);
}

/*
 * The agent's tiered samples (apenet/tiers.h): lane registers read once a
 * second, stamped with ts_second, carried between.  Lane 2 of Z+ takes 6000
 * code violations a minute (10 a period: a 100 ms pair proves it).  Judged on the short pairs alone (no baseline)
 * and with a latch of 2, a full stream holds LANE_CODE_ERRORS from its
 * first second on; the tiered stream must too, at the same rate (over the
 * second tier's own interval), not nine periods in ten silent.
 */
static void lane_errors(unsigned i, int tiered)
{
	healthy(i);
	unsigned r = tiered ? i / 10 * 10 : i; /* the sample the lanes were last read at */
	struct apenet_snap_link *k = &S.snap.link[4];
	k->lane[2].LANE_CODE_VIOL = i >= 20 ? 10 * (uint64_t)(r - 20) : 0;
	if (i >= 20 && r < 20)
		k->lane[2].LANE_CODE_VIOL = 0;
	k->ts_second = S.snap.g.TIMESTAMP - (uint64_t)(i - r) * (HZ / 10);
}

static void test_second_tier(void **state)
{
	(void)state;
	struct apenet_config cfg = CFG;
	cfg.agent.baseline_s = 0;
	cfg.thr.clear_after_samples = 2;
	cfg.thr.lane_errors_warn_per_min = 60;
	double rate[2] = { 0, 0 };
	unsigned first[2] = { 0, 0 }, held[2] = { 0, 0 };
	for (int tiered = 0; tiered < 2; tiered++) {
		struct apenet_judge j;
		struct apenet_err e = { 0 };
		assert_int_equal(apenet_judge_init(&j, &cfg, &e), 0);
		for (unsigned i = 0; i < 200; i++) {
			lane_errors(i, tiered);
			const struct apenet_findings *h = apenet_judge_feed(&j, &S);
			for (size_t n = 0; n < h->n; n++)
				if (!strcmp(h->f[n].code, "LANE_CODE_ERRORS")) {
					assert_int_equal(h->f[n].link, 4);
					assert_int_equal(h->f[n].lane, 2);
					if (!first[tiered])
						first[tiered] = i;
					if (i >= 50)
						held[tiered]++;
					rate[tiered] = h->f[n].value;
				}
		}
		apenet_judge_free(&j);
	}
	print_message("lane errors: full from sample %u at %.0f/min, tiered from %u at %.0f/min\n", first[0], rate[0],
		      first[1], rate[1]);
	assert_true(first[0] >= 20 && first[0] <= 25);
	assert_true(first[1] >= 20 && first[1] <= 40); /* within the second after */
	assert_int_equal(held[0], 150);
	assert_int_equal(held[1], 150);                  /* every sample, not one in ten */
	assert_true(rate[0] > 5000 && rate[0] < 7000);
	assert_true(rate[1] > 5000 && rate[1] < 7000);     /* over the tier's second, not 100 ms */
}

/* prime: a command's first sample is the reference of its pair, not judged
 * alone; the pair that follows is (primed, fed). */
static void test_prime(void **state)
{
	(void)state;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &CFG, &e), 0);
	healthy(0);
	S.snap.link[1].LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_DOWN);
	apenet_judge_prime(&j, &S);
	assert_int_equal(j.fed, 0);
	assert_null(apenet_judge_last(&j));
	healthy(10);
	const struct apenet_findings *h = apenet_judge_feed(&j, &S);
	assert_false(holds(h, "LINK_DOWN")); /* the primed sample was not judged alone */
	assert_true(j.vshort->host_ms[1] - j.vshort->host_ms[0] == 10 * PERIOD_MS);
	assert_ptr_equal(apenet_judge_last(&j), apenet_judge_slot(&j) == j.slot[0] ? j.slot[1] : j.slot[0]);
	apenet_judge_free(&j);
}

/* A reload: a new clear count at once, a new window starts the ring over. */
static void test_reconfigure(void **state)
{
	(void)state;
	struct apenet_config cfg = CFG;
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_judge_init(&j, &cfg, &e), 0);
	for (unsigned i = 0; i < 30; i++) {
		healthy(i);
		apenet_judge_feed(&j, &S);
	}
	assert_true(j.base_n >= 3);
	cfg.thr.clear_after_samples = 3;
	assert_int_equal(apenet_judge_reconfigure(&j, &e), 0);
	assert_int_equal(j.latch.clear_after, 3);
	assert_true(j.base_n >= 3); /* same window: the ring stays */
	cfg.agent.baseline_s = 20;
	assert_int_equal(apenet_judge_reconfigure(&j, &e), 0);
	assert_int_equal(j.base_n, 0);
	assert_int_equal(j.base_cap, 22);
	apenet_judge_free(&j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_stream),
		cmocka_unit_test(test_rate_needs_the_baseline),
		cmocka_unit_test(test_latch_holds_then_clears),
		cmocka_unit_test(test_counter_clear),
		cmocka_unit_test(test_sensor_level),
		cmocka_unit_test(test_rule_table),
		cmocka_unit_test(test_second_tier),
		cmocka_unit_test(test_prime),
		cmocka_unit_test(test_reconfigure),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
