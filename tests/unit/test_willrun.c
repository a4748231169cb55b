/* test_willrun.c - the will-run rule (policies/willrun.h), tested once for
 * the plugin and stopo whatif: running jobs released in end-time order,
 * equal ends together, the first end time after which the policy places
 * the job; WAIT and NEVER with the policy's reason; the released counts
 * and the start.  Machine: fattree:k=4,n=2 (16 nodes).  Expectations are
 * worked by hand in the comments of each row, under two policies:
 *   linear  the lowest free usable ids (places iff enough are free);
 *   odd     a test-only policy (its ops table below): the lowest free
 *           usable nodes when the number F of free usable nodes is odd,
 *           NEVER when every node is free (F = 16), otherwise WAIT.
 *           Placement under odd is not monotone in what was released. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "policies/policy_impl.h"
#include "policies/willrun.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "topo/util/rng.h"
#include "tests/unit/fixtures.h"

#define N 16

static enum policy_status odd_place(const struct policy *p,
				    const struct policy_view *v,
				    const struct policy_request *req,
				    struct policy_result *res)
{
	uint32_t n = topo_num_nodes(p->t), f = 0;

	for (uint32_t i = 0; i < n; i++)
		f += policy_node_ok(v, i);
	if (f == n)
		return policy_say(res, POLICY_NEVER,
				  "even on the empty machine");
	if (f % 2 == 0 || f < req->nodes)
		return policy_say(res, POLICY_WAIT,
				  "waiting for an odd number of free nodes "
				  "(%u free)",
				  f);
	for (uint32_t i = 0; i < n && res->n < req->nodes; i++)
		if (policy_node_ok(v, i))
			res->nodes[res->n++] = i;
	return POLICY_PLACED;
}

static const struct policy_ops odd_ops = {
	.name = "odd",
	.place = odd_place,
};

struct wr_case {
	const char *policy;   /* "linear" or "odd" */
	const char *owner;    /* a char per node: '.' free, 'A' job 1 ... */
	const char *unusable; /* NULL, or 'x' per node not usable */
	const char *ends;     /* the running jobs: "A10 B20" */
	int64_t now;
	uint32_t nodes; /* requested */
	enum policy_status status;
	uint32_t groups, jobs;
	int64_t start;
	const char *want;    /* PLACED: nodes "0-3,8"; else the reason */
	const char *why_now; /* why not now ("" when it can start) */
};

