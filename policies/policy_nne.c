/* policy_nne.c - nne: paper 004's placement of Cartesian nearest-neighbour
 * jobs on dragonfly and Cascade (evaluator/nne/nne.h), isolated by the
 * rules of dragonfly-groups.
 *
 * A job declares its task grid with --topo-grid (req->grid) or, in a
 * stopo whatif workload, with its pattern "stencil:dims=B0xB1x..
 * [,elements=A0xA1x..]".  With T = tasks / nodes ranks per node:
 *
 *   - A job without a grid, or one that fits a group (nodes <= the
 *     group's), is dragonfly-groups' (with the same large=): within one
 *     group no traffic crosses a global link, which is the model's
 *     optimum (delta = 0, B_eff = B_P / T).
 *   - A grid job spanning groups is planned with the model among the
 *     groups that are wholly free and usable (the dragonfly-groups rule
 *     for jobs above a group: under min its MIN paths stay in its own
 *     groups; a group it uses only in part keeps its other routers for
 *     dragonfly-groups' router or group rule, which sees it there): every
 *     gamma dividing the grid, each group holding |gamma| / T of the
 *     job's nodes, under the strategies the routing allows (min:
 *     cartesian/direct and random/direct; vlb: cartesian/indirect; ugal:
 *     all three), fastest first (nne_plan_all).  Attempt k is the k-th
 *     plan.  The result's rank_node gets the plan's rank order.
 *   - Under Valiant routing (vlb, ugal) such a job detours through every
 *     group: with large=wait (default) it waits until no other
 *     multi-router job runs and is then isolated (dragonfly-groups makes
 *     later multi-router jobs wait for it); with large=shared it is placed
 *     at once, not isolated.
 * Monotone like dragonfly-groups: a grid job's plans are drawn from the
 * wholly free groups, which only grow as jobs end, and it waits for no
 * other reason than those groups and the other multi-router jobs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/nne/nne.h"
#include "policies/policy_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "large",
	  .def = "wait",
	  .help = "jobs above a group: wait for whole groups, or shared" },
	{ 0 },
};
static const char *const large_choices[] = { "wait", "shared", NULL };

struct pnne {
	struct policy *inner; /* dragonfly-groups with the same large= */
	bool valiant;	      /* vlb or ugal */
	bool large_shared;
	unsigned mask;	     /* strategies the routing allows */
	struct nne_net net;  /* tasks_per_node set per request */
	uint32_t G, N, gmax; /* groups, nodes, most nodes in a group */
	uint32_t *gnodes;    /* [G] nodes of each group */
	uint32_t *ngroup;    /* [N] group of each node */
};

static void destroy(void *state)
{
	struct pnne *s = state;

	if (!s)
		return;
	policy_destroy(s->inner);
	free(s->gnodes);
	free(s->ngroup);
	free(s);
}

static int create(struct policy *p, struct err *err)
{
	const char *rn = routing_name(p->r);
	struct pnne *s = calloc(1, sizeof(*s));
	char inner[64];
	int large = 0;

	if (!s)
		return err_nomem(err, "out of memory");
	p->state = s;
	if (nne_net_from_topo(p->t, 0, NULL, &s->net, err))
		return err_prefix(err, "policy nne");
	if (!strcmp(rn, "min")) {
		s->mask = 1u << NNE_CART_DIRECT | 1u << NNE_RANDOM_DIRECT;
	} else if (!strcmp(rn, "vlb")) {
		s->valiant = true;
		s->mask = 1u << NNE_CART_INDIRECT;
	} else if (!strcmp(rn, "ugal")) {
		s->valiant = true;
		s->mask = 1u << NNE_CART_DIRECT | 1u << NNE_CART_INDIRECT |
			  1u << NNE_RANDOM_DIRECT;
	} else {
		return err_set(err,
			       "policy nne: needs routing min, vlb or ugal "
			       "(not %s)",
			       rn);
	}
	if (!s->net.inter)
		s->mask &= ~(1u << NNE_CART_INDIRECT);
	if (policy_opt_choice(p, "large", large_choices, &large, err))
		return -1;
	s->large_shared = large == 1;
	snprintf(inner, sizeof(inner), "dragonfly-groups:large=%s",
		 large_choices[large]);
	s->inner = policy_create(inner, p->t, p->r, err);
	if (!s->inner)
		return err_prefix(err, "policy nne");
	s->G = topo_num_groups(p->t);
	s->N = topo_num_nodes(p->t);
	s->gnodes = calloc(s->G, sizeof(*s->gnodes));
	s->ngroup = malloc((s->N ? s->N : 1) * sizeof(*s->ngroup));
	if (!s->gnodes || !s->ngroup)
		return err_nomem(err, "out of memory");
	for (uint32_t i = 0; i < s->N; i++) {
		uint32_t g = topo_switch_group(p->t, topo_node_switch(p->t, i));

		s->ngroup[i] = g;
		if (g < s->G && ++s->gnodes[g] > s->gmax)
			s->gmax = s->gnodes[g];
	}
	return 0;
}

