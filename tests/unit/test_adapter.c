/* test_adapter.c - the Slurm-free half of select/topo (topo_adapter.c):
 * topo.conf against Slurm's node list, policy choice per job, the
 * backfill will-run search on the adapter's policy (policy_will_run, as
 * select_topo.c calls it) and the evaluator (link sharing, the Predict=
 * model within PredictBudget=, the record), with hand-worked
 * expectations on the 64-node fat-tree k=4, n=3 (4 nodes per leaf
 * switch, 16 per pod). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/topo_adapter.h"
#include "policies/willrun.h"

#define N 64

static char conf_path[64];
static char *names[N];
static const char *parts[] = { "batch", "debug" };

static void write_conf(const char *text)
{
	FILE *f;
	int fd;

	strcpy(conf_path, "/tmp/test_adapter.XXXXXX");
	fd = mkstemp(conf_path);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void make_names(void)
{
	uint32_t i;

	for (i = 0; i < N; i++) {
		names[i] = malloc(16);
		snprintf(names[i], 16, "n%u", i);
	}
}

static void cleanup(void)
{
	uint32_t i;

	tstate_predictor_stop();
	unlink(conf_path);
	for (i = 0; i < N; i++)
		free(names[i]);
}

static struct tstate *load(const char *text, struct err *err)
{
	write_conf(text);
	return tstate_load(conf_path, (const char *const *)names, NULL, N,
			   parts, 2, err);
}

/* A budget that valgrind's slowdown does not exhaust (the default is
 * tested on its own). */
static const char *good = "Topology=fattree k=4 n=3\n"
			  "NodeName=n[0-63]\n"
			  "PartitionPolicy=batch:fattree-pods\n"
			  "PredictBudget=60000\n";

TestSuite(adapter, .init = make_names, .fini = cleanup);

/* The wrapped plugin comes from topo.conf's Wrap= (default cons_tres). */
Test(adapter, wrap)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);

	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_str_eq(tstate_wrap(s), "select/cons_tres");
	tstate_destroy(s);
	unlink(conf_path);
	s = load("Topology=fattree k=4 n=3\n"
		 "NodeName=n[0-63]\n"
		 "Wrap=linear\n"
		 "PartitionPolicy=batch:fattree-pods\n",
		 &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_str_eq(tstate_wrap(s), "select/linear");
	tstate_destroy(s);
}

Test(adapter, maps_slurm_order_to_topology_order)
{
	struct err err = { 0 };
	struct tstate *s;
	uint32_t i;
	char *tmp;

	/* Slurm's table in another order than NodeName=: reversed. */
	for (i = 0; i < N / 2; i++) {
		tmp = names[i];
		names[i] = names[N - 1 - i];
		names[N - 1 - i] = tmp;
	}
	s = load(good, &err);
	cr_assert(s, "%s", err.msg);
	cr_assert_eq(tstate_nodes(s), N);
	for (i = 0; i < N; i++) {
		cr_assert_eq(tstate_s2t(s, i), N - 1 - i);
		cr_assert_eq(tstate_t2s(s, N - 1 - i), i);
	}
	cr_assert_eq(tstate_s2t(s, N), TOPO_NONE);
	tstate_destroy(s);
}

Test(adapter, node_mismatch_names_the_line)
{
	struct err err = { 0 };

	free(names[5]);
	names[5] = strdup("x5");
	cr_assert_null(load(good, &err));
	cr_assert(strstr(err.msg, ":2: slurm.conf node x5 is not in NodeName="),
		  "%s", err.msg);
}

Test(adapter, size_mismatch_names_the_line)
{
	struct err err = { 0 };

	cr_assert_null(
		load("Topology=fattree k=4 n=2\nNodeName=n[0-15]\n", &err));
	cr_assert(strstr(err.msg,
			 ":1: topology has 16 nodes but slurm.conf has 64"),
		  "%s", err.msg);
}

/* A topology larger than Slurm's node table (empty ports, nodes yet to
 * register): the nodes without a Slurm node are left out, by name. */
Test(adapter, topology_nodes_without_slurm_node)
{
	struct err err = { 0 };
	struct tstate *s;
	char buf[64];

	write_conf("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n");
	s = tstate_load(conf_path, (const char *const *)names, NULL, 60, parts,
			2, &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_eq(tstate_nodes(s), 64);
	cr_expect_eq(tstate_slurm_nodes(s), 60);
	cr_expect_eq(tstate_t2s(s, 59), 59);
	cr_expect_eq(tstate_t2s(s, 60), TOPO_NONE);
	cr_expect_eq(tstate_s2t(s, 60), TOPO_NONE);
	cr_expect_eq(tstate_unmapped(s, NULL, 0, buf, sizeof(buf)), 4);
	cr_expect_str_eq(buf, "n60,n61,n62,n63");
	cr_expect_eq(tstate_unmapped(s, (const char *const *)names, 60, buf,
				     sizeof(buf)),
		     0);
	tstate_destroy(s);
}

/* Nodes created at run time: one outside topo.conf is left out of the
 * topology (only when it is dynamic), an empty slot (a deleted node) maps
 * nowhere, and tstate_map follows the table as it changes. */
Test(adapter, dynamic_nodes)
{
	struct err err = { 0 };
	const char *tab[66];
	uint8_t dyn[66] = { 0 };
	struct tstate *s;
	char buf[64];
	uint32_t i;

	for (i = 0; i < 62; i++)
		tab[i] = names[i];
	write_conf("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n");
	s = tstate_load(conf_path, tab, dyn, 62, parts, 2, &err);
	cr_assert_not_null(s, "%s", err.msg);
	/* created: n62 (in topo.conf) and x1 (not), then n5 deleted */
	tab[62] = names[62];
	tab[63] = "x1";
	dyn[62] = dyn[63] = 1;
	tab[5] = NULL;
	cr_assert_eq(tstate_map(s, tab, dyn, 64, &err), 0, "%s", err.msg);
	cr_expect_eq(tstate_slurm_nodes(s), 64);
	cr_expect_eq(tstate_s2t(s, 62), 62);
	cr_expect_eq(tstate_t2s(s, 62), 62);
	cr_expect_eq(tstate_s2t(s, 63), TOPO_NONE);
	cr_expect_eq(tstate_s2t(s, 5), TOPO_NONE);
	cr_expect_eq(tstate_t2s(s, 5), TOPO_NONE);
	cr_expect_eq(tstate_unmapped(s, tab, 64, buf, sizeof(buf)), 1);
	cr_expect_str_eq(buf, "x1");
	cr_expect_eq(tstate_unmapped(s, NULL, 0, buf, sizeof(buf)), 2);
	cr_expect_str_eq(buf, "n5,n63");
	/* the same unknown node in slurm.conf (not dynamic): refused, and
	 * the mapping kept */
	dyn[63] = 0;
	cr_expect_eq(tstate_map(s, tab, dyn, 64, &err), -1);
	cr_expect(strstr(err.msg, ":2: slurm.conf node x1 is not in NodeName="),
		  "%s", err.msg);
	cr_expect_eq(tstate_s2t(s, 62), 62);
	/* a name twice */
	dyn[63] = 1;
	tab[63] = names[7];
	cr_expect_eq(tstate_map(s, tab, dyn, 64, &err), -1);
	cr_expect(strstr(err.msg, ":2: slurm.conf node n7 appears twice"), "%s",
		  err.msg);
	tstate_destroy(s);
}

Test(adapter, unknown_policy_names_the_line)
{
	struct err err = { 0 };

	cr_assert_null(load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
			    "PartitionPolicy=batch:fattree-pods\n"
			    "PartitionPolicy=debug:no-such\n",
			    &err));
	cr_assert(strstr(err.msg, ":4: policy 'no-such' of partition debug"),
		  "%s", err.msg);
}

