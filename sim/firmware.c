/* The firmware model of one board: what the Nios II and the DNP logic do
 * every tick.  It reads what the host wrote into BAR0, runs commands, the
 * DNP side of the watchdog and the sensors, composes the LDM, and publishes
 * the board's state into BAR0 under the GEN seqlock. */
#include <math.h>
#include <string.h>

#include "apenet/ldm.h"
#include "sim.h"

#define BAR32(b, off) ((b)->bar[(off) / 4])
#define BAR64(b, off) (*(volatile uint64_t *)(volatile void *)((b)->bar + (off) / 4))

static void pma_default(const struct apenet_profile *p, struct sim_pma *m)
{
	m->vod = p->pma_default.vod;
	m->pre = p->pma_default.pre;
	m->post1 = p->pma_default.post1;
	m->post2 = p->pma_default.post2;
	m->rxeq = p->pma_default.rxeq;
	m->dcgain = p->pma_default.dcgain;
}

/* Write the host-owned (RW) registers: at power-on from defaults, after a
 * card-gone fault is cleared from the values the firmware last saw. */
static void write_rw(struct sim_board *b)
{
	BAR32(b, APENET_REG_THR_TEMP_SICK) = b->thr_temp_sick;
	BAR32(b, APENET_REG_THR_TEMP_BROKEN) = b->thr_temp_broken;
	BAR32(b, APENET_REG_THR_VDROOP_SICK) = b->thr_vdroop_sick;
	BAR32(b, APENET_REG_THR_VDROOP_BROKEN) = b->thr_vdroop_broken;
	BAR32(b, APENET_REG_THR_ICORE_SICK) = b->thr_icore_sick;
	BAR32(b, APENET_REG_WD_HOST_HB) = b->wd_last_host_hb;
	BAR32(b, APENET_REG_WD_PERIOD_US) = b->wd_period_us;
	BAR32(b, APENET_REG_WD_TIMEOUT_BEATS) = b->wd_timeout;
	BAR32(b, APENET_REG_WD_CTRL) = b->wd_ctrl;
	BAR32(b, APENET_REG_LDM_HOST) = b->ldm_host;
	BAR32(b, APENET_REG_CMD_SEQ) = b->cmd_done_seq;
	BAR32(b, APENET_REG_RMT_ADDR) = b->rmt.addr;
	BAR32(b, APENET_REG_RMT_WDATA) = b->rmt.wdata;
	BAR32(b, APENET_REG_RMT_CTRL) = b->rmt.ctrl;
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		struct sim_link *lk = &b->link[l];
		BAR32(b, apenet_link_off(l, APENET_LINK_CTRL)) = lk->ctrl;
		BAR32(b, apenet_link_off(l, APENET_LINK_T_RED)) = lk->t_red;
		BAR32(b, apenet_link_off(l, APENET_LINK_T_YEL)) = lk->t_yel;
		BAR32(b, apenet_link_off(l, APENET_LINK_CREDIT_PERIOD)) = lk->credit_period;
		for (unsigned k = 0; k < lk->lp->lanes; k++) {
			struct sim_lane *ln = &lk->lane[k];
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_VOD)) = ln->pma.vod;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_PRE)) = ln->pma.pre;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_POST1)) = ln->pma.post1;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_POST2)) = ln->pma.post2;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_RXEQ)) = ln->pma.rxeq;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_DCGAIN)) = ln->pma.dcgain;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_CTRL)) = ln->prbs_ctrl;
			BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_RUN_MS)) = ln->prbs_run_ms;
		}
	}
}

void sim_board_reset_bar(struct sim_board *b)
{
	b->thr_temp_sick = 85000;
	b->thr_temp_broken = 100000;
	b->thr_vdroop_sick = 30;
	b->thr_vdroop_broken = 80;
	b->thr_icore_sick = 15000;
	b->wd_period_us = 100000;
	b->wd_timeout = 3;
	b->wd_ctrl = 0; /* the host agent enables the watchdog when it starts */
	b->vcore_nom = b->prof->id == APENET_V_APENETP || b->prof->id == APENET_V_NANET1 ? 900 : 850;
	b->t_fpga = 45;
	b->t_board = 35;
	memset(&b->rmt, 0, sizeof(b->rmt));
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		struct sim_link *lk = &b->link[l];
		lk->ctrl = 1;
		lk->t_red = SIM_FIFO_WORDS - 256; /* FIFO depth - S_MAX, in 128-bit words (SPEC §2) */
		lk->t_yel = SIM_FIFO_WORDS / 4;
		lk->credit_period = 35;
		lk->load = 0.2 + 0.5 * sim_rng_uniform(&b->rng);
		for (unsigned k = 0; k < lk->lp->lanes; k++)
			pma_default(b->prof, &lk->lane[k].pma);
	}
	memset((void *)b->bar, 0, APENET_BAR_SIZE);
	write_rw(b);
}

