/*
 * The health database of bench_report (report_gen.h): made through the
 * library's writing API as a supervisor would (layout, batches of reports,
 * incidents with evidence linked to the transitions, cables, certificates),
 * from a fixed seed, kept at the path the benchmark names and reused while
 * it opens read-only and carries this generator's marker (below).
 *
 * By default 10,000,000 health transitions of a 32x32x32 torus (32,768
 * nodes) over 30 days.  What is in it:
 *
 *  - faults as episodes, arriving as a Poisson process over the 30 days
 *    (~333k transitions a day), each written as the agents would report
 *    it, onset and recovery, from the node itself and from its neighbours
 *    reading its LDM word through the torus:
 *      a cable down (LINK_DOWN at both ends, NEIGHBOUR_LINK from the other
 *      ten neighbours; some flap), CRC errors on a link (LINK_CRC, the far
 *      end's LANE_CODE_ERRORS; sick, flapping), a hot FPGA (FPGA_TEMP, and
 *      NEIGHBOUR_TEMPERATURE from six neighbours), a hung host
 *      (NEIGHBOUR_HOST_EXPIRED from six neighbours; half of them reboot:
 *      a new boot id), a hung DNP (DNP_HUNG from the watchdog, LDM_STALE
 *      sick then broken from six neighbours);
 *  - a few thousand of them as incidents ("cable", "sensor:temperature",
 *    "host", "dnp"), every transition of the episode linked as evidence;
 *    a hung DNP first opens a "cable" incident that is merged into the
 *    "dnp" one; a handful never recover and stay open;
 *  - cables with serials on ~4,100 links (an inventory of 1,000, and every
 *    link that had a cable incident) with 1-3 certificates each;
 *  - one heartbeat from every node at the start and at the end.
 * Making it took 245-289 s here (2 cores, sqlite's own work nearly all of
 * it) for a 2.3 GB file.  The batch (reports a transaction) matters little
 * past 50,000: at 1M transitions, batches of 2,000 / 10,000 / 50,000 /
 * 100,000 / 250,000 wrote 38k / 51k / 57k / 63k / 63k transitions/s; the
 * rest is sqlite's own.
 *
 * The representative incident is one of them placed on purpose: the cable
 * 13,7,21 Y+ <-> 13,8,21 Y- down at 2024-05-16T12:00Z, in the middle of the
 * 30 days and of the one-day window, flapping once: 48 transitions from
 * its two ends and ten neighbours, all of them its evidence, and a cable
 * with three certificates (installed; failed after the incident; passed
 * after a reseat).  Why placed and not picked: the same incident whatever
 * the seed's other draws, with a size in the 20-50 evidence rows asked
 * for.  The window is that whole day, [2024-05-16T00:00Z, +1 day).
 *
 * Everything that opens the database runs in a child process (fork), so
 * the benchmark stays small: ru_maxrss counts a child as forked, and the
 * commands it measures are forked from it.
 */
#include "report_gen.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apenet/hdb.h"
#include "apenet/ldm.h"
#include "apenet/notify.h"
#include "apenet/out.h"
#include "../tests/e2e/e2e.h"

/* ---- the data set ---- */

#define DIM BENCH_REPORT_DIM
#define NNODES (DIM * DIM * DIM)
#define NLINKS 6
#define DAY_MS 86400000LL
#define DAYS BENCH_REPORT_DAYS
#define T_START 1714521600000LL /* BENCH_REPORT_START: 2024-05-01T00:00:00Z */
#define T_END (T_START + DAYS * DAY_MS)
#define T0 (T_START + 15 * DAY_MS) /* the window: 2024-05-16, the middle of the 30 days */
#define T1 (T0 + DAY_MS)
#define REP_TIME (T0 + DAY_MS / 2) /* the representative incident: noon of that day */
#define REP_LINK 2                 /* Y+ of 13,7,21 */
static const unsigned rep_node[3] = { 13, 7, 21 };
#define SEED 0x5eed2024u
#define SETTLE_MS 1500 /* the deduction's settle window: an incident opens this long after its first fault */
/* What the generator writes; a change of it (or of the count) makes the
 * cached file stale.  The marker is a cable record, the one thing a
 * writer can store freely and a reader fetch by key through the library
 * (the library has no API for the meta table): written in the very last
 * batch, so its presence also says the generation finished. */
#define GEN_VERSION 2
#define MARKER_SERIAL "BENCH-REPORT-GENERATOR"
/* The benchmark's name, not this file's: the kept files carry it (written
 * when the generator was part of bench_report.c). */
#define MARKER_VENDOR "bench/bench_report.c"

/* ---- draws and node indexes ---- */

/* splitmix64, its own and not the emulator's RNG (sim/rng.c, xoshiro256**):
 * these draws are the kept file, another sequence would be another file. */

static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double rndu(uint64_t *s)
{
	return (double)(rnd(s) >> 11) * 0x1.0p-53;
}

static uint32_t rndn(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rndu(s) * n);
}

static int64_t rndr(uint64_t *s, int64_t lo, int64_t hi) /* [lo, hi) */
{
	return lo + (int64_t)(rndu(s) * (double)(hi - lo));
}

/* Log-uniform: durations from seconds to hours, most of them short. */
static double rndlog(uint64_t *s, double lo, double hi)
{
	return exp(log(lo) + rndu(s) * (log(hi) - log(lo)));
}

static void xyz_of(uint32_t i, unsigned xyz[3])
{
	xyz[0] = i % DIM;
	xyz[1] = i / DIM % DIM;
	xyz[2] = i / (DIM * DIM);
}

static uint32_t idx_of(const unsigned xyz[3])
{
	return xyz[0] + DIM * (xyz[1] + DIM * xyz[2]);
}

/* ---- the torus ---- */

static uint32_t partner[NNODES][NLINKS]; /* the node across each link */
static uint8_t partner_link[NNODES][NLINKS];

static int torus_init(void)
{
	const unsigned dims[3] = { DIM, DIM, DIM };
	for (uint32_t i = 0; i < NNODES; i++) {
		unsigned xyz[3], far[3];
		xyz_of(i, xyz);
		for (int l = 0; l < NLINKS; l++) {
			int fl;
			if (apenet_hdb_partner(dims, xyz, l, far, &fl))
				return -1;
			partner[i][l] = idx_of(far);
			partner_link[i][l] = (uint8_t)fl;
		}
	}
	return 0;
}

static const char *node_name(void *arg, unsigned x, unsigned y, unsigned z)
{
	static char b[32];
	(void)arg;
	snprintf(b, sizeof(b), "qn%02u-%02u-%02u", x, y, z);
	return b;
}

/* ---- what the agents report ---- */

enum code {
	C_LINK_DOWN,
	C_NBR_LINK,
	C_LINK_CRC,
	C_LANE_CODE,
	C_FPGA_TEMP,
	C_NBR_TEMP,
	C_NBR_HOST,
	C_DNP_HUNG,
	C_LDM_STALE,
	NCODES
};

