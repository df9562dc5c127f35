/*
 * apenet-top's node scope: one card, sampled through the library's sampler
 * every refresh and fed to a judging session (apenet/judge.h), the agent's
 * and `apenet watch`'s, so the screen, the CLI and the agent agree.  Three views: the node
 * (board line, links worst first, LDM words, sensors), a link (its lanes),
 * a lane (8b/10b errors, alignment history, PMA settings).
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apenet/ldm.h"
#include "apenet/linkstats.h"
#include "apenet/regs.h"
#include "apenet/snapfile.h"
#include "top.h"

int top_node_open(struct top *t)
{
	struct apenet_err e = { 0 };
	if (apenet_judge_init(&t->judge, &t->cfg, &e)) {
		top_error(e.msg);
		return -1;
	}
	t->v = t->judge.vshort;
	t->held = &t->judge.held;
	if (t->from) {
		/* a file: every sample through the judge, as the agent judged them;
		 * the screen is the last one's; nothing to refresh */
		if (apenet_judge_replay(&t->judge, t->from, NULL, NULL, &e)) {
			top_error(e.msg);
			return -1;
		}
		if (!t->judge.fed) {
			fprintf(stderr, "apenet-top: %s: no samples\n", t->from);
			return -1;
		}
		return 0;
	}
	if (apenet_sampler_open(&t->smp, t->sim, t->dev, &e)) {
		/* not fatal: the screen says so, and tries again every refresh */
		snprintf(t->msg, sizeof(t->msg), "no card: %s", e.msg);
		return 0;
	}
	t->smp_open = 1;
	return 0;
}

void top_node_close(struct top *t)
{
	if (t->smp_open)
		apenet_sampler_close(&t->smp);
	t->smp_open = 0;
	apenet_judge_free(&t->judge);
	t->v = NULL;
	t->held = NULL;
}

void top_node_refresh(struct top *t)
{
	struct apenet_err e = { 0 };
	if (t->from) {
		t->nrows = apenet_top_links(t->v, t->held, t->rows, APENET_MAX_LINKS);
		apenet_top_sort_links(t->rows, t->nrows, t->sort);
		t->nrows = apenet_top_filter_links(t->rows, t->nrows, t->filter);
		return;
	}
	if (!t->smp_open) {
		if (apenet_sampler_open(&t->smp, t->sim, t->dev, &e)) {
			snprintf(t->msg, sizeof(t->msg), "no card: %s", e.msg);
			return;
		}
		t->smp_open = 1;
		apenet_judge_rebase(&t->judge); /* the card was away: rates start over */
	}
	struct apenet_sample *s = apenet_judge_slot(&t->judge);
	if (apenet_sampler_take(&t->smp, t->judge.fed ? 0 : APENET_SAMPLE_PCIE, s, &e)) {
		snprintf(t->msg, sizeof(t->msg), "%s%s", e.msg,
			 e.code == APENET_EGONE ? " (the card reads all ones: it fell off the bus)" : "");
		if (e.code == APENET_EGONE) {
			apenet_sampler_close(&t->smp);
			t->smp_open = 0;
		}
		return;
	}
	t->msg[0] = 0;
	apenet_judge_feed(&t->judge, s);
	t->nrows = apenet_top_links(t->v, t->held, t->rows, APENET_MAX_LINKS);
	apenet_top_sort_links(t->rows, t->nrows, t->sort);
	t->nrows = apenet_top_filter_links(t->rows, t->nrows, t->filter);
	/* the lanes' alignment restarts, for the lane view's history */
	unsigned slot = (t->hist0 + t->nhist) % 60;
	if (t->nhist == 60)
		t->hist0 = (t->hist0 + 1) % 60;
	else
		t->nhist++;
	for (unsigned l = 0; l < t->v->s1.nlinks && l < APENET_MAX_LINKS; l++)
		for (unsigned k = 0; k < APENET_MAX_LANES; k++)
			t->hist[l][k][slot] = (unsigned)t->v->s1.link[l].lane[k].LANE_ALIGN_RESTARTS;
}

int top_node_rows(const struct top *t)
{
	if (t->view == TOP_NODE)
		return (int)t->nrows;
	if (t->view == TOP_LINK && t->v->prof && t->link < t->v->prof->nlinks)
		return t->v->prof->links[t->link].lanes;
	return 0;
}

