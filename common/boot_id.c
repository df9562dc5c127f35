/*
 * The boot id a node's reports carry, "x,y,z#N": the reporting node and its
 * run (the agent's persisted boot counter).  Written by the agent, checked
 * by the supervisor (snmp/speaker.c), kept by the health database (db/):
 * one parser, in the lowest layer they all use.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "apenet/boot_id.h"

int apenet_report_boot_parse(const char *boot, unsigned xyz[3], uint64_t *gen)
{
	unsigned long long n;
	int end = -1;
	/* digits, commas and one '#' only: sscanf alone would take signs and blanks */
	if (boot[strspn(boot, "0123456789,#")] != '\0')
		return -1;
	if (sscanf(boot, "%u,%u,%u#%llu%n", &xyz[0], &xyz[1], &xyz[2], &n, &end) != 4 || end < 0 || boot[end])
		return -1;
	*gen = n;
	return 0;
}
