/*
 * End to end: the real apenet-sim (a 4x4x1 QUonG torus), boards opened
 * through the device layer, every fault injected with the real
 * `apenet-sim inject` and its effect checked at register level.
 *
 * Every wait is e2e_wait(): a condition polled with a deadline, sleeping
 * between polls.  The torus is started once for the group, but every test
 * starts from a healthy torus (the per-test setup waits for it) and leaves
 * one (the per-test teardown clears the faults, realigns, restores the
 * registers it wrote), even when it fails half way: the tests pass in any
 * order.  E2E_SHUFFLE=SEED runs them in a shuffled order (=reverse: last
 * first), E2E_FILTER=NAME only the tests matching NAME (cmocka's filter).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "apenet/conf.h"
#include "apenet/ldm.h"
#include "apenet/snapshot.h"
#include "e2e.h"

#define DX 4
#define DY 4
#define DEADLINE 60.0

static struct e2e_sim sim;
static struct apenet_dev dev[DX][DY];

static unsigned link_idx(const struct apenet_dev *d, const char *name)
{
	for (unsigned l = 0; l < d->prof->nlinks; l++)
		if (!strcmp(d->prof->links[l].name, name))
			return l;
	fail_msg("no link %s", name);
	return 0;
}

static uint32_t lreg(struct apenet_dev *d, const char *link, unsigned reg)
{
	return apenet_rd32(d, apenet_link_off(link_idx(d, link), reg));
}

static uint64_t lreg64(struct apenet_dev *d, const char *link, unsigned reg)
{
	return apenet_rd64(d, apenet_link_off(link_idx(d, link), reg));
}

static unsigned lstate(struct apenet_dev *d, const char *link)
{
	return APENET_GET(LINK_STATE, STATE, lreg(d, link, APENET_LINK_STATE));
}

static int all_up(void *ctx)
{
	(void)ctx;
	for (int x = 0; x < DX; x++)
		for (int y = 0; y < DY; y++)
			for (unsigned l = 0; l < dev[x][y].prof->nlinks; l++)
				if (APENET_GET(LINK_STATE, STATE,
					       apenet_rd32(&dev[x][y], apenet_link_off(l, APENET_LINK_STATE))) !=
				    APENET_LINK_UP)
					return 0;
	return 1;
}

/* Boards a test changed (injected a fault into, wrote registers of): the
 * per-test teardown puts them back. */
static int touched[DX][DY];
/* test_cable_swap swapped the plugs and has not swapped them back yet. */
static int plugs_swapped;

static void touch(unsigned x, unsigned y)
{
	touched[x][y] = 1;
}

/* "X,Y,0": marks that board as touched. */
static void touch_node(const char *node)
{
	unsigned v[3];
	if (apenet_parse_triple(node, ',', v) == 0 && v[0] < DX && v[1] < DY)
		touch(v[0], v[1]);
}

/* Every fault goes through here, so that the teardown knows what to clear. */
#define INJECT(node, ...) (touch_node(node), e2e_inject(&sim, node, __VA_ARGS__))

/* What every test may rely on when it starts: all links up on every board,
 * no board hot, every board's LDM valid and reporting its links normal. */
static int torus_healthy(void *ctx)
{
	(void)ctx;
	if (!all_up(NULL))
		return 0;
	for (int x = 0; x < DX; x++)
		for (int y = 0; y < DY; y++) {
			struct apenet_dev *d = &dev[x][y];
			uint32_t ldm = apenet_rd32(d, APENET_REG_LDM_OWN);
			if ((int32_t)apenet_rd32(d, APENET_REG_SENS_FPGA_TEMP) >= 85000 ||
			    !APENET_GET(LDM, VALID, ldm) || (ldm & 0x03ffc000u) != 0)
				return 0;
		}
	return 1;
}

static int group_setup(void **state)
{
	(void)state;
	if (e2e_sim_start(&sim, "--dims", "4x4x1", "--seed", "7", NULL))
		return -1;
	for (unsigned x = 0; x < DX; x++)
		for (unsigned y = 0; y < DY; y++)
			if (e2e_open(&sim, x, y, 0, &dev[x][y]))
				return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	for (unsigned x = 0; x < DX; x++)
		for (unsigned y = 0; y < DY; y++)
			apenet_dev_close(&dev[x][y]);
	return e2e_sim_stop(&sim) == 0 ? 0 : -1;
}

static int test_setup(void **state)
{
	(void)state;
	memset(touched, 0, sizeof(touched));
	if (!e2e_wait(torus_healthy, NULL, DEADLINE)) {
		fprintf(stderr, "e2e: the torus is not healthy before the test\n");
		return -1;
	}
	return 0;
}

