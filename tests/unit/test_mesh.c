/* test_mesh.c - express mesh, HyperX and torus families (paper 003 Sec. II)
 * and their routings dor and minimal.  Expectations are hand-computed from
 * Eq. 1-2, checked against a literal brute-force reading of Eq. 2, or
 * computed by a second algorithm (DP over the toward-destination graph,
 * BFS distances, the generic "shortest" routing). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/routing.h"
#include "topo/topo.h"

static struct topo *mk(const char *spec)
{
	struct err err = { 0 };
	struct topo *t = topo_create(spec, &err);

	cr_assert_not_null(t, "%s: %s", spec, err.msg);
	cr_assert_eq(topo_check(t, &err), 0, "%s: %s", spec, err.msg);
	return t;
}

static struct routing *mkr(const struct topo *t, const char *spec)
{
	struct err err = { 0 };
	struct routing *r = routing_create(t, spec, &err);

	cr_assert_not_null(r, "%s on %s: %s", spec, topo_spec(t), err.msg);
	return r;
}

/* ---- families: counts ---- */

#define NO_STATS UINT32_MAX /* radix from the adjacency, no all-pairs BFS */

struct count_case {
	char spec[64];
	uint32_t nodes, switches, switch_links;
	uint32_t radix_min, radix_max, diameter;
};

/* Hand-computed (see the comment of each line).  A line of length k with
 * gap g has sum over d = 1, 1+g, 1+2g, ... < k of (k - d) cables. */
static const struct count_case counts[] = {
	/* Fig. 2(a): 1D k=8 g=1, all-to-all: 28 cables, radix 1+7 */
	{ "expressmesh:dims=8,gap=1,p=1", 8, 8, 56, 8, 8, 1 },
	/* Fig. 2(c): d=1,3,5,7: 7+5+3+1 = 16 cables; every router has the
	 * 4 routers of the other parity; max distance two (paper) */
	{ "expressmesh:dims=8,gap=2,p=1", 8, 8, 32, 5, 5, 2 },
	/* Fig. 2(f): 16 cables x 6 lines + (5+3+1) x 8 lines = 168;
	 * radix 2+4+3; even distances need 2 hops per dimension */
	{ "expressmesh:dims=8x6,gap=2,p=2", 96, 48, 336, 9, 9, 4 },
	/* Fig. 2(e): HyperX 8x6: 28 x 6 + 15 x 8 = 288 cables, radix 1+7+5 */
	{ "expressmesh:dims=8x6,gap=1,p=1", 48, 48, 576, 13, 13, 2 },
	/* k=7 g=3: d=1,4: 6+3 = 9 cables; degrees 2,3,3,2,3,3,2; 0->6 needs
	 * 3 hops (0-4-5-6) */
	{ "expressmesh:dims=7,gap=3,p=1", 7, 7, 18, 3, 4, 3 },
	/* Table I, G1 EM: 66x100 + 45x120 + 45x120 = 17400 cables; radix
	 * 9 + 11 + 9 + 9 = 38; 10,800 nodes */
	{ "expressmesh:dims=12x10x10,gap=1,p=9", 10800, 1200, 34800, 38, 38,
	  3 },
	/* Table I, G2 EM: 49x144 + 36x168 + 36x168 = 19152 cables; radix
	 * 5 + 7 + 6 + 6 = 24; 10,080 nodes */
	{ "expressmesh:dims=14x12x12,gap=2,p=5", 10080, 2016, 38304, 24, 24,
	  NO_STATS },
	/* gap larger than the line: a plain mesh 5x3 (4x3 + 2x5 cables) */
	{ "expressmesh:dims=5x3,gap=9,p=1", 15, 15, 44, 3, 5, 6 },
	/* torus 4x4x4: 3 x 16 rings of 4 cables, radix 1+6, diameter 2+2+2 */
	{ "torus:dims=4x4x4,p=1", 64, 64, 384, 7, 7, 6 },
	/* size 2: one cable per line (3 lines); size 3 ring: 3 x 2 lines */
	{ "torus:dims=2x3,p=1", 6, 6, 18, 4, 4, 2 },
	/* 5-rings x 2 + 5 size-2 lines = 15 cables, size 1 none */
	{ "torus:dims=5x1x2,p=2", 20, 10, 30, 5, 5, 3 },
	{ "torus:dims=1,p=3", 3, 1, 0, 3, 3, 0 },
	/* HyperX 3x4: 3 cables x 4 lines + 6 x 3 lines = 30, radix 2+2+3 */
	{ "hyperx:dims=3x4,p=2", 24, 12, 60, 7, 7, 2 },
};

static void run_counts(const struct count_case *c);

Test(mesh, counts)
{
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
		run_counts(&counts[i]);
}