/* The host's writes.  Out-of-range PMA values are clamped as the
 * transceiver's reconfiguration controller would; tools validate first. */
static uint8_t clamp8(uint32_t v, uint8_t max)
{
	return v > max ? max : (uint8_t)v;
}

static void read_host(struct sim_board *b)
{
	b->thr_temp_sick = BAR32(b, APENET_REG_THR_TEMP_SICK);
	b->thr_temp_broken = BAR32(b, APENET_REG_THR_TEMP_BROKEN);
	b->thr_vdroop_sick = BAR32(b, APENET_REG_THR_VDROOP_SICK);
	b->thr_vdroop_broken = BAR32(b, APENET_REG_THR_VDROOP_BROKEN);
	b->thr_icore_sick = BAR32(b, APENET_REG_THR_ICORE_SICK);
	uint32_t p = BAR32(b, APENET_REG_WD_PERIOD_US);
	b->wd_period_us = p < 1000 ? 1000 : p > 10000000 ? 10000000 : p;
	uint32_t to = BAR32(b, APENET_REG_WD_TIMEOUT_BEATS);
	b->wd_timeout = to < 1 ? 1 : to > 255 ? 255 : to;
	b->wd_ctrl = BAR32(b, APENET_REG_WD_CTRL);
	b->ldm_host = BAR32(b, APENET_REG_LDM_HOST) & APENET_LDM_HOST_MASK;
	/* The doorbell first, then what it rings for: the host writes
	 * RMT_ADDR and RMT_WDATA before RMT_CTRL, so a new SEQ seen here
	 * guarantees the address and data read after it are that request's.
	 * Read the other way round, a request rung between the two reads ran
	 * with the previous request's address (a read answered from the wrong
	 * register, a write landing on the last register read). */
	b->rmt.ctrl = BAR32(b, APENET_REG_RMT_CTRL);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	b->rmt.addr = BAR32(b, APENET_REG_RMT_ADDR);
	b->rmt.wdata = BAR32(b, APENET_REG_RMT_WDATA);
	const struct apenet_pma_range *r = &b->prof->pma;
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		struct sim_link *lk = &b->link[l];
		lk->ctrl = BAR32(b, apenet_link_off(l, APENET_LINK_CTRL));
		uint32_t red = BAR32(b, apenet_link_off(l, APENET_LINK_T_RED));
		uint32_t yel = BAR32(b, apenet_link_off(l, APENET_LINK_T_YEL));
		lk->t_red = red < 16 ? 16 : red > SIM_FIFO_WORDS ? SIM_FIFO_WORDS : red;
		lk->t_yel = yel >= lk->t_red ? lk->t_red / 2 : yel;
		uint32_t cp = BAR32(b, apenet_link_off(l, APENET_LINK_CREDIT_PERIOD));
		lk->credit_period = cp < 8 ? 8 : cp > 1024 ? 1024 : cp;
		for (unsigned k = 0; k < lk->lp->lanes; k++) {
			struct sim_lane *ln = &lk->lane[k];
			ln->pma.vod = clamp8(BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_VOD)), r->vod);
			ln->pma.pre = clamp8(BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_PRE)), r->pre);
			ln->pma.post1 = clamp8(BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_POST1)), r->post1);
			ln->pma.post2 = clamp8(BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_POST2)), r->post2);
			ln->pma.rxeq = clamp8(BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_RXEQ)), r->rxeq);
			ln->pma.dcgain = clamp8(BAR32(b, apenet_lane_off(l, k, APENET_LANE_PMA_DCGAIN)), r->dcgain);
			ln->prbs_ctrl = BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_CTRL));
			ln->prbs_run_ms = BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_RUN_MS));
		}
		/* PRBS_CTRL.LANES: one write (a far end's, through the remote
		 * window, which goes blind once a lane runs PRBS) sets the
		 * other lanes named too; the field is dropped at publish */
		for (unsigned k = 0; k < lk->lp->lanes; k++) {
			uint32_t c = lk->lane[k].prbs_ctrl, mask = APENET_GET(LANE_PRBS_CTRL, LANES, c);
			if (!mask)
				continue;
			uint32_t base = c & ~APENET_SET(LANE_PRBS_CTRL, LANES, 0xf);
			for (unsigned j = 0; j < lk->lp->lanes; j++)
				if (j != k && (mask & (1u << j))) {
					lk->lane[j].prbs_ctrl = base;
					BAR32(b, apenet_lane_off(l, j, APENET_LANE_PRBS_CTRL)) = base;
				}
		}
	}
}

