/*
 * The black box's dump (issue 22): a full ring of the agent's defaults
 * (600 s at P = 100 ms, 6,000 samples, in the 8 MiB ring) of an APEnet+
 * board of a running apenet-sim, written as a snapshot document through the
 * writer's stream, as the agent writes it (every sample of the last 10 s,
 * one every 10 s before: about 160) and whole (6,000): time, bytes and what
 * the process's peak RSS grew by.  Baseline in the same run: the agent's
 * dump through the writer's tree (apenet_out_new), which the stream
 * replaced.  The samples are taken back to back (the emulator's firmware
 * keeps publishing meanwhile) and stamped P apart; the file goes to TMPDIR,
 * not fsynced (the agent's fsync is the disk's time, not the writer's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"
#include "apenet/blackbox.h"
#include "apenet/out.h"
#include "apenet/sampler.h"

#define SAMPLES 6000
#define PERIOD_MS 100

/* The ring, filled as the agent fills it: PCIe and the modules read once. */
static int fill(struct apenet_bbox *b, const char *node)
{
	static struct apenet_sample s;
	struct apenet_sampler smp;
	struct apenet_err e = { 0 };
	if (apenet_sampler_open(&smp, node, NULL, &e) ||
	    apenet_bbox_init(b, smp.dev.prof, smp.card.bdf, 8u << 20, 600000, SAMPLES + 1, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return -1;
	}
	int64_t t0 = 0;
	for (unsigned i = 0; i < SAMPLES; i++) {
		if (apenet_sampler_take(&smp, i ? 0 : APENET_SAMPLE_PCIE | APENET_SAMPLE_MODULES, &s, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return -1;
		}
		t0 = i ? t0 : s.host_ms;
		s.host_ms = t0 + (int64_t)i * PERIOD_MS;
		if (apenet_bbox_push(b, &s, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return -1;
		}
	}
	apenet_sampler_close(&smp);
	return 0;
}

/* One dump into path as the agent writes it (its blackbox member first);
 * seconds, or -1. */
static double dump(const struct apenet_bbox *b, const char *path, int tree, int64_t full_ms, int64_t step_ms,
		   unsigned *ns)
{
	struct apenet_err e = { 0 };
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	double t0 = e2e_now();
	struct apenet_out *o = tree ? apenet_out_new(APENET_OUT_JSON, f, "snapshot")
				    : apenet_out_stream(APENET_OUT_JSON, f, "snapshot");
	apenet_out_obj_begin(o, "blackbox");
	apenet_out_str(o, "reason", "bench");
	apenet_out_obj_end(o);
	int rc = apenet_bbox_dump(b, o, full_ms, step_ms, ns, &e);
	if (apenet_out_finish(o))
		rc = -1;
	double t = e2e_now() - t0;
	if (fclose(f) || rc) {
		fprintf(stderr, "bench: %s: %s\n", path, e.msg[0] ? e.msg : "write failed");
		return -1;
	}
	return t;
}

int main(void)
{
	static struct apenet_bbox b;
	struct e2e_sim sim;
	char node[PATH_MAX];
	if (e2e_sim_start(&sim, "--dims", "1x1x1", "--variant", "apenet+", NULL)) {
		fprintf(stderr, "bench: cannot start apenet-sim (APENET_BIN=%s)\n", e2e_bin());
		return 2;
	}
	e2e_node_dir(&sim, 0, 0, 0, node, sizeof(node));
	if (fill(&b, node)) {
		e2e_sim_stop(&sim);
		return 2;
	}
	e2e_sim_stop(&sim);
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/apenet-bbox-%ld.json", tmp && *tmp ? tmp : "/tmp", (long)getpid());
	static const struct {
		const char *what;
		int tree;
		int64_t full_ms, step_ms;
		int reps;
	} runs[] = {
		{ "agent's dump, stream", 0, 10000, 10000, 20 },
		{ "whole ring, stream", 0, 600000, PERIOD_MS, 3 },
		/* last: the peak it sets stays */
		{ "agent's dump, tree (baseline)", 1, 10000, 10000, 5 },
	};
	printf("# black box of an emulated APEnet+: %d samples (600 s at %d ms) in %.1f MB of ring, dumped to a file\n",
	       SAMPLES, PERIOD_MS, (double)apenet_bbox_footprint(&b) / 1e6);
	printf("%-30s %8s %9s %9s %14s\n", "what", "samples", "MB", "ms best", "+peak RSS MB");
	int rc = 0;
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		long h0 = e2e_proc_kb(getpid(), "VmHWM:");
		double best = 1e9;
		unsigned ns = 0;
		for (int k = 0; k < runs[r].reps; k++) {
			double t = dump(&b, path, runs[r].tree, runs[r].full_ms, runs[r].step_ms, &ns);
			if (t < 0) {
				rc = 2;
				break;
			}
			if (t < best)
				best = t;
		}
		struct stat st;
		if (rc || stat(path, &st))
			break;
		printf("%-30s %8u %9.2f %9.1f %14.1f\n", runs[r].what, ns, (double)st.st_size / 1e6, best * 1e3,
		       (double)(e2e_proc_kb(getpid(), "VmHWM:") - h0) / 1024);
	}
	unlink(path);
	apenet_bbox_free(&b);
	return rc;
}
