/* apenet regs: every register of a card, named, with its fields decoded. */
#include <stdio.h>
#include <string.h>

#include "apenet/snapshot.h"
#include "apenet/verdict.h"
#include "cli.h"

/* Registers whose fields are the LDM layout share the pseudo-register "LDM". */
static int field_applies(const struct apenet_fielddesc *f, const struct apenet_regdesc *r)
{
	if (!strcmp(f->reg, "LDM"))
		return !strcmp(r->unit, "ldm");
	return !strcmp(f->reg, r->name);
}

static void out_fields(struct apenet_out *o, const struct apenet_regdesc *r, uint64_t v)
{
	unsigned nf;
	const struct apenet_fielddesc *f = apenet_fielddescs(&nf);
	char buf[512];
	size_t len = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < nf; i++) {
		if (!field_applies(&f[i], r))
			continue;
		unsigned x = (unsigned)((v >> f[i].lsb) & ((1ull << f[i].width) - 1));
		int k = snprintf(buf + len, sizeof(buf) - len, "%s%s=%u", len ? " " : "", f[i].name, x);
		if (k < 0 || (size_t)k >= sizeof(buf) - len)
			break;
		len += (size_t)k;
	}
	if (len)
		apenet_out_str(o, "fields", buf);
}

static void out_block(struct apenet_out *o, const char *key, enum apenet_block b, uint32_t base, const uint64_t *v)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	apenet_out_arr_begin(o, key);
	for (unsigned i = 0; i < n; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", r[i].name);
		apenet_out_hex(o, "offset", base + r[i].off, 4);
		if (r[i].bits == 32 && (!strcmp(r[i].unit, "bits") || !strcmp(r[i].unit, "ldm") ||
					!strcmp(r[i].unit, "coord") || !strcmp(r[i].unit, "ver") ||
					!strcmp(r[i].unit, "-")))
			apenet_out_hex(o, "value", v[i], 8);
		else
			apenet_out_uint(o, "value", v[i]);
		apenet_out_str(o, "access", apenet_access_name(r[i].access));
		apenet_out_str(o, "unit", r[i].unit);
		out_fields(o, &r[i], v[i]);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

int cmd_regs(struct cli *c)
{
	struct apenet_site site;
	struct apenet_dev d;
	struct apenet_err e = { 0 };
	static struct apenet_snapshot s;
	int rc = cli_open(c, &d, &site);
	if (rc)
		return rc;
	if (apenet_snapshot_read(&d, &s, &e)) {
		apenet_dev_close(&d);
		return cli_fail(&e);
	}

	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "regs");
	apenet_out_str(o, "bdf", d.bdf);
	apenet_out_str(o, "variant", d.prof->name);
	apenet_out_uint(o, "snapshot_reads", s.reads);
	out_block(o, "global", APENET_BLK_GLOBAL, 0, s.g.v);
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < s.nlinks; l++) {
		const struct apenet_link_profile *lp = &d.prof->links[l];
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", lp->name);
		apenet_out_uint(o, "index", l);
		out_block(o, "registers", APENET_BLK_LINK, apenet_link_off(l, 0), s.link[l].v);
		apenet_out_arr_begin(o, "lanes");
		for (unsigned k = 0; k < lp->lanes; k++) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_uint(o, "lane", k);
			out_block(o, "registers", APENET_BLK_LANE, apenet_lane_off(l, k, 0), s.link[l].lane[k].v);
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	/* Module EEPROM windows: status registers (the pages are decoded by apenet module). */
	apenet_out_arr_begin(o, "modules");
	for (unsigned l = 0; l < s.nlinks; l++) {
		uint64_t v[8];
		unsigned n;
		const struct apenet_regdesc *r = apenet_regdescs(APENET_BLK_EE, &n);
		for (unsigned i = 0; i < n && i < 8; i++)
			v[i] = r[i].bits == 64 ? apenet_rd64(&d, apenet_ee_off(l, r[i].off))
					       : apenet_rd32(&d, apenet_ee_off(l, r[i].off));
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "port", d.prof->links[l].name);
		out_block(o, "registers", APENET_BLK_EE, apenet_ee_off(l, 0), v);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	/* The card may have left while we read the EEPROM windows: print nothing then. */
	if (apenet_dev_check(&d, &e)) {
		apenet_out_discard(o);
		rc = cli_fail(&e);
	} else {
		/* the state rules on this one sample (rates need two: apenet link) */
		static struct apenet_view v;
		struct apenet_config cfg;
		struct apenet_findings fs;
		apenet_config_defaults(&cfg);
		apenet_findings_init(&fs);
		memset(&v, 0, sizeof(v));
		v.prof = d.prof;
		v.s0 = v.s1 = s;
		apenet_rules_pair(&v, &cfg, NULL, &fs);
		apenet_findings_write(o, &fs);
		rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
		apenet_findings_free(&fs);
	}
	apenet_dev_close(&d);
	return rc;
}