static void clear_counters(struct sim_torus *t, struct sim_board *b, uint32_t mask)
{
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		if (!(mask & (1u << l)))
			continue;
		struct sim_link *lk = &b->link[l];
		memset(&lk->c, 0, sizeof(lk->c));
		lk->hwm[0] = lk->fifo[0];
		lk->hwm[1] = lk->fifo[1];
		for (unsigned k = 0; k < lk->lp->lanes; k++) {
			lk->lane[k].align_restarts = 0;
			lk->lane[k].code_viol = 0;
			lk->lane[k].disp_err = 0;
		}
	}
	if (mask == APENET_ALL_ONES)
		b->cnt_clear_ts = t->now_ts;
}

static void run_command(struct sim_torus *t, struct sim_board *b)
{
	uint32_t seq = BAR32(b, APENET_REG_CMD_SEQ);
	if (seq == b->cmd_done_seq)
		return;
	__atomic_thread_fence(__ATOMIC_ACQUIRE); /* CODE and ARG were written before SEQ */
	uint32_t code = BAR32(b, APENET_REG_CMD_CODE), arg = BAR32(b, APENET_REG_CMD_ARG);
	b->cmd_result = APENET_CMDERR_OK;
	switch (code) {
	case APENET_CMD_NOP:
		break;
	case APENET_CMD_CLEAR_COUNTERS:
		clear_counters(t, b, arg);
		break;
	case APENET_CMD_REALIGN:
		if (arg >= b->prof->nlinks) {
			b->cmd_result = APENET_CMDERR_BADARG;
			break;
		}
		sim_link_force_down(&b->link[arg]);
		if (b->link[arg].peer_board >= 0)
			sim_link_force_down(&t->b[b->link[arg].peer_board].link[b->link[arg].peer_link]);
		break;
	case APENET_CMD_RESET:
		clear_counters(t, b, APENET_ALL_ONES);
		for (unsigned l = 0; l < b->prof->nlinks; l++) {
			sim_link_force_down(&b->link[l]);
			if (b->link[l].peer_board >= 0)
				sim_link_force_down(&t->b[b->link[l].peer_board].link[b->link[l].peer_link]);
		}
		b->uptime_ts = t->now_ts;
		b->wd_host_hb_ts = t->now_ts; /* the countdown starts afresh */
		b->wd_missed = 0;
		b->wd_expired = 0;
		break;
	default:
		b->cmd_result = APENET_CMDERR_BADCODE;
	}
	b->cmd_done_seq = seq;
}

/* DNP side of the mutual watchdog: a beat of its own every period, and a
 * countdown the host's beats reload, as a hardware watchdog timer works:
 * the host is expired once wd_timeout whole periods pass without a change
 * of WD_HOST_HB, checked at every firmware step rather than only at the
 * DNP's own beats (which would add up to one period to the detection and
 * make it depend on the phase between the two clocks). */
static void watchdog(struct sim_torus *t, struct sim_board *b)
{
	uint32_t hb = BAR32(b, APENET_REG_WD_HOST_HB);
	int enabled = APENET_GET(WD_CTRL, ENABLE, b->wd_ctrl);
	uint64_t period = (uint64_t)b->wd_period_us * (SIM_TS_HZ / 1000000u);
	if (enabled && !b->wd_enabled_prev) /* grace: count from the moment it is enabled */
		b->wd_host_hb_ts = t->now_ts;
	b->wd_enabled_prev = enabled;
	if (hb != b->wd_last_host_hb) {
		b->wd_last_host_hb = hb;
		b->wd_host_hb_ts = t->now_ts;
		b->wd_missed = 0;
		b->wd_expired = 0;
	}
	if (b->wd_next_beat_ts == 0 || b->wd_next_beat_ts > t->now_ts + period)
		b->wd_next_beat_ts = t->now_ts + period;
	while (t->now_ts >= b->wd_next_beat_ts) {
		b->wd_dnp_hb++;
		b->wd_next_beat_ts += period;
	}
	if (!enabled) {
		b->wd_missed = 0;
		b->wd_expired = 0;
		return;
	}
	/* missed beats: whole periods since the host's last beat */
	uint64_t silent = t->now_ts - b->wd_host_hb_ts;
	uint64_t missed = period ? silent / period : 0;
	b->wd_missed = missed > 255 ? 255 : (uint32_t)missed;
	if (b->wd_missed >= b->wd_timeout && !b->wd_expired) {
		b->wd_expired = 1;
		b->wd_expire_count++;
	}
}

