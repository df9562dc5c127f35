/*
 * The node tables through net-snmp's own agent, in process: the agent
 * library as the daemon runs it (subagent role; here with no master to
 * reach), the tables of snmp/mibtab.c + snmp/mib_node.c registered on it,
 * and real GET / GETNEXT / GETBULK PDUs sent through the agent's internal
 * callback transport, the path a request from snmpd takes once the AgentX
 * layer has decoded it (snmp_synch_response runs both ends: one process,
 * one thread).  The values come from a view built here, so every number is
 * known: Counter64 past 2^32, lexicographic order of a whole walk,
 * noSuchInstance, and the cache: one fill per period however many
 * requests, none without a request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>
#include <net-snmp/library/snmpCallbackDomain.h>

/* The agent's end of its internal transport: exported by the agent
 * library, declared in no installed header. */
extern int callback_master_num;

#include "apenet/config.h"
#include "apenet/mib.h"
#include "apenet/mib_cluster.h"
#include "apenet/mib_node.h"
#include "apenet/regs.h"

static char dir[64];
static struct apenet_view view;
static struct apenet_config cfg;
static struct apenet_findings raised;
static struct apenet_mib mib;
static netsnmp_session *cli;
static unsigned fills;

#define TX0 0x123456789ull /* past 2^32 */

static char serials[APENET_MAX_LINKS][17];
static struct apenet_hdb_cert cert0;
static const struct apenet_hdb_cert *certs[APENET_MAX_LINKS];
static struct apenet_module_health mod0, mod1;
static const struct apenet_module_health *mods[APENET_MAX_LINKS];

static void refresh(struct apenet_mib *m, void *ctx)
{
	(void)ctx;
	fills++;
	struct apenet_mib_node_in in = { .v = &view, .cfg = &cfg, .raised = &raised, .now_ms = 1000, .periods = 7,
					 .serial = (const char (*)[17])serials, .cert = certs, .module = mods };
	apenet_mib_node_fill(m, &in);
}

static void make_view(void)
{
	memset(&view, 0, sizeof(view));
	view.prof = apenet_profile(APENET_V_APENETP);
	assert_non_null(view.prof);
	snprintf(view.bdf, sizeof(view.bdf), "0000:03:00.0");
	struct apenet_snapshot *s = &view.s1;
	s->prof = view.prof;
	s->nlinks = view.prof->nlinks;
	s->g.NODE_COORD = APENET_SET(NODE_COORD, X, 1) | APENET_SET(NODE_COORD, Y, 2) | APENET_SET(NODE_COORD, Z, 0);
	s->g.ID_FW_VERSION = 0x040302;
	s->g.SENS_FPGA_TEMP = 61500;
	s->g.SENS_VCORE = 900;
	s->g.SENS_VCORE_NOM = 900;
	s->g.SENS_V12 = 12000;
	s->g.LDM_OWN = 0x80000000u;
	s->g.WD_CTRL = 1;
	s->g.WD_PERIOD_US = 100000;
	for (unsigned l = 0; l < s->nlinks; l++) {
		struct apenet_snap_link *k = &s->link[l];
		k->LINK_STATE = APENET_SET(LINK_STATE, STATE, l == 1 ? APENET_LINK_DOWN : APENET_LINK_UP) |
				APENET_SET(LINK_STATE, LANES_UP, l == 1 ? 0 : 0xf) | APENET_SET(LINK_STATE, LANES_USED, 0xf);
		k->LINK_LANE_MBPS = 7000;
		k->LINK_TX_BYTES = TX0 + l;
		k->LINK_LDM_RX = 0x80000000u | (l == 2 ? (1u << 26) : 0);
		for (unsigned q = 0; q < 4; q++)
			k->lane[q].LANE_PMA_VOD = 10 * l + q;
	}
	view.s0 = view.s1;
	view.host_ms[0] = view.host_ms[1] = 900;
	/* X+'s cable is certified, X-'s known but not certified */
	snprintf(serials[0], sizeof(serials[0]), "APX0001");
	snprintf(serials[1], sizeof(serials[1]), "APX0002");
	memset(&cert0, 0, sizeof(cert0));
	snprintf(cert0.serial, sizeof(cert0.serial), "APX0001");
	snprintf(cert0.verdict, sizeof(cert0.verdict), "pass");
	cert0.upper = 3.3e-13;
	cert0.target = 1e-12;
	cert0.bits = 36277970623340ull;
	cert0.swept = 1;
	cert0.has_far = 1;
	cert0.far[0] = 2;
	snprintf(cert0.far_link, sizeof(cert0.far_link), "X-");
	cert0.finished_ms = 1795734958123;
	certs[0] = &cert0;
	/* X+'s module is optical with programmed thresholds; X-'s a copper
	 * cable (its RX power never reported); the others unknown */
	memset(&mod0, 0, sizeof(mod0));
	mod0.lanes = 4;
	struct apenet_module_mon *rx = &mod0.mon[APENET_MON_RX_POWER];
	rx->present = 1;
	static const double mw[4] = { 0.5, 0.4, 0.3, 0.2 };
	for (unsigned k = 0; k < 4; k++)
		rx->value[k] = mw[k];
	rx->thresh_ok = 1;
	rx->th = (struct apenet_module_thresh){ .high_alarm = 2.5, .low_alarm = 0.0398, .high_warn = 2,
						.low_warn = 0.1 };
	mod1 = mod0;
	mod1.copper = 1;
	mods[0] = &mod0;
	mods[1] = &mod1;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/apenet-mibtab-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char port[128], persist[96];
	snprintf(port, sizeof(port), "%s/no-master", dir);
	snprintf(persist, sizeof(persist), "%s/persist", dir);
	snmp_disable_log();
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_PERSISTENT_DIR, persist);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS, dir);
	/* a subagent whose master is not there: nothing listens, nothing retries */
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, port);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_NO_CONNECTION_WARNINGS, 1);
	assert_int_equal(init_agent("apenet-test"), 0);

	apenet_config_defaults(&cfg);
	apenet_findings_init(&raised);
	struct apenet_finding *f =
		apenet_finding_add(&raised, APENET_SEV_FAIL, APENET_SUBJ_LINK, 1, -1, "X-", "LINK_DOWN");
	(void)f;
	make_view();
	struct apenet_err e = { 0 };
	assert_int_equal(apenet_mib_node_init(&mib, view.prof, 1, &e), 0);
	mib.refresh = refresh;
	assert_int_equal(apenet_mib_register(&mib, &e), 0);

	char mibs[] = "mibs :"; /* no MIB files: the OIDs are numbers */
	netsnmp_config_remember(mibs);
	init_snmp("apenet-test");
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, 0);
	/* the agent's internal transport, as the AgentX layer uses it */
	cli = netsnmp_callback_open(callback_master_num, NULL, NULL, NULL);
	assert_non_null(cli);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	snmp_close(cli);
	apenet_mib_free(&mib);
	snmp_shutdown("apenet-test");
	apenet_findings_free(&raised);
	apenet_config_free(&cfg);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* One request; the response PDU (the caller frees it). */
