/*
 * The BER tests' verdicts (include/apenet/rules_test.h): a lane proven
 * above its target (apenet ber), a test that ended before it proved
 * anything, and a cable's certificate (apenet qualify).  The statistics
 * that decide PASS and FAIL are lofamo/ber_stats.c's; these say what the
 * decision means, with the stable codes of docs/verdicts.md.  A test that
 * did not run long enough is a warning that says how much longer would
 * do, never a reason to replace anything.
 */
#include <math.h>
#include <stdio.h>

#include "apenet/rules_test.h"
#include "apenet/timeparse.h"

/*
 * The --max-time that allows an inconclusive test to decide: what ran plus
 * what is missing at this rate, with room.  The margin and the slack cover
 * what the rate leaves out: the PRBS start and stop at both ends (about
 * half a second a run, docs/ber.md), another run for a far lane that saw
 * errors, and a rate that varies on a loaded host.
 */
#define ALLOW_MARGIN 1.25
#define ALLOW_SLACK_S 10.0

const char *apenet_rules_ber_verdict_word(enum apenet_ber_verdict v)
{
	return v == APENET_BER_PASS ? "pass" : v == APENET_BER_FAIL ? "fail" : "inconclusive";
}

void apenet_rules_ber_lane(const struct apenet_ber_lane_result *r, int link, const char *name, double target, double cl,
			   struct apenet_findings *out)
{
	if (r->verdict != APENET_BER_FAIL)
		return;
	struct apenet_finding *f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_LANE, link, (int)r->lane, name,
						      "BER_FAIL");
	apenet_finding_message(f, "%s lane %u%s: BER above %.3g at %.3g confidence (%llu errors in %llu bits)", name, r->lane,
			       r->dir < 0 ? "" : r->dir == 1 ? " (this end -> far end)" : " (far end -> this end)", target, cl,
			       (unsigned long long)r->errors, (unsigned long long)r->bits);
	apenet_finding_measure(f, r->lower, target, "");
	apenet_finding_evidence(f, "LANE_PRBS_ERRS / LANE_PRBS_BITS, lower bound %.3g", r->lower);
}

/* An inconclusive test (what: "the test", "the test of cable S") as CODE. */
static void not_proven(const struct apenet_ber_short *s, int link, const char *name, const char *code, const char *what,
		       struct apenet_findings *out)
{
	struct apenet_finding *f = apenet_finding_add(out, APENET_SEV_WARN, APENET_SUBJ_LINK, link, -1, name, code);
	apenet_finding_measure(f, isfinite(s->more_bits) ? s->more_bits : -1, 0, "bits");
	apenet_finding_evidence(f, "%llu errors, at least %.3g bits a lane checked in %.1f s; upper bound above %.3g",
				(unsigned long long)s->errors, (double)s->least_bits, s->elapsed_s, s->target);
	if (!isfinite(s->more_bits)) {
		apenet_finding_message(f, "%s: inconclusive: %s neither proves nor disproves %.3g at %.3g confidence with the "
					  "errors it saw",
				       name, what, s->target, s->cl);
		return;
	}
	char dur[24], lim[24];
	double secs = s->lane_bps > 0 ? s->more_bits / s->lane_bps : -1;
	double allow = ceil((s->elapsed_s + secs) * ALLOW_MARGIN + ALLOW_SLACK_S);
	apenet_finding_message(f, "%s: inconclusive: %s did not run long enough to prove %.3g at %.3g confidence; %.3g more "
				  "bits a lane (about %s at this rate) would prove it if no more errors come",
			       name, what, s->target, s->cl, s->more_bits, apenet_duration_str(secs, dur, sizeof(dur)));
	apenet_finding_rec_fact(f, "--max-time %.0f (%s) allows it", allow, apenet_duration_str(allow, lim, sizeof(lim)));
}

void apenet_rules_ber_not_proven(const struct apenet_ber_short *s, int link, const char *name,
				 struct apenet_findings *out)
{
	not_proven(s, link, name, "BER_NOT_PROVEN", "the test", out);
}

void apenet_rules_cable(const struct apenet_cable_result *r, int link, const char *name, struct apenet_findings *out)
{
	if (r->verdict == APENET_BER_PASS)
		return;
	if (r->verdict == APENET_BER_CONTINUE) {
		char what[96];
		snprintf(what, sizeof(what), "the test of cable %s", r->serial);
		not_proven(&r->test, link, name, "CABLE_INCONCLUSIVE", what, out);
		return;
	}
	char how[200] = "";
	if (r->swept)
		snprintf(how, sizeof(how), " even at the setting a sweep chose");
	else if (r->not_swept)
		snprintf(how, sizeof(how), " at the settings it has (not swept: %s)", r->not_swept);
	struct apenet_finding *f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_LINK, link, -1, name,
						      "CABLE_NOT_QUALIFIED");
	apenet_finding_message(f, "%s: cable %s fails %.3g at %.3g confidence%s (%llu errors in %llu bits)", name, r->serial,
			       r->test.target, r->test.cl, how, (unsigned long long)r->errors, (unsigned long long)r->bits);
}
