/* mcf_fast.c - path-template MCF (mcf_tpl.h) by a first-order method that
 * returns a certified interval: restarted Halpern PDHG with reflection
 * (r2HPDHG: Lu & Yang, "Restarted Halpern PDHG for Linear Programming",
 * arXiv 2407.16144) on the min-congestion saddle point, the method that won
 * in ../shared/notes/ugal-solver.md.  Plain C, no LP library.
 *
 * Form.  With z_g = mult_g x_g (the rate of group g over all its paths)
 * and A[e,g] = M[e,g] / mult_g, route every flow's demand exactly:
 *     Z = { z >= 0 : sum_{g of f} z_g = w_f for every flow f },
 *     Y = { y >= 0 : sum_e C_e y_e = 1 },
 *     lambda* = min_{z in Z} max_{y in Y} y'Az,   alpha* = 1 / lambda*.
 * max_{y in Y} y'Az = max_e (Az)_e / C_e is the congestion of z, and
 * min_{z in Z} y'Az = sum_f w_f min_{g of f} (A'y)_g =: phi(y).
 *
 * Bounds.  Both are certificates, and the returned pair is re-evaluated in
 * double on the input's M, so no rounding of the iteration leaks in.
 *   lower  For any z >= 0, x_g = z_g / (mult_g s), s = max_e (Az)_e / C_e,
 *          is feasible and carries min_f (sum_{g of f} z_g / w_f) / s.
 *   upper  For any y >= 0 on the links, with d_f(y) = min_{g of f} (A'y)_g,
 *              alpha* <= U(y) = sum_e C_e y_e / sum_f w_f d_f(y).
 *          Proof (weak duality): a feasible (x, alpha) with z = mult x has
 *              sum_e C_e y_e >= y'Az = sum_g z_g (A'y)_g
 *                  >= sum_f d_f(y) sum_{g of f} z_g
 *                  >= alpha sum_f w_f d_f(y).
 *          res->y returns that y, so a caller can check upper without
 *          trusting this file (tests/unit/test_mcf_fast.c does).
 * Each step evaluates 1 / lambda(zt) and 1 / phi(yt) from the products it
 * computes anyway; the best z and y are kept, and once their gap is below
 * the one asked they are certified in double (a miss, which float rounding
 * could cause, halves the internal target and goes on).
 *
 * Iteration (primal z, dual y; T = eta diag(1/colsum A) / omega and
 * S = eta diag(1/rowsum A) omega: Pock-Chambolle diagonal
 * preconditioning, with eta from a power method so that ||S^1/2 A T^1/2||
 * < 1 on the directions z moves in (step_scale()):
 *     zt = Proj_Z^T(z - T A'y)             per flow: a weighted simplex
 *     yt = Proj_Y^S(y + S A(2 zt - z))     one threshold over the links
 * Halpern with reflection (rho = 1):
 *     (z, y) <- k/(k+1) (2 (zt, yt) - (z, y)) + 1/(k+1) (z0, y0)
 * keeps A z and A'y by linearity, so a step costs two products.  Restart at
 * (zt, yt) (new anchor, k = 0) when the fixed-point residual r of the step,
 * in the metric of T and S, falls to 0.2 of the epoch's first, or to 0.8
 * of it and grows, or when the epoch is 36 % of all steps; at a restart the
 * primal weight omega moves halfway (geometrically) towards the ratio of
 * the dual to the primal distance covered since the last restart (with
 * safeguards: new_omega).  Start: uniform split per flow, y = 1 / sum C,
 * omega = ||y||_S / ||z||_T.
 *
 * Cost.  A is stored twice (columns and rows) in single precision.  Both
 * iterates are sparse near the optimum (on dragonfly Model 3 a quarter of
 * the groups carry flow and a fifth of the links have a price), so A z
 * skips the zero columns and A'y runs over the priced rows when they hold
 * less than half of A.  The projections are exact, by Newton's method on a
 * piecewise-linear threshold (threshold()).
 *
 * Input the iteration never sees: a group crossing a 0-capacity link
 * carries nothing (x_g = 0), and in U(y) such links get a price high enough
 * that it never sets a minimum (they cost nothing in sum C y); a flow left
 * with no group (or with none at all) makes alpha* = 0, certified by y = 1
 * on the 0-capacity links; a flow with a group that crosses no link is free
 * (routed there, at alpha); links no remaining group crosses are no rows.
 * No flows: alpha = 0 (as mcf_tpl_solve_glpk); only free flows: alpha =
 * infinity. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/mcf_tpl.h"
#include "evaluator/models/model_impl.h"

#define ETA 0.99
/* Power-method steps of step_scale() (at least POWER_MIN, then until the
 * estimate settles), and its largest step scale. */
#define POWER_IT 20
#define POWER_MIN 8
#define ETA_MAX 10.0
/* The smallest gap asked: the iteration stores A in single precision. */
#define MIN_GAP 1e-6

/* The reduced problem and the iterates.  Columns are the groups of the
 * flows the iteration solves (blocked groups dropped), rows the links they
 * cross, in first-use order. */
