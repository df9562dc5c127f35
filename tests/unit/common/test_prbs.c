/*
 * Tests of the PRBS codec (common/prbs.c).
 *
 * The reference here is a plain bit-serial LFSR written from the recurrence
 * b[k] = b[k-n] ^ b[k-m] one bit at a time, independent of the word-parallel
 * generator; periods and balance are checked on the generated bits.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apenet/prbs.h"

static const enum apenet_prbs all_pats[4] = { APENET_PRBS7, APENET_PRBS15, APENET_PRBS23,
					      APENET_PRBS31 };
static const unsigned ref_n[4] = { 7, 15, 23, 31 };
static const unsigned ref_m[4] = { 6, 14, 18, 28 };

/* ---- bit-serial reference ---- */

struct ref_lfsr {
	unsigned n, m;
	uint8_t hist[64]; /* the last n bits in time order: hist[n-1] is the newest */
};

static void ref_init(struct ref_lfsr *r, unsigned idx, uint32_t seed)
{
	uint32_t mask = (uint32_t)((1ull << ref_n[idx]) - 1);

	r->n = ref_n[idx];
	r->m = ref_m[idx];
	seed &= mask;
	if (seed == 0)
		seed = mask;
	/* Seed bit 0 is the most recently sent bit. */
	for (unsigned i = 0; i < r->n; i++)
		r->hist[r->n - 1 - i] = (uint8_t)((seed >> i) & 1u);
}

static unsigned ref_bit(struct ref_lfsr *r)
{
	/* b[k] = b[k-n] ^ b[k-m]: b[k-n] is hist[0], b[k-m] is hist[n-m]. */
	unsigned b = r->hist[0] ^ r->hist[r->n - r->m];

	memmove(r->hist, r->hist + 1, r->n - 1);
	r->hist[r->n - 1] = (uint8_t)b;
	return b;
}

static uint32_t ref_word(struct ref_lfsr *r)
{
	uint32_t w = 0;

	for (unsigned i = 0; i < 32; i++)
		w = (w << 1) | ref_bit(r); /* first bit ends in bit 31 */
	return w;
}

/* Unpack words MSB first into one byte per bit. */
static uint8_t *gen_bits(enum apenet_prbs pat, uint32_t seed, size_t nwords)
{
	struct apenet_prbs_gen g;
	uint8_t *bits = malloc(nwords * 32);

	assert_non_null(bits);
	apenet_prbs_gen_init(&g, pat, seed);
	for (size_t w = 0; w < nwords; w++) {
		uint32_t v = apenet_prbs_gen_next(&g);

		for (unsigned i = 0; i < 32; i++)
			bits[w * 32 + i] = (uint8_t)((v >> (31 - i)) & 1u);
	}
	return bits;
}

/* Pack 32 bits starting at bits[off], first bit into bit 31. */
static uint32_t pack_word(const uint8_t *bits, size_t off)
{
	uint32_t w = 0;

	for (unsigned i = 0; i < 32; i++)
		w = (w << 1) | bits[off + i];
	return w;
}

static uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

/* ---- generator ---- */

static void test_matches_bit_serial(void **state)
{
	static const uint32_t seeds[] = { 0, 1, 0x5a5a5a5au, 0x7fffffffu, 0x12345678u };

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		for (unsigned s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
			struct apenet_prbs_gen g;
			struct ref_lfsr r;

			apenet_prbs_gen_init(&g, all_pats[p], seeds[s]);
			ref_init(&r, p, seeds[s]);
			for (unsigned w = 0; w < 2000; w++)
				assert_int_equal(apenet_prbs_gen_next(&g), ref_word(&r));
		}
	}
}

static void test_prbs31_first_words(void **state)
{
	struct apenet_prbs_gen g;
	struct ref_lfsr r;
	uint32_t first;

	(void)state;
	apenet_prbs_gen_init(&g, APENET_PRBS31, 0);
	ref_init(&r, 3, 0);
	/* From all ones, b[k] = b[k-31]^b[k-28] is 0 for k < 28, then
	 * b[28..30] = 1^0, and b[31] = b[0]^b[3] = 0: worked by hand. */
	first = apenet_prbs_gen_next(&g);
	assert_int_equal(first, 0x0000000eu);
	assert_int_equal(first, ref_word(&r));
	for (unsigned w = 0; w < 64; w++)
		assert_int_equal(apenet_prbs_gen_next(&g), ref_word(&r));
	/* The state is the low 31 bits of the last word. */
	{
		struct apenet_prbs_gen h;
		uint32_t last;

		apenet_prbs_gen_init(&h, APENET_PRBS31, 0);
		for (unsigned w = 0; w < 10; w++)
			last = apenet_prbs_gen_next(&h);
		assert_int_equal(h.state, last & 0x7fffffffu);
	}
}