static const struct {
	const char *code;
	int subject;
	const char *where; /* NULL: a link's name */
	const char *unit;
} codes[NCODES] = {
	[C_LINK_DOWN] = { "LINK_DOWN", APENET_REPORT_SUBJ_LINK, NULL, "" },
	[C_NBR_LINK] = { "NEIGHBOUR_LINK", APENET_REPORT_SUBJ_LINK, NULL, "" },
	[C_LINK_CRC] = { "LINK_CRC", APENET_REPORT_SUBJ_LINK, NULL, "/s" },
	[C_LANE_CODE] = { "LANE_CODE_ERRORS", APENET_REPORT_SUBJ_LANE, NULL, "/s" },
	[C_FPGA_TEMP] = { "FPGA_TEMP", APENET_REPORT_SUBJ_SENSOR, "fpga_temp", "C" },
	[C_NBR_TEMP] = { "NEIGHBOUR_TEMPERATURE", APENET_REPORT_SUBJ_SENSOR, "temperature", "" },
	[C_NBR_HOST] = { "NEIGHBOUR_HOST_EXPIRED", APENET_REPORT_SUBJ_HOST, "watchdog", "" },
	[C_DNP_HUNG] = { "DNP_HUNG", APENET_REPORT_SUBJ_BOARD, "dnp", "" },
	[C_LDM_STALE] = { "LDM_STALE", APENET_REPORT_SUBJ_BOARD, "ldm", "ms" },
};

enum ep_type { E_CABLE, E_CRC, E_TEMP, E_HOST, E_DNP, NTYPES };
/* Episodes of each type, as a share of all; and the share of each that the
 * deduction turns into an incident (a few thousand over the 30 days). */
static const double type_share[NTYPES] = { 0.30, 0.30, 0.25, 0.08, 0.07 };
static const double incident_share[NTYPES] = { 0.012, 0.002, 0.005, 0.02, 0.02 };
/* An episode that never recovers (an incident still open at the end). */
#define FOREVER_SHARE (1.0 / 40000)

enum ev_kind { K_TRANSITION, K_REBOOT, K_SUPNOTE };

/* One thing to write at a time: a transition, a reboot's heartbeat, or the
 * supervisor's own note on an incident (a silence). */
struct gev {
	int64_t t;          /* ms: from the episode's onset while shaping, then absolute */
	uint64_t ord;       /* ties in time keep their order */
	uint32_t ep;        /* the episode */
	uint32_t reporter;  /* node indexes */
	uint32_t about;
	uint8_t kind, code, old_st, new_st;
	uint8_t where_link; /* the link a link code is about, at `about` */
	uint8_t via_link;   /* the reporter's link a neighbour's word came through; 255: self */
	uint8_t path;
	float value;        /* NaN: none */
};

#define MAXEV 160
struct shape {
	int type, incident, forever, n, ntr;
	uint32_t node;
	int link;
	struct gev ev[MAXEV];
};

static void add(struct shape *sh, int64_t t, uint8_t kind, uint32_t rep, uint32_t about, uint8_t code, int old_st,
		int new_st, int where_link, int via_link, int path, double value)
{
	if (sh->n >= MAXEV)
		return; /* the shapes below stay under it */
	struct gev *g = &sh->ev[sh->n++];
	memset(g, 0, sizeof(*g));
	g->t = t;
	g->kind = kind;
	g->reporter = rep;
	g->about = about;
	g->code = code;
	g->old_st = (uint8_t)old_st;
	g->new_st = (uint8_t)new_st;
	g->where_link = (uint8_t)where_link;
	g->via_link = (uint8_t)via_link;
	g->path = (uint8_t)path;
	g->value = (float)value;
	if (kind == K_TRANSITION)
		sh->ntr++;
}

/* node's state for code, as its neighbours read it in its LDM word: each
 * neighbour but the one across skip (-1: none), within their LDM period. */
static void neighbours(struct shape *sh, uint64_t *rs, int64_t t, uint32_t node, int skip, uint8_t code, int old_st,
		       int new_st, int where_link, double value)
{
	for (int k = 0; k < NLINKS; k++)
		if (k != skip)
			add(sh, t + rndr(rs, 100, 600), K_TRANSITION, partner[node][k], node, code, old_st, new_st, where_link,
			    partner_link[node][k], APENET_REPORT_PATH_NEIGHBOUR_LDM, value);
}

/* A cable's both ends and their other neighbours: 12 transitions. */
static void cable_stage(struct shape *sh, uint64_t *rs, int64_t t, uint32_t a, int l, int old_st, int new_st)
{
	uint32_t b = partner[a][l];
	int lb = partner_link[a][l];
	add(sh, t + rndr(rs, 0, 100), K_TRANSITION, a, a, C_LINK_DOWN, old_st, new_st, l, 255, APENET_REPORT_PATH_SELF,
	    NAN);
	add(sh, t + rndr(rs, 0, 100), K_TRANSITION, b, b, C_LINK_DOWN, old_st, new_st, lb, 255, APENET_REPORT_PATH_SELF,
	    NAN);
	neighbours(sh, rs, t, a, l, C_NBR_LINK, old_st, new_st, l, NAN);
	neighbours(sh, rs, t, b, lb, C_NBR_LINK, old_st, new_st, lb, NAN);
}

