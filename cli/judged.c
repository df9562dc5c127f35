/* The view of a command that shows what the judging session holds (apenet
 * link): the same pair of samples as cli_view, and the session fed so that
 * its findings are the agent's for that pair (apenet/judge.h). */
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
	static struct apenet_sample a, b; /* large: static */
	int rc = cli_sample_pair(c, interval_s, modules, &a, &b);
	if (rc)
		return rc;
	/* the pair is judged, not its first sample alone (as before the session) */
	if (interval_s > 0) {
		apenet_judge_prime(j, &a);
		apenet_judge_feed(j, &b);
	} else {
		apenet_judge_feed(j, &a);
	}
	*v = *j->vshort;
	return 0;
}
