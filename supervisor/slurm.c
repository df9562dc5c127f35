/*
 * The batch scheduler acts on incidents (docs/supervisor.md, "The batch
 * scheduler (Slurm)"): a settled incident's nodes are drained, a closed
 * one's resumed, by running scontrol as a child process, one at a time,
 * from the one poll loop (loop.c): the child's output pipe and its pidfd
 * join the poll, a deadline (slurm.timeout_ms) kills it.  The decisions
 * are lofamo/slurm.c's; each action's outcome is written to the health
 * database in its own transaction as it is known.
 *
 * The deduction's actions queue jobs inside the batch that applies them
 * (sup_slurm_action): they may run only once that batch committed
 * (sup_slurm_commit); a rolled back batch drops them.  A job on one node:
 *   drain:  read the node (scontrol show node -o NAME); drained already:
 *           recorded (apenet's reason: held; another's: left alone); else
 *           scontrol update ... state=drain reason=..., read back, judged.
 *   resume: only when the incident holds the node (its latest recorded
 *           action) and no other open incident of this supervisor does;
 *           read; drained with an apenet reason: state=resume, read back.
 * Which nodes an incident holds is read from the database, so a restarted
 * supervisor resumes what it drained before.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/log.h"
#include "apenet/slurm.h"
#include "sup.h"

extern char **environ;

enum { STEP_IDLE, STEP_READ, STEP_UPDATE, STEP_READBACK };

/* ---- jobs ---- */

static int push(struct sup_slurm *q, int64_t inc, int verb, const unsigned node[3], const char *host,
		const char *reason)
{
	if (q->n == q->cap) {
		size_t cap = q->cap ? 2 * q->cap : 16;
		struct sup_slurm_job *p = realloc(q->q, cap * sizeof(*p));
		if (!p)
			return -1;
		q->q = p;
		q->cap = cap;
	}
	struct sup_slurm_job *j = &q->q[q->n++];
	memset(j, 0, sizeof(*j));
	j->incident = inc;
	j->verb = verb;
	memcpy(j->node, node, sizeof(j->node));
	snprintf(j->host, sizeof(j->host), "%s", host ? host : "");
	snprintf(j->reason, sizeof(j->reason), "%s", reason ? reason : "");
	return 0;
}

/* The nodes an incident holds once every job queued for it has run: the
 * database's, then the queue's drains added and resumes taken away. */
static int held_after_queue(struct sup *s, int64_t inc, unsigned held[8][3], unsigned *n, struct apenet_err *e)
{
	if (apenet_hdb_slurm_held(s->db, inc, held, 8, n, e))
		return -1;
	for (size_t i = 0; i < s->sl.n; i++) {
		const struct sup_slurm_job *j = &s->sl.q[i];
		if (j->incident != inc)
			continue;
		unsigned k;
		for (k = 0; k < *n && memcmp(held[k], j->node, sizeof(j->node)); k++)
			;
		if (j->verb == APENET_SLURM_DRAIN && k == *n && *n < 8)
			memcpy(held[(*n)++], j->node, sizeof(j->node));
		else if (j->verb == APENET_SLURM_RESUME && k < *n)
			memcpy(held[k], held[--*n], sizeof(held[k]));
	}
	return 0;
}

static int in_set(unsigned set[][3], unsigned n, const unsigned node[3])
{
	for (unsigned i = 0; i < n; i++)
		if (!memcmp(set[i], node, 3 * sizeof(unsigned)))
			return 1;
	return 0;
}

