/* test_flows.c - pattern generators (flow counts, no self-flows,
 * permutation property, hand-computed destinations, reproducibility,
 * node-list mapping, errors) and the flows-file reader. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "evaluator/traffic/flows.h"
#include "topo/util/limits.h"

static struct flows gen(const char *spec, uint32_t n, uint64_t seed)
{
	struct flows f;
	struct err err = { 0 };

	flows_init(&f);
	cr_assert_eq(flows_pattern(spec, NULL, n, seed, &f, &err), 0, "%s: %s",
		     spec, err.msg);
	return f;
}

static void expect_error(const char *spec, uint32_t n, const char *what)
{
	struct flows f;
	struct err err = { 0 };

	flows_init(&f);
	cr_expect_eq(flows_pattern(spec, NULL, n, 1, &f, &err), -1,
		     "%s on %u ranks should fail", spec, n);
	cr_expect(strstr(err.msg, what), "%s: '%s' lacks '%s'", spec, err.msg,
		  what);
	cr_expect_eq(f.n, 0);
	flows_free(&f);
}

static void no_self(const struct flows *f, uint32_t n)
{
	for (uint32_t i = 0; i < f->n; i++) {
		cr_assert_neq(f->src[i], f->dst[i], "self-flow at %u", i);
		cr_assert_lt(f->src[i], n);
		cr_assert_lt(f->dst[i], n);
		cr_assert(f->demand[i] > 0 && isfinite(f->demand[i]));
	}
}

static bool same(const struct flows *a, const struct flows *b)
{
	return a->n == b->n &&
	       !memcmp(a->src, b->src, a->n * sizeof(uint32_t)) &&
	       !memcmp(a->dst, b->dst, a->n * sizeof(uint32_t)) &&
	       !memcmp(a->demand, b->demand, a->n * sizeof(double));
}

/* Flows [from, from+n) form a permutation of 0..n-1 (each rank sends once
 * and receives once). */
static void is_permutation(const struct flows *f, uint32_t from, uint32_t n)
{
	uint32_t *in = calloc(n, sizeof(uint32_t));
	uint32_t *out = calloc(n, sizeof(uint32_t));

	for (uint32_t i = from; i < from + n; i++) {
		out[f->src[i]]++;
		in[f->dst[i]]++;
	}
	for (uint32_t v = 0; v < n; v++) {
		cr_expect_eq(out[v], 1, "rank %u sends %u times", v, out[v]);
		cr_expect_eq(in[v], 1, "rank %u receives %u times", v, in[v]);
	}
	free(in);
	free(out);
}

/* Per-source and per-destination counts. */
static void degrees(const struct flows *f, uint32_t n, uint32_t *out,
		    uint32_t *in)
{
	memset(out, 0, n * sizeof(uint32_t));
	memset(in, 0, n * sizeof(uint32_t));
	for (uint32_t i = 0; i < f->n; i++) {
		out[f->src[i]]++;
		in[f->dst[i]]++;
	}
}

/* No (src, dst) pair twice. */
static void distinct_pairs(const struct flows *f, uint32_t n)
{
	uint8_t *seen = calloc((size_t)n * n, 1);

	for (uint32_t i = 0; i < f->n; i++) {
		size_t k = (size_t)f->src[i] * n + f->dst[i];

		cr_expect_eq(seen[k], 0, "pair %u->%u twice", f->src[i],
			     f->dst[i]);
		seen[k] = 1;
	}
	free(seen);
}

static void reproducible(const char *spec, uint32_t n)
{
	struct flows a = gen(spec, n, 7), b = gen(spec, n, 7),
		     c = gen(spec, n, 8);

	cr_expect(same(&a, &b), "%s: same seed, different flows", spec);
	cr_expect(!same(&a, &c), "%s: seeds 7 and 8 give the same flows", spec);
	flows_free(&a);
	flows_free(&b);
	flows_free(&c);
}

