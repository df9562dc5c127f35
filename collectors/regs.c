/* Descriptor tables built from the X-macro lists of apenet/regs.h. */
#include <stddef.h>
#include <string.h>

#include "apenet/regs.h"

#define X_DESC(n, o, b, a, u, d) { #n, (o), (b), APENET_##a, (u), (d) },
#define F_DESC(r, f, l, w, d) { #r, #f, (l), (w), (d) },

static const struct apenet_regdesc regs_global[] = { APENET_GLOBAL_REGS(X_DESC) };
static const struct apenet_regdesc regs_link[] = { APENET_LINK_REGS(X_DESC) };
static const struct apenet_regdesc regs_lane[] = { APENET_LANE_REGS(X_DESC) };
static const struct apenet_regdesc regs_ee[] = { APENET_EE_REGS(X_DESC) };
static const struct apenet_fielddesc fields[] = { APENET_FIELDS(F_DESC) };

#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

const struct apenet_regdesc *apenet_regdescs(enum apenet_block b, unsigned *n)
{
	switch (b) {
	case APENET_BLK_GLOBAL: *n = N(regs_global); return regs_global;
	case APENET_BLK_LINK: *n = N(regs_link); return regs_link;
	case APENET_BLK_LANE: *n = N(regs_lane); return regs_lane;
	case APENET_BLK_EE: *n = N(regs_ee); return regs_ee;
	default: *n = 0; return NULL;
	}
}

const struct apenet_fielddesc *apenet_fielddescs(unsigned *n)
{
	*n = N(fields);
	return fields;
}

const char *apenet_access_name(enum apenet_access a)
{
	static const char *names[] = { "RO", "RW", "W1C", "CMD" };
	return (unsigned)a < 4 ? names[a] : "?";
}

const char *apenet_phase_name(unsigned p)
{
	static const char *names[] = { "reset", "check-align", "align-ok", "deskew", "up" };
	return p < 5 ? names[p] : "invalid";
}

const char *apenet_link_state_name(unsigned s)
{
	static const char *names[] = { "down", "training", "up", "degraded", "prbs" };
	return s < 5 ? names[s] : "invalid";
}

#define X_RMT_NAME(n, v, d) [v] = #n,
#define X_RMT_DESC(n, v, d) [v] = d,
static const char *const rmt_names[] = { APENET_RMT_RESULTS(X_RMT_NAME) };
static const char *const rmt_descs[] = { APENET_RMT_RESULTS(X_RMT_DESC) };

const char *apenet_rmt_result_name(unsigned r)
{
	return r < N(rmt_names) && rmt_names[r] ? rmt_names[r] : "invalid";
}

const char *apenet_rmt_result_desc(unsigned r)
{
	return r < N(rmt_descs) && rmt_descs[r] ? rmt_descs[r] : "not a result the window defines";
}

/* The remote window's policy (regs.h).  A whitelist, register by register:
 * a neighbour may learn who this board is, run the PRBS test of the lanes
 * it is cabled to and tune their PMA settings for a sweep.  PMA writes are
 * provisional (APENET_RMT_PMA_REVERT_MS): a bad TX setting takes down the
 * link the window rides on, and the firmware then puts back the last
 * setting the link was up with, so there is always a way back. */
int apenet_rmt_allowed(const struct apenet_profile *p, unsigned link, uint32_t off, int write)
{
	static const uint32_t ident[] = {
		APENET_REG_ID_MAGIC, APENET_REG_ID_VARIANT, APENET_REG_ID_FW_VERSION, APENET_REG_ID_BUILD,
		APENET_REG_ID_CAPS,  APENET_REG_BER_ACCEL,  APENET_REG_NODE_COORD,    APENET_REG_TORUS_DIMS,
		APENET_REG_LINK_CONFIG, APENET_REG_TS_FREQ_HZ, APENET_REG_TIMESTAMP,
	};
	static const uint32_t lane_ro[] = {
		APENET_LANE_PRBS_STATUS, APENET_LANE_PRBS_BITS,    APENET_LANE_PRBS_ERRS, APENET_LANE_PRBS_START_TS,
		APENET_LANE_PRBS_RXWORD, APENET_LANE_PRBS_ERRWORD,
	};
	static const uint32_t lane_rw[] = {
		APENET_LANE_PRBS_CTRL, APENET_LANE_PRBS_RUN_MS, APENET_LANE_PMA_VOD,   APENET_LANE_PMA_PRE,
		APENET_LANE_PMA_POST1, APENET_LANE_PMA_POST2,   APENET_LANE_PMA_RXEQ,  APENET_LANE_PMA_DCGAIN,
	};
	if (!p || link >= p->nlinks)
		return 0;
	for (unsigned i = 0; i < N(ident); i++)
		if (off == ident[i])
			return !write;
	uint32_t lanes0 = apenet_lane_off(link, 0, 0);
	if (off < lanes0 || off >= lanes0 + p->links[link].lanes * APENET_LANE_STRIDE)
		return 0;
	uint32_t reg = (off - lanes0) % APENET_LANE_STRIDE;
	for (unsigned i = 0; i < N(lane_rw); i++)
		if (reg == lane_rw[i])
			return 1;
	for (unsigned i = 0; i < N(lane_ro); i++)
		if (reg == lane_ro[i])
			return !write;
	return 0;
}

int apenet_reg_added_later(const char *name)
{
	/* issue 10: the remote window, link latency, the PRBS run time */
	static const char *const added[] = {
		"RMT_ADDR", "RMT_WDATA", "RMT_CTRL", "RMT_STATUS", "RMT_RDATA", "RMT_RTT", "RMT_SERVED",
		"LINK_LATENCY_PS", "LANE_PRBS_RUN_MS",
	};
	for (unsigned i = 0; i < N(added); i++)
		if (!strcmp(name, added[i]))
			return 1;
	return 0;
}