static int cmp_gev(const void *a, const void *b)
{
	const struct gev *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* One episode's reports, times from its onset.  Draws only from rs, so the
 * counting pass and the writing pass see the same episodes. */
static void make_shape(uint64_t *rs, struct shape *sh, int representative)
{
	memset(sh, 0, sizeof(*sh));
	double u = rndu(rs);
	int type = 0;
	for (double acc = type_share[0]; type < NTYPES - 1 && u >= acc; acc += type_share[++type])
		;
	sh->type = type;
	sh->node = rndn(rs, NNODES);
	sh->link = (int)rndn(rs, NLINKS);
	sh->incident = rndu(rs) < incident_share[type];
	sh->forever = rndu(rs) < FOREVER_SHARE;
	int flaps = rndu(rs) < 0.2 ? 1 + (int)rndn(rs, 2) : 0;
	double dur = 0;
	if (representative) {
		sh->type = type = E_CABLE;
		sh->node = idx_of(rep_node);
		sh->link = REP_LINK;
		sh->incident = 1;
		sh->forever = 0;
		flaps = 1;
	}
	if (sh->forever)
		sh->incident = 1;
	uint32_t a = sh->node;
	int l = sh->link;
	switch (type) {
	case E_CABLE: {
		/* down, (up, down) per flap, up */
		int64_t t = 0;
		int stages = 2 + 2 * flaps;
		for (int s = 0; s < stages; s++) {
			int down = s % 2 == 0;
			if (sh->forever && s == 1)
				break;
			cable_stage(sh, rs, t, a, l, down ? 0 : 2, down ? 2 : 0);
			/* a flap: up for seconds to a minute; the last outage the longest */
			dur = s == stages - 2 ? rndlog(rs, 10e3, 4 * 3600e3) : rndlog(rs, 2e3, 60e3);
			if (representative)
				dur = s == stages - 2 ? 47 * 60e3 : s == 0 ? 95e3 : 45e3;
			t += (int64_t)dur;
		}
		break;
	}
	case E_CRC: {
		uint32_t b = partner[a][l];
		int lb = partner_link[a][l];
		int far = rndu(rs) < 0.5, cycles = 1 + (int)rndn(rs, 4);
		int64_t t = 0;
		for (int c = 0; c < cycles; c++) {
			double rate = 5 + rndlog(rs, 1, 400);
			add(sh, t + rndr(rs, 0, 1000), K_TRANSITION, a, a, C_LINK_CRC, 0, 1, l, 255, APENET_REPORT_PATH_SELF,
			    rate);
			if (far)
				add(sh, t + rndr(rs, 0, 1000), K_TRANSITION, b, b, C_LANE_CODE, 0, 1, lb, 255,
				    APENET_REPORT_PATH_SELF, rate * 3);
			if (sh->forever)
				break;
			t += (int64_t)rndlog(rs, 2e3, 600e3);
			add(sh, t + rndr(rs, 0, 1000), K_TRANSITION, a, a, C_LINK_CRC, 1, 0, l, 255, APENET_REPORT_PATH_SELF,
			    rndu(rs) * 4);
			if (far)
				add(sh, t + rndr(rs, 0, 1000), K_TRANSITION, b, b, C_LANE_CODE, 1, 0, lb, 255,
				    APENET_REPORT_PATH_SELF, rndu(rs) * 12);
			t += (int64_t)rndlog(rs, 5e3, 1800e3);
		}
		break;
	}
	case E_TEMP: {
		double hot = 85.5 + rndu(rs) * 8;
		add(sh, rndr(rs, 0, 100), K_TRANSITION, a, a, C_FPGA_TEMP, 0, 1, 255, 255, APENET_REPORT_PATH_SELF, hot);
		neighbours(sh, rs, 0, a, -1, C_NBR_TEMP, 0, 1, 255, NAN);
		if (sh->forever)
			break;
		int64_t t = (int64_t)rndlog(rs, 60e3, 3 * 3600e3);
		add(sh, t + rndr(rs, 0, 100), K_TRANSITION, a, a, C_FPGA_TEMP, 1, 0, 255, 255, APENET_REPORT_PATH_SELF,
		    78 + rndu(rs) * 3);
		neighbours(sh, rs, t, a, -1, C_NBR_TEMP, 1, 0, 255, NAN);
		break;
	}
	case E_HOST: {
		/* the node itself is silent: only its neighbours speak; the
		 * supervisor notes the silence */
		neighbours(sh, rs, 0, a, -1, C_NBR_HOST, 0, 2, 255, NAN);
		add(sh, 3500 + rndr(rs, 0, 100), K_SUPNOTE, a, a, 0, 0, 0, 255, 255, APENET_HDB_PATH_SUPERVISOR, NAN);
		if (sh->forever)
			break;
		int64_t t = (int64_t)rndlog(rs, 30e3, 3600e3);
		if (rndu(rs) < 0.5) /* rebooted: a new boot id, then alive again */
			add(sh, t - 2000, K_REBOOT, a, a, 0, 0, 0, 255, 255, APENET_REPORT_PATH_SELF, NAN);
		neighbours(sh, rs, t, a, -1, C_NBR_HOST, 2, 0, 255, NAN);
		break;
	}
	default: { /* E_DNP: neighbours see its word go stale, then the watchdog says hung */
		for (int k = 0; k < NLINKS; k++)
			add(sh, rndr(rs, 200, 400), K_TRANSITION, partner[a][k], a, C_LDM_STALE, 0, 1, 255, partner_link[a][k],
			    APENET_REPORT_PATH_NEIGHBOUR_LDM, 1000 + rndu(rs) * 500);
		add(sh, rndr(rs, 500, 700), K_TRANSITION, a, a, C_DNP_HUNG, 0, 2, 255, 255, APENET_REPORT_PATH_WATCHDOG,
		    NAN);
		for (int k = 0; k < NLINKS; k++)
			add(sh, rndr(rs, 3000, 3500), K_TRANSITION, partner[a][k], a, C_LDM_STALE, 1, 2, 255,
			    partner_link[a][k], APENET_REPORT_PATH_NEIGHBOUR_LDM, 3000 + rndu(rs) * 500);
		if (sh->forever)
			break;
		int64_t t = (int64_t)rndlog(rs, 10e3, 1800e3);
		add(sh, t + rndr(rs, 0, 100), K_TRANSITION, a, a, C_DNP_HUNG, 2, 0, 255, 255, APENET_REPORT_PATH_WATCHDOG,
		    NAN);
		for (int k = 0; k < NLINKS; k++)
			add(sh, t + rndr(rs, 100, 600), K_TRANSITION, partner[a][k], a, C_LDM_STALE, 2, 0, 255,
			    partner_link[a][k], APENET_REPORT_PATH_NEIGHBOUR_LDM, 10 + rndu(rs) * 40);
		break;
	}
	}
	/* in time order: the first is the first fault, the last closes it */
	qsort(sh->ev, (size_t)sh->n, sizeof(sh->ev[0]), cmp_gev);
}

/* ---- the writing pass ---- */

struct heap {
	struct gev *v;
	size_t n, cap;
};

static int heap_less(const struct gev *a, const struct gev *b)
{
	return a->t < b->t || (a->t == b->t && a->ord < b->ord);
}

static int heap_push(struct heap *h, const struct gev *g)
{
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 4096;
		struct gev *v = realloc(h->v, cap * sizeof(*v));
		if (!v)
			return -1;
		h->v = v;
		h->cap = cap;
	}
	size_t i = h->n++;
	h->v[i] = *g;
	while (i && heap_less(&h->v[i], &h->v[(i - 1) / 2])) {
		struct gev t = h->v[i];
		h->v[i] = h->v[(i - 1) / 2];
		h->v[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
	return 0;
}

static void heap_pop(struct heap *h, struct gev *out)
{
	*out = h->v[0];
	h->v[0] = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < h->n && heap_less(&h->v[l], &h->v[m]))
			m = l;
		if (r < h->n && heap_less(&h->v[r], &h->v[m]))
			m = r;
		if (m == i)
			break;
		struct gev t = h->v[i];
		h->v[i] = h->v[m];
		h->v[m] = t;
		i = m;
	}
}

struct epstate {
	int64_t inc;   /* its incident (0: none yet) */
	int64_t pre;   /* a hung DNP's first incident, on a link, merged into inc */
	uint16_t left; /* its events not written yet */
	uint8_t type, incident, forever;
};

struct gen {
	struct apenet_hdb *db;
	struct apenet_err e;
	uint64_t er;                 /* draws made while writing (jitter, texts, cables) */
	uint32_t gen[NNODES];        /* each node's agent: its boot number... */
	uint64_t seq[NNODES];        /* ...and the last sequence it used */
	uint8_t cabled[NNODES];      /* bit l: link l has a cable record */
	uint8_t ncert[NNODES][NLINKS]; /* certificates of the cable on a link (its end with the smaller index) */
	struct epstate *ep;
	long long batch, in_batch;
	uint64_t transitions, reports, incidents, merged, evidence, cables, certs, open_left;
	};

static void boot_id(const struct gen *g, uint32_t node, char *out, size_t n)
{
	unsigned xyz[3];
	xyz_of(node, xyz);
	snprintf(out, n, "%u,%u,%u#%u", xyz[0], xyz[1], xyz[2], g->gen[node]);
}

