/*
 * The report codec (snmp/report_pdu.c, include/apenet/report_pdu.h): every
 * field of both notifications through the encoder and the decoder, in
 * memory and through the wire (snmp_build, then snmp_parse as a receiving
 * session does); each thing the decoder refuses, with the varbind named;
 * what it ignores (varbinds it does not know); and the checked-in fuzz
 * seeds (tests/fuzz/report_pdu/), which are real v2c INFORMs of known
 * reports: they must go on decoding to those reports, so a change of the
 * wire format shows here before an old agent meets a new supervisor.
 *
 * APENET_WRITE_SEEDS=1 makes the seed test write the seeds instead
 * (under $APENET_SRCDIR/tests/fuzz/report_pdu/).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/mib.h"
#include "apenet/notify.h"
#include "apenet/report_pdu.h"

#define LDM_VALID (1u << 31)

/* ---- helpers ------------------------------------------------------------ */

static void fill(char *dst, size_t size, char c)
{
	memset(dst, c, size - 1);
	dst[size - 1] = 0;
}

/* A health change with every field set, texts at their longest. */
static void full_health(struct apenet_report *r)
{
	apenet_report_init(r, APENET_REPORT_HEALTH);
	r->x = 65535;
	r->y = 7;
	r->z = 1;
	fill(r->node, sizeof(r->node), 'n');
	fill(r->boot, sizeof(r->boot), 'b');
	r->seq = INT64_MAX;
	r->time_ms = INT64_MAX;
	r->subject = APENET_REPORT_SUBJ_HOST;
	fill(r->where, sizeof(r->where), 'w');
	fill(r->code, sizeof(r->code), 'C');
	r->old_status = 3;
	r->new_status = 2;
	r->value = -1.2345678901234567e-300;
	r->threshold = 0.1 + 0.2;
	fill(r->unit, sizeof(r->unit), 'u');
	r->path = APENET_REPORT_PATH_WATCHDOG;
	fill(r->via, sizeof(r->via), 'v');
	fill(r->evidence, sizeof(r->evidence), 'e');
}

static void some_health(struct apenet_report *r)
{
	apenet_report_init(r, APENET_REPORT_HEALTH);
	r->x = 1;
	r->y = 1;
	snprintf(r->node, sizeof(r->node), "quong-1-1-0");
	snprintf(r->boot, sizeof(r->boot), "1,1,0#7");
	r->seq = 12;
	r->time_ms = 1795000000123;
	r->subject = APENET_REPORT_SUBJ_SENSOR;
	snprintf(r->where, sizeof(r->where), "fpga_temp");
	snprintf(r->code, sizeof(r->code), "FPGA_TEMP");
	r->old_status = 0;
	r->new_status = 1;
	r->value = 87.25;
	r->threshold = 85;
	snprintf(r->unit, sizeof(r->unit), "C");
	snprintf(r->evidence, sizeof(r->evidence), "SENS_FPGA_TEMP 87250 mC over THR_TEMP_SICK 85000");
}

static void some_heartbeat(struct apenet_report *r)
{
	apenet_report_init(r, APENET_REPORT_HEARTBEAT);
	r->x = 2;
	r->y = 3;
	snprintf(r->node, sizeof(r->node), "quong-2-3-0");
	snprintf(r->boot, sizeof(r->boot), "2,3,0#1");
	r->seq = 1;
	r->time_ms = 1795000000456;
	r->ldm = LDM_VALID | (1u << 12) | (2u << 24); /* temperature sick, X+ broken */
}

static void same_double(double a, double b, const char *what)
{
	if (isnan(a) && isnan(b))
		return;
	if (a != b || signbit(a) != signbit(b))
		fail_msg("%s: %.17g != %.17g", what, a, b);
}

static void same(const struct apenet_report *a, const struct apenet_report *b)
{
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->x, b->x);
	assert_int_equal(a->y, b->y);
	assert_int_equal(a->z, b->z);
	assert_string_equal(a->node, b->node);
	assert_string_equal(a->boot, b->boot);
	assert_true(a->seq == b->seq);
	assert_true(a->time_ms == b->time_ms);
	assert_int_equal(a->subject, b->subject);
	assert_string_equal(a->where, b->where);
	assert_string_equal(a->code, b->code);
	assert_int_equal(a->old_status, b->old_status);
	assert_int_equal(a->new_status, b->new_status);
	same_double(a->value, b->value, "value");
	same_double(a->threshold, b->threshold, "threshold");
	assert_string_equal(a->unit, b->unit);
	assert_int_equal(a->path, b->path);
	assert_string_equal(a->via, b->via);
	assert_string_equal(a->evidence, b->evidence);
	assert_int_equal(a->ldm, b->ldm);
}

/* What the decoder gives back for r: r itself, except that a health change
 * carries no LDM word and a heartbeat only its summary as evidence. */
static void expected(const struct apenet_report *r, struct apenet_report *want)
{
	apenet_report_init(want, r->kind);
	want->x = r->x;
	want->y = r->y;
	want->z = r->z;
	memcpy(want->node, r->node, sizeof(r->node));
	memcpy(want->boot, r->boot, sizeof(r->boot));
	want->seq = r->seq;
	want->time_ms = r->time_ms < 0 ? 0 : r->time_ms;
	if (r->kind == APENET_REPORT_HEARTBEAT) {
		want->ldm = r->ldm;
		if (r->evidence[0])
			memcpy(want->evidence, r->evidence, sizeof(r->evidence));
		else
			apenet_report_ldm_summary(r->ldm, want->evidence, sizeof(want->evidence));
		return;
	}
	want->subject = r->subject;
	memcpy(want->where, r->where, sizeof(r->where));
	memcpy(want->code, r->code, sizeof(r->code));
	want->old_status = r->old_status;
	want->new_status = r->new_status;
	want->value = r->value;
	want->threshold = r->threshold;
	memcpy(want->unit, r->unit, sizeof(r->unit));
	want->path = r->path;
	memcpy(want->via, r->via, sizeof(r->via));
	memcpy(want->evidence, r->evidence, sizeof(r->evidence));
}

