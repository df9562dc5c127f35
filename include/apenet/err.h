/* Errors carried out of the libraries: a code for the exit status and a
 * message that names the problem (file, register, BDF). */
#ifndef APENET_ERR_H
#define APENET_ERR_H

#include <stddef.h>

/* Path buffers in the public structs: Linux's PATH_MAX, spelled out so that
 * the headers build in plain C11, without a POSIX feature macro. */
#define APENET_PATH_MAX 4096

enum apenet_errcode {
	APENET_OK = 0,
	APENET_ENODEV,  /* no APEnet card found */
	APENET_EGONE,   /* the card reads all ones: it left the bus */
	APENET_EIO,     /* a file or mapping failed */
	APENET_EINVAL,  /* bad input: argument, file content, register value */
	APENET_EBUSY,   /* could not get a consistent snapshot, or the command lock */
	APENET_ENOTSUP, /* the card lacks the capability (ID_CAPS) */
	APENET_ELINK,   /* the link cannot carry the request: down, in a PRBS test, no DNP partner */
	APENET_ETIMEDOUT, /* no answer in time: the firmware, or the partner through the link */
};

struct apenet_err {
	int code;
	char msg[1024];
};

int apenet_err_set(struct apenet_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same into a caller's buffer (codecs that report through char *err);
 * err may be NULL or errlen 0.  Returns -1. */
int apenet_errbuf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
