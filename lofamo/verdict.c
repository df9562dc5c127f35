/*
 * Local fault rules: a sample pair in, findings out.  Every rule reads only
 * what a real card offers (registers, config space) and compares it with a
 * threshold of the config (docs/config.md).  Codes: docs/verdicts.md.  The
 * board's and the sensors' codes get their one recommendation from
 * lofamo/rulebook.c as they are added; the links' say here which cable or
 * node to check.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "apenet/pcie.h"
#include "apenet/stats.h"
#include "apenet/verdict.h"

/* Decimal digits of v at p (no terminator); returns their count. */
static size_t put_uint(char *p, unsigned v)
{
	char t[12];
	size_t n = 0, k = 0;
	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		p[k++] = t[--n];
	return k;
}

void apenet_rules_node_label(const struct apenet_config *cfg, const unsigned xyz[3], char *buf, size_t n)
{
	const char *name = cfg ? apenet_config_node_name(cfg, xyz[0], xyz[1], xyz[2]) : NULL;
	if (name || n < 48) {
		if (name)
			snprintf(buf, n, "node %s (%u,%u,%u)", name, xyz[0], xyz[1], xyz[2]);
		else
			snprintf(buf, n, "node %u,%u,%u", xyz[0], xyz[1], xyz[2]);
		return;
	}
	/* by hand: every link of every pair judged names its peer, every
	 * period, and snprintf was a third of the agent's period (callgrind) */
	size_t k = 0;
	memcpy(buf, "node ", 5);
	k = 5;
	for (int i = 0; i < 3; i++) {
		k += put_uint(buf + k, xyz[i]);
		if (i < 2)
			buf[k++] = ',';
	}
	buf[k] = 0;
}

int apenet_rules_rate_proven(uint64_t k, double t_s, double thr, double unit_s, const struct apenet_thresholds *t,
		       double *rate, double *lower)
{
	*rate = t_s > 0 ? (double)k * unit_s / t_s : 0;
	*lower = t_s > 0 ? apenet_stats_poisson_lower(k, t->rate_confidence) * unit_s / t_s : 0;
	return t_s > 0 && (double)k >= t->rate_min_events && *lower >= thr;
}

