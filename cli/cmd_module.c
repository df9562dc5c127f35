/* apenet module [PORT] | --eeprom-file FILE: the QSFP+ module EEPROM of each
 * port decoded as `ethtool -m` does (SFF-8636), checksums verified, alarms
 * and warnings from the flags and the thresholds, and a verdict. */
#include <stdio.h>
#include <string.h>

#include "apenet/sff8636.h"
#include "apenet/verdict.h"
#include "apenet/view.h"
#include "cli.h"

static int crossed(double v, const struct apenet_sff8636_thresh *t, int alarm)
{
	return alarm ? (v > t->high_alarm || v < t->low_alarm) : (v > t->high_warn || v < t->low_warn);
}

/* 2 alarm (or LOS, fault), 1 warning only, 0 none: from flags and thresholds both. */
static int module_level(const struct apenet_sff8636 *m)
{
	uint8_t flags = m->temp_flags | m->vcc_flags;
	int los = m->rx_los || m->tx_los || m->tx_fault;
	for (int k = 0; k < APENET_SFF8636_LANES; k++)
		flags |= m->rx_power_flags[k] | m->tx_bias_flags[k] | m->tx_power_flags[k];
	int alarm = los || (flags & (APENET_SFF8636_HIGH_ALARM | APENET_SFF8636_LOW_ALARM));
	int warn = flags & (APENET_SFF8636_HIGH_WARN | APENET_SFF8636_LOW_WARN);
	if (m->dom_present && m->thresh_present) {
		for (int a = 1; a >= 0; a--) {
			int x = crossed(m->temp_c, &m->th_temp, a) || crossed(m->vcc_v, &m->th_vcc, a);
			for (int k = 0; k < APENET_SFF8636_LANES; k++)
				x |= crossed(m->rx_power_mw[k], &m->th_rx_power, a) ||
				     crossed(m->tx_bias_ma[k], &m->th_tx_bias, a) ||
				     (m->tx_power_supported && crossed(m->tx_power_mw[k], &m->th_tx_power, a));
			if (a)
				alarm |= x;
			else
				warn |= x;
		}
	}
	return alarm ? 2 : warn ? 1 : 0;
}

static void out_thresh(struct apenet_out *o, const char *key, const struct apenet_sff8636_thresh *t, int prec)
{
	char s[96];
	snprintf(s, sizeof(s), "%.*f..%.*f (alarm %.*f..%.*f)", prec, t->low_warn, prec, t->high_warn, prec, t->low_alarm,
		 prec, t->high_alarm);
	apenet_out_obj_begin_text(o, key, s);
	apenet_out_dbl(o, "high_alarm", t->high_alarm, prec);
	apenet_out_dbl(o, "low_alarm", t->low_alarm, prec);
	apenet_out_dbl(o, "high_warning", t->high_warn, prec);
	apenet_out_dbl(o, "low_warning", t->low_warn, prec);
	apenet_out_obj_end(o);
}

