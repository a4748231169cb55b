/*****************************************************************************\
 *  bench_adapter.c - what select/topo adds to Slurm's job_test and
 *  job_begin at the paper 003 Table I scale: fat-tree k=22 n=3 (10,648
 *  nodes, fattree-pods) and dragonfly p=7 a=15 h=8 g=106 (11,130 nodes,
 *  dragonfly-groups), machine 85 % full with jobs placed by the
 *  policy itself.  Measures, per call (process CPU time):
 *    run_now   policy_place on the current owners (SELECT_MODE_RUN_NOW)
 *    will_run  the backfill search (policy_will_run): release jobs by end
 *              time until placed
 *    evaluate  the in-process evaluator at job start: one-shot (every
 *              running job's link set) and incremental (the tracker
 *              select_topo.c uses: the new job's link set), plus the
 *              prediction (Predict= default, jm; PredictBudget=60000 so
 *              that the model's whole cost shows)
 *  The topo.conf and node names go through tstate_load as in slurmctld.
 *
 *  Usage: bench_adapter [iterations]   (default 20)
\*****************************************************************************/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin/topo_adapter.h"
#include "policies/willrun.h"

struct bcase {
	const char *topo_conf_line, *policy;
	uint32_t nodes;
	uint32_t sizes[4];
};

static const struct bcase cases[] = {
	{ "Topology=fattree k=22 n=3",
	  "fattree-pods",
	  10648,
	  { 1, 22, 484, 1500 } },
	{ "Topology=dragonfly p=7 a=15 h=8 g=106",
	  "dragonfly-groups",
	  11130,
	  { 1, 7, 105, 500 } },
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng_state = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

static int run_case(const struct bcase *c, int iters)
{
	static const uint32_t fill_sizes[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	char path[] = "/tmp/bench_adapter.XXXXXX";
	struct err err = { { 0 } };
	char **names = calloc(c->nodes, sizeof(char *));
	uint32_t *owner = calloc(c->nodes, sizeof(uint32_t));
	uint32_t *nodes = calloc(c->nodes, sizeof(uint32_t));
	struct policy_running *run = calloc(c->nodes + 1, sizeof(*run));
	const char *parts[] = { "batch" };
	const struct policy *p;
	struct tstate *s;
	uint32_t i, used = 0, njobs = 0, job = 1, k;
	bool none;
	FILE *f;
	int fd;

	if (!names || !owner || !nodes || !run)
		return -1;
	fd = mkstemp(path);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fprintf(f,
		"%s\nNodeName=n[0-%u]\nPartitionPolicy=batch:%s\n"
		"PredictBudget=60000\n",
		c->topo_conf_line, c->nodes - 1, c->policy);
	fclose(f);
	for (i = 0; i < c->nodes; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "n%u", i);
		names[i] = strdup(buf);
	}
	double t0 = cpu_now();
	s = tstate_load(path, (const char *const *)names, c->nodes, parts, 1,
			&err);
	double tload = cpu_now() - t0;
	unlink(path);
	if (!s) {
		fprintf(stderr, "bench_adapter: %s\n", err.msg);
		return -1;
	}
	p = tstate_policy(s, "batch", NULL, &none, &err);
	if (!p) {
		fprintf(stderr, "bench_adapter: %s\n", err.msg);
		return -1;
	}
	/* Fill 85 % with jobs the policy places; job j ends at time j. */
	for (i = 0; used < c->nodes * 17 / 20 && i < 100000; i++) {
		struct policy_request req = { .job_id = job,
					      .nodes = fill_sizes[rnd(8)] };
		struct policy_result res = { .nodes = nodes };
		struct policy_view v = { .owner = owner };

		if (policy_place(p, &v, &req, &res) != POLICY_PLACED)
			continue;
		for (k = 0; k < res.n; k++)
			owner[nodes[k]] = job;
		used += res.n;
		job++;
	}
	njobs = job - 1;
	/* job j ends at 999 + j: one job per end time */
	for (i = 0; i < njobs; i++) {
		run[i].job_id = i + 1;
		run[i].end = 1000 + i;
	}
	printf("%-40s %-18s %u nodes, %u jobs on %u nodes, load %.3f s\n",
	       c->topo_conf_line + 9, c->policy, c->nodes, njobs, used, tload);
	printf("  %8s %12s %12s %10s\n", "size", "run_now ms", "will_run ms",
	       "released");
	for (k = 0; k < 4; k++) {
		struct policy_request req = { .job_id = job + 1,
					      .nodes = c->sizes[k] };
		struct policy_result res = { .nodes = nodes };
		struct policy_view v = { .owner = owner };
		struct policy_will_run wr = { 0 };
		double a, b;
		int it;

		a = cpu_now();
		for (it = 0; it < iters; it++)
			policy_place(p, &v, &req, &res);
		a = (cpu_now() - a) / iters;
		b = cpu_now();
		for (it = 0; it < iters; it++)
			if (policy_will_run(p, &v, run, njobs, 0, &req, &res,
					    &wr, &err) < 0) {
				fprintf(stderr, "will_run: %s\n", err.msg);
				return -1;
			}
		b = (cpu_now() - b) / iters;
		printf("  %8u %12.3f %12.3f %10u\n", c->sizes[k], a * 1e3,
		       b * 1e3, wr.jobs);
	}
	{
		/* job_begin of a running job: every running job compared. */
		struct teval ev;
		uint32_t n = 0, target = 0;
		double a;

		for (i = 0; i < c->nodes && !target; i++)
			if (owner[i]) {
				uint32_t cnt = 0;

				for (k = 0; k < c->nodes; k++)
					cnt += owner[k] == owner[i];
				if (cnt >= 8 && cnt <= 128)
					target = owner[i];
			}
		for (i = 0; i < c->nodes; i++)
			if (target && owner[i] == target)
				nodes[n++] = i;
		a = cpu_now();
		if (tstate_evaluate(s, owner, target, nodes, n, NULL, 128, &ev,
				    &err) < 0)
			fprintf(stderr, "evaluate: %s\n", err.msg);
		a = cpu_now() - a;
		printf("  evaluate one-shot (job of %u nodes, %u running): %.1f ms, MLS %.2f TLS %.2f, %s mean %.4g (%s)\n",
		       n, ev.njobs, a * 1e3, ev.mls, ev.tls, ev.model,
		       ev.rate_mean, tstate_status_name(ev.status));
		a = cpu_now();
		if (tstate_track_reset(s, owner, &err) < 0)
			fprintf(stderr, "track: %s\n", err.msg);
		a = cpu_now() - a;
		printf("  tracker rebuild (restart/reconfigure): %.1f ms\n",
		       a * 1e3);
		a = cpu_now();
		tstate_track_remove(s, target);
		if (tstate_track_add(s, target, nodes, n, &err) < 0 ||
		    tstate_evaluate_tracked(s, target, nodes, n, NULL, 128, &ev,
					    &err) < 0)
			fprintf(stderr, "tracked: %s\n", err.msg);
		a = cpu_now() - a;
		printf("  job_begin with the tracker (link set + %s): %.2f ms, MLS %.2f\n",
		       ev.model, a * 1e3, ev.mls);
	}
	tstate_destroy(s);
	for (i = 0; i < c->nodes; i++)
		free(names[i]);
	free(names);
	free(owner);
	free(nodes);
	free(run);
	return 0;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20;
	size_t i;

	if (iters < 1)
		iters = 1;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (run_case(&cases[i], iters) < 0)
			return 1;
	return 0;
}
