#include <stdarg.h>
#include <stdio.h>

#include "apenet/err.h"

/* Returns -1 so callers can write: return apenet_err_set(e, ...); */
int apenet_err_set(struct apenet_err *e, int code, const char *fmt, ...)
{
	if (!e)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = code;
	return -1;
}

int apenet_errbuf(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || errlen == 0)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}
