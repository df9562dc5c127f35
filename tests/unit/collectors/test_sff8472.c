/*
 * Tests of the SFF-8472 decoder (collectors/sff8472.c) and of the module
 * judge on SFPs: against images the emulator builds (sim/eeprom_sfp.c,
 * written independently from the spec), against an externally calibrated
 * 10GBASE-LR module written here byte by byte, and against damage,
 * garbage and images of the wrong kind.
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

#include "apenet/module.h"
#include "apenet/rules_module.h"
#include "apenet/sff8472.h"

#include "../../../sim/eeprom.h"

#define IMG 640
#define A2 256u

static void decode_ok(const uint8_t *img, size_t len, struct apenet_sff8472 *m)
{
	char err[256] = "";

	if (apenet_sff8472_decode(img, len, m, err, sizeof(err)))
		fail_msg("decode failed: %s", err);
}

static void decode_fails(const uint8_t *img, size_t len, const char *want)
{
	struct apenet_sff8472 m;
	char err[256] = "";

	assert_int_equal(apenet_sff8472_decode(img, len, &m, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("error '%s' does not contain '%s'", err, want);
}

/* The judge on a decoded SFP: the conditions' count, their codes and messages. */
static int judge(const struct apenet_sff8472 *m, char *codes, size_t cn, char *msgs, size_t mn)
{
	struct apenet_module_health h;
	struct apenet_findings fs;
	size_t cu = 0, mu = 0;
	int n;

	apenet_sff8472_health(m, &h);
	apenet_findings_init(&fs);
	n = apenet_rules_module(&h, 1, "10GbE1", &fs);
	codes[0] = msgs[0] = '\0';
	for (size_t i = 0; i < fs.n; i++) {
		assert_int_equal(fs.f[i].link, 1);
		assert_int_equal(fs.f[i].lane, -1); /* one channel: no lane numbers */
		cu += (size_t)snprintf(codes + cu, cu < cn ? cn - cu : 0, "%s%s", cu ? " " : "", fs.f[i].code);
		mu += (size_t)snprintf(msgs + mu, mu < mn ? mn - mu : 0, "%s%s", mu ? "; " : "", fs.f[i].message);
	}
	assert_true(cu < cn && mu < mn);
	{
		/* What it returns (`apenet module`'s alarm_count) is one per finding, check codes not counted. */
		int conditions = 0;

		for (size_t i = 0; i < fs.n; i++)
			conditions += strcmp(fs.f[i].code, "MODULE_CHECKSUM") != 0;
		assert_int_equal(n, conditions);
	}
	apenet_findings_free(&fs);
	return n;
}

static unsigned sum_range(const uint8_t *b, unsigned from, unsigned to)
{
	unsigned s = 0;

	for (unsigned i = from; i <= to; i++)
		s += b[i];
	return s & 0xffu;
}

static void fix_cc(uint8_t *p)
{
	p[63] = (uint8_t)sum_range(p, 0, 62);
	p[95] = (uint8_t)sum_range(p, 64, 94);
	p[A2 + 95] = (uint8_t)sum_range(p, A2, A2 + 94);
}

/* ---- emulator images ---- */

