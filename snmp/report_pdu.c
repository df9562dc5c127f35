/*
 * Reports and their SNMP notifications (include/apenet/report_pdu.h): the
 * report's helpers, the check both the spool and the encoder apply, the
 * encoder the agent's notifier sends with and the decoder the supervisors
 * read with.  One file, so that the two directions cannot drift apart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/ldm.h"
#include "apenet/mib.h"
#include "apenet/notify.h"
#include "apenet/regs.h"
#include "apenet/report_pdu.h"

/* ---- events ---------------------------------------------------------- */

void apenet_report_init(struct apenet_report *ev, enum apenet_report_kind kind)
{
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->subject = APENET_REPORT_SUBJ_BOARD;
	ev->value = NAN;
	ev->threshold = NAN;
	ev->path = APENET_REPORT_PATH_SELF;
}

const char *apenet_report_kind_name(int kind)
{
	return kind == APENET_REPORT_HEALTH ? "health" : kind == APENET_REPORT_HEARTBEAT ? "heartbeat" : "?";
}

const char *apenet_report_subject_name(int subject)
{
	static const char *const names[] = { "?", "board", "link", "lane", "module", "sensor", "cabling", "host" };
	return subject >= 1 && subject <= 7 ? names[subject] : "?";
}

const char *apenet_report_path_name(int path)
{
	static const char *const names[] = { "?", "self", "neighbour-ldm", "watchdog" };
	return path >= 1 && path <= 3 ? names[path] : "?";
}

char *apenet_report_ldm_summary(uint32_t word, char *buf, size_t len)
{
	struct apenet_ldm l;
	int bad = apenet_ldm_decode(word, &l);
	size_t off = 0;
	buf[0] = 0;
#define APPEND(...)                                                                     \
	do {                                                                            \
		if (off < len) {                                                        \
			int k_ = snprintf(buf + off, len - off, __VA_ARGS__);           \
			off += k_ > 0 ? (size_t)k_ : 0;                                 \
		}                                                                       \
	} while (0)
	if (!l.valid)
		APPEND("invalid word (valid bit clear)");
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++)
		if (l.field[f] != APENET_LDM_NORMAL)
			APPEND("%s%s %s", off ? ", " : "", apenet_ldm_field_name(f), apenet_ldm_status_name(l.field[f]));
	if (l.host_expired)
		APPEND("%shost expired", off ? ", " : "");
	if (!off && !bad)
		APPEND("all normal");
#undef APPEND
	return buf;
}

