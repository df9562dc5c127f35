/*
 * apenet config check [FILE]: loads a config through the one loader, as
 * every command would, and prints the settings in effect: every threshold
 * with its value, unit, default and whether the file set it, the node
 * agent's and the supervisor's settings the same way, and the cluster
 * layout.  The lists come from the loader's own tables
 * (apenet_config_threshold_desc, apenet_config_table), so a key or a
 * section added there shows here without touching this file.  A bad file
 * is an error naming file:line:column, exit 2.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/finding.h"
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
	for (size_t k = 0; (t = apenet_config_table(k)); k++)
		out_section(o, &cfg, t);
	struct apenet_findings fs; /* a config that loads has nothing to find */
	apenet_findings_init(&fs);
	int rc = cli_finish(o, &fs);
	apenet_config_free(&cfg);
	return rc;
}
