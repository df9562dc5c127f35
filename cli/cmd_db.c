/*
 * apenet db check|vacuum|export|retention [--db FILE] [--since T] [--until T]
 *           [--older-than-days D] [--config FILE]
 *
 *   check      PRAGMA integrity_check and foreign keys, the schema version,
 *              and the database's own invariants (db/: apenet_hdb_check);
 *              exit 1 when a problem is found
 *   vacuum     rebuilds the file to its smallest size
 *   export     the transitions, incidents, their evidence and the batch
 *              scheduler's actions on them of a window as JSON lines
 *              ("type": "transition", "incident", "evidence", "slurm")
 *   retention  deletes the transitions older than --older-than-days (default
 *              the config's supervisor.retention_days), never the evidence of
 *              an open incident
 *
 * A file that is not a health database, a damaged one or a newer one is
 * refused with the reason, and nothing is written to it.  With no --db,
 * the config's first supervisor database.  Times: epoch milliseconds or
 * UTC "YYYY-MM-DDTHH:MM:SS[.mmm][Z]".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "apenet/config.h"
#include "apenet/hdb.h"
#include "apenet/slurm.h"
#include "apenet/timeparse.h"
#include "cli.h"

static void problem(void *arg, const char *p)
{
	struct apenet_out *o = arg;
	apenet_out_str(o, NULL, p);
}

struct exp {
	struct apenet_hdb *db;
	struct apenet_err *e;
	int64_t incident;
	unsigned long long n;
};

static struct apenet_out *line(void)
{
	return apenet_out_new(APENET_OUT_JSON_LINE, stdout, NULL);
}

static void out_xyz(struct apenet_out *o, const char *key, const unsigned v[3])
{
	apenet_out_strf(o, key, "%u,%u,%u", v[0], v[1], v[2]);
}

static int on_transition(void *arg, const struct apenet_hdb_transition *t)
{
	struct exp *x = arg;
	struct apenet_out *o = line();
	static const char *const st[] = { "normal", "sick", "broken", "invalid" };
	apenet_out_str(o, "type", "transition");
	apenet_out_int(o, "id", t->id);
	apenet_out_str(o, "boot", t->boot);
	apenet_out_uint(o, "seq", t->seq);
	out_xyz(o, "reporter", t->reporter);
	out_xyz(o, "node", t->node);
	apenet_out_str(o, "subject", apenet_report_subject_name(t->subject));
	apenet_out_str(o, "where", t->where);
	apenet_out_str(o, "code", t->code);
	apenet_out_str(o, "old", t->old_status >= 0 && t->old_status <= 3 ? st[t->old_status] : "?");
	apenet_out_str(o, "new", t->new_status >= 0 && t->new_status <= 3 ? st[t->new_status] : "?");
	apenet_out_dbl(o, "value", t->value, 6);
	apenet_out_dbl(o, "threshold", t->threshold, 6);
	apenet_out_str(o, "unit", t->unit);
	apenet_out_str(o, "evidence", t->evidence);
	apenet_out_str(o, "path", apenet_hdb_path_name(t->path));
	apenet_out_str(o, "via", t->via);
	apenet_out_int(o, "time_ms", t->time_ms);
	apenet_out_int(o, "recv_ms", t->recv_ms);
	x->n++;
	return apenet_out_finish(o) ? 1 : 0;
}

static int on_evidence(void *arg, const struct apenet_hdb_evidence *ev)
{
	struct exp *x = arg;
	struct apenet_out *o = line();
	apenet_out_str(o, "type", "evidence");
	apenet_out_int(o, "incident", x->incident);
	apenet_out_int(o, "time_ms", ev->time_ms);
	apenet_out_str(o, "path", apenet_hdb_path_name(ev->path));
	apenet_out_str(o, "reporter", ev->reporter);
	apenet_out_uint(o, "seq", ev->seq);
	apenet_out_int(o, "transition", ev->transition_id);
	apenet_out_str(o, "text", ev->text);
	x->n++;
	return apenet_out_finish(o) ? 1 : 0;
}

/* The batch scheduler's actions on the incident (docs/supervisor.md): an
 * export that left them out would lose which nodes apenet drained. */
static int on_slurm(void *arg, const struct apenet_hdb_slurm_action *a)
{
	struct exp *x = arg;
	struct apenet_out *o = line();
	apenet_out_str(o, "type", "slurm");
	apenet_out_int(o, "incident", x->incident);
	apenet_out_int(o, "time_ms", a->time_ms);
	apenet_out_str(o, "verb", apenet_slurm_verb_name(a->verb));
	out_xyz(o, "node", a->node);
	apenet_out_str(o, "host", a->host);
	apenet_out_str(o, "outcome", apenet_slurm_outcome_name(a->outcome));
	apenet_out_str(o, "message", a->message);
	x->n++;
	return apenet_out_finish(o) ? 1 : 0;
}

