/*
 * APENET-MIB's cluster tables (apenetNodeTable, apenetIncidentTable): a
 * supervisor's view of the whole machine from its health database, served
 * over AgentX so that a site NMS polling one host sees every node.  Rows
 * come and go (nodes heard outside the layout, incidents opened and
 * closed): each fill sets them again (apenet_mib_set_rows).  Reads go
 * through the db/ library, like every other reader.
 */
#ifndef APENET_MIB_CLUSTER_H
#define APENET_MIB_CLUSTER_H

#include <stdint.h>

#include "apenet/hdb.h"
#include "apenet/mibtab.h"

struct apenet_mib_cluster_in {
	struct apenet_hdb *db;
	int64_t now_ms;
	int64_t silence_ms;   /* the supervisor's silent_ms: a node not heard for this long is silent */
};

int apenet_mib_cluster_init(struct apenet_mib *m, struct apenet_err *e);
/* Every row and value from the database; on an error the tables are left
 * empty (an NMS sees no rows rather than wrong ones) and e says why. */
int apenet_mib_cluster_fill(struct apenet_mib *m, const struct apenet_mib_cluster_in *in, struct apenet_err *e);

#endif
