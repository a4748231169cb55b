/* linkshare.h - link sharing among jobs: the interference metrics MLS and
 * TLS of paper 003 (Sec. IV-A, Eq. 5-6).
 *
 * A job's link set l_i is every switch-to-switch directed link that any
 * path of any of its flows can use under the routing (injection and
 * ejection links belong to the job's own nodes and are excluded).  Default
 * flows: every ordered pair of the job's distinct nodes (computed through
 * routing_linkset, structurally where the family allows); a job with a
 * pattern uses the union of the routing_paths links of the pattern's flows.
 *
 *   MLS = max_i |l_i  ∩  U_{k!=i} l_k| / |l_i| * 100   (a job with an empty
 *         link set counts 0)
 *   TLS = |U_{i!=k} l_i ∩ l_k| / |U_i l_i| * 100        (0 when no job uses
 *         any link)
 *
 * Everything is counted per link (no enumeration of job pairs), so it
 * scales to 10,000-node machines with thousands of jobs.  Two forms: a
 * one-shot linkshare_compute, and an incremental struct ls_state (add and
 * remove a job's link set; MLS/TLS at any moment) for the what-if simulator
 * and the Slurm plugin.
 */
#ifndef STOPO_LINKSHARE_H
#define STOPO_LINKSHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/util/err.h"
#include "topo/routing.h"

/* One job: its nodes (distinct node ids) and an optional traffic pattern
 * spec (see flows_pattern; NULL = all ordered pairs).  The pattern's random
 * choices are seeded with SEED (0 = the job id). */
struct ls_job {
	uint32_t id;
	const uint32_t *nodes;
	uint32_t n;
	const char *pattern;
	uint64_t seed;
};

/* Per-job statistics. */
struct ls_job_stat {
	uint32_t id;
	uint32_t links;	       /* |l_i| */
	uint32_t shared;       /* links of l_i also used by another job */
	double pct;	       /* shared / links * 100 (0 when links = 0) */
	uint32_t nshares;      /* number of other jobs it shares a link with */
	uint32_t *shares_with; /* their ids, ascending (nshares entries) */
	bool isolated;	       /* shared == 0 */
};

struct ls_result {
	double mls, tls; /* percent, Eq. 5 and 6 */
	uint32_t njobs;
	struct ls_job_stat *jobs; /* [njobs], in input order */
	uint32_t nlinks;	  /* topo_num_links */
	uint16_t *link_jobs;	  /* [nlinks] jobs using each link (saturates
				    * at UINT16_MAX); 0 for injection and
				    * ejection links */
	uint32_t used_links;	  /* |U_i l_i| */
	uint32_t shared_links;	  /* |U_{i!=k} l_i ∩ l_k| */
	uint32_t max_link_jobs;	  /* most jobs on one link */
	uint32_t bad_job; /* after a failure naming a job, its index in the
			   * jobs given; else UINT32_MAX */
};

/* Link set of job J under routing R: a new ascending array of switch-link
 * ids in *links (caller frees; NULL when *n = 0).  SCRATCH, when not NULL,
 * has topo_num_links zero bytes and is left zeroed (saves an allocation
 * per job).  Returns 0, or -1 with err set (bad node id, bad pattern,
 * memory). */
int linkshare_linkset(const struct routing *r, const struct ls_job *j,
		      uint8_t *scratch, uint32_t **links, uint32_t *n,
		      struct err *err);

/* MLS, TLS and per-job / per-link statistics of NJOBS jobs.  Fills RES
 * (free with linkshare_free).  Returns 0, or -1 with err set naming the
 * job ("job 12: ..."); RES is then empty but for bad_job, the index of
 * that job (a caller can name the line it came from). */
int linkshare_compute(const struct routing *r, const struct ls_job *jobs,
		      uint32_t njobs, struct ls_result *res, struct err *err);

/* Free what linkshare_compute allocated; RES is zeroed.  NULL is a no-op. */
void linkshare_free(struct ls_result *res);

/* Incremental form: per-link job counts of the jobs running now. */
struct ls_state;

/* New, empty state over routing R's topology (borrowed).  NULL on
 * out-of-memory with err set. */
struct ls_state *ls_state_create(const struct routing *r, struct err *err);
/* Free; NULL is a no-op. */
void ls_state_destroy(struct ls_state *s);

/* Add job ID with link set LINKS (N ascending switch-link ids, as from
 * linkshare_linkset; the state takes ownership of LINKS and frees it).
 * Cost O(N).  Returns 0, or -1 with err set (duplicate id, bad link id,
 * memory; LINKS is freed then too). */
int ls_state_add(struct ls_state *s, uint32_t id, uint32_t *links, uint32_t n,
		 struct err *err);
/* Compute job J's link set and add it.  Returns 0 or -1 with err set. */
int ls_state_add_job(struct ls_state *s, const struct ls_job *j,
		     struct err *err);
/* Remove job ID.  Returns 0, or -1 when it is not in the state. */
int ls_state_remove(struct ls_state *s, uint32_t id);

/* Current MLS (O(jobs)) and TLS (O(1)), percent. */
double ls_state_mls(const struct ls_state *s);
double ls_state_tls(const struct ls_state *s);
/* Jobs in the state. */
uint32_t ls_state_njobs(const struct ls_state *s);
/* What job ID sees now. */
struct ls_job_now {
	uint32_t links;	  /* |l_i| */
	uint32_t shared;  /* of them used by another job now */
	bool ever_shared; /* shared > 0 at some moment since it was added */
};
/* Fill OUT for job ID.  Returns 0, or -1 when it is not in the state. */
int ls_state_job(const struct ls_state *s, uint32_t id, struct ls_job_now *out);
/* Jobs using link L now (0 for out-of-range ids). */
uint32_t ls_state_link_jobs(const struct ls_state *s, uint32_t l);
/* The jobs sharing at least one link with job ID now (ID itself not
 * included): their number into *COUNT and their ids ascending into
 * IDS[0..min(*COUNT, CAP)) (the smallest CAP of them).  O(|l_ID| +
 * slots) when no link of ID carries three jobs or more (a link's XOR
 * names the other job), else a pass over the other jobs' link sets.
 * Returns 0, or -1 with err set (ID not in the state, memory). */
int ls_state_partners(const struct ls_state *s, uint32_t id, uint32_t *ids,
		      uint32_t cap, uint32_t *count, struct err *err);
/* The jobs whose sharing turned over in the last successful
 * ls_state_add or ls_state_remove: from no shared link to some, or from
 * some to none (the job added or removed itself not included).  Their
 * ids in *IDS (borrowed, valid until the next add or remove).  Returns
 * their number.  Found in the same O(|l_i|) pass. */
uint32_t ls_state_flipped(const struct ls_state *s, const uint32_t **ids);

#endif
