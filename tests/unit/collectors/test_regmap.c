/*
 * Tests of the register map (include/apenet/regs.h, collectors/regs.c) and
 * the variant profiles (collectors/profile.c).
 *
 * The map is checked by walking its descriptor tables: offsets, sizes,
 * alignment and block bounds, then a byte map of the whole BAR with every
 * instance of every register placed, so any overlap names both registers.
 * Fields are checked for overlap, and the LDM layout against SPEC §3's
 * table, restated here.  Last, docs/regmap.md must be exactly what
 * apenet-regmap-doc prints today.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "apenet/regs.h"
#include "apenet/snapfile.h"

static const char *const block_name[APENET_BLK_COUNT] = { "global", "link", "lane", "EE" };

/* ---- registers, block by block ---- */

/* Registers of one block: sane sizes and alignment, unique names, no two
 * sharing a byte, all inside [lo, hi). */
static void check_block(enum apenet_block b, uint32_t lo, uint32_t hi)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);

	assert_non_null(r);
	assert_true(n > 0);
	for (unsigned i = 0; i < n; i++) {
		uint32_t len = r[i].bits / 8u;

		assert_non_null(r[i].name);
		assert_non_null(r[i].unit);
		assert_non_null(r[i].desc);
		assert_true(r[i].desc[0] != 0);
		if (r[i].bits != 32 && r[i].bits != 64)
			fail_msg("%s: %u bits", r[i].name, r[i].bits);
		if (r[i].off % len)
			fail_msg("%s block: %s at 0x%03x is not %u-byte aligned", block_name[b], r[i].name,
				 r[i].off, len);
		if (r[i].off < lo || r[i].off + len > hi)
			fail_msg("%s block: %s at 0x%03x..0x%03x is outside 0x%03x..0x%03x", block_name[b],
				 r[i].name, r[i].off, r[i].off + len - 1, lo, hi - 1);
		if ((unsigned)r[i].access > APENET_CMD)
			fail_msg("%s: bad access class %d", r[i].name, (int)r[i].access);
		/* Nothing is write-1-to-clear (regs.h header comment). */
		if (r[i].access == APENET_W1C)
			fail_msg("%s is W1C", r[i].name);
		for (unsigned j = i + 1; j < n; j++) {
			uint32_t lj = r[j].bits / 8u;

			if (!strcmp(r[i].name, r[j].name))
				fail_msg("%s block: %s listed twice", block_name[b], r[i].name);
			if (r[i].off < r[j].off + lj && r[j].off < r[i].off + len)
				fail_msg("%s block: %s (0x%03x, %u bits) overlaps %s (0x%03x, %u bits)",
					 block_name[b], r[i].name, r[i].off, r[i].bits, r[j].name, r[j].off,
					 r[j].bits);
		}
	}
}

static void test_block_bounds(void **state)
{
	(void)state;
	/* The global block ends below the first link block. */
	check_block(APENET_BLK_GLOBAL, 0, APENET_LINK_BASE);
	/* Link registers end below the lane blocks of their link. */
	check_block(APENET_BLK_LINK, 0, APENET_LANE_BASE);
	/* Lane registers fit their stride. */
	check_block(APENET_BLK_LANE, 0, APENET_LANE_STRIDE);
	/* EE registers follow the mirrored pages and fit the window. */
	check_block(APENET_BLK_EE, APENET_EE_DATA + APENET_EE_DATA_LEN, APENET_EE_STRIDE);

	/* The lane blocks fit in a link block. */
	assert_true(APENET_LANE_BASE + APENET_MAX_LANES * APENET_LANE_STRIDE <= APENET_LINK_STRIDE);
	/* Link blocks end at or before the EEPROM windows. */
	assert_true(APENET_LINK_BASE + APENET_MAX_LINKS * APENET_LINK_STRIDE <= APENET_EE_BASE);
	/* One EEPROM window per port (at most one per link) inside the BAR. */
	assert_true(APENET_EE_BASE + APENET_MAX_LINKS * APENET_EE_STRIDE <= APENET_BAR_SIZE);
	assert_true(APENET_EE_DATA + APENET_EE_DATA_LEN <= APENET_EE_STRIDE);
	/* The pages mirror as whole 32-bit registers: 5 pages of 128 bytes. */
	assert_int_equal(APENET_EE_DATA_LEN, 5 * 128);
	assert_int_equal(APENET_EE_DATA % 4, 0);

	unsigned n;
	assert_null(apenet_regdescs(APENET_BLK_COUNT, &n));
	assert_int_equal(n, 0);
}

