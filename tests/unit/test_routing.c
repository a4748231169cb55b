/* test_routing.c - routing path sets: paper 002's path counts, counting
 * without enumeration against enumeration, path validity, Cascade and
 * fat-tree hand-worked cases, structural link sets against enumerated
 * ones, and every routing-spec error. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "topo/routing.h"
#include "tests/unit/fixtures.h"

/* ---- dragonfly counts against the port rule ---- */

/* Links between groups i != j of dfly(.,a,h,g), from the port rule of
 * issue 2 alone: j is the k_ij-th other group of i (k_ij = j or j-1), copy
 * c uses port c(g-1)+k_ij of i and lands on port c(g-1)+k_ji of j; the
 * cable exists when both ports are below a*h. */
static uint64_t port_rule_links(long a, long h, long g, long i, long j)
{
	long kij = j < i ? j : j - 1, kji = i < j ? i : i - 1;
	long hi = kij > kji ? kij : kji;
	uint64_t m = 0;

	for (long c = 0; c * (g - 1) + hi < a * h; c++)
		m++;
	return m;
}

struct dfly_case {
	char spec[64];
	long p, a, h, g;
};

static const struct dfly_case dfly_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", 2, 4, 2, 9 }, /* paper 002 Fig. 1 */
	{ "dragonfly:p=1,a=4,h=2,g=5", 1, 4, 2, 5 }, /* 2 links per pair */
	{ "dragonfly:p=1,a=3,h=3,g=4", 1, 3, 3, 4 }, /* 3 links per pair */
	{ "dragonfly:p=1,a=6,h=2,g=7", 1, 6, 2, 7 },
	{ "dragonfly:p=1,a=2,h=2,g=3", 1, 2, 2, 3 },
	{ "dragonfly:p=1,a=4,h=2,g=4", 1, 4, 2, 4 }, /* g-1 does not divide */
	{ "dragonfly:p=1,a=5,h=3,g=8", 1, 5, 3, 8 }, /* g-1 does not divide */
	{ "dragonfly:p=1,a=4,h=3,g=6", 1, 4, 3, 6 }, /* g-1 does not divide */
};

ParameterizedTestParameters(routing, dfly_formulas)
{
	return cr_make_param_array(struct dfly_case, dfly_cases,
				   sizeof(dfly_cases) / sizeof(dfly_cases[0]));
}

/* Every ordered pair of switches: MIN and VLB counts (ugal, both intra
 * modes) equal the port-rule expectation, and paper 002's closed forms
 * when g-1 divides a*h. */
ParameterizedTest(const struct dfly_case *c, routing, dfly_formulas)
{
	struct topo *t = fx_topo(c->spec);
	struct routing *ul = fx_routing(t, "ugal");
	struct routing *ug = fx_routing(t, "ugal:intra=global");
	long a = c->a, h = c->h, g = c->g;
	bool divides = (a * h) % (g - 1) == 0;
	uint32_t S = topo_num_switches(t);

	for (uint32_t s = 0; s < S; s++)
		for (uint32_t d = 0; d < S; d++) {
			uint32_t src = s * (uint32_t)c->p,
				 dst = d * (uint32_t)c->p;
			long gs = s / a, gd = d / a;
			struct routing_count cl, cg;
			uint64_t emin, evlb_l, evlb_g = 0;

			if (s == d)
				continue;
			cr_assert_eq(routing_count(ul, src, dst, &cl, NULL), 0);
			cr_assert_eq(routing_count(ug, src, dst, &cg, NULL), 0);
			if (gs == gd) {
				emin = 1;
				evlb_l = (uint64_t)(a - 2);
				for (long j = 0; j < g; j++)
					if (j != gs) {
						uint64_t m = port_rule_links(
							a, h, g, gs, j);

						evlb_g += (uint64_t)a * m * m;
					}
			} else {
				emin = port_rule_links(a, h, g, gs, gd);
				evlb_l = 0;
				for (long j = 0; j < g; j++)
					if (j != gs && j != gd)
						evlb_l +=
							(uint64_t)a *
							port_rule_links(a, h, g,
									gs, j) *
							port_rule_links(a, h, g,
									j, gd);
				evlb_g = evlb_l;
				if (divides) {
					cr_expect_eq(emin, (uint64_t)(a * h /
								      (g - 1)));
					cr_expect_eq(
						evlb_l * (uint64_t)((g - 1) *
								    (g - 1)),
						(uint64_t)(a * a * a * h * h *
							   (g - 2)));
				}
			}
			cr_expect_eq(cl.by_class[PATH_MIN], emin,
				     "%s %u->%u min %lu want %lu", c->spec, s,
				     d, (unsigned long)cl.by_class[PATH_MIN],
				     (unsigned long)emin);
			cr_expect_eq(cl.by_class[PATH_VLB], evlb_l,
				     "%s %u->%u vlb %lu want %lu", c->spec, s,
				     d, (unsigned long)cl.by_class[PATH_VLB],
				     (unsigned long)evlb_l);
			cr_expect_eq(cg.by_class[PATH_VLB], evlb_g,
				     "%s %u->%u vlb global", c->spec, s, d);
			cr_expect_eq(cl.total, emin + evlb_l);
		}
	routing_destroy(ul);
	routing_destroy(ug);
	topo_destroy(t);
}

