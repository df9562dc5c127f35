/*
 * SFF-8636 (QSFP+/QSFP28) module EEPROM decoder.  Written from SFF-8636
 * rev 2.10 and the SFF-8024 code tables, decoding the fields `ethtool -m`
 * shows.  The image may come from any module (or from a broken I2C read),
 * so nothing here trusts it: every byte is decoded by table or arithmetic,
 * strings are sanitised, and only the length and the identifier can make
 * the decode fail.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apenet/err.h"
#include "apenet/sff8636.h"
#include "sff_util.h"

/* Lower page 00h (image offset = byte). */
#define LP_ID 0
#define LP_REV 1
#define LP_STATUS 2
#define LP_LOS 3
#define LP_FAULT 4
#define LP_LOL 5
#define LP_TEMP_FLAGS 6
#define LP_VCC_FLAGS 7
#define LP_RX_FLAGS 9   /* 2 bytes: lanes 1-2, 3-4 */
#define LP_BIAS_FLAGS 11
#define LP_TXP_FLAGS 13
#define LP_TEMP 22
#define LP_VCC 26
#define LP_RX_PWR 34    /* 4 x 2 bytes */
#define LP_TX_BIAS 42
#define LP_TX_PWR 50

#define STATUS_FLAT_MEM 0x04
#define STATUS_INTL 0x02 /* the pin's level: 0 = asserted */
#define STATUS_DATA_NOT_READY 0x01

/* Upper page 00h (image offset = byte). */
#define UP_ID 128
#define UP_EXT_ID 129
#define UP_CONNECTOR 130
#define UP_COMPLIANCE 131 /* 8 bytes */
#define UP_GBE_COMPLIANCE 134
#define UP_ENCODING 139
#define UP_BR 140
#define UP_LEN_SMF 142
#define UP_LEN_OM3 143
#define UP_LEN_OM2 144
#define UP_LEN_OM1 145
#define UP_LEN_CU 146
#define UP_DEV_TECH 147
#define UP_VENDOR 148
#define UP_OUI 165
#define UP_PN 168
#define UP_REV 184
#define UP_WAVELEN 186 /* copper: attenuation at 2.5, 5, 7, 12.9 GHz in 186-189 */
#define UP_WAVETOL 188
#define UP_MAX_CASE 190
#define UP_CC_BASE 191
#define UP_EXT_COMPLIANCE 192
#define UP_SN 196
#define UP_DATE 212
#define UP_DIAG 220
#define UP_BR_EXT 222
#define UP_CC_EXT 223

#define COMPL_EXTENDED 0x80 /* byte 131 bit 7: see byte 192 */

#define DIAG_TEMP 0x20
#define DIAG_VCC 0x10
#define DIAG_RX_AVG 0x08
#define DIAG_TX_PWR 0x04

/* Upper page 03h: spec byte n at image offset n + 384. */
#define P3(n) (384u + (n))
#define P3_TEMP P3(128) /* each: high alarm, low alarm, high warning, low warning */
#define P3_VCC P3(144)
#define P3_RX_PWR P3(176)
#define P3_TX_BIAS P3(184)
#define P3_TX_PWR P3(192)
#define P3_TH_END P3(200)

#define DBM_FLOOR (-40.0)

/* ---- code tables (SFF-8024 / SFF-8636) ---- */

const char *apenet_sff8636_id_name(uint8_t id)
{
	static const char *const names[] = {
		[0x00] = "Unknown or unspecified",
		[0x01] = "GBIC",
		[0x02] = "Module soldered to motherboard",
		[0x03] = "SFP/SFP+/SFP28",
		[0x04] = "300 pin XBI",
		[0x05] = "XENPAK",
		[0x06] = "XFP",
		[0x07] = "XFF",
		[0x08] = "XFP-E",
		[0x09] = "XPAK",
		[0x0a] = "X2",
		[0x0b] = "DWDM-SFP/SFP+",
		[0x0c] = "QSFP",
		[0x0d] = "QSFP+",
		[0x0e] = "CXP",
		[0x0f] = "Shielded Mini Multilane HD 4X",
		[0x10] = "Shielded Mini Multilane HD 8X",
		[0x11] = "QSFP28",
		[0x12] = "CXP2",
		[0x13] = "CDFP (Style 1/Style 2)",
		[0x14] = "Shielded Mini Multilane HD 4X Fanout",
		[0x15] = "Shielded Mini Multilane HD 8X Fanout",
		[0x16] = "CDFP (Style 3)",
		[0x17] = "microQSFP",
		[0x18] = "QSFP-DD",
		[0x19] = "OSFP 8X",
		[0x1a] = "SFP-DD",
		[0x1b] = "DSFP",
		[0x1c] = "MiniLink/OcuLink x4",
		[0x1d] = "MiniLink/OcuLink x8",
		[0x1e] = "QSFP+ or later with CMIS",
	};

	if (id < sizeof(names) / sizeof(names[0]) && names[id])
		return names[id];
	return id >= 0x80 ? "Vendor specific" : "Reserved";
}

