/*
 * What a report says, for the deduction engine (include/apenet/deduce.h):
 * the kind of fact its code is, the component it points at and the link it
 * names; the names of components and rules and how strong each rule is; the
 * torus geometry (which node a link faces).  The codes are those of
 * docs/verdicts.md and docs/agent.md ("Neighbours"), as agent/report.c
 * puts them into a report.
 */
#include <stdlib.h>
#include <string.h>

#include "apenet/regs.h"
#include "deduce_int.h"

/* ---- components and rules ---- */

static const char *const comp_names[C_NFIXED] = {
	[C_HOST] = "host",
	[C_DNP] = "dnp",
	[C_CARD] = "card",
	[C_POWER] = "node-power",
	[C_CABLE] = "cable",
	[C_SERVICE] = "service-network",
	[C_SUPERVISOR] = "supervisor",
	[C_AGENT] = "agent",
	[C_TEMP] = "sensor:temperature",
	[C_VOLT] = "sensor:voltage",
	[C_CURR] = "sensor:current",
	[C_PCIE] = "pcie",
	[C_MEMORY] = "memory",
	[C_MODULE] = "module",
	[C_LINK] = "link",
	[C_CABLING] = "cabling",
};

const char *apenet_deduce_comp_name(const struct apenet_deduce *d, uint16_t comp)
{
	if (comp < C_NFIXED)
		return comp_names[comp];
	if ((uint32_t)(comp - C_NFIXED) < d->nstr)
		return d->str[comp - C_NFIXED];
	return "?";
}

int apenet_deduce_comp_of(struct apenet_deduce *d, const char *name)
{
	for (int i = 0; i < C_NFIXED; i++)
		if (!strcmp(comp_names[i], name))
			return i;
	if (!name[0] || strlen(name) >= sizeof(d->str[0]))
		return -1;
	uint16_t s = apenet_deduce_intern(d, name);
	return s == 0xffff ? -1 : C_NFIXED + s;
}

/* A rule's name, the component it blames and its strength: a fact moves
 * from an open incident only to a strictly stronger explanation.  The
 * order is the deduction's: what explains more (a node gone explains its
 * dark links, its silence, its stale words) is stronger. */
static const struct {
	const char *name;
	uint8_t strength;
	uint8_t comp;    /* C_NFIXED: the fact's own component */
	uint8_t explain; /* waits explain_ms, not settle_ms */
} rules[R_COUNT] = {
	[R_NONE] = { "", 0, C_NFIXED, 0 },
	[R_CARD_GONE] = { "card-gone", 100, C_CARD, 0 },
	[R_POWER_OFF] = { "power-off", 90, C_POWER, 0 },
	[R_LINKS_PENDING] = { "links-lost-pending", 85, C_POWER, 0 },
	[R_LINKS_LOST] = { "links-lost", 80, C_CARD, 0 },
	[R_DNP_HUNG] = { "dnp-hung", 72, C_DNP, 0 },
	[R_LDM_STALE] = { "ldm-stale", 70, C_DNP, 0 },
	[R_DNP_CORE] = { "dnp-core", 68, C_DNP, 0 },
	[R_LDM_INVALID] = { "ldm-invalid", 66, C_DNP, 0 },
	[R_HOST_HUNG] = { "host-hung", 60, C_HOST, 0 },
	[R_HOST_EXPIRED] = { "host-expired", 55, C_HOST, 0 },
	[R_SERVICE_CUT] = { "service-cut", 50, C_SERVICE, 1 },
	[R_SUP_MISSING] = { "supervisor-missing", 45, C_SUPERVISOR, 0 },
	[R_SUP_UNREACHABLE] = { "supervisor-unreachable", 41, C_SUPERVISOR, 1 },
	[R_AGENT_SILENT] = { "agent-silent", 40, C_AGENT, 1 },
	[R_LINK_BOTH] = { "link-both-ends", 32, C_CABLE, 0 },
	[R_LINK_ONE] = { "link-one-end", 30, C_CABLE, 0 },
	[R_SELF_NBR] = { "self-and-neighbours", 22, C_NFIXED, 0 },
	[R_SELF] = { "self", 21, C_NFIXED, 0 },
	[R_NBR] = { "neighbours", 20, C_NFIXED, 0 },
};

const char *apenet_deduce_rule_name(unsigned rule)
{
	return rule < R_COUNT ? rules[rule].name : "?";
}

int apenet_deduce_rule_of(const char *name)
{
	for (int i = 1; i < R_COUNT; i++)
		if (!strcmp(rules[i].name, name))
			return i;
	return -1;
}

unsigned apenet_deduce_rule_strength(unsigned rule)
{
	return rule < R_COUNT ? rules[rule].strength : 0;
}

uint16_t apenet_deduce_rule_comp(unsigned rule)
{
	return rule < R_COUNT ? rules[rule].comp : C_NFIXED;
}

int apenet_deduce_rule_explains(unsigned rule)
{
	return rule < R_COUNT && rules[rule].explain;
}

/* ---- interned strings (codes, unknown components) ---- */

