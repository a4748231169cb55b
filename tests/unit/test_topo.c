/* test_topo.c - topology families: counts, degrees, symmetry,
 * connectivity, groups/pods, the wiring rules, jellyfish regularity and
 * reproducibility, Table I of paper 003, and every spec parse error.
 * topo_check runs on every instance. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"
#include "topo/util/limits.h"
#include "tests/unit/fixtures.h"

/* Radix of SW from the accessors: node ports + outgoing switch links. */
static uint32_t radix(const struct topo *t, uint32_t sw)
{
	uint32_t nn, no;

	topo_switch_nodes(t, sw, &nn);
	topo_switch_out(t, sw, &no);
	return nn + no;
}

/* Union-find connectivity of the switch graph (a second algorithm next to
 * topo_stats' BFS). */
static uint32_t find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

static bool uf_connected(const struct topo *t)
{
	uint32_t S = topo_num_switches(t), comps = S;
	uint32_t *up = malloc(S * sizeof(*up));

	for (uint32_t s = 0; s < S; s++)
		up[s] = s;
	for (uint32_t l = topo_first_switch_link(t); l < topo_num_links(t);
	     l++) {
		uint32_t a = find(up, topo_link(t, l)->from);
		uint32_t b = find(up, topo_link(t, l)->to);

		if (a != b) {
			up[a] = b;
			comps--;
		}
	}
	free(up);
	return comps <= 1;
}

/* Every switch link has a reverse with swapped ends and equal capacity,
 * and a->b has as many parallel links as b->a. */
static void check_symmetry(const struct topo *t, const char *spec)
{
	for (uint32_t l = topo_first_switch_link(t); l < topo_num_links(t);
	     l++) {
		const struct topo_link *lk = topo_link(t, l);
		const struct topo_link *rv = topo_link(t, lk->reverse);
		uint32_t n1, n2;

		cr_assert_eq(rv->from, lk->to, "%s link %u", spec, l);
		cr_assert_eq(rv->to, lk->from, "%s link %u", spec, l);
		cr_assert_eq(rv->capacity, lk->capacity, "%s link %u", spec, l);
		topo_link_between(t, lk->from, lk->to, &n1);
		topo_link_between(t, lk->to, lk->from, &n2);
		cr_assert_eq(n1, n2, "%s link %u parallel count", spec, l);
	}
}

struct count_case {
	char spec[64];
	uint32_t nodes, switches, switch_links, groups;
	uint32_t radix_min, radix_max, diameter;
	uint32_t unconnected;
	double avg_hops; /* < 0: not hand-computed */
	uint32_t per;	 /* node i sits on switch i / per */
};

#define NOT_HAND UINT32_MAX /* diameter not hand-computed (jellyfish) */

/* Hand-computed.
 * dfly(p,a,h,g): p*a*g nodes, a*g switches, g*a(a-1) local directed links,
 * a*g*h global directed links when g-1 divides a*h; radix p+(a-1)+h.
 *   (1,4,2,4): a*h=8, g-1=3: copies c=0,1 complete, copy 2 (ports 6,7)
 *   exists on groups 0..2 only (landing port 6+i' needs i' <= 1), so group
 *   3's ports 6 and 7 (router 3) are unconnected: 2 ports; global cables
 *   6 pairs * 2 + 3 pairs (01,02,12) = 15 -> 30 directed; radix 4..6.
 *   (1,2,2,2): the 4-cycle 0-1-3-2 with doubled global cables: avg 4/3.
 *   (2,3,1,1): one group, its 3 global ports unconnected.
 * k-ary n-tree: k^n nodes, n*k^(n-1) switches, 2*(n-1)*k^n directed
 * switch links; leaf radix 2k, top radix k; k=3,n=2 is K(3,3) plus
 * nodes: avg (3*1+2*2)/5.
 * cascade: 96 routers, 384 nodes per group; per group 6*C(16,2) row +
 * 16*C(6,2) column cables = 960 -> 1920 directed; radix 4+15+5 (+ global
 * ports: (groups-1)*pair per group on routers t mod 96); one group: 20
 * neighbours at 1 hop, 75 at 2: avg 170/95.
 * jellyfish(n,r,p): n*(r-p) directed switch links, radix r. */
