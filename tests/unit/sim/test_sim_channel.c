/*
 * Tests of the emulator's lane channel model and of the measured-points
 * table (sim/channel.c, sim/ber_table.c).
 *
 * The calibration points are SPEC §5's published bounds, computed with the
 * variants' own default PMA settings and ranges from regs.h/profile.c; the
 * landscape tests search the PMA grid themselves (hill climbs, sweeps) and
 * assert what they find, not stored answers.
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
#include <unistd.h>

#include "apenet/regs.h"
#include "../../../sim/channel.h"

#define NSEEDS 8 /* lanes checked for every calibration point */

static const struct apenet_profile *siv(void)
{
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);

	assert_non_null(p);
	return p;
}

static const struct apenet_profile *sv(void)
{
	const struct apenet_profile *p = apenet_profile(APENET_V_V5);

	assert_non_null(p);
	return p;
}

static struct sim_channel chan(enum sim_cable_kind kind, double len, unsigned mbps,
			       const struct apenet_profile *p, uint32_t seed)
{
	struct sim_channel c = { .kind = kind, .length_m = len, .lane_mbps = mbps,
				 .range = &p->pma, .lane_seed = seed };

	return c;
}

static struct sim_pma pma_of(const struct apenet_pma_range *r)
{
	struct sim_pma p = { r->vod, r->pre, r->post1, r->post2, r->rxeq, r->dcgain };

	return p;
}

static struct sim_pma defaults(const struct apenet_profile *p)
{
	return pma_of(&p->pma_default);
}

static uint8_t *pma_field(struct sim_pma *p, unsigned i)
{
	uint8_t *f[6] = { &p->vod, &p->pre, &p->post1, &p->post2, &p->rxeq, &p->dcgain };

	return f[i];
}

/* ---- calibration (SPEC §5) ---- */

static void check_point(enum sim_cable_kind kind, double len, unsigned mbps,
			const struct apenet_profile *p, double bound)
{
	struct sim_pma d = defaults(p);

	for (uint32_t s = 0; s < NSEEDS; s++) {
		struct sim_channel c = chan(kind, len, mbps, p, s);
		double ber = sim_channel_ber(&c, &d);

		if (!(ber < bound && ber > bound / 100.0))
			fail_msg("%s %.0f m @ %u Mbps lane %u: BER %.3g, want in (%.3g, %.3g)",
				 kind == SIM_CABLE_COPPER ? "copper" : "optical", len, mbps, s, ber,
				 bound / 100.0, bound);
	}
}

static void test_calibration(void **state)
{
	(void)state;
	check_point(SIM_CABLE_COPPER, 5, 8500, siv(), 7.04e-11);
	check_point(SIM_CABLE_COPPER, 5, 7000, siv(), 9.80e-13);
	check_point(SIM_CABLE_COPPER, 2, 7000, siv(), 2.46e-14);
	check_point(SIM_CABLE_OPTICAL, 10, 11300, sv(), 2.36e-14);
	check_point(SIM_CABLE_COPPER, 1, 10000, sv(), 1.10e-13);
	/* The looser Y+ and Z+ bounds are the same cable: also satisfied. */
	check_point(SIM_CABLE_COPPER, 5, 8500, siv(), 8.12e-11 * 0.9999);
}

static void test_long_copper_defaults(void **state)
{
	struct sim_pma d = defaults(siv());
	struct sim_channel c5 = chan(SIM_CABLE_COPPER, 5, 8500, siv(), 0);
	double b5 = sim_channel_ber(&c5, &d);

	(void)state;
	for (double len = 7; len <= 10; len += 1) {
		struct sim_channel c = chan(SIM_CABLE_COPPER, len, 8500, siv(), 0);
		double ber = sim_channel_ber(&c, &d);

		if (!(ber >= 1e-9 && ber <= 1e-6))
			fail_msg("copper %.0f m default BER %.3g outside 1e-9..1e-6", len, ber);
		assert_true(ber > 100 * b5);
	}
}