static void test_sim_optical(void **state)
{
	static const double rates[2] = { 10.3125, 0.8 };

	(void)state;
	for (int r = 0; r < 2; r++) {
		struct sim_module sm;
		struct apenet_sff8472 m;
		struct apenet_module_health h;
		uint8_t img[IMG];
		char codes[256], msgs[1024];

		sim_module_default_sfp(&sm, SIM_MOD_OPTICAL, 10, 4242 + (uint32_t)r, rates[r]);
		sim_eeprom_build(&sm, img);
		decode_ok(img, 512, &m);
		assert_int_equal(m.len, 512);
		assert_int_equal(m.id, 0x03);
		assert_string_equal(m.id_name, "SFP/SFP+/SFP28");
		assert_int_equal(m.ext_id, 0x04);
		assert_string_equal(m.connector_name, "LC");
		assert_string_equal(m.media, r == 0 ? "10GBASE-SR" : "1000BASE-SX");
		assert_string_equal(m.compliance, r == 0 ? "10GBASE-SR" : "1000BASE-SX");
		assert_string_equal(m.encoding_name, r == 0 ? "64B/66B" : "8B/10B");
		assert_int_equal(m.br_nominal_mbps, r == 0 ? 10300 : 1300);
		assert_false(m.copper);
		assert_true(m.wavelength_nm == 850.0);
		assert_string_equal(m.vendor, sm.vendor);
		assert_string_equal(m.part, sm.part);
		assert_string_equal(m.vendor_rev, sm.rev);
		assert_string_equal(m.serial, sm.serial);
		assert_memory_equal(m.oui, sm.oui, 3);
		assert_string_equal(m.date, "2023-09-15");
		assert_true(m.ddm && m.internal_cal && !m.external_cal && m.rx_power_avg);
		assert_true(m.flags_implemented && m.soft_rx_los && m.soft_tx_fault);
		assert_string_equal(m.compliance_rev_name, "SFF-8472 rev 12.3");
		assert_string_equal(m.options_names, "TX_DISABLE, TX_FAULT, RX_LOS");
		assert_true(m.cc_base_ok && m.cc_ext_ok && m.cc_dmi_ok);
		assert_true(m.a2_present);
		assert_true(fabs(m.temp_c - sm.temp_c) < 1.0 / 256);
		assert_true(fabs(m.vcc_v - sm.vcc_v) < 0.0001);
		assert_true(fabs(m.tx_bias_ma - sm.tx_bias_ma[0]) < 0.002);
		assert_true(fabs(m.tx_power_mw - sm.tx_power_mw[0]) < 0.0001);
		assert_true(fabs(m.rx_power_mw - sm.rx_power_mw[0]) < 0.0001);
		assert_true(fabs(m.th_temp.high_alarm - 75.0) < 1e-9);
		assert_true(fabs(m.th_rx_power.low_warn - 0.0457) < 0.0001);
		assert_int_equal(m.status, 0);

		apenet_sff8472_health(&m, &h);
		assert_int_equal(h.lanes, 1);
		assert_string_equal(h.spec, "SFF-8472");
		for (int i = 0; i < APENET_MON_COUNT; i++)
			assert_true(h.mon[i].present && h.mon[i].thresh_ok && h.mon[i].flags_ok);
		assert_int_equal(h.ncc, 3);
		assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);
		assert_string_equal(codes, "");

		/* A 256-byte dump is A0h only: identity, no diagnostics. */
		decode_ok(img, 256, &m);
		assert_false(m.a2_present);
		assert_string_equal(m.serial, sm.serial);
		apenet_sff8472_health(&m, &h);
		for (int i = 0; i < APENET_MON_COUNT; i++)
			assert_false(h.mon[i].present);
		assert_int_equal(h.ncc, 2);
	}
}

static void test_sim_copper(void **state)
{
	struct sim_module sm;
	struct apenet_sff8472 m;
	struct apenet_module_health h;
	uint8_t img[IMG];
	char codes[64], msgs[256];

	(void)state;
	sim_module_default_sfp(&sm, SIM_MOD_COPPER, 3, 77, 10.3125);
	sim_eeprom_build(&sm, img);
	decode_ok(img, 512, &m);
	assert_true(m.passive_cable && m.copper);
	assert_string_equal(m.connector_name, "Copper pigtail");
	assert_string_equal(m.media, "SFP+ passive direct-attach cable");
	assert_string_equal(m.compliance, "Passive Cable");
	assert_int_equal(m.len_copper_m, 3);
	assert_string_equal(m.cable_compliance_names, "SFF-8431 Appendix E");
	assert_true(m.wavelength_nm == 0.0);
	assert_false(m.ddm || m.a2_present);
	assert_string_equal(m.part, "APL-SFPP-CU3M");
	assert_true(m.cc_base_ok && m.cc_ext_ok);
	apenet_sff8472_health(&m, &h);
	assert_true(h.copper);
	assert_false(h.rx_los_ok || h.tx_fault_ok);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);
	/* A passive cable's "A2h" is never read, even when it is not blank. */
	img[A2 + 96] = 0x7f;
	decode_ok(img, 512, &m);
	assert_false(m.a2_present);
}

