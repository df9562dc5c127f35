/* Field helpers both module decoders share (collectors/sff_util.h). */
#include <stdio.h>
#include <string.h>

#include "sff_util.h"

unsigned apenet_sff_be16(const uint8_t *b, unsigned off)
{
	return (unsigned)b[off] << 8 | b[off + 1];
}

double apenet_sff_temp(unsigned raw)
{
	return (raw >= 0x8000u ? (double)raw - 65536.0 : (double)raw) / 256.0;
}

uint8_t apenet_sff_sum8(const uint8_t *b, unsigned from, unsigned to)
{
	unsigned s = 0;

	for (unsigned i = from; i <= to; i++)
		s += b[i];
	return (uint8_t)s;
}

void apenet_sff_ascii(char *dst, const uint8_t *src, unsigned n)
{
	while (n && (src[n - 1] == ' ' || src[n - 1] == '\0'))
		n--;
	for (unsigned i = 0; i < n; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[n] = '\0';
}

static int is_digits(const uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	return 1;
}

void apenet_sff_date(const uint8_t *d, char code[9], char date[11], char lot[3])
{
	apenet_sff_ascii(code, d, 8);
	apenet_sff_ascii(lot, d + 6, 2);
	date[0] = '\0';
	if (is_digits(d, 6)) {
		unsigned mon = (d[2] - '0') * 10u + (d[3] - '0');
		unsigned day = (d[4] - '0') * 10u + (d[5] - '0');

		if (mon >= 1 && mon <= 12 && day >= 1 && day <= 31)
			snprintf(date, 11, "20%c%c-%02u-%02u", d[0], d[1], mon, day);
	}
}

void apenet_sff_append(char *dst, size_t size, const char *name)
{
	size_t used = strlen(dst);

	if (used)
		snprintf(dst + used, size - used, ", %s", name);
	else
		snprintf(dst, size, "%s", name);
}

int apenet_sff_blank(const uint8_t *b, size_t n, int *ff)
{
	int all_ff = 1, all_00 = 1;

	for (size_t i = 0; i < n; i++) {
		all_ff &= b[i] == 0xff;
		all_00 &= b[i] == 0x00;
	}
	if (ff)
		*ff = all_ff;
	return all_ff || all_00;
}