static netsnmp_pdu *ask(int cmd, const oid *o, size_t n, int reps)
{
	netsnmp_pdu *req = snmp_pdu_create(cmd), *resp = NULL;
	req->version = SNMP_VERSION_2c;
	/* what the AgentX layer sets: snmpd already checked access */
	req->flags |= UCD_MSG_FLAG_ALWAYS_IN_VIEW;
	req->community = (u_char *)strdup("internal");
	req->community_len = strlen("internal");
	if (cmd == SNMP_MSG_GETBULK) {
		req->non_repeaters = 0;
		req->max_repetitions = reps;
	}
	snmp_add_null_var(req, o, n);
	int st = snmp_synch_response(cli, req, &resp);
	if (st != STAT_SUCCESS)
		print_message("synch: %s\n", snmp_api_errstring(cli->s_snmp_errno));
	assert_int_equal(st, STAT_SUCCESS);
	assert_non_null(resp);
	assert_int_equal(resp->errstat, SNMP_ERR_NOERROR);
	return resp;
}

#define OBJ(...) ((const oid[]){ APENET_OID_OBJECTS, __VA_ARGS__ })
#define OBJLEN(...) (APENET_OID_MIB_LEN + 1 + sizeof((const oid[]){ __VA_ARGS__ }) / sizeof(oid))

