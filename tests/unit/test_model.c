/* test_model.c - the throughput models on hand-built instances (answers
 * worked by hand in the comments), cross-checks between models on random
 * instances (LP against progressive filling, MCF against MMF, HM against
 * JM, link loads against capacities) and the GLPK status paths. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "evaluator/models/model.h"
#include "evaluator/models/model_impl.h"
#include "topo/util/rng.h"
#include "topo/routing.h"
#include "topo/topo_conf.h"
#include "topo/topo.h"
#include "tests/unit/fixtures.h"

#define TOL 1e-9

/* A hand-built instance: up to 16 flows, 64 paths, 256 path links. */
struct inst {
	uint32_t nlinks, nflows, npaths, nent;
	double cap[64];
	double demand[16];
	uint32_t src[16];
	uint32_t flow_off[17];
	uint32_t path_off[65];
	uint32_t links[256];
};

static void inst_init(struct inst *s, uint32_t nlinks, const double *cap)
{
	memset(s, 0, sizeof(*s));
	s->nlinks = nlinks;
	memcpy(s->cap, cap, nlinks * sizeof(double));
}

/* Start a new flow of demand W. */
static void inst_flow(struct inst *s, double w)
{
	s->demand[s->nflows] = w;
	s->src[s->nflows] = s->nflows;
	s->nflows++;
	s->flow_off[s->nflows] = s->npaths;
}

/* Add a path (LEN links) to the last flow. */
static void inst_path(struct inst *s, uint32_t len, const uint32_t *links)
{
	memcpy(s->links + s->nent, links, len * sizeof(uint32_t));
	s->nent += len;
	s->npaths++;
	s->path_off[s->npaths] = s->nent;
	s->flow_off[s->nflows] = s->npaths;
}

static struct model_input as_input(struct inst *s)
{
	struct model_input in = {
		.nlinks = s->nlinks,
		.cap = s->cap,
		.nflows = s->nflows,
		.demand = s->demand,
		.src = s->src,
		.flow_off = s->flow_off,
		.npaths = s->npaths,
		.path_off = s->path_off,
		.links = s->links,
	};
	return in;
}

static void solve(const char *model, const struct model_input *in,
		  const struct model_opts *o, struct model_result *res)
{
	struct err err = { 0 };

	cr_assert_eq(model_solve(model, in, o, res, &err), 0, "%s: %s", model,
		     err.msg);
	cr_assert_eq(res->status, MODEL_OPTIMAL, "%s: status %d", model,
		     res->status);
	cr_assert_eq(res->nflows, in->nflows);
}

/* Every link's load (from the path rates) within its capacity, path rates
 * non-negative and summing to each flow's rate. */
static void check_feasible(const struct model_input *in,
			   const struct model_result *res)
{
	double *load = calloc(in->nlinks, sizeof(double));

	for (uint32_t i = 0; i < in->nflows; i++) {
		double s = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			cr_assert_geq(res->path_rates[p], 0);
			s += res->path_rates[p];
			for (uint32_t e = in->path_off[p];
			     e < in->path_off[p + 1]; e++)
				load[in->links[e]] += res->path_rates[p];
		}
		cr_assert_float_eq(s, res->rates[i], 1e-9 * (1 + s),
				   "%s flow %u: paths %g rate %g", res->model,
				   i, s, res->rates[i]);
	}
	for (uint32_t l = 0; l < in->nlinks; l++)
		cr_assert_leq(load[l], in->cap[l] * (1 + 1e-9) + 1e-12,
			      "%s: link %u load %.12g > capacity %g",
			      res->model, l, load[l], in->cap[l]);
	free(load);
}

static void expect_rates(const char *model, struct model_input *in,
			 const double *want, double alpha)
{
	struct model_result res;
	double agg = 0;

	solve(model, in, NULL, &res);
	for (uint32_t i = 0; i < in->nflows; i++) {
		cr_expect_float_eq(res.rates[i], want[i], TOL,
				   "%s flow %u: %.12g, want %.12g", model, i,
				   res.rates[i], want[i]);
		agg += want[i];
	}
	cr_expect_float_eq(res.aggregate, agg, TOL);
	cr_expect_float_eq(res.alpha, alpha, TOL, "%s alpha %g want %g", model,
			   res.alpha, alpha);
	check_feasible(in, &res);
	model_result_free(&res);
}

/* Two flows, one path each: A = {0}, B = {0, 1}; C0 = 1, C1 = 0.25.
 *  HM: u0 = 2, u1 = 1 -> A = 1/2, B = min(1/2, 1/4) = 1/4.
 *  JM: round 1 shares 1/2, 1/4: A += 1/2, B += 1/4, link 1 saturates (it set
 *      the smallest increment); R0 = 1/4; round 2: A += 1/4 -> 3/4.
 *  MMF: level 1/4 saturates link 1 (B = 1/4); A fills link 0 -> 3/4.
 *  MCF: alpha = 1/4 (link 1). */
static void two_flows(struct inst *s, double wa, double wb)
{
	static const double cap[] = { 1.0, 0.25 };

	inst_init(s, 2, cap);
	inst_flow(s, wa);
	inst_path(s, 1, (uint32_t[]){ 0 });
	inst_flow(s, wb);
	inst_path(s, 2, (uint32_t[]){ 0, 1 });
}

Test(model, two_flows)
{
	struct inst s;
	struct model_input in;

	two_flows(&s, 1, 1);
	in = as_input(&s);
	expect_rates("hm", &in, (double[]){ 0.5, 0.25 }, 0);
	expect_rates("jm", &in, (double[]){ 0.75, 0.25 }, 0);
	expect_rates("mmf", &in, (double[]){ 0.75, 0.25 }, 0.25);
	expect_rates("mcf", &in, (double[]){ 0.25, 0.25 }, 0.25);
}

/* Demands as weights: A = 2, B = 1 (HM/JM ignore them).
 *  MCF: 2a + a <= 1, a <= 1/4 -> a = 1/4: A = 1/2, B = 1/4.
 *  MMF: B stops at level 1/4; A = 2t with 2t + 1/4 <= 1 -> A = 3/4. */
Test(model, two_flows_weighted)
{
	struct inst s;
	struct model_input in;

	two_flows(&s, 2, 1);
	in = as_input(&s);
	expect_rates("hm", &in, (double[]){ 0.5, 0.25 }, 0);
	expect_rates("jm", &in, (double[]){ 0.75, 0.25 }, 0);
	expect_rates("mcf", &in, (double[]){ 0.5, 0.25 }, 0.25);
	expect_rates("mmf", &in, (double[]){ 0.75, 0.25 }, 0.25);
}

/* Parking lot: links 0, 1, 2 of capacity 1, 2, 3; the long flow L crosses
 * all three, S0, S1, S2 one each.
 *  HM: u = 2 everywhere: L = 1/2, S0 = 1/2, S1 = 1, S2 = 3/2.
 *  JM: round 1 as HM; R = (0, 1/2, 1): link 0 saturates L and S0; round
 *      2: S1 += 1/2, S2 += 1 -> (1/2, 1/2, 3/2, 5/2).
 *  MMF: level 1/2 saturates link 0; link 1 then has 1 left for S1, link 2
 *      has 2 for S2 -> (1/2, 1/2, 3/2, 5/2).
 *  MCF: 2a <= 1 -> 1/2 for all. */
static void parking_lot(struct inst *s)
{
	static const double cap[] = { 1, 2, 3 };

	inst_init(s, 3, cap);
	inst_flow(s, 1);
	inst_path(s, 3, (uint32_t[]){ 0, 1, 2 });
	for (uint32_t l = 0; l < 3; l++) {
		inst_flow(s, 1);
		inst_path(s, 1, &l);
	}
}

Test(model, parking_lot)
{
	struct inst s;
	struct model_input in;
	struct model_opts o;
	struct model_result res;

	parking_lot(&s);
	in = as_input(&s);
	expect_rates("hm", &in, (double[]){ 0.5, 0.5, 1, 1.5 }, 0);
	expect_rates("jm", &in, (double[]){ 0.5, 0.5, 1.5, 2.5 }, 0);
	expect_rates("mmf", &in, (double[]){ 0.5, 0.5, 1.5, 2.5 }, 0.5);
	expect_rates("mcf", &in, (double[]){ 0.5, 0.5, 0.5, 0.5 }, 0.5);
	/* the iterative LP gives the same as filling */
	model_opts_init(&o);
	o.mmf_method = MODEL_MMF_LP;
	solve("mmf", &in, &o, &res);
	cr_expect_float_eq(res.rates[0], 0.5, TOL);
	cr_expect_float_eq(res.rates[1], 0.5, TOL);
	cr_expect_float_eq(res.rates[2], 1.5, TOL);
	cr_expect_float_eq(res.rates[3], 2.5, TOL);
	cr_expect_eq(res.iterations, 3); /* levels 1/2, 3/2, 5/2 */
	model_result_free(&res);
}

/* Per-node statistics and the most loaded links, parking lot under MMF
 * with L from node 0, S0 and S1 from node 1, S2 from node 2: node sums
 * 1/2, 2, 5/2; mean 5/3; Jain = 5^2 / (3 (1/4 + 4 + 25/4)) = 25/31.5.
 * Loads 1, 2, 3 = capacities: all at utilisation 1, lower id first. */
Test(model, node_and_link_stats)
{
	struct inst s;
	struct model_input in;
	struct model_result res;

	parking_lot(&s);
	s.src[0] = 0;
	s.src[1] = 1;
	s.src[2] = 1;
	s.src[3] = 2;
	in = as_input(&s);
	solve("mmf", &in, NULL, &res);
	cr_expect_eq(res.nnodes, 3);
	cr_expect_float_eq(res.node_min, 0.5, TOL);
	cr_expect_float_eq(res.node_max, 2.5, TOL);
	cr_expect_float_eq(res.node_mean, 5.0 / 3, TOL);
	cr_expect_float_eq(res.node_jain, 25 / 31.5, TOL);
	cr_expect_float_eq(res.min_rate, 0.5, TOL);
	cr_expect_float_eq(res.max_rate, 2.5, TOL);
	cr_expect_float_eq(res.mean_rate, 5.0 / 4, TOL);
	cr_assert_eq(res.ntop, 3);
	for (uint32_t k = 0; k < 3; k++) {
		cr_expect_eq(res.top[k].link, k);
		cr_expect_float_eq(res.top[k].load, k + 1.0, TOL);
		cr_expect_float_eq(res.top[k].capacity, k + 1.0, TOL);
	}
	model_result_free(&res);
}

