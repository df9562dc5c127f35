/*
 * apenet-sim: the encodings SFF-8636 and SFF-8472 share (big-endian 16-bit
 * fields, the monitors' units, space-padded ASCII, check codes, the four
 * alarm/warning flags), for the two image builders eeprom.c and
 * eeprom_sfp.c.  Private to sim/.
 */
#ifndef APENET_SIM_EEPROM_ENC_H
#define APENET_SIM_EEPROM_ENC_H

#include <stdint.h>

static inline uint16_t sim_ee_unsigned(double v, double per_unit)
{
	double x = v * per_unit;

	if (!(x > 0.0)) /* also catches NaN */
		return 0;
	if (x >= 65535.0)
		return 65535;
	return (uint16_t)(x + 0.5);
}

/* Signed 1/256 C, two's complement in 16 bits. */
static inline uint16_t sim_ee_temp(double c)
{
	double x = c * 256.0;
	long r;

	if (x != x)
		return 0;
	if (x >= 32767.0)
		r = 32767;
	else if (x <= -32768.0)
		r = -32768;
	else
		r = x < 0 ? (long)(x - 0.5) : (long)(x + 0.5);
	return (uint16_t)(r & 0xffff);
}

static inline uint16_t sim_ee_vcc(double v) { return sim_ee_unsigned(v, 10000.0); }    /* 100 uV */
static inline uint16_t sim_ee_power(double mw) { return sim_ee_unsigned(mw, 10000.0); } /* 0.1 uW */
static inline uint16_t sim_ee_bias(double ma) { return sim_ee_unsigned(ma, 500.0); }    /* 2 uA */

static inline void sim_ee_put16(uint8_t *out, unsigned off, uint16_t v)
{
	out[off] = (uint8_t)(v >> 8);
	out[off + 1] = (uint8_t)(v & 0xff);
}

static inline unsigned sim_ee_get16(const uint8_t *in, unsigned off)
{
	return (unsigned)in[off] << 8 | in[off + 1];
}

static inline long sim_ee_get_temp(const uint8_t *in, unsigned off)
{
	unsigned v = sim_ee_get16(in, off);

	return v >= 0x8000u ? (long)v - 0x10000 : (long)v;
}

/* ASCII field, space-padded (the specs never NUL-terminate). */
static inline void sim_ee_put_str(uint8_t *out, unsigned off, unsigned len, const char *s)
{
	unsigned i = 0;

	for (; i < len && s[i]; i++)
		out[off + i] = (uint8_t)s[i];
	for (; i < len; i++)
		out[off + i] = ' ';
}

static inline uint8_t sim_ee_sum8(const uint8_t *in, unsigned from, unsigned to)
{
	unsigned s = 0;

	for (unsigned i = from; i <= to; i++)
		s += in[i];
	return (uint8_t)(s & 0xff);
}

/*
 * The four flag bits of one monitored value, as a nibble ordered like the
 * specs' bytes: high alarm, low alarm, high warning, low warning.  Comparing
 * the encoded values makes the flags agree exactly with what a decoder sees.
 */
static inline unsigned sim_ee_aw(long v, long ha, long la, long hw, long lw)
{
	return (unsigned)(v > ha) << 3 | (unsigned)(v < la) << 2 | (unsigned)(v > hw) << 1 | (unsigned)(v < lw);
}

#endif
