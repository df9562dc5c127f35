/* The progress line of the long commands (ber, sweep, qualify,
 * latency-check): one line on stderr, rewritten in place, only when stderr
 * is a terminal and the output is not --json (a script or a log gets
 * nothing: the result on stdout is the record).  Done %, elapsed, and an
 * ETA that never goes past the --max-time the run was given. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/dev.h"
#include "apenet/timeparse.h"
#include "cli.h"

void cli_progress_init(struct cli_progress *p, const struct cli *c, const char *cmd, double max_s)
{
	memset(p, 0, sizeof(*p));
	p->on = c->fmt != APENET_OUT_JSON && isatty(2);
	p->cmd = cmd;
	p->max_s = max_s;
	p->t0_ms = apenet_clock_mono_ms();
	p->last_ms = p->t0_ms - 1000000;
}

double cli_progress_elapsed(const struct cli_progress *p)
{
	return (double)(apenet_clock_mono_ms() - p->t0_ms) / 1000.0;
}

void cli_progress_step(struct cli_progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->step, sizeof(p->step), fmt, ap);
	va_end(ap);
	p->last_ms = p->t0_ms - 1000000; /* a new step shows at once */
	cli_progress_show(p, -1, -1, "%s", "");
}

const char *cli_progress_dur(double s, char *buf, size_t n)
{
	return apenet_duration_str(s, buf, n);
}

void cli_progress_show(struct cli_progress *p, double frac, double eta_s, const char *fmt, ...)
{
	if (!p->on)
		return;
	int64_t now = apenet_clock_mono_ms();
	if (now - p->last_ms < 250)
		return;
	p->last_ms = now;
	double el = (double)(now - p->t0_ms) / 1000.0;
	/* the run ends at --max-time whatever the counters say */
	if (p->max_s > 0 && eta_s >= 0 && el + eta_s > p->max_s)
		eta_s = p->max_s > el ? p->max_s - el : 0;
	char detail[160], e1[24], e2[24], pct[16] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (frac >= 0)
		snprintf(pct, sizeof(pct), "%3.0f%% ", fmin(frac, 1) * 100);
	fprintf(stderr, "\r\033[K%s: %s%s%selapsed %s", p->cmd, p->step, p->step[0] ? ": " : "", pct,
		cli_progress_dur(el, e1, sizeof(e1)));
	if (eta_s >= 0)
		fprintf(stderr, ", ETA %s", cli_progress_dur(eta_s, e2, sizeof(e2)));
	if (detail[0])
		fprintf(stderr, ", %s", detail);
	fflush(stderr);
	p->shown = 1;
}

void cli_progress_end(struct cli_progress *p)
{
	if (p->on && p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}