/* Hand-worked hop classes in dfly(2,4,2,9): group 0 has routers 0..3,
 * router r holds ports 2r, 2r+1; port t of group 0 goes to group t+1.
 * Flow switch 0 -> switch 35 (group 8, router 3): port 7 on router 3,
 * landing on port 0 of group 8 = router 0, so MIN = 0 -> 3 -> (8,0) ->
 * (8,3): 3 hops.  Inside a group: MIN 1 hop, intra=local VLB two 2-hop
 * paths (via the other two routers). */
Test(routing, dfly_hand_hops)
{
	struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct routing *u = fx_routing(t, "ugal");
	struct routing *m = fx_routing(t, "min");
	struct routing_count c;
	struct pathset ps;

	cr_assert_eq(routing_count(m, 0, 71, &c, NULL), 0);
	cr_expect_eq(c.total, 1);
	cr_expect_eq(c.by_hops[3], 1);
	pathset_init(&ps);
	cr_assert_eq(routing_paths(m, 0, 71, &ps, NULL), 0);
	cr_assert_eq(ps.n, 1);
	cr_assert_eq(ps.off[1], 5);
	cr_expect_eq(topo_link(t, ps.links[1])->to, 3);
	cr_expect_eq(topo_link(t, ps.links[2])->to, 32);
	cr_expect_eq(topo_link(t, ps.links[3])->to, 35);
	cr_assert_eq(routing_count(u, 0, 6, &c, NULL), 0); /* switch 0 -> 3 */
	cr_expect_eq(c.by_class[PATH_MIN], 1);
	cr_expect_eq(c.by_hops[1], 1);
	cr_expect_eq(c.by_class[PATH_VLB], 2);
	cr_expect_eq(c.by_hops[2], 2);
	pathset_free(&ps);
	routing_destroy(u);
	routing_destroy(m);
	topo_destroy(t);
}

/* ---- count == enumeration, and every path is a valid chain ---- */

struct enum_case {
	char topo[64];
	char routing[32];
	int trials; /* 0: 60; fewer for Cascade's large VLB sets */
};

static const struct enum_case enum_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", "min", 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb", 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global", 0 },
	{ "dragonfly:p=1,a=4,h=2,g=4", "ugal", 0 },
	{ "dragonfly:p=1,a=4,h=2,g=4", "vlb:intra=global", 0 },
	{ "dragonfly:p=1,a=5,h=3,g=8", "ugal", 0 },
	{ "dragonfly:p=1,a=3,h=1,g=2", "vlb", 0 },
	{ "dragonfly:p=2,a=2,h=1,g=2", "vlb", 0 },
	{ "dragonfly:p=2,a=4,h=0,g=1", "vlb:intra=global", 0 },
	{ "cascade:groups=2,pair=2", "min", 0 },
	{ "cascade:groups=3,pair=2", "ugal", 12 },
	{ "cascade:groups=3,pair=3", "vlb:intra=global", 8 },
	{ "fattree:k=4,n=3", "ecmp", 0 },
	{ "fattree:k=4,n=3", "dmodk", 0 },
	{ "fattree:k=3,n=3", "ecmp", 0 },
	{ "fattree:k=2,n=4", "dmodk", 0 },
};

ParameterizedTestParameters(routing, count_is_enumeration)
{
	return cr_make_param_array(struct enum_case, enum_cases,
				   sizeof(enum_cases) / sizeof(enum_cases[0]));
}

static void check_chain(const struct topo *t, const struct pathset *ps,
			uint32_t i, uint32_t src, uint32_t dst)
{
	uint32_t a = ps->off[i], b = ps->off[i + 1];
	uint32_t first = topo_first_switch_link(t), nglobal = 0;

	cr_assert_geq(b - a, 2);
	cr_assert_eq(ps->links[a], topo_inject_link(t, src));
	cr_assert_eq(ps->links[b - 1], topo_eject_link(t, dst));
	for (uint32_t k = a; k + 1 < b; k++) {
		cr_assert_lt(ps->links[k], topo_num_links(t));
		cr_assert_eq(topo_link(t, ps->links[k])->to,
			     topo_link(t, ps->links[k + 1])->from,
			     "path %u breaks at position %u", i, k - a);
	}
	for (uint32_t k = a + 1; k + 1 < b; k++) {
		cr_assert_geq(ps->links[k], first);
		nglobal += topo_link(t, ps->links[k])->kind == TOPO_LINK_GLOBAL;
	}
	cr_assert_eq(pathset_hops(ps, t, i), b - a - 2);
	/* a MIN path crosses at most one global link, a VLB path two */
	cr_assert_leq(nglobal, ps->cls[i] == PATH_MIN ? 1u : 2u);
}

