/* test_topo_conf.c - the topo.conf parser: good fixtures (names, hash
 * lookup, capacities, policies, explicit graphs, continuation lines) and
 * one fixture per error path, asserting the "PATH:LINE: message" of each.
 * Fixtures live in tests/data/ (SRCDIR is the source tree). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_conf.h"
#include "topo/util/hl.h"

static void data_path(char *buf, size_t len, const char *file)
{
	int n = snprintf(buf, len, "%s/tests/data/%s", SRCDIR, file);

	cr_assert(n > 0 && (size_t)n < len, "path too long: %s", file);
}

static struct topo_conf *load(const char *file)
{
	char path[1024];
	struct err err = { 0 };
	struct topo_conf *c;

	data_path(path, sizeof(path), file);
	c = topo_conf_load(path, &err);
	cr_assert_not_null(c, "%s: %s", file, err.msg);
	cr_assert_eq(topo_check(topo_conf_topo(c), &err), 0, "%s: %s", file,
		     err.msg);
	return c;
}

static double cap_between(const struct topo *t, uint32_t a, uint32_t b,
			  uint32_t k)
{
	uint32_t cnt, first = topo_link_between(t, a, b, &cnt);

	cr_assert_lt(k, cnt, "link %u-%u #%u", a, b, k);
	return topo_link(t, first + k)->capacity;
}

Test(topo_conf, dragonfly)
{
	struct topo_conf *c = load("good_dragonfly.conf");
	const struct topo *t = topo_conf_topo(c);
	char name[16];

	cr_expect_str_eq(topo_spec(t), "dragonfly:p=2,a=4,h=2,g=9");
	cr_expect_eq(topo_num_nodes(t), 72);
	cr_expect_str_eq(topo_conf_routing(c), "ugal:intra=local");
	cr_expect(topo_conf_has_names(c));
	for (uint32_t i = 0; i < 72; i++) {
		snprintf(name, sizeof(name), "nid%04u", i);
		cr_expect_str_eq(topo_conf_node_name(c, i), name);
		cr_expect_eq(topo_conf_node_index(c, name), i);
	}
	cr_expect_null(topo_conf_node_name(c, 72));
	cr_expect_eq(topo_conf_node_index(c, "nid0072"), TOPO_NONE);
	cr_expect_eq(topo_conf_node_index(c, "nid004"), TOPO_NONE);
	/* Capacity=global:2, then Capacity=0-1:0.5 (both directions) */
	for (uint32_t l = 0; l < topo_num_links(t); l++) {
		const struct topo_link *lk = topo_link(t, l);
		double want = lk->kind == TOPO_LINK_GLOBAL ? 2 : 1;

		if (lk->kind == TOPO_LINK_LOCAL &&
		    ((lk->from == 0 && lk->to == 1) ||
		     (lk->from == 1 && lk->to == 0)))
			want = 0.5;
		cr_expect_eq(lk->capacity, want, "link %u", l);
	}
	cr_expect_str_eq(topo_conf_policy(c, "batch"), "dragonfly-groups");
	cr_expect_str_eq(topo_conf_policy(c, "debug"), "clustered:scatter=4");
	cr_expect_str_eq(topo_conf_policy(c, "other"), "random:seed=7");
	cr_expect_str_eq(topo_conf_policy(c, NULL), "random:seed=7");
	cr_expect_str_eq(topo_conf_default_policy(c), "random:seed=7");
	cr_expect_eq(topo_conf_num_partition_policies(c), 2);
	{
		const char *part, *pol;

		cr_expect_eq(
			topo_conf_partition_policy(c, 1, &part, &pol, NULL), 0);
		cr_expect_str_eq(part, "debug");
		cr_expect_str_eq(pol, "clustered:scatter=4");
		cr_expect_eq(topo_conf_partition_policy(c, 2, &part, &pol,
							NULL),
			     -1);
	}
	topo_conf_destroy(c);
}

/* Every directive keeps its line (the first of a continued one), so that
 * checks made after parsing can say "PATH:LINE: what". */
