/* test_nne.c - paper 004's nearest-neighbour model (evaluator/nne/nne.h)
 * and the generic demand model nne (evaluator/models/model_nne.c).
 *
 * Expectations come from the paper's worked numbers (Fig. 2, Sec. 4),
 * from Eq. 10/16/17/20 worked by hand, from the generic demand model on
 * the explicit stencil flows of the same placement (a second method: it
 * enumerates paths), from an LP solved by GLPK with every Valiant path of
 * a flow at one rate (a third), and from a brute-force search over every
 * gamma vector using the paper's criteria Eq. 22 and 24 as printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "evaluator/models/mcf_tpl.h"
#include "evaluator/models/model.h"
#include "evaluator/nne/nne.h"
#include "evaluator/traffic/flows.h"
#include "tests/unit/fixtures.h"

#define REL 1e-9

static void app(struct nne_app *a, const char *grid, const char *elems)
{
	struct err err = { 0 };

	cr_assert_eq(nne_app_init(a, grid, elems, 0, &err), 0, "%s", err.msg);
}

static struct nne_net net_of(const struct topo *t, const double *bw)
{
	struct nne_net n;
	struct err err = { 0 };

	cr_assert_eq(nne_net_from_topo(t, 0, bw, &n, &err), 0, "%s", err.msg);
	return n;
}

Test(nne, paper_worked_numbers)
{
	struct nne_app a;
	double m[NNE_MAX_DIMS];

	/* Fig. 2: alpha = (16, 18), beta = (8, 6): a task holds 2 x 3
	 * elements, so it shares 3 elements with a neighbour along axis 0
	 * and 2 along axis 1. */
	app(&a, "8x6", "16x18");
	cr_expect_float_eq(nne_msg_bytes(&a, 0), 3 * 1024.0, REL);
	cr_expect_float_eq(nne_msg_bytes(&a, 1), 2 * 1024.0, REL);
	/* Eq. 10: beta/alpha = (1/2, 1/3), m = (1/2, 1/3) / (2 * 5/6). */
	nne_m(&a, m);
	cr_expect_float_eq(m[0], 0.3, REL);
	cr_expect_float_eq(m[1], 0.2, REL);
	cr_expect_eq(nne_tasks(&a), 48);
	/* Sec. 4: alpha = (512, 512, 512), 1 KB per element and face,
	 * beta = (16, 8, 8): a task holds 32 x 64 x 64 elements. */
	app(&a, "16x8x8", "512x512x512");
	cr_expect_float_eq(nne_msg_bytes(&a, 0), 64.0 * 64 * 1024, REL);
	cr_expect_float_eq(nne_msg_bytes(&a, 1), 32.0 * 64 * 1024, REL);
	cr_expect_float_eq(nne_task_bytes(&a),
			   2.0 * (4096 + 2048 + 2048) * 1024, REL);
	{
		char buf[64], small[6];

		cr_expect_str_eq(nne_pattern(&a, buf, sizeof(buf)),
				 "stencil:dims=16x8x8,elements=512x512x512");
		cr_expect_str_eq(nne_dims_format(a.beta, a.d, small,
						 sizeof(small)),
				 "16x8x");
	}
	/* beta_k = 1: no traffic along k, the rest renormalised. */
	app(&a, "4x1", NULL);
	nne_m(&a, m);
	cr_expect_float_eq(m[0], 0.5, REL);
	cr_expect_eq(m[1], 0);
}