struct fast {
	const struct mcf_tpl *p;
	uint32_t m, n, nf;
	uint32_t *grp;	/* [n] input group of each column */
	uint32_t *foff; /* [nf+1] columns of each flow */
	uint32_t *coff; /* [n+1] */
	uint32_t *crow; /* [nnz] */
	float *cval;	/* [nnz] A[e,g] = M[e,g] / mult_g */
	uint32_t *roff; /* [m+1] the same by rows (CSR) */
	uint32_t *rcol; /* [nnz] */
	float *rval;	/* [nnz] */
	uint32_t *link; /* [m] link of each row */
	uint32_t *idx;	/* workspace for thresholds */
	double eta;	/* step scale (step_scale()) */
	double *w;	/* [nf] demands */
	/* [n]: eta/colsum, colsum, iterate, step, anchor, last restart, best,
	 * A'y of iterate, step and anchor */
	double *tau, *wz, *z, *zt, *z0, *zr, *zb, *aty, *atyt, *aty0;
	/* [m]: eta C/rowsum, rowsum, C, the same for y, and A z */
	double *sc, *wy, *cap, *y, *yt, *y0, *yr, *yb, *az, *azt, *az0;
	double *mem;
	/* p->op only: input-sized scratch for its products */
	double *xfull, *lfull, *gfull;
};

static void fast_free(struct fast *F)
{
	free(F->grp);
	free(F->foff);
	free(F->coff);
	free(F->crow);
	free(F->cval);
	free(F->roff);
	free(F->rcol);
	free(F->rval);
	free(F->link);
	free(F->idx);
	free(F->w);
	free(F->mem);
	free(F->xfull);
	free(F->lfull);
	free(F->gfull);
}

/* Group states before the iteration. */
enum { G_LIVE = 0, G_DEAD = 1 };
/* Flow states. */
enum { F_LIVE = 0, F_BLOCKED = 1, F_FREE = 2 };

/* Classify groups (dead: crosses a 0-capacity link) and flows into GS and
 * FS.  Returns the number of blocked flows. */
static uint32_t classify(const struct mcf_tpl *p, uint8_t *gs, uint8_t *fs,
			 uint32_t *nlive, double *gw, double *lw)
{
	uint32_t blocked = 0;

	*nlive = 0;
	for (uint32_t g = 0; g < p->ngroups; g++) {
		gs[g] = G_LIVE;
		for (uint32_t x = p->col_off[g]; x < p->col_off[g + 1]; x++)
			if (p->cap[p->col_link[x]] <= 0)
				gs[g] = G_DEAD;
	}
	if (p->op) {
		/* crossings of 0-capacity links, then of any link */
		for (uint32_t e = 0; e < p->nlinks; e++)
			lw[e] = p->cap[e] <= 0;
		memset(gw, 0, p->ngroups * sizeof(*gw));
		p->op->mul_t(p->op->ctx, lw, gw);
		for (uint32_t g = 0; g < p->ngroups; g++)
			if (gw[g] > 0)
				gs[g] = G_DEAD;
		for (uint32_t e = 0; e < p->nlinks; e++)
			lw[e] = 1;
		memset(gw, 0, p->ngroups * sizeof(*gw));
		p->op->mul_t(p->op->ctx, lw, gw);
	}
	for (uint32_t f = 0; f < p->nflows; f++) {
		bool any = false, free_ = false;

		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			if (gs[g] == G_LIVE) {
				any = true;
				free_ |= p->col_off[g] == p->col_off[g + 1] &&
					 (!p->op || gw[g] == 0);
			}
		fs[f] = !any ? F_BLOCKED : free_ ? F_FREE : F_LIVE;
		blocked += fs[f] == F_BLOCKED;
		*nlive += fs[f] == F_LIVE;
	}
	return blocked;
}

/* The rows of A (CSR) from its columns.  Returns 0 or -1 (memory). */
static int transpose(struct fast *F, struct err *err)
{
	uint32_t nnz = F->coff[F->n];

	F->roff = calloc(F->m + 2, sizeof(*F->roff));
	F->rcol = malloc((nnz + 1) * sizeof(*F->rcol));
	F->rval = malloc((nnz + 1) * sizeof(*F->rval));
	if (!F->roff || !F->rcol || !F->rval)
		return err_nomem(err, "out of memory");
	for (uint32_t x = 0; x < nnz; x++)
		F->roff[F->crow[x] + 2]++;
	for (uint32_t e = 0; e < F->m; e++)
		F->roff[e + 2] += F->roff[e + 1];
	for (uint32_t g = 0; g < F->n; g++)
		for (uint32_t x = F->coff[g]; x < F->coff[g + 1]; x++) {
			uint32_t k = F->roff[F->crow[x] + 1]++;

			F->rcol[k] = g;
			F->rval[k] = F->cval[x];
		}
	return 0;
}

