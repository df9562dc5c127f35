/*
 * The supervisor's systemic deduction (lofamo/deduce*.c) at the scale the
 * architecture is built for: a 32x32x32 torus, 32,768 nodes.  What a report
 * costs (a heartbeat; the reports of a card gone: its own, its neighbours'
 * LINK_DOWN and LINK_FLAPPING, their link fields in their own neighbours'
 * words; the 229,376 reports of a supervisor going missing: every node's
 * service field and its six neighbours' words of it), what a tick costs
 * when nothing is due and when a tenth of the nodes, or all of them, fall
 * silent at once, and the memory held.  No I/O: the engine alone.
 *   bench_deduce [DIM]    (default 32: DIM x DIM x DIM nodes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"
#include "apenet/deduce.h"
#include "apenet/notify.h"
#include "apenet/regs.h"

static struct apenet_deduce *d;
static unsigned dims[3];
static int64_t now = 1800000000000;
static uint64_t seq;
static uint64_t nact[6]; /* by enum apenet_deduce_kind */

static void drain(void)
{
	struct apenet_deduce_action a;
	while (apenet_deduce_next_action(d, &a)) {
		if (a.kind >= 1 && a.kind <= 5)
			nact[a.kind]++;
		if (a.kind == APENET_DEDUCE_OPEN)
			apenet_deduce_set_ref(d, a.key, (int64_t)a.key);
	}
}

static void coords(unsigned i, unsigned c[3])
{
	c[0] = i % dims[0];
	c[1] = i / dims[0] % dims[1];
	c[2] = i / dims[0] / dims[1];
}

static void base(struct apenet_report *r, int kind, const unsigned about[3], const unsigned from[3])
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->x = about[0], r->y = about[1], r->z = about[2];
	snprintf(r->boot, sizeof(r->boot), "%u,%u,%u#1", from[0], from[1], from[2]);
	r->seq = ++seq;
	r->time_ms = now;
	r->path = APENET_REPORT_PATH_SELF;
}

static const char *const dirn[] = { "X+", "X-", "Y+", "Y-", "Z+", "Z-" };

static void heartbeat(unsigned i)
{
	struct apenet_report r;
	unsigned c[3];
	coords(i, c);
	base(&r, APENET_REPORT_HEARTBEAT, c, c);
	r.ldm = 0x80000000u;
	apenet_deduce_report(d, &r, now);
}

static void own(unsigned i, int subject, const char *where, const char *code, int status, int path)
{
	struct apenet_report r;
	unsigned c[3];
	coords(i, c);
	base(&r, APENET_REPORT_HEALTH, c, c);
	r.subject = subject;
	snprintf(r.where, sizeof(r.where), "%s", where);
	snprintf(r.code, sizeof(r.code), "%s", code);
	r.new_status = status;
	r.path = path;
	snprintf(r.evidence, sizeof(r.evidence), "the evidence as the agent words it, about sixty characters long");
	apenet_deduce_report(d, &r, now);
}

/* Node `from` reports about its partner through its link dir. */
static void nbr(unsigned from, unsigned dir, int subject, const char *where, const char *code, int status)
{
	struct apenet_report r;
	unsigned c[3], far[3];
	enum apenet_dir back;
	int dim, wrap;
	coords(from, c);
	apenet_torus_neighbour(dims, c, (enum apenet_dir)dir, far, &back, &dim, &wrap);
	base(&r, APENET_REPORT_HEALTH, far, c);
	r.subject = subject;
	snprintf(r.where, sizeof(r.where), "%s", where);
	snprintf(r.code, sizeof(r.code), "%s", code);
	r.new_status = status;
	r.path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	snprintf(r.via, sizeof(r.via), "%s", dirn[dir]);
	snprintf(r.evidence, sizeof(r.evidence), "LINK_LDM_RX 0x82000000 on %s, 0 ms old", dirn[dir]);
	apenet_deduce_report(d, &r, now);
}

static unsigned far_of(unsigned i, unsigned dir, unsigned *back)
{
	unsigned c[3], far[3];
	enum apenet_dir b;
	int dim, wrap;
	coords(i, c);
	apenet_torus_neighbour(dims, c, (enum apenet_dir)dir, far, &b, &dim, &wrap);
	*back = b;
	return far[0] + dims[0] * (far[1] + dims[1] * far[2]);
}

/* A card gone on node g, as the agents report it (tests/data/deduce shows
 * it): its CARD_GONE; each neighbour's LINK_DOWN and LINK_FLAPPING on the
 * dark link; that link's field in the words of the neighbour's five others. */