static netsnmp_pdu *enc(const struct apenet_report *r)
{
	struct apenet_err e = { 0 };
	netsnmp_pdu *pdu = apenet_report_pdu(r, 4242, &e);
	if (!pdu)
		fail_msg("encode: %s", e.msg);
	return pdu;
}

static void dec_ok(const netsnmp_pdu *pdu, struct apenet_report *got)
{
	struct apenet_err e = { 0 };
	memset(got, 0x5a, sizeof(*got)); /* nothing read from before */
	if (apenet_report_from_pdu(pdu, got, &e))
		fail_msg("decode: %s", e.msg);
}

/* Encode, decode, compare; frees the PDU. */
static void round_trip(const struct apenet_report *r)
{
	struct apenet_report want, got;
	expected(r, &want);
	netsnmp_pdu *pdu = enc(r);
	dec_ok(pdu, &got);
	same(&want, &got);
	/* What decodes is a report the encoder takes again. */
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_report_check(&got, &e), 0);
	snmp_free_pdu(pdu);
}

/* The PDU as an SNMPv2c message (request id fixed, so the bytes are the
 * same on every run).  Returns its length; *out is malloc'd. */
static size_t to_wire(netsnmp_pdu *pdu, u_char **out)
{
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.community = (u_char *)"public";
	s.community_len = 6;
	pdu->version = SNMP_VERSION_2c;
	pdu->reqid = 77;
	size_t cap = 4096, off = 0;
	u_char *buf = malloc(cap);
	assert_non_null(buf);
	if (snmp_build(&buf, &cap, &off, &s, pdu) != 0)
		fail_msg("snmp_build failed");
	/* net-snmp builds from the end of the buffer */
	u_char *msg = malloc(off);
	assert_non_null(msg);
	memcpy(msg, buf + cap - off, off);
	free(buf);
	*out = msg;
	return off;
}

/* A message parsed as a v2c receiving session would; NULL if it does not parse. */
static netsnmp_pdu *from_wire(const u_char *msg, size_t len)
{
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	netsnmp_pdu *pdu = snmp_pdu_create(0);
	assert_non_null(pdu);
	u_char *copy = malloc(len ? len : 1);
	assert_non_null(copy);
	memcpy(copy, msg, len);
	int rc = snmp_parse(NULL, &s, pdu, copy, len);
	free(copy);
	if (rc) {
		snmp_free_pdu(pdu);
		return NULL;
	}
	return pdu;
}

static netsnmp_variable_list *trap_var(netsnmp_pdu *pdu)
{
	static const oid trapoid[] = { APENET_OID_SNMPTRAPOID_0 };
	for (netsnmp_variable_list *v = pdu->variables; v; v = v->next_variable)
		if (!snmp_oid_compare(v->name, v->name_length, trapoid, OID_LENGTH(trapoid)))
			return v;
	fail_msg("no snmpTrapOID.0 in the PDU");
	return NULL;
}

static netsnmp_variable_list *var_of(netsnmp_pdu *pdu, int arc)
{
	oid name[] = { APENET_OID_EVENT, (oid)arc, 0 };
	for (netsnmp_variable_list *v = pdu->variables; v; v = v->next_variable)
		if (!snmp_oid_compare(v->name, v->name_length, name, OID_LENGTH(name)))
			return v;
	fail_msg("apenetEvent.%d.0 not in the PDU", arc);
	return NULL;
}

static void drop_var(netsnmp_pdu *pdu, int arc)
{
	netsnmp_variable_list *v = var_of(pdu, arc), **pp = &pdu->variables;
	while (*pp != v)
		pp = &(*pp)->next_variable;
	*pp = v->next_variable;
	v->next_variable = NULL;
	snmp_free_var(v);
}

static void set_var(netsnmp_pdu *pdu, int arc, u_char type, const void *val, size_t len)
{
	assert_int_equal(snmp_set_var_typed_value(var_of(pdu, arc), type, val, len), 0);
}

static void set_int(netsnmp_pdu *pdu, int arc, u_char type, long v)
{
	set_var(pdu, arc, type, &v, sizeof(v));
}

static void set_str(netsnmp_pdu *pdu, int arc, const char *s)
{
	set_var(pdu, arc, ASN_OCTET_STR, s, strlen(s));
}

static void add_var(netsnmp_pdu *pdu, const oid *name, size_t len, u_char type, const void *val, size_t vlen)
{
	assert_non_null(snmp_pdu_add_variable(pdu, name, len, type, val, vlen));
}

/* Decoding pdu fails with exactly msg; frees the PDU. */
static void refused(netsnmp_pdu *pdu, const char *msg)
{
	struct apenet_report got;
	struct apenet_err e = { 0 };
	if (apenet_report_from_pdu(pdu, &got, &e) == 0)
		fail_msg("decoded, but should be refused with: %s", msg);
	assert_int_equal(e.code, APENET_EINVAL);
	if (strcmp(e.msg, msg))
		fail_msg("refused with\n  '%s', expected\n  '%s'", e.msg, msg);
	snmp_free_pdu(pdu);
}

static netsnmp_pdu *health_pdu(void)
{
	struct apenet_report r;
	some_health(&r);
	return enc(&r);
}

static netsnmp_pdu *heartbeat_pdu(void)
{
	struct apenet_report r;
	some_heartbeat(&r);
	return enc(&r);
}

/* ---- round trips ---------------------------------------------------------- */

