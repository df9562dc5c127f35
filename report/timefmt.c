/*
 * The report's times: relative to the first fault (absolute ones are
 * apenet_out_iso_ms's).  HTML text is escaped by apenet_esc_html_put.
 */
#include <stdio.h>
#include <stdlib.h>

#include "postmortem_int.h"

char *apenet_postmortem_rel(int64_t d, char *buf, size_t n)
{
	char sign = d < 0 ? '-' : '+';
	uint64_t a = (uint64_t)(d < 0 ? -d : d);
	if (a < 60000)
		snprintf(buf, n, "%c%llu.%03llu s", sign, (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
	else if (a < 3600000)
		snprintf(buf, n, "%c%llu min %02llu.%03llu s", sign, (unsigned long long)(a / 60000),
			 (unsigned long long)(a / 1000 % 60), (unsigned long long)(a % 1000));
	else
		snprintf(buf, n, "%c%llu h %02llu min %02llu s", sign, (unsigned long long)(a / 3600000),
			 (unsigned long long)(a / 60000 % 60), (unsigned long long)(a / 1000 % 60));
	return buf;
}

const char *apenet_postmortem_since_first(const struct apenet_postmortem *pm, int64_t ms, char *buf, size_t n)
{
	if (!pm->has_first || ms <= 0) {
		snprintf(buf, n, "-");
		return buf;
	}
	return apenet_postmortem_rel(ms - pm->first.time_ms, buf, n);
}
