/* The LDM word, decoded field by field, for status and link. */
#include <stdio.h>

#include "apenet/ldm.h"
#include "cli.h"

void cli_out_ldm(struct apenet_out *o, const char *key, uint32_t word)
{
	struct apenet_ldm m;
	int ok = apenet_ldm_decode(word, &m) == 0;
	char t[160];
	if (!m.valid)
		snprintf(t, sizeof(t), "0x%08x not valid", word);
	else if (m.ninvalid)
		snprintf(t, sizeof(t), "0x%08x INVALID: %u fields read 11", word, m.ninvalid);
	else {
		size_t n = (size_t)snprintf(t, sizeof(t), "0x%08x %s", word, apenet_ldm_status_name(m.worst));
		for (unsigned f = 0; f < APENET_LDM_NFIELDS && n < sizeof(t); f++)
			if (m.field[f])
				n += (size_t)snprintf(t + n, sizeof(t) - n, ", %s %s", apenet_ldm_field_name(f),
						      apenet_ldm_status_name(m.field[f]));
		if (m.host_expired && n < sizeof(t))
			snprintf(t + n, sizeof(t) - n, ", host expired");
	}
	apenet_out_obj_begin_text(o, key, t);
	apenet_out_hex(o, "word", word, 8);
	apenet_out_bool(o, "valid", m.valid);
	apenet_out_bool(o, "well_formed", ok || (m.valid == 0 && m.ninvalid == 0));
	apenet_out_obj_begin(o, "fields");
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++)
		apenet_out_str(o, apenet_ldm_field_key(f), apenet_ldm_status_name(m.field[f]));
	apenet_out_obj_end(o);
	apenet_out_bool(o, "host_expired", m.host_expired);
	apenet_out_uint(o, "spare_bits", m.spare);
	apenet_out_obj_end(o);
}