char *apenet_report_decimal(double v, char *buf, size_t len)
{
	if (isnan(v)) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	/* The shortest of %.15g .. %.17g that reads back to the same double:
	 * 71.3 stays "71.3", and nothing is lost. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

/* ---- the check ---------------------------------------------------------- */

#define APENET_REPORT_COORD_MAX 65535u /* APENET-MIB: Unsigned32 (0..65535) */

static int apenet_report_check_text(const char *what, const char *s, size_t size, struct apenet_err *e)
{
	if (strnlen(s, size) >= size)
		return apenet_err_set(e, APENET_EINVAL, "event: %s is not terminated within %zu bytes", what, size);
	return 0;
}

int apenet_report_check(const struct apenet_report *r, struct apenet_err *e)
{
	if (r->kind != APENET_REPORT_HEALTH && r->kind != APENET_REPORT_HEARTBEAT)
		return apenet_err_set(e, APENET_EINVAL, "event: kind %d is neither health (1) nor heartbeat (2)",
				      (int)r->kind);
	if (apenet_report_check_text("node", r->node, sizeof(r->node), e) ||
	    apenet_report_check_text("boot", r->boot, sizeof(r->boot), e) ||
	    apenet_report_check_text("where", r->where, sizeof(r->where), e) ||
	    apenet_report_check_text("code", r->code, sizeof(r->code), e) ||
	    apenet_report_check_text("unit", r->unit, sizeof(r->unit), e) ||
	    apenet_report_check_text("evidence", r->evidence, sizeof(r->evidence), e) ||
	    apenet_report_check_text("via", r->via, sizeof(r->via), e))
		return -1;
	if (!r->boot[0])
		return apenet_err_set(e, APENET_EINVAL, "event: no boot id");
	if (r->x > APENET_REPORT_COORD_MAX || r->y > APENET_REPORT_COORD_MAX || r->z > APENET_REPORT_COORD_MAX)
		return apenet_err_set(e, APENET_EINVAL, "event: node %u,%u,%u: coordinates are 0..%u", r->x, r->y,
				      r->z, APENET_REPORT_COORD_MAX);
	if (r->seq > INT64_MAX)
		return apenet_err_set(e, APENET_EINVAL, "event: sequence %llu out of range",
				      (unsigned long long)r->seq);
	if (r->kind != APENET_REPORT_HEALTH)
		return 0;
	if (r->subject < APENET_REPORT_SUBJ_BOARD || r->subject > APENET_REPORT_SUBJ_HOST)
		return apenet_err_set(e, APENET_EINVAL, "event: subject %d out of range 1..7", (int)r->subject);
	if (r->old_status < 0 || r->old_status > 3)
		return apenet_err_set(e, APENET_EINVAL, "event: old status %d out of range 0..3", r->old_status);
	if (r->new_status < 0 || r->new_status > 3)
		return apenet_err_set(e, APENET_EINVAL, "event: new status %d out of range 0..3", r->new_status);
	if (r->path < APENET_REPORT_PATH_SELF || r->path > APENET_REPORT_PATH_WATCHDOG)
		return apenet_err_set(e, APENET_EINVAL, "event: path %d out of range 1..3", (int)r->path);
	return 0;
}

/* ---- the encoder -------------------------------------------------------- */

static int apenet_report_add_str(netsnmp_pdu *pdu, int obj, const char *v)
{
	oid name[] = { APENET_OID_EVENT, (oid)obj, 0 };
	return snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), ASN_OCTET_STR, v, strlen(v)) ? 0 : -1;
}

static int apenet_report_add_u32(netsnmp_pdu *pdu, int obj, uint32_t v)
{
	oid name[] = { APENET_OID_EVENT, (oid)obj, 0 };
	u_long u = v;
	return snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), ASN_UNSIGNED, &u, sizeof(u)) ? 0 : -1;
}

static int apenet_report_add_int(netsnmp_pdu *pdu, int obj, long v)
{
	oid name[] = { APENET_OID_EVENT, (oid)obj, 0 };
	return snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), ASN_INTEGER, &v, sizeof(v)) ? 0 : -1;
}

static int apenet_report_add_c64(netsnmp_pdu *pdu, int obj, uint64_t v)
{
	oid name[] = { APENET_OID_EVENT, (oid)obj, 0 };
	struct counter64 c = { .high = (u_long)(v >> 32), .low = (u_long)(v & 0xffffffffu) };
	return snmp_pdu_add_variable(pdu, name, OID_LENGTH(name), ASN_COUNTER64, &c, sizeof(c)) ? 0 : -1;
}

/* sysUpTime.0, snmpTrapOID.0, then the notification's OBJECTS in the
 * MIB's order. */
