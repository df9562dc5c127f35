/*
 * The node tables of APENET-MIB filled from the node agent's latest
 * sample.  The values are the library's: link state, partner and rates
 * from apenet_link_stats (what `apenet link` shows), sensors and their
 * limits from apenet_rules_sensors (what `apenet status` shows), verdicts from
 * the judge's raised findings, so SNMP and the CLI cannot disagree.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/linkstats.h"
#include "apenet/ldm.h"
#include "apenet/mib.h"
#include "apenet/mib_node.h"
#include "apenet/notify.h"
#include "apenet/regs.h"
#include "apenet/verdict.h"

enum { T_CARD, T_LINK, T_LANE, T_SENSOR, T_LDM, T_WD, T_CERT, T_MODULE, T_N };

#define COL_(t, c, name, arc, type) { name, arc, APENET_MIB_##type },
static const struct apenet_mib_col card_cols[] = { APENET_MIB_CARD_COLUMNS(COL_) };
static const struct apenet_mib_col link_cols[] = { APENET_MIB_LINK_COLUMNS(COL_) };
static const struct apenet_mib_col lane_cols[] = { APENET_MIB_LANE_COLUMNS(COL_) };
static const struct apenet_mib_col sensor_cols[] = { APENET_MIB_SENSOR_COLUMNS(COL_) };
static const struct apenet_mib_col ldm_cols[] = { APENET_MIB_LDM_COLUMNS(COL_) };
static const struct apenet_mib_col wd_cols[] = { APENET_MIB_WATCHDOG_COLUMNS(COL_) };
static const struct apenet_mib_col cert_cols[] = { APENET_MIB_CERT_COLUMNS(COL_) };
static const struct apenet_mib_col module_cols[] = { APENET_MIB_MODULE_COLUMNS(COL_) };
#undef COL_
#define NCOL(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

int apenet_mib_node_init(struct apenet_mib *m, const struct apenet_profile *prof, unsigned card_index,
			 struct apenet_err *e)
{
	unsigned nl = prof->nlinks, nlanes = 0;
	for (unsigned l = 0; l < nl; l++)
		nlanes += prof->links[l].lanes;
	struct apenet_mib_tab *t[T_N];
	if (!(t[T_CARD] = apenet_mib_add_table(m, "apenetCardTable", APENET_MIB_T_CARD, card_cols, NCOL(card_cols), 1, 1, e)) ||
	    !(t[T_LINK] = apenet_mib_add_table(m, "apenetLinkTable", APENET_MIB_T_LINK, link_cols, NCOL(link_cols), 2, nl, e)) ||
	    !(t[T_LANE] = apenet_mib_add_table(m, "apenetLaneTable", APENET_MIB_T_LANE, lane_cols, NCOL(lane_cols), 3,
					       nlanes, e)) ||
	    !(t[T_SENSOR] = apenet_mib_add_table(m, "apenetSensorTable", APENET_MIB_T_SENSOR, sensor_cols,
						 NCOL(sensor_cols), 2, APENET_NSENSORS, e)) ||
	    !(t[T_LDM] = apenet_mib_add_table(m, "apenetLdmTable", APENET_MIB_T_LDM, ldm_cols, NCOL(ldm_cols), 2, nl + 1,
					      e)) ||
	    !(t[T_WD] = apenet_mib_add_table(m, "apenetWatchdogTable", APENET_MIB_T_WATCHDOG, wd_cols, NCOL(wd_cols), 1,
					     1, e)) ||
	    !(t[T_CERT] = apenet_mib_add_table(m, "apenetCertTable", APENET_MIB_T_CERT, cert_cols, NCOL(cert_cols), 2, nl,
					       e)) ||
	    !(t[T_MODULE] = apenet_mib_add_table(m, "apenetModuleTable", APENET_MIB_T_MODULE, module_cols,
						 NCOL(module_cols), 3, nlanes, e))) {
		apenet_mib_free(m);
		return -1;
	}
	uint32_t c = card_index;
	apenet_mib_row_index(t[T_CARD], 0, &c);
	apenet_mib_row_index(t[T_WD], 0, &c);
	for (unsigned l = 0, r = 0; l < nl; l++) {
		uint32_t li[2] = { c, l + 1 };
		apenet_mib_row_index(t[T_LINK], l, li);
		apenet_mib_row_index(t[T_CERT], l, li);
		for (unsigned k = 0; k < prof->links[l].lanes; k++, r++) {
			uint32_t ki[3] = { c, l + 1, k + 1 };
			apenet_mib_row_index(t[T_LANE], r, ki);
			apenet_mib_row_index(t[T_MODULE], r, ki);
		}
	}
	for (unsigned i = 0; i < APENET_NSENSORS; i++) {
		uint32_t si[2] = { c, i + 1 };
		apenet_mib_row_index(t[T_SENSOR], i, si);
	}
	for (unsigned i = 0; i <= nl; i++) {
		uint32_t di[2] = { c, i + 1 };
		apenet_mib_row_index(t[T_LDM], i, di);
	}
	return 0;
}

/* ApenetSeverity: ok(1), warn(2), fail(3) */
static int64_t sev_of(enum apenet_sev s)
{
	return (int64_t)s + 1;
}

