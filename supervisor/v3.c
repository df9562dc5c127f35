/*
 * The agents' SNMPv3 INFORMs (docs/security.md): this supervisor is their
 * authoritative engine (RFC 3414 1.5.1: the receiver of an INFORM), its
 * engine ID and boots kept in its state directory (the file "engine": the
 * ID made once, the boots one more at every start, on disk before it
 * listens), its time the seconds since it started; one USM user per node,
 * node-X,Y,Z, whose keys are derived from the site secret the first time
 * that node speaks and kept in a table by coordinates.  A message recorded
 * on the wire is refused once its time is 150 s away from the engine's, or
 * the engine has started again since.
 *
 * A message is taken only authenticated and encrypted, from a node user
 * whose key it carries, inside the time window; everything else is
 * refused, counted by why, and answered with the Report RFC 3414 asks for
 * when the sender wants one (so that an agent with a wrong key says so at
 * once instead of timing out), never acknowledged.  The report inside is
 * then checked against the node that sent it (apenet_report_speaker_ok) in
 * recv.c.  The acknowledgement (the INFORM's ScopedPDU as a Response,
 * encrypted under the node's key with a fresh salt) is made here and sent
 * after the batch's commit as the SNMPv2c ones are (ack.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/clock.h"
#include "apenet/keys.h"
#include "apenet/log.h"
#include "apenet/v2c.h"
#include "sup.h"

struct v3_entry {
	uint64_t key;                    /* x << 32 | y << 16 | z, plus 1: 0 is free */
	uint8_t have;                    /* bit i: keys[i] derived from secret i */
	struct apenet_usm_keys keys[2];
};

struct sup_v3 {
	uint8_t engine[APENET_USM_ENGINE_MAX];
	size_t engine_len;
	uint8_t secret[2][APENET_SITE_SECRET_LEN];
	int nsecret;
	struct v3_entry *tab;            /* open addressing, a power of two */
	size_t cap, used;
	uint64_t salt;
	long boots;
	int64_t start_mono;              /* engine time 0 */
	/* the notification being handled */
	struct {
		struct apenet_usm_msg m;
		const struct apenet_usm_keys *keys;
	} cur;
	uint8_t plain[65536];            /* its ScopedPDU */
};

const char *const sup_v3_why_name[SUP_V3_NWHY] = {
	[SUP_V3_PROBE] = "engine ID probes",
	[SUP_V3_UNKNOWN_ENGINE] = "unknown engine ID",
	[SUP_V3_LEVEL] = "not authPriv",
	[SUP_V3_UNKNOWN_USER] = "unknown user",
	[SUP_V3_WRONG_DIGEST] = "wrong key",
	[SUP_V3_NOT_IN_WINDOW] = "outside the time window",
	[SUP_V3_DECRYPT] = "not decryptable",
	[SUP_V3_NOT_NOTIFICATION] = "not a notification",
	[SUP_V3_SPEAKS_FOR_OTHER] = "spoke for another node",
};

/* A problem with what a sender sent: logged, at most once a second (a
 * misconfigured node must not flood the log), counted always. */
int sup_complain_now(struct sup *s)
{
	int64_t now = apenet_clock_mono_ms();
	if (now - s->last_reject_log_ms < 1000)
		return 0;
	s->last_reject_log_ms = now;
	return 1;
}

/* What the SNMPv3 reader refuses before there is a PDU (its sender is the
 * datagram's), and what recv.c refuses after (a node speaking for another). */
void sup_v3_complain(struct sup *s, const struct sup_v3_rx *rx, enum sup_v3_why why, const char *detail)
{
	if (!sup_complain_now(s))
		return;
	char ip[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &rx->from.sin_addr, ip, sizeof(ip));
	apenet_log(APENET_LOG_WARN, "SNMPv3 notification refused from %s:%u: %s%s%s (%llu refused so far)", ip,
		   ntohs(rx->from.sin_port), sup_v3_why_name[why], detail ? ": " : "", detail ? detail : "",
		   (unsigned long long)s->n.refused);
}

static int secrets_read(const struct apenet_supervisor_config *c, uint8_t secret[2][APENET_SITE_SECRET_LEN],
			int *n, struct apenet_err *e)
{
	if (apenet_keys_read_secret(c->site_key, secret[0], e))
		return -1;
	*n = 1;
	if (c->site_key_previous[0]) {
		if (apenet_keys_read_secret(c->site_key_previous, secret[1], e))
			return -1;
		*n = 2;
	}
	return 0;
}

/* The engine's ID and boots from dir/engine (a new ID the first time), the
 * boots one more, on disk before any message is read: a restarted
 * supervisor never answers with the boots of its last run. */
