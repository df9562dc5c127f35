/*
 * SFF-8472 (SFP/SFP+) module EEPROM decoder: a codec with no I/O.
 *
 * Input is the image `ethtool -m DEV raw on` writes for an SFP:
 *   0-255   A0h: serial ID (identity, codes, vendor, options)
 *   256-511 A2h: diagnostics (thresholds, calibration, live monitors, flags)
 * A 256-byte image is A0h only (what ethtool writes for a module without
 * digital diagnostics).  Card EEPROM windows mirror the same layout.
 *
 * Units as for SFF-8636 (include/apenet/sff8636.h): C, V, mW (and dBm),
 * mA; lengths in m (SMF also in km); rates in Mbps; wavelength in nm.
 * Externally calibrated modules are converted with their own constants
 * (A2h bytes 56-91) once here, readings and thresholds both.
 */
#ifndef APENET_SFF8472_H
#define APENET_SFF8472_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/module.h"

#define APENET_SFF8472_LEN_A0 256u   /* A0h only */
#define APENET_SFF8472_LEN_FULL 512u /* A0h then A2h */

/* A2h external calibration constants (used when diag_type bit 4 is set). */
struct apenet_sff8472_cal {
	double rx_pwr[5];            /* Rx_PWR(0)..(4): polynomial in the A/D reading */
	double tx_i_slope, tx_i_offset;
	double tx_pwr_slope, tx_pwr_offset;
	double t_slope, t_offset;
	double v_slope, v_offset;
};

struct apenet_sff8472 {
	size_t len;                  /* 256 or 512 */

	/* A0h identity (bytes 0-2). */
	uint8_t id;                  /* SFF-8024: 0x03 SFP/SFP+, 0x02 soldered, 0x0b DWDM-SFP */
	const char *id_name;
	uint8_t ext_id;              /* byte 1: 0x04 = defined by the 2-wire interface ID */
	const char *ext_id_name;
	uint8_t connector;           /* byte 2 */
	const char *connector_name;

	/* Transceiver codes (bytes 3-10) and the extended code (byte 36). */
	uint8_t transceiver[8];
	char compliance[1024];       /* every code set, ", "-joined: extended, 10G, GbE, cable */
	uint8_t ext_compliance;
	const char *ext_compliance_name;
	const char *media;           /* best single name, or "unspecified" */
	int passive_cable;           /* byte 8 bit 2: SFP+ passive (direct attach) cable */
	int active_cable;            /* byte 8 bit 3 */
	/*
	 * A copper medium, by what the module declares (codes of bytes 3-10 and
	 * 36, connector) and only when it declares no optical code: a passive
	 * cable, an active one with copper pigtails, 1000BASE-T/CX, twin-ax or
	 * twisted pair (byte 9), InfiniBand copper, RJ45, the extended codes of
	 * copper cables and BASE-T.  No laser, no receiver.
	 */
	int copper;

	uint8_t encoding;            /* byte 11, SFF-8024 (SFP meaning) */
	const char *encoding_name;
	unsigned br_nominal_mbps;    /* byte 12 x 100, or byte 66 x 250 when byte 12 is 0xff */
	int br_extended;
	unsigned br_max_pct, br_min_pct; /* bytes 66-67 as margins, when not extended */
	uint8_t rate_id;             /* byte 13 */
	const char *rate_id_name;

	/*
	 * Lengths, by the medium the module declares; 0 means not specified
	 * for that medium.  Byte 18 is a cable's length in metres (copper
	 * media and cable assemblies), else OM4 fibre in 10 m units.  A copper
	 * module has no fibre lengths: SFF-8472 rev 12.x gives bytes 14-15 and
	 * 19 of copper cables other meanings (attenuation, a length multiplier).
	 */
	unsigned len_smf_km;         /* byte 14 */
	unsigned len_smf_m;          /* byte 15, 100 m units */
	unsigned len_om2_m;          /* byte 16, 10 m */
	unsigned len_om1_m;          /* byte 17, 10 m */
	int len_cable;               /* byte 18 is a cable's length: len_copper_m, else len_om4_m */
	unsigned len_om4_m;          /* byte 18, 10 m (fibre modules) */
	unsigned len_copper_m;       /* byte 18, 1 m (copper media, cable assemblies) */
	unsigned len_om3_m;          /* byte 19, 10 m */

