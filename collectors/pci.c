/* Enumerate APEnet cards with libpci: sysfs on a real machine, the dump
 * access method on an emulated node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <pci/pci.h>

#include "apenet/dev.h"
#include "apenet/log.h"

/*
 * libpci reports a fatal error (a dump it cannot parse, no access method,
 * no memory) through pa->error, which must not return: libpci's own default
 * exits the process.  A library a daemon lives in cannot do that, so the
 * callback keeps the message and longjmps back to the apenet_pci_scan call
 * that entered libpci; the scan then cleans up and returns an error.
 * Thread-local: each thread's scan has its own way back.
 */
struct pci_escape {
	jmp_buf env;
	char msg[256];
};
static _Thread_local struct pci_escape *pci_escape;

static void pci_fatal(char *msg, ...) PCI_PRINTF(1, 2) PCI_NONRET;
static void pci_warning(char *msg, ...) PCI_PRINTF(1, 2);

static void pci_fatal(char *msg, ...)
{
	struct pci_escape *x = pci_escape;
	va_list ap;
	va_start(ap, msg);
	vsnprintf(x->msg, sizeof(x->msg), msg, ap);
	va_end(ap);
	longjmp(x->env, 1);
}

/* Warnings (and debug output, when enabled) go to the log at info: they were
 * never shown before, and a daemon can raise its threshold to see them. */
static void pci_warning(char *msg, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, msg);
	vsnprintf(buf, sizeof(buf), msg, ap);
	va_end(ap);
	apenet_log(APENET_LOG_INFO, "libpci: %s", buf);
}

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
	pa->error = pci_fatal;
	pa->warning = pci_warning;
	pa->debug = pci_warning;
	struct pci_escape x;
	struct pci_escape *volatile outer = pci_escape; /* a scan from a libpci callback: unlikely, kept working */
	volatile int cleaning = 0;
	pci_escape = &x;
	if (setjmp(x.env)) {
		/* libpci failed: x.msg says why.  pci_cleanup frees what it had
		 * built; should cleanup itself fail we land here again and give up
		 * on the rest (a leak beats an exit). */
		if (!cleaning) {
			cleaning = 1;
			pci_cleanup(pa);
		}
		pci_escape = outer;
		*n = 0;
		if (s->dump[0] && !strstr(x.msg, s->dump))
			return apenet_err_set(e, APENET_EIO, "libpci: %s (reading %s)", x.msg, s->dump);
		return apenet_err_set(e, APENET_EIO, "libpci: %s", x.msg);
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
	cleaning = 1;
	pci_cleanup(pa);
	pci_escape = outer;
	return 0;
}
