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
#include "topo/routing.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"

/* FAB's topo.conf, loaded, is T's family with T's levels, groups (a
 * bijection between the two numberings) and switch of every node. */
static void check_recognised(const char *spec, const struct topo *t,
			     const struct import_fabric *fab)
{
	struct err err = { 0 };
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
	struct err err = { 0 };
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
	struct err err = { 0 };
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

/* Random jobs of T and of G (the same machine) have the same link sets
 * under routing SPEC. */
static void same_link_sets(const struct topo *t, const struct topo *g,
			   const char *spec, const char *what)
{
	struct err err = { 0 };
	struct routing *a = routing_create(t, spec, &err);
	struct routing *b = a ? routing_create(g, spec, &err) : NULL;
	uint32_t N = topo_num_nodes(t), L = topo_num_links(t);
	uint8_t *ua = malloc(L), *ub = malloc(L);

	cr_assert(a && b && ua && ub, "%s %s: %s", what, spec, err.msg);
	for (uint32_t j = 0; j < 12; j++) {
		uint32_t nodes[16], n = 2 + j % 14;

		for (uint32_t q = 0; q < n; q++)
			nodes[q] = (j * 131 + q * 37 + q * q * 11) % N;
		memset(ua, 0, L);
		memset(ub, 0, L);
		cr_assert_eq(routing_linkset(a, nodes, n, ua, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(routing_linkset(b, nodes, n, ub, &err), 0, "%s",
			     err.msg);
		cr_assert(!memcmp(ua, ub, L), "%s %s job %u", what, spec, j);
	}
	free(ua);
	free(ub);
	routing_destroy(a);
	routing_destroy(b);
}

/* A Cascade as an Aries link list and back: the same machine, recognised
 * as a Cascade with its groups, the same link sets under ugal and min. */
Test(import, aries_round_trip)
{
	static const char *const specs[] = {
		"cascade:groups=3,block=4,bundle=2", "cascade:groups=2"
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct err err = { 0 };
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
		same_link_sets(t, g, "ugal", specs[i]);
		same_link_sets(t, g, "min", specs[i]);
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
	struct err err = { 0 };
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
	struct err err = { 0 };
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

/* A new temporary file open for writing; its path in PATH (unlink it
 * after). */
static FILE *temp_open(char *path)
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/test_import_XXXXXX");
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	return f;
}

/* TEXT in a new temporary file; its path in PATH (unlink it after). */
static void temp_file(char *path, const char *text)
{
	FILE *f = temp_open(path);

	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* FAB's topo.conf without its first line (which names the input). */
static char *conf_body(const struct import_fabric *fab)
{
	struct err err = { 0 };
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
		struct err err = { 0 };
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

/* A temporary file (its name in PATH: unlink it after) with T as
 * ibnetdiscover text, or with R's forwarding tables when R is given. */
static void write_temp(char *path, const struct topo *t,
		       const struct routing *r)
{
	struct err err = { 0 };
	FILE *f = temp_open(path);

	if (r)
		cr_assert_eq(import_export_lft(r, f, &err), 0, "%s", err.msg);
	else
		cr_assert_eq(import_export_ibnetdiscover(t, f, &err), 0, "%s",
			     err.msg);
	cr_assert_eq(fclose(f), 0);
}

/* The links of job NODES[0..n) under R (a new array of L flags). */
static uint8_t *job_links(const struct routing *r, const uint32_t *nodes,
			  uint32_t n)
{
	struct err err = { 0 };
	uint8_t *u = calloc(topo_num_links(routing_topo(r)), 1);

	cr_assert(u);
	cr_assert_eq(routing_linkset(r, nodes, n, u, &err), 0, "%s", err.msg);
	return u;
}

/* A fat-tree under dmodk written as ibnetdiscover text and ibroute
 * tables, imported with --lft: the same machine, Routing=lft, and for
 * every pair of nodes the one lft path is dmodk's (destination based);
 * random jobs have the same link sets. */
Test(import, lft_round_trip)
{
	static const char *const specs[] = { "fattree:k=4,n=3",
					     "fattree:k=3,n=2" };

	for (size_t i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct err err = { 0 };
		struct topo *t = topo_create(specs[i], &err);
		struct routing *dk, *lft;
		char ib[64], tab[64];
		const char *lfts[] = { tab, NULL };
		struct import_ib_opts o = { .lft = lfts };
		const char *paths[1] = { ib };
		struct import_fabric *fab;
		struct topo_conf *c;
		const struct topo *g;
		struct pathset a, b;
		uint32_t N;

		cr_assert(t, "%s", err.msg);
		dk = routing_create(t, "dmodk", &err);
		cr_assert(dk, "%s", err.msg);
		write_temp(ib, t, NULL);
		write_temp(tab, t, dk);
		fab = import_ibnet(paths, 1, &o, &err);
		unlink(ib);
		unlink(tab);
		cr_assert(fab, "%s: %s", specs[i], err.msg);
		c = fabric_conf(fab);
		g = topo_conf_topo(c);
		same_machine(t, g, specs[i]);
		cr_expect_str_eq(topo_conf_routing(c), "lft");
		lft = routing_create(g, "lft", &err);
		cr_assert(lft, "%s", err.msg);
		N = topo_num_nodes(t);
		pathset_init(&a);
		pathset_init(&b);
		for (uint32_t s = 0; s < N; s++)
			for (uint32_t d = 0; d < N; d++) {
				if (s == d)
					continue;
				cr_assert_eq(routing_paths(dk, s, d, &a, &err),
					     0);
				cr_assert_eq(routing_paths(lft, s, d, &b, &err),
					     0, "%s", err.msg);
				cr_assert_eq(a.n, 1);
				cr_assert_eq(b.n, 1);
				cr_assert_eq(a.off[1], b.off[1]);
				cr_assert(!memcmp(a.links, b.links,
						  a.off[1] * sizeof(*a.links)),
					  "%s: %u -> %u", specs[i], s, d);
			}
		for (uint32_t j = 0; j < 20; j++) {
			uint32_t nodes[8], n = 2 + j % 6;
			uint8_t *ua, *ub;

			for (uint32_t q = 0; q < n; q++)
				nodes[q] = (j * 7 + q * 5 + q * q) % N;
			ua = job_links(dk, nodes, n);
			ub = job_links(lft, nodes, n);
			cr_assert(!memcmp(ua, ub, topo_num_links(t)),
				  "%s job %u", specs[i], j);
			free(ua);
			free(ub);
		}
		pathset_free(&a);
		pathset_free(&b);
		routing_destroy(lft);
		routing_destroy(dk);
		topo_conf_destroy(c);
		import_destroy(fab);
		topo_destroy(t);
	}
}

/* ---- the shared avakas tables, walked independently ---- */

#define AV_DIR SRCDIR "/../shared/fabrics/ibnetdiscover/avakas"
#define AV_SUB "fe80:0000:0000:0000"

/* What the test reads of the ports report itself: for every switch
 * (GUID), where each port leads; every HCA's GUID and host name. */
struct av_sw {
	uint64_t guid;
	char name[16];		/* its chip: the description's last word */
	uint64_t to[256];	/* the GUID a port leads to, 0: none */
	uint64_t lft_pg[512];	/* destinations (CA port GUIDs) ... */
	uint32_t lft_port[512]; /* ... and their out ports */
	uint32_t nlft;
};

struct av {
	struct av_sw sw[32];
	uint32_t nsw;
	uint64_t ca[512];
	char host[512][32];
	uint64_t ca_sw[512]; /* the switch each HCA is cabled to */
	uint32_t nca;
};

static struct av_sw *av_switch(struct av *v, uint64_t guid)
{
	for (uint32_t i = 0; i < v->nsw; i++)
		if (v->sw[i].guid == guid)
			return &v->sw[i];
	cr_assert_lt(v->nsw, 32);
	v->sw[v->nsw].guid = guid;
	return &v->sw[v->nsw++];
}

static int av_ca(const struct av *v, uint64_t guid)
{
	for (uint32_t i = 0; i < v->nca; i++)
		if (v->ca[i] == guid)
			return (int)i;
	return -1;
}

/* "SW lid port 0xGUID 4x QDR - KIND lid port 0xGUID ( 'a' - 'b' )" */
static void av_ports(struct av *v, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];

	cr_assert(f, "%s", path);
	while (fgets(line, sizeof(line), f)) {
		char k1[4], k2[4], d1[128], d2[128];
		unsigned lid1, p1, lid2, p2;
		unsigned long long g1, g2;

		if (sscanf(line,
			   "%3s %u %u %llx %*s %*s - %3s %u %u %llx ( '%127[^']' "
			   "- '%127[^']' )",
			   k1, &lid1, &p1, &g1, k2, &lid2, &p2, &g2, d1,
			   d2) != 10)
			continue;
		if (!strcmp(k1, "SW")) {
			struct av_sw *s = av_switch(v, g1);

			snprintf(s->name, sizeof(s->name), "%s",
				 strrchr(d1, ' ') + 1);
			s->to[p1] = g2;
		} else if (!strcmp(k1, "CA") && av_ca(v, g1) < 0) {
			cr_assert_lt(v->nca, 512);
			v->ca[v->nca] = g1;
			v->ca_sw[v->nca] = g2;
			snprintf(v->host[v->nca++], 32, "%.*s",
				 (int)strcspn(d1, " "), d1);
		}
	}
	fclose(f);
}

/* ibroute's "Unicast lids ... guid 0xG (...):" then "0xLID PORT : (Channel
 * Adapter portguid 0xP: ...)" lines, one file per switch. */
static void av_tables(struct av *v, const char *dir)
{
	for (uint32_t lid = 1; lid <= 25; lid++) {
		char path[1024], line[512];
		FILE *f;
		struct av_sw *s = NULL;

		snprintf(path, sizeof(path), "%s/ibroute-" AV_SUB "-%u.txt",
			 dir, lid);
		f = fopen(path, "r");
		cr_assert(f, "%s", path);
		while (fgets(line, sizeof(line), f)) {
			unsigned long long g;
			unsigned l, port;
			const char *p = strstr(line, " guid 0x");

			if (!strncmp(line, "Unicast", 7) && p &&
			    sscanf(p, " guid %llx", &g) == 1)
				s = av_switch(v, g);
			else if (s &&
				 sscanf(line,
					"%x %u : (Channel Adapter portguid "
					"%llx",
					&l, &port, &g) == 3) {
				cr_assert_lt(s->nlft, 512);
				s->lft_pg[s->nlft] = g;
				s->lft_port[s->nlft++] = port;
			}
		}
		fclose(f);
	}
}

/* The out port of switch S toward CA port GUID PG (LMC 0: one LID). */
static uint32_t av_out(const struct av_sw *s, uint64_t pg)
{
	for (uint32_t i = 0; i < s->nlft; i++)
		if (s->lft_pg[i] == pg)
			return s->lft_port[i];
	cr_assert_fail("switch %s: no entry for 0x%016llx", s->name,
		       (unsigned long long)pg);
	return 0;
}

/* On the shared avakas dump and its 25 tables, every path of Routing=lft
 * (stopo import ibnetdiscover --lft) is the one a walk of the tables,
 * read here apart from the importer, gives: the same switches, and each
 * (switch, out port) always the same link, distinct ports distinct links
 * (the parallel cables kept apart). */
Test(import, avakas_lft_walk)
{
	static struct av v;
	static uint32_t port_link[32][256];
	struct err err = { 0 };
	const char *paths[] = { AV_DIR },
		   *lfts[] = { AV_DIR "/ibroutes-" AV_SUB, NULL };
	struct import_ib_opts o = { .lft = lfts };
	struct import_fabric *fab;
	struct topo_conf *c;
	const struct topo *t;
	struct routing *r;
	struct pathset ps;
	uint32_t npairs = 0;

	if (access(AV_DIR, R_OK)) {
		cr_skip_test("%s not found", AV_DIR);
		return;
	}
	memset(&v, 0, sizeof(v));
	av_ports(&v, AV_DIR "/ib-subnet-" AV_SUB ".txt");
	av_tables(&v, AV_DIR "/ibroutes-" AV_SUB);
	cr_assert_eq(v.nsw, 25);
	cr_assert_eq(v.nca, 281);
	fab = import_ibnet(paths, 1, &o, &err);
	cr_assert(fab, "%s", err.msg);
	c = fabric_conf(fab);
	t = topo_conf_topo(c);
	r = routing_create(t, "lft", &err);
	cr_assert(r, "%s", err.msg);
	memset(port_link, 0xff, sizeof(port_link));
	pathset_init(&ps);
	for (uint32_t a = 0; a < v.nca; a++)
		for (uint32_t b = 0; b < v.nca; b++) {
			uint32_t s = topo_conf_node_index(c, v.host[a]);
			uint32_t d = topo_conf_node_index(c, v.host[b]);
			struct av_sw *cur = av_switch(&v, v.ca_sw[a]);
			uint32_t k;

			if (a == b)
				continue;
			cr_assert_neq(s, TOPO_NONE, "%s", v.host[a]);
			cr_assert_neq(d, TOPO_NONE, "%s", v.host[b]);
			cr_assert_eq(routing_paths(r, s, d, &ps, &err), 0, "%s",
				     err.msg);
			cr_assert_eq(ps.n, 1);
			for (k = 1;; k++) {
				uint32_t out = av_out(cur, v.ca[b]);
				uint32_t l = ps.links[k];
				const struct topo_link *lk = topo_link(t, l);
				uint32_t ci = (uint32_t)(cur - v.sw);

				cr_assert_str_eq(topo_switch_name(t, lk->from),
						 cur->name, "%s -> %s hop %u",
						 v.host[a], v.host[b], k);
				if (cur->to[out] == v.ca[b]) {
					cr_assert_eq(lk->kind, TOPO_LINK_EJECT,
						     "%s -> %s ends early",
						     v.host[a], v.host[b]);
					break;
				}
				if (port_link[ci][out] == UINT32_MAX)
					port_link[ci][out] = l;
				cr_assert_eq(port_link[ci][out], l,
					     "switch %s port %u: two links",
					     cur->name, out);
				cur = av_switch(&v, cur->to[out]);
			}
			cr_assert_eq(k + 1, ps.off[1]);
			npairs++;
		}
	/* distinct ports of a switch: distinct links */
	for (uint32_t i = 0; i < v.nsw; i++)
		for (uint32_t p = 0; p < 256; p++)
			for (uint32_t q = p + 1; q < 256; q++)
				cr_assert(port_link[i][p] == UINT32_MAX ||
						  port_link[i][p] !=
							  port_link[i][q],
					  "switch %s ports %u and %u: one link",
					  v.sw[i].name, p, q);
	cr_expect_eq(npairs, 281 * 280);
	pathset_free(&ps);
	routing_destroy(r);
	topo_conf_destroy(c);
	import_destroy(fab);
}

/* A director-style fat-tree (edge switches into two chassis whose leaf
 * chips group them differently, storage on a spine, an idle chip) as
 * ibnetdiscover text and back: the same machine, the same levels, and
 * under ecmp the same link sets. */
Test(import, director_round_trip)
{
	static const char director[] =
		"Topology=graph\n"
		"SwitchName=e0 Nodes=n[0-3] Links=aL1,bL1\n"
		"SwitchName=e1 Nodes=n[4-7] Links=aL1,bL2\n"
		"SwitchName=e2 Nodes=n[8-11] Links=aL2,bL1\n"
		"SwitchName=e3 Nodes=n[12-15] Links=aL2,bL2\n"
		"SwitchName=aL1 Links=aS1,aS2\nSwitchName=aL2 Links=aS1,aS2\n"
		"SwitchName=aL3 Links=aS1,aS2\n"
		"SwitchName=bL1 Links=bS1,bS2\nSwitchName=bL2 Links=bS1,bS2\n"
		"SwitchName=aS1\nSwitchName=aS2 Nodes=st[1-2]\n"
		"SwitchName=bS1\nSwitchName=bS2\n";
	struct err err = { 0 };
	struct topo_conf *c0 = topo_conf_parse("director.conf", director, &err);
	struct import_fabric *fab;
	struct topo_conf *c;
	const struct topo *t, *g;
	char ib[64];

	cr_assert(c0, "%s", err.msg);
	t = topo_conf_topo(c0);
	write_temp(ib, t, NULL);
	fab = import_ibnetdiscover(ib, NULL, &err);
	unlink(ib);
	cr_assert(fab, "%s", err.msg);
	c = fabric_conf(fab);
	g = topo_conf_topo(c);
	same_machine(t, g, "director");
	cr_expect_str_eq(topo_conf_routing(c), "ecmp");
	for (uint32_t s = 0; s < topo_num_switches(t); s++) {
		cr_expect_eq(topo_switch_level(g, s), topo_switch_level(t, s));
		cr_expect_eq(topo_switch_idle(g, s), topo_switch_idle(t, s));
	}
	same_link_sets(t, g, "ecmp", "director");
	topo_conf_destroy(c);
	import_destroy(fab);
	topo_conf_destroy(c0);
}