static void rate_evidence(struct apenet_finding *f, uint64_t k, double t_s, double lower, const char *per,
			  const struct apenet_thresholds *t)
{
	apenet_finding_evidence(f, "%llu in %.1f s; at least %.3g%s at %g%% confidence", (unsigned long long)k, t_s, lower,
				per, t->rate_confidence * 100);
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

#define LINKF(sev, code) apenet_finding_add(out, sev, APENET_SUBJ_LINK, (int)l, -1, name, code)
#define LANEF(sev, code, k) apenet_finding_add(out, sev, APENET_SUBJ_LANE, (int)l, (int)(k), name, code)

static void link_state_rules(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
			     const char *peer, int expected, struct apenet_findings *out, int *stop)
{
	const char *name = v->prof->links[l].name;
	struct apenet_finding *f;
	switch (st->state) {
	case APENET_LINK_PRBS:
		f = LINKF(APENET_SEV_WARN, "LINK_PRBS");
		apenet_finding_message(f, "%s runs PRBS test patterns: it carries no traffic until the test is stopped", name);
		apenet_finding_rec(f, "stop the test when it is done (apenet ber)");
		break;
	case APENET_LINK_DOWN:
		if (!APENET_GET(LINK_CTRL, ENABLE, v->s1.link[l].LINK_CTRL)) {
			f = LINKF(APENET_SEV_WARN, "LINK_DISABLED");
			apenet_finding_message(f, "%s is switched off (LINK_CTRL.ENABLE = 0)", name);
			apenet_finding_rec(f, "enable it when it should carry traffic");
			break;
		}
		if (!expected) {
			if (!st->partner_valid)
				*stop = 1; /* nothing cabled and nothing expected: ok */
			break;
		}
		f = LINKF(APENET_SEV_FAIL, "LINK_DOWN");
		apenet_finding_message(f, "%s is down, no signal on any lane", name);
		apenet_finding_rec(f, "check the cable to %s (plugged? that end powered?)", peer);
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
		f = LINKF(APENET_SEV_FAIL, "LINK_TRAINING");
		if (worst == APENET_PHASE_UP) {
			apenet_finding_message(f, "%s is not up although its lanes are: the link-level deskew did not finish",
					       name);
			apenet_finding_rec(f, "realign it, and if it stays so, reseat the cable to %s", peer);
		} else {
			f->lane = (int)lane;
			apenet_finding_message(f, "%s is not up: lane %u is in %s with %llu alignment restarts", name, lane,
					       apenet_phase_name(worst), (unsigned long long)st->lane_restarts[lane]);
			apenet_finding_rec(f, "if it stays so, reseat or replace the cable to %s", peer);
		}
		break;
	}
	case APENET_LINK_DEGRADED: {
		char lanes[32] = "";
		size_t n = 0;
		int first = -1;
		for (unsigned k = 0; k < st->nlanes; k++)
			if (((st->lanes_used >> k) & 1u) && !((st->lanes_up >> k) & 1u)) {
				n += (size_t)snprintf(lanes + n, sizeof(lanes) - n, "%s%u", n ? "," : "", k);
				first = first < 0 ? (int)k : first;
			}
		unsigned up = (unsigned)__builtin_popcount(st->lanes_up);
		f = LINKF(APENET_SEV_FAIL, "LINK_DEGRADED");
		f->lane = strchr(lanes, ',') ? -1 : first;
		apenet_finding_measure(f, up, st->nlanes, "lanes");
		apenet_finding_message(f, "%s runs on %u of %u lanes (%s %s down, bandwidth %.0f MB/s at most)", name, up,
				       st->nlanes, strchr(lanes, ',') ? "lanes" : "lane", lanes, st->max_MBps);
		apenet_finding_rec(f, "reseat or replace the cable to %s, then realign", peer);
		break;
	}
	default:
		break;
	}
}

static void partner_rules(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
			  const struct apenet_config *cfg, const char *peer, int expected, struct apenet_findings *out)
{
	const char *name = v->prof->links[l].name;
	char seen[128];
	struct apenet_finding *f;
	if (st->partner_valid && !st->partner_ext && st->expect_valid && expected &&
	    (memcmp(st->partner, st->expect, sizeof(st->expect)) || st->partner_port != st->expect_port)) {
		apenet_rules_node_label(cfg, st->partner, seen, sizeof(seen));
		f = LINKF(APENET_SEV_FAIL, "LINK_MISCABLED");
		apenet_finding_message(f, "%s is cabled to %s port %s, expected %s port %s", name, seen,
				       port_name(v->prof, st->partner_port), peer, port_name(v->prof, st->expect_port));
		apenet_finding_rec(f, "a swapped or crossed cable: apenet cabling lists them all");
		apenet_finding_evidence(f, "LINK_PARTNER 0x%08x (from the ALIGN OK words)",
					(unsigned)v->s1.link[l].LINK_PARTNER);
	} else if (st->partner_valid && !expected) {
		apenet_rules_node_label(cfg, st->partner, seen, sizeof(seen));
		f = LINKF(APENET_SEV_WARN, "LINK_UNEXPECTED");
		apenet_finding_message(f, "%s is cabled to %s, but the cluster layout expects no cable there", name, seen);
		apenet_finding_rec(f, "remove the cable or fix the layout (wraparound) in the config");
	}
}

/* Error rates: judged only over a window the link was up for, and only when
 * the events prove the rate (apenet_rules_rate_proven). */
