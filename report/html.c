/*
 * The report as one self-contained HTML file: inline CSS and inline SVG,
 * no script, no font or image fetched.  The page says so itself with a
 * Content-Security-Policy that forbids everything else, so a browser that
 * opens it from a ticket fetches nothing, and a value from the database
 * that tried to be markup would stay text: every one goes through
 * apenet_esc_html_put (apenet/esc.h; control characters shown as \xNN).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/esc.h"
#include "apenet/out.h"
#include "apenet/slurm.h"
#include "postmortem_int.h"

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}"
	"h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;font-size:12px}td,th{padding:2px 8px;text-align:left;vertical-align:top}"
	"tr:nth-child(even){background:#f4f4f4}th{background:#e8e8e8}"
	".meta{color:#555;font-size:12px}.mono,td.t{font-family:ui-monospace,monospace;white-space:nowrap}"
	".first td{background:#fde0e0;font-weight:600}.sick{color:#9a7d00}.broken,.invalid{color:#c00}.normal{color:#2a7d2a}"
	".box{border:1px solid #d62728;background:#fff5f5;padding:8px 12px;border-radius:4px}"
	".note{color:#9a4d00}#summary{margin:8px 0;font-size:14px}#summary th{background:none;padding-right:16px}"
	"#summary tr{background:none}"
	"svg text{font:11px system-ui,sans-serif;fill:#222}svg .nl{text-anchor:middle;font-size:10px}"
	"svg .lk{stroke:#bbb;stroke-width:2}svg .bad{stroke:#d62728;stroke-width:6}svg .nd{stroke:#555;stroke-width:1}"
	"svg .lane{stroke:#eee}svg .axis{stroke:#888}svg .tick{text-anchor:middle;font-size:10px;fill:#555}"
	"svg .first{stroke:#d62728;stroke-dasharray:3,2}svg .mk{stroke:#333;stroke-width:.5}"
	"svg .sp{fill:none;stroke:#1f77b4;stroke-width:1.5}svg .wrap{fill:#d62728}svg .wl{font-size:9px;fill:#d62728}";

static void esc(FILE *f, const char *s)
{
	apenet_esc_html_put(f, s);
}

static void td_time(FILE *f, const struct apenet_postmortem *pm, int64_t ms)
{
	char a[40], r[32];
	fprintf(f, "<td class=\"t\">%s</td><td class=\"t\">%s</td>", apenet_out_iso_ms(ms, a, sizeof(a)),
		apenet_postmortem_since_first(pm, ms, r, sizeof(r)));
}

static void node_td(FILE *f, const struct apenet_postmortem *pm, const unsigned xyz[3])
{
	char b[96];
	fputs("<td class=\"t\">", f);
	esc(f, apenet_postmortem_node_label(pm, xyz, b, sizeof(b)));
	fputs("</td>", f);
}

static void timeline_table(FILE *f, const struct apenet_postmortem *pm)
{
	fputs("<table><tr><th>time (UTC)</th><th>since first fault</th><th>reported by</th><th>path</th>"
	      "<th>about</th><th>what</th><th>incident</th></tr>\n",
	      f);
	for (size_t i = 0; i < pm->nev; i++) {
		const struct apenet_postmortem_event *ev = &pm->ev[i];
		fprintf(f, "<tr%s>", ev->first ? " class=\"first\"" : "");
		td_time(f, pm, ev->time_ms);
		char who[24];
		fprintf(f, "<td class=\"t\">%s</td>", apenet_postmortem_who(ev, who, sizeof(who)));
		fprintf(f, "<td>%s ", apenet_hdb_path_name(ev->path));
		esc(f, ev->via);
		fputs("</td>", f);
		if (ev->kind == APENET_POSTMORTEM_TRANSITION) {
			fprintf(f, "<td class=\"t\">%u,%u,%u ", ev->node[0], ev->node[1], ev->node[2]);
			esc(f, ev->where);
			fputs("</td><td>", f);
			esc(f, ev->code);
			fprintf(f, " <span class=\"%s\">%s</span>&rarr;<span class=\"%s\">%s</span>",
				apenet_postmortem_status_name(ev->old_status), apenet_postmortem_status_name(ev->old_status),
				apenet_postmortem_status_name(ev->new_status), apenet_postmortem_status_name(ev->new_status));
			if (!isnan(ev->value)) {
				fprintf(f, " %g ", ev->value);
				esc(f, ev->unit);
			}
			if (ev->text[0]) {
				fputs(": ", f);
				esc(f, ev->text);
			}
		} else {
			fputs("<td></td><td>", f);
			esc(f, ev->text);
		}
		fputs("</td><td>", f);
		if (ev->incident)
			fprintf(f, "#%lld", (long long)ev->incident);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (pm->omitted)
		fprintf(f, "<p class=\"note\">%llu more transitions in the window are not listed (--max-events); all of "
			   "them: <code>apenet db export --since %lld --until %lld</code></p>\n",
			(unsigned long long)pm->omitted, (long long)pm->from_ms, (long long)pm->to_ms);
}

static void trends(FILE *f, const struct apenet_postmortem *pm)
{
	char a[40], b[40], ra[32], rb[32];
	if (!pm->ntrend)
		fputs("<p>No black box read (<code>--blackbox DIR</code>).</p>\n", f);
	for (unsigned i = 0; i < pm->ntrend; i++) {
		const struct apenet_postmortem_trend *t = &pm->trend[i];
		fprintf(f, "<h3>node %u,%u,%u</h3><p class=\"meta\">", t->node[0], t->node[1], t->node[2]);
		esc(f, t->file);
		fprintf(f, ": %u samples, %s .. %s (%s .. %s)", t->samples, apenet_out_iso_ms(t->from_ms, a, sizeof(a)),
			apenet_out_iso_ms(t->to_ms, b, sizeof(b)), apenet_postmortem_since_first(pm, t->from_ms, ra, sizeof(ra)),
			apenet_postmortem_since_first(pm, t->to_ms, rb, sizeof(rb)));
		if (t->reason[0]) {
			fputs("; dumped: ", f);
			esc(f, t->reason);
		}
		fputs("</p>\n<table><tr><th>series</th><th>before the fault (red: the first fault)</th><th>min</th>"
		      "<th>max</th><th>at the fault</th><th>unit</th><th></th></tr>\n",
		      f);
		for (unsigned k = 0; k < t->nseries; k++) {
			const struct apenet_postmortem_series *s = &t->series[k];
			fputs("<tr><td>", f);
			esc(f, s->label);
			fputs("</td><td>", f);
			apenet_postmortem_svg_spark(f, pm, s, t->from_ms, t->to_ms);
			fprintf(f, "</td><td>%.4g</td><td>%.4g</td><td>%.4g</td><td>", s->min, s->max, s->at_fault);
			esc(f, s->unit);
			fprintf(f, "</td><td class=\"note\">");
			if (s->crossed) {
				fputs("<b>", f);
				esc(f, s->crossed_note);
				fputs("</b>", f);
				if (s->notable)
					fputs("; ", f);
			}
			esc(f, s->note);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

/* "serial <b>S</b>, VENDOR PART, L m": a cable or module, escaped. */
static void cable_ident(FILE *f, const char *serial, const char *vendor, const char *part, double length_m)
{
	fputs("serial <b>", f);
	esc(f, serial);
	fputs("</b>, ", f);
	esc(f, vendor);
	fputc(' ', f);
	esc(f, part);
	if (!isnan(length_m))
		fprintf(f, ", %.1f m", length_m);
}