static unsigned card_gone(unsigned g, int status)
{
	unsigned n = 0;
	own(g, APENET_REPORT_SUBJ_BOARD, "card", "CARD_GONE", status, APENET_REPORT_PATH_WATCHDOG);
	n++;
	for (unsigned dir = 0; dir < 6; dir++) {
		unsigned back, m = far_of(g, dir, &back);
		own(m, APENET_REPORT_SUBJ_LINK, dirn[back], "LINK_DOWN", status, APENET_REPORT_PATH_SELF);
		own(m, APENET_REPORT_SUBJ_LINK, dirn[back], "LINK_FLAPPING", status, APENET_REPORT_PATH_SELF);
		n += 2;
		for (unsigned d2 = 0; d2 < 6; d2++) {
			unsigned b2, o = far_of(m, d2, &b2);
			if (d2 == back || o == g)
				continue;
			nbr(o, b2, APENET_REPORT_SUBJ_LINK, dirn[back], "NEIGHBOUR_LINK", status);
			n++;
		}
	}
	return n;
}

/* Every node's service field sick (a supervisor missing), and each of its
 * six neighbours' words of it. */
static unsigned service_all(unsigned nn, int status)
{
	unsigned n = 0;
	for (unsigned i = 0; i < nn; i++) {
		own(i, APENET_REPORT_SUBJ_HOST, "service", "SERVICE_NETWORK", status, APENET_REPORT_PATH_SELF);
		n++;
		for (unsigned dir = 0; dir < 6; dir++) {
			unsigned back, m = far_of(i, dir, &back);
			nbr(m, back, APENET_REPORT_SUBJ_HOST, "service", "NEIGHBOUR_SERVICE", status);
			n++;
		}
	}
	return n;
}

/* Time passes in 100 ms ticks; heartbeats from every node not in `mute`,
 * spread over each second as real agents' are.  Returns the slowest tick. */
static double run(unsigned nn, int64_t ms, const unsigned char *mute, double *sum, unsigned *nticks)
{
	double worst = 0;
	for (int64_t t = 0; t < ms; t += 100) {
		int64_t slot = (now / 100) % 10;
		for (unsigned i = (unsigned)slot; i < nn; i += 10)
			if (!mute || !mute[i])
				heartbeat(i);
		drain();
		now += 100;
		double t0 = e2e_now();
		apenet_deduce_tick(d, now);
		double dt = e2e_now() - t0;
		drain();
		if (dt > worst)
			worst = dt;
		if (sum)
			*sum += dt;
		if (nticks)
			(*nticks)++;
	}
	return worst;
}

static void memory(const char *when)
{
	struct apenet_deduce_stats s;
	apenet_deduce_stats(d, &s);
	printf("  memory %-34s engine %7.2f MB  facts %7u  open %5u  RSS %6.1f MB (peak %6.1f MB)\n", when,
	       (double)s.bytes / 1048576, s.facts, s.open, (double)e2e_proc_kb(getpid(), "VmRSS") / 1024,
	       (double)e2e_proc_kb(getpid(), "VmHWM") / 1024);
}

static void actions(const char *what)
{
	printf("  actions %-33s open %6llu  evidence %7llu  reblame %4llu  settle %6llu  close %6llu\n", what,
	       (unsigned long long)nact[1], (unsigned long long)nact[2], (unsigned long long)nact[3],
	       (unsigned long long)nact[5], (unsigned long long)nact[4]);
	memset(nact, 0, sizeof(nact));
}

