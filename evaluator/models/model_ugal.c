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

static int run_model(unsigned model, const struct spec *s,
		     const struct routing *r, const struct flows *f,
		     const struct model_opts *o, struct model_result *res,
		     double *load, struct err *err)
{
	struct ugal_tpl tp;
	uint64_t limit = 0;
	double *x;
	int rc = 0;

	if (parse_limit(s, &limit, err) ||
	    ugal_tpl_build(r, f, model, limit, &tp, err))
		return -1;
	x = calloc((size_t)tp.lp.ngroups + 1, sizeof(*x));
	if (!x)
		rc = err_set(err, "out of memory (%u groups)", tp.lp.ngroups);
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