static void board_lines(struct top *t)
{
	const struct apenet_view *v = t->v;
	const struct apenet_snapshot *s = &v->s1;
	unsigned nc = (unsigned)s->g.NODE_COORD;
	long at = -1;
	enum apenet_sev w = apenet_findings_worst(t->held, &at);
	attron(A_BOLD);
	top_mvprintw(0, 0, "apenet-top  node %u,%u,%u  %s  %s%s", APENET_GET(NODE_COORD, X, nc),
		 APENET_GET(NODE_COORD, Y, nc), APENET_GET(NODE_COORD, Z, nc), v->prof ? v->prof->name : "?", v->bdf,
		 t->from ? "  (replay)" : "");
	attroff(A_BOLD);
	top_printw("  ");
	int a = top_attr_sev(t, w);
	attron(a);
	top_printw("%s", at >= 0 ? t->held->f[at].code : "OK");
	attroff(a);
	if (v->pcie_ok && v->pcie.has_pcie) {
		int pa = v->pcie.degraded ? top_attr_sev(t, APENET_SEV_WARN) : 0;
		attron(pa);
		top_mvprintw(1, 0, "PCIe Gen%u x%u (capable Gen%u x%u)", v->pcie.sta_gen, v->pcie.sta_width, v->pcie.cap_gen,
			 v->pcie.cap_width);
		attroff(pa);
	} else {
		top_mvprintw(1, 0, "PCIe ?");
	}
	int wa = APENET_GET(WD_STATUS, HOST_EXPIRED, s->g.WD_STATUS) ? top_attr_sev(t, APENET_SEV_FAIL) : 0;
	top_printw("  watchdog %s, ", APENET_GET(WD_CTRL, ENABLE, s->g.WD_CTRL) ? "on" : "off");
	attron(wa);
	top_printw("%s", APENET_GET(WD_STATUS, HOST_EXPIRED, s->g.WD_STATUS) ? "host EXPIRED" : "host ok");
	attroff(wa);
	top_printw(", DNP beat %llu", (unsigned long long)s->g.WD_DNP_HB);
	move(2, 0);
	struct apenet_sensor sn[APENET_NSENSORS];
	unsigned n = apenet_rules_sensors(v, &t->cfg, t->held, sn);
	for (unsigned i = 0, k = 0; i < n; i++) {
		if (!sn[i].present || getcurx(stdscr) > COLS - 16)
			continue;
		top_printw("%s", k++ ? "  " : "");
		a = top_attr_sev(t, sn[i].sev);
		attron(a);
		top_printw("%s %.*f %s", sn[i].name, sn[i].prec, sn[i].value, sn[i].unit);
		attroff(a);
	}
}

/* One LDM word decoded, a letter a field ('.' normal, 's' sick, 'B'
 * broken, '!' invalid), and the host-expired bit. */
static void ldm_row(struct top *t, int y, const char *src, const char *node, uint32_t word)
{
	struct apenet_ldm ldm;
	apenet_ldm_decode(word, &ldm);
	top_mvprintw(y, 0, "%-6s %-8s", src, node);
	if (!ldm.valid) {
		int a = top_attr_sev(t, APENET_SEV_FAIL);
		attron(a);
		top_printw(" no valid word (0x%08x)", word);
		attroff(a);
		return;
	}
	for (unsigned f = 0; f < APENET_LDM_NFIELDS; f++) {
		unsigned v = ldm.field[f];
		int a = v == APENET_LDM_NORMAL ? 0 : top_attr_sev(t, v == APENET_LDM_SICK ? APENET_SEV_WARN : APENET_SEV_FAIL);
		top_printw("  ");
		attron(a);
		addch(v == APENET_LDM_NORMAL ? '.' : v == APENET_LDM_SICK ? 's' : v == APENET_LDM_BROKEN ? 'B' : '!');
		attroff(a);
		top_printw(" ");
	}
	int a = ldm.host_expired ? top_attr_sev(t, APENET_SEV_FAIL) : 0;
	attron(a);
	top_printw(" %s", ldm.host_expired ? "DEAD" : "ok");
	attroff(a);
}

/* The node's own LDM word and each neighbour's, decoded field by field. */
static void ldm_table(struct top *t, int y)
{
	const struct apenet_snapshot *s = &t->v->s1;
	if (y >= LINES - 2)
		return;
	attron(A_REVERSE);
	top_mvprintw(y++, 0, "%-6s %-8s SVC MEM PER DNP CUR VLT TMP  Z-  Z+  Y-  Y+  X-  X+ %-*s", "LDM", "NODE",
		 COLS > 70 ? COLS - 70 : 1, "HOST");
	attroff(A_REVERSE);
	unsigned nc = (unsigned)s->g.NODE_COORD;
	char me[24];
	snprintf(me, sizeof(me), "%u,%u,%u", APENET_GET(NODE_COORD, X, nc), APENET_GET(NODE_COORD, Y, nc),
		 APENET_GET(NODE_COORD, Z, nc));
	ldm_row(t, y++, "own", me, (uint32_t)s->g.LDM_OWN);
	for (unsigned l = 0; l < s->nlinks && l < APENET_MAX_LINKS && y < LINES - 1; l++, y++) {
		struct apenet_link_stats st;
		char from[24] = "-";
		apenet_link_stats(t->v, l, &st);
		if (st.partner_valid && !st.partner_ext)
			snprintf(from, sizeof(from), "%u,%u,%u", st.partner[0], st.partner[1], st.partner[2]);
		ldm_row(t, y, t->v->prof->links[l].name, from, (uint32_t)s->link[l].LINK_LDM_RX);
	}
}

