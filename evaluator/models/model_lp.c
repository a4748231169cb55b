/* model_lp.c - the LP models, MCF and MMF (paper 000 Sec. II-A/B, Fig. 1-2);
 * the only file of the project that includes <glpk.h>.
 *
 * The path-based LP of Fig. 2, with a level column t_d per flow so that
 * fixing a flow changes bounds only, never the matrix:
 *   columns     v_p >= 0 per path, t_d >= 0 per flow, alpha >= 0
 *   link rows   sum_{p crosses l} m_pl v_p <= C_l      (m_pl = crossings)
 *   flow rows   sum_{p of d} v_p - demand_d t_d = 0    (rate = level*demand)
 *   level rows  t_d - alpha >= 0    (unfixed flows; free once d is fixed)
 *   fixed flows t_d = gamma_d / demand_d (column bound GLP_FX)
 *   maximise alpha.
 * MCF solves it once: rate_d = alpha * demand_d.
 *
 * MMF repeats it (Fig. 1): after each optimal LP with level alpha_k, the
 * flows whose level row has a non-zero dual value are saturated and fixed
 * at level alpha_k (gamma_d = alpha_k * demand_d).  Why this is exact:
 * with duals lambda_d >= 0 of the level rows, duality gives
 * sum_d lambda_d = 1 and, for every feasible point with the unfixed levels
 * t_d >= alpha_k, sum_d lambda_d (t_d - alpha_k) <= 0; so a flow with
 * lambda_d > 0 can never exceed level alpha_k: it is saturated (Nace et
 * al. 2008).  A saturated flow with a zero dual is not lost: the next LP
 * returns the same level and fixes it then.  Numerically "non-zero" is
 * |lambda_d| > opts->dual_tol (default 1e-9; the lambda_d sum to 1);
 * should no flow pass (rounding), the flow with the largest |lambda_d| is
 * fixed, so every LP fixes at least one flow.
 *
 * Warm start: fixing a flow only changes bounds, so the basis stays valid
 * and the primal simplex continues from the previous optimal basis (the
 * previous optimum is still feasible).  Should GLPK still refuse the basis,
 * the standard basis is used once.
 *
 * GLPK rules kept here: every index is checked before a glp_ call (GLPK
 * aborts on misuse), terminal output is off, an error hook turns a GLPK
 * internal error into a returned error instead of abort(), and
 * opts->time_limit_ms bounds the whole run (status MODEL_TIME_LIMIT). */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/mcf_tpl.h"
#include "evaluator/models/model_impl.h"

struct lp {
	const struct model_input *in;
	glp_prob *P;
	int nlinkrows;	 /* link rows are 1..nlinkrows */
	int alpha_col;	 /* npaths + nflows + 1 */
	double deadline; /* model_now() time, 0 = none */
};

/* Row and column numbers (1-based, GLPK's). */
static int flow_row(const struct lp *lp, uint32_t i)
{
	return lp->nlinkrows + 1 + (int)i;
}

static int level_row(const struct lp *lp, uint32_t i)
{
	return lp->nlinkrows + (int)lp->in->nflows + 1 + (int)i;
}

static int level_col(const struct lp *lp, uint32_t i)
{
	return (int)lp->in->npaths + 1 + (int)i;
}

/* Build the LP of IN (all flows unfixed).  Returns 0 or -1 with err. */
static int build(struct lp *lp, const struct model_input *in,
		 struct model_result *res, struct err *err)
{
	struct model_incid ic;
	uint64_t pairs = 0, nnz, nrows, ncols;
	int *ia = NULL, *ja = NULL;
	double *ar = NULL;
	int k = 0, row = 0;

