/*
 * One period of the agent (docs/agent.md, "Every period"):
 *   1. beat: WD_HOST_HB + 1, first, so that a slow read never delays it;
 *   2. one sample through the sampler (PCI config space and module pages
 *      only when they are due), never blocking;
 *   3. the watchdog's view of it (DNP beat, card gone, host expired);
 *   4. counters that went backwards: a notice, and the rate baselines
 *      restart from this sample;
 *   5. the one judge over (previous, this) and, for rates, over (the sample
 *      baseline_s ago, this); the latch; transitions;
 *   6. each link's neighbour word;
 *   7. the host's part of the LDM, written when it changes;
 *   8. the black box.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apenet/clock.h"
#include "agent.h"
#include "apenet/log.h"

/* ---- the card's settings ---- */

static uint32_t mc(double c)
{
	return (uint32_t)(int32_t)lround(c * 1000);
}

int agent_card_setup(struct agent *a)
{
	struct apenet_dev *d = &a->smp.dev;
	struct apenet_err e = { 0 };
	const struct apenet_agent_config *c = &a->cfg.agent;
	const struct apenet_thresholds *t = &a->cfg.thr;
	if (apenet_dev_check(d, &e)) {
		apenet_log(APENET_LOG_WARN, "%s: cannot set up the watchdog: %s", d->bdf, e.msg);
		return -1;
	}
	apenet_wr32(d, APENET_REG_WD_PERIOD_US, (uint32_t)lround(c->watchdog_period_ms * 1000));
	apenet_wr32(d, APENET_REG_WD_TIMEOUT_BEATS, (uint32_t)c->watchdog_timeout_beats);
	/* the DNP's own LDM fields follow the host's thresholds (docs/config.md) */
	apenet_wr32(d, APENET_REG_THR_TEMP_SICK, mc(t->fpga_temp_warn_c));
	apenet_wr32(d, APENET_REG_THR_TEMP_BROKEN, mc(t->fpga_temp_fail_c));
	apenet_wr32(d, APENET_REG_THR_VDROOP_SICK, (uint32_t)lround(t->vdroop_warn_pct * 10));
	apenet_wr32(d, APENET_REG_THR_VDROOP_BROKEN, (uint32_t)lround(t->vdroop_fail_pct * 10));
	apenet_wr32(d, APENET_REG_THR_ICORE_SICK, (uint32_t)lround(t->icore_sick_ma));
	apenet_wr32(d, APENET_REG_LDM_HOST, a->ldm_host);
	/* go on from the card's value: any change is a beat */
	a->host_hb = apenet_rd32(d, APENET_REG_WD_HOST_HB) + 1;
	apenet_wr32(d, APENET_REG_WD_HOST_HB, a->host_hb);
	apenet_wr32(d, APENET_REG_WD_CTRL, APENET_SET(WD_CTRL, ENABLE, 1));
	a->wd_armed = 1;
	apenet_log(APENET_LOG_INFO, "%s: watchdog armed: the DNP expects a beat every %g ms, expires this host after %g",
		   d->bdf, c->watchdog_period_ms, c->watchdog_timeout_beats);
	agent_presets_apply(a);
	return 0;
}

void agent_card_disarm(struct agent *a)
{
	struct apenet_err e = { 0 };
	if (!a->card_open || !a->wd_armed)
		return;
	if (apenet_dev_check(&a->smp.dev, &e)) {
		apenet_log(APENET_LOG_WARN, "stopping: the card does not respond, its watchdog stays as it was: %s", e.msg);
		return;
	}
	apenet_wr32(&a->smp.dev, APENET_REG_WD_CTRL, 0);
	a->wd_armed = 0;
	apenet_log(APENET_LOG_NOTICE, "%s: watchdog disabled (a planned stop is not a dead host)", a->smp.dev.bdf);
}

/* ---- state ---- */

int agent_bbox_apply(struct agent *a, struct apenet_err *e)
{
	const struct apenet_agent_config *c = &a->cfg.agent;
	size_t mem = (size_t)(c->blackbox_memory_mib * 1024 * 1024);
	int64_t span = (int64_t)(c->blackbox_span_s * 1000);
	size_t recs = (size_t)ceil(c->blackbox_span_s * 1000 / c->period_ms) + 16;
	if (a->bbox.buf && a->bbox.cap == mem && a->bbox.span_ms == span && a->bbox.rcap == recs)
		return 0;
	struct apenet_bbox nb;
	if (apenet_bbox_init(&nb, a->smp.dev.prof, a->smp.dev.bdf, mem, span, recs, e))
		return -1;
	if (a->bbox.buf) {
		/* keep what fits of the old ring */
		if (apenet_bbox_copy(&nb, &a->bbox, e)) {
			apenet_bbox_free(&nb);
			return -1;
		}
		apenet_bbox_free(&a->bbox);
	}
	a->bbox = nb;
	return 0;
}

