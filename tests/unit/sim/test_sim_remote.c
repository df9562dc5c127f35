/*
 * Tests of the emulator's remote-register window (sim/remote.c), the PRBS
 * run time and the link latency at alignment (sim/link.c, sim/prbs_lane.c,
 * sim/inject.c), in-process: a torus in a temporary directory, simulated
 * time advanced by hand (by the microsecond where the round trip matters),
 * nothing sleeps.  Requests are made the way a tool makes them, by writing
 * RMT_ADDR, RMT_WDATA and RMT_CTRL into BAR0 and reading RMT_STATUS back;
 * the model's structs are read only for what the BAR cannot say.
 *
 * Expected values come from regs.h and the DESIGN figures in docs/design.md
 * (a round trip of two link latencies, 2 x 60 ns of router, 0.5 us here and
 * 2-3 us of the partner's firmware; latency = flight time + 24 words of
 * transceiver pipeline + the word aligner's slip), not from a run.
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

#include "apenet/regs.h"
#include "../../../sim/sim.h"

#define US_TO_TS (SIM_TS_HZ / 1000000u)
#define TS_PS (1e12 / SIM_TS_HZ) /* picoseconds per TIMESTAMP tick */

struct fx {
	char dir[64];
	struct sim_torus t;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/apenet-rmt-XXXXXX");
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
	sim_torus_destroy(&f->t);
	nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

/* A torus of variant v; the board at (nx, 0, 0) without the window when
 * nx >= 0. */
static struct sim_torus *torus(struct fx *f, enum apenet_variant v, unsigned x, unsigned y, unsigned z, int nx)
{
	struct sim_conf c;
	struct sim_node_conf nc;
	struct apenet_err e;

	memset(&c, 0, sizeof(c));
	c.dims[0] = x;
	c.dims[1] = y;
	c.dims[2] = z;
	c.prof = apenet_profile(v);
	assert_non_null(c.prof);
	c.seed = 42;
	c.ber_accel = 1;
	c.tick_ms = 10;
	c.cable_kind = -1;
	if (nx >= 0) {
		memset(&nc, 0, sizeof(nc));
		nc.x = (unsigned)nx;
		nc.prof = c.prof;
		nc.remote_window = 0;
		c.nodes = &nc;
		c.nnodes = 1;
	}
	if (sim_torus_create(&f->t, &c, f->dir, &e))
		fail_msg("sim_torus_create: %s", e.msg);
	return &f->t;
}

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

static struct sim_board *board(struct sim_torus *t, unsigned x, unsigned y, unsigned z)
{
	return &t->b[sim_index(t, x, y, z)];
}

static unsigned link_idx(const struct sim_board *b, const char *name)
{
	for (unsigned l = 0; l < b->prof->nlinks; l++)
		if (!strcmp(b->prof->links[l].name, name))
			return l;
	fail_msg("%s has no link %s", b->prof->name, name);
	return 0;
}

static unsigned link_state(const struct sim_board *b, unsigned l)
{
	return APENET_GET(LINK_STATE, STATE, rd32(b, apenet_link_off(l, APENET_LINK_STATE)));
}

static int all_up(const struct sim_torus *t)
{
	for (unsigned i = 0; i < t->nboards; i++)
		for (unsigned l = 0; l < t->b[i].prof->nlinks; l++)
			if (t->b[i].link[l].peer_board != -1 && link_state(&t->b[i], l) != APENET_LINK_UP)
				return 0;
	return 1;
}

static void bring_up(struct sim_torus *t)
{
	for (unsigned us = 0; us < 200000; us += 1000) {
		step(t, 1000);
		if (all_up(t))
			return;
	}
	fail_msg("links not up after 200 ms");
}

static void inject_ok(struct sim_torus *t, int argc, ...)
{
	char *argv[8], reply[512];
	va_list ap;
	assert_true(argc <= 8);
	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	if (sim_inject(t, argv, argc, reply, sizeof(reply)))
		fail_msg("inject %s %s: %s", argv[0], argv[1], reply);
	assert_memory_equal(reply, "ok:", 3);
}

/* ---- the window, as a tool drives it ---- */

static unsigned st_seq(const struct sim_board *b)
{
	return APENET_GET(RMT_STATUS, DONE_SEQ, rd32(b, APENET_REG_RMT_STATUS));
}
static unsigned st_busy(const struct sim_board *b)
{
	return APENET_GET(RMT_STATUS, BUSY, rd32(b, APENET_REG_RMT_STATUS));
}
static unsigned st_result(const struct sim_board *b)
{
	return APENET_GET(RMT_STATUS, RESULT, rd32(b, APENET_REG_RMT_STATUS));
}

/* Rings the doorbell; returns the request's SEQ. */
static unsigned ring(struct sim_board *b, unsigned op, unsigned link, uint32_t off, uint32_t wdata)
{
	unsigned seq = (st_seq(b) + 1) & 0xffff;
	wr32(b, APENET_REG_RMT_ADDR, off);
	wr32(b, APENET_REG_RMT_WDATA, wdata);
	wr32(b, APENET_REG_RMT_CTRL,
	     APENET_SET(RMT_CTRL, OP, op) | APENET_SET(RMT_CTRL, LINK, link) | APENET_SET(RMT_CTRL, SEQ, seq));
	return seq;
}

/* Steps dt_us at a time until request seq is done; the simulated time it
 * took (the first step is the tick that takes the doorbell). */
static unsigned wait_done(struct sim_torus *t, struct sim_board *b, unsigned seq, unsigned dt_us, unsigned limit_us)
{
	for (unsigned us = dt_us; us <= limit_us; us += dt_us) {
		step(t, dt_us);
		if (st_seq(b) == seq && !st_busy(b))
			return us;
	}
	fail_msg("remote request %u not done after %u us (status 0x%08x)", seq, limit_us,
		 rd32(b, APENET_REG_RMT_STATUS));
	return 0;
}

/* One whole request, 1 ms ticks; its result. */
static unsigned request(struct sim_torus *t, struct sim_board *b, unsigned op, unsigned link, uint32_t off,
			uint32_t wdata)
{
	unsigned seq = ring(b, op, link, off, wdata);
	wait_done(t, b, seq, 1000, 20000);
	return st_result(b);
}

/* The partner's end (board, link) of b's link l. */
static struct sim_board *partner(struct sim_torus *t, struct sim_board *b, unsigned l, unsigned *pl)
{
	assert_true(b->link[l].peer_board >= 0);
	*pl = (unsigned)b->link[l].peer_link;
	return &t->b[b->link[l].peer_board];
}

/* ---- 1. a read: the state machine microsecond by microsecond ---- */

static void test_read_round_trip(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0);
	unsigned xp = link_idx(b0, "X+"), pl;
	struct sim_board *b1 = partner(t, b0, xp, &pl);
	assert_ptr_equal(b1, board(t, 1, 0, 0));

