/*
 * Tests of the emulator's firmware model (sim/torus.c, sim/firmware.c,
 * sim/link.c, sim/prbs_lane.c, sim/inject.c), driven in-process: a torus
 * is built in a temporary directory and simulated time is advanced by hand
 * (TIMESTAMP and the tick's dt together), so nothing sleeps and every run
 * replays the same seed.  State is read from BAR0 the way a tool would
 * read it; the model's structs are used only where the BAR cannot say
 * (which cable a fault went to, the lane BER the channel model chose).
 *
 * Expected values are derived here from SPEC and regs.h (torus geometry,
 * the link efficiency model, Poisson statistics, the PRBS codec), not
 * copied from a run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/ldm.h"
#include "apenet/linkmodel.h"
#include "apenet/prbs.h"
#include "apenet/module.h"
#include "apenet/regs.h"
#include "apenet/sff8472.h"
#include "../../../sim/sim.h"

#define US_TO_TS (SIM_TS_HZ / 1000000u) /* TIMESTAMP ticks per microsecond */

struct fx {
	char dir[64];
	struct sim_torus t;
	void *mem[8]; /* freed by teardown, so a failed assertion leaks nothing */
	unsigned nmem;
};

static void *fx_alloc(struct fx *f, size_t n)
{
	assert_true(f->nmem < sizeof(f->mem) / sizeof(f->mem[0]));
	void *p = calloc(1, n);
	assert_non_null(p);
	f->mem[f->nmem++] = p;
	return p;
}

/* ---- fixture: one temporary directory per test ---- */

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/apenet-torus-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sim_torus_destroy(&f->t); /* no-op when the test already did it */
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	for (unsigned i = 0; i < f->nmem; i++)
		free(f->mem[i]);
	free(f);
	return 0;
}

static struct sim_torus *torus(struct fx *f, enum apenet_variant v, unsigned x, unsigned y, unsigned z,
			       uint32_t ber_accel)
{
	struct sim_conf c;
	struct apenet_err e;

	memset(&c, 0, sizeof(c));
	c.dims[0] = x;
	c.dims[1] = y;
	c.dims[2] = z;
	c.prof = apenet_profile(v);
	assert_non_null(c.prof);
	c.seed = 42;
	c.ber_accel = ber_accel;
	c.tick_ms = 10;
	c.cable_kind = -1;
	if (sim_torus_create(&f->t, &c, f->dir, &e))
		fail_msg("sim_torus_create: %s", e.msg);
	return &f->t;
}

/* Advance simulated time by us microseconds: TIMESTAMP first, then the tick. */
static void step(struct sim_torus *t, unsigned us)
{
	t->now_ts += (uint64_t)us * US_TO_TS;
	sim_torus_tick(t, us * 1e-6);
}

static void run(struct sim_torus *t, unsigned us, unsigned total_us)
{
	for (unsigned s = 0; s < total_us; s += us)
		step(t, us);
}

/* ---- BAR access, as a tool sees it ---- */

static uint32_t rd32(const struct sim_board *b, uint32_t off)
{
	return b->bar[off / 4];
}

static uint64_t rd64(const struct sim_board *b, uint32_t off)
{
	return (uint64_t)b->bar[off / 4] | (uint64_t)b->bar[off / 4 + 1] << 32;
}

static void wr32(struct sim_board *b, uint32_t off, uint32_t v)
{
	b->bar[off / 4] = v;
}

static uint32_t link_reg(const struct sim_board *b, unsigned l, unsigned reg)
{
	return rd32(b, apenet_link_off(l, reg));
}

static uint64_t link_reg64(const struct sim_board *b, unsigned l, unsigned reg)
{
	return rd64(b, apenet_link_off(l, reg));
}

static uint32_t lane_reg(const struct sim_board *b, unsigned l, unsigned k, unsigned reg)
{
	return rd32(b, apenet_lane_off(l, k, reg));
}

static uint64_t lane_reg64(const struct sim_board *b, unsigned l, unsigned k, unsigned reg)
{
	return rd64(b, apenet_lane_off(l, k, reg));
}

static unsigned link_state(const struct sim_board *b, unsigned l)
{
	return APENET_GET(LINK_STATE, STATE, link_reg(b, l, APENET_LINK_STATE));
}

static unsigned lane_phase(const struct sim_board *b, unsigned l, unsigned k)
{
	return APENET_GET(LANE_STATE, PHASE, lane_reg(b, l, k, APENET_LANE_STATE));
}

static struct sim_board *board(struct sim_torus *t, unsigned x, unsigned y, unsigned z)
{
	return &t->b[sim_index(t, x, y, z)];
}

static int link_idx(const struct sim_board *b, const char *name)
{
	for (unsigned l = 0; l < b->prof->nlinks; l++)
		if (!strcmp(b->prof->links[l].name, name))
			return (int)l;
	fail_msg("%s has no link %s", b->prof->name, name);
	return -1;
}

/* Run a fault request; argv as a command line would give it. */
static int inject(struct sim_torus *t, char *reply, size_t n, int argc, ...)
{
	char *argv[12];
	va_list ap;

	assert_true(argc <= 12);
	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return sim_inject(t, argv, argc, reply, n);
}

static void inject_ok(struct sim_torus *t, int argc, ...)
{
	char *argv[12], reply[512];
	va_list ap;

	assert_true(argc <= 12);
	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	if (sim_inject(t, argv, argc, reply, sizeof(reply)))
		fail_msg("inject %s %s: %s", argv[0], argv[1], reply);
	assert_memory_equal(reply, "ok:", 3);
}

/* ---- the torus as SPEC describes it, independently of sim/torus.c ---- */

struct end {
	int board, link; /* board -1: nothing cabled; -2: an external device */
};

static enum apenet_dir opposite(enum apenet_dir d)
{
	switch (d) {
	case APENET_DIR_XP: return APENET_DIR_XM;
	case APENET_DIR_XM: return APENET_DIR_XP;
	case APENET_DIR_YP: return APENET_DIR_YM;
	case APENET_DIR_YM: return APENET_DIR_YP;
	case APENET_DIR_ZP: return APENET_DIR_ZM;
	case APENET_DIR_ZM: return APENET_DIR_ZP;
	default: return d; /* one channel per dimension faces the same channel */
	}
}

/* Where the cable from (b, l) should end: +/- neighbours with wraparound;
 * v5's per-dimension channels pair coordinate c with c^1 when that exists. */
static struct end expected_end(const struct sim_torus *t, const struct sim_board *b, unsigned l)
{
	enum apenet_dir d = b->prof->links[l].dir;
	int c[3] = { (int)b->x, (int)b->y, (int)b->z }, dim = -1, delta = 0;
	struct end e = { -1, -1 };

	switch (d) {
	case APENET_DIR_XP: dim = 0; delta = 1; break;
	case APENET_DIR_XM: dim = 0; delta = -1; break;
	case APENET_DIR_YP: dim = 1; delta = 1; break;
	case APENET_DIR_YM: dim = 1; delta = -1; break;
	case APENET_DIR_ZP: dim = 2; delta = 1; break;
	case APENET_DIR_ZM: dim = 2; delta = -1; break;
	case APENET_DIR_X: dim = 0; break;
	case APENET_DIR_Y: dim = 1; break;
	case APENET_DIR_Z: dim = 2; break;
	case APENET_DIR_EXT: e.board = -2; return e;
	}
	if (delta) {
		c[dim] = (c[dim] + delta + (int)t->dims[dim]) % (int)t->dims[dim];
	} else {
		c[dim] ^= 1;
		if (c[dim] >= (int)t->dims[dim])
			return e;
	}
	const struct sim_board *nb = &t->b[sim_index(t, (unsigned)c[0], (unsigned)c[1], (unsigned)c[2])];
	for (unsigned k = 0; k < nb->prof->nlinks; k++)
		if (nb->prof->links[k].dir == opposite(d)) {
			e.board = (int)nb->idx;
			e.link = (int)k;
		}
	return e;
}

static uint32_t partner_of(const struct sim_torus *t, struct end e)
{
	if (e.board == -2)
		return APENET_SET(LINK_PARTNER, EXTERNAL, 1) | APENET_SET(LINK_PARTNER, VALID, 1);
	const struct sim_board *p = &t->b[e.board];
	return APENET_SET(LINK_PARTNER, X, p->x) | APENET_SET(LINK_PARTNER, Y, p->y) |
	       APENET_SET(LINK_PARTNER, Z, p->z) | APENET_SET(LINK_PARTNER, PORT, (unsigned)e.link) |
	       APENET_SET(LINK_PARTNER, VALID, 1);
}

static int all_up(const struct sim_torus *t)
{
	for (unsigned i = 0; i < t->nboards; i++)
		for (unsigned l = 0; l < t->b[i].prof->nlinks; l++)
			if (expected_end(t, &t->b[i], l).board != -1 && link_state(&t->b[i], l) != APENET_LINK_UP)
				return 0;
	return 1;
}

/* Tick until every cabled end is up; returns the simulated time it took. */
static unsigned bring_up(struct sim_torus *t, unsigned dt_us, unsigned limit_us)
{
	unsigned us = 0;

	/* at least one tick: the BAR shows the state of the last one */
	do {
		if (us >= limit_us)
			fail_msg("links not up after %u us", us);
		step(t, dt_us);
		us += dt_us;
	} while (!all_up(t));
	return us;
}

/* ---- 1. bring-up phase by phase ---- */

