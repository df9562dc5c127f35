/*
 * SFF-8472 (SFP/SFP+) module EEPROM (collectors/sff8472.c,
 * collectors/module_*.c): the decoder on the raw bytes, calibration and
 * all, and the health part the judge reads; the same bytes as a raw dump
 * file and as a card's EEPROM window.
 */
#include <math.h>
#include <string.h>

#include "apenet/module.h"
#include "apenet/sff8472.h"
#include "fuzz.h"
#include "fuzz_module.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct apenet_sff8472 m;
	static struct apenet_module_image img;
	struct apenet_module_health h;
	char err[200];

	err[0] = '\0';
	if (apenet_sff8472_decode(data, size, &m, err, sizeof(err)) == 0) {
		APENET_FUZZ_CHECK(m.len == APENET_SFF8472_LEN_A0 || m.len == APENET_SFF8472_LEN_FULL);
		APENET_FUZZ_CHECK(m.id_name && m.ext_id_name && m.connector_name && m.ext_compliance_name &&
				  m.media && m.encoding_name && m.rate_id_name && m.compliance_rev_name);
		apenet_fuzz_check_text(m.vendor, sizeof(m.vendor));
		apenet_fuzz_check_text(m.part, sizeof(m.part));
		apenet_fuzz_check_text(m.vendor_rev, sizeof(m.vendor_rev));
		apenet_fuzz_check_text(m.serial, sizeof(m.serial));
		apenet_fuzz_check_text(m.date_code, sizeof(m.date_code));
		apenet_fuzz_check_text(m.date, sizeof(m.date));
		apenet_fuzz_check_text(m.lot, sizeof(m.lot));
		apenet_fuzz_check_text(m.compliance, sizeof(m.compliance));
		apenet_fuzz_check_text(m.cable_compliance_names, sizeof(m.cable_compliance_names));
		apenet_fuzz_check_text(m.options_names, sizeof(m.options_names));
		memset(&h, 0xa5, sizeof(h));
		apenet_sff8472_health(&m, &h);
		apenet_fuzz_check_health(&h, 1);
	} else {
		APENET_FUZZ_CHECK(err[0] != '\0');
	}
	apenet_sff8472_decode(data, size, &m, NULL, 0);

	apenet_fuzz_module_file(data, size, &img);
	apenet_fuzz_module_window(data, size, &img);
	return 0;
}
