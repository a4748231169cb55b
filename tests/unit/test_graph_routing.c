/* test_graph_routing.c - ksp (Yen) and shortest over switch graphs: small
 * hand-drawn graphs with known answers, and a brute-force enumeration of
 * simple paths (sorted by hops, then link ids) on jellyfish instances. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "topo/routing.h"
#include "topo/topo_conf.h"
#include "topo/topo_impl.h"

/* A graph topology from a cable list, one node per switch (node i on
 * switch i), built with the family builder. */
static struct topo *graph(uint32_t nsw, const uint32_t (*cab)[2], size_t nc)
{
	struct topo_builder b;
	struct err err = { 0 };
	struct topo *t;

	tb_init(&b, nsw);
	for (size_t i = 0; i < nc; i++)
		cr_assert_eq(tb_cable(&b, cab[i][0], cab[i][1], 1,
				      TOPO_LINK_LOCAL, TOPO_LINK_LOCAL),
			     0);
	for (uint32_t s = 0; s < nsw; s++)
		cr_assert_eq(tb_node(&b, s), 0);
	t = tb_finish(&b, &err);
	cr_assert_not_null(t, "%s", err.msg);
	t->kind = TOPO_GRAPH;
	t->family = "graph";
	snprintf(t->spec, sizeof(t->spec), "graph");
	cr_assert_eq(topo_check(t, &err), 0, "%s", err.msg);
	return t;
}

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

	cr_assert_not_null(r, "%s: %s", spec, err.msg);
	return r;
}

/* Switch sequence of path I (first switch, then each link's head). */
static uint32_t seq(const struct topo *t, const struct pathset *ps, uint32_t i,
		    uint32_t *sw)
{
	uint32_t n = 0;

	sw[n++] = topo_link(t, ps->links[ps->off[i]])->to;
	for (uint32_t q = ps->off[i] + 1; q + 1 < ps->off[i + 1]; q++)
		sw[n++] = topo_link(t, ps->links[q])->to;
	return n;
}

static void expect_seqs(const struct topo *t, const char *rspec, uint32_t src,
			uint32_t dst, uint32_t npaths,
			const uint32_t (*want)[8])
{
	struct routing *r = mkr(t, rspec);
	struct pathset ps;
	struct err err = { 0 };
	uint32_t sw[64];

	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, src, dst, &ps, &err), 0, "%s", err.msg);
	cr_assert_eq(ps.n, npaths, "%s %u->%u: %u paths", rspec, src, dst,
		     ps.n);
	for (uint32_t i = 0; i < ps.n; i++) {
		uint32_t n = seq(t, &ps, i, sw);

		for (uint32_t j = 0; j < n; j++)
			cr_expect_eq(sw[j], want[i][j],
				     "%s path %u switch %u: "
				     "%u want %u",
				     rspec, i, j, sw[j], want[i][j]);
		cr_expect_eq(want[i][n], UINT32_MAX, "%s path %u too short",
			     rspec, i);
	}
	pathset_free(&ps);
	routing_destroy(r);
}

#define E UINT32_MAX

/* A square 0-1-3-2-0 with the diagonal 1-2. */
static const uint32_t square[][2] = {
	{ 0, 1 }, { 1, 3 }, { 0, 2 }, { 2, 3 }, { 1, 2 }
};

Test(ksp, square)
{
	struct topo *t = graph(4, square, 5);
	static const uint32_t all[][8] = {
		{ 0, 1, 3, E },
		{ 0, 2, 3, E },
		{ 0, 1, 2, 3, E },
		{ 0, 2, 1, 3, E },
	};

	expect_seqs(t, "ksp:k=1", 0, 3, 1, all);
	expect_seqs(t, "ksp:k=3", 0, 3, 3, all);
	/* only four simple paths exist */
	expect_seqs(t, "ksp:k=10", 0, 3, 4, all);
	expect_seqs(t, "shortest", 0, 3, 2, all);
	topo_destroy(t);
}

