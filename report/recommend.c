/*
 * The report's recommendations: one plain sentence per blamed component,
 * saying what happened to which part and what to do, with the evidence
 * that backs it (the cable's serial and certificate history, what the
 * black box saw before the fault).  What to do is the judge's wording for
 * the same condition (apenet_code_rec: lofamo/rulebook.c, the words
 * `apenet status` prints), never a second one; the report adds the facts
 * only it has: which node, what the deduction blamed, the cable's
 * history ("replace the cable with serial S between nodes A and B" is the
 * report's own: no one code says it).  A black-box reading is worth one
 * only when it went past its rule's configured warn limit
 * (lofamo/rules_trend.c): a warm-up inside the limits stays a note in the
 * trends.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apenet/finding.h"
#include "apenet/out.h"
#include "postmortem_int.h"

static int add(struct apenet_postmortem *pm, size_t *cap, const char *component, const unsigned node[3], struct apenet_err *e,
	       const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int add(struct apenet_postmortem *pm, size_t *cap, const char *component, const unsigned node[3], struct apenet_err *e,
	       const char *fmt, ...)
{
	char text[sizeof(pm->rec[0].text)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < pm->nrec; i++)
		if (!strcmp(pm->rec[i].text, text))
			return 0;
	void *p = pm->rec;
	if (apenet_postmortem_grow(&p, cap, pm->nrec, sizeof(*pm->rec), e))
		return -1;
	pm->rec = p;
	struct apenet_postmortem_rec *r = &pm->rec[pm->nrec++];
	memset(r, 0, sizeof(*r));
	snprintf(r->component, sizeof(r->component), "%s", component);
	memcpy(r->node, node, sizeof(r->node));
	snprintf(r->text, sizeof(r->text), "%s", text);
	return 0;
}

static const struct apenet_postmortem_cable *cable_of(const struct apenet_postmortem *pm, int64_t incident)
{
	for (unsigned i = 0; i < pm->ncable; i++)
		if (pm->cable[i].incident == incident)
			return &pm->cable[i];
	return NULL;
}

/* "2026-11-27": the date of an ISO time. */
static void day(int64_t ms, char *buf, size_t n)
{
	char iso[40];
	snprintf(buf, n, "%.10s", apenet_out_iso_ms(ms, iso, sizeof(iso)));
}

/* What the cable's history adds: its certificates and earlier faults. */
static void cable_history(const struct apenet_postmortem_cable *c, char *buf, size_t n)
{
	size_t off = 0;
	buf[0] = 0;
	int named = apenet_postmortem_cable_serial(c, NULL) != NULL;
	if (c->known && c->ncerts) {
		const struct apenet_hdb_cert *k = &c->certs[0];
		char d[16];
		day(k->finished_ms, d, sizeof(d));
		off += (size_t)snprintf(buf + off, n - off, "; its latest certificate (%s) says %s at BER %.1e%s", d,
					k->verdict, k->target, k->swept ? ", with swept PMA settings" : "");
		unsigned fails = 0;
		for (unsigned i = 0; i < c->ncerts; i++)
			fails += !strcmp(c->certs[i].verdict, "fail");
		if (fails && off < n)
			off += (size_t)snprintf(buf + off, n - off, ", %u of %u certificates failed", fails, c->ncerts);
	} else if (named && off < n) {
		off += (size_t)snprintf(buf + off, n - off, "; it was never qualified");
	}
	if (c->nearlier && off < n) {
		char d[16];
		day(c->earlier[0].opened_ms, d, sizeof(d));
		snprintf(buf + off, n - off, "; it failed %u time%s before (latest: incident #%lld, %s)", c->nearlier,
			 c->nearlier == 1 ? "" : "s", (long long)c->earlier[0].id, d);
	}
}

/* What the judge says to do about a code, for the report's sentences. */
static const char *rec_of(const char *code)
{
	const char *r = apenet_code_rec(code);
	return r ? r : "look at it";
}

