/* test_policy.c - allocation policies: hand-worked placements and reasons,
 * the isolation guarantee checked against routing_linkset on random
 * arrival/departure sequences, determinism, bad specs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policies/policy.h"
#include "policies/policy_impl.h"
#include "topo/import/import.h"
#include "topo/util/rng.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"
#include "tests/unit/fixtures.h"

struct fx {
	struct topo *t;
	struct routing *r;
	struct policy *p;
	uint32_t n;
	uint32_t *owner;
	uint8_t *usable;
	uint32_t buf[4096];
	char got[1024];
};

/* TEXT's SwitchName= lines, odd ones first (switch ids, and so groups,
 * no longer in id order), in place. */
static __attribute__((noinline)) void odd_first(char *text)
{
	size_t head = (size_t)(strchr(text, '\n') - text) + 1;
	char *copy = strdup(text + head), *o = text + head;

	if (!copy)
		abort();
	for (int odd = 1; odd >= 0; odd--) {
		int i = 0;

		for (char *l = copy; *l; i++) {
			char *e = strchr(l, '\n');
			size_t len = e ? (size_t)(e - l) + 1 : strlen(l);

			if (i % 2 == odd) {
				memcpy(o, l, len);
				o += len;
			}
			l += len;
		}
	}
	free(copy);
}

/* An imported fabric, "ibnet:SPEC[/drop=S+S..][/half=S+S..][/shuffle]
 * [/lft]": the generated SPEC written out as a graph without switches
 * DROP, with half the nodes on leaf switches HALF (fx_graph_conf), its
 * switches odd ones first when shuffled, exported as ibnetdiscover text
 * (with lft, and dmodk's forwarding tables as ibroute prints them), read
 * back by import_ibnet and loaded from the topo.conf written from it:
 * what an administrator's import gives, recognised as SPEC's family. */
static struct topo *fx_imported(const char *what)
{
	struct err e = { 0 };
	char spec[128], *opt, path[] = "/tmp/test_policy_XXXXXX";
	struct topo *g, *t;
	uint8_t *drop;
	uint32_t *nodes, S;
	struct topo_conf *c;
	struct import_fabric *fab;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int fd;
	bool shuffle = false, lft = false;
	char tab[] = "/tmp/test_policy_XXXXXX";
	const char *lfts[] = { tab, NULL };
	struct import_ib_opts io = { .lft = NULL };
	const char *paths[] = { path };

	snprintf(spec, sizeof(spec), "%s", what + strlen("ibnet:"));
	opt = strchr(spec, '/');
	if (opt)
		*opt++ = '\0';
	g = fx_topo(spec);
	S = topo_num_switches(g);
	drop = calloc(S, 1);
	nodes = calloc(S, sizeof(*nodes));
	cr_assert(drop && nodes);
	for (uint32_t s = 0; s < S; s++)
		topo_switch_nodes(g, s, &nodes[s]);
	while (opt && *opt) {
		bool half = strncmp(opt, "half=", 5) == 0;

		if (strncmp(opt, "shuffle", 7) == 0) {
			shuffle = true;
			opt += 7;
			opt += *opt == '/';
			continue;
		}
		if (strncmp(opt, "lft", 3) == 0) {
			lft = true;
			opt += 3;
			opt += *opt == '/';
			continue;
		}

		cr_assert(half || strncmp(opt, "drop=", 5) == 0, "%s", what);
		opt += 5;
		while (*opt && *opt != '/') {
			unsigned long s = strtoul(opt, &opt, 10);

			cr_assert_lt(s, S, "%s", what);
			if (half)
				nodes[s] /= 2;
			else
				drop[s] = 1;
			if (*opt == '+')
				opt++;
		}
		if (*opt == '/')
			opt++;
	}
	text = fx_graph_conf(g, drop, nodes);
	if (shuffle)
		odd_first(text);
	c = topo_conf_parse("graph.conf", text, &e);
	cr_assert(c, "%s: %s", what, e.msg);
	free(text);
	fd = mkstemp(path);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	cr_assert_eq(import_export_ibnetdiscover(topo_conf_topo(c), f, &e), 0,
		     "%s", e.msg);
	cr_assert_eq(fclose(f), 0);
	topo_conf_destroy(c);
	if (lft) { /* the generated numbering is the graph's */
		struct routing *dk = fx_routing(g, "dmodk");

		fd = mkstemp(tab);
		cr_assert(fd >= 0);
		f = fdopen(fd, "w");
		cr_assert(f);
		cr_assert_eq(import_export_lft(dk, f, &e), 0, "%s", e.msg);
		cr_assert_eq(fclose(f), 0);
		routing_destroy(dk);
		io.lft = lfts;
	}
	fab = import_ibnet(paths, 1, &io, &e);
	unlink(path);
	if (lft)
		unlink(tab);
	cr_assert(fab, "%s: %s", what, e.msg);
	text = NULL;
	f = open_memstream(&text, &len);
	cr_assert(f);
	cr_assert_eq(import_write_conf(fab, f, &e), 0, "%s", e.msg);
	cr_assert_eq(fclose(f), 0);
	import_destroy(fab);
	c = topo_conf_parse("imported.conf", text, &e);
	cr_assert(c, "%s: %s", what, e.msg);
	free(text);
	t = topo_conf_take_topo(c);
	topo_conf_destroy(c);
	cr_assert_str_eq(topo_graph_family(t), topo_family(g), "%s: %s", what,
			 topo_graph_why(t) ? topo_graph_why(t) : "");
	cr_assert_eq(topo_check(t, &e), 0, "%s: %s", what, e.msg);
	if (shuffle) { /* some group is not a range of switch ids */
		uint32_t back = 0;

		for (uint32_t s = 1; s < topo_num_switches(t); s++)
			back += topo_switch_group(t, s) !=
					topo_switch_group(t, s - 1) &&
				topo_switch_group(t, s) != TOPO_NONE;
		cr_assert_gt(back, topo_num_groups(t), "%s", what);
	}
	free(drop);
	free(nodes);
	topo_destroy(g);
	return t;
}

/* "conf:irreg": an irregular 3-level fat-tree written by hand (the
 * topo.sh fixture good_graph_fattree.conf): pod 0 = leaves l0 (nodes 0-1),
 * l1 (2-3) under a0, a1; pod 1 = l2 (4-5), l3 (6-7), l4 (8, one node)
 * under a2, a3; spines c0 (a0, a2) and c1 (a1, a3). */
static const char irreg_conf[] = "Topology=graph\n"
				 "SwitchName=l0 Nodes=n[0-1] Links=a0,a1\n"
				 "SwitchName=l1 Nodes=n[2-3] Links=a0,a1\n"
				 "SwitchName=l2 Nodes=n[4-5] Links=a2,a3\n"
				 "SwitchName=l3 Nodes=n[6-7] Links=a2,a3\n"
				 "SwitchName=l4 Nodes=n8 Links=a2,a3\n"
				 "SwitchName=a0 Links=c0\n"
				 "SwitchName=a1 Links=c1\n"
				 "SwitchName=a2 Links=c0\n"
				 "SwitchName=a3 Links=c1\n"
				 "SwitchName=c0\n"
				 "SwitchName=c1\n";

/* "conf:director": edge switches e0..e3 (4 nodes each) cabled into two
 * chassis whose leaf chips pair them differently (chassis a: {e0, e1},
 * {e2, e3}; chassis b: {e0, e2}, {e1, e3}), every leaf chip to both
 * spine chips of its chassis; storage st1, st2 on spine aS2, and an idle
 * leaf chip aL3.  The components of levels 0 and 1 join every edge (one
 * pod), so up/down routes leave no unit: only link sets can say. */
static const char director_conf[] =
	"Topology=graph\n"
	"SwitchName=e0 Nodes=n[0-3] Links=aL1,bL1\n"
	"SwitchName=e1 Nodes=n[4-7] Links=aL1,bL2\n"
	"SwitchName=e2 Nodes=n[8-11] Links=aL2,bL1\n"
	"SwitchName=e3 Nodes=n[12-15] Links=aL2,bL2\n"
	"SwitchName=aL1 Links=aS1,aS2\nSwitchName=aL2 Links=aS1,aS2\n"
	"SwitchName=aL3 Links=aS1,aS2\n"
	"SwitchName=bL1 Links=bS1,bS2\nSwitchName=bL2 Links=bS1,bS2\n"
	"SwitchName=aS1\nSwitchName=aS2 Nodes=st[1-2]\nSwitchName=bS1\n"
	"SwitchName=bS2\n";

static struct topo *fx_conf(const char *text)
{
	struct err e = { 0 };
	struct topo_conf *c = topo_conf_parse("irreg.conf", text, &e);
	struct topo *t;

	cr_assert(c, "%s", e.msg);
	t = topo_conf_take_topo(c);
	topo_conf_destroy(c);
	return t;
}

static struct topo *fx_make(const char *topo);

/* "rt:X" (X written as ibnetdiscover text and imported) or "aries:SPEC"
 * (the Cascade SPEC written as an Aries link list and imported): the
 * topology of the topo.conf the import writes. */
static struct topo *fx_round_trip(const char *topo)
{
	struct err e = { 0 };
	bool aries = !strncmp(topo, "aries:", 6);
	struct topo *t0 = fx_make(strchr(topo, ':') + 1), *t;
	char path[] = "/tmp/test_policy_XXXXXX", *text = NULL;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	struct import_fabric *fab;
	struct topo_conf *c;
	size_t len = 0;

	cr_assert(f);
	cr_assert_eq(aries ? import_export_aries(t0, f, &e) :
			     import_export_ibnetdiscover(t0, f, &e),
		     0, "%s", e.msg);
	cr_assert_eq(fclose(f), 0);
	fab = aries ? import_aries(path, &e) :
		      import_ibnetdiscover(path, NULL, &e);
	unlink(path);
	cr_assert(fab, "%s: %s", topo, e.msg);
	f = open_memstream(&text, &len);
	cr_assert(f);
	cr_assert_eq(import_write_conf(fab, f, &e), 0, "%s", e.msg);
	cr_assert_eq(fclose(f), 0);
	import_destroy(fab);
	c = topo_conf_parse("imported.conf", text, &e);
	cr_assert(c, "%s: %s", topo, e.msg);
	free(text);
	t = topo_conf_take_topo(c);
	topo_conf_destroy(c);
	topo_destroy(t0);
	return t;
}

static struct topo *fx_make(const char *topo)
{
	if (strcmp(topo, "conf:irreg") == 0)
		return fx_conf(irreg_conf);
	if (strcmp(topo, "conf:director") == 0)
		return fx_conf(director_conf);
	if (strncmp(topo, "ibnet:", 6) == 0)
		return fx_imported(topo);
	if (strncmp(topo, "rt:", 3) == 0 || strncmp(topo, "aries:", 6) == 0)
		return fx_round_trip(topo);
	return fx_topo(topo);
}

static void fx_open(struct fx *f, const char *topo, const char *routing,
		    const char *policy)
{
	struct err e = { 0 };

	memset(f, 0, sizeof(*f));
	f->t = fx_make(topo);
	f->r = fx_routing(f->t, routing);
	f->p = policy_create(policy, f->t, f->r, &e);
	cr_assert(f->p, "%s: %s", policy, e.msg);
	f->n = topo_num_nodes(f->t);
	f->owner = calloc(f->n, sizeof(*f->owner));
	cr_assert(f->owner);
}

static void fx_close(struct fx *f)
{
	policy_destroy(f->p);
	routing_destroy(f->r);
	topo_destroy(f->t);
	free(f->owner);
	free(f->usable);
}

/* Nodes LO..HI (inclusive) belong to JOB. */
static void own(struct fx *f, uint32_t job, uint32_t lo, uint32_t hi)
{
	for (uint32_t i = lo; i <= hi; i++)
		f->owner[i] = job;
}

static void unusable(struct fx *f, uint32_t lo, uint32_t hi)
{
	if (!f->usable) {
		f->usable = malloc(f->n);
		memset(f->usable, 1, f->n);
	}
	for (uint32_t i = lo; i <= hi; i++)
		f->usable[i] = 0;
}

/* Format nodes as index ranges "0-3,8". */
static void ranges(const uint32_t *a, uint32_t n, char *out, size_t len)
{
	size_t o = 0;

	out[0] = '\0';
	for (uint32_t i = 0; i < n && o < len;) {
		uint32_t j = i;

		while (j + 1 < n && a[j + 1] == a[j] + 1)
			j++;
		if (j == i)
			o += (size_t)snprintf(out + o, len - o, "%s%u",
					      o ? "," : "", a[i]);
		else
			o += (size_t)snprintf(out + o, len - o, "%s%u-%u",
					      o ? "," : "", a[i], a[j]);
		i = j + 1;
	}
}

/* The rank order the last ask_req got (nne's grid jobs). */
static uint32_t fx_ranks[4096];

static enum policy_status ask_req(struct fx *f, const struct policy_request *q,
				  struct policy_result *res);

static enum policy_status ask(struct fx *f, uint32_t job, uint32_t nodes,
			      uint32_t attempt, struct policy_result *res)
{
	struct policy_request q = { .job_id = job,
				    .nodes = nodes,
				    .attempt = attempt };

	return ask_req(f, &q, res);
}

