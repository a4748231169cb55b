/* test_adapter_stress.c - a randomized stress test of the plugin adapter
 * (issue 13): thousands of job arrivals, departures, shrinks, node state
 * changes, reconfigurations and slurmctld restarts, driven the way
 * select_topo.c drives topo_adapter.c, on a fat-tree, a dragonfly and a
 * torus, each with isolating policies, a baseline and a partition
 * without a policy (placed by a stand-in for the wrapped plugin).  After
 * every step:
 *   1. the tracker (tstate_evaluate_tracked of every running job) equals
 *      a one-shot tstate_evaluate of the owner map on a state that never
 *      tracked anything, and both equal MLS/TLS and per-job counts
 *      computed here from link sets enumerated with routing_paths
 *      (each job's link partners too);
 *   2. the owner map and the job list agree (no node twice, every job
 *      exactly its nodes), and the adapter's node mapping is the one the
 *      test built;
 *   3. every job its policy called isolated shares no link with the jobs
 *      that ran when it started, with later isolated jobs and with later
 *      jobs placed under RespectIsolation=yes; tstate_conflicts agrees
 *      with a brute-force check on the link sets;
 *   4. a placement uses only free, up nodes of the job's partition, in
 *      the job's node range, holding its tasks.
 * The seed is printed; STRESS_SEED and STRESS_STEPS (steps per topology)
 * override it and the default step count (6000, 200 under valgrind). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#include "plugin/topo_adapter.h"
#include "tests/unit/fixtures.h"
#include "topo/util/rng.h"

#define DEFAULT_SEED 20260413ull
#define DEFAULT_STEPS 6000
#define VALGRIND_STEPS 200
#define MAXN 128 /* nodes of the largest world */
#define MAXW 8	 /* 64-bit words of a switch-link set */
#define NPARTS 4

enum { P_BATCH, P_WIDE, P_DEBUG, P_OBLIV };
static const char *const part_names[NPARTS] = { "batch", "wide", "debug",
						"obliv" };

/* One machine: two equivalent topo.conf texts (a reconfiguration
 * alternates them) and what the test needs to know independently. */
struct world_def {
	const char *name;
	const char *spec, *routing; /* the topology and routing, canonical */
	const char *node_prefix;    /* node t is PREFIX and t */
	int node_digits;	    /* zero-padded to this width */
	const char *conf[2];
	const char *iso_override; /* an isolating --topo-policy for batch */
	uint32_t small, group;	  /* nodes per switch, per pod / group */
	bool respect;		  /* RespectIsolation=yes */
	bool all_claim;		  /* its isolating policies claim every job */
};

static const struct world_def worlds[] = {
	{ .name = "fattree",
	  .spec = "fattree:k=4,n=3",
	  .routing = "ecmp",
	  .node_prefix = "n",
	  .conf = { "Topology=fattree k=4 n=3\n"
		    "NodeName=n[0-63]\n"
		    "PartitionPolicy=batch:fattree-pods\n"
		    "PartitionPolicy=wide:fattree-pods:large=leaves\n"
		    "PartitionPolicy=debug:clustered:scatter=20\n"
		    "RespectIsolation=yes\n",
		    "# the same machine, written another way\n"
		    "topology=fattree:k=4,n=3\n"
		    "Routing=ecmp\n"
		    "NodeName=n[0-31]\n"
		    "NodeName=n[32-63]\n"
		    "respectisolation=yes\n"
		    "PartitionPolicy=debug:clustered:seed=1,scatter=20\n"
		    "PartitionPolicy=wide:\\\n"
		    "  fattree-pods:large=leaves\n"
		    "PartitionPolicy=batch:fattree-pods:large=pods\n" },
	  .iso_override = "fattree-pods:large=leaves",
	  .small = 4,
	  .group = 16,
	  .respect = true,
	  .all_claim = true },
	{ .name = "dragonfly",
	  .spec = "dragonfly:p=2,a=4,h=2,g=9",
	  .routing = "ugal:intra=local",
	  .node_prefix = "nid",
	  .node_digits = 4,
	  .conf = { "Topology=dragonfly p=2 a=4 h=2 g=9\n"
		    "NodeName=nid[0000-0071]\n"
		    "PartitionPolicy=batch:dragonfly-groups\n"
		    "PartitionPolicy=wide:dragonfly-groups:large=shared\n"
		    "PartitionPolicy=debug:random:seed=3\n",
		    "Topology=dragonfly:p=2,a=4,h=2,g=9 # paper 002\n"
		    "Routing=ugal:intra=local\n"
		    "NodeName=nid[0000-0035],nid[0036-0071]\n"
		    "RespectIsolation=no\n"
		    "PartitionPolicy=debug:random:seed=3\n"
		    "PartitionPolicy=wide:dragonfly-groups:large=shared\n"
		    "PartitionPolicy=batch:dragonfly-groups:large=wait\n" },
	  .iso_override = "dragonfly-groups:large=shared",
	  .small = 2,
	  .group = 8,
	  .respect = false,
	  .all_claim = false },
	{ .name = "dragonfly-min",
	  .spec = "dragonfly:p=2,a=4,h=2,g=9",
	  .routing = "min",
	  .node_prefix = "nid",
	  .node_digits = 4,
	  .conf = { "Topology=dragonfly p=2 a=4 h=2 g=9\n"
		    "Routing=min\n"
		    "NodeName=nid[0000-0071]\n"
		    "PartitionPolicy=batch:dragonfly-groups\n"
		    "PartitionPolicy=wide:dragonfly-groups:large=shared\n"
		    "PartitionPolicy=debug:clustered:scatter=30\n"
		    "RespectIsolation=yes\n",
		    "RespectIsolation=yes\n"
		    "PartitionPolicy=wide:dragonfly-groups:large=shared\n"
		    "PartitionPolicy=debug:clustered:scatter=30\n"
		    "PartitionPolicy=batch:dragonfly-groups:large=wait\n"
		    "NodeName=nid[0000-0071]\n"
		    "Routing=min\n"
		    "Topology=dragonfly:p=2,a=4,h=2,g=9\n" },
	  .iso_override = "dragonfly-groups:large=shared",
	  .small = 2,
	  .group = 8,
	  .respect = true,
	  .all_claim = true },
	{ .name = "fattree-dmodk",
	  .spec = "fattree:k=4,n=3",
	  .routing = "dmodk",
	  .node_prefix = "cn",
	  .node_digits = 2,
	  .conf = { "Topology=fattree k=4 n=3\n"
		    "Routing=dmodk\n"
		    "NodeName=cn[00-63]\n"
		    "PartitionPolicy=batch:fattree-pods:large=leaves\n"
		    "PartitionPolicy=wide:fattree-pods:rule=links\n"
		    "PartitionPolicy=debug:random:seed=11\n",
		    "Topology=fattree k=4 \\\n"
		    "  n=3\n"
		    "Routing=dmodk\n"
		    "NodeName=cn[00-15],cn[16-63]\n"
		    "RespectIsolation=no\n"
		    "PartitionPolicy=batch:fattree-pods:large=leaves\n"
		    "PartitionPolicy=wide:fattree-pods:large=pods,"
		    "rule=links\n"
		    "PartitionPolicy=debug:random:seed=11\n" },
	  .iso_override = "fattree-pods",
	  .small = 4,
	  .group = 16,
	  .respect = false,
	  .all_claim = true },
	{ .name = "torus",
	  .spec = "torus:dims=4x4x2,p=2",
	  .routing = "minimal",
	  .node_prefix = "t",
	  .conf = { "Topology=torus dims=4x4x2 p=2\n"
		    "Routing=minimal\n"
		    "NodeName=t[0-63]\n"
		    "PartitionPolicy=batch:mesh-blocks\n"
		    "PartitionPolicy=wide:mesh-blocks:mode=building-block,"
		    "block=2x2x1\n"
		    "PartitionPolicy=debug:clustered\n"
		    "RespectIsolation=yes\n",
		    "RespectIsolation=yes\n"
		    "PartitionPolicy=debug:clustered:scatter=10\n"
		    "Topology=torus:dims=4x4x2,p=2\n"
		    "NodeName=t[0-15],t[16-63]\n"
		    "Routing=minimal\n"
		    "PartitionPolicy=batch:mesh-blocks:mode=variable\n"
		    "PartitionPolicy=wide:mesh-blocks:mode=building-block,"
		    "block=2x2x1\n" },
	  .iso_override = "mesh-blocks:mode=building-block,block=2x2x1",
	  .small = 2,
	  .group = 16,
	  .respect = true,
	  .all_claim = true },
};

