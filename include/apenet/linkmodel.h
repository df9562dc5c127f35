/*
 * The link efficiency model of SPEC §2 (APEnet+ Torus Link): what payload
 * bandwidth a link should reach.  A codec: no I/O.
 *   E1 = S_MAX / (P + S_MAX)               protocol overhead
 *   E2 = C / (C + 2)                       credit words
 *   E3 = X / (X + W), X = floor(T_RED / S_MAX) * S_MAX (128-bit cycles),
 *        T_RED = FIFO depth - S_MAX        waiting on the red threshold
 *   E_T = E1 * E2 * E3
 *   max payload = lanes * lane rate * code rate / 8 * E_T
 */
#ifndef APENET_LINKMODEL_H
#define APENET_LINKMODEL_H

#include <stddef.h>

#define APENET_S_MAX_BYTES 4096u /* largest payload: 256 cycles of 128 bit */
#define APENET_P_BYTES 64u       /* MAGIC + START + HEADER + FOOTER */
#define APENET_CREDIT_C 35u      /* cycles between credits */
#define APENET_WAIT_W 145u       /* cycles a transmitter waits at T_RED */
#define APENET_WORD_BYTES 16u    /* one 128-bit cycle */

struct apenet_linkmodel {
	/* inputs */
	double fifo_bytes;   /* RX FIFO depth */
	double lane_mbps;    /* line rate per lane */
	unsigned lanes;
	double code_rate;    /* 0.8 for 8b/10b, 64/66 for 64b/66b */
	unsigned c, w;       /* credit period and wait, cycles (0: the defaults above) */
	/* outputs */
	double t_red_cycles, x_cycles;
	double e1, e2, e3, et;
	double raw_MBps;     /* lanes * rate * code rate / 8, in 10^6 bytes/s */
	double max_MBps;     /* the maximum payload bandwidth */
};

/* 0, or -1 when the inputs make no link (FIFO not larger than S_MAX, no lanes). */
int apenet_linkmodel_eval(struct apenet_linkmodel *m);

/* A FIFO depth as an operator writes it, into bytes.  A bare number counts
 * 128-bit entries, the unit of the TWEPP paper ("512" = 512 entries = 8 KiB);
 * a suffix makes it bytes: B, K/KB/KiB, M/MB/MiB (powers of 1024, any case):
 * "16384B", "16K", "8KiB".  The depth must be a whole number of entries.
 * 0, or -1 with the reason in err. */
int apenet_linkmodel_parse_depth(const char *s, double *bytes, char *err, size_t errlen);

#endif
