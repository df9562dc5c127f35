/*
 * `lspci -xxxx` dumps, the way the emulator's node directories and
 * `lspci -F` hand them over: the dump goes through libpci's dump reader and
 * our scan (collectors/pci.c), which then decodes each card's config space
 * (collectors/pcie_cap.c).  A malformed dump must come back as an error,
 * never end the process.
 */
#include <stdio.h>
#include <string.h>

#include "apenet/dev.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct apenet_site site;
	struct apenet_card cards[4];
	struct apenet_err e = { 0 };
	int n = -1;

	const char *path = apenet_fuzz_file(0, data, size);
	if (!path)
		return 0;
	snprintf(site.dump, sizeof(site.dump), "%s", path);
	snprintf(site.devroot, sizeof(site.devroot), "/nonexistent");
	if (apenet_pci_scan(&site, cards, 4, &n, &e) == 0) {
		APENET_FUZZ_CHECK(n >= 0 && n <= 4);
		for (int i = 0; i < n; i++) {
			APENET_FUZZ_CHECK(strlen(cards[i].bdf) < sizeof(cards[i].bdf));
			APENET_FUZZ_CHECK(cards[i].gone || cards[i].prof);
			APENET_FUZZ_CHECK(cards[i].pcie_ok || cards[i].gone || cards[i].pcie_err[0]);
		}
	} else {
		APENET_FUZZ_CHECK(e.msg[0] != '\0');
		APENET_FUZZ_CHECK(n == 0);
	}
	return 0;
}
