#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "topo/util/err.h"

/* Mark MSG (of SIZE bytes, full) as cut, as flux-core's verrprintf does. */
static void mark_cut(char *msg, size_t size)
{
	msg[size - 2] = '+';
	msg[size - 1] = '\0';
}

static int verr(struct err *err, int code, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static int verr(struct err *err, int code, const char *fmt, va_list ap)
{
	int n;

	if (!err)
		return -1;
	err->code = code;
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (n < 0)
		err->msg[0] = '\0';
	else if ((size_t)n >= sizeof(err->msg))
		mark_cut(err->msg, sizeof(err->msg));
	return -1;
}

int err_code(struct err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, code, fmt, ap);
	va_end(ap);
	return -1;
}

int err_set(struct err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, EINVAL, fmt, ap);
	va_end(ap);
	return -1;
}

int err_nomem(struct err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, ENOMEM, fmt, ap);
	va_end(ap);
	return -1;
}

int err_range(struct err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, ERANGE, fmt, ap);
	va_end(ap);
	return -1;
}

int err_sys(struct err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(err, errnum ? errnum : EIO, fmt, ap);
	va_end(ap);
	return -1;
}

/* Put "ctx: " before err's text (its code kept). */
static void vprefix(struct err *err, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void vprefix(struct err *err, const char *fmt, va_list ap)
{
	char old[sizeof(err->msg)];
	size_t len;
	bool cut;
	int n;

	memcpy(old, err->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	if (n < 0)
		err->msg[0] = '\0';
	len = strlen(err->msg);
	cut = n >= 0 && (size_t)n >= sizeof(err->msg);
	for (const char *p = ": "; *p && !cut; p++) {
		cut = len + 1 >= sizeof(err->msg);
		if (!cut)
			err->msg[len++] = *p;
	}
	for (const char *p = old; *p && !cut; p++) {
		cut = len + 1 >= sizeof(err->msg);
		if (!cut)
			err->msg[len++] = *p;
	}
	err->msg[len] = '\0';
	if (cut)
		mark_cut(err->msg, sizeof(err->msg));
}

int err_prefix(struct err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vprefix(err, fmt, ap);
	va_end(ap);
	return -1;
}

int err_from(struct err *err, const struct err *sub, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	if (err != sub)
		*err = *sub;
	if (!fmt)
		return -1;
	va_start(ap, fmt);
	vprefix(err, fmt, ap);
	va_end(ap);
	return -1;
}

const char *err_kind(const struct err *e)
{
	if (!e || !e->code)
		return "no error";
	switch (e->code) {
	case EINVAL:
		return "bad input";
	case ENOMEM:
		return "out of memory";
	case ERANGE:
		return "limit exceeded";
	case ECANCELED:
		return "cancelled";
	default:
		return "system error";
	}
}