static void error_rules(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
			const struct apenet_thresholds *t, const char *peer, struct apenet_findings *out)
{
	const char *name = v->prof->links[l].name;
	struct apenet_finding *f;
	double rate, lower;
	if (!st->up_whole)
		return;
	unsigned wl = 0;
	for (unsigned k = 1; k < st->nlanes; k++)
		if (st->lane_err_events[k] > st->lane_err_events[wl])
			wl = k;
	char where[96] = "";
	if (st->lane_err_events[wl] > 0)
		snprintf(where, sizeof(where), " (most 8b/10b errors on lane %u)", wl);
	int crc = 0;
	if (apenet_rules_rate_proven(st->crc_events, st->dt, t->crc_fail_per_min, 60, t, &rate, &lower)) {
		f = LINKF(APENET_SEV_FAIL, "LINK_CRC");
		apenet_finding_message(f, "%s has %.0f CRC errors/min, each retransmitted%s", name, rate, where);
		apenet_finding_rec(f, "replace the cable to %s or retune its PMA settings", peer);
		apenet_finding_measure(f, rate, t->crc_fail_per_min, "/min");
		rate_evidence(f, st->crc_events, st->dt, lower, "/min", t);
		crc = 1;
	} else if (apenet_rules_rate_proven(st->crc_events, st->dt, t->crc_warn_per_min, 60, t, &rate, &lower)) {
		f = LINKF(APENET_SEV_WARN, "LINK_CRC");
		apenet_finding_message(f, "%s has %.1f CRC errors/min, each retransmitted%s", name, rate, where);
		apenet_finding_rec(f, "watch it; test the cable to %s with a PRBS BER run", peer);
		apenet_finding_measure(f, rate, t->crc_warn_per_min, "/min");
		rate_evidence(f, st->crc_events, st->dt, lower, "/min", t);
		crc = 1;
	}
	if (apenet_rules_rate_proven(st->payload_events, st->dt, t->payload_warn_per_min, 60, t, &rate, &lower)) {
		f = LINKF(APENET_SEV_WARN, "LINK_PAYLOAD");
		apenet_finding_message(f, "%s passed %.1f payload errors/min to software (flagged in the footer)", name,
				       rate);
		apenet_finding_rec(f, "test the cable to %s with a PRBS BER run", peer);
		apenet_finding_measure(f, rate, t->payload_warn_per_min, "/min");
		rate_evidence(f, st->payload_events, st->dt, lower, "/min", t);
	}
	/* the lanes' counts span the second tier's interval, which may have
	 * begun before the link came up (a bring-up's errors) */
	for (unsigned k = 0; k < st->nlanes && !crc && st->up_whole_second; k++) {
		if (!apenet_rules_rate_proven(st->lane_err_events[k], st->dt_second, t->lane_errors_warn_per_min, 60, t, &rate,
					      &lower))
			continue;
		f = LANEF(APENET_SEV_WARN, "LANE_CODE_ERRORS", k);
		apenet_finding_message(f, "lane %u of %s has %.1f 8b/10b errors/min", k, name, rate);
		apenet_finding_rec(f, "test the cable to %s with a PRBS BER run", peer);
		apenet_finding_measure(f, rate, t->lane_errors_warn_per_min, "/min");
		rate_evidence(f, st->lane_err_events[k], st->dt_second, lower, "/min", t);
	}
}

/* Alignment restarts: since the counters were cleared when that window is
 * long enough (a bring-up's few restarts vanish in it), else over the
 * interval; at least align_restarts_warn of them, at a proven rate. */