const char *apenet_sff8636_rev_name(uint8_t rev)
{
	static const char *const names[] = {
		"Not specified",
		"SFF-8436 rev 4.8 or earlier",
		"SFF-8436 rev 4.8 or earlier (except bytes 186-189)",
		"SFF-8636 rev 1.3 or earlier",
		"SFF-8636 rev 1.4",
		"SFF-8636 rev 1.5",
		"SFF-8636 rev 2.0",
		"SFF-8636 rev 2.5, 2.6 and 2.7",
		"SFF-8636 rev 2.8, 2.9 and 2.10",
	};

	if (rev < sizeof(names) / sizeof(names[0]))
		return names[rev];
	return "Reserved";
}

const char *apenet_sff8636_connector_name(uint8_t code)
{
	static const char *const names[] = {
		[0x00] = "Unknown or unspecified",
		[0x01] = "SC",
		[0x02] = "Fibre Channel Style 1 copper",
		[0x03] = "Fibre Channel Style 2 copper",
		[0x04] = "BNC/TNC",
		[0x05] = "Fibre Channel coax headers",
		[0x06] = "FiberJack",
		[0x07] = "LC",
		[0x08] = "MT-RJ",
		[0x09] = "MU",
		[0x0a] = "SG",
		[0x0b] = "Optical pigtail",
		[0x0c] = "MPO 1x12",
		[0x0d] = "MPO 2x16",
		[0x20] = "HSSDC II",
		[0x21] = "Copper pigtail",
		[0x22] = "RJ45",
		[0x23] = "No separable connector",
		[0x24] = "MXC 2x16",
		[0x25] = "CS optical connector",
		[0x26] = "SN (Mini CS) optical connector",
		[0x27] = "MPO 2x12",
		[0x28] = "MPO 1x16",
	};

	if (code < sizeof(names) / sizeof(names[0]) && names[code])
		return names[code];
	return code >= 0x80 ? "Vendor specific" : "Reserved";
}

/* The QSFP meaning of the shared encoding table (04h/06h differ from SFP's). */
const char *apenet_sff8636_encoding_name(uint8_t code)
{
	static const char *const names[] = {
		"Unspecified", "8B/10B", "4B/5B", "NRZ", "SONET Scrambled", "64B/66B",
		"Manchester", "256B/257B (transcoded FEC-enabled data)", "PAM4",
	};

	if (code < sizeof(names) / sizeof(names[0]))
		return names[code];
	return "Reserved";
}

