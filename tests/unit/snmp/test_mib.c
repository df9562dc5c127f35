/*
 * The OID constants of include/apenet/mib.h against mibs/APENET-MIB.txt,
 * read by net-snmp's own snmptranslate (with the IETF base modules that
 * mk/mibs.sh puts in build/mibs): every name resolves to the number the
 * notifier sends, and each notification lists its objects in the order the
 * notifier puts them in the INFORM (test_e2e_notify checks that order on
 * the wire).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apenet/mib.h"

static char mibpath[2048];

static int setup(void **state)
{
	(void)state;
	const char *src = getenv("APENET_SRCDIR");
	if (!src || !*src)
		src = ".";
	snprintf(mibpath, sizeof(mibpath), "%s/build/mibs:/usr/share/snmp/mibs:%s/mibs", src, src);
	return 0;
}

static int have_tools(void)
{
	char probe[2200];
	snprintf(probe, sizeof(probe), "%s", mibpath);
	char *first = strtok(probe, ":");
	char smi[2300];
	snprintf(smi, sizeof(smi), "%s/SNMPv2-SMI.txt", first ? first : ".");
	if (system("command -v snmptranslate >/dev/null 2>&1") != 0 || access(smi, R_OK) != 0) {
		print_message("snmptranslate or %s missing: make test installs them (mk/deps.sh, mk/mibs.sh)\n", smi);
		return 0;
	}
	return 1;
}

/* snmptranslate's numeric OID for APENET-MIB::name: its first line that is
 * one; when none is, the first thing it said (a missing module, a name it cannot
 * resolve).  Other lines are not the answer: net-snmp's first run on a
 * machine says "Created directory: /var/lib/snmp/..." before it. */
static void translate(const char *name, char *out, size_t len)
{
	char cmd[4096], said[512] = "";
	snprintf(cmd, sizeof(cmd), "snmptranslate -M '%s' -m APENET-MIB -On 'APENET-MIB::%s' 2>&1", mibpath, name);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	out[0] = 0;
	char line[512];
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '.' && !out[0])
			snprintf(out, len, "%.400s", line);
		else if (line[0] && !said[0])
			snprintf(said, sizeof(said), "%.400s", line);
	}
	pclose(p);
	if (!out[0])
		snprintf(out, len, "no OID (%.400s)", said[0] ? said : "it said nothing");
}

static void oid_text(const unsigned long *o, size_t n, char *out, size_t len)
{
	size_t off = 0;
	out[0] = 0;
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(out + off, len - off, ".%lu", o[i]);
}

static void check(const char *name, const unsigned long *o, size_t n)
{
	char want[256], got[512];
	oid_text(o, n, want, sizeof(want));
	translate(name, got, sizeof(got));
	if (strcmp(want, got) != 0)
		fail_msg("%s: include/apenet/mib.h says %s, the MIB says %s", name, want, got);
}

static void test_module_and_arcs(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	static const unsigned long mib[] = { APENET_OID_MIB }, notes[] = { APENET_OID_NOTIFICATIONS },
				   objs[] = { APENET_OID_OBJECTS }, conf[] = { APENET_OID_CONFORMANCE },
				   ev[] = { APENET_OID_EVENT };
	assert_int_equal(sizeof(mib) / sizeof(mib[0]), APENET_OID_MIB_LEN);
	assert_int_equal(sizeof(ev) / sizeof(ev[0]), APENET_OID_EVENT_LEN);
	check("apenetMIB", mib, APENET_OID_MIB_LEN);
	check("apenetNotifications", notes, APENET_OID_MIB_LEN + 1);
	check("apenetObjects", objs, APENET_OID_MIB_LEN + 1);
	check("apenetConformance", conf, APENET_OID_MIB_LEN + 1);
	check("apenetEvent", ev, APENET_OID_EVENT_LEN);
	/* The module hangs off net-snmp's playpen until a number is assigned. */
	char got[512];
	translate("apenetMIB", got, sizeof(got));
	assert_int_equal(strncmp(got, ".1.3.6.1.4.1.8072.9999.9999.", 28), 0);
}

static void test_notifications(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
#define CHECK_NOTE(id, name, arc)                                                        \
	do {                                                                             \
		static const unsigned long o[] = { APENET_OID_NOTIFICATIONS, arc };      \
		check(name, o, sizeof(o) / sizeof(o[0]));                                \
	} while (0);
	APENET_MIB_NOTIFICATIONS(CHECK_NOTE)
#undef CHECK_NOTE
}

static void test_event_objects(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
#define CHECK_OBJ(id, name, arc)                                                 \
	do {                                                                     \
		static const unsigned long o[] = { APENET_OID_EVENT, arc };      \
		check(name, o, sizeof(o) / sizeof(o[0]));                        \
	} while (0);
	APENET_MIB_EVENT_OBJECTS(CHECK_OBJ)
#undef CHECK_OBJ
}

/* The node tables: every table and column of include/apenet/mib.h at the
 * OID the MIB gives it, and of the base type the agent serves it as
 * (snmptranslate -Tp names them: String, Counter64, Gauge, ...). */