/* The lines come from the parser: a graph names its nodes on Nodes=
 * lines (there is no NodeName= line to find)... */
Test(adapter, graph_node_mismatch_names_the_nodes_line)
{
	struct err err = { 0 };

	free(names[40]);
	names[40] = strdup("x40");
	cr_assert_null(load("Topology=graph\n"
			    "SwitchName=s0 Nodes=n[0-31] Links=s1\n"
			    "SwitchName=s1 Nodes=n[32-63]\n",
			    &err));
	cr_assert(strstr(err.msg,
			 ":2: slurm.conf node x40 is not in NodeName="),
		  "%s", err.msg);
}

/* ...a directive continued on the next line starts on its first line... */
Test(adapter, continued_policy_names_its_first_line)
{
	struct err err = { 0 };

	cr_assert_null(load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
			    "PartitionPolicy=batch:fattree-pods\n"
			    "PartitionPolicy=\\\n"
			    "  debug:no-such\n"
			    "DefaultPolicy=linear\n",
			    &err));
	cr_assert(strstr(err.msg, ":4: policy 'no-such' of partition debug"),
		  "%s", err.msg);
}

/* ...a line longer than any fixed buffer counts as one line... */
Test(adapter, long_line_keeps_the_count)
{
	struct err err = { 0 };
	char *text = malloc(6000);

	cr_assert_not_null(text);
	memset(text, 'x', 5000);
	text[0] = '#';
	strcpy(text + 5000, "\nTopology=fattree k=4 n=3\nNodeName=n[0-63]\n"
			    "PartitionPolicy=debug:no-such\n");
	cr_assert_null(load(text, &err));
	free(text);
	cr_assert(strstr(err.msg, ":4: policy 'no-such' of partition debug"),
		  "%s", err.msg);
}

/* ...and every policy line is checked, also of a partition slurm.conf
 * does not have (the policy first, then the partition). */
Test(adapter, policy_of_another_partition_is_checked)
{
	struct err err = { 0 };

	cr_assert_null(load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
			    "PartitionPolicy=later:fattree-pods:large=x\n",
			    &err));
	cr_assert(strstr(err.msg, ":3: policy 'fattree-pods:large=x' of "
				  "partition later: policy fattree-pods"),
		  "%s", err.msg);
}

/* A PartitionPolicy= of a partition slurm.conf lacks (a typo) is refused
 * with its line and the partitions there are: the real partition would
 * run without isolation. */
Test(adapter, policy_of_an_unknown_partition_is_refused)
{
	struct err err = { 0 };
	char want[600];

	cr_assert_null(load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
			    "PartitionPolicy=debug:clustered\n"
			    "PartitionPolicy=bacth:fattree-pods\n",
			    &err));
	snprintf(want, sizeof(want),
		 "%s:4: PartitionPolicy=bacth:fattree-pods: slurm.conf has no "
		 "partition 'bacth' (it has: batch, debug)",
		 conf_path);
	cr_expect_str_eq(err.msg, want);
}

/* Partitions without a policy are named for the log; DefaultPolicy=
 * covers them all. */
Test(adapter, partitions_without_a_policy)
{
	struct err err = { 0 };
	struct tstate *s = load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
				"PartitionPolicy=batch:fattree-pods\n",
				&err);
	const char *three[] = { "batch", "debug", "long" };
	char buf[64], tiny[8];

	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_eq(tstate_unpoliced(s, three, 3, buf, sizeof(buf)), 2);
	cr_expect_str_eq(buf, "debug, long");
	cr_expect_eq(tstate_unpoliced(s, three, 3, tiny, sizeof(tiny)), 2);
	cr_expect_str_eq(tiny, "debu...");
	cr_expect_eq(tstate_unpoliced(s, three, 1, buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "");
	tstate_destroy(s);
	unlink(conf_path);
	s = load(
		"Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		"PartitionPolicy=batch:fattree-pods\nDefaultPolicy=clustered\n",
		&err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_eq(tstate_unpoliced(s, three, 3, buf, sizeof(buf)), 0);
	tstate_destroy(s);
}

Test(adapter, policy_choice_and_overrides)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	const struct policy *p;
	bool none;

	cr_assert(s, "%s", err.msg);
	p = tstate_policy(s, "batch", NULL, &none, &err);
	cr_assert(p && !none);
	cr_assert_str_eq(policy_name(p), "fattree-pods");
	/* No policy for debug and no DefaultPolicy: cons_tres alone. */
	p = tstate_policy(s, "debug", NULL, &none, &err);
	cr_assert(!p && none);
	/* A job cannot opt out of isolation... */
	p = tstate_policy(s, "batch", "linear", &none, &err);
	cr_assert(!p && !none);
	cr_assert(strstr(err.msg, "requires isolation"), "%s", err.msg);
	/* ...but may pick a baseline where nothing is required. */
	p = tstate_policy(s, "debug", "linear", &none, &err);
	cr_assert(p && !none);
	cr_assert_str_eq(policy_name(p), "linear");
	tstate_destroy(s);
}

/* Pods 0 and 1 end at t=10 and t=20, pods 2-3 (one job) at t=30: the
 * owners and running jobs select_topo.c hands to policy_will_run. */
static void three_jobs(uint32_t *owner, struct policy_running *run)
{
	uint32_t i;

	for (i = 0; i < N; i++)
		owner[i] = i < 16 ? 1 : i < 32 ? 2 : 3;
	for (i = 0; i < 3; i++) {
		run[i].job_id = i + 1;
		run[i].end = 10 * (i + 1);
	}
}

struct wr_case {
	uint32_t nodes;
	uint32_t free_from; /* nodes >= this are free now (64: none) */
	uint32_t released;  /* expected end times to wait for */
	uint32_t lo, hi;    /* expected node range [lo, hi) */
	bool now;	    /* startable now */
};

