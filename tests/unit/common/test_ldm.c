/*
 * Tests of the LDM codec (common/ldm.c) against SPEC §3.
 *
 * The expected layout is written out here again from the SPEC's table, not
 * taken from the register map or the codec, so that a field moved in either
 * fails this test.  Every field is checked at its bit position with each
 * defined value; the undefined value 11 must make the word invalid while the
 * struct still reports every field (a decoder reports, it does not guess).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "apenet/ldm.h"
#include "apenet/regs.h"

/* SPEC §3, in the order of enum apenet_ldm_field. */
static const struct {
	unsigned lsb;
	const char *name; /* apenet_ldm_field_name */
	const char *key;  /* apenet_ldm_field_key */
} spec[] = {
	{ 0, "service network", "service" },
	{ 2, "memory", "memory" },
	{ 4, "peripheral", "peripheral" },
	{ 6, "DNP core", "core" },
	{ 8, "current", "current" },
	{ 10, "voltage", "voltage" },
	{ 12, "temperature", "temperature" },
	{ 14, "Z- link", "z_minus" },
	{ 16, "Z+ link", "z_plus" },
	{ 18, "Y- link", "y_minus" },
	{ 20, "Y+ link", "y_plus" },
	{ 22, "X- link", "x_minus" },
	{ 24, "X+ link", "x_plus" },
};
#define NSPEC (sizeof(spec) / sizeof(spec[0]))

#define SPEC_VALID (1u << 31)
#define SPEC_HOST_EXPIRED (1u << 26)
#define SPEC_SPARE_MASK 0x78000000u /* bits 30..27 */

/* Decodes w and checks the parts every decode must get right whatever the
 * word: the echo, the valid bit, the extension bit, the spare bits, each
 * field read at its SPEC position, the count of 11s and the worst value. */
static int decode_checked(uint32_t w, struct apenet_ldm *m)
{
	memset(m, 0xa5, sizeof(*m)); /* stale garbage must be overwritten */
	int rc = apenet_ldm_decode(w, m);
	unsigned ninv = 0, worst = 0;

	assert_int_equal(m->word, w);
	assert_int_equal(!!m->valid, !!(w & SPEC_VALID));
	assert_int_equal(!!m->host_expired, !!(w & SPEC_HOST_EXPIRED));
	assert_int_equal(m->spare, (w & SPEC_SPARE_MASK) >> 27);
	for (unsigned f = 0; f < NSPEC; f++) {
		unsigned v = (w >> spec[f].lsb) & 3u;
		if (m->field[f] != v)
			fail_msg("word 0x%08x: field %s reads %u, expected %u", w, spec[f].name, m->field[f], v);
		ninv += v == 3;
		worst = v > worst ? v : worst;
	}
	assert_int_equal(m->ninvalid, ninv);
	assert_int_equal(m->worst, worst);
	int want = (w & SPEC_VALID) && ninv == 0 ? 0 : -1;
	if (rc != want)
		fail_msg("word 0x%08x: decode returned %d, expected %d", w, rc, want);
	return rc;
}

