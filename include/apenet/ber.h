/*
 * BER's tag and definite length, read straight from the bytes: one reader
 * for the fast paths that parse SNMP without net-snmp (snmp/v2c_fast.c,
 * snmp/v2c_ack.c, snmp/usm.c).  Tags below 31 only (all of SNMP's);
 * definite lengths of at most 3 octets (a UDP datagram's); nothing past end.
 */
#ifndef APENET_BER_H
#define APENET_BER_H

#include <stddef.h>
#include <stdint.h>

/* The tag at *p into *tag and its value's length into *len, *p moved to
 * the value; 0, or -1 (then *p is unchanged). */
int apenet_ber_tl(const uint8_t **p, const uint8_t *end, uint8_t *tag, size_t *len);
/* The same when the tag is want; -1 for any other. */
int apenet_ber_want(const uint8_t **p, const uint8_t *end, uint8_t want, size_t *len);

#endif
