/* Collect a board view live, write it as a snapshot document, load it back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/conf.h"
#include "apenet/view.h"

static void read_ee(struct apenet_dev *d, struct apenet_view *v)
{
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		v->ee_status[l] = apenet_rd32(d, apenet_ee_off(l, APENET_EE_STATUS));
		if (!APENET_GET(EE_STATUS, PRESENT, v->ee_status[l]))
			continue;
		/* An SFP's pages end at 512 bytes: the rest of the window is not read. */
		unsigned len = APENET_GET(EE_STATUS, LAYOUT, v->ee_status[l]) == APENET_EE_SFF8472 ? 512u : APENET_EE_DATA_LEN;
		for (unsigned i = 0; i < len; i += 4) {
			uint32_t w = apenet_rd32(d, apenet_ee_off(l, APENET_EE_DATA + i));
			v->ee[l][i] = (uint8_t)w;
			v->ee[l][i + 1] = (uint8_t)(w >> 8);
			v->ee[l][i + 2] = (uint8_t)(w >> 16);
			v->ee[l][i + 3] = (uint8_t)(w >> 24);
		}
	}
}

int apenet_view_collect(struct apenet_dev *d, const struct apenet_card *c, double interval_s, int modules,
			struct apenet_view *v, struct apenet_err *e)
{
	uint64_t before = d->nreads;
	memset(v, 0, sizeof(*v));
	snprintf(v->bdf, sizeof(v->bdf), "%s", d->bdf);
	snprintf(v->source, sizeof(v->source), "live");
	v->prof = d->prof;
	if (c) {
		v->pcie_ok = c->pcie_ok;
		v->pcie = c->pcie;
		snprintf(v->pcie_err, sizeof(v->pcie_err), "%s", c->pcie_err);
	}
	if (apenet_snapshot_read(d, &v->s0, e))
		return -1;
	if (modules)
		read_ee(d, v);
	if (interval_s > 0) {
		struct timespec ts = { (time_t)interval_s, (long)((interval_s - (double)(time_t)interval_s) * 1e9) };
		nanosleep(&ts, NULL);
		if (apenet_snapshot_read(d, &v->s1, e))
			return -1;
	} else {
		v->s1 = v->s0;
	}
	/* the card may have left while we read the EEPROM windows */
	if (apenet_dev_check(d, e))
		return -1;
	v->reads = d->nreads - before;
	return 0;
}

double apenet_view_dt(const struct apenet_view *v)
{
	if (v->s1.g.TIMESTAMP <= v->s0.g.TIMESTAMP)
		return 0;
	return apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - v->s0.g.TIMESTAMP);
}

uint64_t apenet_view_delta(uint64_t before, uint64_t after)
{
	return after >= before ? after - before : 0;
}

/* ---- writing ---- */

static void write_regs(struct apenet_out *o, const char *key, enum apenet_block b, const uint64_t *v)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	apenet_out_obj_begin(o, key);
	for (unsigned i = 0; i < n; i++)
		apenet_out_uint(o, r[i].name, v[i]);
	apenet_out_obj_end(o);
}