uint32_t apenet_deduce_hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static int strhash_grow(struct apenet_deduce *d)
{
	uint32_t n = d->nstrhash ? d->nstrhash * 2 : 256;
	uint16_t *t = calloc(n, sizeof(*t));
	if (!t)
		return -1;
	for (uint32_t i = 0; i < d->nstr; i++) {
		uint32_t h = apenet_deduce_hash(d->str[i]) & (n - 1);
		while (t[h])
			h = (h + 1) & (n - 1);
		t[h] = (uint16_t)(i + 1);
	}
	free(d->strhash);
	d->strhash = t;
	d->nstrhash = n;
	return 0;
}

/* The string's number (0xffff: no memory, or too many). */
uint16_t apenet_deduce_intern(struct apenet_deduce *d, const char *s)
{
	if (!d->nstrhash && strhash_grow(d))
		return 0xffff;
	uint32_t h = apenet_deduce_hash(s) & (d->nstrhash - 1);
	while (d->strhash[h]) {
		uint32_t i = d->strhash[h] - 1u;
		if (!strncmp(d->str[i], s, sizeof(d->str[0]) - 1))
			return (uint16_t)i;
		h = (h + 1) & (d->nstrhash - 1);
	}
	if (d->nstr >= 0xfff0u - C_NFIXED)
		return 0xffff;
	if (d->nstr == d->capstr) {
		uint32_t cap = d->capstr ? d->capstr * 2 : 64;
		char(*ns)[32] = realloc(d->str, cap * sizeof(*ns));
		if (!ns)
			return 0xffff;
		d->str = ns;
		d->capstr = cap;
	}
	uint32_t i = d->nstr++;
	memset(d->str[i], 0, sizeof(d->str[i]));
	strncpy(d->str[i], s, sizeof(d->str[i]) - 1);
	d->strhash[h] = (uint16_t)(i + 1);
	if (d->nstr * 2 > d->nstrhash)
		strhash_grow(d); /* a failure leaves the old table, still correct */
	return (uint16_t)i;
}

/* ---- geometry ---- */

