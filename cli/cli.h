/* Shared state of the apenet command line. */
#ifndef APENET_CLI_H
#define APENET_CLI_H

#include "apenet/dev.h"
#include "apenet/out.h"

/* Exit codes, as operators' tools use them. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAULT = 1, CLI_EXIT_ERROR = 2 };

struct cli {
	const char *sim;    /* --sim DIR, else $APENET_SIM_DIR */
	const char *bdf;    /* --dev BDF */
	enum out_fmt fmt;   /* --json / --csv */
	int argc;           /* the command's own arguments */
	char **argv;
};

struct cli_cmd {
	const char *name;
	const char *usage;
	const char *help;
	int max_args; /* positional arguments and options of its own */
	int (*run)(struct cli *c);
};

/* Prints "apenet: <msg>" and returns the exit code for the error. */
int cli_fail(const struct apenet_err *e);
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Opens the selected board; on failure prints the error and returns its exit code. */
int cli_open(struct cli *c, struct apenet_dev *d, struct apenet_site *site);
/* Adds "node" {x, y, z} shown as "x,y,z". */
void cli_out_coord(struct out *o, const char *key, uint32_t coord);

int cmd_list(struct cli *c);
int cmd_regs(struct cli *c);

#endif
