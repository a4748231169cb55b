/* bench_model.c - the throughput models at scale (issue 3 "Must show"):
 *   HM and JM, random:1, minimal routing, on dragonfly:p=7,a=15,h=8,g=106
 *   (11,130 nodes) and fattree:k=22,n=3 (10,648 nodes; the fat-tree's
 *   minimal routings are ecmp = every minimal path and dmodk = one);
 *   MCF and MMF, perm:1 with ugal paths (every MIN and VLB path its own LP
 *   column) on dragonfly:p=2,a=4,h=2,g=9 and dragonfly:p=3,a=6,h=3,g=19;
 *   MCF and MMF, random:1, minimal routing on dragonfly:p=7,a=15,h=8,g=106
 *   (11,130 flows, 227 of them with 2 minimal paths): MMF's hybrid method
 *   (filling + a small LP) beside the iterative LP it replaces.
 * Prints, per case: path enumeration time (routing), the model's wall and
 * CPU time, flows, paths, path-link crossings, JM rounds / MMF LPs (+
 * filling levels), LP rows x columns and non-zeros (MMF's hybrid: of its
 * reduced LP).  Then JM under ugal on the 11,130-node dragonfly, random:1
 * (18 million paths): on stems and middles (model_run, the factored form)
 * against every path enumerated (its peer: the path-level method), with
 * the ratio and the largest per-flow difference; and HM there in closed
 * form, on the stems and on every path.
 * Run by `make bench`; asserts nothing.  BENCH_MMF_LP=1 also times MMF's
 * iterative LP ("mmf/lp") on the large dragonfly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "evaluator/models/model.h"
#include "topo/routing.h"
#include "topo/topo.h"

/* MODEL is a model name, or "mmf/lp" for MMF's iterative LP method. */
static int solve_one(const char *model, const struct model_input *in,
		     struct model_result *res, struct err *err)
{
	struct model_opts o;

	model_opts_init(&o);
	if (!strcmp(model, "mmf/lp")) {
		o.mmf_method = MODEL_MMF_LP;
		model = "mmf";
	}
	return model_solve(model, in, &o, res, err);
}