static void test_bringup_phases(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	/* the two ends of one cable: 0,0,0 X+ and 1,0,0 X- */
	struct sim_board *eb[2] = { b0, b1 };
	unsigned el[2] = { (unsigned)link_idx(b0, "X+"), (unsigned)link_idx(b1, "X-") };
	unsigned seq[2][8], nseq[2] = { 0, 0 }, up_tick[2] = { 0, 0 };
	unsigned nlanes = b0->prof->links[el[0]].lanes;

	/* Before the first tick the BAR is blank: lane 0 shows RESET. */
	for (int e = 0; e < 2; e++) {
		seq[e][nseq[e]++] = lane_phase(eb[e], el[e], 0);
		assert_int_equal(seq[e][0], APENET_PHASE_RESET);
	}
	for (unsigned tick = 1; tick <= 200 && (!up_tick[0] || !up_tick[1]); tick++) {
		step(t, 1000);
		for (int e = 0; e < 2; e++) {
			struct sim_board *b = eb[e];
			unsigned l = el[e], minp = APENET_PHASE_UP, upmask = 0, any_ok = 0;
			unsigned p = lane_phase(b, l, 0), ls = link_reg(b, l, APENET_LINK_STATE);
			uint32_t partner = link_reg(b, l, APENET_LINK_PARTNER);

			assert_true(p >= seq[e][nseq[e] - 1]); /* never backwards */
			if (p != seq[e][nseq[e] - 1]) {
				assert_true(nseq[e] < 8);
				seq[e][nseq[e]++] = p;
			}
			for (unsigned k = 0; k < nlanes; k++) {
				unsigned pk = lane_phase(b, l, k);
				minp = pk < minp ? pk : minp;
				upmask |= (pk == APENET_PHASE_UP) << k;
				any_ok |= pk >= APENET_PHASE_ALIGN_OK;
				/* a cabled lane with a live partner has signal */
				assert_int_equal(APENET_GET(LANE_STATE, SIGNAL, lane_reg(b, l, k, APENET_LANE_STATE)), 1);
			}
			/* LINK_STATE agrees with its lanes */
			assert_int_equal(APENET_GET(LINK_STATE, PHASE, ls), minp);
			assert_int_equal(APENET_GET(LINK_STATE, LANES_UP, ls), upmask);
			assert_int_equal(APENET_GET(LINK_STATE, LANES_USED, ls), (1u << nlanes) - 1);
			/* TRAINING until every lane is up, then UP, never anything else */
			if (upmask == (1u << nlanes) - 1) {
				assert_int_equal(APENET_GET(LINK_STATE, STATE, ls), APENET_LINK_UP);
				if (!up_tick[e]) {
					up_tick[e] = tick;
					assert_int_equal(link_reg64(b, l, APENET_LINK_UP_TS), rd64(b, APENET_REG_TIMESTAMP));
				}
			} else {
				assert_int_equal(up_tick[e], 0);
				assert_int_equal(APENET_GET(LINK_STATE, STATE, ls), APENET_LINK_TRAINING);
			}
			/* the partner's identity rides in ALIGN OK words: valid only after one */
			assert_int_equal(APENET_GET(LINK_PARTNER, VALID, partner), any_ok);
			if (any_ok)
				assert_int_equal(partner, partner_of(t, expected_end(t, b, l)));
		}
	}
	for (int e = 0; e < 2; e++) {
		static const unsigned want[] = { APENET_PHASE_RESET, APENET_PHASE_CHECK_ALIGN, APENET_PHASE_ALIGN_OK,
						 APENET_PHASE_DESKEW, APENET_PHASE_UP };
		char got[64] = "";
		for (unsigned i = 0; i < nseq[e]; i++)
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u", i ? "," : "", seq[e][i]);
		if (nseq[e] != 5 || memcmp(seq[e], want, sizeof(want)))
			fail_msg("end %d: lane 0 phases %s, want 0,1,2,3,4", e, got);
	}
	/* deskew and up are link-level steps: both ends reach UP on one tick */
	assert_int_not_equal(up_tick[0], 0);
	assert_int_equal(up_tick[0], up_tick[1]);
	print_message("bring-up: UP after %u ms simulated\n", up_tick[0]);
	sim_torus_destroy(t);
}

/* ---- 2. topologies ---- */

/* Every cabled end is up (or, with nothing cabled, down with no partner)
 * and names the partner the geometry predicts; returns ends that are up. */
static unsigned check_partners(struct sim_torus *t)
{
	unsigned nup = 0;

	for (unsigned i = 0; i < t->nboards; i++) {
		struct sim_board *b = &t->b[i];
		for (unsigned l = 0; l < b->prof->nlinks; l++) {
			struct end e = expected_end(t, b, l);
			uint32_t p = link_reg(b, l, APENET_LINK_PARTNER);
			if (e.board == -1) {
				assert_int_equal(link_state(b, l), APENET_LINK_DOWN);
				assert_int_equal(p, 0);
				continue;
			}
			if (link_state(b, l) != APENET_LINK_UP || p != partner_of(t, e))
				fail_msg("%u,%u,%u %s: state %u partner 0x%08x, want up, 0x%08x", b->x, b->y, b->z,
					 b->prof->links[l].name, link_state(b, l), p, partner_of(t, e));
			nup++;
		}
	}
	return nup;
}

static void test_topologies(void **state)
{
	struct fx *f = *state;
	static const struct {
		enum apenet_variant v;
		unsigned x, y, z, want_up;
	} cases[] = {
		{ APENET_V_APENETP, 1, 1, 1, 6 },  /* every link cabled to its own opposite */
		{ APENET_V_APENETP, 2, 2, 1, 24 },
		{ APENET_V_APENETP, 4, 4, 1, 96 }, /* QUonG */
		{ APENET_V_V5, 2, 2, 2, 24 },      /* 8 nodes x X, Y, Z channels */
		{ APENET_V_V5, 3, 1, 1, 2 },       /* only 0 <-> 1 on X */
		{ APENET_V_NANET10, 1, 1, 1, 4 },  /* four 10GbE links to external devices */
	};

	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sim_torus *t = torus(f, cases[c].v, cases[c].x, cases[c].y, cases[c].z, 1);
		unsigned us = bring_up(t, 1000, 200000);
		/* and they stay up */
		run(t, 10000, 200000);
		unsigned nup = check_partners(t);
		print_message("%s %ux%ux%u: %u ends up after %u ms\n", t->b[0].prof->name, cases[c].x, cases[c].y,
			      cases[c].z, nup, us / 1000);
		assert_int_equal(nup, cases[c].want_up);
		if (cases[c].v == APENET_V_V5 && cases[c].x == 3) {
			/* node 2's X channel has no pair: no signal on any lane */
			struct sim_board *b2 = board(t, 2, 0, 0);
			int lx = link_idx(b2, "X");
			assert_int_equal(link_state(b2, (unsigned)lx), APENET_LINK_DOWN);
			for (unsigned k = 0; k < b2->prof->links[lx].lanes; k++)
				assert_int_equal(lane_reg(b2, (unsigned)lx, k, APENET_LANE_STATE), 0);
		}
		if (cases[c].v == APENET_V_NANET10)
			for (unsigned l = 0; l < t->b[0].prof->nlinks; l++) {
				uint32_t p = link_reg(&t->b[0], l, APENET_LINK_PARTNER);
				assert_int_equal(APENET_GET(LINK_PARTNER, EXTERNAL, p), 1);
				assert_int_equal(APENET_GET(LINK_PARTNER, VALID, p), 1);
			}
		sim_torus_destroy(t);
	}
}

/* ---- 3. a dead lane: the link comes up degraded ---- */

static void test_dead_lane(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b1 = board(t, 1, 0, 0), *b0 = board(t, 0, 0, 0);
	unsigned xp = (unsigned)link_idx(b1, "X+"), xm = (unsigned)link_idx(b0, "X-");
	unsigned degraded_ms = 0;

	inject_ok(t, 6, "1,0,0", "lane-dead", "--link", "X+", "--lane", "2");
	for (unsigned ms = 1; ms <= 1000 && !degraded_ms; ms++) {
		step(t, 1000);
		unsigned s1 = link_state(b1, xp), s0 = link_state(b0, xm);
		assert_int_equal(s1, s0); /* both ends of the cable agree */
		assert_int_not_equal(s1, APENET_LINK_UP);
		/* the dead lane never shows signal */
		assert_int_equal(lane_reg(b1, xp, 2, APENET_LANE_STATE), 0);
		assert_int_equal(lane_reg(b0, xm, 2, APENET_LANE_STATE), 0);
		if (s1 == APENET_LINK_DEGRADED)
			degraded_ms = ms;
	}
	print_message("dead lane: link DEGRADED after %u ms simulated\n", degraded_ms);
	/* the firmware waits ~0.5 s on the lane before it gives up */
	assert_true(degraded_ms >= 500 && degraded_ms <= 600);
	step(t, 1000); /* LDM_OWN is composed at the start of a tick */
	for (int e = 0; e < 2; e++) {
		struct sim_board *b = e ? b0 : b1;
		unsigned l = e ? xm : xp;
		uint32_t ls = link_reg(b, l, APENET_LINK_STATE), ldm = rd32(b, APENET_REG_LDM_OWN);
		assert_int_equal(APENET_GET(LINK_STATE, STATE, ls), APENET_LINK_DEGRADED);
		assert_int_equal(APENET_GET(LINK_STATE, LANES_UP, ls), 0xb);
		assert_int_equal(APENET_GET(LINK_STATE, LANES_USED, ls), 0xf);
		assert_int_equal(APENET_GET(LINK_STATE, PHASE, ls), APENET_PHASE_UP); /* over the lanes in use */
		assert_int_equal(APENET_GET(LDM, VALID, ldm), 1);
		/* this cable's field is SICK, the other X cable (a healthy one) NORMAL */
		assert_int_equal(e ? APENET_GET(LDM, XMINUS, ldm) : APENET_GET(LDM, XPLUS, ldm), APENET_LDM_SICK);
		assert_int_equal(e ? APENET_GET(LDM, XPLUS, ldm) : APENET_GET(LDM, XMINUS, ldm), APENET_LDM_NORMAL);
	}
	/* the neighbour hears it through the credits of the other X cable */
	run(t, 1000, 2000);
	uint32_t rx = link_reg(b0, (unsigned)link_idx(b0, "X+"), APENET_LINK_LDM_RX);
	assert_int_equal(APENET_GET(LDM, XPLUS, rx), APENET_LDM_SICK);
	/* it stays degraded and carries traffic on three lanes */
	uint64_t tx0 = link_reg64(b1, xp, APENET_LINK_TX_BYTES);
	run(t, 10000, 300000);
	assert_int_equal(link_state(b1, xp), APENET_LINK_DEGRADED);
	assert_true(link_reg64(b1, xp, APENET_LINK_TX_BYTES) > tx0);
	sim_torus_destroy(t);
}

