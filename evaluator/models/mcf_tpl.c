/* mcf_tpl.c - path-template MCF: input checking and defaults (the GLPK
 * solver is in model_lp.c). */
#include <math.h>

#include "evaluator/models/mcf_tpl.h"

void mcf_tpl_opts_init(struct mcf_tpl_opts *o)
{
	o->time_limit_ms = 0;
	o->gap = 0.01;
	o->max_iter = 0;
}

int mcf_tpl_check(const struct mcf_tpl *p, struct err *err)
{
	if (!p || (p->nlinks && !p->cap) || !p->flow_off ||
	    (p->nflows && !p->demand) ||
	    (p->ngroups && (!p->mult || !p->col_off)))
		return err_set(err, "path template: missing array");
	if (p->flow_off[0] != 0 || p->flow_off[p->nflows] != p->ngroups)
		return err_set(err, "path template: flow offsets do not "
				    "cover the groups");
	for (uint32_t e = 0; e < p->nlinks; e++)
		if (!isfinite(p->cap[e]) || p->cap[e] < 0)
			return err_set(err,
				       "path template: link %u: bad "
				       "capacity",
				       e);
	for (uint32_t f = 0; f < p->nflows; f++) {
		if (p->flow_off[f + 1] < p->flow_off[f])
			return err_set(err,
				       "path template: flow %u: "
				       "offsets decrease",
				       f);
		if (!isfinite(p->demand[f]) || !(p->demand[f] > 0))
			return err_set(err,
				       "path template: flow %u: demand "
				       "must be > 0",
				       f);
	}
	if (p->ngroups && p->col_off[0] != 0)
		return err_set(err,
			       "path template: column offsets start "
			       "at %u",
			       p->col_off[0]);
	for (uint32_t g = 0; g < p->ngroups; g++) {
		if (p->col_off[g + 1] < p->col_off[g])
			return err_set(err,
				       "path template: group %u: "
				       "offsets decrease",
				       g);
		if (!isfinite(p->mult[g]) || !(p->mult[g] > 0))
			return err_set(err,
				       "path template: group %u: mult "
				       "must be > 0",
				       g);
		for (uint32_t x = p->col_off[g]; x < p->col_off[g + 1]; x++)
			if (p->col_link[x] >= p->nlinks ||
			    !isfinite(p->col_cnt[x]) || !(p->col_cnt[x] > 0))
				return err_set(err,
					       "path template: group "
					       "%u: bad link entry",
					       g);
	}
	return 0;
}
