/* test_mcf_fast.c - the first-order path-template MCF solver against GLPK
 * (mcf_tpl_solve_glpk, exact): hand-solved instances, edge cases (one
 * group, 0-capacity links, empty flows, free groups, unused links, no
 * flows) and random templates.  The returned bounds are re-checked here
 * from what the API returns, without trusting the solver: the lower bound
 * from x (feasibility and the rate it carries), the upper bound from the
 * link prices y by weak duality (mcf_tpl.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "evaluator/models/mcf_tpl.h"
#include "topo/util/rng.h"

#define SLACK 1e-9

/* U(y) = sum_e C_e y_e / sum_f w_f min_{g of f} (M'y)_g / mult_g, the upper
 * bound weak duality gives for any y >= 0 (an empty minimum is
 * infinite). */
static double dual_bound(const struct mcf_tpl *p, const double *y)
{
	double num = 0, den = 0;

	for (uint32_t e = 0; e < p->nlinks; e++) {
		cr_assert(y[e] >= 0 && isfinite(y[e]), "y[%u] = %g", e, y[e]);
		num += p->cap[e] * y[e];
	}
	for (uint32_t f = 0; f < p->nflows; f++) {
		double d = INFINITY;

		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++) {
			double s = 0;

			for (uint32_t k = p->col_off[g]; k < p->col_off[g + 1];
			     k++)
				s += p->col_cnt[k] * y[p->col_link[k]];
			if (s / p->mult[g] < d)
				d = s / p->mult[g];
		}
		den += p->demand[f] * d;
	}
	return den > 0 ? num / den : INFINITY;
}

/* X is feasible and carries LOWER: link loads within capacity, every
 * flow's rate at least LOWER w_f. */
static void check_primal(const struct mcf_tpl *p, const double *x, double lower)
{
	double *load = calloc(p->nlinks + 1, sizeof(*load));

	for (uint32_t g = 0; g < p->ngroups; g++) {
		cr_assert(x[g] >= 0, "x[%u] = %g", g, x[g]);
		for (uint32_t k = p->col_off[g]; k < p->col_off[g + 1]; k++)
			load[p->col_link[k]] += p->col_cnt[k] * x[g];
	}
	for (uint32_t e = 0; e < p->nlinks; e++)
		cr_assert(load[e] <= p->cap[e] * (1 + SLACK),
			  "link %u: load %.12g > capacity %g", e, load[e],
			  p->cap[e]);
	for (uint32_t f = 0; f < p->nflows; f++) {
		double r = 0;

		for (uint32_t g = p->flow_off[f]; g < p->flow_off[f + 1]; g++)
			r += p->mult[g] * x[g];
		cr_assert(r >= lower * p->demand[f] * (1 - SLACK),
			  "flow %u: rate %.12g < %.12g * %g", f, r, lower,
			  p->demand[f]);
	}
	free(load);
}

/* Solve P with the fast solver at GAP and check everything against the
 * exact ALPHA: the certificates, the bracket, the gap when OPTIMAL.
 * Returns the status. */