static void restart_rules(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
			  const struct apenet_thresholds *t, const char *peer, struct apenet_findings *out)
{
	const char *name = v->prof->links[l].name;
	struct apenet_thresholds tt = *t;
	char dur[32];
	if (tt.align_restarts_warn > tt.rate_min_events)
		tt.rate_min_events = tt.align_restarts_warn;
	int long_window = st->since_clear_s >= t->since_clear_min_s;
	for (unsigned k = 0; k < st->nlanes; k++) {
		uint64_t n = long_window ? st->lane_restarts[k] : st->lane_restart_events[k];
		double win = long_window ? st->since_clear_s : st->dt_second, rate, lower;
		if (!apenet_rules_rate_proven(n, win, t->align_restarts_warn_per_hour, 3600, &tt, &rate, &lower))
			continue;
		fmt_duration(win, dur, sizeof(dur));
		struct apenet_finding *f = LANEF(APENET_SEV_WARN, "LANE_ALIGN_RESTARTS", k);
		apenet_finding_message(f, "lane %u of %s has lost alignment %llu times in %s", k, name, (unsigned long long)n,
				       dur);
		apenet_finding_rec(f, "reseat or replace the cable to %s", peer);
		apenet_finding_measure(f, rate, t->align_restarts_warn_per_hour, "/h");
		rate_evidence(f, n, win, lower, "/h", t);
	}
}

static void ldm_rules(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		      const struct apenet_config *cfg, const char *peer, struct apenet_findings *out)
{
	const struct apenet_thresholds *t = &cfg->thr;
	const char *name = v->prof->links[l].name;
	const struct apenet_snapshot *me = &v->s1;
	struct apenet_finding *f;
	int up = st->state == APENET_LINK_UP || st->state == APENET_LINK_DEGRADED;
	int ext = v->prof->links[l].dir == APENET_DIR_EXT;
	int self = st->partner_valid && !st->partner_ext && st->partner[0] == APENET_GET(NODE_COORD, X, me->g.NODE_COORD) &&
		   st->partner[1] == APENET_GET(NODE_COORD, Y, me->g.NODE_COORD) &&
		   st->partner[2] == APENET_GET(NODE_COORD, Z, me->g.NODE_COORD);
	if (!up || ext || self || v->s1.link[l].LINK_LDM_RX_COUNT == 0)
		return;
	/* LDMs come from whoever is at the other end of the cable: name the
	 * partner the ALIGN OK words identify, which differs from the expected
	 * neighbour when the link is miscabled */
	char from[128];
	if (st->partner_valid && !st->partner_ext)
		apenet_rules_node_label(cfg, st->partner, from, sizeof(from));
	else
		snprintf(from, sizeof(from), "%s", peer);
	double ms = st->ldm_age_s * 1000;
	if (st->ldm_age_s >= 0 && ms >= t->ldm_age_fail_ms) {
		f = LINKF(APENET_SEV_FAIL, "LDM_STALE");
		apenet_finding_message(f, "no diagnostic message from %s for %.1f s while %s is up: its DNP is probably hung",
				       from, ms / 1000, name);
		apenet_finding_rec(f, "check it with apenet status there");
		apenet_finding_measure(f, ms, t->ldm_age_fail_ms, "ms");
	} else if (st->ldm_age_s >= 0 && ms >= t->ldm_age_warn_ms) {
		f = LINKF(APENET_SEV_WARN, "LDM_STALE");
		apenet_finding_message(f, "the last diagnostic message from %s is %.0f ms old", from, ms);
		apenet_finding_measure(f, ms, t->ldm_age_warn_ms, "ms");
	}
	if (!st->ldm_valid) {
		f = LINKF(APENET_SEV_WARN, "LDM_INVALID");
		if (!st->ldm.valid)
			apenet_finding_message(f, "the LDM from %s has its valid bit clear (0x%08x)", from, st->ldm.word);
		else
			apenet_finding_message(f, "the LDM from %s is invalid (0x%08x: %u fields read 11)", from,
					       st->ldm.word, st->ldm.ninvalid);
		apenet_finding_evidence(f, "LINK_LDM_RX 0x%08x", st->ldm.word);
		return;
	}
	if (st->ldm.host_expired) {
		f = LINKF(APENET_SEV_WARN, "NEIGHBOUR_HOST_EXPIRED");
		apenet_finding_message(f, "%s reports its host dead (its DNP's watchdog expired)", from);
		apenet_finding_rec(f, "check that node's host and its agent");
		apenet_finding_evidence(f, "LINK_LDM_RX 0x%08x", st->ldm.word);
	}
	for (unsigned fl = APENET_LDM_F_SERVICE; fl <= APENET_LDM_F_TEMPERATURE; fl++)
		if (st->ldm.field[fl] != APENET_LDM_NORMAL) {
			f = LINKF(APENET_SEV_WARN, "NEIGHBOUR_SICK");
			apenet_finding_message(f, "%s reports its %s %s", from, apenet_ldm_field_name(fl),
					       apenet_ldm_status_name(st->ldm.field[fl]));
			apenet_finding_rec(f, "run apenet status on that node");
			apenet_finding_evidence(f, "LINK_LDM_RX 0x%08x", st->ldm.word);
		}
}

