/*
 * SFF-8472 (SFP/SFP+) module EEPROM decoder.  Written from SFF-8472 rev 12.4
 * and the SFF-8024 code tables, decoding the fields `ethtool -m` shows for
 * an SFP.  As for SFF-8636, nothing here trusts the image: every byte is
 * decoded by table or arithmetic, strings are sanitised, and only the
 * length and the identifier can make the decode fail.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/err.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"
#include "sff_util.h"

/* A0h (image offset = byte). */
#define A0_ID 0
#define A0_EXT_ID 1
#define A0_CONNECTOR 2
#define A0_TRANSCEIVER 3 /* 8 bytes, 3-10 */
#define A0_FC_SPEED 10
#define A0_ENCODING 11
#define A0_BR 12
#define A0_RATE_ID 13
#define A0_LEN_SMF_KM 14
#define A0_LEN_SMF 15
#define A0_LEN_OM2 16
#define A0_LEN_OM1 17
#define A0_LEN_OM4_CU 18
#define A0_LEN_OM3 19
#define A0_VENDOR 20
#define A0_EXT_COMPLIANCE 36
#define A0_OUI 37
#define A0_PN 40
#define A0_REV 56
#define A0_WAVELEN 60     /* cables: byte 60 is the cable compliance */
#define A0_WAVELEN_FRAC 62 /* DWDM: the fraction in 0.01 nm */
#define A0_CC_BASE 63
#define A0_OPTIONS 64     /* 2 bytes */
#define A0_BR_MAX 66      /* nominal rate in 250 Mbps units when byte 12 is 0xff */
#define A0_BR_MIN 67
#define A0_SN 68
#define A0_DATE 84
#define A0_DIAG 92
#define A0_ENH 93
#define A0_COMPLIANCE 94
#define A0_CC_EXT 95

#define TX8_ACTIVE_CABLE 0x08
#define TX8_PASSIVE_CABLE 0x04
#define TX10_SEE_BYTE62 0x02 /* byte 62 holds the Fibre Channel speed 2 codes */
#define CONN_COPPER_PIGTAIL 0x21
#define CONN_RJ45 0x22

#define DIAG_DDM 0x40
#define DIAG_INTERNAL 0x20
#define DIAG_EXTERNAL 0x10
#define DIAG_RX_AVG 0x08
#define DIAG_ADDR_CHANGE 0x04

#define ENH_FLAGS 0x80
#define ENH_SOFT_TX_DISABLE 0x40
#define ENH_SOFT_TX_FAULT 0x20
#define ENH_SOFT_RX_LOS 0x10
#define ENH_SOFT_RATE_SELECT 0x08

/* A2h: spec byte n at image offset 256 + n. */
#define A2(n) (256u + (n))
#define A2_TH_TEMP A2(0) /* each: high alarm, low alarm, high warning, low warning */
#define A2_TH_VCC A2(8)
#define A2_TH_BIAS A2(16)
#define A2_TH_TXP A2(24)
#define A2_TH_RXP A2(32)
#define A2_CAL_RXP4 A2(56) /* Rx_PWR(4) .. Rx_PWR(0): 5 big-endian floats */
#define A2_CAL_TXI A2(76)  /* slope, offset: 2 bytes each */
#define A2_CAL_TXP A2(80)
#define A2_CAL_T A2(84)
#define A2_CAL_V A2(88)
#define A2_CC_DMI A2(95)
#define A2_TEMP A2(96)
#define A2_VCC A2(98)
#define A2_BIAS A2(100)
#define A2_TXP A2(102)
#define A2_RXP A2(104)
#define A2_STATUS A2(110)
#define A2_ALARMS A2(112)
#define A2_WARNINGS A2(116)

/* ---- code tables ---- */

const char *apenet_sff8472_encoding_name(uint8_t code)
{
	/* The SFP meaning of the shared table: 04h Manchester, 05h SONET, 06h 64B/66B. */
	static const char *const names[] = {
		"Unspecified", "8B/10B", "4B/5B", "NRZ", "Manchester", "SONET Scrambled", "64B/66B",
		"256B/257B (transcoded FEC-enabled data)", "PAM4",
	};

	if (code < sizeof(names) / sizeof(names[0]))
		return names[code];
	return "Reserved";
}