Test(nne, bounds_by_hand)
{
	struct topo *t = fx_topo("dragonfly:p=4,a=8,h=4,g=33");
	struct nne_net n = net_of(t, NULL);
	struct nne_app a;
	struct nne_plan p;
	struct err err = { 0 };

	/* Balanced DF(4, 8, 4): one global link per pair, ah - 1 = 31. */
	cr_assert_eq(n.groups, 33);
	cr_assert_eq(n.inter, 31);
	cr_assert_eq(n.pair_links, 1);
	cr_assert_eq(n.nodes_per_group, 32);
	cr_assert_float_eq(n.bp, 5e9, REL);
	cr_assert_float_eq(n.br, 5e9, REL);
	/* beta = (8, 8, 4) over 512^3 elements: m = (0.2, 0.2, 0.1). */
	app(&a, "8x8x4", "512x512x512");
	/* gamma = (8, 8, 1): lambda = (1, 1, 4); Eq. 16: 64 * 0.1 = 6.4;
	 * Eq. 17: 4 * 6.4 / 31 (groups 0 and 2 are not neighbours). */
	cr_expect_float_eq(nne_delta_direct(&a, (uint32_t[]){ 8, 8, 1 }, &n),
			   6.4, REL);
	cr_expect_float_eq(nne_delta_indirect(&a, (uint32_t[]){ 8, 8, 1 }, &n),
			   25.6 / 31, REL);
	cr_expect_float_eq(nne_delta_indirect_exact(&a, (uint32_t[]){ 8, 8, 1 },
						    &n),
			   25.6 / 31, REL);
	/* gamma = (4, 4, 4): lambda = (2, 2, 1); a face of 16 tasks, twice
	 * (lambda = 2): 2 * 16 * 0.2 = 6.4; Eq. 17: 4 * (3.2 + 3.2) / 31. */
	cr_expect_float_eq(nne_delta_direct(&a, (uint32_t[]){ 4, 4, 4 }, &n),
			   6.4, REL);
	cr_expect_float_eq(nne_delta_indirect(&a, (uint32_t[]){ 4, 4, 4 }, &n),
			   25.6 / 31, REL);
	/* gamma = (4, 8, 4): lambda = (2, 1, 1), two groups, neighbours on
	 * both faces: Eq. 15 gives 0 between them; a hosting group sends
	 * E = 2 * 32 * 0.2 = 12.8 through each empty one: 12.8 / 31, half
	 * of Eq. 17's 25.6 / 31. */
	cr_expect_float_eq(nne_delta_indirect(&a, (uint32_t[]){ 4, 8, 4 }, &n),
			   25.6 / 31, REL);
	cr_expect_float_eq(nne_delta_indirect_exact(&a, (uint32_t[]){ 4, 8, 4 },
						    &n),
			   12.8 / 31, REL);
	cr_expect_float_eq(nne_delta_direct(&a, (uint32_t[]){ 4, 8, 4 }, &n),
			   12.8, REL);
	/* Eq. 5: B_eff = min(B_P, B_R / delta); time = bytes / B_eff. */
	cr_assert_eq(nne_evaluate(&a, (uint32_t[]){ 8, 8, 1 }, NNE_CART_DIRECT,
				  &n, &p, &err),
		     0, "%s", err.msg);
	cr_expect_float_eq(p.bw, 5e9 / 6.4, REL);
	cr_expect(!p.inject_bound);
	cr_expect_float_eq(p.seconds, nne_task_bytes(&a) / (5e9 / 6.4), REL);
	cr_expect_eq(p.groups, 4);
	cr_expect_eq(p.per_group, 64);
	cr_assert_eq(nne_evaluate(&a, (uint32_t[]){ 8, 8, 1 },
				  NNE_CART_INDIRECT, &n, &p, &err),
		     0);
	cr_expect(p.inject_bound); /* 31 / 25.6 > 1 */
	cr_expect_float_eq(p.bw, 5e9, REL);
	/* Random/direct, Eq. 20: |gamma| = 32, |lambda| = 8. */
	cr_expect_float_eq(nne_delta_random(&a, (uint32_t[]){ 4, 4, 2 }, &n),
			   4 * log(8) / log(log(8)), REL);
	/* |lambda| = 2: log log 2 < 0, the fullest bin holds at most all
	 * 128 messages. */
	cr_expect_float_eq(nne_delta_random(&a, (uint32_t[]){ 4, 8, 4 }, &n),
			   128, REL);
	topo_destroy(t);

	/* DF(2, 4, 2, 5): a*h = 8 global ports, 4 other groups: 2 links
	 * per pair, intermediate groups g - 2 = 3. */
	t = fx_topo("dragonfly:p=2,a=4,h=2,g=5");
	n = net_of(t, (double[]){ 0, 0, 7e9 });
	cr_expect_eq(n.pair_links, 2);
	cr_expect_eq(n.inter, 3);
	cr_expect_float_eq(n.br, 7e9, REL);
	app(&a, "8x2", NULL); /* m = (1/4, 1/4) with beta = 2 */
	/* gamma = (4, 2): lambda = (2, 1): 2 * 2 * 0.25 per 2 links. */
	cr_expect_float_eq(nne_delta_direct(&a, (uint32_t[]){ 4, 2 }, &n), 0.5,
			   REL);
	topo_destroy(t);
}

