/* model_ugal.c - paper 002's UGAL-G LP Models 0-5 (Sec. 3, Fig. 4-7,
 * Table 2) as the models ugal0 .. ugal5.
 *
 * Each builds the path template of its model from the dragonfly / Cascade
 * structure (ugal_tpl.h), solves it through solve_tpl and reports the
 * concurrent rate: every flow's rate is alpha * demand, as for mcf.  The
 * option limit= bounds the LP's columns before anything is built (Model 0
 * has one per MIN and VLB path). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"
#include "evaluator/models/ugal_tpl.h"

static const struct spec_opt opts[] = {
	{ .key = "limit",
	  .def = "2000000",
	  .help = "most LP variables to build (0: no limit)" },
	{ 0 },
};

/* The one place a UGAL template is solved: GLPK's simplex, exact.  A
 * solver returning a certified interval [lower, upper] plugs in here;
 * run_model reports alpha = lower, bound = upper. */
static int solve_tpl(const struct mcf_tpl *p, const struct model_opts *o,
		     struct mcf_tpl_result *tr, struct err *err)
{
	struct mcf_tpl_opts to;

	mcf_tpl_opts_init(&to);
	to.time_limit_ms = o->time_limit_ms;
	return mcf_tpl_solve_glpk(p, &to, tr, err);
}

static int parse_limit(const struct spec *s, uint64_t *limit, struct err *err)
{
	const char *v = spec_value(s, opts, "limit");
	char *end;
	unsigned long long x;

	errno = 0;
	x = v ? strtoull(v, &end, 10) : 0;
	if (!v || !*v || *end || errno || v[0] == '-' || v[0] == '+')
		return err_set(err, "limit=%s: want a number of variables",
			       v ? v : "");
	*limit = x;
	return 0;
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

/* Rates alpha * demand and link loads from the group rates X, each flow's
 * groups scaled to carry exactly its rate (x only ever shrinks, so the
 * loads stay within capacity). */
static void rates_loads(const struct mcf_tpl *p, double alpha, const double *x,
			struct model_result *res, double *load)
{
	for (uint32_t f = 0; f < p->nflows; f++) {
		double sum = 0, k;

		res->rates[f] = alpha * p->demand[f];
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			sum += p->mult[g] * x[g];
		k = sum > 0 ? res->rates[f] / sum : 0;
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			for (uint32_t e = p->col_off[g]; e < p->col_off[g + 1];
			     e++)
				load[p->col_link[e]] +=
					p->col_cnt[e] * x[g] * k;
	}
}

/* LP rows: the links some group crosses, and one per flow. */
static uint32_t lp_rows(const struct mcf_tpl *p)
{
	uint8_t *seen = calloc(p->nlinks ? p->nlinks : 1, 1);
	uint32_t rows = p->nflows;

	if (!seen)
		return 0;
	for (uint32_t e = 0; e < p->col_off[p->ngroups]; e++) {
		rows += !seen[p->col_link[e]];
		seen[p->col_link[e]] = 1;
	}
	free(seen);
	return rows;
}

static int run_model(unsigned model, const struct spec *s,
		     const struct routing *r, const struct flows *f,
		     const struct model_opts *o, struct model_result *res,
		     double *load, struct err *err)
{
	struct ugal_tpl tp;
	struct mcf_tpl_result tr;
	uint64_t limit = 0;
	double *x;

	if (parse_limit(s, &limit, err) ||
	    ugal_tpl_build(r, f, model, limit, &tp, err))
		return -1;
	x = calloc((size_t)tp.lp.ngroups + 1, sizeof(*x));
	if (!x) {
		ugal_tpl_free(&tp);
		return err_set(err, "out of memory (%u groups)", tp.lp.ngroups);
	}
	memset(&tr, 0, sizeof(tr));
	tr.x = x;
	if (solve_tpl(&tp.lp, o, &tr, err)) {
		free(x);
		ugal_tpl_free(&tp);
		return -1;
	}
	res->status = to_status(tr.status);
	res->solver = tr.solver;
	res->iterations = tr.iterations > UINT32_MAX ? UINT32_MAX :
						       (uint32_t)tr.iterations;
	res->variables = (uint64_t)tp.lp.ngroups + 1;
	res->lp_cols = tp.lp.ngroups + 1;
	res->lp_rows = lp_rows(&tp.lp);
	res->lp_nonzeros = (uint64_t)tp.lp.col_off[tp.lp.ngroups] +
			   tp.lp.ngroups + tp.lp.nflows;
	res->paths_total = (uint64_t)tp.paths;
	res->bound = tr.upper;
	if (res->status == MODEL_OPTIMAL || res->status == MODEL_TIME_LIMIT) {
		/* a time limit keeps the certified lower bound's rates */
		res->alpha = tr.lower;
		res->gap = tr.upper > tr.lower ?
				   (tr.lower > 0 ?
					    (tr.upper - tr.lower) / tr.lower :
					    INFINITY) :
				   0;
		rates_loads(&tp.lp, tr.lower, x, res, load);
	} else {
		res->alpha = 0;
		res->gap = INFINITY;
	}
	free(x);
	ugal_tpl_free(&tp);
	return 0;
}

/* One ops table per model: the model number is all that differs. */
#define UGAL_MODEL(k)                                                         \
	static int run_ugal##k(const struct spec *s, const struct routing *r, \
			       const struct flows *f,                         \
			       const struct model_opts *o,                    \
			       struct model_result *res, double *load,        \
			       struct err *err)                               \
	{                                                                     \
		return run_model(k, s, r, f, o, res, load, err);              \
	}                                                                     \
	const struct model_ops model_ugal##k = {                              \
		.name = "ugal" #k,                                            \
		.opts = opts,                                                 \
		.run = run_ugal##k,                                           \
		.applies = ugal_check,                                        \
	};

UGAL_MODEL(0)
UGAL_MODEL(1)
UGAL_MODEL(2)
UGAL_MODEL(3)
UGAL_MODEL(4)
UGAL_MODEL(5)