const char *apenet_sff8636_ext_compliance_name(uint8_t code)
{
	static const char *const names[] = {
		[0x00] = "Unspecified",
		[0x01] = "100G AOC or 25GAUI C2M AOC (BER 5e-5)",
		[0x02] = "100GBASE-SR4 or 25GBASE-SR",
		[0x03] = "100GBASE-LR4 or 25GBASE-LR",
		[0x04] = "100GBASE-ER4 or 25GBASE-ER",
		[0x05] = "100GBASE-SR10",
		[0x06] = "100G CWDM4",
		[0x07] = "100G PSM4 Parallel SMF",
		[0x08] = "100G ACC or 25GAUI C2M ACC (BER 5e-5)",
		[0x09] = "Obsolete (100G CWDM4 without FEC)",
		[0x0b] = "100GBASE-CR4, 25GBASE-CR CA-L or 50GBASE-CR2 with RS FEC",
		[0x0c] = "25GBASE-CR CA-S or 50GBASE-CR2 with BASE-R FEC",
		[0x0d] = "25GBASE-CR CA-N or 50GBASE-CR2 without FEC",
		[0x10] = "40GBASE-ER4",
		[0x11] = "4 x 10GBASE-SR",
		[0x12] = "40G PSM4 Parallel SMF",
		[0x13] = "G.959.1 P1I1-2D1 (10709 MBd, 2 km, 1310 nm SM)",
		[0x14] = "G.959.1 P1S1-2D2 (10709 MBd, 40 km, 1550 nm SM)",
		[0x15] = "G.959.1 P1L1-2D2 (10709 MBd, 80 km, 1550 nm SM)",
		[0x16] = "10GBASE-T with SFI electrical interface",
		[0x17] = "100G CLR4",
		[0x18] = "100G AOC or 25GAUI C2M AOC (BER 1e-12)",
		[0x19] = "100G ACC or 25GAUI C2M ACC (BER 1e-12)",
		[0x1a] = "100GE-DWDM2",
		[0x1b] = "100G 1550 nm WDM (4 wavelengths)",
		[0x1c] = "10GBASE-T Short Reach (30 m)",
		[0x1d] = "5GBASE-T",
		[0x1e] = "2.5GBASE-T",
		[0x1f] = "40G SWDM4",
		[0x20] = "100G SWDM4",
		[0x21] = "100G PAM4 BiDi",
		[0x22] = "4WDM-10 MSA (10 km 100GBASE-CWDM4 with RS FEC)",
		[0x23] = "4WDM-20 MSA (20 km 100GBASE-LR4 with RS FEC)",
		[0x24] = "4WDM-40 MSA (40 km 100GBASE-LR4 with RS FEC)",
		[0x25] = "100GBASE-DR",
		[0x26] = "100G-FR or 100GBASE-FR1",
		[0x27] = "100G-LR or 100GBASE-LR1",
	};

	if (code < sizeof(names) / sizeof(names[0]) && names[code])
		return names[code];
	return "Reserved or unknown";
}

const char *apenet_sff8636_tx_tech_name(uint8_t dev_tech)
{
	static const char *const names[16] = {
		"850 nm VCSEL",
		"1310 nm VCSEL",
		"1550 nm VCSEL",
		"1310 nm FP",
		"1310 nm DFB",
		"1550 nm DFB",
		"1310 nm EML",
		"1550 nm EML",
		"Other / Undefined",
		"1490 nm DFB",
		"Copper cable unequalized",
		"Copper cable passive equalized",
		"Copper cable, near and far end limiting active equalizers",
		"Copper cable, far end limiting active equalizers",
		"Copper cable, near end limiting active equalizers",
		"Copper cable, linear active equalizers",
	};

	return names[dev_tech >> 4];
}

const char *apenet_sff8636_eth_compliance_name(unsigned bit)
{
	static const char *const names[7] = {
		"40G Active Cable (XLPPI)", "40GBASE-LR4", "40GBASE-SR4", "40GBASE-CR4",
		"10GBASE-SR", "10GBASE-LR", "10GBASE-LRM",
	};

	return bit < 7 ? names[bit] : NULL;
}

static const char *gbe_compliance_name(unsigned bit)
{
	static const char *const names[4] = { "1000BASE-SX", "1000BASE-LX", "1000BASE-CX",
					       "1000BASE-T" };

	return bit < 4 ? names[bit] : NULL;
}

double apenet_sff8636_mw_to_dbm(double mw)
{
	/* Below one step of the encoding the log is meaningless (and 0 is -inf). */
	if (!(mw > 0.0001))
		return DBM_FLOOR;
	return 10.0 * log10(mw);
}

/* ---- field helpers ---- */

#define be16 apenet_sff_be16

static double temp_c(const uint8_t *b, unsigned off) { return apenet_sff_temp(be16(b, off)); }
static double vcc_v(const uint8_t *b, unsigned off) { return be16(b, off) / 10000.0; }
static double power_mw(const uint8_t *b, unsigned off) { return be16(b, off) / 10000.0; }
static double bias_ma(const uint8_t *b, unsigned off) { return be16(b, off) / 500.0; }

