/* flows.h - traffic: a list of flows (source node, destination node,
 * demand) and the pattern generators that build them.
 *
 * A pattern is generated over RANKS 0..n-1 and mapped onto node ids
 * through an optional rank-ordered node list (the nodes a job got), so
 * "transpose" over a 64-node job means rank i -> rank t(i) within the job.
 * Random patterns draw from the project's one PRNG (topo/rng.h,
 * xoshiro256** seeded by splitmix64): the same spec and seed give the same
 * flows on every machine.  No generator emits a self-flow (src == dst).
 *
 * Pattern specs are "NAME[:ARG[,key=value...]]" or "NAME[:key=value,...]"
 * (topo/util/spec.h, SPEC_POSITIONAL); the exact definition of every
 * pattern is in stopo-eval(1) and next to its generator in patterns.c.  Names: random, perm, shift, alltoall, transpose, bitrev,
 * bitcomp, shuffle, butterfly, tornado, hotregion, stencil, subA2A,
 * spread, pairs, umesh.
 */
#ifndef STOPO_FLOWS_H
#define STOPO_FLOWS_H

#include <stdint.h>
#include <stdio.h>

#include "topo/util/err.h"

struct flows {
	uint32_t n, cap; /* number of flows, allocated entries */
	uint32_t *src;	 /* [n] source node ids */
	uint32_t *dst;	 /* [n] destination node ids */
	double *demand;	 /* [n] demands (> 0; 1 unless the pattern says) */
};

/* Make F an empty list (no allocation). */
void flows_init(struct flows *f);
/* Free F's arrays; F is empty again.  NULL is a no-op. */
void flows_free(struct flows *f);
/* Forget every flow, keep the memory. */
void flows_clear(struct flows *f);
/* Append one flow.  Returns 0, or -1 when out of memory or at 2^32-1
 * flows. */
int flows_add(struct flows *f, uint32_t src, uint32_t dst, double demand);

/* Generate pattern SPEC over N ranks into OUT (cleared first).  NODES, when
 * not NULL, holds the N node ids in rank order (rank i is NODES[i]) and the
 * flows carry those ids; NULL means rank i is node i.  SEED seeds random
 * patterns unless SPEC has its own "seed=".  Returns 0, or -1 with err set
 * ("pattern 'x': what") for an unknown name, a bad argument, a node count
 * the pattern does not support (bit patterns need a power of two) or
 * memory. */
int flows_pattern(const char *spec, const uint32_t *nodes, uint32_t n,
		  uint64_t seed, struct flows *out, struct err *err);

/* Check SPEC as flows_pattern would, without ranks: a known pattern, its
 * options and their values' syntax (a node count the pattern cannot take
 * is only known with the ranks).  Returns 0, or -1 with err set as
 * flows_pattern sets it. */
int flows_pattern_check(const char *spec, struct err *err);

/* Whether SPEC names a pattern that draws random numbers (so different
 * seeds give different flows).  Unknown names are false. */
int flows_pattern_random(const char *spec);

/* Names of the patterns, NULL-terminated (static storage). */
const char *const *flows_pattern_names(void);

/* Read a flows file into OUT (cleared first): one "src dst [demand]" per
 * line, node ids < NNODES, src != dst, demand a positive finite number
 * (default 1); '#' starts a comment; blank lines are skipped.  Returns 0,
 * or -1 with err set to "PATH:LINE: what". */
int flows_load(const char *path, uint32_t nnodes, struct flows *out,
	       struct err *err);
/* The same from the stream FP (the caller's, left open; read to its end),
 * PATH naming it in messages. */
int flows_read(FILE *fp, const char *path, uint32_t nnodes, struct flows *out,
	       struct err *err);

#endif
