/*
 * The snapshot codec: a board view as the versioned `apenet snapshot`
 * document (JSON, schema apenet-diag/2) and back.  Errors name
 * file:line:column.
 *
 * A document holds one or more samples: `apenet snapshot` writes two, the
 * agent's black box hundreds.  Loading picks the pair a view is made of
 * (struct apenet_snapfile_pick): by default the last sample and the latest
 * one at least a second before it, never across a firmware reset.
 */
#ifndef APENET_SNAPFILE_H
#define APENET_SNAPFILE_H

#include <stdio.h>

#include "apenet/out.h"
#include "apenet/view.h"

/* Writes the view's members into the current object of o. */
void apenet_snapfile_write(const struct apenet_view *v, struct apenet_out *o);
int apenet_snapfile_load(const char *path, struct apenet_view *v, struct apenet_err *e);
/* The same from memory; name is used in messages. */
int apenet_snapfile_load_string(const char *name, const char *text, struct apenet_view *v, struct apenet_err *e);

/* Which pair of a document's samples a view is made of. */
enum apenet_at { APENET_AT_LAST, APENET_AT_TIME, APENET_AT_FROM_END, APENET_AT_FROM_START };
struct apenet_snapfile_pick {
	enum apenet_at at;      /* s1: the last sample; the last at or before a host epoch time
				   (at_ms); or at_ms before the last / after the first sample */
	int64_t at_ms;
	double interval_s;      /* s0: the latest sample at least this long before s1 (by host
				   time; the board's TIMESTAMP when a sample has none), not across a
				   firmware reset; else the earliest after it */
};
/* pick NULL: the last sample, 1 s interval.  v->nsamples and v->pair say
 * what was picked. */
int apenet_snapfile_load_pick(const char *path, const struct apenet_snapfile_pick *pick, struct apenet_view *v,
			      struct apenet_err *e);
int apenet_snapfile_load_string_pick(const char *name, const char *text, const struct apenet_snapfile_pick *pick,
				     struct apenet_view *v, struct apenet_err *e);

/*
 * The same document written one sample at a time, for writers of many
 * samples (the agent's black box): o is a stream (apenet_out_stream(
 * APENET_OUT_JSON, f, "snapshot")), so nothing is built in memory.  The
 * caller may write members of its own into o before begin (the black box's
 * "blackbox"); begin writes the header and opens the samples, sample writes
 * each sample in order, end closes them and writes the modules (ee_status/ee
 * may be NULL: none).  end returns -1 when no sample was written; the
 * caller finishes o (apenet_out_finish: -1 when the stream failed).
 */
struct apenet_snapfile_stream {
	struct apenet_out *o;
	const struct apenet_profile *prof;
	unsigned n;
};
void apenet_snapfile_stream_begin(struct apenet_snapfile_stream *s, struct apenet_out *o, const char *bdf,
				  const struct apenet_profile *prof, int pcie_ok, const struct apenet_pcie_info *pcie,
				  const char *pcie_err);
void apenet_snapfile_stream_sample(struct apenet_snapfile_stream *s, const struct apenet_snapshot *snap, int64_t host_ms);
int apenet_snapfile_stream_end(struct apenet_snapfile_stream *s, const uint32_t *ee_status,
			       const uint8_t (*ee)[APENET_EE_DATA_LEN]);

/*
 * Every sample of a document, oldest first, for readers of whole series
 * (the post-mortem report's trends).  Each sample is checked as the loaders
 * check it; an error names file:line:column.  cb returns 0 to go on.
 */
struct apenet_snapfile_info {
	char bdf[16];
	const struct apenet_profile *prof;
	unsigned nsamples;
	char reason[200];      /* a black-box dump's "blackbox" member: why it was written, "" none */
	int pcie_ok;           /* its PCIe state (the "pcie" member), as a view holds it */
	struct apenet_pcie_info pcie;
	char pcie_err[160];
	/* its modules' EEPROM windows (the "modules" member) as a view holds
	 * them; NULL when the document has none */
	const uint32_t *ee_status;
	const uint8_t (*ee)[APENET_EE_DATA_LEN];
};
typedef int (*apenet_snapfile_sample_fn)(void *arg, const struct apenet_snapfile_info *info,
					 const struct apenet_snapshot *s, int64_t host_ms);
int apenet_snapfile_each(const char *path, apenet_snapfile_sample_fn cb, void *arg, struct apenet_err *e);

#endif