static enum mcf_tpl_status check_fast(const struct mcf_tpl *p, double alpha,
				      double gap, uint32_t max_iter,
				      const char *what)
{
	struct mcf_tpl_opts o;
	double *x = malloc((p->ngroups + 1) * sizeof(*x));
	double *y = malloc((p->nlinks + 1) * sizeof(*y));
	struct mcf_tpl_result r = { .x = x, .y = y };
	struct err e = { 0 };
	double ub;

	mcf_tpl_opts_init(&o);
	o.gap = gap;
	o.max_iter = max_iter;
	cr_assert_eq(mcf_tpl_solve_fast(p, &o, &r, &e), 0, "%s: %s", what,
		     e.msg);
	cr_assert_str_eq(r.solver, "pdhg");
	cr_assert(r.status == MCF_TPL_OPTIMAL ||
			  (max_iter && r.status == MCF_TPL_TIME_LIMIT),
		  "%s: status %d", what, r.status);
	cr_assert_eq(r.alpha, r.lower);
	cr_assert(r.lower <= alpha * (1 + SLACK) + SLACK,
		  "%s: lower %.12g > alpha %.12g", what, r.lower, alpha);
	cr_assert(alpha <= r.upper * (1 + SLACK),
		  "%s: upper %.12g < alpha %.12g", what, r.upper, alpha);
	check_primal(p, x, r.lower);
	ub = dual_bound(p, y);
	cr_assert(ub <= r.upper * (1 + SLACK), "%s: U(y) %.12g > upper %.12g",
		  what, ub, r.upper);
	if (r.status == MCF_TPL_OPTIMAL)
		cr_assert(ub - r.lower <= gap * r.lower * (1 + SLACK),
			  "%s: gap [%.12g, %.12g] > %g", what, r.lower, ub,
			  gap);
	free(x);
	free(y);
	return r.status;
}