uint8_t apenet_deduce_dir_of(const char *name)
{
	static const char *const names[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-", "X", "Y", "Z" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], name))
			return (uint8_t)i;
	return DD_NOLINK;
}

const char *apenet_deduce_dir_name(uint8_t dir)
{
	static const char *const names[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-", "X", "Y", "Z" };
	return dir < sizeof(names) / sizeof(names[0]) ? names[dir] : "";
}

uint32_t apenet_deduce_index(const struct apenet_deduce *d, unsigned x, unsigned y, unsigned z)
{
	const unsigned *m = d->c.dims;
	if (x >= m[0] || y >= m[1] || z >= m[2])
		return DD_NONE;
	return x + m[0] * (y + m[1] * z);
}

void apenet_deduce_coords(const struct apenet_deduce *d, uint32_t i, unsigned xyz[3])
{
	xyz[0] = i % d->c.dims[0];
	xyz[1] = i / d->c.dims[0] % d->c.dims[1];
	xyz[2] = i / d->c.dims[0] / d->c.dims[1];
}

uint32_t apenet_deduce_far(const struct apenet_deduce *d, uint32_t i, uint8_t dir, uint8_t *back)
{
	unsigned me[3], far[3];
	enum apenet_dir b;
	int dim, wrap;
	if (i == DD_NONE || dir > APENET_DIR_Z)
		return DD_NONE;
	apenet_deduce_coords(d, i, me);
	if (apenet_torus_neighbour(d->c.dims, me, (enum apenet_dir)dir, far, &b, &dim, &wrap))
		return DD_NONE;
	if (back)
		*back = (uint8_t)b;
	return apenet_deduce_index(d, far[0], far[1], far[2]);
}

uint32_t apenet_deduce_boot_number(const char *boot)
{
	const char *p = strchr(boot, '#');
	if (!p || p[1] < '0' || p[1] > '9')
		return 0;
	unsigned long n = strtoul(p + 1, NULL, 10);
	return n > 0xffffffffu ? 0xffffffffu : (uint32_t)n;
}

uint32_t apenet_deduce_reporter(const struct apenet_deduce *d, const char *boot)
{
	unsigned v[3];
	const char *p = boot;
	for (int k = 0; k < 3; k++) {
		char *end;
		if (*p < '0' || *p > '9')
			return DD_NONE;
		unsigned long x = strtoul(p, &end, 10);
		if (x > 0xffff || *end != (k < 2 ? ',' : '#'))
			return DD_NONE;
		v[k] = (unsigned)x;
		p = end + 1;
	}
	return apenet_deduce_index(d, v[0], v[1], v[2]);
}

/* ---- codes ---- */

static const struct {
	const char *code;
	uint8_t kind;
	uint8_t comp;
	uint8_t down; /* a link code that says the link is gone (no signal) */
} codes[] = {
	{ "CARD_GONE", K_CARD, 0, 0 },
	{ "DNP_HUNG", K_DNP, 0, 0 },
	{ "LDM_OWN_INVALID", K_OWNINV, 0, 0 },
	{ "HOST_EXPIRED", K_HOST, 0, 0 },
	{ "SERVICE_NETWORK", K_SVC, 0, 0 },
	{ "NEIGHBOUR_HOST_EXPIRED", K_NHOST, 0, 0 },
	{ "NEIGHBOUR_SERVICE", K_NSVC, 0, 0 },
	{ "NEIGHBOUR_CORE", K_NCORE, 0, 0 },
	{ "LDM_STALE", K_STALE, 0, 0 },
	{ "LDM_INVALID", K_LDMINV, 0, 0 },
	{ "NEIGHBOUR_LINK", K_NLINK, C_CABLE, 0 },
	{ "NEIGHBOUR_MEMORY", K_GENERIC, C_MEMORY, 0 },
	{ "EDAC_MEMORY", K_GENERIC, C_MEMORY, 0 },
	{ "NEIGHBOUR_PERIPHERAL", K_GENERIC, C_PCIE, 0 },
	{ "NEIGHBOUR_TEMPERATURE", K_GENERIC, C_TEMP, 0 },
	{ "FPGA_TEMP", K_GENERIC, C_TEMP, 0 },
	{ "BOARD_TEMP", K_GENERIC, C_TEMP, 0 },
	{ "NEIGHBOUR_VOLTAGE", K_GENERIC, C_VOLT, 0 },
	{ "VCORE_LOW", K_GENERIC, C_VOLT, 0 },
	{ "V12_RANGE", K_GENERIC, C_VOLT, 0 },
	{ "NEIGHBOUR_CURRENT", K_GENERIC, C_CURR, 0 },
	/* the cable's own findings, at either end */
	{ "LINK_DOWN", K_LINK, C_CABLE, 1 },
	{ "LINK_TRAINING", K_LINK, C_CABLE, 1 },
	{ "LINK_DEGRADED", K_LINK, C_CABLE, 0 },
	{ "LINK_FLAPPING", K_LINK, C_CABLE, 0 },
	{ "LINK_CRC", K_LINK, C_CABLE, 0 },
	{ "LINK_PAYLOAD", K_LINK, C_CABLE, 0 },
	{ "LANE_CODE_ERRORS", K_LINK, C_CABLE, 0 },
	{ "LANE_ALIGN_RESTARTS", K_LINK, C_CABLE, 0 },
	{ "MODULE_LOS", K_LINK, C_CABLE, 0 },
	{ "MODULE_CDR_LOL", K_LINK, C_CABLE, 0 },
	/* a cable where the layout has another (or none) */
	{ "LINK_MISCABLED", K_GENERIC, C_CABLING, 0 },
	{ "LINK_UNEXPECTED", K_GENERIC, C_CABLING, 0 },
};

int apenet_deduce_classify(struct apenet_deduce *d, const struct apenet_report *r, struct dd_class *k)
{
	memset(k, 0, sizeof(*k));
	k->link = DD_NOLINK;
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		if (strcmp(codes[i].code, r->code))
			continue;
		k->kind = codes[i].kind;
		k->comp = codes[i].comp;
		k->down = codes[i].down;
		if (k->kind == K_LINK || k->kind == K_NLINK) {
			k->link = apenet_deduce_dir_of(r->where);
			if (k->link == DD_NOLINK || k->link > APENET_DIR_Z) {
				/* a link the torus does not know (an external channel) */
				k->kind = K_GENERIC;
				k->comp = C_LINK;
			}
		} else if (k->comp == C_CABLING) {
			k->link = apenet_deduce_dir_of(r->where);
		}
		return 0;
	}
	k->kind = K_GENERIC;
	if (!strncmp(r->code, "PCIE_", 5)) {
		k->comp = C_PCIE;
	} else if (!strncmp(r->code, "MODULE_", 7) || r->subject == APENET_REPORT_SUBJ_MODULE) {
		k->comp = C_MODULE;
		k->link = apenet_deduce_dir_of(r->where);
	} else if (!strncmp(r->code, "CABLE_", 6) || r->subject == APENET_REPORT_SUBJ_CABLING) {
		k->comp = C_CABLING;
		k->link = apenet_deduce_dir_of(r->where);
	} else if (r->subject == APENET_REPORT_SUBJ_LINK || r->subject == APENET_REPORT_SUBJ_LANE) {
		k->comp = C_LINK; /* FIFO_HIGH, LINK_DISABLED, LINK_PRBS: the node's link, not the cable */
		k->link = apenet_deduce_dir_of(r->where);
	} else {
		/* the report's subject (APENET-MIB ApenetSubject); notify.c's table
		 * is not linked here, the engine needs no net-snmp */
		static const char *const subj[] = { "board", "board", "link", "lane", "module", "sensor", "cabling", "host" };
		int c = apenet_deduce_comp_of(d, r->subject >= 1 && r->subject <= 7 ? subj[r->subject] : "board");
		if (c < 0)
			return -1;
		k->comp = (uint16_t)c;
	}
	return 0;
}