static void test_layout_matches_spec(void **state)
{
	(void)state;
	assert_int_equal(APENET_LDM_NFIELDS, NSPEC);
	for (unsigned f = 0; f < NSPEC; f++) {
		assert_int_equal(apenet_ldm_field_lsb(f), spec[f].lsb);
		assert_string_equal(apenet_ldm_field_name(f), spec[f].name);
		assert_string_equal(apenet_ldm_field_key(f), spec[f].key);
	}
	/* The register map's LDM fields (docs/regmap.md) say the same. */
	assert_int_equal(APENET_F_LDM_SERVICE_LSB, spec[APENET_LDM_F_SERVICE].lsb);
	assert_int_equal(APENET_F_LDM_MEMORY_LSB, spec[APENET_LDM_F_MEMORY].lsb);
	assert_int_equal(APENET_F_LDM_PERIPHERAL_LSB, spec[APENET_LDM_F_PERIPHERAL].lsb);
	assert_int_equal(APENET_F_LDM_CORE_LSB, spec[APENET_LDM_F_CORE].lsb);
	assert_int_equal(APENET_F_LDM_CURRENT_LSB, spec[APENET_LDM_F_CURRENT].lsb);
	assert_int_equal(APENET_F_LDM_VOLTAGE_LSB, spec[APENET_LDM_F_VOLTAGE].lsb);
	assert_int_equal(APENET_F_LDM_TEMPERATURE_LSB, spec[APENET_LDM_F_TEMPERATURE].lsb);
	assert_int_equal(APENET_F_LDM_ZMINUS_LSB, spec[APENET_LDM_F_ZMINUS].lsb);
	assert_int_equal(APENET_F_LDM_ZPLUS_LSB, spec[APENET_LDM_F_ZPLUS].lsb);
	assert_int_equal(APENET_F_LDM_YMINUS_LSB, spec[APENET_LDM_F_YMINUS].lsb);
	assert_int_equal(APENET_F_LDM_YPLUS_LSB, spec[APENET_LDM_F_YPLUS].lsb);
	assert_int_equal(APENET_F_LDM_XMINUS_LSB, spec[APENET_LDM_F_XMINUS].lsb);
	assert_int_equal(APENET_F_LDM_XPLUS_LSB, spec[APENET_LDM_F_XPLUS].lsb);
	assert_int_equal(1u << APENET_F_LDM_HOST_EXPIRED_LSB, SPEC_HOST_EXPIRED);
	assert_int_equal(1u << APENET_F_LDM_VALID_LSB, SPEC_VALID);

	/* The fields, the extension, the spare bits and the valid bit tile the
	 * word: no bit is read twice, none is left out. */
	uint32_t seen = 0;
	for (unsigned f = 0; f < NSPEC; f++) {
		uint32_t m = 3u << apenet_ldm_field_lsb(f);
		assert_int_equal(seen & m, 0);
		seen |= m;
	}
	assert_int_equal(seen & (SPEC_HOST_EXPIRED | SPEC_SPARE_MASK | SPEC_VALID), 0);
	assert_int_equal(seen | SPEC_HOST_EXPIRED | SPEC_SPARE_MASK | SPEC_VALID, 0xffffffffu);

	/* The host may write only service network, memory, peripheral and
	 * the host-expired bit (SPEC §3 DESIGN note). */
	uint32_t host = SPEC_HOST_EXPIRED;
	host |= 3u << spec[APENET_LDM_F_SERVICE].lsb;
	host |= 3u << spec[APENET_LDM_F_MEMORY].lsb;
	host |= 3u << spec[APENET_LDM_F_PERIPHERAL].lsb;
	assert_int_equal(APENET_LDM_HOST_MASK, host);
}

static void test_each_field_each_value(void **state)
{
	(void)state;
	for (unsigned f = 0; f < NSPEC; f++) {
		for (unsigned v = APENET_LDM_NORMAL; v <= APENET_LDM_BROKEN; v++) {
			struct apenet_ldm m;
			uint32_t w = SPEC_VALID | (v << spec[f].lsb);
			assert_int_equal(decode_checked(w, &m), 0);
			assert_true(m.valid);
			assert_int_equal(m.field[f], v);
			for (unsigned g = 0; g < NSPEC; g++)
				if (g != f)
					assert_int_equal(m.field[g], APENET_LDM_NORMAL);
			assert_int_equal(m.worst, v);
			assert_int_equal(m.ninvalid, 0);
			assert_false(m.host_expired);
			assert_int_equal(m.spare, 0);
		}
	}
}

static void test_value_11_makes_word_invalid(void **state)
{
	(void)state;
	for (unsigned f = 0; f < NSPEC; f++) {
		struct apenet_ldm m;
		/* the other fields carry defined values so they show through */
		uint32_t w = SPEC_VALID | (3u << spec[f].lsb);
		for (unsigned g = 0; g < NSPEC; g++)
			if (g != f)
				w |= (g % 3) << spec[g].lsb;
		assert_int_equal(decode_checked(w, &m), -1);
		assert_true(m.valid); /* the valid bit was set: the field made it invalid */
		assert_int_equal(m.ninvalid, 1);
		assert_int_equal(m.field[f], APENET_LDM_INVALID);
		assert_int_equal(m.worst, APENET_LDM_INVALID);
		for (unsigned g = 0; g < NSPEC; g++)
			if (g != f)
				assert_int_equal(m.field[g], g % 3);
	}

	/* ninvalid counts every 11 */
	struct apenet_ldm m;
	uint32_t w = SPEC_VALID;
	for (unsigned f = 0; f < NSPEC; f++) {
		w |= 3u << spec[f].lsb;
		assert_int_equal(decode_checked(w, &m), -1);
		assert_int_equal(m.ninvalid, f + 1);
	}
	assert_int_equal(m.ninvalid, APENET_LDM_NFIELDS);
}

