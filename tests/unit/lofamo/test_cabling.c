/*
 * Tests of the cabling judge (lofamo/cabling.c) on synthetic observations:
 * a torus cabled as the layout says, then one fault at a time (a plug
 * swap on one node and across nodes, a crossed cable, a missing cable, a
 * wrong port, unexpected cables, a one-sided read, stale data, unreadable
 * and absent nodes, boards that disagree on the torus), each checked for
 * exactly the records it must give, their ends, and the findings.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apenet/cabling.h"
#include "apenet/config.h"

#define NL APENET_MAX_LINKS

struct cluster {
	unsigned dims[3];
	struct apenet_cabling_obs *obs;
	size_t n;
	struct apenet_cabling res;
	struct apenet_findings fs;
};

static uint32_t xyz_reg(unsigned x, unsigned y, unsigned z)
{
	return x | y << 8 | z << 16;
}

static struct apenet_cabling_obs *node(struct cluster *c, unsigned x, unsigned y, unsigned z)
{
	return &c->obs[x + c->dims[0] * (y + c->dims[1] * z)];
}

static int link_of(const struct apenet_cabling_obs *o, const char *name)
{
	for (unsigned l = 0; l < o->prof->nlinks; l++)
		if (!strcmp(o->prof->links[l].name, name))
			return (int)l;
	fail_msg("no link %s", name);
	return -1;
}

/* An end "x,y,z:L". */
struct end {
	unsigned x, y, z;
	const char *link;
};

static void plug(struct cluster *c, struct end a, struct end b)
{
	struct apenet_cabling_obs *oa = node(c, a.x, a.y, a.z), *ob = node(c, b.x, b.y, b.z);
	int la = link_of(oa, a.link), lb = link_of(ob, b.link);
	oa->link_partner[la] = 1u << 31 | xyz_reg(b.x, b.y, b.z) | (uint32_t)lb << 24;
	ob->link_partner[lb] = 1u << 31 | xyz_reg(a.x, a.y, a.z) | (uint32_t)la << 24;
	oa->link_state[la] = ob->link_state[lb] = APENET_LINK_UP;
}

static void unplug(struct cluster *c, struct end a)
{
	struct apenet_cabling_obs *o = node(c, a.x, a.y, a.z);
	int l = link_of(o, a.link);
	o->link_partner[l] = 0;
	o->link_state[l] = APENET_LINK_DOWN;
}

/* Every node read, every link facing its torus neighbour (wraparound in
 * every dimension), every board declaring dims. */
static void build(struct cluster *c, unsigned x, unsigned y, unsigned z, enum apenet_variant v)
{
	static char srcs[64][32];
	memset(c, 0, sizeof(*c));
	c->dims[0] = x;
	c->dims[1] = y;
	c->dims[2] = z;
	c->n = (size_t)x * y * z;
	c->obs = calloc(c->n, sizeof(*c->obs));
	assert_non_null(c->obs);
	apenet_findings_init(&c->fs);
	for (unsigned k = 0; k < c->n; k++) {
		struct apenet_cabling_obs *o = &c->obs[k];
		unsigned me[3] = { k % x, k / x % y, k / x / y };
		if (k < 64) {
			snprintf(srcs[k], sizeof(srcs[k]), "n%u", k);
			o->src = srcs[k];
		} else {
			o->src = "node";
		}
		o->prof = apenet_profile(v);
		o->node_coord = xyz_reg(me[0], me[1], me[2]);
		o->torus_dims = xyz_reg(x, y, z);
		for (unsigned l = 0; l < o->prof->nlinks; l++) {
			unsigned far[3];
			enum apenet_dir back;
			int dim, wrap;
			if (apenet_torus_neighbour(c->dims, me, o->prof->links[l].dir, far, &back, &dim, &wrap))
				continue;
			int fl = apenet_profile_link_dir(o->prof, back);
			o->link_partner[l] = 1u << 31 | xyz_reg(far[0], far[1], far[2]) | (uint32_t)fl << 24;
			o->link_state[l] = APENET_LINK_UP;
		}
	}
}

