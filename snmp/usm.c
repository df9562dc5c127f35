/*
 * SNMPv3 USM messages from and to bytes (include/apenet/usm.h): BER with
 * definite lengths, HMAC-SHA-256-192 and AES-128-CFB from libcrypto.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "apenet/ber.h"
#include "apenet/usm.h"

/* ---- keys ---------------------------------------------------------------- */

void apenet_usm_localize(const uint8_t ku[APENET_USM_KEY_LEN], const uint8_t *engine, size_t engine_len,
			 uint8_t kul[APENET_USM_KEY_LEN])
{
	uint8_t buf[2 * APENET_USM_KEY_LEN + APENET_USM_ENGINE_MAX];
	if (engine_len > APENET_USM_ENGINE_MAX)
		engine_len = APENET_USM_ENGINE_MAX;
	memcpy(buf, ku, APENET_USM_KEY_LEN);
	memcpy(buf + APENET_USM_KEY_LEN, engine, engine_len);
	memcpy(buf + APENET_USM_KEY_LEN + engine_len, ku, APENET_USM_KEY_LEN);
	unsigned n = APENET_USM_KEY_LEN;
	EVP_Digest(buf, 2 * APENET_USM_KEY_LEN + engine_len, kul, &n, EVP_sha256(), NULL);
	OPENSSL_cleanse(buf, sizeof(buf));
}

int apenet_usm_node_ku(const uint8_t *secret, size_t secret_len, const char *user, uint8_t auth_ku[APENET_USM_KEY_LEN],
		       uint8_t priv_ku[APENET_USM_KEY_LEN])
{
	char label[80];
	unsigned n = APENET_USM_KEY_LEN;
	int l = snprintf(label, sizeof(label), "apenet-usm-auth:%s", user);
	if (l < 0 || (size_t)l >= sizeof(label) || !HMAC(EVP_sha256(), secret, (int)secret_len, (const uint8_t *)label,
							 (size_t)l, auth_ku, &n))
		return -1;
	l = snprintf(label, sizeof(label), "apenet-usm-priv:%s", user);
	n = APENET_USM_KEY_LEN;
	if (!HMAC(EVP_sha256(), secret, (int)secret_len, (const uint8_t *)label, (size_t)l, priv_ku, &n))
		return -1;
	return 0;
}

void apenet_usm_node_user(unsigned x, unsigned y, unsigned z, char *buf, size_t len)
{
	snprintf(buf, len, "node-%u,%u,%u", x, y, z);
}

/* A coordinate: decimal, no sign, no leading zero, below 65536. */
static int coord(const uint8_t **p, const uint8_t *end, unsigned *v)
{
	const uint8_t *q = *p;
	unsigned long u = 0;
	if (q == end || *q < '0' || *q > '9' || (*q == '0' && q + 1 < end && q[1] >= '0' && q[1] <= '9'))
		return -1;
	while (q < end && *q >= '0' && *q <= '9') {
		u = u * 10 + (unsigned)(*q++ - '0');
		if (u > 65535)
			return -1;
	}
	*v = (unsigned)u;
	*p = q;
	return 0;
}

int apenet_usm_node_parse(const uint8_t *name, size_t len, unsigned xyz[3])
{
	const uint8_t *p = name, *end = name + len;
	if (len < 10 || memcmp(name, "node-", 5))
		return -1;
	p += 5;
	for (int i = 0; i < 3; i++) {
		if (coord(&p, end, &xyz[i]))
			return -1;
		if (i < 2 && (p == end || *p++ != ','))
			return -1;
	}
	return p == end ? 0 : -1;
}

/* ---- reading -------------------------------------------------------------- */

struct rd {
	const uint8_t *p, *end;
};

/* A tag and a definite length; the value is [p, p + *len). */
static int tl(struct rd *r, uint8_t want, size_t *len)
{
	return apenet_ber_want(&r->p, r->end, want, len);
}

/* An INTEGER in 0..2^31-1 (every integer of the header is). */
static int uint31(struct rd *r, long *out)
{
	size_t n;
	if (tl(r, 0x02, &n) || n < 1 || n > 5 || (r->p[0] & 0x80) || (n == 5 && r->p[0]))
		return -1;
	unsigned long u = 0;
	for (size_t i = 0; i < n; i++)
		u = u << 8 | r->p[i];
	if (u > 0x7fffffffu)
		return -1;
	*out = (long)u;
	r->p += n;
	return 0;
}