Test(topo_conf, lines)
{
	static const char text[] = "# a comment\n"
				   "Wrap=linear\n"
				   "\n"
				   "Topology=fattree \\\n"
				   "  k=4 n=2\n"
				   "NodeName=a[0-7]\n"
				   "NodeName=b[0-7]\n"
				   "PartitionPolicy=batch:\\\n"
				   "  fattree-pods\n"
				   "Routing=dmodk\n"
				   "PartitionPolicy=debug:linear\n"
				   "DefaultPolicy=random\n"
				   "predictbudget=75\n"
				   "Predict=\\\n"
				   "  mcf\n";
	struct err err = { 0 };
	struct topo_conf *c = topo_conf_parse("l.conf", text, &err);
	const char *part, *pol;
	uint32_t line = 99;

	cr_assert_not_null(c, "%s", err.msg);
	cr_expect_str_eq(topo_conf_name(c), "l.conf");
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_WRAP), 2);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_TOPOLOGY), 4);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_NODENAME), 6);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_ROUTING), 10);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_DEFAULT_POLICY), 12);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT_BUDGET), 13);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT), 14);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_NKEYS), 0);
	cr_expect_eq(topo_conf_partition_policy(c, 0, &part, &pol, &line), 0);
	cr_expect_str_eq(part, "batch");
	cr_expect_str_eq(pol, "fattree-pods");
	cr_expect_eq(line, 8);
	cr_expect_eq(topo_conf_partition_policy(c, 1, &part, &pol, &line), 0);
	cr_expect_eq(line, 11);
	topo_conf_destroy(c);
	/* absent directives: 0; graph node names come from Nodes= */
	c = topo_conf_parse("g.conf",
			    "Topology=graph\n"
			    "SwitchName=s0 Links=s1\n"
			    "SwitchName=s1 Nodes=n[0-1]\n",
			    &err);
	cr_assert_not_null(c, "%s", err.msg);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_NODENAME), 3);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_ROUTING), 0);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_DEFAULT_POLICY), 0);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_WRAP), 0);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT), 0);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT_BUDGET), 0);
	topo_conf_destroy(c);
}

/* Predict= and PredictBudget= are kept as the file writes them, with
 * their lines; absent, NULL (the default is the machine's). */
Test(topo_conf, predict)
{
	struct topo_conf *c = load("good_predict.conf");
	struct err err = { 0 };

	cr_expect_str_eq(topo_conf_predict(c), "mcf");
	cr_expect_str_eq(topo_conf_predict_budget(c), "200");
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT), 5);
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT_BUDGET), 6);
	topo_conf_destroy(c);
	c = load("good_fattree.conf");
	cr_expect_null(topo_conf_predict(c));
	cr_expect_null(topo_conf_predict_budget(c));
	topo_conf_destroy(c);
	/* options stay in the spec; a comment ends the value */
	c = topo_conf_parse("p.conf",
			    "Topology=fattree k=2 n=2\n"
			    "PREDICT=mmf:x=1,y=2   # checked by the machine\n"
			    "PredictBudget=1000\n",
			    &err);
	cr_assert_not_null(c, "%s", err.msg);
	cr_expect_str_eq(topo_conf_predict(c), "mmf:x=1,y=2");
	cr_expect_str_eq(topo_conf_predict_budget(c), "1000");
	cr_expect_eq(topo_conf_line(c, TOPO_CONF_PREDICT), 2);
	topo_conf_destroy(c);
}

/* A graph without cables: one switch, its nodes, no switch link. */
Test(topo_conf, graph_without_links)
{
	struct topo_conf *c = load("good_graph_no_links.conf");
	const struct topo *t = topo_conf_topo(c);

	cr_expect_eq(topo_num_nodes(t), 2);
	cr_expect_eq(topo_num_switches(t), 1);
	cr_expect_eq(topo_num_links(t), 4); /* injection and ejection */
	topo_conf_destroy(c);
}