/* The same with a second cable 1-3: each parallel link is its own path,
 * in link-id order. */
Test(ksp, parallel_links)
{
	static const uint32_t cab[][2] = { { 0, 1 }, { 1, 3 }, { 0, 2 },
					   { 2, 3 }, { 1, 2 }, { 1, 3 } };
	struct topo *t = graph(4, cab, 6);
	static const uint32_t all[][8] = {
		{ 0, 1, 3, E },	   { 0, 1, 3, E },    { 0, 2, 3, E },
		{ 0, 1, 2, 3, E }, { 0, 2, 1, 3, E }, { 0, 2, 1, 3, E },
	};
	struct routing *r = mkr(t, "ksp:k=10");
	struct routing *s = mkr(t, "shortest");
	struct routing_count c;
	struct pathset ps;
	uint32_t first, cnt;

	expect_seqs(t, "ksp:k=10", 0, 3, 6, all);
	expect_seqs(t, "shortest", 0, 3, 3, all);
	first = topo_link_between(t, 1, 3, &cnt);
	cr_assert_eq(cnt, 2);
	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, 0, 3, &ps, NULL), 0);
	/* path 0 takes the first 1-3 link, path 1 the second */
	cr_expect_eq(ps.links[ps.off[0] + 2], first);
	cr_expect_eq(ps.links[ps.off[1] + 2], first + 1);
	cr_assert_eq(routing_count(s, 0, 3, &c, NULL), 0);
	cr_expect_eq(c.total, 3);
	cr_expect_eq(c.by_hops[2], 3);
	pathset_free(&ps);
	routing_destroy(r);
	routing_destroy(s);
	topo_destroy(t);
}

/* A 6-ring: two ways round, nothing else. */
Test(ksp, ring)
{
	static const uint32_t cab[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 },
					   { 3, 4 }, { 4, 5 }, { 5, 0 } };
	struct topo *t = graph(6, cab, 6);
	static const uint32_t p03[][8] = { { 0, 1, 2, 3, E },
					   { 0, 5, 4, 3, E } };
	static const uint32_t p02[][8] = { { 0, 1, 2, E },
					   { 0, 5, 4, 3, 2, E } };
	static const uint32_t p30[][8] = { { 3, 2, 1, 0, E },
					   { 3, 4, 5, 0, E } };

	expect_seqs(t, "ksp:k=5", 0, 3, 2, p03);
	expect_seqs(t, "shortest", 0, 3, 2, p03);
	expect_seqs(t, "ksp:k=5", 0, 2, 2, p02);
	expect_seqs(t, "shortest", 0, 2, 1, p02);
	expect_seqs(t, "ksp:k=2", 3, 0, 2, p30);
	topo_destroy(t);
}

/* Yen's textbook shape: the second path must deviate late.
 *   0-1-2-5, 0-3-4-5, 1-4, 2-4
 * Simple paths 0->5 by (hops, switches):
 *   0 1 2 5 | 0 1 4 5 | 0 3 4 5 | 0 1 2 4 5 | 0 1 4 2 5 | 0 3 4 2 5 |
 *   0 3 4 1 2 5 */
Test(ksp, yen_order)
{
	static const uint32_t cab[][2] = { { 0, 1 }, { 1, 2 }, { 2, 5 },
					   { 0, 3 }, { 3, 4 }, { 4, 5 },
					   { 1, 4 }, { 2, 4 } };
	struct topo *t = graph(6, cab, 8);
	static const uint32_t all[][8] = {
		{ 0, 1, 2, 5, E },	 { 0, 1, 4, 5, E },
		{ 0, 3, 4, 5, E },	 { 0, 1, 2, 4, 5, E },
		{ 0, 1, 4, 2, 5, E },	 { 0, 3, 4, 2, 5, E },
		{ 0, 3, 4, 1, 2, 5, E },
	};

	expect_seqs(t, "ksp:k=2", 0, 5, 2, all);
	expect_seqs(t, "ksp:k=7", 0, 5, 7, all);
	expect_seqs(t, "ksp:k=100", 0, 5, 7, all);
	expect_seqs(t, "shortest", 0, 5, 3, all);
	topo_destroy(t);
}