static const struct count_case counts[] = {
	{ .spec = "dragonfly:p=2,a=4,h=2,g=9",
	  .nodes = 72,
	  .switches = 36,
	  .switch_links = 9 * 12 + 36 * 2,
	  .groups = 9,
	  .radix_min = 7,
	  .radix_max = 7,
	  .diameter = 3,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 2 },
	{ .spec = "dragonfly:p=1,a=2,h=1,g=3",
	  .nodes = 6,
	  .switches = 6,
	  .switch_links = 3 * 2 + 6,
	  .groups = 3,
	  .radix_min = 3,
	  .radix_max = 3,
	  .diameter = 3,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 1 },
	{ .spec = "dragonfly:p=2,a=4,h=2,g=5",
	  .nodes = 40,
	  .switches = 20,
	  .switch_links = 5 * 12 + 5 * 8,
	  .groups = 5,
	  .radix_min = 7,
	  .radix_max = 7,
	  .diameter = 3,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 2 },
	{ .spec = "dragonfly:p=1,a=4,h=2,g=4",
	  .nodes = 16,
	  .switches = 16,
	  .switch_links = 4 * 12 + 30,
	  .groups = 4,
	  .radix_min = 4,
	  .radix_max = 6,
	  .diameter = 3,
	  .unconnected = 2,
	  .avg_hops = -1,
	  .per = 1 },
	{ .spec = "dragonfly:p=1,a=2,h=2,g=2",
	  .nodes = 4,
	  .switches = 4,
	  .switch_links = 2 * 2 + 8,
	  .groups = 2,
	  .radix_min = 4,
	  .radix_max = 4,
	  .diameter = 2,
	  .unconnected = 0,
	  .avg_hops = 4.0 / 3,
	  .per = 1 },
	{ .spec = "dragonfly:p=2,a=3,h=1,g=1",
	  .nodes = 6,
	  .switches = 3,
	  .switch_links = 6,
	  .groups = 1,
	  .radix_min = 4,
	  .radix_max = 4,
	  .diameter = 1,
	  .unconnected = 3,
	  .avg_hops = 1.0,
	  .per = 2 },
	{ .spec = "fattree:k=4,n=3",
	  .nodes = 64,
	  .switches = 48,
	  .switch_links = 2 * 2 * 64,
	  .groups = 4,
	  .radix_min = 4,
	  .radix_max = 8,
	  .diameter = 4,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 4 },
	{ .spec = "fattree:k=2,n=2",
	  .nodes = 4,
	  .switches = 4,
	  .switch_links = 2 * 4,
	  .groups = 1,
	  .radix_min = 2,
	  .radix_max = 4,
	  .diameter = 2,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 2 },
	{ .spec = "fattree:k=3,n=2",
	  .nodes = 9,
	  .switches = 6,
	  .switch_links = 2 * 9,
	  .groups = 1,
	  .radix_min = 3,
	  .radix_max = 6,
	  .diameter = 2,
	  .unconnected = 0,
	  .avg_hops = 7.0 / 5,
	  .per = 3 },
	{ .spec = "fattree:k=4,n=1",
	  .nodes = 4,
	  .switches = 1,
	  .switch_links = 0,
	  .groups = 0,
	  .radix_min = 4,
	  .radix_max = 4,
	  .diameter = 0,
	  .unconnected = 0,
	  .avg_hops = 0.0,
	  .per = 4 },
	{ .spec = "cascade:groups=1",
	  .nodes = 384,
	  .switches = 96,
	  .switch_links = 1920,
	  .groups = 1,
	  .radix_min = 24,
	  .radix_max = 24,
	  .diameter = 2,
	  .unconnected = 0,
	  .avg_hops = 170.0 / 95,
	  .per = 4 },
	{ .spec = "cascade:groups=2,pair=4",
	  .nodes = 768,
	  .switches = 192,
	  .switch_links = 2 * 1920 + 8,
	  .groups = 2,
	  .radix_min = 24,
	  .radix_max = 25,
	  .diameter = 5,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 4 },
	{ .spec = "cascade",
	  .nodes = 2304,
	  .switches = 576,
	  .switch_links = 6 * 1920 + 6 * 5 * 24,
	  .groups = 6,
	  .radix_min = 25,
	  .radix_max = 26,
	  .diameter = 4,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 4 },
	{ .spec = "jellyfish:n=64,r=6,p=1,seed=1",
	  .nodes = 64,
	  .switches = 64,
	  .switch_links = 64 * 5,
	  .groups = 0,
	  .radix_min = 6,
	  .radix_max = 6,
	  .diameter = NOT_HAND,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 1 },
	{ .spec = "jellyfish:n=5,r=5,p=1",
	  .nodes = 5,
	  .switches = 5,
	  .switch_links = 5 * 4,
	  .groups = 0,
	  .radix_min = 5,
	  .radix_max = 5,
	  .diameter = 1,
	  .unconnected = 0,
	  .avg_hops = 1.0,
	  .per = 1 },
	{ .spec = "jellyfish:n=50,r=10,p=5,seed=9",
	  .nodes = 250,
	  .switches = 50,
	  .switch_links = 50 * 5,
	  .groups = 0,
	  .radix_min = 10,
	  .radix_max = 10,
	  .diameter = NOT_HAND,
	  .unconnected = 0,
	  .avg_hops = -1,
	  .per = 5 },
};

static void check_counts(const struct count_case *c)
{
	struct topo *t = fx_topo(c->spec);
	struct topo_stats st;

	cr_expect_eq(topo_num_nodes(t), c->nodes, "%s nodes", c->spec);
	cr_expect_eq(topo_num_switches(t), c->switches, "%s switches", c->spec);
	cr_expect_eq(topo_num_links(t), 2 * c->nodes + c->switch_links,
		     "%s links %u", c->spec, topo_num_links(t));
	cr_expect_eq(topo_num_groups(t), c->groups, "%s groups", c->spec);
	cr_assert_eq(topo_stats(t, &st, NULL), 0);
	cr_expect_eq(st.radix_min, c->radix_min, "%s radix_min %u", c->spec,
		     st.radix_min);
	cr_expect_eq(st.radix_max, c->radix_max, "%s radix_max %u", c->spec,
		     st.radix_max);
	if (c->diameter != NOT_HAND)
		cr_expect_eq(st.diameter, c->diameter, "%s diameter %u",
			     c->spec, st.diameter);
	cr_expect_eq(st.unconnected_ports, c->unconnected, "%s unconnected %u",
		     c->spec, st.unconnected_ports);
	if (c->avg_hops >= 0)
		cr_expect_float_eq(st.avg_hops, c->avg_hops, 1e-12, "%s avg %f",
				   c->spec, st.avg_hops);
	cr_expect(st.connected, "%s", c->spec);
	cr_expect(uf_connected(t), "%s", c->spec);
	check_symmetry(t, c->spec);
	for (uint32_t i = 0; i < topo_num_nodes(t); i++)
		cr_assert_eq(topo_node_switch(t, i), i / c->per, "%s node %u",
			     c->spec, i);
	topo_destroy(t);
}

/* One process for the whole table (valgrind runs each test process). */
Test(topo, counts)
{
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		check_counts(&counts[i]);
}

