/*
 * libpci kept open on one card for a sampler.  On a real machine libpci's
 * sysfs method reads config space afresh on every call.  The dump method
 * (an emulated node's pci.lspci, or a saved `lspci -xxx` file) reads its file
 * once at init: the handle re-opens it when the file changed (size or
 * mtime), which is what a dump is, a file, not a bus.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <pci/pci.h>

#include "apenet/sampler.h"
#include "pci_guard.h"

struct apenet_pci_handle {
	char dump[PATH_MAX];
	char bdf[16];
	struct pci_access *pa;
	struct pci_dev *dev;
	struct timespec mtime;
	off_t size;
};

/* libpci's fatal errors come back through a guard (pci_guard.h), as in
 * apenet_pci_scan. */
static void drop(struct apenet_pci_handle *h)
{
	struct pci_access *pa = h->pa;
	h->pa = NULL;
	h->dev = NULL;
	apenet_pci_cleanup(pa);
}

static int attach(struct apenet_pci_handle *h, struct apenet_err *e)
{
	struct apenet_pci_guard g;
	if (h->dump[0]) {
		struct stat st;
		if (stat(h->dump, &st))
			return apenet_err_set(e, APENET_ENODEV, "%s: cannot read the config-space dump", h->dump);
		h->mtime = st.st_mtim;
		h->size = st.st_size;
		char why[sizeof(((struct apenet_err *)0)->msg)];
		if (apenet_pci_dump_check(h->dump, why, sizeof(why)))
			return apenet_err_set(e, APENET_EINVAL, "%s", why);
	}
	struct pci_access *volatile pa = apenet_pci_access(h->dump);
	if (!pa)
		return apenet_err_set(e, APENET_EIO, "libpci: cannot allocate");
	apenet_pci_guard_push(&g);
	if (setjmp(g.env)) {
		apenet_pci_guard_pop(&g);
		apenet_pci_cleanup(pa);
		return apenet_err_set(e, APENET_EIO, "libpci: %s", g.msg);
	}
	pci_init(pa);
	pci_scan_bus(pa);
	for (struct pci_dev *d = pa->devices; d; d = d->next) {
		char bdf[32];
		apenet_pci_bdf(d, bdf, sizeof(bdf));
		if (!strcmp(bdf, h->bdf)) {
			apenet_pci_guard_pop(&g);
			h->pa = pa;
			h->dev = d;
			return 0;
		}
	}
	apenet_pci_guard_pop(&g);
	apenet_pci_cleanup(pa);
	return apenet_err_set(e, APENET_ENODEV, "%s: no PCI function at that address any more", h->bdf);
}

int apenet_pci_handle_open(const struct apenet_site *site, const char *bdf, struct apenet_pci_handle **out,
			   struct apenet_err *e)
{
	struct apenet_pci_handle *h = calloc(1, sizeof(*h));
	if (!h)
		return apenet_err_set(e, APENET_EIO, "out of memory");
	snprintf(h->dump, sizeof(h->dump), "%s", site->dump);
	snprintf(h->bdf, sizeof(h->bdf), "%s", bdf);
	if (attach(h, e)) {
		free(h);
		return -1;
	}
	*out = h;
	return 0;
}

static int dump_changed(const struct apenet_pci_handle *h)
{
	struct stat st;
	if (!h->dump[0] || stat(h->dump, &st))
		return 0;
	return st.st_size != h->size || st.st_mtim.tv_sec != h->mtime.tv_sec || st.st_mtim.tv_nsec != h->mtime.tv_nsec;
}

int apenet_pci_handle_read(struct apenet_pci_handle *h, struct apenet_card *c, struct apenet_err *e)
{
	if (dump_changed(h)) {
		drop(h);
		if (attach(h, e))
			return -1;
	}
	if (!h->dev && attach(h, e))
		return -1;
	uint8_t cfg[4096];
	struct apenet_pci_guard g;
	apenet_pci_guard_push(&g);
	if (setjmp(g.env)) {
		apenet_pci_guard_pop(&g);
		drop(h); /* attach again next time */
		return apenet_err_set(e, APENET_EIO, "libpci: %s", g.msg);
	}
	int len = apenet_pci_read_config(h->dev, cfg);
	apenet_pci_guard_pop(&g);
	if (!len)
		return apenet_err_set(e, APENET_EIO, "%s: config space unreadable", h->bdf);
	/* the sampler keeps the card's identity from the scan; only its state is new */
	struct apenet_card now = *c;
	apenet_pci_card_from_config(&now, cfg, len);
	c->gone = now.gone;
	c->pcie_ok = now.pcie_ok;
	c->pcie = now.pcie;
	memcpy(c->pcie_err, now.pcie_err, sizeof(c->pcie_err));
	return 0;
}

void apenet_pci_handle_close(struct apenet_pci_handle *h)
{
	if (!h)
		return;
	drop(h);
	free(h);
}
