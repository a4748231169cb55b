/* rng.h - the project's one seeded pseudo-random generator.
 *
 * xoshiro256** 1.0 (Blackman & Vigna), seeded by expanding a 64-bit seed
 * with splitmix64.  Deterministic on every platform: the same seed gives
 * the same sequence, so topologies (jellyfish), traffic patterns and
 * random policies are reproducible from the seed alone.  The state is
 * caller-owned (no global state); a struct rng is not thread-safe, give
 * each thread its own.
 */
#ifndef STOPO_RNG_H
#define STOPO_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

/* Seed R from SEED (any value, 0 included): s[i] = successive splitmix64
 * outputs starting from state SEED. */
void rng_seed(struct rng *r, uint64_t seed);

/* Next 64 random bits (xoshiro256**). */
uint64_t rng_next(struct rng *r);

/* Uniform integer in [0, N) without modulo bias (Lemire's multiply-shift
 * with rejection); 0 when N is 0. */
uint64_t rng_below(struct rng *r, uint64_t n);

/* Uniform double in [0, 1) with 53 random bits. */
double rng_double(struct rng *r);

#endif
