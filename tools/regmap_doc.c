/* Prints docs/regmap.md from the register map header: the doc is generated,
 * and tests/unit/collectors/test_regmap.c fails when the committed copy drifts. */
#include <stdio.h>
#include <string.h>

#include "apenet/regs.h"

static void block(const char *title, enum apenet_block b, const char *base)
{
	unsigned n, nf;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	const struct apenet_fielddesc *f = apenet_fielddescs(&nf);
	printf("## %s\n\n%s\n\n| offset | register | bits | access | unit | description |\n"
	       "|---|---|---|---|---|---|\n", title, base);
	for (unsigned i = 0; i < n; i++) {
		printf("| 0x%03x | %s | %u | %s | %s | %s |\n", r[i].off, r[i].name, r[i].bits,
		       apenet_access_name(r[i].access), r[i].unit, r[i].desc);
	}
	int any = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < nf; j++) {
			if (strcmp(f[j].reg, r[i].name))
				continue;
			if (!any++)
				printf("\nFields:\n\n| register | field | bits | description |\n|---|---|---|---|\n");
			if (f[j].width == 1)
				printf("| %s | %s | %u | %s |\n", f[j].reg, f[j].name, f[j].lsb, f[j].desc);
			else
				printf("| %s | %s | %u:%u | %s |\n", f[j].reg, f[j].name, f[j].lsb + f[j].width - 1,
				       f[j].lsb, f[j].desc);
		}
	putchar('\n');
}

/* The remote window: the protocol in a few lines, its result codes and the
 * registers a partner may reach, both from the header and its policy. */
static void rmt_window(void)
{
	printf("\n## Remote-register window (RMT_*)\n\n"
	       "A tool reaches the partner card at the far end of link L through the link itself\n"
	       "(ID_CAPS.RMT; docs/design.md, \"The remote-register window\"). Write RMT_ADDR (the\n"
	       "partner's BAR0 offset, in its own map) and, for a write, RMT_WDATA; then RMT_CTRL with OP,\n"
	       "LINK and SEQ = RMT_STATUS.DONE_SEQ + 1 (mod 2^16). The firmware sends a LOFAMO packet to the\n"
	       "partner DNP, whose firmware checks the address, reads or writes its register and answers;\n"
	       "RMT_STATUS.DONE_SEQ then equals SEQ, RESULT says how it went and RMT_RDATA holds the value\n"
	       "read. A round trip takes a few microseconds; without an answer the firmware gives up after\n"
	       "%u us. One request at a time: tools hold the card's command lock around it.\n\n"
	       "| RESULT | name | meaning |\n|---|---|---|\n",
	       APENET_RMT_ANSWER_US);
	for (unsigned r = 0; strcmp(apenet_rmt_result_name(r), "invalid"); r++)
		printf("| %u | %s | %s |\n", r, apenet_rmt_result_name(r), apenet_rmt_result_desc(r));
	printf("\nWhat the answering DNP lets its partner on link L reach (apenet_rmt_allowed); the lane\n"
	       "registers only in the lane blocks of link L, the link the request came in on. PMA\n"
	       "settings written through the window are provisional: the answering firmware keeps the\n"
	       "lane's last setting the link was up with, at full width, for %u ms without a PRBS run,\n"
	       "and puts it back when the lane or the link has been down or degraded for %u ms (outside\n"
	       "PRBS runs) since the last write, so that a setting which cuts the link cannot strand it.\n\n"
	       "| block | register | partner may |\n|---|---|---|\n",
	       APENET_RMT_PMA_REVERT_MS, APENET_RMT_PMA_REVERT_MS);
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	static const struct {
		enum apenet_block b;
		const char *name;
	} blocks[] = { { APENET_BLK_GLOBAL, "global" }, { APENET_BLK_LINK, "link" }, { APENET_BLK_LANE, "lane" } };
	for (unsigned i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++) {
		unsigned n;
		const struct apenet_regdesc *r = apenet_regdescs(blocks[i].b, &n);
		for (unsigned j = 0; j < n; j++) {
			uint32_t off = blocks[i].b == APENET_BLK_GLOBAL ? r[j].off
				       : blocks[i].b == APENET_BLK_LINK ? apenet_link_off(0, r[j].off)
									: apenet_lane_off(0, 0, r[j].off);
			int rd = apenet_rmt_allowed(p, 0, off, 0), wr = apenet_rmt_allowed(p, 0, off, 1);
			if (rd || wr)
				printf("| %s | %s | %s |\n", blocks[i].name, r[j].name, wr ? "read, write" : "read");
		}
	}
	printf("\nEverything else is refused (DENIED), and so is a lane register of another link.\n");
}