const char *apenet_sff8472_rate_id_name(uint8_t code)
{
	switch (code) {
	case 0x00: return "Unspecified";
	case 0x01: return "SFF-8079 (4/2/1G Rate_Select & AS0/AS1)";
	case 0x02: return "SFF-8431 (8/4/2G Rx Rate_Select only)";
	case 0x04: return "SFF-8431 (8/4/2G Tx Rate_Select only)";
	case 0x06: return "SFF-8431 (8/4/2G Independent Rx & Tx Rate_select)";
	case 0x08: return "FC-PI-5 (16/8/4G Rx Rate_select only)";
	case 0x0a: return "FC-PI-5 (16/8/4G Independent Rx, Tx Rate_select)";
	case 0x0c: return "FC-PI-6 (32/16/8G Independent Rx, Tx Rate_Select)";
	case 0x0e: return "10/8G Rx and Tx Rate_Select (CDR modes)";
	case 0x10: return "FC-PI-7 (64/32/16G Independent Rx, Tx Rate Select)";
	default: return "Reserved";
	}
}

const char *apenet_sff8472_compliance_rev_name(uint8_t code)
{
	static const char *const names[] = {
		"Digital diagnostics not included or undefined",
		"SFF-8472 rev 9.3", "SFF-8472 rev 9.5", "SFF-8472 rev 10.2", "SFF-8472 rev 10.4",
		"SFF-8472 rev 11.0", "SFF-8472 rev 11.3", "SFF-8472 rev 11.4", "SFF-8472 rev 12.3",
		"SFF-8472 rev 12.4",
	};

	if (code < sizeof(names) / sizeof(names[0]))
		return names[code];
	return "Unallocated";
}

static const char *ext_id_name(uint8_t code)
{
	switch (code) {
	case 0x00: return "GBIC not specified / not MOD_DEF compliant";
	case 0x04: return "GBIC/SFP function is defined by 2-wire interface ID only";
	default:
		return code <= 0x07 ? "GBIC compliant with MOD_DEF (see SFF-8053)" : "Unallocated";
	}
}

/* One name per bit (bit 7 first) of each transceiver code byte; NULL: reserved. */
static const char *const transceiver_bits[8][8] = {
	/* byte 3: 10G Ethernet, Infiniband */
	{ "10GBASE-ER", "10GBASE-LRM", "10GBASE-LR", "10GBASE-SR", "Infiniband 1X SX", "Infiniband 1X LX",
	  "Infiniband 1X Copper Active", "Infiniband 1X Copper Passive" },
	/* byte 4: ESCON, SONET */
	{ "ESCON MMF, 1310nm LED", "ESCON SMF, 1310nm Laser", "OC-192, short reach", "SONET reach specifier bit 1",
	  "SONET reach specifier bit 2", "OC-48, long reach", "OC-48, intermediate reach", "OC-48, short reach" },
	/* byte 5: SONET */
	{ NULL, "OC-12, single mode, long reach", "OC-12, single mode, inter. reach", "OC-12, short reach", NULL,
	  "OC-3, single mode, long reach", "OC-3, single mode, inter. reach", "OC-3, short reach" },
	/* byte 6: Ethernet */
	{ "BASE-PX", "BASE-BX10", "100BASE-FX", "100BASE-LX/LX10", "1000BASE-T", "1000BASE-CX", "1000BASE-LX",
	  "1000BASE-SX" },
	/* byte 7: Fibre Channel link length, transmitter technology */
	{ "FC: very long distance (V)", "FC: short distance (S)", "FC: intermediate distance (I)",
	  "FC: long distance (L)", "FC: medium distance (M)", "FC: shortwave laser, linear Rx (SA)",
	  "FC: longwave laser (LC)", "FC: electrical inter-enclosure (EL)" },
	/* byte 8: Fibre Channel technology, SFP+ cable technology */
	{ "FC: electrical intra-enclosure (EL)", "FC: shortwave laser w/o OFC (SN)",
	  "FC: shortwave laser with OFC (SL)", "FC: longwave laser (LL)", "Active Cable", "Passive Cable", NULL,
	  NULL },
	/* byte 9: Fibre Channel media */
	{ "FC: twin axial pair (TW)", "FC: twisted pair (TP)", "FC: miniature coax (MI)", "FC: video coax (TV)",
	  "FC: multimode, 62.5um (M6)", "FC: multimode, 50um (M5, M5E)", NULL, "FC: single mode (SM)" },
	/* byte 10: Fibre Channel speed */
	{ "FC: 1200 MBytes/sec", "FC: 800 MBytes/sec", "FC: 1600 MBytes/sec", "FC: 400 MBytes/sec",
	  "FC: 3200 MBytes/sec", "FC: 200 MBytes/sec", "FC: see byte 62", "FC: 100 MBytes/sec" },
};