void apenet_rules_link(const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		       const struct apenet_config *cfg, struct apenet_findings *out)
{
	const struct apenet_thresholds *t = &cfg->thr;
	const char *name = v->prof->links[l].name;
	char peer[128];
	int ext = v->prof->links[l].dir == APENET_DIR_EXT, stop = 0;
	if (st->expect_valid)
		apenet_rules_node_label(cfg, st->expect, peer, sizeof(peer));
	else
		snprintf(peer, sizeof(peer), "%s", ext ? "the external device" : "its partner");
	int expected = st->expect_valid || ext;
	/* wraparound switched off in the cluster layout: an edge expects no cable */
	if (st->expect_valid && cfg->cl.have && st->expect_wrap && !cfg->cl.wrap[st->expect_dim])
		expected = 0;

	link_state_rules(v, l, st, peer, expected, out, &stop);
	if (stop)
		return;
	/* a count of events, not a rate: one down event is one too many */
	if (st->down_delta >= t->flaps_fail) {
		char times[32] = "once";
		if (st->down_delta != 1)
			snprintf(times, sizeof(times), "%llu times", (unsigned long long)st->down_delta);
		struct apenet_finding *f = LINKF(APENET_SEV_FAIL, "LINK_FLAPPING");
		apenet_finding_message(f, "%s went down %s in %.1f s: a marginal cable", name, times, st->dt);
		apenet_finding_rec(f, "replace the cable to %s", peer);
		apenet_finding_measure(f, (double)st->down_delta, t->flaps_fail, "events");
		apenet_finding_evidence(f, "LINK_DOWN_EVENTS +%llu", (unsigned long long)st->down_delta);
	}
	partner_rules(v, l, st, cfg, peer, expected, out);
	error_rules(v, l, st, t, peer, out);
	restart_rules(v, l, st, t, peer, out);
	ldm_rules(v, l, st, cfg, peer, out);
	/* A full FIFO for a moment is flow control doing its job (the sender
	 * stops at T_RED); what is worth a finding is a receiver that stays
	 * behind: the level at or above the threshold at both samples, the
	 * whole interval apart.  The high-water mark (latched since the clear)
	 * only says a burst came; it is evidence, judged by its rise in the
	 * interval, never alone (a clean emulated torus reaches 96% now and
	 * then: docs/verdicts.md). */
	int up = st->state == APENET_LINK_UP || st->state == APENET_LINK_DEGRADED;
	double thr = t->fifo_hwm_warn_pct;
	if (up && st->dt_second > 0 && st->fifo_level0_pct >= thr && st->fifo_level_pct >= thr) {
		double p = st->fifo_level_pct < st->fifo_level0_pct ? st->fifo_level_pct : st->fifo_level0_pct;
		struct apenet_finding *f = LINKF(APENET_SEV_WARN, "FIFO_HIGH");
		apenet_finding_message(f, "%s RX FIFO stayed at or above %.0f%% of T_RED over %.1f s: the receiver drains "
				       "slower than the link delivers", name, p, st->dt_second);
		apenet_finding_rec(f, "check the host side (PCIe, the consumer of the traffic)");
		apenet_finding_measure(f, p, thr, "%");
		apenet_finding_evidence(f, "level %.0f%% then %.0f%%%s", st->fifo_level0_pct, st->fifo_level_pct,
					st->fifo_hwm_rose ? "; the high-water mark rose in the interval" : "");
	}
}

