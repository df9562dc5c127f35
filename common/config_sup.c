/*
 * The `supervisors:` section of the one config: where the node agent sends
 * its reports (SNMP INFORMs, include/apenet/notify.h) and how often it
 * sends a heartbeat.  Its key table is the one statement of each key's
 * default, unit, range and meaning: the loader, the notifier's own check
 * (apenet_notify_config_check, for programs that fill the struct
 * themselves), `apenet config check` and the shipped file follow it.  The
 * notifier's settings live here, with the other key tables, and not in
 * snmp/: every program reads the one config, and the notifier (net-snmp)
 * is above it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/conf.h"
#include "apenet/config.h"

/* Its rows, in the file's order.  The values are not at the rows' off: the
 * notifier keeps its own types (unsigned ms, bytes, an enum, a list), which
 * get_num() and put_num() map to the keys' numbers. */
enum { K_TARGETS, K_VERSION, K_COMMUNITY, K_KEY_FILE, K_TIMEOUT, K_RETRIES, K_BACKOFF, K_SPOOL, K_SPOOL_MAX, K_HEARTBEAT };
#define S(k, key, f, d, doc) [k] = { key, 1, APENET_FORM_##f, 0, 0, 0, 0, 0, d, "text", doc, 0 }
#define N(k, key, lo, hi, d, u, doc) [k] = { key, 0, APENET_FORM_NUM, 0, 0, lo, hi, d, NULL, u, doc, 0 }
static const struct apenet_config_desc rows[] = {
	/* Two supervisors, duplicated: either one alone keeps the picture.
	 * The names are for the site's hosts file or DNS. */
	S(K_TARGETS, "targets", TEXT, "apenet-sup1:162,apenet-sup2:162",
	  "where the agent reports (SNMP INFORMs): host:port, [v6addr]:port or host (port 162), 1..8, comma-separated here; empty: reports off"),
	/* SNMPv3 authPriv with per-node keys: reports prove where they come
	 * from (docs/security.md); SNMPv2c only when a config says so. */
	S(K_VERSION, "version", TEXT, "3",
	  "SNMP version: 3 (authPriv with this node's key file: HMAC-SHA-256 and AES-128) or 2c (community, unauthenticated: a warning at every start)"),
	S(K_COMMUNITY, "community", TEXT, "public", "SNMPv2c community (version 2c only)"),
	S(K_KEY_FILE, "key_file", PATH, "/etc/apenet/node.key",
	  "SNMPv3: this node's key file (apenet keys node; 0600, the agent's user's; docs/security.md)"),
	N(K_TIMEOUT, "timeout_ms", 10, 600000, 1000, "ms", "one try of an INFORM waits this long for the acknowledgement..."),
	N(K_RETRIES, "retries", 0, 100, 2, "tries",
	  "...and is sent again this many times before the supervisor counts as not answering"),
	N(K_BACKOFF, "backoff_ms", 10, 3600000, 2000, "ms", "a supervisor that does not answer is tried again after this long"),
	/* the agent's default is spool.db in its state_dir (agent/report.c);
	 * this one is for a program without a config */
	S(K_SPOOL, "spool", PATH, "/var/lib/apenet/spool.db",
	  "the spool (sqlite): reports not yet acknowledged by every supervisor; default: spool.db in agent.state_dir"),
	N(K_SPOOL_MAX, "spool_max_mib", 0.0625, 65536, 8, "MiB", "past this size the oldest heartbeats are dropped, never a transition"),
	N(K_HEARTBEAT, "heartbeat_s", 0.1, 3600, 1, "s", "a heartbeat report (with the node's LDM word) every"),
};
#undef S
#undef N
_Static_assert(sizeof(rows) / sizeof(rows[0]) == APENET_NSUP_KEYS, "APENET_NSUP_KEYS counts the rows");

const struct apenet_config_desc *apenet_config_supervisors_rows(void)
{
	return rows;
}

/* A number key's value in the notifier's types; hb: struct
 * apenet_config.heartbeat_s (NULL: the notifier's check, which has none). */
static double get_num(const struct apenet_notify_config *n, const double *hb, int k)
{
	switch (k) {
	case K_TIMEOUT:
		return n->timeout_ms;
	case K_RETRIES:
		return n->retries;
	case K_BACKOFF:
		return n->backoff_ms;
	case K_SPOOL_MAX:
		return (double)n->spool_max_bytes / 1048576;
	default:
		return hb ? *hb : 0;
	}
}