/* ---- 4. a very bad cable never aligns; clearing it lets it up ---- */

static void test_bad_cable(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b1, "X-");
	uint64_t prev = 0;
	uint32_t prev_lane = 0;

	inject_ok(t, 6, "0,0,0", "cable-ber", "--link", "X+", "--ber", "1e-3");
	for (unsigned w = 0; w < 20; w++) { /* 2 s in windows of 100 ms */
		run(t, 10000, 100000);
		assert_int_equal(link_state(b0, xp), APENET_LINK_TRAINING);
		assert_int_equal(link_state(b1, xm), APENET_LINK_TRAINING);
		assert_int_equal(APENET_GET(LINK_PARTNER, VALID, link_reg(b0, xp, APENET_LINK_PARTNER)), 0);
		uint64_t r = link_reg64(b0, xp, APENET_LINK_ALIGN_RESTARTS);
		uint32_t rl = lane_reg(b0, xp, 1, APENET_LANE_ALIGN_RESTARTS);
		assert_true(r > prev);
		assert_true(rl > prev_lane);
		/* the link count is the sum over its lanes */
		uint64_t sum = 0;
		for (unsigned k = 0; k < 4; k++)
			sum += lane_reg(b0, xp, k, APENET_LANE_ALIGN_RESTARTS);
		assert_int_equal(sum, r);
		prev = r;
		prev_lane = rl;
	}
	/* a link that cannot come up is BROKEN in the LDM */
	assert_int_equal(APENET_GET(LDM, XPLUS, rd32(b0, APENET_REG_LDM_OWN)), APENET_LDM_BROKEN);
	print_message("bad cable: %llu align restarts in 2 s\n", (unsigned long long)prev);
	inject_ok(t, 2, "0,0,0", "clear");
	unsigned us = bring_up(t, 1000, 100000);
	print_message("bad cable: up %u ms after clear\n", us / 1000);
	assert_int_equal(link_state(b0, xp), APENET_LINK_UP);
	assert_int_equal(link_state(b1, xm), APENET_LINK_UP);
	sim_torus_destroy(t);
}

/* ---- 5. the DNP side of the mutual watchdog ---- */

static void test_watchdog(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned nb_link = (unsigned)link_idx(b1, "X-"); /* faces 0,0,0 X+ */
	const uint32_t period_us = 10000, beats = 3;
	const uint64_t period_ts = (uint64_t)period_us * US_TO_TS;

	bring_up(t, 1000, 100000);
	assert_int_equal(APENET_GET(WD_STATUS, ENABLED, rd32(b0, APENET_REG_WD_STATUS)), 0);
	wr32(b0, APENET_REG_WD_PERIOD_US, period_us);
	wr32(b0, APENET_REG_WD_TIMEOUT_BEATS, beats);
	wr32(b0, APENET_REG_WD_CTRL, APENET_SET(WD_CTRL, ENABLE, 1));
	step(t, 1000);
	assert_int_equal(APENET_GET(WD_STATUS, ENABLED, rd32(b0, APENET_REG_WD_STATUS)), 1);
	/* the grace period starts where the DNP says it last saw the host */
	uint64_t since_ts = rd64(b0, APENET_REG_WD_HOST_HB_TS);
	assert_int_equal(since_ts, rd64(b0, APENET_REG_TIMESTAMP));
	uint32_t hb0 = rd32(b0, APENET_REG_WD_DNP_HB);
	uint64_t ts0 = rd64(b0, APENET_REG_TIMESTAMP), expired_ts = 0;
	unsigned prev_missed = 0;

	while (!expired_ts) {
		step(t, 1000);
		uint64_t now = rd64(b0, APENET_REG_TIMESTAMP);
		uint32_t st = rd32(b0, APENET_REG_WD_STATUS);
		unsigned missed = APENET_GET(WD_STATUS, MISSED, st);
		assert_true(missed == prev_missed || missed == prev_missed + 1);
		prev_missed = missed;
		if (APENET_GET(WD_STATUS, HOST_EXPIRED, st)) {
			expired_ts = now;
			assert_true(missed >= beats);
		}
		if (now - since_ts > 6 * period_ts)
			fail_msg("host not declared expired after 6 periods");
	}
	double lat_ms = (double)(expired_ts - since_ts) / SIM_TS_HZ * 1e3;
	print_message("watchdog: period %u ms, %u beats: host expired %.1f ms after its last beat (%.2f periods)\n",
		      period_us / 1000, beats, lat_ms, lat_ms * 1000 / period_us);
	assert_true(expired_ts - since_ts >= 2 * period_ts);
	assert_true(expired_ts - since_ts <= 5 * period_ts);
	/* tighter: a countdown, checked at every firmware step: expired once
	 * `beats` periods passed, within the step (1 ms here) that saw it */
	assert_true(expired_ts - since_ts >= beats * period_ts);
	assert_true(expired_ts - since_ts <= beats * period_ts + 1000 * US_TO_TS);
	assert_int_equal(rd32(b0, APENET_REG_WD_EXPIRE_COUNT), 1);
	assert_int_equal(APENET_GET(LDM, HOST_EXPIRED, rd32(b0, APENET_REG_LDM_OWN)), 1);
	/* the credits carry it to the neighbour within a tick */
	step(t, 1000);
	assert_int_equal(APENET_GET(LDM, HOST_EXPIRED, link_reg(b1, nb_link, APENET_LINK_LDM_RX)), 1);
	assert_int_equal(link_reg64(b1, nb_link, APENET_LINK_LDM_RX_TS), rd64(b1, APENET_REG_TIMESTAMP));
	/* the other board's own word does not claim it */
	assert_int_equal(APENET_GET(LDM, HOST_EXPIRED, rd32(b1, APENET_REG_LDM_OWN)), 0);
	/* staying silent does not count it twice */
	run(t, 1000, 5 * period_us);
	assert_int_equal(rd32(b0, APENET_REG_WD_EXPIRE_COUNT), 1);

	/* the host comes back: one new heartbeat clears it */
	wr32(b0, APENET_REG_WD_HOST_HB, rd32(b0, APENET_REG_WD_HOST_HB) + 1);
	step(t, 1000);
	uint32_t st = rd32(b0, APENET_REG_WD_STATUS);
	assert_int_equal(APENET_GET(WD_STATUS, HOST_EXPIRED, st), 0);
	assert_int_equal(APENET_GET(WD_STATUS, MISSED, st), 0);
	assert_int_equal(rd64(b0, APENET_REG_WD_HOST_HB_TS), rd64(b0, APENET_REG_TIMESTAMP));
	assert_int_equal(rd32(b0, APENET_REG_WD_EXPIRE_COUNT), 1);
	step(t, 1000);
	assert_int_equal(APENET_GET(LDM, HOST_EXPIRED, rd32(b0, APENET_REG_LDM_OWN)), 0);
	assert_int_equal(APENET_GET(LDM, HOST_EXPIRED, link_reg(b1, nb_link, APENET_LINK_LDM_RX)), 0);

	/* a host that beats once a period is never declared expired */
	for (unsigned p = 0; p < 40; p++) {
		wr32(b0, APENET_REG_WD_HOST_HB, rd32(b0, APENET_REG_WD_HOST_HB) + 1);
		for (unsigned ms = 0; ms < period_us / 1000; ms++) {
			step(t, 1000);
			assert_int_equal(APENET_GET(WD_STATUS, HOST_EXPIRED, rd32(b0, APENET_REG_WD_STATUS)), 0);
		}
	}
	assert_int_equal(rd32(b0, APENET_REG_WD_EXPIRE_COUNT), 1);

	/* a host that dies half-way between two DNP beats: find the DNP's beat
	 * from WD_DNP_HB, beat once 5 ms later, then fall silent */
	uint32_t dnp = rd32(b0, APENET_REG_WD_DNP_HB);
	while (rd32(b0, APENET_REG_WD_DNP_HB) == dnp)
		step(t, 1000);
	run(t, 1000, period_us / 2);
	wr32(b0, APENET_REG_WD_HOST_HB, rd32(b0, APENET_REG_WD_HOST_HB) + 1);
	step(t, 1000);
	since_ts = rd64(b0, APENET_REG_WD_HOST_HB_TS);
	assert_int_equal(since_ts, rd64(b0, APENET_REG_TIMESTAMP));
	expired_ts = 0;
	while (!APENET_GET(WD_STATUS, HOST_EXPIRED, rd32(b0, APENET_REG_WD_STATUS))) {
		step(t, 1000);
		if (rd64(b0, APENET_REG_TIMESTAMP) - since_ts > 6 * period_ts)
			fail_msg("host not declared expired after 6 periods");
	}
	expired_ts = rd64(b0, APENET_REG_TIMESTAMP);
	lat_ms = (double)(expired_ts - since_ts) / SIM_TS_HZ * 1e3;
	print_message("watchdog: host died mid-period: expired %.1f ms after its last beat (%.2f periods)\n", lat_ms,
		      lat_ms * 1000 / period_us);
	/* the DNP's beat phase does not matter: the countdown is the host's */
	assert_true(expired_ts - since_ts >= beats * period_ts);
	assert_true(expired_ts - since_ts <= beats * period_ts + 1000 * US_TO_TS);
	assert_int_equal(rd32(b0, APENET_REG_WD_EXPIRE_COUNT), 2);
	wr32(b0, APENET_REG_WD_HOST_HB, rd32(b0, APENET_REG_WD_HOST_HB) + 1);
	step(t, 1000);
	assert_int_equal(APENET_GET(WD_STATUS, HOST_EXPIRED, rd32(b0, APENET_REG_WD_STATUS)), 0);

	/* the DNP's own heartbeat: one per period */
	uint32_t hb = rd32(b0, APENET_REG_WD_DNP_HB);
	uint64_t periods = (rd64(b0, APENET_REG_TIMESTAMP) - ts0) / period_ts;
	print_message("watchdog: %u DNP beats in %llu periods\n", hb - hb0, (unsigned long long)periods);
	assert_true(hb - hb0 >= periods && hb - hb0 <= periods + 1);
	sim_torus_destroy(t);
}