static const char *const option_bits[2][8] = {
	/* byte 64 */
	{ NULL, "Power level 4", "Power level 3", "Paging implemented", "Retimer or CDR", "Cooled transceiver",
	  "Power level 2", "Linear receiver output" },
	/* byte 65 */
	{ "Receiver decision threshold", "Tunable transmitter", "RATE_SELECT", "TX_DISABLE", "TX_FAULT",
	  "RX_LOS inverted", "RX_LOS", NULL },
};

static void bit_names(char *dst, size_t size, uint8_t v, const char *const names[8])
{
	for (unsigned i = 0; i < 8; i++)
		if ((v & (0x80u >> i)) && names[i])
			apenet_sff_append(dst, size, names[i]);
}

/* The first name set of one byte, NULL when none is. */
static const char *first_name(uint8_t v, const char *const names[8], uint8_t mask)
{
	for (unsigned i = 0; i < 8; i++)
		if ((v & mask & (0x80u >> i)) && names[i])
			return names[i];
	return NULL;
}

/* ---- A0h ---- */

/*
 * What the codes of bytes 3-10 declare, as masks per byte: a copper medium
 * (InfiniBand 1X copper, 1000BASE-T and -CX, twin-ax and twisted pair) and
 * an optical one (10G and InfiniBand lasers, ESCON, SONET, the optical GbE
 * codes, Fibre Channel lasers and fibres).
 */
static const uint8_t copper_codes[8] = { 0x03, 0, 0, 0x0c, 0, 0, 0xc0, 0 };
static const uint8_t optical_codes[8] = { 0xfc, 0xff, 0x77, 0xf3, 0x06, 0x70, 0x0d, 0 };

/* Extended codes (byte 36, SFF-8024) of copper cables and BASE-T. */
static int ext_copper(uint8_t code)
{
	switch (code) {
	case 0x08: /* 100G ACC or 25GAUI C2M ACC */
	case 0x0b: /* 100GBASE-CR4 / 25GBASE-CR CA-L */
	case 0x0c: /* 25GBASE-CR CA-S */
	case 0x0d: /* 25GBASE-CR CA-N */
	case 0x16: /* 10GBASE-T with SFI */
	case 0x19: /* 100G ACC or 25GAUI C2M ACC */
	case 0x1c: /* 10GBASE-T short reach */
	case 0x1d: /* 5GBASE-T */
	case 0x1e: /* 2.5GBASE-T */
	case 0x40: /* 50GBASE-CR, 100GBASE-CR2, 200GBASE-CR4 */
		return 1;
	default:
		return 0;
	}
}