/* Every instance of every register placed in one byte map of BAR0: no byte
 * has two owners, and the helpers in regs.h agree with the tables. */
static void test_bar_map(void **state)
{
	(void)state;
	static const char *owner[APENET_BAR_SIZE];
	char *labels[2048];
	int nl = 0;
	unsigned n;

	memset(owner, 0, sizeof(owner));
#define PLACE(off, len, fmt, ...)                                                                         \
	do {                                                                                              \
		assert_true(nl < 2048);                                                                   \
		assert_true(asprintf(&labels[nl], fmt, __VA_ARGS__) > 0);                                 \
		uint32_t o_ = (off), l_ = (len);                                                          \
		if (o_ + l_ > APENET_BAR_SIZE)                                                            \
			fail_msg("%s at 0x%04x is outside BAR0", labels[nl], o_);                         \
		for (uint32_t k_ = o_; k_ < o_ + l_; k_++) {                                              \
			if (owner[k_])                                                                    \
				fail_msg("byte 0x%04x: %s overlaps %s", k_, labels[nl], owner[k_]);       \
			owner[k_] = labels[nl];                                                           \
		}                                                                                         \
		nl++;                                                                                     \
	} while (0)

	const struct apenet_regdesc *g = apenet_regdescs(APENET_BLK_GLOBAL, &n);
	for (unsigned i = 0; i < n; i++)
		PLACE(g[i].off, g[i].bits / 8u, "%s", g[i].name);
	const struct apenet_regdesc *lk = apenet_regdescs(APENET_BLK_LINK, &n);
	unsigned nlane;
	const struct apenet_regdesc *ln = apenet_regdescs(APENET_BLK_LANE, &nlane);
	for (unsigned l = 0; l < APENET_MAX_LINKS; l++) {
		for (unsigned i = 0; i < n; i++) {
			uint32_t off = apenet_link_off(l, lk[i].off);
			assert_int_equal(off, APENET_LINK_BASE + l * APENET_LINK_STRIDE + lk[i].off);
			PLACE(off, lk[i].bits / 8u, "link %u %s", l, lk[i].name);
		}
		for (unsigned a = 0; a < APENET_MAX_LANES; a++)
			for (unsigned i = 0; i < nlane; i++) {
				uint32_t off = apenet_lane_off(l, a, ln[i].off);
				assert_int_equal(off, apenet_link_off(l, APENET_LANE_BASE + a * APENET_LANE_STRIDE +
									    ln[i].off));
				PLACE(off, ln[i].bits / 8u, "link %u lane %u %s", l, a, ln[i].name);
			}
	}
	const struct apenet_regdesc *ee = apenet_regdescs(APENET_BLK_EE, &n);
	for (unsigned p = 0; p < APENET_MAX_LINKS; p++) {
		PLACE(apenet_ee_off(p, APENET_EE_DATA), APENET_EE_DATA_LEN, "port %u EEPROM pages", p);
		for (unsigned i = 0; i < n; i++)
			PLACE(apenet_ee_off(p, ee[i].off), ee[i].bits / 8u, "port %u %s", p, ee[i].name);
	}
#undef PLACE
	for (int i = 0; i < nl; i++)
		free(labels[i]);

	/* The enum constants are the table's offsets (spot checks). */
	assert_int_equal(APENET_REG_ID_MAGIC, 0);
	assert_int_equal(APENET_REG_TIMESTAMP % 8, 0);
	assert_int_equal(APENET_LINK_UP_TS % 8, 0);
	assert_int_equal(APENET_LANE_PRBS_BITS % 8, 0);
}