/* ---- brute force on jellyfish ---- */

struct bpath {
	uint32_t len;
	uint32_t l[16];
};

struct brute {
	const struct topo *t;
	uint32_t dst, maxlen;
	uint8_t *on;
	struct bpath cur;
	struct bpath *all;
	uint32_t n, cap;
};

/* Every simple path of at most maxlen hops. */
static void brute_dfs(struct brute *b, uint32_t u)
{
	uint32_t n, first;

	if (u == b->dst) {
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 64;
			b->all = realloc(b->all, b->cap * sizeof(*b->all));
			cr_assert_not_null(b->all);
		}
		b->all[b->n++] = b->cur;
		return;
	}
	if (b->cur.len == b->maxlen)
		return;
	first = topo_switch_out(b->t, u, &n);
	for (uint32_t l = first; l < first + n; l++) {
		uint32_t v = topo_link(b->t, l)->to;

		if (b->on[v])
			continue;
		b->on[v] = 1;
		b->cur.l[b->cur.len++] = l;
		brute_dfs(b, v);
		b->cur.len--;
		b->on[v] = 0;
	}
}

static int bcmp_path(const void *x, const void *y)
{
	const struct bpath *a = x, *b = y;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (uint32_t i = 0; i < a->len; i++)
		if (a->l[i] != b->l[i])
			return a->l[i] < b->l[i] ? -1 : 1;
	return 0;
}

static void brute(const struct topo *t, uint32_t a, uint32_t d, uint32_t maxlen,
		  struct brute *b)
{
	memset(b, 0, sizeof(*b));
	b->t = t;
	b->dst = d;
	b->maxlen = maxlen;
	b->on = calloc(topo_num_switches(t), 1);
	b->on[a] = 1;
	brute_dfs(b, a);
	qsort(b->all, b->n, sizeof(*b->all), bcmp_path);
	free(b->on);
}

/* ksp:k=K on every ordered pair of a jellyfish equals the first K simple
 * paths of a brute-force enumeration (all simple paths up to the K-th
 * path's length, sorted by hops, then link ids). */
Test(ksp, jellyfish_brute)
{
	static const char *const specs[] = { "jellyfish:n=10,r=4,p=1,seed=1",
					     "jellyfish:n=12,r=5,p=1,seed=7" };
	static const uint32_t ks[] = { 1, 3, 8 };

	for (int s = 0; s < 2; s++) {
		struct topo *t = mk(specs[s]);
		uint32_t N = topo_num_nodes(t);

		for (int q = 0; q < 3; q++) {
			char rs[32];
			struct routing *r;
			struct pathset ps;

			snprintf(rs, sizeof(rs), "ksp:k=%u", ks[q]);
			r = mkr(t, rs);
			pathset_init(&ps);
			for (uint32_t a = 0; a < N; a++)
				for (uint32_t d = 0; d < N; d++) {
					struct brute b;
					uint32_t lmax;

					if (a == d)
						continue;
					cr_assert_eq(routing_paths(r, a, d, &ps,
								   NULL),
						     0);
					cr_assert_eq(ps.n, ks[q]);
					lmax = ps.off[ps.n] - ps.off[ps.n - 1] -
					       2;
					brute(t, topo_node_switch(t, a),
					      topo_node_switch(t, d), lmax, &b);
					cr_assert_geq(b.n, ps.n);
					for (uint32_t i = 0; i < ps.n; i++) {
						uint32_t len = ps.off[i + 1] -
							       ps.off[i] - 2;

						cr_assert_eq(
							len, b.all[i].len,
							"%s %s %u->%u path %u",
							specs[s], rs, a, d, i);
						cr_expect(
							!memcmp(ps.links +
									ps.off[i] +
									1,
								b.all[i].l,
								len * 4),
							"%s %s %u->%u path %u",
							specs[s], rs, a, d, i);
					}
					free(b.all);
				}
			pathset_free(&ps);
			routing_destroy(r);
		}
		topo_destroy(t);
	}
}

