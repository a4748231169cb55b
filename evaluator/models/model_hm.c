/* model_hm.c - Hoefler's method (paper 000 Sec. II-C).
 *
 * Each path of a flow is a sub-flow.  u_l counts the sub-flows crossing
 * link l (a path crossing l twice counts twice); a sub-flow gets
 * min over its links of C_l / u_l; a flow the sum of its sub-flows.
 * Demands are ignored.  Two passes over the path links: O(entries). */
#include <math.h>
#include <stdlib.h>

#include "evaluator/models/model_impl.h"

static int hm_solve(const struct model_input *in, const struct model_opts *o,
		    struct model_result *res, struct err *err)
{
	uint32_t *u = calloc((size_t)in->nlinks + 1, sizeof(*u));
	double *share = malloc(((size_t)in->nlinks + 1) * sizeof(*share));
	uint32_t ne = in->path_off[in->npaths];

	if (!u || !share) {
		free(u);
		free(share);
		return err_set(err, "out of memory (hm)");
	}
	for (uint32_t e = 0; e < ne; e++)
		u[in->links[e]]++;
	for (uint32_t l = 0; l < in->nlinks; l++)
		share[l] = u[l] ? in->cap[l] / u[l] : INFINITY;
	for (uint32_t i = 0; i < in->nflows; i++) {
		double sum = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			double m = INFINITY;

			for (uint32_t e = in->path_off[p];
			     e < in->path_off[p + 1]; e++)
				if (share[in->links[e]] < m)
					m = share[in->links[e]];
			res->path_rates[p] = m;
			sum += m;
		}
		res->rates[i] = sum;
	}
	res->status = MODEL_OPTIMAL;
	res->iterations = 1;
	free(u);
	free(share);
	return 0;
}

const struct model_ops model_hm = {
	.name = "hm",
	.solve = hm_solve,
};
