/*
 * The `supervisors:` section of the one config: where the node agent sends
 * its reports (SNMP INFORMs, include/apenet/notify.h) and how often it
 * sends a heartbeat.  Values are checked by the notifier's own check, whose
 * message is placed at the section's line and column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/conf.h"
#include "apenet/config.h"

static int str(const struct apenet_conf *c, const struct apenet_conf_node *m, const char *key, char *dst, size_t n,
	       struct apenet_err *e)
{
	const struct apenet_conf_node *x = apenet_conf_get(m, key);
	if (!x)
		return 0;
	if (apenet_conf_expect(c, x, APENET_CONF_SCALAR, key, e))
		return -1;
	if (strlen(x->value) >= n)
		return apenet_conf_error(c, x, e, "'%s': longer than %zu characters", key, n - 1);
	snprintf(dst, n, "%s", x->value);
	return 0;
}

static int num(const struct apenet_conf *c, const struct apenet_conf_node *m, const char *key, double lo, double hi,
	       double *out, struct apenet_err *e)
{
	const struct apenet_conf_node *x = apenet_conf_get(m, key);
	return x ? apenet_conf_double(c, x, lo, hi, out, e) : 0;
}

/* Behind a function, not an exported array: the library exports names
 * with the apenet_ prefix only, and ASan's ODR symbol of an array would
 * not have it (tests/e2e/library.sh). */
const char *const *apenet_config_supervisors_keys(void)
{
	static const char *const keys[] = { "targets", "version", "community", "key_file", "timeout_ms", "retries",
					    "backoff_ms", "spool", "spool_max_mib", "heartbeat_s", NULL };
	_Static_assert(sizeof(keys) / sizeof(keys[0]) == APENET_NSUP_KEYS + 1, "APENET_NSUP_KEYS");
	return keys;
}

int apenet_config_load_supervisors(const struct apenet_conf *c, const struct apenet_conf_node *m,
				   struct apenet_config *cfg, struct apenet_err *e)
{
	struct apenet_notify_config *n = &cfg->sup;
	const struct apenet_conf_node *x;
	if (apenet_conf_expect(c, m, APENET_CONF_MAP, "supervisors", e))
		return -1;
	/* One shared USM user with passphrases let any node speak for any
	 * other: gone for per-node key files (docs/security.md). */
	static const char *const gone[] = { "user", "auth_pass", "priv_pass" };
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++)
		if ((x = apenet_conf_get(m, gone[i])))
			return apenet_conf_error(c, x, e,
						 "'%s': SNMPv3 uses per-node key files now: remove it and set key_file "
						 "(apenet keys node; docs/security.md)",
						 gone[i]);
	if (apenet_conf_check_keys(c, m, apenet_config_supervisors_keys(), e))
		return -1;
	/* which keys the file set, for `apenet config check` */
	for (size_t i = 0; i < APENET_NSUP_KEYS; i++)
		cfg->sup_given[i] = apenet_conf_get(m, apenet_config_supervisors_keys()[i]) != NULL;
	if ((x = apenet_conf_get(m, "targets"))) {
		if (apenet_conf_expect(c, x, APENET_CONF_SEQ, "targets", e))
			return -1;
		n->nsupervisors = 0;
		for (const struct apenet_conf_node *t = x->child; t; t = t->next) {
			if (apenet_conf_expect(c, t, APENET_CONF_SCALAR, "a target", e))
				return -1;
			if (n->nsupervisors == APENET_NOTIFY_MAX_SUPERVISORS)
				return apenet_conf_error(c, t, e, "'targets': at most %d supervisors",
							 APENET_NOTIFY_MAX_SUPERVISORS);
			if (strlen(t->value) >= sizeof(n->supervisors[0]))
				return apenet_conf_error(c, t, e, "'targets': '%s' is too long", t->value);
			snprintf(n->supervisors[n->nsupervisors++], sizeof(n->supervisors[0]), "%s", t->value);
		}
	}
	if ((x = apenet_conf_get(m, "version"))) {
		if (apenet_conf_expect(c, x, APENET_CONF_SCALAR, "version", e))
			return -1;
		if (!strcmp(x->value, "2c"))
			n->version = APENET_SNMP_V2C;
		else if (!strcmp(x->value, "3"))
			n->version = APENET_SNMP_V3;
		else
			return apenet_conf_error(c, x, e, "'version': '%s' is not 2c or 3", x->value);
	}
	double to = n->timeout_ms, re = n->retries, bo = n->backoff_ms, mib = (double)n->spool_max_bytes / 1048576;
	if (str(c, m, "community", n->community, sizeof(n->community), e) ||
	    str(c, m, "key_file", n->key_file, sizeof(n->key_file), e) ||
	    str(c, m, "spool", n->spool, sizeof(n->spool), e) ||
	    num(c, m, "timeout_ms", 10, 600000, &to, e) || num(c, m, "retries", 0, 100, &re, e) ||
	    num(c, m, "backoff_ms", 10, 3600000, &bo, e) || num(c, m, "spool_max_mib", 0.0625, 65536, &mib, e) ||
	    num(c, m, "heartbeat_s", 0.1, 3600, &cfg->heartbeat_s, e))
		return -1;
	n->timeout_ms = (unsigned)to;
	n->retries = (unsigned)re;
	n->backoff_ms = (unsigned)bo;
	n->spool_max_bytes = (uint64_t)(mib * 1048576);
	if ((x = apenet_conf_get(m, "key_file")) && x->value[0] != '/')
		return apenet_conf_error(c, x, e, "'key_file': '%s' is not an absolute path", x->value);
	if ((x = apenet_conf_get(m, "spool")) && x->value[0] != '/')
		return apenet_conf_error(c, x, e, "'spool': '%s' is not an absolute path", x->value);
	cfg->spool_given = x != NULL;
	struct apenet_err ce = { 0 };
	if (n->nsupervisors && apenet_notify_config_check(n, &ce))
		return apenet_conf_error(c, m, e, "supervisors: %s", ce.msg);
	return 0;
}
