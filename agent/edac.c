/*
 * The host's memory, from the kernel's EDAC counters
 * (edac_root/mcN/ce_count and ue_count, summed over the memory
 * controllers), read every edac_interval_s.  A window of readings gives the
 * corrected-error rate the memory field is judged on
 * (apenet_host_memory).  No controller there: EDAC is absent, memory is
 * reported normal, and agent-status says why.  The root is configurable so
 * that tests give a fake tree.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static int read_u64(const char *dir, const char *mc, const char *file, uint64_t *out)
{
	char path[APENET_PATH_MAX + 300];
	snprintf(path, sizeof(path), "%s/%s/%s", dir, mc, file);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	unsigned long long v;
	int ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	if (!ok)
		return -1;
	*out = v;
	return 0;
}

void agent_edac_free(struct agent_edac *e)
{
	free(e->hist);
	e->hist = NULL;
	e->hcap = e->h0 = e->hn = 0;
}

void agent_edac_poll(struct agent *a, int64_t now)
{
	struct agent_edac *x = &a->edac;
	const struct apenet_agent_config *c = &a->cfg.agent;
	if (now < x->next_ms)
		return;
	x->next_ms = now + (int64_t)(c->edac_interval_s * 1000);
	size_t cap = (size_t)(c->edac_window_s / c->edac_interval_s) + 2;
	if (cap != x->hcap) {
		agent_edac_free(x);
		x->hist = calloc(cap, sizeof(*x->hist));
		x->hcap = x->hist ? cap : 0;
	}
	DIR *d = opendir(c->edac_root);
	struct apenet_edac e = { 0 };
	if (!d) {
		snprintf(x->error, sizeof(x->error), "%s: %s", c->edac_root, strerror(errno));
	} else {
		struct dirent *de;
		while ((de = readdir(d)) && e.controllers < AGENT_EDAC_MAX_MC) {
			uint64_t ce, ue;
			if (strncmp(de->d_name, "mc", 2) || de->d_name[2] < '0' || de->d_name[2] > '9')
				continue;
			if (read_u64(c->edac_root, de->d_name, "ce_count", &ce) ||
			    read_u64(c->edac_root, de->d_name, "ue_count", &ue))
				continue;
			e.ce += ce;
			e.ue += ue;
			e.controllers++;
		}
		closedir(d);
		if (!e.controllers)
			snprintf(x->error, sizeof(x->error), "%s: no memory controller (mc*/ce_count, ue_count)", c->edac_root);
	}
	e.present = e.controllers > 0;
	if (!e.present) {
		x->now = e;
		x->hn = x->h0 = 0;
		return;
	}
	x->error[0] = 0;
	if (!x->hcap) {
		x->now = e;
		return;
	}
	/* counters reset (echo to reset_counters, a driver reload): start over */
	if (x->hn && e.ce < x->hist[(x->h0 + x->hn - 1) % x->hcap].ce)
		x->hn = x->h0 = 0;
	if (x->hn == x->hcap) {
		x->h0 = (x->h0 + 1) % x->hcap;
		x->hn--;
	}
	x->hist[(x->h0 + x->hn++) % x->hcap].ms = now;
	x->hist[(x->h0 + x->hn - 1) % x->hcap].ce = e.ce;
	/* the oldest reading within the window is the base of the rate */
	while (x->hn > 1 && x->hist[x->h0].ms < now - (int64_t)(c->edac_window_s * 1000)) {
		x->h0 = (x->h0 + 1) % x->hcap;
		x->hn--;
	}
	e.ce_window = e.ce - x->hist[x->h0].ce;
	e.window_s = (double)(now - x->hist[x->h0].ms) / 1000;
	x->now = e;
}