static void cables(FILE *f, const struct apenet_postmortem *pm)
{
	char d[40];
	if (!pm->ncable)
		fputs("<p>No cable involved.</p>\n", f);
	for (unsigned i = 0; i < pm->ncable; i++) {
		const struct apenet_postmortem_cable *c = &pm->cable[i];
		fprintf(f, "<h3>%u,%u,%u ", c->node[0], c->node[1], c->node[2]);
		esc(f, c->link);
		if (c->has_far) {
			fprintf(f, " &ndash; %u,%u,%u ", c->far[0], c->far[1], c->far[2]);
			esc(f, c->far_link);
		}
		fprintf(f, " (incident #%lld)</h3>\n<p>", (long long)c->incident);
		const char *serial = apenet_postmortem_cable_serial(c, NULL);
		if (!c->known && serial) {
			const struct apenet_postmortem_module *m = c->ends[0].serial[0] ? &c->ends[0] : &c->ends[1];
			cable_ident(f, m->serial, m->vendor, m->part, m->length_m);
			fputs(" (its module, as the agent read it; no cable record)", f);
		} else if (c->known) {
			cable_ident(f, c->cable.serial, c->cable.vendor, c->cable.part, c->cable.length_m);
		} else {
			fputs("No cable on record at either end, no module read in a black box.", f);
		}
		fputs("</p>\n", f);
		for (int k = 0; k < 2; k++) {
			const struct apenet_postmortem_module *m = &c->ends[k];
			const unsigned *xyz = k ? c->far : c->node;
			if (!m->serial[0])
				continue;
			fprintf(f, "<p class=\"meta\">module at %u,%u,%u ", xyz[0], xyz[1], xyz[2]);
			esc(f, m->port);
			fputs(" (black box): serial ", f);
			esc(f, m->serial);
			fputs(", ", f);
			esc(f, m->vendor);
			fputc(' ', f);
			esc(f, m->part);
			fputs("</p>\n", f);
		}
		if (c->ncerts) {
			fputs("<table><tr><th>certificate</th><th>verdict</th><th>target BER</th><th>bits</th><th>errors</th>"
			      "<th>upper bound</th><th>PMA</th></tr>\n",
			      f);
			for (unsigned k = 0; k < c->ncerts; k++) {
				const struct apenet_hdb_cert *x = &c->certs[k];
				fprintf(f, "<tr><td class=\"t\">%s</td><td>", apenet_out_iso_ms(x->finished_ms, d, sizeof(d)));
				esc(f, x->verdict);
				fprintf(f, "</td><td>%.0e</td><td>%llu</td><td>%llu</td><td>%.2e</td><td>%s</td></tr>\n", x->target,
					(unsigned long long)x->bits, (unsigned long long)x->errors, x->upper,
					x->swept ? "swept" : "defaults");
			}
			fputs("</table>\n", f);
		} else if (serial) {
			fputs("<p>Never qualified.</p>\n", f);
		}
		for (unsigned k = 0; k < c->nearlier; k++) {
			const struct apenet_hdb_incident *x = &c->earlier[k];
			fprintf(f, "<p>Earlier fault: #%lld ", (long long)x->id);
			esc(f, x->component);
			fprintf(f, " %s, rule ", apenet_out_iso_ms(x->opened_ms, d, sizeof(d)));
			esc(f, x->rule);
			fputs("</p>\n", f);
		}
	}
}