Test(adapter, will_run_releases_jobs_in_end_order)
{
	static const struct wr_case cases[] = {
		/* 32 nodes = two whole pods: pods 0-1 after t=20. */
		{ 32, 64, 2, 0, 32, false },
		/* one pod: pod 0 after t=10. */
		{ 16, 64, 1, 0, 16, false },
		/* 4 nodes, the last leaf is free now. */
		{ 4, 60, 0, 60, 64, true },
		/* 64 nodes: after everything. */
		{ 64, 64, 3, 0, 64, false },
	};
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N], nodes[N], i, c;
	struct policy_running run[3];
	const struct policy *p;
	bool none;

	cr_assert(s, "%s", err.msg);
	p = tstate_policy(s, "batch", NULL, &none, &err);
	cr_assert(p);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct policy_request req = { .job_id = 99,
					      .nodes = cases[c].nodes };
		struct policy_result res = { .nodes = nodes };
		struct policy_view v = { .owner = owner };
		struct policy_will_run wr;

		three_jobs(owner, run);
		for (i = cases[c].free_from; i < N; i++)
			owner[i] = POLICY_FREE;
		cr_assert_eq(policy_will_run(p, &v, run, 3, 0, &req, &res, &wr,
					     &err),
			     0, "case %u: %s", c, err.msg);
		cr_assert_eq(wr.status, POLICY_PLACED, "case %u: %s", c,
			     res.reason);
		cr_assert_eq(wr.jobs, cases[c].released, "case %u", c);
		cr_assert_eq(wr.groups, cases[c].released, "case %u", c);
		cr_assert_eq(res.n, cases[c].nodes);
		for (i = 0; i < res.n; i++)
			cr_assert(nodes[i] >= cases[c].lo &&
					  nodes[i] < cases[c].hi,
				  "case %u: node %u", c, nodes[i]);
		cr_assert_eq(wr.now_reason[0] == '\0', cases[c].now,
			     "case %u: %s", c, wr.now_reason);
		/* The caller's owners are untouched. */
		cr_assert_eq(owner[0], cases[c].free_from == 0 ? 0u : 1u);
	}
	tstate_destroy(s);
}

Test(adapter, will_run_never_when_too_large)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N], nodes[N + 1];
	struct policy_running run[3];
	struct policy_request req = { .job_id = 99, .nodes = N + 1 };
	struct policy_result res = { .nodes = nodes };
	struct policy_view v = { .owner = owner };
	struct policy_will_run wr;
	const struct policy *p;
	bool none;

	cr_assert(s, "%s", err.msg);
	p = tstate_policy(s, "batch", NULL, &none, &err);
	three_jobs(owner, run);
	cr_assert_eq(policy_will_run(p, &v, run, 3, 0, &req, &res, &wr, &err),
		     0, "%s", err.msg);
	cr_assert_neq(wr.status, POLICY_PLACED);
	cr_assert(res.reason[0]);
	tstate_destroy(s);
}

Test(adapter, evaluate_identical_link_sets_share_everything)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N] = { 0 }, a[2] = { 0, 4 };
	struct teval ev;

	cr_assert(s, "%s", err.msg);
	/* Jobs 1 = {0, 4} and 2 = {1, 5}: both span leaves 0 and 1, so
	 * their link sets are equal and every link is shared. */
	owner[0] = owner[4] = 1;
	owner[1] = owner[5] = 2;
	cr_assert_eq(tstate_evaluate(s, owner, 1, a, 2, NULL, 128, &ev, &err),
		     0, "%s", err.msg);
	cr_assert_eq(ev.njobs, 2);
	cr_assert_float_eq(ev.mls, 100.0, 1e-9);
	cr_assert_float_eq(ev.tls, 100.0, 1e-9);
	cr_assert(ev.job_links > 0);
	cr_assert_eq(ev.job_shared, ev.job_links);
	cr_assert_eq(ev.job_nshares, 1);
	cr_assert_str_eq(ev.pattern, TSTATE_DEFAULT_PATTERN);
	tstate_destroy(s);
}

Test(adapter, evaluate_leaf_local_jobs_are_isolated)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N] = { 0 }, a[2] = { 0, 1 };
	struct teval ev;

	cr_assert(s, "%s", err.msg);
	/* Two jobs inside leaves 0 and 1: no switch-to-switch link. */
	owner[0] = owner[1] = 1;
	owner[4] = owner[5] = 2;
	cr_assert_eq(tstate_evaluate(s, owner, 1, a, 2, NULL, 128, &ev, &err),
		     0, "%s", err.msg);
	cr_assert_float_eq(ev.mls, 0.0, 1e-12);
	cr_assert_float_eq(ev.tls, 0.0, 1e-12);
	cr_assert_eq(ev.job_links, 0);
	/* alltoall of 2 nodes: 2 flows, each alone on its injection and
	 * ejection link (capacity 1): JM rate 1 each. */
	cr_assert(ev.modelled);
	cr_assert_eq(ev.flows, 2);
	cr_assert_float_eq(ev.rate_mean, 1.0, 1e-9);
	cr_assert_float_eq(ev.aggregate, 2.0, 1e-9);
	/* Above the size cap: sharing only. */
	cr_assert_eq(tstate_evaluate(s, owner, 1, a, 2, NULL, 1, &ev, &err), 0);
	cr_assert(!ev.modelled);
	tstate_destroy(s);
}

