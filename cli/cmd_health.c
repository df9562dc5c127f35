/*
 * apenet health [--db FILE]... [--node X,Y,Z] [--incidents] [--all]
 *               [--since T] [--until T] [--verbose] [--silence S] [--config FILE]
 *
 * The cluster as the supervisors see it, read from their health databases
 * (db/, read-only): a summary (nodes normal / sick / broken / silent),
 * incidents with their component, rule and first fault, the nodes worst
 * first (--all: every node); --node: one node's links and partners with
 * both ends' view and its current states.  With no --db, every database
 * of the config's supervisor.db list.
 *
 * With two or more databases, an incident both hold (the same component at
 * the same place, open over the same time) is shown once, with the
 * databases that hold it (seen_by) and every field where they differ
 * (differs); then where the databases disagree (a node's class, an open
 * incident one has and another has not): two supervisors that each keep
 * the whole picture should agree, and when they do not, one of them missed
 * something.
 *
 * Text cuts an incident's evidence to its first lines and says how many
 * more (a card gone is evidence from every neighbour: 20 lines and more);
 * --verbose shows them all, as JSON always does.  CSV writes one flat row an
 * incident (the evidence counted), and every table's header even when it
 * is empty.  --since/--until: the incidents opened in that window, closed
 * ones too (cli_parse_time: -1h, 30m, today, ISO 8601, epoch ms).
 *
 * JSON keys: "summary", "incidents" (each "id", "component", "node",
 * "opened", "first_fault", "evidence", "rule", "state"; with several
 * databases "db", "seen_by", "differs"), "nodes", and with several
 * databases "databases" and "disagreements".  Exit 0 healthy, 1 an open
 * incident (in any database), 2 could not run.
 */
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

#define HEALTH_MAX_DB 8

/* Evidence lines an incident shows in text without --verbose. */
#define HEALTH_EVIDENCE_LINES 5

/* The columns of the two tables, for CSV's header when a table is empty
 * (apenet_out_arr_columns): the keys out_incident and on_node write, in
 * their order; tests/e2e/supervisor.sh compares them with a table that
 * has rows. */
#define INC_COLS_HEAD "id"
#define INC_COLS_SEVERAL ",db,seen_by"
#define INC_COLS_TAIL                                                                                          \
	",component,node,name,link,far_node,far_link,rule,state,opened,closed,merged_into,first_fault.time,"    \
	"first_fault.path,first_fault.reporter,first_fault.text,evidence"
#define NODE_COLS "node,name,class,boot,heard_self,heard_torus,heartbeat,ldm,changed"

struct hctx {
	struct apenet_out *o;
	struct apenet_hdb *db;
	int all;                 /* every node, not only those that are not normal */
	int ndb;                 /* databases read */
	int verbose;             /* every evidence line in text */
	unsigned shown, more;    /* evidence lines written, and left out, of the current incident */
	int slurm_open;          /* its slurm list is begun (text: only when it has an action) */
	struct apenet_err *e;
};

static void out_node_ref(struct apenet_out *o, const char *key, const unsigned xyz[3])
{
	cli_out_xyz(o, key, xyz);
}

static int on_evidence(void *arg, const struct apenet_hdb_evidence *ev)
{
	struct hctx *h = arg;
	if (!h->verbose && apenet_out_format(h->o) == APENET_OUT_TEXT && h->shown >= HEALTH_EVIDENCE_LINES) {
		h->more++;
		return 0;
	}
	h->shown++;
	apenet_out_obj_begin(h->o, NULL);
	cli_out_time(h->o, "time", ev->time_ms);
	apenet_out_str(h->o, "path", apenet_hdb_path_name(ev->path));
	apenet_out_str(h->o, "reporter", ev->reporter);
	apenet_out_str(h->o, "text", ev->text);
	apenet_out_obj_end(h->o);
	return 0;
}

/* The batch scheduler's actions on the incident (docs/supervisor.md, "The
 * batch scheduler (Slurm)"). */
