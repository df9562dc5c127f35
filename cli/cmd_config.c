/*
 * apenet config check [FILE]: loads a config through the one loader, as
 * every command would, and prints the settings in effect: every threshold
 * with its value, unit, default and whether the file set it, the node
 * agent's settings, where the agents report (supervisors:) and the
 * supervisor's settings the same way, and the cluster layout.  The lists
 * come from the loader's own tables (apenet_config_threshold_desc,
 * apenet_config_table, apenet_config_supervisors_rows), so a key or a
 * section added there shows here without touching this file.  A bad file
 * is an error naming file:line:column, exit 2.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/finding.h"
#include "apenet/notify.h"
#include "cli.h"

/* A number with the decimals it needs (80, 0.5, 1e12), not a fixed count. */
static void out_num(struct apenet_out *o, const char *key, double v)
{
	int prec = 0;
	while (prec < 6 && fabs(v * pow(10, prec) - round(v * pow(10, prec))) > 1e-6)
		prec++;
	apenet_out_dbl(o, key, v, prec);
}

static void out_cluster(struct apenet_out *o, const struct apenet_cluster *cl)
{
	char wrap[8] = "";
	for (int d = 0; d < 3; d++)
		if (cl->wrap[d])
			strncat(wrap, &"xyz"[d], 1);
	apenet_out_obj_begin(o, "cluster");
	apenet_out_bool(o, "given", cl->have);
	if (cl->have)
		apenet_out_strf(o, "torus", "%ux%ux%u", cl->dims[0], cl->dims[1], cl->dims[2]);
	else
		apenet_out_str(o, "torus", "each board's own (TORUS_DIMS, NODE_COORD)");
	apenet_out_str(o, "wraparound", wrap[0] ? wrap : "none");
	apenet_out_uint(o, "nodes", cl->have ? cl->dims[0] * cl->dims[1] * cl->dims[2] : 0);
	apenet_out_uint(o, "named", cl->nnodes);
	apenet_out_arr_begin(o, "names");
	for (unsigned i = 0; i < cl->nnodes; i++) {
		unsigned xyz[3] = { cl->nodes[i].x, cl->nodes[i].y, cl->nodes[i].z };
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", cl->nodes[i].name);
		cli_out_xyz(o, "node", xyz);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

/* One row a setting of a table-driven section, as for the thresholds;
 * strings have no range. */
static void out_section(struct apenet_out *o, const struct apenet_config *cfg, const struct apenet_config_table *t)
{
	const void *sec = apenet_config_section(cfg, t);
	apenet_out_arr_begin(o, t->section);
	for (size_t i = 0; i < t->n; i++) {
		const struct apenet_config_desc *d = &t->rows[i];
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "key", d->key);
		if (d->is_str)
			apenet_out_str(o, "value", apenet_config_str(sec, d));
		else
			out_num(o, "value", apenet_config_num(sec, d));
		apenet_out_str(o, "unit", d->unit);
		apenet_out_str(o, "source", apenet_config_given(cfg, t, i) ? "file" : "default");
		if (d->is_str) {
			apenet_out_str(o, "default", d->def_str);
			apenet_out_null(o, "min");
			apenet_out_null(o, "max");
		} else {
			out_num(o, "default", d->def);
			out_num(o, "min", d->min);
			out_num(o, "max", d->max);
		}
		apenet_out_str(o, "meaning", d->doc);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

/* The values of the `supervisors:` section as text, in the order of
 * apenet_config_supervisors_rows. */
#define SUP_W (APENET_PATH_MAX + 32)
static void sup_values(const struct apenet_config *cfg, const char *state_dir, char v[APENET_NSUP_KEYS][SUP_W])
{
	const struct apenet_notify_config *x = &cfg->sup;
	v[0][0] = 0;
	for (unsigned i = 0; i < x->nsupervisors; i++)
		snprintf(v[0] + strlen(v[0]), SUP_W - strlen(v[0]), "%s%s", i ? "," : "", x->supervisors[i]);
	snprintf(v[1], SUP_W, "%s", x->version == APENET_SNMP_V3 ? "3" : "2c");
	snprintf(v[2], SUP_W, "%s", x->community);
	snprintf(v[3], SUP_W, "%s", x->key_file);
	snprintf(v[4], SUP_W, "%u", x->timeout_ms);
	snprintf(v[5], SUP_W, "%u", x->retries);
	snprintf(v[6], SUP_W, "%u", x->backoff_ms);
	/* not given: in the agent's state_dir, as the agent takes it (agent/report.c) */
	if (cfg->spool_given)
		snprintf(v[7], SUP_W, "%s", x->spool);
	else
		snprintf(v[7], SUP_W, "%s/spool.db", state_dir);
	snprintf(v[8], SUP_W, "%.17g", (double)x->spool_max_bytes / 1048576);
	snprintf(v[9], SUP_W, "%.17g", cfg->heartbeat_s);
}

/* The `supervisors:` section (the agents' side: where they report), rows
 * as for the other sections.  Its loader (common/config_sup.c) keeps the
 * notifier's own types, so the values are read here (sup_values); the
 * units, ranges and meanings are its table's. */
static void out_supervisors(struct apenet_out *o, const struct apenet_config *cfg)
{
	static struct apenet_config d; /* large: static */
	static char v[APENET_NSUP_KEYS][SUP_W], dv[APENET_NSUP_KEYS][SUP_W];
	apenet_config_defaults(&d);
	/* the spool's default follows the file's agent.state_dir */
	sup_values(cfg, cfg->agent.state_dir, v);
	sup_values(&d, cfg->agent.state_dir, dv);
	apenet_config_free(&d);
	const struct apenet_config_desc *rows = apenet_config_supervisors_rows();
	apenet_out_arr_begin(o, "supervisors");
	for (size_t i = 0; i < APENET_NSUP_KEYS; i++) {
		int num = !rows[i].is_str;
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "key", rows[i].key);
		if (num)
			out_num(o, "value", strtod(v[i], NULL));
		else
			apenet_out_str(o, "value", v[i]);
		apenet_out_str(o, "unit", rows[i].unit);
		apenet_out_str(o, "source", cfg->sup_given[i] ? "file" : "default");
		if (num) {
			out_num(o, "default", strtod(dv[i], NULL));
			out_num(o, "min", rows[i].min);
			out_num(o, "max", rows[i].max);
		} else {
			apenet_out_str(o, "default", dv[i]);
			apenet_out_null(o, "min");
			apenet_out_null(o, "max");
		}
		apenet_out_str(o, "meaning", rows[i].doc);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

int cmd_config(struct cli *c)
{
	const char *config = NULL, *pos[2], *from;
	const struct cli_opt opts[] = { { "--config", &config, NULL }, { NULL, NULL, NULL } };
	int npos;
	if (cli_parse(c, "config", opts, pos, 2, &npos))
		return CLI_EXIT_ERROR;
	if (npos < 1 || strcmp(pos[0], "check"))
		return cli_usage_error("config", "usage: apenet config check [FILE] [--json]");
	if (npos == 2 && config)
		return cli_usage_error("config", "give the file once: FILE or --config FILE");
	const char *path = npos == 2 ? pos[1] : apenet_config_path(config, &from);
	if (npos == 2)
		from = "argument";

	struct apenet_config cfg;
	struct apenet_err e = { 0 };
	if (apenet_config_load(path, &cfg, &e))
		return cli_fail(&e);

	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "config");
	apenet_out_obj_begin(o, "source");
	apenet_out_str(o, "file", path);
	apenet_out_str(o, "from", from);
	apenet_out_str(o, "installed_path", apenet_config_default_path());
	apenet_out_bool(o, "valid", 1);
	apenet_out_obj_end(o);
	out_cluster(o, &cfg.cl);
	apenet_out_arr_begin(o, "thresholds");
	struct apenet_thr_desc d;
	for (size_t i = 0; apenet_config_threshold_desc(i, &d) == 0; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "key", d.key);
		out_num(o, "value", apenet_config_threshold_value(&cfg.thr, &d));
		apenet_out_str(o, "unit", d.unit);
		apenet_out_str(o, "source", i < APENET_NTHR && cfg.thr_given[i] ? "file" : "default");
		out_num(o, "default", d.def);
		out_num(o, "min", d.min);
		out_num(o, "max", d.max);
		apenet_out_str(o, "meaning", d.doc);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	/* the table-driven sections (the node agent's, the supervisor's), from
	 * the loader's own tables as well */
	const struct apenet_config_table *t;
	for (size_t k = 0; (t = apenet_config_table(k)); k++) {
		out_section(o, &cfg, t);
		if (!strcmp(t->section, "agent")) /* the file's order: agent, supervisors, supervisor */
			out_supervisors(o, &cfg);
	}
	struct apenet_findings fs; /* a config that loads has nothing to find */
	apenet_findings_init(&fs);
	int rc = cli_finish(o, &fs);
	apenet_config_free(&cfg);
	return rc;
}