	if (model_incid_build(in, &ic, err))
		return -1;
	for (uint32_t l = 0; l < in->nlinks; l++) {
		if (ic.off[l] == ic.off[l + 1])
			continue;
		lp->nlinkrows++;
		for (uint32_t x = ic.off[l]; x < ic.off[l + 1]; x++)
			pairs += x == ic.off[l] || ic.path[x] != ic.path[x - 1];
	}
	nnz = pairs + in->npaths + 3ull * in->nflows;
	nrows = (uint64_t)lp->nlinkrows + 2ull * in->nflows;
	ncols = (uint64_t)in->npaths + in->nflows + 1;
	if (nrows >= INT_MAX / 2 || ncols >= INT_MAX / 2 ||
	    nnz >= INT_MAX / 2) {
		model_incid_free(&ic);
		return err_set(err,
			       "LP too large for GLPK (%u paths, %llu "
			       "non-zeros)",
			       in->npaths, (unsigned long long)nnz);
	}
	ia = malloc((nnz + 1) * sizeof(*ia));
	ja = malloc((nnz + 1) * sizeof(*ja));
	ar = malloc((nnz + 1) * sizeof(*ar));
	if (!ia || !ja || !ar) {
		free(ia);
		free(ja);
		free(ar);
		model_incid_free(&ic);
		return err_set(err, "out of memory (LP of %llu non-zeros)",
			       (unsigned long long)nnz);
	}
	lp->alpha_col = (int)ncols;
	lp->P = glp_create_prob();
	glp_set_obj_dir(lp->P, GLP_MAX);
	glp_add_rows(lp->P, (int)nrows);
	glp_add_cols(lp->P, (int)ncols);
	/* link rows: merged crossings of each path */
	for (uint32_t l = 0; l < in->nlinks; l++) {
		if (ic.off[l] == ic.off[l + 1])
			continue;
		row++;
		glp_set_row_bnds(lp->P, row, GLP_UP, 0.0, in->cap[l]);
		for (uint32_t x = ic.off[l]; x < ic.off[l + 1]; x++) {
			if (x > ic.off[l] && ic.path[x] == ic.path[x - 1]) {
				ar[k] += 1.0;
				continue;
			}
			k++;
			ia[k] = row;
			ja[k] = (int)ic.path[x] + 1;
			ar[k] = 1.0;
		}
	}
	model_incid_free(&ic);
	for (uint32_t i = 0; i < in->nflows; i++) {
		int r = flow_row(lp, i), g = level_row(lp, i);

		/* sum of paths - demand * level = 0 */
		glp_set_row_bnds(lp->P, r, GLP_FX, 0.0, 0.0);
		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			k++;
			ia[k] = r;
			ja[k] = (int)p + 1;
			ar[k] = 1.0;
		}
		k++;
		ia[k] = r;
		ja[k] = level_col(lp, i);
		ar[k] = -model_demand(in, i);
		/* level - alpha >= 0 */
		glp_set_row_bnds(lp->P, g, GLP_LO, 0.0, 0.0);
		k++;
		ia[k] = g;
		ja[k] = level_col(lp, i);
		ar[k] = 1.0;
		k++;
		ia[k] = g;
		ja[k] = lp->alpha_col;
		ar[k] = -1.0;
	}
	for (int c = 1; c <= lp->alpha_col; c++)
		glp_set_col_bnds(lp->P, c, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(lp->P, lp->alpha_col, 1.0);
	glp_load_matrix(lp->P, k, ia, ja, ar);
	glp_scale_prob(lp->P, GLP_SF_AUTO);
	res->lp_rows = (uint32_t)nrows;
	res->lp_cols = (uint32_t)ncols;
	res->lp_nonzeros = (uint64_t)k;
	free(ia);
	free(ja);
	free(ar);
	return 0;
}

