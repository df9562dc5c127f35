/*
 * The toolkit config (common/config.c, cluster layout, thresholds, the
 * table-driven sections) from YAML text.  What loads must be usable as
 * loaded: every threshold in its documented range with warn at or below
 * fail, every node inside the torus and found by name and by coordinates,
 * every supervisor instance with its address and database.
 */
#include <stdlib.h>
#include <string.h>

#include "apenet/config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct apenet_config cfg;
	struct apenet_err e = { 0 };
	char *text = apenet_fuzz_cstr(data, size);

	if (!text)
		return 0;
	if (apenet_config_load_string("fuzz.yaml", text, &cfg, &e) == 0) {
		const struct apenet_thresholds *t = &cfg.thr;
		APENET_FUZZ_CHECK(t->fpga_temp_warn_c <= t->fpga_temp_fail_c);
		APENET_FUZZ_CHECK(t->board_temp_warn_c <= t->board_temp_fail_c);
		APENET_FUZZ_CHECK(t->vdroop_warn_pct <= t->vdroop_fail_pct);
		APENET_FUZZ_CHECK(t->crc_warn_per_min <= t->crc_fail_per_min);
		APENET_FUZZ_CHECK(t->ldm_age_warn_ms <= t->ldm_age_fail_ms);
		APENET_FUZZ_CHECK(t->flaps_fail >= 1);
		if (cfg.cl.have)
			for (int d = 0; d < 3; d++)
				APENET_FUZZ_CHECK(cfg.cl.dims[d] >= 1 && cfg.cl.dims[d] <= 255);
		/* the supervisor's lists name as many instances each: every
		 * one of them, and no more, is there for --instance N */
		char listen[256], db[APENET_PATH_MAX];
		unsigned k = 0;
		while (apenet_config_instance(&cfg.svr, k + 1, listen, sizeof(listen), db, sizeof(db), &e) == 0) {
			APENET_FUZZ_CHECK(listen[0] && db[0] == '/');
			k++;
		}
		APENET_FUZZ_CHECK(k >= 1 && k <= APENET_CONFIG_MAX_INSTANCES);
		for (unsigned i = 0; i < cfg.cl.nnodes; i++) {
			const struct apenet_node_name *nn = &cfg.cl.nodes[i];
			unsigned xyz[3];
			APENET_FUZZ_CHECK(nn->x < cfg.cl.dims[0] && nn->y < cfg.cl.dims[1] && nn->z < cfg.cl.dims[2]);
			APENET_FUZZ_CHECK(nn->name[0] && strlen(nn->name) < sizeof(nn->name));
			APENET_FUZZ_CHECK(apenet_config_node_by_name(&cfg, nn->name, xyz) == 0);
			APENET_FUZZ_CHECK(xyz[0] == nn->x && xyz[1] == nn->y && xyz[2] == nn->z);
			const char *back = apenet_config_node_name(&cfg, nn->x, nn->y, nn->z);
			APENET_FUZZ_CHECK(back && !strcmp(back, nn->name));
		}
	} else {
		APENET_FUZZ_CHECK(e.msg[0] != '\0');
		APENET_FUZZ_CHECK(cfg.cl.nodes == NULL);
	}
	apenet_config_free(&cfg);
	free(text);
	return 0;
}