ParameterizedTest(const struct enum_case *c, routing, count_is_enumeration)
{
	struct topo *t = fx_topo(c->topo);
	struct routing *r = fx_routing(t, c->routing);
	uint32_t N = topo_num_nodes(t);
	struct pathset ps;
	unsigned seed = 12345;

	pathset_init(&ps);
	for (int trial = 0; trial < (c->trials ? c->trials : 60); trial++) {
		uint32_t src = (uint32_t)rand_r(&seed) % N;
		uint32_t dst = (uint32_t)rand_r(&seed) % N;
		struct routing_count cnt;
		uint64_t hops[ROUTING_MAX_HOPS + 1] = { 0 }, cls[2] = { 0 };

		if (src == dst)
			continue;
		cr_assert_eq(routing_count(r, src, dst, &cnt, NULL), 0);
		cr_assert_eq(routing_paths(r, src, dst, &ps, NULL), 0);
		cr_assert_gt(ps.n, 0);
		for (uint32_t i = 0; i < ps.n; i++) {
			check_chain(t, &ps, i, src, dst);
			hops[pathset_hops(&ps, t, i)]++;
			cls[ps.cls[i]]++;
		}
		cr_expect_eq(cnt.total, ps.n,
			     "%s %s %u->%u: count %lu, %u paths", c->topo,
			     c->routing, src, dst, (unsigned long)cnt.total,
			     ps.n);
		cr_expect_eq(cnt.by_class[0], cls[0]);
		cr_expect_eq(cnt.by_class[1], cls[1]);
		for (int h = 0; h <= ROUTING_MAX_HOPS; h++)
			cr_expect_eq(cnt.by_hops[h], hops[h],
				     "%s %s %u->%u hops %d", c->topo,
				     c->routing, src, dst, h);
	}
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}

/* A flow inside one switch: one 0-hop path. */
Test(routing, same_switch)
{
	struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct routing *r = fx_routing(t, "ugal");
	struct routing_count c;
	struct pathset ps;

	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, 0, 1, &ps, NULL), 0);
	cr_assert_eq(ps.n, 1);
	cr_assert_eq(ps.off[1], 2);
	cr_expect_eq(ps.links[0], topo_inject_link(t, 0));
	cr_expect_eq(ps.links[1], topo_eject_link(t, 1));
	cr_assert_eq(routing_count(r, 1, 0, &c, NULL), 0);
	cr_expect_eq(c.total, 1);
	cr_expect_eq(c.by_hops[0], 1);
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}

/* ---- Cascade MIN between routers of different groups, by hand ---- */

/* cascade:groups=2: g-1 = 1, so global port t of group 0 sits on router t
 * and lands on port t = router t of group 1.  Router r = chassis*16 +
 * slot; local paths: 1 (same router, 0 hops), 1 (same chassis or slot,
 * 1 hop), else 2 (X-first, Y-first; 2 hops). */
Test(routing, cascade_min_hand)
{
	struct topo *t = fx_topo("cascade:groups=2,pair=2");
	struct topo *t24 = fx_topo("cascade:groups=2");
	struct routing *r = fx_routing(t, "min");
	struct routing *r24 = fx_routing(t24, "min");
	struct routing_count c;

	/* router 17 (chassis 1, slot 1) -> group 1 router 33 (chassis 2,
	 * slot 1).  Port 0 (router 0): 2 x 2 paths of 2+1+2 hops; port 1
	 * (router 1, same slot as both ends): 1 path of 1+1+1 hops. */
	cr_assert_eq(routing_count(r, 17 * 4, (96 + 33) * 4, &c, NULL), 0);
	cr_expect_eq(c.total, 5);
	cr_expect_eq(c.by_hops[3], 1);
	cr_expect_eq(c.by_hops[5], 4);
	/* pair=24: ports 0..23 on routers 0..23 (chassis 0 slots 0..15,
	 * chassis 1 slots 0..7).  Router 0 -> group 1 router 0: port 0 is
	 * the direct global link (1 hop); routers 1..15 share chassis 0 and
	 * router 16 shares slot 0: 16 paths of 3 hops; routers 17..23 share
	 * neither: 7 x 2 x 2 = 28 paths of 5 hops. */
	cr_assert_eq(routing_count(r24, 0, 96 * 4, &c, NULL), 0);
	cr_expect_eq(c.total, 45);
	cr_expect_eq(c.by_hops[1], 1);
	cr_expect_eq(c.by_hops[3], 16);
	cr_expect_eq(c.by_hops[5], 28);
	/* router 95 (chassis 5, slot 15) -> group 1 router 95: only router
	 * 15 shares its slot (1 path); the other 23 give 4 each: 93 <= the
	 * paper's bound 2 x 24 x 2 = 96. */
	cr_assert_eq(routing_count(r24, 95 * 4, (96 + 95) * 4, &c, NULL), 0);
	cr_expect_eq(c.total, 93);
	cr_expect_eq(c.by_hops[3], 1);
	cr_expect_eq(c.by_hops[5], 92);
	routing_destroy(r);
	routing_destroy(r24);
	topo_destroy(t);
	topo_destroy(t24);
}