	bring_up(t);
	uint32_t caps = rd32(b0, APENET_REG_ID_CAPS);
	assert_int_equal(APENET_GET(ID_CAPS, RMT, caps), 1);
	assert_int_equal(APENET_GET(ID_CAPS, LATENCY, caps), 1);
	assert_int_equal(rd32(b0, APENET_REG_RMT_STATUS), 0); /* nothing asked yet */
	uint32_t served0 = rd32(b1, APENET_REG_RMT_SERVED);

	/* what the round trip must be (docs/design.md) */
	double lat = rd32(b0, apenet_link_off(xp, APENET_LINK_LATENCY_PS)) +
		     (double)rd32(b1, apenet_link_off(pl, APENET_LINK_LATENCY_PS));
	double min_ps = lat + 2 * 60e3 + 0.5e6 + 2e6, max_ps = min_ps + 1e6;

	unsigned seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0);
	assert_int_equal(seq, 1);
	step(t, 1); /* the tick that takes it: sent, in flight */
	assert_int_equal(st_busy(b0), 1);
	assert_int_equal(st_seq(b0), 0);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served0 + 1); /* the partner served it */
	unsigned us = 1;
	while (st_busy(b0)) {
		step(t, 1);
		if (++us > 20)
			fail_msg("no answer after 20 us");
	}
	uint32_t rtt = rd32(b0, APENET_REG_RMT_RTT);
	double rtt_ps = rtt * TS_PS;
	print_message("round trip %u ticks = %.2f us, answer seen after %u us of 1-us ticks\n", rtt, rtt_ps / 1e6,
		      us);
	assert_true(rtt_ps >= min_ps - TS_PS && rtt_ps <= max_ps + TS_PS);
	/* "a few microseconds" */
	assert_true(rtt_ps > 2e6 && rtt_ps < 10e6);
	/* published at the first tick at or past the round trip, not before */
	assert_true(us - 1 >= (unsigned)floor(rtt_ps / 1e6) && us - 1 <= (unsigned)ceil(rtt_ps / 1e6) + 1);
	assert_int_equal(st_seq(b0), seq);
	assert_int_equal(st_result(b0), APENET_RMT_OK);
	assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), APENET_MAGIC);

	/* a 64-bit register comes whole: the partner's TIMESTAMP as its BAR held it */
	uint64_t ts0 = rd64(b1, APENET_REG_TIMESTAMP);
	seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_TIMESTAMP, 0);
	wait_done(t, b0, seq, 1, 20);
	assert_int_equal(st_result(b0), APENET_RMT_OK);
	uint64_t got = rd64(b0, APENET_REG_RMT_RDATA);
	assert_true(got >= ts0 && got <= rd64(b1, APENET_REG_TIMESTAMP));
	assert_true(got > 0xffffffffull || rd64(b1, APENET_REG_TIMESTAMP) <= 0xffffffffull);

	/* identity: the partner's coordinates, through the link */
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_NODE_COORD, 0), APENET_RMT_OK);
	assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), rd32(b1, APENET_REG_NODE_COORD));
	assert_int_equal(APENET_GET(NODE_COORD, X, rd64(b0, APENET_REG_RMT_RDATA)), 1);
	/* with 10 ms ticks the answer is there one tick after the doorbell */
	seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_ID_VARIANT, 0);
	assert_int_equal(wait_done(t, b0, seq, 10000, 50000), 20000);
	assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), APENET_V_APENETP);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served0 + 4);
	/* a doorbell rings once */
	run(t, 1000, 5000);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served0 + 4);
	assert_int_equal(st_seq(b0), seq);
}

/* ---- 2. PRBS at the far end: started through the window, ended by its run
 * time, its counters read back through the window ---- */

