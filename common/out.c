/* The output writer: builds a tree, renders it as text, JSON or CSV; or,
 * made by apenet_out_stream, writes JSON as the calls come, keeping only
 * the nesting (a black box of thousands of samples, an event a line).
 *
 * Out of memory is sticky, never fatal: the first failed allocation marks the
 * writer, every later call does nothing, and apenet_out_finish() prints
 * nothing, logs it and returns -1 (errno ENOMEM).  A NULL writer (what
 * apenet_out_new returns without memory) behaves the same.  Rendering
 * allocates nothing, so a document is printed whole or not at all.  A stream
 * allocates nothing after it is made: what it wrote stays written. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/esc.h"
#include "apenet/log.h"
#include "apenet/out.h"

enum node_kind { N_OBJ, N_ARR, N_STR, N_NUM, N_BOOL, N_NULL };

struct node {
	enum node_kind kind;
	char *key;
	char *text;  /* scalar as shown in text/CSV */
	char *json;  /* scalar as written in JSON; NULL for strings (escaped when written) */
	struct node *child, *last, *next, *parent;
	int vertical; /* text: blocks, never a table */
	char *cols;   /* an array: its rows' columns, for CSV's header when it is empty */
};

/* A stream's containers deeper than this are refused (the writer fails). */
#define STREAM_DEPTH 32

struct apenet_out {
	enum apenet_out_fmt fmt;
	FILE *f;
	struct node *root, *cur;
	int oom;          /* an allocation failed: nothing more is done */
	char command[32]; /* for the message when that happens */
	/* a stream (apenet_out_stream): nothing kept but the open containers */
	int stream;
	int deep;         /* nested deeper than STREAM_DEPTH: nothing more is written */
	int sd;           /* containers open, the root included */
	int records;      /* JSON lines: records begun */
	int root_own;     /* JSON lines: the root is the caller's keyless container */
	struct {
		unsigned char obj, flat, any; /* an object; on one line; has a member */
	} lv[STREAM_DEPTH];
	int own_f;        /* apenet_out_mem: f is a memory stream of mem, the writer's own */
	char *mem;
	size_t memlen;
	char pc[1024];    /* what a stream wrote, not yet handed to f */
	size_t pn;
};

/* Duplicates s (NULL stays NULL); on failure marks the writer. */
static char *dupstr(struct apenet_out *o, const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		o->oom = 1;
	return d;
}

/* NULL when the writer is out of memory (already, or now). */
static struct node *node_add(struct apenet_out *o, enum node_kind k, const char *key)
{
	if (!o || o->oom)
		return NULL;
	struct node *n = calloc(1, sizeof(*n));
	if (!n) {
		o->oom = 1;
		return NULL;
	}
	n->kind = k;
	n->key = dupstr(o, key);
	if (o->oom) {
		free(n);
		return NULL;
	}
	n->parent = o->cur;
	if (o->cur->last)
		o->cur->last->next = n;
	else
		o->cur->child = n;
	o->cur->last = n;
	return n;
}

static int finish_oom(struct apenet_out *o);

/* ---- streaming ---- */

/* What a stream writes goes through o->pc, to the FILE in blocks: stdio's
 * cost per call was most of the time of a black box's dump (six calls a
 * register value). */
static void put_flush(struct apenet_out *o)
{
	if (o->pn)
		fwrite(o->pc, 1, o->pn, o->f);
	o->pn = 0;
}

static void put(struct apenet_out *o, const char *s, size_t len)
{
	if (o->pn + len > sizeof(o->pc)) {
		put_flush(o);
		if (len > sizeof(o->pc)) {
			fwrite(s, 1, len, o->f);
			return;
		}
	}
	memcpy(o->pc + o->pn, s, len);
	o->pn += len;
}

static void put_c(struct apenet_out *o, char c)
{
	put(o, &c, 1);
}

/* A string literal: copied when there is nothing to escape, else escaped
 * (apenet/esc.h) straight to the FILE. */
static void put_str(struct apenet_out *o, const char *s)
{
	if (apenet_esc_json_clean(s)) {
		put_c(o, '"');
		put(o, s, strlen(s));
		put_c(o, '"');
		return;
	}
	put_flush(o);
	apenet_esc_json_put(o->f, s);
}

