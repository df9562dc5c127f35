/*
 * The command region's lock (docs/design.md, "The command lock").
 *
 * One lock file per card, with fcntl open-file-description (OFD) locks on
 * two bytes of it:
 *   byte 0  the owner of the command region (a write lock);
 *   byte 1  the waiting room: every process waiting for byte 0 holds a read
 *           lock here, so an owner can see that someone is waiting.
 * The owner writes its PID at the start of the file, for the error a waiter
 * gives when it runs out of time.
 *
 * OFD locks, not flock(): they belong to the open file like flock's (two
 * opens in one process exclude each other; the kernel drops them when the
 * holder dies), and unlike flock they lock ranges, so one file carries both
 * the lock and its waiting room.  Classic POSIX locks would be dropped by any
 * close() of the file anywhere in the process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apenet/clock.h"
#include "apenet/dev.h"

enum { BYTE_OWNER = 0, BYTE_WAITING = 1 };

/* A waiter's naps grow from 0.25 ms to NAP_MAX_US, each jittered to
 * [0.5, 1.5) of its length so that waiters do not poll in step. */
#define NAP_MIN_US 250
#define NAP_MAX_US 2000
/* After releasing to a waiter, the owner keeps away this long: longer than
 * the longest nap, so the waiter tries first (a loop of commands would
 * otherwise take the lock back within microseconds, every time). */
#define HANDOFF_US 3500


static void nap_us(int64_t us)
{
	if (us <= 0)
		return;
	struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	nanosleep(&ts, NULL); /* woken early by a signal: the caller's loop checks the time */
}

static int lock_byte(int fd, short type, off_t byte)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };
	return fcntl(fd, F_OFD_SETLK, &fl);
}

/* Someone else holds a read lock on the waiting-room byte. */
static int others_waiting(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = BYTE_WAITING, .l_len = 1 };
	return fcntl(fd, F_OFD_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

static int lock_open(struct apenet_dev *d, struct apenet_err *e)
{
	if (d->lock_fd >= 0)
		return 0;
	/* O_NOFOLLOW: /run/lock is world-writable, and root must not be led
	 * to write its PID through someone's symlink. */
	int fd = open(d->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 && errno == EACCES) /* fs.protected_regular: another user's file in a sticky directory */
		fd = open(d->lock_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return apenet_err_set(e, APENET_EIO, "%s: cannot open the command lock %s: %s", d->bdf, d->lock_path,
				      strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return apenet_err_set(e, APENET_EIO, "%s: the command lock %s is not a regular file", d->bdf,
				      d->lock_path);
	}
	d->lock_fd = fd;
	return 0;
}

/* "pid 1234 (apenet)", from what the owner wrote and /proc; or a fallback. */
static void describe_holder(int fd, char *out, size_t n)
{
	char buf[24] = { 0 };
	int pid = 0;
	if (pread(fd, buf, sizeof(buf) - 1, 0) > 0)
		sscanf(buf, "%d", &pid);
	if (pid <= 0) {
		snprintf(out, n, "another process");
		return;
	}
	char path[64], comm[32] = "";
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
	}
	if (comm[0])
		snprintf(out, n, "pid %d (%s)", pid, comm);
	else
		snprintf(out, n, "pid %d", pid);
}

static int lock_failed(struct apenet_dev *d, struct apenet_err *e)
{
	return apenet_err_set(e, APENET_EIO, "%s: cannot lock %s: %s", d->bdf, d->lock_path, strerror(errno));
}

int apenet_dev_lock(struct apenet_dev *d, int timeout_ms, struct apenet_err *e)
{
	if (d->lock_depth > 0) {
		d->lock_depth++;
		return 0;
	}
	if (lock_open(d, e))
		return -1;
	int fd = d->lock_fd;
	int64_t start = apenet_clock_mono_us(), end = start + (int64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000;
	int own = 0;
	/* Straight in, unless others are waiting or we just handed the lock over. */
	if (start >= d->lock_handoff_us && !others_waiting(fd)) {
		own = lock_byte(fd, F_WRLCK, BYTE_OWNER) == 0;
		if (!own && errno != EAGAIN && errno != EACCES)
			return lock_failed(d, e);
	}
	if (!own) {
		/* Into the waiting room; were that to fail the wait still works,
		 * only an owner in a loop would not give way. */
		int in_room = lock_byte(fd, F_RDLCK, BYTE_WAITING) == 0;
		nap_us(d->lock_handoff_us - start);
		uint32_t rnd = (uint32_t)getpid() * 2654435761u ^ (uint32_t)start;
		int64_t nap = NAP_MIN_US;
		for (;;) {
			own = lock_byte(fd, F_WRLCK, BYTE_OWNER) == 0;
			if (own || (errno != EAGAIN && errno != EACCES))
				break;
			int64_t t = apenet_clock_mono_us();
			if (t >= end)
				break;
			rnd ^= rnd << 13, rnd ^= rnd >> 17, rnd ^= rnd << 5;
			int64_t n = nap / 2 + (int64_t)(rnd % (uint32_t)nap);
			nap_us(n < end - t ? n : end - t);
			if (nap < NAP_MAX_US)
				nap *= 2;
		}
		int err = errno;
		if (in_room)
			lock_byte(fd, F_UNLCK, BYTE_WAITING);
		if (!own) {
			if (err != EAGAIN && err != EACCES) {
				errno = err;
				return lock_failed(d, e);
			}
			char who[96];
			describe_holder(fd, who, sizeof(who));
			return apenet_err_set(e, APENET_EBUSY,
					      "%s: command region busy: %s holds %s and did not release it within %d ms",
					      d->bdf, who, d->lock_path, timeout_ms);
		}
	}
	char pid[16];
	int len = snprintf(pid, sizeof(pid), "%10d\n", (int)getpid());
	ssize_t w = pwrite(fd, pid, (size_t)len, 0);
	(void)w; /* best effort: only the holder's name in a waiter's error depends on it */
	d->lock_depth = 1;
	return 0;
}

void apenet_dev_unlock(struct apenet_dev *d)
{
	if (d->lock_depth <= 0 || --d->lock_depth > 0)
		return;
	lock_byte(d->lock_fd, F_UNLCK, BYTE_OWNER);
	d->lock_handoff_us = others_waiting(d->lock_fd) ? apenet_clock_mono_us() + HANDOFF_US : 0;
}
