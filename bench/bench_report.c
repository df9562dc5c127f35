/*
 * The post-mortem report over a big health database (issue: "Report over a
 * database of 10 million transitions across 32,768 nodes, for one incident
 * and for a one-day window (goal <= 1 s and peak memory stated); `apenet
 * db check` on it").
 *
 * The database: 10,000,000 health transitions of a 32x32x32 torus over 30
 * days, with a representative incident placed at noon of the one-day
 * window; report_gen.c makes it once and keeps it at
 * build/bench-data/report-10m.db (BENCH_REPORT_DB), reused while it carries
 * the generator's marker.  Making it takes 4-5 minutes; a run on the kept
 * file about 3 minutes, most of it db check (about a minute a run).
 *
 * The measurements, each a child process (fork + exec of the real CLI in
 * $APENET_BIN, default build/bin) timed on the wall clock, its peak
 * resident memory from wait4's rusage (bench/spawn.c):
 *   apenet report --incident ID --format text|json|html -o FILE
 *   apenet report --since T0 --until T1 --format text|json|html -o FILE
 *   apenet db check          (reads every page: integrity_check)
 *   apenet db export --since T0 --until T1 > FILE: the baseline, the same
 *   window's rows as JSON lines, in the same run.
 * Each report and the export once unmeasured first (the page cache warm,
 * as after the first look at an incident), then BENCH_REPORT_RUNS times
 * (default 5); db check BENCH_REPORT_CHECK_RUNS times (default 3).
 * Printed: min and median wall time, the peak RSS, the output's size, the
 * goal (<= 1 s) and whether it is met.  Until `apenet report` exists (exit
 * 2, "unknown command 'report'") its rows say "not available" and the rest
 * is measured all the same.
 *
 * ru_maxrss counts the memory of the process as forked, before exec: a
 * child of a big parent would report the parent's size.  So everything
 * that touches the database here runs in a child of its own (the
 * generator's too), this process stays small, and what it adds is measured
 * (/bin/true spawned the same way) and printed.
 *
 * BENCH_REPORT_TRANSITIONS (default 10,000,000) makes a smaller database
 * for a quick try (build/bench-data/report-N.db); BENCH_REPORT_BATCH the
 * reports a batch holds while generating (default 100,000; report_gen.c
 * has what other sizes gave).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report_gen.h"
#include "spawn.h"
#include "../tests/e2e/e2e.h"

static void utc(int64_t ms, char *out, size_t n)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&s, &tm);
	char b[20];
	strftime(b, sizeof(b), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%03dZ", b, (int)(ms % 1000));
}

static int env_int(const char *name, long long def, long long *out)
{
	const char *v = getenv(name);
	if (!v || !*v) {
		*out = def;
		return 0;
	}
	char *end;
	errno = 0;
	long long x = strtoll(v, &end, 10);
	if (*end || errno || x <= 0) {
		fprintf(stderr, "bench: %s='%s': a positive number, please\n", name, v);
		return -1;
	}
	*out = x;
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* ---- measuring ---- */

#define MAXRUNS 50
#define MAXARGS 16

struct row {
	char label[96];
	char *argv[MAXARGS];
	char out[PATH_MAX + 32]; /* -o FILE, or where stdout goes ("": /dev/null) */
	int stdout_to_out;
	int is_report, is_check;
	int runs, warmup;
	int n;
	double wall[MAXRUNS];
	long rss[MAXRUNS];
	int rc, na, failed;
	long long bytes;
	char err[300];
};

/* The command of a row: its arguments, NULL-terminated (at most MAXARGS - 1;
 * the rows below use 14 at the most). */
static void row_argv(struct row *r, ...)
{
	va_list ap;
	va_start(ap, r);
	int n = 0;
	for (const char *a; n < MAXARGS - 1 && (a = va_arg(ap, const char *));)
		r->argv[n++] = (char *)a; /* execv's type; nothing writes to them */
	r->argv[n] = NULL;
	va_end(ap);
}

