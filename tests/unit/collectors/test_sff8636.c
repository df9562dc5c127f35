/*
 * Tests of the SFF-8636 decoder (collectors/sff8636*.c): against images the
 * emulator builds (the two were written independently, so they must agree
 * on every offset and unit), against a page written here byte by byte in
 * the style of a real 40GBASE-SR4 module, and against damage and garbage.
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
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/module.h"
#include "apenet/rules_module.h"
#include "apenet/sff8636.h"

#include "../../../sim/eeprom.h"

#define IMG 640

/* Encoding steps: the decoder must be within half a step of the truth. */
#define STEP_TEMP (1.0 / 256.0)
#define STEP_VCC 0.0001
#define STEP_PWR 0.0001
#define STEP_BIAS 0.002
#define HALF(step) ((step) / 2.0 + 1e-9)

static void build(struct sim_module *sm, enum sim_module_kind k, unsigned len, uint32_t sn,
		  uint8_t *img)
{
	sim_module_default(sm, k, len, sn);
	sim_eeprom_build(sm, img);
}

static void decode_ok(const uint8_t *img, size_t len, struct apenet_sff8636 *m)
{
	char err[256] = "";
	int rc = apenet_sff8636_decode(img, len, m, err, sizeof(err));

	if (rc != 0)
		fail_msg("decode failed: %s", err);
}

