/* fuzz_adapter.c - the plugin adapter's request path (plugin/
 * topo_adapter.c, what select_topo.c does for a job test and a job start)
 * on one of three fixed topo.conf machines: a random ownership map
 * (owner[] per node, 0 free), a job's size from random Slurm numbers
 * (tsize_from_job), the partition's or a --topo-policy policy
 * (tstate_policy), the placement (tsize_place) and, when placed, the link
 * sharing (tstate_track_*, tstate_evaluate*, tstate_protect,
 * tstate_conflicts) and the units around the nodes.
 *
 * Input: a header (machine and flags, partition, the job's numbers), two
 * bytes per node (owner and usable; CPUs and memory), then the lines of
 * --topo-policy and --topo-pattern (empty: none).
 *
 * Checked: the size is a node range 1 <= lo <= hi; a placement holds
 * between lo and hi distinct ascending nodes, usable and free, holding the
 * job's tasks; the incremental link sharing (tracked) equals the one-shot
 * computation, and removing the job restores it; tstate_conflicts agrees
 * with the routing's link sets of the protected jobs; the leaf switches
 * and units contain the nodes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plugin/topo_adapter.h"
#include "tests/fuzz/fuzz.h"

#define MAX_INPUT 4096
#define JOB 100u /* the request's job id; running jobs are 1..8 */
#define NMACHINES 3

static const struct {
	const char *conf;
	const char *prefix; /* Slurm node names PREFIX0.. */
	uint32_t n;
} machines[NMACHINES] = {
	{ "Topology=fattree k=4 n=3\n"
	  "NodeName=f[0-63]\n"
	  "PartitionPolicy=batch:fattree-pods\n"
	  "PartitionPolicy=debug:clustered:scatter=2\n"
	  "RespectIsolation=yes\n"
	  "Predict=jm\n"
	  "PredictBudget=2000\n",
	  "f", 64 },
	{ "Topology=dragonfly p=2 a=4 h=2 g=5\n"
	  "Routing=ugal\n"
	  "NodeName=d[0-39]\n"
	  "PartitionPolicy=batch:dragonfly-groups\n"
	  "PartitionPolicy=debug:random:seed=3\n"
	  "DefaultPolicy=linear\n"
	  "Predict=jm\n"
	  "PredictBudget=2000\n",
	  "d", 40 },
	{ "Topology=torus dims=4x4 p=2\n"
	  "NodeName=m[0-31]\n"
	  "PartitionPolicy=batch:mesh-blocks\n"
	  "DefaultPolicy=clustered\n"
	  "Predict=jm\n"
	  "PredictBudget=2000\n",
	  "m", 32 },
};

static const char *const parts[] = { "batch", "debug", "other" };
static struct tstate *states[NMACHINES];

static void unload(void)
{
	tstate_predictor_stop();
	for (int i = 0; i < NMACHINES; i++)
		tstate_destroy(states[i]);
}

/* Machine I, loaded once with Slurm's node table in reverse name order
 * (so that Slurm and topology ids differ). */
static struct tstate *machine(int i)
{
	char path[] = "/tmp/fuzz_adapter.XXXXXX", *names[64];
	struct err err = { 0 };
	FILE *f;
	int fd;

	if (states[i])
		return states[i];
	if (!states[0] && !states[1] && !states[2])
		atexit(unload);
	fd = mkstemp(path);
	FUZZ_CHECK(fd >= 0 && (f = fdopen(fd, "w")), "temporary file");
	fputs(machines[i].conf, f);
	fclose(f);
	for (uint32_t k = 0; k < machines[i].n; k++) {
		names[k] = malloc(16);
		snprintf(names[k], 16, "%s%u", machines[i].prefix,
			 machines[i].n - 1 - k);
	}
	states[i] = tstate_load(path, (const char *const *)names, NULL,
				machines[i].n, parts, 2, &err);
	unlink(path);
	for (uint32_t k = 0; k < machines[i].n; k++)
		free(names[k]);
	FUZZ_CHECK(states[i], "machine %d: %s", i, err.msg);
	return states[i];
}

/* Nodes of job ID in OWNER[0..N) into OUT; returns how many. */
static uint32_t job_nodes(const uint32_t *owner, uint32_t n, uint32_t id,
			  uint32_t *out)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (owner[i] == id)
			out[k++] = i;
	return k;
}

/* Whether NODES[0..K) use a link of a protected (odd) running job, from
 * the routing's link sets directly. */
static int conflicts(const struct tstate *s, const uint32_t *owner,
		     const uint32_t *nodes, uint32_t k, uint32_t *buf)
{
	const struct routing *r = tstate_routing(s);
	uint32_t n = tstate_nodes(s), L = topo_num_links(tstate_topo(s));
	uint8_t *mine = calloc(L, 1), *theirs = calloc(L, 1);
	int hit = 0;

	FUZZ_CHECK(mine && theirs, "out of memory");
	if (k >= 2)
		FUZZ_CHECK(!routing_linkset(r, nodes, k, mine, NULL),
			   "routing_linkset");
	for (uint32_t id = 1; id <= 8; id += 2) {
		uint32_t m = job_nodes(owner, n, id, buf);

		if (m >= 2)
			FUZZ_CHECK(!routing_linkset(r, buf, m, theirs, NULL),
				   "routing_linkset");
	}
	for (uint32_t l = 0; l < L && !hit; l++)
		hit = mine[l] && theirs[l];
	free(mine);
	free(theirs);
	return hit;
}

