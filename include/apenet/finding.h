/*
 * Findings: what the one judge (lofamo/) says about a sample.  Every rule,
 * whatever it looks at (board, link, lane, module, sensor, cabling), returns
 * the same record: a subject and where it is (link, lane), a stable code
 * (docs/verdicts.md), a severity, the value it judged against its
 * threshold (with the unit), the evidence that makes it sure (for rates: the
 * events, the interval and the confidence bound) and a recommendation in
 * plain words.  The CLI prints them, the agent turns their changes into
 * transitions, SNMP serves them, the supervisor stores them.
 *
 * A list grows as needed: there is no cap that drops findings.  When memory
 * runs out a finding is counted in `lost` (and shown as lost), never dropped
 * in silence; the library never exits.
 */
#ifndef APENET_FINDING_H
#define APENET_FINDING_H

#include <stddef.h>

enum apenet_sev { APENET_SEV_OK = 0, APENET_SEV_WARN = 1, APENET_SEV_FAIL = 2 };

/* A finding's location: room for a file name (255 bytes) and its NUL. */
#define APENET_FINDING_WHERE_MAX 256

enum apenet_subject {
	APENET_SUBJ_BOARD,
	APENET_SUBJ_LINK,
	APENET_SUBJ_LANE,
	APENET_SUBJ_MODULE,
	APENET_SUBJ_SENSOR,
	APENET_SUBJ_CABLING,
};

struct apenet_finding {
	enum apenet_sev sev;
	enum apenet_subject subject;
	int link;              /* link (or module port) index, -1 when none */
	int lane;              /* lane index, -1 when none */
	/*
	 * The link's or port's name ("X+"), sensor ("fpga_temp"), a module
	 * dump's file name, or "".  Any file name fits whole (NAME_MAX is
	 * 255); what does not fit ends in "..." (never a silent cut).
	 */
	char where[APENET_FINDING_WHERE_MAX];
	char code[32];         /* stable, docs/verdicts.md */
	double value;          /* what was judged; NaN when nothing numeric */
	double threshold;      /* the limit it crossed; NaN when none */
	char unit[16];         /* of value and threshold ("C", "/min", "%", "mV") */
	char evidence[200];    /* why it is sure: counts, interval, confidence bound, flags */
	char message[320];     /* what is wrong, in words */
	char rec[320];         /* what to do about it */
};

struct apenet_findings {
	struct apenet_finding *f;
	size_t n, cap;
	size_t lost;           /* findings that could not be stored (out of memory) */
	struct apenet_finding spare; /* written when storing failed, then counted as lost */
};

const char *apenet_sev_name(enum apenet_sev s);
const char *apenet_subject_name(enum apenet_subject s);

void apenet_findings_init(struct apenet_findings *fs);
/* Forget the findings and keep the memory (a daemon judges every period
 * without allocating once the list has grown to its working size). */
void apenet_findings_clear(struct apenet_findings *fs);
void apenet_findings_free(struct apenet_findings *fs);

/*
 * The one recommendation of a code whose advice is the same wherever it is
 * found (lofamo/rulebook.c, docs/verdicts.md word for word); NULL for a
 * code whose rule words its own because it names a place ("the cable to
 * node 2,0,0"), or that recommends nothing.  Whoever words advice about the
 * same condition elsewhere (the post-mortem report) takes it from here.
 */
const char *apenet_code_rec(const char *code);
/* The i-th code and its recommendation; 0 past the last (for the test
 * that holds docs/verdicts.md to them). */
int apenet_code_rec_row(size_t i, const char **code, const char **rec);

/* Adds a finding with NaN value/threshold, empty message and evidence and
 * its code's recommendation (apenet_code_rec; else empty), and returns it
 * for the rule to fill (never NULL). */
struct apenet_finding *apenet_finding_add(struct apenet_findings *fs, enum apenet_sev sev,
					  enum apenet_subject subj, int link, int lane, const char *where,
					  const char *code);
/* Sets the location (NULL: none); one too long for it ends in "...". */
void apenet_finding_where(struct apenet_finding *f, const char *where);
void apenet_finding_message(struct apenet_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void apenet_finding_rec(struct apenet_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void apenet_finding_evidence(struct apenet_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends "; " and a fact of this finding to its recommendation (the
 * --max-time that would allow a test): the code's wording stays as it is. */
void apenet_finding_rec_fact(struct apenet_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* value, threshold and unit in one call. */
void apenet_finding_measure(struct apenet_finding *f, double value, double threshold, const char *unit);
/* Appends a copy of every finding of src. */
void apenet_findings_append(struct apenet_findings *dst, const struct apenet_findings *src);

/* The worst severity, and the index of the first finding with it (-1 when
 * the list is empty: "OK"). */
enum apenet_sev apenet_findings_worst(const struct apenet_findings *fs, long *idx);
/* The same restricted to one subject kind and link (link -1: any). */
enum apenet_sev apenet_findings_worst_at(const struct apenet_findings *fs, int link, long *idx);

struct apenet_out;
/* The top-level "findings" array (lost findings shown as FINDINGS_LOST). */
void apenet_findings_write(struct apenet_out *o, const struct apenet_findings *fs);
/* A verdict object {severity, code, message, recommendation}: the worst
 * finding (of one link; link -1: of all), or "OK". */
void apenet_verdict_write(struct apenet_out *o, const char *key, const struct apenet_findings *fs, int link);

#endif
