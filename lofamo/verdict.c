/*
 * Local fault rules: a board view in, verdicts out.  Every rule reads only
 * what a real card offers (registers, config space) and compares it with a
 * threshold of the config (docs/config.md).  Codes: docs/verdicts.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apenet/linkmodel.h"
#include "apenet/pcie.h"
#include "apenet/verdict.h"

void apenet_verdict_init(struct apenet_verdict *v)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->code, sizeof(v->code), "OK");
}

void apenet_verdict_add(struct apenet_verdict *v, enum apenet_sev sev, const char *code, const char *fmt, ...)
{
	if (v->n < APENET_MAX_FINDINGS) {
		struct apenet_vfinding *f = &v->f[v->n++];
		va_list ap;
		f->sev = sev;
		snprintf(f->code, sizeof(f->code), "%s", code);
		va_start(ap, fmt);
		vsnprintf(f->text, sizeof(f->text), fmt, ap);
		va_end(ap);
		if (sev > v->sev || !strcmp(v->code, "OK")) {
			if (sev > v->sev || v->sev == APENET_SEV_OK) {
				v->sev = sev;
				snprintf(v->code, sizeof(v->code), "%s", f->code);
				snprintf(v->rec, sizeof(v->rec), "%s", f->text);
			}
		}
	}
}

void apenet_node_label(const struct apenet_config *cfg, const unsigned xyz[3], char *buf, size_t n)
{
	const char *name = cfg ? apenet_config_node_name(cfg, xyz[0], xyz[1], xyz[2]) : NULL;
	if (name)
		snprintf(buf, n, "node %s (%u,%u,%u)", name, xyz[0], xyz[1], xyz[2]);
	else
		snprintf(buf, n, "node %u,%u,%u", xyz[0], xyz[1], xyz[2]);
}

/* The torus neighbour link l should face, by this node's coordinates. */
static void expected_partner(const struct apenet_view *v, unsigned l, struct apenet_link_stats *st)
{
	const struct apenet_snapshot *s = &v->s1;
	unsigned me[3] = { APENET_GET(NODE_COORD, X, s->g.NODE_COORD), APENET_GET(NODE_COORD, Y, s->g.NODE_COORD),
			   APENET_GET(NODE_COORD, Z, s->g.NODE_COORD) };
	unsigned dims[3] = { APENET_GET(TORUS_DIMS, X, s->g.TORUS_DIMS), APENET_GET(TORUS_DIMS, Y, s->g.TORUS_DIMS),
			     APENET_GET(TORUS_DIMS, Z, s->g.TORUS_DIMS) };
	enum apenet_dir back;
	int dim, wrap;
	st->expect_valid = 0;
	if (apenet_torus_neighbour(dims, me, v->prof->links[l].dir, st->expect, &back, &dim, &wrap))
		return;
	int port = apenet_profile_link_dir(v->prof, back); /* the far node is taken to be the same variant */
	if (port < 0)
		return;
	st->expect_wrap = wrap;
	st->expect_dim = dim;
	st->expect_port = (unsigned)port;
	st->expect_valid = 1;
}

static double per_min(uint64_t d, double dt)
{
	return dt > 0 ? (double)d * 60.0 / dt : 0;
}

