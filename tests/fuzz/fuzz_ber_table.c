/*
 * The emulator's measured-channel CSV (sim/ber_table.c: PMA settings ->
 * BER points replayed instead of the channel model).  A table that loads
 * answers every lookup, exact or nearest, with one of its own BERs.
 */
#include <math.h>
#include <string.h>

#include "../../sim/channel.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_ber_table *t = NULL;
	char err[300];
	/* Stratix IV-like maxima, and one range that forbids every nonzero setting. */
	static const struct apenet_pma_range wide = { 7, 15, 15, 15, 15, 4 };
	static const struct apenet_pma_range none = { 0, 0, 0, 0, 0, 0 };

	const char *path = apenet_fuzz_file(0, data, size);
	if (!path)
		return 0;
	err[0] = '\0';
	if (sim_ber_table_load(path, &t, err, sizeof(err)) != 0) {
		APENET_FUZZ_CHECK(t == NULL && err[0] != '\0');
		return 0;
	}
	APENET_FUZZ_CHECK(sim_ber_table_count(t) > 0);
	sim_ber_table_check(t, &wide, err, sizeof(err));
	sim_ber_table_check(t, &none, err, sizeof(err));

	/* Lookups at a few settings taken from the input's own bytes. */
	for (size_t i = 0; i + 6 <= size && i < 60; i += 6) {
		struct sim_pma p = { data[i], data[i + 1], data[i + 2], data[i + 3], data[i + 4], data[i + 5] };
		int exact = -1;
		double b = sim_ber_table_lookup(t, &p, &wide, &exact);
		APENET_FUZZ_CHECK(exact == 0 || exact == 1);
		APENET_FUZZ_CHECK(isfinite(b) && b >= 0.0 && b <= 0.5);
		b = sim_ber_table_lookup(t, &p, NULL, NULL);
		APENET_FUZZ_CHECK(isfinite(b) && b >= 0.0 && b <= 0.5);
		b = sim_ber_table_lookup(t, &p, &none, &exact);
		APENET_FUZZ_CHECK(isfinite(b) && b >= 0.0 && b <= 0.5);
	}
	sim_ber_table_free(t);
	return 0;
}
