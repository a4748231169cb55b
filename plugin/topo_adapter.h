/*****************************************************************************\
 *  topo_adapter.h - the Slurm-free half of select/topo: the machine of
 *  topo.conf (policies/machine: topology, names, routing, the policy of
 *  every partition) checked against slurm.conf's node list, the
 *  --topo-policy policies (cached) and the in-process evaluator (link
 *  sharing, JM rates).  Placement and will-run are the policies' own
 *  (policy_place, policy_will_run in policies/).  select_topo.c
 *  translates Slurm structures (bitmaps, job records) to and from these
 *  dense ids; this file includes no Slurm header so that it follows the
 *  core's contracts (err.h, no printing).
\*****************************************************************************/
#ifndef _SELECT_TOPO_ADAPTER_H
#define _SELECT_TOPO_ADAPTER_H

#include <stdbool.h>
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
 * errors) and check it against Slurm's nodes NAMES[0..NSLURM): every Slurm
 * node must be named in topo.conf and every topo.conf node must be a
 * Slurm node.  PARTS[0..NPARTS), slurm.conf's partitions, is not needed
 * (kept for the caller).  Returns a new state or NULL with err set to
 * "PATH:LINE: what", the line from the parser. */
struct tstate *tstate_load(const char *path, const char *const *names,
			   uint32_t nslurm, const char *const *parts,
			   uint32_t nparts, struct err *err);
/* Free; NULL is a no-op. */
void tstate_destroy(struct tstate *s);

const struct topo *tstate_topo(const struct tstate *s);
const struct routing *tstate_routing(const struct tstate *s);
/* The select plugin topo.conf's Wrap= names: "select/cons_tres" (the
 * default) or "select/linear" (static). */
const char *tstate_wrap(const struct tstate *s);
/* Number of topology nodes (= Slurm nodes). */
uint32_t tstate_nodes(const struct tstate *s);
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

/* What the in-process evaluator records for a job that starts. */
struct teval {
	char pattern[64];
	bool modelled; /* false: 1 node or above the size cap */
	uint32_t flows;
	double rate_mean, rate_min, aggregate; /* JM, capacity units */
	double mls, tls; /* of all running jobs, percent */
	uint32_t njobs;	 /* running jobs compared */
	uint32_t job_links, job_shared, job_nshares; /* this job */
};

/* Evaluate job JOB_ID on NODES[0..N) (topology ids) once it holds them in
 * OWNER: MLS/TLS of every running job (linkshare_compute) and, for jobs of
 * 2 to MAX_MODEL_NODES nodes, the JM rates of its pattern (PATTERN or
 * TSTATE_DEFAULT_PATTERN; LP time limit 1 s).  Returns 0, or -1 with err
 * set; EV holds what was computed before the error. */
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

/* tstate_evaluate for a job already added to the tracker: MLS/TLS of the
 * tracked jobs and the job's links and shared links (job_nshares is not
 * known: 0).  Returns 0 or -1 with err set. */
int tstate_evaluate_tracked(const struct tstate *s, uint32_t job_id,
			    const uint32_t *nodes, uint32_t n,
			    const char *pattern, uint32_t max_model_nodes,
			    struct teval *ev, struct err *err);

#endif