static void write_sample(struct apenet_out *o, const struct apenet_view *v, const struct apenet_snapshot *s)
{
	apenet_out_obj_begin(o, NULL);
	write_regs(o, "global", APENET_BLK_GLOBAL, s->g.v);
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", v->prof->links[l].name);
		write_regs(o, "registers", APENET_BLK_LINK, s->link[l].v);
		apenet_out_arr_begin(o, "lanes");
		for (unsigned k = 0; k < v->prof->links[l].lanes; k++)
			write_regs(o, NULL, APENET_BLK_LANE, s->link[l].lane[k].v);
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

void apenet_view_write(const struct apenet_view *v, struct apenet_out *o)
{
	apenet_out_str(o, "bdf", v->bdf);
	apenet_out_str(o, "variant", v->prof->name);
	apenet_out_obj_begin(o, "pcie");
	apenet_out_bool(o, "ok", v->pcie_ok);
	if (v->pcie_ok) {
		const struct apenet_pcie_info *p = &v->pcie;
		apenet_out_uint(o, "cap_gen", p->cap_gen);
		apenet_out_uint(o, "cap_width", p->cap_width);
		apenet_out_uint(o, "sta_gen", p->sta_gen);
		apenet_out_uint(o, "sta_width", p->sta_width);
		apenet_out_bool(o, "degraded", p->degraded);
		apenet_out_uint(o, "devsta", p->devsta);
		apenet_out_bool(o, "has_aer", p->has_aer);
		apenet_out_uint(o, "aer_uncor_status", p->aer_uncor_status);
		apenet_out_uint(o, "aer_uncor_mask", p->aer_uncor_mask);
		apenet_out_uint(o, "aer_uncor_sev", p->aer_uncor_sev);
		apenet_out_uint(o, "aer_cor_status", p->aer_cor_status);
		apenet_out_uint(o, "aer_cor_mask", p->aer_cor_mask);
	} else {
		apenet_out_str(o, "error", v->pcie_err);
	}
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "samples");
	write_sample(o, v, &v->s0);
	write_sample(o, v, &v->s1);
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "modules");
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "port", v->prof->links[l].name);
		apenet_out_uint(o, "status", v->ee_status[l]);
		if (APENET_GET(EE_STATUS, PRESENT, v->ee_status[l])) {
			char hex[APENET_EE_DATA_LEN * 2 + 1];
			for (unsigned i = 0; i < APENET_EE_DATA_LEN; i++)
				snprintf(hex + 2 * i, 3, "%02x", v->ee[l][i]);
			apenet_out_str(o, "eeprom", hex);
		}
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

/* ---- loading ---- */

static int need(const struct apenet_conf *c, const struct apenet_conf_node *map, const char *key, enum apenet_conf_kind k,
		const struct apenet_conf_node **out, struct apenet_err *e)
{
	*out = apenet_conf_get(map, key);
	if (!*out)
		return apenet_conf_error(c, map, e, "missing '%s'", key);
	return apenet_conf_expect(c, *out, k, key, e);
}

static int load_regs(const struct apenet_conf *c, const struct apenet_conf_node *map, enum apenet_block b, uint64_t *v,
		     struct apenet_err *e)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	if (apenet_conf_expect(c, map, APENET_CONF_MAP, "registers", e))
		return -1;
	for (unsigned i = 0; i < n; i++) {
		const struct apenet_conf_node *x = apenet_conf_get(map, r[i].name);
		unsigned long u;
		if (!x)
			return apenet_conf_error(c, map, e, "register %s missing", r[i].name);
		if (apenet_conf_uint(c, x, 0, r[i].bits == 64 ? ~0ul : 0xfffffffful, &u, e))
			return -1;
		v[i] = u;
	}
	return 0;
}

static int load_sample(const struct apenet_conf *c, const struct apenet_conf_node *smp, struct apenet_view *v,
		       struct apenet_snapshot *s, struct apenet_err *e)
{
	const struct apenet_conf_node *g, *links;
	s->prof = v->prof;
	s->nlinks = v->prof->nlinks;
	if (apenet_conf_expect(c, smp, APENET_CONF_MAP, "sample", e) || need(c, smp, "global", APENET_CONF_MAP, &g, e) ||
	    load_regs(c, g, APENET_BLK_GLOBAL, s->g.v, e) || need(c, smp, "links", APENET_CONF_SEQ, &links, e))
		return -1;
	if (s->g.ID_VARIANT != (uint64_t)v->prof->id)
		return apenet_conf_error(c, g, e, "ID_VARIANT %llu does not match variant '%s'",
				  (unsigned long long)s->g.ID_VARIANT, v->prof->name);
	unsigned l = 0;
	for (const struct apenet_conf_node *ln = links->child; ln; ln = ln->next, l++) {
		const struct apenet_conf_node *regs, *lanes;
		if (l >= v->prof->nlinks)
			return apenet_conf_error(c, ln, e, "more links than a %s has (%u)", v->prof->name, v->prof->nlinks);
		if (apenet_conf_expect(c, ln, APENET_CONF_MAP, "link", e) || need(c, ln, "registers", APENET_CONF_MAP, &regs, e) ||
		    load_regs(c, regs, APENET_BLK_LINK, s->link[l].v, e) || need(c, ln, "lanes", APENET_CONF_SEQ, &lanes, e))
			return -1;
		unsigned k = 0;
		for (const struct apenet_conf_node *lk = lanes->child; lk; lk = lk->next, k++) {
			if (k >= v->prof->links[l].lanes)
				return apenet_conf_error(c, lk, e, "link %s has %u lanes", v->prof->links[l].name,
						  v->prof->links[l].lanes);
			if (load_regs(c, lk, APENET_BLK_LANE, s->link[l].lane[k].v, e))
				return -1;
		}
		if (k != v->prof->links[l].lanes)
			return apenet_conf_error(c, lanes, e, "link %s: %u lanes given, a %s has %u", v->prof->links[l].name, k,
					  v->prof->name, v->prof->links[l].lanes);
	}
	if (l != v->prof->nlinks)
		return apenet_conf_error(c, links, e, "%u links given, a %s has %u", l, v->prof->name, v->prof->nlinks);
	return 0;
}

