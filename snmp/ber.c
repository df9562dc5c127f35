/* BER's tag and length (include/apenet/ber.h). */
#include "apenet/ber.h"

int apenet_ber_tl(const uint8_t **p, const uint8_t *end, uint8_t *tag, size_t *len)
{
	const uint8_t *q = *p;
	if (end - q < 2 || (q[0] & 0x1f) == 0x1f)
		return -1; /* cut short, or a high tag number: not SNMP's */
	*tag = q[0];
	size_t n = q[1];
	q += 2;
	if (n & 0x80) {
		unsigned k = n & 0x7f;
		if (k == 0 || k > 3 || (size_t)(end - q) < k)
			return -1; /* indefinite, or longer than a datagram */
		n = 0;
		for (unsigned i = 0; i < k; i++)
			n = n << 8 | *q++;
	}
	if ((size_t)(end - q) < n)
		return -1;
	*p = q;
	*len = n;
	return 0;
}

int apenet_ber_want(const uint8_t **p, const uint8_t *end, uint8_t want, size_t *len)
{
	uint8_t tag;
	const uint8_t *q = *p;
	if (apenet_ber_tl(&q, end, &tag, len) || tag != want)
		return -1;
	*p = q;
	return 0;
}