static void decode_fails(const uint8_t *img, size_t len, const char *want)
{
	struct apenet_sff8636 m;
	char err[256] = "";

	assert_int_equal(apenet_sff8636_decode(img, len, &m, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

/*
 * The module judge's conditions (all but check codes) on a decoded module:
 * their count, and their messages "; "-joined into sum (may be NULL).
 */
static int judge_codes(const struct apenet_sff8636 *m, char *sum, size_t n, char *codes, size_t cn)
{
	struct apenet_module_health h;
	struct apenet_findings fs;
	int c;
	size_t used = 0, cused = 0;

	apenet_sff8636_health(m, &h);
	apenet_findings_init(&fs);
	c = apenet_rules_module(&h, 0, "X+", &fs);
	if (sum)
		sum[0] = '\0';
	if (codes)
		codes[0] = '\0';
	for (size_t i = 0; i < fs.n; i++) {
		if (!strcmp(fs.f[i].code, "MODULE_CHECKSUM"))
			continue;
		if (sum)
			used += (size_t)snprintf(sum + used, used < n ? n - used : 0, "%s%s", used ? "; " : "",
						 fs.f[i].message);
		if (codes)
			cused += (size_t)snprintf(codes + cused, cused < cn ? cn - cused : 0, "%s%s", cused ? " " : "",
						  fs.f[i].code);
	}
	assert_true(!sum || used < n);
	assert_true(!codes || cused < cn);
	assert_int_equal(fs.lost, 0);
	{
		/* What it returns (`apenet module`'s alarm_count) is one per finding, check codes not counted. */
		int conditions = 0;

		for (size_t i = 0; i < fs.n; i++)
			conditions += strcmp(fs.f[i].code, "MODULE_CHECKSUM") != 0;
		assert_int_equal(c, conditions);
	}
	apenet_findings_free(&fs);
	return c;
}

static int judge(const struct apenet_sff8636 *m, char *sum, size_t n)
{
	return judge_codes(m, sum, n, NULL, 0);
}

static unsigned sum_range(const uint8_t *b, unsigned from, unsigned to)
{
	unsigned s = 0;

	for (unsigned i = from; i <= to; i++)
		s += b[i];
	return s & 0xffu;
}

/* ---- emulator images ---- */

static void check_vendor(const struct apenet_sff8636 *m, const struct sim_module *sm)
{
	char lot[3];

	assert_string_equal(m->vendor, sm->vendor);
	assert_string_equal(m->part, sm->part);
	assert_string_equal(m->vendor_rev, sm->rev);
	assert_string_equal(m->serial, sm->serial);
	assert_memory_equal(m->oui, sm->oui, 3);
	assert_string_equal(m->date_code, sm->date);
	/* sim date is YYMMDDLL */
	assert_int_equal(strlen(m->date), 10);
	assert_memory_equal(m->date, "20", 2);
	assert_memory_equal(m->date + 2, sm->date, 2);
	assert_memory_equal(m->date + 5, sm->date + 2, 2);
	assert_memory_equal(m->date + 8, sm->date + 4, 2);
	memcpy(lot, sm->date + 6, 2);
	lot[2] = '\0';
	assert_string_equal(m->lot, lot);
}

static void test_sim_copper(void **state)
{
	(void)state;
	for (unsigned len = 1; len <= 10; len++) {
		struct sim_module sm;
		struct apenet_sff8636 m, m256;
		uint8_t img[IMG];

		build(&sm, SIM_MOD_COPPER, len, 1000 + len, img);
		decode_ok(img, IMG, &m);
		assert_int_equal(m.len, 640);
		assert_int_equal(m.id, 0x0d);
		assert_string_equal(m.id_name, "QSFP+");
		assert_int_equal(m.id_upper, 0x0d);
		assert_int_equal(m.connector, 0x23);
		assert_string_equal(m.connector_name, "No separable connector");
		assert_string_equal(m.eth_names, "40GBASE-CR4");
		assert_string_equal(m.media, "40GBASE-CR4");
		assert_string_equal(m.encoding_name, "64B/66B");
		assert_true(fabs(m.br_nominal_mbps - sm.nominal_gbps * 1000.0) <= 50.0);
		assert_false(m.br_extended);
		assert_int_equal(m.len_copper_m, sm.length_m);
		assert_true(m.copper);
		assert_string_equal(m.tx_tech_name, "Copper cable unequalized");
		assert_memory_equal(m.atten_db, sm.atten_db, 4);
		assert_true(m.flat_mem);
		assert_false(m.dom_present);
		assert_false(m.thresh_present);
		assert_true(m.cc_base_ok);
		assert_true(m.cc_ext_ok);
		assert_int_equal(m.max_case_temp_c, 70);
		check_vendor(&m, &sm);
		assert_int_equal(judge(&m, NULL, 0), 0);

		/* What ethtool writes for a flat module: the same answer from 256 bytes. */
		decode_ok(img, 256, &m256);
		assert_int_equal(m256.len, 256);
		assert_string_equal(m256.serial, m.serial);
		assert_memory_equal(m256.atten_db, m.atten_db, 4);
		assert_true(m256.cc_base_ok && m256.cc_ext_ok);
	}
}

static void check_dom(const struct apenet_sff8636 *m, const struct sim_module *sm)
{
	assert_true(m->dom_present);
	assert_true(fabs(m->temp_c - sm->temp_c) <= HALF(STEP_TEMP));
	assert_true(fabs(m->vcc_v - sm->vcc_v) <= HALF(STEP_VCC));
	for (int i = 0; i < 4; i++) {
		assert_true(fabs(m->rx_power_mw[i] - sm->rx_power_mw[i]) <= HALF(STEP_PWR));
		assert_true(fabs(m->tx_bias_ma[i] - sm->tx_bias_ma[i]) <= HALF(STEP_BIAS));
		assert_true(fabs(m->tx_power_mw[i] - sm->tx_power_mw[i]) <= HALF(STEP_PWR));
		if (sm->rx_power_mw[i] > 0.001)
			assert_true(fabs(m->rx_power_dbm[i] - 10.0 * log10(sm->rx_power_mw[i])) <
				    0.01);
		if (sm->tx_power_mw[i] > 0.001)
			assert_true(fabs(m->tx_power_dbm[i] - 10.0 * log10(sm->tx_power_mw[i])) <
				    0.01);
	}
}

static void check_th(const struct apenet_sff8636_thresh *t, double ha, double la, double hw,
		     double lw, double step)
{
	assert_true(fabs(t->high_alarm - ha) <= HALF(step));
	assert_true(fabs(t->low_alarm - la) <= HALF(step));
	assert_true(fabs(t->high_warn - hw) <= HALF(step));
	assert_true(fabs(t->low_warn - lw) <= HALF(step));
	assert_true(t->low_alarm < t->low_warn && t->low_warn < t->high_warn &&
		    t->high_warn < t->high_alarm);
}

static void test_sim_optical(void **state)
{
	(void)state;
	for (unsigned len = 1; len <= 120; len += 7) {
		struct sim_module sm;
		struct apenet_sff8636 m;
		uint8_t img[IMG];
		char sum[256];

		build(&sm, SIM_MOD_OPTICAL, len, 4242 + len, img);
		decode_ok(img, IMG, &m);
		assert_int_equal(m.id, 0x0d);
		assert_string_equal(m.connector_name, "MPO 1x12");
		assert_string_equal(m.eth_names, "40GBASE-SR4");
		assert_string_equal(m.media, "40GBASE-SR4");
		assert_false(m.copper);
		assert_string_equal(m.tx_tech_name, "850 nm VCSEL");
		/* OM3 length is in 2 m units: rounded up to even. */
		assert_true(m.len_om3_m >= sm.length_m && m.len_om3_m - sm.length_m <= 1);
		assert_true(fabs(m.wavelength_nm - 850.0) < 0.05);
		assert_true(fabs(m.wavelength_tol_nm - 10.0) < 0.005);
		assert_false(m.flat_mem);
		assert_int_equal(m.power_class, 2);
		assert_true(fabs(m.max_power_w - 2.0) < 1e-9);
		assert_true(m.rx_power_avg);
		assert_true(m.tx_power_supported);
		assert_true(m.temp_monitored && m.vcc_monitored);
		assert_true(m.cc_base_ok && m.cc_ext_ok);
		check_vendor(&m, &sm);
		check_dom(&m, &sm);

		/* sim/eeprom.c's datasheet thresholds (page 03h). */
		assert_true(m.thresh_present);
		check_th(&m.th_temp, 75.0, -5.0, 70.0, 0.0, STEP_TEMP);
		check_th(&m.th_vcc, 3.63, 2.97, 3.465, 3.135, STEP_VCC);
		check_th(&m.th_rx_power, 2.19, 0.046, 1.74, 0.115, STEP_PWR);
		check_th(&m.th_tx_bias, 12.0, 2.0, 10.0, 3.0, STEP_BIAS);
		check_th(&m.th_tx_power, 2.19, 0.10, 1.74, 0.20, STEP_PWR);

		/* Nominal module: nothing flagged, nothing crossed. */
		assert_int_equal(m.temp_flags | m.vcc_flags | m.rx_los | m.tx_los, 0);
		assert_false(m.intl_asserted);
		assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
		assert_string_equal(sum, "");
	}
}

/* DOM moves: the decoder follows every re-encode. */
static void test_sim_dom_sweep(void **state)
{
	struct sim_module sm;
	struct apenet_sff8636 m;
	uint8_t img[IMG];

	(void)state;
	build(&sm, SIM_MOD_OPTICAL, 30, 77, img);
	for (int k = 0; k < 50; k++) {
		sm.temp_c = -20.0 + k * 1.7;
		sm.vcc_v = 3.0 + k * 0.011;
		for (int i = 0; i < 4; i++) {
			sm.rx_power_mw[i] = 0.05 + 0.037 * k + 0.01 * i;
			sm.tx_bias_ma[i] = 2.5 + 0.2 * k - 0.1 * i;
			sm.tx_power_mw[i] = 0.12 + 0.03 * k + 0.02 * i;
		}
		sim_eeprom_update_dom(&sm, img);
		decode_ok(img, IMG, &m);
		check_dom(&m, &sm);
		assert_true(m.cc_base_ok && m.cc_ext_ok);
		/* The emulator's flags and the decoder's threshold comparison agree. */
		assert_int_equal(!!(m.temp_flags & APENET_SFF8636_HIGH_ALARM),
				 m.temp_c > m.th_temp.high_alarm);
		assert_int_equal(!!(m.temp_flags & APENET_SFF8636_LOW_ALARM),
				 m.temp_c < m.th_temp.low_alarm);
		for (int i = 0; i < 4; i++) {
			assert_int_equal(!!(m.rx_power_flags[i] & APENET_SFF8636_LOW_WARN),
					 m.rx_power_mw[i] < m.th_rx_power.low_warn);
			assert_int_equal(!!(m.tx_bias_flags[i] & APENET_SFF8636_HIGH_WARN),
					 m.tx_bias_ma[i] > m.th_tx_bias.high_warn);
		}
	}
}

static void test_sim_over_temperature(void **state)
{
	struct sim_module sm;
	struct apenet_sff8636 m;
	uint8_t img[IMG];
	char sum[512];
	int n;

	(void)state;
	build(&sm, SIM_MOD_OPTICAL, 10, 5, img);
	sm.temp_c = 78.1;
	sm.rx_power_mw[1] = 0.09;
	sim_eeprom_update_dom(&sm, img);
	decode_ok(img, IMG, &m);
	assert_true(fabs(m.temp_c - 78.1) <= HALF(STEP_TEMP));
	assert_int_equal(m.temp_flags, APENET_SFF8636_HIGH_ALARM | APENET_SFF8636_HIGH_WARN);
	assert_int_equal(m.vcc_flags, 0);
	assert_int_equal(m.rx_power_flags[0], 0);
	assert_int_equal(m.rx_power_flags[1], APENET_SFF8636_LOW_WARN);
	assert_int_equal(m.rx_power_flags[2] | m.rx_power_flags[3], 0);
	assert_int_equal(m.rx_los, 0);
	assert_true(m.intl_asserted);
	n = judge(&m, sum, sizeof(sum));
	assert_int_equal(n, 2);
	assert_string_equal(sum, "temperature high alarm: 78.1 C above the 75.0 C threshold; "
				 "lane 2 RX power low warning: 0.0900 mW below the 0.1150 mW threshold");
	assert_int_equal(judge(&m, NULL, 0), 2);

	/* Cold, low Vcc, a dark lane (LOS + low alarm), a hot laser. */
	sm.temp_c = -10.0;
	sm.vcc_v = 3.0;
	sm.rx_power_mw[1] = 0.631;
	sm.rx_power_mw[2] = 0.005;
	sm.tx_bias_ma[3] = 11.0;
	sim_eeprom_update_dom(&sm, img);
	decode_ok(img, IMG, &m);
	assert_int_equal(m.temp_flags, APENET_SFF8636_LOW_ALARM | APENET_SFF8636_LOW_WARN);
	assert_int_equal(m.vcc_flags, APENET_SFF8636_LOW_WARN);
	assert_int_equal(m.rx_los, 1u << 2);
	assert_int_equal(m.tx_bias_flags[3], APENET_SFF8636_HIGH_WARN);
	n = judge(&m, sum, sizeof(sum));
	assert_int_equal(n, 5);
	assert_string_equal(sum, "lane 3 RX loss of signal; "
				 "temperature low alarm: -10.0 C below the -5.0 C threshold; "
				 "Vcc low warning: 3.000 V below the 3.135 V threshold; "
				 "lane 3 RX power low alarm: 0.0050 mW below the 0.0460 mW threshold; "
				 "lane 4 TX bias high warning: 11.00 mA above the 10.00 mA threshold");
}

/* Flags and thresholds are two sources: each alone makes a condition. */
static void test_alarm_sources(void **state)
{
	struct sim_module sm;
	struct apenet_sff8636 m;
	uint8_t img[IMG];
	char sum[256];

	(void)state;
	build(&sm, SIM_MOD_OPTICAL, 10, 9, img);

	/* Latched flag, value back to normal. */
	img[6] |= 0x80;
	decode_ok(img, IMG, &m);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 1);
	assert_string_equal(sum, "temperature high alarm flagged by the module (now 35.0 C, threshold 75.0 C)");

	/* Over the threshold, flag not (yet) set. */
	sm.temp_c = 71.0;
	sim_eeprom_update_dom(&sm, img);
	img[6] &= 0x0f;
	decode_ok(img, IMG, &m);
	assert_int_equal(m.temp_flags, 0);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 1);
	assert_string_equal(sum, "temperature high warning: 71.0 C above the 70.0 C threshold");

	/* At a threshold is not over it (the spec flags values beyond it). */
	sm.temp_c = 70.0;
	sim_eeprom_update_dom(&sm, img);
	decode_ok(img, IMG, &m);
	assert_true(m.temp_c == m.th_temp.high_warn);
	assert_int_equal(m.temp_flags, 0);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);

	sm.temp_c = 35.0;
	sm.vcc_v = 3.135;
	sim_eeprom_update_dom(&sm, img);
	decode_ok(img, IMG, &m);
	assert_true(m.vcc_v == m.th_vcc.low_warn);
	assert_int_equal(m.vcc_flags, 0);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
	sm.vcc_v = 3.3;

	/* No page 03h (256 bytes): the flag alone speaks. */
	sm.temp_c = 80.0;
	sim_eeprom_update_dom(&sm, img);
	decode_ok(img, 256, &m);
	assert_false(m.thresh_present);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 1);
	assert_string_equal(sum, "temperature high alarm flagged by the module (now 80.0 C, no thresholds to compare)");

	/* A blank page 03h is no thresholds, not thresholds of zero. */
	sm.temp_c = 35.0;
	sim_eeprom_update_dom(&sm, img);
	memset(img + 512, 0, 128);
	decode_ok(img, IMG, &m);
	assert_false(m.thresh_present);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
}

