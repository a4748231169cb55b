/* test_import.c - round trip: a generated topology written as
 * ibnetdiscover text (import_export_ibnetdiscover) and read back by
 * import_ibnetdiscover gives the same switch graph: switch, node and cable
 * counts, and every switch's node count and degree; the topo.conf written
 * from it loads, and is recognised as the generated family with the same
 * levels and the same pods or groups (up to their numbering). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/import/import.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"

/* FAB's topo.conf, loaded, is T's family with T's levels, groups (a
 * bijection between the two numberings) and switch of every node. */
static void check_recognised(const char *spec, const struct topo *t,
			     const struct import_fabric *fab)
{
	struct err err = { "" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct topo_conf *c;
	const struct topo *g;
	uint32_t nsw = topo_num_switches(t), ng = topo_num_groups(t);
	uint32_t *map, *back;

	cr_assert(f);
	cr_assert_eq(import_write_conf(fab, f, &err), 0, "%s", err.msg);
	fclose(f);
	c = topo_conf_parse("imported.conf", text, &err);
	free(text);
	cr_assert(c, "%s: %s", spec, err.msg);
	g = topo_conf_topo(c);
	cr_assert_str_eq(topo_graph_family(g), topo_family(t), "%s: %s", spec,
			 topo_graph_why(g) ? topo_graph_why(g) : "");
	cr_assert_eq(topo_num_switches(g), nsw);
	cr_assert_eq(topo_num_groups(g), ng, "%s groups", spec);
	map = malloc((ng + 1) * sizeof(*map));
	back = malloc((ng + 1) * sizeof(*back));
	cr_assert(map && back);
	for (uint32_t i = 0; i < ng; i++)
		map[i] = back[i] = TOPO_NONE;
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t a = topo_switch_group(t, s),
			 b = topo_switch_group(g, s);

		cr_assert_eq(topo_switch_level(g, s), topo_switch_level(t, s),
			     "%s switch %u level", spec, s);
		cr_assert_eq(a == TOPO_NONE, b == TOPO_NONE, "%s switch %u",
			     spec, s);
		if (a == TOPO_NONE)
			continue;
		if (map[a] == TOPO_NONE && back[b] == TOPO_NONE) {
			map[a] = b;
			back[b] = a;
		}
		cr_assert_eq(map[a], b, "%s switch %u: group %u is %u and %u",
			     spec, s, a, map[a], b);
	}
	for (uint32_t i = 0; i < topo_num_nodes(t); i++)
		cr_assert_eq(topo_node_switch(g, i), topo_node_switch(t, i),
			     "%s node %u", spec, i);
	free(map);
	free(back);
	topo_conf_destroy(c);
}

static void round_trip(const char *spec)
{
	struct err err = { "" };
	struct topo *t = topo_create(spec, &err);
	char path[] = "/tmp/test_import_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct import_fabric *fab;
	uint32_t nsw;

	cr_assert(t, "%s: %s", spec, err.msg);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	cr_assert_eq(import_export_ibnetdiscover(t, f, &err), 0, "%s", err.msg);
	fclose(f);
	fab = import_ibnetdiscover(path, NULL, &err);
	unlink(path);
	cr_assert(fab, "%s: %s", spec, err.msg);
	nsw = topo_num_switches(t);
	cr_assert_eq(import_num_switches(fab), nsw, "%s", spec);
	cr_assert_eq(import_num_nodes(fab), topo_num_nodes(t), "%s", spec);
	cr_assert_eq(import_num_cables(fab),
		     (topo_num_links(t) - 2 * topo_num_nodes(t)) / 2, "%s",
		     spec);
	cr_assert_eq(import_num_warnings(fab), 0, "%s: %s", spec,
		     import_warning(fab, 0));
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t nn, nout, in, ic;

		topo_switch_nodes(t, s, &nn);
		topo_switch_out(t, s, &nout);
		cr_assert_eq(import_switch_degree(fab, s, &in, &ic), 0);
		cr_assert_eq(in, nn, "%s switch %u nodes", spec, s);
		cr_assert_eq(ic, nout, "%s switch %u degree", spec, s);
	}
	cr_assert_eq(import_switch_degree(fab, nsw, &nsw, &nsw), -1);
	check_recognised(spec, t, fab);
	import_destroy(fab);
	topo_destroy(t);
}

Test(import, fattree_round_trip)
{
	round_trip("fattree:k=4,n=3");
}

Test(import, dragonfly_round_trip)
{
	round_trip("dragonfly:p=2,a=4,h=2,g=9");
}

/* FAB's topo.conf, parsed (free with topo_conf_destroy). */
static struct topo_conf *fabric_conf(const struct import_fabric *fab)
{
	struct err err = { "" };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct topo_conf *c;