/* Every dragonfly router: a-1 local links to its own group and h global
 * links; every pair of groups is joined by a*h/(g-1) cables (g-1 divides
 * a*h in these five configurations, paper 002 Table 3 and Fig. 1). */
Test(topo, dragonfly_degrees_and_pairs)
{
	static const struct {
		char spec[48];
		long a, h, g;
	} cs[] = {
		{ .spec = "dragonfly:p=2,a=4,h=2,g=9", .a = 4, .h = 2, .g = 9 },
		{ .spec = "dragonfly:p=2,a=4,h=2,g=5", .a = 4, .h = 2, .g = 5 },
		{ .spec = "dragonfly:p=3,a=6,h=3,g=19",
		  .a = 6,
		  .h = 3,
		  .g = 19 },
		{ .spec = "dragonfly:p=5,a=10,h=5,g=26",
		  .a = 10,
		  .h = 5,
		  .g = 26 },
		{ .spec = "dragonfly:p=5,a=10,h=5,g=6",
		  .a = 10,
		  .h = 5,
		  .g = 6 },
	};

	for (size_t k = 0; k < sizeof(cs) / sizeof(cs[0]); k++) {
		struct topo *t = fx_topo(cs[k].spec);
		long a = cs[k].a, h = cs[k].h, g = cs[k].g;
		uint32_t *pair = calloc((size_t)(g * g), sizeof(*pair));

		for (uint32_t s = 0; s < topo_num_switches(t); s++) {
			uint32_t cnt, first = topo_switch_out(t, s, &cnt);
			uint32_t loc = 0, glob = 0;

			cr_assert_eq(topo_switch_group(t, s), s / a);
			for (uint32_t l = first; l < first + cnt; l++) {
				const struct topo_link *lk = topo_link(t, l);

				if (lk->kind == TOPO_LINK_LOCAL) {
					cr_assert_eq(lk->to / a, s / a);
					loc++;
				} else {
					cr_assert_eq(lk->kind,
						     TOPO_LINK_GLOBAL);
					cr_assert_neq(lk->to / a, s / a);
					glob++;
					pair[(s / a) * g + lk->to / a]++;
				}
			}
			cr_expect_eq(loc, a - 1, "%s sw %u", cs[k].spec, s);
			cr_expect_eq(glob, h, "%s sw %u", cs[k].spec, s);
		}
		for (long i = 0; i < g; i++)
			for (long j = 0; j < g; j++)
				cr_expect_eq(pair[i * g + j],
					     i == j ? 0 : (a * h) / (g - 1),
					     "%s groups %ld-%ld", cs[k].spec, i,
					     j);
		free(pair);
		topo_destroy(t);
	}
}

/* The global port rule of issue 2 on dfly(1,4,2,4), by hand: group 0's
 * port t=0 (router 0) -> group 1, copy 0, landing port 0 (router 4);
 * port t=3 (router 1) -> k=0, group 1, copy 1, landing port 3 (router
 * 5); port t=7 (router 3) -> k=1, group 2, copy 2, landing 6 (router 11).
 * Group 3 router 3 (switch 15) has no global link. */
Test(topo, dragonfly_port_rule)
{
	struct topo *t = fx_topo("dragonfly:p=1,a=4,h=2,g=4");
	uint32_t cnt;

	cr_expect_neq(topo_link_between(t, 0, 4, &cnt), TOPO_NONE);
	cr_expect_neq(topo_link_between(t, 1, 5, &cnt), TOPO_NONE);
	cr_expect_neq(topo_link_between(t, 3, 11, &cnt), TOPO_NONE);
	topo_switch_out(t, 15, &cnt);
	cr_expect_eq(cnt, 3, "switch 15 has only its 3 local links");
	topo_destroy(t);
}

/* Fat-tree: levels, up-link rule, pods (a pod's leaves connect only to
 * level-1 switches of the same pod). */
Test(topo, fattree_pods_and_levels)
{
	struct topo *t = fx_topo("fattree:k=4,n=3");

	cr_assert_eq(topo_num_groups(t), 4);
	for (uint32_t s = 0; s < 48; s++) {
		uint32_t cnt, first = topo_switch_out(t, s, &cnt);

		cr_expect_eq(topo_switch_level(t, s), s / 16);
		cr_expect_eq(topo_switch_group(t, s),
			     s < 32 ? (s % 16) / 4 : TOPO_NONE, "sw %u", s);
		for (uint32_t l = first; l < first + cnt; l++) {
			const struct topo_link *lk = topo_link(t, l);
			uint32_t w = s % 16, v = lk->to % 16;

			if (lk->kind == TOPO_LINK_UP) {
				uint32_t lev = s / 16, pw = lev ? 4 : 1;

				cr_expect_eq(lk->to / 16, lev + 1);
				/* differs only in base-k digit lev */
				cr_expect_eq(w - (w / pw) % 4 * pw,
					     v - (v / pw) % 4 * pw);
			} else {
				cr_expect_eq(lk->kind, TOPO_LINK_DOWN);
			}
			if (s < 16)
				cr_expect_eq(topo_switch_group(t, lk->to),
					     topo_switch_group(t, s));
		}
	}
	/* leaf 5 (pod 1) links to level-1 switches 4..7 (ids 20..23) */
	for (uint32_t u = 20; u < 24; u++) {
		uint32_t cnt;

		cr_expect_neq(topo_link_between(t, 5, u, &cnt), TOPO_NONE);
	}
	/* level-1 switch 5 (id 21) links to level-2 switches 1,5,9,13 */
	for (uint32_t u = 1; u < 16; u += 4) {
		uint32_t cnt;

		cr_expect_neq(topo_link_between(t, 21, 32 + u, &cnt), TOPO_NONE,
			      "21 -> %u", 32 + u);
	}
	topo_destroy(t);
}

