/* apenet status: identity, sensors against thresholds, the watchdog, the
 * DNP's own LDM and what each neighbour last said, and one verdict. */
#include <stdio.h>
#include <string.h>

#include "apenet/config.h"
#include "apenet/verdict.h"
#include "apenet/view.h"
#include "cli.h"

static void sensors(struct apenet_out *o, const struct apenet_view *v, const struct apenet_config *cfg)
{
	struct apenet_sensor sn[APENET_NSENSORS];
	unsigned n = apenet_rules_sensors(v, cfg, NULL, sn);
	apenet_out_arr_begin(o, "sensors");
	for (unsigned i = 0; i < n; i++) {
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "name", sn[i].name);
		if (sn[i].present)
			apenet_out_dbl(o, "value", sn[i].value, sn[i].prec);
		else
			apenet_out_null(o, "value");
		apenet_out_str(o, "unit", sn[i].unit);
		/* infinite limits: none (the writer shows them as null) */
		apenet_out_dbl(o, "low_fail", sn[i].low_fail, sn[i].prec);
		apenet_out_dbl(o, "low_warn", sn[i].low_warn, sn[i].prec);
		apenet_out_dbl(o, "high_warn", sn[i].high_warn, sn[i].prec);
		apenet_out_dbl(o, "high_fail", sn[i].high_fail, sn[i].prec);
		apenet_out_str(o, "state", sn[i].present ? apenet_sev_name(sn[i].sev) : "absent");
		apenet_out_obj_end(o);
	}
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
					{ "--config", &config, NULL }, { "--at", &c->at, NULL }, { NULL, NULL, NULL } };
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
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	apenet_rules_pair(&v, &cfg, NULL, &fs);

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
	cli_out_replay(o, &v);
	apenet_out_bool(o, "emulated", APENET_GET(ID_CAPS, EMULATED, s->g.ID_CAPS));
	apenet_out_uint(o, "ber_accel", s->g.BER_ACCEL);
	apenet_out_dbl(o, "uptime_s", s->g.TIMESTAMP >= s->g.UPTIME_TS ? apenet_ticks_to_s(s, s->g.TIMESTAMP - s->g.UPTIME_TS) : 0, 1);
	apenet_out_str(o, "source", v.source);
	apenet_out_obj_end(o);
	sensors(o, &v, &cfg);
	watchdog(o, &v);
	cli_out_ldm(o, "ldm", (uint32_t)s->g.LDM_OWN);
	/* each link in the shape `link` writes; a row each for people */
	apenet_out_arr_begin(o, "links");
	for (unsigned l = 0; l < v.prof->nlinks; l++) {
		struct apenet_link_stats st;
		apenet_link_stats(&v, l, &st);
		if (c->fmt == APENET_OUT_JSON)
			cli_out_link(o, &v, l, &st, &fs, &cfg);
		else
			cli_out_link_row(o, &v, l, &st, &fs, &cfg);
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
	apenet_verdict_write(o, "verdict", &fs, -1);
	rc = cli_finish(o, &fs);
	apenet_findings_free(&fs);
	apenet_config_free(&cfg);
	return rc;
}
