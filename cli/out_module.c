/*
 * A decoded module through the one output writer: the identity fields of
 * each specification (SFF-8636, SFF-8472) as `ethtool -m` shows them, then
 * monitors, thresholds and check codes in one shape for both, from the
 * health part.  What the module does not implement is null in JSON and "-"
 * in text, never a made-up 0.
 */
#include <stdio.h>

#include "apenet/module.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"
#include "cli.h"

static void out_vendor(struct apenet_out *o, const char *name, const uint8_t oui[3], const char *part,
		       const char *rev, const char *serial, const char *date, const char *date_code, const char *lot)
{
	apenet_out_obj_begin(o, "vendor");
	apenet_out_str(o, "name", name);
	apenet_out_strf(o, "oui", "%02x:%02x:%02x", oui[0], oui[1], oui[2]);
	apenet_out_str(o, "part", part);
	apenet_out_str(o, "revision", rev);
	apenet_out_str(o, "serial", serial);
	apenet_out_str(o, "date", date[0] ? date : date_code);
	apenet_out_str(o, "lot", lot);
	apenet_out_obj_end(o);
}

/* A length of 0 means "not specified for this medium". */
static void out_len(struct apenet_out *o, const char *key, unsigned v)
{
	if (v)
		apenet_out_uint(o, key, v);
	else
		apenet_out_null(o, key);
}

void cli_out_sff8636(struct apenet_out *o, const struct apenet_sff8636 *m)
{
	apenet_out_strf(o, "identifier", "0x%02x (%s)", m->id, m->id_name);
	apenet_out_str(o, "revision_compliance", m->rev_name);
	apenet_out_strf(o, "connector", "0x%02x (%s)", m->connector, m->connector_name);
	apenet_out_str(o, "media", m->media);
	apenet_out_str(o, "compliance", m->eth_names[0] ? m->eth_names : "none");
	apenet_out_str(o, "encoding", m->encoding_name);
	apenet_out_uint(o, "bitrate_nominal_mbps", m->br_nominal_mbps);
	apenet_out_str(o, "transmitter", m->tx_tech_name);
	apenet_out_bool(o, "copper", m->copper);
	apenet_out_obj_begin(o, "length");
	apenet_out_uint(o, "smf_km", m->len_smf_km);
	apenet_out_uint(o, "om3_m", m->len_om3_m);
	apenet_out_uint(o, "om2_m", m->len_om2_m);
	apenet_out_uint(o, "om1_m", m->len_om1_m);
	apenet_out_uint(o, m->copper ? "copper_m" : "om4_m", m->copper ? m->len_copper_m : m->len_om4_m);
	apenet_out_obj_end(o);
	out_vendor(o, m->vendor, m->oui, m->part, m->vendor_rev, m->serial, m->date, m->date_code, m->lot);
	if (m->copper) {
		static const char *const keys[4] = { "at_2_5GHz_dB", "at_5GHz_dB", "at_7GHz_dB", "at_12_9GHz_dB" };
		char t[96];
		size_t n = 0;

		/* 0 dB is no attenuation the vendor measured: "unspecified", not a perfect cable. */
		for (int i = 0; i < 4; i++) {
			if (m->atten_db[i])
				n += (size_t)snprintf(t + n, sizeof(t) - n, "%s%u", i ? "/" : "", m->atten_db[i]);
			else
				n += (size_t)snprintf(t + n, sizeof(t) - n, "%sunspecified", i ? "/" : "");
		}
		snprintf(t + n, sizeof(t) - n, " dB at 2.5/5/7/12.9 GHz");
		apenet_out_obj_begin_text(o, "attenuation", t);
		for (int i = 0; i < 4; i++) {
			if (m->atten_db[i])
				apenet_out_uint(o, keys[i], m->atten_db[i]);
			else
				apenet_out_null(o, keys[i]);
		}
		apenet_out_obj_end(o);
	} else {
		apenet_out_dbl(o, "wavelength_nm", m->wavelength_nm, 2);
	}
}