static void judge_cfg(struct cluster *c, const struct apenet_config *cfg)
{
	struct apenet_err e = { 0 };
	if (apenet_cabling_judge(c->obs, c->n, cfg, &c->res, &c->fs, &e))
		fail_msg("judge: %s", e.msg);
	/* one finding per problem, with the kind's code */
	assert_int_equal(c->fs.n, c->res.np);
	for (size_t i = 0; i < c->res.np; i++) {
		assert_string_equal(c->fs.f[i].code, apenet_cabling_kind_code(c->res.p[i].kind));
		assert_int_equal(c->fs.f[i].subject, APENET_SUBJ_CABLING);
		assert_true(c->fs.f[i].message[0]);
		assert_true(c->fs.f[i].rec[0]);
	}
}

static void judge(struct cluster *c)
{
	judge_cfg(c, NULL);
}

static void done(struct cluster *c)
{
	apenet_cabling_free(&c->res);
	apenet_findings_free(&c->fs);
	free(c->obs);
}

static void end_is(const struct apenet_cabling_end *e, unsigned x, unsigned y, unsigned z, const char *link)
{
	if (!link && !e->valid)
		return;
	assert_true(e->valid);
	if (e->xyz[0] != x || e->xyz[1] != y || e->xyz[2] != z)
		fail_msg("end %u,%u,%u, expected %u,%u,%u", e->xyz[0], e->xyz[1], e->xyz[2], x, y, z);
	if (!strcmp(link, "-"))
		assert_null(e->link_name);
	else
		assert_string_equal(e->link_name, link);
}

static size_t count(const struct cluster *c, enum apenet_cabling_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < c->res.np; i++)
		n += c->res.p[i].kind == k;
	return n;
}

static void dump(const struct cluster *c)
{
	for (size_t i = 0; i < c->res.np; i++)
		print_message("  %s: %s\n", apenet_cabling_kind_name(c->res.p[i].kind), c->res.p[i].text);
}

static void expect_only(const struct cluster *c, enum apenet_cabling_kind k, size_t n)
{
	if (c->res.np != n || count(c, k) != n) {
		dump(c);
		fail_msg("%zu problems, expected %zu %s", c->res.np, n, apenet_cabling_kind_name(k));
	}
}

/* ---- tests ---- */

static void test_clean(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	judge(&c);
	assert_int_equal(c.res.np, 0);
	assert_int_equal(c.res.nodes, 16);
	assert_int_equal(c.res.nodes_read, 16);
	assert_int_equal(c.res.cables_expected, 48); /* X and Y rings, and each node's Z+ <-> Z- loop */
	assert_int_equal(c.res.cables_ok, 48);
	assert_int_equal(c.res.dims_from_config, 0);
	assert_int_equal(c.res.dims[0], 4);
	assert_int_equal(c.res.dims[2], 1);
	for (int d = 0; d < 3; d++)
		assert_int_equal(c.res.wrap[d], 1);
	done(&c);
	/* a 3D torus, and v5's one channel per dimension (nodes pair up) */
	build(&c, 4, 3, 2, APENET_V_APENETP);
	judge(&c);
	assert_int_equal(c.res.np, 0);
	assert_int_equal(c.res.cables_ok, 24 * 3);
	done(&c);
	build(&c, 2, 2, 2, APENET_V_V5);
	judge(&c);
	assert_int_equal(c.res.np, 0);
	assert_int_equal(c.res.cables_expected, 12);
	done(&c);
}