static void out_lanes(struct apenet_out *o, const struct apenet_sff8636 *m)
{
	apenet_out_arr_begin(o, "lanes");
	for (int k = 0; k < APENET_SFF8636_LANES; k++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_uint(o, "lane", (unsigned)k + 1);
		apenet_out_dbl(o, "rx_power_mW", m->rx_power_mw[k], 4);
		apenet_out_dbl(o, "rx_power_dBm", m->rx_power_dbm[k], 2);
		apenet_out_dbl(o, "tx_bias_mA", m->tx_bias_ma[k], 3);
		apenet_out_dbl(o, "tx_power_mW", m->tx_power_mw[k], 4);
		apenet_out_dbl(o, "tx_power_dBm", m->tx_power_dbm[k], 2);
		apenet_out_bool(o, "rx_los", (m->rx_los >> k) & 1);
		apenet_out_bool(o, "tx_fault", (m->tx_fault >> k) & 1);
		apenet_out_hex(o, "rx_power_flags", m->rx_power_flags[k], 1);
		apenet_out_hex(o, "tx_bias_flags", m->tx_bias_flags[k], 1);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
}

/* One module: decoded fields and its verdict; returns the severity. */
static int out_module(struct apenet_out *o, int link, const char *port, const uint8_t *buf, size_t len,
		      struct apenet_findings *fs)
{
	struct apenet_sff8636 m;
	char err[256], alarms[512];
	size_t first = fs->n;
	struct apenet_finding *f;
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "port", port);
	if (apenet_sff8636_decode(buf, len, &m, err, sizeof(err))) {
		apenet_out_bool(o, "decoded", 0);
		apenet_out_str(o, "error", err);
		f = apenet_finding_add(fs, APENET_SEV_FAIL, APENET_SUBJ_MODULE, link, -1, port, "MODULE_UNREADABLE");
		apenet_finding_message(f, "%s: %s", port, err);
		apenet_verdict_write(o, "verdict", fs, link);
		apenet_out_obj_end(o);
		return (int)f->sev;
	}
	apenet_out_bool(o, "decoded", 1);
	apenet_out_uint(o, "bytes", m.len);
	apenet_out_strf(o, "identifier", "0x%02x (%s)", m.id, m.id_name);
	apenet_out_str(o, "revision_compliance", m.rev_name);
	apenet_out_strf(o, "connector", "0x%02x (%s)", m.connector, m.connector_name);
	apenet_out_str(o, "media", m.media);
	apenet_out_str(o, "compliance", m.eth_names[0] ? m.eth_names : "none");
	apenet_out_str(o, "encoding", m.encoding_name);
	apenet_out_uint(o, "bitrate_nominal_mbps", m.br_nominal_mbps);
	apenet_out_str(o, "transmitter", m.tx_tech_name);
	apenet_out_bool(o, "copper", m.copper);
	apenet_out_obj_begin(o, "length");
	apenet_out_uint(o, "smf_km", m.len_smf_km);
	apenet_out_uint(o, "om3_m", m.len_om3_m);
	apenet_out_uint(o, "om2_m", m.len_om2_m);
	apenet_out_uint(o, "om1_m", m.len_om1_m);
	apenet_out_uint(o, m.copper ? "copper_m" : "om4_m", m.copper ? m.len_copper_m : m.len_om4_m);
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, "vendor");
	apenet_out_str(o, "name", m.vendor);
	apenet_out_strf(o, "oui", "%02x:%02x:%02x", m.oui[0], m.oui[1], m.oui[2]);
	apenet_out_str(o, "part", m.part);
	apenet_out_str(o, "revision", m.vendor_rev);
	apenet_out_str(o, "serial", m.serial);
	apenet_out_str(o, "date", m.date[0] ? m.date : m.date_code);
	apenet_out_str(o, "lot", m.lot);
	apenet_out_obj_end(o);
	if (m.copper) {
		char t[64];
		snprintf(t, sizeof(t), "%u/%u/%u/%u dB", m.atten_db[0], m.atten_db[1], m.atten_db[2], m.atten_db[3]);
		apenet_out_obj_begin_text(o, "attenuation", t);
		apenet_out_uint(o, "at_2_5GHz_dB", m.atten_db[0]);
		apenet_out_uint(o, "at_5GHz_dB", m.atten_db[1]);
		apenet_out_uint(o, "at_7GHz_dB", m.atten_db[2]);
		apenet_out_uint(o, "at_12_9GHz_dB", m.atten_db[3]);
		apenet_out_obj_end(o);
	} else {
		apenet_out_dbl(o, "wavelength_nm", m.wavelength_nm, 2);
	}
	if (m.dom_present) {
		apenet_out_obj_begin(o, "monitors");
		apenet_out_dbl(o, "temperature_C", m.temp_c, 2);
		apenet_out_dbl(o, "vcc_V", m.vcc_v, 4);
		apenet_out_str(o, "rx_power_kind", m.rx_power_avg ? "average" : "OMA");
		out_lanes(o, &m);
		apenet_out_obj_end(o);
		if (m.thresh_present) {
			apenet_out_obj_begin(o, "thresholds");
			out_thresh(o, "temperature_C", &m.th_temp, 1);
			out_thresh(o, "vcc_V", &m.th_vcc, 3);
			out_thresh(o, "rx_power_mW", &m.th_rx_power, 3);
			out_thresh(o, "tx_bias_mA", &m.th_tx_bias, 2);
			out_thresh(o, "tx_power_mW", &m.th_tx_power, 3);
			apenet_out_obj_end(o);
		} else {
			apenet_out_null(o, "thresholds");
		}
	} else {
		apenet_out_null(o, "monitors");
	}
	char cs[96];
	snprintf(cs, sizeof(cs), "base %s, extended %s", m.cc_base_ok ? "ok" : "BAD", m.cc_ext_ok ? "ok" : "BAD");
	apenet_out_obj_begin_text(o, "checksums", cs);
	apenet_out_bool(o, "base_ok", m.cc_base_ok);
	apenet_out_hex(o, "base_stored", m.cc_base_stored, 2);
	apenet_out_hex(o, "base_computed", m.cc_base_computed, 2);
	apenet_out_bool(o, "extended_ok", m.cc_ext_ok);
	apenet_out_hex(o, "extended_stored", m.cc_ext_stored, 2);
	apenet_out_hex(o, "extended_computed", m.cc_ext_computed, 2);
	apenet_out_obj_end(o);
	int n = apenet_sff8636_alarms(&m, alarms, sizeof(alarms));
	apenet_out_uint(o, "alarm_count", (unsigned)n);
	if (!m.cc_base_ok || !m.cc_ext_ok) {
		f = apenet_finding_add(fs, APENET_SEV_FAIL, APENET_SUBJ_MODULE, link, -1, port, "MODULE_CHECKSUM");
		apenet_finding_message(f, "%s: %s check code is wrong (stored 0x%02x, computed 0x%02x): the EEPROM is corrupt "
				       "or misread", port, !m.cc_base_ok ? "base" : "extended",
				       !m.cc_base_ok ? m.cc_base_stored : m.cc_ext_stored,
				       !m.cc_base_ok ? m.cc_base_computed : m.cc_ext_computed);
		apenet_finding_rec(f, "reseat the module and read again");
	}
	int lvl = module_level(&m);
	if (lvl) {
		f = apenet_finding_add(fs, lvl == 2 ? APENET_SEV_FAIL : APENET_SEV_WARN, APENET_SUBJ_MODULE, link, -1, port,
				       lvl == 2 ? "MODULE_ALARM" : "MODULE_WARNING");
		apenet_finding_message(f, "%s: %s", port, alarms);
	}
	apenet_verdict_write(o, "verdict", fs, link);
	apenet_out_obj_end(o);
	enum apenet_sev w = APENET_SEV_OK;
	for (size_t i = first; i < fs->n; i++)
		w = fs->f[i].sev > w ? fs->f[i].sev : w;
	return (int)w;
}