static void incidents(FILE *f, const struct apenet_postmortem *pm)
{
	char r[32];
	fputs("<table><tr><th>#</th><th>component</th><th>node</th><th>link</th><th>far end</th><th>rule</th>"
	      "<th>state</th><th>opened</th><th>closed</th><th>evidence</th></tr>\n",
	      f);
	for (unsigned i = 0; i < pm->ninc; i++) {
		const struct apenet_hdb_incident *in = &pm->inc[i];
		fprintf(f, "<tr><td>%lld</td><td>", (long long)in->id);
		esc(f, in->component);
		fputs("</td>", f);
		node_td(f, pm, in->node);
		fputs("<td>", f);
		esc(f, in->link);
		fputs("</td><td class=\"t\">", f);
		if (in->has_far) {
			fprintf(f, "%u,%u,%u ", in->far[0], in->far[1], in->far[2]);
			esc(f, in->far_link);
		}
		fputs("</td><td>", f);
		esc(f, in->rule);
		fprintf(f, "</td><td>%s</td><td class=\"t\">%s</td>", apenet_hdb_state_name(in->state),
			apenet_postmortem_since_first(pm, in->opened_ms, r, sizeof(r)));
		fprintf(f, "<td class=\"t\">%s</td><td>%u</td></tr>\n", in->closed_ms ? apenet_postmortem_since_first(pm, in->closed_ms, r, sizeof(r)) : "open",
			in->evidence);
	}
	fputs("</table>\n", f);
}