static double glpk_alpha(const struct mcf_tpl *p)
{
	struct mcf_tpl_result r = { 0 };
	struct err e = { 0 };

	cr_assert_eq(mcf_tpl_solve_glpk(p, NULL, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.status, MCF_TPL_OPTIMAL);
	return r.alpha;
}

/* Both gaps of the issue, against GLPK and against the hand value. */
static void check_both(const struct mcf_tpl *p, double hand, const char *what)
{
	double a = glpk_alpha(p);

	cr_expect_float_eq(a, hand, 1e-9, "%s: glpk %g, by hand %g", what, a,
			   hand);
	check_fast(p, a, 1e-2, 0, what);
	check_fast(p, a, 1e-3, 0, what);
}

/* test_mcf_tpl's instances: alpha 4 with a 2-path group, alpha 0.5 from a
 * twice-crossed link. */
Test(mcf_fast, hand_solved)
{
	double cap[] = { 1, 3 }, w[] = { 1 }, mult[] = { 1, 2 },
	       cnt[] = { 1, 2 };
	uint32_t foff[] = { 0, 2 }, coff[] = { 0, 1, 2 }, link[] = { 0, 1 };
	struct mcf_tpl p = { .nlinks = 2,
			     .cap = cap,
			     .nflows = 1,
			     .demand = w,
			     .flow_off = foff,
			     .ngroups = 2,
			     .mult = mult,
			     .col_off = coff,
			     .col_link = link,
			     .col_cnt = cnt };
	double cap2[] = { 3, 2 }, w2[] = { 1, 2 }, mult2[] = { 1, 1 };
	double cnt2[] = { 1, 1, 2 };
	uint32_t foff2[] = { 0, 1, 2 }, coff2[] = { 0, 1, 3 };
	uint32_t link2[] = { 0, 0, 1 };
	struct mcf_tpl p2 = { .nlinks = 2,
			      .cap = cap2,
			      .nflows = 2,
			      .demand = w2,
			      .flow_off = foff2,
			      .ngroups = 2,
			      .mult = mult2,
			      .col_off = coff2,
			      .col_link = link2,
			      .col_cnt = cnt2 };

	check_both(&p, 4.0, "one flow, two groups");
	check_both(&p2, 0.5, "twice-crossed link");
}

/* Two flows (w = 1, 2) on a 4-link line; link 3 is unused.  Flow 0: one
 * group over links 0, 1.  Flow 1: group A over link 1 (C 2), group B over
 * link 2 (C 0: carries nothing).  Flow 1 needs 2 alpha on link 1 beside
 * flow 0's alpha: 3 alpha <= 2. */
Test(mcf_fast, zero_capacity_and_unused_links)
{
	double cap[] = { 5, 2, 0, 7 }, w[] = { 1, 2 }, mult[] = { 1, 1, 3 };
	double cnt[] = { 1, 1, 1, 3 };
	uint32_t foff[] = { 0, 1, 3 }, coff[] = { 0, 2, 3, 4 };
	uint32_t link[] = { 0, 1, 1, 2 };
	struct mcf_tpl p = { .nlinks = 4,
			     .cap = cap,
			     .nflows = 2,
			     .demand = w,
			     .flow_off = foff,
			     .ngroups = 3,
			     .mult = mult,
			     .col_off = coff,
			     .col_link = link,
			     .col_cnt = cnt };

	check_both(&p, 2.0 / 3, "0-capacity group");
	/* link 1 also at 0: flow 1 cannot carry anything */
	cap[1] = 0;
	check_both(&p, 0, "blocked flow");
}

/* A flow with no group at all forces alpha = 0, certified by y = 0 (its
 * empty minimum is infinite). */
Test(mcf_fast, flow_without_groups)
{
	double cap[] = { 1 }, w[] = { 1, 1 }, mult[] = { 1 }, cnt[] = { 1 };
	uint32_t foff[] = { 0, 1, 1 }, coff[] = { 0, 1 }, link[] = { 0 };
	struct mcf_tpl p = { .nlinks = 1,
			     .cap = cap,
			     .nflows = 2,
			     .demand = w,
			     .flow_off = foff,
			     .ngroups = 1,
			     .mult = mult,
			     .col_off = coff,
			     .col_link = link,
			     .col_cnt = cnt };

	check_both(&p, 0, "flow without groups");
}

/* Flow 1's group 2 crosses no link: it is free and flow 0 alone sets
 * alpha = C / w = 3 / 2.  Without flow 0 the rate is unbounded. */
Test(mcf_fast, free_group)
{
	double cap[] = { 3 }, w[] = { 2, 1 }, mult[] = { 1, 1, 2 };
	double cnt[] = { 1, 1 };
	uint32_t foff[] = { 0, 1, 3 }, coff[] = { 0, 1, 2, 2 };
	uint32_t link[] = { 0, 0 };
	struct mcf_tpl p = { .nlinks = 1,
			     .cap = cap,
			     .nflows = 2,
			     .demand = w,
			     .flow_off = foff,
			     .ngroups = 3,
			     .mult = mult,
			     .col_off = coff,
			     .col_link = link,
			     .col_cnt = cnt };
	uint32_t foff1[] = { 0, 2 }, coff1[] = { 0, 1, 1 };
	struct mcf_tpl p1 = { .nlinks = 1,
			      .cap = cap,
			      .nflows = 1,
			      .demand = w + 1,
			      .flow_off = foff1,
			      .ngroups = 2,
			      .mult = mult + 1,
			      .col_off = coff1,
			      .col_link = link,
			      .col_cnt = cnt };
	double x[2], y[1];
	struct mcf_tpl_result r = { .x = x, .y = y };
	struct err e = { 0 };

	check_both(&p, 1.5, "free group");
	cr_assert_eq(mcf_tpl_solve_fast(&p1, NULL, &r, &e), 0, "%s", e.msg);
	cr_expect_eq(r.status, MCF_TPL_OPTIMAL);
	cr_expect(isinf(r.lower) && isinf(r.upper));
}

/* No flows: alpha = 0, as GLPK says. */
Test(mcf_fast, empty)
{
	double cap[] = { 1 };
	uint32_t foff[] = { 0 };
	struct mcf_tpl p = {
		.nlinks = 1, .cap = cap, .nflows = 0, .flow_off = foff
	};
	double y[1] = { -1 };
	struct mcf_tpl_result r = { .y = y };
	struct err e = { 0 };

	cr_assert_eq(mcf_tpl_solve_fast(&p, NULL, &r, &e), 0, "%s", e.msg);
	cr_expect_eq(r.status, MCF_TPL_OPTIMAL);
	cr_expect_eq(r.lower, 0);
	cr_expect_eq(r.upper, 0);
	cr_expect_eq(y[0], 0);
	cr_expect_eq(glpk_alpha(&p), 0);
}

Test(mcf_fast, bad_input)
{
	double cap[] = { 1 }, w[] = { 1 }, mult[] = { 0 }, cnt[] = { 1 };
	uint32_t foff[] = { 0, 1 }, coff[] = { 0, 1 }, link[] = { 0 };
	struct mcf_tpl p = { .nlinks = 1,
			     .cap = cap,
			     .nflows = 1,
			     .demand = w,
			     .flow_off = foff,
			     .ngroups = 1,
			     .mult = mult,
			     .col_off = coff,
			     .col_link = link,
			     .col_cnt = cnt };
	struct mcf_tpl_opts o;
	struct mcf_tpl_result r = { 0 };
	struct err e = { 0 };

	cr_expect_eq(mcf_tpl_solve_fast(&p, NULL, &r, &e), -1);
	cr_expect_str_eq(e.msg, "path template: group 0: mult must be > 0");
	mult[0] = 1;
	mcf_tpl_opts_init(&o);
	o.gap = 1e-7;
	cr_expect_eq(mcf_tpl_solve_fast(&p, &o, &r, &e), -1);
	cr_expect_str_eq(e.msg, "fast MCF: gap must be >= 1e-06");
	o.gap = 1e-6;
	cr_expect_eq(mcf_tpl_solve_fast(&p, &o, &r, &e), 0, "%s", e.msg);
	cr_expect_eq(r.status, MCF_TPL_OPTIMAL);
}

/* A random template: NL links (one in 25 at capacity 0), NF flows of
 * 1..KMAX groups, mults 1..5, each group over 1..8 distinct links crossed 1..2
 * mult times in all, demands 0.5..3.  With odd seeds every flow's first
 * group avoids the 0-capacity links, so alpha > 0 despite them. */
struct rnd {
	struct mcf_tpl p;
	double *cap, *w, *mult, *cnt;
	uint32_t *foff, *coff, *link;
};

static void rnd_make(struct rnd *R, uint64_t seed, uint32_t nl, uint32_t nf,
		     uint32_t kmax)
{
	struct rng g;
	uint32_t ng = 0, nnz = 0;

	rng_seed(&g, seed);
	R->cap = malloc(nl * sizeof(double));
	R->w = malloc(nf * sizeof(double));
	R->foff = malloc((nf + 1) * sizeof(uint32_t));
	R->mult = malloc(nf * kmax * sizeof(double));
	R->coff = malloc((nf * kmax + 1) * sizeof(uint32_t));
	R->link = malloc(nf * kmax * 8 * sizeof(uint32_t));
	R->cnt = malloc(nf * kmax * 8 * sizeof(double));
	for (uint32_t e = 0; e < nl; e++)
		R->cap[e] = rng_below(&g, 25) == 0 ?
				    0 :
				    0.5 + (double)rng_below(&g, 10);
	R->foff[0] = 0;
	R->coff[0] = 0;
	for (uint32_t f = 0; f < nf; f++) {
		uint32_t k = 1 + (uint32_t)rng_below(&g, kmax);

		R->w[f] = 0.5 + 0.25 * (double)rng_below(&g, 11);
		for (uint32_t q = 0; q < k; q++) {
			uint32_t len = 1 + (uint32_t)rng_below(&g, 8);
			uint32_t mu = 1 + (uint32_t)rng_below(&g, 5);

			R->mult[ng] = mu;
			for (uint32_t i = 0; i < len; i++) {
				uint32_t e = (uint32_t)rng_below(&g, nl), c;

				while (seed % 2 && q == 0 && R->cap[e] == 0)
					e = (e + 1) % nl;

				for (c = R->coff[ng]; c < nnz; c++)
					if (R->link[c] == e)
						break;
				if (c < nnz)
					continue; /* links distinct */
				R->link[nnz] = e;
				R->cnt[nnz++] =
					1 + (double)rng_below(&g, 2 * mu);
			}
			R->coff[++ng] = nnz;
		}
		R->foff[f + 1] = ng;
	}
	R->p = (struct mcf_tpl){ .nlinks = nl,
				 .cap = R->cap,
				 .nflows = nf,
				 .demand = R->w,
				 .flow_off = R->foff,
				 .ngroups = ng,
				 .mult = R->mult,
				 .col_off = R->coff,
				 .col_link = R->link,
				 .col_cnt = R->cnt };
}

static void rnd_free(struct rnd *R)
{
	free(R->cap);
	free(R->w);
	free(R->foff);
	free(R->mult);
	free(R->coff);
	free(R->link);
	free(R->cnt);
}

Test(mcf_fast, random_templates)
{
	uint32_t zero = 0;

	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct rnd R;
		struct rng g;
		char what[64];
		double a;
		uint32_t nl, nf;

		rng_seed(&g, seed * 7919);
		nl = 2 + (uint32_t)rng_below(&g, seed % 10 == 0 ? 400 :
						 seed % 3	? 20 :
								  120);
		nf = 1 + (uint32_t)rng_below(&g, seed % 10 == 0 ? 300 :
						 seed % 3	? 12 :
								  80);
		rnd_make(&R, seed, nl, nf, seed % 7 == 0 ? 40 : 6);
		snprintf(what, sizeof(what), "seed %llu (%u links, %u flows)",
			 (unsigned long long)seed, nl, nf);
		a = glpk_alpha(&R.p);
		zero += a == 0;
		check_fast(&R.p, a, 1e-2, 0, what);
		check_fast(&R.p, a, 1e-3, 0, what);
		if (seed % 5 == 0)
			check_fast(&R.p, a, 1e-5, 0, what);
		rnd_free(&R);
	}
	/* some instances are blocked by a 0-capacity link, most are not */
	cr_expect(zero > 0 && zero < 150, "%u blocked instances", zero);
}