/* A running job as slurmctld records it (and saves across a restart). */
struct job {
	uint32_t id;
	int part;
	char override[48]; /* --topo-policy, "" when none */
	bool isolating;	   /* its policy isolates (protected) */
	bool claimed;	   /* the policy called the placement isolated */
	bool respected;	   /* placed clear of protected links */
	uint64_t seq;	   /* start order */
	uint32_t n;
	uint32_t nodes[MAXN]; /* Slurm node indices, ascending */
	uint64_t links[MAXW]; /* switch links, enumerated here */
};

struct stats {
	uint32_t placed, waited, refused, claimed, departed, shrunk;
	uint32_t node_changes, reconfigs, bad_reconfigs, restarts;
	uint32_t respect_moved, respect_waited, conflict_checks, conflicts;
	uint32_t shared_pairs, sized, max_running;
};

struct world {
	const struct world_def *d;
	uint64_t seed;
	uint32_t step;
	const char *what; /* the step's kind, for messages */
	struct rng g;
	char path[64];
	int conf; /* the text loaded */
	uint32_t n;
	char *names[MAXN];	      /* Slurm's node table */
	uint32_t perm[MAXN];	      /* Slurm index -> topology node */
	struct tstate *s;	      /* under test */
	struct tstate *ref;	      /* never tracks: one-shot evaluations */
	uint32_t owner_s[MAXN];	      /* Slurm index -> job id (saved) */
	uint32_t owner_t[MAXN];	      /* topology node -> job id */
	uint8_t up[MAXN];	      /* Slurm index: not down or drained */
	uint8_t member[NPARTS][MAXN]; /* Slurm index in the partition */
	uint32_t cpus_t[MAXN];	      /* topology node's CPUs */
	uint64_t mem_t[MAXN];	      /* topology node's memory, MB */
	struct job *jobs;	      /* [MAXN] */
	uint32_t njobs, next_id;
	uint64_t seq;
	/* independent link sets: switch links of every ordered node pair */
	struct topo *t;
	struct routing *r;
	uint32_t first, words;
	uint64_t *pair; /* [n * n * words] */
	uint8_t *pair_done;
	struct stats st;
};

/* Fail naming the seed, the step and what differed. */
static void fail(const struct world *w, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cr_assert_fail("%s: seed %llu (STRESS_SEED) step %u (%s): %s",
		       w->d->name, (unsigned long long)w->seed, w->step,
		       w->what, msg);
}

#define CHECK(w, cond, ...)                   \
	do {                                  \
		if (!(cond))                  \
			fail(w, __VA_ARGS__); \
	} while (0)

static uint64_t env_u64(const char *key, uint64_t dflt)
{
	const char *v = getenv(key);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return dflt;
	x = strtoull(v, &end, 0);
	return *end ? dflt : (uint64_t)x;
}

/* ---- independent link sets ---- */

static const uint64_t *pair_links(struct world *w, uint32_t a, uint32_t b)
{
	uint64_t *set = &w->pair[((size_t)a * w->n + b) * w->words];
	struct err err = { 0 };
	struct pathset ps;

	if (w->pair_done[a * w->n + b])
		return set;
	pathset_init(&ps);
	CHECK(w, routing_paths(w->r, a, b, &ps, &err) == 0,
	      "routing_paths %u -> %u: %s", a, b, err.msg);
	for (uint32_t i = 0; i < ps.off[ps.n]; i++) {
		uint32_t l = ps.links[i];

		if (l >= w->first) {
			l -= w->first;
			set[l / 64] |= 1ull << (l % 64);
		}
	}
	pathset_free(&ps);
	w->pair_done[a * w->n + b] = 1;
	return set;
}

/* The switch links of every path between two of NODES[0..N) (topology
 * ids) into SET. */
static void linkset_of(struct world *w, const uint32_t *nodes, uint32_t n,
		       uint64_t *set)
{
	memset(set, 0, sizeof(uint64_t) * MAXW);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			const uint64_t *p;

			if (i == j)
				continue;
			p = pair_links(w, nodes[i], nodes[j]);
			for (uint32_t k = 0; k < w->words; k++)
				set[k] |= p[k];
		}
}

static uint32_t popcount(const uint64_t *a, uint32_t words)
{
	uint32_t c = 0;

	for (uint32_t k = 0; k < words; k++)
		c += (uint32_t)__builtin_popcountll(a[k]);
	return c;
}

static bool overlap(const uint64_t *a, const uint64_t *b, uint32_t words)
{
	for (uint32_t k = 0; k < words; k++)
		if (a[k] & b[k])
			return true;
	return false;
}