/* Cascade: rows all-to-all capacity 1, columns capacity 3, global ports
 * on routers t mod 96: with 6 groups and pair 24, 120 ports per group, so
 * routers 0..23 have two global links and the others one; each pair of
 * groups has 24 cables on 24 distinct routers of each side. */
Test(topo, cascade_structure)
{
	struct topo *t = fx_topo("cascade");
	uint32_t pair[6][6] = { { 0 } };

	for (uint32_t s = 0; s < 576; s++) {
		uint32_t cnt, first = topo_switch_out(t, s, &cnt);
		uint32_t row = 0, col = 0, glob = 0, r = s % 96;
		uint32_t seen[6] = { 0 };

		cr_assert_eq(topo_switch_group(t, s), s / 96);
		for (uint32_t l = first; l < first + cnt; l++) {
			const struct topo_link *lk = topo_link(t, l);
			uint32_t r2 = lk->to % 96;

			if (lk->kind == TOPO_LINK_GLOBAL) {
				glob++;
				pair[s / 96][lk->to / 96]++;
				seen[lk->to / 96]++;
			} else if (r2 / 16 == r / 16) {
				cr_expect_eq(lk->capacity, 1.0);
				row++;
			} else {
				cr_expect_eq(r2 % 16, r % 16);
				cr_expect_eq(lk->capacity, 3.0);
				col++;
			}
		}
		cr_expect_eq(row, 15, "sw %u", s);
		cr_expect_eq(col, 5, "sw %u", s);
		cr_expect_eq(glob, r < 24 ? 2 : 1, "sw %u", s);
		for (int g = 0; g < 6; g++)
			cr_expect_leq(seen[g], 1,
				      "sw %u: two cables to "
				      "group %d",
				      s, g);
	}
	for (int i = 0; i < 6; i++)
		for (int j = 0; j < 6; j++)
			cr_expect_eq(pair[i][j], i == j ? 0 : 24);
	topo_destroy(t);
}

/* The block wiring worked by hand for cascade:groups=3,block=8,bundle=2:
 * two blocks a chassis (slots 0-7, 8-15); group i's k-th other group (k =
 * j, or j-1 above i) takes block k mod 2, so in every row r and slot p of
 * a block: (0, r, p) - (1, r, p), (0, r, 8+p) - (2, r, p), (1, r, 8+p) -
 * (2, r, 8+p), each one link of capacity 2 (the bundle); 6 x 8 x 2 = 96
 * cables (48 links) between two groups, one global link per router. */
Test(topo, cascade_block_wiring)
{
	struct topo *t = fx_topo("cascade:groups=3,block=8,bundle=2");
	static const uint32_t ends[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
	static const uint32_t slot[3][2] = { { 0, 0 }, { 8, 0 }, { 8, 8 } };

	cr_expect_eq(topo_param_int(t, "pair"), 96);
	for (uint32_t s = 0; s < 288; s++) {
		uint32_t cnt, first = topo_switch_out(t, s, &cnt), glob = 0;

		for (uint32_t l = first; l < first + cnt; l++)
			glob += topo_link(t, l)->kind == TOPO_LINK_GLOBAL;
		cr_expect_eq(glob, 1, "switch %u", s);
	}
	for (int e = 0; e < 3; e++)
		for (uint32_t r = 0; r < 6; r++)
			for (uint32_t p = 0; p < 8; p++) {
				uint32_t a = ends[e][0] * 96 + r * 16 +
					     slot[e][0] + p;
				uint32_t b = ends[e][1] * 96 + r * 16 +
					     slot[e][1] + p;
				uint32_t cnt,
					l = topo_link_between(t, a, b, &cnt);

				cr_assert_neq(l, TOPO_NONE, "%u-%u", a, b);
				cr_expect_eq(cnt, 1);
				cr_expect_eq(topo_link(t, l)->capacity, 2.0);
				cr_expect_eq(topo_link(t, l)->kind,
					     TOPO_LINK_GLOBAL);
			}
	topo_destroy(t);
}

Test(topo, cascade_capacities)
{
	struct topo *t = fx_topo("cascade:groups=2,pair=2,local=2,column=5,"
				 "global=7,inject=9");

	for (uint32_t l = 0; l < topo_num_links(t); l++) {
		const struct topo_link *lk = topo_link(t, l);
		double want;

		if (lk->kind == TOPO_LINK_INJECT || lk->kind == TOPO_LINK_EJECT)
			want = 9;
		else if (lk->kind == TOPO_LINK_GLOBAL)
			want = 7;
		else if (lk->from % 96 / 16 == lk->to % 96 / 16)
			want = 2;
		else
			want = 5;
		cr_assert_eq(lk->capacity, want, "link %u", l);
	}
	topo_destroy(t);
}

static bool same_links(const struct topo *a, const struct topo *b)
{
	if (topo_num_links(a) != topo_num_links(b))
		return false;
	for (uint32_t l = 0; l < topo_num_links(a); l++)
		if (topo_link(a, l)->from != topo_link(b, l)->from ||
		    topo_link(a, l)->to != topo_link(b, l)->to)
			return false;
	return true;
}

/* Jellyfish: simple (no parallel cables), (r-p)-regular, connected,
 * reproducible from the seed, different for another seed. */
Test(topo, jellyfish_regular_and_reproducible)
{
	static const char *const specs[] = {
		"jellyfish:n=216,r=6,p=1,seed=7",
		"jellyfish:n=64,r=6,p=1",
		"jellyfish:n=6,r=6,p=1,seed=3",	 /* complete graph K6 */
		"jellyfish:n=10,r=9,p=1,seed=5", /* d = n-2 */
		"jellyfish:n=2,r=2,p=1",
		"jellyfish:n=100,r=4,p=1,seed=18446744073709551615",
	};

	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		struct topo *t = fx_topo(specs[k]), *u = fx_topo(specs[k]);
		long n = topo_param_int(t, "n"), r = topo_param_int(t, "r");
		long p = topo_param_int(t, "p");

		cr_assert_eq(topo_num_switches(t), n);
		for (uint32_t s = 0; s < n; s++) {
			uint32_t cnt, first = topo_switch_out(t, s, &cnt);

			cr_expect_eq(cnt, r - p, "%s sw %u", specs[k], s);
			for (uint32_t l = first + 1; l < first + cnt; l++)
				cr_expect_neq(topo_link(t, l)->to,
					      topo_link(t, l - 1)->to,
					      "%s: parallel cable", specs[k]);
		}
		cr_expect(uf_connected(t), "%s", specs[k]);
		cr_expect(same_links(t, u), "%s not reproducible", specs[k]);
		topo_destroy(t);
		topo_destroy(u);
	}
}

