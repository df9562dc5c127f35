/*
 * A daemon's AgentX subagent (snmp/agentx.c): the tables it registers
 * (include/apenet/mibtab.h) served through the host's snmpd, from the
 * daemon's own poll loop.  Order: apenet_agentx_want, apenet_snmp_init
 * (which starts the agent library in subagent role), register tables;
 * then every loop turn apenet_agentx_pollfds before poll and
 * apenet_agentx_dispatch after it.
 */
#ifndef APENET_AGENTX_H
#define APENET_AGENTX_H

#include <poll.h>
#include <stdint.h>

#include "apenet/err.h"
#include "apenet/notify.h"

/* socket: the master's AgentX socket ("" : net-snmp's default,
 * /var/agentx/master); ping_s: how often the subagent checks the master is
 * there and reconnects when it is not. */
void apenet_agentx_want(const char *socket, unsigned ping_s);
int apenet_agentx_prepare(struct apenet_err *e); /* apenet_snmp_init's */
int apenet_agentx_started(void);
int apenet_agentx_connected(void);
/* The session's descriptors appended at fds (at most max), the count;
 * lowers *timeout_ms to its next timer (-1: none yet). */
int apenet_agentx_pollfds(struct pollfd *fds, int max, int *timeout_ms);
/* Reads what poll found on them, runs due timers and the requests waiting. */
void apenet_agentx_dispatch(const struct pollfd *fds, int n);
/* A report as a notification through the master to its trap sinks. */
int apenet_agentx_notify(const struct apenet_report *r, struct apenet_err *e);

struct apenet_agentx_stats {
	int started, connected;
	uint64_t connects, notifications;
	char socket[256];
	unsigned ping_s;
};
void apenet_agentx_stats(struct apenet_agentx_stats *st);
void apenet_agentx_shutdown(void);

#endif
