/*
 * PMA presets (apenet/preset.h) at start and on reload: every NAME.yaml in
 * agent.pma_presets_dir, in name order, the half each one's card owns
 * written to it.  A file that does not load is logged (file:line:column)
 * and skipped: one bad preset does not keep the others off, nor the agent.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "apenet/log.h"
#include "apenet/preset.h"

static int yaml_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);
	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".yaml");
}

void agent_presets_apply(struct agent *a)
{
	const char *dir = a->cfg.agent.pma_presets_dir;
	if (!dir[0])
		return;
	struct dirent **names;
	int n = scandir(dir, &names, yaml_file, alphasort);
	if (n < 0) {
		if (errno != ENOENT)
			apenet_log(APENET_LOG_WARN, "PMA presets %s: %s", dir, strerror(errno));
		return;
	}
	unsigned applied = 0;
	for (int i = 0; i < n; i++) {
		char path[APENET_PATH_MAX + 300];
		struct apenet_preset p;
		struct apenet_err e = { 0 };
		unsigned tx, rx;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (apenet_preset_load(path, &p, &e) || apenet_preset_apply(&a->smp.dev, &p, &tx, &rx, &e)) {
			apenet_log(APENET_LOG_WARN, "PMA preset skipped: %s", e.msg);
		} else if (tx || rx) {
			applied++;
			if (tx)
				apenet_log(APENET_LOG_NOTICE,
					   "PMA preset %s: link %s, %u lanes: transmitter vod %u pre %u post1 %u post2 %u", p.name,
					   p.tx_link, tx, p.v[0], p.v[1], p.v[2], p.v[3]);
			if (rx)
				apenet_log(APENET_LOG_NOTICE, "PMA preset %s: link %s, %u lanes: receiver rxeq %u dcgain %u",
					   p.name, p.rx_link, rx, p.v[4], p.v[5]);
		}
		free(names[i]);
	}
	free(names);
	a->presets_applied = applied;
}