/* A new line indented for depth d (2 spaces a level, as the tree's). */
static void put_line(struct apenet_out *o, int d)
{
	static const char sp[] = "\n                                                                ";
	_Static_assert(sizeof(sp) == 2 * STREAM_DEPTH + 2, "a newline and the deepest indent");
	put(o, sp, 1 + (size_t)d * 2);
}

/* A JSON-lines record begins: a line of its own after the one before. */
static void stream_record(struct apenet_out *o)
{
	if (o->records++)
		put_c(o, '\n');
}

static void stream_push(struct apenet_out *o, int obj, int flat)
{
	o->lv[o->sd].obj = (unsigned char)obj;
	o->lv[o->sd].flat = (unsigned char)flat;
	o->lv[o->sd].any = 0;
	o->sd++;
	put_c(o, obj ? '{' : '[');
}

/* Where the next value goes: the comma, the line and indent of a
 * container laid out as the tree writer lays it out, the key in an object.
 * A JSON-lines record not yet begun begins here, as an object. */
static void stream_lead(struct apenet_out *o, const char *key)
{
	if (o->sd == 0) {
		stream_record(o);
		o->root_own = 0;
		stream_push(o, 1, 1);
	}
	int d = o->sd - 1;
	if (o->lv[d].any)
		put_c(o, ',');
	o->lv[d].any = 1;
	if (!o->lv[d].flat)
		put_line(o, o->sd);
	if (o->lv[d].obj) {
		put_str(o, key ? key : "");
		if (o->lv[d].flat)
			put_c(o, ':');
		else
			put(o, ": ", 2);
	}
}

/* A container: on one line when its parent is, or when it is an element of
 * an array (a record a line: a stream of thousands reads with grep and
 * head). */
static void stream_open(struct apenet_out *o, const char *key, int obj)
{
	if (o->deep)
		return;
	if (o->sd >= STREAM_DEPTH) {
		o->deep = 1;
		return;
	}
	if (o->sd == 0 && !key) {
		/* a JSON-lines record that is the caller's own container */
		stream_record(o);
		o->root_own = 1;
		stream_push(o, obj, 1);
		return;
	}
	stream_lead(o, key);
	const int p = o->sd - 1;
	stream_push(o, obj, o->lv[p].flat || !o->lv[p].obj);
}

static void stream_close(struct apenet_out *o)
{
	int d = o->sd - 1;
	if (!o->lv[d].flat && o->lv[d].any)
		put_line(o, d);
	put_c(o, o->lv[d].obj ? '}' : ']');
	o->sd--;
}

/* The end of an object or array the caller began; the root it did not
 * begin is closed by apenet_out_finish alone (as the tree's). */
static void stream_end(struct apenet_out *o)
{
	if (o->deep || o->sd == 0 || (o->sd == 1 && !o->root_own))
		return;
	stream_close(o);
}

/* json NULL: text is a string, escaped. */
static void stream_scalar(struct apenet_out *o, const char *key, const char *text, const char *json)
{
	if (o->deep)
		return;
	stream_lead(o, key);
	if (json)
		put(o, json, strlen(json));
	else
		put_str(o, text);
}

/* Closes what is open and ends the line: 0, or -1 when the stream failed. */
static int stream_finish(struct apenet_out *o)
{
	if (o->deep) {
		put_flush(o);
		apenet_log(APENET_LOG_ERR, "the output of '%s' nests deeper than %d levels: cut short",
			   o->command[0] ? o->command : "apenet", STREAM_DEPTH);
		errno = EINVAL;
		return -1;
	}
	if (o->oom) /* a string could not be formatted: written as null */
		apenet_log(APENET_LOG_ERR, "out of memory: a value of '%s' was written as null",
			   o->command[0] ? o->command : "apenet");
	if (o->sd == 0 && !o->records) { /* nothing written: an empty record */
		stream_record(o);
		stream_push(o, 1, 1);
	}
	while (o->sd > 0)
		stream_close(o);
	put_c(o, '\n');
	put_flush(o);
	return fflush(o->f) == 0 && !ferror(o->f) && !o->oom ? 0 : -1;
}