/* The report of one event, as the agent would send it. */
static void fill_report(struct gen *g, const struct gev *v, struct apenet_report *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = APENET_REPORT_HEALTH;
	r->threshold = NAN;
	unsigned a[3];
	xyz_of(v->about, a);
	r->x = a[0], r->y = a[1], r->z = a[2];
	snprintf(r->node, sizeof(r->node), "%s", node_name(NULL, a[0], a[1], a[2]));
	boot_id(g, v->reporter, r->boot, sizeof(r->boot));
	r->seq = ++g->seq[v->reporter];
	r->time_ms = v->t;
	r->subject = (enum apenet_report_subject)codes[v->code].subject;
	const char *where = codes[v->code].where ? codes[v->code].where : apenet_hdb_link_name(v->where_link);
	snprintf(r->where, sizeof(r->where), "%s", where);
	snprintf(r->code, sizeof(r->code), "%s", codes[v->code].code);
	snprintf(r->unit, sizeof(r->unit), "%s", codes[v->code].unit);
	r->old_status = v->old_st;
	r->new_status = v->new_st;
	r->value = isnan(v->value) ? NAN : (double)v->value;
	r->path = (enum apenet_report_path)v->path;
	if (v->via_link != 255)
		snprintf(r->via, sizeof(r->via), "%s", apenet_hdb_link_name(v->via_link));
	const char *via = r->via;
	/* the word a neighbour relays, as the DNP encodes it: the field of
	 * the link (X+ ... Z- are fields 12 ... 7) or of the temperature, or
	 * the host-expired bit */
	uint32_t ldm = 1u << 31;
	if (v->code == C_NBR_LINK)
		ldm |= (uint32_t)v->new_st << apenet_ldm_field_lsb(APENET_LDM_F_XPLUS - v->where_link);
	else if (v->code == C_NBR_TEMP)
		ldm |= (uint32_t)v->new_st << apenet_ldm_field_lsb(APENET_LDM_F_TEMPERATURE);
	else if (v->code == C_NBR_HOST && v->new_st)
		ldm |= 1u << 26;
	unsigned age = 1 + (unsigned)rndn(&g->er, 90);
	int up = v->new_st == 0;
	switch (v->code) {
	case C_LINK_DOWN: {
		unsigned f[3];
		xyz_of(partner[v->about][v->where_link], f);
		if (up)
			snprintf(r->evidence, sizeof(r->evidence), "%s up: 4 of 4 lanes aligned, partner %u,%u,%u %s", where,
				 f[0], f[1], f[2], apenet_hdb_link_name(partner_link[v->about][v->where_link]));
		else
			snprintf(r->evidence, sizeof(r->evidence), "%s down: 0 of 4 lanes aligned, partner %u,%u,%u %s unreachable",
				 where, f[0], f[1], f[2], apenet_hdb_link_name(partner_link[v->about][v->where_link]));
		break;
	}
	case C_LINK_CRC:
		r->threshold = 5;
		snprintf(r->evidence, sizeof(r->evidence), "%s: %.1f CRC errors/s (limit 5/s)", where, r->value);
		break;
	case C_LANE_CODE:
		r->threshold = 15;
		snprintf(r->evidence, sizeof(r->evidence), "%s lane %u: %.1f code errors/s (limit 15/s)", where,
			 rndn(&g->er, 4), r->value);
		break;
	case C_FPGA_TEMP:
		r->threshold = 85;
		snprintf(r->evidence, sizeof(r->evidence), up ? "FPGA %.1f C, back under the limit 85 C" : "FPGA %.1f C (limit 85 C)",
			 r->value);
		break;
	case C_DNP_HUNG:
		snprintf(r->evidence, sizeof(r->evidence), "%s",
			 up ? "watchdog: the DNP's heartbeat moves again" : "watchdog: the DNP's heartbeat stuck for 5 periods");
		break;
	case C_LDM_STALE:
		r->threshold = v->new_st == 2 ? 3000 : 1000;
		snprintf(r->evidence, sizeof(r->evidence), "no diagnostic word on %s for %.0f ms", via, r->value);
		break;
	default: /* a neighbour's LDM word */
		snprintf(r->evidence, sizeof(r->evidence), "LINK_LDM_RX 0x%08x on %s, %u ms old", (unsigned)ldm, via, age);
		break;
	}
}

static int put(struct gen *g, const struct apenet_report *r, int64_t recv)
{
	int stored = 0;
	if (apenet_hdb_put_report(g->db, r, recv, &stored, &g->e))
		return -1;
	if (!stored) {
		snprintf(g->e.msg, sizeof(g->e.msg), "report %s seq %llu not stored (a duplicate?)", r->boot,
			 (unsigned long long)r->seq);
		return -1;
	}
	g->reports++;
	if (++g->in_batch >= g->batch) {
		if (apenet_hdb_commit(g->db, &g->e) || apenet_hdb_begin(g->db, &g->e))
			return -1;
		g->in_batch = 0;
	}
	return 0;
}

static int heartbeat(struct gen *g, uint32_t node, int64_t t)
{
	struct apenet_report r;
	memset(&r, 0, sizeof(r));
	r.kind = APENET_REPORT_HEARTBEAT;
	r.value = r.threshold = NAN;
	unsigned xyz[3];
	xyz_of(node, xyz);
	r.x = xyz[0], r.y = xyz[1], r.z = xyz[2];
	snprintf(r.node, sizeof(r.node), "%s", node_name(NULL, xyz[0], xyz[1], xyz[2]));
	boot_id(g, node, r.boot, sizeof(r.boot));
	r.seq = ++g->seq[node];
	r.time_ms = t;
	r.path = APENET_REPORT_PATH_SELF;
	r.ldm = 0x80000000u;
	snprintf(r.evidence, sizeof(r.evidence), "all normal");
	return put(g, &r, t + rndr(&g->er, 2, 40));
}

/* ---- cables and certificates ---- */

/* A link named by its end with the smaller node index (as a cable is). */
static void canon_link(uint32_t *a, int *l, uint32_t *b, int *lb)
{
	*b = partner[*a][*l];
	*lb = partner_link[*a][*l];
	if (*b < *a) {
		uint32_t t = *a;
		*a = *b;
		*b = t;
		int tl = *l;
		*l = *lb;
		*lb = tl;
	}
}

static const char *const vendors[] = { "Amphenol", "Molex", "TE Connectivity", "3M" };
static const char *const vendor_tag[] = { "AMP", "MLX", "TEC", "3MC" };

/* The cable on link l of node a (its record made, or seen again), with n
 * certificates.  Its serial, vendor and length follow from the link, so a
 * cable seen again is the same record. */
