/*
 * apenet-sim: SFF-8472 (rev 12.3) EEPROM image of an SFP+ module.
 *
 * Image layout (the card's 640-byte window, as `ethtool -m raw on` writes
 * an SFP's 512 bytes):
 *   0-255   A0h: serial ID              (byte N of the spec at offset N)
 *   256-511 A2h: diagnostics            (byte N at offset 256 + N)
 *   512-639 zero
 * A passive cable has no diagnostics: A2h stays zero and byte 92 says so.
 * Written from the specification, independently of the decoder in
 * collectors/sff8472.c, so the unit tests can hold one against the other.
 */
#include <string.h>

#include "eeprom.h"
#include "eeprom_enc.h"

/* A0h. */
enum {
	A0_ID = 0,
	A0_EXT_ID = 1,
	A0_CONNECTOR = 2,
	A0_10G_ETH = 3,      /* transceiver codes, byte 3 of 3-10 */
	A0_GBE = 6,
	A0_CABLE_TECH = 8,
	A0_ENCODING = 11,
	A0_BR = 12,          /* 100 Mbps units */
	A0_LEN_OM2 = 16,     /* 10 m */
	A0_LEN_OM1 = 17,     /* 10 m */
	A0_LEN_OM4_CU = 18,  /* fibre: OM4 in 10 m; cable: 1 m */
	A0_LEN_OM3 = 19,     /* 10 m */
	A0_VENDOR = 20,      /* 16 bytes */
	A0_OUI = 37,         /* 3 bytes */
	A0_PN = 40,          /* 16 bytes */
	A0_REV = 56,         /* 4 bytes */
	A0_WAVELEN = 60,     /* nm; for a cable, byte 60 is its compliance */
	A0_CC_BASE = 63,     /* sum of 0-62 */
	A0_OPTIONS = 64,     /* 2 bytes */
	A0_SN = 68,          /* 16 bytes */
	A0_DATE = 84,        /* 8 bytes YYMMDDLL */
	A0_DIAG = 92,
	A0_ENH = 93,
	A0_COMPLIANCE = 94,
	A0_CC_EXT = 95,      /* sum of 64-94 */
};

/* A2h: spec byte N at image offset A2 + N. */
#define A2 256u
enum {
	A2_TH_TEMP = 0, /* each group: +0 high alarm, +2 low alarm, +4 high warn, +6 low warn */
	A2_TH_VCC = 8,
	A2_TH_BIAS = 16,
	A2_TH_TXP = 24,
	A2_TH_RXP = 32,
	A2_CC_DMI = 95,  /* sum of 0-94 */
	A2_TEMP = 96,
	A2_VCC = 98,
	A2_BIAS = 100,
	A2_TXP = 102,
	A2_RXP = 104,
	A2_STATUS = 110,
	A2_ALARMS = 112, /* 112-113 */
	A2_WARNINGS = 116, /* 116-117 */
};
enum { TH_HA = 0, TH_LA = 2, TH_HW = 4, TH_LW = 6 };

#define ID_SFP 0x03
#define EXT_ID_2WIRE 0x04          /* function defined by the serial ID only */
#define CONN_LC 0x07
#define CONN_COPPER_PIGTAIL 0x21
#define ETH_10GBASE_SR 0x10
#define GBE_1000BASE_SX 0x01
#define CABLE_PASSIVE 0x04
#define ENC_8B10B 0x01
#define ENC_64B66B 0x06
#define CABLE_SFF8431_APP_E 0x01
#define OPT_TX_DISABLE 0x10        /* byte 65 */
#define OPT_TX_FAULT 0x08
#define OPT_LOS 0x02
/* Byte 92: diagnostics implemented, internally calibrated, average RX power. */
#define DIAG_INTERNAL_AVG 0x68
/* Byte 93: alarm/warning flags, soft TX_FAULT and soft RX_LOS implemented. */
#define ENH_FLAGS_FAULT_LOS 0xb0
#define COMPLIANCE_REV_12_3 0x08

#define STATUS_TX_FAULT 0x04
#define STATUS_RX_LOS 0x02

