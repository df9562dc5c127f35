/*
 * Emulated PCI configuration space of an APEnet card, modelled on what the
 * Altera hard IP for PCI Express presents: MSI at 0x50, Power Management at
 * 0x78, PCI Express at 0x80, AER at 0x100.  Only the registers the tools (or
 * lspci -vv) look at carry values; the rest reads zero, as reserved space does.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/header.h>

#include "apenet/err.h"
#include "pcicfg.h"

#define CAP_MSI 0x50
#define CAP_PM 0x78
#define CAP_EXP 0x80
#define EXT_AER 0x100

/* Extended capability header: ID 15:0, version 19:16, next 31:20
 * (<pci/header.h> has no macros to build one). */
#define EXT_HDR(id, ver, next) ((uint32_t)(id) | (uint32_t)(ver) << 16 | (uint32_t)(next) << 20)

/* Version 2 of the PCIe capability: has the Link Capabilities 2 vector. */
#define EXP_CAP_VERSION 2
/* AER capability version 1 (PCIe 1.1/2.0), what Stratix IV/V hard IP reports. */
#define AER_VERSION 1
/* PM capability version 3 = PCI PM 1.2. */
#define PM_VERSION 3
/* Max_Payload_Size / Max_Read_Request_Size encodings: 128 << n bytes. */
#define MPS_256 1
#define MRRS_512 2
/* Legacy interrupt line the BIOS routed INTA to; the driver uses MSI. */
#define INTX_LINE 11
/* INTA#. */
#define INTX_PIN_A 1
/* 64-byte cache line, in dwords, as the OS programs it. */
#define CACHE_LINE_DWORDS 16

/* Uncorrectable errors that are fatal by default (PCIe base spec, AER). */
#define AER_SEV_DEFAULT (PCI_ERR_UNC_DLP | PCI_ERR_UNC_SDES | PCI_ERR_UNC_FCP | \
			 PCI_ERR_UNC_RX_OVER | PCI_ERR_UNC_MALF_TLP)

static void put8(uint8_t *cfg, unsigned off, uint8_t v)
{
	cfg[off] = v;
}

