/*
 * Field helpers both module decoders share (sff8636.c, sff8472.c): the two
 * specifications encode strings, dates, check codes and 16-bit readings the
 * same way.  Private to collectors/.
 */
#ifndef APENET_SFF_UTIL_H
#define APENET_SFF_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Big-endian 16 bits at off, as on the module's I2C interface. */
unsigned apenet_sff_be16(const uint8_t *b, unsigned off);
/* A signed 16-bit reading in 1/256 C. */
double apenet_sff_temp(unsigned raw);
/* Low 8 bits of the sum of bytes from..to (a check code). */
uint8_t apenet_sff_sum8(const uint8_t *b, unsigned from, unsigned to);
/*
 * An ASCII field of n bytes into dst (n + 1 bytes): trailing spaces and NULs
 * are padding (the specs say spaces, some vendors use NULs); anything
 * unprintable left inside becomes '?', so the result is safe to print and
 * to put in JSON.
 */
void apenet_sff_ascii(char *dst, const uint8_t *src, unsigned n);
/* A date code YYMMDDLL: the raw code, "20YY-MM-DD" when it is a date (else ""), the lot. */
void apenet_sff_date(const uint8_t *d, char code[9], char date[11], char lot[3]);
/* Appends ", name" (or name when dst is empty). */
void apenet_sff_append(char *dst, size_t size, const char *name);
/* 1 when all n bytes are 0x00 or all are 0xff (*ff says which). */
int apenet_sff_blank(const uint8_t *b, size_t n, int *ff);

#endif
