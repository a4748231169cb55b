/* mcf_tpl.h - maximum concurrent flow over path templates: the LP form of
 * MCF and of paper 002's UGAL-G Models 0-5 (MMF is a sequence of them).
 *
 * A flow f has demand w_f > 0 and groups g = flow_off[f] .. flow_off[f+1]-1;
 * group g stands for mult_g > 0 paths that all carry the same rate x_g.
 * Column g of the link matrix M lists, for every link e any path of g
 * crosses, M[e,g] = the number of crossings of e summed over the mult_g
 * paths of g (a path crossing a link twice counts twice).  The LP:
 *
 *     maximise alpha
 *     s.t.  sum_{g of f} mult_g x_g >= alpha w_f     for every flow f
 *           sum_g M[e,g] x_g        <= C_e           for every link e
 *           x >= 0
 *
 * Built from per-group link counts, never from enumerated paths (a Cascade
 * flow has millions of VLB paths but a few dozen groups).  Solvers:
 * mcf_tpl_solve_glpk (exact, simplex; model_lp.c, the only <glpk.h> user)
 * and the structure-exploiting first-order solver beside it, which returns
 * a certified interval [lower, upper] around the optimum alpha. */
#ifndef STOPO_MCF_TPL_H
#define STOPO_MCF_TPL_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/util/err.h"

/* A part of M kept as an operator instead of explicit columns (a
 * factored form: ugal_tpl.h's VLB groups on Cascade would be ~10^8
 * explicit non-zeros).  The template's M is then the CSR columns plus
 * this operator's matrix M_op (links x groups, non-negative).  CTX is the
 * operator's own (workspace included: not re-entrant). */
struct mcf_tpl_op {
	/* out[nlinks] += M_op x, for x[ngroups] */
	void (*mul)(void *ctx, const double *x, double *out);
	/* out[ngroups] += M_op' y, for y[nlinks] */
	void (*mul_t)(void *ctx, const double *y, double *out);
	void *ctx;
	double min_entry; /* > 0: every non-zero of M_op is >= min_entry */
};

struct mcf_tpl {
	uint32_t nlinks;
	const double *cap; /* [nlinks], >= 0 */
	uint32_t nflows;
	const double *demand;	     /* [nflows], > 0 (w_f) */
	const uint32_t *flow_off;    /* [nflows+1] groups of each flow */
	uint32_t ngroups;	     /* = flow_off[nflows] */
	const double *mult;	     /* [ngroups], > 0 */
	const uint32_t *col_off;     /* [ngroups+1] CSR columns of M */
	const uint32_t *col_link;    /* [col_off[ngroups]] link ids < nlinks */
	const double *col_cnt;	     /* [col_off[ngroups]] M[e,g] > 0 */
	const struct mcf_tpl_op *op; /* NULL, or M_op added to the columns
				      * (mcf_tpl_solve_fast only) */
};

enum mcf_tpl_status {
	MCF_TPL_OPTIMAL = 0,	/* exact (GLPK) or within the requested gap */
	MCF_TPL_TIME_LIMIT = 1, /* stopped at the time limit: the bounds are
				 * valid but further apart than asked */
	MCF_TPL_INFEASIBLE = 2, /* cannot happen for valid input */
	MCF_TPL_FAILED = 3,	/* the solver gave up (numerical trouble) */
};

struct mcf_tpl_opts {
	uint32_t time_limit_ms; /* 0 = none */
	double gap;		/* first-order solver: stop when
				 * (upper - lower) / lower <= gap (0.01) */
	uint32_t max_iter;	/* first-order solver, 0 = no limit */
};

/* Defaults: no time limit, gap 0.01, no iteration limit. */
void mcf_tpl_opts_init(struct mcf_tpl_opts *o);

struct mcf_tpl_result {
	enum mcf_tpl_status status;
	double alpha; /* a feasible concurrent rate (= lower) */
	double lower; /* certified: alpha* >= lower */
	double upper; /* certified: alpha* <= upper (= lower when exact) */
	double *x;    /* [ngroups] caller-allocated or NULL: a feasible rate
		       * per path of each group achieving alpha */
	uint64_t iterations; /* simplex or first-order iterations */
	const char *solver;  /* "glpk" or the first-order method's name */
	double *y; /* [nlinks] caller-allocated or NULL; mcf_tpl_solve_fast
		    * only: link prices y >= 0 certifying upper (see there) */
};

/* Check P's shape: offsets monotone, ids in range, counts and capacities
 * finite and non-negative, demands and mults > 0.  Returns 0 or -1 with err
 * naming the first violation. */
int mcf_tpl_check(const struct mcf_tpl *p, struct err *err);

/* Solve P exactly with GLPK's simplex (P->op must be NULL).  Returns 0 with res filled (status
 * apart: a time limit is MCF_TPL_TIME_LIMIT with lower = 0 and upper =
 * infinity), or -1 with err set (bad input, memory, a GLPK internal
 * error). */
int mcf_tpl_solve_glpk(const struct mcf_tpl *p, const struct mcf_tpl_opts *o,
		       struct mcf_tpl_result *res, struct err *err);

/* Solve P to a certified interval with the first-order method of
 * mcf_fast.c (restarted Halpern PDHG on the min-congestion saddle point;
 * no LP library).  Stops when (upper - lower) / lower <= o->gap (status
 * MCF_TPL_OPTIMAL; o->gap >= 1e-6, the iteration runs in single
 * precision), or at o->max_iter iterations or o->time_limit_ms
 * (MCF_TPL_TIME_LIMIT with the best bounds found, still valid).
 * res->x, when given, gets a feasible x achieving alpha = lower; res->y,
 * when given, gets link prices with, by weak duality,
 *   upper = sum_e C_e y_e / sum_f w_f min_{g of f} sum_e M[e,g] y_e / mult_g
 * (an empty minimum is infinite), so both bounds can be checked without
 * trusting the solver.  A flow no group of which can carry anything (0
 * capacity, or no group) gives alpha = 0; no flows: alpha = 0; only flows
 * with a group that crosses no link: alpha = infinity.  res->solver =
 * "pdhg".  Returns 0, or -1 with err set (bad input, gap < 1e-6,
 * memory). */
int mcf_tpl_solve_fast(const struct mcf_tpl *p, const struct mcf_tpl_opts *o,
		       struct mcf_tpl_result *res, struct err *err);

#endif