static void run(const char *topo, const char *routing, const char *pattern,
		const char *const *models)
{
	struct err err = { 0 };
	struct topo *t = topo_create(topo, &err);
	struct routing *r = t ? routing_create(t, routing, &err) : NULL;
	struct flows f;
	struct model_input in;
	double w0, c0;

	if (!r) {
		fprintf(stderr, "%s %s: %s\n", topo, routing, err.msg);
		exit(1);
	}
	flows_init(&f);
	if (flows_pattern(pattern, NULL, topo_num_nodes(t), 1, &f, &err)) {
		fprintf(stderr, "%s: %s\n", pattern, err.msg);
		exit(1);
	}
	w0 = bench_clock(CLOCK_MONOTONIC);
	if (model_input_build(r, &f, &in, &err)) {
		fprintf(stderr, "%s: %s\n", topo, err.msg);
		exit(1);
	}
	printf("%s, %s, %s: %u flows, %u paths, %u crossings; paths "
	       "enumerated in %.3f s\n",
	       topo, routing_spec(r), pattern, in.nflows, in.npaths,
	       in.path_off[in.npaths], bench_clock(CLOCK_MONOTONIC) - w0);
	for (; *models; models++) {
		struct model_result res;

		w0 = bench_clock(CLOCK_MONOTONIC);
		c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
		if (solve_one(*models, &in, &res, &err)) {
			fprintf(stderr, "%s: %s\n", *models, err.msg);
			exit(1);
		}
		printf("  %-6s %8.3f s wall %8.3f s cpu  aggregate %10.3f  "
		       "mean %.5f  min %.5f  jain %.4f  %s %u",
		       *models, bench_clock(CLOCK_MONOTONIC) - w0,
		       bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0,
		       res.aggregate, res.mean_rate, res.min_rate,
		       res.node_jain,
		       !res.lp_rows		 ? "rounds" :
		       !strcmp(res.model, "mmf") ? "LPs+levels" :
						   "LPs",
		       res.iterations);
		if (res.lp_rows)
			printf("  LP %u x %u, %llu non-zeros", res.lp_rows,
			       res.lp_cols,
			       (unsigned long long)res.lp_nonzeros);
		printf("%s\n",
		       res.status == MODEL_OPTIMAL ? "" : "  (not optimal)");
		model_result_free(&res);
	}
	model_input_free(&in);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

/* JM factored (model_run) against JM on every path, same flows. */
static void jm_factored(const char *topo, const char *routing,
			const char *pattern)
{
	struct err err = { 0 };
	struct topo *t = topo_create(topo, &err);
	struct routing *r = t ? routing_create(t, routing, &err) : NULL;
	struct model_result a, b;
	struct model_opts o;
	struct flows f;
	double w0, wf, wp, diff = 0;

	if (!r) {
		fprintf(stderr, "%s %s: %s\n", topo, routing, err.msg);
		exit(1);
	}
	flows_init(&f);
	model_opts_init(&o);
	if (flows_pattern(pattern, NULL, topo_num_nodes(t), 1, &f, &err)) {
		fprintf(stderr, "%s: %s\n", pattern, err.msg);
		exit(1);
	}
	w0 = bench_clock(CLOCK_MONOTONIC);
	if (model_run("jm", r, &f, &o, &a, &err)) {
		fprintf(stderr, "jm: %s\n", err.msg);
		exit(1);
	}
	wf = bench_clock(CLOCK_MONOTONIC) - w0;
	w0 = bench_clock(CLOCK_MONOTONIC);
	if (model_run("jm:method=paths", r, &f, &o, &b, &err)) {
		fprintf(stderr, "jm:method=paths: %s\n", err.msg);
		exit(1);
	}
	wp = bench_clock(CLOCK_MONOTONIC) - w0;
	for (uint32_t i = 0; i < f.n; i++) {
		double d = a.rates[i] - b.rates[i];

		if ((d < 0 ? -d : d) > diff)
			diff = d < 0 ? -d : d;
	}
	printf("%s, %s, %s: jm on %llu paths, %u rounds: factored %.3f s, "
	       "every path (enumerated + solved) %.3f s: %.1fx; aggregate "
	       "%.9f vs %.9f, largest flow difference %.1e\n",
	       topo, routing_spec(r), pattern,
	       (unsigned long long)a.paths_total, a.iterations, wf, wp, wp / wf,
	       a.aggregate, b.aggregate, diff);
	model_result_free(&a);
	model_result_free(&b);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

/* HM three ways on the same flows, no link loads ranked: in closed form
 * (method=auto on a dragonfly), on the stems (factored), on every path. */
static void hm_forms(const char *topo, const char *routing, const char *pattern)
{
	static const char *const spec[] = { "hm", "hm:method=factored",
					    "hm:method=paths" };
	struct err err = { 0 };
	struct topo *t = topo_create(topo, &err);
	struct routing *r = t ? routing_create(t, routing, &err) : NULL;
	struct model_result res[3];
	struct model_opts o;
	struct flows f;
	double w[3], diff = 0;

	if (!r) {
		fprintf(stderr, "%s %s: %s\n", topo, routing, err.msg);
		exit(1);
	}
	flows_init(&f);
	model_opts_init(&o);
	o.top_links = 0;
	if (flows_pattern(pattern, NULL, topo_num_nodes(t), 1, &f, &err)) {
		fprintf(stderr, "%s: %s\n", pattern, err.msg);
		exit(1);
	}
	for (int k = 0; k < 3; k++) {
		double w0 = bench_clock(CLOCK_MONOTONIC);

		if (model_run(spec[k], r, &f, &o, &res[k], &err)) {
			fprintf(stderr, "%s: %s\n", spec[k], err.msg);
			exit(1);
		}
		w[k] = bench_clock(CLOCK_MONOTONIC) - w0;
	}
	for (int k = 1; k < 3; k++)
		for (uint32_t i = 0; i < f.n; i++) {
			double d = res[0].rates[i] - res[k].rates[i];

			d = d < 0 ? -d : d;
			if (d > diff)
				diff = d;
		}
	printf("%s, %s, %s: hm on %llu paths: closed form %.3f s, stems "
	       "%.3f s (%.1fx), every path (enumerated + solved) %.3f s "
	       "(%.1fx); aggregates %.9f / %.9f / %.9f, largest flow "
	       "difference %.1e\n",
	       topo, routing_spec(r), pattern,
	       (unsigned long long)res[0].paths_total, w[0], w[1], w[1] / w[0],
	       w[2], w[2] / w[0], res[0].aggregate, res[1].aggregate,
	       res[2].aggregate, diff);
	for (int k = 0; k < 3; k++)
		model_result_free(&res[k]);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

int main(void)
{
	static const char *const fast[] = { "hm", "jm", NULL };
	static const char *const lp[] = { "mcf", "mmf", NULL };
	static const char *const lp_ref[] = { "mcf", "mmf", "mmf/lp", NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);
	run("dragonfly:p=7,a=15,h=8,g=106", "min", "random:1", fast);
	run("fattree:k=22,n=3", "ecmp", "random:1", fast);
	run("fattree:k=22,n=3", "dmodk", "random:1", fast);
	run("dragonfly:p=2,a=4,h=2,g=9", "ugal", "perm:1", lp);
	run("dragonfly:p=3,a=6,h=3,g=19", "ugal", "perm:1", lp);
	/* MMF/LP takes minutes here (5,747 LPs); BENCH_MMF_LP=1 adds it */
	run("dragonfly:p=7,a=15,h=8,g=106", "min", "random:1",
	    getenv("BENCH_MMF_LP") ? lp_ref : lp);
	jm_factored("dragonfly:p=7,a=15,h=8,g=106", "ugal", "random:1");
	hm_forms("dragonfly:p=7,a=15,h=8,g=106", "ugal", "random:1");
	return 0;
}
