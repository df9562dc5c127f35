/*
 * An AgentX subagent inside a daemon's own poll loop (no second process,
 * no thread): net-snmp's agent library in subagent role, its session to
 * the master (the host's snmpd) polled beside the daemon's descriptors, its
 * timers (the ping that notices a restarted snmpd and reconnects) run from
 * the same loop.  apenet_agentx_want before apenet_snmp_init: the role has
 * to be chosen before net-snmp reads its configuration.
 *
 * The subagent's session is the only one on net-snmp's global session list
 * (the notifier's and the supervisor's are single sessions, snmp_sess_*),
 * so the classic snmp_select_info2 / snmp_read2 here see only it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "apenet/agentx.h"
#include "apenet/log.h"
#include "apenet/report_pdu.h"

/* The AgentX session to the master: net-snmp's agent library exports it
 * without declaring it in a header; NULL while not connected. */
extern netsnmp_session *main_session;

static struct {
	int want, started;
	char socket[256];
	unsigned ping_s;
	int was_connected;
	uint64_t connects, notifications, notify_errors;
} ax;

void apenet_agentx_want(const char *socket, unsigned ping_s)
{
	ax.want = 1;
	snprintf(ax.socket, sizeof(ax.socket), "%s", socket ? socket : "");
	ax.ping_s = ping_s;
}

/* Called by apenet_snmp_init, after its library settings and before
 * init_snmp: the subagent role, the master's socket, the ping, the agent
 * library. */
int apenet_agentx_prepare(struct apenet_err *e)
{
	if (!ax.want || ax.started)
		return 0;
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	if (ax.socket[0])
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, ax.socket);
	/* a subagent that cannot reach snmpd at start keeps trying (the ping's
	 * alarm) instead of giving up */
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_NO_CONNECTION_WARNINGS, 1);
	if (init_agent("apenet") != 0)
		return apenet_err_set(e, APENET_EIO, "net-snmp: init_agent failed (AgentX subagent)");
	/* after init_agent, which sets its own default (15 s): the ping, and
	 * the retry after a lost master, run at this interval */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL, (int)ax.ping_s);
	ax.started = 1;
	return 0;
}

int apenet_agentx_started(void)
{
	return ax.started;
}

int apenet_agentx_connected(void)
{
	return ax.started && main_session != NULL;
}

static void note_state(void)
{
	int c = apenet_agentx_connected();
	if (c != ax.was_connected) {
		if (c) {
			ax.connects++;
			apenet_log(APENET_LOG_NOTICE, "AgentX: connected to the master agent at %s",
				   ax.socket[0] ? ax.socket : "net-snmp's default socket");
		} else {
			apenet_log(APENET_LOG_WARN, "AgentX: lost the master agent; retrying every %u s", ax.ping_s);
		}
		ax.was_connected = c;
	}
}

int apenet_agentx_pollfds(struct pollfd *fds, int max, int *timeout_ms)
{
	if (!ax.started)
		return 0;
	netsnmp_large_fd_set set;
	int numfds = 0, block = 1, k = 0;
	struct timeval tv = { 0, 0 };
	netsnmp_large_fd_set_init(&set, FD_SETSIZE);
	NETSNMP_LARGE_FD_ZERO(&set);
	snmp_select_info2(&numfds, &set, &tv, &block);
	for (int fd = 0; fd < numfds && k < max; fd++)
		if (NETSNMP_LARGE_FD_ISSET(fd, &set))
			fds[k++] = (struct pollfd){ fd, POLLIN, 0 };
	netsnmp_large_fd_set_cleanup(&set);
	if (!block) {
		int64_t d = (int64_t)tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000;
		if (*timeout_ms < 0 || d < *timeout_ms)
			*timeout_ms = d > 0x7fffffff ? 0x7fffffff : (int)d;
	}
	return k;
}

void apenet_agentx_dispatch(const struct pollfd *fds, int n)
{
	if (!ax.started)
		return;
	netsnmp_large_fd_set ready;
	int any = 0;
	netsnmp_large_fd_set_init(&ready, FD_SETSIZE);
	NETSNMP_LARGE_FD_ZERO(&ready);
	for (int j = 0; fds && j < n; j++)
		if (fds[j].revents && fds[j].fd >= 0 && fds[j].fd < FD_SETSIZE) {
			NETSNMP_LARGE_FD_SET(fds[j].fd, &ready);
			any = 1;
		}
	if (any) {
		snmp_read2(&ready);
		/* A request crosses the agent library's internal callback
		 * transport (a pipe) twice before its answer goes back to snmpd:
		 * what became readable meanwhile is read now, not one poll turn
		 * later each (a few rounds at most: the loop has other work). */
		for (int round = 0; round < 8; round++) {
			int numfds = 0, block = 0;
			struct timeval tv = { 0, 0 }, zero = { 0, 0 };
			NETSNMP_LARGE_FD_ZERO(&ready);
			snmp_select_info2(&numfds, &ready, &tv, &block);
			if (numfds <= 0 || netsnmp_large_fd_set_select(numfds, &ready, NULL, NULL, &zero) <= 0)
				break;
			snmp_read2(&ready);
		}
	}
	snmp_timeout();
	netsnmp_large_fd_set_cleanup(&ready);
	run_alarms();
	netsnmp_check_outstanding_agent_requests();
	note_state();
}

int apenet_agentx_notify(const struct apenet_report *r, struct apenet_err *e)
{
	if (!apenet_agentx_connected())
		return apenet_err_set(e, APENET_EIO, "AgentX: not connected to the master agent");
	netsnmp_pdu *pdu = apenet_report_pdu(r, 0, e);
	if (!pdu)
		return -1;
	/* send_v2trap takes the varbinds from snmpTrapOID.0 on (sysUpTime.0 is
	 * the master's to add) */
	netsnmp_variable_list *v = pdu->variables;
	if (v && v->next_variable)
		v = v->next_variable;
	send_v2trap(v);
	snmp_free_pdu(pdu);
	ax.notifications++;
	return 0;
}

void apenet_agentx_stats(struct apenet_agentx_stats *st)
{
	st->started = ax.started;
	st->connected = apenet_agentx_connected();
	st->connects = ax.connects;
	st->notifications = ax.notifications;
	snprintf(st->socket, sizeof(st->socket), "%s", ax.socket);
	st->ping_s = ax.ping_s;
}

void apenet_agentx_shutdown(void)
{
	if (!ax.started)
		return;
	snmp_shutdown("apenet");
	ax.started = 0;
	ax.was_connected = 0;
}
