/* test_rng.c - the seeded generator: reference vectors (computed by an
 * independent Python transcription of splitmix64 + xoshiro256**; splitmix64
 * from seed 0 starts 0xe220a8397b1dcdaf as in Vigna's reference), ranges
 * and rough uniformity of rng_below / rng_double. */
#include <criterion/criterion.h>

#include "topo/util/rng.h"

Test(rng, seed_expands_with_splitmix64)
{
	struct rng r;

	rng_seed(&r, 0);
	cr_expect_eq(r.s[0], 0xe220a8397b1dcdafULL);
	cr_expect_eq(r.s[1], 0x6e789e6aa1b965f4ULL);
	cr_expect_eq(r.s[2], 0x06c45d188009454fULL);
	cr_expect_eq(r.s[3], 0xf88bb8a8724c81ecULL);
}

Test(rng, xoshiro_reference_vectors)
{
	static const uint64_t want0[] = { 0x99ec5f36cb75f2b4ULL,
					  0xbf6e1f784956452aULL,
					  0x1a5f849d4933e6e0ULL,
					  0x6aa594f1262d2d2cULL };
	static const uint64_t want42[] = { 0x15780b2e0c2ec716ULL,
					   0x6104d9866d113a7eULL,
					   0xae17533239e499a1ULL,
					   0xecb8ad4703b360a1ULL };
	struct rng r;

	rng_seed(&r, 0);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(rng_next(&r), want0[i], "seed 0 output %d", i);
	rng_seed(&r, 42);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(rng_next(&r), want42[i], "seed 42 output %d", i);
}

Test(rng, below_range_and_uniformity)
{
	enum { N = 7, DRAWS = 70000 };
	uint32_t hist[N] = { 0 };
	double chi2 = 0;
	struct rng r;

	rng_seed(&r, 1);
	cr_expect_eq(rng_below(&r, 0), 0);
	cr_expect_eq(rng_below(&r, 1), 0);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t x = rng_below(&r, N);

		cr_assert_lt(x, N);
		hist[x]++;
	}
	for (int i = 0; i < N; i++) {
		double d = hist[i] - DRAWS / (double)N;

		chi2 += d * d / (DRAWS / (double)N);
	}
	/* 6 degrees of freedom: P(chi2 > 22.46) = 0.001 */
	cr_expect_lt(chi2, 22.46, "chi2 %f", chi2);
	/* huge bounds stay in range */
	for (int i = 0; i < 1000; i++)
		cr_assert_lt(rng_below(&r, UINT64_MAX - 1), UINT64_MAX - 1);
}

Test(rng, double_in_unit_interval)
{
	struct rng r;
	double sum = 0;

	rng_seed(&r, 7);
	for (int i = 0; i < 100000; i++) {
		double x = rng_double(&r);

		cr_assert(x >= 0 && x < 1);
		sum += x;
	}
	cr_expect(sum / 100000 > 0.49 && sum / 100000 < 0.51, "mean %f",
		  sum / 100000);
}
