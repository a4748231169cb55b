/* test_rankorder.c - the rank-order text select/topo records and
 * srun --topo-ranks reads (policies/rankorder.h): hand-written texts
 * both ways, round trips of every order of small jobs, and each error. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policies/rankorder.h"

static void fmt_is(const uint32_t *pos, uint32_t n, const char *want)
{
	char *s = NULL;

	cr_assert_eq(rankorder_format(pos, n, &s), 0);
	cr_expect_str_eq(s, want);
	free(s);
}

Test(rankorder, format_by_hand)
{
	const uint32_t a[] = { 0, 0, 1, 1, 2, 2, 3, 3, 8, 9 };
	const uint32_t b[] = { 5 };
	const uint32_t c[] = { 4, 4, 4 };
	const uint32_t d[] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	const uint32_t e[] = { 3, 2, 1, 0 };
	/* 0 0 1 1 2: the third node has one rank, not K = 2 */
	const uint32_t f[] = { 0, 0, 1, 1, 2 };
	/* the layout of a 4x2 grid on two nodes, axis 0 on a node */
	const uint32_t g[] = { 0, 0, 1, 1, 0, 0, 1, 1 };

	fmt_is(a, 10, "0-3*2,8-9");
	fmt_is(b, 1, "5");
	fmt_is(c, 3, "4*3");
	fmt_is(d, 8, "0-3,0-3");
	fmt_is(e, 4, "3,2,1,0");
	fmt_is(f, 5, "0-1*2,2");
	fmt_is(g, 8, "0-1*2,0-1*2");
	/* strides: the step between a run's first two nodes */
	const uint32_t h[] = { 0, 2, 4, 6, 1, 1, 3, 3, 5, 5, 7, 7 };
	const uint32_t i[] = { 0, 2, 3 };
	fmt_is(h, 12, "0-6:2,1-7:2*2");
	fmt_is(i, 3, "0-2:2,3");
}

static void parse_is(const char *text, uint32_t nn, const uint32_t *want,
		     uint32_t n)
{
	struct err err = { 0 };
	uint32_t *pos = NULL, got = 0;

	cr_assert_eq(rankorder_parse(text, nn, 1000, &pos, &got, &err), 0,
		     "%s: %s", text, err.msg);
	cr_assert_eq(got, n, "%s: %u ranks, want %u", text, got, n);
	for (uint32_t i = 0; i < n; i++)
		cr_expect_eq(pos[i], want[i], "%s: rank %u on %u, want %u",
			     text, i, pos[i], want[i]);
	free(pos);
}

Test(rankorder, parse_by_hand)
{
	const uint32_t a[] = { 0, 0, 1, 1, 2, 2, 3, 3, 8, 9 };
	const uint32_t b[] = { 7, 7, 7, 2 };
	const uint32_t c[] = { 0, 2, 4, 6, 1, 1, 3, 3, 5, 5, 7, 7 };
	const uint32_t d[] = { 1, 1, 1, 4, 4, 4 };

	parse_is("0-3*2,8-9", 10, a, 10);
	parse_is("0*2,1*2,2*2,3*2,8,9", 10, a, 10);
	parse_is("7*3,2 rest of the comment", 8, b, 4);
	parse_is("0-6:2,1-7:2*2", 8, c, 12);
	parse_is("1-4:3*3", 5, d, 6);
}

static void parse_fails(const char *text, uint32_t nn, uint32_t max,
			const char *says)
{
	struct err err = { 0 };
	uint32_t *pos = (uint32_t *)1, n = 9;

	cr_assert_eq(rankorder_parse(text, nn, max, &pos, &n, &err), -1,
		     "%s parsed", text);
	cr_expect_null(pos);
	cr_expect_eq(n, 0);
	cr_expect(strstr(err.msg, says), "%s: \"%s\" lacks \"%s\"", text,
		  err.msg, says);
}

Test(rankorder, errors)
{
	parse_fails("", 4, 100, "empty");
	parse_fails("0,,1", 4, 100, "expected runs");
	parse_fails("0-", 4, 100, "expected runs");
	parse_fails("3-1", 4, 100, "does not ascend");
	parse_fails("2-2", 4, 100, "does not ascend");
	parse_fails("0*0", 4, 100, "expected runs");
	parse_fails("0-3:2", 4, 100,
		    "0-3:2: 0 to 3 is not a multiple of stride 2");
	parse_fails("0-2:0", 4, 100, "expected runs");
	parse_fails("0:2", 4, 100, "expected runs");
	parse_fails("0,4", 4, 100, "node 4, but the job has 4 nodes");
	parse_fails("0-3*3", 4, 11, "more than 11 ranks");
	parse_fails("1;2", 4, 100, "at \";2\"");
	parse_fails("99999999999", 4, 100, "expected runs");
	parse_fails("-1", 4, 100, "expected runs");
}

/* Every sequence of length L over M nodes, as a base-M counter: the
 * text parses back to the sequence. */
Test(rankorder, round_trip_exhaustive)
{
	const uint32_t M = 4, L = 6;
	uint32_t seq[6] = { 0 }, total = 1, checked = 0;

	for (uint32_t i = 0; i < L; i++)
		total *= M;
	for (uint32_t c = 0; c < total; c++) {
		uint32_t x = c, *pos = NULL, n = 0;
		struct err err = { 0 };
		char *s = NULL;

		for (uint32_t i = 0; i < L; i++, x /= M)
			seq[i] = x % M;
		cr_assert_eq(rankorder_format(seq, L, &s), 0);
		cr_assert_eq(rankorder_parse(s, M, L, &pos, &n, &err), 0,
			     "%s: %s", s, err.msg);
		cr_assert_eq(n, L, "%s", s);
		cr_assert_eq(memcmp(pos, seq, sizeof(seq)), 0, "%s", s);
		free(pos);
		free(s);
		checked++;
	}
	cr_expect_eq(checked, 4096);
}

Test(rankorder, find)
{
	cr_expect_null(rankorder_find(NULL));
	cr_expect_null(rankorder_find("bb=1 xtopo_ranks=0"));
	cr_expect_str_eq(rankorder_find("topo_ranks=0-3"), "0-3");
	cr_expect_str_eq(rankorder_find("bb=x  topo_grid=4x2 topo_ranks=1,0 z"),
			 "1,0 z");
}

Test(rankorder, format_rejects_empty)
{
	char *s = (char *)1;

	cr_expect_eq(rankorder_format(NULL, 0, &s), -1);
	cr_expect_null(s);
}
