/*
 * apenet-sim: SFF-8636 (rev 2.x) EEPROM image of a QSFP+ module.
 *
 * Image layout (APENET_EE_DATA_LEN = 640 bytes, as `ethtool -m raw on`):
 *   0-127   lower page 00h        (byte N of the spec at offset N)
 *   128-255 upper page 00h        (byte N at offset N)
 *   256-383 upper page 01h        (byte N at offset N + 128)      zero
 *   384-511 upper page 02h        (byte N at offset N + 256)      zero
 *   512-639 upper page 03h        (byte N at offset N + 384)      thresholds
 * Every multi-byte value is big-endian, as on the module's I2C interface.
 */
#include <string.h>

#include "eeprom.h"
#include "eeprom_enc.h"

/* Lower page 00h. */
enum {
	LP_ID = 0,
	LP_REV = 1,
	LP_STATUS = 2,
	LP_LOS = 3,        /* Tx LOS 4..1 in bits 7-4, Rx LOS 4..1 in bits 3-0 */
	LP_TEMP_FLAGS = 6, /* bits 7-4: high alarm, low alarm, high warn, low warn */
	LP_VCC_FLAGS = 7,
	LP_RX_FLAGS = 9,   /* 9: lanes 1 (bits 7-4) and 2 (3-0); 10: lanes 3 and 4 */
	LP_BIAS_FLAGS = 11,
	LP_TXP_FLAGS = 13,
	LP_TEMP = 22,
	LP_VCC = 26,
	LP_RX_PWR = 34,    /* 4 lanes x 2 bytes */
	LP_TX_BIAS = 42,
	LP_TX_PWR = 50,
	LP_PAGE_SEL = 127,
};

/* Upper page 00h. */
enum {
	U0_ID = 128,
	U0_EXT_ID = 129,
	U0_CONNECTOR = 130,
	U0_ETH_COMPL = 131,
	U0_ENCODING = 139,
	U0_BR_NOMINAL = 140,
	U0_LEN_OM3 = 143,  /* units of 2 m */
	U0_LEN_CU = 146,   /* copper cable assembly, units of 1 m */
	U0_DEV_TECH = 147,
	U0_VENDOR = 148,   /* 16 bytes */
	U0_OUI = 165,      /* 3 bytes */
	U0_PN = 168,       /* 16 bytes */
	U0_REV = 184,      /* 2 bytes */
	U0_WAVELEN = 186,  /* optical: nm * 20; copper: atten 2.5 GHz, 5 GHz */
	U0_WAVETOL = 188,  /* optical: nm * 200; copper: atten 7 GHz, 12.9 GHz */
	U0_MAX_CASE = 190,
	U0_CC_BASE = 191,  /* sum of 128-190 */
	U0_SN = 196,       /* 16 bytes */
	U0_DATE = 212,     /* 8 bytes YYMMDDLL */
	U0_DIAG_TYPE = 220,
	U0_BR_EXT = 222,   /* units of 250 Mbps when byte 140 is 0xff */
	U0_CC_EXT = 223,   /* sum of 192-222 */
};

/* Upper page 03h thresholds: spec byte N of page 03h sits at image offset N + 384. */
#define P03(n) (384u + (n))
enum {
	P3_TEMP = 128, /* each group: +0 high alarm, +2 low alarm, +4 high warn, +6 low warn */
	P3_VCC = 144,
	P3_RX_PWR = 176,
	P3_TX_BIAS = 184,
	P3_TX_PWR = 192,
};
enum { TH_HA = 0, TH_LA = 2, TH_HW = 4, TH_LW = 6 };

#define ID_QSFP_PLUS 0x0d
#define REV_SFF8636_2_7 0x07    /* SFF-8636 rev 2.5, 2.6, 2.7 */
#define STATUS_FLAT_MEM 0x04    /* only lower page and upper page 00h */
#define STATUS_INTL 0x02        /* state of the IntL pin: 1 = deasserted */
#define CONN_MPO 0x0c
#define CONN_NO_SEPARABLE 0x23
#define ETH_40G_CR4 0x08
#define ETH_40G_SR4 0x04
#define ENC_64B66B 0x05
#define TECH_850_VCSEL 0x00
#define TECH_CU_UNEQUALIZED 0xa0
#define EXT_ID_POWER_CLASS_2 0x40
/* Byte 220: temperature and Vcc monitored, Rx power is average power, Tx power monitored. */
#define DIAG_OPTICAL 0x3c