static int octets(struct rd *r, const uint8_t **v, size_t *n)
{
	if (tl(r, 0x04, n))
		return -1;
	*v = r->p;
	r->p += *n;
	return 0;
}

int apenet_usm_parse(const uint8_t *msg, size_t len, struct apenet_usm_msg *m)
{
	struct rd r = { msg, msg + len };
	size_t n;
	long v;
	memset(m, 0, sizeof(*m));
	if (tl(&r, 0x30, &n) || r.p + n != r.end || uint31(&r, &v) || v != 3)
		return -1;
	/* msgGlobalData */
	if (tl(&r, 0x30, &n))
		return -1;
	struct rd g = { r.p, r.p + n };
	r.p += n;
	const uint8_t *flags;
	size_t fl;
	if (uint31(&g, &m->msg_id) || uint31(&g, &m->max_size) || octets(&g, &flags, &fl) || fl != 1 ||
	    uint31(&g, &m->security_model) || g.p != g.end)
		return -1;
	m->flags = flags[0];
	if (m->max_size < 484 || m->security_model != 3 || (m->flags & 0xf8) ||
	    (m->flags & (APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV)) == APENET_USM_FLAG_PRIV)
		return -1; /* RFC 3412 7.2 5): priv without auth is invalid */
	/* msgSecurityParameters: an OCTET STRING holding UsmSecurityParameters */
	if (tl(&r, 0x04, &n))
		return -1;
	struct rd s = { r.p, r.p + n };
	r.p += n;
	if (tl(&s, 0x30, &n) || s.p + n != s.end)
		return -1;
	const uint8_t *auth;
	if (octets(&s, &m->engine, &m->engine_len) || m->engine_len > APENET_USM_ENGINE_MAX ||
	    uint31(&s, &m->boots) || uint31(&s, &m->time) || octets(&s, &m->user, &m->user_len) ||
	    m->user_len > APENET_USM_USER_MAX || octets(&s, &auth, &m->auth_len) ||
	    octets(&s, &m->salt, &m->salt_len) || s.p != s.end)
		return -1;
	m->auth_off = (size_t)(auth - msg);
	/* msgData */
	if (m->flags & APENET_USM_FLAG_PRIV) {
		if (octets(&r, &m->data, &m->data_len))
			return -1;
		m->encrypted = 1;
	} else {
		const uint8_t *at = r.p;
		if (tl(&r, 0x30, &n))
			return -1;
		r.p += n;
		m->data = at;
		m->data_len = (size_t)(r.p - at);
	}
	return r.p == r.end ? 0 : -1;
}

/*
 * libcrypto's objects, fetched once: OpenSSL 3 looks an algorithm up by
 * name (a lock and a search) on every fetch, which would cost more than
 * the HMAC of a report.  One thread uses them (the supervisor's loop);
 * apenet_usm_free releases them.
 */
static struct {
	EVP_MAC *mac;
	EVP_MAC_CTX *hmac;
	EVP_CIPHER *aes;
	EVP_CIPHER_CTX *cfb;
} cr;

static int crypto_ready(void)
{
	if (!cr.mac && !(cr.mac = EVP_MAC_fetch(NULL, "HMAC", NULL)))
		return -1;
	if (!cr.hmac) {
		/* the digest once: given to every EVP_MAC_init, HMAC fetched
		 * it by name again each time (a lock, a search, string
		 * compares for every report) */
		OSSL_PARAM p[] = { OSSL_PARAM_construct_utf8_string("digest", (char *)"SHA256", 0),
				   OSSL_PARAM_construct_end() };
		if (!(cr.hmac = EVP_MAC_CTX_new(cr.mac)))
			return -1;
		if (!EVP_MAC_CTX_set_params(cr.hmac, p)) {
			EVP_MAC_CTX_free(cr.hmac);
			cr.hmac = NULL;
			return -1;
		}
	}
	if (!cr.aes && !(cr.aes = EVP_CIPHER_fetch(NULL, "AES-128-CFB", NULL)))
		return -1;
	if (!cr.cfb && !(cr.cfb = EVP_CIPHER_CTX_new()))
		return -1;
	return 0;
}

void apenet_usm_free(void)
{
	EVP_MAC_CTX_free(cr.hmac);
	EVP_MAC_free(cr.mac);
	EVP_CIPHER_CTX_free(cr.cfb);
	EVP_CIPHER_free(cr.aes);
	memset(&cr, 0, sizeof(cr));
}