/* shortest: count() == number of simple paths of BFS length (brute
 * force) == listed paths, on every ordered pair. */
Test(shortest, jellyfish_brute)
{
	struct topo *t = mk("jellyfish:n=16,r=5,p=2,seed=3");
	struct routing *r = mkr(t, "shortest");
	uint32_t N = topo_num_nodes(t);
	struct pathset ps;

	pathset_init(&ps);
	for (uint32_t a = 0; a < N; a++)
		for (uint32_t d = 0; d < N; d++) {
			uint32_t sa = topo_node_switch(t, a);
			uint32_t sd = topo_node_switch(t, d);
			uint32_t h = topo_switch_distance(t, sa, sd);
			struct routing_count c;
			struct brute b;

			if (a == d || sa == sd)
				continue;
			brute(t, sa, sd, h, &b);
			cr_assert_eq(routing_count(r, a, d, &c, NULL), 0);
			cr_expect_eq(c.total, b.n, "%u->%u: %lu want %u", a, d,
				     (unsigned long)c.total, b.n);
			cr_expect_eq(c.by_hops[h], b.n);
			cr_assert_eq(routing_paths(r, a, d, &ps, NULL), 0);
			cr_assert_eq(ps.n, b.n);
			for (uint32_t i = 0; i < ps.n; i++)
				cr_expect(!memcmp(ps.links + ps.off[i] + 1,
						  b.all[i].l, h * 4),
					  "%u->%u path %u", a, d, i);
			free(b.all);
		}
	pathset_free(&ps);
	routing_destroy(r);
	topo_destroy(t);
}

/* Structural link set == enumerated link set, on random node sets. */
Test(shortest, linkset)
{
	struct topo *t = mk("jellyfish:n=20,r=6,p=2,seed=5");
	static const char *const rs[] = { "shortest", "ksp:k=3" };
	uint32_t N = topo_num_nodes(t), L = topo_num_links(t);
	uint32_t *nodes = malloc(N * sizeof(*nodes));
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (int q = 0; q < 2; q++) {
		struct routing *r = mkr(t, rs[q]);

		for (int trial = 0; trial < 8; trial++) {
			uint8_t *u1 = calloc(L, 1), *u2 = calloc(L, 1);
			uint32_t n = 0;

			for (uint32_t i = 0; i < N; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				if (x % 5 == 0)
					nodes[n++] = i;
			}
			cr_assert_eq(routing_linkset(r, nodes, n, u1, NULL), 0);
			cr_assert_eq(
				routing_linkset_enum(r, nodes, n, u2, NULL), 0);
			cr_expect(!memcmp(u1, u2, L), "%s trial %d", rs[q],
				  trial);
			free(u1);
			free(u2);
		}
		routing_destroy(r);
	}
	free(nodes);
	topo_destroy(t);
}

Test(ksp, options)
{
	struct topo *t = mk("jellyfish:n=10,r=4,p=1,seed=1");
	struct err err = { 0 };
	struct routing *r = mkr(t, "ksp");

	cr_expect_str_eq(routing_spec(r), "ksp:k=4");
	routing_destroy(r);
	cr_expect_null(routing_create(t, "ksp:k=0", &err));
	cr_expect_null(routing_create(t, "ksp:k=x", &err));
	cr_expect_null(routing_create(t, "ksp:j=2", &err));
	cr_expect_null(routing_create(t, "shortest:k=2", &err));
	r = mkr(t, "shortest");
	cr_expect_str_eq(routing_spec(r), "shortest");
	cr_expect(routing_multipath(r));
	routing_destroy(r);
	topo_destroy(t);
}

