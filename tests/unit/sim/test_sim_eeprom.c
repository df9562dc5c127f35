/*
 * Tests of the emulator's SFF-8636 module EEPROM image (sim/eeprom.c).
 *
 * Offsets and units below are written from the SFF-8636 spec independently
 * of the encoder, so the two must agree for the tests to pass.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../../sim/eeprom.h"

/* Image offset of byte n of upper page 03h. */
#define PG3(n) (512 + (n) - 128)

static unsigned be16(const uint8_t *img, unsigned off)
{
	return (unsigned)img[off] * 256u + img[off + 1];
}

static double dec_temp(const uint8_t *img, unsigned off)
{
	unsigned v = be16(img, off);
	int s = v >= 32768u ? (int)v - 65536 : (int)v;

	return s / 256.0;
}

static unsigned sum_range(const uint8_t *img, unsigned from, unsigned to)
{
	unsigned s = 0;

	for (unsigned i = from; i <= to; i++)
		s += img[i];
	return s % 256u;
}

static int checksums_ok(const uint8_t *img)
{
	return img[191] == sum_range(img, 128, 190) && img[223] == sum_range(img, 192, 222);
}

static void build(struct sim_module *m, enum sim_module_kind k, unsigned len, uint32_t sn,
		  uint8_t *img)
{
	sim_module_default(m, k, len, sn);
	sim_eeprom_build(m, img);
}

/* Compare a space-padded SFF-8636 field with the expected text. */
static void assert_field(const uint8_t *img, unsigned off, unsigned len, const char *want)
{
	char padded[17];
	size_t n = strlen(want);

	assert_true(len < sizeof(padded));
	assert_true(n <= len);
	memset(padded, ' ', len);
	memcpy(padded, want, n);
	assert_memory_equal(img + off, padded, len);
}

static void test_copper_identity(void **state)
{
	struct sim_module m, m5;
	uint8_t img[APENET_EE_DATA_LEN], img5[APENET_EE_DATA_LEN];

	(void)state;
	build(&m, SIM_MOD_COPPER, 2, 42, img);
	assert_int_equal(m.kind, SIM_MOD_COPPER);
	assert_int_equal(img[0], 0x0d);   /* QSFP+ */
	assert_int_equal(img[128], 0x0d);
	assert_true(img[1] >= 0x03);      /* some SFF-8636 revision */
	assert_int_equal(img[2] & 0x04, 0x04); /* flat memory */
	assert_int_equal(img[130], 0x23); /* no separable connector */
	assert_int_equal(img[131], 0x08); /* 40GBASE-CR4 only */
	assert_int_equal(img[147] >> 4, 0xa); /* copper cable unequalized */
	assert_int_equal(img[146], 2);    /* copper length, 1 m units */
	assert_int_equal(img[140], 103);  /* 10.3 Gbps in 100 Mbps units */
	assert_int_equal(img[127], 0);    /* page select */
	for (unsigned i = 0; i < 4; i++)
		assert_int_equal(img[186 + i], m.atten_db[i]);
	/* Attenuation grows with frequency and with length. */
	for (unsigned i = 1; i < 4; i++)
		assert_true(img[186 + i] > img[186 + i - 1]);
	build(&m5, SIM_MOD_COPPER, 5, 43, img5);
	for (unsigned i = 0; i < 4; i++)
		assert_true(img5[186 + i] > img[186 + i]);
	assert_int_equal(img5[146], 5);
}

static void test_copper_no_dom(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN], before[APENET_EE_DATA_LEN];

	(void)state;
	build(&m, SIM_MOD_COPPER, 3, 7, img);
	assert_int_equal(img[220], 0);   /* no diagnostic monitoring */
	assert_int_equal(img[195] & 0xc0, 0); /* no page 01h/02h */
	for (unsigned i = 3; i <= 81; i++)
		assert_int_equal(img[i], 0); /* no flags, no monitors */
	for (unsigned i = 256; i < APENET_EE_DATA_LEN; i++)
		assert_int_equal(img[i], 0); /* pages 01h-03h */

	/* Monitor updates do not touch a copper cable's image. */
	memcpy(before, img, sizeof(img));
	m.temp_c = 120.0;
	m.rx_power_mw[0] = 5.0;
	sim_eeprom_update_dom(&m, img);
	assert_memory_equal(img, before, sizeof(img));
}