static void decode_identity(struct apenet_sff8636 *m, const uint8_t *b)
{
	static const double class_w[8] = { 1.5, 2.0, 2.5, 3.5, 4.0, 4.5, 5.0, 0.0 };
	uint8_t ext = b[UP_EXT_ID];
	unsigned cls;

	m->id = b[LP_ID];
	m->id_name = apenet_sff8636_id_name(m->id);
	m->id_upper = b[UP_ID];
	m->rev = b[LP_REV];
	m->rev_name = apenet_sff8636_rev_name(m->rev);
	m->status = b[LP_STATUS];
	m->flat_mem = !!(m->status & STATUS_FLAT_MEM);
	m->intl_asserted = !(m->status & STATUS_INTL);
	m->data_not_ready = !!(m->status & STATUS_DATA_NOT_READY);

	/*
	 * Byte 129: bits 7-6 give classes 1-4; bits 1-0, when non-zero, raise it
	 * to 5-7; bit 5 says class 8 (its power is in byte 107).
	 */
	m->ext_id = ext;
	if (ext & 0x20)
		cls = 8;
	else if (ext & 0x03)
		cls = 4 + (ext & 0x03u);
	else
		cls = 1 + (ext >> 6);
	m->power_class = cls;
	m->max_power_w = class_w[cls - 1];
}

static void decode_media(struct apenet_sff8636 *m, const uint8_t *b)
{
	uint8_t c = b[UP_COMPLIANCE], g = b[UP_GBE_COMPLIANCE];

	m->connector = b[UP_CONNECTOR];
	m->connector_name = apenet_sff8636_connector_name(m->connector);
	memcpy(m->compliance, b + UP_COMPLIANCE, sizeof(m->compliance));
	m->ext_compliance = b[UP_EXT_COMPLIANCE];
	m->ext_compliance_name = apenet_sff8636_ext_compliance_name(m->ext_compliance);
	m->eth_names[0] = '\0';
	/* Bit 7 of byte 131 hands the module's main code over to byte 192. */
	if ((c & COMPL_EXTENDED) && m->ext_compliance)
		apenet_sff_append(m->eth_names, sizeof(m->eth_names), m->ext_compliance_name);
	for (unsigned bit = 0; bit < 7; bit++)
		if (c & (1u << bit))
			apenet_sff_append(m->eth_names, sizeof(m->eth_names),
					  apenet_sff8636_eth_compliance_name(bit));
	for (unsigned bit = 0; bit < 4; bit++)
		if (g & (1u << bit))
			apenet_sff_append(m->eth_names, sizeof(m->eth_names), gbe_compliance_name(bit));

	/* The extended code is the more specific one when the module points at it. */
	if ((c & COMPL_EXTENDED) && m->ext_compliance)
		m->media = m->ext_compliance_name;
	else if (c & 0x7f) {
		unsigned bit = 0;

		while (!(c & (1u << bit)))
			bit++;
		m->media = apenet_sff8636_eth_compliance_name(bit);
	} else if (g & 0x0f) {
		unsigned bit = 0;

		while (!(g & (1u << bit)))
			bit++;
		m->media = gbe_compliance_name(bit);
	} else {
		m->media = "unspecified";
	}

	m->encoding = b[UP_ENCODING];
	m->encoding_name = apenet_sff8636_encoding_name(m->encoding);
	/* Byte 140 saturates at 25.4 Gbps; 0xff hands over to byte 222 (250 Mbps units). */
	if (b[UP_BR] == 0xff) {
		m->br_extended = 1;
		m->br_nominal_mbps = b[UP_BR_EXT] * 250u;
	} else {
		m->br_nominal_mbps = b[UP_BR] * 100u;
	}

	m->len_smf_km = b[UP_LEN_SMF];
	m->len_om3_m = b[UP_LEN_OM3] * 2u;
	m->len_om2_m = b[UP_LEN_OM2];
	m->len_om1_m = b[UP_LEN_OM1];
	m->len_copper_m = b[UP_LEN_CU];
	m->len_om4_m = b[UP_LEN_CU] * 2u;

	m->dev_tech = b[UP_DEV_TECH];
	m->tx_tech_name = apenet_sff8636_tx_tech_name(m->dev_tech);
	m->copper = (m->dev_tech >> 4) >= 0xa;
	m->passive = (m->dev_tech >> 4) == 0xa || (m->dev_tech >> 4) == 0xb;
	m->wavelength_control = !!(m->dev_tech & 0x08);
	m->cooled = !!(m->dev_tech & 0x04);
	m->apd = !!(m->dev_tech & 0x02);
	m->tunable = !!(m->dev_tech & 0x01);

	/* Bytes 186-189 mean attenuation for copper, wavelength for optics. */
	if (m->copper) {
		memcpy(m->atten_db, b + UP_WAVELEN, sizeof(m->atten_db));
	} else {
		m->wavelength_nm = be16(b, UP_WAVELEN) / 20.0;
		m->wavelength_tol_nm = be16(b, UP_WAVETOL) / 200.0;
	}
	m->max_case_temp_c = b[UP_MAX_CASE] ? b[UP_MAX_CASE] : 70u;
}

