/*
 * One end of a cable, per tick: the bring-up of SPEC §2 lane by lane
 * (CHECK ALIGN -> ALIGN OK -> DESKEW -> up), loss of alignment from each
 * lane's BER, the traffic that drives the counters, credits and the LDM
 * words they carry to the partner.
 *
 * Lane phases are kept by each end for its own receivers; the link-level
 * steps that need both ends to agree (deskew, up, giving up on a lane) are
 * driven by one end of the cable, the "primary", and applied to both.
 */
#include <math.h>
#include <string.h>

#include "apenet/linkmodel.h"
#include "sim.h"

#define ALIGN_S 0.004      /* an ALIGN WORD exchange */
#define DESKEW_S 0.004     /* K28.3 on all lanes, deskew FIFOs fill */
#define EXCLUDE_S 0.5      /* waiting this long on a lane, the firmware drops it */
#define ALIGN_BITS 2e4     /* bits an alignment attempt must see clean */
#define LOSS_PER_ERROR 1e-4 /* an up lane loses alignment once in ~10^4 bit errors */
#define AVG_PKT_BYTES 3072.0
/* Link latency (LINK_LATENCY_PS): flight time in the cable (twinax at
 * ~0.70 c, fibre n = 1.47) and the transceivers' pipeline, TX PCS/PMA to RX
 * word aligner, decoder and deskew FIFO, counted in parallel words. */
#define FLIGHT_PS_PER_M_COPPER 4760.0
#define FLIGHT_PS_PER_M_OPTICAL 4900.0
#define PIPELINE_WORDS 24.0

static struct sim_board *peer_board(struct sim_torus *t, const struct sim_link *lk)
{
	return lk->peer_board >= 0 ? &t->b[lk->peer_board] : NULL;
}

static struct sim_link *peer_link(struct sim_torus *t, const struct sim_link *lk)
{
	return lk->peer_board >= 0 ? &t->b[lk->peer_board].link[lk->peer_link] : NULL;
}

static int is_primary(const struct sim_board *b, unsigned l, const struct sim_link *lk)
{
	if (lk->peer_board < 0)
		return 1;
	return b->idx < (unsigned)lk->peer_board || (b->idx == (unsigned)lk->peer_board && (int)l < lk->peer_link);
}

double sim_link_bw_bytes(const struct sim_link *lk)
{
	unsigned up = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		up += lk->lane[k].phase == APENET_PHASE_UP;
	struct apenet_linkmodel m = {
		.fifo_bytes = (double)SIM_FIFO_WORDS * 16,
		.lane_mbps = lk->lp->lane_mbps,
		.lanes = up,
		.code_rate = lk->lp->enc == APENET_ENC_64B66B ? 64.0 / 66 : 0.8,
		.c = lk->credit_period,
	};
	if (apenet_linkmodel_eval(&m))
		return 0;
	return m.max_MBps * 1e6;
}

uint32_t sim_link_latency_ps(const struct sim_link *lk, unsigned slip)
{
	if (!lk->lp->lane_mbps)
		return 0;
	double ui_ps = 1e6 / lk->lp->lane_mbps;
	/* a 32-bit word is 40 line bits in 8b/10b, a 64-bit word 66 in 64b/66b */
	double word_ui = lk->lp->enc == APENET_ENC_64B66B ? 66 : 40;
	double flight = lk->ch.length_m *
			(lk->ch.kind == SIM_CABLE_OPTICAL ? FLIGHT_PS_PER_M_OPTICAL : FLIGHT_PS_PER_M_COPPER);
	return (uint32_t)llround(flight + (PIPELINE_WORDS * word_ui + slip) * ui_ps);
}

/* Restart bring-up on this end (realign command, cable event, reset). */
void sim_link_force_down(struct sim_link *lk)
{
	if (lk->state == APENET_LINK_UP || lk->state == APENET_LINK_DEGRADED)
		lk->c.down_events++;
	lk->state = APENET_LINK_TRAINING;
	lk->phase = APENET_PHASE_CHECK_ALIGN;
	lk->phase_s = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		struct sim_lane *ln = &lk->lane[k];
		if (ln->phase != APENET_PHASE_RESET)
			ln->phase = APENET_PHASE_CHECK_ALIGN;
		ln->phase_s = 0;
		ln->excluded = 0;
	}
}

