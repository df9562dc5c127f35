/*
 * The supervisor's SNMPv3 reader (snmp/usm.c, supervisor/v3.c's steps) on
 * what arrives from the service network: any bytes as an SNMPv3 message:
 * the USM header, the HMAC check under a key, the AES decryption, the
 * ScopedPDU, the PDU (the fast reader's, snmp/v2c_fast.c) and the report
 * decoder, and the Response made from it.  Promises: nothing crashes or
 * reads out of bounds; the bytes as a ScopedPDU, written authPriv, read back
 * authentic and decrypt to themselves, and one flipped bit is not authentic.
 *
 * Seeds (tests/fuzz/usm/): an engine ID probe and an authPriv INFORM of
 * node 1,0,0 as net-snmp's snmpinform sends them (recorded by
 * tests/e2e/trust.sh's relay), and Reports this file's writer makes.
 */
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/report_pdu.h"
#include "apenet/usm.h"
#include "apenet/v2c.h"
#include "fuzz.h"

static const uint8_t engine[] = { 0x80, 0x00, 0x1f, 0x88, 0x80, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct apenet_v2c_msg *m2;
	static uint8_t plain[65536], out[65536 + 512];
	struct apenet_usm_keys k;
	memset(&k, 0x5a, sizeof(k));
	if (!m2 && !(m2 = apenet_v2c_new()))
		return 0;

	/* the reader */
	struct apenet_usm_msg m;
	if (!apenet_usm_parse(data, size, &m)) {
		APENET_FUZZ_CHECK(m.engine_len <= APENET_USM_ENGINE_MAX && m.user_len <= APENET_USM_USER_MAX);
		APENET_FUZZ_CHECK(m.data + m.data_len <= data + size);
		unsigned xyz[3];
		apenet_usm_node_parse(m.user, m.user_len, xyz);
		(void)apenet_usm_authentic(data, size, &m, k.auth);
		const uint8_t *sp = m.data, *ce, *pdu;
		size_t cel, pl;
		if (m.encrypted) {
			sp = apenet_usm_decrypt(&m, k.priv, plain) ? NULL : plain;
		}
		if (sp && !apenet_usm_scoped(sp, m.data_len, &ce, &cel, &pdu, &pl)) {
			APENET_FUZZ_CHECK(pdu >= sp && pdu + pl <= sp + m.data_len);
			long reqid;
			(void)apenet_usm_pdu_reqid(pdu, pl, &reqid);
			if (!apenet_v2c_parse_pdu(pdu, pl, m2)) {
				struct apenet_report r;
				struct apenet_err e = { 0 };
				if (!apenet_report_from_pdu(apenet_v2c_pdu(m2), &r, &e))
					APENET_FUZZ_CHECK(apenet_report_check(&r, &e) == 0);
			}
			/* the answer, as v3.c makes it */
			if (sp != plain)
				memcpy(plain, sp, m.data_len);
			if (!apenet_usm_inform_answer(plain, m.data_len, 0)) {
				struct apenet_usm_head h = { .msg_id = m.msg_id, .flags = 3, .engine = engine,
							     .engine_len = sizeof(engine), .boots = 1, .time = 2,
							     .user = m.user, .user_len = m.user_len, .salt = 7 };
				APENET_FUZZ_CHECK(apenet_usm_write(&h, plain, m.data_len, &k, out, sizeof(out)) > 0);
			}
		}
	}

	/* the writer: any bytes as a ScopedPDU go and come back */
	if (size <= 65535) {
		struct apenet_usm_head h = { .msg_id = 42, .flags = 7, .engine = engine, .engine_len = sizeof(engine),
					     .boots = 3, .time = 4, .user = (const uint8_t *)"node-1,0,0", .user_len = 10,
					     .salt = size };
		size_t n = apenet_usm_write(&h, data, size, &k, out, sizeof(out));
		APENET_FUZZ_CHECK(n > size);
		struct apenet_usm_msg w;
		APENET_FUZZ_CHECK(apenet_usm_parse(out, n, &w) == 0 && w.encrypted && w.data_len == size);
		APENET_FUZZ_CHECK(apenet_usm_authentic(out, n, &w, k.auth) == 1);
		if (size) {
			APENET_FUZZ_CHECK(apenet_usm_decrypt(&w, k.priv, plain) == 0 && !memcmp(plain, data, size));
			out[n - 1] ^= 1;
			APENET_FUZZ_CHECK(apenet_usm_authentic(out, n, &w, k.auth) == 0);
		}
	}
	return 0;
}
