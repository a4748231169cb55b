/* test_policy.c - allocation policies: hand-worked placements and reasons,
 * the isolation guarantee checked against routing_linkset on random
 * arrival/departure sequences, determinism, bad specs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "policies/policy_impl.h"
#include "topo/rng.h"
#include "topo/routing.h"
#include "topo/topo.h"

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

static void fx_open(struct fx *f, const char *topo, const char *routing,
		    const char *policy)
{
	struct err e = { "" };

	memset(f, 0, sizeof(*f));
	f->t = topo_create(topo, &e);
	cr_assert(f->t, "%s: %s", topo, e.msg);
	cr_assert_eq(topo_check(f->t, &e), 0, "%s", e.msg);
	f->r = routing_create(f->t, routing ? routing : routing_default(f->t),
			      &e);
	cr_assert(f->r, "%s: %s", routing, e.msg);
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

static enum policy_status ask(struct fx *f, uint32_t job, uint32_t nodes,
			      uint32_t attempt, struct policy_result *res)
{
	struct policy_view v = { f->owner, f->usable };
	struct policy_request q = { .job_id = job, .nodes = nodes,
				    .attempt = attempt };
	enum policy_status st;

	memset(res, 0, sizeof(*res));
	res->nodes = f->buf;
	st = policy_place(f->p, &v, &q, res);
	if (st == POLICY_PLACED) {
		cr_assert_eq(res->n, nodes);
		for (uint32_t i = 0; i < res->n; i++) {
			cr_assert_lt(res->nodes[i], f->n);
			cr_assert_eq(f->owner[res->nodes[i]], POLICY_FREE);
			if (i)
				cr_assert_lt(res->nodes[i - 1],
					     res->nodes[i]);
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
	cr_assert_geq(i, 4);
	cr_assert_null(policy_find("nosuch"));
}

struct bad {
	char topo[64];
	char spec[64];
	char msg[64];
};

static struct bad bads[] = {
	{ "fattree:k=4,n=3", "nosuch", "unknown policy 'nosuch'" },
	{ "fattree:k=4,n=3", "random:seed", "is not key=value" },
	{ "fattree:k=4,n=3", "random:colour=red", "unknown option 'colour'" },
	{ "fattree:k=4,n=3", "random:seed=x", "expected an integer" },
	{ "fattree:k=4,n=3", "random:seed=1,seed=2", "given twice" },
	{ "fattree:k=4,n=3", "clustered:scatter=101", "expected an integer" },
	{ "fattree:k=4,n=3", "linear:x=1", "unknown option 'x' (known: none)" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "fattree-pods", "not a fat-tree" },
	{ "fattree:k=4,n=3", "", "bad spec" },
};

ParameterizedTestParameters(policy, bad_specs)
{
	return cr_make_param_array(struct bad, bads,
				   sizeof(bads) / sizeof(bads[0]));
}

ParameterizedTest(struct bad *b, policy, bad_specs)
{
	struct err e = { "" };
	struct topo *t = topo_create(b->topo, &e);
	struct routing *r;

	cr_assert(t, "%s", e.msg);
	r = routing_create(t, routing_default(t), &e);
	cr_assert(r, "%s", e.msg);
	cr_assert_null(policy_create(b->spec, t, r, &e), "%s", b->spec);
	cr_assert(strstr(e.msg, b->msg), "'%s' -> '%s'", b->spec, e.msg);
	routing_destroy(r);
	topo_destroy(t);
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

/* ---- fattree-pods: k=4, n=3: 16 leaves of 4 nodes, 4 pods of 16 ---- */

struct ftcase {
	char busy[64];     /* "lo-hi,lo-hi" owned by job 100+i */
	char unusable[32]; /* ranges */
	uint32_t nodes, attempt;
	int status;
	char want[160];    /* ranges or reason */
};

static struct ftcase ftcases[] = {
	/* rule i: one leaf, best fit */
	{ "", "", 3, 0, POLICY_PLACED, "0-2" },
	{ "0-2", "", 1, 0, POLICY_PLACED, "3" },
	{ "0-2,4-5", "", 2, 0, POLICY_PLACED, "6-7" },
	{ "0-2,4-5", "", 2, 1, POLICY_PLACED, "8-9" },
	/* every leaf has 1 busy node: 4-node jobs wait for a leaf */
	{ "0,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60", "", 4, 0,
	  POLICY_WAIT, "waiting for a leaf switch with 4 free nodes (most "
	  "free on a leaf: 3)" },
	/* rule ii: whole leaves in one pod; best-fit pod */
	{ "", "", 6, 0, POLICY_PLACED, "0-5" },
	{ "0-2", "", 6, 0, POLICY_PLACED, "4-9" },
	{ "0-2", "", 6, 1, POLICY_PLACED, "8-13" },
	{ "0-2", "", 6, 2, POLICY_PLACED, "16-21" },
	{ "0-2,20", "", 8, 0, POLICY_PLACED, "4-11" },
	{ "0-2,20,24", "", 12, 0, POLICY_PLACED, "4-15" },
	{ "0-2,20,24", "", 13, 0, POLICY_PLACED, "32-44" },
	/* rule iv: whole pods */
	{ "", "", 20, 0, POLICY_PLACED, "0-19" },
	{ "0", "", 20, 0, POLICY_PLACED, "16-35" },
	{ "0", "", 20, 1, POLICY_PLACED, "32-51" },
	{ "0", "", 20, 2, POLICY_NEVER, "no candidate #2 (2 candidates)" },
	{ "0,16", "", 20, 0, POLICY_PLACED, "32-51" },
	{ "0,16,32", "", 20, 0, POLICY_WAIT, "waiting for 2 whole pods (1 "
	  "whole)" },
	/* a pod whose leaves each have a busy node */
	{ "0,4,8,20,24,36,40,44,48,52,56,60", "", 9, 0, POLICY_WAIT,
	  "waiting for 3 whole leaf switches in one pod (at most 2 in "
	  "one)" },
	/* never: not enough usable whole pods even when empty */
	{ "", "48-63,40", 40, 0, POLICY_NEVER, "can never run isolated: "
	  "needs 3 whole pods (2 whole)" },
	{ "", "", 64, 0, POLICY_PLACED, "0-63" },
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
			own(f, job++, (uint32_t)lo, (uint32_t)hi);
		s = *end ? end + 1 : end;
	}
}

ParameterizedTestParameters(policy, fattree_pods)
{
	return cr_make_param_array(struct ftcase, ftcases,
				   sizeof(ftcases) / sizeof(ftcases[0]));
}

ParameterizedTest(struct ftcase *c, policy, fattree_pods)
{
	struct fx f;
	struct policy_result res;
	int st;

	fx_open(&f, "fattree:k=4,n=3", "ecmp", "fattree-pods");
	parse_into(&f, c->busy, 0);
	parse_into(&f, c->unusable, 1);
	st = ask(&f, 1, c->nodes, c->attempt, &res);
	cr_assert_eq(st, c->status, "%u nodes: got %d '%s'", c->nodes, st,
		     f.got);
	cr_assert_str_eq(f.got, c->want);
	if (st == POLICY_PLACED)
		cr_assert(res.isolated);
	fx_close(&f);
}
