/* model_lp.c - the LPs of MMF (paper 000 Sec. II-A, Fig. 1-2), its
 * hybrid method's reduced LP and the path-template MCF of mcf and the
 * UGAL models (mcf_tpl.h); the only file of the project that includes
 * <glpk.h>.
 *
 * The path-based LP of Fig. 2, with a level column t_d per flow so that
 * fixing a flow changes bounds only, never the matrix:
 *   columns     v_p >= 0 per path, t_d >= 0 per flow, alpha >= 0
 *   link rows   sum_{p crosses l} m_pl v_p <= C_l      (m_pl = crossings)
 *   flow rows   sum_{p of d} v_p - demand_d t_d = 0    (rate = level*demand)
 *   level rows  t_d - alpha >= 0    (unfixed flows; free once d is fixed)
 *   fixed flows t_d = gamma_d / demand_d (column bound GLP_FX)
 *   maximise alpha.
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
 * The hybrid MMF method (model_mmf.c) solves a smaller LP instead: the
 * multi-path flows' paths, one level column t and the links those paths
 * cross (struct model_mlp, below); the single-path flows are only t's
 * coefficients and the rows' bounds, which change between solves.
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
		return err_nomem(err, "out of memory (LP of %llu non-zeros)",
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
		    struct model_result *res, struct err *err)
{
	const struct model_input *in = lp->in;
	uint8_t *fixed = calloc((size_t)in->nflows + 1, 1);
	double *gamma = calloc((size_t)in->nflows + 1, sizeof(*gamma));
	uint32_t left = in->nflows, its = 0;
	int st = MODEL_OPTIMAL;

	if (!fixed || !gamma) {
		free(fixed);
		free(gamma);
		return err_nomem(err, "out of memory (mmf)");
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
	if (st == MODEL_OPTIMAL) {
		for (uint32_t i = 0; i < in->nflows; i++)
			model_settle(in, res, i, gamma[i]);
	} else {
		/* the last optimal LP's paths: feasible, fixed flows exact */
		sum_paths(in, res);
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
	       struct model_result *res, struct err *err)
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
		rc = mmf_loop(&lp, o, res, err);
	glp_error_hook(NULL, NULL);
	if (lp.P)
		glp_delete_prob(lp.P);
	return rc;
}

int model_lp_mmf(const struct model_input *in, const struct model_opts *o,
		 struct model_result *res, struct err *err)
{
	return run(in, o, res, err);
}

void model_thread_done(void)
{
	glp_free_env(); /* does nothing when the thread has none */
}

/* ---- the reduced LP of the hybrid MMF method (model_mmf.c) ----
 * The LP above restricted to the multi-path flows, plus the common level
 * t carrying the single-path flows.  Columns: x_p (1..npm, the multi-path
 * flows' paths, flow by flow), t_k (npm + 1 + k) and t (npm + nmulti +
 * 1).  Rows: the link rows (1..nrows),
 *   t W_r + sum_p m_pr x_p <= rhs_r,
 * the flow rows sum_{p of k} x_p - w_k t_k = 0 (nrows + 1 + k) and the
 * level rows t_k - t >= 0 (nrows + nmulti + 1 + k).  As above, fixing a
 * flow changes bounds only; the t column changes between solves (W_r
 * falls as single-path flows are fixed): glp_set_mat_col, the basis kept.
 * Every public function sets the error hook for its own calls. */
struct model_mlp {
	struct lp lp;
	uint32_t nrows, nmulti, npm;
	uint32_t *multi;	 /* [nmulti] flow ids */
	double *W, *rhs, *level; /* what GLPK holds now */
	int *ind;		 /* [nrows + nmulti + 1] t column buffer */
	double *val;
	int *tind; /* a simplex-table row */
	double *tval;
	bool dead; /* GLPK's environment was freed by an error */
};

void model_mlp_free(struct model_mlp *m)
{
	if (!m)
		return;
	if (m->lp.P && !m->dead)
		glp_delete_prob(m->lp.P);
	free(m->multi);
	free(m->W);
	free(m->rhs);
	free(m->level);
	free(m->ind);
	free(m->val);
	free(m->tind);
	free(m->tval);
	free(m);
}

static int mlp_tcol(const struct model_mlp *m)
{
	return (int)(m->npm + m->nmulti + 1);
}

static int mlp_level_row(const struct model_mlp *m, uint32_t k)
{
	return (int)(m->nrows + m->nmulti + 1 + k);
}