static void put_num(struct apenet_notify_config *n, double *hb, int k, double v)
{
	switch (k) {
	case K_TIMEOUT:
		n->timeout_ms = (unsigned)v;
		break;
	case K_RETRIES:
		n->retries = (unsigned)v;
		break;
	case K_BACKOFF:
		n->backoff_ms = (unsigned)v;
		break;
	case K_SPOOL_MAX:
		n->spool_max_bytes = (uint64_t)(v * 1048576);
		break;
	default:
		if (hb)
			*hb = v;
	}
}

/* "2c" or "3"; -1 otherwise. */
static int version_of(const char *s)
{
	return !strcmp(s, "2c") ? APENET_SNMP_V2C : !strcmp(s, "3") ? APENET_SNMP_V3 : -1;
}

static void defaults(struct apenet_notify_config *c, double *hb)
{
	memset(c, 0, sizeof(*c));
	for (const char *s = rows[K_TARGETS].def_str; *s && c->nsupervisors < APENET_NOTIFY_MAX_SUPERVISORS;) {
		size_t k = strcspn(s, ",");
		snprintf(c->supervisors[c->nsupervisors++], sizeof(c->supervisors[0]), "%.*s", (int)k, s);
		s += k + (s[k] == ',');
	}
	c->version = version_of(rows[K_VERSION].def_str);
	snprintf(c->community, sizeof(c->community), "%s", rows[K_COMMUNITY].def_str);
	snprintf(c->key_file, sizeof(c->key_file), "%s", rows[K_KEY_FILE].def_str);
	snprintf(c->spool, sizeof(c->spool), "%s", rows[K_SPOOL].def_str);
	for (int k = 0; k < APENET_NSUP_KEYS; k++)
		if (!rows[k].is_str)
			put_num(c, hb, k, rows[k].def);
}

void apenet_notify_config_defaults(struct apenet_notify_config *c)
{
	defaults(c, NULL);
}

void apenet_config_supervisors_defaults(struct apenet_config *c)
{
	defaults(&c->sup, &c->heartbeat_s);
}

/* "host:port", "[v6]:port", "host" -> net-snmp's "udp:host:port" or
 * "udp6:[v6]:port". */
int apenet_notify_peer(const char *addr, char *peer, size_t len, char *why, size_t whylen)
{
	char host[128];
	const char *port = NULL;
	int v6 = 0;
	if (!*addr)
		return apenet_errbuf(why, whylen, "empty");
	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		if (!end || end == addr + 1)
			return apenet_errbuf(why, whylen, "an IPv6 address needs its closing ']'");
		snprintf(host, sizeof(host), "%.*s", (int)(end - addr - 1), addr + 1);
		if (end[1] == ':')
			port = end + 2;
		else if (end[1])
			return apenet_errbuf(why, whylen, "expected ':port' after ']'");
		v6 = 1;
	} else {
		const char *colon = strrchr(addr, ':');
		if (colon && strchr(addr, ':') != colon)
			return apenet_errbuf(why, whylen, "an IPv6 address goes in brackets: [addr]:port");
		snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - addr) : (int)strlen(addr), addr);
		if (colon)
			port = colon + 1;
	}
	if (!*host)
		return apenet_errbuf(why, whylen, "no host");
	for (const char *p = host; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_' || (v6 && (*p == ':' || *p == '%'))))
			return apenet_errbuf(why, whylen, "'%c' cannot be in a host name or address", *p);
	unsigned long p = 162;
	if (port) {
		char *end;
		errno = 0;
		p = strtoul(port, &end, 10);
		if (!*port || *end || errno || p < 1 || p > 65535 || *port == '-' || *port == '+')
			return apenet_errbuf(why, whylen, "port '%s' is not a number in 1..65535", port);
	}
	snprintf(peer, len, v6 ? "udp6:[%s]:%lu" : "udp:%s:%lu", host, p);
	return 0;
}

/* A number of the notifier's against its key's range. */
static int check_num(const struct apenet_notify_config *c, int k, struct apenet_err *e)
{
	double v = get_num(c, NULL, k);
	if (v < rows[k].min || v > rows[k].max)
		return apenet_err_set(e, APENET_EINVAL, "%s: %.15g is outside %.15g..%.15g", rows[k].key, v, rows[k].min,
				      rows[k].max);
	return 0;
}