static int on_slurm(void *arg, const struct apenet_hdb_slurm_action *a)
{
	struct hctx *h = arg;
	if (!h->slurm_open) {
		apenet_out_arr_begin(h->o, "slurm");
		h->slurm_open = 1;
	}
	apenet_out_obj_begin(h->o, NULL);
	cli_out_time(h->o, "time", a->time_ms);
	apenet_out_str(h->o, "verb", apenet_slurm_verb_name(a->verb));
	cli_out_xyz(h->o, "node", a->node);
	apenet_out_str(h->o, "host", a->host);
	apenet_out_str(h->o, "outcome", apenet_slurm_outcome_name(a->outcome));
	apenet_out_str(h->o, "message", a->message);
	apenet_out_obj_end(h->o);
	return 0;
}

/* ---- one incident, as every database that holds it has it ---- */

struct hinc {
	struct apenet_hdb_incident in;
	int db;
};

struct hlist {
	struct hinc *v;
	size_t n, cap;
	int db;  /* the database being read */
	int oom; /* an incident did not fit: the list is not whole */
};

static int collect_inc(void *arg, const struct apenet_hdb_incident *in)
{
	struct hlist *l = arg;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct hinc *v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			l->oom = 1;
			return 1;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n].in = *in;
	l->v[l->n++].db = l->db;
	return 0;
}

/* One incident: which of the list each database holds (index + 1, 0 none). */
struct group {
	size_t m[HEALTH_MAX_DB];
	size_t rep; /* the one shown: from the first database that has it */
};

static int same_place(const struct apenet_hdb_incident *a, const struct apenet_hdb_incident *b)
{
	return !strcmp(a->component, b->component) && !memcmp(a->node, b->node, sizeof(a->node)) &&
	       !strcmp(a->link, b->link) && a->has_far == b->has_far &&
	       (!a->has_far || (!memcmp(a->far, b->far, sizeof(a->far)) && !strcmp(a->far_link, b->far_link)));
}

/* The same incident seen by two supervisors: the same place, open over the
 * same time (each opens it at its own moment, from its own reports). */
static int same_incident(const struct apenet_hdb_incident *a, const struct apenet_hdb_incident *b)
{
	int64_t ea = a->closed_ms > 0 ? a->closed_ms : INT64_MAX, eb = b->closed_ms > 0 ? b->closed_ms : INT64_MAX;
	return same_place(a, b) && a->opened_ms <= eb && b->opened_ms <= ea;
}

/* Groups the incidents of every database (the list holds them database by
 * database, each oldest first); *ng groups, oldest first.  NULL: no memory. */
static struct group *group_incidents(const struct hlist *l, size_t *ng)
{
	struct group *g = calloc(l->n ? l->n : 1, sizeof(*g));
	if (!g)
		return NULL;
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct hinc *x = &l->v[i];
		/* of the incidents no copy from this database has joined yet, the
		 * one opened nearest in time (several may overlap: a supervisor
		 * incident closed and opened again while the other kept one) */
		size_t k = n;
		int64_t best = INT64_MAX;
		for (size_t j = 0; j < n; j++) {
			const struct apenet_hdb_incident *r = &l->v[g[j].rep].in;
			int64_t d = r->opened_ms > x->in.opened_ms ? r->opened_ms - x->in.opened_ms : x->in.opened_ms - r->opened_ms;
			if (!g[j].m[x->db] && same_incident(r, &x->in) && d < best) {
				best = d;
				k = j;
			}
		}
		if (k == n)
			g[n++].rep = i;
		g[k].m[x->db] = i + 1;
	}
	/* oldest first, as one database lists them (insertion: few, and stable) */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && l->v[g[k].rep].in.opened_ms < l->v[g[k - 1].rep].in.opened_ms; k--) {
			struct group t = g[k];
			g[k] = g[k - 1];
			g[k - 1] = t;
		}
	*ng = n;
	return g;
}

/* What a database (other) has differently from the one shown (rep): rows
 * of {field, db, value}, the value as that database has it; or, in CSV,
 * one cell of "field (db N: value)" items. */