static void run_counts(const struct count_case *c)
{
	struct topo *t = mk(c->spec);
	struct topo_stats st;

	cr_expect_eq(topo_num_nodes(t), c->nodes, "%s nodes %u", c->spec,
		     topo_num_nodes(t));
	cr_expect_eq(topo_num_switches(t), c->switches, "%s switches", c->spec);
	cr_expect_eq(topo_num_links(t), 2 * c->nodes + c->switch_links,
		     "%s links %u", c->spec, topo_num_links(t));
	if (c->diameter == NO_STATS) {
		for (uint32_t s = 0; s < topo_num_switches(t); s++) {
			uint32_t nn, nl;

			topo_switch_nodes(t, s, &nn);
			topo_switch_out(t, s, &nl);
			cr_expect(nn + nl >= c->radix_min &&
					  nn + nl <= c->radix_max,
				  "%s switch %u radix %u", c->spec, s, nn + nl);
		}
		topo_destroy(t);
		return;
	}
	cr_assert_eq(topo_stats(t, &st, NULL), 0);
	cr_expect_eq(st.radix_min, c->radix_min, "%s radix_min %u", c->spec,
		     st.radix_min);
	cr_expect_eq(st.radix_max, c->radix_max, "%s radix_max %u", c->spec,
		     st.radix_max);
	cr_expect_eq(st.diameter, c->diameter, "%s diameter %u", c->spec,
		     st.diameter);
	cr_expect(st.connected);
	cr_expect_eq(topo_num_groups(t), 0);
	topo_destroy(t);
}

/* Node i on router i/p; router id = l0 + d0*(l1 + d1*l2). */
Test(mesh, numbering)
{
	struct topo *t = mk("expressmesh:dims=4x3x2,gap=2,p=3");
	uint32_t dims[TOPO_MAX_DIMS], c[TOPO_MAX_DIMS];

	cr_assert_eq(topo_dims(t, dims), 3);
	cr_expect(dims[0] == 4 && dims[1] == 3 && dims[2] == 2);
	for (uint32_t i = 0; i < topo_num_nodes(t); i++)
		cr_expect_eq(topo_node_switch(t, i), i / 3);
	topo_switch_coord(t, 1 + 4 * (2 + 3 * 1), c);
	cr_expect(c[0] == 1 && c[1] == 2 && c[2] == 1);
	topo_destroy(t);
}

/* ---- Eq. 1-2 read literally, pair by pair ---- */

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

/* Is router B in econ(A) (paper 003 Eq. 1-2)? */
static bool econ(const uint32_t *k, int n, uint32_t g, const uint32_t *a,
		 const uint32_t *b)
{
	int diff = -1;

	for (int i = 0; i < n; i++)
		if (a[i] != b[i]) {
			if (diff >= 0)
				return false;
			diff = i;
		}
	if (diff < 0)
		return false;
	{
		long l = a[diff], t = b[diff], ki = k[diff];

		if (t == l + 1 || t == l - 1)
			return true; /* mcon, Eq. 1 */
		for (long m = 1; m <= (long)ceil_div(k[diff], g); m++) {
			if (l + 1 + m * (long)g < ki &&
			    t == l + 1 + m * (long)g)
				return true;
			if (l - 1 - m * (long)g >= 0 &&
			    t == l - 1 - m * (long)g)
				return true;
		}
	}
	return false;
}

struct eq2_case {
	char dims[24];
	uint32_t gap;
};

static const struct eq2_case eq2[] = {
	{ "8", 1 },	{ "8", 2 },   { "8", 3 },	{ "8", 7 },
	{ "8", 8 },	{ "8x6", 2 }, { "5x4x3", 2 },	{ "7x5", 3 },
	{ "9x2x3", 4 }, { "6x6", 1 }, { "2x2x2x2", 1 }, { "10", 4 },
	{ "1x5", 2 },
};

static void run_eq2_literal(const struct eq2_case *c);

Test(mesh, eq2_literal)
{
	for (size_t i = 0; i < sizeof(eq2) / sizeof(eq2[0]); i++)
		run_eq2_literal(&eq2[i]);
}

static void run_eq2_literal(const struct eq2_case *c)
{
	char spec[96];
	struct topo *t;
	uint32_t k[TOPO_MAX_DIMS], a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
	int n;
	uint64_t total = 0;

	snprintf(spec, sizeof(spec), "expressmesh:dims=%s,gap=%u,p=1", c->dims,
		 c->gap);
	t = mk(spec);
	n = topo_dims(t, k);
	for (uint32_t x = 0; x < topo_num_switches(t); x++)
		for (uint32_t y = 0; y < topo_num_switches(t); y++) {
			uint32_t cnt;
			bool want;

			topo_switch_coord(t, x, a);
			topo_switch_coord(t, y, b);
			want = econ(k, n, c->gap, a, b);
			topo_link_between(t, x, y, &cnt);
			cr_expect_eq(cnt, want ? 1u : 0u,
				     "%s: %u-%u has %u links", spec, x, y, cnt);
			total += want;
		}
	cr_expect_eq(total, topo_num_links(t) - 2 * topo_num_nodes(t));
	topo_destroy(t);
}