Test(topo, jellyfish_seed_matters)
{
	struct topo *a = fx_topo("jellyfish:n=64,r=6,p=1,seed=1");
	struct topo *b = fx_topo("jellyfish:n=64,r=6,p=1,seed=2");

	cr_expect(!same_links(a, b));
	topo_destroy(a);
	topo_destroy(b);
}

/* Paper 003 Table I: fat-tree radix 44, 10,648 nodes; dragonfly radix 29
 * (p + a-1 + h = 7+14+8), 11,130 nodes, 106 groups of 15 routers.  Radix
 * from the accessors here, not topo_stats. */
Test(topo, table1)
{
	struct topo *ft = fx_topo("fattree:k=22,n=3");
	struct topo *df = fx_topo("dragonfly:p=7,a=15,h=8,g=106");
	uint32_t mx = 0;

	cr_expect_eq(topo_num_nodes(ft), 10648);
	for (uint32_t s = 0; s < topo_num_switches(ft); s++)
		mx = radix(ft, s) > mx ? radix(ft, s) : mx;
	cr_expect_eq(mx, 44);
	cr_expect_eq(topo_num_nodes(df), 11130);
	cr_expect_eq(topo_num_groups(df), 106);
	cr_expect_eq(topo_num_switches(df), 106 * 15);
	mx = 0;
	for (uint32_t s = 0; s < topo_num_switches(df); s++)
		mx = radix(df, s) > mx ? radix(df, s) : mx;
	cr_expect_eq(mx, 29);
	/* 120 ports, 105 other groups: groups 16..105 cannot pair their 15
	 * second-copy ports (see dragonfly_port_rule): 90 * 15 ports short of
	 * the nominal radix 29, router 14 of those groups down to 21 */
	{
		uint32_t missing = 0, mn = UINT32_MAX;

		for (uint32_t s = 0; s < topo_num_switches(df); s++) {
			missing += 29 - radix(df, s);
			mn = radix(df, s) < mn ? radix(df, s) : mn;
		}
		cr_expect_eq(missing, 1350);
		cr_expect_eq(mn, 21);
	}
	topo_destroy(ft);
	topo_destroy(df);
}

struct bad_case {
	char spec[128];
	char msg[160]; /* expected substring of the error */
};

static const struct bad_case bad[] = {
	{ "", "empty topology spec" },
	{ "nosuch:p=1", "unknown topology family 'nosuch' (known: dragonfly, "
			"cascade, " },
	{ ":p=1", "topology ':p=1': empty name (want NAME[:key=value,...])" },
	{ "dragonfly:p=2,zz=3", "dragonfly: unknown parameter 'zz' (known: p, "
				"a, h, g, inject, local, global)" },
	{ "dragonfly:p=x", "parameter p=x: not an integer" },
	{ "dragonfly:p=0", "parameter p=0: must be in [1," },
	{ "dragonfly:p=2,p=3", "parameter 'p' given twice" },
	{ "dragonfly:a=4,h=2,g=10", "g=10 exceeds a*h+1=9" },
	{ "dragonfly:p", "bad parameter 'p' (want key=value)" },
	{ "dragonfly:p=", "bad parameter 'p=' (empty value)" },
	{ "dragonfly:inject=0",
	  "parameter inject=0: want a number above 0, at most 1e12" },
	{ "dragonfly:inject=1e13",
	  "parameter inject=1e13: want a number above 0, at most 1e12" },
	{ "dragonfly:global=-1", "parameter global=-1: want a number above" },
	{ "dragonfly:k0=1,k1=1,k2=1,k3=1,k4=1,k5=1,k6=1,k7=1,k8=1,k9=1,k10=1,"
	  "k11=1,k12=1,k13=1,k14=1,k15=1,k16=1",
	  "too many parameters (at most 16)" },
	{ "fattree:k=2,n=17", "parameter n=17: must be in [1, 16]" },
	{ "fattree:k=1000,n=4",
	  "switches: 4000000000 exceeds the limit switches=1048576" },
	{ "cascade:groups=100", "exceeds 960" },
	{ "cascade:groups=0", "parameter groups=0: must be in" },
	{ "cascade:pair=0", "parameter pair=0: must be in" },
	{ "cascade:column=x",
	  "parameter column=x: want a number above 0, at most 1e12" },
	{ "cascade:block=3", "block=3: must divide the 16 slots of a chassis" },
	{ "cascade:bundle=2", "bundle= needs block=" },
	{ "cascade:groups=15,block=2,bundle=2,pair=48",
	  "pair=48, but block=2,bundle=2 wire 24 cables between two groups" },
	{ "cascade:groups=30,block=16",
	  "a router serves 29 groups, 1 cable each: more than its 10 global "
	  "ports" },
	{ "jellyfish:n=5,r=4,p=1", "is odd" },
	{ "jellyfish:n=4,r=5,p=1", "need n > 4 switches" },
	{ "jellyfish:r=4,p=4", "p=4 leaves no switch ports" },
	{ "jellyfish:seed=-1", "seed=-1: not an unsigned integer" },
	{ "jellyfish:seed=1x", "seed=1x: not an unsigned integer" },
	{ "jellyfish:k=3", "jellyfish: unknown parameter 'k' (known: n, r, p, "
			   "seed, inject, link)" },
	{ "torus:gap=2", "torus: unknown parameter 'gap' (known: dims, p, "
			 "inject, link)" },
	/* specs only: a path is not a family (files are the machine's) */
	{ "/nonexistent/topo.conf",
	  "unknown topology family '/nonexistent/topo.conf'" },
};

