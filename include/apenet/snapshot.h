/*
 * A consistent snapshot of every diagnostic register of a board.
 * Its layout is generated from the register lists of apenet/regs.h: one
 * uint64_t member per register, named as the register (s.g.TIMESTAMP,
 * s.link[1].LINK_TX_PKTS, s.link[1].lane[2].LANE_PRBS_ERRS), and the same
 * values as an array (v[]) in the order of the descriptor tables.
 *
 * Consistency: the firmware keeps GEN odd while it updates; the reader reads
 * GEN, every register, GEN again, and retries when GEN was odd or moved.
 */
#ifndef APENET_SNAPSHOT_H
#define APENET_SNAPSHOT_H

#include "apenet/dev.h"

#define APENET_X_MEMBER(n, o, b, a, u, d) uint64_t n;
#define APENET_X_COUNT(n, o, b, a, u, d) +1
#define APENET_NGLOBAL (0 APENET_GLOBAL_REGS(APENET_X_COUNT))
#define APENET_NLINKREG (0 APENET_LINK_REGS(APENET_X_COUNT))
#define APENET_NLANEREG (0 APENET_LANE_REGS(APENET_X_COUNT))

struct apenet_snap_lane {
	union {
		struct { APENET_LANE_REGS(APENET_X_MEMBER) };
		uint64_t v[APENET_NLANEREG];
	};
};

struct apenet_snap_link {
	union {
		struct { APENET_LINK_REGS(APENET_X_MEMBER) };
		uint64_t v[APENET_NLINKREG];
	};
	struct apenet_snap_lane lane[APENET_MAX_LANES];
};

struct apenet_snapshot {
	const struct apenet_profile *prof;
	union {
		struct { APENET_GLOBAL_REGS(APENET_X_MEMBER) };
		uint64_t v[APENET_NGLOBAL];
	} g;
	struct apenet_snap_link link[APENET_MAX_LINKS];
	unsigned nlinks;
	uint64_t reads;   /* register reads this snapshot took, retries included */
	unsigned retries;
};

/* 0, or -1: APENET_EGONE (all ones), APENET_EBUSY (never consistent). */
int apenet_snapshot_read(struct apenet_dev *d, struct apenet_snapshot *s, struct apenet_err *e);

/* Seconds between two timestamps of the same board. */
double apenet_ticks_to_s(const struct apenet_snapshot *s, uint64_t ticks);

#endif
