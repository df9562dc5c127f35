/*
 * The health part of a decoded module (include/apenet/module.h), from
 * either decoder: which monitors the module implements, their readings,
 * thresholds and flags, its status flags and check codes.  What is not
 * implemented is marked absent here, once, so neither the judge nor the
 * output has to know the two specifications' rules about it.
 */
#include <string.h>

#include "apenet/module.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"

static const struct apenet_module_mon_info mon_info[APENET_MON_COUNT] = {
	[APENET_MON_TEMP] = { "temperature", "C", "temperature_C", 2, 0, 0 },
	[APENET_MON_VCC] = { "Vcc", "V", "vcc_V", 4, 0, 0 },
	[APENET_MON_RX_POWER] = { "RX power", "mW", "rx_power_mW", 4, 1, 1 },
	[APENET_MON_TX_BIAS] = { "TX bias", "mA", "tx_bias_mA", 3, 1, 1 },
	[APENET_MON_TX_POWER] = { "TX power", "mW", "tx_power_mW", 4, 1, 1 },
};

const struct apenet_module_mon_info *apenet_module_mon_info(enum apenet_module_mon_id id)
{
	return (unsigned)id < APENET_MON_COUNT ? &mon_info[id] : &mon_info[APENET_MON_TEMP];
}

int apenet_module_thresh_unset(const struct apenet_module_thresh *t)
{
	return t->high_alarm == t->low_alarm && t->high_warn == t->low_warn && t->high_alarm == t->high_warn;
}

/* One monitor: present or not, its thresholds when read and programmed. */
static void mon_set(struct apenet_module_mon *mon, int present, int thresh_read, double ha, double la, double hw,
		    double lw)
{
	memset(mon, 0, sizeof(*mon));
	mon->present = present;
	if (!present)
		return;
	mon->th = (struct apenet_module_thresh){ ha, la, hw, lw };
	mon->thresh_ok = thresh_read && !apenet_module_thresh_unset(&mon->th);
	if (!mon->thresh_ok)
		memset(&mon->th, 0, sizeof(mon->th));
}

#define TH(t) (t).high_alarm, (t).low_alarm, (t).high_warn, (t).low_warn

void apenet_sff8636_health(const struct apenet_sff8636 *m, struct apenet_module_health *h)
{
	struct apenet_module_mon *mon = h->mon;
	int th = m->thresh_present;

	memset(h, 0, sizeof(*h));
	h->spec = "SFF-8636";
	h->lanes = APENET_SFF8636_LANES;
	h->copper = m->copper;
	h->rx_power_avg = m->rx_power_avg;
	/* A passive cable has no electronics to raise LOS, fault or loss of lock. */
	h->rx_los_ok = h->tx_los_ok = h->tx_fault_ok = h->lol_ok = !m->passive;
	if (!m->passive) {
		h->rx_los = m->rx_los;
		h->tx_los = m->tx_los;
		h->tx_fault = m->tx_fault;
		h->rx_lol = m->rx_lol;
		h->tx_lol = m->tx_lol;
	}

	mon_set(&mon[APENET_MON_TEMP], m->temp_monitored, th, TH(m->th_temp));
	mon_set(&mon[APENET_MON_VCC], m->vcc_monitored, th, TH(m->th_vcc));
	mon_set(&mon[APENET_MON_RX_POWER], m->rx_power_monitored, th, TH(m->th_rx_power));
	mon_set(&mon[APENET_MON_TX_BIAS], m->tx_bias_monitored, th, TH(m->th_tx_bias));
	mon_set(&mon[APENET_MON_TX_POWER], m->tx_power_monitored, th, TH(m->th_tx_power));
	/* The flags of a monitor the module does not implement mean nothing. */
	if (m->temp_monitored) {
		mon[APENET_MON_TEMP].value[0] = m->temp_c;
		mon[APENET_MON_TEMP].flags[0] = m->temp_flags;
		mon[APENET_MON_TEMP].flags_ok = 1;
	}
	if (m->vcc_monitored) {
		mon[APENET_MON_VCC].value[0] = m->vcc_v;
		mon[APENET_MON_VCC].flags[0] = m->vcc_flags;
		mon[APENET_MON_VCC].flags_ok = 1;
	}
	for (unsigned k = 0; k < APENET_SFF8636_LANES; k++) {
		mon[APENET_MON_RX_POWER].value[k] = m->rx_power_mw[k];
		mon[APENET_MON_TX_BIAS].value[k] = m->tx_bias_ma[k];
		mon[APENET_MON_TX_POWER].value[k] = m->tx_power_mw[k];
	}
	for (int i = APENET_MON_RX_POWER; i <= APENET_MON_TX_POWER; i++) {
		const uint8_t *f = i == APENET_MON_RX_POWER ? m->rx_power_flags
				   : i == APENET_MON_TX_BIAS ? m->tx_bias_flags
							     : m->tx_power_flags;
		if (!mon[i].present)
			continue;
		mon[i].flags_ok = 1;
		memcpy(mon[i].flags, f, APENET_SFF8636_LANES);
	}

	h->cc[0] = (struct apenet_module_check){ "base", "CC_BASE", m->cc_base_stored, m->cc_base_computed };
	h->cc[1] = (struct apenet_module_check){ "extended", "CC_EXT", m->cc_ext_stored, m->cc_ext_computed };
	h->ncc = 2;
}

