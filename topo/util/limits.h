/* limits.h - caps on what one input may make the tools build or read.
 *
 * Every reader and builder checks these before it allocates, so an input
 * that asks for more (a 10-million-node graph, a line of gigabytes,
 * /dev/zero) is refused with a message naming the limit instead of
 * exhausting memory.  The values are process-wide: stopo sets them from
 * its --limit options before a command runs; the plugin keeps the
 * defaults.
 */
#ifndef STOPO_LIMITS_H
#define STOPO_LIMITS_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "topo/util/err.h"

enum lim_key {
	LIM_NODES,    /* compute nodes in one topology */
	LIM_SWITCHES, /* switches in one topology */
	LIM_LINKS,    /* directed links in one topology (2 per node, 2 per
		       * cable) */
	LIM_LINE,     /* bytes in one line of a line-based input file */
	LIM_FILE,     /* bytes in one input file */
	LIM_COUNT
};

/* The current value of K. */
uint64_t lim_get(enum lim_key k);
/* Its name as --limit takes it ("nodes"), and its default. */
const char *lim_name(enum lim_key k);
uint64_t lim_default(enum lim_key k);
/* Set one limit from "NAME=VALUE" (VALUE a positive integer, or with a
 * K/M/G suffix for 2^10/2^20/2^30).  0 or -1 with err set. */
int lim_set(const char *assign, struct err *err);
/* Restore every default (tests). */
void lim_reset(void);

/* err_set "WHAT: N exceeds the limit K=V (raise it with --limit K=...)".
 * Returns -1. */
int lim_error(struct err *err, enum lim_key k, uint64_t n, const char *what);

/* Read all of F (NAME in messages) into a NUL-terminated buffer, *LEN its
 * length; NULL with err set ("NAME:LINE: NUL byte", "NAME: ... exceeds
 * the limit file=...", "NAME:LINE: line longer than ...").  The first NUL
 * byte and an over-long line (when LINES is non-zero: line-based formats)
 * are found while reading, so /dev/zero or an endless line costs one
 * buffer, not the machine's memory. */
char *lim_read(FILE *f, const char *name, int lines, size_t *len,
	       struct err *err);

#endif