static int cable(struct gen *g, uint32_t a, int l, int64_t when, const char *const *verdicts, const int64_t *at, int n)
{
	uint32_t b;
	int lb;
	canon_link(&a, &l, &b, &lb);
	uint32_t key = a * NLINKS + (uint32_t)l;
	uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 29;
	struct apenet_hdb_cable c;
	memset(&c, 0, sizeof(c));
	unsigned v = (unsigned)(h % 4);
	snprintf(c.serial, sizeof(c.serial), "%s%08u", vendor_tag[v], 10000000u + key);
	snprintf(c.vendor, sizeof(c.vendor), "%s", vendors[v]);
	static const double lengths[] = { 1, 2, 3, 5 };
	c.length_m = lengths[(h >> 8) % 4];
	snprintf(c.part, sizeof(c.part), "QSFP+ passive copper %.0f m", c.length_m);
	c.has_a = c.has_b = 1;
	xyz_of(a, c.a);
	snprintf(c.a_link, sizeof(c.a_link), "%s", apenet_hdb_link_name(l));
	xyz_of(b, c.b);
	snprintf(c.b_link, sizeof(c.b_link), "%s", apenet_hdb_link_name(lb));
	if (apenet_hdb_cable_seen(g->db, &c, when, &g->e))
		return -1;
	if (!(g->cabled[a] >> l & 1))
		g->cables++;
	g->cabled[a] |= (uint8_t)(1u << l);
	g->cabled[b] |= (uint8_t)(1u << lb);
	/* 1-3 certificates a cable: a link that failed again is not
	 * qualified a fourth time */
	if (n > 3 - g->ncert[a][l])
		n = 3 - g->ncert[a][l];
	g->ncert[a][l] = (uint8_t)(g->ncert[a][l] + n);
	for (int i = 0; i < n; i++) {
		struct apenet_hdb_cert ct;
		memset(&ct, 0, sizeof(ct));
		snprintf(ct.serial, sizeof(ct.serial), "%s", c.serial);
		memcpy(ct.node, c.a, sizeof(ct.node));
		snprintf(ct.link, sizeof(ct.link), "%s", c.a_link);
		ct.has_far = 1;
		memcpy(ct.far, c.b, sizeof(ct.far));
		snprintf(ct.far_link, sizeof(ct.far_link), "%s", c.b_link);
		snprintf(ct.pattern, sizeof(ct.pattern), "prbs31");
		ct.target = 1e-12;
		ct.cl = 0.95;
		snprintf(ct.verdict, sizeof(ct.verdict), "%s", verdicts[i]);
		int fail = !strcmp(verdicts[i], "fail");
		ct.bits = fail ? 4000000000000ULL : 24000000000000ULL;
		ct.errors = fail ? 40 + rndn(&g->er, 200) : 0;
		ct.upper = fail ? (double)ct.errors * 1.3 / (double)ct.bits : 3.0 / (double)ct.bits;
		ct.lower = fail ? (double)ct.errors * 0.75 / (double)ct.bits : 0;
		ct.swept = fail || rndu(&g->er) < 0.1;
		int off = 0, offf = 0;
		struct apenet_out *lj = apenet_out_mem();
		apenet_out_arr_begin(lj, NULL);
		for (int lane = 0; lane < 4; lane++) {
			off += snprintf(ct.pma_near + off, sizeof(ct.pma_near) - (size_t)off, "%s%u/%u/%u/0/%u/%u", lane ? " " : "",
					30 + rndn(&g->er, 20), rndn(&g->er, 8), 5 + rndn(&g->er, 10), 4 + rndn(&g->er, 8),
					rndn(&g->er, 5));
			offf += snprintf(ct.pma_far + offf, sizeof(ct.pma_far) - (size_t)offf, "%s%u/%u/%u/0/%u/%u",
					 lane ? " " : "", 30 + rndn(&g->er, 20), rndn(&g->er, 8), 5 + rndn(&g->er, 10),
					 4 + rndn(&g->er, 8), rndn(&g->er, 5));
			for (int dir = 0; dir < 2; dir++) {
				const unsigned *from = dir ? c.b : c.a, *to = dir ? c.a : c.b;
				apenet_out_obj_begin(lj, NULL);
				apenet_out_int(lj, "lane", lane);
				apenet_out_strf(lj, "from", "%u,%u,%u %s", from[0], from[1], from[2], dir ? c.b_link : c.a_link);
				apenet_out_strf(lj, "to", "%u,%u,%u %s", to[0], to[1], to[2], dir ? c.a_link : c.b_link);
				apenet_out_uint(lj, "bits", ct.bits / 8);
				apenet_out_uint(lj, "errors", ct.errors / 8);
				apenet_out_obj_end(lj);
			}
		}
		apenet_out_arr_end(lj);
		if (apenet_out_mem_finish(lj, ct.lanes, sizeof(ct.lanes)) < 0)
			return apenet_err_set(&g->e, APENET_EIO, "certificate lanes: out of memory");
		ct.started_ms = at[i];
		ct.finished_ms = at[i] + (fail ? 600000 : 2 * 3600000) + rndr(&g->er, 0, 600000);
		if (apenet_hdb_cert_put(g->db, &ct, NULL, &g->e))
			return -1;
		g->certs++;
	}
	return 0;
}

/* ---- incidents ---- */

static void incident_of(uint32_t node, int link, const char *component, const char *rule,
			struct apenet_hdb_incident *in)
{
	memset(in, 0, sizeof(*in));
	snprintf(in->component, sizeof(in->component), "%s", component);
	snprintf(in->rule, sizeof(in->rule), "%s", rule);
	if (link >= 0) {
		uint32_t a = node, b;
		int l = link, lb;
		canon_link(&a, &l, &b, &lb);
		xyz_of(a, in->node);
		snprintf(in->link, sizeof(in->link), "%s", apenet_hdb_link_name(l));
		in->has_far = 1;
		xyz_of(b, in->far);
		snprintf(in->far_link, sizeof(in->far_link), "%s", apenet_hdb_link_name(lb));
	} else {
		xyz_of(node, in->node);
	}
}

static void evidence_of(const struct apenet_report *r, struct apenet_hdb_evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->time_ms = r->time_ms;
	ev->path = (int)r->path;
	snprintf(ev->reporter, sizeof(ev->reporter), "%.*s", (int)sizeof(ev->reporter) - 1, r->boot);
	ev->seq = r->seq;
	snprintf(ev->text, sizeof(ev->text), "%.*s", (int)sizeof(ev->text) - 1, r->evidence);
}

/* The supervisor's bookkeeping of an incident episode's event: the first
 * opens the incident, every other one is evidence, the last closes it. */