/* Build the reduced problem of the live flows.  Returns 0 or -1 (memory). */
static int build(struct fast *F, const struct mcf_tpl *p, const uint8_t *gs,
		 const uint8_t *fs, const double *gw, struct err *err)
{
	uint32_t *row_of = calloc(p->nlinks + 1, sizeof(*row_of));
	uint64_t nnz = 0;
	uint32_t n = 0, nf = 0, m = 0, maxg = 0;
	size_t nd;
	double *q;

	if (!row_of)
		return err_nomem(err, "out of memory");
	if (p->op) {
		F->xfull = calloc(p->ngroups + 1, sizeof(*F->xfull));
		F->lfull = calloc(p->nlinks + 1, sizeof(*F->lfull));
		F->gfull = calloc(p->ngroups + 1, sizeof(*F->gfull));
		if (!F->xfull || !F->lfull || !F->gfull) {
			free(row_of);
			return err_nomem(err, "out of memory");
		}
	}
	for (uint32_t f = 0; f < p->nflows; f++) {
		if (fs[f] != F_LIVE)
			continue;
		nf++;
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			if (gs[g] == G_LIVE) {
				n++;
				nnz += p->col_off[g + 1] - p->col_off[g];
			}
	}
	F->grp = malloc((n + 1) * sizeof(*F->grp));
	F->foff = malloc((nf + 1) * sizeof(*F->foff));
	F->coff = malloc((n + 1) * sizeof(*F->coff));
	F->crow = malloc((nnz + 1) * sizeof(*F->crow));
	F->cval = malloc((nnz + 1) * sizeof(*F->cval));
	F->link = malloc((p->nlinks + 1) * sizeof(*F->link));
	F->w = malloc((nf + 1) * sizeof(*F->w));
	if (!F->grp || !F->foff || !F->coff || !F->crow || !F->cval ||
	    !F->link || !F->w) {
		free(row_of);
		return err_nomem(err, "out of memory (%llu non-zeros)",
				 (unsigned long long)nnz);
	}
	F->p = p;
	n = nf = 0;
	nnz = 0;
	F->foff[0] = 0;
	F->coff[0] = 0;
	for (uint32_t f = 0; f < p->nflows; f++) {
		if (fs[f] != F_LIVE)
			continue;
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++) {
			if (gs[g] != G_LIVE)
				continue;
			for (uint32_t x = p->col_off[g]; x < p->col_off[g + 1];
			     x++) {
				uint32_t e = p->col_link[x];

				if (!row_of[e]) {
					F->link[m] = e;
					row_of[e] = ++m;
				}
				F->crow[nnz] = row_of[e] - 1;
				F->cval[nnz++] =
					(float)(p->col_cnt[x] / p->mult[g]);
			}
			F->grp[n++] = g;
			F->coff[n] = (uint32_t)nnz;
		}
		F->w[nf++] = p->demand[f];
		F->foff[nf] = n;
		if (F->foff[nf] - F->foff[nf - 1] > maxg)
			maxg = F->foff[nf] - F->foff[nf - 1];
	}
	if (p->op) {
		/* the links the operator's part of the columns crosses, and
		 * its part of the row sums of A (in lfull) */
		for (uint32_t j = 0; j < n; j++)
			F->xfull[F->grp[j]] = 1 / p->mult[F->grp[j]];
		p->op->mul(p->op->ctx, F->xfull, F->lfull);
		memset(F->xfull, 0, p->ngroups * sizeof(*F->xfull));
		for (uint32_t e = 0; e < p->nlinks; e++)
			if (F->lfull[e] > 0 && !row_of[e]) {
				F->link[m] = e;
				row_of[e] = ++m;
			}
	}
	free(row_of);
	F->n = n;
	F->m = m;
	F->nf = nf;
	F->idx = malloc(((m > maxg ? m : maxg) + 1) * sizeof(*F->idx));
	nd = 10 * (size_t)n + 11 * (size_t)m;
	F->mem = malloc((nd ? nd : 1) * sizeof(*F->mem));
	if (!F->idx || !F->mem)
		return err_nomem(err, "out of memory");
	q = F->mem;
	F->tau = q, q += n;
	F->wz = q, q += n;
	F->z = q, q += n;
	F->zt = q, q += n;
	F->z0 = q, q += n;
	F->zr = q, q += n;
	F->zb = q, q += n;
	F->aty = q, q += n;
	F->atyt = q, q += n;
	F->aty0 = q, q += n;
	F->sc = q, q += m;
	F->wy = q, q += m;
	F->cap = q, q += m;
	F->y = q, q += m;
	F->yt = q, q += m;
	F->y0 = q, q += m;
	F->yr = q, q += m;
	F->yb = q, q += m;
	F->az = q, q += m;
	F->azt = q, q += m;
	F->az0 = q;
	if (transpose(F, err))
		return -1;
	/* preconditioner: column and row sums of A (the operator's part
	 * of the column sums is in GW, see classify) */
	memset(F->wy, 0, m * sizeof(*F->wy));
	for (uint32_t e = 0; p->op && e < m; e++)
		F->wy[e] = F->lfull[F->link[e]];
	for (uint32_t g = 0; g < n; g++) {
		double s = p->op ? gw[F->grp[g]] / p->mult[F->grp[g]] : 0;

		for (uint32_t x = F->coff[g]; x < F->coff[g + 1]; x++) {
			s += F->cval[x];
			F->wy[F->crow[x]] += F->cval[x];
		}
		F->wz[g] = s;
	}
	for (uint32_t e = 0; e < m; e++)
		F->cap[e] = p->cap[F->link[e]];
	return 0;
}

