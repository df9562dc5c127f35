/*
 * PMA presets: a sweep's choice for one link's lanes, kept by `apenet sweep
 * --save NAME` as NAME.yaml in the presets directory (agent.pma_presets_dir)
 * and applied by the node agents at start: each agent writes the half its
 * own card owns (the transmitter's four settings on the transmitting node's
 * link, the receiver's two on the receiving node's), so that one file in a
 * directory every node shares sets both ends of a cable.  bertest/preset.c.
 *
 *   name: x0-xplus
 *   lanes: "0,1,2,3"
 *   transmitter:
 *     node: "1,0,0"
 *     link: "X-"
 *     vod: 4
 *     pre: 2
 *     post1: 3
 *     post2: 0
 *   receiver:
 *     node: "0,0,0"
 *     link: "X+"
 *     rxeq: 8
 *     dcgain: 4
 */
#ifndef APENET_PRESET_H
#define APENET_PRESET_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/dev.h"
#include "apenet/err.h"

#define APENET_PRESET_NAME_MAX 64

struct apenet_preset {
	char name[APENET_PRESET_NAME_MAX];
	uint32_t lanes;          /* mask */
	unsigned tx_node[3];
	char tx_link[8];
	unsigned rx_node[3];
	char rx_link[8];
	uint8_t v[6];            /* vod, pre, post1, post2 (the transmitter's), rxeq, dcgain (the receiver's) */
};

/* Letters, digits, '-', '_', '.' (not first): a file name of its own. */
int apenet_preset_name_ok(const char *name);
/* dir/NAME.yaml, written whole (a temporary file, fsync, rename); the path
 * written into path. */
int apenet_preset_write(const char *dir, const struct apenet_preset *p, char *path, size_t n, struct apenet_err *e);
/* Reads one through the YAML loader: errors say file:line:column. */
int apenet_preset_load(const char *path, struct apenet_preset *p, struct apenet_err *e);
/* Writes the settings of p this card owns (its node is the transmitter's,
 * the receiver's, or both); how many lanes each got (0 and 0: p is not
 * about this card).  -1 when the card is gone or lacks the link. */
int apenet_preset_apply(struct apenet_dev *d, const struct apenet_preset *p, unsigned *tx_lanes, unsigned *rx_lanes,
			struct apenet_err *e);

#endif
