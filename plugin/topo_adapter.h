/*****************************************************************************\
 *  topo_adapter.h - the Slurm-free half of select/topo: the machine of
 *  topo.conf (policies/machine: topology, names, routing, the policy of
 *  every partition) checked against slurm.conf's node list, the
 *  --topo-policy policies (cached) and the in-process evaluator (link
 *  sharing, and the rates of topo.conf's Predict= model, computed by a
 *  predictor thread within PredictBudget=).  Placement and will-run are
 *  the policies' own (policy_place, policy_will_run in policies/).  select_topo.c
 *  translates Slurm structures (bitmaps, job records) to and from these
 *  dense ids; this file includes no Slurm header so that it follows the
 *  core's contracts (err.h, no printing).
\*****************************************************************************/
#ifndef _SELECT_TOPO_ADAPTER_H
#define _SELECT_TOPO_ADAPTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "policies/machine/machine.h"
#include "policies/policy.h"
#include "topo/util/err.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "topo/topo_conf.h"
#include "evaluator/traffic/flows.h"
#include "evaluator/sharing/linkshare.h"
#include "evaluator/models/model.h"

/* One loaded configuration: immutable after tstate_load except for the
 * policy cache (filled lazily under the plugin's lock). */
struct tstate;

/* Load the machine of topo.conf PATH (machine_load: every PartitionPolicy=
 * and DefaultPolicy= is created, unknown or inapplicable policies are
 * errors; the Predict= model is checked with model_check_routing,
 * "PATH:LINE: Predict=SPEC: why") and map it onto Slurm's nodes
 * NAMES[0..NSLURM) as tstate_map does (every node of slurm.conf named in
 * topo.conf, a node created at run time, DYNAMIC, may be outside; a
 * topology node without a Slurm node is left unused); and, when PARTS is
 * not NULL,
 * against slurm.conf's partitions PARTS[0..NPARTS): a PartitionPolicy= of
 * a partition slurm.conf lacks (a typo would leave the real partition
 * without isolation) is an error naming the partitions there are.
 * Returns a new state or NULL with err set to "PATH:LINE: what", the
 * line from the parser. */
struct tstate *tstate_load(const char *path, const char *const *names,
			   const uint8_t *dynamic, uint32_t nslurm,
			   const char *const *parts, uint32_t nparts,
			   struct err *err);
/* The Slurm nodes of S again, from NAMES[0..NSLURM) (Slurm's node table
 * after nodes were created or deleted at run time): NAMES[i] NULL is an
 * empty slot; a node with DYNAMIC[i] set (created at run time; DYNAMIC
 * NULL: none) may be missing from topo.conf (it is then outside the
 * topology: tstate_s2t gives TOPO_NONE), every other node must be named
 * there, once.  Topology nodes without a Slurm node are never offered
 * (tstate_t2s gives TOPO_NONE).  Returns 0, or -1 with err set ("PATH:LINE:
 * slurm.conf node X is not in NodeName=", "... appears twice", "topology
 * has N nodes but slurm.conf has M": more static nodes than the
 * topology) and the mapping unchanged.  tstate_load does this first. */
int tstate_map(struct tstate *s, const char *const *names,
	       const uint8_t *dynamic, uint32_t nslurm, struct err *err);
/* The Slurm node slots of the mapping (NSLURM of the last tstate_map). */
uint32_t tstate_slurm_nodes(const struct tstate *s);
/* NAMES given (the NSLURM names of the last tstate_map): the Slurm nodes
 * outside the topology; NAMES NULL: the topology nodes without a Slurm
 * node.  Their names, ","-separated, into BUF (LEN bytes, "..." when cut);
 * returns how many there are. */
uint32_t tstate_unmapped(const struct tstate *s, const char *const *names,
			 uint32_t nslurm, char *buf, size_t len);
/* Free; NULL is a no-op. */
void tstate_destroy(struct tstate *s);

const struct topo *tstate_topo(const struct tstate *s);
const struct routing *tstate_routing(const struct tstate *s);
/* The select plugin topo.conf's Wrap= names: "select/cons_tres" (the
 * default) or "select/linear" (static). */
const char *tstate_wrap(const struct tstate *s);
/* The prediction model (Predict= or the machine's default; borrowed) and
 * its budget in milliseconds (PredictBudget=, default 50). */