static void test_remote_prbs(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0);
	unsigned xp = link_idx(b0, "X+"), pl;
	struct sim_board *b1 = partner(t, b0, xp, &pl);
	unsigned lanes = b0->prof->links[xp].lanes;
	uint32_t ctrl = APENET_SET(LANE_PRBS_CTRL, PATTERN, APENET_PRBS31) | APENET_SET(LANE_PRBS_CTRL, ENABLE, 1);

	bring_up(t);
	/* the far end: 30 ms of PRBS31 on every lane, then back to traffic */
	for (unsigned k = 0; k < lanes; k++)
		assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, apenet_lane_off(pl, k, APENET_LANE_PRBS_RUN_MS), 30),
				 APENET_RMT_OK);
	for (unsigned k = 0; k < lanes; k++)
		assert_int_equal(rd32(b1, apenet_lane_off(pl, k, APENET_LANE_PRBS_RUN_MS)), 30);
	for (unsigned k = 0; k < lanes; k++) {
		unsigned seq = ring(b0, APENET_RMT_WRITE, xp, apenet_lane_off(pl, k, APENET_LANE_PRBS_CTRL), ctrl);
		if (k == 0) {
			wait_done(t, b0, seq, 1000, 20000);
			assert_int_equal(st_result(b0), APENET_RMT_OK);
			/* the write is the partner's register, as its host would have written it */
			assert_int_equal(rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_CTRL)), ctrl);
			/* and its generator runs: the link carries no packets any more */
			step(t, 1000);
			assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING,
						    rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_STATUS))),
					 1);
			assert_int_equal(link_state(b1, pl), APENET_LINK_PRBS);
			continue;
		}
		/* lanes 1..3: refused now, since lane 0 of the partner runs PRBS */
		wait_done(t, b0, seq, 1000, 20000);
		assert_int_equal(st_result(b0), APENET_RMT_LINK_PRBS);
	}
	/* this end checks the partner's pattern and sends its own on lane 0 */
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl);
	unsigned ms = 0;
	while (APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_STATUS)))) {
		step(t, 1000);
		assert_true(++ms < 40);
	}
	/* the far run ended by itself, after its 30 ms, and said so */
	print_message("far end stopped after %u ms\n", ms);
	uint32_t fst = rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_STATUS));
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, ENDED, fst), 1);
	assert_int_equal(APENET_GET(LANE_PRBS_CTRL, ENABLE, rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_CTRL))), 0);
	uint64_t fbits = rd64(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS));
	/* 30 ms at 7 Gbps, less the ticks before lock and the one it ended in */
	assert_true(fbits > 7e9 * 0.020 && fbits <= 7e9 * 0.031);
	/* still refused: this end runs PRBS */
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS), 0),
			 APENET_RMT_LINK_PRBS);
	uint64_t nbits = rd64(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_BITS));
	assert_true(nbits > 0); /* the near checker saw the far generator */
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), 0);
	run(t, 1000, 2000);
	/* the counters through the window are the partner's own, frozen */
	static const unsigned regs[] = { APENET_LANE_PRBS_BITS, APENET_LANE_PRBS_ERRS, APENET_LANE_PRBS_STATUS,
					 APENET_LANE_PRBS_START_TS, APENET_LANE_PRBS_CTRL, APENET_LANE_PMA_VOD };
	for (unsigned i = 0; i < sizeof(regs) / sizeof(regs[0]); i++) {
		uint32_t off = apenet_lane_off(pl, 0, regs[i]);
		int wide = regs[i] == APENET_LANE_PRBS_BITS || regs[i] == APENET_LANE_PRBS_ERRS ||
			   regs[i] == APENET_LANE_PRBS_START_TS;
		assert_int_equal(request(t, b0, APENET_RMT_READ, xp, off, 0), APENET_RMT_OK);
		assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), wide ? rd64(b1, off) : rd32(b1, off));
	}
	assert_int_equal(rd64(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS)), fbits);
}

/* ---- 3. PRBS_RUN_MS on a local run ---- */

static void test_prbs_run_time(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = link_idx(b0, "X+"), xm = link_idx(b1, "X-");
	uint32_t ctrl = APENET_SET(LANE_PRBS_CTRL, PATTERN, APENET_PRBS7) | APENET_SET(LANE_PRBS_CTRL, ENABLE, 1);
	uint32_t st0 = apenet_lane_off(xp, 0, APENET_LANE_PRBS_STATUS);

	bring_up(t);
	wr32(b1, apenet_lane_off(xm, 0, APENET_LANE_PRBS_CTRL), ctrl); /* the far end sends, unlimited */
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_RUN_MS), 5);
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl);
	step(t, 1000);
	uint64_t on_ts = rd64(b0, APENET_REG_TIMESTAMP);
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b0, st0)), 1);
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, ENDED, rd32(b0, st0)), 0);
	while (APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b0, st0)))
		step(t, 1000);
	/* ended at the first tick 5 ms after the run started */
	assert_int_equal(rd64(b0, APENET_REG_TIMESTAMP) - on_ts, 5000 * US_TO_TS);
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, ENDED, rd32(b0, st0)), 1);
	assert_int_equal(rd32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL)),
			 ctrl & ~APENET_SET(LANE_PRBS_CTRL, ENABLE, 1));
	assert_int_equal(rd32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_RUN_MS)), 5); /* a setting: it stays */
	uint64_t bits = rd64(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_BITS));
	assert_true(bits > 0);
	run(t, 1000, 10000);
	assert_int_equal(rd64(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_BITS)), bits); /* frozen */
	assert_int_equal(link_state(b0, xp), APENET_LINK_UP);
	/* enabling again starts a new run: ENDED clears */
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_RUN_MS), 0);
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl);
	run(t, 1000, 20000);
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b0, st0)), 1);
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, ENDED, rd32(b0, st0)), 0);
}

/* ---- 3b. every far lane in one request (LANES), and a far end that
 * follows this one back to traffic (FOLLOW) ---- */