static bool shares(const void *state)
{
	const struct pnne *s = state;

	return s->inner->ops->shares && s->inner->ops->shares(s->inner->state);
}

static void sync_view(const struct policy *p, const struct policy_view *v)
{
	const struct pnne *s = p->state;

	policy_sync(s->inner, v);
}

/* The grid of REQ into A: --topo-grid, else a "stencil:dims=.." pattern
 * (its elements= too).  Returns 1 with A set, 0 when REQ has no grid, -1
 * with RES's reason when the grid is bad. */
static int request_grid(const struct policy_request *req, struct nne_app *a,
			struct policy_result *res)
{
	char dims[96] = "", elems[96] = "";
	struct err err = { 0 };
	const char *p;

	if (req->ngrid) {
		nne_dims_format(req->grid, req->ngrid, dims, sizeof(dims));
	} else if (req->pattern && !strncmp(req->pattern, "stencil:", 8)) {
		for (p = req->pattern + 8; *p;) {
			size_t n = strcspn(p, ",");
			char *dst = !strncmp(p, "dims=", 5)	? dims :
				    !strncmp(p, "elements=", 9) ? elems :
								  NULL;
			size_t off = dst == dims ? 5 : 9;

			if (dst && n > off && n - off < sizeof(dims)) {
				memcpy(dst, p + off, n - off);
				dst[n - off] = 0;
			}
			p += n + (p[n] == ',');
		}
	}
	if (!dims[0])
		return 0;
	if (nne_app_init(a, dims, elems[0] ? elems : NULL, 0, &err)) {
		policy_say(res, POLICY_NEVER, "%s", err.msg);
		return -1;
	}
	return 1;
}

/* Whether a job other than JOB spans two routers or more in V. */
static int other_multi_router(const struct policy *p,
			      const struct policy_view *v, uint32_t job,
			      bool *yes)
{
	const struct pnne *s = p->state;
	struct policy_jobs j;
	uint32_t *sw;

	*yes = false;
	if (policy_jobs_build(&j, v->owner, s->N))
		return -1;
	sw = malloc((j.n ? j.n : 1) * sizeof(*sw));
	if (!sw) {
		policy_jobs_free(&j);
		return -1;
	}
	for (uint32_t k = 0; k < j.n; k++)
		sw[k] = UINT32_MAX;
	for (uint32_t i = 0; i < s->N && !*yes; i++) {
		uint32_t k = j.idx[i], x;

		if (k == UINT32_MAX || j.ids[k] == job)
			continue;
		x = topo_node_switch(p->t, i);
		if (sw[k] == UINT32_MAX)
			sw[k] = x;
		else if (sw[k] != x)
			*yes = true;
	}
	free(sw);
	policy_jobs_free(&j);
	return 0;
}