static void test_monotonic_in_length(void **state)
{
	(void)state;
	/* Default settings, copper: longer is worse at each deployed rate. */
	static const unsigned rates[] = { 7000, 8500 };

	for (unsigned r = 0; r < 2; r++) {
		struct sim_pma d = defaults(siv());
		double prev = 0;

		for (double len = 1; len <= 10; len += 0.5) {
			struct sim_channel c = chan(SIM_CABLE_COPPER, len, rates[r], siv(), 3);
			double q = sim_channel_q(&c, &d, NULL);

			if (len > 1)
				assert_true(q < prev);
			prev = q;
		}
	}
	/* Loss itself, for any settings. */
	{
		struct sim_pma d = defaults(sv());
		struct sim_channel_terms t;
		double prev = -1;

		for (double len = 0; len <= 10; len += 1) {
			struct sim_channel c = chan(SIM_CABLE_COPPER, len, 10000, sv(), 0);

			sim_channel_q(&c, &d, &t);
			assert_true(t.loss_db > prev);
			prev = t.loss_db;
		}
	}
}

/* Loss grows like a*sqrt(f) + b*f: more than linear in sqrt(f), less than in f. */
static void test_loss_vs_frequency(void **state)
{
	struct sim_pma d = defaults(sv());
	struct sim_channel_terms t1, t2, h1, h2;
	struct sim_channel c;
	double cable1, cable2;

	(void)state;
	c = chan(SIM_CABLE_COPPER, 5, 5000, sv(), 0);
	sim_channel_q(&c, &d, &t1);
	c.length_m = 0;
	sim_channel_q(&c, &d, &h1);
	c = chan(SIM_CABLE_COPPER, 5, 10000, sv(), 0);
	sim_channel_q(&c, &d, &t2);
	c.length_m = 0;
	sim_channel_q(&c, &d, &h2);
	cable1 = t1.loss_db - h1.loss_db;
	cable2 = t2.loss_db - h2.loss_db;
	assert_true(cable2 > cable1 * sqrt(2.0) * 1.01);
	assert_true(cable2 < cable1 * 2.0 * 0.99);
}

static void test_optical(void **state)
{
	struct sim_pma d = defaults(sv());
	struct sim_channel o1 = chan(SIM_CABLE_OPTICAL, 1, 11300, sv(), 0);
	struct sim_channel o100 = chan(SIM_CABLE_OPTICAL, 100, 11300, sv(), 0);
	struct sim_channel cu10 = chan(SIM_CABLE_COPPER, 10, 11300, sv(), 0);
	double b1 = sim_channel_ber(&o1, &d), b100 = sim_channel_ber(&o100, &d);
	struct sim_channel_terms t;

	(void)state;
	/* Nearly flat with length ... */
	assert_true(b100 >= b1);
	assert_true(b100 < 10 * b1);
	/* ... far better than 10 m of copper at that rate ... */
	assert_true(sim_channel_ber(&cu10, &d) > 1000 * b1);
	/* ... but with a floor no setting gets past. */
	for (unsigned rx = 0; rx <= sv()->pma.rxeq; rx++) {
		struct sim_pma p = d;

		p.rxeq = (uint8_t)rx;
		sim_channel_q(&o1, &p, &t);
		assert_true(t.q_opt > 0);
		assert_true(t.q < t.q_opt);
		assert_true(t.q < t.q_el);
	}
}

/* ---- the PMA landscape ---- */

static double q_at(const struct sim_channel *c, const struct sim_pma *p)
{
	return sim_channel_q(c, p, NULL);
}

/* Calls fn for each grid neighbour of p (all 3^6 - 1 offsets of -1/0/+1
 * inside the range); stops early when fn returns non-zero. */
static int for_neighbours(const struct apenet_pma_range *r, const struct sim_pma *p,
			  int (*fn)(const struct sim_pma *, void *), void *arg)
{
	struct sim_pma maxp = pma_of(r);

	for (unsigned code = 0; code < 729; code++) {
		struct sim_pma n = *p;
		unsigned c = code;
		int inside = 1;

		if (code == 364) /* all zero offsets: p itself */
			continue;
		for (unsigned i = 0; i < 6; i++, c /= 3) {
			int v = *pma_field(&n, i) + (int)(c % 3) - 1;

			if (v < 0 || v > *pma_field(&maxp, i)) {
				inside = 0;
				break;
			}
			*pma_field(&n, i) = (uint8_t)v;
		}
		if (inside && fn(&n, arg))
			return 1;
	}
	return 0;
}

