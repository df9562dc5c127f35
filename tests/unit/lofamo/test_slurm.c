/*
 * Tests of the batch scheduler's decisions (lofamo/slurm.c): every
 * component's policy and the nodes it gives (a cable's far end, a link's
 * neighbour across a wraparound and at an edge without one, a dimension of
 * 1), the reason text (escaped, cut, one line), scontrol's description of a
 * node as slurmctld 22.05 prints it, and the drain / leave alone / resume
 * state machine with its outcomes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/deduce.h"
#include "apenet/slurm.h"

static struct apenet_config cfg;

static int setup(void **state)
{
	(void)state;
	apenet_config_defaults(&cfg);
	return 0;
}

static struct apenet_deduce_blame blame(const char *component, unsigned x, unsigned y, unsigned z, const char *link)
{
	struct apenet_deduce_blame b;
	memset(&b, 0, sizeof(b));
	snprintf(b.component, sizeof(b.component), "%s", component);
	b.has_node = 1;
	b.x = x, b.y = y, b.z = z;
	snprintf(b.link, sizeof(b.link), "%s", link);
	return b;
}

/* Every component the deduction names has its policy; the defaults. */
static void test_policy(void **state)
{
	(void)state;
	static const struct {
		const char *component;
		int policy;
	} want[] = {
		{ "card", APENET_SLURM_NODE },	      { "dnp", APENET_SLURM_NODE },
		{ "host", APENET_SLURM_NODE },	      { "node-power", APENET_SLURM_NODE },
		{ "pcie", APENET_SLURM_NODE },	      { "memory", APENET_SLURM_NODE },
		{ "sensor:temperature", APENET_SLURM_NODE }, { "sensor:voltage", APENET_SLURM_NODE },
		{ "sensor:current", APENET_SLURM_NODE }, { "cabling", APENET_SLURM_NODE },
		{ "cable", APENET_SLURM_ENDS },	      { "link", APENET_SLURM_ENDS },
		{ "module", APENET_SLURM_ENDS },      { "agent", APENET_SLURM_NONE },
		{ "service-network", APENET_SLURM_NONE }, { "supervisor", APENET_SLURM_NONE },
		{ "board", APENET_SLURM_NONE }, /* any other: other's word */
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (apenet_slurm_policy(&cfg.slurm, want[i].component) != want[i].policy)
			fail_msg("%s: policy %d, want %d", want[i].component, apenet_slurm_policy(&cfg.slurm, want[i].component),
				 want[i].policy);
	struct apenet_config c = cfg;
	snprintf(c.slurm.cable, sizeof(c.slurm.cable), "none");
	snprintf(c.slurm.host, sizeof(c.slurm.host), "none");
	snprintf(c.slurm.other, sizeof(c.slurm.other), "node");
	snprintf(c.slurm.sensor, sizeof(c.slurm.sensor), "none");
	assert_int_equal(apenet_slurm_policy(&c.slurm, "cable"), APENET_SLURM_NONE);
	assert_int_equal(apenet_slurm_policy(&c.slurm, "host"), APENET_SLURM_NONE);
	assert_int_equal(apenet_slurm_policy(&c.slurm, "board"), APENET_SLURM_NODE);
	assert_int_equal(apenet_slurm_policy(&c.slurm, "sensor:voltage"), APENET_SLURM_NONE);
	snprintf(c.slurm.other, sizeof(c.slurm.other), "node");
	assert_int_equal(apenet_slurm_policy(&c.slurm, "supervisor"), APENET_SLURM_NONE);
}

static void test_nodes(void **state)
{
	(void)state;
	const unsigned dims[3] = { 4, 4, 1 };
	const int wrap[3] = { 1, 1, 1 }, nowrap[3] = { 0, 0, 0 };
	unsigned out[2][3];
	/* a cable: both ends, as the deduction names them */
	struct apenet_deduce_blame b = blame("cable", 1, 1, 0, "Y+");
	b.has_far = 1, b.fx = 1, b.fy = 2, b.fz = 0;
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 2);
	assert_true(out[0][0] == 1 && out[0][1] == 1 && out[0][2] == 0);
	assert_true(out[1][0] == 1 && out[1][1] == 2 && out[1][2] == 0);
	/* node: the end it is blamed on; none: nothing */
	struct apenet_config c = cfg;
	snprintf(c.slurm.cable, sizeof(c.slurm.cable), "node");
	assert_int_equal(apenet_slurm_nodes(&c.slurm, &b, dims, wrap, out), 1);
	assert_true(out[0][0] == 1 && out[0][1] == 1);
	snprintf(c.slurm.cable, sizeof(c.slurm.cable), "none");
	assert_int_equal(apenet_slurm_nodes(&c.slurm, &b, dims, wrap, out), 0);
	/* a link: the neighbour it faces, across the wraparound */
	b = blame("link", 3, 0, 0, "X+");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 2);
	assert_true(out[1][0] == 0 && out[1][1] == 0 && out[1][2] == 0);
	b = blame("link", 0, 0, 0, "Y-");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 2);
	assert_true(out[1][0] == 0 && out[1][1] == 3);
	/* ...and none past an edge without one */
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, nowrap, out), 1);
	b = blame("link", 1, 2, 0, "Y+");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, nowrap, out), 2);
	assert_true(out[1][0] == 1 && out[1][1] == 3);
	/* a dimension of 1: the link faces the node itself, named once */
	b = blame("link", 1, 2, 0, "Z+");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 1);
	/* a module on a port that is no link name: its node only */
	b = blame("module", 1, 2, 0, "");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 1);
	/* a node component, and one on no node */
	b = blame("host", 2, 3, 0, "");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 1);
	assert_true(out[0][0] == 2 && out[0][1] == 3);
	b = blame("dnp", 2, 3, 0, "");
	b.has_node = 0;
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 0);
	b = blame("agent", 2, 3, 0, "");
	assert_int_equal(apenet_slurm_nodes(&cfg.slurm, &b, dims, wrap, out), 0);
}

