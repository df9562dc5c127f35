/*
 * SIGHUP (supervisor/loop.c): the config read again; what takes effect at
 * start keeps its value (named in the log), the rest takes effect now, and
 * the site secrets are read again (a key roll needs no restart).
 */
#include <stdio.h>
#include <string.h>

#include "apenet/log.h"
#include "sup.h"

const char *sup_node_name(void *arg, unsigned x, unsigned y, unsigned z)
{
	return apenet_config_node_name(arg, x, y, z);
}

void sup_reload(struct sup *s)
{
	struct apenet_config nc;
	struct apenet_err e = { 0 };
	const char *path = s->config_path[0] ? s->config_path : NULL;
	if (apenet_config_load(path, &nc, &e)) {
		apenet_log(APENET_LOG_ERR, "reload: %s; the running config stays", e.msg);
		return;
	}
	/* What takes effect at start (the table's at_start rows, the torus,
	 * the SNMP version and community) keeps its value in force, and is
	 * named when the file changed it; the rest takes effect now. */
	const struct apenet_supervisor_config *o = &s->cfg.svr, *n = &nc.svr;
	const struct apenet_config_table *t = apenet_config_table_find("supervisor");
	struct apenet_supervisor_config keep = *o;
	char later[512] = "";
	size_t len = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct apenet_config_desc *d = &t->rows[i];
		if (!d->at_start)
			apenet_config_copy(&keep, n, d);
		else if (apenet_config_differs(o, n, d) && len < sizeof(later))
			len += (size_t)snprintf(later + len, sizeof(later) - len, "%s%s", len ? ", " : "", d->key);
	}
	const char *more[3] = { memcmp(s->cfg.cl.dims, nc.cl.dims, sizeof(nc.cl.dims)) ? "the torus" : NULL,
				s->cfg.sup.version != nc.sup.version ? "the SNMP version" : NULL,
				strcmp(s->cfg.sup.community, nc.sup.community) ? "the SNMP community" : NULL };
	for (int i = 0; i < 3; i++)
		if (more[i] && len < sizeof(later))
			len += (size_t)snprintf(later + len, sizeof(later) - len, "%s%s", len ? ", " : "", more[i]);
	if (len)
		apenet_log(APENET_LOG_WARN, "reload: %s change at the next start; the rest now", later);
	/* the site secrets are read again: a key roll needs no restart
	 * (docs/security.md) */
	sup_v3_reload(s, n);
	/* node names may change; the torus itself stays as started */
	if (!memcmp(s->cfg.cl.dims, nc.cl.dims, sizeof(nc.cl.dims))) {
		if (apenet_hdb_layout(s->db, nc.cl.dims, sup_node_name, &nc, &e))
			apenet_log(APENET_LOG_WARN, "reload: node names: %s", e.msg);
		struct apenet_cluster cl = s->cfg.cl;
		s->cfg.cl = nc.cl;
		nc.cl = cl; /* the old names go with nc */
	}
	s->cfg.svr = keep;
	s->cfg.slurm = nc.slurm; /* every key at once (docs/config.md, "Slurm") */
	apenet_config_free(&nc);
	apenet_hdb_set_heartbeat_flush(s->db, (unsigned)keep.heartbeat_flush_ms);
	apenet_log_set_level(apenet_log_level_parse(keep.log_level));
	s->next_retention_mono = 0;
	apenet_log(APENET_LOG_NOTICE, "reloaded %s", path ? path : "(defaults)");
}
