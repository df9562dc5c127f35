/* Helpers every apenet command shares: options, the board view, config, verdicts. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/config.h"
#include "apenet/esc.h"
#include "apenet/log.h"
#include "apenet/verdict.h"
#include "apenet/sampler.h"
#include "apenet/snapfile.h"
#include "apenet/view.h"
#include "apenet/sweep.h"
#include "apenet/timeparse.h"
#include "cli.h"

int cli_take_repeated(struct cli *c, const char *cmd, const char *name, const char **vals, int max, int *n)
{
	size_t len = strlen(name);
	int keep = 0;
	*n = 0;
	for (int i = 0; i < c->argc; i++) {
		const char *a = c->argv[i];
		const char *v = NULL;
		if (!strncmp(a, name, len) && a[len] == '=') {
			v = a + len + 1;
		} else if (!strcmp(a, name)) {
			if (i + 1 >= c->argc)
				return cli_usage_error(cmd, "%s needs a value", name), -1;
			v = c->argv[++i];
		} else {
			c->argv[keep++] = c->argv[i];
			continue;
		}
		if (*n >= max)
			return cli_usage_error(cmd, "%s: at most %d", name, max), -1;
		vals[(*n)++] = v;
	}
	c->argc = keep;
	return 0;
}

int cli_parse(struct cli *c, const char *cmd, const struct cli_opt *opts, const char **pos, int maxpos, int *npos)
{
	*npos = 0;
	for (int i = 0; i < c->argc; i++) {
		const char *a = c->argv[i];
		if (a[0] == '-' && a[1] == '-') {
			const struct cli_opt *o = NULL;
			const char *eq = strchr(a, '=');
			size_t len = eq ? (size_t)(eq - a) : strlen(a);
			for (const struct cli_opt *p = opts; p && p->name; p++)
				if (strlen(p->name) == len && !strncmp(p->name, a, len))
					o = p;
			if (!o)
				return cli_usage_error(cmd, "unknown option '%s'", a), -1;
			if (o->flag) {
				if (eq)
					return cli_usage_error(cmd, "%s takes no value", o->name), -1;
				*o->flag = 1;
			} else if (eq) {
				*o->val = eq + 1;
			} else if (i + 1 < c->argc) {
				*o->val = c->argv[++i];
			} else {
				return cli_usage_error(cmd, "%s needs a value", o->name), -1;
			}
		} else if (*npos < maxpos) {
			pos[(*npos)++] = a;
		} else {
			return cli_usage_error(cmd, "unexpected argument '%s'", a), -1;
		}
	}
	return 0;
}

int cli_number(const char *cmd, const char *opt, const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < min || v > max)
		return cli_usage_error(cmd, "%s '%s' is not a number in %g..%g", opt, s, min, max), -1;
	*out = v;
	return 0;
}

/* --at: "-S" before the last sample, "+S" after the first (S seconds, or
 * a duration with its unit: -90s, -2m, +1h), or a time (cli_parse_time:
 * ISO 8601, epoch milliseconds as host_time_ms in the file, 30m ago, today). */
static int parse_at(const char *s, struct apenet_snapfile_pick *pk)
{
	if (s[0] == '-' || s[0] == '+') {
		if (apenet_duration_parse(s + 1, 1000, &pk->at_ms))
			return -1;
		pk->at = s[0] == '-' ? APENET_AT_FROM_END : APENET_AT_FROM_START;
		return 0;
	}
	if (cli_parse_time(s, &pk->at_ms))
		return -1;
	pk->at = APENET_AT_TIME;
	return 0;
}

int cli_view(struct cli *c, const char *from, double interval_s, int modules, struct apenet_view *v)
{
	struct apenet_err e = { 0 };
	if (c->at && !from) {
		fprintf(stderr, "apenet: --at picks a sample of a file: give --from FILE too\n");
		return CLI_EXIT_ERROR;
	}
	if (from) {
		struct apenet_snapfile_pick pk = { APENET_AT_LAST, 0, interval_s };
		if (c->at && parse_at(c->at, &pk)) {
			fprintf(stderr, "apenet: --at '%s' is not -SECONDS (before the last sample: -5, -90s, -2m), +SECONDS "
				"(after the first) or a time: %s\n", c->at, APENET_TIME_FORMS);
			return CLI_EXIT_ERROR;
		}
		return apenet_snapfile_load_pick(from, &pk, v, &e) ? cli_fail(&e) : 0;
	}
	static struct apenet_sample a, b; /* large: static */
	int rc = cli_sample_pair(c, interval_s, modules, &a, &b);
	if (rc)
		return rc;
	apenet_view_pair(v, &a, interval_s > 0 ? &b : &a);
	return 0;
}