static const struct wr_case cases[] = {
	/* End-time order: B and D (t=10) end first and together: 4-7 and
	 * 12-15 free, linear takes 4-7 at t=10. */
	{ "linear", "AAAABBBBCCCCDDDD", NULL, "A30 B10 C20 D10", 0, 4,
	  POLICY_PLACED, 1, 2, 10, "4-7", "waiting for 4 free nodes (0 free)" },
	/* 12 nodes: 8 free after t=10, 12 after C at t=20: 4-15. */
	{ "linear", "AAAABBBBCCCCDDDD", NULL, "A30 B10 C20 D10", 0, 12,
	  POLICY_PLACED, 2, 3, 20, "4-15",
	  "waiting for 12 free nodes (0 free)" },
	/* The whole machine: after A at t=30. */
	{ "linear", "AAAABBBBCCCCDDDD", NULL, "A30 B10 C20 D10", 0, 16,
	  POLICY_PLACED, 3, 4, 30, "0-15",
	  "waiting for 16 free nodes (0 free)" },
	/* Placed now: 14-15 are free; start = now. */
	{ "linear", "AAAABBBBCCCCDD..", NULL, "A30 B10 C20 D10", 5, 2,
	  POLICY_PLACED, 0, 0, 5, "14-15", "" },
	/* NEVER now: nothing is released. */
	{ "linear", "AAAABBBBCCCCDDDD", NULL, "A30 B10 C20 D10", 0, 17,
	  POLICY_NEVER, 0, 0, 0, "needs 17 nodes, the machine has 16 usable",
	  "needs 17 nodes, the machine has 16 usable" },
	/* A's end (3) is before now (5): it counts as now. */
	{ "linear", "AAAABBBB........", NULL, "A3 B40", 5, 12, POLICY_PLACED, 1,
	  1, 5, "0-3,8-15", "waiting for 12 free nodes (8 free)" },
	/* E is not running (never released): 12 free at most, WAIT with
	 * the reason of the machine once A and B are gone. */
	{ "linear", "AAAABBBBEEEE....", NULL, "A10 B20", 0, 16, POLICY_WAIT, 2,
	  2, 20, "waiting for 16 free nodes (12 free)",
	  "waiting for 16 free nodes (4 free)" },
	/* F holds no node: counted as released at t=15, frees nothing. */
	{ "linear", "AAAABBBB........", NULL, "A10 F15 B20", 0, 16,
	  POLICY_PLACED, 3, 3, 20, "0-15",
	  "waiting for 16 free nodes (8 free)" },
	/* 0-3 are not usable: A's end frees no usable node, B's does. */
	{ "linear", "AAAABBBBCCCC....", "xxxx............", "A10 B20 C30", 0, 8,
	  POLICY_PLACED, 2, 2, 20, "4-7,12-15",
	  "waiting for 8 free nodes (4 free)" },
	/* Not monotone: F = 0, 2 (A gone), 3 (B gone: placed on node 0),
	 * 6 (C), 16 (D).  The first end time is B's (t=20); releasing more
	 * would never place it. */
	{ "odd", "AABCCCDDDDDDDDDD", NULL, "A10 B20 C30 D40", 0, 1,
	  POLICY_PLACED, 2, 2, 20, "0",
	  "waiting for an odd number of free nodes (0 free)" },
	/* The same jobs with B and C ending together: F = 0, 2, 6 (B and C
	 * at once), 16: B alone is never released, and on the empty machine
	 * the policy says NEVER. */
	{ "odd", "AABCCCDDDDDDDDDD", NULL, "A10 B20 C20 D40", 0, 1,
	  POLICY_NEVER, 3, 4, 40, "even on the empty machine",
	  "waiting for an odd number of free nodes (0 free)" },
	/* E (14-15) never ends: F = 2, 6, 14: WAIT after every end. */
	{ "odd", "AABCCCDDDDDDDDEE", NULL, "A10 B20 C20 D40", 0, 1, POLICY_WAIT,
	  3, 4, 40, "waiting for an odd number of free nodes (14 free)",
	  "waiting for an odd number of free nodes (0 free)" },
	/* 3 nodes: F = 1 (odd, too few), 3 after B: 0-2 at t=20. */
	{ "odd", "ABBCCCDDDDDDDDDD", NULL, "A10 B20 C30 D40", 0, 3,
	  POLICY_PLACED, 2, 2, 20, "0-2",
	  "waiting for an odd number of free nodes (0 free)" },
};

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

/* "A10 B20" into RUN; returns the count. */
static uint32_t parse_ends(const char *s, struct policy_running *run)
{
	uint32_t n = 0;

	while (*s) {
		char *end;

		while (*s == ' ')
			s++;
		if (!*s)
			break;
		run[n].job_id = (uint32_t)(*s - 'A' + 1);
		run[n].end = strtoll(s + 1, &end, 10);
		s = end;
		n++;
	}
	return n;
}