/* ApenetStatus: normal(1), sick(2), broken(3), invalid(4) from a 2-bit value */
static int64_t status_of(unsigned v)
{
	return v <= APENET_LDM_INVALID ? (int64_t)v + 1 : 4;
}

static void xyz_text(char *buf, size_t n, const unsigned xyz[3])
{
	snprintf(buf, n, "%u,%u,%u", xyz[0], xyz[1], xyz[2]);
}

static void limit(struct apenet_mib_tab *t, unsigned r, unsigned arc, double v)
{
	char b[40];
	apenet_mib_set_str(t, r, arc, "%s", isfinite(v) ? apenet_report_decimal(v, b, sizeof(b)) : "");
}

static uint64_t rate_u(double x, double scale)
{
	if (!(x > 0) || !isfinite(x))
		return 0;
	double y = x * scale;
	return y >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)llround(y);
}

static void fill_card(struct apenet_mib_tab *t, const struct apenet_mib_node_in *in)
{
	const struct apenet_view *v = in->v;
	const struct apenet_snapshot *s = &v->s1;
	unsigned xyz[3] = { APENET_GET(NODE_COORD, X, s->g.NODE_COORD), APENET_GET(NODE_COORD, Y, s->g.NODE_COORD),
			    APENET_GET(NODE_COORD, Z, s->g.NODE_COORD) };
	uint32_t fw = (uint32_t)s->g.ID_FW_VERSION;
	char b[40];
	apenet_mib_set_str(t, 0, APENET_MIB_CARD_BDF, "%s", v->bdf);
	apenet_mib_set_str(t, 0, APENET_MIB_CARD_VARIANT, "%s", v->prof ? v->prof->name : "");
	apenet_mib_set_str(t, 0, APENET_MIB_CARD_FIRMWARE, "%u.%u.%u", APENET_GET(ID_FW_VERSION, MAJOR, fw),
			   APENET_GET(ID_FW_VERSION, MINOR, fw), APENET_GET(ID_FW_VERSION, PATCH, fw));
	xyz_text(b, sizeof(b), xyz);
	apenet_mib_set_str(t, 0, APENET_MIB_CARD_NODE, "%s", b);
	const char *name = apenet_config_node_name(in->cfg, xyz[0], xyz[1], xyz[2]);
	apenet_mib_set_str(t, 0, APENET_MIB_CARD_NODE_NAME, "%s", name ? name : "");
	if (v->pcie_ok && v->pcie.has_pcie) {
		apenet_mib_set_str(t, 0, APENET_MIB_CARD_PCIE_TRAINED, "Gen%u x%u", v->pcie.sta_gen, v->pcie.sta_width);
		apenet_mib_set_str(t, 0, APENET_MIB_CARD_PCIE_CAPABLE, "Gen%u x%u", v->pcie.cap_gen, v->pcie.cap_width);
	} else {
		apenet_mib_set_str(t, 0, APENET_MIB_CARD_PCIE_TRAINED, "%s", "");
		apenet_mib_set_str(t, 0, APENET_MIB_CARD_PCIE_CAPABLE, "%s", "");
	}
	long at = -1;
	enum apenet_sev w = apenet_findings_worst(in->raised, &at);
	apenet_mib_set_int(t, 0, APENET_MIB_CARD_SEVERITY, sev_of(w));
	apenet_mib_set_str(t, 0, APENET_MIB_CARD_CODE, "%s", at >= 0 ? in->raised->f[at].code : "OK");
	apenet_mib_set_u(t, 0, APENET_MIB_CARD_FINDINGS, in->raised->n);
	int64_t age = v->host_ms[1] && in->now_ms > v->host_ms[1] ? in->now_ms - v->host_ms[1] : 0;
	apenet_mib_set_u(t, 0, APENET_MIB_CARD_SAMPLE_AGE, (uint64_t)age);
	apenet_mib_set_u(t, 0, APENET_MIB_CARD_PERIODS, in->periods);
}

