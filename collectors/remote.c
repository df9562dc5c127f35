/* The remote-register window, host side (apenet/remote.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/remote.h"

/* Polling: the first reads back to back (a read is ~1 us on a real bus and
 * the answer takes a few), then naps from NAP_MIN_US doubling to NAP_MAX_US,
 * each cut to the time left before the deadline. */
#define SPIN_READS 32
#define NAP_MIN_US 20
#define NAP_MAX_US 1000


static void nap_us(int64_t us)
{
	if (us <= 0)
		return;
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	nanosleep(&ts, NULL); /* a signal ends it early: the caller's loop looks at the clock */
}

struct poller {
	struct apenet_dev *d;
	struct apenet_deadline dl; /* on the host's and the card's clocks (apenet/dev.h) */
	unsigned polls;
	int64_t nap;
};

/* Wait before the next poll; 0 when the deadline has passed. */
static int poll_wait(struct poller *p)
{
	if (apenet_deadline_passed(p->d, &p->dl))
		return 0;
	int64_t left = apenet_deadline_left_us(&p->dl);
	if (left <= 0)
		left = NAP_MAX_US; /* passed on the host's clock, not yet on the card's */
	if (++p->polls <= SPIN_READS)
		return 1;
	nap_us(p->nap < left ? p->nap : left);
	p->nap = p->nap * 2 > NAP_MAX_US ? NAP_MAX_US : p->nap * 2;
	return 1;
}

/* "LINK_LDM_RX of link 2", "LANE_PRBS_BITS of lane 1 of link 3", or the
 * offset: a register name for messages (the offset is in the partner's map). */
static void reg_name(uint32_t off, char *buf, size_t n)
{
	unsigned cnt;
	const struct apenet_regdesc *r;
	if (off < APENET_LINK_BASE) {
		r = apenet_regdescs(APENET_BLK_GLOBAL, &cnt);
		for (unsigned i = 0; i < cnt; i++)
			if (r[i].off == off) {
				snprintf(buf, n, "%s (0x%04x)", r[i].name, off);
				return;
			}
	} else if (off < APENET_LINK_BASE + APENET_MAX_LINKS * APENET_LINK_STRIDE) {
		unsigned l = (off - APENET_LINK_BASE) / APENET_LINK_STRIDE;
		uint32_t in = (off - APENET_LINK_BASE) % APENET_LINK_STRIDE;
		if (in < APENET_LANE_BASE) {
			r = apenet_regdescs(APENET_BLK_LINK, &cnt);
			for (unsigned i = 0; i < cnt; i++)
				if (r[i].off == in) {
					snprintf(buf, n, "%s of its link %u (0x%04x)", r[i].name, l, off);
					return;
				}
		} else if (in < APENET_LANE_BASE + APENET_MAX_LANES * APENET_LANE_STRIDE) {
			unsigned k = (in - APENET_LANE_BASE) / APENET_LANE_STRIDE;
			uint32_t lr = (in - APENET_LANE_BASE) % APENET_LANE_STRIDE;
			r = apenet_regdescs(APENET_BLK_LANE, &cnt);
			for (unsigned i = 0; i < cnt; i++)
				if (r[i].off == lr) {
					snprintf(buf, n, "%s of lane %u of its link %u (0x%04x)", r[i].name, k, l, off);
					return;
				}
		}
	}
	snprintf(buf, n, "offset 0x%04x", off);
}

/* "link X+ (to node 1,0,0, its port 1)" */
static void link_name(struct apenet_dev *d, unsigned link, char *buf, size_t n)
{
	uint32_t p = apenet_rd32(d, apenet_link_off(link, APENET_LINK_PARTNER));
	const char *name = d->prof && link < d->prof->nlinks ? d->prof->links[link].name : "?";
	if (p != APENET_ALL_ONES && APENET_GET(LINK_PARTNER, VALID, p) && !APENET_GET(LINK_PARTNER, EXTERNAL, p))
		snprintf(buf, n, "link %s (to node %u,%u,%u, its port %u)", name, APENET_GET(LINK_PARTNER, X, p),
			 APENET_GET(LINK_PARTNER, Y, p), APENET_GET(LINK_PARTNER, Z, p), APENET_GET(LINK_PARTNER, PORT, p));
	else
		snprintf(buf, n, "link %s", name);
}

int apenet_remote_supported(struct apenet_dev *d, struct apenet_err *e)
{
	uint32_t caps = apenet_rd32(d, APENET_REG_ID_CAPS);
	if (caps == APENET_ALL_ONES && apenet_dev_check(d, e))
		return -1;
	return (int)APENET_GET(ID_CAPS, RMT, caps);
}

