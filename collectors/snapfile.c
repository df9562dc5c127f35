/*
 * The snapshot codec: a board view as the versioned `apenet snapshot` JSON
 * document, and back.  `apenet snapshot` writes it, every reading command's
 * --from loads it, and the agent's black box will use both.  Each sample
 * carries the host's epoch time (host_time_ms; files from before it have
 * none, loaded as 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/conf.h"
#include "apenet/snapfile.h"

/* ---- writing ---- */

/* One writer for both forms: apenet_snapfile_write gives it a tree (the two
 * samples of `apenet snapshot`), the stream functions a stream
 * (apenet_out_stream: a black-box dump of hundreds of samples would cost
 * tens of megabytes as a tree, docs/agent.md). */

static void write_regs(struct apenet_out *o, const char *key, enum apenet_block b, const uint64_t *v)
{
	unsigned n;
	const struct apenet_regdesc *r = apenet_regdescs(b, &n);
	apenet_out_obj_begin(o, key);
	for (unsigned i = 0; i < n; i++)
		apenet_out_uint(o, r[i].name, v[i]);
	apenet_out_obj_end(o);
}

/* A tiered sample's stamps (apenet/tiers.h): when the registers of the
 * second and minute tiers were read, written only when not with the rest. */
static void write_read_at(struct apenet_out *o, const struct apenet_snapshot *s, uint64_t second, uint64_t minute)
{
	if ((!second || second == s->g.TIMESTAMP) && (!minute || minute == s->g.TIMESTAMP))
		return;
	apenet_out_obj_begin(o, "read_at");
	apenet_out_uint(o, "second", second);
	apenet_out_uint(o, "minute", minute);
	apenet_out_obj_end(o);
}

static void write_sample(struct apenet_out *o, const struct apenet_profile *prof, const struct apenet_snapshot *s,
			 int64_t host_ms)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "host_time_ms", host_ms);
	write_regs(o, "global", APENET_BLK_GLOBAL, s->g.v);
	write_read_at(o, s, s->ts_second, s->ts_minute);
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < prof->nlinks; l++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", prof->links[l].name);
		write_regs(o, "registers", APENET_BLK_LINK, s->link[l].v);
		write_read_at(o, s, s->link[l].ts_second, s->link[l].ts_minute);
		apenet_out_arr_begin(o, "lanes");
		for (unsigned k = 0; k < prof->links[l].lanes; k++)
			write_regs(o, NULL, APENET_BLK_LANE, s->link[l].lane[k].v);
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

/* The members before the samples. */
static void write_head(struct apenet_out *o, const char *bdf, const struct apenet_profile *prof, int pcie_ok,
		       const struct apenet_pcie_info *p, const char *pcie_err)
{
	apenet_out_str(o, "bdf", bdf);
	apenet_out_str(o, "variant", prof->name);
	apenet_out_obj_begin(o, "pcie");
	apenet_out_bool(o, "ok", pcie_ok);
	if (pcie_ok) {
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
		apenet_out_str(o, "error", pcie_err ? pcie_err : "");
	}
	apenet_out_obj_end(o);
}

