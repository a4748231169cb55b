/* test_recog.c - family recognition of Topology=graph: generated families
 * written out as SwitchName= lines (graph_conf, from the topo API) are
 * recognised with the generated levels and groups (up to renaming),
 * imperfect fat-trees are still fat-trees, rings and random graphs are
 * neither. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "topo/routing.h"
#include "topo/topo_conf.h"
#include "topo/topo_impl.h"

static struct topo_conf *parse(const char *text)
{
	struct err err = { 0 };
	struct topo_conf *c = topo_conf_parse("graph.conf", text, &err);

	cr_assert_not_null(c, "%s", err.msg);
	cr_assert_eq(topo_check(topo_conf_topo(c), &err), 0, "%s", err.msg);
	return c;
}

/* Recognise SPEC written out as a graph: same family, levels, and groups
 * up to renaming (a bijection between the two numberings). */
static void same_as_generated(const char *spec, const char *family)
{
	struct err err = { 0 };
	struct topo *g = topo_create(spec, &err);
	struct topo_conf *c;
	const struct topo *t;
	char *text;
	uint32_t S, G, *fwd, *back;

	cr_assert_not_null(g, "%s", err.msg);
	cr_expect_null(topo_graph_family(g), "generated %s", spec);
	text = fx_graph_conf(g, NULL, NULL);
	c = parse(text);
	t = topo_conf_topo(c);
	S = topo_num_switches(t);
	G = topo_num_groups(g);
	cr_assert_eq(S, topo_num_switches(g));
	cr_assert_not_null(topo_graph_family(t), "%s: %s", spec,
			   topo_graph_why(t));
	cr_expect_str_eq(topo_graph_family(t), family, "%s", spec);
	cr_expect_null(topo_graph_why(t));
	/* the registry maps the recognised name back to the family */
	cr_expect_eq(topo_behaves_as(t), topo_kind(g), "%s", spec);
	cr_expect_str_eq(topo_behaves_as_family(t), family, "%s", spec);
	cr_expect_eq(topo_behaves_traits(t), topo_traits(g), "%s", spec);
	cr_expect_eq(topo_num_groups(t), G, "%s: %u groups, generated %u", spec,
		     topo_num_groups(t), G);
	fwd = malloc((G + 1) * sizeof(*fwd));
	back = malloc((G + 1) * sizeof(*back));
	cr_assert(fwd && back);
	memset(fwd, 0xff, (G + 1) * sizeof(*fwd));
	memset(back, 0xff, (G + 1) * sizeof(*back));
	for (uint32_t s = 0; s < S; s++) {
		uint32_t a = topo_switch_group(g, s),
			 b = topo_switch_group(t, s);

		cr_expect_eq(topo_switch_level(t, s), topo_switch_level(g, s),
			     "%s: switch %u level %u, generated %u", spec, s,
			     topo_switch_level(t, s), topo_switch_level(g, s));
		cr_assert_eq(a == TOPO_NONE, b == TOPO_NONE,
			     "%s: switch %u group %u, generated %u", spec, s, b,
			     a);
		if (a == TOPO_NONE)
			continue;
		cr_assert_lt(b, G);
		if (fwd[a] == TOPO_NONE && back[b] == TOPO_NONE) {
			fwd[a] = b;
			back[b] = a;
		}
		cr_expect_eq(fwd[a], b, "%s: switch %u: groups not a renaming",
			     spec, s);
		cr_expect_eq(back[b], a, "%s: switch %u: groups not a renaming",
			     spec, s);
	}
	free(fwd);
	free(back);
	free(text);
	topo_conf_destroy(c);
	topo_destroy(g);
}

Test(recog, fattree_k4_n3)
{
	same_as_generated("fattree:k=4,n=3", "fattree");
}

Test(recog, fattree_k4_n4)
{
	same_as_generated("fattree:k=4,n=4", "fattree");
}

Test(recog, fattree_k3_n2)
{
	same_as_generated("fattree:k=3,n=2", "fattree");
}