static int test_teardown(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	char node[32];
	int rc = 0;
	if (plugs_swapped) {
		if (e2e_inject(&sim, "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-", NULL))
			rc = -1;
		plugs_swapped = 0;
	}
	for (unsigned x = 0; x < DX; x++)
		for (unsigned y = 0; y < DY; y++) {
			struct apenet_dev *d = &dev[x][y];
			if (!touched[x][y])
				continue;
			snprintf(node, sizeof(node), "%u,%u,0", x, y);
			if (e2e_inject(&sim, node, "clear", NULL))
				rc = -1;
			/* the watchdog as the emulator starts it (sim_board_reset_bar) */
			apenet_wr32(d, APENET_REG_WD_CTRL, 0);
			apenet_wr32(d, APENET_REG_WD_PERIOD_US, 100000);
			apenet_wr32(d, APENET_REG_WD_TIMEOUT_BEATS, 3);
			for (unsigned l = 0; l < d->prof->nlinks; l++)
				for (unsigned k = 0; k < d->prof->links[l].lanes; k++)
					apenet_wr32(d, apenet_lane_off(l, k, APENET_LANE_PRBS_CTRL), 0);
		}
	/* A repaired lane comes back only with a realign (from either end). */
	for (unsigned x = 0; x < DX; x++)
		for (unsigned y = 0; y < DY; y++)
			for (unsigned l = 0; l < dev[x][y].prof->nlinks; l++)
				if (APENET_GET(LINK_STATE, STATE,
					       apenet_rd32(&dev[x][y], apenet_link_off(l, APENET_LINK_STATE))) ==
					    APENET_LINK_DEGRADED &&
				    apenet_dev_command(&dev[x][y], APENET_CMD_REALIGN, l, 5000, &e))
					rc = -1;
	if (!e2e_wait(torus_healthy, NULL, DEADLINE)) {
		fprintf(stderr, "e2e: the torus did not recover after the test\n");
		rc = -1;
	}
	return rc;
}

/* Back to a healthy torus after a fault test. */
static void clear_and_wait(const char *node)
{
	assert_int_equal(INJECT(node, "clear", NULL), 0);
	assert_true(e2e_wait(all_up, NULL, DEADLINE));
}

/* One LDM status field of a board's own word. */
struct ldm_want {
	struct apenet_dev *d;
	unsigned field, status;
};

static int ldm_field_is(void *ctx)
{
	struct ldm_want *w = ctx;
	struct apenet_ldm m;
	apenet_ldm_decode(apenet_rd32(w->d, APENET_REG_LDM_OWN), &m);
	return m.field[w->field] == w->status;
}

static void wait_ldm(struct apenet_dev *d, unsigned field, unsigned status)
{
	struct ldm_want w = { d, field, status };
	if (!e2e_wait(ldm_field_is, &w, DEADLINE))
		fail_msg("%s: LDM %s never became %s", d->bdf, apenet_ldm_field_name(field),
			 apenet_ldm_status_name(status));
}

/* ---- a healthy torus ---- */

static void test_all_96_link_ends_up_with_right_partners(void **state)
{
	(void)state;
	static const char *names[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };
	static const int step[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };
	unsigned ends = 0;
	for (int x = 0; x < DX; x++)
		for (int y = 0; y < DY; y++) {
			struct apenet_dev *d = &dev[x][y];
			assert_int_equal(d->prof->id, APENET_V_APENETP);
			uint32_t coord = apenet_rd32(d, APENET_REG_NODE_COORD);
			assert_int_equal(APENET_GET(NODE_COORD, X, coord), x);
			assert_int_equal(APENET_GET(NODE_COORD, Y, coord), y);
			for (unsigned l = 0; l < 6; l++) {
				uint32_t st = lreg(d, names[l], APENET_LINK_STATE);
				assert_int_equal(APENET_GET(LINK_STATE, STATE, st), APENET_LINK_UP);
				assert_int_equal(APENET_GET(LINK_STATE, PHASE, st), APENET_PHASE_UP);
				assert_int_equal(APENET_GET(LINK_STATE, LANES_UP, st), 0xf);
				uint32_t p = lreg(d, names[l], APENET_LINK_PARTNER);
				assert_true(APENET_GET(LINK_PARTNER, VALID, p));
				assert_int_equal(APENET_GET(LINK_PARTNER, X, p), (unsigned)((x + step[l][0] + DX) % DX));
				assert_int_equal(APENET_GET(LINK_PARTNER, Y, p), (unsigned)((y + step[l][1] + DY) % DY));
				assert_int_equal(APENET_GET(LINK_PARTNER, Z, p), 0);
				assert_int_equal(APENET_GET(LINK_PARTNER, PORT, p), l ^ 1); /* X+ faces X- */
				for (unsigned k = 0; k < 4; k++)
					assert_int_equal(APENET_GET(LANE_STATE, PHASE,
								    apenet_rd32(d, apenet_lane_off(l, k, APENET_LANE_STATE))),
							 APENET_PHASE_UP);
				ends++;
			}
		}
	assert_int_equal(ends, 96);
}

/* The LDM is composed every tick from the state of the last one: wait for it. */
static int ldm_arrived(void *ctx)
{
	struct apenet_dev *d = ctx;
	if ((apenet_rd32(d, APENET_REG_LDM_OWN) & 0x03ffc000u) != 0)
		return 0;
	for (unsigned l = 0; l < d->prof->nlinks; l++)
		if (!APENET_GET(LDM, VALID, apenet_rd32(d, apenet_link_off(l, APENET_LINK_LDM_RX))))
			return 0;
	return 1;
}

