/*
 * Standalone driver for the fuzz targets in the ASan test build: runs every
 * file named on the command line (directories: every file in them, in
 * sub-directories too, such as regressions/) through LLVMFuzzerTestOneInput
 * once.  A sanitizer report or a failed check aborts, so a regression input
 * that crashes again fails `make test`.  Prints one line per input with -v.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int verbose;
static unsigned long nrun;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			uint8_t *nb = realloc(buf, ncap);
			if (!nb) {
				fclose(f);
				free(buf);
				fprintf(stderr, "replay: %s: out of memory\n", path);
				return -1;
			}
			buf = nb;
			cap = ncap;
		}
		size_t r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "replay: %s: read error\n", path);
		return -1;
	}
	if (verbose)
		fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* An exact-size copy, so ASan sees a read past the input as one. */
	uint8_t *exact = malloc(len ? len : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	if (len)
		memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	nrun++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);

	/* Sorted, so a failure names the same input on every machine. */
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				rc = -1;
				break;
			}
			names = nn;
		}
		if (!(names[n] = malloc(strlen(path) + strlen(de->d_name) + 2))) {
			rc = -1;
			break;
		}
		sprintf(names[n++], "%s/%s", path, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && run_path(names[i]) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0, first = 1;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		first = 2;
	}
	if (argc <= first) {
		fprintf(stderr, "usage: %s [-v] FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = first; i < argc; i++)
		if (run_path(argv[i]) != 0)
			rc = 1;
	printf("%lu inputs replayed%s\n", nrun, rc ? ", with errors" : "");
	return rc;
}
