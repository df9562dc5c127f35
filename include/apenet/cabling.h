/*
 * Cabling: what is plugged where, judged against the torus.  A pure function
 * over what was read from every node (its coordinates, the torus dimensions
 * it declares, its variant, and per link LINK_STATE and LINK_PARTNER, the
 * partner learned from the ALIGN OK words) that returns a punch list, one
 * problem per physical fault, and the same as findings (subject cabling,
 * codes in docs/verdicts.md).  No I/O: the CLI gathers and prints, the
 * supervisor will judge the same observations from its database.
 *
 * The torus is the config's cluster section when it has one (dimensions,
 * wraparound, names); else the one the boards declare (TORUS_DIMS, which
 * must agree: a board that declares another is a "layout" problem) with
 * wraparound in every dimension.
 */
#ifndef APENET_CABLING_H
#define APENET_CABLING_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/config.h"
#include "apenet/err.h"
#include "apenet/finding.h"
#include "apenet/regs.h"

/* Tori larger than this are refused (the per-end tables would not fit);
 * the architecture goes to 32K nodes. */
#define APENET_CABLING_MAX_NODES (1u << 20)

/* What was read from one node. */
struct apenet_cabling_obs {
	const char *src;          /* where it came from (directory, file), for messages; the caller's */
	const char *err;          /* NULL, or why it could not be read: nothing below but node_coord is set */
	int coord_known;          /* with err: node_coord is known anyway (from where it was looked for) */
	const struct apenet_profile *prof;
	uint32_t node_coord;      /* NODE_COORD */
	uint32_t torus_dims;      /* TORUS_DIMS; 0: the board does not say */
	uint32_t link_state[APENET_MAX_LINKS];   /* LINK_STATE per link of prof */
	uint32_t link_partner[APENET_MAX_LINKS]; /* LINK_PARTNER per link of prof */
};

enum apenet_cabling_kind {
	APENET_CABLING_SWAPPED,       /* two plugs exchanged: one record for the pair */
	APENET_CABLING_CROSSED,       /* a cable joins two ends the layout does not pair */
	APENET_CABLING_WRONG_PORT,    /* right node, wrong port */
	APENET_CABLING_UNEXPECTED,    /* a cable where the layout has none */
	APENET_CABLING_MISSING,       /* an expected cable is not there */
	APENET_CABLING_INCONSISTENT,  /* one end sees the other, not back: stale data */
	APENET_CABLING_UNREACHABLE,   /* a node that could not be read, or has no data */
	APENET_CABLING_LAYOUT,        /* a board that disagrees with the torus */
};

struct apenet_cabling_end {
	int valid;                /* 0: no such end (null) */
	unsigned xyz[3];
	int link;                 /* index in the node's variant; -1: the node itself */
	const char *link_name;    /* "X+", "?" past the variant's links; NULL for the node */
	const char *name;         /* the node's name in the config, or NULL (the config's memory) */
};

struct apenet_cabling_problem {
	enum apenet_cabling_kind kind;
	struct apenet_cabling_end a, b, a_expected, b_expected;
	char *text;               /* what is wrong and what to do, one line */
};

struct apenet_cabling {
	unsigned dims[3];         /* the torus judged against; 0x0x0 when nothing could tell */
	int wrap[3];
	int dims_from_config;     /* 1: the config's cluster section, 0: the boards */
	unsigned nodes, nodes_read;
	unsigned cables_expected, cables_ok;
	struct apenet_cabling_problem *p;
	size_t np, cap;
};

const char *apenet_cabling_kind_name(enum apenet_cabling_kind k);
/* The finding code of a kind ("CABLE_SWAPPED"). */
const char *apenet_cabling_kind_code(enum apenet_cabling_kind k);

/* Judges n observations (any order).  cfg may be NULL; its cluster section,
 * when it has one, gives the torus and the names.  Problems go to res (free
 * with apenet_cabling_free), one finding per problem to fs.  -1 only when
 * nothing can be judged (no torus known, too large, out of memory). */
int apenet_cabling_judge(const struct apenet_cabling_obs *obs, size_t n, const struct apenet_config *cfg,
			 struct apenet_cabling *res, struct apenet_findings *fs, struct apenet_err *e);
void apenet_cabling_free(struct apenet_cabling *res);

#endif
