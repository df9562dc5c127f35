/* The child processes a benchmark measures (see spawn.h). */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../tests/e2e/e2e.h"

int bench_spawn(char *const argv[], const char *out, const char *errf, double *wall, long *maxrss_kb)
{
	fflush(NULL); /* a child must not repeat our buffered output */
	double t0 = e2e_now();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fo = open(out && *out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int fe = errf ? open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644) : 2;
		if (fo < 0 || fe < 0)
			_exit(126);
		dup2(fo, 1);
		close(fo);
		if (fe != 2) {
			dup2(fe, 2);
			close(fe);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return bench_wait(pid, t0, wall, maxrss_kb);
}

int bench_wait(pid_t pid, double t0, double *wall, long *maxrss_kb)
{
	int st;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	*wall = e2e_now() - t0;
	*maxrss_kb = ru.ru_maxrss;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int bench_file_has(const char *path, const char *what)
{
	FILE *f = fopen(path, "r");
	char l[1024];
	int ok = 0;
	while (f && !ok && fgets(l, sizeof(l), f))
		ok = strstr(l, what) != NULL;
	if (f)
		fclose(f);
	return ok;
}
