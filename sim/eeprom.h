/*
 * apenet-sim: the module EEPROM behind each cage: QSFP+ (SFF-8636, here and
 * in eeprom.c) or SFP+ (SFF-8472, eeprom_sfp.c).
 *
 * The card's firmware mirrors the module's pages into the EEPROM window of
 * BAR0 (APENET_EE_DATA, APENET_EE_DATA_LEN bytes) in the layout
 * `ethtool -m DEV raw on` writes: bytes 0-127 lower page 00h, 128-255 upper
 * page 00h, 256-383 upper page 01h, 384-511 upper page 02h, 512-639 upper
 * page 03h.  An SFP's window holds A0h in bytes 0-255 and A2h in 256-511
 * (the rest zero), as ethtool writes an SFP.  This module builds those images
 * from a description of the module and re-encodes its live monitors when the
 * emulator's sensors move.
 *
 * Pure codec: no I/O, no global state.
 */
#ifndef APENET_SIM_EEPROM_H
#define APENET_SIM_EEPROM_H

#include <stdint.h>

#include "apenet/regs.h"

enum sim_module_kind {
	SIM_MOD_NONE,    /* empty cage */
	SIM_MOD_COPPER,  /* passive direct-attach copper: flat memory, no DOM */
	SIM_MOD_OPTICAL, /* 40GBASE-SR4 MPO module: paged memory, DOM */
};

/* The cage's form factor; zero is QSFP+, so existing descriptions stay QSFP+. */
enum sim_module_form { SIM_FORM_QSFP = 0, SIM_FORM_SFP = 1 };

struct sim_module {
	enum sim_module_kind kind;
	enum sim_module_form form;
	/* NUL-terminated; written space-padded to their SFF-8636 widths */
	char vendor[17], part[17], rev[3], serial[17], date[9]; /* date "YYMMDDLL" */
	uint8_t oui[3];
	unsigned length_m;   /* cable/assembly length in metres */
	double nominal_gbps; /* per lane, e.g. 10.3 for QSFP+ 40G-class */
	/* copper: attenuation in dB at 2.5, 5, 7, 12.9 GHz (bytes 186-189 of page 00h) */
	uint8_t atten_db[4];
	/* digital monitoring, optical only; an SFP uses lane [0] */
	double temp_c, vcc_v;
	double rx_power_mw[4], tx_bias_ma[4], tx_power_mw[4];
};

/*
 * Fill *m with a plausible, clearly made-up identity of the given kind:
 * copper = passive QSFP+ DAC (attenuation derived from length_m), optical =
 * SR4 module with nominal DOM readings.  serial_no makes the serial number
 * (and the date code's lot) unique per module.
 */
void sim_module_default(struct sim_module *m, enum sim_module_kind kind, unsigned length_m,
			uint32_t serial_no);

/*
 * The same for an SFP+ cage: copper = passive SFP+ direct-attach cable (A0h
 * only, no diagnostics), optical = a module with internally calibrated
 * diagnostics: 10GBASE-SR above 2 Gbps a lane (lane_gbps), else 1000BASE-SX.
 */
void sim_module_default_sfp(struct sim_module *m, enum sim_module_kind kind, unsigned length_m,
			    uint32_t serial_no, double lane_gbps);

/*
 * Build the whole 640-byte image for m (an SFP: sim_eeprom_build_sfp): lower page, upper page 00h with both
 * check codes, page 03h thresholds (optical only), pages 01h/02h zero.  For
 * optical modules the monitors and alarm/warning flags are encoded as by
 * sim_eeprom_update_dom().  SIM_MOD_NONE gives all zeros.
 */
void sim_eeprom_build(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN]);

/*
 * Re-encode the live monitors (bytes 22-57) and the interrupt flags derived
 * from them (bytes 3, 6, 7, 9-14, and the IntL state in byte 2) of an image
 * built by sim_eeprom_build(), comparing against the thresholds stored in its
 * page 03h.  Nothing in upper page 00h changes, so the check codes stay valid.
 * No-op unless m is optical.
 */
void sim_eeprom_update_dom(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN]);

/*
 * The SFF-8472 image of an SFP (eeprom_sfp.c): A0h with both check codes,
 * and for an optical module A2h with thresholds, its check code and the
 * live monitors, flags and status of sim_eeprom_update_dom_sfp().  The
 * two functions above call these for m->form == SIM_FORM_SFP.
 */
void sim_eeprom_build_sfp(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN]);
void sim_eeprom_update_dom_sfp(const struct sim_module *m, uint8_t out[APENET_EE_DATA_LEN]);

#endif /* APENET_SIM_EEPROM_H */
