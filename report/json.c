/*
 * The report as JSON, through the one output writer (apenet/out.h): the
 * keys the issue names ("summary", "incident", "timeline", "first_fault",
 * "propagation", "trends", "cables", "recommendations") and the report's
 * own ("report", "incidents", "notes").  Every time is given three ways:
 * epoch ms (*_ms), UTC ISO 8601 (the bare key) and relative to the first
 * fault (*_rel_ms), so a script needs no date parsing.
 */
#include <math.h>
#include <string.h>

#include "apenet/out.h"
#include "apenet/slurm.h"
#include "postmortem_int.h"

static void xyz(struct apenet_out *o, const char *key, const unsigned v[3])
{
	apenet_out_strf(o, key, "%u,%u,%u", v[0], v[1], v[2]);
}

static void when(struct apenet_out *o, const struct apenet_postmortem *pm, const char *key, int64_t ms)
{
	char buf[40], k[48];
	apenet_out_str(o, key, ms > 0 ? apenet_out_iso_ms(ms, buf, sizeof(buf)) : NULL);
	snprintf(k, sizeof(k), "%s_ms", key);
	apenet_out_int(o, k, ms);
	snprintf(k, sizeof(k), "%s_rel_ms", key);
	if (pm->has_first && ms > 0)
		apenet_out_int(o, k, ms - pm->first.time_ms);
	else
		apenet_out_null(o, k);
}

