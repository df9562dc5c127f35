/*
 * The SNMPv3 USM codec (snmp/usm.c) and the key files (snmp/keys.c): key
 * localization against net-snmp's own, node user names, a message written
 * and read back (authentic, decrypted, answered), every tampering and wrong
 * key refused, Reports, and the key files' checks.  The exchange with real
 * net-snmp agents is in tests/e2e/supervisor.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/keys.h"
#include "apenet/usm.h"

static const uint8_t engine[] = { 0x80, 0x00, 0x1f, 0x88, 0x80, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77 };

static void test_localize_as_netsnmp(void **state)
{
	(void)state;
	uint8_t ku[32], ours[32], theirs[64];
	size_t tl = sizeof(theirs);
	for (int i = 0; i < 32; i++)
		ku[i] = (uint8_t)(i * 7 + 3);
	apenet_usm_localize(ku, engine, sizeof(engine), ours);
	assert_int_equal(generate_kul(usmHMAC192SHA256AuthProtocol, OID_LENGTH(usmHMAC192SHA256AuthProtocol),
				      (u_char *)engine, sizeof(engine), ku, sizeof(ku), theirs, &tl),
			 SNMPERR_SUCCESS);
	assert_int_equal(tl, 32);
	assert_memory_equal(ours, theirs, 32);
}

static void test_node_users(void **state)
{
	(void)state;
	char name[40];
	unsigned xyz[3];
	apenet_usm_node_user(31, 0, 7, name, sizeof(name));
	assert_string_equal(name, "node-31,0,7");
	assert_int_equal(apenet_usm_node_parse((const uint8_t *)name, strlen(name), xyz), 0);
	assert_int_equal(xyz[0], 31);
	assert_int_equal(xyz[1], 0);
	assert_int_equal(xyz[2], 7);
	static const char *const bad[] = { "node-1,2",   "node-1,2,3,", "node-01,2,3", "node-1,2,-3", "node-1,2,65536",
					   "apenet",     "node-,1,2",   "node-1,,2",   "Node-1,2,3",  "node-1,2,3 " };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(apenet_usm_node_parse((const uint8_t *)bad[i], strlen(bad[i]), xyz), -1);
	/* a NUL inside the name is not a shorter name */
	assert_int_equal(apenet_usm_node_parse((const uint8_t *)"node-1,2,3\0", 11, xyz), -1);

	uint8_t s[32] = { 1 }, a1[32], p1[32], a2[32], p2[32];
	assert_int_equal(apenet_usm_node_ku(s, sizeof(s), "node-1,0,0", a1, p1), 0);
	assert_int_equal(apenet_usm_node_ku(s, sizeof(s), "node-0,1,0", a2, p2), 0);
	assert_memory_not_equal(a1, a2, 32);
	assert_memory_not_equal(a1, p1, 32);
	s[31] ^= 1;
	assert_int_equal(apenet_usm_node_ku(s, sizeof(s), "node-1,0,0", a2, p2), 0);
	assert_memory_not_equal(a1, a2, 32);
}

/* An INFORM's ScopedPDU: SEQUENCE { engine, "", [6] { reqid 0x1234, 0, 0, {} } }. */
static size_t inform_scoped(uint8_t *b)
{
	static const uint8_t pdu[] = { 0xa6, 12, 0x02, 2, 0x12, 0x34, 0x02, 1, 0, 0x02, 1, 0, 0x30, 0 };
	size_t n = 0;
	b[n++] = 0x30;
	b[n++] = (uint8_t)(2 + sizeof(engine) + 2 + sizeof(pdu));
	b[n++] = 0x04;
	b[n++] = sizeof(engine);
	memcpy(b + n, engine, sizeof(engine));
	n += sizeof(engine);
	b[n++] = 0x04;
	b[n++] = 0;
	memcpy(b + n, pdu, sizeof(pdu));
	return n + sizeof(pdu);
}

static void keys_of(uint8_t fill, struct apenet_usm_keys *k)
{
	memset(k, fill, sizeof(*k));
}