static void decode_codes(struct apenet_sff8472 *m, const uint8_t *b)
{
	const uint8_t *t = b + A0_TRANSCEIVER;
	const char *n;
	int says_copper = 0, says_optical = 0;

	memcpy(m->transceiver, t, sizeof(m->transceiver));
	m->ext_compliance = b[A0_EXT_COMPLIANCE];
	m->ext_compliance_name = apenet_sff8636_ext_compliance_name(m->ext_compliance);
	m->compliance[0] = '\0';
	if (m->ext_compliance)
		apenet_sff_append(m->compliance, sizeof(m->compliance), m->ext_compliance_name);
	for (unsigned i = 0; i < 8; i++)
		bit_names(m->compliance, sizeof(m->compliance), t[i], transceiver_bits[i]);

	m->passive_cable = !!(t[5] & TX8_PASSIVE_CABLE);
	m->active_cable = !!(t[5] & TX8_ACTIVE_CABLE);
	for (unsigned i = 0; i < 8; i++) {
		says_copper |= (t[i] & copper_codes[i]) != 0;
		says_optical |= (t[i] & optical_codes[i]) != 0;
	}
	says_copper |= ext_copper(m->ext_compliance) || b[A0_CONNECTOR] == CONN_COPPER_PIGTAIL ||
		       b[A0_CONNECTOR] == CONN_RJ45;
	/*
	 * No laser and no receiver: a direct-attach cable, an active cable with
	 * copper pigtails (an active optical cable sets the active bit too, but
	 * its connector is not a copper pigtail), or a module that declares a
	 * copper medium and no optical one.
	 */
	m->copper = m->passive_cable || (m->active_cable && b[A0_CONNECTOR] == CONN_COPPER_PIGTAIL) ||
		    (says_copper && !says_optical);

	/* The most specific name: extended code, 10G Ethernet, GbE, cable. */
	if (m->ext_compliance)
		m->media = m->ext_compliance_name;
	else if ((n = first_name(t[0], transceiver_bits[0], 0xf0)))
		m->media = n;
	else if ((n = first_name(t[3], transceiver_bits[3], 0xff)))
		m->media = n;
	else if (m->passive_cable)
		m->media = "SFP+ passive direct-attach cable";
	else if (m->active_cable)
		m->media = "SFP+ active cable";
	else
		m->media = "unspecified";
}