/* ---- the board ---- */

static const struct apenet_finding *latched_find(const struct apenet_findings *l, const char *code)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (!strcmp(l->f[i].code, code))
			return &l->f[i];
	return NULL;
}

/* Judges one sensor against its limits; a latched finding of that code
 * moves the limits by the clear margin toward the good side. */
static void judge_sensor(struct apenet_sensor *s, const struct apenet_findings *latched, double margin)
{
	const struct apenet_finding *f = s->code ? latched_find(latched, s->code) : NULL;
	double mf = f && f->sev >= APENET_SEV_FAIL ? margin : 0, mw = f ? margin : 0;
	s->sev = APENET_SEV_OK;
	s->crossed = NAN;
	if (!s->present)
		return;
	if (s->value >= s->high_fail - mf || s->value <= s->low_fail + mf) {
		s->sev = APENET_SEV_FAIL;
		s->crossed = s->value >= s->high_fail - mf ? s->high_fail : s->low_fail;
	} else if (s->value >= s->high_warn - mw || s->value <= s->low_warn + mw) {
		s->sev = APENET_SEV_WARN;
		s->crossed = s->value >= s->high_warn - mw ? s->high_warn : s->low_warn;
	}
}

unsigned apenet_rules_sensors(const struct apenet_view *v, const struct apenet_config *cfg,
			const struct apenet_findings *latched, struct apenet_sensor out[APENET_NSENSORS])
{
	const struct apenet_thresholds *t = &cfg->thr;
	const struct apenet_snapshot *s = &v->s1;
	const double inf = INFINITY;
	double nom = (double)s->g.SENS_VCORE_NOM;
	unsigned n = 0;
	struct apenet_sensor *x;
#define SENSOR(nm, un, pr, val, pres, lw, lf, hw, hf, cd) \
	x = &out[n++];                                     \
	*x = (struct apenet_sensor){ .name = nm, .unit = un, .prec = pr, .value = val, .present = pres, \
				     .low_warn = lw, .low_fail = lf, .high_warn = hw, .high_fail = hf, .code = cd }
	SENSOR("fpga_temp", "C", 1, (int32_t)(uint32_t)s->g.SENS_FPGA_TEMP / 1000.0, 1, -inf, -inf, t->fpga_temp_warn_c,
	       t->fpga_temp_fail_c, "FPGA_TEMP");
	judge_sensor(x, latched, t->temp_clear_margin_c);
	SENSOR("board_temp", "C", 1, (int32_t)(uint32_t)s->g.SENS_BOARD_TEMP / 1000.0, 1, -inf, -inf,
	       t->board_temp_warn_c, t->board_temp_fail_c, "BOARD_TEMP");
	judge_sensor(x, latched, t->temp_clear_margin_c);
	/* the core supply is judged as a droop below its nominal, which the board reports */
	/* limits as nominal minus a percentage of it (exact in mV for whole
	 * percentages, so a reading right at the limit is judged as at it) */
	SENSOR("vcore", "mV", 0, (double)s->g.SENS_VCORE, nom > 0, nom - nom * t->vdroop_warn_pct / 100,
	       nom - nom * t->vdroop_fail_pct / 100, inf, inf, "VCORE_LOW");
	judge_sensor(x, latched, nom * t->supply_clear_margin_pct / 100);
	SENSOR("vxcvr", "mV", 0, (double)s->g.SENS_VXCVR, 1, -inf, -inf, inf, inf, NULL);
	SENSOR("vio", "mV", 0, (double)s->g.SENS_VIO, 1, -inf, -inf, inf, inf, NULL);
	/* a board without the 12 V sensor reads 0: absent, nothing to judge */
	SENSOR("v12", "mV", 0, (double)s->g.SENS_V12, s->g.SENS_V12 != 0, 12000 - 120 * t->v12_tol_warn_pct,
	       12000 - 120 * t->v12_tol_fail_pct, 12000 + 120 * t->v12_tol_warn_pct, 12000 + 120 * t->v12_tol_fail_pct,
	       "V12_RANGE");
	judge_sensor(x, latched, 12000 * t->supply_clear_margin_pct / 100);
	SENSOR("icore", "mA", 0, (double)s->g.SENS_ICORE, 1, -inf, -inf, inf, inf, NULL);
	SENSOR("i12", "mA", 0, (double)s->g.SENS_I12, s->g.SENS_V12 != 0 || s->g.SENS_I12 != 0, -inf, -inf, inf, inf, NULL);
#undef SENSOR
	for (unsigned i = 0; i < n; i++)
		if (!out[i].code)
			out[i].sev = APENET_SEV_OK, out[i].crossed = NAN;
	return n;
}

