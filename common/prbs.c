/*
 * PRBS generator and self-synchronising checker (see include/apenet/prbs.h
 * for the conventions).
 *
 * Speed: the recurrence b[k] = b[k-n] ^ b[k-m] (m < n) lets any m
 * consecutive new bits be computed at once from older ones, so a 32-bit
 * word takes ceil(32/m) shift-and-xor steps on a 64-bit history (2 for
 * PRBS23/31, 3 for PRBS15, 6 for PRBS7) instead of 32 bit-serial steps.
 * The step count depends only on the pattern, never on the data.
 */
#include <string.h>
#include <strings.h>

#include "apenet/prbs.h"

static const struct prbs_poly {
	uint8_t n, m; /* x^n + x^m + 1 */
	const char *name, *num;
} prbs_polys[4] = {
	[APENET_PRBS7] = { 7, 6, "PRBS7", "7" },
	[APENET_PRBS15] = { 15, 14, "PRBS15", "15" },
	[APENET_PRBS23] = { 23, 18, "PRBS23", "23" },
	[APENET_PRBS31] = { 31, 28, "PRBS31", "31" },
};

/* The register field is 2 bits wide: every value selects a pattern. */
static const struct prbs_poly *prbs_poly_of(enum apenet_prbs pat)
{
	return &prbs_polys[(unsigned)pat & 3u];
}

static uint32_t prbs_mask(unsigned n)
{
	return (uint32_t)((1ull << n) - 1);
}

void apenet_prbs_gen_init(struct apenet_prbs_gen *g, enum apenet_prbs pat, uint32_t seed)
{
	const struct prbs_poly *p = prbs_poly_of(pat);
	uint32_t s = seed & prbs_mask(p->n);

	g->pat = (enum apenet_prbs)((unsigned)pat & 3u);
	g->state = s ? s : prbs_mask(p->n);
}

/*
 * History h: bit i is the bit sent i+1 positions ago (bit 0 the most
 * recent).  The next c <= m bits b[k..k+c-1] need b[k+j-n] (bit n-1-j of h)
 * and b[k+j-m] (bit m-1-j); placed so that b[k] lands in bit c-1 they are
 * (h >> (n-c)) ^ (h >> (m-c)) masked to c bits.  After 32 new bits the low
 * 32 bits of h are the word, first bit in bit 31, and h never exceeds
 * n + 32 <= 63 bits.
 */
uint32_t apenet_prbs_gen_next(struct apenet_prbs_gen *g)
{
	const struct prbs_poly *p = prbs_poly_of(g->pat);
	unsigned n = p->n, m = p->m;
	uint64_t h = g->state;

	for (unsigned done = 0; done < 32;) {
		unsigned c = 32 - done < m ? 32 - done : m;
		uint64_t x = ((h >> (n - c)) ^ (h >> (m - c))) & ((1ull << c) - 1);

		h = (h << c) | x;
		done += c;
	}
	g->state = (uint32_t)h & prbs_mask(n);
	return (uint32_t)h;
}

static unsigned prbs_popcount32(uint32_t v)
{
	v = v - ((v >> 1) & 0x55555555u);
	v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
	v = (v + (v >> 4)) & 0x0f0f0f0fu;
	return (v * 0x01010101u) >> 24;
}

void apenet_prbs_chk_init(struct apenet_prbs_chk *c, enum apenet_prbs pat)
{
	memset(c, 0, sizeof(*c));
	apenet_prbs_gen_init(&c->lfsr, pat, 0);
}

/* Acquiring: predict from the previous word, then reload from this one. */
static void prbs_chk_acquire(struct apenet_prbs_chk *c, uint32_t word)
{
	uint32_t mask = prbs_mask(prbs_poly_of(c->lfsr.pat)->n);
	uint32_t state = word & mask;

	if (c->seeded && c->lfsr.state != 0 && apenet_prbs_gen_next(&c->lfsr) == word)
		c->good++;
	else
		c->good = 0;
	/* A correct prediction left exactly this state already. */
	c->lfsr.state = state;
	c->seeded = 1;
	if (c->good >= APENET_PRBS_LOCK_WORDS && state != 0)
		c->locked = 1;
}

uint32_t apenet_prbs_chk_feed(struct apenet_prbs_chk *c, uint32_t word)
{
	uint32_t err;
	unsigned nerr;

	if (!c->locked) {
		prbs_chk_acquire(c, word);
		return 0;
	}
	err = word ^ apenet_prbs_gen_next(&c->lfsr);
	nerr = prbs_popcount32(err);
	c->bits += 32;
	c->errs += nerr;
	if (nerr > APENET_PRBS_LOSS_ERRS) {
		c->locked = 0;
		c->lock_losses++;
		c->good = 0;
		c->seeded = 0;
		/* This word seeds the re-acquisition. */
		prbs_chk_acquire(c, word);
	}
	return err;
}

unsigned apenet_prbs_order(enum apenet_prbs pat)
{
	return prbs_poly_of(pat)->n;
}

unsigned apenet_prbs_period_bits(enum apenet_prbs pat)
{
	return prbs_mask(prbs_poly_of(pat)->n);
}

const char *apenet_prbs_name(enum apenet_prbs pat)
{
	return prbs_poly_of(pat)->name;
}

int apenet_prbs_parse(const char *s, enum apenet_prbs *out)
{
	if (!s)
		return -1;
	if (strncasecmp(s, "prbs", 4) == 0)
		s += 4;
	for (unsigned i = 0; i < 4; i++) {
		if (strcmp(s, prbs_polys[i].num) == 0) {
			*out = (enum apenet_prbs)i;
			return 0;
		}
	}
	return -1;
}
