/* test_whatif.c - the FCFS + EASY backfill simulator on small SWF files
 * whose schedules were worked out by hand (the reasoning is in the
 * comments of tests/data/whatif_small.swf and whatif_hold.swf): a
 * backfilled job, a job that must wait for the head's reservation, a job
 * the isolating policy holds, a job dropped as never placeable, the
 * metrics (wait, bounded slowdown, utilisation, makespan, MLS/TLS over
 * time), squeue snapshots with running jobs, and predicted rates. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model.h"
#include "evaluator/sharing/linkshare.h"
#include "evaluator/sim/whatif.h"
#include "evaluator/sim/workload.h"
#include "evaluator/traffic/flows.h"
#include "policies/machine/machine.h"
#include "topo/util/rng.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "tests/unit/fixtures.h"

#ifndef TESTDATA
#define TESTDATA "tests/data"
#endif

struct run {
	struct topo *t;
	struct routing *r;
	struct workload w;
	struct whatif_result res;
};

static void simulate(struct run *x, const char *spec, const char *file,
		     const char *policy, bool rates)
{
	struct err err = { 0 };
	struct wl_opts wo;
	struct whatif_opts so;
	char path[512];

	x->t = fx_topo(spec);
	x->r = fx_routing(x->t, NULL);
	snprintf(path, sizeof(path), "%s/%s", TESTDATA, file);
	wl_opts_init(&wo);
	cr_assert_eq(workload_load(path, &wo, &x->w, &err), 0, "%s", err.msg);
	whatif_opts_init(&so);
	so.rates = rates;
	cr_assert_eq(whatif_run(x->t, x->r, policy, &x->w, &so, &x->res, &err),
		     0, "%s", err.msg);
}

static void simulate_text(struct run *x, const char *spec, const char *text,
			  const char *policy)
{
	struct err err = { 0 };
	struct wl_opts wo;

	x->t = fx_topo(spec);
	x->r = fx_routing(x->t, NULL);
	wl_opts_init(&wo);
	wo.nnodes = topo_num_nodes(x->t);
	cr_assert_eq(workload_parse("snap.json", text, strlen(text), &wo, &x->w,
				    &err),
		     0, "%s", err.msg);
	cr_assert_eq(whatif_run(x->t, x->r, policy, &x->w, NULL, &x->res, &err),
		     0, "%s", err.msg);
}

static void release(struct run *x)
{
	whatif_result_free(&x->res);
	workload_free(&x->w);
	routing_destroy(x->r);
	topo_destroy(x->t);
}

static const struct whatif_job *job(const struct run *x, uint32_t id)
{
	for (uint32_t i = 0; i < x->res.njob_out; i++)
		if (x->res.jobs[i].id == id)
			return &x->res.jobs[i];
	cr_assert_fail("no job %u", id);
	return NULL;
}

/* Job ID ran [START, END) on the nodes of RANGES ("a-b" pieces). */
static void expect(const struct run *x, uint32_t id, int64_t start, int64_t end,
		   const uint32_t (*ranges)[2], int nr)
{
	const struct whatif_job *j = job(x, id);
	uint32_t want = 0;

	cr_assert_not(j->dropped, "job %u dropped: %s", id, j->reason);
	cr_assert_eq(j->start, start, "job %u starts at %lld, want %lld", id,
		     (long long)j->start, (long long)start);
	cr_assert_eq(j->end, end, "job %u ends at %lld, want %lld", id,
		     (long long)j->end, (long long)end);
	for (int k = 0; k < nr; k++)
		want += ranges[k][1] - ranges[k][0] + 1;
	cr_assert_eq(j->n, want, "job %u has %u nodes", id, j->n);
	for (uint32_t q = 0; q < j->n; q++) {
		bool in = false;

		for (int k = 0; k < nr; k++)
			in |= j->nodes[q] >= ranges[k][0] &&
			      j->nodes[q] <= ranges[k][1];
		cr_assert(in, "job %u got node %u", id, j->nodes[q]);
	}
}

#define R(...) ((const uint32_t[][2]){ __VA_ARGS__ })
#define NR(...)                                              \
	(int)(sizeof((const uint32_t[][2]){ __VA_ARGS__ }) / \
	      sizeof(uint32_t[2]))
#define EXPECT(x, id, s, e, ...) \
	expect(x, id, s, e, R(__VA_ARGS__), NR(__VA_ARGS__))

Test(whatif, easy_backfill_by_hand)
{
	struct run x;

	simulate(&x, "fattree:k=4,n=3", "whatif_small.swf", "linear", false);
	EXPECT(&x, 1, 0, 100, { 0, 31 });
	EXPECT(&x, 2, 0, 200, { 32, 47 });
	/* head: waits for job 1's limit */
	EXPECT(&x, 3, 100, 150, { 0, 31 }, { 48, 63 });
	/* backfilled: ends before the head's reservation */
	EXPECT(&x, 4, 20, 50, { 48, 55 });
	/* fits by count at 30 and 50 but only on reserved nodes */
	EXPECT(&x, 5, 150, 250, { 0, 7 });
	EXPECT(&x, 6, 40, 50, { 56, 59 });
	cr_assert_eq(x.res.started, 6);
	cr_assert_eq(x.res.dropped, 0);
	cr_assert_eq(x.res.backfilled, 2);
	cr_assert_float_eq(x.res.makespan, 250, 1e-9);
	cr_assert_float_eq(x.res.mean_wait, 35, 1e-9);
	cr_assert_float_eq(x.res.mean_bsld, 1.5, 1e-9);
	cr_assert_float_eq(x.res.utilization, 9880.0 / (64 * 250), 1e-9);
	/* linear gives whole leaves here (multiples of 4): no job shares */
	cr_assert_float_eq(x.res.mls_max, 0, 1e-9);
	cr_assert_eq(x.res.isolated_jobs, 6);
	release(&x);
}

Test(whatif, held_for_isolation)
{
	struct run x;

	simulate(&x, "fattree:k=4,n=2", "whatif_hold.swf",
		 "fattree-pods:rule=paper", false);
	EXPECT(&x, 21, 0, 100, { 0, 2 });
	EXPECT(&x, 22, 0, 100, { 4, 6 });
	EXPECT(&x, 23, 0, 100, { 8, 10 });
	EXPECT(&x, 24, 0, 100, { 12, 14 });
	/* 4 free nodes at t=10, but on four leaves: held */
	EXPECT(&x, 25, 100, 150, { 0, 3 });
	EXPECT(&x, 26, 20, 30, { 3, 3 });
	cr_assert(job(&x, 27)->dropped);
	cr_assert(strlen(job(&x, 27)->reason) > 0);
	cr_assert_eq(x.res.dropped, 1);
	cr_assert_eq(x.res.backfilled, 1);
	cr_assert_float_eq(x.res.mls_max, 0, 1e-9);
	cr_assert_float_eq(x.res.tls_max, 0, 1e-9);
	cr_assert_eq(x.res.isolated_jobs, 6);
	cr_assert_eq(x.res.violations, 0);
	/* waits 0,0,0,0,90,0; makespan 150 */
	cr_assert_float_eq(x.res.mean_wait, 15, 1e-9);
	cr_assert_float_eq(x.res.makespan, 150, 1e-9);
	release(&x);
}