int cli_sample_pair(struct cli *c, double interval_s, int modules, struct apenet_sample *a, struct apenet_sample *b)
{
	struct apenet_err e = { 0 };
	struct apenet_sampler s;
	unsigned flags = APENET_SAMPLE_PCIE | (modules ? APENET_SAMPLE_MODULES : 0);
	if (apenet_sampler_open(&s, c->sim, c->bdf, &e))
		return cli_fail(&e);
	int rc = apenet_sampler_take(&s, flags, a, &e);
	if (!rc && interval_s > 0) {
		/* a command waits; the sampler itself never does */
		struct timespec ts = { (time_t)interval_s, (long)((interval_s - (double)(time_t)interval_s) * 1e9) };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		rc = apenet_sampler_take(&s, APENET_SAMPLE_PCIE, b, &e);
	}
	apenet_sampler_close(&s);
	return rc ? cli_fail(&e) : 0;
}

int cli_config(const char *cmd, const char *path, struct apenet_config *cfg)
{
	struct apenet_err e = { 0 };
	const char *from;
	(void)cmd;
	if (apenet_config_load(apenet_config_path(path, &from), cfg, &e))
		return cli_fail(&e);
	return 0;
}

int cli_open_link(struct cli *c, const char *cmd, const char *link, struct apenet_dev *d, int *l)
{
	struct apenet_site site;
	int rc = cli_open(c, d, &site);
	*l = -1;
	if (rc || !link)
		return rc;
	if ((*l = cli_link_index(d->prof, link)) < 0) {
		apenet_dev_close(d);
		return cli_usage_error(cmd, "no link '%s' on a %s", link, d->prof->name);
	}
	return 0;
}

int cli_finish(struct apenet_out *o, const struct apenet_findings *fs)
{
	apenet_findings_write(o, fs);
	if (apenet_out_finish(o))
		return CLI_EXIT_ERROR;
	return cli_exit_sev(apenet_findings_worst(fs, NULL));
}

int cli_exit_sev(int sev)
{
	return sev == APENET_SEV_OK ? CLI_EXIT_OK : CLI_EXIT_FAULT;
}

int cli_input_error(const struct cli *c, const char *cmd, const char *code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	apenet_log(APENET_LOG_ERR, "%s", msg); /* "apenet: ...", escaped: it may quote a file or a database */
	if (c->fmt == APENET_OUT_JSON) {
		struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, stdout, cmd);
		apenet_out_obj_begin(o, "error");
		apenet_out_str(o, "code", code);
		apenet_out_str(o, "message", msg);
		apenet_out_obj_end(o);
		apenet_out_finish(o);
	}
	return CLI_EXIT_ERROR;
}

void cli_out_replay(struct apenet_out *o, const struct apenet_view *v)
{
	if (strcmp(v->source, "file"))
		return;
	apenet_out_obj_begin(o, "replay");
	apenet_out_uint(o, "samples", v->nsamples);
	apenet_out_uint(o, "s0", v->pair[0]);
	apenet_out_uint(o, "s1", v->pair[1]);
	apenet_out_int(o, "s0_host_time_ms", v->host_ms[0]);
	apenet_out_int(o, "s1_host_time_ms", v->host_ms[1]);
	apenet_out_dbl(o, "interval_s", apenet_view_dt(v), 3);
	apenet_out_obj_end(o);
}

int cli_parse_pattern(const char *s, enum apenet_prbs *p)
{
	static const struct {
		const char *name;
		enum apenet_prbs p;
	} pats[] = { { "prbs7", APENET_PRBS7 }, { "prbs15", APENET_PRBS15 }, { "prbs23", APENET_PRBS23 },
		     { "prbs31", APENET_PRBS31 } };
	for (unsigned i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
		if (!strcmp(s, pats[i].name)) {
			*p = pats[i].p;
			return 0;
		}
	return -1;
}

const char *cli_pattern_name(enum apenet_prbs p)
{
	static const char *const n[] = { "prbs7", "prbs15", "prbs23", "prbs31" };
	return (unsigned)p < 4 ? n[p] : "?";
}

/* "0,1,3" into a mask of lanes below max; -1 on anything else. */
int cli_parse_lanes(const char *s, unsigned max, uint32_t *mask)
{
	*mask = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);
		if (end == s || v < 0 || v >= (long)max || (*end && *end != ','))
			return -1;
		*mask |= 1u << v;
		s = *end ? end + 1 : end;
	}
	return *mask ? 0 : -1;
}

