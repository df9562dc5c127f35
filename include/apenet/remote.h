/*
 * The remote-register window: a tool on one node reads or writes registers
 * of the card at the far end of a link, through the link itself (RMT_* in
 * apenet/regs.h; docs/design.md, "The remote-register window").  The far
 * card lets its partner reach its identity and the PRBS and PMA registers
 * of the lanes facing it (PMA writes provisional: APENET_RMT_PMA_REVERT_MS),
 * so that a BER test can run the generator at one end and the checker at
 * the other, and a sweep set both ends, from one host.
 *
 * Every call holds the card's command lock (apenet_dev_lock) while its
 * request is in flight, so two tools never mix their requests, and waits
 * with a deadline the caller gives: it polls RMT_STATUS, a few reads at
 * first (an answer takes microseconds on a card), then naps that grow to
 * 1 ms and never run past the deadline.
 */
#ifndef APENET_REMOTE_H
#define APENET_REMOTE_H

#include <stdint.h>

#include "apenet/dev.h"

struct apenet_remote_req {
	unsigned link;      /* this card's link the request goes out on */
	unsigned op;        /* enum apenet_rmt_op */
	uint32_t off;       /* a BAR0 offset in the partner's own register map */
	uint32_t wdata;     /* the value to write (APENET_RMT_WRITE) */
	/* filled in by apenet_remote_access */
	uint32_t result;    /* enum apenet_rmt_result */
	uint64_t rdata;     /* the value read (32-bit registers zero-extended) */
	uint32_t rtt_ticks; /* RMT_RTT after the request: the last answered round trip, TIMESTAMP ticks */
};

/* 1 when the card has the window (ID_CAPS.RMT), 0 when it does not, -1
 * (APENET_EGONE) when it reads all ones. */
int apenet_remote_supported(struct apenet_dev *d, struct apenet_err *e);

/*
 * One request through the window; timeout_ms covers everything (the lock,
 * a request some killed tool left in flight, the answer).  0 when the
 * firmware finished the request: r->result says how, and the caller judges
 * it.  -1 when it could not be made or did not finish:
 *   APENET_ENOTSUP   the card has no window (ID_CAPS.RMT is 0)
 *   APENET_EINVAL    link, op or offset out of range
 *   APENET_EBUSY     the command lock did not come free in time
 *   APENET_ETIMEDOUT the firmware did not finish the request in time (hung?)
 *   APENET_EGONE     the card reads all ones
 */
int apenet_remote_access(struct apenet_dev *d, struct apenet_remote_req *r, int timeout_ms, struct apenet_err *e);

/*
 * A read (64-bit registers whole) or a 32-bit write of the partner's
 * register at off.  Every result but APENET_RMT_OK is an error too, with a
 * message naming the link, the partner and the register:
 *   LINK_DOWN, LINK_PRBS, NO_PARTNER  APENET_ELINK
 *   NO_ANSWER                         APENET_ETIMEDOUT
 *   DENIED, BADREQ                    APENET_EINVAL
 * The address is not checked here: the partner decides what it lets through
 * (a newer firmware may allow more).
 */
int apenet_remote_read(struct apenet_dev *d, unsigned link, uint32_t off, uint64_t *val, int timeout_ms,
		       struct apenet_err *e);
int apenet_remote_write(struct apenet_dev *d, unsigned link, uint32_t off, uint32_t val, int timeout_ms,
			struct apenet_err *e);

/*
 * The partner's BAR0 offset of lane register reg (APENET_LANE_*) of lane
 * `lane` in the lane block facing this card's link: the partner's port comes
 * from LINK_PARTNER.  -1 with APENET_ELINK when the partner is not known
 * (VALID 0: the link never aligned) or is not a torus node (EXTERNAL).
 */
int apenet_remote_lane_off(struct apenet_dev *d, unsigned link, unsigned lane, unsigned reg, uint32_t *off,
			   struct apenet_err *e);

#endif
