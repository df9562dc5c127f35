#include <stddef.h>

#include "apenet/ldm.h"
#include "apenet/regs.h"

/* Field positions come from the register map's LDM fields. */
static const uint8_t ldm_lsb[APENET_LDM_NFIELDS] = {
	APENET_F_LDM_SERVICE_LSB, APENET_F_LDM_MEMORY_LSB, APENET_F_LDM_PERIPHERAL_LSB, APENET_F_LDM_CORE_LSB,
	APENET_F_LDM_CURRENT_LSB, APENET_F_LDM_VOLTAGE_LSB, APENET_F_LDM_TEMPERATURE_LSB,
	APENET_F_LDM_ZMINUS_LSB, APENET_F_LDM_ZPLUS_LSB, APENET_F_LDM_YMINUS_LSB, APENET_F_LDM_YPLUS_LSB,
	APENET_F_LDM_XMINUS_LSB, APENET_F_LDM_XPLUS_LSB,
};

static const char *const ldm_names[APENET_LDM_NFIELDS] = {
	"service network", "memory", "peripheral", "DNP core", "current", "voltage", "temperature",
	"Z- link", "Z+ link", "Y- link", "Y+ link", "X- link", "X+ link",
};

static const char *const ldm_keys[APENET_LDM_NFIELDS] = {
	"service", "memory", "peripheral", "core", "current", "voltage", "temperature",
	"z_minus", "z_plus", "y_minus", "y_plus", "x_minus", "x_plus",
};

int apenet_ldm_decode(uint32_t w, struct apenet_ldm *m)
{
	m->word = w;
	m->valid = (int)APENET_GET(LDM, VALID, w);
	m->host_expired = (int)APENET_GET(LDM, HOST_EXPIRED, w);
	m->spare = (w >> 27) & 0xf;
	m->ninvalid = 0;
	m->worst = APENET_LDM_NORMAL;
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++) {
		unsigned v = (w >> ldm_lsb[f]) & 3u;
		m->field[f] = (uint8_t)v;
		if (v == APENET_LDM_INVALID)
			m->ninvalid++;
		if (v > m->worst)
			m->worst = v;
	}
	return m->valid && m->ninvalid == 0 ? 0 : -1;
}

const char *apenet_ldm_field_name(unsigned f)
{
	return f < APENET_LDM_NFIELDS ? ldm_names[f] : "?";
}

const char *apenet_ldm_field_key(unsigned f)
{
	return f < APENET_LDM_NFIELDS ? ldm_keys[f] : "?";
}

unsigned apenet_ldm_field_lsb(unsigned f)
{
	return f < APENET_LDM_NFIELDS ? ldm_lsb[f] : 0;
}

const char *apenet_ldm_status_name(unsigned v)
{
	static const char *const names[] = { "normal", "sick", "broken", "invalid" };
	return v < 4 ? names[v] : "?";
}

int apenet_ldm_field_of_dir(unsigned dir, int second)
{
	switch (dir) {
	case APENET_DIR_XP: return second ? -1 : APENET_LDM_F_XPLUS;
	case APENET_DIR_XM: return second ? -1 : APENET_LDM_F_XMINUS;
	case APENET_DIR_YP: return second ? -1 : APENET_LDM_F_YPLUS;
	case APENET_DIR_YM: return second ? -1 : APENET_LDM_F_YMINUS;
	case APENET_DIR_ZP: return second ? -1 : APENET_LDM_F_ZPLUS;
	case APENET_DIR_ZM: return second ? -1 : APENET_LDM_F_ZMINUS;
	/* one channel per dimension reports in both fields of it */
	case APENET_DIR_X: return second ? APENET_LDM_F_XMINUS : APENET_LDM_F_XPLUS;
	case APENET_DIR_Y: return second ? APENET_LDM_F_YMINUS : APENET_LDM_F_YPLUS;
	case APENET_DIR_Z: return second ? APENET_LDM_F_ZMINUS : APENET_LDM_F_ZPLUS;
	default: return -1;
	}
}
