/*
 * Black-box trends for the post-mortem report: a node's dump (the agent's
 * apenet snapshot document of its last minutes, docs/agent.md "Black box")
 * read back sample by sample into series: temperatures, supply voltages
 * and currents, and per link the CRC error and retransmission rates and
 * the RX FIFO level.
 *
 * Which dump: the agent names each "blackbox-X-Y-Z-<UTC time>-<n>.json"
 * when it writes it, and writes one on every transition to sick or broken,
 * so the first one written at or after the fault holds the minutes before
 * it; failing that, the latest one written before.  The directories given
 * are searched three levels down: operators collect the nodes' black-box
 * directories into one tree, a directory per host.
 *
 * Two judgements per series, by lofamo/rules_trend.c: "notable" (it moved
 * before the fault: a note for whoever reads the trends) and "crossed" (a
 * reading went past the configured warn limit of its rule: worth that
 * rule's recommendation).  A warm-up from 45 to 52 C is notable and nothing
 * more.  The dump's modules (their EEPROM pages) say which cable is in each
 * port.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "apenet/module.h"
#include "apenet/rules_trend.h"
#include "apenet/snapfile.h"
#include "postmortem_int.h"

_Static_assert(APENET_POSTMORTEM_MAX_PORTS >= APENET_MAX_LINKS, "a module per port");

/* A dump of the asked-for node: its path and when it was written. */
struct cand {
	char path[512];
	int64_t written_ms;
};

struct search {
	char prefix[48];
	struct cand before, after;
	int has_before, has_after;
	int64_t t_ms;
	unsigned files;
};

/* "...-YYYYMMDDTHHMMSS.mmmZ-N.json" after the prefix -> epoch ms; -1. */
static int64_t name_time(const char *rest)
{
	struct tm tm;
	unsigned ms;
	memset(&tm, 0, sizeof(tm));
	if (sscanf(rest, "%4d%2d%2dT%2d%2d%2d.%3uZ-", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &ms) != 7)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + ms;
}

static void consider(struct search *s, const char *dir, const char *name)
{
	size_t len = strlen(name), pl = strlen(s->prefix);
	if (len < pl + 5 || strncmp(name, s->prefix, pl) || strcmp(name + len - 5, ".json"))
		return;
	int64_t w = name_time(name + pl);
	if (w < 0)
		return;
	s->files++;
	struct cand c;
	if ((size_t)snprintf(c.path, sizeof(c.path), "%s/%s", dir, name) >= sizeof(c.path))
		return;
	c.written_ms = w;
	if (w >= s->t_ms) {
		if (!s->has_after || w < s->after.written_ms)
			s->after = c, s->has_after = 1;
	} else if (!s->has_before || w > s->before.written_ms) {
		s->before = c, s->has_before = 1;
	}
}

static void walk(struct search *s, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char sub[512];
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name) >= sizeof(sub))
			continue;
		struct stat st;
		if (stat(sub, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth < 3)
				walk(s, sub, depth + 1);
		} else if (S_ISREG(st.st_mode)) {
			consider(s, dir, de->d_name);
		}
	}
	closedir(d);
}

/* ---- the series ---- */

enum { S_FPGA, S_BOARD, S_VCORE, S_VXCVR, S_V12, S_ICORE, S_I12, S_NFIXED };
enum { L_CRC, L_RETRANS, L_FIFO, L_N };
#define NSER (S_NFIXED + APENET_MAX_LINKS * L_N)

/* Each series, what its rule reads it as, and the code of the rule whose
 * warn limits it has (limits() below). */
struct ser_info {
	const char *name, *label, *unit;
	enum apenet_trend_kind kind;
	const char *code;
};
static const struct ser_info fixed[S_NFIXED] = {
	[S_FPGA] = { "fpga_temp", "FPGA temperature", "C", APENET_TREND_TEMP, "FPGA_TEMP" },
	[S_BOARD] = { "board_temp", "board temperature", "C", APENET_TREND_TEMP, "BOARD_TEMP" },
	[S_VCORE] = { "vcore", "core supply", "V", APENET_TREND_SUPPLY, "VCORE_LOW" },
	[S_VXCVR] = { "vxcvr", "transceiver supply", "V", APENET_TREND_SUPPLY, NULL },
	[S_V12] = { "v12", "12 V input", "V", APENET_TREND_SUPPLY, "V12_RANGE" },
	[S_ICORE] = { "icore", "core current", "A", APENET_TREND_CURRENT, "ICORE_HIGH" },
	[S_I12] = { "i12", "12 V input current", "A", APENET_TREND_CURRENT, NULL },
};
static const struct ser_info perlink[L_N] = {
	[L_CRC] = { "crc_errors", "CRC errors", "/s", APENET_TREND_ERRORS, NULL },
	[L_RETRANS] = { "retransmissions", "retransmissions", "/s", APENET_TREND_ERRORS, NULL },
	[L_FIFO] = { "fifo", "RX FIFO level", "%", APENET_TREND_FIFO, NULL },
};

