/* model_jm.c - Jain's method as paper 000 Sec. II-D describes it.
 *
 * Every path is a sub-flow.  Round after round, HM runs on the residual
 * graph G^R over the unsaturated paths: with R_l the residual capacity of
 * link l and u_l the number of unsaturated path crossings of l, every
 * unsaturated path p gets the increment min_{l in p} R_l / u_l; the
 * increments are added to the paths (G^A) and taken off R (G^R).  A link
 * whose residual is at most 1e-12 saturates every path on it.  The
 * link(s) with the smallest share R_l / u_l set the increment of all their
 * paths, so their residual is exactly 0: they are saturated explicitly
 * (rounding cannot leave them at 1e-17), which guarantees every round
 * retires at least one path.  Demands are ignored; rate = sum of paths.
 * With opts->need_flows = N the rounds stop once no path of flows
 * 0 .. N-1 is unsaturated: their path rates are final then (later rounds
 * only add to unsaturated paths), so their rates are those of the full
 * run, bit for bit.
 *
 * Cost per round: O(L + crossings of the unsaturated paths): one pass to
 * add the increments, one to retire the paths that hit a saturated link;
 * flat arrays only, no link->path lists. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

#define JM_EPS 1e-12

struct jm {
	double *R, *share;
	uint32_t *u;   /* unsaturated crossings per link */
	uint8_t *sat;  /* link saturated */
	uint32_t *act; /* unsaturated path ids, in path order */
	uint32_t nact;
};

static void jm_free(struct jm *j)
{
	free(j->R);
	free(j->share);
	free(j->u);
	free(j->sat);
	free(j->act);
}

/* Drop every path that crosses a saturated link from the unsaturated list
 * (one sequential pass; no link->path incidence needed). */
static void retire(struct jm *j, const struct model_input *in)
{
	uint32_t w = 0;

	for (uint32_t a = 0; a < j->nact; a++) {
		uint32_t p = j->act[a];
		uint32_t e0 = in->path_off[p], e1 = in->path_off[p + 1];
		uint32_t e = e0;

		while (e < e1 && !j->sat[in->links[e]])
			e++;
		if (e == e1) {
			j->act[w++] = p;
			continue;
		}
		for (e = e0; e < e1; e++)
			j->u[in->links[e]]--;
	}
	j->nact = w;
}

static int jm_solve(const struct model_input *in, const struct model_opts *o,
		    struct model_result *res, struct err *err)
{
	struct jm j;
	/* paths below this id belong to the needed flows */
	uint32_t pneed = o->need_flows && o->need_flows <= in->nflows ?
				 in->flow_off[o->need_flows] :
				 in->npaths;
	size_t nl = (size_t)in->nlinks + 1, np = (size_t)in->npaths + 1;
	uint32_t ne = in->path_off[in->npaths], rounds = 0;
	bool any;

	memset(&j, 0, sizeof(j));
	j.R = malloc(nl * sizeof(*j.R));
	j.share = malloc(nl * sizeof(*j.share));
	j.u = calloc(nl, sizeof(*j.u));
	j.sat = calloc(nl, 1);
	j.act = malloc(np * sizeof(*j.act));
	if (!j.R || !j.share || !j.u || !j.sat || !j.act) {
		jm_free(&j);
		return err_set(err, "out of memory (jm)");
	}
	for (uint32_t e = 0; e < ne; e++)
		j.u[in->links[e]]++;
	any = false;
	for (uint32_t l = 0; l < in->nlinks; l++) {
		j.R[l] = in->cap[l];
		/* links that start at (about) zero capacity */
		if (j.u[l] && j.R[l] <= JM_EPS)
			any = (j.sat[l] = 1);
	}
	for (uint32_t p = 0; p < in->npaths; p++)
		j.act[p] = p;
	j.nact = in->npaths;
	if (any)
		retire(&j, in);

	/* act[] is in path order: act[0] is the first unsaturated path */
	while (j.nact && j.act[0] < pneed) {
		double gmin = INFINITY;

		rounds++;
		for (uint32_t l = 0; l < in->nlinks; l++) {
			j.share[l] = j.u[l] ? j.R[l] / j.u[l] : INFINITY;
			if (j.share[l] < gmin)
				gmin = j.share[l];
		}
		for (uint32_t a = 0; a < j.nact; a++) {
			uint32_t p = j.act[a];
			uint32_t e0 = in->path_off[p], e1 = in->path_off[p + 1];
			double inc = INFINITY;

			for (uint32_t e = e0; e < e1; e++)
				if (j.share[in->links[e]] < inc)
					inc = j.share[in->links[e]];
			res->path_rates[p] += inc;
			for (uint32_t e = e0; e < e1; e++)
				j.R[in->links[e]] -= inc;
		}
		/* saturated: residual <= 1e-12, or the link(s) that set the
		 * smallest increment (exactly 0 in exact arithmetic) */
		for (uint32_t l = 0; l < in->nlinks; l++) {
			if (!j.u[l] || j.sat[l])
				continue;
			if (j.share[l] <= gmin)
				j.R[l] = 0;
			if (j.R[l] <= JM_EPS)
				j.sat[l] = 1;
		}
		retire(&j, in);
	}
	for (uint32_t i = 0; i < in->nflows; i++) {
		double s = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
			s += res->path_rates[p];
		res->rates[i] = s;
	}
	res->status = MODEL_OPTIMAL;
	res->iterations = rounds;
	jm_free(&j);
	return 0;
}

const struct model_ops model_jm = {
	.name = "jm",
	.solve = jm_solve,
};