uint32_t sim_link_partner_reg(const struct sim_torus *t, const struct sim_board *b, unsigned l)
{
	const struct sim_link *lk = &b->link[l];
	int known = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		known |= lk->lane[k].phase >= APENET_PHASE_ALIGN_OK;
	if (!known) /* the partner's identity rides in its ALIGN OK words */
		return 0;
	if (lk->peer_board == -2)
		return APENET_SET(LINK_PARTNER, EXTERNAL, 1) | APENET_SET(LINK_PARTNER, VALID, 1);
	const struct sim_board *pb = &t->b[lk->peer_board];
	return APENET_SET(LINK_PARTNER, X, pb->x) | APENET_SET(LINK_PARTNER, Y, pb->y) |
	       APENET_SET(LINK_PARTNER, Z, pb->z) | APENET_SET(LINK_PARTNER, PORT, (unsigned)lk->peer_link) |
	       APENET_SET(LINK_PARTNER, VALID, 1);
}

/* Signal on lane k of this end: a cable, a live partner, no dead wire. */
static int lane_signal(struct sim_torus *t, const struct sim_link *lk, unsigned k)
{
	if (lk->peer_board == -1 || lk->unplugged || lk->lane[k].dead || !(lk->ctrl & 1))
		return 0;
	if (lk->peer_board == -2)
		return 1;
	const struct sim_board *pb = peer_board(t, lk);
	const struct sim_link *pl = peer_link(t, lk);
	return !pb->gone && !pl->unplugged && !pl->lane[k].dead && (pl->ctrl & 1) && k < pl->lp->lanes;
}

/* The BER this end's receiver sees on lane k: the far end's transmitter
 * settings (VOD, pre-emphasis) with this end's receiver ones (EQ, DC gain). */
static double lane_ber(struct sim_torus *t, struct sim_board *b, unsigned l, struct sim_link *lk, unsigned k)
{
	struct sim_lane *ln = &lk->lane[k];
	const struct sim_link *pl = peer_link(t, lk);
	struct sim_pma pma = ln->pma;
	if (pl && k < pl->lp->lanes) {
		pma.vod = pl->lane[k].pma.vod;
		pma.pre = pl->lane[k].pma.pre;
		pma.post1 = pl->lane[k].pma.post1;
		pma.post2 = pl->lane[k].pma.post2;
	}
	struct sim_channel ch = lk->ch;
	ch.lane_seed = (uint32_t)(lk->cable_id * 131u + b->idx * 7u + l * 17u + k);
	ch.lane_mbps = lk->lp->lane_mbps;
	ch.range = &b->prof->pma;
	return sim_channel_ber(&ch, &pma);
}

static void lane_counts(struct sim_board *b, struct sim_link *lk, double dt)
{
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		struct sim_lane *ln = &lk->lane[k];
		if (ln->phase == APENET_PHASE_RESET || ln->excluded)
			continue;
		/* every received symbol is checked, idle or not */
		uint64_t errs = sim_rng_poisson(&b->rng, ln->ber * lk->lp->lane_mbps * 1e6 * dt);
		uint64_t cv = (uint64_t)llround(errs * 0.7);
		ln->code_viol += cv;
		ln->disp_err += errs - cv;
	}
}

static double mean_ber(const struct sim_link *lk)
{
	double s = 0;
	unsigned n = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		if (lk->lane[k].phase == APENET_PHASE_UP) {
			s += lk->lane[k].ber;
			n++;
		}
	return n ? s / n : 0;
}

/* This end transmits: its counters, and the receiver's at the far end. */
static void traffic(struct sim_torus *t, struct sim_board *b, struct sim_link *lk, double dt)
{
	struct sim_link *pl = peer_link(t, lk);
	struct sim_link *rx = pl ? pl : lk; /* an external device echoes into us */
	double bw = sim_link_bw_bytes(lk);
	lk->load += 0.08 * sim_rng_normal(&b->rng) * sqrt(dt);
	lk->load = lk->load < 0.05 ? 0.05 : lk->load > 0.95 ? 0.95 : lk->load;
	double bytes = lk->load * bw * dt;
	double p = bytes / AVG_PKT_BYTES + lk->pkt_frac;
	uint64_t pkts = (uint64_t)p;
	lk->pkt_frac = p - (double)pkts;
	double ber = mean_ber(rx);
	uint64_t hdr = sim_rng_poisson(&b->rng, (double)pkts * 128 * ber);
	uint64_t ftr = sim_rng_poisson(&b->rng, (double)pkts * 128 * ber);
	uint64_t pay = sim_rng_poisson(&b->rng, (double)pkts * AVG_PKT_BYTES * 8 * ber);
	uint64_t nbytes = (uint64_t)llround(pkts * AVG_PKT_BYTES);
	lk->c.tx_pkts += pkts;
	lk->c.tx_bytes += nbytes;
	lk->c.retrans += hdr + ftr;
	rx->c.rx_pkts += pkts;
	rx->c.rx_bytes += nbytes;
	rx->c.hdr_crc += hdr;
	rx->c.ftr_crc += ftr;
	rx->c.payload_err += pay;
	/* the far receiver's FIFO fills with our load; it sends us credits */
	double depth = SIM_FIFO_WORDS;
	for (int vc = 0; vc < APENET_NUM_VC; vc++) {
		double f = depth * (0.02 + 0.6 * pow(lk->load, 3)) * (1 + 0.1 * sim_rng_normal(&b->rng));
		f = f < 0 ? 0 : f > rx->t_red ? rx->t_red : f;
		rx->fifo[vc] = f;
		if (f > rx->hwm[vc])
			rx->hwm[vc] = f;
	}
	double over = rx->fifo[0] > rx->t_yel ? (rx->fifo[0] - rx->t_yel) / (double)(rx->t_red - rx->t_yel + 1) : 0;
	lk->c.stall_cycles += (uint64_t)(over * 0.1 * SIM_TS_HZ * dt);
}