void apenet_sff8472_health(const struct apenet_sff8472 *m, struct apenet_module_health *h)
{
	struct apenet_module_mon *mon = h->mon;
	int a2 = m->a2_present, optical = a2 && !m->copper;
	static const int ids[APENET_MON_COUNT] = { APENET_MON_TEMP, APENET_MON_VCC, APENET_MON_RX_POWER,
						   APENET_MON_TX_BIAS, APENET_MON_TX_POWER };
	const double v[APENET_MON_COUNT] = { m->temp_c, m->vcc_v, m->rx_power_mw, m->tx_bias_ma, m->tx_power_mw };
	const uint8_t fl[APENET_MON_COUNT] = { m->temp_flags, m->vcc_flags, m->rx_power_flags, m->tx_bias_flags,
					       m->tx_power_flags };

	memset(h, 0, sizeof(*h));
	h->spec = "SFF-8472";
	h->lanes = 1;
	h->copper = m->copper;
	h->rx_power_avg = m->rx_power_avg;
	/*
	 * The soft status bits of byte 110 count only when byte 93 says the
	 * module drives them; SFF-8472 has no TX LOS or loss of lock bits.
	 */
	h->rx_los_ok = a2 && m->soft_rx_los;
	h->tx_fault_ok = a2 && m->soft_tx_fault;
	h->rx_los = h->rx_los_ok && m->rx_los_state;
	h->tx_fault = h->tx_fault_ok && m->tx_fault_state;

	/* With diagnostics all five monitors are mandatory; a cable has no optics. */
	mon_set(&mon[APENET_MON_TEMP], a2, a2, TH(m->th_temp));
	mon_set(&mon[APENET_MON_VCC], a2, a2, TH(m->th_vcc));
	mon_set(&mon[APENET_MON_RX_POWER], optical, a2, TH(m->th_rx_power));
	mon_set(&mon[APENET_MON_TX_BIAS], optical, a2, TH(m->th_tx_bias));
	mon_set(&mon[APENET_MON_TX_POWER], optical, a2, TH(m->th_tx_power));
	for (int i = 0; i < APENET_MON_COUNT; i++) {
		struct apenet_module_mon *x = &mon[ids[i]];
		if (!x->present)
			continue;
		x->value[0] = v[i];
		/* Byte 93 bit 7: without it bytes 112-117 are not flags. */
		x->flags_ok = m->flags_implemented;
		x->flags[0] = m->flags_implemented ? fl[i] : 0;
	}

	h->cc[0] = (struct apenet_module_check){ "base", "CC_BASE", m->cc_base_stored, m->cc_base_computed };
	h->cc[1] = (struct apenet_module_check){ "extended", "CC_EXT", m->cc_ext_stored, m->cc_ext_computed };
	h->ncc = 2;
	if (a2)
		h->cc[h->ncc++] = (struct apenet_module_check){ "dmi", "CC_DMI", m->cc_dmi_stored, m->cc_dmi_computed };
}