static double mean_load(const struct sim_board *b)
{
	double s = 0;
	unsigned n = 0;
	for (unsigned l = 0; l < b->prof->nlinks; l++, n++)
		s += b->link[l].state == APENET_LINK_UP || b->link[l].state == APENET_LINK_DEGRADED ? b->link[l].load : 0;
	return n ? s / n : 0;
}

/* Sensors: a first-order thermal model with drift and noise; droop faults. */
static void sensors(struct sim_board *b, double dt)
{
	double load = mean_load(b);
	b->t_drift += 0.05 * sim_rng_normal(&b->rng) * sqrt(dt);
	if (b->t_drift > 3)
		b->t_drift = 3;
	if (b->t_drift < -3)
		b->t_drift = -3;
	double target = b->overheat_c > 0 ? b->overheat_c : 48 + 18 * load + b->t_drift;
	double tau = b->overheat_c > 0 ? 0.5 : 4.0;
	b->t_fpga += (target - b->t_fpga) * (1 - exp(-dt / tau));
	b->t_board = 33 + 0.5 * (b->t_fpga - 45);
	b->vcore = b->vcore_nom * (1 - b->droop_pct / 100) + 1.5 * sim_rng_normal(&b->rng);
	b->vxcvr = (b->prof->id == APENET_V_APENETP || b->prof->id == APENET_V_NANET1 ? 1100 : 1000) *
		   (1 - b->droop_pct / 200) + 2 * sim_rng_normal(&b->rng);
	b->vio = 2500 + 4 * sim_rng_normal(&b->rng);
	b->v12 = 12050 + 20 * sim_rng_normal(&b->rng);
	b->icore = 5200 + 4800 * load + 60 * sim_rng_normal(&b->rng);
	b->i12 = 1400 + 900 * load + 20 * sim_rng_normal(&b->rng);
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		struct sim_link *lk = &b->link[l];
		if (lk->module.kind != SIM_MOD_OPTICAL)
			continue;
		lk->module.temp_c = b->t_board + 2;
		sim_eeprom_update_dom(&lk->module, lk->ee);
	}
}

static unsigned link_health(const struct sim_link *lk)
{
	switch (lk->state) {
	case APENET_LINK_UP:
		for (unsigned k = 0; k < lk->lp->lanes; k++)
			if (lk->lane[k].ber > 1e-9)
				return APENET_LDM_SICK;
		return APENET_LDM_NORMAL;
	case APENET_LINK_PRBS:
		return APENET_LDM_NORMAL;
	case APENET_LINK_DEGRADED:
		return APENET_LDM_SICK;
	default:
		return APENET_LDM_BROKEN;
	}
}

/* The DNP's own LDM: its view of itself plus the host's fields. */
static uint32_t compose_ldm(const struct sim_board *b)
{
	uint32_t w = b->ldm_host & ~APENET_SET(LDM, HOST_EXPIRED, 1);
	double droop = (b->vcore_nom - b->vcore) / b->vcore_nom * 1000; /* 0.1 % */
	int32_t mc = (int32_t)lround(b->t_fpga * 1000); /* as SENS_FPGA_TEMP shows it */
	w |= APENET_SET(LDM, TEMPERATURE, mc > (int32_t)b->thr_temp_broken ? APENET_LDM_BROKEN
					  : mc > (int32_t)b->thr_temp_sick   ? APENET_LDM_SICK
									     : APENET_LDM_NORMAL);
	w |= APENET_SET(LDM, VOLTAGE, droop > b->thr_vdroop_broken ? APENET_LDM_BROKEN
				      : droop > b->thr_vdroop_sick ? APENET_LDM_SICK
								   : APENET_LDM_NORMAL);
	w |= APENET_SET(LDM, CURRENT, b->icore > b->thr_icore_sick ? APENET_LDM_SICK : APENET_LDM_NORMAL);
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		const struct sim_link *lk = &b->link[l];
		uint32_t h = link_health(lk);
		for (int second = 0; second < 2; second++) {
			int f = apenet_ldm_field_of_dir(lk->lp->dir, second);
			if (f >= 0)
				w |= h << apenet_ldm_field_lsb((unsigned)f);
		}
	}
	if (b->wd_expired && APENET_GET(WD_CTRL, ENABLE, b->wd_ctrl))
		w |= APENET_SET(LDM, HOST_EXPIRED, 1);
	return w | APENET_SET(LDM, VALID, 1);
}