struct climb {
	const struct sim_channel *c;
	struct sim_pma best;
	double best_q;
	double ref_ber;   /* for the strict check */
	int better_found;
	unsigned count;
};

static int climb_visit(const struct sim_pma *n, void *arg)
{
	struct climb *cl = arg;
	double q = q_at(cl->c, n);

	if (q > cl->best_q) {
		cl->best_q = q;
		cl->best = *n;
	}
	return 0;
}

/* Steepest ascent over the full neighbourhood. */
static struct sim_pma hill_climb(const struct sim_channel *c, struct sim_pma start)
{
	struct climb cl = { .c = c, .best = start, .best_q = q_at(c, &start) };

	for (unsigned steps = 0; steps < 1000; steps++) {
		struct sim_pma from = cl.best;

		for_neighbours(c->range, &from, climb_visit, &cl);
		if (memcmp(&from, &cl.best, sizeof(from)) == 0)
			return from;
	}
	fail_msg("hill climb did not converge");
	return start;
}

static int strict_visit(const struct sim_pma *n, void *arg)
{
	struct climb *cl = arg;

	cl->count++;
	if (sim_channel_ber(cl->c, n) <= cl->ref_ber) {
		cl->better_found = 1;
		return 1;
	}
	return 0;
}

/* p is strictly better (lower BER) than every grid neighbour. */
static int is_local_optimum(const struct sim_channel *c, const struct sim_pma *p)
{
	struct climb cl = { .c = c, .ref_ber = sim_channel_ber(c, p) };

	assert_true(cl.ref_ber > SIM_BER_MIN); /* not on the clamp plateau */
	for_neighbours(c->range, p, strict_visit, &cl);
	return !cl.better_found && cl.count > 0;
}

static void two_optima(double len)
{
	const struct apenet_profile *p = siv();
	struct sim_channel c = chan(SIM_CABLE_COPPER, len, 8500, p, 1);
	/* TX-heavy start: all post1, no CTLE; RX-heavy start: the opposite. */
	struct sim_pma tx = { 4, 0, p->pma.post1, 0, 0, 2 };
	struct sim_pma rx = { 4, 0, 0, 0, p->pma.rxeq, 2 };
	struct sim_pma a = hill_climb(&c, tx), b = hill_climb(&c, rx);

	assert_true(is_local_optimum(&c, &a));
	assert_true(is_local_optimum(&c, &b));
	assert_memory_not_equal(&a, &b, sizeof(a));
	/* Two regimes, not two neighbours of one: */
	assert_true(a.post1 >= p->pma.post1 / 2 && a.rxeq <= 1);
	assert_true(b.post1 <= 1 && b.rxeq >= 4);
}

static void test_two_local_optima(void **state)
{
	(void)state;
	two_optima(5);
	two_optima(10);
}

/* Exhaustive sweep of the Stratix IV grid. */
static double sweep_best(const struct sim_channel *c, struct sim_pma *best)
{
	const struct apenet_pma_range *r = c->range;
	double best_ber = 1;
	struct sim_pma p;

	for (unsigned v = 0; v <= r->vod; v++)
		for (unsigned pr = 0; pr <= r->pre; pr++)
			for (unsigned p1 = 0; p1 <= r->post1; p1++)
				for (unsigned p2 = 0; p2 <= r->post2; p2++)
					for (unsigned e = 0; e <= r->rxeq; e++)
						for (unsigned g = 0; g <= r->dcgain; g++) {
							double ber;

							p = (struct sim_pma){ (uint8_t)v, (uint8_t)pr,
									      (uint8_t)p1, (uint8_t)p2,
									      (uint8_t)e, (uint8_t)g };
							ber = sim_channel_ber(c, &p);
							if (ber < best_ber) {
								best_ber = ber;
								*best = p;
							}
						}
	return best_ber;
}

