/*
 * One JSON shape for a link, written by `link`, `status` and `snapshot`
 * alike: identity, state, partner and expected partner, its verdict (the
 * worst finding on it), rates, errors with the counts behind them,
 * counters, FIFO, the last LDM heard and every lane.  People and
 * spreadsheets get one row a link instead (cli_out_link_row).
 */
#include <math.h>
#include <stdio.h>

#include "apenet/config.h"
#include "apenet/verdict.h"
#include "cli.h"

static void out_peer(struct apenet_out *o, const char *key, int valid, int ext, const unsigned xyz[3], unsigned port,
		     const struct apenet_profile *p, const struct apenet_config *cfg)
{
	char t[160];
	if (!valid) {
		apenet_out_obj_begin_text(o, key, "-");
		apenet_out_null(o, "node");
		apenet_out_null(o, "link");
		apenet_out_bool(o, "external", 0);
		apenet_out_obj_end(o);
		return;
	}
	if (ext) {
		apenet_out_obj_begin_text(o, key, "external device");
		apenet_out_null(o, "node");
		apenet_out_null(o, "link");
		apenet_out_bool(o, "external", 1);
		apenet_out_obj_end(o);
		return;
	}
	const char *pname = port < p->nlinks ? p->links[port].name : "?";
	const char *name = apenet_config_node_name(cfg, xyz[0], xyz[1], xyz[2]);
	snprintf(t, sizeof(t), "%s%s%u,%u,%u %s", name ? name : "", name ? " " : "", xyz[0], xyz[1], xyz[2], pname);
	apenet_out_obj_begin_text(o, key, t);
	cli_out_xyz(o, "node", xyz);
	apenet_out_str(o, "link", pname);
	apenet_out_uint(o, "port", port);
	apenet_out_str(o, "name", name);
	apenet_out_bool(o, "external", 0);
	apenet_out_obj_end(o);
}

