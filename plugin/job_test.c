/*****************************************************************************\
 *  job_test.c - select_p_job_test: the policy of the job's partition
 *  chooses an isolated node set among the candidates and the wrapped
 *  plugin's job_test runs on it.  The job's size as cons_tres counts it;
 *  run-now (the policy's candidates in turn, --switches), test-only (an
 *  empty machine) and will-run (running jobs released in order of their
 *  ends); RespectIsolation= for jobs the wrapped plugin places alone.
\*****************************************************************************/

#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"
#include "policies/willrun.h"

/* Per topology node: its CPUs (less specialised cores) and memory (MB,
 * less MemSpecLimit), from Slurm's node records. */
void node_resources(uint32_t *cpus, uint64_t *mem)
{
	uint32_t n = tstate_nodes(tstate), t;

	for (t = 0; t < n; t++) {
		uint32_t s = tstate_t2s(tstate, t);
		node_record_t *node;

		if ((s >= (uint32_t)node_record_count) ||
		    !(node = node_record_table_ptr[s]))
			continue;
		cpus[t] = node->cpus_efctv ? node->cpus_efctv : node->cpus;
		mem[t] = (node->real_memory > node->mem_spec_limit) ?
				 node->real_memory - node->mem_spec_limit :
				 0;
	}
}

/*
 * The job's size as cons_tres counts it (cons_common/job_test.c's
 * _select_nodes, dist_tasks.c): a node count in [MIN, MAX] (REQ first:
 * slurmctld passes MAX there for -N LO-HI), and, unless the job
 * overcommits, its tasks (each CPUS_PER_TASK CPUs, at most
 * NTASKS_PER_NODE per node) or, for a job given as CPUs only, its CPUs,
 * which the whole nodes given must hold.  What a node holds comes from
 * its own CPUs (less specialised cores) and, under --mem-per-cpu, its
 * memory: nodes of different kinds hold different shares.  *CAP is
 * allocated ([tstate_nodes]) when the job has a task or CPU count.
 */
static void _job_size(job_record_t *job_ptr, uint32_t min_nodes,
		      uint32_t max_nodes, uint32_t req_nodes, struct tsize *z,
		      uint32_t **cap)
{
	job_details_t *d = job_ptr->details;
	uint32_t n = tstate_nodes(tstate), *cpus;
	uint64_t *mem;
	struct tjob j = {
		.min_nodes = min_nodes,
		.max_nodes = max_nodes,
		.req_nodes = req_nodes,
		.num_tasks = (d->num_tasks != NO_VAL) ? d->num_tasks : 0,
		.min_cpus = (d->min_cpus != NO_VAL) ? d->min_cpus : 0,
		.cpus_per_task =
			(d->cpus_per_task != NO_VAL16) ? d->cpus_per_task : 0,
		.ntasks_per_node = (d->ntasks_per_node != NO_VAL16) ?
					   d->ntasks_per_node :
					   0,
		.overcommit = d->overcommit && (d->overcommit != NO_VAL8),
	};

	if ((d->pn_min_memory != NO_VAL64) && (d->pn_min_memory & MEM_PER_CPU))
		j.mem_per_cpu = d->pn_min_memory & ~MEM_PER_CPU;
	*cap = xcalloc(n + 1, sizeof(uint32_t));
	cpus = xcalloc(n + 1, sizeof(uint32_t));
	mem = xcalloc(n + 1, sizeof(uint64_t));
	node_resources(cpus, mem);
	tsize_from_job(&j, n, cpus, mem, *cap, z);
	xfree(cpus);
	xfree(mem);
}

uint8_t *usable_from_bitmap(bitstr_t *bitmap)
{
	uint32_t n = tstate_nodes(tstate), i;
	uint8_t *usable = xcalloc(n + 1, 1);
	int last = bit_fls(bitmap), b;

	for (b = bit_ffs(bitmap); (b >= 0) && (b <= last); b++) {
		if (!bit_test(bitmap, b))
			continue;
		i = tstate_s2t(tstate, b);
		if (i != TOPO_NONE)
			usable[i] = 1;
	}
	return usable;
}