/*
 * Thresholds the made-up optical module ships with (page 03h).  Typical of
 * SR4 datasheets; the live flags are computed against whatever page 03h
 * holds, so these only need to be sane and nested (LA < LW < HW < HA).
 */
struct th_set {
	double ha, la, hw, lw;
};
static const struct th_set th_temp_c = { 75.0, -5.0, 70.0, 0.0 };
static const struct th_set th_vcc_v = { 3.63, 2.97, 3.465, 3.135 };
static const struct th_set th_rx_mw = { 2.19, 0.046, 1.74, 0.115 };  /* +3.4/-13.4/+2.4/-9.4 dBm */
static const struct th_set th_bias_ma = { 12.0, 2.0, 10.0, 3.0 };
static const struct th_set th_tx_mw = { 2.19, 0.10, 1.74, 0.20 };    /* +3.4/-10/+2.4/-7 dBm */

/*
 * Rx LOS: page 03h has no LOS threshold (modules assert it in hardware), so a
 * fixed assert level of -20 dBm stands in for the receiver's detector.
 */
#define RX_LOS_MW 0.01

/* ---- encoders: sim/eeprom_enc.h ---- */

static void put_thresholds(uint8_t *out, unsigned base, const struct th_set *t,
			   uint16_t (*enc)(double))
{
	sim_ee_put16(out, P03(base) + TH_HA, enc(t->ha));
	sim_ee_put16(out, P03(base) + TH_LA, enc(t->la));
	sim_ee_put16(out, P03(base) + TH_HW, enc(t->hw));
	sim_ee_put16(out, P03(base) + TH_LW, enc(t->lw));
}

static unsigned aw_unsigned(const uint8_t *img, unsigned base, uint16_t raw)
{
	return sim_ee_aw(raw, (long)sim_ee_get16(img, P03(base) + TH_HA),
			 (long)sim_ee_get16(img, P03(base) + TH_LA),
			 (long)sim_ee_get16(img, P03(base) + TH_HW),
			 (long)sim_ee_get16(img, P03(base) + TH_LW));
}

/* Per-lane flags: lanes 1 and 2 share the first byte (lane 1 high nibble). */
static void put_lane_flags(uint8_t *out, unsigned flag_off, unsigned th_base, unsigned mon_off)
{
	uint8_t b[2] = { 0, 0 };

	for (unsigned lane = 0; lane < 4; lane++) {
		uint16_t raw = (uint16_t)sim_ee_get16(out, mon_off + 2 * lane);
		unsigned nib = aw_unsigned(out, th_base, raw);

		b[lane / 2] |= (uint8_t)(lane % 2 ? nib : nib << 4);
	}
	out[flag_off] = b[0];
	out[flag_off + 1] = b[1];
}