	cr_assert(f);
	cr_assert_eq(import_write_conf(fab, f, &err), 0, "%s", err.msg);
	fclose(f);
	c = topo_conf_parse("imported.conf", text, &err);
	free(text);
	cr_assert(c, "%s", err.msg);
	return c;
}

/* G has T's switches, nodes and links: the same switch of every node, and
 * from every switch links to the same switches with the same capacities
 * (in link order, parallel links included). */
static void same_machine(const struct topo *t, const struct topo *g,
			 const char *what)
{
	cr_assert_eq(topo_num_switches(g), topo_num_switches(t), "%s", what);
	cr_assert_eq(topo_num_nodes(g), topo_num_nodes(t), "%s", what);
	cr_assert_eq(topo_num_links(g), topo_num_links(t), "%s", what);
	for (uint32_t n = 0; n < topo_num_nodes(t); n++)
		cr_assert_eq(topo_node_switch(g, n), topo_node_switch(t, n),
			     "%s node %u", what, n);
	for (uint32_t l = topo_first_switch_link(t); l < topo_num_links(t);
	     l++) {
		const struct topo_link *a = topo_link(t, l),
				       *b = topo_link(g, l);

		cr_assert_eq(b->from, a->from, "%s link %u", what, l);
		cr_assert_eq(b->to, a->to, "%s link %u", what, l);
		cr_assert_float_eq(b->capacity, a->capacity, 1e-9,
				   "%s link %u: capacity %g, want %g", what, l,
				   b->capacity, a->capacity);
	}
}

/* A Cascade as an Aries link list and back: the same machine, recognised
 * as a Cascade with its groups. */
Test(import, aries_round_trip)
{
	static const char *const specs[] = {
		"cascade:groups=3,block=4,bundle=2", "cascade:groups=2"
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct err err = { "" };
		struct topo *t = topo_create(specs[i], &err);
		char path[] = "/tmp/test_import_XXXXXX";
		int fd = mkstemp(path);
		FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
		struct import_fabric *fab;
		struct topo_conf *c;
		const struct topo *g;

		cr_assert(t && f, "%s", err.msg);
		cr_assert_eq(import_export_aries(t, f, &err), 0, "%s", err.msg);
		fclose(f);
		fab = import_aries(path, &err);
		unlink(path);
		cr_assert(fab, "%s: %s", specs[i], err.msg);
		c = fabric_conf(fab);
		g = topo_conf_topo(c);
		same_machine(t, g, specs[i]);
		cr_assert_str_eq(topo_graph_family(g), "cascade", "%s: %s",
				 specs[i], topo_graph_why(g));
		for (uint32_t s = 0; s < topo_num_switches(t); s++)
			cr_expect_eq(topo_switch_group(g, s),
				     topo_switch_group(t, s), "%s switch %u",
				     specs[i], s);
		topo_conf_destroy(c);
		import_destroy(fab);
		topo_destroy(t);
	}
}

/* NERSC's Edison as its Aries link list (../shared/fabrics, when present)
 * is exactly cascade:groups=15,block=2,bundle=2: its groups 0-11 and
 * 13-15 in order, every router's links to the same routers with the same
 * capacities (3 column cables, 2 global ones a router pair). */
Test(import, edison_from_spec)
{
	const char *path = SRCDIR "/../shared/fabrics/aries/edison.links";
	struct err err = { "" };
	struct import_fabric *fab;
	struct topo_conf *c;
	struct topo *t;
	struct topo_graph_info gi;

	if (access(path, R_OK)) {
		cr_skip_test("%s not found", path);
		return;
	}
	fab = import_aries(path, &err);
	cr_assert(fab, "%s", err.msg);
	c = fabric_conf(fab);
	t = topo_create("cascade:groups=15,block=2,bundle=2", &err);
	cr_assert(t, "%s", err.msg);
	same_machine(t, topo_conf_topo(c), "Edison");
	topo_graph_info(topo_conf_topo(c), &gi);
	cr_expect_str_eq(gi.family, "cascade");
	cr_expect_eq(gi.groups, 15);
	cr_expect_eq(gi.rows, 6);
	cr_expect_eq(gi.cols, 16);
	/* 24 cables a group pair, merged two by two */
	cr_expect_eq(gi.pair_min, 12);
	cr_expect_eq(gi.pair_max, 12);
	topo_conf_destroy(c);
	topo_destroy(t);
	import_destroy(fab);
}

/* The sampled Theta cables (tests/data/import/theta_sample.links, from the
 * public interconnect file) are links of cascade:groups=9,block=4,
 * bundle=2: router (g:r:c) is switch 96 g + 16 r + c, each router pair
 * listed twice (two cables: capacity 2). */
