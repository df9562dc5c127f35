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
 * can size its columns; a writer made by apenet_out_stream() writes JSON as
 * the calls come instead (the same calls, the same document).  The JSON
 * schema is versioned (docs/json.md).
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
/* v with digits significant digits (%.*g: "1.5e-13", "0.25", "42"), for a
 * measurement read back as the number it was (apenet_out_dbl gives a fixed
 * count of decimals).  NaN/inf: null. */
void apenet_out_dbl_g(struct apenet_out *o, const char *key, double v, int digits);
/* Render, free, and return 0 or -1 when the stream failed (EPIPE, full disk). */
int apenet_out_finish(struct apenet_out *o);
/* Free without printing (the data turned out to be unreliable); a stream's
 * output so far stays written. */
void apenet_out_discard(struct apenet_out *o);

/*
 * Streaming: each value is written when it is given, in constant memory
 * (the open containers, up to 32 deep), for documents too big for a tree
 * (the agent's black box: thousands of samples) and records written one at
 * a time.  JSON only: text and CSV need the whole document to lay out, and
 * for them this is apenet_out_new.  The calls and the escaping are the
 * tree's; what differs:
 *   APENET_OUT_JSON       the document, laid out as the tree writer's, but
 *                         every element of an array that is an object or an
 *                         array is written compact on one line (a record a
 *                         line: a dump of thousands reads with grep and
 *                         head);
 *   APENET_OUT_JSON_LINE  one compact record: the root object, or, when the
 *                         first call is a begin without a key, that object
 *                         or array itself ("[{...},{...}]").
 * apenet_out_finish closes what is still open and ends the line.  Nothing is
 * held back: a document cut short (discarded, or the writer failed) is left
 * as far as it was written, and finish returns -1.
 */
struct apenet_out *apenet_out_stream(enum apenet_out_fmt fmt, FILE *f, const char *command);
/* A JSON-lines stream into memory, for a record kept in a field or written
 * in one go (an agent event, a certificate's lanes); NULL without memory. */
struct apenet_out *apenet_out_mem(void);
/* Finishes and frees o (from apenet_out_mem): the record, without a newline,
 * into buf (n bytes, NUL-terminated).  Its length, or -1 with buf "" when it
 * does not fit in n - 1 bytes or the writer failed. */
int apenet_out_mem_finish(struct apenet_out *o, char *buf, size_t n);

/* Epoch milliseconds as UTC ISO 8601 with milliseconds
 * ("2026-11-27T03:41:37.123Z"; buf at least 32 bytes), "-" for 0 or less
 * (never): the one way every command and report shows a time. */
char *apenet_out_iso_ms(int64_t ms, char *buf, size_t n);

/* The format o renders to (a writer of records may lay them out for it). */
enum apenet_out_fmt apenet_out_format(const struct apenet_out *o);
/* Parse "--json"/"--csv" style names; -1 when unknown. */
int apenet_out_fmt_parse(const char *name);

#endif