netsnmp_pdu *apenet_report_pdu(const struct apenet_report *r, uint32_t uptime_cs, struct apenet_err *e)
{
	if (apenet_report_check(r, e))
		return NULL;
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_INFORM);
	if (!pdu) {
		apenet_err_set(e, APENET_EIO, "out of memory for the notification");
		return NULL;
	}
	static const oid uptime[] = { APENET_OID_SYSUPTIME_0 }, trapoid[] = { APENET_OID_SNMPTRAPOID_0 };
	oid note[] = { APENET_OID_NOTIFICATIONS,
		       r->kind == APENET_REPORT_HEARTBEAT ? APENET_MIB_HEARTBEAT : APENET_MIB_HEALTH_CHANGE };
	u_long ticks = uptime_cs;
	char num[40];
	int bad = !snmp_pdu_add_variable(pdu, uptime, OID_LENGTH(uptime), ASN_TIMETICKS, &ticks, sizeof(ticks)) ||
		  !snmp_pdu_add_variable(pdu, trapoid, OID_LENGTH(trapoid), ASN_OBJECT_ID, note, sizeof(note));
	bad = bad || apenet_report_add_u32(pdu, APENET_MIB_NODE_X, r->x) ||
	      apenet_report_add_u32(pdu, APENET_MIB_NODE_Y, r->y) ||
	      apenet_report_add_u32(pdu, APENET_MIB_NODE_Z, r->z) ||
	      apenet_report_add_str(pdu, APENET_MIB_NODE_NAME, r->node) ||
	      apenet_report_add_str(pdu, APENET_MIB_BOOT_ID, r->boot) ||
	      apenet_report_add_c64(pdu, APENET_MIB_SEQUENCE, r->seq) ||
	      apenet_report_add_c64(pdu, APENET_MIB_TIME, r->time_ms < 0 ? 0 : (uint64_t)r->time_ms);
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		char summary[sizeof(r->evidence)];
		if (r->evidence[0])
			snprintf(summary, sizeof(summary), "%s", r->evidence);
		else
			apenet_report_ldm_summary(r->ldm, summary, sizeof(summary));
		bad = bad || apenet_report_add_u32(pdu, APENET_MIB_LDM_WORD, r->ldm) ||
		      apenet_report_add_str(pdu, APENET_MIB_LDM_SUMMARY, summary);
	} else {
		/* ApenetStatus is the LDM's two bits plus one. */
		bad = bad || apenet_report_add_int(pdu, APENET_MIB_SUBJECT, r->subject) ||
		      apenet_report_add_str(pdu, APENET_MIB_WHERE, r->where) ||
		      apenet_report_add_str(pdu, APENET_MIB_CODE, r->code) ||
		      apenet_report_add_int(pdu, APENET_MIB_OLD_STATUS, r->old_status + 1) ||
		      apenet_report_add_int(pdu, APENET_MIB_NEW_STATUS, r->new_status + 1) ||
		      apenet_report_add_str(pdu, APENET_MIB_VALUE, apenet_report_decimal(r->value, num, sizeof(num))) ||
		      apenet_report_add_str(pdu, APENET_MIB_THRESHOLD,
					    apenet_report_decimal(r->threshold, num, sizeof(num))) ||
		      apenet_report_add_str(pdu, APENET_MIB_UNIT, r->unit) ||
		      apenet_report_add_int(pdu, APENET_MIB_PATH, r->path) ||
		      apenet_report_add_str(pdu, APENET_MIB_VIA_LINK, r->via) ||
		      apenet_report_add_str(pdu, APENET_MIB_EVIDENCE, r->evidence);
	}
	if (bad) {
		snmp_free_pdu(pdu);
		apenet_err_set(e, APENET_EIO, "out of memory for the notification");
		return NULL;
	}
	return pdu;
}

/* ---- the decoder -------------------------------------------------------- */

#define APENET_REPORT_NOBJ 21 /* apenetEvent.1 .. .20, and 0 unused */
#define APENET_REPORT_BIT(arc) (1u << (arc))

static const char *const apenet_report_obj_name[APENET_REPORT_NOBJ] = {
#define APENET_REPORT_NAME_(id, name, arc) [arc] = name,
	APENET_MIB_EVENT_OBJECTS(APENET_REPORT_NAME_)
#undef APENET_REPORT_NAME_
};

/* The objects of each notification (its OBJECTS clause) and the ones it
 * must carry. */
#define APENET_REPORT_COMMON                                                                                  \
	(APENET_REPORT_BIT(APENET_MIB_NODE_X) | APENET_REPORT_BIT(APENET_MIB_NODE_Y) |                        \
	 APENET_REPORT_BIT(APENET_MIB_NODE_Z) | APENET_REPORT_BIT(APENET_MIB_NODE_NAME) |                     \
	 APENET_REPORT_BIT(APENET_MIB_BOOT_ID) | APENET_REPORT_BIT(APENET_MIB_SEQUENCE) |                     \
	 APENET_REPORT_BIT(APENET_MIB_TIME))