static int incident_step(struct gen *g, const struct gev *v, const struct apenet_report *r, const struct shape *sh,
			 int64_t last_t)
{
	struct epstate *st = &g->ep[v->ep];
	struct apenet_hdb_evidence ev;
	if (r)
		evidence_of(r, &ev);
	else {
		unsigned n[3];
		xyz_of(v->about, n);
		memset(&ev, 0, sizeof(ev));
		ev.time_ms = v->t;
		ev.path = APENET_HDB_PATH_SUPERVISOR;
		snprintf(ev.reporter, sizeof(ev.reporter), "supervisor");
		snprintf(ev.text, sizeof(ev.text), "no report from node %u,%u,%u for 3.5 s (the last seen at %lld)", n[0], n[1],
			 n[2], (long long)(v->t - 3500));
	}
	if (!st->inc && !st->pre) {
		struct apenet_hdb_incident in;
		if (st->type == E_DNP) /* its neighbours' stale words look like a link at first */
			incident_of(v->reporter, v->via_link, "cable", "link-one-end", &in);
		else if (st->type == E_CABLE)
			incident_of(sh->node, sh->link, "cable", "link-both-ends", &in);
		else if (st->type == E_CRC)
			incident_of(sh->node, sh->link, "cable", "link-one-end", &in);
		else if (st->type == E_TEMP)
			incident_of(sh->node, -1, "sensor:temperature", "self-and-neighbours", &in);
		else
			incident_of(sh->node, -1, "host", "host-hung", &in);
		in.opened_ms = v->t + (st->type == E_HOST ? 3600 : SETTLE_MS);
		in.settled_ms = in.opened_ms;
		in.first = ev;
		int64_t id;
		if (apenet_hdb_incident_open(g->db, &in, &id, &g->e))
			return -1;
		g->incidents++;
		g->evidence++;
		if (st->type == E_DNP)
			st->pre = id;
		else
			st->inc = id;
		/* a cable that failed gets its record, with the certificate
		 * of its installation (and is qualified again after) */
		if (!strcmp(in.component, "cable")) {
			uint32_t a = idx_of(in.node);
			int l = apenet_hdb_link_index(in.link);
			const char *const pass[1] = { "pass" };
			const int64_t at[1] = { T_START - rndr(&g->er, 30, 400) * DAY_MS };
			if (!(g->cabled[a] >> l & 1) && cable(g, a, l, v->t, pass, at, 1))
				return -1;
		}
	} else if (st->type == E_DNP && !st->inc && v->code == C_DNP_HUNG && r) {
		struct apenet_hdb_incident in;
		incident_of(sh->node, -1, "dnp", "dnp-hung", &in);
		in.opened_ms = v->t + SETTLE_MS;
		in.settled_ms = in.opened_ms;
		in.first = ev;
		if (apenet_hdb_incident_open(g->db, &in, &st->inc, &g->e))
			return -1;
		g->incidents++;
		g->evidence++;
		struct apenet_hdb_incident pre;
		if (apenet_hdb_incident_get(g->db, st->pre, &pre, &g->e) != 1 ||
		    apenet_hdb_incident_close(g->db, st->pre, in.opened_ms, APENET_HDB_MERGED, st->inc, &g->e))
			return -1;
		g->merged++;
		struct apenet_hdb_evidence m = pre.first;
		m.id = 0;
		m.time_ms = in.opened_ms;
		snprintf(m.text, sizeof(m.text), "merged in: incident %lld (cable link-one-end); its first fault: %.120s",
			 (long long)st->pre, pre.first.text);
		if (apenet_hdb_incident_evidence(g->db, st->inc, &m, &g->e))
			return -1;
		g->evidence++;
	} else {
		if (apenet_hdb_incident_evidence(g->db, st->inc ? st->inc : st->pre, &ev, &g->e))
			return -1;
		g->evidence++;
	}
	if (st->left == 0 && !st->forever) {
		int64_t id = st->inc ? st->inc : st->pre;
		if (apenet_hdb_incident_close(g->db, id, last_t + SETTLE_MS, APENET_HDB_CLOSED, 0, &g->e))
			return -1;
		struct apenet_hdb_incident in;
		if (apenet_hdb_incident_get(g->db, id, &in, &g->e) != 1)
			return -1;
		if (!strcmp(in.component, "cable")) {
			/* re-qualified after the incident, hours to days later; a
			 * failed one reseated and qualified again.  The
			 * representative: both, two and eight hours after. */
			uint32_t a = idx_of(in.node);
			int l = apenet_hdb_link_index(in.link);
			int rep = a == idx_of(rep_node) && l == REP_LINK;
			int64_t at[2] = { last_t + rndr(&g->er, 3600000, 3 * DAY_MS), 0 };
			at[1] = at[0] + rndr(&g->er, 3 * 3600000, DAY_MS);
			const char *verdicts[2] = { rndu(&g->er) < 0.3 ? "fail" : "pass", "pass" };
			if (rep) {
				at[0] = last_t + 2 * 3600000;
				at[1] = last_t + 8 * 3600000;
				verdicts[0] = "fail";
			}
			int n = !strcmp(verdicts[0], "fail") ? 2 : 1;
			if (at[n - 1] < T_END - DAY_MS / 8 && cable(g, a, l, last_t, verdicts, at, n))
				return -1;
		}
	}
	return 0;
}

/* ---- generating the file ---- */

/* How many episodes make `want` transitions (the representative one
 * included), counting the shapes the writing pass will draw. */
static uint64_t count_episodes(uint64_t want, uint64_t *total)
{
	static struct shape sh;
	uint64_t rs = SEED, rr = SEED ^ 0xa11ce, n = 0, sum;
	make_shape(&rr, &sh, 1);
	sum = (uint64_t)sh.ntr;
	while (sum < want) {
		make_shape(&rs, &sh, 0);
		sum += (uint64_t)sh.ntr;
		n++;
	}
	*total = sum;
	return n;
}

static double expo(uint64_t *s)
{
	return -log(1 - rndu(s));
}