int agent_state_init(struct agent *a, struct apenet_err *e)
{
	const struct apenet_agent_config *c = &a->cfg.agent;
	if (apenet_judge_init(&a->judge, &a->cfg, e))
		return -1;
	a->cur = apenet_judge_slot(&a->judge);
	apenet_findings_init(&a->raised);
	apenet_track_init(&a->track);
	apenet_wd_init(&a->wd, (unsigned)c->dnp_stuck_periods);
	for (unsigned l = 0; l < APENET_MAX_LINKS; l++)
		apenet_nbr_init(&a->nbr[l]);
	a->service = a->memory = a->peripheral = APENET_H_NORMAL;
	return agent_bbox_apply(a, e);
}

void agent_state_free(struct agent *a)
{
	apenet_judge_free(&a->judge);
	a->cur = NULL;
	apenet_findings_free(&a->raised);
	apenet_track_free(&a->track);
	apenet_bbox_free(&a->bbox);
	agent_edac_free(&a->edac);
}

/* ---- helpers of the period ---- */

static void emit_all(struct agent *a, struct apenet_event *ev, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		agent_emit(a, &ev[i]);
}

/* After the judge took this sample: its counter clears as notices; what it
 * holds, less what the watchdog and the neighbour trackers report on their
 * own timing (the rule table's OWNED), as transitions.  Also what
 * `apenet-agent --replay` runs after each recorded sample (agent/replay.c). */
void agent_judged(struct agent *a)
{
	const struct apenet_findings *held = &a->judge.held;
	const struct apenet_sample *s = apenet_judge_last(&a->judge);
	struct apenet_event ev[32];
	unsigned n;
	for (unsigned i = 0; i < a->judge.nresets; i++) {
		apenet_reset_event(&s->snap, &a->judge.resets[i], &ev[0]);
		agent_emit(a, &ev[0]);
	}
	apenet_findings_clear(&a->raised);
	for (size_t i = 0; i < held->n; i++)
		if (!(apenet_judge_flags(held->f[i].code) & APENET_RULE_OWNED))
			*apenet_finding_add(&a->raised, held->f[i].sev, held->f[i].subject, held->f[i].link,
					    held->f[i].lane, held->f[i].where, held->f[i].code) = held->f[i];
	while ((n = apenet_track_step(&a->track, &a->raised, ev, 32)) > 0) {
		emit_all(a, ev, n);
		if (n < 32)
			break;
	}
}

static void host_field_event(struct agent *a, const char *subject, const char *code, unsigned old, unsigned now,
			     const char *why)
{
	struct apenet_event ev;
	apenet_event_init(&ev);
	snprintf(ev.subject, sizeof(ev.subject), "%s", subject);
	snprintf(ev.code, sizeof(ev.code), "%s", code);
	ev.old_status = (uint8_t)old;
	ev.new_status = (uint8_t)now;
	snprintf(ev.message, sizeof(ev.message), "%s", why);
	snprintf(ev.evidence, sizeof(ev.evidence), "LDM_HOST %s field", subject);
	ev.path = APENET_PATH_SELF;
	agent_emit(a, &ev);
}

/* The three fields' reasons in words, for agent-status and a transition's
 * message: formatted when asked, not every period. */
void agent_host_why(const struct agent *a, char *svc, char *mem, char *per, size_t n)
{
	if (!a->svc_configured)
		snprintf(svc, n, "no supervisor configured (reports off)");
	else
		snprintf(svc, n, "%u of %u supervisors acknowledge; the last acknowledgement %.0f s ago", a->svc_acking,
			 a->svc_configured, a->svc_since_ack_s);
	apenet_host_memory(&a->edac.now, a->cfg.agent.edac_ce_sick_per_hour, &a->cfg.thr, mem, n);
	apenet_host_peripheral(a->cur->pcie_ok, &a->cur->pcie, per, n);
}

static void host_fields(struct agent *a, int64_t now)
{
	char why[3][200];
	/* the judge's PCIE_* findings report the peripheral's changes */
	a->peripheral = apenet_host_peripheral(a->cur->pcie_ok, &a->cur->pcie, NULL, 0);
	agent_edac_poll(a, now);
	unsigned mem = apenet_host_memory(&a->edac.now, a->cfg.agent.edac_ce_sick_per_hour, &a->cfg.thr, NULL, 0);
	unsigned svc = apenet_host_service(a->svc_configured, a->svc_acking, a->svc_since_ack_s,
					   a->cfg.agent.service_timeout_s);
	if (mem != a->memory || svc != a->service)
		agent_host_why(a, why[0], why[1], why[2], sizeof(why[0]));
	if (mem != a->memory)
		host_field_event(a, "memory", "EDAC_MEMORY", a->memory, mem, why[1]);
	a->memory = mem;
	if (svc != a->service)
		host_field_event(a, "service", "SERVICE_NETWORK", a->service, svc, why[0]);
	a->service = svc;
	a->ldm_host = apenet_ldm_host_word(a->service, a->memory, a->peripheral);
	/* written when the card holds another word (changed here, or the card
	 * was reset and lost it) */
	if (((uint32_t)a->cur->snap.g.LDM_HOST & APENET_LDM_HOST_MASK) != a->ldm_host)
		apenet_wr32(&a->smp.dev, APENET_REG_LDM_HOST, a->ldm_host);
}