Test(adapter, tracker_agrees_with_one_shot)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N] = { 0 }, a[2] = { 0, 4 }, b[2] = { 1, 5 };
	struct teval one, inc;

	cr_assert(s, "%s", err.msg);
	owner[0] = owner[4] = 1;
	owner[1] = owner[5] = 2;
	cr_assert_eq(tstate_track_reset(s, owner, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_evaluate(s, owner, 1, a, 2, NULL, 128, &one, &err),
		     0);
	cr_assert_eq(tstate_evaluate_tracked(s, 1, a, 2, NULL, 128, &inc, &err),
		     0, "%s", err.msg);
	cr_assert_float_eq(inc.mls, one.mls, 1e-9);
	cr_assert_float_eq(inc.tls, one.tls, 1e-9);
	cr_assert_eq(inc.job_links, one.job_links);
	cr_assert_eq(inc.job_shared, one.job_shared);
	cr_assert_eq(inc.njobs, 2);
	/* Job 2 ends: nothing shared any more. */
	tstate_track_remove(s, 2);
	cr_assert_eq(tstate_evaluate_tracked(s, 1, a, 2, NULL, 128, &inc, &err),
		     0);
	cr_assert_float_eq(inc.mls, 0.0, 1e-12);
	cr_assert_eq(inc.job_shared, 0);
	cr_assert_eq(inc.njobs, 1);
	/* Job 2 starts again: shared again; an unknown job is an error. */
	cr_assert_eq(tstate_track_add(s, 2, b, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_evaluate_tracked(s, 1, a, 2, NULL, 128, &inc, &err),
		     0);
	cr_assert_float_eq(inc.mls, 100.0, 1e-9);
	cr_assert_eq(tstate_evaluate_tracked(s, 3, a, 2, NULL, 128, &inc, &err),
		     -1);
	tstate_destroy(s);
}

/* Link partners, worked by hand on the fat-tree: jobs 17 = {0, 4} and
 * 12 = {1, 5} both span leaves 0 and 1 of pod 0 (the same link set, so
 * each is the other's only partner); job 30 = {32, 36} spans leaves 8
 * and 9 of pod 2, links of its own: no partner.  Then job 5 = {2, 6}
 * joins leaves 0 and 1 too: three jobs on every pod-0 link (no XOR names
 * a partner there), so 17's partners are 5 and 12 (ascending).  The
 * tracker (tstate_evaluate_tracked) and the one-shot evaluation
 * (tstate_evaluate) say the same; the record text follows. */
Test(adapter, link_partners_by_hand)
{
	static const struct {
		uint32_t job, node[2];
		bool with5; /* job 5 running too */
		uint32_t n, partners[2];
		const char *text;
	} cases[] = {
		{ 17, { 0, 4 }, false, 1, { 12 }, "12" },
		{ 12, { 1, 5 }, false, 1, { 17 }, "17" },
		{ 30, { 32, 36 }, false, 0, { 0 }, "" },
		{ 17, { 0, 4 }, true, 2, { 5, 12 }, "5,12" },
		{ 5, { 2, 6 }, true, 2, { 12, 17 }, "12,17" },
		{ 30, { 32, 36 }, true, 0, { 0 }, "" },
	};
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N] = { 0 }, five[2] = { 2, 6 };
	struct teval one, inc;
	char text[256];

	cr_assert(s, "%s", err.msg);
	owner[0] = owner[4] = 17;
	owner[1] = owner[5] = 12;
	owner[32] = owner[36] = 30;
	cr_assert_eq(tstate_track_reset(s, owner, &err), 0, "%s", err.msg);
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		if (cases[c].with5 && owner[2] != 5) {
			owner[2] = owner[6] = 5;
			cr_assert_eq(tstate_track_add(s, 5, five, 2, &err), 0,
				     "%s", err.msg);
		}
		cr_assert_eq(tstate_evaluate_tracked(s, cases[c].job,
						     cases[c].node, 2, NULL, 1,
						     &inc, &err),
			     0, "%s", err.msg);
		cr_assert_eq(tstate_evaluate(s, owner, cases[c].job,
					     cases[c].node, 2, NULL, 1, &one,
					     &err),
			     0, "%s", err.msg);
		cr_assert_eq(inc.job_nshares, cases[c].n, "case %zu", c);
		cr_assert_eq(one.job_nshares, cases[c].n, "case %zu", c);
		cr_assert(inc.job_links > 0, "case %zu", c);
		for (uint32_t q = 0; q < cases[c].n; q++) {
			cr_assert_eq(inc.partners[q], cases[c].partners[q],
				     "case %zu partner %u", c, q);
			cr_assert_eq(one.partners[q], cases[c].partners[q],
				     "case %zu partner %u", c, q);
		}
		cr_assert_str_eq(tstate_partners_text(&inc, text, sizeof(text)),
				 cases[c].text, "case %zu", c);
	}
	tstate_destroy(s);
}

/* The record names TEVAL_PARTNERS partners, then how many more. */
Test(adapter, link_partners_text_is_capped)
{
	struct teval ev = { .job_nshares = 20 };
	char text[256], small[8];

	for (uint32_t q = 0; q < TEVAL_PARTNERS; q++)
		ev.partners[q] = 100 + q;
	cr_assert_str_eq(tstate_partners_text(&ev, text, sizeof(text)),
			 "100,101,102,103,104,105,106,107,108,109,110,111,"
			 "112,113,114,115,+4");
	ev.job_nshares = TEVAL_PARTNERS;
	cr_assert_str_eq(tstate_partners_text(&ev, text, sizeof(text)),
			 "100,101,102,103,104,105,106,107,108,109,110,111,"
			 "112,113,114,115");
	/* a short buffer: cut, still NUL-terminated */
	cr_assert_str_eq(tstate_partners_text(&ev, small, sizeof(small)),
			 "100,101");
}

/* Predict= is checked when the state is loaded, with model_check's own
 * message; without it, the machine's default (jm) within 50 ms. */
Test(adapter, predict_is_checked_at_load)
{
	static const struct {
		const char *text, *msg; /* msg: after PATH, its start */
	} bad[] = {
		{ "Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		  "Predict=nosuch\n",
		  ":3: Predict=nosuch: unknown model 'nosuch' (known: hm, jm, "
		  "mcf, mmf" },
		{ "Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		  "PartitionPolicy=batch:fattree-pods\nPredict=mcf:x=1\n",
		  ":4: Predict=mcf:x=1: model 'mcf': unknown option 'x'" },
		{ "Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		  "Predict=ugal3\n",
		  ":3: Predict=ugal3: model 'ugal3': needs a dragonfly or "
		  "cascade topology, not fattree" },
		{ "Topology=dragonfly p=2 a=4 h=2 g=8\nRouting=min\n"
		  "NodeName=n[0-63]\nPredict=ugal5\n",
		  ":4: Predict=ugal5: model 'ugal5': needs routing ugal, not "
		  "min" },
		{ "Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		  "PredictBudget=0\n",
		  ":3: PredictBudget=0: want whole milliseconds from 1 to "
		  "60000" },
	};
	struct err err = { 0 };
	struct tstate *s;
	char want[1200];

	s = load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n", &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_str_eq(tstate_predict(s), "jm");
	cr_expect_eq(tstate_predict_budget(s), 50);
	tstate_destroy(s);
	unlink(conf_path);
	s = load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\nPredict=mcf\n"
		 "PredictBudget=200\n",
		 &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_str_eq(tstate_predict(s), "mcf");
	cr_expect_eq(tstate_predict_budget(s), 200);
	tstate_destroy(s);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		unlink(conf_path);
		cr_expect_null(load(bad[i].text, &err), "case %zu", i);
		snprintf(want, sizeof(want), "%s%s", conf_path, bad[i].msg);
		cr_expect(!strncmp(err.msg, want, strlen(want)),
			  "case %zu: got '%s', want '%s...'", i, err.msg, want);
	}
}

/* The state's evaluation of job JOB on NODES[0..N) (owner: the job
 * alone) against model_run(MODEL) on the same flows. */
static void same_as_model_run(struct tstate *s, const char *model, uint32_t job,
			      const uint32_t *nodes, uint32_t n,
			      struct teval *ev)
{
	struct err err = { 0 };
	uint32_t owner[N] = { 0 };
	struct model_result mr;
	struct flows f;

