/*
 * PCIe capability codec: walks the standard capability list for the PCI
 * Express capability and the extended list for AER.  Config space comes from
 * hardware that may be broken (that is why we look at it), so every pointer
 * is range-checked and both lists are guarded against loops: a bad list is
 * reported with the offset where it goes wrong, never followed blindly.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <pci/header.h>

#include "apenet/err.h"
#include "apenet/pcie.h"

#define PCIE_STD_END 0x100u  /* end of the conventional 256-byte space */
#define PCIE_EXT_END 0x1000u /* end of the PCIe extended space */
#define PCIE_HDR_END 0x40u   /* end of the predefined header; capabilities live above it */

/*
 * <pci/header.h> has no macros for the extended capability header dword:
 * bits 15:0 capability ID, 19:16 version, 31:20 next offset (dword aligned).
 */
#define PCIE_EXT_HDR_ID(h) ((h) & 0xffffu)
#define PCIE_EXT_HDR_NEXT(h) (((h) >> 20) & 0xffcu)

/* Size of the PCIe capability structure: version 1 ends with Root Status,
 * version 2 adds the "2" registers and ends with Slot Status 2. */
#define PCIE_CAP_V1_SIZE (PCI_EXP_RTSTA + 4)
#define PCIE_CAP_V2_SIZE (PCI_EXP_SLTSTA2 + 2)
/* AER of an endpoint ends with the 16-byte header log. */
#define PCIE_AER_SIZE (PCI_ERR_HEADER_LOG + 16)