/* ---- fat-tree ---- */

/* fattree:k=4,n=3: node 0 on leaf 0; node 63 on leaf 15 (digits 3,3):
 * climb to level 2, 4^2 = 16 paths of 4 hops; node 4 on leaf 1 differs
 * in digit 0 only: 4 paths of 2 hops. */
Test(routing, fattree_ecmp)
{
	struct topo *t = fx_topo("fattree:k=4,n=3");
	struct routing *r = fx_routing(t, "ecmp");
	struct routing_count c;

	cr_assert_eq(routing_count(r, 0, 63, &c, NULL), 0);
	cr_expect_eq(c.total, 16);
	cr_expect_eq(c.by_hops[4], 16);
	cr_assert_eq(routing_count(r, 0, 4, &c, NULL), 0);
	cr_expect_eq(c.total, 4);
	cr_expect_eq(c.by_hops[2], 4);
	cr_assert_eq(routing_count(r, 17, 30, &c, NULL), 0); /* leaves 4, 7 */
	cr_expect_eq(c.total, 4);
	routing_destroy(r);
	topo_destroy(t);
}

/* dmodk on fattree:k=4,n=3 (switch id = level*16 + w): the up-port at
 * level l is (dst / 4^l) mod 4.  0 -> 63: up to level-1 w=3 (id 19), then
 * digit 1 = 15 mod 4 = 3: level-2 w=15 (id 47), down to level-1 w=15 (id
 * 31), leaf 15.  0 -> 37 (leaf 9, digits 1,2): up digit 0 = 1 (id 17),
 * digit 1 = 9 mod 4 = 1: w=5 (id 37), down: digit 1 := 2, w=9 (id 25),
 * leaf 9. */
Test(routing, fattree_dmodk)
{
	static const uint32_t want63[] = { 0, 19, 47, 31, 15 };
	static const uint32_t want37[] = { 0, 17, 37, 25, 9 };
	struct topo *t = fx_topo("fattree:k=4,n=3");
	struct routing *r = fx_routing(t, "dmodk");
	struct pathset ps;

	pathset_init(&ps);
	for (int k = 0; k < 2; k++) {
		uint32_t dst = k ? 37 : 63;
		const uint32_t *want = k ? want37 : want63;

		cr_assert_eq(routing_paths(r, 0, dst, &ps, NULL), 0);
		cr_assert_eq(ps.n, 1);
		cr_assert_eq(ps.off[1], 6);
		for (int i = 0; i < 5; i++)
			cr_expect_eq(topo_link(t, ps.links[i])->to, want[i],
				     "dst %u hop %d: switch %u, want %u", dst,
				     i, topo_link(t, ps.links[i])->to, want[i]);
	}
	cr_expect(!routing_multipath(r));
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}

/* ---- structural link sets equal enumerated ones ---- */

struct ls_case {
	char topo[64];
	char routing[32];
	int clustered; /* draw nodes from a window (same group / pod) */
	int trials;    /* 0: 40; fewer for Cascade's large VLB sets */
};