void cli_out_sff8472(struct apenet_out *o, const struct apenet_sff8472 *m)
{
	char t[96];

	apenet_out_strf(o, "identifier", "0x%02x (%s)", m->id, m->id_name);
	apenet_out_strf(o, "extended_identifier", "0x%02x (%s)", m->ext_id, m->ext_id_name);
	apenet_out_str(o, "sff8472_compliance", m->compliance_rev_name);
	apenet_out_strf(o, "connector", "0x%02x (%s)", m->connector, m->connector_name);
	apenet_out_str(o, "media", m->media);
	apenet_out_str(o, "compliance", m->compliance[0] ? m->compliance : "none");
	snprintf(t, sizeof(t), "%02x %02x %02x %02x %02x %02x %02x %02x", m->transceiver[0], m->transceiver[1],
		 m->transceiver[2], m->transceiver[3], m->transceiver[4], m->transceiver[5], m->transceiver[6],
		 m->transceiver[7]);
	apenet_out_str(o, "transceiver_codes", t);
	apenet_out_str(o, "encoding", m->encoding_name);
	apenet_out_uint(o, "bitrate_nominal_mbps", m->br_nominal_mbps);
	/* Bytes 66-67 are margins only when byte 12 holds the rate; 0 and 0 say nothing. */
	if (m->br_extended || (!m->br_max_pct && !m->br_min_pct)) {
		apenet_out_null(o, "bitrate_margin");
	} else {
		snprintf(t, sizeof(t), "+%u%% / -%u%%", m->br_max_pct, m->br_min_pct);
		apenet_out_obj_begin_text(o, "bitrate_margin", t);
		apenet_out_uint(o, "max_pct", m->br_max_pct);
		apenet_out_uint(o, "min_pct", m->br_min_pct);
		apenet_out_obj_end(o);
	}
	apenet_out_strf(o, "rate_identifier", "0x%02x (%s)", m->rate_id, m->rate_id_name);
	apenet_out_bool(o, "copper", m->copper);
	apenet_out_obj_begin(o, "length");
	out_len(o, "smf_km", m->len_smf_km);
	out_len(o, "smf_m", m->len_smf_m);
	out_len(o, "om2_m", m->len_om2_m);
	out_len(o, "om1_m", m->len_om1_m);
	out_len(o, "om3_m", m->len_om3_m);
	/* Byte 18 as the medium the module declares: a cable's metres, or OM4 fibre. */
	if (m->len_cable)
		out_len(o, "copper_m", m->len_copper_m);
	else
		out_len(o, "om4_m", m->len_om4_m);
	apenet_out_obj_end(o);
	out_vendor(o, m->vendor, m->oui, m->part, m->vendor_rev, m->serial, m->date, m->date_code, m->lot);
	if (m->passive_cable || m->active_cable) {
		apenet_out_strf(o, "cable_compliance", "0x%02x (%s)", m->cable_compliance,
				m->cable_compliance_names[0] ? m->cable_compliance_names : "unspecified");
	} else if (m->wavelength_nm > 0) {
		/* Two decimals: a DWDM module's 0.01 nm fraction (byte 62) is part of it. */
		apenet_out_dbl(o, "wavelength_nm", m->wavelength_nm, 2);
	} else {
		apenet_out_null(o, "wavelength_nm");
	}
	apenet_out_strf(o, "options", "0x%02x%02x (%s)", m->options[0], m->options[1],
			m->options_names[0] ? m->options_names : "none");

	snprintf(t, sizeof(t), "0x%02x: %s%s", m->diag_type, m->ddm ? "implemented" : "not implemented",
		 !m->ddm ? "" : m->external_cal ? ", externally calibrated" : ", internally calibrated");
	apenet_out_obj_begin_text(o, "diagnostics", t);
	apenet_out_hex(o, "type", m->diag_type, 2);
	apenet_out_bool(o, "implemented", m->ddm);
	apenet_out_str(o, "calibration", m->external_cal ? "external" : m->internal_cal ? "internal" : "unspecified");
	apenet_out_str(o, "rx_power_kind", m->rx_power_avg ? "average" : "OMA");
	apenet_out_bool(o, "address_change", m->addr_change);
	apenet_out_bool(o, "read", m->a2_present);
	apenet_out_obj_end(o);
	snprintf(t, sizeof(t), "0x%02x: flags %s, soft TX_FAULT %s, soft RX_LOS %s", m->enh_options,
		 m->flags_implemented ? "yes" : "no", m->soft_tx_fault ? "yes" : "no", m->soft_rx_los ? "yes" : "no");
	apenet_out_obj_begin_text(o, "enhanced_options", t);
	apenet_out_hex(o, "value", m->enh_options, 2);
	apenet_out_bool(o, "alarm_warning_flags", m->flags_implemented);
	apenet_out_bool(o, "soft_tx_disable", m->soft_tx_disable);
	apenet_out_bool(o, "soft_tx_fault", m->soft_tx_fault);
	apenet_out_bool(o, "soft_rx_los", m->soft_rx_los);
	apenet_out_bool(o, "soft_rate_select", m->soft_rate_select);
	apenet_out_obj_end(o);
	if (m->external_cal && m->a2_present) {
		const struct apenet_sff8472_cal *c = &m->cal;
		snprintf(t, sizeof(t), "rx_pwr %g %g %g %g %g", c->rx_pwr[4], c->rx_pwr[3], c->rx_pwr[2], c->rx_pwr[1],
			 c->rx_pwr[0]);
		apenet_out_obj_begin_text(o, "calibration", t);
		apenet_out_arr_begin(o, "rx_pwr");
		for (int i = 0; i < 5; i++)
			apenet_out_dbl(o, NULL, c->rx_pwr[i], 6);
		apenet_out_arr_end(o);
		apenet_out_dbl(o, "tx_i_slope", c->tx_i_slope, 6);
		apenet_out_dbl(o, "tx_i_offset", c->tx_i_offset, 0);
		apenet_out_dbl(o, "tx_pwr_slope", c->tx_pwr_slope, 6);
		apenet_out_dbl(o, "tx_pwr_offset", c->tx_pwr_offset, 0);
		apenet_out_dbl(o, "t_slope", c->t_slope, 6);
		apenet_out_dbl(o, "t_offset", c->t_offset, 0);
		apenet_out_dbl(o, "v_slope", c->v_slope, 6);
		apenet_out_dbl(o, "v_offset", c->v_offset, 0);
		apenet_out_obj_end(o);
	}
	if (m->a2_present) {
		snprintf(t, sizeof(t), "0x%02x:%s%s%s%s", m->status, m->tx_disable_state ? " TX disabled" : "",
			 m->tx_fault_state ? " TX fault" : "", m->rx_los_state ? " RX LOS" : "",
			 m->data_not_ready ? " data not ready" : m->status & 0xc6 ? "" : " normal");
		apenet_out_obj_begin_text(o, "status", t);
		apenet_out_bool(o, "tx_disable", m->tx_disable_state);
		apenet_out_bool(o, "soft_tx_disable", m->soft_tx_disable_sel);
		apenet_out_bool(o, "rs1", m->rs1_state);
		apenet_out_bool(o, "rate_select", m->rs0_state);
		apenet_out_bool(o, "tx_fault", m->tx_fault_state);
		apenet_out_bool(o, "rx_los", m->rx_los_state);
		apenet_out_bool(o, "data_ready", !m->data_not_ready);
		apenet_out_obj_end(o);
	} else {
		apenet_out_null(o, "status");
	}
}

