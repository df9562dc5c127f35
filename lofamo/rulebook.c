/*
 * One recommendation per code (include/apenet/finding.h, apenet_code_rec):
 * the wording of every code whose advice does not depend on where it is
 * found, stored once.  apenet_finding_add gives it to every finding of the
 * code, whichever rule adds it (the CLI's judges, the tests' verdicts, the
 * report's trends), and the post-mortem report words its recommendations
 * about the same conditions with it (report/recommend.c), so one condition
 * is never advised two ways.  Facts of one finding (the --max-time that
 * would allow a test) follow the wording (apenet_finding_rec_fact).
 *
 * Each row is docs/verdicts.md's "what to do" for the code, word for word
 * (tests/unit/lofamo/test_rulebook.c reads the doc).  The link, module and
 * cabling codes name the place to look at (LINK_DOWN: "check the cable to
 * node 2,0,0"; MODULE_ALARM: which monitor) and are worded by their rules.
 */
#include <stddef.h>
#include <string.h>

#include "apenet/finding.h"

/* Shared by the codes that say the same thing about different readings. */
#define COOLING "check the cooling (fans, air flow, blocked vents, the rack's inlet temperature)"
#define POWER "check the power (the node's supply, the PDU feed, the slot and the card's 12 V cable)"
#define RUN_LONGER ": nothing here says the cable is bad"

static const struct {
	const char *code, *rec;
} book[] = {
	/* the board and its sensors (lofamo/verdict.c; the report's trends) */
	{ "FPGA_TEMP", COOLING },
	{ "BOARD_TEMP", COOLING },
	{ "VCORE_LOW", POWER },
	{ "V12_RANGE", POWER },
	{ "ICORE_HIGH", POWER },
	{ "DNP_HUNG", "reset the card (reload its firmware or power-cycle the node); replace it if it happens again" },
	{ "CARD_GONE", "reseat the card, check its slot, riser and power, then reboot the node; replace the card if it "
		       "happens again" },
	{ "HOST_EXPIRED", "check the host and its agent (is apenet-agent running? the kernel log for hung tasks or "
			  "panics, the BMC's event log)" },
	{ "LDM_OWN_INVALID", "reset the card; if it persists, update its firmware" },
	{ "PCIE_DEGRADED", "reseat the card or move it to a full slot" },
	{ "PCIE_AER_UNCORRECTABLE", "check the slot and the card" },
	{ "PCIE_AER_CORRECTABLE", "watch it; clear the AER status and see whether it comes back" },
	/* the tests (lofamo/rules_ber.c, rules_sweep.c, rules_latency.c) */
	{ "BER_FAIL", "tune the lane's PMA settings (apenet sweep) or replace the cable" },
	{ "BER_NOT_PROVEN", "run it longer (--max-time) or fix its length in advance (--bits)" RUN_LONGER },
	{ "CABLE_INCONCLUSIVE", "run it longer (--max-time)" RUN_LONGER },
	{ "CABLE_NOT_QUALIFIED", "if it was not swept, let qualify sweep it (without --no-sweep; narrowed with --params, "
				 "--range or --dwell-bits, or allowed longer with --max-time); if it still fails, "
				 "replace the cable by its serial" },
	{ "SWEEP_NO_SETTING", "dwell longer (--dwell-bits), widen the ranges, or replace the cable" },
	{ "SWEEP_INCOMPLETE", "allow it longer (--max-time) or narrow it (--params, --range, --dwell-bits)" },
	{ "LATENCY_NOT_DETERMINISTIC", "check the transceiver's word aligner and deskew settings; the link cannot "
				       "carry timing until every alignment gives the same latency" },
};

const char *apenet_code_rec(const char *code)
{
	for (size_t i = 0; code && i < sizeof(book) / sizeof(book[0]); i++)
		if (!strcmp(book[i].code, code))
			return book[i].rec;
	return NULL;
}

int apenet_code_rec_row(size_t i, const char **code, const char **rec)
{
	if (i >= sizeof(book) / sizeof(book[0]))
		return 0;
	*code = book[i].code;
	*rec = book[i].rec;
	return 1;
}
