/*
 * LDM codec (common/ldm.c): any 32-bit word decodes, and the decoded struct
 * says exactly what the word holds: re-encoding the fields gives the word
 * back, the verdict matches the valid bit and the 11 fields.  Bytes 4-5 pick
 * a direction for the direction -> field map.
 */
#include <string.h>

#include "apenet/ldm.h"
#include "apenet/regs.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apenet_ldm m;
	uint32_t w = 0, back;
	unsigned ninvalid = 0, worst = 0;

	for (size_t i = 0; i < size && i < 4; i++)
		w |= (uint32_t)data[i] << (8 * i);
	int rc = apenet_ldm_decode(w, &m);

	back = (uint32_t)(m.valid ? 1u : 0u) << 31 | m.spare << 27 | (uint32_t)(m.host_expired ? 1u : 0u) << 26;
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++) {
		APENET_FUZZ_CHECK(m.field[f] <= 3);
		back |= (uint32_t)m.field[f] << apenet_ldm_field_lsb(f);
		ninvalid += m.field[f] == APENET_LDM_INVALID;
		if (m.field[f] > worst)
			worst = m.field[f];
		APENET_FUZZ_CHECK(strcmp(apenet_ldm_field_name(f), "?") != 0);
		APENET_FUZZ_CHECK(strcmp(apenet_ldm_field_key(f), "?") != 0);
		APENET_FUZZ_CHECK(strcmp(apenet_ldm_status_name(m.field[f]), "?") != 0);
	}
	APENET_FUZZ_CHECK(back == w);
	APENET_FUZZ_CHECK(m.word == w);
	APENET_FUZZ_CHECK(m.ninvalid == ninvalid);
	APENET_FUZZ_CHECK(m.worst == worst);
	APENET_FUZZ_CHECK((rc == 0) == (m.valid && m.ninvalid == 0));
	APENET_FUZZ_CHECK(rc == 0 || rc == -1);

	if (size >= 6) {
		int f = apenet_ldm_field_of_dir(data[4], data[5] & 1);
		APENET_FUZZ_CHECK(f >= -1 && f < APENET_LDM_NFIELDS);
	}
	/* Out-of-range indexes answer "?" rather than read past a table. */
	if (size >= 5) {
		apenet_ldm_field_name(data[4]);
		apenet_ldm_field_key(data[4]);
		apenet_ldm_status_name(data[4]);
		apenet_ldm_field_lsb(data[4]);
	}
	return 0;
}