Test(topo, parse_errors)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_case *c = &bad[i];
		struct err err = { 0 };
		struct topo *t = topo_create(c->spec, &err);

		cr_assert_null(t, "'%s' accepted", c->spec);
		cr_expect(strstr(err.msg, c->msg) != NULL,
			  "'%s': got '%s', want '%s'", c->spec, err.msg,
			  c->msg);
	}
}

Test(topo, spec_forms)
{
	struct topo *a = fx_topo("dragonfly:p=2,a=4,h=2,g=9");
	struct topo *b = fx_topo("dragonfly p=2 a=4 h=2 g=9");
	struct topo *c = fx_topo("dragonfly");

	cr_expect_str_eq(topo_spec(a), "dragonfly:p=2,a=4,h=2,g=9");
	cr_expect_str_eq(topo_spec(b), "dragonfly:p=2,a=4,h=2,g=9");
	cr_expect(same_links(a, b));
	/* defaults: p=2, a=4, h=2, g=a*h+1 */
	cr_expect(same_links(a, c));
	cr_expect_eq(topo_param_int(a, "g"), 9);
	cr_expect_eq(topo_param_int(a, "zz"), -1);
	cr_expect_str_eq(topo_family(a), "dragonfly");
	cr_expect_eq(topo_kind(a), TOPO_DRAGONFLY);
	topo_destroy(a);
	topo_destroy(b);
	topo_destroy(c);
}

/* Defaults are parameters too: topo_param_int and topo_params see them,
 * in the family's key order; the spec keeps what was given. */
Test(topo, default_parameters)
{
	struct topo *t = fx_topo("dragonfly:h=1,p=3");
	struct topo *f = fx_topo("fattree");
	struct topo *j = fx_topo("jellyfish:n=8,r=4");
	const struct topo_param *ps;
	size_t n = topo_params(t, &ps);
	static const char *const want[][2] = {
		{ "p", "3" },	   { "a", "4" },      { "h", "1" },
		{ "g", "5" },	   { "inject", "1" }, { "local", "1" },
		{ "global", "1" },
	};

	cr_expect_str_eq(topo_spec(t), "dragonfly:h=1,p=3");
	cr_assert_eq(n, 7);
	for (size_t i = 0; i < n; i++) {
		cr_expect_str_eq(ps[i].key, want[i][0]);
		cr_expect_str_eq(ps[i].value, want[i][1]);
	}
	cr_expect_eq(topo_param_int(t, "g"), 5);
	cr_expect_eq(topo_param_int(f, "k"), 4);
	cr_expect_eq(topo_param_int(f, "n"), 3);
	cr_expect_eq(topo_param_int(j, "p"), 1);
	cr_expect_eq(topo_param_int(j, "seed"), 1);
	topo_destroy(t);
	topo_destroy(f);
	topo_destroy(j);
}

/* The unknown-family error lists exactly the registered families, in
 * registry order: the list is derived, not a second copy. */
Test(topo, unknown_family_lists_the_registry)
{
	const char *const *names = topo_family_names();
	char want[256] = "unknown topology family 'zz' (known: ";
	struct err err = { 0 };
	size_t n = 0;

	for (; names[n]; n++) {
		strcat(want, n ? ", " : "");
		strcat(want, names[n]);
	}
	strcat(want, ")");
	cr_expect_str_eq(names[0], "dragonfly");
	cr_expect_null(topo_create("zz", &err));
	cr_expect_str_eq(err.msg, want);
}

/* Every table default is a parameter, torus' dims=4x4x4 included (which
 * topo_params left out before the option tables). */
Test(topo, table_defaults_are_parameters)
{
	struct topo *t = fx_topo("torus:p=2");
	const struct topo_param *ps;
	size_t n = topo_params(t, &ps);

	cr_assert_eq(n, 4);
	cr_expect_str_eq(ps[0].key, "dims");
	cr_expect_str_eq(ps[0].value, "4x4x4");
	cr_expect_str_eq(ps[1].value, "2");
	cr_expect_str_eq(topo_spec(t), "torus:p=2");
	topo_destroy(t);
}

Test(topo, family_names)
{
	const char *const *names = topo_family_names();
	static const char *const want[] = { "dragonfly", "cascade", "fattree",
					    "jellyfish" };

	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		bool found = false;

		for (size_t i = 0; names[i]; i++)
			found |= !strcmp(names[i], want[k]);
		cr_expect(found, "%s not registered", want[k]);
	}
}

Test(topo, destroy_null)
{
	topo_destroy(NULL);
}

/* ---- statistics by symmetry and by sampling; size limits ---- */

/* All-pairs distances the slow way (a BFS per switch over the accessors,
 * Floyd-free but independent of topo_stats' adjacency copy): the sum over
 * ordered distinct reachable pairs, their count and the diameter. */