static void fill_link(struct apenet_mib *m, unsigned l, unsigned *lane_row, const struct apenet_mib_node_in *in)
{
	struct apenet_mib_tab *t = &m->tab[T_LINK], *k = &m->tab[T_LANE], *d = &m->tab[T_LDM];
	const struct apenet_view *v = in->v;
	const struct apenet_snap_link *sl = &v->s1.link[l];
	struct apenet_link_stats st;
	char b[40];
	apenet_link_stats(v, l, &st);
	apenet_mib_set_str(t, l, APENET_MIB_LINK_NAME, "%s", v->prof->links[l].name);
	apenet_mib_set_int(t, l, APENET_MIB_LINK_STATE, st.state <= APENET_LINK_PRBS ? (int64_t)st.state + 1 : 1);
	/* LINK_STATE's mask of lanes up, counted as `apenet link` counts it */
	apenet_mib_set_u(t, l, APENET_MIB_LINK_LANES_UP, (unsigned)__builtin_popcount(st.lanes_up));
	apenet_mib_set_u(t, l, APENET_MIB_LINK_LANES, st.nlanes);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_LANE_RATE, sl->LINK_LANE_MBPS);
	if (st.partner_valid && !st.partner_ext) {
		xyz_text(b, sizeof(b), st.partner);
		apenet_mib_set_str(t, l, APENET_MIB_LINK_PARTNER_NODE, "%s", b);
		apenet_mib_set_str(t, l, APENET_MIB_LINK_PARTNER_LINK, "%s",
				   st.partner_port < v->prof->nlinks ? v->prof->links[st.partner_port].name : "?");
	} else {
		apenet_mib_set_str(t, l, APENET_MIB_LINK_PARTNER_NODE, "%s", "");
		apenet_mib_set_str(t, l, APENET_MIB_LINK_PARTNER_LINK, "%s", st.partner_valid ? "external" : "");
	}
	apenet_mib_set_u(t, l, APENET_MIB_LINK_TX_BYTES, sl->LINK_TX_BYTES);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_RX_BYTES, sl->LINK_RX_BYTES);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_TX_PKTS, sl->LINK_TX_PKTS);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_RX_PKTS, sl->LINK_RX_PKTS);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_HDR_CRC_ERRORS, sl->LINK_HDR_CRC_ERR);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_FTR_CRC_ERRORS, sl->LINK_FTR_CRC_ERR);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_RETRANS, sl->LINK_RETRANS);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_PAYLOAD_ERRORS, sl->LINK_PAYLOAD_ERR);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_DOWN_EVENTS, sl->LINK_DOWN_EVENTS);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_ALIGN_RESTARTS, sl->LINK_ALIGN_RESTARTS);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_TX_RATE, rate_u(st.tx_Bps, 1e-3));
	apenet_mib_set_u(t, l, APENET_MIB_LINK_RX_RATE, rate_u(st.rx_Bps, 1e-3));
	apenet_mib_set_u(t, l, APENET_MIB_LINK_CRC_RATE, rate_u(st.crc_per_min, 1e3));
	apenet_mib_set_u(t, l, APENET_MIB_LINK_RETRANS_RATE, rate_u(st.retrans_per_min, 1e3));
	long at = -1;
	enum apenet_sev w = apenet_findings_worst_at(in->raised, (int)l, &at);
	apenet_mib_set_int(t, l, APENET_MIB_LINK_SEVERITY, sev_of(w));
	apenet_mib_set_str(t, l, APENET_MIB_LINK_CODE, "%s", at >= 0 ? in->raised->f[at].code : "OK");
	apenet_mib_set_u(t, l, APENET_MIB_LINK_UP_TIME, st.up_for_s > 0 ? (uint64_t)st.up_for_s : 0);
	apenet_mib_set_u(t, l, APENET_MIB_LINK_FIFO_HIGH_WATER, rate_u(st.fifo_hwm_pct, 1));

	for (unsigned q = 0; q < v->prof->links[l].lanes; q++, (*lane_row)++) {
		const struct apenet_snap_lane *sq = &sl->lane[q];
		unsigned r = *lane_row;
		apenet_mib_set_int(k, r, APENET_MIB_LANE_PHASE, (int64_t)APENET_GET(LANE_STATE, PHASE, sq->LANE_STATE) + 1);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_CODE_VIOLATIONS, sq->LANE_CODE_VIOL);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_DISPARITY_ERRORS, sq->LANE_DISP_ERR);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_ALIGN_RESTARTS, sq->LANE_ALIGN_RESTARTS);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_VOD, sq->LANE_PMA_VOD);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_PRE_TAP, sq->LANE_PMA_PRE);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_POST_TAP1, sq->LANE_PMA_POST1);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_POST_TAP2, sq->LANE_PMA_POST2);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_RX_EQ, sq->LANE_PMA_RXEQ);
		apenet_mib_set_u(k, r, APENET_MIB_LANE_DC_GAIN, sq->LANE_PMA_DCGAIN);
	}

	/* the word received on this link: LDM row l + 2 (row l + 1 here) */
	unsigned r = l + 1;
	apenet_mib_set_str(d, r, APENET_MIB_LDM_SOURCE, "%s", v->prof->links[l].name);
	if (st.partner_valid && !st.partner_ext)
		xyz_text(b, sizeof(b), st.partner);
	else
		b[0] = 0;
	apenet_mib_set_str(d, r, APENET_MIB_LDM_NODE, "%s", b);
	apenet_mib_set_u(d, r, APENET_MIB_LDM_AGE,
			 st.ldm_valid && st.ldm_age_s > 0 ? (uint64_t)llround(st.ldm_age_s * 1000) : 0);
}