static void test_sim_extended_rate(void **state)
{
	struct sim_module sm;
	struct apenet_sff8636 m;
	uint8_t img[IMG];

	(void)state;
	sim_module_default(&sm, SIM_MOD_OPTICAL, 20, 3);
	sm.nominal_gbps = 25.78;
	sim_eeprom_build(&sm, img);
	decode_ok(img, IMG, &m);
	assert_true(m.br_extended);
	assert_true(fabs(m.br_nominal_mbps - sm.nominal_gbps * 1000.0) <= 125.0);
	assert_int_equal(m.br_nominal_mbps % 250, 0);
	assert_true(m.cc_base_ok && m.cc_ext_ok);
}

/* ---- a real-world style 40GBASE-SR4 module, written here byte by byte ---- */

static void put_ascii(uint8_t *p, unsigned off, unsigned width, const char *s, uint8_t pad)
{
	size_t n = strlen(s);

	memset(p + off, pad, width);
	memcpy(p + off, s, n);
}

/*
 * An SFF-8436-era QSFP+ SR4 (revision byte 0x02, byte 220 only says "Rx
 * power is average"), as read by `ethtool -m raw on` without page 03h.
 */
static void real_sr4(uint8_t p[256])
{
	memset(p, 0, 256);
	p[0] = 0x0d;            /* QSFP+ */
	p[1] = 0x02;            /* SFF-8436 rev 4.8 or earlier, byte 1 and 186-189 as SFF-8636 */
	p[2] = 0x02;            /* paged, IntL deasserted, data ready */
	p[3] = 0x04;            /* Rx LOS lane 3 */
	p[22] = 0x1e;           /* 30.5 C */
	p[23] = 0x80;
	p[26] = 0x80;           /* 33000 x 100 uV = 3.3 V */
	p[27] = 0xe8;
	p[34] = 0x1a; p[35] = 0x2c; /* Rx 1: 6700 -> 0.67 mW */
	p[36] = 0x18; p[37] = 0x6a; /* Rx 2: 6250 -> 0.625 mW */
	p[38] = 0x00; p[39] = 0x00; /* Rx 3: dark */
	p[40] = 0x19; p[41] = 0x64; /* Rx 4: 6500 -> 0.65 mW */
	p[42] = 0x0f; p[43] = 0xa0; /* bias 1: 4000 x 2 uA = 8.0 mA */
	p[44] = 0x0e; p[45] = 0x10; /* 3600 -> 7.2 mA */
	p[46] = 0x10; p[47] = 0x04; /* 4100 -> 8.2 mA */
	p[48] = 0x0f; p[49] = 0x00; /* 3840 -> 7.68 mA */
	p[128] = 0x0d;
	p[129] = 0x00;          /* power class 1 */
	p[130] = 0x0c;          /* MPO 1x12 */
	p[131] = 0x04;          /* 40GBASE-SR4 */
	p[139] = 0x05;          /* 64B/66B */
	p[140] = 0x67;          /* 103 x 100 Mbps */
	p[143] = 0x32;          /* OM3: 50 x 2 m */
	p[146] = 0x4b;          /* OM4: 75 x 2 m */
	p[147] = 0x00;          /* 850 nm VCSEL */
	put_ascii(p, 148, 16, "AVAGO", ' ');
	p[165] = 0x00;
	p[166] = 0x17;
	p[167] = 0x6a;
	put_ascii(p, 168, 16, "AFBR-79EQDZ", '\0'); /* NUL-padded, as some vendors do */
	put_ascii(p, 184, 2, "01", ' ');
	p[186] = 0x42;          /* 17000 x 0.05 nm = 850 nm */
	p[187] = 0x68;
	p[188] = 0x07;          /* 2000 x 0.005 nm = 10 nm */
	p[189] = 0xd0;
	p[190] = 0x46;          /* 70 C */
	p[191] = (uint8_t)sum_range(p, 128, 190);
	p[193] = 0x03;
	p[194] = 0xff;
	p[195] = 0xde;
	put_ascii(p, 196, 16, "QD4011XZ", ' ');
	put_ascii(p, 212, 8, "140405", ' '); /* no lot */
	p[220] = 0x08;          /* Rx power is average power */
	p[223] = (uint8_t)sum_range(p, 192, 222);
}

static void test_real_sr4(void **state)
{
	struct apenet_sff8636 m;
	uint8_t p[256];
	char sum[128];

	(void)state;
	real_sr4(p);
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(m.len, 256);
	assert_string_equal(m.id_name, "QSFP+");
	assert_string_equal(m.rev_name, "SFF-8436 rev 4.8 or earlier (except bytes 186-189)");
	assert_string_equal(m.connector_name, "MPO 1x12");
	assert_string_equal(m.eth_names, "40GBASE-SR4");
	assert_string_equal(m.media, "40GBASE-SR4");
	assert_string_equal(m.encoding_name, "64B/66B");
	assert_int_equal(m.br_nominal_mbps, 10300);
	assert_int_equal(m.len_om3_m, 100);
	assert_int_equal(m.len_om4_m, 150);
	assert_int_equal(m.len_smf_km, 0);
	assert_string_equal(m.tx_tech_name, "850 nm VCSEL");
	assert_false(m.copper);
	assert_string_equal(m.vendor, "AVAGO");
	assert_int_equal(m.oui[0], 0x00);
	assert_int_equal(m.oui[1], 0x17);
	assert_int_equal(m.oui[2], 0x6a);
	assert_string_equal(m.part, "AFBR-79EQDZ");
	assert_string_equal(m.vendor_rev, "01");
	assert_string_equal(m.serial, "QD4011XZ");
	assert_string_equal(m.date_code, "140405");
	assert_string_equal(m.date, "2014-04-05");
	assert_string_equal(m.lot, "");
	assert_true(fabs(m.wavelength_nm - 850.0) < 1e-9);
	assert_true(fabs(m.wavelength_tol_nm - 10.0) < 1e-9);
	assert_int_equal(m.max_case_temp_c, 70);
	assert_int_equal(m.power_class, 1);
	assert_true(fabs(m.max_power_w - 1.5) < 1e-9);
	assert_false(m.flat_mem);
	assert_false(m.intl_asserted);
	assert_true(m.cc_base_ok && m.cc_ext_ok);

	/* Pre-SFF-8636 module: DOM without byte 220 saying so. */
	assert_true(m.dom_present);
	assert_true(m.rx_power_avg);
	assert_false(m.tx_power_supported);
	assert_true(fabs(m.temp_c - 30.5) < 1e-9);
	assert_true(fabs(m.vcc_v - 3.3) < 1e-9);
	assert_true(fabs(m.rx_power_mw[0] - 0.67) < 1e-9);
	assert_true(fabs(m.rx_power_mw[1] - 0.625) < 1e-9);
	assert_true(fabs(m.rx_power_dbm[0] - 10.0 * log10(0.67)) < 1e-9);
	assert_true(m.rx_power_mw[2] == 0.0);
	assert_true(m.rx_power_dbm[2] == -40.0);
	assert_true(fabs(m.tx_bias_ma[0] - 8.0) < 1e-9);
	assert_true(fabs(m.tx_bias_ma[3] - 7.68) < 1e-9);
	assert_false(m.thresh_present);
	assert_int_equal(m.rx_los, 0x04);
	assert_int_equal(m.tx_los, 0);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 1);
	assert_string_equal(sum, "lane 3 RX loss of signal");

	/* Same module as a QSFP28 pointing at the extended code. */
	p[0] = p[128] = 0x11;
	p[131] = 0x80;
	p[192] = 0x02;
	p[129] = 0xc1;
	decode_ok(p, sizeof(p), &m);
	assert_string_equal(m.id_name, "QSFP28");
	/* The compliance is the extended code's, not "none". */
	assert_string_equal(m.eth_names, "100GBASE-SR4 or 25GBASE-SR");
	assert_string_equal(m.media, "100GBASE-SR4 or 25GBASE-SR");
	assert_int_equal(m.power_class, 5);
	assert_true(fabs(m.max_power_w - 4.0) < 1e-9);
	assert_false(m.cc_base_ok);
	assert_false(m.cc_ext_ok);

	/* Copper reading of bytes 186-189. */
	real_sr4(p);
	p[147] = 0xb0;
	p[186] = 4; p[187] = 6; p[188] = 7; p[189] = 10;
	decode_ok(p, sizeof(p), &m);
	assert_true(m.copper);
	assert_string_equal(m.tx_tech_name, "Copper cable passive equalized");
	assert_int_equal(m.atten_db[0], 4);
	assert_int_equal(m.atten_db[3], 10);
	assert_true(m.wavelength_nm == 0.0);
}