/* The emulator's flags and status against the decoder and the judge. */
static void test_sim_dom(void **state)
{
	struct sim_module sm;
	struct apenet_sff8472 m;
	uint8_t img[IMG];
	char codes[256], msgs[1024];

	(void)state;
	sim_module_default_sfp(&sm, SIM_MOD_OPTICAL, 10, 5, 10.3125);
	sim_eeprom_build(&sm, img);
	for (int k = 0; k < 40; k++) {
		sm.temp_c = -20.0 + k * 3.0;
		sm.vcc_v = 2.9 + k * 0.02;
		sm.rx_power_mw[0] = 0.005 + 0.05 * k;
		sm.tx_bias_ma[0] = 1.0 + 0.3 * k;
		sm.tx_power_mw[0] = 0.05 + 0.03 * k;
		sim_eeprom_update_dom(&sm, img);
		decode_ok(img, 512, &m);
		assert_true(m.cc_dmi_ok); /* live values are outside CC_DMI */
		assert_int_equal(!!(m.temp_flags & APENET_AW_HIGH_ALARM), m.temp_c > m.th_temp.high_alarm);
		assert_int_equal(!!(m.temp_flags & APENET_AW_LOW_WARN), m.temp_c < m.th_temp.low_warn);
		assert_int_equal(!!(m.vcc_flags & APENET_AW_LOW_ALARM), m.vcc_v < m.th_vcc.low_alarm);
		assert_int_equal(!!(m.tx_bias_flags & APENET_AW_HIGH_WARN), m.tx_bias_ma > m.th_tx_bias.high_warn);
		assert_int_equal(!!(m.tx_power_flags & APENET_AW_LOW_ALARM), m.tx_power_mw < m.th_tx_power.low_alarm);
		assert_int_equal(!!(m.rx_power_flags & APENET_AW_HIGH_ALARM), m.rx_power_mw > m.th_rx_power.high_alarm);
		assert_int_equal(m.rx_los_state, m.rx_power_mw < 0.01);
		judge(&m, codes, sizeof(codes), msgs, sizeof(msgs));
	}

	/* Hot and dark: a temperature alarm and loss of signal, each a finding. */
	sim_module_default_sfp(&sm, SIM_MOD_OPTICAL, 10, 5, 10.3125);
	sm.temp_c = 80.0;
	sm.rx_power_mw[0] = 0.001;
	sim_eeprom_build(&sm, img);
	decode_ok(img, 512, &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 3);
	assert_string_equal(codes, "MODULE_LOS MODULE_ALARM MODULE_ALARM");
	assert_string_equal(msgs, "RX loss of signal; temperature high alarm: 80.0 C above the 75.0 C threshold; "
				  "RX power low alarm: 0.0010 mW below the 0.0229 mW threshold");
}

/* ---- an externally calibrated 10GBASE-LR SFP+, written from the spec ---- */

static void put_ascii(uint8_t *p, unsigned off, unsigned width, const char *s)
{
	memset(p + off, ' ', width);
	memcpy(p + off, s, strlen(s));
}

static void put16(uint8_t *p, unsigned off, unsigned v)
{
	p[off] = (uint8_t)(v >> 8);
	p[off + 1] = (uint8_t)v;
}

static void put_float(uint8_t *p, unsigned off, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	p[off] = (uint8_t)(u >> 24);
	p[off + 1] = (uint8_t)(u >> 16);
	p[off + 2] = (uint8_t)(u >> 8);
	p[off + 3] = (uint8_t)u;
}

/*
 * Calibration: RX power = 0.5 x AD + 10 (0.1 uW), bias = 1.5 x AD - 100
 * (2 uA), TX power = AD + 50 (0.1 uW), temperature = AD + 512 (1/256 C: +2
 * C), Vcc = AD - 1000 (100 uV).  Readings: 32.0 C, 3.3 V, 8.8 mA, 0.505 mW,
 * 0.401 mW.
 */
