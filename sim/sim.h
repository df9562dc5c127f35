/*
 * apenet-sim internals: a torus of emulated boards.  Each board is a
 * directory with the files a tool would find on a real machine (a PCI
 * config-space dump for libpci and a BAR0 file to mmap); a firmware model
 * ticks every board, reading what the host wrote into BAR0 and publishing
 * its state there under the GEN seqlock.  Nothing outside sim/ includes
 * this header: tools see boards only through those files.
 */
#ifndef SIM_SIM_H
#define SIM_SIM_H

#include <limits.h>
#include <stdint.h>

#include "apenet/err.h"
#include "apenet/prbs.h"
#include "apenet/regs.h"
#include "channel.h"
#include "eeprom.h"

#define SIM_BDF "0000:03:00.0"
#define SIM_TS_HZ 250000000u /* the card's 250 MHz core clock drives TIMESTAMP */
#define SIM_FIFO_WORDS 1024u /* RX buffering, 128-bit words: 16 KB */

struct sim_rng {
	uint64_t s[4];
};
void sim_rng_seed(struct sim_rng *r, uint64_t seed);
uint64_t sim_rng_next(struct sim_rng *r);
double sim_rng_uniform(struct sim_rng *r);            /* [0, 1) */
double sim_rng_normal(struct sim_rng *r);             /* N(0, 1) */
uint64_t sim_rng_poisson(struct sim_rng *r, double mean);

struct sim_lane {
	uint8_t phase;          /* enum apenet_phase */
	uint8_t dead;           /* lane-dead fault: no signal */
	double extra_ber;       /* lane-ber fault: added to what this end receives on the lane */
	uint8_t excluded;       /* the firmware gave up on it: link runs degraded */
	double phase_s;         /* time spent in the phase */
	uint32_t align_restarts;
	uint64_t code_viol, disp_err;
	struct sim_pma pma;     /* as the host last wrote it */
	/* a PMA write through the remote window is on trial until the lane has
	 * been up with it for a while; pma_good goes back when it stays down */
	uint8_t pma_trial;
	double pma_trial_down_s, pma_trial_up_s; /* down / up without a break, outside PRBS runs, since the write */
	double pma_trial_s;                      /* all the time outside PRBS runs since the write */
	struct sim_pma pma_good;
	double ber;             /* from the channel model, this tick */
	/* PRBS */
	uint32_t prbs_ctrl;     /* LANE_PRBS_CTRL as last seen */
	int prbs_on;
	uint8_t prbs_pat;
	double err_skip;        /* bits until the next line error (bit-exact window) */
	struct apenet_prbs_gen gen;
	struct apenet_prbs_chk chk;
	uint64_t prbs_bits, prbs_errs, prbs_start_ts;
	double prbs_bits_frac;
	uint32_t rxword, errword;
	uint32_t prbs_run_ms;   /* LANE_PRBS_RUN_MS as last seen: 0 no limit */
	uint64_t prbs_on_ts;    /* TIMESTAMP when the current run was switched on */
	uint8_t prbs_ended;     /* the firmware ended the last run (RUN_MS elapsed) */
	uint8_t prbs_stop;      /* ended this tick: drop ENABLE from the BAR at publish */
	uint8_t prbs_locked_once; /* FOLLOW: the checker locked in this run */
	uint8_t prbs_followed;  /* the last run ended by FOLLOW */
	uint64_t prbs_nosrc_ts; /* FOLLOW: since when no pattern arrives (0: it does) */
};

struct sim_counters {
	uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
	uint64_t hdr_crc, ftr_crc, retrans, payload_err;
	uint64_t credits_tx, credits_rx, down_events, align_restarts, stall_cycles;
};

struct sim_link {
	const struct apenet_link_profile *lp;
	int peer_board, peer_link;  /* -1: nothing cabled; peer_board == -2: external device */
	int cable_id;               /* both ends of a cable share it */
	struct sim_channel ch;      /* cable model (shared parameters at both ends) */
	int unplugged;
	uint8_t state;              /* enum apenet_link_state */
	uint8_t phase;              /* link-level phase (deskew/up) */
	double phase_s;
	struct sim_lane lane[APENET_MAX_LANES];
	struct sim_counters c;
	double load;                /* offered load 0..1, random walk */
	double fifo[APENET_NUM_VC], hwm[APENET_NUM_VC];
	double credit_frac, pkt_frac;
	uint32_t t_red, t_yel, credit_period, ctrl;
	uint32_t ldm_rx, ldm_rx_count;
	uint64_t ldm_rx_ts, up_ts;
	uint32_t latency_ps;        /* measured at the last alignment (LINK_LATENCY_PS) */
	uint8_t lat_jitter;         /* latency-jitter fault: alignment lands on a random bit slip */
	struct sim_module module;
	uint8_t ee[APENET_EE_DATA_LEN];
	uint32_t ee_gen;
	uint64_t ee_ts;
};