/* The same workload under fattree-pods' default rule (rule=links): job
 * 25 (4 nodes) may span leaves, since none of 21-24 crosses one, so it
 * starts at t=10 on the four free nodes 3, 7, 11, 15 (one per leaf; it
 * is the only multi-leaf job).  Job 26 (1 node) finds no free node until
 * 25 ends at t=60, then takes leaf 0's node 3 (four leaves with one free
 * node each: the lowest id).  Nothing is backfilled; waits 0,0,0,0,0,40. */
Test(whatif, relaxed_rule_spans_leaves)
{
	struct run x;

	simulate(&x, "fattree:k=4,n=2", "whatif_hold.swf", "fattree-pods",
		 false);
	EXPECT(&x, 21, 0, 100, { 0, 2 });
	EXPECT(&x, 24, 0, 100, { 12, 14 });
	cr_assert_eq(job(&x, 25)->start, 10);
	cr_assert_eq(job(&x, 25)->n, 4);
	for (uint32_t q = 0; q < 4; q++)
		cr_assert_eq(job(&x, 25)->nodes[q] % 4, 3, "node %u",
			     job(&x, 25)->nodes[q]);
	EXPECT(&x, 26, 60, 70, { 3, 3 });
	cr_assert(job(&x, 27)->dropped);
	cr_assert_eq(x.res.backfilled, 0);
	cr_assert_float_eq(x.res.mls_max, 0, 1e-9);
	cr_assert_float_eq(x.res.tls_max, 0, 1e-9);
	cr_assert_eq(x.res.isolated_jobs, 6);
	cr_assert_float_eq(x.res.mean_wait, 40.0 / 6, 1e-9);
	cr_assert_float_eq(x.res.makespan, 100, 1e-9);
	release(&x);
}

/* The same workload under linear: no hold, and sharing: job 22 (3-5,
 * leaves 0-1) and job 23 (6-8, leaves 1-2) share leaf 1's 8 links out of
 * 16 each (MLS 50 %, TLS 8/24) for all of [0, 100). */
Test(whatif, linear_shares)
{
	struct run x;

	simulate(&x, "fattree:k=4,n=2", "whatif_hold.swf", "linear", false);
	EXPECT(&x, 22, 0, 100, { 3, 5 });
	EXPECT(&x, 25, 10, 60, { 12, 15 });
	EXPECT(&x, 26, 60, 70, { 12, 12 });
	cr_assert_float_eq(x.res.mls_max, 50, 1e-9);
	cr_assert_float_eq(x.res.tls_max, 100.0 / 3, 1e-9);
	cr_assert_float_eq(x.res.mls_mean, 50, 1e-9);
	cr_assert_float_eq(x.res.tls_mean, 100.0 / 3, 1e-9);
	cr_assert_eq(x.res.isolated_jobs, 4);
	cr_assert_not(job(&x, 22)->ran_isolated);
	cr_assert(job(&x, 21)->ran_isolated);
	release(&x);
}

/* squeue snapshot: job 7 runs on 0-7 since t=1000 with a 10-minute
 * limit (ends 1600 in the simulation); job 8 (8 nodes) pends since 1100;
 * job 9 (60 nodes) pends since 1050; now = 1100 (latest time seen).
 * linear: 9 runs 1600-2200 on 0-59, then 8 on 0-7 (2200-2800). */
Test(whatif, squeue_snapshot)
{
	static const char snap[] =
		"{\"meta\":{},\"errors\":[],\"jobs\":["
		"{\"job_id\":7,\"job_state\":\"RUNNING\",\"nodes\":\"0-7\","
		"\"node_count\":8,\"submit_time\":900,\"start_time\":1000,"
		"\"time_limit\":10},"
		"{\"job_id\":8,\"job_state\":\"PENDING\",\"nodes\":\"\","
		"\"node_count\":8,\"submit_time\":1100,\"start_time\":0,"
		"\"time_limit\":10},"
		"{\"job_id\":9,\"job_state\":\"PENDING\",\"nodes\":\"\","
		"\"node_count\":60,\"submit_time\":1050,\"start_time\":0,"
		"\"time_limit\":10},"
		"{\"job_id\":6,\"job_state\":\"COMPLETED\",\"nodes\":\"0\","
		"\"node_count\":1,\"submit_time\":0,\"start_time\":0,"
		"\"time_limit\":1}]}";
	struct run x;

	simulate_text(&x, "fattree:k=4,n=3", snap, "linear");
	cr_assert_eq(x.w.now, 1100);
	cr_assert_eq(x.w.ignored, 1);
	EXPECT(&x, 7, 1000, 1600, { 0, 7 });
	cr_assert(job(&x, 7)->was_running);
	/* 9 is first in FCFS order (submitted 1050) and waits; its
	 * reservation: t=1600 on 0-59.  Job 8 (limit 600, would end 1700)
	 * must avoid 0-59 and only 60-63 are outside: it waits too, and
	 * EASY lets 9 go first. */
	EXPECT(&x, 9, 1600, 2200, { 0, 59 });
	EXPECT(&x, 8, 2200, 2800, { 0, 7 });
	release(&x);
}

/* Rates: every job's predicted communication rate is computed and
 * positive for multi-node jobs, zero for one-node jobs. */
Test(whatif, rates)
{
	struct run x;

	simulate(&x, "fattree:k=4,n=2", "whatif_hold.swf", "linear", true);
	cr_assert(x.res.rates);
	for (uint32_t i = 0; i < x.res.njob_out; i++) {
		const struct whatif_job *j = &x.res.jobs[i];

		if (j->dropped)
			continue;
		if (j->n >= 2)
			cr_assert_gt(j->rate, 0, "job %u", j->id);
		else
			cr_assert_float_eq(j->rate, 0, 1e-12);
	}
	cr_assert_gt(x.res.rate_sum, 0);
	release(&x);
}

/* Job I's rate computed from scratch out of the simulation's result: the
 * jobs running at its start (started before it, not yet ended; the
 * workload has no zero run times), the closure of those sharing a link
 * with it (each job's link set by linkshare_linkset: its pattern, all
 * pairs without one), their flows (WHATIF_DEFAULT_PATTERN seeded by
 * 1 + id, as the simulator seeds them) in the reverse of workload order,
 * and MODEL (JM, or hm on every path) by model_run over all of them.
 * Nothing is shared with the simulator's caches. */
