/*
 * Everything a command reads about one board: its PCI view, two register
 * snapshots an interval apart (rates come from their counter and TIMESTAMP
 * deltas, never from clearing counters), and its module EEPROM pages.
 * Filled live from a card, or loaded from an `apenet snapshot` file so any
 * command can be replayed offline (--from FILE).
 */
#ifndef APENET_VIEW_H
#define APENET_VIEW_H

#include "apenet/out.h"
#include "apenet/snapshot.h"

struct apenet_view {
	char bdf[16];
	const struct apenet_profile *prof;
	int pcie_ok;
	struct apenet_pcie_info pcie;
	char pcie_err[160];
	struct apenet_snapshot s0, s1; /* s1 is the later one; equal when there is no interval */
	uint32_t ee_status[APENET_MAX_LINKS];
	uint8_t ee[APENET_MAX_LINKS][APENET_EE_DATA_LEN];
	char source[64];               /* "live" or "file" */
	uint64_t reads;                /* register reads it took */
};

/* Reads the board twice, interval_s apart (0: once), and with modules set
 * its EEPROM windows too (160 reads a port: only the commands that show
 * modules pay for them). */
int apenet_view_collect(struct apenet_dev *d, const struct apenet_card *c, double interval_s, int modules,
			struct apenet_view *v, struct apenet_err *e);
/* Writes the view as an `apenet snapshot` document (always JSON-shaped). */
void apenet_view_write(const struct apenet_view *v, struct apenet_out *o);
/* Loads a snapshot file; errors name file:line:column. */
int apenet_view_load(const char *path, struct apenet_view *v, struct apenet_err *e);

/* Seconds between the two samples (by the board's TIMESTAMP). */
double apenet_view_dt(const struct apenet_view *v);
/* Counter delta between samples (0 when it went backwards: cleared). */
uint64_t apenet_view_delta(uint64_t before, uint64_t after);

#endif