static int rec_incident(struct apenet_postmortem *pm, size_t *cap, const struct apenet_hdb_incident *in, struct apenet_err *e)
{
	char a[96], b[96], hist[300];
	const char *c = in->component;
	apenet_postmortem_node_label(pm, in->node, a, sizeof(a));
	if (!strcmp(c, "cable")) {
		const struct apenet_postmortem_cable *k = cable_of(pm, in->id);
		if (in->has_far)
			apenet_postmortem_node_label(pm, in->far, b, sizeof(b));
		else
			snprintf(b, sizeof(b), "its partner");
		hist[0] = 0;
		if (k)
			cable_history(k, hist, sizeof(hist));
		const char *serial = k ? apenet_postmortem_cable_serial(k, NULL) : NULL;
		if (serial) {
			/* with no record, what the module at one end says it is */
			const char *part = k->known ? k->cable.part : k->ends[0].serial[0] ? k->ends[0].part : k->ends[1].part;
			return add(pm, cap, c, in->node, e,
				   "Replace the cable with serial %s%s%s between node %s link %s and node %s link %s%s; "
				   "qualify the new one (apenet qualify --link %s on %u,%u,%u) before the link carries traffic.",
				   serial, part[0] ? ", part " : "", part, a, in->link, b, in->far_link[0] ? in->far_link : "?",
				   hist, in->link, in->node[0], in->node[1], in->node[2]);
		}
		return add(pm, cap, c, in->node, e,
			   "Reseat, then replace, the cable between node %s link %s and node %s link %s (no serial on record "
			   "or in a black box: read it with apenet module on %u,%u,%u)%s; qualify it (apenet qualify --link %s) "
			   "before use.",
			   a, in->link[0] ? in->link : "?", b, in->far_link[0] ? in->far_link : "?", in->node[0], in->node[1],
			   in->node[2], hist, in->link[0] ? in->link : "?");
	}
	/* the components one judge code stands for: its wording */
	if (!strcmp(c, "sensor:temperature"))
		return add(pm, cap, c, in->node, e, "The card of node %s overheated: %s.", a, rec_of("FPGA_TEMP"));
	if (!strcmp(c, "node-power"))
		return add(pm, cap, c, in->node, e, "Node %s lost power: %s.", a, rec_of("VCORE_LOW"));
	if (!strcmp(c, "sensor:voltage"))
		return add(pm, cap, c, in->node, e, "A supply rail of the card of node %s drooped: %s.", a,
			   rec_of("VCORE_LOW"));
	if (!strcmp(c, "sensor:current"))
		return add(pm, cap, c, in->node, e, "The card of node %s drew more current than allowed: %s.", a,
			   rec_of("ICORE_HIGH"));
	if (!strcmp(c, "host"))
		return add(pm, cap, c, in->node, e,
			   "The host of node %s stopped beating its card's watchdog (its card kept the torus informed): %s.",
			   a, rec_of("HOST_EXPIRED"));
	if (!strcmp(c, "dnp"))
		return add(pm, cap, c, in->node, e, "The DNP of node %s stopped (%s): %s.", a, in->rule, rec_of("DNP_HUNG"));
	if (!strcmp(c, "card"))
		return add(pm, cap, c, in->node, e, "The card of node %s fell off the PCIe bus: %s.", a, rec_of("CARD_GONE"));
	if (!strcmp(c, "service-network"))
		return add(pm, cap, c, in->node, e,
			   "Check the service network of node %s (its Ethernet port, cable and switch port): the "
			   "supervisors heard of it only through the torus.", a);
	if (!strcmp(c, "supervisor"))
		return add(pm, cap, c, in->node, e,
			   "Check the network path between the supervisors and node %s and the supervisor hosts (%s).", a,
			   in->rule);
	if (!strcmp(c, "agent"))
		return add(pm, cap, c, in->node, e,
			   "Restart and check the node agent of node %s (journalctl -u apenet-agent): it went silent "
			   "while its card and neighbours were fine.", a);
	if (!strcmp(c, "pcie"))
		return add(pm, cap, c, in->node, e,
			   "Check the PCIe slot of node %s (link trained below its capability or AER errors): reseat the "
			   "card.", a);
	if (!strcmp(c, "memory"))
		return add(pm, cap, c, in->node, e,
			   "Check the memory of node %s (EDAC errors): replace the DIMM the kernel names.", a);
	if (!strcmp(c, "module"))
		return add(pm, cap, c, in->node, e, "Replace the transceiver module of node %s link %s.", a,
			   in->link[0] ? in->link : "?");
	if (!strcmp(c, "cabling"))
		return add(pm, cap, c, in->node, e,
			   "Fix the cabling at node %s link %s: it does not reach the neighbour the torus expects "
			   "(apenet cabling).", a, in->link[0] ? in->link : "?");
	return add(pm, cap, c, in->node, e, "Look at the %s of node %s (rule %s).", c, a, in->rule);
}

