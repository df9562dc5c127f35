/*
 * Everything a command or the agent judges about one board: its PCI view,
 * two register snapshots an interval apart (rates come from their counter
 * and TIMESTAMP deltas, never from clearing counters), and its module
 * EEPROM pages.  Made from two samples of the sampler (apenet/sampler.h),
 * or loaded from an `apenet snapshot` file (apenet/snapfile.h) so any
 * command can be replayed offline (--from FILE).
 */
#ifndef APENET_VIEW_H
#define APENET_VIEW_H

#include "apenet/snapshot.h"

struct apenet_view {
	char bdf[16];
	const struct apenet_profile *prof;
	int pcie_ok;
	struct apenet_pcie_info pcie;
	char pcie_err[160];
	struct apenet_snapshot s0, s1; /* s1 is the later one; equal when there is no interval */
	int64_t host_ms[2];            /* host epoch time of each sample (ms); 0: unknown */
	uint32_t ee_status[APENET_MAX_LINKS];
	uint8_t ee[APENET_MAX_LINKS][APENET_EE_DATA_LEN];
	char source[64];               /* "live" or "file" */
	unsigned nsamples;             /* samples in the file (2 when live) */
	unsigned pair[2];              /* the indexes of s0 and s1 among them */
	uint64_t reads;                /* register reads it took */
};

/* Seconds between the two samples (by the board's TIMESTAMP). */
double apenet_view_dt(const struct apenet_view *v);
/* Counter delta between samples (0 when it went backwards: cleared). */
uint64_t apenet_view_delta(uint64_t before, uint64_t after);

#endif