static double rate_from_scratch(const struct run *x, uint32_t i,
				const char *model)
{
	const struct whatif_job *ji = &x->res.jobs[i];
	uint32_t nj = x->res.njob_out, L = topo_num_links(x->t);
	uint32_t **ls = calloc(nj, sizeof(*ls)), *nls = calloc(nj, 4);
	uint8_t *in = calloc(nj, 1), *mark = calloc(L, 1);
	struct err err = { 0 };
	struct flows all, one;
	struct model_result mr;
	double rate = 0;
	uint32_t lo = 0, hi = 0;
	bool grew = true;

	cr_assert(ls && nls && in && mark);
	for (uint32_t j = 0; j < nj; j++) {
		const struct whatif_job *o = &x->res.jobs[j];
		struct ls_job lj = { .id = j + 1,
				     .nodes = o->nodes,
				     .n = o->n };

		if (o->dropped || o->order > ji->order || o->end <= ji->start)
			continue;
		cr_assert_eq(linkshare_linkset(x->r, &lj, NULL, &ls[j], &nls[j],
					       &err),
			     0, "%s", err.msg);
	}
	in[i] = 1;
	for (uint32_t q = 0; q < nls[i]; q++)
		mark[ls[i][q]] = 1;
	while (grew) {
		grew = false;
		for (uint32_t j = 0; j < nj; j++) {
			bool hit = false;

			for (uint32_t q = 0; q < nls[j] && !in[j]; q++)
				hit = hit || mark[ls[j][q]];
			if (!hit)
				continue;
			in[j] = grew = true;
			for (uint32_t q = 0; q < nls[j]; q++)
				mark[ls[j][q]] = 1;
		}
	}
	flows_init(&all);
	flows_init(&one);
	for (uint32_t j = nj; j-- > 0;) {
		const struct whatif_job *o = &x->res.jobs[j];

		if (!in[j] || o->n < 2)
			continue;
		cr_assert_eq(flows_pattern(WHATIF_DEFAULT_PATTERN, o->nodes,
					   o->n, 1 + o->id, &one, &err),
			     0, "%s", err.msg);
		if (j == i)
			lo = all.n;
		for (uint32_t f = 0; f < one.n; f++)
			cr_assert_eq(flows_add(&all, one.src[f], one.dst[f],
					       one.demand[f]),
				     0);
		if (j == i)
			hi = all.n;
	}
	if (hi > lo) {
		cr_assert_eq(model_run(model, x->r, &all, NULL, &mr, &err), 0,
			     "%s", err.msg);
		for (uint32_t f = lo; f < hi; f++)
			rate += mr.rates[f];
		model_result_free(&mr);
	}
	flows_free(&all);
	flows_free(&one);
	for (uint32_t j = 0; j < nj; j++)
		free(ls[j]);
	free(ls);
	free(nls);
	free(in);
	free(mark);
	return rate;
}

/* Every job's rate equals the from-scratch computation (to 1e-9
 * relative) on machines where jobs share links (dragonfly under UGAL,
 * whose Valiant paths join most running jobs into one component; a
 * fat-tree under D-mod-k; a torus), under a packing and a scattering
 * policy, on 60 random jobs with overlapping runs; under JM (the
 * component's flows and paths cached; on the dragonfly also deferred,
 * the rates computed after the simulation on 3 threads from the
 * components recorded at each start) and under hm (the running jobs'
 * sub-flow counts kept current, model_hm_state), whose from-scratch
 * value is hm on every path of the component. */
Test(whatif, rates_from_scratch)
{
	static const struct {
		const char *topo, *routing, *policy, *model, *check;
		uint32_t threads;
	} cases[] = {
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "linear", NULL, "jm",
		  1 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "random", NULL, "jm",
		  1 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "linear", NULL, "jm",
		  3 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "random", NULL, "jm",
		  3 },
		{ "fattree:k=4,n=3", "dmodk", "random", NULL, "jm", 1 },
		{ "torus:dims=4x4", NULL, "clustered", NULL, "jm", 1 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "linear", "hm",
		  "hm:method=paths", 1 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "random", "hm",
		  "hm:method=paths", 1 },
		{ "fattree:k=4,n=3", "dmodk", "random", "hm", "hm:method=paths",
		  1 },
		{ "torus:dims=4x4", NULL, "clustered", "hm", "hm:method=paths",
		  1 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct err err = { 0 };
		struct wl_opts wo;
		struct whatif_opts so;
		struct run x;
		struct rng g;
		char text[8192];
		size_t len = 0;
		uint32_t shared = 0, N;

		x.t = fx_topo(cases[c].topo);
		x.r = fx_routing(x.t, cases[c].routing);
		N = topo_num_nodes(x.t);
		rng_seed(&g, 11 + c);
		for (uint32_t j = 1; j <= 60; j++) {
			uint32_t n = 1 + (uint32_t)rng_below(&g, N / 3);
			uint32_t run = 1 + (uint32_t)rng_below(&g, 200);

			len += (size_t)snprintf(
				text + len, sizeof(text) - len,
				"%u %u -1 %u %u -1 -1 %u %u -1 1 1 1 1 1 1 "
				"-1 -1\n",
				j, 5 * j, run, n, n, run + 10);
		}
		wl_opts_init(&wo);
		cr_assert_eq(workload_parse("gen.swf", text, len, &wo, &x.w,
					    &err),
			     0, "%s", err.msg);
		whatif_opts_init(&so);
		so.rates = true;
		so.seed = 1;
		so.model = cases[c].model;
		so.rate_threads = cases[c].threads;
		cr_assert_eq(whatif_run(x.t, x.r, cases[c].policy, &x.w, &so,
					&x.res, &err),
			     0, "%s", err.msg);
		for (uint32_t i = 0; i < x.res.njob_out; i++) {
			const struct whatif_job *o = &x.res.jobs[i];
			double want;

			if (o->dropped)
				continue;
			want = rate_from_scratch(&x, i, cases[c].check);
			cr_expect(fabs(o->rate - want) <=
					  1e-9 * fmax(fabs(want), 1e-300),
				  "%s %s %s (%u threads) job %u: rate %.17g, "
				  "from scratch %.17g",
				  cases[c].topo, cases[c].policy,
				  cases[c].check, cases[c].threads, o->id,
				  o->rate, want);
			shared += !o->ran_isolated;
		}
		/* the case exercises components of several jobs */
		cr_expect_gt(shared, 5, "%s %s", cases[c].topo,
			     cases[c].policy);
		release(&x);
	}
}

Test(whatif, bad_policy)
{
	struct err err = { 0 };
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct workload w = { 0 };
	struct whatif_result res;

	cr_assert_eq(whatif_run(n.t, n.r, "nosuch", &w, NULL, &res, &err), -1);
	cr_assert(strlen(err.msg) > 0);
	fx_net_free(&n);
}

/* A job dropped after the last end does not stretch the makespan: job 1
 * (4 of 16 nodes, 0-100), job 2 (99 nodes) arrives at 500 and is dropped:
 * makespan 100, utilisation 4*100 / (16*100) = 0.25. */
Test(whatif, late_drop_keeps_makespan)
{
	static const char csv[] = "id,submit,nodes,runtime,limit\n"
				  "1,0,4,100,100\n"
				  "2,500,99,10,10\n";
	struct run x;

	simulate_text(&x, "fattree:k=4,n=2", csv, "linear");
	cr_assert_eq(x.res.dropped, 1);
	cr_assert(strstr(job(&x, 2)->reason, "99 nodes"), "%s",
		  job(&x, 2)->reason);
	cr_assert_float_eq(x.res.makespan, 100, 1e-9);
	cr_assert_float_eq(x.res.utilization, 0.25, 1e-9);
	release(&x);
}