static void real_lr(uint8_t p[512])
{
	memset(p, 0, 512);
	p[0] = 0x03;
	p[1] = 0x04;
	p[2] = 0x07;            /* LC */
	p[3] = 0x20;            /* 10GBASE-LR */
	p[11] = 0x06;           /* 64B/66B (the SFP meaning of 06h) */
	p[12] = 0x67;           /* 10.3 Gbps */
	p[14] = 10;             /* 10 km */
	p[15] = 100;            /* 100 x 100 m */
	put_ascii(p, 20, 16, "FINISAR CORP.");
	p[37] = 0x00;
	p[38] = 0x90;
	p[39] = 0x65;
	put_ascii(p, 40, 16, "FTLX1471D3BCL");
	put_ascii(p, 56, 4, "A");
	put16(p, 60, 1310);
	p[65] = 0x1a;           /* TX_DISABLE, TX_FAULT, LOS */
	put_ascii(p, 68, 16, "ALM0Q5N");
	put_ascii(p, 84, 8, "19120301");
	p[92] = 0x58;           /* DDM, externally calibrated, average RX power */
	p[93] = 0xf0;           /* flags, soft TX_DISABLE, TX_FAULT, RX_LOS */
	p[94] = 0x03;           /* SFF-8472 rev 10.2 */

	/* A2h thresholds in A/D units (the calibration applies to them too). */
	put16(p, A2 + 0, 73 * 256);  /* temperature: 75 C */
	put16(p, A2 + 2, 0x10000 - 7 * 256); /* -5 C */
	put16(p, A2 + 4, 68 * 256);  /* 70 C */
	put16(p, A2 + 6, 0x10000 - 2 * 256); /* 0 C */
	put16(p, A2 + 8, 37000);     /* Vcc: 3.6 V */
	put16(p, A2 + 10, 31000);    /* 3.0 V */
	put16(p, A2 + 12, 36000);    /* 3.5 V */
	put16(p, A2 + 14, 32000);    /* 3.1 V */
	put16(p, A2 + 16, 4000);     /* bias: (6000 - 100) x 2 uA = 11.8 mA */
	put16(p, A2 + 18, 1000);     /* 2.8 mA */
	put16(p, A2 + 20, 3400);     /* 10.0 mA */
	put16(p, A2 + 22, 1400);     /* 4.0 mA */
	put16(p, A2 + 24, 9950);     /* TX power: 1.0 mW */
	put16(p, A2 + 26, 950);      /* 0.1 mW */
	put16(p, A2 + 28, 7950);     /* 0.8 mW */
	put16(p, A2 + 30, 1950);     /* 0.2 mW */
	put16(p, A2 + 32, 19980);    /* RX power: 1.0 mW */
	put16(p, A2 + 34, 40);       /* 0.003 mW */
	put16(p, A2 + 36, 15980);    /* 0.8 mW */
	put16(p, A2 + 38, 180);      /* 0.01 mW */
	put_float(p, A2 + 56, 0.0f); /* Rx_PWR(4) */
	put_float(p, A2 + 60, 0.0f);
	put_float(p, A2 + 64, 0.0f);
	put_float(p, A2 + 68, 0.5f); /* Rx_PWR(1) */
	put_float(p, A2 + 72, 10.0f); /* Rx_PWR(0) */
	put16(p, A2 + 76, 0x0180);   /* Tx_I slope 1.5 */
	put16(p, A2 + 78, 0x10000 - 100);
	put16(p, A2 + 80, 0x0100);   /* Tx_PWR slope 1 */
	put16(p, A2 + 82, 50);
	put16(p, A2 + 84, 0x0100);   /* T slope 1 */
	put16(p, A2 + 86, 512);
	put16(p, A2 + 88, 0x0100);   /* V slope 1 */
	put16(p, A2 + 90, 0x10000 - 1000);
	put16(p, A2 + 96, 30 * 256); /* live: 32.0 C */
	put16(p, A2 + 98, 34000);    /* 3.3 V */
	put16(p, A2 + 100, 3000);    /* 8.8 mA */
	put16(p, A2 + 102, 5000);    /* 0.505 mW */
	put16(p, A2 + 104, 8000);    /* 0.401 mW */
	fix_cc(p);
}

