/* A board view: two samples an interval apart (include/apenet/view.h). */
#include <stdio.h>
#include <string.h>

#include "apenet/view.h"

double apenet_view_dt(const struct apenet_view *v)
{
	if (v->s1.g.TIMESTAMP <= v->s0.g.TIMESTAMP)
		return 0;
	return apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - v->s0.g.TIMESTAMP);
}

uint64_t apenet_view_delta(uint64_t before, uint64_t after)
{
	return after >= before ? after - before : 0;
}