static void test_tuning_rescues_10m(void **state)
{
	struct sim_channel c = chan(SIM_CABLE_COPPER, 10, 8500, siv(), 2);
	struct sim_pma d = defaults(siv()), best, climbed;
	double b_def = sim_channel_ber(&c, &d), b_best = sweep_best(&c, &best);

	(void)state;
	assert_true(b_best <= b_def / 100.0);
	/* A greedy search from the defaults gets there too. */
	climbed = hill_climb(&c, d);
	assert_true(sim_channel_ber(&c, &climbed) <= b_def / 100.0);
	/* And the tuned settings equalize much harder than the defaults. */
	assert_true(best.rxeq + best.post1 > d.rxeq + d.post1 + 4);
}

/* The best value of one setting with the others fixed. */
static unsigned best_along(const struct sim_channel *c, struct sim_pma p, unsigned field)
{
	struct sim_pma maxp = pma_of(c->range);
	unsigned best = 0;
	double bq = -1;

	for (unsigned v = 0; v <= *pma_field(&maxp, field); v++) {
		double q;

		*pma_field(&p, field) = (uint8_t)v;
		q = q_at(c, &p);
		if (q > bq) {
			bq = q;
			best = v;
		}
	}
	return best;
}

static void test_interactions(void **state)
{
	const struct apenet_profile *p = siv();
	struct sim_pma d = defaults(p);
	struct sim_channel c2 = chan(SIM_CABLE_COPPER, 2, 8500, p, 0);
	struct sim_channel c10 = chan(SIM_CABLE_COPPER, 10, 8500, p, 0);
	struct sim_channel_terms lo, hi;

	(void)state;
	/* The equalization optimum moves with the loss. */
	assert_true(best_along(&c10, d, 4) > best_along(&c2, d, 4) + 3);
	/* Over-equalizing a short cable hurts, and boosts the noise. */
	{
		struct sim_pma over = d;

		over.rxeq = p->pma.rxeq;
		assert_true(sim_channel_ber(&c2, &over) > 100 * sim_channel_ber(&c2, &d));
		sim_channel_q(&c2, &d, &lo);
		sim_channel_q(&c2, &over, &hi);
		assert_true(hi.n_thermal_mv > lo.n_thermal_mv);
		assert_true(hi.resid_db < 0);
	}
	/* VOD raises the signal, and crosstalk faster than the signal. */
	{
		struct sim_pma a = d, b = d;

		a.vod = 1;
		b.vod = p->pma.vod;
		sim_channel_q(&c2, &a, &lo);
		sim_channel_q(&c2, &b, &hi);
		assert_true(hi.s0_mv > lo.s0_mv);
		assert_true(hi.n_xtalk_mv / hi.s0_mv > lo.n_xtalk_mv / lo.s0_mv);
	}
	/* DC gain interacts with rxeq: more CTLE wants more DC gain. */
	{
		struct sim_pma a = d, b = d;

		a.rxeq = 0;
		b.rxeq = 12;
		assert_true(best_along(&c10, b, 5) > best_along(&c10, a, 5));
	}
	/* High DC gain overdrives a short, strong link. */
	{
		struct sim_pma a = d;

		a.vod = p->pma.vod;
		a.dcgain = p->pma.dcgain;
		a.rxeq = 0;
		sim_channel_q(&c2, &a, &hi);
		assert_true(hi.isi_sat > 0);
	}
	/* Crosstalk is worst when TX and RX equalization are mixed. */
	{
		struct sim_pma tx = d, rx = d, mix = d;
		struct sim_channel_terms tt, tr, tm;

		tx.post1 = 12, tx.rxeq = 0;
		rx.post1 = 0, rx.rxeq = 8;
		mix.post1 = 7, mix.rxeq = 4;
		sim_channel_q(&c10, &tx, &tt);
		sim_channel_q(&c10, &rx, &tr);
		sim_channel_q(&c10, &mix, &tm);
		assert_true(tm.n_xtalk_mv > tt.n_xtalk_mv && tm.n_xtalk_mv > tr.n_xtalk_mv);
	}
}