static void publish_link(struct sim_torus *t, struct sim_board *b, unsigned l)
{
	struct sim_link *lk = &b->link[l];
	uint32_t lanes_up = 0, lanes_used = 0, phase = APENET_PHASE_UP;
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		const struct sim_lane *ln = &lk->lane[k];
		lanes_used |= 1u << k;
		if (ln->phase == APENET_PHASE_UP)
			lanes_up |= 1u << k;
		if (!ln->excluded && ln->phase < phase)
			phase = ln->phase;
	}
	uint32_t state = lk->state;
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		if (lk->lane[k].prbs_on && state != APENET_LINK_DOWN)
			state = APENET_LINK_PRBS; /* test patterns replace the link protocol */
	BAR32(b, apenet_link_off(l, APENET_LINK_STATE)) =
		APENET_SET(LINK_STATE, STATE, state) | APENET_SET(LINK_STATE, PHASE, phase) |
		APENET_SET(LINK_STATE, LANES_UP, lanes_up) | APENET_SET(LINK_STATE, LANES_USED, lanes_used);
	BAR32(b, apenet_link_off(l, APENET_LINK_PARTNER)) = sim_link_partner_reg(t, b, l);
	BAR32(b, apenet_link_off(l, APENET_LINK_LANE_MBPS)) = lk->lp->lane_mbps;
	BAR32(b, apenet_link_off(l, APENET_LINK_FIFO_DEPTH)) = SIM_FIFO_WORDS;
	BAR32(b, apenet_link_off(l, APENET_LINK_FIFO_LVL0)) = (uint32_t)lk->fifo[0];
	BAR32(b, apenet_link_off(l, APENET_LINK_FIFO_LVL1)) = (uint32_t)lk->fifo[1];
	BAR32(b, apenet_link_off(l, APENET_LINK_FIFO_HWM0)) = (uint32_t)lk->hwm[0];
	BAR32(b, apenet_link_off(l, APENET_LINK_FIFO_HWM1)) = (uint32_t)lk->hwm[1];
	BAR64(b, apenet_link_off(l, APENET_LINK_TX_PKTS)) = lk->c.tx_pkts;
	BAR64(b, apenet_link_off(l, APENET_LINK_TX_BYTES)) = lk->c.tx_bytes;
	BAR64(b, apenet_link_off(l, APENET_LINK_RX_PKTS)) = lk->c.rx_pkts;
	BAR64(b, apenet_link_off(l, APENET_LINK_RX_BYTES)) = lk->c.rx_bytes;
	BAR64(b, apenet_link_off(l, APENET_LINK_HDR_CRC_ERR)) = lk->c.hdr_crc;
	BAR64(b, apenet_link_off(l, APENET_LINK_FTR_CRC_ERR)) = lk->c.ftr_crc;
	BAR64(b, apenet_link_off(l, APENET_LINK_RETRANS)) = lk->c.retrans;
	BAR64(b, apenet_link_off(l, APENET_LINK_PAYLOAD_ERR)) = lk->c.payload_err;
	BAR64(b, apenet_link_off(l, APENET_LINK_CREDITS_TX)) = lk->c.credits_tx;
	BAR64(b, apenet_link_off(l, APENET_LINK_CREDITS_RX)) = lk->c.credits_rx;
	BAR64(b, apenet_link_off(l, APENET_LINK_DOWN_EVENTS)) = lk->c.down_events;
	BAR64(b, apenet_link_off(l, APENET_LINK_ALIGN_RESTARTS)) = lk->c.align_restarts;
	BAR64(b, apenet_link_off(l, APENET_LINK_STALL_CYCLES)) = lk->c.stall_cycles;
	BAR32(b, apenet_link_off(l, APENET_LINK_LDM_RX)) = lk->ldm_rx;
	BAR32(b, apenet_link_off(l, APENET_LINK_LDM_RX_COUNT)) = lk->ldm_rx_count;
	BAR64(b, apenet_link_off(l, APENET_LINK_LDM_RX_TS)) = lk->ldm_rx_ts;
	BAR64(b, apenet_link_off(l, APENET_LINK_UP_TS)) = lk->up_ts;
	BAR32(b, apenet_link_off(l, APENET_LINK_LATENCY_PS)) =
		lk->state == APENET_LINK_UP || lk->state == APENET_LINK_DEGRADED ? lk->latency_ps : 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		const struct sim_lane *ln = &lk->lane[k];
		BAR32(b, apenet_lane_off(l, k, APENET_LANE_STATE)) =
			APENET_SET(LANE_STATE, PHASE, ln->phase) |
			APENET_SET(LANE_STATE, SIGNAL, ln->phase != APENET_PHASE_RESET);
		BAR32(b, apenet_lane_off(l, k, APENET_LANE_ALIGN_RESTARTS)) = ln->align_restarts;
		BAR64(b, apenet_lane_off(l, k, APENET_LANE_CODE_VIOL)) = ln->code_viol;
		BAR64(b, apenet_lane_off(l, k, APENET_LANE_DISP_ERR)) = ln->disp_err;
		BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_STATUS)) =
			APENET_SET(LANE_PRBS_STATUS, LOCKED, ln->prbs_on && ln->chk.locked) |
			APENET_SET(LANE_PRBS_STATUS, RUNNING, ln->prbs_on) |
			APENET_SET(LANE_PRBS_STATUS, ENDED, ln->prbs_ended) |
			APENET_SET(LANE_PRBS_STATUS, FOLLOWED, ln->prbs_followed) |
			APENET_SET(LANE_PRBS_STATUS, PATTERN, APENET_GET(LANE_PRBS_CTRL, PATTERN, ln->prbs_ctrl));
		/* CLEAR is a command bit: the firmware drops it once done; ENABLE
		 * it drops when the run time is up.  Only if the host (or the
		 * partner, through the remote window) has not written the register
		 * since we read it: a write in between wins. */
		uint32_t drop = (ln->prbs_ctrl & (APENET_SET(LANE_PRBS_CTRL, CLEAR, 1) | APENET_SET(LANE_PRBS_CTRL, LANES, 0xf))) |
				(ln->prbs_stop ? APENET_SET(LANE_PRBS_CTRL, ENABLE, 1) : 0);
		if (drop) {
			uint32_t seen = ln->prbs_ctrl;
			__atomic_compare_exchange_n((uint32_t *)&BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_CTRL)),
						    &seen, seen & ~drop, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
		}
		lk->lane[k].prbs_stop = 0;
		BAR64(b, apenet_lane_off(l, k, APENET_LANE_PRBS_BITS)) = ln->prbs_bits;
		BAR64(b, apenet_lane_off(l, k, APENET_LANE_PRBS_ERRS)) = ln->prbs_errs;
		BAR64(b, apenet_lane_off(l, k, APENET_LANE_PRBS_START_TS)) = ln->prbs_start_ts;
		BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_RXWORD)) = ln->rxword;
		BAR32(b, apenet_lane_off(l, k, APENET_LANE_PRBS_ERRWORD)) = ln->errword;
	}
	/* module EEPROM mirror: refreshed every tick the firmware runs */
	uint32_t ee = apenet_ee_off(l, 0);
	if (lk->lp->has_module && lk->module.kind != SIM_MOD_NONE) {
		for (unsigned i = 0; i < APENET_EE_DATA_LEN; i += 4) {
			uint32_t w = (uint32_t)lk->ee[i] | (uint32_t)lk->ee[i + 1] << 8 | (uint32_t)lk->ee[i + 2] << 16 |
				     (uint32_t)lk->ee[i + 3] << 24;
			BAR32(b, ee + APENET_EE_DATA + i) = w;
		}
		lk->ee_gen++;
		lk->ee_ts = t->now_ts;
		BAR32(b, ee + APENET_EE_STATUS) = APENET_SET(EE_STATUS, PRESENT, 1) | APENET_SET(EE_STATUS, VALID, 1) |
						   APENET_SET(EE_STATUS, LAYOUT, lk->module.form == SIM_FORM_SFP
											 ? APENET_EE_SFF8472
											 : APENET_EE_SFF8636);
	} else {
		BAR32(b, ee + APENET_EE_STATUS) = 0;
	}
	BAR32(b, ee + APENET_EE_GEN) = lk->ee_gen;
	BAR64(b, ee + APENET_EE_TS) = lk->ee_ts;
}