/* Equal expected ends are released together: on fattree:k=4,n=3 under
 * fattree-pods, A (pod 0, 0-15) and B (leaf 5, 20-23) both end at t=100,
 * C (leaves 6-7, 24-31) and D (pods 2-3, 32-63) at 200; P frees leaf 4
 * (16-19) at t=5.  At t=10 H (8 nodes = 2 whole leaves in one pod) waits:
 * pod 1 has one whole leaf.  Its reservation is the placement at t=100
 * with A AND B gone: pod 0 has 4 whole leaves, pod 1 has 2 (4, 5), and
 * best fit takes pod 1: 16-23, which holds the free leaf 4.  So X (4
 * nodes, limit 300 > 100) finds no free node outside the reservation at
 * t=20 and waits; at t=100 H starts on 16-23 and X on leaf 0 (best fit
 * among the whole leaves 0-3).  (Releasing A alone, one job at a time,
 * reserves pod 0 instead and lets X take leaf 4 at t=20.) */
Test(whatif, equal_ends_released_together)
{
	static const char csv[] = "id,submit,nodes,runtime,limit\n"
				  "1,0,16,100,100\n"  /* A */
				  "2,0,4,5,5\n"	      /* P */
				  "3,0,4,100,100\n"   /* B */
				  "4,0,8,200,200\n"   /* C */
				  "5,0,32,200,200\n"  /* D */
				  "6,10,8,50,50\n"    /* H */
				  "7,20,4,300,300\n"; /* X */
	struct run x;

	simulate_text(&x, "fattree:k=4,n=3", csv, "fattree-pods:rule=paper");
	EXPECT(&x, 1, 0, 100, { 0, 15 });
	EXPECT(&x, 2, 0, 5, { 16, 19 });
	EXPECT(&x, 3, 0, 100, { 20, 23 });
	EXPECT(&x, 4, 0, 200, { 24, 31 });
	EXPECT(&x, 5, 0, 200, { 32, 63 });
	EXPECT(&x, 6, 100, 150, { 16, 23 });
	EXPECT(&x, 7, 100, 400, { 0, 3 });
	cr_assert_eq(x.res.backfilled, 0);
	cr_assert_eq(x.res.dropped, 0);
	release(&x);
}

/* CSV TEXT on SPEC under POLICY with the options SO (rates off unless
 * SO says). */
static void simulate_with(struct run *x, const char *spec, const char *text,
			  const char *policy, const struct whatif_opts *so)
{
	struct err err = { 0 };
	struct wl_opts wo;

	x->t = fx_topo(spec);
	x->r = fx_routing(x->t, NULL);
	wl_opts_init(&wo);
	wo.nnodes = topo_num_nodes(x->t);
	cr_assert_eq(workload_parse("gain.csv", text, strlen(text), &wo, &x->w,
				    &err),
		     0, "%s", err.msg);
	cr_assert_eq(whatif_run(x->t, x->r, policy, &x->w, so, &x->res, &err),
		     0, "%s", err.msg);
}

/* Issue 47's case, by hand: fattree:k=4,n=3 (leaves of 4 nodes, pods
 * of 16) under ecmp and linear, three jobs at 0: A (24 nodes, 100 s)
 * gets 0-23 (pod 0 and leaves 4-5 of pod 1), B (24 nodes, 40 s) 24-47
 * (leaves 6-7 of pod 1 and pod 2), C (4 nodes, 50 s) leaf 12.  A and
 * B both cross pod 1's boundary, so they share its up-links while both
 * run; C uses no switch link.  With G = 0.25: B shares for all its 40
 * s and ends at 40; C runs alone at 1.25: 50 / 1.25 = 40; A has done
 * 40 of its 100 s by then, the other 60 at 1.25 take 48 s: 88.
 * Stretch 0.88, 1, 0.8 (mean 2.68 / 3); turnaround 88, 40, 40 (mean
 * 56, 95th percentile the largest, 88). */
Test(whatif, gain_by_hand)
{
	static const char csv[] = "id,submit,nodes,runtime,limit\n"
				  "1,0,24,100,100\n"
				  "2,0,24,40,40\n"
				  "3,0,4,50,50\n";
	struct whatif_opts so;
	struct run x;

	whatif_opts_init(&so);
	so.isolation_gain = 0.25;
	simulate_with(&x, "fattree:k=4,n=3", csv, "linear", &so);
	EXPECT(&x, 1, 0, 88, { 0, 23 });
	EXPECT(&x, 2, 0, 40, { 24, 47 });
	EXPECT(&x, 3, 0, 40, { 48, 51 });
	cr_assert(x.res.runtime_model);
	cr_assert_float_eq(job(&x, 1)->stretch, 0.88, 1e-12);
	cr_assert_float_eq(job(&x, 2)->stretch, 1, 1e-12);
	cr_assert_float_eq(job(&x, 3)->stretch, 0.8, 1e-12);
	cr_assert_float_eq(x.res.mean_stretch, 2.68 / 3, 1e-12);
	cr_assert_float_eq(x.res.max_stretch, 1, 1e-12);
	cr_assert_float_eq(x.res.mean_turnaround, 56, 1e-12);
	cr_assert_float_eq(x.res.p95_turnaround, 88, 1e-12);
	/* 3 jobs in a makespan of 88 s; trace work 24*100 + 24*40 + 4*50
	 * = 3,560 node-s */
	cr_assert_float_eq(x.res.jobs_per_day, 3 * 86400.0 / 88, 1e-9);
	cr_assert_float_eq(x.res.nodeh_per_day, 3560 / 3600.0 * 86400 / 88,
			   1e-9);
	cr_assert_eq(x.res.killed, 0);
	cr_assert_float_eq(x.res.makespan, 88, 1e-12);
	release(&x);

	/* G = 0 is the trace: 100, 40, 50, no model in force */
	simulate_with(&x, "fattree:k=4,n=3", csv, "linear", NULL);
	EXPECT(&x, 1, 0, 100, { 0, 23 });
	EXPECT(&x, 2, 0, 40, { 24, 47 });
	EXPECT(&x, 3, 0, 50, { 48, 51 });
	cr_assert_not(x.res.runtime_model);
	cr_assert_float_eq(x.res.mean_stretch, 1, 1e-12);
	release(&x);
}

/* A backfilled job moved by an earlier end, by hand, on the same
 * fat-tree under linear: A (32 nodes, 100 s) takes pods 0-1, E (16
 * nodes, 50 s) pod 2, F (12 nodes, 200 s) leaves 12-14 of pod 3; none
 * crosses another's units, so all run alone.  H (48 nodes, limit 10)
 * comes at 10 and waits: its reservation is at A's limit, 100 (E's
 * release at 50 leaves 20 free nodes), on 0-47.  D (16 nodes, limit
 * 30) comes at 20 with 4 free nodes and waits; when E ends, 20 nodes
 * are free and D, ending before 100, is backfilled on 32-47 (pod 2:
 * alone).
 *   G = 0:    E ends 50, D 50-80, A ends 100, H 100-110, F ends 200.
 *   G = 0.25: every job alone runs 1.25 times faster: E ends 40, D
 *             40-64 (30 / 1.25 = 24), A 80, H 80-88, F 160. */
