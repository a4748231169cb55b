/*****************************************************************************\
 *  bench_adapter.c - what select/topo adds to Slurm's job_test and
 *  job_begin at the paper 003 Table I scale: fat-tree k=22 n=3 (10,648
 *  nodes, fattree-pods) and dragonfly p=7 a=15 h=8 g=106 (11,130 nodes,
 *  dragonfly-groups), machine 85 % full with jobs placed by the
 *  policy itself.  Measures, per call (process CPU time):
 *    run_now   policy_place on the current owners (SELECT_MODE_RUN_NOW)
 *    will_run  the backfill search (policy_will_run): release jobs by end
 *              time until placed (the search every time: its kept
 *              answers off)
 *    again     the same will-run asked again on the same state: the
 *              answer kept from the first
 *    evaluate  the in-process evaluator at job start: one-shot (every
 *              running job's link set) and incremental (the tracker
 *              select_topo.c uses: the new job's link set), plus the
 *              prediction (Predict= default, jm; PredictBudget=60000 so
 *              that the model's whole cost shows)
 *  The topo.conf and node names go through tstate_load as in slurmctld.
 *
 *  Then one backfill pass the way slurmctld's backfill drives the plugin,
 *  on each isolating policy of the three families at 10,000+ nodes
 *  (fat-tree k=22 n=3, dragonfly p=7 a=15 h=8 g=106, express mesh
 *  30x30x12): the machine 85 % full as above, N pending jobs (default
 *  500, bf_max_job_test's default) with the sizes of the first N jobs of
 *  the workload (SWF, scaled as stopo whatif --scale auto) in priority
 *  order; each gets the will-run search (SELECT_MODE_WILL_RUN), and one
 *  that can start now is placed (SELECT_MODE_RUN_NOW) and its nodes
 *  owned before the next job is tested.  Reports the pass time, the
 *  slowest will-run, the jobs started and the end times released.
 *
 *  Usage: bench_adapter [iterations [SWF [pending [POLICY]]]]
 *         (default 20, 0: the backfill pass only; SWF default $BENCH_DIR/../../shared/workloads/
 *         lublin_256.swf as make bench runs it, no pass when absent;
 *         500; POLICY: only the pass cases whose policy starts so)
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

/* CONF_LINE's machine of NODES nodes n0.. with POLICY for partition
 * batch, through tstate_load as in slurmctld (EXTRA: more topo.conf
 * lines); *P its policy, *NAMES the node names (freed by names_free). */
static struct tstate *load(const char *conf_line, const char *policy,
			   uint32_t nodes, const char *extra, char ***names,
			   const struct policy **p)
{
	char path[] = "/tmp/bench_adapter.XXXXXX";
	const char *parts[] = { "batch" };
	struct err err = { 0 };
	struct tstate *s;
	bool none;
	FILE *f;
	int fd;

	*names = calloc(nodes, sizeof(char *));
	fd = mkstemp(path);
	if (!*names || fd < 0 || !(f = fdopen(fd, "w")))
		return NULL;
	fprintf(f, "%s\nNodeName=n[0-%u]\nPartitionPolicy=batch:%s\n%s",
		conf_line, nodes - 1, policy, extra);
	fclose(f);
	for (uint32_t i = 0; i < nodes; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "n%u", i);
		(*names)[i] = strdup(buf);
	}
	s = tstate_load(path, (const char *const *)*names, NULL, nodes, parts,
			1, &err);
	unlink(path);
	if (s && !(*p = tstate_policy(s, "batch", NULL, &none, &err))) {
		tstate_destroy(s);
		s = NULL;
	}
	if (!s)
		fprintf(stderr, "bench_adapter: %s\n", err.msg);
	return s;
}

static void names_free(char **names, uint32_t nodes)
{
	for (uint32_t i = 0; names && i < nodes; i++)
		free(names[i]);
	free(names);
}

/* Fill 85 % of the NODES nodes with jobs 1, 2, .. of random sizes the
 * policy places (USABLE may be NULL), their ids in OWNER (NODES is
 * scratch); RUN[j - 1] gets job j, ending at 1000 + j.  Returns the jobs
 * placed; *USED the nodes they hold. */