/* Solve from the current basis.  Returns an enum model_status. */
static int solve(struct lp *lp)
{
	glp_smcp parm;
	int ret;

	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	parm.presolve = GLP_OFF;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (lp->deadline > 0) {
			double ms = (lp->deadline - model_now()) * 1e3;

			if (ms < 1)
				return MODEL_TIME_LIMIT;
			parm.tm_lim = ms > INT_MAX ? INT_MAX : (int)ms;
		}
		ret = glp_simplex(lp->P, &parm);
		if (attempt == 0 && (ret == GLP_EBADB || ret == GLP_ESING ||
				     ret == GLP_ECOND || ret == GLP_EFAIL)) {
			glp_std_basis(lp->P);
			continue;
		}
		break;
	}
	if (ret == GLP_ETMLIM)
		return MODEL_TIME_LIMIT;
	if (ret != 0)
		return MODEL_FAILED;
	switch (glp_get_status(lp->P)) {
	case GLP_OPT:
		return MODEL_OPTIMAL;
	case GLP_NOFEAS:
	case GLP_INFEAS:
		return MODEL_INFEASIBLE;
	default:
		return MODEL_FAILED;
	}
}

/* Copy the path values of the current solution (clamped at 0). */
static void read_paths(const struct lp *lp, double *v)
{
	for (uint32_t p = 0; p < lp->in->npaths; p++) {
		double x = glp_get_col_prim(lp->P, (int)p + 1);

		v[p] = x > 0 ? x : 0;
	}
}

/* Set flow I's rate to TARGET and scale its paths to sum to it. */
static void settle(const struct model_input *in, struct model_result *res,
		   uint32_t i, double target)
{
	double s = 0;

	for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
		s += res->path_rates[p];
	for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
		res->path_rates[p] = s > 0 ? res->path_rates[p] * target / s :
					     0;
	res->rates[i] = s > 0 ? target : 0;
}

static void sum_paths(const struct model_input *in, struct model_result *res)
{
	for (uint32_t i = 0; i < in->nflows; i++) {
		double s = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1]; p++)
			s += res->path_rates[p];
		res->rates[i] = s;
	}
}

/* Fix flow I at level A: bounds only, the basis stays valid. */
static void fix_flow(struct lp *lp, uint32_t i, double a)
{
	glp_set_col_bnds(lp->P, level_col(lp, i), GLP_FX, a, a);
	glp_set_row_bnds(lp->P, level_row(lp, i), GLP_FR, 0.0, 0.0);
}

static int mmf_loop(struct lp *lp, const struct model_opts *o,
		    struct model_result *res, struct err *err, int mmf)
{
	const struct model_input *in = lp->in;
	uint8_t *fixed = calloc((size_t)in->nflows + 1, 1);
	double *gamma = calloc((size_t)in->nflows + 1, sizeof(*gamma));
	uint32_t left = in->nflows, its = 0;
	int st = MODEL_OPTIMAL;

	if (!fixed || !gamma) {
		free(fixed);
		free(gamma);
		return err_set(err, "out of memory (mmf)");
	}
	while (left) {
		double a, best = -1;
		uint32_t nfix = 0, bi = 0;

		st = solve(lp);
		if (st != MODEL_OPTIMAL)
			break;
		its++;
		a = glp_get_obj_val(lp->P);
		if (a < 0)
			a = 0;
		read_paths(lp, res->path_rates);
		if (its == 1)
			res->alpha = a;
		if (!mmf) {
			for (uint32_t i = 0; i < in->nflows; i++)
				settle(in, res, i, a * model_demand(in, i));
			break;
		}
		for (uint32_t i = 0; i < in->nflows; i++) {
			double s;

			if (fixed[i])
				continue;
			s = fabs(glp_get_row_dual(lp->P, level_row(lp, i)));
			if (s > best) {
				best = s;
				bi = i;
			}
			if (s > o->dual_tol) {
				fixed[i] = 2; /* fixed in this round */
				nfix++;
			}
		}
		if (!nfix) {
			fixed[bi] = 2;
			nfix = 1;
		}
		for (uint32_t i = 0; i < in->nflows; i++)
			if (fixed[i] == 2) {
				fixed[i] = 1;
				gamma[i] = a * model_demand(in, i);
				fix_flow(lp, i, a);
			}
		left -= nfix;
	}
	res->iterations = its;
	res->status = st;
	if (mmf && st == MODEL_OPTIMAL) {
		for (uint32_t i = 0; i < in->nflows; i++)
			settle(in, res, i, gamma[i]);
	} else if (mmf) {
		/* the last optimal LP's paths: feasible, fixed flows exact */
		sum_paths(in, res);
	} else if (st != MODEL_OPTIMAL) {
		memset(res->path_rates, 0, in->npaths * sizeof(double));
		memset(res->rates, 0, in->nflows * sizeof(double));
		res->alpha = 0;
	}
	free(fixed);
	free(gamma);
	return 0;
}