	for (uint32_t i = 0; i < n; i++)
		owner[nodes[i]] = job;
	cr_assert_eq(tstate_evaluate(s, owner, job, nodes, n, NULL, 128, ev,
				     &err),
		     0, "%s", err.msg);
	flows_init(&f);
	cr_assert_eq(flows_pattern("alltoall", nodes, n, job, &f, &err), 0);
	cr_assert_eq(model_run(model, tstate_routing(s), &f, NULL, &mr, &err),
		     0, "%s", err.msg);
	cr_expect(ev->modelled);
	cr_expect_str_eq(ev->model, model);
	cr_expect_eq(ev->status, MODEL_OPTIMAL);
	cr_expect(!ev->overran);
	cr_expect_eq(ev->flows, f.n);
	cr_expect_float_eq(ev->rate_mean, mr.mean_rate, 1e-12);
	cr_expect_float_eq(ev->rate_min, mr.min_rate, 1e-12);
	cr_expect_float_eq(ev->aggregate, mr.aggregate, 1e-12);
	cr_expect_float_eq(ev->alpha, mr.alpha, 1e-12);
	model_result_free(&mr);
	flows_free(&f);
}

/* Predict=mcf: the job's rates and alpha are MCF's.  Four nodes of one
 * leaf switch, alltoall: each node sends 3 flows through its injection
 * link of capacity 1, so alpha = 1/3, 12 flows of 1/3, aggregate 4.  On
 * nodes 0, 1, 4, 5 (two leaves) MCF still gives every flow 1/3 where JM
 * leaves the slowest at 1/9. */
Test(adapter, evaluate_with_mcf)
{
	struct err err = { 0 };
	struct tstate *s = load("Topology=fattree k=4 n=3\n"
				"NodeName=n[0-63]\n"
				"Predict=mcf\nPredictBudget=60000\n",
				&err);
	uint32_t leaf[4] = { 0, 1, 2, 3 }, two[4] = { 0, 1, 4, 5 };
	struct teval ev;
	char rec[512];

	cr_assert_not_null(s, "%s", err.msg);
	same_as_model_run(s, "mcf", 7, leaf, 4, &ev);
	cr_expect(ev.has_alpha);
	cr_expect_float_eq(ev.alpha, 1.0 / 3, 1e-9);
	cr_expect_eq(ev.flows, 12);
	cr_expect_float_eq(ev.rate_mean, 1.0 / 3, 1e-9);
	cr_expect_float_eq(ev.rate_min, 1.0 / 3, 1e-9);
	cr_expect_float_eq(ev.aggregate, 4.0, 1e-9);
	cr_expect_str_eq(tstate_record(&ev, rec, sizeof(rec)),
			 "pattern=alltoall flows=12 model=mcf status=optimal "
			 "jm_mean=0.3333 jm_min=0.3333 jm_aggregate=4 "
			 "alpha=0.3333 links=0 shared=0 running=1 mls=0 tls=0");
	same_as_model_run(s, "mcf", 8, two, 4, &ev);
	cr_expect_float_eq(ev.rate_min, 1.0 / 3, 1e-9);
	tstate_destroy(s);
}

/* The default prediction on a dragonfly routed ugal is UGAL-G Model 5
 * (machine_predict_default), solved like stopo eval solves it: the
 * 32-node alltoall's LP (49,984 non-zeros) goes to the first-order solver,
 * whose certified interval must hold GLPK's optimum, and the record
 * carries both ends. */
Test(adapter, evaluate_default_ugal_on_dragonfly)
{
	struct err err = { 0 };
	struct tstate *s = load("Topology=dragonfly p=2 a=4 h=2 g=8\n"
				"Routing=ugal\nNodeName=n[0-63]\n"
				"PredictBudget=60000\n",
				&err);
	uint32_t nodes[32];
	struct model_opts o;
	struct model_result ex;
	struct flows f;
	struct teval ev;
	char rec[512];

	cr_assert_not_null(s, "%s", err.msg);
	cr_expect_str_eq(tstate_predict(s), "ugal5");
	for (uint32_t i = 0; i < 32; i++)
		nodes[i] = i;
	same_as_model_run(s, "ugal5", 9, nodes, 32, &ev);
	flows_init(&f);
	cr_assert_eq(flows_pattern("alltoall", nodes, 32, 9, &f, &err), 0);
	model_opts_init(&o);
	o.engine = MODEL_ENGINE_EXACT;
	cr_assert_eq(model_run("ugal5", tstate_routing(s), &f, &o, &ex, &err),
		     0, "%s", err.msg);
	cr_expect(ev.has_alpha);
	cr_expect_leq(ev.alpha, ex.alpha * (1 + 1e-9));
	if (ev.has_bound) {
		cr_expect_geq(ev.bound, ex.alpha * (1 - 1e-9));
		cr_expect_leq(ev.gap, 0.01);
		cr_expect(strstr(tstate_record(&ev, rec, sizeof(rec)),
				 " bound="),
			  "%s", rec);
	} else {
		cr_expect_float_eq(ev.alpha, ex.alpha, 1e-9);
	}
	cr_expect(strstr(tstate_record(&ev, rec, sizeof(rec)),
			 "flows=992 model=ugal5 status=optimal "),
		  "%s", rec);
	model_result_free(&ex);
	flows_free(&f);
	tstate_destroy(s);
}

/* Predict=jm (and the default): JM's rates as before, no alpha. */
Test(adapter, evaluate_with_jm)
{
	struct err err = { 0 };
	struct tstate *s = load("Topology=fattree k=4 n=3\n"
				"NodeName=n[0-63]\n"
				"Predict=jm\nPredictBudget=60000\n",
				&err);
	uint32_t two[4] = { 0, 1, 4, 5 };
	struct teval ev;
	char rec[512];

	cr_assert_not_null(s, "%s", err.msg);
	same_as_model_run(s, "jm", 8, two, 4, &ev);
	cr_expect(!ev.has_alpha);
	cr_expect_float_eq(ev.rate_min, 1.0 / 9, 1e-9);
	cr_expect_float_eq(ev.aggregate, 4.0, 1e-9);
	cr_expect_str_eq(tstate_record(&ev, rec, sizeof(rec)),
			 "pattern=alltoall flows=12 model=jm status=optimal "
			 "jm_mean=0.3333 jm_min=0.1111 jm_aggregate=4 "
			 "links=16 shared=0 running=1 mls=0 tls=0");
	tstate_destroy(s);
	unlink(conf_path);
	s = load(good, &err);
	cr_assert_not_null(s, "%s", err.msg);
	same_as_model_run(s, "jm", 8, two, 4, &ev);
	tstate_destroy(s);
}