void sim_eeprom_update_dom(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN])
{
	uint16_t t;
	unsigned nib, any;

	if (m->kind != SIM_MOD_OPTICAL)
		return;
	if (m->form == SIM_FORM_SFP) {
		sim_eeprom_update_dom_sfp(m, out);
		return;
	}

	t = sim_ee_temp(m->temp_c);
	sim_ee_put16(out, LP_TEMP, t);
	sim_ee_put16(out, LP_VCC, sim_ee_vcc(m->vcc_v));
	for (unsigned lane = 0; lane < 4; lane++) {
		sim_ee_put16(out, LP_RX_PWR + 2 * lane, sim_ee_power(m->rx_power_mw[lane]));
		sim_ee_put16(out, LP_TX_BIAS + 2 * lane, sim_ee_bias(m->tx_bias_ma[lane]));
		sim_ee_put16(out, LP_TX_PWR + 2 * lane, sim_ee_power(m->tx_power_mw[lane]));
	}

	/* Temperature thresholds are signed; compare them as such. */
	nib = sim_ee_aw(sim_ee_get_temp(out, LP_TEMP), sim_ee_get_temp(out, P03(P3_TEMP) + TH_HA),
			sim_ee_get_temp(out, P03(P3_TEMP) + TH_LA), sim_ee_get_temp(out, P03(P3_TEMP) + TH_HW),
			sim_ee_get_temp(out, P03(P3_TEMP) + TH_LW));
	/* Bits 3-0 of bytes 6 and 7 are not ours (init-complete, reserved): keep them. */
	out[LP_TEMP_FLAGS] = (uint8_t)((out[LP_TEMP_FLAGS] & 0x0f) | nib << 4);
	nib = aw_unsigned(out, P3_VCC, (uint16_t)sim_ee_get16(out, LP_VCC));
	out[LP_VCC_FLAGS] = (uint8_t)((out[LP_VCC_FLAGS] & 0x0f) | nib << 4);

	put_lane_flags(out, LP_RX_FLAGS, P3_RX_PWR, LP_RX_PWR);
	put_lane_flags(out, LP_BIAS_FLAGS, P3_TX_BIAS, LP_TX_BIAS);
	put_lane_flags(out, LP_TXP_FLAGS, P3_TX_PWR, LP_TX_PWR);

	/* Rx LOS, lane 1 in bit 0; Tx LOS (host side, bits 7-4) is not modelled. */
	out[LP_LOS] &= 0xf0;
	for (unsigned lane = 0; lane < 4; lane++)
		if (sim_ee_get16(out, LP_RX_PWR + 2 * lane) < sim_ee_power(RX_LOS_MW))
			out[LP_LOS] |= (uint8_t)(1u << lane);

	/*
	 * IntL is active low and no flag is masked (bytes 100-106 are zero), so
	 * the pin is asserted exactly when some flag is up.
	 */
	any = out[LP_LOS] | out[LP_TEMP_FLAGS] >> 4 | out[LP_VCC_FLAGS] >> 4;
	for (unsigned i = LP_RX_FLAGS; i < LP_TXP_FLAGS + 2; i++)
		any |= out[i];
	if (any)
		out[LP_STATUS] &= (uint8_t)~STATUS_INTL;
	else
		out[LP_STATUS] |= STATUS_INTL;
}

static void build_copper(const struct sim_module *m, uint8_t *out)
{
	out[LP_STATUS] = STATUS_FLAT_MEM | STATUS_INTL;
	out[U0_CONNECTOR] = CONN_NO_SEPARABLE;
	out[U0_ETH_COMPL] = ETH_40G_CR4;
	out[U0_LEN_CU] = (uint8_t)(m->length_m > 255 ? 255 : m->length_m);
	out[U0_DEV_TECH] = TECH_CU_UNEQUALIZED;
	/* For copper, bytes 186-189 carry attenuation instead of wavelength. */
	for (unsigned i = 0; i < 4; i++)
		out[U0_WAVELEN + i] = m->atten_db[i];
	/* Byte 190 zero means the default 70 C; byte 220 zero: no DOM. */
}

static void build_optical(const struct sim_module *m, uint8_t *out)
{
	/* Paged memory: flat-mem clear.  IntL and flags are set by update_dom. */
	out[LP_STATUS] = 0;
	out[U0_EXT_ID] = EXT_ID_POWER_CLASS_2;
	out[U0_CONNECTOR] = CONN_MPO;
	out[U0_ETH_COMPL] = ETH_40G_SR4;
	out[U0_LEN_OM3] = (uint8_t)(m->length_m >= 510 ? 255 : (m->length_m + 1) / 2);
	out[U0_DEV_TECH] = TECH_850_VCSEL;
	sim_ee_put16(out, U0_WAVELEN, 850 * 20);  /* units of 0.05 nm */
	sim_ee_put16(out, U0_WAVETOL, 10 * 200);  /* +-10 nm, units of 0.005 nm */
	out[U0_MAX_CASE] = 70;
	out[U0_DIAG_TYPE] = DIAG_OPTICAL;

	put_thresholds(out, P3_TEMP, &th_temp_c, sim_ee_temp);
	put_thresholds(out, P3_VCC, &th_vcc_v, sim_ee_vcc);
	put_thresholds(out, P3_RX_PWR, &th_rx_mw, sim_ee_power);
	put_thresholds(out, P3_TX_BIAS, &th_bias_ma, sim_ee_bias);
	put_thresholds(out, P3_TX_PWR, &th_tx_mw, sim_ee_power);

	sim_eeprom_update_dom(m, out);
}

