/*
 * udp-relay LISTEN_PORT TARGET_PORT: a loopback UDP relay for the end-to-end
 * tests.  Datagrams to 127.0.0.1:LISTEN_PORT go on to 127.0.0.1:TARGET_PORT
 * from a socket of their own per sender, and the answers come back to that
 * sender.  Agents configured to send their reports through a relay lose
 * their service network when the test stops it (kill, or SIGSTOP to block),
 * without any change to the agent or to the supervisor: the way the tests
 * cut one node, or a part of the cluster, off a supervisor.
 * LISTEN_PORT 0 takes a free port; the port is printed on stdout.
 *
 * udp-relay LISTEN_PORT TARGET_PORT RECORD_DIR also writes every datagram
 * it passes to the target as RECORD_DIR/N (1, 2, ...), and
 * udp-relay --send FILE PORT sends FILE as one datagram to 127.0.0.1:PORT:
 * the replays of tests/e2e/trust.sh, an eavesdropper's copies sent again.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RELAY_MAX 256

struct client {
	struct sockaddr_in addr;
	int up;         /* its socket towards the target */
	uint64_t used;  /* when it last sent (a counter): the oldest makes room */
};

static int udp(unsigned short port)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("udp-relay: bind");
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--send")) {
		static char msg[65536];
		FILE *f = fopen(argv[2], "rb");
		size_t len = f ? fread(msg, 1, sizeof(msg), f) : 0;
		if (!f || ferror(f)) {
			perror(argv[2]);
			return 2;
		}
		fclose(f);
		int fd = udp(0);
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[3])),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		return sendto(fd, msg, len, 0, (struct sockaddr *)&to, sizeof(to)) == (ssize_t)len ? 0 : 2;
	}
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: udp-relay LISTEN_PORT TARGET_PORT [RECORD_DIR] | udp-relay --send FILE PORT\n");
		return 2;
	}
	const char *record = argc == 4 ? argv[3] : NULL;
	unsigned recorded = 0;
	int in = udp((unsigned short)atoi(argv[1]));
	struct sockaddr_in target = { .sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2])),
				      .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);
	getsockname(in, (struct sockaddr *)&me, &ml);
	printf("%u\n", ntohs(me.sin_port));
	fflush(stdout);
	static struct client cl[RELAY_MAX];
	unsigned n = 0;
	uint64_t clock_ = 0;
	static char buf[65536];
	for (;;) {
		struct pollfd p[RELAY_MAX + 1];
		p[0] = (struct pollfd){ in, POLLIN, 0 };
		for (unsigned i = 0; i < n; i++)
			p[i + 1] = (struct pollfd){ cl[i].up, POLLIN, 0 };
		if (poll(p, n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("udp-relay: poll");
			return 2;
		}
		if (p[0].revents & POLLIN) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t r = recvfrom(in, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
			if (r >= 0) {
				unsigned i;
				for (i = 0; i < n; i++)
					if (cl[i].addr.sin_port == from.sin_port && cl[i].addr.sin_addr.s_addr == from.sin_addr.s_addr)
						break;
				if (i == n && n == RELAY_MAX) {
					/* every slot taken (an agent opens a session, and
					 * a source port, at every try: SNMPv3 two): the
					 * one quiet the longest makes room */
					i = 0;
					for (unsigned j = 1; j < n; j++)
						if (cl[j].used < cl[i].used)
							i = j;
					close(cl[i].up);
					cl[i].addr = from;
					cl[i].up = udp(0);
				} else if (i == n) {
					cl[n].addr = from;
					cl[n].up = udp(0);
					n++;
				}
				cl[i].used = ++clock_;
				sendto(cl[i].up, buf, (size_t)r, 0, (struct sockaddr *)&target, sizeof(target));
				if (record) {
					char path[4200];
					snprintf(path, sizeof(path), "%s/%u", record, ++recorded);
					FILE *f = fopen(path, "wb");
					if (f) {
						fwrite(buf, 1, (size_t)r, f);
						fclose(f);
					}
				}
			}
		}
		for (unsigned i = 0; i < n; i++)
			if (p[i + 1].revents & POLLIN) {
				ssize_t r = recv(cl[i].up, buf, sizeof(buf), MSG_DONTWAIT); /* a slot refilled since the poll has nothing */
				if (r >= 0)
					sendto(in, buf, (size_t)r, 0, (struct sockaddr *)&cl[i].addr, sizeof(cl[i].addr));
			}
	}
}