/* Register names are unique across blocks (fields name their register). */
static const struct apenet_regdesc *find_reg(const char *name, enum apenet_block *blk)
{
	const struct apenet_regdesc *found = NULL;

	for (int b = 0; b < APENET_BLK_COUNT; b++) {
		unsigned n;
		const struct apenet_regdesc *r = apenet_regdescs((enum apenet_block)b, &n);
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(r[i].name, name)) {
				if (found)
					fail_msg("register name %s used in two blocks", name);
				found = &r[i];
				if (blk)
					*blk = (enum apenet_block)b;
			}
	}
	return found;
}

static void test_names_unique(void **state)
{
	(void)state;
	for (int b = 0; b < APENET_BLK_COUNT; b++) {
		unsigned n;
		const struct apenet_regdesc *r = apenet_regdescs((enum apenet_block)b, &n);
		for (unsigned i = 0; i < n; i++) {
			enum apenet_block found_in = APENET_BLK_COUNT;
			assert_ptr_equal(find_reg(r[i].name, &found_in), &r[i]);
			assert_int_equal(found_in, b);
			if (!strcmp(r[i].name, "LDM"))
				fail_msg("a register is named LDM, the LDM word's pseudo-register");
		}
	}
	/* The registers that carry an LDM word say so in their unit. */
	assert_string_equal(find_reg("LDM_OWN", NULL)->unit, "ldm");
	assert_string_equal(find_reg("LDM_HOST", NULL)->unit, "ldm");
	assert_string_equal(find_reg("LINK_LDM_RX", NULL)->unit, "ldm");
	assert_int_equal(find_reg("LINK_LDM_RX", NULL)->bits, 32);
}

/* ---- fields ---- */

static void test_fields(void **state)
{
	(void)state;
	unsigned nf;
	const struct apenet_fielddesc *f = apenet_fielddescs(&nf);

	assert_non_null(f);
	assert_true(nf > 0);
	for (unsigned i = 0; i < nf; i++) {
		assert_non_null(f[i].name);
		assert_non_null(f[i].desc);
		if (f[i].width == 0 || f[i].lsb + f[i].width > 32)
			fail_msg("%s.%s: bits %u+%u do not fit 32", f[i].reg, f[i].name, f[i].lsb, f[i].width);
		if (strcmp(f[i].reg, "LDM")) {
			const struct apenet_regdesc *r = find_reg(f[i].reg, NULL);
			if (!r)
				fail_msg("field %s.%s: no register %s", f[i].reg, f[i].name, f[i].reg);
			if (r->bits != 32)
				fail_msg("field %s.%s on a %u-bit register", f[i].reg, f[i].name, r->bits);
		}
		uint32_t mi = (uint32_t)(((1ull << f[i].width) - 1) << f[i].lsb);
		for (unsigned j = i + 1; j < nf; j++) {
			if (strcmp(f[i].reg, f[j].reg))
				continue;
			if (!strcmp(f[i].name, f[j].name))
				fail_msg("field %s.%s listed twice", f[i].reg, f[i].name);
			uint32_t mj = (uint32_t)(((1ull << f[j].width) - 1) << f[j].lsb);
			if (mi & mj)
				fail_msg("%s: field %s (bits %u..%u) overlaps %s (bits %u..%u)", f[i].reg, f[i].name,
					 f[i].lsb, f[i].lsb + f[i].width - 1, f[j].name, f[j].lsb,
					 f[j].lsb + f[j].width - 1);
		}
	}
}