Test(recog, dragonfly_fig1)
{
	struct err err = { 0 };
	struct topo *g = topo_create("dragonfly:p=2,a=4,h=2,g=9", &err);
	char *text = fx_graph_conf(g, NULL, NULL);
	struct topo_conf *c = parse(text);
	const struct topo *t = topo_conf_topo(c);

	same_as_generated("dragonfly:p=2,a=4,h=2,g=9", "dragonfly");
	/* one global cable between every two of the 9 groups */
	cr_expect_eq(topo_graph_global_links(t), 36);
	cr_expect_eq(topo_graph_levels(t), 1);
	free(text);
	topo_conf_destroy(c);
	topo_destroy(g);
}

Test(recog, dragonfly_larger)
{
	same_as_generated("dragonfly:p=4,a=8,h=4,g=8", "dragonfly");
}

/* Leaves (level 0) per pod of T, into SIZES (room for the groups). */
static void pod_sizes(const struct topo *t, uint32_t *sizes)
{
	memset(sizes, 0, topo_num_groups(t) * sizeof(*sizes));
	for (uint32_t s = 0; s < topo_num_switches(t); s++)
		if (topo_switch_level(t, s) == 0)
			sizes[topo_switch_group(t, s)]++;
}

/* The 4-ary 3-tree (16 leaves 0-15, 16 aggregation switches 16-31, 16
 * spines 32-47) with switches DROP removed and NODES per switch. */
static struct topo_conf *imperfect(const uint32_t *drop, size_t ndrop,
				   const uint32_t *nodes)
{
	struct err err = { 0 };
	struct topo *g = topo_create("fattree:k=4,n=3", &err);
	uint8_t dr[48] = { 0 };
	char *text;
	struct topo_conf *c;

	cr_assert_not_null(g);
	for (size_t i = 0; i < ndrop; i++)
		dr[drop[i]] = 1;
	text = fx_graph_conf(g, dr, nodes);
	c = parse(text);
	free(text);
	topo_destroy(g);
	return c;
}

Test(recog, fattree_missing_spine)
{
	static const uint32_t drop[] = { 40 };
	struct topo_conf *c = imperfect(drop, 1, NULL);
	const struct topo *t = topo_conf_topo(c);
	uint32_t sizes[4];

	cr_assert_str_eq(topo_graph_family(t), "fattree", "%s",
			 topo_graph_why(t));
	cr_expect_eq(topo_graph_levels(t), 3);
	cr_expect_eq(topo_num_groups(t), 4);
	pod_sizes(t, sizes);
	for (int i = 0; i < 4; i++)
		cr_expect_eq(sizes[i], 4);
	topo_conf_destroy(c);
}

Test(recog, fattree_unequal_pods)
{
	/* pod 1 loses a leaf, pod 3 two leaves and an aggregation switch */
	static const uint32_t drop[] = { 5, 13, 14, 31 };
	struct topo_conf *c = imperfect(drop, 4, NULL);
	const struct topo *t = topo_conf_topo(c);
	uint32_t sizes[4];

	cr_assert_str_eq(topo_graph_family(t), "fattree", "%s",
			 topo_graph_why(t));
	cr_expect_eq(topo_graph_levels(t), 3);
	cr_assert_eq(topo_num_groups(t), 4);
	pod_sizes(t, sizes);
	cr_expect_eq(sizes[0], 4);
	cr_expect_eq(sizes[1], 3);
	cr_expect_eq(sizes[2], 4);
	cr_expect_eq(sizes[3], 2);
	topo_conf_destroy(c);
}

Test(recog, fattree_half_used_leaf)
{
	uint32_t nodes[48] = { 0 };
	struct topo_conf *c;
	const struct topo *t;

	for (int s = 0; s < 16; s++)
		nodes[s] = s == 6 ? 2 : 4;
	c = imperfect(NULL, 0, nodes);
	t = topo_conf_topo(c);
	cr_assert_str_eq(topo_graph_family(t), "fattree", "%s",
			 topo_graph_why(t));
	cr_expect_eq(topo_num_nodes(t), 62);
	cr_expect_eq(topo_num_groups(t), 4);
	cr_expect_eq(topo_switch_level(t, 6), 0);
	cr_expect_eq(topo_switch_group(t, 6), 1);
	topo_conf_destroy(c);
}

