/* apenet-sim: run an emulated torus of APEnet boards; inject faults into it. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apenet/conf.h"
#include "apenet_version.h"
#include "sim.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The process's own CPU time: what a tick costs the emulator, whatever
 * else the machine runs (a wall-clock cost would count the time another
 * process had the core, and a loaded host would slow the tick for good). */
static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The options of run and inject: their parsers, --help and the completion
 * (--completion-table) read these tables; the faults are inject.c's. */
struct sim_opt {
	const char *name, *arg;
	int shown_bare; /* the synopsis shows it without brackets */
};
enum { RUN_DIMS, RUN_DIR, RUN_VARIANT, RUN_SEED, RUN_ACCEL, RUN_TICK, RUN_CONFIG, RUN_NOPTS };
static const struct sim_opt run_opts[RUN_NOPTS] = {
	[RUN_DIMS] = { "--dims", "XxYxZ", 1 },	    [RUN_DIR] = { "--dir", "DIR", 1 },
	[RUN_VARIANT] = { "--variant", "NAME", 0 }, [RUN_SEED] = { "--seed", "S", 0 },
	[RUN_ACCEL] = { "--ber-accel", "K", 0 },    [RUN_TICK] = { "--tick-ms", "N", 0 },
	[RUN_CONFIG] = { "--config", "FILE.yaml", 0 },
};
enum { INJ_DIR, INJ_NODE, INJ_NOPTS };
static const struct sim_opt inject_opts[INJ_NOPTS] = {
	[INJ_DIR] = { "--dir", "DIR", 1 },
	[INJ_NODE] = { "--node", "X,Y,Z", 1 },
};
/* The commands, in --help's order. */
static const char *const commands[] = { "run", "inject", "variants" };

/* WORD after a space (none at column 0) in a text wrapped at 80 columns
 * whose next lines start at column indent; *col: the column. */
static void put_word(FILE *f, const char *word, size_t indent, size_t *col)
{
	size_t len = strlen(word);
	if (*col > indent && *col + 1 + len > 80) {
		fprintf(f, "\n%*s", (int)indent - 1, "");
		*col = indent - 1;
	}
	if (*col > 0) {
		fputc(' ', f);
		(*col)++;
	}
	fputs(word, f);
	*col += len;
}

static void synopsis(FILE *f, const char *cmd, const struct sim_opt *o, int n, const char *tail)
{
	char word[128];
	size_t col = 2 + strlen("apenet-sim ") + strlen(cmd), indent = col + 1;
	fprintf(f, "  apenet-sim %s", cmd);
	for (int i = 0; i < n; i++) {
		snprintf(word, sizeof(word), o[i].shown_bare ? "%s %s" : "[%s %s]", o[i].name, o[i].arg);
		put_word(f, word, indent, &col);
	}
	if (tail)
		put_word(f, tail, indent, &col);
	fputc('\n', f);
}

static void usage(FILE *f)
{
	char text[128];
	fputs("usage:\n", f);
	synopsis(f, "run", run_opts, RUN_NOPTS, NULL);
	synopsis(f, "inject", inject_opts, INJ_NOPTS, "FAULT [--option VALUE ...]");
	fputs("  apenet-sim variants\n"
	      "  apenet-sim --help | --version\n\n",
	      f);
	size_t col = 0;
	put_word(f, "faults:", 8, &col);
	for (const struct sim_fault *x = sim_faults; x->fault; x++) {
		sim_fault_text(x, text, sizeof(text) - 2);
		if (x[1].fault)
			strcat(text, " |");
		put_word(f, text, 8, &col);
	}
	fputs("\n\n"
	      "run writes DIR/node-X-Y-Z/ per board (point APENET_SIM_DIR or apenet --sim there) and\n"
	      "DIR/ready once every board is up; it runs until SIGTERM or SIGINT.\n",
	      f);
}

/* apenet-sim --completion-table: these tables as tools/gen-completion.sh
 * reads them (the format: tools/completion.bash).  Hidden from --help. */
static void completion_table(void)
{
	printf("link");
	for (int v = 1; v < APENET_V_COUNT; v++) {
		const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);
		for (unsigned l = 0; l < p->nlinks; l++) /* each name is one variant's */
			printf(" %s", p->links[l].name);
	}
	printf("\nopt + --help\nopt + --version\n");
	for (unsigned i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("cmd %s\n", commands[i]);
	for (int i = 0; i < RUN_NOPTS; i++) {
		printf("opt run %s %s", run_opts[i].name, run_opts[i].arg);
		for (int v = 1; i == RUN_VARIANT && v < APENET_V_COUNT; v++)
			printf(" %s", apenet_profile((enum apenet_variant)v)->name);
		putchar('\n');
	}
	for (int i = 0; i < INJ_NOPTS; i++)
		printf("opt inject %s %s\n", inject_opts[i].name, inject_opts[i].arg);
	printf("arg inject 1 -");
	for (const struct sim_fault *x = sim_faults; x->fault; x++)
		printf(" %s", x->fault);
	putchar('\n');
	for (const struct sim_fault *x = sim_faults; x->fault; x++)
		for (int j = 0; j < SIM_FAULT_OPTS && x->opts[j].name; j++)
			printf("opt inject:%s --%s %s\n", x->fault, x->opts[j].name, x->opts[j].arg);
}

