/*
 * SNMPv2c notifications read straight from their bytes
 * (include/apenet/v2c.h): BER, definite lengths only, into a netsnmp_pdu
 * and variable list that live in the caller's struct.
 */
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/ber.h"
#include "apenet/v2c.h"

#define APENET_V2C_MAXVARS 32 /* an APENET-MIB notification has at most 18 */
#define APENET_V2C_MAXOID 64

struct apenet_v2c_msg {
	netsnmp_pdu pdu;
	netsnmp_variable_list vars[APENET_V2C_MAXVARS];
	oid objid[APENET_V2C_MAXVARS][APENET_V2C_MAXOID]; /* OBJECT IDENTIFIER values */
};

struct apenet_v2c_msg *apenet_v2c_new(void)
{
	return calloc(1, sizeof(struct apenet_v2c_msg));
}

struct snmp_pdu *apenet_v2c_pdu(struct apenet_v2c_msg *m)
{
	return &m->pdu;
}

struct rd {
	const uint8_t *p, *end;
};

/* A tag and a definite length; the value is [p, p + *len). */
static int tl(struct rd *r, uint8_t *tag, size_t *len)
{
	return apenet_ber_tl(&r->p, r->end, tag, len);
}

/* An INTEGER into a long (two's complement, 1..8 bytes). */
static int get_int(const uint8_t *p, size_t n, long *out)
{
	if (n < 1 || n > sizeof(long))
		return -1;
	unsigned long u = p[0] & 0x80 ? ~0ul : 0;
	for (size_t i = 0; i < n; i++)
		u = u << 8 | p[i];
	*out = (long)u;
	return 0;
}

/* An unsigned 32-bit application type (Counter32, Gauge32, TimeTicks):
 * as net-snmp keeps them, in a long; a leading 0 byte allowed. */
static int get_u32(const uint8_t *p, size_t n, long *out)
{
	if (n < 1 || n > 5 || (n == 5 && p[0] != 0) || (p[0] & 0x80))
		return -1; /* negative, or more than 32 bits: net-snmp's business */
	unsigned long u = 0;
	for (size_t i = 0; i < n; i++)
		u = u << 8 | p[i];
	*out = (long)u;
	return 0;
}

static int get_c64(const uint8_t *p, size_t n, struct counter64 *c)
{
	if (n < 1 || n > 9 || (n == 9 && p[0] != 0) || (p[0] & 0x80))
		return -1;
	uint64_t u = 0;
	for (size_t i = 0; i < n; i++)
		u = u << 8 | p[i];
	c->high = (u_long)(u >> 32);
	c->low = (u_long)(u & 0xffffffffu);
	return 0;
}

/* An OBJECT IDENTIFIER's sub-identifiers (at least two, none over 32 bits). */
static int get_oid(const uint8_t *p, size_t n, oid *out, size_t max, size_t *count)
{
	size_t k = 0;
	uint64_t v = 0;
	int in = 0;
	if (n < 1)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!in && p[i] == 0x80)
			return -1; /* not the shortest encoding */
		v = v << 7 | (p[i] & 0x7f);
		in = 1;
		if (v > 0xffffffffu)
			return -1;
		if (p[i] & 0x80)
			continue;
		if (k == 0) {
			if (max < 2)
				return -1;
			/* the first byte holds two: 40 x + y */
			out[0] = v < 40 ? 0 : v < 80 ? 1 : 2;
			out[1] = v - out[0] * 40;
			k = 2;
		} else {
			if (k >= max)
				return -1;
			out[k++] = v;
		}
		v = 0;
		in = 0;
	}
	if (in)
		return -1; /* the last sub-identifier is cut */
	*count = k;
	return 0;
}

