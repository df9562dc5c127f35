/*
 * The host's part of the node's LDM (LDM_HOST; docs/agent.md, "LDM_HOST").
 *
 * The DNP composes its LDM from what it sees itself (DNP core, sensors,
 * links) and merges three fields the host writes into LDM_HOST: the service
 * network, the host's memory and the peripheral (the card's PCIe link).
 * Through the torus the neighbours then learn them even when this host can
 * no longer speak.  These functions decide each field from what the agent
 * read; the daemon writes the word every period it changes.
 */
#include <stdio.h>

#include "apenet/agent.h"
#include "apenet/verdict.h"

/* The reason is for people (agent-status, a transition's message): an agent
 * that only needs the status passes n = 0 and formats nothing, every period. */
#define WHY(...) \
	do { \
		if (n) \
			snprintf(why, n, __VA_ARGS__); \
	} while (0)

unsigned apenet_host_memory(const struct apenet_edac *e, double ce_sick_per_hour, const struct apenet_thresholds *t,
			    char *why, size_t n)
{
	if (!e->present) {
		WHY("no EDAC memory controller: memory errors cannot be seen");
		return APENET_H_NORMAL;
	}
	if (e->ue > 0) {
		WHY("%llu uncorrected memory errors (EDAC, %u controllers)", (unsigned long long)e->ue,
			 e->controllers);
		return APENET_H_BROKEN;
	}
	double rate, lower;
	if (e->window_s > 0 && apenet_rules_rate_proven(e->ce_window, e->window_s, ce_sick_per_hour, 3600, t, &rate, &lower)) {
		WHY("%llu corrected memory errors in %.0f s: at least %.3g/h at %g%% confidence (sick at %g/h)",
			 (unsigned long long)e->ce_window, e->window_s, lower, t->rate_confidence * 100, ce_sick_per_hour);
		return APENET_H_SICK;
	}
	WHY("EDAC: %llu corrected, 0 uncorrected errors (%u controllers)", (unsigned long long)e->ce,
		 e->controllers);
	return APENET_H_NORMAL;
}

unsigned apenet_host_peripheral(int pcie_ok, const struct apenet_pcie_info *p, char *why, size_t n)
{
	if (!pcie_ok) {
		WHY("the card's PCIe capability is unreadable");
		return APENET_H_SICK;
	}
	if (p->has_aer && (p->aer_uncor_status & ~p->aer_uncor_mask)) {
		WHY("uncorrectable PCIe errors logged (AER 0x%08x)", p->aer_uncor_status & ~p->aer_uncor_mask);
		return APENET_H_BROKEN;
	}
	if (p->degraded) {
		WHY("PCIe trained at gen%u x%u, below the card's gen%u x%u", p->sta_gen, p->sta_width,
			 p->cap_gen, p->cap_width);
		return APENET_H_SICK;
	}
	if (p->has_aer && (p->aer_cor_status & ~p->aer_cor_mask)) {
		WHY("correctable PCIe errors logged (AER 0x%08x)", p->aer_cor_status & ~p->aer_cor_mask);
		return APENET_H_SICK;
	}
	WHY("PCIe gen%u x%u as capable, no AER errors", p->sta_gen, p->sta_width);
	return APENET_H_NORMAL;
}

unsigned apenet_host_service(unsigned configured, unsigned acking, double since_last_ack_s, double timeout_s)
{
	if (configured == 0 || acking >= configured)
		return APENET_H_NORMAL;
	if (acking > 0)
		return APENET_H_SICK;
	return since_last_ack_s >= timeout_s ? APENET_H_BROKEN : APENET_H_SICK;
}

static uint32_t clamp(unsigned h)
{
	return h > APENET_H_BROKEN ? APENET_H_BROKEN : h;
}

uint32_t apenet_ldm_host_word(unsigned service, unsigned memory, unsigned peripheral)
{
	return (APENET_SET(LDM, SERVICE, clamp(service)) | APENET_SET(LDM, MEMORY, clamp(memory)) |
		APENET_SET(LDM, PERIPHERAL, clamp(peripheral))) &
	       APENET_LDM_HOST_MASK;
}