#define APENET_REPORT_COMMON_MANDATORY                                                                        \
	(APENET_REPORT_BIT(APENET_MIB_NODE_X) | APENET_REPORT_BIT(APENET_MIB_NODE_Y) |                        \
	 APENET_REPORT_BIT(APENET_MIB_NODE_Z) | APENET_REPORT_BIT(APENET_MIB_BOOT_ID) |                       \
	 APENET_REPORT_BIT(APENET_MIB_SEQUENCE))
/* apenetEventSubject (8) .. apenetEventEvidence (18) */
#define APENET_REPORT_HEALTH_OBJECTS                                                                          \
	(APENET_REPORT_COMMON |                                                                               \
	 ((APENET_REPORT_BIT(APENET_MIB_EVIDENCE + 1) - 1) & ~(APENET_REPORT_BIT(APENET_MIB_SUBJECT) - 1)))
#define APENET_REPORT_HEALTH_MANDATORY                                                                        \
	(APENET_REPORT_COMMON_MANDATORY | APENET_REPORT_BIT(APENET_MIB_SUBJECT) |                             \
	 APENET_REPORT_BIT(APENET_MIB_CODE) | APENET_REPORT_BIT(APENET_MIB_OLD_STATUS) |                      \
	 APENET_REPORT_BIT(APENET_MIB_NEW_STATUS) | APENET_REPORT_BIT(APENET_MIB_PATH))
#define APENET_REPORT_HEARTBEAT_OBJECTS                                                                       \
	(APENET_REPORT_COMMON | APENET_REPORT_BIT(APENET_MIB_LDM_WORD) | APENET_REPORT_BIT(APENET_MIB_LDM_SUMMARY))
#define APENET_REPORT_HEARTBEAT_MANDATORY (APENET_REPORT_COMMON_MANDATORY | APENET_REPORT_BIT(APENET_MIB_LDM_WORD))

static const char *apenet_report_type_name(u_char type, char *buf, size_t len)
{
	switch (type) {
	case ASN_INTEGER: return "INTEGER";
	case ASN_BIT_STR: return "BIT STRING";
	case ASN_OCTET_STR: return "OCTET STRING";
	case ASN_NULL: return "NULL";
	case ASN_OBJECT_ID: return "OBJECT IDENTIFIER";
	case ASN_IPADDRESS: return "IpAddress";
	case ASN_COUNTER: return "Counter32";
	case ASN_UNSIGNED: return "Unsigned32";
	case ASN_TIMETICKS: return "TimeTicks";
	case ASN_OPAQUE: return "Opaque";
	case ASN_COUNTER64: return "Counter64";
	case SNMP_NOSUCHOBJECT: return "noSuchObject";
	case SNMP_NOSUCHINSTANCE: return "noSuchInstance";
	case SNMP_ENDOFMIBVIEW: return "endOfMibView";
	}
	snprintf(buf, len, "type 0x%02x", type);
	return buf;
}

static int apenet_report_want(const netsnmp_variable_list *v, const char *name, u_char type, size_t minlen,
			      struct apenet_err *e)
{
	char tb[2][16];
	if (v->type != type)
		return apenet_err_set(e, APENET_EINVAL, "%s: %s where %s belongs", name,
				      apenet_report_type_name(v->type, tb[0], sizeof(tb[0])),
				      apenet_report_type_name(type, tb[1], sizeof(tb[1])));
	if (minlen && (!v->val.string || v->val_len < minlen))
		return apenet_err_set(e, APENET_EINVAL, "%s: malformed %s", name,
				      apenet_report_type_name(type, tb[0], sizeof(tb[0])));
	return 0;
}

static int apenet_report_get_u32(const netsnmp_variable_list *v, const char *name, unsigned long max,
				 uint32_t *out, struct apenet_err *e)
{
	if (apenet_report_want(v, name, ASN_UNSIGNED, sizeof(long), e))
		return -1;
	unsigned long u = (unsigned long)*v->val.integer;
	if (u > max)
		return apenet_err_set(e, APENET_EINVAL, "%s: Unsigned32 %lu out of range 0..%lu", name, u, max);
	*out = (uint32_t)u;
	return 0;
}

