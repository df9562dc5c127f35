/*
 * The one YAML config loader.  It reads a file into a tree of maps,
 * sequences and scalars that remember their line and column, so that every
 * error says file:line:column and what was expected.  Cluster layouts,
 * thresholds and emulator configs are all read through it.
 */
#ifndef APENET_CONF_H
#define APENET_CONF_H

#include "apenet/err.h"

enum apenet_conf_kind { APENET_CONF_SCALAR, APENET_CONF_MAP, APENET_CONF_SEQ };

struct apenet_conf_node {
	enum apenet_conf_kind kind;
	char *key;   /* for an entry of a map */
	char *value; /* for a scalar */
	int line, col;         /* where the value starts */
	int key_line, key_col; /* where its key starts, for an entry of a map */
	struct apenet_conf_node *child, *next;
};

struct apenet_conf {
	char *file;
	struct apenet_conf_node *root;
};

int apenet_conf_load(const char *path, struct apenet_conf **out, struct apenet_err *e);
/* The same from memory; name is used in messages. */
int apenet_conf_load_string(const char *name, const char *text, struct apenet_conf **out, struct apenet_err *e);
void apenet_conf_free(struct apenet_conf *c);

const struct apenet_conf_node *apenet_conf_get(const struct apenet_conf_node *map, const char *key);
/* "file:line:col: <message>", code APENET_EINVAL; returns -1. */
int apenet_conf_error(const struct apenet_conf *c, const struct apenet_conf_node *n, struct apenet_err *e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Rejects keys not in allowed[] (NULL-terminated), naming the ones that are. */
int apenet_conf_check_keys(const struct apenet_conf *c, const struct apenet_conf_node *map, const char *const *allowed,
		    struct apenet_err *e);
int apenet_conf_expect(const struct apenet_conf *c, const struct apenet_conf_node *n, enum apenet_conf_kind k, const char *what,
		struct apenet_err *e);
int apenet_conf_uint(const struct apenet_conf *c, const struct apenet_conf_node *n, unsigned long min, unsigned long max,
	      unsigned long *out, struct apenet_err *e);
int apenet_conf_double(const struct apenet_conf *c, const struct apenet_conf_node *n, double min, double max, double *out,
		struct apenet_err *e);
/* "X,Y,Z" or "XxYxZ" triples; sep is ',' or 'x'. */
int apenet_conf_triple(const struct apenet_conf *c, const struct apenet_conf_node *n, char sep, unsigned v[3],
		struct apenet_err *e);
/* The same parsers on plain strings (command-line arguments). */
int apenet_parse_triple(const char *s, char sep, unsigned v[3]);

#endif
