/*
 * Fuzz targets: one per decoder or parser, each a tests/fuzz/fuzz_NAME.c
 * that defines LLVMFuzzerTestOneInput.  The same file is linked twice: with
 * clang's libFuzzer (make fuzz, build/fuzz/) to search for crashes, and with
 * replay_main.c into the ASan test build (make test), which runs every seed
 * and every regression input under tests/fuzz/NAME/ through it.
 *
 * A target returns 0 for any input; it aborts (a finding) only when the code
 * under test breaks one of its own documented promises, checked with
 * APENET_FUZZ_CHECK.
 */
#ifndef APENET_FUZZ_H
#define APENET_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise is a crash, so that libFuzzer saves the input. */
#define APENET_FUZZ_CHECK(cond)                                                         \
	do {                                                                            \
		if (!(cond))                                                            \
			apenet_fuzz_fail(__FILE__, __LINE__, #cond);                    \
	} while (0)
void apenet_fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

/* data as a NUL-terminated string (it stops at the first NUL byte, as a C
 * string does).  Freed by the caller. */
char *apenet_fuzz_cstr(const uint8_t *data, size_t size);

/*
 * data as a file, for loaders that take a path: the path of an in-memory
 * file (memfd) holding exactly data, rewritten on every call.  slot picks
 * one of two files, for a target that needs a second one at the same time.
 * NULL when no file could be made (the target then skips the input).
 */
const char *apenet_fuzz_file(unsigned slot, const uint8_t *data, size_t size);

#endif