Test(willrun, rule_by_hand)
{
	struct fx_net net = fx_net("fattree:k=4,n=2", NULL);
	struct err err = { 0 };
	struct policy *linear = policy_create("linear", net.t, net.r, &err);
	struct policy odd = { .ops = &odd_ops, .t = net.t, .r = net.r };

	cr_assert(linear, "%s", err.msg);
	cr_assert_eq(topo_num_nodes(net.t), N);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct wr_case *k = &cases[c];
		const struct policy *p = strcmp(k->policy, "odd") ? linear :
								    &odd;
		uint32_t owner[N], copy[N], nodes[N + 1];
		uint8_t usable[N];
		struct policy_running run[8];
		uint32_t nrun = parse_ends(k->ends, run);
		struct policy_view v = { .owner = owner,
					 .usable = k->unusable ? usable :
								 NULL };
		struct policy_request req = { .job_id = 99, .nodes = k->nodes };
		struct policy_result res = { .nodes = nodes };
		struct policy_will_run wr;
		char got[128];

		for (uint32_t i = 0; i < N; i++) {
			owner[i] = k->owner[i] == '.' ?
					   POLICY_FREE :
					   (uint32_t)(k->owner[i] - 'A' + 1);
			usable[i] = !k->unusable || k->unusable[i] != 'x';
		}
		memcpy(copy, owner, sizeof(copy));
		cr_assert_eq(policy_will_run(p, &v, run, nrun, k->now, &req,
					     &res, &wr, &err),
			     0, "case %zu: %s", c, err.msg);
		cr_assert_eq(wr.status, k->status, "case %zu: status %d (%s)",
			     c, wr.status, res.reason);
		cr_assert_eq(wr.groups, k->groups, "case %zu: %u groups", c,
			     wr.groups);
		cr_assert_eq(wr.jobs, k->jobs, "case %zu: %u jobs", c, wr.jobs);
		cr_assert_eq(wr.start, k->start, "case %zu: start %lld", c,
			     (long long)wr.start);
		if (k->status == POLICY_PLACED) {
			ranges(nodes, res.n, got, sizeof(got));
			cr_assert_str_eq(got, k->want, "case %zu", c);
		} else {
			cr_assert_str_eq(res.reason, k->want, "case %zu", c);
		}
		cr_assert_str_eq(wr.now_reason, k->why_now, "case %zu", c);
		cr_assert_arr_eq(owner, copy, sizeof(copy),
				 "case %zu: owners changed", c);
	}
	policy_destroy(linear);
	fx_net_free(&net);
}

/* The fixture of the "not monotone" row is what it claims: the odd policy
 * places after A and B are released, not after A, B and C. */