static const struct ls_case ls_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", "min", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", 1, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "min", 1, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb:intra=global", 1, 0 },
	{ "dragonfly:p=1,a=4,h=2,g=4", "min", 0, 0 },
	{ "dragonfly:p=1,a=4,h=2,g=4", "vlb", 0, 0 },
	{ "dragonfly:p=1,a=4,h=2,g=4", "ugal:intra=global", 0, 0 },
	{ "dragonfly:p=1,a=5,h=3,g=8", "ugal", 1, 0 },
	{ "dragonfly:p=1,a=5,h=3,g=8", "vlb:intra=global", 0, 0 },
	{ "dragonfly:p=1,a=3,h=1,g=2", "vlb", 0, 0 },
	{ "dragonfly:p=1,a=3,h=1,g=2", "ugal", 0, 0 },
	{ "dragonfly:p=2,a=2,h=1,g=2", "vlb", 0, 0 },
	{ "dragonfly:p=2,a=4,h=0,g=1", "vlb:intra=global", 0, 0 },
	{ "dragonfly:p=2,a=4,h=0,g=1", "ugal", 0, 0 },
	{ "cascade:groups=2,pair=2", "min", 0, 0 },
	{ "cascade:groups=2,pair=2", "ugal", 1, 12 },
	{ "cascade:groups=3,pair=2", "vlb", 0, 6 },
	{ "cascade:groups=3,pair=2", "ugal:intra=global", 0, 6 },
	{ "cascade:groups=3,pair=2", "min", 1, 0 },
	{ "fattree:k=4,n=3", "ecmp", 0, 0 },
	{ "fattree:k=4,n=3", "dmodk", 0, 0 },
	{ "fattree:k=4,n=3", "ecmp", 1, 0 },
	{ "fattree:k=4,n=3", "dmodk", 1, 0 },
	{ "fattree:k=3,n=3", "dmodk", 0, 0 },
	{ "fattree:k=2,n=4", "dmodk", 0, 0 },
	{ "fattree:k=2,n=4", "ecmp", 1, 0 },
};

ParameterizedTestParameters(routing, linkset_structural)
{
	return cr_make_param_array(struct ls_case, ls_cases,
				   sizeof(ls_cases) / sizeof(ls_cases[0]));
}

ParameterizedTest(const struct ls_case *c, routing, linkset_structural)
{
	struct topo *t = fx_topo(c->topo);
	struct routing *r = fx_routing(t, c->routing);
	uint32_t N = topo_num_nodes(t);
	unsigned seed = 777;
	int nonempty = 0;

	for (int trial = 0; trial < (c->trials ? c->trials : 40); trial++) {
		uint32_t nodes[12], n = 1 + (uint32_t)rand_r(&seed) % 10;
		uint32_t base = (uint32_t)rand_r(&seed) % N;
		uint32_t win = c->clustered ? 24 : N;
		char what[160];

		if (trial == 0)
			n = 1;
		for (uint32_t i = 0; i < n; i++)
			nodes[i] = (base + (uint32_t)rand_r(&seed) % win) % N;
		snprintf(what, sizeof(what), "%s %s trial %d", c->topo,
			 c->routing, trial);
		nonempty |= fx_linkset_vs_enum(r, nodes, n, what) > 0;
	}
	cr_expect(nonempty, "no trial produced a link (the test is vacuous)");
	routing_destroy(r);
	topo_destroy(t);
}

/* Larger Cascade jobs (many routers per group, three groups), where the
 * structural code takes its whole-group shortcuts and stops early once a
 * group's local links are all marked. */
Test(routing, cascade_linkset_large)
{
	static const char *const rs[] = { "ugal", "min", "vlb:intra=global" };
	struct topo *t = fx_topo("cascade:groups=3,pair=2");
	uint32_t L = topo_num_links(t), nodes[40], n = 0;
	uint8_t *a = malloc(L), *b = malloc(L);

	/* routers 0, 11, 22, ... of groups 0 and 1, two of group 2 */
	for (uint32_t r = 0; r < 192; r += 11)
		nodes[n++] = 4 * r + r % 4;
	nodes[n++] = 4 * 200;
	nodes[n++] = 4 * 250 + 1;
	for (int k = 0; k < 3; k++) {
		struct routing *r = fx_routing(t, rs[k]);

		memset(a, 0, L);
		memset(b, 0, L);
		cr_assert_eq(routing_linkset(r, nodes, n, a, NULL), 0);
		cr_assert_eq(routing_linkset_enum(r, nodes, n, b, NULL), 0);
		for (uint32_t l = 0; l < L; l++)
			cr_assert_eq(a[l], b[l], "%s link %u (%u->%u)", rs[k],
				     l, topo_link(t, l)->from,
				     topo_link(t, l)->to);
		routing_destroy(r);
	}
	free(a);
	free(b);
	topo_destroy(t);
}

/* Issue 4's rule under ugal/intra=local: a job on one router uses no
 * link; a job on routers 0 and 1 of a dfly group uses the local links
 * touching them (MIN 0<->1, Valiant detours via routers 2 and 3) and
 * nothing outside the group; on three routers, every local link. */