/* HMAC-SHA-256 of the message with its authentication parameters zeroed,
 * truncated to 24 bytes, into mac. */
static int hmac192(const uint8_t *msg, size_t len, size_t auth_off, const uint8_t key[APENET_USM_KEY_LEN],
		   uint8_t mac[APENET_USM_AUTH_LEN])
{
	static const uint8_t zero[APENET_USM_AUTH_LEN];
	uint8_t full[EVP_MAX_MD_SIZE];
	size_t out = 0;
	int ok = !crypto_ready() && EVP_MAC_init(cr.hmac, key, APENET_USM_KEY_LEN, NULL) &&
		 EVP_MAC_update(cr.hmac, msg, auth_off) && EVP_MAC_update(cr.hmac, zero, APENET_USM_AUTH_LEN) &&
		 EVP_MAC_update(cr.hmac, msg + auth_off + APENET_USM_AUTH_LEN, len - auth_off - APENET_USM_AUTH_LEN) &&
		 EVP_MAC_final(cr.hmac, full, &out, sizeof(full)) && out >= APENET_USM_AUTH_LEN;
	if (ok)
		memcpy(mac, full, APENET_USM_AUTH_LEN);
	OPENSSL_cleanse(full, sizeof(full));
	return ok ? 0 : -1;
}

int apenet_usm_authentic(const uint8_t *msg, size_t len, const struct apenet_usm_msg *m,
			 const uint8_t key[APENET_USM_KEY_LEN])
{
	uint8_t mac[APENET_USM_AUTH_LEN];
	if (!(m->flags & APENET_USM_FLAG_AUTH) || m->auth_len != APENET_USM_AUTH_LEN ||
	    m->auth_off + APENET_USM_AUTH_LEN > len || hmac192(msg, len, m->auth_off, key, mac))
		return 0;
	return CRYPTO_memcmp(mac, msg + m->auth_off, APENET_USM_AUTH_LEN) == 0;
}

/* IV = boots (4, big-endian) || time (4) || salt (8): RFC 3826 3.1.2.1. */
static void aes_iv(long boots, long time, const uint8_t salt[APENET_USM_SALT_LEN], uint8_t iv[16])
{
	for (int i = 0; i < 4; i++) {
		iv[i] = (uint8_t)((unsigned long)boots >> (24 - 8 * i));
		iv[4 + i] = (uint8_t)((unsigned long)time >> (24 - 8 * i));
	}
	memcpy(iv + 8, salt, APENET_USM_SALT_LEN);
}

static int aes_cfb(int enc, const uint8_t key[16], const uint8_t iv[16], const uint8_t *in, size_t len, uint8_t *out)
{
	int n = 0, f = 0;
	int ok = !crypto_ready() && EVP_CipherInit_ex2(cr.cfb, cr.aes, key, iv, enc, NULL) &&
		 EVP_CipherUpdate(cr.cfb, out, &n, in, (int)len) && EVP_CipherFinal_ex(cr.cfb, out + n, &f) &&
		 (size_t)(n + f) == len;
	return ok ? 0 : -1;
}

int apenet_usm_decrypt(const struct apenet_usm_msg *m, const uint8_t key[APENET_USM_KEY_LEN], uint8_t *out)
{
	uint8_t iv[16];
	if (!m->encrypted || m->salt_len != APENET_USM_SALT_LEN || !m->data_len || m->data_len > 65535)
		return -1;
	aes_iv(m->boots, m->time, m->salt, iv);
	return aes_cfb(0, key, iv, m->data, m->data_len, out);
}

int apenet_usm_scoped(const uint8_t *sp, size_t len, const uint8_t **ctx_engine, size_t *ctx_engine_len,
		      const uint8_t **pdu, size_t *pdu_len)
{
	struct rd r = { sp, sp + len };
	size_t n;
	const uint8_t *name;
	size_t name_len;
	if (tl(&r, 0x30, &n) || r.p + n != r.end || octets(&r, ctx_engine, ctx_engine_len) ||
	    *ctx_engine_len > APENET_USM_ENGINE_MAX || octets(&r, &name, &name_len))
		return -1;
	if (r.end - r.p < 2 || (r.p[0] & 0xe0) != 0xa0)
		return -1;
	const uint8_t *at = r.p;
	if (tl(&r, r.p[0], &n) || r.p + n != r.end)
		return -1;
	*pdu = at;
	*pdu_len = (size_t)(r.end - at);
	return 0;
}