void sim_eeprom_build(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN])
{
	double br;

	if (m->form == SIM_FORM_SFP) {
		sim_eeprom_build_sfp(m, out);
		return;
	}
	memset(out, 0, APENET_EE_DATA_LEN);
	if (m->kind != SIM_MOD_COPPER && m->kind != SIM_MOD_OPTICAL)
		return;

	out[LP_ID] = ID_QSFP_PLUS;
	out[LP_REV] = REV_SFF8636_2_7;
	out[LP_PAGE_SEL] = 0;

	out[U0_ID] = ID_QSFP_PLUS;
	out[U0_ENCODING] = ENC_64B66B;
	/* Byte 140 in 100 Mbps; above 25.4 Gbps it saturates and byte 222 (250 Mbps) takes over. */
	br = m->nominal_gbps * 10.0;
	if (br > 254.0) {
		out[U0_BR_NOMINAL] = 0xff;
		out[U0_BR_EXT] = (uint8_t)sim_ee_unsigned(m->nominal_gbps > 63.0 ? 63.0 : m->nominal_gbps,
						       4.0);
	} else {
		out[U0_BR_NOMINAL] = (uint8_t)sim_ee_unsigned(m->nominal_gbps, 10.0);
	}
	sim_ee_put_str(out, U0_VENDOR, 16, m->vendor);
	memcpy(out + U0_OUI, m->oui, 3);
	sim_ee_put_str(out, U0_PN, 16, m->part);
	sim_ee_put_str(out, U0_REV, 2, m->rev);
	sim_ee_put_str(out, U0_SN, 16, m->serial);
	sim_ee_put_str(out, U0_DATE, 8, m->date);

	if (m->kind == SIM_MOD_COPPER)
		build_copper(m, out);
	else
		build_optical(m, out);

	out[U0_CC_BASE] = sim_ee_sum8(out, 128, 190);
	out[U0_CC_EXT] = sim_ee_sum8(out, 192, 222);
}

/* Copy a string into a fixed field, always NUL-terminated. */
static void set_field(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Decimal digits of v, most significant first, at least `width` of them. */
static void put_decimal(char *dst, size_t size, uint32_t v, unsigned width)
{
	char tmp[11];
	unsigned n = 0;
	size_t i = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < sizeof(tmp));
	while (n < width && n < sizeof(tmp))
		tmp[n++] = '0';
	while (n && i + 1 < size)
		dst[i++] = tmp[--n];
	dst[i] = '\0';
}

/*
 * Per-metre loss of a 30 AWG twinax pair at 2.5, 5, 7 and 12.9 GHz (skin
 * effect ~ sqrt(f) plus dielectric ~ f, fitted to the values passive QSFP+
 * cables report), plus the fixed loss of the two paddle cards.
 */
static const double cu_db_per_m[4] = { 1.20, 1.79, 2.19, 3.20 };
#define CU_FIXED_DB 0.5

/* Small lane-to-lane spread so the four lanes do not read identically. */
static const double lane_spread[4] = { 1.00, 0.95, 1.04, 0.97 };

