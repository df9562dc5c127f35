/*
 * The lane channel model: cable + PMA settings -> Q factor -> BER.
 *
 * Everything is referred to the receiver input and computed at the Nyquist
 * frequency f = lane rate / 2.  The formulas and the calibration are in
 * docs/channel-model.md; the constants below carry the numbers, each with
 * why it has that value.  Settings are used normalised to their range
 * maxima (0..1), so one model serves Stratix IV (VOD 0..7) and Stratix V
 * (VOD 0..63) alike.
 */
#include <math.h>
#include <string.h>

#include "channel.h"

/*
 * The model's constants.  Where a number comes from outside (cable data,
 * typical transceiver figures) it says so; the rest were fitted so that the
 * default settings land on the published BER bounds (docs/channel-model.md).
 */
struct channel_consts {
	/* loss */
	double cu_skin_db;   /* dB / (m sqrt(GHz)) and dB / (m GHz): the cable of */
	double cu_diel_db;   /*   sim/eeprom.c (1.20 dB/m at 2.5 GHz ... 3.20 at 12.9) */
	double cu_dc_db;     /* dB / m at low frequency (conductor resistance) */
	double host_db_ghz;  /* both boards' traces, cage to transceiver */
	double host_fixed_db;/* connectors, paddle cards */
	double host_dc_db;
	double loss_tol_db;  /* residual Nyquist loss the CDR and slicer absorb */
	/* TX */
	double vod_min_mv;   /* peak-to-peak differential swing at VOD 0 */
	double vod_span_mv;  /* added at the maximum VOD */
	double tap_pre, tap_post1, tap_post2; /* tap weight at full setting, of the peak swing */
	/* RX */
	double rxeq_max_db;  /* CTLE boost at Nyquist at the maximum setting */
	double rxeq_lf_share;/* share of the peaking made by cutting LF gain */
	double dcgain_max_db;
	double rx_linear_mv; /* amplitude the RX front end handles linearly */
	/* ISI, in fractions of the main cursor */
	double isi_under;    /* h1 per unit of (1 - 10^(-R/20)), R > 0 */
	double isi_over;     /* h1 per unit of (10^(-R/20) - 1), R < 0 */
	double isi_pre;      /* precursor as the loss goes to infinity */
	double isi_tail;     /* skin-effect tail per dB of skin loss */
	double tail_ctle;    /* share of the tail the CTLE removes at full setting */
	double isi_sat;      /* eye lost per (overdrive ratio - 1)^2 */
	/* noise */
	double n_thermal_mv; /* rms at the RX input, flat band */
	double n_boost_share;/* share of the noise band that sees the full CTLE boost */
	double n_sampler_mv; /* after the gain stages, referred back through them */
	double xt_base;      /* crosstalk / half swing at 5 GHz, raw edges */
	double xt_eq;        /* ... times aggressor HF excess times victim HF excess */
	double xt_vod;       /* driver nonlinearity: crosstalk grows by this per volt of swing */
	/* jitter as vertical noise / main cursor: a fixed part (the CDR's own
	 * deterministic jitter), a part that grows with the rate (random
	 * jitter has a fixed rms in ps, a growing share of the unit interval),
	 * and a part that grows as the lane nears its transceiver's top rate */
	double jit_fixed, jit_gbps, jit_rate;
	/* optical */
	double opt_q;        /* Q of the optical receiver at opt_ref_gbps */
	double opt_retime;   /* jitter left after the modules' CDRs retime the signal */
	double opt_ref_gbps;
	double opt_fibre_db_m;
	/* per-lane spread (relative) */
	double lane_loss, lane_noise, lane_eq;
};

static const struct channel_consts cc = {
	.cu_skin_db = 0.66, .cu_diel_db = 0.064, .cu_dc_db = 0.02,
	.host_db_ghz = 0.55, .host_fixed_db = 0.5, .host_dc_db = 0.3,
	.loss_tol_db = 4.15,
	.vod_min_mv = 200, .vod_span_mv = 1000,
	.tap_pre = 0.10, .tap_post1 = 0.30, .tap_post2 = 0.10,
	.rxeq_max_db = 16, .rxeq_lf_share = 0.5, .dcgain_max_db = 12,
	.rx_linear_mv = 600,
	.isi_under = 0.186, .isi_over = 0.015, .isi_pre = 0.078, .isi_tail = 0.0047,
	.tail_ctle = 0.6, .isi_sat = 0.5,
	.n_thermal_mv = 4.4, .n_boost_share = 0.5, .n_sampler_mv = 22,
	.xt_base = 0.008, .xt_eq = 0.03, .xt_vod = 2.0,
	.jit_fixed = 0.046, .jit_gbps = 0.0011, .jit_rate = 0.058,
	.opt_q = 16.5, .opt_retime = 0.63, .opt_ref_gbps = 10.3125, .opt_fibre_db_m = 0.0035,
	.lane_loss = 0.02, .lane_noise = 0.01, .lane_eq = 0.02,
};