static void node_view(struct top *t)
{
	board_lines(t);
	attron(A_REVERSE);
	top_mvprintw(3, 0, "%-5s %-9s %-5s %-11s %7s %7s %6s %6s %5s %-*s", "LINK", "STATE", "LANES", "PARTNER", "TX MB/s",
		 "RX MB/s", "CRC/m", "RTX/m", "FIFO%", COLS > 71 ? COLS - 71 : 1, "VERDICT");
	attroff(A_REVERSE);
	int y = 4;
	for (unsigned i = 0; i < t->nrows && y < LINES - 3; i++, y++) {
		const struct apenet_top_link *r = &t->rows[i];
		if ((int)i == t->sel)
			attron(A_REVERSE);
		top_mvprintw(y, 0, "%-5s %-9s %2u/%-2u %-11.11s %7.1f %7.1f %6.2f %6.2f %5.0f ", r->name, apenet_link_state_name(r->state),
			 r->lanes_up, r->lanes, r->partner, r->tx_MBps, r->rx_MBps, r->crc_per_min, r->retrans_per_min,
			 r->fifo_pct);
		int a = top_attr_sev(t, r->sev);
		attron(a);
		top_printw("%s", r->code);
		attroff(a);
		if ((int)i == t->sel)
			attroff(A_REVERSE);
	}
	if (!t->nrows)
		top_mvprintw(y++, 0, t->filter[0] ? "no link matches '%s'" : "no links", t->filter);
	ldm_table(t, y + 1);
}

static void link_view(struct top *t)
{
	const struct apenet_view *v = t->v;
	if (!v->prof || t->link >= v->s1.nlinks) {
		top_mvprintw(0, 0, "no such link");
		return;
	}
	struct apenet_link_stats st;
	apenet_link_stats(v, t->link, &st);
	long at = -1;
	enum apenet_sev w = apenet_findings_worst_at(t->held, (int)t->link, &at);
	attron(A_BOLD);
	top_mvprintw(0, 0, "apenet-top  link %s  %s  lanes %u/%u  %.0f Mbps a lane", v->prof->links[t->link].name,
		 apenet_link_state_name(st.state), (unsigned)__builtin_popcount(st.lanes_up), st.nlanes,
		 (double)v->s1.link[t->link].LINK_LANE_MBPS);
	attroff(A_BOLD);
	int a = top_attr_sev(t, w);
	attron(a);
	top_mvprintw(1, 0, "%s", at >= 0 ? t->held->f[at].code : "OK");
	if (at >= 0)
		top_printw(": %.70s", t->held->f[at].message);
	attroff(a);
	top_mvprintw(2, 0, "CRC %.2f/min  retransmissions %.2f/min  down events %llu  alignment restarts %llu",
		 st.crc_per_min, st.retrans_per_min, (unsigned long long)v->s1.link[t->link].LINK_DOWN_EVENTS,
		 (unsigned long long)v->s1.link[t->link].LINK_ALIGN_RESTARTS);
	attron(A_REVERSE);
	top_mvprintw(4, 0, "%-4s %-11s %-3s %10s %10s %7s %3s %3s %5s %5s %4s %-*s", "LANE", "PHASE", "SIG", "CODE VIOL",
		 "DISPARITY", "RESTART", "VOD", "PRE", "POST1", "POST2", "RXEQ", COLS > 76 ? COLS - 76 : 1, "DCG");
	attroff(A_REVERSE);
	for (unsigned k = 0; k < v->prof->links[t->link].lanes; k++) {
		const struct apenet_snap_lane *l = &v->s1.link[t->link].lane[k];
		if ((int)k == t->sel)
			attron(A_REVERSE);
		top_mvprintw(5 + (int)k, 0, "%-4u %-11s %-3s %10llu %10llu %7llu %3llu %3llu %5llu %5llu %4llu %3llu", k,
			 apenet_phase_name(APENET_GET(LANE_STATE, PHASE, l->LANE_STATE)),
			 APENET_GET(LANE_STATE, SIGNAL, l->LANE_STATE) ? "yes" : "no", (unsigned long long)l->LANE_CODE_VIOL,
			 (unsigned long long)l->LANE_DISP_ERR, (unsigned long long)l->LANE_ALIGN_RESTARTS,
			 (unsigned long long)l->LANE_PMA_VOD, (unsigned long long)l->LANE_PMA_PRE,
			 (unsigned long long)l->LANE_PMA_POST1, (unsigned long long)l->LANE_PMA_POST2,
			 (unsigned long long)l->LANE_PMA_RXEQ, (unsigned long long)l->LANE_PMA_DCGAIN);
		if ((int)k == t->sel)
			attroff(A_REVERSE);
	}
}