void sim_module_default(struct sim_module *m, enum sim_module_kind kind, unsigned length_m,
			uint32_t serial_no)
{
	char num[11], lot[3];

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	if (kind != SIM_MOD_COPPER && kind != SIM_MOD_OPTICAL) {
		m->kind = SIM_MOD_NONE;
		return;
	}
	m->length_m = length_m;
	m->nominal_gbps = 10.3;
	put_decimal(num, sizeof(num), serial_no, 8);
	put_decimal(lot, sizeof(lot), serial_no % 100, 2);

	if (kind == SIM_MOD_COPPER) {
		char pn[17] = "APL-QSFP-CU";
		size_t l = strlen(pn);

		set_field(m->vendor, sizeof(m->vendor), "APELINK CABLES");
		put_decimal(pn + l, sizeof(pn) - l - 1, length_m > 99 ? 99 : length_m, 1);
		strcat(pn, "M");
		set_field(m->part, sizeof(m->part), pn);
		set_field(m->rev, sizeof(m->rev), "A1");
		set_field(m->serial, sizeof(m->serial), "APC");
		m->oui[0] = 0x02; /* locally administered: cannot be a real vendor's OUI */
		m->oui[1] = 0xae;
		m->oui[2] = 0x01;
		for (unsigned i = 0; i < 4; i++) {
			double db = length_m * cu_db_per_m[i] + CU_FIXED_DB;

			m->atten_db[i] = (uint8_t)(db >= 255.0 ? 255 : (unsigned)(db + 0.5));
		}
	} else {
		set_field(m->vendor, sizeof(m->vendor), "INFN OPTICS");
		set_field(m->part, sizeof(m->part), "INO-QSFP-SR4");
		set_field(m->rev, sizeof(m->rev), "B0");
		set_field(m->serial, sizeof(m->serial), "INO");
		m->oui[0] = 0x02;
		m->oui[1] = 0xae;
		m->oui[2] = 0x02;
		m->temp_c = 35.0;
		m->vcc_v = 3.30;
		for (unsigned i = 0; i < 4; i++) {
			m->rx_power_mw[i] = 0.631 * lane_spread[i];     /* about -2 dBm */
			m->tx_bias_ma[i] = 6.5 * lane_spread[3 - i];
			m->tx_power_mw[i] = 0.794 * lane_spread[(i + 1) % 4]; /* about -1 dBm */
		}
	}
	strcat(m->serial, num); /* prefix (3) + at most 10 digits fits in 16 */
	set_field(m->date, sizeof(m->date), "230915");
	strcat(m->date, lot);
}

void sim_module_default_sfp(struct sim_module *m, enum sim_module_kind kind, unsigned length_m,
			    uint32_t serial_no, double lane_gbps)
{
	char num[11], lot[3];
	int ten_g = lane_gbps > 2.0;

	memset(m, 0, sizeof(*m));
	m->form = SIM_FORM_SFP;
	m->kind = kind;
	if (kind != SIM_MOD_COPPER && kind != SIM_MOD_OPTICAL) {
		m->kind = SIM_MOD_NONE;
		return;
	}
	m->length_m = length_m;
	m->nominal_gbps = ten_g ? 10.3 : 1.3;
	put_decimal(num, sizeof(num), serial_no, 8);
	put_decimal(lot, sizeof(lot), serial_no % 100, 2);
	if (kind == SIM_MOD_COPPER) {
		char pn[17] = "APL-SFPP-CU";
		size_t l = strlen(pn);

		set_field(m->vendor, sizeof(m->vendor), "APELINK CABLES");
		put_decimal(pn + l, sizeof(pn) - l - 1, length_m > 99 ? 99 : length_m, 1);
		strcat(pn, "M");
		set_field(m->part, sizeof(m->part), pn);
		set_field(m->rev, sizeof(m->rev), "A1");
		set_field(m->serial, sizeof(m->serial), "APS");
		m->oui[0] = 0x02;
		m->oui[1] = 0xae;
		m->oui[2] = 0x01;
	} else {
		set_field(m->vendor, sizeof(m->vendor), "INFN OPTICS");
		set_field(m->part, sizeof(m->part), ten_g ? "INO-SFPP-SR" : "INO-SFP-SX");
		set_field(m->rev, sizeof(m->rev), "B0");
		set_field(m->serial, sizeof(m->serial), "INS");
		m->oui[0] = 0x02;
		m->oui[1] = 0xae;
		m->oui[2] = 0x02;
		m->temp_c = 35.0;
		m->vcc_v = 3.30;
		m->rx_power_mw[0] = 0.45;  /* about -3.5 dBm */
		m->tx_bias_ma[0] = 6.5;
		m->tx_power_mw[0] = 0.50;  /* about -3 dBm */
	}
	strcat(m->serial, num);
	set_field(m->date, sizeof(m->date), "230915");
	strcat(m->date, lot);
}