Test(routing, dfly_group_job)
{
	struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct routing *r = fx_routing(t, "ugal");
	uint32_t L = topo_num_links(t);
	uint8_t *u = calloc(L, 1);
	uint32_t one[] = { 0, 1 }, two[] = { 0, 2 }, three[] = { 0, 2, 4 };

	cr_assert_eq(routing_linkset(r, one, 2, u, NULL), 0);
	for (uint32_t l = 0; l < L; l++)
		cr_expect_eq(u[l], 0);
	for (int k = 0; k < 2; k++) {
		uint32_t n = 0;

		memset(u, 0, L);
		cr_assert_eq(routing_linkset(r, k ? three : two, k ? 3 : 2, u,
					     NULL),
			     0);
		for (uint32_t l = topo_first_switch_link(t); l < L; l++) {
			const struct topo_link *lk = topo_link(t, l);
			bool want = lk->from < 4 && lk->to < 4 &&
				    (k || lk->from < 2 || lk->to < 2);

			cr_expect_eq(u[l], want, "link %u->%u", lk->from,
				     lk->to);
			n += u[l];
		}
		cr_expect_eq(n, k ? 12 : 10);
	}
	free(u);
	routing_destroy(r);
	topo_destroy(t);
}

/* ---- specs and errors ---- */

Test(routing, specs)
{
	struct topo *d = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct topo *f = fx_topo("fattree:k=4,n=3");
	struct routing *r;

	cr_expect_str_eq(routing_default(d), "ugal");
	cr_expect_str_eq(routing_default(f), "ecmp");
	r = fx_routing(d, "ugal");
	cr_expect_str_eq(routing_spec(r), "ugal:intra=local");
	cr_expect(routing_multipath(r));
	cr_expect_eq(routing_topo(r), d);
	routing_destroy(r);
	r = fx_routing(d, "vlb:intra=global");
	cr_expect_str_eq(routing_spec(r), "vlb:intra=global");
	routing_destroy(r);
	r = fx_routing(d, "min");
	cr_expect_str_eq(routing_spec(r), "min");
	routing_destroy(r);
	r = fx_routing(f, "dmodk");
	cr_expect_str_eq(routing_spec(r), "dmodk");
	routing_destroy(r);
	/* topo.conf's form; the defaults of the option table */
	r = fx_routing(d, "ugal intra=global");
	cr_expect_str_eq(routing_spec(r), "ugal:intra=global");
	cr_expect_str_eq(routing_name(r), "ugal");
	routing_destroy(r);
	r = fx_routing(d, "ksp");
	cr_expect_str_eq(routing_spec(r), "ksp:k=4");
	routing_destroy(r);
	routing_destroy(NULL);
	topo_destroy(d);
	topo_destroy(f);
}

struct bad_case {
	char topo[48];
	char routing[48];
	char msg[128]; /* expected substring of the error */
};

static const struct bad_case bad_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", "bogus", "unknown routing 'bogus'" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:foo=1",
	  "routing 'ugal': unknown option 'foo' (known: intra)" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "min:intra=local",
	  "routing 'min': unknown option 'intra' (known: none)" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=far", "intra=far: must be" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=local,intra=global",
	  "given twice" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra",
	  "routing 'ugal:intra': bad option 'intra' (want key=value)" },
	{ "dragonfly:p=2,a=4,h=2,g=9", ":intra=local",
	  "routing ':intra=local': empty name (want NAME[:key=value,...])" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ksp:k=0",
	  "routing 'ksp': parameter k=0: must be in [1," },
	{ "dragonfly:p=2,a=4,h=2,g=9", "", "empty routing spec" },
	/* the list goes on with any generic graph routings */
	{ "dragonfly:p=2,a=4,h=2,g=9", "ecmp",
	  "routing 'ecmp' does not apply to dragonfly; use min, vlb" },
	{ "fattree:k=4,n=3", "ugal",
	  "routing 'ugal' does not apply to fattree" },
	{ "fattree:k=4,n=3", "dmodk:k=2",
	  "routing 'dmodk': unknown option 'k' (known: none)" },
};

/* The unknown-routing error lists exactly the registered routings, in
 * registry order: derived from the registry, not a second copy. */
Test(routing, unknown_routing_lists_the_registry)
{
	struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	const char *const *names = routing_names();
	char want[256] = "unknown routing 'zz' (known: ";
	struct err err = { 0 };
	size_t n = 0;

	for (; names[n]; n++) {
		strcat(want, n ? ", " : "");
		strcat(want, names[n]);
	}
	strcat(want, ")");
	cr_expect_str_eq(names[0], "min");
	cr_expect_null(routing_create(t, "zz", &err));
	cr_expect_str_eq(err.msg, want);
	topo_destroy(t);
}

ParameterizedTestParameters(routing, bad_specs)
{
	return cr_make_param_array(struct bad_case, bad_cases,
				   sizeof(bad_cases) / sizeof(bad_cases[0]));
}

ParameterizedTest(const struct bad_case *c, routing, bad_specs)
{
	struct topo *t = fx_topo(c->topo);
	struct err err = { 0 };
	struct routing *r = routing_create(t, c->routing, &err);

	cr_expect_null(r, "'%s' accepted", c->routing);
	cr_expect(strstr(err.msg, c->msg) != NULL, "'%s': got '%s', want '%s'",
		  c->routing, err.msg, c->msg);
	routing_destroy(r);
	topo_destroy(t);
}

