/*
 * The YAML loader (common/conf.c): any text either loads into a tree or
 * fails with a file:line:column message.  Every node of a tree that loads
 * goes through the typed accessors the config readers use (whole numbers,
 * numbers, triples, key checks), so their error paths run too.
 */
#include <stdlib.h>
#include <string.h>

#include "apenet/conf.h"
#include "fuzz.h"

static const char *const allowed[] = { "dims", "node", "name", "cluster", "thresholds", NULL };

static void walk(const struct apenet_conf *c, const struct apenet_conf_node *n, int depth)
{
	struct apenet_err e;

	for (; n; n = n->next) {
		APENET_FUZZ_CHECK(depth < 100);
		APENET_FUZZ_CHECK(n->line >= 1 && n->col >= 1);
		if (n->kind == APENET_CONF_SCALAR) {
			unsigned long u;
			double d;
			unsigned v[3];

			APENET_FUZZ_CHECK(n->value != NULL && n->child == NULL);
			e.msg[0] = '\0';
			if (apenet_conf_uint(c, n, 0, 1000, &u, &e) == 0)
				APENET_FUZZ_CHECK(u <= 1000);
			else
				APENET_FUZZ_CHECK(e.msg[0] != '\0');
			if (apenet_conf_double(c, n, -1e6, 1e6, &d, &e) == 0)
				APENET_FUZZ_CHECK(d >= -1e6 && d <= 1e6);
			if (apenet_conf_triple(c, n, ',', v, &e) == 0)
				APENET_FUZZ_CHECK(v[0] <= 255 && v[1] <= 255 && v[2] <= 255);
			apenet_conf_triple(c, n, 'x', v, &e);
			APENET_FUZZ_CHECK(apenet_conf_expect(c, n, APENET_CONF_MAP, "value", &e) == -1);
		} else {
			APENET_FUZZ_CHECK(n->value == NULL);
			if (n->kind == APENET_CONF_MAP) {
				apenet_conf_check_keys(c, n, allowed, &e);
				/* get() finds each key, and keys are unique in a map */
				for (const struct apenet_conf_node *k = n->child; k; k = k->next) {
					APENET_FUZZ_CHECK(k->key != NULL);
					APENET_FUZZ_CHECK(apenet_conf_get(n, k->key) == k);
				}
			} else {
				for (const struct apenet_conf_node *k = n->child; k; k = k->next)
					APENET_FUZZ_CHECK(k->key == NULL);
			}
			walk(c, n->child, depth + 1);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apenet_conf *c = NULL;
	struct apenet_err e = { 0 };
	char *text = apenet_fuzz_cstr(data, size);

	if (!text)
		return 0;
	if (apenet_conf_load_string("fuzz.yaml", text, &c, &e) == 0) {
		APENET_FUZZ_CHECK(c && c->root);
		walk(c, c->root, 0);
		apenet_conf_free(c);
	} else {
		APENET_FUZZ_CHECK(e.msg[0] != '\0');
		APENET_FUZZ_CHECK(strncmp(e.msg, "fuzz.yaml", 9) == 0);
	}
	free(text);
	return 0;
}