/* Fields that must hold what the profiles put in them. */
static void test_field_capacity(void **state)
{
	(void)state;
	assert_true((1u << APENET_F_LINK_STATE_LANES_USED_WIDTH) - 1 >= (1u << APENET_MAX_LANES) - 1);
	assert_true(APENET_F_LINK_STATE_LANES_UP_WIDTH >= APENET_MAX_LANES);
	assert_true((1u << APENET_F_LINK_CONFIG_LINKS_WIDTH) > APENET_MAX_LINKS);
	assert_true((1u << APENET_F_LINK_CONFIG_LANES_WIDTH) > APENET_MAX_LANES);
	assert_true((1u << APENET_F_LINK_PARTNER_PORT_WIDTH) >= APENET_MAX_LINKS);
	assert_true((1u << APENET_F_LINK_STATE_STATE_WIDTH) > APENET_LINK_PRBS);
	assert_true((1u << APENET_F_LINK_STATE_PHASE_WIDTH) > APENET_PHASE_UP);
	assert_true((1u << APENET_F_LANE_STATE_PHASE_WIDTH) > APENET_PHASE_UP);
	assert_true((1u << APENET_F_LANE_PRBS_CTRL_PATTERN_WIDTH) > APENET_PRBS31);
	/* GET and SET are inverses on a field and leave the others alone. */
	uint32_t w = APENET_SET(LINK_PARTNER, PORT, 5) | APENET_SET(LINK_PARTNER, VALID, 1);
	assert_int_equal(APENET_GET(LINK_PARTNER, PORT, w), 5);
	assert_int_equal(APENET_GET(LINK_PARTNER, VALID, w), 1);
	assert_int_equal(APENET_GET(LINK_PARTNER, X, w), 0);
	assert_int_equal(APENET_SET(LINK_PARTNER, PORT, 0x1f), APENET_SET(LINK_PARTNER, PORT, 0xf));
}

/* SPEC §3: the 32-bit LDM word, bit for bit. */
static const struct {
	const char *name;
	unsigned lsb, width;
} spec_ldm[] = {
	{ "SERVICE", 0, 2 },   { "MEMORY", 2, 2 },  { "PERIPHERAL", 4, 2 },   { "CORE", 6, 2 },
	{ "CURRENT", 8, 2 },   { "VOLTAGE", 10, 2 }, { "TEMPERATURE", 12, 2 }, { "ZMINUS", 14, 2 },
	{ "ZPLUS", 16, 2 },    { "YMINUS", 18, 2 },  { "YPLUS", 20, 2 },       { "XMINUS", 22, 2 },
	{ "XPLUS", 24, 2 },    { "VALID", 31, 1 },
};
#define SPEC_SPARE_LSB 26u
#define SPEC_SPARE_MSB 30u

