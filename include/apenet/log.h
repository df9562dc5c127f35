/*
 * The library's diagnostics: one hook instead of stderr.
 *
 * Library code never prints: what it has to say beside a returned error
 * (a libpci warning, an output dropped for lack of memory) goes through
 * apenet_log().  Where it ends up is the program's choice:
 *   - stderr, "apenet: " prefixed (the default: the CLI);
 *   - syslog, facility LOG_DAEMON (the node agent);
 *   - a callback (tests; a program with its own logger).
 * A threshold drops the less severe levels (default: notice and above).
 *
 * Set the sink and threshold before starting threads; apenet_log() itself
 * may be called from any thread (each message is formatted in a local buffer
 * and handed to the sink whole, so lines never interleave).
 */
#ifndef APENET_LOG_H
#define APENET_LOG_H

#include <stdarg.h>

/* The syslog priorities of the same name, so the syslog sink passes them on. */
enum apenet_log_level {
	APENET_LOG_ERR = 3,
	APENET_LOG_WARN = 4,
	APENET_LOG_NOTICE = 5,
	APENET_LOG_INFO = 6,
	APENET_LOG_DEBUG = 7,
};

/* Longer messages are cut (and end in "..."). */
#define APENET_LOG_MSG_MAX 1024

/* A caller's sink: level and the formatted message (no newline).  Every
 * sink gets the message escaped (apenet/esc.h's text form): a field from
 * outside never ends the line or carries a terminal escape. */
typedef void (*apenet_log_fn)(void *ctx, int level, const char *msg);

void apenet_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void apenet_vlog(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Whether a message at level would go anywhere (skip costly formatting). */
int apenet_log_enabled(int level);

/* Sinks; each replaces the previous one. */
void apenet_log_to_stderr(void);
/* openlog(ident, LOG_PID, LOG_DAEMON); ident is copied (NULL: "apenet"). */
void apenet_log_to_syslog(const char *ident);
void apenet_log_to_callback(apenet_log_fn fn, void *ctx);

/* Messages less severe than level are dropped. */
void apenet_log_set_level(int level);
int apenet_log_get_level(void);
/* "err", "warn", "notice", "info", "debug" and back (-1 when unknown). */
const char *apenet_log_level_name(int level);
int apenet_log_level_parse(const char *name);

#endif
