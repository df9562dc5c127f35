/*
 * The batch scheduler's side of an incident (docs/supervisor.md, "The batch
 * scheduler (Slurm)"): which nodes a settled incident's blame affects under
 * the config's policy, the drain reason an operator searches for, what
 * `scontrol show node -o NAME` says of a node, and whether to drain, leave
 * alone or resume it.  Pure: no process, no clock; the supervisor runs
 * scontrol (supervisor/slurm.c) and records each outcome in its health
 * database.
 *
 * The rules, for one node of one incident:
 *  - drain: a node not drained is drained with "apenet #ID: summary"; one
 *    drained with another reason (by hand, by another tool) is left alone
 *    and never resumed by apenet; one drained with an apenet reason (the
 *    other supervisor, another incident) counts as drained by this
 *    incident, so that its close may resume it;
 *  - resume: only a node this incident holds drained, that no other open
 *    incident of the same supervisor holds, and whose reason is still an
 *    apenet reason (someone who re-drained it since changed the reason);
 *    one no longer drained is a no-op, recorded as such.
 */
#ifndef APENET_SLURM_H
#define APENET_SLURM_H

#include <stddef.h>
#include <stdint.h>

struct apenet_slurm_config;
struct apenet_deduce_blame;

enum apenet_slurm_policy { APENET_SLURM_NONE = 0, APENET_SLURM_NODE = 1, APENET_SLURM_ENDS = 2 };

/* The policy of a blamed component ("cable", "sensor:voltage", ...): its
 * key's word; "supervisor" (an incident on no node) is always NONE. */
int apenet_slurm_policy(const struct apenet_slurm_config *c, const char *component);

/* The nodes a blame affects under the policy, at most 2, distinct, into
 * out; how many.  ENDS: a cable's far end, or the neighbour a link (X+ ..
 * Z-) faces in the torus (none past an edge without wraparound). */
unsigned apenet_slurm_nodes(const struct apenet_slurm_config *c, const struct apenet_deduce_blame *b,
			    const unsigned dims[3], const int wrap[3], unsigned out[2][3]);

/* What an incident's change calls for, from the nodes its blame now
 * affects (want: none for a close) and those it holds drained (held, with
 * what is queued for it counted in): the wanted ones it does not hold are
 * drained, the held ones no longer wanted resumed.  A settling or a
 * re-blame of a settled incident, and a close, are all this one rule.
 * Fills drain[] and resume[] (each at most nwant / nheld), their counts. */
void apenet_slurm_plan(const unsigned (*want)[3], unsigned nwant, const unsigned (*held)[3], unsigned nheld,
		       unsigned (*drain)[3], unsigned *ndrain, unsigned (*resume)[3], unsigned *nresume);

/* Every apenet reason starts with this; a node drained with another is
 * someone else's. */
#define APENET_SLURM_REASON_TAG "apenet #"
/* Slurm keeps a reason whole; one line kept short for sinfo -R. */
#define APENET_SLURM_REASON_MAX 128
/* "apenet #ID: summary", one printable ASCII line (control and non-ASCII
 * bytes, and the double quote, replaced), cut to fit len (at most
 * APENET_SLURM_REASON_MAX - 1 characters). */
void apenet_slurm_reason(char *buf, size_t len, int64_t id, const char *summary);
int apenet_slurm_reason_ours(const char *reason);

/* A node as `scontrol show node -o NAME` prints it. */
struct apenet_slurm_node {
	char state[64];          /* State= as printed: IDLE+DRAIN, UNKNOWN+DRAIN, DOWN+DRAIN, ... */
	int drain;               /* one of its flags is DRAIN, DRAINING or DRAINED */
	char reason[256];        /* Reason= without Slurm's " [user@time]"; "" when none */
};
/* 0 with n filled; -1 with why ("Slurm knows no node quong01", "no State=
 * in scontrol's answer") when the text does not describe node name. */
int apenet_slurm_parse_node(const char *text, const char *name, struct apenet_slurm_node *n, char *why, size_t whylen);

enum apenet_slurm_verb { APENET_SLURM_DRAIN = 1, APENET_SLURM_RESUME = 2 };
/* "drain", "resume"; "" for anything else */
const char *apenet_slurm_verb_name(int verb);

/* What became of one action (stored by its name). */
enum apenet_slurm_outcome {
	APENET_SLURM_DONE = 1,   /* drained, or resumed, as read back */
	APENET_SLURM_OTHER,      /* drained by someone else (another reason): left alone */
	APENET_SLURM_APENET,     /* drain: already drained with an apenet reason: held, not written again */
	APENET_SLURM_GONE,       /* resume: not drained any more: nothing to do */
	APENET_SLURM_DRY_RUN,    /* dry_run: only logged and recorded */
	APENET_SLURM_FAILED,     /* scontrol failed, or the node read back is not as asked */
	APENET_SLURM_NO_NAME,    /* cluster.nodes names no host for the node */
	APENET_SLURM_TIMEOUT,    /* scontrol was killed after timeout_ms */
	APENET_SLURM_KEPT,       /* resume: another open incident holds the node drained */
	APENET_SLURM_ABANDONED,  /* the supervisor stopped before it ran */
	APENET_SLURM_NOUTCOME
};
/* Its stored name ("done", "other", "apenet", "gone", "dry-run", "failed",
 * "no-name", "timeout", "kept", "abandoned"), and back (0 when unknown). */
const char *apenet_slurm_outcome_name(int outcome);
int apenet_slurm_outcome_of(const char *name);
/* In words, for the log and the reports: "already drained by someone else:
 * left alone", ... */
const char *apenet_slurm_outcome_words(int verb, int outcome);
/* An outcome by which the incident holds the node drained (a later resume
 * of the incident releases it): done, apenet and dry-run drains. */
int apenet_slurm_holds(int verb, int outcome);

/* Before the update, from the node as read: 0 to run it, else the outcome
 * without it (drain: OTHER, APENET; resume: OTHER, GONE). */
int apenet_slurm_decide(int verb, const struct apenet_slurm_node *n);
/* After it, from the node read back (scontrol's exit status alone does not
 * say: a resume of a node no slurmd ever answered for clears the flag and
 * still exits 1): DONE or FAILED. */
int apenet_slurm_judge(int verb, const struct apenet_slurm_node *n);

#endif