bitstr_t *bitmap_from_result(struct policy_result *res)
{
	bitstr_t *b = bit_alloc(node_record_count);
	uint32_t i;

	for (i = 0; i < res->n; i++) {
		uint32_t s = tstate_t2s(tstate, res->nodes[i]);

		if (s < (uint32_t)node_record_count)
			bit_set(b, s);
	}
	return b;
}

/* slurmctld's nodes up and not drained; weak: absent in slurmd and the
 * commands. */
extern bitstr_t *avail_node_bitmap __attribute__((weak));

/*
 * A job the policy says can never run among the nodes offered (USABLE):
 * would it run once the nodes of its partition that are unavailable now
 * (down, drained, not responding, reserved, held by no job) return?  Then
 * it waits for them, and RES->reason names them; otherwise RES is as the
 * policy left it.  Returns whether it waits.
 *
 * DOWN_ONLY (will-run): only nodes slurmctld holds unavailable (down,
 * drained, not responding: outside avail_node_bitmap) count.  Backfill
 * offers a job the nodes of one window of its plan, the nodes planned for
 * jobs ahead of it left out; those are not unavailable, and "waiting for
 * them" named the plan's nodes and changed at every pass (a reason
 * update, and a second search, per job tested).  Run-now is offered
 * every node free now, so there any node not offered counts.
 */
static bool _wait_for_unavailable(job_record_t *job_ptr, const uint8_t *usable,
				  const struct policy *p, const struct tsize *z,
				  struct policy_request *req,
				  struct policy_result *res, bool down_only)
{
	uint32_t n = tstate_nodes(tstate), t, cnt = 0;
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap :
					     NULL;
	bitstr_t *resv = (job_ptr->resv_ptr && job_ptr->resv_ptr->node_bitmap) ?
				 job_ptr->resv_ptr->node_bitmap :
				 NULL;
	bitstr_t *exc = job_ptr->details ? job_ptr->details->exc_node_bitmap :
					   NULL;
	struct policy_result res2 = { .nodes = res->nodes };
	struct policy_request req2 = *req;
	struct tsize_policy c = { .p = p };
	bitstr_t *missing;
	uint8_t *u2;
	uint32_t *own2;
	char *names;
	bool waits;

	if (!part)
		return false;
	if (down_only) {
		if (!&avail_node_bitmap || !avail_node_bitmap)
			return false;
		/* Most passes: every node of the partition is available. */
		for (t = 0; t < n; t++) {
			uint32_t s = tstate_t2s(tstate, t);

			if (!usable[t] && (s < (uint32_t)node_record_count) &&
			    bit_test(part, s) &&
			    !bit_test(avail_node_bitmap, s))
				break;
		}
		if (t == n)
			return false;
	}
	u2 = xcalloc(n + 1, 1);
	own2 = xcalloc(n + 1, sizeof(uint32_t));
	missing = bit_alloc(node_record_count);
	for (t = 0; t < n; t++) {
		uint32_t s = tstate_t2s(tstate, t);

		own2[t] = owner[t];
		u2[t] = usable[t];
		if (usable[t] || (s >= (uint32_t)node_record_count) ||
		    !bit_test(part, s) || (exc && bit_test(exc, s)) ||
		    (resv && !bit_test(resv, s)) ||
		    (down_only && bit_test(avail_node_bitmap, s)))
			continue;
		u2[t] = 1;
		/* A busy node Slurm did not offer (will-run) is busy, not
		 * unavailable. */
		if (own2[t] != POLICY_FREE)
			continue;
		own2[t] = OWNER_UNAVAILABLE;
		bit_set(missing, s);
		cnt++;
	}
	c.owner = own2;
	req2.attempt = 0;
	waits = cnt && (tsize_place(z, n, u2, false, &req2, &res2,
				    tsize_policy_place, &c) != POLICY_NEVER);
	if (waits) {
		names = bitmap2node_name(missing);
		snprintf(
			res->reason, sizeof(res->reason),
			"waiting for unavailable nodes (down, drained, reserved or completing) %s to return",
			names);
		xfree(names);
		res->n = 0;
	}
	FREE_NULL_BITMAP(missing);
	xfree(u2);
	xfree(own2);
	return waits;
}