static void first_line(const char *path, char *out, size_t n)
{
	out[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(out, (int)n, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static void run_row(struct row *r, const char *errf)
{
	int total = r->warmup + r->runs;
	for (int i = 0; i < total && r->n < MAXRUNS; i++) {
		double wall;
		long rss;
		int rc = bench_spawn(r->argv, r->stdout_to_out ? r->out : NULL, errf, &wall, &rss);
		r->rc = rc;
		if (rc == 2 && r->is_report && bench_file_has(errf, "unknown command 'report'")) {
			r->na = 1; /* not written yet: the rows say so, the rest goes on */
			return;
		}
		/* db check: 1 is "problems found", still a measurement */
		if (rc != 0 && !(r->is_check && rc == 1)) {
			r->failed = 1;
			first_line(errf, r->err, sizeof(r->err));
			return;
		}
		if (i < r->warmup)
			continue;
		r->wall[r->n] = wall;
		r->rss[r->n] = rss;
		r->n++;
		fprintf(stderr, "bench: %-44s run %d: %.3f s, %ld kB\n", r->label, r->n, wall, rss);
	}
	struct stat sb;
	r->bytes = r->out[0] && stat(r->out, &sb) == 0 ? (long long)sb.st_size : -1;
}

static double median(const double *v, int n)
{
	double s[MAXRUNS];
	memcpy(s, v, (size_t)n * sizeof(*v));
	qsort(s, (size_t)n, sizeof(*s), cmp_dbl);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double min_of(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

static long max_rss(const long *v, int n)
{
	long m = 0;
	for (int i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

static void print_bytes(long long b, char *out, size_t n)
{
	if (b < 0)
		snprintf(out, n, "-");
	else if (b >= 10000000)
		snprintf(out, n, "%.1f MB", (double)b / 1e6);
	else if (b >= 10000)
		snprintf(out, n, "%.1f kB", (double)b / 1e3);
	else
		snprintf(out, n, "%lld B", b);
}

int main(void)
{
	long long want_ll, batch, runs, check_runs;
	if (env_int("BENCH_REPORT_TRANSITIONS", (long long)BENCH_REPORT_DEFAULT_TRANSITIONS, &want_ll) ||
	    env_int("BENCH_REPORT_BATCH", 100000, &batch) || env_int("BENCH_REPORT_RUNS", 5, &runs) ||
	    env_int("BENCH_REPORT_CHECK_RUNS", 3, &check_runs))
		return 2;
	runs = runs > MAXRUNS - 1 ? MAXRUNS - 1 : runs;
	check_runs = check_runs > MAXRUNS ? MAXRUNS : check_runs;
	uint64_t want = (uint64_t)want_ll;
	char path[PATH_MAX];
	const char *envdb = getenv("BENCH_REPORT_DB");
	if (envdb && *envdb)
		snprintf(path, sizeof(path), "%s", envdb);
	else if (want == BENCH_REPORT_DEFAULT_TRANSITIONS)
		snprintf(path, sizeof(path), "build/bench-data/report-10m.db");
	else
		snprintf(path, sizeof(path), "build/bench-data/report-%llu.db", (unsigned long long)want);

	const unsigned dim = BENCH_REPORT_DIM;
	printf("# apenet report over a health database of %llu transitions, %u nodes (%ux%ux%u), %d days from %s\n",
	       (unsigned long long)want, dim * dim * dim, dim, dim, dim, BENCH_REPORT_DAYS, BENCH_REPORT_START);
	struct bench_report_pick f;
	if (bench_report_db(path, !(envdb && *envdb), want, batch, &f))
		return 2;
	char t0s[32], t1s[32], reps[32];
	utc(f.since_ms, t0s, sizeof(t0s));
	utc(f.until_ms, t1s, sizeof(t1s));
	utc(f.opened_ms, reps, sizeof(reps));
	printf("incident: %lld, %s, opened %s, %u evidence rows (placed by the generator: noon of the window's day, "
	       "the middle of the 30 days)\n",
	       (long long)f.incident, f.where, reps, f.evidence);
	printf("window: [%s, %s) = [%lld, %lld): %llu transitions, %llu incidents opened in it with %llu evidence rows\n",
	       t0s, t1s, (long long)f.since_ms, (long long)f.until_ms, (unsigned long long)f.win_transitions,
	       (unsigned long long)f.win_incidents, (unsigned long long)f.win_evidence);

	char dir[PATH_MAX - 64];
	const char *tmpd = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-report-bench-XXXXXX", tmpd && *tmpd ? tmpd : "/tmp");
	if (!mkdtemp(dir))
		return 2;
	char errf[PATH_MAX], bin[PATH_MAX], id[32], since[32], until[32];
	snprintf(errf, sizeof(errf), "%s/stderr", dir);
	snprintf(bin, sizeof(bin), "%s/apenet", e2e_bin());
	snprintf(id, sizeof(id), "%lld", (long long)f.incident);
	snprintf(since, sizeof(since), "%lld", (long long)f.since_ms);
	snprintf(until, sizeof(until), "%lld", (long long)f.until_ms);

	/* rows[0..2]: the incident's report, [3..5]: the window's, text, json
	 * and html; then the export and db check */
	static const char *const fmts[3] = { "text", "json", "html" };
	static struct row rows[8];
	int nr = 0;
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < 3; k++) {
			struct row *r = &rows[nr++];
			snprintf(r->label, sizeof(r->label), "report %s, %s", w ? "one-day window" : "one incident", fmts[k]);
			snprintf(r->out, sizeof(r->out), "%s/report-%s-%s", dir, w ? "window" : "incident", fmts[k]);
			if (w)
				row_argv(r, bin, "report", "--db", path, "--since", since, "--until", until, "--format", fmts[k],
					 "-o", r->out, NULL);
			else
				row_argv(r, bin, "report", "--db", path, "--incident", id, "--format", fmts[k], "-o", r->out,
					 NULL);
			r->is_report = 1;
			r->runs = (int)runs;
			r->warmup = 1;
		}
	struct row *exp = &rows[nr++];
	snprintf(exp->label, sizeof(exp->label), "baseline: db export, the same window");
	snprintf(exp->out, sizeof(exp->out), "%s/export.jsonl", dir);
	exp->stdout_to_out = 1;
	row_argv(exp, bin, "db", "export", "--db", path, "--since", since, "--until", until, NULL);
	exp->runs = (int)runs;
	exp->warmup = 1;
	struct row *chk = &rows[nr++];
	snprintf(chk->label, sizeof(chk->label), "db check (every page)");
	snprintf(chk->out, sizeof(chk->out), "%s/check.txt", dir);
	chk->stdout_to_out = 1;
	row_argv(chk, bin, "db", "check", "--db", path, NULL);
	chk->is_check = 1;
	chk->runs = (int)check_runs;
	chk->warmup = 0; /* it reads the whole file: its own first run warms the cache */

	/* what ru_maxrss counts of this process's own memory */
	double fw;
	long floor_kb = 0;
	char *tru[] = { "/bin/true", NULL };
	if (bench_spawn(tru, NULL, errf, &fw, &floor_kb) != 0)
		floor_kb = -1;

	for (int i = 0; i < nr; i++)
		run_row(&rows[i], errf);

	struct stat sb;
	stat(path, &sb);
	printf("database: %.2f GB; page cache warm (one unmeasured run of each report and of the export first)\n",
	       (double)sb.st_size / 1e9);
	printf("%-38s %4s  %9s %9s  %10s  %10s  %s\n", "", "runs", "wall min", "median", "peak RSS", "output", "");
	int report_na = 0, goal_all = 1, any_report = 0;
	for (int i = 0; i < nr; i++) {
		struct row *r = &rows[i];
		char b[32];
		if (r->na) {
			report_na = 1;
			printf("%-38s %4s  report: not available (apenet has no 'report' command yet)\n", r->label, "-");
			continue;
		}
		if (r->failed || !r->n) {
			printf("%-38s %4s  failed: exit %d: %s\n", r->label, "-", r->rc, r->err);
			if (r->is_report)
				goal_all = 0;
			continue;
		}
		print_bytes(r->bytes, b, sizeof(b));
		double med = median(r->wall, r->n);
		const char *note = "";
		if (r->is_report) {
			any_report = 1;
			note = med <= 1.0 ? "goal met" : "GOAL NOT MET";
			goal_all &= med <= 1.0;
		} else if (r->is_check) {
			note = r->rc == 0 ? "verdict: ok" : "PROBLEMS FOUND (see apenet db check --db FILE)";
		}
		printf("%-38s %4d  %7.3f s %7.3f s  %7.1f MB  %10s  %s\n", r->label, r->n, min_of(r->wall, r->n), med,
		       (double)max_rss(r->rss, r->n) / 1024, b, note);
	}
	if (exp->n) {
		long long lines = 0;
		int fd = open(exp->out, O_RDONLY);
		static char buf[1 << 16];
		ssize_t got;
		while (fd >= 0 && (got = read(fd, buf, sizeof(buf))) > 0)
			for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))); p++)
				lines++;
		if (fd >= 0)
			close(fd);
		printf("baseline: %lld JSON lines (transitions, incidents and their evidence of the window)\n", lines);
	}
	/* the window's reports against the baseline reading the same rows */
	if (exp->n)
		for (int k = 3; k < 6; k++)
			if (rows[k].n)
				printf("report window %s / export: %.2fx the time, %.2fx the memory\n", fmts[k - 3],
				       median(rows[k].wall, rows[k].n) / median(exp->wall, exp->n),
				       (double)max_rss(rows[k].rss, rows[k].n) / (double)max_rss(exp->rss, exp->n));
	printf("peak RSS: ru_maxrss of the child; this process adds up to %.1f MB to it (/bin/true spawned the same "
	       "way)\n",
	       (double)floor_kb / 1024);
	if (report_na)
		printf("# goal: report <= 1 s: not measured (report: not available)\n");
	else if (any_report)
		printf("# goal: report <= 1 s (median), for one incident and for a one-day window: %s\n",
		       goal_all ? "met" : "NOT met");
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "bench: could not remove %s\n", dir);
	return exp->failed || chk->failed || !exp->n || !chk->n ? 2 : 0;
}