static enum policy_status ask_req(struct fx *f, const struct policy_request *q,
				  struct policy_result *res)
{
	struct policy_view v = { .owner = f->owner, .usable = f->usable };
	uint32_t nodes = q->nodes;
	enum policy_status st;

	memset(res, 0, sizeof(*res));
	res->nodes = f->buf;
	res->rank_node = fx_ranks;
	res->rank_cap = 4096;
	st = policy_place(f->p, &v, q, res);
	if (st == POLICY_PLACED) {
		cr_assert_eq(res->n, nodes);
		for (uint32_t i = 0; i < res->n; i++) {
			cr_assert_lt(res->nodes[i], f->n);
			cr_assert_eq(f->owner[res->nodes[i]], POLICY_FREE);
			if (i)
				cr_assert_lt(res->nodes[i - 1], res->nodes[i]);
		}
		ranges(res->nodes, res->n, f->got, sizeof(f->got));
	} else {
		snprintf(f->got, sizeof(f->got), "%s", res->reason);
	}
	return st;
}

/* ---- registry and specs ---- */

Test(policy, names_match_registry)
{
	const char *const *n = policy_names();
	size_t i;

	for (i = 0; n[i]; i++) {
		const struct policy_ops *ops = policy_find(n[i]);

		cr_assert(ops, "%s", n[i]);
		cr_assert_str_eq(ops->name, n[i]);
	}
	cr_assert_eq(i, 8);
	cr_assert_null(n[i]);
	cr_assert_null(policy_find("nosuch"));
}

struct bad {
	char topo[64];
	char spec[64];
	char msg[96];
};

static struct bad bads[] = {
	{ "fattree:k=4,n=3", "nosuch", "unknown policy 'nosuch'" },
	{ "fattree:k=4,n=3", "random:seed",
	  "policy 'random:seed': bad option 'seed' (want key=value)" },
	{ "fattree:k=4,n=3", "random:colour=red",
	  "policy random: unknown option 'colour' (known: seed)" },
	{ "fattree:k=4,n=3", "clustered:x=1",
	  "policy clustered: unknown option 'x' (known: seed, scatter)" },
	{ "fattree:k=4,n=3", "random:seed=x", "expected an integer" },
	{ "fattree:k=4,n=3", "random:seed=1,seed=2", "given twice" },
	{ "fattree:k=4,n=3", "clustered:scatter=101", "expected an integer" },
	{ "fattree:k=4,n=3", "linear:x=1", "unknown option 'x' (known: none)" },
	{ "fattree:k=4,n=3", "fattree-pods:large=all",
	  "expected one of "
	  "pods, leaves" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "fattree-pods", "not a fat-tree" },
	{ "fattree:k=4,n=3", "",
	  "policy '': empty name (want NAME[:key=value,...])" },
	{ "torus:dims=4x4x4,p=1",
	  "mesh-blocks:mode=building-block,"
	  "block=3x2x2",
	  "does not divide" },
	{ "torus:dims=4x4x4,p=1",
	  "mesh-blocks:mode=building-block,"
	  "block=2x2",
	  "want 3 extents" },
	{ "torus:dims=4x4x4,p=1", "mesh-blocks:mode=blocks",
	  "expected one "
	  "of variable, building-block" },
	{ "fattree:k=4,n=3", "mesh-blocks", "not an express mesh" },
	{ "fattree:k=4,n=3", "dragonfly-groups", "not a dragonfly" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "dragonfly-groups:large=maybe",
	  "expected one of wait, shared" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "nne:large=maybe",
	  "expected one of wait, shared" },
	{ "fattree:k=4,n=3", "nne", "needs a dragonfly or Cascade" },
};

Test(policy, bad_specs)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		struct err e = { 0 };
		struct fx_net n = fx_net(b->topo, NULL);

		cr_expect_null(policy_create(b->spec, n.t, n.r, &e), "%s",
			       b->spec);
		cr_expect(strstr(e.msg, b->msg), "'%s' -> '%s'", b->spec,
			  e.msg);
		fx_net_free(&n);
	}
}

/* fattree-pods' rule: links by default; large=leaves (the paper's rule
 * iii) selects rule=paper unless a rule= is given, and with rule=links
 * it is refused. */
Test(policy, fattree_default_rule)
{
	static const struct {
		const char *spec, *want; /* want NULL: refused */
	} rows[] = {
		{ "fattree-pods", "fattree-pods:large=pods,rule=links" },
		{ "fattree-pods:rule=paper",
		  "fattree-pods:large=pods,rule=paper" },
		{ "fattree-pods:large=leaves",
		  "fattree-pods:large=leaves,rule=paper" },
		{ "fattree-pods:rule=paper,large=leaves",
		  "fattree-pods:large=leaves,rule=paper" },
		{ "fattree-pods:large=leaves,rule=links", NULL },
	};
	struct fx_net n = fx_net("fattree:k=4,n=3", NULL);

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct err e = { 0 };
		struct policy *p = policy_create(rows[i].spec, n.t, n.r, &e);

		if (!rows[i].want) {
			cr_expect_null(p, "%s", rows[i].spec);
			cr_expect(strstr(e.msg, "large=leaves is a rule=paper "
						"option"),
				  "%s: %s", rows[i].spec, e.msg);
			policy_destroy(p);
			continue;
		}
		cr_assert(p, "%s: %s", rows[i].spec, e.msg);
		cr_expect_str_eq(policy_spec(p), rows[i].want);
		policy_destroy(p);
	}
	fx_net_free(&n);
}

/* policy_check sees what needs no topology: grammar, name and option
 * keys, with policy_create's own messages; values and fit to the
 * topology are policy_create's. */
Test(policy, check_without_topology)
{
	static const size_t same[] = { 0, 1, 2, 3, 5, 7, 10 };
	static const char *const fine[] = { "fattree-pods:large=leaves",
					    "dragonfly-groups", "linear",
					    "random:seed=7" };
	struct err e = { 0 }, c = { 0 };

	for (size_t k = 0; k < sizeof(same) / sizeof(same[0]); k++) {
		const struct bad *b = &bads[same[k]];
		struct fx_net n = fx_net(b->topo, NULL);

		cr_expect_null(policy_create(b->spec, n.t, n.r, &e));
		cr_expect_eq(policy_check(b->spec, &c), -1, "%s", b->spec);
		cr_expect_str_eq(c.msg, e.msg, "%s", b->spec);
		fx_net_free(&n);
	}
	for (size_t k = 0; k < sizeof(fine) / sizeof(fine[0]); k++)
		cr_expect_eq(policy_check(fine[k], &c), 0, "%s: %s", fine[k],
			     c.msg);
}

Test(policy, canonical_spec)
{
	struct fx f;

	fx_open(&f, "fattree:k=4,n=3", NULL, "clustered:scatter=20");
	cr_assert_str_eq(policy_spec(f.p), "clustered:seed=1,scatter=20");
	cr_assert_str_eq(policy_name(f.p), "clustered");
	cr_assert_not(policy_isolating(f.p));
	fx_close(&f);
	fx_open(&f, "fattree:k=4,n=3", NULL, "linear");
	cr_assert_str_eq(policy_spec(f.p), "linear");
	fx_close(&f);
	/* empty items are skipped; defaults come from the option table */
	fx_open(&f, "fattree:k=4,n=3", NULL, " random:,seed=7,");
	cr_assert_str_eq(policy_spec(f.p), "random:seed=7");
	fx_close(&f);
	fx_open(&f, "torus:dims=4x4x4,p=1", "dor", "mesh-blocks");
	cr_assert_str_eq(policy_spec(f.p), "mesh-blocks:mode=variable,block=-");
	fx_close(&f);
	fx_open(&f, "torus:dims=4x4x4,p=1", "dor",
		"mesh-blocks:mode=building-block");
	cr_assert_str_eq(policy_spec(f.p),
			 "mesh-blocks:mode=building-block,block=2x2x2");
	fx_close(&f);
}

/* The unknown-policy error lists exactly the registered policies, in
 * registry order: derived from the registry, not a second copy. */
Test(policy, unknown_policy_lists_the_registry)
{
	struct fx_net n = fx_net("fattree:k=4,n=3", NULL);
	const char *const *names = policy_names();
	char want[256] = "unknown policy 'zz' (known: ";
	struct err e = { 0 };

	for (size_t i = 0; names[i]; i++) {
		strcat(want, i ? ", " : "");
		strcat(want, names[i]);
	}
	strcat(want, ")");
	cr_expect_null(policy_create("zz", n.t, n.r, &e));
	cr_expect_str_eq(e.msg, want);
	fx_net_free(&n);
}

Test(policy, bad_requests)
{
	struct fx f;
	struct policy_result res;

	fx_open(&f, "fattree:k=4,n=3", NULL, "linear");
	cr_assert_eq(ask(&f, 0, 1, 0, &res), POLICY_NEVER);
	cr_assert_eq(ask(&f, 1, 0, 0, &res), POLICY_NEVER);
	cr_assert_eq(ask(&f, 1, 65, 0, &res), POLICY_NEVER);
	cr_assert_str_eq(f.got, "needs 65 nodes, the machine has 64 usable");
	fx_close(&f);
}

/* ---- baselines ---- */