/* ---- 6. the GEN seqlock and a card that left the bus ---- */

static int all_ones(const struct sim_board *b)
{
	for (unsigned i = 0; i < APENET_BAR_SIZE / 4; i++)
		if (b->bar[i] != APENET_ALL_ONES)
			return 0;
	return 1;
}

static void test_seqlock_and_gone(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	uint32_t gen[2] = { rd32(b0, APENET_REG_GEN), rd32(b1, APENET_REG_GEN) };

	for (unsigned tick = 0; tick < 50; tick++) {
		step(t, 1000);
		for (unsigned i = 0; i < 2; i++) {
			uint32_t g = rd32(&t->b[i], APENET_REG_GEN);
			assert_int_equal(g & 1, 0);
			assert_int_equal(g, gen[i] + 2);
			gen[i] = g;
		}
	}
	assert_true(all_up(t));
	inject_ok(t, 2, "1,0,0", "card-gone");
	assert_true(all_ones(b1));
	for (unsigned tick = 0; tick < 20; tick++) {
		step(t, 1000);
		assert_true(all_ones(b1)); /* nothing publishes into a gone card */
		uint32_t g = rd32(b0, APENET_REG_GEN);
		assert_int_equal(g, gen[0] + 2);
		gen[0] = g;
	}
	/* its neighbour lost every cable to it */
	static const char *const xlinks[] = { "X+", "X-" };
	for (unsigned i = 0; i < 2; i++) {
		unsigned l = (unsigned)link_idx(b0, xlinks[i]);
		assert_int_equal(link_state(b0, l), APENET_LINK_DOWN);
		assert_int_equal(link_reg(b0, l, APENET_LINK_PARTNER), 0);
		assert_int_equal(link_reg64(b0, l, APENET_LINK_DOWN_EVENTS), 1);
	}
	/* back on the bus: the next publish continues the sequence */
	inject_ok(t, 2, "1,0,0", "clear");
	step(t, 1000);
	assert_int_equal(rd32(b1, APENET_REG_ID_MAGIC), APENET_MAGIC);
	assert_int_equal(rd32(b1, APENET_REG_GEN), gen[1] + 2);
	bring_up(t, 1000, 100000);
	sim_torus_destroy(t);
}

/* ---- 6b. a node that loses power ---- */

static void test_power_off(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 3, 3, 1, 1);
	struct sim_board *v = board(t, 1, 1, 0);
	/* its four neighbours in the plane and their links that face it */
	static const struct {
		unsigned x, y;
		const char *link;
	} nbr[] = { { 0, 1, "X+" }, { 2, 1, "X-" }, { 1, 0, "Y+" }, { 1, 2, "Y-" } };
	uint32_t rx_count[4];

	bring_up(t, 1000, 100000);
	run(t, 10000, 300000);
	/* the host's settings: a threshold of its own, the watchdog on */
	wr32(v, APENET_REG_THR_TEMP_SICK, 70000);
	wr32(v, APENET_REG_WD_CTRL, APENET_SET(WD_CTRL, ENABLE, 1));
	step(t, 1000);
	/* a card that left the bus comes back with them */
	inject_ok(t, 2, "1,1,0", "card-gone");
	step(t, 1000);
	inject_ok(t, 2, "1,1,0", "clear");
	step(t, 1000);
	assert_int_equal(rd32(v, APENET_REG_THR_TEMP_SICK), 70000);
	assert_int_equal(rd32(v, APENET_REG_WD_CTRL), APENET_SET(WD_CTRL, ENABLE, 1));
	bring_up(t, 1000, 100000);
	run(t, 10000, 100000);
	assert_true(link_reg64(v, (unsigned)link_idx(v, "X+"), APENET_LINK_TX_PKTS) > 0);

	inject_ok(t, 2, "1,1,0", "power-off");
	assert_true(all_ones(v));
	run(t, 1000, 50000);
	assert_true(all_ones(v));
	for (unsigned i = 0; i < 4; i++) {
		struct sim_board *b = board(t, nbr[i].x, nbr[i].y, 0);
		unsigned l = (unsigned)link_idx(b, nbr[i].link);
		/* no signal on any lane: reset, link down, partner unknown */
		assert_int_equal(link_state(b, l), APENET_LINK_DOWN);
		assert_int_equal(link_reg(b, l, APENET_LINK_PARTNER), 0);
		for (unsigned k = 0; k < 4; k++) {
			assert_int_equal(lane_phase(b, l, k), APENET_PHASE_RESET);
			assert_int_equal(APENET_GET(LANE_STATE, SIGNAL, lane_reg(b, l, k, APENET_LANE_STATE)), 0);
		}
		assert_true(link_reg64(b, l, APENET_LINK_DOWN_EVENTS) >= 1);
		/* the neighbour's own word says that link is broken */
		int field = apenet_ldm_field_of_dir(b->prof->links[l].dir, 0);
		assert_true(field >= 0);
		assert_int_equal((rd32(b, APENET_REG_LDM_OWN) >> apenet_ldm_field_lsb((unsigned)field)) & 3,
				 APENET_LDM_BROKEN);
		rx_count[i] = link_reg(b, l, APENET_LINK_LDM_RX_COUNT);
	}
	/* a while later: still dark, and no LDM word from it arrived */
	run(t, 10000, 200000);
	assert_true(all_ones(v));
	for (unsigned i = 0; i < 4; i++) {
		struct sim_board *b = board(t, nbr[i].x, nbr[i].y, 0);
		unsigned l = (unsigned)link_idx(b, nbr[i].link);
		assert_int_equal(link_state(b, l), APENET_LINK_DOWN);
		assert_int_equal(link_reg(b, l, APENET_LINK_LDM_RX_COUNT), rx_count[i]);
	}
	/* the others' cables are not its */
	assert_int_equal(link_state(board(t, 0, 0, 0), (unsigned)link_idx(board(t, 0, 0, 0), "X+")), APENET_LINK_UP);

	/* power on: a cold start, nothing of before */
	uint64_t on_ts = t->now_ts;
	inject_ok(t, 2, "1,1,0", "clear");
	step(t, 1000);
	assert_int_equal(rd32(v, APENET_REG_ID_MAGIC), APENET_MAGIC);
	assert_int_equal(rd32(v, APENET_REG_GEN), 2); /* the first publish since power-on */
	assert_int_equal(rd32(v, APENET_REG_THR_TEMP_SICK), 85000);
	assert_int_equal(rd32(v, APENET_REG_WD_CTRL), 0);
	assert_int_equal(rd32(v, APENET_REG_WD_EXPIRE_COUNT), 0);
	assert_true(rd64(v, APENET_REG_UPTIME_TS) == on_ts);
	assert_true(rd64(v, APENET_REG_CNT_CLEAR_TS) == on_ts);
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		assert_int_equal(link_reg64(v, l, APENET_LINK_TX_PKTS), 0);
		assert_int_equal(link_reg64(v, l, APENET_LINK_DOWN_EVENTS), 0);
		assert_int_equal(link_reg(v, l, APENET_LINK_LDM_RX_COUNT), 0);
	}
	/* its links train again, and its words reach the neighbours */
	bring_up(t, 1000, 100000);
	run(t, 10000, 100000);
	for (unsigned i = 0; i < 4; i++) {
		struct sim_board *b = board(t, nbr[i].x, nbr[i].y, 0);
		unsigned l = (unsigned)link_idx(b, nbr[i].link);
		uint32_t p = link_reg(b, l, APENET_LINK_PARTNER);
		assert_true(APENET_GET(LINK_PARTNER, VALID, p));
		assert_int_equal(APENET_GET(LINK_PARTNER, X, p), 1);
		assert_int_equal(APENET_GET(LINK_PARTNER, Y, p), 1);
		assert_true(link_reg(b, l, APENET_LINK_LDM_RX_COUNT) > rx_count[i]);
		assert_int_equal(link_reg(b, l, APENET_LINK_LDM_RX), rd32(v, APENET_REG_LDM_OWN));
	}
	sim_torus_destroy(t);
}

/* ---- 7. the command doorbell ---- */