int cmd_module(struct cli *c)
{
	const char *from = NULL, *file = NULL;
	const struct cli_opt opts[] = { { "--from", &from, NULL }, { "--eeprom-file", &file, NULL }, { NULL, NULL, NULL } };
	const char *pos[1] = { NULL };
	int npos, only = -1;
	static struct apenet_view v;
	if (cli_parse(c, "module", opts, pos, 1, &npos))
		return CLI_EXIT_ERROR;
	if (file) {
		uint8_t buf[APENET_SFF8636_LEN_FULL];
		size_t len;
		char err[512];
		if (pos[0] || from)
			return cli_usage_error("module", "--eeprom-file takes no port and no --from");
		if (apenet_sff8636_load_file(file, buf, sizeof(buf), &len, err, sizeof(err))) {
			fprintf(stderr, "apenet: %s\n", err);
			return CLI_EXIT_ERROR;
		}
		struct apenet_findings fs;
		apenet_findings_init(&fs);
		struct apenet_out *o = apenet_out_new(c->fmt, stdout, "module");
		apenet_out_arr_begin_vertical(o, "modules");
		out_module(o, -1, file, buf, len, &fs);
		apenet_out_arr_end(o);
		int rc = cli_finish(o, &fs);
		apenet_findings_free(&fs);
		return rc;
	}
	int rc = cli_view(c, from, 0, 1, &v);
	if (rc)
		return rc;
	if (pos[0] && (only = cli_link_index(v.prof, pos[0])) < 0)
		return cli_usage_error("module", "no port '%s' on a %s", pos[0], v.prof->name);
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "module");
	apenet_out_str(o, "bdf", v.bdf);
	apenet_out_str(o, "variant", v.prof->name);
	apenet_out_arr_begin_vertical(o, "modules");
	for (unsigned l = 0; l < v.prof->nlinks; l++) {
		if (only >= 0 && (unsigned)only != l)
			continue;
		const struct apenet_link_profile *lp = &v.prof->links[l];
		if (!APENET_GET(EE_STATUS, PRESENT, v.ee_status[l])) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_str(o, "port", lp->name);
			apenet_out_bool(o, "present", 0);
			if (lp->has_module) {
				struct apenet_finding *f = apenet_finding_add(&fs, APENET_SEV_WARN, APENET_SUBJ_MODULE, (int)l,
									      -1, lp->name, "MODULE_ABSENT");
				apenet_finding_message(f, "%s: no module in the QSFP+ cage (or its EEPROM cannot be read)",
						       lp->name);
			}
			apenet_verdict_write(o, "verdict", &fs, (int)l);
			apenet_out_obj_end(o);
			continue;
		}
		out_module(o, (int)l, lp->name, v.ee[l], APENET_EE_DATA_LEN, &fs);
	}
	apenet_out_arr_end(o);
	rc = cli_finish(o, &fs);
	apenet_findings_free(&fs);
	return rc;
}
