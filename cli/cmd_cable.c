/* apenet cable SERIAL: a cable's history from the health database (read
 * only): what it is, where it was seen (both ends), its certificates newest
 * first, and the faults reported on the links it was plugged into (the
 * transitions about either end's link).  Times in ISO 8601 (UTC), and in
 * JSON and CSV as epoch milliseconds too (KEY_ms).  Exit 0 when its latest
 * certificate passes, 1 when it does not or there is none, 2 unknown cable
 * or no database. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/hdb.h"
#include "cli.h"

/* A time as people read it (ISO 8601, UTC) and, for scripts, as epoch
 * milliseconds too: KEY and KEY_ms in JSON and CSV, KEY alone in text. */
static void out_when(struct apenet_out *o, const char *key, int64_t ms)
{
	cli_out_time(o, key, ms);
	if (apenet_out_format(o) != APENET_OUT_TEXT) {
		char k[40];
		snprintf(k, sizeof(k), "%s_ms", key);
		apenet_out_int(o, k, ms);
	}
}

struct cable_ctx {
	struct apenet_out *o;
	unsigned n;
	char latest[16];
};

static int on_cert(void *arg, const struct apenet_hdb_cert *k)
{
	struct cable_ctx *x = arg;
	if (!x->n++)
		snprintf(x->latest, sizeof(x->latest), "%s", k->verdict);
	struct apenet_out *o = x->o;
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "id", k->id);
	apenet_out_strf(o, "node", "%u,%u,%u", k->node[0], k->node[1], k->node[2]);
	apenet_out_str(o, "link", k->link);
	if (k->has_far) {
		apenet_out_strf(o, "far_node", "%u,%u,%u", k->far[0], k->far[1], k->far[2]);
		apenet_out_str(o, "far_link", k->far_link);
	}
	apenet_out_str(o, "verdict", k->verdict);
	apenet_out_str(o, "pattern", k->pattern);
	apenet_out_dbl(o, "target", k->target, 3);
	apenet_out_dbl(o, "cl", k->cl, 6);
	apenet_out_uint(o, "bits", k->bits);
	apenet_out_uint(o, "errors", k->errors);
	apenet_out_dbl(o, "upper", k->upper, 3);
	apenet_out_dbl(o, "lower", k->lower, 3);
	apenet_out_str(o, "swept", k->swept ? "yes" : "no");
	apenet_out_str(o, "pma_near", k->pma_near);
	apenet_out_str(o, "pma_far", k->pma_far);
	out_when(o, "started", k->started_ms);
	out_when(o, "finished", k->finished_ms);
	apenet_out_obj_end(o);
	return 0;
}

struct fault_ctx {
	struct apenet_out *o;
	const char *link;
	unsigned n;
};

static int on_transition(void *arg, const struct apenet_hdb_transition *t)
{
	struct fault_ctx *x = arg;
	if (strcmp(t->where, x->link) || t->new_status == 0)
		return 0; /* another link of the node, or a fault clearing */
	static const char *const st[] = { "normal", "sick", "broken", "invalid" };
	struct apenet_out *o = x->o;
	x->n++;
	apenet_out_obj_begin(o, NULL);
	apenet_out_strf(o, "node", "%u,%u,%u", t->node[0], t->node[1], t->node[2]);
	apenet_out_str(o, "link", t->where);
	apenet_out_str(o, "code", t->code);
	apenet_out_str(o, "status", t->new_status >= 0 && t->new_status <= 3 ? st[t->new_status] : "?");
	apenet_out_strf(o, "reporter", "%u,%u,%u", t->reporter[0], t->reporter[1], t->reporter[2]);
	apenet_out_str(o, "path", apenet_hdb_path_name(t->path));
	out_when(o, "time", t->time_ms);
	apenet_out_obj_end(o);
	return 0;
}

int cmd_cable(struct cli *c)
{
	const char *dbpath = NULL, *config = NULL;
	const struct cli_opt opts[] = { { "--db", &dbpath, NULL }, { "--config", &config, NULL }, { NULL, NULL, NULL } };
	const char *pos[1] = { NULL };
	int npos;
	if (cli_parse(c, "cable", opts, pos, 1, &npos))
		return CLI_EXIT_ERROR;
	if (npos != 1 || !pos[0][0])
		return cli_usage_error("cable", "which cable? apenet cable SERIAL (the serial number its module EEPROM "
						"gives: apenet module)");
	char path[APENET_PATH_MAX];
	struct apenet_err e = { 0 };
	int rc = cli_db_path(c, "cable", dbpath, config, path, sizeof(path));
	if (rc)
		return rc;
	struct apenet_hdb *db;
	if (apenet_hdb_open(path, APENET_HDB_READONLY, &db, &e))
		return cli_input_error(c, "cable", "BAD_DATABASE", "%s", e.msg);
	struct apenet_hdb_cable cab;
	int found = apenet_hdb_cable_get(db, pos[0], &cab, &e);
	if (found <= 0) {
		apenet_hdb_close(db);
		if (found < 0)
			return cli_input_error(c, "cable", "BAD_DATABASE", "%s", e.msg);
		return cli_input_error(c, "cable", "NO_SUCH_CABLE", "no cable '%s' in %s (apenet qualify records them)",
				       pos[0], path);
	}
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "cable");
	apenet_out_str(o, "serial", cab.serial);
	apenet_out_str(o, "vendor", cab.vendor);
	apenet_out_str(o, "part", cab.part);
	if (isfinite(cab.length_m))
		apenet_out_dbl(o, "length_m", cab.length_m, 1);
	apenet_out_arr_begin(o, "ends");
	for (int i = 0; i < 2; i++) {
		int has = i ? cab.has_b : cab.has_a;
		const unsigned *n = i ? cab.b : cab.a;
		if (!has)
			continue;
		apenet_out_obj_begin(o, NULL);
		apenet_out_strf(o, "node", "%u,%u,%u", n[0], n[1], n[2]);
		apenet_out_str(o, "link", i ? cab.b_link : cab.a_link);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	out_when(o, "first_seen", cab.first_ms);
	out_when(o, "last_seen", cab.last_ms);
	struct cable_ctx cx = { o, 0, "" };
	apenet_out_arr_begin(o, "certificates");
	int bad = apenet_hdb_certs_each(db, cab.serial, on_cert, &cx, &e);
	apenet_out_arr_end(o);
	struct fault_ctx fx = { o, "", 0 };
	apenet_out_arr_begin(o, "faults");
	for (int i = 0; i < 2 && !bad; i++) {
		if (!(i ? cab.has_b : cab.has_a))
			continue;
		fx.link = i ? cab.b_link : cab.a_link;
		bad = apenet_hdb_transitions_each(db, 0, INT64_MAX, i ? cab.b : cab.a, on_transition, &fx, &e);
	}
	apenet_out_arr_end(o);
	apenet_hdb_close(db);
	if (bad) {
		apenet_out_discard(o);
		return cli_input_error(c, "cable", "BAD_DATABASE", "%s", e.msg);
	}
	apenet_out_str(o, "latest", cx.n ? cx.latest : "none");
	rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : CLI_EXIT_OK;
	if (rc)
		return rc;
	return cx.n && !strcmp(cx.latest, "pass") ? CLI_EXIT_OK : CLI_EXIT_FAULT;
}