static uint32_t command(struct sim_torus *t, struct sim_board *b, uint32_t code, uint32_t arg)
{
	uint32_t seq = rd32(b, APENET_REG_CMD_DONE_SEQ) + 1;

	wr32(b, APENET_REG_CMD_CODE, code);
	wr32(b, APENET_REG_CMD_ARG, arg);
	wr32(b, APENET_REG_CMD_SEQ, seq);
	step(t, 1000);
	assert_int_equal(rd32(b, APENET_REG_CMD_DONE_SEQ), seq);
	return rd32(b, APENET_REG_CMD_RESULT);
}

static void test_commands(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b1, "X-");

	bring_up(t, 1000, 100000);
	run(t, 10000, 400000);
	uint64_t before = link_reg64(b0, xp, APENET_LINK_TX_BYTES);
	uint64_t cr_before = link_reg64(b0, xp, APENET_LINK_CREDITS_TX);
	/* what one 1 ms tick can add at most: the link model's bound */
	struct apenet_linkmodel m = { .fifo_bytes = SIM_FIFO_WORDS * 16.0, .lane_mbps = 7000, .lanes = 4,
				      .code_rate = 0.8, .c = 35 };
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	double tick_bytes = m.max_MBps * 1e6 * 1e-3;
	double tick_credits = 4 * 7000e6 * 0.8 / 128 * 1e-3 / 35;
	/* something worth clearing: 400 ms at a load of at least 5 % */
	assert_true(before > 10 * tick_bytes + 4096);

	assert_int_equal(command(t, b0, APENET_CMD_CLEAR_COUNTERS, APENET_ALL_ONES), APENET_CMDERR_OK);
	for (unsigned l = 0; l < b0->prof->nlinks; l++) {
		assert_true(link_reg64(b0, l, APENET_LINK_TX_BYTES) <= tick_bytes + 4096);
		assert_true(link_reg64(b0, l, APENET_LINK_TX_PKTS) <= tick_bytes / 1000 + 1);
		assert_true(link_reg64(b0, l, APENET_LINK_CREDITS_TX) <= tick_credits + 1);
		assert_int_equal(link_reg64(b0, l, APENET_LINK_DOWN_EVENTS), 0);
	}
	assert_true(link_reg64(b0, xp, APENET_LINK_CREDITS_TX) < cr_before);
	assert_int_equal(rd64(b0, APENET_REG_CNT_CLEAR_TS), rd64(b0, APENET_REG_TIMESTAMP));
	/* the far end's counters are its own */
	assert_true(link_reg64(b1, xm, APENET_LINK_RX_BYTES) >= before);
	/* a doorbell rings once: later ticks do not clear again */
	uint64_t after = link_reg64(b0, xp, APENET_LINK_TX_BYTES);
	run(t, 1000, 20000);
	assert_true(link_reg64(b0, xp, APENET_LINK_TX_BYTES) > after);

	assert_int_equal(command(t, b0, 0x77, 0), APENET_CMDERR_BADCODE);
	assert_int_equal(command(t, b0, APENET_CMD_NOP, 0), APENET_CMDERR_OK);
	assert_int_equal(command(t, b0, APENET_CMD_REALIGN, b0->prof->nlinks), APENET_CMDERR_BADARG);
	assert_int_equal(command(t, b0, APENET_CMD_REALIGN, APENET_ALL_ONES), APENET_CMDERR_BADARG);
	assert_true(all_up(t)); /* bad requests did nothing */

	uint64_t d0 = link_reg64(b0, xp, APENET_LINK_DOWN_EVENTS), d1 = link_reg64(b1, xm, APENET_LINK_DOWN_EVENTS);
	uint64_t dother = link_reg64(b0, (unsigned)link_idx(b0, "X-"), APENET_LINK_DOWN_EVENTS);
	assert_int_equal(command(t, b0, APENET_CMD_REALIGN, xp), APENET_CMDERR_OK);
	assert_int_equal(link_reg64(b0, xp, APENET_LINK_DOWN_EVENTS), d0 + 1);
	assert_int_equal(link_reg64(b1, xm, APENET_LINK_DOWN_EVENTS), d1 + 1);
	assert_int_equal(link_reg64(b0, (unsigned)link_idx(b0, "X-"), APENET_LINK_DOWN_EVENTS), dother);
	assert_int_equal(link_state(b0, xp), APENET_LINK_TRAINING);
	assert_int_equal(link_state(b1, xm), APENET_LINK_TRAINING);
	unsigned us = bring_up(t, 1000, 100000);
	print_message("realign: back up after %u ms\n", us / 1000);
	assert_true(link_reg64(b0, xp, APENET_LINK_UP_TS) > 0);
	assert_int_equal(link_reg64(b0, xp, APENET_LINK_DOWN_EVENTS), d0 + 1);
	sim_torus_destroy(t);
}

/* ---- 8. sensors and the LDM health fields ---- */

static unsigned ldm_field_temp(const struct sim_board *b)
{
	return APENET_GET(LDM, TEMPERATURE, rd32(b, APENET_REG_LDM_OWN));
}

static unsigned ldm_field_volt(const struct sim_board *b)
{
	return APENET_GET(LDM, VOLTAGE, rd32(b, APENET_REG_LDM_OWN));
}

/* The temperature field must follow the sensor against the thresholds in
 * the BAR (1 C of margin: the LDM is composed a moment before publication). */
static void check_temp_consistent(const struct sim_board *b)
{
	int32_t mc = (int32_t)rd32(b, APENET_REG_SENS_FPGA_TEMP);
	int32_t sick = (int32_t)rd32(b, APENET_REG_THR_TEMP_SICK), broken = (int32_t)rd32(b, APENET_REG_THR_TEMP_BROKEN);
	unsigned f = ldm_field_temp(b);

	if (mc > broken + 1000)
		assert_int_equal(f, APENET_LDM_BROKEN);
	else if (mc > sick + 1000 && mc < broken - 1000)
		assert_int_equal(f, APENET_LDM_SICK);
	else if (mc < sick - 1000)
		assert_int_equal(f, APENET_LDM_NORMAL);
}

/* Run until the temperature field reads want; returns the ms it took. */
static unsigned until_temp(struct sim_torus *t, struct sim_board *b, unsigned want, unsigned limit_ms)
{
	for (unsigned ms = 0; ms <= limit_ms; ms += 10) {
		check_temp_consistent(b);
		if (ldm_field_temp(b) == want)
			return ms;
		step(t, 10000);
	}
	fail_msg("LDM temperature not %u after %u ms (sensor %d mC)", want, limit_ms,
		 (int32_t)rd32(b, APENET_REG_SENS_FPGA_TEMP));
	return 0;
}

static void check_droop(struct sim_torus *t, struct sim_board *b, double pct, unsigned want)
{
	for (unsigned i = 0; i < 20; i++) {
		step(t, 10000);
		uint32_t nom = rd32(b, APENET_REG_SENS_VCORE_NOM), v = rd32(b, APENET_REG_SENS_VCORE);
		/* the sensor's noise is 1.5 mV rms: 10 mV is over 6 sigma */
		assert_true(fabs((double)v - nom * (1 - pct / 100)) < 10);
		assert_int_equal(ldm_field_volt(b), want);
	}
}

static void test_sensors(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 1, 1, 1, 1);
	struct sim_board *b = &t->b[0];

	bring_up(t, 1000, 100000);
	run(t, 10000, 2000000);
	assert_true((int32_t)rd32(b, APENET_REG_SENS_FPGA_TEMP) < 85000);
	assert_int_equal(ldm_field_temp(b), APENET_LDM_NORMAL);
	assert_int_equal(ldm_field_volt(b), APENET_LDM_NORMAL);
	assert_int_equal(rd32(b, APENET_REG_THR_TEMP_SICK), 85000);

	inject_ok(t, 4, "0,0,0", "overheat", "--celsius", "95");
	unsigned ms = until_temp(t, b, APENET_LDM_SICK, 5000);
	print_message("overheat 95 C: LDM temperature SICK after %u ms\n", ms);
	for (unsigned i = 0; i < 300; i++) { /* 3 s: settled near 95 C */
		step(t, 10000);
		check_temp_consistent(b);
	}
	assert_true((int32_t)rd32(b, APENET_REG_SENS_FPGA_TEMP) > 90000);
	assert_int_equal(ldm_field_temp(b), APENET_LDM_SICK);

	inject_ok(t, 4, "0,0,0", "overheat", "--celsius", "105");
	ms = until_temp(t, b, APENET_LDM_BROKEN, 5000);
	print_message("overheat 105 C: BROKEN after %u ms more\n", ms);
	assert_true((int32_t)rd32(b, APENET_REG_SENS_FPGA_TEMP) > 100000);

	inject_ok(t, 2, "0,0,0", "clear");
	ms = until_temp(t, b, APENET_LDM_NORMAL, 30000);
	print_message("cleared: temperature NORMAL after %u ms\n", ms);
	/* "above which": the threshold itself is still normal (1 mC of rounding) */
	assert_true((int32_t)rd32(b, APENET_REG_SENS_FPGA_TEMP) <= (int32_t)rd32(b, APENET_REG_THR_TEMP_SICK) + 1);

	/* voltage droop: thresholds in 0.1 % of nominal (30 and 80 by default) */
	assert_true(5 * 10 > rd32(b, APENET_REG_THR_VDROOP_SICK) && 5 * 10 < rd32(b, APENET_REG_THR_VDROOP_BROKEN));
	inject_ok(t, 4, "0,0,0", "voltage-droop", "--percent", "5");
	check_droop(t, b, 5, APENET_LDM_SICK);
	inject_ok(t, 4, "0,0,0", "voltage-droop", "--percent", "10");
	check_droop(t, b, 10, APENET_LDM_BROKEN);
	inject_ok(t, 2, "0,0,0", "clear");
	check_droop(t, b, 0, APENET_LDM_NORMAL);
	/* a host that raises a threshold changes the verdict at the next tick */
	inject_ok(t, 4, "0,0,0", "voltage-droop", "--percent", "5");
	wr32(b, APENET_REG_THR_VDROOP_SICK, 70);
	check_droop(t, b, 5, APENET_LDM_NORMAL);
	sim_torus_destroy(t);
}