Test(flows, random)
{
	uint32_t out[50], in[50];
	struct flows f = gen("random:3", 50, 1);

	cr_expect_eq(f.n, 150);
	no_self(&f, 50);
	distinct_pairs(&f, 50);
	degrees(&f, 50, out, in);
	for (uint32_t v = 0; v < 50; v++)
		cr_expect_eq(out[v], 3);
	flows_free(&f);
	/* X = n-1: everyone to everyone else */
	f = gen("random:x=9", 10, 1);
	cr_expect_eq(f.n, 90);
	distinct_pairs(&f, 10);
	flows_free(&f);
	reproducible("random:2", 40);
	expect_error("random:0", 10, "out of range");
	expect_error("random:10", 10, "out of range");
	expect_error("random:two", 10, "not a non-negative integer");
}

Test(flows, perm)
{
	struct flows f = gen("perm:4", 33, 5);

	cr_expect_eq(f.n, 4 * 33);
	no_self(&f, 33);
	for (uint32_t j = 0; j < 4; j++)
		is_permutation(&f, j * 33, 33);
	flows_free(&f);
	f = gen("perm", 2, 5); /* the only derangement of 2 */
	cr_assert_eq(f.n, 2);
	cr_expect_eq(f.dst[0], 1);
	cr_expect_eq(f.dst[1], 0);
	flows_free(&f);
	reproducible("perm:1", 64);
	expect_error("perm:1", 1, "at least 2 ranks");
	/* X grew the flows without bound: perm:30000000 on a 2-node job
	 * held the plugin's job start for minutes and gigabytes
	 * (tests/fuzz/corpus/adapter/bug_perm_flows) */
	expect_error("perm:30000000", 2, "x=30000000 out of range 1..1");
	expect_error("perm:33", 33, "out of range 1..32");
	f = gen("perm:32", 33, 5);
	cr_expect_eq(f.n, 32 * 33);
	flows_free(&f);
}

Test(flows, shift)
{
	struct flows f = gen("shift:3", 10, 1);
	uint32_t x;

	cr_assert_eq(f.n, 10);
	for (uint32_t i = 0; i < 10; i++) {
		cr_expect_eq(f.src[i], i);
		cr_expect_eq(f.dst[i], (i + 3) % 10);
	}
	flows_free(&f);
	/* bare shift: one random distance for everybody */
	f = gen("shift", 10, 9);
	x = (f.dst[0] + 10 - f.src[0]) % 10;
	cr_expect(x >= 1 && x <= 9);
	for (uint32_t i = 0; i < 10; i++)
		cr_expect_eq(f.dst[i], (f.src[i] + x) % 10);
	is_permutation(&f, 0, 10);
	flows_free(&f);
	reproducible("shift", 1000);
	expect_error("shift:10", 10, "multiple");
}

Test(flows, alltoall)
{
	struct flows f = gen("alltoall", 12, 1);

	cr_expect_eq(f.n, 12 * 11);
	no_self(&f, 12);
	distinct_pairs(&f, 12);
	flows_free(&f);
	expect_error("alltoall:3", 12, "unexpected argument");
	expect_error("alltoall,seed=3", 12, "unknown pattern");
}