/* Topology ids of job J's nodes, ascending. */
static uint32_t job_topo_nodes(const struct world *w, const struct job *j,
			       uint32_t *out)
{
	uint32_t k = 0;

	for (uint32_t t = 0; t < w->n; t++)
		if (w->owner_t[t] == j->id)
			out[k++] = t;
	return k;
}

static void job_links(struct world *w, struct job *j)
{
	uint32_t nodes[MAXN], k = job_topo_nodes(w, j, nodes);

	linkset_of(w, nodes, k, j->links);
}

/* ---- the state under test, built as select_topo.c builds it ---- */

static void write_conf(struct world *w, const char *text)
{
	FILE *f = fopen(w->path, "w");

	cr_assert_not_null(f, "%s", w->path);
	fputs(text, f);
	fclose(f);
}

static struct tstate *load(struct world *w)
{
	struct err err = { 0 };
	struct tstate *s;
	char bare[64];

	write_conf(w, w->d->conf[w->conf]);
	s = tstate_load(w->path, (const char *const *)w->names, NULL, w->n,
			part_names, NPARTS, &err);
	CHECK(w, s, "tstate_load of text %d: %s", w->conf, err.msg);
	CHECK(w, tstate_nodes(s) == w->n, "tstate_nodes %u, want %u",
	      tstate_nodes(s), w->n);
	CHECK(w, !strcmp(routing_spec(tstate_routing(s)), w->d->routing),
	      "routing %s, want %s", routing_spec(tstate_routing(s)),
	      w->d->routing);
	CHECK(w, topo_num_links(tstate_topo(s)) == topo_num_links(w->t),
	      "%u links, want %u", topo_num_links(tstate_topo(s)),
	      topo_num_links(w->t));
	CHECK(w,
	      tstate_unpoliced(s, part_names, NPARTS, bare, sizeof(bare)) ==
			      1 &&
		      !strcmp(bare, "obliv"),
	      "partitions without a policy: %s", bare);
	CHECK(w, tstate_respect_isolation(s) == w->d->respect,
	      "RespectIsolation=%d", tstate_respect_isolation(s));
	for (uint32_t i = 0; i < w->n; i++) {
		CHECK(w, tstate_s2t(s, i) == w->perm[i],
		      "Slurm node %u (%s) maps to %u, want %u", i, w->names[i],
		      tstate_s2t(s, i), w->perm[i]);
		CHECK(w, tstate_t2s(s, w->perm[i]) == i,
		      "topology node %u maps to %u, want %u", w->perm[i],
		      tstate_t2s(s, w->perm[i]), i);
	}
	return s;
}

/* The policy of job J as the plugin finds it (_job_policy). */
static const struct policy *job_policy(struct world *w, const struct job *j)
{
	struct err err = { 0 };
	bool none = false;
	const struct policy *p =
		tstate_policy(w->s, part_names[j->part],
			      j->override[0] ? j->override : NULL, &none, &err);

	CHECK(w, p || none, "policy of job %u: %s", j->id, err.msg);
	return p;
}

/* _protect_locked: RespectIsolation=yes protects an isolating job. */
static void protect(struct world *w, struct job *j)
{
	struct err err = { 0 };
	uint32_t nodes[MAXN], k;
	const struct policy *p;

	if (!tstate_respect_isolation(w->s))
		return;
	p = job_policy(w, j);
	CHECK(w, (p && policy_isolating(p)) == j->isolating,
	      "job %u: isolating %d after a reload, was %d", j->id,
	      p && policy_isolating(p), j->isolating);
	if (!j->isolating)
		return;
	k = job_topo_nodes(w, j, nodes);
	CHECK(w, tstate_protect(w->s, j->id, nodes, k, &err) == 0,
	      "tstate_protect job %u: %s", j->id, err.msg);
}

/* owner_t from the saved map, the tracker reset and the isolated jobs
 * protected again (_rebuild_owner_locked after a load). */
static void rebuild_tracking(struct world *w)
{
	struct err err = { 0 };

	memset(w->owner_t, 0, sizeof(w->owner_t));
	for (uint32_t i = 0; i < w->n; i++)
		w->owner_t[tstate_s2t(w->s, i)] = w->owner_s[i];
	CHECK(w, tstate_track_reset(w->s, w->owner_t, &err) == 0,
	      "tstate_track_reset: %s", err.msg);
	for (uint32_t k = 0; k < w->njobs; k++)
		protect(w, &w->jobs[k]);
}

/* ---- placements ---- */

/* The nodes a placement of partition PART may use, topology ids: Slurm
 * offers the free, up nodes of the partition; the isolating path also
 * shows the policy the busy nodes (_run_now). */
static void usable_for(const struct world *w, int part, bool busy_too,
		       uint8_t *usable)
{
	for (uint32_t i = 0; i < w->n; i++) {
		uint32_t t = w->perm[i];

		usable[t] = w->member[part][i] && w->up[i] &&
			    (busy_too || !w->owner_s[i]);
		if (busy_too && w->owner_s[i])
			usable[t] = 1;
	}
}

/* A job size: mostly a node count (sometimes a range), sometimes tasks
 * and CPUs through tsize_from_job. */
static void pick_size(struct world *w, struct tsize *z, uint32_t *cap)
{
	uint32_t cls = (uint32_t)rng_below(&w->g, 5), maxs, size;

	maxs = cls == 0 ? w->d->small :
	       cls == 1 ? 2 * w->d->small :
	       cls == 2 ? w->d->group :
	       cls == 3 ? w->d->group / 2 :
			  w->n / 3;
	size = 1 + (uint32_t)rng_below(&w->g, maxs);
	if (cls == 3)
		size += w->d->group;
	if (size > w->n)
		size = w->n;
	memset(z, 0, sizeof(*z));
	z->lo = z->hi = z->first = size;
	switch (rng_below(&w->g, 6)) {
	case 0: { /* -N lo-hi: the largest count that places */
		z->lo = 1 + (uint32_t)rng_below(&w->g, size);
		z->first = z->hi = size;
		break;
	}
	case 1: { /* tasks and CPUs */
		struct tjob j = { 0 };

		j.num_tasks = 1 + (uint32_t)rng_below(&w->g, 4 * size);
		j.cpus_per_task = rng_below(&w->g, 2) ?
					  1 + (uint32_t)rng_below(&w->g, 4) :
					  0;
		j.ntasks_per_node = rng_below(&w->g, 3) ?
					    0 :
					    1 + (uint32_t)rng_below(&w->g, 4);
		j.mem_per_cpu = rng_below(&w->g, 3) ? 0 : 1024;
		j.min_nodes = rng_below(&w->g, 2) ? 0 : size / 2;
		j.max_nodes = rng_below(&w->g, 2) ? 0 : size + 2;
		if (j.max_nodes && j.max_nodes < j.min_nodes)
			j.max_nodes = j.min_nodes;
		tsize_from_job(&j, w->n, w->cpus_t,
			       rng_below(&w->g, 2) ? w->mem_t : NULL, cap, z);
		CHECK(w, z->lo >= 1 && z->lo <= z->hi && z->hi <= w->n,
		      "tsize_from_job: range %u-%u of %u nodes", z->lo, z->hi,
		      w->n);
		CHECK(w, !z->need || z->cap == cap,
		      "tsize_from_job: need %u without its capacities",
		      z->need);
		w->st.sized++;
		break;
	}
	default:
		break;
	}
}