Test(routing, bad_nodes)
{
	struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct routing *r = fx_routing(t, "ugal");
	struct err err = { 0 };
	struct routing_count c;
	struct pathset ps;
	uint32_t bad[] = { 1, 72 };
	uint8_t *u = calloc(topo_num_links(t), 1);

	pathset_init(&ps);
	cr_expect_eq(routing_paths(r, 3, 3, &ps, &err), -1);
	cr_expect(strstr(err.msg, "same node") != NULL, "%s", err.msg);
	cr_expect_eq(routing_count(r, 0, 72, &c, &err), -1);
	cr_expect(strstr(err.msg, "out of range") != NULL, "%s", err.msg);
	cr_expect_eq(routing_linkset(r, bad, 2, u, &err), -1);
	cr_expect_eq(ps.n, 0);
	pathset_free(&ps);
	free(u);
	routing_destroy(r);
	topo_destroy(t);
}

/* Path sets grow and clear correctly. */
Test(routing, pathset_basics)
{
	struct pathset ps;
	uint32_t l[3] = { 1, 2, 3 };

	pathset_init(&ps);
	for (int i = 0; i < 1000; i++)
		cr_assert_eq(pathset_add(&ps, l, (uint32_t)(i % 4), PATH_VLB),
			     0);
	cr_expect_eq(ps.n, 1000);
	cr_expect_eq(ps.off[1000], 1500);
	cr_expect_eq(ps.cls[999], PATH_VLB);
	pathset_clear(&ps);
	cr_expect_eq(ps.n, 0);
	cr_assert_eq(pathset_add(&ps, l, 3, PATH_MIN), 0);
	cr_expect_eq(ps.off[1], 3);
	cr_expect_eq(ps.links[2], 3);
	pathset_free(&ps);
	pathset_free(&ps);
}

/* ---- factored path sets against enumerated ones ---- */

/* Path I of PS as "class:sorted links" (what a path model sees). */
static char *path_key(const struct pathset *ps, uint32_t i,
		      const struct pathset *mid, uint32_t m)
{
	uint32_t l[2 * ROUTING_MAX_HOPS + 8], n = 0;
	size_t cap = 16 * (sizeof(l) / sizeof(l[0])), off;
	char *s = malloc(cap);

	cr_assert_not_null(s);
	for (uint32_t e = ps->off[i]; e < ps->off[i + 1]; e++)
		l[n++] = ps->links[e];
	for (uint32_t e = mid ? mid->off[m] : 0; mid && e < mid->off[m + 1];
	     e++)
		l[n++] = mid->links[e];
	for (uint32_t a = 1; a < n; a++)
		for (uint32_t b = a; b > 0 && l[b - 1] > l[b]; b--) {
			uint32_t x = l[b];

			l[b] = l[b - 1];
			l[b - 1] = x;
		}
	off = (size_t)snprintf(s, cap, "%u:", ps->cls[i]);
	for (uint32_t a = 0; a < n; a++)
		off += (size_t)snprintf(s + off, cap - off, "%u,", l[a]);
	return s;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct factor_case {
	char topo[48], routing[32];
	uint32_t stride; /* node pairs tried: one in STRIDE */
};

static const struct factor_case factor_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", 3 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb", 7 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global", 5 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb:intra=global", 11 },
	{ "dragonfly:p=1,a=4,h=2,g=5", "ugal", 1 }, /* 2 links per pair */
	{ "dragonfly:p=1,a=3,h=3,g=4", "vlb", 1 },  /* 3 links per pair */
	{ "dragonfly:p=1,a=4,h=2,g=4", "ugal", 1 }, /* uneven pairs */
	{ "dragonfly:p=1,a=2,h=2,g=3", "vlb", 1 },  /* no local intermediate */
	{ "dragonfly:p=1,a=3,h=1,g=2", "vlb", 1 },  /* no other group */
	{ "cascade:groups=3,pair=2", "ugal", 100003 },
	{ "cascade:groups=3,pair=2", "vlb:intra=global", 90001 },
};

ParameterizedTestParameters(routing, factored_equals_paths)
{
	return cr_make_param_array(struct factor_case, factor_cases,
				   sizeof(factor_cases) /
					   sizeof(factor_cases[0]));
}

/* Every stem times every middle of its key, as multisets of "class:
 * links", is exactly routing_paths' set, pair by pair. */