static void on_glpk_error(void *info)
{
	longjmp(*(jmp_buf *)info, 1);
}

static int run(const struct model_input *in, const struct model_opts *o,
	       struct model_result *res, struct err *err, int mmf)
{
	struct lp lp;
	jmp_buf jb;
	int rc;

	memset(&lp, 0, sizeof(lp));
	lp.in = in;
	if (o->time_limit_ms)
		lp.deadline = model_now() + o->time_limit_ms * 1e-3;
	if (in->nflows == 0) {
		res->status = MODEL_OPTIMAL;
		return 0;
	}
	glp_term_out(GLP_OFF);
	if (setjmp(jb)) {
		/* GLPK hit an internal error: its environment (and lp.P) is
		 * gone; report instead of aborting */
		glp_error_hook(NULL, NULL);
		glp_free_env();
		return err_set(err, "GLPK internal error");
	}
	glp_error_hook(on_glpk_error, &jb);
	rc = build(&lp, in, res, err);
	if (!rc)
		rc = mmf_loop(&lp, o, res, err, mmf);
	glp_error_hook(NULL, NULL);
	if (lp.P)
		glp_delete_prob(lp.P);
	return rc;
}

int model_lp_mcf(const struct model_input *in, const struct model_opts *o,
		 struct model_result *res, struct err *err)
{
	return run(in, o, res, err, 0);
}

int model_lp_mmf(const struct model_input *in, const struct model_opts *o,
		 struct model_result *res, struct err *err)
{
	return run(in, o, res, err, 1);
}

void model_thread_done(void)
{
	glp_free_env(); /* does nothing when the thread has none */
}

/* ---- maximum concurrent flow over path templates (mcf_tpl.h) ----
 * Columns x_g (g = 1..ngroups) and alpha (ngroups + 1); rows: the links
 * some group crosses (<= C_e), then one row per flow
 * sum_g mult_g x_g - w_f alpha >= 0. */

