/*
 * SNMPv3 with the User-based Security Model (RFC 3414), read and written
 * straight from bytes: the supervisor's receiving side of the agents'
 * authPriv INFORMs (docs/security.md).  Authentication is
 * usmHMAC192SHA256AuthProtocol (RFC 7860: HMAC-SHA-256, 24 bytes), privacy
 * usmAesCfb128Protocol (RFC 3826: AES-128 in CFB mode); the hashes and the
 * cipher are OpenSSL's libcrypto, not written here.
 *
 * Why not net-snmp's own USM: it keeps its users in a list searched one by
 * one, and a supervisor has one user per node (32,768 of them), whose keys
 * it derives from the site secret when a node first speaks (keys.c); and it
 * parses, allocates and re-encodes around every message, which was most of
 * the supervisor's cost per report (docs/supervisor.md, "Load").  The agents
 * keep net-snmp's USM: this file must agree with it byte for byte, and the
 * end-to-end tests check that it does (net-snmp agents, this receiver).
 *
 * Node keys (DESIGN, docs/security.md): user "node-X,Y,Z"; its master keys
 * (Ku, RFC 3414 2.6) are HMAC-SHA-256(site secret, "apenet-usm-auth:" user)
 * and (..., "apenet-usm-priv:" user), so that a supervisor derives every
 * node's keys from one secret, and a node's key file speaks only as that
 * node.
 */
#ifndef APENET_USM_H
#define APENET_USM_H

#include <stddef.h>
#include <stdint.h>

#define APENET_USM_KEY_LEN 32    /* SHA-256: Ku and Kul */
#define APENET_USM_AUTH_LEN 24   /* HMAC-SHA-256 truncated to 192 bits */
#define APENET_USM_SALT_LEN 8    /* msgPrivacyParameters of AES */
#define APENET_USM_ENGINE_MAX 32 /* snmpEngineID: 5..32 octets */
#define APENET_USM_USER_MAX 32   /* SnmpAdminString (SIZE(1..32)) */
#define APENET_USM_WINDOW_S 150  /* RFC 3414 3.2 7): the time window */

/* msgFlags */
#define APENET_USM_FLAG_AUTH 0x01
#define APENET_USM_FLAG_PRIV 0x02
#define APENET_USM_FLAG_REPORTABLE 0x04

/* A user's keys localized to one engine (Kul): auth 32 bytes, priv the
 * first 16 of its 32 for AES-128. */
struct apenet_usm_keys {
	uint8_t auth[APENET_USM_KEY_LEN];
	uint8_t priv[APENET_USM_KEY_LEN];
};

/* Kul = SHA-256(Ku || engineID || Ku) (RFC 3414 2.6, A.2.2 with SHA-256). */
void apenet_usm_localize(const uint8_t ku[APENET_USM_KEY_LEN], const uint8_t *engine, size_t engine_len,
			 uint8_t kul[APENET_USM_KEY_LEN]);
/* The master keys of user from the site secret (the DESIGN above). */
int apenet_usm_node_ku(const uint8_t *secret, size_t secret_len, const char *user, uint8_t auth_ku[APENET_USM_KEY_LEN],
		       uint8_t priv_ku[APENET_USM_KEY_LEN]);
/* "node-X,Y,Z" for x, y, z; and back (0, or -1 when name is not one). */
void apenet_usm_node_user(unsigned x, unsigned y, unsigned z, char *buf, size_t len);
int apenet_usm_node_parse(const uint8_t *name, size_t len, unsigned xyz[3]);

/* A message read: pointers into its bytes. */
struct apenet_usm_msg {
	long msg_id, max_size;
	uint8_t flags;
	long security_model;
	const uint8_t *engine;
	size_t engine_len;
	long boots, time;
	const uint8_t *user;
	size_t user_len;
	size_t auth_off, auth_len; /* the authentication parameters: offset in the message, length */
	const uint8_t *salt;
	size_t salt_len;
	int encrypted;             /* data: an encryptedPDU's octets (1) or the plaintext ScopedPDU's TLV (0) */
	const uint8_t *data;
	size_t data_len;
};

/* 0 with m filled, or -1 when msg is not an SNMPv3 USM message this reader
 * is sure of (definite lengths only, values in range). */
