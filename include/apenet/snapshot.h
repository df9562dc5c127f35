/*
 * A consistent snapshot of every diagnostic register of a board.
 * Its layout is generated from the register lists of apenet/regs.h: one
 * uint64_t member per register, named as the register (s.g.TIMESTAMP,
 * s.link[1].LINK_TX_PKTS, s.link[1].lane[2].LANE_PRBS_ERRS), and the same
 * values as an array (v[]) in the order of the descriptor tables.
 *
 * Consistency: the firmware keeps GEN odd while it updates; the reader reads
 * GEN, every register, GEN again, and retries when GEN was odd or moved.
 *
 * A snapshot may be partial (the agent's tiers, apenet/tiers.h): registers
 * of the second and minute tiers then hold the value last read, and
 * ts_second / ts_minute say at which TIMESTAMP.  A full read sets both to
 * its TIMESTAMP.
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
	uint64_t ts_second, ts_minute; /* TIMESTAMP when this link's tiers were read */
};

struct apenet_snapshot {
	const struct apenet_profile *prof;
	union {
		struct { APENET_GLOBAL_REGS(APENET_X_MEMBER) };
		uint64_t v[APENET_NGLOBAL];
	} g;
	uint64_t ts_second, ts_minute;   /* TIMESTAMP when the global tiers were read */
	struct apenet_snap_link link[APENET_MAX_LINKS];
	unsigned nlinks;
	uint64_t reads;   /* register reads this snapshot took, retries included */
	unsigned retries;
};

/* 0, or -1: APENET_EGONE (all ones), APENET_EBUSY (never consistent). */
int apenet_snapshot_read(struct apenet_dev *d, struct apenet_snapshot *s, struct apenet_err *e);
/* The seqlock around another reader: fn reads what it wants into s
 * (called again on a retry); s is not cleared first. */
typedef void (*apenet_snapshot_fn)(struct apenet_dev *d, struct apenet_snapshot *s, void *arg);
int apenet_snapshot_read_fn(struct apenet_dev *d, struct apenet_snapshot *s, apenet_snapshot_fn fn, void *arg,
			    struct apenet_err *e);
/* When link l's second tier was read (0, as in a snapshot made by hand or
 * loaded from an older file: with the rest, at TIMESTAMP). */
static inline uint64_t apenet_snap_ts_second(const struct apenet_snapshot *s, unsigned l)
{
	return s->link[l].ts_second ? s->link[l].ts_second : s->g.TIMESTAMP;
}
/* Marks every tier of s read at its TIMESTAMP (a full read). */
void apenet_snapshot_all_fresh(struct apenet_snapshot *s);

/* Seconds between two timestamps of the same board. */
double apenet_ticks_to_s(const struct apenet_snapshot *s, uint64_t ticks);

#endif
