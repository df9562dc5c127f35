/*
 * Tests of the local fault rules (lofamo/verdict.c) on board views built by
 * hand: no emulator, just register values in two snapshots an interval
 * apart, as a real card would show them.
 *
 * Each rule is driven to just below, at and above its threshold (rates come
 * from counter deltas over the TIMESTAMP interval), and its finding is
 * checked for severity, code and a recommendation that names the right link,
 * lane and neighbour.  Expected neighbours, link-model bounds and texts are
 * worked out here from SPEC §2 and the torus geometry, not read back from the
 * code under test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/verdict.h"

#define HZ 250000000ull           /* TS_FREQ_HZ */
#define T1 (10000ull * HZ)        /* s1's TIMESTAMP: 10000 s after the firmware reset */
#define MS(x) ((uint64_t)(x) * (HZ / 1000))
#define LDM_VALID (1u << 31)      /* SPEC §3 */

static struct apenet_view V;      /* the view under test (large: static) */
static struct apenet_config CFG;  /* thresholds: the defaults */

/* ---- building views ---- */

/* The torus neighbour of an APEnet+ link, worked out from the link order of
 * SPEC §1 (X+ X- Y+ Y- Z+ Z-): dimension l/2, step +1 for even l, and the
 * port facing back is the other link of the pair. */
static void ap_neighbour(const unsigned me[3], const unsigned dims[3], unsigned l, unsigned out[3],
			 unsigned *port, int *wrap)
{
	unsigned d = l / 2;
	int step = l % 2 ? -1 : 1;
	memcpy(out, me, 3 * sizeof(unsigned));
	out[d] = (unsigned)(((int)me[d] + step + (int)dims[d]) % (int)dims[d]);
	*port = l ^ 1u;
	*wrap = step > 0 ? me[d] + 1 == dims[d] : me[d] == 0;
}

static uint32_t coord(const unsigned c[3])
{
	return APENET_SET(NODE_COORD, X, c[0]) | APENET_SET(NODE_COORD, Y, c[1]) | APENET_SET(NODE_COORD, Z, c[2]);
}

static uint32_t partner(const unsigned c[3], unsigned port)
{
	return APENET_SET(LINK_PARTNER, X, c[0]) | APENET_SET(LINK_PARTNER, Y, c[1]) |
	       APENET_SET(LINK_PARTNER, Z, c[2]) | APENET_SET(LINK_PARTNER, PORT, port) |
	       APENET_SET(LINK_PARTNER, VALID, 1);
}

static uint32_t link_state(unsigned state, unsigned phase, unsigned up, unsigned used)
{
	return APENET_SET(LINK_STATE, STATE, state) | APENET_SET(LINK_STATE, PHASE, phase) |
	       APENET_SET(LINK_STATE, LANES_UP, up) | APENET_SET(LINK_STATE, LANES_USED, used);
}

/* Sets the interval: s0 is dt seconds before s1, the DNP heartbeat moved
 * once per 100 ms period. */
static void set_dt(struct apenet_view *v, double dt)
{
	v->s0.g.TIMESTAMP = v->s1.g.TIMESTAMP - (uint64_t)(dt * (double)HZ);
	v->s0.g.WD_DNP_HB = v->s1.g.WD_DNP_HB - (uint64_t)(dt * 10);
}

/* A healthy board of the variant at me in a torus of dims, every link up on
 * all its lanes and cabled to the neighbour it should face (APEnet+), an
 * interval of dt seconds. */
static void make_view(struct apenet_view *v, enum apenet_variant var, unsigned x, unsigned y, unsigned z,
		      unsigned dx, unsigned dy, unsigned dz, double dt)
{
	const unsigned me[3] = { x, y, z }, dims[3] = { dx, dy, dz };
	struct apenet_snapshot *s = &v->s1;
	memset(v, 0, sizeof(*v));
	v->prof = apenet_profile(var);
	assert_non_null(v->prof);
	s->prof = v->prof;
	s->nlinks = v->prof->nlinks;
	s->g.ID_MAGIC = APENET_MAGIC;
	s->g.ID_VARIANT = var;
	s->g.TS_FREQ_HZ = HZ;
	s->g.TIMESTAMP = T1;
	s->g.UPTIME_TS = 0;
	s->g.CNT_CLEAR_TS = 0;
	s->g.NODE_COORD = coord(me);
	s->g.TORUS_DIMS = APENET_SET(TORUS_DIMS, X, dx) | APENET_SET(TORUS_DIMS, Y, dy) | APENET_SET(TORUS_DIMS, Z, dz);
	s->g.SENS_FPGA_TEMP = 55000;
	s->g.SENS_BOARD_TEMP = 40000;
	s->g.SENS_VCORE = 900;
	s->g.SENS_VCORE_NOM = 900;
	s->g.SENS_V12 = 12000;
	s->g.WD_PERIOD_US = 100000;
	s->g.WD_TIMEOUT_BEATS = 3;
	s->g.WD_CTRL = APENET_SET(WD_CTRL, ENABLE, 1);
	s->g.WD_STATUS = APENET_SET(WD_STATUS, ENABLED, 1);
	s->g.WD_DNP_HB = 100000;
	s->g.LDM_OWN = LDM_VALID;
	s->g.LDM_TX_COUNT = 123456;
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		struct apenet_snap_link *k = &s->link[l];
		const struct apenet_link_profile *lp = &v->prof->links[l];
		unsigned mask = (1u << lp->lanes) - 1;
		k->LINK_STATE = link_state(APENET_LINK_UP, APENET_PHASE_UP, mask, mask);
		k->LINK_CTRL = APENET_SET(LINK_CTRL, ENABLE, 1);
		k->LINK_LANE_MBPS = lp->lane_mbps;
		k->LINK_FIFO_DEPTH = 1024;
		k->LINK_T_RED = 768;
		k->LINK_T_YEL = 512;
		k->LINK_CREDIT_PERIOD = 35;
		k->LINK_FIFO_HWM0 = 100;
		k->LINK_FIFO_HWM1 = 200;
		k->LINK_TX_PKTS = k->LINK_RX_PKTS = 1000000;
		k->LINK_TX_BYTES = k->LINK_RX_BYTES = 4096000000ull;
		k->LINK_LDM_RX = LDM_VALID;
		k->LINK_LDM_RX_COUNT = 5000;
		k->LINK_LDM_RX_TS = T1 - MS(1);
		k->LINK_UP_TS = MS(2000);
		for (unsigned n = 0; n < lp->lanes; n++)
			k->lane[n].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_UP) |
						APENET_SET(LANE_STATE, SIGNAL, 1);
		if (var == APENET_V_APENETP) {
			unsigned nb[3], port;
			int wrap;
			ap_neighbour(me, dims, l, nb, &port, &wrap);
			k->LINK_PARTNER = partner(nb, port);
		}
	}
	v->s0 = v->s1;
	set_dt(v, dt);
}

/* ---- checking verdicts ---- */

static const char *sev_s(enum apenet_sev s)
{
	return s == APENET_SEV_FAIL ? "FAIL" : s == APENET_SEV_WARN ? "WARN" : "OK";
}

static void free_findings(struct apenet_findings *fs)
{
	apenet_findings_free(fs);
}
/* A findings list freed when it goes out of scope. */
#define FINDINGS(x) __attribute__((cleanup(free_findings))) struct apenet_findings x = { 0 }

static void dump(const struct apenet_findings *out)
{
	long at;
	enum apenet_sev w = apenet_findings_worst(out, &at);
	print_message("verdict %s %s\n", sev_s(w), at >= 0 ? out->f[at].code : "OK");
	for (size_t i = 0; i < out->n; i++)
		print_message("  [%zu] %s %s: %s; %s [%s]\n", i, sev_s(out->f[i].sev), out->f[i].code, out->f[i].message,
			      out->f[i].rec, out->f[i].evidence);
}