/* The families a graph can be recognised as declare it in their ops: the
 * fat-tree, asked first, and the dragonfly, whose recogniser answers for
 * the Cascade too (ring_not_recognised shows the order in the why). */
Test(recog, recognisers_in_the_registry)
{
	static const struct {
		const char *family, *as;
	} want[] = {
		{ .family = "fattree", .as = "fat-tree" },
		{ .family = "dragonfly", .as = "dragonfly" },
	};
	size_t n = 0;

	for (size_t i = 0; topo_family_table[i]; i++) {
		const struct topo_family_ops *f = topo_family_table[i];
		bool known = false;

		if (!f->recognise.fn)
			continue;
		n++;
		for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
			if (!strcmp(f->name, want[k].family)) {
				known = true;
				cr_expect_str_eq(f->recognise.as, want[k].as);
			}
		cr_expect(known, "%s has a recogniser", f->name);
	}
	cr_expect_eq(n, 2);
	cr_expect_gt(topo_family_find("fattree")->recognise.priority,
		     topo_family_find("dragonfly")->recognise.priority);
}

Test(recog, ring_not_recognised)
{
	struct topo_conf *c = parse("Topology=graph\n"
				    "SwitchName=s0 Nodes=1 Links=s1\n"
				    "SwitchName=s1 Nodes=1 Links=s2\n"
				    "SwitchName=s2 Nodes=1 Links=s3\n"
				    "SwitchName=s3 Nodes=1 Links=s4\n"
				    "SwitchName=s4 Nodes=1 Links=s5\n"
				    "SwitchName=s5 Nodes=1 Links=s0\n");
	const struct topo *t = topo_conf_topo(c);

	cr_expect_null(topo_graph_family(t));
	cr_expect_eq(topo_behaves_as(t), TOPO_GRAPH);
	cr_expect_str_eq(topo_behaves_as_family(t), "graph");
	cr_expect_eq(topo_num_groups(t), 0);
	cr_expect_eq(topo_switch_group(t, 0), TOPO_NONE);
	cr_assert_not_null(topo_graph_why(t));
	cr_expect_str_eq(topo_graph_why(t),
			 "not a fat-tree: cable s0-s1 joins two switches with "
			 "1 compute node each; not a dragonfly: no all-to-all "
			 "groups of 3 switches or more");
	topo_conf_destroy(c);
}

Test(recog, random_not_recognised)
{
	struct err err = { 0 };
	struct topo *g = topo_create("jellyfish:n=64,r=6,p=1,seed=1", &err);
	char *text;
	struct topo_conf *c;

	cr_assert_not_null(g, "%s", err.msg);
	text = fx_graph_conf(g, NULL, NULL);
	c = parse(text);
	cr_expect_null(topo_graph_family(topo_conf_topo(c)));
	cr_expect_eq(topo_num_groups(topo_conf_topo(c)), 0);
	free(text);
	topo_conf_destroy(c);
	topo_destroy(g);
}

/* Two pods whose leaves share no spine: layered, but up/down routing
 * cannot join them. */
Test(recog, no_common_ancestor)
{
	struct topo_conf *c = parse("Topology=graph\n"
				    "SwitchName=l0 Nodes=1 Links=a0\n"
				    "SwitchName=l1 Nodes=1 Links=a0,a1\n"
				    "SwitchName=l2 Nodes=1 Links=a1\n"
				    "SwitchName=a0\n"
				    "SwitchName=a1\n");
	const struct topo *t = topo_conf_topo(c);

	cr_expect_null(topo_graph_family(t));
	cr_expect(strstr(topo_graph_why(t),
			 "leaves l0 and l2 have no common ancestor") != NULL,
		  "%s", topo_graph_why(t));
	topo_conf_destroy(c);
}

/* Storage hosts on a spine (the shared stage-sx6036 fabric's tank1 and
 * tank2 on ib7): l1 and l2 with 4 nodes each, spines sp1 (1 node, fewer
 * than each leaf it is cabled to: it hosts, it is no leaf) and sp2.  By
 * hand: 2 levels, sp1 at level 1 with its node, one pod of both leaves;
 * ecmp from sp1's node to l1's first node is the one cable sp1-l1. */