Test(policy, linear)
{
	struct fx f;
	struct policy_result res;

	fx_open(&f, "fattree:k=4,n=3", NULL, "linear");
	own(&f, 7, 0, 2);
	own(&f, 8, 5, 5);
	cr_assert_eq(ask(&f, 1, 4, 0, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "3-4,6-7");
	cr_assert_not(res.isolated);
	cr_assert_eq(ask(&f, 1, 4, 2, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "6-9");
	/* 60 free nodes, 4 per job: candidates 0..56 */
	cr_assert_eq(ask(&f, 1, 4, 56, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "60-63");
	cr_assert_eq(ask(&f, 1, 4, 57, &res), POLICY_NEVER);
	own(&f, 9, 10, 63);
	cr_assert_eq(ask(&f, 1, 7, 0, &res), POLICY_WAIT);
	cr_assert_str_eq(f.got, "waiting for 7 free nodes (6 free)");
	fx_close(&f);
}

Test(policy, clustered)
{
	struct fx f;
	struct policy_result res;
	uint32_t in = 0;

	fx_open(&f, "fattree:k=4,n=3", NULL, "clustered");
	/* free runs: 0-9 (then 10-19 busy), 20-63; 20 nodes -> 18 close
	 * (round(2.0) = 2 scattered): least span window of 18 free nodes
	 * is 20-37 (span 17) */
	own(&f, 5, 10, 19);
	cr_assert_eq(ask(&f, 1, 20, 0, &res), POLICY_PLACED);
	for (uint32_t i = 0; i < res.n; i++)
		in += res.nodes[i] >= 20 && res.nodes[i] <= 37;
	cr_assert_eq(in, 18, "%s", f.got);
	/* one node: no scatter, the lowest node of least span (any) */
	cr_assert_eq(ask(&f, 1, 1, 0, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "0");
	fx_close(&f);
}

/* Drawn nodes on both sides of the window come back merged in id order:
 * odd nodes 1..29 busy, so the only window of 2 (span 1) is 30-31 and 18
 * drawn nodes come from the even nodes 0..28 below it and 32..63 above. */
Test(policy, clustered_scatter_sorted)
{
	struct fx f;
	struct policy_result res;
	uint32_t below = 0, above = 0, win = 0;

	fx_open(&f, "fattree:k=4,n=3", NULL, "clustered:scatter=90");
	for (uint32_t i = 1; i <= 29; i += 2)
		own(&f, 5, i, i);
	cr_assert_eq(ask(&f, 1, 20, 0, &res), POLICY_PLACED);
	cr_assert_eq(res.n, 20);
	for (uint32_t i = 0; i < res.n; i++) {
		uint32_t x = res.nodes[i];

		if (i)
			cr_assert_lt(res.nodes[i - 1], x, "%s", f.got);
		cr_assert_eq(f.owner[x], POLICY_FREE, "%s", f.got);
		below += x < 30;
		win += x == 30 || x == 31;
		above += x > 31;
	}
	cr_assert_eq(win, 2, "%s", f.got);
	cr_assert_gt(below, 0, "%s", f.got);
	cr_assert_gt(above, 0, "%s", f.got);
	fx_close(&f);
}

Test(policy, clustered_attempts)
{
	struct fx f;
	struct policy_result res;

	/* scatter=0: the window of least span only; free runs 0-9, 20-63 */
	fx_open(&f, "fattree:k=4,n=3", NULL, "clustered:scatter=0");
	own(&f, 5, 10, 19);
	cr_assert_eq(ask(&f, 1, 12, 0, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "20-31");
	cr_assert_eq(ask(&f, 1, 12, 1, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "21-32");
	/* 54 free nodes: 43 windows of 12 */
	cr_assert_eq(ask(&f, 1, 12, 42, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "9,20-30"); /* spans 21: the last start */
	cr_assert_eq(ask(&f, 1, 12, 43, &res), POLICY_NEVER);
	cr_assert_str_eq(f.got, "no candidate #43 (43 windows of 12 free "
				"nodes)");
	fx_close(&f);
}

Test(policy, usable_mask)
{
	struct fx f;
	struct policy_result res;

	fx_open(&f, "fattree:k=4,n=3", NULL, "linear");
	unusable(&f, 0, 5);
	cr_assert_eq(ask(&f, 1, 3, 0, &res), POLICY_PLACED);
	cr_assert_str_eq(f.got, "6-8");
	unusable(&f, 6, 63);
	cr_assert_eq(ask(&f, 1, 1, 0, &res), POLICY_NEVER);
	cr_assert_str_eq(f.got, "needs 1 nodes, the machine has 0 usable");
	fx_close(&f);
}

/* Every size on small and degenerate machines: an answer, never a crash,
 * placements that are free and of the right size (ask checks). */
Test(policy, every_size_small_machines)
{
	static const char *const m[][3] = {
		{ "fattree:k=1,n=1", "ecmp", "fattree-pods" },
		{ "fattree:k=3,n=1", "ecmp", "fattree-pods" },
		{ "fattree:k=2,n=2", "dmodk", "fattree-pods:large=leaves" },
		{ "fattree:k=2,n=4", "ecmp", "fattree-pods:large=leaves" },
		{ "torus:dims=1,p=2", "dor", "mesh-blocks" },
		{ "torus:dims=2x3,p=1", "minimal", "mesh-blocks" },
		{ "hyperx:dims=3x1x2,p=2", "dor",
		  "mesh-blocks:mode=building-block,block=3x1x1" },
		{ "dragonfly:p=1,a=2,h=1,g=3", "ugal", "dragonfly-groups" },
		{ "dragonfly:p=1,a=2,h=1,g=3", "min",
		  "dragonfly-groups:large=shared" },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct fx f;
		struct policy_result res;

		fx_open(&f, m[i][0], m[i][1], m[i][2]);
		for (uint32_t n = 1; n <= f.n + 1; n++) {
			int st = ask(&f, 1, n, 0, &res);

			cr_assert(st == POLICY_PLACED || st == POLICY_WAIT ||
				  st == POLICY_NEVER);
			/* the machine is empty: never WAIT */
			cr_assert_neq(st, POLICY_WAIT, "%s %u: %s", m[i][0], n,
				      f.got);
			if (n > f.n)
				cr_assert_eq(st, POLICY_NEVER);
		}
		/* half full (every other node), every size again */
		for (uint32_t x = 0; x < f.n; x += 2)
			f.owner[x] = 7;
		for (uint32_t n = 1; n <= f.n; n++)
			ask(&f, 1, n, 0, &res);
		fx_close(&f);
	}
}

Test(policy, random_deterministic)
{
	struct fx f, g;
	struct policy_result a, b;
	char first[1024];

	fx_open(&f, "fattree:k=4,n=3", NULL, "random:seed=3");
	fx_open(&g, "fattree:k=4,n=3", NULL, "random:seed=3");
	own(&f, 5, 0, 9);
	own(&g, 5, 0, 9);
	cr_assert_eq(ask(&f, 11, 12, 0, &a), POLICY_PLACED);
	snprintf(first, sizeof(first), "%s", f.got);
	cr_assert_eq(ask(&g, 11, 12, 0, &b), POLICY_PLACED);
	cr_assert_str_eq(first, g.got);
	cr_assert_eq(ask(&g, 11, 12, 1, &b), POLICY_PLACED);
	cr_assert_str_neq(first, g.got);
	cr_assert_eq(ask(&g, 12, 12, 0, &b), POLICY_PLACED);
	cr_assert_str_neq(first, g.got);
	fx_close(&f);
	fx_close(&g);
}

/* ---- hand-worked placements ----
 * fattree:k=4,n=3: 16 leaves of 4 nodes (leaf w: nodes 4w..4w+3), 4 pods
 * of 16 nodes (pod q: leaves 4q..4q+3).
 * dragonfly:p=2,a=4,h=2,g=9: router r holds nodes 2r, 2r+1; group g holds
 * routers 4g..4g+3, nodes 8g..8g+7. */

struct pcase {
	char topo[40];
	char routing[24];
	char policy[64];
	char busy[80];	   /* "lo-hi,lo-hi+lo-hi": jobs 100, 101, ... */
	char unusable[64]; /* ranges */
	uint32_t nodes, attempt;
	int status;
	char want[160]; /* ranges or reason */
	int isolated;
};

#define FT "fattree:k=4,n=3"
#define DF "dragonfly:p=2,a=4,h=2,g=9"
#define EM "expressmesh:dims=4x4x4,gap=1,p=1"
#define IRREG "conf:irreg"

static struct pcase pcases[] = {
	/* fattree-pods, rule i: one leaf, best fit */
	{ FT, "ecmp", "fattree-pods:rule=paper", "", "", 3, 0, POLICY_PLACED,
	  "0-2", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2", "", 1, 0, POLICY_PLACED,
	  "3", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2,4-5", "", 2, 0,
	  POLICY_PLACED, "6-7", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2,4-5", "", 2, 1,
	  POLICY_PLACED, "8-9", 1 },
	/* every leaf has a busy node: 4-node jobs wait for a leaf */
	{ FT, "ecmp", "fattree-pods:rule=paper",
	  "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60", "", 4, 0, POLICY_WAIT,
	  "waiting for a leaf switch with 4 free nodes (most "
	  "free on a leaf: 3)",
	  0 },
	/* rule ii: whole leaves in one pod; best-fit pod */
	{ FT, "ecmp", "fattree-pods:rule=paper", "", "", 6, 0, POLICY_PLACED,
	  "0-5", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2", "", 6, 0, POLICY_PLACED,
	  "4-9", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2", "", 6, 1, POLICY_PLACED,
	  "8-13", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2", "", 6, 2, POLICY_PLACED,
	  "16-21", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2,20", "", 8, 0,
	  POLICY_PLACED, "4-11", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2,20,24", "", 12, 0,
	  POLICY_PLACED, "4-15", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0-2,20,24", "", 13, 0,
	  POLICY_PLACED, "32-44", 1 },
	/* rule=links, by hand: in the best-fit pod, the leaves with the
	 * most free nodes first, until one holds the rest: the smallest
	 * that does (the leftover beside a single-leaf job) */
	{ FT, "ecmp", "fattree-pods:rule=links", "0-2", "", 6, 0, POLICY_PLACED,
	  "4-9", 1 },
	{ FT, "ecmp", "fattree-pods:rule=links", "0-2,4", "", 6, 0,
	  POLICY_PLACED, "5-6,8-11", 1 },
	/* a job on leaves 0 and 1 crosses both: a 6-node job takes leaves 2
	 * and 3 of the same pod */
	{ FT, "ecmp", "fattree-pods:rule=links", "0-2+4", "", 6, 0,
	  POLICY_PLACED, "8-13", 1 },
	{ FT, "ecmp", "fattree-pods:rule=links", "", "", 18, 0, POLICY_PLACED,
	  "0-17", 1 },
	/* a job on 0-5 crosses leaves 0 and 1: a 2-node job may not use
	 * node 6-7 with a node elsewhere, but fits leaf 1 alone */
	{ FT, "ecmp", "fattree-pods:rule=links", "0-3+4-5", "", 2, 0,
	  POLICY_PLACED, "6-7", 1 },
	{ FT, "ecmp", "fattree-pods:rule=links", "0-3+4-5", "", 3, 0,
	  POLICY_PLACED, "8-10", 1 },
	{ FT, "ecmp", "fattree-pods:rule=links", "0-3+4-5", "", 5, 0,
	  POLICY_PLACED, "8-12", 1 },
	/* job 100 on leaves 0 and 4 crosses pods 0 and 1; job 101 on leaves
	 * 8-9 stays in pod 2.  An 8-node job may use 12 nodes of pods 0 and
	 * 1, 8 of pod 2 (best fit) and 16 of pod 3: the crossed pods come
	 * first (no job spanning pods can use them now), the lowest of the
	 * two; in it leaf 1, then the first leaf that holds the rest */
	{ FT, "ecmp", "fattree-pods:rule=links", "0-3+16-19,32-39", "", 8, 0,
	  POLICY_PLACED, "4-11", 1 },
	{ FT, "ecmp", "fattree-pods:rule=links", "0-3+16-19,32-39", "", 8, 1,
	  POLICY_PLACED, "20-27", 1 },
	{ FT, "ecmp", "fattree-pods:rule=links", "0-3+16-19,32-39", "", 8, 2,
	  POLICY_PLACED, "40-47", 1 },
	/* a fat-tree graph (issue 17), by hand: conf:irreg (see fx_conf);
	 * rule ii: whole leaves in the best-fit pod (pod 0, 4 nodes, before
	 * pod 1, 5) from the first whole leaf on; rule i: fewest free, then
	 * lowest leaf (l1 before l4); rule iv: whole pods */
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "", "", 3, 0, POLICY_PLACED,
	  "0-2", 1 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "0-2", "", 1, 0,
	  POLICY_PLACED, "3", 1 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "0-2,3", "", 4, 0,
	  POLICY_PLACED, "4-7", 1 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "0-2,3", "", 5, 0,
	  POLICY_PLACED, "4-8", 1 },
	/* a run from l3 (2 + 1 nodes) cannot hold 4: one candidate */
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "0-2,3", "", 4, 1,
	  POLICY_NEVER, "no candidate #1 (1 candidates)", 0 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "0-2,3,4-7", "", 2, 0,
	  POLICY_WAIT,
	  "waiting for a leaf switch with 2 free nodes (most free on a leaf: "
	  "1)",
	  0 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "", "", 6, 0, POLICY_PLACED,
	  "0-5", 1 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "8", "", 6, 0, POLICY_WAIT,
	  "waiting for whole pods with 6 nodes (4 nodes in whole ones)", 0 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "8", "", 4, 0,
	  POLICY_PLACED, "0-3", 1 },
	{ IRREG, "ecmp", "fattree-pods:rule=paper", "0,4,6", "", 3, 0,
	  POLICY_WAIT,
	  "waiting for whole leaf switches with 3 nodes in one pod (at most "
	  "2 nodes of whole ones in one)",
	  0 },
	/* rule=links: l0 and l1 are crossed by the job on 0-2; in pod 1 the
	 * leaves with most free first (l2), then the smallest holding the
	 * rest (l4) */
	{ IRREG, "ecmp", "fattree-pods:rule=links", "0-2", "", 3, 0,
	  POLICY_PLACED, "4-5,8", 1 },
	{ IRREG, "ecmp", "fattree-pods:rule=links", "0-2", "", 1, 0,
	  POLICY_PLACED, "3", 1 },
	/* large=leaves: whole leaves of uncrossed pods, the pod with most
	 * such nodes first (pod 1: 5, pod 0: l1, 2) */
	{ IRREG, "ecmp", "fattree-pods:large=leaves", "0-1", "", 6, 0,
	  POLICY_PLACED, "2,4-8", 1 },
	/* rule iv: whole pods */
	{ FT, "ecmp", "fattree-pods:rule=paper", "", "", 20, 0, POLICY_PLACED,
	  "0-19", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0", "", 20, 0, POLICY_PLACED,
	  "16-35", 1 },
	{ FT, "dmodk", "fattree-pods:rule=paper", "0", "", 20, 1, POLICY_PLACED,
	  "32-51", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0", "", 20, 2, POLICY_NEVER,
	  "no candidate #2 (2 candidates)", 0 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0,16", "", 20, 0,
	  POLICY_PLACED, "32-51", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0,16,32", "", 20, 0,
	  POLICY_WAIT, "waiting for 2 whole pods (1 whole)", 0 },
	/* each leaf of pods 0 and 1 has a busy node, pods 2, 3: two each */
	{ FT, "ecmp", "fattree-pods:rule=paper",
	  "0,4,8,20,24,36,40,44,48,52,56,60", "", 9, 0, POLICY_WAIT,
	  "waiting for 3 whole leaf switches in one "
	  "pod (at most 2 in one)",
	  0 },
	/* never: not enough usable whole pods even when empty */
	{ FT, "ecmp", "fattree-pods:rule=paper", "", "48-63,40", 40, 0,
	  POLICY_NEVER, "can never run isolated: needs 3 whole pods (2 whole)",
	  0 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "", "", 64, 0, POLICY_PLACED,
	  "0-63", 1 },
	/* large=leaves (rule iii): whole leaves in pods nobody crosses */
	{ FT, "ecmp", "fattree-pods:large=leaves", "0", "", 20, 0,
	  POLICY_PLACED, "16-35", 1 },
	{ FT, "ecmp", "fattree-pods:rule=paper", "0,16,32,48", "", 20, 0,
	  POLICY_WAIT, "waiting for 2 whole pods (0 whole)", 0 },
	{ FT, "ecmp", "fattree-pods:large=leaves", "0,16,32,48", "", 20, 0,
	  POLICY_PLACED, "4-15,20-27", 1 },
	/* job 104 crosses pods 0 and 1 */
	{ FT, "ecmp", "fattree-pods:large=leaves", "0,16,32,48,4-11+20-27", "",
	  20, 0, POLICY_PLACED, "36-47,52-59", 1 },
	{ FT, "ecmp", "fattree-pods:large=leaves", "0,16,32,48,4-11+20-27", "",
	  28, 0, POLICY_WAIT,
	  "waiting for 7 whole leaf switches in "
	  "pods no other job crosses (6 such in one subtree)",
	  0 },
	/* jobs inside pods 0 and 1 do not close them; pods with the most
	 * such leaves first */
	{ FT, "ecmp", "fattree-pods:large=leaves", "0,16,32,48,4-11,20-27", "",
	  28, 0, POLICY_PLACED, "12-15,36-47,52-63", 1 },
	{ FT, "ecmp", "fattree-pods:large=leaves", "", "0,16,32,48", 60, 0,
	  POLICY_NEVER,
	  "can never run isolated: needs 15 whole leaf "
	  "switches in pods no other job crosses (12 such in one subtree)",
	  0 },

	/* dragonfly-groups under ugal (intra=local) */
	{ DF, "ugal", "dragonfly-groups", "", "", 2, 0, POLICY_PLACED, "0-1",
	  1 },
	{ DF, "ugal", "dragonfly-groups", "0", "", 1, 0, POLICY_PLACED, "1",
	  1 },
	{ DF, "ugal", "dragonfly-groups", "", "", 3, 0, POLICY_PLACED, "0-2",
	  1 },
	{ DF, "ugal", "dragonfly-groups", "0-2", "", 3, 0, POLICY_PLACED,
	  "8-10", 1 },
	{ DF, "ugal", "dragonfly-groups", "0-2", "", 1, 0, POLICY_PLACED, "3",
	  1 },
	/* a 2-node job: routers first (2..35: 34 of them), then groups
	 * (group 0 holds a multi-router job) */
	{ DF, "ugal", "dragonfly-groups", "0-2", "", 2, 33, POLICY_PLACED,
	  "70-71", 1 },
	{ DF, "ugal", "dragonfly-groups", "0-2", "", 2, 34, POLICY_PLACED,
	  "8-9", 1 },
	/* larger than a group */
	{ DF, "ugal", "dragonfly-groups", "", "", 10, 0, POLICY_PLACED, "0-9",
	  1 },
	{ DF, "ugal", "dragonfly-groups", "0-2", "", 10, 0, POLICY_WAIT,
	  "waiting for the 1 multi-router jobs to end (a job spanning groups "
	  "detours through every group)",
	  0 },
	{ DF, "ugal", "dragonfly-groups:large=shared", "0-2", "", 10, 0,
	  POLICY_PLACED, "8-17", 0 },
	{ DF, "ugal", "dragonfly-groups", "8-17", "", 3, 0, POLICY_WAIT,
	  "waiting for job 100, which spans groups, to end", 0 },
	{ DF, "ugal", "dragonfly-groups", "8-17", "", 2, 0, POLICY_PLACED,
	  "0-1", 1 },
	{ DF, "ugal", "dragonfly-groups:large=shared", "8-17", "", 3, 0,
	  POLICY_PLACED, "0-2", 0 },
	/* every group holds a multi-router job */
	{ DF, "vlb", "dragonfly-groups",
	  "0-2,8-10,16-18,24-26,32-34,40-42,48-50,56-58,64-66", "", 4, 0,
	  POLICY_WAIT,
	  "waiting for 4 free nodes in one group without "
	  "another multi-router job (at most 0)",
	  0 },
	/* min: routers of a multi-router job are closed to other ones */
	{ DF, "min", "dragonfly-groups", "0-2", "", 3, 0, POLICY_PLACED, "4-6",
	  1 },
	{ DF, "min", "dragonfly-groups", "0-2", "", 5, 0, POLICY_PLACED, "8-12",
	  1 },
	/* job 100 holds routers 4-8: group 2 has 3 open routers (best fit) */
	{ DF, "min", "dragonfly-groups", "8-17", "", 3, 0, POLICY_PLACED,
	  "18-20", 1 },
	{ DF, "min", "dragonfly-groups", "8-17", "", 10, 0, POLICY_PLACED,
	  "0-7,24-25", 1 },
	{ DF, "min", "dragonfly-groups", "8-17", "", 10, 1, POLICY_PLACED,
	  "24-33", 1 },
	/* intra=global: one multi-router job in the machine */
	{ DF, "ugal:intra=global", "dragonfly-groups", "0-2", "", 3, 0,
	  POLICY_WAIT,
	  "waiting for multi-router job 100 to end (under "
	  "intra=global every multi-router job detours through every "
	  "group)",
	  0 },
	{ DF, "ugal:intra=global", "dragonfly-groups", "0-2", "", 2, 0,
	  POLICY_PLACED, "4-5", 1 },
	{ DF, "ugal", "dragonfly-groups", "", "0-39,41", 25, 0, POLICY_NEVER,
	  "can never run isolated: needs 4 whole groups (3 whole)", 0 },

	/* dragonfly-balanced: the dragonfly-groups candidates, isolated ... */
	{ DF, "ugal", "dragonfly-balanced", "", "", 3, 0, POLICY_PLACED, "0-2",
	  1 },
	{ DF, "ugal", "dragonfly-balanced", "0-2", "", 3, 7, POLICY_PLACED,
	  "64-66", 1 },
	/* ... and only then the shared tier's one candidate */
	{ DF, "ugal", "dragonfly-balanced", "0-2", "", 3, 8, POLICY_NEVER,
	  "no candidate #8 (8 candidates)", 0 },
	/* spanning: groups without a multi-router job first (1, 2), in a
	 * group the most free routers (router 8: nodes 16-17) */
	{ DF, "ugal", "dragonfly-balanced", "0-2", "", 10, 0, POLICY_PLACED,
	  "8-17", 0 },
	{ DF, "ugal", "dragonfly-balanced", "0-2", "", 10, 1, POLICY_NEVER,
	  "no candidate #1 (1 candidates)", 0 },
	/* job 100 spans groups 1-2: group 0 and 3-8 have no multi-router
	 * job and 8 free (best key, lowest id: group 0) */
	{ DF, "ugal", "dragonfly-balanced", "8-17", "", 3, 0, POLICY_PLACED,
	  "0-2", 0 },
	/* every group holds one: group 0, routers without it first
	 * (2 and 3), router 1 (node 3) not needed */
	{ DF, "vlb", "dragonfly-balanced",
	  "0-2,8-10,16-18,24-26,32-34,40-42,48-50,56-58,64-66", "", 4, 0,
	  POLICY_PLACED, "4-7", 0 },
	/* fits a group but none has 6 free: waits rather than span */
	{ DF, "ugal", "dragonfly-balanced",
	  "0-3,8-11,16-19,24-27,32-35,40-43,48-51,56-59,64-67", "", 6, 0,
	  POLICY_WAIT,
	  "waiting for 6 free nodes in one group (it fits one; spanning "
	  "groups would share links in all of them)",
	  0 },
	/* ... unless no group could ever hold it (usable nodes) */
	{ DF, "ugal", "dragonfly-balanced", "",
	  "3-5,11-13,19-21,27-29,35-37,43-45,51-53,59-61,67-69", 6, 0,
	  POLICY_PLACED, "0-2,6-8", 1 },
	/* no whole group, but no multi-router job runs: spans groups 0-1,
	 * isolated (single-node jobs use no link) */
	{ DF, "ugal", "dragonfly-balanced", "0,8,16,24,32,40,48,56,64", "", 10,
	  0, POLICY_PLACED, "1-7,10-12", 1 },
	{ DF, "ugal", "dragonfly-balanced", "0-69", "", 3, 0, POLICY_WAIT,
	  "waiting for 3 free nodes (2 free)", 0 },
	{ DF, "ugal", "dragonfly-balanced", "", "0-69", 3, 0, POLICY_NEVER,
	  "needs 3 nodes, the machine has 2 usable", 0 },

	/* mesh-blocks on expressmesh 4x4x4, p=1: router = node = x+4y+16z */
	{ EM, "dor", "mesh-blocks", "", "", 1, 0, POLICY_PLACED, "0", 1 },
	{ EM, "dor", "mesh-blocks", "", "", 2, 0, POLICY_PLACED, "0-1", 1 },
	{ EM, "dor", "mesh-blocks", "", "", 3, 0, POLICY_PLACED, "0-2", 1 },
	{ EM, "dor", "mesh-blocks", "", "", 4, 0, POLICY_PLACED, "0-1,4-5", 1 },
	{ EM, "minimal", "mesh-blocks", "", "", 8, 0, POLICY_PLACED,
	  "0-1,4-5,16-17,20-21", 1 },
	{ EM, "dor", "mesh-blocks", "0-1,4-5", "", 4, 0, POLICY_PLACED,
	  "2-3,6-7", 1 },
	/* job 100 on routers 0, 1, 4: its box 2x2x1 holds router 5 */
	{ EM, "dor", "mesh-blocks", "0-1+4", "", 2, 0, POLICY_PLACED, "2-3",
	  1 },
	{ EM, "dor", "mesh-blocks", "0-1+4", "", 2, 1, POLICY_PLACED, "6-7",
	  1 },
	{ EM, "dor", "mesh-blocks", "0-1+4", "", 1, 0, POLICY_PLACED, "5", 1 },
	{ EM, "dor", "mesh-blocks", "0-62", "", 1, 0, POLICY_PLACED, "63", 1 },
	/* one job's box covers the whole machine: router 63 is for
	 * single-router jobs only */
	{ EM, "dor", "mesh-blocks", "0-62", "", 2, 0, POLICY_WAIT,
	  "waiting for a cuboid of 2 free routers (0 free)", 0 },
	{ EM, "dor", "mesh-blocks", "0-31,32-47,48-59,60-61", "", 2, 0,
	  POLICY_PLACED, "62-63", 1 },
	{ EM, "dor", "mesh-blocks", "0-31,32-47,48-59,60", "", 4, 0,
	  POLICY_WAIT, "waiting for a cuboid of 4 free routers (3 free)", 0 },
	/* building blocks of 2x2x2 routers */
	{ EM, "dor", "mesh-blocks:mode=building-block", "", "", 1, 0,
	  POLICY_PLACED, "0", 1 },
	{ EM, "dor", "mesh-blocks:mode=building-block", "", "", 3, 0,
	  POLICY_PLACED, "0-1,4", 1 },
	{ EM, "dor", "mesh-blocks:mode=building-block", "", "", 9, 0,
	  POLICY_PLACED, "0-7,16", 1 },
	{ EM, "dor", "mesh-blocks:mode=building-block", "0", "", 8, 0,
	  POLICY_PLACED, "2-3,6-7,18-19,22-23", 1 },
	{ EM, "dor", "mesh-blocks:mode=building-block,block=4x4x1", "0", "", 17,
	  0, POLICY_PLACED, "16-32", 1 },
	{ EM, "dor", "mesh-blocks:mode=building-block,block=4x4x1", "0", "", 49,
	  0, POLICY_WAIT,
	  "waiting for a cuboid of 4 free 4x4x1 blocks "
	  "(3 free)",
	  0 },
	/* torus ring of 8: extents 1-4 or 8 (dor and minimal leave longer
	 * intervals the other way round) */
	{ "torus:dims=8,p=1", "dor", "mesh-blocks", "", "", 4, 0, POLICY_PLACED,
	  "0-3", 1 },
	{ "torus:dims=8,p=1", "dor", "mesh-blocks", "", "", 5, 0, POLICY_PLACED,
	  "0-4", 1 },
	{ "torus:dims=8,p=1", "minimal", "mesh-blocks", "", "7", 5, 0,
	  POLICY_NEVER,
	  "can never run isolated: needs a cuboid of 5 free "
	  "routers (7 free)",
	  0 },
	{ "hyperx:dims=8,p=1", "dor", "mesh-blocks", "", "7", 5, 0,
	  POLICY_PLACED, "0-4", 1 },
	/* blocks wrap round the ring */
	{ "torus:dims=8,p=1", "dor", "mesh-blocks", "1-2", "", 3, 0,
	  POLICY_PLACED, "3-5", 1 },
	{ "torus:dims=8,p=1", "dor", "mesh-blocks", "2-5", "", 3, 0,
	  POLICY_PLACED, "0,6-7", 1 },
	/* routers 1-5 span half the ring: the job's flows from 1 to 5 go
	 * both ways round, its box is the whole ring */
	{ "torus:dims=8,p=1", "minimal", "mesh-blocks", "1-5", "", 3, 0,
	  POLICY_WAIT, "waiting for a cuboid of 3 free routers (0 free)", 0 },
	/* 3 routers: 3x1 is not allowed on a ring of 4, so 2x2 */
	{ "torus:dims=4x4,p=2", "dor", "mesh-blocks", "", "", 6, 0,
	  POLICY_PLACED, "0-3,8-9", 1 },
	{ "torus:dims=4x4,p=2", "dor", "mesh-blocks", "", "", 7, 0,
	  POLICY_PLACED, "0-3,8-10", 1 },
	/* a job on rows 0-2 of a ring of 4: flows between rows 0 and 2 go
	 * both ways round, so row 3 is inside its box; single routers only */
	{ "torus:dims=4x4,p=1", "minimal", "mesh-blocks", "0-10", "", 2, 0,
	  POLICY_WAIT, "waiting for a cuboid of 2 free routers (0 free)", 0 },
	{ "torus:dims=4x4,p=1", "minimal", "mesh-blocks", "0-10", "", 1, 0,
	  POLICY_PLACED, "11", 1 },
};

static void parse_into(struct fx *f, const char *s, int what)
{
	uint32_t job = 100;

	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (what)
			unusable(f, (uint32_t)lo, (uint32_t)hi);
		else
			own(f, job, (uint32_t)lo, (uint32_t)hi);
		if (*end != '+') /* '+' joins ranges into one job */
			job++;
		s = *end ? end + 1 : end;
	}
}

/* One process for the whole table (cheap under valgrind); every message
 * names the row. */
Test(policy, placements)
{
	for (size_t i = 0; i < sizeof(pcases) / sizeof(pcases[0]); i++) {
		const struct pcase *c = &pcases[i];
		struct fx f;
		struct policy_result res;
		int st;

		fx_open(&f, c->topo, c->routing, c->policy);
		parse_into(&f, c->busy, 0);
		parse_into(&f, c->unusable, 1);
		st = ask(&f, 1, c->nodes, c->attempt, &res);
		cr_expect_eq(st, c->status,
			     "row %zu: %s %s %s busy '%s', %u "
			     "nodes: got %d '%s'",
			     i, c->topo, c->routing, c->policy, c->busy,
			     c->nodes, st, f.got);
		cr_expect_str_eq(f.got, c->want,
				 "row %zu: %s %s %s busy "
				 "'%s', %u nodes: '%s'",
				 i, c->topo, c->routing, c->policy, c->busy,
				 c->nodes, f.got);
		cr_expect_eq(res.isolated, c->isolated != 0, "row %zu", i);
		fx_close(&f);
	}
}

/* policy_resv_level: the units a reservation must hold whole.  Under
 * rule=links a job spanning level j (its leaves' lowest common unit)
 * needs its level-(j-1) units: on fattree:k=4,n=3 (leaves of 4 nodes,
 * pods of 16) nodes 0-2 (one leaf) -1, 0-5 (leaves 0-1 of pod 0) 0, 0-19
 * and 3+60 (pods 0-1, 0 and 3) 1; on fattree:k=3,n=4 (leaves of 3, pods
 * of 9, subtrees of 27) nodes 0 and 80 (subtrees 0 and 2) 2.  The
 * paper's rules and policies without the hook: -1.  On DF (routers of 2
 * nodes, groups of 8): one router -1; nodes 0-2 (routers 0-1 of group
 * 0): min's router rule 0, Cascade min's group rule 1, Valiant with
 * large=shared 1, with large=wait 2 (detours of jobs outside); nodes 0
 * and 17 (groups 0 and 2): min 1, Valiant large=wait 2, large=shared 1;
 * dragonfly-balanced at most 1. */
Test(policy, resv_level)
{
	static const struct {
		const char *topo, *routing, *policy;
		uint32_t nodes[20], n;
		int want;
	} rows[] = {
		{ FT, "ecmp", "fattree-pods:rule=links", { 0, 1, 2 }, 3, -1 },
		{ FT,
		  "ecmp",
		  "fattree-pods:rule=links",
		  { 0, 1, 2, 3, 4, 5 },
		  6,
		  0 },
		{ FT,
		  "ecmp",
		  "fattree-pods:rule=links",
		  { 0,	1,  2,	3,  4,	5,  6,	7,  8,	9,
		    10, 11, 12, 13, 14, 15, 16, 17, 18, 19 },
		  20,
		  1 },
		{ FT, "dmodk", "fattree-pods:rule=links", { 3, 60 }, 2, 1 },
		{ "fattree:k=3,n=4",
		  "ecmp",
		  "fattree-pods:rule=links",
		  { 0, 80 },
		  2,
		  2 },
		{ FT, "ecmp", "fattree-pods:rule=paper", { 3, 60 }, 2, -1 },
		{ FT, "ecmp", "linear", { 3, 60 }, 2, -1 },
		{ DF, "ugal", "dragonfly-groups", { 0, 1 }, 2, -1 },
		{ DF, "min", "dragonfly-groups", { 0, 1, 2 }, 3, 0 },
		{ DF, "min", "dragonfly-balanced", { 0, 1, 2 }, 3, 0 },
		{ "cascade:groups=3,pair=8",
		  "min",
		  "dragonfly-groups",
		  { 0, 4 },
		  2,
		  1 },
		{ DF,
		  "ugal",
		  "dragonfly-groups:large=shared",
		  { 0, 1, 2 },
		  3,
		  1 },
		{ DF, "ugal", "dragonfly-groups", { 0, 1, 2 }, 3, 2 },
		{ DF,
		  "vlb:intra=global",
		  "dragonfly-groups:large=shared",
		  { 0, 1, 2 },
		  3,
		  2 },
		{ DF,
		  "vlb:intra=global",
		  "dragonfly-balanced",
		  { 0, 1, 2 },
		  3,
		  1 },
		{ DF, "min", "dragonfly-groups", { 0, 17 }, 2, 1 },
		{ DF, "ugal", "dragonfly-groups", { 0, 17 }, 2, 2 },
		{ DF, "ugal", "dragonfly-groups:large=shared", { 0, 17 }, 2, 1 },
		{ DF, "ugal", "dragonfly-balanced", { 0, 17 }, 2, 1 },
	};
	struct err e = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fx_net n = fx_net(rows[i].topo, rows[i].routing);
		struct policy *p = policy_create(rows[i].policy, n.t, n.r, &e);

		cr_assert(p, "%s %s: %s", rows[i].topo, rows[i].policy, e.msg);
		cr_expect_eq(policy_resv_level(p, rows[i].nodes, rows[i].n),
			     rows[i].want, "row %zu: %s %s %s", i, rows[i].topo,
			     rows[i].routing, rows[i].policy);
		policy_destroy(p);
		fx_net_free(&n);
	}
}

/* "default": each family's policy under the routing, linear where the
 * family's own refuses the routing (mesh-blocks and shortest). */
Test(policy, family_default)
{
	static const struct {
		const char *topo, *routing, *want;
	} rows[] = {
		{ DF, "ugal", "dragonfly-balanced" },
		{ DF, "vlb:intra=global", "dragonfly-balanced" },
		{ DF, "min", "dragonfly-groups" },
		{ DF, "shortest", "linear" },
		{ "cascade:groups=3,pair=8", "ugal", "dragonfly-balanced" },
		{ "cascade:groups=3,pair=8", "min", "dragonfly-groups" },
		{ FT, "dmodk", "fattree-pods" },
		{ "torus:dims=4x4", "dor", "mesh-blocks" },
		{ "torus:dims=4x4", "shortest", "linear" },
		{ "hyperx:dims=4x4", "minimal", "mesh-blocks" },
		{ EM, "dor", "mesh-blocks" },
		{ "jellyfish:n=16,r=4,p=1,seed=1", "shortest", "linear" },
	};
	struct err e = { 0 };

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fx_net n = fx_net(rows[i].topo, rows[i].routing);
		struct policy *p = policy_create("default", n.t, n.r, &e);

		cr_assert(p, "%s %s: %s", rows[i].topo, rows[i].routing, e.msg);
		cr_expect_str_eq(policy_name(p), rows[i].want, "%s %s",
				 rows[i].topo, rows[i].routing);
		cr_expect_str_eq(policy_default_spec(n.t, n.r), rows[i].want);
		policy_destroy(p);
		fx_net_free(&n);
	}
	/* a graph recognised as a fat-tree: fattree-pods under ecmp only */
	for (int ecmp = 0; ecmp < 2; ecmp++) {
		struct topo *t = fx_conf(irreg_conf);
		struct routing *r = fx_routing(t, ecmp ? "ecmp" : "shortest");
		struct policy *p = policy_create("default", t, r, &e);

		cr_assert(p, "%s", e.msg);
		cr_expect_str_eq(policy_name(p),
				 ecmp ? "fattree-pods" : "linear");
		policy_destroy(p);
		routing_destroy(r);
		topo_destroy(t);
	}
	/* a graph recognised as a dragonfly: the dragonfly defaults, by
	 * routing; linear under shortest */
	{
		static const char *const rt[][2] = {
			{ "min", "dragonfly-groups" },
			{ "ugal", "dragonfly-balanced" },
			{ "vlb", "dragonfly-balanced" },
			{ "shortest", "linear" },
		};
		struct topo *t = fx_imported("ibnet:" DF);

		for (size_t i = 0; i < sizeof(rt) / sizeof(rt[0]); i++) {
			struct routing *r = fx_routing(t, rt[i][0]);
			struct policy *p = policy_create("default", t, r, &e);

			cr_assert(p, "%s: %s", rt[i][0], e.msg);
			cr_expect_str_eq(policy_name(p), rt[i][1], "%s",
					 rt[i][0]);
			policy_destroy(p);
			routing_destroy(r);
		}
		topo_destroy(t);
	}
	cr_expect_eq(policy_check("default", &e), 0, "%s", e.msg);
	cr_expect_eq(policy_check("default:large=wait", &e), -1);
	cr_expect_str_eq(e.msg, "policy default takes no options (it stands "
				"for the family's default policy)");
}

/* dragonfly-balanced says why a placement is not isolated (the job's
 * record in whatif and the plugin's log); rows of the table above. */
Test(policy, balanced_reasons)
{
	static const struct {
		const char *routing, *busy;
		uint32_t nodes;
		const char *want;
	} rows[] = {
		{ "ugal", "0-2", 10,
		  "shared: spans 2 groups while 1 multi-router job runs (e.g. "
		  "job 100); Valiant detours cross every group" },
		{ "min", "0-2,8-10,16-18,24-26,32-34,40-42,48-50,56-58,64-66",
		  10,
		  "shared: spans 2 groups while 9 multi-router jobs run (e.g. "
		  "job 108); its minimal paths cross their routers" },
		{ "ugal", "8-17", 3,
		  "shared: job 100 spans groups, its Valiant detours cross "
		  "group 0" },
		{ "ugal:intra=global", "8-10", 3,
		  "shared: job 100 runs on several routers (intra=global), "
		  "its Valiant detours cross group 0" },
		{ "vlb", "0-2,8-10,16-18,24-26,32-34,40-42,48-50,56-58,64-66",
		  4,
		  "shared: group 0 already holds 1 multi-router job (e.g. job "
		  "100)" },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fx f;
		struct policy_result res;

		fx_open(&f, DF, rows[i].routing, "dragonfly-balanced");
		parse_into(&f, rows[i].busy, 0);
		cr_assert_eq(ask(&f, 1, rows[i].nodes, 0, &res), POLICY_PLACED,
			     "row %zu: %s", i, f.got);
		cr_expect_not(res.isolated, "row %zu", i);
		cr_expect_str_eq(res.reason, rows[i].want, "row %zu", i);
		fx_close(&f);
	}
}

/* Which isolating policies share by design (stopo report does not call
 * their sharing broken isolation). */
Test(policy, shares_by_design)
{
	static const struct {
		const char *topo, *routing, *policy;
		bool shares;
	} rows[] = {
		{ DF, "ugal", "dragonfly-balanced", true },
		{ DF, "min", "dragonfly-balanced", true },
		{ DF, "ugal", "dragonfly-groups:large=shared", true },
		{ DF, "min", "dragonfly-groups:large=shared", false },
		{ DF, "ugal", "dragonfly-groups", false },
		{ FT, "ecmp", "fattree-pods", false },
		{ FT, "ecmp", "linear", false },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct fx f;

		fx_open(&f, rows[i].topo, rows[i].routing, rows[i].policy);
		cr_expect_eq(policy_shares(f.p), rows[i].shares, "%s %s",
			     rows[i].routing, rows[i].policy);
		fx_close(&f);
	}
}

/* ---- the guarantee: random arrivals and departures ----
 * Every placed job's link set comes from routing_linkset.  A job the
 * policy calls isolated must share no link with any running job; strict
 * policies must call every job isolated; a baseline on the same sequence
 * must share links (so the check can fail). */

struct gcase {
	char topo[64];
	char routing[24];
	char policy[48];
	uint32_t small, group; /* nodes per leaf/router, per pod/group */
	int strict;
	int grid; /* jobs just over a group declare a Cartesian grid */
};

#define IMPERFECT "ibnet:fattree:k=4,n=3/drop=5+13+14+31+40/half=6"

static struct gcase gcases[] = {
	{ FT, "ecmp", "fattree-pods:rule=paper", 4, 16, 1, 0 },
	{ FT, "dmodk", "fattree-pods:rule=paper", 4, 16, 1, 0 },
	{ FT, "ecmp", "fattree-pods:large=leaves", 4, 16, 1, 0 },
	{ FT, "dmodk", "fattree-pods:large=leaves", 4, 16, 1, 0 },
	{ "fattree:k=3,n=4", "ecmp", "fattree-pods:rule=paper", 3, 9, 1, 0 },
	{ "fattree:k=3,n=4", "ecmp", "fattree-pods:large=leaves", 3, 9, 1, 0 },
	{ "fattree:k=2,n=5", "dmodk", "fattree-pods:large=leaves", 2, 4, 1, 0 },
	/* rule=links: any nodes whose units no other job crosses */
	/* imported fabrics (fx_imported): a 4-ary 3-tree, and one missing a
	 * spine (40), with unequal pods (pod 1 without leaf 5, pod 3 without
	 * leaves 13, 14 and aggregation switch 31) and a leaf (6) with half
	 * its nodes */
	{ "ibnet:" FT, "ecmp", "fattree-pods:rule=paper", 4, 16, 1, 0 },
	{ "ibnet:" FT, "ecmp", "fattree-pods:large=leaves", 4, 16, 1, 0 },
	{ "ibnet:" FT, "ecmp", "fattree-pods:rule=links", 4, 16, 1, 0 },
	{ "ibnet:fattree:k=3,n=4", "ecmp", "fattree-pods:rule=paper", 3, 9, 1,
	  0 },
	{ "ibnet:fattree:k=6,n=2", "ecmp", "fattree-pods:rule=links", 6, 36, 1,
	  0 },
	/* the 4-ary 3-tree and 3-ary 4-tree imported with dmodk's
	 * forwarding tables (--lft): units checked by the tables' link
	 * sets, isolation checked by them below */
	{ "ibnet:" FT "/lft", "lft", "fattree-pods:rule=paper", 4, 16, 1, 0 },
	{ "ibnet:" FT "/lft", "lft", "fattree-pods:rule=links", 4, 16, 1, 0 },
	{ "ibnet:fattree:k=3,n=4/lft", "lft", "fattree-pods:large=leaves", 3, 9,
	  1, 0 },
	/* a director fat-tree (conf:director): units by link sets */
	{ "conf:director", "ecmp", "fattree-pods:rule=links", 4, 8, 1, 0 },
	{ "conf:director", "ecmp", "fattree-pods:rule=paper", 4, 8, 1, 0 },
	{ IMPERFECT, "ecmp", "fattree-pods:rule=paper", 4, 16, 1, 0 },
	{ IMPERFECT, "ecmp", "fattree-pods:large=leaves", 4, 16, 1, 0 },
	{ IMPERFECT, "ecmp", "fattree-pods:rule=links", 4, 16, 1, 0 },
	{ FT, "ecmp", "fattree-pods:rule=links", 4, 16, 1, 0 },
	{ FT, "dmodk", "fattree-pods:rule=links", 4, 16, 1, 0 },
	{ "fattree:k=6,n=2", "ecmp", "fattree-pods:rule=links", 6, 36, 1, 0 },
	{ "fattree:k=6,n=2", "dmodk", "fattree-pods:rule=links", 6, 36, 1, 0 },
	{ "fattree:k=3,n=4", "ecmp", "fattree-pods:rule=links", 3, 9, 1, 0 },
	{ "fattree:k=3,n=4", "dmodk", "fattree-pods:rule=links", 3, 9, 1, 0 },
	{ "fattree:k=4,n=4", "ecmp", "fattree-pods:rule=links", 4, 16, 1, 0 },
	/* a dragonfly imported (ibnetdiscover), and one whose switches are
	 * listed odd ones first (groups not switch ranges) */
	{ "ibnet:" DF, "min", "dragonfly-groups", 2, 8, 1, 0 },
	{ "ibnet:" DF, "ugal", "dragonfly-groups", 2, 8, 1, 0 },
	{ "ibnet:" DF, "vlb:intra=global", "dragonfly-groups", 2, 8, 1, 0 },
	{ "ibnet:" DF, "ugal", "dragonfly-groups:large=shared", 2, 8, 0, 0 },
	{ "ibnet:" DF, "ugal", "dragonfly-balanced", 2, 8, 0, 0 },
	{ "ibnet:" DF "/shuffle", "min", "dragonfly-groups", 2, 8, 1, 0 },
	{ "ibnet:" DF "/shuffle", "ugal", "dragonfly-groups", 2, 8, 1, 0 },
	{ "ibnet:" DF "/shuffle", "ugal", "dragonfly-balanced", 2, 8, 0, 0 },
	{ DF, "min", "dragonfly-groups", 2, 8, 1, 0 },
	{ DF, "ugal", "dragonfly-groups", 2, 8, 1, 0 },
	{ DF, "vlb", "dragonfly-groups", 2, 8, 1, 0 },
	{ DF, "ugal:intra=global", "dragonfly-groups", 2, 8, 1, 0 },
	{ DF, "vlb:intra=global", "dragonfly-groups", 2, 8, 1, 0 },
	{ DF, "ugal", "dragonfly-groups:large=shared", 2, 8, 0, 0 },
	{ DF, "min", "dragonfly-groups:large=shared", 2, 8, 1, 0 },
	{ "cascade:groups=3,pair=8", "min", "dragonfly-groups", 4, 384, 1, 0 },
	{ "cascade:groups=3,pair=8", "ugal", "dragonfly-groups", 4, 384, 1, 0 },
	{ DF, "ugal", "dragonfly-balanced", 2, 8, 0, 0 },
	{ DF, "vlb", "dragonfly-balanced", 2, 8, 0, 0 },
	{ DF, "ugal:intra=global", "dragonfly-balanced", 2, 8, 0, 0 },
	{ DF, "min", "dragonfly-balanced", 2, 8, 0, 0 },
	{ DF, "min", "nne", 2, 8, 1, 1 },
	{ DF, "ugal", "nne", 2, 8, 1, 1 },
	{ DF, "vlb", "nne", 2, 8, 1, 1 },
	{ DF, "ugal:intra=global", "nne", 2, 8, 1, 1 },
	{ DF, "ugal", "nne:large=shared", 2, 8, 0, 1 },
	{ DF, "min", "nne:large=shared", 2, 8, 1, 1 },
	{ "cascade:groups=3,pair=8", "min", "nne", 4, 384, 1, 1 },
	{ "cascade:groups=3,pair=8", "ugal", "nne", 4, 384, 1, 1 },
	{ "cascade:groups=3,pair=8", "ugal", "dragonfly-balanced", 4, 384, 0,
	  0 },
	{ EM, "dor", "mesh-blocks", 1, 8, 1, 0 },
	{ EM, "minimal", "mesh-blocks", 1, 8, 1, 0 },
	{ EM, "dor", "mesh-blocks:mode=building-block", 1, 8, 1, 0 },
	{ "expressmesh:dims=6x5x4,gap=2,p=2", "minimal", "mesh-blocks", 2, 16,
	  1, 0 },
	{ "hyperx:dims=4x4x4,p=2", "minimal", "mesh-blocks", 2, 16, 1, 0 },
	{ "torus:dims=4x4x4,p=1", "dor", "mesh-blocks", 1, 8, 1, 0 },
	{ "torus:dims=4x4x4,p=1", "minimal", "mesh-blocks", 1, 8, 1, 0 },
	{ "torus:dims=6x5x4,p=1", "minimal", "mesh-blocks", 1, 8, 1, 0 },
	{ "torus:dims=5x5x5,p=1", "dor",
	  "mesh-blocks:mode=building-block,"
	  "block=5x1x1",
	  1, 8, 1, 0 },
};

struct seqstat {
	uint32_t placed, multi, shared, isolated, grids;
	uint64_t hash;
};

static int cmp_u32_key(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

struct gjob {
	uint32_t id, n, nl;
	uint32_t *nodes, *links;
	bool isolated, alive;
};

/* FOREIGN: when set, every third arrival is placed by this other policy
 * (jobs of another partition, or placed before select/topo ran): the
 * isolating policy must still tell the truth about its own jobs. */
static void run_seq(const struct gcase *c, const char *policy,
		    const char *foreign, uint64_t seed, uint32_t steps,
		    struct seqstat *out)
{
	struct policy *other = NULL;
	struct fx f;
	struct rng g;
	struct err e = { 0 };
	struct gjob *jobs = calloc(steps + 1, sizeof(*jobs));
	uint32_t njobs = 0, L, *use;
	uint8_t *used;

	fx_open(&f, c->topo, c->routing, policy);
	if (foreign) {
		other = policy_create(foreign, f.t, f.r, &e);
		cr_assert(other, "%s", e.msg);
	}
	L = topo_num_links(f.t);
	use = calloc(L, sizeof(*use));
	used = malloc(L);
	cr_assert(jobs && use && used);
	memset(out, 0, sizeof(*out));
	out->hash = 1469598103934665603ULL;
	rng_seed(&g, seed);
	for (uint32_t step = 0; step < steps; step++) {
		uint32_t alive = 0, size, cls, maxs;
		struct policy_result res;
		struct gjob *j;

		for (uint32_t i = 0; i < njobs; i++)
			alive += jobs[i].alive;
		if (alive && rng_below(&g, 3) == 0) {
			uint32_t k = (uint32_t)rng_below(&g, alive);

			for (uint32_t i = 0; i < njobs; i++) {
				if (!jobs[i].alive || k--)
					continue;
				jobs[i].alive = false;
				for (uint32_t x = 0; x < jobs[i].n; x++)
					f.owner[jobs[i].nodes[x]] = 0;
				for (uint32_t x = 0; x < jobs[i].nl; x++)
					use[jobs[i].links[x]]--;
				break;
			}
			continue;
		}
		/* sizes: one switch, two switches, one pod/group, just
		 * over one pod/group (multi-unit jobs), up to a third */
		cls = (uint32_t)rng_below(&g, 5);
		maxs = cls == 0 ? c->small :
		       cls == 1 ? 2 * c->small :
		       cls == 2 ? c->group :
		       cls == 3 ? c->group / 2 :
				  f.n / 3;
		size = 1 + (uint32_t)rng_below(&g, maxs);
		if (cls == 3)
			size += c->group;
		if (size > f.n)
			size = f.n;
		if (other && step % 3 == 0) {
			struct policy *mine = f.p;
			int st;

			f.p = other;
			st = ask(&f, 1000 + step, size, 0, &res);
			f.p = mine;
			if (st != POLICY_PLACED)
				continue;
		} else if (c->grid && cls == 3) {
			/* a 2-D grid when the size is even, else 1-D */
			struct policy_request q = { .job_id = 1000 + step,
						    .nodes = size };

			q.ngrid = size % 2 ? 1 : 2;
			q.grid[0] = size % 2 ? size : 2;
			q.grid[1] = size / 2;
			if (ask_req(&f, &q, &res) != POLICY_PLACED)
				continue;
			if (res.nranks) {
				/* the rank order holds the job's nodes */
				cr_assert_eq(res.nranks, size);
				for (uint32_t r = 0; r < size; r++)
					cr_assert(bsearch(&fx_ranks[r],
							  res.nodes, res.n,
							  sizeof(uint32_t),
							  cmp_u32_key),
						  "rank %u on node %u", r,
						  fx_ranks[r]);
				out->grids++;
			}
		} else if (ask(&f, 1000 + step, size, 0, &res) !=
			   POLICY_PLACED) {
			continue;
		}
		j = &jobs[njobs++];
		j->id = 1000 + step;
		j->n = res.n;
		j->nodes = malloc(res.n * sizeof(uint32_t));
		memcpy(j->nodes, res.nodes, res.n * sizeof(uint32_t));
		memset(used, 0, L);
		cr_assert_eq(routing_linkset(f.r, j->nodes, j->n, used, &e), 0,
			     "%s", e.msg);
		j->links = malloc(L * sizeof(uint32_t));
		j->nl = 0;
		for (uint32_t l = 0; l < L; l++)
			if (used[l])
				j->links[j->nl++] = l;
		j->isolated = res.isolated;
		j->alive = true;
		out->placed++;
		out->multi += j->nl > 0;
		out->isolated += res.isolated;
		for (uint32_t x = 0; x < j->nl; x++)
			if (use[j->links[x]]) {
				out->shared++;
				cr_assert_not(res.isolated,
					      "%s %s %s seed %llu: "
					      "job %u (%u nodes %s) called "
					      "isolated shares link %u",
					      c->topo, c->routing, policy,
					      (unsigned long long)seed, j->id,
					      j->n, f.got, j->links[x]);
				break;
			}
		if (c->strict && policy_isolating(f.p) &&
		    !(other && step % 3 == 0))
			cr_assert(res.isolated,
				  "%s %s: job of %u nodes not "
				  "isolated",
				  c->topo, policy, size);
		for (uint32_t x = 0; x < j->nl; x++)
			use[j->links[x]]++;
		for (uint32_t x = 0; x < j->n; x++) {
			f.owner[j->nodes[x]] = j->id;
			out->hash =
				(out->hash ^ j->nodes[x]) * 1099511628211ULL;
		}
	}
	for (uint32_t i = 0; i < njobs; i++) {
		free(jobs[i].nodes);
		free(jobs[i].links);
	}
	free(jobs);
	free(use);
	free(used);
	policy_destroy(other);
	fx_close(&f);
}

/* conf:director's edge switches meet its chassis in two groupings, so
 * its components make one pod; fattree-pods takes chassis a's leaf chips
 * as the pods, {e0, e1} and {e2, e3}, which the link sets show isolate
 * (worked by hand: cables through a spine carry e0-e3 and e1-e2, split by
 * {e0, e1}); the storage nodes st1, st2 (16, 17) are never placed. */
Test(policy, director_pods)
{
	struct fx f;
	struct policy_result res;

	fx_open(&f, "conf:director", "ecmp", "fattree-pods:rule=paper");
	cr_assert_eq(ask(&f, 1, 8, 0, &res), POLICY_PLACED, "%s", f.got);
	cr_expect_str_eq(f.got, "0-7");
	cr_expect(res.isolated);
	own(&f, 1, 0, 7);
	cr_assert_eq(ask(&f, 2, 8, 0, &res), POLICY_PLACED, "%s", f.got);
	cr_expect_str_eq(f.got, "8-15");
	own(&f, 2, 8, 15);
	cr_expect_eq(ask(&f, 3, 1, 0, &res), POLICY_WAIT, "%s", f.got);
	fx_close(&f);
}

/* Tables that detour through a leaf (tests/data/good_lft_detour.conf):
 * no unit isolates, and fattree-pods says which cable and pairs. */
Test(policy, lft_no_unit)
{
	struct err e = { 0 };
	char path[1024];
	struct topo_conf *c;
	struct routing *r;

	snprintf(path, sizeof(path), "%s/tests/data/good_lft_detour.conf",
		 SRCDIR);
	c = topo_conf_load(path, &e);
	cr_assert(c, "%s", e.msg);
	r = routing_create(topo_conf_topo(c), "lft", &e);
	cr_assert(r, "%s", e.msg);
	cr_expect_null(policy_create("fattree-pods", topo_conf_topo(c), r, &e));
	cr_expect_str_eq(e.msg,
			 "policy fattree-pods: no isolating unit above the "
			 "leaf switches: cable l3-s2 carries the traffic of "
			 "leaves l3 and l1 and of l3 and l2, which no unit "
			 "separates");
	routing_destroy(r);
	topo_conf_destroy(c);
}

/* Issue 17: a k-ary n-tree or a dragonfly imported from ibnetdiscover
 * text is recognised with the generated numbering (test_import), so
 * fattree-pods and the dragonfly policies, in every mode, must give the
 * same nodes to every job of a random sequence on it as on the generated
 * topology (hash of every placement), alone and beside jobs of another
 * policy. */
Test(policy, imported_as_generated)
{
	static const struct {
		const char *topo, *routing, *policy;
		uint32_t small, group;
	} specs[] = {
		{ FT, "ecmp", "fattree-pods", 4, 16 },
		{ FT, "ecmp", "fattree-pods:large=leaves", 4, 16 },
		{ FT, "ecmp", "fattree-pods:rule=links", 4, 16 },
		{ "fattree:k=3,n=4", "ecmp", "fattree-pods", 3, 9 },
		{ "fattree:k=3,n=4", "ecmp", "fattree-pods:rule=links", 3, 9 },
		{ "fattree:k=6,n=2", "ecmp", "fattree-pods", 6, 36 },
		{ DF, "min", "dragonfly-groups", 2, 8 },
		{ DF, "ugal", "dragonfly-groups", 2, 8 },
		{ DF, "ugal", "dragonfly-groups:large=shared", 2, 8 },
		{ DF, "vlb:intra=global", "dragonfly-groups", 2, 8 },
		{ DF, "ugal", "dragonfly-balanced", 2, 8 },
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct gcase gen = { .strict = 0 }, imp;

		gen.small = specs[i].small;
		gen.group = specs[i].group;
		snprintf(gen.topo, sizeof(gen.topo), "%s", specs[i].topo);
		snprintf(gen.routing, sizeof(gen.routing), "%s",
			 specs[i].routing);
		snprintf(gen.policy, sizeof(gen.policy), "%s", specs[i].policy);
		imp = gen;
		snprintf(imp.topo, sizeof(imp.topo), "ibnet:%s", specs[i].topo);
		for (uint64_t seed = 1; seed <= 3; seed++)
			for (int mixed = 0; mixed < 2; mixed++) {
				struct seqstat a, b;
				const char *other = mixed ? "random" : NULL;

				run_seq(&gen, gen.policy, other, seed, 150, &a);
				run_seq(&imp, imp.policy, other, seed, 150, &b);
				cr_assert_gt(a.multi, 0);
				cr_expect_eq(a.placed, b.placed, "%s %s",
					     imp.topo, imp.policy);
				cr_expect_eq(a.isolated, b.isolated, "%s %s",
					     imp.topo, imp.policy);
				cr_expect_eq(a.hash, b.hash,
					     "%s %s %s seed %llu: other nodes",
					     imp.topo, imp.routing, imp.policy,
					     (unsigned long long)seed);
			}
	}
}

/* Round trips: conf:director written as ibnetdiscover text, a Cascade
 * (round-robin and block wiring) as an Aries link list, imported: the
 * same allocations for every job of a random sequence, alone and beside
 * another policy's jobs (isolation checked on the imported link sets). */
Test(policy, round_trip_allocations)
{
	static const struct {
		const char *topo, *routing, *policy;
		uint32_t small, group;
	} specs[] = {
		{ "conf:director", "ecmp", "fattree-pods:rule=links", 4, 8 },
		{ "conf:director", "ecmp", "fattree-pods:rule=paper", 4, 8 },
		{ "cascade:groups=3,pair=8", "min", "dragonfly-groups", 4,
		  384 },
		{ "cascade:groups=3,pair=8", "ugal", "dragonfly-balanced", 4,
		  384 },
		{ "cascade:groups=4,block=4,bundle=2", "ugal",
		  "dragonfly-groups", 4, 384 },
	};

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct gcase gen = { .strict = 0 }, imp;

		gen.small = specs[i].small;
		gen.group = specs[i].group;
		snprintf(gen.topo, sizeof(gen.topo), "%s", specs[i].topo);
		snprintf(gen.routing, sizeof(gen.routing), "%s",
			 specs[i].routing);
		snprintf(gen.policy, sizeof(gen.policy), "%s", specs[i].policy);
		imp = gen;
		snprintf(imp.topo, sizeof(imp.topo), "%s:%s",
			 strncmp(specs[i].topo, "conf:", 5) ? "aries" : "rt",
			 specs[i].topo);
		for (int mixed = 0; mixed < 2; mixed++) {
			struct seqstat a, b;
			const char *other = mixed ? "random" : NULL;

			run_seq(&gen, gen.policy, other, 1, 120, &a);
			run_seq(&imp, imp.policy, other, 1, 120, &b);
			cr_assert_gt(a.multi, 0);
			cr_expect_eq(a.placed, b.placed, "%s", imp.topo);
			cr_expect_eq(a.isolated, b.isolated, "%s", imp.topo);
			cr_expect_eq(a.hash, b.hash, "%s %s %s: other nodes",
				     imp.topo, imp.routing, imp.policy);
		}
	}
}

/* Allocations under the subnet manager's tables: a k-ary n-tree under
 * dmodk and the same tree imported with dmodk's tables (ibnet:.../lft,
 * Routing=lft) give fattree-pods the same units (checked by the tables'
 * link sets), so every job of a random sequence the same nodes. */
Test(policy, lft_as_generated)
{
	static const char *const specs[] = { FT, "fattree:k=3,n=4" };
	static const char *const policies[] = { "fattree-pods:rule=paper",
						"fattree-pods:rule=links" };

	for (size_t i = 0; i < sizeof(specs) / sizeof(*specs); i++)
		for (size_t k = 0; k < 2; k++) {
			struct gcase gen = { .strict = 0 }, imp;
			struct seqstat a, b;

			gen.small = i ? 3 : 4;
			gen.group = i ? 9 : 16;
			snprintf(gen.topo, sizeof(gen.topo), "%s", specs[i]);
			snprintf(gen.routing, sizeof(gen.routing), "dmodk");
			snprintf(gen.policy, sizeof(gen.policy), "%s",
				 policies[k]);
			imp = gen;
			snprintf(imp.topo, sizeof(imp.topo), "ibnet:%s/lft",
				 specs[i]);
			snprintf(imp.routing, sizeof(imp.routing), "lft");
			run_seq(&gen, gen.policy, NULL, 1, 150, &a);
			run_seq(&imp, imp.policy, NULL, 1, 150, &b);
			cr_assert_gt(a.multi, 0);
			cr_expect_eq(a.placed, b.placed, "%s", imp.topo);
			cr_expect_eq(a.isolated, b.isolated, "%s", imp.topo);
			cr_expect_eq(a.hash, b.hash, "%s %s: other nodes",
				     imp.topo, imp.policy);
		}
}

ParameterizedTestParameters(policy, guarantee)
{
	return cr_make_param_array(struct gcase, gcases,
				   sizeof(gcases) / sizeof(gcases[0]));
}

ParameterizedTest(struct gcase *c, policy, guarantee, .timeout = 120)
{
	struct seqstat s, b, again;
	uint32_t base_shared = 0, multi = 0, mixed_isolated = 0, grids = 0;

	/* POLICY_TEST_SEEDS=N runs more sequences (stress, by hand) */
	const char *env = getenv("POLICY_TEST_SEEDS");
	uint64_t seeds = env && atoi(env) > 0 ? (uint64_t)atoi(env) : 3;

	for (uint64_t seed = 1; seed <= seeds; seed++) {
		run_seq(c, c->policy, NULL, seed, 150, &s);
		multi += s.multi;
		grids += s.grids;
		run_seq(c, "clustered", NULL, seed, 150, &b);
		base_shared += b.shared;
		run_seq(c, c->policy, NULL, seed, 150, &again);
		cr_assert_eq(s.hash, again.hash, "not deterministic");
		cr_assert_eq(s.placed, again.placed);
		/* with foreign jobs around (checked inside) */
		run_seq(c, c->policy, "random", seed, 150, &again);
		mixed_isolated += again.isolated;
	}
	cr_assert_gt(base_shared, 0,
		     "%s %s: the baseline never shares, the "
		     "check cannot fail",
		     c->topo, c->routing);
	cr_assert_gt(mixed_isolated, 0);
	/* jobs using links at all, or the check is empty */
	cr_assert_geq(multi, 4 * seeds, "%s %s %s: only %u multi-switch jobs",
		      c->topo, c->routing, c->policy, multi);
	/* grid jobs were planned across groups, or the case tests nothing
	 * of nne's own */
	if (c->grid)
		cr_assert_gt(grids, 0, "%s %s %s: no grid job planned", c->topo,
			     c->routing, c->policy);
}

/* --topo-grid's one parser (SPANK plugin and controller). */
/* nne on dfly(2,4,2,9) (groups of 4 routers x 2 nodes), worked by hand
 * from paper 004: grid 4x4x2 (m = 1/6 per axis) on 32 nodes.  Under min
 * (cartesian/direct, random/direct) gamma (1,2,2) and (2,1,2) have the
 * smallest Eq. 16 demand, 2 * 2/6 = 2/3 (injection-bound: 5/(2/3) > 5);
 * the lexicographic first, (1,2,2), lambda (4,2,1), takes 8 groups (the
 * tightest fits: all equal, ids 0-7) of 4 nodes, one per router: nodes
 * 8g, 8g+2, 8g+4, 8g+6.  Rank r = x0 + 4 (x1 + 4 x2) goes to group
 * x0 + 4 (x1 / 2), slot (x1 % 2) + 2 (x2 % 2). */
Test(policy, nne_grid_plan)
{
	struct fx f;
	struct policy_result res, ref;
	struct policy_request q = { .job_id = 5, .nodes = 32, .ngrid = 3 };
	uint32_t want[32], k = 0, refnodes[64];
	struct policy *dfg;
	struct err e = { 0 };

	q.grid[0] = 4;
	q.grid[1] = 4;
	q.grid[2] = 2;
	for (uint32_t g = 0; g < 8; g++)
		for (uint32_t j = 0; j < 4; j++)
			want[k++] = 8 * g + 2 * j;
	fx_open(&f, DF, "min", "nne");
	cr_assert_eq(ask_req(&f, &q, &res), POLICY_PLACED, "%s", res.reason);
	cr_expect(res.isolated);
	cr_assert_eq(res.n, 32);
	for (uint32_t i = 0; i < 32; i++)
		cr_expect_eq(res.nodes[i], want[i], "node %u: %u", i,
			     res.nodes[i]);
	cr_assert_eq(res.nranks, 32);
	cr_expect_eq(fx_ranks[0], 0);
	cr_expect_eq(fx_ranks[1], 8);
	cr_expect_eq(fx_ranks[4], 2);
	cr_expect_eq(fx_ranks[8], 32);
	cr_expect_eq(fx_ranks[16], 4);
	/* the same grid from a whatif pattern */
	q.ngrid = 0;
	q.pattern = "stencil:dims=4x4x2";
	cr_assert_eq(ask_req(&f, &q, &res), POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(fx_ranks[8], 32);
	/* attempt 1: the second plan, (2,1,2): rank 1 stays in box 0 */
	q.attempt = 1;
	cr_assert_eq(ask_req(&f, &q, &res), POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(fx_ranks[1], 2, "rank 1 on %u", fx_ranks[1]);
	q.attempt = 0;
	/* 25 tasks on 24 nodes: no whole number per node */
	q.pattern = "stencil:dims=5x5";
	q.nodes = 24;
	cr_expect_eq(ask_req(&f, &q, &res), POLICY_NEVER);
	cr_expect(strstr(res.reason, "not a whole number"), "%s", res.reason);
	/* a prime grid of 67: 67 groups of one node, the machine has 9 */
	q.pattern = "stencil:dims=67";
	q.nodes = 67;
	cr_expect_eq(ask_req(&f, &q, &res), POLICY_NEVER);
	cr_expect(strstr(res.reason, "can never run isolated"), "%s",
		  res.reason);
	/* a grid that fits a group is dragonfly-groups' */
	q.pattern = "stencil:dims=2x3";
	q.nodes = 6;
	own(&f, 9, 0, 1);
	cr_assert_eq(ask_req(&f, &q, &res), POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.nranks, 0);
	dfg = policy_create("dragonfly-groups", f.t, f.r, &e);
	cr_assert(dfg, "%s", e.msg);
	{
		struct policy_view v = { .owner = f.owner };

		memset(&ref, 0, sizeof(ref));
		ref.nodes = refnodes;
		cr_assert_eq(policy_place(dfg, &v, &q, &ref), POLICY_PLACED);
	}
	cr_assert_eq(ref.n, res.n);
	for (uint32_t i = 0; i < res.n; i++)
		cr_expect_eq(res.nodes[i], ref.nodes[i]);
	policy_destroy(dfg);
	fx_close(&f);

	/* ugal: cartesian/indirect (1,2,2), Eq. 17 2 * 2 / 7 = 4/7 < 2/3,
	 * equally injection-bound: the smaller demand wins, same layout */
	fx_open(&f, DF, "ugal", "nne");
	q = (struct policy_request){ .job_id = 5, .nodes = 32, .ngrid = 3 };
	q.grid[0] = 4;
	q.grid[1] = 4;
	q.grid[2] = 2;
	cr_assert_eq(ask_req(&f, &q, &res), POLICY_PLACED, "%s", res.reason);
	cr_expect(res.isolated);
	cr_expect_eq(fx_ranks[8], 32);
	/* a two-router job elsewhere: Valiant detours would cross it */
	own(&f, 9, 68, 68);
	own(&f, 9, 70, 70);
	cr_expect_eq(ask_req(&f, &q, &res), POLICY_WAIT);
	cr_expect(strstr(res.reason, "no other multi-router job"), "%s",
		  res.reason);
	fx_close(&f);
	/* large=shared: placed at once, not isolated, and says why */
	fx_open(&f, DF, "ugal", "nne:large=shared");
	own(&f, 9, 68, 68);
	own(&f, 9, 70, 70);
	cr_assert_eq(ask_req(&f, &q, &res), POLICY_PLACED, "%s", res.reason);
	cr_expect_not(res.isolated);
	cr_expect(strstr(res.reason, "spans 8 groups"), "%s", res.reason);
	fx_close(&f);
}

Test(policy, grid_parse)
{
	static const struct {
		const char *s;
		uint32_t n, g0, g1, g2;
		const char *why; /* NULL: accepted */
	} cases[] = {
		{ "8", 1, 8, 0, 0, NULL },
		{ "4x2", 2, 4, 2, 0, NULL },
		{ "16x16x8", 3, 16, 16, 8, NULL },
		{ "1000000x1", 2, 1000000, 1, 0, NULL },
		{ "", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "2xx3", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "0x4", 0, 0, 0, 0, "dimensions are 1 to 1000000" },
		{ "1000001", 0, 0, 0, 0, "dimensions are 1 to 1000000" },
		{ "99999999999999999999", 0, 0, 0, 0,
		  "dimensions are 1 to 1000000" },
		{ "2x2x2x2", 0, 0, 0, 0, "expected 1 to 3 dimensions AxBxC" },
		{ "4x", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "x4", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "-4", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "+4", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ " 4", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "4 ", 0, 0, 0, 0, "expected AxBxC with positive integers" },
		{ "4X4", 0, 0, 0, 0, "expected AxBxC with positive integers" },
	};
	uint32_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct policy_request req = { .ngrid = 9 };
		struct err err = { 0 };
		int rc = policy_grid_parse(cases[c].s, &req, &err);

		if (!cases[c].why) {
			cr_expect_eq(rc, 0, "%s: %s", cases[c].s, err.msg);
			cr_expect_eq(req.ngrid, cases[c].n, "%s", cases[c].s);
			cr_expect_eq(req.grid[0], cases[c].g0, "%s",
				     cases[c].s);
			if (cases[c].n > 1)
				cr_expect_eq(req.grid[1], cases[c].g1);
			if (cases[c].n > 2)
				cr_expect_eq(req.grid[2], cases[c].g2);
		} else {
			cr_expect_eq(rc, -1, "%s accepted", cases[c].s);
			cr_expect_eq(req.ngrid, 0u, "%s", cases[c].s);
			cr_expect(strstr(err.msg, cases[c].why), "%s: %s",
				  cases[c].s, err.msg);
		}
	}
}

/* ---- view versions (policy_view.gen) and policy_place_again ---- */

/* A random stream of starts and ends on a dragonfly: every question is
 * asked three ways, of a freshly created policy (a fresh scan), with the
 * stream's gen
 * (bumped at every change, asked twice: the second answer comes from the
 * cached scan; half the time with the change since the gen asked before
 * as a hint, the nodes that changed) and through policy_place_again once
 * the job has been
 * answered PLACED or WAIT; all answers (status, nodes, isolated, reason)
 * agree.  dragonfly-groups, dragonfly-balanced, mesh-blocks and
 * fattree-pods, usable NULL and a usable array alternating on one gen as
 * a simulator's backfill does. */
static void same_answers(const char *topo, const char *spec,
			 const char *routing)
{
	struct fx f;
	struct rng g;
	uint64_t gen = policy_gen_next(), asked = 0;
	uint32_t next = 1, placed = 0, waited = 0, nchg = 0, *chg;
	uint8_t *usable, *inchg;

	fx_open(&f, topo, routing, spec);
	usable = malloc(f.n);
	chg = malloc(f.n * sizeof(*chg));
	inchg = calloc(f.n, 1);
	cr_assert(usable && chg && inchg);
	rng_seed(&g, 7);
	for (int step = 0; step < 400; step++) {
		uint32_t nodes = 1 + (uint32_t)rng_below(&g, 24);
		uint32_t a[4096], b[4096], c[4096];
		struct policy_result r0 = { .nodes = a }, r1 = { .nodes = b },
				     r2 = { .nodes = c };
		struct policy_request q = { .job_id = next, .nodes = nodes };
		bool with_usable = step % 2;
		struct policy_view v0 = { .owner = f.owner,
					  .usable = with_usable ? usable :
								  NULL };
		struct policy_view v1 = v0;
		enum policy_status s0, s1, s2;

		for (uint32_t i = 0; i < f.n; i++)
			usable[i] = (i % 11) != 3;
		struct err e = { 0 };
		struct policy *fresh = policy_create(spec, f.t, f.r, &e);

		cr_assert(fresh, "%s", e.msg);
		v1.gen = gen;
		/* every other step the change since the last gen asked as
		 * a hint (the nodes of the jobs that started or ended) */
		if (asked && asked != gen && step % 4 < 2) {
			v1.base_gen = asked;
			v1.changed = chg;
			v1.nchanged = nchg;
		}
		asked = gen;
		for (uint32_t i = 0; i < nchg; i++)
			inchg[chg[i]] = 0;
		nchg = 0;
		s0 = policy_place(fresh, &v0, &q, &r0);
		policy_destroy(fresh);
		s1 = policy_place(f.p, &v1, &q, &r1);
		s1 = policy_place(f.p, &v1, &q, &r1); /* from the cache */
		cr_assert_eq(s0, s1, "%s step %d", spec, step);
		cr_assert_eq(r0.n, r1.n);
		cr_assert_eq(r0.isolated, r1.isolated);
		cr_assert_str_eq(r0.reason, r1.reason);
		cr_assert_arr_eq(r0.nodes, r1.nodes, r0.n * sizeof(uint32_t));
		if (s0 != POLICY_NEVER) {
			s2 = policy_place_again(f.p, &v1, &q, &r2);
			cr_assert_eq(s0, s2, "%s step %d", spec, step);
			cr_assert_eq(r0.n, r2.n);
			cr_assert_eq(r0.isolated, r2.isolated);
			cr_assert_str_eq(r0.reason, r2.reason);
			cr_assert_arr_eq(r0.nodes, r2.nodes,
					 r0.n * sizeof(uint32_t));
		}
		if (s0 == POLICY_PLACED && rng_below(&g, 3)) {
			for (uint32_t i = 0; i < r0.n; i++) {
				f.owner[r0.nodes[i]] = next;
				if (!inchg[r0.nodes[i]]++)
					chg[nchg++] = r0.nodes[i];
			}
			next++;
			placed++;
			gen = policy_gen_next();
		} else {
			waited += s0 == POLICY_WAIT;
		}
		if (rng_below(&g, 3) == 0 && next > 1) {
			uint32_t end = 1 + (uint32_t)rng_below(&g, next - 1);

			for (uint32_t i = 0; i < f.n; i++)
				if (f.owner[i] == end) {
					f.owner[i] = POLICY_FREE;
					if (!inchg[i]++)
						chg[nchg++] = i;
				}
			gen = policy_gen_next();
		}
	}
	free(chg);
	free(inchg);
	/* the stream exercised both answers */
	cr_assert_gt(placed, 20, "%s: %u placed", spec, placed);
	cr_assert_gt(waited, 20, "%s: %u waited", spec, waited);
	free(usable);
	fx_close(&f);
}

Test(policy, view_gen_gives_the_same_answers)
{
	const char *df = "dragonfly:p=2,a=4,h=2,g=9";

	same_answers(df, "dragonfly-balanced", "ugal");
	same_answers(df, "dragonfly-groups", "ugal");
	same_answers(df, "dragonfly-groups", "min");
	/* mesh-blocks keeps the last view's state (by gen and usable) */
	same_answers("torus:dims=4x4x4,p=2", "mesh-blocks", "dor");
	same_answers("expressmesh:dims=6x6x2,p=2", "mesh-blocks", "dor");
	same_answers("torus:dims=4x4x4,p=2",
		     "mesh-blocks:mode=building-block,block=2x2x2", "dor");
	/* fattree-pods' rule=links keeps the last views' counts (issue
	 * 47: 200,000 jobs of HPC2N counted the machine at every ask) */
	same_answers("fattree:k=4,n=3", "fattree-pods", "ecmp");
	same_answers("fattree:k=4,n=4", "fattree-pods", "ecmp");
	same_answers("fattree:k=6,n=3", "fattree-pods", "dmodk");
}

/* ---- the placement record (plugin writes, stopo report reads) ---- */

Test(policy, placement_record_round_trip)
{
	char buf[256], why[160], line[400];

	policy_placement_format(POLICY_PLACEMENT_ISOLATED, "x", buf,
				sizeof(buf));
	cr_assert_str_eq(buf, " placement=isolated");
	policy_placement_format(POLICY_PLACEMENT_OBLIVIOUS, NULL, buf,
				sizeof(buf));
	cr_assert_str_eq(buf, " placement=oblivious");
	policy_placement_format(POLICY_PLACEMENT_UNKNOWN, NULL, buf,
				sizeof(buf));
	cr_assert_str_eq(buf, "");
	/* double quotes in the why become single: the record stays one
	 * quoted field */
	policy_placement_format(POLICY_PLACEMENT_SHARED, "job 6 \"spans\"", buf,
				sizeof(buf));
	cr_assert_str_eq(buf, " placement=shared why=\"job 6 'spans'\"");
	/* read back from a whole topo_jobs.log / AdminComment line */
	snprintf(line, sizeof(line),
		 "topo: pattern=alltoall links=16 shared=3 tls=0.2%s", buf);
	cr_assert_eq(policy_placement_parse(line, why, sizeof(why)),
		     POLICY_PLACEMENT_SHARED);
	cr_assert_str_eq(why, "job 6 'spans'");
	cr_assert_eq(policy_placement_parse("topo: links=0 placement=isolated",
					    why, sizeof(why)),
		     POLICY_PLACEMENT_ISOLATED);
	cr_assert_str_eq(why, "");
	/* unknown names, prefixes, no record */
	cr_assert_eq(policy_placement_parse(" placement=isolatedx", why,
					    sizeof(why)),
		     POLICY_PLACEMENT_UNKNOWN);
	cr_assert_eq(policy_placement_parse("placement=shared", why,
					    sizeof(why)),
		     POLICY_PLACEMENT_UNKNOWN);
	cr_assert_eq(policy_placement_parse(NULL, why, sizeof(why)),
		     POLICY_PLACEMENT_UNKNOWN);
	/* cut to fit, still closed */
	policy_placement_format(POLICY_PLACEMENT_SHARED, "abcdefghij", buf, 32);
	cr_assert_str_eq(buf, " placement=shared why=\"abcdefg\"");
}

/* ---- policy_sort_u32 ---- */

static int cmp_u32_ref(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Short lists (insertion sort) and long ones (radix sort by bytes, on
 * the stack up to 1,024 values, else in a buffer) come out as qsort sorts
 * them: values of one to four bytes (one to four passes), duplicates,
 * and lists already sorted. */
Test(policy, sort_u32_matches_qsort)
{
	static const uint32_t sizes[] = { 0,   1,    2,	   31,	 32,   33,
					  100, 1024, 1025, 4096, 70001 };
	static const uint64_t range[] = { 50,	 256,	300,
					  65536, 70000, (uint64_t)1 << 32 };
	struct rng g;

	rng_seed(&g, 11);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		for (size_t r = 0; r < sizeof(range) / sizeof(range[0]); r++) {
			uint32_t n = sizes[k];
			uint32_t *a = malloc((n + 1) * sizeof(*a));
			uint32_t *b = malloc((n + 1) * sizeof(*b));

			cr_assert(a && b);
			for (uint32_t i = 0; i < n; i++)
				a[i] = i % 7 == 0 ?
					       (uint32_t)rng_below(&g, 50) :
					       (uint32_t)(rng_next(&g) %
							  range[r]);
			memcpy(b, a, n * sizeof(*a));
			policy_sort_u32(a, n);
			qsort(b, n, sizeof(*b), cmp_u32_ref);
			cr_assert_arr_eq(a, b, n * sizeof(*a),
					 "n = %u, values < %llu", n,
					 (unsigned long long)range[r]);
			policy_sort_u32(a, n); /* sorted stays */
			cr_assert_arr_eq(a, b, n * sizeof(*a), "n = %u again",
					 n);
			free(a);
			free(b);
		}
}