/* A job not modelled (1 node, or above the size cap) keeps "jm=none". */
Test(adapter, record_of_a_job_not_modelled)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N] = { 0 }, one[1] = { 9 };
	struct teval ev;
	char rec[512];

	cr_assert_not_null(s, "%s", err.msg);
	owner[9] = 3;
	cr_assert_eq(tstate_evaluate(s, owner, 3, one, 1, "shift", 128, &ev,
				     &err),
		     0, "%s", err.msg);
	cr_expect(!ev.modelled);
	cr_expect_str_eq(tstate_record(&ev, rec, sizeof(rec)),
			 "pattern=shift jm=none model=jm status=skipped "
			 "links=0 shared=0 running=1 mls=0 tls=0");
	cr_expect_str_eq(tstate_status_name(MODEL_TIME_LIMIT), "time-limit");
	cr_expect_str_eq(tstate_status_name(MODEL_INFEASIBLE), "infeasible");
	tstate_destroy(s);
}

/* The whole machine, alltoall: 4032 flows over 52,416 paths, an LP GLPK
 * needs tens of seconds for.  Within PredictBudget=1 the caller gets
 * MODEL_TIME_LIMIT (not an error) at once.  Within 1000 ms the
 * first-order solver (the LP is above the exact size) answers with a
 * certified interval around the optimum 1/63 (each node's 63 flows share
 * its injection link, which the full-bisection tree's ECMP paths
 * saturate): optimal within 1 %, or, where it is slower (valgrind),
 * time-limit with the bounds it had, or no answer: either way within
 * about the budget.  The predictor then serves the next job. */
Test(adapter, budget_overrun_is_a_status)
{
	struct err err = { 0 };
	uint32_t owner[N], all[N], leaf[4] = { 0, 1, 2, 3 };
	struct tstate *s;
	struct teval ev;
	char rec[512];

	for (uint32_t i = 0; i < N; i++) {
		owner[i] = 5;
		all[i] = i;
	}
	s = load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		 "Predict=mcf\nPredictBudget=1\n",
		 &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_assert_eq(tstate_evaluate(s, owner, 5, all, N, NULL, 128, &ev, &err),
		     0, "%s", err.msg);
	cr_expect(ev.modelled);
	cr_expect_eq(ev.flows, 4032);
	cr_expect_eq(ev.status, MODEL_TIME_LIMIT);
	cr_expect_lt(ev.seconds, 1.0);
	/* Past the deadline the answer has no rates.  Under valgrind,
	 * which runs one thread at a time, the predictor may finish before
	 * the waiter looks: then the model's own time limit (9/10 of the
	 * budget) stopped it, with the rates it had. */
	if (ev.overran)
		cr_expect(strstr(tstate_record(&ev, rec, sizeof(rec)),
				 "flows=4032 model=mcf status=time-limit "
				 "jm_mean=0 jm_min=0 jm_aggregate=0 links="),
			  "%s", rec);
	else
		cr_expect(strstr(tstate_record(&ev, rec, sizeof(rec)),
				 "flows=4032 model=mcf status=time-limit "),
			  "%s", rec);
	tstate_destroy(s);
	unlink(conf_path);
	s = load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		 "Predict=mcf\nPredictBudget=1000\n",
		 &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_assert_eq(tstate_evaluate(s, owner, 5, all, N, NULL, 128, &ev, &err),
		     0, "%s", err.msg);
	cr_expect_lt(ev.seconds, 3.0);
	if (ev.status == MODEL_OPTIMAL)
		cr_expect(!ev.has_bound || ev.gap <= 0.01, "gap %g", ev.gap);
	else
		cr_expect_eq(ev.status, MODEL_TIME_LIMIT);
	if (!ev.overran) {
		cr_expect(ev.has_alpha);
		cr_expect_leq(ev.alpha, 1.0 / 63 * (1 + 1e-9));
		cr_expect(!ev.has_bound || ev.bound >= 1.0 / 63 * (1 - 1e-9),
			  "bound %.9g", ev.bound);
		if (ev.has_bound)
			cr_expect(strstr(tstate_record(&ev, rec, sizeof(rec)),
					 " bound="),
				  "%s", rec);
	}
	tstate_destroy(s);
	/* the next job: queued behind what runs, then answered */
	unlink(conf_path);
	s = load("Topology=fattree k=4 n=3\nNodeName=n[0-63]\n"
		 "Predict=mcf\nPredictBudget=60000\n",
		 &err);
	cr_assert_not_null(s, "%s", err.msg);
	same_as_model_run(s, "mcf", 6, leaf, 4, &ev);
	tstate_destroy(s);
}

/* Threads of this process at nice 19 (field 19 of /proc/self/task/T/stat,
 * after the parenthesised name) and, when IDLE, under SCHED_IDLE (field
 * 41, the policy: 5). */
static int nice_threads(bool idle)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int count = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char path[300], buf[1024], *p;
		FILE *f;
		int field = 3;
		long nice = 0, policy = -1;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat",
			 e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (!p || !(p = strrchr(buf, ')')))
			continue;
		for (p += 2; *p && field < 19; p++)
			if (*p == ' ')
				field++;
		if (sscanf(p, "%ld", &nice) != 1 || nice != 19)
			continue;
		for (; *p && field < 41; p++)
			if (*p == ' ')
				field++;
		if (!idle || (sscanf(p, "%ld", &policy) == 1 && policy == 5))
			count++;
	}
	closedir(d);
	return count;
}

/* Job starts do not wait: three predictions posted at once (a 4-node
 * leaf job under MCF, alpha 1/3 by hand; a two-leaf job, whose slowest
 * flow MCF still gives 1/3; a 1-node job, not modelled) are answered
 * later, each as tstate_evaluate_tracked answers it alone. */