static void differ_field(struct apenet_out *o, char *csv, size_t n, const char *field, int db, const char *value)
{
	if (csv) {
		size_t l = strlen(csv);
		snprintf(csv + l, n - l, "%s%s (db %d: %s)", l ? "; " : "", field, db, value);
		return;
	}
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "field", field);
	apenet_out_int(o, "db", db);
	apenet_out_str(o, "value", value);
	apenet_out_obj_end(o);
}

static void differences(struct apenet_out *o, char *csv, size_t n, const struct apenet_hdb_incident *rep,
			const struct apenet_hdb_incident *x, int db)
{
	char b[40];
	if (!x) {
		differ_field(o, csv, n, "incident", db, "not in this database");
		return;
	}
#define DIFF_INT(name, va, vb)                                                                                  \
	if ((va) != (vb)) {                                                                                     \
		snprintf(b, sizeof(b), "%lld", (long long)(vb));                                                \
		differ_field(o, csv, n, name, db, b);                                                           \
	}
#define DIFF_TIME(name, va, vb)                                                                                 \
	if ((va) != (vb))                                                                                       \
		differ_field(o, csv, n, name, db, apenet_out_iso_ms(vb, b, sizeof(b)));
#define DIFF_STR(name, va, vb)                                                                                  \
	if (strcmp(va, vb))                                                                                     \
		differ_field(o, csv, n, name, db, vb);
	DIFF_INT("id", rep->id, x->id)
	DIFF_STR("state", apenet_hdb_state_name(rep->state), apenet_hdb_state_name(x->state))
	DIFF_STR("rule", rep->rule, x->rule)
	DIFF_STR("name", rep->node_name, x->node_name)
	DIFF_TIME("opened", rep->opened_ms, x->opened_ms)
	DIFF_TIME("closed", rep->closed_ms, x->closed_ms)
	DIFF_INT("merged_into", rep->merged_into, x->merged_into)
	DIFF_TIME("first_fault.time", rep->first.time_ms, x->first.time_ms)
	DIFF_STR("first_fault.reporter", rep->first.reporter, x->first.reporter)
	/* pieces of evidence at the same ms from the same reporter (one
	 * report's transitions) are a tie each database broke its own way
	 * (the order they were stored), not a disagreement: the text counts
	 * only where the time or the reporter differs too */
	if (rep->first.time_ms != x->first.time_ms || strcmp(rep->first.reporter, x->first.reporter)) {
		DIFF_STR("first_fault.text", rep->first.text, x->first.text)
	}
	DIFF_INT("evidence", rep->evidence, x->evidence)
#undef DIFF_INT
#undef DIFF_TIME
#undef DIFF_STR
}

/* One incident (a group): its fields from the first database that holds
 * it, the databases that do, the evidence, what the others have otherwise. */
