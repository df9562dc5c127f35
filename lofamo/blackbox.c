/*
 * The black box ring (include/apenet/blackbox.h): samples stored as deltas
 * in a byte ring bounded by bytes and by span.
 *
 * A sample is flattened into nvals 64-bit values (its host time and PCIe
 * state, then the snapshot's global, link and lane registers of the
 * variant, with the stamps of their tiers: apenet/tiers.h).  A record is the difference from the sample before:
 *     varint(changed) { varint(index gap) zigzag-varint(delta) } * changed
 * with the delta taken modulo 2^64, so a counter that was cleared or a
 * timestamp that restarted is stored as exactly as one that grew.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/blackbox.h"
#include "apenet/snapfile.h"

enum {
	V_HOST_MS, V_PCIE_OK, V_HAS_PCIE, V_CAP_GEN, V_CAP_WIDTH, V_STA_GEN, V_STA_WIDTH, V_DEGRADED, V_DEVSTA,
	V_HAS_AER, V_AER_UNCOR, V_AER_UNCOR_MASK, V_AER_UNCOR_SEV, V_AER_COR, V_AER_COR_MASK,
	V_NHDR
};

static unsigned nvals_of(const struct apenet_profile *p)
{
	unsigned n = V_NHDR + APENET_NGLOBAL + 2;
	for (unsigned l = 0; l < p->nlinks; l++)
		n += APENET_NLINKREG + 2 + p->links[l].lanes * APENET_NLANEREG;
	return n;
}

static void flatten(const struct apenet_profile *p, const struct apenet_sample *s, uint64_t *v)
{
	const struct apenet_pcie_info *c = &s->pcie;
	v[V_HOST_MS] = (uint64_t)s->host_ms;
	v[V_PCIE_OK] = (uint64_t)s->pcie_ok;
	v[V_HAS_PCIE] = (uint64_t)c->has_pcie;
	v[V_CAP_GEN] = c->cap_gen;
	v[V_CAP_WIDTH] = c->cap_width;
	v[V_STA_GEN] = c->sta_gen;
	v[V_STA_WIDTH] = c->sta_width;
	v[V_DEGRADED] = (uint64_t)c->degraded;
	v[V_DEVSTA] = c->devsta;
	v[V_HAS_AER] = (uint64_t)c->has_aer;
	v[V_AER_UNCOR] = c->aer_uncor_status;
	v[V_AER_UNCOR_MASK] = c->aer_uncor_mask;
	v[V_AER_UNCOR_SEV] = c->aer_uncor_sev;
	v[V_AER_COR] = c->aer_cor_status;
	v[V_AER_COR_MASK] = c->aer_cor_mask;
	uint64_t *o = v + V_NHDR;
	memcpy(o, s->snap.g.v, sizeof(s->snap.g.v));
	o += APENET_NGLOBAL;
	*o++ = s->snap.ts_second;
	*o++ = s->snap.ts_minute;
	for (unsigned l = 0; l < p->nlinks; l++) {
		memcpy(o, s->snap.link[l].v, sizeof(s->snap.link[l].v));
		o += APENET_NLINKREG;
		*o++ = s->snap.link[l].ts_second;
		*o++ = s->snap.link[l].ts_minute;
		for (unsigned k = 0; k < p->links[l].lanes; k++) {
			memcpy(o, s->snap.link[l].lane[k].v, sizeof(s->snap.link[l].lane[k].v));
			o += APENET_NLANEREG;
		}
	}
}

static void unflatten(const struct apenet_bbox *b, const uint64_t *v, struct apenet_sample *s)
{
	const struct apenet_profile *p = b->prof;
	memset(s, 0, sizeof(*s));
	snprintf(s->bdf, sizeof(s->bdf), "%s", b->bdf);
	s->host_ms = (int64_t)v[V_HOST_MS];
	s->pcie_ok = (int)v[V_PCIE_OK];
	s->pcie.has_pcie = (int)v[V_HAS_PCIE];
	s->pcie.cap_gen = (uint8_t)v[V_CAP_GEN];
	s->pcie.cap_width = (uint8_t)v[V_CAP_WIDTH];
	s->pcie.sta_gen = (uint8_t)v[V_STA_GEN];
	s->pcie.sta_width = (uint8_t)v[V_STA_WIDTH];
	s->pcie.degraded = (int)v[V_DEGRADED];
	s->pcie.devsta = (uint16_t)v[V_DEVSTA];
	s->pcie.has_aer = (int)v[V_HAS_AER];
	s->pcie.aer_uncor_status = (uint32_t)v[V_AER_UNCOR];
	s->pcie.aer_uncor_mask = (uint32_t)v[V_AER_UNCOR_MASK];
	s->pcie.aer_uncor_sev = (uint32_t)v[V_AER_UNCOR_SEV];
	s->pcie.aer_cor_status = (uint32_t)v[V_AER_COR];
	s->pcie.aer_cor_mask = (uint32_t)v[V_AER_COR_MASK];
	s->snap.prof = p;
	s->snap.nlinks = p->nlinks;
	const uint64_t *o = v + V_NHDR;
	memcpy(s->snap.g.v, o, sizeof(s->snap.g.v));
	o += APENET_NGLOBAL;
	s->snap.ts_second = *o++;
	s->snap.ts_minute = *o++;
	for (unsigned l = 0; l < p->nlinks; l++) {
		memcpy(s->snap.link[l].v, o, sizeof(s->snap.link[l].v));
		o += APENET_NLINKREG;
		s->snap.link[l].ts_second = *o++;
		s->snap.link[l].ts_minute = *o++;
		for (unsigned k = 0; k < p->links[l].lanes; k++) {
			memcpy(s->snap.link[l].lane[k].v, o, sizeof(s->snap.link[l].lane[k].v));
			o += APENET_NLANEREG;
		}
	}
}

/* ---- varints ---- */

