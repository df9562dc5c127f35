/* Checks shared by the module EEPROM targets (see fuzz_module.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/rules_module.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"
#include "fuzz.h"
#include "fuzz_module.h"

void apenet_fuzz_check_text(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	APENET_FUZZ_CHECK(n < cap);
	for (size_t i = 0; i < n; i++)
		APENET_FUZZ_CHECK(s[i] >= 0x20 && s[i] < 0x7f);
}

/*
 * The judge on it: what it returns (alarm_count) is one per finding, check
 * codes not counted; every finding names the port whole (a dump's file
 * name); no TX bias or TX power low condition on a lane whose TX LOS or TX
 * fault flag already says the laser is dark.
 */
static void check_judge(const struct apenet_module_health *h)
{
	static const char port[] = "a-module-dump-with-a-long-file-name.bin";
	struct apenet_findings fs;
	int n, conditions = 0;

	apenet_findings_init(&fs);
	n = apenet_rules_module(h, 0, port, &fs);
	for (size_t i = 0; i < fs.n; i++) {
		const struct apenet_finding *f = &fs.f[i];
		unsigned k = f->lane > 0 ? (unsigned)f->lane - 1 : 0;
		int dark = (h->tx_los_ok && (h->tx_los >> k & 1u)) || (h->tx_fault_ok && (h->tx_fault >> k & 1u));

		conditions += strcmp(f->code, "MODULE_CHECKSUM") != 0;
		APENET_FUZZ_CHECK(strcmp(f->where, port) == 0);
		if (dark && (strstr(f->message, "TX bias low") || strstr(f->message, "TX power low")))
			APENET_FUZZ_CHECK(0);
	}
	APENET_FUZZ_CHECK(n == conditions && fs.lost == 0);
	apenet_findings_free(&fs);
}

void apenet_fuzz_check_health(const struct apenet_module_health *h, unsigned lanes)
{
	APENET_FUZZ_CHECK(h->spec != NULL);
	APENET_FUZZ_CHECK(h->lanes == lanes);
	APENET_FUZZ_CHECK(h->ncc <= sizeof(h->cc) / sizeof(h->cc[0]));
	for (unsigned i = 0; i < h->ncc; i++)
		APENET_FUZZ_CHECK(h->cc[i].name && h->cc[i].field);
	for (unsigned q = 0; q < APENET_MON_COUNT; q++) {
		const struct apenet_module_mon *mon = &h->mon[q];
		const struct apenet_module_mon_info *info = apenet_module_mon_info((enum apenet_module_mon_id)q);
		unsigned n = info && info->per_lane ? lanes : 1;
		APENET_FUZZ_CHECK(info != NULL);
		/* What is shown and judged is a number: a reading is never NaN or infinite. */
		if (mon->present)
			for (unsigned l = 0; l < n; l++)
				APENET_FUZZ_CHECK(isfinite(mon->value[l]));
		if (mon->thresh_ok)
			APENET_FUZZ_CHECK(isfinite(mon->th.high_alarm) && isfinite(mon->th.low_alarm) &&
					  isfinite(mon->th.high_warn) && isfinite(mon->th.low_warn));
		if (mon->flags_ok)
			for (unsigned l = 0; l < n; l++)
				APENET_FUZZ_CHECK(mon->flags[l] <= 0x0f);
	}
	check_judge(h);
}

static void decodes(const struct apenet_module_image *img)
{
	static struct apenet_sff8636 q;
	static struct apenet_sff8472 s;
	char err[200];

	if (img->layout == APENET_EE_SFF8636) {
		if (apenet_sff8636_decode(img->b, img->len, &q, err, sizeof(err)) != 0)
			fprintf(stderr, "identified as SFF-8636, decoder says: %s\n", err);
		APENET_FUZZ_CHECK(apenet_sff8636_decode(img->b, img->len, &q, NULL, 0) == 0);
	} else {
		APENET_FUZZ_CHECK(img->layout == APENET_EE_SFF8472);
		if (apenet_sff8472_decode(img->b, img->len, &s, err, sizeof(err)) != 0)
			fprintf(stderr, "identified as SFF-8472, decoder says: %s\n", err);
		APENET_FUZZ_CHECK(apenet_sff8472_decode(img->b, img->len, &s, NULL, 0) == 0);
	}
}

void apenet_fuzz_module_file(const uint8_t *data, size_t size, struct apenet_module_image *img)
{
	char err[400];
	enum apenet_ee_layout layout;

	const char *path = apenet_fuzz_file(0, data, size);
	if (!path)
		return;
	err[0] = '\0';
	enum apenet_module_file_err rc = apenet_module_load_file(path, img, err, sizeof(err));
	APENET_FUZZ_CHECK(apenet_module_file_err_code(rc) != NULL);
	if (rc != APENET_MFILE_OK) {
		APENET_FUZZ_CHECK(err[0] != '\0');
		return;
	}
	APENET_FUZZ_CHECK(img->len == size && img->len <= APENET_MODULE_IMAGE_MAX);
	APENET_FUZZ_CHECK(memcmp(img->b, data, size) == 0);
	APENET_FUZZ_CHECK(apenet_module_identify(data, size, &layout, err, sizeof(err)) == APENET_MFILE_OK);
	APENET_FUZZ_CHECK(layout == img->layout);
	decodes(img);
}

void apenet_fuzz_module_window(const uint8_t *data, size_t size, struct apenet_module_image *img)
{
	uint8_t window[APENET_EE_DATA_LEN];

	if (size < 2)
		return;
	uint32_t ee_status = (uint32_t)data[0] | (uint32_t)data[1] << 8;
	size_t n = size - 2 < sizeof(window) ? size - 2 : sizeof(window);
	memset(window, 0, sizeof(window));
	memcpy(window, data + 2, n);
	apenet_module_from_window(window, ee_status, img);
	APENET_FUZZ_CHECK(img->layout == APENET_EE_SFF8636 || img->layout == APENET_EE_SFF8472);
	APENET_FUZZ_CHECK(img->len == (img->layout == APENET_EE_SFF8472 ? APENET_SFF8472_LEN_FULL : APENET_EE_DATA_LEN));
	APENET_FUZZ_CHECK(memcmp(img->b, window, img->len) == 0);
}
