/*
 * The one judge: pure functions over a sample pair (struct apenet_view) and
 * the thresholds, returning findings (apenet/finding.h) with stable codes
 * (docs/verdicts.md).  The CLI prints them; the agent runs the same rules
 * every period and keeps their state with a latch (hysteresis) between
 * samples.  Rules that read a rate say how sure they are: a rate fires only
 * when the events seen prove it at the configured confidence.
 */
#ifndef APENET_VERDICT_H
#define APENET_VERDICT_H

#include "apenet/config.h"
#include "apenet/dev.h"
#include "apenet/finding.h"
#include "apenet/ldm.h"
#include "apenet/linkstats.h"
#include "apenet/view.h"

/* "node 1,0,0" or "node quong02 (1,0,0)" */
void apenet_rules_node_label(const struct apenet_config *cfg, const unsigned xyz[3], char *buf, size_t n);

/*
 * Rules.  Each appends to out.  latched (may be NULL) is what the caller
 * currently holds raised (the agent's latch): a rule with a clear level
 * (sensors) keeps such a finding until the value is back past it.
 */
void apenet_rules_link(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		       const struct apenet_config *cfg, struct apenet_findings *out);
void apenet_rules_board(const struct apenet_view *v, const struct apenet_config *cfg,
			const struct apenet_findings *latched, struct apenet_findings *out);
/* PCIe link training and AER, from config space. */
void apenet_rules_pcie(int ok, const struct apenet_pcie_info *p, const char *err, struct apenet_findings *out);
/* A card as the PCI scan found it: gone (all ones) or its PCIe state. */
void apenet_rules_card(const struct apenet_card *c, struct apenet_findings *out);
/* Board, sensors and every link. */
void apenet_rules_pair(const struct apenet_view *v, const struct apenet_config *cfg, const struct apenet_findings *latched,
		  struct apenet_findings *out);

/*
 * Rate evidence: k events over t_s seconds against a threshold per unit_s
 * (60: per minute).  Fires (returns 1) when k >= min_events and the lower
 * confidence bound of the rate clears the threshold; rate and lower receive
 * the point rate and that bound either way.
 */
int apenet_rules_rate_proven(uint64_t k, double t_s, double thr, double unit_s, const struct apenet_thresholds *t,
		       double *rate, double *lower);

/* The board's sensors as status shows them, judged by the same rules. */
#define APENET_NSENSORS 8
struct apenet_sensor {
	const char *name;       /* "fpga_temp" */
	const char *unit;       /* "C", "mV", "mA" */
	int prec;
	double value;
	int present;            /* the board has it (a board without 12 V sensing reads 0) */
	double low_warn, low_fail, high_warn, high_fail; /* NaN: no such limit */
	enum apenet_sev sev;
	const char *code;       /* the finding code when sev > ok */
	double crossed;         /* the limit crossed */
};
unsigned apenet_rules_sensors(const struct apenet_view *v, const struct apenet_config *cfg,
			const struct apenet_findings *latched, struct apenet_sensor out[APENET_NSENSORS]);

/*
 * Hysteresis for a judge that runs sample after sample.  A finding is
 * raised the first sample it appears (or after raise_after samples in a
 * row) and stays raised, with its latest text, until clear_after samples in
 * a row come without it.  Keyed by (code, subject, link, lane, where).
 */
struct apenet_latch_entry {
	struct apenet_finding f;
	unsigned seen, clean;   /* consecutive samples with / without it */
	int raised;
	int hit;                /* seen in the sample being fed */
};
struct apenet_latch {
	struct apenet_latch_entry *e;
	size_t n, cap;
	unsigned raise_after, clear_after;
};
void apenet_latch_init(struct apenet_latch *l, unsigned raise_after, unsigned clear_after);
void apenet_latch_free(struct apenet_latch *l);
/* Feeds one sample's findings; raised receives what is raised now.
 * Returns the number of entries that changed state (raised or cleared). */
unsigned apenet_latch_step(struct apenet_latch *l, const struct apenet_findings *now, struct apenet_findings *raised);

#endif