Test(adapter, predictions_are_collected_later)
{
	struct err err = { 0 };
	struct tstate *s = load("Topology=fattree k=4 n=3\n"
				"NodeName=n[0-63]\n"
				"Predict=mcf\nPredictBudget=60000\n",
				&err);
	uint32_t owner[N] = { 0 }, leaf[4] = { 0, 1, 2, 3 },
		 two[4] = { 8, 9, 12, 13 }, one[1] = { 20 };
	struct tpending *t1, *t2, *t3;
	struct teval e1, e2, e3, ref;
	char rec[512], want[512];

	cr_assert_not_null(s, "%s", err.msg);
	cr_assert_eq(tstate_track_reset(s, owner, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_track_add(s, 1, leaf, 4, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_evaluate_start(s, 1, leaf, 4, NULL, 128, &e1, &t1,
					   &err),
		     0, "%s", err.msg);
	cr_assert_eq(tstate_track_add(s, 2, two, 4, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_evaluate_start(s, 2, two, 4, NULL, 128, &e2, &t2,
					   &err),
		     0, "%s", err.msg);
	cr_assert_eq(tstate_track_add(s, 3, one, 1, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_evaluate_start(s, 3, one, 1, "shift", 128, &e3, &t3,
					   &err),
		     0, "%s", err.msg);
	cr_assert_not_null(t1);
	cr_assert_not_null(t2);
	cr_expect_null(t3, "a 1-node job has no prediction");
	/* the sharing is there at once */
	cr_expect(e1.modelled && e2.modelled && !e3.modelled);
	cr_expect_eq(e1.flows, 12);
	cr_expect_eq(e1.njobs, 1);
	cr_expect_eq(e2.njobs, 2);
	cr_expect_eq(e3.njobs, 3);
	cr_expect_eq(e1.job_links, 0, "one leaf: injection links only");
	cr_expect_eq(e2.job_links, 16);
	tstate_pending_wait(t2);
	cr_expect(tstate_pending_ready(t2));
	cr_expect(tstate_pending_ready(t1), "answered in the order posted");
	cr_assert_eq(tstate_pending_finish(t2, &e2, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_pending_finish(t1, &e1, &err), 0, "%s", err.msg);
	cr_expect_eq(e1.status, MODEL_OPTIMAL);
	cr_expect(!e1.overran);
	cr_expect_float_eq(e1.alpha, 1.0 / 3, 1e-9);
	cr_expect_float_eq(e2.rate_min, 1.0 / 3, 1e-9);
	cr_expect_geq(e1.seconds, 0);
	cr_expect_geq(e2.seconds, 0);
	cr_expect_str_eq(tstate_record(&e1, rec, sizeof(rec)),
			 "pattern=alltoall flows=12 model=mcf status=optimal "
			 "jm_mean=0.3333 jm_min=0.3333 jm_aggregate=4 "
			 "alpha=0.3333 links=0 shared=0 running=1 mls=0 tls=0");
	cr_expect_geq(nice_threads(false), 1, "the predictor runs at nice 19");
	cr_expect_geq(nice_threads(true), 1,
		      "the predictor runs under SCHED_IDLE");
	/* the same record as waiting for it (the tracker as it was) */
	tstate_track_remove(s, 3);
	cr_assert_eq(tstate_evaluate_tracked(s, 2, two, 4, NULL, 128, &ref,
					     &err),
		     0, "%s", err.msg);
	tstate_record(&ref, want, sizeof(want));
	cr_expect_str_eq(tstate_record(&e2, rec, sizeof(rec)), want);
	tstate_destroy(s);
}

/* A state of 64 nodes with topo.conf's PREDICT lines, job 5 on every
 * node (alltoall: 4032 flows) tracked and its prediction posted: *T. */
static struct tstate *post_whole_machine(const char *predict, struct teval *ev,
					 struct tpending **t)
{
	struct err err = { 0 };
	uint32_t owner[N] = { 0 }, all[N];
	char text[256];
	struct tstate *s;

	for (uint32_t i = 0; i < N; i++)
		all[i] = i;
	snprintf(text, sizeof(text),
		 "Topology=fattree k=4 n=3\nNodeName=n[0-63]\n%s", predict);
	s = load(text, &err);
	cr_assert_not_null(s, "%s", err.msg);
	cr_assert_eq(tstate_track_reset(s, owner, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_track_add(s, 5, all, N, &err), 0, "%s", err.msg);
	cr_assert_eq(tstate_evaluate_start(s, 5, all, N, NULL, 128, ev, t,
					   &err),
		     0, "%s", err.msg);
	return s;
}

/* PredictBudget= runs from the moment the predictor begins a prediction,
 * not from the job start: behind a whole-machine MCF that overruns
 * PredictBudget=1, a 4-node job's prediction is not starved.  1024
 * predictions wait at most: the next is answered time-limit at once.
 * Stopping the predictor answers what still waits. */
Test(adapter, predictions_queue_behind_a_long_one)
{
	struct err err = { 0 };
	static struct tpending *t[1100];
	uint32_t leaf[4] = { 0, 1, 2, 3 }, k;
	struct tstate *s;
	struct teval ev;

	s = post_whole_machine("Predict=mcf\nPredictBudget=1\n", &ev, &t[0]);
	cr_assert_not_null(t[0]);
	cr_assert_eq(tstate_pending_finish(t[0], &ev, &err), 0, "%s", err.msg);
	cr_expect_eq(ev.flows, 4032);
	/* past the deadline, or (valgrind runs one thread at a time) the
	 * model's own 0.9 ms limit: time-limit either way */
	cr_expect_eq(ev.status, MODEL_TIME_LIMIT);
	tstate_destroy(s);
	unlink(conf_path);
	/* a whole-machine MCF of up to 10 s (paths and LP set-up alone take
	 * far longer than posting), then more 4-node jobs than the queue
	 * holds */
	s = post_whole_machine("Predict=mcf\nPredictBudget=10000\n", &ev,
			       &t[0]);
	cr_assert_eq(tstate_track_add(s, 6, leaf, 4, &err), 0, "%s", err.msg);
	for (k = 1; k < 1100; k++)
		cr_assert_eq(tstate_evaluate_start(s, 6, leaf, 4, NULL, 128,
						   &ev, &t[k], &err),
			     0, "%s", err.msg);
	/* t[0] was taken at once or waits first: 1024 more fit */
	cr_expect(!tstate_pending_ready(t[0]), "MCF of 4032 flows ran out");
	for (k = 1026; k < 1100; k++) {
		cr_expect(tstate_pending_ready(t[k]), "job %u", k);
		cr_assert_eq(tstate_pending_finish(t[k], &ev, &err), 0);
		cr_expect(ev.overran && ev.status == MODEL_TIME_LIMIT);
		cr_expect_float_eq(ev.rate_min, 0, 0);
	}
	cr_assert_eq(tstate_pending_finish(t[1], &ev, &err), 0, "%s", err.msg);
	cr_expect_eq(ev.status, MODEL_OPTIMAL, "queued, then given its budget");
	cr_expect(!ev.overran, "%g s, status %d", ev.seconds, ev.status);
	cr_expect_float_eq(ev.alpha, 1.0 / 3, 1e-9);
	tstate_predictor_stop();
	for (k = 2; k < 1026; k++) {
		cr_assert_eq(tstate_pending_finish(t[k], &ev, &err), 0);
		if (ev.overran)
			cr_expect_float_eq(ev.rate_min, 0, 0);
		else
			cr_expect_float_eq(ev.alpha, 1.0 / 3, 1e-9);
	}
	cr_assert_eq(tstate_pending_finish(t[0], &ev, &err), 0, "%s", err.msg);
	tstate_destroy(s);
}

static uint32_t held_by(const uint32_t *cap, const struct policy_result *res)
{
	uint32_t i, have = 0;

	for (i = 0; i < res->n; i++)
		have += cap[res->nodes[i]];
	return have;
}

/* Two node kinds as in tests/slurm: n0-31 with 4 CPUs, n32-63 with 8. */
static void two_kinds(uint32_t *cap, uint32_t cpt, uint32_t tpn)
{
	uint32_t t;

	for (t = 0; t < N; t++) {
		uint32_t k = (t < 32 ? 4 : 8) / cpt;

		cap[t] = tpn ? (k >= tpn ? tpn : 0) : k;
	}
}

Test(adapter, size_from_tasks_per_node_and_cpus)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N], nodes[N + 1], cap[N], i;
	struct policy_request req = { .job_id = 99 };
	struct policy_result res = { .nodes = nodes };
	struct tsize_policy c = { .owner = owner };
	struct tsize z = { .lo = 1, .hi = N, .first = 1, .cap = cap };
	enum policy_status st;
	bool none;

	cr_assert(s, "%s", err.msg);
	c.p = tstate_policy(s, "batch", NULL, &none, &err);
	cr_assert(c.p);
	for (i = 0; i < N; i++)
		owner[i] = POLICY_FREE;

	/* -n 8 --ntasks-per-node=1: 8 nodes, whatever their CPUs. */
	two_kinds(cap, 1, 1);
	z.need = 8;
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.n, 8);
	cr_expect_eq(req.nodes, 8);

	/* -n 12: 2 nodes of 8 CPUs or 3 of 4; the nodes hold 12 tasks and
	 * no node fewer would. */
	two_kinds(cap, 1, 0);
	z.need = 12;
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_geq(held_by(cap, &res), 12);
	cr_expect_leq(res.n, 3);
	cr_expect(held_by(cap, &res) - 12 < cap[res.nodes[0]] || res.n == 2,
		  "one node too many: %u nodes hold %u", res.n,
		  held_by(cap, &res));

	/* -N 2 -n 16: only two 8-CPU nodes hold it. */
	z.lo = z.hi = z.first = 2;
	z.need = 16;
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.n, 2);
	for (i = 0; i < res.n; i++)
		cr_expect_geq(nodes[i], 32u, "node %u has 4 CPUs", nodes[i]);

	/* -N 4 -n 40: 4 nodes hold at most 32. */
	z.lo = z.hi = z.first = 4;
	z.need = 40;
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_expect_eq(st, POLICY_NEVER);
	cr_expect(strstr(res.reason, "40 tasks do not fit on 4 nodes"), "%s",
		  res.reason);

	/* -c 2 --ntasks-per-node=3: 6 CPUs a node, only the 8-CPU ones. */
	two_kinds(cap, 2, 3);
	z.lo = 1;
	z.hi = N;
	z.first = 1;
	z.need = 6;
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.n, 2);
	for (i = 0; i < res.n; i++)
		cr_expect_geq(nodes[i], 32u);

	/* --ntasks-per-node=5 -c 2: no node has 10 CPUs. */
	two_kinds(cap, 2, 5);
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_expect_eq(st, POLICY_NEVER);
	cr_expect(strstr(res.reason, "per-node share"), "%s", res.reason);
	tstate_destroy(s);
}

/* -N 2-8 starts on the largest count that places now, as cons_tres does;
 * the smallest when asked for (will-run, test-only). */
Test(adapter, size_range_takes_the_largest_count_that_places)
{
	struct err err = { 0 };
	struct tstate *s = load(good, &err);
	uint32_t owner[N], nodes[N + 1], i;
	struct policy_request req = { .job_id = 99 };
	struct policy_result res = { .nodes = nodes };
	struct tsize_policy c = { .owner = owner };
	struct tsize z = { .lo = 2, .hi = 8, .first = 8 };
	enum policy_status st;
	bool none;

	cr_assert(s, "%s", err.msg);
	c.p = tstate_policy(s, "batch", NULL, &none, &err);
	cr_assert(c.p);
	/* Everything busy but three nodes of the last leaf. */
	for (i = 0; i < N; i++)
		owner[i] = (i >= 60 && i < 63) ? POLICY_FREE : 7;
	st = tsize_place(&z, N, NULL, true, &req, &res, tsize_policy_place, &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.n, 3);
	for (i = 0; i < res.n; i++)
		cr_expect(nodes[i] >= 60 && nodes[i] < 63, "node %u", nodes[i]);
	st = tsize_place(&z, N, NULL, false, &req, &res, tsize_policy_place,
			 &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.n, 2);
	/* The whole machine free: 8 nodes (two whole leaves). */
	for (i = 0; i < N; i++)
		owner[i] = POLICY_FREE;
	st = tsize_place(&z, N, NULL, true, &req, &res, tsize_policy_place, &c);
	cr_assert_eq(st, POLICY_PLACED, "%s", res.reason);
	cr_expect_eq(res.n, 8);
	/* One node free: below the range's 2, the wait of 2 nodes. */
	for (i = 0; i < N; i++)
		owner[i] = (i == 63) ? POLICY_FREE : 7;
	st = tsize_place(&z, N, NULL, true, &req, &res, tsize_policy_place, &c);
	cr_expect_eq(st, POLICY_WAIT, "%s", res.reason);
	cr_expect(res.reason[0]);
	tstate_destroy(s);
}

/* tsize_from_job counts as cons_tres: per node CPUs / cpus-per-task, at
 * most ntasks-per-node (a node short of it holds none), under
 * --mem-per-cpu no more CPUs than its memory; by hand on 4- and 8-CPU
 * nodes of 4000 and 8000 MB. */
Test(adapter, size_from_job_request)
{
	uint32_t cpus[4] = { 4, 4, 8, 8 }, cap[4];
	uint64_t mem[4] = { 4000, 4000, 8000, 8000 };
	struct tsize z;
	struct tjob j = { .num_tasks = 8, .ntasks_per_node = 1 };

	tsize_from_job(&j, 4, cpus, mem, cap, &z);
	cr_expect_eq(z.lo, 1);
	cr_expect_eq(z.hi, 4);
	cr_expect_eq(z.need, 8);
	cr_expect(z.cap == cap && cap[0] == 1 && cap[3] == 1);

	j = (struct tjob){ .num_tasks = 6,
			   .cpus_per_task = 2,
			   .ntasks_per_node = 3 };
	tsize_from_job(&j, 4, cpus, mem, cap, &z);
	cr_expect(cap[0] == 0 && cap[1] == 0 && cap[2] == 3 && cap[3] == 3);

	/* 3000 MB per CPU: 1 CPU on the small nodes, 2 on the big. */
	j = (struct tjob){ .num_tasks = 5, .mem_per_cpu = 3000 };
	tsize_from_job(&j, 4, cpus, mem, cap, &z);
	cr_expect(cap[0] == 1 && cap[2] == 2, "%u %u", cap[0], cap[2]);

	/* CPUs without tasks; -N 2-8 on 4 nodes; overcommit. */
	j = (struct tjob){
		.min_nodes = 2, .max_nodes = 8, .req_nodes = 8, .min_cpus = 12
	};
	tsize_from_job(&j, 4, cpus, mem, cap, &z);
	cr_expect(z.lo == 2 && z.hi == 4 && z.first == 8 && z.need == 12);
	cr_expect_str_eq(z.unit, "CPUs");
	cr_expect(cap[0] == 4 && cap[2] == 8);
	j.overcommit = true;
	tsize_from_job(&j, 4, cpus, mem, cap, &z);
	cr_expect(z.need == 0 && z.cap == NULL);
}