/* Bit permutations on 16 ranks (b = 4), worked by hand. */
Test(flows, bit_patterns)
{
	static const struct {
		const char *name;
		uint32_t s, d;
		uint32_t nflows; /* 16 minus fixed points */
	} cases[] = {
		/* transpose: rotate right by 2: 0001 -> 0100, 0110 -> 1001;
		 * fixed: 0000 0101 1010 1111 */
		{ "transpose", 1, 4, 12 },
		{ "transpose", 6, 9, 12 },
		/* bitrev: 0001 -> 1000, 0011 -> 1100; fixed: palindromes
		 * 0000 0110 1001 1111 */
		{ "bitrev", 1, 8, 12 },
		{ "bitrev", 3, 12, 12 },
		/* bitcomp: no fixed point */
		{ "bitcomp", 1, 14, 16 },
		{ "bitcomp", 10, 5, 16 },
		/* shuffle: rotate left by 1: 1000 -> 0001; fixed 0000, 1111 */
		{ "shuffle", 8, 1, 14 },
		{ "shuffle", 5, 10, 14 },
		/* butterfly: swap bits 0 and 3: 0011 -> 1010; fixed: bit 0 ==
		 * bit 3: 8 ranks */
		{ "butterfly", 3, 10, 8 },
		{ "butterfly", 8, 1, 8 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct flows f = gen(cases[c].name, 16, 1);
		bool found = false;

		cr_expect_eq(f.n, cases[c].nflows, "%s: %u flows",
			     cases[c].name, f.n);
		no_self(&f, 16);
		for (uint32_t i = 0; i < f.n; i++)
			if (f.src[i] == cases[c].s) {
				cr_expect_eq(f.dst[i], cases[c].d,
					     "%s(%u) = %u, want %u",
					     cases[c].name, cases[c].s,
					     f.dst[i], cases[c].d);
				found = true;
			}
		cr_expect(found, "%s: no flow from %u", cases[c].name,
			  cases[c].s);
		/* a permutation minus fixed points: nobody sends or receives
		 * twice */
		distinct_pairs(&f, 16);
		flows_free(&f);
		expect_error(cases[c].name, 12, "power-of-two");
	}
	/* transpose on 8 ranks (odd b = 3): rotate right by 1: 001 -> 100 */
	{
		struct flows f = gen("transpose", 8, 1);

		cr_expect_eq(f.src[0], 1);
		cr_expect_eq(f.dst[0], 4);
		flows_free(&f);
	}
}

Test(flows, tornado)
{
	struct flows f = gen("tornado", 8, 1);

	cr_assert_eq(f.n, 8);
	for (uint32_t i = 0; i < 8; i++)
		cr_expect_eq(f.dst[i], (i + 3) % 8); /* ceil(8/2) - 1 */
	flows_free(&f);
	f = gen("tornado", 9, 1);
	for (uint32_t i = 0; i < 9; i++)
		cr_expect_eq(f.dst[i], (i + 4) % 9); /* ceil(9/2) - 1 */
	flows_free(&f);
	expect_error("tornado", 2, "at least 3");
}

/* hotregion on 16 ranks: h = 2; a cold rank sends 0.75/15 to every rank
 * plus 0.25/2 to each of ranks 0, 1; a hot rank 0.25/1 to the other hot
 * rank. */
Test(flows, hotregion)
{
	struct flows f = gen("hotregion", 16, 1);
	double sum[16] = { 0 };

	cr_expect_eq(f.n, 16 * 15);
	no_self(&f, 16);
	for (uint32_t i = 0; i < f.n; i++) {
		double w = 0.75 / 15;

		if (f.dst[i] < 2)
			w += f.src[i] < 2 ? 0.25 : 0.125;
		cr_expect_float_eq(f.demand[i], w, 1e-15, "%u->%u: %g",
				   f.src[i], f.dst[i], f.demand[i]);
		sum[f.src[i]] += f.demand[i];
	}
	for (uint32_t v = 0; v < 16; v++)
		cr_expect_float_eq(sum[v], 1.0, 1e-12);
	/* 25 % of the traffic to the hot region: cold rank 5 */
	{
		double hot = 0;

		for (uint32_t i = 0; i < f.n; i++)
			if (f.src[i] == 5 && f.dst[i] < 2)
				hot += f.demand[i];
		cr_expect_float_eq(hot, 0.25 + 2 * 0.75 / 15, 1e-12);
	}
	flows_free(&f);
}

/* stencil dims=4x4x2 (32 ranks, rank = x + 4 (y + 4 z)): four neighbours
 * in x and y, one (both faces) in z: 5 flows per rank. */
Test(flows, stencil)
{
	struct flows f = gen("stencil:dims=4x4x2", 32, 1);
	uint32_t want0[] = { 1, 3, 4, 12, 16 };
	uint32_t out[32], in[32];

	cr_assert_eq(f.n, 32 * 5);
	no_self(&f, 32);
	for (uint32_t k = 0; k < 5; k++) {
		cr_expect_eq(f.src[k], 0);
		cr_expect_eq(f.dst[k], want0[k]);
		cr_expect_float_eq(f.demand[k], k == 4 ? 2.0 : 1.0, 1e-15);
	}
	degrees(&f, 32, out, in);
	for (uint32_t v = 0; v < 32; v++)
		cr_expect(out[v] == 5 && in[v] == 5);
	flows_free(&f);
	/* paper 004 Eq. 10-11, elements 8x8x8: Bk/Ak = 1/2, 1/2, 1/4, sum
	 * 5/4; m = (1/5, 1/5, 1/10); z has Bk = 2: 2 m_z = 1/5. Each rank's
	 * demands sum to 1; the x and y faces (8x4 elements... contact
	 * surfaces mu = 2*4, 2*4... ) in ratio of Eq. 8. */
	f = gen("stencil:dims=4x4x2,elements=8x8x8", 32, 1);
	{
		double w[] = { 0.2, 0.2, 0.2, 0.2, 0.2 };
		double s = 0;

		for (uint32_t k = 0; k < 5; k++) {
			cr_expect_float_eq(f.demand[k], w[k], 1e-15, "%u: %g",
					   k, f.demand[k]);
			s += f.demand[k];
		}
		cr_expect_float_eq(s, 1.0, 1e-12);
	}
	flows_free(&f);
	/* unequal surfaces: dims 2x4 (8 ranks), elements 4x16: per task
	 * 2x4 elements; mu_x = 4 (the y extent), mu_y = 2: Eq. 10 gives
	 * m_x = (2/4) / (2 (2/4 + 4/16)) = 1/3, m_y = (4/16) / 1.5 = 1/6;
	 * x has Bk = 2 so its one neighbour gets 2/3, y's two get 1/6. */
	f = gen("stencil:dims=2x4,elements=4x16", 8, 1);
	cr_assert_eq(f.n, 8 * 3);
	cr_expect_eq(f.dst[0], 1);
	cr_expect_float_eq(f.demand[0], 2.0 / 3, 1e-15);
	cr_expect_eq(f.dst[1], 2);
	cr_expect_float_eq(f.demand[1], 1.0 / 6, 1e-15);
	cr_expect_eq(f.dst[2], 6);
	cr_expect_float_eq(f.demand[2], 1.0 / 6, 1e-15);
	flows_free(&f);
	expect_error("stencil:dims=4x4", 32, "has 16 ranks");
	expect_error("stencil", 32, "needs dims");
	expect_error("stencil:dims=4x4x2,elements=8x8", 32, "one size");
	expect_error("stencil:dims=4x4x2,elements=8x8x3", 32, "multiple");
	expect_error("stencil:dims=4xx4", 32, "expected");
	/* 3340214413 x 2761311370 x 2 = 2^64 + 4: the product wrapped to
	 * the 4 ranks and the neighbours ran past the node list
	 * (tests/fuzz/corpus/pattern_spec/bug_stencil_dims_overflow) */
	expect_error("stencil:dims=3340214413x2761311370x2", 4,
		     "more than 4294967295 ranks");
}

Test(flows, suba2a)
{
	struct flows f = gen("subA2A:size=4", 10, 1);

	/* groups {0-3}, {4-7}, {8, 9}: 12 + 12 + 2 */
	cr_expect_eq(f.n, 26);
	no_self(&f, 10);
	distinct_pairs(&f, 10);
	for (uint32_t i = 0; i < f.n; i++)
		cr_expect_eq(f.src[i] / 4, f.dst[i] / 4);
	flows_free(&f);
	expect_error("subA2A", 10, "needs size");
	expect_error("subA2A:size=1", 10, "out of range");
}

Test(flows, spread)
{
	uint32_t out[40], in[40];
	struct flows f = gen("spread:3", 40, 1);

	cr_expect_eq(f.n, 120);
	no_self(&f, 40);
	distinct_pairs(&f, 40);
	degrees(&f, 40, out, in);
	for (uint32_t v = 0; v < 40; v++)
		cr_expect(out[v] == 3 && in[v] == 3);
	flows_free(&f);
	reproducible("spread:2", 40);
}

Test(flows, pairs)
{
	struct flows f = gen("pairs", 10, 1);
	uint32_t partner[10];

	cr_assert_eq(f.n, 10);
	no_self(&f, 10);
	is_permutation(&f, 0, 10);
	for (uint32_t i = 0; i < f.n; i++)
		partner[f.src[i]] = f.dst[i];
	for (uint32_t v = 0; v < 10; v++)
		cr_expect_eq(partner[partner[v]], v); /* symmetric */
	flows_free(&f);
	f = gen("pairs", 9, 1); /* one rank left out */
	cr_expect_eq(f.n, 8);
	flows_free(&f);
	reproducible("pairs", 30);
}

Test(flows, umesh)
{
	uint32_t out[40], in[40];
	struct flows f = gen("umesh:degree=3", 40, 1);

	no_self(&f, 40);
	distinct_pairs(&f, 40);
	degrees(&f, 40, out, in);
	for (uint32_t v = 0; v < 40; v++) {
		cr_expect(out[v] >= 3 && out[v] <= 6, "rank %u: %u", v, out[v]);
		cr_expect_eq(out[v], in[v]); /* symmetric */
	}
	for (uint32_t i = 0; i < f.n; i++) {
		uint32_t d = (f.dst[i] + 40 - f.src[i]) % 40;

		cr_expect(d <= 3 || d >= 37, "%u->%u outside the window",
			  f.src[i], f.dst[i]);
	}
	flows_free(&f);
	reproducible("umesh:degree=2", 40);
	expect_error("umesh", 40, "needs degree");
}

/* A node list maps ranks to nodes; the flows equal the rank pattern
 * mapped through it. */
Test(flows, node_list)
{
	uint32_t nodes[] = { 40, 10, 30, 20, 70, 60, 50, 0 };
	static const char *specs[] = { "perm:2", "transpose", "random:2",
				       "stencil:dims=2x4", "pairs" };

	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		struct flows a = gen(specs[s], 8, 3), b;
		struct err err = { 0 };

		flows_init(&b);
		cr_assert_eq(flows_pattern(specs[s], nodes, 8, 3, &b, &err), 0,
			     "%s", err.msg);
		cr_assert_eq(a.n, b.n);
		for (uint32_t i = 0; i < a.n; i++) {
			cr_expect_eq(b.src[i], nodes[a.src[i]]);
			cr_expect_eq(b.dst[i], nodes[a.dst[i]]);
		}
		flows_free(&a);
		flows_free(&b);
	}
	{
		uint32_t dup[] = { 1, 2, 1 };
		struct flows f;
		struct err err = { 0 };

		flows_init(&f);
		cr_expect_eq(flows_pattern("perm", dup, 3, 1, &f, &err), -1);
		cr_expect(strstr(err.msg, "appears twice"), "%s", err.msg);
		flows_free(&f);
	}
}