/* out += the operator's part of A z. */
static void op_mul_a(const struct fast *F, const double *z, double *out)
{
	const struct mcf_tpl *p = F->p;

	for (uint32_t j = 0; j < F->n; j++)
		F->xfull[F->grp[j]] = z[j] / p->mult[F->grp[j]];
	memset(F->lfull, 0, p->nlinks * sizeof(*F->lfull));
	p->op->mul(p->op->ctx, F->xfull, F->lfull);
	for (uint32_t e = 0; e < F->m; e++)
		out[e] += F->lfull[F->link[e]];
}

/* out += the operator's part of A'y. */
static void op_mul_at(const struct fast *F, const double *y, double *out)
{
	const struct mcf_tpl *p = F->p;

	memset(F->lfull, 0, p->nlinks * sizeof(*F->lfull));
	for (uint32_t e = 0; e < F->m; e++)
		F->lfull[F->link[e]] = y[e];
	memset(F->gfull, 0, p->ngroups * sizeof(*F->gfull));
	p->op->mul_t(p->op->ctx, F->lfull, F->gfull);
	for (uint32_t j = 0; j < F->n; j++)
		out[j] += F->gfull[F->grp[j]] / p->mult[F->grp[j]];
}

/* out = A z, skipping the columns z leaves at 0. */
static void mul_a(const struct fast *F, const double *z, double *out)
{
	memset(out, 0, F->m * sizeof(*out));
	if (F->p->op)
		op_mul_a(F, z, out);
	for (uint32_t g = 0; g < F->n; g++) {
		double v = z[g];

		if (v == 0)
			continue;
		for (uint32_t x = F->coff[g]; x < F->coff[g + 1]; x++)
			out[F->crow[x]] += F->cval[x] * v;
	}
}

/* out = A'y: by rows when the rows y leaves at 0 hold most of A (the
 * optimal y prices the few bottleneck links: 30 % of A's non-zeros on
 * dragonfly Model 3), else by columns. */
static void mul_at(const struct fast *F, const double *y, double *out)
{
	uint64_t work = 0;

	for (uint32_t e = 0; e < F->m; e++)
		if (y[e] != 0)
			work += F->roff[e + 1] - F->roff[e];
	if (work < F->coff[F->n] / 2) {
		memset(out, 0, F->n * sizeof(*out));
		for (uint32_t e = 0; e < F->m; e++) {
			double v = y[e];

			if (v == 0)
				continue;
			for (uint32_t x = F->roff[e]; x < F->roff[e + 1]; x++)
				out[F->rcol[x]] += F->rval[x] * v;
		}
	} else {
		for (uint32_t g = 0; g < F->n; g++) {
			double s = 0;

			for (uint32_t x = F->coff[g]; x < F->coff[g + 1]; x++)
				s += F->cval[x] * y[F->crow[x]];
			out[g] = s;
		}
	}
	if (F->p->op)
		op_mul_at(F, y, out);
}

/* The nu with sum_i a_i max(0, u_i - c_i nu) = r, for a_i, c_i, r > 0
 * (A = NULL: every a_i = 1).  The left side is convex, decreasing and
 * piecewise linear in nu.  Newton's method started left of the root (at the
 * root of the line with every term active, which lies below it) stays left
 * of it, and each step solves the line of the current active set, which
 * only shrinks: exact after at most n steps, a handful in practice.  IDX
 * is workspace of n entries. */
static double threshold(uint32_t n, const double *u, const double *a,
			const double *c, double r, uint32_t *idx)
{
	double su = 0, sc = 0, nu;
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		double ai = a ? a[i] : 1;

		su += ai * u[i];
		sc += ai * c[i];
	}
	nu = (su - r) / sc;
	for (uint32_t i = 0; i < n; i++)
		if (u[i] > c[i] * nu)
			idx[k++] = i;
	while (k > 0) {
		uint32_t k2 = 0;

		su = sc = 0;
		for (uint32_t j = 0; j < k; j++) {
			uint32_t i = idx[j];
			double ai = a ? a[i] : 1;

			su += ai * u[i];
			sc += ai * c[i];
		}
		nu = (su - r) / sc;
		for (uint32_t j = 0; j < k; j++)
			if (u[idx[j]] > c[idx[j]] * nu)
				idx[k2++] = idx[j];
		if (k2 == k)
			break;
		k = k2;
	}
	return nu;
}

/* zt = Proj_Z(z - T A'y) in T's metric, flow by flow. */
static void project_z(struct fast *F, double omega)
{
	for (uint32_t f = 0; f < F->nf; f++) {
		uint32_t a = F->foff[f], k = F->foff[f + 1] - a;
		double *v = F->zt + a, mu;

		for (uint32_t g = a; g < a + k; g++)
			F->zt[g] = F->z[g] - F->tau[g] / omega * F->aty[g];
		if (k == 1) {
			v[0] = F->w[f];
			continue;
		}
		/* zt_g = max(0, v_g - (tau_g / omega) mu); solve for mu / omega */
		mu = threshold(k, v, NULL, F->tau + a, F->w[f], F->idx);
		for (uint32_t j = 0; j < k; j++) {
			double t = v[j] - F->tau[a + j] * mu;

			v[j] = t > 0 ? t : 0;
		}
	}
}

