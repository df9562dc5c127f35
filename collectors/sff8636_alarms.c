/*
 * SFF-8636 verdict: the alarm and warning conditions of a decoded module,
 * counted and summarised on one line.
 *
 * Two sources, because each can miss what the other sees: the module's
 * flags are latched (they stay up after a short excursion, until read),
 * while comparing the live monitors with the page 03h thresholds catches
 * a condition the firmware's mirror read before the module flagged it, or
 * a module that never flags at all.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apenet/sff8636.h"

struct sumbuf {
	char *buf;
	size_t size, used; /* used may exceed size: the summary was cut short */
	int count;
};

static void __attribute__((format(printf, 2, 3))) sb_add(struct sumbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sb->count++ && sb->buf && sb->used < sb->size)
		sb->used += (size_t)snprintf(sb->buf + sb->used, sb->size - sb->used, "; ");
	if (!sb->buf || sb->used >= sb->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(sb->buf + sb->used, sb->size - sb->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		sb->used += (size_t)n;
}

/* How one quantity is named and printed. */
struct quantity {
	const char *name; /* "temperature", "RX power", ... */
	const char *fmt;  /* value format with its unit, e.g. "%.1f C" */
};

static const struct quantity q_temp = { "temperature", "%.1f C" };
static const struct quantity q_vcc = { "Vcc", "%.3f V" };
static const struct quantity q_rx = { "RX power", "%.3g mW" };
static const struct quantity q_bias = { "TX bias", "%.2f mA" };
static const struct quantity q_tx = { "TX power", "%.3g mW" };

static void fmt_value(char *dst, size_t size, const struct quantity *q, double v)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(dst, size, q->fmt, v);
#pragma GCC diagnostic pop
}

/*
 * One side (high or low) of one quantity: the alarm if it is flagged or
 * crossed, else the warning if that is.  have_live says whether v and th
 * can be compared (monitor implemented, thresholds programmed).
 */
static void check_side(struct sumbuf *sb, const struct quantity *q, int lane, uint8_t flags,
		       int have_live, double v, const struct apenet_sff8636_thresh *th, int high)
{
	static const char *const level[2] = { "alarm", "warning" };
	double limit[2];
	uint8_t bit[2];
	char lane_txt[24] = "", vs[32], ls[32];

	if (high) {
		limit[0] = th->high_alarm;
		limit[1] = th->high_warn;
		bit[0] = APENET_SFF8636_HIGH_ALARM;
		bit[1] = APENET_SFF8636_HIGH_WARN;
	} else {
		limit[0] = th->low_alarm;
		limit[1] = th->low_warn;
		bit[0] = APENET_SFF8636_LOW_ALARM;
		bit[1] = APENET_SFF8636_LOW_WARN;
	}
	if (lane)
		snprintf(lane_txt, sizeof(lane_txt), "lane %d ", lane);

	for (int i = 0; i < 2; i++) {
		int crossed = have_live && (high ? v > limit[i] : v < limit[i]);

		if (!crossed && !(flags & bit[i]))
			continue;
		fmt_value(vs, sizeof(vs), q, v);
		fmt_value(ls, sizeof(ls), q, limit[i]);
		if (crossed)
			sb_add(sb, "%s%s %s %s (%s %c %s)", lane_txt, q->name, high ? "high" : "low",
			       level[i], vs, high ? '>' : '<', ls);
		else if (have_live)
			sb_add(sb, "%s%s %s %s (flag latched; now %s, threshold %s)", lane_txt,
			       q->name, high ? "high" : "low", level[i], vs, ls);
		else
			sb_add(sb, "%s%s %s %s (flag set)", lane_txt, q->name,
			       high ? "high" : "low", level[i]);
		return; /* the warning on a side whose alarm is up adds nothing */
	}
}

/* Thresholds all equal (typically all zero) were never programmed. */
static int thresh_usable(const struct apenet_sff8636 *m, const struct apenet_sff8636_thresh *t)
{
	return m->thresh_present &&
	       !(t->high_alarm == t->low_alarm && t->high_warn == t->low_warn &&
		 t->high_alarm == t->high_warn);
}

static void check(struct sumbuf *sb, const struct apenet_sff8636 *m, const struct quantity *q,
		  int lane, uint8_t flags, int monitored, double v,
		  const struct apenet_sff8636_thresh *th)
{
	int live = m->dom_present && monitored && thresh_usable(m, th);

	check_side(sb, q, lane, flags, live, v, th, 1);
	check_side(sb, q, lane, flags, live, v, th, 0);
}

static void lane_mask(struct sumbuf *sb, uint8_t mask, const char *what)
{
	for (int i = 0; i < APENET_SFF8636_LANES; i++)
		if (mask & (1u << i))
			sb_add(sb, "lane %d %s", i + 1, what);
}

int apenet_sff8636_alarms(const struct apenet_sff8636 *m, char *buf, size_t n)
{
	struct sumbuf sb = { .buf = n ? buf : NULL, .size = n };
	const int tx_ok = m->tx_power_supported;

	if (sb.buf)
		sb.buf[0] = '\0';
	check(&sb, m, &q_temp, 0, m->temp_flags, m->temp_monitored, m->temp_c,
	      &m->th_temp);
	check(&sb, m, &q_vcc, 0, m->vcc_flags, m->vcc_monitored, m->vcc_v, &m->th_vcc);
	lane_mask(&sb, m->rx_los, "RX LOS");
	lane_mask(&sb, m->tx_los, "TX LOS");
	lane_mask(&sb, m->tx_fault, "TX fault");
	lane_mask(&sb, m->rx_lol, "RX CDR loss of lock");
	lane_mask(&sb, m->tx_lol, "TX CDR loss of lock");
	for (int i = 0; i < APENET_SFF8636_LANES; i++)
		check(&sb, m, &q_rx, i + 1, m->rx_power_flags[i], 1, m->rx_power_mw[i],
		      &m->th_rx_power);
	for (int i = 0; i < APENET_SFF8636_LANES; i++)
		check(&sb, m, &q_bias, i + 1, m->tx_bias_flags[i], 1, m->tx_bias_ma[i],
		      &m->th_tx_bias);
	for (int i = 0; i < APENET_SFF8636_LANES; i++)
		check(&sb, m, &q_tx, i + 1, m->tx_power_flags[i], tx_ok, m->tx_power_mw[i],
		      &m->th_tx_power);
	return sb.count;
}
