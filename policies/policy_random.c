/* policy_random.c - baseline: a uniformly random set of free usable nodes,
 * drawn from seed= mixed with the job id and the attempt index (so the
 * same request always gets the same nodes).  No isolation claim. */
#include <stdlib.h>

#include "policies/policy_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "seed",
	  .def = "1",
	  .help = "seed, mixed with job and attempt" },
	{ 0 },
};

static int create(struct policy *p, struct err *err)
{
	long seed;

	return policy_opt_long(p, "seed", 0, 0x7fffffffL, &seed, err);
}

static enum policy_status place(const struct policy *p,
				const struct policy_view *v,
				const struct policy_request *req,
				struct policy_result *res)
{
	uint64_t seed = strtoull(policy_opt(p, "seed"), NULL, 10);
	uint32_t f, *fr = policy_free_enough(p, v, req->nodes, &f, res);

	if (!fr)
		return POLICY_WAIT;
	if (f == req->nodes && req->attempt > 0) {
		free(fr);
		return policy_say(res, POLICY_NEVER,
				  "no candidate #%u (the "
				  "free nodes are exactly the request)",
				  req->attempt);
	}
	policy_pick_random(fr, f, req->nodes,
			   policy_seed(seed, req->job_id, req->attempt),
			   res->nodes);
	policy_sort_u32(res->nodes, req->nodes);
	res->n = req->nodes;
	free(fr);
	return POLICY_PLACED;
}

const struct policy_ops policy_random = {
	.name = "random",
	.opts = opts,
	.isolating = false,
	.create = create,
	.place = place,
};