/* Disconnected graph: a clear error, not a crash. */
Test(ksp, unreachable)
{
	static const uint32_t cab[][2] = { { 0, 1 }, { 2, 3 } };
	struct topo *t = graph(4, cab, 2);
	struct routing *k = mkr(t, "ksp:k=2"), *s = mkr(t, "shortest");
	struct pathset ps;
	struct routing_count c;
	struct err err = { 0 };
	uint32_t nodes[] = { 0, 2 };
	uint8_t used[16] = { 0 };

	pathset_init(&ps);
	cr_expect_eq(routing_paths(k, 0, 2, &ps, &err), -1);
	cr_expect_neq(err.msg[0], '\0');
	cr_expect_eq(routing_paths(s, 0, 3, &ps, &err), -1);
	cr_expect_eq(routing_count(s, 1, 3, &c, &err), -1);
	cr_expect_eq(routing_linkset(s, nodes, 2, used, &err), -1);
	cr_expect_eq(routing_paths(s, 0, 1, &ps, &err), 0);
	cr_expect_eq(ps.n, 1);
	pathset_free(&ps);
	routing_destroy(k);
	routing_destroy(s);
	topo_destroy(t);
}

/* lft: the forwarding tables of Forward= lines.  Two leaves l1 (a1, a2)
 * and l2 (b1, b2) under spines s1, s2; by hand, the tables send a1 and
 * b1's traffic one way and a2 and b2's the other:
 *   a1 -> b1: l1 -> s1 -> l2    a2 -> b2: l1 -> s2 -> l2
 *   b1 -> a1: l2 -> s2 -> l1    b2 -> a2: l2 -> s1 -> l1
 * (routes depend on the destination node, not only on its switch). */
static const char lft_conf[] = "Topology=graph\n"
			       "Routing=lft\n"
			       "SwitchName=l1 Nodes=a[1-2] Links=s1,s2\n"
			       "SwitchName=l2 Nodes=b[1-2] Links=s1,s2\n"
			       "SwitchName=s1\n"
			       "SwitchName=s2\n"
			       "Forward=l1 b1:s1 b2:s2\n"
			       "Forward=l2 a1:s2 a2:s1\n"
			       "Forward=s1 b1:l2 a2:l1\n"
			       "Forward=s2 b2:l2 a1:l1\n";

/* The switch sequence of the only path from SRC to DST, as "l1 s1 l2". */
static void lft_route(const struct routing *r, struct topo_conf *c,
		      const char *src, const char *dst, const char *want)
{
	const struct topo *t = topo_conf_topo(c);
	struct pathset ps;
	struct err err = { 0 };
	char buf[128] = "", b[32];
	uint32_t s = topo_conf_node_index(c, src),
		 d = topo_conf_node_index(c, dst);

	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, s, d, &ps, &err), 0, "%s", err.msg);
	cr_assert_eq(ps.n, 1);
	strcat(buf, topo_switch_label(t, topo_node_switch(t, s), b, sizeof(b)));
	for (uint32_t k = ps.off[0] + 1; k + 1 < ps.off[1]; k++) {
		strcat(buf, " ");
		strcat(buf, topo_switch_label(t, topo_link(t, ps.links[k])->to,
					      b, sizeof(b)));
	}
	cr_expect_str_eq(buf, want, "%s -> %s", src, dst);
	pathset_free(&ps);
}

