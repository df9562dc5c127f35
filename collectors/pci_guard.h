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

#endif