struct sim_board {
	unsigned idx, x, y, z;
	const struct apenet_profile *prof;
	char dir[PATH_MAX];
	volatile uint32_t *bar;
	struct sim_rng rng;
	struct sim_link link[APENET_MAX_LINKS];
	uint32_t gen;
	/* sensors, in C, mV, mA */
	double t_fpga, t_board, t_drift, vcore, vcore_nom, vxcvr, vio, v12, icore, i12;
	double overheat_c;          /* fault target, 0: none */
	double droop_pct;           /* fault */
	uint32_t thr_temp_sick, thr_temp_broken, thr_vdroop_sick, thr_vdroop_broken, thr_icore_sick;
	/* watchdog, DNP side */
	uint32_t wd_period_us, wd_timeout, wd_ctrl, wd_dnp_hb, wd_last_host_hb, wd_missed, wd_expired,
		wd_expire_count, wd_enabled_prev;
	uint64_t wd_host_hb_ts, wd_next_beat_ts;
	uint32_t ldm_host, ldm_own, ldm_tx_count;
	double ldm_frac;
	/* commands */
	uint32_t cmd_done_seq, cmd_result;
	uint64_t cnt_clear_ts, uptime_ts;
	/* faults: gone reads all ones and darkens its links (card-gone, and a
	 * powered-off board, which also forgets everything until power-on) */
	int dnp_hung, gone, powered_off;
	uint8_t pcie_gen, pcie_width;
	/* the remote-register window (sim/remote.c); no_rmt: a firmware without it */
	int no_rmt;
	struct sim_rmt {
		uint32_t addr, wdata, ctrl; /* RMT_ADDR, RMT_WDATA, RMT_CTRL as last seen */
		uint16_t done_seq;
		uint8_t result, busy;
		uint64_t rdata;
		uint32_t rtt;               /* ticks, of the last answered request */
		uint32_t served;            /* requests answered for partners */
		/* the request in flight (busy): what comes back, and when */
		uint16_t seq;
		uint8_t p_result;
		uint64_t p_rdata;
		uint32_t p_rtt;
		uint64_t due_ts;
	} rmt;
};

struct sim_torus {
	unsigned dims[3];
	unsigned nboards;
	struct sim_board *b;
	char dir[PATH_MAX];
	uint64_t seed;
	uint32_t ber_accel;
	unsigned tick_ms;
	uint64_t now_ts;           /* TIMESTAMP of the current tick */
	double t0;                 /* CLOCK_MONOTONIC at start */
	int ncables;
};

/* A board's position in the torus. */
static inline unsigned sim_index(const struct sim_torus *t, unsigned x, unsigned y, unsigned z)
{
	return x + t->dims[0] * (y + t->dims[1] * z);
}

/* Per-node overrides from the YAML config. */
struct sim_node_conf {
	unsigned x, y, z;
	const struct apenet_profile *prof;
	int remote_window;        /* -1: as the torus, 0: firmware without the window, 1: with */
};
struct sim_cable_conf {
	unsigned x, y, z, link;
	int kind;                 /* enum sim_cable_kind, -1: default */
	double length_m;          /* 0: default */
	char csv[PATH_MAX];       /* measured BER points, empty: model */
	int has_vendor;           /* the modules' vendor name (both ends) instead of the default */
	char vendor[17];
};
struct sim_conf {
	unsigned dims[3];
	const struct apenet_profile *prof;  /* default variant */
	uint64_t seed;
	uint32_t ber_accel;
	unsigned tick_ms;
	double cable_m;
	int cable_kind;
	int no_remote_window;     /* the boards' firmware has no remote window (default: it has) */
	struct sim_node_conf *nodes;
	unsigned nnodes;
	struct sim_cable_conf *cables;
	unsigned ncables;
};
int sim_conf_load(const char *path, struct sim_conf *c, struct apenet_err *e);
void sim_conf_free(struct sim_conf *c);