static void test_optical_identity(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];

	(void)state;
	build(&m, SIM_MOD_OPTICAL, 10, 1234, img);
	assert_int_equal(img[0], 0x0d);
	assert_int_equal(img[128], 0x0d);
	assert_int_equal(img[2] & 0x04, 0); /* paged: upper pages present */
	assert_int_equal(img[130], 0x0c);   /* MPO */
	assert_int_equal(img[131], 0x04);   /* 40GBASE-SR4 only */
	assert_int_equal(img[147] >> 4, 0x0); /* 850 nm VCSEL */
	assert_int_equal(img[143] * 2, 10); /* OM3 length, 2 m units */
	assert_int_equal(img[146], 0);
	assert_int_equal(be16(img, 186), 850 * 20); /* wavelength in 0.05 nm */
	/* DOM: temperature, Vcc, average Rx power, Tx power */
	assert_int_equal(img[220] & 0x3c, 0x3c);

	build(&m, SIM_MOD_OPTICAL, 11, 1234, img);
	assert_int_equal(img[143], 6);      /* rounded up, never shorter */
}

static void test_strings(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];
	char want[17];

	(void)state;
	for (int k = SIM_MOD_COPPER; k <= SIM_MOD_OPTICAL; k++) {
		build(&m, (enum sim_module_kind)k, 3, 4321, img);
		assert_true(strlen(m.vendor) > 0 && strlen(m.vendor) <= 16);
		assert_true(strlen(m.part) > 0);
		assert_int_equal(strlen(m.rev), 2);
		assert_int_equal(strlen(m.date), 8);
		assert_non_null(strstr(m.serial, "4321"));
		assert_field(img, 148, 16, m.vendor);
		assert_memory_equal(img + 165, m.oui, 3);
		assert_field(img, 168, 16, m.part);
		assert_field(img, 184, 2, m.rev);
		assert_field(img, 196, 16, m.serial);
		assert_field(img, 212, 8, m.date);
	}

	/* A caller's own identity lands verbatim, padded with spaces. */
	sim_module_default(&m, SIM_MOD_COPPER, 1, 1);
	snprintf(m.vendor, sizeof(m.vendor), "%s", "X");
	snprintf(m.serial, sizeof(m.serial), "%s", "SN-0123456789ABC");
	sim_eeprom_build(&m, img);
	assert_field(img, 148, 16, "X");
	snprintf(want, sizeof(want), "%s", "SN-0123456789ABC");
	assert_field(img, 196, 16, want);
	assert_true(checksums_ok(img));

	/* Serial numbers differ between modules. */
	sim_module_default(&m, SIM_MOD_OPTICAL, 1, 1);
	snprintf(want, sizeof(want), "%s", m.serial);
	sim_module_default(&m, SIM_MOD_OPTICAL, 1, 2);
	assert_string_not_equal(want, m.serial);
}

static void test_checksums(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];

	(void)state;
	for (int k = SIM_MOD_COPPER; k <= SIM_MOD_OPTICAL; k++) {
		build(&m, (enum sim_module_kind)k, 4, 99, img);
		assert_int_equal(img[191], sum_range(img, 128, 190));
		assert_int_equal(img[223], sum_range(img, 192, 222));

		img[150] ^= 0x01; /* inside the base range */
		assert_int_not_equal(img[191], sum_range(img, 128, 190));
		assert_int_equal(img[223], sum_range(img, 192, 222));
		img[150] ^= 0x01;

		img[200] ^= 0x10; /* inside the extended range */
		assert_int_equal(img[191], sum_range(img, 128, 190));
		assert_int_not_equal(img[223], sum_range(img, 192, 222));
		img[200] ^= 0x10;

		img[191]++;
		assert_false(checksums_ok(img));
	}
}