static void test_values(void **state)
{
	(void)state;
	apenet_mib_stale(&mib);
	netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(3, 1, APENET_MIB_LINK_TX_BYTES, 1, 1), OBJLEN(3, 1, 9, 1, 1), 0);
	assert_int_equal(r->variables->type, ASN_COUNTER64);
	uint64_t v = ((uint64_t)r->variables->val.counter64->high << 32) | r->variables->val.counter64->low;
	assert_true(v == TX0);
	snmp_free_pdu(r);
	/* the card's node, the link X-'s state and verdict, a lane's VOD */
	r = ask(SNMP_MSG_GET, OBJ(2, 1, APENET_MIB_CARD_NODE, 1), OBJLEN(2, 1, 5, 1), 0);
	assert_int_equal(r->variables->type, ASN_OCTET_STR);
	assert_int_equal(r->variables->val_len, 5);
	assert_memory_equal(r->variables->val.string, "1,2,0", 5);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(3, 1, APENET_MIB_LINK_STATE, 1, 2), OBJLEN(3, 1, 3, 1, 2), 0);
	assert_int_equal(*r->variables->val.integer, 1); /* down(1) */
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(3, 1, APENET_MIB_LINK_CODE, 1, 2), OBJLEN(3, 1, 24, 1, 2), 0);
	assert_memory_equal(r->variables->val.string, "LINK_DOWN", 9);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(4, 1, APENET_MIB_LANE_VOD, 1, 3, 2), OBJLEN(4, 1, 6, 1, 3, 2), 0);
	assert_int_equal(*r->variables->val.integer, 21); /* link 2 (index 3), lane 1 (index 2) */
	snmp_free_pdu(r);
	/* the word received on link index 2 has the host-expired bit: LDM row 4 */
	r = ask(SNMP_MSG_GET, OBJ(6, 1, APENET_MIB_LDM_HOST_EXPIRED, 1, 4), OBJLEN(6, 1, 6, 1, 4), 0);
	assert_int_equal(*r->variables->val.integer, 1); /* true */
	snmp_free_pdu(r);
	/* FPGA temperature in thousandths of a degree */
	r = ask(SNMP_MSG_GET, OBJ(5, 1, APENET_MIB_SENSOR_VALUE, 1, 1), OBJLEN(5, 1, 4, 1, 1), 0);
	assert_int_equal(*r->variables->val.integer, 61500);
	snmp_free_pdu(r);
}

/* apenetCertTable augments the link rows: X+'s certificate, X-'s none. */
static void test_certificates(void **state)
{
	(void)state;
	apenet_mib_stale(&mib);
	netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(APENET_MIB_T_CERT, 1, APENET_MIB_CERT_VERDICT, 1, 1), OBJLEN(10, 1, 2, 1, 1), 0);
	assert_int_equal(*r->variables->val.integer, 2); /* pass */
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(10, 1, APENET_MIB_CERT_UPPER, 1, 1), OBJLEN(10, 1, 3, 1, 1), 0);
	assert_int_equal(r->variables->val_len, 7);
	assert_memory_equal(r->variables->val.string, "3.3e-13", 7);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(10, 1, APENET_MIB_CERT_BITS, 1, 1), OBJLEN(10, 1, 5, 1, 1), 0);
	assert_true((((uint64_t)r->variables->val.counter64->high << 32) | r->variables->val.counter64->low) ==
		    36277970623340ull);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(10, 1, APENET_MIB_CERT_FAR_NODE, 1, 1), OBJLEN(10, 1, 9, 1, 1), 0);
	assert_memory_equal(r->variables->val.string, "2,0,0", 5);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(10, 1, APENET_MIB_CERT_TIME, 1, 1), OBJLEN(10, 1, 8, 1, 1), 0);
	assert_int_equal(*r->variables->val.integer, 1795734958);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(10, 1, APENET_MIB_CERT_SERIAL, 1, 2), OBJLEN(10, 1, 1, 1, 2), 0);
	assert_memory_equal(r->variables->val.string, "APX0002", 7);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(10, 1, APENET_MIB_CERT_VERDICT, 1, 2), OBJLEN(10, 1, 2, 1, 2), 0);
	assert_int_equal(*r->variables->val.integer, 1); /* none */
	snmp_free_pdu(r);
}

/* apenetModuleTable augments the lane rows: X+'s lanes' power and the
 * module's thresholds; nothing for X-'s copper cable or an unknown module. */