/* torus.c: build the boards and their directories; tear down. */
int sim_torus_create(struct sim_torus *t, const struct sim_conf *c, const char *dir, struct apenet_err *e);
void sim_torus_destroy(struct sim_torus *t);
/* Rewrites a board's config-space dump (PCIe width, card gone). */
int sim_board_write_pci(struct sim_torus *t, struct sim_board *b, struct apenet_err *e);
/* Board named "X,Y,Z", or NULL. */
struct sim_board *sim_torus_board(struct sim_torus *t, const char *xyz);
int sim_link_by_name(const struct sim_board *b, const char *name);

/* firmware.c: one tick of every board. */
void sim_torus_tick(struct sim_torus *t, double dt);
/* The TIMESTAMP at which a board's watchdog runs out if its host stays
 * silent (the earliest over the torus), or UINT64_MAX: the main loop wakes
 * then too, as the real firmware reacts at the deadline, not at a tick. */
uint64_t sim_torus_wd_deadline(const struct sim_torus *t);
void sim_board_reset_bar(struct sim_board *b);  /* defaults into the RW registers */
void sim_board_publish(struct sim_torus *t, struct sim_board *b);
void sim_board_restore(struct sim_board *b); /* after card-gone is cleared */
/* After power-off is cleared: a cold start (registers at their defaults,
 * counters zero, watchdog off, links training from nothing). */
void sim_board_power_on(struct sim_torus *t, struct sim_board *b);

/* link.c: bring-up, traffic and LDM delivery on each cable. */
void sim_link_tick(struct sim_torus *t, struct sim_board *b, unsigned l, double dt);
void sim_link_force_down(struct sim_link *lk);
uint32_t sim_link_partner_reg(const struct sim_torus *t, const struct sim_board *b, unsigned l);
double sim_link_bw_bytes(const struct sim_link *lk); /* payload bandwidth when up */

/* One-way latency of this end's link at alignment, in ps: the cable's flight
 * time and the transceivers' pipeline, plus slip unit intervals of word
 * alignment (0 on a deterministic link). */
uint32_t sim_link_latency_ps(const struct sim_link *lk, unsigned slip);
/* Bit positions the word aligner can land on (the latency-jitter fault). */
#define SIM_ALIGN_SLIPS 20u

/* remote.c: the remote-register window, once per tick of a running DNP. */
void sim_rmt_tick(struct sim_torus *t, struct sim_board *b);
/* Round trip of a request on link l, in TIMESTAMP ticks (the partner's
 * firmware service time is drawn from its rng). */
uint32_t sim_rmt_rtt_ticks(struct sim_torus *t, const struct sim_board *b, unsigned l);
/* link.c: a write through the window to BAR offset off of this board,
 * which came in on its link l: when off is a PMA register of one of that
 * link's lanes, the lane's setting goes on trial (APENET_RMT_PMA_REVERT_MS). */
void sim_pma_trial(struct sim_board *b, unsigned l, uint32_t off);

/* prbs_lane.c: PRBS generators/checkers. */
void sim_lane_prbs_tick(struct sim_torus *t, struct sim_board *b, struct sim_link *lk,
			struct sim_lane *ln, double dt);

/* inject.c: faults, from a request line; reply holds the answer. */
#define SIM_FAULT_OPTS 3
struct sim_fault {
	const char *fault;
	struct {
		const char *name; /* --name, without the dashes */
		const char *arg;  /* its value's placeholder */
	} opts[SIM_FAULT_OPTS];
};
extern const struct sim_fault sim_faults[]; /* every fault, ended by a NULL fault */
/* "cable-ber --link L --ber B" into buf; its length. */
size_t sim_fault_text(const struct sim_fault *f, char *buf, size_t n);
int sim_inject(struct sim_torus *t, char *const *argv, int argc, char *reply, size_t replylen);

/* ctl.c: the control socket. */
int sim_ctl_listen(const char *dir, struct apenet_err *e);
int sim_ctl_serve(struct sim_torus *t, int lfd);        /* one pending request, if any */
int sim_ctl_request(const char *dir, char *const *argv, int argc, char *reply, size_t replylen,
		    struct apenet_err *e);

#endif