static void test_real_lr(void **state)
{
	struct apenet_sff8472 m;
	uint8_t p[512];
	char codes[256], msgs[1024];

	(void)state;
	real_lr(p);
	decode_ok(p, sizeof(p), &m);
	assert_string_equal(m.media, "10GBASE-LR");
	assert_string_equal(m.encoding_name, "64B/66B");
	assert_int_equal(m.len_smf_km, 10);
	assert_int_equal(m.len_smf_m, 10000);
	assert_string_equal(m.vendor, "FINISAR CORP.");
	assert_string_equal(m.part, "FTLX1471D3BCL");
	assert_string_equal(m.vendor_rev, "A");
	assert_string_equal(m.serial, "ALM0Q5N");
	assert_string_equal(m.date, "2019-12-03");
	assert_string_equal(m.lot, "01");
	assert_true(m.wavelength_nm == 1310.0);
	assert_string_equal(m.compliance_rev_name, "SFF-8472 rev 10.2");
	assert_true(m.external_cal && !m.internal_cal);
	assert_true(m.cc_base_ok && m.cc_ext_ok && m.cc_dmi_ok);
	assert_true(m.a2_present);
	assert_true(fabs(m.cal.rx_pwr[1] - 0.5) < 1e-9 && fabs(m.cal.rx_pwr[0] - 10.0) < 1e-9);
	assert_true(fabs(m.cal.tx_i_slope - 1.5) < 1e-9 && m.cal.tx_i_offset == -100.0);
	assert_true(fabs(m.temp_c - 32.0) < 1e-9);
	assert_true(fabs(m.vcc_v - 3.3) < 1e-9);
	assert_true(fabs(m.tx_bias_ma - 8.8) < 1e-9);
	assert_true(fabs(m.tx_power_mw - 0.505) < 1e-9);
	assert_true(fabs(m.rx_power_mw - 0.401) < 1e-9);
	assert_true(fabs(m.rx_power_dbm - 10.0 * log10(0.401)) < 1e-9);
	assert_true(fabs(m.th_temp.high_alarm - 75.0) < 1e-9 && fabs(m.th_temp.low_alarm + 5.0) < 1e-9);
	assert_true(fabs(m.th_vcc.low_warn - 3.1) < 1e-9);
	assert_true(fabs(m.th_tx_bias.high_alarm - 11.8) < 1e-9);
	assert_true(fabs(m.th_tx_power.high_warn - 0.8) < 1e-9);
	assert_true(fabs(m.th_rx_power.low_alarm - 0.003) < 1e-9);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);

	/* The soft status bits, each counted only when byte 93 says the module drives it. */
	p[A2 + 110] = 0x06;     /* TX fault, RX LOS */
	decode_ok(p, sizeof(p), &m);
	assert_true(m.tx_fault_state && m.rx_los_state);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 2);
	assert_string_equal(codes, "MODULE_TX_FAULT MODULE_LOS");
	p[93] = 0x80;           /* flags only */
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);

	/* Alarm and warning flags (112-117): counted only with byte 93 bit 7. */
	real_lr(p);
	p[A2 + 112] = 0x80;     /* temperature high alarm */
	p[A2 + 117] = 0x40;     /* RX power low warning */
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(m.temp_flags, APENET_AW_HIGH_ALARM);
	assert_int_equal(m.rx_power_flags, APENET_AW_LOW_WARN);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 2);
	assert_string_equal(codes, "MODULE_ALARM MODULE_WARNING");
	assert_string_equal(msgs, "temperature high alarm flagged by the module (now 32.0 C, threshold 75.0 C); "
				  "RX power low warning flagged by the module (now 0.4010 mW, threshold 0.0100 mW)");
	p[93] = 0x70;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);

	/* Thresholds crossed with no flag: the live reading speaks. */
	real_lr(p);
	put16(p, A2 + 100, 4500); /* 13.3 mA over 11.8 */
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 1);
	assert_string_equal(msgs, "TX bias high alarm: 13.30 mA above the 11.80 mA threshold");

	/* A bad DMI check code is its own finding. */
	real_lr(p);
	p[A2 + 95] ^= 0x10;
	decode_ok(p, sizeof(p), &m);
	assert_false(m.cc_dmi_ok);
	judge(&m, codes, sizeof(codes), msgs, sizeof(msgs));
	assert_string_equal(codes, "MODULE_CHECKSUM");
	assert_true(strstr(msgs, "dmi check code (CC_DMI) is wrong") != NULL);

	/* No DDM (byte 92 bit 6 clear), or an A2h never read: no monitors at all. */
	real_lr(p);
	p[92] = 0x18;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_false(m.a2_present);
	real_lr(p);
	memset(p + A2, 0xff, 256);
	decode_ok(p, sizeof(p), &m);
	assert_false(m.a2_present);
	assert_true(m.temp_c == 0.0);

	/* A cable's bytes 60-61 are its compliance; byte 18 is metres of copper. */
	real_lr(p);
	p[3] = 0;
	p[8] = 0x08;            /* active cable */
	p[2] = 0x21;            /* copper pigtail */
	p[18] = 5;
	p[60] = 0x04;
	p[61] = 0;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.active_cable && m.copper);
	assert_string_equal(m.cable_compliance_names, "SFF-8431 Limiting");
	assert_int_equal(m.len_copper_m, 5);
	assert_string_equal(m.media, "SFP+ active cable");
	/* A copper cable with diagnostics is never judged on optics. */
	put16(p, A2 + 104, 0);  /* RX power far below its low alarm */
	p[A2 + 113] = 0x40;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);
}

/* ---- issue 20: lengths by medium, a dark transmitter, a checksum alone, DWDM wavelengths ---- */

/* A 1000BASE-T SFP (RJ45), A0h only, in the style of a real one: byte 18 is 100 m of copper. */
static void base_t(uint8_t p[512])
{
	memset(p, 0, 512);
	p[0] = 0x03;
	p[1] = 0x04;
	p[2] = 0x22;            /* RJ45 */
	p[6] = 0x08;            /* 1000BASE-T */
	p[11] = 0x01;           /* 8B/10B */
	p[12] = 0x0d;           /* 1.3 Gbps */
	p[18] = 100;            /* 100 m of copper */
	put_ascii(p, 20, 16, "FINISAR CORP.");
	put_ascii(p, 40, 16, "FCLF8521P2BTL");
	put_ascii(p, 56, 4, "A");
	p[65] = 0x10;           /* TX_DISABLE */
	put_ascii(p, 68, 16, "PUH2ABC");
	put_ascii(p, 84, 8, "15031201");
	fix_cc(p);
}

