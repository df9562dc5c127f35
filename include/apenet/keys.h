/*
 * The SNMPv3 key files (docs/security.md): the site secret, kept by the
 * supervisors, from which every node's keys derive (include/apenet/usm.h),
 * and each node's key file, kept by its agent.  Both are text:
 *
 *   # site secret ...            # node key ...
 *   secret: <64 hex digits>      user: node-1,0,0
 *                                auth: sha256:<64 hex digits>
 *                                priv: aes128:<64 hex digits>
 *
 * and the SNMPv3 engine of a supervisor (its engine ID, made once, and its
 * boots, one more at every start: supervisor/v3.c):
 *
 *   engine_id: <10..64 hex digits>
 *   boots: N
 *
 * A file that others can read or write is refused (as ssh refuses a private
 * key that is): the message names the file and its mode.  Files are created
 * 0600 and never overwritten.
 */
#ifndef APENET_KEYS_H
#define APENET_KEYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "apenet/err.h"
#include "apenet/usm.h"

#define APENET_SITE_SECRET_LEN 32

struct apenet_node_key {
	char user[APENET_USM_USER_MAX + 1];
	unsigned xyz[3];
	uint8_t auth_ku[APENET_USM_KEY_LEN];
	uint8_t priv_ku[APENET_USM_KEY_LEN];
};

/* 0, or -1 with e naming the file (and line, field) that is wrong. */
int apenet_keys_read_secret(const char *path, uint8_t secret[APENET_SITE_SECRET_LEN], struct apenet_err *e);
int apenet_keys_read_node(const char *path, struct apenet_node_key *k, struct apenet_err *e);

/* A new random site secret (getrandom). */
int apenet_keys_new_secret(uint8_t secret[APENET_SITE_SECRET_LEN], struct apenet_err *e);
/* Node x,y,z's key from the secret. */
int apenet_keys_node(const uint8_t secret[APENET_SITE_SECRET_LEN], unsigned x, unsigned y, unsigned z,
		     struct apenet_node_key *k, struct apenet_err *e);

/* Written to a new file (O_EXCL, 0600), then given to uid:gid when they
 * are not -1; 0 or -1 (an existing file is an error: keys are not
 * overwritten by accident). */
int apenet_keys_write_secret(const char *path, const uint8_t secret[APENET_SITE_SECRET_LEN], uid_t uid, gid_t gid,
			     struct apenet_err *e);
int apenet_keys_write_node(const char *path, const struct apenet_node_key *k, uid_t uid, gid_t gid,
			   struct apenet_err *e);

/* An engine file: 0 read, 1 when there is none yet, -1 with e. */
int apenet_keys_read_engine(const char *path, uint8_t engine[APENET_USM_ENGINE_MAX], size_t *len, long *boots,
			    struct apenet_err *e);
/* Written in place of the old one (a temporary file, fsynced, renamed:
 * the boots are on disk before anyone is answered with them), 0600. */
int apenet_keys_write_engine(const char *path, const uint8_t *engine, size_t len, long boots, struct apenet_err *e);

#endif