static void test_seed_zero_is_all_ones(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		struct apenet_prbs_gen a, b;

		apenet_prbs_gen_init(&a, all_pats[p], 0);
		apenet_prbs_gen_init(&b, all_pats[p], APENET_ALL_ONES);
		assert_int_equal(a.state, apenet_prbs_period_bits(all_pats[p]));
		for (unsigned w = 0; w < 100; w++)
			assert_int_equal(apenet_prbs_gen_next(&a), apenet_prbs_gen_next(&b));
	}
}

/* The sequence repeats exactly after 2^n - 1 bits and at no shorter shift. */
static void check_period(unsigned idx)
{
	enum apenet_prbs pat = all_pats[idx];
	size_t period = (1u << ref_n[idx]) - 1;
	size_t nwords = (2 * period + 64) / 32 + 1;
	uint8_t *b = gen_bits(pat, 0x1u, nwords);
	size_t ones = 0;

	assert_int_equal(apenet_prbs_period_bits(pat), period);
	for (size_t i = 0; i < period + 32; i++)
		assert_int_equal(b[i], b[i + period]);
	for (size_t p = 1; p < period; p++) {
		size_t i = 0;

		while (i < period && b[i] == b[i + p])
			i++;
		assert_true(i < period); /* some bit differs: p is not a period */
	}
	/* A maximal-length sequence has 2^(n-1) ones and 2^(n-1)-1 zeros. */
	for (size_t i = 0; i < period; i++)
		ones += b[i];
	assert_int_equal(ones, (period + 1) / 2);
	free(b);
}

static void test_period_prbs7(void **state)
{
	(void)state;
	check_period(0);
}

static void test_period_prbs15(void **state)
{
	(void)state;
	check_period(1);
}

/* Words: the state comes back first after exactly 2^n - 1 words (32 and
 * 2^n - 1 are coprime), for PRBS7, 15 and 23. */
static void test_state_cycle(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 3; p++) {
		struct apenet_prbs_gen g;
		uint32_t s0;
		size_t period = apenet_prbs_period_bits(all_pats[p]);

		apenet_prbs_gen_init(&g, all_pats[p], 0x2au);
		s0 = g.state;
		for (size_t w = 1; w < period; w++) {
			apenet_prbs_gen_next(&g);
			if (g.state == s0)
				fail_msg("%s: state repeats after %zu words", apenet_prbs_name(all_pats[p]), w);
		}
		apenet_prbs_gen_next(&g);
		assert_int_equal(g.state, s0);
	}
}

static void test_names(void **state)
{
	enum apenet_prbs p;

	(void)state;
	assert_string_equal(apenet_prbs_name(APENET_PRBS23), "PRBS23");
	assert_int_equal(apenet_prbs_order(APENET_PRBS15), 15);
	assert_int_equal(apenet_prbs_period_bits(APENET_PRBS31), 2147483647u);
	assert_int_equal(apenet_prbs_parse("prbs31", &p), 0);
	assert_int_equal(p, APENET_PRBS31);
	assert_int_equal(apenet_prbs_parse("PRBS7", &p), 0);
	assert_int_equal(p, APENET_PRBS7);
	assert_int_equal(apenet_prbs_parse("15", &p), 0);
	assert_int_equal(p, APENET_PRBS15);
	assert_int_equal(apenet_prbs_parse("prbs9", &p), -1);
	assert_int_equal(apenet_prbs_parse("", &p), -1);
	assert_int_equal(apenet_prbs_parse("prbs", &p), -1);
	assert_int_equal(apenet_prbs_parse(NULL, &p), -1);
}

/* ---- checker ---- */

/* Feed words until locked; returns how many it took. */
static unsigned lock_on(struct apenet_prbs_chk *c, struct apenet_prbs_gen *g)
{
	unsigned n = 0;

	while (!c->locked && n < 100) {
		assert_int_equal(apenet_prbs_chk_feed(c, apenet_prbs_gen_next(g)), 0);
		n++;
	}
	assert_true(c->locked);
	return n;
}