int apenet_usm_parse(const uint8_t *msg, size_t len, struct apenet_usm_msg *m);
/* 1 when the message's authentication parameters are the HMAC of the whole
 * message (with them zeroed) under the localized key; 0 otherwise.
 * Compared in constant time. */
int apenet_usm_authentic(const uint8_t *msg, size_t len, const struct apenet_usm_msg *m,
			 const uint8_t key[APENET_USM_KEY_LEN]);
/* The ScopedPDU of an encrypted message into out (m->data_len bytes); the
 * IV is the message's boots, time and salt (RFC 3826 3.1.2.1).  0 or -1. */
int apenet_usm_decrypt(const struct apenet_usm_msg *m, const uint8_t key[APENET_USM_KEY_LEN], uint8_t *out);
/* A ScopedPDU's parts: its context engine ID and the PDU's TLV (trailing
 * bytes of CFB's last block are not allowed: the ScopedPDU's own length
 * must end where the plaintext does).  0 or -1. */
int apenet_usm_scoped(const uint8_t *sp, size_t len, const uint8_t **ctx_engine, size_t *ctx_engine_len,
		      const uint8_t **pdu, size_t *pdu_len);
/* The request-id of a PDU (any of the v2 PDUs), for a Report; 0 or -1. */
int apenet_usm_pdu_reqid(const uint8_t *pdu, size_t len, long *reqid);

/* What a written message says about itself. */
struct apenet_usm_head {
	long msg_id;
	uint8_t flags;            /* AUTH|PRIV for an answer; AUTH, or 0, for a Report */
	const uint8_t *engine;    /* the authoritative engine: this supervisor's */
	size_t engine_len;
	long boots, time;
	const uint8_t *user;
	size_t user_len;
	uint64_t salt;            /* AES: never twice under one key (the caller's counter) */
};

/* A whole message around a plaintext ScopedPDU (its TLV), authenticated
 * and encrypted as h->flags say with keys (NULL with flags 0).  The bytes
 * written, or 0 when they do not fit cap. */
size_t apenet_usm_write(const struct apenet_usm_head *h, const uint8_t *scoped, size_t scoped_len,
			const struct apenet_usm_keys *keys, uint8_t *out, size_t cap);
/* A ScopedPDU around a PDU's TLV: SEQUENCE { contextEngineID engine,
 * contextName "", pdu }.  Bytes written, or 0 when they do not fit cap. */
size_t apenet_usm_scoped_write(const uint8_t *engine, size_t engine_len, const uint8_t *pdu, size_t pdu_len,
			       uint8_t *out, size_t cap);
/* The ScopedPDU of an INFORM's answer: the same ScopedPDU with its PDU a
 * Response (RFC 3416 4.2.7: same request-id and bindings), error-status
 * errstat (0..127).  In place; 0, or -1 when the PDU is not an INFORM with
 * zero error fields. */
int apenet_usm_inform_answer(uint8_t *scoped, size_t len, unsigned errstat);
/* The ScopedPDU of a Report (RFC 3414 3.2) carrying one usmStats counter
 * (APENET_USM_STAT_*) with value count, for request-id reqid, context
 * engine engine.  Bytes written, or 0. */
enum apenet_usm_stat {
	APENET_USM_STAT_UNSUPPORTED_LEVEL = 1, /* usmStatsUnsupportedSecLevels */
	APENET_USM_STAT_NOT_IN_WINDOW = 2,     /* usmStatsNotInTimeWindows */
	APENET_USM_STAT_UNKNOWN_USER = 3,      /* usmStatsUnknownUserNames */
	APENET_USM_STAT_UNKNOWN_ENGINE = 4,    /* usmStatsUnknownEngineIDs */
	APENET_USM_STAT_WRONG_DIGEST = 5,      /* usmStatsWrongDigests */
	APENET_USM_STAT_DECRYPTION = 6,        /* usmStatsDecryptionErrors */
};
size_t apenet_usm_report_scoped(enum apenet_usm_stat stat, uint32_t count, long reqid, const uint8_t *engine,
				size_t engine_len, uint8_t *out, size_t cap);

/* Releases libcrypto's objects this file keeps between messages. */
void apenet_usm_free(void);

#endif