static void test_ldm_words_reach_every_neighbour(void **state)
{
	(void)state;
	struct apenet_dev *d = &dev[1][2];
	assert_true(e2e_wait(ldm_arrived, d, DEADLINE));
	uint32_t own = apenet_rd32(d, APENET_REG_LDM_OWN);
	assert_true(APENET_GET(LDM, VALID, own));
	assert_int_equal(own & 0x03ffc000u, 0); /* every link normal */
	/* what 1,2,0 sends is what 2,2,0 received on X- */
	uint32_t rx = lreg(&dev[2][2], "X-", APENET_LINK_LDM_RX);
	assert_int_equal(rx & ~0x3f00u, own & ~0x3f00u); /* sensors may move between reads */
	assert_true(lreg(&dev[2][2], "X-", APENET_LINK_LDM_RX_COUNT) > 0);
}

/* A later snapshot, 0.1 s of card time on, with the X+ counters moved. */
struct moved {
	struct apenet_dev *d;
	const struct apenet_snapshot *a;
	struct apenet_snapshot *b;
	int failed;
};

static int counters_moved(void *ctx)
{
	struct moved *m = ctx;
	struct apenet_err e = { 0 };
	if (apenet_snapshot_read(m->d, m->b, &e)) {
		m->failed = 1;
		return 1; /* no use waiting */
	}
	return m->b->g.TIMESTAMP > m->a->g.TIMESTAMP + 25000000ull &&
	       m->b->link[0].LINK_TX_PKTS > m->a->link[0].LINK_TX_PKTS;
}

static void test_snapshot_is_consistent_and_counters_move(void **state)
{
	(void)state;
	static struct apenet_snapshot a, b;
	struct apenet_err e = { 0 };
	struct apenet_dev *d = &dev[0][0];
	assert_int_equal(apenet_snapshot_read(d, &a, &e), 0);
	/* GEN twice, the global block, 6 links of link registers and 4 lanes each, per try */
	uint64_t per_try = 2 + APENET_NGLOBAL + 6 * (APENET_NLINKREG + 4 * APENET_NLANEREG);
	assert_true(a.reads >= per_try);
	assert_true(a.reads <= per_try * (a.retries + 1) + a.retries);
	assert_int_equal(a.g.ID_MAGIC, APENET_MAGIC);
	struct moved m = { d, &a, &b, 0 };
	assert_true(e2e_wait(counters_moved, &m, DEADLINE));
	assert_int_equal(m.failed, 0);
	assert_true(b.g.TIMESTAMP > a.g.TIMESTAMP);
	assert_true(b.link[0].LINK_TX_PKTS > a.link[0].LINK_TX_PKTS);
	assert_true(b.link[0].LINK_CREDITS_TX > a.link[0].LINK_CREDITS_TX);
	/* the partner (1,0,0 X-) received what 0,0,0 X+ sent, to within a tick or two */
	uint64_t rx = lreg64(&dev[1][0], "X-", APENET_LINK_RX_PKTS);
	assert_true(rx > 0);
	double dts = apenet_ticks_to_s(&b, b.g.TIMESTAMP - a.g.TIMESTAMP);
	assert_true(dts > 0.05);
	/* the load never exceeds the efficiency model's bandwidth */
	double Bps = (double)(b.link[0].LINK_TX_BYTES - a.link[0].LINK_TX_BYTES) / dts;
	assert_true(Bps < 2.25e9);
	assert_true(Bps > 1e7);
}

/* ---- faults ---- */

struct want {
	struct apenet_dev *d;
	const char *link;
	unsigned state;
};

static int link_in_state(void *ctx)
{
	struct want *w = ctx;
	return lstate(w->d, w->link) == w->state;
}

static void wait_state(struct apenet_dev *d, const char *link, unsigned st)
{
	struct want w = { d, link, st };
	if (!e2e_wait(link_in_state, &w, DEADLINE))
		fail_msg("%s link %s: state %u, waited for %u", d->bdf, link, lstate(d, link), st);
}

static void test_cable_unplug(void **state)
{
	(void)state;
	uint64_t downs = lreg64(&dev[1][0], "X+", APENET_LINK_DOWN_EVENTS);
	assert_int_equal(INJECT("1,0,0", "cable-unplug", "--link", "X+", NULL), 0);
	wait_state(&dev[1][0], "X+", APENET_LINK_DOWN);
	wait_state(&dev[2][0], "X-", APENET_LINK_DOWN);
	assert_false(APENET_GET(LINK_PARTNER, VALID, lreg(&dev[1][0], "X+", APENET_LINK_PARTNER)));
	assert_true(lreg64(&dev[1][0], "X+", APENET_LINK_DOWN_EVENTS) > downs);
	assert_int_equal(APENET_GET(LANE_STATE, PHASE, apenet_rd32(&dev[1][0], apenet_lane_off(0, 0, APENET_LANE_STATE))),
			 APENET_PHASE_RESET);
	/* the DNP reports its X+ link broken in its LDM */
	wait_ldm(&dev[1][0], APENET_LDM_F_XPLUS, APENET_LDM_BROKEN);
	/* the other links stay up */
	assert_int_equal(lstate(&dev[1][0], "X-"), APENET_LINK_UP);
	clear_and_wait("1,0,0");
}

