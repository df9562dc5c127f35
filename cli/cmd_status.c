/* apenet status: identity, sensors against thresholds, the watchdog, the
 * DNP's own LDM and what each neighbour last said, and one verdict. */
#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/verdict.h"
#include "apenet/view.h"
#include "cli.h"

static const char *level(double v, double warn, double fail)
{
	return v >= fail ? "fail" : v >= warn ? "warn" : "ok";
}

static void sensor(struct apenet_out *o, const char *name, double v, const char *unit, int prec, double warn, double fail,
		   const char *state)
{
	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "name", name);
	apenet_out_dbl(o, "value", v, prec);
	apenet_out_str(o, "unit", unit);
	if (warn == warn) /* NaN: no threshold */
		apenet_out_dbl(o, "warn", warn, prec);
	else
		apenet_out_null(o, "warn");
	if (fail == fail)
		apenet_out_dbl(o, "fail", fail, prec);
	else
		apenet_out_null(o, "fail");
	apenet_out_str(o, "state", state);
	apenet_out_obj_end(o);
}

static void sensors(struct apenet_out *o, const struct apenet_view *v, const struct apenet_thresholds *t)
{
	const struct apenet_snapshot *s = &v->s1;
	const double nan = __builtin_nan("");
	double ft = (int32_t)(uint32_t)s->g.SENS_FPGA_TEMP / 1000.0, bt = (int32_t)(uint32_t)s->g.SENS_BOARD_TEMP / 1000.0;
	double nom = (double)s->g.SENS_VCORE_NOM, vc = (double)s->g.SENS_VCORE;
	double droop = nom > 0 ? 100 * (nom - vc) / nom : 0;
	double v12off = 100 * (((double)s->g.SENS_V12 > 12000 ? (double)s->g.SENS_V12 - 12000 : 12000 - (double)s->g.SENS_V12) / 12000);
	apenet_out_arr_begin(o, "sensors");
	sensor(o, "fpga_temp", ft, "C", 1, t->fpga_temp_warn_c, t->fpga_temp_fail_c, level(ft, t->fpga_temp_warn_c, t->fpga_temp_fail_c));
	sensor(o, "board_temp", bt, "C", 1, t->board_temp_warn_c, t->board_temp_fail_c,
	       level(bt, t->board_temp_warn_c, t->board_temp_fail_c));
	sensor(o, "vcore", vc, "mV", 0, nom * (1 - t->vdroop_warn_pct / 100), nom * (1 - t->vdroop_fail_pct / 100),
	       level(droop, t->vdroop_warn_pct, t->vdroop_fail_pct));
	sensor(o, "vxcvr", (double)s->g.SENS_VXCVR, "mV", 0, nan, nan, "ok");
	sensor(o, "vio", (double)s->g.SENS_VIO, "mV", 0, nan, nan, "ok");
	sensor(o, "v12", (double)s->g.SENS_V12, "mV", 0, 12000 * (1 - t->v12_tol_warn_pct / 100),
	       12000 * (1 - t->v12_tol_fail_pct / 100), level(v12off, t->v12_tol_warn_pct, t->v12_tol_fail_pct));
	sensor(o, "icore", (double)s->g.SENS_ICORE, "mA", 0, nan, nan, "ok");
	sensor(o, "i12", (double)s->g.SENS_I12, "mA", 0, nan, nan, "ok");
	apenet_out_arr_end(o);
}

static void watchdog(struct apenet_out *o, const struct apenet_view *v)
{
	const struct apenet_snapshot *s = &v->s1, *a = &v->s0;
	double dt = apenet_view_dt(v), period = (double)s->g.WD_PERIOD_US / 1e6;
	uint32_t st = (uint32_t)s->g.WD_STATUS;
	char t[160];
	const char *dnp = dt > 2.5 * period ? (s->g.WD_DNP_HB != a->g.WD_DNP_HB ? "beating" : "STOPPED") : "unknown";
	snprintf(t, sizeof(t), "%s, host %s, DNP heartbeat %s", APENET_GET(WD_STATUS, ENABLED, st) ? "enabled" : "disabled",
		 APENET_GET(WD_STATUS, HOST_EXPIRED, st) ? "EXPIRED" : "alive", dnp);
	apenet_out_obj_begin_text(o, "watchdog", t);
	apenet_out_bool(o, "enabled", APENET_GET(WD_STATUS, ENABLED, st));
	apenet_out_bool(o, "host_expired", APENET_GET(WD_STATUS, HOST_EXPIRED, st));
	apenet_out_uint(o, "missed_beats", APENET_GET(WD_STATUS, MISSED, st));
	apenet_out_uint(o, "expire_count", s->g.WD_EXPIRE_COUNT);
	apenet_out_dbl(o, "period_ms", period * 1000, 1);
	apenet_out_uint(o, "timeout_beats", s->g.WD_TIMEOUT_BEATS);
	apenet_out_uint(o, "dnp_heartbeat", s->g.WD_DNP_HB);
	apenet_out_str(o, "dnp", dnp);
	if (s->g.WD_HOST_HB_TS && s->g.TIMESTAMP >= s->g.WD_HOST_HB_TS)
		apenet_out_dbl(o, "host_beat_age_s", apenet_ticks_to_s(s, s->g.TIMESTAMP - s->g.WD_HOST_HB_TS), 3);
	else
		apenet_out_null(o, "host_beat_age_s");
	apenet_out_obj_end(o);
}