/* Multi-path: A has paths {0} and {1}, B {1}, C {1, 2}; C = (1, 1, 0.2).
 *  HM: u = (1, 3, 1): A = 1 + 1/3, B = 1/3, C = min(1/3, 0.2) = 0.2.
 *  JM: round 1 as HM, R = (0, 2/15, 0): links 0 and 2 saturate; round 2:
 *      A's path {1} and B share 2/15: +1/15 each -> A = 1.4, B = 0.4.
 *  MMF: C = 0.2 (link 2); then B <= 1 - 0.2 = 0.8 on link 1 with A moved
 *       to link 0; A = 1 -> (1, 0.8, 0.2) in three LPs.  The hybrid
 *       (the default here): link 2 is filled, the LP on links 0, 1 gives
 *       1/2 first (2t + x1 <= 1), so a filling level at 0.2, then LPs at
 *       0.8 and 1: 3 LPs + 1 level.
 *  MCF: 0.2 for all. */
Test(model, multipath)
{
	static const double cap[] = { 1, 1, 0.2 };
	struct inst s;
	struct model_input in;
	struct model_opts o;
	struct model_result res;

	inst_init(&s, 3, cap);
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 1);
	inst_path(&s, 2, (uint32_t[]){ 1, 2 });
	in = as_input(&s);
	expect_rates("hm", &in, (double[]){ 4.0 / 3, 1.0 / 3, 0.2 }, 0);
	expect_rates("jm", &in, (double[]){ 1.4, 0.4, 0.2 }, 0);
	expect_rates("mmf", &in, (double[]){ 1, 0.8, 0.2 }, 0.2);
	expect_rates("mcf", &in, (double[]){ 0.2, 0.2, 0.2 }, 0.2);
	solve("mmf", &in, NULL, &res);
	cr_expect_eq(res.iterations, 4);
	model_result_free(&res);
	model_opts_init(&o);
	o.mmf_method = MODEL_MMF_LP;
	solve("mmf", &in, &o, &res);
	cr_expect_eq(res.iterations, 3);
	model_result_free(&res);
}

/* A path crossing a link twice loads it twice: one flow, path {0, 0},
 * C0 = 1 -> every model gives 1/2. */
Test(model, link_crossed_twice)
{
	static const double cap[] = { 1 };
	struct inst s;
	struct model_input in;

	inst_init(&s, 1, cap);
	inst_flow(&s, 1);
	inst_path(&s, 2, (uint32_t[]){ 0, 0 });
	in = as_input(&s);
	expect_rates("hm", &in, (double[]){ 0.5 }, 0);
	expect_rates("jm", &in, (double[]){ 0.5 }, 0);
	expect_rates("mmf", &in, (double[]){ 0.5 }, 0.5);
	expect_rates("mcf", &in, (double[]){ 0.5 }, 0.5);
}

/* ---- random instances ---- */

struct rinst {
	struct model_input in;
	double *cap, *demand;
	uint32_t *flow_off, *path_off, *links;
};

/* NF flows over NL links, each flow KMIN..KMAX paths of 1..4 distinct
 * links, capacities in [0.5, 2], demands 1 or in [0.5, 2]. */
static void rinst_make_k(struct rinst *r, uint64_t seed, uint32_t nl,
			 uint32_t nf, uint32_t kmin, uint32_t kmax, bool unit)
{
	struct rng g;
	uint32_t np = 0, ne = 0;

	rng_seed(&g, seed);
	r->cap = malloc(nl * sizeof(double));
	r->demand = malloc(nf * sizeof(double));
	r->flow_off = malloc((nf + 1) * sizeof(uint32_t));
	r->path_off = malloc((nf * kmax + 1) * sizeof(uint32_t));
	r->links = malloc(nf * kmax * 4 * sizeof(uint32_t));
	for (uint32_t l = 0; l < nl; l++)
		r->cap[l] = 0.5 + 1.5 * rng_double(&g);
	r->path_off[0] = 0;
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t k = kmin + (uint32_t)rng_below(&g, kmax - kmin + 1);

		r->demand[i] = unit ? 1 : 0.5 + 1.5 * rng_double(&g);
		r->flow_off[i] = np;
		for (uint32_t p = 0; p < k; p++) {
			uint32_t len = 1 + (uint32_t)rng_below(&g, 4);

			for (uint32_t e = 0; e < len; e++) {
				uint32_t l;
				bool dup;

				do {
					l = (uint32_t)rng_below(&g, nl);
					dup = false;
					for (uint32_t q = r->path_off[np];
					     q < ne; q++)
						dup |= r->links[q] == l;
				} while (dup);
				r->links[ne++] = l;
			}
			np++;
			r->path_off[np] = ne;
		}
	}
	r->flow_off[nf] = np;
	r->in = (struct model_input){
		.nlinks = nl,
		.cap = r->cap,
		.nflows = nf,
		.demand = r->demand,
		.flow_off = r->flow_off,
		.npaths = np,
		.path_off = r->path_off,
		.links = r->links,
	};
}

/* The same with 1..KMAX paths per flow. */
static void rinst_make(struct rinst *r, uint64_t seed, uint32_t nl, uint32_t nf,
		       uint32_t kmax, bool unit)
{
	rinst_make_k(r, seed, nl, nf, 1, kmax, unit);
}

static void rinst_free(struct rinst *r)
{
	free(r->cap);
	free(r->demand);
	free(r->flow_off);
	free(r->path_off);
	free(r->links);
}

/* MMF-SP: the iterative LP and progressive filling agree (weighted). */
Test(model, mmf_lp_equals_filling)
{
	for (uint64_t seed = 1; seed <= 30; seed++) {
		struct rinst r;
		struct model_opts lp, fill;
		struct model_result a, b;

		rinst_make(&r, seed, 12 + seed % 9, 10 + seed % 23, 1,
			   seed % 2);
		model_opts_init(&lp);
		lp.mmf_method = MODEL_MMF_LP;
		model_opts_init(&fill);
		fill.mmf_method = MODEL_MMF_FILLING;
		solve("mmf", &r.in, &lp, &a);
		solve("mmf", &r.in, &fill, &b);
		for (uint32_t i = 0; i < r.in.nflows; i++)
			cr_expect_float_eq(
				a.rates[i], b.rates[i], 1e-7,
				"seed %llu flow %u: lp %.10g filling "
				"%.10g",
				(unsigned long long)seed, i, a.rates[i],
				b.rates[i]);
		cr_expect_float_eq(a.alpha, b.alpha, 1e-7);
		check_feasible(&r.in, &a);
		check_feasible(&r.in, &b);
		model_result_free(&a);
		model_result_free(&b);
		rinst_free(&r);
	}
}

/* Max-min fairness by definition (single path): every flow crosses a
 * saturated link on which it has the largest rate/demand level. */
Test(model, filling_is_max_min_fair)
{
	for (uint64_t seed = 100; seed < 120; seed++) {
		struct rinst r;
		struct model_result a;
		double *load;

		rinst_make(&r, seed, 15, 25, 1, seed % 2);
		solve("mmf", &r.in, NULL, &a);
		load = calloc(r.in.nlinks, sizeof(double));
		for (uint32_t p = 0; p < r.in.npaths; p++)
			for (uint32_t e = r.in.path_off[p];
			     e < r.in.path_off[p + 1]; e++)
				load[r.in.links[e]] += a.path_rates[p];
		for (uint32_t i = 0; i < r.in.nflows; i++) {
			double lvl = a.rates[i] / r.in.demand[i];
			bool ok = false;

			for (uint32_t e = r.in.path_off[i];
			     e < r.in.path_off[i + 1] && !ok; e++) {
				uint32_t l = r.in.links[e];
				double top = 0;

				if (load[l] < r.in.cap[l] * (1 - 1e-9))
					continue;
				for (uint32_t j = 0; j < r.in.nflows; j++)
					for (uint32_t q = r.in.path_off[j];
					     q < r.in.path_off[j + 1]; q++)
						if (r.in.links[q] == l &&
						    a.rates[j] / r.in.demand[j] >
							    top)
							top = a.rates[j] /
							      r.in.demand[j];
				ok = lvl >= top * (1 - 1e-9);
			}
			cr_expect(ok, "seed %llu flow %u has no bottleneck",
				  (unsigned long long)seed, i);
		}
		free(load);
		model_result_free(&a);
		rinst_free(&r);
	}
}

/* JM with need_flows = N stops once flows 0 .. N-1 are saturated and
 * gives them exactly (bit for bit) the rates of the full run.  Parking
 * lot: L (flow 0) saturates in round 1, S1 (flow 2) only in round 2. */
Test(model, jm_need_flows)
{
	struct inst s;
	struct model_input in;
	struct model_opts o;
	struct model_result full, part;

	parking_lot(&s);
	in = as_input(&s);
	solve("jm", &in, NULL, &full);
	cr_expect_eq(full.iterations, 2);
	model_opts_init(&o);
	o.top_links = 0;
	o.need_flows = 1;
	solve("jm", &in, &o, &part);
	cr_expect_eq(part.iterations, 1);
	cr_expect_eq(part.rates[0], full.rates[0]);
	cr_expect_eq(part.ntop, 0);
	model_result_free(&part);
	o.need_flows = 3;
	solve("jm", &in, &o, &part);
	cr_expect_eq(part.iterations, 2);
	for (uint32_t i = 0; i < 3; i++)
		cr_expect_eq(part.rates[i], full.rates[i], "flow %u", i);
	model_result_free(&part);
	model_result_free(&full);
	/* random multi-path instances, every prefix */
	for (uint64_t seed = 1; seed <= 10; seed++) {
		struct rinst r;

		rinst_make(&r, seed * 104729, 12, 9 + seed % 5, 4, true);
		solve("jm", &r.in, NULL, &full);
		for (uint32_t n = 1; n <= r.in.nflows; n++) {
			o.need_flows = n;
			solve("jm", &r.in, &o, &part);
			cr_expect_leq(part.iterations, full.iterations);
			for (uint32_t i = 0; i < n; i++)
				cr_expect_eq(part.rates[i], full.rates[i],
					     "seed %llu need %u flow %u: "
					     "%.17g, full %.17g",
					     (unsigned long long)seed, n, i,
					     part.rates[i], full.rates[i]);
			model_result_free(&part);
		}
		model_result_free(&full);
		rinst_free(&r);
	}
}

/* Multi-path, unit demands: MCF = the smallest MMF rate = MMF's first
 * level; HM <= JM per flow; every model feasible. */
