/*
 * The module judge: one rule set for QSFP and SFP modules (see
 * include/apenet/rules_module.h).  It reads only the health part both
 * decoders fill, so what counts as a condition is decided here and nowhere
 * else, and every condition it counts is a finding of its own.
 *
 * Monitors have two sources, because each can miss what the other sees:
 * the module's flags are latched (they stay up after a short excursion,
 * until read), while comparing the live reading with the thresholds
 * catches a condition the firmware's mirror read before the module flagged
 * it, or a module that never flags at all.
 */
#include <math.h>
#include <stdio.h>

#include "apenet/rules_module.h"

/* How precisely a reading is quoted in a message. */
static const int msg_prec[APENET_MON_COUNT] = {
	[APENET_MON_TEMP] = 1, [APENET_MON_VCC] = 3, [APENET_MON_RX_POWER] = 4,
	[APENET_MON_TX_BIAS] = 2, [APENET_MON_TX_POWER] = 4,
};

/* What to do, per monitor and side ([0] high, [1] low). */
static const char *const mon_rec[APENET_MON_COUNT][2] = {
	[APENET_MON_TEMP] = { "the module runs hot: check the airflow over the cage and the card's temperature "
			      "(apenet status); replace the module if it stays hot",
			      "the module is colder than it is rated for: check the room" },
	[APENET_MON_VCC] = { "the cage's 3.3 V supply is out of range: check the card's power (apenet status)",
			     "the cage's 3.3 V supply is out of range: check the card's power (apenet status)" },
	[APENET_MON_RX_POWER] = { "too much light arrives and can saturate the receiver: add an attenuator or use a "
				  "module rated for a shorter reach",
				  "too little light arrives: clean the connectors, check the fibre and that the far "
				  "end transmits" },
	[APENET_MON_TX_BIAS] = { "the laser needs more current than it should (ageing): plan to replace the module",
				 "the laser draws too little current: replace the module" },
	[APENET_MON_TX_POWER] = { "the transmitter's output is too strong: replace the module",
				  "the laser is weak or failing: replace the module" },
};

/* The lane a finding names: module lanes are numbered 1-4 as the spec's channels; -1 for none. */
static int lane_of(const struct apenet_module_health *h, int per_lane, unsigned k)
{
	return per_lane && h->lanes > 1 ? (int)k + 1 : -1;
}

static void lane_prefix(char *dst, size_t n, int lane)
{
	if (lane > 0)
		snprintf(dst, n, "lane %d ", lane);
	else
		dst[0] = '\0';
}

/*
 * One side (high or low) of one monitor on one lane: the alarm if flagged
 * or crossed, else the warning if that is.  A warning adds nothing when the
 * alarm on the same side is up.  Returns 1 when it found a condition.
 */
