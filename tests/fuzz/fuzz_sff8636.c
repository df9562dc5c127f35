/*
 * SFF-8636 module EEPROM (collectors/sff8636.c, collectors/module_*.c): the
 * decoder on the raw bytes and the health part the judge reads; the same
 * bytes as a raw dump file (identified and loaded) and as a card's EEPROM
 * window (bytes 0-1 of the input pick its EE_STATUS).
 */
#include <math.h>
#include <string.h>

#include "apenet/module.h"
#include "apenet/sff8636.h"
#include "fuzz.h"
#include "fuzz_module.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct apenet_sff8636 m;
	static struct apenet_module_image img;
	struct apenet_module_health h;
	char err[200];

	err[0] = '\0';
	if (apenet_sff8636_decode(data, size, &m, err, sizeof(err)) == 0) {
		APENET_FUZZ_CHECK(m.len == APENET_SFF8636_LEN_BASE || m.len == APENET_SFF8636_LEN_FULL);
		APENET_FUZZ_CHECK(m.id_name && m.rev_name && m.connector_name && m.ext_compliance_name &&
				  m.media && m.encoding_name && m.tx_tech_name);
		APENET_FUZZ_CHECK(m.power_class >= 1 && m.power_class <= 8);
		apenet_fuzz_check_text(m.vendor, sizeof(m.vendor));
		apenet_fuzz_check_text(m.part, sizeof(m.part));
		apenet_fuzz_check_text(m.vendor_rev, sizeof(m.vendor_rev));
		apenet_fuzz_check_text(m.serial, sizeof(m.serial));
		apenet_fuzz_check_text(m.date_code, sizeof(m.date_code));
		apenet_fuzz_check_text(m.date, sizeof(m.date));
		apenet_fuzz_check_text(m.lot, sizeof(m.lot));
		apenet_fuzz_check_text(m.eth_names, sizeof(m.eth_names));
		memset(&h, 0xa5, sizeof(h));
		apenet_sff8636_health(&m, &h);
		apenet_fuzz_check_health(&h, 4);
	} else {
		APENET_FUZZ_CHECK(err[0] != '\0');
	}
	/* The decoder with the same bytes and no room for a message. */
	apenet_sff8636_decode(data, size, &m, NULL, 0);

	apenet_fuzz_module_file(data, size, &img);
	apenet_fuzz_module_window(data, size, &img);
	return 0;
}