/* Brute-force conflict of NODES[0..N) (topology ids) with the protected
 * jobs, checked against tstate_conflicts. */
static bool conflicts(struct world *w, const uint32_t *nodes, uint32_t n)
{
	struct err err = { 0 };
	uint64_t set[MAXW], prot[MAXW] = { 0 };
	bool want = false;
	int got;

	if (tstate_respect_isolation(w->s)) {
		for (uint32_t k = 0; k < w->njobs; k++)
			if (w->jobs[k].isolating)
				for (uint32_t x = 0; x < w->words; x++)
					prot[x] |= w->jobs[k].links[x];
		linkset_of(w, nodes, n, set);
		want = overlap(set, prot, w->words);
	}
	got = tstate_conflicts(w->s, nodes, n, &err);
	CHECK(w, got >= 0, "tstate_conflicts: %s", err.msg);
	CHECK(w, (got > 0) == want,
	      "tstate_conflicts of %u nodes (first %u) says %d, the link "
	      "sets say %d",
	      n, n ? nodes[0] : 0, got, want);
	w->st.conflict_checks++;
	w->st.conflicts += want;
	return want;
}

static void expect_placement(struct world *w, const struct tsize *z, int part,
			     const struct policy_request *req,
			     const struct policy_result *res)
{
	uint64_t held = 0;

	CHECK(w, res->n == req->nodes, "placed %u nodes, request says %u",
	      res->n, req->nodes);
	CHECK(w, res->n >= z->lo && res->n <= z->hi,
	      "placed %u nodes outside %u-%u", res->n, z->lo, z->hi);
	for (uint32_t i = 0; i < res->n; i++) {
		uint32_t t = res->nodes[i], s;

		CHECK(w, t < w->n, "placed node %u of %u", t, w->n);
		CHECK(w, !i || res->nodes[i - 1] < t,
		      "placed nodes not ascending at %u", t);
		s = tstate_t2s(w->s, t);
		CHECK(w, !w->owner_s[s], "placed on node %u of job %u", t,
		      w->owner_s[s]);
		CHECK(w, w->up[s], "placed on down node %u (%s)", t,
		      w->names[s]);
		CHECK(w, w->member[part][s], "placed on node %u outside %s", t,
		      part_names[part]);
		if (z->need)
			held += z->cap[t];
	}
	CHECK(w, held >= z->need, "placed nodes hold %llu %s of %u",
	      (unsigned long long)held, z->unit ? z->unit : "?", z->need);
}

/* tstate_expand_units at level 1 checked against the groups of the
 * switches. */
static void expand_groups(struct world *w, const uint32_t *nodes, uint32_t n,
			  uint8_t *out)
{
	const struct topo *t = tstate_topo(w->s);
	uint32_t ng = topo_num_groups(t);
	uint8_t in[MAXN] = { 0 }, grp[MAXN * 4] = { 0 };

	cr_assert_leq(ng, MAXN * 4);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g =
			topo_switch_group(t, topo_node_switch(t, nodes[i]));

		in[nodes[i]] = 1;
		if (g < ng)
			grp[g] = 1;
	}
	CHECK(w, tstate_expand_units(w->s, NULL, nodes, n, 1, out) <= w->n,
	      "tstate_expand_units count");
	for (uint32_t v = 0; v < w->n; v++) {
		uint32_t g = topo_switch_group(t, topo_node_switch(t, v));
		bool want = in[v] || (g < ng && grp[g]);

		CHECK(w, !out[v] == !want,
		      "tstate_expand_units: node %u %d, want %d", v, out[v],
		      want);
	}
}

/* _run_now_respecting with a policy standing in for the wrapped plugin:
 * its choice when clear of protected links, else away from the
 * isolated jobs' groups, else without the nodes that bring a shared
 * link in.  Returns whether RES holds a clear placement. */
static bool place_respecting(struct world *w, const struct tsize *z,
			     uint8_t *usable, struct policy_request *req,
			     struct policy_result *res, struct tsize_policy *c)
{
	uint32_t iso[MAXN], niso = 0, clear[MAXN];
	uint8_t away[MAXN], groups[MAXN];

	if (!conflicts(w, res->nodes, res->n))
		return true;
	for (uint32_t k = 0; k < w->njobs; k++)
		if (w->jobs[k].isolating)
			niso += job_topo_nodes(w, &w->jobs[k], iso + niso);
	expand_groups(w, iso, niso, groups);
	for (uint32_t t = 0; t < w->n; t++)
		away[t] = usable[t] && !groups[t];
	if (tsize_place(z, w->n, away, false, req, res, tsize_policy_place,
			c) == POLICY_PLACED &&
	    !conflicts(w, res->nodes, res->n)) {
		w->st.respect_moved++;
		return true;
	}
	for (uint32_t attempt = 0; attempt < 4; attempt++) {
		uint32_t nclear = 0, bad = 0;

		if (tsize_place(z, w->n, usable, false, req, res,
				tsize_policy_place, c) != POLICY_PLACED)
			return false;
		if (!conflicts(w, res->nodes, res->n)) {
			w->st.respect_moved++;
			return true;
		}
		for (uint32_t i = 0; i < res->n; i++) {
			clear[nclear] = res->nodes[i];
			if (conflicts(w, clear, nclear + 1)) {
				usable[res->nodes[i]] = 0;
				bad++;
			} else {
				nclear++;
			}
		}
		if (!bad)
			return false;
	}
	return false;
}

/* A job arrives in a random partition: placed by the policy (isolating)
 * or by a stand-in for the wrapped plugin, then begun as job_begin does
 * it (track_add, evaluate_tracked, protect). */
