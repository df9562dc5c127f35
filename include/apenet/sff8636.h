/*
 * SFF-8636 (QSFP+/QSFP28) module EEPROM decoder: a codec with no I/O.
 *
 * Input is the page image a card mirrors into its BAR, in the layout
 * `ethtool -m DEV raw on` writes:
 *   0-127   lower page 00h          128-255 upper page 00h
 *   256-383 upper page 01h          384-511 upper page 02h
 *   512-639 upper page 03h (thresholds)
 * A 256-byte image is the lower page and upper page 00h only (what ethtool
 * writes for a flat-memory module).
 *
 * Units are the spec's, converted once here: temperature in degrees C,
 * voltage in V, optical power in mW (and dBm), bias in mA, lengths in m
 * (SMF in km), bit rate in Mbps, wavelength in nm, attenuation in dB.
 */
#ifndef APENET_SFF8636_H
#define APENET_SFF8636_H

#include <stddef.h>
#include <stdint.h>

#define APENET_SFF8636_LANES 4
#define APENET_SFF8636_LEN_BASE 256u /* lower page + upper page 00h */
#define APENET_SFF8636_LEN_FULL 640u /* plus upper pages 01h, 02h, 03h */

/*
 * The four alarm/warning flags of one monitored quantity (or one lane of
 * it), as a nibble in the order the spec packs them into bytes 6-14.
 */
enum apenet_sff8636_aw {
	APENET_SFF8636_HIGH_ALARM = 0x8,
	APENET_SFF8636_LOW_ALARM = 0x4,
	APENET_SFF8636_HIGH_WARN = 0x2,
	APENET_SFF8636_LOW_WARN = 0x1,
};

/* The four thresholds of one quantity (upper page 03h), in its unit. */
struct apenet_sff8636_thresh {
	double high_alarm, low_alarm, high_warn, low_warn;
};

struct apenet_sff8636 {
	size_t len; /* bytes decoded: 256 or 640 */

	/* Identity (lower page bytes 0-2, upper page 00h bytes 128-129). */
	uint8_t id;             /* byte 0, SFF-8024 identifier: 0x0c, 0x0d or 0x11 */
	const char *id_name;    /* "QSFP+", ... */
	uint8_t id_upper;       /* byte 128: should equal id */
	uint8_t rev;            /* byte 1, revision compliance */
	const char *rev_name;   /* "SFF-8636 rev 2.5, 2.6 and 2.7", ... */
	uint8_t status;         /* byte 2 */
	int flat_mem;           /* byte 2 bit 2: only lower page + upper page 00h */
	int intl_asserted;      /* byte 2 bit 1 clear: the module signals an interrupt */
	int data_not_ready;     /* byte 2 bit 0 */
	uint8_t ext_id;         /* byte 129 */
	unsigned power_class;   /* 1-8 from byte 129 */
	double max_power_w;     /* of that class; 0 for class 8 (given in byte 107) */

	/* What it is (bytes 130-147). */
	uint8_t connector;           /* byte 130, SFF-8024 connector code */
	const char *connector_name;  /* "MPO 1x12", "No separable connector", ... */
	uint8_t compliance[8];       /* bytes 131-138, raw */
	/*
	 * Compliance codes, ", "-joined: the extended code (byte 192) when byte
	 * 131 bit 7 points at it, then the Ethernet codes of bytes 131 and 134.
	 */
	char eth_names[224];
	uint8_t ext_compliance;      /* byte 192 (meaningful when byte 131 bit 7 is set) */
	const char *ext_compliance_name;
	const char *media;           /* best single name: extended, 10/40G, GbE, or "unspecified" */
	uint8_t encoding;            /* byte 139 */
	const char *encoding_name;   /* "64B/66B", ... */
	unsigned br_nominal_mbps;    /* byte 140 x 100, or byte 222 x 250 when byte 140 is 0xff */
	int br_extended;             /* the rate came from byte 222 */
	/* Lengths; the raw byte 255 means "longer than 254 units". */
	unsigned len_smf_km;         /* byte 142 */
	unsigned len_om3_m;          /* byte 143, 2 m units */
	unsigned len_om2_m;          /* byte 144 */
	unsigned len_om1_m;          /* byte 145 */
	/*
	 * Byte 146 is the copper/active cable length in 1 m units, or the OM4
	 * fibre length in 2 m units; which one depends on the module.  Both
	 * readings are given; ethtool prints it as copper/active cable.
	 */
	unsigned len_copper_m;       /* byte 146 x 1 m */
	unsigned len_om4_m;          /* byte 146 x 2 m */
	uint8_t dev_tech;            /* byte 147 */
	const char *tx_tech_name;    /* bits 7-4: "850 nm VCSEL", "Copper cable unequalized", ... */
	int copper;                  /* transmitter technology is a copper cable (0xa0-0xf0) */
	int passive;                 /* a passive copper cable (0xa0, 0xb0): no electronics to flag anything */
	int tunable, cooled, apd, wavelength_control; /* byte 147 bits 0-3 */

	/* Vendor (bytes 148-219): ASCII, trailing spaces/NULs trimmed, non-printables as '?'. */
	char vendor[17];
	uint8_t oui[3];
	char part[17];
	char vendor_rev[3];
	char serial[17];
	char date_code[9];           /* raw YYMMDDLL, trimmed */
	char date[11];               /* "20YY-MM-DD"; empty if the code is not a date */
	char lot[3];                 /* the code's LL, trimmed; may be empty */