/* The index of option NAME in o[0..n), or -1. */
static int find_opt(const struct sim_opt *o, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(o[i].name, name))
			return i;
	return -1;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("apenet-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static int parse_u(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *end || errno || s[0] == '-' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64], tmp[PATH_MAX + 80];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	fputs(text, f);
	if (fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

static void remove_file(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static int other_instance(const char *dir)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/sim.pid", dir);
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid > 0 && pid != getpid() && kill((pid_t)pid, 0) == 0 ? (int)pid : 0;
}

static int cmd_run(int argc, char **argv)
{
	struct sim_conf c = { .dims = { 4, 4, 1 }, .prof = apenet_profile(APENET_V_APENETP), .seed = 1,
			      .ber_accel = 1, .cable_kind = -1 };
	const char *val[RUN_NOPTS] = { NULL };
	for (int i = 0; i < argc; i++) {
		int k = find_opt(run_opts, RUN_NOPTS, argv[i]);
		if (k < 0)
			return fail("run: unknown argument '%s' (see apenet-sim --help)", argv[i]);
		if (i + 1 >= argc)
			return fail("run: %s needs a value", argv[i]);
		val[k] = argv[++i];
	}
	const char *dir = val[RUN_DIR], *config = val[RUN_CONFIG], *dims = val[RUN_DIMS], *variant = val[RUN_VARIANT];
	const char *seed = val[RUN_SEED], *accel = val[RUN_ACCEL], *tick = val[RUN_TICK];
	if (!dir)
		return fail("run: --dir DIR is required%s", "");
	struct apenet_err e = { 0 };
	if (config && sim_conf_load(config, &c, &e)) {
		sim_conf_free(&c);
		return fail("%s", e.msg);
	}
	unsigned long u;
	if (dims && (apenet_parse_triple(dims, 'x', c.dims) || !c.dims[0] || !c.dims[1] || !c.dims[2]))
		return sim_conf_free(&c), fail("run: --dims '%s' is not XxYxZ with sizes 1..255", dims);
	if (c.dims[0] * c.dims[1] * c.dims[2] > 32768)
		return sim_conf_free(&c), fail("run: at most 32768 boards (32x32x32)%s", "");
	if (variant && !(c.prof = apenet_profile_by_name(variant)))
		return sim_conf_free(&c), fail("run: unknown --variant '%s' (see apenet-sim variants)", variant);
	if (seed) {
		if (parse_u(seed, 0, 0xffffffffu, &u))
			return sim_conf_free(&c), fail("run: --seed '%s' is not a whole number", seed);
		c.seed = u;
	}
	if (accel) {
		if (parse_u(accel, 1, 1000000000u, &u))
			return sim_conf_free(&c), fail("run: --ber-accel '%s' is not a whole number 1..1e9", accel);
		c.ber_accel = (uint32_t)u;
	}
	if (tick) {
		if (parse_u(tick, 1, 10000, &u))
			return sim_conf_free(&c), fail("run: --tick-ms '%s' is not 1..10000", tick);
		c.tick_ms = (unsigned)u;
	}
	int other = other_instance(dir);
	if (other) {
		sim_conf_free(&c);
		return fail("run: another apenet-sim (pid %d) runs in %s", other, dir);
	}

	static struct sim_torus t;
	if (sim_torus_create(&t, &c, dir, &e)) {
		sim_conf_free(&c);
		sim_torus_destroy(&t);
		return fail("%s", e.msg);
	}
	sim_conf_free(&c);
	remove_file(t.dir, "ready");
	int lfd = sim_ctl_listen(t.dir, &e);
	if (lfd < 0) {
		sim_torus_destroy(&t);
		return fail("%s", e.msg);
	}
	char pid[32];
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	write_file(t.dir, "sim.pid", pid);

	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	fprintf(stderr, "apenet-sim: %u boards (%ux%ux%u) in %s, tick %u ms, ber-accel %u\n", t.nboards, t.dims[0],
		t.dims[1], t.dims[2], t.dir, t.tick_ms, t.ber_accel);
	t.t0 = mono();
	double last = t.t0;
	int ready = 0;
	double cost_avg = 0; /* seconds a tick takes, running mean */
	const unsigned tick0 = t.tick_ms; /* the tick asked for: a coarser one comes back to it */
	while (!stop) {
		double now = mono(), cpu0 = cpu_s();
		double dt = now - last;
		double cap = 5.0 * t.tick_ms / 1000.0;
		last = now;
		/* A stall (the machine paused, the process starved) advances the
		 * model by the cap only: the card's TIMESTAMP does the same, so
		 * that its clock and everything it counts stay in step (a tool
		 * waiting on the card's clock waits for the card; apenet/dev.h,
		 * apenet_deadline). */
		if (dt > cap)
			t.t0 += dt - cap;
		t.now_ts = (uint64_t)((now - t.t0) * SIM_TS_HZ);
		sim_torus_tick(&t, dt > cap ? cap : dt);
		if (!ready) {
			char info[128];
			snprintf(info, sizeof(info), "boards %u\ndims %ux%ux%u\npid %ld\n", t.nboards, t.dims[0],
				 t.dims[1], t.dims[2], (long)getpid());
			if (write_file(t.dir, "ready", info)) {
				fprintf(stderr, "apenet-sim: %s/ready: %s\n", t.dir, strerror(errno));
				break;
			}
			ready = 1;
		}
		double cost = cpu_s() - cpu0;
		/* a torus too big for the tick gets a coarser one, on one core;
		 * judged on the running mean, since a tick that starts PRBS runs
		 * (their first 2^20 bits go bit by bit) costs a spike: a sweep
		 * starts one every few ticks, and a spike must not slow every
		 * tick after it for good */
		cost_avg = cost_avg == 0 ? cost : 0.9 * cost_avg + 0.1 * cost;
		if (cost_avg > 0.5 * t.tick_ms / 1000.0 && t.tick_ms < 2000) {
			t.tick_ms = t.tick_ms * 2 > 2000 ? 2000 : t.tick_ms * 2;
			fprintf(stderr, "apenet-sim: a tick takes %.0f ms; tick now %u ms\n", cost_avg * 1000, t.tick_ms);
			cost_avg = 0;
		} else if (cost_avg > 0 && cost_avg < 0.1 * t.tick_ms / 1000.0 && t.tick_ms > tick0) {
			/* the spike passed (a sweep's PRBS starts, a burst of
			 * tool reads): back towards the tick asked for */
			t.tick_ms = t.tick_ms / 2 < tick0 ? tick0 : t.tick_ms / 2;
			fprintf(stderr, "apenet-sim: a tick takes %.1f ms; tick back to %u ms\n", cost_avg * 1000, t.tick_ms);
			cost_avg = 0;
		}
		sim_ctl_serve(&t, lfd);
		double next = now + t.tick_ms / 1000.0;
		uint64_t wd = sim_torus_wd_deadline(&t);
		if (wd != UINT64_MAX && t.t0 + (double)wd / SIM_TS_HZ < next)
			next = t.t0 + (double)wd / SIM_TS_HZ + 0.0005;
		for (double wait = next - mono(); wait > 0 && !stop; wait = next - mono()) {
			struct pollfd p = { .fd = lfd, .events = POLLIN };
			if (poll(&p, 1, (int)(wait * 1000) + 1) > 0)
				sim_ctl_serve(&t, lfd);
		}
	}
	close(lfd);
	remove_file(t.dir, "ready");
	remove_file(t.dir, "control.sock");
	remove_file(t.dir, "sim.pid");
	sim_torus_destroy(&t);
	fprintf(stderr, "apenet-sim: stopped\n");
	return 0;
}

static int cmd_inject(int argc, char **argv)
{
	const char *val[INJ_NOPTS] = { NULL };
	char *req[24];
	int n = 0;
	for (int i = 0; i < argc; i++) {
		int k = find_opt(inject_opts, INJ_NOPTS, argv[i]);
		if (k >= 0) {
			if (i + 1 >= argc)
				return fail("inject: %s needs a value", argv[i]);
			val[k] = argv[++i];
		} else if (n < 22) {
			req[1 + n++] = argv[i];
		} else {
			return fail("inject: too many arguments%s", "");
		}
	}
	const char *dir = val[INJ_DIR], *node = val[INJ_NODE];
	if (!dir || !node || n == 0)
		return fail("inject: usage: apenet-sim inject --dir DIR --node X,Y,Z FAULT [options]%s", "");
	req[0] = (char *)node;
	char reply[512];
	struct apenet_err e = { 0 };
	if (sim_ctl_request(dir, req, n + 1, reply, sizeof(reply), &e))
		return fail("%s", e.msg);
	int bad = strncmp(reply, "ok", 2) != 0;
	fprintf(bad ? stderr : stdout, "%s%s\n", bad ? "apenet-sim: " : "", reply);
	return bad ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (argc == 2 && !strcmp(argv[1], "--completion-table")) {
		completion_table();
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("apenet-sim " APENET_VERSION_TEXT);
		return 0;
	}
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "inject"))
		return cmd_inject(argc - 2, argv + 2);
	if (!strcmp(argv[1], "variants")) {
		for (int v = 1; v < APENET_V_COUNT; v++) {
			const struct apenet_profile *p = apenet_profile((enum apenet_variant)v);
			printf("%-10s %-18s PCIe gen%u x%u, %u links:", p->name, p->title, p->pcie_gen, p->pcie_width,
			       p->nlinks);
			for (unsigned l = 0; l < p->nlinks; l++)
				printf(" %s", p->links[l].name);
			putchar('\n');
		}
		return 0;
	}
	return fail("unknown command '%s' (see apenet-sim --help)", argv[1]);
}