static const struct apenet_finding *find(const struct apenet_findings *out, const char *code)
{
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->f[i].code, code))
			return &out->f[i];
	return NULL;
}

/* The findings have code at severity sev whose message, recommendation or
 * evidence hold every string of the NULL-terminated list. */
static void expect(const struct apenet_findings *out, enum apenet_sev sev, const char *code, ...)
{
	const struct apenet_finding *f = find(out, code);
	if (!f) {
		dump(out);
		fail_msg("no %s finding", code);
	}
	if (f->sev != sev) {
		dump(out);
		fail_msg("%s is %s, expected %s", code, sev_s(f->sev), sev_s(sev));
	}
	char text[1000];
	snprintf(text, sizeof(text), "%s; %s [%s]", f->message, f->rec, f->evidence);
	va_list ap;
	va_start(ap, code);
	for (const char *want; (want = va_arg(ap, const char *));) {
		if (!strstr(text, want)) {
			dump(out);
			va_end(ap);
			fail_msg("%s text lacks \"%s\": %s", code, want, text);
		}
	}
	va_end(ap);
}

static void expect_none(const struct apenet_findings *out, const char *code)
{
	if (find(out, code)) {
		dump(out);
		fail_msg("unexpected %s finding", code);
	}
}

static void expect_ok(const struct apenet_findings *out)
{
	if (out->n) {
		dump(out);
		fail_msg("expected no finding");
	}
}

/* The verdict's headline is the worst finding's (the first of equals). */
static void expect_head(const struct apenet_findings *out, enum apenet_sev sev, const char *code)
{
	long at;
	enum apenet_sev w = apenet_findings_worst(out, &at);
	if (w != sev || at < 0 || strcmp(out->f[at].code, code)) {
		dump(out);
		fail_msg("expected the verdict %s %s", sev_s(sev), code);
	}
}

static void run_link(unsigned l, const struct apenet_config *cfg, struct apenet_link_stats *st,
		     struct apenet_findings *out)
{
	apenet_findings_clear(out);
	apenet_link_stats(&V, l, st);
	apenet_rules_link(&V, l, st, cfg, out);
}

static void board(struct apenet_findings *out)
{
	apenet_findings_clear(out);
	apenet_rules_board(&V, &CFG, NULL, out);
}

static void label(const unsigned c[3], char *buf, size_t n)
{
	snprintf(buf, n, "node %u,%u,%u", c[0], c[1], c[2]);
}

static int setup(void **state)
{
	(void)state;
	apenet_config_defaults(&CFG);
	return 0;
}

/* ---- the link model bound SPEC §2 gives a link ---- */

static double spec_bound_MBps(unsigned lanes, double mbps, unsigned fifo_words, unsigned c)
{
	const double smax = 4096, p = 64, word = 16, w = 145;
	double t_red = (fifo_words * word - smax) / word; /* cycles */
	double x = floor(t_red / (smax / word)) * (smax / word);
	double et = smax / (p + smax) * ((double)c / (c + 2)) * (x / (x + w));
	return lanes * mbps * 0.8 / 8 * et;
}

/* ======== tests ======== */

static void test_profile_assumptions(void **state)
{
	(void)state;
	/* ap_neighbour relies on the APEnet+ link order of SPEC §1 */
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	static const char *const names[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };
	assert_int_equal(p->nlinks, 6);
	for (unsigned l = 0; l < 6; l++) {
		assert_string_equal(p->links[l].name, names[l]);
		assert_int_equal(p->links[l].lanes, 4);
		assert_int_equal(p->links[l].lane_mbps, 7000);
		assert_int_equal(p->links[l].enc, APENET_ENC_8B10B);
	}
}

static void test_healthy_everywhere(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	/* every node of QUonG's 4x4x1 torus, every link: nothing to say */
	for (unsigned y = 0; y < 4; y++)
		for (unsigned x = 0; x < 4; x++) {
			make_view(&V, APENET_V_APENETP, x, y, 0, 4, 4, 1, 1.0);
			for (unsigned l = 0; l < 6; l++) {
				run_link(l, &CFG, &st, &out);
				assert_true(st.expect_valid);
				expect_ok(&out);
			}
			board(&out);
			expect_ok(&out);
		}
	/* the same with a cluster layout that closes every ring */
	struct apenet_config cfg = CFG;
	cfg.cl.have = 1;
	cfg.cl.dims[0] = 4, cfg.cl.dims[1] = 4, cfg.cl.dims[2] = 1;
	make_view(&V, APENET_V_APENETP, 3, 3, 0, 4, 4, 1, 1.0);
	for (unsigned l = 0; l < 6; l++) {
		run_link(l, &cfg, &st, &out);
		expect_ok(&out);
	}
}

static void test_stats_rates_and_bound(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 2.0);
	struct apenet_snap_link *a = &V.s0.link[0], *b = &V.s1.link[0];
	b->LINK_TX_BYTES = a->LINK_TX_BYTES + 3000000000ull;
	b->LINK_RX_BYTES = a->LINK_RX_BYTES + 2000000000ull;
	b->LINK_TX_PKTS = a->LINK_TX_PKTS + 800000;
	b->LINK_RX_PKTS = a->LINK_RX_PKTS + 500000;
	apenet_link_stats(&V, 0, &st);
	assert_true(st.dt == 2.0);
	assert_true(st.tx_Bps == 1.5e9);
	assert_true(st.rx_Bps == 1.0e9);
	assert_true(st.tx_pps == 400000);
	assert_true(st.rx_pps == 250000);
	assert_int_equal(st.state, APENET_LINK_UP);
	assert_int_equal(st.lanes_up, 0xf);
	assert_int_equal(st.lanes_used, 0xf);
	assert_int_equal(st.nlanes, 4);
	/* 4 lanes x 7 Gbps, 16 KB FIFO, C = 35: the SPEC's 2193.7 MB/s */
	double bound = spec_bound_MBps(4, 7000, 1024, 35);
	assert_true(fabs(bound - 2193.7) < 0.05);
	assert_true(fabs(st.max_MBps - bound) < 1e-6);
	assert_true(fabs(st.util - 1e9 / (bound * 1e6)) < 1e-9);

	/* three lanes up: three quarters of it */
	b->LINK_STATE = link_state(APENET_LINK_DEGRADED, APENET_PHASE_UP, 0xd, 0xf);
	apenet_link_stats(&V, 0, &st);
	assert_true(fabs(st.max_MBps - spec_bound_MBps(3, 7000, 1024, 35)) < 1e-6);

	/* counters that went backwards (cleared in between) give 0, not 2^64 */
	a->LINK_TX_BYTES = b->LINK_TX_BYTES + 1;
	a->LINK_HDR_CRC_ERR = 1000;
	b->LINK_HDR_CRC_ERR = 3;
	a->LINK_DOWN_EVENTS = 9;
	b->LINK_DOWN_EVENTS = 0;
	a->LINK_PAYLOAD_ERR = 7;
	a->lane[1].LANE_CODE_VIOL = 50;
	apenet_link_stats(&V, 0, &st);
	assert_true(st.tx_Bps == 0);
	assert_true(st.crc_per_min == 0);
	assert_true(st.payload_per_min == 0);
	assert_int_equal(st.down_delta, 0);
	assert_true(st.lane_err_per_min[1] == 0);

	/* no interval (one sample): no rates at all */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s0 = V.s1;
	V.s1.link[0].LINK_HDR_CRC_ERR = 5;
	apenet_link_stats(&V, 0, &st);
	assert_true(st.dt == 0);
	assert_true(st.crc_per_min == 0);
}

