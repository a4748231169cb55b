#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "topo/util/err.h"

int err_set(struct err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int err_prefix(struct err *err, const char *fmt, ...)
{
	char old[sizeof(err->msg)];
	size_t len;
	va_list ap;

	if (!err)
		return -1;
	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	for (const char *p = ": "; *p && len + 1 < sizeof(err->msg); p++)
		err->msg[len++] = *p;
	for (const char *p = old; *p && len + 1 < sizeof(err->msg); p++)
		err->msg[len++] = *p;
	err->msg[len] = '\0';
	return -1;
}