static void test_lanes_and_clamps(void **state)
{
	const struct apenet_profile *p = siv();
	struct sim_pma d = defaults(p);
	struct sim_channel c = chan(SIM_CABLE_COPPER, 5, 8500, p, 0);
	double b0 = sim_channel_ber(&c, &d), b1;
	int differ = 0;

	(void)state;
	/* Deterministic per lane, close across lanes. */
	for (uint32_t s = 1; s < 16; s++) {
		c.lane_seed = s;
		b1 = sim_channel_ber(&c, &d);
		assert_true(b1 > b0 / 10 && b1 < b0 * 10);
		differ |= b1 != b0;
		assert_true(b1 == sim_channel_ber(&c, &d));
	}
	assert_true(differ);
	c.lane_seed = 0;

	/* Injected impairment adds. */
	c.extra_ber = 1e-6;
	assert_true(fabs(sim_channel_ber(&c, &d) - (b0 + 1e-6)) < 1e-12);
	c.extra_ber = 2.0;
	assert_true(sim_channel_ber(&c, &d) == SIM_BER_MAX);
	c.extra_ber = 0;

	/* Clamps: a short, tuned link hits the floor; no clock gives 0.5. */
	{
		struct sim_channel s = chan(SIM_CABLE_COPPER, 0.5, 1250, p, 0);
		struct sim_pma best;

		assert_true(sweep_best(&s, &best) == SIM_BER_MIN);
		s.lane_mbps = 0;
		assert_true(sim_channel_ber(&s, &d) == SIM_BER_MAX);
	}

	/* Settings beyond the range act as the maximum. */
	{
		struct sim_pma big = d, mx = d;

		big.rxeq = 200;
		mx.rxeq = p->pma.rxeq;
		assert_true(sim_channel_ber(&c, &big) == sim_channel_ber(&c, &mx));
	}

	/* The transceiver's top rate defaults from the range's variants. */
	{
		struct sim_channel e = c;

		e.xcvr_max_mbps = 8500;
		assert_true(sim_channel_ber(&e, &d) == b0);
		e.xcvr_max_mbps = 14100; /* a faster transceiver: less jitter */
		assert_true(sim_channel_ber(&e, &d) < b0);
	}
}

static void test_q_ber(void **state)
{
	(void)state;
	assert_true(fabs(sim_q_to_ber(7.034) - 1.0e-12) < 0.01e-12);
	assert_true(fabs(sim_q_to_ber(0) - 0.5) < 1e-15);
	for (double b = 1e-17; b < 0.4; b *= 7) {
		double q = sim_ber_to_q(b);

		assert_true(fabs(sim_q_to_ber(q) / b - 1) < 1e-6);
	}
}

/* ---- measured points ---- */

static char tmpdir[64];