/* A signed INTEGER of at most 4 bytes. */
static int int32(struct rd *r, long *out)
{
	size_t n;
	if (tl(r, 0x02, &n) || n < 1 || n > 4)
		return -1;
	long v = (r->p[0] & 0x80) ? -1 : 0;
	for (size_t i = 0; i < n; i++)
		v = (long)((unsigned long)v << 8 | r->p[i]);
	*out = v;
	r->p += n;
	return 0;
}

int apenet_usm_pdu_reqid(const uint8_t *pdu, size_t len, long *reqid)
{
	struct rd r = { pdu, pdu + len };
	size_t n;
	if (len < 2 || (pdu[0] & 0xe0) != 0xa0 || tl(&r, pdu[0], &n))
		return -1;
	return int32(&r, reqid);
}

int apenet_usm_inform_answer(uint8_t *scoped, size_t len, unsigned errstat)
{
	const uint8_t *eng, *pdu;
	size_t el, pl, n;
	if (errstat > 127 || apenet_usm_scoped(scoped, len, &eng, &el, &pdu, &pl) || pdu[0] != 0xa6)
		return -1;
	struct rd r = { pdu, pdu + pl };
	long reqid;
	if (tl(&r, 0xa6, &n) || int32(&r, &reqid))
		return -1;
	const uint8_t *status = NULL;
	for (int f = 0; f < 2; f++) { /* error-status, error-index: 0 in a request */
		if (tl(&r, 0x02, &n) || n != 1 || r.p[0] != 0)
			return -1;
		if (!f)
			status = r.p;
		r.p += n;
	}
	if (tl(&r, 0x30, &n) || r.p + n != r.end)
		return -1;
	scoped[pdu - scoped] = 0xa2;
	scoped[status - scoped] = (uint8_t)errstat;
	return 0;
}

/* ---- writing ------------------------------------------------------------- */

static size_t len_len(size_t n)
{
	return n < 0x80 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 4;
}

static size_t tlv_len(size_t n)
{
	return 1 + len_len(n) + n;
}

/* Content octets of a non-negative INTEGER. */
static size_t uint_len(unsigned long v)
{
	size_t n = 1;
	while (v > 0x7f) {
		v >>= 8;
		n++;
	}
	return n;
}

struct wr {
	uint8_t *p, *end;
};

static int put_tl(struct wr *w, uint8_t tag, size_t n)
{
	size_t k = len_len(n);
	if ((size_t)(w->end - w->p) < 1 + k + n)
		return -1;
	*w->p++ = tag;
	if (k == 1) {
		*w->p++ = (uint8_t)n;
	} else {
		*w->p++ = (uint8_t)(0x80 | (k - 1));
		for (size_t i = k - 1; i > 0; i--)
			*w->p++ = (uint8_t)(n >> (8 * (i - 1)));
	}
	return 0;
}

static int put_uint(struct wr *w, uint8_t tag, unsigned long v)
{
	size_t n = uint_len(v);
	if (put_tl(w, tag, n))
		return -1;
	for (size_t i = n; i > 0; i--)
		*w->p++ = (uint8_t)(v >> (8 * (i - 1)));
	return 0;
}

static int put_octets(struct wr *w, const uint8_t *v, size_t n)
{
	if (put_tl(w, 0x04, n))
		return -1;
	if (n)
		memcpy(w->p, v, n);
	w->p += n;
	return 0;
}

