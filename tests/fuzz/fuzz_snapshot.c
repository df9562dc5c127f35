/*
 * Snapshot documents (`apenet snapshot`, replayed with --from FILE; the
 * snapshot codec, collectors/snapfile.c): the loader on any text, then a
 * round trip: what loads is written back as a snapshot and must load again
 * to the same view.  That checks the JSON writer (common/out.c) on whatever
 * strings the file carried, too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/snapfile.h"
#include "fuzz.h"

/*
 * The one call into the snapshot loader: when its entry point changes, only
 * this does.  From memory, as a C string: the text stops at a NUL byte.
 */
static int fuzz_snapshot_load(const uint8_t *data, size_t size, struct apenet_view *v, struct apenet_err *e)
{
	char *text = apenet_fuzz_cstr(data, size);
	if (!text) {
		memset(v, 0, sizeof(*v));
		return apenet_err_set(e, APENET_EIO, "fuzz: out of memory");
	}
	int rc = apenet_snapfile_load_string("fuzz.json", text, v, e);
	free(text);
	return rc;
}

static void same_view(const struct apenet_view *a, const struct apenet_view *b)
{
	APENET_FUZZ_CHECK(!strcmp(a->bdf, b->bdf));
	APENET_FUZZ_CHECK(a->prof == b->prof);
	APENET_FUZZ_CHECK(a->pcie_ok == b->pcie_ok);
	if (a->pcie_ok)
		APENET_FUZZ_CHECK(!memcmp(&a->pcie, &b->pcie, sizeof(a->pcie)));
	else
		APENET_FUZZ_CHECK(!strcmp(a->pcie_err, b->pcie_err));
	APENET_FUZZ_CHECK(!memcmp(a->s0.g.v, b->s0.g.v, sizeof(a->s0.g.v)));
	APENET_FUZZ_CHECK(!memcmp(a->s1.g.v, b->s1.g.v, sizeof(a->s1.g.v)));
	APENET_FUZZ_CHECK(!memcmp(a->s0.link, b->s0.link, sizeof(a->s0.link)));
	APENET_FUZZ_CHECK(!memcmp(a->s1.link, b->s1.link, sizeof(a->s1.link)));
	APENET_FUZZ_CHECK(!memcmp(a->host_ms, b->host_ms, sizeof(a->host_ms)));
	APENET_FUZZ_CHECK(!memcmp(a->ee_status, b->ee_status, sizeof(a->ee_status)));
	for (unsigned l = 0; l < a->prof->nlinks; l++)
		if (APENET_GET(EE_STATUS, PRESENT, a->ee_status[l]))
			APENET_FUZZ_CHECK(!memcmp(a->ee[l], b->ee[l], sizeof(a->ee[l])));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* static: a view holds two snapshots and six EEPROM images */
	static struct apenet_view v, back;
	struct apenet_err e = { 0 };
	char *doc = NULL;
	size_t doclen = 0;

	if (fuzz_snapshot_load(data, size, &v, &e) != 0) {
		APENET_FUZZ_CHECK(e.msg[0] != '\0');
		return 0;
	}
	APENET_FUZZ_CHECK(v.prof != NULL);
	APENET_FUZZ_CHECK(v.s1.g.TIMESTAMP >= v.s0.g.TIMESTAMP);
	APENET_FUZZ_CHECK(apenet_view_dt(&v) >= 0);

	FILE *f = open_memstream(&doc, &doclen);
	if (!f)
		return 0;
	struct apenet_out *o = apenet_out_new(APENET_OUT_JSON, f, "snapshot");
	APENET_FUZZ_CHECK(o != NULL);
	apenet_snapfile_write(&v, o);
	APENET_FUZZ_CHECK(apenet_out_finish(o) == 0);
	fclose(f);

	struct apenet_err e2 = { 0 };
	if (fuzz_snapshot_load((const uint8_t *)doc, doclen, &back, &e2) != 0) {
		fprintf(stderr, "round trip failed: %s\n%s\n", e2.msg, doc);
		APENET_FUZZ_CHECK(!"a snapshot written from a loaded one loads again");
	}
	same_view(&v, &back);
	free(doc);
	return 0;
}
