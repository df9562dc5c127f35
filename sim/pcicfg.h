/*
 * The emulator's PCI configuration space: builds the 4096 bytes a card would
 * show (type-0 header, PM, MSI, PCI Express and AER capabilities) and writes
 * them as an `lspci -xxxx` dump that libpci's "dump" access method reads, so
 * the tools see an emulated card exactly as they see a real one.
 */
#ifndef SIM_PCICFG_H
#define SIM_PCICFG_H

#include <stddef.h>
#include <stdint.h>

#define SIM_PCICFG_SIZE 4096

struct sim_pcicfg_params {
	uint16_t vendor, device, subsys_vendor, subsys_device;
	uint32_t class_code;   /* 24-bit: 0x120000 processing accelerator */
	uint8_t revision;
	uint64_t bar0_addr; uint32_t bar0_size;   /* 64-bit non-prefetchable memory BAR */
	uint8_t cap_gen, cap_width, sta_gen, sta_width;
	uint32_t aer_uncor_status, aer_cor_status;
	int gone;              /* card fell off the bus: every byte 0xff */
};

/*
 * Fills cfg with the card's config space.  bar0_addr is aligned down to
 * bar0_size when that is a power of two (a BAR decodes a naturally aligned
 * window).  Device Status error bits follow the AER status registers, as
 * the hardware sets both.
 */
void sim_pcicfg_build(const struct sim_pcicfg_params *p, uint8_t cfg[SIM_PCICFG_SIZE]);

/*
 * Writes cfg to path as `lspci -xxxx` prints it: "BDF title", 256 lines of
 * 16 bytes (offsets "%02x:", so 00..f0 then 100..ff0), an empty line.
 * Written to path.tmp and renamed, so a reader never sees half a file.
 * bdf is "bb:dd.f" or "dddd:bb:dd.f".  Returns 0, or -1 with err.
 */
int sim_pcicfg_write_dump(const char *path, const char *bdf, const char *title,
			  const uint8_t cfg[SIM_PCICFG_SIZE], char *err, size_t errlen);

#endif
