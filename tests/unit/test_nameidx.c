/* test_nameidx.c - the name index against a linear search: every name
 * found at its id, absent names and prefixes not found, duplicates
 * reported with the first id, through several doublings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "topo/util/nameidx.h"

#define N 1000

static char names[N][16];

static const char *name_of(const void *ctx, uint32_t id)
{
	(void)ctx;
	return names[id];
}

Test(nameidx, finds_what_a_linear_search_finds)
{
	struct nameidx x;
	uint32_t prev;

	nameidx_init(&x, name_of, NULL);
	cr_expect_eq(nameidx_find(&x, "s0"), NAMEIDX_NONE, "empty");
	for (uint32_t i = 0; i < N; i++) {
		/* every tenth name repeats the one before */
		snprintf(names[i], sizeof(names[i]), "s%u",
			 i % 10 == 9 ? i - 1 : i);
		cr_assert_eq(nameidx_add(&x, i, &prev), 0);
		if (i % 10 == 9)
			cr_expect_eq(prev, i - 1, "%u: duplicate of", i);
		else
			cr_expect_eq(prev, NAMEIDX_NONE, "%u: new", i);
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want = i;

		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(names[j], names[i])) {
				want = j;
				break;
			}
		cr_expect_eq(nameidx_find(&x, names[i]), want, "%s", names[i]);
	}
	cr_expect_eq(nameidx_find(&x, "s"), NAMEIDX_NONE);
	cr_expect_eq(nameidx_find(&x, "s99999"), NAMEIDX_NONE);
	cr_expect_eq(nameidx_findn(&x, "s12(0:0)", 3), 12u, "by length");
	cr_expect_eq(nameidx_findn(&x, "s12", 2), 1u, "a prefix is a name");
	nameidx_free(&x);
	cr_expect_eq(nameidx_find(&x, "s1"), NAMEIDX_NONE, "freed");
}