/* Load the t column from m->W (and -1 in every level row). */
static void mlp_set_t(struct model_mlp *m)
{
	int len = 0;

	for (uint32_t r = 0; r < m->nrows; r++)
		if (m->W[r] != 0) {
			len++;
			m->ind[len] = (int)r + 1;
			m->val[len] = m->W[r];
		}
	for (uint32_t k = 0; k < m->nmulti; k++) {
		len++;
		m->ind[len] = mlp_level_row(m, k);
		m->val[len] = -1.0;
	}
	glp_set_mat_col(m->lp.P, mlp_tcol(m), len, m->ind, m->val);
}

/* Matrix of the x and t_k columns: merged crossings per link row, the
 * flow rows, the level rows.  ROW_OF maps a link to its row + 1 (0: none).  Returns the
 * number of entries written to ia/ja/ar (1-based) or -1 (a multi-path link
 * without a row: caller's bug). */
static long mlp_matrix(const struct model_mlp *m, const uint32_t *row_of,
		       int *ia, int *ja, double *ar, uint32_t *stamp,
		       uint32_t *at)
{
	const struct model_input *in = m->lp.in;
	long k = 0;
	int col = 0;

	for (uint32_t q = 0; q < m->nmulti; q++) {
		uint32_t i = m->multi[q];

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			col++;
			for (uint32_t e = in->path_off[p];
			     e < in->path_off[p + 1]; e++) {
				uint32_t r = row_of[in->links[e]];

				if (!r)
					return -1;
				if (stamp[r - 1] == (uint32_t)col) {
					ar[at[r - 1]] += 1.0;
					continue;
				}
				stamp[r - 1] = (uint32_t)col;
				k++;
				at[r - 1] = (uint32_t)k;
				ia[k] = (int)r;
				ja[k] = col;
				ar[k] = 1.0;
			}
			k++;
			ia[k] = (int)(m->nrows + 1 + q);
			ja[k] = col;
			ar[k] = 1.0;
		}
	}
	for (uint32_t q = 0; q < m->nmulti; q++) {
		int tk = (int)(m->npm + 1 + q);

		k++;
		ia[k] = (int)(m->nrows + 1 + q);
		ja[k] = tk;
		ar[k] = -model_demand(in, m->multi[q]);
		k++;
		ia[k] = mlp_level_row(m, q);
		ja[k] = tk;
		ar[k] = 1.0;
	}
	return k;
}

static int mlp_build(struct model_mlp *m, const uint32_t *row_link,
		     struct model_result *res, struct err *err)
{
	const struct model_input *in = m->lp.in;
	uint32_t *row_of = calloc((size_t)in->nlinks + 1, sizeof(*row_of));
	uint32_t *stamp = calloc((size_t)m->nrows + 1, sizeof(*stamp));
	uint32_t *at = calloc((size_t)m->nrows + 1, sizeof(*at));
	uint64_t nnz = (uint64_t)m->npm + 2ull * m->nmulti;
	int *ia = NULL, *ja = NULL;
	double *ar = NULL;
	long k;
	int rc = 0;

	for (uint32_t q = 0; q < m->nmulti; q++) {
		uint32_t i = m->multi[q];

		nnz += in->path_off[in->flow_off[i + 1]] -
		       in->path_off[in->flow_off[i]];
	}
	if ((uint64_t)m->nrows + 2ull * m->nmulti >= INT_MAX / 2 ||
	    (uint64_t)m->npm + m->nmulti >= INT_MAX / 2 || nnz >= INT_MAX / 2) {
		rc = err_set(err, "LP too large for GLPK (%llu non-zeros)",
			     (unsigned long long)nnz);
		goto out;
	}
	ia = malloc((nnz + 1) * sizeof(*ia));
	ja = malloc((nnz + 1) * sizeof(*ja));
	ar = malloc((nnz + 1) * sizeof(*ar));
	if (!row_of || !stamp || !at || !ia || !ja || !ar) {
		rc = err_nomem(err, "out of memory (LP of %llu non-zeros)",
			       (unsigned long long)nnz);
		goto out;
	}
	for (uint32_t r = 0; r < m->nrows; r++) {
		if (row_link[r] >= in->nlinks || row_of[row_link[r]]) {
			rc = err_set(err, "reduced LP: bad link row %u", r);
			goto out;
		}
		row_of[row_link[r]] = r + 1;
	}
	k = mlp_matrix(m, row_of, ia, ja, ar, stamp, at);
	if (k < 0) {
		rc = err_set(err, "reduced LP: a multi-path link has no row");
		goto out;
	}
	m->lp.P = glp_create_prob();
	glp_set_obj_dir(m->lp.P, GLP_MAX);
	glp_add_rows(m->lp.P, (int)(m->nrows + 2 * m->nmulti));
	glp_add_cols(m->lp.P, mlp_tcol(m));
	for (uint32_t r = 0; r < m->nrows; r++)
		glp_set_row_bnds(m->lp.P, (int)r + 1, GLP_UP, 0.0, m->rhs[r]);
	for (uint32_t q = 0; q < m->nmulti; q++) {
		glp_set_row_bnds(m->lp.P, (int)(m->nrows + 1 + q), GLP_FX, 0.0,
				 0.0);
		glp_set_row_bnds(m->lp.P, mlp_level_row(m, q), GLP_LO, 0.0,
				 0.0);
	}
	for (int c = 1; c <= mlp_tcol(m); c++)
		glp_set_col_bnds(m->lp.P, c, GLP_LO, 0.0, 0.0);
	glp_set_obj_coef(m->lp.P, mlp_tcol(m), 1.0);
	glp_load_matrix(m->lp.P, (int)k, ia, ja, ar);
	mlp_set_t(m);
	glp_scale_prob(m->lp.P, GLP_SF_AUTO);
	res->lp_rows = m->nrows + 2 * m->nmulti;
	res->lp_cols = (uint32_t)mlp_tcol(m);
	res->lp_nonzeros = (uint64_t)k + m->nmulti;
	for (uint32_t r = 0; r < m->nrows; r++)
		res->lp_nonzeros += m->W[r] != 0;
out:
	free(row_of);
	free(stamp);
	free(at);
	free(ia);
	free(ja);
	free(ar);
	return rc;
}

