/* test_mcf_tpl.c - path-template MCF with GLPK: hand-solved instances,
 * input checks, and a second method (the path-based MCF model on the same
 * paths, one path per group). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "evaluator/models/mcf_tpl.h"
#include "evaluator/models/model.h"
#include "topo/util/rng.h"

/* One flow (w = 1), group 0: 1 path over link 0 (C = 1); group 1: 2 paths
 * each crossing link 1 (C = 3) once, so M[1,1] = 2.  x0 <= 1, 2 x1 <= 3,
 * alpha = x0 + 2 x1 = 1 + 3 = 4. */
Test(mcf_tpl, one_flow_two_groups)
{
	double cap[] = { 1, 3 }, w[] = { 1 }, mult[] = { 1, 2 },
	       cnt[] = { 1, 2 };
	uint32_t foff[] = { 0, 2 }, coff[] = { 0, 1, 2 }, link[] = { 0, 1 };
	double x[2];
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
	struct mcf_tpl_result r = { .x = x };
	struct err e = { 0 };

	cr_assert_eq(mcf_tpl_solve_glpk(&p, NULL, &r, &e), 0, "%s", e.msg);
	cr_assert_eq(r.status, MCF_TPL_OPTIMAL);
	cr_expect_float_eq(r.alpha, 4.0, 1e-9);
	cr_expect_float_eq(r.lower, 4.0, 1e-9);
	cr_expect_float_eq(r.upper, 4.0, 1e-9);
	cr_expect_float_eq(x[0], 1.0, 1e-9);
	cr_expect_float_eq(x[1], 1.5, 1e-9);
	cr_expect_str_eq(r.solver, "glpk");
}

/* Two flows share link 0 (C = 3); flow 1 (w = 2) crosses link 1 (C = 2)
 * twice: 2 x1 <= 2, x1 >= 2 alpha gives alpha <= 0.5; link 0 allows
 * 3 alpha <= 3.  alpha = 0.5. */
Test(mcf_tpl, twice_crossed_link_binds)
{
	double cap[] = { 3, 2 }, w[] = { 1, 2 }, mult[] = { 1, 1 };
	double cnt[] = { 1, 1, 2 };
	uint32_t foff[] = { 0, 1, 2 }, coff[] = { 0, 1, 3 };
	uint32_t link[] = { 0, 0, 1 };
	struct mcf_tpl p = { .nlinks = 2,
			     .cap = cap,
			     .nflows = 2,
			     .demand = w,
			     .flow_off = foff,
			     .ngroups = 2,
			     .mult = mult,
			     .col_off = coff,
			     .col_link = link,
			     .col_cnt = cnt };
	struct mcf_tpl_result r = { 0 };
	struct err e = { 0 };

	cr_assert_eq(mcf_tpl_solve_glpk(&p, NULL, &r, &e), 0, "%s", e.msg);
	cr_expect_float_eq(r.alpha, 0.5, 1e-9);
}

Test(mcf_tpl, bad_input)
{
	double cap[] = { 1 }, w[] = { 0 }, mult[] = { 1 }, cnt[] = { 1 };
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
	struct mcf_tpl_result r = { 0 };
	struct err e = { 0 };

	cr_expect_eq(mcf_tpl_solve_glpk(&p, NULL, &r, &e), -1);
	cr_expect_str_eq(e.msg, "path template: flow 0: demand must be > 0");
	w[0] = 1;
	link[0] = 5;
	cr_expect_eq(mcf_tpl_check(&p, &e), -1);
	cr_expect_str_eq(e.msg, "path template: group 0: bad link entry");
}

/* Random instances: each path its own group (mult 1, its crossings
 * counted) must give the alpha of the path-based MCF model. */
Test(mcf_tpl, equals_path_mcf)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct rng g;
		uint32_t nl = 10, nf = 6, foff[7], poff[6 * 3 + 1];
		uint32_t links[6 * 3 * 4], np = 0, nlk = 0;
		double cap[10], w[6];
		/* template: one group per path */
		uint32_t coff[6 * 3 + 1], clink[6 * 3 * 4];
		double mult[6 * 3], cnt[6 * 3 * 4];
		uint32_t nc = 0;
		struct model_input in;
		struct model_result mr;
		struct mcf_tpl_result r = { 0 };
		struct err e = { 0 };

		rng_seed(&g, seed);
		for (uint32_t l = 0; l < nl; l++)
			cap[l] = 1 + (double)rng_below(&g, 4);
		foff[0] = 0;
		poff[0] = 0;
		coff[0] = 0;
		for (uint32_t f = 0; f < nf; f++) {
			uint32_t k = 1 + (uint32_t)rng_below(&g, 3);

			w[f] = 1 + (double)rng_below(&g, 3);
			for (uint32_t q = 0; q < k; q++) {
				uint32_t len = 1 + (uint32_t)rng_below(&g, 4);

				for (uint32_t i = 0; i < len; i++) {
					uint32_t l =
						(uint32_t)rng_below(&g, nl);
					uint32_t c;

					links[nlk++] = l;
					for (c = coff[np]; c < nc; c++)
						if (clink[c] == l)
							break;
					if (c < nc) {
						cnt[c] += 1;
					} else {
						clink[nc] = l;
						cnt[nc++] = 1;
					}
				}
				mult[np] = 1;
				np++;
				poff[np] = nlk;
				coff[np] = nc;
			}
			foff[f + 1] = np;
		}
		memset(&in, 0, sizeof(in));
		in.nlinks = nl;
		in.cap = cap;
		in.nflows = nf;
		in.demand = w;
		in.flow_off = foff;
		in.npaths = np;
		in.path_off = poff;
		in.links = links;
		cr_assert_eq(model_solve("mcf", &in, NULL, &mr, &e), 0, "%s",
			     e.msg);
		{
			struct mcf_tpl p = { .nlinks = nl,
					     .cap = cap,
					     .nflows = nf,
					     .demand = w,
					     .flow_off = foff,
					     .ngroups = np,
					     .mult = mult,
					     .col_off = coff,
					     .col_link = clink,
					     .col_cnt = cnt };

			cr_assert_eq(mcf_tpl_solve_glpk(&p, NULL, &r, &e), 0,
				     "%s", e.msg);
		}
		cr_expect_float_eq(r.alpha, mr.alpha, 1e-7,
				   "seed %llu: template %g, path MCF %g",
				   (unsigned long long)seed, r.alpha, mr.alpha);
		model_result_free(&mr);
	}
}