/*
 * The wrapped plugin's job_test on NARROW, the NODES whole nodes the
 * policy chose.  An isolated job gets whole nodes; one that overcommits
 * (-O) with more tasks than those nodes have CPUs is refused by
 * cons_tres from 24.11 (dist_tasks.c: the whole-node path lays out at
 * most a task per CPU, ESLURM_BAD_TASK_COUNT; 22.05 spread the rest), so
 * for the call its task count is taken from the CPUs allocated
 * (JOB_NTASKS_SET cleared, as for a job given no -n): the job gets its
 * node count and every CPU of its nodes, its tasks are as many as asked.
 */
static int _wrap_whole(job_record_t *job_ptr, bitstr_t *narrow, uint32_t nodes,
		       uint16_t mode, const struct topo_jt_tail *tail)
{
	bool lift = job_ptr->details->overcommit &&
		    (job_ptr->details->overcommit != NO_VAL8) &&
		    (job_ptr->bit_flags & JOB_NTASKS_SET);
	int rc;

	if (lift)
		job_ptr->bit_flags &= ~JOB_NTASKS_SET;
	rc = (*(wrap.job_test))(job_ptr, narrow, nodes, nodes, nodes, mode,
				TOPO_JT_ARGS(tail));
	if (lift)
		job_ptr->bit_flags |= JOB_NTASKS_SET;
	return rc;
}

/* Running jobs and their end times, for the will-run search. */
typedef struct {
	struct policy_running *jobs;
	uint32_t n, cap;
} run_list_t;

static int _cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The running (or suspended) jobs holding topology nodes in owner[],
 * with their end times: the only jobs whose end frees a node the policy
 * sees.  From owner[] and the job hash (O(nodes)), not a walk of
 * job_list, which also holds every pending and recently finished job
 * (MinJobAge): backfill asks this for every job it tests. */
static void _collect_running(run_list_t *rl)
{
	uint32_t n = tstate_nodes(tstate), k = 0, i;
	uint32_t *ids = xcalloc(n + 1, sizeof(uint32_t));

	for (i = 0; i < n; i++)
		if ((owner[i] != POLICY_FREE) &&
		    (!k || (ids[k - 1] != owner[i])))
			ids[k++] = owner[i];
	if (k > 1)
		qsort(ids, k, sizeof(uint32_t), _cmp_u32);
	rl->cap = k ? k : 1;
	rl->jobs = xcalloc(rl->cap, sizeof(struct policy_running));
	for (i = 0; i < k; i++) {
		job_record_t *job_ptr;

		if (i && (ids[i] == ids[i - 1]))
			continue;
		job_ptr = find_job_record(ids[i]);
		if (!job_ptr ||
		    !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) ||
		    !job_ptr->node_bitmap)
			continue;
		rl->jobs[rl->n].job_id = job_ptr->job_id;
		rl->jobs[rl->n].end = job_ptr->end_time; /* before now: now */
		rl->n++;
	}
	xfree(ids);
}

/* tsize_place's placement in the future: the will-run search. */
struct wr_ctx {
	const struct policy *p;
	const uint32_t *owner;
	const struct policy_running *run;
	uint32_t nrun;
	time_t now;
	struct policy_will_run *wr;
	struct err *err;
	bool failed; /* the search failed: err says why */
};

static enum policy_status _will_run_fn(void *ctx, const uint8_t *usable,
				       const struct policy_request *req,
				       struct policy_result *res)
{
	struct wr_ctx *c = ctx;
	struct policy_view v = { .owner = c->owner, .usable = usable };

	if (c->failed)
		return POLICY_NEVER;
	if (policy_will_run(c->p, &v, c->run, c->nrun, c->now, req, res, c->wr,
			    c->err) < 0) {
		c->failed = true;
		return POLICY_NEVER;
	}
	return c->wr->status;
}

/*
 * SELECT_MODE_WILL_RUN: the policy sees the future.  policy_will_run
 * (policies/willrun.h, the search stopo whatif reserves with) releases the
 * running jobs in order of their end times, jobs ending together at once,
 * until the policy places the job; the wrapped plugin then computes the
 * start time on the narrowed bitmap (the nodes are free once the released
 * jobs have ended).
 */