/* yt = Proj_Y(y + S A (2 zt - z)) in S's metric; returns sum_e C_e yt_e. */
static double project_y(struct fast *F, double omega)
{
	double nu, cy = 0;

	for (uint32_t e = 0; e < F->m; e++)
		F->yt[e] = F->y[e] + omega * F->eta / F->wy[e] *
					     (2 * F->azt[e] - F->az[e]);
	/* yt_e = max(0, u_e - s_e C_e nu), s_e C_e = omega sc_e */
	nu = threshold(F->m, F->yt, F->cap, F->sc, 1.0, F->idx);
	for (uint32_t e = 0; e < F->m; e++) {
		double t = F->yt[e] - F->sc[e] * nu;

		F->yt[e] = t > 0 ? t : 0;
		cy += F->cap[e] * F->yt[e];
	}
	return cy;
}

/* ---- certificates, in double on the input ---- */

/* Fill X (input groups) from the reduced Z scaled into the capacities and
 * return the alpha it carries: min over flows of sum mult x / w.  Blocked
 * groups get 0; a free flow gets alpha w_f on one free group. */
static double certify_lower(const struct fast *F, const double *z, double *x,
			    double *load, const uint8_t *gs, const uint8_t *fs)
{
	const struct mcf_tpl *p = F->p;
	double s = 0, alpha = INFINITY;

	memset(x, 0, p->ngroups * sizeof(*x));
	memset(load, 0, p->nlinks * sizeof(*load));
	for (uint32_t j = 0; j < F->n; j++)
		x[F->grp[j]] = z[j] / p->mult[F->grp[j]];
	for (uint32_t g = 0; g < p->ngroups; g++)
		for (uint32_t k = p->col_off[g];
		     x[g] > 0 && k < p->col_off[g + 1]; k++)
			load[p->col_link[k]] += p->col_cnt[k] * x[g];
	if (p->op)
		p->op->mul(p->op->ctx, x, load);
	for (uint32_t e = 0; e < p->nlinks; e++)
		if (load[e] > 0 && load[e] / p->cap[e] > s)
			s = load[e] / p->cap[e];
	for (uint32_t j = 0; s > 0 && j < F->n; j++)
		x[F->grp[j]] /= s;
	for (uint32_t f = 0; f < p->nflows; f++) {
		double r = 0;

		if (fs[f] != F_LIVE)
			continue;
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			r += p->mult[g] * x[g];
		if (r / p->demand[f] < alpha)
			alpha = r / p->demand[f];
	}
	for (uint32_t f = 0; f < p->nflows; f++) {
		if (fs[f] != F_FREE)
			continue;
		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			if (gs[g] == G_LIVE &&
			    p->col_off[g] == p->col_off[g + 1]) {
				x[g] = alpha * p->demand[f] / p->mult[g];
				break;
			}
	}
	return alpha;
}

/* U(y) = sum_e C_e y_e / sum_f w_f min_{g of f} (M'y)_g / mult_g, with an
 * empty minimum infinite (such a flow forces alpha = 0). */
static double certify_upper(const struct mcf_tpl *p, const double *y,
			    double *opy)
{
	double num = 0, den = 0;

	if (p->op) {
		memset(opy, 0, p->ngroups * sizeof(*opy));
		p->op->mul_t(p->op->ctx, y, opy);
	}
	for (uint32_t e = 0; e < p->nlinks; e++)
		num += p->cap[e] * y[e];
	for (uint32_t f = 0; f < p->nflows; f++) {
		double d = INFINITY;

		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++) {
			double s = 0;

			for (uint32_t k = p->col_off[g]; k < p->col_off[g + 1];
			     k++)
				s += p->col_cnt[k] * y[p->col_link[k]];
			if (p->op)
				s += opy[g];
			s /= p->mult[g];
			if (s < d)
				d = s;
		}
		den += p->demand[f] * d;
	}
	if (!(den > 0))
		return INFINITY;
	return num / den;
}

/* ---- the iteration ---- */

struct run {
	double lb, ub; /* best bounds seen (iteration's arithmetic) */
	uint64_t iter; /* steps taken */
	enum mcf_tpl_status status;
	double lower, upper; /* certified, of zb and yb */
};

/* Price the 0-capacity links (free in sum C y) so high that no group
 * crossing one is cheaper than the dearest usable group: then such groups
 * never set a flow's minimum in U(y). */
static void price_blocked(const struct mcf_tpl *p, double *y, const uint8_t *gs,
			  double *opy)
{
	double top = 0, q = 0;

	if (p->op) {
		memset(opy, 0, p->ngroups * sizeof(*opy));
		p->op->mul_t(p->op->ctx, y, opy);
	}
	for (uint32_t g = 0; g < p->ngroups; g++) {
		double s = p->op ? opy[g] : 0;

		/* a dead group's operator part crosses a 0-capacity link
		 * at least op->min_entry times (explicit part: below) */
		if (p->op && gs[g] == G_DEAD &&
		    p->mult[g] / p->op->min_entry > q)
			q = p->mult[g] / p->op->min_entry;

		for (uint32_t k = p->col_off[g]; k < p->col_off[g + 1]; k++) {
			s += p->col_cnt[k] * y[p->col_link[k]];
			if (gs[g] == G_DEAD && p->cap[p->col_link[k]] <= 0 &&
			    p->mult[g] / p->col_cnt[k] > q)
				q = p->mult[g] / p->col_cnt[k];
		}
		if (gs[g] == G_LIVE && s / p->mult[g] > top)
			top = s / p->mult[g];
	}
	for (uint32_t e = 0; e < p->nlinks; e++)
		if (p->cap[e] <= 0)
			y[e] = 2 * top * q;
}