static void test_lock_any_offset(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		/* bit offsets, not just word offsets: 0..99 and a few far ones */
		size_t maxoff = 5000;
		size_t nwords = (maxoff + 1100 * 32) / 32 + 2;
		uint8_t *b = gen_bits(all_pats[p], 0x3u, nwords);

		for (size_t off = 0; off <= maxoff; off += (off < 100 ? 1 : 977)) {
			struct apenet_prbs_chk c;
			size_t pos = off;

			apenet_prbs_chk_init(&c, all_pats[p]);
			for (unsigned w = 0; w < APENET_PRBS_LOCK_WORDS; w++, pos += 32) {
				assert_int_equal(apenet_prbs_chk_feed(&c, pack_word(b, pos)), 0);
				assert_false(c.locked);
			}
			apenet_prbs_chk_feed(&c, pack_word(b, pos));
			pos += 32;
			assert_true(c.locked);
			assert_int_equal(c.bits, 0); /* acquisition words are not counted */
			for (unsigned w = 0; w < 1000; w++, pos += 32)
				assert_int_equal(apenet_prbs_chk_feed(&c, pack_word(b, pos)), 0);
			assert_int_equal(c.bits, 32000);
			assert_int_equal(c.errs, 0);
			assert_int_equal(c.lock_losses, 0);
		}
		free(b);
	}
}

static void test_counts_each_error_once(void **state)
{
	/* word index (after lock), bit: several in one word, adjacent words,
	 * first and last bits of a word. */
	static const struct { unsigned word, bit; } flips[] = {
		{ 3, 0 }, { 3, 31 }, { 4, 5 }, { 5, 6 }, { 6, 7 }, { 40, 17 }, { 41, 17 },
		{ 100, 1 }, { 100, 2 }, { 100, 3 }, { 100, 30 }, { 777, 9 }, { 1999, 31 },
	};
	const unsigned nflips = sizeof(flips) / sizeof(flips[0]);

	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		struct apenet_prbs_gen g;
		struct apenet_prbs_chk c;
		unsigned f = 0;
		uint64_t seen = 0;

		apenet_prbs_gen_init(&g, all_pats[p], 0x1234567u);
		apenet_prbs_chk_init(&c, all_pats[p]);
		lock_on(&c, &g);
		for (unsigned w = 0; w < 2000; w++) {
			uint32_t inj = 0, got;

			while (f < nflips && flips[f].word == w)
				inj |= 1u << flips[f++].bit;
			got = apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g) ^ inj);
			assert_int_equal(got, inj);
			for (uint32_t v = got; v; v &= v - 1)
				seen++;
		}
		assert_int_equal(c.errs, nflips);
		assert_int_equal(seen, nflips);
		assert_int_equal(c.bits, 2000 * 32);
		assert_true(c.locked);
		assert_int_equal(c.lock_losses, 0);
	}
}

static void test_loss_threshold(void **state)
{
	struct apenet_prbs_gen g;
	struct apenet_prbs_chk c;
	uint32_t w16 = 0x0000ffffu, w17 = 0x0001ffffu;
	unsigned n;

	(void)state;
	apenet_prbs_gen_init(&g, APENET_PRBS15, 0);
	apenet_prbs_chk_init(&c, APENET_PRBS15);
	lock_on(&c, &g);
	/* Exactly the threshold: counted, still locked. */
	assert_int_equal(apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g) ^ w16), w16);
	assert_true(c.locked);
	assert_int_equal(c.errs, APENET_PRBS_LOSS_ERRS);
	/* One more: counted, and lock is lost. */
	assert_int_equal(apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g) ^ w17), w17);
	assert_false(c.locked);
	assert_int_equal(c.lock_losses, 1);
	assert_int_equal(c.errs, 2 * APENET_PRBS_LOSS_ERRS + 1);
	assert_int_equal(c.bits, 64);
	/* The bad word seeded a wrong state: one miss, then LOCK_WORDS hits. */
	n = lock_on(&c, &g);
	assert_int_equal(n, APENET_PRBS_LOCK_WORDS + 1);
	assert_int_equal(c.bits, 64);
}