static int on_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct exp *x = arg;
	struct apenet_out *o = line();
	apenet_out_str(o, "type", "incident");
	apenet_out_int(o, "id", in->id);
	apenet_out_str(o, "component", in->component);
	out_xyz(o, "node", in->node);
	apenet_out_str(o, "link", in->link);
	if (in->has_far) {
		out_xyz(o, "far_node", in->far);
		apenet_out_str(o, "far_link", in->far_link);
	}
	apenet_out_str(o, "rule", in->rule);
	apenet_out_str(o, "state", apenet_hdb_state_name(in->state));
	apenet_out_int(o, "opened_ms", in->opened_ms);
	apenet_out_int(o, "closed_ms", in->closed_ms);
	apenet_out_int(o, "merged_into", in->merged_into);
	x->n++;
	if (apenet_out_finish(o))
		return 1;
	x->incident = in->id;
	if (apenet_hdb_evidence_each(x->db, in->id, on_evidence, x, x->e))
		return 1;
	return apenet_hdb_slurm_each(x->db, in->id, on_slurm, x, x->e) ? 1 : 0;
}

int cmd_db(struct cli *c)
{
	const char *db = NULL, *since = NULL, *until = NULL, *days_s = NULL, *config = NULL;
	const struct cli_opt opts[] = {
		{ "--db", &db, NULL },       { "--since", &since, NULL },
		{ "--until", &until, NULL }, { "--older-than-days", &days_s, NULL },
		{ "--config", &config, NULL }, { NULL, NULL, NULL },
	};
	const char *pos[1];
	int npos;
	if (cli_parse(c, "db", opts, pos, 1, &npos))
		return CLI_EXIT_ERROR;
	if (npos != 1 || (strcmp(pos[0], "check") && strcmp(pos[0], "vacuum") && strcmp(pos[0], "export") &&
			  strcmp(pos[0], "retention")))
		return cli_usage_error("db", "say check, vacuum, export or retention");
	const char *what = pos[0];
	int64_t from = 0, to = INT64_MAX;
	if (since && cli_parse_time(since, &from))
		return cli_usage_error("db", "--since '%s' is not a time: say %s", since, APENET_TIME_FORMS);
	if (until && cli_parse_time(until, &to))
		return cli_usage_error("db", "--until '%s' is not a time: say %s", until, APENET_TIME_FORMS);
	struct apenet_config cfg;
	int rc = cli_config("db", config, &cfg);
	if (rc)
		return rc;
	double days = cfg.svr.retention_days;
	apenet_config_free(&cfg);
	char path[APENET_PATH_MAX];
	struct apenet_err e = { 0 };
	rc = cli_db_path(c, "db", db, config, path, sizeof(path));
	if (rc)
		return rc;
	if (days_s && cli_number("db", "--older-than-days", days_s, 0, 36500, &days))
		return CLI_EXIT_ERROR;

	/* check and export only read; vacuum and retention write (and so
	 * upgrade an old schema first, as the supervisor would) */
	int writes = !strcmp(what, "vacuum") || !strcmp(what, "retention");
	struct apenet_hdb *h;
	if (apenet_hdb_open(path, writes ? 0 : APENET_HDB_READONLY, &h, &e))
		return cli_input_error(c, "db", "BAD_DATABASE", "%s", e.msg);
	rc = CLI_EXIT_OK;
	if (!strcmp(what, "export")) {
		struct exp x = { h, &e, 0, 0 };
		if (apenet_hdb_transitions_each(h, from, to, NULL, on_transition, &x, &e) ||
		    apenet_hdb_incidents_each(h, 0, from, to, on_incident, &x, &e))
			rc = cli_input_error(c, "db", "BAD_DATABASE", "%s", e.msg);
	} else if (!strcmp(what, "check")) {
		struct apenet_out *o = apenet_out_new(c->fmt, stdout, "db");
		apenet_out_str(o, "file", path);
		apenet_out_arr_begin(o, "problems");
		int n = apenet_hdb_check(h, problem, o, &e);
		apenet_out_arr_end(o);
		if (n < 0) {
			apenet_out_discard(o);
			rc = cli_input_error(c, "db", "BAD_DATABASE", "%s", e.msg);
		} else {
			apenet_out_str(o, "verdict", n ? "problems found" : "ok");
			rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : n ? CLI_EXIT_FAULT : CLI_EXIT_OK;
		}
	} else if (!strcmp(what, "vacuum")) {
		if (apenet_hdb_vacuum(h, &e))
			rc = cli_input_error(c, "db", "BAD_DATABASE", "%s", e.msg);
		else
			printf("%s: vacuumed\n", path);
	} else {
		int64_t now = apenet_clock_epoch_ms();
		int64_t n = days > 0 ? apenet_hdb_retention(h, now - (int64_t)(days * 86400000.0), &e) : 0;
		if (n < 0)
			rc = cli_input_error(c, "db", "BAD_DATABASE", "%s", e.msg);
		else
			printf("%s: %lld transitions older than %g days deleted\n", path, (long long)n, days);
	}
	apenet_hdb_close(h);
	return rc;
}