Test(model, cross_checks_multipath)
{
	for (uint64_t seed = 1; seed <= 25; seed++) {
		struct rinst r;
		struct model_result hm, jm, mcf, mmf;

		rinst_make(&r, seed * 7919, 10 + seed % 7, 8 + seed % 17, 4,
			   true);
		solve("hm", &r.in, NULL, &hm);
		solve("jm", &r.in, NULL, &jm);
		solve("mcf", &r.in, NULL, &mcf);
		solve("mmf", &r.in, NULL, &mmf);
		cr_expect_float_eq(mcf.alpha, mmf.min_rate, 1e-7,
				   "seed %llu: mcf %.10g, mmf min %.10g",
				   (unsigned long long)seed, mcf.alpha,
				   mmf.min_rate);
		cr_expect_float_eq(mmf.alpha, mcf.alpha, 1e-7);
		for (uint32_t i = 0; i < r.in.nflows; i++) {
			cr_expect_leq(hm.rates[i], jm.rates[i] + 1e-12,
				      "seed %llu flow %u: hm %g > jm %g",
				      (unsigned long long)seed, i, hm.rates[i],
				      jm.rates[i]);
			cr_expect_float_eq(mcf.rates[i], mcf.alpha, 1e-12);
			/* MMF is at least the concurrent level for all */
			cr_expect_geq(mmf.rates[i], mcf.alpha - 1e-7);
		}
		/* MMF's aggregate is at least MCF's */
		cr_expect_geq(mmf.aggregate, mcf.aggregate - 1e-7);
		check_feasible(&r.in, &hm);
		check_feasible(&r.in, &jm);
		check_feasible(&r.in, &mcf);
		check_feasible(&r.in, &mmf);
		model_result_free(&hm);
		model_result_free(&jm);
		model_result_free(&mcf);
		model_result_free(&mmf);
		rinst_free(&r);
	}
}

/* MCF's two engines on the same instances: the first-order solver's
 * certified interval [alpha, bound] holds GLPK's optimum and is within the
 * gap asked for, and its rates are feasible. */
Test(model, mcf_fast_brackets_exact)
{
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct rinst r;
		struct model_opts o;
		struct model_result ex, fa;

		rinst_make(&r, seed * 104729, 20 + seed % 9, 60 + seed * 7, 5,
			   seed % 3 != 0);
		model_opts_init(&o);
		o.engine = MODEL_ENGINE_EXACT;
		solve("mcf", &r.in, &o, &ex);
		cr_expect_str_eq(ex.solver, "glpk");
		cr_expect_eq(ex.gap, 0);
		o.engine = MODEL_ENGINE_FAST;
		o.gap = seed % 2 ? 1e-2 : 1e-4;
		solve("mcf", &r.in, &o, &fa);
		cr_expect_str_eq(fa.solver, "pdhg");
		cr_expect_leq(fa.alpha, ex.alpha * (1 + 1e-9),
			      "seed %llu: lower %.10g > optimum %.10g",
			      (unsigned long long)seed, fa.alpha, ex.alpha);
		cr_expect_geq(fa.bound, ex.alpha * (1 - 1e-9),
			      "seed %llu: bound %.10g < optimum %.10g",
			      (unsigned long long)seed, fa.bound, ex.alpha);
		cr_expect_leq(fa.gap, o.gap, "seed %llu: gap %g",
			      (unsigned long long)seed, fa.gap);
		cr_expect_float_eq(fa.gap, (fa.bound - fa.alpha) / fa.alpha,
				   1e-12);
		check_feasible(&r.in, &fa);
		for (uint32_t i = 0; i < r.in.nflows; i++)
			cr_expect_float_eq(
				fa.rates[i],
				fa.alpha * (r.in.demand ? r.in.demand[i] : 1),
				1e-12);
		model_result_free(&ex);
		model_result_free(&fa);
		rinst_free(&r);
	}
}

/* ---- mmf: the hybrid method against the iterative LP ---- */

static void mmf_with(const struct model_input *in, enum model_mmf_method m,
		     struct model_result *res)
{
	struct model_opts o;

	model_opts_init(&o);
	o.mmf_method = m;
	solve("mmf", in, &o, res);
	check_feasible(in, res);
}

/* The hybrid and the iterative LP (the reference) agree per flow to 1e-9
 * relative, and on the first level. */
static void expect_same_as_lp(const struct model_input *in, const char *what)
{
	struct model_result lp, hy;

	mmf_with(in, MODEL_MMF_LP, &lp);
	mmf_with(in, MODEL_MMF_HYBRID, &hy);
	for (uint32_t i = 0; i < in->nflows; i++)
		cr_expect(fabs(lp.rates[i] - hy.rates[i]) <=
				  1e-9 * fabs(lp.rates[i]) + 1e-13,
			  "%s flow %u: lp %.15g hybrid %.15g", what, i,
			  lp.rates[i], hy.rates[i]);
	cr_expect(fabs(lp.alpha - hy.alpha) <= 1e-9 * lp.alpha + 1e-13,
		  "%s: alpha lp %.15g hybrid %.15g", what, lp.alpha, hy.alpha);
	cr_expect_geq(hy.iterations, 1);
	model_result_free(&lp);
	model_result_free(&hy);
}

/* Both methods give WANT and first level ALPHA; the hybrid in ITS
 * iterations (LPs solved + filling levels). */
static void expect_mmf(const struct model_input *in, const double *want,
		       double alpha, uint32_t its)
{
	static const enum model_mmf_method ms[] = { MODEL_MMF_LP,
						    MODEL_MMF_HYBRID,
						    MODEL_MMF_AUTO };

	for (size_t m = 0; m < sizeof(ms) / sizeof(ms[0]); m++) {
		struct model_result res;

		mmf_with(in, ms[m], &res);
		for (uint32_t i = 0; i < in->nflows; i++)
			cr_expect_float_eq(res.rates[i], want[i], TOL,
					   "method %d flow %u: %.12g, want "
					   "%.12g",
					   ms[m], i, res.rates[i], want[i]);
		cr_expect_float_eq(res.alpha, alpha, TOL, "method %d alpha %g",
				   ms[m], res.alpha);
		if (ms[m] == MODEL_MMF_HYBRID)
			cr_expect_eq(res.iterations, its, "iterations %u",
				     res.iterations);
		model_result_free(&res);
	}
}

/* Links 0, 1, 2 of capacity 1, 1, 2; A = {0}, B = {0, 2}, C = {1} of
 * demand 1; D of demand 2 over {1} or {2}.
 *  Level 1: A = B = t on link 0 -> t <= 1/2; at 1/2, D can take
 *   x1 + x2 = 1 with x2 <= 3/2, C can reach 1: only A and B saturate.
 *  Level 2: C = t, D = 2t: t + x1 <= 1 (link 1), x2 <= 3/2 (link 2),
 *   x1 + x2 >= 2t -> 3t <= 5/2, t = 5/6: C = 5/6, D = 5/3 (1/6 + 3/2).
 *  The hybrid: link 0 carries single-path flows only (filling bound
 *  1/2); the LP (links 1, 2) first gives 3/4 (t + x1 <= 1, t + x2 <= 2,
 *  x1 + x2 >= 2t), so a filling step at 1/2, then the LP again at 5/6:
 *  2 LPs + 1 level. */
Test(model, mmf_hybrid_hand_worked)
{
	static const double cap[] = { 1, 1, 2 };
	struct inst s;
	struct model_input in;

	inst_init(&s, 3, cap);
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_flow(&s, 1);
	inst_path(&s, 2, (uint32_t[]){ 0, 2 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 2);
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_path(&s, 1, (uint32_t[]){ 2 });
	in = as_input(&s);
	expect_mmf(&in, (double[]){ 0.5, 0.5, 5.0 / 6, 5.0 / 3 }, 0.5, 3);
	/* a flow without paths: rate 0, first level 0 (one more level) */
	inst_flow(&s, 1);
	in = as_input(&s);
	expect_mmf(&in, (double[]){ 0.5, 0.5, 5.0 / 6, 5.0 / 3, 0 }, 0, 4);
}

/* Links 0, 1 of capacity 1, 3; A = {0, 0} (crosses link 0 twice), C =
 * {1}, demand 1; B of demand 2 over {0} or {1}.
 *  Level 1: link 0: 2t + x0 <= 1 -> t <= 1/2 (x0 = 0); B = x1 = 1 and C
 *   can grow on link 1: only A saturates, through link 0's dual (link 0
 *   is an LP row: B crosses it).
 *  Level 2: x0 = 0, x1 + t <= 3, x1 >= 2t -> t = 1: B = 2, C = 1.
 *  The hybrid: 2 LPs. */
Test(model, mmf_hybrid_link_crossed_twice)
{
	static const double cap[] = { 1, 3 };
	struct inst s;
	struct model_input in;

	inst_init(&s, 2, cap);
	inst_flow(&s, 1);
	inst_path(&s, 2, (uint32_t[]){ 0, 0 });
	inst_flow(&s, 2);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 1 });
	in = as_input(&s);
	expect_mmf(&in, (double[]){ 0.5, 2, 1 }, 0.5, 2);
}

/* Links 0, 1, 2 of capacity 0, 1, 1; A = {0}, B over {0} or {1}, C =
 * {2}, D = {1, 2}, demand 1.
 *  Level 1 = 0: A is stuck on link 0; B (x0 = 0) is not saturated.
 *  Level 2: x1 + t <= 1 (link 1), 2t <= 1 (link 2): B = C = D = 1/2.
 *  The hybrid: LP rows are links 0 and 1 (B's); link 2 is filled.  LP 1
 *  gives 0 (fixes A), LP 2 gives 1/2 and fixes B and D (link 1); link 2
 *  then fills at 1/2 without the LP (nothing unfixed left on its rows):
 *  2 LPs + 1 level. */
Test(model, mmf_hybrid_zero_capacity)
{
	static const double cap[] = { 0, 1, 1 };
	struct inst s;
	struct model_input in;

	inst_init(&s, 3, cap);
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 2 });
	inst_flow(&s, 1);
	inst_path(&s, 2, (uint32_t[]){ 1, 2 });
	in = as_input(&s);
	expect_mmf(&in, (double[]){ 0, 0.5, 0.5, 0.5 }, 0, 3);
}

/* A tie between the LP and filling: links 0, 1 of capacity 1, link 2 of
 * 2/3; A = {0}, B = {1}, C over {0} or {1}, D = {2}.
 *  A = B = C = t: 3t <= 2 -> 2/3, every flow saturated; D's link also
 *  fills at 2/3.  All four at 2/3, in one level. */
Test(model, mmf_hybrid_tie)
{
	static const double cap[] = { 1, 1, 2.0 / 3 };
	struct inst s;
	struct model_input in;
	struct model_result res;

	inst_init(&s, 3, cap);
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 0 });
	inst_path(&s, 1, (uint32_t[]){ 1 });
	inst_flow(&s, 1);
	inst_path(&s, 1, (uint32_t[]){ 2 });
	in = as_input(&s);
	for (int m = MODEL_MMF_LP; m <= MODEL_MMF_HYBRID;
	     m += MODEL_MMF_HYBRID - MODEL_MMF_LP) {
		mmf_with(&in, (enum model_mmf_method)m, &res);
		for (uint32_t i = 0; i < 4; i++)
			cr_expect_float_eq(res.rates[i], 2.0 / 3, TOL,
					   "method %d flow %u: %.12g", m, i,
					   res.rates[i]);
		cr_expect_float_eq(res.alpha, 2.0 / 3, TOL);
		model_result_free(&res);
	}
}