const char *tstate_predict(const struct tstate *s);
/* The partitions of PARTS[0..NPARTS) without a policy (no
 * PartitionPolicy= and no DefaultPolicy=), whose jobs the wrapped plugin
 * places without regard to links: their names, ", "-separated, into BUF
 * (truncated with "..." to LEN).  Returns how many there are. */
uint32_t tstate_unpoliced(const struct tstate *s, const char *const *parts,
			  uint32_t nparts, char *buf, size_t len);
uint32_t tstate_predict_budget(const struct tstate *s);
/* Number of topology nodes. */
uint32_t tstate_nodes(const struct tstate *s);
/* The distinct switches the nodes NODES[0..N) (topology ids) attach to:
 * Slurm's leaf switches, for --switches. */
uint32_t tstate_leaf_switches(const struct tstate *s, const uint32_t *nodes,
			      uint32_t n);
/* The nodes of AVAIL[tstate_nodes] (NULL: every node) in the units holding
 * NODES[0..N): LEVEL 0 their switches, 1 their switches' groups (fat-tree
 * pods, dragonfly groups; nodes outside any group count alone), into
 * OUT[tstate_nodes] (0/1, NODES always set).  Returns how many are set. */
uint32_t tstate_expand_units(const struct tstate *s, const uint8_t *avail,
			     const uint32_t *nodes, uint32_t n, int level,
			     uint8_t *out);
/* Topology node of Slurm node index I, or TOPO_NONE. */
uint32_t tstate_s2t(const struct tstate *s, uint32_t i);
/* Slurm node index of topology node T. */
uint32_t tstate_t2s(const struct tstate *s, uint32_t t);

/* The policy a job gets: the partition's (PartitionPolicy= / DefaultPolicy=)
 * or OVERRIDE (from --topo-policy) when allowed: any policy when the
 * partition's is not isolating, otherwise only isolating ones.  Returns the
 * policy (borrowed, cached in S), or NULL with *none = true when no policy
 * applies (the job is left to the wrapped plugin), or NULL with err set. */
const struct policy *tstate_policy(struct tstate *s, const char *partition,
				   const char *override, bool *none,
				   struct err *err);

/* Pattern used for predictions when the job gave none (--topo-pattern). */
#define TSTATE_DEFAULT_PATTERN "alltoall"

/* Link partners a record names at most (select_topo(8): shares_with=). */
#define TEVAL_PARTNERS 16

/* What the in-process evaluator records for a job that starts. */
struct teval {
	char pattern[64];
	char model[32]; /* the prediction model's name */
	bool modelled;	/* false: 1 node or above the size cap */
	uint32_t flows;
	/* the model's rates, in capacity units; at MODEL_TIME_LIMIT the
	 * best allocation the model knew (0 when it knew none) */
	double rate_mean, rate_min, aggregate;
	int status;	/* enum model_status, when modelled */
	bool overran;	/* no answer within the budget (MODEL_TIME_LIMIT,
			 * rates 0): the model still ran, or it was never
			 * begun (tstate_evaluate_start) */
	bool has_alpha; /* an LP model: its concurrent level alpha */
	double alpha;
	/* the template LP models (mcf, ugal0 .. ugal5) solved to a certified
	 * interval rather than exactly: alpha <= optimum <= bound, gap =
	 * (bound - alpha) / alpha (has_bound false when exact or unknown) */
	bool has_bound;
	double bound, gap;
	double seconds;	 /* from the job start to the model's answer */
	double mls, tls; /* of all running jobs, percent */
	uint32_t njobs;	 /* running jobs compared */
	uint32_t job_links, job_shared; /* this job */
	/* the running jobs sharing a link with it: how many, and the ids
	 * of the first TEVAL_PARTNERS of them, ascending */
	uint32_t job_nshares;
	uint32_t partners[TEVAL_PARTNERS];
};

/* Evaluate job JOB_ID on NODES[0..N) (topology ids) once it holds them in
 * OWNER: MLS/TLS of every running job (linkshare_compute) and, for jobs of
 * 2 to MAX_MODEL_NODES nodes, the rates of its pattern (PATTERN or
 * TSTATE_DEFAULT_PATTERN) under the prediction model (tstate_predict).
 * The model runs in the predictor thread (tstate_evaluate_start) and the
 * caller waits for its answer.
 * Returns 0 whatever the model's status, or -1 with err set (a bad
 * pattern, a model that failed to run, memory); EV holds what was
 * computed before the error. */
