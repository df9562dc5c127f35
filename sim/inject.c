/*
 * Fault injection into a running emulation.  A request is an argument
 * vector: NODE FAULT [--option value ...]; the reply says what was done or
 * names what was wrong with the request.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct opt {
	const char *name;
	const char *val;
};

static int reply(char *r, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int reply(char *r, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r, n, fmt, ap);
	va_end(ap);
	return strncmp(r, "error", 5) ? 0 : -1;
}

static const char *opt_get(struct opt *o, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(o[i].name, name)) {
			o[i].name = ""; /* consumed */
			return o[i].val;
		}
	return NULL;
}

static int num(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static struct sim_link *far_end(struct sim_torus *t, struct sim_link *lk)
{
	return lk->peer_board >= 0 ? &t->b[lk->peer_board].link[lk->peer_link] : NULL;
}

/* Clear a cable's faults at both ends. */
static void cable_clear(struct sim_torus *t, struct sim_link *lk)
{
	struct sim_link *ends[2] = { lk, far_end(t, lk) };
	for (int i = 0; i < 2 && ends[i]; i++) {
		ends[i]->unplugged = 0;
		ends[i]->ch.extra_ber = 0;
		ends[i]->lat_jitter = 0; /* the next alignment lands where it always did */
		for (unsigned k = 0; k < APENET_MAX_LANES; k++) {
			ends[i]->lane[k].dead = 0;
			ends[i]->lane[k].extra_ber = 0;
		}
	}
}

/* Move the plugs of (a) and (b): each end now faces what the other faced. */
static void swap_plugs(struct sim_torus *t, struct sim_board *ba, unsigned la, struct sim_board *bb, unsigned lb)
{
	struct sim_link *a = &ba->link[la], *b = &bb->link[lb];
	int pab = a->peer_board, pal = a->peer_link, pbb = b->peer_board, pbl = b->peer_link;
	struct sim_link *pa = far_end(t, a), *pb = far_end(t, b);
	struct sim_channel cha = a->ch, chb = b->ch;
	int ida = a->cable_id, idb = b->cable_id;
	a->peer_board = pbb;
	a->peer_link = pbl;
	b->peer_board = pab;
	b->peer_link = pal;
	if (pb) {
		pb->peer_board = (int)ba->idx;
		pb->peer_link = (int)la;
	}
	if (pa) {
		pa->peer_board = (int)bb->idx;
		pa->peer_link = (int)lb;
	}
	/* the cables stay with the far ends: each plug brings its cable along */
	a->ch = chb;
	a->cable_id = idb;
	b->ch = cha;
	b->cable_id = ida;
	/* a copper assembly's EEPROM is in its plugs: it moves too; an optical
	 * transceiver stays in its cage when only the fibre moves */
	if (a->module.kind == SIM_MOD_COPPER && b->module.kind == SIM_MOD_COPPER) {
		struct sim_module m = a->module;
		uint8_t ee[APENET_EE_DATA_LEN];
		memcpy(ee, a->ee, sizeof(ee));
		a->module = b->module;
		memcpy(a->ee, b->ee, sizeof(ee));
		b->module = m;
		memcpy(b->ee, ee, sizeof(ee));
	}
	sim_link_force_down(a);
	sim_link_force_down(b);
	if (pa)
		sim_link_force_down(pa);
	if (pb)
		sim_link_force_down(pb);
}

/* Every fault with its options: check_opts holds a request to it, and
 * apenet-sim --help and its completion print it (sim_fault_text). */
const struct sim_fault sim_faults[] = {
	{ "cable-unplug", { { "link", "L" } } },
	{ "cable-ber", { { "link", "L" }, { "ber", "B" } } },
	{ "lane-dead", { { "link", "L" }, { "lane", "N" } } },
	{ "lane-ber", { { "link", "L" }, { "lane", "N" }, { "ber", "B" } } },
	{ "cable-swap", { { "link", "L" }, { "with", "X,Y,Z:L2" } } },
	{ "latency-jitter", { { "link", "L" } } },
	{ "dnp-hang", { { NULL, NULL } } },
	{ "overheat", { { "celsius", "C" } } },
	{ "voltage-droop", { { "percent", "P" } } },
	{ "pcie-degrade", { { "width", "W" }, { "gen", "G" } } },
	{ "card-gone", { { NULL, NULL } } },
	{ "power-off", { { NULL, NULL } } },
	{ "clear", { { NULL, NULL } } },
	{ NULL, { { NULL, NULL } } },
};

size_t sim_fault_text(const struct sim_fault *f, char *buf, size_t n)
{
	size_t o = (size_t)snprintf(buf, n, "%s", f->fault);
	for (int j = 0; j < SIM_FAULT_OPTS && f->opts[j].name && o < n; j++)
		o += (size_t)snprintf(buf + o, n - o, " --%s %s", f->opts[j].name, f->opts[j].arg);
	return o < n ? o : n - 1;
}

/* "faults: cable-unplug --link L | ...": the end of an error's reply. */
static const char *usage(void)
{
	static char text[1024];
	size_t o = (size_t)snprintf(text, sizeof(text), "faults:");
	for (const struct sim_fault *f = sim_faults; f->fault && o + 4 < sizeof(text); f++) {
		o += (size_t)snprintf(text + o, sizeof(text) - o, "%s ", f == sim_faults ? "" : " |");
		o += sim_fault_text(f, text + o, sizeof(text) - o);
	}
	return text;
}

/* Every option must belong to the fault, before anything is applied. */
static int check_opts(const char *fault, const struct opt *o, int no, char *r, size_t rn)
{
	for (const struct sim_fault *f = sim_faults; f->fault; f++) {
		if (strcmp(f->fault, fault))
			continue;
		for (int i = 0; i < no; i++) {
			int ok = 0;
			for (int j = 0; j < SIM_FAULT_OPTS && f->opts[j].name; j++)
				ok |= !strcmp(f->opts[j].name, o[i].name);
			if (!ok)
				return reply(r, rn, "error: %s does not take --%s", fault, o[i].name);
		}
		return 0;
	}
	return reply(r, rn, "error: unknown fault '%s'; %s", fault, usage());
}

int sim_inject(struct sim_torus *t, char *const *argv, int argc, char *r, size_t rn)
{
	if (argc < 2)
		return reply(r, rn, "error: need a node and a fault; %s", usage());
	struct sim_board *b = sim_torus_board(t, argv[0]);
	if (!b)
		return reply(r, rn, "error: node '%s' is not X,Y,Z inside the %ux%ux%u torus", argv[0], t->dims[0],
			     t->dims[1], t->dims[2]);
	const char *fault = argv[1];
	struct opt o[8];
	int no = 0;
	for (int i = 2; i < argc; i += 2) {
		if (strncmp(argv[i], "--", 2) || i + 1 >= argc || no == 8)
			return reply(r, rn, "error: %s: expected --option VALUE, got '%s'", fault, argv[i]);
		o[no].name = argv[i] + 2;
		o[no].val = argv[i + 1];
		no++;
	}
	if (check_opts(fault, o, no, r, rn))
		return -1;
	const char *lname = opt_get(o, no, "link");
	int l = -1;
	if (lname) {
		l = sim_link_by_name(b, lname);
		if (l < 0)
			return reply(r, rn, "error: node %s (%s) has no link '%s'", argv[0], b->prof->name, lname);
	}
	double v;
	const char *s;
	int rc;

	if (!strcmp(fault, "cable-unplug")) {
		if (l < 0)
			return reply(r, rn, "error: cable-unplug needs --link L");
		b->link[l].unplugged = 1;
		struct sim_link *p = far_end(t, &b->link[l]);
		if (p)
			p->unplugged = 1;
		rc = reply(r, rn, "ok: node %s link %s: cable unplugged", argv[0], b->prof->links[l].name);
	} else if (!strcmp(fault, "cable-ber")) {
		if (l < 0 || !(s = opt_get(o, no, "ber")) || num(s, 0, 0.5, &v))
			return reply(r, rn, "error: cable-ber needs --link L --ber B with 0 <= B <= 0.5");
		b->link[l].ch.extra_ber = v;
		struct sim_link *p = far_end(t, &b->link[l]);
		if (p)
			p->ch.extra_ber = v;
		rc = reply(r, rn, "ok: node %s link %s: cable BER raised by %g", argv[0], b->prof->links[l].name, v);
	} else if (!strcmp(fault, "lane-dead")) {
		if (l < 0 || !(s = opt_get(o, no, "lane")) || num(s, 0, b->prof->links[l].lanes - 1, &v) ||
		    v != floor(v))
			return reply(r, rn, "error: lane-dead needs --link L --lane N with N in 0..%u",
				     l < 0 ? 3u : b->prof->links[l].lanes - 1u);
		b->link[l].lane[(int)v].dead = 1;
		struct sim_link *p = far_end(t, &b->link[l]);
		if (p)
			p->lane[(int)v].dead = 1;
		rc = reply(r, rn, "ok: node %s link %s lane %d: dead", argv[0], b->prof->links[l].name, (int)v);
	} else if (!strcmp(fault, "lane-ber")) {
		/* one lane, one direction: what this end receives on it (a weak
		 * far transmitter or this receiver), the other way untouched */
		double ber;
		if (l < 0 || !(s = opt_get(o, no, "lane")) || num(s, 0, b->prof->links[l].lanes - 1, &v) ||
		    v != floor(v) || !(s = opt_get(o, no, "ber")) || num(s, 0, 0.5, &ber))
			return reply(r, rn, "error: lane-ber needs --link L --lane N --ber B with N in 0..%u and 0 <= B <= 0.5",
				     l < 0 ? 3u : b->prof->links[l].lanes - 1u);
		b->link[l].lane[(int)v].extra_ber = ber;
		rc = reply(r, rn, "ok: node %s link %s lane %d: received BER raised by %g", argv[0], b->prof->links[l].name,
			   (int)v, ber);
	} else if (!strcmp(fault, "cable-swap")) {
		s = opt_get(o, no, "with");
		char node2[32];
		const char *colon = s ? strchr(s, ':') : NULL;
		if (l < 0 || !colon || (size_t)(colon - s) >= sizeof(node2))
			return reply(r, rn, "error: cable-swap needs --link L --with X,Y,Z:L2");
		memcpy(node2, s, (size_t)(colon - s));
		node2[colon - s] = 0;
		struct sim_board *b2 = sim_torus_board(t, node2);
		if (!b2)
			return reply(r, rn, "error: cable-swap: node '%s' is not in the torus", node2);
		int l2 = sim_link_by_name(b2, colon + 1);
		if (l2 < 0)
			return reply(r, rn, "error: cable-swap: node %s has no link '%s'", node2, colon + 1);
		if (b2 == b && l2 == l)
			return reply(r, rn, "error: cable-swap: a plug cannot be swapped with itself");
		if (b->link[l].peer_board == (int)b2->idx && b->link[l].peer_link == l2)
			return reply(r, rn, "error: cable-swap: those two ends are the same cable");
		swap_plugs(t, b, (unsigned)l, b2, (unsigned)l2);
		rc = reply(r, rn, "ok: plugs of node %s link %s and node %s link %s swapped", argv[0],
			   b->prof->links[l].name, node2, b2->prof->links[l2].name);
	} else if (!strcmp(fault, "latency-jitter")) {
		if (l < 0)
			return reply(r, rn, "error: latency-jitter needs --link L");
		b->link[l].lat_jitter = 1;
		struct sim_link *p = far_end(t, &b->link[l]);
		if (p)
			p->lat_jitter = 1;
		rc = reply(r, rn,
			   "ok: node %s link %s: alignment no longer deterministic (each realign lands on one of %u "
			   "latencies)",
			   argv[0], b->prof->links[l].name, SIM_ALIGN_SLIPS);
	} else if (!strcmp(fault, "dnp-hang")) {
		b->dnp_hung = 1;
		rc = reply(r, rn, "ok: node %s: DNP firmware hung", argv[0]);
	} else if (!strcmp(fault, "overheat")) {
		if (!(s = opt_get(o, no, "celsius")) || num(s, -40, 200, &v))
			return reply(r, rn, "error: overheat needs --celsius C with -40 <= C <= 200");
		b->overheat_c = v;
		rc = reply(r, rn, "ok: node %s: FPGA heading for %.1f C", argv[0], v);
	} else if (!strcmp(fault, "voltage-droop")) {
		if (!(s = opt_get(o, no, "percent")) || num(s, 0, 50, &v))
			return reply(r, rn, "error: voltage-droop needs --percent P with 0 <= P <= 50");
		b->droop_pct = v;
		rc = reply(r, rn, "ok: node %s: core supply %.1f%% low", argv[0], v);
	} else if (!strcmp(fault, "pcie-degrade")) {
		double w, g;
		const char *ws = opt_get(o, no, "width"), *gs = opt_get(o, no, "gen");
		if (!ws || !gs || num(ws, 1, 16, &w) || num(gs, 1, 5, &g) || w != floor(w) || g != floor(g))
			return reply(r, rn, "error: pcie-degrade needs --width W --gen G (W 1..16, G 1..5)");
		if (w > b->prof->pcie_width || g > b->prof->pcie_gen)
			return reply(r, rn, "error: pcie-degrade: the %s link is at most gen%u x%u", b->prof->name,
				     b->prof->pcie_gen, b->prof->pcie_width);
		b->pcie_width = (uint8_t)w;
		b->pcie_gen = (uint8_t)g;
		struct apenet_err e;
		if (sim_board_write_pci(t, b, &e))
			return reply(r, rn, "error: %s", e.msg);
		rc = reply(r, rn, "ok: node %s: PCIe trained at gen%d x%d", argv[0], (int)g, (int)w);
	} else if (!strcmp(fault, "card-gone")) {
		b->gone = 1;
		memset((void *)b->bar, 0xff, APENET_BAR_SIZE);
		struct apenet_err e;
		if (sim_board_write_pci(t, b, &e))
			return reply(r, rn, "error: %s", e.msg);
		rc = reply(r, rn, "ok: node %s: card gone (reads all ones)", argv[0]);
	} else if (!strcmp(fault, "power-off")) {
		/* Gone from the bus like card-gone (its links go dark with it,
		 * link.c), and nothing of its state survives: clear powers it
		 * on from scratch. */
		b->gone = 1;
		b->powered_off = 1;
		memset((void *)b->bar, 0xff, APENET_BAR_SIZE);
		struct apenet_err e;
		if (sim_board_write_pci(t, b, &e))
			return reply(r, rn, "error: %s", e.msg);
		rc = reply(r, rn, "ok: node %s: powered off (reads all ones, its links dark)", argv[0]);
	} else if (!strcmp(fault, "clear")) {
		for (unsigned i = 0; i < b->prof->nlinks; i++)
			cable_clear(t, &b->link[i]);
		b->dnp_hung = 0;
		b->overheat_c = 0;
		b->droop_pct = 0;
		b->pcie_width = b->prof->pcie_width;
		b->pcie_gen = b->prof->pcie_gen;
		if (b->powered_off) {
			sim_board_power_on(t, b);
		} else if (b->gone) {
			b->gone = 0;
			sim_board_restore(b);
		}
		struct apenet_err e;
		if (sim_board_write_pci(t, b, &e))
			return reply(r, rn, "error: %s", e.msg);
		rc = reply(r, rn, "ok: node %s: faults cleared (swapped cables stay where they are)", argv[0]);
	} else {
		return reply(r, rn, "error: unknown fault '%s'; %s", fault, usage());
	}
	return rc;
}
