/*
 * The control socket of a running emulation: DIR/control.sock, a Unix
 * stream socket.  A request is one line of tab-separated words (an argument
 * vector), the reply one line.  Both ends chdir into DIR before binding or
 * connecting, so a long DIR does not hit the 108-byte sun_path limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sim.h"

#define CTL_SOCK "control.sock"
#define CTL_MAX 2048
#define CTL_MAXARGS 16

static int with_dir(const char *dir, int *oldfd, struct apenet_err *e)
{
	*oldfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*oldfd < 0 || chdir(dir)) {
		if (*oldfd >= 0)
			close(*oldfd);
		return apenet_err_set(e, APENET_EIO, "%s: %s", dir, strerror(errno));
	}
	return 0;
}

static void back(int oldfd)
{
	if (fchdir(oldfd)) {
		/* nothing sensible to do; the caller's paths are absolute */
	}
	close(oldfd);
}

int sim_ctl_listen(const char *dir, struct apenet_err *e)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int oldfd, fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "socket: %s", strerror(errno));
	if (with_dir(dir, &oldfd, e)) {
		close(fd);
		return -1;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", CTL_SOCK);
	unlink(CTL_SOCK);
	int rc = bind(fd, (struct sockaddr *)&a, sizeof(a));
	back(oldfd);
	if (rc || listen(fd, 8)) {
		apenet_err_set(e, APENET_EIO, "%s/%s: %s", dir, CTL_SOCK, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int split(char *line, char **argv)
{
	int n = 0;
	for (char *s = line; s && n < CTL_MAXARGS;) {
		argv[n++] = s;
		s = strchr(s, '\t');
		if (s)
			*s++ = 0;
	}
	return n;
}

/* Serve the requests that are waiting; never blocks on a slow client for long. */
int sim_ctl_serve(struct sim_torus *t, int lfd)
{
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		char buf[CTL_MAX + 1], rep[512];
		size_t len = 0;
		int ok = 0;
		while (len < CTL_MAX) {
			struct pollfd p = { .fd = c, .events = POLLIN };
			if (poll(&p, 1, 1000) <= 0)
				break;
			ssize_t n = read(c, buf + len, CTL_MAX - len);
			if (n <= 0)
				break;
			len += (size_t)n;
			if (memchr(buf, '\n', len)) {
				ok = 1;
				break;
			}
		}
		buf[len] = 0;
		char *nl = strchr(buf, '\n');
		if (nl)
			*nl = 0;
		if (!ok) {
			snprintf(rep, sizeof(rep), "error: request not terminated by a newline within %d bytes\n",
				 CTL_MAX);
		} else {
			char *argv[CTL_MAXARGS];
			int argc = split(buf, argv);
			sim_inject(t, argv, argc, rep, sizeof(rep) - 1);
			strcat(rep, "\n");
		}
		if (write(c, rep, strlen(rep)) < 0) {
			/* the client went away; nothing to tell it */
		}
		close(c);
	}
}

int sim_ctl_request(const char *dir, char *const *argv, int argc, char *reply, size_t replylen,
		    struct apenet_err *e)
{
	char req[CTL_MAX];
	size_t len = 0;
	for (int i = 0; i < argc; i++) {
		if (strchr(argv[i], '\t') || strchr(argv[i], '\n'))
			return apenet_err_set(e, APENET_EINVAL, "argument '%s' holds a tab or newline", argv[i]);
		int n = snprintf(req + len, sizeof(req) - len, "%s%s", i ? "\t" : "", argv[i]);
		if (n < 0 || (size_t)n >= sizeof(req) - len - 1)
			return apenet_err_set(e, APENET_EINVAL, "request too long");
		len += (size_t)n;
	}
	req[len++] = '\n';

	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int oldfd, fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "socket: %s", strerror(errno));
	if (with_dir(dir, &oldfd, e)) {
		close(fd);
		return -1;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", CTL_SOCK);
	int rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	back(oldfd);
	if (rc) {
		apenet_err_set(e, APENET_EIO, "%s/%s: %s (is apenet-sim running there?)", dir, CTL_SOCK,
			       strerror(errno));
		close(fd);
		return -1;
	}
	if (write(fd, req, len) != (ssize_t)len) {
		close(fd);
		return apenet_err_set(e, APENET_EIO, "%s/%s: write: %s", dir, CTL_SOCK, strerror(errno));
	}
	size_t got = 0;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 10000) <= 0) {
			close(fd);
			return apenet_err_set(e, APENET_EIO, "%s/%s: no reply within 10 s", dir, CTL_SOCK);
		}
		ssize_t n = read(fd, reply + got, replylen - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got >= replylen - 1)
			break;
	}
	close(fd);
	reply[got] = 0;
	char *nl = strchr(reply, '\n');
	if (nl)
		*nl = 0;
	if (!got)
		return apenet_err_set(e, APENET_EIO, "%s/%s: empty reply", dir, CTL_SOCK);
	return 0;
}
