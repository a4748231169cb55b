/* bench_place.c - stopo place's work (paper 004's planner): build the
 * topology, search every gamma under every strategy, lay the best plan
 * out rank by rank, for the two cases: beta (16,8,8) on
 * DF(4,8,4,33) and beta (32,32,32) on the 11,130-node dragonfly (8 tasks
 * per node: 64 groups of 512 tasks; one task per node does not fit).
 * Target: under 1 s each.  Then the link-level check (--links: the
 * generic nne model on the best plan's explicit flows) on the first. */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_util.h"
#include "evaluator/models/model.h"
#include "evaluator/nne/nne.h"
#include "evaluator/traffic/flows.h"
#include "topo/routing.h"

struct cse {
	const char *topo, *grid, *elements;
	uint32_t tpn;
};

static int one(const struct cse *c, int links)
{
	struct err err = { 0 };
	double t0 = bench_wall(), t1, t2, t3;
	struct topo *t = topo_create(c->topo, &err);
	struct nne_net net;
	struct nne_app a;
	struct nne_plan *plans = NULL;
	uint32_t np = 0, *rn = NULL, *groups = NULL;
	int rc = 1;

	if (!t || nne_app_init(&a, c->grid, c->elements, 0, &err) ||
	    nne_net_from_topo(t, 0, NULL, &net, &err))
		goto out;
	net.tasks_per_node = c->tpn;
	t1 = bench_wall();
	if (nne_plan_all(&a, &net, NULL, 7, &plans, &np, &err) || !np)
		goto out;
	t2 = bench_wall();
	rn = malloc(nne_tasks(&a) * sizeof(*rn));
	groups = malloc((plans[0].groups + 1) * sizeof(*groups));
	if (!rn || !groups ||
	    nne_layout(t, NULL, &a, &plans[0], c->tpn, 1, rn, groups, &err))
		goto out;
	t3 = bench_wall();
	printf("place %s on %s (%llu tasks, %u per node): %u plans; "
	       "topology %.1f ms, search %.3f ms, layout %.2f ms, total "
	       "%.1f ms (target 1000 ms); best %s, %u groups of %u tasks, "
	       "%.4g ms exchange\n",
	       c->grid, c->topo, (unsigned long long)nne_tasks(&a), c->tpn, np,
	       (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3,
	       (t3 - t0) * 1e3, nne_strategy_name(plans[0].strategy),
	       plans[0].groups, plans[0].per_group, plans[0].seconds * 1e3);
	if (links) {
		struct routing *r = routing_create(t, "ugal", &err);
		struct flows f;
		struct model_result res;
		char pat[128];
		double l0 = bench_wall();

		flows_init(&f);
		snprintf(pat, sizeof(pat), "stencil:dims=%s,elements=%s",
			 c->grid, c->elements);
		if (!r ||
		    flows_pattern(pat, rn, (uint32_t)nne_tasks(&a), 1, &f,
				  &err) ||
		    model_run("nne:route=indirect", r, &f, NULL, &res, &err)) {
			routing_destroy(r);
			flows_free(&f);
			goto out;
		}
		printf("  --links (nne model, %u flows, %llu paths): %.1f ms, "
		       "B_eff %.4f link units\n",
		       f.n, (unsigned long long)res.paths_total,
		       (bench_wall() - l0) * 1e3, res.alpha);
		model_result_free(&res);
		flows_free(&f);
		routing_destroy(r);
	}
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "bench_place: %s: %s\n", c->grid,
			err.msg[0] ? err.msg : "no plan");
	free(plans);
	free(rn);
	free(groups);
	topo_destroy(t);
	return rc;
}

int main(void)
{
	static const struct cse cases[] = {
		{ "dragonfly:p=4,a=8,h=4,g=33", "16x8x8", "512x512x512", 1 },
		{ "dragonfly:p=7,a=15,h=8,g=106", "32x32x32", "512x512x512",
		  8 },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		rc |= one(&cases[i], i == 0);
	return rc;
}