static void test_prbs_lanes_follow(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0);
	unsigned xp = link_idx(b0, "X+"), pl;
	struct sim_board *b1 = partner(t, b0, xp, &pl);
	unsigned lanes = b0->prof->links[xp].lanes;
	uint32_t all = (1u << lanes) - 1;
	uint32_t ctrl = APENET_SET(LANE_PRBS_CTRL, PATTERN, APENET_PRBS23) | APENET_SET(LANE_PRBS_CTRL, ENABLE, 1);
	uint32_t follow = ctrl | APENET_SET(LANE_PRBS_CTRL, FOLLOW, 1);

	bring_up(t);
	/* a guard of 10 s: FOLLOW, not the guard, must end this run */
	for (unsigned k = 0; k < lanes; k++)
		assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, apenet_lane_off(pl, k, APENET_LANE_PRBS_RUN_MS), 10000),
				 APENET_RMT_OK);
	/* one write through the window starts every far lane */
	assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, apenet_lane_off(pl, 0, APENET_LANE_PRBS_CTRL),
				 follow | APENET_SET(LANE_PRBS_CTRL, LANES, all)),
			 APENET_RMT_OK);
	step(t, 1000);
	for (unsigned k = 0; k < lanes; k++) {
		/* the LANES field is a command: gone once done, everywhere */
		assert_int_equal(rd32(b1, apenet_lane_off(pl, k, APENET_LANE_PRBS_CTRL)), follow);
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b1, apenet_lane_off(pl, k, APENET_LANE_PRBS_STATUS))),
				 1);
	}
	/* this end joins: every checker at both ends locks */
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl | APENET_SET(LANE_PRBS_CTRL, LANES, all));
	unsigned ms = 0;
	for (int locked = 0; !locked; ms++) {
		step(t, 1000);
		locked = 1;
		for (unsigned k = 0; k < lanes; k++)
			locked &= APENET_GET(LANE_PRBS_STATUS, LOCKED, rd32(b0, apenet_lane_off(xp, k, APENET_LANE_PRBS_STATUS))) &
				  APENET_GET(LANE_PRBS_STATUS, LOCKED, rd32(b1, apenet_lane_off(pl, k, APENET_LANE_PRBS_STATUS)));
		assert_true(ms < 50);
	}
	run(t, 1000, 20000);
	/* this end stops (lane 0's write names them all): the far end follows
	 * within APENET_PRBS_FOLLOW_MS and a tick, and the link carries
	 * traffic again, long before its 10 s guard */
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), APENET_SET(LANE_PRBS_CTRL, LANES, all));
	step(t, 1000);
	for (unsigned k = 0; k < lanes; k++)
		assert_int_equal(rd32(b0, apenet_lane_off(xp, k, APENET_LANE_PRBS_CTRL)), 0);
	uint64_t bits0 = rd64(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS));
	ms = 0;
	while (APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b1, apenet_lane_off(pl, lanes - 1, APENET_LANE_PRBS_STATUS)))) {
		step(t, 1000);
		assert_true(++ms <= APENET_PRBS_FOLLOW_MS + 2);
	}
	print_message("far end followed this one back to traffic after %u ms\n", ms);
	for (unsigned k = 0; k < lanes; k++) {
		uint32_t st = rd32(b1, apenet_lane_off(pl, k, APENET_LANE_PRBS_STATUS));
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, st), 0);
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, ENDED, st), 1);
		assert_int_equal(APENET_GET(LANE_PRBS_STATUS, FOLLOWED, st), 1);
		assert_int_equal(APENET_GET(LANE_PRBS_CTRL, ENABLE, rd32(b1, apenet_lane_off(pl, k, APENET_LANE_PRBS_CTRL))), 0);
	}
	/* its counters froze where it stopped, and the window reads them */
	uint64_t bits1 = rd64(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS));
	assert_true(bits1 >= bits0);
	run(t, 1000, 5000);
	assert_int_equal(link_state(b1, pl), APENET_LINK_UP);
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS), 0), APENET_RMT_OK);
	assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), bits1);
	/* without FOLLOW a far end keeps running when this end stops */
	assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, apenet_lane_off(pl, 0, APENET_LANE_PRBS_CTRL), ctrl), APENET_RMT_OK);
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), ctrl);
	run(t, 1000, 20000);
	wr32(b0, apenet_lane_off(xp, 0, APENET_LANE_PRBS_CTRL), 0);
	run(t, 1000, 30000);
	assert_int_equal(APENET_GET(LANE_PRBS_STATUS, RUNNING, rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PRBS_STATUS))), 1);
}

/* ---- 4. what the partner refuses, and what never leaves ---- */