Test(import, theta_sample)
{
	struct err err = { "" };
	struct topo *t = topo_create("cascade:groups=9,block=4,bundle=2", &err);
	FILE *f = fopen(SRCDIR "/tests/data/import/theta_sample.links", "r");
	char line[256];
	uint32_t n = 0, seen[864] = { 0 };

	cr_assert(t && f, "%s", err.msg);
	cr_expect_eq(topo_param_int(t, "pair"), 48);
	while (fgets(line, sizeof(line), f)) {
		unsigned g1, r1, c1, g2, r2, c2;
		uint32_t a, b, cnt, l;
		const char *q = strchr(line, '(');

		if (line[0] == '#' || !q)
			continue;
		cr_assert_eq(sscanf(q, "(%u:%u:%u) blue -> %*[^(](%u:%u:%u)",
				    &g1, &r1, &c1, &g2, &r2, &c2),
			     6, "%s", line);
		a = 96 * g1 + 16 * r1 + c1;
		b = 96 * g2 + 16 * r2 + c2;
		l = topo_link_between(t, a, b, &cnt);
		cr_assert_neq(l, TOPO_NONE, "no link for %s", line);
		cr_expect_eq(cnt, 1);
		cr_expect_eq(topo_link(t, l)->capacity, 2.0, "%s", line);
		seen[b]++;
		n++;
	}
	fclose(f);
	cr_expect_eq(n, 28);
	for (uint32_t s = 0; s < 864; s++)
		cr_expect(seen[s] == 0 || seen[s] == 2, "switch %u: %u cables",
			  s, seen[s]);
	topo_destroy(t);
}

/* TEXT in a new temporary file; its path in PATH (unlink it after). */
static void temp_file(char *path, const char *text)
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/test_import_XXXXXX");
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* FAB's topo.conf without its first line (which names the input). */
static char *conf_body(const struct import_fabric *fab)
{
	struct err err = { "" };
	char *text = NULL, *body;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert(f);
	cr_assert_eq(import_write_conf(fab, f, &err), 0, "%s", err.msg);
	fclose(f);
	body = strdup(strchr(text, '\n') + 1);
	free(text);
	return body;
}

/* A topology.yaml and the topology.conf it is written from by hand give
 * the same topo.conf. */
static const struct {
	const char *conf, *yaml, *name;
} yaml_cases[] = {
	{ "SwitchName=a Nodes=n[0-1]\nSwitchName=b Nodes=n[2-3]\n"
	  "SwitchName=c Switches=a,b\n",
	  "- topology: t\n  tree:\n    switches:\n"
	  "      - {switch: a, nodes: \"n[0-1]\"}\n"
	  "      - {switch: b, nodes: \"n[2-3]\"}\n"
	  "      - {switch: c, children: \"a,b\"}\n",
	  NULL },
	{ "BlockName=x Nodes=h[1-4]\nBlockName=y Nodes=h[5-8]\n"
	  "BlockSizes=4\n",
	  "- topology: f\n  flat: true\n"
	  "- topology: blk\n  cluster_default: yes\n  block:\n"
	  "    block_sizes: [4]\n    blocks:\n"
	  "      - block: x\n        nodes: h[1-4]\n"
	  "      - block: y\n        nodes: h[5-8]\n",
	  NULL },
	{ "SwitchName=p Nodes=q1\n",
	  "- topology: one\n  tree: {switches: [{switch: r, nodes: q9}]}\n"
	  "- topology: two\n  tree: {switches: [{switch: p, nodes: q1}]}\n",
	  "two" },
};

Test(import, slurm_yaml_as_conf)
{
	for (size_t i = 0; i < sizeof(yaml_cases) / sizeof(*yaml_cases); i++) {
		struct err err = { "" };
		char cpath[64], ypath[64], *a, *b;
		struct import_fabric *fc, *fy;

		temp_file(cpath, yaml_cases[i].conf);
		temp_file(ypath, yaml_cases[i].yaml);
		fc = import_slurm_topology(cpath, &err);
		cr_assert(fc, "case %zu: %s", i, err.msg);
		fy = import_slurm_yaml(ypath, yaml_cases[i].name, &err);
		cr_assert(fy, "case %zu: %s", i, err.msg);
		unlink(cpath);
		unlink(ypath);
		a = conf_body(fc);
		b = conf_body(fy);
		cr_assert_str_eq(a, b, "case %zu", i);
		cr_assert_eq(import_num_switches(fy), import_num_switches(fc));
		cr_assert_eq(import_num_nodes(fy), import_num_nodes(fc));
		cr_assert_eq(import_num_cables(fy), import_num_cables(fc));
		free(a);
		free(b);
		import_destroy(fc);
		import_destroy(fy);
	}
}
