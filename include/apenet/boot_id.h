/* The boot id a node's reports carry (common/boot_id.c). */
#ifndef APENET_BOOT_ID_H
#define APENET_BOOT_ID_H

#include <stdint.h>

/* A boot id "x,y,z#N" (decimal digits, commas and one '#' only): the
 * reporting node and its run.  0, or -1 when boot is not one. */
int apenet_report_boot_parse(const char *boot, unsigned xyz[3], uint64_t *gen);

#endif