static void test_modules(void **state)
{
	(void)state;
	apenet_mib_stale(&mib);
	static const char *want[4] = { "0.5", "0.4", "0.3", "0.2" };
	for (unsigned k = 0; k < 4; k++) {
		netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(APENET_MIB_T_MODULE, 1, APENET_MIB_MODULE_RX_POWER, 1, 1, k + 1),
				     OBJLEN(11, 1, 1, 1, 1, 1), 0);
		assert_int_equal(r->variables->type, ASN_OCTET_STR);
		assert_int_equal(r->variables->val_len, strlen(want[k]));
		assert_memory_equal(r->variables->val.string, want[k], strlen(want[k]));
		snmp_free_pdu(r);
	}
	netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(11, 1, APENET_MIB_MODULE_RX_POWER_LOW_WARN, 1, 1, 4),
			     OBJLEN(11, 1, 2, 1, 1, 4), 0);
	assert_int_equal(r->variables->val_len, 3);
	assert_memory_equal(r->variables->val.string, "0.1", 3);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(11, 1, APENET_MIB_MODULE_RX_POWER_LOW_ALARM, 1, 1, 2), OBJLEN(11, 1, 3, 1, 1, 2), 0);
	assert_int_equal(r->variables->val_len, 6);
	assert_memory_equal(r->variables->val.string, "0.0398", 6);
	snmp_free_pdu(r);
	/* copper (X-, link 2), unknown (Y+, link 3): rows, empty values */
	r = ask(SNMP_MSG_GET, OBJ(11, 1, APENET_MIB_MODULE_RX_POWER, 1, 2, 1), OBJLEN(11, 1, 1, 1, 2, 1), 0);
	assert_int_equal(r->variables->type, ASN_OCTET_STR);
	assert_int_equal(r->variables->val_len, 0);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(11, 1, APENET_MIB_MODULE_RX_POWER_LOW_WARN, 1, 2, 1), OBJLEN(11, 1, 2, 1, 2, 1), 0);
	assert_int_equal(r->variables->val_len, 0);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(11, 1, APENET_MIB_MODULE_RX_POWER, 1, 3, 4), OBJLEN(11, 1, 1, 1, 3, 4), 0);
	assert_int_equal(r->variables->val_len, 0);
	snmp_free_pdu(r);
}

static void test_missing_rows(void **state)
{
	(void)state;
	netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(3, 1, APENET_MIB_LINK_NAME, 1, 99), OBJLEN(3, 1, 2, 1, 99), 0);
	assert_int_equal(r->variables->type, SNMP_NOSUCHINSTANCE);
	snmp_free_pdu(r);
	r = ask(SNMP_MSG_GET, OBJ(3, 1, APENET_MIB_LINK_NAME, 2, 1), OBJLEN(3, 1, 2, 2, 1), 0);
	assert_int_equal(r->variables->type, SNMP_NOSUCHINSTANCE);
	snmp_free_pdu(r);
}

/* A GETNEXT walk of apenetObjects: strictly increasing, every row and
 * column once, then out of the subtree. */
static void test_walk_order(void **state)
{
	(void)state;
	oid cur[MAX_OID_LEN], base[] = { APENET_OID_OBJECTS };
	size_t n = sizeof(base) / sizeof(base[0]), baselen = n, count = 0;
	memcpy(cur, base, sizeof(base));
	for (;;) {
		netsnmp_pdu *r = ask(SNMP_MSG_GETNEXT, cur, n, 0);
		netsnmp_variable_list *v = r->variables;
		if (v->type == SNMP_ENDOFMIBVIEW || snmp_oidtree_compare(base, baselen, v->name, v->name_length) != 0) {
			snmp_free_pdu(r);
			break;
		}
		assert_true(snmp_oid_compare(v->name, v->name_length, cur, n) > 0);
		memcpy(cur, v->name, v->name_length * sizeof(oid));
		n = v->name_length;
		count++;
		snmp_free_pdu(r);
	}
	unsigned nl = view.prof->nlinks;
	size_t want = 12 + nl * 25 + (size_t)nl * 4 * 10 + 8 * 9 + (nl + 1) * 20 + 8 + nl * 10 + (size_t)nl * 4 * 3;
	assert_int_equal(count, want);
}

/* GETBULK returns the same sequence as GETNEXT. */
static void test_bulk(void **state)
{
	(void)state;
	netsnmp_pdu *r = ask(SNMP_MSG_GETBULK, OBJ(3), OBJLEN(3), 10);
	int k = 0;
	for (netsnmp_variable_list *v = r->variables; v; v = v->next_variable, k++) {
		/* apenetLinkName of links 1..6, then apenetLinkState of links 1.. */
		oid col = v->name[APENET_OID_MIB_LEN + 3], row = v->name[v->name_length - 1];
		assert_int_equal(col, k < 6 ? 2 : 3);
		assert_int_equal(row, (oid)(k % 6 + 1));
	}
	assert_int_equal(k, 10);
	snmp_free_pdu(r);
}

