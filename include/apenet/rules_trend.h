/*
 * The post-mortem report's trends (report/trend.c, docs/report.md): a
 * black-box series before a fault, judged twice by lofamo/rules_trend.c.
 *
 * - A note when it moved worth a look: a TREND_* finding of severity ok,
 *   no recommendation.  The bounds below are an operator's "worth a look",
 *   deliberately under the rules' thresholds: the rules raise transitions
 *   of their own, which the report shows in its timeline.
 * - A finding of its sensor rule's code (FPGA_TEMP, BOARD_TEMP, VCORE_LOW,
 *   V12_RANGE; ICORE_HIGH for the core current, which only the DNP judges
 *   live) when a reading went past that rule's configured warn limit: a
 *   warning, with the code's one recommendation (lofamo/rulebook.c), the
 *   same the CLI gives.  A warm-up inside the limits stays a note.
 *
 * Codes: docs/verdicts.md, "The report's trends".
 */
#ifndef APENET_RULES_TREND_H
#define APENET_RULES_TREND_H

#include "apenet/finding.h"

/*
 * What "moved worth a look" means.  Not config keys: they only choose what
 * the report points at, never a verdict or an alarm.
 * - 5 C: a temperature drifts a degree or two with the load of a minute;
 *   five in the minutes before a fault is a cooling change.
 * - 5%: a supply ripples well under 1%; a 5% droop is a rail sagging
 *   (the rules warn at vdroop_warn_pct, 3% of nominal by default, but the
 *   trend compares with the first sample, not the nominal).
 * - 20%: the core current follows the traffic by a few percent; a fifth
 *   more is a load or a short the card did not have.
 * - any error a second: a clean link counts none at all.
 * - 75%: flow control stops the sender at T_RED (100%); a receiver that
 *   stays three quarters full is falling behind, below the level rule's
 *   fifo_hwm_warn_pct.
 */
#define APENET_TREND_TEMP_RISE_C 5.0
#define APENET_TREND_SUPPLY_DROOP_PCT 5.0
#define APENET_TREND_CURRENT_RISE_PCT 20.0
#define APENET_TREND_FIFO_PCT 75.0

enum apenet_trend_kind {
	APENET_TREND_TEMP,    /* C: notable when it rose */
	APENET_TREND_SUPPLY,  /* V: when it drooped */
	APENET_TREND_CURRENT, /* A: when it rose */
	APENET_TREND_ERRORS,  /* errors (or retransmissions) a second: when any came */
	APENET_TREND_FIFO,    /* % of the RX FIFO: when it filled */
};

/* A series as its rule reads it. */
struct apenet_trend {
	enum apenet_trend_kind kind;
	const char *unit;     /* of the readings, for the messages ("C", "V", "/s") */
	const char *code;     /* the rule whose warn limits these are (FPGA_TEMP...); NULL: none */
	double first, at_fault, min, max; /* NaN: no sample */
	double warn_low, warn_high;       /* the code's configured warn limits; NaN: none */
	double span_min;      /* minutes from the first sample to the fault */
};

/*
 * Appends the note (TREND_TEMP_RISE, TREND_SUPPLY_DROOP,
 * TREND_CURRENT_RISE, TREND_LINK_ERRORS, TREND_FIFO_FILL; severity ok,
 * its message the note) and the crossing (t->code, warn, value and the
 * limit crossed, its message "reached 86.2 C, past its warn limit 80 C")
 * that t shows, at most one each.  where: the series ("fpga_temp",
 * "X+ crc_errors").  A series without a first sample or without one at
 * the fault has no note.
 */
void apenet_rules_trend(const struct apenet_trend *t, const char *where, struct apenet_findings *out);

#endif
