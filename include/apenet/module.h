/*
 * A plugged transceiver module, whichever specification decoded it
 * (SFF-8636 for QSFP+/QSFP28, SFF-8472 for SFP/SFP+).
 *
 * The two decoders keep their own structs (every field `ethtool -m` shows
 * of that layout); each also fills a struct apenet_module_health, the part
 * both share: the monitors with their thresholds and flags, the status
 * flags and the check codes.  The one judge (lofamo/rules_module.c) reads
 * only this, so a QSFP and an SFP are judged by the same rules, and
 * `apenet module` prints monitors and thresholds in one shape for both.
 *
 * A monitor the module does not implement is marked absent here, never
 * given a value of 0: what is absent is shown as absent and never judged.
 */
#ifndef APENET_MODULE_H
#define APENET_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/regs.h"

#define APENET_MODULE_MAX_LANES 4
/* The largest image: SFF-8636 lower page and upper pages 00h-03h. */
#define APENET_MODULE_IMAGE_MAX 640u

/* The monitored quantities, in the order they are judged and shown. */
enum apenet_module_mon_id {
	APENET_MON_TEMP,
	APENET_MON_VCC,
	APENET_MON_RX_POWER,
	APENET_MON_TX_BIAS,
	APENET_MON_TX_POWER,
	APENET_MON_COUNT
};

/*
 * The four alarm/warning flags of one quantity (or one lane of it), as a
 * nibble: both specifications order them high alarm, low alarm, high
 * warning, low warning.
 */
enum apenet_module_aw {
	APENET_AW_HIGH_ALARM = 0x8,
	APENET_AW_LOW_ALARM = 0x4,
	APENET_AW_HIGH_WARN = 0x2,
	APENET_AW_LOW_WARN = 0x1,
};

/* The four thresholds of one quantity, in its unit. */
struct apenet_module_thresh {
	double high_alarm, low_alarm, high_warn, low_warn;
};

struct apenet_module_mon {
	int present;       /* the module implements it: value[] holds readings */
	double value[APENET_MODULE_MAX_LANES]; /* [0] only for temperature and Vcc */
	/*
	 * Thresholds read and programmed: a set that is all zero or all equal
	 * was never written by the vendor and is neither shown nor judged.
	 */
	int thresh_ok;
	struct apenet_module_thresh th;
	int flags_ok;      /* the module implements its alarm/warning flags */
	uint8_t flags[APENET_MODULE_MAX_LANES]; /* enum apenet_module_aw */
};

/* One check code: a name ("base", "extended", "dmi"), stored and computed. */
struct apenet_module_check {
	const char *name;
	const char *field; /* "CC_BASE", ... */
	uint8_t stored, computed;
};

struct apenet_module_health {
	const char *spec;  /* "SFF-8636", "SFF-8472" */
	unsigned lanes;    /* 4 (QSFP) or 1 (SFP) */
	/*
	 * A copper cable has no laser and no receiver: RX power, TX bias and TX
	 * power are never judged on it, whatever page 03h or byte 220 claim.
	 */
	int copper;
	int rx_power_avg;  /* RX power is average power (else OMA) */
	/*
	 * Status flags, bit n = lane n + 1, only those the module implements:
	 * TX/RX loss of signal, TX fault, CDR loss of lock.
	 */
	uint8_t rx_los, tx_los, tx_fault, rx_lol, tx_lol;
	int rx_los_ok, tx_los_ok, tx_fault_ok, lol_ok; /* which of them it implements */
	struct apenet_module_mon mon[APENET_MON_COUNT];
	struct apenet_module_check cc[3];
	unsigned ncc;
};

/* How a quantity is named, its unit, its JSON key and print precision. */
struct apenet_module_mon_info {
	const char *name;  /* "temperature", "RX power", ... */
	const char *unit;  /* "C", "V", "mW", "mA" */
	const char *key;   /* "temperature_C", ... */
	int prec;
	int per_lane;      /* one value per lane */
	int optical;       /* only an optical module has it */
};
const struct apenet_module_mon_info *apenet_module_mon_info(enum apenet_module_mon_id id);

/* Thresholds that were never programmed: all zero, or all equal. */
int apenet_module_thresh_unset(const struct apenet_module_thresh *t);

/* ---- images: raw dumps and register mirrors ---- */

struct apenet_module_image {
	uint8_t b[APENET_MODULE_IMAGE_MAX];
	size_t len;                   /* bytes that belong to the module's pages */
	enum apenet_ee_layout layout; /* which decoder reads them */
};

/* Why a file is not a module image (apenet_module_load_file's return). */
enum apenet_module_file_err {
	APENET_MFILE_OK = 0,
	APENET_MFILE_IO,    /* cannot open or read it */
	APENET_MFILE_SIZE,  /* a size no dump of its kind has */
	APENET_MFILE_KIND,  /* not a QSFP or SFP image (identifier, blank) */
};
/* A stable code for the error: "FILE_UNREADABLE", "FILE_SIZE", "FILE_NOT_A_MODULE". */
const char *apenet_module_file_err_code(enum apenet_module_file_err e);

/*
 * Which decoder reads an image, from its identifier (byte 0) and length:
 * a QSFP image (SFF-8636) is 256 or 640 bytes, an SFP image (SFF-8472)
 * 256 (A0h) or 512 (A0h then A2h).  Returns APENET_MFILE_OK, or SIZE/KIND
 * with a message naming the identifier and the size.
 */
enum apenet_module_file_err apenet_module_identify(const uint8_t *b, size_t len, enum apenet_ee_layout *layout,
						   char *err, size_t errlen);

/*
 * Reads a raw dump (`ethtool -m DEV raw on > file`) and identifies it.
 * Errors name the file; the return says which kind of error it is.
 */
enum apenet_module_file_err apenet_module_load_file(const char *path, struct apenet_module_image *img, char *err,
						    size_t errlen);

/*
 * The image of a card's EEPROM window: the layout its EE_STATUS declares
 * (by the identifier when the firmware does not say), and the bytes of
 * that layout (640 for SFF-8636, 512 for SFF-8472).
 */
void apenet_module_from_window(const uint8_t window[APENET_EE_DATA_LEN], uint32_t ee_status,
			       struct apenet_module_image *img);

/* Who a module is: what a cable certificate keys on. */
struct apenet_module_id {
	char vendor[17], part[17], serial[17];
	double length_m;   /* a copper cable's length; NaN when the module does not say (optical) */
	int copper;
};
/* The identity in an image (either layout); -1 with err naming what is
 * wrong (an image the decoder refuses, a blank serial number). */
int apenet_module_identity(const struct apenet_module_image *img, struct apenet_module_id *id, char *err,
			   size_t errlen);

#endif /* APENET_MODULE_H */