static int hexval(char ch)
{
	return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
					    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

static int load_pcie(const struct apenet_conf *c, const struct apenet_conf_node *p, struct apenet_view *v, struct apenet_err *e)
{
	const struct apenet_conf_node *ok = apenet_conf_get(p, "ok");
	if (apenet_conf_expect(c, p, APENET_CONF_MAP, "pcie", e))
		return -1;
	if (!ok || ok->kind != APENET_CONF_SCALAR || (strcmp(ok->value, "true") && strcmp(ok->value, "false")))
		return apenet_conf_error(c, ok ? ok : p, e, "'pcie.ok' must be true or false");
	v->pcie_ok = !strcmp(ok->value, "true");
	if (!v->pcie_ok) {
		const struct apenet_conf_node *er = apenet_conf_get(p, "error");
		snprintf(v->pcie_err, sizeof(v->pcie_err), "%s", er && er->value ? er->value : "");
		return 0;
	}
	static const char *const u8k[] = { "cap_gen", "cap_width", "sta_gen", "sta_width" };
	uint8_t *u8v[] = { &v->pcie.cap_gen, &v->pcie.cap_width, &v->pcie.sta_gen, &v->pcie.sta_width };
	for (int i = 0; i < 4; i++) {
		const struct apenet_conf_node *x;
		unsigned long u;
		if (need(c, p, u8k[i], APENET_CONF_SCALAR, &x, e) || apenet_conf_uint(c, x, 0, 32, &u, e))
			return -1;
		*u8v[i] = (uint8_t)u;
	}
	static const char *const u32k[] = { "devsta", "aer_uncor_status", "aer_uncor_mask", "aer_uncor_sev",
					    "aer_cor_status", "aer_cor_mask" };
	uint32_t devsta = 0;
	uint32_t *u32v[] = { &devsta, &v->pcie.aer_uncor_status, &v->pcie.aer_uncor_mask, &v->pcie.aer_uncor_sev,
			     &v->pcie.aer_cor_status, &v->pcie.aer_cor_mask };
	for (int i = 0; i < 6; i++) {
		const struct apenet_conf_node *x;
		unsigned long u;
		if (need(c, p, u32k[i], APENET_CONF_SCALAR, &x, e) || apenet_conf_uint(c, x, 0, 0xfffffffful, &u, e))
			return -1;
		*u32v[i] = (uint32_t)u;
	}
	v->pcie.devsta = (uint16_t)devsta;
	const struct apenet_conf_node *ha = apenet_conf_get(p, "has_aer"), *dg = apenet_conf_get(p, "degraded");
	v->pcie.has_aer = ha && ha->value && !strcmp(ha->value, "true");
	v->pcie.degraded = dg && dg->value && !strcmp(dg->value, "true");
	v->pcie.has_pcie = 1;
	return 0;
}

int apenet_view_load(const char *path, struct apenet_view *v, struct apenet_err *e)
{
	struct apenet_conf *c;
	const struct apenet_conf_node *r, *x, *samples, *mods;
	int rc = -1;
	memset(v, 0, sizeof(*v));
	snprintf(v->source, sizeof(v->source), "file");
	if (apenet_conf_load(path, &c, e))
		return -1;
	r = c->root;
	if (apenet_conf_expect(c, r, APENET_CONF_MAP, "document", e) || need(c, r, "schema", APENET_CONF_SCALAR, &x, e))
		goto out;
	if (strcmp(x->value, APENET_JSON_SCHEMA)) {
		apenet_conf_error(c, x, e, "schema '%s' is not %s", x->value, APENET_JSON_SCHEMA);
		goto out;
	}
	if (need(c, r, "command", APENET_CONF_SCALAR, &x, e))
		goto out;
	if (strcmp(x->value, "snapshot")) {
		apenet_conf_error(c, x, e, "a '%s' document, not an apenet snapshot", x->value);
		goto out;
	}
	if (need(c, r, "bdf", APENET_CONF_SCALAR, &x, e))
		goto out;
	snprintf(v->bdf, sizeof(v->bdf), "%s", x->value);
	if (need(c, r, "variant", APENET_CONF_SCALAR, &x, e))
		goto out;
	if (!(v->prof = apenet_profile_by_name(x->value))) {
		apenet_conf_error(c, x, e, "unknown variant '%s'", x->value);
		goto out;
	}
	if (need(c, r, "pcie", APENET_CONF_MAP, &x, e) || load_pcie(c, x, v, e))
		goto out;
	if (need(c, r, "samples", APENET_CONF_SEQ, &samples, e))
		goto out;
	if (!samples->child || !samples->child->next || samples->child->next->next) {
		apenet_conf_error(c, samples, e, "'samples' must hold exactly two samples");
		goto out;
	}
	if (load_sample(c, samples->child, v, &v->s0, e) || load_sample(c, samples->child->next, v, &v->s1, e))
		goto out;
	if (v->s1.g.TIMESTAMP < v->s0.g.TIMESTAMP) {
		apenet_conf_error(c, samples->child->next, e, "the second sample is older than the first (TIMESTAMP)");
		goto out;
	}
	if (need(c, r, "modules", APENET_CONF_SEQ, &mods, e))
		goto out;
	unsigned l = 0;
	for (const struct apenet_conf_node *m = mods->child; m; m = m->next, l++) {
		const struct apenet_conf_node *st, *hex;
		unsigned long u;
		if (l >= v->prof->nlinks) {
			apenet_conf_error(c, m, e, "more module ports than links");
			goto out;
		}
		if (apenet_conf_expect(c, m, APENET_CONF_MAP, "module", e) || need(c, m, "status", APENET_CONF_SCALAR, &st, e) ||
		    apenet_conf_uint(c, st, 0, 0xfffffffful, &u, e))
			goto out;
		v->ee_status[l] = (uint32_t)u;
		if (!APENET_GET(EE_STATUS, PRESENT, v->ee_status[l]))
			continue;
		if (need(c, m, "eeprom", APENET_CONF_SCALAR, &hex, e))
			goto out;
		if (strlen(hex->value) != 2 * APENET_EE_DATA_LEN) {
			apenet_conf_error(c, hex, e, "'eeprom' holds %zu hex digits, expected %u", strlen(hex->value),
				   2 * APENET_EE_DATA_LEN);
			goto out;
		}
		for (unsigned i = 0; i < APENET_EE_DATA_LEN; i++) {
			int hi = hexval(hex->value[2 * i]), lo = hexval(hex->value[2 * i + 1]);
			if (hi < 0 || lo < 0) {
				apenet_conf_error(c, hex, e, "'eeprom': not a hex digit at position %u", 2 * i + (hi < 0 ? 0 : 1));
				goto out;
			}
			v->ee[l][i] = (uint8_t)(hi << 4 | lo);
		}
	}
	rc = 0;
out:
	apenet_conf_free(c);
	return rc;
}