static void test_reason(void **state)
{
	(void)state;
	char r[APENET_SLURM_REASON_MAX];
	apenet_slurm_reason(r, sizeof(r), 12, "cable 1,1,0 Y+ <-> 1,2,0 Y- broken (cable-both-ends)");
	assert_string_equal(r, "apenet #12: cable 1,1,0 Y+ <-> 1,2,0 Y- broken (cable-both-ends)");
	assert_true(apenet_slurm_reason_ours(r));
	/* what came from reports: one printable line, no double quote */
	apenet_slurm_reason(r, sizeof(r), 3, "node 1,2,0 \"x\"\n\ttab\x1b[31m\xc3\xa9");
	assert_string_equal(r, "apenet #3: node 1,2,0 'x'??tab?[31m??");
	/* cut to the limit, whatever the buffer */
	char big[400], sum[300];
	memset(sum, 'a', sizeof(sum) - 1);
	sum[sizeof(sum) - 1] = 0;
	apenet_slurm_reason(big, sizeof(big), 7, sum);
	assert_int_equal(strlen(big), APENET_SLURM_REASON_MAX - 1);
	char small[16];
	apenet_slurm_reason(small, sizeof(small), 123, "abcdefgh");
	assert_string_equal(small, "apenet #123: ab");
	apenet_slurm_reason(small, 8, 123, "x");
	assert_int_equal(strlen(small), 0);
	assert_false(apenet_slurm_reason_ours("maintenance"));
	assert_false(apenet_slurm_reason_ours("apenet 12"));
	assert_false(apenet_slurm_reason_ours(""));
}

/* What slurmctld 22.05 prints (tests/e2e/slurm.sh runs the real one). */
#define LINE_HEAD "NodeName=quong01 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=N/A NodeAddr=127.0.0.1 "
#define LINE_TAIL " ThreadsPerCore=1 Partitions=torus  BootTime=None CfgTRES=cpu=1,mem=1M,billing=1 AllocTRES= ExtSensorsTemp=n/s"

