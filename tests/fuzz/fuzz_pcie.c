/*
 * PCIe capability codec (collectors/pcie_cap.c) on raw config space: any
 * bytes, any length.  A failure always says why; a result keeps to what
 * the registers can hold.
 */
#include <string.h>

#include "apenet/pcie.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct apenet_pcie_info info;
	char err[200], tiny[8];

	err[0] = '\0';
	int rc = apenet_pcie_parse(data, size, &info, err, sizeof(err));
	APENET_FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc)
		APENET_FUZZ_CHECK(err[0] != '\0' && strlen(err) < sizeof(err));
	else
		APENET_FUZZ_CHECK(err[0] == '\0');
	APENET_FUZZ_CHECK(!info.has_aer || info.has_pcie);
	APENET_FUZZ_CHECK(info.cap_width <= 63 && info.sta_width <= 63);
	APENET_FUZZ_CHECK(info.cap_gen <= 15 && info.sta_gen <= 15);
	APENET_FUZZ_CHECK(apenet_pcie_speed_str(info.cap_gen) != NULL);
	APENET_FUZZ_CHECK(apenet_pcie_speed_str(info.sta_gen) != NULL);

	/* The same with a message buffer too small and with none. */
	struct apenet_pcie_info again;
	APENET_FUZZ_CHECK(apenet_pcie_parse(data, size, &again, tiny, sizeof(tiny)) == rc);
	APENET_FUZZ_CHECK(strlen(tiny) < sizeof(tiny));
	APENET_FUZZ_CHECK(apenet_pcie_parse(data, size, &again, NULL, 0) == rc);
	APENET_FUZZ_CHECK(memcmp(&info, &again, sizeof(info)) == 0);
	return 0;
}