int cmd_status(struct cli *c)
{
	const char *from = NULL, *interval = NULL, *config = NULL;
	const struct cli_opt opts[] = { { "--from", &from, NULL }, { "--interval", &interval, NULL },
					{ "--config", &config, NULL }, { NULL, NULL, NULL } };
	const char *pos[1];
	int npos;
	double iv = 0.5;
	static struct apenet_view v;
	struct apenet_config cfg;
	if (cli_parse(c, "status", opts, pos, 0, &npos) ||
	    (interval && cli_number("status", "--interval", interval, 0, 3600, &iv)))
		return CLI_EXIT_ERROR;
	int rc = cli_config("status", config, &cfg);
	if (rc || (rc = cli_view(c, from, iv, 0, &v))) {
		apenet_config_free(&cfg);
		return rc;
	}
	const struct apenet_snapshot *s = &v.s1;
	struct apenet_verdict board, all;
	apenet_rules_board(&v, &cfg, &board);
	apenet_verdict_init(&all);
	for (unsigned i = 0; i < board.n; i++)
		apenet_verdict_add(&all, board.f[i].sev, board.f[i].code, "%s", board.f[i].text);

	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "status");
	apenet_out_obj_begin(o, "board");
	apenet_out_str(o, "bdf", v.bdf);
	apenet_out_str(o, "variant", v.prof->name);
	apenet_out_str(o, "title", v.prof->title);
	apenet_out_strf(o, "firmware", "%u.%u.%u", APENET_GET(ID_FW_VERSION, MAJOR, s->g.ID_FW_VERSION),
		 APENET_GET(ID_FW_VERSION, MINOR, s->g.ID_FW_VERSION), APENET_GET(ID_FW_VERSION, PATCH, s->g.ID_FW_VERSION));
	apenet_out_hex(o, "build", s->g.ID_BUILD, 8);
	cli_out_coord(o, "node", (uint32_t)s->g.NODE_COORD);
	cli_out_coord(o, "torus", (uint32_t)s->g.TORUS_DIMS);
	apenet_out_bool(o, "emulated", APENET_GET(ID_CAPS, EMULATED, s->g.ID_CAPS));
	apenet_out_uint(o, "ber_accel", s->g.BER_ACCEL);
	apenet_out_dbl(o, "uptime_s", s->g.TIMESTAMP >= s->g.UPTIME_TS ? apenet_ticks_to_s(s, s->g.TIMESTAMP - s->g.UPTIME_TS) : 0, 1);
	apenet_out_str(o, "source", v.source);
	apenet_out_obj_end(o);
	sensors(o, &v, &cfg.thr);
	watchdog(o, &v);
	cli_out_ldm(o, "ldm", (uint32_t)s->g.LDM_OWN);
	apenet_out_arr_begin(o, "neighbours");
	for (unsigned l = 0; l < v.prof->nlinks; l++) {
		struct apenet_link_stats st;
		struct apenet_verdict lv;
		apenet_link_stats(&v, l, &st);
		apenet_rules_link(&v, l, &st, &cfg, &lv);
		for (unsigned i = 0; i < lv.n; i++)
			apenet_verdict_add(&all, lv.f[i].sev, lv.f[i].code, "%s", lv.f[i].text);
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "link", v.prof->links[l].name);
		apenet_out_str(o, "state", apenet_link_state_name(st.state));
		if (st.partner_valid && !st.partner_ext) {
			char t[32];
			snprintf(t, sizeof(t), "%u,%u,%u", st.partner[0], st.partner[1], st.partner[2]);
			apenet_out_str(o, "from", t);
		} else {
			apenet_out_str(o, "from", st.partner_ext ? "external" : NULL);
		}
		if (s->link[l].LINK_LDM_RX_COUNT) {
			apenet_out_dbl(o, "age_ms", st.ldm_age_s * 1000, 1);
			cli_out_ldm(o, "ldm", (uint32_t)s->link[l].LINK_LDM_RX);
		} else {
			apenet_out_null(o, "age_ms");
			apenet_out_null(o, "ldm");
		}
		apenet_out_str(o, "verdict", apenet_sev_name(lv.sev));
		apenet_out_obj_end(o);
	}
	apenet_out_arr_end(o);
	apenet_out_obj_begin(o, "pcie");
	if (v.pcie_ok) {
		apenet_out_strf(o, "capable", "%s x%u", apenet_pcie_speed_str(v.pcie.cap_gen), v.pcie.cap_width);
		apenet_out_strf(o, "trained", "%s x%u", apenet_pcie_speed_str(v.pcie.sta_gen), v.pcie.sta_width);
		apenet_out_bool(o, "degraded", v.pcie.degraded);
	} else {
		apenet_out_str(o, "error", v.pcie_err);
	}
	apenet_out_obj_end(o);
	cli_out_verdict(o, &all);
	rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : cli_exit_sev(all.sev);
	apenet_config_free(&cfg);
	return rc;
}