Test(recog, hosts_on_spine)
{
	struct topo_conf *c = parse("Topology=graph\n"
				    "SwitchName=l1 Nodes=4 Links=sp1,sp2\n"
				    "SwitchName=l2 Nodes=4 Links=sp1,sp2\n"
				    "SwitchName=sp1 Nodes=1\n"
				    "SwitchName=sp2\n");
	const struct topo *t = topo_conf_topo(c);
	struct topo_graph_info gi;
	struct err err = { 0 };
	struct routing *r;
	struct pathset ps;
	uint32_t first, cnt;

	cr_assert_str_eq(topo_graph_family(t), "fattree", "%s",
			 topo_graph_why(t));
	topo_graph_info(t, &gi);
	cr_expect_eq(gi.levels, 2);
	cr_expect_eq(gi.hosting, 1);
	cr_expect_eq(gi.idle, 0);
	cr_expect_eq(topo_switch_level(t, 2), 1);
	cr_expect_eq(topo_num_groups(t), 1);
	r = routing_create(t, "ecmp", &err);
	cr_assert_not_null(r, "%s", err.msg);
	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, 8, 0, &ps, &err), 0, "%s", err.msg);
	cr_assert_eq(ps.n, 1);
	first = topo_link_between(t, 2, 0, &cnt);
	cr_expect_eq(ps.off[1], 3);
	cr_expect_eq(ps.links[1], first);
	pathset_free(&ps);
	{
		/* the storage node with a node of each leaf: structural
		 * link set = the union of the paths */
		static const uint32_t job[] = { 0, 4, 8 };

		fx_linkset_vs_enum(r, job, 3, "storage and two leaves");
	}
	routing_destroy(r);
	topo_conf_destroy(c);
}

/* A director fat-tree: edge switches e0..e3 (2 nodes each) cabled into
 * three chassis x of leaf chips xL1 (e0, e1) and xL2 (e2, e3), each cabled
 * to both spine chips xS1, xS2 of its chassis; chassis a also has a leaf
 * chip aL3 with no edge switch (cabled to its spines only).  By hand: 3
 * levels (edges, leaf chips, spines), not 4 (aL3 is 3 hops from the
 * edges, but on no up/down route: idle, level 1 from the roots); pods
 * {e0, e1, xL1} and {e2, e3, xL2}; the diameter without aL3 is 4 (aS1 ->
 * aL1 -> e0 -> bL1 -> bS1), with it it would be 5 (aL3 -> aS1 -> aL1 ->
 * e0 -> bL1 -> bS1). */
static const char director[] =
	"Topology=graph\n"
	"SwitchName=e0 Nodes=n[0-1] Links=aL1,bL1,cL1\n"
	"SwitchName=e1 Nodes=n[2-3] Links=aL1,bL1,cL1\n"
	"SwitchName=e2 Nodes=n[4-5] Links=aL2,bL2,cL2\n"
	"SwitchName=e3 Nodes=n[6-7] Links=aL2,bL2,cL2\n"
	"SwitchName=aL1 Links=aS1,aS2\nSwitchName=aL2 Links=aS1,aS2\n"
	"SwitchName=aL3 Links=aS1,aS2\n"
	"SwitchName=bL1 Links=bS1,bS2\nSwitchName=bL2 Links=bS1,bS2\n"
	"SwitchName=cL1 Links=cS1,cS2\nSwitchName=cL2 Links=cS1,cS2\n"
	"SwitchName=aS1\nSwitchName=aS2\nSwitchName=bS1\n"
	"SwitchName=bS2\nSwitchName=cS1\nSwitchName=cS2\n";

