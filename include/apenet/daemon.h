/*
 * What apenet-agent and apenet-supervisor do alike as they start: the
 * command line (--help, --version, --foreground, --config FILE, and the
 * daemon's own options), the log (stderr, one line a message with the
 * program's name and pid, until the config is read; then syslog unless
 * --foreground, at the config's log_level), umask 027 (what a daemon
 * creates is its group's to read, never everyone's), the config itself,
 * and the signals it takes through a signalfd.
 *
 * These print what a daemon's start prints (the usage, the version, why
 * it cannot start) where the caller says, its stdout and stderr, and never
 * exit: the caller returns the status they give.
 *
 *     static struct apenet_daemon d = { .name = "apenet-agent", ... };
 *     d.out = stdout;
 *     d.err = stderr;
 *     if (apenet_daemon_start(&d, argc, argv, &cfg))
 *             return d.status;
 *     apenet_daemon_log(&d, &cfg);
 */
#ifndef APENET_DAEMON_H
#define APENET_DAEMON_H

#include <stdio.h>

#include "apenet/config.h"
#include "apenet/err.h"

/* One of the daemon's own options: one that takes a value, or a flag. */
struct apenet_daemon_opt {
	const char *name;        /* "--card" */
	const char *alias;       /* "--dev", or NULL */
	const char **val;        /* where the value goes */
	int *flag;               /* or, for a flag (val NULL), set to 1 */
	/* NULL when v is good, else what is wrong with it ("not a number
	 * 1..8"); NULL: every value is */
	const char *(*check)(const char *v);
};

struct apenet_daemon {
	/* the caller's */
	const char *name;        /* "apenet-agent": messages, the syslog ident */
	const char *usage;       /* --help's text */
	const char *version;     /* --version's line */
	const char *section;     /* the config section whose log_level it takes ("agent") */
	const struct apenet_daemon_opt *opts; /* ends with a NULL name; NULL: none */
	FILE *out;               /* --help and --version: the caller's stdout */
	FILE *err;               /* errors, and the log until apenet_daemon_log: its stderr */
	/* filled by apenet_daemon_start */
	int foreground;          /* --foreground, -f: the log stays on stderr */
	const char *config;      /* --config */
	const char *config_from; /* where the file was found (apenet_config_path) */
	char config_path[APENET_PATH_MAX]; /* the file read; "": the defaults */
	int status;              /* when it returns -1: the exit status (0 after --help or --version, else 2) */
};

/* Arguments, the log on stderr, the umask, and the config into cfg.  0:
 * go on; -1: the daemon stops with d->status.  The log writes through d
 * until apenet_daemon_log: d lives as long (a static in main). */
int apenet_daemon_start(struct apenet_daemon *d, int argc, char **argv, struct apenet_config *cfg);
/* Then the log where the config says: syslog unless --foreground, at the
 * section's log_level.  (Between the two, the log is still on stderr: the
 * agent's --replay runs there.) */
void apenet_daemon_log(const struct apenet_daemon *d, const struct apenet_config *cfg);

/* sigs (ending with 0) blocked and delivered to a non-blocking signalfd,
 * which is returned; SIGPIPE ignored (a peer that went away is a write
 * error, not a death).  -1 with e set. */
int apenet_daemon_signalfd(const int *sigs, struct apenet_err *e);

/* A daemon's start failed: logged ("what: why", or "why" when what is
 * ""), and the exit status 2 returned. */
int apenet_daemon_fail(const char *what, const struct apenet_err *e);

#endif