/* The members after the samples; ee_status NULL: no module read. */
static void write_modules(struct apenet_out *o, const struct apenet_profile *prof, const uint32_t *ee_status,
			  const uint8_t (*ee)[APENET_EE_DATA_LEN])
{
	apenet_out_arr_begin(o, "modules");
	for (unsigned l = 0; l < prof->nlinks; l++) {
		uint32_t st = ee_status ? ee_status[l] : 0;
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "port", prof->links[l].name);
		apenet_out_uint(o, "status", st);
		if (ee && APENET_GET(EE_STATUS, PRESENT, st)) {
			char hex[APENET_EE_DATA_LEN * 2 + 1];
			for (unsigned i = 0; i < APENET_EE_DATA_LEN; i++)
				snprintf(hex + 2 * i, 3, "%02x", ee[l][i]);
			apenet_out_str(o, "eeprom", hex);
		}
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

void apenet_snapfile_write(const struct apenet_view *v, struct apenet_out *o)
{
	write_head(o, v->bdf, v->prof, v->pcie_ok, &v->pcie, v->pcie_err);
	apenet_out_arr_begin(o, "samples");
	write_sample(o, v->prof, &v->s0, v->host_ms[0]);
	write_sample(o, v->prof, &v->s1, v->host_ms[1]);
	apenet_out_arr_end(o);
	write_modules(o, v->prof, v->ee_status, v->ee);
}

void apenet_snapfile_stream_begin(struct apenet_snapfile_stream *s, struct apenet_out *o, const char *bdf,
				  const struct apenet_profile *prof, int pcie_ok, const struct apenet_pcie_info *p,
				  const char *pcie_err)
{
	s->o = o;
	s->prof = prof;
	s->n = 0;
	write_head(o, bdf, prof, pcie_ok, p, pcie_err);
	apenet_out_arr_begin(o, "samples");
}

void apenet_snapfile_stream_sample(struct apenet_snapfile_stream *s, const struct apenet_snapshot *snap, int64_t host_ms)
{
	write_sample(s->o, s->prof, snap, host_ms);
	s->n++;
}

int apenet_snapfile_stream_end(struct apenet_snapfile_stream *s, const uint32_t *ee_status,
			       const uint8_t (*ee)[APENET_EE_DATA_LEN])
{
	apenet_out_arr_end(s->o);
	write_modules(s->o, s->prof, ee_status, ee);
	return s->n ? 0 : -1;
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
		if (!x && apenet_reg_added_later(r[i].name)) {
			v[i] = 0; /* written before the register existed: as a firmware without it */
			continue;
		}
		if (!x)
			return apenet_conf_error(c, map, e, "register %s missing", r[i].name);
		if (apenet_conf_uint(c, x, 0, r[i].bits == 64 ? ~0ul : 0xfffffffful, &u, e))
			return -1;
		v[i] = u;
	}
	return 0;
}

/* "read_at" of a tiered sample (optional: a full one has none). */
static int load_read_at(const struct apenet_conf *c, const struct apenet_conf_node *map, uint64_t *second,
			uint64_t *minute, struct apenet_err *e)
{
	const struct apenet_conf_node *r = apenet_conf_get(map, "read_at"), *x;
	unsigned long u;
	*second = *minute = 0;
	if (!r)
		return 0;
	if (apenet_conf_expect(c, r, APENET_CONF_MAP, "read_at", e))
		return -1;
	if ((x = apenet_conf_get(r, "second"))) {
		if (apenet_conf_uint(c, x, 0, ~0ul, &u, e))
			return -1;
		*second = u;
	}
	if ((x = apenet_conf_get(r, "minute"))) {
		if (apenet_conf_uint(c, x, 0, ~0ul, &u, e))
			return -1;
		*minute = u;
	}
	return 0;
}