/* A grid job spanning groups (see the header). */
static int search_grid(const struct policy *p, const struct policy_view *v,
		       const struct policy_request *req,
		       struct policy_result *res, bool empty,
		       const struct nne_app *a, uint32_t tpn)
{
	const struct pnne *s = p->state;
	struct nne_net net = s->net;
	struct nne_plan *plans = NULL;
	uint32_t *gfree = calloc(s->G, sizeof(*gfree)), np = 0, keep = 0;
	uint32_t *rank = NULL, *groups = NULL;
	uint8_t *mask = NULL;
	uint64_t tasks = nne_tasks(a);
	char grid[96];
	bool busy;
	int rc = -1;

	nne_dims_format(a->beta, a->d, grid, sizeof(grid));
	if (!gfree)
		return -1;
	if (s->valiant && !s->large_shared && !empty) {
		if (other_multi_router(p, v, req->job_id, &busy))
			goto out;
		if (busy) {
			rc = policy_say(res, POLICY_WAIT,
					"waiting until no other multi-router "
					"job runs (grid %s spans groups: its "
					"Valiant paths cross every group)",
					grid);
			goto out;
		}
	}
	/* whole groups, free (or, EMPTY, usable) */
	for (uint32_t g = 0; g < s->G; g++)
		gfree[g] = s->gnodes[g];
	for (uint32_t i = 0; i < s->N; i++) {
		uint32_t g = s->ngroup[i];

		if (g < s->G &&
		    !(empty ? policy_node_usable(v, i) : policy_node_ok(v, i)))
			gfree[g] = 0;
	}
	net.tasks_per_node = tpn;
	if (nne_plan_all(a, &net, gfree, s->mask, &plans, &np, NULL))
		goto out;
	/* the plans whose groups hold whole nodes of the job, in the
	 * model's order (what stopo place ranks) */
	for (uint32_t k = 0; k < np; k++)
		if (plans[k].per_group % tpn == 0 && plans[k].groups > 1)
			plans[keep++] = plans[k];
	np = keep;
	if (!np) {
		rc = policy_say(res, POLICY_WAIT,
				"waiting for whole free groups for grid %s "
				"(%llu tasks, %u per node)",
				grid, (unsigned long long)tasks, tpn);
		goto out;
	}
	if (req->attempt >= np) {
		rc = policy_say(res, POLICY_NEVER,
				"no attempt %u: grid %s has %u plans",
				req->attempt, grid, np);
		goto out;
	}
	if (empty) {
		rc = POLICY_PLACED;
		goto out;
	}
	mask = malloc(s->N);
	rank = malloc(tasks * sizeof(*rank));
	groups = malloc((plans[req->attempt].groups + 1) * sizeof(*groups));
	if (!mask || !rank || !groups)
		goto out;
	for (uint32_t i = 0; i < s->N; i++)
		mask[i] = s->ngroup[i] < s->G && gfree[s->ngroup[i]] > 0;
	if (nne_layout(p->t, mask, a, &plans[req->attempt], tpn, req->job_id,
		       rank, groups, NULL))
		goto out;
	/* the job's nodes: each rank's, once, in rank order */
	res->n = 0;
	for (uint64_t r = 0; r < tasks; r++) {
		uint32_t x = rank[r];

		if (!mask[x])
			continue;
		if (res->n == req->nodes) {
			res->n++;
			break;
		}
		mask[x] = 0;
		res->nodes[res->n++] = x;
	}
	if (res->n != req->nodes) {
		rc = policy_say(res, POLICY_NEVER,
				"grid %s: a plan of %s%u nodes for %u", grid,
				res->n > req->nodes ? "over " : "", req->nodes,
				req->nodes);
		res->n = 0;
		goto out;
	}
	if (res->rank_node && res->rank_cap >= tasks) {
		memcpy(res->rank_node, rank, tasks * sizeof(*rank));
		res->nranks = (uint32_t)tasks;
	}
	policy_sort_u32(res->nodes, res->n);
	res->isolated = !(s->valiant && s->large_shared);
	if (!res->isolated)
		policy_say(res, POLICY_PLACED,
			   "grid %s spans %u groups: its Valiant paths cross "
			   "every group (large=shared)",
			   grid, plans[req->attempt].groups);
	rc = POLICY_PLACED;
out:
	free(gfree);
	free(plans);
	free(rank);
	free(groups);
	free(mask);
	return rc;
}

static int search(const struct policy *p, const struct policy_view *v,
		  const struct policy_request *req, struct policy_result *res,
		  bool empty)
{
	const struct pnne *s = p->state;
	struct nne_app a;
	uint64_t tasks;
	int g = request_grid(req, &a, res);

	if (g < 0)
		return POLICY_NEVER;
	if (!g || req->nodes <= s->gmax)
		return s->inner->ops->search(s->inner, v, req, res, empty);
	tasks = nne_tasks(&a);
	if (tasks % req->nodes) {
		char d[96];

		nne_dims_format(a.beta, a.d, d, sizeof(d));
		return policy_say(res, POLICY_NEVER,
				  "grid %s has %llu tasks: not a whole number "
				  "on %u nodes",
				  d, (unsigned long long)tasks, req->nodes);
	}
	return search_grid(p, v, req, res, empty, &a,
			   (uint32_t)(tasks / req->nodes));
}

/* Jobs without a grid, and jobs that fit a group, are dragonfly-groups'
 * (the search above): the job id seeds only a grid's rank layout. */
static bool anonymous_for(const struct policy *p,
			  const struct policy_request *req)
{
	const struct pnne *s = p->state;

	return req->nodes <= s->gmax ||
	       (!req->ngrid &&
		!(req->pattern && !strncmp(req->pattern, "stencil:", 8)));
}

const struct policy_ops policy_nne = {
	.name = "nne",
	.anonymous_for = anonymous_for,
	.opts = opts,
	.isolating = true,
	.monotone = true,
	.shares = shares,
	.create = create,
	.destroy = destroy,
	.search = search,
	.sync = sync_view,
};