static void test_ldm_layout(void **state)
{
	(void)state;
	unsigned nf;
	const struct apenet_fielddesc *f = apenet_fielddescs(&nf);
	const size_t ns = sizeof(spec_ldm) / sizeof(spec_ldm[0]);
	uint32_t covered = 0;

	for (size_t s = 0; s < ns; s++) {
		int found = 0;
		for (unsigned i = 0; i < nf; i++) {
			if (strcmp(f[i].reg, "LDM") || strcmp(f[i].name, spec_ldm[s].name))
				continue;
			found++;
			if (f[i].lsb != spec_ldm[s].lsb || f[i].width != spec_ldm[s].width)
				fail_msg("LDM.%s is bits %u+%u, SPEC §3 says %u+%u", f[i].name, f[i].lsb, f[i].width,
					 spec_ldm[s].lsb, spec_ldm[s].width);
		}
		if (found != 1)
			fail_msg("LDM.%s: %d definitions, expected 1", spec_ldm[s].name, found);
		covered |= (uint32_t)(((1ull << spec_ldm[s].width) - 1) << spec_ldm[s].lsb);
	}
	/* The published fields fill every bit but the spare ones. */
	uint32_t spare = (uint32_t)(((1ull << (SPEC_SPARE_MSB - SPEC_SPARE_LSB + 1)) - 1) << SPEC_SPARE_LSB);
	assert_int_equal(covered | spare, 0xffffffffu);
	assert_int_equal(covered & spare, 0);

	/* Anything else is a documented extension living in the spare bits. */
	for (unsigned i = 0; i < nf; i++) {
		if (strcmp(f[i].reg, "LDM"))
			continue;
		int in_spec = 0;
		for (size_t s = 0; s < ns; s++)
			in_spec |= !strcmp(f[i].name, spec_ldm[s].name);
		if (in_spec)
			continue;
		if (f[i].lsb < SPEC_SPARE_LSB || (unsigned)(f[i].lsb + f[i].width - 1) > SPEC_SPARE_MSB)
			fail_msg("LDM.%s (bits %u+%u) is not in SPEC §3 and not in the spare bits 26..30",
				 f[i].name, f[i].lsb, f[i].width);
		if (!strstr(f[i].desc, "DESIGN"))
			fail_msg("LDM.%s is an extension but its description does not say DESIGN", f[i].name);
	}

	/* The generated constants agree (spot checks across the word). */
	assert_int_equal(APENET_F_LDM_SERVICE_LSB, 0);
	assert_int_equal(APENET_F_LDM_XPLUS_LSB, 24);
	assert_int_equal(APENET_F_LDM_VALID_LSB, 31);
	assert_int_equal(APENET_F_LDM_VALID_WIDTH, 1);
	/* The host may set service, memory, peripheral and the host-expired bit. */
	assert_int_equal(APENET_LDM_HOST_MASK,
			 APENET_SET(LDM, SERVICE, 3) | APENET_SET(LDM, MEMORY, 3) | APENET_SET(LDM, PERIPHERAL, 3) |
				 APENET_SET(LDM, HOST_EXPIRED, 1));
	assert_int_equal(APENET_LDM_INVALID, 3);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(apenet_access_name(APENET_RO), "RO");
	assert_string_equal(apenet_access_name(APENET_RW), "RW");
	assert_string_equal(apenet_access_name(APENET_CMD), "CMD");
	assert_string_equal(apenet_access_name((enum apenet_access)99), "?");
	assert_string_equal(apenet_phase_name(APENET_PHASE_RESET), "reset");
	assert_string_equal(apenet_phase_name(APENET_PHASE_DESKEW), "deskew");
	assert_string_equal(apenet_phase_name(APENET_PHASE_UP), "up");
	assert_string_equal(apenet_phase_name(APENET_PHASE_UP + 1), "invalid");
	assert_string_equal(apenet_link_state_name(APENET_LINK_DOWN), "down");
	assert_string_equal(apenet_link_state_name(APENET_LINK_DEGRADED), "degraded");
	assert_string_equal(apenet_link_state_name(APENET_LINK_PRBS), "prbs");
	assert_string_equal(apenet_link_state_name(7), "invalid");
}

/* ---- profiles ---- */

static void check_pma(const char *who, const struct apenet_pma_range *max, const struct apenet_pma_range *def)
{
	const uint8_t mx[6] = { max->vod, max->pre, max->post1, max->post2, max->rxeq, max->dcgain };
	const uint8_t df[6] = { def->vod, def->pre, def->post1, def->post2, def->rxeq, def->dcgain };
	static const char *const what[6] = { "vod", "pre", "post1", "post2", "rxeq", "dcgain" };

	for (int i = 0; i < 6; i++)
		if (df[i] > mx[i])
			fail_msg("%s: default %s %u above maximum %u", who, what[i], df[i], mx[i]);
	assert_true(max->vod > 0);
}