static int out_incident(struct hctx *h, struct apenet_hdb **db, const struct hlist *l, const struct group *g)
{
	struct apenet_out *o = h->o;
	const struct hinc *r = &l->v[g->rep];
	const struct apenet_hdb_incident *in = &r->in;
	int csv = apenet_out_format(o) == APENET_OUT_CSV;
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "id", in->id);
	if (h->ndb > 1) {
		apenet_out_int(o, "db", r->db);
		if (apenet_out_format(o) != APENET_OUT_JSON) {
			/* one cell, aligned with the other fields in text */
			char t[HEALTH_MAX_DB * 4] = "";
			for (int i = 0; i < h->ndb; i++)
				if (g->m[i])
					snprintf(t + strlen(t), sizeof(t) - strlen(t), "%s%d", t[0] ? " " : "", i);
			apenet_out_str(o, "seen_by", t);
		} else {
			apenet_out_arr_begin(o, "seen_by");
			for (int i = 0; i < h->ndb; i++)
				if (g->m[i])
					apenet_out_int(o, NULL, i);
			apenet_out_arr_end(o);
		}
	}
	apenet_out_str(o, "component", in->component);
	out_node_ref(o, "node", in->node);
	apenet_out_str(o, "name", in->node_name);
	apenet_out_str(o, "link", in->link[0] ? in->link : NULL);
	/* CSV: every row has every column; text and JSON name a far end and a
	 * merge only when there is one */
	if (in->has_far) {
		out_node_ref(o, "far_node", in->far);
		apenet_out_str(o, "far_link", in->far_link);
	} else if (csv) {
		apenet_out_null(o, "far_node");
		apenet_out_null(o, "far_link");
	}
	apenet_out_str(o, "rule", in->rule);
	apenet_out_str(o, "state", apenet_hdb_state_name(in->state));
	cli_out_time(o, "opened", in->opened_ms);
	cli_out_time(o, "closed", in->closed_ms);
	if (in->merged_into)
		apenet_out_int(o, "merged_into", in->merged_into);
	else if (csv)
		apenet_out_null(o, "merged_into");
	apenet_out_obj_begin(o, "first_fault");
	cli_out_time(o, "time", in->first.time_ms);
	apenet_out_str(o, "path", apenet_hdb_path_name(in->first.path));
	apenet_out_str(o, "reporter", in->first.reporter);
	apenet_out_str(o, "text", in->first.text);
	apenet_out_obj_end(o);
	/* where the others differ, before the evidence: a long evidence list
	 * must not push it out of sight */
	char dcsv[1024] = "";
	if (h->ndb > 1 && !csv)
		apenet_out_arr_begin(o, "differs");
	for (int i = 0; h->ndb > 1 && i < h->ndb; i++)
		if (i != r->db)
			differences(o, csv ? dcsv : NULL, sizeof(dcsv), in, g->m[i] ? &l->v[g->m[i] - 1].in : NULL, i);
	if (h->ndb > 1 && !csv)
		apenet_out_arr_end(o);
	if (csv) {
		/* one flat row: the evidence counted (JSON and text list it) */
		apenet_out_uint(o, "evidence", in->evidence);
		if (h->ndb > 1)
			apenet_out_str(o, "differs", dcsv);
	} else {
		apenet_out_arr_begin(o, "evidence");
		h->shown = h->more = 0;
		if (apenet_hdb_evidence_each(db[r->db], in->id, on_evidence, h, h->e))
			return 1;
		if (h->more) {
			char t[64];
			snprintf(t, sizeof(t), "+%u more (--verbose)", h->more);
			apenet_out_obj_begin(o, NULL);
			apenet_out_str(o, "time", t);
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		/* JSON: always a list; text: only when Slurm was acted on */
		h->slurm_open = 0;
		if (apenet_out_format(o) == APENET_OUT_JSON) {
			apenet_out_arr_begin(o, "slurm");
			h->slurm_open = 1;
		}
		if (apenet_hdb_slurm_each(db[r->db], in->id, on_slurm, h, h->e))
			return 1;
		if (h->slurm_open)
			apenet_out_arr_end(o);
	}
	apenet_out_obj_end(o);
	return 0;
}

static int on_node(void *arg, const struct apenet_hdb_node *n)
{
	struct hctx *h = arg;
	struct apenet_out *o = h->o;
	if (!h->all && n->cls == APENET_HDB_NORMAL)
		return 1; /* worst first: the rest are normal too */
	unsigned xyz[3] = { n->x, n->y, n->z };
	apenet_out_obj_begin(o, NULL);
	out_node_ref(o, "node", xyz);
	apenet_out_str(o, "name", n->name);
	apenet_out_str(o, "class", apenet_hdb_class_name(n->cls));
	apenet_out_str(o, "boot", n->boot);
	cli_out_time(o, "heard_self", n->self_recv_ms);
	cli_out_time(o, "heard_torus", n->torus_recv_ms);
	cli_out_time(o, "heartbeat", n->hb_recv_ms);
	apenet_out_str(o, "ldm", n->summary);
	cli_out_time(o, "changed", n->changed_ms);
	apenet_out_obj_end(o);
	return 0;
}

