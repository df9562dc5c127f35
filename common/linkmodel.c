#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "apenet/err.h"
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

int apenet_linkmodel_parse_depth(const char *s, double *bytes, char *err, size_t errlen)
{
	static const struct {
		const char *suffix;
		double mult;
	} units[] = { { "b", 1 },	  { "k", 1024 },    { "kb", 1024 },	  { "kib", 1024 },
		      { "m", 1048576 }, { "mb", 1048576 }, { "mib", 1048576 } };
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v <= 0)
		return apenet_errbuf(err, errlen, "'%s' is not a positive size (128-bit entries, or bytes with a suffix: "
					      "512, 8KiB, 16384B)", s);
	if (!*end) {
		if (v != floor(v))
			return apenet_errbuf(err, errlen, "'%s' is not a whole number of 128-bit entries", s);
		*bytes = v * APENET_WORD_BYTES;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcasecmp(end, units[i].suffix)) {
			double b = v * units[i].mult;
			if (b != floor(b) || fmod(b, APENET_WORD_BYTES) != 0)
				return apenet_errbuf(err, errlen, "'%s' is %g bytes: not a whole number of 128-bit (%u-byte) entries",
						     s, b, APENET_WORD_BYTES);
			*bytes = b;
			return 0;
		}
	return apenet_errbuf(err, errlen, "'%s': unknown unit '%s' (a bare number counts 128-bit entries; bytes take B, K, KiB, M or MiB)",
			     s, end);
}
