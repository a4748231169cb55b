/* bench_whatif.c - the what-if simulator on the 10,000-job Lublin workload
 * (lublin_256.swf, for a 256-node machine) scaled to paper 003's
 * 10,648-node fat-tree (fattree:k=22,n=3, ecmp; job sizes times
 * 10648/256, rounded up), FCFS + EASY backfill, no rate prediction.
 * Target: under 60 s for fattree-pods.  Also one-shot MLS/TLS of 300
 * jobs on that machine.  Then the same workload scaled to the
 * 11,130-node dragonfly:p=7,a=15,h=8,g=106 under ugal: linear,
 * clustered, dragonfly-groups:large=shared and dragonfly-balanced,
 * target under 10 s each (issue 10; skipped when policies are given).
 * Last, with rates (Jain's model at every start, the default of stopo
 * whatif): the first 3,000 jobs on the 256-node
 * dragonfly:p=4,a=8,h=4,g=8 under ugal:intra=local, linear and
 * dragonfly-balanced (before the rate caches: about 65 s each on a slow
 * 2-core machine), the first 100 jobs of issue 10's 11,130-node run
 * under dragonfly-balanced with jm rates on one thread and on every
 * CPU (whatif_opts.rate_threads; no target: issue 10's 60 s is the
 * hm run's), and its
 * four policies on the first 1,000 jobs with rates under hm (counts
 * kept current, in closed form on the dragonfly; bench/run.sh times the
 * whole run).
 *
 * Usage: bench_whatif [SWF [POLICY...]]  (default: $STOPO_LUBLIN or
 * /work/shared/workloads/lublin_256.swf; fattree-pods and clustered).
 * Prints wall and CPU seconds per policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "evaluator/sharing/linkshare.h"
#include "evaluator/sim/whatif.h"
#include "evaluator/sim/workload.h"
#include "topo/util/par.h"
#include "topo/util/rng.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define TARGET_S 60.0
#define TARGET_DF_S 10.0
/* 256 nodes, 3,000 jobs with rates: a third of the 65 s it took before
 * the rate caches */
#define TARGET_RATES256_S 20.0

static int bench_linkshare(const struct routing *r, uint32_t N)
{
	struct ls_job *jobs = calloc(300, sizeof(*jobs));
	uint32_t *perm = malloc(N * sizeof(*perm)), pos = 0, nj = 0;
	struct ls_result res;
	struct err err = { 0 };
	struct rng g;
	double t0, t1;

	if (!jobs || !perm)
		return 1;
	rng_seed(&g, 7);
	for (uint32_t i = 0; i < N; i++)
		perm[i] = i;
	/* clustered-looking jobs: runs of consecutive nodes, some shuffled */
	for (uint32_t i = 0; i + 1 < N; i += 2)
		if (rng_below(&g, 10) == 0) {
			uint32_t j = (uint32_t)rng_below(&g, N), x = perm[i];

			perm[i] = perm[j];
			perm[j] = x;
		}
	while (nj < 300 && pos < N) {
		uint32_t sz = 2 + (uint32_t)rng_below(&g, 60);

		if (pos + sz > N)
			break;
		jobs[nj].id = nj + 1;
		jobs[nj].nodes = perm + pos;
		jobs[nj].n = sz;
		pos += sz;
		nj++;
	}
	t0 = bench_clock(CLOCK_MONOTONIC);
	if (linkshare_compute(r, jobs, nj, &res, &err)) {
		fprintf(stderr, "bench_whatif: %s\n", err.msg);
		return 1;
	}
	t1 = bench_clock(CLOCK_MONOTONIC);
	printf("linkshare_compute: %u jobs on %u nodes (%u nodes busy): "
	       "%.3f s, MLS %.1f %%, TLS %.1f %%\n",
	       nj, N, pos, t1 - t0, res.mls, res.tls);
	linkshare_free(&res);
	free(jobs);
	free(perm);
	return 0;
}

/* Each policy of POLS on the first LIMIT jobs (0: all) of workload PATH
 * scaled to T (as --scale auto), with or without RATES (MODEL: NULL for
 * jm), against TARGET seconds each.  Returns 0 or 1. */
