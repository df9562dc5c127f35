#include <math.h>

#include "apenet/linkmodel.h"

int apenet_linkmodel_eval(struct apenet_linkmodel *m)
{
	const double smax_cycles = APENET_S_MAX_BYTES / (double)APENET_WORD_BYTES;
	unsigned c = m->c ? m->c : APENET_CREDIT_C, w = m->w ? m->w : APENET_WAIT_W;
	if (!(m->fifo_bytes > APENET_S_MAX_BYTES) || m->lanes == 0 || !(m->lane_mbps > 0) ||
	    !(m->code_rate > 0 && m->code_rate <= 1))
		return -1;
	m->t_red_cycles = (m->fifo_bytes - APENET_S_MAX_BYTES) / APENET_WORD_BYTES;
	m->x_cycles = floor(m->t_red_cycles / smax_cycles) * smax_cycles;
	m->e1 = (double)APENET_S_MAX_BYTES / (APENET_P_BYTES + APENET_S_MAX_BYTES);
	m->e2 = (double)c / (c + 2);
	m->e3 = m->x_cycles / (m->x_cycles + w);
	m->et = m->e1 * m->e2 * m->e3;
	m->raw_MBps = m->lanes * m->lane_mbps * m->code_rate / 8.0;
	m->max_MBps = m->raw_MBps * m->et;
	return 0;
}