/* Every sample's values (NaN: none), before they are thinned. */
struct raw {
	size_t n, cap;
	int64_t *t;
	double *v; /* n x NSER */
	struct apenet_snapshot prev;
	int64_t prev_ms;
	int has_prev;
	const struct apenet_profile *prof;
	int64_t unreadable_ms;
	char reason[200];
	double vcore_nom_v;     /* the board's nominal core supply (V); 0 unknown */
	struct apenet_postmortem_module mod[APENET_POSTMORTEM_MAX_PORTS];
	unsigned nmod;
	int have_modules;
	struct apenet_err *e;
	int failed;
};

/* The modules of the dump that name themselves. */
static void modules(struct raw *r, const struct apenet_snapfile_info *info)
{
	r->have_modules = 1;
	if (!info->ee_status || !info->prof)
		return;
	for (unsigned l = 0; l < info->prof->nlinks && l < APENET_MAX_LINKS; l++) {
		if (!APENET_GET(EE_STATUS, PRESENT, info->ee_status[l]))
			continue;
		struct apenet_module_image img;
		struct apenet_module_id id;
		char why[160];
		apenet_module_from_window(info->ee[l], info->ee_status[l], &img);
		if (apenet_module_identity(&img, &id, why, sizeof(why)))
			continue; /* no serial to name it by */
		struct apenet_postmortem_module *m = &r->mod[r->nmod++];
		snprintf(m->port, sizeof(m->port), "%s", info->prof->links[l].name);
		snprintf(m->serial, sizeof(m->serial), "%s", id.serial);
		snprintf(m->vendor, sizeof(m->vendor), "%s", id.vendor);
		snprintf(m->part, sizeof(m->part), "%s", id.part);
		m->length_m = id.length_m;
	}
}

static double sensor(uint64_t v, double scale)
{
	if (v == 0xffffffffull)
		return NAN; /* all-ones: the card is off the bus */
	return (double)(int32_t)(uint32_t)v * scale;
}

static int on_sample(void *arg, const struct apenet_snapfile_info *info, const struct apenet_snapshot *s, int64_t host_ms)
{
	struct raw *r = arg;
	r->prof = info->prof;
	if (!r->n)
		snprintf(r->reason, sizeof(r->reason), "%s", info->reason);
	if (!r->have_modules)
		modules(r, info);
	if (r->n == r->cap) {
		size_t c = r->cap ? r->cap * 2 : 256;
		int64_t *t = realloc(r->t, c * sizeof(*t));
		if (t)
			r->t = t;
		double *v = t ? realloc(r->v, c * NSER * sizeof(*v)) : NULL;
		if (!t || !v) {
			apenet_err_set(r->e, APENET_EIO, "report: out of memory reading a black box");
			r->failed = 1;
			return 1;
		}
		r->v = v;
		r->cap = c;
	}
	double *v = &r->v[r->n * NSER];
	for (unsigned i = 0; i < NSER; i++)
		v[i] = NAN;
	int64_t t = host_ms ? host_ms : (int64_t)(apenet_ticks_to_s(s, s->g.TIMESTAMP) * 1000);
	r->t[r->n] = t;
	if (s->g.SENS_FPGA_TEMP == 0xffffffffull && !r->unreadable_ms)
		r->unreadable_ms = t;
	v[S_FPGA] = sensor(s->g.SENS_FPGA_TEMP, 1e-3);
	v[S_BOARD] = sensor(s->g.SENS_BOARD_TEMP, 1e-3);
	v[S_VCORE] = sensor(s->g.SENS_VCORE, 1e-3);
	v[S_VXCVR] = sensor(s->g.SENS_VXCVR, 1e-3);
	v[S_V12] = sensor(s->g.SENS_V12, 1e-3);
	v[S_ICORE] = sensor(s->g.SENS_ICORE, 1e-3);
	v[S_I12] = sensor(s->g.SENS_I12, 1e-3);
	if (s->g.SENS_VCORE_NOM && s->g.SENS_VCORE_NOM != 0xffffffffull)
		r->vcore_nom_v = (double)s->g.SENS_VCORE_NOM * 1e-3;
	for (unsigned l = 0; l < s->nlinks && l < APENET_MAX_LINKS; l++) {
		const struct apenet_snap_link *k = &s->link[l];
		double *lv = &v[S_NFIXED + l * L_N];
		if (k->LINK_FIFO_DEPTH && k->LINK_FIFO_DEPTH != 0xffffffffull) {
			uint64_t lvl = k->LINK_FIFO_LVL0 > k->LINK_FIFO_LVL1 ? k->LINK_FIFO_LVL0 : k->LINK_FIFO_LVL1;
			lv[L_FIFO] = 100.0 * (double)lvl / (double)k->LINK_FIFO_DEPTH;
		}
		if (!r->has_prev || s->g.TIMESTAMP <= r->prev.g.TIMESTAMP)
			continue; /* no interval (or a firmware reset between): no rate */
		double dt = apenet_ticks_to_s(s, s->g.TIMESTAMP - r->prev.g.TIMESTAMP);
		const struct apenet_snap_link *p = &r->prev.link[l];
		if (dt <= 0)
			continue;
		uint64_t crc = k->LINK_HDR_CRC_ERR + k->LINK_FTR_CRC_ERR + k->LINK_PAYLOAD_ERR;
		uint64_t crc0 = p->LINK_HDR_CRC_ERR + p->LINK_FTR_CRC_ERR + p->LINK_PAYLOAD_ERR;
		/* a counter that went back was cleared: no rate for this interval */
		if (crc >= crc0)
			lv[L_CRC] = (double)(crc - crc0) / dt;
		if (k->LINK_RETRANS >= p->LINK_RETRANS)
			lv[L_RETRANS] = (double)(k->LINK_RETRANS - p->LINK_RETRANS) / dt;
	}
	r->prev = *s;
	r->prev_ms = t;
	r->has_prev = 1;
	r->n++;
	return 0;
}