static void fill_ldm_word(struct apenet_mib_tab *d, unsigned r, uint32_t word)
{
	struct apenet_ldm ldm;
	int ok = apenet_ldm_decode(word, &ldm) == 0;
	apenet_mib_set_u(d, r, APENET_MIB_LDM_RAW_WORD, word);
	apenet_mib_set_int(d, r, APENET_MIB_LDM_VALID, ok ? 1 : 2); /* TruthValue */
	apenet_mib_set_int(d, r, APENET_MIB_LDM_HOST_EXPIRED, ldm.host_expired ? 1 : 2);
	apenet_mib_set_int(d, r, APENET_MIB_LDM_WORST, ldm.valid ? status_of(ldm.worst) : 4);
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++)
		apenet_mib_set_int(d, r, APENET_MIB_LDM_SERVICE + f, status_of(ldm.field[f]));
}

static void fill_sensors(struct apenet_mib_tab *t, const struct apenet_mib_node_in *in)
{
	struct apenet_sensor sn[APENET_NSENSORS];
	unsigned n = apenet_rules_sensors(in->v, in->cfg, in->raised, sn);
	for (unsigned i = 0; i < APENET_NSENSORS; i++) {
		if (i >= n) {
			apenet_mib_set_int(t, i, APENET_MIB_SENSOR_PRESENT, 2);
			continue;
		}
		const struct apenet_sensor *x = &sn[i];
		apenet_mib_set_str(t, i, APENET_MIB_SENSOR_NAME, "%s", x->name);
		apenet_mib_set_str(t, i, APENET_MIB_SENSOR_UNIT, "%s", x->unit);
		double mv = x->value * 1000;
		apenet_mib_set_int(t, i, APENET_MIB_SENSOR_VALUE,
				   !isfinite(mv) ? 0 : mv > 2147483647.0 ? 2147483647 : mv < -2147483648.0 ? -2147483648LL
										: llround(mv));
		apenet_mib_set_int(t, i, APENET_MIB_SENSOR_PRESENT, x->present ? 1 : 2);
		limit(t, i, APENET_MIB_SENSOR_LOW_WARN, x->low_warn);
		limit(t, i, APENET_MIB_SENSOR_LOW_FAIL, x->low_fail);
		limit(t, i, APENET_MIB_SENSOR_HIGH_WARN, x->high_warn);
		limit(t, i, APENET_MIB_SENSOR_HIGH_FAIL, x->high_fail);
		apenet_mib_set_int(t, i, APENET_MIB_SENSOR_SEVERITY, sev_of(x->sev));
	}
}