static int setup_dir(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/apenet-chan-XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

/* Files written by write_csv(), removed at teardown. */
static char made[64][128];
static unsigned nmade;

static int teardown_dir(void **state)
{
	(void)state;
	for (unsigned i = 0; i < nmade; i++)
		unlink(made[i]);
	return rmdir(tmpdir);
}

static const char *write_csv(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	if (nmade < 64)
		strcpy(made[nmade++], path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void test_table_happy(void **state)
{
	const char *path = write_csv("ok.csv",
				     "# measured on node 3, X+ lane 2\n"
				     "\n"
				     "ber, dcgain ,rxeq,post2,post1,pre,vod,operator\r\n"
				     "1e-12,0,6,0,8,0,40,alice\r\n"
				     "2.5e-15,1,6,0,8,0,30,alice\n"
				     "   # indented comment\n"
				     "0,3,15,0,0,0,63,bob\n"
				     "5e-10, 1 , 0 , 0 , 0 , 0 , 0 ,bob\n");
	struct sim_ber_table *t;
	char err[256] = "";
	int exact = -1;
	struct sim_pma q;

	(void)state;
	assert_int_equal(sim_ber_table_load(path, &t, err, sizeof(err)), 0);
	assert_int_equal(sim_ber_table_count(t), 4);
	assert_int_equal(sim_ber_table_check(t, &sv()->pma, err, sizeof(err)), 0);

	/* Exact. */
	q = (struct sim_pma){ 40, 0, 8, 0, 6, 0 };
	assert_true(sim_ber_table_lookup(t, &q, &sv()->pma, &exact) == 1e-12);
	assert_int_equal(exact, 1);
	q = (struct sim_pma){ 63, 0, 0, 0, 15, 3 };
	assert_true(sim_ber_table_lookup(t, &q, NULL, &exact) == 0.0);
	assert_int_equal(exact, 1);

	/* Nearest, normalised: (40, dcgain 1) is 1 step of 3 in dcgain from
	 * the first point but 10 steps of 63 in VOD from the second. */
	q = (struct sim_pma){ 40, 0, 8, 0, 6, 1 };
	assert_true(sim_ber_table_lookup(t, &q, &sv()->pma, &exact) == 2.5e-15);
	assert_int_equal(exact, 0);
	/* Without a range the table's column maxima (63, 3) normalise. */
	assert_true(sim_ber_table_lookup(t, &q, NULL, &exact) == 2.5e-15);

	/* The channel replays it, plus injected errors, clamped. */
	{
		struct sim_channel c = chan(SIM_CABLE_COPPER, 5, 10000, sv(), 0);
		struct sim_pma zero = { 63, 0, 0, 0, 15, 3 };

		c.measured = t;
		q = (struct sim_pma){ 40, 0, 8, 0, 6, 0 };
		assert_true(sim_channel_ber(&c, &q) == 1e-12);
		assert_true(sim_channel_ber(&c, &zero) == SIM_BER_MIN);
		c.extra_ber = 1e-9;
		assert_true(fabs(sim_channel_ber(&c, &q) - (1e-12 + 1e-9)) < 1e-18);
	}

	/* Ranges are checked on demand: VOD 40 does not exist on Stratix IV. */
	assert_int_equal(sim_ber_table_check(t, &siv()->pma, err, sizeof(err)), -1);
	{
		char want[160];

		snprintf(want, sizeof(want), "%s:4:", path);
		assert_non_null(strstr(err, want));
		assert_non_null(strstr(err, "field 'vod': 40 is not an integer in 0..7"));
	}
	sim_ber_table_free(t);
}

static void test_table_ties(void **state)
{
	const char *path = write_csv("tie.csv",
				     "vod,pre,post1,post2,rxeq,dcgain,ber\n"
				     "2,0,0,0,0,0,1e-9\n"
				     "4,0,0,0,0,0,1e-10\n");
	struct sim_ber_table *t;
	char err[256];
	struct sim_pma q = { 3, 0, 0, 0, 0, 0 };
	int exact;

	(void)state;
	assert_int_equal(sim_ber_table_load(path, &t, err, sizeof(err)), 0);
	assert_true(sim_ber_table_lookup(t, &q, &siv()->pma, &exact) == 1e-9);
	assert_int_equal(exact, 0);
	q.vod = 7;
	assert_true(sim_ber_table_lookup(t, &q, &siv()->pma, &exact) == 1e-10);
	sim_ber_table_free(t);
}

/* Load must fail with a message starting with "PATH:LINE" (line > 0) or
 * "PATH:" (line 0) and containing what. */
static void expect_error(const char *name, const char *text, unsigned line, const char *what)
{
	const char *path = write_csv(name, text);
	struct sim_ber_table *t = (struct sim_ber_table *)1;
	char err[256] = "", want[200];

	assert_int_equal(sim_ber_table_load(path, &t, err, sizeof(err)), -1);
	assert_null(t);
	if (line)
		snprintf(want, sizeof(want), "%s:%u:", path, line);
	else
		snprintf(want, sizeof(want), "%s: ", path);
	if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, what))
		fail_msg("%s: got \"%s\", want \"%s...%s\"", name, err, want, what);
}

#define HDR "vod,pre,post1,post2,rxeq,dcgain,ber\n"

static void test_table_errors(void **state)
{
	(void)state;
	expect_error("missing.csv", "vod,pre,post1,post2,rxeq,ber\n1,0,0,0,0,1e-9\n", 1,
		     "missing column 'dcgain'");
	expect_error("badhdr.csv", "# x\nfoo,bar\n", 2, "missing column 'vod'");
	expect_error("twice.csv", "vod,pre,post1,post2,rxeq,dcgain,ber,rxeq\n", 1,
		     "column 'rxeq' appears twice");
	expect_error("empty.csv", "", 0, "no header line");
	expect_error("comments.csv", "# only\n\n# comments\n", 0, "no header line");
	expect_error("nodata.csv", HDR "# nothing\n", 0, "no data points");
	expect_error("letters.csv", HDR "1,0,0,0,0,0,1e-9\n1,0,x3,0,0,0,1e-9\n", 3,
		     "field 'post1': 'x3' is not an integer");
	expect_error("neg.csv", HDR "1,0,0,0,-1,0,1e-9\n", 2, "field 'rxeq': '-1'");
	expect_error("big.csv", HDR "1,0,0,0,0,256,1e-9\n", 2, "field 'dcgain': '256'");
	expect_error("frac.csv", HDR "1.5,0,0,0,0,0,1e-9\n", 2, "field 'vod': '1.5'");
	expect_error("blank.csv", HDR "1,,0,0,0,0,1e-9\n", 2, "field 'pre': ''");
	expect_error("bernum.csv", HDR "1,0,0,0,0,0,abc\n", 2, "field 'ber': 'abc' is not a number");
	expect_error("bernan.csv", HDR "1,0,0,0,0,0,nan\n", 2, "field 'ber': 'nan' is not a number");
	expect_error("berhigh.csv", HDR "1,0,0,0,0,0,0.7\n", 2, "field 'ber': 0.7 is out of range");
	expect_error("berneg.csv", HDR "1,0,0,0,0,0,-1e-3\n", 2, "field 'ber': -1e-3 is out of range");
	expect_error("fields.csv", HDR "1,0,0,0,0,1e-9\n", 2, "expected 7 fields");
	expect_error("dup.csv",
		     HDR "1,0,0,0,0,0,1e-9\n2,0,0,0,0,0,1e-9\n# again\n1,0,0,0,0,0,3e-9\n"
			 "2,0,0,0,0,0,4e-9\n",
		     5, "duplicate point vod=1 pre=0 post1=0 post2=0 rxeq=0 dcgain=0 (first at line 2)");
	/* The column is the field's: "1,0,0,0,x" -> column 9. */
	expect_error("col.csv", HDR "1,0,0,0,x,0,1e-9\n", 2, "");
	{
		const char *path = write_csv("col2.csv", HDR "1,0,0,0,x,0,1e-9\n");
		struct sim_ber_table *t;
		char err[256], want[200];

		assert_int_equal(sim_ber_table_load(path, &t, err, sizeof(err)), -1);
		snprintf(want, sizeof(want), "%s:2:9: field 'rxeq'", path);
		assert_non_null(strstr(err, want));
	}
	/* A file that is not there. */
	{
		struct sim_ber_table *t;
		char err[256];

		assert_int_equal(sim_ber_table_load("/nonexistent/ber.csv", &t, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "/nonexistent/ber.csv: "));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_long_copper_defaults),
		cmocka_unit_test(test_monotonic_in_length),
		cmocka_unit_test(test_loss_vs_frequency),
		cmocka_unit_test(test_optical),
		cmocka_unit_test(test_two_local_optima),
		cmocka_unit_test(test_tuning_rescues_10m),
		cmocka_unit_test(test_interactions),
		cmocka_unit_test(test_lanes_and_clamps),
		cmocka_unit_test(test_q_ber),
		cmocka_unit_test(test_table_happy),
		cmocka_unit_test(test_table_ties),
		cmocka_unit_test(test_table_errors),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