/* mlp_build under the error hook: 0, or -1 with err set (M->dead when
 * GLPK's environment is gone). */
static int mlp_guarded_build(struct model_mlp *m, const uint32_t *row_link,
			     struct model_result *res, struct err *err)
{
	jmp_buf jb;
	int rc;

	glp_term_out(GLP_OFF);
	if (setjmp(jb)) {
		glp_error_hook(NULL, NULL);
		glp_free_env();
		m->dead = true;
		return err_set(err, "GLPK internal error");
	}
	glp_error_hook(on_glpk_error, &jb);
	rc = mlp_build(m, row_link, res, err);
	glp_error_hook(NULL, NULL);
	return rc;
}

struct model_mlp *model_mlp_create(const struct model_input *in, uint32_t nrows,
				   const uint32_t *row_link, const double *W,
				   const double *rhs, uint32_t nmulti,
				   const uint32_t *multi, double deadline,
				   struct model_result *res, struct err *err)
{
	struct model_mlp *m = calloc(1, sizeof(*m));
	uint64_t npm = 0;

	if (!m) {
		err_nomem(err, "out of memory (reduced LP)");
		return NULL;
	}
	for (uint32_t q = 0; q < nmulti; q++)
		npm += in->flow_off[multi[q] + 1] - in->flow_off[multi[q]];
	m->lp.in = in;
	m->lp.deadline = deadline;
	m->nrows = nrows;
	m->nmulti = nmulti;
	m->npm = npm < UINT32_MAX ? (uint32_t)npm : UINT32_MAX;
	m->multi = malloc(((size_t)nmulti + 1) * sizeof(*m->multi));
	m->W = malloc(((size_t)nrows + 1) * sizeof(*m->W));
	m->rhs = malloc(((size_t)nrows + 1) * sizeof(*m->rhs));
	m->level = malloc(((size_t)nmulti + 1) * sizeof(*m->level));
	m->ind = malloc(((size_t)nrows + nmulti + 2) * sizeof(*m->ind));
	m->val = malloc(((size_t)nrows + nmulti + 2) * sizeof(*m->val));
	/* a simplex-table row: one entry per non-basic variable at most */
	m->tind = malloc(((size_t)nrows + 3 * (size_t)nmulti + m->npm + 2) *
			 sizeof(*m->tind));
	m->tval = malloc(((size_t)nrows + 3 * (size_t)nmulti + m->npm + 2) *
			 sizeof(*m->tval));
	if (!m->multi || !m->W || !m->rhs || !m->level || !m->ind || !m->val ||
	    !m->tind || !m->tval) {
		model_mlp_free(m);
		err_nomem(err, "out of memory (reduced LP)");
		return NULL;
	}
	if (nmulti)
		memcpy(m->multi, multi, nmulti * sizeof(*multi));
	for (uint32_t r = 0; r < nrows; r++) {
		m->W[r] = W[r];
		m->rhs[r] = rhs[r];
	}
	for (uint32_t q = 0; q < nmulti; q++)
		m->level[q] = -1;
	if (mlp_guarded_build(m, row_link, res, err)) {
		model_mlp_free(m);
		return NULL;
	}
	return m;
}