Test(mesh, torus_literal)
{
	static const char *const specs[] = { "torus:dims=5x2x3,p=1",
					     "torus:dims=4x1x6,p=1",
					     "torus:dims=2x2,p=1" };

	for (size_t s = 0; s < 3; s++) {
		struct topo *t = mk(specs[s]);
		uint32_t k[TOPO_MAX_DIMS], a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
		int n = topo_dims(t, k);

		for (uint32_t x = 0; x < topo_num_switches(t); x++)
			for (uint32_t y = 0; y < topo_num_switches(t); y++) {
				uint32_t cnt, ndiff = 0, want = 0;

				topo_switch_coord(t, x, a);
				topo_switch_coord(t, y, b);
				for (int i = 0; i < n; i++)
					if (a[i] != b[i]) {
						ndiff++;
						want = b[i] == (a[i] + 1) %
								       k[i] ||
						       a[i] == (b[i] + 1) %
								       k[i];
					}
				if (ndiff != 1)
					want = 0;
				topo_link_between(t, x, y, &cnt);
				cr_expect_eq(cnt, want, "%s: %u-%u", specs[s],
					     x, y);
			}
		topo_destroy(t);
	}
}

/* HyperX: every pair differing in one coordinate is joined, once. */
Test(mesh, hyperx_all_to_all)
{
	struct topo *t = mk("hyperx:dims=4x3x3,p=1");
	uint32_t a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];

	for (uint32_t x = 0; x < topo_num_switches(t); x++)
		for (uint32_t y = 0; y < topo_num_switches(t); y++) {
			uint32_t cnt, ndiff = 0;

			topo_switch_coord(t, x, a);
			topo_switch_coord(t, y, b);
			for (int i = 0; i < 3; i++)
				ndiff += a[i] != b[i];
			topo_link_between(t, x, y, &cnt);
			cr_expect_eq(cnt, ndiff == 1 ? 1u : 0u);
		}
	topo_destroy(t);
}

/* Paper 003's claim: diameter <= n*g, over a range of shapes and gaps. */
Test(mesh, diameter_bound)
{
	static const char *const shapes[] = { "2",	"5",	 "9",
					      "16",	"3x7",	 "6x6",
					      "10x4",	"4x4x4", "7x3x5",
					      "3x3x3x3" };
	char spec[96];

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
		for (uint32_t g = 1; g <= 5; g++) {
			struct topo *t;
			struct topo_stats st;
			uint32_t k[TOPO_MAX_DIMS];
			int n;

			snprintf(spec, sizeof(spec),
				 "expressmesh:dims=%s,gap=%u,p=1", shapes[s],
				 g);
			t = mk(spec);
			n = topo_dims(t, k);
			cr_assert_eq(topo_stats(t, &st, NULL), 0);
			cr_expect(st.connected, "%s", spec);
			cr_expect_leq(st.diameter, (uint32_t)n * g,
				      "%s: %u > %u", spec, st.diameter,
				      (uint32_t)n * g);
			topo_destroy(t);
		}
}

Test(mesh, bad_specs)
{
	static const char *const bad[] = {
		"expressmesh:dims=0x4",
		"expressmesh:dims=4x",
		"expressmesh:dims=x4",
		"expressmesh:dims=4y4",
		"expressmesh:dims=4,gap=0",
		"expressmesh:dims=4,p=0",
		"expressmesh:dims=2x2x2x2x2x2x2x2x2",
		"torus:dims=4,gap=2",
		"hyperx:dims=4,gap=1",
		"torus:dims=4000x4000x4000",
		"expressmesh:dims=4,link=0",
		"torus:dims=-3",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct err err = { 0 };
		struct topo *t = topo_create(bad[i], &err);

		cr_expect_null(t, "%s accepted", bad[i]);
		cr_expect_neq(err.msg[0], '\0', "%s: no message", bad[i]);
		topo_destroy(t);
	}
}

Test(mesh, capacities)
{
	struct topo *t = mk("torus:dims=3x3,p=2,inject=4,link=2.5");

	cr_expect_eq(topo_link(t, 0)->capacity, 4);
	cr_expect_eq(topo_link(t, topo_eject_link(t, 5))->capacity, 4);
	for (uint32_t l = topo_first_switch_link(t); l < topo_num_links(t); l++)
		cr_expect_eq(topo_link(t, l)->capacity, 2.5);
	topo_destroy(t);
}