/* RespectIsolation=yes|no (any case), default no, once. */
Test(topo_conf, respect_isolation)
{
	static const struct {
		const char *text;
		int respect;	 /* -1: refused */
		const char *why; /* the refusal */
	} cases[] = {
		{ "Topology=fattree k=2 n=2\n", 0, NULL },
		{ "Topology=fattree k=2 n=2\nRespectIsolation=yes\n", 1, NULL },
		{ "Topology=fattree k=2 n=2\nrespectisolation=NO\n", 0, NULL },
		{ "Topology=fattree k=2 n=2\nRespectIsolation=on\n", -1,
		  "r.conf:2: bad RespectIsolation=on (want yes or no)" },
		{ "Topology=fattree k=2 n=2\nRespectIsolation=yes\n"
		  "RespectIsolation=no\n",
		  -1,
		  "r.conf:3: RespectIsolation= given twice (first on line 2)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct err err = { 0 };
		struct topo_conf *c =
			topo_conf_parse("r.conf", cases[i].text, &err);

		if (cases[i].respect < 0) {
			cr_expect_null(c, "case %zu accepted", i);
			cr_expect_str_eq(err.msg, cases[i].why);
			topo_conf_destroy(c);
			continue;
		}
		cr_assert_not_null(c, "case %zu: %s", i, err.msg);
		cr_expect_eq(topo_conf_respect_isolation(c),
			     (bool)cases[i].respect, "case %zu", i);
		cr_expect_eq(topo_conf_line(c, TOPO_CONF_RESPECT_ISOLATION),
			     i ? 2u : 0u, "case %zu", i);
		topo_conf_destroy(c);
	}
}

/* A parser: whether Routing= and the policies apply is the machine's
 * check (test_machine), their syntax is the parser's. */
Test(topo_conf, routing_and_policies_unchecked)
{
	struct err err = { 0 };
	struct topo_conf *c = topo_conf_parse("u.conf",
					      "Topology=fattree k=2 n=2\n"
					      "Routing=ugal:intra=nowhere\n"
					      "PartitionPolicy=a:nosuch:x=1\n"
					      "DefaultPolicy=clustered:max=4\n"
					      "Predict=nosuch:x=1\n"
					      "PredictBudget=-5\n",
					      &err);

	cr_assert_not_null(c, "%s", err.msg);
	cr_expect_str_eq(topo_conf_routing(c), "ugal:intra=nowhere");
	cr_expect_str_eq(topo_conf_policy(c, "a"), "nosuch:x=1");
	cr_expect_str_eq(topo_conf_default_policy(c), "clustered:max=4");
	cr_expect_str_eq(topo_conf_predict(c), "nosuch:x=1");
	cr_expect_str_eq(topo_conf_predict_budget(c), "-5");
	topo_conf_destroy(c);
}

/* Continuation lines, lower/upper case keys, several NodeName= lines in
 * order, kind capacities. */
Test(topo_conf, fattree_continuation)
{
	struct topo_conf *c = load("good_fattree.conf");
	const struct topo *t = topo_conf_topo(c);

	cr_expect_str_eq(topo_spec(t), "fattree:k=4,n=2");
	cr_expect_eq(topo_num_nodes(t), 16);
	cr_expect_str_eq(topo_conf_node_name(c, 0), "a0");
	cr_expect_str_eq(topo_conf_node_name(c, 7), "a7");
	cr_expect_str_eq(topo_conf_node_name(c, 8), "b0");
	cr_expect_str_eq(topo_conf_node_name(c, 12), "c0");
	cr_expect_eq(topo_conf_node_index(c, "c3"), 15);
	cr_expect_null(topo_conf_routing(c));
	cr_expect_null(topo_conf_policy(c, "batch"));
	for (uint32_t l = 0; l < topo_num_links(t); l++)
		cr_expect_eq(topo_link(t, l)->capacity, l < 2 * 16 ? 2.0 : 10.0,
			     "link %u", l);
	topo_conf_destroy(c);
}

/* The hand-worked graph of good_graph.conf: s0-s1 (listed on both sides:
 * one cable, capacity link=2), s0-s3 (then Capacity=s0-s3:3), s1-s2 twice
 * (2 and 4), s2-s3, s1-s3 (8); radix s0 2+2, s1 2+4, s2 1+3, s3 0+3. */
Test(topo_conf, graph_counts)
{
	struct topo_conf *c = load("good_graph.conf");
	const struct topo *t = topo_conf_topo(c);
	struct topo_stats st;
	uint32_t cnt;

	cr_expect_str_eq(topo_family(t), "graph");
	cr_expect_eq(topo_kind(t), TOPO_GRAPH);
	cr_expect_eq(topo_num_switches(t), 4);
	cr_expect_eq(topo_num_nodes(t), 5);
	cr_expect_eq(topo_num_links(t), 2 * 5 + 2 * 6);
	cr_expect_eq(topo_node_switch(t, 0), 0);
	cr_expect_eq(topo_node_switch(t, 3), 1);
	cr_expect_eq(topo_node_switch(t, 4), 2);
	cr_expect_str_eq(topo_conf_node_name(c, 4), "n5");
	topo_link_between(t, 1, 2, &cnt);
	cr_expect_eq(cnt, 2);
	cr_expect_eq(cap_between(t, 0, 1, 0), 2);
	cr_expect_eq(cap_between(t, 0, 3, 0), 3);
	cr_expect_eq(cap_between(t, 3, 0, 0), 3);
	cr_expect_eq(cap_between(t, 1, 2, 0) + cap_between(t, 1, 2, 1), 6);
	cr_expect_eq(cap_between(t, 2, 3, 0), 2);
	cr_expect_eq(cap_between(t, 3, 1, 0), 8);
	cr_assert_eq(topo_stats(t, &st, NULL), 0);
	cr_expect_eq(st.radix_min, 3);
	cr_expect_eq(st.radix_max, 6);
	cr_expect_eq(st.diameter, 2);
	cr_expect_eq(topo_num_groups(t), 0);
	topo_conf_destroy(c);
}

/* Node names from Nodes= hostlists; switch names containing '-' in a
 * Capacity= pair. */
Test(topo_conf, graph_names)
{
	struct topo_conf *c = load("good_graph_names.conf");
	const struct topo *t = topo_conf_topo(c);

	cr_expect_eq(topo_num_nodes(t), 7);
	cr_expect_str_eq(topo_conf_node_name(c, 0), "cn01");
	cr_expect_str_eq(topo_conf_node_name(c, 5), "cn06");
	cr_expect_eq(topo_conf_node_index(c, "gpu1"), 6);
	cr_expect_eq(topo_node_switch(t, 6), 1);
	cr_expect_eq(cap_between(t, 0, 2, 0), 5);
	cr_expect_eq(cap_between(t, 1, 2, 0), 2);
	topo_conf_destroy(c);
}

Test(topo_conf, cascade_names)
{
	struct topo_conf *c = load("good_cascade.conf");

	cr_expect_eq(topo_num_nodes(topo_conf_topo(c)), 768);
	cr_expect_eq(topo_conf_node_index(c, "nid00767"), 767);
	topo_conf_destroy(c);
}

/* Ten thousand names map back to their indices (the plugin's case). */
Test(topo_conf, many_names)
{
	struct err err = { 0 };
	struct topo_conf *c = topo_conf_parse("big.conf",
					      "Topology=fattree k=22 n=3\n"
					      "NodeName=nid[00000-10647]\n",
					      &err);
	char name[16];

	cr_assert_not_null(c, "%s", err.msg);
	for (uint32_t i = 0; i < 10648; i++) {
		snprintf(name, sizeof(name), "nid%05u", i);
		cr_assert_eq(topo_conf_node_index(c, name), i);
	}
	topo_conf_destroy(c);
}

Test(topo_conf, take_topo_and_unnamed)
{
	struct err err = { 0 };
	struct topo_conf *c =
		topo_conf_parse("x.conf", "Topology=dragonfly", &err);
	struct topo *t;

	cr_assert_not_null(c, "%s", err.msg);
	cr_expect(!topo_conf_has_names(c));
	cr_expect_null(topo_conf_node_name(c, 0));
	cr_expect_eq(topo_conf_node_index(c, "nid0"), TOPO_NONE);
	t = topo_conf_take_topo(c);
	cr_expect_null(topo_conf_topo(c));
	topo_conf_destroy(c);
	cr_expect_eq(topo_num_nodes(t), 72);
	topo_destroy(t);
	topo_conf_destroy(NULL);
}

/* topo_create takes specs only: a path is not a family (files are the
 * parser's, loaded through the machine), whether or not it exists. */
Test(topo_conf, topo_create_no_path)
{
	char path[1024];
	struct err err = { 0 };

	cr_expect_null(topo_create("tests/data/x.conf", &err));
	cr_expect_str_eq(
		err.msg,
		"unknown topology family 'tests/data/x.conf' (known: dragonfly, cascade, fattree, expressmesh, hyperx, torus, jellyfish)");
	data_path(path, sizeof(path), "good_graph.conf");
	cr_expect_null(topo_create(path, &err));
	/* refused as a spec, never opened: an unknown family, or a name too
	 * long to be one (the absolute path of a distcheck build) */
	cr_expect(strstr(err.msg, "unknown topology family '") ||
			  strstr(err.msg, "longer than 63 characters"),
		  "%s", err.msg);
}

Test(topo_conf, missing_file)
{
	struct err err = { 0 };

	cr_expect_null(topo_conf_load("/nonexistent/x.conf", &err));
	cr_expect_str_eq(err.msg, "/nonexistent/x.conf: cannot open: No such "
				  "file or directory");
}

/* Wrap=: the wrapped select plugin, canonical names; default cons_tres. */
Test(topo_conf, wrap)
{
	static const struct {
		const char *text, *want;
	} ok[] = {
		{ "Topology=fattree\nWrap=cons_tres\n", "select/cons_tres" },
		{ "Topology=fattree\nWrap=select/cons_tres\n",
		  "select/cons_tres" },
		{ "Topology=fattree\nWRAP=linear\n", "select/linear" },
		{ "Wrap=select/linear   # comment\nTopology=fattree\n",
		  "select/linear" },
		{ "Topology=fattree\n", "select/cons_tres" },
	};
	struct topo_conf *c = load("good_wrap_linear.conf");
	char path[1024];
	struct err err = { 0 };

	cr_expect_str_eq(topo_conf_wrap(c), "select/linear");
	cr_expect_str_eq(topo_conf_policy(c, "batch"), "fattree-pods");
	topo_conf_destroy(c);
	/* the default: a file without Wrap= */
	c = load("good_fattree.conf");
	cr_expect_str_eq(topo_conf_wrap(c), "select/cons_tres");
	topo_conf_destroy(c);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		c = topo_conf_parse("w.conf", ok[i].text, &err);
		cr_assert_not_null(c, "%s: %s", ok[i].text, err.msg);
		cr_expect_str_eq(topo_conf_wrap(c), ok[i].want, "%s",
				 ok[i].text);
		topo_conf_destroy(c);
	}
	/* the peek reads Wrap= without building the topology, and reports
	 * the directive errors of the full parser */
	data_path(path, sizeof(path), "good_wrap_linear.conf");
	cr_expect_str_eq(topo_conf_peek_wrap(path, &err), "select/linear", "%s",
			 err.msg);
	data_path(path, sizeof(path), "good_dragonfly.conf");
	cr_expect_str_eq(topo_conf_peek_wrap(path, &err), "select/cons_tres",
			 "%s", err.msg);
	data_path(path, sizeof(path), "bad_wrap.conf");
	cr_expect_null(topo_conf_peek_wrap(path, &err));
	cr_expect(strstr(err.msg, "bad_wrap.conf:3: Wrap=cons_res: must be "
				  "cons_tres or linear") != NULL,
		  "%s", err.msg);
	data_path(path, sizeof(path), "bad_wrap_twice.conf");
	cr_expect_null(topo_conf_peek_wrap(path, &err));
	cr_expect(strstr(err.msg, "bad_wrap_twice.conf:3: Wrap= given twice") !=
			  NULL,
		  "%s", err.msg);
	cr_expect_null(topo_conf_peek_wrap("/nonexistent/topo.conf", &err));
	cr_expect_str_eq(err.msg, "/nonexistent/topo.conf: cannot open: No "
				  "such file or directory");
}