static uint32_t fw_version(const struct apenet_profile *p)
{
	return p->fw_version;
}

void sim_board_publish(struct sim_torus *t, struct sim_board *b)
{
	if (b->gone)
		return;
	/* seqlock: GEN odd while we write */
	b->gen |= 1;
	BAR32(b, APENET_REG_GEN) = b->gen;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	BAR32(b, APENET_REG_ID_MAGIC) = APENET_MAGIC;
	BAR32(b, APENET_REG_ID_VARIANT) = b->prof->id;
	BAR32(b, APENET_REG_ID_FW_VERSION) = fw_version(b->prof);
	BAR32(b, APENET_REG_ID_BUILD) = 0x5eed0000u | (b->prof->id << 8) | 0x2a;
	BAR32(b, APENET_REG_ID_CAPS) = APENET_SET(ID_CAPS, PRBS, 1) | APENET_SET(ID_CAPS, LDM, 1) |
				       APENET_SET(ID_CAPS, WATCHDOG, 1) |
				       APENET_SET(ID_CAPS, HWTLB, b->prof->id == APENET_V_V5) |
				       APENET_SET(ID_CAPS, RMT, !b->no_rmt) | APENET_SET(ID_CAPS, LATENCY, 1) |
				       APENET_SET(ID_CAPS, EMULATED, 1);
	BAR32(b, APENET_REG_BER_ACCEL) = t->ber_accel;
	BAR32(b, APENET_REG_NODE_COORD) = APENET_SET(NODE_COORD, X, b->x) | APENET_SET(NODE_COORD, Y, b->y) |
					  APENET_SET(NODE_COORD, Z, b->z);
	BAR32(b, APENET_REG_TORUS_DIMS) = APENET_SET(TORUS_DIMS, X, t->dims[0]) |
					  APENET_SET(TORUS_DIMS, Y, t->dims[1]) | APENET_SET(TORUS_DIMS, Z, t->dims[2]);
	unsigned maxl = 0;
	for (unsigned l = 0; l < b->prof->nlinks; l++)
		maxl = b->prof->links[l].lanes > maxl ? b->prof->links[l].lanes : maxl;
	BAR32(b, APENET_REG_LINK_CONFIG) = APENET_SET(LINK_CONFIG, LINKS, b->prof->nlinks) |
					   APENET_SET(LINK_CONFIG, LANES, maxl);
	BAR32(b, APENET_REG_TS_FREQ_HZ) = SIM_TS_HZ;
	BAR64(b, APENET_REG_TIMESTAMP) = t->now_ts;
	BAR64(b, APENET_REG_CNT_CLEAR_TS) = b->cnt_clear_ts;
	BAR64(b, APENET_REG_UPTIME_TS) = b->uptime_ts;
	BAR32(b, APENET_REG_SENS_FPGA_TEMP) = (uint32_t)(int32_t)lround(b->t_fpga * 1000);
	BAR32(b, APENET_REG_SENS_BOARD_TEMP) = (uint32_t)(int32_t)lround(b->t_board * 1000);
	BAR32(b, APENET_REG_SENS_VCORE) = (uint32_t)lround(b->vcore);
	BAR32(b, APENET_REG_SENS_VXCVR) = (uint32_t)lround(b->vxcvr);
	BAR32(b, APENET_REG_SENS_VIO) = (uint32_t)lround(b->vio);
	BAR32(b, APENET_REG_SENS_V12) = (uint32_t)lround(b->v12);
	BAR32(b, APENET_REG_SENS_ICORE) = (uint32_t)lround(b->icore);
	BAR32(b, APENET_REG_SENS_I12) = (uint32_t)lround(b->i12);
	BAR32(b, APENET_REG_SENS_VCORE_NOM) = (uint32_t)lround(b->vcore_nom);
	BAR32(b, APENET_REG_WD_DNP_HB) = b->wd_dnp_hb;
	BAR32(b, APENET_REG_WD_STATUS) = APENET_SET(WD_STATUS, HOST_EXPIRED, b->wd_expired) |
					 APENET_SET(WD_STATUS, ENABLED, APENET_GET(WD_CTRL, ENABLE, b->wd_ctrl)) |
					 APENET_SET(WD_STATUS, MISSED, b->wd_missed);
	BAR32(b, APENET_REG_WD_EXPIRE_COUNT) = b->wd_expire_count;
	BAR64(b, APENET_REG_WD_HOST_HB_TS) = b->wd_host_hb_ts;
	BAR32(b, APENET_REG_LDM_OWN) = b->ldm_own;
	BAR32(b, APENET_REG_LDM_TX_COUNT) = b->ldm_tx_count;
	/* A command's and a remote request's results before the sequence
	 * numbers that say they are done: a host that sees its SEQ reads the
	 * rest next, and must not get the previous request's answer. */
	BAR32(b, APENET_REG_CMD_RESULT) = b->cmd_result;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	BAR32(b, APENET_REG_CMD_DONE_SEQ) = b->cmd_done_seq;
	if (!b->no_rmt) { /* a firmware without the window leaves its registers alone */
		BAR64(b, APENET_REG_RMT_RDATA) = b->rmt.rdata;
		BAR32(b, APENET_REG_RMT_RTT) = b->rmt.rtt;
		BAR32(b, APENET_REG_RMT_SERVED) = b->rmt.served;
		__atomic_thread_fence(__ATOMIC_RELEASE);
		BAR32(b, APENET_REG_RMT_STATUS) = APENET_SET(RMT_STATUS, RESULT, b->rmt.result) |
						  APENET_SET(RMT_STATUS, BUSY, b->rmt.busy) |
						  APENET_SET(RMT_STATUS, DONE_SEQ, b->rmt.done_seq);
	}
	for (unsigned l = 0; l < b->prof->nlinks; l++)
		publish_link(t, b, l);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	b->gen++;
	BAR32(b, APENET_REG_GEN) = b->gen;
}