/* ---- the period ---- */

void agent_period(struct agent *a)
{
	int64_t t0 = apenet_clock_mono_us(), now = apenet_clock_epoch_ms();
	const struct apenet_agent_config *c = &a->cfg.agent;
	struct apenet_dev *d = &a->smp.dev;
	struct apenet_err e = { 0 };
	struct apenet_event ev[APENET_NBR_MAX_EVENTS];
	unsigned n;
	a->periods++;
	a->ev_time_ms = now;
	if (!a->card_gone && a->wd_armed)
		apenet_wr32(d, APENET_REG_WD_HOST_HB, ++a->host_hb);

	unsigned flags = 0;
	if (now >= a->next_pcie_ms) {
		flags |= APENET_SAMPLE_PCIE;
		a->next_pcie_ms = now + (int64_t)c->pcie_interval_ms;
	}
	if (c->module_interval_s > 0 && now >= a->next_modules_ms) {
		flags |= APENET_SAMPLE_MODULES;
		a->next_modules_ms = now + (int64_t)(c->module_interval_s * 1000);
	}
	a->cur = apenet_judge_slot(&a->judge);
	int rc = apenet_sampler_take(&a->smp, flags, a->cur, &e);
	if (rc && e.code == APENET_EGONE) {
		struct apenet_wd_input in = { 1, 0, 0, 0, c->period_ms };
		if (!a->card_gone)
			apenet_log(APENET_LOG_ERR, "%s", e.msg);
		a->card_gone = 1;
		a->next_pcie_ms = 0; /* its config space is read again every period until it is back */
		n = apenet_wd_step(&a->wd, &in, ev);
		emit_all(a, ev, n);
		goto done;
	}
	if (rc) {
		a->sample_errors++;
		if (now - a->last_error_log_ms >= 10000) {
			apenet_log(APENET_LOG_WARN, "sample failed (%llu so far): %s", (unsigned long long)a->sample_errors, e.msg);
			a->last_error_log_ms = now;
		}
		goto done;
	}
	if (a->card_gone) {
		a->card_gone = 0;
		apenet_log(APENET_LOG_NOTICE, "%s: the card responds again: watchdog and thresholds written again", d->bdf);
		agent_card_setup(a);
		apenet_judge_rebase(&a->judge);
	}
	a->ev_time_ms = a->cur->host_ms;
	a->reads_sum += a->cur->reads;
	if (a->cur->reads > a->reads_max)
		a->reads_max = a->cur->reads;
	if (a->cur->snap.reads > a->reads_max_regs)
		a->reads_max_regs = a->cur->snap.reads;
	unsigned me = (unsigned)a->cur->snap.g.NODE_COORD;
	a->xyz[0] = APENET_GET(NODE_COORD, X, me);
	a->xyz[1] = APENET_GET(NODE_COORD, Y, me);
	a->xyz[2] = APENET_GET(NODE_COORD, Z, me);
	if (apenet_bbox_push(&a->bbox, a->cur, &e) && a->bbox.pushed == 0)
		apenet_log(APENET_LOG_WARN, "black box: %s", e.msg);

	struct apenet_wd_input in = { 0, (uint32_t)a->cur->snap.g.WD_DNP_HB, (uint32_t)a->cur->snap.g.WD_STATUS,
				      (uint32_t)a->cur->snap.g.WD_EXPIRE_COUNT, c->period_ms };
	n = apenet_wd_step(&a->wd, &in, ev);
	emit_all(a, ev, n);

	apenet_judge_feed(&a->judge, a->cur);
	agent_judged(a);
	for (unsigned l = 0; l < d->prof->nlinks; l++) {
		struct apenet_nbr_input ni;
		apenet_nbr_input_of(a->judge.vshort, l, &ni);
		n = apenet_nbr_step(&a->nbr[l], &ni, &a->cfg.thr, d->prof->links[l].name, ev, APENET_NBR_MAX_EVENTS);
		emit_all(a, ev, n);
	}
	host_fields(a, now);
done:;
	int64_t us = apenet_clock_mono_us() - t0;
	a->step_us_last = us;
	a->step_us_sum += (double)us;
	if (us > a->step_us_max)
		a->step_us_max = us;
}
