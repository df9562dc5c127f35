/*
 * The node agent's decisions, without I/O (lofamo/agent_*.c).
 *
 * apenet-agent (agent/) samples its card every period and hands what it read
 * to these functions; they say what changed, as events.  Each is a small
 * state machine over a sequence of inputs, so the unit tests drive them with
 * made-up sequences and simulated time:
 *   - apenet_track:  latched findings of the one judge -> transitions (path self);
 *   - apenet_wd:     the host side of the mutual watchdog (path watchdog):
 *                    DNP heartbeat stuck, card gone, this host declared expired;
 *   - apenet_nbr:    a link's received LDM words -> the neighbour's health, on
 *                    its behalf (path neighbour-ldm), and its silence;
 *   - apenet_counter_resets: counters that went backwards, and why;
 *   - apenet_host_*: the host's part of the LDM (LDM_HOST): service network,
 *                    memory (EDAC), peripheral (the card's PCIe).
 * Every change comes out as a struct apenet_event, the one record the daemon
 * logs, keeps for agent-status, appends to events.jsonl and hands to the
 * SNMP notifier.
 */
#ifndef APENET_AGENT_H
#define APENET_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "apenet/config.h"
#include "apenet/finding.h"
#include "apenet/ldm.h"
#include "apenet/pcie.h"
#include "apenet/snapshot.h"
#include "apenet/view.h"

/* Health of a subject: the LDM's 2-bit values (SPEC §3). */
enum apenet_health { APENET_H_NORMAL = 0, APENET_H_SICK = 1, APENET_H_BROKEN = 2 };
const char *apenet_health_name(unsigned h); /* "normal", "sick", "broken" ("invalid" past) */
/* warn -> sick, fail -> broken */
unsigned apenet_health_of_sev(enum apenet_sev s);

/* How the news travelled (ARCHITECTURE.md, "How a fault travels"). */
enum apenet_path {
	APENET_PATH_SELF,          /* this node's own registers, judged here */
	APENET_PATH_NEIGHBOUR_LDM, /* a neighbour's LDM word, received on one of our links */
	APENET_PATH_WATCHDOG,      /* the mutual watchdog: DNP heartbeat, card gone, host expired */
};
const char *apenet_path_name(enum apenet_path p); /* "self", "neighbour-ldm", "watchdog" */

enum apenet_event_kind {
	APENET_EV_TRANSITION, /* a subject's health changed: old -> new */
	APENET_EV_NOTICE,     /* worth telling, no health change (counters cleared) */
};

/* One report.  The functions below fill what they know (subject ... via);
 * the daemon's sink stamps node, reporter, boot_id, seq and time_ms. */
struct apenet_event {
	enum apenet_event_kind kind;
	unsigned node[3];       /* the node the event is about */
	unsigned reporter[3];   /* the node whose agent saw it (differs for neighbour-ldm) */
	uint64_t boot_id;       /* the reporting agent's run (persisted counter) */
	uint64_t seq;           /* 1, 2, ... within one boot_id */
	int64_t time_ms;        /* host epoch time of the sample that showed it */
	char subject[16];       /* board, link, lane, sensor, dnp, card, host, memory, service, counters, ldm */
	char where[24];         /* link ("X+"), sensor ("fpga_temp"), LDM field key ("temperature"), or "" */
	int lane;               /* -1 when none */
	char code[32];          /* a stable code (docs/verdicts.md, docs/agent.md) */
	uint8_t old_status, new_status; /* enum apenet_health */
	double value, threshold;/* NaN when none */
	char unit[16];
	char evidence[200];
	char message[320];
	enum apenet_path path;
	char via[24];           /* the link a neighbour's word came in on; "" otherwise */
};

/* A blank event: kind transition, lane -1, value and threshold NaN. */
void apenet_event_init(struct apenet_event *ev);
struct apenet_out;
/* What changed, as every view of an event says it, in this order: subject,
 * where, lane (null: none), code, old, new (events.jsonl, agent-status). */
void apenet_event_out_change(struct apenet_out *o, const struct apenet_event *ev);
/* One JSON object on one line, no newline (events.jsonl); the length, or
 * -1 when n is too small (or memory is). */
int apenet_event_json(const struct apenet_event *ev, char *buf, size_t n);
/* "node 1,0,0 X+ LINK_DOWN normal -> broken (self): message" for the log. */
void apenet_event_line(const struct apenet_event *ev, char *buf, size_t n);

/* ---- findings -> transitions (path self) ---- */

/* What was last reported for each finding the latch raised. */
struct apenet_track_entry {
	struct apenet_finding f;
	uint8_t status;
};
struct apenet_track {
	struct apenet_track_entry *e;
	size_t n, cap;
};
void apenet_track_init(struct apenet_track *t);
void apenet_track_free(struct apenet_track *t);
/* raised: what the latch holds raised now.  Appends one event per finding
 * that appeared, changed severity or went (to normal) to out[0..max); the
 * count is returned (a change beyond max is left for the next call). */
unsigned apenet_track_step(struct apenet_track *t, const struct apenet_findings *raised, struct apenet_event *out,
			   unsigned max);

/* ---- the mutual watchdog, host side (path watchdog) ---- */

