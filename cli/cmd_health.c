/*
 * apenet health [--db FILE]... [--node X,Y,Z] [--incidents] [--all]
 *               [--silence S] [--config FILE]
 *
 * The cluster as the supervisors see it, read from their health databases
 * (db/, read-only): a summary (nodes normal / sick / broken / silent),
 * incidents with their component, rule and first fault, the nodes worst
 * first; --node: one node's links and partners with both ends' view and its
 * current states.  With no --db, every database of the config's
 * supervisor.db list.  With two or more, each is read on its own and where
 * they disagree (a node's class, an open incident one has and another has
 * not) is listed: two supervisors that each keep the whole picture should
 * agree, and when they do not, one of them missed something.
 *
 * JSON keys: "summary", "incidents" (each "id", "component", "node",
 * "opened", "first_fault", "evidence", "rule", "state"), "nodes", and with
 * several databases "databases" and "disagreements".  Exit 0 healthy, 1 an
 * open incident (in any database), 2 could not run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/config.h"
#include "apenet/hdb.h"
#include "cli.h"

#define HEALTH_MAX_DB 8

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct hctx {
	struct apenet_out *o;
	struct apenet_hdb *db;
	int all;                 /* every node, not only those that are not normal */
	int db_index;            /* with several: which one (-1: one only) */
	struct apenet_err *e;
};

static void out_node_ref(struct apenet_out *o, const char *key, const unsigned xyz[3])
{
	cli_out_xyz(o, key, xyz);
}

static int on_evidence(void *arg, const struct apenet_hdb_evidence *ev)
{
	struct hctx *h = arg;
	apenet_out_obj_begin(h->o, NULL);
	cli_out_time(h->o, "time", ev->time_ms);
	apenet_out_str(h->o, "path", apenet_hdb_path_name(ev->path));
	apenet_out_str(h->o, "reporter", ev->reporter);
	apenet_out_str(h->o, "text", ev->text);
	apenet_out_obj_end(h->o);
	return 0;
}

static int on_incident(void *arg, const struct apenet_hdb_incident *in)
{
	struct hctx *h = arg;
	struct apenet_out *o = h->o;
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "id", in->id);
	if (h->db_index >= 0)
		apenet_out_int(o, "db", h->db_index);
	apenet_out_str(o, "component", in->component);
	out_node_ref(o, "node", in->node);
	apenet_out_str(o, "name", in->node_name);
	apenet_out_str(o, "link", in->link[0] ? in->link : NULL);
	if (in->has_far) {
		out_node_ref(o, "far_node", in->far);
		apenet_out_str(o, "far_link", in->far_link);
	}
	apenet_out_str(o, "rule", in->rule);
	apenet_out_str(o, "state", apenet_hdb_state_name(in->state));
	cli_out_time(o, "opened", in->opened_ms);
	cli_out_time(o, "closed", in->closed_ms);
	if (in->merged_into)
		apenet_out_int(o, "merged_into", in->merged_into);
	apenet_out_obj_begin(o, "first_fault");
	cli_out_time(o, "time", in->first.time_ms);
	apenet_out_str(o, "path", apenet_hdb_path_name(in->first.path));
	apenet_out_str(o, "reporter", in->first.reporter);
	apenet_out_str(o, "text", in->first.text);
	apenet_out_obj_end(o);
	apenet_out_arr_begin(o, "evidence");
	if (apenet_hdb_evidence_each(h->db, in->id, on_evidence, h, h->e))
		return 1;
	apenet_out_arr_end(o);
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
	const char *dbs[HEALTH_MAX_DB], *node = NULL, *config = NULL, *silence_s = NULL;
	int ndb = 0, incidents = 0, all = 0;
	const struct cli_opt opts[] = {
		{ "--node", &node, NULL },
		{ "--incidents", NULL, &incidents }, { "--all", NULL, &all },
		{ "--silence", &silence_s, NULL }, { "--config", &config, NULL },
		{ NULL, NULL, NULL },
	};
	const char *pos[1];
	int npos;
	if (cli_take_repeated(c, "health", "--db", dbs, HEALTH_MAX_DB, &ndb) || cli_parse(c, "health", opts, pos, 0, &npos))
		return CLI_EXIT_ERROR;
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

	int64_t now = now_ms(), sil = (int64_t)(silence * 1000);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "health");
	struct hctx h = { o, db[0], all, ndb > 1 ? 0 : -1, &e };
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
		apenet_out_arr_begin_vertical(o, "incidents");
		for (int i = 0; i < ndb && !failed; i++) {
			h.db = db[i];
			h.db_index = ndb > 1 ? i : -1;
			if (apenet_hdb_incidents_each(db[i], !incidents, 0, INT64_MAX, on_incident, &h, &e))
				failed = 1;
		}
		apenet_out_arr_end(o);
		h.db = db[0];
		if (!failed && node) {
			if (one_node(&h, xyz, now, sil))
				failed = 1;
		} else if (!failed) {
			apenet_out_arr_begin(o, "nodes");
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