static void test_health_round_trip(void **state)
{
	(void)state;
	struct apenet_report r;
	full_health(&r);
	round_trip(&r);
	/* every subject, status pair, path; values: none, infinite, negative zero */
	for (int subj = APENET_REPORT_SUBJ_BOARD; subj <= APENET_REPORT_SUBJ_HOST; subj++)
		for (int st = 0; st < 16; st++)
			for (int path = APENET_REPORT_PATH_SELF; path <= APENET_REPORT_PATH_WATCHDOG; path++) {
				some_health(&r);
				r.subject = (enum apenet_report_subject)subj;
				r.old_status = st & 3;
				r.new_status = st >> 2;
				r.path = (enum apenet_report_path)path;
				round_trip(&r);
			}
	static const double values[] = { NAN, INFINITY, -INFINITY, -0.0, 0, 71.3, 7.04e-11, 1e308, 5e-324 };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		some_health(&r);
		r.value = values[i];
		r.threshold = values[(i + 3) % (sizeof(values) / sizeof(values[0]))];
		round_trip(&r);
	}
	/* empty texts, node 0,0,0, sequence and time 0 */
	apenet_report_init(&r, APENET_REPORT_HEALTH);
	snprintf(r.boot, sizeof(r.boot), "b");
	round_trip(&r);
	/* a negative time goes as 0 */
	some_health(&r);
	r.time_ms = -5;
	round_trip(&r);
}

static void test_heartbeat_round_trip(void **state)
{
	(void)state;
	struct apenet_report r, got;
	some_heartbeat(&r);
	round_trip(&r);
	/* The summary is made from the word when the report has none. */
	netsnmp_pdu *pdu = enc(&r);
	dec_ok(pdu, &got);
	assert_string_equal(got.evidence, "temperature sick, X+ link broken");
	assert_int_equal(got.ldm, r.ldm);
	/* Fields a heartbeat does not carry keep their defaults. */
	assert_int_equal(got.subject, APENET_REPORT_SUBJ_BOARD);
	assert_int_equal(got.path, APENET_REPORT_PATH_SELF);
	assert_true(isnan(got.value) && isnan(got.threshold));
	assert_string_equal(got.code, "");
	snmp_free_pdu(pdu);
	/* Every field at its limit; a summary of the caller's. */
	full_health(&r);
	r.kind = APENET_REPORT_HEARTBEAT;
	r.ldm = 0xffffffffu;
	round_trip(&r);
	r.ldm = 0;
	r.evidence[0] = 0;
	round_trip(&r);
}

/* Through the wire both ways, as the notifier sends and a supervisor's
 * receiving session parses; an SNMPv2 trap decodes as well. */
static void test_wire_round_trip(void **state)
{
	(void)state;
	struct apenet_report rs[3], want, got;
	full_health(&rs[0]);
	some_health(&rs[1]);
	full_health(&rs[2]);
	rs[2].kind = APENET_REPORT_HEARTBEAT;
	for (int i = 0; i < 3; i++) {
		for (int trap = 0; trap < 2; trap++) {
			netsnmp_pdu *pdu = enc(&rs[i]);
			if (trap)
				pdu->command = SNMP_MSG_TRAP2;
			u_char *msg;
			size_t len = to_wire(pdu, &msg);
			snmp_free_pdu(pdu);
			netsnmp_pdu *back = from_wire(msg, len);
			assert_non_null(back);
			assert_int_equal(back->command, trap ? SNMP_MSG_TRAP2 : SNMP_MSG_INFORM);
			dec_ok(back, &got);
			expected(&rs[i], &want);
			same(&want, &got);
			snmp_free_pdu(back);
			free(msg);
		}
	}
}

/* ---- what the decoder refuses ---------------------------------------------- */

static void test_refuses_what_is_not_ours(void **state)
{
	(void)state;
	struct apenet_report got;
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_report_from_pdu(NULL, &got, &e), -1);

	netsnmp_pdu *pdu = health_pdu();
	pdu->command = SNMP_MSG_GET;
	refused(pdu, "PDU type 0xa0: not an INFORM or SNMPv2 trap");
	pdu = health_pdu();
	pdu->command = SNMP_MSG_RESPONSE;
	refused(pdu, "PDU type 0xa2: not an INFORM or SNMPv2 trap");

	static const oid trapoid[] = { APENET_OID_SNMPTRAPOID_0 };
	pdu = snmp_pdu_create(SNMP_MSG_INFORM);
	refused(pdu, "snmpTrapOID.0: missing: not a notification");
	/* coldStart */
	static const oid cold[] = { 1, 3, 6, 1, 6, 3, 1, 1, 5, 1 };
	pdu = snmp_pdu_create(SNMP_MSG_INFORM);
	add_var(pdu, trapoid, OID_LENGTH(trapoid), ASN_OBJECT_ID, cold, sizeof(cold));
	refused(pdu, "snmpTrapOID.0: 1.3.6.1.6.3.1.1.5.1 is neither apenetHealthChange nor apenetHeartbeat");
	/* a third notification of the MIB, not (yet) known */
	oid third[] = { APENET_OID_NOTIFICATIONS, 3 };
	pdu = health_pdu();
	assert_int_equal(snmp_set_var_typed_value(trap_var(pdu), ASN_OBJECT_ID, third, sizeof(third)), 0);
	refused(pdu, "snmpTrapOID.0: 1.3.6.1.4.1.8072.9999.9999.65.0.3 is neither apenetHealthChange nor "
		     "apenetHeartbeat");
	pdu = health_pdu();
	assert_int_equal(snmp_set_var_typed_value(trap_var(pdu), ASN_OCTET_STR, "x", 1), 0);
	refused(pdu, "snmpTrapOID.0: OCTET STRING where OBJECT IDENTIFIER belongs");
	pdu = health_pdu();
	oid note[] = { APENET_OID_NOTIFICATIONS, APENET_MIB_HEALTH_CHANGE };
	add_var(pdu, trapoid, OID_LENGTH(trapoid), ASN_OBJECT_ID, note, sizeof(note));
	refused(pdu, "snmpTrapOID.0: given twice");
}