/* The same page with one thing changed at a time. */
static void test_real_sr4_variants(void **state)
{
	static const struct {
		uint8_t ext_id;
		unsigned cls;
		double watts;
	} classes[] = {
		{ 0x00, 1, 1.5 }, { 0x40, 2, 2.0 }, { 0x80, 3, 2.5 }, { 0xc0, 4, 3.5 },
		{ 0xc1, 5, 4.0 }, { 0x02, 6, 4.5 }, { 0xc3, 7, 5.0 }, { 0xe0, 8, 0.0 },
	};
	static const struct {
		const char *code, *date, *lot;
	} dates[] = {
		{ "14040501", "2014-04-05", "01" }, { "14000501", "", "01" },
		{ "14130501", "", "01" },           { "14040001", "", "01" },
		{ "14043201", "", "01" },           { "1404 5AB", "", "AB" },
	};
	struct apenet_sff8636 m;
	uint8_t p[256];

	(void)state;
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		real_sr4(p);
		p[129] = classes[i].ext_id;
		decode_ok(p, sizeof(p), &m);
		assert_int_equal(m.power_class, classes[i].cls);
		assert_true(fabs(m.max_power_w - classes[i].watts) < 1e-9);
	}
	for (size_t i = 0; i < sizeof(dates) / sizeof(dates[0]); i++) {
		real_sr4(p);
		memcpy(p + 212, dates[i].code, 8);
		decode_ok(p, sizeof(p), &m);
		assert_string_equal(m.date_code, dates[i].code);
		assert_string_equal(m.date, dates[i].date);
		assert_string_equal(m.lot, dates[i].lot);
	}

	/* Every lane status flag of bytes 3-5, in its place. */
	real_sr4(p);
	p[3] |= 0x10;           /* Tx LOS lane 1 */
	p[4] = 0x02;            /* Tx fault lane 2 */
	p[5] = 0x18;            /* Tx CDR LOL lane 1, Rx CDR LOL lane 4 */
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(m.tx_los, 0x01);
	assert_int_equal(m.rx_los, 0x04);
	assert_int_equal(m.tx_fault, 0x02);
	assert_int_equal(m.tx_lol, 0x01);
	assert_int_equal(m.rx_lol, 0x08);
	{
		char sum[256];

		char codes[256];

		/* Every condition a finding: CDR loss of lock too, which once never made a verdict. */
		assert_int_equal(judge_codes(&m, sum, sizeof(sum), codes, sizeof(codes)), 5);
		assert_string_equal(sum, "lane 2 transmitter fault; lane 3 RX loss of signal; "
					 "lane 1 TX loss of signal (no electrical input from the card); "
					 "lane 4 RX CDR loss of lock; lane 1 TX CDR loss of lock");
		assert_string_equal(codes, "MODULE_TX_FAULT MODULE_LOS MODULE_TX_LOS MODULE_CDR_LOL MODULE_CDR_LOL");
	}

	/* Byte 192 counts only when byte 131 points at it. */
	real_sr4(p);
	p[192] = 0x02;
	decode_ok(p, sizeof(p), &m);
	assert_string_equal(m.media, "40GBASE-SR4");
	assert_int_equal(m.ext_compliance, 0x02);
	/* Several codes: all named, in bit order. */
	p[131] = 0x0c;
	p[134] = 0x01;
	decode_ok(p, sizeof(p), &m);
	assert_string_equal(m.eth_names, "40GBASE-SR4, 40GBASE-CR4, 1000BASE-SX");
	/* Nothing set at all. */
	p[131] = 0;
	p[134] = 0;
	decode_ok(p, sizeof(p), &m);
	assert_string_equal(m.eth_names, "");
	assert_string_equal(m.media, "unspecified");

	/* No DOM at all: flat memory. */
	real_sr4(p);
	p[2] |= 0x04;
	decode_ok(p, sizeof(p), &m);
	assert_false(m.dom_present);
	assert_true(m.temp_c == 0.0 && m.rx_power_mw[0] == 0.0);
	/* An old module's temperature of 0 or 0xffff: not a reading, the monitor is absent. */
	real_sr4(p);
	p[22] = p[23] = 0;
	decode_ok(p, sizeof(p), &m);
	assert_false(m.temp_monitored);
	assert_true(m.vcc_monitored && m.rx_power_monitored && m.dom_present);
	real_sr4(p);
	p[22] = p[23] = 0xff;
	decode_ok(p, sizeof(p), &m);
	assert_false(m.temp_monitored);
	real_sr4(p);
	p[1] = 0x08;            /* a rev 2.8 module whose byte 220 declares no temperature or Vcc */
	decode_ok(p, sizeof(p), &m);
	assert_false(m.temp_monitored || m.vcc_monitored);
	assert_true(m.dom_present); /* an optical module: RX power and TX bias */
	assert_true(m.temp_c == 0.0);
	p[220] = 0x28;          /* ... or says temperature */
	decode_ok(p, sizeof(p), &m);
	assert_true(m.dom_present);
	assert_true(m.temp_monitored);
	assert_false(m.vcc_monitored);
	/* A negative temperature is two's complement. */
	p[22] = 0xf6;           /* -10.0 C = -2560 = 0xf600 */
	p[23] = 0x00;
	decode_ok(p, sizeof(p), &m);
	assert_true(fabs(m.temp_c + 10.0) < 1e-9);
}

/* ---- issue 7: monitors by revision, copper, absent monitors, unprogrammed thresholds ---- */

static void put16(uint8_t *p, unsigned off, unsigned v)
{
	p[off] = (uint8_t)(v >> 8);
	p[off + 1] = (uint8_t)v;
}

/* Page 03h group at spec byte n: high alarm, low alarm, high warning, low warning (raw). */
static void put_th4(uint8_t *p, unsigned n, unsigned ha, unsigned la, unsigned hw, unsigned lw)
{
	put16(p, 384 + n, ha);
	put16(p, 384 + n + 2, la);
	put16(p, 384 + n + 4, hw);
	put16(p, 384 + n + 6, lw);
}

/*
 * real_sr4() as a 640-byte dump with a page 03h written from the spec:
 * temperature 75/-5/70/0 C, Vcc 3.6/3.0/3.5/3.1 V, RX power 2.0/0.05/1.6/0.1
 * mW, TX bias 12/2/10/3 mA, TX power 2.0/0.1/1.6/0.2 mW.
 */
static void real_sr4_640(uint8_t p[640])
{
	memset(p, 0, 640);
	real_sr4(p);
	p[3] = 0;               /* no LOS: only what a test sets */
	p[38] = 0x19; p[39] = 0x64; /* lane 3 lit again: 0.65 mW */
	put_th4(p, 128, 75 * 256, 0x10000 - 5 * 256, 70 * 256, 0);
	put_th4(p, 144, 36000, 30000, 35000, 31000);
	put_th4(p, 176, 20000, 500, 16000, 1000);
	put_th4(p, 184, 6000, 1000, 5000, 1500);
	put_th4(p, 192, 20000, 1000, 16000, 2000);
}