/* ---- 9. PRBS generators and checkers ---- */

#define PRBS_ON(pat) (APENET_SET(LANE_PRBS_CTRL, PATTERN, (pat)) | APENET_SET(LANE_PRBS_CTRL, ENABLE, 1))

static void prbs_enable(struct sim_board *b0, unsigned l0, struct sim_board *b1, unsigned l1, unsigned k,
			uint32_t ctrl)
{
	wr32(b0, apenet_lane_off(l0, k, APENET_LANE_PRBS_CTRL), ctrl);
	wr32(b1, apenet_lane_off(l1, k, APENET_LANE_PRBS_CTRL), ctrl);
}

static int prbs_locked(const struct sim_board *b, unsigned l, unsigned k)
{
	return APENET_GET(LANE_PRBS_STATUS, LOCKED, lane_reg(b, l, k, APENET_LANE_PRBS_STATUS));
}

static void test_prbs_counts(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b1, "X-");
	bring_up(t, 1000, 100000);
	double rate = link_reg(b0, xp, APENET_LINK_LANE_MBPS) * 1e6;
	assert_true(rate == b0->prof->links[xp].lane_mbps * 1e6);
	assert_int_equal(rd32(b0, APENET_REG_BER_ACCEL), 1);
	prbs_enable(b0, xp, b1, xm, 0, PRBS_ON(APENET_PRBS31));
	run(t, 1000, 2000);
	for (int e = 0; e < 2; e++) {
		struct sim_board *b = e ? b1 : b0;
		unsigned l = e ? xm : xp;
		uint32_t st = lane_reg(b, l, 0, APENET_LANE_PRBS_STATUS);
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, LOCKED, st), 1);
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, st), 1);
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, PATTERN, st), APENET_PRBS31);
		assert_int_equal(link_state(b, l), APENET_LINK_PRBS);
		/* only lane 0 runs the test */
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, lane_reg(b, l, 1, APENET_LANE_PRBS_STATUS)), 0);
	}
	/* traffic stops on the link under test */
	uint64_t tx = link_reg64(b0, xp, APENET_LINK_TX_BYTES);
	uint64_t prev = lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS);
	double frac_bits = 0;
	for (unsigned i = 0; i < 100; i++) {
		step(t, 1000);
		uint64_t bits = lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS);
		double want = rate * 1e-3;
		/* the growth per tick is the line rate times dt, within one word */
		if (!(fabs((double)(bits - prev) - want) <= 32))
			fail_msg("tick %u: PRBS_BITS grew by %llu, want %.0f", i, (unsigned long long)(bits - prev), want);
		frac_bits += (double)(bits - prev) - want;
		prev = bits;
	}
	assert_true(fabs(frac_bits) <= 32); /* and no drift over many ticks */
	assert_int_equal(link_reg64(b0, xp, APENET_LINK_TX_BYTES), tx);
	/* a clean 2 m cable: no errors in ~7e8 bits at BER ~1e-14 */
	assert_int_equal(lane_reg64(b0, xp, 0, APENET_LANE_PRBS_ERRS), 0);
	assert_int_equal(lane_reg64(b1, xm, 0, APENET_LANE_PRBS_ERRS), 0);
	assert_int_equal(lane_reg(b0, xp, 0, APENET_LANE_PRBS_ERRWORD), 0);
	uint64_t bits_accel1 = prev;

	/* CLEAR restarts the counters and drops itself */
	uint32_t ctrl = PRBS_ON(APENET_PRBS31) | APENET_SET(LANE_PRBS_CTRL, CLEAR, 1);
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl);
	step(t, 1000);
	assert_true(lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS) <= rate * 1e-3 + 32);
	assert_int_equal(lane_reg64(b0, xp, 0, APENET_LANE_PRBS_START_TS), rd64(b0, APENET_REG_TIMESTAMP));
	assert_int_equal(lane_reg(b0, xp, 0, APENET_LANE_PRBS_CTRL), PRBS_ON(APENET_PRBS31));

	/* cable-ber 1e-3: the error ratio is the lane's BER, within Poisson noise */
	inject_ok(t, 6, "0,0,0", "cable-ber", "--link", "X+", "--ber", "1e-3");
	step(t, 1000);
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl);
	step(t, 1000);
	double ber = b0->link[xp].lane[0].ber; /* what the channel model gives the lane */
	assert_true(ber >= 1e-3 && ber < 1.01e-3);
	while (lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS) < 100000000ull)
		step(t, 1000);
	assert_int_equal(prbs_locked(b0, xp, 0), 1);
	double n = (double)lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS);
	double k = (double)lane_reg64(b0, xp, 0, APENET_LANE_PRBS_ERRS);
	/* errors are Poisson with mean n * ber: 5 sigma is sqrt(n ber) * 5 */
	double tol = 5 * sqrt(n * ber) / (n * ber);
	print_message("cable-ber 1e-3: %.0f errors in %.3g bits, ratio %.4g (tolerance %.2f%%)\n", k, n, k / n,
		      tol * 100);
	assert_true(tol < 0.2);
	assert_true(fabs(k / n - ber) <= tol * ber);
	assert_true(fabs(k / n - 1e-3) <= 0.2e-3);
	sim_torus_destroy(t);

	/* ber_accel 1000: the counters run 1000 times faster */
	t = torus(f, APENET_V_APENETP, 2, 1, 1, 1000);
	b0 = board(t, 0, 0, 0);
	b1 = board(t, 1, 0, 0);
	bring_up(t, 1000, 100000);
	assert_int_equal(rd32(b0, APENET_REG_BER_ACCEL), 1000);
	prbs_enable(b0, xp, b1, xm, 0, PRBS_ON(APENET_PRBS31));
	run(t, 1000, 2000);
	prev = lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS);
	for (unsigned i = 0; i < 100; i++) {
		step(t, 1000);
		uint64_t bits = lane_reg64(b0, xp, 0, APENET_LANE_PRBS_BITS);
		assert_true(fabs((double)(bits - prev) - rate * 1e-3 * 1000) <= 32);
		prev = bits;
	}
	assert_int_equal(prbs_locked(b0, xp, 0), 1);
	print_message("ber_accel 1000: %llu bits in 100 ms vs %llu at 1x\n", (unsigned long long)prev,
		      (unsigned long long)bits_accel1);
	assert_true(fabs((double)prev / (double)bits_accel1 - 1000) < 1);
	sim_torus_destroy(t);
}

/*
 * Bit-exactness of the first window: the capture registers hold words of
 * the real pattern.  PRBS_RXWORD ^ PRBS_ERRWORD is the word the far end
 * sent; its low 31 bits are a PRBS31 state, so the codec's generator
 * started from one capture must reproduce the next capture exactly
 * ceil(delta/32) words later, delta being the PRBS_BITS the tick added.
 * With small ticks (10 us, ~2200 words) several captures fall inside the
 * window the model runs word by word (SIM_PRBS_EXACT_BITS, 2^20 bits).
 * A random match has odds 2^-32 per pair.  PRBS7 is checked another way:
 * all its 32-bit windows are known (127), so every capture must be one.
 */
static void check_prbs31_captures(struct sim_torus *t, struct sim_board *b, unsigned l, int noisy)
{
	uint32_t prev_w = 0;
	uint64_t prev_bits = 0;
	unsigned pairs = 0, errwords = 0;

	for (unsigned tick = 0; tick < 12; tick++) {
		step(t, 10);
		if (!prbs_locked(b, l, 0))
			continue;
		uint32_t rx = lane_reg(b, l, 0, APENET_LANE_PRBS_RXWORD);
		uint32_t err = lane_reg(b, l, 0, APENET_LANE_PRBS_ERRWORD);
		uint64_t bits = lane_reg64(b, l, 0, APENET_LANE_PRBS_BITS);
		uint32_t w = rx ^ err;
		errwords += err != 0;
		if (prev_bits && bits + (bits - prev_bits) < (1u << 20)) {
			struct apenet_prbs_gen g;
			uint64_t n = (bits - prev_bits + 31) / 32;
			uint32_t x = 0;
			apenet_prbs_gen_init(&g, APENET_PRBS31, prev_w);
			for (uint64_t i = 0; i < n; i++)
				x = apenet_prbs_gen_next(&g);
			if (x != w)
				fail_msg("tick %u: capture 0x%08x is not the PRBS31 word %llu words after 0x%08x (0x%08x)",
					 tick, w, (unsigned long long)n, prev_w, x);
			pairs++;
		}
		prev_w = w;
		prev_bits = bits;
	}
	print_message("PRBS31 %s: %u capture pairs bit-exact, %u with errors\n", noisy ? "noisy" : "clean", pairs,
		      errwords);
	assert_true(pairs >= 3);
	if (noisy) /* the words checked did carry line errors */
		assert_true(errwords > 0 && lane_reg64(b, l, 0, APENET_LANE_PRBS_ERRS) > 0);
	else
		assert_int_equal(errwords, 0);
}