/* ---- monitors, thresholds, check codes: one shape for both specifications ---- */

static void out_value(struct apenet_out *o, const char *key, const struct apenet_module_mon *x, unsigned k, int prec)
{
	if (x->present)
		apenet_out_dbl(o, key, x->value[k], prec);
	else
		apenet_out_null(o, key);
}

static void out_dbm(struct apenet_out *o, const char *key, const struct apenet_module_mon *x, unsigned k)
{
	if (x->present)
		apenet_out_dbl(o, key, apenet_sff8636_mw_to_dbm(x->value[k]), 2);
	else
		apenet_out_null(o, key);
}

static void out_flags(struct apenet_out *o, const char *key, const struct apenet_module_mon *x, unsigned k)
{
	if (x->present && x->flags_ok)
		apenet_out_hex(o, key, x->flags[k], 1);
	else
		apenet_out_null(o, key);
}

static void out_status(struct apenet_out *o, const char *key, int ok, uint8_t mask, unsigned k)
{
	if (ok)
		apenet_out_bool(o, key, (mask >> k) & 1u);
	else
		apenet_out_null(o, key);
}

static void out_thresh(struct apenet_out *o, enum apenet_module_mon_id id, const struct apenet_module_mon *x)
{
	const struct apenet_module_mon_info *info = apenet_module_mon_info(id);
	const struct apenet_module_thresh *t = &x->th;
	int prec = info->prec > 1 ? info->prec - 1 : info->prec;
	char s[128];

	if (!x->present || !x->thresh_ok) {
		apenet_out_null(o, info->key);
		return;
	}
	snprintf(s, sizeof(s), "%.*f..%.*f (alarm %.*f..%.*f)", prec, t->low_warn, prec, t->high_warn, prec,
		 t->low_alarm, prec, t->high_alarm);
	apenet_out_obj_begin_text(o, info->key, s);
	apenet_out_dbl(o, "high_alarm", t->high_alarm, prec);
	apenet_out_dbl(o, "low_alarm", t->low_alarm, prec);
	apenet_out_dbl(o, "high_warning", t->high_warn, prec);
	apenet_out_dbl(o, "low_warning", t->low_warn, prec);
	apenet_out_obj_end(o);
}