Test(lft, paths_and_linkset)
{
	struct err err = { 0 };
	struct topo_conf *c = topo_conf_parse("lft.conf", lft_conf, &err);
	const struct topo *t;
	struct routing *r;
	uint8_t used[64] = { 0 };
	uint32_t job[2], n = 0;

	cr_assert_not_null(c, "%s", err.msg);
	t = topo_conf_topo(c);
	r = routing_create(t, "lft", &err);
	cr_assert_not_null(r, "%s", err.msg);
	cr_expect_str_eq(topo_conf_routing(c), "lft");
	lft_route(r, c, "a1", "b1", "l1 s1 l2");
	lft_route(r, c, "a2", "b2", "l1 s2 l2");
	lft_route(r, c, "b1", "a1", "l2 s2 l1");
	lft_route(r, c, "b2", "a2", "l2 s1 l1");
	lft_route(r, c, "a1", "b2", "l1 s2 l2");
	lft_route(r, c, "a1", "a2", "l1");
	/* the job a1, b1: l1->s1, s1->l2 (to b1), l2->s2, s2->l1 (to a1) */
	job[0] = topo_conf_node_index(c, "a1");
	job[1] = topo_conf_node_index(c, "b1");
	cr_assert_eq(routing_linkset(r, job, 2, used, &err), 0, "%s", err.msg);
	for (uint32_t l = 0; l < topo_num_links(t); l++)
		n += used[l];
	cr_expect_eq(n, 4);
	cr_expect(used[topo_link_between(t, 0, 2, &n)]);
	cr_expect(used[topo_link_between(t, 2, 1, &n)]);
	cr_expect(used[topo_link_between(t, 1, 3, &n)]);
	cr_expect(used[topo_link_between(t, 3, 0, &n)]);
	fx_linkset_vs_enum(r, job, 2, "a1, b1");
	routing_destroy(r);
	topo_conf_destroy(c);
}

/* Tables that are wrong: "lft.conf:LINE: what", naming switches and
 * nodes; and lft without tables. */
Test(lft, bad_tables)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "Forward=s2 b2:l2\n",
		  "lft.conf:10: Forward=s2: no route to node a1 (traffic from "
		  "l2 to it passes here)" },
		{ "Forward=s2 b2:l2 a1:l2\n",
		  "lft.conf:8: Forward=l2: the routes to node a1 loop through "
		  "it (from l2)" },
		{ "Forward=s2 b2:l2 a1:x9\n",
		  "lft.conf:10: Forward=s2: 'a1:x9': no such switch" },
		{ "Forward=s2 b2:l2 a1:s1\n",
		  "lft.conf:10: Forward=s2: 'a1:s1': no cable to that switch" },
		{ "Forward=s2 b2:l2 a1:l1@2\n",
		  "lft.conf:10: Forward=s2: 'a1:l1@2': fewer cables to that "
		  "switch" },
		{ "Forward=s2 b2:l2 a9:l1\n",
		  "lft.conf:10: Forward=s2: no node named 'a9'" },
		{ "Forward=s2 b2:l2 b2:l1\n",
		  "lft.conf:10: Forward=s2: node 'b2' given twice" },
		{ "Forward=s2 b2\n",
		  "lft.conf:10: bad route 'b2' in Forward=s2 (want "
		  "HOSTLIST:NEXT or HOSTLIST:NEXT@K)" },
		{ "Forward=s3 b2:l2\n",
		  "lft.conf:10: Forward=s3: no such switch" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct err err = { 0 };
		char text[1024];
		char *cut;
		struct topo_conf *c;

		/* the tables above but s2's line, replaced */
		snprintf(text, sizeof(text), "%s", lft_conf);
		cut = strstr(text, "Forward=s2");
		*cut = '\0';
		strcat(text, cases[i].text);
		c = topo_conf_parse("lft.conf", text, &err);
		cr_expect_null(c, "case %zu accepted", i);
		cr_expect_str_eq(err.msg, cases[i].msg, "case %zu", i);
		topo_conf_destroy(c);
	}
	{
		struct err err = { 0 };
		struct topo *t = mk("fattree:k=2,n=2");

		cr_expect_null(routing_create(t, "lft", &err));
		cr_expect(strstr(err.msg, "no forwarding tables") != NULL, "%s",
			  err.msg);
		topo_destroy(t);
	}
}
