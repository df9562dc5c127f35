/*
 * Raw SFF-8636 dump loader: the bytes `ethtool -m DEV raw on > file` writes
 * (256 for a flat-memory module, 640 with pages 01h-03h), so a module seen
 * on any Linux host can be decoded by the same code as the card's mirror.
 * The decode itself stays in sff8636.c, free of I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "apenet/err.h"
#include "apenet/sff8636.h"

/* Counting stops here; a file this long is no EEPROM dump anyway. */
#define COUNT_LIMIT (1u << 20)

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

int apenet_sff8636_load_file(const char *path, uint8_t *buf, size_t cap, size_t *len, char *err,
			     size_t errlen)
{
	uint8_t head[APENET_SFF8636_LEN_FULL + 1], scratch[4096];
	size_t n, total;
	FILE *f;
	int rerr;

	if (!path || !buf || !len)
		return apenet_errbuf(err, errlen, "module EEPROM file: no path or buffer");
	f = fopen(path, "rb");
	if (!f)
		return apenet_errbuf(err, errlen, "%s: cannot open module EEPROM dump: %s", path,
				     strerror(errno));

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
	if (rerr)
		return apenet_errbuf(err, errlen, "%s: cannot read module EEPROM dump: %s", path,
				     strerror(rerr));

	if (total == 0)
		return apenet_errbuf(err, errlen,
				     "%s: empty file: expected a raw module EEPROM dump "
				     "(`ethtool -m DEV raw on > file`)",
				     path);
	if (total != APENET_SFF8636_LEN_BASE && total != APENET_SFF8636_LEN_FULL) {
		const char *hint = looks_like_text(head, n < total ? n : total)
					   ? " (this looks like text: use `ethtool -m DEV raw on`)"
					   : "";

		return apenet_errbuf(err, errlen,
				     "%s: %s%zu bytes: expected 256 (lower page + page 00h) or 640 "
				     "(plus pages 01h-03h)%s",
				     path, total >= COUNT_LIMIT ? "at least " : "", total, hint);
	}
	if (cap < total)
		return apenet_errbuf(err, errlen, "%s: %zu bytes do not fit the %zu-byte buffer", path,
				     total, cap);
	memcpy(buf, head, total);
	*len = total;
	return 0;
}
