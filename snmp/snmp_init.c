/*
 * net-snmp, once per process (apenet_snmp_init): its settings, its state
 * directory, and its log into ours through a token bucket.  Every user of
 * net-snmp in the house (the notifier, the supervisor's receiver, the
 * AgentX subagent) starts it here, before anything else of it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

#include "apenet/agentx.h"
#include "apenet/clock.h"
#include "apenet/log.h"
#include "apenet/notify.h"

/* ---- net-snmp, once per process --------------------------------------- */

static int apenet_snmp_ready;
static char apenet_snmp_line[APENET_LOG_MSG_MAX];
static size_t apenet_snmp_line_len;

/* net-snmp logs one line for every malformed packet it reads: a receiver
 * that anyone can send to would let anyone fill its log (make soak-storm: a
 * million mutated INFORMs made 17,000 lines).  Its lines pass a token
 * bucket, 10 at once and one a second after, and how many were held back
 * is said with the next one that passes. */
#define APENET_SNMP_LOG_BURST 10.0
static double apenet_snmp_log_tokens = APENET_SNMP_LOG_BURST;
static int64_t apenet_snmp_log_last_ms;
static unsigned long apenet_snmp_log_held;

static void apenet_snmp_log_line(int level, const char *line)
{
	int64_t now = apenet_clock_mono_ms();
	apenet_snmp_log_tokens += (double)(now - apenet_snmp_log_last_ms) / 1000;
	if (apenet_snmp_log_tokens > APENET_SNMP_LOG_BURST)
		apenet_snmp_log_tokens = APENET_SNMP_LOG_BURST;
	apenet_snmp_log_last_ms = now;
	if (apenet_snmp_log_tokens < 1) {
		apenet_snmp_log_held++;
		return;
	}
	apenet_snmp_log_tokens -= 1;
	if (apenet_snmp_log_held)
		apenet_log(APENET_LOG_WARN, "net-snmp: %lu more messages not logged (at most one a second)",
			   apenet_snmp_log_held);
	apenet_snmp_log_held = 0;
	apenet_log(level, "net-snmp: %s", line);
}

/* net-snmp logs through snmp_log(), sometimes one line in several calls:
 * pieces are gathered up to the newline, then handed to apenet_log whole. */
static int apenet_snmp_log_cb(int major, int minor, void *serverarg, void *clientarg)
{
	(void)major;
	(void)minor;
	(void)clientarg;
	const struct snmp_log_message *m = serverarg;
	if (!m || !m->msg)
		return 0;
	int level = m->priority <= LOG_ERR ? APENET_LOG_ERR : m->priority;
	for (const char *p = m->msg; *p; p++) {
		if (*p == '\n' || apenet_snmp_line_len + 1 >= sizeof(apenet_snmp_line)) {
			apenet_snmp_line[apenet_snmp_line_len] = 0;
			if (apenet_snmp_line_len)
				apenet_snmp_log_line(level, apenet_snmp_line);
			apenet_snmp_line_len = 0;
			if (*p == '\n')
				continue;
		}
		apenet_snmp_line[apenet_snmp_line_len++] = *p;
	}
	return 0;
}

int apenet_snmp_init(const char *dir, struct apenet_err *e)
{
	if (apenet_snmp_ready)
		return 0;
	if (!dir || !*dir)
		return apenet_err_set(e, APENET_EINVAL, "net-snmp: no directory for its state");
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return apenet_err_set(e, APENET_EIO, "net-snmp: cannot create its state directory %s: %s", dir,
				      strerror(errno));
	/* Its log into ours, before anything can log. */
	snmp_disable_log();
	if (!netsnmp_register_loghandler(NETSNMP_LOGHANDLER_CALLBACK, LOG_DEBUG))
		return apenet_err_set(e, APENET_EIO, "net-snmp: cannot register a log handler");
	snmp_register_callback(SNMP_CALLBACK_LIBRARY, SNMP_CALLBACK_LOGGING, apenet_snmp_log_cb, NULL);
	/* Nothing from the machine's snmp.conf or ~/.snmp: the config is ours. */
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_NO_TOKEN_WARNINGS, 1);
	/* Timers run from our poll loop (run_alarms), never from SIGALRM. */
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	/* It keeps indexes in its persistent directory even when told to
	 * persist nothing: give it ours, not /var/lib/snmp. */
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_PERSISTENT_DIR, dir);
	/* No MIB files: the OIDs are constants (include/apenet/mib.h).  The
	 * MIB directory is the state directory, which holds none, and a
	 * module it cannot find is no error worth a line. */
	netsnmp_ds_set_string(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIBDIRS, dir);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIB_ERRORS, 0);
	netsnmp_ds_set_int(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_MIB_WARNINGS, 0);
	/* The "mibs" directive with an empty list, as in a snmp.conf: the
	 * default modules are not even looked for. */
	char mibs[] = "mibs :";
	netsnmp_config_remember(mibs);
	/* an AgentX subagent, when the daemon asked for one (snmp/agentx.c):
	 * its role is set before init_snmp reads the configuration */
	if (apenet_agentx_prepare(e))
		return -1;
	init_snmp("apenet");
	apenet_snmp_ready = 1;
	return 0;
}

int apenet_snmp_started(void)
{
	return apenet_snmp_ready;
}
