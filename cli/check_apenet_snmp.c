/*
 * check_apenet -H: APENET-MIB's node tables through snmpd, with net-snmp's
 * single-session client API.  No MIB file is read (the plugin may run where
 * APENET-MIB is not installed, and a broken MIB directory must not change
 * its answer): the OIDs are the numbers of include/apenet/mib.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/mib.h"
#include "check_apenet.h"

static const oid objects[] = { APENET_OID_OBJECTS };
#define OBJECTS_LEN (APENET_OID_MIB_LEN + 1)

/* A string value into buf (at most n - 1 bytes, NUL-terminated). */
static void str(const netsnmp_variable_list *v, char *buf, size_t n)
{
	size_t len = 0;
	if (v->type == ASN_OCTET_STR && v->val.string) {
		len = v->val_len < n - 1 ? v->val_len : n - 1;
		memcpy(buf, v->val.string, len);
	}
	buf[len] = 0;
}

static long num(const netsnmp_variable_list *v)
{
	switch (v->type) {
	case ASN_INTEGER:
	case ASN_GAUGE:
	case ASN_COUNTER:
	case ASN_TIMETICKS:
		return v->val.integer ? *v->val.integer : 0;
	default:
		return 0;
	}
}

/* "80" (a limit the agent serves as text; "" when it has none) */
static double limit(const netsnmp_variable_list *v)
{
	char b[32], *end;
	str(v, b, sizeof(b));
	double d = strtod(b, &end);
	return b[0] && !*end && isfinite(d) ? d : NAN;
}

static struct ck_link *link_row(struct ck_node *n, unsigned card, unsigned idx)
{
	for (unsigned i = 0; i < n->nlinks; i++)
		if (n->link[i].card == card && n->link[i].index == idx)
			return &n->link[i];
	if (n->nlinks == CK_MAX_LINKS)
		return NULL;
	struct ck_link *l = &n->link[n->nlinks++];
	memset(l, 0, sizeof(*l));
	l->card = card;
	l->index = idx;
	return l;
}

static struct ck_sensor *sensor_row(struct ck_node *n, unsigned card, unsigned idx)
{
	for (unsigned i = 0; i < n->nsensors; i++)
		if (n->sensor[i].card == card && n->sensor[i].index == idx)
			return &n->sensor[i];
	if (n->nsensors == CK_MAX_SENSORS)
		return NULL;
	struct ck_sensor *s = &n->sensor[n->nsensors++];
	memset(s, 0, sizeof(*s));
	s->card = card;
	s->index = idx;
	s->high_warn = s->high_fail = NAN;
	return s;
}

