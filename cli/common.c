/* Helpers every apenet command shares: options, the board view, config, verdicts. */
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apenet/config.h"
#include "apenet/verdict.h"
#include "apenet/sampler.h"
#include "apenet/snapfile.h"
#include "apenet/view.h"
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

/* --at: "-S" seconds before the last sample, "+S" after the first, epoch
 * milliseconds (as host_time_ms in the file), or UTC "YYYY-MM-DDTHH:MM:SS[.mmm][Z]". */
static int parse_at(const char *s, struct apenet_snapfile_pick *pk)
{
	char *end;
	if (s[0] == '-' || s[0] == '+') {
		double v = strtod(s + 1, &end);
		if (!s[1] || *end || !isfinite(v) || v < 0)
			return -1;
		pk->at = s[0] == '-' ? APENET_AT_FROM_END : APENET_AT_FROM_START;
		pk->at_ms = (int64_t)llround(v * 1000);
		return 0;
	}
	if (strchr(s, 'T')) {
		struct tm tm;
		memset(&tm, 0, sizeof(tm));
		const char *r = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
		if (!r)
			return -1;
		double frac = 0;
		if (*r == '.') {
			frac = strtod(r, &end);
			r = end;
		}
		if (*r == 'Z')
			r++;
		if (*r)
			return -1;
		pk->at = APENET_AT_TIME;
		pk->at_ms = (int64_t)timegm(&tm) * 1000 + (int64_t)llround(frac * 1000);
		return 0;
	}
	errno = 0;
	long long ms = strtoll(s, &end, 10);
	if (!*s || *end || errno || ms < 0)
		return -1;
	pk->at = APENET_AT_TIME;
	pk->at_ms = ms;
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
			fprintf(stderr, "apenet: --at '%s' is not -SECONDS (before the last sample), +SECONDS (after the "
				"first), epoch milliseconds or YYYY-MM-DDTHH:MM:SS[.mmm]Z\n", c->at);
			return CLI_EXIT_ERROR;
		}
		return apenet_snapfile_load_pick(from, &pk, v, &e) ? cli_fail(&e) : 0;
	}
	static struct apenet_sample a, b; /* large: static */
	struct apenet_sampler s;
	unsigned flags = APENET_SAMPLE_PCIE | (modules ? APENET_SAMPLE_MODULES : 0);
	if (apenet_sampler_open(&s, c->sim, c->bdf, &e))
		return cli_fail(&e);
	int rc = apenet_sampler_take(&s, flags, &a, &e);
	if (!rc && interval_s > 0) {
		/* a command waits; the sampler itself never does */
		struct timespec ts = { (time_t)interval_s, (long)((interval_s - (double)(time_t)interval_s) * 1e9) };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		rc = apenet_sampler_take(&s, APENET_SAMPLE_PCIE, &b, &e);
	}
	apenet_sampler_close(&s);
	if (rc)
		return cli_fail(&e);
	apenet_view_pair(v, &a, interval_s > 0 ? &b : &a);
	return 0;
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
	fprintf(stderr, "apenet: %s\n", msg);
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
