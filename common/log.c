/* The library's log hook (include/apenet/log.h). */
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "apenet/esc.h"
#include "apenet/log.h"

_Static_assert(APENET_LOG_ERR == LOG_ERR && APENET_LOG_WARN == LOG_WARNING && APENET_LOG_NOTICE == LOG_NOTICE &&
		       APENET_LOG_INFO == LOG_INFO && APENET_LOG_DEBUG == LOG_DEBUG,
	       "the levels are syslog's priorities");

enum sink { SINK_STDERR, SINK_SYSLOG, SINK_CALLBACK };

static enum sink sink = SINK_STDERR;
static apenet_log_fn sink_fn;
static void *sink_ctx;
/* openlog() keeps the pointer it is given, so the ident lives here. */
static char syslog_ident[64];
/* Atomic: a daemon may lower it from a signal handler or another thread. */
static _Atomic int threshold = APENET_LOG_NOTICE;

static const char *const names[] = {
	[APENET_LOG_ERR] = "err",   [APENET_LOG_WARN] = "warn",   [APENET_LOG_NOTICE] = "notice",
	[APENET_LOG_INFO] = "info", [APENET_LOG_DEBUG] = "debug",
};

static int clamp(int level)
{
	return level < APENET_LOG_ERR ? APENET_LOG_ERR : level > APENET_LOG_DEBUG ? APENET_LOG_DEBUG : level;
}

const char *apenet_log_level_name(int level)
{
	return names[clamp(level)];
}

int apenet_log_level_parse(const char *name)
{
	for (int l = APENET_LOG_ERR; l <= APENET_LOG_DEBUG; l++)
		if (name && !strcmp(name, names[l]))
			return l;
	return -1;
}

void apenet_log_set_level(int level)
{
	threshold = clamp(level);
}

int apenet_log_get_level(void)
{
	return threshold;
}

int apenet_log_enabled(int level)
{
	return clamp(level) <= threshold;
}

static void leave_syslog(void)
{
	if (sink == SINK_SYSLOG)
		closelog();
}

void apenet_log_to_stderr(void)
{
	leave_syslog();
	sink = SINK_STDERR;
}

void apenet_log_to_syslog(const char *ident)
{
	leave_syslog();
	snprintf(syslog_ident, sizeof(syslog_ident), "%s", ident && *ident ? ident : "apenet");
	openlog(syslog_ident, LOG_PID, LOG_DAEMON);
	sink = SINK_SYSLOG;
}

void apenet_log_to_callback(apenet_log_fn fn, void *ctx)
{
	if (!fn) {
		apenet_log_to_stderr();
		return;
	}
	leave_syslog();
	sink_fn = fn;
	sink_ctx = ctx;
	sink = SINK_CALLBACK;
}

void apenet_vlog(int level, const char *fmt, va_list ap)
{
	level = clamp(level);
	if (level > threshold)
		return;
	char raw[APENET_LOG_MSG_MAX], msg[APENET_LOG_MSG_MAX];
	int n = vsnprintf(raw, sizeof(raw), fmt, ap);
	if (n < 0)
		snprintf(raw, sizeof(raw), "(unformattable message: %s)", fmt);
	/* A message carries fields from outside (a report's boot id, evidence,
	 * a file's name): escaped whole (apenet/esc.h), so none ends the line or
	 * reaches a terminal as control; the daemon's own words have no
	 * control bytes to lose. */
	size_t room = sizeof(msg) - 3; /* and "..." when it is cut */
	if (apenet_esc_text(msg, room, raw) >= room || (n > 0 && (size_t)n >= sizeof(raw)))
		strcat(msg, "...");
	switch (sink) {
	case SINK_SYSLOG:
		syslog(level, "%s", msg);
		break;
	case SINK_CALLBACK:
		sink_fn(sink_ctx, level, msg);
		break;
	default:
		/* One call per line: stdio locks the stream, so threads' lines stay whole.
		 * Errors read like the CLI's own ("apenet: what went wrong"). */
		if (level == APENET_LOG_ERR)
			fprintf(stderr, "apenet: %s\n", msg);
		else
			fprintf(stderr, "apenet: %s: %s\n", level == APENET_LOG_WARN ? "warning" : names[level], msg);
	}
}

void apenet_log(int level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	apenet_vlog(level, fmt, ap);
	va_end(ap);
}