/* Credits flow from this end's receiver to the far transmitter; each
 * carries this DNP's LDM word. */
static void credits(struct sim_torus *t, struct sim_board *b, struct sim_link *lk, double dt)
{
	unsigned up = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		up += lk->lane[k].phase == APENET_PHASE_UP;
	double code = lk->lp->enc == APENET_ENC_64B66B ? 64.0 / 66 : 0.8;
	double words_per_s = up * lk->lp->lane_mbps * 1e6 * code / 128;
	double n = words_per_s * dt / lk->credit_period + lk->credit_frac;
	uint64_t cr = (uint64_t)n;
	lk->credit_frac = n - (double)cr;
	lk->c.credits_tx += cr;
	struct sim_link *pl = peer_link(t, lk);
	if (!pl)
		return;
	pl->c.credits_rx += cr;
	if (b->dnp_hung || cr == 0)
		return; /* the LDM block is the DNP's: a hung DNP sends none */
	b->ldm_tx_count += (uint32_t)cr;
	pl->ldm_rx = b->ldm_own;
	pl->ldm_rx_count += (uint32_t)cr;
	pl->ldm_rx_ts = t->now_ts;
}

static int any_prbs(const struct sim_link *lk)
{
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		if (APENET_GET(LANE_PRBS_CTRL, ENABLE, lk->lane[k].prbs_ctrl))
			return 1;
	return 0;
}

static int lane_ready(struct sim_torus *t, const struct sim_link *lk, unsigned k)
{
	const struct sim_link *pl = peer_link(t, lk);
	if (lk->lane[k].phase < APENET_PHASE_ALIGN_OK)
		return 0;
	return !pl || pl->lane[k].phase >= APENET_PHASE_ALIGN_OK;
}

static void set_link(struct sim_torus *t, struct sim_board *b, struct sim_link *lk, uint8_t phase, uint8_t state)
{
	struct sim_link *ends[2] = { lk, peer_link(t, lk) };
	for (int i = 0; i < 2 && ends[i]; i++) {
		struct sim_link *e = ends[i];
		e->phase = phase;
		e->phase_s = 0;
		for (unsigned k = 0; k < e->lp->lanes; k++)
			if (!e->lane[k].excluded && e->lane[k].phase >= APENET_PHASE_ALIGN_OK)
				e->lane[k].phase = phase;
		if (state == APENET_LINK_UP) {
			int degraded = 0;
			for (unsigned k = 0; k < e->lp->lanes; k++)
				degraded |= e->lane[k].excluded;
			e->state = degraded ? APENET_LINK_DEGRADED : APENET_LINK_UP;
			e->up_ts = t->now_ts;
			/* deterministic latency: every alignment lands on the same
			 * bit; with the latency-jitter fault the word aligner may
			 * lock on any of SIM_ALIGN_SLIPS positions */
			e->latency_ps = sim_link_latency_ps(
				e, e->lat_jitter ? (unsigned)(sim_rng_next(&b->rng) % SIM_ALIGN_SLIPS) : 0);
		} else {
			e->state = state;
		}
	}
}

static void exclude_lane(struct sim_torus *t, struct sim_link *lk, unsigned k)
{
	struct sim_link *pl = peer_link(t, lk);
	lk->lane[k].excluded = 1;
	if (pl)
		pl->lane[k].excluded = 1;
}