void apenet_link_stats(const struct apenet_view *v, unsigned l, struct apenet_link_stats *st)
{
	const struct apenet_snap_link *a = &v->s0.link[l], *b = &v->s1.link[l];
	const struct apenet_link_profile *lp = &v->prof->links[l];
	memset(st, 0, sizeof(*st));
	st->dt = apenet_view_dt(v);
	st->state = APENET_GET(LINK_STATE, STATE, b->LINK_STATE);
	st->phase = APENET_GET(LINK_STATE, PHASE, b->LINK_STATE);
	st->lanes_up = APENET_GET(LINK_STATE, LANES_UP, b->LINK_STATE);
	st->lanes_used = APENET_GET(LINK_STATE, LANES_USED, b->LINK_STATE);
	st->nlanes = lp->lanes;
	st->prbs = st->state == APENET_LINK_PRBS;
	double dt = st->dt;
	if (dt > 0) {
		st->tx_Bps = (double)apenet_view_delta(a->LINK_TX_BYTES, b->LINK_TX_BYTES) / dt;
		st->rx_Bps = (double)apenet_view_delta(a->LINK_RX_BYTES, b->LINK_RX_BYTES) / dt;
		st->tx_pps = (double)apenet_view_delta(a->LINK_TX_PKTS, b->LINK_TX_PKTS) / dt;
		st->rx_pps = (double)apenet_view_delta(a->LINK_RX_PKTS, b->LINK_RX_PKTS) / dt;
	}
	st->crc_per_min = per_min(apenet_view_delta(a->LINK_HDR_CRC_ERR, b->LINK_HDR_CRC_ERR) +
				  apenet_view_delta(a->LINK_FTR_CRC_ERR, b->LINK_FTR_CRC_ERR), dt);
	st->retrans_per_min = per_min(apenet_view_delta(a->LINK_RETRANS, b->LINK_RETRANS), dt);
	st->payload_per_min = per_min(apenet_view_delta(a->LINK_PAYLOAD_ERR, b->LINK_PAYLOAD_ERR), dt);
	st->down_delta = apenet_view_delta(a->LINK_DOWN_EVENTS, b->LINK_DOWN_EVENTS);
	st->restarts_delta = apenet_view_delta(a->LINK_ALIGN_RESTARTS, b->LINK_ALIGN_RESTARTS);
	for (unsigned k = 0; k < lp->lanes; k++) {
		const struct apenet_snap_lane *la = &a->lane[k], *lb = &b->lane[k];
		st->lane_err_per_min[k] = per_min(apenet_view_delta(la->LANE_CODE_VIOL, lb->LANE_CODE_VIOL) +
						  apenet_view_delta(la->LANE_DISP_ERR, lb->LANE_DISP_ERR), dt);
		st->lane_restarts[k] = lb->LANE_ALIGN_RESTARTS;
	}
	uint64_t since = v->s1.g.CNT_CLEAR_TS > v->s1.g.UPTIME_TS ? v->s1.g.CNT_CLEAR_TS : v->s1.g.UPTIME_TS;
	st->since_clear_s = v->s1.g.TIMESTAMP > since ? apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - since) : 0;
	unsigned up = 0;
	for (unsigned k = 0; k < lp->lanes; k++)
		up += (st->lanes_up >> k) & 1u;
	struct apenet_linkmodel m = {
		.fifo_bytes = (double)b->LINK_FIFO_DEPTH * APENET_WORD_BYTES,
		.lane_mbps = (double)b->LINK_LANE_MBPS,
		.lanes = up,
		.code_rate = lp->enc == APENET_ENC_64B66B ? 64.0 / 66 : 0.8,
		.c = (unsigned)b->LINK_CREDIT_PERIOD,
	};
	if (apenet_linkmodel_eval(&m) == 0) {
		st->max_MBps = m.max_MBps;
		st->util = m.max_MBps > 0 ? st->rx_Bps / (m.max_MBps * 1e6) : 0;
	}
	uint32_t p = (uint32_t)b->LINK_PARTNER;
	st->partner_valid = (int)APENET_GET(LINK_PARTNER, VALID, p);
	st->partner_ext = (int)APENET_GET(LINK_PARTNER, EXTERNAL, p);
	st->partner[0] = APENET_GET(LINK_PARTNER, X, p);
	st->partner[1] = APENET_GET(LINK_PARTNER, Y, p);
	st->partner[2] = APENET_GET(LINK_PARTNER, Z, p);
	st->partner_port = APENET_GET(LINK_PARTNER, PORT, p);
	expected_partner(v, l, st);
	st->ldm_valid = apenet_ldm_decode((uint32_t)b->LINK_LDM_RX, &st->ldm) == 0;
	st->ldm_age_s = b->LINK_LDM_RX_TS && v->s1.g.TIMESTAMP >= b->LINK_LDM_RX_TS
				? apenet_ticks_to_s(&v->s1, v->s1.g.TIMESTAMP - b->LINK_LDM_RX_TS)
				: -1;
	double tred = (double)b->LINK_T_RED;
	double hwm = (double)(b->LINK_FIFO_HWM0 > b->LINK_FIFO_HWM1 ? b->LINK_FIFO_HWM0 : b->LINK_FIFO_HWM1);
	st->fifo_hwm_pct = tred > 0 ? 100.0 * hwm / tred : 0;
}

