/*
 * What a supervisor's drain or resume of one node costs (issue 24,
 * docs/supervisor.md "The batch scheduler (Slurm)"): a real slurmctld (Debian's
 * slurm-wlm, in the foreground on a private loopback port, auth/none, two
 * nodes and no slurmd), and the supervisor's way of acting on a node, three
 * scontrol runs (read the node, update it, read it back), against the
 * baseline in the same run: the one `scontrol update` a hand-written hook
 * would run.  N rounds (default 30, BENCH_SLURM_N) of drain then resume;
 * p50, p99 and max wall time of each, and the share the read-back adds.
 * Also the parse of `scontrol show node -o` (lofamo/slurm.c) per call.
 *
 * The node's drain lasts from the incident's settling to the end of the
 * drain: settle_ms (the deduction's window) plus the time measured here.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "apenet/slurm.h"
#include "spawn.h"
#include "../tests/e2e/e2e.h"

static char dir[PATH_MAX];
static pid_t ctld = -1;

static void stop(void)
{
	if (ctld > 0) {
		kill(ctld, SIGTERM);
		waitpid(ctld, NULL, 0);
		ctld = -1;
	}
}

/* One scontrol run with argv (NULL-ended after "scontrol"); its wall ms, its
 * output in dir/out; -1 when it could not run. */
