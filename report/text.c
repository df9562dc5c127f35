/*
 * The report as text, for a terminal or a ticket: sections with headings,
 * tables in fixed columns, trends as sparklines of block characters.  It is
 * a document laid out for reading, not a record: scripts take the JSON.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/esc.h"
#include "apenet/out.h"
#include "apenet/slurm.h"
#include "postmortem_int.h"

/* A string from the database, a black box, a config or a file name, as
 * printable text (apenet/esc.h: control characters as \xNN, so none ends a
 * line or reaches the terminal as an escape): T() around every such %s.  A
 * ring of buffers, so that one fprintf can take several (at most 8); each
 * holds the longest field of the model (512 bytes) escaped whole. */
#define T_RING 8
static const char *T(const char *s)
{
	static _Thread_local char ring[T_RING][4 * 512 + 4];
	static _Thread_local unsigned next;
	char *b = ring[next++ % T_RING];
	apenet_esc_text(b, sizeof(ring[0]), s);
	return b;
}

static void heading(FILE *f, const char *h)
{
	fprintf(f, "\n%s\n", h);
	for (const char *p = h; *p; p++)
		fputc('-', f);
	fputc('\n', f);
}

static void incident_line(FILE *f, const struct apenet_postmortem *pm, const struct apenet_hdb_incident *in)
{
	char o[24], c[24], where[96];
	if (in->has_far)
		snprintf(where, sizeof(where), "%u,%u,%u %s - %u,%u,%u %s", in->node[0], in->node[1], in->node[2], in->link,
			 in->far[0], in->far[1], in->far[2], in->far_link);
	else
		snprintf(where, sizeof(where), "%u,%u,%u%s%s", in->node[0], in->node[1], in->node[2], in->link[0] ? " " : "",
			 in->link);
	fprintf(f, "  #%-5lld %-18s %-26s %-7s rule %-20s opened %s", (long long)in->id, T(in->component), T(where),
		apenet_hdb_state_name(in->state), T(in->rule), apenet_postmortem_since_first(pm, in->opened_ms, o, sizeof(o)));
	if (in->closed_ms)
		fprintf(f, ", %s %s", in->state == APENET_HDB_MERGED ? "merged" : "closed", apenet_postmortem_since_first(pm, in->closed_ms, c, sizeof(c)));
	if (in->merged_into)
		fprintf(f, " into #%lld", (long long)in->merged_into);
	fprintf(f, ", %u evidence\n", in->evidence);
}

static void event_line(FILE *f, const struct apenet_postmortem *pm, const struct apenet_postmortem_event *ev)
{
	char t[40], r[32], who[24], path[24];
	apenet_postmortem_who(ev, who, sizeof(who));
	snprintf(path, sizeof(path), "%s%s%s", apenet_hdb_path_name(ev->path), ev->via[0] ? " " : "", ev->via);
	fprintf(f, "%s %-24s %14s  %-10s %-18s ", ev->first ? "*" : " ", apenet_out_iso_ms(ev->time_ms, t, sizeof(t)),
		apenet_postmortem_since_first(pm, ev->time_ms, r, sizeof(r)), who, T(path));
	if (ev->kind == APENET_POSTMORTEM_TRANSITION) {
		fprintf(f, "%u,%u,%u %s%s%s %s->%s", ev->node[0], ev->node[1], ev->node[2], T(ev->where), ev->where[0] ? " " : "",
			T(ev->code), apenet_postmortem_status_name(ev->old_status), apenet_postmortem_status_name(ev->new_status));
		if (!isnan(ev->value))
			fprintf(f, " %g%s%s", ev->value, ev->unit[0] ? " " : "", T(ev->unit));
		if (ev->text[0])
			fprintf(f, ": %s", T(ev->text));
	} else {
		fprintf(f, "%s", T(ev->text));
	}
	if (ev->incident && ev->kind == APENET_POSTMORTEM_TRANSITION)
		fprintf(f, " [#%lld]", (long long)ev->incident);
	fputc('\n', f);
}