/* One varbind below apenetObjects: T.1.C.index. */
static void take(struct ck_node *n, const netsnmp_variable_list *v)
{
	const oid *o = v->name + OBJECTS_LEN;
	size_t k = v->name_length - OBJECTS_LEN;
	if (k < 4 || o[1] != 1)
		return;
	unsigned t = (unsigned)o[0], c = (unsigned)o[2], card = (unsigned)o[3];
	/* one card per node is the rule; a second one's rows are read (and
	 * judged) too, its links named with the card's index */
	if (t == APENET_MIB_T_CARD && k == 4 && card == 1) {
		n->has_card = 1;
		if (c == APENET_MIB_CARD_NODE)
			str(v, n->node, sizeof(n->node));
		else if (c == APENET_MIB_CARD_SEVERITY)
			n->card_sev = (int)num(v);
		else if (c == APENET_MIB_CARD_CODE)
			str(v, n->card_code, sizeof(n->card_code));
		else if (c == APENET_MIB_CARD_FINDINGS)
			n->findings = (unsigned)num(v);
	} else if (t == APENET_MIB_T_LINK && k == 5) {
		struct ck_link *l = link_row(n, card, (unsigned)o[4]);
		if (!l)
			return;
		switch (c) {
		case APENET_MIB_LINK_NAME:
			str(v, l->name, sizeof(l->name));
			break;
		case APENET_MIB_LINK_STATE:
			l->state = (int)num(v);
			break;
		case APENET_MIB_LINK_LANES_UP:
			l->lanes_up = (unsigned)num(v);
			break;
		case APENET_MIB_LINK_LANES:
			l->lanes = (unsigned)num(v);
			break;
		case APENET_MIB_LINK_CRC_RATE:
			l->crc_per_min = (double)(unsigned long)num(v) / 1000;
			l->has_crc = 1;
			break;
		case APENET_MIB_LINK_SEVERITY:
			l->sev = (int)num(v);
			break;
		case APENET_MIB_LINK_CODE:
			str(v, l->code, sizeof(l->code));
			break;
		}
	} else if (t == APENET_MIB_T_SENSOR && k == 5) {
		struct ck_sensor *s = sensor_row(n, card, (unsigned)o[4]);
		if (!s)
			return;
		switch (c) {
		case APENET_MIB_SENSOR_NAME:
			str(v, s->name, sizeof(s->name));
			break;
		case APENET_MIB_SENSOR_UNIT:
			str(v, s->unit, sizeof(s->unit));
			break;
		case APENET_MIB_SENSOR_VALUE:
			s->value = (double)num(v) / 1000;
			s->has_value = v->type == ASN_INTEGER;
			break;
		case APENET_MIB_SENSOR_PRESENT:
			/* TruthValue: a sensor the board does not have reads 0 */
			s->absent = num(v) == 2;
			break;
		case APENET_MIB_SENSOR_HIGH_WARN:
			s->high_warn = limit(v);
			break;
		case APENET_MIB_SENSOR_HIGH_FAIL:
			s->high_fail = limit(v);
			break;
		case APENET_MIB_SENSOR_SEVERITY:
			s->sev = (int)num(v);
			break;
		}
	} else if (t == APENET_MIB_T_WATCHDOG && k == 4 && card == 1) {
		n->has_wd = 1;
		if (c == APENET_MIB_WATCHDOG_DNP_STATE)
			n->wd_dnp = (int)num(v);
		else if (c == APENET_MIB_WATCHDOG_HOST_STATE)
			n->wd_host = (int)num(v);
	}
}

static void sess_reason(void *sess, const char *peer, char *err, size_t errn)
{
	int cliberr = 0, snmperr = 0;
	char *msg = NULL;
	snmp_sess_error(sess, &cliberr, &snmperr, &msg);
	snprintf(err, errn, "%s: %s%s", peer, msg ? msg : "no answer",
		 snmperr == SNMPERR_TIMEOUT ? " (is snmpd running there, and the community right? -t for longer)" : "");
	free(msg);
}

/* Walks apenetObjects.T; -1 with the reason in err when the host does not
 * answer or refuses. */
static int walk(void *sess, const char *peer, int v1, unsigned t, struct ck_node *n, char *err, size_t errn)
{
	oid base[OBJECTS_LEN + 1], cur[MAX_OID_LEN];
	memcpy(base, objects, sizeof(objects));
	base[OBJECTS_LEN] = t;
	memcpy(cur, base, sizeof(base));
	size_t blen = OBJECTS_LEN + 1, clen = blen;
	for (unsigned guard = 0; guard < 10000; guard++) {
		netsnmp_pdu *req = snmp_pdu_create(v1 ? SNMP_MSG_GETNEXT : SNMP_MSG_GETBULK), *resp = NULL;
		if (!req) {
			snprintf(err, errn, "out of memory");
			return -1;
		}
		if (!v1) {
			req->non_repeaters = 0;
			req->max_repetitions = 30;
		}
		snmp_add_null_var(req, cur, clen);
		int st = snmp_sess_synch_response(sess, req, &resp);
		if (st != STAT_SUCCESS || !resp) {
			sess_reason(sess, peer, err, errn);
			if (resp)
				snmp_free_pdu(resp);
			return -1;
		}
		if (resp->errstat != SNMP_ERR_NOERROR) {
			/* SNMPv1 ends a walk at the end of the view with noSuchName */
			int end = v1 && resp->errstat == SNMP_ERR_NOSUCHNAME;
			if (!end)
				snprintf(err, errn, "%s: %s", peer, snmp_errstring((int)resp->errstat));
			snmp_free_pdu(resp);
			return end ? 0 : -1;
		}
		int done = !resp->variables;
		for (netsnmp_variable_list *v = resp->variables; v; v = v->next_variable) {
			if (v->type == SNMP_ENDOFMIBVIEW || v->type == SNMP_NOSUCHOBJECT || v->type == SNMP_NOSUCHINSTANCE ||
			    snmp_oidtree_compare(base, blen, v->name, v->name_length) ||
			    snmp_oid_compare(v->name, v->name_length, cur, clen) <= 0) {
				done = 1; /* past the table, or an agent that does not move on */
				break;
			}
			take(n, v);
			memcpy(cur, v->name, v->name_length * sizeof(oid));
			clen = v->name_length;
		}
		snmp_free_pdu(resp);
		if (done)
			return 0;
	}
	snprintf(err, errn, "%s: apenetObjects.%u never ends (over 10000 requests)", peer, t);
	return -1;
}