Test(willrun, odd_policy_is_not_monotone)
{
	struct fx_net net = fx_net("fattree:k=4,n=2", NULL);
	struct policy odd = { .ops = &odd_ops, .t = net.t, .r = net.r };
	/* A, B gone: 0-2 free; then C gone too: 0-5 free */
	uint32_t two[N] = { 0, 0, 0, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	uint32_t three[N] = { 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	uint32_t nodes[1];
	struct policy_request req = { .job_id = 99, .nodes = 1 };
	struct policy_result res = { .nodes = nodes };
	struct policy_view v = { .owner = two };

	cr_assert_eq(policy_place(&odd, &v, &req, &res), POLICY_PLACED);
	v.owner = three;
	cr_assert_eq(policy_place(&odd, &v, &req, &res), POLICY_WAIT);
	fx_net_free(&net);
}

/* The policy keeps its last sort of the running jobs by end; a list
 * changed in place (same pointer, count and time) is sorted afresh. */
Test(willrun, sort_kept_only_for_the_same_jobs)
{
	struct fx_net net = fx_net("fattree:k=4,n=2", NULL);
	struct err err = { 0 };
	struct policy *p = policy_create("linear", net.t, net.r, &err);
	uint32_t owner[N], nodes[N + 1];
	struct policy_running run[2] = { { 1, 100 }, { 2, 50 } };
	struct policy_view v = { .owner = owner };
	struct policy_request req = { .job_id = 99, .nodes = 4 };
	struct policy_result res = { .nodes = nodes };
	struct policy_will_run wr;
	char got[64];

	cr_assert(p, "%s", err.msg);
	for (uint32_t i = 0; i < N; i++)
		owner[i] = i < 8 ? 1 : 2;
	/* B (8-15) ends first, at 50; asked twice, the second from the
	 * kept sort */
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(policy_will_run(p, &v, run, 2, 0, &req, &res, &wr,
					     &err),
			     0, "%s", err.msg);
		cr_assert_eq(wr.start, 50);
		ranges(nodes, res.n, got, sizeof(got));
		cr_assert_str_eq(got, "8-11");
	}
	/* A now ends first, at 30: same array, count and time */
	run[0].end = 30;
	cr_assert_eq(policy_will_run(p, &v, run, 2, 0, &req, &res, &wr, &err),
		     0, "%s", err.msg);
	cr_assert_eq(wr.start, 30);
	ranges(nodes, res.n, got, sizeof(got));
	cr_assert_str_eq(got, "0-3");
	/* a later NOW clamps both ends to it: released together */
	cr_assert_eq(policy_will_run(p, &v, run, 2, 200, &req, &res, &wr, &err),
		     0, "%s", err.msg);
	cr_assert_eq(wr.start, 200);
	cr_assert_eq(wr.jobs, 2);
	ranges(nodes, res.n, got, sizeof(got));
	cr_assert_str_eq(got, "0-3");
	policy_destroy(p);
	fx_net_free(&net);
}

/* A test-only policy whose answer depends on the request's pattern: the
 * lowest free usable nodes without one, the highest with one. */
static enum policy_status pat_place(const struct policy *p,
				    const struct policy_view *v,
				    const struct policy_request *req,
				    struct policy_result *res)
{
	uint32_t n = topo_num_nodes(p->t);

	for (uint32_t k = 0; k < n && res->n < req->nodes; k++) {
		uint32_t i = req->pattern ? n - 1 - k : k;

		if (policy_node_ok(v, i))
			res->nodes[res->n++] = i;
	}
	if (res->n < req->nodes) {
		res->n = 0;
		return policy_say(res, POLICY_WAIT, "waiting");
	}
	return POLICY_PLACED;
}

static const struct policy_ops pat_ops = {
	.name = "pat",
	.anonymous = true,
	.place = pat_place,
};

/* Will-run keeps its last answers for one state (owners, usable mask,
 * running jobs, NOW) and gives them to an equal request; worked by hand
 * on 16 nodes: A (job 1) on 0-7 ends at 50, B (job 2) on 8-11 at 100,
 * 12-15 free.  Every change below is made in place (same arrays), and
 * each must change the answer. */
Test(willrun, answers_kept_only_for_the_same_state_and_request)
{
	struct fx_net net = fx_net("fattree:k=4,n=2", NULL);
	struct err err = { 0 };
	struct policy *p = policy_create("linear", net.t, net.r, &err);
	struct policy pat = { .ops = &pat_ops, .t = net.t, .r = net.r };
	uint32_t owner[N], nodes[N + 1];
	uint8_t usable[N];
	struct policy_running run[2] = { { 1, 50 }, { 2, 100 } };
	struct policy_view v = { .owner = owner };
	struct policy_request req = { .job_id = 99, .nodes = 4 };
	struct policy_result res = { .nodes = nodes };
	struct policy_will_run wr;
	char got[64];

#define ASK(pol, want_start, want_nodes)                                     \
	do {                                                                 \
		cr_assert_eq(policy_will_run(pol, &v, run, 2, 0, &req, &res, \
					     &wr, &err),                     \
			     0, "%s", err.msg);                              \
		cr_assert_eq(wr.status, POLICY_PLACED, "%s", res.reason);    \
		cr_assert_eq(wr.start, want_start);                          \
		ranges(nodes, res.n, got, sizeof(got));                      \
		cr_assert_str_eq(got, want_nodes);                           \
	} while (0)
	cr_assert(p, "%s", err.msg);
	pat.wrc = willrun_cache_new();
	cr_assert(pat.wrc);
	for (uint32_t i = 0; i < N; i++) {
		owner[i] = i < 8 ? 1 : i < 12 ? 2 : POLICY_FREE;
		usable[i] = 1;
	}
	ASK(p, 0, "12-15");
	req.job_id = 100; /* another job, same request: kept */
	ASK(p, 0, "12-15");
	/* node 12 taken by job 3, never released: 13-15 free, then A */
	owner[12] = 3;
	ASK(p, 50, "0-3");
	owner[12] = POLICY_FREE;
	ASK(p, 0, "12-15");
	/* node 13 not usable: 3 usable free, then A's end */
	v.usable = usable;
	usable[13] = 0;
	ASK(p, 50, "0-3");
	v.usable = NULL; /* every node usable again */
	ASK(p, 0, "12-15");
	v.usable = usable;
	usable[13] = 1;
	usable[0] = 0;
	ASK(p, 0, "12-15");
	/* attempt 1 skips the first free node: none is left over */
	req.attempt = 1;
	cr_assert_eq(policy_will_run(p, &v, run, 2, 0, &req, &res, &wr, &err),
		     0);
	cr_assert_eq(wr.status, POLICY_NEVER);
	cr_assert_str_eq(res.reason, "no candidate #1 (1 candidates)");
	req.attempt = 0;
	ASK(p, 0, "12-15");
	/* 3 nodes: another count */
	req.nodes = 3;
	ASK(p, 0, "12-14");
	/* the pattern changes pat's answer */
	v.usable = NULL;
	req.nodes = 2;
	ASK(&pat, 0, "12-13");
	req.pattern = "perm";
	ASK(&pat, 0, "15,14");
	req.pattern = "ring";
	ASK(&pat, 0, "15,14");
	req.pattern = NULL;
	ASK(&pat, 0, "12-13");
#undef ASK
	willrun_cache_free(pat.wrc);
	policy_destroy(p);
	fx_net_free(&net);
}

Test(willrun, bad_calls)
{
	struct fx_net net = fx_net("fattree:k=4,n=2", NULL);
	struct err err = { 0 };
	struct policy *p = policy_create("linear", net.t, net.r, &err);
	uint32_t owner[N] = { 0 }, nodes[N];
	struct policy_view v = { .owner = owner };
	struct policy_request req = { .job_id = 99, .nodes = 1 };
	struct policy_result res = { .nodes = nodes };
	struct policy_will_run wr;

	cr_assert(p, "%s", err.msg);
	cr_assert_eq(policy_will_run(p, NULL, NULL, 0, 0, &req, &res, &wr,
				     &err),
		     -1);
	cr_assert(strstr(err.msg, "required"), "%s", err.msg);
	err.msg[0] = '\0';
	cr_assert_eq(policy_will_run(p, &v, NULL, 3, 0, &req, &res, &wr, &err),
		     -1);
	cr_assert(strstr(err.msg, "required"), "%s", err.msg);
	/* no running job: the answer now */
	cr_assert_eq(policy_will_run(p, &v, NULL, 0, 7, &req, &res, &wr, NULL),
		     0);
	cr_assert_eq(wr.status, POLICY_PLACED);
	cr_assert_eq(wr.start, 7);
	cr_assert_eq(wr.groups, 0);
	policy_destroy(p);
	fx_net_free(&net);
}

/* ---- incremental state against fresh answers ---- */

/* The will-run rule of willrun.h written the plain way, as the reference
 * for the search's incremental policy state: every question goes to a
 * freshly created policy (no state kept between calls), and the owners
 * are released one end time at a time by scanning every node. */
struct ref_answer {
	enum policy_status status;
	int64_t start;
	uint32_t n, nodes[512];
	bool isolated;
	char reason[192];
};

static enum policy_status ref_ask(const char *spec, const struct fx_net *net,
				  const struct policy_view *v,
				  const struct policy_request *req,
				  struct ref_answer *a)
{
	struct err err = { 0 };
	/* the searches as they were before their fast paths */
	const struct policy_opts ref = { .reference_search = true };
	struct policy *p = policy_create_opt(spec, net->t, net->r, &ref, &err);
	struct policy_result res = { .nodes = a->nodes };
	enum policy_status st;

	cr_assert(p, "%s: %s", spec, err.msg);
	st = policy_place(p, v, req, &res);
	a->n = res.n;
	a->isolated = res.isolated;
	snprintf(a->reason, sizeof(a->reason), "%s", res.reason);
	policy_destroy(p);
	return st;
}

static int cmp_end(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

static void ref_will_run(const char *spec, const struct fx_net *net,
			 const uint32_t *owner, const uint8_t *usable,
			 uint32_t nn, const struct policy_running *run,
			 uint32_t nrun, int64_t now,
			 const struct policy_request *req, struct ref_answer *a)
{
	uint32_t *sim = malloc(nn * sizeof(*sim));
	int64_t *ends = malloc((nrun + 1) * sizeof(*ends));
	struct policy_view v = { .owner = sim, .usable = usable };
	enum policy_status st;
	bool stale = false;

	cr_assert(sim && ends);
	memcpy(sim, owner, nn * sizeof(*sim));
	a->start = now;
	st = ref_ask(spec, net, &v, req, a);
	for (uint32_t k = 0; k < nrun; k++)
		ends[k] = run[k].end < now ? now : run[k].end;
	qsort(ends, nrun, sizeof(*ends), cmp_end);
	for (uint32_t k = 0; st == POLICY_WAIT && k < nrun; k++) {
		uint32_t nfree = 0;

		if (k && ends[k] == ends[k - 1])
			continue;
		for (uint32_t r = 0; r < nrun; r++) {
			int64_t e = run[r].end < now ? now : run[r].end;

			if (e != ends[k])
				continue;
			for (uint32_t i = 0; i < nn; i++)
				if (sim[i] == run[r].job_id && sim[i]) {
					sim[i] = POLICY_FREE;
					stale = true;
				}
		}
		a->start = ends[k];
		for (uint32_t i = 0; i < nn; i++)
			nfree += policy_node_ok(&v, i);
		if (!stale || nfree < req->nodes)
			continue;
		st = ref_ask(spec, net, &v, req, a);
		stale = false;
	}
	if (st == POLICY_WAIT && stale)
		st = ref_ask(spec, net, &v, req, a);
	a->status = st;
	free(sim);
	free(ends);
}

/* Random machine states and backlogs (the replay): one long-lived policy
 * answers every will-run (its scans carried from question to question,
 * incrementally, by the releases' hints and by comparing owners; the
 * monotone policies bisecting over the end times) exactly as fresh
 * policies asked at every end time with their reference searches do
 * (status, start, nodes, isolation, reason).  The states include jobs that shrink and grow
 * between questions and usable masks that change under one pointer. */
static void replay(const char *topo, const char *routing, const char *spec,
		   uint64_t seed)
{
	struct fx_net net = fx_net(topo, routing);
	struct err err = { 0 };
	struct policy *p = policy_create(spec, net.t, net.r, &err);
	uint32_t nn = topo_num_nodes(net.t), next = 1;
	uint32_t *owner = calloc(nn, sizeof(*owner));
	uint8_t *usable = malloc(nn);
	struct policy_running *run = malloc(nn * sizeof(*run));
	int64_t *end = calloc(4 * nn + 2, sizeof(*end));
	uint32_t placed = 0, waited = 0, released = 0;
	struct rng g;

	cr_assert(p && owner && usable && run && end, "%s", err.msg);
	rng_seed(&g, seed);
	for (int step = 0; step < 300; step++) {
		uint32_t nodes = 1 + (uint32_t)rng_below(&g, nn / 2);
		uint32_t got[512], nrun = 0;
		struct policy_request req = { .job_id = next, .nodes = nodes };
		struct policy_result res = { .nodes = got };
		struct policy_will_run wr;
		struct ref_answer want;
		bool with_usable = rng_below(&g, 3) == 0;
		struct policy_view v = { .owner = owner,
					 .usable = with_usable ? usable :
								 NULL };
		int64_t now = step * 10;

		cr_assert_leq(nodes, 512);
		/* nne: half the jobs declare a task grid (one task per node),
		 * planned over whole groups when they span groups */
		if (!strncmp(spec, "nne", 3) && rng_below(&g, 2)) {
			req.ngrid = nodes % 2 ? 1 : 2;
			req.grid[0] = nodes % 2 ? nodes : 2;
			req.grid[1] = nodes / 2;
		}
		for (uint32_t i = 0; i < nn; i++)
			usable[i] = rng_below(&g, 16) != 0;
		/* every job present runs, a few never end (not listed) */
		for (uint32_t i = 0; i < nn; i++) {
			uint32_t id = owner[i];
			bool dup = false;

			if (!id || end[id] < 0)
				continue;
			for (uint32_t r = 0; r < nrun && !dup; r++)
				dup = run[r].job_id == id;
			if (!dup)
				run[nrun++] =
					(struct policy_running){ id, end[id] };
		}
		cr_assert_eq(policy_will_run(p, &v, run, nrun, now, &req, &res,
					     &wr, &err),
			     0, "%s", err.msg);
		ref_will_run(spec, &net, owner, v.usable, nn, run, nrun, now,
			     &req, &want);
		cr_assert_eq(wr.status, want.status, "%s %s step %d", topo,
			     spec, step);
		cr_assert_eq(wr.start, want.start, "%s %s step %d", topo, spec,
			     step);
		cr_assert_eq(res.n, want.n, "%s step %d", spec, step);
		cr_assert_eq(res.isolated, want.isolated, "step %d", step);
		cr_assert_arr_eq(got, want.nodes, res.n * sizeof(uint32_t),
				 "%s step %d", spec, step);
		if (wr.status != POLICY_PLACED)
			cr_assert_str_eq(res.reason, want.reason, "step %d",
					 step);
		/* two more pending jobs on the same state, as a backfill
		 * pass asks them: one like this one, and one of a few
		 * sizes asked at every step (so kept answers of an earlier
		 * state, given again, would differ from the reference) */
		for (int e = 0; e < 2; e++) {
			static const uint32_t few[] = { 1, 3, 8, 20 };
			struct policy_request r2 = req;
			struct ref_answer w2;

			r2.job_id = 100000 + 2 * (uint32_t)step + (uint32_t)e;
			if (e) {
				r2.ngrid = 0;
				r2.nodes = few[rng_below(&g, 4)];
				if (r2.nodes > nn / 2)
					r2.nodes = nn / 2;
			}
			cr_assert_eq(policy_will_run(p, &v, run, nrun, now, &r2,
						     &res, &wr, &err),
				     0, "%s", err.msg);
			ref_will_run(spec, &net, owner, v.usable, nn, run, nrun,
				     now, &r2, &w2);
			cr_assert_eq(wr.status, w2.status, "%s %s step %d/%d",
				     topo, spec, step, e);
			cr_assert_eq(wr.start, w2.start, "%s %s step %d/%d",
				     topo, spec, step, e);
			cr_assert_eq(res.n, w2.n, "%s step %d/%d", spec, step,
				     e);
			cr_assert_eq(res.isolated, w2.isolated, "step %d/%d",
				     step, e);
			cr_assert_arr_eq(got, w2.nodes,
					 res.n * sizeof(uint32_t),
					 "%s step %d/%d", spec, step, e);
			if (wr.status != POLICY_PLACED)
				cr_assert_str_eq(res.reason, w2.reason,
						 "step %d/%d", step, e);
		}
		/* the step's own answer again (kept, or asked afresh) */
		cr_assert_eq(policy_will_run(p, &v, run, nrun, now, &req, &res,
					     &wr, &err),
			     0, "%s", err.msg);
		cr_assert_eq(wr.status, want.status, "%s again step %d", spec,
			     step);
		cr_assert_eq(res.n, want.n, "%s again step %d", spec, step);
		cr_assert_arr_eq(got, want.nodes, res.n * sizeof(uint32_t),
				 "%s again step %d", spec, step);
		released += wr.groups > 0;
		/* start it now when it can, else end a job or two */
		if (wr.status == POLICY_PLACED && wr.groups == 0) {
			for (uint32_t i = 0; i < res.n; i++)
				owner[got[i]] = next;
			end[next] =
				rng_below(&g, 8) ?
					now + 10 + (int64_t)rng_below(&g, 400) :
					-1;
			next++;
			placed++;
		} else {
			waited++;
			for (int k = 0; k < 2 && next > 1; k++) {
				uint32_t id =
					1 + (uint32_t)rng_below(&g, next - 1);

				for (uint32_t i = 0; i < nn; i++)
					if (owner[i] == id)
						owner[i] = POLICY_FREE;
			}
		}
		/* jobs shrink and grow (Slurm's resize), rarely */
		if (rng_below(&g, 10) == 0 && next > 1) {
			uint32_t id = 1 + (uint32_t)rng_below(&g, next - 1);

			for (uint32_t i = 0, k = 0; i < nn; i++)
				if (owner[i] == id && k++ % 2)
					owner[i] = POLICY_FREE;
		}
		if (rng_below(&g, 10) == 0 && next > 1) {
			uint32_t id = 1 + (uint32_t)rng_below(&g, next - 1);
			uint32_t i = (uint32_t)rng_below(&g, nn);

			if (!owner[i])
				owner[i] = id;
		}
		cr_assert_lt(next, 4 * nn);
	}
	cr_assert_gt(placed, 20, "%s %s: %u placed", topo, spec, placed);
	cr_assert_gt(released, 20, "%s %s: %u waited past now", topo, spec,
		     released);
	(void)waited;
	policy_destroy(p);
	free(owner);
	free(usable);
	free(run);
	free(end);
	fx_net_free(&net);
}

Test(willrun, incremental_state_answers_as_fresh)
{
	replay("dragonfly:p=2,a=4,h=2,g=9", "ugal", "dragonfly-balanced", 1);
	replay("dragonfly:p=2,a=4,h=2,g=9", "ugal", "dragonfly-groups", 2);
	replay("dragonfly:p=2,a=4,h=2,g=9", "ugal",
	       "dragonfly-groups:large=shared", 3);
	replay("dragonfly:p=2,a=4,h=2,g=9", "min", "dragonfly-groups", 4);
	replay("dragonfly:p=2,a=4,h=2,g=9", "vlb:intra=global",
	       "dragonfly-groups", 5);
	replay("cascade:groups=2,pair=4", "ugal", "dragonfly-balanced", 6);
	replay("dragonfly:p=2,a=4,h=2,g=9", "min", "nne", 7);
}

/* nne's answers depend on the job id only for a job over a group with a
 * task grid (from --topo-grid or a stencil pattern): its rank layout is
 * seeded by it.  Kept answers serve every job elsewhere.  DF(2,4,2,9):
 * 8 nodes per group. */
Test(willrun, nne_is_anonymous_without_a_grid_over_a_group)
{
	struct fx_net net = fx_net("dragonfly:p=2,a=4,h=2,g=9", "min");
	struct err err = { 0 };
	struct policy *p = policy_create("nne", net.t, net.r, &err);
	struct policy_request big = { .job_id = 5, .nodes = 16 };
	struct policy_request small = { .job_id = 5, .nodes = 8 };

	cr_assert(p, "%s", err.msg);
	cr_assert_not(p->ops->anonymous);
	cr_assert(p->ops->anonymous_for(p, &big));
	cr_assert(p->ops->anonymous_for(p, &small));
	big.pattern = small.pattern = "stencil:dims=4x4";
	cr_assert_not(p->ops->anonymous_for(p, &big));
	cr_assert(p->ops->anonymous_for(p, &small));
	big.pattern = "perm";
	cr_assert(p->ops->anonymous_for(p, &big));
	big.ngrid = 2;
	big.grid[0] = big.grid[1] = 4;
	cr_assert_not(p->ops->anonymous_for(p, &big));
	policy_destroy(p);
	fx_net_free(&net);
}

/* A policy whose answers depend on the job id (a seed drawn from it):
 * kept answers must not serve another job. */
Test(willrun, kept_answers_per_job_where_ids_matter)
{
	replay("fattree:k=4,n=3", "dmodk", "random", 21);
	replay("dragonfly:p=2,a=4,h=2,g=9", "ugal", "clustered", 22);
}

/* The fat-tree and mesh policies: their fast searches (free-origin
 * bitsets, bisecting will-run) against the reference searches asked at
 * every end time. */
Test(willrun, fast_paths_answer_as_reference)
{
	replay("fattree:k=4,n=3", "dmodk", "fattree-pods", 11);
	replay("fattree:k=4,n=3", "ecmp", "fattree-pods:rule=links", 12);
	replay("fattree:k=4,n=3", "dmodk", "fattree-pods:large=leaves", 13);
	replay("fattree:k=4,n=4", "ecmp", "fattree-pods:rule=links", 14);
	replay("fattree:k=6,n=2", "dmodk", "fattree-pods", 15);
	replay("expressmesh:dims=6x6x4,gap=2", "dor", "mesh-blocks", 16);
	replay("torus:dims=4x4x4,p=2", "minimal",
	       "mesh-blocks:mode=building-block,block=2x2x1", 17);
	replay("torus:dims=6x5x3,p=1", "dor", "mesh-blocks", 18);
	replay("hyperx:dims=5x4,p=3", "dor", "mesh-blocks", 19);
	/* many words per free-origin set, strides of 16 and 256 cells: the
	 * shifted and the whole-word kernels of the mesh's grow step */
	replay("expressmesh:dims=16x16x4,gap=4,p=1", "dor", "mesh-blocks", 20);
}