static void arrival(struct world *w)
{
	static const int parts_by_weight[] = { P_BATCH, P_BATCH, P_BATCH,
					       P_WIDE,	P_WIDE,	 P_DEBUG,
					       P_DEBUG, P_OBLIV, P_OBLIV };
	struct err err = { 0 };
	struct job *j = &w->jobs[w->njobs];
	struct policy_request req = { 0 };
	struct policy_result res = { 0 };
	struct tsize_policy c = { 0 };
	uint32_t cap[MAXN], nodes[MAXN];
	uint8_t usable[MAXN];
	const struct policy *p;
	bool none = false, bad_override = false;
	struct tsize z;
	uint32_t roll = (uint32_t)rng_below(&w->g, 20);
	enum policy_status st;
	struct teval ev;

	memset(j, 0, sizeof(*j));
	j->id = w->next_id++;
	j->part = parts_by_weight[rng_below(&w->g, sizeof(parts_by_weight) /
							   sizeof(int))];
	if ((j->part == P_BATCH || j->part == P_WIDE) && roll < 3) {
		snprintf(j->override, sizeof(j->override), "%s",
			 w->d->iso_override);
	} else if (roll < 6) {
		/* a baseline: refused where the partition isolates; 80
		 * seeds overflow the adapter's policy cache */
		uint32_t kind = (uint32_t)rng_below(&w->g, 3);

		if (kind == 2)
			snprintf(j->override, sizeof(j->override),
				 "random:seed=%u",
				 (unsigned)rng_below(&w->g, 80));
		else
			snprintf(j->override, sizeof(j->override), "%s",
				 kind ? "clustered" : "linear");
		bad_override = j->part == P_BATCH || j->part == P_WIDE;
	}
	p = tstate_policy(w->s, part_names[j->part],
			  j->override[0] ? j->override : NULL, &none, &err);
	if (bad_override) {
		CHECK(w, !p && !none && strstr(err.msg, "requires isolation"),
		      "--topo-policy=%s in %s: %s", j->override,
		      part_names[j->part], p ? "accepted" : err.msg);
		w->st.refused++;
		return;
	}
	CHECK(w, p || none, "policy of %s / %s: %s", part_names[j->part],
	      j->override, err.msg);
	CHECK(w, none == (!p && j->part == P_OBLIV),
	      "partition %s has policy %s", part_names[j->part],
	      p ? policy_spec(p) : "none");
	j->isolating = p && policy_isolating(p);
	CHECK(w, j->isolating == (j->part == P_BATCH || j->part == P_WIDE),
	      "partition %s policy %s isolating %d", part_names[j->part],
	      p ? policy_spec(p) : "none", j->isolating);
	if (!p) {
		/* the wrapped plugin: any free node of the partition */
		p = tstate_policy(w->s, part_names[j->part], "linear", &none,
				  &err);
		CHECK(w, p, "stand-in policy: %s", err.msg);
	}
	pick_size(w, &z, cap);
	usable_for(w, j->part, j->isolating, usable);
	res.nodes = nodes;
	req.job_id = j->id;
	/* the wrapped plugin sometimes refuses the best candidate */
	req.attempt = rng_below(&w->g, 8) ? 0 : 1;
	c.p = p;
	c.owner = w->owner_t;
	st = tsize_place(&z, w->n, usable, j->isolating, &req, &res,
			 tsize_policy_place, &c);
	if (st != POLICY_PLACED) {
		CHECK(w, res.reason[0],
		      "%s job of %u-%u nodes: status %d "
		      "without a reason",
		      policy_spec(p), z.lo, z.hi, st);
		w->st.waited++;
		return;
	}
	if (!j->isolating && tstate_respect_isolation(w->s)) {
		j->respected = true;
		if (!place_respecting(w, &z, usable, &req, &res, &c)) {
			w->st.respect_waited++;
			return;
		}
	}
	expect_placement(w, &z, j->part, &req, &res);
	linkset_of(w, res.nodes, res.n, j->links);
	j->claimed = j->isolating && res.isolated;
	if (j->isolating && w->d->all_claim)
		CHECK(w, res.isolated,
		      "%s did not call a job of %u nodes "
		      "isolated",
		      policy_spec(p), res.n);
	if (!j->isolating)
		CHECK(w, !res.isolated, "baseline %s claims isolation",
		      policy_spec(p));
	if (j->claimed)
		for (uint32_t k = 0; k < w->njobs; k++)
			CHECK(w, !overlap(j->links, w->jobs[k].links, w->words),
			      "job %u (%s, %u nodes from %u) called isolated "
			      "shares a link with running job %u",
			      j->id, policy_spec(p), res.n, res.nodes[0],
			      w->jobs[k].id);
	/* job_begin */
	j->n = 0;
	for (uint32_t i = 0; i < res.n; i++) {
		uint32_t s = tstate_t2s(w->s, res.nodes[i]);

		w->owner_s[s] = j->id;
		w->owner_t[res.nodes[i]] = j->id;
	}
	for (uint32_t s = 0; s < w->n; s++)
		if (w->owner_s[s] == j->id)
			j->nodes[j->n++] = s;
	j->seq = w->seq++;
	w->njobs++;
	CHECK(w, tstate_track_add(w->s, j->id, res.nodes, res.n, &err) == 0,
	      "tstate_track_add job %u: %s", j->id, err.msg);
	CHECK(w,
	      tstate_evaluate_tracked(w->s, j->id, res.nodes, res.n, NULL, 0,
				      &ev, &err) == 0,
	      "tstate_evaluate_tracked job %u: %s", j->id, err.msg);
	protect(w, j);
	w->st.placed++;
	w->st.claimed += j->claimed;
	if (w->njobs > w->st.max_running)
		w->st.max_running = w->njobs;
}

static void drop_job(struct world *w, uint32_t k)
{
	w->jobs[k] = w->jobs[w->njobs - 1];
	w->njobs--;
}

/* job_fini: by id, then out of both trackers. */
static void departure(struct world *w)
{
	uint32_t k = (uint32_t)rng_below(&w->g, w->njobs), id = w->jobs[k].id;

	for (uint32_t i = 0; i < w->n; i++) {
		if (w->owner_s[i] == id)
			w->owner_s[i] = 0;
		if (w->owner_t[i] == id)
			w->owner_t[i] = 0;
	}
	tstate_track_remove(w->s, id);
	drop_job(w, k);
	w->st.departed++;
}

