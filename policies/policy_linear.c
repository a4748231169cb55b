/* policy_linear.c - baseline: the lowest free usable node ids.  Attempt k
 * skips the first k free nodes (a distinct candidate per attempt).  No
 * isolation claim. */
#include <stdlib.h>

#include "policies/policy_impl.h"

static int create(struct policy *p, struct err *err)
{
	return 0;
}

static enum policy_status place(const struct policy *p,
				const struct policy_view *v,
				const struct policy_request *req,
				struct policy_result *res)
{
	uint32_t f, *fr = policy_free_enough(p, v, req->nodes, &f, res);

	if (!fr)
		return POLICY_WAIT;
	if (req->attempt > f - req->nodes) {
		free(fr);
		return policy_say(res, POLICY_NEVER,
				  "no candidate #%u (%u "
				  "candidates)",
				  req->attempt, f - req->nodes + 1);
	}
	for (uint32_t i = 0; i < req->nodes; i++)
		res->nodes[i] = fr[req->attempt + i];
	res->n = req->nodes;
	free(fr);
	return POLICY_PLACED;
}

const struct policy_ops policy_linear = {
	.name = "linear",
	.anonymous = true,
	.isolating = false,
	.create = create,
	.place = place,
};