/* A sparkline of block characters (UTF-8), width columns. */
static void spark(FILE *f, const struct apenet_postmortem_series *s, unsigned width)
{
	static const char *const lv[] = { "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	double lo = s->min, hi = s->max;
	for (unsigned c = 0; c < width; c++) {
		if (!s->n) {
			fputc(' ', f);
			continue;
		}
		unsigned i = (unsigned)((double)c * s->n / width);
		double v = s->v[i < s->n ? i : s->n - 1];
		int k = hi > lo ? (int)((v - lo) / (hi - lo) * 7.0 + 0.5) : 0;
		fputs(lv[k < 0 ? 0 : k > 7 ? 7 : k], f);
	}
}

static void trends(FILE *f, const struct apenet_postmortem *pm)
{
	char a[40], b[40], u[40], v[40];
	for (unsigned i = 0; i < pm->ntrend; i++) {
		const struct apenet_postmortem_trend *t = &pm->trend[i];
		fprintf(f, "  node %u,%u,%u: %s\n    %u samples, %s .. %s (%s .. %s)%s%s\n", t->node[0], t->node[1], t->node[2],
			T(t->file), t->samples, apenet_out_iso_ms(t->from_ms, a, sizeof(a)), apenet_out_iso_ms(t->to_ms, b, sizeof(b)),
			apenet_postmortem_since_first(pm, t->from_ms, u, sizeof(u)), apenet_postmortem_since_first(pm, t->to_ms, v, sizeof(v)), t->reason[0] ? "; dumped: " : "",
			T(t->reason));
		if (t->unreadable_ms)
			fprintf(f, "    the card read all-ones (off the bus) from %s\n", apenet_postmortem_since_first(pm, t->unreadable_ms, u, sizeof(u)));
		for (unsigned k = 0; k < t->nseries; k++) {
			const struct apenet_postmortem_series *s = &t->series[k];
			fprintf(f, "    %-26s ", T(s->label));
			spark(f, s, 32);
			fprintf(f, "  %9.4g .. %-9.4g %-2s at fault %-9.4g%s%s%s%s\n", s->min, s->max, T(s->unit), s->at_fault,
				s->crossed || s->notable ? "  <- " : "", s->crossed ? T(s->crossed_note) : "",
				s->crossed && s->notable ? "; " : "", s->notable ? T(s->note) : "");
		}
	}
}

static void cables(FILE *f, const struct apenet_postmortem *pm)
{
	char d[40];
	for (unsigned i = 0; i < pm->ncable; i++) {
		const struct apenet_postmortem_cable *c = &pm->cable[i];
		fprintf(f, "  %u,%u,%u %s", c->node[0], c->node[1], c->node[2], T(c->link));
		if (c->has_far)
			fprintf(f, " - %u,%u,%u %s", c->far[0], c->far[1], c->far[2], T(c->far_link));
		fprintf(f, " (incident #%lld): ", (long long)c->incident);
		const char *from, *serial = apenet_postmortem_cable_serial(c, &from);
		if (c->known) {
			fprintf(f, "serial %s, %s %s", T(c->cable.serial), T(c->cable.vendor), T(c->cable.part));
			if (!isnan(c->cable.length_m))
				fprintf(f, ", %.1f m", c->cable.length_m);
			fputc('\n', f);
		} else if (serial) {
			const struct apenet_postmortem_module *m = c->ends[0].serial[0] ? &c->ends[0] : &c->ends[1];
			fprintf(f, "serial %s, %s %s", T(m->serial), T(m->vendor), T(m->part));
			if (!isnan(m->length_m))
				fprintf(f, ", %.1f m", m->length_m);
			fprintf(f, " (its module, as the agent read it; no cable record)\n");
		} else {
			fprintf(f, "no cable on record at either end, no module read in a black box\n");
		}
		for (int k = 0; k < 2; k++) {
			const struct apenet_postmortem_module *m = &c->ends[k];
			const unsigned *xyz = k ? c->far : c->node;
			if (m->serial[0])
				fprintf(f, "    module at %u,%u,%u %s (black box): serial %s, %s %s\n", xyz[0], xyz[1], xyz[2],
					T(m->port), T(m->serial), T(m->vendor), T(m->part));
		}
		if (serial && !c->ncerts)
			fprintf(f, "    never qualified\n");
		for (unsigned k = 0; k < c->ncerts; k++) {
			const struct apenet_hdb_cert *x = &c->certs[k];
			fprintf(f, "    certificate %s: %-12s BER target %.0e, %llu bits, %llu errors, upper %.2e%s\n",
				apenet_out_iso_ms(x->finished_ms, d, sizeof(d)), T(x->verdict), x->target, (unsigned long long)x->bits,
				(unsigned long long)x->errors, x->upper, x->swept ? ", swept" : "");
		}
		for (unsigned k = 0; k < c->nearlier; k++) {
			const struct apenet_hdb_incident *x = &c->earlier[k];
			fprintf(f, "    earlier fault: #%lld %s %s, rule %s\n", (long long)x->id, T(x->component),
				apenet_out_iso_ms(x->opened_ms, d, sizeof(d)), T(x->rule));
		}
	}
}

int apenet_postmortem_write_text(const struct apenet_postmortem *pm, FILE *f)
{
	char a[40], b[40], r[40];
	const struct apenet_hdb_incident *main = apenet_postmortem_main_incident(pm);
	if (pm->by_incident && main)
		fprintf(f, "POST-MORTEM REPORT: incident #%lld, %s of node %u,%u,%u%s%s (%s)\n", (long long)main->id,
			T(main->component), main->node[0], main->node[1], main->node[2], main->link[0] ? " " : "", T(main->link),
			apenet_hdb_state_name(main->state));
	else
		fprintf(f, "POST-MORTEM REPORT: %s .. %s%s\n", apenet_out_iso_ms(pm->from_ms, a, sizeof(a)),
			apenet_out_iso_ms(pm->to_ms, b, sizeof(b)), pm->has_node ? " (one node)" : "");
	/* the three lines to read if nothing else is read */
	fprintf(f, "  What failed  %s\n  Since        %s\n  Affected     %s\n\n", T(pm->summary.failed), T(pm->summary.since),
		T(pm->summary.affected));
	fprintf(f, "database   %s\ngenerated  %s\nwindow     %s .. %s (UTC)\n", T(pm->db),
		apenet_out_iso_ms(pm->generated_ms, r, sizeof(r)), apenet_out_iso_ms(pm->from_ms, a, sizeof(a)),
		apenet_out_iso_ms(pm->to_ms, b, sizeof(b)));
	if (pm->has_node)
		fprintf(f, "node       %u,%u,%u\n", pm->node[0], pm->node[1], pm->node[2]);

	heading(f, "First fault");
	if (pm->has_first) {
		const struct apenet_postmortem_event *x = &pm->first;
		char who[96];
		fprintf(f, "  %s  node %s", apenet_out_iso_ms(x->time_ms, a, sizeof(a)), T(apenet_postmortem_node_label(pm, x->node, who, sizeof(who))));
		if (x->code[0])
			fprintf(f, " %s %s %s->%s", T(x->where), T(x->code), apenet_postmortem_status_name(x->old_status),
				apenet_postmortem_status_name(x->new_status));
		if (x->has_reporter)
			fprintf(f, ", reported by %u,%u,%u (%s%s%s)", x->reporter[0], x->reporter[1], x->reporter[2],
				apenet_hdb_path_name(x->path), x->via[0] ? " via " : "", T(x->via));
		else
			fprintf(f, ", seen by the supervisor (%s)", apenet_hdb_path_name(x->path));
		fprintf(f, "%s%s\n", x->text[0] ? ": " : "", T(x->text));
		fprintf(f, "  blamed: %s of node %s%s%s", T(pm->first_component),
			T(apenet_postmortem_node_label(pm, pm->first_blamed, who, sizeof(who))),
			pm->first_link[0] ? " link " : "", T(pm->first_link));
		if (pm->first_has_far)
			fprintf(f, " - %u,%u,%u %s", pm->first_far[0], pm->first_far[1], pm->first_far[2], T(pm->first_far_link));
		if (pm->first_incident)
			fprintf(f, " (incident #%lld)", (long long)pm->first_incident);
		fputc('\n', f);
	} else {
		fprintf(f, "  nothing went wrong in this window\n");
	}

	heading(f, "Incidents");
	if (!pm->ninc)
		fprintf(f, "  none\n");
	for (unsigned i = 0; i < pm->ninc; i++)
		incident_line(f, pm, &pm->inc[i]);

	heading(f, "Propagation: who saw it, when (relative to the first fault)");
	if (!pm->nseen)
		fprintf(f, "  -\n");
	for (unsigned i = 0; i < pm->nseen; i++) {
		const struct apenet_postmortem_seen *s = &pm->seen[i];
		char path[24];
		snprintf(path, sizeof(path), "%s%s%s", apenet_hdb_path_name(s->path), s->via[0] ? " " : "", s->via);
		fprintf(f, "  %14s  %-10s %-20s %3ux  %s\n", apenet_postmortem_rel(s->delta_ms, r, sizeof(r)), T(s->observer), T(path),
			s->count, T(s->what));
	}

	heading(f, "Timeline (UTC; * the first fault; [#n] evidence of incident n)");
	for (size_t i = 0; i < pm->nev; i++)
		event_line(f, pm, &pm->ev[i]);
	if (pm->omitted)
		fprintf(f, "  ... %llu more transitions in the window are not listed (--max-events; all of them: "
			   "apenet db export --since %lld --until %lld)\n",
			(unsigned long long)pm->omitted, (long long)pm->from_ms, (long long)pm->to_ms);

	heading(f, "Trends before the fault (black boxes)");
	if (!pm->ntrend)
		fprintf(f, "  none read (--blackbox DIR)\n");
	trends(f, pm);

	heading(f, "Cables");
	if (!pm->ncable)
		fprintf(f, "  none involved\n");
	cables(f, pm);

	if (pm->nslurm) {
		/* only when it acted: slurm.enabled is the site's choice */
		heading(f, "Batch scheduler (Slurm)");
		for (unsigned i = 0; i < pm->nslurm; i++) {
			const struct apenet_hdb_slurm_action *sa = &pm->slurm[i];
			char t[40];
			fprintf(f, "  %s  #%lld  %s %s (%u,%u,%u): %s\n", apenet_out_iso_ms(sa->time_ms, t, sizeof(t)),
				(long long)sa->incident, apenet_slurm_verb_name(sa->verb), sa->host[0] ? T(sa->host) : "-",
				sa->node[0], sa->node[1], sa->node[2], T(sa->message));
		}
	}

	heading(f, "Recommendations");
	for (unsigned i = 0; i < pm->nrec; i++)
		fprintf(f, "  %u. %s\n", i + 1, T(pm->rec[i].text));
	if (!pm->nrec)
		fprintf(f, "  none\n");
	if (pm->nnotes) {
		heading(f, "Notes");
		for (unsigned i = 0; i < pm->nnotes; i++)
			fprintf(f, "  - %s\n", T(pm->notes[i]));
	}
	return ferror(f) ? -1 : 0;
}
