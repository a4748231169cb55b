/* model_tpl.c - the one place a path template (mcf_tpl.h) is solved for a
 * model: mcf and ugal0 .. ugal5 come here.
 *
 * The engine is the caller's choice (struct model_opts): GLPK's simplex
 * (exact), the certified first-order solver of mcf_fast.c (an interval
 * [alpha, bound] at most opts->gap apart, relatively), or by size: exact
 * up to MODEL_EXACT_NONZEROS non-zeros, where the simplex is fast, the
 * first-order solver beyond.  Either way the result reports alpha (a
 * feasible concurrent rate: the lower end), the certified bound, the gap
 * between them and the solver's name; a time limit keeps the bounds known
 * when it struck (GLPK: 0 and infinity). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

uint64_t model_tpl_nonzeros(const struct mcf_tpl *p)
{
	/* M's entries, the mult of each group in its flow row, alpha's
	 * coefficient in every flow row */
	return (uint64_t)p->col_off[p->ngroups] + p->ngroups + p->nflows;
}

/* LP rows: the links some group crosses, and one per flow (every link
 * for a factored template, whose operator's links are not listed). */
static uint32_t lp_rows(const struct mcf_tpl *p)
{
	uint8_t *seen = calloc(p->nlinks ? p->nlinks : 1, 1);
	uint32_t rows = p->nflows;

	if (p->op) {
		free(seen);
		return p->nflows + p->nlinks;
	}
	if (!seen)
		return 0;
	for (uint32_t e = 0; e < p->col_off[p->ngroups]; e++) {
		rows += !seen[p->col_link[e]];
		seen[p->col_link[e]] = 1;
	}
	free(seen);
	return rows;
}

static int to_status(enum mcf_tpl_status st)
{
	switch (st) {
	case MCF_TPL_OPTIMAL:
		return MODEL_OPTIMAL;
	case MCF_TPL_TIME_LIMIT:
		return MODEL_TIME_LIMIT;
	case MCF_TPL_INFEASIBLE:
		return MODEL_INFEASIBLE;
	default:
		return MODEL_FAILED;
	}
}

bool model_tpl_exact(const struct mcf_tpl *p, const struct model_opts *o)
{
	if (p->op) /* a factored template: the first-order solver only */
		return false;
	return o->engine == MODEL_ENGINE_EXACT ||
	       (o->engine == MODEL_ENGINE_AUTO &&
		model_tpl_nonzeros(p) <= MODEL_EXACT_NONZEROS);
}

int model_tpl_solve(const struct mcf_tpl *p, const struct model_opts *o,
		    struct model_result *res, double *x, struct err *err)
{
	struct mcf_tpl_opts to;
	struct mcf_tpl_result tr;
	int rc;

	mcf_tpl_opts_init(&to);
	to.time_limit_ms = o->time_limit_ms;
	to.gap = o->gap;
	memset(&tr, 0, sizeof(tr));
	tr.x = x;
	if (model_tpl_exact(p, o))
		rc = mcf_tpl_solve_glpk(p, &to, &tr, err);
	else
		rc = mcf_tpl_solve_fast(p, &to, &tr, err);
	if (rc)
		return -1;
	res->status = to_status(tr.status);
	res->solver = tr.solver;
	res->iterations = tr.iterations > UINT32_MAX ? UINT32_MAX :
						       (uint32_t)tr.iterations;
	res->variables = (uint64_t)p->ngroups + 1;
	res->lp_cols = p->ngroups + 1;
	res->lp_rows = lp_rows(p);
	res->lp_nonzeros = model_tpl_nonzeros(p);
	res->bound = tr.upper;
	if (res->status == MODEL_OPTIMAL || res->status == MODEL_TIME_LIMIT) {
		/* a time limit keeps the certified lower bound's rates */
		res->alpha = tr.lower;
		res->gap = tr.upper > tr.lower ?
				   (tr.lower > 0 ?
					    (tr.upper - tr.lower) / tr.lower :
					    INFINITY) :
				   0;
	} else {
		res->alpha = 0;
		res->gap = INFINITY;
		memset(x, 0, p->ngroups * sizeof(*x));
	}
	return 0;
}

void model_tpl_rates(const struct mcf_tpl *p, double alpha, double *x,
		     double *rates, double *load)
{
	for (uint32_t f = 0; f < p->nflows; f++) {
		double sum = 0, k, rate = alpha * p->demand[f];

		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			sum += p->mult[g] * x[g];
		k = sum > 0 && isfinite(rate) ? rate / sum : 0;
		rates[f] = sum > 0 ? rate : 0;
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++) {
			x[g] *= k;
			for (uint32_t e = p->col_off[g];
			     load && e < p->col_off[g + 1]; e++)
				load[p->col_link[e]] += p->col_cnt[e] * x[g];
		}
	}
	if (load && p->op)
		p->op->mul(p->op->ctx, x, load);
}