/* The check codes of an edited page, made right again (tests that want them wrong edit after). */
static void fix_cc(uint8_t *p)
{
	p[191] = (uint8_t)sum_range(p, 128, 190);
	p[223] = (uint8_t)sum_range(p, 192, 222);
}

static void health(uint8_t *p, size_t len, struct apenet_sff8636 *m, struct apenet_module_health *h)
{
	fix_cc(p);
	decode_ok(p, len, m);
	apenet_sff8636_health(m, h);
}

static void test_monitors_by_revision(void **state)
{
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	uint8_t p[640];
	char sum[512];

	(void)state;
	/* Rev 2.7 (0x07), byte 220 silent about temperature and Vcc: both shown, with thresholds. */
	real_sr4_640(p);
	p[1] = 0x07;
	p[220] = 0x08;
	health(p, sizeof(p), &m, &h);
	assert_true(m.temp_monitored && m.vcc_monitored);
	assert_true(h.mon[APENET_MON_TEMP].present && h.mon[APENET_MON_VCC].present);
	assert_true(fabs(h.mon[APENET_MON_TEMP].value[0] - 30.5) < 1e-9);
	assert_true(h.mon[APENET_MON_TEMP].thresh_ok);
	assert_true(fabs(h.mon[APENET_MON_TEMP].th.high_alarm - 75.0) < 1e-9);
	assert_true(fabs(h.mon[APENET_MON_TEMP].th.low_alarm + 5.0) < 1e-9);
	assert_true(h.mon[APENET_MON_VCC].thresh_ok);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
	/* ... and judged: 3.3 V over a 3.2 V high warning. */
	put16(p, 384 + 148, 32000);
	health(p, sizeof(p), &m, &h);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 1);
	assert_string_equal(sum, "Vcc high warning: 3.300 V above the 3.200 V threshold");

	/* Rev 2.8 (0x08) is trusted: byte 220 without bits 5 and 4 means neither is monitored. */
	real_sr4_640(p);
	p[1] = 0x08;
	p[220] = 0x08;
	p[6] = 0x80;            /* a temperature flag of a monitor it does not have: ignored */
	health(p, sizeof(p), &m, &h);
	assert_false(m.temp_monitored || m.vcc_monitored);
	assert_false(h.mon[APENET_MON_TEMP].present || h.mon[APENET_MON_VCC].present);
	assert_true(h.mon[APENET_MON_RX_POWER].present && h.mon[APENET_MON_TX_BIAS].present);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
	p[220] = 0x38;          /* declared: monitored, and the flag counts */
	health(p, sizeof(p), &m, &h);
	assert_true(m.temp_monitored && m.vcc_monitored);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 1);
	assert_string_equal(sum, "temperature high alarm flagged by the module (now 30.5 C, threshold 75.0 C)");
}

/* A passive copper cable whose pages claim optical monitors and thresholds. */
static void test_copper_not_judged_as_optical(void **state)
{
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	uint8_t p[640];
	char sum[512];

	(void)state;
	real_sr4_640(p);
	p[147] = 0xa0;          /* copper cable, unequalized */
	p[220] = 0x3c;          /* temperature, Vcc, average RX power, TX power "supported" */
	p[34] = p[35] = 0;      /* RX power 0 mW: far below the 0.05 mW low alarm */
	p[9] = 0x44;            /* RX power low alarm flags, lanes 1 and 2 */
	p[11] = 0x88;           /* TX bias high alarm flags */
	p[3] = 0x0f;            /* RX LOS on every lane: a passive cable cannot detect that */
	health(p, sizeof(p), &m, &h);
	assert_true(m.copper && m.passive);
	assert_false(m.rx_power_monitored || m.tx_bias_monitored || m.tx_power_monitored);
	assert_false(h.mon[APENET_MON_RX_POWER].present);
	assert_false(h.mon[APENET_MON_TX_BIAS].present);
	assert_false(h.mon[APENET_MON_TX_POWER].present);
	assert_true(h.copper);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
	/* Even a health that claims them is not judged on them. */
	h.mon[APENET_MON_RX_POWER].present = 1;
	h.mon[APENET_MON_RX_POWER].flags_ok = 1;
	h.mon[APENET_MON_RX_POWER].flags[0] = APENET_AW_LOW_ALARM;
	{
		struct apenet_findings fs;

		apenet_findings_init(&fs);
		assert_int_equal(apenet_rules_module(&h, 0, "X+", &fs), 0);
		assert_int_equal(fs.n, 0);
		apenet_findings_free(&fs);
	}
	/* An active copper cable has electronics: its LOS counts, its optics still not. */
	p[147] = 0xc0;
	health(p, sizeof(p), &m, &h);
	assert_false(m.passive);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 4);
}

static void test_absent_monitor_and_unset_thresholds(void **state)
{
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	uint8_t p[640];
	char sum[512];

	(void)state;
	/* TX power not supported (byte 220 bit 2 clear): absent, its flags and thresholds ignored. */
	real_sr4_640(p);
	p[13] = 0x44;           /* TX power low alarm flags, lanes 1 and 2 */
	health(p, sizeof(p), &m, &h);
	assert_false(m.tx_power_monitored);
	assert_false(h.mon[APENET_MON_TX_POWER].present);
	assert_false(h.mon[APENET_MON_TX_POWER].thresh_ok);
	assert_true(m.tx_power_mw[0] == 0.0);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
	/* Supported: now the flags count, per lane, and 0 mW crosses the low alarm. */
	p[220] |= 0x04;
	health(p, sizeof(p), &m, &h);
	assert_true(h.mon[APENET_MON_TX_POWER].present);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 4);

	/* Thresholds never programmed, all zero or all equal: neither shown nor judged. */
	real_sr4_640(p);
	put_th4(p, 144, 0, 0, 0, 0);       /* Vcc */
	put_th4(p, 184, 500, 500, 500, 500); /* TX bias: all 1 mA */
	health(p, sizeof(p), &m, &h);
	assert_true(m.thresh_present);
	assert_true(h.mon[APENET_MON_VCC].present && !h.mon[APENET_MON_VCC].thresh_ok);
	assert_true(h.mon[APENET_MON_TX_BIAS].present && !h.mon[APENET_MON_TX_BIAS].thresh_ok);
	assert_true(h.mon[APENET_MON_TEMP].thresh_ok && h.mon[APENET_MON_RX_POWER].thresh_ok);
	assert_true(apenet_module_thresh_unset(&h.mon[APENET_MON_VCC].th));
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);
}