static void sensor_findings(const struct apenet_view *v, const struct apenet_config *cfg,
			    const struct apenet_findings *latched, struct apenet_findings *out)
{
	struct apenet_sensor sn[APENET_NSENSORS];
	unsigned n = apenet_rules_sensors(v, cfg, latched, sn);
	const struct apenet_snapshot *s = &v->s1;
	for (unsigned i = 0; i < n; i++) {
		const struct apenet_sensor *x = &sn[i];
		if (x->sev == APENET_SEV_OK)
			continue;
		int fail = x->sev == APENET_SEV_FAIL;
		struct apenet_finding *f = apenet_finding_add(out, x->sev, APENET_SUBJ_SENSOR, -1, -1, x->name, x->code);
		apenet_finding_measure(f, x->value, x->crossed, x->unit);
		if (!strcmp(x->code, "FPGA_TEMP")) {
			apenet_finding_message(f, "FPGA at %.1f C (%s at %g C)", x->value, fail ? "fail" : "warn", x->crossed);
		} else if (!strcmp(x->code, "BOARD_TEMP")) {
			apenet_finding_message(f, "board at %.1f C (%s at %g C)", x->value, fail ? "fail" : "warn", x->crossed);
		} else if (!strcmp(x->code, "VCORE_LOW")) {
			double droop = 100.0 * ((double)s->g.SENS_VCORE_NOM - x->value) / (double)s->g.SENS_VCORE_NOM;
			apenet_finding_message(f, "core supply %.0f mV, %.1f%% under its %llu mV%s", x->value, droop,
					       (unsigned long long)s->g.SENS_VCORE_NOM, fail ? ": the card may fail" : "");
		} else {
			apenet_finding_message(f, "12 V input at %.0f mV (%.1f%% off)", x->value,
					       fabs(x->value - 12000.0) / 120.0);
		}
		if (latched_find(latched, x->code))
			apenet_finding_evidence(f, "held by hysteresis until the value is back past the limit by the clear margin");
	}
}

#define BOARDF(sev, code) apenet_finding_add(out, sev, APENET_SUBJ_BOARD, -1, -1, "", code)

void apenet_rules_pcie(int ok, const struct apenet_pcie_info *p, const char *err, struct apenet_findings *out)
{
	struct apenet_finding *f;
	if (ok && p->degraded) {
		f = BOARDF(APENET_SEV_WARN, "PCIE_DEGRADED");
		apenet_finding_message(f, "PCIe trained at %s x%u, the card can do %s x%u: host bandwidth is cut",
				       apenet_pcie_speed_str(p->sta_gen), p->sta_width,
				       apenet_pcie_speed_str(p->cap_gen), p->cap_width);
		apenet_finding_measure(f, p->sta_width, p->cap_width, "lanes");
	}
	if (ok && p->has_aer && (p->aer_uncor_status & ~p->aer_uncor_mask)) {
		f = BOARDF(APENET_SEV_FAIL, "PCIE_AER_UNCORRECTABLE");
		apenet_finding_message(f, "uncorrectable PCIe errors logged (AER 0x%08x)", p->aer_uncor_status);
	} else if (ok && p->has_aer && (p->aer_cor_status & ~p->aer_cor_mask)) {
		f = BOARDF(APENET_SEV_WARN, "PCIE_AER_CORRECTABLE");
		apenet_finding_message(f, "correctable PCIe errors logged (AER 0x%08x)", p->aer_cor_status);
	}
	if (!ok && err[0]) {
		f = BOARDF(APENET_SEV_WARN, "PCIE_UNREADABLE");
		apenet_finding_message(f, "PCIe capability unreadable: %s", err);
	}
}

