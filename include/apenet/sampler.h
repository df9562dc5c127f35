/*
 * The sampler: one sample of a board, taken without blocking, from handles
 * that stay open between samples (BAR mapping, libpci), so that a daemon can
 * take one every period and the CLI two an interval apart.  A sample is
 * stamped with the host's epoch time and carries the board's TIMESTAMP;
 * rates come from two samples (apenet_view_pair, apenet/linkstats.h).
 */
#ifndef APENET_SAMPLER_H
#define APENET_SAMPLER_H

#include <stdint.h>

#include "apenet/dev.h"
#include "apenet/snapshot.h"
#include "apenet/tiers.h"
#include "apenet/view.h"

enum {
	APENET_SAMPLE_PCIE = 1,    /* re-read PCI config space (link status, AER) */
	APENET_SAMPLE_MODULES = 2, /* read the module EEPROM windows (160 reads a port) */
};

struct apenet_sample {
	char bdf[16];
	struct apenet_snapshot snap;
	int64_t host_ms;           /* CLOCK_REALTIME when taken, ms since the epoch */
	int pcie_ok;
	struct apenet_pcie_info pcie;
	char pcie_err[160];
	int have_modules;
	uint32_t ee_status[APENET_MAX_LINKS];
	uint8_t ee[APENET_MAX_LINKS][APENET_EE_DATA_LEN];
	uint64_t reads;            /* register reads this sample took */
};

struct apenet_pci_handle;

struct apenet_sampler {
	struct apenet_site site;
	struct apenet_card card;
	struct apenet_dev dev;
	struct apenet_pci_handle *pci;
	int open;
	struct apenet_tiers *tiers;     /* NULL: every sample reads every register */
	struct apenet_snapshot *last;   /* tiered: the last snapshot, where the next starts */
};

/* Finds the card (bdf NULL: the only one) under simdir (NULL: the real
 * machine, or $APENET_SIM_DIR), maps its BAR and opens libpci. */
int apenet_sampler_open(struct apenet_sampler *s, const char *simdir, const char *bdf, struct apenet_err *e);
/* One sample (flags: APENET_SAMPLE_*); never sleeps.  -1 with APENET_EGONE
 * when the card reads all ones. */
int apenet_sampler_take(struct apenet_sampler *s, unsigned flags, struct apenet_sample *out, struct apenet_err *e);
void apenet_sampler_close(struct apenet_sampler *s);
/* From now on, samples read by tiers (apenet/tiers.h): the daemon's way.
 * -1 only out of memory. */
int apenet_sampler_tiered(struct apenet_sampler *s, struct apenet_err *e);

/* The view of two samples (a earlier than b; a == b: no interval). */
void apenet_view_pair(struct apenet_view *v, const struct apenet_sample *a, const struct apenet_sample *b);

/* libpci kept open on one card: its config space re-read on demand. */
int apenet_pci_handle_open(const struct apenet_site *site, const char *bdf, struct apenet_pci_handle **h,
			   struct apenet_err *e);
/* Re-reads the card's config space into c (pcie_ok, pcie, pcie_err, gone). */
int apenet_pci_handle_read(struct apenet_pci_handle *h, struct apenet_card *c, struct apenet_err *e);
void apenet_pci_handle_close(struct apenet_pci_handle *h);

#endif
