/* model_ugal.c - paper 002's UGAL-G LP Models 0-5 (Sec. 3, Fig. 4-7,
 * Table 2) as the models ugal0 .. ugal5.
 *
 * Each builds the path template of its model from the dragonfly / Cascade
 * structure (ugal_tpl.h), solves it with model_tpl_solve (exact or
 * certified, model_tpl.c) and reports the concurrent rate: every flow's rate is alpha * demand, as for mcf.  The
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
	{ .key = "form",
	  .def = "auto",
	  .help = "the template's VLB columns: explicit, factored (an\n"
		  "operator; first-order solver only) or auto (factored\n"
		  "above 20 million non-zeros)" },
	{ 0 },
};

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

/* Whether to build Model MODEL's template for F factored (ugal_tpl.h):
 * when it is not to be solved exactly and its explicit form would have
 * more than UGAL_FACTORED_NNZ non-zeros, estimated from the first
 * UGAL_SAMPLE flows' (a Cascade permutation: ~59 million, built in 13 s;
 * a dragonfly's VLB columns are sparse: 2.8 million on
 * dragonfly:p=5,a=10,h=5,g=51, where the explicit products are ~10x
 * faster than the factored ones). */
#define UGAL_FACTORED_NNZ 20000000
#define UGAL_SAMPLE 16
static int want_factored(const struct spec *s, const struct routing *r,
			 const struct flows *f, unsigned model,
			 const struct model_opts *o, bool *yes, struct err *err)
{
	const char *form = spec_value(s, opts, "form");
	struct flows sub;
	struct ugal_tpl tp;
	uint32_t k = f->n < UGAL_SAMPLE ? f->n : UGAL_SAMPLE;
	double est;

	*yes = false;
	if (!strcmp(form, "factored")) {
		if (o->engine == MODEL_ENGINE_EXACT)
			return err_set(err, "form=factored: GLPK (--exact) "
					    "needs the explicit template");
		*yes = model != 0;
		return 0;
	}
	if (strcmp(form, "auto") && strcmp(form, "explicit"))
		return err_set(err, "form=%s: want explicit, factored or auto",
			       form);
	if (!strcmp(form, "explicit") || model == 0 ||
	    o->engine == MODEL_ENGINE_EXACT || k == 0)
		return 0;
	flows_init(&sub);
	for (uint32_t i = 0; i < k; i++)
		if (flows_add(&sub, f->src[i], f->dst[i], f->demand[i])) {
			flows_free(&sub);
			return err_nomem(err, "out of memory (flow sample)");
		}
	if (ugal_tpl_build(r, &sub, model, 0, &tp, err)) {
		flows_free(&sub);
		return -1;
	}
	est = (double)tp.lp.col_off[tp.lp.ngroups] * f->n / k;
	*yes = est > UGAL_FACTORED_NNZ;
	ugal_tpl_free(&tp);
	flows_free(&sub);
	return 0;
}

static int run_model(unsigned model, const struct spec *s,
		     const struct routing *r, const struct flows *f,
		     const struct model_opts *o, struct model_result *res,
		     double *load, struct err *err)
{
	struct ugal_tpl tp;
	uint64_t limit = 0;
	bool factored;
	double *x;
	int rc = 0;

	if (parse_limit(s, &limit, err))
		return -1;
	if (want_factored(s, r, f, model, o, &factored, err) ||
	    (factored ? ugal_tpl_build_factored(r, f, model, limit, &tp, err) :
			ugal_tpl_build(r, f, model, limit, &tp, err)))
		return -1;
	x = calloc((size_t)tp.lp.ngroups + 1, sizeof(*x));
	if (!x)
		rc = err_nomem(err, "out of memory (%u groups)", tp.lp.ngroups);
	else if (model_tpl_solve(&tp.lp, o, res, x, err))
		rc = -1;
	if (!rc) {
		res->paths_total = (uint64_t)tp.paths;
		model_tpl_rates(&tp.lp, res->alpha, x, res->rates, load);
	}
	free(x);
	ugal_tpl_free(&tp);
	return rc;
}

/* The options' values, when the spec is read (not first at a run). */
static int check_ugal(const struct spec *s, struct err *err)
{
	const char *form = spec_value(s, opts, "form");
	uint64_t limit;

	if (parse_limit(s, &limit, err))
		return -1;
	if (strcmp(form, "auto") && strcmp(form, "explicit") &&
	    strcmp(form, "factored"))
		return err_set(err, "form=%s: want explicit, factored or auto",
			       form);
	return 0;
}

/* One ops table per model: the model number is all that differs. */
#define UGAL_MODEL(k)                                                         \
	static int run_ugal##k(const struct spec *s, const struct routing *r, \
			       const struct flows *f,                         \
			       const struct model_opts *o,                    \
			       struct model_result *res, double *load,        \
			       double *cap, struct err *err)                  \
	{                                                                     \
		(void)cap;                                                    \
		return run_model(k, s, r, f, o, res, load, err);              \
	}                                                                     \
	const struct model_ops model_ugal##k = {                              \
		.name = "ugal" #k,                                            \
		.opts = opts,                                                 \
		.check = check_ugal,                                          \
		.run = run_ugal##k,                                           \
		.applies = ugal_check,                                        \
	};

UGAL_MODEL(0)
UGAL_MODEL(1)
UGAL_MODEL(2)
UGAL_MODEL(3)
UGAL_MODEL(4)
UGAL_MODEL(5)
