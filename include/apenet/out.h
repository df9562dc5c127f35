/*
 * The one output writer behind every command (lldpd-style start/attr/end).
 * A command describes its result as nested objects, arrays and scalars; the
 * writer renders it as
 *   - text: "key: value" blocks for people; arrays of flat objects become
 *     aligned tables;
 *   - JSON: one document {"schema": "apenet-diag/2", "command": ..., ...};
 *   - CSV: every array of flat objects as a header line plus rows;
 *   - JSON lines: one record, compact on one line, without the schema and
 *     command keys (a stream of records: `apenet db export`).
 * The whole result is kept as a tree until apenet_out_finish(), so the text layout
 * can size its columns.  The JSON schema is versioned (docs/json.md).
 * Strings are data, never control (apenet/esc.h): text and CSV show control
 * characters and bytes that are not UTF-8 as \xNN, CSV quotes a string cell
 * that would be a spreadsheet formula with a leading ' (never a number
 * written with apenet_out_int/uint/hex/dbl), JSON escapes them.
 */
#ifndef APENET_OUT_H
#define APENET_OUT_H

#include <stdint.h>
#include <stdio.h>

/* /2: findings with structured fields, one link shape (issue 7); /1 snapshots still load */
#define APENET_JSON_SCHEMA "apenet-diag/2"

enum apenet_out_fmt { APENET_OUT_TEXT, APENET_OUT_JSON, APENET_OUT_CSV, APENET_OUT_JSON_LINE };

struct apenet_out;

struct apenet_out *apenet_out_new(enum apenet_out_fmt fmt, FILE *f, const char *command);
/* Objects and arrays; key is NULL for an element of an array. */
void apenet_out_obj_begin(struct apenet_out *o, const char *key);
/* An object that text and CSV show as one cell (e.g. node {x,y,z} as "1,0,0"). */
void apenet_out_obj_begin_text(struct apenet_out *o, const char *key, const char *text);
void apenet_out_obj_end(struct apenet_out *o);
void apenet_out_arr_begin(struct apenet_out *o, const char *key);
void apenet_out_arr_end(struct apenet_out *o);
/* The columns of the array just begun ("id,name,..." as CSV writes its
 * header): CSV prints that header even when the array stays empty, so a
 * table with nothing in it reads as empty, not as missing. */
void apenet_out_arr_columns(struct apenet_out *o, const char *cols);
/* An array whose elements text shows one below the other as "key[i]:"
 * blocks, not as a table (records with many fields: modules). */
void apenet_out_arr_begin_vertical(struct apenet_out *o, const char *key);
/* Scalars. */
void apenet_out_str(struct apenet_out *o, const char *key, const char *v); /* NULL: null */
void apenet_out_strf(struct apenet_out *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void apenet_out_int(struct apenet_out *o, const char *key, int64_t v);
void apenet_out_uint(struct apenet_out *o, const char *key, uint64_t v);
void apenet_out_hex(struct apenet_out *o, const char *key, uint64_t v, int digits); /* JSON: a number */
void apenet_out_dbl(struct apenet_out *o, const char *key, double v, int prec);    /* NaN/inf: null */
void apenet_out_bool(struct apenet_out *o, const char *key, int v);
void apenet_out_null(struct apenet_out *o, const char *key);
/* Render, free, and return 0 or -1 when the stream failed (EPIPE, full disk). */
int apenet_out_finish(struct apenet_out *o);
/* Free without printing (the data turned out to be unreliable). */
void apenet_out_discard(struct apenet_out *o);

/* Epoch milliseconds as UTC ISO 8601 with milliseconds
 * ("2026-11-27T03:41:37.123Z"; buf at least 32 bytes), "-" for 0 or less
 * (never): the one way every command and report shows a time. */
char *apenet_out_iso_ms(int64_t ms, char *buf, size_t n);

/* The format o renders to (a writer of records may lay them out for it). */
enum apenet_out_fmt apenet_out_format(const struct apenet_out *o);
/* Parse "--json"/"--csv" style names; -1 when unknown. */
int apenet_out_fmt_parse(const char *name);

#endif