/* Whether an incident already blames one of these components on the node
 * (then its own recommendation says it: no "too"). */
static int blamed(const struct apenet_postmortem *pm, const unsigned node[3], const char *const *comps)
{
	for (unsigned i = 0; i < pm->ninc; i++) {
		const struct apenet_hdb_incident *in = &pm->inc[i];
		if (memcmp(in->node, node, sizeof(in->node)))
			continue;
		for (const char *const *c = comps; *c; c++)
			if (!strcmp(in->component, *c))
				return 1;
	}
	return 0;
}

int apenet_postmortem_recommend(struct apenet_postmortem *pm, struct apenet_err *e)
{
	static const char *const cooling[] = { "sensor:temperature", NULL };
	static const char *const power[] = { "sensor:voltage", "sensor:current", "node-power", NULL };
	static const char *const temp_codes[] = { "FPGA_TEMP", "BOARD_TEMP", NULL };
	pm->nrec = 0; /* derived again from what the model holds now */
	size_t cap = 0;
	/* the first fault's incident first, then the others in order */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < pm->ninc; i++) {
			const struct apenet_hdb_incident *in = &pm->inc[i];
			if (in->state == APENET_HDB_MERGED || (in->id == pm->first_incident) != (pass == 0))
				continue;
			if (rec_incident(pm, &cap, in, e))
				return -1;
		}
	/* what the black boxes saw that no incident blamed */
	for (unsigned t = 0; t < pm->ntrend; t++) {
		const struct apenet_postmortem_trend *tr = &pm->trend[t];
		char a[96];
		apenet_postmortem_node_label(pm, tr->node, a, sizeof(a));
		for (unsigned s = 0; s < tr->nseries; s++) {
			const struct apenet_postmortem_series *se = &tr->series[s];
			if (!se->crossed || !se->crossed_code[0])
				continue; /* inside its limits: a note at most */
			/* the component an incident would blame for it: no second
			 * sentence when one does */
			int temp = 0;
			for (const char *const *k = temp_codes; *k; k++)
				temp |= !strcmp(se->crossed_code, *k);
			if (blamed(pm, tr->node, temp ? cooling : power))
				continue;
			if (add(pm, &cap, temp ? "sensor:temperature" : "sensor:voltage", tr->node, e,
				"On node %s too, the %s %s%s%s: %s.", a, se->label, se->crossed_note, se->notable ? "; it " : "",
				se->notable ? se->note : "", rec_of(se->crossed_code)))
				return -1;
		}
	}
	if (!pm->nrec && pm->has_first) {
		char a[96];
		apenet_postmortem_node_label(pm, pm->first.node, a, sizeof(a));
		return add(pm, &cap, pm->first_component, pm->first.node, e,
			   "No incident was deduced; start from the first fault on node %s (%s %s).", a, pm->first.where,
			   pm->first.code);
	}
	return 0;
}