/* Thresholds the made-up optical module ships with (typical SR datasheets). */
struct th_set {
	double ha, la, hw, lw;
};
static const struct th_set th_temp_c = { 75.0, -5.0, 70.0, 0.0 };
static const struct th_set th_vcc_v = { 3.63, 2.97, 3.465, 3.135 };
static const struct th_set th_bias_ma = { 12.0, 2.0, 10.0, 3.0 };
static const struct th_set th_tx_mw = { 1.0, 0.1, 0.79, 0.16 };       /* 0/-10/-1/-8 dBm */
static const struct th_set th_rx_mw = { 1.585, 0.0229, 1.0, 0.0457 }; /* +2/-16.4/0/-13.4 dBm */

/* The receiver's LOS detector, as for the QSFP: -20 dBm. */
#define RX_LOS_MW 0.01

static void put_th(uint8_t *out, unsigned base, const struct th_set *t, uint16_t (*enc)(double))
{
	sim_ee_put16(out, A2 + base + TH_HA, enc(t->ha));
	sim_ee_put16(out, A2 + base + TH_LA, enc(t->la));
	sim_ee_put16(out, A2 + base + TH_HW, enc(t->hw));
	sim_ee_put16(out, A2 + base + TH_LW, enc(t->lw));
}

static unsigned aw_unsigned(const uint8_t *img, unsigned base, unsigned mon)
{
	return sim_ee_aw((long)sim_ee_get16(img, A2 + mon), (long)sim_ee_get16(img, A2 + base + TH_HA),
			 (long)sim_ee_get16(img, A2 + base + TH_LA), (long)sim_ee_get16(img, A2 + base + TH_HW),
			 (long)sim_ee_get16(img, A2 + base + TH_LW));
}

void sim_eeprom_update_dom_sfp(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN])
{
	unsigned t, v, b, tx, rx;
	uint8_t al[2] = { 0, 0 }, wa[2] = { 0, 0 };

	if (m->kind != SIM_MOD_OPTICAL || m->form != SIM_FORM_SFP)
		return;
	sim_ee_put16(out, A2 + A2_TEMP, sim_ee_temp(m->temp_c));
	sim_ee_put16(out, A2 + A2_VCC, sim_ee_vcc(m->vcc_v));
	sim_ee_put16(out, A2 + A2_BIAS, sim_ee_bias(m->tx_bias_ma[0]));
	sim_ee_put16(out, A2 + A2_TXP, sim_ee_power(m->tx_power_mw[0]));
	sim_ee_put16(out, A2 + A2_RXP, sim_ee_power(m->rx_power_mw[0]));

	/* Temperature compares signed. */
	t = sim_ee_aw(sim_ee_get_temp(out, A2 + A2_TEMP), sim_ee_get_temp(out, A2 + A2_TH_TEMP + TH_HA),
		      sim_ee_get_temp(out, A2 + A2_TH_TEMP + TH_LA), sim_ee_get_temp(out, A2 + A2_TH_TEMP + TH_HW),
		      sim_ee_get_temp(out, A2 + A2_TH_TEMP + TH_LW));
	v = aw_unsigned(out, A2_TH_VCC, A2_VCC);
	b = aw_unsigned(out, A2_TH_BIAS, A2_BIAS);
	tx = aw_unsigned(out, A2_TH_TXP, A2_TXP);
	rx = aw_unsigned(out, A2_TH_RXP, A2_RXP);
	/*
	 * Bytes 112/116: temperature bits 7-6, Vcc 5-4, bias 3-2, TX power 1-0
	 * (high then low); bytes 113/117 bits 7-6: RX power.  A nibble's bits
	 * 3-2 are the alarms, 1-0 the warnings.
	 */
	al[0] = (uint8_t)((t >> 2) << 6 | (v >> 2) << 4 | (b >> 2) << 2 | (tx >> 2));
	wa[0] = (uint8_t)((t & 3u) << 6 | (v & 3u) << 4 | (b & 3u) << 2 | (tx & 3u));
	al[1] = (uint8_t)((rx >> 2) << 6);
	wa[1] = (uint8_t)((rx & 3u) << 6);
	memcpy(out + A2 + A2_ALARMS, al, 2);
	memcpy(out + A2 + A2_WARNINGS, wa, 2);

	/* Status: RX LOS from the detector level, data ready (bit 0 clear); no TX fault. */
	out[A2 + A2_STATUS] &= (uint8_t)~(STATUS_RX_LOS | STATUS_TX_FAULT | 0x01);
	if (sim_ee_get16(out, A2 + A2_RXP) < sim_ee_power(RX_LOS_MW))
		out[A2 + A2_STATUS] |= STATUS_RX_LOS;
}