/* job_resized: a job gives a node back; tracked and protected again. */
static void shrink(struct world *w)
{
	struct err err = { 0 };
	uint32_t k = (uint32_t)rng_below(&w->g, w->njobs), x, s, nodes[MAXN];
	struct job *j = &w->jobs[k];

	if (j->n < 2)
		return;
	x = (uint32_t)rng_below(&w->g, j->n);
	s = j->nodes[x];
	w->owner_s[s] = 0;
	w->owner_t[tstate_s2t(w->s, s)] = 0;
	memmove(&j->nodes[x], &j->nodes[x + 1],
		sizeof(uint32_t) * (j->n - x - 1));
	j->n--;
	job_links(w, j);
	x = job_topo_nodes(w, j, nodes);
	CHECK(w, tstate_track_add(w->s, j->id, nodes, x, &err) == 0,
	      "tstate_track_add after shrinking job %u: %s", j->id, err.msg);
	protect(w, j);
	w->st.shrunk++;
}

/* A node goes down or is drained, or comes back: later placements see
 * it; the jobs on it keep it. */
static void node_change(struct world *w)
{
	uint32_t i = (uint32_t)rng_below(&w->g, w->n), down = 0;

	for (uint32_t k = 0; k < w->n; k++)
		down += !w->up[k];
	if (down > w->n / 8)
		while (w->up[i])
			i = (i + 1) % w->n;
	w->up[i] = !w->up[i];
	w->st.node_changes++;
}

/* What the isolating partitions would place now (a probe that must not
 * change across a reload or restart: the policies are stateless). */
struct probe {
	enum policy_status st[2];
	uint32_t n[2], nodes[2][MAXN];
};

static void probe(struct world *w, struct probe *pr)
{
	for (int k = 0; k < 2; k++) {
		struct err err = { 0 };
		struct policy_request req = { .job_id = 999999 };
		struct policy_result res = { .nodes = pr->nodes[k] };
		uint8_t usable[MAXN];
		bool none;
		const struct policy *p =
			tstate_policy(w->s, part_names[k], NULL, &none, &err);
		struct tsize_policy c = { .p = p, .owner = w->owner_t };
		struct tsize z = { .lo = 1, .hi = w->d->group, .first = 0 };

		CHECK(w, p, "%s: %s", part_names[k], err.msg);
		z.first = k ? w->d->group : w->d->small + 1;
		usable_for(w, k, true, usable);
		pr->st[k] = tsize_place(&z, w->n, usable, true, &req, &res,
					tsize_policy_place, &c);
		pr->n[k] = pr->st[k] == POLICY_PLACED ? res.n : 0;
	}
}

static void same_probe(struct world *w, const struct probe *a,
		       const struct probe *b)
{
	for (int k = 0; k < 2; k++) {
		CHECK(w, a->st[k] == b->st[k] && a->n[k] == b->n[k],
		      "%s places %d/%u nodes, %d/%u before", part_names[k],
		      b->st[k], b->n[k], a->st[k], a->n[k]);
		CHECK(w,
		      !memcmp(a->nodes[k], b->nodes[k],
			      sizeof(uint32_t) * a->n[k]),
		      "%s places other nodes than before", part_names[k]);
	}
}

/* scontrol reconfigure: a broken file keeps the old state; a good one
 * (the other text) replaces it and tracking is rebuilt. */
static void reconfigure(struct world *w)
{
	struct err err = { 0 };
	struct probe before, after;
	struct tstate *s;

	probe(w, &before);
	if (!rng_below(&w->g, 4)) {
		write_conf(w, "Topology=fattree k=4 n=3\n"
			      "PartitionPolicy=nosuch:linear\n");
		s = tstate_load(w->path, (const char *const *)w->names, NULL,
				w->n, part_names, NPARTS, &err);
		CHECK(w, !s && err.msg[0], "a broken topo.conf loaded");
		w->st.bad_reconfigs++;
	}
	w->conf = !w->conf;
	s = load(w);
	tstate_destroy(w->s);
	w->s = s;
	/* the one-shot side too: a state of the new text */
	tstate_destroy(w->ref);
	w->ref = load(w);
	rebuild_tracking(w);
	probe(w, &after);
	same_probe(w, &before, &after);
	w->st.reconfigs++;
}

/* slurmctld restarts: everything is rebuilt from the saved job records
 * (their ids, partitions, --topo-policy and node bitmaps). */
static void restart(struct world *w)
{
	struct probe before, after;

	probe(w, &before);
	tstate_destroy(w->s);
	tstate_destroy(w->ref);
	tstate_predictor_stop();
	w->s = w->ref = NULL;
	memset(w->owner_t, 0, sizeof(w->owner_t));
	for (uint32_t k = 0; k < w->njobs; k++) {
		struct job *j = &w->jobs[k];
		uint32_t n = 0;

		for (uint32_t i = 0; i < w->n; i++)
			if (w->owner_s[i] == j->id) {
				CHECK(w, n < j->n && j->nodes[n] == i,
				      "saved map gives job %u node %u", j->id,
				      i);
				n++;
			}
		CHECK(w, n == j->n, "saved map gives job %u %u nodes of %u",
		      j->id, n, j->n);
	}
	w->s = load(w);
	w->ref = load(w);
	rebuild_tracking(w);
	probe(w, &after);
	same_probe(w, &before, &after);
	w->st.restarts++;
}

/* ---- the checks after every step ---- */

static void check_owners(struct world *w)
{
	uint32_t owned = 0, sum = 0;

	for (uint32_t i = 0; i < w->n; i++) {
		owned += w->owner_s[i] != 0;
		CHECK(w, w->owner_t[tstate_s2t(w->s, i)] == w->owner_s[i],
		      "node %u: owner %u in topology order, %u saved", i,
		      w->owner_t[tstate_s2t(w->s, i)], w->owner_s[i]);
	}
	for (uint32_t k = 0; k < w->njobs; k++) {
		const struct job *j = &w->jobs[k];
		uint32_t n = 0;

		CHECK(w, j->n >= 1, "job %u has no node", j->id);
		for (uint32_t x = 0; x < j->n; x++)
			CHECK(w, w->owner_s[j->nodes[x]] == j->id,
			      "job %u's node %u is owned by %u", j->id,
			      j->nodes[x], w->owner_s[j->nodes[x]]);
		for (uint32_t i = 0; i < w->n; i++)
			n += w->owner_s[i] == j->id;
		CHECK(w, n == j->n, "job %u owns %u nodes, has %u", j->id, n,
		      j->n);
		for (uint32_t m = k + 1; m < w->njobs; m++)
			CHECK(w, w->jobs[m].id != j->id, "job %u twice", j->id);
		sum += j->n;
	}
	CHECK(w, owned == sum, "%u nodes owned, jobs hold %u", owned, sum);
}

