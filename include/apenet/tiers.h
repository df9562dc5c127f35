/*
 * Tiered register reads (docs/design.md, "What the agent reads, how often").
 *
 * On a card every register read is an uncached PCIe round trip (~1 us) the
 * CPU waits for; a full APEnet+ snapshot is 665 of them.  The agent reads
 * each register as often as a fault can change what it says:
 *   PERIOD  every period: link state and lanes up, the error and down-event
 *           counters, the own and received LDM words, the watchdog's beats
 *           and the counters' clear and reset stamps;
 *   SECOND  once a second: sensors, traffic, FIFO levels, lanes' state and
 *           errors;
 *   MINUTE  once a minute: identity, settings, thresholds, PMA, PRBS,
 *           partner.
 * A link whose state, down events or counters moved (or a card whose
 * counters were cleared or reset) has its slower tiers read in the same
 * period.  The slower tiers are read in chunks (the global registers, each
 * link, each lane's settings) whose due times are spread over the second
 * and the minute, so that no period carries a whole tier.
 *
 * A tiered snapshot starts as the previous one: what was not read keeps its
 * value, and ts_second / ts_minute (apenet/snapshot.h) say when it was read.
 */
#ifndef APENET_TIERS_H
#define APENET_TIERS_H

#include <stdint.h>

#include "apenet/snapshot.h"

enum apenet_tier { APENET_TIER_PERIOD, APENET_TIER_SECOND, APENET_TIER_MINUTE, APENET_NTIERS };

/* The tier of register idx of a block (its index in apenet_regdescs). */
enum apenet_tier apenet_tier_of(enum apenet_block b, unsigned idx);
const char *apenet_tier_name(enum apenet_tier t);

#define APENET_TIER_MAXREGS (APENET_NGLOBAL + APENET_MAX_LINKS * (APENET_NLINKREG + APENET_MAX_LANES * APENET_NLANEREG))
#define APENET_TIER_MAXCHUNKS (8 + APENET_MAX_LINKS * (2 + APENET_MAX_LANES))

struct apenet_tier_reg {
	uint32_t off;  /* BAR0 offset */
	uint16_t pos;  /* index of its uint64_t in struct apenet_snapshot */
	uint8_t bits;
};

/* A run of registers read together: the period tier, or one chunk of a
 * slower tier (the global ones, a link's, a lane's settings). */
struct apenet_tier_chunk {
	enum apenet_tier tier;
	int link;          /* -1: the global block */
	int lane;          /* a lane's settings: its lane; else -1 */
	unsigned first, n; /* in regs[] */
	int64_t due_ms;    /* next read (host ms); 0: at the next sample */
};

struct apenet_tiers {
	const struct apenet_profile *prof;
	struct apenet_tier_reg regs[APENET_TIER_MAXREGS];
	struct apenet_tier_chunk chunk[APENET_TIER_MAXCHUNKS]; /* chunk[0]: the period tier */
	unsigned nchunks;
	unsigned char read[APENET_TIER_MAXCHUNKS]; /* chunks the last sample read */
	int64_t interval_ms[APENET_NTIERS];         /* 0, 1000, 60000 */
};

/* The plan for a variant; chunks are due at once (the first sample reads
 * everything), then spread. */
void apenet_tiers_init(struct apenet_tiers *t, const struct apenet_profile *p);
/* Reads into s, which holds the previous sample of the same card (its
 * values stay where nothing is read): the period tier, every chunk due at
 * now_ms, and every chunk of what changed.  0, or -1 as
 * apenet_snapshot_read (the card gone: all ones; GEN never still). */
int apenet_tiers_read(struct apenet_tiers *t, struct apenet_dev *d, struct apenet_snapshot *s, int64_t now_ms,
		      struct apenet_err *e);
/* Reads the whole of a tier's registers of a variant: a chunk each (for
 * docs and the tests). */
unsigned apenet_tiers_count(const struct apenet_tiers *t, enum apenet_tier tier);

#endif