static void decode_vendor(struct apenet_sff8636 *m, const uint8_t *b)
{
	apenet_sff_ascii(m->vendor, b + UP_VENDOR, 16);
	memcpy(m->oui, b + UP_OUI, sizeof(m->oui));
	apenet_sff_ascii(m->part, b + UP_PN, 16);
	apenet_sff_ascii(m->vendor_rev, b + UP_REV, 2);
	apenet_sff_ascii(m->serial, b + UP_SN, 16);
	apenet_sff_date(b + UP_DATE, m->date_code, m->date, m->lot);
}

/* A reading of 0 or all ones is an unimplemented monitor or a failed read. */
static int reads(const uint8_t *b, unsigned off)
{
	unsigned v = be16(b, off);

	return v != 0 && v != 0xffffu;
}

static void decode_dom(struct apenet_sff8636 *m, const uint8_t *b)
{
	/*
	 * Before rev 2.8 (SFF-8436 and SFF-8636 up to 2.7) modules often leave
	 * the temperature and Vcc bits of byte 220 clear while monitoring both:
	 * only a rev 2.8+ module's byte 220 is taken at its word.
	 */
	int trusted = m->rev >= 0x08;
	/* Flat memory means a passive cable: nothing is monitored. */
	int paged = !m->flat_mem;
	int optical = paged && !m->copper;

	m->diag_type = b[UP_DIAG];
	m->rx_power_avg = !!(m->diag_type & DIAG_RX_AVG);
	m->tx_power_supported = !!(m->diag_type & DIAG_TX_PWR);
	m->temp_monitored = paged && (!trusted || (m->diag_type & DIAG_TEMP)) && reads(b, LP_TEMP);
	m->vcc_monitored = paged && (!trusted || (m->diag_type & DIAG_VCC)) && reads(b, LP_VCC);
	m->rx_power_monitored = optical;
	m->tx_bias_monitored = optical;
	m->tx_power_monitored = optical && m->tx_power_supported;
	m->dom_present = m->temp_monitored || m->vcc_monitored || m->rx_power_monitored || m->tx_bias_monitored ||
			 m->tx_power_monitored;

	if (m->temp_monitored)
		m->temp_c = temp_c(b, LP_TEMP);
	if (m->vcc_monitored)
		m->vcc_v = vcc_v(b, LP_VCC);
	for (unsigned i = 0; i < APENET_SFF8636_LANES; i++) {
		if (m->rx_power_monitored) {
			m->rx_power_mw[i] = power_mw(b, LP_RX_PWR + 2 * i);
			m->rx_power_dbm[i] = apenet_sff8636_mw_to_dbm(m->rx_power_mw[i]);
		}
		if (m->tx_bias_monitored)
			m->tx_bias_ma[i] = bias_ma(b, LP_TX_BIAS + 2 * i);
		if (m->tx_power_monitored) {
			m->tx_power_mw[i] = power_mw(b, LP_TX_PWR + 2 * i);
			m->tx_power_dbm[i] = apenet_sff8636_mw_to_dbm(m->tx_power_mw[i]);
		}
	}
}

static void thresh(struct apenet_sff8636_thresh *t, const uint8_t *b, unsigned off,
		   double (*dec)(const uint8_t *, unsigned))
{
	t->high_alarm = dec(b, off);
	t->low_alarm = dec(b, off + 2);
	t->high_warn = dec(b, off + 4);
	t->low_warn = dec(b, off + 6);
}

static void decode_thresholds(struct apenet_sff8636 *m, const uint8_t *b)
{
	int any = 0, all_ff = 1;

	if (m->len < APENET_SFF8636_LEN_FULL || m->flat_mem)
		return;
	/* A page 03h of zeros or ones was not read (or not there): no thresholds. */
	for (unsigned i = P3_TEMP; i < P3_TH_END; i++) {
		any |= b[i] != 0;
		all_ff &= b[i] == 0xff;
	}
	if (!any || all_ff)
		return;
	m->thresh_present = 1;
	thresh(&m->th_temp, b, P3_TEMP, temp_c);
	thresh(&m->th_vcc, b, P3_VCC, vcc_v);
	thresh(&m->th_rx_power, b, P3_RX_PWR, power_mw);
	thresh(&m->th_tx_bias, b, P3_TX_BIAS, bias_ma);
	thresh(&m->th_tx_power, b, P3_TX_PWR, power_mw);
}