Test(recog, director_idle_chip)
{
	struct topo_conf *c = parse(director);
	const struct topo *t = topo_conf_topo(c);
	struct topo_graph_info gi;
	struct topo_stats st;
	struct err err = { 0 };

	cr_assert_str_eq(topo_graph_family(t), "fattree", "%s",
			 topo_graph_why(t));
	topo_graph_info(t, &gi);
	cr_expect_eq(gi.levels, 3);
	cr_expect_eq(gi.idle, 1);
	cr_expect(topo_switch_idle(t, 6));
	cr_expect_eq(topo_switch_level(t, 6), 1);
	cr_expect_eq(topo_switch_group(t, 6), TOPO_NONE);
	cr_expect_eq(topo_num_groups(t), 2);
	cr_expect_eq(topo_switch_group(t, 0), topo_switch_group(t, 4));
	cr_expect_eq(topo_switch_group(t, 2), topo_switch_group(t, 5));
	cr_expect_neq(topo_switch_group(t, 0), topo_switch_group(t, 2));
	for (uint32_t s = 11; s < 17; s++)
		cr_expect_eq(topo_switch_level(t, s), 2, "switch %u", s);
	cr_assert_eq(topo_stats(t, &st, &err), 0, "%s", err.msg);
	cr_expect_eq(st.diameter, 4);
	topo_conf_destroy(c);
}

/* The Cray Cascade written out as a graph is a Cascade with its groups:
 * 6 x 16 routers, 3 groups, 24 global cables between every two. */
Test(recog, cascade_as_generated)
{
	struct err err = { 0 };
	struct topo *g = topo_create("cascade:groups=3", &err);
	char *text = fx_graph_conf(g, NULL, NULL);
	struct topo_conf *c = parse(text);
	struct topo_graph_info gi;

	same_as_generated("cascade:groups=3", "cascade");
	topo_graph_info(topo_conf_topo(c), &gi);
	cr_expect_eq(gi.rows, 6);
	cr_expect_eq(gi.cols, 16);
	cr_expect_eq(gi.group_size, 96);
	cr_expect_eq(gi.global_links, 3 * 24);
	cr_expect_eq(gi.pair_min, 24);
	cr_expect_eq(gi.pair_max, 24);
	free(text);
	topo_conf_destroy(c);
	topo_destroy(g);
}

/* Paths of routing R from SRC to DST as sorted text lines, into BUF. */
static void path_text(const struct routing *r, uint32_t src, uint32_t dst,
		      char *buf, size_t len)
{
	struct pathset ps;
	struct err err = { 0 };
	char **lines;
	size_t off = 0;

	pathset_init(&ps);
	cr_assert_eq(routing_paths(r, src, dst, &ps, &err), 0, "%s", err.msg);
	lines = calloc(ps.n + 1, sizeof(*lines));
	cr_assert_not_null(lines);
	for (uint32_t i = 0; i < ps.n; i++) {
		char *l = calloc(1, 512);
		size_t o = 0;

		cr_assert_not_null(l);
		for (uint32_t k = ps.off[i]; k < ps.off[i + 1]; k++)
			o += (size_t)snprintf(l + o, 512 - o, "%u ",
					      ps.links[k]);
		lines[i] = l;
	}
	for (uint32_t i = 1; i < ps.n; i++) /* insertion sort, tiny sets */
		for (uint32_t j = i;
		     j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char *x = lines[j];

			lines[j] = lines[j - 1];
			lines[j - 1] = x;
		}
	buf[0] = '\0';
	for (uint32_t i = 0; i < ps.n; i++) {
		off += (size_t)snprintf(buf + off, len - off, "%s|", lines[i]);
		free(lines[i]);
	}
	free(lines);
	pathset_free(&ps);
}

/* ecmp on the k-ary n-tree written out as a graph (same switch, node and
 * link ids) gives exactly the generated ecmp's paths, for every pair. */
static void ecmp_same(const char *spec)
{
	struct err err = { 0 };
	struct topo *g = topo_create(spec, &err);
	char *text = fx_graph_conf(g, NULL, NULL);
	struct topo_conf *c = parse(text);
	const struct topo *t = topo_conf_topo(c);
	struct routing *rg = routing_create(g, "ecmp", &err);
	struct routing *rt = routing_create(t, "ecmp", &err);
	static char a[1 << 16], b[1 << 16];

	cr_assert(rg && rt, "%s", err.msg);
	cr_assert_eq(topo_num_links(t), topo_num_links(g));
	for (uint32_t s = 0; s < topo_num_nodes(g); s += 3)
		for (uint32_t d = 0; d < topo_num_nodes(g); d++) {
			struct routing_count cg = { 0 }, ct = { 0 };

			if (s == d)
				continue;

			path_text(rg, s, d, a, sizeof(a));
			path_text(rt, s, d, b, sizeof(b));
			cr_assert_str_eq(b, a, "%s: %u -> %u", spec, s, d);
			cr_assert_eq(routing_count(rg, s, d, &cg, &err), 0);
			cr_assert_eq(routing_count(rt, s, d, &ct, &err), 0);
			cr_assert_eq(ct.total, cg.total);
		}
	routing_destroy(rg);
	routing_destroy(rt);
	free(text);
	topo_conf_destroy(c);
	topo_destroy(g);
}

