/*
 * The supervisor's report decoder (snmp/report_pdu.c) on what arrives from
 * the service network: any bytes as an SNMPv2c message, parsed by net-snmp
 * as a receiving session would (snmp_parse), then apenet_report_from_pdu on
 * the PDU.  The decoder refuses with a message or gives a report that
 * passes apenet_report_check; that report encodes again, through the wire
 * too, and decodes to itself.
 *
 * Seeds (tests/fuzz/report_pdu/) are real INFORMs of known reports, written
 * by tests/unit/snmp/test_report_pdu.c (APENET_WRITE_SEEDS=1), which also checks
 * that they go on decoding to those reports.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/report_pdu.h"
#include "apenet/v2c.h"
#include "fuzz.h"

/* A message as a v2c receiving session parses it; NULL when it does not. */
static netsnmp_pdu *fuzz_parse(const uint8_t *data, size_t size)
{
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	netsnmp_pdu *pdu = snmp_pdu_create(0);
	if (!pdu)
		return NULL;
	/* net-snmp takes a writable buffer */
	u_char *copy = malloc(size ? size : 1);
	if (!copy) {
		snmp_free_pdu(pdu);
		return NULL;
	}
	if (size)
		memcpy(copy, data, size);
	int rc = snmp_parse(NULL, &s, pdu, copy, size);
	free(copy);
	if (rc) {
		snmp_free_pdu(pdu);
		return NULL;
	}
	return pdu;
}

/* The PDU as a v2c message again; NULL when it cannot be built. */
static u_char *fuzz_build(netsnmp_pdu *pdu, size_t *len)
{
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = SNMP_VERSION_2c;
	s.community = (u_char *)"public";
	s.community_len = 6;
	pdu->version = SNMP_VERSION_2c;
	pdu->reqid = 1;
	size_t cap = 4096, off = 0;
	u_char *buf = malloc(cap);
	if (!buf)
		return NULL;
	if (snmp_build(&buf, &cap, &off, &s, pdu) != 0) {
		free(buf);
		return NULL;
	}
	memmove(buf, buf + cap - off, off);
	*len = off;
	return buf;
}

static void same_double(double a, double b)
{
	APENET_FUZZ_CHECK((isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b)));
}

static void same(const struct apenet_report *a, const struct apenet_report *b)
{
	APENET_FUZZ_CHECK(a->kind == b->kind);
	APENET_FUZZ_CHECK(a->x == b->x && a->y == b->y && a->z == b->z);
	APENET_FUZZ_CHECK(!strcmp(a->node, b->node));
	APENET_FUZZ_CHECK(!strcmp(a->boot, b->boot));
	APENET_FUZZ_CHECK(a->seq == b->seq && a->time_ms == b->time_ms);
	APENET_FUZZ_CHECK(a->subject == b->subject);
	APENET_FUZZ_CHECK(!strcmp(a->where, b->where));
	APENET_FUZZ_CHECK(!strcmp(a->code, b->code));
	APENET_FUZZ_CHECK(a->old_status == b->old_status && a->new_status == b->new_status);
	same_double(a->value, b->value);
	same_double(a->threshold, b->threshold);
	APENET_FUZZ_CHECK(!strcmp(a->unit, b->unit));
	APENET_FUZZ_CHECK(a->path == b->path);
	APENET_FUZZ_CHECK(!strcmp(a->via, b->via));
	APENET_FUZZ_CHECK(!strcmp(a->evidence, b->evidence));
	APENET_FUZZ_CHECK(a->ldm == b->ldm);
}

static int fuzz_decode(const netsnmp_pdu *pdu, struct apenet_report *r)
{
	struct apenet_err e = { 0 };
	int rc = apenet_report_from_pdu(pdu, r, &e);
	APENET_FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc)
		APENET_FUZZ_CHECK(e.code == APENET_EINVAL && e.msg[0]);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	if (!quiet) {
		/* net-snmp logs what it cannot parse, to stderr unless told */
		netsnmp_register_loghandler(NETSNMP_LOGHANDLER_NONE, LOG_DEBUG);
		quiet = 1;
	}
	/* The supervisor's acknowledgement from the bytes (snmp/v2c_ack.c)
	 * looks at the envelope only (the bindings are the reader's business):
	 * when it makes one, the answer differs from the bytes in one byte,
	 * and if net-snmp reads them, it reads an INFORM with zero error
	 * fields. */
	static uint8_t ack[65536];
	size_t acked = apenet_v2c_inform_ack(data, size, 0, ack, sizeof(ack));
	netsnmp_pdu *pdu = fuzz_parse(data, size);
	if (acked) {
		APENET_FUZZ_CHECK(acked == size);
		size_t diff = 0;
		for (size_t i = 0; i < size; i++)
			diff += ack[i] != data[i];
		APENET_FUZZ_CHECK(diff == 1);
		APENET_FUZZ_CHECK(!pdu || (pdu->command == SNMP_MSG_INFORM && pdu->errstat == 0 && pdu->errindex == 0));
	}
	/* The supervisor's own SNMPv2c reader (snmp/v2c_fast.c): what it
	 * reads, net-snmp reads too, and the report decoder finds the same in
	 * both (the same report, or the same complaint). */
	static struct apenet_v2c_msg *fastm;
	if (!fastm)
		fastm = apenet_v2c_new();
	APENET_FUZZ_CHECK(fastm != NULL);
	if (apenet_v2c_parse(data, size, fastm) == 0) {
		const netsnmp_pdu *fast = apenet_v2c_pdu(fastm);
		APENET_FUZZ_CHECK(pdu != NULL);
		APENET_FUZZ_CHECK(pdu->command == fast->command && pdu->reqid == fast->reqid &&
				  pdu->community_len == fast->community_len &&
				  !memcmp(pdu->community, fast->community, pdu->community_len));
		struct apenet_report a, b;
		struct apenet_err ea = { 0 }, eb = { 0 };
		int ra = apenet_report_from_pdu(pdu, &a, &ea), rb = apenet_report_from_pdu(fast, &b, &eb);
		APENET_FUZZ_CHECK(ra == rb);
		/* every INFORM it reads can be answered from its bytes */
		APENET_FUZZ_CHECK(fast->command != SNMP_MSG_INFORM || acked == size);
		if (ra == 0)
			same(&a, &b);
		else
			APENET_FUZZ_CHECK(strcmp(ea.msg, eb.msg) == 0);
	}
	if (!pdu)
		return 0;
	struct apenet_report r, again, wire;
	if (fuzz_decode(pdu, &r)) {
		snmp_free_pdu(pdu);
		return 0;
	}
	snmp_free_pdu(pdu);
	struct apenet_err e = { 0 };
	APENET_FUZZ_CHECK(apenet_report_check(&r, &e) == 0);
	/* What decoded encodes, and decodes to itself: in memory... */
	netsnmp_pdu *back = apenet_report_pdu(&r, 0, &e);
	APENET_FUZZ_CHECK(back != NULL);
	APENET_FUZZ_CHECK(fuzz_decode(back, &again) == 0);
	same(&r, &again);
	/* ...and through the wire. */
	size_t len = 0;
	u_char *msg = fuzz_build(back, &len);
	snmp_free_pdu(back);
	APENET_FUZZ_CHECK(msg != NULL);
	netsnmp_pdu *parsed = fuzz_parse(msg, len);
	free(msg);
	APENET_FUZZ_CHECK(parsed != NULL);
	APENET_FUZZ_CHECK(fuzz_decode(parsed, &wire) == 0);
	same(&r, &wire);
	snmp_free_pdu(parsed);
	return 0;
}