static int apenet_report_get_int(const netsnmp_variable_list *v, const char *name, long lo, long hi, int *out,
				 struct apenet_err *e)
{
	if (apenet_report_want(v, name, ASN_INTEGER, sizeof(long), e))
		return -1;
	long l = *v->val.integer;
	if (l < lo || l > hi)
		return apenet_err_set(e, APENET_EINVAL, "%s: INTEGER %ld out of range %ld..%ld", name, l, lo, hi);
	*out = (int)l;
	return 0;
}

/* A Counter64 as a signed 64-bit number (sqlite's integers, time_ms). */
static int apenet_report_get_c64(const netsnmp_variable_list *v, const char *name, uint64_t *out,
				 struct apenet_err *e)
{
	if (apenet_report_want(v, name, ASN_COUNTER64, sizeof(struct counter64), e))
		return -1;
	const struct counter64 *c = v->val.counter64;
	if (c->high > 0xffffffffu || c->low > 0xffffffffu)
		return apenet_err_set(e, APENET_EINVAL, "%s: malformed Counter64", name);
	uint64_t u = (uint64_t)c->high << 32 | c->low;
	if (u > INT64_MAX)
		return apenet_err_set(e, APENET_EINVAL, "%s: Counter64 %llu out of range 0..%lld", name,
				      (unsigned long long)u, (long long)INT64_MAX);
	*out = u;
	return 0;
}

/* A text into a field of size bytes (so at most size - 1 of them). */
static int apenet_report_get_str(const netsnmp_variable_list *v, const char *name, char *out, size_t size,
				 struct apenet_err *e)
{
	if (apenet_report_want(v, name, ASN_OCTET_STR, 0, e))
		return -1;
	if (v->val_len > size - 1)
		return apenet_err_set(e, APENET_EINVAL, "%s: OCTET STRING of %zu bytes, longer than %zu", name,
				      v->val_len, size - 1);
	if (v->val_len && !v->val.string)
		return apenet_err_set(e, APENET_EINVAL, "%s: malformed OCTET STRING", name);
	const u_char *nul = v->val_len ? memchr(v->val.string, 0, v->val_len) : NULL;
	if (nul)
		return apenet_err_set(e, APENET_EINVAL, "%s: a NUL byte at offset %zu of the text", name,
				      (size_t)(nul - v->val.string));
	if (v->val_len)
		memcpy(out, v->val.string, v->val_len);
	out[v->val_len] = 0;
	return 0;
}

/* ApenetDecimal: "" for none (NaN), else a number strtod reads whole:
 * digits, sign, point and exponent, or inf and -inf (what
 * apenet_report_decimal writes for them).  No spaces, hex or nan. */
static int apenet_report_get_decimal(const netsnmp_variable_list *v, const char *name, double *out,
				     struct apenet_err *e)
{
	char text[33];
	if (apenet_report_get_str(v, name, text, sizeof(text), e))
		return -1;
	if (!text[0]) {
		*out = NAN;
		return 0;
	}
	int ok = !strcmp(text, "inf") || !strcmp(text, "-inf") ||
		 (strspn(text, "0123456789+-.eE") == strlen(text) && strpbrk(text, "0123456789"));
	char *end = text;
	double d = ok ? strtod(text, &end) : NAN;
	if (!ok || *end || isnan(d))
		return apenet_err_set(e, APENET_EINVAL, "%s: '%s' is not a decimal number", name, text);
	*out = d;
	return 0;
}

static void apenet_report_oid_text(const oid *o, size_t n, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (size_t i = 0; i < n && off + 1 < len; i++) {
		int k = snprintf(buf + off, len - off, "%s%lu", i ? "." : "", (unsigned long)o[i]);
		if (k < 0 || (size_t)k >= len - off) {
			snprintf(buf + (len > 4 ? len - 4 : 0), len > 4 ? 4 : len, "...");
			return;
		}
		off += (size_t)k;
	}
}