static void lane_view(struct top *t)
{
	const struct apenet_view *v = t->v;
	if (!v->prof || t->link >= v->s1.nlinks || t->lane >= v->prof->links[t->link].lanes) {
		top_mvprintw(0, 0, "no such lane");
		return;
	}
	const struct apenet_snap_lane *l = &v->s1.link[t->link].lane[t->lane];
	struct apenet_link_stats st;
	apenet_link_stats(v, t->link, &st);
	attron(A_BOLD);
	top_mvprintw(0, 0, "apenet-top  link %s lane %u  %s  signal %s", v->prof->links[t->link].name, t->lane,
		 apenet_phase_name(APENET_GET(LANE_STATE, PHASE, l->LANE_STATE)),
		 APENET_GET(LANE_STATE, SIGNAL, l->LANE_STATE) ? "yes" : "no");
	attroff(A_BOLD);
	top_mvprintw(2, 0, "8b/10b code violations   %llu", (unsigned long long)l->LANE_CODE_VIOL);
	top_mvprintw(3, 0, "running-disparity errors %llu", (unsigned long long)l->LANE_DISP_ERR);
	top_mvprintw(4, 0, "errors in the interval   %llu (%.2f/min)", (unsigned long long)st.lane_err_events[t->lane],
		 st.lane_err_per_min[t->lane]);
	top_mvprintw(5, 0, "alignment restarts       %llu", (unsigned long long)l->LANE_ALIGN_RESTARTS);
	/* the restarts over the last refreshes: one mark each, '|' where the
	 * count went up (the alignment history) */
	top_mvprintw(6, 0, "alignment history        ");
	for (unsigned i = 0; i < t->nhist; i++) {
		unsigned s = (t->hist0 + i) % 60, p = (t->hist0 + i + 59) % 60;
		addch(i && t->hist[t->link][t->lane][s] > t->hist[t->link][t->lane][p] ? '|' : '.');
	}
	top_mvprintw(8, 0, "PMA  VOD %llu  pre %llu  post1 %llu  post2 %llu  rxeq %llu  dcgain %llu",
		 (unsigned long long)l->LANE_PMA_VOD, (unsigned long long)l->LANE_PMA_PRE,
		 (unsigned long long)l->LANE_PMA_POST1, (unsigned long long)l->LANE_PMA_POST2,
		 (unsigned long long)l->LANE_PMA_RXEQ, (unsigned long long)l->LANE_PMA_DCGAIN);
	for (size_t i = 0, y = 10; i < t->held->n && (int)y < LINES - 2; i++)
		if (t->held->f[i].link == (int)t->link && t->held->f[i].lane == (int)t->lane) {
			int a = top_attr_sev(t, t->held->f[i].sev);
			attron(a);
			top_mvprintw((int)y++, 0, "%s: %.70s", t->held->f[i].code, t->held->f[i].message);
			attroff(a);
		}
}

void top_node_draw(struct top *t)
{
	if (t->msg[0] && !t->judge.fed) {
		top_mvprintw(0, 0, "apenet-top");
		attron(top_attr_sev(t, APENET_SEV_FAIL));
		top_mvprintw(2, 0, "%.*s", COLS > 0 ? COLS - 1 : 0, t->msg);
		attroff(top_attr_sev(t, APENET_SEV_FAIL));
		top_mvprintw(4, 0, "trying again every refresh; q quits");
		top_hints(t, "q quit");
		return;
	}
	switch (t->view) {
	case TOP_LINK:
		link_view(t);
		top_hints(t, "Up/Down lane  Enter lane  Left/Esc back  F1 help  q quit");
		break;
	case TOP_LANE:
		lane_view(t);
		top_hints(t, "Left/Esc back  F1 help  q quit");
		break;
	default:
		node_view(t);
		top_hints(t, "F1 help  / filter  > sort  Enter link  q quit");
		break;
	}
	if (t->msg[0]) { /* a sample failed after earlier ones: the last data stays, the problem shows */
		attron(top_attr_sev(t, APENET_SEV_FAIL));
		top_mvprintw(LINES - 2, 0, "%.*s", COLS > 0 ? COLS - 1 : 0, t->msg);
		attroff(top_attr_sev(t, APENET_SEV_FAIL));
	}
}
