/* bench_policy.c - time of one policy_place call on the paper 003 Table I
 * prototypes (fat-tree k=22 n=3: 10,648 nodes; dragonfly p=7 a=15 h=8
 * g=106: 11,130 nodes; G1 express mesh 12x10x10 p=9: 10,800 nodes; a
 * 16x16x16 torus with p=2: 8,192 nodes) with
 * the machine about half full, for several job sizes.
 *
 * Times are process CPU time per call (the machine may be busy).
 *
 * Usage: bench_policy [iterations]   (default 200) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "policies/policy.h"
#include "topo/util/rng.h"
#include "topo/routing.h"
#include "topo/topo.h"

struct bcase {
	const char *topo, *routing, *policy;
	uint32_t sizes[6];
};

static const struct bcase cases[] = {
	{ "fattree:k=22,n=3",
	  "ecmp",
	  "fattree-pods",
	  { 1, 11, 22, 484, 1500, 6000 } },
	{ "fattree:k=22,n=3", "ecmp", "clustered", { 1, 11, 100, 1500 } },
	{ "fattree:k=22,n=3", "ecmp", "linear", { 1, 100, 1500 } },
	{ "dragonfly:p=7,a=15,h=8,g=106",
	  "ugal",
	  "dragonfly-groups",
	  { 1, 7, 50, 105, 500 } },
	{ "dragonfly:p=7,a=15,h=8,g=106",
	  "min",
	  "dragonfly-groups",
	  { 1, 7, 50, 105, 500 } },
	{ "dragonfly:p=7,a=15,h=8,g=106",
	  "ugal",
	  "dragonfly-groups:large=shared",
	  { 500 } },
	{ "expressmesh:dims=12x10x10,gap=1,p=9",
	  "dor",
	  "mesh-blocks",
	  { 1, 9, 72, 500, 2000, 5000 } },
	{ "expressmesh:dims=12x10x10,gap=1,p=9",
	  "dor",
	  "mesh-blocks:mode=building-block,block=2x2x2",
	  { 72, 500 } },
	{ "torus:dims=16x16x16,p=2",
	  "dor",
	  "mesh-blocks",
	  { 1, 50, 500, 3000 } },
};

static const char *status_name(enum policy_status s)
{
	return s == POLICY_PLACED ? "placed" :
	       s == POLICY_WAIT	  ? "wait" :
				    "never";
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 200;

	if (iters < 1)
		iters = 1;
	printf("%-38s %-8s %-31s %6s %-7s %10s\n", "topology", "routing",
	       "policy", "nodes", "status", "us/call");
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct bcase *b = &cases[c];
		struct err e = { 0 };
		struct topo *t = topo_create(b->topo, &e);
		struct routing *r = t ? routing_create(t, b->routing, &e) :
					NULL;
		struct policy *p = r ? policy_create(b->policy, t, r, &e) :
				       NULL;
		uint32_t n, busy = 0, *owner, *buf, job = 1;
		struct policy_view v;
		struct rng g;

		if (!p) {
			fprintf(stderr, "bench_policy: %s %s %s: %s\n", b->topo,
				b->routing, b->policy, e.msg);
			return 1;
		}
		n = topo_num_nodes(t);
		owner = calloc(n, sizeof(*owner));
		buf = malloc(n * sizeof(*buf));
		v = (struct policy_view){ .owner = owner };
		/* fill to half with the policy itself: jobs of 1 to 3 %
		 * of the machine */
		rng_seed(&g, 42);
		for (int tries = 0; busy < n / 2 && tries < 100000; tries++) {
			struct policy_request q = {
				.job_id = job,
				.nodes = 1 + (uint32_t)rng_below(&g, n / 33),
			};
			struct policy_result res = { .nodes = buf };

			if (policy_place(p, &v, &q, &res) != POLICY_PLACED)
				continue;
			for (uint32_t i = 0; i < res.n; i++)
				owner[res.nodes[i]] = job;
			busy += res.n;
			job++;
		}
		for (int s = 0; s < 6 && b->sizes[s]; s++) {
			struct policy_request q = { .job_id = job,
						    .nodes = b->sizes[s] };
			struct policy_result res = { .nodes = buf };
			enum policy_status st = POLICY_NEVER;
			double t0 = bench_cpu(), dt;

			for (int i = 0; i < iters; i++)
				st = policy_place(p, &v, &q, &res);
			dt = (bench_cpu() - t0) / iters;
			printf("%-38s %-8s %-31s %6u %-7s %10.1f\n", b->topo,
			       b->routing, b->policy, b->sizes[s],
			       status_name(st), dt * 1e6);
		}
		printf("%-38s (%u of %u nodes busy, %u jobs)\n", "", busy, n,
		       job - 1);
		free(owner);
		free(buf);
		policy_destroy(p);
		routing_destroy(r);
		topo_destroy(t);
	}
	return 0;
}