static void test_expected_partner_apenetp(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	static const unsigned tori[][3] = { { 4, 4, 1 }, { 3, 2, 2 }, { 2, 1, 5 } };
	for (unsigned t = 0; t < 3; t++) {
		const unsigned *d = tori[t];
		for (unsigned z = 0; z < d[2]; z++)
			for (unsigned y = 0; y < d[1]; y++)
				for (unsigned x = 0; x < d[0]; x++) {
					const unsigned me[3] = { x, y, z };
					make_view(&V, APENET_V_APENETP, x, y, z, d[0], d[1], d[2], 1.0);
					for (unsigned l = 0; l < 6; l++) {
						unsigned nb[3], port;
						int wrap;
						ap_neighbour(me, d, l, nb, &port, &wrap);
						apenet_link_stats(&V, l, &st);
						assert_true(st.expect_valid);
						if (memcmp(st.expect, nb, sizeof(nb)) || st.expect_port != port)
							fail_msg("%ux%ux%u node %u,%u,%u link %u: expects %u,%u,%u port %u, "
								 "should be %u,%u,%u port %u", d[0], d[1], d[2], x, y, z, l,
								 st.expect[0], st.expect[1], st.expect[2], st.expect_port,
								 nb[0], nb[1], nb[2], port);
						assert_int_equal(st.expect_wrap, wrap);
						assert_int_equal(st.expect_dim, (int)l / 2);
						/* the partner register says the same */
						assert_true(st.partner_valid);
						assert_false(st.partner_ext);
						assert_memory_equal(st.partner, nb, sizeof(nb));
						assert_int_equal(st.partner_port, port);
					}
				}
	}
	/* the cases spelled out: X+ of 3,0,0 in 4x4x1 closes the ring at 0,0,0 X- */
	make_view(&V, APENET_V_APENETP, 3, 0, 0, 4, 4, 1, 1.0);
	apenet_link_stats(&V, 0, &st);
	assert_int_equal(st.expect[0], 0);
	assert_int_equal(st.expect[1], 0);
	assert_int_equal(st.expect[2], 0);
	assert_int_equal(st.expect_port, 1);
	assert_true(st.expect_wrap);
	/* Z+ of any node of a 4x4x1: itself, port Z- */
	for (unsigned x = 0; x < 4; x++) {
		make_view(&V, APENET_V_APENETP, x, 2, 0, 4, 4, 1, 1.0);
		apenet_link_stats(&V, 4, &st);
		assert_int_equal(st.expect[0], x);
		assert_int_equal(st.expect[1], 2);
		assert_int_equal(st.expect[2], 0);
		assert_int_equal(st.expect_port, 5);
		assert_true(st.expect_wrap);
		assert_int_equal(st.expect_dim, 2);
	}
}

static void test_expected_partner_v5_and_ext(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	/* v5: one channel per dimension, nodes paired 2k <-> 2k+1, the same
	 * channel facing back; in 3x1x1 node 2 has no pair, nor has anyone
	 * in Y or Z */
	for (unsigned x = 0; x < 3; x++) {
		make_view(&V, APENET_V_V5, x, 0, 0, 3, 1, 1, 1.0);
		apenet_link_stats(&V, 0, &st);
		if (x == 2) {
			assert_false(st.expect_valid);
		} else {
			assert_true(st.expect_valid);
			assert_int_equal(st.expect[0], x ^ 1u);
			assert_int_equal(st.expect[1], 0);
			assert_int_equal(st.expect[2], 0);
			assert_int_equal(st.expect_port, 0);
			assert_false(st.expect_wrap);
		}
		for (unsigned l = 1; l < 3; l++) {
			apenet_link_stats(&V, l, &st);
			assert_false(st.expect_valid);
		}
	}
	make_view(&V, APENET_V_V5, 2, 1, 0, 4, 2, 2, 1.0);
	static const unsigned want[3][3] = { { 3, 1, 0 }, { 2, 0, 0 }, { 2, 1, 1 } };
	for (unsigned l = 0; l < 3; l++) {
		apenet_link_stats(&V, l, &st);
		assert_true(st.expect_valid);
		assert_memory_equal(st.expect, want[l], sizeof(want[l]));
		assert_int_equal(st.expect_port, l);
		assert_int_equal(st.expect_dim, (int)l);
	}
	/* NaNet-1: the GbE and APElink2 channels go to external devices */
	make_view(&V, APENET_V_NANET1, 1, 0, 0, 4, 1, 1, 1.0);
	apenet_link_stats(&V, 0, &st);
	assert_false(st.expect_valid);
	apenet_link_stats(&V, 3, &st);
	assert_false(st.expect_valid);
	apenet_link_stats(&V, 1, &st); /* APElink0 goes X+ */
	assert_true(st.expect_valid);
	assert_int_equal(st.expect[0], 2);
	assert_int_equal(st.expect_port, 2); /* APElink1, the X- one */
}

static void test_link_down(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	char nb[64];
	/* X+ of 1,0,0 in 4x4x1 is down: the cable to 2,0,0 */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[0].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	V.s1.link[0].LINK_PARTNER = 0;
	run_link(0, &CFG, &st, &out);
	label((const unsigned[3]){ 2, 0, 0 }, nb, sizeof(nb));
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "X+", nb, NULL);
	expect_head(&out, APENET_SEV_FAIL, "LINK_DOWN");
	assert_string_equal(nb, "node 2,0,0");
	/* a down link says nothing about stale LDMs or FIFOs */
	V.s1.link[0].LINK_LDM_RX_TS = T1 - MS(5000);
	V.s1.link[0].LINK_FIFO_HWM0 = 768;
	run_link(0, &CFG, &st, &out);
	assert_int_equal(out.n, 1u);

	/* the same with node names from the config */
	struct apenet_node_name names[] = { { "quong02", 1, 0, 0 }, { "quong03", 2, 0, 0 } };
	struct apenet_config cfg = CFG;
	cfg.cl.nodes = names;
	cfg.cl.nnodes = 2;
	run_link(0, &cfg, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "X+", "node quong03 (2,0,0)", NULL);

	/* the X- link of the same node faces 0,0,0 */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[1].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	run_link(1, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "X-", "node 0,0,0", NULL);
	/* an external channel down: NaNet-1's GbE */
	make_view(&V, APENET_V_NANET1, 0, 0, 0, 2, 1, 1, 1.0);
	V.s1.link[0].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0x1);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "GbE", "external device", NULL);
}