Test(flows, seed_in_spec)
{
	struct flows a = gen("random:2,seed=11", 30, 1);
	struct flows b = gen("random:2", 30, 11);

	cr_expect(same(&a, &b));
	flows_free(&a);
	flows_free(&b);
	cr_expect(flows_pattern_random("perm:2"));
	cr_expect(flows_pattern_random("shift"));
	cr_expect(!flows_pattern_random("shift:3"));
	cr_expect(!flows_pattern_random("transpose"));
	expect_error("transpose,seed=3", 16, "unknown pattern");
	expect_error("transpose:seed=3", 16, "not random");
	expect_error("nosuch", 16, "unknown pattern 'nosuch'");
	expect_error("random:2,colour=3", 16,
		     "pattern 'random:2,colour=3': unknown argument 'colour' "
		     "(known: x, seed)");
	expect_error("random:2,x=3", 16, "give x once");
}

/* The spec grammar of patterns (topo/util/spec.h, SPEC_POSITIONAL): the
 * exact messages of the argument errors. */
Test(flows, spec_errors)
{
	expect_error("random:2,x=3", 16,
		     "pattern 'random:2,x=3': give x once (as '2' or as x=3)");
	expect_error("alltoall:3", 16,
		     "pattern 'alltoall:3': unexpected argument '3'");
	expect_error("random:", 16,
		     "pattern 'random:': empty argument list after 'random:'");
	expect_error("random:2,,seed=1", 16,
		     "pattern 'random:2,,seed=1': empty argument in "
		     "'random:2,,seed=1'");
	expect_error("random:seed=1,2", 16,
		     "pattern 'random:seed=1,2': bad argument '2' (want "
		     "key=value)");
	expect_error("stencil:dims=4x4,dims=4x4", 16,
		     "pattern 'stencil:dims=4x4,dims=4x4': argument 'dims' "
		     "given twice");
	expect_error("umesh:3", 16, "unexpected argument '3'");
	expect_error("pairs:seed=x", 16, "seed: not a non-negative integer");
}