Test(recog, ecmp_fattree_k4_n3)
{
	ecmp_same("fattree:k=4,n=3");
}

Test(recog, ecmp_fattree_k2_n4)
{
	ecmp_same("fattree:k=2,n=4");
}

/* Missing spine 40: a flow between pods has k^2 = 16 up/down paths, one
 * through each of the 16 spines; it loses the one through spine 40. */
Test(recog, ecmp_missing_spine)
{
	static const uint32_t drop[] = { 40 };
	struct topo_conf *c = imperfect(drop, 1, NULL);
	const struct topo *t = topo_conf_topo(c);
	struct err err = { 0 };
	struct routing *r = routing_create(t, "ecmp", &err);
	struct routing_count rc = { 0 };

	cr_assert_not_null(r, "%s", err.msg);
	/* node 0 (leaf 0, pod 0) -> node 63 (leaf 15, pod 3) */
	cr_assert_eq(routing_count(r, 0, 63, &rc, &err), 0, "%s", err.msg);
	cr_expect_eq(rc.total, 15);
	cr_expect_eq(rc.by_hops[4], 15);
	/* within pod 0: 4 paths of 2 hops, spine or not */
	rc = (struct routing_count){ 0 };
	cr_assert_eq(routing_count(r, 0, 4, &rc, &err), 0, "%s", err.msg);
	cr_expect_eq(rc.total, 4);
	cr_expect_eq(rc.by_hops[2], 4);
	routing_destroy(r);
	topo_conf_destroy(c);
}

/* ecmp's structural link set on fat-tree graphs (updown_linkset) equals
 * the union of every enumerated path of every pair (routing_linkset_enum)
 * for random jobs of 2 to 40 nodes, on regular and imperfect trees and on
 * a graph whose pod gives two leaves no common aggregation switch (their
 * paths climb to the spine: the general up/down case). */
static void linkset_same(const struct topo *t, const char *name)
{
	struct err err = { 0 };
	struct routing *r = routing_create(t, "ecmp", &err);
	uint32_t N = topo_num_nodes(t), nodes[64], any = 0;
	uint64_t x = 88172645463325252ull;

	cr_assert(r, "%s: %s", name, err.msg);
	for (int job = 0; job < 300; job++) {
		uint32_t n = 0, want;
		char what[96];

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		want = 1 + (uint32_t)(x % 40);
		if (want > N)
			want = N;
		for (uint32_t i = 0; i < N && n < want; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			if (x % N < want * 2)
				nodes[n++] = i;
		}
		snprintf(what, sizeof(what), "%s job %d (%u nodes)", name, job,
			 n);
		any += fx_linkset_vs_enum(r, nodes, n, what);
	}
	cr_assert_gt(any, 0, "%s: no link used", name);
	routing_destroy(r);
}