static void test_write_read(void **state)
{
	(void)state;
	uint8_t sp[128], msg[512], plain[512];
	size_t spl = inform_scoped(sp);
	const uint8_t *ce, *pdu;
	size_t cel, pl;
	assert_int_equal(apenet_usm_scoped(sp, spl, &ce, &cel, &pdu, &pl), 0);
	assert_int_equal(pdu[0], 0xa6);
	long reqid;
	assert_int_equal(apenet_usm_pdu_reqid(pdu, pl, &reqid), 0);
	assert_int_equal(reqid, 0x1234);

	struct apenet_usm_keys k, wrong;
	keys_of(0x5a, &k);
	keys_of(0x5b, &wrong);
	const char *user = "node-1,2,3";
	struct apenet_usm_head h = { .msg_id = 77, .flags = APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV,
				     .engine = engine, .engine_len = sizeof(engine), .boots = 3, .time = 1000,
				     .user = (const uint8_t *)user, .user_len = strlen(user), .salt = 0x0102030405060708ull };
	size_t n = apenet_usm_write(&h, sp, spl, &k, msg, sizeof(msg));
	assert_true(n > spl);
	assert_int_equal(apenet_usm_write(&h, sp, spl, &k, msg, n - 1), 0); /* does not fit */
	n = apenet_usm_write(&h, sp, spl, &k, msg, sizeof(msg));

	struct apenet_usm_msg m;
	assert_int_equal(apenet_usm_parse(msg, n, &m), 0);
	assert_int_equal(m.msg_id, 77);
	assert_int_equal(m.flags, 3);
	assert_int_equal(m.boots, 3);
	assert_int_equal(m.time, 1000);
	assert_int_equal(m.user_len, strlen(user));
	assert_memory_equal(m.user, user, m.user_len);
	assert_memory_equal(m.engine, engine, sizeof(engine));
	assert_true(m.encrypted);
	assert_int_equal(m.data_len, spl);
	assert_memory_not_equal(m.data, sp, spl); /* encrypted on the wire */
	assert_int_equal(apenet_usm_authentic(msg, n, &m, k.auth), 1);
	assert_int_equal(apenet_usm_authentic(msg, n, &m, wrong.auth), 0);
	assert_int_equal(apenet_usm_decrypt(&m, k.priv, plain), 0);
	assert_memory_equal(plain, sp, spl);
	assert_int_equal(apenet_usm_decrypt(&m, wrong.priv, plain), 0); /* CFB decrypts anything... */
	assert_memory_not_equal(plain, sp, spl);                           /* ...into noise */

	/* any byte changed: not authentic (or not parsed at all) */
	for (size_t i = 0; i < n; i++) {
		msg[i] ^= 0x01;
		struct apenet_usm_msg t;
		if (!apenet_usm_parse(msg, n, &t))
			assert_int_equal(apenet_usm_authentic(msg, n, &t, k.auth), 0);
		msg[i] ^= 0x01;
	}
	/* cut short */
	for (size_t l = 0; l < n; l++) {
		struct apenet_usm_msg t;
		assert_int_equal(apenet_usm_parse(msg, l, &t), -1);
	}

	/* the answer: a Response with the same request-id */
	assert_int_equal(apenet_usm_inform_answer(plain, spl, 0), -1); /* noise is no INFORM */
	memcpy(plain, sp, spl);
	assert_int_equal(apenet_usm_inform_answer(plain, spl, 5), 0);
	assert_int_equal(apenet_usm_scoped(plain, spl, &ce, &cel, &pdu, &pl), 0);
	assert_int_equal(pdu[0], 0xa2);
	assert_int_equal(apenet_usm_pdu_reqid(pdu, pl, &reqid), 0);
	assert_int_equal(reqid, 0x1234);
	assert_int_equal(apenet_usm_inform_answer(plain, spl, 0), -1); /* already a Response */
}