/* Frees a stream; a memory stream's FILE and buffer are its own. */
static void stream_free(struct apenet_out *o)
{
	put_flush(o); /* discarded: what was written stays */
	if (o->own_f) {
		fclose(o->f);
		free(o->mem);
	}
	free(o);
}

struct apenet_out *apenet_out_stream(enum apenet_out_fmt fmt, FILE *f, const char *command)
{
	if (fmt != APENET_OUT_JSON && fmt != APENET_OUT_JSON_LINE)
		return apenet_out_new(fmt, f, command);
	struct apenet_out *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fmt = fmt;
	o->f = f;
	o->stream = 1;
	snprintf(o->command, sizeof(o->command), "%s", command ? command : "");
	if (fmt == APENET_OUT_JSON) {
		stream_record(o);
		stream_push(o, 1, 0);
		apenet_out_str(o, "schema", APENET_JSON_SCHEMA);
		apenet_out_str(o, "command", command);
	}
	return o;
}

struct apenet_out *apenet_out_mem(void)
{
	struct apenet_out *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->f = open_memstream(&o->mem, &o->memlen);
	if (!o->f) {
		free(o);
		return NULL;
	}
	o->fmt = APENET_OUT_JSON_LINE;
	o->stream = 1;
	o->own_f = 1;
	return o;
}

int apenet_out_mem_finish(struct apenet_out *o, char *buf, size_t n)
{
	if (n)
		buf[0] = 0;
	if (!o)
		return finish_oom(o); /* apenet_out_mem ran out of memory */
	if (!o->own_f) {              /* not a memory stream: a caller's mistake */
		apenet_out_discard(o);
		errno = EINVAL;
		return -1;
	}
	int rc = stream_finish(o);
	if (fclose(o->f))
		rc = -1;
	if (rc == 0 && o->memlen > 0 && o->memlen - 1 < n) {
		rc = (int)(o->memlen - 1); /* without the newline */
		memcpy(buf, o->mem, (size_t)rc);
		buf[rc] = 0;
	} else {
		rc = -1;
	}
	free(o->mem);
	free(o);
	return rc;
}

struct apenet_out *apenet_out_new(enum apenet_out_fmt fmt, FILE *f, const char *command)
{
	struct apenet_out *o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->fmt = fmt;
	o->f = f;
	snprintf(o->command, sizeof(o->command), "%s", command ? command : "");
	o->root = calloc(1, sizeof(*o->root));
	if (!o->root) {
		free(o);
		return NULL;
	}
	o->root->kind = N_OBJ;
	o->cur = o->root;
	if (fmt == APENET_OUT_JSON) {
		apenet_out_str(o, "schema", APENET_JSON_SCHEMA);
		apenet_out_str(o, "command", command);
	}
	return o;
}

/* After a failed allocation the nesting is no longer tracked: nothing
 * will be rendered, so begin/end need not balance any more. */
void apenet_out_obj_begin(struct apenet_out *o, const char *key)
{
	if (o && o->stream) {
		stream_open(o, key, 1);
		return;
	}
	struct node *n = node_add(o, N_OBJ, key);
	if (n)
		o->cur = n;
}

void apenet_out_obj_begin_text(struct apenet_out *o, const char *key, const char *text)
{
	if (o && o->stream) { /* the one-cell text is for text and CSV */
		stream_open(o, key, 1);
		return;
	}
	struct node *n = node_add(o, N_OBJ, key);
	if (!n)
		return;
	o->cur = n;
	n->text = dupstr(o, text);
}

void apenet_out_arr_begin(struct apenet_out *o, const char *key)
{
	if (o && o->stream) {
		stream_open(o, key, 0);
		return;
	}
	struct node *n = node_add(o, N_ARR, key);
	if (n)
		o->cur = n;
}

void apenet_out_obj_end(struct apenet_out *o)
{
	if (o && o->stream)
		stream_end(o);
	else if (o && !o->oom && o->cur->parent)
		o->cur = o->cur->parent;
}

void apenet_out_arr_begin_vertical(struct apenet_out *o, const char *key)
{
	if (o && o->stream) {
		stream_open(o, key, 0);
		return;
	}
	struct node *n = node_add(o, N_ARR, key);
	if (n) {
		o->cur = n;
		n->vertical = 1;
	}
}

