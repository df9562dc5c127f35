/*
 * The black box: the agent's in-memory ring of its last samples, dumped as a
 * snapshot document (apenet/snapfile.h) that `apenet link --from FILE
 * [--at TIME]` replays (docs/agent.md, "Black box").
 *
 * Memory is bounded by bytes, not by samples: a sample of an APEnet+ is about
 * 630 register values (5 KB as they are), ten minutes at 100 ms 6000 of them.
 * Each sample is stored as its difference from the one before: the values
 * that changed, each a varint of its index gap and a zigzag varint of its
 * delta.  Most registers (identity, settings, idle counters) do not change
 * between two samples, so a sample takes some hundreds of bytes.  The oldest
 * sample is kept decoded (tail), so dropping it costs one delta and no
 * keyframes are needed; reading walks forward from the tail.
 */
#ifndef APENET_BLACKBOX_H
#define APENET_BLACKBOX_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "apenet/err.h"
#include "apenet/out.h"
#include "apenet/sampler.h"

struct apenet_bbox_rec {
	size_t off;             /* in the byte ring */
	uint32_t len;
	int64_t host_ms;
};

struct apenet_bbox {
	const struct apenet_profile *prof;
	char bdf[16];
	unsigned nvals;         /* values in one sample of this variant */
	uint8_t *buf;           /* the byte ring */
	size_t cap, head, used; /* capacity, next write offset, bytes in use */
	struct apenet_bbox_rec *rec; /* the record ring */
	size_t rcap, r0, nrec;
	uint64_t *tail, *last;  /* the oldest and the newest sample, decoded */
	uint64_t *scratch;      /* the sample being pushed */
	uint8_t *enc;           /* one record being encoded (worst case) */
	int64_t span_ms;        /* samples older than the newest by more are dropped */
	uint64_t pushed, dropped_span, dropped_memory;
	/* the module pages, read far less often than the registers */
	int have_modules;
	int64_t modules_ms;
	uint32_t ee_status[APENET_MAX_LINKS];
	uint8_t ee[APENET_MAX_LINKS][APENET_EE_DATA_LEN];
	/* the PCIe error text of the newest sample (not kept per sample) */
	char pcie_err[160];
};

/* mem_bytes: the byte ring; max_records: samples at most (span / period,
 * and some). */
int apenet_bbox_init(struct apenet_bbox *b, const struct apenet_profile *p, const char *bdf, size_t mem_bytes,
		     int64_t span_ms, size_t max_records, struct apenet_err *e);
void apenet_bbox_free(struct apenet_bbox *b);
/* Appends a sample (of b->prof), dropping the oldest past the span or the
 * memory; module pages in it are kept as the latest. */
int apenet_bbox_push(struct apenet_bbox *b, const struct apenet_sample *s, struct apenet_err *e);
/* Moves every sample of src into dst (a ring of other sizes), oldest first;
 * src keeps them. */
int apenet_bbox_copy(struct apenet_bbox *dst, const struct apenet_bbox *src, struct apenet_err *e);

size_t apenet_bbox_count(const struct apenet_bbox *b);
int64_t apenet_bbox_first_ms(const struct apenet_bbox *b); /* 0 when empty */
int64_t apenet_bbox_last_ms(const struct apenet_bbox *b);
/* Bytes the ring holds allocated (byte ring, record ring, decoded samples). */
size_t apenet_bbox_footprint(const struct apenet_bbox *b);

/* Reading, oldest first. */
struct apenet_bbox_iter {
	const struct apenet_bbox *b;
	size_t i;
	uint64_t *vals;
};
int apenet_bbox_iter_begin(const struct apenet_bbox *b, struct apenet_bbox_iter *it, struct apenet_err *e);
/* 1 with the next sample in out, 0 past the newest. */
int apenet_bbox_iter_next(struct apenet_bbox_iter *it, struct apenet_sample *out);
void apenet_bbox_iter_end(struct apenet_bbox_iter *it);

/* The dump: a snapshot document of every sample of the last full_ms and,
 * before that, one every step_ms (the oldest included), newest last, into
 * o, a stream the caller made and finishes (as apenet_snapfile_stream_begin:
 * members of its own may come before).  0 with *nsamples, or -1 (fewer than
 * two samples); a write error is apenet_out_finish's to say. */
int apenet_bbox_dump(const struct apenet_bbox *b, struct apenet_out *o, int64_t full_ms, int64_t step_ms,
		     unsigned *nsamples, struct apenet_err *e);

#endif
