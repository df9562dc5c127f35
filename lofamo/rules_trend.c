/*
 * The report's trends (include/apenet/rules_trend.h): what a black-box
 * series did before a fault.  A note when it moved worth a look, and its
 * sensor rule's finding when a reading went past that rule's configured
 * warn limit, so the report recommends what the CLI would for the same
 * reading (lofamo/rulebook.c).
 */
#include <math.h>
#include <stdio.h>

#include "apenet/rules_trend.h"

static struct apenet_finding *add(const struct apenet_trend *t, enum apenet_sev sev, const char *where, const char *code,
				  struct apenet_findings *out)
{
	int link = t->kind == APENET_TREND_ERRORS || t->kind == APENET_TREND_FIFO;
	return apenet_finding_add(out, sev, link ? APENET_SUBJ_LINK : APENET_SUBJ_SENSOR, -1, -1, where, code);
}

static void note(const struct apenet_trend *t, const char *where, struct apenet_findings *out)
{
	double first = t->first, at = t->at_fault;
	struct apenet_finding *f;
	if (isnan(first) || isnan(at))
		return;
	switch (t->kind) {
	case APENET_TREND_TEMP:
		if (at - first < APENET_TREND_TEMP_RISE_C)
			return;
		f = add(t, APENET_SEV_OK, where, "TREND_TEMP_RISE", out);
		apenet_finding_message(f, "rose from %.1f to %.1f C in the %.1f min before the fault", first, at, t->span_min);
		apenet_finding_measure(f, at - first, APENET_TREND_TEMP_RISE_C, "C");
		return;
	case APENET_TREND_SUPPLY:
		if (!(first > 0) || (first - t->min) / first * 100 < APENET_TREND_SUPPLY_DROOP_PCT)
			return;
		f = add(t, APENET_SEV_OK, where, "TREND_SUPPLY_DROOP", out);
		apenet_finding_message(f, "dropped %.1f%% (%.3f to %.3f V)", 100 * (first - t->min) / first, first, t->min);
		apenet_finding_measure(f, 100 * (first - t->min) / first, APENET_TREND_SUPPLY_DROOP_PCT, "%");
		return;
	case APENET_TREND_CURRENT:
		if (!(first > 0) || (t->max - first) / first * 100 < APENET_TREND_CURRENT_RISE_PCT)
			return;
		f = add(t, APENET_SEV_OK, where, "TREND_CURRENT_RISE", out);
		apenet_finding_message(f, "rose %.0f%% (%.2f to %.2f A)", 100 * (t->max - first) / first, first, t->max);
		apenet_finding_measure(f, 100 * (t->max - first) / first, APENET_TREND_CURRENT_RISE_PCT, "%");
		return;
	case APENET_TREND_ERRORS:
		if (!(t->max > 0))
			return;
		f = add(t, APENET_SEV_OK, where, "TREND_LINK_ERRORS", out);
		apenet_finding_message(f, "up to %.3g/s", t->max);
		apenet_finding_measure(f, t->max, 0, "/s");
		return;
	case APENET_TREND_FIFO:
		if (!(t->max >= APENET_TREND_FIFO_PCT))
			return;
		f = add(t, APENET_SEV_OK, where, "TREND_FIFO_FILL", out);
		apenet_finding_message(f, "filled to %.0f%%", t->max);
		apenet_finding_measure(f, t->max, APENET_TREND_FIFO_PCT, "%");
		return;
	}
}

/* Past a warn limit: the high one first (a reading that went both ways is
 * told by its peak). */
static void crossed(const struct apenet_trend *t, const char *where, struct apenet_findings *out)
{
	const char *u = t->unit;
	struct apenet_finding *f;
	if (!t->code)
		return;
	if (!isnan(t->warn_high) && t->max >= t->warn_high) {
		f = add(t, APENET_SEV_WARN, where, t->code, out);
		apenet_finding_message(f, "reached %.4g %s, past its warn limit %.4g %s", t->max, u, t->warn_high, u);
		apenet_finding_measure(f, t->max, t->warn_high, u);
	} else if (!isnan(t->warn_low) && t->min <= t->warn_low) {
		f = add(t, APENET_SEV_WARN, where, t->code, out);
		apenet_finding_message(f, "fell to %.4g %s, past its warn limit %.4g %s", t->min, u, t->warn_low, u);
		apenet_finding_measure(f, t->min, t->warn_low, u);
	}
}

void apenet_rules_trend(const struct apenet_trend *t, const char *where, struct apenet_findings *out)
{
	note(t, where, out);
	crossed(t, where, out);
}
