/* Guards around libpci calls (collectors/pci_guard.h). */
#include <stdarg.h>
#include <stdio.h>

#include "apenet/log.h"
#include "pci_guard.h"

static _Thread_local struct apenet_pci_guard *innermost;

void apenet_pci_guard_push(struct apenet_pci_guard *g)
{
	g->msg[0] = 0;
	g->outer = innermost;
	innermost = g;
}

void apenet_pci_guard_pop(struct apenet_pci_guard *g)
{
	innermost = g->outer;
}

static void on_fatal(char *msg, ...) PCI_PRINTF(1, 2) PCI_NONRET;
static void on_warning(char *msg, ...) PCI_PRINTF(1, 2);

static void on_fatal(char *msg, ...)
{
	struct apenet_pci_guard *g = innermost;
	char buf[256];
	va_list ap;
	va_start(ap, msg);
	vsnprintf(g ? g->msg : buf, sizeof(buf), msg, ap);
	va_end(ap);
	if (g)
		longjmp(g->env, 1);
	/* Cannot happen: every call into libpci is guarded.  Returning would
	 * let libpci go on with what it just said is broken; a trap at least
	 * stops at the bug, with the message logged first. */
	apenet_log(APENET_LOG_ERR, "libpci: %s (outside a guarded call: a bug in apenet)", buf);
	__builtin_trap();
}

/* libpci's warnings were never shown; at info a daemon can choose to see them. */
static void on_warning(char *msg, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, msg);
	vsnprintf(buf, sizeof(buf), msg, ap);
	va_end(ap);
	apenet_log(APENET_LOG_INFO, "libpci: %s", buf);
}

void apenet_pci_callbacks(struct pci_access *pa)
{
	pa->error = on_fatal;
	pa->warning = on_warning;
	pa->debug = on_warning;
}

void apenet_pci_cleanup(struct pci_access *pa)
{
	struct apenet_pci_guard g;
	if (!pa)
		return;
	apenet_pci_guard_push(&g);
	if (!setjmp(g.env))
		pci_cleanup(pa);
	apenet_pci_guard_pop(&g);
}