/* The unknown-pattern error lists exactly the registered patterns, in
 * registry order: derived from the registry, not a second copy. */
Test(flows, unknown_pattern_lists_the_registry)
{
	const char *const *names = flows_pattern_names();
	char want[512] = "pattern 'zz': unknown pattern 'zz' (known: ";
	struct flows f;
	struct err err = { 0 };
	size_t n = 0;

	for (; names[n]; n++) {
		strcat(want, n ? ", " : "");
		strcat(want, names[n]);
	}
	strcat(want, ")");
	cr_expect_str_eq(names[0], "random");
	flows_init(&f);
	cr_expect_eq(flows_pattern("zz", NULL, 8, 1, &f, &err), -1);
	cr_expect_str_eq(err.msg, want);
	flows_free(&f);
}

/* ---- flows files ---- */

static char *data(const char *name)
{
	const char *top = getenv("top_srcdir");
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/tests/data/%s", top ? top : ".", name);
	return buf;
}

Test(flows, load_ok)
{
	struct flows f;
	struct err err = { 0 };

	flows_init(&f);
	cr_assert_eq(flows_load(data("flows_ok.txt"), 4, &f, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(f.n, 3);
	cr_expect(f.src[0] == 0 && f.dst[0] == 1 && f.demand[0] == 1.0);
	cr_expect(f.src[1] == 2 && f.dst[1] == 3 && f.demand[1] == 0.5);
	cr_expect(f.src[2] == 3 && f.dst[2] == 0 && f.demand[2] == 2.0);
	flows_free(&f);
}

Test(flows, load_errors)
{
	static const struct {
		const char *file, *msg;
	} cases[] = {
		{ "flows_bad_range.txt", ":3: node 99 out of range" },
		{ "flows_bad_demand.txt",
		  ":2: demand must be a number from 1e-12 "
		  "to 1e12" },
		{ "flows_self.txt", ":3: self-flow" },
		{ "flows_syntax.txt", ":2: expected a destination" },
		{ "flows_trailing.txt", ":1: trailing text" },
		{ "flows_nul.txt", ":3: NUL byte" },
		{ "flows_missing.txt", "No such file" },
		{ "flows_huge_id.txt",
		  ":3: node id out of range (the topology has 4 nodes, ids "
		  "0..3)" },
		{ "flows_bad_src.txt",
		  ":3: node 5 out of range (the topology has 4 nodes, ids "
		  "0..3)" },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct flows f;
		struct err err = { 0 };
		const char *path = data(cases[c].file);

		flows_init(&f);
		cr_expect_eq(flows_load(path, 4, &f, &err), -1);
		cr_expect(strstr(err.msg, cases[c].msg), "%s: '%s'",
			  cases[c].file, err.msg);
		cr_expect(!strncmp(err.msg, path, strlen(path)),
			  "message starts with the path: %s", err.msg);
		flows_free(&f);
	}
}

/* flows_pattern_check: what flows_pattern refuses without ranks, with its
 * message; a node count a pattern cannot take is left to flows_pattern. */
Test(flows, pattern_check)
{
	static const struct {
		const char *spec, *msg; /* msg NULL: accepted */
	} c[] = {
		{ "alltoall", NULL },
		{ "perm:seed=7", NULL },
		{ "stencil:dims=8x8", NULL },
		{ "bitrev", NULL }, /* power of two: known only with ranks */
		{ "bogus", "pattern 'bogus': unknown pattern 'bogus' (known: "
			   "random, perm" },
		{ "perm:seed=x",
		  "pattern 'perm:seed=x': seed: not a non-negative integer" },
		{ "alltoall:seed=1",
		  "pattern 'alltoall:seed=1': alltoall is not random (no "
		  "seed=)" },
		{ "shift:colour=2", "pattern 'shift:colour=2': " },
	};
	struct flows f;
	struct err e = { 0 };

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int rc = flows_pattern_check(c[i].spec, &e);

		if (!c[i].msg) {
			cr_expect_eq(rc, 0, "%s: %s", c[i].spec, e.msg);
			continue;
		}
		cr_expect_eq(rc, -1, "%s accepted", c[i].spec);
		cr_expect(!strncmp(e.msg, c[i].msg, strlen(c[i].msg)),
			  "%s: '%s'", c[i].spec, e.msg);
	}
	cr_expect_eq(flows_pattern_check(NULL, &e), -1);
	/* accepted by the check, refused with the ranks */
	flows_init(&f);
	cr_expect_eq(flows_pattern("bitrev", NULL, 6, 1, &f, &e), -1);
	cr_expect(strstr(e.msg, "power-of-two"), "%s", e.msg);
	flows_free(&f);
}

/* /dev/zero is a NUL byte on line 1, found in the first buffer read; a
 * line longer than the limit line= is refused at its line number (the
 * reader never holds more than one buffer past the limit). */
Test(flows, endless_input)
{
	struct flows f;
	struct err err = { 0 };
	char path[] = "/tmp/stopo-flows-XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;

	flows_init(&f);
	cr_expect_eq(flows_load("/dev/zero", 4, &f, &err), -1);
	cr_expect_str_eq(err.msg, "/dev/zero:1: NUL byte");
	cr_assert(fd >= 0);
	fp = fdopen(fd, "w");
	fputs("0 1\n1 2", fp);
	for (int i = 0; i < 300; i++)
		fputc(' ', fp);
	fputs(" 1\n", fp);
	fclose(fp);
	cr_assert_eq(lim_set("line=256", &err), 0);
	cr_expect_eq(flows_load(path, 4, &f, &err), -1);
	cr_expect(strstr(err.msg, ":2: line longer than 256 bytes, the limit "
				  "line=256 (raise it with stopo --limit "
				  "line=N)"),
		  "%s", err.msg);
	cr_assert_eq(lim_set("line=1K", &err), 0);
	cr_expect_eq(flows_load(path, 4, &f, &err), 0, "%s", err.msg);
	cr_expect_eq(f.n, 2);
	lim_reset();
	unlink(path);
	flows_free(&f);
}