static void test_window_policy(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0);
	unsigned xp = link_idx(b0, "X+"), pl;
	struct sim_board *b1 = partner(t, b0, xp, &pl);
	unsigned other = link_idx(b1, "X+"); /* a link of the partner not facing us */
	assert_int_not_equal(other, pl);

	bring_up(t);
	struct {
		unsigned op;
		uint32_t off;
		const char *what;
	} denied[] = {
		{ APENET_RMT_READ, APENET_REG_LDM_OWN, "a global register outside the identity" },
		{ APENET_RMT_READ, APENET_REG_RMT_STATUS, "the partner's own window" },
		{ APENET_RMT_WRITE, APENET_REG_CMD_SEQ, "the command doorbell" },
		{ APENET_RMT_WRITE, APENET_REG_ID_CAPS, "an identity register, for writing" },
		{ APENET_RMT_READ, apenet_link_off(pl, APENET_LINK_TX_BYTES), "a link register of the facing link" },
		{ APENET_RMT_READ, apenet_lane_off(other, 0, APENET_LANE_PRBS_BITS), "a lane of another link" },
		{ APENET_RMT_WRITE, apenet_lane_off(other, 0, APENET_LANE_PRBS_CTRL), "PRBS_CTRL of another link" },
		{ APENET_RMT_WRITE, apenet_lane_off(other, 0, APENET_LANE_PMA_VOD), "a PMA setting of another link" },
		{ APENET_RMT_WRITE, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS), "a counter, for writing" },
		{ APENET_RMT_READ, apenet_lane_off(pl, 0, APENET_LANE_PRBS_BITS) + 4, "the upper half of a counter" },
		{ APENET_RMT_READ, apenet_lane_off(pl, 0, APENET_LANE_CODE_VIOL), "a lane counter outside PRBS" },
		{ APENET_RMT_READ, apenet_lane_off(pl, 4, APENET_LANE_PRBS_BITS), "a lane the link does not have" },
		{ APENET_RMT_READ, apenet_ee_off(pl, APENET_EE_STATUS), "the module window" },
		{ APENET_RMT_READ, APENET_BAR_SIZE - 4, "the end of BAR0" },
	};
	uint32_t vod = rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PMA_VOD));
	for (unsigned i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		uint32_t served = rd32(b1, APENET_REG_RMT_SERVED), before = rd32(b1, denied[i].off);
		unsigned r = request(t, b0, denied[i].op, xp, denied[i].off, 0x5a5a5a5a);
		if (r != APENET_RMT_DENIED)
			fail_msg("%s (0x%04x): result %s, not DENIED", denied[i].what, denied[i].off,
				 apenet_rmt_result_name(r));
		assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served + 1); /* the partner answered */
		assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), 0);
		if (denied[i].op == APENET_RMT_WRITE && denied[i].off != APENET_REG_CMD_SEQ)
			assert_int_equal(rd32(b1, denied[i].off), before);
	}
	assert_int_equal(rd32(b1, apenet_lane_off(pl, 0, APENET_LANE_PMA_VOD)), vod);
	/* reading a PMA setting of the facing lanes is allowed (writing too:
	 * test_pma_trial) */
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, apenet_lane_off(pl, 3, APENET_LANE_PMA_VOD), 0),
			 APENET_RMT_OK);
	assert_int_equal(rd64(b0, APENET_REG_RMT_RDATA), rd32(b1, apenet_lane_off(pl, 3, APENET_LANE_PMA_VOD)));

	/* malformed: refused here at once, nothing sent */
	uint32_t served = rd32(b1, APENET_REG_RMT_SERVED);
	unsigned seq = ring(b0, 2, xp, APENET_REG_ID_MAGIC, 0);
	step(t, 1);
	assert_int_equal(st_seq(b0), seq);
	assert_int_equal(st_busy(b0), 0);
	assert_int_equal(st_result(b0), APENET_RMT_BADREQ);
	seq = ring(b0, APENET_RMT_READ, b0->prof->nlinks, APENET_REG_ID_MAGIC, 0);
	step(t, 1);
	assert_int_equal(st_seq(b0), seq);
	assert_int_equal(st_result(b0), APENET_RMT_BADREQ);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served);

	/* the Z cable of a 4x1x1 torus loops back to this board: Z+ reaches Z-'s lanes, not its own */
	unsigned zp = link_idx(b0, "Z+"), zm = link_idx(b0, "Z-");
	assert_int_equal(b0->link[zp].peer_board, (int)b0->idx);
	assert_int_equal(request(t, b0, APENET_RMT_READ, zp, apenet_lane_off(zm, 2, APENET_LANE_PRBS_STATUS), 0),
			 APENET_RMT_OK);
	assert_int_equal(request(t, b0, APENET_RMT_READ, zp, apenet_lane_off(zp, 2, APENET_LANE_PRBS_STATUS), 0),
			 APENET_RMT_DENIED);
}

/* ---- 5. errors: link down, a hung or window-less partner, a hung DNP here,
 * no DNP at the far end ---- */

/* A PMA setting written through the window is on trial: kept once the lane
 * is up with it; put back after APENET_RMT_PMA_REVERT_MS of the link down
 * (outside PRBS runs), so that a setting that cuts the link cannot strand
 * it. */
/* A 4x1x1 APEnet+ torus up, board 0,0,0, its X+ and the partner's end. */
static struct sim_torus *x_pair(struct fx *f, struct sim_board **b0, unsigned *xp, struct sim_board **b1, unsigned *pl)
{
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, -1);
	*b0 = board(t, 0, 0, 0);
	*xp = link_idx(*b0, "X+");
	*b1 = partner(t, *b0, *xp, pl);
	bring_up(t);
	return t;
}

static void test_pma_trial(void **state)
{
	struct fx *f = *state;
	struct sim_board *b0, *b1;
	unsigned xp, pl;
	struct sim_torus *t = x_pair(f, &b0, &xp, &b1, &pl);
	uint32_t vod0 = apenet_lane_off(pl, 0, APENET_LANE_PMA_VOD), vod1 = apenet_lane_off(pl, 1, APENET_LANE_PMA_VOD);
	uint32_t rxeq1 = apenet_lane_off(pl, 1, APENET_LANE_PMA_RXEQ);
	unsigned def = rd32(b1, vod0), defeq = rd32(b1, rxeq1);
	assert_int_equal(def, b1->prof->pma_default.vod);

	/* a setting the link stays up with: applied at once, on trial for the
	 * revert time, then kept */
	assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, vod0, def + 1), APENET_RMT_OK);
	run(t, 1000, 20000);
	assert_int_equal(b1->link[pl].lane[0].pma.vod, def + 1);
	assert_int_equal(b1->link[pl].lane[0].pma_trial, 1);
	run(t, 1000, APENET_RMT_PMA_REVERT_MS * 1000);
	assert_int_equal(b1->link[pl].lane[0].pma_trial, 0);

	/* two settings of lane 1, then the link goes down (the cable pulled):
	 * both stay until the revert time has passed, then both go back */
	assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, vod1, 1), APENET_RMT_OK);
	assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, rxeq1, defeq + 3), APENET_RMT_OK);
	inject_ok(t, 4, "0,0,0", "cable-unplug", "--link", "X+");
	run(t, 1000, APENET_RMT_PMA_REVERT_MS * 1000 - 50000);
	assert_int_equal(rd32(b1, vod1), 1);
	assert_int_equal(b1->link[pl].lane[1].pma.rxeq, defeq + 3);
	run(t, 1000, 100000);
	assert_int_equal(rd32(b1, vod1), def);
	assert_int_equal(rd32(b1, rxeq1), defeq);
	assert_int_equal(b1->link[pl].lane[1].pma.vod, def);
	assert_int_equal(rd32(b1, vod0), def + 1); /* accepted before: stays */

	/* a write's own host writes are never on trial */
	wr32(b1, vod1, 2);
	inject_ok(t, 2, "0,0,0", "clear");
	run(t, 1000, APENET_RMT_PMA_REVERT_MS * 1000 + 100000);
	assert_int_equal(rd32(b1, vod1), 2);
	assert_int_equal(b1->link[pl].lane[1].pma_trial, 0);
}

