/*
 * APENET-MIB's node tables (apenetCardTable .. apenetWatchdogTable) of one
 * card, filled from what the node agent already has after each period: its
 * latest pair of samples, the judge's raised findings and the watchdog's
 * state.  Nothing here reads the card: a walk is served from the cache of
 * the last period (include/apenet/mibtab.h).
 */
#ifndef APENET_MIB_NODE_H
#define APENET_MIB_NODE_H

#include <stdint.h>

#include "apenet/agent.h"
#include "apenet/config.h"
#include "apenet/finding.h"
#include "apenet/hdb.h"
#include "apenet/mibtab.h"
#include "apenet/module.h"
#include "apenet/view.h"

struct apenet_mib_node_in {
	const struct apenet_view *v;          /* s1: the latest sample; s0: the one before */
	const struct apenet_config *cfg;
	const struct apenet_findings *raised; /* the judge's findings raised now */
	const struct apenet_wd *wd;           /* the host's watchdog state machine; NULL: none */
	uint32_t host_hb;                     /* the last value written to WD_HOST_HB */
	int64_t now_ms;                       /* host time now, for the sample's age */
	uint64_t periods;
	/* each link's cable: its module's serial ("" unknown) and its latest
	 * certificate (NULL: none); NULL arrays: nothing known */
	const char (*serial)[17];
	const struct apenet_hdb_cert *const *cert;
	/* each link's module as last decoded (NULL: none, not read yet or
	 * undecodable); NULL array: nothing known */
	const struct apenet_module_health *const *module;
};

/* The tables of a card of profile prof (rows: its links and lanes), card
 * index card_index (1 for the first). */
int apenet_mib_node_init(struct apenet_mib *m, const struct apenet_profile *prof, unsigned card_index,
			 struct apenet_err *e);
/* Every value from in (the set's refresh callback calls it). */
void apenet_mib_node_fill(struct apenet_mib *m, const struct apenet_mib_node_in *in);

#endif