static int crc_errors_seen(void *ctx)
{
	(void)ctx;
	return lreg64(&dev[0][2], "Y-", APENET_LINK_HDR_CRC_ERR) + lreg64(&dev[0][2], "Y-", APENET_LINK_FTR_CRC_ERR) > 0 &&
	       lreg64(&dev[0][1], "Y+", APENET_LINK_RETRANS) > 0 &&
	       apenet_rd64(&dev[0][2], apenet_lane_off(3, 1, APENET_LANE_CODE_VIOL)) > 0;
}

static void test_cable_ber(void **state)
{
	(void)state;
	assert_int_equal(INJECT("0,1,0", "cable-ber", "--link", "Y+", "--ber", "1e-7", NULL), 0);
	assert_true(e2e_wait(crc_errors_seen, NULL, DEADLINE));
	wait_ldm(&dev[0][1], APENET_LDM_F_YPLUS, APENET_LDM_SICK);
	clear_and_wait("0,1,0");
}

static void test_lane_dead_degrades_width(void **state)
{
	(void)state;
	struct apenet_err e = { 0 };
	assert_int_equal(INJECT("2,0,0", "lane-dead", "--link", "Y+", "--lane", "2", NULL), 0);
	wait_state(&dev[2][0], "Y+", APENET_LINK_DEGRADED);
	wait_state(&dev[2][1], "Y-", APENET_LINK_DEGRADED);
	uint32_t st = lreg(&dev[2][0], "Y+", APENET_LINK_STATE);
	assert_int_equal(APENET_GET(LINK_STATE, LANES_UP, st), 0xb);
	assert_int_equal(APENET_GET(LINK_STATE, LANES_USED, st), 0xf);
	wait_ldm(&dev[2][0], APENET_LDM_F_YPLUS, APENET_LDM_SICK);
	/* after the repair, a realign command brings all four lanes back */
	assert_int_equal(INJECT("2,0,0", "clear", NULL), 0);
	uint64_t downs = lreg64(&dev[2][0], "Y+", APENET_LINK_DOWN_EVENTS);
	assert_int_equal(apenet_dev_command(&dev[2][0], APENET_CMD_REALIGN, link_idx(&dev[2][0], "Y+"), 5000, &e), 0);
	assert_true(lreg64(&dev[2][0], "Y+", APENET_LINK_DOWN_EVENTS) > downs);
	assert_true(e2e_wait(all_up, NULL, DEADLINE));
}

static int partner_is(struct apenet_dev *d, const char *link, unsigned x, unsigned y, unsigned port)
{
	uint32_t p = lreg(d, link, APENET_LINK_PARTNER);
	return APENET_GET(LINK_PARTNER, VALID, p) && APENET_GET(LINK_PARTNER, X, p) == x &&
	       APENET_GET(LINK_PARTNER, Y, p) == y && APENET_GET(LINK_PARTNER, PORT, p) == port;
}

static int swapped(void *ctx)
{
	(void)ctx;
	return partner_is(&dev[0][0], "X+", 3, 0, 0) && partner_is(&dev[0][0], "X-", 1, 0, 1) &&
	       partner_is(&dev[3][0], "X+", 0, 0, 0) && partner_is(&dev[1][0], "X-", 0, 0, 1);
}

static int unswapped(void *ctx)
{
	(void)ctx;
	return partner_is(&dev[0][0], "X+", 1, 0, 1) && partner_is(&dev[0][0], "X-", 3, 0, 0);
}

static void test_cable_swap(void **state)
{
	(void)state;
	assert_int_equal(INJECT("0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-", NULL), 0);
	plugs_swapped = 1;
	assert_true(e2e_wait(swapped, NULL, DEADLINE));
	assert_true(e2e_wait(all_up, NULL, DEADLINE)); /* swapped links still train */
	assert_int_equal(INJECT("0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-", NULL), 0);
	plugs_swapped = 0;
	assert_true(e2e_wait(unswapped, NULL, DEADLINE));
	assert_true(e2e_wait(all_up, NULL, DEADLINE));
}

/* The DNP heartbeat and the LDMs its neighbour hears, compared over a
 * window of card time (the card's TIMESTAMP runs on while the DNP hangs). */
struct frozen {
	struct apenet_dev *d, *nb;
	int have;
	uint32_t hb;
	uint64_t ts, rxts;
};