	/* Copper: attenuation in dB at 2.5, 5, 7, 12.9 GHz (bytes 186-189); 0 is unspecified. */
	uint8_t atten_db[4];         /* valid when copper */
	/* Optical: wavelength (bytes 186-187, 0.05 nm) and tolerance (188-189, 0.005 nm). */
	double wavelength_nm;        /* valid when !copper */
	double wavelength_tol_nm;
	unsigned max_case_temp_c;    /* byte 190; 0 in the EEPROM means the default 70 C */

	/* Digital monitoring (lower page bytes 22-57; byte 220 says what is there). */
	uint8_t diag_type;           /* byte 220 */
	/*
	 * Which monitors the module implements.  Only modules of SFF-8636 rev
	 * 2.8 or later (revision byte 0x08) are trusted to declare temperature
	 * and Vcc in byte 220: older ones often leave those bits clear while
	 * monitoring both, so for them a reading of neither 0 nor 0xffff says
	 * it.  RX power and TX bias have no declaration: every optical module
	 * has them, a copper cable never.  TX power is declared by byte 220 bit
	 * 2.  Flat memory (a passive cable) has none.  A value is zero unless
	 * its monitor is implemented.
	 */
	int dom_present;             /* any monitor implemented */
	int temp_monitored;
	int vcc_monitored;
	int rx_power_monitored;
	int tx_bias_monitored;
	int tx_power_monitored;
	int rx_power_avg;            /* byte 220 bit 3: 1 average power, 0 OMA */
	int tx_power_supported;      /* byte 220 bit 2, as declared */
	double temp_c;               /* signed, 1/256 C */
	double vcc_v;                /* 100 uV */
	double rx_power_mw[APENET_SFF8636_LANES]; /* 0.1 uW */
	double rx_power_dbm[APENET_SFF8636_LANES]; /* 0 mW reads as -40 dBm, the floor */
	double tx_bias_ma[APENET_SFF8636_LANES];  /* 2 uA */
	double tx_power_mw[APENET_SFF8636_LANES]; /* 0.1 uW */
	double tx_power_dbm[APENET_SFF8636_LANES];

	/*
	 * Thresholds (upper page 03h): only when len is 640, memory is paged and
	 * bytes 128-199 of page 03h are neither all zero nor all 0xff (not read).
	 */
	int thresh_present;
	struct apenet_sff8636_thresh th_temp;      /* C */
	struct apenet_sff8636_thresh th_vcc;       /* V */
	struct apenet_sff8636_thresh th_rx_power;  /* mW */
	struct apenet_sff8636_thresh th_tx_bias;   /* mA */
	struct apenet_sff8636_thresh th_tx_power;  /* mW */

	/*
	 * Live (latched) flags from the lower page.  Lane masks: bit n = lane
	 * n + 1.  Alarm/warning nibbles: enum apenet_sff8636_aw.
	 */
	uint8_t tx_los, rx_los;      /* byte 3 */
	uint8_t tx_fault;            /* byte 4 bits 3-0 */
	uint8_t tx_lol, rx_lol;      /* byte 5: CDR loss of lock */
	uint8_t temp_flags;          /* byte 6 bits 7-4 */
	uint8_t vcc_flags;           /* byte 7 bits 7-4 */
	uint8_t rx_power_flags[APENET_SFF8636_LANES]; /* bytes 9-10 */
	uint8_t tx_bias_flags[APENET_SFF8636_LANES];  /* bytes 11-12 */
	uint8_t tx_power_flags[APENET_SFF8636_LANES]; /* bytes 13-14 */

	/* Check codes: low 8 bits of the sum of bytes 128-190 and 192-222. */
	int cc_base_ok, cc_ext_ok;
	uint8_t cc_base_stored, cc_base_computed; /* byte 191 */
	uint8_t cc_ext_stored, cc_ext_computed;   /* byte 223 */
};

/*
 * Decode an image of len bytes (256, or 640; longer images use the first
 * 640).  Returns 0, or -1 with a message in err for a length that is
 * neither, an image that is all 0xff or all zeros, or an identifier that is
 * not a QSFP one.  Bad check codes are reported in *m, not as a failure.
 */
int apenet_sff8636_decode(const uint8_t *buf, size_t len, struct apenet_sff8636 *m, char *err,
			  size_t errlen);

struct apenet_module_health;
/* The health part of a decoded module, for the judge and the monitors. */
void apenet_sff8636_health(const struct apenet_sff8636 *m, struct apenet_module_health *h);

/* Names from the SFF-8636 / SFF-8024 tables; never NULL. */
const char *apenet_sff8636_id_name(uint8_t id);
const char *apenet_sff8636_rev_name(uint8_t rev);
const char *apenet_sff8636_connector_name(uint8_t code);
const char *apenet_sff8636_encoding_name(uint8_t code);
const char *apenet_sff8636_ext_compliance_name(uint8_t code);
const char *apenet_sff8636_tx_tech_name(uint8_t dev_tech);
/* Byte 131 bit (0-6) to its name, NULL for bit 7 (extended) or out of range. */
const char *apenet_sff8636_eth_compliance_name(unsigned bit);

/* 10 log10(mw), floored at -40 dBm (0.1 uW, the encoding's step) for 0 and below. */
double apenet_sff8636_mw_to_dbm(double mw);

#endif /* APENET_SFF8636_H */