static int generate(const char *path, uint64_t want, long long batch)
{
	static struct gen g; /* 300 KB of per-node state: not on the stack */
	static struct shape sh;
	double t_start = e2e_now();
	memset(&g, 0, sizeof(g));
	g.er = SEED ^ 0xe7e7;
	g.batch = batch;
	for (uint32_t i = 0; i < NNODES; i++)
		g.gen[i] = 1 + (uint32_t)rndn(&g.er, 4); /* agents restarted a few times before */
	uint64_t total;
	uint64_t nep = count_episodes(want, &total);
	g.ep = calloc(nep + 2, sizeof(*g.ep));
	if (!g.ep)
		return -1;
	fprintf(stderr, "bench: generating %s: %llu transitions in %llu episodes over %d days (%.1f s to plan)\n", path,
		(unsigned long long)want, (unsigned long long)nep + 1, DAYS, e2e_now() - t_start);

	const unsigned dims[3] = { DIM, DIM, DIM };
	if (apenet_hdb_open(path, APENET_HDB_CREATE, &g.db, &g.e) ||
	    apenet_hdb_layout(g.db, dims, node_name, NULL, &g.e))
		goto fail;
	/* The times of routine heartbeats are kept in memory and written at
	 * close: a flush of 32K rows every second (the default) is the
	 * supervisor's cost, not this data set's. */
	apenet_hdb_set_heartbeat_flush(g.db, 3600 * 1000);
	if (apenet_hdb_begin(g.db, &g.e))
		goto fail;
	/* every node heard at the start */
	for (uint32_t i = 0; i < NNODES; i++)
		if (heartbeat(&g, i, T_START - rndr(&g.er, 0, 1000)))
			goto fail;
	/* the inventory: cables on 1,000 links, qualified before the 30 days;
	 * the representative link's among them */
	{
		const char *const v1[1] = { "pass" };
		const int64_t at[1] = { T_START - 40 * DAY_MS };
		if (cable(&g, idx_of(rep_node), REP_LINK, T_START, v1, at, 1))
			goto fail;
		for (int i = 0; i < 1000; i++) {
			uint32_t a = rndn(&g.er, NNODES);
			int l = (int)rndn(&g.er, NLINKS);
			if (g.cabled[a] >> l & 1)
				continue;
			const char *const vv[2] = { "pass", rndu(&g.er) < 0.1 ? "fail" : "pass" };
			int64_t t2[2] = { T_START - rndr(&g.er, 30, 400) * DAY_MS, 0 };
			t2[1] = t2[0] + rndr(&g.er, 1, 20) * DAY_MS;
			if (cable(&g, a, l, T_START, vv, t2, 1 + (int)rndn(&g.er, 2)))
				goto fail;
		}
	}

	/* Episodes at Poisson arrivals spread over the 30 days: n uniform
	 * order statistics as normalised exponential spacings (two passes
	 * over the same draws: the sum first). */
	uint64_t ts = SEED ^ 0x7157, rs = SEED, rr = SEED ^ 0xa11ce;
	double spacing_sum = 0;
	for (uint64_t i = 0; i <= nep; i++)
		spacing_sum += expo(&ts);
	ts = SEED ^ 0x7157;
	const double span = (double)(T_END - 60000 - T_START); /* the last one's reports fit before the end */
	double acc = 0;
	uint64_t made = 0, ord = 0, scheduled = 0;
	int rep_done = 0;
	struct heap h = { 0 };
	int64_t next = T_START + (int64_t)(span * (acc += expo(&ts)) / spacing_sum);
	double t_last = e2e_now();
	uint64_t tr_last = 0;
	while (made < nep || !rep_done || h.n) {
		int64_t arr = made < nep ? next : INT64_MAX;
		if (!rep_done && REP_TIME <= arr)
			arr = REP_TIME;
		if (arr != INT64_MAX && (h.n == 0 || h.v[0].t > arr)) {
			int is_rep = !rep_done && arr == REP_TIME;
			make_shape(is_rep ? &rr : &rs, &sh, is_rep);
			uint32_t ep = (uint32_t)(made + (rep_done ? 1 : 0));
			if (is_rep)
				rep_done = 1;
			else {
				made++;
				next = T_START + (int64_t)(span * (acc += expo(&ts)) / spacing_sum);
			}
			/* compressed to fit before the end when it would run over */
			int64_t last = sh.n ? sh.ev[sh.n - 1].t : 0;
			double scale = arr + last > T_END - 1000 ? (double)(T_END - 1000 - arr) / (double)last : 1;
			struct epstate *st = &g.ep[ep];
			st->type = (uint8_t)sh.type;
			st->incident = (uint8_t)sh.incident;
			st->forever = (uint8_t)sh.forever;
			for (int i = 0; i < sh.n; i++) {
				struct gev v = sh.ev[i];
				if (v.kind == K_TRANSITION) {
					if (scheduled >= want) {
						st->forever = 1; /* cut short at the count: left as it is */
						continue;
					}
					scheduled++;
				}
				v.t = arr + (int64_t)((double)v.t * scale);
				v.ep = ep;
				v.ord = ord++;
				if (heap_push(&h, &v)) {
					snprintf(g.e.msg, sizeof(g.e.msg), "out of memory");
					goto fail;
				}
				st->left++;
			}
			continue;
		}
		struct gev v;
		heap_pop(&h, &v);
		struct epstate *st = &g.ep[v.ep];
		st->left--;
		struct apenet_report r;
		int have_r = 0;
		if (v.kind == K_TRANSITION) {
			fill_report(&g, &v, &r);
			if (put(&g, &r, v.t + rndr(&g.er, 2, 40)))
				goto fail;
			g.transitions++;
			have_r = 1;
		} else if (v.kind == K_REBOOT) {
			g.gen[v.about]++;
			g.seq[v.about] = 0;
			if (heartbeat(&g, v.about, v.t))
				goto fail;
		}
		if (st->incident && v.kind != K_REBOOT) {
			/* what the incident blames: a link event names one end of
			 * the cable (its own, or, from a neighbour, the one it
			 * reads about) and the link there; the others the node */
			sh.type = st->type;
			sh.node = v.about;
			sh.link = st->type == E_CABLE || st->type == E_CRC ? v.where_link : -1;
			if (incident_step(&g, &v, have_r ? &r : NULL, &sh, v.t))
				goto fail;
		}
		if (g.transitions - tr_last >= 1000000 || (!h.n && made >= nep)) {
			double now = e2e_now();
			fprintf(stderr, "bench: %5.1f M transitions, %llu incidents, %.0f s (%.0f/s now)\n",
				(double)g.transitions / 1e6, (unsigned long long)g.incidents, now - t_start,
				(double)(g.transitions - tr_last) / (now - t_last));
			t_last = now;
			tr_last = g.transitions;
		}
	}
	free(h.v);
	for (uint64_t i = 0; i <= nep; i++)
		if (g.ep[i].incident && g.ep[i].forever && (g.ep[i].inc || g.ep[i].pre))
			g.open_left++;
	/* every node heard at the end; then the marker, in the last batch */
	for (uint32_t i = 0; i < NNODES; i++)
		if (heartbeat(&g, i, T_END - rndr(&g.er, 0, 1000)))
			goto fail;
	{
		struct apenet_hdb_cable m;
		memset(&m, 0, sizeof(m));
		snprintf(m.serial, sizeof(m.serial), MARKER_SERIAL);
		snprintf(m.vendor, sizeof(m.vendor), MARKER_VENDOR);
		snprintf(m.part, sizeof(m.part), "v%d n=%llu", GEN_VERSION, (unsigned long long)want);
		m.length_m = NAN;
		if (apenet_hdb_cable_seen(g.db, &m, T_END, &g.e))
			goto fail;
	}
	if (apenet_hdb_commit(g.db, &g.e))
		goto fail;
	struct apenet_hdb_stats hs;
	apenet_hdb_stats(g.db, &hs);
	double t_close = e2e_now();
	apenet_hdb_close(g.db);
	g.db = NULL;
	double secs = e2e_now() - t_start;
	struct stat sb;
	stat(path, &sb);
	printf("generated: %llu transitions (stored %llu, %llu duplicates), %llu reports, %llu incidents (%llu merged, "
	       "%llu left open), %llu evidence rows, %llu cables, %llu certificates\n",
	       (unsigned long long)g.transitions, (unsigned long long)hs.transitions, (unsigned long long)hs.duplicates,
	       (unsigned long long)g.reports, (unsigned long long)g.incidents, (unsigned long long)g.merged,
	       (unsigned long long)g.open_left, (unsigned long long)g.evidence, (unsigned long long)g.cables,
	       (unsigned long long)g.certs);
	printf("generation: %.0f s (%.0f transitions/s through apenet_hdb_put_report, batches of %lld; close %.1f s), "
	       "%.2f GB\n",
	       secs, (double)g.transitions / secs, batch, e2e_now() - t_close, (double)sb.st_size / 1e9);
	free(g.ep);
	return hs.transitions == want ? 0 : -1;
fail:
	fprintf(stderr, "bench: generating %s: %s\n", path, g.e.msg[0] ? g.e.msg : "failed");
	apenet_hdb_close(g.db);
	free(g.ep);
	return -1;
}