static int dnp_frozen(void *ctx)
{
	struct frozen *f = ctx;
	uint64_t now = apenet_rd64(f->d, APENET_REG_TIMESTAMP);
	if (f->have && now - f->ts < 75000000ull) /* 0.3 s */
		return 0;
	uint32_t hb = apenet_rd32(f->d, APENET_REG_WD_DNP_HB);
	uint64_t rxts = lreg64(f->nb, "X-", APENET_LINK_LDM_RX_TS);
	if (f->have && hb == f->hb && rxts == f->rxts)
		return 1; /* frozen, and the neighbour hears no LDM */
	/* moved (or first look): the window starts again from here */
	f->have = 1;
	f->hb = hb;
	f->rxts = rxts;
	f->ts = now;
	return 0;
}

static void test_dnp_hang(void **state)
{
	(void)state;
	struct apenet_dev *d = &dev[3][3], *nb = &dev[0][3]; /* 0,3,0 X- faces 3,3,0 X+ */
	struct apenet_err e = { 0 };
	assert_int_equal(INJECT("3,3,0", "dnp-hang", NULL), 0);
	/* the beat stops: it no longer moves over 300 ms of card time */
	struct frozen f = { d, nb, 0, 0, 0, 0 };
	assert_true(e2e_wait(dnp_frozen, &f, DEADLINE));
	/* commands are not acknowledged */
	assert_int_equal(apenet_dev_command(d, APENET_CMD_NOP, 0, 200, &e), -1);
	assert_int_equal(e.code, APENET_EBUSY);
	assert_int_equal(INJECT("3,3,0", "clear", NULL), 0);
	assert_int_equal(apenet_dev_command(d, APENET_CMD_NOP, 0, 5000, &e), 0);
}

static int hot_and_drooping(void *ctx)
{
	struct apenet_dev *d = ctx;
	int32_t t = (int32_t)apenet_rd32(d, APENET_REG_SENS_FPGA_TEMP);
	uint32_t v = apenet_rd32(d, APENET_REG_SENS_VCORE), nom = apenet_rd32(d, APENET_REG_SENS_VCORE_NOM);
	uint32_t ldm = apenet_rd32(d, APENET_REG_LDM_OWN);
	return t > 90000 && v < nom * 0.92 && APENET_GET(LDM, TEMPERATURE, ldm) == APENET_LDM_SICK &&
	       APENET_GET(LDM, VOLTAGE, ldm) == APENET_LDM_BROKEN;
}

static int cool_and_steady(void *ctx)
{
	struct apenet_dev *d = ctx;
	return APENET_GET(LDM, VOLTAGE, apenet_rd32(d, APENET_REG_LDM_OWN)) == APENET_LDM_NORMAL &&
	       (int32_t)apenet_rd32(d, APENET_REG_SENS_FPGA_TEMP) <= 85000;
}

static void test_overheat_and_voltage_droop(void **state)
{
	(void)state;
	struct apenet_dev *d = &dev[1][1];
	assert_int_equal(INJECT("1,1,0", "overheat", "--celsius", "95", NULL), 0);
	assert_int_equal(INJECT("1,1,0", "voltage-droop", "--percent", "10", NULL), 0);
	assert_true(e2e_wait(hot_and_drooping, d, DEADLINE));
	assert_int_equal(INJECT("1,1,0", "clear", NULL), 0);
	assert_true(e2e_wait(cool_and_steady, d, DEADLINE));
}

static void test_pcie_degrade(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	struct apenet_site site;
	struct apenet_card cards[4];
	struct apenet_err e = { 0 };
	int n = 0;
	assert_int_equal(INJECT("2,2,0", "pcie-degrade", "--width", "4", "--gen", "1", NULL), 0);
	e2e_node_dir(&sim, 2, 2, 0, dir, sizeof(dir));
	assert_int_equal(apenet_site_init(&site, dir, &e), 0);
	assert_int_equal(apenet_pci_scan(&site, cards, 4, &n, &e), 0);
	assert_int_equal(n, 1);
	assert_true(cards[0].pcie_ok);
	assert_int_equal(cards[0].pcie.cap_gen, 2);
	assert_int_equal(cards[0].pcie.cap_width, 8);
	assert_int_equal(cards[0].pcie.sta_gen, 1);
	assert_int_equal(cards[0].pcie.sta_width, 4);
	assert_true(cards[0].pcie.degraded);
	/* apenet list flags it and exits 1 */
	static char out[65536];
	assert_int_equal(e2e_run(out, sizeof(out), NULL, 0, "apenet", "list", "--json", "--sim", dir, NULL), 1);
	assert_non_null(strstr(out, "\"degraded\": true"));
	assert_int_equal(INJECT("2,2,0", "clear", NULL), 0);
	assert_int_equal(apenet_pci_scan(&site, cards, 4, &n, &e), 0);
	assert_false(cards[0].pcie.degraded);
	assert_int_equal(e2e_run(out, sizeof(out), NULL, 0, "apenet", "list", "--json", "--sim", dir, NULL), 0);
}