static const char *port_name(const struct apenet_profile *p, unsigned port)
{
	return port < p->nlinks ? p->links[port].name : "?";
}

static void fmt_duration(double s, char *buf, size_t n)
{
	if (s < 120)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.0f min", s / 60);
	else
		snprintf(buf, n, "%.1f h", s / 3600);
}

void apenet_rules_link(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		       const struct apenet_config *cfg, struct apenet_verdict *out)
{
	const struct apenet_thresholds *t = &cfg->thr;
	const char *name = v->prof->links[l].name;
	char peer[128], dur[32];
	int ext = v->prof->links[l].dir == APENET_DIR_EXT;
	apenet_verdict_init(out);
	if (st->expect_valid)
		apenet_node_label(cfg, st->expect, peer, sizeof(peer));
	else
		snprintf(peer, sizeof(peer), "%s", ext ? "the external device" : "its partner");
	int expected = st->expect_valid || ext;
	/* wraparound switched off in the cluster layout: an edge expects no cable */
	if (st->expect_valid && cfg->cl.have && st->expect_wrap && !cfg->cl.wrap[st->expect_dim])
		expected = 0;

	switch (st->state) {
	case APENET_LINK_PRBS:
		apenet_verdict_add(out, APENET_SEV_WARN, "LINK_PRBS",
				   "%s runs PRBS test patterns: it carries no traffic until the test is stopped", name);
		break;
	case APENET_LINK_DOWN:
		if (!APENET_GET(LINK_CTRL, ENABLE, v->s1.link[l].LINK_CTRL)) {
			apenet_verdict_add(out, APENET_SEV_WARN, "LINK_DISABLED",
					   "%s is switched off (LINK_CTRL.ENABLE = 0): enable it when it should carry traffic",
					   name);
			break;
		}
		if (!expected) {
			if (st->partner_valid)
				break;
			return; /* nothing cabled and nothing expected: ok */
		}
		apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_DOWN",
				   "%s is down, no signal on any lane: check the cable to %s (plugged? that end powered?)",
				   name, peer);
		break;
	case APENET_LINK_TRAINING: {
		unsigned worst = APENET_PHASE_UP, lane = 0;
		for (unsigned k = 0; k < st->nlanes; k++) {
			unsigned ph = APENET_GET(LANE_STATE, PHASE, v->s1.link[l].lane[k].LANE_STATE);
			if (ph < worst) {
				worst = ph;
				lane = k;
			}
		}
		if (worst == APENET_PHASE_UP)
			apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_TRAINING",
					   "%s is not up although its lanes are: the link-level deskew did not finish; realign "
					   "it, and if it stays so, reseat the cable to %s", name, peer);
		else
			apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_TRAINING",
					   "%s is not up: lane %u is in %s with %llu alignment restarts; if it stays so, "
					   "reseat or replace the cable to %s", name, lane, apenet_phase_name(worst),
					   (unsigned long long)st->lane_restarts[lane], peer);
		break;
	}
	case APENET_LINK_DEGRADED: {
		char lanes[32] = "";
		size_t n = 0;
		for (unsigned k = 0; k < st->nlanes; k++)
			if (((st->lanes_used >> k) & 1u) && !((st->lanes_up >> k) & 1u))
				n += (size_t)snprintf(lanes + n, sizeof(lanes) - n, "%s%u", n ? "," : "", k);
		unsigned up = (unsigned)__builtin_popcount(st->lanes_up);
		apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_DEGRADED",
				   "%s runs on %u of %u lanes (%s %s down, bandwidth %.0f MB/s at most): reseat or replace "
				   "the cable to %s, then realign", name, up, st->nlanes, strchr(lanes, ',') ? "lanes" : "lane",
				   lanes, st->max_MBps, peer);
		break;
	}
	default:
		break;
	}
	if (st->down_delta >= t->flaps_fail) {
		char times[32] = "once";
		if (st->down_delta != 1)
			snprintf(times, sizeof(times), "%llu times", (unsigned long long)st->down_delta);
		apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_FLAPPING",
				   "%s went down %s in %.1f s: a marginal cable; replace the cable to %s", name, times,
				   st->dt, peer);
	}
	/* the partner: who the ALIGN OK words say is at the other end */
	if (st->partner_valid && !st->partner_ext && st->expect_valid && expected &&
	    (memcmp(st->partner, st->expect, sizeof(st->expect)) || st->partner_port != st->expect_port)) {
		char seen[128];
		apenet_node_label(cfg, st->partner, seen, sizeof(seen));
		apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_MISCABLED",
				   "%s is cabled to %s port %s, expected %s port %s: a swapped or crossed cable (apenet "
				   "cabling lists them all)", name, seen, port_name(v->prof, st->partner_port), peer,
				   port_name(v->prof, st->expect_port));
	} else if (st->partner_valid && !expected) {
		char seen[128];
		apenet_node_label(cfg, st->partner, seen, sizeof(seen));
		apenet_verdict_add(out, APENET_SEV_WARN, "LINK_UNEXPECTED",
				   "%s is cabled to %s, but the cluster layout expects no cable there", name, seen);
	}
	/* errors */
	unsigned wl = 0;
	for (unsigned k = 1; k < st->nlanes; k++)
		if (st->lane_err_per_min[k] > st->lane_err_per_min[wl])
			wl = k;
	char where[96] = "";
	if (st->lane_err_per_min[wl] > 0)
		snprintf(where, sizeof(where), " (most 8b/10b errors on lane %u)", wl);
	if (st->crc_per_min >= t->crc_fail_per_min)
		apenet_verdict_add(out, APENET_SEV_FAIL, "LINK_CRC",
				   "%s has %.0f CRC errors/min, each retransmitted%s: replace the cable to %s or retune "
				   "its PMA settings", name, st->crc_per_min, where, peer);
	else if (st->crc_per_min >= t->crc_warn_per_min)
		apenet_verdict_add(out, APENET_SEV_WARN, "LINK_CRC",
				   "%s has %.1f CRC errors/min, each retransmitted%s: watch it; test the cable to %s with "
				   "a PRBS BER run", name, st->crc_per_min, where, peer);
	if (st->payload_per_min >= t->payload_warn_per_min)
		apenet_verdict_add(out, APENET_SEV_WARN, "LINK_PAYLOAD",
				   "%s passed %.1f payload errors/min to software (flagged in the footer)", name,
				   st->payload_per_min);
	for (unsigned k = 0; k < st->nlanes; k++) {
		if (st->lane_err_per_min[k] >= t->lane_errors_warn_per_min && st->crc_per_min < t->crc_warn_per_min)
			apenet_verdict_add(out, APENET_SEV_WARN, "LANE_CODE_ERRORS",
					   "lane %u of %s has %.1f 8b/10b errors/min: test the cable to %s with a PRBS "
					   "BER run", k, name, st->lane_err_per_min[k], peer);
		double hours = st->since_clear_s / 3600;
		if (st->lane_restarts[k] >= t->align_restarts_warn && hours > 0 &&
		    (double)st->lane_restarts[k] / hours >= t->align_restarts_warn_per_hour) {
			fmt_duration(st->since_clear_s, dur, sizeof(dur));
			apenet_verdict_add(out, APENET_SEV_WARN, "LANE_ALIGN_RESTARTS",
					   "lane %u of %s has lost alignment %llu times in %s: reseat or replace the "
					   "cable to %s", k, name, (unsigned long long)st->lane_restarts[k], dur, peer);
		}
	}
	/* what the neighbour says, and whether it still speaks */
	int up = st->state == APENET_LINK_UP || st->state == APENET_LINK_DEGRADED;
	const struct apenet_snapshot *me = &v->s1;
	int self = st->partner_valid && !st->partner_ext && st->partner[0] == APENET_GET(NODE_COORD, X, me->g.NODE_COORD) &&
		   st->partner[1] == APENET_GET(NODE_COORD, Y, me->g.NODE_COORD) &&
		   st->partner[2] == APENET_GET(NODE_COORD, Z, me->g.NODE_COORD);
	if (up && !ext && !self && v->s1.link[l].LINK_LDM_RX_COUNT > 0) {
		/* LDMs come from whoever is at the other end of the cable: name
		 * the partner the ALIGN OK words identify, which differs from the
		 * expected neighbour when the link is miscabled */
		char from[128];
		if (st->partner_valid && !st->partner_ext)
			apenet_node_label(cfg, st->partner, from, sizeof(from));
		else
			snprintf(from, sizeof(from), "%s", peer);
		double ms = st->ldm_age_s * 1000;
		if (st->ldm_age_s >= 0 && ms >= t->ldm_age_fail_ms)
			apenet_verdict_add(out, APENET_SEV_FAIL, "LDM_STALE",
					   "no diagnostic message from %s for %.1f s while %s is up: its DNP is probably "
					   "hung (check it with apenet status there)", from, ms / 1000, name);
		else if (st->ldm_age_s >= 0 && ms >= t->ldm_age_warn_ms)
			apenet_verdict_add(out, APENET_SEV_WARN, "LDM_STALE",
					   "the last diagnostic message from %s is %.0f ms old", from, ms);
		if (!st->ldm_valid) {
			if (!st->ldm.valid)
				apenet_verdict_add(out, APENET_SEV_WARN, "LDM_INVALID",
						   "the LDM from %s has its valid bit clear (0x%08x)", from, st->ldm.word);
			else if (st->ldm.ninvalid)
				apenet_verdict_add(out, APENET_SEV_WARN, "LDM_INVALID",
						   "the LDM from %s is invalid (0x%08x: %u fields read 11)", from,
						   st->ldm.word, st->ldm.ninvalid);
		} else {
			if (st->ldm.host_expired)
				apenet_verdict_add(out, APENET_SEV_WARN, "NEIGHBOUR_HOST_EXPIRED",
						   "%s reports its host dead (its DNP's watchdog expired)", from);
			for (unsigned f = APENET_LDM_F_SERVICE; f <= APENET_LDM_F_TEMPERATURE; f++)
				if (st->ldm.field[f] != APENET_LDM_NORMAL)
					apenet_verdict_add(out, APENET_SEV_WARN, "NEIGHBOUR_SICK", "%s reports its %s %s",
							   from, apenet_ldm_field_name(f),
							   apenet_ldm_status_name(st->ldm.field[f]));
		}
	}
	if (up && st->fifo_hwm_pct >= t->fifo_hwm_warn_pct)
		apenet_verdict_add(out, APENET_SEV_WARN, "FIFO_HIGH",
				   "%s RX FIFO reached %.0f%% of T_RED: the receiver drains slower than the link delivers",
				   name, st->fifo_hwm_pct);
}