/* Stratix IV ranges when the caller gives none. */
static const struct apenet_pma_range channel_default_range = {
	.vod = 7, .pre = 7, .post1 = 15, .post2 = 7, .rxeq = 15, .dcgain = 4,
};

double sim_q_to_ber(double q)
{
	return 0.5 * erfc(q / sqrt(2.0));
}

/* Bisection on the monotonic erfc: exact enough and no table. */
double sim_ber_to_q(double ber)
{
	double lo = 0.0, hi = 40.0;

	if (ber >= 0.5)
		return 0.0;
	if (ber <= 0.0)
		return hi;
	for (int i = 0; i < 100; i++) {
		double mid = 0.5 * (lo + hi);

		if (sim_q_to_ber(mid) > ber)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static double channel_norm(unsigned v, unsigned max)
{
	if (max == 0)
		return 0.0;
	return v >= max ? 1.0 : (double)v / max;
}

/* splitmix32-style finaliser: lane seed -> three values in [-1, 1). */
static double channel_lane_u(uint32_t seed, unsigned which)
{
	uint32_t x = seed * 0x9e3779b9u + (which + 1) * 0x85ebca6bu;

	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return (double)x / 2147483648.0 - 1.0;
}

static double db_to_lin(double db)
{
	return pow(10.0, db / 20.0);
}

/*
 * The transceiver's top lane rate: jitter is a fraction of the unit
 * interval that grows as a lane runs closer to what its transceiver was
 * built for.  Given, or found as the largest lane_mbps_max of the variants
 * whose PMA range is *range (the range identifies the transceiver family).
 */
static double channel_xcvr_max(const struct sim_channel *ch, const struct apenet_pma_range *r)
{
	unsigned best = 0;

	if (ch->xcvr_max_mbps)
		return ch->xcvr_max_mbps;
	for (int v = APENET_V_NONE + 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);

		if (!p || memcmp(&p->pma, r, sizeof(*r)) != 0)
			continue;
		for (unsigned l = 0; l < p->nlinks && l < APENET_MAX_LINKS; l++)
			if (p->links[l].lane_mbps_max > best)
				best = p->links[l].lane_mbps_max;
	}
	return best > ch->lane_mbps ? best : ch->lane_mbps;
}

double sim_channel_q(const struct sim_channel *ch, const struct sim_pma *pma,
		     struct sim_channel_terms *out)
{
	const struct apenet_pma_range *r = ch->range ? ch->range : &channel_default_range;
	double f = ch->lane_mbps / 2000.0, gbps = ch->lane_mbps / 1000.0;
	double len = ch->length_m > 0 ? ch->length_m : 0.0;
	double loss_k = 1.0 + cc.lane_loss * channel_lane_u(ch->lane_seed, 0);
	double noise_k = 1.0 + cc.lane_noise * channel_lane_u(ch->lane_seed, 1);
	double eq_k = 1.0 + cc.lane_eq * channel_lane_u(ch->lane_seed, 2);
	double v = channel_norm(pma->vod, r->vod), tp = channel_norm(pma->pre, r->pre);
	double t1 = channel_norm(pma->post1, r->post1), t2 = channel_norm(pma->post2, r->post2);
	double e = channel_norm(pma->rxeq, r->rxeq), d = channel_norm(pma->dcgain, r->dcgain);
	struct sim_channel_terms t = { 0 };
	double a_pre, a_post1, a_post2, overshoot, peak, isi2, n2;

	if (ch->lane_mbps == 0) {
		if (out)
			*out = t;
		return 0.0; /* no clock, no data */
	}

	/* Loss at Nyquist. */
	if (ch->kind == SIM_CABLE_COPPER) {
		t.skin_db = len * cc.cu_skin_db * sqrt(f);
		t.loss_db = t.skin_db + len * cc.cu_diel_db * f;
		t.dc_loss_db = len * cc.cu_dc_db;
	}
	/* Optical: the module's CDR retimes, only the host side is electrical. */
	t.loss_db = loss_k * (t.loss_db + cc.host_db_ghz * f + cc.host_fixed_db);
	t.dc_loss_db += cc.host_dc_db;

	/* TX FIR: taps at fractions of the peak swing; the low-frequency
	 * level is what is left of the main cursor. */
	t.swing_mv = cc.vod_min_mv + cc.vod_span_mv * v;
	a_pre = cc.tap_pre * tp;
	a_post1 = cc.tap_post1 * t1;
	a_post2 = cc.tap_post2 * t2;
	t.tx_lf = 1.0 - 2.0 * (a_pre + a_post1 + a_post2);
	/* Nyquist/LF ratio made by post1 (post2 cancels the tail instead). */
	t.boost_tx_db = 20.0 * log10((1.0 - 2.0 * a_post2) / (1.0 - 2.0 * (a_post1 + a_post2)));
	t.boost_rx_db = eq_k * cc.rxeq_max_db * e;
	t.gain_lf_db = cc.dcgain_max_db * d - cc.rxeq_lf_share * t.boost_rx_db;

	/* ISI, statistical (rms of the cursors left after equalization). */
	t.resid_db = t.loss_db - t.boost_tx_db - t.boost_rx_db - cc.loss_tol_db;
	if (t.resid_db >= 0)
		t.isi_h1 = cc.isi_under * (1.0 - db_to_lin(-t.resid_db));
	else
		t.isi_h1 = cc.isi_over * (db_to_lin(-t.resid_db) - 1.0);
	/* Precursor grows with the loss; only the pre tap cancels it. */
	t.isi_pre = fabs(cc.isi_pre * (1.0 - db_to_lin(-t.loss_db)) - a_pre);
	/* Skin-effect tail: the CTLE flattens part of it, post2 the rest. */
	t.isi_tail = fabs(cc.isi_tail * t.skin_db * (1.0 - cc.tail_ctle * e) - a_post2);
	isi2 = t.isi_h1 * t.isi_h1 + t.isi_pre * t.isi_pre + t.isi_tail * t.isi_tail;

	/* Front-end overdrive compresses the eye: the largest excursion,
	 * overshoot of an over-equalized channel included. */
	overshoot = t.resid_db < 0 ? db_to_lin(-t.resid_db / 2.0) : 1.0;
	peak = t.swing_mv / 2.0 * db_to_lin(-t.dc_loss_db) * t.tx_lf * db_to_lin(t.gain_lf_db) *
	       overshoot;
	if (peak > cc.rx_linear_mv)
		t.isi_sat = cc.isi_sat * (peak / cc.rx_linear_mv - 1.0) * (peak / cc.rx_linear_mv - 1.0);
	t.eye = t.isi_sat < 0.99 ? 1.0 - t.isi_sat : 0.01;

	/* Signal: half the eye opening, at the RX input. */
	t.s0_mv = t.swing_mv / 2.0 * db_to_lin(-t.dc_loss_db) * t.tx_lf;
	t.signal_mv = t.s0_mv * t.eye;

	/* Noise, referred to the RX input. */
	t.n_thermal_mv = noise_k * cc.n_thermal_mv *
			 sqrt(1.0 + cc.n_boost_share * (pow(10.0, t.boost_rx_db / 10.0) - 1.0));
	t.n_sampler_mv = noise_k * cc.n_sampler_mv / db_to_lin(t.gain_lf_db);
	/* Crosstalk couples high-pass: what reaches the slicer grows with the
	 * aggressors' HF excess times the victim's HF gain excess, and the
	 * drivers' nonlinearity makes it grow faster than the swing. */
	t.n_xtalk_mv = t.swing_mv / 2.0 * (f / 5.0) *
		       (cc.xt_base + cc.xt_eq * (db_to_lin(t.boost_tx_db) - 1.0) *
					     (db_to_lin(t.boost_rx_db) - 1.0)) *
		       (1.0 + cc.xt_vod * t.swing_mv / 1000.0);
	t.n_jitter_mv = noise_k * t.s0_mv *
			(cc.jit_fixed + cc.jit_gbps * gbps +
			 cc.jit_rate * ch->lane_mbps / channel_xcvr_max(ch, r));
	if (ch->kind == SIM_CABLE_OPTICAL)
		t.n_jitter_mv *= cc.opt_retime;
	t.n_isi_mv = t.s0_mv * sqrt(isi2);
	n2 = t.n_thermal_mv * t.n_thermal_mv + t.n_sampler_mv * t.n_sampler_mv +
	     t.n_xtalk_mv * t.n_xtalk_mv + t.n_jitter_mv * t.n_jitter_mv + t.n_isi_mv * t.n_isi_mv;
	t.q_el = t.signal_mv / sqrt(n2);
	t.q = t.q_el;

	if (ch->kind == SIM_CABLE_OPTICAL && t.q_el > 0) {
		t.q_opt = cc.opt_q * sqrt(cc.opt_ref_gbps / gbps) * db_to_lin(-cc.opt_fibre_db_m * len);
		t.q = 1.0 / sqrt(1.0 / (t.q_el * t.q_el) + 1.0 / (t.q_opt * t.q_opt));
	}
	if (out)
		*out = t;
	return t.q;
}

double sim_channel_ber(const struct sim_channel *ch, const struct sim_pma *pma)
{
	double ber;

	if (ch->measured)
		ber = sim_ber_table_lookup(ch->measured, pma, ch->range, NULL);
	else
		ber = sim_q_to_ber(sim_channel_q(ch, pma, NULL));
	if (ch->extra_ber > 0)
		ber += ch->extra_ber;
	if (isnan(ber) || ber > SIM_BER_MAX)
		ber = SIM_BER_MAX;
	if (ber < SIM_BER_MIN)
		ber = SIM_BER_MIN;
	return ber;
}