static void test_card_gone(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	static struct apenet_snapshot s;
	static char out[65536], err[4096];
	struct apenet_err e = { 0 };
	e2e_node_dir(&sim, 3, 0, 0, dir, sizeof(dir));
	assert_int_equal(INJECT("3,0,0", "card-gone", NULL), 0);
	assert_int_equal(apenet_dev_check(&dev[3][0], &e), -1);
	assert_int_equal(e.code, APENET_EGONE);
	assert_int_equal(apenet_snapshot_read(&dev[3][0], &s, &e), -1);
	assert_int_equal(e.code, APENET_EGONE);
	/* the tools: a clear error naming the BDF, exit 2, no garbage */
	assert_int_equal(e2e_run(out, sizeof(out), err, sizeof(err), "apenet", "regs", "--sim", dir, NULL), 2);
	assert_non_null(strstr(err, "card not responding"));
	assert_non_null(strstr(err, "0000:03:00.0"));
	assert_string_equal(out, "");
	assert_int_equal(e2e_run(out, sizeof(out), err, sizeof(err), "apenet", "list", "--sim", dir, NULL), 2);
	assert_non_null(strstr(err, "card not responding"));
	/* its neighbours lose the links to it */
	wait_state(&dev[2][0], "X+", APENET_LINK_DOWN);
	wait_state(&dev[0][0], "X-", APENET_LINK_DOWN);
	clear_and_wait("3,0,0");
	assert_int_equal(apenet_dev_check(&dev[3][0], &e), 0);
}

/* Card time (TIMESTAMP, 250 MHz) on a board that is not the one powered off. */
struct card_time {
	struct apenet_dev *d;
	uint64_t until;
};

static int card_time_passed(void *ctx)
{
	struct card_time *c = ctx;
	return apenet_rd64(c->d, APENET_REG_TIMESTAMP) >= c->until;
}

/* LDM words arrive again on a neighbour's link. */
struct rx_more {
	struct apenet_dev *d;
	const char *link;
	uint32_t count;
};

static int ldm_rx_more(void *ctx)
{
	struct rx_more *m = ctx;
	return lreg(m->d, m->link, APENET_LINK_LDM_RX_COUNT) != m->count;
}

static void test_power_off(void **state)
{
	(void)state;
	char dir[PATH_MAX];
	static char out[65536], err[4096];
	struct apenet_err e = { 0 };
	/* 1,2,0 and the neighbours' links that face it */
	struct {
		struct apenet_dev *d;
		const char *link;
		unsigned field;
		uint32_t rx_count;
	} nbr[] = {
		{ &dev[0][2], "X+", APENET_LDM_F_XPLUS, 0 },
		{ &dev[2][2], "X-", APENET_LDM_F_XMINUS, 0 },
		{ &dev[1][1], "Y+", APENET_LDM_F_YPLUS, 0 },
		{ &dev[1][3], "Y-", APENET_LDM_F_YMINUS, 0 },
	};
	struct apenet_dev *v = &dev[1][2];
	uint64_t uptime = apenet_rd64(v, APENET_REG_UPTIME_TS);
	e2e_node_dir(&sim, 1, 2, 0, dir, sizeof(dir));
	assert_int_equal(INJECT("1,2,0", "power-off", NULL), 0);
	/* it reads all ones, like a card that left the bus */
	assert_int_equal(apenet_dev_check(v, &e), -1);
	assert_int_equal(e.code, APENET_EGONE);
	assert_int_equal(e2e_run(out, sizeof(out), err, sizeof(err), "apenet", "status", "--sim", dir, NULL), 2);
	assert_non_null(strstr(err, "card not responding"));
	assert_string_equal(out, "");
	/* and its links go dark: each neighbour loses signal on its link to it */
	for (unsigned i = 0; i < 4; i++) {
		wait_state(nbr[i].d, nbr[i].link, APENET_LINK_DOWN);
		wait_ldm(nbr[i].d, nbr[i].field, APENET_LDM_BROKEN);
		unsigned l = link_idx(nbr[i].d, nbr[i].link);
		for (unsigned k = 0; k < 4; k++) {
			uint32_t ls = apenet_rd32(nbr[i].d, apenet_lane_off(l, k, APENET_LANE_STATE));
			assert_int_equal(APENET_GET(LANE_STATE, SIGNAL, ls), 0);
			assert_int_equal(APENET_GET(LANE_STATE, PHASE, ls), APENET_PHASE_RESET);
		}
		assert_false(APENET_GET(LINK_PARTNER, VALID, lreg(nbr[i].d, nbr[i].link, APENET_LINK_PARTNER)));
		nbr[i].rx_count = lreg(nbr[i].d, nbr[i].link, APENET_LINK_LDM_RX_COUNT);
	}
	/* no LDM word from it arrives while it is off: 0.3 s of card time later */
	struct card_time ct = { &dev[0][0], apenet_rd64(&dev[0][0], APENET_REG_TIMESTAMP) + 75000000ull };
	assert_true(e2e_wait(card_time_passed, &ct, DEADLINE));
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(lreg(nbr[i].d, nbr[i].link, APENET_LINK_LDM_RX_COUNT), nbr[i].rx_count);
		assert_int_equal(lstate(nbr[i].d, nbr[i].link), APENET_LINK_DOWN);
	}
	/* power on: every link trains again, the card answers, and it started cold */
	clear_and_wait("1,2,0");
	assert_int_equal(apenet_dev_check(v, &e), 0);
	assert_true(apenet_rd64(v, APENET_REG_UPTIME_TS) > uptime);
	int rc = e2e_run(out, sizeof(out), err, sizeof(err), "apenet", "status", "--sim", dir, NULL);
	if (rc != 0 && rc != 1)
		fail_msg("apenet status after power-on: exit %d: %s", rc, err);
	for (unsigned i = 0; i < 4; i++) {
		struct rx_more m = { nbr[i].d, nbr[i].link, nbr[i].rx_count };
		assert_true(e2e_wait(ldm_rx_more, &m, DEADLINE));
	}
}

