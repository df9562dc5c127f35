/* The daemons' shared start (include/apenet/daemon.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/daemon.h"
#include "apenet/log.h"

/* --foreground, and until the config says where: one line a message on
 * the caller's stderr, with the program's name, pid and level. */
static void to_err(void *ctx, int level, const char *msg)
{
	const struct apenet_daemon *d = ctx;
	fprintf(d->err, "%s[%ld]: %s: %s\n", d->name, (long)getpid(), apenet_log_level_name(level), msg);
}

static const struct apenet_daemon_opt *find_opt(const struct apenet_daemon *d, const char *s)
{
	for (const struct apenet_daemon_opt *o = d->opts; o && o->name; o++)
		if (!strcmp(s, o->name) || (o->alias && !strcmp(s, o->alias)))
			return o;
	return NULL;
}

/* 0: go on; 1: done (--help, --version), status 0; -1: bad, status 2. */
static int args(struct apenet_daemon *d, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		const struct apenet_daemon_opt *o = NULL;
		const char **val;
		if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
			fputs(d->usage, d->out);
			return 1;
		} else if (!strcmp(s, "--version")) {
			fprintf(d->out, "%s\n", d->version);
			return 1;
		} else if (!strcmp(s, "--foreground") || !strcmp(s, "-f")) {
			d->foreground = 1;
			continue;
		} else if (!strcmp(s, "--config")) {
			val = &d->config;
		} else if ((o = find_opt(d, s)) && !o->val) {
			*o->flag = 1;
			continue;
		} else if (o) {
			val = o->val;
		} else {
			fprintf(d->err, "%s: unknown argument '%s'\n", d->name, s);
			fputs(d->usage, d->err);
			return -1;
		}
		if (i + 1 >= argc) {
			fprintf(d->err, "%s: %s needs a value\n", d->name, s);
			return -1;
		}
		*val = argv[++i];
		const char *why = o && o->check ? o->check(*val) : NULL;
		if (why) {
			fprintf(d->err, "%s: %s '%s': %s\n", d->name, s, *val, why);
			return -1;
		}
	}
	return 0;
}

int apenet_daemon_start(struct apenet_daemon *d, int argc, char **argv, struct apenet_config *cfg)
{
	struct apenet_err e = { 0 };
	int rc = args(d, argc, argv);
	if (rc) {
		d->status = rc > 0 ? 0 : 2;
		return -1;
	}
	apenet_log_to_callback(to_err, d); /* until the config says where */
	/* what a daemon creates (its database, spool, events, sockets, black
	 * boxes, net-snmp's files) is readable by its group (apenet), never
	 * by everyone */
	umask(027);
	const char *path = apenet_config_path(d->config, &d->config_from);
	if (apenet_config_load(path, cfg, &e)) {
		apenet_log(APENET_LOG_ERR, "%s", e.msg);
		d->status = 2;
		return -1;
	}
	snprintf(d->config_path, sizeof(d->config_path), "%s", path ? path : "");
	return 0;
}

void apenet_daemon_log(const struct apenet_daemon *d, const struct apenet_config *cfg)
{
	if (!d->foreground)
		apenet_log_to_syslog(d->name);
	const struct apenet_config_table *t = apenet_config_table_find(d->section);
	const struct apenet_config_desc *level = apenet_config_desc_find(t, "log_level");
	if (level)
		apenet_log_set_level(apenet_log_level_parse(apenet_config_str(apenet_config_section(cfg, t), level)));
}

int apenet_daemon_signalfd(const int *sigs, struct apenet_err *e)
{
	sigset_t set;
	int fd;
	sigemptyset(&set);
	for (; *sigs; sigs++)
		sigaddset(&set, *sigs);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL) || (fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		return apenet_err_set(e, APENET_EIO, "signalfd: %s", strerror(errno));
	return fd;
}

int apenet_daemon_fail(const char *what, const struct apenet_err *e)
{
	apenet_log(APENET_LOG_ERR, "%s%s%s", what, what[0] ? ": " : "", e->msg);
	return 2;
}