int tstate_evaluate(const struct tstate *s, const uint32_t *owner,
		    uint32_t job_id, const uint32_t *nodes, uint32_t n,
		    const char *pattern, uint32_t max_model_nodes,
		    struct teval *ev, struct err *err);

/* Incremental link sharing of the running jobs (what job_begin reports
 * without recomputing every job's link set).  reset: rebuild from OWNER
 * ([N], topology ids); add: job JOB_ID now holds NODES (replaces a
 * previous entry); remove: the job ended.  Return 0 or -1 with err set
 * (after a failed reset the tracker is off until the next reset). */
int tstate_track_reset(struct tstate *s, const uint32_t *owner,
		       struct err *err);
int tstate_track_add(struct tstate *s, uint32_t job_id, const uint32_t *nodes,
		     uint32_t n, struct err *err);
void tstate_track_remove(struct tstate *s, uint32_t job_id);

/* RespectIsolation= (topo.conf): whether jobs of partitions without an
 * isolating policy must not share links with isolated jobs. */
bool tstate_respect_isolation(const struct tstate *s);
/* The isolated jobs' link sets (a second tracker, emptied by
 * tstate_track_reset; tstate_track_remove removes from both): protect
 * job JOB_ID on NODES (replaces a previous entry).  Returns 0 or -1 with
 * err set. */
int tstate_protect(struct tstate *s, uint32_t job_id, const uint32_t *nodes,
		   uint32_t n, struct err *err);
/* Whether a job on NODES[0..N) would use a link of a protected job: 1
 * yes, 0 no, -1 with err set. */
int tstate_conflicts(const struct tstate *s, const uint32_t *nodes, uint32_t n,
		     struct err *err);

/* tstate_evaluate for a job already added to the tracker: MLS/TLS of the
 * tracked jobs and the job's links, shared links and link partners
 * (job_nshares, partners).  Returns 0 or -1 with err set. */
int tstate_evaluate_tracked(const struct tstate *s, uint32_t job_id,
			    const uint32_t *nodes, uint32_t n,
			    const char *pattern, uint32_t max_model_nodes,
			    struct teval *ev, struct err *err);

/* A prediction under way. */
struct tpending;

/* tstate_evaluate_tracked without waiting for the model: EV holds the
 * sharing at once and *PEND the prediction's handle (NULL when the job is
 * not modelled: EV is complete).  Predictions queue for the predictor
 * thread in the order posted (at most 1024 waiting: beyond, and when one
 * waits 60 s without being begun, it is answered MODEL_TIME_LIMIT without
 * running); the thread gives each tstate_predict_budget milliseconds from
 * the moment it begins it, nine tenths of that as the model's time
 * limit.  Returns 0, or -1 with err set (EV holds what was computed). */
int tstate_evaluate_start(const struct tstate *s, uint32_t job_id,
			  const uint32_t *nodes, uint32_t n,
			  const char *pattern, uint32_t max_model_nodes,
			  struct teval *ev, struct tpending **pend,
			  struct err *err);
/* Whether T's answer is known: the model done, or begun and past its
 * budget (it may still run: the answer is then MODEL_TIME_LIMIT without
 * rates, ev->overran), or the predictor stopped.  Never waits. */
bool tstate_pending_ready(const struct tpending *t);
/* Wait until tstate_pending_ready(T). */
void tstate_pending_wait(const struct tpending *t);
/* T's answer into EV's model fields (status, rates, alpha, bound,
 * overran, seconds: from the post to the answer), waited for, and T
 * freed.  Returns 0, or -1 with err set (the model failed to run). */
int tstate_pending_finish(struct tpending *t, struct teval *ev,
			  struct err *err);

/* The record of EV, as select/topo writes it to topo_jobs.log and the
 * job's AdminComment (select_topo(8)):
 *   pattern=P flows=F model=M status=S jm_mean=R jm_min=R jm_aggregate=R
 *   [alpha=A] links=L shared=S running=J mls=M tls=T
 * (the rates are model M's; alpha for LP models) or, when not modelled,
 *   pattern=P jm=none model=M status=skipped links=L ...
 * Writes at most LEN bytes to BUF (NUL-terminated); returns BUF. */