/* Link-level steps, run by the primary end for both. */
static void bringup_link(struct sim_torus *t, struct sim_board *b, struct sim_link *lk, double dt)
{
	if (lk->phase == APENET_PHASE_UP)
		return;
	unsigned used = 0, ready = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		if (lk->lane[k].excluded)
			continue;
		used++;
		ready += lane_ready(t, lk, k);
	}
	if (lk->phase == APENET_PHASE_DESKEW) {
		lk->phase_s += dt;
		if (ready < used || ready == 0) {
			set_link(t, b, lk, APENET_PHASE_CHECK_ALIGN, APENET_LINK_TRAINING);
		} else if (lk->phase_s >= DESKEW_S) {
			set_link(t, b, lk, APENET_PHASE_UP, APENET_LINK_UP);
		}
		return;
	}
	if (ready == 0) {
		lk->phase_s = 0;
		return;
	}
	lk->phase_s += dt;
	if (ready == used) {
		set_link(t, b, lk, APENET_PHASE_DESKEW, APENET_LINK_TRAINING);
	} else if (lk->phase_s >= EXCLUDE_S) {
		/* width degrade: run on the lanes that aligned */
		for (unsigned k = 0; k < lk->lp->lanes; k++)
			if (!lk->lane[k].excluded && !lane_ready(t, lk, k))
				exclude_lane(t, lk, k);
		set_link(t, b, lk, APENET_PHASE_DESKEW, APENET_LINK_TRAINING);
	}
}

void sim_pma_trial(struct sim_board *b, unsigned l, uint32_t off)
{
	struct sim_link *lk = &b->link[l];
	uint32_t lane0 = apenet_lane_off(l, 0, 0);
	if (off < lane0 || off >= lane0 + lk->lp->lanes * APENET_LANE_STRIDE)
		return;
	uint32_t reg = (off - lane0) % APENET_LANE_STRIDE;
	if (reg < APENET_LANE_PMA_VOD || reg > APENET_LANE_PMA_DCGAIN)
		return;
	struct sim_lane *ln = &lk->lane[(off - lane0) / APENET_LANE_STRIDE];
	if (!ln->pma_trial) {
		ln->pma_good = ln->pma; /* the setting the firmware runs now */
		ln->pma_trial = 1;
	}
	ln->pma_trial_down_s = ln->pma_trial_up_s = ln->pma_trial_s = 0;
}

/* Settings on trial: kept once the lane has been up with them, in a link
 * up at full width, for APENET_RMT_PMA_REVERT_MS without a PRBS run (they
 * become the good ones); put back when it was not (down, or a degraded
 * link) that long outside PRBS runs, both since the last write.  Also put
 * back when they have not proved themselves within twice the revert time
 * outside PRBS runs: a setting that makes the link flap (up a moment,
 * retraining, up again) never stays down for the revert time, and would
 * otherwise keep the link flapping for good. */
static void pma_trials(struct sim_board *b, unsigned l, struct sim_link *lk, int up, int prbs, double dt)
{
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		struct sim_lane *ln = &lk->lane[k];
		if (!ln->pma_trial)
			continue;
		if (prbs) { /* a sweep's runs: nothing it tries becomes good */
			ln->pma_trial_up_s = 0;
			continue;
		}
		ln->pma_trial_s += dt;
		if (up && ln->phase == APENET_PHASE_UP && !ln->excluded) {
			ln->pma_trial_down_s = 0;
			ln->pma_trial_up_s += dt;
			if (ln->pma_trial_up_s * 1000 >= APENET_RMT_PMA_REVERT_MS) {
				ln->pma_trial = 0;
				continue;
			}
		} else {
			ln->pma_trial_up_s = 0;
			ln->pma_trial_down_s += dt;
		}
		if (ln->pma_trial_down_s * 1000 < APENET_RMT_PMA_REVERT_MS &&
		    ln->pma_trial_s * 1000 < 2 * APENET_RMT_PMA_REVERT_MS)
			continue;
		ln->pma = ln->pma_good;
		ln->pma_trial = 0;
		b->bar[apenet_lane_off(l, k, APENET_LANE_PMA_VOD) / 4] = ln->pma.vod;
		b->bar[apenet_lane_off(l, k, APENET_LANE_PMA_PRE) / 4] = ln->pma.pre;
		b->bar[apenet_lane_off(l, k, APENET_LANE_PMA_POST1) / 4] = ln->pma.post1;
		b->bar[apenet_lane_off(l, k, APENET_LANE_PMA_POST2) / 4] = ln->pma.post2;
		b->bar[apenet_lane_off(l, k, APENET_LANE_PMA_RXEQ) / 4] = ln->pma.rxeq;
		b->bar[apenet_lane_off(l, k, APENET_LANE_PMA_DCGAIN) / 4] = ln->pma.dcgain;
	}
}

