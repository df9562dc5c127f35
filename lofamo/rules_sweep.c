/*
 * A sweep's verdict (include/apenet/rules_test.h): the setting it chose
 * passes when its upper bound at the confidence is at or below the
 * target.  A sweep that --max-time ended first proves nothing either way:
 * inconclusive (SWEEP_INCOMPLETE), and nothing is applied; one that
 * measured everything it meant to without such a setting fails
 * (SWEEP_NO_SETTING).  Codes: docs/verdicts.md.
 */
#include <stdio.h>

#include "apenet/rules_test.h"
#include "apenet/timeparse.h"

enum apenet_ber_verdict apenet_rules_sweep(const struct apenet_sweep_result *r, int link, const char *name,
					   struct apenet_findings *out)
{
	struct apenet_finding *f;
	if (r->best_upper <= r->target)
		return APENET_BER_PASS;
	if (r->timed_out) {
		char m[24];
		f = apenet_finding_add(out, APENET_SEV_WARN, APENET_SUBJ_LINK, link, -1, name, "SWEEP_INCOMPLETE");
		apenet_finding_message(f, "%s: inconclusive: the sweep reached --max-time (%s) after %zu points, before a "
					  "setting below %.3g was proven (best upper bound %.3g)",
				       name, apenet_duration_str(r->max_s, m, sizeof(m)), r->points, r->target, r->best_upper);
		return APENET_BER_CONTINUE;
	}
	f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_LINK, link, -1, name, "SWEEP_NO_SETTING");
	apenet_finding_message(f, "%s: no setting measured below %.3g at %.3g confidence (best upper bound %.3g)", name,
			       r->target, r->cl, r->best_upper);
	return APENET_BER_FAIL;
}