static int judge_side(const struct apenet_module_health *h, enum apenet_module_mon_id id, unsigned k, int high,
		      int link, const char *port, struct apenet_findings *out)
{
	const struct apenet_module_mon_info *info = apenet_module_mon_info(id);
	const struct apenet_module_mon *x = &h->mon[id];
	const struct apenet_module_thresh *t = &x->th;
	double v = x->value[k];
	int prec = msg_prec[id];
	char lane[24];

	lane_prefix(lane, sizeof(lane), lane_of(h, info->per_lane, k));
	for (int alarm = 1; alarm >= 0; alarm--) {
		double limit = high ? (alarm ? t->high_alarm : t->high_warn) : (alarm ? t->low_alarm : t->low_warn);
		uint8_t bit = high ? (alarm ? APENET_AW_HIGH_ALARM : APENET_AW_HIGH_WARN)
				   : (alarm ? APENET_AW_LOW_ALARM : APENET_AW_LOW_WARN);
		/* At a threshold is not over it: the specs flag values beyond it. */
		int crossed = x->thresh_ok && (high ? v > limit : v < limit);
		int flagged = x->flags_ok && (x->flags[k] & bit);
		const char *level = alarm ? "alarm" : "warning", *side = high ? "high" : "low";
		struct apenet_finding *f;

		if (!crossed && !flagged)
			continue;
		f = apenet_finding_add(out, alarm ? APENET_SEV_FAIL : APENET_SEV_WARN, APENET_SUBJ_MODULE, link,
				       lane_of(h, info->per_lane, k), port, alarm ? "MODULE_ALARM" : "MODULE_WARNING");
		apenet_finding_measure(f, v, x->thresh_ok ? limit : NAN, info->unit);
		if (crossed)
			apenet_finding_message(f, "%s%s %s %s: %.*f %s %s the %.*f %s threshold", lane, info->name, side,
					       level, prec, v, info->unit, high ? "above" : "below", prec, limit,
					       info->unit);
		else if (x->thresh_ok)
			apenet_finding_message(f, "%s%s %s %s flagged by the module (now %.*f %s, threshold %.*f %s)", lane,
					       info->name, side, level, prec, v, info->unit, prec, limit, info->unit);
		else
			apenet_finding_message(f, "%s%s %s %s flagged by the module (now %.*f %s, no thresholds to compare)",
					       lane, info->name, side, level, prec, v, info->unit);
		apenet_finding_evidence(f, "%s", crossed && flagged ? "flag set and threshold crossed"
						 : crossed	     ? "threshold crossed, flag not set (yet)"
						 : x->thresh_ok      ? "flag set (latched); the reading is back within the threshold"
								     : "flag set; no programmed thresholds");
		apenet_finding_rec(f, "%s", mon_rec[id][high ? 0 : 1]);
		return 1;
	}
	return 0;
}

/*
 * A transmitter that is not driven (TX loss of signal) or that shut itself
 * down (TX fault) has no laser current and no light: its low TX bias and
 * TX power follow from the flag.  They are that flag's evidence, not
 * conditions of their own (a low bias alarm says "replace the module", and
 * the module is not what failed when the card does not drive the lane).
 */
static int tx_off(const struct apenet_module_health *h, unsigned k)
{
	return (h->tx_los_ok && (h->tx_los >> k & 1u)) || (h->tx_fault_ok && (h->tx_fault >> k & 1u));
}

/* The TX bias and TX power of lane k, for the evidence of a tx_off() flag. */
static void tx_readings(const struct apenet_module_health *h, unsigned k, char *dst, size_t n)
{
	static const enum apenet_module_mon_id ids[2] = { APENET_MON_TX_BIAS, APENET_MON_TX_POWER };
	size_t used = 0;

	dst[0] = '\0';
	for (int i = 0; i < 2; i++) {
		const struct apenet_module_mon_info *info = apenet_module_mon_info(ids[i]);
		const struct apenet_module_mon *x = &h->mon[ids[i]];
		int prec = msg_prec[ids[i]];
		int r;

		if (!x->present || h->copper)
			continue;
		if (x->thresh_ok)
			r = snprintf(dst + used, n - used, "%s%s %.*f %s (low alarm %.*f %s)", used ? ", " : "; ",
				     info->name, prec, x->value[k], info->unit, prec, x->th.low_alarm, info->unit);
		else
			r = snprintf(dst + used, n - used, "%s%s %.*f %s", used ? ", " : "; ", info->name, prec,
				     x->value[k], info->unit);
		if (r < 0 || (size_t)r >= n - used)
			return;
		used += (size_t)r;
	}
}

/* One status flag (a lane mask) as one finding per lane. */
static int judge_status(const struct apenet_module_health *h, uint8_t mask, const char *code, const char *what,
			const char *rec, int tx, int link, const char *port, struct apenet_findings *out)
{
	int n = 0;

	for (unsigned k = 0; k < h->lanes; k++) {
		char lane[24], readings[128] = "";
		struct apenet_finding *f;

		if (!(mask & (1u << k)))
			continue;
		lane_prefix(lane, sizeof(lane), lane_of(h, 1, k));
		if (tx)
			tx_readings(h, k, readings, sizeof(readings));
		f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_MODULE, link, lane_of(h, 1, k), port, code);
		apenet_finding_message(f, "%s%s", lane, what);
		apenet_finding_evidence(f, "%s status flag set by the module%s", h->spec, readings);
		apenet_finding_rec(f, "%s", rec);
		n++;
	}
	return n;
}

