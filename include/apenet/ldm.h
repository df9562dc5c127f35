/*
 * The LDM (LiFaMa Diagnostic Message) codec, SPEC §3: a 32-bit word of
 * 2-bit status fields (00 normal, 01 sick, 10 broken; 11 is not defined and
 * makes the word invalid), a valid bit, and our documented extension in a
 * spare bit (26: the DNP declared the host expired).  No I/O.
 */
#ifndef APENET_LDM_H
#define APENET_LDM_H

#include <stdint.h>

enum apenet_ldm_field {
	APENET_LDM_F_SERVICE, APENET_LDM_F_MEMORY, APENET_LDM_F_PERIPHERAL, APENET_LDM_F_CORE,
	APENET_LDM_F_CURRENT, APENET_LDM_F_VOLTAGE, APENET_LDM_F_TEMPERATURE,
	APENET_LDM_F_ZMINUS, APENET_LDM_F_ZPLUS, APENET_LDM_F_YMINUS, APENET_LDM_F_YPLUS,
	APENET_LDM_F_XMINUS, APENET_LDM_F_XPLUS,
	APENET_LDM_NFIELDS
};

struct apenet_ldm {
	uint32_t word;
	int valid;                         /* bit 31 */
	uint8_t field[APENET_LDM_NFIELDS]; /* enum apenet_ldm_status */
	unsigned ninvalid;                 /* fields reading 11 */
	int host_expired;                  /* bit 26 (extension) */
	uint32_t spare;                    /* bits 30..27, zero in every word we know */
	unsigned worst;                    /* worst status over the fields (INVALID counts worst) */
};

/* 0 for a valid, well-formed word; -1 when the valid bit is clear or a
 * field reads 11 (the struct is filled either way: a decoder reports, it
 * does not guess). */
int apenet_ldm_decode(uint32_t word, struct apenet_ldm *out);
/* "service network", "memory", ..., "X+ link" */
const char *apenet_ldm_field_name(unsigned f);
/* short key for JSON: "service", "memory", ..., "x_plus" */
const char *apenet_ldm_field_key(unsigned f);
/* Bit position of a field in the word. */
unsigned apenet_ldm_field_lsb(unsigned f);
/* "normal", "sick", "broken", "invalid" */
const char *apenet_ldm_status_name(unsigned v);
/* The LDM field that reports a link in direction dir (enum apenet_dir), or
 * -1 when the direction has none (external channels). */
int apenet_ldm_field_of_dir(unsigned dir, int second);

#endif