static uint32_t fill(const struct policy *p, uint32_t nodes, uint32_t *owner,
		     uint32_t *scratch, const uint8_t *usable,
		     struct policy_running *run, uint32_t *used)
{
	static const uint32_t fill_sizes[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
	uint32_t job = 1;

	*used = 0;
	for (uint32_t i = 0; *used < nodes * 17 / 20 && i < 100000; i++) {
		struct policy_request req = { .job_id = job,
					      .nodes = fill_sizes[rnd(8)] };
		struct policy_result res = { .nodes = scratch };
		struct policy_view v = { .owner = owner, .usable = usable };

		if (policy_place(p, &v, &req, &res) != POLICY_PLACED)
			continue;
		for (uint32_t k = 0; k < res.n; k++)
			owner[scratch[k]] = job;
		*used += res.n;
		run[job - 1].job_id = job;
		run[job - 1].end = 1000 + job;
		job++;
	}
	return job - 1;
}

static int run_case(const struct bcase *c, int iters)
{
	struct err err = { 0 };
	char **names = NULL;
	uint32_t *owner = calloc(c->nodes, sizeof(uint32_t));
	uint32_t *nodes = calloc(c->nodes, sizeof(uint32_t));
	struct policy_running *run = calloc(c->nodes + 1, sizeof(*run));
	const struct policy *p = NULL;
	struct policy *forget;
	struct tstate *s;
	uint32_t i, used = 0, njobs = 0, job, k;
	double tload;

	if (!owner || !nodes || !run)
		return -1;
	tload = cpu_now();
	s = load(c->topo_conf_line, c->policy, c->nodes,
		 "PredictBudget=60000\n", &names, &p);
	tload = cpu_now() - tload;
	if (!s)
		return -1;
	njobs = fill(p, c->nodes, owner, nodes, NULL, run, &used);
	job = njobs + 1;
	printf("%-40s %-18s %u nodes, %u jobs on %u nodes, load %.3f s\n",
	       c->topo_conf_line + 9, c->policy, c->nodes, njobs, used, tload);
	printf("  %8s %12s %12s %12s %10s\n", "size", "run_now ms",
	       "will_run ms", "again ms", "released");
	/* the same policy searching every call (no kept answers) */
	forget = policy_create_opt(
		policy_spec(p), tstate_topo(s), tstate_routing(s),
		&(struct policy_opts){ .willrun_forget = true }, &err);
	if (!forget) {
		fprintf(stderr, "%s: %s\n", policy_spec(p), err.msg);
		return -1;
	}
	for (k = 0; k < 4; k++) {
		struct policy_request req = { .job_id = job + 1,
					      .nodes = c->sizes[k] };
		struct policy_result res = { .nodes = nodes };
		struct policy_view v = { .owner = owner };
		struct policy_will_run wr = { 0 };
		double a, b[2];
		int it;

		a = cpu_now();
		for (it = 0; it < iters; it++)
			policy_place(p, &v, &req, &res);
		a = (cpu_now() - a) / iters;
		/* the search every time, then the kept answer (after one
		 * search) */
		for (int keep = 0; keep < 2; keep++) {
			b[keep] = cpu_now();
			for (it = 0; it < iters; it++)
				if (policy_will_run(keep ? p : forget, &v, run,
						    njobs, 0, &req, &res, &wr,
						    &err) < 0) {
					fprintf(stderr, "will_run: %s\n",
						err.msg);
					return -1;
				}
			b[keep] = (cpu_now() - b[keep]) / iters;
		}
		printf("  %8u %12.3f %12.3f %12.3f %10u\n", c->sizes[k],
		       a * 1e3, b[0] * 1e3, b[1] * 1e3, wr.jobs);
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
	policy_destroy(forget);
	tstate_destroy(s);
	names_free(names, c->nodes);
	free(owner);
	free(nodes);
	free(run);
	return 0;
}

/* One backfill pass (see the header). */
struct pcase {
	const char *topo_conf_line, *policy;
	uint32_t nodes;
};

static const struct pcase pass_cases[] = {
	{ "Topology=fattree k=22 n=3", "fattree-pods:rule=paper", 10648 },
	{ "Topology=fattree k=22 n=3", "fattree-pods:rule=links", 10648 },
	{ "Topology=dragonfly p=7 a=15 h=8 g=106", "dragonfly-groups", 11130 },
	{ "Topology=dragonfly p=7 a=15 h=8 g=106", "dragonfly-balanced",
	  11130 },
	{ "Topology=dragonfly p=7 a=15 h=8 g=106", "nne", 11130 },
	{ "Topology=expressmesh dims=30x30x12 gap=4", "mesh-blocks", 10800 },
};

/* The requested (else allocated) processors of the first N jobs of SWF
 * PATH, and the largest, into SIZES; the count read, or -1. */
static int swf_sizes(const char *path, uint32_t *sizes, uint32_t n,
		     uint32_t *largest)
{
	char line[1024];
	uint32_t k = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	*largest = 1;
	while (k < n && fgets(line, sizeof(line), f)) {
		long v[8];

		if (line[0] == ';' ||
		    sscanf(line, "%ld %ld %ld %ld %ld %ld %ld %ld", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7]) != 8)
			continue;
		if (v[7] <= 0)
			v[7] = v[4];
		if (v[7] <= 0)
			continue;
		sizes[k] = (uint32_t)v[7];
		if (sizes[k] > *largest)
			*largest = sizes[k];
		k++;
	}
	fclose(f);
	return (int)k;
}

static int run_pass(const struct pcase *c, const uint32_t *swf, uint32_t npend,
		    uint32_t largest)
{
	struct err err = { 0 };
	char **names = NULL;
	uint32_t *owner = calloc(c->nodes, sizeof(uint32_t));
	uint32_t *nodes = calloc(c->nodes, sizeof(uint32_t));
	uint8_t *usable = malloc(c->nodes);
	struct policy_running *run = calloc(c->nodes + npend + 1, sizeof(*run));
	const struct policy *p = NULL;
	struct tstate *s;
	uint32_t i, k, used, nrun, started = 0, released = 0;
	double total, worst = 0;

	if (!owner || !nodes || !usable || !run)
		return -1;
	memset(usable, 1, c->nodes);
	if (!(s = load(c->topo_conf_line, c->policy, c->nodes, "", &names, &p)))
		return -1;
	rng_state = 88172645463325252ull;
	nrun = fill(p, c->nodes, owner, nodes, usable, run, &used);
	total = cpu_now();
	for (i = 0; i < npend; i++) {
		uint64_t sz =
			((uint64_t)swf[i] * c->nodes + largest - 1) / largest;
		struct policy_request req = {
			.job_id = 1000000 + i,
			.nodes = (uint32_t)(sz ? sz : 1),
		};
		struct policy_result res = { .nodes = nodes };
		struct policy_view v = { .owner = owner, .usable = usable };
		struct policy_will_run wr = { 0 };
		double a = cpu_now();

		if (policy_will_run(p, &v, run, nrun, 0, &req, &res, &wr,
				    &err) < 0) {
			fprintf(stderr, "will_run: %s\n", err.msg);
			return -1;
		}
		released += wr.jobs;
		/* it can start now: job_test RUN_NOW, then job_begin */
		if (wr.status == POLICY_PLACED && wr.groups == 0 &&
		    policy_place(p, &v, &req, &res) == POLICY_PLACED) {
			for (k = 0; k < res.n; k++)
				owner[nodes[k]] = req.job_id;
			run[nrun].job_id = req.job_id;
			run[nrun].end = 1000000 + i;
			nrun++;
			started++;
		}
		a = cpu_now() - a;
		if (a > worst)
			worst = a;
	}
	total = cpu_now() - total;
	printf("  %-38s %-24s %5.1f ms %8.3f %8.3f %7u %9u\n",
	       c->topo_conf_line + 9, c->policy, total * 1e3,
	       total * 1e3 / npend, worst * 1e3, started, released);
	tstate_destroy(s);
	names_free(names, c->nodes);
	free(owner);
	free(nodes);
	free(usable);
	free(run);
	return 0;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 20;
	uint32_t npend = argc > 3 ? (uint32_t)atoi(argv[3]) : 500, largest;
	uint32_t *sizes;
	const char *swf = argc > 2 ? argv[2] : NULL, *dir = getenv("BENCH_DIR");
	char def[4096];
	size_t i;
	int got;

	for (i = 0; iters > 0 && i < sizeof(cases) / sizeof(cases[0]); i++)
		if (run_case(&cases[i], iters) < 0)
			return 1;
	if (!swf && dir &&
	    snprintf(def, sizeof(def),
		     "%s/../../shared/workloads/lublin_256.swf",
		     dir) < (int)sizeof(def) &&
	    access(def, R_OK) == 0)
		swf = def;
	if (!swf)
		return 0;
	if (npend < 1)
		npend = 1;
	if (!(sizes = calloc(npend, sizeof(*sizes))))
		return 1;
	got = swf_sizes(swf, sizes, npend, &largest);
	if (got < 1) {
		fprintf(stderr, "bench_adapter: %s: no jobs\n", swf);
		free(sizes);
		return 1;
	}
	printf("\nbackfill pass: %d pending jobs (%s, scaled to the machine), "
	       "machine 85 %% full; will-run each, start those that can "
	       "start now\n",
	       got, swf);
	printf("  %-38s %-24s %8s %8s %8s %7s %9s\n", "machine", "policy",
	       "pass", "ms/job", "max ms", "started", "released");
	for (i = 0; i < sizeof(pass_cases) / sizeof(pass_cases[0]); i++)
		if ((argc < 5 || !strncmp(pass_cases[i].policy, argv[4],
					  strlen(argv[4]))) &&
		    run_pass(&pass_cases[i], sizes, (uint32_t)got, largest) <
			    0) {
			free(sizes);
			return 1;
		}
	free(sizes);
	return 0;
}