/* Restore a board after a card-gone fault is cleared. */
void sim_board_restore(struct sim_board *b)
{
	memset((void *)b->bar, 0, APENET_BAR_SIZE);
	write_rw(b);
}

void sim_board_power_on(struct sim_torus *t, struct sim_board *b)
{
	for (unsigned l = 0; l < b->prof->nlinks; l++) {
		struct sim_link *lk = &b->link[l];
		memset(&lk->c, 0, sizeof(lk->c));
		memset(lk->fifo, 0, sizeof(lk->fifo));
		memset(lk->hwm, 0, sizeof(lk->hwm));
		lk->credit_frac = lk->pkt_frac = 0;
		lk->ldm_rx = lk->ldm_rx_count = 0;
		lk->ldm_rx_ts = lk->up_ts = 0;
		lk->latency_ps = 0;
		lk->ee_gen = 0;
		lk->ee_ts = 0;
		lk->state = APENET_LINK_DOWN;
		lk->phase = APENET_PHASE_RESET;
		lk->phase_s = 0;
		for (unsigned k = 0; k < lk->lp->lanes; k++) {
			struct sim_lane *ln = &lk->lane[k];
			struct sim_lane fresh = { .phase = APENET_PHASE_RESET, .dead = ln->dead };
			*ln = fresh; /* PMA settings: sim_board_reset_bar's defaults */
		}
	}
	b->gen = 0;
	b->t_drift = 0;
	b->overheat_c = 0;
	b->droop_pct = 0;
	b->wd_dnp_hb = b->wd_last_host_hb = b->wd_missed = b->wd_expired = b->wd_expire_count = 0;
	b->wd_enabled_prev = 0;
	b->wd_host_hb_ts = b->wd_next_beat_ts = 0;
	b->ldm_host = b->ldm_own = b->ldm_tx_count = 0;
	b->ldm_frac = 0;
	b->cmd_done_seq = b->cmd_result = 0;
	b->cnt_clear_ts = b->uptime_ts = t->now_ts;
	b->dnp_hung = 0;
	b->gone = 0;
	b->powered_off = 0;
	sim_board_reset_bar(b);
}