static void test_parse(void **state)
{
	(void)state;
	struct apenet_slurm_node n;
	char why[128];
	assert_int_equal(apenet_slurm_parse_node(LINE_HEAD "State=UNKNOWN" LINE_TAIL "\n", "quong01", &n, why, sizeof(why)), 0);
	assert_string_equal(n.state, "UNKNOWN");
	assert_false(n.drain);
	assert_string_equal(n.reason, "");
	assert_int_equal(apenet_slurm_parse_node(LINE_HEAD "State=UNKNOWN+DRAIN" LINE_TAIL
							    " Reason=maintenance x [root@2026-11-28T08:19:50]\n",
						 "quong01", &n, why, sizeof(why)),
			 0);
	assert_string_equal(n.state, "UNKNOWN+DRAIN");
	assert_true(n.drain);
	assert_string_equal(n.reason, "maintenance x");
	static const struct {
		const char *state;
		int drain;
	} states[] = {
		{ "IDLE+DRAIN", 1 },	   { "DOWN+DRAIN", 1 },	     { "ALLOCATED+DRAIN", 1 }, { "MIXED+DRAIN+NOT_RESPONDING", 1 },
		{ "DRAINING", 1 },	   { "DRAINED", 1 },	     { "IDLE", 0 },	       { "DOWN+NOT_RESPONDING", 0 },
		{ "UNKNOWN+NOT_RESPONDING", 0 }, { "IDLE+DRAINX", 0 }, { "IDLE+UNDRAIN", 0 },
	};
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text), LINE_HEAD "State=%s" LINE_TAIL " Reason=apenet #4: cable 1,1,0 Y+ [apenet@2026-11-28T08:19:50]",
			 states[i].state);
		assert_int_equal(apenet_slurm_parse_node(text, "quong01", &n, why, sizeof(why)), 0);
		if (n.drain != states[i].drain)
			fail_msg("State=%s: drain %d", states[i].state, n.drain);
		assert_string_equal(n.reason, "apenet #4: cable 1,1,0 Y+");
	}
	/* a reason with brackets of its own keeps them; only Slurm's [user@time] goes */
	assert_int_equal(apenet_slurm_parse_node(LINE_HEAD "State=IDLE+DRAIN Reason=rack [B] swap", "quong01", &n, why,
						 sizeof(why)),
			 0);
	assert_string_equal(n.reason, "rack [B] swap");
	/* the node asked for, not another one of the answer */
	assert_int_equal(apenet_slurm_parse_node("NodeName=quong010 State=IDLE+DRAIN Reason=x\n"
						 "NodeName=quong01 State=IDLE\n",
						 "quong01", &n, why, sizeof(why)),
			 0);
	assert_false(n.drain);
	/* not a node: said so */
	assert_int_equal(apenet_slurm_parse_node("Node nosuch not found\n", "nosuch", &n, why, sizeof(why)), -1);
	assert_string_equal(why, "Slurm knows no node nosuch");
	assert_int_equal(apenet_slurm_parse_node("slurm_load_node error: Unable to contact slurm controller", "quong01",
						 &n, why, sizeof(why)),
			 -1);
	assert_string_equal(why, "scontrol's answer does not describe node quong01");
	assert_int_equal(apenet_slurm_parse_node("NodeName=quong01 Arch=x86_64", "quong01", &n, why, sizeof(why)), -1);
	assert_string_equal(why, "no State= in scontrol's answer for node quong01");
	assert_int_equal(apenet_slurm_parse_node("", "quong01", &n, why, sizeof(why)), -1);
}

static struct apenet_slurm_node node(int drain, const char *reason)
{
	struct apenet_slurm_node n;
	memset(&n, 0, sizeof(n));
	n.drain = drain;
	snprintf(n.reason, sizeof(n.reason), "%s", reason);
	return n;
}