/* ---- routing ---- */

/* Switch sequence of path I of PS (from the links). */
static uint32_t switches_of(const struct topo *t, const struct pathset *ps,
			    uint32_t i, uint32_t *sw)
{
	uint32_t n = 0, first = topo_first_switch_link(t);

	for (uint32_t q = ps->off[i]; q < ps->off[i + 1]; q++) {
		const struct topo_link *l = topo_link(t, ps->links[q]);

		if (ps->links[q] < first) {
			if (l->kind == TOPO_LINK_INJECT)
				sw[n++] = l->to;
			continue;
		}
		sw[n++] = l->to;
	}
	return n;
}

struct dor_case {
	char topo[48];
	uint32_t src_sw, dst_sw;
	uint32_t nsw;
	uint32_t sw[12]; /* expected switch sequence */
};

/* Hand-worked dor paths (node = switch with p=1). */
static const struct dor_case dors[] = {
	/* g=2, 0->6: D=6 needs 2 hops; express hop first to 0+1+2*2=5 */
	{ "expressmesh:dims=8,gap=2,p=1", 0, 6, 3, { 0, 5, 6 } },
	{ "expressmesh:dims=8,gap=2,p=1", 7, 1, 3, { 7, 2, 1 } },
	/* D=7 = 1+3*2: direct link (rule 1) */
	{ "expressmesh:dims=8,gap=2,p=1", 0, 7, 2, { 0, 7 } },
	/* g=3, 0->9: D=9, h=3: 0->7 (1+2*3), then 8, 9 */
	{ "expressmesh:dims=10,gap=3,p=1", 0, 9, 4, { 0, 7, 8, 9 } },
	/* g=3, 2->4: D=2 < 1+g: unit hops only */
	{ "expressmesh:dims=10,gap=3,p=1", 2, 4, 3, { 2, 3, 4 } },
	/* 2D, dimension 0 first: (0,0)->(6,4): (5,0) (6,0) (6,3) (6,4) */
	{ "expressmesh:dims=8x6,gap=2,p=1",
	  0,
	  6 + 8 * 4,
	  5,
	  { 0, 5, 6, 6 + 8 * 3, 6 + 8 * 4 } },
	/* HyperX: one hop per dimension, dimension 0 first */
	{ "hyperx:dims=5x4,p=1", 1, 4 + 5 * 3, 3, { 1, 4, 4 + 5 * 3 } },
	/* torus tie (distance exactly k/2) goes the positive way */
	{ "torus:dims=4,p=1", 0, 2, 3, { 0, 1, 2 } },
	{ "torus:dims=4,p=1", 2, 0, 3, { 2, 3, 0 } },
	{ "torus:dims=6,p=1", 4, 1, 4, { 4, 5, 0, 1 } },
	/* no tie: the shorter way, also backwards */
	{ "torus:dims=6,p=1", 0, 4, 3, { 0, 5, 4 } },
	{ "torus:dims=2,p=1", 1, 0, 2, { 1, 0 } },
	/* 2D torus: dim 0 (5-ring, 4->1 forward via 0), then dim 1 */
	{ "torus:dims=5x3,p=1", 4, 1 + 5 * 2, 4, { 4, 0, 1, 1 + 5 * 2 } },
};

static void run_dor_paths(const struct dor_case *c);

Test(mesh, dor_paths)
{
	for (size_t i = 0; i < sizeof(dors) / sizeof(dors[0]); i++)
		run_dor_paths(&dors[i]);
}

static void run_dor_paths(const struct dor_case *c)
{
	struct topo *t = mk(c->topo);
	struct routing *r = mkr(t, "dor");
	struct pathset ps;
	struct err err = { 0 };
	uint32_t sw[64], n;
	struct routing_count cnt;

	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, c->src_sw, c->dst_sw, &ps, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(ps.n, 1);
	cr_expect_eq(ps.links[0], topo_inject_link(t, c->src_sw));
	cr_expect_eq(ps.links[ps.off[1] - 1], topo_eject_link(t, c->dst_sw));
	n = switches_of(t, &ps, 0, sw);
	cr_assert_eq(n, c->nsw, "%s %u->%u: %u switches", c->topo, c->src_sw,
		     c->dst_sw, n);
	for (uint32_t i = 0; i < n; i++)
		cr_expect_eq(sw[i], c->sw[i], "%s %u->%u: switch %u is %u",
			     c->topo, c->src_sw, c->dst_sw, i, sw[i]);
	cr_assert_eq(routing_count(r, c->src_sw, c->dst_sw, &cnt, &err), 0);
	cr_expect_eq(cnt.total, 1);
	cr_expect_eq(cnt.by_hops[c->nsw - 1], 1);
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}