int main(int argc, char **argv)
{
	unsigned dim = argc > 1 ? (unsigned)atoi(argv[1]) : 32;
	if (dim < 4 || dim > 64) {
		fprintf(stderr, "usage: bench_deduce [DIM 4..64]\n");
		return 2;
	}
	struct apenet_deduce_config c;
	struct apenet_err e = { 0 };
	apenet_deduce_config_defaults(&c);
	dims[0] = dims[1] = dims[2] = c.dims[0] = c.dims[1] = c.dims[2] = dim;
	unsigned nn = dim * dim * dim;
	if (apenet_deduce_open(&c, &d, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 2;
	}
	printf("# systemic deduction on a %ux%ux%u torus (%u nodes), defaults: silent %lld ms, settle %lld ms\n", dim,
	       dim, dim, nn, (long long)c.silent_ms, (long long)c.settle_ms);
	memory("at open");

	/* heartbeats: every node once a second */
	double t0 = e2e_now();
	for (int round = 0; round < 10; round++) {
		for (unsigned i = 0; i < nn; i++)
			heartbeat(i);
		now += 1000;
		apenet_deduce_tick(d, now);
	}
	double hb = e2e_now() - t0;
	drain();
	printf("%-44s %9s %10s %10s\n", "what", "reports", "us/report", "ms total");
	printf("%-44s %9u %10.3f %10.1f\n", "heartbeats (10 rounds, all nodes)", 10 * nn, hb * 1e6 / (10.0 * nn),
	       hb * 1e3);

	/* ticks with nothing due, 10 s of them, heartbeats between */
	double sum = 0;
	unsigned nt = 0;
	double worst = run(nn, 10000, NULL, &sum, &nt);
	printf("%-44s %9u %10.3f %10.3f   (us/tick mean, ms worst)\n", "tick, nothing due (heartbeats flowing)", nt,
	       sum * 1e6 / nt, worst * 1e3);
	memory("all heard");
	actions("(should be none)");

	/* 1% of the nodes lose their card */
	unsigned ncard = nn / 100, nrep = 0;
	t0 = e2e_now();
	for (unsigned k = 0; k < ncard; k++)
		nrep += card_gone(k * 100 % nn, 2);
	double tc = e2e_now() - t0;
	drain();
	printf("%-44s %9u %10.3f %10.1f\n", "card gone on 1% of the nodes: their reports", nrep, tc * 1e6 / nrep,
	       tc * 1e3);
	sum = 0, nt = 0;
	worst = run(nn, 3000, NULL, &sum, &nt);
	printf("%-44s %9u %10.3f %10.3f\n", "  ticks while they settle and open", nt, sum * 1e6 / nt, worst * 1e3);
	memory("1% cards gone");
	actions("1% cards gone");
	nrep = 0;
	t0 = e2e_now();
	for (unsigned k = 0; k < ncard; k++)
		nrep += card_gone(k * 100 % nn, 0);
	tc = e2e_now() - t0;
	drain();
	printf("%-44s %9u %10.3f %10.1f\n", "  and back: the clearing reports", nrep, tc * 1e6 / nrep, tc * 1e3);
	run(nn, 1000, NULL, NULL, NULL);
	actions("cards back");

	/* a supervisor goes missing: every node and its neighbours say so */
	t0 = e2e_now();
	nrep = service_all(nn, 1);
	double ts = e2e_now() - t0;
	drain();
	printf("%-44s %9u %10.3f %10.1f\n", "supervisor missing: every node + neighbours", nrep, ts * 1e6 / nrep,
	       ts * 1e3);
	sum = 0, nt = 0;
	worst = run(nn, 3000, NULL, &sum, &nt);
	printf("%-44s %9u %10.3f %10.3f\n", "  ticks while it settles and opens", nt, sum * 1e6 / nt, worst * 1e3);
	memory("supervisor missing");
	t0 = e2e_now();
	nrep = service_all(nn, 0);
	ts = e2e_now() - t0;
	drain();
	printf("%-44s %9u %10.3f %10.1f\n", "  and back: the clearing reports", nrep, ts * 1e6 / nrep, ts * 1e3);
	run(nn, 1000, NULL, NULL, NULL);
	actions("supervisor missing and back");

	/* a tenth of the nodes fall silent at once (their agents stopped) */
	unsigned char *mute = calloc(nn, 1);
	if (!mute)
		return 2;
	for (unsigned i = 0; i < nn; i += 10)
		mute[i] = 1;
	sum = 0, nt = 0;
	worst = run(nn, 12000, mute, &sum, &nt);
	printf("%-44s %9u %10.3f %10.3f\n", "ticks as 10% of the nodes fall silent", nt, sum * 1e6 / nt, worst * 1e3);
	memory("10% silent");
	run(nn, 2000, NULL, NULL, NULL);
	actions("10% silent and back");

	/* this supervisor cut off: every node silent */
	memset(mute, 1, nn);
	sum = 0, nt = 0;
	worst = run(nn, 12000, mute, &sum, &nt);
	printf("%-44s %9u %10.3f %10.3f\n", "ticks as every node falls silent", nt, sum * 1e6 / nt, worst * 1e3);
	memory("all silent");
	t0 = e2e_now();
	for (unsigned i = 0; i < nn; i++)
		heartbeat(i);
	double tb = e2e_now() - t0;
	drain();
	printf("%-44s %9u %10.3f %10.1f\n", "  all heard again: their heartbeats", nn, tb * 1e6 / nn, tb * 1e3);
	run(nn, 2000, NULL, NULL, NULL);
	actions("all silent and back");
	memory("at the end");
	struct apenet_deduce_stats s;
	apenet_deduce_stats(d, &s);
	free(mute);
	apenet_deduce_close(d);
	return s.open || s.candidates ? 1 : 0;
}