static void test_link_down_at_open_edge(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	struct apenet_config cfg = CFG;
	cfg.cl.have = 1;
	cfg.cl.dims[0] = 4, cfg.cl.dims[1] = 4, cfg.cl.dims[2] = 1;
	cfg.cl.wrap[0] = 0; /* no wraparound cable in X */
	cfg.cl.wrap[1] = cfg.cl.wrap[2] = 1;

	/* X+ of 3,0,0 sits at the open edge: down is fine */
	make_view(&V, APENET_V_APENETP, 3, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[0].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	V.s1.link[0].LINK_PARTNER = 0;
	run_link(0, &cfg, &st, &out);
	expect_ok(&out);
	/* without a layout every ring is closed: it should be cabled to 0,0,0 */
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "X+", "node 0,0,0", NULL);
	/* the layout's wraparound counts only when a layout was given */
	struct apenet_config nolayout = CFG;
	nolayout.cl.wrap[0] = 0;
	run_link(0, &nolayout, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "node 0,0,0", NULL);
	/* a layout that closes X wants the cable too */
	cfg.cl.wrap[0] = 1;
	run_link(0, &cfg, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "node 0,0,0", NULL);
	cfg.cl.wrap[0] = 0;
	/* X- of the same node is inside the chain: down is a fault */
	V.s1.link[1].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	run_link(1, &cfg, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "X-", "node 2,0,0", NULL);
	/* the other end of the open chain */
	make_view(&V, APENET_V_APENETP, 0, 2, 0, 4, 4, 1, 1.0);
	V.s1.link[1].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	V.s1.link[1].LINK_PARTNER = 0;
	run_link(1, &cfg, &st, &out);
	expect_ok(&out);
	/* Y wraps in this layout: Y- of 0,0,0 must be cabled to 0,3,0 */
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[3].LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	run_link(3, &cfg, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_DOWN", "Y-", "node 0,3,0", NULL);

	/* a cable found at the open edge is unexpected */
	make_view(&V, APENET_V_APENETP, 3, 0, 0, 4, 4, 1, 1.0);
	run_link(0, &cfg, &st, &out);
	expect(&out, APENET_SEV_WARN, "LINK_UNEXPECTED", "X+", "node 0,0,0", "expects no cable", NULL);
	expect_none(&out, "LINK_MISCABLED");
}

static void test_link_training(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	/* Y+ of 1,0,0: lane 2 stuck in CHECK ALIGN, 7 restarts */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	struct apenet_snap_link *k = &V.s1.link[2];
	k->LINK_STATE = link_state(APENET_LINK_TRAINING, APENET_PHASE_CHECK_ALIGN, 0, 0xf);
	k->lane[0].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_DESKEW) | APENET_SET(LANE_STATE, SIGNAL, 1);
	k->lane[1].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_DESKEW) | APENET_SET(LANE_STATE, SIGNAL, 1);
	k->lane[2].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_CHECK_ALIGN) | APENET_SET(LANE_STATE, SIGNAL, 1);
	k->lane[3].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_ALIGN_OK) | APENET_SET(LANE_STATE, SIGNAL, 1);
	k->lane[2].LANE_ALIGN_RESTARTS = 7;
	k->lane[3].LANE_ALIGN_RESTARTS = 1;
	run_link(2, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_TRAINING", "Y+", "lane 2 ", "check-align", "7 alignment restarts",
	       "node 1,1,0", NULL);
	expect_head(&out, APENET_SEV_FAIL, "LINK_TRAINING");

	/* of two lanes equally behind, the first is named */
	k->lane[1].LANE_STATE = k->lane[2].LANE_STATE;
	run_link(2, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_TRAINING", "lane 1 ", "check-align", NULL);
	/* the lane furthest behind is named: lane 0 back in reset */
	k->lane[0].LANE_STATE = APENET_SET(LANE_STATE, PHASE, APENET_PHASE_RESET);
	k->lane[0].LANE_ALIGN_RESTARTS = 2;
	run_link(2, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_TRAINING", "lane 0 ", "reset", "2 alignment restarts", NULL);
}

static void test_link_degraded(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	char bw[64];
	/* X- of 1,0,0 up on lanes 0, 1, 3 */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[1].LINK_STATE = link_state(APENET_LINK_DEGRADED, APENET_PHASE_UP, 0xb, 0xf);
	run_link(1, &CFG, &st, &out);
	snprintf(bw, sizeof(bw), "%.0f MB/s", spec_bound_MBps(3, 7000, 1024, 35));
	expect(&out, APENET_SEV_FAIL, "LINK_DEGRADED", "X-", "3 of 4 lanes", "lane 2 down", bw, "node 0,0,0", NULL);
	expect_head(&out, APENET_SEV_FAIL, "LINK_DEGRADED");
	/* two lanes down: both named */
	V.s1.link[1].LINK_STATE = link_state(APENET_LINK_DEGRADED, APENET_PHASE_UP, 0x9, 0xf);
	run_link(1, &CFG, &st, &out);
	snprintf(bw, sizeof(bw), "%.0f MB/s", spec_bound_MBps(2, 7000, 1024, 35));
	expect(&out, APENET_SEV_FAIL, "LINK_DEGRADED", "2 of 4 lanes", "lanes 1,2 down", bw, NULL);
}

static void test_link_flapping(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s0.link[0].LINK_DOWN_EVENTS = 3;
	V.s1.link[0].LINK_DOWN_EVENTS = 3;
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	V.s1.link[0].LINK_DOWN_EVENTS = 4; /* one down event in the interval, up again */
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_FLAPPING", "X+", "went down once in 1.0 s", "node 2,0,0", NULL);
	V.s1.link[0].LINK_DOWN_EVENTS = 6;
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_FLAPPING", "went down 3 times in 1.0 s", NULL);
	/* a looser threshold */
	struct apenet_config cfg = CFG;
	cfg.thr.flaps_fail = 4;
	run_link(0, &cfg, &st, &out);
	expect_none(&out, "LINK_FLAPPING");
}

static void test_link_crc(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	/* defaults: warn at 1/min, fail at 100/min (header + footer), proven at
	 * 95% confidence by at least 3 events */
	assert_true(CFG.thr.crc_warn_per_min == 1 && CFG.thr.crc_fail_per_min == 100);
	assert_true(CFG.thr.rate_confidence == 0.95 && CFG.thr.rate_min_events == 3);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 60.0);
	struct apenet_snap_link *a = &V.s0.link[0], *b = &V.s1.link[0];
	a->LINK_HDR_CRC_ERR = 1000;
	a->LINK_FTR_CRC_ERR = 2000;
	/* 130 in a minute: at least 108/min at 95%: fail */
	b->LINK_HDR_CRC_ERR = 1060;
	b->LINK_FTR_CRC_ERR = 2070;
	run_link(0, &CFG, &st, &out);
	assert_true(st.crc_per_min == 130 && st.crc_events == 130 && st.up_whole);
	expect(&out, APENET_SEV_FAIL, "LINK_CRC", "X+", "130 CRC errors/min", "node 2,0,0", "130 in 60.0 s",
	       "95% confidence", NULL);
	expect_head(&out, APENET_SEV_FAIL, "LINK_CRC");
	assert_true(out.f[0].value == 130 && out.f[0].threshold == 100 && !strcmp(out.f[0].unit, "/min"));
	/* 100 in a minute is 100/min, but it does not prove 100/min (the lower
	 * bound is 84/min): a warning, not a failure */
	b->LINK_FTR_CRC_ERR = 2040;
	run_link(0, &CFG, &st, &out);
	assert_true(st.crc_per_min == 100);
	expect(&out, APENET_SEV_WARN, "LINK_CRC", "X+", "100.0 CRC errors/min", "at least 84", NULL);
	/* 5 in a minute proves more than 1/min */
	b->LINK_HDR_CRC_ERR = 1002;
	b->LINK_FTR_CRC_ERR = 2003;
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_WARN, "LINK_CRC", "5.0 CRC errors/min", "5 in 60.0 s", NULL);
	/* 2 in a minute: fewer events than the rule needs */
	b->LINK_FTR_CRC_ERR = 2000;
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	/* 3 in two minutes: 1.5/min, but only 0.4/min is proven */
	set_dt(&V, 120.0);
	b->LINK_FTR_CRC_ERR = 2001;
	run_link(0, &CFG, &st, &out);
	assert_true(st.crc_per_min == 1.5);
	expect_ok(&out);
	/* the flaky case of issue 7: one error in 0.2 s reads as 300/min but
	 * proves nothing */
	set_dt(&V, 0.2);
	b->LINK_HDR_CRC_ERR = 1001;
	b->LINK_FTR_CRC_ERR = 2000;
	run_link(0, &CFG, &st, &out);
	assert_true(fabs(st.crc_per_min - 300) < 1e-6);
	expect_ok(&out);
	/* ...unless the site asks for less evidence */
	struct apenet_config lax = CFG;
	lax.thr.rate_min_events = 1;
	lax.thr.rate_confidence = 0.5;
	run_link(0, &lax, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_CRC", "1 in 0.2 s", "50% confidence", NULL);
	/* a burst during a bring-up is not a cable's error rate: the link came
	 * up inside the interval, so no rate is judged */
	set_dt(&V, 1.0);
	b->LINK_HDR_CRC_ERR = 1500;
	b->LINK_UP_TS = V.s0.g.TIMESTAMP + 1;
	run_link(0, &CFG, &st, &out);
	assert_false(st.up_whole);
	expect_ok(&out);
	b->LINK_UP_TS = MS(2000);
	/* the lane with most 8b/10b errors is pointed at, and the lane rule
	 * stays quiet (the CRC finding already says it) */
	V.s1.link[0].lane[3].LANE_CODE_VIOL = V.s0.link[0].lane[3].LANE_CODE_VIOL + 50;
	V.s1.link[0].lane[1].LANE_DISP_ERR = V.s0.link[0].lane[1].LANE_DISP_ERR + 20;
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_CRC", "most 8b/10b errors on lane 3", NULL);
	expect_none(&out, "LANE_CODE_ERRORS");
}

