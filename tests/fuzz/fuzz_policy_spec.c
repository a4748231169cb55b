/* fuzz_policy_spec.c - policy specs ("fattree-pods:large=wait",
 * "mesh-blocks:block=2x2") through policy_check and policy_create, then
 * placements and the will-run search on a random machine state.  Input:
 * lines with a topology spec, a routing spec (empty: the family's
 * default), a policy spec, a task grid ("AxB", empty: none) and a traffic
 * pattern (empty: none), then bytes: the request (node count, attempt),
 * the running jobs' end times and one byte per node (owner, usable).
 *
 * Checked, as policy.h and willrun.h state them: policy_check fails with
 * policy_create's message; the canonical spec creates the same policy; a
 * placement holds REQ.nodes distinct ascending nodes, free and usable; the
 * same call gives the same answer; WAIT means the job places once every
 * usable node is free and NEVER that it does not (busy nodes are usable,
 * as the plugin and stopo whatif offer them); the will-run search
 * answers now when the job places now, and otherwise with nodes free once
 * the jobs ending by its start have ended. */
#include <stdlib.h>
#include <string.h>

#include "policies/policy.h"
#include "policies/willrun.h"
#include "tests/fuzz/fuzz.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define MAX_INPUT 4096
#define MAX_SIZE 3000 /* nodes + switches + cables (fuzz_topo_size) */
#define JOBS 8u	      /* running job ids 1..JOBS */

/* The last topology and routing, kept while the input keeps their specs. */
static struct {
	char *tspec, *rspec;
	struct topo *t;
	struct routing *r;
} cache;

static const struct routing *get_routing(char *tspec, char *rspec)
{
	struct err err = { 0 };

	if (cache.tspec && !strcmp(cache.tspec, tspec) && cache.rspec &&
	    !strcmp(cache.rspec, rspec)) {
		free(tspec);
		free(rspec);
		return cache.r;
	}
	routing_destroy(cache.r);
	topo_destroy(cache.t);
	free(cache.tspec);
	free(cache.rspec);
	memset(&cache, 0, sizeof(cache));
	cache.tspec = tspec;
	cache.rspec = rspec;
	if (fuzz_topo_size(tspec) > MAX_SIZE || fuzz_routing_slow(rspec) ||
	    !(cache.t = topo_create(tspec, &err)))
		return NULL;
	cache.r = routing_create(
		cache.t, *rspec ? rspec : routing_default(cache.t), &err);
	return cache.r;
}

static struct policy *make_policy(const char *spec, const struct topo *t,
				  const struct routing *r)
{
	struct err ec = { 0 }, ep = { 0 };
	struct policy *p, *again;
	int rc = policy_check(spec, &ec);

	p = policy_create(spec, t, r, &ep);
	if (rc) {
		FUZZ_CHECK_ERR(&ec, NULL, 0);
		FUZZ_CHECK(!p && !strcmp(ec.msg, ep.msg),
			   "policy_check says '%s', policy_create '%s'", ec.msg,
			   p ? "(created)" : ep.msg);
		return NULL;
	}
	if (!p) {
		FUZZ_CHECK_ERR(&ep, NULL, 0);
		return NULL;
	}
	again = policy_create(policy_spec(p), t, r, &ep);
	FUZZ_CHECK(again && !strcmp(policy_spec(again), policy_spec(p)),
		   "canonical policy '%s' does not create it again: %s",
		   policy_spec(p), ep.msg);
	policy_destroy(again);
	return p;
}

static void check_placed(const struct policy_result *res,
			 const struct policy_request *req,
			 const struct policy_view *v, uint32_t N)
{
	FUZZ_CHECK(res->n == req->nodes, "placed %u nodes of %u", res->n,
		   req->nodes);
	for (uint32_t i = 0; i < res->n; i++) {
		uint32_t x = res->nodes[i];

		FUZZ_CHECK(x < N && (i == 0 || x > res->nodes[i - 1]),
			   "placement not ascending at %u", i);
		FUZZ_CHECK(v->owner[x] == POLICY_FREE &&
				   (!v->usable || v->usable[x]),
			   "placed on node %u: owner %u, usable %d", x,
			   v->owner[x], v->usable ? v->usable[x] : 1);
	}
}

/* The will-run answer against the placement now (PLACED_NOW, NOW_NODES)
 * and the running jobs' ends. */
