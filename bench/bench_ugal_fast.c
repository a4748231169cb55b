/* bench_ugal_fast.c - paper 002's UGAL-G Model 3 LP built from the
 * structure (ugal_tpl.h) and solved by the first-order solver
 * (mcf_tpl_solve_fast) to a certified gap, the explicit template against
 * the factored one (ugal_tpl_build_factored: VLB crossings as an
 * operator).  Traffic perm:1 (seed 1).
 *
 * Prints per instance and form: build time, the CSR non-zeros, then per
 * gap the solve time (wall, and process CPU: all threads, so the two
 * differ on a shared or multi-core machine), wall ms per iteration (two
 * products and the vector work; the solve time also holds the 8-20
 * power-method steps that size the steps, mcf_fast.c), iterations and
 * certified [lower, upper].  On cascade:groups=6 (8 power steps, 114
 * iterations) 1 % takes about 3.1 s at load 1.6 here, against 400
 * iterations and 10.4 s before the power-method steps.  The
 * explicit form of cascade:groups=6 (~6e7 non-zeros, ~13 s to build)
 * runs only with --explicit.  Run by `make bench`; asserts nothing.
 *
 *   bench_ugal_fast [--explicit] [--gap G] [TOPOLOGY...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "evaluator/models/ugal_tpl.h"
#include "evaluator/traffic/flows.h"
#include "topo/routing.h"
#include "topo/topo.h"

static void die(const char *what, const struct err *err)
{
	fprintf(stderr, "bench_ugal_fast: %s: %s\n", what, err->msg);
	exit(1);
}

static void solve(const struct ugal_tpl *tp, double gap)
{
	struct mcf_tpl_opts o;
	struct mcf_tpl_result res = { 0 };
	struct err err = { 0 };
	double t0 = bench_wall(), t;
	clock_t c0 = clock();

	mcf_tpl_opts_init(&o);
	o.gap = gap;
	o.time_limit_ms = 300000;
	if (mcf_tpl_solve_fast(&tp->lp, &o, &res, &err))
		die("mcf_tpl_solve_fast", &err);
	t = bench_wall() - t0;
	printf("    gap %-6g solve %8.3f s (cpu %.3f s, %.1f ms/it)  %6llu it  "
	       "[%.10f, %.10f]  gap %.2e%s\n",
	       gap, t, (double)(clock() - c0) / CLOCKS_PER_SEC,
	       res.iterations ? 1e3 * t / (double)res.iterations : 0.0,
	       (unsigned long long)res.iterations, res.lower, res.upper,
	       (res.upper - res.lower) / res.lower,
	       res.status == MCF_TPL_OPTIMAL ? "" : "  (not converged)");
}

static void run(const char *spec, int factored, const double *gaps, int ng)
{
	struct err err = { 0 };
	struct topo *t = topo_create(spec, &err);
	struct routing *r = t ? routing_create(t, "ugal", &err) : NULL;
	struct flows f;
	struct ugal_tpl tp;
	double t0;
	int rc;

	if (!r)
		die(spec, &err);
	flows_init(&f);
	if (flows_pattern("perm:1", NULL, topo_num_nodes(t), 1, &f, &err))
		die("perm:1", &err);
	t0 = bench_wall();
	rc = factored ? ugal_tpl_build_factored(r, &f, 3, 0, &tp, &err) :
			ugal_tpl_build(r, &f, 3, 0, &tp, &err);
	if (rc)
		die("ugal_tpl_build", &err);
	printf("%s perm:1 Model 3, %s: %u flows, %u groups, %u CSR "
	       "non-zeros%s, built in %.3f s\n",
	       spec, factored ? "factored" : "explicit", tp.lp.nflows,
	       tp.lp.ngroups, tp.lp.col_off[tp.lp.ngroups],
	       tp.lp.op ? " + operator" : "", bench_wall() - t0);
	for (int i = 0; i < ng; i++)
		solve(&tp, gaps[i]);
	ugal_tpl_free(&tp);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

int main(int argc, char **argv)
{
	static const char *const def[] = { "dragonfly:p=4,a=8,h=4,g=33",
					   "cascade:groups=6", NULL };
	double gaps[8] = { 1e-2, 1e-3 };
	int explicit_ = 0, nspec = 0, ng = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--explicit"))
			explicit_ = 1;
		else if (!strcmp(argv[i], "--gap") && i + 1 < argc && ng < 8)
			gaps[ng++] = atof(argv[++i]);
		else
			nspec++;
	}
	if (!ng)
		ng = 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--explicit"))
			continue;
		if (!strcmp(argv[i], "--gap")) {
			i++;
			continue;
		}
		run(argv[i], 1, gaps, ng);
		if (explicit_)
			run(argv[i], 0, gaps, ng);
	}
	for (int i = 0; !nspec && def[i]; i++) {
		run(def[i], 1, gaps, ng);
		if (explicit_ || i == 0)
			run(def[i], 0, gaps, ng);
	}
	return 0;
}