/* An iteration limit stops early with valid bounds. */
Test(mcf_fast, iteration_limit)
{
	struct rnd R;
	double a;

	rnd_make(&R, 4242, 60, 50, 6);
	for (uint32_t e = 0; e < 60; e++)
		R.cap[e] += 1; /* no 0 capacity: alpha > 0 */
	a = glpk_alpha(&R.p);
	cr_assert(a > 0);
	cr_expect_eq(check_fast(&R.p, a, 1e-6, 3, "3 iterations"),
		     MCF_TPL_TIME_LIMIT);
	rnd_free(&R);
}

/* A time limit stops with valid certificates (20,000 flows cannot reach
 * a 1e-6 gap in 20 ms). */
Test(mcf_fast, time_limit)
{
	struct rnd R;
	struct mcf_tpl_opts o;
	double *x, *y;
	struct mcf_tpl_result r = { 0 };
	struct err e = { 0 };

	rnd_make(&R, 99, 3000, 20000, 6);
	for (uint32_t q = 0; q < 3000; q++)
		R.cap[q] += 1;
	x = malloc(R.p.ngroups * sizeof(*x));
	y = malloc(R.p.nlinks * sizeof(*y));
	r.x = x;
	r.y = y;
	mcf_tpl_opts_init(&o);
	o.gap = 1e-6;
	o.time_limit_ms = 20;
	cr_assert_eq(mcf_tpl_solve_fast(&R.p, &o, &r, &e), 0, "%s", e.msg);
	cr_expect_eq(r.status, MCF_TPL_TIME_LIMIT);
	cr_expect(r.iterations > 0);
	cr_expect(r.lower > 0 && r.lower <= r.upper);
	check_primal(&R.p, x, r.lower);
	cr_expect(dual_bound(&R.p, y) <= r.upper * (1 + SLACK));
	free(x);
	free(y);
	rnd_free(&R);
}