/* Certify (zb, yb) into X and Y (input-sized) and RUN. */
static void certify(struct fast *F, struct run *R, double *x, double *y,
		    double *load, const uint8_t *gs, const uint8_t *fs)
{
	memset(y, 0, F->p->nlinks * sizeof(*y));
	for (uint32_t e = 0; e < F->m; e++)
		y[F->link[e]] = F->yb[e];
	price_blocked(F->p, y, gs, F->gfull);
	R->lower = certify_lower(F, F->zb, x, load, gs, fs);
	R->upper = certify_upper(F->p, y, F->gfull);
}

static double wnorm2(uint32_t n, const double *a, const double *b,
		     const double *w)
{
	double s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += w[i] * (a[i] - b[i]) * (a[i] - b[i]);
	return s;
}

/* The primal weight after a restart that moved the iterate by DZ and DY
 * (T and S norms) since the last one: halfway (geometrically) to DY / DZ,
 * as in PDLP.  Safeguards met on small degenerate instances: no update
 * when either side barely moved (the ratio is noise, and following it
 * once sent omega up 1e10-fold and froze the primal), at most a factor 10
 * per restart, and within 1e4 of the start. */
static double new_omega(const struct fast *F, double omega, double omega0,
			double dz, double dy)
{
	double nz = 0, ny = 0, f;

	for (uint32_t g = 0; g < F->n; g++)
		nz += F->wz[g] * F->zt[g] * F->zt[g];
	for (uint32_t e = 0; e < F->m; e++)
		ny += F->wy[e] * F->yt[e] * F->yt[e];
	if (!(dz > 1e-6 * sqrt(nz)) || !(dy > 1e-6 * sqrt(ny)))
		return omega;
	f = sqrt(dy / dz / omega);
	f = f > 10 ? 10 : f < 0.1 ? 0.1 : f;
	omega *= f;
	return omega > omega0 * 1e4  ? omega0 * 1e4 :
	       omega < omega0 * 1e-4 ? omega0 * 1e-4 :
				       omega;
}

/* V -= its part normal to the flows' constraints (scaled coordinates
 * v = T^-1/2 dz): per flow f, sum_{g of f} v_g / sqrt(wz_g) = 0. */
static void tangent(const struct fast *F, double *v)
{
	for (uint32_t f = 0; f < F->nf; f++) {
		double c = 0, t = 0;

		for (uint32_t g = F->foff[f]; g < F->foff[f + 1]; g++) {
			c += v[g] / sqrt(F->wz[g]);
			t += 1 / F->wz[g];
		}
		for (uint32_t g = F->foff[f]; g < F->foff[f + 1]; g++)
			v[g] -= c / t / sqrt(F->wz[g]);
	}
}

/* Set the steps tau = eta / colsum and sc = eta C / rowsum (times omega's
 * power).  PDHG converges when ||S^1/2 A T^1/2 P|| < 1, P the projection
 * on the directions z can move in (Z's affine hull: each flow's rates sum
 * to w_f).  Pock-Chambolle bounds sigma = ||Dy^1/2 A Dz^1/2|| by 1 (Dz =
 * diag 1 / colsum, Dy = diag 1 / rowsum), so eta = ETA is always safe.
 * But P drops the direction "more on every group of a flow", which the
 * flow's own injection and ejection links weigh fully, and sigma_P is
 * far smaller (0.35 on Cascade Model 3, 0.43 on dfly(4,8,4,33)): POWER_IT
 * steps of the power method on P Dz^1/2 A' Dy A Dz^1/2 P estimate
 * sigma_P^2 from below, and eta = ETA / sqrt(1.2 x estimate), within [ETA,
 * ETA_MAX], halves the iterations on every dragonfly and Cascade measured
 * (bench_peers, bench_ugal_fast).  Each step costs a product with A and
 * one with A'; the estimate grows with the steps, and stops after
 * POWER_MIN once a step adds less than 0.1 % (8 steps on the Cascade,
 * all 20 on dfly(4,8,4,33)).  At DEADLINE (model_now(); 0 = none) it stops and keeps
 * eta = ETA.  Uses z, zt, azt and atyt as workspace (before the
 * iteration sets them). */
