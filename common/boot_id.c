/*
 * The boot id a node's reports carry, "x,y,z#N": the reporting node and its
 * run (the agent's persisted boot counter).  Written by the agent, checked
 * by the supervisor (snmp/speaker.c), kept by the health database (db/):
 * one parser, in the lowest layer they all use.
 *
 * Read by hand: the supervisor parses every report's boot id twice (the
 * speaker check, the database), 65,000 times a second at 32,768 nodes, and
 * sscanf was about 5% of its user time.  It reads what
 * sscanf("%u,%u,%u#%llu%n") read of digits: a number too large for 64 bits
 * is the largest, one too large for 32 bits keeps its low 32.
 */
#include <stdint.h>

#include "apenet/boot_id.h"

/* Decimal digits at *p (one or more) into v. */
static int digits(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;
	int over = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			over = 1;
		else
			x = x * 10 + d;
	}
	*v = over ? UINT64_MAX : x;
	*p = s;
	return 0;
}

int apenet_report_boot_parse(const char *boot, unsigned xyz[3], uint64_t *gen)
{
	const char *p = boot;
	uint64_t v[4];
	static const char after[4] = { ',', ',', '#', '\0' };
	for (int i = 0; i < 4; i++) {
		if (digits(&p, &v[i]) || *p != after[i])
			return -1;
		if (i < 3)
			p++;
	}
	for (int i = 0; i < 3; i++)
		xyz[i] = (unsigned)v[i];
	*gen = v[3];
	return 0;
}