void apenet_rules_board(const struct apenet_view *v, const struct apenet_config *cfg, struct apenet_verdict *out)
{
	const struct apenet_thresholds *t = &cfg->thr;
	const struct apenet_snapshot *s = &v->s1, *a = &v->s0;
	apenet_verdict_init(out);
	double temp = (int32_t)(uint32_t)s->g.SENS_FPGA_TEMP / 1000.0;
	double btemp = (int32_t)(uint32_t)s->g.SENS_BOARD_TEMP / 1000.0;
	if (temp >= t->fpga_temp_fail_c)
		apenet_verdict_add(out, APENET_SEV_FAIL, "FPGA_TEMP",
				   "FPGA at %.1f C (fail at %g C): check the node's cooling and fans now", temp,
				   t->fpga_temp_fail_c);
	else if (temp >= t->fpga_temp_warn_c)
		apenet_verdict_add(out, APENET_SEV_WARN, "FPGA_TEMP", "FPGA at %.1f C (warn at %g C): check the airflow",
				   temp, t->fpga_temp_warn_c);
	if (btemp >= t->board_temp_fail_c)
		apenet_verdict_add(out, APENET_SEV_FAIL, "BOARD_TEMP", "board at %.1f C (fail at %g C)", btemp,
				   t->board_temp_fail_c);
	else if (btemp >= t->board_temp_warn_c)
		apenet_verdict_add(out, APENET_SEV_WARN, "BOARD_TEMP", "board at %.1f C (warn at %g C)", btemp,
				   t->board_temp_warn_c);
	if (s->g.SENS_VCORE_NOM) {
		double droop = 100.0 * ((double)s->g.SENS_VCORE_NOM - (double)s->g.SENS_VCORE) / (double)s->g.SENS_VCORE_NOM;
		if (droop >= t->vdroop_fail_pct)
			apenet_verdict_add(out, APENET_SEV_FAIL, "VCORE_LOW",
					   "core supply %llu mV, %.1f%% under its %llu mV: the card may fail; check the PSU "
					   "and the slot", (unsigned long long)s->g.SENS_VCORE, droop,
					   (unsigned long long)s->g.SENS_VCORE_NOM);
		else if (droop >= t->vdroop_warn_pct)
			apenet_verdict_add(out, APENET_SEV_WARN, "VCORE_LOW", "core supply %llu mV, %.1f%% under its %llu mV",
					   (unsigned long long)s->g.SENS_VCORE, droop, (unsigned long long)s->g.SENS_VCORE_NOM);
	}
	/* a board without the 12 V sensor reads 0: nothing to judge */
	double v12 = s->g.SENS_V12 ? fabs((double)s->g.SENS_V12 - 12000.0) / 120.0 : 0;
	if (v12 >= t->v12_tol_fail_pct)
		apenet_verdict_add(out, APENET_SEV_FAIL, "V12_RANGE", "12 V input at %llu mV (%.1f%% off)",
				   (unsigned long long)s->g.SENS_V12, v12);
	else if (v12 >= t->v12_tol_warn_pct)
		apenet_verdict_add(out, APENET_SEV_WARN, "V12_RANGE", "12 V input at %llu mV (%.1f%% off)",
				   (unsigned long long)s->g.SENS_V12, v12);
	/* the DNP's heartbeat: it must move at least once per period */
	double dt = apenet_view_dt(v), period = (double)s->g.WD_PERIOD_US / 1e6;
	if (period > 0 && dt > 2.5 * period && s->g.WD_DNP_HB == a->g.WD_DNP_HB)
		apenet_verdict_add(out, APENET_SEV_FAIL, "DNP_HUNG",
				   "the DNP's heartbeat stopped (WD_DNP_HB stuck at %llu for %.1f s): its firmware is hung "
				   "and its neighbours hear nothing from it; reset the card",
				   (unsigned long long)s->g.WD_DNP_HB, dt);
	if (APENET_GET(WD_STATUS, HOST_EXPIRED, s->g.WD_STATUS))
		apenet_verdict_add(out, APENET_SEV_WARN, "HOST_EXPIRED",
				   "the DNP declared this host dead after %llu missed heartbeats (is the node agent running?)",
				   (unsigned long long)APENET_GET(WD_STATUS, MISSED, s->g.WD_STATUS));
	struct apenet_ldm own;
	if (apenet_ldm_decode((uint32_t)s->g.LDM_OWN, &own) && s->g.LDM_TX_COUNT)
		apenet_verdict_add(out, APENET_SEV_WARN, "LDM_OWN_INVALID", "this DNP sends an invalid LDM (0x%08x)",
				   own.word);
	if (v->pcie_ok && v->pcie.degraded)
		apenet_verdict_add(out, APENET_SEV_WARN, "PCIE_DEGRADED",
				   "PCIe trained at %s x%u, the card can do %s x%u: host bandwidth is cut; reseat the card "
				   "or move it to a full slot", apenet_pcie_speed_str(v->pcie.sta_gen), v->pcie.sta_width,
				   apenet_pcie_speed_str(v->pcie.cap_gen), v->pcie.cap_width);
	if (v->pcie_ok && v->pcie.has_aer && (v->pcie.aer_uncor_status & ~v->pcie.aer_uncor_mask))
		apenet_verdict_add(out, APENET_SEV_FAIL, "PCIE_AER_UNCORRECTABLE",
				   "uncorrectable PCIe errors logged (AER 0x%08x): check the slot and the card",
				   v->pcie.aer_uncor_status);
	else if (v->pcie_ok && v->pcie.has_aer && (v->pcie.aer_cor_status & ~v->pcie.aer_cor_mask))
		apenet_verdict_add(out, APENET_SEV_WARN, "PCIE_AER_CORRECTABLE", "correctable PCIe errors logged (AER 0x%08x)",
				   v->pcie.aer_cor_status);
	if (!v->pcie_ok && v->pcie_err[0])
		apenet_verdict_add(out, APENET_SEV_WARN, "PCIE_UNREADABLE", "PCIe capability unreadable: %s", v->pcie_err);
}
