/* apenet list: every card, with its PCIe link trained against capable. */
#include <stdio.h>
#include <string.h>

#include "apenet/verdict.h"
#include "cli.h"

static void out_pcie_pair(struct apenet_out *o, const char *key, unsigned gen, unsigned width)
{
	char t[32];
	snprintf(t, sizeof(t), "%s x%u", apenet_pcie_speed_str(gen), width);
	apenet_out_obj_begin_text(o, key, t);
	apenet_out_uint(o, "gen", gen);
	apenet_out_str(o, "speed", apenet_pcie_speed_str(gen));
	apenet_out_uint(o, "width", width);
	apenet_out_obj_end(o);
}

static void out_pcie(struct apenet_out *o, const struct apenet_card *c)
{
	if (!c->pcie_ok) {
		apenet_out_obj_begin_text(o, "pcie", c->pcie_err[0] ? c->pcie_err : "no PCIe capability");
		apenet_out_str(o, "error", c->pcie_err[0] ? c->pcie_err : "no PCIe capability");
		apenet_out_obj_end(o);
		return;
	}
	const struct apenet_pcie_info *p = &c->pcie;
	apenet_out_obj_begin(o, "pcie");
	out_pcie_pair(o, "capable", p->cap_gen, p->cap_width);
	out_pcie_pair(o, "trained", p->sta_gen, p->sta_width);
	apenet_out_bool(o, "degraded", p->degraded);
	if (p->has_aer) {
		char t[48];
		snprintf(t, sizeof(t), "%s", p->aer_uncor_status || p->aer_cor_status ? "errors" : "clean");
		apenet_out_obj_begin_text(o, "aer", t);
		apenet_out_hex(o, "uncorrectable", p->aer_uncor_status, 8);
		apenet_out_hex(o, "correctable", p->aer_cor_status, 8);
		apenet_out_obj_end(o);
	}
	apenet_out_obj_end(o);
}

int cmd_list(struct cli *c)
{
	struct apenet_site site;
	struct apenet_err e = { 0 };
	struct apenet_card cards[APENET_MAX_CARDS];
	int n = 0, rc = CLI_EXIT_OK;

	if (apenet_site_init(&site, c->sim, &e) || apenet_pci_scan(&site, cards, APENET_MAX_CARDS, &n, &e))
		return cli_fail(&e);
	if (n == 0) {
		fprintf(stderr, "apenet: no APEnet card found on %s\n",
			site.dump[0] ? site.dump : "this machine's PCI bus");
		return CLI_EXIT_ERROR;
	}

	struct apenet_findings fs;
	apenet_findings_init(&fs);
	for (int i = 0; i < n; i++)
		apenet_rules_card(&cards[i], &fs);
	struct apenet_out *o = apenet_out_new(c->fmt, stdout, "list");
	apenet_out_arr_begin(o, "cards");
	for (int i = 0; i < n; i++) {
		const struct apenet_card *card = &cards[i];
		struct apenet_dev d;
		apenet_out_obj_begin(o, NULL);
		apenet_out_str(o, "bdf", card->bdf);
		if (apenet_dev_open_card(&d, &site, card, &e)) {
			/* Every card gets a row; the error is a record, not only stderr. */
			apenet_out_str(o, "variant", card->prof ? card->prof->name : NULL);
			apenet_out_str(o, "state", e.code == APENET_EGONE ? "not-responding" : "error");
			apenet_out_str(o, "error", e.msg);
			fprintf(stderr, "apenet: %s\n", e.msg);
			rc = CLI_EXIT_ERROR;
			apenet_out_obj_end(o);
			continue;
		}
		uint32_t fw = apenet_rd32(&d, APENET_REG_ID_FW_VERSION);
		uint32_t coord = apenet_rd32(&d, APENET_REG_NODE_COORD);
		uint32_t dims = apenet_rd32(&d, APENET_REG_TORUS_DIMS);
		uint32_t caps = apenet_rd32(&d, APENET_REG_ID_CAPS);
		if (apenet_dev_check(&d, &e)) { /* it left between the reads */
			apenet_out_str(o, "state", "not-responding");
			apenet_out_str(o, "error", e.msg);
			fprintf(stderr, "apenet: %s\n", e.msg);
			rc = CLI_EXIT_ERROR;
			apenet_dev_close(&d);
			apenet_out_obj_end(o);
			continue;
		}
		apenet_out_str(o, "variant", d.prof->name);
		apenet_out_strf(o, "firmware", "%u.%u.%u", APENET_GET(ID_FW_VERSION, MAJOR, fw),
			 APENET_GET(ID_FW_VERSION, MINOR, fw), APENET_GET(ID_FW_VERSION, PATCH, fw));
		cli_out_coord(o, "node", coord);
		cli_out_coord(o, "torus", dims);
		apenet_out_bool(o, "emulated", APENET_GET(ID_CAPS, EMULATED, caps));
		out_pcie(o, card);
		apenet_out_str(o, "state", "ok");
		apenet_out_obj_end(o);
		apenet_dev_close(&d);
	}
	apenet_out_arr_end(o);
	int frc = cli_finish(o, &fs); /* a card trained below what it can do: 1 */
	apenet_findings_free(&fs);
	return rc == CLI_EXIT_ERROR || frc == CLI_EXIT_ERROR ? CLI_EXIT_ERROR : frc;
}