static void test_lengths_follow_the_medium(void **state)
{
	struct apenet_sff8472 m;
	struct apenet_module_health h;
	uint8_t p[512];
	char codes[256], msgs[1024];

	(void)state;
	/* 1000BASE-T: byte 18 is metres of copper, not "OM4 x10 m". */
	base_t(p);
	decode_ok(p, 256, &m);
	assert_string_equal(m.media, "1000BASE-T");
	assert_true(m.copper && m.len_cable);
	assert_false(m.passive_cable || m.active_cable);
	assert_int_equal(m.len_copper_m, 100);
	assert_int_equal(m.len_om4_m, 0);
	/* A copper module has no fibre: bytes 14-15 and 19 are not fibre lengths. */
	p[14] = 3;
	p[15] = 30;
	p[19] = 0x42;           /* rev 12.4: a copper cable's length multiplier */
	fix_cc(p);
	decode_ok(p, 256, &m);
	assert_int_equal(m.len_smf_km + m.len_smf_m + m.len_om2_m + m.len_om1_m + m.len_om3_m, 0);
	assert_int_equal(m.len_copper_m, 100);
	/* 1000BASE-T whatever the connector says. */
	p[2] = 0x00;
	fix_cc(p);
	decode_ok(p, 256, &m);
	assert_true(m.copper && m.len_cable);
	assert_int_equal(m.len_copper_m, 100);

	/* Twin-ax (byte 9 bit 7) with no cable bit: a copper cable, 3 m. */
	base_t(p);
	p[2] = 0x23;            /* no separable connector */
	p[6] = 0;
	p[9] = 0x80;            /* FC: twin axial pair */
	p[18] = 3;
	fix_cc(p);
	decode_ok(p, 256, &m);
	assert_true(m.copper && m.len_cable);
	assert_int_equal(m.len_copper_m, 3);
	assert_int_equal(m.len_om4_m, 0);

	/* A module that also declares an optical code is not copper: byte 18 is OM4. */
	base_t(p);
	p[2] = 0x07;            /* LC */
	p[6] = 0x09;            /* 1000BASE-T and 1000BASE-SX */
	p[18] = 10;
	fix_cc(p);
	decode_ok(p, 256, &m);
	assert_false(m.copper || m.len_cable);
	assert_int_equal(m.len_om4_m, 100);
	assert_int_equal(m.len_copper_m, 0);

	/* An optical module: OM4 in 10 m, its fibre lengths as they are. */
	real_lr(p);
	p[18] = 10;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_false(m.copper || m.len_cable);
	assert_int_equal(m.len_om4_m, 100);
	assert_int_equal(m.len_copper_m, 0);
	assert_int_equal(m.len_smf_km, 10);
	/* An active optical cable: byte 18 is the cable's length; it stays optical. */
	p[8] = 0x08;            /* active cable, LC: not a copper pigtail */
	p[18] = 7;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.active_cable && m.len_cable);
	assert_false(m.copper);
	assert_int_equal(m.len_copper_m, 7);
	assert_int_equal(m.len_om4_m, 0);

	/* 10GBASE-T (extended code 16h, RJ45) with diagnostics: no laser, so no TX bias to be low. */
	real_lr(p);
	p[3] = 0;
	p[2] = 0x22;
	p[36] = 0x16;
	p[18] = 30;
	put16(p, A2 + 100, 67); /* 0.001 mA: far below the 2.8 mA low alarm */
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.copper && m.len_cable);
	assert_int_equal(m.len_copper_m, 30);
	apenet_sff8472_health(&m, &h);
	assert_true(h.copper && h.mon[APENET_MON_TEMP].present);
	assert_false(h.mon[APENET_MON_TX_BIAS].present);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);
}

/* A transmitter fault darkens the laser: one MODULE_TX_FAULT with the readings as its evidence. */
static void test_tx_fault_dark_laser(void **state)
{
	struct apenet_sff8472 m;
	struct apenet_module_health h;
	struct apenet_findings fs;
	uint8_t p[512];
	char codes[256], msgs[1024];

	(void)state;
	real_lr(p);
	p[A2 + 110] = 0x04;     /* TX fault */
	put16(p, A2 + 100, 67); /* (1.5 x 67 - 100) x 2 uA = 0.001 mA */
	put16(p, A2 + 102, 0);  /* 0 + 50: 0.005 mW */
	p[A2 + 112] = 0x05;     /* TX bias and TX power low alarms */
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 1);
	assert_string_equal(codes, "MODULE_TX_FAULT");
	apenet_sff8472_health(&m, &h);
	apenet_findings_init(&fs);
	apenet_rules_module(&h, 1, "10GbE1", &fs);
	assert_string_equal(fs.f[0].evidence, "SFF-8472 status flag set by the module; TX bias 0.00 mA (low alarm "
					      "2.80 mA), TX power 0.0050 mW (low alarm 0.1000 mW)");
	apenet_findings_free(&fs);
	/* A module that does not drive its soft TX_FAULT bit: the alarms are the module's own. */
	p[93] = 0x80;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 2);
	assert_string_equal(codes, "MODULE_ALARM MODULE_ALARM");
}