static int load_sample(const struct apenet_conf *c, const struct apenet_conf_node *smp, struct apenet_view *v,
		       struct apenet_snapshot *s, int64_t *host_ms, struct apenet_err *e)
{
	const struct apenet_conf_node *g, *links, *ht;
	s->prof = v->prof;
	s->nlinks = v->prof->nlinks;
	if (apenet_conf_expect(c, smp, APENET_CONF_MAP, "sample", e) || need(c, smp, "global", APENET_CONF_MAP, &g, e) ||
	    load_regs(c, g, APENET_BLK_GLOBAL, s->g.v, e) || load_read_at(c, smp, &s->ts_second, &s->ts_minute, e) ||
	    need(c, smp, "links", APENET_CONF_SEQ, &links, e))
		return -1;
	*host_ms = 0;
	if ((ht = apenet_conf_get(smp, "host_time_ms"))) {
		unsigned long u;
		if (apenet_conf_uint(c, ht, 0, 1ul << 62, &u, e))
			return -1;
		*host_ms = (int64_t)u;
	}
	if (s->g.ID_VARIANT != (uint64_t)v->prof->id)
		return apenet_conf_error(c, g, e, "ID_VARIANT %llu does not match variant '%s'",
				  (unsigned long long)s->g.ID_VARIANT, v->prof->name);
	unsigned l = 0;
	for (const struct apenet_conf_node *ln = links->child; ln; ln = ln->next, l++) {
		const struct apenet_conf_node *regs, *lanes;
		if (l >= v->prof->nlinks)
			return apenet_conf_error(c, ln, e, "more links than a %s has (%u)", v->prof->name, v->prof->nlinks);
		if (apenet_conf_expect(c, ln, APENET_CONF_MAP, "link", e) || need(c, ln, "registers", APENET_CONF_MAP, &regs, e) ||
		    load_regs(c, regs, APENET_BLK_LINK, s->link[l].v, e) ||
		    load_read_at(c, ln, &s->link[l].ts_second, &s->link[l].ts_minute, e) ||
		    need(c, ln, "lanes", APENET_CONF_SEQ, &lanes, e))
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


struct sample_meta {
	int64_t host_ms;
	uint64_t ts, hz;
};

/* The time a sample is picked by, in ms: its host time when every sample
 * has one, else the board's TIMESTAMP. */
static int64_t meta_ms(const struct sample_meta *m, int has_host)
{
	if (has_host)
		return m->host_ms;
	return m->hz >= 1000 ? (int64_t)(m->ts / (m->hz / 1000)) : (int64_t)m->ts;
}

/*
 * Every sample is loaded (and so checked); the two picked are kept.  s1 is
 * the last sample, or the one pick->at names; s0 the latest sample at least
 * pick->interval_s before s1 among those since the last firmware reset
 * before s1 (TIMESTAMP never goes back between s0 and s1), else the earliest
 * of them.  Two samples whose TIMESTAMP goes back are an error, as they
 * always were.
 */
static int load_samples(const struct apenet_conf *c, const struct apenet_conf_node *samples,
			const struct apenet_snapfile_pick *pick, struct apenet_view *v, struct apenet_err *e)
{
	struct apenet_snapfile_pick def = { APENET_AT_LAST, 0, 1.0 };
	if (!pick)
		pick = &def;
	unsigned n = 0;
	for (const struct apenet_conf_node *x = samples->child; x; x = x->next)
		n++;
	if (n == 0)
		return apenet_conf_error(c, samples, e, "'samples' holds no sample");
	if (n == 1)
		return apenet_conf_error(c, samples, e, "'samples' must hold at least two samples");
	struct sample_meta *m = calloc(n, sizeof(*m));
	struct apenet_snapshot *tmp = malloc(sizeof(*tmp));
	const struct apenet_conf_node **node = calloc(n, sizeof(*node));
	int rc = -1, has_host = 1;
	if (!m || !tmp || !node) {
		apenet_err_set(e, APENET_EIO, "out of memory for %u samples", n);
		goto out;
	}
	unsigned i = 0;
	for (const struct apenet_conf_node *x = samples->child; x; x = x->next, i++) {
		node[i] = x;
		if (load_sample(c, x, v, tmp, &m[i].host_ms, e))
			goto out;
		m[i].ts = tmp->g.TIMESTAMP;
		m[i].hz = tmp->g.TS_FREQ_HZ;
		has_host &= m[i].host_ms != 0;
	}
	if (n == 2 && m[1].ts < m[0].ts) {
		apenet_conf_error(c, node[1], e, "the second sample is older than the first (TIMESTAMP)");
		goto out;
	}
	unsigned s1 = n - 1;
	int64_t want = 0;
#define MS(k) meta_ms(&m[k], has_host)
	if (pick->at != APENET_AT_LAST) {
		want = pick->at == APENET_AT_TIME ? pick->at_ms
		       : pick->at == APENET_AT_FROM_END ? MS(n - 1) - pick->at_ms
							: MS(0) + pick->at_ms;
		if (want < MS(0)) {
			apenet_conf_error(c, samples, e, "no sample at or before the time asked (%lld ms); the samples span %lld..%lld ms",
					  (long long)want, (long long)MS(0), (long long)MS(n - 1));
			goto out;
		}
		for (s1 = 0; s1 + 1 < n && MS(s1 + 1) <= want; s1++)
			;
	}
	/* the samples since the last reset before s1 */
	unsigned first = s1;
	while (first > 0 && m[first - 1].ts <= m[first].ts)
		first--;
	unsigned s0 = first;
	int64_t limit = MS(s1) - (int64_t)(pick->interval_s * 1000);
	for (unsigned k = first; k < s1; k++)
		if (MS(k) <= limit)
			s0 = k;
#undef MS
	if (load_sample(c, node[s0], v, &v->s0, &v->host_ms[0], e) ||
	    load_sample(c, node[s1], v, &v->s1, &v->host_ms[1], e))
		goto out;
	v->nsamples = n;
	v->pair[0] = s0;
	v->pair[1] = s1;
	rc = 0;
out:
	free(m);
	free(tmp);
	free(node);
	return rc;
}

/* The document's identity: schema, command, bdf, variant, pcie. */
static int load_head(struct apenet_conf *c, struct apenet_view *v, struct apenet_err *e)
{
	const struct apenet_conf_node *r, *x;
	r = c->root;
	if (apenet_conf_expect(c, r, APENET_CONF_MAP, "document", e) || need(c, r, "schema", APENET_CONF_SCALAR, &x, e))
		return -1;
	/* /1 snapshots (before findings) hold the same registers: still replayable */
	if (strcmp(x->value, APENET_JSON_SCHEMA) && strcmp(x->value, "apenet-diag/1")) {
		return apenet_conf_error(c, x, e, "schema '%s' is not %s (or apenet-diag/1)", x->value, APENET_JSON_SCHEMA);
	}
	if (need(c, r, "command", APENET_CONF_SCALAR, &x, e))
		return -1;
	if (strcmp(x->value, "snapshot"))
		return apenet_conf_error(c, x, e, "a '%s' document, not an apenet snapshot", x->value);
	if (need(c, r, "bdf", APENET_CONF_SCALAR, &x, e))
		return -1;
	snprintf(v->bdf, sizeof(v->bdf), "%s", x->value);
	if (need(c, r, "variant", APENET_CONF_SCALAR, &x, e))
		return -1;
	if (!(v->prof = apenet_profile_by_name(x->value)))
		return apenet_conf_error(c, x, e, "unknown variant '%s'", x->value);
	if (need(c, r, "pcie", APENET_CONF_MAP, &x, e) || load_pcie(c, x, v, e))
		return -1;
	return 0;
}

/* The "modules" list (mods, a sequence) into v's EEPROM windows. */
static int load_modules(struct apenet_conf *c, const struct apenet_conf_node *mods, struct apenet_view *v,
			struct apenet_err *e)
{
	unsigned l = 0;
	for (const struct apenet_conf_node *m = mods->child; m; m = m->next, l++) {
		const struct apenet_conf_node *st, *hex;
		unsigned long u;
		if (l >= v->prof->nlinks)
			return apenet_conf_error(c, m, e, "more module ports than links");
		if (apenet_conf_expect(c, m, APENET_CONF_MAP, "module", e) || need(c, m, "status", APENET_CONF_SCALAR, &st, e) ||
		    apenet_conf_uint(c, st, 0, 0xfffffffful, &u, e))
			return -1;
		v->ee_status[l] = (uint32_t)u;
		if (!APENET_GET(EE_STATUS, PRESENT, v->ee_status[l]))
			continue;
		if (need(c, m, "eeprom", APENET_CONF_SCALAR, &hex, e))
			return -1;
		if (strlen(hex->value) != 2 * APENET_EE_DATA_LEN)
			return apenet_conf_error(c, hex, e, "'eeprom' holds %zu hex digits, expected %u", strlen(hex->value),
						 2 * APENET_EE_DATA_LEN);
		for (unsigned i = 0; i < APENET_EE_DATA_LEN; i++) {
			int hi = hexval(hex->value[2 * i]), lo = hexval(hex->value[2 * i + 1]);
			if (hi < 0 || lo < 0)
				return apenet_conf_error(c, hex, e, "'eeprom': not a hex digit at position %u",
							 2 * i + (hi < 0 ? 0 : 1));
			v->ee[l][i] = (uint8_t)(hi << 4 | lo);
		}
	}
	return 0;
}

static int load(struct apenet_conf *c, const struct apenet_snapfile_pick *pick, struct apenet_view *v, struct apenet_err *e)
{
	const struct apenet_conf_node *r = c->root, *samples, *mods;
	int rc = -1;
	if (load_head(c, v, e))
		goto out;
	if (need(c, r, "samples", APENET_CONF_SEQ, &samples, e) || load_samples(c, samples, pick, v, e))
		goto out;
	if (need(c, r, "modules", APENET_CONF_SEQ, &mods, e) || load_modules(c, mods, v, e))
		goto out;
	rc = 0;
out:
	apenet_conf_free(c);
	return rc;
}

int apenet_snapfile_load_pick(const char *path, const struct apenet_snapfile_pick *pick, struct apenet_view *v,
			      struct apenet_err *e)
{
	struct apenet_conf *c;
	memset(v, 0, sizeof(*v));
	snprintf(v->source, sizeof(v->source), "file");
	if (apenet_conf_load(path, &c, e))
		return -1;
	return load(c, pick, v, e);
}

int apenet_snapfile_load_string_pick(const char *name, const char *text, const struct apenet_snapfile_pick *pick,
				     struct apenet_view *v, struct apenet_err *e)
{
	struct apenet_conf *c;
	memset(v, 0, sizeof(*v));
	snprintf(v->source, sizeof(v->source), "file");
	if (apenet_conf_load_string(name, text, &c, e))
		return -1;
	return load(c, pick, v, e);
}

int apenet_snapfile_load(const char *path, struct apenet_view *v, struct apenet_err *e)
{
	return apenet_snapfile_load_pick(path, NULL, v, e);
}

int apenet_snapfile_load_string(const char *name, const char *text, struct apenet_view *v, struct apenet_err *e)
{
	return apenet_snapfile_load_string_pick(name, text, NULL, v, e);
}

/* Why a black-box dump was written (its "blackbox" member's reason), when
 * the document is one. */
static void load_bbox_reason(struct apenet_conf *c, struct apenet_snapfile_info *info)
{
	const struct apenet_conf_node *bb = apenet_conf_get(c->root, "blackbox"), *x;
	if (bb && bb->kind == APENET_CONF_MAP && (x = apenet_conf_get(bb, "reason")) && x->kind == APENET_CONF_SCALAR &&
	    x->value)
		snprintf(info->reason, sizeof(info->reason), "%s", x->value);
}

int apenet_snapfile_each(const char *path, apenet_snapfile_sample_fn cb, void *arg, struct apenet_err *e)
{
	struct apenet_conf *c;
	struct apenet_view *v = calloc(1, sizeof(*v));
	struct apenet_snapshot *s = malloc(sizeof(*s));
	struct apenet_snapfile_info info;
	const struct apenet_conf_node *samples;
	int rc = -1;
	memset(&info, 0, sizeof(info));
	if (!v || !s) {
		apenet_err_set(e, APENET_EIO, "%s: out of memory", path);
		goto out_mem;
	}
	if (apenet_conf_load(path, &c, e))
		goto out_mem;
	if (load_head(c, v, e) || need(c, c->root, "samples", APENET_CONF_SEQ, &samples, e))
		goto out;
	snprintf(info.bdf, sizeof(info.bdf), "%s", v->bdf);
	info.prof = v->prof;
	info.pcie_ok = v->pcie_ok;
	info.pcie = v->pcie;
	memcpy(info.pcie_err, v->pcie_err, sizeof(info.pcie_err));
	for (const struct apenet_conf_node *x = samples->child; x; x = x->next)
		info.nsamples++;
	load_bbox_reason(c, &info);
	const struct apenet_conf_node *mods = apenet_conf_get(c->root, "modules");
	if (mods) {
		if (apenet_conf_expect(c, mods, APENET_CONF_SEQ, "modules", e) || load_modules(c, mods, v, e))
			goto out;
		info.ee_status = v->ee_status;
		info.ee = (const uint8_t(*)[APENET_EE_DATA_LEN])v->ee;
	}
	for (const struct apenet_conf_node *x = samples->child; x; x = x->next) {
		int64_t host_ms;
		if (load_sample(c, x, v, s, &host_ms, e))
			goto out;
		if (cb(arg, &info, s, host_ms))
			break;
	}
	rc = 0;
out:
	apenet_conf_free(c);
out_mem:
	free(v);
	free(s);
	return rc;
}