static void same_sharing(const struct teval *a, const struct teval *b,
			 const char *what)
{
	FUZZ_CHECK(
		fabs(a->mls - b->mls) < 1e-9 && fabs(a->tls - b->tls) < 1e-9 &&
			a->njobs == b->njobs && a->job_links == b->job_links &&
			a->job_shared == b->job_shared,
		"%s: mls %g/%g tls %g/%g jobs %u/%u links %u/%u shared "
		"%u/%u",
		what, a->mls, b->mls, a->tls, b->tls, a->njobs, b->njobs,
		a->job_links, b->job_links, a->job_shared, b->job_shared);
}

/* The job started on NODES[0..K): isolation, link sharing, units. */
static void started(struct tstate *s, uint32_t *owner, const uint8_t *usable,
		    const uint32_t *nodes, uint32_t k, const char *pattern,
		    uint32_t max_model, uint32_t *buf)
{
	uint32_t n = tstate_nodes(s), sw;
	struct teval full, tracked, again;
	struct err err = { 0 };
	uint8_t *units = calloc(n, 1);
	char rec[512];
	int c;

	FUZZ_CHECK(units, "out of memory");
	c = tstate_conflicts(s, nodes, k, &err);
	FUZZ_CHECK(c == conflicts(s, owner, nodes, k, buf),
		   "tstate_conflicts says %d (%s)", c, err.msg);
	for (uint32_t i = 0; i < k; i++)
		owner[nodes[i]] = JOB;
	c = tstate_evaluate(s, owner, JOB, nodes, k, pattern, max_model, &full,
			    &err);
	/* the model may still run after the budget: let it end here, so
	 * that what it does belongs to this input */
	if (max_model)
		tstate_predictor_stop();
	if (c) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		goto out;
	}
	FUZZ_CHECK(tstate_record(&full, rec, sizeof(rec)) == rec && rec[0],
		   "empty record");
	/* one-shot, incremental, removed and added again, from scratch */
	FUZZ_CHECK(!tstate_track_add(s, JOB, nodes, k, &err), "track_add: %s",
		   err.msg);
	FUZZ_CHECK(!tstate_evaluate_tracked(s, JOB, nodes, k, pattern, 0,
					    &tracked, &err),
		   "evaluate_tracked: %s", err.msg);
	same_sharing(&full, &tracked, "one-shot vs incremental");
	tstate_track_remove(s, JOB);
	FUZZ_CHECK(!tstate_track_add(s, JOB, nodes, k, &err), "track_add: %s",
		   err.msg);
	FUZZ_CHECK(!tstate_evaluate_tracked(s, JOB, nodes, k, NULL, 0, &again,
					    &err),
		   "evaluate_tracked: %s", err.msg);
	same_sharing(&tracked, &again, "removed and added again");
	FUZZ_CHECK(!tstate_track_reset(s, owner, &err), "reset: %s", err.msg);
	FUZZ_CHECK(!tstate_evaluate_tracked(s, JOB, nodes, k, NULL, 0, &again,
					    &err),
		   "evaluate_tracked: %s", err.msg);
	same_sharing(&tracked, &again, "incremental vs from scratch");
out:
	for (uint32_t i = 0; i < k; i++)
		owner[nodes[i]] = POLICY_FREE;
	sw = tstate_leaf_switches(s, nodes, k);
	FUZZ_CHECK(sw >= 1 && sw <= k, "%u leaf switches for %u nodes", sw, k);
	for (int level = 0; level <= 1; level++) {
		uint32_t cnt = tstate_expand_units(s, usable, nodes, k, level,
						   units),
			 set = 0;

		for (uint32_t i = 0; i < n; i++)
			set += units[i];
		FUZZ_CHECK(cnt == set && cnt >= k, "units: %u said, %u set",
			   cnt, set);
		for (uint32_t i = 0; i < k; i++)
			FUZZ_CHECK(units[nodes[i]], "unit without node %u",
				   nodes[i]);
	}
	free(units);
}