struct bad_case {
	char file[48];
	unsigned line;
	char msg[160];
};

static const struct bad_case bad[] = {
	{ "bad_unknown_key.conf", 2, "unknown key 'Foo'" },
	{ "bad_no_equals.conf", 3, "expected Key=Value, got 'NodeName'" },
	{ "bad_empty_value.conf", 2, "Routing= has an empty value" },
	{ "bad_topology_twice.conf", 3,
	  "Topology= given twice (first on line 1)" },
	{ "bad_topology_empty.conf", 1, "Topology= needs a family" },
	{ "bad_no_topology.conf", 3, "no Topology= directive" },
	{ "bad_family.conf", 2, "unknown topology family 'hypercube'" },
	{ "bad_family_param.conf", 1, "g=10 exceeds a*h+1=9" },
	{ "bad_family_key.conf", 1, "fattree: unknown parameter 'm'" },
	{ "bad_family_syntax.conf", 1, "bad parameter 'n' (want key=value)" },
	{ "bad_routing.conf", 2,
	  "Routing= takes one value (unexpected 'extra')" },
	{ "bad_routing_name.conf", 2, "bad routing ':k=2'" },
	{ "bad_routing_twice.conf", 3,
	  "Routing= given twice (first on line 1)" },
	{ "bad_hostlist.conf", 2, "NodeName=n[3-1]: range with high < low" },
	{ "bad_hostlist_open.conf", 2, "bad range in brackets" },
	{ "bad_hostlist_suffix.conf", 2,
	  "NodeName=n[0-3]x: text after ']' in hostlist" },
	{ "bad_hostlist_range.conf", 3, "range of more than 65536 names" },
	{ "bad_node_count.conf", 3,
	  "NodeName= names 3 nodes but the topology has 4" },
	{ "bad_node_dup.conf", 3, "node name 'n1' given twice" },
	{ "bad_capacity_syntax.conf", 2, "bad Capacity=global (want KIND:CAP" },
	{ "bad_capacity_value.conf", 2,
	  "bad capacity '-2' (want a number above 0, at most 1e12)" },
	{ "bad_capacity_target.conf", 2, "Capacity=spine: not a link kind" },
	{ "bad_capacity_nolink.conf", 3,
	  "Capacity=0-1: no link between switch 0 and switch 1" },
	{ "bad_capacity_kind.conf", 2,
	  "this fattree topology has no global links" },
	{ "bad_partpolicy.conf", 2,
	  "bad PartitionPolicy=batch (want PARTITION:POLICY" },
	{ "bad_partpolicy_dup.conf", 3,
	  "partition 'batch' given twice (first on line 2)" },
	{ "bad_defpolicy_twice.conf", 3,
	  "DefaultPolicy= given twice (first on line 1)" },
	{ "bad_switch_nograph.conf", 2, "SwitchName= needs Topology=graph" },
	{ "bad_graph_empty.conf", 2, "Topology=graph needs SwitchName= lines" },
	{ "bad_graph_nodes_huge.conf", 3,
	  "Nodes=: 10000000 exceeds the limit nodes=1048576 (raise it with "
	  "stopo --limit nodes=N)" },
	{ "bad_graph_nodes_total.conf", 4,
	  "nodes up to this line: 1200000 exceeds the limit nodes=1048576" },
	{ "bad_graph_no_nodes.conf", 2,
	  "Topology=graph: no compute nodes (give Nodes= on the switches "
	  "that have them)" },
	{ "bad_graph_param.conf", 1, "graph: unknown parameter 'speed'" },
	{ "bad_graph_unknown_link.conf", 2, "Links=: unknown switch 's2'" },
	{ "bad_graph_self.conf", 3, "switch 's2' linked to itself" },
	{ "bad_graph_dup_switch.conf", 3,
	  "switch 's1' defined twice (first on line 2)" },
	{ "bad_graph_disagree.conf", 3,
	  "switches 's1' and 's2' disagree on their links (2 vs 1 cables)" },
	{ "bad_graph_disagree_cap.conf", 3, "disagree on link capacities" },
	{ "bad_graph_name.conf", 2, "bad switch name 's/1'" },
	{ "bad_graph_key.conf", 2,
	  "unknown key 'Ports' on a SwitchName= line" },
	{ "bad_graph_mixed.conf", 3,
	  "Nodes=3: a count, but line 2 names its nodes" },
	{ "bad_graph_nodename.conf", 2,
	  "NodeName= conflicts with the node names given by Nodes= on line 3" },
	{ "bad_graph_linkcap.conf", 2, "bad capacity 'fast' in Links=" },
	{ "bad_graph_nodes_twice.conf", 2, "Nodes= given twice" },
	{ "bad_continuation_eof.conf", 2,
	  "the line ends in '\\' (continued) but the file ends here" },
	{ "bad_continuation.conf", 2,
	  "NodeName= takes one value (unexpected 'c[0-7]')" },
	{ "bad_wrap.conf", 3, "Wrap=cons_res: must be cons_tres or linear" },
	{ "bad_wrap_case.conf", 2, "Wrap=Linear: must be cons_tres or linear" },
	{ "bad_wrap_twice.conf", 3, "Wrap= given twice (first on line 1)" },
	{ "bad_wrap_words.conf", 2,
	  "Wrap= takes one value (unexpected 'cons_tres')" },
	{ "bad_wrap_empty.conf", 3, "Wrap= has an empty value" },
};