int apenet_postmortem_write_html(const struct apenet_postmortem *pm, FILE *f)
{
	char a[40], b[40], g[40];
	const struct apenet_hdb_incident *main = apenet_postmortem_main_incident(pm);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src data:\">\n<meta name=\"generator\" content=\"apenet report\">\n<title>",
	      f);
	if (pm->by_incident && main) {
		fprintf(f, "Post-mortem: incident #%lld, ", (long long)main->id);
		esc(f, main->component);
	} else {
		fprintf(f, "Post-mortem: %s .. %s", apenet_out_iso_ms(pm->from_ms, a, sizeof(a)), apenet_out_iso_ms(pm->to_ms, b, sizeof(b)));
	}
	fprintf(f, "</title>\n<style>%s</style></head><body>\n<h1>", css);
	if (pm->by_incident && main) {
		fprintf(f, "Post-mortem: incident #%lld, ", (long long)main->id);
		esc(f, main->component);
		fprintf(f, " of node %u,%u,%u ", main->node[0], main->node[1], main->node[2]);
		esc(f, main->link);
		fprintf(f, " (%s)", apenet_hdb_state_name(main->state));
	} else {
		fprintf(f, "Post-mortem: %s .. %s", apenet_out_iso_ms(pm->from_ms, a, sizeof(a)), apenet_out_iso_ms(pm->to_ms, b, sizeof(b)));
	}
	fputs("</h1>\n<table class=\"box\" id=\"summary\"><tr><th>What failed</th><td>", f);
	esc(f, pm->summary.failed);
	fputs("</td></tr><tr><th>Since</th><td>", f);
	esc(f, pm->summary.since);
	fputs("</td></tr><tr><th>Affected</th><td>", f);
	esc(f, pm->summary.affected);
	fputs("</td></tr></table>\n<p class=\"meta\">database ", f);
	esc(f, pm->db);
	fprintf(f, "; generated %s; window %s .. %s UTC</p>\n", apenet_out_iso_ms(pm->generated_ms, g, sizeof(g)),
		apenet_out_iso_ms(pm->from_ms, a, sizeof(a)), apenet_out_iso_ms(pm->to_ms, b, sizeof(b)));

	fputs("<h2>First fault</h2>\n<div class=\"box\" id=\"first-fault\">", f);
	if (pm->has_first) {
		const struct apenet_postmortem_event *x = &pm->first;
		char who[96];
		fprintf(f, "<b>%s</b>: node ", apenet_out_iso_ms(x->time_ms, a, sizeof(a)));
		esc(f, apenet_postmortem_node_label(pm, x->node, who, sizeof(who)));
		if (x->code[0]) {
			fputc(' ', f);
			esc(f, x->where);
			fputs(" <b>", f);
			esc(f, x->code);
			fprintf(f, "</b> %s&rarr;%s", apenet_postmortem_status_name(x->old_status), apenet_postmortem_status_name(x->new_status));
		}
		if (x->has_reporter)
			fprintf(f, ", reported by %u,%u,%u (%s) ", x->reporter[0], x->reporter[1], x->reporter[2],
				apenet_hdb_path_name(x->path));
		else
			fprintf(f, ", seen by the supervisor (%s) ", apenet_hdb_path_name(x->path));
		esc(f, x->text);
		fputs("<br>blamed: <b>", f);
		esc(f, pm->first_component);
		fputs("</b> of node ", f);
		esc(f, apenet_postmortem_node_label(pm, pm->first_blamed, who, sizeof(who)));
		if (pm->first_link[0]) {
			fputs(" link ", f);
			esc(f, pm->first_link);
		}
		if (pm->first_has_far) {
			fprintf(f, " &ndash; %u,%u,%u ", pm->first_far[0], pm->first_far[1], pm->first_far[2]);
			esc(f, pm->first_far_link);
		}
		if (pm->first_incident)
			fprintf(f, " (incident #%lld)", (long long)pm->first_incident);
	} else {
		fputs("Nothing went wrong in this window.", f);
	}
	fputs("</div>\n<h2>Recommendations</h2>\n<ol id=\"recommendations\">\n", f);
	for (unsigned i = 0; i < pm->nrec; i++) {
		fputs("<li>", f);
		esc(f, pm->rec[i].text);
		fputs("</li>\n", f);
	}
	fputs("</ol>\n<h2>Affected region</h2>\n", f);
	apenet_postmortem_svg_map(f, pm);
	fputs("<h2>Timeline</h2>\n", f);
	apenet_postmortem_svg_timeline(f, pm);
	fputs("<h2>Propagation: who saw it, when</h2>\n<table id=\"propagation\"><tr><th>since first fault</th>"
	      "<th>observer</th><th>path</th><th>count</th><th>what it saw first</th></tr>\n",
	      f);
	for (unsigned i = 0; i < pm->nseen; i++) {
		const struct apenet_postmortem_seen *s = &pm->seen[i];
		fprintf(f, "<tr><td class=\"t\">%s</td><td class=\"t\">", apenet_postmortem_rel(s->delta_ms, a, sizeof(a)));
		esc(f, s->observer);
		fprintf(f, "</td><td>%s ", apenet_hdb_path_name(s->path));
		esc(f, s->via);
		fprintf(f, "</td><td>%u</td><td>", s->count);
		esc(f, s->what);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<h2>Trends before the fault</h2>\n", f);
	trends(f, pm);
	fputs("<h2>Cables</h2>\n", f);
	cables(f, pm);
	if (pm->nslurm) {
		fputs("<h2>Batch scheduler (Slurm)</h2>\n<table id=\"slurm\"><tr><th>time</th><th>incident</th><th>action</th>"
		      "<th>node</th><th>host</th><th>outcome</th></tr>\n", f);
		for (unsigned i = 0; i < pm->nslurm; i++) {
			const struct apenet_hdb_slurm_action *sa = &pm->slurm[i];
			char t[40];
			fprintf(f, "<tr><td>%s</td><td>#%lld</td><td>%s</td><td>%u,%u,%u</td><td>",
				apenet_out_iso_ms(sa->time_ms, t, sizeof(t)), (long long)sa->incident,
				apenet_slurm_verb_name(sa->verb), sa->node[0], sa->node[1], sa->node[2]);
			esc(f, sa->host);
			fputs("</td><td>", f);
			esc(f, sa->message);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	fputs("<h2>Incidents</h2>\n", f);
	incidents(f, pm);
	fputs("<h2>Events</h2>\n", f);
	timeline_table(f, pm);
	if (pm->nnotes) {
		fputs("<h2>Notes</h2>\n<ul>\n", f);
		for (unsigned i = 0; i < pm->nnotes; i++) {
			fputs("<li>", f);
			esc(f, pm->notes[i]);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}