/* Hand-computed minimal count: expressmesh 8x6 g=2, (0,0)->(6,4).  Dim 0:
 * D=6, 2 hops, {1+5, 3+3, 5+1} = 3 sequences; dim 1: D=4, {1+3, 3+1} = 2;
 * interleavings C(4,2) = 6: 36 paths of 4 hops. */
Test(mesh, minimal_hand_count)
{
	struct topo *t = mk("expressmesh:dims=8x6,gap=2,p=1");
	struct routing *r = mkr(t, "minimal");
	struct routing_count c;
	struct pathset ps;

	cr_assert_eq(routing_count(r, 0, 6 + 8 * 4, &c, NULL), 0);
	cr_expect_eq(c.total, 36);
	cr_expect_eq(c.by_hops[4], 36);
	cr_expect_eq(c.by_class[PATH_MIN], 36);
	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, 0, 6 + 8 * 4, &ps, NULL), 0);
	cr_expect_eq(ps.n, 36);
	pathset_free(&ps);
	routing_destroy(r);
	/* torus 4x4: (0,0)->(2,2) is a tie in both dimensions: 2 ways in
	 * each, C(4,2) interleavings: 24 */
	topo_destroy(t);
	t = mk("torus:dims=4x4,p=1");
	r = mkr(t, "minimal");
	cr_assert_eq(routing_count(r, 0, 2 + 4 * 2, &c, NULL), 0);
	cr_expect_eq(c.total, 24);
	/* a size-2 dimension has one cable: one way */
	routing_destroy(r);
	topo_destroy(t);
	t = mk("torus:dims=2x4,p=1");
	r = mkr(t, "minimal");
	cr_assert_eq(routing_count(r, 0, 1 + 2 * 2, &c, NULL), 0);
	cr_expect_eq(c.total, 2 * 3); /* dim1 tie (2 ways), C(3,1) */
	routing_destroy(r);
	topo_destroy(t);
}

/* Second algorithm: count, by DP, the fewest-hop paths in the graph of
 * "toward" links (one coordinate changes, moving toward the destination
 * and not past it; on a torus ring toward = shortening the ring distance
 * in that dimension). */
static bool toward(const struct topo *t, const uint32_t *k, int n, bool torus,
		   uint32_t u, uint32_t v, const uint32_t *d)
{
	uint32_t a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];

	topo_switch_coord(t, u, a);
	topo_switch_coord(t, v, b);
	for (int i = 0; i < n; i++) {
		if (a[i] == b[i])
			continue;
		if (torus) {
			uint32_t da = (d[i] + k[i] - a[i]) % k[i],
				 db = (d[i] + k[i] - b[i]) % k[i];
			uint32_t ra = da < k[i] - da ? da : k[i] - da;
			uint32_t rb = db < k[i] - db ? db : k[i] - db;

			return rb + 1 == ra;
		}
		if (a[i] < d[i])
			return b[i] > a[i] && b[i] <= d[i];
		return b[i] < a[i] && b[i] >= d[i];
	}
	return false;
}

static void dp_count(const struct topo *t, uint32_t s, uint32_t dst,
		     uint64_t *count, uint32_t *hops)
{
	uint32_t S = topo_num_switches(t), k[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
	int n = topo_dims(t, k);
	bool torus = topo_kind(t) == TOPO_TORUS;
	uint32_t *dist = malloc(S * sizeof(*dist)), *q = malloc(S * sizeof(*q));
	uint64_t *cnt = calloc(S, sizeof(*cnt));
	uint32_t head = 0, tail = 0;

	topo_switch_coord(t, dst, d);
	for (uint32_t i = 0; i < S; i++)
		dist[i] = UINT32_MAX;
	dist[s] = 0;
	cnt[s] = 1;
	q[tail++] = s;
	while (head < tail) {
		uint32_t u = q[head++], nl, f = topo_switch_out(t, u, &nl);

		for (uint32_t l = f; l < f + nl; l++) {
			uint32_t v = topo_link(t, l)->to;

			if (!toward(t, k, n, torus, u, v, d))
				continue;
			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[u] + 1;
				q[tail++] = v;
			}
			if (dist[v] == dist[u] + 1)
				cnt[v] += cnt[u];
		}
	}
	*count = cnt[dst];
	*hops = dist[dst];
	free(dist);
	free(q);
	free(cnt);
}

struct topo_case {
	char spec[48];
};