static void decode_identity(struct apenet_sff8472 *m, const uint8_t *b)
{
	m->id = b[A0_ID];
	m->id_name = apenet_sff8636_id_name(m->id);
	m->ext_id = b[A0_EXT_ID];
	m->ext_id_name = ext_id_name(m->ext_id);
	m->connector = b[A0_CONNECTOR];
	m->connector_name = apenet_sff8636_connector_name(m->connector);
	decode_codes(m, b);

	m->encoding = b[A0_ENCODING];
	m->encoding_name = apenet_sff8472_encoding_name(m->encoding);
	/* Byte 12 saturates at 25.4 Gbps; 0xff hands over to byte 66 (250 Mbps units). */
	if (b[A0_BR] == 0xff) {
		m->br_extended = 1;
		m->br_nominal_mbps = b[A0_BR_MAX] * 250u;
	} else {
		m->br_nominal_mbps = b[A0_BR] * 100u;
		m->br_max_pct = b[A0_BR_MAX];
		m->br_min_pct = b[A0_BR_MIN];
	}
	m->rate_id = b[A0_RATE_ID];
	m->rate_id_name = apenet_sff8472_rate_id_name(m->rate_id);

	/*
	 * The lengths follow the medium the module declares, not only the cable
	 * bits: byte 18 is metres of cable for a copper module (1000BASE-T's
	 * 100 m is not "OM4 x10 m") and for a cable assembly, else OM4 fibre in
	 * 10 m units.  A copper module has no fibre: rev 12.x gives bytes 14-15
	 * and 19 of copper cables other meanings, so they are not lengths.
	 */
	m->len_cable = m->copper || m->passive_cable || m->active_cable;
	if (m->len_cable)
		m->len_copper_m = b[A0_LEN_OM4_CU];
	else
		m->len_om4_m = b[A0_LEN_OM4_CU] * 10u;
	if (!m->copper) {
		m->len_smf_km = b[A0_LEN_SMF_KM];
		m->len_smf_m = b[A0_LEN_SMF] * 100u;
		m->len_om2_m = b[A0_LEN_OM2] * 10u;
		m->len_om1_m = b[A0_LEN_OM1] * 10u;
		m->len_om3_m = b[A0_LEN_OM3] * 10u;
	}

	apenet_sff_ascii(m->vendor, b + A0_VENDOR, 16);
	memcpy(m->oui, b + A0_OUI, sizeof(m->oui));
	apenet_sff_ascii(m->part, b + A0_PN, 16);
	apenet_sff_ascii(m->vendor_rev, b + A0_REV, 4);
	apenet_sff_ascii(m->serial, b + A0_SN, 16);
	apenet_sff_date(b + A0_DATE, m->date_code, m->date, m->lot);

	/* Bytes 60-61: a cable's compliance, else the laser wavelength. */
	m->cable_compliance_names[0] = '\0';
	if (m->passive_cable || m->active_cable) {
		static const char *const passive[8] = { NULL, NULL, NULL, NULL, NULL, NULL, "FC-PI-4 Appendix H",
							"SFF-8431 Appendix E" };
		static const char *const active[8] = { NULL, NULL, NULL, NULL, "FC-PI-4 Limiting", "SFF-8431 Limiting",
						       "FC-PI-4 Appendix H", "SFF-8431 Appendix E" };

		m->cable_compliance = b[A0_WAVELEN];
		bit_names(m->cable_compliance_names, sizeof(m->cable_compliance_names), m->cable_compliance,
			  m->passive_cable ? passive : active);
	} else {
		/*
		 * A DWDM module's byte 62 is the wavelength's fraction in 0.01 nm
		 * (Finisar AN-2030; SFF-8472 leaves it to them unless byte 10 bit 1
		 * makes it the Fibre Channel speed 2 codes): 1544 + 53 is 1544.53
		 * nm.  A byte of 100 or more is no fraction.
		 */
		uint8_t frac = b[A0_WAVELEN_FRAC];

		m->wavelength_nm = apenet_sff_be16(b, A0_WAVELEN);
		if (m->wavelength_nm > 0 && !(b[A0_FC_SPEED] & TX10_SEE_BYTE62) && frac < 100)
			m->wavelength_nm += frac / 100.0;
	}

	memcpy(m->options, b + A0_OPTIONS, sizeof(m->options));
	m->options_names[0] = '\0';
	for (unsigned i = 0; i < 2; i++)
		bit_names(m->options_names, sizeof(m->options_names), m->options[i], option_bits[i]);
	m->tx_fault_pin = !!(m->options[1] & 0x08);
	m->los_inverted = !!(m->options[1] & 0x04);
	m->los_pin = !!(m->options[1] & 0x02);
	m->tx_disable_pin = !!(m->options[1] & 0x10);

	m->diag_type = b[A0_DIAG];
	m->ddm = !!(m->diag_type & DIAG_DDM);
	m->internal_cal = !!(m->diag_type & DIAG_INTERNAL);
	m->external_cal = !!(m->diag_type & DIAG_EXTERNAL);
	m->rx_power_avg = !!(m->diag_type & DIAG_RX_AVG);
	m->addr_change = !!(m->diag_type & DIAG_ADDR_CHANGE);
	m->enh_options = b[A0_ENH];
	m->flags_implemented = !!(m->enh_options & ENH_FLAGS);
	m->soft_tx_disable = !!(m->enh_options & ENH_SOFT_TX_DISABLE);
	m->soft_tx_fault = !!(m->enh_options & ENH_SOFT_TX_FAULT);
	m->soft_rx_los = !!(m->enh_options & ENH_SOFT_RX_LOS);
	m->soft_rate_select = !!(m->enh_options & ENH_SOFT_RATE_SELECT);
	m->compliance_rev = b[A0_COMPLIANCE];
	m->compliance_rev_name = apenet_sff8472_compliance_rev_name(m->compliance_rev);

	m->cc_base_stored = b[A0_CC_BASE];
	m->cc_base_computed = apenet_sff_sum8(b, A0_ID, A0_CC_BASE - 1);
	m->cc_base_ok = m->cc_base_stored == m->cc_base_computed;
	m->cc_ext_stored = b[A0_CC_EXT];
	m->cc_ext_computed = apenet_sff_sum8(b, A0_OPTIONS, A0_CC_EXT - 1);
	m->cc_ext_ok = m->cc_ext_stored == m->cc_ext_computed;
}

/* ---- A2h ---- */

/* An IEEE 754 single, big-endian; a NaN or infinity from a garbage page reads as 0. */
static double be_float(const uint8_t *b, unsigned off)
{
	uint32_t u = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 | (uint32_t)b[off + 2] << 8 | b[off + 3];
	float f;

	memcpy(&f, &u, sizeof(f));
	return isfinite(f) ? (double)f : 0.0;
}

/* Slope: unsigned fixed point 8.8; offset: signed 16 bits in the result's unit. */
static void slope_offset(const uint8_t *b, unsigned off, double *slope, double *offset)
{
	unsigned o = apenet_sff_be16(b, off + 2);

	*slope = apenet_sff_be16(b, off) / 256.0;
	*offset = o >= 0x8000u ? (double)o - 65536.0 : (double)o;
}

