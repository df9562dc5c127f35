/* Shared state of the apenet command line. */
#ifndef APENET_CLI_H
#define APENET_CLI_H

#include <signal.h>

#include "apenet/dev.h"
#include "apenet/out.h"

/* Exit codes, as operators' tools use them. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAULT = 1, CLI_EXIT_ERROR = 2 };
/* ber, sweep and qualify: the test ran but did not run long enough to
 * prove pass or fail (never a reason to replace anything). */
enum { CLI_EXIT_INCONCLUSIVE = 3 };

struct cli {
	const char *sim;    /* --sim DIR, else $APENET_SIM_DIR */
	const char *bdf;    /* --dev BDF */
	enum apenet_out_fmt fmt;   /* --json / --csv */
	const char *at;     /* --at TIME of a command that replays (--from): which sample */
	int argc;           /* the command's own arguments */
	char **argv;
};

/* A line of a command's help: an option (or an exit code) and its meaning. */
struct cli_doc {
	const char *key;
	const char *text;
};

struct cli_cmd {
	const char *name;
	const char *usage;
	const char *help;
	int max_args; /* positional arguments and options of its own */
	int (*run)(struct cli *c);
	const struct cli_doc *opts;  /* apenet COMMAND --help: its options, NULL-key ended */
	const struct cli_doc *exits; /* its exit codes */
	const char *example;
};

/* Prints "apenet: <msg>" and returns the exit code for the error. */
int cli_fail(const struct apenet_err *e);
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens the selected board; on failure prints the error and returns its exit code. */
int cli_open(struct cli *c, struct apenet_dev *d, struct apenet_site *site);
/* Opens the selected board and finds the link named (ber, latency-check,
 * sweep, qualify): 0 with *l (-1 when link is NULL); else the exit code
 * after saying why, the board closed. */
int cli_open_link(struct cli *c, const char *cmd, const char *link, struct apenet_dev *d, int *l);
/* Adds KEY {x, y, z} shown as "x,y,z", from coordinates or a NODE_COORD-style register. */
void cli_out_xyz(struct apenet_out *o, const char *key, const unsigned xyz[3]);
void cli_out_coord(struct apenet_out *o, const char *key, uint32_t coord);
/* Epoch milliseconds as UTC ISO 8601 with milliseconds ("...T19:55:01.123Z"); 0: null. */
void cli_out_time(struct apenet_out *o, const char *key, int64_t ms);

/* A command's own options: "--name" with a value (val) or a flag (flag). */
struct cli_opt {
	const char *name;
	const char **val;
	int *flag;
};
/* An option that may be given several times (--db A --db B): takes every
 * "--name V" and "--name=V" out of c->argv into vals (at most max; *n of
 * them), before cli_parse sees the rest.  -1 after printing a usage error. */
int cli_take_repeated(struct cli *c, const char *cmd, const char *name, const char **vals, int max, int *n);
/* Parses c->argv; positional arguments go to pos[0..maxpos). -1 after printing a usage error. */
int cli_parse(struct cli *c, const char *cmd, const struct cli_opt *opts, const char **pos, int maxpos, int *npos);
/* A number option in [min, max]; -1 after printing the error. */
int cli_number(const char *cmd, const char *opt, const char *s, double min, double max, double *out);

struct apenet_view;
struct apenet_config;
/* The board view: from --from FILE (the sample c->at names, or the last,
 * and the one interval_s before it), else live (two samples interval_s
 * apart; module pages when modules is set). Exit code on failure. */
int cli_view(struct cli *c, const char *from, double interval_s, int modules, struct apenet_view *v);
/* cli_view's live samples: a (module pages when modules is set), and b
 * interval_s later (none when 0).  Exit code on failure. */
struct apenet_sample;
int cli_sample_pair(struct cli *c, double interval_s, int modules, struct apenet_sample *a, struct apenet_sample *b);
/* The same view, and the findings the judging session j (apenet/judge.h,
 * initialised by the caller) holds at its later sample: live, the two
 * samples fed to j; from a file, every sample up to the one picked (what
 * the agent held then).  cli/judged.c.  Exit code on failure. */
struct apenet_judge;
/* The config (cli_config) and a judging session over it; exit code on failure. */
int cli_judge_open(const char *cmd, const char *config, struct apenet_config *cfg, struct apenet_judge *j);
int cli_judged_view(struct cli *c, const char *from, double interval_s, int modules, struct apenet_judge *j,
		    struct apenet_view *v);
/* With --from: "replay" {samples in the file, the indexes and host times of
 * the pair shown, its interval}. */
void cli_out_replay(struct apenet_out *o, const struct apenet_view *v);
/* Loads the config (apenet_config_path) (path: the --config value or NULL). Exit code on failure. */
int cli_config(const char *cmd, const char *path, struct apenet_config *cfg);
/* The link object every command writes (cli/out_link.c), and its one-row form. */
struct apenet_link_stats;
struct apenet_findings;
void cli_out_link(struct apenet_out *o, const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		  const struct apenet_findings *fs, const struct apenet_config *cfg);
void cli_out_link_row(struct apenet_out *o, const struct apenet_view *v, unsigned l, const struct apenet_link_stats *st,
		      const struct apenet_findings *fs, const struct apenet_config *cfg);
/* Writes the findings, finishes the output and returns the exit code:
 * 0 none, 1 a warning or failure, 2 the output failed. */
int cli_finish(struct apenet_out *o, const struct apenet_findings *fs);

/*
 * Bad input (a file, an argument) that stops a command: prints "apenet: msg"
 * on stderr and, with --json, an error object on stdout too
 * ({"schema": ..., "command": ..., "error": {"code": ..., "message": ...}}),
 * so a script reading stdout learns why.  Returns CLI_EXIT_ERROR.
 */
