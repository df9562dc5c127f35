/*
 * The black box's dump (issue 22): a full ring of the agent's defaults
 * (600 s at P = 100 ms, 6,000 samples of an APEnet+, in the 8 MiB ring)
 * written as a snapshot document through the writer's stream, as the agent
 * writes it (every sample of the last 10 s, one every 10 s before: about
 * 160) and whole (6,000): time, bytes and what the process's peak RSS
 * grew by.  Baseline in the same run: the agent's dump through the
 * writer's tree (apenet_out_new), which the stream replaced.  The samples
 * are made up (counters that grow, a sensor that wanders), so the figures
 * hold still from run to run; the file goes to TMPDIR, not fsynced (the
 * agent's fsync is the disk's time, not the writer's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"
#include "apenet/blackbox.h"
#include "apenet/out.h"

#define SAMPLES 6000
#define PERIOD_MS 100

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Sample i: what an idle-to-busy board's registers do between periods. */
static void gen(unsigned i, struct apenet_sample *s)
{
	const struct apenet_profile *p = apenet_profile(APENET_V_APENETP);
	memset(s, 0, sizeof(*s));
	snprintf(s->bdf, sizeof(s->bdf), "0000:03:00.0");
	s->host_ms = 1700000000000ll + (int64_t)i * PERIOD_MS;
	s->pcie_ok = 1;
	s->pcie = (struct apenet_pcie_info){ 1, 2, 8, 2, 8, 0, 0, 1, 0, 0, 0x62030, 0, 0x2000 };
	s->snap.prof = p;
	s->snap.nlinks = p->nlinks;
	s->snap.g.ID_MAGIC = APENET_MAGIC;
	s->snap.g.ID_VARIANT = p->id;
	s->snap.g.TS_FREQ_HZ = 250000000;
	s->snap.g.TIMESTAMP = 1000 + (uint64_t)i * 25000000;
	s->snap.g.GEN = 2 * i;
	s->snap.g.SENS_FPGA_TEMP = 45000 + mix(i) % 3000;
	s->snap.g.WD_DNP_HB = i;
	s->snap.g.WD_HOST_HB = i + 1;
	for (unsigned l = 0; l < p->nlinks; l++) {
		struct apenet_snap_link *k = &s->snap.link[l];
		uint64_t base = 1000000ull + i;
		k->LINK_STATE = APENET_SET(LINK_STATE, STATE, APENET_LINK_UP);
		k->LINK_TX_PKTS = base * 1000 + l;
		k->LINK_TX_BYTES = base * 4096000;
		k->LINK_RX_BYTES = base * 4096000 + mix(i + l) % 100;
		k->LINK_HDR_CRC_ERR = i / 7;
		k->LINK_LDM_RX_TS = s->snap.g.TIMESTAMP - 50;
		k->LINK_STALL_CYCLES = base;
		for (unsigned n = 0; n < p->links[l].lanes; n++)
			k->lane[n].LANE_CODE_VIOL = base / 13 + n;
	}
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
	static struct apenet_sample s;
	static struct apenet_bbox b;
	struct apenet_err e = { 0 };
	if (apenet_bbox_init(&b, apenet_profile(APENET_V_APENETP), "0000:03:00.0", 8u << 20, 600000, SAMPLES + 1, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 2;
	}
	for (unsigned i = 0; i < SAMPLES; i++) {
		gen(i, &s);
		if (apenet_bbox_push(&b, &s, &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			return 2;
		}
	}
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
	printf("# black box of an APEnet+: %d samples (600 s at %d ms) in %.1f MB of ring, dumped to a file\n", SAMPLES,
	       PERIOD_MS, (double)apenet_bbox_footprint(&b) / 1e6);
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