int main(void)
{
	unsigned nf;
	const struct apenet_fielddesc *f = apenet_fielddescs(&nf);
	printf("# APEnet BAR0 register map\n\n"
	       "Generated from include/apenet/regs.h by `build/bin/apenet-regmap-doc`; do not edit.\n"
	       "`make docs/regmap.md` rewrites it, and `make test` fails when it drifts from the header.\n\n"
	       "BAR0 is 0x%x bytes of little-endian 32-bit registers; 64-bit registers are 8-byte aligned\n"
	       "and read with one 64-bit access. The firmware publishes under GEN (a seqlock: odd while it\n"
	       "writes). Access: RO firmware-owned, RW host-written settings, CMD a doorbell the firmware\n"
	       "acts on at its next tick. Nothing is write-1-to-clear: clearing goes through the command\n"
	       "region. The command region (CMD_*) takes one host writer at a time: every tool holds the\n"
	       "card's lock file from reading CMD_DONE_SEQ to reading CMD_RESULT (docs/design.md, \"The\n"
	       "command lock\").\n\n", APENET_BAR_SIZE);
	block("Global registers", APENET_BLK_GLOBAL, "Offsets from BAR0.");
	char base[512];
	snprintf(base, sizeof(base), "Per link L at 0x%x + L * 0x%x (up to %d links).", APENET_LINK_BASE,
		 APENET_LINK_STRIDE, APENET_MAX_LINKS);
	block("Link registers", APENET_BLK_LINK, base);
	snprintf(base, sizeof(base), "Per lane N of link L at link block + 0x%x + N * 0x%x (up to %d lanes).",
		 APENET_LANE_BASE, APENET_LANE_STRIDE, APENET_MAX_LANES);
	block("Lane registers", APENET_BLK_LANE, base);
	snprintf(base, sizeof(base),
		 "Per module port P at 0x%x + P * 0x%x. Bytes 0x000-0x%03x of the window mirror the module's\n"
		 "EEPROM as `ethtool -m DEV raw on` lays it out, little-endian within each 32-bit register;\n"
		 "EE_STATUS.LAYOUT says which layout: 1, a QSFP+ (SFF-8636): lower page 00h, then upper pages\n"
		 "00h, 01h, 02h, 03h; 2, an SFP+ (SFF-8472): A0h in 0x000-0x0ff, A2h in 0x100-0x1ff, the\n"
		 "rest zero. Which ports have a cage, and of which kind, is in the variants table below.",
		 APENET_EE_BASE, APENET_EE_STRIDE, APENET_EE_DATA_LEN - 1);
	block("Module EEPROM window", APENET_BLK_EE, base);
	printf("## LDM word (LDM_OWN, LDM_HOST, LINK_LDM_RX)\n\nEvery 2-bit field: 0 normal, 1 sick, 2 broken, 3 invalid.\n\n"
	       "| field | bits | description |\n|---|---|---|\n");
	for (unsigned j = 0; j < nf; j++)
		if (!strcmp(f[j].reg, "LDM")) {
			if (f[j].width == 1)
				printf("| %s | %u | %s |\n", f[j].name, f[j].lsb, f[j].desc);
			else
				printf("| %s | %u:%u | %s |\n", f[j].name, f[j].lsb + f[j].width - 1, f[j].lsb, f[j].desc);
		}
	rmt_window();
	printf("\n## Variants\n\n| variant | PCI device | FPGA | PCIe | links (lanes x Mbps, module cage) | PMA maxima VOD/pre/post1/post2/EQ/DC |\n"
	       "|---|---|---|---|---|---|\n");
	for (int v = 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);
		printf("| %s | %04x:%04x | %s | gen%u x%u | ", p->name, APENET_PCI_VENDOR, p->pci_device, p->fpga,
		       p->pcie_gen, p->pcie_width);
		for (unsigned l = 0; l < p->nlinks; l++)
			printf("%s%s (%ux%u%s)", l ? ", " : "", p->links[l].name, p->links[l].lanes, p->links[l].lane_mbps,
			       p->links[l].has_module == APENET_CAGE_QSFP  ? ", QSFP+"
			       : p->links[l].has_module == APENET_CAGE_SFP ? ", SFP+"
									   : "");
		printf(" | %u/%u/%u/%u/%u/%u |\n", p->pma.vod, p->pma.pre, p->pma.post1, p->pma.post2, p->pma.rxeq,
		       p->pma.dcgain);
	}
	return 0;
}