static void fill_wd(struct apenet_mib_tab *t, const struct apenet_mib_node_in *in)
{
	const struct apenet_snapshot *s = &in->v->s1;
	apenet_mib_set_int(t, 0, APENET_MIB_WATCHDOG_ENABLED, APENET_GET(WD_CTRL, ENABLE, s->g.WD_CTRL) ? 1 : 2);
	apenet_mib_set_u(t, 0, APENET_MIB_WATCHDOG_PERIOD, s->g.WD_PERIOD_US);
	apenet_mib_set_u(t, 0, APENET_MIB_WATCHDOG_TIMEOUT_BEATS, s->g.WD_TIMEOUT_BEATS);
	apenet_mib_set_u(t, 0, APENET_MIB_WATCHDOG_HOST_BEAT, in->host_hb ? in->host_hb : s->g.WD_HOST_HB);
	apenet_mib_set_u(t, 0, APENET_MIB_WATCHDOG_DNP_BEAT, s->g.WD_DNP_HB);
	unsigned dnp = in->wd ? (in->wd->card > in->wd->dnp ? in->wd->card : in->wd->dnp) : APENET_H_NORMAL;
	unsigned host = APENET_GET(WD_STATUS, HOST_EXPIRED, s->g.WD_STATUS) ? APENET_H_BROKEN : APENET_H_NORMAL;
	apenet_mib_set_int(t, 0, APENET_MIB_WATCHDOG_DNP_STATE, status_of(dnp));
	apenet_mib_set_int(t, 0, APENET_MIB_WATCHDOG_HOST_STATE, status_of(host));
	apenet_mib_set_u(t, 0, APENET_MIB_WATCHDOG_EXPIRE_COUNT, s->g.WD_EXPIRE_COUNT);
}

/* ApenetCertResult: none(1) pass(2) fail(3) inconclusive(4) */
static int64_t cert_result(const char *v)
{
	return !strcmp(v, "pass") ? 2 : !strcmp(v, "fail") ? 3 : !strcmp(v, "inconclusive") ? 4 : 1;
}