static const struct topo_case small[] = {
	{ "expressmesh:dims=8x5,gap=2,p=1" },
	{ "expressmesh:dims=9x4,gap=3,p=1" },
	{ "expressmesh:dims=5x3x4,gap=2,p=1" },
	{ "expressmesh:dims=11,gap=4,p=1" },
	{ "hyperx:dims=4x3x2,p=1" },
	{ "torus:dims=4x4,p=1" },
	{ "torus:dims=6x3,p=1" },
	{ "torus:dims=2x3x4,p=1" },
	{ "expressmesh:dims=5x5,gap=1,p=2" },
	{ "torus:dims=3x4,p=2" },
};

static void run_minimal_all_pairs(const struct topo_case *c);

/* Over every ordered pair: count() == enumeration == DP; every path is a
 * valid walk from src to dst with the DP's hop count; paths distinct; the
 * hop count equals the BFS distance where toward-minimal is graph-minimal
 * (torus, HyperX, gap <= 2) and is never below it; dor is one of the
 * minimal paths. */
Test(mesh, minimal_all_pairs)
{
	for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
		run_minimal_all_pairs(&small[i]);
}

static void run_minimal_all_pairs(const struct topo_case *c)
{
	struct topo *t = mk(c->spec);
	struct routing *r = mkr(t, "minimal"), *dor = mkr(t, "dor");
	struct routing *sh = mkr(t, "shortest");
	uint32_t N = topo_num_nodes(t), first = topo_first_switch_link(t);
	long gap = topo_param_int(t, "gap");
	bool graph_min = topo_kind(t) != TOPO_EXPRESSMESH || gap <= 2;
	struct pathset ps, pd;
	struct err err = { 0 };

	pathset_init(&ps);
	pathset_init(&pd);
	for (uint32_t s = 0; s < N; s++)
		for (uint32_t d = 0; d < N; d++) {
			uint32_t a = topo_node_switch(t, s);
			uint32_t b = topo_node_switch(t, d);
			struct routing_count rc, rs;
			uint64_t want;
			uint32_t h, bfs;
			bool dor_found = false;

			if (s == d)
				continue;
			if (a == b) {
				want = 1;
				h = 0;
			} else {
				dp_count(t, a, b, &want, &h);
			}
			bfs = topo_switch_distance(t, a, b);
			cr_assert_eq(routing_count(r, s, d, &rc, &err), 0, "%s",
				     err.msg);
			cr_assert_eq(routing_paths(r, s, d, &ps, &err), 0, "%s",
				     err.msg);
			cr_assert_eq(routing_paths(dor, s, d, &pd, &err), 0);
			cr_expect_eq(rc.total, want,
				     "%s %u->%u: count %lu want %lu", c->spec,
				     s, d, (unsigned long)rc.total,
				     (unsigned long)want);
			cr_expect_eq(ps.n, want, "%s %u->%u: listed %u",
				     c->spec, s, d, ps.n);
			cr_expect_eq(rc.by_hops[h], want);
			cr_expect_geq(h, bfs);
			if (graph_min) {
				cr_expect_eq(h, bfs, "%s %u->%u", c->spec, s,
					     d);
				cr_assert_eq(routing_count(sh, s, d, &rs, &err),
					     0);
				/* torus/HyperX: minimal == all shortest */
				if (topo_kind(t) != TOPO_EXPRESSMESH ||
				    gap == 1)
					cr_expect_eq(rs.total, want,
						     "%s %u->%u", c->spec, s,
						     d);
			}
			for (uint32_t i = 0; i < ps.n; i++) {
				uint32_t lo = ps.off[i], hi = ps.off[i + 1];
				uint32_t at = a;

				cr_assert_eq(hi - lo, h + 2);
				cr_expect_eq(ps.links[lo], (uint32_t)s);
				cr_expect_eq(ps.links[hi - 1],
					     topo_eject_link(t, d));
				for (uint32_t q = lo + 1; q + 1 < hi; q++) {
					const struct topo_link *l =
						topo_link(t, ps.links[q]);

					cr_assert_geq(ps.links[q], first);
					cr_assert_eq(l->from, at);
					at = l->to;
				}
				cr_expect_eq(at, b);
				if (i)
					cr_expect(
						ps.off[i] - ps.off[i - 1] !=
								hi - lo ||
							memcmp(ps.links +
								       ps.off[i -
									      1],
							       ps.links + lo,
							       (hi - lo) * 4),
						"duplicate path");
				if (pd.off[1] == hi - lo &&
				    !memcmp(pd.links, ps.links + lo,
					    (hi - lo) * 4))
					dor_found = true;
			}
			cr_expect(dor_found, "%s %u->%u: dor path not minimal",
				  c->spec, s, d);
		}
	pathset_free(&ps);
	pathset_free(&pd);
	routing_destroy(r);
	routing_destroy(dor);
	routing_destroy(sh);
	topo_destroy(t);
}