/* A setting that makes the link flap (here: the link realigned every
 * 300 ms, each time up again within milliseconds) is never up for the
 * revert time nor down for it: put back once it has not proved itself
 * within twice the revert time, not left to keep the link flapping. */
static void test_pma_trial_flapping(void **state)
{
	struct fx *f = *state;
	struct sim_board *b0, *b1;
	unsigned xp, pl;
	struct sim_torus *t = x_pair(f, &b0, &xp, &b1, &pl);
	uint32_t vod0 = apenet_lane_off(pl, 0, APENET_LANE_PMA_VOD);
	unsigned def = rd32(b1, vod0);
	assert_int_equal(request(t, b0, APENET_RMT_WRITE, xp, vod0, def + 1), APENET_RMT_OK);
	uint64_t downs0 = rd64(b0, apenet_link_off(xp, APENET_LINK_DOWN_EVENTS));
	unsigned ms = 0, up_at_1500 = 0;
	for (; ms < 2 * APENET_RMT_PMA_REVERT_MS + 300; ms += 300) {
		wr32(b0, APENET_REG_CMD_CODE, APENET_CMD_REALIGN);
		wr32(b0, APENET_REG_CMD_ARG, xp);
		wr32(b0, APENET_REG_CMD_SEQ, rd32(b0, APENET_REG_CMD_DONE_SEQ) + 1);
		run(t, 1000, 300000);
		if (ms + 300 <= 3 * APENET_RMT_PMA_REVERT_MS / 2) {
			/* not down for the revert time at any stretch: still on trial */
			assert_int_equal(rd32(b1, vod0), def + 1);
			assert_int_equal(b1->link[pl].lane[0].pma_trial, 1);
			up_at_1500 += link_state(b0, xp) == APENET_LINK_UP;
		}
	}
	assert_true(rd64(b0, apenet_link_off(xp, APENET_LINK_DOWN_EVENTS)) >= downs0 + 7); /* it did flap */
	assert_true(up_at_1500 >= 4);                                                   /* and came back each time */
	assert_int_equal(b1->link[pl].lane[0].pma_trial, 0);
	assert_int_equal(rd32(b1, vod0), def);
	assert_int_equal(b1->link[pl].lane[0].pma.vod, def);
}

static void test_errors(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, 2); /* 2,0,0: firmware without the window */
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0), *b2 = board(t, 2, 0, 0);
	unsigned xp = link_idx(b0, "X+");

	bring_up(t);
	assert_int_equal(APENET_GET(ID_CAPS, RMT, rd32(b2, APENET_REG_ID_CAPS)), 0);
	assert_int_equal(APENET_GET(ID_CAPS, LATENCY, rd32(b2, APENET_REG_ID_CAPS)), 1);
	assert_int_equal(APENET_GET(ID_CAPS, RMT, rd32(b1, APENET_REG_ID_CAPS)), 1);

	/* a firmware without the window ignores its doorbell */
	ring(b2, APENET_RMT_READ, link_idx(b2, "X-"), APENET_REG_ID_MAGIC, 0);
	run(t, 1000, 20000);
	assert_int_equal(rd32(b2, APENET_REG_RMT_STATUS), 0);
	assert_int_equal(rd64(b2, APENET_REG_RMT_RDATA), 0);
	/* ... and as a partner never answers: NO_ANSWER after APENET_RMT_ANSWER_US */
	unsigned x1 = link_idx(b1, "X+");
	uint32_t rtt = rd32(b1, APENET_REG_RMT_RTT);
	unsigned seq = ring(b1, APENET_RMT_READ, x1, APENET_REG_ID_MAGIC, 0);
	unsigned us = wait_done(t, b1, seq, 1, 2000);
	assert_int_equal(st_result(b1), APENET_RMT_NO_ANSWER);
	assert_true(us >= APENET_RMT_ANSWER_US && us <= APENET_RMT_ANSWER_US + 2);
	assert_int_equal(rd32(b1, APENET_REG_RMT_RTT), rtt); /* no round trip measured */
	assert_int_equal(rd32(b2, APENET_REG_RMT_SERVED), 0);

	/* the partner's DNP hung: no answer either */
	inject_ok(t, 2, "1,0,0", "dnp-hang");
	seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0);
	us = wait_done(t, b0, seq, 10, 2000);
	assert_int_equal(st_result(b0), APENET_RMT_NO_ANSWER);
	assert_true(us >= APENET_RMT_ANSWER_US && us <= APENET_RMT_ANSWER_US + 10);
	inject_ok(t, 2, "1,0,0", "clear");
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0), APENET_RMT_OK);

	/* this DNP hung: the doorbell is not even taken; taken once it runs again */
	inject_ok(t, 2, "0,0,0", "dnp-hang");
	seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0);
	run(t, 1000, 50000);
	assert_int_not_equal(st_seq(b0), seq);
	assert_int_equal(st_busy(b0), 0);
	inject_ok(t, 2, "0,0,0", "clear");
	wait_done(t, b0, seq, 1000, 20000);
	assert_int_equal(st_result(b0), APENET_RMT_OK);

	/* the link down: refused at once, nothing sent */
	inject_ok(t, 4, "0,0,0", "cable-unplug", "--link", "X+");
	run(t, 1000, 5000);
	assert_int_equal(link_state(b0, xp), APENET_LINK_DOWN);
	uint32_t served = rd32(b1, APENET_REG_RMT_SERVED);
	seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0);
	step(t, 1);
	assert_int_equal(st_seq(b0), seq);
	assert_int_equal(st_busy(b0), 0);
	assert_int_equal(st_result(b0), APENET_RMT_LINK_DOWN);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served);
	inject_ok(t, 2, "0,0,0", "clear");
	/* training is not up either */
	step(t, 1000);
	assert_int_equal(link_state(b0, xp), APENET_LINK_TRAINING);
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0), APENET_RMT_LINK_DOWN);
	bring_up(t);
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0), APENET_RMT_OK);

	/* a new doorbell rung while one is in flight is taken after it */
	served = rd32(b1, APENET_REG_RMT_SERVED);
	seq = ring(b0, APENET_RMT_READ, xp, APENET_REG_ID_VARIANT, 0);
	step(t, 1);
	assert_int_equal(st_busy(b0), 1);
	wr32(b0, APENET_REG_RMT_CTRL, APENET_SET(RMT_CTRL, LINK, xp) | APENET_SET(RMT_CTRL, SEQ, seq + 1));
	wait_done(t, b0, seq + 1, 1, 50);
	assert_int_equal(st_result(b0), APENET_RMT_OK);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served + 2);
}