struct apenet_wd {
	unsigned stuck_limit;   /* dnp_stuck_periods */
	int seen;               /* dnp_hb holds a value read from the card */
	uint32_t dnp_hb;
	unsigned stuck;         /* periods in a row without a change of WD_DNP_HB */
	uint8_t dnp, card, host;/* reported health: DNP core, card on the bus, this host as the DNP sees it */
	uint32_t wd_status, expire_count; /* as last read, for agent-status */
};
struct apenet_wd_input {
	int gone;               /* the card read all ones (or its config space did) */
	uint32_t dnp_hb;        /* WD_DNP_HB */
	uint32_t wd_status;     /* WD_STATUS */
	uint32_t expire_count;  /* WD_EXPIRE_COUNT */
	double period_ms;       /* the agent's period, for the evidence */
};
void apenet_wd_init(struct apenet_wd *w, unsigned stuck_limit);
/* One period; up to 3 events into out. */
unsigned apenet_wd_step(struct apenet_wd *w, const struct apenet_wd_input *in, struct apenet_event out[3]);

/* ---- neighbours through the torus (path neighbour-ldm) ---- */

/* What one link's partner said last, as reported. */
struct apenet_nbr {
	int known;              /* a partner is being followed */
	unsigned partner[3], port;
	uint8_t field[APENET_LDM_NFIELDS]; /* reported health of each field */
	uint8_t host;           /* host-expired bit: normal or broken */
	uint8_t stale;          /* the word stopped arriving: normal, sick, broken */
	uint8_t invalid;        /* the last word was invalid: normal or sick */
	uint32_t word;
	double age_ms;
};
struct apenet_nbr_input {
	int up;                 /* the link is up (or degraded): words can arrive */
	int partner_valid, partner_ext, partner_self;
	unsigned partner[3], port;
	uint32_t word;          /* LINK_LDM_RX */
	uint32_t rx_count;      /* LINK_LDM_RX_COUNT: 0, nothing ever arrived */
	double age_ms;          /* TIMESTAMP - LINK_LDM_RX_TS */
};
void apenet_nbr_init(struct apenet_nbr *n);
/* The input of link l from a view (its second sample). */
void apenet_nbr_input_of(const struct apenet_view *v, unsigned l, struct apenet_nbr_input *in);
/* One sample of one link; events (node = the partner, path neighbour-ldm,
 * via = link) into out[0..max): returns how many. */
#define APENET_NBR_MAX_EVENTS (APENET_LDM_NFIELDS + 3)
unsigned apenet_nbr_step(struct apenet_nbr *n, const struct apenet_nbr_input *in, const struct apenet_thresholds *t,
			 const char *via, struct apenet_event *out, unsigned max);

/* ---- counters that went backwards ---- */

enum apenet_reset_cause { APENET_RESET_COMMAND, APENET_RESET_FIRMWARE };
struct apenet_reset {
	int link;               /* -1: every counter of the board */
	enum apenet_reset_cause cause;
	uint64_t at_ts;         /* TIMESTAMP of the clear (CNT_CLEAR_TS / UPTIME_TS), or of b when unknown */
};
/* Between samples a and b of one board: 0 when no counter was cleared,
 * else the clears found (a firmware reset or a clear of everything is one
 * record; else one per link whose counters went backwards). */
unsigned apenet_counter_resets(const struct apenet_snapshot *a, const struct apenet_snapshot *b, struct apenet_reset *out,
			       unsigned max);
/* The notice event for one. */
void apenet_reset_event(const struct apenet_snapshot *b, const struct apenet_reset *r, struct apenet_event *ev);

/* ---- the host's part of the LDM (LDM_HOST) ---- */

/* EDAC counters as read from edac_root/mc*: present 0 when there is none. */
struct apenet_edac {
	int present;
	unsigned controllers;
	uint64_t ce, ue;        /* summed over controllers, now */
	uint64_t ce_window;     /* corrected errors within the window... */
	double window_s;        /* ...of this many seconds (0: none yet) */
};
/* Memory: any uncorrected error -> broken; corrected errors proven at
 * ce_sick_per_hour (rate_min_events, rate_confidence) -> sick; no EDAC ->
 * normal.  why receives the reason in words (nothing when n is 0). */
unsigned apenet_host_memory(const struct apenet_edac *e, double ce_sick_per_hour, const struct apenet_thresholds *t,
			    char *why, size_t n);
/* Peripheral, from the card's PCIe state: unmasked uncorrectable AER
 * status -> broken; trained below capability, or unmasked correctable AER
 * status, or an unreadable capability -> sick.  why as above. */
unsigned apenet_host_peripheral(int pcie_ok, const struct apenet_pcie_info *p, char *why, size_t n);
/* Service network, from the supervisors' acknowledgements: all of the
 * configured ones acknowledging -> normal, some -> sick, none for timeout_s
 * -> broken (none for less: sick).  No supervisor configured: normal. */
unsigned apenet_host_service(unsigned configured, unsigned acking, double since_last_ack_s, double timeout_s);
/* The LDM_HOST word: the three fields (an out-of-range value counts as
 * broken: the host never sends 11), nothing else (APENET_LDM_HOST_MASK). */
uint32_t apenet_ldm_host_word(unsigned service, unsigned memory, unsigned peripheral);

#endif