int sup_slurm_action(struct sup *s, const struct apenet_deduce_action *a, int64_t id, struct apenet_err *e)
{
	const struct apenet_slurm_config *c = &s->cfg.slurm;
	if (!c->enabled || !id)
		return 0;
	int settled_now = (a->kind == APENET_DEDUCE_OPEN && !a->provisional) || a->kind == APENET_DEDUCE_SETTLE;
	int reblame = a->kind == APENET_DEDUCE_REBLAME && !a->provisional;
	int closed = a->kind == APENET_DEDUCE_CLOSE && !a->provisional; /* withdrawn: never acted on */
	if (!settled_now && !reblame && !closed)
		return 0;
	unsigned want[2][3], nwant = 0, held[8][3], nheld = 0;
	if (!closed)
		nwant = apenet_slurm_nodes(c, &a->blame, s->cfg.cl.dims, s->cfg.cl.wrap, want);
	if (!settled_now && held_after_queue(s, id, held, &nheld, e))
		return -1;
	char reason[APENET_SLURM_REASON_MAX];
	apenet_slurm_reason(reason, sizeof(reason), id, a->blame.summary);
	unsigned drain[2][3], resume[8][3], nd, nr;
	apenet_slurm_plan((const unsigned (*)[3])want, nwant, (const unsigned (*)[3])held, nheld, drain, &nd, resume, &nr);
	for (unsigned i = 0; i < nd; i++)
		if (push(&s->sl, id, APENET_SLURM_DRAIN, drain[i],
			 apenet_config_node_name(&s->cfg, drain[i][0], drain[i][1], drain[i][2]), reason))
			goto nomem;
	for (unsigned i = 0; i < nr; i++)
		if (push(&s->sl, id, APENET_SLURM_RESUME, resume[i],
			 apenet_config_node_name(&s->cfg, resume[i][0], resume[i][1], resume[i][2]), NULL))
			goto nomem;
	return 0;
nomem:
	return apenet_err_set(e, APENET_EIO, "slurm: out of memory queueing an action");
}

void sup_slurm_commit(struct sup *s)
{
	s->sl.committed = s->sl.n;
}

void sup_slurm_rollback(struct sup *s)
{
	s->sl.n = s->sl.committed;
}

/* ---- the outcome, on disk first ---- */

static void record(struct sup *s, struct sup_slurm_job *j, int outcome, const char *detail)
{
	struct apenet_hdb_slurm_action a;
	struct apenet_err e = { 0 };
	memset(&a, 0, sizeof(a));
	a.incident = j->incident;
	memcpy(a.node, j->node, sizeof(a.node));
	snprintf(a.host, sizeof(a.host), "%s", j->host);
	a.verb = j->verb;
	a.outcome = outcome;
	/* what scontrol said is the outside's: one printable line */
	char clean[200];
	size_t k = 0;
	for (const unsigned char *p = (const unsigned char *)(detail ? detail : ""); *p && k + 1 < sizeof(clean); p++)
		clean[k++] = *p < 0x20 || *p > 0x7e ? ' ' : (char)*p;
	clean[k] = 0;
	snprintf(a.message, sizeof(a.message), "%s%s%s", apenet_slurm_outcome_words(j->verb, outcome), k ? ": " : "",
		 clean);
	a.time_ms = apenet_clock_epoch_ms();
	if (apenet_hdb_slurm_add(s->db, &a, &e)) {
		apenet_log(APENET_LOG_ERR, "health database %s: %s: stopping", s->db_path, e.msg);
		s->failed = 1;
		return;
	}
	int bad = outcome == APENET_SLURM_FAILED || outcome == APENET_SLURM_TIMEOUT || outcome == APENET_SLURM_NO_NAME;
	apenet_log(bad ? APENET_LOG_WARN : APENET_LOG_NOTICE, "slurm: incident %lld: %s %s (%u,%u,%u): %s", (long long)j->incident,
		   apenet_slurm_verb_name(j->verb), j->host[0] ? j->host : "-", j->node[0], j->node[1], j->node[2],
		   a.message);
}

/* ---- the child ---- */

