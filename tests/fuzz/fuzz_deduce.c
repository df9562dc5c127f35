/*
 * The supervisors' deduction (lofamo/deduce*.c) driven by any sequence of
 * reports, heartbeats, ticks, restores and seeds on a 4x2x1 torus (a 2-wide
 * dimension; Z cables loop back to the node): reports with any code, any
 * coordinates (some outside the torus), any boot id (garbage too), path,
 * link and via, late or not, repeated.  Its promises:
 *   - the actions make one consistent story: a key opens once; evidence,
 *     re-blame and close only for an open key; a close once; a merge names
 *     another incident that was opened; a blamed node lies in the torus and
 *     a cable names both ends;
 *   - when every report is cleared and every node heard again, time closes
 *     everything: no incident, candidate or fact is left;
 *   - nothing leaks (ASan), whatever the input.
 * Each operation takes 8 bytes; the first picks it.
 */
#include <stdio.h>
#include <string.h>

#include "apenet/deduce.h"
#include "apenet/notify.h"
#include "apenet/regs.h"
#include "fuzz.h"

#define MAXK 2048
#define MAXS 512

static const char *const codes[] = {
	"CARD_GONE",      "DNP_HUNG",       "LDM_OWN_INVALID", "HOST_EXPIRED",  "SERVICE_NETWORK",
	"NEIGHBOUR_HOST_EXPIRED", "NEIGHBOUR_SERVICE", "NEIGHBOUR_CORE", "LDM_STALE", "LDM_INVALID",
	"NEIGHBOUR_LINK", "NEIGHBOUR_TEMPERATURE", "FPGA_TEMP", "LINK_DOWN", "LINK_TRAINING",
	"LINK_FLAPPING",  "LINK_CRC",       "MODULE_LOS",      "MODULE_ALARM",  "LINK_MISCABLED",
	"FIFO_HIGH",      "PCIE_DEGRADED",  "EDAC_MEMORY",     "SOMETHING_NEW", "",
};
static const char *const wheres[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-", "X", "", "fpga_temp", "W?" };
static const char *const comps[] = { "card", "node-power", "dnp", "host", "cable", "service-network", "supervisor",
				     "agent", "sensor:temperature", "module", "board", "nonsense" };

struct story {
	uint64_t key[MAXK];
	unsigned char state[MAXK]; /* 1 open, 2 closed */
	unsigned char prov[MAXK];  /* open provisionally, not settled yet */
	unsigned n;
};

static unsigned find(const struct story *s, uint64_t key)
{
	for (unsigned i = 0; i < s->n; i++)
		if (s->key[i] == key)
			return i;
	return MAXK;
}

static void check_blame(const struct apenet_deduce_blame *b)
{
	if (b->has_node)
		APENET_FUZZ_CHECK(b->x < 4 && b->y < 2 && b->z < 1);
	if (!strcmp(b->component, "cable")) {
		APENET_FUZZ_CHECK(b->has_node && b->has_far && b->link[0] && b->far_link[0]);
		APENET_FUZZ_CHECK(b->fx < 4 && b->fy < 2 && b->fz < 1);
	}
	APENET_FUZZ_CHECK(b->component[0] && b->rule[0]);
	APENET_FUZZ_CHECK(b->status == 1 || b->status == 2);
}

static void drain(struct apenet_deduce *d, struct story *s, int64_t *ref)
{
	struct apenet_deduce_action a;
	while (apenet_deduce_next_action(d, &a)) {
		unsigned k = find(s, a.key);
		switch (a.kind) {
		case APENET_DEDUCE_OPEN:
			APENET_FUZZ_CHECK(k == MAXK);
			if (s->n < MAXK) {
				s->key[s->n] = a.key;
				s->prov[s->n] = (unsigned char)a.provisional;
				s->state[s->n++] = 1;
			}
			check_blame(&a.blame);
			apenet_deduce_set_ref(d, a.key, ++*ref);
			break;
		case APENET_DEDUCE_EVIDENCE:
		case APENET_DEDUCE_REBLAME:
		case APENET_DEDUCE_SETTLE:
			if (k != MAXK) /* restored incidents are open without an OPEN */
				APENET_FUZZ_CHECK(s->state[k] == 1);
			/* a provisional incident: nothing but re-blames until it settles */
			APENET_FUZZ_CHECK(a.kind != APENET_DEDUCE_EVIDENCE || k == MAXK || !s->prov[k]);
			APENET_FUZZ_CHECK(a.kind != APENET_DEDUCE_SETTLE || (k != MAXK && s->prov[k]));
			if (k != MAXK && a.kind == APENET_DEDUCE_SETTLE)
				s->prov[k] = 0;
			if (a.kind != APENET_DEDUCE_EVIDENCE)
				check_blame(&a.blame);
			break;
		case APENET_DEDUCE_CLOSE:
			if (k != MAXK) {
				APENET_FUZZ_CHECK(s->state[k] == 1);
				APENET_FUZZ_CHECK(a.provisional == s->prov[k]);
				s->state[k] = 2;
			}
			APENET_FUZZ_CHECK(a.state == APENET_DEDUCE_CLOSED || a.state == APENET_DEDUCE_MERGED);
			if (a.state == APENET_DEDUCE_MERGED)
				APENET_FUZZ_CHECK(a.merged_into && a.merged_into != a.key);
			break;
		default:
			APENET_FUZZ_CHECK(0);
		}
	}
}

static void heartbeat(struct apenet_deduce *d, unsigned i, unsigned boot, int64_t now, uint64_t *seq)
{
	struct apenet_report r;
	memset(&r, 0, sizeof(r));
	r.kind = APENET_REPORT_HEARTBEAT;
	r.x = i % 4, r.y = i / 4 % 2;
	snprintf(r.boot, sizeof(r.boot), "%u,%u,0#%u", r.x, r.y, boot);
	r.seq = ++*seq;
	r.time_ms = now;
	apenet_deduce_report(d, &r, now);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct story s;
	static struct apenet_report sent[MAXS];
	unsigned nsent = 0;
	struct apenet_deduce_config c;
	struct apenet_deduce *d;
	struct apenet_err e = { 0 };
	int64_t now = 1000000, ref = 0;
	uint64_t seq = 0;
	unsigned boot[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

	memset(&s, 0, sizeof(s));
	apenet_deduce_config_defaults(&c);
	c.dims[0] = 4, c.dims[1] = 2, c.dims[2] = 1;
	c.silent_ms = 300, c.settle_ms = 150, c.explain_ms = 500, c.late_ms = 200;
	c.restore_hold_ms = 800, c.resync_ms = 1500, c.evidence_max = 8;
	if (apenet_deduce_open(&c, &d, &e))
		return 0;
	for (size_t p = 0; p + 8 <= size && p < 8 * 400; p += 8) {
		const uint8_t *b = data + p;
		unsigned op = b[0] % 8;
		if (op <= 3) {
			struct apenet_report r;
			memset(&r, 0, sizeof(r));
			r.kind = APENET_REPORT_HEALTH;
			r.x = b[1] % 5, r.y = (b[1] >> 3) % 3, r.z = (b[1] >> 5) % 2;
			unsigned who = b[2] % 9, bn = b[7] % 4;
			unsigned me[3] = { r.x, r.y, r.z }, far[3];
			enum apenet_dir back;
			int dim, wrap;
			if (who == 0 || who > 6 || r.x >= 4 || r.y >= 2 || r.z >= 1) {
				snprintf(r.boot, sizeof(r.boot), who == 8 ? "junk" : "%u,%u,%u#%u", r.x, r.y, r.z, bn);
				r.path = b[6] % 2 ? APENET_REPORT_PATH_WATCHDOG : APENET_REPORT_PATH_SELF;
			} else {
				/* from the neighbour whose link faces it, through that link */
				apenet_torus_neighbour(c.dims, me, (enum apenet_dir)(who - 1), far, &back, &dim, &wrap);
				snprintf(r.boot, sizeof(r.boot), "%u,%u,%u#%u", far[0], far[1], far[2], bn);
				snprintf(r.via, sizeof(r.via), "%s", wheres[back]);
				r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
			}
			if (b[6] & 0x80)
				r.path = b[6] % 5; /* any path at all */
			r.seq = b[6] & 0x40 ? 7 : ++seq; /* sometimes the same sequence again */
			r.time_ms = b[6] & 0x20 ? now - 1000 : now;
			r.subject = b[5] >> 4;
			snprintf(r.where, sizeof(r.where), "%s", wheres[b[4] % (sizeof(wheres) / sizeof(wheres[0]))]);
			snprintf(r.code, sizeof(r.code), "%s", codes[b[3] % (sizeof(codes) / sizeof(codes[0]))]);
			r.new_status = b[5] & 3;
			snprintf(r.evidence, sizeof(r.evidence), "fuzz %u", (unsigned)p);
			apenet_deduce_report(d, &r, now);
			if (r.new_status && nsent < MAXS)
				sent[nsent++] = r;
		} else if (op == 4) {
			unsigned i = b[1] % 8;
			if (b[2] & 1)
				boot[i]++;
			heartbeat(d, i, boot[i], now, &seq);
		} else if (op == 5) {
			now += b[1] * 20;
			apenet_deduce_tick(d, now);
		} else if (op == 6) {
			struct apenet_deduce_restore r = { 0 };
			r.ref = 100000 + b[1];
			r.component = comps[b[1] % (sizeof(comps) / sizeof(comps[0]))];
			r.rule = codes[b[4] % 3];
			r.has_node = b[5] & 1;
			r.x = b[2] % 5, r.y = (b[2] >> 3) % 3;
			r.link = wheres[b[3] % (sizeof(wheres) / sizeof(wheres[0]))];
			r.where = b[4] & 1 ? "self" : "peer";
			r.status = b[5] >> 6;
			r.first_ms = now - b[6];
			apenet_deduce_restore(d, &r, now, &e);
		} else {
			apenet_deduce_heard(d, b[1] % 4, (b[1] >> 2) % 2, 0, now - b[2] * 10, now - b[2] * 10);
		}
		drain(d, &s, &ref);
	}
	/* every report cleared (by the newest boot of its reporter: an older
	 * one only says the node is alive), every node heard: time closes all */
	for (unsigned k = 0; k < nsent; k++) {
		struct apenet_report *r = &sent[k];
		char *hash = strchr(r->boot, '#');
		unsigned x, y, z;
		if (hash && sscanf(r->boot, "%u,%u,%u#", &x, &y, &z) == 3 && x < 4 && y < 2 && z < 1)
			snprintf(hash + 1, sizeof(r->boot) - (size_t)(hash + 1 - r->boot), "%u", 1000u + boot[x + 4 * y]);
		r->new_status = 0;
		r->seq = ++seq;
		r->time_ms = now;
		apenet_deduce_report(d, r, now);
		drain(d, &s, &ref);
	}
	for (int t = 0; t < 60; t++) {
		now += 100;
		for (unsigned i = 0; i < 8; i++)
			heartbeat(d, i, 1000u + boot[i], now, &seq);
		apenet_deduce_tick(d, now);
		drain(d, &s, &ref);
	}
	struct apenet_deduce_stats st;
	apenet_deduce_stats(d, &st);
	APENET_FUZZ_CHECK(st.open == 0);
	APENET_FUZZ_CHECK(st.candidates == 0);
	APENET_FUZZ_CHECK(st.facts == 0);
	APENET_FUZZ_CHECK(st.silent == 0);
	for (unsigned k = 0; k < s.n; k++)
		APENET_FUZZ_CHECK(s.state[k] == 2);
	apenet_deduce_close(d);
	return 0;
}