/* Messages given whole: exactly "PATH:LINE: MSG". */
static const struct bad_case exact[] = {
	{ "bad_unknown_key.conf", 2,
	  "unknown key 'Foo' (Topology, Routing, NodeName, Capacity, "
	  "PartitionPolicy, DefaultPolicy, SwitchName, Forward, Wrap, "
	  "Predict, PredictBudget, RespectIsolation)" },
	{ "bad_predict_twice.conf", 3,
	  "Predict= given twice (first on line 2)" },
	{ "bad_predict_words.conf", 2,
	  "Predict= takes one value (unexpected 'jm')" },
	{ "bad_predict_syntax.conf", 2,
	  "bad Predict=:x=1 (want MODEL[:key=value,...])" },
	{ "bad_predict_empty.conf", 3, "Predict= has an empty value" },
	{ "bad_budget_twice.conf", 3,
	  "PredictBudget= given twice (first on line 1)" },
	{ "bad_budget_words.conf", 2,
	  "PredictBudget= takes one value (unexpected 'ms')" },
};

/* The message is exactly "PATH:LINE: ..." and contains the expected
 * text.  One process for the whole table (valgrind runs each test
 * process). */
Test(topo_conf, errors)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_case *c = &bad[i];
		char path[1024], prefix[1100];
		struct err err = { 0 };
		struct topo_conf *conf;

		data_path(path, sizeof(path), c->file);
		conf = topo_conf_load(path, &err);
		cr_assert_null(conf, "%s accepted", c->file);
		cr_assert_lt((size_t)snprintf(prefix, sizeof(prefix),
					      "%s:%u: ", path, c->line),
			     sizeof(prefix));
		cr_expect(!strncmp(err.msg, prefix, strlen(prefix)),
			  "%s: got '%s', want line %u", c->file, err.msg,
			  c->line);
		cr_expect(strstr(err.msg, c->msg) != NULL,
			  "%s: got '%s', want '%s'", c->file, err.msg, c->msg);
	}
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		const struct bad_case *c = &exact[i];
		char path[1024], want[1300];
		struct err err = { 0 };
		struct topo_conf *conf;

		data_path(path, sizeof(path), c->file);
		conf = topo_conf_load(path, &err);
		cr_assert_null(conf, "%s accepted", c->file);
		snprintf(want, sizeof(want), "%s:%u: %s", path, c->line,
			 c->msg);
		cr_expect_str_eq(err.msg, want, "%s", c->file);
	}
}

