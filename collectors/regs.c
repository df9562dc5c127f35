/* Descriptor tables built from the X-macro lists of apenet/regs.h. */
#include <stddef.h>

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