/* Per-lane nibbles: lane 1 in the high nibble of the first byte. */
static void lane_flags(uint8_t out[APENET_SFF8636_LANES], const uint8_t *b, unsigned off)
{
	for (unsigned i = 0; i < APENET_SFF8636_LANES; i++)
		out[i] = (uint8_t)((i % 2 ? b[off + i / 2] : b[off + i / 2] >> 4) & 0x0f);
}

static void decode_flags(struct apenet_sff8636 *m, const uint8_t *b)
{
	m->tx_los = b[LP_LOS] >> 4;
	m->rx_los = b[LP_LOS] & 0x0f;
	m->tx_fault = b[LP_FAULT] & 0x0f;
	m->tx_lol = b[LP_LOL] >> 4;
	m->rx_lol = b[LP_LOL] & 0x0f;
	m->temp_flags = b[LP_TEMP_FLAGS] >> 4;
	m->vcc_flags = b[LP_VCC_FLAGS] >> 4;
	lane_flags(m->rx_power_flags, b, LP_RX_FLAGS);
	lane_flags(m->tx_bias_flags, b, LP_BIAS_FLAGS);
	lane_flags(m->tx_power_flags, b, LP_TXP_FLAGS);
}

static void decode_checksums(struct apenet_sff8636 *m, const uint8_t *b)
{
	m->cc_base_stored = b[UP_CC_BASE];
	m->cc_base_computed = apenet_sff_sum8(b, UP_ID, UP_MAX_CASE);
	m->cc_base_ok = m->cc_base_stored == m->cc_base_computed;
	m->cc_ext_stored = b[UP_CC_EXT];
	m->cc_ext_computed = apenet_sff_sum8(b, UP_EXT_COMPLIANCE, UP_BR_EXT);
	m->cc_ext_ok = m->cc_ext_stored == m->cc_ext_computed;
}

/* Which specification the identifier belongs to, for the error message. */
static const char *not_qsfp_hint(uint8_t id)
{
	switch (id) {
	case 0x03:
		return "SFP? use SFF-8472";
	case 0x18:
	case 0x19:
	case 0x1e:
		return "a CMIS module? use CMIS";
	default:
		return apenet_sff8636_id_name(id);
	}
}

int apenet_sff8636_decode(const uint8_t *buf, size_t len, struct apenet_sff8636 *m, char *err,
			  size_t errlen)
{
	int all_ff = 1, all_00 = 1;

	if (len != APENET_SFF8636_LEN_BASE && len < APENET_SFF8636_LEN_FULL)
		return apenet_errbuf(err, errlen,
				     "EEPROM dump is %zu bytes: expected 256 (lower page + page 00h) or "
				     "640 (plus pages 01h-03h)",
				     len);
	if (!buf || !m)
		return apenet_errbuf(err, errlen, "EEPROM decode: no buffer");
	if (len > APENET_SFF8636_LEN_FULL)
		len = APENET_SFF8636_LEN_FULL;

	/* Judge the pages every module has; 01h-03h may legitimately be blank. */
	for (unsigned i = 0; i < APENET_SFF8636_LEN_BASE; i++) {
		all_ff &= buf[i] == 0xff;
		all_00 &= buf[i] == 0x00;
	}
	if (all_ff)
		return apenet_errbuf(err, errlen,
				     "EEPROM reads all 0xff: no module in the cage, or the I2C read "
				     "failed");
	if (all_00)
		return apenet_errbuf(err, errlen,
				     "EEPROM reads all zeros: the module's pages were not read (empty "
				     "mirror)");
	if (buf[LP_ID] != 0x0c && buf[LP_ID] != 0x0d && buf[LP_ID] != 0x11)
		return apenet_errbuf(err, errlen,
				     "byte 0 (identifier) is 0x%02x: not an SFF-8636 module (%s)",
				     buf[LP_ID], not_qsfp_hint(buf[LP_ID]));

	memset(m, 0, sizeof(*m));
	m->len = len;
	decode_identity(m, buf);
	decode_media(m, buf);
	decode_vendor(m, buf);
	decode_dom(m, buf);
	decode_thresholds(m, buf);
	decode_flags(m, buf);
	decode_checksums(m, buf);
	return 0;
}