uint64_t sim_torus_wd_deadline(const struct sim_torus *t)
{
	uint64_t first = UINT64_MAX;
	for (unsigned i = 0; i < t->nboards; i++) {
		const struct sim_board *b = &t->b[i];
		if (b->gone || b->dnp_hung || b->wd_expired || !APENET_GET(WD_CTRL, ENABLE, b->wd_ctrl))
			continue;
		uint64_t d = b->wd_host_hb_ts + (uint64_t)b->wd_timeout * b->wd_period_us * (SIM_TS_HZ / 1000000u);
		if (d < first)
			first = d;
	}
	return first;
}

void sim_torus_tick(struct sim_torus *t, double dt)
{
	for (unsigned i = 0; i < t->nboards; i++) {
		struct sim_board *b = &t->b[i];
		if (b->gone)
			continue;
		read_host(b);
		sensors(b, dt);
		if (b->dnp_hung)
			continue; /* the Nios II is stuck: no beats, no commands, no LDM */
		run_command(t, b);
		if (!b->no_rmt)
			sim_rmt_tick(t, b);
		watchdog(t, b);
		b->ldm_own = compose_ldm(b);
	}
	for (unsigned i = 0; i < t->nboards; i++)
		for (unsigned l = 0; l < t->b[i].prof->nlinks; l++)
			sim_link_tick(t, &t->b[i], l, dt);
	for (unsigned i = 0; i < t->nboards; i++)
		sim_board_publish(t, &t->b[i]);
}
