/* Enumerate APEnet cards with libpci: sysfs on a real machine, the dump
 * access method on an emulated node. */
#include <stdio.h>
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

int apenet_pci_scan(const struct apenet_site *s, struct apenet_card *cards, int max, int *n,
		    struct apenet_err *e)
{
	struct pci_access *pa = pci_alloc();
	if (!pa)
		return apenet_err_set(e, APENET_EIO, "libpci: cannot allocate");
	apenet_pci_callbacks(pa);
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
	if (s->dump[0]) {
		pa->method = PCI_ACCESS_DUMP;
		pci_set_param(pa, "dump.name", (char *)s->dump);
	}
	pci_init(pa);
	pci_scan_bus(pa);

	*n = 0;
	for (struct pci_dev *pd = pa->devices; pd; pd = pd->next) {
		uint8_t cfg[4096];
		int len = 4096;
		if (!pci_read_block(pd, 0, cfg, len)) {
			len = 256;
			if (!pci_read_block(pd, 0, cfg, len)) {
				len = 64;
				if (!pci_read_block(pd, 0, cfg, len))
					continue;
			}
		}
		uint16_t vendor = (uint16_t)(cfg[0] | cfg[1] << 8);
		uint16_t device = (uint16_t)(cfg[2] | cfg[3] << 8);
		int gone = all_ones(cfg, 4);
		if (!gone && vendor != APENET_PCI_VENDOR)
			continue;
		const struct apenet_profile *prof = gone ? NULL : apenet_profile_by_device(device);
		if (!gone && !prof)
			continue; /* another Altera device */
		if (*n >= max)
			break;
		struct apenet_card *c = &cards[(*n)++];
		memset(c, 0, sizeof(*c));
		snprintf(c->bdf, sizeof(c->bdf), "%04x:%02x:%02x.%d", pd->domain & 0xffff, pd->bus, pd->dev,
			 pd->func);
		c->vendor = vendor;
		c->device = device;
		c->prof = prof;
		c->gone = gone;
		if (!gone)
			c->pcie_ok = apenet_pcie_parse(cfg, (size_t)len, &c->pcie, c->pcie_err,
						       sizeof(c->pcie_err)) == 0;
	}
	apenet_pci_guard_pop(&g);
	apenet_pci_cleanup(pa);
	return 0;
}