/* The notification's kind from snmpTrapOID.0: 0, or -1 with e set. */
static int apenet_report_kind_of(const netsnmp_pdu *pdu, int *kind, struct apenet_err *e)
{
	static const oid trapoid[] = { APENET_OID_SNMPTRAPOID_0 };
	static const oid notes[] = { APENET_OID_NOTIFICATIONS };
	const netsnmp_variable_list *tv = NULL;
	for (const netsnmp_variable_list *v = pdu->variables; v; v = v->next_variable) {
		if (snmp_oid_compare(v->name, v->name_length, trapoid, OID_LENGTH(trapoid)))
			continue;
		if (tv)
			return apenet_err_set(e, APENET_EINVAL, "snmpTrapOID.0: given twice");
		tv = v;
	}
	if (!tv)
		return apenet_err_set(e, APENET_EINVAL, "snmpTrapOID.0: missing: not a notification");
	if (apenet_report_want(tv, "snmpTrapOID.0", ASN_OBJECT_ID, 0, e))
		return -1;
	size_t n = tv->val_len / sizeof(oid);
	const oid *o = tv->val.objid;
	if (o && n == OID_LENGTH(notes) + 1 && !snmp_oid_compare(o, n - 1, notes, OID_LENGTH(notes))) {
		*kind = o[n - 1] == APENET_MIB_HEALTH_CHANGE ? APENET_REPORT_HEALTH
			: o[n - 1] == APENET_MIB_HEARTBEAT   ? APENET_REPORT_HEARTBEAT
							     : 0;
		if (*kind)
			return 0;
	}
	char text[160];
	apenet_report_oid_text(o, o ? n : 0, text, sizeof(text));
	return apenet_err_set(e, APENET_EINVAL, "snmpTrapOID.0: %s is neither apenetHealthChange nor apenetHeartbeat",
			      text);
}

static int apenet_report_object(const netsnmp_variable_list *v, int arc, struct apenet_report *r,
				struct apenet_err *e)
{
	const char *name = apenet_report_obj_name[arc];
	int k;
	switch (arc) {
	case APENET_MIB_NODE_X: return apenet_report_get_u32(v, name, APENET_REPORT_COORD_MAX, &r->x, e);
	case APENET_MIB_NODE_Y: return apenet_report_get_u32(v, name, APENET_REPORT_COORD_MAX, &r->y, e);
	case APENET_MIB_NODE_Z: return apenet_report_get_u32(v, name, APENET_REPORT_COORD_MAX, &r->z, e);
	case APENET_MIB_NODE_NAME: return apenet_report_get_str(v, name, r->node, sizeof(r->node), e);
	case APENET_MIB_BOOT_ID:
		if (apenet_report_get_str(v, name, r->boot, sizeof(r->boot), e))
			return -1;
		return r->boot[0] ? 0 : apenet_err_set(e, APENET_EINVAL, "%s: empty", name);
	case APENET_MIB_SEQUENCE: return apenet_report_get_c64(v, name, &r->seq, e);
	case APENET_MIB_TIME: {
		uint64_t t;
		if (apenet_report_get_c64(v, name, &t, e))
			return -1;
		r->time_ms = (int64_t)t;
		return 0;
	}
	case APENET_MIB_SUBJECT:
		if (apenet_report_get_int(v, name, APENET_REPORT_SUBJ_BOARD, APENET_REPORT_SUBJ_HOST, &k, e))
			return -1;
		r->subject = (enum apenet_report_subject)k;
		return 0;
	case APENET_MIB_WHERE: return apenet_report_get_str(v, name, r->where, sizeof(r->where), e);
	case APENET_MIB_CODE: return apenet_report_get_str(v, name, r->code, sizeof(r->code), e);
	case APENET_MIB_OLD_STATUS:
		if (apenet_report_get_int(v, name, 1, 4, &k, e))
			return -1;
		r->old_status = k - 1;
		return 0;
	case APENET_MIB_NEW_STATUS:
		if (apenet_report_get_int(v, name, 1, 4, &k, e))
			return -1;
		r->new_status = k - 1;
		return 0;
	case APENET_MIB_VALUE: return apenet_report_get_decimal(v, name, &r->value, e);
	case APENET_MIB_THRESHOLD: return apenet_report_get_decimal(v, name, &r->threshold, e);
	case APENET_MIB_UNIT: return apenet_report_get_str(v, name, r->unit, sizeof(r->unit), e);
	case APENET_MIB_PATH:
		if (apenet_report_get_int(v, name, APENET_REPORT_PATH_SELF, APENET_REPORT_PATH_WATCHDOG, &k, e))
			return -1;
		r->path = (enum apenet_report_path)k;
		return 0;
	case APENET_MIB_VIA_LINK: return apenet_report_get_str(v, name, r->via, sizeof(r->via), e);
	case APENET_MIB_EVIDENCE:
	case APENET_MIB_LDM_SUMMARY: return apenet_report_get_str(v, name, r->evidence, sizeof(r->evidence), e);
	case APENET_MIB_LDM_WORD: return apenet_report_get_u32(v, name, 0xffffffffu, &r->ldm, e);
	}
	return 0;
}