static double sctl(const char *const *args, int *rc)
{
	char *argv[12];
	int n = 0;
	argv[n++] = (char *)"/usr/bin/scontrol";
	for (; args[n - 1] && n < 11; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	char out[PATH_MAX + 8];
	snprintf(out, sizeof(out), "%s/out", dir);
	double wall;
	long rss;
	*rc = bench_spawn(argv, out, out, &wall, &rss);
	return *rc < 0 ? -1 : wall * 1000;
}

/* The node read back: parsed as the supervisor parses it. */
static int read_node(struct apenet_slurm_node *nd)
{
	char path[PATH_MAX + 8], text[4096], why[128];
	snprintf(path, sizeof(path), "%s/out", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = 0;
	return apenet_slurm_parse_node(text, "q00", nd, why, sizeof(why));
}

int main(void)
{
	int n = getenv("BENCH_SLURM_N") ? atoi(getenv("BENCH_SLURM_N")) : 30;
	if (n < 5 || n > 10000)
		n = 30;
	if (access("/usr/sbin/slurmctld", X_OK) || access("/usr/bin/scontrol", X_OK)) {
		fprintf(stderr, "bench_slurm: no slurmctld/scontrol (mk/deps.sh bench installs them)\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "/tmp/apenet-bench-slurm-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	char conf[PATH_MAX + 16], log[PATH_MAX + 16], st[PATH_MAX + 16], sp[PATH_MAX + 16];
	snprintf(conf, sizeof(conf), "%s/slurm.conf", dir);
	snprintf(log, sizeof(log), "%s/ctld.log", dir);
	snprintf(st, sizeof(st), "%s/state", dir);
	snprintf(sp, sizeof(sp), "%s/spool", dir);
	mkdir(st, 0700);
	mkdir(sp, 0700);
	int port = 20000 + (int)(getpid() * 7 % 30000);
	FILE *f = fopen(conf, "w");
	if (!f) {
		perror(conf);
		return 2;
	}
	const char *user = getenv("USER") ? getenv("USER") : "root";
	if (getuid() == 0)
		user = "root";
	fprintf(f,
		"ClusterName=apenetbench\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=%d\nSlurmdPort=%d\n"
		"SlurmUser=%s\nAuthType=auth/none\nCredType=cred/none\nStateSaveLocation=%s\nSlurmdSpoolDir=%s\n"
		"SlurmctldPidFile=%s/ctld.pid\nSlurmctldLogFile=%s\nProctrackType=proctrack/linuxproc\n"
		"TaskPlugin=task/none\nSchedulerType=sched/builtin\nSelectType=select/linear\nReturnToService=2\n"
		"SlurmdTimeout=0\nNodeName=q[00-01] NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n"
		"PartitionName=all Nodes=ALL Default=YES State=UP\n",
		port, port + 1, user, st, sp, dir, log);
	fclose(f);
	setenv("SLURM_CONF", conf, 1);
	ctld = fork();
	if (ctld == 0) {
		/* its chatter goes to a file beside its log, not between the figures */
		char o[PATH_MAX + 16];
		snprintf(o, sizeof(o), "%s/ctld.out", dir);
		int fd = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execl("/usr/sbin/slurmctld", "slurmctld", "-D", "-f", conf, (char *)NULL);
		_exit(127);
	}
	atexit(stop);
	int rc;
	double deadline = e2e_now() + 30;
	const char *ping[] = { "ping", NULL };
	for (;;) {
		char path[PATH_MAX + 8];
		snprintf(path, sizeof(path), "%s/out", dir);
		if (sctl(ping, &rc) >= 0 && bench_file_has(path, "is UP"))
			break;
		if (e2e_now() > deadline) {
			fprintf(stderr, "bench_slurm: slurmctld did not come up (%s)\n", log);
			return 2;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}

	const char *show[] = { "show", "node", "-o", "q00", NULL };
	const char *drain[] = { "update", "nodename=q00", "state=drain", "reason=apenet #1: cable bench", NULL };
	const char *resume[] = { "update", "nodename=q00", "state=resume", NULL };
	double *base_d = calloc((size_t)n, sizeof(double)), *base_r = calloc((size_t)n, sizeof(double));
	double *sup_d = calloc((size_t)n, sizeof(double)), *sup_r = calloc((size_t)n, sizeof(double));
	if (!base_d || !base_r || !sup_d || !sup_r)
		return 2;
	int bad = 0;
	struct apenet_slurm_node nd;
	for (int i = 0; i < n; i++) {
		/* the baseline: one update each way */
		base_d[i] = sctl(drain, &rc);
		base_r[i] = sctl(resume, &rc); /* exits 1 for a node no slurmd answered: read back below */
		/* the supervisor's: read, update, read back (judged as it judges) */
		double t = sctl(show, &rc);
		bad += read_node(&nd) || apenet_slurm_decide(APENET_SLURM_DRAIN, &nd) != 0;
		t += sctl(drain, &rc);
		t += sctl(show, &rc);
		bad += read_node(&nd) || apenet_slurm_judge(APENET_SLURM_DRAIN, &nd) != APENET_SLURM_DONE;
		sup_d[i] = t;
		t = sctl(show, &rc);
		bad += read_node(&nd) || apenet_slurm_decide(APENET_SLURM_RESUME, &nd) != 0;
		t += sctl(resume, &rc);
		t += sctl(show, &rc);
		bad += read_node(&nd) || apenet_slurm_judge(APENET_SLURM_RESUME, &nd) != APENET_SLURM_DONE;
		sup_r[i] = t;
	}
	double bd50, bd99, bdmax, br50, br99, brmax, sd50, sd99, sdmax, sr50, sr99, srmax;
	e2e_quantiles(base_d, n, &bd50, &bd99, &bdmax);
	e2e_quantiles(base_r, n, &br50, &br99, &brmax);
	e2e_quantiles(sup_d, n, &sd50, &sd99, &sdmax);
	e2e_quantiles(sup_r, n, &sr50, &sr99, &srmax);
	printf("slurm actions on one node, %d rounds, real slurmctld on loopback (ms: p50 / p99 / max)\n", n);
	printf("  baseline, one scontrol update:  drain %6.1f / %6.1f / %6.1f   resume %6.1f / %6.1f / %6.1f\n", bd50,
	       bd99, bdmax, br50, br99, brmax);
	printf("  supervisor, read+update+read:   drain %6.1f / %6.1f / %6.1f   resume %6.1f / %6.1f / %6.1f\n", sd50,
	       sd99, sdmax, sr50, sr99, srmax);
	printf("  ratio of p50s (the reads' cost): drain %.2fx, resume %.2fx; outcomes not as asked: %d\n",
	       bd50 > 0 ? sd50 / bd50 : 0, br50 > 0 ? sr50 / br50 : 0, bad);

	/* the parse alone */
	static const char line[] =
		"NodeName=q00 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=N/A AvailableFeatures=(null) "
		"ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 NodeHostName=q00 RealMemory=1 AllocMem=0 "
		"FreeMem=N/A Sockets=1 Boards=1 State=UNKNOWN+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
		"MCS_label=N/A Partitions=all BootTime=None SlurmdStartTime=None LastBusyTime=Unknown "
		"CfgTRES=cpu=1,mem=1M,billing=1 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 "
		"ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s "
		"Reason=apenet #12: cable 1,1,0 Y+ <-> 1,2,0 Y- broken (both ends say so) [apenet@2026-11-28T08:33:03]\n";
	char why[128];
	int reps = 200000, ok = 0;
	double t0 = e2e_now();
	for (int i = 0; i < reps; i++)
		ok += apenet_slurm_parse_node(line, "q00", &nd, why, sizeof(why)) == 0 && nd.drain;
	double t1 = e2e_now();
	printf("  parse of scontrol show node -o: %.2f us a call (%d calls, %d drained)\n", (t1 - t0) * 1e6 / reps, reps,
	       ok);
	stop();
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench_slurm: could not remove %s\n", dir);
	free(base_d);
	free(base_r);
	free(sup_d);
	free(sup_r);
	return bad ? 1 : 0;
}