Test(whatif, gain_moves_backfill)
{
	static const char csv[] = "id,submit,nodes,runtime,limit\n"
				  "1,0,32,100,100\n" /* A */
				  "2,0,16,50,50\n"   /* E */
				  "3,0,12,200,200\n" /* F */
				  "4,10,48,10,10\n"  /* H */
				  "5,20,16,30,30\n"; /* D */
	struct whatif_opts so;
	struct run x;

	simulate_with(&x, "fattree:k=4,n=3", csv, "linear", NULL);
	EXPECT(&x, 2, 0, 50, { 32, 47 });
	EXPECT(&x, 5, 50, 80, { 32, 47 });
	EXPECT(&x, 1, 0, 100, { 0, 31 });
	EXPECT(&x, 4, 100, 110, { 0, 47 });
	EXPECT(&x, 3, 0, 200, { 48, 59 });
	cr_assert_eq(x.res.backfilled, 1);
	release(&x);

	whatif_opts_init(&so);
	so.isolation_gain = 0.25;
	simulate_with(&x, "fattree:k=4,n=3", csv, "linear", &so);
	EXPECT(&x, 2, 0, 40, { 32, 47 });
	EXPECT(&x, 5, 40, 64, { 32, 47 });
	EXPECT(&x, 1, 0, 80, { 0, 31 });
	EXPECT(&x, 4, 80, 88, { 0, 47 });
	EXPECT(&x, 3, 0, 160, { 48, 59 });
	cr_assert_eq(x.res.backfilled, 1);
	/* waits 0, 0, 0, 70, 20: turnaround 80, 40, 160, 78, 44 */
	cr_assert_float_eq(x.res.mean_turnaround, 402.0 / 5, 1e-12);
	cr_assert_float_eq(x.res.mean_wait, 90.0 / 5, 1e-12);
	release(&x);
}

/* CSV TEXT on the topo.conf FILE of tests/data under linear with SO. */
static void simulate_conf(struct run *x, struct machine **m, const char *file,
			  const char *text, const struct whatif_opts *so)
{
	struct err err = { 0 };
	struct wl_opts wo;
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", TESTDATA, file);
	*m = machine_open(path, NULL, &err);
	cr_assert_not_null(*m, "%s", err.msg);
	x->t = NULL;
	x->r = NULL;
	wl_opts_init(&wo);
	cr_assert_eq(workload_parse("frac.csv", text, strlen(text), &wo, &x->w,
				    &err),
		     0, "%s", err.msg);
	cr_assert_eq(whatif_run(machine_topo(*m), machine_routing(*m), "linear",
				&x->w, so, &x->res, &err),
		     0, "%s", err.msg);
}

/* A job hitting its limit under --comm-fraction, by hand, on
 * whatif_star.conf (switches s0, s1, s2 of two nodes around a hub,
 * every link of capacity 1, one path between two nodes) under linear:
 * X (1 node, 1000 s) takes n0, A (2 nodes, 60 s, limit 80) n1-n2, B (2
 * nodes, 90 s, limit 200) n3-n4.  A's flows n1->n2 and n2->n1 and B's
 * n3->n4 and n4->n3 (random:1 over two nodes) meet on c->s1 and s1->c:
 * each flow gets 1/2 there (hm and jm alike), 1 alone, so each job's
 * rate now over its rate alone is 1/2 and with F = 0.5 it runs at
 * 1 / (0.5 + 0.5 / 0.5) = 2/3 of its pace alone.  A would need 90 s:
 * killed at its limit, 80, having done 53.3 s of work; B has done 53.3
 * of its 90 s by then and runs alone (pace 1) for the other 36.7:
 * ends at 117 (rounded up).  With B's own fraction 0 B is never
 * slowed (ends at 90) and A still reaches its limit. */
Test(whatif, comm_fraction_kills_at_limit)
{
	static const char *const models[] = { "hm", "jm" };
	static const char csv[] = "id,submit,nodes,runtime,limit\n"
				  "1,0,1,1000,1000\n"
				  "2,0,2,60,80\n"
				  "3,0,2,90,200\n";
	static const char own[] =
		"id,submit,nodes,runtime,limit,pattern,comm_fraction\n"
		"1,0,1,1000,1000,,\n"
		"2,0,2,60,80,,\n"
		"3,0,2,90,200,,0\n";

	for (size_t q = 0; q < 2; q++) {
		struct whatif_opts so;
		struct machine *m;
		struct run x;

		whatif_opts_init(&so);
		so.rates = true;
		so.model = models[q];
		so.comm_fraction = 0.5;
		simulate_conf(&x, &m, "whatif_star.conf", csv, &so);
		EXPECT(&x, 1, 0, 1000, { 0, 0 });
		EXPECT(&x, 2, 0, 80, { 1, 2 });
		EXPECT(&x, 3, 0, 117, { 3, 4 });
		cr_assert(job(&x, 2)->killed, "%s", models[q]);
		cr_assert_not(job(&x, 3)->killed);
		cr_assert_float_eq(job(&x, 2)->stretch, 80.0 / 60, 1e-12);
		cr_assert_float_eq(job(&x, 3)->stretch, 117.0 / 90, 1e-12);
		cr_assert_eq(x.res.killed, 1);
		cr_assert_float_eq(x.res.lost_nodeh, 2 * 80 / 3600.0, 1e-12);
		/* completed: X and B, 1000 + 180 node-s in 1000 s */
		cr_assert_float_eq(x.res.jobs_per_day, 2 * 86400 / 1000.0,
				   1e-9);
		cr_assert_float_eq(x.res.nodeh_per_day,
				   1180 / 3600.0 * 86400 / 1000, 1e-9);
		/* A's rate alone at its start (B came after), B's shared */
		cr_assert_float_eq(job(&x, 2)->rate, 2, 1e-12);
		cr_assert_float_eq(job(&x, 3)->rate, 1, 1e-12);
		release(&x);
		machine_destroy(m);

		simulate_conf(&x, &m, "whatif_star.conf", own, &so);
		EXPECT(&x, 2, 0, 80, { 1, 2 });
		EXPECT(&x, 3, 0, 90, { 3, 4 });
		cr_assert(job(&x, 2)->killed);
		release(&x);
		machine_destroy(m);
	}
}

/* Jobs that never share a link are never slowed: fattree-pods on
 * whatif_hold.swf gives the schedule of the trace under any fraction
 * (every job isolated), and linear's lone jobs keep their times. */