static void test_valid_bit_clear(void **state)
{
	(void)state;
	struct apenet_ldm m;
	/* an all-normal word without the valid bit */
	assert_int_equal(decode_checked(0, &m), -1);
	assert_false(m.valid);
	assert_int_equal(m.ninvalid, 0);
	assert_int_equal(m.worst, APENET_LDM_NORMAL);
	/* fields are still reported */
	uint32_t w = (APENET_LDM_BROKEN << spec[APENET_LDM_F_XPLUS].lsb) |
		     (APENET_LDM_SICK << spec[APENET_LDM_F_TEMPERATURE].lsb) | SPEC_HOST_EXPIRED;
	assert_int_equal(decode_checked(w, &m), -1);
	assert_false(m.valid);
	assert_int_equal(m.field[APENET_LDM_F_XPLUS], APENET_LDM_BROKEN);
	assert_int_equal(m.field[APENET_LDM_F_TEMPERATURE], APENET_LDM_SICK);
	assert_true(m.host_expired);
	assert_int_equal(m.worst, APENET_LDM_BROKEN);
	/* the valid bit alone makes the all-normal word good */
	assert_int_equal(decode_checked(SPEC_VALID, &m), 0);
	assert_int_equal(m.worst, APENET_LDM_NORMAL);
}

static void test_spare_and_host_expired(void **state)
{
	(void)state;
	struct apenet_ldm m;
	/* bit 26: the host-expired extension, no field changes */
	assert_int_equal(decode_checked(SPEC_VALID | SPEC_HOST_EXPIRED, &m), 0);
	assert_true(m.host_expired);
	assert_int_equal(m.spare, 0);
	assert_int_equal(m.worst, APENET_LDM_NORMAL);
	/* each spare bit 27..30 shows in .spare at its place and nowhere else;
	 * it does not invalidate the word (the SPEC reserves it, a later
	 * firmware may use it) */
	for (unsigned b = 27; b <= 30; b++) {
		assert_int_equal(decode_checked(SPEC_VALID | (1u << b), &m), 0);
		assert_int_equal(m.spare, 1u << (b - 27));
		assert_false(m.host_expired);
		for (unsigned f = 0; f < NSPEC; f++)
			assert_int_equal(m.field[f], 0);
	}
	assert_int_equal(decode_checked(SPEC_VALID | SPEC_SPARE_MASK, &m), 0);
	assert_int_equal(m.spare, 0xf);
}

static void test_worst(void **state)
{
	(void)state;
	struct apenet_ldm m;
	uint32_t w = SPEC_VALID | (APENET_LDM_SICK << spec[APENET_LDM_F_MEMORY].lsb);
	decode_checked(w, &m);
	assert_int_equal(m.worst, APENET_LDM_SICK);
	w |= APENET_LDM_BROKEN << spec[APENET_LDM_F_ZMINUS].lsb;
	decode_checked(w, &m);
	assert_int_equal(m.worst, APENET_LDM_BROKEN);
	w |= APENET_LDM_SICK << spec[APENET_LDM_F_XPLUS].lsb; /* a sick one after a broken one */
	decode_checked(w, &m);
	assert_int_equal(m.worst, APENET_LDM_BROKEN);
	w |= 3u << spec[APENET_LDM_F_SERVICE].lsb;
	assert_int_equal(decode_checked(w, &m), -1);
	assert_int_equal(m.worst, APENET_LDM_INVALID);
}

/* Words spread over the whole 32-bit space (a fixed LCG, so failures
 * reproduce) decode consistently with the SPEC table. */