static bool close_to(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

/* Tracker, one-shot and the link sets enumerated here agree. */
/* The jobs whose enumerated link sets meet job K's, ids ascending into
 * IDS; returns their number. */
static uint32_t enum_partners(const struct world *w, uint32_t k, uint32_t *ids)
{
	uint32_t n = 0;

	for (uint32_t m = 0; m < w->njobs; m++) {
		bool meet = false;

		for (uint32_t q = 0; q < w->words && m != k && !meet; q++)
			meet = (w->jobs[k].links[q] & w->jobs[m].links[q]) != 0;
		if (meet) {
			uint32_t at = n++;

			for (; at && ids[at - 1] > w->jobs[m].id; at--)
				ids[at] = ids[at - 1];
			ids[at] = w->jobs[m].id;
		}
	}
	return n;
}

/* Job K's link partners: tracked and one-shot as enumerated. */
static void check_partners(struct world *w, uint32_t k, const struct teval *inc,
			   const struct teval *one)
{
	uint32_t ids[MAXN], n = enum_partners(w, k, ids);

	CHECK(w, inc->job_nshares == n && one->job_nshares == n,
	      "job %u partners: tracked %u, one-shot %u, enumerated %u",
	      w->jobs[k].id, inc->job_nshares, one->job_nshares, n);
	for (uint32_t q = 0; q < n && q < TEVAL_PARTNERS; q++)
		CHECK(w,
		      inc->partners[q] == ids[q] && one->partners[q] == ids[q],
		      "job %u partner %u: tracked %u, one-shot %u, "
		      "enumerated %u",
		      w->jobs[k].id, q, inc->partners[q], one->partners[q],
		      ids[q]);
}

static void check_sharing(struct world *w)
{
	uint16_t use[MAXW * 64] = { 0 };
	uint32_t used = 0, shared = 0;
	double mls = 0, tls;

	for (uint32_t k = 0; k < w->njobs; k++)
		for (uint32_t l = 0; l < w->words * 64; l++)
			use[l] += (w->jobs[k].links[l / 64] >> (l % 64)) & 1;
	for (uint32_t l = 0; l < w->words * 64; l++) {
		used += use[l] > 0;
		shared += use[l] > 1;
	}
	tls = used ? (double)shared / used * 100.0 : 0.0;
	for (uint32_t k = 0; k < w->njobs; k++) {
		const struct job *j = &w->jobs[k];
		uint32_t links = popcount(j->links, w->words), jshared = 0;

		for (uint32_t l = 0; l < w->words * 64; l++)
			jshared += ((j->links[l / 64] >> (l % 64)) & 1) &&
				   use[l] > 1;
		if (links && (double)jshared / links * 100.0 > mls)
			mls = (double)jshared / links * 100.0;
	}
	for (uint32_t k = 0; k < w->njobs; k++) {
		const struct job *j = &w->jobs[k];
		struct err err = { 0 };
		uint32_t nodes[MAXN], n = job_topo_nodes(w, j, nodes);
		uint32_t links = popcount(j->links, w->words), jshared = 0;
		struct teval inc, one;

		for (uint32_t l = 0; l < w->words * 64; l++)
			jshared += ((j->links[l / 64] >> (l % 64)) & 1) &&
				   use[l] > 1;
		CHECK(w,
		      tstate_evaluate_tracked(w->s, j->id, nodes, n, NULL, 0,
					      &inc, &err) == 0,
		      "tstate_evaluate_tracked job %u: %s", j->id, err.msg);
		CHECK(w,
		      tstate_evaluate(w->ref, w->owner_t, j->id, nodes, n, NULL,
				      0, &one, &err) == 0,
		      "tstate_evaluate job %u: %s", j->id, err.msg);
		CHECK(w, inc.njobs == w->njobs && one.njobs == w->njobs,
		      "running jobs: tracked %u, one-shot %u, %u", inc.njobs,
		      one.njobs, w->njobs);
		CHECK(w, inc.job_links == links && one.job_links == links,
		      "job %u links: tracked %u, one-shot %u, enumerated %u",
		      j->id, inc.job_links, one.job_links, links);
		CHECK(w, inc.job_shared == jshared && one.job_shared == jshared,
		      "job %u shared links: tracked %u, one-shot %u, "
		      "enumerated %u",
		      j->id, inc.job_shared, one.job_shared, jshared);
		CHECK(w, close_to(inc.mls, mls) && close_to(one.mls, mls),
		      "MLS: tracked %.17g, one-shot %.17g, enumerated %.17g",
		      inc.mls, one.mls, mls);
		CHECK(w, close_to(inc.tls, tls) && close_to(one.tls, tls),
		      "TLS: tracked %.17g, one-shot %.17g, enumerated %.17g",
		      inc.tls, one.tls, tls);
		CHECK(w, !inc.modelled && !one.modelled,
		      "modelled above the size cap");
		check_partners(w, k, &inc, &one);
	}
}

/* Claimed isolation holds: against the jobs running when the job
 * started, later isolated jobs and later jobs that kept off protected
 * links.  Only later jobs placed without regard to links may share. */
static void check_isolation(struct world *w)
{
	for (uint32_t a = 0; a < w->njobs; a++) {
		const struct job *A = &w->jobs[a];

		for (uint32_t b = 0; b < w->njobs; b++) {
			const struct job *B = &w->jobs[b];
			bool ov;

			if (a == b)
				continue;
			ov = overlap(A->links, B->links, w->words);
			w->st.shared_pairs += ov && a < b;
			if (!A->claimed || !ov)
				continue;
			CHECK(w, !(B->seq < A->seq || B->claimed),
			      "job %u (%s, isolated) shares a link with job "
			      "%u (%s, %s)",
			      A->id, part_names[A->part], B->id,
			      part_names[B->part],
			      B->seq < A->seq ? "running before" : "isolated");
			CHECK(w, !(B->respected && A->isolating),
			      "job %u (%s, %s) started under "
			      "RespectIsolation=yes shares a link with "
			      "isolated job %u",
			      B->id, part_names[B->part], B->override, A->id);
		}
	}
}

/* Random node sets: tstate_conflicts against the brute force. */
static void check_conflicts(struct world *w)
{
	for (int k = 0; k < 2; k++) {
		uint32_t nodes[8], n = 2 + (uint32_t)rng_below(&w->g, 7);

		for (uint32_t i = 0; i < n; i++) {
			uint32_t v;
			bool dup;

			do { /* distinct nodes, as a job has */
				v = (uint32_t)rng_below(&w->g, w->n);
				dup = false;
				for (uint32_t x = 0; x < i; x++)
					dup |= nodes[x] == v;
			} while (dup);
			nodes[i] = v;
		}
		conflicts(w, nodes, n);
	}
	if (w->njobs) {
		const struct job *j = &w->jobs[rng_below(&w->g, w->njobs)];
		uint32_t nodes[MAXN], n = job_topo_nodes(w, j, nodes);

		conflicts(w, nodes, n);
	}
}

/* ---- the run ---- */

static void open_world(struct world *w, const struct world_def *d,
		       uint64_t seed)
{
	uint32_t L;
	int fd;

	memset(w, 0, sizeof(*w));
	w->d = d;
	w->seed = seed;
	w->what = "setup";
	w->next_id = 1000;
	rng_seed(&w->g, seed);
	w->t = fx_topo(d->spec);
	w->r = fx_routing(w->t, d->routing);
	cr_assert_str_eq(routing_spec(w->r), d->routing);
	w->n = topo_num_nodes(w->t);
	cr_assert_leq(w->n, MAXN);
	w->first = topo_first_switch_link(w->t);
	L = topo_num_links(w->t);
	w->words = (L - w->first + 63) / 64;
	cr_assert_leq(w->words, MAXW);
	w->pair = calloc((size_t)w->n * w->n * w->words, sizeof(uint64_t));
	w->pair_done = calloc((size_t)w->n * w->n, 1);
	w->jobs = calloc(MAXN + 1, sizeof(*w->jobs));
	cr_assert(w->pair && w->pair_done && w->jobs);
	/* Slurm's node table in another order than the topology's */
	for (uint32_t i = 0; i < w->n; i++)
		w->perm[i] = i;
	for (uint32_t i = w->n - 1; i > 0; i--) {
		uint32_t k = (uint32_t)rng_below(&w->g, i + 1), x = w->perm[i];

		w->perm[i] = w->perm[k];
		w->perm[k] = x;
	}
	for (uint32_t i = 0; i < w->n; i++) {
		w->names[i] = malloc(16);
		cr_assert_not_null(w->names[i]);
		snprintf(w->names[i], 16, "%s%0*u", d->node_prefix,
			 d->node_digits, w->perm[i]);
		w->up[i] = 1;
		w->member[P_BATCH][i] = w->member[P_WIDE][i] = 1;
		w->member[P_OBLIV][i] = 1;
		w->member[P_DEBUG][i] = i < w->n / 2;
		w->cpus_t[w->perm[i]] = 4u << rng_below(&w->g, 3);
		w->mem_t[w->perm[i]] = 1024u << rng_below(&w->g, 5);
	}
	strcpy(w->path, "/tmp/test_adapter_stress.XXXXXX");
	fd = mkstemp(w->path);
	cr_assert(fd >= 0);
	close(fd);
	w->s = load(w);
	w->ref = load(w);
	rebuild_tracking(w);
}

static void close_world(struct world *w)
{
	tstate_destroy(w->s);
	tstate_destroy(w->ref);
	tstate_predictor_stop();
	unlink(w->path);
	for (uint32_t i = 0; i < w->n; i++)
		free(w->names[i]);
	free(w->pair);
	free(w->pair_done);
	free(w->jobs);
	routing_destroy(w->r);
	topo_destroy(w->t);
}

static void run(const struct world_def *d)
{
	uint64_t seed = env_u64("STRESS_SEED", DEFAULT_SEED);
	uint32_t steps = (uint32_t)env_u64(
		"STRESS_STEPS",
		RUNNING_ON_VALGRIND ? VALGRIND_STEPS : DEFAULT_STEPS);
	struct world *w = malloc(sizeof(*w));

	cr_assert_not_null(w);
	fprintf(stderr,
		"test_adapter_stress: %s: seed %llu (STRESS_SEED), %u steps "
		"(STRESS_STEPS)\n",
		d->name, (unsigned long long)seed, steps);
	open_world(w, d, seed);
	for (w->step = 0; w->step < steps; w->step++) {
		uint32_t roll = (uint32_t)rng_below(&w->g, 100);

		if (roll < 45 || !w->njobs) {
			w->what = "arrival";
			arrival(w);
		} else if (roll < 75) {
			w->what = "departure";
			departure(w);
		} else if (roll < 80) {
			w->what = "shrink";
			shrink(w);
		} else if (roll < 92) {
			w->what = "node state";
			node_change(w);
		} else if (roll < 97) {
			w->what = "reconfigure";
			reconfigure(w);
		} else {
			w->what = "restart";
			restart(w);
		}
		check_owners(w);
		check_sharing(w);
		check_isolation(w);
		check_conflicts(w);
	}
	fprintf(stderr,
		"test_adapter_stress: %s: %u placed (%u isolated, %u sized "
		"from tasks, at most %u running), %u waited, %u refused, "
		"%u ended, %u shrunk, %u node changes, %u reconfigures "
		"(%u broken), %u restarts, %u moved and %u waiting for "
		"RespectIsolation, %u/%u conflicts, %u sharing pairs\n",
		d->name, w->st.placed, w->st.claimed, w->st.sized,
		w->st.max_running, w->st.waited, w->st.refused, w->st.departed,
		w->st.shrunk, w->st.node_changes, w->st.reconfigs,
		w->st.bad_reconfigs, w->st.restarts, w->st.respect_moved,
		w->st.respect_waited, w->st.conflicts, w->st.conflict_checks,
		w->st.shared_pairs);
	/* the sequence exercised what it checks */
	if (steps >= 200) {
		cr_expect_gt(w->st.claimed, steps / 50, "%s", d->name);
		cr_expect_gt(w->st.shared_pairs, 0,
			     "%s: no job ever shared a link", d->name);
		cr_expect_gt(w->st.restarts, 0, "%s", d->name);
		cr_expect_gt(w->st.reconfigs, 0, "%s", d->name);
		if (d->respect)
			cr_expect_gt(w->st.conflicts, 0, "%s", d->name);
	}
	close_world(w);
	free(w);
}

TestSuite(stress, .timeout = 600);

Test(stress, fattree)
{
	run(&worlds[0]);
}

Test(stress, dragonfly)
{
	run(&worlds[1]);
}

Test(stress, dragonfly_min)
{
	run(&worlds[2]);
}

Test(stress, fattree_dmodk)
{
	run(&worlds[3]);
}

Test(stress, torus)
{
	run(&worlds[4]);
}