static int _will_run(job_record_t *job_ptr, bitstr_t *bitmap,
		     const struct policy *p, const struct tsize *z,
		     struct policy_request *req, struct policy_result *res,
		     uint16_t mode, const struct topo_jt_tail *tail)
{
	run_list_t rl = { 0 };
	uint8_t *usable = usable_from_bitmap(bitmap);
	struct policy_will_run wr = { 0 };
	struct err err = { 0 };
	struct wr_ctx c = { .p = p,
			    .owner = owner,
			    .now = time(NULL),
			    .wr = &wr,
			    .err = &err };
	int rc = SLURM_ERROR;

	_collect_running(&rl);
	c.run = rl.jobs;
	c.nrun = rl.n;
	/* The search at the job's smallest count its tasks fit (WR: the
	 * search of the count placed, or of the last one tried). */
	wr.status = tsize_place(z, tstate_nodes(tstate), usable, false, req,
				res, _will_run_fn, &c);
	if (c.failed) {
		error("%s: will_run %pJ: %s [%s]", TOPO_NAME, job_ptr, err.msg,
		      err_kind(&err));
		goto out;
	}
	/* "Never" among the nodes of one backfill window is not never (test-
	 * only answers that): a reason only when down or drained nodes hold
	 * the job back, else the job keeps the reason it has. */
	if (wr.status == POLICY_NEVER) {
		if (_wait_for_unavailable(job_ptr, usable, p, z, req, res,
					  true))
			snprintf(wr.now_reason, sizeof(wr.now_reason), "%s",
				 res->reason);
		else
			wr.now_reason[0] = '\0';
	}
	/* Backfill is often the first to look at a job: give it the reason
	 * it cannot start now (RUN_NOW sets it too). */
	if (wr.now_reason[0] && job_ptr->job_id && IS_JOB_PENDING(job_ptr))
		reason_set(job_ptr, wr.now_reason);
	if (wr.status == POLICY_PLACED) {
		bitstr_t *narrow = bitmap_from_result(res);

		rc = _wrap_whole(job_ptr, narrow, req->nodes, mode, tail);
		if (rc == SLURM_SUCCESS)
			bit_copybits(bitmap, narrow);
		FREE_NULL_BITMAP(narrow);
		log_flag(SELECT_TYPE,
			 "%s: will_run %pJ: after %u job ends: %s (rc=%d)",
			 TOPO_NAME, job_ptr, wr.jobs,
			 rc == SLURM_SUCCESS ? "placed" : "refused", rc);
	} else {
		log_flag(SELECT_TYPE, "%s: will_run %pJ: %s", TOPO_NAME,
			 job_ptr, res->reason);
	}
out:
	xfree(usable);
	xfree(rl.jobs);
	return rc;
}

/* SELECT_MODE_TEST_ONLY: can the job ever run isolated among BITMAP? */
static int _test_only(job_record_t *job_ptr, bitstr_t *bitmap,
		      const struct policy *p, const struct tsize *z,
		      struct policy_request *req, struct policy_result *res,
		      uint16_t mode, const struct topo_jt_tail *tail)
{
	uint32_t n = tstate_nodes(tstate);
	uint32_t *empty = xcalloc(n + 1, sizeof(uint32_t));
	uint8_t *usable = usable_from_bitmap(bitmap);
	struct tsize_policy c = { .p = p, .owner = empty };
	enum policy_status st = tsize_place(z, n, usable, false, req, res,
					    tsize_policy_place, &c);
	int rc = SLURM_ERROR;

	if (st == POLICY_PLACED) {
		bitstr_t *narrow = bitmap_from_result(res);

		rc = _wrap_whole(job_ptr, narrow, req->nodes, mode, tail);
		if (rc == SLURM_SUCCESS)
			bit_copybits(bitmap, narrow);
		FREE_NULL_BITMAP(narrow);
	} else {
		static uint32_t last_job_logged = 0;

		/* Slurm probes several node sets; say it once per job. */
		if (last_job_logged != job_ptr->job_id)
			info("%s: %pJ cannot run isolated under %s on the nodes offered: %s",
			     TOPO_NAME, job_ptr, policy_spec(p), res->reason);
		last_job_logged = job_ptr->job_id;
	}
	xfree(empty);
	xfree(usable);
	return rc;
}

/*
 * --switches=N[@TIME]: whether the placement in RES uses at most N leaf
 * switches (the switches its nodes attach to), or the job has waited
 * TIME (slurmctld caps it at max_switch_wait) since it was first held
 * for it.  *FEWEST keeps the fewest switches of a candidate refused.
 */