static void fill_cert(struct apenet_mib_tab *t, unsigned l, const struct apenet_mib_node_in *in)
{
	const struct apenet_hdb_cert *c = in->cert ? in->cert[l] : NULL;
	char b[40];
	apenet_mib_set_str(t, l, APENET_MIB_CERT_SERIAL, "%s", in->serial ? in->serial[l] : "");
	apenet_mib_set_int(t, l, APENET_MIB_CERT_VERDICT, c ? cert_result(c->verdict) : 1);
	limit(t, l, APENET_MIB_CERT_UPPER, c ? c->upper : NAN);
	limit(t, l, APENET_MIB_CERT_TARGET, c ? c->target : NAN);
	apenet_mib_set_u(t, l, APENET_MIB_CERT_BITS, c ? c->bits : 0);
	apenet_mib_set_u(t, l, APENET_MIB_CERT_ERRORS, c ? c->errors : 0);
	apenet_mib_set_int(t, l, APENET_MIB_CERT_SWEPT, c && c->swept ? 1 : 2);
	apenet_mib_set_u(t, l, APENET_MIB_CERT_TIME, c && c->finished_ms > 0 ? (uint64_t)(c->finished_ms / 1000) : 0);
	if (c && c->has_far)
		xyz_text(b, sizeof(b), c->far);
	else
		b[0] = 0;
	apenet_mib_set_str(t, l, APENET_MIB_CERT_FAR_NODE, "%s", b);
	apenet_mib_set_str(t, l, APENET_MIB_CERT_FAR_LINK, "%s", c && c->has_far ? c->far_link : "");
}

/* Lane k of link l's receiver (row r of apenetModuleTable): its power and
 * the module's low thresholds, in mW; empty where the module has none. */
static void fill_module(struct apenet_mib_tab *t, unsigned r, unsigned l, unsigned k,
			const struct apenet_mib_node_in *in)
{
	const struct apenet_module_health *h = in->module ? in->module[l] : NULL;
	const struct apenet_module_mon *rx = h ? &h->mon[APENET_MON_RX_POWER] : NULL;
	int have = rx && !h->copper && rx->present && k < h->lanes && k < APENET_MODULE_MAX_LANES;
	int th = have && rx->thresh_ok;
	limit(t, r, APENET_MIB_MODULE_RX_POWER, have ? rx->value[k] : NAN);
	limit(t, r, APENET_MIB_MODULE_RX_POWER_LOW_WARN, th ? rx->th.low_warn : NAN);
	limit(t, r, APENET_MIB_MODULE_RX_POWER_LOW_ALARM, th ? rx->th.low_alarm : NAN);
}

void apenet_mib_node_fill(struct apenet_mib *m, const struct apenet_mib_node_in *in)
{
	if (m->ntab != T_N || !in->v || !in->v->prof)
		return;
	const struct apenet_view *v = in->v;
	unsigned nl = v->s1.nlinks < m->tab[T_LINK].nrows ? v->s1.nlinks : m->tab[T_LINK].nrows;
	fill_card(&m->tab[T_CARD], in);
	unsigned lane_row = 0;
	for (unsigned l = 0; l < nl; l++) {
		for (unsigned k = 0, r = lane_row; k < v->prof->links[l].lanes && r < m->tab[T_MODULE].nrows; k++, r++)
			fill_module(&m->tab[T_MODULE], r, l, k, in);
		fill_link(m, l, &lane_row, in);
		fill_ldm_word(&m->tab[T_LDM], l + 1, (uint32_t)v->s1.link[l].LINK_LDM_RX);
		fill_cert(&m->tab[T_CERT], l, in);
	}
	/* the card's own word, as its DNP sends it */
	struct apenet_mib_tab *d = &m->tab[T_LDM];
	unsigned xyz[3] = { APENET_GET(NODE_COORD, X, v->s1.g.NODE_COORD), APENET_GET(NODE_COORD, Y, v->s1.g.NODE_COORD),
			    APENET_GET(NODE_COORD, Z, v->s1.g.NODE_COORD) };
	char b[40];
	xyz_text(b, sizeof(b), xyz);
	apenet_mib_set_str(d, 0, APENET_MIB_LDM_SOURCE, "%s", "own");
	apenet_mib_set_str(d, 0, APENET_MIB_LDM_NODE, "%s", b);
	apenet_mib_set_u(d, 0, APENET_MIB_LDM_AGE, 0);
	fill_ldm_word(d, 0, (uint32_t)v->s1.g.LDM_OWN);
	fill_sensors(&m->tab[T_SENSOR], in);
	fill_wd(&m->tab[T_WD], in);
}