/* A check code alone: a fail finding, and no condition counted (alarm_count 0). */
static void test_checksum_alone(void **state)
{
	struct apenet_sff8472 m;
	uint8_t p[512];
	char codes[256], msgs[1024];

	(void)state;
	real_lr(p);
	p[40] = 'G';            /* part number changed, check code not */
	decode_ok(p, sizeof(p), &m);
	assert_false(m.cc_base_ok);
	assert_true(m.cc_ext_ok && m.cc_dmi_ok);
	assert_int_equal(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)), 0);
	assert_string_equal(codes, "MODULE_CHECKSUM");
}

/* A DWDM module: bytes 60-61 the integer nm, byte 62 the fraction in 0.01 nm. */
static void test_dwdm_wavelength(void **state)
{
	struct apenet_sff8472 m;
	uint8_t p[512];

	(void)state;
	real_lr(p);
	put16(p, 60, 1544);
	p[62] = 53;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(fabs(m.wavelength_nm - 1544.53) < 1e-9);
	p[62] = 0;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.wavelength_nm == 1544.0);
	/* Byte 10 bit 1 makes byte 62 the Fibre Channel speed 2 codes: no fraction. */
	p[10] = 0x02;
	p[62] = 0x01;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.wavelength_nm == 1544.0);
	/* 100 hundredths or more is no fraction. */
	p[10] = 0;
	p[62] = 150;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.wavelength_nm == 1544.0);
	/* No wavelength: no fraction of one. */
	put16(p, 60, 0);
	p[62] = 53;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.wavelength_nm == 0.0);
}

static void test_names_and_codes(void **state)
{
	struct apenet_sff8472 m;
	uint8_t p[512];

	(void)state;
	assert_string_equal(apenet_sff8472_encoding_name(0x04), "Manchester");
	assert_string_equal(apenet_sff8472_encoding_name(0x05), "SONET Scrambled");
	assert_string_equal(apenet_sff8472_encoding_name(0x42), "Reserved");
	assert_string_equal(apenet_sff8472_rate_id_name(0x02), "SFF-8431 (8/4/2G Rx Rate_Select only)");
	assert_string_equal(apenet_sff8472_rate_id_name(0x03), "Reserved");
	assert_string_equal(apenet_sff8472_compliance_rev_name(0x09), "SFF-8472 rev 12.4");
	assert_string_equal(apenet_sff8472_compliance_rev_name(0x0a), "Unallocated");

	/* The extended code (byte 36) names the module first. */
	real_lr(p);
	p[36] = 0x02;
	p[6] = 0x01;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_string_equal(m.media, "100GBASE-SR4 or 25GBASE-SR");
	assert_string_equal(m.compliance, "100GBASE-SR4 or 25GBASE-SR, 10GBASE-LR, 1000BASE-SX");
	/* Extended rate: byte 12 0xff hands over to byte 66 (250 Mbps units). */
	p[12] = 0xff;
	p[66] = 103;
	fix_cc(p);
	decode_ok(p, sizeof(p), &m);
	assert_true(m.br_extended);
	assert_int_equal(m.br_nominal_mbps, 25750);
}

static void test_bad_images(void **state)
{
	static const size_t bad[] = { 0, 1, 128, 255, 257, 300, 511 };
	uint8_t img[700];
	struct apenet_sff8472 m;
	char want[64];

	(void)state;
	real_lr(img);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "EEPROM dump is %zu bytes: expected 256", bad[i]);
		decode_fails(img, bad[i], want);
	}
	decode_ok(img, 640, &m); /* a card window: the first 512 are the pages */
	assert_int_equal(m.len, 512);
	img[0] = 0x0d;
	decode_fails(img, 512, "byte 0 (identifier) is 0x0d: not an SFF-8472 module (a QSFP? use SFF-8636)");
	memset(img, 0xff, sizeof(img));
	decode_fails(img, 512, "all 0xff");
	memset(img, 0, sizeof(img));
	decode_fails(img, 256, "all zeros");
}