static int engine_load(struct sup_v3 *v, const char *dir, struct apenet_err *e)
{
	char path[APENET_PATH_MAX + 64];
	long boots = 0;
	snprintf(path, sizeof(path), "%s/engine", dir);
	int r = apenet_keys_read_engine(path, v->engine, &v->engine_len, &boots, e);
	if (r < 0)
		return -1;
	if (r == 1) {
		/* RFC 3411 5: enterprise 8072 (net-snmp's arc, as APENET-MIB's),
		 * format 128: random octets */
		static const uint8_t head[] = { 0x80, 0x00, 0x1f, 0x88, 0x80 };
		memcpy(v->engine, head, sizeof(head));
		if (getrandom(v->engine + sizeof(head), 12, 0) != 12)
			return apenet_err_set(e, APENET_EIO, "getrandom: %s", strerror(errno));
		v->engine_len = sizeof(head) + 12;
	}
	v->boots = boots + 1; /* RFC 3414 2.2.2: one more at every start */
	if (apenet_keys_write_engine(path, v->engine, v->engine_len, v->boots, e))
		return -1;
	v->start_mono = apenet_clock_mono_ms();
	return 0;
}

int sup_v3_open(struct sup *s, struct apenet_err *e)
{
	struct sup_v3 *v = calloc(1, sizeof(*v));
	if (!v)
		return apenet_err_set(e, APENET_EIO, "out of memory");
	int bad = 0;
	if (secrets_read(&s->cfg.svr, v->secret, &v->nsecret, e)) {
		char msg[sizeof(e->msg)];
		snprintf(msg, sizeof(msg), "%s", e->msg);
		bad = apenet_err_set(e, APENET_EINVAL, "SNMPv3 site secret: %s", msg);
	} else if (engine_load(v, s->snmp_dir, e)) {
		bad = -1;
	} else if (getrandom(&v->salt, sizeof(v->salt), 0) != sizeof(v->salt)) {
		bad = apenet_err_set(e, APENET_EIO, "getrandom: %s", strerror(errno));
	}
	if (bad) {
		explicit_bzero(v, sizeof(*v)); /* a secret may be in it */
		free(v);
		return -1;
	}
	s->v3 = v;
	return 0;
}

void sup_v3_reload(struct sup *s, const struct apenet_supervisor_config *c)
{
	struct sup_v3 *v = s->v3;
	uint8_t secret[2][APENET_SITE_SECRET_LEN];
	int n = 0;
	struct apenet_err e = { 0 };
	if (!v)
		return;
	if (secrets_read(c, secret, &n, &e)) {
		apenet_log(APENET_LOG_ERR, "reload: SNMPv3 site secret: %s; the secrets in use stay", e.msg);
		explicit_bzero(secret, sizeof(secret));
		return;
	}
	if (n != v->nsecret || memcmp(secret, v->secret, (size_t)n * APENET_SITE_SECRET_LEN)) {
		memcpy(v->secret, secret, sizeof(secret));
		v->nsecret = n;
		/* every node's keys are derived again when it next speaks */
		if (v->tab)
			explicit_bzero(v->tab, v->cap * sizeof(*v->tab));
		v->used = 0;
		apenet_log(APENET_LOG_NOTICE, "reload: SNMPv3 site secret%s read again", n == 2 ? "s (current and previous)" : "");
	}
	explicit_bzero(secret, sizeof(secret));
}

void sup_v3_close(struct sup *s)
{
	struct sup_v3 *v = s->v3;
	if (!v)
		return;
	if (v->tab)
		explicit_bzero(v->tab, v->cap * sizeof(*v->tab));
	free(v->tab);
	explicit_bzero(v, sizeof(*v));
	free(v);
	s->v3 = NULL;
	apenet_usm_free();
}

static size_t slot_of(uint64_t key, size_t cap)
{
	key ^= key >> 29;
	key *= 0xbf58476d1ce4e5b9ull;
	key ^= key >> 32;
	return (size_t)key & (cap - 1);
}

static int grow(struct sup_v3 *v)
{
	size_t cap = v->cap ? v->cap * 2 : 1024;
	struct v3_entry *t = calloc(cap, sizeof(*t));
	if (!t)
		return -1;
	for (size_t i = 0; i < v->cap; i++) {
		if (!v->tab[i].key)
			continue;
		size_t j = slot_of(v->tab[i].key, cap);
		while (t[j].key)
			j = (j + 1) & (cap - 1);
		t[j] = v->tab[i];
	}
	if (v->tab)
		explicit_bzero(v->tab, v->cap * sizeof(*v->tab));
	free(v->tab);
	v->tab = t;
	v->cap = cap;
	return 0;
}