static void test_prbs_bit_exact(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b1, "X-");

	bring_up(t, 1000, 100000);
	prbs_enable(b0, xp, b1, xm, 0, PRBS_ON(APENET_PRBS31));
	check_prbs31_captures(t, b1, xm, 0);

	/* with line errors (2e-2: about half the words hit), RXWORD ^ ERRWORD
	 * is still the word sent */
	inject_ok(t, 6, "0,0,0", "cable-ber", "--link", "X+", "--ber", "2e-2");
	prbs_enable(b0, xp, b1, xm, 0, PRBS_ON(APENET_PRBS31) | APENET_SET(LANE_PRBS_CTRL, CLEAR, 1));
	check_prbs31_captures(t, b1, xm, 1);
	inject_ok(t, 2, "0,0,0", "clear");

	/* PRBS7 on another lane: the 127 windows of the pattern, from the codec */
	uint32_t win[127];
	struct apenet_prbs_gen g;
	apenet_prbs_gen_init(&g, APENET_PRBS7, 0);
	for (unsigned i = 0; i < 127; i++) /* gcd(32, 127) = 1: 127 words hit every phase */
		win[i] = apenet_prbs_gen_next(&g);
	prbs_enable(b0, xp, b1, xm, 1, PRBS_ON(APENET_PRBS7));
	unsigned checked = 0;
	for (unsigned tick = 0; tick < 50; tick++) {
		step(t, tick < 10 ? 10 : 1000);
		if (!prbs_locked(b0, xp, 1))
			continue;
		uint32_t w = lane_reg(b0, xp, 1, APENET_LANE_PRBS_RXWORD);
		int found = 0;
		for (unsigned i = 0; i < 127; i++)
			found |= win[i] == w;
		if (!found)
			fail_msg("PRBS7 capture 0x%08x is not a window of the pattern", w);
		assert_int_equal(lane_reg(b0, xp, 1, APENET_LANE_PRBS_ERRWORD), 0);
		checked++;
	}
	assert_true(checked >= 45);
	sim_torus_destroy(t);
}

/*
 * The BER of a lane can change while a test runs (a PMA sweep writes new
 * settings, a cable degrades) without anyone pressing CLEAR.  The capture
 * registers must follow: at BER p a 32-bit word is hit with probability
 * 1 - (1 - p)^32, and captures one tick apart are independent, so the
 * number of hit captures is binomial; 5 sigma of it is the tolerance.
 */
static void test_prbs_ber_change(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b1, "X-");
	const unsigned n = 400;

	bring_up(t, 1000, 100000);
	prbs_enable(b0, xp, b1, xm, 0, PRBS_ON(APENET_PRBS31));
	run(t, 1000, 20000);
	assert_int_equal(prbs_locked(b1, xm, 0), 1);
	assert_int_equal(lane_reg64(b1, xm, 0, APENET_LANE_PRBS_ERRS), 0);
	inject_ok(t, 6, "0,0,0", "cable-ber", "--link", "X+", "--ber", "1e-2");
	step(t, 1000);
	uint64_t bits0 = lane_reg64(b1, xm, 0, APENET_LANE_PRBS_BITS), errs0 = lane_reg64(b1, xm, 0, APENET_LANE_PRBS_ERRS);
	double ber = b1->link[xm].lane[0].ber, p = 1 - pow(1 - ber, 32);
	unsigned hit = 0, bits_hit = 0;
	for (unsigned i = 0; i < n; i++) {
		step(t, 1000);
		uint32_t e = lane_reg(b1, xm, 0, APENET_LANE_PRBS_ERRWORD);
		hit += e != 0;
		bits_hit += (unsigned)__builtin_popcount(e);
	}
	double mean = n * p, sd = sqrt(n * p * (1 - p));
	double ratio = (double)(lane_reg64(b1, xm, 0, APENET_LANE_PRBS_ERRS) - errs0) /
		       (double)(lane_reg64(b1, xm, 0, APENET_LANE_PRBS_BITS) - bits0);
	print_message("BER raised to %.3g mid-run: %u of %u captures hit (expect %.1f +- %.1f), %u bit errors in them; "
		      "counted ratio %.4g\n", ber, hit, n, mean, sd, bits_hit, ratio);
	assert_true(fabs(hit - mean) <= 5 * sd);
	assert_int_equal(prbs_locked(b1, xm, 0), 1);
	assert_true(fabs(ratio - ber) <= 0.05 * ber); /* ~2.8e9 bits: Poisson noise is far below 5 % */
	sim_torus_destroy(t);
}

/* ---- 10. cable swap and bad requests ---- */

static void snapshot_partners(struct sim_torus *t, uint32_t *out)
{
	for (unsigned i = 0; i < t->nboards; i++)
		for (unsigned l = 0; l < APENET_MAX_LINKS; l++)
			out[i * APENET_MAX_LINKS + l] = l < t->b[i].prof->nlinks ? link_reg(&t->b[i], l, APENET_LINK_PARTNER) : 0;
}

/* Move the plugs at ends a and b in a table of who faces whom. */
static void swap_model(struct end *face, unsigned a, unsigned b)
{
	struct end fa = face[a], fb = face[b];
	struct end ea = { (int)(a / APENET_MAX_LINKS), (int)(a % APENET_MAX_LINKS) };
	struct end eb = { (int)(b / APENET_MAX_LINKS), (int)(b % APENET_MAX_LINKS) };

	face[a] = fb;
	face[b] = fa;
	face[fa.board * APENET_MAX_LINKS + fa.link] = eb;
	face[fb.board * APENET_MAX_LINKS + fb.link] = ea;
}

static void check_model(struct sim_torus *t, const struct end *face)
{
	for (unsigned i = 0; i < t->nboards; i++)
		for (unsigned l = 0; l < t->b[i].prof->nlinks; l++) {
			uint32_t want = partner_of(t, face[i * APENET_MAX_LINKS + l]);
			uint32_t got = link_reg(&t->b[i], l, APENET_LINK_PARTNER);
			if (got != want)
				fail_msg("%u,%u,%u %s: partner 0x%08x, want 0x%08x", t->b[i].x, t->b[i].y, t->b[i].z,
					 t->b[i].prof->links[l].name, got, want);
		}
}

static void test_cable_swap(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 4, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0);
	unsigned n = t->nboards * APENET_MAX_LINKS, xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b0, "X-");
	struct end *face = fx_alloc(f, n * sizeof(*face));
	uint32_t *before = fx_alloc(f, n * sizeof(*before)), *after = fx_alloc(f, n * sizeof(*after));
	char reply[512];

	bring_up(t, 1000, 200000);
	for (unsigned i = 0; i < t->nboards; i++)
		for (unsigned l = 0; l < t->b[i].prof->nlinks; l++)
			face[i * APENET_MAX_LINKS + l] = expected_end(t, &t->b[i], l);
	check_model(t, face);
	snapshot_partners(t, before);

	/* 0,0,0 X+ (to 1,0,0 X-) and 0,0,0 X- (to 3,0,0 X+) trade plugs */
	inject_ok(t, 6, "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-");
	swap_model(face, xp, xm);
	bring_up(t, 1000, 200000);
	check_model(t, face);
	uint32_t p = link_reg(b0, xp, APENET_LINK_PARTNER);
	assert_int_equal(APENET_GET(LINK_PARTNER, X, p), 3);
	assert_int_equal(APENET_GET(LINK_PARTNER, PORT, p), xp);
	p = link_reg(board(t, 1, 0, 0), xm, APENET_LINK_PARTNER);
	assert_int_equal(APENET_GET(LINK_PARTNER, X, p), 0);
	assert_int_equal(APENET_GET(LINK_PARTNER, PORT, p), xm);
	/* exactly four ends changed */
	snapshot_partners(t, after);
	unsigned changed = 0;
	for (unsigned i = 0; i < n; i++)
		changed += before[i] != after[i];
	assert_int_equal(changed, 4);

	/* swapping again puts them back */
	inject_ok(t, 6, "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-");
	swap_model(face, xp, xm);
	bring_up(t, 1000, 200000);
	check_model(t, face);
	snapshot_partners(t, after);
	assert_memory_equal(before, after, n * sizeof(*before));

	/* bad requests: -1, "error:", nothing touched */
	static const char *const bad[][8] = {
		{ "0,0,0", "melt" },
		{ "4,0,0", "clear" },
		{ "0,0", "clear" },
		{ "0,0,0" },
		{ "0,0,0", "cable-unplug", "--lnk", "X+" },
		{ "0,0,0", "cable-unplug", "--link", "W+" },
		{ "0,0,0", "cable-unplug", "--link" },
		{ "0,0,0", "cable-unplug", "link", "X+" },
		{ "0,0,0", "cable-unplug" },
		{ "0,0,0", "overheat", "--percent", "5" },
		{ "0,0,0", "voltage-droop", "--celsius", "95" },
		{ "0,0,0", "cable-ber", "--link", "X+", "--ber", "0.7" },
		{ "0,0,0", "cable-ber", "--link", "X+", "--ber", "1e-3x" },
		{ "0,0,0", "lane-dead", "--link", "X+", "--lane", "4" },
		{ "0,0,0", "lane-dead", "--link", "X+", "--lane", "1.5" },
		{ "0,0,0", "cable-swap", "--link", "X+", "--with", "9,9,9:X-" },
		{ "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:Q" },
		{ "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X+" },
		{ "0,0,0", "cable-swap", "--link", "X+", "--with", "1,0,0:X-" },
		{ "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0" },
		{ "0,0,0", "pcie-degrade", "--width", "16", "--gen", "2" },
		{ "0,0,0", "dnp-hang", "--link", "X+" },
		{ "0,0,0", "power-off", "--link", "X+" },
	};
	size_t nb = t->nboards * sizeof(struct sim_board);
	struct sim_board *copy = fx_alloc(f, nb);
	uint32_t *bar0 = fx_alloc(f, APENET_BAR_SIZE);
	memcpy(copy, t->b, nb);
	memcpy(bar0, (const void *)b0->bar, APENET_BAR_SIZE);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[8];
		int argc = 0;
		while (argc < 8 && bad[i][argc]) {
			argv[argc] = (char *)bad[i][argc];
			argc++;
		}
		memset(reply, 0, sizeof(reply));
		int rc = sim_inject(t, argv, argc, reply, sizeof(reply));
		if (rc != -1 || strncmp(reply, "error:", 6))
			fail_msg("request %u (%s %s): rc %d reply '%s'", i, argv[0], argc > 1 ? argv[1] : "", rc, reply);
		if (memcmp(copy, t->b, nb) || memcmp(bar0, (const void *)b0->bar, APENET_BAR_SIZE))
			fail_msg("request %u (%s %s) changed the emulation: %s", i, argv[0], argc > 1 ? argv[1] : "",
				 reply);
	}
	/* and a good one still works afterwards */
	assert_int_equal(inject(t, reply, sizeof(reply), 2, "0,0,0", "clear"), 0);
	sim_torus_destroy(t);
}