/* "vod,rxeq" into a mask of parameters; -1 naming the bad one in bad. */
int cli_parse_params(const char *s, unsigned *mask, char *bad, size_t n)
{
	*mask = 0;
	while (*s) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		char name[16];
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) - 1 ? len : sizeof(name) - 1), s);
		int p = apenet_sweep_param_parse(name);
		if (p < 0 || len >= sizeof(name)) {
			snprintf(bad, n, "%.*s", (int)len, s);
			return -1;
		}
		*mask |= 1u << p;
		s = c ? c + 1 : s + len;
	}
	return *mask ? 0 : -1;
}

int cli_db_path(const struct cli *c, const char *cmd, const char *db, const char *config, char *path, size_t n)
{
	struct apenet_config cfg;
	int rc = cli_config(cmd, config, &cfg);
	if (rc)
		return rc;
	char listen[256];
	struct apenet_err e = { 0 };
	if (db)
		snprintf(path, n, "%s", db);
	else if (apenet_config_instance(&cfg.svr, 1, listen, sizeof(listen), path, n, &e))
		rc = cli_input_error(c, cmd, "NO_DATABASE", "%s", e.msg);
	apenet_config_free(&cfg);
	return rc;
}

/* Signals of a long command that must put the card back on every way out. */
static const int catch_sigs[CLI_CATCH_N] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

void cli_catch_signals(void (*handler)(int), struct sigaction saved[CLI_CATCH_N])
{
	struct sigaction sa, ign;
	memset(&sa, 0, sizeof(sa));
	memset(&ign, 0, sizeof(ign));
	sa.sa_handler = handler;
	ign.sa_handler = SIG_IGN;
	for (int i = 0; i < CLI_CATCH_N; i++)
		sigaction(catch_sigs[i], catch_sigs[i] == SIGPIPE ? &ign : &sa, &saved[i]);
}

void cli_restore_signals(const struct sigaction saved[CLI_CATCH_N])
{
	for (int i = 0; i < CLI_CATCH_N; i++)
		sigaction(catch_sigs[i], &saved[i], NULL);
}

int cli_parse_time(const char *s, int64_t *out)
{
	return apenet_time_parse(s, apenet_clock_epoch_ms(), out);
}

/* ---- what every command uses: errors, the card, a link's name, coordinates ---- */

int cli_fail(const struct apenet_err *e)
{
	apenet_esc_text_line(stderr, "apenet", e->msg);
	return CLI_EXIT_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "apenet%s%s: ", cmd[0] ? " " : "", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see apenet %s%s--help)\n", cmd, cmd[0] ? " " : "");
	return CLI_EXIT_ERROR;
}

int cli_open(struct cli *c, struct apenet_dev *d, struct apenet_site *site)
{
	struct apenet_err e = { 0 };
	if (apenet_site_init(site, c->sim, &e) || apenet_dev_open(d, site, c->bdf, &e))
		return cli_fail(&e);
	return 0;
}

void cli_out_time(struct apenet_out *o, const char *key, int64_t ms)
{
	if (ms <= 0) {
		apenet_out_null(o, key);
		return;
	}
	char buf[40];
	apenet_out_str(o, key, apenet_out_iso_ms(ms, buf, sizeof(buf)));
}

void cli_out_xyz(struct apenet_out *o, const char *key, const unsigned xyz[3])
{
	char t[32];
	snprintf(t, sizeof(t), "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
	apenet_out_obj_begin_text(o, key, t);
	apenet_out_uint(o, "x", xyz[0]);
	apenet_out_uint(o, "y", xyz[1]);
	apenet_out_uint(o, "z", xyz[2]);
	apenet_out_obj_end(o);
}

void cli_out_coord(struct apenet_out *o, const char *key, uint32_t coord)
{
	unsigned xyz[3] = { APENET_GET(NODE_COORD, X, coord), APENET_GET(NODE_COORD, Y, coord),
			    APENET_GET(NODE_COORD, Z, coord) };
	cli_out_xyz(o, key, xyz);
}

int cli_link_index(const struct apenet_profile *p, const char *name)
{
	for (unsigned l = 0; l < p->nlinks; l++)
		if (!strcasecmp(p->links[l].name, name))
			return (int)l;
	if (name[0] >= '0' && name[0] <= '9' && !name[1] && (unsigned)(name[0] - '0') < p->nlinks)
		return name[0] - '0';
	return -1;
}
