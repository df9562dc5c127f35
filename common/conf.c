/* YAML -> tree with positions, on libyaml's event parser. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "apenet/conf.h"

static void node_free(struct apenet_conf_node *n)
{
	while (n) {
		struct apenet_conf_node *next = n->next;
		node_free(n->child);
		free(n->key);
		free(n->value);
		free(n);
		n = next;
	}
}

void apenet_conf_free(struct apenet_conf *c)
{
	if (!c)
		return;
	node_free(c->root);
	free(c->file);
	free(c);
}

static struct apenet_conf_node *node_new(enum apenet_conf_kind k, const yaml_mark_t *m)
{
	struct apenet_conf_node *n = calloc(1, sizeof(*n));
	if (n) {
		n->kind = k;
		n->line = (int)m->line + 1;
		n->col = (int)m->column + 1;
	}
	return n;
}


#define MAXDEPTH 64

static int parse(yaml_parser_t *p, struct apenet_conf *c, struct apenet_err *e)
{
	struct apenet_conf_node *stack[MAXDEPTH];
	/* the last child of each open container: appending stays O(1), so a
	 * list of 32K nodes loads in linear time */
	struct apenet_conf_node *tail[MAXDEPTH];
	char *pending_key[MAXDEPTH];
	yaml_mark_t key_mark[MAXDEPTH];
	int depth = 0, done = 0, rc = -1;
	memset(pending_key, 0, sizeof(pending_key));

	while (!done) {
		yaml_event_t ev;
		if (!yaml_parser_parse(p, &ev)) {
			apenet_err_set(e, APENET_EINVAL, "%s:%zu:%zu: YAML syntax: %s%s%s", c->file,
				       p->problem_mark.line + 1, p->problem_mark.column + 1,
				       p->problem ? p->problem : "error", p->context ? " " : "",
				       p->context ? p->context : "");
			goto out;
		}
		struct apenet_conf_node *n = NULL;
		const yaml_mark_t *m = &ev.start_mark;
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			done = ev.type == YAML_STREAM_END_EVENT || c->root;
			break;
		case YAML_ALIAS_EVENT:
			apenet_err_set(e, APENET_EINVAL, "%s:%zu:%zu: YAML aliases are not supported here", c->file,
				       m->line + 1, m->column + 1);
			yaml_event_delete(&ev);
			goto out;
		case YAML_SCALAR_EVENT:
			if (depth > 0 && stack[depth - 1]->kind == APENET_CONF_MAP && !pending_key[depth - 1]) {
				pending_key[depth - 1] = strdup((const char *)ev.data.scalar.value);
				key_mark[depth - 1] = ev.start_mark;
				if (!pending_key[depth - 1])
					goto oom;
				break;
			}
			n = node_new(APENET_CONF_SCALAR, m);
			if (!n || !(n->value = strdup((const char *)ev.data.scalar.value))) {
				free(n);
				goto oom;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth > 0 && stack[depth - 1]->kind == APENET_CONF_MAP && !pending_key[depth - 1]) {
				apenet_err_set(e, APENET_EINVAL, "%s:%zu:%zu: a map key must be a plain value",
					       c->file, m->line + 1, m->column + 1);
				yaml_event_delete(&ev);
				goto out;
			}
			if (depth >= MAXDEPTH) {
				apenet_err_set(e, APENET_EINVAL, "%s:%zu:%zu: nested too deeply", c->file, m->line + 1,
					       m->column + 1);
				yaml_event_delete(&ev);
				goto out;
			}
			n = node_new(ev.type == YAML_SEQUENCE_START_EVENT ? APENET_CONF_SEQ : APENET_CONF_MAP, m);
			if (!n)
				goto oom;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (n) {
			if (depth == 0) {
				if (c->root)
					node_free(c->root);
				c->root = n;
			} else {
				struct apenet_conf_node *parent = stack[depth - 1];
				if (parent->kind == APENET_CONF_MAP) {
					for (struct apenet_conf_node *s = parent->child; s; s = s->next)
						if (!strcmp(s->key, pending_key[depth - 1])) {
							apenet_err_set(e, APENET_EINVAL, "%s:%zu:%zu: key '%s' given twice (first at line %d)",
								       c->file, key_mark[depth - 1].line + 1,
								       key_mark[depth - 1].column + 1, s->key, s->key_line);
							node_free(n);
							yaml_event_delete(&ev);
							goto out;
						}
					n->key = pending_key[depth - 1];
					n->key_line = (int)key_mark[depth - 1].line + 1;
					n->key_col = (int)key_mark[depth - 1].column + 1;
					pending_key[depth - 1] = NULL;
				}
				if (tail[depth - 1])
					tail[depth - 1]->next = n;
				else
					parent->child = n;
				tail[depth - 1] = n;
			}
			if (n->kind != APENET_CONF_SCALAR) {
				tail[depth] = NULL;
				stack[depth++] = n;
			}
		}
		yaml_event_delete(&ev);
	}
	rc = 0;
	goto out;
oom:
	apenet_err_set(e, APENET_EIO, "%s: out of memory", c->file);
out:
	for (int i = 0; i < MAXDEPTH; i++)
		free(pending_key[i]);
	return rc;
}