static bool _switches_ok(job_record_t *job_ptr, const struct policy_result *res,
			 uint32_t *fewest)
{
	uint32_t k;
	time_t now = time(NULL);

	if (!job_ptr->req_switch || (job_ptr->req_switch == NO_VAL))
		return true;
	k = tstate_leaf_switches(tstate, res->nodes, res->n);
	if (k <= job_ptr->req_switch)
		return true;
	if (!job_ptr->wait4switch_start)
		job_ptr->wait4switch_start = now;
	if (now - job_ptr->wait4switch_start >= (time_t)job_ptr->wait4switch) {
		log_flag(
			SELECT_TYPE,
			"%s: %pJ waited %ld s for %u leaf switches: placed on %u",
			TOPO_NAME, job_ptr,
			(long)(now - job_ptr->wait4switch_start),
			job_ptr->req_switch, k);
		return true;
	}
	if (!*fewest || (k < *fewest))
		*fewest = k;
	return false;
}

/* SELECT_MODE_RUN_NOW: the policy's candidates in turn. */
static int _run_now(job_record_t *job_ptr, bitstr_t *bitmap,
		    const struct policy *p, const struct tsize *z,
		    struct policy_request *req, struct policy_result *res,
		    uint16_t mode, const struct topo_jt_tail *tail)
{
	uint8_t *usable = usable_from_bitmap(bitmap);
	struct tsize_policy c = { .p = p, .owner = owner };
	enum policy_status st = POLICY_WAIT;
	int rc = SLURM_ERROR;
	uint32_t i, n = tstate_nodes(tstate), fewest = 0, refused = 0;

	/* Slurm offers only the nodes free now; busy nodes are part of the
	 * machine too (owned), so that the policy answers "wait for ..."
	 * rather than "never". */
	for (i = 0; i < n; i++)
		if (owner[i] != POLICY_FREE)
			usable[i] = 1;

	for (req->attempt = 0; req->attempt < MAX_ATTEMPTS; req->attempt++) {
		bitstr_t *narrow;

		/* The largest count of the job's range that places now. */
		st = tsize_place(z, n, usable, true, req, res,
				 tsize_policy_place, &c);
		if (st != POLICY_PLACED)
			break;
		if (!_switches_ok(job_ptr, res, &fewest)) {
			log_flag(
				SELECT_TYPE,
				"%s: %pJ: candidate %u on more than %u leaf switches",
				TOPO_NAME, job_ptr, req->attempt,
				job_ptr->req_switch);
			continue;
		}
		narrow = bitmap_from_result(res);
		rc = _wrap_whole(job_ptr, narrow, req->nodes, mode, tail);
		if (rc == SLURM_SUCCESS) {
			bit_copybits(bitmap, narrow);
			FREE_NULL_BITMAP(narrow);
			break;
		}
		FREE_NULL_BITMAP(narrow);
		refused++;
		log_flag(SELECT_TYPE, "%s: %pJ: %s refused candidate %u",
			 TOPO_NAME, job_ptr, wrap_type, req->attempt);
	}
	/* The wrapped plugin refused every placement the policy offered:
	 * the job waits for what it asks of the nodes, not for the policy,
	 * and says so (never a pending job without a reason). */
	if ((rc != SLURM_SUCCESS) && refused && !fewest) {
		st = POLICY_WAIT;
		snprintf(
			res->reason, sizeof(res->reason),
			"waiting: %s refused the %u placement%s of %u nodes the policy offered (the CPUs, memory or GRES the job asks of each node are not free there)",
			wrap_type, refused, refused == 1 ? "" : "s",
			req->nodes);
	}
	/* Every candidate placed but on too many leaf switches. */
	if ((rc != SLURM_SUCCESS) && fewest &&
	    ((st == POLICY_PLACED) || req->attempt)) {
		time_t until = job_ptr->wait4switch_start +
			       (time_t)job_ptr->wait4switch;
		char stamp[32];
		struct tm tm;

		localtime_r(&until, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		st = POLICY_WAIT;
		snprintf(
			res->reason, sizeof(res->reason),
			"waiting until %s for a placement on at most %u leaf switch%s (--switches); the best now uses %u",
			stamp, job_ptr->req_switch,
			job_ptr->req_switch == 1 ? "" : "es", fewest);
	}
	/* "Never" only when no usable state of the partition's nodes could
	 * hold it (select_topo(8)). */
	if ((rc != SLURM_SUCCESS) && (st == POLICY_NEVER) && !req->attempt &&
	    _wait_for_unavailable(job_ptr, usable, p, z, req, res, false))
		st = POLICY_WAIT;
	if (rc == SLURM_SUCCESS) {
		reason_clear(job_ptr);
		claim.job_id = job_ptr->job_id;
		claim.isolated = res->isolated;
		snprintf(claim.why, sizeof(claim.why), "%s",
			 res->isolated ? "" : res->reason);
		claim.nranks = 0;
		if (res->nranks) {
			xrecalloc(claim.ranks, res->nranks, sizeof(uint32_t));
			memcpy(claim.ranks, res->rank_node,
			       res->nranks * sizeof(uint32_t));
			claim.nranks = res->nranks;
		}
	} else if (st == POLICY_WAIT || st == POLICY_NEVER) {
		char note[256], why[sizeof(res->reason) + sizeof(note)];

		resv_explain(st == POLICY_NEVER ? job_ptr->resv_ptr : NULL,
			     note, sizeof(note));
		snprintf(why, sizeof(why), "%s%s", res->reason, note);
		reason_set(job_ptr, why);
		log_flag(SELECT_TYPE, "%s: %pJ pending: %s", TOPO_NAME, job_ptr,
			 why);
	} else {
		reason_clear(job_ptr);
	}
	xfree(usable);
	return rc;
}

/* RespectIsolation=: the wrapped plugin's choice among OFFER into CAND
 * (new bitmap, NULL when it refused) and its topology nodes into CHOSEN
 * (*K of them).  Returns the wrapped plugin's code; *CONFLICT says
 * whether the choice shares a link with an isolated job. */
static int _try_wrapped(job_record_t *job_ptr, bitstr_t *offer,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			const struct topo_jt_tail *tail, bitstr_t **cand,
			uint32_t *chosen, uint32_t *k, bool *conflict)
{
	struct err err = { 0 };
	int rc, b, last, c;

	*cand = bit_copy(offer);
	*k = 0;
	*conflict = false;
	rc = (*(wrap.job_test))(job_ptr, *cand, min_nodes, max_nodes, req_nodes,
				mode, TOPO_JT_ARGS(tail));
	if (rc != SLURM_SUCCESS) {
		FREE_NULL_BITMAP(*cand);
		return rc;
	}
	last = bit_fls(*cand);
	for (b = bit_ffs(*cand); (b >= 0) && (b <= last); b++)
		if (bit_test(*cand, b) && (tstate_s2t(tstate, b) != TOPO_NONE))
			chosen[(*k)++] = tstate_s2t(tstate, b);
	c = tstate_conflicts(tstate, chosen, *k, &err);
	if (c < 0)
		error("%s: %pJ: RespectIsolation: %s [%s]", TOPO_NAME, job_ptr,
		      err.msg, err_kind(&err));
	*conflict = (c > 0);
	return rc;
}

/* The nodes of OFFER in the groups (fat-tree pods, dragonfly groups) of
 * the running isolated jobs, cleared from it. */
static void _clear_isolated_groups(bitstr_t *offer)
{
	uint32_t n = tstate_nodes(tstate), t, k = 0;
	uint32_t *nodes = xcalloc(n + 1, sizeof(uint32_t));
	uint8_t *in = xcalloc(n + 1, 1);
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *j;

	while ((j = list_next(it)))
		if ((IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) &&
		    job_isolating(j))
			for (t = 0; t < n; t++)
				if (owner[t] == j->job_id)
					nodes[k++] = t;
	list_iterator_destroy(it);
	tstate_expand_units(tstate, NULL, nodes, k, 1, in);
	for (t = 0; t < n; t++) {
		uint32_t s = tstate_t2s(tstate, t);

		if (in[t] && (s < (uint32_t)node_record_count))
			bit_clear(offer, s);
	}
	xfree(in);
	xfree(nodes);
}

/*
 * RespectIsolation=yes, a job the wrapped plugin places alone: its
 * choice is taken when the chosen nodes share no link with an isolated
 * job (tstate_conflicts).  Otherwise it is asked again away from the
 * isolated jobs' groups (pods, dragonfly groups), then, MAX_ATTEMPTS
 * times at most, without the nodes that bring a shared link in (kept in
 * order while the set stays clear).
 */
static int _run_now_respecting(job_record_t *job_ptr, bitstr_t *bitmap,
			       uint32_t min_nodes, uint32_t max_nodes,
			       uint32_t req_nodes, uint16_t mode,
			       const struct topo_jt_tail *tail)
{
	struct err err = { 0 };
	bitstr_t *work = bit_copy(bitmap), *away, *cand = NULL;
	uint32_t n = tstate_nodes(tstate), attempt, k = 0, i;
	uint32_t *chosen = xcalloc(n + 1, sizeof(uint32_t));
	uint32_t *clear = xcalloc(n + 1, sizeof(uint32_t));
	bool conflict = false, refused = false;
	int rc;

#define TRY(offer)                                                          \
	_try_wrapped(job_ptr, offer, min_nodes, max_nodes, req_nodes, mode, \
		     tail, &cand, chosen, &k, &conflict)
	rc = TRY(work);
	if ((rc != SLURM_SUCCESS) || !conflict)
		goto out;
	refused = true;
	FREE_NULL_BITMAP(cand);
	away = bit_copy(work);
	_clear_isolated_groups(away);
	rc = bit_set_count(away) ? TRY(away) : SLURM_ERROR;
	FREE_NULL_BITMAP(away);
	if ((rc == SLURM_SUCCESS) && !conflict)
		goto out;
	FREE_NULL_BITMAP(cand);
	rc = TRY(work);
	for (attempt = 0;
	     (attempt < MAX_ATTEMPTS) && (rc == SLURM_SUCCESS) && conflict;
	     attempt++) {
		uint32_t nclear = 0, bad = 0;

		for (i = 0; i < k; i++) {
			clear[nclear] = chosen[i];
			if (tstate_conflicts(tstate, clear, nclear + 1, &err) >
			    0) {
				bit_clear(work, tstate_t2s(tstate, chosen[i]));
				bad++;
			} else {
				nclear++;
			}
		}
		FREE_NULL_BITMAP(cand);
		if (!bad)
			break;
		rc = TRY(work);
	}
#undef TRY
out:
	if ((rc == SLURM_SUCCESS) && !conflict) {
		bit_copybits(bitmap, cand);
		if (refused)
			log_flag(
				SELECT_TYPE,
				"%s: %pJ: placed off the links of isolated jobs (RespectIsolation=yes)",
				TOPO_NAME, job_ptr);
	} else if (refused) {
		rc = SLURM_ERROR;
		reason_set(
			job_ptr,
			"waiting for nodes whose use shares no link with isolated jobs (RespectIsolation=yes)");
	}
	FREE_NULL_BITMAP(cand);
	xfree(chosen);
	xfree(clear);
	FREE_NULL_BITMAP(work);
	return rc;
}

int job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
	     uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
	     const struct topo_jt_tail *tail)
{
	struct err err = { 0 };
	struct policy_request req = { 0 };
	struct policy_result res = { 0 };
	struct tsize z;
	uint32_t *cap = NULL;
	const struct policy *p;
	const char *override, *part, *grid;
	bool none = false;
	int rc;

	if (TOPO_RESV_STANDIN(job_ptr, mode, tail->preemptee_job_list) &&
	    ((rc = resv_job_test(job_ptr, bitmap, min_nodes)) != 1))
		return rc;

	slurm_mutex_lock(&topo_lock);
	if (tstate && !owner_usable_locked()) {
		static bool warned = false;

		if (!warned)
			error("%s: Slurm's node table has %d slots, but %s was mapped onto %u: jobs are placed by %s alone until topo.conf matches it",
			      TOPO_NAME, node_record_count, conf_path,
			      tstate_slurm_nodes(tstate), wrap_type);
		warned = true;
	}
	if (!owner_usable_locked() || !job_ptr->details)
		goto delegate;
	part = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;
	override = job_env(job_ptr, ENV_POLICY);
	p = tstate_policy(tstate, part, override, &none, &err);
	if (!p && none)
		goto delegate;
	if (!p) {
		error("%s: %pJ: %s [%s]", TOPO_NAME, job_ptr, err.msg,
		      err_kind(&err));
		if (mode == SELECT_MODE_RUN_NOW)
			reason_set(job_ptr, err.msg);
		slurm_mutex_unlock(&topo_lock);
		return SLURM_ERROR;
	}
	log_flag(SELECT_TYPE, "%s: %pJ mode=%u policy=%s%s%s", TOPO_NAME,
		 job_ptr, mode, policy_spec(p), override ? " override=" : "",
		 override ? override : "");
	if (!policy_isolating(p))
		goto delegate;

	/* The policy chooses the nodes: an explicit node list cannot be
	 * honoured (refused at submission, see select_topo(8)). */
	if (job_ptr->details->req_node_bitmap &&
	    (bit_set_count(job_ptr->details->req_node_bitmap) > 0)) {
		if (mode == SELECT_MODE_TEST_ONLY)
			info("%s: %pJ: explicit node lists (-w) are not supported under policy %s",
			     TOPO_NAME, job_ptr, policy_spec(p));
		else if (mode == SELECT_MODE_RUN_NOW)
			reason_set(
				job_ptr,
				"explicit node lists (-w) are not supported under an isolating policy");
		slurm_mutex_unlock(&topo_lock);
		return SLURM_ERROR;
	}

	/* Isolated jobs get whole nodes: two jobs on one node share its
	 * injection link. */
	job_ptr->details->whole_node = WHOLE_NODE_REQUIRED;
	job_ptr->details->share_res = 0;

	req.job_id = job_ptr->job_id;
	_job_size(job_ptr, min_nodes, max_nodes, req_nodes, &z, &cap);
	req.nodes = z.lo;
	req.pattern = job_env(job_ptr, ENV_PATTERN);
	grid = job_env(job_ptr, ENV_GRID);
	if (grid && *grid && (policy_grid_parse(grid, &req, &err) < 0)) {
		/* The SPANK plugin refuses it at submission (same parser):
		 * a job submitted around it is held with the reason. */
		error("%s: %pJ: --topo-%s [%s]", TOPO_NAME, job_ptr, err.msg,
		      err_kind(&err));
		if (mode == SELECT_MODE_RUN_NOW)
			reason_set(job_ptr, err.msg);
		xfree(cap);
		slurm_mutex_unlock(&topo_lock);
		return SLURM_ERROR;
	}
	res.nodes = xcalloc(tstate_nodes(tstate) + 1, sizeof(uint32_t));
	if (req.ngrid && (mode == SELECT_MODE_RUN_NOW)) {
		/* room for the rank order the policy may plan */
		uint64_t t = 1;

		for (uint32_t d = 0; d < req.ngrid; d++)
			t *= req.grid[d];
		if (t <= MAX_RANKS) {
			res.rank_cap = (uint32_t)t;
			res.rank_node = xcalloc(t, sizeof(uint32_t));
		}
	}

	if (mode == SELECT_MODE_TEST_ONLY)
		rc = _test_only(job_ptr, bitmap, p, &z, &req, &res, mode, tail);
	else if (mode == SELECT_MODE_WILL_RUN)
		rc = _will_run(job_ptr, bitmap, p, &z, &req, &res, mode, tail);
	else
		rc = _run_now(job_ptr, bitmap, p, &z, &req, &res, mode, tail);
	xfree(res.nodes);
	xfree(res.rank_node);
	xfree(cap);
	slurm_mutex_unlock(&topo_lock);
	return rc;

delegate:
	if ((mode == SELECT_MODE_RUN_NOW) && owner_usable_locked() &&
	    tracking && tstate_respect_isolation(tstate)) {
		rc = _run_now_respecting(job_ptr, bitmap, min_nodes, max_nodes,
					 req_nodes, mode, tail);
		slurm_mutex_unlock(&topo_lock);
		return rc;
	}
	slurm_mutex_unlock(&topo_lock);
	return (*(wrap.job_test))(job_ptr, bitmap, min_nodes, max_nodes,
				  req_nodes, mode, TOPO_JT_ARGS(tail));
}