/* Node xyz's keys from secret i, localized to this engine. */
static const struct apenet_usm_keys *keys_for(struct sup_v3 *v, const unsigned xyz[3], int i)
{
	uint64_t key = ((uint64_t)xyz[0] << 32 | (uint64_t)xyz[1] << 16 | xyz[2]) + 1;
	if ((v->used + 1) * 2 > v->cap && grow(v))
		return NULL;
	size_t j = slot_of(key, v->cap);
	while (v->tab[j].key && v->tab[j].key != key)
		j = (j + 1) & (v->cap - 1);
	struct v3_entry *en = &v->tab[j];
	if (!en->key) {
		en->key = key;
		v->used++;
	}
	if (!(en->have & (1u << i))) {
		char user[APENET_USM_USER_MAX + 1];
		uint8_t a[APENET_USM_KEY_LEN], p[APENET_USM_KEY_LEN];
		apenet_usm_node_user(xyz[0], xyz[1], xyz[2], user, sizeof(user));
		if (apenet_usm_node_ku(v->secret[i], APENET_SITE_SECRET_LEN, user, a, p))
			return NULL;
		apenet_usm_localize(a, v->engine, v->engine_len, en->keys[i].auth);
		apenet_usm_localize(p, v->engine, v->engine_len, en->keys[i].priv);
		explicit_bzero(a, sizeof(a));
		explicit_bzero(p, sizeof(p));
		en->have |= (uint8_t)(1u << i);
	}
	return &en->keys[i];
}

static long time_now(const struct sup_v3 *v)
{
	return (long)((apenet_clock_mono_ms() - v->start_mono) / 1000);
}

/* A Report (RFC 3414 3.2) to the sender of m, when it asked for one:
 * unauthenticated, or with keys authenticated (not encrypted). */
static void report(struct sup *s, const struct sup_v3_rx *rx, const struct apenet_usm_msg *m,
		   enum apenet_usm_stat stat, uint32_t count, long reqid, const struct apenet_usm_keys *keys)
{
	struct sup_v3 *v = s->v3;
	uint8_t sp[256];
	if (!(m->flags & APENET_USM_FLAG_REPORTABLE))
		return;
	size_t spl = apenet_usm_report_scoped(stat, count, reqid, v->engine, v->engine_len, sp, sizeof(sp));
	struct apenet_usm_head h = { .msg_id = m->msg_id, .flags = keys ? APENET_USM_FLAG_AUTH : 0,
				     .engine = v->engine, .engine_len = v->engine_len, .boots = v->boots,
				     .time = time_now(v), .user = m->user, .user_len = m->user_len };
	uint8_t b[1024];
	struct sup_item it = { .ack = b, .ack_to = rx->from, .ack_from = rx->local };
	if (spl && (it.ack_len = apenet_usm_write(&h, sp, spl, keys, b, sizeof(b))) && s->sock >= 0)
		sup_ack_send(s->sock, &it, 1);
}

static void refuse(struct sup *s, const struct sup_v3_rx *rx, enum sup_v3_why why, const char *detail)
{
	s->n.v3[why]++;
	if (why == SUP_V3_PROBE)
		return; /* a discovery, not a refusal */
	s->n.refused++;
	sup_v3_complain(s, rx, why, detail);
}

