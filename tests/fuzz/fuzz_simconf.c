/*
 * The emulator's YAML config (sim/simconf.c: variants, cables, measured
 * channels).  What loads must describe a torus the emulator can build:
 * every size at least 1, every node and cable end inside it, every link
 * one its board has.
 */
#include <stdlib.h>
#include <string.h>

#include "../../sim/sim.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* apenet-sim run's defaults, which the file overrides */
	struct sim_conf c = { .dims = { 4, 4, 1 }, .prof = apenet_profile(APENET_V_APENETP), .seed = 1,
			      .ber_accel = 1, .cable_kind = -1 };
	struct apenet_err e = { 0 };

	const char *path = apenet_fuzz_file(0, data, size);
	if (!path)
		return 0;
	if (sim_conf_load(path, &c, &e) == 0) {
		APENET_FUZZ_CHECK(c.prof != NULL);
		for (int d = 0; d < 3; d++)
			APENET_FUZZ_CHECK(c.dims[d] >= 1 && c.dims[d] <= 255);
		for (unsigned i = 0; i < c.nnodes; i++) {
			APENET_FUZZ_CHECK(c.nodes[i].prof != NULL);
			APENET_FUZZ_CHECK(c.nodes[i].x < c.dims[0] && c.nodes[i].y < c.dims[1] &&
					  c.nodes[i].z < c.dims[2]);
		}
		for (unsigned i = 0; i < c.ncables; i++) {
			const struct sim_cable_conf *cc = &c.cables[i];
			APENET_FUZZ_CHECK(cc->x < c.dims[0] && cc->y < c.dims[1] && cc->z < c.dims[2]);
			APENET_FUZZ_CHECK(cc->link < APENET_MAX_LINKS);
			APENET_FUZZ_CHECK(strlen(cc->csv) < sizeof(cc->csv));
		}
	} else {
		APENET_FUZZ_CHECK(e.msg[0] != '\0');
	}
	sim_conf_free(&c);
	return 0;
}