/* Runs scontrol with args (after its name); 0 started, -1 with why. */
static int spawn(struct sup *s, const char *const *args, char *why, size_t wl)
{
	struct sup_slurm *q = &s->sl;
	const char *argv[12];
	size_t na = 0;
	argv[na++] = s->cfg.slurm.scontrol;
	for (; *args && na < 11; args++)
		argv[na++] = *args;
	argv[na] = NULL;
	/* the environment, with slurm_conf as SLURM_CONF when given */
	static char conf[APENET_PATH_MAX + 16];
	size_t ne = 0;
	while (environ[ne])
		ne++;
	char **envp = calloc(ne + 2, sizeof(*envp));
	if (!envp)
		return snprintf(why, wl, "out of memory"), -1;
	size_t k = 0;
	for (size_t i = 0; i < ne; i++)
		if (!s->cfg.slurm.slurm_conf[0] || strncmp(environ[i], "SLURM_CONF=", 11))
			envp[k++] = environ[i];
	if (s->cfg.slurm.slurm_conf[0]) {
		snprintf(conf, sizeof(conf), "SLURM_CONF=%s", s->cfg.slurm.slurm_conf);
		envp[k++] = conf;
	}
	int p[2];
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK)) {
		free(envp);
		return snprintf(why, wl, "pipe: %s", strerror(errno)), -1;
	}
	/* the daemon blocks its signals (signalfd) and ignores SIGPIPE: the
	 * child starts with neither */
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGTERM);
	sigaddset(&def, SIGINT);
	sigaddset(&def, SIGHUP);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	/* nothing else of the daemon's: not its database, its SNMP socket
	 * (net-snmp's are not close-on-exec) or its signalfd */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	pid_t pid;
	int rc = posix_spawn(&pid, argv[0], &fa, &at, (char *const *)argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(envp);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return snprintf(why, wl, "%s: %s", argv[0], strerror(rc)), -1;
	}
	int pfd = pidfd_open(pid, 0);
	if (pfd < 0) {
		snprintf(why, wl, "pidfd_open: %s", strerror(errno));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(p[0]);
		return -1;
	}
	q->pid = pid;
	q->pidfd = pfd;
	q->outfd = p[0];
	q->outlen = 0;
	q->out[0] = 0;
	q->deadline = apenet_clock_mono_ms() + (int64_t)s->cfg.slurm.timeout_ms;
	return 0;
}

static void drain_pipe(struct sup_slurm *q)
{
	char buf[4096];
	ssize_t r;
	while (q->outfd >= 0 && (r = read(q->outfd, buf, sizeof(buf))) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			break;
		}
		size_t take = (size_t)r;
		if (take > sizeof(q->out) - 1 - q->outlen)
			take = sizeof(q->out) - 1 - q->outlen; /* the rest is not needed */
		memcpy(q->out + q->outlen, buf, take);
		q->outlen += take;
		q->out[q->outlen] = 0;
	}
	close(q->outfd); /* end of file, or an error: done with it */
	q->outfd = -1;
}

static void child_done(struct sup_slurm *q)
{
	if (q->pidfd >= 0)
		close(q->pidfd);
	if (q->outfd >= 0)
		close(q->outfd);
	q->pidfd = q->outfd = -1;
	q->pid = 0;
}

/* Kills and reaps the child (a timeout, a stop). */
static void child_kill(struct sup_slurm *q)
{
	if (q->pid > 0) {
		kill(q->pid, SIGKILL);
		waitpid(q->pid, NULL, 0);
	}
	child_done(q);
}

/* The first line of what scontrol printed, for a message. */
static const char *first_line(struct sup_slurm *q, char *buf, size_t len)
{
	const char *p = q->out;
	while (*p == '\n' || *p == ' ')
		p++;
	snprintf(buf, len, "%.*s", (int)strcspn(p, "\n"), p);
	return buf;
}

/* ---- one job, step by step ---- */

/* The job at the head of the queue is over (it is always a committed one). */
static void pop(struct sup_slurm *q)
{
	memmove(q->q, q->q + 1, (q->n - 1) * sizeof(*q->q));
	q->n--;
	q->committed--;
}

