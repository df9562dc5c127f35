/*
 * PRBS codec (common/prbs.c): the checker that decodes captured lane words.
 * Byte 0 picks the pattern, bytes 1-4 the generator's seed; every further 4
 * bytes are an error mask flipped into the next generated word.  Whatever
 * arrives, the checker's counters follow its documented rules word by word;
 * and a clean stream from any seed locks within the documented number of
 * words with no errors.  The input as text also goes through the pattern
 * name parser.
 */
#include <stdlib.h>
#include <string.h>

#include "apenet/prbs.h"
#include "fuzz.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apenet_prbs_gen g;
	struct apenet_prbs_chk c;

	if (size < 5)
		return 0;
	enum apenet_prbs pat = (enum apenet_prbs)(data[0] & 3);
	uint32_t seed = le32(data + 1);
	APENET_FUZZ_CHECK(apenet_prbs_order(pat) >= 7 && apenet_prbs_order(pat) <= 31);

	/* A noisy stream: the counters follow the rules word by word. */
	apenet_prbs_gen_init(&g, pat, seed);
	apenet_prbs_chk_init(&c, pat);
	for (size_t i = 5; i + 4 <= size; i += 4) {
		uint32_t err = le32(data + i);
		unsigned was_locked = c.locked;
		uint64_t bits = c.bits, errs = c.errs, losses = c.lock_losses;
		uint32_t got = apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g) ^ err);
		unsigned n = (unsigned)__builtin_popcount(got);
		if (!was_locked) {
			APENET_FUZZ_CHECK(got == 0);
			APENET_FUZZ_CHECK(c.bits == bits && c.errs == errs && c.lock_losses == losses);
		} else {
			APENET_FUZZ_CHECK(c.bits == bits + 32);
			APENET_FUZZ_CHECK(c.errs == errs + n);
			APENET_FUZZ_CHECK((n > APENET_PRBS_LOSS_ERRS) == !c.locked);
			APENET_FUZZ_CHECK(c.lock_losses == losses + !c.locked);
		}
		APENET_FUZZ_CHECK(c.errs <= c.bits);
	}

	/* A clean stream from the same seed: locked after the seeding word and
	 * APENET_PRBS_LOCK_WORDS good predictions, then never an error. */
	apenet_prbs_gen_init(&g, pat, seed);
	apenet_prbs_chk_init(&c, pat);
	for (unsigned w = 0; w < APENET_PRBS_LOCK_WORDS + 1 + 64; w++) {
		APENET_FUZZ_CHECK(apenet_prbs_chk_feed(&c, apenet_prbs_gen_next(&g)) == 0);
		if (w >= APENET_PRBS_LOCK_WORDS)
			APENET_FUZZ_CHECK(c.locked);
	}
	APENET_FUZZ_CHECK(c.errs == 0 && c.lock_losses == 0 && c.bits == 64 * 32);

	/* The pattern names parse back. */
	enum apenet_prbs back;
	APENET_FUZZ_CHECK(apenet_prbs_parse(apenet_prbs_name(pat), &back) == 0 && back == pat);
	char *text = apenet_fuzz_cstr(data + 5, size - 5 < 16 ? size - 5 : 16);
	if (text && apenet_prbs_parse(text, &back) == 0)
		APENET_FUZZ_CHECK((unsigned)back < 4);
	free(text);
	return 0;
}