static void test_link_payload_and_lane_errors(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 60.0);
	struct apenet_snap_link *a = &V.s0.link[2], *b = &V.s1.link[2];
	/* six payload errors in a minute: warn (software sees them) */
	a->LINK_PAYLOAD_ERR = 10;
	b->LINK_PAYLOAD_ERR = 16;
	run_link(2, &CFG, &st, &out);
	expect(&out, APENET_SEV_WARN, "LINK_PAYLOAD", "Y+", "6.0 payload errors/min", "6 in 60.0 s", NULL);
	expect_none(&out, "LINK_CRC");
	/* three in a minute: 3/min, not proven above 1/min */
	b->LINK_PAYLOAD_ERR = 13;
	run_link(2, &CFG, &st, &out);
	expect_ok(&out);
	b->LINK_PAYLOAD_ERR = 10;

	/* lane 3: six code violations and four disparity errors in a minute */
	a->lane[3].LANE_CODE_VIOL = 100;
	a->lane[3].LANE_DISP_ERR = 200;
	b->lane[3].LANE_CODE_VIOL = 106;
	b->lane[3].LANE_DISP_ERR = 204;
	run_link(2, &CFG, &st, &out);
	assert_true(st.lane_err_per_min[3] == 10 && st.lane_err_events[3] == 10);
	expect(&out, APENET_SEV_WARN, "LANE_CODE_ERRORS", "lane 3 of Y+", "10.0 8b/10b errors/min", "node 1,1,0",
	       NULL);
	assert_int_equal(out.n, 1u);
	assert_int_equal(out.f[0].lane, 3);
	assert_int_equal(out.f[0].subject, APENET_SUBJ_LANE);
	/* two: too few to say */
	b->lane[3].LANE_CODE_VIOL = 101;
	b->lane[3].LANE_DISP_ERR = 201;
	run_link(2, &CFG, &st, &out);
	expect_ok(&out);
}

static void test_lane_align_restarts(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	/* counters cleared 10 minutes ago (the shortest window judged since a
	 * clear, since_clear_min_s); lane 1 lost alignment 14 times */
	V.s1.g.CNT_CLEAR_TS = T1 - 600 * HZ;
	V.s1.link[0].lane[1].LANE_ALIGN_RESTARTS = 14;
	run_link(0, &CFG, &st, &out);
	assert_true(st.since_clear_s == 600);
	expect(&out, APENET_SEV_WARN, "LANE_ALIGN_RESTARTS", "lane 1 of X+", "14 times in 10 min", "node 2,0,0", NULL);
	/* 2 in 10 minutes: fewer than align_restarts_warn (3) */
	V.s1.link[0].lane[1].LANE_ALIGN_RESTARTS = 2;
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	/* 3 in 30 minutes: 6 an hour, but only 1.6 an hour is proven */
	V.s1.g.CNT_CLEAR_TS = T1 - 1800 * HZ;
	V.s1.link[0].lane[1].LANE_ALIGN_RESTARTS = 3;
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	/* a firmware reset after the clear counts from the reset */
	V.s1.g.CNT_CLEAR_TS = MS(1000);
	V.s1.g.UPTIME_TS = T1 - 600 * HZ;
	V.s1.link[0].lane[1].LANE_ALIGN_RESTARTS = 14;
	run_link(0, &CFG, &st, &out);
	assert_true(st.since_clear_s == 600);
	expect(&out, APENET_SEV_WARN, "LANE_ALIGN_RESTARTS", "14 times in 10 min", NULL);
	/* a long time: the same count over 2 hours is 7 an hour, of which only
	 * 4.2 are proven */
	V.s1.g.UPTIME_TS = T1 - 2 * 3600 * HZ;
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	/* a board up for a minute: its bring-up restarts (since the reset) are
	 * not judged; restarts within the interval are */
	V.s1.g.UPTIME_TS = T1 - 60 * HZ;
	V.s0.link[0].lane[1].LANE_ALIGN_RESTARTS = 14;
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	V.s0.link[0].lane[1].LANE_ALIGN_RESTARTS = 9;
	run_link(0, &CFG, &st, &out);
	assert_int_equal(st.lane_restart_events[1], 5);
	expect(&out, APENET_SEV_WARN, "LANE_ALIGN_RESTARTS", "5 times in 1 s", NULL);
}

static void test_ldm_stale(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	struct apenet_snap_link *b = &V.s1.link[0];
	b->LINK_LDM_RX_TS = T1 - MS(499);
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
	b->LINK_LDM_RX_TS = T1 - MS(500);
	run_link(0, &CFG, &st, &out);
	assert_true(st.ldm_age_s == 0.5);
	expect(&out, APENET_SEV_WARN, "LDM_STALE", "node 2,0,0", "500 ms old", NULL);
	b->LINK_LDM_RX_TS = T1 - MS(1999);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_WARN, "LDM_STALE", NULL);
	b->LINK_LDM_RX_TS = T1 - MS(2000);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LDM_STALE", "node 2,0,0", "for 2.0 s", "X+ is up", NULL);
	expect_head(&out, APENET_SEV_FAIL, "LDM_STALE");
	/* nothing ever received: no age to judge */
	b->LINK_LDM_RX_COUNT = 0;
	run_link(0, &CFG, &st, &out);
	expect_none(&out, "LDM_STALE");
}

static void test_ldm_contents(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	struct apenet_snap_link *b = &V.s1.link[0];
	/* temperature (bits 13-12) 11: an invalid word */
	b->LINK_LDM_RX = LDM_VALID | (3u << 12);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_WARN, "LDM_INVALID", "node 2,0,0", "0x80003000", "1 fields", NULL);
	expect_none(&out, "NEIGHBOUR_SICK");
	/* the neighbour's watchdog declared its host dead (bit 26) */
	b->LINK_LDM_RX = LDM_VALID | (1u << 26);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_WARN, "NEIGHBOUR_HOST_EXPIRED", "node 2,0,0", "host dead", NULL);
	assert_int_equal(out.n, 1u);
	/* temperature sick (01 in bits 13-12) */
	b->LINK_LDM_RX = LDM_VALID | (1u << 12);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_WARN, "NEIGHBOUR_SICK", "node 2,0,0 reports its temperature sick", NULL);
	/* DNP core broken (10 in bits 7-6), named by the config */
	b->LINK_LDM_RX = LDM_VALID | (2u << 6);
	struct apenet_node_name names[] = { { "quong03", 2, 0, 0 } };
	struct apenet_config cfg = CFG;
	cfg.cl.nodes = names;
	cfg.cl.nnodes = 1;
	run_link(0, &cfg, &st, &out);
	expect(&out, APENET_SEV_WARN, "NEIGHBOUR_SICK", "node quong03 (2,0,0) reports its DNP core broken", NULL);
	/* the neighbour's own link fields are its business (it reports them
	 * about its links, not about ours) */
	b->LINK_LDM_RX = LDM_VALID | (2u << 22);
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);

	/* a self-loop cable (Z+ to Z- of the same card in 4x4x1) brings back
	 * this board's own LDM: the board rules judge that, not the link's */
	make_view(&V, APENET_V_APENETP, 1, 2, 0, 4, 4, 1, 1.0);
	b = &V.s1.link[4];
	b->LINK_LDM_RX = LDM_VALID | (1u << 12) | (1u << 26);
	b->LINK_LDM_RX_TS = T1 - MS(5000);
	run_link(4, &CFG, &st, &out);
	expect_ok(&out);
	/* ...but a real neighbour there is heard */
	b->LINK_PARTNER = partner((const unsigned[3]){ 2, 2, 0 }, 5);
	run_link(4, &CFG, &st, &out);
	/* ...and named as the node at the other end, not the expected one */
	expect(&out, APENET_SEV_FAIL, "LDM_STALE", "from node 2,2,0 for 5.0 s", NULL);
	expect(&out, APENET_SEV_WARN, "NEIGHBOUR_SICK", "node 2,2,0 reports its temperature sick", NULL);
	expect(&out, APENET_SEV_WARN, "NEIGHBOUR_HOST_EXPIRED", NULL);
	expect(&out, APENET_SEV_WARN, "NEIGHBOUR_SICK", "temperature sick", NULL);
	expect(&out, APENET_SEV_FAIL, "LINK_MISCABLED", "node 2,2,0 port Z-, expected node 1,2,0 port Z-", NULL);
}