void apenet_out_arr_columns(struct apenet_out *o, const char *cols)
{
	if (o && !o->stream && !o->oom && o->cur->kind == N_ARR && !o->cur->cols)
		o->cur->cols = dupstr(o, cols);
}

void apenet_out_arr_end(struct apenet_out *o)
{
	apenet_out_obj_end(o);
}

/* json NULL: a string, escaped when written. */
static void scalar(struct apenet_out *o, enum node_kind k, const char *key, const char *text, const char *json)
{
	if (o && o->stream) {
		stream_scalar(o, key, text, k == N_STR ? NULL : json);
		return;
	}
	struct node *n = node_add(o, k, key);
	if (!n)
		return;
	n->text = dupstr(o, text);
	n->json = dupstr(o, json);
}

void apenet_out_str(struct apenet_out *o, const char *key, const char *v)
{
	if (!v) {
		apenet_out_null(o, key);
		return;
	}
	scalar(o, N_STR, key, v, NULL);
}

void apenet_out_strf(struct apenet_out *o, const char *key, const char *fmt, ...)
{
	if (!o || (o->oom && !o->stream))
		return;
	/* a short string on the stack: a stream allocates nothing */
	char b[256], *s = b;
	va_list ap;
	va_start(ap, fmt);
	int r = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (r >= (int)sizeof(b)) {
		va_start(ap, fmt);
		r = vasprintf(&s, fmt, ap);
		va_end(ap);
	}
	if (r < 0) {
		o->oom = 1;
		if (o->stream) /* written on: the document stays whole, finish says it failed */
			stream_scalar(o, key, NULL, "null");
		return;
	}
	apenet_out_str(o, key, s);
	if (s != b)
		free(s);
}

/* v in decimal, as %llu writes it, ending at end (NUL put there); its first
 * character.  snprintf was a third of a black box dump's time. */
static char *dec(char *end, uint64_t v)
{
	*end = 0;
	do
		*--end = (char)('0' + v % 10);
	while (v /= 10);
	return end;
}