static void tree_type(const char *name, char *type, size_t len)
{
	char cmd[4096], line[512];
	snprintf(cmd, sizeof(cmd), "snmptranslate -M '%s' -m APENET-MIB -Tp APENET-MIB::apenetObjects 2>/dev/null",
		 mibpath);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	type[0] = 0;
	while (fgets(line, sizeof(line), p)) {
		char *r = strstr(line, "-R-- ");
		char t[32], n[160];
		if (r && sscanf(r + 5, "%31s %159s", t, n) == 2 && !strncmp(n, name, strlen(name)) &&
		    n[strlen(name)] == '(')
			snprintf(type, len, "%s", t);
	}
	pclose(p);
}

static const char *smi_type_of(const char *t)
{
	if (!strcmp(t, "STRING"))
		return "String";
	if (!strcmp(t, "COUNTER64"))
		return "Counter64";
	if (!strcmp(t, "COUNTER"))
		return "Counter";
	if (!strcmp(t, "GAUGE"))
		return "Gauge";
	if (!strcmp(t, "UNSIGNED"))
		return "Unsigned";
	return "EnumVal|Integer32";
}

static void test_node_tables(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
#define CHECK_TABLE(id, name, arc)                                               \
	do {                                                                     \
		static const unsigned long o[] = { APENET_OID_OBJECTS, arc };    \
		check(name, o, sizeof(o) / sizeof(o[0]));                        \
	} while (0);
	APENET_MIB_TABLES(CHECK_TABLE)
#undef CHECK_TABLE
#define CHECK_COL(tab, col, name, arc, type)                                                       \
	do {                                                                                       \
		static const unsigned long o[] = { APENET_OID_OBJECTS, APENET_MIB_T_##tab, 1, arc }; \
		check(name, o, sizeof(o) / sizeof(o[0]));                                          \
		char t[32];                                                                        \
		tree_type(name, t, sizeof(t));                                                     \
		if (!t[0] || !strstr(smi_type_of(#type), t))                                       \
			fail_msg("%s: served as %s, the MIB says %s", name, #type, t[0] ? t : "nothing"); \
	} while (0);
	APENET_MIB_CARD_COLUMNS(CHECK_COL)
	APENET_MIB_LINK_COLUMNS(CHECK_COL)
	APENET_MIB_LANE_COLUMNS(CHECK_COL)
	APENET_MIB_SENSOR_COLUMNS(CHECK_COL)
	APENET_MIB_LDM_COLUMNS(CHECK_COL)
	APENET_MIB_WATCHDOG_COLUMNS(CHECK_COL)
	APENET_MIB_NODES_COLUMNS(CHECK_COL)
	APENET_MIB_INCIDENT_COLUMNS(CHECK_COL)
	APENET_MIB_CERT_COLUMNS(CHECK_COL)
	APENET_MIB_MODULE_COLUMNS(CHECK_COL)
#undef CHECK_COL
}

/* The OBJECTS clause of a notification, as the arcs under apenetEvent. */
static int objects_of(const char *note, int *arcs, int max)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "snmptranslate -M '%s' -m APENET-MIB -Td 'APENET-MIB::%s' 2>&1", mibpath, note);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	static char text[1 << 16];
	size_t n = fread(text, 1, sizeof(text) - 1, p);
	text[n] = 0;
	pclose(p);
	char *o = strstr(text, "OBJECTS");
	assert_non_null(o);
	char *end = strchr(o, '}');
	assert_non_null(end);
	*end = 0;
	int k = 0;
	for (char *tok = strtok(strchr(o, '{') + 1, " ,\t\n"); tok; tok = strtok(NULL, " ,\t\n")) {
		int arc = 0;
#define FIND(id, name, a) \
	if (!strcmp(tok, name)) \
		arc = a;
		APENET_MIB_EVENT_OBJECTS(FIND)
#undef FIND
		if (!arc)
			fail_msg("%s lists %s, which include/apenet/mib.h does not know", note, tok);
		if (k < max)
			arcs[k] = arc;
		k++;
	}
	return k;
}

static void test_notification_objects_in_the_notifiers_order(void **state)
{
	(void)state;
	if (!have_tools())
		skip();
	/* snmp/notify.c (apenet_notify_pdu) sends these, in this order. */
	int arcs[32];
	int n = objects_of("apenetHealthChange", arcs, 32);
	assert_int_equal(n, 18);
	for (int i = 0; i < 18; i++)
		assert_int_equal(arcs[i], i + 1);
	n = objects_of("apenetHeartbeat", arcs, 32);
	static const int hb[] = { APENET_MIB_NODE_X, APENET_MIB_NODE_Y, APENET_MIB_NODE_Z, APENET_MIB_NODE_NAME,
				  APENET_MIB_BOOT_ID, APENET_MIB_SEQUENCE, APENET_MIB_TIME, APENET_MIB_LDM_WORD,
				  APENET_MIB_LDM_SUMMARY };
	assert_int_equal(n, 9);
	for (int i = 0; i < 9; i++)
		assert_int_equal(arcs[i], hb[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_module_and_arcs),
		cmocka_unit_test(test_notifications),
		cmocka_unit_test(test_event_objects),
		cmocka_unit_test(test_node_tables),
		cmocka_unit_test(test_notification_objects_in_the_notifiers_order),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