static void test_profiles(void **state)
{
	(void)state;
	const struct apenet_profile *seen[APENET_V_COUNT] = { 0 };

	assert_null(apenet_profile(APENET_V_NONE));
	assert_null(apenet_profile(APENET_V_COUNT));
	for (int v = 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);

		if (!p)
			fail_msg("variant %d has no profile", v);
		assert_int_equal(p->id, v);
		assert_non_null(p->name);
		assert_true(p->name[0] != 0);
		assert_non_null(p->title);
		assert_non_null(p->fpga);
		assert_true(p->fw_version != 0);
		assert_true(p->pcie_gen >= 1 && p->pcie_gen <= 3);
		assert_true(p->pcie_width == 8); /* every variant is x8 (SPEC §1) */
		for (int u = 1; u < v; u++) {
			if (!strcmp(seen[u]->name, p->name))
				fail_msg("variants %d and %d are both named %s", u, v, p->name);
			if (seen[u]->pci_device == p->pci_device)
				fail_msg("variants %d and %d share PCI device 0x%04x", u, v, p->pci_device);
		}
		seen[v] = p;
		assert_ptr_equal(apenet_profile_by_name(p->name), p);
		assert_ptr_equal(apenet_profile_by_device(p->pci_device), p);

		if (p->nlinks < 1 || p->nlinks > APENET_MAX_LINKS)
			fail_msg("%s: %u links", p->name, p->nlinks);
		for (unsigned l = 0; l < p->nlinks; l++) {
			const struct apenet_link_profile *lp = &p->links[l];
			assert_non_null(lp->name);
			assert_true(lp->name[0] != 0);
			if (lp->lanes < 1 || lp->lanes > APENET_MAX_LANES)
				fail_msg("%s link %s: %u lanes", p->name, lp->name, lp->lanes);
			if (lp->lane_mbps == 0 || lp->lane_mbps > lp->lane_mbps_max)
				fail_msg("%s link %s: %u Mbps deployed, %u maximum", p->name, lp->name, lp->lane_mbps,
					 lp->lane_mbps_max);
			assert_true(lp->dir <= APENET_DIR_EXT);
			for (unsigned k = 0; k < l; k++)
				if (!strcmp(p->links[k].name, lp->name))
					fail_msg("%s: two links named %s", p->name, lp->name);
		}
		/* Unused link slots are empty. */
		for (unsigned l = p->nlinks; l < APENET_MAX_LINKS; l++)
			assert_null(p->links[l].name);
		check_pma(p->name, &p->pma, &p->pma_default);
	}
	assert_null(apenet_profile_by_name("apenet"));
	assert_null(apenet_profile_by_name(""));
	assert_null(apenet_profile_by_device(0));
	assert_null(apenet_profile_by_device(0xffff));
}

/* APEnet+ (SPEC §1): six torus links X+ X- Y+ Y- Z+ Z-, 4 lanes each, up to
 * 8.5 Gbps a lane, deployed at 28 Gbps a link; Gen2 x8 on a Stratix IV. */
static void test_apenetp(void **state)
{
	(void)state;
	static const char *const names[6] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };
	static const enum apenet_dir dirs[6] = { APENET_DIR_XP, APENET_DIR_XM, APENET_DIR_YP,
						 APENET_DIR_YM, APENET_DIR_ZP, APENET_DIR_ZM };
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);

	assert_non_null(p);
	assert_int_equal(p->nlinks, 6);
	for (int l = 0; l < 6; l++) {
		assert_string_equal(p->links[l].name, names[l]);
		assert_int_equal(p->links[l].dir, dirs[l]);
		assert_int_equal(p->links[l].lanes, 4);
		assert_int_equal(p->links[l].lane_mbps_max, 8500);
		assert_int_equal(p->links[l].lanes * p->links[l].lane_mbps, 28000);
		assert_int_equal(p->links[l].enc, APENET_ENC_8B10B);
	}
	assert_int_equal(p->pcie_gen, 2);
	assert_non_null(strstr(p->fpga, "Stratix IV"));

	/* APEnet v5: X on the QSFP up to 14.1 Gbps, Gen3. */
	p = apenet_profile(APENET_V_V5);
	assert_non_null(p);
	assert_int_equal(p->pcie_gen, 3);
	assert_int_equal(p->nlinks, 3);
	assert_string_equal(p->links[0].name, "X");
	assert_int_equal(p->links[0].lane_mbps_max, 14100);
	/* NaNet-10 runs 64b/66b. */
	p = apenet_profile(APENET_V_NANET10);
	assert_non_null(p);
	for (unsigned l = 0; l < p->nlinks; l++)
		assert_int_equal(p->links[l].enc, APENET_ENC_64B66B);
}

/* ---- the generated doc ---- */