static int host_expired(void *ctx)
{
	struct apenet_dev *d = ctx;
	return APENET_GET(WD_STATUS, HOST_EXPIRED, apenet_rd32(d, APENET_REG_WD_STATUS)) &&
	       APENET_GET(LDM, HOST_EXPIRED, apenet_rd32(d, APENET_REG_LDM_OWN)) &&
	       APENET_GET(LDM, HOST_EXPIRED, lreg(&dev[1][2], "X-", APENET_LINK_LDM_RX));
}

/* One host heartbeat, then: has the DNP seen the host back? */
static int beat_until_recovered(void *ctx)
{
	struct apenet_dev *d = ctx;
	apenet_wr32(d, APENET_REG_WD_HOST_HB, apenet_rd32(d, APENET_REG_WD_HOST_HB) + 1);
	return !APENET_GET(WD_STATUS, HOST_EXPIRED, apenet_rd32(d, APENET_REG_WD_STATUS)) &&
	       !APENET_GET(LDM, HOST_EXPIRED, apenet_rd32(d, APENET_REG_LDM_OWN));
}

static void test_watchdog_host_expires_and_recovers(void **state)
{
	(void)state;
	struct apenet_dev *d = &dev[0][2];
	touch(0, 2);
	apenet_wr32(d, APENET_REG_WD_PERIOD_US, 20000);
	apenet_wr32(d, APENET_REG_WD_TIMEOUT_BEATS, 3);
	apenet_wr32(d, APENET_REG_WD_CTRL, APENET_SET(WD_CTRL, ENABLE, 1));
	/* the host does not beat: expired after 3 missed beats, and the neighbours hear it */
	assert_true(e2e_wait(host_expired, d, DEADLINE));
	assert_true(apenet_rd32(d, APENET_REG_WD_EXPIRE_COUNT) >= 1);
	/* the host beats again (once a poll): the DNP clears it */
	assert_true(e2e_wait(beat_until_recovered, d, DEADLINE));
	apenet_wr32(d, APENET_REG_WD_CTRL, 0);
}

struct prbs_ctx {
	struct apenet_dev *a, *b;
	unsigned la, lb;
	uint64_t min_bits;
};

static int prbs_locked(void *ctx)
{
	struct prbs_ctx *p = ctx;
	uint32_t sa = apenet_rd32(p->a, apenet_lane_off(p->la, 0, APENET_LANE_PRBS_STATUS));
	uint32_t sb = apenet_rd32(p->b, apenet_lane_off(p->lb, 0, APENET_LANE_PRBS_STATUS));
	return APENET_GET(LANE_PRBS_STATUS, LOCKED, sa) && APENET_GET(LANE_PRBS_STATUS, LOCKED, sb) &&
	       apenet_rd64(p->a, apenet_lane_off(p->la, 0, APENET_LANE_PRBS_BITS)) >= p->min_bits;
}

static void test_prbs_both_ends(void **state)
{
	(void)state;
	struct prbs_ctx p = { &dev[1][2], &dev[1][3], link_idx(&dev[1][2], "Y+"), link_idx(&dev[1][3], "Y-"), 1u << 22 };
	touch(1, 2);
	touch(1, 3);
	uint32_t ctrl = APENET_SET(LANE_PRBS_CTRL, PATTERN, APENET_PRBS31) | APENET_SET(LANE_PRBS_CTRL, ENABLE, 1);
	apenet_wr32(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_CTRL), ctrl);
	apenet_wr32(p.b, apenet_lane_off(p.lb, 0, APENET_LANE_PRBS_CTRL), ctrl);
	assert_true(e2e_wait(prbs_locked, &p, DEADLINE));
	wait_state(p.a, "Y+", APENET_LINK_PRBS);
	assert_int_equal(apenet_rd32(p.a, APENET_REG_BER_ACCEL), 1);
	/* a healthy 2 m cable: no errors in the bits checked so far */
	assert_int_equal(apenet_rd64(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_ERRS)), 0);
	assert_int_equal(apenet_rd32(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_ERRWORD)), 0);
	/* a bad cable: the checker counts errors near the injected BER */
	assert_int_equal(INJECT("1,2,0", "cable-ber", "--link", "Y+", "--ber", "1e-4", NULL), 0);
	apenet_wr32(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_CTRL), ctrl | APENET_SET(LANE_PRBS_CTRL, CLEAR, 1));
	p.min_bits = 1ull << 30;
	assert_true(e2e_wait(prbs_locked, &p, DEADLINE));
	double bits = (double)apenet_rd64(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_BITS));
	double errs = (double)apenet_rd64(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_ERRS));
	assert_true(errs / bits > 0.5e-4);
	assert_true(errs / bits < 2e-4);
	apenet_wr32(p.a, apenet_lane_off(p.la, 0, APENET_LANE_PRBS_CTRL), 0);
	apenet_wr32(p.b, apenet_lane_off(p.lb, 0, APENET_LANE_PRBS_CTRL), 0);
	clear_and_wait("1,2,0");
}