static void decode_cal(struct apenet_sff8472 *m, const uint8_t *b)
{
	struct apenet_sff8472_cal *c = &m->cal;

	memset(c, 0, sizeof(*c));
	if (!m->external_cal) {
		/* Internally calibrated: the readings are already in the spec's units. */
		c->rx_pwr[1] = c->tx_i_slope = c->tx_pwr_slope = c->t_slope = c->v_slope = 1.0;
		return;
	}
	for (unsigned i = 0; i < 5; i++)
		c->rx_pwr[4 - i] = be_float(b, A2_CAL_RXP4 + 4 * i);
	slope_offset(b, A2_CAL_TXI, &c->tx_i_slope, &c->tx_i_offset);
	slope_offset(b, A2_CAL_TXP, &c->tx_pwr_slope, &c->tx_pwr_offset);
	slope_offset(b, A2_CAL_T, &c->t_slope, &c->t_offset);
	slope_offset(b, A2_CAL_V, &c->v_slope, &c->v_offset);
}

/* Each raw reading (or threshold) to its unit, through the calibration. */
static double cal_temp(const struct apenet_sff8472_cal *c, const uint8_t *b, unsigned off)
{
	return (c->t_slope * apenet_sff_temp(apenet_sff_be16(b, off)) * 256.0 + c->t_offset) / 256.0;
}

static double cal_vcc(const struct apenet_sff8472_cal *c, const uint8_t *b, unsigned off)
{
	return (c->v_slope * apenet_sff_be16(b, off) + c->v_offset) / 10000.0; /* 100 uV */
}

static double cal_bias(const struct apenet_sff8472_cal *c, const uint8_t *b, unsigned off)
{
	return (c->tx_i_slope * apenet_sff_be16(b, off) + c->tx_i_offset) / 500.0; /* 2 uA */
}

static double nonneg(double x)
{
	return x > 0.0 ? x : 0.0; /* optical power is never negative, whatever the constants say */
}

static double cal_txp(const struct apenet_sff8472_cal *c, const uint8_t *b, unsigned off)
{
	return nonneg((c->tx_pwr_slope * apenet_sff_be16(b, off) + c->tx_pwr_offset) / 10000.0); /* 0.1 uW */
}

static double cal_rxp(const struct apenet_sff8472_cal *c, const uint8_t *b, unsigned off)
{
	double x = apenet_sff_be16(b, off), y = 0.0;

	for (int i = 4; i >= 0; i--) /* Horner: Rx_PWR(4) x^4 + ... + Rx_PWR(0) */
		y = y * x + c->rx_pwr[i];
	return nonneg(y / 10000.0);
}

static void thresh(struct apenet_module_thresh *t, const struct apenet_sff8472_cal *c, const uint8_t *b,
		   unsigned off, double (*dec)(const struct apenet_sff8472_cal *, const uint8_t *, unsigned))
{
	t->high_alarm = dec(c, b, off);
	t->low_alarm = dec(c, b, off + 2);
	t->high_warn = dec(c, b, off + 4);
	t->low_warn = dec(c, b, off + 6);
}

/* One quantity's flags as a nibble: alarm bits from 112-113, warnings from 116-117. */
static uint8_t aw(const uint8_t al[2], const uint8_t wa[2], unsigned byte, unsigned hi_bit)
{
	unsigned h = 1u << hi_bit, l = 1u << (hi_bit - 1);

	return (uint8_t)((al[byte] & h ? APENET_AW_HIGH_ALARM : 0) | (al[byte] & l ? APENET_AW_LOW_ALARM : 0) |
			 (wa[byte] & h ? APENET_AW_HIGH_WARN : 0) | (wa[byte] & l ? APENET_AW_LOW_WARN : 0));
}

