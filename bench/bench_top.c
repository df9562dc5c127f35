/*
 * What apenet-top costs left open (issue 12): its CPU share at a 1 s
 * refresh (-d 10) in a real terminal (a detached tmux, 80x24), on the node
 * view of an emulated APEnet+ (2x2x1) and on the cluster view of a
 * 4,096-node health database (16x16x16, a tenth of the nodes sick or broken
 * through real reports), against htop -d 10 in the same kind of terminal in
 * the same run.  BENCH_TOP_S seconds each (default 30).  Goal: <= 1% of a
 * core.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"
#include "apenet/hdb.h"
#include "apenet/notify.h"

static char sock[64];

/* Runs cmd in a new detached tmux session; the pane's pid (the program:
 * tmux runs it through sh -c "exec ..."); -1 on failure. */
static pid_t tmux_run(const char *name, const char *cmd)
{
	char c[PATH_MAX * 3], line[64];
	snprintf(c, sizeof(c), "tmux -L %s -f /dev/null new-session -d -s %s -x 80 -y 24 \"exec %s\" && "
			       "tmux -L %s list-panes -t %s -F '#{pane_pid}'",
		 sock, name, cmd, sock, name);
	FILE *p = popen(c, "r");
	if (!p)
		return -1;
	pid_t pid = -1;
	if (fgets(line, sizeof(line), p))
		pid = (pid_t)atol(line);
	pclose(p);
	return pid;
}

static double measure(pid_t pid, double secs)
{
	e2e_sleep_ms(2000); /* start-up and the first screens are not the steady state */
	double c0 = e2e_proc_cpu_s(pid), t0 = e2e_now();
	e2e_sleep_ms((int)(secs * 1000));
	double c1 = e2e_proc_cpu_s(pid), t1 = e2e_now();
	return c0 < 0 || c1 < 0 ? -1 : 100 * (c1 - c0) / (t1 - t0);
}

/* A 16x16x16 database: every node in the layout, heartbeats from all, and
 * health reports making every 10th node sick and every 37th broken. */
static int make_db(const char *path)
{
	struct apenet_hdb *db;
	struct apenet_err e = { 0 };
	unsigned dims[3] = { 16, 16, 16 };
	if (apenet_hdb_open(path, APENET_HDB_CREATE, &db, &e) || apenet_hdb_layout(db, dims, NULL, NULL, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return -1;
	}
	int64_t now = (int64_t)(e2e_now() * 1000);
	if (apenet_hdb_begin(db, &e))
		return -1;
	unsigned i = 0;
	for (unsigned z = 0; z < 16; z++)
		for (unsigned y = 0; y < 16; y++)
			for (unsigned x = 0; x < 16; x++, i++) {
				struct apenet_report r;
				int stored;
				apenet_report_init(&r, APENET_REPORT_HEARTBEAT);
				r.x = x, r.y = y, r.z = z;
				snprintf(r.boot, sizeof(r.boot), "%u,%u,%u#1", x, y, z);
				r.seq = 1;
				r.time_ms = now;
				r.ldm = 0x80000000u;
				if (apenet_hdb_put_report(db, &r, now, &stored, &e))
					return -1;
				if (i % 10 && i % 37)
					continue;
				apenet_report_init(&r, APENET_REPORT_HEALTH);
				r.x = x, r.y = y, r.z = z;
				snprintf(r.boot, sizeof(r.boot), "%u,%u,%u#1", x, y, z);
				r.seq = 2;
				r.time_ms = now;
				r.subject = APENET_REPORT_SUBJ_SENSOR;
				snprintf(r.where, sizeof(r.where), "fpga_temp");
				snprintf(r.code, sizeof(r.code), "FPGA_TEMP");
				r.old_status = 0;
				r.new_status = i % 37 ? 1 : 2;
				r.value = 85;
				r.threshold = 80;
				r.path = APENET_REPORT_PATH_SELF;
				if (apenet_hdb_put_report(db, &r, now, &stored, &e))
					return -1;
			}
	if (apenet_hdb_commit(db, &e))
		return -1;
	apenet_hdb_close(db);
	return 0;
}

int main(void)
{
	double secs = getenv("BENCH_TOP_S") ? atof(getenv("BENCH_TOP_S")) : 30;
	char dir[256], db[300], cfg[300], cmd[1024];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/apenet-topbench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 2;
	snprintf(sock, sizeof(sock), "apenet-bench-top-%d", (int)getpid());
	snprintf(db, sizeof(db), "%s/h.db", dir);
	snprintf(cfg, sizeof(cfg), "%s/top.yaml", dir);
	/* the nodes were heard just now: not silent for the run */
	FILE *f = fopen(cfg, "w");
	if (!f)
		return 2;
	fprintf(f, "supervisor:\n  silent_ms: 86400000\n");
	fclose(f);
	struct e2e_sim sim;
	if (make_db(db) || e2e_sim_start(&sim, "--dims", "2x2x1", NULL)) {
		fprintf(stderr, "bench: cannot set up (APENET_BIN=%s)\n", e2e_bin());
		return 2;
	}
	char nd[PATH_MAX + 32];
	e2e_node_dir(&sim, 0, 0, 0, nd, sizeof(nd));
	struct {
		const char *what;
		char cmd[PATH_MAX * 2 + 128];
	} runs[3];
	snprintf(runs[0].cmd, sizeof(runs[0].cmd), "env TERM=xterm-256color %s/apenet-top --sim %s -d 10", e2e_bin(), nd);
	runs[0].what = "apenet-top, node view (APEnet+, 6 links)";
	snprintf(runs[1].cmd, sizeof(runs[1].cmd), "env TERM=xterm-256color %s/apenet-top --db %s --config %s -d 10",
		 e2e_bin(), db, cfg);
	runs[1].what = "apenet-top, cluster view (4,096 nodes)";
	snprintf(runs[2].cmd, sizeof(runs[2].cmd), "env TERM=xterm-256color htop -d 10");
	runs[2].what = "htop -d 10 (reference)";
	printf("# CPU share at a 1 s refresh in an 80x24 tmux terminal, %.0f s each\n", secs);
	int rc = 0;
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "b%d", i);
		pid_t pid = tmux_run(name, runs[i].cmd);
		double pct = pid > 0 ? measure(pid, secs) : -1;
		if (pct < 0) {
			fprintf(stderr, "bench: %s did not run\n", runs[i].what);
			rc = 2;
		}
		printf("%-42s %8.3f %% of a core\n", runs[i].what, pct);
		snprintf(cmd, sizeof(cmd), "tmux -L %s kill-session -t %s 2>/dev/null", sock, name);
		if (system(cmd)) {
			/* gone already */
		}
	}
	printf("# goal: <= 1%% of a core\n");
	snprintf(cmd, sizeof(cmd), "tmux -L %s kill-server 2>/dev/null; rm -rf '%s'", sock, dir);
	if (system(cmd)) {
		/* nothing to stop */
	}
	e2e_sim_stop(&sim);
	return rc;
}