/* Every condition is a finding, none cut short, with value, threshold and unit. */
static void test_every_condition_a_finding(void **state)
{
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	struct apenet_findings fs;
	uint8_t p[640];
	unsigned alarms = 0, warnings = 0;

	(void)state;
	real_sr4_640(p);
	p[220] = 0x3c;
	/* Every monitor on every lane far over its high alarm, every status flag up. */
	put16(p, 22, 100 * 256);
	put16(p, 26, 40000);
	for (unsigned k = 0; k < 4; k++) {
		put16(p, 34 + 2 * k, 30000);
		put16(p, 42 + 2 * k, 7000);
		put16(p, 50 + 2 * k, 30000);
	}
	p[3] = 0xff;
	p[4] = 0x0f;
	p[5] = 0xff;
	health(p, sizeof(p), &m, &h);
	apenet_findings_init(&fs);
	/* 5 status flags x 4 lanes, and 2 + 3 x 4 high alarms. */
	assert_int_equal(apenet_rules_module(&h, 3, "Z+", &fs), 20 + 2 + 12);
	assert_int_equal(fs.n, 34);
	for (size_t i = 0; i < fs.n; i++) {
		const struct apenet_finding *f = &fs.f[i];

		assert_int_equal(f->link, 3);
		assert_string_equal(f->where, "Z+");
		assert_int_equal(f->subject, APENET_SUBJ_MODULE);
		assert_true(strlen(f->message) > 10 && strlen(f->message) < sizeof(f->message) - 1);
		assert_true(f->rec[0] != '\0');
		if (!strcmp(f->code, "MODULE_ALARM")) {
			alarms++;
			assert_int_equal(f->sev, APENET_SEV_FAIL);
			assert_false(isnan(f->value) || isnan(f->threshold));
			assert_true(f->value > f->threshold);
			assert_true(f->unit[0] != '\0');
			assert_true(strstr(f->evidence, "threshold crossed") != NULL);
		} else if (!strcmp(f->code, "MODULE_WARNING")) {
			warnings++;
		}
	}
	assert_int_equal(alarms, 14);
	assert_int_equal(warnings, 0); /* a side's warning adds nothing when its alarm is up */
	/* Lane findings name lanes 1-4; the module-wide ones none. */
	assert_int_equal(fs.f[0].lane, 1);
	assert_string_equal(fs.f[0].code, "MODULE_TX_FAULT");
	assert_int_equal(fs.f[20].lane, -1);
	assert_string_equal(fs.f[20].message, "temperature high alarm: 100.0 C above the 75.0 C threshold");
	assert_string_equal(fs.f[20].unit, "C");
	assert_true(fs.f[20].value == 100.0 && fs.f[20].threshold == 75.0);
	assert_int_equal(fs.f[33].lane, 4);
	assert_string_equal(fs.f[33].message, "lane 4 TX power high alarm: 3.0000 mW above the 2.0000 mW threshold");
	apenet_findings_free(&fs);

	/* A bad check code is a finding of its own, counted apart. */
	real_sr4_640(p);
	fix_cc(p);
	p[191] ^= 1;
	p[223] ^= 2;
	decode_ok(p, sizeof(p), &m);
	apenet_sff8636_health(&m, &h);
	apenet_findings_init(&fs);
	assert_int_equal(apenet_rules_module(&h, 0, "X+", &fs), 0);
	assert_int_equal(fs.n, 2);
	assert_string_equal(fs.f[0].code, "MODULE_CHECKSUM");
	assert_true(strstr(fs.f[0].message, "base check code (CC_BASE) is wrong") != NULL);
	assert_true(strstr(fs.f[1].message, "extended check code (CC_EXT)") != NULL);
	apenet_findings_free(&fs);
}

/* ---- issue 20: a dark transmitter, a checksum alone, the finding's location, the wavelength ---- */

/*
 * A lane in TX loss of signal has no laser current and no light: one
 * MODULE_TX_LOS finding with the bias and power as its evidence, not low
 * TX bias and TX power alarms that say "replace the module".
 */
static void test_tx_los_dark_laser(void **state)
{
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	struct apenet_findings fs;
	uint8_t p[640];
	char sum[1024], codes[256];

	(void)state;
	real_sr4_640(p);
	p[220] |= 0x04;         /* TX power monitored */
	for (unsigned k = 0; k < 4; k++)
		put16(p, 50 + 2 * k, 8000); /* 0.8 mW */
	health(p, sizeof(p), &m, &h);
	assert_int_equal(judge(&m, sum, sizeof(sum)), 0);

	/* Lane 2: TX LOS (byte 3 bit 5), 0 mA, 0 mW, and the module's own low alarm flags. */
	p[3] = 0x20;
	put16(p, 44, 0);
	put16(p, 52, 0);
	p[11] = 0x04;           /* TX bias low alarm, lane 2 */
	p[13] = 0x04;           /* TX power low alarm, lane 2 */
	health(p, sizeof(p), &m, &h);
	assert_int_equal(m.tx_los, 0x02);
	assert_int_equal(judge_codes(&m, sum, sizeof(sum), codes, sizeof(codes)), 1);
	assert_string_equal(codes, "MODULE_TX_LOS");
	assert_string_equal(sum, "lane 2 TX loss of signal (no electrical input from the card)");
	apenet_findings_init(&fs);
	assert_int_equal(apenet_rules_module(&h, 0, "X+", &fs), 1);
	assert_int_equal(fs.n, 1);
	assert_int_equal(fs.f[0].lane, 2);
	assert_int_equal(fs.f[0].sev, APENET_SEV_FAIL);
	assert_string_equal(fs.f[0].evidence, "SFF-8636 status flag set by the module; TX bias 0.00 mA (low alarm 2.00 mA), "
					      "TX power 0.0000 mW (low alarm 0.1000 mW)");
	assert_null(strstr(fs.f[0].rec, "replace"));
	apenet_findings_free(&fs);

	/* The same readings on a lane without the flag are the module's own alarms, as before. */
	put16(p, 46, 0);        /* lane 3: 0 mA, no TX LOS */
	health(p, sizeof(p), &m, &h);
	assert_int_equal(judge_codes(&m, sum, sizeof(sum), codes, sizeof(codes)), 2);
	assert_string_equal(codes, "MODULE_TX_LOS MODULE_ALARM");
	assert_string_equal(sum, "lane 2 TX loss of signal (no electrical input from the card); "
				 "lane 3 TX bias low alarm: 0.00 mA below the 2.00 mA threshold");

	/* Only the low side follows from the flag: a laser over its high alarm still is one. */
	real_sr4_640(p);
	p[3] = 0x20;
	put16(p, 44, 6500);     /* 13 mA over 12 */
	health(p, sizeof(p), &m, &h);
	assert_int_equal(judge_codes(&m, sum, sizeof(sum), codes, sizeof(codes)), 2);
	assert_string_equal(codes, "MODULE_TX_LOS MODULE_ALARM");
	assert_true(strstr(sum, "lane 2 TX bias high alarm: 13.00 mA above the 12.00 mA threshold") != NULL);

	/* A transmitter fault darkens the laser too: one MODULE_TX_FAULT, its readings as evidence. */
	real_sr4_640(p);
	p[4] = 0x01;            /* TX fault lane 1 */
	put16(p, 42, 0);
	p[11] = 0x40;           /* TX bias low alarm, lane 1 */
	health(p, sizeof(p), &m, &h);
	assert_int_equal(judge_codes(&m, sum, sizeof(sum), codes, sizeof(codes)), 1);
	assert_string_equal(codes, "MODULE_TX_FAULT");
	apenet_findings_init(&fs);
	apenet_rules_module(&h, 0, "X+", &fs);
	assert_string_equal(fs.f[0].evidence, "SFF-8636 status flag set by the module; TX bias 0.00 mA (low alarm 2.00 mA)");
	apenet_findings_free(&fs);

	/* RX loss of signal keeps its own code (the cable's), and TX LOS is not it. */
	real_sr4_640(p);
	p[3] = 0x11;            /* TX LOS and RX LOS, lane 1 */
	health(p, sizeof(p), &m, &h);
	assert_int_equal(judge_codes(&m, sum, sizeof(sum), codes, sizeof(codes)), 2);
	assert_string_equal(codes, "MODULE_LOS MODULE_TX_LOS");
}

/* A module whose only fault is a check code: a fail finding, and no condition counted. */
static void test_checksum_alone(void **state)
{
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	struct apenet_findings fs;
	uint8_t p[640];

	(void)state;
	real_sr4_640(p);
	fix_cc(p);
	p[150] = '#';           /* a corrupt vendor name */
	decode_ok(p, sizeof(p), &m);
	assert_false(m.cc_base_ok);
	apenet_sff8636_health(&m, &h);
	apenet_findings_init(&fs);
	assert_int_equal(apenet_rules_module(&h, 0, "X+", &fs), 0);
	assert_int_equal(fs.n, 1);
	assert_string_equal(fs.f[0].code, "MODULE_CHECKSUM");
	assert_int_equal(apenet_findings_worst(&fs, NULL), APENET_SEV_FAIL);
	apenet_findings_free(&fs);
}