Test(whatif, comm_fraction_isolated_unchanged)
{
	struct run a, b;
	struct whatif_opts so;

	simulate(&a, "fattree:k=4,n=2", "whatif_hold.swf",
		 "fattree-pods:rule=paper", false);
	whatif_opts_init(&so);
	so.rates = true;
	so.model = "hm";
	so.comm_fraction = 1;
	b.t = fx_topo("fattree:k=4,n=2");
	b.r = fx_routing(b.t, NULL);
	{
		struct err err = { 0 };
		struct wl_opts wo;

		wl_opts_init(&wo);
		cr_assert_eq(workload_load(TESTDATA "/whatif_hold.swf", &wo,
					   &b.w, &err),
			     0, "%s", err.msg);
		cr_assert_eq(whatif_run(b.t, b.r, "fattree-pods:rule=paper",
					&b.w, &so, &b.res, &err),
			     0, "%s", err.msg);
	}
	cr_assert(b.res.runtime_model);
	for (uint32_t i = 0; i < a.res.njob_out; i++) {
		cr_assert_eq(a.res.jobs[i].start, b.res.jobs[i].start);
		cr_assert_eq(a.res.jobs[i].end, b.res.jobs[i].end);
		cr_assert_not(b.res.jobs[i].killed);
	}
	cr_assert_eq(b.res.killed, 0);
	cr_assert_float_eq(b.res.mean_wait, a.res.mean_wait, 1e-12);
	release(&a);
	release(&b);
}

/* The run-time models refuse what cannot be: both at once, a fraction
 * without rates or out of range. */
Test(whatif, runtime_model_refusals)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct workload w = { 0 };
	struct whatif_result res;
	struct whatif_opts so;
	struct err err = { 0 };

	whatif_opts_init(&so);
	so.rates = true;
	so.isolation_gain = 0.1;
	so.comm_fraction = 0.3;
	cr_assert_eq(whatif_run(n.t, n.r, "linear", &w, &so, &res, &err), -1);
	cr_assert(strstr(err.msg, "give one"), "%s", err.msg);
	so.isolation_gain = 0;
	so.rates = false;
	cr_assert_eq(whatif_run(n.t, n.r, "linear", &w, &so, &res, &err), -1);
	cr_assert(strstr(err.msg, "needs the predicted rates"), "%s", err.msg);
	so.rates = true;
	so.comm_fraction = 1.5;
	cr_assert_eq(whatif_run(n.t, n.r, "linear", &w, &so, &res, &err), -1);
	cr_assert(strstr(err.msg, "want 0 to 1"), "%s", err.msg);
	so.comm_fraction = -1;
	so.isolation_gain = -0.5;
	cr_assert_eq(whatif_run(n.t, n.r, "linear", &w, &so, &res, &err), -1);
	cr_assert(strstr(err.msg, "want 0 to 1e6"), "%s", err.msg);
	fx_net_free(&n);
}

/* The link sets of a run's jobs (linkshare_linkset: all pairs). */
struct sets {
	uint32_t **ls, *nls, n;
};

static void sets_make(const struct run *x, struct sets *s)
{
	struct err err = { 0 };

	s->n = x->res.njob_out;
	s->ls = calloc(s->n, sizeof(*s->ls));
	s->nls = calloc(s->n, sizeof(*s->nls));
	cr_assert(s->ls && s->nls);
	for (uint32_t i = 0; i < s->n; i++) {
		const struct whatif_job *o = &x->res.jobs[i];
		struct ls_job lj = { .id = i + 1,
				     .nodes = o->nodes,
				     .n = o->n };

		if (!o->dropped)
			cr_assert_eq(linkshare_linkset(x->r, &lj, NULL,
						       &s->ls[i], &s->nls[i],
						       &err),
				     0, "%s", err.msg);
	}
}

static void sets_free(struct sets *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		free(s->ls[i]);
	free(s->ls);
	free(s->nls);
}

/* Whether the link sets of jobs I and J meet (both ascending). */
static bool sets_meet(const struct sets *s, uint32_t i, uint32_t j)
{
	for (uint32_t q = 0, r = 0; q < s->nls[i] && r < s->nls[j];) {
		if (s->ls[i][q] == s->ls[j][r])
			return true;
		if (s->ls[i][q] < s->ls[j][r])
			q++;
		else
			r++;
	}
	return false;
}

/* hm rate of the flows of job I among the jobs of ON (nj flags; I's
 * flows last), each job's flows WHATIF_DEFAULT_PATTERN seeded 1 + id,
 * from model_run on every path. */
static double hm_scratch(const struct run *x, const uint8_t *on, uint32_t i)
{
	struct err err = { 0 };
	struct flows all, one;
	struct model_result mr;
	uint32_t lo = 0;
	double rate = 0;

	flows_init(&all);
	flows_init(&one);
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t j = 0; j < x->res.njob_out; j++) {
			const struct whatif_job *o = &x->res.jobs[j];

			if (!on[j] || (pass == 0) == (j == i) || o->n < 2)
				continue;
			if (pass == 1)
				lo = all.n;
			cr_assert_eq(flows_pattern(WHATIF_DEFAULT_PATTERN,
						   o->nodes, o->n, 1 + o->id,
						   &one, &err),
				     0, "%s", err.msg);
			for (uint32_t f = 0; f < one.n; f++)
				cr_assert_eq(flows_add(&all, one.src[f],
						       one.dst[f], 1),
					     0);
		}
	if (all.n > lo) {
		cr_assert_eq(model_run("hm:method=paths", x->r, &all, NULL, &mr,
				       &err),
			     0, "%s", err.msg);
		for (uint32_t f = lo; f < all.n; f++)
			rate += mr.rates[f];
		model_result_free(&mr);
	}
	flows_free(&all);
	flows_free(&one);
	return rate;
}

/* Work done by job I from its start to T, recomputed from the schedule
 * alone: between consecutive starts and ends, the jobs running (start
 * <= t < end) and whether I's link set meets another's; the pace then
 * is 1 + G while it meets none, 1 otherwise (gain G, F < 0), or with a
 * fraction F, 1 / (1 - F + F / c), c its hm rate among the jobs running
 * over its rate alone (hm_scratch; 1 while it meets none). */
static double work_scratch(const struct run *x, const struct sets *s,
			   uint32_t i, int64_t t, double g, double f)
{
	uint32_t nj = x->res.njob_out;
	uint8_t *on = calloc(nj, 1);
	int64_t a = x->res.jobs[i].start;
	double work = 0, alone = 0;

	cr_assert(on);
	if (f >= 0) {
		on[i] = 1;
		alone = hm_scratch(x, on, i);
	}
	while (a < t) {
		int64_t b = t;
		bool shared = false;
		double c = 1;

		for (uint32_t j = 0; j < nj; j++) {
			const struct whatif_job *p = &x->res.jobs[j];

			on[j] = !p->dropped && p->start <= a && p->end > a;
			if (p->dropped)
				continue;
			if (p->start > a && p->start < b)
				b = p->start;
			if (p->end > a && p->end < b)
				b = p->end;
		}
		for (uint32_t j = 0; j < nj && !shared; j++)
			shared = on[j] && j != i && sets_meet(s, i, j);
		if (f < 0) {
			work += (double)(b - a) * (shared ? 1 : 1 + g);
		} else {
			if (shared && alone > 0) {
				c = hm_scratch(x, on, i) / alone;
				c = c < 1 ? c : 1;
			}
			work += (double)(b - a) / (1 - f + f / c);
		}
		a = b;
	}
	free(on);
	return work;
}

