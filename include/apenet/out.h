/*
 * The one output writer behind every command (lldpd-style start/attr/end).
 * A command describes its result as nested objects, arrays and scalars; the
 * writer renders it as
 *   - text: "key: value" blocks for people; arrays of flat objects become
 *     aligned tables;
 *   - JSON: one document {"schema": "apenet-diag/1", "command": ..., ...};
 *   - CSV: every array of flat objects as a header line plus rows.
 * The whole result is kept as a tree until out_finish(), so the text layout
 * can size its columns.  The JSON schema is versioned (docs/json.md).
 */
#ifndef APENET_OUT_H
#define APENET_OUT_H

#include <stdint.h>
#include <stdio.h>

#define APENET_JSON_SCHEMA "apenet-diag/1"

enum out_fmt { OUT_TEXT, OUT_JSON, OUT_CSV };

struct out;

struct out *out_new(enum out_fmt fmt, FILE *f, const char *command);
/* Objects and arrays; key is NULL for an element of an array. */
void out_obj_begin(struct out *o, const char *key);
/* An object that text and CSV show as one cell (e.g. node {x,y,z} as "1,0,0"). */
void out_obj_begin_text(struct out *o, const char *key, const char *text);
void out_obj_end(struct out *o);
void out_arr_begin(struct out *o, const char *key);
void out_arr_end(struct out *o);
/* An array whose elements text shows one below the other as "key[i]:"
 * blocks, not as a table (records with many fields: modules). */
void out_arr_begin_vertical(struct out *o, const char *key);
/* Scalars. */
void out_str(struct out *o, const char *key, const char *v); /* NULL: null */
void out_strf(struct out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void out_int(struct out *o, const char *key, int64_t v);
void out_uint(struct out *o, const char *key, uint64_t v);
void out_hex(struct out *o, const char *key, uint64_t v, int digits); /* JSON: a number */
void out_dbl(struct out *o, const char *key, double v, int prec);    /* NaN/inf: null */
void out_bool(struct out *o, const char *key, int v);
void out_null(struct out *o, const char *key);
/* Render, free, and return 0 or -1 when the stream failed (EPIPE, full disk). */
int out_finish(struct out *o);
/* Free without printing (the data turned out to be unreliable). */
void out_discard(struct out *o);

/* Parse "--json"/"--csv" style names; -1 when unknown. */
int out_fmt_parse(const char *name);

#endif