/* Drain, leave alone, resume: the table of the header's rules. */
static void test_decide(void **state)
{
	(void)state;
	struct apenet_slurm_node idle = node(0, ""), hand = node(1, "maintenance"), ours = node(1, "apenet #9: host x"),
				 stale = node(0, "apenet #9: host x");
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_DRAIN, &idle), 0);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_DRAIN, &hand), APENET_SLURM_OTHER);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_DRAIN, &ours), APENET_SLURM_APENET);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_DRAIN, &stale), 0);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_RESUME, &idle), APENET_SLURM_GONE);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_RESUME, &hand), APENET_SLURM_OTHER);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_RESUME, &ours), 0);
	assert_int_equal(apenet_slurm_decide(APENET_SLURM_RESUME, &stale), APENET_SLURM_GONE);
	/* judged by the node read back */
	assert_int_equal(apenet_slurm_judge(APENET_SLURM_DRAIN, &ours), APENET_SLURM_DONE);
	assert_int_equal(apenet_slurm_judge(APENET_SLURM_DRAIN, &idle), APENET_SLURM_FAILED);
	assert_int_equal(apenet_slurm_judge(APENET_SLURM_DRAIN, &hand), APENET_SLURM_FAILED);
	assert_int_equal(apenet_slurm_judge(APENET_SLURM_RESUME, &idle), APENET_SLURM_DONE);
	assert_int_equal(apenet_slurm_judge(APENET_SLURM_RESUME, &ours), APENET_SLURM_FAILED);
	/* which outcomes hold the node for the incident */
	for (int o = 1; o < APENET_SLURM_NOUTCOME; o++) {
		int h = o == APENET_SLURM_DONE || o == APENET_SLURM_APENET || o == APENET_SLURM_DRY_RUN;
		assert_int_equal(apenet_slurm_holds(APENET_SLURM_DRAIN, o), h);
		assert_int_equal(apenet_slurm_holds(APENET_SLURM_RESUME, o), 0);
		/* names round-trip; words exist */
		assert_int_equal(apenet_slurm_outcome_of(apenet_slurm_outcome_name(o)), o);
		assert_string_not_equal(apenet_slurm_outcome_words(APENET_SLURM_DRAIN, o), "?");
	}
	assert_int_equal(apenet_slurm_outcome_of("drained"), 0);
	assert_string_equal(apenet_slurm_outcome_name(0), "");
	assert_string_equal(apenet_slurm_outcome_name(APENET_SLURM_NOUTCOME), "");
	assert_string_equal(apenet_slurm_outcome_words(APENET_SLURM_DRAIN, APENET_SLURM_OTHER),
			    "already drained by someone else: left alone");
	assert_string_equal(apenet_slurm_verb_name(APENET_SLURM_DRAIN), "drain");
	assert_string_equal(apenet_slurm_verb_name(APENET_SLURM_RESUME), "resume");
	assert_string_equal(apenet_slurm_verb_name(0), "");
}

/* Settle, re-blame, close: one rule over the nodes wanted and held. */
static void test_plan(void **state)
{
	(void)state;
	unsigned drain[8][3], resume[8][3], nd, nr;
	const unsigned a[3] = { 1, 1, 0 }, b[3] = { 1, 2, 0 }, c[3] = { 2, 1, 0 };
	/* settles on a cable: both ends drained */
	const unsigned want1[2][3] = { { 1, 1, 0 }, { 1, 2, 0 } };
	apenet_slurm_plan(want1, 2, NULL, 0, drain, &nd, resume, &nr);
	assert_int_equal(nd, 2);
	assert_int_equal(nr, 0);
	assert_memory_equal(drain[0], a, sizeof(a));
	assert_memory_equal(drain[1], b, sizeof(b));
	/* re-blamed to the card of 1,1,0: 1,2,0 resumed, 1,1,0 kept (not drained again) */
	const unsigned want2[1][3] = { { 1, 1, 0 } };
	apenet_slurm_plan(want2, 1, want1, 2, drain, &nd, resume, &nr);
	assert_int_equal(nd, 0);
	assert_int_equal(nr, 1);
	assert_memory_equal(resume[0], b, sizeof(b));
	/* re-blamed to a cable elsewhere: the new ends drained, the old resumed */
	const unsigned want3[2][3] = { { 2, 1, 0 }, { 1, 1, 0 } };
	const unsigned held3[2][3] = { { 1, 2, 0 }, { 1, 1, 0 } };
	apenet_slurm_plan(want3, 2, held3, 2, drain, &nd, resume, &nr);
	assert_int_equal(nd, 1);
	assert_memory_equal(drain[0], c, sizeof(c));
	assert_int_equal(nr, 1);
	assert_memory_equal(resume[0], b, sizeof(b));
	/* closed: all it holds resumed; an end left alone was never held */
	apenet_slurm_plan(NULL, 0, held3, 1, drain, &nd, resume, &nr);
	assert_int_equal(nd, 0);
	assert_int_equal(nr, 1);
	assert_memory_equal(resume[0], b, sizeof(b));
	/* the same node twice is planned once */
	const unsigned twice[2][3] = { { 1, 1, 0 }, { 1, 1, 0 } };
	apenet_slurm_plan(twice, 2, NULL, 0, drain, &nd, resume, &nr);
	assert_int_equal(nd, 1);
	apenet_slurm_plan(NULL, 0, twice, 2, drain, &nd, resume, &nr);
	assert_int_equal(nr, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy), cmocka_unit_test(test_nodes),  cmocka_unit_test(test_reason),
		cmocka_unit_test(test_parse),  cmocka_unit_test(test_decide), cmocka_unit_test(test_plan),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
