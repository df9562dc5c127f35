/*
 * The module judge (lofamo/rules_module.c): one rule set for every module,
 * QSFP (SFF-8636) or SFP (SFF-8472), live, replayed or from a dump.  Pure
 * functions: a decoded module's health in, findings out.  The codes are in
 * docs/verdicts.md.
 */
#ifndef APENET_RULES_MODULE_H
#define APENET_RULES_MODULE_H

#include "apenet/finding.h"
#include "apenet/module.h"

/*
 * Judges a decoded module plugged in port `port` (link index `link`, its
 * findings' location; a dump's file name fits whole): every check code that
 * does not match (MODULE_CHECKSUM), every status flag the module implements
 * (MODULE_TX_FAULT, MODULE_LOS for RX, MODULE_TX_LOS, MODULE_CDR_LOL, per
 * lane), and for every monitor it implements, on each side, the alarm if
 * its flag is set or its reading crosses the alarm threshold, else the
 * warning likewise (MODULE_ALARM, MODULE_WARNING, per lane, with the
 * reading, the threshold and the unit).  Absent monitors, their flags and
 * unprogrammed thresholds are never judged; neither are a copper cable's
 * optical monitors, nor the low side of TX bias and TX power on a lane in
 * TX loss of signal or TX fault (a dark laser: the readings are that
 * flag's evidence).  Returns the number of conditions found, one per
 * finding, the check codes not counted: a module whose only fault is a
 * check code returns 0 (its MODULE_CHECKSUM findings are still added).
 */
int apenet_rules_module(const struct apenet_module_health *h, int link, const char *port,
			struct apenet_findings *out);

/* A cage (enum apenet_cage, not NONE) without a readable module: MODULE_ABSENT. */
void apenet_rules_module_absent(int link, const char *port, enum apenet_cage cage, struct apenet_findings *out);

/* Pages that do not decode (why: the decoder's message): MODULE_UNREADABLE. */
void apenet_rules_module_unreadable(int link, const char *port, const char *why, struct apenet_findings *out);

#endif