/* `apenet module --eeprom-file NAME`: the findings name the file whole. */
static void test_location_whole_file_name(void **state)
{
	static const char name[] = "some-long-module-image-name.bin";
	struct apenet_sff8636 m;
	struct apenet_module_health h;
	struct apenet_findings fs;
	struct apenet_finding f;
	uint8_t p[640];
	char big[400];

	(void)state;
	real_sr4_640(p);
	p[3] = 0x04;            /* RX LOS lane 3: one finding */
	fix_cc(p);
	p[191] ^= 1;            /* and a check code */
	decode_ok(p, sizeof(p), &m);
	apenet_sff8636_health(&m, &h);
	apenet_findings_init(&fs);
	apenet_rules_module(&h, 0, name, &fs);
	apenet_rules_module_unreadable(0, name, "why", &fs);
	assert_int_equal(fs.n, 3);
	for (size_t i = 0; i < fs.n; i++)
		assert_string_equal(fs.f[i].where, name);
	apenet_findings_free(&fs);

	/* The longest file name (NAME_MAX, 255 bytes) fits whole. */
	memset(big, 'a', 255);
	big[255] = '\0';
	apenet_finding_where(&f, big);
	assert_string_equal(f.where, big);
	/* Longer than that: cut, and it says so. */
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	apenet_finding_where(&f, big);
	assert_int_equal(strlen(f.where), sizeof(f.where) - 1);
	assert_int_equal(strncmp(f.where, big, sizeof(f.where) - 4), 0);
	assert_string_equal(f.where + sizeof(f.where) - 4, "...");
	/* ... never inside a UTF-8 character: "x" and 199 x "é" (2 bytes each). */
	big[0] = 'x';
	for (unsigned i = 0; i < 199; i++)
		memcpy(big + 1 + 2 * i, "\xc3\xa9", 2);
	big[399] = '\0';
	apenet_finding_where(&f, big);
	assert_string_equal(f.where + strlen(f.where) - 3, "...");
	assert_int_equal(strlen(f.where), 1 + 2 * 125 + 3);
	assert_int_equal(strncmp(f.where, big, strlen(f.where) - 3), 0);
	apenet_finding_where(&f, NULL);
	assert_string_equal(f.where, "");
}

/* Bytes 186-187 in 0.05 nm: a DWDM channel's wavelength keeps its fraction. */
static void test_wavelength_fraction(void **state)
{
	struct apenet_sff8636 m;
	uint8_t p[256];

	(void)state;
	real_sr4(p);
	p[147] = 0x50;          /* 1550 nm DFB */
	put16(p, 186, 30891);   /* 1544.55 nm */
	decode_ok(p, sizeof(p), &m);
	assert_true(fabs(m.wavelength_nm - 1544.55) < 1e-9);
	put16(p, 186, 30890);   /* 1544.50 nm */
	decode_ok(p, sizeof(p), &m);
	assert_true(fabs(m.wavelength_nm - 1544.5) < 1e-9);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(apenet_sff8636_connector_name(0x07), "LC");
	assert_string_equal(apenet_sff8636_connector_name(0x21), "Copper pigtail");
	assert_string_equal(apenet_sff8636_connector_name(0x50), "Reserved");
	assert_string_equal(apenet_sff8636_connector_name(0x90), "Vendor specific");
	assert_string_equal(apenet_sff8636_id_name(0x0c), "QSFP");
	assert_string_equal(apenet_sff8636_id_name(0x03), "SFP/SFP+/SFP28");
	assert_string_equal(apenet_sff8636_ext_compliance_name(0x0b),
			    "100GBASE-CR4, 25GBASE-CR CA-L or 50GBASE-CR2 with RS FEC");
	assert_string_equal(apenet_sff8636_ext_compliance_name(0x0a), "Reserved or unknown");
	assert_string_equal(apenet_sff8636_ext_compliance_name(0xff), "Reserved or unknown");
	assert_string_equal(apenet_sff8636_eth_compliance_name(1), "40GBASE-LR4");
	assert_null(apenet_sff8636_eth_compliance_name(7));
	assert_string_equal(apenet_sff8636_encoding_name(0x06), "Manchester");
	assert_string_equal(apenet_sff8636_encoding_name(0x42), "Reserved");
	assert_string_equal(apenet_sff8636_rev_name(0x08), "SFF-8636 rev 2.8, 2.9 and 2.10");
	assert_string_equal(apenet_sff8636_tx_tech_name(0x45), "1310 nm DFB");
	assert_true(apenet_sff8636_mw_to_dbm(0.0) == -40.0);
	assert_true(fabs(apenet_sff8636_mw_to_dbm(1.0)) < 1e-12);
	assert_true(fabs(apenet_sff8636_mw_to_dbm(2.0) - 3.0103) < 1e-4);
}

/* ---- damage ---- */

static void test_bad_checksums(void **state)
{
	struct apenet_sff8636 m;
	uint8_t p[256];
	unsigned base, ext;

	(void)state;
	real_sr4(p);
	base = sum_range(p, 128, 190);
	ext = sum_range(p, 192, 222);

	p[191] ^= 0x5a;
	decode_ok(p, sizeof(p), &m);
	assert_false(m.cc_base_ok);
	assert_int_equal(m.cc_base_stored, base ^ 0x5a);
	assert_int_equal(m.cc_base_computed, base);
	assert_true(m.cc_ext_ok);
	assert_string_equal(m.part, "AFBR-79EQDZ"); /* still decoded */

	real_sr4(p);
	p[200] = 'Y';           /* serial changed, check code not */
	decode_ok(p, sizeof(p), &m);
	assert_true(m.cc_base_ok);
	assert_false(m.cc_ext_ok);
	assert_int_equal(m.cc_ext_stored, ext);
	assert_int_equal(m.cc_ext_computed, (ext + 'Y' - '1') & 0xff);
	assert_string_equal(m.serial, "QD40Y1XZ");
}

static void test_lengths(void **state)
{
	static const size_t bad[] = { 0, 1, 100, 128, 255, 257, 300, 511, 639 };
	uint8_t img[1000];
	struct sim_module sm;
	struct apenet_sff8636 m;
	char want[64];

	(void)state;
	memset(img, 0x5a, sizeof(img));
	build(&sm, SIM_MOD_OPTICAL, 10, 1, img);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "EEPROM dump is %zu bytes: expected 256", bad[i]);
		decode_fails(img, bad[i], want);
	}
	decode_fails(img, 300, "EEPROM dump is 300 bytes: expected 256 (lower page + page 00h) or "
			       "640 (plus pages 01h-03h)");
	/* Longer than 640: the first 640 are the pages. */
	decode_ok(img, sizeof(img), &m);
	assert_int_equal(m.len, 640);
	assert_true(m.thresh_present);
	decode_ok(img, 641, &m);
	assert_int_equal(m.len, 640);
}

static void test_blank_and_foreign(void **state)
{
	uint8_t img[IMG];
	struct sim_module sm;

	(void)state;
	memset(img, 0xff, sizeof(img));
	decode_fails(img, 640, "all 0xff");
	decode_fails(img, 256, "no module");
	memset(img, 0, sizeof(img));
	decode_fails(img, 640, "all zeros");
	decode_fails(img, 256, "not read");
	/* An empty cage in the emulator is all zeros too. */
	build(&sm, SIM_MOD_NONE, 0, 0, img);
	decode_fails(img, 640, "all zeros");

	build(&sm, SIM_MOD_COPPER, 3, 1, img);
	img[0] = 0x03;
	decode_fails(img, 640, "byte 0 (identifier) is 0x03: not an SFF-8636 module (SFP? use SFF-8472)");
	img[0] = 0x18;
	decode_fails(img, 640, "byte 0 (identifier) is 0x18: not an SFF-8636 module (a CMIS module?");
	img[0] = 0x06;
	decode_fails(img, 256, "is 0x06: not an SFF-8636 module (XFP)");
	img[0] = 0x0c;
	{
		struct apenet_sff8636 m;

		decode_ok(img, 640, &m);
		assert_string_equal(m.id_name, "QSFP");
		assert_int_equal(m.id_upper, 0x0d); /* the pages disagree: reported, not fatal */
	}
}

/* xorshift32: a fixed sequence, so a failure reproduces. */
static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void assert_printable(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	assert_true(n < size);
	for (size_t i = 0; i < n; i++)
		assert_true(s[i] >= 0x20 && s[i] < 0x7f);
}