static int tpl_build(glp_prob *P, const struct mcf_tpl *p, struct err *err)
{
	uint32_t *row_of = calloc(p->nlinks ? p->nlinks : 1, sizeof(*row_of));
	uint64_t nnz =
		(uint64_t)p->col_off[p->ngroups] + p->ngroups + p->nflows;
	int *ia = NULL, *ja = NULL, nrows = 0, k = 0;
	double *ar = NULL;

	if (!row_of)
		return err_set(err, "out of memory");
	for (uint32_t x = 0; x < p->col_off[p->ngroups]; x++)
		if (!row_of[p->col_link[x]])
			row_of[p->col_link[x]] = (uint32_t)++nrows;
	if ((uint64_t)nrows + p->nflows >= INT_MAX / 2 ||
	    p->ngroups >= INT_MAX / 2 || nnz >= INT_MAX / 2) {
		free(row_of);
		return err_set(err, "LP too large for GLPK (%llu non-zeros)",
			       (unsigned long long)nnz);
	}
	ia = malloc((nnz + 1) * sizeof(*ia));
	ja = malloc((nnz + 1) * sizeof(*ja));
	ar = malloc((nnz + 1) * sizeof(*ar));
	if (!ia || !ja || !ar) {
		free(ia);
		free(ja);
		free(ar);
		free(row_of);
		return err_set(err, "out of memory (LP of %llu non-zeros)",
			       (unsigned long long)nnz);
	}
	glp_set_obj_dir(P, GLP_MAX);
	glp_add_rows(P, nrows + (int)p->nflows);
	glp_add_cols(P, (int)p->ngroups + 1);
	for (uint32_t e = 0; e < p->nlinks; e++)
		if (row_of[e])
			glp_set_row_bnds(P, (int)row_of[e], GLP_UP, 0.0,
					 p->cap[e]);
	for (uint32_t g = 0; g < p->ngroups; g++) {
		glp_set_col_bnds(P, (int)g + 1, GLP_LO, 0.0, 0.0);
		for (uint32_t x = p->col_off[g]; x < p->col_off[g + 1]; x++) {
			k++;
			ia[k] = (int)row_of[p->col_link[x]];
			ja[k] = (int)g + 1;
			ar[k] = p->col_cnt[x];
		}
	}
	glp_set_col_bnds(P, (int)p->ngroups + 1, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(P, (int)p->ngroups + 1, 1.0);
	for (uint32_t f = 0; f < p->nflows; f++) {
		int r = nrows + 1 + (int)f;

		glp_set_row_bnds(P, r, GLP_LO, 0.0, 0.0);
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++) {
			k++;
			ia[k] = r;
			ja[k] = (int)g + 1;
			ar[k] = p->mult[g];
		}
		k++;
		ia[k] = r;
		ja[k] = (int)p->ngroups + 1;
		ar[k] = -p->demand[f];
	}
	glp_load_matrix(P, k, ia, ja, ar);
	glp_scale_prob(P, GLP_SF_AUTO);
	free(ia);
	free(ja);
	free(ar);
	free(row_of);
	return 0;
}

int mcf_tpl_solve_glpk(const struct mcf_tpl *p, const struct mcf_tpl_opts *o,
		       struct mcf_tpl_result *res, struct err *err)
{
	struct lp lp;
	jmp_buf jb;
	volatile int rc = 0;
	int st;

	if (mcf_tpl_check(p, err))
		return -1;
	if (p->op)
		return err_set(err, "GLPK needs the explicit template (no "
				    "factored operator)");
	memset(&lp, 0, sizeof(lp));
	if (o && o->time_limit_ms)
		lp.deadline = model_now() + o->time_limit_ms * 1e-3;
	res->solver = "glpk";
	res->iterations = 0;
	res->alpha = res->lower = 0;
	res->upper = INFINITY;
	if (p->nflows == 0) {
		res->status = MCF_TPL_OPTIMAL;
		res->upper = 0;
		return 0;
	}
	glp_term_out(GLP_OFF);
	if (setjmp(jb)) {
		glp_error_hook(NULL, NULL);
		glp_free_env();
		return err_set(err, "GLPK internal error");
	}
	glp_error_hook(on_glpk_error, &jb);
	lp.P = glp_create_prob();
	if (tpl_build(lp.P, p, err)) {
		rc = -1;
		goto out;
	}
	st = solve(&lp);
	res->status = st == MODEL_OPTIMAL    ? MCF_TPL_OPTIMAL :
		      st == MODEL_TIME_LIMIT ? MCF_TPL_TIME_LIMIT :
		      st == MODEL_INFEASIBLE ? MCF_TPL_INFEASIBLE :
					       MCF_TPL_FAILED;
	res->iterations = (uint64_t)glp_get_it_cnt(lp.P);
	if (res->status == MCF_TPL_OPTIMAL) {
		double a = glp_get_obj_val(lp.P);

		res->alpha = res->lower = res->upper = a > 0 ? a : 0;
		for (uint32_t g = 0; res->x && g < p->ngroups; g++) {
			double v = glp_get_col_prim(lp.P, (int)g + 1);

			res->x[g] = v > 0 ? v : 0;
		}
	} else if (res->x) {
		memset(res->x, 0, p->ngroups * sizeof(*res->x));
	}
out:
	glp_error_hook(NULL, NULL);
	glp_delete_prob(lp.P);
	return rc;
}