static void test_dom_roundtrip(void **state)
{
	static const double temps[] = { 35.0, -3.5, 47.25, 0.0, -40.0, 100.125 };
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];

	(void)state;
	sim_module_default(&m, SIM_MOD_OPTICAL, 10, 5);
	for (unsigned t = 0; t < sizeof(temps) / sizeof(temps[0]); t++) {
		m.temp_c = temps[t];
		m.vcc_v = 3.2 + 0.017 * t;
		for (unsigned l = 0; l < 4; l++) {
			m.rx_power_mw[l] = 0.3 + 0.11 * l + 0.05 * t;
			m.tx_bias_ma[l] = 5.0 + 0.77 * l + 0.3 * t;
			m.tx_power_mw[l] = 0.5 + 0.09 * l + 0.02 * t;
		}
		sim_eeprom_build(&m, img);
		assert_true(fabs(dec_temp(img, 22) - m.temp_c) <= 0.5 / 256 + 1e-9);
		assert_true(fabs(be16(img, 26) * 1e-4 - m.vcc_v) <= 0.5e-4 + 1e-9);
		for (unsigned l = 0; l < 4; l++) {
			double rx = be16(img, 34 + 2 * l) * 1e-4;  /* 0.1 uW -> mW */
			double bias = be16(img, 42 + 2 * l) * 0.002; /* 2 uA -> mA */
			double tx = be16(img, 50 + 2 * l) * 1e-4;

			assert_true(fabs(rx - m.rx_power_mw[l]) <= 0.5e-4 + 1e-9);
			assert_true(fabs(bias - m.tx_bias_ma[l]) <= 0.001 + 1e-9);
			assert_true(fabs(tx - m.tx_power_mw[l]) <= 0.5e-4 + 1e-9);
		}
		assert_true(checksums_ok(img));
	}

	/* Out-of-range values saturate instead of wrapping. */
	m.temp_c = 500.0;
	m.rx_power_mw[0] = 100.0;
	m.tx_bias_ma[1] = -1.0;
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(be16(img, 22), 0x7fff);
	assert_int_equal(be16(img, 34), 0xffff);
	assert_int_equal(be16(img, 44), 0);
}

struct thr {
	double ha, la, hw, lw;
};

static struct thr thr_unsigned(const uint8_t *img, unsigned n, double unit)
{
	struct thr t = { be16(img, PG3(n)) * unit, be16(img, PG3(n + 2)) * unit,
			 be16(img, PG3(n + 4)) * unit, be16(img, PG3(n + 6)) * unit };

	return t;
}

static void assert_nested(struct thr t)
{
	assert_true(t.la < t.lw);
	assert_true(t.lw < t.hw);
	assert_true(t.hw < t.ha);
}

static void test_thresholds_and_nominal(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];
	struct thr temp;

	(void)state;
	build(&m, SIM_MOD_OPTICAL, 10, 3, img);
	temp.ha = dec_temp(img, PG3(128));
	temp.la = dec_temp(img, PG3(130));
	temp.hw = dec_temp(img, PG3(132));
	temp.lw = dec_temp(img, PG3(134));
	assert_nested(temp);
	assert_nested(thr_unsigned(img, 144, 1e-4));  /* Vcc, V */
	assert_nested(thr_unsigned(img, 176, 1e-4));  /* Rx power, mW */
	assert_nested(thr_unsigned(img, 184, 0.002)); /* Tx bias, mA */
	assert_nested(thr_unsigned(img, 192, 1e-4));  /* Tx power, mW */
	assert_true(temp.lw < m.temp_c && m.temp_c < temp.hw);

	/* Nominal readings raise no flag and leave IntL deasserted. */
	for (unsigned i = 3; i <= 14; i++)
		assert_int_equal(img[i] & (i == 6 || i == 7 ? 0xf0 : 0xff), 0);
	assert_int_equal(img[2] & 0x02, 0x02);
	/* Pages 01h and 02h stay empty. */
	for (unsigned i = 256; i < 512; i++)
		assert_int_equal(img[i], 0);
}