int sup_v3_take(struct sup *s, const struct sup_v3_rx *rx, struct apenet_v2c_msg *out, unsigned xyz[3])
{
	struct sup_v3 *v = s->v3;
	struct apenet_usm_msg m;
	if (!v || apenet_usm_parse(rx->buf, rx->len, &m))
		return -1;
	/* A Report carries the request's request-id when it can be read (in
	 * plaintext): net-snmp matches a probe's Report by it */
	long reqid = 0;
	if (!m.encrypted) {
		const uint8_t *ce, *pdu;
		size_t cel, pl;
		if (!apenet_usm_scoped(m.data, m.data_len, &ce, &cel, &pdu, &pl))
			apenet_usm_pdu_reqid(pdu, pl, &reqid);
	}
	/* RFC 3414 3.2 3): an engine ID this engine does not know (the empty
	 * one of a probe among them) gets a Report that tells it ours */
	if (m.engine_len != v->engine_len || memcmp(m.engine, v->engine, v->engine_len)) {
		enum sup_v3_why why = m.engine_len ? SUP_V3_UNKNOWN_ENGINE : SUP_V3_PROBE;
		refuse(s, rx, why, NULL);
		report(s, rx, &m, APENET_USM_STAT_UNKNOWN_ENGINE, (uint32_t)s->n.v3[why], reqid, NULL);
		return 0;
	}
	/* net-snmp resends its probe with the engine ID it learnt: empty
	 * user, noAuthNoPriv.  A Report would refuse it (unknown user) and
	 * end the sender's discovery; silence lets it go on with its INFORM */
	if (!m.user_len && !(m.flags & APENET_USM_FLAG_AUTH)) {
		refuse(s, rx, SUP_V3_PROBE, NULL);
		return 0;
	}
	char user[APENET_USM_USER_MAX + 1];
	snprintf(user, sizeof(user), "%.*s", (int)m.user_len, (const char *)m.user);
	if (apenet_usm_node_parse(m.user, m.user_len, xyz) ||
	    (s->cfg.cl.have && (xyz[0] >= s->cfg.cl.dims[0] || xyz[1] >= s->cfg.cl.dims[1] || xyz[2] >= s->cfg.cl.dims[2]))) {
		refuse(s, rx, SUP_V3_UNKNOWN_USER, user);
		report(s, rx, &m, APENET_USM_STAT_UNKNOWN_USER, (uint32_t)s->n.v3[SUP_V3_UNKNOWN_USER], reqid, NULL);
		return 0;
	}
	if ((m.flags & (APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV)) != (APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV)) {
		refuse(s, rx, SUP_V3_LEVEL, user);
		report(s, rx, &m, APENET_USM_STAT_UNSUPPORTED_LEVEL, (uint32_t)s->n.v3[SUP_V3_LEVEL], reqid, NULL);
		return 0;
	}
	const struct apenet_usm_keys *k = NULL;
	for (int i = 0; i < v->nsecret && !k; i++) {
		const struct apenet_usm_keys *c = keys_for(v, xyz, i);
		if (c && apenet_usm_authentic(rx->buf, rx->len, &m, c->auth))
			k = c;
	}
	if (!k) {
		refuse(s, rx, SUP_V3_WRONG_DIGEST, user);
		report(s, rx, &m, APENET_USM_STAT_WRONG_DIGEST, (uint32_t)s->n.v3[SUP_V3_WRONG_DIGEST], 0, NULL);
		return 0;
	}
	/* RFC 3414 3.2 7 a): this engine's boots, and its time within 150 s;
	 * the Report, authenticated, tells a sender the right ones */
	long boots = v->boots, now = time_now(v);
	if (m.boots != boots || boots == 0x7fffffff || labs(m.time - now) > APENET_USM_WINDOW_S) {
		char d[120];
		snprintf(d, sizeof(d), "%s: boots %ld time %ld, this engine's %ld and %ld", user, m.boots, m.time, boots, now);
		refuse(s, rx, SUP_V3_NOT_IN_WINDOW, d);
		report(s, rx, &m, APENET_USM_STAT_NOT_IN_WINDOW, (uint32_t)s->n.v3[SUP_V3_NOT_IN_WINDOW], 0, k);
		return 0;
	}
	const uint8_t *ce, *pdu;
	size_t cel, pl;
	if (apenet_usm_decrypt(&m, k->priv, v->plain) || apenet_usm_scoped(v->plain, m.data_len, &ce, &cel, &pdu, &pl)) {
		refuse(s, rx, SUP_V3_DECRYPT, user);
		return 0;
	}
	if (apenet_v2c_parse_pdu(pdu, pl, out)) {
		refuse(s, rx, SUP_V3_NOT_NOTIFICATION, user);
		return 0;
	}
	netsnmp_pdu *p = apenet_v2c_pdu(out);
	p->version = SNMP_VERSION_3;
	p->securityModel = SNMP_SEC_MODEL_USM;
	p->securityLevel = SNMP_SEC_LEVEL_AUTHPRIV;
	p->msgid = m.msg_id;
	v->cur.m = m;
	v->cur.keys = k;
	return 1;
}

int sup_v3_ack(struct sup *s, unsigned errstat, struct sup_item *it, const struct sup_v3_rx *rx)
{
	struct sup_v3 *v = s->v3;
	size_t len = v->cur.m.data_len;
	uint8_t *b = malloc(len + 256);
	/* the ScopedPDU becomes its answer where it was decrypted: nothing
	 * reads it after this */
	if (!b || apenet_usm_inform_answer(v->plain, len, errstat)) {
		free(b);
		return 0;
	}
	struct apenet_usm_head h = { .msg_id = v->cur.m.msg_id, .flags = APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV,
				     .engine = v->engine, .engine_len = v->engine_len, .boots = v->boots,
				     .time = time_now(v), .user = v->cur.m.user, .user_len = v->cur.m.user_len,
				     .salt = ++v->salt };
	size_t n = apenet_usm_write(&h, v->plain, len, v->cur.keys, b, len + 256);
	if (!n) {
		free(b);
		return 0;
	}
	it->ack = b;
	it->ack_len = n;
	it->ack_to = rx->from;
	it->ack_from = rx->local;
	return 1;
}