int apenet_remote_access(struct apenet_dev *d, struct apenet_remote_req *r, int timeout_ms, struct apenet_err *e)
{
	int64_t start = apenet_clock_mono_us();
	if (!d->prof || r->link >= d->prof->nlinks)
		return apenet_err_set(e, APENET_EINVAL, "%s: no link %u (the %s has %u)", d->bdf, r->link,
				      d->prof ? d->prof->name : "card", d->prof ? d->prof->nlinks : 0);
	if (r->op > APENET_RMT_WRITE)
		return apenet_err_set(e, APENET_EINVAL, "%s: remote window: no operation %u", d->bdf, r->op);
	if (r->off % 4 || r->off >= APENET_BAR_SIZE)
		return apenet_err_set(e, APENET_EINVAL, "%s: remote window: 0x%x is not a register offset in BAR0",
				      d->bdf, r->off);
	int sup = apenet_remote_supported(d, e);
	if (sup < 0)
		return -1;
	if (!sup) {
		uint32_t v = apenet_rd32(d, APENET_REG_ID_FW_VERSION);
		return apenet_err_set(e, APENET_ENOTSUP,
				      "%s: the card has no remote-register window (ID_CAPS.RMT is 0, firmware %u.%u.%u): "
				      "its partners' registers cannot be reached through the links",
				      d->bdf, APENET_GET(ID_FW_VERSION, MAJOR, v), APENET_GET(ID_FW_VERSION, MINOR, v),
				      APENET_GET(ID_FW_VERSION, PATCH, v));
	}
	if (apenet_dev_lock(d, timeout_ms, e))
		return -1;
	struct poller p = { .d = d, .nap = NAP_MIN_US };
	int64_t spent_ms = (apenet_clock_mono_us() - start) / 1000; /* waiting for the lock */
	apenet_deadline_start(d, timeout_ms > spent_ms ? (int)(timeout_ms - spent_ms) : 0, &p.dl);
	int rc = -1;
	/* A request another tool rang and never waited for (killed meanwhile)
	 * may still be in flight: its answer must not be taken for ours. */
	uint32_t st;
	for (;;) {
		st = apenet_rd32(d, APENET_REG_RMT_STATUS);
		uint32_t ctrl = apenet_rd32(d, APENET_REG_RMT_CTRL);
		if ((st == APENET_ALL_ONES || ctrl == APENET_ALL_ONES) && apenet_dev_check(d, e))
			goto out;
		if (APENET_GET(RMT_CTRL, SEQ, ctrl) == APENET_GET(RMT_STATUS, DONE_SEQ, st) &&
		    !APENET_GET(RMT_STATUS, BUSY, st))
			break;
		if (!poll_wait(&p)) {
			apenet_err_set(e, APENET_ETIMEDOUT,
				       "%s: the remote window is still busy with an earlier request (%u, from a tool that "
				       "did not wait for it) after %d ms: DNP hung?",
				       d->bdf, APENET_GET(RMT_CTRL, SEQ, ctrl), timeout_ms);
			goto out;
		}
	}
	uint32_t seq = (APENET_GET(RMT_STATUS, DONE_SEQ, st) + 1) & 0xffffu;
	apenet_wr32(d, APENET_REG_RMT_ADDR, r->off);
	apenet_wr32(d, APENET_REG_RMT_WDATA, r->op == APENET_RMT_WRITE ? r->wdata : 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* ADDR and WDATA land before the doorbell */
	apenet_wr32(d, APENET_REG_RMT_CTRL, APENET_SET(RMT_CTRL, OP, r->op) | APENET_SET(RMT_CTRL, LINK, r->link) |
						    APENET_SET(RMT_CTRL, SEQ, seq));
	p.polls = 0;
	p.nap = NAP_MIN_US;
	for (;;) {
		st = apenet_rd32(d, APENET_REG_RMT_STATUS);
		if (st == APENET_ALL_ONES && apenet_dev_check(d, e))
			goto out;
		if (APENET_GET(RMT_STATUS, DONE_SEQ, st) == seq && !APENET_GET(RMT_STATUS, BUSY, st))
			break;
		if (!poll_wait(&p)) {
			char ln[96];
			link_name(d, r->link, ln, sizeof(ln));
			apenet_err_set(e, APENET_ETIMEDOUT,
				       "%s: the firmware did not finish remote request %u on %s within %d ms (%s)", d->bdf,
				       seq, ln, timeout_ms,
				       APENET_GET(RMT_STATUS, BUSY, st) ? "sent, its answer not in: DNP hung?"
									 : "not taken: DNP hung?");
			goto out;
		}
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	r->result = APENET_GET(RMT_STATUS, RESULT, st);
	r->rdata = apenet_rd64(d, APENET_REG_RMT_RDATA);
	r->rtt_ticks = apenet_rd32(d, APENET_REG_RMT_RTT);
	rc = 0;
out:
	apenet_dev_unlock(d);
	return rc;
}

/* The request's result as an error, named. */
static int judge(struct apenet_dev *d, const struct apenet_remote_req *r, struct apenet_err *e)
{
	if (r->result == APENET_RMT_OK)
		return 0;
	char ln[96], reg[96];
	link_name(d, r->link, ln, sizeof(ln));
	reg_name(r->off, reg, sizeof(reg));
	const char *what = r->op == APENET_RMT_WRITE ? "write" : "read";
	switch (r->result) {
	case APENET_RMT_LINK_DOWN:
		return apenet_err_set(e, APENET_ELINK, "%s: %s is down or training: a remote %s rides on the link itself",
				      d->bdf, ln, what);
	case APENET_RMT_LINK_PRBS:
		return apenet_err_set(e, APENET_ELINK,
				      "%s: %s runs PRBS test patterns at this end or the partner's: it carries no packets "
				      "until the test ends (PRBS_RUN_MS ends a far run by itself)",
				      d->bdf, ln);
	case APENET_RMT_NO_PARTNER:
		return apenet_err_set(e, APENET_ELINK,
				      "%s: %s has no DNP at the far end (no cable, or an external device): nothing to %s",
				      d->bdf, ln, what);
	case APENET_RMT_NO_ANSWER:
		return apenet_err_set(e, APENET_ETIMEDOUT,
				      "%s: the partner on %s did not answer a remote %s within %u us: its DNP is hung, or "
				      "its firmware has no remote window",
				      d->bdf, ln, what, APENET_RMT_ANSWER_US);
	case APENET_RMT_DENIED:
		return apenet_err_set(e, APENET_EINVAL,
				      "%s: the partner on %s refused to %s %s: not in its remote window (its identity "
				      "and the PRBS and PMA registers of the lanes facing this link; writes only "
				      "LANE_PRBS_CTRL and LANE_PRBS_RUN_MS)",
				      d->bdf, ln, what, reg);
	case APENET_RMT_BADREQ:
		return apenet_err_set(e, APENET_EINVAL, "%s: the firmware refused remote request on %s as malformed",
				      d->bdf, ln);
	default:
		return apenet_err_set(e, APENET_EINVAL, "%s: remote %s on %s: RMT_STATUS.RESULT %u is not a result",
				      d->bdf, what, ln, r->result);
	}
}

int apenet_remote_read(struct apenet_dev *d, unsigned link, uint32_t off, uint64_t *val, int timeout_ms,
		       struct apenet_err *e)
{
	struct apenet_remote_req r = { .link = link, .op = APENET_RMT_READ, .off = off };
	if (apenet_remote_access(d, &r, timeout_ms, e) || judge(d, &r, e))
		return -1;
	*val = r.rdata;
	return 0;
}

int apenet_remote_write(struct apenet_dev *d, unsigned link, uint32_t off, uint32_t val, int timeout_ms,
			struct apenet_err *e)
{
	struct apenet_remote_req r = { .link = link, .op = APENET_RMT_WRITE, .off = off, .wdata = val };
	if (apenet_remote_access(d, &r, timeout_ms, e) || judge(d, &r, e))
		return -1;
	return 0;
}

int apenet_remote_lane_off(struct apenet_dev *d, unsigned link, unsigned lane, unsigned reg, uint32_t *off,
			   struct apenet_err *e)
{
	if (!d->prof || link >= d->prof->nlinks)
		return apenet_err_set(e, APENET_EINVAL, "%s: no link %u", d->bdf, link);
	if (lane >= APENET_MAX_LANES || reg >= APENET_LANE_STRIDE)
		return apenet_err_set(e, APENET_EINVAL, "%s: no lane %u register 0x%x", d->bdf, lane, reg);
	uint32_t p = apenet_rd32(d, apenet_link_off(link, APENET_LINK_PARTNER));
	if (p == APENET_ALL_ONES && apenet_dev_check(d, e))
		return -1;
	if (!APENET_GET(LINK_PARTNER, VALID, p))
		return apenet_err_set(e, APENET_ELINK, "%s: link %s: the partner is not known (the link never aligned)",
				      d->bdf, d->prof->links[link].name);
	if (APENET_GET(LINK_PARTNER, EXTERNAL, p))
		return apenet_err_set(e, APENET_ELINK, "%s: link %s faces an external device, not a DNP", d->bdf,
				      d->prof->links[link].name);
	*off = apenet_lane_off(APENET_GET(LINK_PARTNER, PORT, p), lane, reg);
	return 0;
}