int apenet_report_from_pdu(const netsnmp_pdu *pdu, struct apenet_report *r, struct apenet_err *e)
{
	if (!pdu)
		return apenet_err_set(e, APENET_EINVAL, "no PDU");
	if (pdu->command != SNMP_MSG_INFORM && pdu->command != SNMP_MSG_TRAP2)
		return apenet_err_set(e, APENET_EINVAL, "PDU type 0x%02x: not an INFORM or SNMPv2 trap",
				      (unsigned)pdu->command & 0xffu);
	int kind = 0;
	if (apenet_report_kind_of(pdu, &kind, e))
		return -1;
	apenet_report_init(r, (enum apenet_report_kind)kind);
	uint32_t objects = kind == APENET_REPORT_HEALTH ? APENET_REPORT_HEALTH_OBJECTS : APENET_REPORT_HEARTBEAT_OBJECTS;
	uint32_t mandatory = kind == APENET_REPORT_HEALTH ? APENET_REPORT_HEALTH_MANDATORY
							  : APENET_REPORT_HEARTBEAT_MANDATORY;
	static const oid event[] = { APENET_OID_EVENT };
	uint32_t seen = 0;
	for (const netsnmp_variable_list *v = pdu->variables; v; v = v->next_variable) {
		/* apenetEvent.N.0 of this notification; the rest is not ours to judge. */
		if (!v->name || v->name_length != APENET_OID_EVENT_LEN + 2 || v->name[APENET_OID_EVENT_LEN + 1] != 0 ||
		    snmp_oid_compare(v->name, APENET_OID_EVENT_LEN, event, OID_LENGTH(event)))
			continue;
		oid arc = v->name[APENET_OID_EVENT_LEN];
		if (arc == 0 || arc >= APENET_REPORT_NOBJ || !(objects & APENET_REPORT_BIT(arc)))
			continue;
		if (seen & APENET_REPORT_BIT(arc))
			return apenet_err_set(e, APENET_EINVAL, "%s: given twice", apenet_report_obj_name[arc]);
		seen |= APENET_REPORT_BIT(arc);
		if (apenet_report_object(v, (int)arc, r, e))
			return -1;
	}
	for (int arc = 1; arc < APENET_REPORT_NOBJ; arc++)
		if ((mandatory & ~seen) & APENET_REPORT_BIT(arc))
			return apenet_err_set(e, APENET_EINVAL, "%s: missing (mandatory in %s)",
					      apenet_report_obj_name[arc],
					      kind == APENET_REPORT_HEALTH ? "apenetHealthChange" : "apenetHeartbeat");
	/* The encoder's rule read backwards: no summary is the word's own. */
	if (kind == APENET_REPORT_HEARTBEAT && !r->evidence[0])
		apenet_report_ldm_summary(r->ldm, r->evidence, sizeof(r->evidence));
	return 0;
}
