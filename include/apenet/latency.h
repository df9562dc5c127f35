/*
 * Latency determinism (issue 10, `apenet latency-check`): KM3link and
 * APElink carry timing, so a link must come out of every alignment with the
 * same latency.  The card measures the one-way latency at each alignment
 * (LINK_LATENCY_PS, ID_CAPS.LATENCY); a check realigns the link N times
 * and counts the values.  docs/design.md, "The remote-register window and
 * link latency".
 */
#ifndef APENET_LATENCY_H
#define APENET_LATENCY_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/dev.h"

/*
 * One reset: the REALIGN command on link, then a wait (timeout_ms in all)
 * until the link is up again from a new alignment (LINK_UP_TS moved) and
 * LINK_LATENCY_PS holds its measurement.  0 with *ps; -1 with e:
 *   APENET_ENOTSUP   the card does not measure latency (ID_CAPS.LATENCY 0)
 *   APENET_ETIMEDOUT the link did not come back up in time (its state named)
 *   APENET_EGONE     the card reads all ones
 *   and what apenet_dev_command returns.
 */
int apenet_latency_realign(struct apenet_dev *d, unsigned link, int timeout_ms, uint32_t *ps, struct apenet_err *e);

/* Distinct values of ps[0..n) with their counts, ascending, into val/cnt
 * (room for n); how many.  Pure. */
size_t apenet_latency_hist(const uint32_t *ps, size_t n, uint32_t *val, unsigned *cnt);

#endif