static void test_fuzz(void **state)
{
	static const uint8_t ids[3] = { 0x0c, 0x0d, 0x11 };
	uint32_t seed = 0x8636u;
	unsigned decoded = 0;

	(void)state;
	for (int it = 0; it < 5000; it++) {
		size_t len;
		uint8_t *buf;
		struct apenet_sff8636 m;
		char err[160], sum[6000];
		int rc, n;

		switch (rnd(&seed) % 4) {
		case 0: len = 256; break;
		case 1: len = 640; break;
		default: len = rnd(&seed) % 700; break;
		}
		/* Exactly len bytes on the heap: ASan catches any read past them. */
		buf = malloc(len ? len : 1);
		assert_non_null(buf);
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd(&seed);
		if (len && rnd(&seed) % 8)
			buf[0] = ids[rnd(&seed) % 3];
		if (len > 220 && rnd(&seed) % 2)
			buf[2] &= (uint8_t)~0x04; /* paged more often, to reach page 03h */
		memset(err, 0, sizeof(err));
		rc = apenet_sff8636_decode(buf, len, &m, err, sizeof(err));
		if (len == 256 || len >= 640) {
			int id_ok = buf[0] == 0x0c || buf[0] == 0x0d || buf[0] == 0x11;

			assert_int_equal(rc, id_ok ? 0 : -1);
		} else {
			assert_int_equal(rc, -1);
		}
		if (rc == 0) {
			decoded++;
			assert_printable(m.vendor, sizeof(m.vendor));
			assert_printable(m.part, sizeof(m.part));
			assert_printable(m.vendor_rev, sizeof(m.vendor_rev));
			assert_printable(m.serial, sizeof(m.serial));
			assert_printable(m.date_code, sizeof(m.date_code));
			assert_printable(m.date, sizeof(m.date));
			assert_printable(m.lot, sizeof(m.lot));
			assert_printable(m.eth_names, sizeof(m.eth_names));
			assert_non_null(m.connector_name);
			assert_non_null(m.media);
			assert_true(m.power_class >= 1 && m.power_class <= 8);
			memset(sum, 0x7e, sizeof(sum));
			n = judge(&m, sum, sizeof(sum));
			/* Temperature, Vcc: 2 sides; 3 lane monitors x 4 lanes x 2 sides; 5 status flags x 4 lanes. */
			assert_true(n >= 0 && n <= 2 * 2 + 3 * 4 * 2 + 5 * 4);
			assert_printable(sum, sizeof(sum));
		} else {
			assert_printable(err, sizeof(err));
			assert_true(strlen(err) > 10);
		}
		free(buf);
	}
	assert_true(decoded > 1000);
}

/* ---- file loader ---- */

struct tmpdir {
	char path[64];
};

static int setup_dir(void **state)
{
	static struct tmpdir d;

	snprintf(d.path, sizeof(d.path), "/tmp/test_sff8636.XXXXXX");
	if (!mkdtemp(d.path))
		return -1;
	*state = &d;
	return 0;
}

static void rm_file(const char *dir, const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	unlink(p);
}

static int teardown_dir(void **state)
{
	struct tmpdir *d = *state;
	static const char *const names[] = { "nothing", "short", "long", "ok256", "ok512", "ok640", "text", "xfp",
					     "ones" };
	char p[128];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		rm_file(d->path, names[i]);
	snprintf(p, sizeof(p), "%s/adir", d->path);
	rmdir(p);
	rmdir(d->path);
	return 0;
}

static void write_file(char *out, size_t size, const char *dir, const char *name,
		       const void *data, size_t n)
{
	FILE *f;

	snprintf(out, size, "%s/%s", dir, name);
	f = fopen(out, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void load_fails(const char *path, enum apenet_module_file_err want_rc, const char *want)
{
	static struct apenet_module_image img;
	char err[512] = "";

	assert_int_equal(apenet_module_load_file(path, &img, err, sizeof(err)), want_rc);
	if (!strstr(err, path))
		fail_msg("error '%s' does not name '%s'", err, path);
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

static void test_load_file(void **state)
{
	struct tmpdir *d = *state;
	uint8_t img[IMG + 8];
	static struct apenet_module_image mi;
	struct sim_module sm;
	struct apenet_sff8636 m;
	char path[128], err[512];

	build(&sm, SIM_MOD_OPTICAL, 25, 31337, img);
	memset(img + IMG, 0xee, 8);

	snprintf(path, sizeof(path), "%s/missing", d->path);
	load_fails(path, APENET_MFILE_IO, "No such file");

	write_file(path, sizeof(path), d->path, "nothing", img, 0);
	load_fails(path, APENET_MFILE_SIZE, "empty file");

	/* A bad size names the size and the identifier. */
	write_file(path, sizeof(path), d->path, "short", img, 300);
	load_fails(path, APENET_MFILE_SIZE, "300 bytes, identifier 0x0d (QSFP+): a QSFP image (SFF-8636) is 256 bytes");

	write_file(path, sizeof(path), d->path, "long", img, 641);
	load_fails(path, APENET_MFILE_SIZE, "641 bytes, identifier 0x0d (QSFP+): longer than any module image");

	/* 512 bytes is an SFP's size, not a QSFP's. */
	write_file(path, sizeof(path), d->path, "ok512", img, 512);
	load_fails(path, APENET_MFILE_SIZE, "512 bytes, identifier 0x0d (QSFP+)");

	{
		static const char txt[] = "Offset\t\tValues\n------\t\t------\n";

		write_file(path, sizeof(path), d->path, "text", txt, strlen(txt));
	}
	load_fails(path, APENET_MFILE_KIND, "text");

	snprintf(path, sizeof(path), "%s/adir", d->path);
	assert_int_equal(mkdir(path, 0700), 0);
	load_fails(path, APENET_MFILE_IO, "cannot read");

	write_file(path, sizeof(path), d->path, "ok640", img, 640);
	memset(&mi, 0, sizeof(mi));
	assert_int_equal(apenet_module_load_file(path, &mi, err, sizeof(err)), APENET_MFILE_OK);
	assert_int_equal(mi.len, 640);
	assert_int_equal(mi.layout, APENET_EE_SFF8636);
	assert_memory_equal(mi.b, img, 640);
	decode_ok(mi.b, mi.len, &m);
	assert_string_equal(m.serial, sm.serial);
	assert_true(m.thresh_present);

	write_file(path, sizeof(path), d->path, "ok256", img, 256);
	assert_int_equal(apenet_module_load_file(path, &mi, err, sizeof(err)), APENET_MFILE_OK);
	assert_int_equal(mi.len, 256);
	decode_ok(mi.b, mi.len, &m);
	assert_string_equal(m.serial, sm.serial);
	assert_false(m.thresh_present);

	/* Not a module at all: an XFP, and a blank read. */
	img[0] = 0x06;
	write_file(path, sizeof(path), d->path, "xfp", img, 640);
	load_fails(path, APENET_MFILE_KIND, "640 bytes, identifier 0x06 (XFP): not a QSFP (SFF-8636) or SFP (SFF-8472)");
	memset(img, 0xff, sizeof(img));
	write_file(path, sizeof(path), d->path, "ones", img, 256);
	load_fails(path, APENET_MFILE_KIND, "all 0xff");
	assert_string_equal(apenet_module_file_err_code(APENET_MFILE_KIND), "FILE_NOT_A_MODULE");
	assert_string_equal(apenet_module_file_err_code(APENET_MFILE_SIZE), "FILE_SIZE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_copper),
		cmocka_unit_test(test_sim_optical),
		cmocka_unit_test(test_sim_dom_sweep),
		cmocka_unit_test(test_sim_over_temperature),
		cmocka_unit_test(test_alarm_sources),
		cmocka_unit_test(test_sim_extended_rate),
		cmocka_unit_test(test_real_sr4),
		cmocka_unit_test(test_real_sr4_variants),
		cmocka_unit_test(test_monitors_by_revision),
		cmocka_unit_test(test_copper_not_judged_as_optical),
		cmocka_unit_test(test_absent_monitor_and_unset_thresholds),
		cmocka_unit_test(test_every_condition_a_finding),
		cmocka_unit_test(test_tx_los_dark_laser),
		cmocka_unit_test(test_checksum_alone),
		cmocka_unit_test(test_location_whole_file_name),
		cmocka_unit_test(test_wavelength_fraction),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_checksums),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_blank_and_foreign),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test_setup_teardown(test_load_file, setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
