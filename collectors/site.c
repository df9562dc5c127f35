/* Where the boards are: the real PCI bus or an emulated node directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "apenet/dev.h"

int apenet_site_node(struct apenet_site *s, const char *simdir)
{
	memset(s, 0, sizeof(*s));
	int a = snprintf(s->dump, sizeof(s->dump), "%s/%s", simdir, APENET_SIM_DUMP);
	int b = snprintf(s->devroot, sizeof(s->devroot), "%s/%s", simdir, APENET_SIM_DEVROOT);
	/* Both the emulator and every tool see the node directory: the lock
	 * lives there, beside the BAR it guards. */
	snprintf(s->lockdir, sizeof(s->lockdir), "%s", simdir);
	return a < 0 || (size_t)a >= sizeof(s->dump) || b < 0 || (size_t)b >= sizeof(s->devroot) ? -1 : 0;
}

int apenet_site_init(struct apenet_site *s, const char *simdir, struct apenet_err *e)
{
	memset(s, 0, sizeof(*s));
	if (!simdir || !*simdir)
		simdir = getenv("APENET_SIM_DIR");
	if (!simdir || !*simdir) {
		snprintf(s->devroot, sizeof(s->devroot), "%s", APENET_SYSFS_DEVICES);
		snprintf(s->lockdir, sizeof(s->lockdir), "%s", APENET_LOCK_DIR);
		return 0;
	}
	struct stat st;
	if (stat(simdir, &st) != 0 || !S_ISDIR(st.st_mode))
		return apenet_err_set(e, APENET_ENODEV, "%s: not an emulated node directory", simdir);
	if (apenet_site_node(s, simdir))
		return apenet_err_set(e, APENET_EINVAL, "%s: path too long", simdir);
	if (stat(s->dump, &st) != 0)
		return apenet_err_set(e, APENET_ENODEV,
				      "%s: no %s: not an emulated node directory (is apenet-sim running?)",
				      simdir, APENET_SIM_DUMP);
	return 0;
}
