/*
 * Latency determinism (include/apenet/rules_test.h, apenet latency-check):
 * KM3link and APElink carry timing, so every alignment of a link must give
 * the same latency (LINK_LATENCY_PS); two values or more is a fault,
 * however close they are: timing is off by the difference.
 */
#include "apenet/rules_test.h"

enum apenet_ber_verdict apenet_rules_latency(const uint32_t *val, size_t k, size_t n, int link, const char *name,
					     struct apenet_findings *out)
{
	if (k == 1)
		return APENET_BER_PASS;
	if (k > 1) {
		struct apenet_finding *f = apenet_finding_add(out, APENET_SEV_FAIL, APENET_SUBJ_LINK, link, -1, name,
							      "LATENCY_NOT_DETERMINISTIC");
		apenet_finding_message(f, "%s: %zu different latencies in %zu alignments, %u to %u ps", name, k, n, val[0],
				       val[k - 1]);
		apenet_finding_evidence(f, "LINK_LATENCY_PS after each REALIGN");
		apenet_finding_measure(f, (double)(val[k - 1] - val[0]), 0, "ps");
	}
	return APENET_BER_FAIL; /* k == 0: nothing measured, nothing proven */
}