ParameterizedTest(const struct factor_case *c, routing, factored_equals_paths)
{
	struct topo *t = fx_topo(c->topo);
	struct routing *r = fx_routing(t, c->routing);
	uint32_t N = topo_num_nodes(t), pairs = 0, factored = 0;
	struct pathset ps, mid;
	struct stemset ss;
	struct err err = { 0 };

	pathset_init(&ps);
	pathset_init(&mid);
	stemset_init(&ss);
	cr_assert_gt(routing_middle_keys(r), 0);
	for (uint32_t s = 0; s < N; s++)
		for (uint32_t d = 0; d < N; d++) {
			char **want, **got;
			uint32_t ng = 0;

			if (s == d || (s * N + d) % c->stride)
				continue;
			pairs++;
			cr_assert_eq(routing_paths(r, s, d, &ps, &err), 0, "%s",
				     err.msg);
			cr_assert_eq(routing_stems(r, s, d, &ss, &err), 0, "%s",
				     err.msg);
			want = malloc(ps.n * sizeof(*want));
			got = malloc(ps.n * sizeof(*got));
			cr_assert(want && got);
			for (uint32_t i = 0; i < ps.n; i++)
				want[i] = path_key(&ps, i, NULL, 0);
			for (uint32_t i = 0; i < ss.p.n; i++) {
				if (ss.key[i] == ROUTING_NO_MIDDLE) {
					cr_assert_lt(ng, ps.n, "%u->%u", s, d);
					got[ng++] = path_key(&ss.p, i, NULL, 0);
					continue;
				}
				factored++;
				cr_assert_eq(routing_middles(r, ss.key[i], &mid,
							     &err),
					     0, "%s", err.msg);
				cr_assert_gt(mid.n, 0);
				for (uint32_t m = 0; m < mid.n; m++) {
					cr_assert_lt(ng, ps.n,
						     "%u->%u: too many", s, d);
					got[ng++] = path_key(&ss.p, i, &mid, m);
				}
			}
			cr_assert_eq(ng, ps.n,
				     "%s %s %u->%u: %u paths, want %u", c->topo,
				     c->routing, s, d, ng, ps.n);
			qsort(want, ps.n, sizeof(*want), cmp_str);
			qsort(got, ng, sizeof(*got), cmp_str);
			for (uint32_t i = 0; i < ng; i++)
				cr_assert_str_eq(got[i], want[i],
						 "%s %s %u->%u path %u",
						 c->topo, c->routing, s, d, i);
			for (uint32_t i = 0; i < ng; i++) {
				free(want[i]);
				free(got[i]);
			}
			free(want);
			free(got);
		}
	cr_expect_gt(pairs, 10);
	/* g = 2 has no intermediate group: nothing to factor there */
	if (strcmp(c->topo, "dragonfly:p=1,a=3,h=1,g=2"))
		cr_expect_gt(factored, 0, "no stem had a middle (vacuous)");
	pathset_free(&ps);
	pathset_free(&mid);
	stemset_free(&ss);
	routing_destroy(r);
	topo_destroy(t);
}

/* Routings without factored sets say so; bad keys are errors. */
Test(routing, factored_errors)
{
	struct topo *t = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct routing *mn = fx_routing(t, "min");
	struct routing *ug = fx_routing(t, "ugal");
	struct stemset ss;
	struct pathset mid;
	struct err err = { 0 };

	stemset_init(&ss);
	pathset_init(&mid);
	cr_expect_eq(routing_middle_keys(mn), 0);
	cr_expect_eq(routing_stems(mn, 0, 9, &ss, &err), -1);
	cr_expect_str_eq(err.msg, "routing min gives no factored path sets");
	/* 36 routers, groups of 4: keys v * 4 + index of u */
	cr_expect_eq(routing_middle_keys(ug), 36 * 4);
	cr_expect_eq(routing_middles(ug, 36 * 4, &mid, &err), -1);
	cr_expect_str_eq(err.msg, "middle key 144 out of range (144 keys)");
	cr_expect_eq(routing_stems(ug, 0, 72, &ss, &err), -1);
	cr_expect(strstr(err.msg, "out of range") != NULL, "%s", err.msg);
	/* same switch: one stem, no middle */
	cr_assert_eq(routing_stems(ug, 0, 1, &ss, &err), 0, "%s", err.msg);
	cr_expect_eq(ss.p.n, 1);
	cr_expect_eq(ss.key[0], ROUTING_NO_MIDDLE);
	/* key (router 4, router 5 = index 1 of group 1): one segment per
	 * intermediate I = 4, 5, 6, 7: 4->5 (I = v), 4->5 (I = u), 4->6->5,
	 * 4->7->5 */
	cr_assert_eq(routing_middles(ug, 4 * 4 + 1, &mid, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(mid.n, 4);
	for (uint32_t m = 0; m < mid.n; m++)
		cr_expect_eq(mid.off[m + 1] - mid.off[m], m < 2 ? 1u : 2u,
			     "segment %u", m);
	stemset_free(&ss);
	pathset_free(&mid);
	routing_destroy(mn);
	routing_destroy(ug);
	topo_destroy(t);
}