static void test_error_during_acquisition(void **state)
{
	struct apenet_prbs_gen g;
	struct apenet_prbs_chk c;

	(void)state;
	apenet_prbs_gen_init(&g, APENET_PRBS31, 77);
	apenet_prbs_chk_init(&c, APENET_PRBS31);
	apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g));
	apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g));
	apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g) ^ 0x100u); /* breaks the run */
	assert_false(c.locked);
	assert_int_equal(c.good, 0);
	/* Next word is predicted from the corrupted one and misses too. */
	assert_int_equal(lock_on(&c, &g), APENET_PRBS_LOCK_WORDS + 1);
	assert_int_equal(c.errs, 0);
}

static void test_garbage_loses_lock(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		struct apenet_prbs_gen g;
		struct apenet_prbs_chk c;
		uint32_t rng = 0x9e3779b9u + p;
		unsigned w;

		apenet_prbs_gen_init(&g, all_pats[p], 5);
		apenet_prbs_chk_init(&c, all_pats[p]);
		lock_on(&c, &g);
		for (w = 0; w < 64 && c.locked; w++)
			apenet_prbs_chk_feed(&c, xorshift32(&rng));
		assert_false(c.locked);
		assert_int_equal(c.lock_losses, 1);
		for (w = 0; w < 100000; w++) {
			apenet_prbs_chk_feed(&c, xorshift32(&rng));
			assert_false(c.locked);
		}
		/* And the clean pattern brings it back. */
		lock_on(&c, &g);
	}
}

static void test_no_false_lock(void **state)
{
	(void)state;
	for (unsigned p = 0; p < 4; p++) {
		struct apenet_prbs_chk zero, ones, inv, other;
		struct apenet_prbs_gen g, h;

		apenet_prbs_chk_init(&zero, all_pats[p]);
		apenet_prbs_chk_init(&ones, all_pats[p]);
		apenet_prbs_chk_init(&inv, all_pats[p]);
		apenet_prbs_chk_init(&other, all_pats[p]);
		apenet_prbs_gen_init(&g, all_pats[p], 9);
		apenet_prbs_gen_init(&h, all_pats[(p + 1) % 4], 9);
		for (unsigned w = 0; w < 1000; w++) {
			apenet_prbs_chk_feed(&zero, 0);          /* dead lane */
			apenet_prbs_chk_feed(&ones, APENET_ALL_ONES);
			apenet_prbs_chk_feed(&inv, ~apenet_prbs_gen_next(&g)); /* polarity swapped */
			apenet_prbs_chk_feed(&other, apenet_prbs_gen_next(&h)); /* wrong pattern */
			assert_false(zero.locked);
			assert_false(ones.locked);
			assert_false(inv.locked);
			assert_false(other.locked);
		}
		assert_int_equal(zero.bits + ones.bits + inv.bits + other.bits, 0);
	}
}

/* A slipped bit (CDR slip) shows up as a burst, loses lock and re-syncs. */
static void test_bit_slip_resyncs(void **state)
{
	uint8_t *b = gen_bits(APENET_PRBS23, 11, 400);
	struct apenet_prbs_chk c;
	size_t pos = 0;
	unsigned w;

	(void)state;
	apenet_prbs_chk_init(&c, APENET_PRBS23);
	for (w = 0; w < 100; w++, pos += 32)
		apenet_prbs_chk_feed(&c, pack_word(b, pos));
	assert_true(c.locked);
	assert_int_equal(c.errs, 0);
	pos += 1; /* one bit lost */
	for (w = 0; w < 200; w++, pos += 32)
		apenet_prbs_chk_feed(&c, pack_word(b, pos));
	assert_true(c.locked);
	assert_true(c.lock_losses >= 1);
	assert_true(c.errs > APENET_PRBS_LOSS_ERRS);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_bit_serial),
		cmocka_unit_test(test_prbs31_first_words),
		cmocka_unit_test(test_seed_zero_is_all_ones),
		cmocka_unit_test(test_period_prbs7),
		cmocka_unit_test(test_period_prbs15),
		cmocka_unit_test(test_state_cycle),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_lock_any_offset),
		cmocka_unit_test(test_counts_each_error_once),
		cmocka_unit_test(test_loss_threshold),
		cmocka_unit_test(test_error_during_acquisition),
		cmocka_unit_test(test_garbage_loses_lock),
		cmocka_unit_test(test_no_false_lock),
		cmocka_unit_test(test_bit_slip_resyncs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
