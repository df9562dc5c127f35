/* The sampler (include/apenet/sampler.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/sampler.h"

int apenet_sampler_open(struct apenet_sampler *s, const char *simdir, const char *bdf, struct apenet_err *e)
{
	memset(s, 0, sizeof(*s));
	if (apenet_site_init(&s->site, simdir, e) || apenet_pci_pick(&s->site, bdf, &s->card, e))
		return -1;
	if (apenet_dev_open_card(&s->dev, &s->site, &s->card, e))
		return -1;
	if (apenet_pci_handle_open(&s->site, s->card.bdf, &s->pci, e)) {
		apenet_dev_close(&s->dev);
		return -1;
	}
	s->open = 1;
	return 0;
}

void apenet_sampler_close(struct apenet_sampler *s)
{
	if (!s->open)
		return;
	apenet_pci_handle_close(s->pci);
	apenet_dev_close(&s->dev);
	free(s->tiers);
	free(s->last);
	s->tiers = NULL;
	s->last = NULL;
	s->open = 0;
}

int apenet_sampler_tiered(struct apenet_sampler *s, struct apenet_err *e)
{
	if (s->tiers)
		return 0;
	s->tiers = malloc(sizeof(*s->tiers));
	s->last = calloc(1, sizeof(*s->last));
	if (!s->tiers || !s->last) {
		free(s->tiers);
		free(s->last);
		s->tiers = NULL;
		s->last = NULL;
		return apenet_err_set(e, APENET_EIO, "out of memory for the tiered reads");
	}
	apenet_tiers_init(s->tiers, s->dev.prof);
	return 0;
}

static void read_ee(struct apenet_dev *d, struct apenet_sample *o)
{
	for (unsigned l = 0; l < d->prof->nlinks; l++) {
		o->ee_status[l] = apenet_rd32(d, apenet_ee_off(l, APENET_EE_STATUS));
		if (!APENET_GET(EE_STATUS, PRESENT, o->ee_status[l]))
			continue;
		/* An SFP's pages end at 512 bytes: the rest of the window is not read. */
		unsigned len = APENET_GET(EE_STATUS, LAYOUT, o->ee_status[l]) == APENET_EE_SFF8472 ? 512u : APENET_EE_DATA_LEN;
		memset(o->ee[l], 0, sizeof(o->ee[l]));
		for (unsigned i = 0; i < len; i += 4) {
			uint32_t w = apenet_rd32(d, apenet_ee_off(l, APENET_EE_DATA + i));
			o->ee[l][i] = (uint8_t)w;
			o->ee[l][i + 1] = (uint8_t)(w >> 8);
			o->ee[l][i + 2] = (uint8_t)(w >> 16);
			o->ee[l][i + 3] = (uint8_t)(w >> 24);
		}
	}
	o->have_modules = 1;
}

int apenet_sampler_take(struct apenet_sampler *s, unsigned flags, struct apenet_sample *o, struct apenet_err *e)
{
	uint64_t before = s->dev.nreads;
	o->have_modules = 0;
	memcpy(o->bdf, s->card.bdf, sizeof(o->bdf));
	if (flags & APENET_SAMPLE_PCIE) {
		if (apenet_pci_handle_read(s->pci, &s->card, e))
			return -1;
		if (s->card.gone)
			return apenet_err_set(e, APENET_EGONE, "card not responding at %s: config space reads all ones",
					      s->card.bdf);
	}
	o->pcie_ok = s->card.pcie_ok;
	o->pcie = s->card.pcie;
	memcpy(o->pcie_err, s->card.pcie_err, sizeof(o->pcie_err));
	o->host_ms = apenet_clock_epoch_ms();
	if (s->tiers) {
		/* from the last snapshot: what this one does not read keeps its value */
		if (apenet_tiers_read(s->tiers, &s->dev, s->last, o->host_ms, e))
			return -1;
		o->snap = *s->last;
	} else if (apenet_snapshot_read(&s->dev, &o->snap, e))
		return -1;
	if (flags & APENET_SAMPLE_MODULES) {
		read_ee(&s->dev, o);
		/* the card may have left while we read the EEPROM windows */
		if (apenet_dev_check(&s->dev, e))
			return -1;
	}
	o->reads = s->dev.nreads - before;
	return 0;
}

void apenet_view_pair(struct apenet_view *v, const struct apenet_sample *a, const struct apenet_sample *b)
{
	/* Every field is set below, and the 5 KB of module pages only when a
	 * sample has them (their EE_STATUS is zero otherwise, so no rule looks):
	 * the agent makes a view every period. */
	v->prof = b->snap.prof;
	memcpy(v->bdf, b->bdf, sizeof(v->bdf));
	v->s0 = a->snap;
	v->s1 = b->snap;
	v->host_ms[0] = a->host_ms;
	v->host_ms[1] = b->host_ms;
	v->pcie_ok = b->pcie_ok;
	v->pcie = b->pcie;
	memcpy(v->pcie_err, b->pcie_err, sizeof(v->pcie_err));
	const struct apenet_sample *m = b->have_modules ? b : a->have_modules ? a : NULL;
	if (m) {
		memcpy(v->ee_status, m->ee_status, sizeof(v->ee_status));
		memcpy(v->ee, m->ee, sizeof(v->ee));
	} else {
		memset(v->ee_status, 0, sizeof(v->ee_status));
	}
	memcpy(v->source, "live", sizeof("live"));
	v->nsamples = 0;
	v->pair[0] = v->pair[1] = 0;
	v->reads = a == b ? b->reads : a->reads + b->reads;
}