static void test_many_words(void **state)
{
	(void)state;
	uint32_t x = 12345;
	unsigned good = 0, bad = 0;
	for (unsigned i = 0; i < 20000; i++) {
		struct apenet_ldm m;
		x = x * 1664525u + 1013904223u;
		/* half the words without any 11, so both outcomes are exercised */
		uint32_t w = x;
		if (i & 1)
			for (unsigned f = 0; f < NSPEC; f++)
				if (((w >> spec[f].lsb) & 3u) == 3u)
					w &= ~(1u << spec[f].lsb);
		if (decode_checked(w, &m) == 0)
			good++;
		else
			bad++;
	}
	assert_true(good > 1000);
	assert_true(bad > 1000);
}

static void test_status_names(void **state)
{
	(void)state;
	assert_string_equal(apenet_ldm_status_name(APENET_LDM_NORMAL), "normal");
	assert_string_equal(apenet_ldm_status_name(APENET_LDM_SICK), "sick");
	assert_string_equal(apenet_ldm_status_name(APENET_LDM_BROKEN), "broken");
	assert_string_equal(apenet_ldm_status_name(APENET_LDM_INVALID), "invalid");
	assert_string_equal(apenet_ldm_status_name(4), "?");
	assert_string_equal(apenet_ldm_field_name(APENET_LDM_NFIELDS), "?");
	assert_string_equal(apenet_ldm_field_key(APENET_LDM_NFIELDS), "?");
	assert_string_equal(apenet_ldm_field_key(~0u), "?");
	/* keys are unique (they are JSON member names) */
	for (unsigned f = 0; f < NSPEC; f++)
		for (unsigned g = f + 1; g < NSPEC; g++) {
			assert_string_not_equal(apenet_ldm_field_key(f), apenet_ldm_field_key(g));
			assert_string_not_equal(apenet_ldm_field_name(f), apenet_ldm_field_name(g));
		}
}

static void test_field_of_dir(void **state)
{
	(void)state;
	/* expected by the link's name: dir -> first and second field names */
	static const struct {
		enum apenet_dir dir;
		const char *first, *second;
	} want[] = {
		{ APENET_DIR_XP, "X+ link", NULL }, { APENET_DIR_XM, "X- link", NULL },
		{ APENET_DIR_YP, "Y+ link", NULL }, { APENET_DIR_YM, "Y- link", NULL },
		{ APENET_DIR_ZP, "Z+ link", NULL }, { APENET_DIR_ZM, "Z- link", NULL },
		/* one channel per dimension (v5) reports in both fields of it */
		{ APENET_DIR_X, "X+ link", "X- link" }, { APENET_DIR_Y, "Y+ link", "Y- link" },
		{ APENET_DIR_Z, "Z+ link", "Z- link" },
		{ APENET_DIR_EXT, NULL, NULL },
	};
	unsigned covered = 0;
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		for (int second = 0; second < 2; second++) {
			const char *name = second ? want[i].second : want[i].first;
			int f = apenet_ldm_field_of_dir(want[i].dir, second);
			if (!name) {
				if (f != -1)
					fail_msg("dir %d second %d: field %d, expected none", want[i].dir, second, f);
				continue;
			}
			if (f < 0)
				fail_msg("dir %d second %d: no field, expected %s", want[i].dir, second, name);
			assert_string_equal(apenet_ldm_field_name((unsigned)f), name);
			/* its bit position is the SPEC's for that name */
			unsigned k;
			for (k = 0; k < NSPEC && strcmp(spec[k].name, name); k++)
				;
			assert_true(k < NSPEC);
			assert_int_equal(apenet_ldm_field_lsb((unsigned)f), spec[k].lsb);
		}
		covered |= 1u << want[i].dir;
	}
	/* every enum apenet_dir value is in the table above */
	assert_int_equal(covered, (1u << (APENET_DIR_EXT + 1)) - 1);
	assert_int_equal(apenet_ldm_field_of_dir(APENET_DIR_EXT + 1, 0), -1);
	assert_int_equal(apenet_ldm_field_of_dir(~0u, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_matches_spec),
		cmocka_unit_test(test_each_field_each_value),
		cmocka_unit_test(test_value_11_makes_word_invalid),
		cmocka_unit_test(test_valid_bit_clear),
		cmocka_unit_test(test_spare_and_host_expired),
		cmocka_unit_test(test_worst),
		cmocka_unit_test(test_many_words),
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_field_of_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
