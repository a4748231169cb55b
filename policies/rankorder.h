/* rankorder.h - a job's rank order as text: the node of every rank, given
 * as the node's position (0-based) in the job's node list, rank order.
 * select/topo records it in the job's SystemComment as
 * "topo_ranks=TEXT"; the SPANK plugin's `srun --topo-ranks` reads it back
 * and writes the hostfile srun lays the ranks out by.
 *
 * TEXT is comma-separated runs, each one of
 *   A        rank on node A
 *   A*K      K ranks on node A
 *   A-B      one rank on each of nodes A, A+1, .., B (A < B)
 *   A-B:S    one rank on each of nodes A, A+S, A+2S, .., B (S divides
 *            B - A)
 *   and any of these with "*K": K consecutive ranks on each node
 * e.g. "0-3*2,8,9" is 0 0 1 1 2 2 3 3 8 9, "0-6:2,1-7:2*2" is
 * 0 2 4 6 1 1 3 3 5 5 7 7.
 */
#ifndef STOPO_RANKORDER_H
#define STOPO_RANKORDER_H

#include <stdint.h>

#include "topo/util/err.h"

/* The text of the N positions POS (N >= 1) into *OUT (malloc'd, the
 * caller frees): the longest run at each step of a left-to-right scan
 * (its stride the step between its first two nodes).  Returns 0,
 * or -1 (out of memory, N = 0) with *OUT NULL. */
int rankorder_format(const uint32_t *pos, uint32_t n, char **out);

/* Parse TEXT (up to its end, a blank or a NUL) into *POS (malloc'd, the
 * caller frees) and *N: every position below NNODES, at most MAX_RANKS
 * ranks.  Returns 0, or -1 with ERR saying what is wrong (*POS NULL). */
int rankorder_parse(const char *text, uint32_t nnodes, uint32_t max_ranks,
		    uint32_t **pos, uint32_t *n, struct err *err);

/* TEXT of the key "topo_ranks=" in S (a SystemComment: blank-separated
 * key=value words), NULL when absent. */
const char *rankorder_find(const char *s);

#define RANKORDER_KEY "topo_ranks="

#endif