void cli_out_module_health(struct apenet_out *o, const struct apenet_module_health *h)
{
	const struct apenet_module_mon *m = h->mon;
	int any = 0, any_th = 0;

	for (int i = 0; i < APENET_MON_COUNT; i++) {
		any |= m[i].present;
		any_th |= m[i].present && m[i].thresh_ok;
	}
	if (any) {
		apenet_out_obj_begin(o, "monitors");
		out_value(o, "temperature_C", &m[APENET_MON_TEMP], 0, 2);
		out_flags(o, "temperature_flags", &m[APENET_MON_TEMP], 0);
		out_value(o, "vcc_V", &m[APENET_MON_VCC], 0, 4);
		out_flags(o, "vcc_flags", &m[APENET_MON_VCC], 0);
		apenet_out_str(o, "rx_power_kind", h->rx_power_avg ? "average" : "OMA");
		apenet_out_arr_begin(o, "lanes");
		for (unsigned k = 0; k < h->lanes; k++) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_uint(o, "lane", k + 1);
			out_value(o, "rx_power_mW", &m[APENET_MON_RX_POWER], k, 4);
			out_dbm(o, "rx_power_dBm", &m[APENET_MON_RX_POWER], k);
			out_value(o, "tx_bias_mA", &m[APENET_MON_TX_BIAS], k, 3);
			out_value(o, "tx_power_mW", &m[APENET_MON_TX_POWER], k, 4);
			out_dbm(o, "tx_power_dBm", &m[APENET_MON_TX_POWER], k);
			out_status(o, "rx_los", h->rx_los_ok, h->rx_los, k);
			out_status(o, "tx_fault", h->tx_fault_ok, h->tx_fault, k);
			out_flags(o, "rx_power_flags", &m[APENET_MON_RX_POWER], k);
			out_flags(o, "tx_bias_flags", &m[APENET_MON_TX_BIAS], k);
			out_flags(o, "tx_power_flags", &m[APENET_MON_TX_POWER], k);
			apenet_out_obj_end(o);
		}
		apenet_out_arr_end(o);
		apenet_out_obj_end(o);
	} else {
		apenet_out_null(o, "monitors");
	}
	if (any_th) {
		apenet_out_obj_begin(o, "thresholds");
		for (int i = 0; i < APENET_MON_COUNT; i++)
			out_thresh(o, (enum apenet_module_mon_id)i, &m[i]);
		apenet_out_obj_end(o);
	} else {
		apenet_out_null(o, "thresholds");
	}

	char cs[128], key[32];
	size_t n = 0;
	cs[0] = '\0';
	for (unsigned i = 0; i < h->ncc; i++)
		n += (size_t)snprintf(cs + n, sizeof(cs) - n, "%s%s %s", i ? ", " : "", h->cc[i].name,
				      h->cc[i].stored == h->cc[i].computed ? "ok" : "BAD");
	apenet_out_obj_begin_text(o, "checksums", cs);
	for (unsigned i = 0; i < h->ncc; i++) {
		snprintf(key, sizeof(key), "%s_ok", h->cc[i].name);
		apenet_out_bool(o, key, h->cc[i].stored == h->cc[i].computed);
		snprintf(key, sizeof(key), "%s_stored", h->cc[i].name);
		apenet_out_hex(o, key, h->cc[i].stored, 2);
		snprintf(key, sizeof(key), "%s_computed", h->cc[i].name);
		apenet_out_hex(o, key, h->cc[i].computed, 2);
	}
	apenet_out_obj_end(o);
}