/* Random mixes of 1-3 paths per flow, weighted or not; some with a
 * zero-capacity link, some with paths crossing a link twice. */
Test(model, mmf_hybrid_equals_lp_random)
{
	for (uint64_t seed = 1; seed <= 40; seed++) {
		struct rinst r;
		char what[64];

		rinst_make(&r, seed * 31, 8 + seed % 11, 6 + seed % 29, 3,
			   seed % 2);
		if (seed % 3 == 0)
			r.cap[seed % r.in.nlinks] = 0;
		if (seed % 4 == 0)
			for (uint32_t p = 0; p < r.in.npaths; p += 2)
				if (r.path_off[p + 1] - r.path_off[p] >= 2)
					r.links[r.path_off[p] + 1] =
						r.links[r.path_off[p]];
		snprintf(what, sizeof(what), "seed %llu",
			 (unsigned long long)seed);
		expect_same_as_lp(&r.in, what);
		rinst_free(&r);
	}
}

/* MODEL_ENGINE_AUTO: exact up to MODEL_EXACT_NONZEROS LP non-zeros (the
 * template's: path-link entries + paths + flows), the first-order solver
 * above. */
Test(model, mcf_auto_engine_by_size)
{
	struct rinst small, big;
	struct model_result a, b;
	uint64_t nz;

	rinst_make(&small, 5, 30, 100, 4, true);
	rinst_make(&big, 6, 400, 4000, 8, true);
	nz = small.in.path_off[small.in.npaths] + small.in.npaths +
	     small.in.nflows;
	cr_assert_leq(nz, MODEL_EXACT_NONZEROS);
	nz = big.in.path_off[big.in.npaths] + big.in.npaths + big.in.nflows;
	cr_assert_gt(nz, MODEL_EXACT_NONZEROS);
	solve("mcf", &small.in, NULL, &a);
	solve("mcf", &big.in, NULL, &b);
	cr_expect_str_eq(a.solver, "glpk");
	cr_expect_str_eq(b.solver, "pdhg");
	cr_expect_leq(b.gap, 0.01);
	check_feasible(&big.in, &b);
	model_result_free(&a);
	model_result_free(&b);
	rinst_free(&small);
	rinst_free(&big);
}

/* Every flow multi-path: the hybrid is the iterative LP on the same
 * links; single-path only: it is progressive filling (same levels). */
Test(model, mmf_hybrid_extremes)
{
	for (uint64_t seed = 1; seed <= 15; seed++) {
		struct rinst r;
		struct model_result a, b;
		char what[64];

		rinst_make_k(&r, seed * 97, 10 + seed % 7, 8 + seed % 17, 2, 4,
			     seed % 2);
		snprintf(what, sizeof(what), "multi seed %llu",
			 (unsigned long long)seed);
		expect_same_as_lp(&r.in, what);
		rinst_free(&r);
		rinst_make(&r, seed * 89, 12 + seed % 9, 10 + seed % 23, 1,
			   seed % 2);
		snprintf(what, sizeof(what), "single seed %llu",
			 (unsigned long long)seed);
		expect_same_as_lp(&r.in, what);
		mmf_with(&r.in, MODEL_MMF_HYBRID, &a);
		mmf_with(&r.in, MODEL_MMF_FILLING, &b);
		cr_expect_eq(a.iterations, b.iterations, "seed %llu: %u, %u",
			     (unsigned long long)seed, a.iterations,
			     b.iterations);
		model_result_free(&a);
		model_result_free(&b);
		rinst_free(&r);
	}
}

/* Dragonflies under minimal routing with parallel global links: most
 * flows have one minimal path, some several; demands 1 and mixed. */
Test(model, mmf_hybrid_equals_lp_dragonfly)
{
	static const char *const topos[] = { "dragonfly:p=3,a=6,h=4,g=9",
					     "dragonfly:p=2,a=4,h=2,g=5" };

	for (size_t t = 0; t < 2; t++) {
		struct fx_net n = fx_net(topos[t], "min");

		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct err err = { 0 };
			struct flows f;
			struct model_input in;
			uint32_t multi = 0;
			char what[96];

			flows_init(&f);
			cr_assert_eq(flows_pattern("random:1", NULL,
						   topo_num_nodes(n.t), seed,
						   &f, &err),
				     0, "%s", err.msg);
			cr_assert_eq(model_input_build(n.r, &f, &in, &err), 0,
				     "%s", err.msg);
			for (uint32_t i = 0; i < in.nflows; i++)
				multi += in.flow_off[i + 1] - in.flow_off[i] >
					 1;
			cr_assert(multi > 0 && multi < in.nflows,
				  "%s: %u of %u flows multi-path", topos[t],
				  multi, in.nflows);
			snprintf(what, sizeof(what), "%s seed %llu", topos[t],
				 (unsigned long long)seed);
			expect_same_as_lp(&in, what);
			for (uint32_t i = 0; i < in.nflows; i++)
				in.demand[i] = 0.5 + 0.25 * (i % 5);
			expect_same_as_lp(&in, what);
			model_input_free(&in);
			flows_free(&f);
		}
		fx_net_free(&n);
	}
}

/* ---- status and errors ---- */

/* A 1 ms limit on an LP that needs far longer: status MODEL_TIME_LIMIT,
 * return 0, rates zero (MCF) or feasible (MMF). */