static void test_miscabled(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	/* X+ of 1,0,0 reaches 3,0,0 port 0 (X+) instead of 2,0,0 port 1 (X-) */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[0].LINK_PARTNER = partner((const unsigned[3]){ 3, 0, 0 }, 0);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_MISCABLED",
	       "X+ is cabled to node 3,0,0 port X+, expected node 2,0,0 port X-", NULL);
	expect_head(&out, APENET_SEV_FAIL, "LINK_MISCABLED");
	/* the right node, the wrong port */
	V.s1.link[0].LINK_PARTNER = partner((const unsigned[3]){ 2, 0, 0 }, 3);
	run_link(0, &CFG, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_MISCABLED", "node 2,0,0 port Y-, expected node 2,0,0 port X-", NULL);
	/* with names */
	struct apenet_node_name names[] = { { "quong03", 2, 0, 0 }, { "quong04", 3, 0, 0 } };
	struct apenet_config cfg = CFG;
	cfg.cl.nodes = names;
	cfg.cl.nnodes = 2;
	V.s1.link[0].LINK_PARTNER = partner((const unsigned[3]){ 3, 0, 0 }, 0);
	run_link(0, &cfg, &st, &out);
	expect(&out, APENET_SEV_FAIL, "LINK_MISCABLED", "node quong04 (3,0,0) port X+", "expected node quong03 (2,0,0)",
	       NULL);
	/* an external partner is not a torus miscabling */
	V.s1.link[0].LINK_PARTNER = APENET_SET(LINK_PARTNER, VALID, 1) | APENET_SET(LINK_PARTNER, EXTERNAL, 1);
	run_link(0, &CFG, &st, &out);
	expect_none(&out, "LINK_MISCABLED");
	/* an unknown partner neither */
	V.s1.link[0].LINK_PARTNER = partner((const unsigned[3]){ 3, 0, 0 }, 0) & ~APENET_SET(LINK_PARTNER, VALID, 1);
	run_link(0, &CFG, &st, &out);
	expect_ok(&out);
}

static void test_fifo_and_prbs(void **state)
{
	(void)state;
	struct apenet_link_stats st;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	struct apenet_snap_link *b = &V.s1.link[5];
	/* a burst: the high-water mark rose to the limit, the level is low
	 * again: flow control did its job, nothing to say */
	b->LINK_FIFO_HWM1 = 768;
	run_link(5, &CFG, &st, &out);
	assert_true(st.fifo_hwm_rose);
	expect_ok(&out);
	/* high at one sample only: still a burst */
	b->LINK_FIFO_LVL1 = 760;
	run_link(5, &CFG, &st, &out);
	expect_ok(&out);
	/* high at both samples, the interval apart: the receiver stays behind.
	 * 95% of T_RED (768 words) is 729.6: 729 is under, 730 at it */
	V.s0.link[5].LINK_FIFO_LVL0 = 729;
	run_link(5, &CFG, &st, &out);
	expect_ok(&out);
	V.s0.link[5].LINK_FIFO_LVL0 = 730;
	run_link(5, &CFG, &st, &out);
	assert_true(fabs(st.fifo_level0_pct - 100.0 * 730 / 768) < 1e-9);
	expect(&out, APENET_SEV_WARN, "FIFO_HIGH", "Z-", "stayed at or above 95%", "level 95% then 99%",
	       "high-water mark rose", NULL);
	/* a link that is down has no receiver to judge */
	b->LINK_STATE = link_state(APENET_LINK_DOWN, APENET_PHASE_RESET, 0, 0xf);
	b->LINK_CTRL = 0;
	run_link(5, &CFG, &st, &out);
	expect_none(&out, "FIFO_HIGH");

	/* a PRBS run: a warning, no traffic */
	make_view(&V, APENET_V_APENETP, 1, 0, 0, 4, 4, 1, 1.0);
	V.s1.link[3].LINK_STATE = link_state(APENET_LINK_PRBS, APENET_PHASE_UP, 0xf, 0xf);
	run_link(3, &CFG, &st, &out);
	assert_true(st.prbs);
	expect(&out, APENET_SEV_WARN, "LINK_PRBS", "Y-", "PRBS", NULL);
	expect_head(&out, APENET_SEV_WARN, "LINK_PRBS");
}

/* ---- board rules ---- */


static void test_board_temperatures(void **state)
{
	(void)state;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s1.g.SENS_FPGA_TEMP = 79999;
	board(&out);
	expect_ok(&out);
	V.s1.g.SENS_FPGA_TEMP = 80000;
	board(&out);
	expect(&out, APENET_SEV_WARN, "FPGA_TEMP", "80.0 C", "warn at 80 C", NULL);
	V.s1.g.SENS_FPGA_TEMP = 95000;
	board(&out);
	expect(&out, APENET_SEV_FAIL, "FPGA_TEMP", "95.0 C", "fail at 95 C", NULL);
	assert_int_equal(out.n, 1u);
	/* below zero is a signed register, not 4 million degrees */
	V.s1.g.SENS_FPGA_TEMP = (uint32_t)-10000;
	board(&out);
	expect_ok(&out);
	V.s1.g.SENS_FPGA_TEMP = 55000;
	V.s1.g.SENS_BOARD_TEMP = 59999;
	board(&out);
	expect_ok(&out);
	V.s1.g.SENS_BOARD_TEMP = 60000;
	board(&out);
	expect(&out, APENET_SEV_WARN, "BOARD_TEMP", "60.0 C", NULL);
	V.s1.g.SENS_BOARD_TEMP = 75000;
	board(&out);
	expect(&out, APENET_SEV_FAIL, "BOARD_TEMP", "75.0 C", NULL);
	/* a fractional threshold is printed as it is */
	struct apenet_config cfg = CFG;
	cfg.thr.fpga_temp_warn_c = 80.5;
	V.s1.g.SENS_BOARD_TEMP = 40000;
	V.s1.g.SENS_FPGA_TEMP = 80500;
	apenet_findings_clear(&out);
	apenet_rules_board(&V, &cfg, NULL, &out);
	expect(&out, APENET_SEV_WARN, "FPGA_TEMP", "80.5 C (warn at 80.5 C)", NULL);
}