/* NJOBS random jobs (seed SEED, one every GAP seconds, MIN to MIN +
 * N / DIV - 1 nodes, 1 to 300 s, a limit SLACK times the run time above
 * it at most) run on TOPO under ROUTING and POLICY with SO. */
static void random_run(struct run *x, const char *topo, const char *routing,
		       const char *policy, uint64_t seed, uint32_t min,
		       uint32_t div, double slack, const struct whatif_opts *so)
{
	struct err err = { 0 };
	struct wl_opts wo;
	struct rng g;
	char text[8192];
	size_t len;
	uint32_t N;

	x->t = fx_topo(topo);
	x->r = fx_routing(x->t, routing);
	N = topo_num_nodes(x->t);
	rng_seed(&g, seed);
	len = (size_t)snprintf(text, sizeof(text),
			       "id,submit,nodes,runtime,limit\n");
	for (uint32_t j = 1; j <= 45; j++) {
		uint32_t run = 1 + (uint32_t)rng_below(&g, 300);

		len += (size_t)snprintf(
			text + len, sizeof(text) - len, "%u,%u,%u,%u,%u\n", j,
			8 * j, min + (uint32_t)rng_below(&g, N / div), run,
			run + (uint32_t)rng_below(&g,
						  (uint64_t)(slack * run) + 1));
	}
	wl_opts_init(&wo);
	cr_assert_eq(workload_parse("gen.csv", text, len, &wo, &x->w, &err), 0,
		     "%s", err.msg);
	cr_assert_eq(whatif_run(x->t, x->r, policy, &x->w, so, &x->res, &err),
		     0, "%s", err.msg);
}

/* Every job of X ends at the first whole second at which its work,
 * recomputed from the schedule (work_scratch with G or F), covers its
 * run time, or is killed at its limit with work left; the jobs that
 * ran partly alone and partly shared counted in *TURNED, those slowed
 * in *SLOWED, those killed in *KILLED. */
static void check_work(const struct run *x, const char *what, double g,
		       double f, uint32_t *turned, uint32_t *slowed,
		       uint32_t *killed)
{
	struct sets s;

	sets_make(x, &s);
	for (uint32_t i = 0; i < x->res.njob_out; i++) {
		const struct whatif_job *o = &x->res.jobs[i];
		double rt = (double)x->w.jobs[i].runtime, at, before,
		       ran = (double)(o->end - o->start);

		if (o->dropped)
			continue;
		at = work_scratch(x, &s, i, o->end, g, f);
		before = work_scratch(x, &s, i, o->end - 1, g, f);
		if (o->killed)
			cr_expect(o->end - o->start == x->w.jobs[i].limit &&
					  at < rt - 1e-6,
				  "%s job %u killed at %lld-%lld with work "
				  "%.9g of %.0f",
				  what, o->id, (long long)o->start,
				  (long long)o->end, at, rt);
		else
			cr_expect(at >= rt - 1e-6 && before < rt - 1e-6,
				  "%s job %u: %lld-%lld, work %.9g at its end, "
				  "%.9g a second before, run time %.0f",
				  what, o->id, (long long)o->start,
				  (long long)o->end, at, before, rt);
		*turned += at > ran + 1e-6 && at < (1 + g) * ran - 1e-6;
		*slowed += ran > rt;
		*killed += o->killed;
	}
	sets_free(&s);
}

/* Random workloads under G = 0.3, on fattree:k=4,n=3 under dmodk (many
 * sharers) and a torus, under linear, random and clustered: every job
 * ends where its work recomputed from the schedule says (check_work);
 * jobs that ran partly alone and partly shared (work strictly between 1
 * and 1.3 times their run) occur in every case. */
Test(whatif, gain_work_from_scratch)
{
	static const struct {
		const char *topo, *routing, *policy;
	} cases[] = {
		{ "fattree:k=4,n=3", "dmodk", "linear" },
		{ "fattree:k=4,n=3", "dmodk", "random" },
		{ "torus:dims=4x4", NULL, "clustered" },
	};
	uint32_t all = 0, slowed = 0, killed = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct whatif_opts so;
		struct run x;
		uint32_t turned = 0;
		char what[96];

		whatif_opts_init(&so);
		so.isolation_gain = 0.3;
		random_run(&x, cases[c].topo, cases[c].routing, cases[c].policy,
			   31 + c, 1, 3, 0, &so);
		snprintf(what, sizeof(what), "%s %s", cases[c].topo,
			 cases[c].policy);
		check_work(&x, what, 0.3, -1, &turned, &slowed, &killed);
		cr_expect_gt(turned, 0, "%s", what);
		all += turned;
		release(&x);
	}
	cr_expect_gt(all, 10);
	cr_expect_eq(slowed + killed, 0, "a gain slows and kills no job");
}

/* Random workloads under --comm-fraction 0.6 with hm rates, on
 * fattree:k=4,n=3 under dmodk and a dragonfly under ugal, under linear
 * and random: every job ends where its work recomputed from the
 * schedule (hm from scratch over the jobs running in every interval)
 * says, or is killed at its limit with work left (check_work).  Some
 * jobs are slowed, some killed. */
/* The backfill's check that a job keeps the head's reservation asks
 * the policy about the machine at the reserved start as a change of the
 * last question of the pass (keeps_reservation): the same schedule as
 * building that machine afresh at every question (keeps_fresh), on
 * isolating policies that refuse a reserved set for a neighbour, with
 * loose limits so that jobs run past the reserved start. */
Test(whatif, keeps_reservation_as_afresh)
{
	static const struct {
		const char *topo, *routing, *policy;
		uint32_t min, div;
	} cases[] = {
		{ "dragonfly:p=2,a=4,h=2,g=9", "min", "dragonfly-groups", 1,
		  2 },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "dragonfly-balanced", 1,
		  2 },
		{ "fattree:k=4,n=3", "ecmp", "fattree-pods", 1, 2 },
		{ "fattree:k=4,n=3", "ecmp", "fattree-pods:rule=paper", 1, 3 },
		{ "torus:dims=4x4x4", NULL, "mesh-blocks", 1, 3 },
	};
	uint32_t moved = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		for (uint64_t seed = 0; seed < 6; seed++) {
			struct whatif_opts so;
			struct run x, y;

			whatif_opts_init(&so);
			random_run(&x, cases[c].topo, cases[c].routing,
				   cases[c].policy, 300 + seed, cases[c].min,
				   cases[c].div, 3, &so);
			so.keeps_fresh = true;
			random_run(&y, cases[c].topo, cases[c].routing,
				   cases[c].policy, 300 + seed, cases[c].min,
				   cases[c].div, 3, &so);
			cr_assert_eq(x.res.njob_out, y.res.njob_out);
			for (uint32_t i = 0; i < x.res.njob_out; i++) {
				const struct whatif_job *a = &x.res.jobs[i],
							*b = &y.res.jobs[i];

				cr_expect(
					a->start == b->start &&
						a->end == b->end &&
						a->n == b->n &&
						(!a->n ||
						 !memcmp(a->nodes, b->nodes,
							 a->n * sizeof(*a->nodes))),
					"%s seed %llu job %u: %lld-%lld "
					"kept, %lld-%lld afresh",
					cases[c].policy,
					(unsigned long long)seed, a->id,
					(long long)a->start, (long long)a->end,
					(long long)b->start, (long long)b->end);
				moved += a->start > (int64_t)x.w.jobs[i].submit;
			}
			cr_expect_gt(x.res.backfilled, 0, "%s seed %llu",
				     cases[c].policy, (unsigned long long)seed);
			release(&x);
			release(&y);
		}
	cr_expect_gt(moved, 100);
}