static int z_traffic(void *ctx)
{
	return lreg64(ctx, "Z+", APENET_LINK_TX_PKTS) > 0;
}

static void test_clear_counters_command(void **state)
{
	(void)state;
	struct apenet_dev *d = &dev[2][3];
	struct apenet_err e = { 0 };
	/* first in a run, the links may have just come up */
	assert_true(e2e_wait(z_traffic, d, DEADLINE));
	uint64_t before = lreg64(d, "Z+", APENET_LINK_TX_PKTS);
	uint64_t ts0 = apenet_rd64(d, APENET_REG_CNT_CLEAR_TS);
	assert_true(before > 0);
	assert_int_equal(apenet_dev_command(d, APENET_CMD_CLEAR_COUNTERS, APENET_ALL_ONES, 5000, &e), 0);
	assert_true(lreg64(d, "Z+", APENET_LINK_TX_PKTS) < before);
	assert_true(apenet_rd64(d, APENET_REG_CNT_CLEAR_TS) > ts0);
	assert_int_equal(apenet_dev_command(d, 99, 0, 5000, &e), -1); /* unknown code */
	assert_non_null(strstr(e.msg, "CMD_RESULT"));
	assert_int_equal(apenet_dev_command(d, APENET_CMD_REALIGN, 17, 5000, &e), -1);
}

static void test_inject_rejects_bad_requests(void **state)
{
	(void)state;
	assert_int_equal(INJECT("9,0,0", "dnp-hang", NULL), 2);
	assert_int_equal(INJECT("0,0,0", "melt", NULL), 2);
	assert_int_equal(INJECT("0,0,0", "cable-unplug", "--link", "W+", NULL), 2);
	assert_int_equal(INJECT("0,0,0", "cable-ber", "--link", "X+", "--ber", "2", NULL), 2);
	assert_int_equal(INJECT("0,0,0", "overheat", "--celsius", "90", "--link", "X+", NULL), 2);
	/* nothing was applied by the refused requests */
	assert_true(all_up(NULL));
	assert_true((int32_t)apenet_rd32(&dev[0][0], APENET_REG_SENS_FPGA_TEMP) < 85000);
}

/* E2E_SHUFFLE=SEED: a Fisher-Yates shuffle driven by a small LCG, so that
 * an order that fails can be run again from its seed. */
static void shuffle(struct CMUnitTest *t, size_t n, unsigned long seed)
{
	for (size_t i = n - 1; i > 0; i--) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		size_t j = (size_t)(seed >> 33) % (i + 1);
		struct CMUnitTest tmp = t[i];
		t[i] = t[j];
		t[j] = tmp;
	}
}

int main(void)
{
	struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_all_96_link_ends_up_with_right_partners, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_ldm_words_reach_every_neighbour, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_is_consistent_and_counters_move, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cable_unplug, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cable_ber, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_lane_dead_degrades_width, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_cable_swap, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_dnp_hang, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_overheat_and_voltage_droop, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_pcie_degrade, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_card_gone, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_power_off, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_watchdog_host_expires_and_recovers, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_prbs_both_ends, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_clear_counters_command, test_setup, test_teardown),
		cmocka_unit_test_setup_teardown(test_inject_rejects_bad_requests, test_setup, test_teardown),
	};
	const char *seed = getenv("E2E_SHUFFLE"), *filter = getenv("E2E_FILTER");
	size_t n = sizeof(tests) / sizeof(tests[0]);
	if (seed && !strcmp(seed, "reverse")) {
		for (size_t i = 0; i < n / 2; i++) {
			struct CMUnitTest tmp = tests[i];
			tests[i] = tests[n - 1 - i];
			tests[n - 1 - i] = tmp;
		}
	} else if (seed && *seed) {
		shuffle(tests, n, strtoul(seed, NULL, 10));
	}
	if (seed && *seed) {
		fprintf(stderr, "e2e_sim: E2E_SHUFFLE=%s order:", seed);
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, " %s", tests[i].name);
		fputc('\n', stderr);
	}
	if (filter && *filter)
		cmocka_set_test_filter(filter);
	return cmocka_run_group_tests_name("e2e_sim", tests, group_setup, group_teardown);
}
