/*
 * apenet-diag: PRBS test patterns, generator and checker (SPEC §5).
 *
 * The lane test firmware runs a 32-bit parallel PRBS generator on TX and a
 * checker on RX.  This codec is the same thing in software: the emulator's
 * firmware model uses it to produce and check the words it shows in
 * LANE_PRBS_RXWORD / LANE_PRBS_ERRWORD, and the tools use it to decode or
 * verify captured words.  No I/O, no global state.
 *
 * Patterns (ITU-T O.150 polynomials, as the Altera transceiver PRBS
 * generators use them):
 *   PRBS7  x^7  + x^6  + 1      period 127 bits
 *   PRBS15 x^15 + x^14 + 1      period 32767
 *   PRBS23 x^23 + x^18 + 1      period 8388607
 *   PRBS31 x^31 + x^28 + 1      period 2147483647
 *
 * Bit sequence: for x^n + x^m + 1 the transmitted bits obey
 *   b[k] = b[k-n] XOR b[k-m]
 * (a Fibonacci LFSR whose feedback bit is also its output).  The sequence
 * is sent as is, not inverted (O.150 inverts PRBS15/23/31 on some
 * interfaces; a polarity-swapped lane therefore never locks here, which is
 * what a wiring check wants to see).
 *
 * Word convention: each 32-bit word carries the next 32 bits of the
 * sequence, the FIRST transmitted bit in bit 31 (MSB first), the last in
 * bit 0.
 *
 * Generator state: the last n bits sent, the most recent in bit 0 (so the
 * low n bits of the last word are the state).  The all-zero state would
 * produce zeros forever and is never used: a zero seed means all ones.
 */
#ifndef APENET_PRBS_H
#define APENET_PRBS_H

#include <stdint.h>

#include "apenet/regs.h"

/* The checker declares lock after predicting this many consecutive words
 * correctly from the received data (after the one word that seeds it). */
#define APENET_PRBS_LOCK_WORDS 4
/* A locked checker drops lock (and re-syncs) when one word has MORE than
 * this many bit errors out of 32: beyond that the stream is no longer the
 * pattern (garbage, a slipped bit, a swapped polarity), not a noisy copy. */
#define APENET_PRBS_LOSS_ERRS 16

struct apenet_prbs_gen {
	enum apenet_prbs pat;
	uint32_t state; /* last n bits sent, most recent in bit 0 */
};

/*
 * pat is taken modulo 4, as the 2-bit PATTERN field of LANE_PRBS_CTRL.
 * seed: the n bits "sent before" the first word (the low n bits are used);
 * 0 (or any seed whose low n bits are 0) means all ones.
 */
void apenet_prbs_gen_init(struct apenet_prbs_gen *g, enum apenet_prbs pat, uint32_t seed);
/* The next 32 bits of the sequence, first transmitted bit in bit 31. */
uint32_t apenet_prbs_gen_next(struct apenet_prbs_gen *g);

/*
 * Self-synchronising checker.
 *  - Acquiring (locked == 0): every received word loads the LFSR (its low n
 *    bits are a full state, since n <= 31); the following word is compared
 *    with the prediction from it.  APENET_PRBS_LOCK_WORDS correct
 *    predictions in a row declare lock.  A zero state never counts as a
 *    correct prediction (a dead lane sending zeros must not "lock").
 *    Nothing is counted while acquiring.
 *  - Locked: the LFSR runs free and every received word is compared with
 *    it, so each flipped bit on the line counts exactly once (a checker
 *    that kept reloading from the received data would see one line error
 *    again in later predictions).  bits += 32 and errs += the errors of each
 *    word, including the word that loses lock.  A word with more than
 *    APENET_PRBS_LOSS_ERRS errors drops lock (lock_losses++), and that word
 *    starts the re-acquisition.
 */
struct apenet_prbs_chk {
	struct apenet_prbs_gen lfsr; /* the prediction; free-running once locked */
	unsigned locked;             /* 1 while locked */
	unsigned good;               /* correct predictions in a row while acquiring */
	unsigned seeded;             /* acquiring: lfsr holds a state from a received word */
	uint64_t bits;               /* bits compared while locked */
	uint64_t errs;               /* bit errors among them */
	uint64_t lock_losses;        /* times lock was lost */
};

void apenet_prbs_chk_init(struct apenet_prbs_chk *c, enum apenet_prbs pat);
/* Feed one received word; returns its error mask (received XOR expected),
 * 0 while not locked. */
uint32_t apenet_prbs_chk_feed(struct apenet_prbs_chk *c, uint32_t word);

/* 2^n - 1 for the pattern (pat modulo 4). */
unsigned apenet_prbs_period_bits(enum apenet_prbs pat);
/* n, the degree of the polynomial: 7, 15, 23 or 31. */
unsigned apenet_prbs_order(enum apenet_prbs pat);
/* "PRBS7", "PRBS15", "PRBS23", "PRBS31". */
const char *apenet_prbs_name(enum apenet_prbs pat);
/* Parse "prbs7"/"PRBS7"/"7" (and 15, 23, 31); 0 on success, -1 otherwise. */
int apenet_prbs_parse(const char *s, enum apenet_prbs *out);

#endif /* APENET_PRBS_H */