Test(recog, ecmp_linkset_matches_paths)
{
	static const uint32_t drop[] = { 5, 13, 14, 31, 40 };
	uint32_t nodes[48];
	struct topo_conf *c;
	struct err err = { 0 };
	struct topo *g = topo_create("fattree:k=3,n=4", &err);
	char *text;

	c = imperfect(NULL, 0, NULL);
	linkset_same(topo_conf_topo(c), "k4n3");
	topo_conf_destroy(c);
	for (int s = 0; s < 48; s++)
		nodes[s] = s < 16 ? (s == 6 ? 2 : 4) : 0;
	c = imperfect(drop, 5, nodes);
	linkset_same(topo_conf_topo(c), "imperfect k4n3");
	topo_conf_destroy(c);
	cr_assert(g, "%s", err.msg);
	text = fx_graph_conf(g, NULL, NULL);
	c = parse(text);
	linkset_same(topo_conf_topo(c), "k3n4");
	topo_conf_destroy(c);
	free(text);
	topo_destroy(g);
	c = parse("Topology=graph\n"
		  "SwitchName=l0 Nodes=2 Links=a0\n"
		  "SwitchName=l1 Nodes=2 Links=a0,a1\n"
		  "SwitchName=l2 Nodes=2 Links=a1\n"
		  "SwitchName=l3 Nodes=2 Links=a2\n"
		  "SwitchName=a0 Links=c0,c1\n"
		  "SwitchName=a1 Links=c0\n"
		  "SwitchName=a2 Links=c1,c0\n"
		  "SwitchName=c0\nSwitchName=c1\n");
	cr_assert_str_eq(topo_graph_family(topo_conf_topo(c)), "fattree");
	linkset_same(topo_conf_topo(c), "no common aggregation");
	topo_conf_destroy(c);
}

/* min, vlb and ugal on a dragonfly written out as a graph (recognised:
 * the same groups, switch, node and link ids) give the generated
 * routing's path counts for every pair and link sets for random jobs. */
Test(recog, dragonfly_routings_as_generated)
{
	static const char *const routings[] = { "min", "vlb", "ugal",
						"ugal:intra=global" };
	struct err err = { 0 };
	struct topo *g = topo_create("dragonfly:p=2,a=4,h=2,g=9", &err);
	char *text = fx_graph_conf(g, NULL, NULL);
	struct topo_conf *c = parse(text);
	const struct topo *t = topo_conf_topo(c);
	uint32_t N = topo_num_nodes(g), L = topo_num_links(g);
	uint8_t *a = malloc(L), *b = malloc(L);

	cr_assert_str_eq(topo_graph_family(t), "dragonfly");
	cr_assert_eq(topo_num_links(t), L);
	for (size_t i = 0; i < sizeof(routings) / sizeof(*routings); i++) {
		struct routing *rg = routing_create(g, routings[i], &err);
		struct routing *rt = routing_create(t, routings[i], &err);
		uint64_t x = 2463534242ull;

		cr_assert(rg && rt, "%s: %s", routings[i], err.msg);
		for (uint32_t s = 0; s < N; s += 5)
			for (uint32_t d = 0; d < N; d += 3) {
				struct routing_count cg = { 0 }, ct = { 0 };

				if (s == d)
					continue;
				cr_assert_eq(routing_count(rg, s, d, &cg, &err),
					     0);
				cr_assert_eq(routing_count(rt, s, d, &ct, &err),
					     0);
				cr_assert_eq(ct.total, cg.total, "%s %u %u",
					     routings[i], s, d);
			}
		for (int job = 0; job < 100; job++) {
			uint32_t nodes[72], n = 0;

			for (uint32_t v = 0; v < N; v++) {
				x ^= x << 13, x ^= x >> 17, x ^= x << 5;
				if (x % 8 == 0)
					nodes[n++] = v;
			}
			memset(a, 0, L);
			memset(b, 0, L);
			cr_assert_eq(routing_linkset(rg, nodes, n, a, &err), 0);
			cr_assert_eq(routing_linkset(rt, nodes, n, b, &err), 0);
			cr_assert_eq(memcmp(a, b, L), 0, "%s job %d",
				     routings[i], job);
		}
		routing_destroy(rg);
		routing_destroy(rt);
	}
	free(a);
	free(b);
	free(text);
	topo_conf_destroy(c);
	topo_destroy(g);
}

Test(recog, ecmp_needs_recognised_fattree)
{
	struct topo_conf *c = parse("Topology=graph\n"
				    "SwitchName=s0 Nodes=1 Links=s1,s2\n"
				    "SwitchName=s1 Nodes=1 Links=s2\n"
				    "SwitchName=s2 Nodes=1\n");
	struct err err = { 0 };

	cr_expect_null(routing_create(topo_conf_topo(c), "ecmp", &err));
	cr_expect_str_eq(err.msg,
			 "routing 'ecmp' does not apply to graph (not "
			 "recognised as a fat-tree, see topo.conf(5)); use ksp "
			 "or shortest");
	topo_conf_destroy(c);
}