static void job_done(struct sup *s, int outcome, const char *detail)
{
	struct sup_slurm *q = &s->sl;
	record(s, &q->q[0], outcome, detail);
	pop(q);
	q->step = STEP_IDLE;
}

static void run_step(struct sup *s, int step)
{
	struct sup_slurm *q = &s->sl;
	struct sup_slurm_job *j = &q->q[0];
	char why[256], arg_name[96], arg_reason[APENET_SLURM_REASON_MAX + 16];
	const char *args[8];
	snprintf(arg_name, sizeof(arg_name), "nodename=%s", j->host);
	if (step == STEP_UPDATE) {
		args[0] = "update";
		args[1] = arg_name;
		if (j->verb == APENET_SLURM_DRAIN) {
			snprintf(arg_reason, sizeof(arg_reason), "reason=%s", j->reason);
			args[2] = "state=drain";
			args[3] = arg_reason;
			args[4] = NULL;
		} else {
			args[2] = "state=resume";
			args[3] = NULL;
		}
	} else {
		args[0] = "show";
		args[1] = "node";
		args[2] = "-o";
		args[3] = j->host;
		args[4] = NULL;
	}
	if (spawn(s, args, why, sizeof(why))) {
		job_done(s, APENET_SLURM_FAILED, why);
		return;
	}
	q->step = step;
}

/* The next job, when none runs: what needs no child is recorded at once. */
static void next_job(struct sup *s)
{
	struct sup_slurm *q = &s->sl;
	while (q->step == STEP_IDLE && q->committed > 0 && !s->failed) {
		struct sup_slurm_job *j = &q->q[0];
		const struct apenet_slurm_config *c = &s->cfg.slurm;
		struct apenet_err e = { 0 };
		char detail[200];
		if (j->verb == APENET_SLURM_RESUME) {
			unsigned held[8][3], n;
			int64_t other;
			if (apenet_hdb_slurm_held(s->db, j->incident, held, 8, &n, &e) ||
			    apenet_hdb_slurm_holder(s->db, j->node, j->incident, &other, &e)) {
				apenet_log(APENET_LOG_ERR, "health database %s: %s: stopping", s->db_path, e.msg);
				s->failed = 1;
				return;
			}
			if (!in_set(held, n, j->node)) {
				/* it never held it (left alone, no name, failed): nothing to undo */
				pop(q);
				continue;
			}
			if (other) {
				snprintf(detail, sizeof(detail), "incident %lld still holds it", (long long)other);
				job_done(s, APENET_SLURM_KEPT, detail);
				continue;
			}
		}
		if (!j->host[0]) {
			snprintf(detail, sizeof(detail), "no Slurm name for node %u,%u,%u", j->node[0], j->node[1],
				 j->node[2]);
			job_done(s, APENET_SLURM_NO_NAME, detail);
			continue;
		}
		if (c->dry_run || !c->enabled) {
			if (j->verb == APENET_SLURM_DRAIN)
				snprintf(detail, sizeof(detail), "%.50s, reason '%.127s'", j->host, j->reason);
			else
				snprintf(detail, sizeof(detail), "%s", j->host);
			job_done(s, c->dry_run ? APENET_SLURM_DRY_RUN : APENET_SLURM_ABANDONED,
				 c->dry_run ? detail : "slurm.enabled was turned off");
			continue;
		}
		run_step(s, STEP_READ);
	}
}