Test(whatif, comm_fraction_work_from_scratch)
{
	static const struct {
		const char *topo, *routing, *policy;
	} cases[] = {
		{ "fattree:k=4,n=3", "dmodk", "linear" },
		{ "fattree:k=4,n=3", "dmodk", "random" },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal", "linear" },
	};
	uint32_t turned = 0, slowed = 0, killed = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct whatif_opts so;
		struct run x;
		char what[96];

		whatif_opts_init(&so);
		so.rates = true;
		so.model = "hm";
		so.seed = 1;
		so.comm_fraction = 0.6;
		random_run(&x, cases[c].topo, cases[c].routing, cases[c].policy,
			   71 + c, 2, 4, 0.5, &so);
		snprintf(what, sizeof(what), "%s %s", cases[c].topo,
			 cases[c].policy);
		check_work(&x, what, 0, 0.6, &turned, &slowed, &killed);
		release(&x);
	}
	cr_expect_gt(slowed, 10);
	cr_expect_gt(killed, 2);
}

/* hm's rates under --comm-fraction shared out among threads (rate_dirty:
 * whole jobs and, under alltoall, runs of a job's flows), with
 * rate_threads and with threads freed by ended cells (cells_running):
 * every job starts and ends when it does on one thread, at the same
 * rates to the bit. */
Test(whatif, comm_fraction_threads_same)
{
	struct run x[3];
	atomic_uint one;

	atomic_init(&one, 1);
	for (int c = 0; c < 3; c++) {
		struct whatif_opts so;

		whatif_opts_init(&so);
		so.rates = true;
		so.model = "hm";
		so.pattern = "alltoall";
		so.seed = 1;
		so.comm_fraction = 0.6;
		so.rate_threads = c == 1 ? 3 : 1;
		if (c == 2) {
			so.threads = 4;
			so.cells_running = &one;
		}
		random_run(&x[c], "dragonfly:p=2,a=4,h=2,g=9", "ugal", "linear",
			   75, 2, 3, 0.5, &so);
	}
	for (int c = 1; c < 3; c++) {
		uint32_t slowed = 0;

		cr_assert_eq(x[c].res.njob_out, x[0].res.njob_out);
		for (uint32_t i = 0; i < x[0].res.njob_out; i++) {
			const struct whatif_job *a = &x[0].res.jobs[i],
						*b = &x[c].res.jobs[i];

			cr_expect(a->start == b->start && a->end == b->end &&
					  a->killed == b->killed,
				  "case %d job %u: %lld-%lld against %lld-%lld",
				  c, a->id, (long long)b->start,
				  (long long)b->end, (long long)a->start,
				  (long long)a->end);
			cr_expect(memcmp(&a->rate, &b->rate, sizeof(a->rate)) ==
						  0 &&
					  memcmp(&a->stretch, &b->stretch,
						 sizeof(a->stretch)) == 0,
				  "case %d job %u: rate %.17g stretch %.17g, "
				  "one thread %.17g %.17g",
				  c, a->id, b->rate, b->stretch, a->rate,
				  a->stretch);
			slowed += a->end - a->start > x[0].w.jobs[i].runtime;
		}
		cr_expect_gt(slowed, 5, "jobs slowed (rated again)");
	}
	for (int c = 0; c < 3; c++)
		release(&x[c]);
}

/* A result written as a cell (whatif_result_json) and read back
 * (whatif_result_from_json) is the same, bit for bit: every field and
 * every job (rates and stretch under a gain, a dropped job, node
 * ranges); a cell that lacks a field or has one of the wrong kind is
 * refused naming it. */
Test(whatif, cell_round_trip)
{
	struct whatif_opts so;
	struct whatif_result back;
	struct json_object *o;
	struct err err = { 0 };
	struct run x;
	const char *text;

	whatif_opts_init(&so);
	so.rates = true;
	so.isolation_gain = 0.3;
	x.t = fx_topo("fattree:k=4,n=2");
	x.r = fx_routing(x.t, "dmodk");
	{
		struct wl_opts wo;

		wl_opts_init(&wo);
		cr_assert_eq(workload_load(TESTDATA "/whatif_hold.swf", &wo,
					   &x.w, &err),
			     0, "%s", err.msg);
	}
	cr_assert_eq(whatif_run(x.t, x.r, "linear", &x.w, &so, &x.res, &err), 0,
		     "%s", err.msg);
	o = whatif_result_json(&x.res, true);
	cr_assert_not_null(o);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	cr_assert_eq(whatif_json_check("cell", text, strlen(text), &err), 0,
		     "%s", err.msg);
	{
		struct json_object *p = json_tokener_parse(text);

		cr_assert_eq(whatif_result_from_json(p, "cell", &back, &err), 0,
			     "%s", err.msg);
		json_object_put(p);
	}
	cr_assert_eq(memcmp(&back, &x.res,
			    offsetof(struct whatif_result, njob_out)),
		     0, "the result's fields differ");
	cr_assert_eq(back.njob_out, x.res.njob_out);
	for (uint32_t i = 0; i < back.njob_out; i++) {
		const struct whatif_job *a = &x.res.jobs[i], *b = &back.jobs[i];

		cr_assert_eq(memcmp(b, a, offsetof(struct whatif_job, nodes)),
			     0, "job %u", a->id);
		cr_assert_eq(b->n, a->n, "job %u", a->id);
		if (a->n) /* a dropped job has none (NULL) */
			cr_assert_arr_eq(b->nodes, a->nodes,
					 a->n * sizeof(uint32_t));
		cr_assert_eq(memcmp(&b->dropped, &a->dropped,
				    sizeof(*a) - offsetof(struct whatif_job,
							  dropped)),
			     0, "job %u", a->id);
	}
	whatif_result_free(&back);
	/* refused: a field missing, of the wrong kind */
	json_object_object_del(o, "makespan");
	cr_assert_eq(whatif_result_from_json(o, "cell 3", &back, &err), -1);
	cr_assert_str_eq(err.msg, "cell 3: makespan missing");
	json_object_object_add(o, "makespan", json_object_new_int(5));
	cr_assert_eq(whatif_result_from_json(o, "cell 3", &back, &err), -1);
	cr_assert_str_eq(err.msg, "cell 3: makespan: not a number as written "
				  "(hexadecimal)");
	json_object_put(o);
	text = "{\"policy\":\"a\",\n\"policy\":\"b\"}";
	cr_assert_eq(whatif_json_check("c.json", text, strlen(text), &err), -1);
	cr_assert(strstr(err.msg,
			 "c.json:2: bad JSON: key \"policy\" repeated"),
		  "%s", err.msg);
	release(&x);
}