int apenet_rules_module(const struct apenet_module_health *h, int link, const char *port,
			struct apenet_findings *out)
{
	int n = 0;

	for (unsigned i = 0; i < h->ncc; i++) {
		const struct apenet_module_check *c = &h->cc[i];
		struct apenet_finding *f;

		if (c->stored == c->computed)
			continue;
		f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_MODULE, link, -1, port, "MODULE_CHECKSUM");
		apenet_finding_message(f, "%s check code (%s) is wrong: stored 0x%02x, computed 0x%02x", c->name,
				       c->field, c->stored, c->computed);
		apenet_finding_evidence(f, "%s %s: low 8 bits of the sum of the bytes it covers", h->spec, c->field);
		apenet_finding_rec(f, "the EEPROM is corrupt or was misread: reseat the module and read again; if it "
				      "stays, its identity and thresholds cannot be trusted");
	}

	if (h->tx_fault_ok)
		n += judge_status(h, h->tx_fault, "MODULE_TX_FAULT", "transmitter fault",
				  "the module's laser driver reports a fault: reseat the module; if it stays, replace it", 1,
				  link, port, out);
	if (h->rx_los_ok)
		n += judge_status(h, h->rx_los, "MODULE_LOS", "RX loss of signal",
				  "no signal arrives on this lane: check the fibre or cable and that the far end transmits", 0,
				  link, port, out);
	if (h->tx_los_ok)
		n += judge_status(h, h->tx_los, "MODULE_TX_LOS", "TX loss of signal (no electrical input from the card)",
				  "the card does not drive this lane, so the laser stays dark: check that the link is "
				  "enabled (apenet link), then reseat the module; its low bias and power are not its "
				  "fault", 1, link, port, out);
	if (h->lol_ok) {
		n += judge_status(h, h->rx_lol, "MODULE_CDR_LOL", "RX CDR loss of lock",
				  "the module cannot lock to the received signal: check the fibre or cable and the far "
				  "end's transmitter", 0, link, port, out);
		n += judge_status(h, h->tx_lol, "MODULE_CDR_LOL", "TX CDR loss of lock",
				  "the module cannot lock to the card's signal: check the lane's PMA settings, then "
				  "reseat the module", 0, link, port, out);
	}

	for (int id = 0; id < APENET_MON_COUNT; id++) {
		const struct apenet_module_mon_info *info = apenet_module_mon_info((enum apenet_module_mon_id)id);

		/* A copper cable has no optics, whatever its pages claim. */
		if (!h->mon[id].present || (info->optical && h->copper))
			continue;
		for (unsigned k = 0; k < (info->per_lane ? h->lanes : 1u); k++) {
			/* A dark transmitter's low side is its flag's evidence (tx_off). */
			int low = !((id == APENET_MON_TX_BIAS || id == APENET_MON_TX_POWER) && tx_off(h, k));

			n += judge_side(h, (enum apenet_module_mon_id)id, k, 1, link, port, out);
			if (low)
				n += judge_side(h, (enum apenet_module_mon_id)id, k, 0, link, port, out);
		}
	}
	return n;
}

void apenet_rules_module_absent(int link, const char *port, enum apenet_cage cage, struct apenet_findings *out)
{
	struct apenet_finding *f;

	if (cage == APENET_CAGE_NONE)
		return;
	f = apenet_finding_add(out, APENET_SEV_WARN, APENET_SUBJ_MODULE, link, -1, port, "MODULE_ABSENT");
	apenet_finding_message(f, "no module in the %s cage (or its EEPROM cannot be read)",
			       cage == APENET_CAGE_SFP ? "SFP+" : "QSFP+");
	apenet_finding_evidence(f, "EE_STATUS.PRESENT is 0");
	apenet_finding_rec(f, "plug a module or cable, or reseat it");
}

void apenet_rules_module_unreadable(int link, const char *port, const char *why, struct apenet_findings *out)
{
	struct apenet_finding *f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_MODULE, link, -1, port,
						      "MODULE_UNREADABLE");
	apenet_finding_message(f, "the module's pages do not decode: %s", why);
	apenet_finding_rec(f, "reseat the module and read again; if it stays, replace it");
}