static int binding(struct rd *r, netsnmp_variable_list *v, oid *objid)
{
	uint8_t tag;
	size_t n;
	if (tl(r, &tag, &n) || tag != 0x30)
		return -1;
	struct rd b = { r->p, r->p + n };
	r->p += n;
	if (tl(&b, &tag, &n) || tag != ASN_OBJECT_ID)
		return -1;
	size_t k;
	if (get_oid(b.p, n, v->name_loc, MAX_OID_LEN, &k))
		return -1;
	v->name = v->name_loc;
	v->name_length = k;
	b.p += n;
	if (tl(&b, &tag, &n) || b.p + n != b.end)
		return -1;
	v->type = tag;
	switch (tag) {
	case ASN_INTEGER:
		v->val.integer = (long *)v->buf;
		v->val_len = sizeof(long);
		return get_int(b.p, n, v->val.integer);
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS:
		v->val.integer = (long *)v->buf;
		v->val_len = sizeof(long);
		return get_u32(b.p, n, v->val.integer);
	case ASN_COUNTER64:
		v->val.counter64 = (struct counter64 *)v->buf;
		v->val_len = sizeof(struct counter64);
		return get_c64(b.p, n, v->val.counter64);
	case ASN_OCTET_STR:
		v->val.string = (u_char *)b.p;
		v->val_len = n;
		return 0;
	case ASN_OBJECT_ID:
		if (get_oid(b.p, n, objid, APENET_V2C_MAXOID, &k))
			return -1;
		v->val.objid = objid;
		v->val_len = k * sizeof(oid);
		return 0;
	}
	return -1; /* NULL, IpAddress, Opaque, exceptions...: net-snmp reads them */
}

/* The PDU at r (to its end): command, request-id and bindings. */
static int pdu_of(struct rd r, struct apenet_v2c_msg *m)
{
	uint8_t tag;
	size_t n;
	if (tl(&r, &tag, &n) || (tag != SNMP_MSG_INFORM && tag != SNMP_MSG_TRAP2) || r.p + n != r.end)
		return -1;
	m->pdu.command = tag;
	long f[3];
	for (int i = 0; i < 3; i++) { /* request-id, error-status, error-index */
		if (tl(&r, &tag, &n) || tag != ASN_INTEGER || get_int(r.p, n, &f[i]))
			return -1;
		r.p += n;
	}
	if (f[1] || f[2])
		return -1;
	m->pdu.reqid = f[0];
	if (tl(&r, &tag, &n) || tag != 0x30 || r.p + n != r.end)
		return -1;
	size_t nv = 0;
	netsnmp_variable_list *prev = NULL;
	while (r.p < r.end) {
		if (nv == APENET_V2C_MAXVARS)
			return -1;
		netsnmp_variable_list *v = &m->vars[nv];
		memset(v, 0, offsetof(netsnmp_variable_list, name_loc));
		if (binding(&r, v, m->objid[nv]))
			return -1;
		if (prev)
			prev->next_variable = v;
		else
			m->pdu.variables = v;
		prev = v;
		nv++;
	}
	return 0;
}

int apenet_v2c_parse(const uint8_t *msg, size_t len, struct apenet_v2c_msg *m)
{
	struct rd r = { msg, msg + len };
	uint8_t tag;
	size_t n;
	long l;
	memset(&m->pdu, 0, sizeof(m->pdu));
	if (tl(&r, &tag, &n) || tag != 0x30 || r.p + n != r.end)
		return -1;
	if (tl(&r, &tag, &n) || tag != ASN_INTEGER || get_int(r.p, n, &l) || l != SNMP_VERSION_2c)
		return -1;
	r.p += n;
	if (tl(&r, &tag, &n) || tag != ASN_OCTET_STR)
		return -1;
	m->pdu.community = (u_char *)r.p;
	m->pdu.community_len = n;
	r.p += n;
	m->pdu.version = SNMP_VERSION_2c;
	return pdu_of(r, m);
}

int apenet_v2c_parse_pdu(const uint8_t *pdu, size_t len, struct apenet_v2c_msg *m)
{
	struct rd r = { pdu, pdu + len };
	memset(&m->pdu, 0, sizeof(m->pdu));
	return pdu_of(r, m);
}