Test(nne, bad_input)
{
	struct nne_app a;
	struct nne_net n;
	struct err err = { 0 };
	struct topo *t;
	const char *bad[] = { "8x0", "8xx4", "x4",   "4x",
			      "",    "-4",   "4x4y", "1x2x3x4x5x6x7x8x9" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_expect_eq(nne_app_init(&a, bad[i], NULL, 0, &err), -1, "%s",
			     bad[i]);
		cr_expect(strstr(err.msg, "grid"), "%s", err.msg);
	}
	cr_expect_eq(nne_app_init(&a, "8x8", "16x12", 0, &err), -1);
	cr_expect(strstr(err.msg, "not a multiple"), "%s", err.msg);
	cr_expect_eq(nne_app_init(&a, "8x8", "16", 0, &err), -1);
	cr_expect_eq(nne_app_init(&a, "65536x65536", NULL, 0, &err), -1);
	t = fx_topo("fattree:k=4");
	cr_expect_eq(nne_net_from_topo(t, 0, NULL, &n, &err), -1);
	cr_expect(strstr(err.msg, "dragonfly"), "%s", err.msg);
	topo_destroy(t);
}

/* The generic model's B_eff (units of link capacity) for the stencil of A
 * laid out by plan P on T, under ROUTE. */
static double generic(const struct routing *r, const struct nne_app *a,
		      const uint32_t *rank_node, const char *route)
{
	char pat[160], spec[64];
	struct flows f;
	struct model_result res;
	struct err err = { 0 };
	double alpha;

	nne_pattern(a, pat, sizeof(pat));
	flows_init(&f);
	cr_assert_eq(flows_pattern(pat, rank_node, (uint32_t)nne_tasks(a), 1,
				   &f, &err),
		     0, "%s", err.msg);
	snprintf(spec, sizeof(spec), "nne:route=%s", route);
	cr_assert_eq(model_run(spec, r, &f, NULL, &res, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(res.status, MODEL_OPTIMAL);
	alpha = res.alpha;
	/* every node injects B_eff: its flows' rates sum to it */
	cr_expect_float_eq(res.node_max, alpha, 1e-9);
	cr_expect_float_eq(res.node_min, alpha, 1e-9);
	model_result_free(&res);
	flows_free(&f);
	return alpha;
}

/* Every Cartesian plan of A on topology SPEC (fast injection and local
 * links, so the global links bind, Sec. 4.2): the closed forms equal the
 * generic model on the explicit flows. */
static void closed_equals_generic(const char *spec, const char *grid,
				  const char *elems, uint32_t max_plans)
{
	struct fx_net x = fx_net(spec, "ugal");
	struct nne_net n = net_of(x.t, NULL);
	struct nne_app a;
	struct nne_plan *plans;
	uint32_t np, attained = 0, not_attained = 0, checked = 0;
	struct err err = { 0 };
	double rate = NNE_DEFAULT_LINK_RATE;

	app(&a, grid, elems);
	cr_assert_eq(nne_plan_all(&a, &n, NULL,
				  1u << NNE_CART_DIRECT |
					  1u << NNE_CART_INDIRECT,
				  &plans, &np, &err),
		     0, "%s", err.msg);
	cr_assert_gt(np, 4);
	for (uint32_t i = 0; i < np && checked < max_plans; i++) {
		struct nne_plan *p = &plans[i];
		uint32_t *rn = malloc(nne_tasks(&a) * sizeof(*rn));
		uint32_t groups[64];
		bool direct = p->strategy == NNE_CART_DIRECT;
		double g, want;

		cr_assert_eq(nne_layout(x.t, NULL, &a, p, 1, 1, rn, groups,
					&err),
			     0, "%s", err.msg);
		g = generic(x.r, &a, rn, direct ? "direct" : "indirect");
		/* global links bind: B_R / delta, in link units */
		want = p->delta > 0 ? n.br / p->delta / rate : INFINITY;
		if (want > n.bp / rate)
			want = n.bp / rate;
		cr_expect_float_eq(g, want, 1e-9 * want, "%s %s: %g vs %g",
				   grid, nne_strategy_name(p->strategy), g,
				   want);
		if (!direct) {
			if (fabs(p->delta - p->delta_paper) < 1e-12)
				attained++;
			else
				not_attained++;
		} else {
			cr_expect_float_eq(p->delta, p->delta_paper, 1e-12);
		}
		checked++;
		free(rn);
	}
	fprintf(stderr, "%s %s: %u plans checked, Eq. 17 attained %u, not %u\n",
		spec, grid, checked, attained, not_attained);
	free(plans);
	fx_net_free(&x);
}

Test(nne, closed_forms_equal_generic_model)
{
	/* Every plan of 32 tasks on DF(2, 4, 2, 9) (lambda = (2, 1, 1)
	 * included, where Eq. 17 is not attained). */
	closed_equals_generic(
		"dragonfly:p=2,a=4,h=2,g=9,inject=1000,local=1000", "4x4x2",
		"8x8x8", 1000);
	closed_equals_generic(
		"dragonfly:p=2,a=4,h=2,g=9,inject=1000,local=1000", "8x3",
		"16x9", 1000);
	/* The paper's DF(4, 8, 4) with beta = (8, 8, 4) (Fig. 4a, 5a). */
	closed_equals_generic(
		"dragonfly:p=4,a=8,h=4,g=33,inject=1000,local=1000", "8x8x4",
		"512x512x512", 12);
}

/* The LP of "all-random VLB control": one column per flow carrying all of
 * its Valiant paths at one rate (mult = paths, counts summed), solved by
 * GLPK; returns alpha for demands THAT. */
static double lp_vlb_one_rate(const struct routing *r, const struct flows *f,
			      const double *that)
{
	const struct topo *t = routing_topo(r);
	uint32_t nl = topo_num_links(t), *foff, *coff, *clink, nnz = 0;
	double *cap, *mult, *ccnt, *acc, alpha;
	struct pathset ps;
	struct mcf_tpl p;
	struct mcf_tpl_opts o;
	struct mcf_tpl_result res;
	struct err err = { 0 };
	size_t capn = 1u << 20;

	cap = malloc(nl * sizeof(*cap));
	acc = calloc(nl, sizeof(*acc));
	foff = malloc((f->n + 1) * sizeof(*foff));
	coff = malloc((f->n + 1) * sizeof(*coff));
	mult = malloc(f->n * sizeof(*mult));
	clink = malloc(capn * sizeof(*clink));
	ccnt = malloc(capn * sizeof(*ccnt));
	cr_assert(cap && acc && foff && coff && mult && clink && ccnt);
	for (uint32_t l = 0; l < nl; l++)
		cap[l] = topo_link(t, l)->capacity;
	pathset_init(&ps);
	for (uint32_t i = 0; i < f->n; i++) {
		cr_assert_eq(routing_paths(r, f->src[i], f->dst[i], &ps, &err),
			     0, "%s", err.msg);
		foff[i] = i;
		coff[i] = nnz;
		mult[i] = ps.n;
		for (uint32_t k = 0; k < ps.off[ps.n]; k++)
			acc[ps.links[k]] += 1;
		for (uint32_t l = 0; l < nl; l++)
			if (acc[l] > 0) {
				cr_assert_lt(nnz, capn);
				clink[nnz] = l;
				ccnt[nnz++] = acc[l];
				acc[l] = 0;
			}
	}
	foff[f->n] = coff[f->n] = f->n;
	coff[f->n] = nnz;
	p = (struct mcf_tpl){ .nlinks = nl,
			      .cap = cap,
			      .nflows = f->n,
			      .demand = that,
			      .flow_off = foff,
			      .ngroups = f->n,
			      .mult = mult,
			      .col_off = coff,
			      .col_link = clink,
			      .col_cnt = ccnt };
	mcf_tpl_opts_init(&o);
	memset(&res, 0, sizeof(res));
	cr_assert_eq(mcf_tpl_solve_glpk(&p, &o, &res, &err), 0, "%s", err.msg);
	cr_assert_eq(res.status, MCF_TPL_OPTIMAL);
	alpha = res.alpha;
	pathset_free(&ps);
	free(cap);
	free(acc);
	free(foff);
	free(coff);
	free(mult);
	free(clink);
	free(ccnt);
	return alpha;
}

/* Sec. 4.2's setting on DF(2, 4, 2, 9): Eq. 23 (exact form) against the
 * LP with every Valiant path of a flow at one rate, and against free
 * Valiant splitting (mcf over every Valiant path: Model 0's VLB part),
 * which can only do better. */
Test(nne, indirect_bound_matches_one_rate_lp)
{
	const char *spec = "dragonfly:p=2,a=4,h=2,g=9,inject=1000,local=1000";
	struct fx_net x = fx_net(spec, "vlb");
	struct nne_net n = net_of(x.t, NULL);
	struct nne_app a;
	struct err err = { 0 };
	const uint32_t gammas[][3] = {
		{ 2, 2, 2 }, { 4, 2, 1 }, { 2, 4, 1 }, { 4, 1, 2 }, { 1, 2, 2 }
	};

	app(&a, "4x4x2", "8x8x8");
	for (size_t i = 0; i < sizeof(gammas) / sizeof(gammas[0]); i++) {
		struct nne_plan p;
		uint32_t rn[32], groups[32];
		struct flows f;
		double that[256], sum[72] = { 0 }, lp, want, free_split;
		struct model_result res;

		cr_assert_eq(nne_evaluate(&a, gammas[i], NNE_CART_INDIRECT, &n,
					  &p, &err),
			     0, "%s", err.msg);
		cr_assert_eq(nne_layout(x.t, NULL, &a, &p, 1, 1, rn, groups,
					&err),
			     0, "%s", err.msg);
		flows_init(&f);
		cr_assert_eq(flows_pattern("stencil:dims=4x4x2,elements=8x8x8",
					   rn, 32, 1, &f, &err),
			     0, "%s", err.msg);
		cr_assert_leq(f.n, 256);
		for (uint32_t k = 0; k < f.n; k++)
			sum[f.src[k]] += f.demand[k];
		for (uint32_t k = 0; k < f.n; k++)
			that[k] = f.demand[k] / sum[f.src[k]];
		lp = lp_vlb_one_rate(x.r, &f, that);
		want = n.br / p.delta / NNE_DEFAULT_LINK_RATE;
		cr_expect_float_eq(lp, want, 1e-7 * want, "gamma %u,%u,%u",
				   gammas[i][0], gammas[i][1], gammas[i][2]);
		/* free splitting over the same Valiant paths */
		for (uint32_t k = 0; k < f.n; k++)
			f.demand[k] = that[k];
		cr_assert_eq(model_run("mcf", x.r, &f, NULL, &res, &err), 0,
			     "%s", err.msg);
		free_split = res.alpha;
		cr_expect_geq(free_split, lp * (1 - 0.011), "%g < %g",
			      free_split, lp);
		fprintf(stderr,
			"gamma %u,%u,%u: Eq. 23 %.6f, one-rate LP %.6f, "
			"free VLB split %.6f (%+.1f %%)\n",
			gammas[i][0], gammas[i][1], gammas[i][2], want, lp,
			free_split, 100 * (free_split / lp - 1));
		model_result_free(&res);
		flows_free(&f);
	}
	fx_net_free(&x);
}

/* Eq. 22 and Eq. 24 as printed (m_k substituted), for a brute force. */
static double crit22(const uint32_t *b, const uint32_t *al, const uint32_t *g,
		     uint32_t d)
{
	double gs = 1, best = 0;

	for (uint32_t k = 0; k < d; k++)
		gs *= g[k];
	for (uint32_t k = 0; k < d; k++) {
		uint32_t l = b[k] / g[k];
		double v = ((l > 1) + (l == 2)) * gs / g[k] *
			   (b[k] > 1 ? (double)b[k] / al[k] : 0);

		if (v > best)
			best = v;
	}
	return best;
}

static double crit24(const uint32_t *b, const uint32_t *al, const uint32_t *g,
		     uint32_t d)
{
	double gs = 1, s = 0;

	for (uint32_t k = 0; k < d; k++)
		gs *= g[k];
	for (uint32_t k = 0; k < d; k++)
		if (b[k] / g[k] > 1 && b[k] > 1)
			s += gs / g[k] * (double)b[k] / al[k];
	return s;
}

/* Eq. 14 computed literally at group level: the hosting groups are
 * 0 .. |lambda|-1 with box coordinates (axis 0 fastest), the others
 * empty; T(a -> b) is the traffic box a sends box b (Eq. 13 with the
 * neighbour relation of Eq. 12 taken both ways: one face per direction,
 * both faces when lambda_k = 2); the link i -> j carries
 * (sum_{p != i,j} T(i -> p) + sum_{p != i,j} T(p -> j)) / (g - 2). */
static double eq14_max(const struct nne_app *a, const uint32_t *gamma,
		       uint32_t groups)
{
	double m[NNE_MAX_DIMS], gs = 1, best = 0;
	uint32_t lam[NNE_MAX_DIMS], L = 1;
	double *T;

	nne_m(a, m);
	for (uint32_t k = 0; k < a->d; k++) {
		lam[k] = a->beta[k] / gamma[k];
		L *= lam[k];
		gs *= gamma[k];
	}
	T = calloc((size_t)groups * groups, sizeof(*T));
	for (uint32_t i = 0; i < L; i++)
		for (uint32_t j = 0; j < L; j++) {
			uint32_t xi = i, xj = j, diff = 0, axis = 0;

			for (uint32_t k = 0; k < a->d; k++) {
				uint32_t ci = xi % lam[k], cj = xj % lam[k];

				xi /= lam[k];
				xj /= lam[k];
				if (ci != cj) {
					diff++;
					if ((ci + 1) % lam[k] == cj ||
					    (cj + 1) % lam[k] == ci)
						axis = k + 1;
				}
			}
			if (diff == 1 && axis)
				T[(size_t)i * groups + j] =
					(1 + (lam[axis - 1] == 2)) * gs /
					gamma[axis - 1] * m[axis - 1];
		}
	for (uint32_t i = 0; i < groups; i++)
		for (uint32_t j = 0; j < groups; j++) {
			double v = 0;

			if (i == j)
				continue;
			for (uint32_t q = 0; q < groups; q++)
				if (q != i && q != j)
					v += T[(size_t)i * groups + q] +
					     T[(size_t)q * groups + j];
			if (v > best)
				best = v;
		}
	free(T);
	return best / (groups - 2);
}

/* The planner's best plan minimises the criterion among the gammas that
 * fit: a brute force over every vector in [1, beta_0] x [1, beta_1] x ..
 * (skipping those that do not divide), with B_P so large that the global
 * links decide, and GROUP_FREE capping the nodes per group.  Direct: Eq.
 * 22 as printed; indirect: the planner ranks by Eq. 15's maximum over
 * the placement's pairs (eq14_max), and its smallest Eq. 17 is Eq. 24's
 * minimum. */
Test(nne, search_finds_the_minimum)
{
	struct topo *t = fx_topo("dragonfly:p=4,a=8,h=4,g=33");
	struct nne_net n = net_of(t, (double[]){ 1e30, 0, 0 });
	const char *grids[][2] = { { "8x8x4", "512x512x512" },
				   { "16x8x4", "512x512x256" },
				   { "6x4x9", "12x40x9" },
				   { "32x4", "64x64" },
				   { "4x4", NULL } };
	uint32_t gfree[33];

	for (uint32_t g = 0; g < 33; g++)
		gfree[g] = g < 20 ? 32 : g < 28 ? 12 : 5;
	for (size_t i = 0; i < sizeof(grids) / sizeof(grids[0]); i++) {
		struct nne_app a;
		struct nne_plan *plans;
		uint32_t np, v[3];
		struct err err = { 0 };

		app(&a, grids[i][0], grids[i][1]);
		for (int s = 0; s < 2; s++) {
			double best = INFINITY, best14 = INFINITY, scale = 0;
			double min_paper = INFINITY;

			cr_assert_eq(nne_plan_all(&a, &n, gfree, 1u << s,
						  &plans, &np, &err),
				     0, "%s", err.msg);
			cr_assert_gt(np, 0);
			for (v[0] = 1; v[0] <= a.beta[0]; v[0]++)
				for (v[1] = 1; v[1] <= a.beta[1]; v[1]++)
					for (v[2] = 1;
					     v[2] <= (a.d > 2 ? a.beta[2] : 1);
					     v[2]++) {
						uint64_t per = 1, L, fit = 0;
						double c;

						if (!nne_gamma_divides(&a, v))
							continue;
						for (uint32_t k = 0; k < a.d;
						     k++)
							per *= v[k];
						L = nne_tasks(&a) / per;
						for (uint32_t g = 0; g < 33;
						     g++)
							fit += gfree[g] >= per;
						if (fit < L)
							continue;
						c = s == 0 ? crit22(a.beta,
								    a.alpha, v,
								    a.d) :
							     crit24(a.beta,
								    a.alpha, v,
								    a.d);
						if (c < best)
							best = c;
						if (s == 1) {
							c = eq14_max(&a, v, 33);
							if (c < best14)
								best14 = c;
						}
					}
			/* Eq. 16 = Eq. 22 / (2 sum beta/alpha); Eq. 17 =
			 * 4 Eq. 24 / (2 sum beta/alpha) / 31 */
			for (uint32_t k = 0; k < a.d; k++)
				if (a.beta[k] > 1)
					scale += 2.0 * a.beta[k] / a.alpha[k];
			scale = s == 0 ? 1 / scale : 4 / scale / 31;
			for (uint32_t k = 0; k < np; k++)
				if (plans[k].delta_paper < min_paper)
					min_paper = plans[k].delta_paper;
			cr_expect_float_eq(min_paper, best * scale,
					   1e-9 * best * scale + 1e-15,
					   "%s %d: %g vs %g", grids[i][0], s,
					   min_paper, best * scale);
			if (s == 0)
				cr_expect_float_eq(plans[0].delta, best * scale,
						   1e-9 * best * scale + 1e-15,
						   "%s direct: %g vs %g",
						   grids[i][0], plans[0].delta,
						   best * scale);
			else
				cr_expect_float_eq(plans[0].delta, best14,
						   1e-9 * best14 + 1e-15,
						   "%s indirect: %g vs %g",
						   grids[i][0], plans[0].delta,
						   best14);
			free(plans);
		}
	}
	topo_destroy(t);
}

/* Rank r's node is in the group of r's gamma-box; each group holds one
 * whole box, on usable nodes only, spread over its routers. */
Test(nne, layout_realises_the_plan)
{
	struct topo *t = fx_topo("dragonfly:p=4,a=8,h=4,g=33");
	struct nne_net n = net_of(t, NULL);
	uint32_t N = topo_num_nodes(t), *rn, groups[33], *cnt;
	uint8_t *usable = malloc(N);
	struct nne_app a;
	struct nne_plan p;
	struct err err = { 0 };

	/* groups 0-3 busy, group 4 has 20 usable nodes: too few for 32 */
	for (uint32_t i = 0; i < N; i++)
		usable[i] = i >= 4 * 32 && !(i >= 4 * 32 && i < 4 * 32 + 12);
	app(&a, "8x8x4", NULL);
	cr_assert_eq(nne_evaluate(&a, (uint32_t[]){ 4, 4, 2 }, NNE_CART_DIRECT,
				  &n, &p, &err),
		     0);
	rn = malloc(256 * sizeof(*rn));
	cnt = calloc(33, sizeof(*cnt));
	cr_assert_eq(nne_layout(t, usable, &a, &p, 1, 7, rn, groups, &err), 0,
		     "%s", err.msg);
	for (uint32_t r = 0; r < 256; r++) {
		uint32_t x = r % 8, y = r / 8 % 8, z = r / 64;
		uint32_t box = x / 4 + 2 * (y / 4 + 2 * (z / 2));
		uint32_t g = topo_switch_group(t, topo_node_switch(t, rn[r]));

		cr_expect(usable[rn[r]], "rank %u on busy node %u", r, rn[r]);
		cr_expect_eq(g, groups[box], "rank %u: group %u, box %u -> %u",
			     r, g, box, groups[box]);
		cr_expect_geq(g, 5, "group %u lacks free nodes", g);
		cnt[g]++;
		for (uint32_t q = 0; q < r; q++)
			cr_expect_neq(rn[q], rn[r], "ranks %u and %u", q, r);
	}
	for (uint32_t g = 0; g < 33; g++)
		cr_expect(cnt[g] == 0 || cnt[g] == 32, "group %u: %u", g,
			  cnt[g]);
	/* box-local ranks 4i .. 4i+3 (x0 = 0..3 of a box row) share a
	 * router: each router's nodes are consecutive slots */
	for (uint32_t r = 0; r < 256; r += 4)
		for (uint32_t q = 1; q < 4; q++)
			cr_expect_eq(topo_node_switch(t, rn[r + q]),
				     topo_node_switch(t, rn[r]),
				     "ranks %u and %u on other routers", r,
				     r + q);
	/* 32 tasks on 8 routers of 4 nodes: every router used, 4 each */
	for (uint32_t s = 8 * groups[0]; s < 8 * groups[0] + 8; s++) {
		uint32_t c = 0, k;
		const uint32_t *nodes = topo_switch_nodes(t, s, &k);

		for (uint32_t r = 0; r < 256; r++)
			for (uint32_t j = 0; j < k; j++)
				c += rn[r] == nodes[j];
		cr_expect_eq(c, 4, "router %u: %u tasks", s, c);
	}
	/* |gamma| = 16 on 8 routers: 2 per router */
	cr_assert_eq(nne_evaluate(&a, (uint32_t[]){ 4, 2, 2 },
				  NNE_RANDOM_DIRECT, &n, &p, &err),
		     0);
	memset(cnt, 0, 33 * sizeof(*cnt));
	cr_assert_eq(nne_layout(t, usable, &a, &p, 1, 7, rn, groups, &err), 0,
		     "%s", err.msg);
	for (uint32_t r = 0; r < 256; r++)
		cnt[topo_switch_group(t, topo_node_switch(t, rn[r]))]++;
	for (uint32_t g = 0; g < 33; g++)
		cr_expect(cnt[g] == 0 || cnt[g] == 16, "group %u: %u", g,
			  cnt[g]);
	/* 4 tasks per node: |gamma| = 128 tasks on 32 nodes per group, each
	 * node 4 ranks of one box; each task injects at most B_P / 4 */
	n.tasks_per_node = 4;
	cr_assert_eq(nne_evaluate(&a, (uint32_t[]){ 8, 4, 4 }, NNE_CART_DIRECT,
				  &n, &p, &err),
		     0);
	cr_expect_eq(p.nodes_per_group, 32);
	cr_expect_eq(p.groups, 2);
	/* Eq. 16: lambda = (1, 2, 1): 2 * 128/4 * m_1; m = 1/6 each */
	cr_expect_float_eq(p.bw, fmin(n.bp / 4, n.br / (2 * 32.0 / 6)), REL);
	cr_assert_eq(nne_layout(t, NULL, &a, &p, 4, 7, rn, groups, &err), 0,
		     "%s", err.msg);
	{
		uint32_t *per_node = calloc(N, sizeof(*per_node));

		for (uint32_t r = 0; r < 256; r++) {
			uint32_t g = topo_switch_group(
				t, topo_node_switch(t, rn[r]));

			per_node[rn[r]]++;
			cr_expect_eq(g, groups[r / 8 % 8 / 4], "rank %u", r);
		}
		for (uint32_t i = 0; i < N; i++)
			cr_expect(per_node[i] == 0 || per_node[i] == 4,
				  "node %u: %u ranks", i, per_node[i]);
		free(per_node);
	}
	n.tasks_per_node = 1;
	/* not enough groups */
	for (uint32_t i = 0; i < N; i++)
		usable[i] = i < 5 * 32;
	cr_assert_eq(nne_evaluate(&a, (uint32_t[]){ 4, 4, 2 }, NNE_CART_DIRECT,
				  &n, &p, &err),
		     0);
	cr_expect_eq(nne_layout(t, usable, &a, &p, 1, 7, rn, groups, &err), -1);
	cr_expect(strstr(err.msg, "needs 8"), "%s", err.msg);
	free(usable);
	free(rn);
	free(cnt);
	topo_destroy(t);
}