static void decode_a2(struct apenet_sff8472 *m, const uint8_t *b)
{
	const struct apenet_sff8472_cal *c = &m->cal;

	if (m->len < APENET_SFF8472_LEN_FULL || !m->ddm || apenet_sff_blank(b + A2(0), 256, NULL))
		return;
	m->a2_present = 1;
	decode_cal(m, b);
	thresh(&m->th_temp, c, b, A2_TH_TEMP, cal_temp);
	thresh(&m->th_vcc, c, b, A2_TH_VCC, cal_vcc);
	thresh(&m->th_tx_bias, c, b, A2_TH_BIAS, cal_bias);
	thresh(&m->th_tx_power, c, b, A2_TH_TXP, cal_txp);
	thresh(&m->th_rx_power, c, b, A2_TH_RXP, cal_rxp);

	m->temp_c = cal_temp(c, b, A2_TEMP);
	m->vcc_v = cal_vcc(c, b, A2_VCC);
	m->tx_bias_ma = cal_bias(c, b, A2_BIAS);
	m->tx_power_mw = cal_txp(c, b, A2_TXP);
	m->tx_power_dbm = apenet_sff8636_mw_to_dbm(m->tx_power_mw);
	m->rx_power_mw = cal_rxp(c, b, A2_RXP);
	m->rx_power_dbm = apenet_sff8636_mw_to_dbm(m->rx_power_mw);

	m->status = b[A2_STATUS];
	m->tx_disable_state = !!(m->status & 0x80);
	m->soft_tx_disable_sel = !!(m->status & 0x40);
	m->rs1_state = !!(m->status & 0x20);
	m->rs0_state = !!(m->status & 0x10);
	m->soft_rs0_sel = !!(m->status & 0x08);
	m->tx_fault_state = !!(m->status & 0x04);
	m->rx_los_state = !!(m->status & 0x02);
	m->data_not_ready = !!(m->status & 0x01);

	memcpy(m->alarm_flags, b + A2_ALARMS, 2);
	memcpy(m->warn_flags, b + A2_WARNINGS, 2);
	m->temp_flags = aw(m->alarm_flags, m->warn_flags, 0, 7);
	m->vcc_flags = aw(m->alarm_flags, m->warn_flags, 0, 5);
	m->tx_bias_flags = aw(m->alarm_flags, m->warn_flags, 0, 3);
	m->tx_power_flags = aw(m->alarm_flags, m->warn_flags, 0, 1);
	m->rx_power_flags = aw(m->alarm_flags, m->warn_flags, 1, 7);

	m->cc_dmi_stored = b[A2_CC_DMI];
	m->cc_dmi_computed = apenet_sff_sum8(b, A2(0), A2_CC_DMI - 1);
	m->cc_dmi_ok = m->cc_dmi_stored == m->cc_dmi_computed;
}

/* Which specification the identifier belongs to, for the error message. */
static const char *not_sfp_hint(uint8_t id)
{
	switch (id) {
	case 0x0c:
	case 0x0d:
	case 0x11:
		return "a QSFP? use SFF-8636";
	case 0x18:
	case 0x19:
	case 0x1e:
		return "a CMIS module? use CMIS";
	default:
		return apenet_sff8636_id_name(id);
	}
}

int apenet_sff8472_decode(const uint8_t *buf, size_t len, struct apenet_sff8472 *m, char *err, size_t errlen)
{
	int ff;

	if (len != APENET_SFF8472_LEN_A0 && len < APENET_SFF8472_LEN_FULL)
		return apenet_errbuf(err, errlen, "EEPROM dump is %zu bytes: expected 256 (A0h) or 512 (A0h and A2h)",
				     len);
	if (!buf || !m)
		return apenet_errbuf(err, errlen, "EEPROM decode: no buffer");
	if (len > APENET_SFF8472_LEN_FULL)
		len = APENET_SFF8472_LEN_FULL;
	if (apenet_sff_blank(buf, APENET_SFF8472_LEN_A0, &ff))
		return apenet_errbuf(err, errlen, ff ? "EEPROM reads all 0xff: no module in the cage, or the I2C read failed"
						     : "EEPROM reads all zeros: the module's pages were not read (empty mirror)");
	if (buf[A0_ID] != 0x02 && buf[A0_ID] != 0x03 && buf[A0_ID] != 0x0b)
		return apenet_errbuf(err, errlen, "byte 0 (identifier) is 0x%02x: not an SFF-8472 module (%s)", buf[A0_ID],
				     not_sfp_hint(buf[A0_ID]));

	memset(m, 0, sizeof(*m));
	m->len = len;
	decode_identity(m, buf);
	decode_a2(m, buf);
	return 0;
}