const char *tstate_record(const struct teval *ev, char *buf, size_t len);
/* EV's link partners as a record names them (shares_with=): the ids
 * comma-separated, then "+N" for the N beyond TEVAL_PARTNERS ("12,17",
 * "1,2,...,16,+3"); "" when none.  Writes at most LEN bytes to BUF
 * (NUL-terminated; 200 bytes always suffice); returns BUF. */
const char *tstate_partners_text(const struct teval *ev, char *buf, size_t len);
/* Name of a prediction status: "optimal", "time-limit", "infeasible" or
 * "failed" (static). */
const char *tstate_status_name(int status);

/* Stop the predictor thread, after the model it runs (if any) returns
 * (the predictions still queued are answered late, as are handles
 * waited for meanwhile); for the plugin's fini.  A later evaluation
 * starts it again. */
void tstate_predictor_stop(void);

/* A job's size as Slurm states it (select_topo.c derives it from the job
 * record the way cons_tres counts: tasks, CPUs per task, tasks per node,
 * memory per CPU of each node), in the units a placement must hold. */
struct tsize {
	uint32_t lo, hi; /* node counts the job accepts, 1 <= lo <= hi */
	uint32_t first;	 /* the count tried first (lo <= first <= hi) */
	/* Units (tasks, or CPUs for a job given as CPUs) the nodes must hold
	 * together, 0 when any LO nodes do; CAP[t] is what topology node t
	 * holds (0: it cannot hold the job's per-node share). */
	uint32_t need;
	const uint32_t *cap;
	const char *unit; /* "tasks" or "CPUs", for reasons */
};

/* A job's request in plain numbers (Slurm's NO_VAL given as 0), as
 * select_topo.c reads it from the job record and job_submit_topo.c from
 * the submission. */
struct tjob {
	uint32_t min_nodes, max_nodes, req_nodes; /* 0: not given */
	uint32_t num_tasks, min_cpus;
	uint32_t cpus_per_task, ntasks_per_node; /* 0: not given */
	uint64_t mem_per_cpu;			 /* MB, 0: not per CPU */
	bool overcommit;
};

/* The size of job J on a machine of N nodes, node t having CPUS[t] CPUs
 * (less specialised cores) and MEM[t] MB of memory (NULL: unknown), the
 * way cons_tres counts (select_topo(8), Job size): the node range, and
 * the tasks (or CPUs) the nodes must hold, CAP[N] (filled) saying how
 * many each node holds.  Z->cap points to CAP when there is a need. */
void tsize_from_job(const struct tjob *j, uint32_t n, const uint32_t *cpus,
		    const uint64_t *mem, uint32_t *cap, struct tsize *z);

/* One placement at REQ->nodes nodes among USABLE: policy_place or the
 * will-run search, as the caller does it.  Returns its status (RES as for
 * policy_place). */
typedef enum policy_status (*tsize_fn)(void *ctx, const uint8_t *usable,
				       const struct policy_request *req,
				       struct policy_result *res);

/* The tsize_fn of a placement now: policy_place of P with the owners
 * OWNER (CTX is a struct tsize_policy). */
struct tsize_policy {
	const struct policy *p;
	const uint32_t *owner;
};
enum policy_status tsize_policy_place(void *ctx, const uint8_t *usable,
				      const struct policy_request *req,
				      struct policy_result *res);

/* Place a job of size Z on a machine of N nodes with FN: the node count
 * starts at FIRST (LARGEST: then, when FIRST cannot be placed, the largest
 * count down to LO that can, as stock Slurm starts a -N LO-HI job on what
 * is free; otherwise LO alone) raised until the placed nodes hold NEED
 * units (by the shortfall over the largest CAP, at most HI nodes; at HI,
 * once more on the nodes holding at least NEED/HI each).  USABLE[N] (NULL:
 * every node) is not modified.  RES->nodes must have room for N nodes.
 * Returns PLACED with REQ->nodes = RES->n, or the last status with
 * RES->reason saying why. */
enum policy_status tsize_place(const struct tsize *z, uint32_t n,
			       const uint8_t *usable, bool largest,
			       struct policy_request *req,
			       struct policy_result *res, tsize_fn fn,
			       void *ctx);

#endif