/* Config space is little-endian whatever the host. */
static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int parse_exp(const uint8_t *cfg, size_t len, unsigned pos, struct apenet_pcie_info *out,
		     char *err, size_t errlen)
{
	const uint8_t *c = cfg + pos;
	unsigned ver, need;
	uint32_t lnkcap;
	uint16_t lnksta;

	/* The version field sits in the first dword, checked by the caller. */
	ver = rd16(c + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_VERS;
	need = ver >= 2 ? PCIE_CAP_V2_SIZE : PCIE_CAP_V1_SIZE;
	if (pos + need > PCIE_STD_END)
		return apenet_errbuf(err, errlen,
				 "PCIe capability at 0x%02x (version %u, 0x%x bytes) runs past 0x%x",
				 pos, ver, need, PCIE_STD_END);
	if (pos + need > len)
		return apenet_errbuf(err, errlen,
				 "config space truncated at 0x%zx: PCIe capability at 0x%02x needs 0x%x bytes",
				 len, pos, need);

	lnkcap = rd32(c + PCI_EXP_LNKCAP);
	lnksta = rd16(c + PCI_EXP_LNKSTA);
	out->has_pcie = 1;
	/* The speed fields index the Supported Link Speeds vector, whose bit n-1
	 * is generation n, so the raw value is the generation. */
	out->cap_gen = (uint8_t)(lnkcap & PCI_EXP_LNKCAP_SPEED);
	out->cap_width = (uint8_t)((lnkcap & PCI_EXP_LNKCAP_WIDTH) >> 4);
	out->sta_gen = (uint8_t)(lnksta & PCI_EXP_LNKSTA_SPEED);
	out->sta_width = (uint8_t)((lnksta & PCI_EXP_LNKSTA_WIDTH) >> 4);
	out->degraded = out->sta_gen < out->cap_gen || out->sta_width < out->cap_width;
	out->devsta = rd16(c + PCI_EXP_DEVSTA);
	return 0;
}

static int walk_std(const uint8_t *cfg, size_t len, struct apenet_pcie_info *out, char *err,
		    size_t errlen)
{
	uint8_t seen[PCIE_STD_END / 4] = { 0 };
	unsigned pos, prev = PCI_CAPABILITY_LIST;
	uint8_t htype;

	if (!(rd16(cfg + PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return 0; /* no capabilities: a conventional PCI function */

	htype = cfg[PCI_HEADER_TYPE] & 0x7f; /* bit 7: multi-function */
	if (htype != PCI_HEADER_TYPE_NORMAL && htype != PCI_HEADER_TYPE_BRIDGE)
		return apenet_errbuf(err, errlen, "unsupported header type 0x%02x at 0x%02x", htype,
				 PCI_HEADER_TYPE);

	/* The two low bits of every pointer are reserved: mask, as the OS does. */
	pos = cfg[PCI_CAPABILITY_LIST] & ~3u;
	while (pos) {
		if (pos < PCIE_HDR_END)
			return apenet_errbuf(err, errlen,
					 "capability pointer 0x%02x at 0x%02x points into the header (below 0x%02x)",
					 pos, prev, PCIE_HDR_END);
		if (pos + PCI_CAP_SIZEOF > len)
			return apenet_errbuf(err, errlen,
					 "config space truncated at 0x%zx: capability at 0x%02x needs 0x%x bytes",
					 len, pos, PCI_CAP_SIZEOF);
		if (seen[pos / 4])
			return apenet_errbuf(err, errlen,
					 "capability list loops at 0x%02x: next pointer 0x%02x revisits an earlier entry",
					 prev, pos);
		seen[pos / 4] = 1;

		if (cfg[pos + PCI_CAP_LIST_ID] == PCI_CAP_ID_EXP && !out->has_pcie &&
		    parse_exp(cfg, len, pos, out, err, errlen) < 0)
			return -1;
		prev = pos;
		pos = cfg[pos + PCI_CAP_LIST_NEXT] & ~3u;
	}
	return 0;
}

static int parse_aer(const uint8_t *cfg, size_t len, unsigned pos, struct apenet_pcie_info *out,
		     char *err, size_t errlen)
{
	const uint8_t *c = cfg + pos;

	if (pos + PCIE_AER_SIZE > PCIE_EXT_END)
		return apenet_errbuf(err, errlen, "AER capability at 0x%03x (0x%x bytes) runs past 0x%x",
				 pos, (unsigned)PCIE_AER_SIZE, PCIE_EXT_END);
	if (pos + PCIE_AER_SIZE > len)
		return apenet_errbuf(err, errlen,
				 "config space truncated at 0x%zx: AER capability at 0x%03x needs 0x%x bytes",
				 len, pos, (unsigned)PCIE_AER_SIZE);
	out->has_aer = 1;
	out->aer_uncor_status = rd32(c + PCI_ERR_UNCOR_STATUS);
	out->aer_uncor_mask = rd32(c + PCI_ERR_UNCOR_MASK);
	out->aer_uncor_sev = rd32(c + PCI_ERR_UNCOR_SEVER);
	out->aer_cor_status = rd32(c + PCI_ERR_COR_STATUS);
	out->aer_cor_mask = rd32(c + PCI_ERR_COR_MASK);
	return 0;
}

static int walk_ext(const uint8_t *cfg, size_t len, struct apenet_pcie_info *out, char *err,
		    size_t errlen)
{
	uint8_t seen[(PCIE_EXT_END - PCIE_STD_END) / 4] = { 0 };
	unsigned pos = PCIE_STD_END, prev = 0;
	uint32_t hdr;

	while (pos) {
		if (pos < PCIE_STD_END)
			return apenet_errbuf(err, errlen,
					 "extended capability pointer 0x%03x at 0x%03x is below 0x%x",
					 pos, prev, PCIE_STD_END);
		if (pos + 4 > len)
			return apenet_errbuf(err, errlen,
					 "config space truncated at 0x%zx: extended capability at 0x%03x needs 4 bytes",
					 len, pos);
		if (seen[(pos - PCIE_STD_END) / 4])
			return apenet_errbuf(err, errlen,
					 "extended capability list loops at 0x%03x: next pointer 0x%03x revisits an earlier entry",
					 prev, pos);
		seen[(pos - PCIE_STD_END) / 4] = 1;

		hdr = rd32(cfg + pos);
		/* An empty list reads 0 at 0x100; a function without extended
		 * space (or behind a host that cannot reach it) reads all ones. */
		if (pos == PCIE_STD_END && (hdr == 0 || hdr == 0xffffffffu))
			return 0;
		if (PCIE_EXT_HDR_ID(hdr) == PCI_EXT_CAP_ID_AER && !out->has_aer &&
		    parse_aer(cfg, len, pos, out, err, errlen) < 0)
			return -1;
		prev = pos;
		pos = PCIE_EXT_HDR_NEXT(hdr);
	}
	return 0;
}

int apenet_pcie_parse(const uint8_t *cfg, size_t len, struct apenet_pcie_info *out,
		      char *err, size_t errlen)
{
	size_t i;

	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return apenet_errbuf(err, errlen, "no output structure");
	memset(out, 0, sizeof(*out));
	if (!cfg)
		return apenet_errbuf(err, errlen, "no config space");
	if (len > PCIE_EXT_END)
		len = PCIE_EXT_END;
	if (len < PCIE_HDR_END)
		return apenet_errbuf(err, errlen,
				 "config space truncated at 0x%zx: the header needs 0x%x bytes", len,
				 PCIE_HDR_END);

	/* A function that left the bus answers every read with all ones; the
	 * vendor ID 0xffff is the standard test, the rest says how far it went. */
	if (rd16(cfg + PCI_VENDOR_ID) == 0xffff) {
		for (i = 0; i < len && cfg[i] == 0xff; i++)
			;
		if (i == len)
			return apenet_errbuf(err, errlen, "all ones: device not responding");
		return apenet_errbuf(err, errlen,
				 "vendor ID 0xffff at 0x%02x: device not responding (first byte not 0xff at 0x%zx)",
				 PCI_VENDOR_ID, i);
	}

	if (walk_std(cfg, len, out, err, errlen) < 0)
		return -1;
	/* Extended space exists only beyond 256 bytes and only on PCIe functions. */
	if (len > PCIE_STD_END && out->has_pcie && walk_ext(cfg, len, out, err, errlen) < 0)
		return -1;
	return 0;
}

const char *apenet_pcie_speed_str(unsigned gen)
{
	static const char *const speeds[APENET_PCIE_MAX_GEN + 1] = {
		[1] = "2.5GT/s", [2] = "5GT/s", [3] = "8GT/s", [4] = "16GT/s", [5] = "32GT/s",
	};

	if (gen < 1 || gen > APENET_PCIE_MAX_GEN)
		return "unknown";
	return speeds[gen];
}