static void step_scale(struct fast *F, double deadline)
{
	double *v = F->z, *x = F->zt, *a = F->azt, *g = F->atyt, rho = 0, prev;
	bool done = true;

	for (uint32_t j = 0; j < F->n; j++)
		v[j] = 1 + 0.5 * sin(1.0 + j);
	tangent(F, v);
	for (int it = 0; it < POWER_IT; it++) {
		double vv = 0;

		if (deadline > 0 && model_now() >= deadline) {
			done = false;
			break;
		}
		for (uint32_t j = 0; j < F->n; j++)
			vv += v[j] * v[j];
		if (!(vv > 0) || !isfinite(vv))
			break;
		vv = sqrt(vv);
		for (uint32_t j = 0; j < F->n; j++) {
			v[j] /= vv;
			x[j] = v[j] / sqrt(F->wz[j]);
		}
		mul_a(F, x, a);
		for (uint32_t e = 0; e < F->m; e++)
			a[e] /= F->wy[e];
		mul_at(F, a, g);
		for (uint32_t j = 0; j < F->n; j++)
			g[j] /= sqrt(F->wz[j]);
		tangent(F, g);
		prev = rho;
		rho = 0;
		for (uint32_t j = 0; j < F->n; j++)
			rho += g[j] * v[j];
		memcpy(v, g, F->n * sizeof(*v));
		if (it + 1 >= POWER_MIN && rho - prev <= 1e-3 * rho)
			break;
	}
	F->eta = ETA;
	if (done) {
		double eta = rho > 0 ? ETA / sqrt(1.2 * rho) : ETA_MAX;

		F->eta = eta > ETA_MAX ? ETA_MAX : eta < ETA ? ETA : eta;
	}
	for (uint32_t j = 0; j < F->n; j++)
		F->tau[j] = F->eta / F->wz[j];
	for (uint32_t e = 0; e < F->m; e++)
		F->sc[e] = F->eta * F->cap[e] / F->wy[e];
}

/* Iterate from the uniform split until the certified gap is met or a limit
 * (DEADLINE on model_now(), 0 = none) is hit, after at least one step;
 * the certified bounds and their x and y end in R, X and Y. */
static void iterate(struct fast *F, const struct mcf_tpl_opts *o,
		    double deadline, struct run *R, double *x, double *y,
		    double *load, const uint8_t *gs, const uint8_t *fs)
{
	const uint32_t n = F->n, m = F->m;
	double omega, omega0, sy = 0, sz = 0, sumc = 0, r_rest = -1,
			      r_prev = INFINITY;
	double target = o->gap * (1 - 1e-6);
	uint64_t k = 0;

	step_scale(F, deadline);
	for (uint32_t f = 0; f < F->nf; f++)
		for (uint32_t g = F->foff[f]; g < F->foff[f + 1]; g++)
			F->z[g] = F->w[f] / (F->foff[f + 1] - F->foff[f]);
	for (uint32_t e = 0; e < m; e++)
		sumc += F->cap[e];
	for (uint32_t e = 0; e < m; e++)
		F->y[e] = 1 / sumc;
	for (uint32_t e = 0; e < m; e++)
		sy += F->y[e] * F->y[e] * F->wy[e];
	for (uint32_t g = 0; g < n; g++)
		sz += F->z[g] * F->z[g] * F->wz[g];
	omega = omega0 = sqrt(sy) / sqrt(sz);
	mul_a(F, F->z, F->az);
	mul_at(F, F->y, F->aty);
	memcpy(F->z0, F->z, n * sizeof(double));
	memcpy(F->zr, F->z, n * sizeof(double));
	memcpy(F->zb, F->z, n * sizeof(double));
	memcpy(F->aty0, F->aty, n * sizeof(double));
	memcpy(F->y0, F->y, m * sizeof(double));
	memcpy(F->yr, F->y, m * sizeof(double));
	memcpy(F->yb, F->y, m * sizeof(double));
	memcpy(F->az0, F->az, m * sizeof(double));
	R->lb = 0;
	R->ub = INFINITY;
	R->iter = 0;
	for (;;) {
		double lam = 0, phi = 0, cy, r;

		if (R->iter > 0 && ((o->max_iter && R->iter >= o->max_iter) ||
				    (deadline > 0 && model_now() >= deadline)))
			break;
		R->iter++;
		project_z(F, omega);
		mul_a(F, F->zt, F->azt);
		cy = project_y(F, omega);
		mul_at(F, F->yt, F->atyt);
		for (uint32_t e = 0; e < m; e++)
			if (F->azt[e] > lam * F->cap[e])
				lam = F->azt[e] / F->cap[e];
		for (uint32_t f = 0; f < F->nf; f++) {
			double d = INFINITY;

			for (uint32_t g = F->foff[f]; g < F->foff[f + 1]; g++)
				if (F->atyt[g] < d)
					d = F->atyt[g];
			phi += F->w[f] * d;
		}
		if (lam > 0 && 1 / lam > R->lb) {
			R->lb = 1 / lam;
			memcpy(F->zb, F->zt, n * sizeof(double));
		}
		if (phi > 0 && cy / phi < R->ub) {
			R->ub = cy / phi;
			memcpy(F->yb, F->yt, m * sizeof(double));
		}
		if (R->ub - R->lb <= target * R->lb) {
			certify(F, R, x, y, load, gs, fs);
			if (R->upper - R->lower <= o->gap * R->lower) {
				R->status = MCF_TPL_OPTIMAL;
				return;
			}
			/* The single-precision A moves the optimum by < 3e-7
			 * relative, so with gap >= 1e-6 this never fails:
			 * a guard, not a path. */
			target *= 0.5;
			if (target < o->gap * 1e-3) {
				R->status = MCF_TPL_FAILED;
				return;
			}
		}
		/* fixed-point residual in the metric of the step sizes */
		r = sqrt(omega * wnorm2(n, F->zt, F->z, F->wz) +
			 wnorm2(m, F->yt, F->y, F->wy) / omega);
		if (r_rest < 0)
			r_rest = r;
		k++;
		if (r <= 0.2 * r_rest || (r <= 0.8 * r_rest && r > r_prev) ||
		    (double)k >= 0.36 * (double)R->iter) {
			double dz = sqrt(wnorm2(n, F->zt, F->zr, F->wz));
			double dy = sqrt(wnorm2(m, F->yt, F->yr, F->wy));

			memcpy(F->z, F->zt, n * sizeof(double));
			memcpy(F->aty, F->atyt, n * sizeof(double));
			memcpy(F->y, F->yt, m * sizeof(double));
			memcpy(F->az, F->azt, m * sizeof(double));
			omega = new_omega(F, omega, omega0, dz, dy);
			memcpy(F->zr, F->z, n * sizeof(double));
			memcpy(F->yr, F->y, m * sizeof(double));
			memcpy(F->z0, F->z, n * sizeof(double));
			memcpy(F->aty0, F->aty, n * sizeof(double));
			memcpy(F->y0, F->y, m * sizeof(double));
			memcpy(F->az0, F->az, m * sizeof(double));
			k = 0;
			r_rest = -1;
			r_prev = INFINITY;
		} else {
			double a = (double)k / (double)(k + 1), b = 1 - a;

			r_prev = r;
			for (uint32_t g = 0; g < n; g++) {
				F->z[g] = a * (2 * F->zt[g] - F->z[g]) +
					  b * F->z0[g];
				F->aty[g] = a * (2 * F->atyt[g] - F->aty[g]) +
					    b * F->aty0[g];
			}
			for (uint32_t e = 0; e < m; e++) {
				F->y[e] = a * (2 * F->yt[e] - F->y[e]) +
					  b * F->y0[e];
				F->az[e] = a * (2 * F->azt[e] - F->az[e]) +
					   b * F->az0[e];
			}
		}
	}
	certify(F, R, x, y, load, gs, fs);
	R->status = R->upper - R->lower <= o->gap * R->lower ?
			    MCF_TPL_OPTIMAL :
			    MCF_TPL_TIME_LIMIT;
}