static int run_policies(const char *path, const struct topo *t,
			const struct routing *r, const char *const *pols,
			int npol, uint32_t limit, bool rates, const char *model,
			uint32_t threads, double target)
{
	struct err err = { 0 };
	struct workload w;
	struct wl_opts wo;
	struct whatif_opts so;
	int rc = 0;

	wl_opts_init(&wo);
	if (workload_load(path, &wo, &w, &err)) {
		fprintf(stderr, "bench_whatif: %s\n", err.msg);
		return 1;
	}
	if (limit && limit < w.n)
		w.n = limit;
	for (uint32_t i = 0; i < w.n; i++)
		w.jobs[i].nodes = (uint32_t)(((uint64_t)w.jobs[i].nodes *
						      topo_num_nodes(t) +
					      w.max_nodes - 1) /
					     (w.max_nodes ? w.max_nodes : 1));
	whatif_opts_init(&so);
	so.rates = rates;
	so.model = model;
	so.rate_threads = threads;
	for (int p = 0; p < npol; p++) {
		struct whatif_result res;
		double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), c1;

		if (whatif_run(t, r, pols[p], &w, &so, &res, &err)) {
			fprintf(stderr, "bench_whatif: %s\n", err.msg);
			rc = 1;
			break;
		}
		c1 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
		printf("whatif %s on %s %s: %u jobs on %u nodes%s", res.policy,
		       topo_spec(t), routing_spec(r), w.n, topo_num_nodes(t),
		       !rates ? "" :
		       model  ? ", rates (hm)" :
				", rates (jm)");
		if (threads > 1)
			printf(" on %u threads", threads);
		printf(": %.1f s wall, %.1f s CPU ", res.seconds, c1 - c0);
		if (target > 0)
			printf("(target %.3g s: %s)", target,
			       res.seconds < target ? "met" : "MISSED");
		else if (target == 0)
			printf("(no target: bench/run.sh times the whole run)");
		else
			printf("(no target)");
		printf("; utilization "
		       "%.3f, mean wait %.0f s, MLS max %.1f %%, TLS avg "
		       "%.1f %%, isolated %u",
		       res.utilization, res.mean_wait, res.mls_max,
		       res.tls_mean, res.isolated_jobs);
		if (rates)
			printf(", rate sum %.6g", res.rate_sum);
		printf("\n");
		whatif_result_free(&res);
	}
	workload_free(&w);
	return rc;
}

/* Rates on the 256-node dragonfly: the first 3,000 jobs. */
static int bench_rates(const char *path)
{
	static const char *const pols[] = { "linear", "dragonfly-balanced" };
	struct err err = { 0 };
	struct topo *t = topo_create("dragonfly:p=4,a=8,h=4,g=8", &err);
	struct routing *r = t ? routing_create(t, "ugal:intra=local", &err) :
				NULL;
	int rc;

	if (!r) {
		fprintf(stderr, "bench_whatif: %s\n", err.msg);
		topo_destroy(t);
		return 1;
	}
	rc = run_policies(path, t, r, pols, 2, 3000, true, NULL, 0,
			  TARGET_RATES256_S);
	routing_destroy(r);
	topo_destroy(t);
	return rc;
}

int main(int argc, char **argv)
{
	static const char *const defpol[] = { "fattree-pods", "clustered" };
	/* issue 10: each policy alone, no rates, under 10 s on the
	 * 11,130-node dragonfly under ugal (linear: the peer) */
	static const char *const dfpol[] = { "linear", "clustered",
					     "dragonfly-groups:large=shared",
					     "dragonfly-balanced" };
	/* issue 10's run with rates */
	static const char *const ratepol[] = {
		"linear", "clustered", "dragonfly-groups",
		"dragonfly-groups:large=shared"
	};
	const char *path = argc > 1 ? argv[1] : getenv("STOPO_LUBLIN");
	const char *const *pols = defpol;
	int npol = 2, rc = 0;
	struct err err = { 0 };
	struct topo *t;
	struct routing *r;

	if (!path)
		path = "/work/shared/workloads/lublin_256.swf";
	if (argc > 2) {
		pols = (const char *const *)argv + 2;
		npol = argc - 2;
	}
	if (access(path, R_OK)) {
		printf("bench_whatif: %s not readable: skipped (set "
		       "STOPO_LUBLIN)\n",
		       path);
		return 0;
	}
	t = topo_create("fattree:k=22,n=3", &err);
	r = t ? routing_create(t, "ecmp", &err) : NULL;
	if (!r) {
		fprintf(stderr, "bench_whatif: %s\n", err.msg);
		return 1;
	}
	if (bench_linkshare(r, topo_num_nodes(t)))
		return 1;
	rc = run_policies(path, t, r, pols, npol, 0, false, NULL, 0, TARGET_S);
	routing_destroy(r);
	topo_destroy(t);
	if (rc || argc > 2)
		return rc;
	t = topo_create("dragonfly:p=7,a=15,h=8,g=106", &err);
	r = t ? routing_create(t, "ugal", &err) : NULL;
	if (!r) {
		fprintf(stderr, "bench_whatif: %s\n", err.msg);
		topo_destroy(t);
		return 1;
	}
	rc = run_policies(path, t, r, dfpol, 4, 0, false, NULL, 0, TARGET_DF_S);
	/* jm rates after the simulation on every CPU (whatif_opts.
	 * rate_threads), beside one thread: the first 100 jobs, no target
	 * (issue 10's 60 s is the hm run's, bench/run.sh; a 20-job jm run
	 * against that target pro-rated, 0.03 s, printed MISSED for a
	 * target jm never had) */
	if (!rc) {
		uint32_t ncpu = par_cpus();

		rc = run_policies(path, t, r, dfpol + 3, 1, 100, true, NULL, 0,
				  -1);
		if (!rc && ncpu > 1)
			rc = run_policies(path, t, r, dfpol + 3, 1, 100, true,
					  NULL, ncpu, -1);
	}
	/* the four policies with rates under hm (counts kept
	 * current), the first 1,000 jobs one after another; its target is
	 * the whole run's, policies side by side (bench/run.sh) */
	if (!rc)
		rc = run_policies(path, t, r, ratepol, 4, 1000, true, "hm", 0,
				  0);
	routing_destroy(r);
	topo_destroy(t);
	if (rc)
		return rc;
	return bench_rates(path);
}