/* Thins the n samples of column c into se: at most APENET_POSTMORTEM_MAX_POINTS,
 * each bucket's largest value (a peak must not vanish from a sparkline). */
static void thin(const struct raw *r, unsigned c, int64_t t_ms, struct apenet_postmortem_series *se)
{
	se->first = se->last = se->min = se->max = se->at_fault = NAN;
	se->n = 0;
	size_t per = (r->n + APENET_POSTMORTEM_MAX_POINTS - 1) / APENET_POSTMORTEM_MAX_POINTS;
	if (per == 0)
		per = 1;
	for (size_t b = 0; b < r->n; b += per) {
		double best = NAN;
		int64_t bt = r->t[b];
		for (size_t i = b; i < b + per && i < r->n; i++) {
			double x = r->v[i * NSER + c];
			if (!isnan(x) && (isnan(best) || x > best))
				best = x, bt = r->t[i];
		}
		if (isnan(best))
			continue;
		se->t[se->n] = bt;
		se->v[se->n++] = best;
	}
	for (size_t i = 0; i < r->n; i++) {
		double x = r->v[i * NSER + c];
		if (isnan(x))
			continue;
		if (isnan(se->first))
			se->first = x;
		se->last = x;
		if (isnan(se->min) || x < se->min)
			se->min = x;
		if (isnan(se->max) || x > se->max)
			se->max = x, se->max_ms = r->t[i];
		if (r->t[i] <= t_ms)
			se->at_fault = x;
	}
}

/* Whether a series moved before the fault, and whether a reading went
 * past its warn limit, in words (lofamo/rules_trend.c). */
static void judge(struct apenet_postmortem_series *se, const struct ser_info *info, const struct raw *r, int64_t t_ms)
{
	struct apenet_trend t = { .kind = info->kind, .unit = se->unit, .code = info->code, .first = se->first,
				  .at_fault = se->at_fault, .min = se->min, .max = se->max, .warn_low = se->warn_low,
				  .warn_high = se->warn_high };
	t.span_min = r->n ? (double)((t_ms < r->t[r->n - 1] ? t_ms : r->t[r->n - 1]) - r->t[0]) / 60000.0 : 0;
	struct apenet_findings fs;
	apenet_findings_init(&fs);
	apenet_rules_trend(&t, se->name, &fs);
	for (size_t i = 0; i < fs.n; i++) { /* the rules' messages are short: they fit the notes */
		const struct apenet_finding *f = &fs.f[i];
		if (f->sev == APENET_SEV_OK) {
			se->notable = 1;
			snprintf(se->note, sizeof(se->note), "%.*s", (int)sizeof(se->note) - 1, f->message);
		} else {
			se->crossed = 1;
			snprintf(se->crossed_note, sizeof(se->crossed_note), "%.*s", (int)sizeof(se->crossed_note) - 1,
				 f->message);
			snprintf(se->crossed_code, sizeof(se->crossed_code), "%s", f->code);
		}
	}
	apenet_findings_free(&fs);
}

/* The warn limits of the rules that judge the fixed series (lofamo's
 * apenet_rules_sensors: the same thresholds); the rest have none here. */