static int load(const char *name, FILE *f, const char *text, struct apenet_conf **out, struct apenet_err *e)
{
	yaml_parser_t p;
	struct apenet_conf *c = calloc(1, sizeof(*c));
	if (!c || !(c->file = strdup(name))) {
		free(c);
		return apenet_err_set(e, APENET_EIO, "%s: out of memory", name);
	}
	yaml_parser_initialize(&p);
	if (f)
		yaml_parser_set_input_file(&p, f);
	else
		yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	int rc = parse(&p, c, e);
	yaml_parser_delete(&p);
	/* "---" alone parses as one empty plain scalar: as empty as no document. */
	if (rc == 0 && (!c->root || (c->root->kind == APENET_CONF_SCALAR && !*c->root->value)))
		rc = apenet_err_set(e, APENET_EINVAL, "%s: empty document", name);
	if (rc) {
		apenet_conf_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

int apenet_conf_load(const char *path, struct apenet_conf **out, struct apenet_err *e)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return apenet_err_set(e, APENET_EIO, "%s: %s", path, strerror(errno));
	int rc = load(path, f, NULL, out, e);
	fclose(f);
	return rc;
}

int apenet_conf_load_string(const char *name, const char *text, struct apenet_conf **out, struct apenet_err *e)
{
	return load(name, NULL, text, out, e);
}

const struct apenet_conf_node *apenet_conf_get(const struct apenet_conf_node *map, const char *key)
{
	if (!map || map->kind != APENET_CONF_MAP)
		return NULL;
	for (const struct apenet_conf_node *n = map->child; n; n = n->next)
		if (!strcmp(n->key, key))
			return n;
	return NULL;
}

int apenet_conf_error(const struct apenet_conf *c, const struct apenet_conf_node *n, struct apenet_err *e, const char *fmt, ...)
{
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return apenet_err_set(e, APENET_EINVAL, "%s:%d:%d: %s", c->file, n ? n->line : 0, n ? n->col : 0, msg);
}

static const char *kind_name(enum apenet_conf_kind k)
{
	return k == APENET_CONF_MAP ? "a map" : k == APENET_CONF_SEQ ? "a list" : "a value";
}

int apenet_conf_expect(const struct apenet_conf *c, const struct apenet_conf_node *n, enum apenet_conf_kind k, const char *what,
		struct apenet_err *e)
{
	if (n->kind == k)
		return 0;
	return apenet_conf_error(c, n, e, "%s%s%s: expected %s, found %s", n->key ? "'" : "", n->key ? n->key : what,
			  n->key ? "'" : "", kind_name(k), kind_name(n->kind));
}

int apenet_conf_check_keys(const struct apenet_conf *c, const struct apenet_conf_node *map, const char *const *allowed,
		    struct apenet_err *e)
{
	for (const struct apenet_conf_node *n = map->child; n; n = n->next) {
		int ok = 0;
		for (const char *const *a = allowed; *a; a++)
			ok |= !strcmp(*a, n->key);
		if (!ok) {
			char list[900] = "";
			size_t len = 0;
			for (const char *const *a = allowed; *a && len < sizeof(list); a++)
				len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "", *a);
			return apenet_err_set(e, APENET_EINVAL, "%s:%d:%d: unknown key '%s' (expected one of: %s)", c->file,
					      n->key_line, n->key_col, n->key, list);
		}
	}
	return 0;
}

static const char *name_of(const struct apenet_conf_node *n)
{
	return n->key ? n->key : "value";
}

int apenet_conf_uint(const struct apenet_conf *c, const struct apenet_conf_node *n, unsigned long min, unsigned long max,
	      unsigned long *out, struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "value", e))
		return -1;
	char *end;
	errno = 0;
	unsigned long v = strtoul(n->value, &end, /* 010 is ten in a config, not eight; 0x10 is hex */
			  n->value[0] == '0' && (n->value[1] == 'x' || n->value[1] == 'X') ? 16 : 10);
	/* strtoul skips blanks and takes a sign: a quoted " -1" would wrap to
	 * ULONG_MAX.  A whole number starts with a digit. */
	if (n->value[0] < '0' || n->value[0] > '9' || *end || errno)
		return apenet_conf_error(c, n, e, "'%s': '%s' is not a whole number", name_of(n), n->value);
	if (v < min || v > max)
		return apenet_conf_error(c, n, e, "'%s': %lu is out of range %lu..%lu", name_of(n), v, min, max);
	*out = v;
	return 0;
}

int apenet_conf_double(const struct apenet_conf *c, const struct apenet_conf_node *n, double min, double max, double *out,
		struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "value", e))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(n->value, &end);
	if (!*n->value || *end || errno || !isfinite(v))
		return apenet_conf_error(c, n, e, "'%s': '%s' is not a number", name_of(n), n->value);
	if (v < min || v > max)
		return apenet_conf_error(c, n, e, "'%s': %g is out of range %g..%g", name_of(n), v, min, max);
	*out = v;
	return 0;
}

int apenet_parse_triple(const char *s, char sep, unsigned v[3])
{
	for (int i = 0; i < 3; i++) {
		char *end;
		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		unsigned long x = strtoul(s, &end, 10);
		if (errno || x > 255)
			return -1;
		v[i] = (unsigned)x;
		if (i < 2) {
			if (*end != sep)
				return -1;
			s = end + 1;
		} else if (*end) {
			return -1;
		}
	}
	return 0;
}

int apenet_conf_triple(const struct apenet_conf *c, const struct apenet_conf_node *n, char sep, unsigned v[3], struct apenet_err *e)
{
	if (apenet_conf_expect(c, n, APENET_CONF_SCALAR, "value", e))
		return -1;
	if (apenet_parse_triple(n->value, sep, v))
		return apenet_conf_error(c, n, e, "'%s': '%s' is not of the form N%cN%cN (0..255)", name_of(n), n->value,
				  sep, sep);
	return 0;
}