static size_t put_varint(uint8_t *p, uint64_t x)
{
	size_t n = 0;
	while (x >= 0x80) {
		p[n++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	p[n++] = (uint8_t)x;
	return n;
}

static uint64_t zigzag(uint64_t delta)
{
	int64_t d = (int64_t)delta;
	return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

/* Encodes vals against prev into b->enc; returns the length. */
static size_t encode(const struct apenet_bbox *b, const uint64_t *prev, const uint64_t *vals)
{
	unsigned changed = 0;
	for (unsigned i = 0; i < b->nvals; i++)
		changed += prev[i] != vals[i];
	size_t n = put_varint(b->enc, changed);
	long last = -1;
	for (unsigned i = 0; i < b->nvals; i++) {
		if (prev[i] == vals[i])
			continue;
		n += put_varint(b->enc + n, (uint64_t)((long)i - last - 1));
		n += put_varint(b->enc + n, zigzag(vals[i] - prev[i]));
		last = (long)i;
	}
	return n;
}

/* Reads the ring's bytes of record r as a stream. */
struct reader {
	const struct apenet_bbox *b;
	size_t off, left;
};

static uint64_t get_varint(struct reader *r)
{
	uint64_t x = 0;
	for (unsigned shift = 0; r->left && shift < 64; shift += 7) {
		uint8_t c = r->b->buf[r->off];
		r->off = r->off + 1 == r->b->cap ? 0 : r->off + 1;
		r->left--;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
	}
	return x;
}

static void apply(const struct apenet_bbox *b, const struct apenet_bbox_rec *rec, uint64_t *vals)
{
	struct reader r = { b, rec->off, rec->len };
	uint64_t changed = get_varint(&r);
	long at = -1;
	for (uint64_t k = 0; k < changed && r.left; k++) {
		at += (long)get_varint(&r) + 1;
		uint64_t d = unzigzag(get_varint(&r));
		if (at >= 0 && (unsigned long)at < b->nvals)
			vals[at] += d;
	}
}

/* ---- the ring ---- */

int apenet_bbox_init(struct apenet_bbox *b, const struct apenet_profile *p, const char *bdf, size_t mem_bytes,
		     int64_t span_ms, size_t max_records, struct apenet_err *e)
{
	memset(b, 0, sizeof(*b));
	b->prof = p;
	snprintf(b->bdf, sizeof(b->bdf), "%s", bdf ? bdf : "");
	b->nvals = nvals_of(p);
	size_t worst = 4 + (size_t)b->nvals * 12; /* a varint gap (<= 2 bytes) and delta (<= 10) each */
	if (mem_bytes < 4 * worst)
		return apenet_err_set(e, APENET_EINVAL, "black box: %zu bytes hold fewer than 4 samples of a %s (%zu each at worst)",
				      mem_bytes, p->name, worst);
	b->cap = mem_bytes;
	b->rcap = max_records < 2 ? 2 : max_records;
	b->span_ms = span_ms;
	b->buf = malloc(b->cap);
	b->rec = calloc(b->rcap, sizeof(*b->rec));
	b->tail = calloc(b->nvals, sizeof(*b->tail));
	b->last = calloc(b->nvals, sizeof(*b->last));
	b->scratch = calloc(b->nvals, sizeof(*b->scratch));
	b->enc = malloc(worst);
	if (!b->buf || !b->rec || !b->tail || !b->last || !b->scratch || !b->enc) {
		apenet_bbox_free(b);
		return apenet_err_set(e, APENET_EIO, "black box: out of memory for %zu bytes", mem_bytes);
	}
	return 0;
}

void apenet_bbox_free(struct apenet_bbox *b)
{
	free(b->buf);
	free(b->rec);
	free(b->tail);
	free(b->last);
	free(b->scratch);
	free(b->enc);
	b->buf = b->enc = NULL;
	b->rec = NULL;
	b->tail = b->last = b->scratch = NULL;
	b->nrec = b->used = 0;
}

static struct apenet_bbox_rec *rec_at(const struct apenet_bbox *b, size_t i)
{
	return &b->rec[(b->r0 + i) % b->rcap];
}

/* Drops the oldest sample: the next one's delta moves the tail to it. */
static void drop_oldest(struct apenet_bbox *b)
{
	struct apenet_bbox_rec *old = rec_at(b, 0);
	b->used -= old->len;
	if (b->nrec > 1)
		apply(b, rec_at(b, 1), b->tail);
	b->r0 = (b->r0 + 1) % b->rcap;
	b->nrec--;
}

int apenet_bbox_push(struct apenet_bbox *b, const struct apenet_sample *s, struct apenet_err *e)
{
	if (!b->buf)
		return apenet_err_set(e, APENET_EINVAL, "black box: not initialised");
	if (s->snap.prof != b->prof)
		return apenet_err_set(e, APENET_EINVAL, "black box: a %s sample in a %s ring",
				      s->snap.prof ? s->snap.prof->name : "?", b->prof->name);
	if (s->have_modules) {
		b->have_modules = 1;
		b->modules_ms = s->host_ms;
		memcpy(b->ee_status, s->ee_status, sizeof(b->ee_status));
		memcpy(b->ee, s->ee, sizeof(b->ee));
	}
	/* a copy, not a format: this runs every period */
	if (s->pcie_ok)
		b->pcie_err[0] = 0;
	else
		memccpy(b->pcie_err, s->pcie_err, 0, sizeof(b->pcie_err) - 1), b->pcie_err[sizeof(b->pcie_err) - 1] = 0;
	uint64_t *vals = b->scratch;
	size_t len = 0;
	flatten(b->prof, s, vals);
	if (b->nrec) {
		/* the record is the difference from the newest; room is made by
		 * dropping the oldest */
		len = encode(b, b->last, vals);
		while (b->nrec && (b->used + len > b->cap || b->nrec == b->rcap)) {
			drop_oldest(b);
			b->dropped_memory++;
		}
	}
	if (!b->nrec) {
		/* the first sample (or everything went): it is the tail itself */
		memcpy(b->tail, vals, b->nvals * sizeof(*vals));
		len = 0;
		b->head = 0;
		b->used = 0;
	}
	memcpy(b->last, vals, b->nvals * sizeof(*vals));
	struct apenet_bbox_rec *r = &b->rec[(b->r0 + b->nrec) % b->rcap];
	r->off = b->head;
	r->len = (uint32_t)len;
	r->host_ms = s->host_ms;
	size_t first = len < b->cap - b->head ? len : b->cap - b->head;
	memcpy(b->buf + b->head, b->enc, first);
	memcpy(b->buf, b->enc + first, len - first);
	b->head = (b->head + len) % b->cap;
	b->used += len;
	b->nrec++;
	b->pushed++;
	while (b->nrec > 1 && rec_at(b, b->nrec - 1)->host_ms - rec_at(b, 0)->host_ms > b->span_ms) {
		drop_oldest(b);
		b->dropped_span++;
	}
	return 0;
}

size_t apenet_bbox_count(const struct apenet_bbox *b)
{
	return b->nrec;
}

int64_t apenet_bbox_first_ms(const struct apenet_bbox *b)
{
	return b->nrec ? rec_at(b, 0)->host_ms : 0;
}

int64_t apenet_bbox_last_ms(const struct apenet_bbox *b)
{
	return b->nrec ? rec_at(b, b->nrec - 1)->host_ms : 0;
}

size_t apenet_bbox_footprint(const struct apenet_bbox *b)
{
	size_t worst = 4 + (size_t)b->nvals * 12;
	return b->cap + b->rcap * sizeof(*b->rec) + 3 * (size_t)b->nvals * sizeof(uint64_t) + worst;
}

int apenet_bbox_iter_begin(const struct apenet_bbox *b, struct apenet_bbox_iter *it, struct apenet_err *e)
{
	it->b = b;
	it->i = 0;
	it->vals = malloc((b->nvals ? b->nvals : 1) * sizeof(*it->vals));
	if (!it->vals)
		return apenet_err_set(e, APENET_EIO, "black box: out of memory");
	if (b->nrec)
		memcpy(it->vals, b->tail, b->nvals * sizeof(*it->vals));
	return 0;
}

int apenet_bbox_iter_next(struct apenet_bbox_iter *it, struct apenet_sample *out)
{
	const struct apenet_bbox *b = it->b;
	if (it->i >= b->nrec)
		return 0;
	if (it->i > 0)
		apply(b, rec_at(b, it->i), it->vals);
	unflatten(b, it->vals, out);
	it->i++;
	return 1;
}

void apenet_bbox_iter_end(struct apenet_bbox_iter *it)
{
	free(it->vals);
	it->vals = NULL;
}

int apenet_bbox_copy(struct apenet_bbox *dst, const struct apenet_bbox *src, struct apenet_err *e)
{
	struct apenet_bbox_iter it;
	struct apenet_sample *s = malloc(sizeof(*s));
	if (!s || apenet_bbox_iter_begin(src, &it, e)) {
		free(s);
		return s ? -1 : apenet_err_set(e, APENET_EIO, "black box: out of memory");
	}
	int rc = 0;
	while (!rc && apenet_bbox_iter_next(&it, s))
		rc = apenet_bbox_push(dst, s, e);
	apenet_bbox_iter_end(&it);
	free(s);
	if (!rc && src->have_modules) {
		dst->have_modules = 1;
		dst->modules_ms = src->modules_ms;
		memcpy(dst->ee_status, src->ee_status, sizeof(dst->ee_status));
		memcpy(dst->ee, src->ee, sizeof(dst->ee));
	}
	return rc;
}

int apenet_bbox_dump(const struct apenet_bbox *b, struct apenet_out *o, int64_t full_ms, int64_t step_ms,
		     unsigned *nsamples, struct apenet_err *e)
{
	*nsamples = 0;
	if (b->nrec < 2)
		return apenet_err_set(e, APENET_EINVAL, "black box: %zu samples, a dump needs two", b->nrec);
	struct apenet_sample *s = malloc(sizeof(*s));
	struct apenet_bbox_iter it;
	if (!s)
		return apenet_err_set(e, APENET_EIO, "black box: out of memory");
	if (apenet_bbox_iter_begin(b, &it, e)) {
		free(s);
		return -1;
	}
	/* the header carries the newest sample's PCIe state */
	struct apenet_sample newest;
	unflatten(b, b->last, &newest);
	struct apenet_snapfile_stream st;
	apenet_snapfile_stream_begin(&st, o, b->bdf, b->prof, newest.pcie_ok, &newest.pcie, b->pcie_err);
	int64_t last = apenet_bbox_last_ms(b), taken = 0;
	for (size_t i = 0; apenet_bbox_iter_next(&it, s); i++) {
		int pick = i == 0 || i + 1 == b->nrec || s->host_ms >= last - full_ms || s->host_ms >= taken + step_ms;
		if (!pick)
			continue;
		apenet_snapfile_stream_sample(&st, &s->snap, s->host_ms);
		taken = s->host_ms;
	}
	apenet_bbox_iter_end(&it);
	free(s);
	*nsamples = st.n;
	if (apenet_snapfile_stream_end(&st, b->have_modules ? b->ee_status : NULL, b->have_modules ? b->ee : NULL))
		return apenet_err_set(e, APENET_EIO, "black box: no sample was written");
	return 0;
}