static void test_temperature_flags(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];
	uint8_t cc_base, cc_ext;
	double ha, la, hw, lw;

	(void)state;
	build(&m, SIM_MOD_OPTICAL, 10, 3, img);
	cc_base = img[191];
	cc_ext = img[223];
	ha = dec_temp(img, PG3(128));
	la = dec_temp(img, PG3(130));
	hw = dec_temp(img, PG3(132));
	lw = dec_temp(img, PG3(134));

	m.temp_c = (hw + ha) / 2; /* warning, no alarm */
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[6] & 0xf0, 0x20);
	assert_int_equal(img[2] & 0x02, 0); /* IntL asserted */

	m.temp_c = ha + 1.0; /* overheating: alarm and warning */
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[6] & 0xf0, 0xa0);
	assert_true(fabs(dec_temp(img, 22) - m.temp_c) < 0.01);

	m.temp_c = ha; /* at the threshold is not above it */
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[6] & 0xf0, 0x20);

	m.temp_c = (la + lw) / 2; /* cold: low warning only */
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[6] & 0xf0, 0x10);

	m.temp_c = la - 2.0; /* below the low alarm */
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[6] & 0xf0, 0x50);

	m.temp_c = 35.0; /* back to normal clears the flags */
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[6] & 0xf0, 0);
	assert_int_equal(img[2] & 0x02, 0x02);

	/* Only the lower page moved: the check codes still hold. */
	assert_int_equal(img[191], cc_base);
	assert_int_equal(img[223], cc_ext);
	assert_true(checksums_ok(img));
}

static void test_lane_and_vcc_flags(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];
	struct thr vcc, rx, bias, tx;

	(void)state;
	build(&m, SIM_MOD_OPTICAL, 10, 3, img);
	vcc = thr_unsigned(img, 144, 1e-4);
	rx = thr_unsigned(img, 176, 1e-4);
	bias = thr_unsigned(img, 184, 0.002);
	tx = thr_unsigned(img, 192, 1e-4);

	m.vcc_v = (vcc.la + vcc.lw) / 2;                 /* Vcc low warning */
	m.rx_power_mw[2] = rx.la / 2;                    /* lane 3 low alarm */
	m.rx_power_mw[0] = (rx.hw + rx.ha) / 2;          /* lane 1 high warning */
	m.tx_bias_ma[1] = bias.ha + 1.0;                 /* lane 2 high alarm */
	m.tx_power_mw[3] = (tx.hw + tx.ha) / 2;          /* lane 4 high warning */
	sim_eeprom_update_dom(&m, img);

	assert_int_equal(img[7] & 0xf0, 0x10);
	assert_int_equal(img[9], 0x20);  /* Rx1 high warning (bits 7-4), Rx2 clear */
	assert_int_equal(img[10], 0x50); /* Rx3 low alarm + low warning, Rx4 clear */
	assert_int_equal(img[11], 0x0a); /* bias 2 high alarm + high warning */
	assert_int_equal(img[12], 0x00);
	assert_int_equal(img[13], 0x00);
	assert_int_equal(img[14], 0x02); /* Tx power 4 high warning */
	assert_int_equal(img[6] & 0xf0, 0);
	assert_int_equal(img[2] & 0x02, 0);

	/* A dark lane: far below the low alarm, it also reports Rx LOS (lane 1 = bit 0). */
	assert_int_equal(img[3], 0);
	m.rx_power_mw[1] = 0.0;
	sim_eeprom_update_dom(&m, img);
	assert_int_equal(img[3], 0x02);
	assert_int_equal(img[9] & 0x0f, 0x05);
}

static void test_empty_cage(void **state)
{
	struct sim_module m;
	uint8_t img[APENET_EE_DATA_LEN];

	(void)state;
	memset(img, 0xa5, sizeof(img));
	build(&m, SIM_MOD_NONE, 0, 0, img);
	assert_int_equal(m.kind, SIM_MOD_NONE);
	for (unsigned i = 0; i < APENET_EE_DATA_LEN; i++)
		assert_int_equal(img[i], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copper_identity),
		cmocka_unit_test(test_copper_no_dom),
		cmocka_unit_test(test_optical_identity),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_dom_roundtrip),
		cmocka_unit_test(test_thresholds_and_nominal),
		cmocka_unit_test(test_temperature_flags),
		cmocka_unit_test(test_lane_and_vcc_flags),
		cmocka_unit_test(test_empty_cage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