size_t apenet_usm_write(const struct apenet_usm_head *h, const uint8_t *scoped, size_t scoped_len,
			const struct apenet_usm_keys *keys, uint8_t *out, size_t cap)
{
	int auth = h->flags & APENET_USM_FLAG_AUTH, priv = h->flags & APENET_USM_FLAG_PRIV;
	if ((auth && !keys) || (priv && !auth) || h->engine_len > APENET_USM_ENGINE_MAX ||
	    h->user_len > APENET_USM_USER_MAX || scoped_len > 65535)
		return 0;
	uint8_t salt[APENET_USM_SALT_LEN];
	for (int i = 0; i < APENET_USM_SALT_LEN; i++)
		salt[i] = (uint8_t)(h->salt >> (56 - 8 * i));
	size_t global = tlv_len(uint_len((unsigned long)h->msg_id)) + tlv_len(uint_len(65507)) + tlv_len(1) +
			tlv_len(1);
	size_t usm = tlv_len(h->engine_len) + tlv_len(uint_len((unsigned long)h->boots)) +
		     tlv_len(uint_len((unsigned long)h->time)) + tlv_len(h->user_len) +
		     tlv_len(auth ? APENET_USM_AUTH_LEN : 0) + tlv_len(priv ? APENET_USM_SALT_LEN : 0);
	size_t data = priv ? tlv_len(scoped_len) : scoped_len;
	size_t body = tlv_len(1) + tlv_len(global) + tlv_len(tlv_len(usm)) + data;
	struct wr w = { out, out + cap };
	static const uint8_t zero[APENET_USM_AUTH_LEN];
	uint8_t flags = h->flags;
	if (put_tl(&w, 0x30, body) || put_uint(&w, 0x02, 3) || put_tl(&w, 0x30, global) ||
	    put_uint(&w, 0x02, (unsigned long)h->msg_id) || put_uint(&w, 0x02, 65507) || put_octets(&w, &flags, 1) ||
	    put_uint(&w, 0x02, 3) || put_tl(&w, 0x04, tlv_len(usm)) || put_tl(&w, 0x30, usm) ||
	    put_octets(&w, h->engine, h->engine_len) || put_uint(&w, 0x02, (unsigned long)h->boots) ||
	    put_uint(&w, 0x02, (unsigned long)h->time) || put_octets(&w, h->user, h->user_len))
		return 0;
	size_t auth_off = (size_t)(w.p - out) + 2;
	if (put_octets(&w, zero, auth ? APENET_USM_AUTH_LEN : 0) || put_octets(&w, salt, priv ? APENET_USM_SALT_LEN : 0))
		return 0;
	if (priv) {
		uint8_t iv[16];
		if (put_tl(&w, 0x04, scoped_len))
			return 0;
		aes_iv(h->boots, h->time, salt, iv);
		if (aes_cfb(1, keys->priv, iv, scoped, scoped_len, w.p))
			return 0;
		w.p += scoped_len;
	} else {
		if ((size_t)(w.end - w.p) < scoped_len)
			return 0;
		memcpy(w.p, scoped, scoped_len);
		w.p += scoped_len;
	}
	size_t len = (size_t)(w.p - out);
	if (auth && hmac192(out, len, auth_off, keys->auth, out + auth_off))
		return 0;
	return len;
}

size_t apenet_usm_scoped_write(const uint8_t *engine, size_t engine_len, const uint8_t *pdu, size_t pdu_len,
			       uint8_t *out, size_t cap)
{
	struct wr w = { out, out + cap };
	if (put_tl(&w, 0x30, tlv_len(engine_len) + tlv_len(0) + pdu_len) || put_octets(&w, engine, engine_len) ||
	    put_octets(&w, NULL, 0) || (size_t)(w.end - w.p) < pdu_len)
		return 0;
	memcpy(w.p, pdu, pdu_len);
	return (size_t)(w.p + pdu_len - out);
}

size_t apenet_usm_report_scoped(enum apenet_usm_stat stat, uint32_t count, long reqid, const uint8_t *engine,
				size_t engine_len, uint8_t *out, size_t cap)
{
	/* usmStats = 1.3.6.1.6.3.15.1.1: 2b 06 01 06 03 0f 01 01 N 00 */
	const uint8_t oid[] = { 0x2b, 0x06, 0x01, 0x06, 0x03, 0x0f, 0x01, 0x01, (uint8_t)stat, 0x00 };
	size_t vb = tlv_len(sizeof(oid)) + tlv_len(uint_len(count));
	size_t vbl = tlv_len(vb);
	unsigned long rq = reqid < 0 ? 0 : (unsigned long)reqid;
	size_t pdu = tlv_len(uint_len(rq)) + 2 * tlv_len(1) + tlv_len(vbl);
	size_t sp = tlv_len(engine_len) + tlv_len(0) + tlv_len(pdu);
	struct wr w = { out, out + cap };
	if (put_tl(&w, 0x30, sp) || put_octets(&w, engine, engine_len) || put_octets(&w, NULL, 0) ||
	    put_tl(&w, 0xa8, pdu) || put_uint(&w, 0x02, rq) || put_uint(&w, 0x02, 0) || put_uint(&w, 0x02, 0) ||
	    put_tl(&w, 0x30, vbl) || put_tl(&w, 0x30, vb) || put_tl(&w, 0x06, sizeof(oid)))
		return 0;
	memcpy(w.p, oid, sizeof(oid));
	w.p += sizeof(oid);
	if (put_uint(&w, 0x41, count)) /* Counter32 */
		return 0;
	return (size_t)(w.p - out);
}
