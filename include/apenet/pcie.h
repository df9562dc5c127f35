/*
 * PCI Express view of a card's configuration space: the codec that turns
 * the raw bytes (read through libpci, from sysfs or from an emulator's dump
 * file) into link speed/width, device status and AER registers.  No I/O:
 * the caller reads the bytes, this only decodes and validates them.
 */
#ifndef APENET_PCIE_H
#define APENET_PCIE_H

#include <stddef.h>
#include <stdint.h>

/* Highest PCIe generation the codec names (32GT/s). */
#define APENET_PCIE_MAX_GEN 5

struct apenet_pcie_info {
	int has_pcie;                 /* PCI Express capability found */
	uint8_t cap_gen, cap_width;   /* Link Capabilities: max speed as generation 1..5, max width */
	uint8_t sta_gen, sta_width;   /* Link Status: current speed / negotiated width */
	int degraded;                 /* trained below capability (speed or width) */
	uint16_t devsta;              /* Device Status register */
	int has_aer;                  /* AER extended capability found */
	uint32_t aer_uncor_status, aer_uncor_mask, aer_uncor_sev, aer_cor_status, aer_cor_mask;
};

/*
 * Decodes cfg[0..len) (len 64..4096; bytes past 4096 are ignored).
 * Returns 0 with *out filled, or -1 with a message in err naming the
 * problem and its offset (capability list loops, pointers out of range,
 * truncated space, all ones); on -1, *out keeps what was decoded before the
 * problem (e.g. the link fields when only the AER list is broken).  A device without a capability list or without
 * a PCIe capability is not an error: has_pcie = 0.  Without extended space
 * (len <= 256) has_aer = 0.  err may be NULL or errlen 0.
 */
int apenet_pcie_parse(const uint8_t *cfg, size_t len, struct apenet_pcie_info *out,
		      char *err, size_t errlen);

/* 1 -> "2.5GT/s", 2 -> "5GT/s", 3 -> "8GT/s", 4 -> "16GT/s", 5 -> "32GT/s",
 * anything else "unknown". */
const char *apenet_pcie_speed_str(unsigned gen);

#endif