/* Load the new t column, keeping the basis non-singular: were t basic
 * and its new column a combination of the other basic columns, GLPK would
 * refuse the basis (GLP_ESING) and start from scratch.  The old basis'
 * row of t in the simplex table names the non-basic auxiliaries that can
 * replace t (non-zero pivot); the largest does if the new basis is
 * singular.  Then t enters again through the simplex. */
static void mlp_new_t(struct model_mlp *m)
{
	int tc = mlp_tcol(m), nrows = glp_get_num_rows(m->lp.P);
	int len, swap = 0;
	double best = 0;

	if (glp_get_col_stat(m->lp.P, tc) != GLP_BS ||
	    !glp_bf_exists(m->lp.P)) {
		mlp_set_t(m);
		return;
	}
	len = glp_eval_tab_row(m->lp.P, nrows + tc, m->tind, m->tval);
	for (int k = 1; k <= len; k++)
		if (m->tind[k] <= nrows && fabs(m->tval[k]) > best) {
			best = fabs(m->tval[k]);
			swap = m->tind[k];
		}
	mlp_set_t(m);
	if (swap && glp_factorize(m->lp.P) != 0) {
		glp_set_row_stat(m->lp.P, swap, GLP_BS);
		glp_set_col_stat(m->lp.P, tc, GLP_NL);
	}
}

/* Push the changed bounds and t coefficients to GLPK. */
static void mlp_update(struct model_mlp *m, const double *W, const double *rhs,
		       const double *level)
{
	bool tcol = false;

	for (uint32_t r = 0; r < m->nrows; r++) {
		if (rhs[r] != m->rhs[r]) {
			m->rhs[r] = rhs[r];
			glp_set_row_bnds(m->lp.P, (int)r + 1, GLP_UP, 0.0,
					 rhs[r]);
		}
		if (W[r] != m->W[r]) {
			m->W[r] = W[r];
			tcol = true;
		}
	}
	for (uint32_t q = 0; q < m->nmulti; q++) {
		int tk = (int)(m->npm + 1 + q);

		if (level[q] == m->level[q] ||
		    (level[q] < 0 && m->level[q] < 0))
			continue;
		if (level[q] < 0) {
			glp_set_col_bnds(m->lp.P, tk, GLP_LO, 0.0, 0.0);
			glp_set_row_bnds(m->lp.P, mlp_level_row(m, q), GLP_LO,
					 0.0, 0.0);
		} else {
			glp_set_col_bnds(m->lp.P, tk, GLP_FX, level[q],
					 level[q]);
			glp_set_row_bnds(m->lp.P, mlp_level_row(m, q), GLP_FR,
					 0.0, 0.0);
		}
		m->level[q] = level[q];
	}
	if (tcol)
		mlp_new_t(m);
}

/* Read the solution: t, link duals, level duals, paths. */
static double mlp_read(const struct model_mlp *m, double *y, double *lam,
		       double *path_rates)
{
	const struct model_input *in = m->lp.in;
	double t = glp_get_obj_val(m->lp.P);
	int col = 0;

	for (uint32_t r = 0; r < m->nrows; r++)
		y[r] = fabs(glp_get_row_dual(m->lp.P, (int)r + 1));
	for (uint32_t q = 0; q < m->nmulti; q++) {
		uint32_t i = m->multi[q];

		lam[q] = m->level[q] < 0 ?
				 fabs(glp_get_row_dual(m->lp.P,
						       mlp_level_row(m, q))) :
				 0;
		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			double x = glp_get_col_prim(m->lp.P, ++col);

			path_rates[p] = x > 0 ? x : 0;
		}
	}
	return t > 0 ? t : 0;
}

int model_mlp_solve(struct model_mlp *m, const double *W, const double *rhs,
		    const double *level, struct model_mlp_sol *sol,
		    struct err *err)
{
	jmp_buf jb;

	if (m->dead)
		return err_set(err, "GLPK internal error (earlier)");
	if (setjmp(jb)) {
		glp_error_hook(NULL, NULL);
		glp_free_env();
		m->dead = true;
		return err_set(err, "GLPK internal error");
	}
	glp_error_hook(on_glpk_error, &jb);
	mlp_update(m, W, rhs, level);
	sol->status = solve(&m->lp);
	if (sol->status == MODEL_OPTIMAL)
		sol->t = mlp_read(m, sol->y, sol->lam, sol->path_rates);
	glp_error_hook(NULL, NULL);
	return 0;
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
		return err_nomem(err, "out of memory");
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
		return err_nomem(err, "out of memory (LP of %llu non-zeros)",
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