static void out_summary(struct apenet_out *o, const struct apenet_hdb_summary *s)
{
	char t[160];
	snprintf(t, sizeof(t), "%u nodes: %u normal, %u sick, %u broken, %u silent; %u open incidents", s->nodes, s->normal,
		 s->sick, s->broken, s->silent, s->open_incidents);
	apenet_out_obj_begin_text(o, "summary", t);
	apenet_out_uint(o, "nodes", s->nodes);
	apenet_out_uint(o, "normal", s->normal);
	apenet_out_uint(o, "sick", s->sick);
	apenet_out_uint(o, "broken", s->broken);
	apenet_out_uint(o, "silent", s->silent);
	apenet_out_uint(o, "silent_but_heard_through_torus", s->torus_only);
	apenet_out_uint(o, "outside_layout", s->outside_layout);
	apenet_out_uint(o, "open_incidents", s->open_incidents);
	cli_out_time(o, "last_report", s->last_recv_ms);
	apenet_out_obj_end(o);
}

static int on_link(void *arg, const struct apenet_hdb_link *l)
{
	struct hctx *h = arg;
	struct apenet_out *o = h->o;
	static const char *const st[] = { "normal", "sick", "broken", "invalid" };
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "link", l->name);
	out_node_ref(o, "partner", l->partner);
	apenet_out_str(o, "partner_name", l->partner_name);
	apenet_out_str(o, "partner_link", l->partner_link);
	apenet_out_str(o, "here", l->status >= 0 && l->status <= 3 ? st[l->status] : "?");
	apenet_out_str(o, "there", l->partner_status >= 0 && l->partner_status <= 3 ? st[l->partner_status] : "?");
	apenet_out_obj_end(o);
	return 0;
}

static int on_state(void *arg, const struct apenet_hdb_state *s)
{
	struct hctx *h = arg;
	struct apenet_out *o = h->o;
	static const char *const st[] = { "normal", "sick", "broken", "invalid" };
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "code", s->code);
	apenet_out_str(o, "where", s->where);
	apenet_out_str(o, "status", s->status >= 0 && s->status <= 3 ? st[s->status] : "?");
	out_node_ref(o, "reporter", s->reporter);
	apenet_out_str(o, "path", apenet_hdb_path_name(s->path));
	apenet_out_str(o, "via", s->via[0] ? s->via : NULL);
	cli_out_time(o, "since", s->time_ms);
	apenet_out_obj_end(o);
	return 0;
}

/* One node's view: its record, links with both ends, current states. */
static int one_node(struct hctx *h, const unsigned xyz[3], int64_t now, int64_t silence)
{
	struct apenet_hdb_node n;
	int r = apenet_hdb_node_get(h->db, xyz, now, silence, &n, h->e);
	if (r < 0)
		return -1;
	if (r == 0) {
		apenet_err_set(h->e, APENET_EINVAL, "node %u,%u,%u is not in %s", xyz[0], xyz[1], xyz[2],
			       apenet_hdb_file(h->db));
		return -1;
	}
	apenet_out_obj_begin(h->o, "node");
	int all = h->all;
	h->all = 1;
	apenet_out_arr_begin(h->o, "self");
	on_node(h, &n);
	apenet_out_arr_end(h->o);
	h->all = all;
	apenet_out_arr_begin(h->o, "links");
	if (apenet_hdb_links_each(h->db, xyz, on_link, h, h->e))
		return -1;
	apenet_out_arr_end(h->o);
	apenet_out_arr_begin(h->o, "states");
	if (apenet_hdb_node_states_each(h->db, xyz, 1, on_state, h, h->e))
		return -1;
	apenet_out_arr_end(h->o);
	apenet_out_obj_end(h->o);
	return 0;
}

/* ---- comparing databases ---- */

struct keyset {
	char (*k)[96];
	size_t n, cap;
};

static int keyset_add(struct keyset *s, const char *k)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char(*nk)[96] = realloc(s->k, cap * sizeof(*nk));
		if (!nk)
			return -1;
		s->k = nk;
		s->cap = cap;
	}
	snprintf(s->k[s->n++], sizeof(s->k[0]), "%s", k);
	return 0;
}

static int keyset_has(const struct keyset *s, const char *k)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->k[i], k))
			return 1;
	return 0;
}

static int collect_incident(void *arg, const struct apenet_hdb_incident *in)
{
	char k[96];
	snprintf(k, sizeof(k), "%s %u,%u,%u%s%s", in->component, in->node[0], in->node[1], in->node[2],
		 in->link[0] ? " " : "", in->link);
	return keyset_add(arg, k) ? 1 : 0;
}

