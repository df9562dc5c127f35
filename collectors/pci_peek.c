/*
 * The card of an emulated node's config-space dump without libpci.
 *
 * libpci's dump method parses the whole file at pci_init, a sscanf a byte:
 * about 0.2 ms for the 4 KiB of one function, which is nearly all of what
 * `apenet cabling` spends on a node of a 32,768-node torus.  Opening a card
 * needs only its address and its first four bytes (vendor and device ID).
 *
 * The peek takes a dump only in the layout lspci -xxxx -D and apenet-sim
 * write for one function: the address line, the 256 lines "00:" .. "ff0:" of
 * 16 bytes each, an optional blank line, nothing else.  Every line is
 * checked, so libpci would read the same file as exactly this one function
 * with these 4096 bytes: no error, no second card.  Anything else (another
 * layout, more functions, a stray character, a card not ours) is left to
 * libpci, which reads it and says what is wrong as it always did.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "apenet/dev.h"

enum {
	PEEK_LINES = 256,               /* 4096 bytes, 16 a line */
	PEEK_HEAD_MAX = 200,            /* the address line (libpci's buffer is 256) */
	PEEK_DATA = 16 * 52 + 240 * 53, /* "xx:" + 16 " xx" + "\n", then "xxx:" ... */
};

static const char hexdig[] = "0123456789abcdef";

static const unsigned char hexok[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
};

static unsigned hexval(unsigned char ch)
{
	return ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
}

/* "dddd:bb:dd.f " in lower case, as apenet_pci_bdf prints what libpci
 * parses from it: the address is then these twelve characters. */
static int bdf_ok(const char *l)
{
	static const char fmt[] = "####:##:##.f ";
	for (unsigned i = 0; fmt[i]; i++) {
		char ch = l[i];
		if (fmt[i] == '#' ? !((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))
		    : fmt[i] == 'f' ? !(ch >= '0' && ch <= '7') : ch != fmt[i])
			return 0;
	}
	return 1;
}

/* The line for offset off at p: its length, or 0 when it is not in lspci's
 * layout ("%02x:" or "%03x:", 16 times " %02x", a newline). */
static size_t data_line(const unsigned char *p, unsigned off)
{
	size_t n = 0;
	int bad = 0;
	if (off >= 0x100)
		bad |= p[n++] != hexdig[off >> 8];
	bad |= p[n] != hexdig[(off >> 4) & 15] || p[n + 1] != hexdig[off & 15] || p[n + 2] != ':';
	n += 3;
	for (unsigned i = 0; i < 16; i++, n += 3)
		bad |= (p[n] != ' ') | !(hexok[p[n + 1]] & hexok[p[n + 2]]);
	return bad || p[n] != '\n' ? 0 : n + 1;
}

int apenet_pci_peek(const struct apenet_site *s, struct apenet_card *out)
{
	unsigned char buf[PEEK_HEAD_MAX + PEEK_DATA + 2];
	if (!s->dump[0])
		return 1; /* the real bus: libpci's sysfs method reads only what is asked */
	int fd = open(s->dump, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	/* a read of a regular file stops short only at its end: a dump that
	 * fills the buffer is too big to be one function's */
	ssize_t len = read(fd, buf, sizeof(buf));
	close(fd);
	if (len <= PEEK_DATA || (size_t)len >= sizeof(buf))
		return 1;
	const unsigned char *nl = memchr(buf, '\n', (size_t)len);
	/* no NUL in it: libpci's fgets line would end there, unterminated */
	if (!nl || nl - buf > PEEK_HEAD_MAX - 1 || !bdf_ok((const char *)buf) || memchr(buf, 0, (size_t)(nl - buf)))
		return 1;
	const unsigned char *p = nl + 1, *end = buf + len;
	if (end - p != PEEK_DATA && !(end - p == PEEK_DATA + 1 && end[-1] == '\n'))
		return 1;
	const unsigned char *head = p + 3; /* " 72 11 01 0a": vendor and device ID, little-endian */
	for (unsigned line = 0; line < PEEK_LINES; line++) {
		size_t n = data_line(p, line * 16);
		if (!n)
			return 1;
		p += n;
	}

	struct apenet_card c;
	memset(&c, 0, sizeof(c));
	memcpy(c.bdf, buf, 12);
	uint8_t b[4];
	for (unsigned i = 0; i < 4; i++)
		b[i] = (uint8_t)(hexval(head[3 * i + 1]) << 4 | hexval(head[3 * i + 2]));
	c.vendor = (uint16_t)(b[0] | b[1] << 8);
	c.device = (uint16_t)(b[2] | b[3] << 8);
	/* what apenet_pci_scan keeps, and apenet_pci_pick of the only one */
	c.gone = c.vendor == 0xffff && c.device == 0xffff;
	c.prof = c.gone ? NULL : apenet_profile_by_device(c.device);
	if (!c.gone && (c.vendor != APENET_PCI_VENDOR || !c.prof))
		return 1; /* libpci says "no APEnet card found" */
	*out = c;
	return 0;
}
