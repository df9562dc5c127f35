/* Findings: a growable list of what the rules found (include/apenet/finding.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/finding.h"
#include "apenet/out.h"

const char *apenet_sev_name(enum apenet_sev s)
{
	return s == APENET_SEV_FAIL ? "fail" : s == APENET_SEV_WARN ? "warn" : "ok";
}

const char *apenet_subject_name(enum apenet_subject s)
{
	static const char *const names[] = { "board", "link", "lane", "module", "sensor", "cabling" };
	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

void apenet_findings_init(struct apenet_findings *fs)
{
	memset(fs, 0, sizeof(*fs));
}

void apenet_findings_clear(struct apenet_findings *fs)
{
	fs->n = 0;
	fs->lost = 0;
}

void apenet_findings_free(struct apenet_findings *fs)
{
	free(fs->f);
	apenet_findings_init(fs);
}

static struct apenet_finding *slot(struct apenet_findings *fs)
{
	if (fs->n == fs->cap) {
		size_t cap = fs->cap ? fs->cap * 2 : 16;
		struct apenet_finding *f = realloc(fs->f, cap * sizeof(*f));
		if (!f) {
			fs->lost++;
			return &fs->spare;
		}
		fs->f = f;
		fs->cap = cap;
	}
	return &fs->f[fs->n++];
}

void apenet_finding_where(struct apenet_finding *f, const char *where)
{
	static const char more[] = "...";
	size_t n = where ? strlen(where) : 0;

	if (n < sizeof(f->where)) {
		memcpy(f->where, where ? where : "", n + 1);
		return;
	}
	/* Too long: cut where a UTF-8 character starts, and say so. */
	n = sizeof(f->where) - sizeof(more);
	while (n > 0 && ((unsigned char)where[n] & 0xc0) == 0x80)
		n--;
	memcpy(f->where, where, n);
	memcpy(f->where + n, more, sizeof(more));
}

struct apenet_finding *apenet_finding_add(struct apenet_findings *fs, enum apenet_sev sev,
					  enum apenet_subject subj, int link, int lane, const char *where,
					  const char *code)
{
	struct apenet_finding *f = slot(fs);
	memset(f, 0, sizeof(*f));
	f->sev = sev;
	f->subject = subj;
	f->link = link;
	f->lane = lane;
	apenet_finding_where(f, where);
	snprintf(f->code, sizeof(f->code), "%s", code);
	f->value = NAN;
	f->threshold = NAN;
	const char *rec = apenet_code_rec(code);
	if (rec)
		snprintf(f->rec, sizeof(f->rec), "%s", rec);
	return f;
}

#define VSET(field)                                                  \
	do {                                                         \
		va_list ap;                                          \
		va_start(ap, fmt);                                   \
		vsnprintf(f->field, sizeof(f->field), fmt, ap);      \
		va_end(ap);                                          \
	} while (0)

void apenet_finding_message(struct apenet_finding *f, const char *fmt, ...)
{
	VSET(message);
}

void apenet_finding_rec(struct apenet_finding *f, const char *fmt, ...)
{
	VSET(rec);
}

void apenet_finding_evidence(struct apenet_finding *f, const char *fmt, ...)
{
	VSET(evidence);
}

void apenet_finding_rec_fact(struct apenet_finding *f, const char *fmt, ...)
{
	size_t n = strlen(f->rec);
	if (n && n + 2 < sizeof(f->rec)) {
		memcpy(f->rec + n, "; ", 3);
		n += 2;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->rec + n, sizeof(f->rec) - n, fmt, ap);
	va_end(ap);
}

void apenet_finding_measure(struct apenet_finding *f, double value, double threshold, const char *unit)
{
	f->value = value;
	f->threshold = threshold;
	snprintf(f->unit, sizeof(f->unit), "%s", unit ? unit : "");
}

void apenet_findings_append(struct apenet_findings *dst, const struct apenet_findings *src)
{
	for (size_t i = 0; i < src->n; i++)
		*slot(dst) = src->f[i];
	dst->lost += src->lost;
}

enum apenet_sev apenet_findings_worst_at(const struct apenet_findings *fs, int link, long *idx)
{
	enum apenet_sev w = APENET_SEV_OK;
	long at = -1;
	for (size_t i = 0; i < fs->n; i++) {
		if (link >= 0 && fs->f[i].link != link)
			continue;
		if (at < 0 || fs->f[i].sev > w) {
			w = fs->f[i].sev;
			at = (long)i;
		}
	}
	if (idx)
		*idx = at;
	return w;
}

enum apenet_sev apenet_findings_worst(const struct apenet_findings *fs, long *idx)
{
	return apenet_findings_worst_at(fs, -1, idx);
}