static void test_swap_on_one_node(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* the plugs of X+ and X- at 0,0,0 exchanged */
	plug(&c, (struct end){ 0, 0, 0, "X+" }, (struct end){ 3, 0, 0, "X+" });
	plug(&c, (struct end){ 0, 0, 0, "X-" }, (struct end){ 1, 0, 0, "X-" });
	judge(&c);
	expect_only(&c, APENET_CABLING_SWAPPED, 1);
	const struct apenet_cabling_problem *p = &c.res.p[0];
	end_is(&p->a, 0, 0, 0, "X+");
	end_is(&p->b, 0, 0, 0, "X-");
	end_is(&p->a_expected, 1, 0, 0, "X-");
	end_is(&p->b_expected, 3, 0, 0, "X+");
	assert_string_equal(p->text, "the plugs at 0,0,0 X+ and 0,0,0 X- are swapped: swap them back");
	assert_int_equal(c.fs.f[0].sev, APENET_SEV_FAIL);
	assert_string_equal(c.fs.f[0].where, "0,0,0:X+");
	assert_non_null(strstr(c.fs.f[0].evidence, "0,0,0 X+: up, partner 3,0,0 X+"));
	assert_int_equal(c.res.cables_ok, 46);
	done(&c);
}

static void test_swap_across_nodes(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* two Y cables with their lower plugs exchanged between 1,1,0 and 2,1,0 */
	plug(&c, (struct end){ 1, 1, 0, "Y+" }, (struct end){ 2, 2, 0, "Y-" });
	plug(&c, (struct end){ 2, 1, 0, "Y+" }, (struct end){ 1, 2, 0, "Y-" });
	judge(&c);
	expect_only(&c, APENET_CABLING_SWAPPED, 1);
	end_is(&c.res.p[0].a, 1, 1, 0, "Y+");
	end_is(&c.res.p[0].b, 2, 1, 0, "Y+");
	done(&c);
}

static void test_crossed(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* one cable from 1,1,0 Y+ to 2,2,0 Y-; 1,2,0 Y- and 2,1,0 Y+ left empty */
	unplug(&c, (struct end){ 1, 2, 0, "Y-" });
	unplug(&c, (struct end){ 2, 1, 0, "Y+" });
	plug(&c, (struct end){ 1, 1, 0, "Y+" }, (struct end){ 2, 2, 0, "Y-" });
	judge(&c);
	expect_only(&c, APENET_CABLING_CROSSED, 1);
	const struct apenet_cabling_problem *p = &c.res.p[0];
	end_is(&p->a, 1, 1, 0, "Y+");
	end_is(&p->b, 2, 2, 0, "Y-");
	end_is(&p->a_expected, 1, 2, 0, "Y-");
	end_is(&p->b_expected, 2, 1, 0, "Y+");
	assert_non_null(strstr(p->text, "1,1,0 Y+ is cabled to 2,2,0 Y-"));
	assert_non_null(strstr(p->text, "1,1,0 Y+ <-> 1,2,0 Y- and 2,2,0 Y- <-> 2,1,0 Y+"));
	done(&c);
}

static void test_missing(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	unplug(&c, (struct end){ 3, 1, 0, "Y-" });
	unplug(&c, (struct end){ 3, 0, 0, "Y+" });
	judge(&c);
	expect_only(&c, APENET_CABLING_MISSING, 1);
	const struct apenet_cabling_problem *p = &c.res.p[0];
	end_is(&p->a, 3, 0, 0, "Y+");
	end_is(&p->b, 3, 1, 0, "Y-");
	assert_string_equal(p->text, "no cable between 3,0,0 Y+ and 3,1,0 Y-: plug it (or replace it if it is plugged)");
	assert_int_equal(c.fs.f[0].sev, APENET_SEV_FAIL);
	assert_string_equal(c.fs.f[0].evidence, "3,0,0 Y+: down, no partner; 3,1,0 Y-: down, no partner");
	assert_int_equal(c.res.cables_ok, 47);
	done(&c);
}