void sim_link_tick(struct sim_torus *t, struct sim_board *b, unsigned l, double dt)
{
	struct sim_link *lk = &b->link[l];
	struct sim_link *pl = peer_link(t, lk);
	int nsignal = 0, lost = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++) {
		struct sim_lane *ln = &lk->lane[k];
		int sig = !b->gone && lane_signal(t, lk, k);
		nsignal += sig;
		if (!sig) {
			if (ln->phase == APENET_PHASE_UP && !ln->excluded)
				lost = 1;
			ln->phase = APENET_PHASE_RESET;
			ln->phase_s = 0;
			ln->ber = 0.5;
			continue;
		}
		ln->ber = lane_ber(t, b, l, lk, k) + ln->extra_ber;
		if (ln->ber > 0.5)
			ln->ber = 0.5;
		ln->phase_s += dt;
		switch (ln->phase) {
		case APENET_PHASE_RESET:
			ln->phase = APENET_PHASE_CHECK_ALIGN;
			ln->phase_s = 0;
			break;
		case APENET_PHASE_CHECK_ALIGN:
			if (ln->phase_s < ALIGN_S)
				break;
			if (sim_rng_uniform(&b->rng) < 1 - exp(-ln->ber * ALIGN_BITS)) {
				ln->align_restarts++; /* RESTART ALIGN */
				lk->c.align_restarts++;
				ln->phase_s = 0;
			} else {
				ln->phase = APENET_PHASE_ALIGN_OK;
				ln->phase_s = 0;
			}
			break;
		case APENET_PHASE_UP:
			if (ln->excluded)
				break;
			/* bursts of errors make an up lane lose its word alignment */
			if (sim_rng_uniform(&b->rng) <
			    1 - exp(-ln->ber * lk->lp->lane_mbps * 1e6 * LOSS_PER_ERROR * dt)) {
				ln->align_restarts++;
				lk->c.align_restarts++;
				lost = 1;
			}
			break;
		default:
			break;
		}
	}
	if (lost) {
		sim_link_force_down(lk);
		if (pl)
			sim_link_force_down(pl);
	}
	if (nsignal == 0) {
		if (lk->state == APENET_LINK_UP || lk->state == APENET_LINK_DEGRADED)
			lk->c.down_events++;
		lk->state = APENET_LINK_DOWN;
		lk->phase = APENET_PHASE_RESET;
		for (unsigned k = 0; k < lk->lp->lanes; k++)
			lk->lane[k].excluded = 0;
		memset(lk->fifo, 0, sizeof(lk->fifo));
		pma_trials(b, l, lk, 0, 0, dt);
		return;
	}
	if (lk->state == APENET_LINK_DOWN)
		lk->state = APENET_LINK_TRAINING;
	if (is_primary(b, l, lk))
		bringup_link(t, b, lk, dt);

	int up = lk->state == APENET_LINK_UP || lk->state == APENET_LINK_DEGRADED;
	int prbs = any_prbs(lk);
	/* a trial is judged on the whole link, as both ends see it (ALIGN OK
	 * tells a DNP that its partner aligned): a TX setting shows at the far
	 * receiver, which may be training, or up degraded without the lane */
	pma_trials(b, l, lk, lk->state == APENET_LINK_UP && (!pl || pl->state == APENET_LINK_UP),
		   prbs || (pl && any_prbs(pl)), dt);
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		sim_lane_prbs_tick(t, b, lk, &lk->lane[k], dt);
	/* FOLLOW ends the link's run, not one lane's: a lane that never
	 * locked (dead, or hopeless) cannot tell that the partner stopped,
	 * and one lane left in PRBS keeps the whole link out of traffic */
	int followed = 0;
	for (unsigned k = 0; k < lk->lp->lanes; k++)
		followed |= lk->lane[k].prbs_stop && lk->lane[k].prbs_followed;
	for (unsigned k = 0; followed && k < lk->lp->lanes; k++) {
		struct sim_lane *ln = &lk->lane[k];
		if (ln->prbs_on && APENET_GET(LANE_PRBS_CTRL, FOLLOW, ln->prbs_ctrl)) {
			ln->prbs_on = 0;
			ln->prbs_ended = 1;
			ln->prbs_followed = 1;
			ln->prbs_stop = 1;
		}
	}
	if (!up)
		return;
	lane_counts(b, lk, dt);
	credits(t, b, lk, dt);
	if (!prbs && !b->dnp_hung && !(pl && any_prbs(pl)))
		traffic(t, b, lk, dt);
}