/* Which decoder reads an image, and sizes that fit neither. */
static void test_identify(void **state)
{
	uint8_t img[IMG];
	enum apenet_ee_layout l = APENET_EE_NONE;
	char err[320];
	static struct apenet_module_image mi;

	(void)state;
	memset(img, 0, sizeof(img));
	real_lr(img);
	assert_int_equal(apenet_module_identify(img, 512, &l, err, sizeof(err)), APENET_MFILE_OK);
	assert_int_equal(l, APENET_EE_SFF8472);
	assert_int_equal(apenet_module_identify(img, 256, &l, err, sizeof(err)), APENET_MFILE_OK);
	assert_int_equal(apenet_module_identify(img, 640, &l, err, sizeof(err)), APENET_MFILE_SIZE);
	assert_string_equal(err, "640 bytes, identifier 0x03 (SFP/SFP+/SFP28): an SFP image (SFF-8472) is 256 bytes "
				 "(A0h) or 512 (A0h then A2h)");
	assert_int_equal(apenet_module_identify(img, 100, &l, err, sizeof(err)), APENET_MFILE_SIZE);
	assert_true(strstr(err, "100 bytes, identifier 0x03") != NULL);
	img[0] = 0x18;
	assert_int_equal(apenet_module_identify(img, 512, &l, err, sizeof(err)), APENET_MFILE_KIND);
	assert_true(strstr(err, "512 bytes, identifier 0x18 (QSFP-DD): not a QSFP (SFF-8636) or SFP") != NULL);

	/* A card window: the layout EE_STATUS declares, else the identifier's. */
	real_lr(img);
	apenet_module_from_window(img, APENET_SET(EE_STATUS, PRESENT, 1) | APENET_SET(EE_STATUS, LAYOUT, 2), &mi);
	assert_int_equal(mi.layout, APENET_EE_SFF8472);
	assert_int_equal(mi.len, 512);
	apenet_module_from_window(img, APENET_SET(EE_STATUS, PRESENT, 1), &mi);
	assert_int_equal(mi.layout, APENET_EE_SFF8472);
	img[0] = 0x0d;
	apenet_module_from_window(img, APENET_SET(EE_STATUS, PRESENT, 1), &mi);
	assert_int_equal(mi.layout, APENET_EE_SFF8636);
	assert_int_equal(mi.len, 640);
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
	static const uint8_t ids[3] = { 0x02, 0x03, 0x0b };
	uint32_t seed = 0x8472u;
	unsigned decoded = 0, with_a2 = 0;

	(void)state;
	for (int it = 0; it < 5000; it++) {
		size_t len = rnd(&seed) % 3 == 0 ? rnd(&seed) % 600 : rnd(&seed) % 2 ? 512 : 256;
		uint8_t *buf = malloc(len ? len : 1); /* exactly len bytes: ASan catches reads past them */
		struct apenet_sff8472 m;
		char err[200], codes[2048], msgs[8192];
		int rc;

		assert_non_null(buf);
		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rnd(&seed);
		if (len && rnd(&seed) % 8)
			buf[0] = ids[rnd(&seed) % 3];
		if (len > 92 && rnd(&seed) % 2)
			buf[92] |= 0x40;
		rc = apenet_sff8472_decode(buf, len, &m, err, sizeof(err));
		if (rc == 0) {
			decoded++;
			with_a2 += m.a2_present;
			assert_printable(m.vendor, sizeof(m.vendor));
			assert_printable(m.part, sizeof(m.part));
			assert_printable(m.vendor_rev, sizeof(m.vendor_rev));
			assert_printable(m.serial, sizeof(m.serial));
			assert_printable(m.date, sizeof(m.date));
			assert_printable(m.compliance, sizeof(m.compliance));
			assert_printable(m.options_names, sizeof(m.options_names));
			assert_non_null(m.media);
			/* 5 monitors x 2 sides, RX LOS, TX fault. */
			assert_true(judge(&m, codes, sizeof(codes), msgs, sizeof(msgs)) <= 12);
			assert_printable(msgs, sizeof(msgs));
		} else {
			int len_ok = len == 256 || len >= 512;
			int id_ok = len && (buf[0] == 0x02 || buf[0] == 0x03 || buf[0] == 0x0b);

			assert_false(len_ok && id_ok);
			assert_printable(err, sizeof(err));
		}
		free(buf);
	}
	assert_true(decoded > 1000 && with_a2 > 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sim_optical),
		cmocka_unit_test(test_sim_copper),
		cmocka_unit_test(test_sim_dom),
		cmocka_unit_test(test_real_lr),
		cmocka_unit_test(test_lengths_follow_the_medium),
		cmocka_unit_test(test_tx_fault_dark_laser),
		cmocka_unit_test(test_checksum_alone),
		cmocka_unit_test(test_dwdm_wavelength),
		cmocka_unit_test(test_names_and_codes),
		cmocka_unit_test(test_bad_images),
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