void cli_out_link(struct apenet_out *o, const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		  const struct apenet_findings *fs, const struct apenet_config *cfg)
{
	const struct apenet_snap_link *b = &v->s1.link[l];
	const struct apenet_link_profile *lp = &v->prof->links[l];
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", lp->name);
	apenet_out_uint(o, "index", l);
	apenet_out_str(o, "state", apenet_link_state_name(st->state));
	apenet_out_str(o, "phase", apenet_phase_name(st->phase));
	apenet_out_strf(o, "lanes_up", "%u/%u", (unsigned)__builtin_popcount(st->lanes_up), st->nlanes);
	apenet_out_dbl(o, "lane_gbps", (double)b->LINK_LANE_MBPS / 1000, 3);
	out_peer(o, "partner", st->partner_valid, st->partner_ext, st->partner, st->partner_port, v->prof, cfg);
	out_peer(o, "expected", st->expect_valid, lp->dir == APENET_DIR_EXT, st->expect, st->expect_port, v->prof, cfg);
	apenet_verdict_write(o, "verdict", fs, (int)l);
	apenet_out_obj_begin(o, "rates");
	apenet_out_dbl(o, "interval_s", st->dt, 3);
	apenet_out_dbl(o, "tx_MBps", st->tx_Bps / 1e6, 1);
	apenet_out_dbl(o, "rx_MBps", st->rx_Bps / 1e6, 1);
	apenet_out_dbl(o, "tx_pps", st->tx_pps, 0);
	apenet_out_dbl(o, "rx_pps", st->rx_pps, 0);
	apenet_out_dbl(o, "model_max_MBps", st->max_MBps, 1);
	apenet_out_dbl(o, "utilization_pct", st->util * 100, 1);
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, "errors");
	apenet_out_bool(o, "judged", st->up_whole);
	apenet_out_uint(o, "crc_in_interval", st->crc_events);
	apenet_out_dbl(o, "crc_per_min", st->crc_per_min, 2);
	apenet_out_dbl(o, "retrans_per_min", st->retrans_per_min, 2);
	apenet_out_dbl(o, "payload_per_min", st->payload_per_min, 2);
	apenet_out_uint(o, "down_events_in_interval", st->down_delta);
	apenet_out_uint(o, "align_restarts_in_interval", st->restarts_delta);
	apenet_out_obj_end(o);
	apenet_out_obj_begin(o, "counters");
	apenet_out_dbl(o, "since_clear_s", st->since_clear_s, 1);
	apenet_out_uint(o, "tx_pkts", b->LINK_TX_PKTS);
	apenet_out_uint(o, "tx_bytes", b->LINK_TX_BYTES);
	apenet_out_uint(o, "rx_pkts", b->LINK_RX_PKTS);
	apenet_out_uint(o, "rx_bytes", b->LINK_RX_BYTES);
	apenet_out_uint(o, "hdr_crc_err", b->LINK_HDR_CRC_ERR);
	apenet_out_uint(o, "ftr_crc_err", b->LINK_FTR_CRC_ERR);
	apenet_out_uint(o, "retrans", b->LINK_RETRANS);
	apenet_out_uint(o, "payload_err", b->LINK_PAYLOAD_ERR);
	apenet_out_uint(o, "credits_tx", b->LINK_CREDITS_TX);
	apenet_out_uint(o, "credits_rx", b->LINK_CREDITS_RX);
	apenet_out_uint(o, "down_events", b->LINK_DOWN_EVENTS);
	apenet_out_uint(o, "align_restarts", b->LINK_ALIGN_RESTARTS);
	apenet_out_uint(o, "stall_cycles", b->LINK_STALL_CYCLES);
	apenet_out_obj_end(o);
	apenet_out_dbl(o, "up_for_s", st->up_for_s >= 0 ? st->up_for_s : NAN, 1);
	apenet_out_obj_begin(o, "fifo");
	apenet_out_uint(o, "depth_words", b->LINK_FIFO_DEPTH);
	apenet_out_uint(o, "level_vc0", b->LINK_FIFO_LVL0);
	apenet_out_uint(o, "level_vc1", b->LINK_FIFO_LVL1);
	apenet_out_uint(o, "hwm_vc0", b->LINK_FIFO_HWM0);
	apenet_out_uint(o, "hwm_vc1", b->LINK_FIFO_HWM1);
	apenet_out_uint(o, "t_red", b->LINK_T_RED);
	apenet_out_uint(o, "t_yel", b->LINK_T_YEL);
	apenet_out_uint(o, "credit_period", b->LINK_CREDIT_PERIOD);
	apenet_out_bool(o, "hwm_rose_in_interval", st->fifo_hwm_rose);
	apenet_out_obj_end(o);
	if (b->LINK_LDM_RX_COUNT) {
		cli_out_ldm(o, "ldm_rx", (uint32_t)b->LINK_LDM_RX);
		apenet_out_dbl(o, "ldm_age_ms", st->ldm_age_s * 1000, 1);
	} else {
		apenet_out_null(o, "ldm_rx");
		apenet_out_null(o, "ldm_age_ms");
	}
	apenet_out_arr_begin(o, "lanes");
	for (unsigned k = 0; k < lp->lanes; k++) {
		const struct apenet_snap_lane *ln = &b->lane[k];
		apenet_out_obj_begin(o, NULL);
		apenet_out_uint(o, "lane", k);
		apenet_out_str(o, "phase", apenet_phase_name(APENET_GET(LANE_STATE, PHASE, ln->LANE_STATE)));
		apenet_out_bool(o, "up", (st->lanes_up >> k) & 1u);
		apenet_out_bool(o, "signal", APENET_GET(LANE_STATE, SIGNAL, ln->LANE_STATE));
		apenet_out_uint(o, "align_restarts", ln->LANE_ALIGN_RESTARTS);
		apenet_out_uint(o, "code_violations", ln->LANE_CODE_VIOL);
		apenet_out_uint(o, "disparity_errors", ln->LANE_DISP_ERR);
		apenet_out_uint(o, "errors_in_interval", st->lane_err_events[k]);
		apenet_out_dbl(o, "errors_per_min", st->lane_err_per_min[k], 2);
		char t[64];
		snprintf(t, sizeof(t), "%llu/%llu/%llu/%llu/%llu/%llu", (unsigned long long)ln->LANE_PMA_VOD,
			 (unsigned long long)ln->LANE_PMA_PRE, (unsigned long long)ln->LANE_PMA_POST1,
			 (unsigned long long)ln->LANE_PMA_POST2, (unsigned long long)ln->LANE_PMA_RXEQ,
			 (unsigned long long)ln->LANE_PMA_DCGAIN);
		apenet_out_obj_begin_text(o, "pma", t);
		apenet_out_uint(o, "vod", ln->LANE_PMA_VOD);
		apenet_out_uint(o, "pre", ln->LANE_PMA_PRE);
		apenet_out_uint(o, "post1", ln->LANE_PMA_POST1);
		apenet_out_uint(o, "post2", ln->LANE_PMA_POST2);
		apenet_out_uint(o, "rxeq", ln->LANE_PMA_RXEQ);
		apenet_out_uint(o, "dcgain", ln->LANE_PMA_DCGAIN);
		apenet_out_obj_end(o);
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_end(o);
}

void cli_out_link_row(struct apenet_out *o, const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		      const struct apenet_findings *fs, const struct apenet_config *cfg)
{
	const struct apenet_link_profile *lp = &v->prof->links[l];
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "link", lp->name);
	apenet_out_str(o, "state", apenet_link_state_name(st->state));
	apenet_out_strf(o, "lanes", "%u/%u", (unsigned)__builtin_popcount(st->lanes_up), st->nlanes);
	out_peer(o, "partner", st->partner_valid, st->partner_ext, st->partner, st->partner_port, v->prof, cfg);
	apenet_out_dbl(o, "tx_MBps", st->tx_Bps / 1e6, 1);
	apenet_out_dbl(o, "rx_MBps", st->rx_Bps / 1e6, 1);
	apenet_out_dbl(o, "max_MBps", st->max_MBps, 0);
	apenet_out_dbl(o, "crc_per_min", st->crc_per_min, 1);
	apenet_out_uint(o, "flaps", st->down_delta);
	/* what the neighbour last said, as status always showed it */
	if (v->s1.link[l].LINK_LDM_RX_COUNT)
		cli_out_ldm(o, "ldm_rx", (uint32_t)v->s1.link[l].LINK_LDM_RX);
	else
		apenet_out_null(o, "ldm_rx");
	long at;
	enum apenet_sev sev = apenet_findings_worst_at(fs, (int)l, &at);
	apenet_out_str(o, "severity", apenet_sev_name(sev));
	apenet_out_str(o, "code", at >= 0 ? fs->f[at].code : "OK");
	apenet_out_obj_end(o);
}

