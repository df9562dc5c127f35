/*
 * Calling libpci from a library (private to collectors/).
 *
 * libpci reports a fatal error (a dump it cannot parse, no access method,
 * no memory) through pa->error, which must not return; its own default
 * exits the process.  A library a daemon lives in cannot allow that, so
 * every call into libpci runs under a guard:
 *
 *	struct apenet_pci_guard g;
 *	apenet_pci_guard_push(&g);
 *	if (setjmp(g.env)) {
 *		apenet_pci_guard_pop(&g);
 *		... libpci failed, g.msg says why: clean up, return an error ...
 *	}
 *	... pci_init, pci_scan_bus, pci_read_block ...
 *	apenet_pci_guard_pop(&g);
 *
 * The error callback that apenet_pci_callbacks installs copies the message
 * into the innermost guard and longjmps to it.  Guards are per thread.
 * setjmp must be called in the guarded function itself (C11 7.13.1.1), which
 * is why this is a pattern and not a function.
 */
#ifndef APENET_PCI_GUARD_H
#define APENET_PCI_GUARD_H

#include <setjmp.h>

#include <pci/pci.h>

struct apenet_pci_guard {
	jmp_buf env;
	char msg[256];
	struct apenet_pci_guard *outer;
};

void apenet_pci_guard_push(struct apenet_pci_guard *g);
void apenet_pci_guard_pop(struct apenet_pci_guard *g);
/* pa->error longjmps to the innermost guard; warnings and debug output go
 * to the log (apenet/log.h) at info. */
void apenet_pci_callbacks(struct pci_access *pa);
/* pci_cleanup under a guard of its own: should it fail too, what is left
 * leaks (a leak beats an exit).  pa may be NULL. */
void apenet_pci_cleanup(struct pci_access *pa);

/* Shared by the scan and the sampler's handle (collectors/pci.c). */
#include <stddef.h>
#include <stdint.h>

struct apenet_card;
/* pci_alloc with our callbacks and, with dump non-empty, the dump method
 * on that file; NULL when out of memory. */
struct pci_access *apenet_pci_access(const char *dump);
/* A dump file's offset lines checked before libpci reads it: its reader
 * writes outside its buffer for offsets of 0x80000000 and up (smaller ones
 * past 4096 it refuses itself); 0, or -1 with "FILE:LINE: ..." in msg. */
int apenet_pci_dump_check(const char *path, char *msg, size_t n);
/* "DDDD:BB:DD.F" */
void apenet_pci_bdf(const struct pci_dev *d, char *buf, size_t n);
/* Reads as much config space as the access method gives (4096, 256 or 64
 * bytes); the length, or 0.  Under a guard. */
int apenet_pci_read_config(struct pci_dev *d, uint8_t cfg[4096]);
/* What a card's config space says: ids, all ones (gone), the PCIe view. */
void apenet_pci_card_from_config(struct apenet_card *c, const uint8_t *cfg, int len);

#endif