int apenet_notify_config_check(const struct apenet_notify_config *c, struct apenet_err *e)
{
	char peer[200], why[160];
	if (c->nsupervisors < 1 || c->nsupervisors > APENET_NOTIFY_MAX_SUPERVISORS)
		return apenet_err_set(e, APENET_EINVAL, "supervisors: %u given, 1..%d allowed", c->nsupervisors,
				      APENET_NOTIFY_MAX_SUPERVISORS);
	for (unsigned i = 0; i < c->nsupervisors; i++) {
		if (strnlen(c->supervisors[i], sizeof(c->supervisors[i])) >= sizeof(c->supervisors[i]))
			return apenet_err_set(e, APENET_EINVAL, "supervisors[%u]: too long", i);
		if (apenet_notify_peer(c->supervisors[i], peer, sizeof(peer), why, sizeof(why)))
			return apenet_err_set(e, APENET_EINVAL, "supervisors[%u]: '%s': %s", i, c->supervisors[i], why);
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(c->supervisors[i], c->supervisors[j]))
				return apenet_err_set(e, APENET_EINVAL, "supervisors[%u]: '%s' is listed twice", i,
						      c->supervisors[i]);
	}
	if (c->version == APENET_SNMP_V2C) {
		if (!c->community[0] || strnlen(c->community, sizeof(c->community)) >= sizeof(c->community))
			return apenet_err_set(e, APENET_EINVAL, "community: empty or too long");
	} else if (c->version == APENET_SNMP_V3) {
		if (c->key_file[0] != '/' || strnlen(c->key_file, sizeof(c->key_file)) >= sizeof(c->key_file))
			return apenet_err_set(e, APENET_EINVAL, "key_file: '%s' is not an absolute path", c->key_file);
	} else {
		return apenet_err_set(e, APENET_EINVAL, "version: %d is neither 2 (SNMPv2c) nor 3 (SNMPv3)", c->version);
	}
	if (check_num(c, K_TIMEOUT, e) || check_num(c, K_RETRIES, e) || check_num(c, K_BACKOFF, e))
		return -1;
	if (!c->spool[0] || strnlen(c->spool, sizeof(c->spool)) >= sizeof(c->spool))
		return apenet_err_set(e, APENET_EINVAL, "spool: no path");
	return check_num(c, K_SPOOL_MAX, e);
}

/* ---- the loader ---- */

static int str(const struct apenet_conf *c, const struct apenet_conf_node *m, int k, char *dst, size_t n,
	       struct apenet_err *e)
{
	const char *key = rows[k].key;
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
	const char *keys[APENET_NSUP_KEYS + 1];
	for (size_t i = 0; i < APENET_NSUP_KEYS; i++)
		keys[i] = rows[i].key;
	keys[APENET_NSUP_KEYS] = NULL;
	if (apenet_conf_check_keys(c, m, keys, e))
		return -1;
	/* which keys the file set, for `apenet config check` */
	for (size_t i = 0; i < APENET_NSUP_KEYS; i++)
		cfg->sup_given[i] = apenet_conf_get(m, keys[i]) != NULL;
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
		if (version_of(x->value) < 0)
			return apenet_conf_error(c, x, e, "'version': '%s' is not 2c or 3", x->value);
		n->version = version_of(x->value);
	}
	if (str(c, m, K_COMMUNITY, n->community, sizeof(n->community), e) ||
	    str(c, m, K_KEY_FILE, n->key_file, sizeof(n->key_file), e) ||
	    str(c, m, K_SPOOL, n->spool, sizeof(n->spool), e))
		return -1;
	for (int k = 0; k < APENET_NSUP_KEYS; k++) {
		double v = get_num(n, &cfg->heartbeat_s, k);
		if (rows[k].is_str || !(x = apenet_conf_get(m, rows[k].key)))
			continue;
		if (apenet_conf_double(c, x, rows[k].min, rows[k].max, &v, e))
			return -1;
		put_num(n, &cfg->heartbeat_s, k, v);
	}
	for (int k = 0; k < APENET_NSUP_KEYS; k++)
		if (rows[k].form == APENET_FORM_PATH && (x = apenet_conf_get(m, rows[k].key)) && x->value[0] != '/')
			return apenet_conf_error(c, x, e, "'%s': '%s' is not an absolute path", rows[k].key, x->value);
	cfg->spool_given = apenet_conf_get(m, "spool") != NULL;
	struct apenet_err ce = { 0 };
	if (n->nsupervisors && apenet_notify_config_check(n, &ce))
		return apenet_conf_error(c, m, e, "supervisors: %s", ce.msg);
	return 0;
}
