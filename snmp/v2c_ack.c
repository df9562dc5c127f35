/*
 * The acknowledgement of an SNMPv2c INFORM, made from the INFORM's own
 * bytes (include/apenet/report_pdu.h).
 *
 * RFC 3416 4.2.7: the Response-PDU to an InformRequest carries the same
 * request-id and variable-bindings, error-status and error-index 0.  An
 * INFORM's own error fields are 0 (RFC 3416 3: "zero" in every request), so
 * the response is the same message with the PDU's tag, 0xA6, turned into
 * 0xA2: nothing else changes, not even a length (and a refusal, genErr, is
 * one more byte: the error-status).  The supervisor acks tens
 * of thousands of INFORMs a second this way instead of having net-snmp
 * clone and re-encode each (docs/supervisor.md, "Load").  Every byte is
 * checked first: anything else (another version or PDU, non-zero error
 * fields, a length that does not add up, indefinite or over-long lengths)
 * is refused, and the caller falls back to net-snmp.
 */
#include <string.h>

#include "apenet/ber.h"
#include "apenet/report_pdu.h"

/* One BER tag and length at *p (tags below 31 only: all of SNMP's); the
 * value's length in *len; 0, or -1 when they do not fit before end. */
static int tl(const uint8_t **p, const uint8_t *end, uint8_t tag, size_t *len)
{
	return apenet_ber_want(p, end, tag, len);
}

size_t apenet_v2c_inform_ack(const uint8_t *msg, size_t len, unsigned errstat, uint8_t *out, size_t cap)
{
	if (errstat > 127)
		return 0; /* one byte of BER, as the INFORM's own 0 */
	const uint8_t *p = msg, *end = msg + len;
	size_t n;
	/* Message ::= SEQUENCE { version INTEGER (1), community OCTET STRING, data PDU } */
	if (tl(&p, end, 0x30, &n) || p + n != end)
		return 0;
	if (tl(&p, end, 0x02, &n) || n != 1 || p[0] != 1)
		return 0;
	p += n;
	if (tl(&p, end, 0x04, &n))
		return 0;
	p += n;
	const uint8_t *tag = p;
	/* InformRequest-PDU ::= [6] IMPLICIT SEQUENCE { request-id, error-status, error-index, variable-bindings } */
	if (tl(&p, end, 0xA6, &n) || p + n != end)
		return 0;
	if (tl(&p, end, 0x02, &n) || n < 1 || n > 4)
		return 0;
	p += n;
	const uint8_t *status = NULL;
	for (int f = 0; f < 2; f++) { /* error-status, error-index: 0 */
		if (tl(&p, end, 0x02, &n) || n != 1 || p[0] != 0)
			return 0;
		if (!f)
			status = p;
		p += n;
	}
	if (tl(&p, end, 0x30, &n) || p + n != end)
		return 0;
	if (len > cap)
		return 0;
	memcpy(out, msg, len);
	out[tag - msg] = 0xA2; /* GetResponse-PDU ::= [2] */
	out[status - msg] = (uint8_t)errstat; /* error-index stays 0, as net-snmp answers */
	return len;
}