void apenet_rules_card(const struct apenet_card *c, struct apenet_findings *out)
{
	if (c->gone) {
		struct apenet_finding *f = BOARDF(APENET_SEV_FAIL, "CARD_GONE");
		snprintf(f->where, sizeof(f->where), "%s", c->bdf);
		apenet_finding_message(f, "the card at %s does not respond: its config space reads all ones: it fell off "
				       "the bus", c->bdf);
		return;
	}
	apenet_rules_pcie(c->pcie_ok, &c->pcie, c->pcie_err, out);
	for (size_t i = 0; i < out->n; i++)
		if (!out->f[i].where[0])
			snprintf(out->f[i].where, sizeof(out->f[i].where), "%s", c->bdf);
}

void apenet_rules_board(const struct apenet_view *v, const struct apenet_config *cfg,
			const struct apenet_findings *latched, struct apenet_findings *out)
{
	const struct apenet_snapshot *s = &v->s1, *a = &v->s0;
	struct apenet_finding *f;
	sensor_findings(v, cfg, latched, out);
	/* the DNP's heartbeat: it must move at least once per period */
	double dt = apenet_view_dt(v), period = (double)s->g.WD_PERIOD_US / 1e6;
	if (period > 0 && dt > 2.5 * period && s->g.WD_DNP_HB == a->g.WD_DNP_HB) {
		f = BOARDF(APENET_SEV_FAIL, "DNP_HUNG");
		apenet_finding_message(f, "the DNP's heartbeat stopped (WD_DNP_HB stuck at %llu for %.1f s): its firmware is "
				       "hung and its neighbours hear nothing from it", (unsigned long long)s->g.WD_DNP_HB, dt);
		apenet_finding_measure(f, dt, 2.5 * period, "s");
		apenet_finding_evidence(f, "no change in %.1f s, %.1f heartbeat periods", dt, dt / period);
	}
	if (APENET_GET(WD_STATUS, HOST_EXPIRED, s->g.WD_STATUS)) {
		f = BOARDF(APENET_SEV_WARN, "HOST_EXPIRED");
		apenet_finding_message(f, "the DNP declared this host dead after %llu missed heartbeats",
				       (unsigned long long)APENET_GET(WD_STATUS, MISSED, s->g.WD_STATUS));
		apenet_finding_evidence(f, "WD_STATUS 0x%08x", (unsigned)s->g.WD_STATUS);
	}
	struct apenet_ldm own;
	if (apenet_ldm_decode((uint32_t)s->g.LDM_OWN, &own) && s->g.LDM_TX_COUNT) {
		f = BOARDF(APENET_SEV_WARN, "LDM_OWN_INVALID");
		apenet_finding_message(f, "this DNP sends an invalid LDM (0x%08x)", own.word);
	}
	apenet_rules_pcie(v->pcie_ok, &v->pcie, v->pcie_err, out);
}

void apenet_rules_pair(const struct apenet_view *v, const struct apenet_config *cfg, const struct apenet_findings *latched,
		  struct apenet_findings *out)
{
	apenet_rules_board(v, cfg, latched, out);
	for (unsigned l = 0; l < v->prof->nlinks; l++) {
		struct apenet_link_stats st;
		apenet_link_stats(v, l, &st);
		apenet_rules_link(v, l, &st, cfg, out);
	}
}