static void test_wrong_port(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* the cable from 1,0,0 X+ lands in 2,0,0 Z- instead of X- (that node's Z loop taken out) */
	unplug(&c, (struct end){ 2, 0, 0, "X-" });
	unplug(&c, (struct end){ 2, 0, 0, "Z+" });
	plug(&c, (struct end){ 1, 0, 0, "X+" }, (struct end){ 2, 0, 0, "Z-" });
	judge(&c);
	/* the wrong port, and then the Z loop still needs its cable */
	if (c.res.np != 2 || count(&c, APENET_CABLING_WRONG_PORT) != 1 || count(&c, APENET_CABLING_MISSING) != 1) {
		dump(&c);
		fail_msg("expected one wrong-port and one missing");
	}
	const struct apenet_cabling_problem *p = &c.res.p[0];
	assert_int_equal(p->kind, APENET_CABLING_WRONG_PORT);
	end_is(&p->a, 1, 0, 0, "X+");
	end_is(&p->b, 2, 0, 0, "Z-");
	end_is(&p->a_expected, 2, 0, 0, "X-");
	assert_string_equal(p->text, "1,0,0 X+ reaches the right node but the wrong port: move the plug from 2,0,0 Z- to 2,0,0 X-");
	end_is(&c.res.p[1].a, 2, 0, 0, "Z+");
	end_is(&c.res.p[1].b, 2, 0, 0, "Z-");
	done(&c);
}

static void test_unexpected(void **state)
{
	(void)state;
	struct cluster c;
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* the layout closes no ring in Z: each node's Z+ <-> Z- loop is one cable too many */
	char path[] = "/tmp/apenet-test-cabling-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("cluster:\n  dims: 4x4x1\n  wraparound: xy\n  nodes:\n    - { name: q01, node: \"0,0,0\" }\n", f);
	fclose(f);
	if (apenet_config_load(path, &cfg, &e))
		fail_msg("%s", e.msg);
	unlink(path);
	judge_cfg(&c, &cfg);
	expect_only(&c, APENET_CABLING_UNEXPECTED, 16);
	assert_int_equal(c.res.dims_from_config, 1);
	assert_int_equal(c.res.cables_expected, 32);
	const struct apenet_cabling_problem *p = &c.res.p[0];
	end_is(&p->a, 0, 0, 0, "Z+");
	end_is(&p->b, 0, 0, 0, "Z-");
	assert_false(p->a_expected.valid);
	/* names come from the config */
	assert_string_equal(p->a.name, "q01");
	assert_null(c.res.p[1].a.name);
	assert_non_null(strstr(p->text, "q01 0,0,0 Z+ and q01 0,0,0 Z-"));
	assert_int_equal(c.fs.f[0].sev, APENET_SEV_WARN);
	done(&c);
	apenet_config_free(&cfg);
}

static void test_one_sided_read(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* 2,0,0 X- has not learned its partner yet; 1,0,0 X+ sees it: no problem */
	unplug(&c, (struct end){ 2, 0, 0, "X-" });
	judge(&c);
	assert_int_equal(c.res.np, 0);
	assert_int_equal(c.res.cables_ok, 47);
	done(&c);
	/* seen from the other side */
	build(&c, 4, 4, 1, APENET_V_APENETP);
	unplug(&c, (struct end){ 1, 0, 0, "X+" });
	judge(&c);
	assert_int_equal(c.res.np, 0);
	done(&c);
}

static void test_inconsistent(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* 1,0,0 X+ claims 2,0,0 Y+, which faces 2,1,0 Y- as it should */
	struct apenet_cabling_obs *o = node(&c, 1, 0, 0);
	o->link_partner[link_of(o, "X+")] = 1u << 31 | xyz_reg(2, 0, 0) | (uint32_t)link_of(o, "Y+") << 24;
	judge(&c);
	if (c.res.np < 1 || c.res.p[0].kind != APENET_CABLING_INCONSISTENT) {
		dump(&c);
		fail_msg("expected inconsistent first");
	}
	end_is(&c.res.p[0].a, 1, 0, 0, "X+");
	end_is(&c.res.p[0].b, 2, 0, 0, "Y+");
	assert_int_equal(c.fs.f[0].sev, APENET_SEV_WARN);
	assert_int_equal(count(&c, APENET_CABLING_INCONSISTENT), 1);
	done(&c);
}

static void test_external_partner(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* a torus link plugged into a detector: crossed, with no far end */
	struct apenet_cabling_obs *o = node(&c, 1, 0, 0);
	o->link_partner[link_of(o, "X+")] = 1u << 31 | 1u << 30;
	unplug(&c, (struct end){ 2, 0, 0, "X-" });
	judge(&c);
	expect_only(&c, APENET_CABLING_CROSSED, 1);
	end_is(&c.res.p[0].a, 1, 0, 0, "X+");
	assert_false(c.res.p[0].b.valid);
	end_is(&c.res.p[0].a_expected, 2, 0, 0, "X-");
	done(&c);
	/* a partner outside the torus */
	build(&c, 4, 4, 1, APENET_V_APENETP);
	o = node(&c, 1, 0, 0);
	o->link_partner[link_of(o, "X+")] = 1u << 31 | xyz_reg(7, 0, 0);
	unplug(&c, (struct end){ 2, 0, 0, "X-" });
	judge(&c);
	expect_only(&c, APENET_CABLING_CROSSED, 1);
	assert_non_null(strstr(c.fs.f[0].evidence, "partner 7,0,0 port 0 (outside the torus)"));
	done(&c);
	/* NaNet-10's channels face external devices: that is no problem */
	build(&c, 2, 1, 1, APENET_V_NANET10);
	for (unsigned k = 0; k < c.n; k++)
		for (unsigned l = 0; l < c.obs[k].prof->nlinks; l++)
			c.obs[k].link_partner[l] = 1u << 31 | 1u << 30;
	judge(&c);
	assert_int_equal(c.res.np, 0);
	done(&c);
}

static void test_unreachable(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	/* 1,1,0 could not be read, but its place is known; its neighbours still see it */
	struct apenet_cabling_obs *o = node(&c, 1, 1, 0);
	o->err = "n5: card not responding at 0000:03:00.0: BAR0 reads all ones";
	o->coord_known = 1;
	judge(&c);
	expect_only(&c, APENET_CABLING_UNREACHABLE, 1);
	end_is(&c.res.p[0].a, 1, 1, 0, "-");
	assert_non_null(strstr(c.res.p[0].text, "card not responding"));
	assert_string_equal(c.fs.f[0].where, "1,1,0");
	assert_int_equal(c.res.nodes_read, 15);
	done(&c);

	/* a node with no data at all (its snapshot not given), whose neighbours see nothing either */
	build(&c, 4, 4, 1, APENET_V_APENETP);
	unplug(&c, (struct end){ 1, 2, 0, "X+" });
	memmove(node(&c, 2, 2, 0), node(&c, 2, 2, 0) + 1, (c.n - 11) * sizeof(*c.obs));
	c.n--;
	judge(&c);
	assert_int_equal(count(&c, APENET_CABLING_UNREACHABLE), 1);
	assert_int_equal(count(&c, APENET_CABLING_MISSING), 1);
	assert_int_equal(c.res.np, 2);
	for (size_t i = 0; i < c.res.np; i++)
		if (c.res.p[i].kind == APENET_CABLING_MISSING) {
			end_is(&c.res.p[i].a, 1, 2, 0, "X+");
			assert_non_null(strstr(c.res.p[i].text, "could not be read"));
			assert_int_equal(c.fs.f[i].sev, APENET_SEV_WARN);
		} else {
			end_is(&c.res.p[i].a, 2, 2, 0, "-");
		}
	done(&c);

	/* unreadable with no known place: a record without ends */
	build(&c, 2, 1, 1, APENET_V_APENETP);
	c.obs[1].err = "dir: cannot open";
	c.obs[1].coord_known = 0;
	judge(&c);
	/* 1,0,0 has no data then: one record for the error, one for the node */
	assert_int_equal(count(&c, APENET_CABLING_UNREACHABLE), 2);
	done(&c);
}

static void test_layout(void **state)
{
	(void)state;
	struct cluster c;
	/* no config: the torus most boards declare; the one that differs is a layout problem */
	build(&c, 4, 4, 1, APENET_V_APENETP);
	node(&c, 3, 2, 0)->torus_dims = xyz_reg(4, 4, 2);
	judge(&c);
	expect_only(&c, APENET_CABLING_LAYOUT, 1);
	assert_int_equal(c.res.dims[2], 1);
	end_is(&c.res.p[0].a, 3, 2, 0, "-");
	assert_non_null(strstr(c.res.p[0].text, "declares a 4x4x2 torus; 15 of the 16 boards that declare one say 4x4x1"));
	assert_int_equal(c.fs.f[0].sev, APENET_SEV_FAIL);
	done(&c);

	/* a config that says otherwise: every board disagrees */
	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	apenet_config_defaults(&cfg);
	cfg.cl.have = 1;
	cfg.cl.dims[0] = 4;
	cfg.cl.dims[1] = 4;
	cfg.cl.dims[2] = 2;
	build(&c, 4, 4, 1, APENET_V_APENETP);
	judge_cfg(&c, &cfg);
	assert_int_equal(count(&c, APENET_CABLING_LAYOUT), 16);
	assert_int_equal(count(&c, APENET_CABLING_UNREACHABLE), 16); /* the z = 1 half was never read */
	assert_int_equal(c.res.nodes, 32);
	done(&c);

	/* a board outside the torus, and two boards with the same coordinates */
	build(&c, 2, 2, 1, APENET_V_APENETP);
	c.obs[3].node_coord = xyz_reg(5, 0, 0);
	c.obs[3].torus_dims = xyz_reg(2, 2, 1);
	judge(&c);
	assert_int_equal(count(&c, APENET_CABLING_LAYOUT), 1);
	assert_non_null(strstr(c.res.p[c.res.np - 2].text, "node 5,0,0 is outside the 2x2x1 torus"));
	done(&c);
	build(&c, 2, 2, 1, APENET_V_APENETP);
	c.obs[3].node_coord = c.obs[2].node_coord;
	judge(&c);
	assert_int_equal(count(&c, APENET_CABLING_LAYOUT), 1);
	size_t i = 0;
	while (c.res.p[i].kind != APENET_CABLING_LAYOUT)
		i++;
	assert_non_null(strstr(c.res.p[i].text, "n2 and n3 both are node 0,1,0"));
	done(&c);

	/* nothing declares the torus and no config gives it: an error, not a guess */
	build(&c, 2, 1, 1, APENET_V_APENETP);
	c.obs[0].torus_dims = c.obs[1].torus_dims = 0;
	assert_int_equal(apenet_cabling_judge(c.obs, c.n, NULL, &c.res, &c.fs, &e), -1);
	assert_non_null(strstr(e.msg, "TORUS_DIMS"));
	done(&c);
}

/* The full 32x32x32 torus with one swapped pair: 32768 nodes, one record. */
static void test_32k(void **state)
{
	(void)state;
	struct cluster c;
	build(&c, 32, 32, 32, APENET_V_APENETP);
	plug(&c, (struct end){ 31, 31, 31, "Z+" }, (struct end){ 31, 31, 30, "Z+" });
	plug(&c, (struct end){ 31, 31, 31, "Z-" }, (struct end){ 31, 31, 0, "Z-" });
	judge(&c);
	expect_only(&c, APENET_CABLING_SWAPPED, 1);
	end_is(&c.res.p[0].a, 31, 31, 31, "Z+");
	end_is(&c.res.p[0].b, 31, 31, 31, "Z-");
	assert_int_equal(c.res.nodes_read, 32768);
	assert_int_equal(c.res.cables_expected, 3 * 32768);
	assert_int_equal(c.res.cables_ok, 3 * 32768 - 2);
	done(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),         cmocka_unit_test(test_swap_on_one_node),
		cmocka_unit_test(test_swap_across_nodes), cmocka_unit_test(test_crossed),
		cmocka_unit_test(test_missing),       cmocka_unit_test(test_wrong_port),
		cmocka_unit_test(test_unexpected),    cmocka_unit_test(test_one_sided_read),
		cmocka_unit_test(test_inconsistent),  cmocka_unit_test(test_external_partner),
		cmocka_unit_test(test_unreachable),   cmocka_unit_test(test_layout),
		cmocka_unit_test(test_32k),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