void apenet_out_int(struct apenet_out *o, const char *key, int64_t v)
{
	char b[32];
	char *d = dec(b + sizeof(b) - 1, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--d = '-';
	scalar(o, N_NUM, key, d, d);
}

void apenet_out_uint(struct apenet_out *o, const char *key, uint64_t v)
{
	char b[32];
	char *d = dec(b + sizeof(b) - 1, v);
	scalar(o, N_NUM, key, d, d);
}

void apenet_out_hex(struct apenet_out *o, const char *key, uint64_t v, int digits)
{
	char t[32], j[32];
	snprintf(t, sizeof(t), "0x%0*llx", digits, (unsigned long long)v);
	snprintf(j, sizeof(j), "%llu", (unsigned long long)v);
	scalar(o, N_NUM, key, t, j);
}

void apenet_out_dbl(struct apenet_out *o, const char *key, double v, int prec)
{
	char b[64];
	if (!isfinite(v)) {
		apenet_out_null(o, key);
		return;
	}
	if (v != 0 && (fabs(v) < 1e-4 || fabs(v) >= 1e15))
		snprintf(b, sizeof(b), "%.*e", prec, v);
	else
		snprintf(b, sizeof(b), "%.*f", prec, v);
	scalar(o, N_NUM, key, b, b);
}

void apenet_out_dbl_g(struct apenet_out *o, const char *key, double v, int digits)
{
	char b[64];
	if (!isfinite(v)) {
		apenet_out_null(o, key);
		return;
	}
	snprintf(b, sizeof(b), "%.*g", digits, v);
	scalar(o, N_NUM, key, b, b);
}

void apenet_out_bool(struct apenet_out *o, const char *key, int v)
{
	scalar(o, N_BOOL, key, v ? "yes" : "no", v ? "true" : "false");
}

void apenet_out_null(struct apenet_out *o, const char *key)
{
	scalar(o, N_NULL, key, "-", "null");
}

int apenet_out_fmt_parse(const char *name)
{
	if (!strcmp(name, "text"))
		return APENET_OUT_TEXT;
	if (!strcmp(name, "json"))
		return APENET_OUT_JSON;
	if (!strcmp(name, "csv"))
		return APENET_OUT_CSV;
	return -1;
}

/* ---- JSON ---- */
/* depth < 0: compact, on one line (a JSON-lines record) */
static void json_write(FILE *f, const struct node *n, int depth)
{
	if (n->kind == N_STR) {
		apenet_esc_json_put(f, n->text);
		return;
	}
	if (n->kind != N_OBJ && n->kind != N_ARR) {
		fputs(n->json, f);
		return;
	}
	int obj = n->kind == N_OBJ;
	fputc(obj ? '{' : '[', f);
	for (const struct node *c = n->child; c; c = c->next) {
		if (depth >= 0)
			fprintf(f, "\n%*s", (depth + 1) * 2, "");
		if (obj) {
			apenet_esc_json_put(f, c->key ? c->key : "");
			fputs(depth >= 0 ? ": " : ":", f);
		}
		json_write(f, c, depth >= 0 ? depth + 1 : -1);
		if (c->next)
			fputc(',', f);
	}
	if (n->child && depth >= 0)
		fprintf(f, "\n%*s", depth * 2, "");
	fputc(obj ? '}' : ']', f);
}

/* ---- tables (text and CSV) ---- */
#define MAXCOLS 128
#define COLNAME 256

/* Fixed-size, on the stack (32 KiB): rendering must not need memory. */
struct table {
	int ncols;
	char cols[MAXCOLS][COLNAME];
};

/* Scalars, and objects that carry their own one-cell text. */
static int is_scalar(const struct node *n)
{
	return (n->kind != N_OBJ && n->kind != N_ARR) || (n->kind == N_OBJ && n->text);
}

/* A row is flat when it holds only scalars and objects of scalars. */
static int row_flat(const struct node *row)
{
	if (row->kind != N_OBJ)
		return 0;
	for (const struct node *c = row->child; c; c = c->next) {
		if (c->kind == N_ARR)
			return 0;
		if (c->kind == N_OBJ && !c->text && !row_flat(c))
			return 0;
	}
	return 1;
}

/* Only an array of scalars can print as one "key: a, b, c" line: checking
 * the first element alone printed NULL text for a mixed array. */
static int arr_scalars(const struct node *arr)
{
	for (const struct node *c = arr->child; c; c = c->next)
		if (!is_scalar(c))
			return 0;
	return 1;
}

static int arr_tabular(const struct node *arr)
{
	if (!arr->child)
		return 0;
	for (const struct node *r = arr->child; r; r = r->next)
		if (!row_flat(r))
			return 0;
	return 1;
}

static void table_addcol(struct table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return;
	if (t->ncols < MAXCOLS)
		snprintf(t->cols[t->ncols++], COLNAME, "%s", name);
}

static void table_cols(struct table *t, const struct node *obj, const char *prefix)
{
	for (const struct node *c = obj->child; c; c = c->next) {
		char name[COLNAME];
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", c->key ? c->key : "");
		if (c->kind == N_OBJ && !c->text)
			table_cols(t, c, name);
		else
			table_addcol(t, name);
	}
}

static const struct node *lookup(const struct node *obj, const char *path)
{
	const char *dot = strchr(path, '.');
	size_t len = dot ? (size_t)(dot - path) : strlen(path);
	for (const struct node *c = obj->child; c; c = c->next) {
		if (c->key && strlen(c->key) == len && !strncmp(c->key, path, len)) {
			if (!dot)
				return c;
			if (c->kind == N_OBJ && !c->text)
				return lookup(c, dot + 1);
		}
	}
	return NULL;
}

static const char *cell(const struct node *row, const char *col)
{
	const struct node *n = lookup(row, col);
	return n && n->text ? n->text : "";
}

/* A cell the program did not write as a number, a yes/no or a null: a
 * string, maybe from outside (CSV neutralises its formulas). */
static int cell_is_string(const struct node *row, const char *col)
{
	const struct node *n = lookup(row, col);
	return n && (n->kind == N_STR || n->kind == N_OBJ);
}

/* Every string is written escaped (apenet/esc.h: control characters and
 * bytes that are not UTF-8 as \xNN), and measured as written: UTF-8
 * continuation bytes take no column ("°C" is two columns, three bytes). */
static size_t text_width(const char *s)
{
	return apenet_esc_text_width(s);
}

static void text_put(FILE *f, const char *s)
{
	apenet_esc_text_put(f, s);
}

/* One table line.  Padding stops at the last non-empty cell, so no line
 * ends in blanks when trailing columns are empty for that row. */
static void table_line(FILE *f, int indent, int ncols, const size_t *w, const char *const *cells)
{
	int last = ncols - 1;
	while (last > 0 && !*cells[last])
		last--;
	fprintf(f, "%*s", indent, "");
	for (int i = 0; i <= last; i++) {
		text_put(f, cells[i]);
		fprintf(f, "%*s", i < last ? (int)(w[i] - text_width(cells[i]) + 2) : 0, "");
	}
	fputc('\n', f);
}

static void text_table(FILE *f, const struct node *arr, int indent)
{
	struct table t;
	t.ncols = 0; /* names are read only below ncols: no need to clear 32 KiB */
	size_t w[MAXCOLS];
	const char *cells[MAXCOLS];
	for (const struct node *r = arr->child; r; r = r->next)
		table_cols(&t, r, "");
	for (int i = 0; i < t.ncols; i++) {
		w[i] = text_width(t.cols[i]);
		for (const struct node *r = arr->child; r; r = r->next) {
			size_t l = text_width(cell(r, t.cols[i]));
			if (l > w[i])
				w[i] = l;
		}
		cells[i] = t.cols[i];
	}
	table_line(f, indent, t.ncols, w, cells);
	for (const struct node *r = arr->child; r; r = r->next) {
		for (int i = 0; i < t.ncols; i++)
			cells[i] = cell(r, t.cols[i]);
		table_line(f, indent, t.ncols, w, cells);
	}
}

static void text_write(FILE *f, const struct node *obj, int indent);

static void text_array(FILE *f, const struct node *arr, int indent)
{
	if (!arr->child) {
		fprintf(f, "%*s", indent, "");
		text_put(f, arr->key);
		fputs(": (none)\n", f);
		return;
	}
	if (arr_scalars(arr)) {
		fprintf(f, "%*s", indent, "");
		text_put(f, arr->key);
		fputs(": ", f);
		for (const struct node *c = arr->child; c; c = c->next) {
			text_put(f, c->text);
			fputs(c->next ? ", " : "\n", f);
		}
		return;
	}
	if (!arr->vertical && arr_tabular(arr)) {
		if (arr->key) {
			fprintf(f, "%*s", indent, "");
			text_put(f, arr->key);
			fputs(":\n", f);
		}
		text_table(f, arr, indent + 2);
		return;
	}
	int i = 0;
	for (const struct node *c = arr->child; c; c = c->next, i++) {
		fprintf(f, "%*s", indent, "");
		text_put(f, arr->key);
		fprintf(f, "[%d]:\n", i);
		if (is_scalar(c)) {
			fprintf(f, "%*s", indent + 2, "");
			text_put(f, c->text);
			fputc('\n', f);
		}
		else if (c->kind == N_OBJ)
			text_write(f, c, indent + 2);
		else
			text_array(f, c, indent + 2);
	}
}

static void text_write(FILE *f, const struct node *obj, int indent)
{
	size_t kw = 0;
	for (const struct node *c = obj->child; c; c = c->next)
		if (is_scalar(c) && c->key && text_width(c->key) > kw)
			kw = text_width(c->key);
	for (const struct node *c = obj->child; c; c = c->next) {
		if (is_scalar(c)) {
			fprintf(f, "%*s", indent, "");
			text_put(f, c->key);
			fprintf(f, ":%*s ", (int)(kw - text_width(c->key)), "");
			text_put(f, c->text);
			fputc('\n', f);
		} else if (c->kind == N_OBJ) {
			fprintf(f, "%*s", indent, "");
			text_put(f, c->key);
			fputs(":\n", f);
			text_write(f, c, indent + 2);
		} else {
			text_array(f, c, indent);
		}
	}
}

/* is_string: a cell that may hold a formula (apenet/esc.h); numbers never do. */
static void csv_field(FILE *f, const char *s, int is_string)
{
	apenet_esc_csv_put(f, s, is_string);
}

/* Its own function, so only a frame that prints a table holds one. */
static void csv_table(FILE *f, const struct node *arr, const char *path, int *blocks)
{
	struct table t;
	t.ncols = 0; /* names are read only below ncols: no need to clear 32 KiB */
	for (const struct node *r = arr->child; r; r = r->next)
		table_cols(&t, r, "");
	if ((*blocks)++)
		fputc('\n', f);
	fputs("# ", f);
	text_put(f, path);
	fputc('\n', f);
	for (int i = 0; i < t.ncols; i++) {
		csv_field(f, t.cols[i], 0);
		fputc(i + 1 < t.ncols ? ',' : '\n', f);
	}
	for (const struct node *r = arr->child; r; r = r->next)
		for (int i = 0; i < t.ncols; i++) {
			csv_field(f, cell(r, t.cols[i]), cell_is_string(r, t.cols[i]));
			fputc(i + 1 < t.ncols ? ',' : '\n', f);
		}
}

static void csv_walk(FILE *f, const struct node *n, const char *path, int *blocks)
{
	for (const struct node *c = n->child; c; c = c->next) {
		char p[COLNAME];
		snprintf(p, sizeof(p), "%s%s%s", path, *path ? "." : "", c->key ? c->key : "");
		if (c->kind == N_ARR && arr_tabular(c)) {
			csv_table(f, c, p, blocks);
		} else if (c->kind == N_ARR && !c->child && c->cols) {
			/* no rows: the header alone, so a reader sees an empty table, not none */
			if ((*blocks)++)
				fputc('\n', f);
			fputs("# ", f);
			text_put(f, p);
			fprintf(f, "\n%s\n", c->cols);
		} else if (c->kind == N_OBJ || c->kind == N_ARR) {
			csv_walk(f, c, p, blocks);
		}
	}
}

static void node_free(struct node *n)
{
	while (n) {
		struct node *next = n->next;
		node_free(n->child);
		free(n->key);
		free(n->text);
		free(n->json);
		free(n->cols);
		free(n);
		n = next;
	}
}

/* The one report of a writer that ran out of memory: the caller only sees -1. */
static int finish_oom(struct apenet_out *o)
{
	apenet_log(APENET_LOG_ERR, "out of memory: the output of '%s' was dropped",
		   o && o->command[0] ? o->command : "apenet");
	if (o) {
		node_free(o->root);
		free(o);
	}
	errno = ENOMEM;
	return -1;
}

int apenet_out_finish(struct apenet_out *o)
{
	if (o && o->stream) {
		int rc = stream_finish(o);
		stream_free(o);
		return rc;
	}
	if (!o || o->oom)
		return finish_oom(o);
	int blocks = 0;
	switch (o->fmt) {
	case APENET_OUT_JSON:
		json_write(o->f, o->root, 0);
		fputc('\n', o->f);
		break;
	case APENET_OUT_JSON_LINE:
		json_write(o->f, o->root, -1);
		fputc('\n', o->f);
		break;
	case APENET_OUT_CSV:
		csv_walk(o->f, o->root, "", &blocks);
		break;
	default:
		text_write(o->f, o->root, 0);
	}
	int rc = fflush(o->f) == 0 && !ferror(o->f) ? 0 : -1;
	node_free(o->root);
	free(o);
	return rc;
}

void apenet_out_discard(struct apenet_out *o)
{
	if (!o)
		return;
	if (o->stream) { /* what was written stays */
		stream_free(o);
		return;
	}
	node_free(o->root);
	free(o);
}

enum apenet_out_fmt apenet_out_format(const struct apenet_out *o)
{
	return o ? o->fmt : APENET_OUT_TEXT; /* NULL: apenet_out_new ran out of memory */
}

char *apenet_out_iso_ms(int64_t ms, char *buf, size_t n)
{
	if (ms <= 0) {
		snprintf(buf, n, "-");
		return buf;
	}
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char s[32];
	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03dZ", s, (int)(ms % 1000));
	return buf;
}