static void build_a0(const struct sim_module *m, uint8_t *out)
{
	int ten_g = m->nominal_gbps > 2.0;

	out[A0_ID] = ID_SFP;
	out[A0_EXT_ID] = EXT_ID_2WIRE;
	out[A0_BR] = (uint8_t)sim_ee_unsigned(m->nominal_gbps > 25.4 ? 25.4 : m->nominal_gbps, 10.0);
	sim_ee_put_str(out, A0_VENDOR, 16, m->vendor);
	memcpy(out + A0_OUI, m->oui, 3);
	sim_ee_put_str(out, A0_PN, 16, m->part);
	sim_ee_put_str(out, A0_REV, 4, m->rev);
	sim_ee_put_str(out, A0_SN, 16, m->serial);
	sim_ee_put_str(out, A0_DATE, 8, m->date);
	if (m->kind == SIM_MOD_COPPER) {
		out[A0_CONNECTOR] = CONN_COPPER_PIGTAIL;
		out[A0_CABLE_TECH] = CABLE_PASSIVE;
		out[A0_ENCODING] = ten_g ? ENC_64B66B : ENC_8B10B;
		out[A0_LEN_OM4_CU] = (uint8_t)(m->length_m > 255 ? 255 : m->length_m);
		out[A0_WAVELEN] = CABLE_SFF8431_APP_E;
		/* Byte 92 zero: no diagnostics, no A2h. */
	} else {
		out[A0_CONNECTOR] = CONN_LC;
		if (ten_g)
			out[A0_10G_ETH] = ETH_10GBASE_SR;
		else
			out[A0_GBE] = GBE_1000BASE_SX;
		out[A0_ENCODING] = ten_g ? ENC_64B66B : ENC_8B10B;
		/* Reach by fibre grade, in 10 m units: what SR/SX datasheets give. */
		out[A0_LEN_OM2] = ten_g ? 8 : 55;
		out[A0_LEN_OM1] = ten_g ? 3 : 27;
		out[A0_LEN_OM3] = ten_g ? 30 : 100;
		out[A0_LEN_OM4_CU] = ten_g ? 40 : 100;
		sim_ee_put16(out, A0_WAVELEN, 850);
		out[A0_OPTIONS + 1] = OPT_TX_DISABLE | OPT_TX_FAULT | OPT_LOS;
		out[A0_DIAG] = DIAG_INTERNAL_AVG;
		out[A0_ENH] = ENH_FLAGS_FAULT_LOS;
		out[A0_COMPLIANCE] = COMPLIANCE_REV_12_3;
	}
	out[A0_CC_BASE] = sim_ee_sum8(out, 0, A0_CC_BASE - 1);
	out[A0_CC_EXT] = sim_ee_sum8(out, A0_OPTIONS, A0_CC_EXT - 1);
}

void sim_eeprom_build_sfp(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN])
{
	memset(out, 0, APENET_EE_DATA_LEN);
	if (m->kind != SIM_MOD_COPPER && m->kind != SIM_MOD_OPTICAL)
		return;
	build_a0(m, out);
	if (m->kind != SIM_MOD_OPTICAL)
		return;
	put_th(out, A2_TH_TEMP, &th_temp_c, sim_ee_temp);
	put_th(out, A2_TH_VCC, &th_vcc_v, sim_ee_vcc);
	put_th(out, A2_TH_BIAS, &th_bias_ma, sim_ee_bias);
	put_th(out, A2_TH_TXP, &th_tx_mw, sim_ee_power);
	put_th(out, A2_TH_RXP, &th_rx_mw, sim_ee_power);
	/* Internally calibrated: bytes 56-91 stay zero.  The live values are not covered. */
	out[A2 + A2_CC_DMI] = sim_ee_sum8(out, A2, A2 + A2_CC_DMI - 1);
	sim_eeprom_update_dom_sfp(m, out);
}