static void put16(uint8_t *cfg, unsigned off, uint16_t v)
{
	cfg[off] = (uint8_t)v;
	cfg[off + 1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *cfg, unsigned off, uint32_t v)
{
	put16(cfg, off, (uint16_t)v);
	put16(cfg, off + 2, (uint16_t)(v >> 16));
}

/* Places v in the bits of mask (v given right-aligned). */
static uint32_t field(uint32_t mask, uint32_t v)
{
	return (v << __builtin_ctz(mask)) & mask;
}

static void build_header(const struct sim_pcicfg_params *p, uint8_t *cfg)
{
	uint64_t bar = p->bar0_addr;

	put16(cfg, PCI_VENDOR_ID, p->vendor);
	put16(cfg, PCI_DEVICE_ID, p->device);
	/* Driver bound: memory decoding and DMA on, INTx off (MSI in use). */
	put16(cfg, PCI_COMMAND, PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER | PCI_COMMAND_SERR |
		   PCI_COMMAND_DISABLE_INTx);
	put16(cfg, PCI_STATUS, PCI_STATUS_CAP_LIST);
	put8(cfg, PCI_REVISION_ID, p->revision);
	put8(cfg, PCI_CLASS_PROG, (uint8_t)p->class_code);
	put16(cfg, PCI_CLASS_DEVICE, (uint16_t)(p->class_code >> 8));
	put8(cfg, PCI_CACHE_LINE_SIZE, CACHE_LINE_DWORDS);
	put8(cfg, PCI_HEADER_TYPE, PCI_HEADER_TYPE_NORMAL);

	/* A BAR decodes a naturally aligned window of its size. */
	if (p->bar0_size && !(p->bar0_size & (p->bar0_size - 1)))
		bar &= ~(uint64_t)(p->bar0_size - 1);
	put32(cfg, PCI_BASE_ADDRESS_0, ((uint32_t)bar & ~0xfu) | PCI_BASE_ADDRESS_SPACE_MEMORY |
		   PCI_BASE_ADDRESS_MEM_TYPE_64);
	put32(cfg, PCI_BASE_ADDRESS_1, (uint32_t)(bar >> 32));

	put16(cfg, PCI_SUBSYSTEM_VENDOR_ID, p->subsys_vendor);
	put16(cfg, PCI_SUBSYSTEM_ID, p->subsys_device);
	put8(cfg, PCI_CAPABILITY_LIST, CAP_MSI);
	put8(cfg, PCI_INTERRUPT_LINE, INTX_LINE);
	put8(cfg, PCI_INTERRUPT_PIN, INTX_PIN_A);
}

static void build_msi(uint8_t *cfg)
{
	put8(cfg, CAP_MSI + PCI_CAP_LIST_ID, PCI_CAP_ID_MSI);
	put8(cfg, CAP_MSI + PCI_CAP_LIST_NEXT, CAP_PM);
	/* 64-bit, one vector, enabled, at the x86 MSI window. */
	put16(cfg, CAP_MSI + PCI_MSI_FLAGS, PCI_MSI_FLAGS_64BIT | PCI_MSI_FLAGS_ENABLE);
	put32(cfg, CAP_MSI + PCI_MSI_ADDRESS_LO, 0xfee00000u);
	put32(cfg, CAP_MSI + PCI_MSI_ADDRESS_HI, 0);
	put16(cfg, CAP_MSI + PCI_MSI_DATA_64, 0x4021);
}

static void build_pm(uint8_t *cfg)
{
	put8(cfg, CAP_PM + PCI_CAP_LIST_ID, PCI_CAP_ID_PM);
	put8(cfg, CAP_PM + PCI_CAP_LIST_NEXT, CAP_EXP);
	/* D0 and D3hot only, no PME: the card does not wake the host. */
	put16(cfg, CAP_PM + PCI_CAP_FLAGS, field(PCI_PM_CAP_VER_MASK, PM_VERSION));
	put16(cfg, CAP_PM + PCI_PM_CTRL, PCI_PM_CTRL_NO_SOFT_RST); /* in D0 */
}

/* Device Status mirrors the AER status: the hardware sets both. */
static uint16_t devsta_from_aer(uint32_t uncor, uint32_t cor)
{
	uint16_t s = 0;

	if (cor)
		s |= PCI_EXP_DEVSTA_CED;
	if (uncor & AER_SEV_DEFAULT)
		s |= PCI_EXP_DEVSTA_FED;
	if (uncor & ~AER_SEV_DEFAULT)
		s |= PCI_EXP_DEVSTA_NFED;
	if (uncor & PCI_ERR_UNC_UNSUP)
		s |= PCI_EXP_DEVSTA_URD;
	return s;
}

static void build_exp(const struct sim_pcicfg_params *p, uint8_t *cfg)
{
	const unsigned c = CAP_EXP;
	uint16_t lnksta2 = 0;
	uint32_t speeds = 0;
	unsigned g;

	put8(cfg, c + PCI_CAP_LIST_ID, PCI_CAP_ID_EXP);
	put8(cfg, c + PCI_CAP_LIST_NEXT, 0);
	put16(cfg, c + PCI_EXP_FLAGS, (uint16_t)(field(PCI_EXP_FLAGS_VERS, EXP_CAP_VERSION) |
						 field(PCI_EXP_FLAGS_TYPE, PCI_EXP_TYPE_ENDPOINT)));
	put32(cfg, c + PCI_EXP_DEVCAP, field(PCI_EXP_DEVCAP_PAYLOAD, MPS_256) |
		   PCI_EXP_DEVCAP_EXT_TAG | PCI_EXP_DEVCAP_RBE);
	put16(cfg, c + PCI_EXP_DEVCTL, (uint16_t)(PCI_EXP_DEVCTL_CERE | PCI_EXP_DEVCTL_NFERE |
		   PCI_EXP_DEVCTL_FERE | PCI_EXP_DEVCTL_URRE | PCI_EXP_DEVCTL_RELAXED |
		   field(PCI_EXP_DEVCTL_PAYLOAD, MPS_256) | PCI_EXP_DEVCTL_EXT_TAG |
		   PCI_EXP_DEVCTL_NOSNOOP | field(PCI_EXP_DEVCTL_READRQ, MRRS_512)));
	put16(cfg, c + PCI_EXP_DEVSTA, devsta_from_aer(p->aer_uncor_status, p->aer_cor_status));

	/* Port number 0, L0s supported but not enabled. */
	put32(cfg, c + PCI_EXP_LNKCAP, field(PCI_EXP_LNKCAP_SPEED, p->cap_gen) |
		   field(PCI_EXP_LNKCAP_WIDTH, p->cap_width) | field(PCI_EXP_LNKCAP_ASPM, 1));
	put16(cfg, c + PCI_EXP_LNKCTL, PCI_EXP_LNKCTL_CLOCK);
	put16(cfg, c + PCI_EXP_LNKSTA, (uint16_t)(field(PCI_EXP_LNKSTA_SPEED, p->sta_gen) |
		   field(PCI_EXP_LNKSTA_WIDTH, p->sta_width) | PCI_EXP_LNKSTA_SL_CLK));

	/* Completion timeout range B (16-55 ms), and it can be disabled. */
	put32(cfg, c + PCI_EXP_DEVCAP2, 0x2 | PCI_EXP_DEVCAP2_TIMEOUT_DIS);
	/* Supported Link Speeds vector: bit n-1 (of the field at bit 1) for
	 * every generation n up to the maximum. */
	for (g = 1; g <= p->cap_gen && g <= 7; g++)
		speeds |= 1u << g;
	put32(cfg, c + PCI_EXP_LNKCAP2, speeds);
	/* Target Link Speed = the maximum. */
	put16(cfg, c + PCI_EXP_LNKCTL2, (uint16_t)(p->cap_gen & 0xf));
	/* 8GT/s and up equalize; a Gen3 link that trained reports all phases. */
	if (p->sta_gen >= 3)
		lnksta2 = PCI_EXP_LINKSTA2_EQU_COMP | PCI_EXP_LINKSTA2_EQU_PHASE1 |
			  PCI_EXP_LINKSTA2_EQU_PHASE2 | PCI_EXP_LINKSTA2_EQU_PHASE3;
	else if (p->sta_gen == 2)
		lnksta2 = 1; /* Current De-emphasis Level: -3.5 dB */
	put16(cfg, c + PCI_EXP_LNKSTA2, lnksta2);
}

static void build_aer(const struct sim_pcicfg_params *p, uint8_t *cfg)
{
	const unsigned a = EXT_AER;
	uint32_t errcap = PCI_ERR_CAP_ECRC_GENC | PCI_ERR_CAP_ECRC_CHKC;

	put32(cfg, a, EXT_HDR(PCI_EXT_CAP_ID_AER, AER_VERSION, 0));
	put32(cfg, a + PCI_ERR_UNCOR_STATUS, p->aer_uncor_status);
	put32(cfg, a + PCI_ERR_UNCOR_MASK, 0);
	put32(cfg, a + PCI_ERR_UNCOR_SEVER, AER_SEV_DEFAULT);
	put32(cfg, a + PCI_ERR_COR_STATUS, p->aer_cor_status);
	/* Advisory Non-Fatal is masked by default since PCIe 1.1. */
	put32(cfg, a + PCI_ERR_COR_MASK, PCI_ERR_COR_REP_ANFE);
	/* First Error Pointer: the lowest uncorrectable status bit set. */
	if (p->aer_uncor_status)
		errcap |= (uint32_t)__builtin_ctz(p->aer_uncor_status);
	put32(cfg, a + PCI_ERR_CAP, errcap);
}

void sim_pcicfg_build(const struct sim_pcicfg_params *p, uint8_t cfg[SIM_PCICFG_SIZE])
{
	if (p->gone) {
		/* A function that left the bus: every config read completes with
		 * all ones (master abort / unsupported request). */
		memset(cfg, 0xff, SIM_PCICFG_SIZE);
		return;
	}
	memset(cfg, 0, SIM_PCICFG_SIZE);
	build_header(p, cfg);
	build_msi(cfg);
	build_pm(cfg);
	build_exp(p, cfg);
	build_aer(p, cfg);
}

/* The device line forms libpci's dump reader accepts: "bb:dd.f" and
 * "dddd:bb:dd.f" (hex, function one digit). */
static int bdf_ok(const char *bdf)
{
	const char *fmt;
	size_t i;

	if (strlen(bdf) == 7)
		fmt = "##:##.f";
	else if (strlen(bdf) == 12)
		fmt = "####:##:##.f";
	else
		return 0;
	for (i = 0; fmt[i]; i++) {
		if (fmt[i] == '#' && !isxdigit((unsigned char)bdf[i]))
			return 0;
		if (fmt[i] == 'f' && (bdf[i] < '0' || bdf[i] > '7'))
			return 0;
		if (fmt[i] != '#' && fmt[i] != 'f' && fmt[i] != bdf[i])
			return 0;
	}
	return 1;
}

/* libpci reads dump lines into a 256-byte buffer and rejects longer ones. */
#define DUMP_LINE_MAX 200

static int write_lines(FILE *f, const char *bdf, const char *title,
		       const uint8_t cfg[SIM_PCICFG_SIZE])
{
	unsigned off, i;

	fprintf(f, "%s %s\n", bdf, title);
	for (off = 0; off < SIM_PCICFG_SIZE; off += 16) {
		/* "%02x:" as lspci prints: 00..f0, then 100..ff0. */
		fprintf(f, "%02x:", off);
		for (i = 0; i < 16; i++)
			fprintf(f, " %02x", cfg[off + i]);
		fputc('\n', f);
	}
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int sim_pcicfg_write_dump(const char *path, const char *bdf, const char *title,
			  const uint8_t cfg[SIM_PCICFG_SIZE], char *err, size_t errlen)
{
	char *tmp;
	FILE *f;
	int rc, saved;

	if (!path || !*path || !bdf || !title || !cfg)
		return apenet_errbuf(err, errlen, "write dump: missing path, BDF, title or data");
	if (!bdf_ok(bdf))
		return apenet_errbuf(err, errlen, "write dump %s: bad BDF \"%s\" (want bb:dd.f or dddd:bb:dd.f)",
				   path, bdf);
	if (strpbrk(title, "\r\n"))
		return apenet_errbuf(err, errlen, "write dump %s: title has a line break", path);
	if (strlen(bdf) + 1 + strlen(title) > DUMP_LINE_MAX)
		return apenet_errbuf(err, errlen, "write dump %s: title longer than %d characters",
				   path, DUMP_LINE_MAX - (int)strlen(bdf) - 1);

	tmp = malloc(strlen(path) + sizeof(".tmp"));
	if (!tmp)
		return apenet_errbuf(err, errlen, "write dump %s: out of memory", path);
	strcpy(tmp, path);
	strcat(tmp, ".tmp");

	f = fopen(tmp, "w");
	if (!f) {
		saved = errno;
		apenet_errbuf(err, errlen, "write dump %s: %s", tmp, strerror(saved));
		free(tmp);
		return -1;
	}
	rc = write_lines(f, bdf, title, cfg);
	saved = errno;
	if (fclose(f) != 0 && rc == 0) {
		rc = -1;
		saved = errno;
	}
	if (rc < 0) {
		apenet_errbuf(err, errlen, "write dump %s: %s", tmp, strerror(saved));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	if (rename(tmp, path) != 0) {
		saved = errno;
		apenet_errbuf(err, errlen, "write dump: rename %s to %s: %s", tmp, path, strerror(saved));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}