/* ---- what the benchmark needs from the database (in a child) ---- */

struct info {
	int ok;
	int marker;          /* 1: ours and current, 0: ours but stale, -1: not ours, -2: cannot open */
	char why[1280];
	struct bench_report_pick pick;
};

static int rep_cb(void *arg, const struct apenet_hdb_incident *in)
{
	struct info *f = arg;
	if (strcmp(in->component, "cable") || f->pick.incident)
		return 0;
	/* 13,7,21 is the cable's end with the smaller index */
	if (!memcmp(in->node, rep_node, sizeof(in->node)) && !strcmp(in->link, apenet_hdb_link_name(REP_LINK))) {
		f->pick.incident = in->id;
		f->pick.opened_ms = in->opened_ms;
		f->pick.evidence = in->evidence;
		snprintf(f->pick.where, sizeof(f->pick.where), "cable %u,%u,%u %s <-> %u,%u,%u %s, %s", in->node[0], in->node[1],
			 in->node[2], in->link, in->far[0], in->far[1], in->far[2], in->far_link, in->rule);
	}
	return 0;
}

static int count_tr(void *arg, const struct apenet_hdb_transition *t)
{
	(void)t;
	(*(uint64_t *)arg)++;
	return 0;
}

static int count_inc(void *arg, const struct apenet_hdb_incident *in)
{
	struct info *f = arg;
	f->pick.win_incidents++;
	f->pick.win_evidence += in->evidence;
	return 0;
}

static void probe(const char *path, uint64_t want, int full, struct info *f)
{
	struct apenet_hdb *db;
	struct apenet_err e = { 0 };
	memset(f, 0, sizeof(*f));
	if (apenet_hdb_open(path, APENET_HDB_READONLY, &db, &e)) {
		f->marker = -2;
		snprintf(f->why, sizeof(f->why), "%s", e.msg);
		return;
	}
	struct apenet_hdb_cable m;
	char expect[32];
	snprintf(expect, sizeof(expect), "v%d n=%llu", GEN_VERSION, (unsigned long long)want);
	int rc = apenet_hdb_cable_get(db, MARKER_SERIAL, &m, &e);
	if (rc != 1 || strcmp(m.vendor, MARKER_VENDOR)) {
		f->marker = -1;
		snprintf(f->why, sizeof(f->why), "no marker of this benchmark in it%s%s", rc < 0 ? ": " : "",
			 rc < 0 ? e.msg : "");
	} else if (strcmp(m.part, expect)) {
		f->marker = 0;
		snprintf(f->why, sizeof(f->why), "made by another version of the generator ('%s', this one '%s')", m.part,
			 expect);
	} else {
		f->marker = 1;
	}
	if (f->marker == 1 && full) {
		f->pick.since_ms = T0;
		f->pick.until_ms = T1;
		if (apenet_hdb_incidents_each(db, 0, REP_TIME - 60000, REP_TIME + 60000, rep_cb, f, &e) ||
		    apenet_hdb_transitions_each(db, T0, T1, NULL, count_tr, &f->pick.win_transitions, &e) ||
		    apenet_hdb_incidents_each(db, 0, T0, T1, count_inc, f, &e))
			snprintf(f->why, sizeof(f->why), "%s", e.msg);
		else if (!f->pick.incident)
			snprintf(f->why, sizeof(f->why), "the representative incident is not in it");
		else
			f->ok = 1;
	}
	apenet_hdb_close(db);
}

/* Runs the database work in a child, so this process stays small (see the
 * top: ru_maxrss). */
static int probe_child(const char *path, uint64_t want, int full, struct info *f)
{
	int p[2];
	if (pipe(p))
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(p[0]);
		struct info r;
		probe(path, want, full, &r);
		ssize_t w = write(p[1], &r, sizeof(r));
		_exit(w == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	memset(f, 0, sizeof(*f));
	size_t got = 0;
	while (got < sizeof(*f)) {
		ssize_t n = read(p[0], (char *)f + got, sizeof(*f) - got);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	return got == sizeof(*f) && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int generate_child(const char *path, uint64_t want, long long batch)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int rc = torus_init() == 0 && generate(path, want, batch) == 0 ? 0 : 1;
		fflush(NULL);
		_exit(rc);
	}
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void unlink3(const char *path)
{
	char b[PATH_MAX + 16];
	unlink(path);
	snprintf(b, sizeof(b), "%s-wal", path);
	unlink(b);
	snprintf(b, sizeof(b), "%s-shm", path);
	unlink(b);
}

static int mkdirs(const char *path)
{
	char b[PATH_MAX];
	snprintf(b, sizeof(b), "%s", path);
	for (char *p = b + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(b, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return 0;
}

/* The database, made or reused; 0 when it is there and current.  owned:
 * the path is the benchmark's own (build/bench-data/), so a file there
 * that cannot be used (an older schema, which a reader refuses; another
 * generator's) is made again; a file named by BENCH_REPORT_DB is never
 * deleted unless it carries this benchmark's marker. */
static int ensure_db(const char *path, int owned, uint64_t want, long long batch)
{
	struct stat sb;
	struct info f;
	if (stat(path, &sb) == 0) {
		if (probe_child(path, want, 0, &f))
			return -1;
		if (f.marker == 1) {
			printf("database: %s, %.2f GB, reused (made earlier by this benchmark; delete it to make it again)\n",
			       path, (double)sb.st_size / 1e9);
			return 0;
		}
		if (f.marker < 0 && !owned) {
			fprintf(stderr, "bench: %s: %s: not made by this benchmark (or not readable by this build), left "
					"as it is; delete it or set BENCH_REPORT_DB to another file\n",
				path, f.why);
			return -1;
		}
		fprintf(stderr, "bench: %s: cannot be used (%s); it is this benchmark's: making it again\n", path, f.why);
		unlink3(path);
	}
	/* made under another name and renamed when complete: a file at
	 * path is always a finished one */
	char tmp[PATH_MAX + 8], a[PATH_MAX + 16], b[PATH_MAX + 16];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (mkdirs(path))
		return -1;
	unlink3(tmp);
	if (generate_child(tmp, want, batch))
		return -1;
	/* the WAL (kept by the library when the writer closes) goes with it */
	snprintf(a, sizeof(a), "%s-wal", tmp);
	snprintf(b, sizeof(b), "%s-wal", path);
	if (access(a, F_OK) == 0 && rename(a, b))
		return -1;
	snprintf(a, sizeof(a), "%s-shm", tmp);
	unlink(a);
	if (rename(tmp, path))
		return -1;
	if (probe_child(path, want, 0, &f) || f.marker != 1) {
		fprintf(stderr, "bench: %s: made, but %s\n", path, f.why);
		return -1;
	}
	return 0;
}

int bench_report_db(const char *path, int owned, uint64_t transitions, long long batch,
		    struct bench_report_pick *pick)
{
	struct info f;
	if (ensure_db(path, owned, transitions, batch))
		return -1;
	if (probe_child(path, transitions, 1, &f) || !f.ok) {
		fprintf(stderr, "bench: %s: %s\n", path, f.why[0] ? f.why : "cannot be read");
		return -1;
	}
	*pick = f.pick;
	return 0;
}