/* Paths are literally distinct (not only consecutive ones). */
Test(mesh, minimal_paths_distinct)
{
	struct topo *t = mk("expressmesh:dims=8x6,gap=2,p=1");
	struct routing *r = mkr(t, "minimal");
	struct pathset ps;

	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, 0, 47, &ps, NULL), 0);
	for (uint32_t i = 0; i < ps.n; i++)
		for (uint32_t j = 0; j < i; j++)
			cr_expect(memcmp(ps.links + ps.off[i],
					 ps.links + ps.off[j],
					 (ps.off[i + 1] - ps.off[i]) * 4),
				  "paths %u and %u equal", i, j);
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}

/* Large counts come from the formula, not enumeration; past 2^64 they are
 * an error, not a wrapped number. */
Test(mesh, count_large)
{
	struct topo *t = mk("torus:dims=80x80,p=1");
	struct routing *r = mkr(t, "minimal");
	struct routing_count c;
	struct err err = { 0 };

	/* (20,20): 20 hops per dimension, one way each: C(40,20) */
	cr_assert_eq(routing_count(r, 0, 20 + 80 * 20, &c, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(c.total, 137846528820ULL);
	cr_expect_eq(c.by_hops[40], 137846528820ULL);
	/* (40,40): ties, C(80,40) * 2^2 > 2^64 */
	cr_expect_eq(routing_count(r, 0, 40 + 80 * 40, &c, &err), -1);
	cr_expect_neq(err.msg[0], '\0');
	routing_destroy(r);
	topo_destroy(t);
}

/* ---- link sets ---- */

static void check_linkset(const struct topo *t, const char *rspec,
			  const uint32_t *nodes, uint32_t n, const char *what)
{
	struct routing *r = mkr(t, rspec);
	uint32_t L = topo_num_links(t);
	uint8_t *a = calloc(L, 1), *b = calloc(L, 1);
	struct err err = { 0 };

	cr_assert_eq(routing_linkset(r, nodes, n, a, &err), 0, "%s", err.msg);
	cr_assert_eq(routing_linkset_enum(r, nodes, n, b, &err), 0, "%s",
		     err.msg);
	for (uint32_t l = 0; l < L; l++)
		cr_expect_eq(a[l], b[l],
			     "%s %s %s: link %u %u->%u structural %u "
			     "enumerated %u",
			     topo_spec(t), rspec, what, l,
			     topo_link(t, l)->from, topo_link(t, l)->to, a[l],
			     b[l]);
	free(a);
	free(b);
	routing_destroy(r);
}

/* Nodes of the switches in box [lo, lo+len) (p nodes per switch). */
static uint32_t box_nodes(const struct topo *t, const uint32_t *lo,
			  const uint32_t *len, uint32_t *nodes, uint8_t *in)
{
	uint32_t n = 0, c[TOPO_MAX_DIMS], k[TOPO_MAX_DIMS];
	int nd = topo_dims(t, k);

	for (uint32_t s = 0; s < topo_num_switches(t); s++) {
		bool ok = true;
		uint32_t cnt;
		const uint32_t *ns;

		topo_switch_coord(t, s, c);
		for (int i = 0; i < nd; i++)
			ok = ok && c[i] >= lo[i] && c[i] < lo[i] + len[i];
		if (in)
			in[s] = ok;
		if (!ok)
			continue;
		ns = topo_switch_nodes(t, s, &cnt);
		for (uint32_t q = 0; q < cnt; q++)
			nodes[n++] = ns[q];
	}
	return n;
}

struct box_case {
	char spec[48];
	uint32_t lo[3], len[3];
};

static const struct box_case boxes[] = {
	{ "expressmesh:dims=8x6,gap=2,p=2", { 1, 1 }, { 5, 4 } },
	{ "expressmesh:dims=8x6,gap=2,p=1", { 0, 0 }, { 8, 6 } },
	{ "expressmesh:dims=7x5x4,gap=3,p=1", { 1, 0, 1 }, { 5, 3, 2 } },
	{ "expressmesh:dims=9,gap=2,p=1", { 2 }, { 1 } },
	{ "hyperx:dims=4x4,p=1", { 1, 0 }, { 2, 3 } },
	{ "torus:dims=8x8,p=1", { 2, 5 }, { 4, 3 } }, /* 2*(4-1) < 8 */
	{ "torus:dims=6x4,p=1", { 0, 0 }, { 6, 2 } }, /* full ring */
	{ "torus:dims=2x5,p=2", { 0, 1 }, { 2, 3 } },
};

static void run_linkset_box(const struct box_case *c);

/* A convex block's link set is its internal links (what the policies rely
 * on), for dor and minimal, and the structural answer equals the
 * enumerated one. */
Test(mesh, linkset_box)
{
	for (size_t i = 0; i < sizeof(boxes) / sizeof(boxes[0]); i++)
		run_linkset_box(&boxes[i]);
}

static void run_linkset_box(const struct box_case *c)
{
	struct topo *t = mk(c->spec);
	uint32_t *nodes = malloc(topo_num_nodes(t) * sizeof(*nodes));
	uint8_t *in = calloc(topo_num_switches(t), 1);
	uint32_t n = box_nodes(t, c->lo, c->len, nodes, in);
	static const char *const rs[] = { "dor", "minimal" };

	for (int q = 0; q < 2; q++) {
		struct routing *r = mkr(t, rs[q]);
		uint8_t *u = calloc(topo_num_links(t), 1);

		cr_assert_eq(routing_linkset(r, nodes, n, u, NULL), 0);
		for (uint32_t l = 0; l < topo_num_links(t); l++) {
			const struct topo_link *lk = topo_link(t, l);
			bool internal = l >= topo_first_switch_link(t) &&
					in[lk->from] && in[lk->to];

			cr_expect_eq(u[l], internal, "%s %s: link %u %u->%u",
				     c->spec, rs[q], l, lk->from, lk->to);
		}
		free(u);
		routing_destroy(r);
		check_linkset(t, rs[q], nodes, n, "box");
	}
	free(nodes);
	free(in);
	topo_destroy(t);
}

/* Non-box sets (fallback per switch pair) and boxes whose torus pairs go
 * round the other way: structural == enumerated. */
Test(mesh, linkset_general)
{
	static const char *const specs[] = {
		"expressmesh:dims=8x6,gap=2,p=2",
		"expressmesh:dims=7x5x3,gap=3,p=1",
		"hyperx:dims=4x3x3,p=1",
		"torus:dims=6x5,p=1",
		"torus:dims=4x4x2,p=1",
		"expressmesh:dims=10,gap=4,p=1",
	};
	uint64_t x = 88172645463325252ULL;

	for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
		struct topo *t = mk(specs[s]);
		uint32_t N = topo_num_nodes(t);
		uint32_t *nodes = malloc(N * sizeof(*nodes));

		for (int trial = 0; trial < 6; trial++) {
			uint32_t n = 0;

			for (uint32_t i = 0; i < N; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				if (x % 4 == 0)
					nodes[n++] = i;
			}
			check_linkset(t, "dor", nodes, n, "random");
			check_linkset(t, "minimal", nodes, n, "random");
		}
		topo_destroy(t);
		free(nodes);
	}
	{
		/* torus 6-ring block of 4: pairs at distance 3 tie and go
		 * both ways round */
		struct topo *t = mk("torus:dims=6x3,p=1");
		uint32_t lo[2] = { 1, 0 }, len[2] = { 4, 2 }, nodes[18];
		uint32_t n = box_nodes(t, lo, len, nodes, NULL);

		check_linkset(t, "dor", nodes, n, "wide box");
		check_linkset(t, "minimal", nodes, n, "wide box");
		topo_destroy(t);
	}
}

Test(mesh, routing_applies)
{
	struct topo *t = mk("fattree:k=2,n=2");
	struct err err = { 0 };

	cr_expect_null(routing_create(t, "dor", &err));
	cr_expect_null(routing_create(t, "minimal", &err));
	cr_expect_null(routing_create(t, "dor:x=1", &err));
	topo_destroy(t);
	t = mk("torus:dims=3,p=1");
	cr_expect_null(routing_create(t, "dor:x=1", &err));
	topo_destroy(t);
}

/* Long rings: built in O(cables) and listed without deep recursion (a
 * fixed bug: construction was O(S * k), minimal recursed once per hop). */
Test(mesh, long_ring)
{
	struct topo *t = mk("torus:dims=50000,p=1");
	struct routing *r = mkr(t, "minimal");
	struct pathset ps;
	struct err err = { 0 };

	cr_expect_eq(topo_num_links(t), 2 * 50000 + 2 * 50000);
	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, 0, 25000, &ps, &err), 0, "%s", err.msg);
	cr_assert_eq(ps.n, 2); /* the tie: both ways round */
	cr_expect_eq(ps.off[1], 25002);
	cr_expect_eq(ps.off[2] - ps.off[1], 25002);
	cr_expect_eq(topo_link(t, ps.links[1])->to, 1);
	cr_expect_eq(topo_link(t, ps.links[ps.off[1] + 1])->to, 49999);
	cr_assert_eq(routing_paths(r, 0, 24999, &ps, &err), 0, "%s", err.msg);
	cr_expect_eq(ps.n, 1);
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}