static void test_no_partner(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_NANET_KM3, 1, 1, 1, -1);
	struct sim_board *b = board(t, 0, 0, 0);
	unsigned km3 = link_idx(b, "KM3link0");

	bring_up(t);
	assert_int_equal(b->link[km3].peer_board, -2); /* the detector */
	assert_int_equal(request(t, b, APENET_RMT_READ, km3, APENET_REG_ID_MAGIC, 0), APENET_RMT_NO_PARTNER);
}

/* ---- 6. the window across card-gone and power-off ---- */

static void test_gone_and_power(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 2, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0);
	unsigned xp = link_idx(b0, "X+");

	bring_up(t);
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0), APENET_RMT_OK);
	uint32_t status = rd32(b0, APENET_REG_RMT_STATUS), ctrl = rd32(b0, APENET_REG_RMT_CTRL);
	uint32_t served = rd32(b1, APENET_REG_RMT_SERVED);
	/* the card comes back with the host's window registers: no request rings again */
	inject_ok(t, 2, "0,0,0", "card-gone");
	assert_int_equal(rd32(b0, APENET_REG_RMT_STATUS), APENET_ALL_ONES);
	run(t, 1000, 5000);
	inject_ok(t, 2, "0,0,0", "clear");
	bring_up(t);
	assert_int_equal(rd32(b0, APENET_REG_RMT_CTRL), ctrl);
	assert_int_equal(rd32(b0, APENET_REG_RMT_STATUS), status);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), served);
	/* the partner's firmware served nothing while it was away: the link was down */
	inject_ok(t, 2, "1,0,0", "power-off");
	run(t, 1000, 5000);
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0), APENET_RMT_LINK_DOWN);
	/* powered on cold: its window starts from nothing */
	inject_ok(t, 2, "1,0,0", "clear");
	bring_up(t);
	assert_int_equal(rd32(b1, APENET_REG_RMT_SERVED), 0);
	assert_int_equal(rd32(b1, APENET_REG_RMT_STATUS), 0);
	assert_int_equal(rd32(b1, APENET_REG_RMT_CTRL), 0);
	assert_int_equal(request(t, b0, APENET_RMT_READ, xp, APENET_REG_ID_MAGIC, 0), APENET_RMT_OK);
}

/* ---- 7. link latency at alignment, deterministic or not ---- */

static double ui_ps(const struct sim_board *b, unsigned l)
{
	return 1e6 / b->prof->links[l].lane_mbps;
}

/* LINK_LATENCY_PS of a deterministic link, from the cable and the rate. */
static uint32_t expected_latency(const struct sim_board *b, unsigned l, double metres, int optical, double word_ui)
{
	return (uint32_t)llround(metres * (optical ? 4900 : 4760) + 24 * word_ui * ui_ps(b, l));
}

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

/* Realign link l n times; the distinct latencies seen (at most 32) in v[]. */
static unsigned realign_latencies(struct sim_torus *t, struct sim_board *b, unsigned l, unsigned n, uint32_t *v)
{
	unsigned nv = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t up0 = rd64(b, apenet_link_off(l, APENET_LINK_UP_TS));
		assert_int_equal(command(t, b, APENET_CMD_REALIGN, l), APENET_CMDERR_OK);
		assert_int_equal(rd32(b, apenet_link_off(l, APENET_LINK_LATENCY_PS)), 0); /* no measurement */
		unsigned ms = 0;
		while (link_state(b, l) != APENET_LINK_UP || rd64(b, apenet_link_off(l, APENET_LINK_UP_TS)) == up0) {
			step(t, 1000);
			assert_true(++ms < 200);
		}
		uint32_t lat = rd32(b, apenet_link_off(l, APENET_LINK_LATENCY_PS));
		unsigned j = 0;
		while (j < nv && v[j] != lat)
			j++;
		if (j == nv && nv < 32)
			v[nv++] = lat;
	}
	return nv;
}

