#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "e2e.h"

#define MAXARGS 48

const char *e2e_bin(void)
{
	const char *b = getenv("APENET_BIN");
	return b && *b ? b : "build/bin";
}

double e2e_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double e2e_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec * 1000 + ts.tv_nsec * 1e-6;
}

void e2e_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int e2e_wait(int (*cond)(void *ctx), void *ctx, double deadline_s)
{
	double end = e2e_now() + deadline_s;
	for (;;) {
		if (cond(ctx))
			return 1;
		if (e2e_now() > end)
			return 0;
		e2e_sleep_ms(10);
	}
}

static int ready_cond(void *ctx)
{
	struct e2e_sim *s = ctx;
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/ready", s->dir);
	int st;
	if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
		s->pid = -1;
		return 1; /* it died: stop waiting */
	}
	return access(p, F_OK) == 0;
}

int e2e_sim_start(struct e2e_sim *s, ...)
{
	char *argv[MAXARGS];
	int n = 0;
	char prog[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	snprintf(s->dir, sizeof(s->dir), "%s/apenet-e2e-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->dir))
		return -1;
	snprintf(prog, sizeof(prog), "%s/apenet-sim", e2e_bin());
	argv[n++] = prog;
	argv[n++] = "run";
	argv[n++] = "--dir";
	argv[n++] = s->dir;
	va_list ap;
	va_start(ap, s);
	for (char *a; (a = va_arg(ap, char *)) && n < MAXARGS - 1;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	char log[PATH_MAX + 16];
	snprintf(log, sizeof(log), "%s/sim.log", s->dir);
	fflush(NULL);
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		execv(prog, argv);
		_exit(127);
	}
	if (!e2e_wait(ready_cond, s, 120) || s->pid < 0) {
		fprintf(stderr, "e2e: apenet-sim did not become ready (see %s)\n", log);
		return -1;
	}
	return 0;
}

int e2e_sim_stop(struct e2e_sim *s)
{
	int st = -1;
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		double end = e2e_now() + 60;
		while (waitpid(s->pid, &st, WNOHANG) == 0) {
			if (e2e_now() > end) {
				kill(s->pid, SIGKILL);
				waitpid(s->pid, &st, 0);
				break;
			}
			e2e_sleep_ms(10);
		}
		s->pid = -1;
	}
	char cmd[PATH_MAX + 16];
	if (getenv("E2E_KEEP") == NULL && strncmp(s->dir, "/", 1) == 0 && strstr(s->dir, "apenet-e2e-")) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "e2e: could not remove %s\n", s->dir);
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void e2e_node_dir(const struct e2e_sim *s, unsigned x, unsigned y, unsigned z, char *out, size_t n)
{
	snprintf(out, n, "%s/node-%u-%u-%u", s->dir, x, y, z);
}

static int drain(int fd, char *buf, size_t n, size_t *len)
{
	if (!buf || n == 0) {
		char junk[4096];
		ssize_t r = read(fd, junk, sizeof(junk));
		return r > 0;
	}
	if (*len + 1 >= n) {
		char junk[4096];
		return read(fd, junk, sizeof(junk)) > 0;
	}
	ssize_t r = read(fd, buf + *len, n - 1 - *len);
	if (r > 0) {
		*len += (size_t)r;
		buf[*len] = 0;
	}
	return r > 0;
}

static int run_argv(char *out, size_t outn, char *err, size_t errn, char **argv)
{
	int po[2], pe[2];
	if (pipe(po) || pipe(pe))
		return -1;
	fflush(NULL); /* a child must not repeat our buffered output */
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		close(po[1]);
		close(pe[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	size_t lo = 0, le = 0;
	if (out && outn)
		out[0] = 0;
	if (err && errn)
		err[0] = 0;
	int oo = 1, eo = 1;
	while (oo || eo) {
		fd_set rs;
		FD_ZERO(&rs);
		if (oo)
			FD_SET(po[0], &rs);
		if (eo)
			FD_SET(pe[0], &rs);
		if (select((po[0] > pe[0] ? po[0] : pe[0]) + 1, &rs, NULL, NULL, NULL) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (oo && FD_ISSET(po[0], &rs))
			oo = drain(po[0], out, outn, &lo);
		if (eo && FD_ISSET(pe[0], &rs))
			eo = drain(pe[0], err, errn, &le);
	}
	close(po[0]);
	close(pe[0]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int e2e_run(char *out, size_t outn, char *err, size_t errn, const char *prog, ...)
{
	char *argv[MAXARGS];
	char path[PATH_MAX];
	int n = 0;
	if (prog[0] == '/')
		snprintf(path, sizeof(path), "%s", prog);
	else
		snprintf(path, sizeof(path), "%s/%s", e2e_bin(), prog);
	argv[n++] = path;
	va_list ap;
	va_start(ap, prog);
	for (char *a; (a = va_arg(ap, char *)) && n < MAXARGS - 1;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	return run_argv(out, outn, err, errn, argv);
}

int e2e_inject(const struct e2e_sim *s, const char *node, ...)
{
	char *argv[MAXARGS];
	char path[PATH_MAX];
	int n = 0;
	snprintf(path, sizeof(path), "%s/apenet-sim", e2e_bin());
	argv[n++] = path;
	argv[n++] = "inject";
	argv[n++] = "--dir";
	argv[n++] = (char *)s->dir;
	argv[n++] = "--node";
	argv[n++] = (char *)node;
	va_list ap;
	va_start(ap, node);
	for (char *a; (a = va_arg(ap, char *)) && n < MAXARGS - 1;)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	char err[1024];
	int rc = run_argv(NULL, 0, err, sizeof(err), argv);
	if (rc)
		fprintf(stderr, "e2e: inject %s: exit %d: %s\n", node, rc, err);
	return rc;
}

int e2e_open(const struct e2e_sim *s, unsigned x, unsigned y, unsigned z, struct apenet_dev *d)
{
	char dir[PATH_MAX + 64];
	struct apenet_site site;
	struct apenet_err e = { 0 };
	e2e_node_dir(s, x, y, z, dir, sizeof(dir));
	if (apenet_site_init(&site, dir, &e) || apenet_dev_open(d, &site, NULL, &e)) {
		fprintf(stderr, "e2e: open %s: %s\n", dir, e.msg);
		return -1;
	}
	return 0;
}

double e2e_proc_cpu_s(pid_t pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	unsigned long ut = 0, st = 0;
	/* fields after the command: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

long e2e_proc_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	long v = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key) + 1);
	fclose(f);
	return v;
}

pid_t e2e_spawn(char *const argv[], const char *errfile)
{
	fflush(NULL); /* a child must not repeat our buffered output */
	pid_t p = fork();
	if (p == 0) {
		int fd = open(errfile, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd >= 0) {
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	return p;
}

pid_t e2e_agent_start(const struct e2e_sim *s, const char *dir, const char *node, const char *extra_yaml)
{
	char cfg[PATH_MAX + 32], nd[PATH_MAX + 32], err[PATH_MAX + 32], bin[PATH_MAX + 16];
	mkdir(dir, 0755);
	snprintf(cfg, sizeof(cfg), "%s/agent.yaml", dir);
	FILE *f = fopen(cfg, "w");
	if (!f)
		return -1;
	fprintf(f, "agent:\n  state_dir: %s/state\n  blackbox_dir: %s/bb\n  socket: %s/sock\n  edac_root: %s/edac\n"
		   "  user: \"\"\n%s",
		dir, dir, dir, dir, extra_yaml ? extra_yaml : "");
	if (fclose(f))
		return -1;
	snprintf(nd, sizeof(nd), "%s/node-%s", s->dir, node);
	snprintf(err, sizeof(err), "%s/log", dir);
	snprintf(bin, sizeof(bin), "%s/apenet-agent", e2e_bin());
	char *argv[] = { bin, "--config", cfg, "--foreground", "--sim", nd, NULL };
	return e2e_spawn(argv, err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

void e2e_quantiles(double *v, int n, double *p50, double *p99, double *max)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	/* nearest rank: the smallest value with at least q of them at or below it */
	*p50 = v[(n + 1) / 2 - 1];
	*p99 = v[(99 * n + 99) / 100 - 1];
	*max = v[n - 1];
}