/* The child of the current step exited: the next step, or the outcome. */
static void step_done(struct sup *s, int status)
{
	struct sup_slurm *q = &s->sl;
	struct sup_slurm_job *j = &q->q[0];
	struct apenet_slurm_node node;
	char why[200], line[200], detail[256];
	int step = q->step;
	q->step = STEP_IDLE;
	if (step == STEP_UPDATE) {
		/* judged by the node read back, not by the exit status: with no
		 * slurmd ever heard, `state=resume` clears the DRAIN flag and
		 * still says "Invalid node state specified", exit 1 */
		snprintf(q->update_said, sizeof(q->update_said), "%s", first_line(q, line, sizeof(line)));
		q->update_status = status;
		run_step(s, STEP_READBACK);
		return;
	}
	if (apenet_slurm_parse_node(q->out, j->host, &node, why, sizeof(why))) {
		snprintf(detail, sizeof(detail), "%.100s (scontrol: %.120s)", why, first_line(q, line, sizeof(line)));
		job_done(s, APENET_SLURM_FAILED, detail);
		return;
	}
	if (step == STEP_READ) {
		int o = apenet_slurm_decide(j->verb, &node);
		if (!o) {
			run_step(s, STEP_UPDATE);
			return;
		}
		if (o == APENET_SLURM_GONE)
			snprintf(detail, sizeof(detail), "State=%s", node.state);
		else
			snprintf(detail, sizeof(detail), "reason '%.200s'", node.reason);
		job_done(s, o, detail);
		return;
	}
	int o = apenet_slurm_judge(j->verb, &node);
	if (o == APENET_SLURM_DONE && j->verb == APENET_SLURM_DRAIN)
		snprintf(detail, sizeof(detail), "State=%.63s, reason '%.160s'", node.state, node.reason);
	else if (o == APENET_SLURM_DONE)
		snprintf(detail, sizeof(detail), "State=%s", node.state);
	else
		snprintf(detail, sizeof(detail), "scontrol update exit %d: %.90s; the node reads State=%.40s, reason '%.60s'",
			 WIFEXITED(q->update_status) ? WEXITSTATUS(q->update_status) : -1, q->update_said, node.state,
			 node.reason);
	job_done(s, o, detail);
}

/* ---- the poll loop's side ---- */

void sup_slurm_init(struct sup *s)
{
	memset(&s->sl, 0, sizeof(s->sl));
	s->sl.pidfd = s->sl.outfd = -1;
}

int sup_slurm_pollfds(struct sup *s, struct pollfd *fds, int *timeout)
{
	struct sup_slurm *q = &s->sl;
	next_job(s);
	if (q->step == STEP_IDLE)
		return 0;
	int64_t left = q->deadline - apenet_clock_mono_ms();
	if (left < 0)
		left = 0;
	if (*timeout < 0 || left < *timeout)
		*timeout = (int)left;
	fds[0] = (struct pollfd){ q->pidfd, POLLIN, 0 };
	fds[1] = (struct pollfd){ q->outfd, POLLIN, 0 }; /* -1 once read to its end: ignored */
	return 2;
}

void sup_slurm_dispatch(struct sup *s, const struct pollfd *fds, int n)
{
	struct sup_slurm *q = &s->sl;
	if (q->step == STEP_IDLE || n < 2)
		return;
	if (fds[1].revents)
		drain_pipe(q);
	if (fds[0].revents & POLLIN) {
		int status = 0;
		if (waitpid(q->pid, &status, WNOHANG) == q->pid) {
			q->pid = 0;
			drain_pipe(q); /* what it wrote before it exited */
			child_done(q);
			step_done(s, status);
		}
	} else if (apenet_clock_mono_ms() >= q->deadline) {
		static const char *const what[] = { "", "scontrol show node", "scontrol update", "scontrol show node" };
		char detail[128];
		snprintf(detail, sizeof(detail), "after %.0f ms (%s)", s->cfg.slurm.timeout_ms, what[q->step]);
		child_kill(q);
		job_done(s, APENET_SLURM_TIMEOUT, detail);
	}
	next_job(s);
}

void sup_slurm_stop(struct sup *s)
{
	struct sup_slurm *q = &s->sl;
	if (q->step != STEP_IDLE) {
		child_kill(q);
		if (!s->failed)
			job_done(s, APENET_SLURM_ABANDONED, "while scontrol ran");
	}
	while (q->committed > 0 && !s->failed)
		job_done(s, APENET_SLURM_ABANDONED, "before it ran");
	free(q->q);
	q->q = NULL;
	q->n = q->cap = q->committed = 0;
}
