/*
 * Module images: raw dumps (`ethtool -m DEV raw on > file`, so a module seen
 * on any Linux host is decoded by the same code as the card's mirror) and
 * the card's EEPROM windows, each with the decoder that reads it.  The
 * decoders stay in sff8636.c and sff8472.c, free of I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apenet/err.h"
#include "apenet/module.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"
#include "sff_util.h"

_Static_assert(APENET_EE_DATA_LEN <= APENET_MODULE_IMAGE_MAX, "a card's EEPROM window fits an image");

/* Counting stops here; a file this long is no EEPROM dump anyway. */
#define COUNT_LIMIT (1u << 20)

static const char *const err_codes[] = {
	[APENET_MFILE_OK] = "OK",
	[APENET_MFILE_IO] = "FILE_UNREADABLE",
	[APENET_MFILE_SIZE] = "FILE_SIZE",
	[APENET_MFILE_KIND] = "FILE_NOT_A_MODULE",
};

const char *apenet_module_file_err_code(enum apenet_module_file_err e)
{
	return (unsigned)e < sizeof(err_codes) / sizeof(err_codes[0]) ? err_codes[e] : "FILE_UNREADABLE";
}

static int is_qsfp(uint8_t id)
{
	return id == 0x0c || id == 0x0d || id == 0x11;
}

static int is_sfp(uint8_t id)
{
	return id == 0x02 || id == 0x03 || id == 0x0b;
}

#define SIZES " (a QSFP image, SFF-8636, is 256 or 640 bytes; an SFP image, SFF-8472, 256 or 512)"

enum apenet_module_file_err apenet_module_identify(const uint8_t *b, size_t len, enum apenet_ee_layout *layout,
						   char *err, size_t errlen)
{
	int ff;

	if (len < APENET_SFF8636_LEN_BASE) {
		if (len)
			apenet_errbuf(err, errlen, "%zu bytes, identifier 0x%02x (%s): too short for a module image" SIZES,
				      len, b[0], apenet_sff8636_id_name(b[0]));
		else
			apenet_errbuf(err, errlen, "0 bytes: empty, not a module image" SIZES);
		return APENET_MFILE_SIZE;
	}
	if (apenet_sff_blank(b, APENET_SFF8636_LEN_BASE, &ff)) {
		apenet_errbuf(err, errlen, "%zu bytes, the first 256 all %s: not a module image (no module, or a failed read)",
			      len, ff ? "0xff" : "zeros");
		return APENET_MFILE_KIND;
	}
	if (is_qsfp(b[0])) {
		*layout = APENET_EE_SFF8636;
		if (len == APENET_SFF8636_LEN_BASE || len == APENET_SFF8636_LEN_FULL)
			return APENET_MFILE_OK;
		apenet_errbuf(err, errlen,
			      "%zu bytes, identifier 0x%02x (%s): a QSFP image (SFF-8636) is 256 bytes (lower page + "
			      "page 00h) or 640 (plus pages 01h-03h)",
			      len, b[0], apenet_sff8636_id_name(b[0]));
		return APENET_MFILE_SIZE;
	}
	if (is_sfp(b[0])) {
		*layout = APENET_EE_SFF8472;
		if (len == APENET_SFF8472_LEN_A0 || len == APENET_SFF8472_LEN_FULL)
			return APENET_MFILE_OK;
		apenet_errbuf(err, errlen,
			      "%zu bytes, identifier 0x%02x (%s): an SFP image (SFF-8472) is 256 bytes (A0h) or 512 "
			      "(A0h then A2h)",
			      len, b[0], apenet_sff8636_id_name(b[0]));
		return APENET_MFILE_SIZE;
	}
	apenet_errbuf(err, errlen, "%zu bytes, identifier 0x%02x (%s): not a QSFP (SFF-8636) or SFP (SFF-8472) module",
		      len, b[0], apenet_sff8636_id_name(b[0]));
	return APENET_MFILE_KIND;
}

/* `ethtool -m` without `raw on` prints text: say so instead of "wrong size". */
static int looks_like_text(const uint8_t *b, size_t n)
{
	if (n < 8)
		return 0;
	for (size_t i = 0; i < 8; i++)
		if ((b[i] < 0x20 || b[i] > 0x7e) && b[i] != '\t' && b[i] != '\n' && b[i] != '\r')
			return 0;
	return 1;
}

enum apenet_module_file_err apenet_module_load_file(const char *path, struct apenet_module_image *img, char *err,
						    size_t errlen)
{
	uint8_t head[APENET_MODULE_IMAGE_MAX + 1], scratch[4096];
	char why[320];
	size_t n, total;
	FILE *f;
	int rerr;
	enum apenet_module_file_err rc;

	if (!path || !img) {
		apenet_errbuf(err, errlen, "module EEPROM file: no path or buffer");
		return APENET_MFILE_IO;
	}
	f = fopen(path, "rb");
	if (!f) {
		apenet_errbuf(err, errlen, "%s: cannot open module EEPROM dump: %s", path, strerror(errno));
		return APENET_MFILE_IO;
	}
	/* One byte more than the largest dump tells "too long" from "exact". */
	n = fread(head, 1, sizeof(head), f);
	total = n;
	while (n == sizeof(head) && total < COUNT_LIMIT) {
		size_t more = fread(scratch, 1, sizeof(scratch), f);

		if (!more)
			break;
		total += more;
	}
	rerr = ferror(f) ? errno : 0;
	fclose(f);
	if (rerr) {
		apenet_errbuf(err, errlen, "%s: cannot read module EEPROM dump: %s", path, strerror(rerr));
		return APENET_MFILE_IO;
	}
	if (total == 0) {
		apenet_errbuf(err, errlen, "%s: empty file: expected a raw module EEPROM dump (`ethtool -m DEV raw on > file`)",
			      path);
		return APENET_MFILE_SIZE;
	}
	if (looks_like_text(head, n)) {
		apenet_errbuf(err, errlen, "%s: %zu bytes of text: use `ethtool -m DEV raw on` for a raw dump", path, total);
		return APENET_MFILE_KIND;
	}
	if (total > APENET_MODULE_IMAGE_MAX) {
		apenet_errbuf(err, errlen, "%s: %s%zu bytes, identifier 0x%02x (%s): longer than any module image" SIZES,
			      path, total >= COUNT_LIMIT ? "at least " : "", total, head[0], apenet_sff8636_id_name(head[0]));
		return APENET_MFILE_SIZE;
	}
	rc = apenet_module_identify(head, total, &img->layout, why, sizeof(why));
	if (rc) {
		apenet_errbuf(err, errlen, "%s: %s", path, why);
		return rc;
	}
	memset(img->b, 0, sizeof(img->b));
	memcpy(img->b, head, total);
	img->len = total;
	return APENET_MFILE_OK;
}

void apenet_module_from_window(const uint8_t window[APENET_EE_DATA_LEN], uint32_t ee_status,
			       struct apenet_module_image *img)
{
	enum apenet_ee_layout l = (enum apenet_ee_layout)APENET_GET(EE_STATUS, LAYOUT, ee_status);

	/* A firmware that does not say: the identifier tells the two apart. */
	if (l != APENET_EE_SFF8636 && l != APENET_EE_SFF8472)
		l = is_sfp(window[0]) ? APENET_EE_SFF8472 : APENET_EE_SFF8636;
	memcpy(img->b, window, APENET_EE_DATA_LEN);
	img->layout = l;
	img->len = l == APENET_EE_SFF8472 ? APENET_SFF8472_LEN_FULL : APENET_EE_DATA_LEN;
}