Test(model, time_limit_status)
{
	struct rinst r;
	struct model_opts o;
	struct model_result res;
	struct err err = { 0 };

	rinst_make(&r, 42, 400, 4000, 8, true);
	model_opts_init(&o);
	o.time_limit_ms = 1;
	/* the simplex knows no feasible alpha when stopped */
	o.engine = MODEL_ENGINE_EXACT;
	cr_assert_eq(model_solve("mcf", &r.in, &o, &res, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(res.status, MODEL_TIME_LIMIT);
	cr_expect_float_eq(res.aggregate, 0, 1e-12);
	model_result_free(&res);
	/* the first-order solver keeps its certified bounds */
	o.engine = MODEL_ENGINE_FAST;
	o.gap = 1e-6;
	cr_assert_eq(model_solve("mcf", &r.in, &o, &res, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(res.status, MODEL_TIME_LIMIT);
	cr_expect_str_eq(res.solver, "pdhg");
	cr_expect_geq(res.bound, res.alpha);
	cr_expect_gt(res.gap, 1e-6);
	check_feasible(&r.in, &res);
	model_result_free(&res);
	o.engine = MODEL_ENGINE_AUTO;
	o.mmf_method = MODEL_MMF_LP;
	cr_assert_eq(model_solve("mmf", &r.in, &o, &res, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(res.status, MODEL_TIME_LIMIT);
	check_feasible(&r.in, &res);
	model_result_free(&res);
	o.mmf_method = MODEL_MMF_HYBRID;
	cr_assert_eq(model_solve("mmf", &r.in, &o, &res, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(res.status, MODEL_TIME_LIMIT);
	check_feasible(&r.in, &res);
	model_result_free(&res);
	rinst_free(&r);
}

Test(model, bad_input_is_an_error)
{
	struct inst s;
	struct model_input in;
	struct model_result res;
	struct err err = { 0 };

	two_flows(&s, 1, 1);
	in = as_input(&s);
	cr_expect_eq(model_solve("xyz", &in, NULL, &res, &err), -1);
	cr_expect(strstr(err.msg, "unknown model 'xyz' (known: hm, jm, "), "%s",
		  err.msg);
	cr_expect_eq(model_solve("hm:x=1", &in, NULL, &res, &err), -1);
	cr_expect_str_eq(err.msg,
			 "model 'hm': unknown option 'x' (known: method)");
	cr_expect_eq(model_solve(":x=1", &in, NULL, &res, &err), -1);
	cr_expect_str_eq(err.msg, "model ':x=1': empty name (want "
				  "NAME[:key=value,...])");
	s.links[1] = 7;
	cr_expect_eq(model_solve("mcf", &in, NULL, &res, &err), -1);
	cr_expect(strstr(err.msg, "link 7 out of range"), "%s", err.msg);
	s.links[1] = 0;
	s.demand[1] = 0;
	cr_expect_eq(model_solve("mmf", &in, NULL, &res, &err), -1);
	cr_expect(strstr(err.msg, "demand"), "%s", err.msg);
	s.demand[1] = 1;
	s.cap[0] = -1;
	cr_expect_eq(model_solve("hm", &in, NULL, &res, &err), -1);
	cr_expect(strstr(err.msg, "capacity"), "%s", err.msg);
	s.cap[0] = 1;
	s.path_off[1] = 0; /* empty path */
	cr_expect_eq(model_solve("jm", &in, NULL, &res, &err), -1);
	cr_expect(strstr(err.msg, "no links"), "%s", err.msg);
	s.path_off[1] = 1;
	{
		struct model_opts o;

		model_opts_init(&o);
		o.mmf_method = MODEL_MMF_FILLING;
		s.npaths++; /* a second path for flow 1 */
		s.path_off[3] = 4;
		s.links[3] = 1;
		s.nent = 4;
		s.flow_off[2] = 3;
		in = as_input(&s);
		cr_expect_eq(model_solve("mmf", &in, &o, &res, &err), -1);
		cr_expect(strstr(err.msg, "one path per flow"), "%s", err.msg);
	}
}

/* The unknown-model error lists exactly the registered models, in
 * registry order (the order of --model all): derived, not a second copy. */
Test(model, unknown_model_lists_the_registry)
{
	char want[256] = "unknown model 'zz' (known: ";
	struct err err = { 0 };

	for (size_t i = 0; i < model_count(); i++) {
		strcat(want, i ? ", " : "");
		strcat(want, model_name(i));
	}
	strcat(want, ")");
	cr_expect_null(model_name(model_count()));
	cr_expect_eq(model_check("zz", &err), -1);
	cr_expect_str_eq(err.msg, want);
	cr_expect_eq(model_check("mmf", &err), 0);
	cr_expect_eq(model_check("mmf:", &err), 0);
}

/* model_run over a real topology and routing: one rate per flow, link
 * loads within capacity (injection links: a node's flows sum to <= 1). */
Test(model, model_run_dragonfly)
{
	struct err err = { 0 };
	struct fx_net n = fx_net("dragonfly:p=2,a=4,h=2,g=9", "ugal");
	const struct routing *r = n.r;
	struct flows f;
	struct model_input in;

	flows_init(&f);
	cr_assert_eq(flows_pattern("perm:1", NULL, topo_num_nodes(n.t), 3, &f,
				   &err),
		     0, "%s", err.msg);
	cr_assert_eq(model_input_build(r, &f, &in, &err), 0, "%s", err.msg);
	for (size_t i = 0; i < model_count(); i++) {
		const char *m = model_name(i);
		struct model_result a, b;

		cr_assert_eq(model_run(m, r, &f, NULL, &a, &err), 0, "%s",
			     err.msg);
		cr_expect_eq(a.status, MODEL_OPTIMAL);
		cr_expect_eq(a.nflows, f.n);
		cr_expect_eq(a.nnodes, f.n); /* a permutation: one per node */
		cr_expect_leq(a.max_rate, 1 + 1e-9); /* injection capacity */
		if (!model_uses_paths(m, NULL)) {
			/* ugal0 .. ugal5 run on the routing's structure only
			 * (tests/unit/test_ugal.c) */
			model_result_free(&a);
			continue;
		}
		solve(m, &in, NULL, &b);
		cr_expect_float_eq(a.aggregate, b.aggregate, 1e-9);
		check_feasible(&in, &b);
		model_result_free(&a);
		model_result_free(&b);
	}
	model_input_free(&in);
	flows_free(&f);
	fx_net_free(&n);
}

/* Topology T's nodes in a scrambled order (seed SEED) into NODES. */
static void scrambled(const struct topo *t, uint32_t *nodes, uint64_t seed)
{
	uint32_t N = topo_num_nodes(t);
	struct rng g;

	rng_seed(&g, seed);
	for (uint32_t i = 0; i < N; i++)
		nodes[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rng_below(&g, i + 1), x = nodes[i];

		nodes[i] = nodes[j];
		nodes[j] = x;
	}
}

/* ---- jm on stems and middles against jm on every path ---- */

struct fjm_case {
	char topo[48], routing[32], pattern[32];
	uint32_t nodes; /* the first NODES nodes in a scrambled order; 0: all */
	uint32_t need;	/* need_flows */
};

static const struct fjm_case fjm_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "perm:1", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb", "random:2", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global", "alltoall", 24, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb:intra=global", "shift:5", 0, 0 },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "random:3", 40, 17 },
	{ "dragonfly:p=1,a=4,h=2,g=5", "ugal", "alltoall", 0, 0 },
	{ "dragonfly:p=1,a=3,h=3,g=4", "vlb", "perm:2", 0, 5 },
	{ "dragonfly:p=1,a=4,h=2,g=4", "ugal", "tornado", 0, 0 },
	{ "dragonfly:p=4,a=8,h=4,g=8", "ugal", "random:1", 0, 0 },
	{ "dragonfly:p=4,a=8,h=4,g=8", "ugal", "stencil:dims=4x4x2", 32, 0 },
	{ "cascade:groups=2,pair=2", "ugal", "perm:1", 48, 0 },
};

ParameterizedTestParameters(model, jm_factored_equals_paths)
{
	return cr_make_param_array(struct fjm_case, fjm_cases,
				   sizeof(fjm_cases) / sizeof(fjm_cases[0]));
}

/* Per flow, the factored rates equal the path-level ones to 1e-9
 * (relative: only the order of floating-point sums differs); so do the
 * most loaded links, the path count and the rounds. */
ParameterizedTest(const struct fjm_case *c, model, jm_factored_equals_paths)
{
	struct err err = { 0 };
	struct fx_net n = fx_net(c->topo, c->routing);
	uint32_t N = topo_num_nodes(n.t), k = c->nodes ? c->nodes : N;
	uint32_t *nodes = malloc(N * sizeof(*nodes)), cmp;
	struct model_result a, b;
	struct model_opts o;
	struct flows f;

	cr_assert_not_null(nodes);
	scrambled(n.t, nodes, 11);
	flows_init(&f);
	cr_assert_eq(flows_pattern(c->pattern, nodes, k, 5, &f, &err), 0, "%s",
		     err.msg);
	model_opts_init(&o);
	o.need_flows = c->need;
	cr_assert(!model_uses_paths("jm", n.r));
	cr_assert(model_uses_paths("jm:method=paths", n.r));
	cr_assert_eq(model_run("jm:method=paths", n.r, &f, &o, &a, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(model_run("jm", n.r, &f, &o, &b, &err), 0, "%s", err.msg);
	cr_expect_eq(b.status, MODEL_OPTIMAL);
	cr_expect_eq(b.paths_total, a.paths_total);
	cr_expect_eq(b.iterations, a.iterations, "rounds %u, want %u",
		     b.iterations, a.iterations);
	cmp = c->need ? c->need : f.n;
	for (uint32_t i = 0; i < cmp; i++)
		cr_expect(fabs(a.rates[i] - b.rates[i]) <=
				  1e-9 * fmax(1, a.rates[i]),
			  "%s %s %s flow %u: %.17g, want %.17g", c->topo,
			  c->routing, c->pattern, i, b.rates[i], a.rates[i]);
	if (!c->need) {
		cr_assert_eq(b.ntop, a.ntop);
		for (uint32_t i = 0; i < a.ntop; i++)
			cr_expect(fabs(a.top[i].load - b.top[i].load) <= 1e-9,
				  "top link %u: %g, want %g", i, b.top[i].load,
				  a.top[i].load);
	}
	model_result_free(&a);
	model_result_free(&b);
	flows_free(&f);
	free(nodes);
	fx_net_free(&n);
}

/* ---- hm on stems and middles against hm on every path ---- */

struct fhm_case {
	char topo[48], routing[32], pattern[32];
	uint32_t nodes; /* the first NODES nodes in a scrambled order; 0: all */
	char spec[24];	/* the factored spec */
};

static const struct fhm_case fhm_cases[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "perm:1", 0, "hm" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "vlb", "random:2", 0, "hm" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global", "alltoall", 24,
	  "hm" },
	{ "dragonfly:p=1,a=3,h=3,g=4", "vlb", "perm:2", 0, "hm" },
	{ "dragonfly:p=4,a=8,h=4,g=8", "ugal", "stencil:dims=4x4x2", 32, "hm" },
	/* keys of 20 segments, each used by many stems */
	{ "dragonfly:p=1,a=20,h=1,g=5", "ugal", "alltoall", 40,
	  "hm:method=factored" },
	{ "dragonfly:p=1,a=20,h=1,g=5", "ugal", "alltoall", 40, "hm" },
	{ "cascade:groups=2,pair=2", "ugal", "perm:1", 48, "hm" },
	/* routings that do not factor: each path a stem */
	{ "fattree:k=4,n=3", "ecmp", "random:2", 0, "hm:method=factored" },
	{ "dragonfly:p=2,a=4,h=2,g=9", "min", "alltoall", 20,
	  "hm:method=factored" },
};

ParameterizedTestParameters(model, hm_factored_equals_paths)
{
	return cr_make_param_array(struct fhm_case, fhm_cases,
				   sizeof(fhm_cases) / sizeof(fhm_cases[0]));
}

/* Per flow, the factored rates equal the path-level ones to 1e-9
 * (relative: only the order of floating-point sums differs); so do the
 * most loaded links and the path count. */
ParameterizedTest(const struct fhm_case *c, model, hm_factored_equals_paths)
{
	struct err err = { 0 };
	struct fx_net n = fx_net(c->topo, c->routing);
	uint32_t N = topo_num_nodes(n.t), k = c->nodes ? c->nodes : N;
	uint32_t *nodes = malloc(N * sizeof(*nodes));
	struct model_result a, b;
	struct model_opts o;
	struct flows f;

	cr_assert_not_null(nodes);
	scrambled(n.t, nodes, 11);
	flows_init(&f);
	cr_assert_eq(flows_pattern(c->pattern, nodes, k, 5, &f, &err), 0, "%s",
		     err.msg);
	cr_assert(!model_uses_paths(c->spec, n.r));
	cr_assert(model_uses_paths("hm:method=paths", n.r));
	cr_assert_eq(model_run("hm:method=paths", n.r, &f, NULL, &a, &err), 0,
		     "%s", err.msg);
	/* without loads (top_links 0) large middle sets are sorted and
	 * searched rather than summed */
	model_opts_init(&o);
	o.top_links = 0;
	cr_assert_eq(model_run(c->spec, n.r, &f, &o, &b, &err), 0, "%s",
		     err.msg);
	for (uint32_t i = 0; i < f.n; i++)
		cr_expect(fabs(a.rates[i] - b.rates[i]) <=
				  1e-9 * fmax(1, a.rates[i]),
			  "%s %s %s flow %u (no loads): %.17g, want %.17g",
			  c->topo, c->routing, c->pattern, i, b.rates[i],
			  a.rates[i]);
	model_result_free(&b);
	cr_assert_eq(model_run(c->spec, n.r, &f, NULL, &b, &err), 0, "%s",
		     err.msg);
	cr_expect_eq(b.status, MODEL_OPTIMAL);
	cr_expect_eq(b.paths_total, a.paths_total);
	for (uint32_t i = 0; i < f.n; i++)
		cr_expect(fabs(a.rates[i] - b.rates[i]) <=
				  1e-9 * fmax(1, a.rates[i]),
			  "%s %s %s flow %u: %.17g, want %.17g", c->topo,
			  c->routing, c->pattern, i, b.rates[i], a.rates[i]);
	cr_assert_eq(b.ntop, a.ntop);
	for (uint32_t i = 0; i < a.ntop; i++)
		cr_expect(fabs(a.top[i].load - b.top[i].load) <= 1e-9,
			  "top link %u: %g, want %g", i, b.top[i].load,
			  a.top[i].load);
	model_result_free(&a);
	model_result_free(&b);
	flows_free(&f);
	free(nodes);
	fx_net_free(&n);
}

/* A stem's share is almost always at most its key's least segment share
 * (every path of a flow crosses its injection link) or at least the
 * largest, where no sort is needed; the sorted search runs only between.
 * Here injection links of capacity 1000 and global links of 10 put the
 * stems of the group 0 -> 1 traffic between the shares of its middles in
 * group 2, where traffic inside the group loads a few local links three
 * times over (25 of the keys are sorted; checked when written).  The
 * factored rates equal the path-level ones to 1e-9. */
Test(model, hm_sorted_middles_equal_paths)
{
	struct err err = { 0 };
	struct topo_conf *tc =
		topo_conf_parse("hot.conf",
				"Topology=dragonfly p=1 a=20 h=1 g=5\n"
				"Capacity=inject:1000\nCapacity=global:10\n",
				&err);
	struct topo *t;
	struct routing *r;
	struct model_result a, b;
	struct model_opts o;
	struct flows f;

	cr_assert(tc, "%s", err.msg);
	t = topo_conf_take_topo(tc);
	topo_conf_destroy(tc);
	r = fx_routing(t, "ugal");
	flows_init(&f);
	for (uint32_t s = 0; s < 20; s++) /* group 0 -> group 1 */
		for (uint32_t d = 20; d < 40; d++)
			cr_assert_eq(flows_add(&f, s, d, 1), 0);
	for (uint32_t s = 40; s < 50; s++) /* inside group 2, 3 times */
		for (uint32_t d = 40; d < 50; d++)
			for (int k = 0; s != d && k < 3; k++)
				cr_assert_eq(flows_add(&f, s, d, 1), 0);
	cr_assert_eq(model_run("hm:method=paths", r, &f, NULL, &a, &err), 0,
		     "%s", err.msg);
	model_opts_init(&o);
	o.top_links = 0;
	cr_assert_eq(model_run("hm:method=factored", r, &f, &o, &b, &err), 0,
		     "%s", err.msg);
	for (uint32_t i = 0; i < f.n; i++)
		cr_expect(fabs(a.rates[i] - b.rates[i]) <=
				  1e-9 * fmax(1, a.rates[i]),
			  "flow %u (%u -> %u): %.17g, want %.17g", i, f.src[i],
			  f.dst[i], b.rates[i], a.rates[i]);
	model_result_free(&a);
	model_result_free(&b);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

/* Into ALL: the flows of every set of F present (IN) but K, then K's. */
static void union_last(const struct flows *f, const bool *in, int k,
		       struct flows *all)
{
	flows_init(all);
	for (int x = 0; x < 5; x++)
		for (uint32_t i = 0; in[x] && x != k && i < f[x].n; i++)
			cr_assert_eq(
				flows_add(all, f[x].src[i], f[x].dst[i], 1), 0);
	for (uint32_t i = 0; i < f[k].n; i++)
		cr_assert_eq(flows_add(all, f[k].src[i], f[k].dst[i], 1), 0);
}

/* model_hm_state_rate of every set present in H (IN[0..5)) against hm
 * on every path of all of them, the set's flows last (after any add or
 * remove: the rates of the sets that stay move with the others). */
static void rates_again(const struct fx_net *n, struct model_hm_state *h,
			const struct flows *f, const struct model_hm_set *set,
			const bool *in, const char *what, size_t step)
{
	struct err err = { 0 };

	for (int k = 0; k < 5; k++) {
		struct model_result r;
		struct flows all;
		double *got;

		if (!in[k])
			continue;
		union_last(f, in, k, &all);
		cr_assert_eq(model_run("hm:method=paths", n->r, &all, NULL, &r,
				       &err),
			     0, "%s", err.msg);
		got = malloc((f[k].n + 1) * sizeof(*got));
		cr_assert_not_null(got);
		/* with its set (the first set asked after a remove: nothing
		 * kept from the last rating may stand), then without (the
		 * links found again) */
		for (int pass = 0; pass < 2; pass++) {
			cr_assert_eq(model_hm_state_rate(h, &f[k],
							 pass ? NULL : &set[k],
							 got, &err),
				     0, "%s", err.msg);
			for (uint32_t i = 0; i < f[k].n; i++) {
				double want = r.rates[all.n - f[k].n + i];

				cr_expect(fabs(got[i] - want) <=
						  1e-9 * fmax(1, want),
					  "%s step %zu: set %d again (%s), "
					  "flow %u: %.17g, want %.17g",
					  what, step, k,
					  pass ? "no set" : "its set", i,
					  got[i], want);
			}
		}
		model_result_free(&r);
		flows_free(&all);
		free(got);
	}
}

/* The incremental form: sets added and removed in turn; after each add,
 * the new set's rates equal path-level hm's over the union of the sets
 * present (the new set's flows last), to 1e-9 relative, and after every
 * add and remove so do the rates of every set present asked again
 * (model_hm_state_rate).  Removing every set leaves the state as new: a
 * set added then gets hm's rates alone. */
Test(model, hm_state_equals_paths_over_the_sets_present)
{
	/* topology, routing, hm spec, stem links kept per set (0: the
	 * default; otherwise the rest are built again when rated) */
	static const struct {
		const char *topo, *routing, *spec;
		size_t budget;
	} nets[] = {
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "hm", 0 },
		{ "dragonfly:p=1,a=20,h=1,g=5", "vlb", "hm", 0 },
		{ "cascade:groups=2,pair=2", "ugal", "hm", 0 },
		{ "fattree:k=4,n=3", "ecmp", "hm", 0 },
		{ "cascade:groups=2,pair=2", "ugal", "hm", 3000 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "hm:method=factored",
		  1 },
		{ "fattree:k=4,n=3", "ecmp", "hm", 50 },
	};
	struct model_opts mo;
	/* + k: add set k; - k: remove it */
	static const int ops[] = { 0, 1, 2, -1, 3, -0 - 100, 4, -2, -3, -4 };
	struct err err = { 0 };

	for (size_t q = 0; q < sizeof(nets) / sizeof(nets[0]); q++) {
		struct fx_net n = fx_net(nets[q].topo, nets[q].routing);
		uint32_t N = topo_num_nodes(n.t);
		uint32_t *nodes = malloc(N * sizeof(*nodes));
		struct model_hm_state *h;
		struct model_hm_set set[5];
		struct flows f[5];
		bool in[5] = { false };

		model_opts_init(&mo);
		if (nets[q].budget)
			mo.hm_stem_budget = nets[q].budget;
		h = model_hm_state_create(n.r, nets[q].spec, &mo, &err);
		cr_assert_not_null(nodes);
		cr_assert_not_null(h, "%s", err.msg);
		for (int k = 0; k < 5; k++) {
			uint32_t cnt = N / 4 < 6 ? N / 2 : N / 4;

			scrambled(n.t, nodes, 100 + (uint64_t)k);
			flows_init(&f[k]);
			cr_assert_eq(flows_pattern(k % 2 ? "random:2" :
							   "perm:1",
						   nodes, cnt, (uint64_t)k,
						   &f[k], &err),
				     0, "%s", err.msg);
		}
		for (size_t o = 0; o <= sizeof(ops) / sizeof(ops[0]); o++) {
			/* the last step: everything removed, set 2 alone */
			int op = o < sizeof(ops) / sizeof(ops[0]) ? ops[o] : 2;
			int k = op == -100 ? 0 : op < 0 ? -op : op;
			struct model_result r;
			struct flows all;
			double *got;

			if (op < 0) {
				cr_assert(in[k]);
				model_hm_state_remove(h, &set[k]);
				in[k] = false;
				rates_again(&n, h, f, set, in, nets[q].topo, o);
				continue;
			}
			if (o == sizeof(ops) / sizeof(ops[0]))
				for (int x = 0; x < 5; x++)
					cr_assert(!in[x], "set %d left", x);
			got = malloc((f[k].n + 1) * sizeof(*got));
			cr_assert_not_null(got);
			cr_assert_eq(model_hm_state_add(h, &f[k], got, &set[k],
							&err),
				     0, "%s", err.msg);
			in[k] = true;
			union_last(f, in, k, &all);
			cr_assert_eq(model_run("hm:method=paths", n.r, &all,
					       NULL, &r, &err),
				     0, "%s", err.msg);
			for (uint32_t i = 0; i < f[k].n; i++) {
				double want = r.rates[all.n - f[k].n + i];

				cr_expect(fabs(got[i] - want) <=
						  1e-9 * fmax(1, want),
					  "%s step %zu set %d flow %u: %.17g, "
					  "want %.17g",
					  nets[q].topo, o, k, i, got[i], want);
			}
			model_result_free(&r);
			flows_free(&all);
			free(got);
			rates_again(&n, h, f, set, in, nets[q].topo, o);
		}
		for (int k = 0; k < 5; k++) {
			model_hm_state_remove(in[k] ? h : NULL, &set[k]);
			flows_free(&f[k]);
		}
		model_hm_state_destroy(h);
		free(nodes);
		fx_net_free(&n);
	}
}

/* hm's method option, checked like jm's. */
/* The closed form on a dragonfly (method=auto, model_hm_dfly.c) against
 * the routing's stems (method=factored), state against state: the same
 * counts per link exactly (integers) and the same rates, over sets that
 * come and go.  The flows: every node to a random other, some to a node
 * of their own router and some within their group; the dragonflies: one
 * and two global links per group pair, groups of two routers (vlb routes
 * a pair of its routers on MIN), three groups. */
static int cmp_link_cnt(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static void sorted_set(const struct model_hm_set *s, uint32_t *link,
		       double *cnt)
{
	struct {
		uint32_t l;
		double c;
	} *v = malloc((s->n + 1) * sizeof(*v));

	cr_assert_not_null(v);
	for (uint32_t i = 0; i < s->n; i++) {
		v[i].l = s->link[i];
		v[i].c = s->cnt[i];
	}
	qsort(v, s->n, sizeof(*v), cmp_link_cnt);
	for (uint32_t i = 0; i < s->n; i++) {
		link[i] = v[i].l;
		cnt[i] = v[i].c;
	}
	free(v);
}

Test(model, hm_closed_form_equals_factored)
{
	static const char *const nets[][2] = {
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal" },
		{ "dragonfly:p=2,a=4,h=2,g=9", "vlb" },
		{ "dragonfly:p=2,a=4,h=2,g=5", "ugal" }, /* 2 links a pair */
		{ "dragonfly:p=2,a=4,h=2,g=5", "vlb:intra=local" },
		{ "dragonfly:p=3,a=2,h=2,g=5", "vlb" }, /* groups of two */
		{ "dragonfly:p=3,a=2,h=2,g=5", "ugal" },
		{ "dragonfly:p=2,a=3,h=1,g=3", "ugal" }, /* three groups */
		{ "dragonfly:p=7,a=15,h=8,g=9", "ugal" },
		/* the same without memoised weights (huge dragonflies) */
		{ "dragonfly:p=2,a=4,h=2,g=5", "ugal" },
	};
	const size_t nq = sizeof(nets) / sizeof(nets[0]);
	struct model_opts mo;
	struct err err = { 0 };

	for (size_t q = 0; q < nq; q++) {
		struct fx_net n = fx_net(nets[q][0], nets[q][1]);
		uint32_t N = topo_num_nodes(n.t), L = topo_num_links(n.t);
		struct model_hm_state *hc, *hf;
		struct model_hm_set sc[4], sf[4];
		struct flows f[4];
		bool in[4] = { false };
		static const int ops[] = { 0, 1, -0, 2, 3, -1, 0, -3, -2, -0 };
		uint32_t *l1 = malloc((L + 1) * sizeof(*l1)),
			 *l2 = malloc((L + 1) * sizeof(*l2));
		double *c1 = malloc((L + 1) * sizeof(*c1)),
		       *c2 = malloc((L + 1) * sizeof(*c2));
		struct rng g;

		cr_assert(routing_dfly(n.r), "%s %s: no structure", nets[q][0],
			  nets[q][1]);
		model_opts_init(&mo);
		if (q + 1 == nq)
			mo.hm_dfly_memo_max = 0;
		hc = model_hm_state_create(n.r, "hm", &mo, &err);
		hf = model_hm_state_create(n.r, "hm:method=factored", &mo,
					   &err);
		cr_assert(hc && hf, "%s", err.msg);
		cr_assert(l1 && l2 && c1 && c2);
		rng_seed(&g, 7 + q);
		for (int k = 0; k < 4; k++) {
			flows_init(&f[k]);
			for (uint32_t s = 0; s < N; s++) {
				uint32_t d, kind = (uint32_t)rng_below(&g, 4);

				if (rng_below(&g, 3) == 0)
					continue;
				d = (uint32_t)rng_below(&g, N);
				/* a node of the same router or group */
				if (kind == 0)
					d = s ^ 1;
				else if (kind == 1)
					d = (s + 2 * (1 + (uint32_t)rng_below(
								  &g, 2))) %
					    N;
				if (d >= N || d == s)
					d = (s + 1) % N;
				cr_assert_eq(flows_add(&f[k], s, d, 1), 0);
			}
		}
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			int k = ops[o] < 0 ? -ops[o] : ops[o];
			double *r1, *r2;

			if (ops[o] < 0 || (o > 0 && ops[o] == 0 && in[0])) {
				model_hm_state_remove(hc, &sc[k]);
				model_hm_state_remove(hf, &sf[k]);
				in[k] = false;
				continue;
			}
			r1 = malloc((f[k].n + 1) * sizeof(*r1));
			r2 = malloc((f[k].n + 1) * sizeof(*r2));
			cr_assert(r1 && r2);
			cr_assert_eq(model_hm_state_add(hc, &f[k], r1, &sc[k],
							&err),
				     0, "%s", err.msg);
			cr_assert_eq(model_hm_state_add(hf, &f[k], r2, &sf[k],
							&err),
				     0, "%s", err.msg);
			in[k] = true;
			cr_assert_eq(sc[k].n, sf[k].n,
				     "%s %s step %zu: %u "
				     "links, want %u",
				     nets[q][0], nets[q][1], o, sc[k].n,
				     sf[k].n);
			sorted_set(&sc[k], l1, c1);
			sorted_set(&sf[k], l2, c2);
			for (uint32_t i = 0; i < sc[k].n; i++)
				cr_assert(l1[i] == l2[i] && c1[i] == c2[i],
					  "%s %s step %zu: link %u count %g, "
					  "want link %u count %g",
					  nets[q][0], nets[q][1], o, l1[i],
					  c1[i], l2[i], c2[i]);
			for (uint32_t i = 0; i < f[k].n; i++)
				cr_expect(fabs(r1[i] - r2[i]) <=
						  1e-12 * fmax(1e-300, r2[i]),
					  "%s %s step %zu flow %u (%u -> %u): "
					  "%.17g, want %.17g",
					  nets[q][0], nets[q][1], o, i,
					  f[k].src[i], f[k].dst[i], r1[i],
					  r2[i]);
			free(r1);
			free(r2);
		}
		for (int k = 0; k < 4; k++) {
			model_hm_state_remove(in[k] ? hc : NULL, &sc[k]);
			model_hm_state_remove(in[k] ? hf : NULL, &sf[k]);
			flows_free(&f[k]);
		}
		model_hm_state_destroy(hc);
		model_hm_state_destroy(hf);
		free(l1);
		free(l2);
		free(c1);
		free(c2);
		fx_net_free(&n);
	}
}

/* R[0] (tables), R[1] (flow by flow) and R[2] (factored) of set J's N
 * flows after step O on NET under RT: the first two to the bit, the
 * factored to 1e-12 relative. */
static void rates_agree(const char *net, const char *rt, size_t o, int j,
			uint32_t n, double *const r[3])
{
	for (uint32_t i = 0; i < n; i++) {
		cr_expect(memcmp(&r[0][i], &r[1][i], sizeof(double)) == 0,
			  "%s %s step %zu set %d flow %u: tables %.17g, flow "
			  "by flow %.17g",
			  net, rt, o, j, i, r[0][i], r[1][i]);
		cr_expect(fabs(r[0][i] - r[2][i]) <= 1e-12 * r[2][i],
			  "%s %s step %zu set %d flow %u: %.17g, factored "
			  "%.17g",
			  net, rt, o, j, i, r[0][i], r[2][i]);
	}
}

/* The closed form rates a set's flows by group pair from a table of the
 * pair's paths (least global-link share, key slot), and keeps the key
 * shares for every set rated on the same counts; with no room for a
 * table (hm_dfly_rec_max 0) it rates flow by flow.  The two give the
 * same rates to the last bit, for every set present rated again after
 * every add and remove, in both orders of the sets (key shares kept by
 * one set and read by the next), and agree with the factored form to
 * 1e-12 relative. */
Test(model, hm_closed_form_tables_equal_flow_by_flow)
{
	static const char *const nets[][2] = {
		{ "dragonfly:p=7,a=15,h=8,g=9", "ugal" },
		{ "dragonfly:p=2,a=4,h=2,g=5", "vlb:intra=local" },
		{ "dragonfly:p=2,a=4,h=2,g=5", "ugal" }, /* 2 links a pair */
	};
	static const int ops[] = { 0, 1, 2, -1, 3, -0, 1, -2 };
	struct err err = { 0 };

	for (size_t q = 0; q < sizeof(nets) / sizeof(nets[0]); q++) {
		struct fx_net n = fx_net(nets[q][0], nets[q][1]);
		uint32_t N = topo_num_nodes(n.t);
		uint32_t *nodes = malloc(N * sizeof(*nodes));
		struct model_hm_state *h[3];
		struct model_hm_set set[3][4];
		struct flows f[4];
		bool in[4] = { false };
		struct model_opts mo;

		cr_assert_not_null(nodes);
		for (int m = 0; m < 3; m++) {
			model_opts_init(&mo);
			if (m == 1)
				mo.hm_dfly_rec_max = 0;
			h[m] = model_hm_state_create(
				n.r, m == 2 ? "hm:method=factored" : "hm", &mo,
				&err);
			cr_assert_not_null(h[m], "%s", err.msg);
		}
		for (int k = 0; k < 4; k++) {
			scrambled(n.t, nodes, 40 + (uint64_t)k);
			flows_init(&f[k]);
			cr_assert_eq(
				flows_pattern(k % 2 ? "random:2" : "perm:1",
					      nodes, N > 200 ? N / 10 : N / 3,
					      (uint64_t)k, &f[k], &err),
				0, "%s", err.msg);
		}
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			int k = ops[o] < 0 ? -ops[o] : ops[o];
			bool add = ops[o] > 0 || (ops[o] == 0 && !in[0]);

			for (int m = 0; m < 3; m++) {
				double *r = malloc((f[k].n + 1) * sizeof(*r));

				cr_assert_not_null(r);
				if (add)
					cr_assert_eq(model_hm_state_add(
							     h[m], &f[k], r,
							     &set[m][k], &err),
						     0, "%s", err.msg);
				else
					model_hm_state_remove(h[m], &set[m][k]);
				free(r);
			}
			in[k] = add;
			for (int pass = 0; pass < 2; pass++)
				for (int z = 0; z < 4; z++) {
					int j = pass ? 3 - z : z;
					double *r[3];

					if (!in[j])
						continue;
					for (int m = 0; m < 3; m++) {
						r[m] = malloc((f[j].n + 1) *
							      sizeof(*r[m]));
						cr_assert_not_null(r[m]);
						cr_assert_eq(
							model_hm_state_rate(
								h[m], &f[j],
								&set[m][j],
								r[m], &err),
							0, "%s", err.msg);
					}
					rates_agree(nets[q][0], nets[q][1], o,
						    j, f[j].n, r);
					for (int m = 0; m < 3; m++)
						free(r[m]);
				}
		}
		for (int k = 0; k < 4; k++) {
			for (int m = 0; m < 3; m++)
				model_hm_state_remove(in[k] ? h[m] : NULL,
						      &set[m][k]);
			flows_free(&f[k]);
		}
		for (int m = 0; m < 3; m++)
			model_hm_state_destroy(h[m]);
		free(nodes);
		fx_net_free(&n);
	}
}

/* Where the closed form does not apply it is not offered; a bad flow is
 * refused as the stems refuse it, and leaves the state as it was. */
Test(model, hm_closed_form_scope_and_errors)
{
	static const char *const none[][2] = {
		{ "dragonfly:p=2,a=4,h=2,g=9", "min" },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global" },
		{ "dragonfly:p=2,a=4,h=2,g=2", "ugal" },
		{ "cascade:groups=2,pair=2", "ugal" },
	};
	struct err err = { 0 }, err2 = { 0 };
	struct fx_net n;
	struct model_hm_state *hc, *hf;
	struct model_hm_set sc, sf;
	struct flows f;
	double r1[3], r2[3];

	for (size_t q = 0; q < sizeof(none) / sizeof(none[0]); q++) {
		n = fx_net(none[q][0], none[q][1]);
		cr_expect_null(routing_dfly(n.r), "%s %s", none[q][0],
			       none[q][1]);
		fx_net_free(&n);
	}
	n = fx_net("dragonfly:p=2,a=4,h=2,g=9", "ugal");
	hc = model_hm_state_create(n.r, NULL, NULL, &err);
	hf = model_hm_state_create(n.r, "hm:method=factored", NULL, &err);
	cr_assert(hc && hf);
	flows_init(&f);
	cr_assert_eq(flows_add(&f, 0, 9, 1), 0);
	cr_assert_eq(flows_add(&f, 3, 3, 1), 0);
	cr_expect_eq(model_hm_state_add(hc, &f, r1, &sc, &err), -1);
	cr_expect_eq(model_hm_state_add(hf, &f, r2, &sf, &err2), -1);
	cr_expect_str_eq(err.msg, err2.msg);
	cr_expect_str_eq(err.msg, "flow 1: source and destination are the "
				  "same node 3");
	f.dst[1] = 72;
	cr_expect_eq(model_hm_state_add(hc, &f, r1, &sc, &err), -1);
	cr_expect_str_eq(err.msg, "flow 1: node 72 out of range (the "
				  "topology has 72 nodes)");
	/* nothing of the refused set stayed: the same rates as a fresh
	 * factored state */
	f.dst[1] = 40;
	cr_assert_eq(model_hm_state_add(hc, &f, r1, &sc, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(model_hm_state_add(hf, &f, r2, &sf, &err), 0, "%s",
		     err.msg);
	for (int i = 0; i < 2; i++)
		cr_expect(fabs(r1[i] - r2[i]) <= 1e-12 * r2[i], "%d: %g, %g", i,
			  r1[i], r2[i]);
	model_hm_state_remove(NULL, &sc);
	model_hm_state_remove(NULL, &sf);
	flows_free(&f);
	model_hm_state_destroy(hc);
	model_hm_state_destroy(hf);
	fx_net_free(&n);
}

/* The counts' version moves on with every add and remove that counts,
 * not with a rate or a refused add; a set rated at the version it was
 * added at, or back on the same counts, gets its add's rates to the
 * last bit (whatif --comm-fraction skips such a rating). */
Test(model, hm_state_version_moves_with_counts)
{
	static const char *const specs[] = { "hm", "hm:method=factored" };
	struct fx_net n = fx_net("dragonfly:p=2,a=4,h=2,g=9", "ugal");
	struct err err = { 0 };

	for (size_t q = 0; q < 2; q++) {
		struct model_hm_state *h =
			model_hm_state_create(n.r, specs[q], NULL, &err);
		struct model_hm_set sa, sb, sx;
		struct flows fa, fb, fx;
		double r0[3], r1[3], r2[3], rb[2];
		uint64_t v0, v1, v2;

		cr_assert_not_null(h, "%s", err.msg);
		flows_init(&fa);
		flows_init(&fb);
		flows_init(&fx);
		cr_assert_eq(flows_add(&fa, 0, 9, 1), 0);
		cr_assert_eq(flows_add(&fa, 1, 40, 1), 0);
		cr_assert_eq(flows_add(&fa, 2, 3, 1), 0);
		cr_assert_eq(flows_add(&fb, 0, 41, 1), 0);
		cr_assert_eq(flows_add(&fb, 10, 1, 1), 0);
		cr_assert_eq(flows_add(&fx, 5, 5, 1), 0);
		v0 = model_hm_state_version(h);
		cr_assert_eq(model_hm_state_add(h, &fa, r0, &sa, &err), 0, "%s",
			     err.msg);
		v1 = model_hm_state_version(h);
		cr_expect_neq(v1, v0, "%s: add", specs[q]);
		cr_assert_eq(model_hm_state_rate(h, &fa, &sa, r1, &err), 0);
		cr_expect_eq(model_hm_state_version(h), v1, "%s: rate",
			     specs[q]);
		cr_expect(memcmp(r0, r1, sizeof(r0)) == 0,
			  "%s: rated again at the version of its add",
			  specs[q]);
		cr_expect_eq(model_hm_state_add(h, &fx, rb, &sx, &err), -1);
		cr_expect_eq(model_hm_state_version(h), v1, "%s: refused add",
			     specs[q]);
		cr_assert_eq(model_hm_state_add(h, &fb, rb, &sb, &err), 0, "%s",
			     err.msg);
		v2 = model_hm_state_version(h);
		cr_expect_neq(v2, v1, "%s: second add", specs[q]);
		cr_assert_eq(model_hm_state_rate(h, &fa, &sa, r2, &err), 0);
		cr_expect(r2[0] < r0[0],
			  "%s: flow 0 shares its injection with set b: "
			  "%.17g, alone %.17g",
			  specs[q], r2[0], r0[0]);
		model_hm_state_remove(h, &sb);
		cr_expect(model_hm_state_version(h) != v2 &&
				  model_hm_state_version(h) != v1,
			  "%s: remove", specs[q]);
		cr_assert_eq(model_hm_state_rate(h, &fa, &sa, r2, &err), 0);
		cr_expect(memcmp(r0, r2, sizeof(r0)) == 0,
			  "%s: back on the counts of its add", specs[q]);
		model_hm_state_remove(h, &sa);
		flows_free(&fa);
		flows_free(&fb);
		flows_free(&fx);
		model_hm_state_destroy(h);
	}
	fx_net_free(&n);
}

/* Rooms (model_hm_room_create): three threads, two in a room of their
 * own and one in the state's (room NULL), rate three sets of one state
 * at once, over and over, and get model_hm_state_rate's rates to the
 * bit, with tables and flow by flow (hm_dfly_rec_max 0); a state with no
 * closed form (method=factored, or a fat-tree) gives no room, and
 * refuses to rate in its own. */
struct room_job {
	struct model_hm_state *h;
	struct model_hm_room *m;
	const struct flows *f; /* [3] */
	const double *want;    /* [3 * 64] */
	int bad;
};

static void *room_thread(void *arg)
{
	struct room_job *j = arg;
	struct err err = { 0 };
	double r[64];

	for (int pass = 0; pass < 50; pass++)
		for (uint32_t q = 0; q < 3; q++) {
			if (model_hm_state_rate_in(j->h, j->m, &j->f[q], r,
						   &err) ||
			    memcmp(r, j->want + 64 * q, j->f[q].n * sizeof(*r)))
				j->bad++;
		}
	return NULL;
}

Test(model, hm_rooms_rate_at_once)
{
	struct fx_net n = fx_net("dragonfly:p=2,a=4,h=2,g=9", "ugal");
	struct fx_net ft = fx_net("fattree:k=4,n=3", "ecmp");
	struct err err = { 0 };
	uint32_t N = topo_num_nodes(n.t);

	for (int direct = 0; direct < 2; direct++) {
		struct model_opts mo;
		struct model_hm_state *h;
		struct model_hm_set set[3];
		struct flows f[3];
		double want[3 * 64], first[64];
		struct room_job jobs[3];
		pthread_t th[3];
		struct rng g;

		model_opts_init(&mo);
		if (direct)
			mo.hm_dfly_rec_max = 0;
		h = model_hm_state_create(n.r, "hm", &mo, &err);
		cr_assert_not_null(h, "%s", err.msg);
		rng_seed(&g, 17);
		for (uint32_t q = 0; q < 3; q++) {
			flows_init(&f[q]);
			for (uint32_t i = 0; i < 40 + 10 * q; i++) {
				uint32_t a = (uint32_t)rng_below(&g, N);
				uint32_t b = (uint32_t)rng_below(&g, N - 1);

				cr_assert_eq(flows_add(&f[q], a, b + (b >= a),
						       1),
					     0);
			}
			cr_assert_eq(model_hm_state_add(h, &f[q], first,
							&set[q], &err),
				     0, "%s", err.msg);
		}
		for (uint32_t q = 0; q < 3; q++)
			cr_assert_eq(model_hm_state_rate(h, &f[q], &set[q],
							 want + 64 * q, &err),
				     0, "%s", err.msg);
		/* the last set, on the counts of its add: its add's rates */
		cr_expect(memcmp(first, want + 128, f[2].n * sizeof(*first)) ==
			  0);
		for (int t = 0; t < 3; t++) {
			jobs[t] = (struct room_job){ h, NULL, f, want, 0 };
			cr_assert_eq(model_hm_room_create(h, &jobs[t].m, &err),
				     0, "%s", err.msg);
			cr_assert_not_null(jobs[t].m);
			if (t == 2) { /* the state's own */
				model_hm_room_destroy(jobs[t].m);
				jobs[t].m = NULL;
			}
			cr_assert_eq(pthread_create(&th[t], NULL, room_thread,
						    &jobs[t]),
				     0);
		}
		for (int t = 0; t < 3; t++) {
			pthread_join(th[t], NULL);
			cr_expect_eq(jobs[t].bad, 0,
				     "direct %d thread %d: %d rates differ",
				     direct, t, jobs[t].bad);
			model_hm_room_destroy(jobs[t].m);
		}
		for (uint32_t q = 0; q < 3; q++) {
			model_hm_state_remove(h, &set[q]);
			flows_free(&f[q]);
		}
		model_hm_state_destroy(h);
	}
	for (int q = 0; q < 2; q++) {
		struct model_hm_state *h = model_hm_state_create(
			q ? ft.r : n.r, q ? "hm" : "hm:method=factored", NULL,
			&err);
		struct model_hm_room *m = (void *)1;

		cr_assert_not_null(h, "%s", err.msg);
		struct flows f;
		double r[1];

		cr_expect_eq(model_hm_room_create(h, &m, &err), 0);
		cr_expect_null(m, "no closed form, no room (%d)", q);
		flows_init(&f);
		cr_assert_eq(flows_add(&f, 0, 5, 1), 0);
		cr_expect_eq(model_hm_state_rate_in(h, NULL, &f, r, &err), -1);
		cr_expect_str_eq(err.msg, "hm: no closed form to rate in");
		flows_free(&f);
		model_hm_state_destroy(h);
	}
	fx_net_free(&n);
	fx_net_free(&ft);
}

Test(model, hm_method_option)
{
	struct err err = { 0 };

	cr_expect_eq(model_check("hm:method=all", &err), -1);
	cr_expect_str_eq(err.msg, "model 'hm': method=all: want auto, paths or "
				  "factored");
	cr_expect(model_hm_incremental("hm"));
	cr_expect(model_hm_incremental("hm:method=factored"));
	cr_expect(!model_hm_incremental("hm:method=paths"));
	cr_expect(!model_hm_incremental("jm"));
	cr_expect(!model_hm_incremental("bogus"));
}

/* The method option: checked values, and factored refused (with why)
 * where the routing has no factored path sets. */
Test(model, jm_method_option)
{
	struct err err = { 0 };
	struct fx_net n = fx_net("fattree:k=4,n=3", "ecmp");
	struct model_result r;
	struct flows f;

	cr_expect_eq(model_check("jm:method=bogus", &err), -1);
	cr_expect_str_eq(err.msg,
			 "model 'jm': method=bogus: want auto, paths or "
			 "factored");
	cr_expect_eq(model_check("jm:method=factored", &err), 0);
	cr_expect(model_uses_paths("jm", n.r));
	cr_expect(model_uses_paths("jm:method=factored", NULL));
	flows_init(&f);
	cr_assert_eq(flows_add(&f, 0, 5, 1), 0);
	cr_expect_eq(model_run("jm:method=factored", n.r, &f, NULL, &r, &err),
		     -1);
	cr_expect(strstr(err.msg, "routing ecmp gives no factored path sets") !=
			  NULL,
		  "%s", err.msg);
	cr_assert_eq(model_run("jm", n.r, &f, NULL, &r, &err), 0, "%s",
		     err.msg);
	cr_expect_float_eq(r.rates[0], 1.0, 1e-12);
	model_result_free(&r);
	flows_free(&f);
	fx_net_free(&n);
}
