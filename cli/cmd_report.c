/*
 * apenet report [--db FILE] [--incident ID | --since T --until T]
 *               [--node X,Y,Z] [--blackbox DIR]... [--format text|json|html]
 *               [-o FILE] [--max-events N] [--before S] [--config FILE]
 *
 * The post-mortem report (docs/report.md, report/): the first fault, how it
 * spread, the black boxes' trends before it, the cables involved and what
 * to replace, from the health database (read-only: a live supervisor's
 * file is safe) and the nodes' black-box dumps.  -o writes the file whole
 * or not at all (a temporary file renamed), so a ticket never gets half a
 * report.  Exit 0 written, 2 bad input (a missing incident, a database
 * that is not one, a damaged black box: named).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/hdb.h"
#include "apenet/postmortem.h"
#include "apenet/timeparse.h"
#include "cli.h"

static int write_report(const struct apenet_postmortem *pm, const char *format, FILE *f)
{
	if (!strcmp(format, "json"))
		return apenet_postmortem_write_json(pm, f);
	if (!strcmp(format, "html"))
		return apenet_postmortem_write_html(pm, f);
	return apenet_postmortem_write_text(pm, f);
}

static int to_file(const struct apenet_postmortem *pm, const char *format, const char *path)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "we");
	if (!f) {
		fprintf(stderr, "apenet report: %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	int rc = write_report(pm, format, f);
	if (fflush(f) || ferror(f))
		rc = -1;
	if (fclose(f))
		rc = -1;
	if (rc == 0 && rename(tmp, path))
		rc = -1;
	if (rc) {
		fprintf(stderr, "apenet report: writing %s: %s\n", path, strerror(errno ? errno : EIO));
		unlink(tmp);
	}
	return rc;
}

int cmd_report(struct cli *c)
{
	const char *db = NULL, *incident = NULL, *since = NULL, *until = NULL, *node = NULL, *format = NULL,
		   *max_events = NULL, *before = NULL, *config = NULL;
	const char *bb[APENET_POSTMORTEM_MAX_BBDIRS], *outs[1];
	int nbb = 0, nout = 0, npos;
	if (cli_take_repeated(c, "report", "--blackbox", bb, APENET_POSTMORTEM_MAX_BBDIRS, &nbb) ||
	    cli_take_repeated(c, "report", "-o", outs, 1, &nout))
		return CLI_EXIT_ERROR;
	const char *output = nout ? outs[0] : NULL;
	const struct cli_opt opts[] = {
		{ "--db", &db, NULL },
		{ "--incident", &incident, NULL },
		{ "--since", &since, NULL },
		{ "--until", &until, NULL },
		{ "--node", &node, NULL },
		{ "--format", &format, NULL },
		{ "--output", &output, NULL },
		{ "--max-events", &max_events, NULL },
		{ "--before", &before, NULL },
		{ "--config", &config, NULL },
		{ NULL, NULL, NULL },
	};
	if (cli_parse(c, "report", opts, NULL, 0, &npos))
		return CLI_EXIT_ERROR;

	struct apenet_postmortem_query q;
	apenet_postmortem_query_defaults(&q);
	q.now_ms = apenet_clock_epoch_ms();

	if (!format)
		format = c->fmt == APENET_OUT_JSON ? "json" : "text";
	if (strcmp(format, "text") && strcmp(format, "json") && strcmp(format, "html"))
		return cli_usage_error("report", "--format '%s': say text, json or html", format);
	if (incident) {
		char *end;
		errno = 0;
		long long id = strtoll(incident, &end, 10);
		if (!*incident || *end || errno || id <= 0)
			return cli_usage_error("report", "--incident '%s' is not an incident number", incident);
		if (since || until)
			return cli_usage_error("report", "--incident or --since/--until, not both");
		q.incident = id;
	} else if (!since) {
		return cli_usage_error("report", "say which: --incident ID, or --since T [--until T]");
	}
	if (since && apenet_time_parse(since, q.now_ms, &q.from_ms))
		return cli_usage_error("report", "--since '%s' is not a time: say %s", since, APENET_TIME_FORMS);
	q.to_ms = q.now_ms + 1;
	if (until && apenet_time_parse(until, q.now_ms, &q.to_ms))
		return cli_usage_error("report", "--until '%s' is not a time: say %s", until, APENET_TIME_FORMS);
	if (since && q.to_ms <= q.from_ms)
		return cli_usage_error("report", "--until (%s) is not after --since (%s)", until ? until : "now", since);
	if (node) {
		char tail;
		if (sscanf(node, "%u,%u,%u%c", &q.node[0], &q.node[1], &q.node[2], &tail) != 3)
			return cli_usage_error("report", "--node '%s' is not X,Y,Z", node);
		q.has_node = 1;
	}
	double v;
	if (max_events) {
		if (cli_number("report", "--max-events", max_events, 0, 1e9, &v))
			return CLI_EXIT_ERROR;
		q.max_events = (size_t)v;
	}
	if (before) {
		if (cli_number("report", "--before", before, 0, 86400, &v))
			return CLI_EXIT_ERROR;
		q.before_ms = (int64_t)(v * 1000);
	}
	for (int i = 0; i < nbb; i++) {
		if (access(bb[i], R_OK | X_OK))
			return cli_usage_error("report", "--blackbox %s: %s", bb[i], strerror(errno));
		q.bbdirs[q.nbbdirs++] = bb[i];
	}

	char path[APENET_PATH_MAX];
	int rc = cli_db_path(c, "report", db, config, path, sizeof(path));
	if (rc)
		return rc;
	/* the black boxes' readings are judged by the config's thresholds */
	struct apenet_config cfg;
	if ((rc = cli_config("report", config, &cfg)))
		return rc;
	q.thr = &cfg.thr;
	struct apenet_err e = { 0 };
	struct apenet_hdb *h;
	if (apenet_hdb_open(path, APENET_HDB_READONLY, &h, &e)) {
		apenet_config_free(&cfg);
		return cli_input_error(c, "report", "BAD_DATABASE", "%s", e.msg);
	}
	struct apenet_postmortem *pm;
	rc = apenet_postmortem_build(h, path, &q, &pm, &e);
	apenet_hdb_close(h);
	apenet_config_free(&cfg);
	if (rc)
		return cli_input_error(c, "report", q.incident && strstr(e.msg, "no incident") ? "NO_INCIDENT" : "BAD_INPUT",
				       "%s", e.msg);
	if (output)
		rc = to_file(pm, format, output);
	else
		rc = write_report(pm, format, stdout) || fflush(stdout) ? -1 : 0;
	apenet_postmortem_free(pm);
	return rc ? CLI_EXIT_ERROR : CLI_EXIT_OK;
}
