/* The view of a command that shows what the judging session holds (apenet
 * link): the same pair of samples as cli_view, and the session fed so that
 * its findings are the agent's for that pair (apenet/judge.h). */
#include <errno.h>
#include <time.h>

#include "apenet/judge.h"
#include "apenet/sampler.h"
#include "cli.h"

struct upto {
	unsigned last; /* the index of the view's later sample in the file */
};

static int stop_at(void *arg, const struct apenet_judge *j, unsigned index)
{
	(void)j;
	return index >= ((const struct upto *)arg)->last;
}

int cli_judge_open(const char *cmd, const char *config, struct apenet_config *cfg, struct apenet_judge *j)
{
	struct apenet_err e = { 0 };
	int rc = cli_config(cmd, config, cfg);
	if (rc)
		return rc;
	if (apenet_judge_init(j, cfg, &e)) {
		apenet_config_free(cfg);
		return cli_fail(&e);
	}
	return 0;
}

int cli_judged_view(struct cli *c, const char *from, double interval_s, int modules, struct apenet_judge *j,
		    struct apenet_view *v)
{
	struct apenet_err e = { 0 };
	if (from) {
		int rc = cli_view(c, from, interval_s, modules, v);
		if (rc)
			return rc;
		struct upto u = { v->pair[1] };
		return apenet_judge_replay(j, from, stop_at, &u, &e) ? cli_fail(&e) : 0;
	}
	if (c->at)
		return cli_view(c, from, interval_s, modules, v); /* says why --at needs --from */
	struct apenet_sampler s;
	if (apenet_sampler_open(&s, c->sim, c->bdf, &e))
		return cli_fail(&e);
	unsigned flags = APENET_SAMPLE_PCIE | (modules ? APENET_SAMPLE_MODULES : 0);
	int rc = apenet_sampler_take(&s, flags, apenet_judge_slot(j), &e);
	/* the pair is judged, not its first sample alone (as before the session) */
	if (!rc && interval_s > 0)
		apenet_judge_prime(j, apenet_judge_slot(j));
	else if (!rc)
		apenet_judge_feed(j, apenet_judge_slot(j));
	if (!rc && interval_s > 0) {
		/* a command waits; the sampler itself never does */
		struct timespec ts = { (time_t)interval_s, (long)((interval_s - (double)(time_t)interval_s) * 1e9) };
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		rc = apenet_sampler_take(&s, APENET_SAMPLE_PCIE, apenet_judge_slot(j), &e);
		if (!rc)
			apenet_judge_feed(j, apenet_judge_slot(j));
	}
	apenet_sampler_close(&s);
	if (rc)
		return cli_fail(&e);
	*v = *j->vshort;
	return 0;
}