static void ref_stats(const struct topo *t, long double *sum, uint64_t *pairs,
		      uint32_t *diam)
{
	uint32_t S = topo_num_switches(t);
	uint32_t *d = malloc(S * sizeof(*d)), *q = malloc(S * sizeof(*q));

	*sum = 0;
	*pairs = 0;
	*diam = 0;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t h = 0, tl = 0;

		for (uint32_t v = 0; v < S; v++)
			d[v] = UINT32_MAX;
		d[s] = 0;
		q[tl++] = s;
		while (h < tl) {
			uint32_t u = q[h++], n;
			uint32_t first = topo_switch_out(t, u, &n);

			for (uint32_t k = 0; k < n; k++) {
				uint32_t v = topo_link(t, first + k)->to;

				if (d[v] == UINT32_MAX) {
					d[v] = d[u] + 1;
					q[tl++] = v;
					*sum += d[v];
					++*pairs;
					if (d[v] > *diam)
						*diam = d[v];
				}
			}
		}
	}
	free(d);
	free(q);
}

/* Orbits of the torus, the hyperx and the k-ary n-tree: the weighted
 * BFS from one switch per orbit equals the all-pairs values. */
Test(topo, stats_by_symmetry_equal_all_pairs)
{
	static const char *const specs[] = {
		"torus:dims=3x4",  "torus:dims=2x5x3",	"torus:dims=7",
		"hyperx:dims=3x4", "hyperx:dims=2x2x3", "fattree:k=2,n=4",
		"fattree:k=3,n=3", "fattree:k=4,n=2",	"fattree:k=4,n=3",
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct topo *t = fx_topo(specs[i]);
		struct topo_stats st;
		long double sum;
		uint64_t pairs;
		uint32_t diam;

		cr_assert_eq(topo_stats(t, &st, NULL), 0);
		ref_stats(t, &sum, &pairs, &diam);
		if (topo_num_switches(t) > 1)
			cr_expect_eq(st.method, TOPO_STATS_SYMMETRY, "%s",
				     specs[i]);
		cr_expect_eq(st.diameter, diam, "%s: %u vs %u", specs[i],
			     st.diameter, diam);
		cr_expect_float_eq(st.avg_hops, (double)(sum / pairs), 1e-12,
				   "%s: %.15f vs %.15Lf", specs[i], st.avg_hops,
				   sum / pairs);
		topo_destroy(t);
	}
}

/* A 300x300 torus (90,000 switches) by symmetry, against the closed form:
 * a ring of even k has mean distance k/4 over all ordered pairs, so the
 * sum over all S^2 pairs is S^2 * 2 * 75 and the mean over distinct pairs
 * is 150 * S / (S - 1); the diameter is 150 + 150. */
Test(topo, stats_torus_300x300_closed_form)
{
	struct topo *t = fx_topo("torus:dims=300x300");
	struct topo_stats st;
	double S = 90000;

	cr_assert_eq(topo_stats(t, &st, NULL), 0);
	cr_expect_eq(st.method, TOPO_STATS_SYMMETRY);
	cr_expect_eq(st.sources, 1);
	cr_expect_eq(st.diameter, 300);
	cr_expect_float_eq(st.avg_hops, 150.0 * S / (S - 1), 1e-9, "%.12f",
			   st.avg_hops);
	topo_destroy(t);
}

/* Sampling: all sources give the exact values; 64 of 600 switches give a
 * lower bound on the diameter and a mean within 5 standard errors. */
Test(topo, stats_sampled)
{
	struct topo *t = fx_topo("jellyfish:n=600,r=6,p=1,seed=3");
	struct topo_stats ex, sa, all;
	struct topo_stats_opts o = { .samples = 64 };
	struct topo_stats_opts oa = { .samples = 600 };
	long double sum;
	uint64_t pairs;
	uint32_t diam;

	ref_stats(t, &sum, &pairs, &diam);
	cr_assert_eq(topo_stats(t, &ex, NULL), 0);
	cr_expect_eq(ex.method, TOPO_STATS_EXACT);
	cr_expect_eq(ex.diameter, diam);
	cr_expect_float_eq(ex.avg_hops, (double)(sum / pairs), 1e-12);
	cr_assert_eq(topo_stats_opt(t, &o, &sa, NULL), 0);
	cr_expect_eq(sa.method, TOPO_STATS_SAMPLED);
	cr_expect_eq(sa.sources, 64);
	cr_expect(sa.diameter <= diam && sa.diameter >= diam - 1, "%u vs %u",
		  sa.diameter, diam);
	cr_expect(sa.avg_hops_se > 0 && sa.avg_hops_se < 0.05, "se %f",
		  sa.avg_hops_se);
	cr_expect(fabs(sa.avg_hops - ex.avg_hops) < 5 * sa.avg_hops_se,
		  "%f vs %f (se %f)", sa.avg_hops, ex.avg_hops, sa.avg_hops_se);
	cr_assert_eq(topo_stats_opt(t, &oa, &all, NULL), 0);
	/* as many samples as switches: exact, and said so */
	cr_expect_eq(all.method, TOPO_STATS_EXACT);
	cr_expect_eq(all.diameter, diam);
	cr_expect_eq(all.sources, 600);
	cr_expect_float_eq(all.avg_hops, ex.avg_hops, 1e-12);
	cr_expect_float_eq(all.avg_hops_se, 0, 1e-15);
	topo_destroy(t);
}

/* Beyond the budget a topology is sampled: the budget over the work of
 * one BFS (20,000 switches + 120,000 switch links) gives 71 sources. */
