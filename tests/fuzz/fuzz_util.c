/* Helpers shared by the fuzz targets (see fuzz.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

void apenet_fuzz_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
	abort();
}

char *apenet_fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return NULL;
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * A memfd rather than a file in /tmp: no disk traffic at thousands of
 * executions a second, nothing left behind when the fuzzer is killed.  The
 * loaders open it by name through /proc/self/fd, as they would any path.
 */
const char *apenet_fuzz_file(unsigned slot, const uint8_t *data, size_t size)
{
	static int fd[2] = { -1, -1 };
	static char path[2][64];

	if (slot > 1)
		return NULL;
	if (fd[slot] < 0) {
		fd[slot] = memfd_create(slot ? "apenet-fuzz-1" : "apenet-fuzz-0", 0);
		if (fd[slot] < 0)
			return NULL;
		snprintf(path[slot], sizeof(path[slot]), "/proc/self/fd/%d", fd[slot]);
	}
	if (ftruncate(fd[slot], 0) != 0)
		return NULL;
	for (size_t off = 0; off < size;) {
		ssize_t w = pwrite(fd[slot], data + off, size - off, (off_t)off);
		if (w <= 0)
			return NULL;
		off += (size_t)w;
	}
	return path[slot];
}
