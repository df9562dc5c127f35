/*
 * The health database and the agent's spool hold who is broken and why:
 * the daemon's user writes them, its group (apenet: the operators, the
 * monitoring user) reads them, nobody else does.  sqlite creates a main
 * file 0644 less the umask, and each -wal and -shm with exactly the main
 * file's mode; files left by an older version may be 0644.  So the modes
 * are narrowed on every writable open, whatever the caller's umask.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apenet/err.h"
#include "apenet/filemode.h"

static int narrow(const char *path, mode_t most)
{
	/* O_NOFOLLOW and fchmod: a symlink put in the file's place is not
	 * followed to someone else's file */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 07777 & ~most))
		rc = fchmod(fd, st.st_mode & 07777 & most);
	int err = errno;
	close(fd);
	errno = err;
	return rc;
}

int apenet_sqlite_files_mode(const char *path, mode_t most)
{
	static const char *const suffix[] = { "", "-wal", "-shm" };
	int rc = 0, err = 0;
	for (unsigned i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++) {
		char p[APENET_PATH_MAX + 8];
		snprintf(p, sizeof(p), "%s%s", path, suffix[i]);
		if (narrow(p, most)) {
			rc = -1;
			err = errno;
		}
	}
	errno = err;
	return rc;
}