static void test_board_supplies(void **state)
{
	(void)state;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	/* droop of the 900 mV core: 3% is 27 mV, 8% is 72 mV */
	V.s1.g.SENS_VCORE = 874;
	board(&out);
	expect_ok(&out);
	V.s1.g.SENS_VCORE = 873;
	board(&out);
	expect(&out, APENET_SEV_WARN, "VCORE_LOW", "873 mV", "3.0%", "900 mV", NULL);
	V.s1.g.SENS_VCORE = 829;
	board(&out);
	expect(&out, APENET_SEV_WARN, "VCORE_LOW", NULL);
	V.s1.g.SENS_VCORE = 828;
	board(&out);
	expect(&out, APENET_SEV_FAIL, "VCORE_LOW", "828 mV", "8.0%", NULL);
	/* over nominal is no droop */
	V.s1.g.SENS_VCORE = 950;
	board(&out);
	expect_ok(&out);
	/* no nominal published: no rule */
	V.s1.g.SENS_VCORE = 500;
	V.s1.g.SENS_VCORE_NOM = 0;
	board(&out);
	expect_none(&out, "VCORE_LOW");
	V.s1.g.SENS_VCORE_NOM = 900;
	V.s1.g.SENS_VCORE = 900;

	/* 12 V: 5% is 600 mV either way, 10% is 1200 mV */
	static const struct {
		uint32_t mv;
		enum apenet_sev sev;
		const char *pct;
	} v12[] = {
		{ 11401, APENET_SEV_OK, NULL },    { 12599, APENET_SEV_OK, NULL },
		{ 11400, APENET_SEV_WARN, "5.0% off" }, { 12600, APENET_SEV_WARN, "5.0% off" },
		{ 10801, APENET_SEV_WARN, NULL },  { 10800, APENET_SEV_FAIL, "10.0% off" },
		{ 13200, APENET_SEV_FAIL, "10.0% off" },
	};
	for (unsigned i = 0; i < sizeof(v12) / sizeof(v12[0]); i++) {
		char mv[32];
		V.s1.g.SENS_V12 = v12[i].mv;
		board(&out);
		if (v12[i].sev == APENET_SEV_OK) {
			expect_ok(&out);
			continue;
		}
		snprintf(mv, sizeof(mv), "%u mV", v12[i].mv);
		expect(&out, v12[i].sev, "V12_RANGE", mv, v12[i].pct, NULL);
	}
}

static void test_board_watchdog(void **state)
{
	(void)state;
	FINDINGS(out);
	/* the DNP heartbeat did not move over 1 s = 10 periods: hung */
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s0.g.WD_DNP_HB = V.s1.g.WD_DNP_HB;
	board(&out);
	char stuck[64];
	snprintf(stuck, sizeof(stuck), "stuck at %llu for 1.0 s", (unsigned long long)V.s1.g.WD_DNP_HB);
	expect(&out, APENET_SEV_FAIL, "DNP_HUNG", stuck, "reset the card", NULL);
	expect_head(&out, APENET_SEV_FAIL, "DNP_HUNG");
	/* 2.6 periods: still hung */
	set_dt(&V, 0.26);
	V.s0.g.WD_DNP_HB = V.s1.g.WD_DNP_HB;
	board(&out);
	expect(&out, APENET_SEV_FAIL, "DNP_HUNG", NULL);
	/* 2.5 periods or less: too short to tell a missed beat from a late one */
	set_dt(&V, 0.25);
	V.s0.g.WD_DNP_HB = V.s1.g.WD_DNP_HB;
	board(&out);
	expect_ok(&out);
	set_dt(&V, 0.2);
	V.s0.g.WD_DNP_HB = V.s1.g.WD_DNP_HB;
	board(&out);
	expect_ok(&out);
	/* one sample only */
	V.s0 = V.s1;
	board(&out);
	expect_ok(&out);
	/* a longer period stretches the window */
	set_dt(&V, 1.0);
	V.s0.g.WD_DNP_HB = V.s1.g.WD_DNP_HB;
	V.s1.g.WD_PERIOD_US = 500000;
	board(&out);
	expect_ok(&out);

	/* the DNP declared the host dead after 5 missed beats */
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s1.g.WD_STATUS |= APENET_SET(WD_STATUS, HOST_EXPIRED, 1) | APENET_SET(WD_STATUS, MISSED, 5);
	board(&out);
	expect(&out, APENET_SEV_WARN, "HOST_EXPIRED", "after 5 missed heartbeats", NULL);
	assert_int_equal(out.n, 1u);

	/* this DNP sends an LDM with an 11 in it */
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s1.g.LDM_OWN = LDM_VALID | 3u;
	board(&out);
	expect(&out, APENET_SEV_WARN, "LDM_OWN_INVALID", "0x80000003", NULL);
	V.s1.g.LDM_TX_COUNT = 0; /* it sends none yet */
	board(&out);
	expect_ok(&out);
}

static void test_board_pcie(void **state)
{
	(void)state;
	FINDINGS(out);
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.pcie_ok = 1;
	V.pcie.has_pcie = 1;
	V.pcie.cap_gen = 2;
	V.pcie.cap_width = 8;
	V.pcie.sta_gen = 2;
	V.pcie.sta_width = 8;
	board(&out);
	expect_ok(&out);
	/* trained at Gen1 x4 */
	V.pcie.sta_gen = 1;
	V.pcie.sta_width = 4;
	V.pcie.degraded = 1;
	board(&out);
	expect(&out, APENET_SEV_WARN, "PCIE_DEGRADED", "2.5GT/s x4", "5GT/s x8", NULL);
	/* the same fields when the capability could not be read: not used */
	V.pcie_ok = 0;
	board(&out);
	expect_ok(&out);
	snprintf(V.pcie_err, sizeof(V.pcie_err), "capability list loops at 0x40");
	board(&out);
	expect(&out, APENET_SEV_WARN, "PCIE_UNREADABLE", "loops at 0x40", NULL);
	V.pcie_err[0] = 0;
	V.pcie_ok = 1;
	V.pcie.degraded = 0;

	/* AER: an unmasked uncorrectable error fails, a masked one is nothing,
	 * a correctable one warns */
	V.pcie.has_aer = 1;
	V.pcie.aer_uncor_status = 1u << 4; /* data link protocol error */
	board(&out);
	expect(&out, APENET_SEV_FAIL, "PCIE_AER_UNCORRECTABLE", "0x00000010", NULL);
	V.pcie.aer_uncor_mask = 1u << 4;
	board(&out);
	expect_ok(&out);
	V.pcie.aer_cor_status = 1u << 6; /* bad TLP */
	board(&out);
	expect(&out, APENET_SEV_WARN, "PCIE_AER_CORRECTABLE", "0x00000040", NULL);
	V.pcie.aer_cor_mask = 1u << 6;
	board(&out);
	expect_ok(&out);
	/* no AER capability: its fields mean nothing */
	V.pcie.has_aer = 0;
	V.pcie.aer_uncor_mask = 0;
	board(&out);
	expect_ok(&out);
}

/* ---- hysteresis ---- */

static void test_sensor_clear_margin(void **state)
{
	(void)state;
	FINDINGS(out);
	FINDINGS(held);
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s1.g.SENS_FPGA_TEMP = 80100;
	board(&out);
	expect(&out, APENET_SEV_WARN, "FPGA_TEMP", NULL);
	apenet_findings_append(&held, &out);
	/* raised: it holds until 2 C (temp_clear_margin_c) under the limit */
	V.s1.g.SENS_FPGA_TEMP = 79000;
	apenet_findings_clear(&out);
	apenet_rules_board(&V, &CFG, &held, &out);
	expect(&out, APENET_SEV_WARN, "FPGA_TEMP", "hysteresis", NULL);
	V.s1.g.SENS_FPGA_TEMP = 77900;
	apenet_findings_clear(&out);
	apenet_rules_board(&V, &CFG, &held, &out);
	expect_ok(&out);
	/* without the latch, 79 C is fine */
	V.s1.g.SENS_FPGA_TEMP = 79000;
	board(&out);
	expect_ok(&out);
	/* a low limit moves the other way: the core supply held until it is
	 * 0.5% of nominal back above the limit */
	V.s1.g.SENS_VCORE = 870; /* 3.3% droop: warn */
	board(&out);
	expect(&out, APENET_SEV_WARN, "VCORE_LOW", NULL);
	apenet_findings_clear(&held);
	apenet_findings_append(&held, &out);
	V.s1.g.SENS_VCORE = 875; /* past 873 but within 873 + 4.5 */
	apenet_findings_clear(&out);
	apenet_rules_board(&V, &CFG, &held, &out);
	expect(&out, APENET_SEV_WARN, "VCORE_LOW", NULL);
	V.s1.g.SENS_VCORE = 878;
	apenet_findings_clear(&out);
	apenet_rules_board(&V, &CFG, &held, &out);
	expect_ok(&out);
}