static void check_placed(const struct tsize *z,
			 const struct policy_request *req,
			 const struct policy_result *res, const uint32_t *owner,
			 const uint8_t *usable, uint32_t n)
{
	uint64_t have = 0;

	FUZZ_CHECK(res->n == req->nodes && res->n >= z->lo && res->n <= z->hi,
		   "placed %u nodes (request %u, range %u..%u)", res->n,
		   req->nodes, z->lo, z->hi);
	for (uint32_t i = 0; i < res->n; i++) {
		uint32_t x = res->nodes[i];

		FUZZ_CHECK(x < n && (i == 0 || x > res->nodes[i - 1]),
			   "placement not ascending at %u", i);
		FUZZ_CHECK(owner[x] == POLICY_FREE && (!usable || usable[x]),
			   "placed on node %u: owner %u", x, owner[x]);
		if (z->need && z->cap) {
			FUZZ_CHECK(z->cap[x] > 0, "node %u holds no %s", x,
				   z->unit);
			have += z->cap[x];
		}
	}
	FUZZ_CHECK(!z->need || !z->cap || have >= z->need,
		   "%u nodes hold %llu %s of %u", res->n,
		   (unsigned long long)have, z->unit, z->need);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct err err = { 0 };
	struct tjob j = { 0 };
	struct tsize z;
	struct policy_request req = { .job_id = JOB };
	struct policy_result res;
	struct tsize_policy ctx;
	const struct policy *p;
	struct tstate *s;
	uint32_t n, *owner, *cpus, *cap, *nodes, *buf, max_model;
	uint64_t *mem;
	uint8_t *usable, flags;
	const char *part;
	char *override = NULL, *pattern = NULL;
	enum policy_status st;
	bool none, largest, has_usable;

	if (size > MAX_INPUT)
		return 0;
	flags = fuzz_u8(&in);
	s = machine(flags % NMACHINES);
	n = tstate_nodes(s);
	max_model = flags & 0x10 ? 4 : 0;
	largest = flags & 0x20;
	has_usable = flags & 0x40;
	part = (flags & 0x80) ? parts[fuzz_u8(&in) % 3] : NULL;
	j.min_nodes = fuzz_u16(&in) % (n + 2);
	j.max_nodes = fuzz_u16(&in) % (n + 2);
	j.req_nodes = fuzz_u16(&in) % (n + 2);
	j.num_tasks = fuzz_u16(&in) % 600;
	j.min_cpus = fuzz_u16(&in) % 600;
	j.cpus_per_task = fuzz_u8(&in) % 9;
	j.ntasks_per_node = fuzz_u8(&in) % 9;
	j.mem_per_cpu = fuzz_u16(&in) % 8192;
	j.overcommit = fuzz_u8(&in) & 1;
	req.attempt = fuzz_u8(&in) % 3;
	owner = calloc(n, sizeof(*owner));
	usable = calloc(n, 1);
	cpus = calloc(n, sizeof(*cpus));
	cap = calloc(n, sizeof(*cap));
	mem = calloc(n, sizeof(*mem));
	nodes = calloc(n, sizeof(*nodes));
	buf = calloc(n, sizeof(*buf));
	FUZZ_CHECK(owner && usable && cpus && cap && mem && nodes && buf,
		   "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint8_t a = fuzz_u8(&in), b = fuzz_u8(&in);

		owner[i] = a & 0x80 ? 1u + (a & 7u) : POLICY_FREE;
		usable[i] = !(a & 0x40) || owner[i];
		cpus[i] = b & 15;
		mem[i] = (uint64_t)(b >> 4) * 1024;
	}
	override = fuzz_line(&in);
	pattern = fuzz_line(&in);
	if (!override || !pattern)
		goto out;
	/* the running jobs, the odd ones isolated */
	FUZZ_CHECK(!tstate_track_reset(s, owner, &err), "reset: %s", err.msg);
	for (uint32_t id = 1; id <= 8; id += 2) {
		uint32_t k = job_nodes(owner, n, id, buf);

		FUZZ_CHECK(!tstate_protect(s, id, buf, k, &err), "protect: %s",
			   err.msg);
	}
	tsize_from_job(&j, n, cpus, mem, cap, &z);
	FUZZ_CHECK(z.lo >= 1 && z.lo <= z.hi && (!z.need || z.unit),
		   "size %u..%u", z.lo, z.hi);
	p = tstate_policy(s, part, override, &none, &err);
	if (!p) {
		if (!none)
			FUZZ_CHECK_ERR(&err, NULL, 0);
		goto out;
	}
	req.pattern = *pattern ? pattern : NULL;
	res = (struct policy_result){ .nodes = nodes };
	ctx = (struct tsize_policy){ .p = p, .owner = owner };
	st = tsize_place(&z, n, has_usable ? usable : NULL, largest, &req, &res,
			 tsize_policy_place, &ctx);
	if (st != POLICY_PLACED) {
		FUZZ_CHECK(st == POLICY_WAIT || st == POLICY_NEVER, "status %d",
			   (int)st);
		FUZZ_CHECK(res.reason[0], "status %d without a reason",
			   (int)st);
		goto out;
	}
	check_placed(&z, &req, &res, owner, has_usable ? usable : NULL, n);
	started(s, owner, has_usable ? usable : NULL, res.nodes, res.n,
		req.pattern, max_model, buf);
out:
	free(override);
	free(pattern);
	free(owner);
	free(usable);
	free(cpus);
	free(cap);
	free(mem);
	free(nodes);
	free(buf);
	return 0;
}