int ck_snmp_read(const struct ck_snmp_opts *o, struct ck_node *n, char *err, size_t errn)
{
	/* no configuration file, persistent state or MIB file of the host: the
	 * answer depends on the arguments only */
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	snmp_disable_log();
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS, "/dev/null");
	char mibs[] = "mibs :";
	netsnmp_config_remember(mibs);
	init_snmp("check_apenet");

	char peer[300];
	/* an IPv6 address goes in brackets before the port */
	if (strchr(o->host, ':') && o->host[0] != '[')
		snprintf(peer, sizeof(peer), "udp6:[%s]:%u", o->host, o->port);
	else
		snprintf(peer, sizeof(peer), "%s:%u", o->host, o->port);
	netsnmp_session s;
	snmp_sess_init(&s);
	s.version = o->v1 ? SNMP_VERSION_1 : SNMP_VERSION_2c;
	s.peername = peer;
	s.community = (u_char *)o->community;
	s.community_len = strlen(o->community);
	/* two tries a request; a walk is a handful of requests */
	s.retries = 1;
	s.timeout = (long)(o->timeout_s * 1e6 / 4);
	void *sess = snmp_sess_open(&s);
	int rc = 0;
	if (!sess) {
		/* net-snmp's own message adds errno's text, which for a name
		 * that does not resolve is "(Invalid argument)": its error code
		 * alone says it */
		char *msg = NULL;
		int cliberr = 0, snmperr = 0;
		snmp_error(&s, &cliberr, &snmperr, &msg);
		snprintf(err, errn, "%s: %s", peer, snmperr ? snmp_api_errstring(snmperr) : msg ? msg : "cannot open an SNMP session");
		free(msg);
		rc = -1;
	}
	static const unsigned tables[] = { APENET_MIB_T_CARD, APENET_MIB_T_LINK, APENET_MIB_T_SENSOR, APENET_MIB_T_WATCHDOG };
	static const char *const names[] = { "apenetCardTable", "apenetLinkTable", "apenetSensorTable", "apenetWatchdogTable" };
	for (unsigned i = 0; !rc && i < 4; i++) {
		unsigned had = i == 0 ? (unsigned)n->has_card : i == 1 ? n->nlinks : i == 2 ? n->nsensors : (unsigned)n->has_wd;
		if (walk(sess, peer, o->v1, tables[i], n, err, errn)) {
			rc = -1;
			break;
		}
		unsigned has = i == 0 ? (unsigned)n->has_card : i == 1 ? n->nlinks : i == 2 ? n->nsensors : (unsigned)n->has_wd;
		if (has == had) {
			snprintf(err, errn, "%s answers without %s (is apenet-agent connected to its snmpd through AgentX?)", peer,
				 names[i]);
			rc = -1;
		}
	}
	if (sess)
		snmp_sess_close(sess);
	snmp_shutdown("check_apenet");
	return rc;
}
