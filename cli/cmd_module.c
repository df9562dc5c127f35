/* apenet module [PORT] | --eeprom-file FILE: the module EEPROM of each port
 * (QSFP+: SFF-8636, SFP+: SFF-8472) decoded as `ethtool -m` does, check codes
 * verified, and judged by the module rules (lofamo/rules_module.c): every
 * condition a finding, and a verdict per module. */
#include <stdio.h>
#include <string.h>

#include "apenet/module.h"
#include "apenet/rules_module.h"
#include "apenet/sff8472.h"
#include "apenet/sff8636.h"
#include "apenet/view.h"
#include "cli.h"

/* One module's object: decoded fields, monitors, and its verdict. */
static void out_module(struct apenet_out *o, struct apenet_findings *fs, int link, const char *port,
		       const char *where, const struct apenet_module_image *img)
{
	/* Static: a few KB each, and a command decodes one module at a time. */
	static struct apenet_sff8636 q;
	static struct apenet_sff8472 s;
	struct apenet_module_health h;
	char err[256];
	int rc;

	apenet_out_obj_begin(o, NULL);
	apenet_out_str(o, "port", port);
	if (img->layout == APENET_EE_SFF8472)
		rc = apenet_sff8472_decode(img->b, img->len, &s, err, sizeof(err));
	else
		rc = apenet_sff8636_decode(img->b, img->len, &q, err, sizeof(err));
	if (rc) {
		apenet_out_bool(o, "decoded", 0);
		apenet_out_str(o, "error", err);
		apenet_rules_module_unreadable(link, where, err, fs);
		apenet_verdict_write(o, "verdict", fs, link);
		apenet_out_obj_end(o);
		return;
	}
	apenet_out_bool(o, "decoded", 1);
	if (img->layout == APENET_EE_SFF8472) {
		apenet_out_str(o, "spec", "SFF-8472");
		apenet_out_uint(o, "bytes", s.len);
		cli_out_sff8472(o, &s);
		apenet_sff8472_health(&s, &h);
	} else {
		apenet_out_str(o, "spec", "SFF-8636");
		apenet_out_uint(o, "bytes", q.len);
		cli_out_sff8636(o, &q);
		apenet_sff8636_health(&q, &h);
	}
	cli_out_module_health(o, &h);
	apenet_out_uint(o, "alarm_count", (unsigned)apenet_rules_module(&h, link, where, fs));
	apenet_verdict_write(o, "verdict", fs, link);
	apenet_out_obj_end(o);
}

/* The findings, the exit code from the worst of them. */
static int finish(struct apenet_out *o, struct apenet_findings *fs)
{
	enum apenet_sev worst = apenet_findings_worst(fs, NULL);
	int rc;

	apenet_findings_write(o, fs);
	rc = apenet_out_finish(o) ? CLI_EXIT_ERROR : cli_exit_sev(worst);
	apenet_findings_free(fs);
	return rc;
}

static int from_file(struct cli *c, const char *file)
{
	static struct apenet_module_image img;
	struct apenet_findings fs;
	char err[512];
	enum apenet_module_file_err e = apenet_module_load_file(file, &img, err, sizeof(err));
	const char *base = strrchr(file, '/');

	if (e)
		return cli_input_error(c, "module", apenet_module_file_err_code(e), "%s", err);
	apenet_findings_init(&fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "module");
	apenet_out_arr_begin_vertical(o, "modules");
	/* Findings name the file by its base name: their `where` is short. */
	out_module(o, &fs, 0, file, base ? base + 1 : file, &img);
	apenet_out_arr_end(o);
	return finish(o, &fs);
}

int cmd_module(struct cli *c)
{
	const char *from = NULL, *file = NULL;
	const struct cli_opt opts[] = { { "--from", &from, NULL }, { "--eeprom-file", &file, NULL }, { NULL, NULL, NULL } };
	const char *pos[1] = { NULL };
	int npos, only = -1;
	static struct apenet_view v;
	static struct apenet_module_image img;
	struct apenet_findings fs;

	if (cli_parse(c, "module", opts, pos, 1, &npos))
		return CLI_EXIT_ERROR;
	if (file) {
		if (pos[0] || from)
			return cli_usage_error("module", "--eeprom-file takes no port and no --from");
		return from_file(c, file);
	}
	int rc = cli_view(c, from, 0, 1, &v);
	if (rc)
		return rc;
	if (pos[0] && (only = cli_link_index(v.prof, pos[0])) < 0)
		return cli_usage_error("module", "no port '%s' on a %s", pos[0], v.prof->name);
	apenet_findings_init(&fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "module");
	apenet_out_str(o, "bdf", v.bdf);
	apenet_out_str(o, "variant", v.prof->name);
	apenet_out_arr_begin_vertical(o, "modules");
	for (unsigned l = 0; l < v.prof->nlinks; l++) {
		const struct apenet_link_profile *lp = &v.prof->links[l];
		if (only >= 0 && (unsigned)only != l)
			continue;
		if (!APENET_GET(EE_STATUS, PRESENT, v.ee_status[l])) {
			apenet_out_obj_begin(o, NULL);
			apenet_out_str(o, "port", lp->name);
			apenet_out_bool(o, "present", 0);
			apenet_rules_module_absent((int)l, lp->name, (enum apenet_cage)lp->has_module, &fs);
			apenet_verdict_write(o, "verdict", &fs, (int)l);
			apenet_out_obj_end(o);
			continue;
		}
		apenet_module_from_window(v.ee[l], v.ee_status[l], &img);
		out_module(o, &fs, (int)l, lp->name, lp->name, &img);
	}
	apenet_out_arr_end(o);
	return finish(o, &fs);
}
