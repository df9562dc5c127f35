/*
 * A judging session: the one place where a stream of samples of one board
 * becomes the findings it holds.  The agent, apenet-top, `apenet watch` and
 * `apenet link` feed it samples and print what it holds, so the same
 * samples get the same verdicts in every tool (tests/e2e/judge_replay.sh).
 *
 * Each sample fed is judged twice by the rules (apenet/verdict.h):
 *   - over (the previous sample, this one) for states;
 *   - for the rules the table marks RATE, over (the sample baseline_s ago,
 *     this one): 100 ms of counts prove no rate, a minute does
 *     (docs/verdicts.md, "Rates").  That pair is judged once a second.
 * Counters that went backwards (a clear, a firmware reset) restart the
 * rates from that sample.  The agent's samples are tiered (apenet/tiers.h):
 * a rule the table marks SECOND, on a pair in which a link's second tier
 * was not read again, keeps what it said at that tier's last read.  Then the latch: a finding is held from the first
 * sample it appears until clear_after_samples samples in a row come without
 * it (sensors: until the value is also back past its clear margin).
 *
 * The session holds every finding, including those the table marks OWNED:
 * the agent reports those through another path (the watchdog, the
 * neighbour tracker) and leaves them out of its transitions.
 */
#ifndef APENET_JUDGE_H
#define APENET_JUDGE_H

#include "apenet/agent.h"
#include "apenet/config.h"
#include "apenet/err.h"
#include "apenet/sampler.h"
#include "apenet/verdict.h"

/* How the session treats a code (the rule table, lofamo/judge.c). */
enum {
	APENET_RULE_RATE = 1u << 0,  /* a rate or a count over a window: judged over the baseline pair too */
	APENET_RULE_OWNED = 1u << 1, /* the agent reports it through another path (owner says which) */
	APENET_RULE_LEVEL = 1u << 2, /* held also until the value is back past a clear level (sensors) */
	APENET_RULE_SECOND = 1u << 3, /* reads a link's second tier (apenet/tiers.h): on a pair that did
				       * not read it again, it stands as judged at its last read */
};
struct apenet_judge_rule {
	const char *code;
	unsigned flags;
	const char *owner;           /* OWNED: "watchdog" or "neighbour" */
};
/* The table's row for a code; NULL for a state rule (judged on the short
 * pair, held by count alone). */
const struct apenet_judge_rule *apenet_judge_rule(const char *code);
unsigned apenet_judge_flags(const char *code);

struct apenet_judge {
	const struct apenet_config *cfg; /* borrowed: the caller's, reloaded in place */
	struct apenet_sample *slot[2];   /* this sample and the previous one */
	unsigned cur;
	int have_prev;
	struct apenet_sample *base;      /* one a second, the last baseline_s of them */
	size_t base_cap, base_n, base_0;
	double base_s;                   /* the baseline_s the ring was sized for */
	struct apenet_view *vshort, *vlong; /* the pairs judged */
	double long_dt;                  /* the baseline pair's interval, s (0: none) */
	int64_t long_next_ms;            /* when the baseline pair is judged again (host ms) */
	struct apenet_latch latch;
	struct apenet_findings now, longf, held;
	struct apenet_findings shortf;   /* the short pair's findings of the last sample (for SECOND) */
	struct apenet_reset resets[APENET_MAX_LINKS]; /* the counter clears found in the last sample */
	unsigned nresets;
	unsigned changes;                /* of the held set at the last sample */
	uint64_t fed;
};

int apenet_judge_init(struct apenet_judge *j, const struct apenet_config *cfg, struct apenet_err *e);
void apenet_judge_free(struct apenet_judge *j);
/* After the config changed in place (a reload): the latch's clear count,
 * and a new baseline ring when baseline_s changed (rates start over). */
int apenet_judge_reconfigure(struct apenet_judge *j, struct apenet_err *e);
/* Where the caller may take the next sample (no copy when fed back). */
struct apenet_sample *apenet_judge_slot(struct apenet_judge *j);
/* Judges one sample (the slot or any other; copied when another).  Returns
 * the findings held now. */
const struct apenet_findings *apenet_judge_feed(struct apenet_judge *j, const struct apenet_sample *s);
/* Takes s as the previous sample without judging it: a command that
 * judges one pair (apenet link, the first sample of apenet watch) says
 * nothing about its first sample alone. */
void apenet_judge_prime(struct apenet_judge *j, const struct apenet_sample *s);
/* The board was away (all ones): rates start over from the next sample. */
void apenet_judge_rebase(struct apenet_judge *j);
/* The last sample fed, and the one before it (NULL before two). */
const struct apenet_sample *apenet_judge_last(const struct apenet_judge *j);

/* Every sample of a snapshot document (a black box, `apenet snapshot`)
 * fed in order; cb (may be NULL) is called after each with its index. */
typedef int (*apenet_judge_sample_fn)(void *arg, const struct apenet_judge *j, unsigned index);
int apenet_judge_replay(struct apenet_judge *j, const char *path, apenet_judge_sample_fn cb, void *arg,
			struct apenet_err *e);

#endif
