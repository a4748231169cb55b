/* hl.h - the hostlist adapter: Slurm hostlist expressions ("nid[0-3,7]")
 * through libslurm's public hostlist API.  The only file outside plugin/
 * that uses libslurm is hl.c, as model_lp.c is the only one using GLPK.
 *
 * Inside a Slurm daemon the slurm_hostlist_* symbols come from the
 * daemon's own libslurmfull; stopo and the tests link libslurm. */
#ifndef STOPO_HL_H
#define STOPO_HL_H

#include <stdint.h>

struct hl;

/* Whether EXPR is a hostlist libslurm parses correctly (the one check of
 * every reader): comma-separated names of letters, digits, '.', '_' and
 * '-', each with optional bracketed lists of decimal ranges N or N-M (at
 * most HL_DIGITS digits, N <= M, at most HL_RANGE_MAX names per range,
 * Slurm's MAX_RANGE), no text after a name's last bracket, no name of the
 * list ending in more than HL_DIGITS digits (libslurm reads those as one
 * number, which it would clamp, and writes them in brackets), and at most
 * HL_RANGE_MAX names from names with several brackets ("r[1-2]n[1-4]",
 * which libslurm expands range by range).  NULL when it is, else why not
 * (static text). */
#define HL_DIGITS 9
#define HL_RANGE_MAX 65536u
#define HL_NAMES_MAX (1u << 30) /* names in one hostlist */
const char *hl_error(const char *expr);
/* Parse hostlist expression EXPR ("a[1-3],b").  Returns a new list or NULL
 * when the expression is malformed (hl_error says why; libslurm never
 * sees it) or memory runs out.  Free with hl_destroy. */
struct hl *hl_parse(const char *expr);
/* A new empty list, or NULL (memory). */
struct hl *hl_new(void);
/* Free; NULL is a no-op. */
void hl_destroy(struct hl *h);
/* Number of host names in H. */
uint64_t hl_count(const struct hl *h);
/* Remove and return the first name (a new string the caller frees with
 * free()), or NULL when H is empty. */
char *hl_shift(struct hl *h);
/* Append NAME.  Returns 0, or -1 on a bad name or memory. */
int hl_push(struct hl *h, const char *name);
/* The ranged expression of H ("a[1-3],b"): a new string the caller frees
 * with free(), or NULL (memory). */
char *hl_ranged(struct hl *h);

#endif