static void limits(struct apenet_postmortem_series *se, unsigned c, const struct raw *r, const struct apenet_thresholds *t)
{
	se->warn_low = se->warn_high = NAN;
	if (!t)
		return;
	switch (c) {
	case S_FPGA: se->warn_high = t->fpga_temp_warn_c; break;
	case S_BOARD: se->warn_high = t->board_temp_warn_c; break;
	case S_VCORE:
		if (r->vcore_nom_v > 0)
			se->warn_low = r->vcore_nom_v * (1 - t->vdroop_warn_pct / 100);
		break;
	case S_V12:
		if (se->first > 0) { /* a board without the sensor reads 0 */
			se->warn_low = 12 * (1 - t->v12_tol_warn_pct / 100);
			se->warn_high = 12 * (1 + t->v12_tol_warn_pct / 100);
		}
		break;
	case S_ICORE: se->warn_high = t->icore_sick_ma / 1000; break;
	}
}

static int make_series(struct raw *r, int64_t t_ms, const char *focus, const struct apenet_thresholds *thr,
		       struct apenet_postmortem_trend *out, struct apenet_err *e)
{
	out->series = calloc(NSER, sizeof(*out->series));
	if (!out->series) {
		apenet_err_set(e, APENET_EIO, "report: out of memory for the trends");
		return -1;
	}
	for (unsigned c = 0; c < NSER; c++) {
		struct apenet_postmortem_series *se = &out->series[out->nseries];
		const struct ser_info *info;
		memset(se, 0, sizeof(*se));
		if (c < S_NFIXED) {
			info = &fixed[c];
			snprintf(se->name, sizeof(se->name), "%s", info->name);
			snprintf(se->label, sizeof(se->label), "%s", info->label);
		} else {
			unsigned l = (c - S_NFIXED) / L_N, k = (c - S_NFIXED) % L_N;
			if (!r->prof || l >= r->prof->nlinks)
				continue;
			const char *ln = r->prof->links[l].name;
			info = &perlink[k];
			snprintf(se->name, sizeof(se->name), "%s %s", ln, info->name);
			snprintf(se->label, sizeof(se->label), "%s %s", ln, info->label);
		}
		snprintf(se->unit, sizeof(se->unit), "%s", info->unit);
		thin(r, c, t_ms, se);
		limits(se, c, r, thr);
		if (!se->n)
			continue;
		/* a link's series is worth showing when it moved, or when it is
		 * the link the fault is on */
		if (c >= S_NFIXED) {
			unsigned l = (c - S_NFIXED) / L_N;
			int is_focus = focus && !strcmp(focus, r->prof->links[l].name);
			if (!is_focus && !(se->max > 0))
				continue;
		}
		judge(se, info, r, t_ms);
		out->nseries++;
	}
	return 0;
}

int apenet_postmortem_trend_load(const char *const *dirs, unsigned ndirs, const unsigned xyz[3], int64_t t_ms,
			 const char *focus_link, const struct apenet_thresholds *thr, struct apenet_postmortem_trend *out,
			 char *note, size_t nnote, struct apenet_err *e)
{
	struct search s;
	memset(&s, 0, sizeof(s));
	memset(out, 0, sizeof(*out));
	memcpy(out->node, xyz, sizeof(out->node));
	snprintf(s.prefix, sizeof(s.prefix), "blackbox-%u-%u-%u-", xyz[0], xyz[1], xyz[2]);
	s.t_ms = t_ms;
	for (unsigned i = 0; i < ndirs; i++)
		walk(&s, dirs[i], 0);
	const struct cand *c = s.has_after ? &s.after : s.has_before ? &s.before : NULL;
	if (!c) {
		snprintf(note, nnote, "no black box of node %u,%u,%u in the directories given", xyz[0], xyz[1], xyz[2]);
		return 0;
	}
	struct raw r;
	memset(&r, 0, sizeof(r));
	r.e = e;
	if (apenet_snapfile_each(c->path, on_sample, &r, e) || r.failed) {
		free(r.t);
		free(r.v);
		return -1;
	}
	snprintf(out->file, sizeof(out->file), "%s", c->path);
	snprintf(out->reason, sizeof(out->reason), "%s", r.reason);
	out->samples = (unsigned)r.n;
	out->unreadable_ms = r.unreadable_ms;
	memcpy(out->modules, r.mod, sizeof(out->modules));
	out->nmodules = r.nmod;
	if (r.n) {
		out->from_ms = r.t[0];
		out->to_ms = r.t[r.n - 1];
	}
	int rc = 0;
	if (r.n < 2) {
		snprintf(note, nnote, "%s: fewer than two samples", c->path);
	} else if (out->from_ms > t_ms) {
		snprintf(note, nnote, "%s: starts after the first fault (its samples are %lld s later)", c->path,
			 (long long)((out->from_ms - t_ms) / 1000));
	}
	if (r.n >= 1)
		rc = make_series(&r, t_ms, focus_link, thr, out, e);
	free(r.t);
	free(r.v);
	return rc ? -1 : 1;
}
