/* err.h - the one error contract of the core libraries.
 *
 * Library functions return 0 / -1 (or a pointer / NULL) and, when the
 * caller passes a non-NULL struct err, fill it with an errno-style code
 * and the text "file:line: what" or "what".  Callers decide by the code,
 * never by the text; the text is for people.  The library never prints,
 * exits or aborts.
 *
 * Codes in use: EINVAL bad input (err_set, the common case), ENOMEM
 * exhausted memory (err_nomem), ERANGE a limit or count exceeded
 * (err_range), and a failed system call's errno (err_sys; EIO when the
 * call left errno 0).
 */
#ifndef STOPO_ERR_H
#define STOPO_ERR_H

#include <errno.h> /* the codes */

#define ERR_MSG_MAX 1024

struct err {
	int code;	       /* 0 while no error is set */
	char msg[ERR_MSG_MAX]; /* a message cut to fit ends in '+' (as
				* flux-core's verrprintf marks it) */
};

/* Format a message into err with CODE (no-op when err is NULL).  Always
 * returns -1 so callers can write `return err_code(err, ERANGE, "...")`. */
int err_code(struct err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* err_code with EINVAL: the input is wrong.  Returns -1. */
int err_set(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* err_code with ENOMEM: an allocation failed.  Returns -1. */
int err_nomem(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* err_code with ERANGE: a size, count or limit was exceeded.  Returns -1. */
int err_range(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* err_code with ERRNUM, a failed system call's errno (EIO when 0); the
 * text is FMT's alone (callers add strerror where they want it).
 * Returns -1. */
int err_sys(struct err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix an existing message with "ctx: ", keeping its code (no-op when
 * err is NULL).  Returns -1. */
int err_prefix(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Set err to SUB (code and text) prefixed with "ctx: " as err_prefix
 * does; FMT NULL copies SUB alone.  ERR may be SUB; no-op when err is
 * NULL.  Returns -1. */
int err_from(struct err *err, const struct err *sub, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* What kind of failure E's code says, for logs that must tell bad input
 * from exhausted resources: "bad input" (EINVAL), "out of memory"
 * (ENOMEM), "limit exceeded" (ERANGE), "cancelled" (ECANCELED), "system
 * error" (any other errno), "no error" (no code, or E NULL). */
const char *err_kind(const struct err *e);

#endif