int cli_input_error(const struct cli *c, const char *cmd, const char *code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Decoded modules (cli/out_module.c). */
struct apenet_sff8636;
struct apenet_sff8472;
struct apenet_module_health;
void cli_out_sff8636(struct apenet_out *o, const struct apenet_sff8636 *m);
void cli_out_sff8472(struct apenet_out *o, const struct apenet_sff8472 *m);
void cli_out_module_health(struct apenet_out *o, const struct apenet_module_health *h);

/* An LDM word, decoded (one cell in text). */
void cli_out_ldm(struct apenet_out *o, const char *key, uint32_t word);
/* The exit code for a severity: 0 ok, 1 warn or fail. */
int cli_exit_sev(int sev);

/* Link by name (case-insensitive) or index; -1. */
int cli_link_index(const struct apenet_profile *p, const char *name);
/* "prbs31" and the others: 0, or -1 for a name that is none. */
int cli_parse_pattern(const char *s, enum apenet_prbs *p);
const char *cli_pattern_name(enum apenet_prbs p);
/* "0,1,3" into a mask of lanes below max; -1 on anything else. */
int cli_parse_lanes(const char *s, unsigned max, uint32_t *mask);
/* "vod,rxeq" into a mask of PMA parameters (apenet/sweep.h); -1 naming the
 * bad one in bad. */
int cli_parse_params(const char *s, unsigned *mask, char *bad, size_t n);
/* A time option as a person types it, against the clock now: -1h, 30m,
 * today, ISO 8601, epoch ms (apenet_time_parse; APENET_TIME_FORMS says
 * them in a message); -1 when it is none. */
int cli_parse_time(const char *s, int64_t *out);
/* The health database a command reads: --db, else the config's first
 * supervisor's; 0, or the exit code after saying why. */
int cli_db_path(const struct cli *c, const char *cmd, const char *db, const char *config, char *path, size_t n);
/* SIGINT, SIGTERM and SIGHUP to handler, SIGPIPE ignored (a closed pipe
 * must not kill a command half way through a test of the card), and back. */
#define CLI_CATCH_N 4
void cli_catch_signals(void (*handler)(int), struct sigaction saved[CLI_CATCH_N]);
void cli_restore_signals(const struct sigaction saved[CLI_CATCH_N]);

/* The progress line of a long command (cli/progress.c): shown only on a
 * terminal and never with --json; step names what it does now (qualify),
 * frac and eta_s < 0 when not known; show is rate-limited, so call it as
 * often as you like; end clears the line before the result is printed. */
struct cli_progress {
	int on, shown;
	const char *cmd;
	double max_s;
	int64_t t0_ms, last_ms;
	char step[96];
};
void cli_progress_init(struct cli_progress *p, const struct cli *c, const char *cmd, double max_s);
void cli_progress_step(struct cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_progress_show(struct cli_progress *p, double frac, double eta_s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void cli_progress_end(struct cli_progress *p);
double cli_progress_elapsed(const struct cli_progress *p);
/* "42 s", "3m05s", "2h10m", "8.8 d", "2.1 years". */
const char *cli_progress_dur(double s, char *buf, size_t n);

/* A BER test's progress line (cli/out_ber.c). */
struct apenet_bertest;
void cli_ber_progress(const struct apenet_bertest *t, struct cli_progress *p);
/* Runs a started test to its end (apenet ber, apenet qualify): polls every
 * nap_ms with the progress line, stops it (both ends back in traffic,
 * always), and runs again while a far lane is still open
 * (apenet_bertest_again); ends early once *stop is set.  0, or -1 with e. */
int cli_ber_run(struct apenet_bertest *t, struct cli_progress *pg, volatile int *stop, long nap_ms,
		struct apenet_err *e);
/* A sweep's progress (apenet sweep, apenet qualify): the sweep's callback
 * (ctx: this), done % against the plan's estimate; at max_s seconds from
 * t0_s (the progress line's clock) it sets *stop and timed_out. */
struct apenet_sweep_link;
struct apenet_sweep_point;
struct cli_sweep_prog {
	struct cli_progress *pg;
	const struct apenet_sweep_link *sl;
	double est_s, max_s, t0_s;
	volatile int *stop;
	size_t calls;
	double best_upper;
	int timed_out;
};
void cli_sweep_progress(void *ctx, const struct apenet_sweep_point *p, uint64_t bits, unsigned npoints);
/* What a test that ended without a verdict saw, for its rule
 * (apenet_rules_ber_not_proven, apenet_rules_cable). */
struct apenet_ber_short;
void cli_ber_short(const struct apenet_bertest *t, struct apenet_ber_short *s);

int cmd_list(struct cli *c);
int cmd_regs(struct cli *c);
int cmd_snapshot(struct cli *c);
int cmd_status(struct cli *c);
int cmd_link(struct cli *c);
int cmd_model(struct cli *c);
int cmd_ber(struct cli *c);
int cmd_sweep(struct cli *c);
int cmd_qualify(struct cli *c);
int cmd_cable(struct cli *c);
int cmd_ber_plan(struct cli *c);
int cmd_latency_check(struct cli *c);
int cmd_watch(struct cli *c);
int cmd_cabling(struct cli *c);
int cmd_config(struct cli *c);
int cmd_module(struct cli *c);
int cmd_realign(struct cli *c);
int cmd_clear_counters(struct cli *c);
int cmd_agent_status(struct cli *c);
int cmd_health(struct cli *c);
int cmd_db(struct cli *c);
int cmd_report(struct cli *c);
int cmd_keys(struct cli *c);

#endif
