/* apenet watch: live rates per link every interval, in the manner of
 * ibswportwatch, until interrupted (or --count samples), or every sample of
 * a recorded file (--from: a black box played back).  Every sample goes
 * through a judging session (apenet/judge.h), the agent's: the same pairs,
 * rate baselines and hysteresis (clear_after_samples), so a finding that
 * comes and goes with the noise does not blink and the verdicts are the
 * agent's.  Exit 1 when a sample it
 * showed had a warning or a failure (a watch that scrolled past a fault
 * must not say all was well to a script: cli_exit_sev, as every command),
 * 0 when every sample shown was healthy, 2 when it could not run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "apenet/config.h"
#include "apenet/judge.h"
#include "apenet/sampler.h"
#include "apenet/verdict.h"
#include "cli.h"

static volatile sig_atomic_t watch_stop;

static void on_sigint(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* One sample's document: its rates per link and the findings the judge holds. */
struct watch {
	struct cli *c;
	const struct apenet_config *cfg;
	unsigned long shown, count; /* count 0: until interrupted */
	enum apenet_sev worst;      /* of the samples shown */
	int from;                   /* replaying a file: each sample says its time */
	int rc;
};

static int watch_show(void *arg, const struct apenet_judge *j, unsigned index)
{
	struct watch *w = arg;
	const struct apenet_view *v = j->vshort;
	const struct apenet_findings *held = &j->held;
	if (w->from && index == 0)
		return 0; /* the first sample of a file has no interval: the next one is sample 1 */
	struct apenet_out *o = apenet_out_new(w->c->fmt, stdout, "watch");
	apenet_out_uint(o, "sample", w->from ? index : w->shown + 1);
	if (w->from)
		apenet_out_int(o, "host_time_ms", v->host_ms[1]);
	apenet_out_dbl(o, "interval_s", apenet_view_dt(v), 3);
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		struct apenet_link_stats st;
		long at;
		apenet_link_stats(v, l, &st);
		apenet_findings_worst_at(held, (int)l, &at);
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", v->prof->links[l].name);
		apenet_out_str(o, "state", apenet_link_state_name(st.state));
		apenet_out_dbl(o, "tx_MBps", st.tx_Bps / 1e6, 1);
		apenet_out_dbl(o, "rx_MBps", st.rx_Bps / 1e6, 1);
		apenet_out_dbl(o, "tx_pps", st.tx_pps, 0);
		apenet_out_dbl(o, "rx_pps", st.rx_pps, 0);
		apenet_out_dbl(o, "util_pct", st.util * 100, 1);
		apenet_out_dbl(o, "crc_per_min", st.crc_per_min, 1);
		apenet_out_uint(o, "down", st.down_delta);
		apenet_out_str(o, "verdict", at >= 0 ? held->f[at].code : "OK");
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_findings_write(o, held);
	if (apenet_out_finish(o)) {
		w->rc = CLI_EXIT_ERROR;
		return 1;
	}
	enum apenet_sev sev = apenet_findings_worst(held, NULL);
	if (sev > w->worst)
		w->worst = sev;
	if (w->c->fmt == APENET_OUT_TEXT)
		putchar('\n');
	fflush(stdout);
	w->shown++;
	return watch_stop || (w->count && w->shown >= w->count);
}

/* Live: a sample every interval, judged as it comes. */
static int watch_live(struct watch *w, struct apenet_judge *j, double iv)
{
	struct apenet_sampler s;
	struct apenet_err e = { 0 };
	if (apenet_sampler_open(&s, w->c->sim, w->c->bdf, &e))
		return cli_fail(&e);
	/* the first sample is the reference of the first interval, judged with it */
	if (apenet_sampler_take(&s, APENET_SAMPLE_PCIE, apenet_judge_slot(j), &e)) {
		apenet_sampler_close(&s);
		return cli_fail(&e);
	}
	apenet_judge_prime(j, apenet_judge_slot(j));
	while (!watch_stop) {
		struct timespec ts = { (time_t)iv, (long)((iv - (double)(time_t)iv) * 1e9) };
		while (nanosleep(&ts, &ts) && errno == EINTR && !watch_stop)
			;
		if (watch_stop)
			break;
		if (apenet_sampler_take(&s, APENET_SAMPLE_PCIE, apenet_judge_slot(j), &e)) {
			w->rc = cli_fail(&e); /* card gone: say so, stop */
			break;
		}
		apenet_judge_feed(j, apenet_judge_slot(j));
		if (watch_show(w, j, 0))
			break;
	}
	apenet_sampler_close(&s);
	return w->rc;
}

int cmd_watch(struct cli *c)
{
	const char *interval = NULL, *count = NULL, *config = NULL, *from = NULL;
	const struct cli_opt opts[] = { { "--interval", &interval, NULL }, { "--count", &count, NULL },
					{ "--config", &config, NULL }, { "--from", &from, NULL }, { NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double iv = 1.0, cnt = 0;
	struct apenet_config cfg;
	if (cli_parse(c, "watch", opts, pos, 0, &npos) ||
	    (interval && cli_number("watch", "--interval", interval, 0.01, 3600, &iv)) ||
	    (count && cli_number("watch", "--count", count, 1, 1e9, &cnt)))
		return CLI_EXIT_ERROR;
	if (from && interval)
		return cli_usage_error("watch", "--interval with --from: a file's samples come at the pace they were taken");
	struct apenet_judge j;
	struct apenet_err e = { 0 };
	int rc = cli_judge_open("watch", config, &cfg, &j);
	if (rc)
		return rc;
	struct sigaction sa = { .sa_handler = on_sigint };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct watch w = { c, &cfg, 0, (unsigned long)cnt, APENET_SEV_OK, from != NULL, CLI_EXIT_OK };
	if (from)
		rc = apenet_judge_replay(&j, from, watch_show, &w, &e) ? cli_fail(&e) : w.rc;
	else
		rc = watch_live(&w, &j, iv);
	if (rc == CLI_EXIT_OK)
		rc = cli_exit_sev(w.worst);
	apenet_judge_free(&j);
	apenet_config_free(&cfg);
	return rc;
}