/* One fill per stale mark, however many requests; none without one. */
static void test_cache(void **state)
{
	(void)state;
	apenet_mib_stale(&mib);
	unsigned f0 = fills;
	for (int i = 0; i < 5; i++)
		snmp_free_pdu(ask(SNMP_MSG_GET, OBJ(3, 1, 2, 1, 1), OBJLEN(3, 1, 2, 1, 1), 0));
	assert_int_equal(fills, f0 + 1);
	/* new values show after the next period's mark, not before */
	view.s1.link[0].LINK_TX_BYTES = TX0 + 1000;
	netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(3, 1, 9, 1, 1), OBJLEN(3, 1, 9, 1, 1), 0);
	assert_true(r->variables->val.counter64->low == (u_long)(TX0 & 0xffffffffu));
	snmp_free_pdu(r);
	apenet_mib_stale(&mib);
	assert_int_equal(fills, f0 + 1);
	r = ask(SNMP_MSG_GET, OBJ(3, 1, 9, 1, 1), OBJLEN(3, 1, 9, 1, 1), 0);
	assert_true(r->variables->val.counter64->low == (u_long)((TX0 + 1000) & 0xffffffffu));
	snmp_free_pdu(r);
	assert_int_equal(fills, f0 + 2);
	view.s1.link[0].LINK_TX_BYTES = TX0;
}

/* Rows that come and go: the supervisor's node table over a real health
 * database; the layout grows from 2 to 3 nodes and the next request after
 * the stale mark sees 3 rows, in index order. */
static struct apenet_hdb *cdb;
static void cluster_refresh(struct apenet_mib *m, void *ctx)
{
	(void)ctx;
	struct apenet_err e = { 0 };
	struct apenet_mib_cluster_in in = { .db = cdb, .now_ms = 1000000, .silence_ms = 3500 };
	assert_int_equal(apenet_mib_cluster_fill(m, &in, &e), 0);
}

static size_t count_rows(oid col)
{
	oid cur[MAX_OID_LEN], base[] = { APENET_OID_OBJECTS, APENET_MIB_T_NODES, 1, 0 };
	size_t blen = sizeof(base) / sizeof(base[0]), n = blen, count = 0;
	base[blen - 1] = col;
	memcpy(cur, base, sizeof(base));
	for (;;) {
		netsnmp_pdu *r = ask(SNMP_MSG_GETNEXT, cur, n, 0);
		netsnmp_variable_list *v = r->variables;
		if (v->type == SNMP_ENDOFMIBVIEW || snmp_oidtree_compare(base, blen, v->name, v->name_length) != 0) {
			snmp_free_pdu(r);
			return count;
		}
		assert_true(snmp_oid_compare(v->name, v->name_length, cur, n) > 0);
		memcpy(cur, v->name, v->name_length * sizeof(oid));
		n = v->name_length;
		count++;
		snmp_free_pdu(r);
	}
}

static void test_dynamic_rows(void **state)
{
	(void)state;
	char path[128];
	struct apenet_err e = { 0 };
	snprintf(path, sizeof(path), "%s/h.db", dir);
	assert_int_equal(apenet_hdb_open(path, APENET_HDB_CREATE, &cdb, &e), 0);
	unsigned d2[3] = { 2, 1, 1 }, d3[3] = { 3, 1, 1 };
	assert_int_equal(apenet_hdb_layout(cdb, d2, NULL, NULL, &e), 0);
	struct apenet_mib cm = { 0 };
	assert_int_equal(apenet_mib_cluster_init(&cm, &e), 0);
	cm.refresh = cluster_refresh;
	assert_int_equal(apenet_mib_register(&cm, &e), 0);
	assert_int_equal(count_rows(APENET_MIB_NODES_NAME), 2);
	/* a node never heard is silent(4) */
	netsnmp_pdu *r = ask(SNMP_MSG_GET, OBJ(APENET_MIB_T_NODES, 1, APENET_MIB_NODES_CLASS, 1, 0, 0),
			     OBJLEN(8, 1, 5, 1, 0, 0), 0);
	assert_int_equal(*r->variables->val.integer, 4);
	snmp_free_pdu(r);
	assert_int_equal(apenet_hdb_layout(cdb, d3, NULL, NULL, &e), 0);
	assert_int_equal(count_rows(APENET_MIB_NODES_NAME), 2); /* not stale yet: the cache */
	apenet_mib_stale(&cm);
	assert_int_equal(count_rows(APENET_MIB_NODES_NAME), 3);
	r = ask(SNMP_MSG_GET, OBJ(8, 1, 5, 2, 0, 0), OBJLEN(8, 1, 5, 2, 0, 0), 0);
	assert_int_equal(*r->variables->val.integer, 4);
	snmp_free_pdu(r);
	apenet_mib_free(&cm);
	apenet_hdb_close(cdb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_certificates),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_missing_rows),
		cmocka_unit_test(test_walk_order),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_dynamic_rows),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
