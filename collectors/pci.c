/* Enumerate APEnet cards with libpci: sysfs on a real machine, the dump
 * access method on an emulated node. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pci/pci.h>

#include "apenet/dev.h"
#include "pci_guard.h"

static int all_ones(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != 0xff)
			return 0;
	return 1;
}

/* "##: " and the like: n hex digits then ": " (libpci's dump_validate). */
static int hex_then(const char *l, unsigned n, const char *tail)
{
	for (unsigned i = 0; i < n; i++)
		if (!isxdigit((unsigned char)l[i]))
			return 0;
	return !strncmp(l + n, tail, strlen(tail));
}

int apenet_pci_dump_check(const char *path, char *msg, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0; /* libpci says why it cannot read it */
	char line[1024];
	unsigned no = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		no++;
		/* an offset line as libpci's dump reader takes it: 2 to 8 hex
		 * digits, ": ", bytes.  It reads the offset into an int and
		 * checks only that it is below 4096, so 0x80000000 and up
		 * become negative and it writes before its buffer (found by
		 * tests/fuzz/fuzz_lspci.c in Debian 12's libpci 3.9) */
		for (unsigned d = 2; d <= 8; d++) {
			if (!hex_then(line, d, ": "))
				continue;
			unsigned long long off = strtoull(line, NULL, 16);
			/* libpci refuses 4096..0x7fffffff itself (a fatal error,
			 * which the guard turns into ours) */
			if (off >= 0x80000000ull) {
				snprintf(msg, n, "%s:%u: config-space offset 0x%llx is past the 4096 bytes a function has", path,
					 no, off);
				rc = -1;
			}
			break;
		}
	}
	fclose(f);
	return rc;
}

struct pci_access *apenet_pci_access(const char *dump)
{
	struct pci_access *pa = pci_alloc();
	if (!pa)
		return NULL;
	apenet_pci_callbacks(pa);
	if (dump && dump[0]) {
		pa->method = PCI_ACCESS_DUMP;
		pci_set_param(pa, "dump.name", (char *)dump);
	}
	return pa;
}

void apenet_pci_bdf(const struct pci_dev *d, char *buf, size_t n)
{
	snprintf(buf, n, "%04x:%02x:%02x.%d", d->domain & 0xffff, d->bus, d->dev, d->func);
}

int apenet_pci_read_config(struct pci_dev *d, uint8_t cfg[4096])
{
	static const int lens[] = { 4096, 256, 64 };
	for (unsigned i = 0; i < 3; i++)
		if (pci_read_block(d, 0, cfg, lens[i]))
			return lens[i];
	return 0;
}

void apenet_pci_card_from_config(struct apenet_card *c, const uint8_t *cfg, int len)
{
	c->vendor = (uint16_t)(cfg[0] | cfg[1] << 8);
	c->device = (uint16_t)(cfg[2] | cfg[3] << 8);
	c->gone = all_ones(cfg, 4);
	c->prof = c->gone ? NULL : apenet_profile_by_device(c->device);
	c->pcie_ok = 0;
	c->pcie_err[0] = 0;
	memset(&c->pcie, 0, sizeof(c->pcie));
	if (!c->gone)
		c->pcie_ok = apenet_pcie_parse(cfg, (size_t)len, &c->pcie, c->pcie_err, sizeof(c->pcie_err)) == 0;
}

int apenet_pci_scan(const struct apenet_site *s, struct apenet_card *cards, int max, int *n,
		    struct apenet_err *e)
{
	char why[sizeof(((struct apenet_err *)0)->msg)];
	if (s->dump[0] && apenet_pci_dump_check(s->dump, why, sizeof(why))) {
		*n = 0;
		return apenet_err_set(e, APENET_EINVAL, "%s", why);
	}
	struct pci_access *pa = apenet_pci_access(s->dump);
	if (!pa)
		return apenet_err_set(e, APENET_EIO, "libpci: cannot allocate");
	struct apenet_pci_guard g;
	apenet_pci_guard_push(&g);
	if (setjmp(g.env)) {
		apenet_pci_guard_pop(&g);
		apenet_pci_cleanup(pa);
		*n = 0;
		if (s->dump[0] && !strstr(g.msg, s->dump))
			return apenet_err_set(e, APENET_EIO, "libpci: %s (reading %s)", g.msg, s->dump);
		return apenet_err_set(e, APENET_EIO, "libpci: %s", g.msg);
	}
	pci_init(pa);
	pci_scan_bus(pa);

	*n = 0;
	for (struct pci_dev *pd = pa->devices; pd; pd = pd->next) {
		uint8_t cfg[4096];
		int len = apenet_pci_read_config(pd, cfg);
		if (!len)
			continue;
		struct apenet_card c;
		memset(&c, 0, sizeof(c));
		apenet_pci_card_from_config(&c, cfg, len);
		if (!c.gone && (c.vendor != APENET_PCI_VENDOR || !c.prof))
			continue; /* not ours, or another Altera device */
		if (*n >= max)
			break;
		apenet_pci_bdf(pd, c.bdf, sizeof(c.bdf));
		cards[(*n)++] = c;
	}
	apenet_pci_guard_pop(&g);
	apenet_pci_cleanup(pa);
	return 0;
}