static int collect_node(void *arg, const struct apenet_hdb_node *n)
{
	char k[96];
	snprintf(k, sizeof(k), "%u,%u,%u %s", n->x, n->y, n->z, apenet_hdb_class_name(n->cls));
	return keyset_add(arg, k) ? 1 : 0;
}

/* What database a has that b has not, as disagreements. */
static void differ(struct apenet_out *o, const char *what, const struct keyset *a, const struct keyset *b, int ia,
		   int ib, unsigned *count)
{
	for (size_t i = 0; i < a->n; i++) {
		if (keyset_has(b, a->k[i]))
			continue;
		char t[200];
		snprintf(t, sizeof(t), "%s '%s' in database %d, not in %d", what, a->k[i], ia, ib);
		apenet_out_obj_begin_text(o, NULL, t);
		apenet_out_str(o, "what", what);
		apenet_out_str(o, "key", a->k[i]);
		apenet_out_int(o, "in", ia);
		apenet_out_int(o, "not_in", ib);
		apenet_out_obj_end(o);
		(*count)++;
	}
}

int cmd_health(struct cli *c)
{
	const char *dbs[HEALTH_MAX_DB], *node = NULL, *config = NULL, *silence_s = NULL, *since = NULL, *until = NULL;
	int ndb = 0, incidents = 0, all = 0, verbose = 0;
	const struct cli_opt opts[] = {
		{ "--node", &node, NULL },
		{ "--incidents", NULL, &incidents }, { "--all", NULL, &all },
		{ "--since", &since, NULL }, { "--until", &until, NULL },
		{ "--verbose", NULL, &verbose },
		{ "--silence", &silence_s, NULL }, { "--config", &config, NULL },
		{ NULL, NULL, NULL },
	};
	const char *pos[1];
	int npos;
	if (cli_take_repeated(c, "health", "--db", dbs, HEALTH_MAX_DB, &ndb) || cli_parse(c, "health", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
	/* a window: the incidents opened in it, closed ones too */
	int64_t from = 0, to = INT64_MAX;
	if (since && cli_parse_time(since, &from))
		return cli_usage_error("health", "--since '%s' is not a time: say %s", since, APENET_TIME_FORMS);
	if (until && cli_parse_time(until, &to))
		return cli_usage_error("health", "--until '%s' is not a time: say %s", until, APENET_TIME_FORMS);
	if (to <= from)
		return cli_usage_error("health", "--until (%s) is not after --since (%s)", until, since ? since : "the start");
	if (since || until)
		incidents = 1;
	struct apenet_config cfg;
	int rc = cli_config("health", config, &cfg);
	if (rc)
		return rc;
	/* the silence limit: the supervisors' own, unless given */
	double silence = cfg.svr.silent_ms / 1000.0;
	if (silence_s && cli_number("health", "--silence", silence_s, 0.1, 1e7, &silence)) {
		apenet_config_free(&cfg);
		return CLI_EXIT_ERROR;
	}
	unsigned xyz[3];
	if (node && sscanf(node, "%u,%u,%u", &xyz[0], &xyz[1], &xyz[2]) != 3) {
		apenet_config_free(&cfg);
		return cli_usage_error("health", "--node '%s' is not X,Y,Z", node);
	}
	/* no --db: every instance of the config */
	char paths[HEALTH_MAX_DB][APENET_PATH_MAX];
	if (!ndb) {
		for (unsigned i = 1; i <= HEALTH_MAX_DB; i++) {
			char listen[256];
			struct apenet_err ie = { 0 };
			if (apenet_config_instance(&cfg.svr, i, listen, sizeof(listen), paths[ndb], sizeof(paths[0]), &ie))
				break;
			dbs[ndb] = paths[ndb];
			ndb++;
		}
	}
	apenet_config_free(&cfg);

	struct apenet_hdb *db[HEALTH_MAX_DB] = { 0 };
	struct apenet_err e = { 0 };
	for (int i = 0; i < ndb; i++)
		if (apenet_hdb_open(dbs[i], APENET_HDB_READONLY, &db[i], &e)) {
			for (int k = 0; k < i; k++)
				apenet_hdb_close(db[k]);
			return cli_input_error(c, "health", "BAD_DATABASE", "%s", e.msg);
		}

	int64_t now = apenet_clock_epoch_ms(), sil = (int64_t)(silence * 1000);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "health");
	struct hctx h = { .o = o, .db = db[0], .all = all, .ndb = ndb, .verbose = verbose, .e = &e };
	unsigned open_total = 0;
	int failed = 0;
	struct apenet_hdb_summary sum[HEALTH_MAX_DB];
	for (int i = 0; i < ndb && !failed; i++) {
		if (apenet_hdb_summary(db[i], now, sil, &sum[i], &e))
			failed = 1;
		else
			open_total += sum[i].open_incidents;
	}
	if (!failed) {
		out_summary(o, &sum[0]);
		/* every database's incidents, then each one once */
		struct hlist l = { 0 };
		for (int i = 0; i < ndb && !failed; i++) {
			l.db = i;
			if (apenet_hdb_incidents_each(db[i], !incidents, from, to, collect_inc, &l, &e))
				failed = 1;
		}
		size_t ng = 0;
		struct group *g = failed || l.oom ? NULL : group_incidents(&l, &ng);
		if (!failed && !g) {
			apenet_err_set(&e, APENET_EIO, "out of memory for %zu incidents", l.n);
			failed = 1;
		}
		apenet_out_arr_begin_vertical(o, "incidents");
		apenet_out_arr_columns(o, ndb > 1 ? INC_COLS_HEAD INC_COLS_SEVERAL INC_COLS_TAIL ",differs"
						  : INC_COLS_HEAD INC_COLS_TAIL);
		for (size_t i = 0; i < ng && !failed; i++)
			if (out_incident(&h, db, &l, &g[i]))
				failed = 1;
		apenet_out_arr_end(o);
		free(g);
		free(l.v);
		h.db = db[0];
		if (!failed && node) {
			if (one_node(&h, xyz, now, sil))
				failed = 1;
		} else if (!failed) {
			apenet_out_arr_begin(o, "nodes");
			apenet_out_arr_columns(o, NODE_COLS);
			if (apenet_hdb_nodes_each(db[0], now, sil, 0, on_node, &h, &e))
				failed = 1;
			apenet_out_arr_end(o);
		}
	}
	unsigned disagree = 0;
	if (!failed && ndb > 1) {
		apenet_out_arr_begin(o, "databases");
		for (int i = 0; i < ndb; i++) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_int(o, "db", i);
			apenet_out_str(o, "file", dbs[i]);
			out_summary(o, &sum[i]);
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		struct keyset inc[HEALTH_MAX_DB], nodes[HEALTH_MAX_DB];
		memset(inc, 0, sizeof(inc));
		memset(nodes, 0, sizeof(nodes));
		for (int i = 0; i < ndb && !failed; i++)
			if (apenet_hdb_incidents_open_each(db[i], collect_incident, &inc[i], &e) ||
			    apenet_hdb_nodes_each(db[i], now, sil, 0, collect_node, &nodes[i], &e))
				failed = 1;
		apenet_out_arr_begin_vertical(o, "disagreements");
		apenet_out_arr_columns(o, "what,key,in,not_in");
		for (int i = 0; i < ndb && !failed; i++)
			for (int k = 0; k < ndb; k++) {
				if (i == k)
					continue;
				differ(o, "open incident", &inc[i], &inc[k], i, k, &disagree);
				if (i < k)
					differ(o, "node", &nodes[i], &nodes[k], i, k, &disagree);
			}
		apenet_out_arr_end(o);
		for (int i = 0; i < ndb; i++) {
			free(inc[i].k);
			free(nodes[i].k);
		}
	}
	for (int i = 0; i < ndb; i++)
		apenet_hdb_close(db[i]);
	if (failed) {
		apenet_out_discard(o);
		return cli_input_error(c, "health", "BAD_DATABASE", "%s", e.msg);
	}
	if (apenet_out_finish(o))
		return CLI_EXIT_ERROR;
	return open_total ? CLI_EXIT_FAULT : CLI_EXIT_OK;
}