static void check_will_run(const struct policy *p, const struct policy_view *v,
			   const struct policy_request *req,
			   const struct policy_running *run, uint32_t nrun,
			   enum policy_status now_st, const uint32_t *now_nodes,
			   uint32_t *buf, uint32_t N)
{
	struct policy_result res = { .nodes = buf };
	struct policy_will_run wr;
	struct err err = { 0 };

	FUZZ_CHECK(!policy_will_run(p, v, run, nrun, 0, req, &res, &wr, &err),
		   "policy_will_run: %s", err.msg);
	FUZZ_CHECK(wr.start >= 0 && wr.groups <= nrun && wr.jobs <= nrun,
		   "will-run start %lld, %u groups, %u jobs",
		   (long long)wr.start, wr.groups, wr.jobs);
	if (now_st == POLICY_PLACED) {
		FUZZ_CHECK(wr.status == POLICY_PLACED && wr.groups == 0 &&
				   res.n == req->nodes &&
				   !memcmp(res.nodes, now_nodes,
					   req->nodes * sizeof(*now_nodes)),
			   "will-run does not answer now's placement");
		return;
	}
	if (wr.status != POLICY_PLACED)
		return;
	FUZZ_CHECK(wr.groups > 0, "will-run places now, policy_place not");
	FUZZ_CHECK(res.n == req->nodes, "will-run placed %u of %u", res.n,
		   req->nodes);
	for (uint32_t i = 0; i < res.n; i++) {
		uint32_t x = res.nodes[i], o;
		int64_t end = INT64_MAX;

		FUZZ_CHECK(x < N && (i == 0 || x > res.nodes[i - 1]) &&
				   (!v->usable || v->usable[x]),
			   "will-run placement at %u", i);
		o = v->owner[x];
		for (uint32_t k = 0; k < nrun && o != POLICY_FREE; k++)
			if (run[k].job_id == o && run[k].end < end)
				end = run[k].end < 0 ? 0 : run[k].end;
		FUZZ_CHECK(o == POLICY_FREE || end <= wr.start,
			   "will-run at %lld places on node %u of job %u "
			   "(ends %lld)",
			   (long long)wr.start, x, o, (long long)end);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct policy_request req = { .job_id = JOBS + 1 };
	struct policy_running run[JOBS];
	struct policy_view v, all;
	struct policy_result res, again;
	struct err err = { 0 };
	const struct routing *r;
	const struct topo *t;
	struct policy *p;
	char *tspec, *rspec, *pspec, *grid, *pattern;
	uint32_t N, *owner, *free_owner, *nodes, *nodes2, *nodes3;
	uint8_t *usable;
	enum policy_status st;
	int has_usable;

	if (size > MAX_INPUT || !(tspec = fuzz_line(&in)))
		return 0;
	if (!(rspec = fuzz_line(&in))) {
		free(tspec);
		return 0;
	}
	if (!(r = get_routing(tspec, rspec)))
		return 0;
	t = routing_topo(r);
	N = topo_num_nodes(t);
	pspec = fuzz_line(&in);
	grid = fuzz_line(&in);
	pattern = fuzz_line(&in);
	owner = calloc(N, sizeof(*owner));
	free_owner = calloc(N, sizeof(*free_owner));
	usable = calloc(N, 1);
	nodes = calloc(N, sizeof(*nodes));
	nodes2 = calloc(N, sizeof(*nodes2));
	nodes3 = calloc(N, sizeof(*nodes3));
	p = pspec && grid && pattern && owner && free_owner && usable &&
			    nodes && nodes2 && nodes3 ?
		    make_policy(pspec, t, r) :
		    NULL;
	if (!p)
		goto out;
	if (*grid && policy_grid_parse(grid, &req, &err))
		FUZZ_CHECK_ERR(&err, NULL, 0);
	req.pattern = *pattern ? pattern : NULL;
	req.nodes = 1 + fuzz_u16(&in) % (N + 1);
	req.attempt = fuzz_u8(&in) % 4;
	has_usable = fuzz_u8(&in) & 1;
	for (uint32_t k = 0; k < JOBS; k++) {
		run[k].job_id = k + 1;
		run[k].end = (int64_t)fuzz_u8(&in) - 16;
	}
	for (uint32_t i = 0; i < N; i++) {
		uint8_t b = fuzz_u8(&in);

		owner[i] = b & 0x80 ? 1u + (b & (JOBS - 1)) : POLICY_FREE;
		/* a busy node is usable, as the plugin and stopo whatif
		 * offer it (the policy must see it to wait for it) */
		usable[i] = !has_usable || owner[i] || !(b & 0x40);
	}
	v = (struct policy_view){ .owner = owner,
				  .usable = has_usable ? usable : NULL };
	all = (struct policy_view){ .owner = free_owner, .usable = v.usable };
	res = (struct policy_result){ .nodes = nodes };
	again = (struct policy_result){ .nodes = nodes2 };
	st = policy_place(p, &v, &req, &res);
	if (st == POLICY_PLACED)
		check_placed(&res, &req, &v, N);
	else
		FUZZ_CHECK(st == POLICY_WAIT || st == POLICY_NEVER, "status %d",
			   (int)st);
	FUZZ_CHECK(
		policy_place(p, &v, &req, &again) == st && again.n == res.n &&
			!memcmp(again.nodes, res.nodes, res.n * sizeof(*nodes)),
		"the same call gives another answer");
	if (req.attempt == 0 && st != POLICY_PLACED) {
		enum policy_status fs = policy_place(p, &all, &req, &again);

		FUZZ_CHECK(st != POLICY_WAIT || fs == POLICY_PLACED,
			   "%s: WAIT (%s), but with every usable node free: "
			   "%s",
			   policy_spec(p), res.reason, again.reason);
		FUZZ_CHECK(st != POLICY_NEVER || fs != POLICY_PLACED,
			   "%s: NEVER (%s), but places with every usable "
			   "node free",
			   policy_spec(p), res.reason);
	}
	check_will_run(p, &v, &req, run, JOBS, st, res.nodes, nodes3, N);
out:
	policy_destroy(p);
	free(pspec);
	free(grid);
	free(pattern);
	free(owner);
	free(free_owner);
	free(usable);
	free(nodes);
	free(nodes2);
	free(nodes3);
	return 0;
}