static void test_unauthenticated(void **state)
{
	(void)state;
	uint8_t sp[128], msg[512], rep[256];
	size_t spl = apenet_usm_report_scoped(APENET_USM_STAT_UNKNOWN_ENGINE, 9, 4242, engine, sizeof(engine), sp,
					      sizeof(sp));
	assert_true(spl > 0);
	const uint8_t *ce, *pdu;
	size_t cel, pl;
	long reqid;
	assert_int_equal(apenet_usm_scoped(sp, spl, &ce, &cel, &pdu, &pl), 0);
	assert_int_equal(pdu[0], 0xa8);
	assert_int_equal(apenet_usm_pdu_reqid(pdu, pl, &reqid), 0);
	assert_int_equal(reqid, 4242);
	assert_int_equal(apenet_usm_report_scoped(APENET_USM_STAT_UNKNOWN_ENGINE, 9, 4242, engine, sizeof(engine), rep,
						  spl - 1),
			 0);
	/* a noAuthNoPriv message (the engine ID probe's Report) */
	struct apenet_usm_head h = { .msg_id = 5, .flags = 0, .engine = engine, .engine_len = sizeof(engine),
				     .boots = 1, .time = 2, .user = (const uint8_t *)"", .user_len = 0 };
	size_t n = apenet_usm_write(&h, sp, spl, NULL, msg, sizeof(msg));
	assert_true(n > spl);
	struct apenet_usm_msg m;
	assert_int_equal(apenet_usm_parse(msg, n, &m), 0);
	assert_int_equal(m.flags, 0);
	assert_false(m.encrypted);
	assert_int_equal(m.data_len, spl);
	assert_memory_equal(m.data, sp, spl);
	uint8_t key[32] = { 0 };
	assert_int_equal(apenet_usm_authentic(msg, n, &m, key), 0); /* no authentication to check */
	/* authPriv without keys, priv without auth: not written */
	h.flags = APENET_USM_FLAG_AUTH | APENET_USM_FLAG_PRIV;
	assert_int_equal(apenet_usm_write(&h, sp, spl, NULL, msg, sizeof(msg)), 0);
	h.flags = APENET_USM_FLAG_PRIV;
	struct apenet_usm_keys k;
	keys_of(1, &k);
	assert_int_equal(apenet_usm_write(&h, sp, spl, &k, msg, sizeof(msg)), 0);
	/* an SNMPv2c message is not SNMPv3 */
	static const uint8_t v2c[] = { 0x30, 0x0b, 0x02, 0x01, 0x01, 0x04, 0x01, 'p', 0xa6, 0x03, 0x02, 0x01, 0x00 };
	assert_int_equal(apenet_usm_parse(v2c, sizeof(v2c), &m), -1);
}

static char dir[256];

static void test_key_files(void **state)
{
	(void)state;
	char p[300], q[300];
	struct apenet_err e = { 0 };
	uint8_t s[32], s2[32];
	assert_int_equal(apenet_keys_new_secret(s, &e), 0);
	snprintf(p, sizeof(p), "%s/site.key", dir);
	assert_int_equal(apenet_keys_write_secret(p, s, (uid_t)-1, (gid_t)-1, &e), 0);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(apenet_keys_read_secret(p, s2, &e), 0);
	assert_memory_equal(s, s2, 32);
	/* never overwritten */
	assert_int_equal(apenet_keys_write_secret(p, s, (uid_t)-1, (gid_t)-1, &e), -1);
	assert_non_null(strstr(e.msg, "not overwritten"));
	/* readable by others: refused, with the mode */
	chmod(p, 0640);
	assert_int_equal(apenet_keys_read_secret(p, s2, &e), -1);
	assert_non_null(strstr(e.msg, "mode 0640"));
	chmod(p, 0600);

	struct apenet_node_key k, k2;
	assert_int_equal(apenet_keys_node(s, 3, 1, 0, &k, &e), 0);
	assert_string_equal(k.user, "node-3,1,0");
	snprintf(q, sizeof(q), "%s/node.key", dir);
	assert_int_equal(apenet_keys_write_node(q, &k, (uid_t)-1, (gid_t)-1, &e), 0);
	assert_int_equal(apenet_keys_read_node(q, &k2, &e), 0);
	assert_memory_equal(&k, &k2, sizeof(k));

	/* malformed files: the line and the field named */
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "user: node-1,0,0\nauth: sha256:00\npriv: aes128:00\n", ":2: auth: not 'sha256:'" },
		{ "user: node-1,0,0\nauth: md5:00\n", ":2: auth" },
		{ "user: nobody\n", ":1: user: not node-X,Y,Z" },
		{ "# only a comment\n", "no 'user:' line" },
		{ "user node-1,0,0\n", ":1: expected 'key: value'" },
		{ "colour: red\n", ":1: unknown field 'colour'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unlink(q);
		FILE *f = fopen(q, "w");
		fputs(bad[i].text, f);
		fclose(f);
		chmod(q, 0600);
		assert_int_equal(apenet_keys_read_node(q, &k2, &e), -1);
		if (!strstr(e.msg, bad[i].want))
			fail_msg("%s: got '%s', want '%s'", bad[i].text, e.msg, bad[i].want);
	}
	unlink(q);
	unlink(p);
	assert_int_equal(apenet_keys_read_secret(p, s2, &e), -1);
	assert_non_null(strstr(e.msg, "No such file"));
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_usm.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_localize_as_netsnmp), cmocka_unit_test(test_node_users),
		cmocka_unit_test(test_write_read),          cmocka_unit_test(test_unauthenticated),
		cmocka_unit_test(test_key_files),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	apenet_usm_free();
	rmdir(dir);
	return r;
}