static void test_refuses_wrong_types(void **state)
{
	(void)state;
	netsnmp_pdu *pdu = health_pdu();
	set_str(pdu, APENET_MIB_NODE_X, "1");
	refused(pdu, "apenetEventNodeX: OCTET STRING where Unsigned32 belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_NODE_Z, ASN_INTEGER, 1);
	refused(pdu, "apenetEventNodeZ: INTEGER where Unsigned32 belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_SEQUENCE, ASN_UNSIGNED, 1);
	refused(pdu, "apenetEventSequence: Unsigned32 where Counter64 belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_TIME, ASN_TIMETICKS, 1);
	refused(pdu, "apenetEventTime: TimeTicks where Counter64 belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_SUBJECT, ASN_UNSIGNED, 1);
	refused(pdu, "apenetEventSubject: Unsigned32 where INTEGER belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_NEW_STATUS, ASN_COUNTER, 1);
	refused(pdu, "apenetEventNewStatus: Counter32 where INTEGER belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_CODE, ASN_INTEGER, 1);
	refused(pdu, "apenetEventCode: INTEGER where OCTET STRING belongs");
	pdu = health_pdu();
	set_int(pdu, APENET_MIB_VALUE, ASN_INTEGER, 71);
	refused(pdu, "apenetEventValue: INTEGER where OCTET STRING belongs");
	pdu = health_pdu();
	set_var(pdu, APENET_MIB_PATH, ASN_NULL, NULL, 0);
	refused(pdu, "apenetEventPath: NULL where INTEGER belongs");
	pdu = heartbeat_pdu();
	set_str(pdu, APENET_MIB_LDM_WORD, "80000000");
	refused(pdu, "apenetEventLdmWord: OCTET STRING where Unsigned32 belongs");
	pdu = heartbeat_pdu();
	oid o[] = { 1, 3 };
	set_var(pdu, APENET_MIB_LDM_SUMMARY, ASN_OBJECT_ID, o, sizeof(o));
	refused(pdu, "apenetEventLdmSummary: OBJECT IDENTIFIER where OCTET STRING belongs");
}

static void test_refuses_out_of_range(void **state)
{
	(void)state;
	static const struct {
		int arc;
		long v;
		const char *msg;
	} ints[] = {
		{ APENET_MIB_NEW_STATUS, 7, "apenetEventNewStatus: INTEGER 7 out of range 1..4" },
		{ APENET_MIB_NEW_STATUS, 0, "apenetEventNewStatus: INTEGER 0 out of range 1..4" },
		{ APENET_MIB_OLD_STATUS, 5, "apenetEventOldStatus: INTEGER 5 out of range 1..4" },
		{ APENET_MIB_OLD_STATUS, -1, "apenetEventOldStatus: INTEGER -1 out of range 1..4" },
		{ APENET_MIB_SUBJECT, 8, "apenetEventSubject: INTEGER 8 out of range 1..7" },
		{ APENET_MIB_SUBJECT, 0, "apenetEventSubject: INTEGER 0 out of range 1..7" },
		{ APENET_MIB_PATH, 4, "apenetEventPath: INTEGER 4 out of range 1..3" },
		{ APENET_MIB_PATH, -2147483647 - 1, "apenetEventPath: INTEGER -2147483648 out of range 1..3" },
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		netsnmp_pdu *pdu = health_pdu();
		set_int(pdu, ints[i].arc, ASN_INTEGER, ints[i].v);
		refused(pdu, ints[i].msg);
	}
	netsnmp_pdu *pdu = health_pdu();
	set_int(pdu, APENET_MIB_NODE_X, ASN_UNSIGNED, 65536);
	refused(pdu, "apenetEventNodeX: Unsigned32 65536 out of range 0..65535");
	pdu = heartbeat_pdu();
	set_int(pdu, APENET_MIB_NODE_Y, ASN_UNSIGNED, 0xffffffffl);
	refused(pdu, "apenetEventNodeY: Unsigned32 4294967295 out of range 0..65535");
	/* Counter64 past a signed 64-bit number (the databases' integers) */
	struct counter64 big = { .high = 0x80000000u, .low = 0 };
	pdu = health_pdu();
	set_var(pdu, APENET_MIB_SEQUENCE, ASN_COUNTER64, &big, sizeof(big));
	refused(pdu, "apenetEventSequence: Counter64 9223372036854775808 out of range 0..9223372036854775807");
	pdu = heartbeat_pdu();
	set_var(pdu, APENET_MIB_TIME, ASN_COUNTER64, &big, sizeof(big));
	refused(pdu, "apenetEventTime: Counter64 9223372036854775808 out of range 0..9223372036854775807");
	/* the largest ones pass */
	struct apenet_report got;
	struct counter64 max = { .high = 0x7fffffffu, .low = 0xffffffffu };
	pdu = health_pdu();
	set_var(pdu, APENET_MIB_SEQUENCE, ASN_COUNTER64, &max, sizeof(max));
	set_int(pdu, APENET_MIB_NODE_X, ASN_UNSIGNED, 65535);
	dec_ok(pdu, &got);
	assert_true(got.seq == INT64_MAX);
	assert_int_equal(got.x, 65535);
	snmp_free_pdu(pdu);
}

static void test_refuses_bad_texts(void **state)
{
	(void)state;
	static const struct {
		int arc;
		size_t limit;
		const char *name;
	} texts[] = {
		{ APENET_MIB_NODE_NAME, 63, "apenetEventNodeName" }, { APENET_MIB_BOOT_ID, 39, "apenetEventBootId" },
		{ APENET_MIB_WHERE, 23, "apenetEventWhere" },        { APENET_MIB_CODE, 31, "apenetEventCode" },
		{ APENET_MIB_UNIT, 15, "apenetEventUnit" },          { APENET_MIB_VIA_LINK, 7, "apenetEventViaLink" },
		{ APENET_MIB_EVIDENCE, 199, "apenetEventEvidence" }, { APENET_MIB_VALUE, 32, "apenetEventValue" },
		{ APENET_MIB_THRESHOLD, 32, "apenetEventThreshold" },
		{ APENET_MIB_LDM_SUMMARY, 199, "apenetEventLdmSummary" },
	};
	char text[256], msg[200];
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		int hb = texts[i].arc == APENET_MIB_LDM_SUMMARY;
		/* at the limit: fine (a decimal's 32 bytes must be a number) */
		memset(text, '1', sizeof(text));
		netsnmp_pdu *pdu = hb ? heartbeat_pdu() : health_pdu();
		set_var(pdu, texts[i].arc, ASN_OCTET_STR, text, texts[i].limit);
		struct apenet_report got;
		dec_ok(pdu, &got);
		snmp_free_pdu(pdu);
		/* one byte more: refused */
		pdu = hb ? heartbeat_pdu() : health_pdu();
		set_var(pdu, texts[i].arc, ASN_OCTET_STR, text, texts[i].limit + 1);
		snprintf(msg, sizeof(msg), "%s: OCTET STRING of %zu bytes, longer than %zu", texts[i].name,
			 texts[i].limit + 1, texts[i].limit);
		refused(pdu, msg);
		/* a NUL inside: refused (the encoder never sends one) */
		pdu = hb ? heartbeat_pdu() : health_pdu();
		set_var(pdu, texts[i].arc, ASN_OCTET_STR, "12\0" "3", 4);
		snprintf(msg, sizeof(msg), "%s: a NUL byte at offset 2 of the text", texts[i].name);
		refused(pdu, msg);
	}
	netsnmp_pdu *pdu = health_pdu();
	set_str(pdu, APENET_MIB_BOOT_ID, "");
	refused(pdu, "apenetEventBootId: empty");
}

static void test_decimals(void **state)
{
	(void)state;
	static const char *const bad[] = { "abc", "nan", "NaN", "-nan", "0x10", " 1", "1 ", "1e", "e5", ".",
					   "-", "Infinity", "INF", "1,5", "1e5x" };
	char msg[200];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		netsnmp_pdu *pdu = health_pdu();
		set_str(pdu, i % 2 ? APENET_MIB_VALUE : APENET_MIB_THRESHOLD, bad[i]);
		snprintf(msg, sizeof(msg), "%s: '%s' is not a decimal number",
			 i % 2 ? "apenetEventValue" : "apenetEventThreshold", bad[i]);
		refused(pdu, msg);
	}
	static const struct {
		const char *text;
		double v;
	} good[] = { { "", NAN },       { "71.3", 71.3 },  { "71.30", 71.3 }, { "-0", -0.0 },   { "1e2", 100 },
		     { "+5", 5 },       { ".5", 0.5 },     { "inf", INFINITY }, { "-inf", -INFINITY },
		     { "7.04e-11", 7.04e-11 }, { "1e999", INFINITY } };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		netsnmp_pdu *pdu = health_pdu();
		set_str(pdu, APENET_MIB_VALUE, good[i].text);
		struct apenet_report got;
		dec_ok(pdu, &got);
		same_double(got.value, good[i].v, good[i].text);
		snmp_free_pdu(pdu);
	}
}

static void test_refuses_missing_and_twice(void **state)
{
	(void)state;
	static const struct {
		int hb, arc;
		const char *msg;
	} missing[] = {
		{ 0, APENET_MIB_NODE_X, "apenetEventNodeX: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_NODE_Y, "apenetEventNodeY: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_NODE_Z, "apenetEventNodeZ: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_BOOT_ID, "apenetEventBootId: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_SEQUENCE, "apenetEventSequence: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_SUBJECT, "apenetEventSubject: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_CODE, "apenetEventCode: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_OLD_STATUS, "apenetEventOldStatus: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_NEW_STATUS, "apenetEventNewStatus: missing (mandatory in apenetHealthChange)" },
		{ 0, APENET_MIB_PATH, "apenetEventPath: missing (mandatory in apenetHealthChange)" },
		{ 1, APENET_MIB_NODE_X, "apenetEventNodeX: missing (mandatory in apenetHeartbeat)" },
		{ 1, APENET_MIB_NODE_Y, "apenetEventNodeY: missing (mandatory in apenetHeartbeat)" },
		{ 1, APENET_MIB_NODE_Z, "apenetEventNodeZ: missing (mandatory in apenetHeartbeat)" },
		{ 1, APENET_MIB_BOOT_ID, "apenetEventBootId: missing (mandatory in apenetHeartbeat)" },
		{ 1, APENET_MIB_SEQUENCE, "apenetEventSequence: missing (mandatory in apenetHeartbeat)" },
		{ 1, APENET_MIB_LDM_WORD, "apenetEventLdmWord: missing (mandatory in apenetHeartbeat)" },
	};
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		netsnmp_pdu *pdu = missing[i].hb ? heartbeat_pdu() : health_pdu();
		drop_var(pdu, missing[i].arc);
		refused(pdu, missing[i].msg);
	}
	/* The others may be absent: their defaults. */
	static const int optional[] = { APENET_MIB_NODE_NAME, APENET_MIB_TIME,      APENET_MIB_WHERE,
					APENET_MIB_VALUE,     APENET_MIB_THRESHOLD, APENET_MIB_UNIT,
					APENET_MIB_VIA_LINK,  APENET_MIB_EVIDENCE };
	netsnmp_pdu *pdu = health_pdu();
	for (size_t i = 0; i < sizeof(optional) / sizeof(optional[0]); i++)
		drop_var(pdu, optional[i]);
	struct apenet_report got;
	dec_ok(pdu, &got);
	assert_string_equal(got.node, "");
	assert_true(got.time_ms == 0);
	assert_true(isnan(got.value) && isnan(got.threshold));
	assert_string_equal(got.evidence, "");
	assert_string_equal(got.code, "FPGA_TEMP");
	snmp_free_pdu(pdu);
	/* a heartbeat without its summary: the word's own, as the encoder makes it */
	pdu = heartbeat_pdu();
	drop_var(pdu, APENET_MIB_LDM_SUMMARY);
	dec_ok(pdu, &got);
	assert_string_equal(got.evidence, "temperature sick, X+ link broken");
	snmp_free_pdu(pdu);
	pdu = heartbeat_pdu();
	set_str(pdu, APENET_MIB_LDM_SUMMARY, "");
	set_int(pdu, APENET_MIB_LDM_WORD, ASN_UNSIGNED, LDM_VALID);
	dec_ok(pdu, &got);
	assert_string_equal(got.evidence, "all normal");
	snmp_free_pdu(pdu);
	/* An object given twice is ambiguous. */
	pdu = health_pdu();
	oid code[] = { APENET_OID_EVENT, APENET_MIB_CODE, 0 };
	add_var(pdu, code, OID_LENGTH(code), ASN_OCTET_STR, "LINK_DOWN", 9);
	refused(pdu, "apenetEventCode: given twice");
}

/* A later agent may send more: what the decoder does not know it skips. */
static void test_ignores_what_it_does_not_know(void **state)
{
	(void)state;
	struct apenet_report r, want, got;
	some_health(&r);
	expected(&r, &want);
	netsnmp_pdu *pdu = enc(&r);
	oid next[] = { APENET_OID_EVENT, 21, 0 };            /* an object of a later MIB */
	oid instance[] = { APENET_OID_EVENT, APENET_MIB_CODE, 1 }; /* not the .0 scalar */
	oid deeper[] = { APENET_OID_EVENT, APENET_MIB_CODE, 0, 5 };
	oid table[] = { APENET_OID_OBJECTS, 2, 1, 1 };        /* the agent's tables to come */
	oid sysname[] = { 1, 3, 6, 1, 2, 1, 1, 5, 0 };
	long k = 99;
	add_var(pdu, next, OID_LENGTH(next), ASN_INTEGER, &k, sizeof(k));
	add_var(pdu, instance, OID_LENGTH(instance), ASN_INTEGER, &k, sizeof(k));
	add_var(pdu, deeper, OID_LENGTH(deeper), ASN_OCTET_STR, "x", 1);
	add_var(pdu, table, OID_LENGTH(table), ASN_OCTET_STR, "x", 1);
	add_var(pdu, sysname, OID_LENGTH(sysname), ASN_OCTET_STR, "host", 4);
	/* objects of the other notification: not this one's */
	oid ldm[] = { APENET_OID_EVENT, APENET_MIB_LDM_WORD, 0 };
	add_var(pdu, ldm, OID_LENGTH(ldm), ASN_OCTET_STR, "junk", 4);
	dec_ok(pdu, &got);
	same(&want, &got);
	snmp_free_pdu(pdu);

	some_heartbeat(&r);
	expected(&r, &want);
	pdu = enc(&r);
	oid subj[] = { APENET_OID_EVENT, APENET_MIB_SUBJECT, 0 };
	add_var(pdu, subj, OID_LENGTH(subj), ASN_INTEGER, &k, sizeof(k));
	/* without sysUpTime.0, and in another order */
	netsnmp_variable_list *up = pdu->variables;
	pdu->variables = up->next_variable;
	up->next_variable = NULL;
	snmp_free_var(up);
	dec_ok(pdu, &got);
	same(&want, &got);
	snmp_free_pdu(pdu);
}

/* ---- the encoder's side ----------------------------------------------------- */

static void test_encoder_refuses_what_cannot_go(void **state)
{
	(void)state;
	struct apenet_report r;
	struct apenet_err e;
#define REFUSE(stmt, want)                                                                              \
	do {                                                                                            \
		some_health(&r);                                                                        \
		stmt;                                                                                   \
		memset(&e, 0, sizeof(e));                                                               \
		assert_null(apenet_report_pdu(&r, 0, &e));                                              \
		assert_int_equal(e.code, APENET_EINVAL);                                                \
		assert_string_equal(e.msg, want);                                                       \
		assert_int_equal(apenet_report_check(&r, &e), -1);                                      \
	} while (0)
	REFUSE(r.kind = 3, "event: kind 3 is neither health (1) nor heartbeat (2)");
	REFUSE(r.boot[0] = 0, "event: no boot id");
	REFUSE(memset(r.code, 'A', sizeof(r.code)), "event: code is not terminated within 32 bytes");
	REFUSE(memset(r.node, 'A', sizeof(r.node)), "event: node is not terminated within 64 bytes");
	REFUSE(r.z = 65536, "event: node 1,1,65536: coordinates are 0..65535");
	REFUSE(r.seq = (uint64_t)INT64_MAX + 1, "event: sequence 9223372036854775808 out of range");
	REFUSE(r.subject = 0, "event: subject 0 out of range 1..7");
	REFUSE(r.subject = 8, "event: subject 8 out of range 1..7");
	REFUSE(r.old_status = -1, "event: old status -1 out of range 0..3");
	REFUSE(r.new_status = 4, "event: new status 4 out of range 0..3");
	REFUSE(r.path = 0, "event: path 0 out of range 1..3");
	REFUSE(r.path = 4, "event: path 4 out of range 1..3");
#undef REFUSE
	/* A heartbeat's health fields are not sent, so not judged. */
	some_heartbeat(&r);
	r.subject = 0;
	r.path = 0;
	r.old_status = 9;
	assert_int_equal(apenet_report_check(&r, &e), 0);
	netsnmp_pdu *pdu = enc(&r);
	snmp_free_pdu(pdu);
}

/* sysUpTime.0 and snmpTrapOID.0 lead, then the objects in the MIB's order. */
static void test_encoder_layout(void **state)
{
	(void)state;
	static const oid uptime[] = { APENET_OID_SYSUPTIME_0 }, trapoid[] = { APENET_OID_SNMPTRAPOID_0 };
	static const int health_order[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18 };
	static const int hb_order[] = { 1, 2, 3, 4, 5, 6, 7, 19, 20 };
	for (int hb = 0; hb < 2; hb++) {
		netsnmp_pdu *pdu = hb ? heartbeat_pdu() : health_pdu();
		assert_int_equal(pdu->command, SNMP_MSG_INFORM);
		netsnmp_variable_list *v = pdu->variables;
		assert_int_equal(snmp_oid_compare(v->name, v->name_length, uptime, OID_LENGTH(uptime)), 0);
		assert_int_equal(v->type, ASN_TIMETICKS);
		assert_int_equal(*v->val.integer, 4242);
		v = v->next_variable;
		assert_int_equal(snmp_oid_compare(v->name, v->name_length, trapoid, OID_LENGTH(trapoid)), 0);
		const int *order = hb ? hb_order : health_order;
		size_t n = hb ? sizeof(hb_order) / sizeof(hb_order[0]) : sizeof(health_order) / sizeof(health_order[0]);
		for (size_t i = 0; i < n; i++) {
			v = v->next_variable;
			assert_non_null(v);
			oid name[] = { APENET_OID_EVENT, (oid)order[i], 0 };
			assert_int_equal(snmp_oid_compare(v->name, v->name_length, name, OID_LENGTH(name)), 0);
		}
		assert_null(v->next_variable);
		snmp_free_pdu(pdu);
	}
}

/* ---- the seeds: real messages of known reports ------------------------------ */

static void seed_health_self(struct apenet_report *r)
{
	some_health(r);
}

static void seed_health_neighbour(struct apenet_report *r)
{
	apenet_report_init(r, APENET_REPORT_HEALTH);
	r->x = 1;
	r->y = 1;
	snprintf(r->node, sizeof(r->node), "quong-1-1-0");
	snprintf(r->boot, sizeof(r->boot), "2,1,0#3");
	r->seq = 40;
	r->time_ms = 1795000001000;
	r->subject = APENET_REPORT_SUBJ_BOARD;
	snprintf(r->code, sizeof(r->code), "temperature");
	r->old_status = 0;
	r->new_status = 2;
	r->path = APENET_REPORT_PATH_NEIGHBOUR_LDM;
	snprintf(r->via, sizeof(r->via), "X-");
	snprintf(r->evidence, sizeof(r->evidence), "LDM 0x80002000 from 1,1,0 through X-");
}

static void seed_health_watchdog(struct apenet_report *r)
{
	apenet_report_init(r, APENET_REPORT_HEALTH);
	r->x = 3;
	snprintf(r->boot, sizeof(r->boot), "3,0,0#1");
	r->seq = 9;
	r->time_ms = 1795000002000;
	r->subject = APENET_REPORT_SUBJ_HOST;
	snprintf(r->code, sizeof(r->code), "CARD_GONE");
	r->old_status = 0;
	r->new_status = 2;
	r->value = INFINITY;
	r->threshold = 7.04e-11;
	snprintf(r->unit, sizeof(r->unit), "/min");
	r->path = APENET_REPORT_PATH_WATCHDOG;
}

static void seed_heartbeat(struct apenet_report *r)
{
	some_heartbeat(r);
	r->ldm = LDM_VALID;
}

static void seed_heartbeat_sick(struct apenet_report *r)
{
	some_heartbeat(r);
	r->seq = 2;
}

static void seed_limits(struct apenet_report *r)
{
	full_health(r);
}

static const struct {
	const char *name;
	void (*make)(struct apenet_report *);
	int trap, extra;
} seeds[] = {
	{ "health-self.snmp", seed_health_self, 0, 0 },
	{ "health-neighbour-ldm.snmp", seed_health_neighbour, 0, 0 },
	{ "health-watchdog.snmp", seed_health_watchdog, 0, 0 },
	{ "health-limits.snmp", seed_limits, 0, 0 },
	{ "health-trap2-extra-varbinds.snmp", seed_health_self, 1, 1 },
	{ "heartbeat.snmp", seed_heartbeat, 0, 0 },
	{ "heartbeat-sick.snmp", seed_heartbeat_sick, 0, 0 },
};

static void test_seeds(void **state)
{
	(void)state;
	const char *src = getenv("APENET_SRCDIR");
	const char *write = getenv("APENET_WRITE_SEEDS");
	char path[2048];
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		struct apenet_report r, want, got;
		seeds[i].make(&r);
		expected(&r, &want);
		snprintf(path, sizeof(path), "%s/tests/fuzz/report_pdu/%s", src && *src ? src : ".", seeds[i].name);
		if (write && *write) {
			netsnmp_pdu *pdu = enc(&r);
			if (seeds[i].trap)
				pdu->command = SNMP_MSG_TRAP2;
			if (seeds[i].extra) {
				oid next[] = { APENET_OID_EVENT, 21, 0 };
				add_var(pdu, next, OID_LENGTH(next), ASN_OCTET_STR, "from a later agent", 18);
			}
			u_char *msg;
			size_t len = to_wire(pdu, &msg);
			snmp_free_pdu(pdu);
			FILE *f = fopen(path, "wb");
			if (!f || fwrite(msg, 1, len, f) != len || fclose(f))
				fail_msg("%s: %s", path, strerror(errno));
			free(msg);
			print_message("wrote %s (%zu bytes)\n", path, len);
		}
		FILE *f = fopen(path, "rb");
		if (!f)
			fail_msg("%s: %s (set APENET_SRCDIR to the source tree)", path, strerror(errno));
		u_char msg[4096];
		size_t len = fread(msg, 1, sizeof(msg), f);
		fclose(f);
		netsnmp_pdu *pdu = from_wire(msg, len);
		if (!pdu)
			fail_msg("%s: net-snmp does not parse it", path);
		dec_ok(pdu, &got);
		same(&want, &got);
		snmp_free_pdu(pdu);
	}
}

/* The acknowledgement made from an INFORM's bytes is, byte for byte, the
 * RESPONSE net-snmp builds for it (the same PDU, command RESPONSE), and
 * parses back as a RESPONSE with the INFORM's request-id and bindings. */
static void ack_matches_net_snmp(const struct apenet_report *r)
{
	struct apenet_err e = { 0 };
	netsnmp_pdu *pdu = apenet_report_pdu(r, 4242, &e);
	assert_non_null(pdu);
	u_char *inform;
	size_t n = to_wire(pdu, &inform); /* request-id 77 */
	netsnmp_pdu *resp = snmp_clone_pdu(pdu);
	assert_non_null(resp);
	resp->command = SNMP_MSG_RESPONSE;
	u_char *want;
	size_t wn = to_wire(resp, &want);
	uint8_t got[4096];
	assert_int_equal(apenet_v2c_inform_ack(inform, n, 0, got, sizeof(got)), n);
	assert_int_equal(wn, n);
	assert_memory_equal(got, want, n);
	netsnmp_pdu *back = from_wire(got, n);
	assert_non_null(back);
	assert_int_equal(back->command, SNMP_MSG_RESPONSE);
	assert_int_equal(back->errstat, 0);
	assert_int_equal(back->reqid, 77);
	/* the bindings are the INFORM's: the report reads back from them */
	back->command = SNMP_MSG_INFORM;
	struct apenet_report rb;
	assert_int_equal(apenet_report_from_pdu(back, &rb, &e), 0);
	assert_string_equal(rb.boot, r->boot);
	assert_int_equal(rb.seq, r->seq);
	snmp_free_pdu(back);
	/* a refusal: net-snmp's RESPONSE with genErr, byte for byte */
	resp->errstat = SNMP_ERR_GENERR;
	free(want);
	wn = to_wire(resp, &want);
	assert_int_equal(apenet_v2c_inform_ack(inform, n, SNMP_ERR_GENERR, got, sizeof(got)), n);
	assert_int_equal(wn, n);
	assert_memory_equal(got, want, n);
	assert_int_equal(apenet_v2c_inform_ack(inform, n, 128, got, sizeof(got)), 0);
	/* too small a buffer: refused, nothing promised */
	assert_int_equal(apenet_v2c_inform_ack(inform, n, 0, got, n - 1), 0);
	/* every truncation is refused */
	for (size_t k = 0; k < n; k++)
		assert_int_equal(apenet_v2c_inform_ack(inform, k, 0, got, sizeof(got)), 0);
	/* a byte more (trailing garbage) too */
	u_char *longer = malloc(n + 1);
	assert_non_null(longer);
	memcpy(longer, inform, n);
	longer[n] = 0;
	assert_int_equal(apenet_v2c_inform_ack(longer, n + 1, 0, got, sizeof(got)), 0);
	free(longer);
	free(inform);
	free(want);
	snmp_free_pdu(resp);
	snmp_free_pdu(pdu);
}

static void test_v2c_ack(void **state)
{
	(void)state;
	struct apenet_report r;
	some_health(&r);
	ack_matches_net_snmp(&r);
	some_heartbeat(&r);
	ack_matches_net_snmp(&r);
	full_health(&r); /* the longest: two-byte lengths */
	ack_matches_net_snmp(&r);
}

/* What is not an SNMPv2c INFORM with zero error fields gets no bytes. */
static void test_v2c_ack_refuses(void **state)
{
	(void)state;
	struct apenet_report r;
	struct apenet_err e = { 0 };
	some_heartbeat(&r);
	uint8_t got[4096];
	const struct {
		int command;
		long version, errstat, errindex;
		const char *why;
	} cases[] = {
		{ SNMP_MSG_TRAP2, SNMP_VERSION_2c, 0, 0, "a TRAP2 wants no answer" },
		{ SNMP_MSG_RESPONSE, SNMP_VERSION_2c, 0, 0, "a RESPONSE" },
		{ SNMP_MSG_GET, SNMP_VERSION_2c, 0, 0, "a GET" },
		{ SNMP_MSG_INFORM, SNMP_VERSION_2c, 5, 0, "error-status not 0" },
		{ SNMP_MSG_INFORM, SNMP_VERSION_2c, 0, 1, "error-index not 0" },
		{ SNMP_MSG_INFORM, SNMP_VERSION_1, 0, 0, "SNMPv1" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		netsnmp_pdu *pdu = apenet_report_pdu(&r, 1, &e);
		assert_non_null(pdu);
		pdu->command = cases[i].command;
		pdu->errstat = cases[i].errstat;
		pdu->errindex = cases[i].errindex;
		u_char *msg;
		size_t n = to_wire(pdu, &msg);
		if (cases[i].version != SNMP_VERSION_2c)
			msg[4] = (u_char)cases[i].version; /* the version INTEGER's value */
		if (apenet_v2c_inform_ack(msg, n, 0, got, sizeof(got)) != 0)
			fail_msg("%s: acknowledged", cases[i].why);
		free(msg);
		snmp_free_pdu(pdu);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_round_trip),
		cmocka_unit_test(test_heartbeat_round_trip),
		cmocka_unit_test(test_wire_round_trip),
		cmocka_unit_test(test_refuses_what_is_not_ours),
		cmocka_unit_test(test_refuses_wrong_types),
		cmocka_unit_test(test_refuses_out_of_range),
		cmocka_unit_test(test_refuses_bad_texts),
		cmocka_unit_test(test_decimals),
		cmocka_unit_test(test_refuses_missing_and_twice),
		cmocka_unit_test(test_ignores_what_it_does_not_know),
		cmocka_unit_test(test_encoder_refuses_what_cannot_go),
		cmocka_unit_test(test_encoder_layout),
		cmocka_unit_test(test_seeds),
		cmocka_unit_test(test_v2c_ack),
		cmocka_unit_test(test_v2c_ack_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
