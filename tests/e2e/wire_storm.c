/*
 * wire-storm PORT COUNT RATE SEED...: the service network at its worst, for
 * tools/wire-storm.sh (make soak-storm).  COUNT datagrams to
 * 127.0.0.1:PORT at about RATE a second, each made from one of the SEED
 * files (real INFORMs recorded on the wire: SNMPv2c and SNMPv3) by one
 * mutation: bits flipped, bytes overwritten, a length byte changed, a byte
 * inserted or deleted, cut short, two seeds spliced, random bytes, or the
 * seed itself again (a replay).  Whatever comes back is read and dropped.
 * Prints what it sent.  A xorshift generator seeded from the PID: a run can
 * be repeated with WIRE_STORM_SEED.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAXSEEDS 64
#define MAXLEN 4096
#define BATCH 64

static uint64_t rs;
static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static struct {
	uint8_t b[MAXLEN];
	size_t n;
} seed[MAXSEEDS];
static unsigned nseeds;

enum { M_FLIP, M_OVERWRITE, M_LENGTH, M_INSERT, M_DELETE, M_CUT, M_SPLICE, M_RANDOM, M_REPLAY, M_N };
static const char *const mname[M_N] = { "bit flips", "overwrites", "length bytes", "insertions", "deletions",
					"truncations", "splices", "random", "replays" };

static size_t mutate(uint8_t *out, int *kind)
{
	const unsigned s = (unsigned)(rnd() % nseeds);
	size_t n = seed[s].n;
	memcpy(out, seed[s].b, n);
	int k = (int)(rnd() % M_N);
	*kind = k;
	switch (k) {
	case M_FLIP:
		for (unsigned i = 1 + rnd() % 8; i--;)
			out[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
		break;
	case M_OVERWRITE:
		for (unsigned i = 1 + rnd() % 4; i--;)
			out[rnd() % n] = (uint8_t)rnd();
		break;
	case M_LENGTH: { /* a byte after a tag of SNMP's, as a length */
		for (int tries = 0; tries < 32; tries++) {
			size_t at = rnd() % (n - 1);
			uint8_t t = out[at];
			if (t == 0x30 || t == 0x04 || t == 0x02 || t == 0x06 || (t & 0xe0) == 0xa0) {
				static const uint8_t v[] = { 0x00, 0x01, 0x7f, 0x80, 0x81, 0x82, 0x83, 0x84, 0xff };
				out[at + 1] = rnd() % 2 ? v[rnd() % sizeof(v)] : (uint8_t)rnd();
				break;
			}
		}
		break;
	}
	case M_INSERT:
		if (n < MAXLEN) {
			size_t at = rnd() % n;
			memmove(out + at + 1, out + at, n - at);
			out[at] = (uint8_t)rnd();
			n++;
		}
		break;
	case M_DELETE: {
		size_t at = rnd() % n;
		memmove(out + at, out + at + 1, n - at - 1);
		n--;
		break;
	}
	case M_CUT:
		n = rnd() % n;
		break;
	case M_SPLICE: {
		const unsigned t = (unsigned)(rnd() % nseeds);
		size_t a = rnd() % n, b = rnd() % seed[t].n;
		size_t m = seed[t].n - b;
		if (a + m > MAXLEN)
			m = MAXLEN - a;
		memcpy(out + a, seed[t].b + b, m);
		n = a + m;
		break;
	}
	case M_RANDOM:
		n = 1 + rnd() % 1400;
		for (size_t i = 0; i < n; i++)
			out[i] = (uint8_t)rnd();
		break;
	case M_REPLAY:
		break;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: wire-storm PORT COUNT RATE SEED...\n");
		return 2;
	}
	int port = atoi(argv[1]);
	unsigned long count = strtoul(argv[2], NULL, 10), rate = strtoul(argv[3], NULL, 10);
	for (int i = 4; i < argc && nseeds < MAXSEEDS; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 2;
		}
		seed[nseeds].n = fread(seed[nseeds].b, 1, MAXLEN - 1, f);
		fclose(f);
		if (seed[nseeds].n >= 2)
			nseeds++;
	}
	if (!nseeds || !rate) {
		fprintf(stderr, "wire-storm: no seed, or no rate\n");
		return 2;
	}
	const char *s = getenv("WIRE_STORM_SEED");
	rs = s && *s ? strtoull(s, NULL, 10) : (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
	if (!rs)
		rs = 1;
	uint64_t first = rs;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("wire-storm: socket");
		return 2;
	}
	static uint8_t buf[BATCH][MAXLEN], junk[MAXLEN];
	struct mmsghdr mm[BATCH];
	struct iovec iov[BATCH];
	unsigned long sent = 0, dropped = 0, answers = 0, per[M_N] = { 0 };
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sent + dropped < count) {
		unsigned k = 0;
		for (; k < BATCH && sent + dropped + k < count; k++) {
			int kind;
			iov[k].iov_base = buf[k];
			iov[k].iov_len = mutate(buf[k], &kind);
			per[kind]++;
			memset(&mm[k], 0, sizeof(mm[k]));
			mm[k].msg_hdr.msg_iov = &iov[k];
			mm[k].msg_hdr.msg_iovlen = 1;
		}
		int r = sendmmsg(fd, mm, k, 0);
		if (r < 0 && errno != EAGAIN && errno != ECONNREFUSED && errno != EINTR) {
			perror("wire-storm: sendmmsg");
			return 2;
		}
		sent += r > 0 ? (unsigned long)r : 0;
		dropped += k - (r > 0 ? (unsigned)r : 0);
		while (recv(fd, junk, sizeof(junk), 0) >= 0)
			answers++;
		/* paced: the batch's share of a second */
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		double el = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9;
		double due = (double)(sent + dropped) / (double)rate;
		if (due > el) {
			struct timespec d = { (time_t)(due - el), (long)((due - el - (double)(time_t)(due - el)) * 1e9) };
			nanosleep(&d, NULL);
		}
	}
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double el = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	printf("wire-storm: %lu datagrams sent in %.1f s (%.0f/s), %lu not taken by the socket, %lu answers read; seed %llu\n",
	       sent, el, sent / el, dropped, answers, (unsigned long long)first);
	printf("wire-storm:");
	for (int i = 0; i < M_N; i++)
		printf(" %s %lu%s", mname[i], per[i], i + 1 < M_N ? "," : "\n");
	return 0;
}
