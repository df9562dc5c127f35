/*
 * SFF-8636 module EEPROM (collectors/sff8636*.c): the decoder on the raw
 * bytes, the alarm summary with summary buffers of several sizes (the count
 * must not depend on the buffer, the text must stay inside it), and the raw
 * dump loader on the same bytes as a file.
 */
#include <string.h>

#include "apenet/sff8636.h"
#include "fuzz.h"

static void check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	APENET_FUZZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i++)
		APENET_FUZZ_CHECK(s[i] >= 0x20 && s[i] < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct apenet_sff8636 m;
	char err[200], sum[2048], small[17];
	uint8_t buf[APENET_SFF8636_LEN_FULL];
	size_t len = 0;

	err[0] = '\0';
	if (apenet_sff8636_decode(data, size, &m, err, sizeof(err)) == 0) {
		APENET_FUZZ_CHECK(m.len == APENET_SFF8636_LEN_BASE || m.len == APENET_SFF8636_LEN_FULL);
		APENET_FUZZ_CHECK(m.id_name && m.rev_name && m.connector_name && m.ext_compliance_name &&
				  m.media && m.encoding_name && m.tx_tech_name);
		APENET_FUZZ_CHECK(m.power_class >= 1 && m.power_class <= 8);
		check_text(m.vendor, sizeof(m.vendor));
		check_text(m.part, sizeof(m.part));
		check_text(m.vendor_rev, sizeof(m.vendor_rev));
		check_text(m.serial, sizeof(m.serial));
		check_text(m.date_code, sizeof(m.date_code));
		check_text(m.date, sizeof(m.date));
		check_text(m.lot, sizeof(m.lot));
		check_text(m.eth_names, sizeof(m.eth_names));

		int n = apenet_sff8636_alarms(&m, sum, sizeof(sum));
		APENET_FUZZ_CHECK(n >= 0);
		APENET_FUZZ_CHECK((n == 0) == (sum[0] == '\0'));
		check_text(sum, sizeof(sum));
		APENET_FUZZ_CHECK(apenet_sff8636_alarms(&m, small, sizeof(small)) == n);
		check_text(small, sizeof(small));
		APENET_FUZZ_CHECK(apenet_sff8636_alarms(&m, NULL, 0) == n);
	} else {
		APENET_FUZZ_CHECK(err[0] != '\0');
	}
	/* The decoder with the same bytes and no room for a message. */
	apenet_sff8636_decode(data, size, &m, NULL, 0);

	const char *path = apenet_fuzz_file(0, data, size);
	if (path && apenet_sff8636_load_file(path, buf, sizeof(buf), &len, err, sizeof(err)) == 0) {
		APENET_FUZZ_CHECK(len == size);
		APENET_FUZZ_CHECK(memcmp(buf, data, len) == 0);
	}
	return 0;
}