static void test_latency(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_APENETP, 4, 1, 1, -1);
	struct sim_board *b0 = board(t, 0, 0, 0), *b1 = board(t, 1, 0, 0), *b3 = board(t, 3, 0, 0);
	unsigned xp = link_idx(b0, "X+"), xm = link_idx(b0, "X-");
	char reply[512];

	/* 0 before the link is up */
	step(t, 1000);
	assert_int_equal(rd32(b0, apenet_link_off(xp, APENET_LINK_LATENCY_PS)), 0);
	bring_up(t);
	/* 2 m of copper to the neighbour, 5 m on the wraparound, 7 Gbps 8b/10b lanes */
	uint32_t base = expected_latency(b0, xp, 2, 0, 40);
	print_message("X+ latency %u ps (2 m copper at %u Mbps)\n", base, b0->prof->links[xp].lane_mbps);
	assert_int_equal(rd32(b0, apenet_link_off(xp, APENET_LINK_LATENCY_PS)), base);
	assert_int_equal(rd32(b1, apenet_link_off(link_idx(b1, "X-"), APENET_LINK_LATENCY_PS)), base);
	assert_int_equal(rd32(b0, apenet_link_off(xm, APENET_LINK_LATENCY_PS)), expected_latency(b0, xm, 5, 0, 40));
	assert_int_equal(rd32(b3, apenet_link_off(link_idx(b3, "X+"), APENET_LINK_LATENCY_PS)),
			 expected_latency(b0, xm, 5, 0, 40));

	uint32_t v[32];
	/* deterministic: every alignment lands on the same value */
	assert_int_equal(realign_latencies(t, b0, xp, 8, v), 1);
	assert_int_equal(v[0], base);

	/* latency-jitter: several values, each a whole number of unit intervals of slip */
	char *bad[] = { "0,0,0", "latency-jitter" };
	assert_int_equal(sim_inject(t, bad, 2, reply, sizeof(reply)), -1);
	assert_non_null(strstr(reply, "--link"));
	inject_ok(t, 4, "0,0,0", "latency-jitter", "--link", "X+");
	unsigned nv = realign_latencies(t, b0, xp, 10, v);
	print_message("latency-jitter: %u distinct values in 10 realigns\n", nv);
	assert_true(nv >= 3);
	for (unsigned i = 0; i < nv; i++) {
		double slip = (v[i] - (double)expected_latency(b0, xp, 2, 0, 40)) / ui_ps(b0, xp);
		assert_true(slip > -0.01 && slip < SIM_ALIGN_SLIPS - 1 + 0.01);
		assert_true(fabs(slip - round(slip)) < 0.01);
	}
	/* the other links stay deterministic */
	assert_int_equal(realign_latencies(t, b0, xm, 4, v), 1);
	/* clear: deterministic again from the next alignment */
	inject_ok(t, 2, "0,0,0", "clear");
	assert_int_equal(realign_latencies(t, b0, xp, 8, v), 1);
	assert_int_equal(v[0], base);
	/* the fault went to the cable: injected from the far end, it shows here too */
	inject_ok(t, 4, "1,0,0", "latency-jitter", "--link", "X-");
	assert_true(realign_latencies(t, b0, xp, 10, v) >= 3);
	inject_ok(t, 2, "1,0,0", "clear");
	assert_int_equal(realign_latencies(t, b0, xp, 4, v), 1);
}

/* KM3link: 800 Mbps to the detector over 10 m of fibre, the deterministic
 * latency link SPEC §5 speaks of. */
static void test_latency_km3(void **state)
{
	struct fx *f = *state;
	struct sim_torus *t = torus(f, APENET_V_NANET_KM3, 1, 1, 1, -1);
	struct sim_board *b = board(t, 0, 0, 0);
	unsigned l = link_idx(b, "KM3link0");
	uint32_t v[32];

	bring_up(t);
	uint32_t base = expected_latency(b, l, 10, 1, 40);
	print_message("KM3link0 latency %u ps\n", base);
	assert_int_equal(rd32(b, apenet_link_off(l, APENET_LINK_LATENCY_PS)), base);
	assert_int_equal(realign_latencies(t, b, l, 5, v), 1);
	inject_ok(t, 4, "0,0,0", "latency-jitter", "--link", "KM3link0");
	assert_true(realign_latencies(t, b, l, 10, v) >= 3);
}

/* ---- 8. the YAML: remote_window for the torus, overridden per node ---- */

static void write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static void test_conf_remote_window(void **state)
{
	struct fx *f = *state;
	char path[128], tdir[128];
	struct sim_conf c;
	struct apenet_err e = { 0 };

	snprintf(path, sizeof(path), "%s/t.yaml", f->dir);
	snprintf(tdir, sizeof(tdir), "%s/torus", f->dir);
	write_file(path, "dims: 3x1x1\nremote_window: false\nnodes:\n  - node: 1,0,0\n    remote_window: yes\n");
	memset(&c, 0, sizeof(c));
	c.prof = apenet_profile(APENET_V_APENETP);
	c.cable_kind = -1;
	c.seed = 1;
	if (sim_conf_load(path, &c, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(c.no_remote_window, 1);
	assert_int_equal(c.nnodes, 1);
	assert_int_equal(c.nodes[0].remote_window, 1);
	int rc = sim_torus_create(&f->t, &c, tdir, &e);
	sim_conf_free(&c);
	if (rc)
		fail_msg("%s", e.msg);
	step(&f->t, 1000);
	for (unsigned x = 0; x < 3; x++)
		assert_int_equal(APENET_GET(ID_CAPS, RMT, rd32(board(&f->t, x, 0, 0), APENET_REG_ID_CAPS)), x == 1);

	write_file(path, "dims: 3x1x1\nnodes:\n  - node: 1,0,0\n    remote_window: maybe\n");
	memset(&c, 0, sizeof(c));
	assert_int_equal(sim_conf_load(path, &c, &e), -1);
	sim_conf_free(&c);
	print_message("%s\n", e.msg);
	assert_non_null(strstr(e.msg, "t.yaml:4:"));
	assert_non_null(strstr(e.msg, "'remote_window': 'maybe' is not true or false"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remote_prbs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prbs_run_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prbs_lanes_follow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_window_policy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pma_trial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pma_trial_flapping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_partner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gone_and_power, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latency, setup, teardown),
		cmocka_unit_test_setup_teardown(test_latency_km3, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conf_remote_window, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
