/*
 * The notifier's settings: defaults, the check, and the supervisor address
 * in net-snmp's transport syntax.  Apart from notify.c so that the config
 * loader (every program reads the one config) does not pull net-snmp in.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/notify.h"

/* ---- config ------------------------------------------------------------- */

void apenet_notify_config_defaults(struct apenet_notify_config *c)
{
	memset(c, 0, sizeof(*c));
	/* Two supervisors, duplicated: either one alone keeps the picture.
	 * The names are for the site's hosts file or DNS. */
	snprintf(c->supervisors[0], sizeof(c->supervisors[0]), "%s", "apenet-sup1:162");
	snprintf(c->supervisors[1], sizeof(c->supervisors[1]), "%s", "apenet-sup2:162");
	c->nsupervisors = 2;
	/* SNMPv3 authPriv with per-node keys: reports prove where they come
	 * from (docs/security.md); SNMPv2c only when a config says so. */
	c->version = APENET_SNMP_V3;
	snprintf(c->community, sizeof(c->community), "%s", "public");
	snprintf(c->key_file, sizeof(c->key_file), "%s", "/etc/apenet/node.key");
	c->timeout_ms = 1000;
	c->retries = 2;
	c->backoff_ms = 2000;
	snprintf(c->spool, sizeof(c->spool), "%s", "/var/lib/apenet/spool.db");
	c->spool_max_bytes = 8u << 20;
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
	if (c->timeout_ms < 10 || c->timeout_ms > 600000)
		return apenet_err_set(e, APENET_EINVAL, "timeout_ms: %u is outside 10..600000", c->timeout_ms);
	if (c->retries > 20)
		return apenet_err_set(e, APENET_EINVAL, "retries: %u is outside 0..20", c->retries);
	if (c->backoff_ms > 3600000)
		return apenet_err_set(e, APENET_EINVAL, "backoff_ms: %u is outside 0..3600000", c->backoff_ms);
	if (!c->spool[0] || strnlen(c->spool, sizeof(c->spool)) >= sizeof(c->spool))
		return apenet_err_set(e, APENET_EINVAL, "spool: no path");
	if (c->spool_max_bytes < 4096)
		return apenet_err_set(e, APENET_EINVAL, "spool_max_bytes: %llu is less than 4096",
				      (unsigned long long)c->spool_max_bytes);
	return 0;
}