static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	*len = n;
	return buf;
}

static void test_doc_drift(void **state)
{
	(void)state;
	const char *bin = getenv("APENET_BIN"), *src = getenv("APENET_SRCDIR");
	char cmd[4096], path[4096];
	size_t glen, dlen;

	snprintf(cmd, sizeof(cmd), "%s/apenet-regmap-doc", bin && *bin ? bin : "build/bin");
	snprintf(path, sizeof(path), "%s/docs/regmap.md", src && *src ? src : ".");

	FILE *p = popen(cmd, "r");
	if (!p)
		fail_msg("cannot run %s", cmd);
	char *gen = slurp(p, &glen);
	int st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(gen);
		fail_msg("%s failed (status 0x%x): build it with make", cmd, st);
	}
	assert_true(glen > 0);

	FILE *f = fopen(path, "rb");
	if (!f) {
		free(gen);
		fail_msg("cannot read %s: docs/regmap.md is stale: run make docs/regmap.md", path);
	}
	char *doc = slurp(f, &dlen);
	fclose(f);

	size_t i = 0, line = 1;
	while (i < glen && i < dlen && gen[i] == doc[i])
		line += gen[i++] == '\n';
	int same = glen == dlen && i == glen;
	free(gen);
	free(doc);
	if (!same)
		fail_msg("docs/regmap.md is stale: run make docs/regmap.md (first difference at line %zu, "
			 "byte %zu of %s)", line, i, path);
}

/* ---- the remote window (issue 10) ---- */

static void test_rmt_results(void **state)
{
	(void)state;
	unsigned n = 0;
	while (strcmp(apenet_rmt_result_name(n), "invalid"))
		n++;
	assert_int_equal(n, APENET_RMT_BADREQ + 1);
	for (unsigned i = 0; i < n; i++) {
		assert_true(apenet_rmt_result_desc(i)[0] != 0);
		for (unsigned j = i + 1; j < n; j++)
			assert_string_not_equal(apenet_rmt_result_name(i), apenet_rmt_result_name(j));
	}
	assert_string_equal(apenet_rmt_result_name(APENET_RMT_DENIED), "DENIED");
	/* RESULT is 8 bits, SEQ and DONE_SEQ the same 16 */
	assert_int_equal(APENET_F_RMT_STATUS_RESULT_WIDTH, 8);
	assert_int_equal(APENET_F_RMT_CTRL_SEQ_WIDTH, APENET_F_RMT_STATUS_DONE_SEQ_WIDTH);
	assert_true((1u << APENET_F_RMT_CTRL_LINK_WIDTH) >= APENET_MAX_LINKS);
}

/* The policy, over every 32-bit offset of BAR0, for every variant and link:
 * readable exactly the identity list and the PRBS and PMA registers of that
 * link's lanes; writable exactly PRBS_CTRL, PRBS_RUN_MS and the six PMA
 * settings of those lanes (PMA writes are provisional: test_sim_remote). */
