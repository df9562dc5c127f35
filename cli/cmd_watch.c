/* apenet watch: live rates per link every interval, in the manner of
 * ibswportwatch, until interrupted (or --count samples).  It judges every
 * interval as the agent will, through the same sampler and rules, and holds
 * findings with the same hysteresis (clear_after_samples): a finding that
 * comes and goes with the noise does not blink.  Exit 1 when a sample it
 * showed had a warning or a failure (a watch that scrolled past a fault
 * must not say all was well to a script: cli_exit_sev, as every command),
 * 0 when every sample shown was healthy, 2 when it could not run. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "apenet/config.h"
#include "apenet/sampler.h"
#include "apenet/verdict.h"
#include "cli.h"

static volatile sig_atomic_t watch_stop;

static void on_sigint(int sig)
{
	(void)sig;
	watch_stop = 1;
}

int cmd_watch(struct cli *c)
{
	const char *interval = NULL, *count = NULL, *config = NULL;
	const struct cli_opt opts[] = { { "--interval", &interval, NULL }, { "--count", &count, NULL },
					{ "--config", &config, NULL }, { NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double iv = 1.0, cnt = 0;
	static struct apenet_view v;
	static struct apenet_sample smp[2];
	struct apenet_config cfg;
	if (cli_parse(c, "watch", opts, pos, 0, &npos) ||
	    (interval && cli_number("watch", "--interval", interval, 0.01, 3600, &iv)) ||
	    (count && cli_number("watch", "--count", count, 1, 1e9, &cnt)))
		return CLI_EXIT_ERROR;
	int rc = cli_config("watch", config, &cfg);
	if (rc)
		return rc;
	struct apenet_sampler s;
	struct apenet_err e = { 0 };
	if (apenet_sampler_open(&s, c->sim, c->bdf, &e)) {
		apenet_config_free(&cfg);
		return cli_fail(&e);
	}
	struct sigaction sa = { .sa_handler = on_sigint };
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	struct apenet_latch latch;
	struct apenet_findings now, held;
	apenet_latch_init(&latch, 1, (unsigned)cfg.thr.clear_after_samples);
	apenet_findings_init(&now);
	apenet_findings_init(&held);
	rc = CLI_EXIT_OK;
	enum apenet_sev worst = APENET_SEV_OK; /* of the samples shown */
	unsigned cur = 0;
	if (apenet_sampler_take(&s, APENET_SAMPLE_PCIE, &smp[cur], &e)) {
		rc = cli_fail(&e);
		goto out;
	}
	for (unsigned long n = 0; !watch_stop && (cnt == 0 || n < (unsigned long)cnt); n++) {
		struct timespec ts = { (time_t)iv, (long)((iv - (double)(time_t)iv) * 1e9) };
		while (nanosleep(&ts, &ts) && errno == EINTR && !watch_stop)
			;
		if (watch_stop)
			break;
		if (apenet_sampler_take(&s, APENET_SAMPLE_PCIE, &smp[cur ^ 1], &e)) {
			rc = cli_fail(&e); /* card gone: say so, stop */
			break;
		}
		apenet_view_pair(&v, &smp[cur], &smp[cur ^ 1]);
		cur ^= 1;
		apenet_findings_clear(&now);
		apenet_findings_clear(&held);
		apenet_judge(&v, &cfg, NULL, &now);
		apenet_latch_step(&latch, &now, &held);
		struct apenet_out *o = apenet_out_new(c->fmt, stdout, "watch");
		apenet_out_uint(o, "sample", n + 1);
		apenet_out_dbl(o, "interval_s", apenet_view_dt(&v), 3);
		apenet_out_arr_begin(o, "links");
		for (unsigned l = 0; l < v.prof->nlinks; l++) {
			struct apenet_link_stats st;
			long at;
			apenet_link_stats(&v, l, &st);
			apenet_findings_worst_at(&held, (int)l, &at);
			apenet_out_obj_begin(o, NULL);
			apenet_out_str(o, "name", v.prof->links[l].name);
			apenet_out_str(o, "state", apenet_link_state_name(st.state));
			apenet_out_dbl(o, "tx_MBps", st.tx_Bps / 1e6, 1);
			apenet_out_dbl(o, "rx_MBps", st.rx_Bps / 1e6, 1);
			apenet_out_dbl(o, "tx_pps", st.tx_pps, 0);
			apenet_out_dbl(o, "rx_pps", st.rx_pps, 0);
			apenet_out_dbl(o, "util_pct", st.util * 100, 1);
			apenet_out_dbl(o, "crc_per_min", st.crc_per_min, 1);
			apenet_out_uint(o, "down", st.down_delta);
			apenet_out_str(o, "verdict", at >= 0 ? held.f[at].code : "OK");
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		apenet_findings_write(o, &held);
		if (apenet_out_finish(o)) {
			rc = CLI_EXIT_ERROR;
			break;
		}
		enum apenet_sev sev = apenet_findings_worst(&held, NULL);
		if (sev > worst)
			worst = sev;
		if (c->fmt == APENET_OUT_TEXT)
			putchar('\n');
		fflush(stdout);
	}
	if (rc == CLI_EXIT_OK)
		rc = cli_exit_sev(worst);
out:
	apenet_latch_free(&latch);
	apenet_findings_free(&now);
	apenet_findings_free(&held);
	apenet_sampler_close(&s);
	apenet_config_free(&cfg);
	return rc;
}