/* Hostlists (topo/util/hl.c): checked before libslurm sees them, so that
 * a number beyond 2^64 is not clamped into another name and libslurm
 * prints nothing of its own (issue 13, class 4). */
Test(topo_conf, hostlist_checked)
{
	static const struct {
		const char *expr;
		const char *why; /* NULL: accepted */
		uint64_t count;
	} cases[] = {
		{ "n[0-3]", NULL, 4 },
		{ "a,b", NULL, 2 },
		{ "n[1,3-5]", NULL, 4 },
		{ "nid[000-009]", NULL, 10 },
		{ "n[999999999]", NULL, 1 },
		{ "n[99999999999999999999]",
		  "number of more than 9 digits in brackets", 0 },
		{ "n[1000000000]", "number of more than 9 digits in brackets",
		  0 },
		/* the digits ending a name are one number to libslurm
		 * (tests/fuzz/corpus/hostlist/bug_long_number_suffix) */
		{ "n123456789,x", NULL, 2 },
		{ "n1234567890",
		  "name ending in a number of more than 9 digits", 0 },
		{ "44444444444444,4444444444444444444444444444",
		  "name ending in a number of more than 9 digits", 0 },
		{ "n12345[67890]",
		  "name ending in a number of more than 9 digits", 0 },
		{ "n1[2-3]4[5-6]", NULL, 4 },
		{ "n1[2-3]4[05-6],n", NULL, 5 },
		/* libslurm expands several brackets range by range
		 * (tests/fuzz/corpus/hostlist/bug_slow_brackets) */
		{ "a[0-255]b[0-255]", NULL, 65536 },
		{ "a[0-65535]b[0],c[0-1]d[0]",
		  "names with several brackets give more than 65536 names", 0 },
		{ "n[0-15]n[0-5]n[0-15]n[0-515]",
		  "names with several brackets give more than 65536 names", 0 },
		{ "n[3-1]", "range with high < low", 0 },
		{ "n[0-65536]",
		  "range of more than 65536 names (Slurm's limit)", 0 },
		{ "n[1", "unterminated '[' in hostlist", 0 },
		{ "n1]", "bad character in hostlist", 0 },
		{ "a,,b", "empty name in hostlist", 0 },
		{ "a,", "empty name in hostlist", 0 },
		{ "n[a]", "bad range in brackets", 0 },
		{ "n[1-]", "bad range in brackets", 0 },
		{ "n[1]x", "text after ']' in hostlist", 0 },
		{ "a b", "bad character in hostlist", 0 },
		{ "", "empty hostlist", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *why = hl_error(cases[i].expr);
		struct hl *h = hl_parse(cases[i].expr);

		if (cases[i].why) {
			cr_expect_str_eq(why ? why : "(accepted)", cases[i].why,
					 "%s", cases[i].expr);
			cr_expect_null(h, "%s parsed", cases[i].expr);
		} else {
			cr_expect_null(why, "%s: %s", cases[i].expr, why);
			cr_assert_not_null(h, "%s", cases[i].expr);
			cr_expect_eq(hl_count(h), cases[i].count, "%s",
				     cases[i].expr);
		}
		hl_destroy(h);
	}
}

/* libslurm counts a hostlist's names in an int: 16,385 ranges of 65,536
 * names (2^30 + 65,536) are refused; 16,384 (2^30) are read whole. */
Test(topo_conf, hostlist_total_names)
{
	const char *unit = "a[0-65535],";
	size_t ul = strlen(unit);
	char *s = malloc(16385 * ul + 1);
	struct hl *h;

	cr_assert_not_null(s);
	for (size_t i = 0; i < 16385; i++)
		memcpy(s + i * ul, unit, ul);
	s[16385 * ul - 1] = '\0'; /* no trailing comma */
	cr_expect_str_eq(hl_error(s), "more than 2^30 names in one hostlist");
	s[16384 * ul - 1] = '\0';
	cr_expect_null(hl_error(s));
	h = hl_parse(s);
	cr_assert_not_null(h);
	cr_expect_eq(hl_count(h), (uint64_t)1 << 30);
	hl_destroy(h);
	free(s);
}

/* /dev/zero is a NUL byte on line 1, found in the first buffer. */
Test(topo_conf, dev_zero)
{
	struct err err = { 0 };

	cr_expect_null(topo_conf_load("/dev/zero", &err));
	cr_expect_str_eq(err.msg, "/dev/zero:1: NUL byte");
}

/* A 10,000-switch graph (a ring with chords at +7 and +101; 4 nodes per
 * switch) parses into exactly its declared counts; switch names are found
 * by hash, so this takes milliseconds (bench_topo times it), where the
 * linear lookups took seconds. */
Test(topo_conf, graph_10000_switches)
{
	const uint32_t S = 10000;
	size_t cap = (size_t)S * 64, len = 0;
	char *text = malloc(cap);
	struct err err = { 0 };
	struct topo_conf *c;
	const struct topo *t;

	cr_assert(text);
	len += (size_t)snprintf(text, cap, "Topology=graph\n");
	for (uint32_t i = 0; i < S; i++)
		len += (size_t)snprintf(text + len, cap - len,
					"SwitchName=s%u Nodes=4 "
					"Links=s%u,s%u,s%u\n",
					i, (i + 1) % S, (i + 7) % S,
					(i + 101) % S);
	c = topo_conf_parse("big.conf", text, &err);
	cr_assert_not_null(c, "%s", err.msg);
	t = topo_conf_topo(c);
	cr_expect_eq(topo_num_switches(t), S);
	cr_expect_eq(topo_num_nodes(t), 4 * S);
	/* 3 cables declared per switch, each from one side only */
	cr_expect_eq(topo_num_links(t), 2 * 4 * S + 2 * 3 * S);
	cr_expect_eq(topo_check(t, &err), 0, "%s", err.msg);
	topo_conf_destroy(c);
	free(text);
}