static void test_rmt_policy(void **state)
{
	(void)state;
	static const uint32_t ident[] = { APENET_REG_ID_MAGIC, APENET_REG_ID_VARIANT, APENET_REG_ID_FW_VERSION,
					  APENET_REG_ID_BUILD, APENET_REG_ID_CAPS, APENET_REG_BER_ACCEL,
					  APENET_REG_NODE_COORD, APENET_REG_TORUS_DIMS, APENET_REG_LINK_CONFIG,
					  APENET_REG_TS_FREQ_HZ, APENET_REG_TIMESTAMP };
	for (int v = 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);
		for (unsigned l = 0; l < p->nlinks; l++) {
			unsigned nread = 0, nwrite = 0;
			for (uint32_t off = 0; off < APENET_BAR_SIZE; off += 4) {
				int rd = apenet_rmt_allowed(p, l, off, 0), wr = apenet_rmt_allowed(p, l, off, 1);
				nread += rd;
				nwrite += wr;
				if (wr && !rd)
					fail_msg("%s link %u: 0x%04x writable, not readable", p->name, l, off);
				int in_ident = 0;
				for (unsigned i = 0; i < sizeof(ident) / sizeof(ident[0]); i++)
					in_ident |= off == ident[i];
				if (in_ident) {
					assert_true(rd && !wr);
					continue;
				}
				if (!rd)
					continue;
				uint32_t lanes0 = apenet_lane_off(l, 0, 0);
				if (off < lanes0 || off >= lanes0 + p->links[l].lanes * APENET_LANE_STRIDE)
					fail_msg("%s link %u: 0x%04x readable outside the link's lanes", p->name, l, off);
				uint32_t reg = (off - lanes0) % APENET_LANE_STRIDE;
				if (wr && reg != APENET_LANE_PRBS_CTRL && reg != APENET_LANE_PRBS_RUN_MS &&
				    (reg < APENET_LANE_PMA_VOD || reg > APENET_LANE_PMA_DCGAIN))
					fail_msg("%s link %u: lane register 0x%02x writable", p->name, l, reg);
			}
			/* 11 identity registers; per lane 8 PRBS and 6 PMA registers */
			assert_int_equal(nread, 11 + p->links[l].lanes * 14);
			assert_int_equal(nwrite, p->links[l].lanes * 8);
		}
		assert_false(apenet_rmt_allowed(p, p->nlinks, APENET_REG_ID_MAGIC, 0));
	}
	assert_false(apenet_rmt_allowed(NULL, 0, APENET_REG_ID_MAGIC, 0));
}

/* Snapshot files from before these registers still load, with them 0; a
 * register that was always there is still required. */
static void test_registers_added_later(void **state)
{
	(void)state;
	unsigned added = 0;
	for (int b = 0; b < APENET_BLK_COUNT; b++) {
		unsigned n;
		const struct apenet_regdesc *r = apenet_regdescs((enum apenet_block)b, &n);
		for (unsigned i = 0; i < n; i++)
			added += apenet_reg_added_later(r[i].name);
	}
	assert_int_equal(added, 9); /* RMT_* (7), LINK_LATENCY_PS, LANE_PRBS_RUN_MS */
	assert_false(apenet_reg_added_later("LINK_UP_TS"));

	const char *src = getenv("APENET_SRCDIR");
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/fuzz/snapshot/apenetp-0-0-0.json", src && *src ? src : ".");
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot read %s", path);
	size_t len;
	char *raw = slurp(f, &len);
	fclose(f);
	char *doc = malloc(len + 1); /* slurp does not end it with a NUL */
	assert_non_null(doc);
	memcpy(doc, raw, len);
	doc[len] = 0;
	free(raw);
	assert_null(strstr(doc, "RMT_CTRL")); /* written before the window existed */
	static struct apenet_view v;
	struct apenet_err e = { 0 };
	if (apenet_snapfile_load_string(path, doc, &v, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(v.s1.g.ID_MAGIC, APENET_MAGIC);
	assert_int_equal(v.s1.g.RMT_STATUS, 0);
	assert_int_equal(v.s1.link[0].LINK_LATENCY_PS, 0);
	assert_int_equal(v.s1.link[0].lane[0].LANE_PRBS_RUN_MS, 0);
	/* without LINK_UP_TS (there from the start) it is refused */
	char *p = strstr(doc, "\"LINK_UP_TS\"");
	assert_non_null(p);
	memcpy(p + 1, "LINK_XX_TS", 10);
	assert_int_equal(apenet_snapfile_load_string(path, doc, &v, &e), -1);
	assert_non_null(strstr(e.msg, "LINK_UP_TS missing"));
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_bounds),
		cmocka_unit_test(test_bar_map),
		cmocka_unit_test(test_names_unique),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_field_capacity),
		cmocka_unit_test(test_ldm_layout),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_apenetp),
		cmocka_unit_test(test_rmt_results),
		cmocka_unit_test(test_rmt_policy),
		cmocka_unit_test(test_registers_added_later),
		cmocka_unit_test(test_doc_drift),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