	/* Vendor: ASCII, trailing spaces/NULs trimmed, non-printables as '?'. */
	char vendor[17];             /* 20-35 */
	uint8_t oui[3];              /* 37-39 */
	char part[17];               /* 40-55 */
	char vendor_rev[5];          /* 56-59 */
	char serial[17];             /* 68-83 */
	char date_code[9];           /* 84-91, raw YYMMDDLL trimmed */
	char date[11];               /* "20YY-MM-DD", empty if not a date */
	char lot[3];

	/*
	 * Bytes 60-61: the laser wavelength in nm, or for a cable its
	 * compliance.  A DWDM module gives the fraction in byte 62, in 0.01 nm
	 * (1544.53 nm: 1544 and 53), where byte 10 bit 1 does not make byte 62
	 * the Fibre Channel speed 2 codes and the byte is below 100.
	 */
	double wavelength_nm;        /* valid when neither cable bit is set; 0: not given */
	uint8_t cable_compliance;    /* byte 60 for cables */
	char cable_compliance_names[96];

	uint8_t options[2];          /* bytes 64-65 */
	char options_names[400];     /* the options set, ", "-joined */
	int tx_fault_pin, los_pin, los_inverted, tx_disable_pin; /* byte 65 */

	/* Diagnostics declared in A0h. */
	uint8_t diag_type;           /* byte 92 */
	int ddm;                     /* bit 6: digital diagnostics implemented */
	int internal_cal;            /* bit 5 */
	int external_cal;            /* bit 4 */
	int rx_power_avg;            /* bit 3: 1 average power, 0 OMA */
	int addr_change;             /* bit 2: address change needed to reach A2h */
	uint8_t enh_options;         /* byte 93 */
	int flags_implemented;       /* bit 7: alarm/warning flags for every monitor */
	int soft_tx_disable, soft_tx_fault, soft_rx_los, soft_rate_select; /* bits 6-3 */
	uint8_t compliance_rev;      /* byte 94 */
	const char *compliance_rev_name;

	/* A0h check codes: sum of bytes 0-62 (byte 63), and of 64-94 (byte 95). */
	int cc_base_ok, cc_ext_ok;
	uint8_t cc_base_stored, cc_base_computed;
	uint8_t cc_ext_stored, cc_ext_computed;

	/*
	 * A2h: only when the image has it (512 bytes), byte 92 says the module
	 * implements diagnostics, and the page is neither all zeros nor all
	 * 0xff (not read).  Everything below is zero otherwise.
	 */
	int a2_present;
	struct apenet_sff8472_cal cal; /* identity (slope 1, offset 0) when internally calibrated */
	struct apenet_module_thresh th_temp, th_vcc, th_tx_bias, th_tx_power, th_rx_power;
	double temp_c, vcc_v, tx_bias_ma, tx_power_mw, tx_power_dbm, rx_power_mw, rx_power_dbm;
	uint8_t status;              /* A2h byte 110 */
	int tx_disable_state, soft_tx_disable_sel, rs1_state, rs0_state, soft_rs0_sel;
	int tx_fault_state, rx_los_state, data_not_ready;
	uint8_t alarm_flags[2], warn_flags[2]; /* A2h bytes 112-113, 116-117 */
	/* The same flags as nibbles per quantity (enum apenet_module_aw). */
	uint8_t temp_flags, vcc_flags, tx_bias_flags, tx_power_flags, rx_power_flags;
	int cc_dmi_ok;               /* A2h byte 95: sum of A2h bytes 0-94 */
	uint8_t cc_dmi_stored, cc_dmi_computed;
};

/*
 * Decode an image of len bytes (256, or 512; longer images use the first
 * 512).  Returns 0, or -1 with a message in err for a length that is
 * neither, an A0h page that is blank, or an identifier that is not an SFP
 * one.  Bad check codes are reported in *m, not as a failure.
 */
int apenet_sff8472_decode(const uint8_t *buf, size_t len, struct apenet_sff8472 *m, char *err, size_t errlen);

/* The health part of a decoded module, for the judge and the monitors. */
void apenet_sff8472_health(const struct apenet_sff8472 *m, struct apenet_module_health *h);

/* Names from the SFF-8472 / SFF-8024 tables; never NULL. */
const char *apenet_sff8472_encoding_name(uint8_t code);
const char *apenet_sff8472_rate_id_name(uint8_t code);
const char *apenet_sff8472_compliance_rev_name(uint8_t code);

#endif /* APENET_SFF8472_H */