/* alpha* = 0: some flow has no group that can carry anything.  y = 1 on
 * the 0-capacity links certifies it (sum C y = 0 while the blocked flow's
 * every group crosses such a link, or it has no group: d_f = infinity). */
static void blocked(const struct mcf_tpl *p, struct mcf_tpl_result *res)
{
	res->status = MCF_TPL_OPTIMAL;
	res->alpha = res->lower = res->upper = 0;
	if (res->x)
		memset(res->x, 0, p->ngroups * sizeof(*res->x));
	for (uint32_t e = 0; res->y && e < p->nlinks; e++)
		res->y[e] = p->cap[e] > 0 ? 0 : 1;
}

int mcf_tpl_solve_fast(const struct mcf_tpl *p, const struct mcf_tpl_opts *o,
		       struct mcf_tpl_result *res, struct err *err)
{
	struct mcf_tpl_opts def;
	struct fast F;
	struct run R;
	uint8_t *gs = NULL, *fs = NULL;
	double *x = NULL, *y = NULL, *load = NULL, deadline = 0;
	uint32_t nlive;
	int rc = 0;

	if (mcf_tpl_check(p, err))
		return -1;
	if (o && o->time_limit_ms)
		deadline = model_now() + o->time_limit_ms * 1e-3;
	if (!o) {
		mcf_tpl_opts_init(&def);
		o = &def;
	}
	if (!(o->gap >= MIN_GAP) || !isfinite(o->gap))
		return err_set(err, "fast MCF: gap must be >= %g", MIN_GAP);
	memset(&F, 0, sizeof(F));
	res->solver = "pdhg";
	res->iterations = 0;
	res->status = MCF_TPL_OPTIMAL;
	res->alpha = res->lower = res->upper = 0;
	if (p->nflows == 0) {
		for (uint32_t e = 0; res->y && e < p->nlinks; e++)
			res->y[e] = 0;
		return 0;
	}
	gs = malloc(p->ngroups + 1);
	fs = malloc(p->nflows);
	x = malloc((p->ngroups + 1) * sizeof(*x));
	y = malloc((p->nlinks + 1) * sizeof(*y));
	load = malloc((p->nlinks + 1) * sizeof(*load));
	if (!gs || !fs || !x || !y || !load) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	/* x and load hold the operator's column sums until build() */
	if (classify(p, gs, fs, &nlive, x, load)) {
		blocked(p, res);
		goto out;
	}
	if (build(&F, p, gs, fs, x, err)) {
		rc = -1;
		goto out;
	}
	if (nlive == 0) {
		/* only free flows: any rate */
		R.lower = R.upper = INFINITY;
		R.iter = 0;
		R.status = MCF_TPL_OPTIMAL;
		certify_lower(&F, F.zb, x, load, gs, fs);
		memset(y, 0, p->nlinks * sizeof(*y));
	} else {
		iterate(&F, o, deadline, &R, x, y, load, gs, fs);
	}
	res->status = R.status;
	res->alpha = res->lower = R.lower;
	res->upper = R.upper;
	res->iterations = R.iter;
	if (res->x)
		memcpy(res->x, x, p->ngroups * sizeof(*x));
	if (res->y)
		memcpy(res->y, y, p->nlinks * sizeof(*y));
out:
	fast_free(&F);
	free(gs);
	free(fs);
	free(x);
	free(y);
	free(load);
	return rc;
}
