/* Escaping of outside strings for each kind of output (include/apenet/esc.h). */
#include <string.h>

#include "apenet/esc.h"

/* The length (1..4) of the well-formed UTF-8 character at p and its code
 * point, or 0 when p does not start one (a stray continuation byte, a
 * truncated sequence, an overlong form, a surrogate, past U+10FFFF). */
static size_t utf8_char(const unsigned char *p, unsigned *cp)
{
	unsigned c = p[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t n;
	unsigned lo = 0x80, hi = 0xbf; /* the second byte's range (RFC 3629's table) */
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;
		hi = c == 0xed ? 0x9f : 0xbf;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;
		c &= 0x07;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		unsigned b = p[i]; /* a NUL ends the string: it fails the range */
		if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf))
			return 0;
		c = c << 6 | (b & 0x3f);
	}
	*cp = c;
	return n;
}

/* C0, DEL and C1. */
static int is_control(unsigned cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

/* The next unit of s's text form: a character kept (*keep = its length),
 * or one byte to show as \xNN (*keep = 0).  Returns the bytes of s it
 * covers (a C1 character's two bytes are two units). */
static size_t text_unit(const unsigned char *p, size_t *keep)
{
	unsigned cp;
	size_t n = utf8_char(p, &cp);
	*keep = n && !is_control(cp) ? n : 0;
	return *keep ? n : 1;
}

static const char hexd[] = "0123456789abcdef";

static void put_hex_byte(FILE *f, unsigned char b)
{
	fputc('\\', f);
	fputc('x', f);
	fputc(hexd[b >> 4], f);
	fputc(hexd[b & 15], f);
}

size_t apenet_esc_text(char *dst, size_t n, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t len = 0, at = 0; /* the whole form's length; what went into dst */
	int full = n == 0;
	while (*p) {
		size_t keep, step = text_unit(p, &keep);
		size_t w = keep ? keep : 4;
		if (!full && at + w < n) {
			if (keep) {
				memcpy(dst + at, p, keep);
			} else {
				dst[at] = '\\';
				dst[at + 1] = 'x';
				dst[at + 2] = hexd[*p >> 4];
				dst[at + 3] = hexd[*p & 15];
			}
			at += w;
		} else {
			full = 1; /* nothing after a unit that did not fit */
		}
		len += w;
		p += step;
	}
	if (n)
		dst[at] = '\0';
	return len;
}

void apenet_esc_text_line(FILE *f, const char *prefix, const char *s)
{
	fprintf(f, "%s: ", prefix);
	apenet_esc_text_put(f, s);
	fputc('\n', f);
}

void apenet_esc_text_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t keep, step = text_unit(p, &keep);
		if (keep)
			fwrite(p, 1, keep, f);
		else
			put_hex_byte(f, *p);
		p += step;
	}
}

size_t apenet_esc_text_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t w = 0;
	while (*p) {
		size_t keep, step = text_unit(p, &keep);
		w += keep ? 1 : 4;
		p += step;
	}
	return w;
}

int apenet_esc_text_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t keep, step = text_unit(p, &keep);
		if (!keep)
			return 0;
		p += step;
	}
	return 1;
}

void apenet_esc_csv_put(FILE *f, const char *s, int is_string)
{
	s = s ? s : "";
	/* OWASP's list; a tab or CR is escaped below, but a spreadsheet that
	 * trims the cell would still see what follows.  The sign alone ("-",
	 * a placeholder) is no formula. */
	int formula = is_string && *s && s[1] && strchr("=+-@\t\r", *s);
	int quote = formula || strpbrk(s, ",\""); /* no line break is left to quote */
	if (!quote) {
		apenet_esc_text_put(f, s);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t keep, step = text_unit(p, &keep);
		if (keep == 1 && *p == '"')
			fputs("\"\"", f);
		else if (keep)
			fwrite(p, 1, keep, f);
		else
			put_hex_byte(f, *p);
		p += step;
	}
	fputc('"', f);
}

/* The bytes of the character at p that JSON keeps as they are, 0 when it
 * is escaped (or not UTF-8). */
static size_t json_kept(const unsigned char *p)
{
	if (*p >= 0x20 && *p < 0x7f)
		return *p != '"' && *p != '\\';
	unsigned cp;
	size_t n = utf8_char(p, &cp);
	return n > 1 && !is_control(cp) ? n : 0;
}

void apenet_esc_json_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
	fputc('"', f);
	/* what is kept goes out in runs, one fwrite each: the black box writes
	 * millions of register names */
	while (*p) {
		size_t k = json_kept(p);
		if (k) {
			p += k;
			continue;
		}
		fwrite(run, 1, (size_t)(p - run), f);
		unsigned cp;
		size_t n = utf8_char(p, &cp);
		if (!n) {
			/* not UTF-8: the byte's value, so the document stays valid */
			fprintf(f, "\\u%04x", *p);
			run = ++p;
			continue;
		}
		switch (cp) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default: fprintf(f, "\\u%04x", cp); /* C0, DEL, C1 */
		}
		run = p += n;
	}
	fwrite(run, 1, (size_t)(p - run), f);
	fputc('"', f);
}

int apenet_esc_json_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t k = json_kept(p);
		if (!k)
			return 0;
		p += k;
	}
	return 1;
}

void apenet_esc_html_put(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t keep, step = text_unit(p, &keep);
		if (!keep) {
			put_hex_byte(f, *p);
		} else if (keep > 1) {
			fwrite(p, 1, keep, f);
		} else {
			switch (*p) {
			case '&': fputs("&amp;", f); break;
			case '<': fputs("&lt;", f); break;
			case '>': fputs("&gt;", f); break;
			case '"': fputs("&quot;", f); break;
			case '\'': fputs("&#39;", f); break;
			default: fputc(*p, f);
			}
		}
		p += step;
	}
}
