/*
 * Findings through the one output writer: every command prints them the same
 * way.  JSON: a top-level "findings" array, each with subject, link, lane,
 * code, severity, value, threshold, unit, evidence, message and
 * recommendation.  Text and CSV: one line a finding.
 */
#include <stdio.h>

#include "apenet/finding.h"
#include "apenet/out.h"

/* Text: a table of severity, where, code and one sentence with the
 * recommendation and the evidence; JSON and CSV: every field. */
static void one(struct apenet_out *o, const struct apenet_finding *f)
{
	apenet_out_obj_begin(o, NULL);
	if (apenet_out_format(o) == APENET_OUT_TEXT) {
		apenet_out_str(o, "severity", apenet_sev_name(f->sev));
		apenet_out_str(o, "where", f->where[0] ? f->where : "-");
		apenet_out_str(o, "code", f->code);
		apenet_out_strf(o, "finding", "%s%s%s%s%s%s", f->message, f->rec[0] ? "; " : "", f->rec,
				f->evidence[0] ? " [" : "", f->evidence, f->evidence[0] ? "]" : "");
		apenet_out_obj_end(o);
		return;
	}
	apenet_out_str(o, "subject", apenet_subject_name(f->subject));
	if (f->subject != APENET_SUBJ_SENSOR && f->subject != APENET_SUBJ_BOARD && f->where[0])
		apenet_out_str(o, "link", f->where);
	else
		apenet_out_null(o, "link");
	if (f->subject == APENET_SUBJ_SENSOR)
		apenet_out_str(o, "sensor", f->where);
	if (f->lane >= 0)
		apenet_out_int(o, "lane", f->lane);
	else
		apenet_out_null(o, "lane");
	apenet_out_str(o, "code", f->code);
	apenet_out_str(o, "severity", apenet_sev_name(f->sev));
	apenet_out_dbl(o, "value", f->value, 6);
	apenet_out_dbl(o, "threshold", f->threshold, 6);
	apenet_out_str(o, "unit", f->unit[0] ? f->unit : NULL);
	apenet_out_str(o, "evidence", f->evidence[0] ? f->evidence : NULL);
	apenet_out_str(o, "message", f->message);
	apenet_out_str(o, "recommendation", f->rec[0] ? f->rec : NULL);
	apenet_out_obj_end(o);
}

void apenet_findings_write(struct apenet_out *o, const struct apenet_findings *fs)
{
	apenet_out_arr_begin(o, "findings");
	for (size_t i = 0; i < fs->n; i++)
		one(o, &fs->f[i]);
	if (fs->lost) {
		struct apenet_finding f = { .sev = APENET_SEV_WARN, .subject = APENET_SUBJ_BOARD, .link = -1, .lane = -1,
					    .code = "FINDINGS_LOST", .value = (double)fs->lost, .threshold = 0 / 0.0 };
		snprintf(f.message, sizeof(f.message), "%zu findings could not be stored (out of memory)", fs->lost);
		one(o, &f);
	}
	apenet_out_arr_end(o);
}

void apenet_verdict_write(struct apenet_out *o, const char *key, const struct apenet_findings *fs, int link)
{
	long i;
	enum apenet_sev w = apenet_findings_worst_at(fs, link, &i);
	const struct apenet_finding *f = i >= 0 ? &fs->f[i] : NULL;
	char t[1000];
	if (f)
		snprintf(t, sizeof(t), "%s %s: %s%s%s", apenet_sev_name(w), f->code, f->message, f->rec[0] ? "; " : "",
			 f->rec);
	else
		snprintf(t, sizeof(t), "ok");
	apenet_out_obj_begin_text(o, key, t);
	apenet_out_str(o, "severity", apenet_sev_name(w));
	apenet_out_str(o, "code", f ? f->code : "OK");
	apenet_out_str(o, "message", f ? f->message : "no finding");
	apenet_out_str(o, "recommendation", f && f->rec[0] ? f->rec : "none");
	apenet_out_obj_end(o);
}
