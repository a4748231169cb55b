/* err.h - the one error contract of the core libraries.
 *
 * Library functions return 0 / -1 (or a pointer / NULL) and, when the
 * caller passes a non-NULL struct err, fill it with "file:line: what" or
 * "what".  The library never prints, exits or aborts.
 */
#ifndef STOPO_ERR_H
#define STOPO_ERR_H

struct err {
	char msg[1024];
};

/* Format a message into err (no-op when err is NULL).  Always returns -1 so
 * callers can write `return err_set(err, "...")`. */
int err_set(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prefix an existing message with "ctx: " (no-op when err is NULL).
 * Returns -1. */
int err_prefix(struct err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