static void incident(struct apenet_out *o, const struct apenet_postmortem *pm, const char *key,
		     const struct apenet_hdb_incident *in)
{
	apenet_out_obj_begin(o, key);
	apenet_out_int(o, "id", in->id);
	apenet_out_str(o, "component", in->component);
	xyz(o, "node", in->node);
	apenet_out_str(o, "node_name", in->node_name);
	apenet_out_str(o, "link", in->link);
	if (in->has_far) {
		xyz(o, "far_node", in->far);
		apenet_out_str(o, "far_link", in->far_link);
	} else {
		apenet_out_null(o, "far_node");
		apenet_out_null(o, "far_link");
	}
	apenet_out_str(o, "rule", in->rule);
	apenet_out_str(o, "state", apenet_hdb_state_name(in->state));
	when(o, pm, "opened", in->opened_ms);
	when(o, pm, "closed", in->closed_ms);
	if (in->merged_into)
		apenet_out_int(o, "merged_into", in->merged_into);
	apenet_out_uint(o, "evidence", in->evidence);
	/* what the batch scheduler was told, and what became of it */
	apenet_out_arr_begin(o, "slurm");
	for (unsigned i = 0; i < pm->nslurm; i++) {
		const struct apenet_hdb_slurm_action *a = &pm->slurm[i];
		if (a->incident != in->id)
			continue;
		apenet_out_obj_begin(o, NULL);
		when(o, pm, "time", a->time_ms);
		apenet_out_str(o, "verb", apenet_slurm_verb_name(a->verb));
		xyz(o, "node", a->node);
		apenet_out_str(o, "host", a->host);
		apenet_out_str(o, "outcome", apenet_slurm_outcome_name(a->outcome));
		apenet_out_str(o, "message", a->message);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

static void event(struct apenet_out *o, const struct apenet_postmortem *pm, const char *key, const struct apenet_postmortem_event *ev)
{
	apenet_out_obj_begin(o, key);
	when(o, pm, "time", ev->time_ms);
	apenet_out_str(o, "kind", apenet_postmortem_kind_name(ev->kind));
	xyz(o, "node", ev->node);
	if (ev->has_reporter)
		xyz(o, "reporter", ev->reporter);
	else
		apenet_out_str(o, "reporter", ev->kind == APENET_POSTMORTEM_TRANSITION ? NULL : "supervisor");
	apenet_out_str(o, "path", apenet_hdb_path_name(ev->path));
	apenet_out_str(o, "via", ev->via);
	if (ev->kind == APENET_POSTMORTEM_TRANSITION) {
		apenet_out_str(o, "boot", ev->boot);
		apenet_out_uint(o, "seq", ev->seq);
		apenet_out_str(o, "subject", ev->subject);
		apenet_out_str(o, "where", ev->where);
		apenet_out_str(o, "code", ev->code);
		apenet_out_str(o, "old", apenet_postmortem_status_name(ev->old_status));
		apenet_out_str(o, "new", apenet_postmortem_status_name(ev->new_status));
		apenet_out_dbl(o, "value", ev->value, 6);
		apenet_out_dbl(o, "threshold", ev->threshold, 6);
		apenet_out_str(o, "unit", ev->unit);
	} else if (ev->kind == APENET_POSTMORTEM_OPENED) {
		apenet_out_str(o, "where", ev->where);
		apenet_out_str(o, "rule", ev->code);
	}
	apenet_out_str(o, "text", ev->text);
	if (ev->incident)
		apenet_out_int(o, "incident", ev->incident);
	else
		apenet_out_null(o, "incident");
	apenet_out_bool(o, "first", ev->first);
	apenet_out_obj_end(o);
}

static void series(struct apenet_out *o, const struct apenet_postmortem *pm, const struct apenet_postmortem_series *s)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", s->name);
	apenet_out_str(o, "label", s->label);
	apenet_out_str(o, "unit", s->unit);
	apenet_out_dbl(o, "first", s->first, 4);
	apenet_out_dbl(o, "at_fault", s->at_fault, 4);
	apenet_out_dbl(o, "last", s->last, 4);
	apenet_out_dbl(o, "min", s->min, 4);
	apenet_out_dbl(o, "max", s->max, 4);
	when(o, pm, "max_time", s->max_ms);
	apenet_out_bool(o, "notable", s->notable);
	apenet_out_str(o, "note", s->note);
	apenet_out_dbl(o, "warn_low", s->warn_low, 4);
	apenet_out_dbl(o, "warn_high", s->warn_high, 4);
	apenet_out_bool(o, "crossed", s->crossed);
	apenet_out_str(o, "crossed_note", s->crossed_note);
	/* [time relative to the first fault (ms), value] */
	apenet_out_arr_begin(o, "points");
	for (unsigned i = 0; i < s->n; i++) {
		apenet_out_arr_begin(o, NULL);
		apenet_out_int(o, NULL, pm->has_first ? s->t[i] - pm->first.time_ms : s->t[i]);
		apenet_out_dbl(o, NULL, s->v[i], 4);
		apenet_out_arr_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

static void cable(struct apenet_out *o, const struct apenet_postmortem *pm, const struct apenet_postmortem_cable *c)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_int(o, "incident", c->incident);
	xyz(o, "node", c->node);
	apenet_out_str(o, "link", c->link);
	if (c->has_far) {
		xyz(o, "far_node", c->far);
		apenet_out_str(o, "far_link", c->far_link);
	}
	/* the record's identity, else the module's (serial_from says which) */
	const char *from, *serial = apenet_postmortem_cable_serial(c, &from);
	const struct apenet_postmortem_module *m = c->ends[0].serial[0] ? &c->ends[0] : &c->ends[1];
	apenet_out_str(o, "serial", serial);
	apenet_out_str(o, "serial_from", from);
	apenet_out_str(o, "vendor", c->known ? c->cable.vendor : serial ? m->vendor : NULL);
	apenet_out_str(o, "part", c->known ? c->cable.part : serial ? m->part : NULL);
	apenet_out_dbl(o, "length_m", c->known ? c->cable.length_m : serial ? m->length_m : NAN, 2);
	apenet_out_arr_begin(o, "modules");
	for (int k = 0; k < 2; k++) {
		const struct apenet_postmortem_module *x = &c->ends[k];
		if (!x->serial[0])
			continue;
		apenet_out_obj_begin(o, NULL);
		xyz(o, "node", k ? c->far : c->node);
		apenet_out_str(o, "link", x->port);
		apenet_out_str(o, "serial", x->serial);
		apenet_out_str(o, "vendor", x->vendor);
		apenet_out_str(o, "part", x->part);
		apenet_out_dbl(o, "length_m", x->length_m, 2);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "certificates");
	for (unsigned i = 0; i < c->ncerts; i++) {
		const struct apenet_hdb_cert *k = &c->certs[i];
		apenet_out_obj_begin(o, NULL);
		apenet_out_int(o, "id", k->id);
		when(o, pm, "finished", k->finished_ms);
		xyz(o, "node", k->node);
		apenet_out_str(o, "link", k->link);
		apenet_out_str(o, "verdict", k->verdict);
		apenet_out_dbl(o, "target", k->target, 3);
		apenet_out_dbl(o, "cl", k->cl, 3);
		apenet_out_uint(o, "bits", k->bits);
		apenet_out_uint(o, "errors", k->errors);
		apenet_out_dbl(o, "upper", k->upper, 3);
		apenet_out_bool(o, "swept", k->swept);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_arr_begin(o, "earlier_faults");
	for (unsigned i = 0; i < c->nearlier; i++)
		incident(o, pm, NULL, &c->earlier[i]);
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

int apenet_postmortem_write_json(const struct apenet_postmortem *pm, FILE *f)
{
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, f, "report");
	char buf[40];

	apenet_out_obj_begin(o, "report");
	apenet_out_str(o, "database", pm->db);
	apenet_out_str(o, "generated", apenet_out_iso_ms(pm->generated_ms, buf, sizeof(buf)));
	apenet_out_str(o, "kind", pm->by_incident ? "incident" : "window");
	when(o, pm, "from", pm->from_ms);
	when(o, pm, "until", pm->to_ms);
	if (pm->has_node)
		xyz(o, "node", pm->node);
	if (pm->dims[0])
		apenet_out_strf(o, "dims", "%ux%ux%u", pm->dims[0], pm->dims[1], pm->dims[2]);
	else
		apenet_out_null(o, "dims");
	apenet_out_uint(o, "events", pm->nev);
	apenet_out_uint(o, "omitted", pm->omitted);
	apenet_out_obj_end(o);

	/* the three lines first: what failed, since when, what it affected */
	const struct apenet_hdb_incident *main = apenet_postmortem_main_incident(pm);
	apenet_out_obj_begin(o, "summary");
	apenet_out_str(o, "failed", pm->summary.failed);
	apenet_out_str(o, "since", pm->summary.since);
	apenet_out_str(o, "affected", pm->summary.affected);
	if (pm->has_first)
		apenet_out_int(o, "first_fault_ms", pm->first.time_ms);
	else
		apenet_out_null(o, "first_fault_ms");
	if (main && main->closed_ms)
		apenet_out_int(o, "over_ms", main->closed_ms);
	else
		apenet_out_null(o, "over_ms");
	apenet_out_obj_end(o);

	if (main)
		incident(o, pm, "incident", main);
	else
		apenet_out_null(o, "incident");
	apenet_out_arr_begin(o, "incidents");
	for (unsigned i = 0; i < pm->ninc; i++)
		incident(o, pm, NULL, &pm->inc[i]);
	apenet_out_arr_end(o);

	if (pm->has_first) {
		event(o, pm, "first_fault", &pm->first);
		apenet_out_obj_begin(o, "blamed");
		apenet_out_str(o, "component", pm->first_component);
		xyz(o, "node", pm->first_blamed);
		apenet_out_str(o, "link", pm->first_link);
		if (pm->first_has_far) {
			xyz(o, "far_node", pm->first_far);
			apenet_out_str(o, "far_link", pm->first_far_link);
		}
		apenet_out_obj_end(o);
	} else {
		apenet_out_null(o, "first_fault");
	}

	apenet_out_arr_begin(o, "propagation");
	for (unsigned i = 0; i < pm->nseen; i++) {
		const struct apenet_postmortem_seen *s = &pm->seen[i];
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "observer", s->observer);
		apenet_out_str(o, "path", apenet_hdb_path_name(s->path));
		apenet_out_str(o, "via", s->via);
		when(o, pm, "time", s->first_ms);
		apenet_out_uint(o, "count", s->count);
		apenet_out_str(o, "what", s->what);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);

	apenet_out_arr_begin(o, "timeline");
	for (size_t i = 0; i < pm->nev; i++)
		event(o, pm, NULL, &pm->ev[i]);
	apenet_out_arr_end(o);

	apenet_out_arr_begin(o, "trends");
	for (unsigned i = 0; i < pm->ntrend; i++) {
		const struct apenet_postmortem_trend *t = &pm->trend[i];
		apenet_out_obj_begin(o, NULL);
		xyz(o, "node", t->node);
		apenet_out_str(o, "file", t->file);
		apenet_out_str(o, "reason", t->reason);
		when(o, pm, "from", t->from_ms);
		when(o, pm, "until", t->to_ms);
		apenet_out_uint(o, "samples", t->samples);
		if (t->unreadable_ms)
			when(o, pm, "unreadable", t->unreadable_ms);
		apenet_out_arr_begin(o, "series");
		for (unsigned k = 0; k < t->nseries; k++)
			series(o, pm, &t->series[k]);
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);

	apenet_out_arr_begin(o, "cables");
	for (unsigned i = 0; i < pm->ncable; i++)
		cable(o, pm, &pm->cable[i]);
	apenet_out_arr_end(o);

	apenet_out_arr_begin(o, "recommendations");
	for (unsigned i = 0; i < pm->nrec; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "component", pm->rec[i].component);
		xyz(o, "node", pm->rec[i].node);
		apenet_out_str(o, "text", pm->rec[i].text);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);

	apenet_out_arr_begin(o, "notes");
	for (unsigned i = 0; i < pm->nnotes; i++)
		apenet_out_str(o, NULL, pm->notes[i]);
	apenet_out_arr_end(o);
	return apenet_out_finish(o);
}