static void add(struct apenet_findings *fs, const char *code, int link)
{
	apenet_finding_add(fs, APENET_SEV_WARN, APENET_SUBJ_LINK, link, -1, "X+", code);
}

static void test_latch(void **state)
{
	(void)state;
	struct apenet_latch l;
	FINDINGS(now);
	FINDINGS(held);
	apenet_latch_init(&l, 2, 3); /* raise after 2 samples, clear after 3 clean ones */
	add(&now, "A", 0);
	assert_int_equal(apenet_latch_step(&l, &now, &held), 0u);
	assert_int_equal(held.n, 0u); /* once is not yet */
	apenet_findings_clear(&held);
	assert_int_equal(apenet_latch_step(&l, &now, &held), 1u);
	assert_int_equal(held.n, 1u);
	/* a gap of two samples: still held */
	apenet_findings_clear(&now);
	for (int i = 0; i < 2; i++) {
		apenet_findings_clear(&held);
		assert_int_equal(apenet_latch_step(&l, &now, &held), 0u);
		assert_int_equal(held.n, 1u);
	}
	/* back: the clean count starts over */
	add(&now, "A", 0);
	apenet_findings_clear(&held);
	apenet_latch_step(&l, &now, &held);
	apenet_findings_clear(&now);
	for (int i = 0; i < 2; i++) {
		apenet_findings_clear(&held);
		apenet_latch_step(&l, &now, &held);
		assert_int_equal(held.n, 1u);
	}
	/* the third clean sample clears it */
	apenet_findings_clear(&held);
	assert_int_equal(apenet_latch_step(&l, &now, &held), 1u);
	assert_int_equal(held.n, 0u);
	assert_int_equal(l.n, 0u);
	/* a finding that blinks every other sample never raises at raise_after 2 */
	for (int i = 0; i < 10; i++) {
		apenet_findings_clear(&now);
		if (i % 2)
			add(&now, "B", 1);
		apenet_findings_clear(&held);
		apenet_latch_step(&l, &now, &held);
		assert_int_equal(held.n, 0u);
	}
	/* the same code on two links: two entries */
	apenet_findings_clear(&now);
	add(&now, "C", 0);
	add(&now, "C", 1);
	apenet_latch_step(&l, &now, &held);
	apenet_findings_clear(&held);
	apenet_latch_step(&l, &now, &held);
	assert_int_equal(held.n, 2u);
	apenet_latch_free(&l);
}

/* ---- the verdict itself ---- */

static void test_verdict_worst_wins(void **state)
{
	(void)state;
	FINDINGS(out);
	long at;
	assert_int_equal(apenet_findings_worst(&out, &at), APENET_SEV_OK);
	assert_int_equal(at, -1);
	apenet_finding_message(apenet_finding_add(&out, APENET_SEV_WARN, APENET_SUBJ_BOARD, -1, -1, "", "A"), "first %d", 1);
	apenet_finding_add(&out, APENET_SEV_WARN, APENET_SUBJ_BOARD, -1, -1, "", "B");
	expect_head(&out, APENET_SEV_WARN, "A"); /* the first of equals */
	apenet_finding_add(&out, APENET_SEV_FAIL, APENET_SUBJ_LINK, 2, -1, "Y+", "C");
	expect_head(&out, APENET_SEV_FAIL, "C");
	apenet_finding_add(&out, APENET_SEV_WARN, APENET_SUBJ_LINK, 3, 1, "Y-", "D");
	apenet_finding_add(&out, APENET_SEV_FAIL, APENET_SUBJ_BOARD, -1, -1, "", "E");
	expect_head(&out, APENET_SEV_FAIL, "C");
	assert_int_equal(out.n, 5u);
	assert_string_equal(out.f[0].message, "first 1");
	assert_true(isnan(out.f[0].value) && isnan(out.f[0].threshold));
	/* per link: Y- holds only D */
	assert_int_equal(apenet_findings_worst_at(&out, 3, &at), APENET_SEV_WARN);
	assert_string_equal(out.f[at].code, "D");
	assert_int_equal(apenet_findings_worst_at(&out, 5, &at), APENET_SEV_OK);
	/* no cap: every finding is kept (there were 16 at most) */
	for (unsigned i = 0; i < 1000; i++)
		apenet_finding_add(&out, APENET_SEV_WARN, APENET_SUBJ_LANE, 0, (int)(i % 4), "X+", "X");
	assert_int_equal(out.n, 1005u);
	assert_int_equal(out.lost, 0u);
	expect_head(&out, APENET_SEV_FAIL, "C");
	/* clearing keeps the memory for the next sample */
	size_t cap = out.cap;
	apenet_findings_clear(&out);
	assert_int_equal(out.n, 0u);
	assert_int_equal(out.cap, cap);
	/* the board mixes: a warn and a fail, the fail heads */
	make_view(&V, APENET_V_APENETP, 0, 0, 0, 4, 4, 1, 1.0);
	V.s1.g.SENS_FPGA_TEMP = 85000;
	V.s1.g.SENS_V12 = 10000;
	board(&out);
	assert_int_equal(out.n, 2);
	expect(&out, APENET_SEV_WARN, "FPGA_TEMP", NULL);
	expect_head(&out, APENET_SEV_FAIL, "V12_RANGE");
	assert_string_equal(apenet_sev_name(APENET_SEV_OK), "ok");
	assert_string_equal(apenet_sev_name(APENET_SEV_WARN), "warn");
	assert_string_equal(apenet_sev_name(APENET_SEV_FAIL), "fail");
}

static void test_node_label(void **state)
{
	(void)state;
	char buf[128];
	const unsigned c[3] = { 2, 0, 0 }, d[3] = { 1, 3, 2 };
	struct apenet_node_name names[] = { { "quong02", 2, 0, 0 } };
	struct apenet_config cfg = CFG;
	apenet_rules_node_label(NULL, c, buf, sizeof(buf));
	assert_string_equal(buf, "node 2,0,0");
	apenet_rules_node_label(&CFG, d, buf, sizeof(buf));
	assert_string_equal(buf, "node 1,3,2");
	cfg.cl.nodes = names;
	cfg.cl.nnodes = 1;
	apenet_rules_node_label(&cfg, c, buf, sizeof(buf));
	assert_string_equal(buf, "node quong02 (2,0,0)");
	apenet_rules_node_label(&cfg, d, buf, sizeof(buf));
	assert_string_equal(buf, "node 1,3,2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_assumptions),
		cmocka_unit_test(test_healthy_everywhere),
		cmocka_unit_test(test_stats_rates_and_bound),
		cmocka_unit_test(test_expected_partner_apenetp),
		cmocka_unit_test(test_expected_partner_v5_and_ext),
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_link_down_at_open_edge),
		cmocka_unit_test(test_link_training),
		cmocka_unit_test(test_link_degraded),
		cmocka_unit_test(test_link_flapping),
		cmocka_unit_test(test_link_crc),
		cmocka_unit_test(test_link_payload_and_lane_errors),
		cmocka_unit_test(test_lane_align_restarts),
		cmocka_unit_test(test_ldm_stale),
		cmocka_unit_test(test_ldm_contents),
		cmocka_unit_test(test_miscabled),
		cmocka_unit_test(test_fifo_and_prbs),
		cmocka_unit_test(test_board_temperatures),
		cmocka_unit_test(test_board_supplies),
		cmocka_unit_test(test_board_watchdog),
		cmocka_unit_test(test_board_pcie),
		cmocka_unit_test(test_sensor_clear_margin),
		cmocka_unit_test(test_latch),
		cmocka_unit_test(test_verdict_worst_wins),
		cmocka_unit_test(test_node_label),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