/* The serial number in a cage's module EEPROM mirror (SFF-8636 upper page
 * 00h bytes 196-211, at 128 + 68 in the ethtool -m layout). */
static void module_serial(const struct sim_board *b, unsigned l, char out[17])
{
	for (unsigned i = 0; i < 16; i++) {
		uint32_t off = apenet_ee_off(l, APENET_EE_DATA) + 196 + i;
		out[i] = (char)(rd32(b, off & ~3u) >> (8 * (off & 3u)));
	}
	out[16] = 0;
}

/*
 * A passive copper QSFP+ assembly carries its EEPROM in its plugs: both
 * ends show one serial (sim/torus.c builds them so), and moving a plug
 * moves that EEPROM with it.  After a swap every cable must still show the
 * same serial at its two ends, so that a cabling check by serial finds it.
 */
static void test_cable_swap_modules(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, 1);
	char s_a[17], s_b[17];

	bring_up(t, 1000, 100000);
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < t->nboards; i++)
			for (unsigned l = 0; l < t->b[i].prof->nlinks; l++) {
				struct sim_board *b = &t->b[i];
				uint32_t p = link_reg(b, l, APENET_LINK_PARTNER);
				struct sim_board *pb = board(t, APENET_GET(LINK_PARTNER, X, p), APENET_GET(LINK_PARTNER, Y, p),
							     APENET_GET(LINK_PARTNER, Z, p));
				assert_int_equal(APENET_GET(LINK_PARTNER, VALID, p), 1);
				assert_int_equal(APENET_GET(EE_STATUS, PRESENT, rd32(b, apenet_ee_off(l, APENET_EE_STATUS))), 1);
				module_serial(b, l, s_a);
				module_serial(pb, APENET_GET(LINK_PARTNER, PORT, p), s_b);
				if (strcmp(s_a, s_b))
					fail_msg("%s: %u,%u,%u %s shows serial '%s' but the far end of its cable shows '%s'",
						 pass ? "after a plug swap" : "as built", b->x, b->y, b->z,
						 b->prof->links[l].name, s_a, s_b);
			}
		inject_ok(t, 6, "0,0,0", "cable-swap", "--link", "X+", "--with", "0,0,0:X-");
		bring_up(t, 1000, 100000);
	}
	sim_torus_destroy(t);
}

/* ---- 11. traffic against the link efficiency model ---- */

/*
 * NaNet KM3 and NaNet-10 carry SFP+ cages: their windows hold SFF-8472 A0h
 * and A2h, EE_STATUS says so, and the library decodes what a tool reads
 * through the registers (KM3: optical modules with monitors that follow the
 * board; NaNet-10: passive direct-attach cables without).
 */
static void test_sfp_cages(void **state)
{
	struct fx *f = *state;
	static const enum apenet_variant vs[2] = { APENET_V_NANET_KM3, APENET_V_NANET10 };

	for (int i = 0; i < 2; i++) {
		struct sim_torus *t = torus(f, vs[i], 1, 1, 1, 1);
		struct sim_board *b = &t->b[0];
		uint8_t win[APENET_EE_DATA_LEN];
		static struct apenet_module_image img;
		struct apenet_sff8472 m;
		char err[256];

		run(t, 1000, 20000);
		for (unsigned l = 0; l < b->prof->nlinks; l++) {
			uint32_t st = rd32(b, apenet_ee_off(l, APENET_EE_STATUS));

			assert_int_equal(b->prof->links[l].has_module, APENET_CAGE_SFP);
			assert_int_equal(APENET_GET(EE_STATUS, PRESENT, st), 1);
			assert_int_equal(APENET_GET(EE_STATUS, LAYOUT, st), APENET_EE_SFF8472);
			for (unsigned k = 0; k < APENET_EE_DATA_LEN; k += 4) {
				uint32_t w = rd32(b, apenet_ee_off(l, APENET_EE_DATA + k));
				for (unsigned j = 0; j < 4; j++)
					win[k + j] = (uint8_t)(w >> (8 * j));
			}
			apenet_module_from_window(win, st, &img);
			assert_int_equal(img.layout, APENET_EE_SFF8472);
			if (apenet_sff8472_decode(img.b, img.len, &m, err, sizeof(err)))
				fail_msg("%s %s: %s", b->prof->name, b->prof->links[l].name, err);
			assert_true(m.cc_base_ok && m.cc_ext_ok);
			assert_true(strlen(m.serial) > 3);
			if (vs[i] == APENET_V_NANET_KM3) {
				assert_true(m.a2_present && m.cc_dmi_ok);
				assert_string_equal(m.media, "1000BASE-SX");
				/* the monitors follow the board: module temperature = board + 2 C */
				assert_true(fabs(m.temp_c - (b->t_board + 2)) < 0.01);
			} else {
				assert_false(m.a2_present);
				assert_true(m.passive_cable);
			}
		}
		sim_torus_destroy(t);
	}
}

static void test_traffic(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, 1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = (unsigned)link_idx(b0, "X+"), xm = (unsigned)link_idx(b1, "X-");
	const struct apenet_link_profile *lp = &b0->prof->links[xp];

	bring_up(t, 1000, 100000);
	/* the bound, from SPEC §2's model with the card's own registers */
	struct apenet_linkmodel m = {
		.fifo_bytes = link_reg(b0, xp, APENET_LINK_FIFO_DEPTH) * 16.0,
		.lane_mbps = link_reg(b0, xp, APENET_LINK_LANE_MBPS),
		.lanes = APENET_GET(LINK_STATE, LANES_UP, link_reg(b0, xp, APENET_LINK_STATE)) == 0xf ? 4 : 0,
		.code_rate = lp->enc == APENET_ENC_64B66B ? 64.0 / 66 : 0.8,
		.c = link_reg(b0, xp, APENET_LINK_CREDIT_PERIOD),
	};
	assert_int_equal(apenet_linkmodel_eval(&m), 0);
	assert_true(m.max_MBps > 2150 && m.max_MBps < 2250); /* SPEC: ~2.2 GB/s */

	uint64_t ts0 = rd64(b0, APENET_REG_TIMESTAMP), tx0 = link_reg64(b0, xp, APENET_LINK_TX_BYTES);
	uint64_t cr0 = link_reg64(b0, xp, APENET_LINK_CREDITS_TX), crr0 = link_reg64(b1, xm, APENET_LINK_CREDITS_RX);
	for (unsigned i = 0; i < 100; i++) {
		step(t, 10000);
		/* RX at the far end equals TX, tick by tick */
		assert_int_equal(link_reg64(b1, xm, APENET_LINK_RX_BYTES), link_reg64(b0, xp, APENET_LINK_TX_BYTES));
		assert_int_equal(link_reg64(b1, xm, APENET_LINK_RX_PKTS), link_reg64(b0, xp, APENET_LINK_TX_PKTS));
	}
	double secs = (double)(rd64(b0, APENET_REG_TIMESTAMP) - ts0) / rd32(b0, APENET_REG_TS_FREQ_HZ);
	double mbps = (double)(link_reg64(b0, xp, APENET_LINK_TX_BYTES) - tx0) / secs / 1e6;
	print_message("traffic: %.1f MB/s over %.2f s, model bound %.1f MB/s (E_T %.4f)\n", mbps, secs, m.max_MBps,
		      m.et);
	assert_true(fabs(secs - 1.0) < 1e-9);
	assert_true(mbps < m.max_MBps);
	assert_true(mbps > 0.05 * m.max_MBps);
	/* a credit every C 128-bit cycles of the line: words / 35 */
	double words = m.raw_MBps * 1e6 * secs / APENET_WORD_BYTES;
	double credits = (double)(link_reg64(b0, xp, APENET_LINK_CREDITS_TX) - cr0);
	print_message("traffic: %.0f credits for %.0f words (%.3f cycles a credit)\n", credits, words, words / credits);
	assert_true(fabs(credits - words / m.c) <= 1);
	/* the far end counts them arriving */
	assert_int_equal(link_reg64(b1, xm, APENET_LINK_CREDITS_RX) - crr0, link_reg64(b0, xp, APENET_LINK_CREDITS_TX) - cr0);
	sim_torus_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bringup_phases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_topologies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dead_lane, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_cable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watchdog, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seqlock_and_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_power_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sensors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prbs_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prbs_bit_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prbs_ber_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cable_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cable_swap_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sfp_cages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_traffic, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