Test(topo, stats_beyond_budget_sampled)
{
	struct topo *t = fx_topo("jellyfish:n=20000,r=8,p=2,seed=1");
	struct topo_stats_opts o = { .budget = 10000000 };
	struct topo_stats st;

	cr_assert_eq(topo_stats_opt(t, &o, &st, NULL), 0);
	cr_expect_eq(st.method, TOPO_STATS_SAMPLED);
	cr_expect_eq(st.sources, 10000000 / 140000);
	cr_expect(st.connected);
	/* 6-regular on 20,000 vertices: the Moore bound gives >= 6 hops */
	cr_expect(st.diameter >= 6 && st.diameter <= 10, "%u", st.diameter);
	topo_destroy(t);
}

/* Sizes beyond the limits are refused before anything is built, with the
 * limit named; raising the limit admits them. */
Test(topo, size_limits)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		/* 8^6 leaves x 7 levels */
		{ "fattree:k=8,n=7",
		  "fattree: switches: 1835008 exceeds the limit "
		  "switches=1048576 (raise it with stopo --limit "
		  "switches=N)" },
		{ "dragonfly:p=100,a=100,h=100",
		  "nodes: 100010000 exceeds the limit nodes=1048576" },
		/* 2 x 9,000 nodes + 2 x 9,000 x 1,000 cables */
		{ "jellyfish:n=9000,r=2001,p=1",
		  "directed links: 18018000 exceeds the limit links=16777216" },
		{ "torus:dims=2000x1000",
		  "switches: 2000000 exceeds the limit switches=1048576" },
	};
	struct err err = { 0 };
	struct topo *t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_null(topo_create(cases[i].spec, &err), "%s",
			       cases[i].spec);
		cr_expect(strstr(err.msg, cases[i].msg), "%s: %s",
			  cases[i].spec, err.msg);
	}
	cr_assert_eq(lim_set("nodes=64", &err), 0, "%s", err.msg);
	cr_expect_null(topo_create("fattree:k=4,n=4", &err));
	cr_expect(strstr(err.msg, "nodes: 256 exceeds the limit nodes=64"),
		  "%s", err.msg);
	cr_assert_eq(lim_set("nodes=256", &err), 0);
	t = topo_create("fattree:k=4,n=4", &err);
	cr_expect_not_null(t, "%s", err.msg);
	topo_destroy(t);
	lim_reset();
}

Test(topo, limit_syntax)
{
	struct err err = { 0 };

	cr_expect_eq(lim_set("links=2M", &err), 0);
	cr_expect_eq(lim_get(LIM_LINKS), 2u << 20);
	cr_expect_eq(lim_set("file=3G", &err), 0);
	cr_expect_eq(lim_get(LIM_FILE), 3ULL << 30);
	cr_expect_eq(lim_set("nodes=5000000000", &err), -1);
	cr_expect_str_eq(err.msg, "--limit nodes=5000000000: at most "
				  "4294967294");
	cr_expect_eq(lim_set("nodes=0", &err), -1);
	cr_expect_eq(lim_set("nodes=-1", &err), -1);
	cr_expect_eq(lim_set("nodes=1x", &err), -1);
	cr_expect_str_eq(err.msg, "--limit nodes=1x: the value must be a "
				  "positive integer (K, M, G suffixes "
				  "allowed)");
	cr_expect_eq(lim_set("ram=1", &err), -1);
	cr_expect_str_eq(err.msg, "--limit ram=1: want NAME=VALUE with NAME "
				  "one of nodes, switches, links, line, file");
	cr_expect_eq(lim_set("file=99999999999G", &err), -1);
	lim_reset();
	cr_expect_eq(lim_get(LIM_LINKS), lim_default(LIM_LINKS));
}

/* Each family's traits, as its ops declare them (the defaults README's
 * table lists: ugal on dragonflies, ecmp on fat-trees, dor on meshes,
 * shortest elsewhere). */
Test(topo, family_traits)
{
	static const struct {
		const char *spec, *routing, *unit;
		bool levels, groups, group_mesh, grid, wraps;
	} rows[] = {
		{ .spec = "dragonfly:p=2,a=4,h=2,g=9",
		  .routing = "ugal",
		  .unit = "group",
		  .groups = true,
		  .group_mesh = true },
		{ .spec = "cascade:groups=3,pair=8",
		  .routing = "ugal",
		  .unit = "group",
		  .groups = true },
		{ .spec = "fattree:k=4,n=3",
		  .routing = "ecmp",
		  .unit = "pod",
		  .levels = true },
		{ .spec = "torus:dims=4x4",
		  .routing = "dor",
		  .grid = true,
		  .wraps = true },
		{ .spec = "hyperx:dims=4x4", .routing = "dor", .grid = true },
		{ .spec = "jellyfish:n=16,r=4,p=1,seed=1",
		  .routing = "shortest" },
	};
	struct err err = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct topo *t = topo_create(rows[i].spec, &err);
		const struct topo_traits *tr;

		cr_assert(t, "%s: %s", rows[i].spec, err.msg);
		tr = topo_traits(t);
		cr_expect_eq(tr, topo_behaves_traits(t), "%s", rows[i].spec);
		cr_expect_str_eq(tr->routing, rows[i].routing, "%s",
				 rows[i].spec);
		if (rows[i].unit)
			cr_expect_str_eq(tr->unit, rows[i].unit, "%s",
					 rows[i].spec);
		else
			cr_expect_null(tr->unit, "%s", rows[i].spec);
		cr_expect_eq(tr->levels, rows[i].levels, "%s", rows[i].spec);
		cr_expect_eq(tr->groups, rows[i].groups, "%s", rows[i].spec);
		cr_expect_eq(tr->group_mesh, rows[i].group_mesh, "%s",
			     rows[i].spec);
		cr_expect_eq(tr->grid, rows[i].grid, "%s", rows[i].spec);
		cr_expect_eq(tr->wraps, rows[i].wraps, "%s", rows[i].spec);
		topo_destroy(t);
	}
}
