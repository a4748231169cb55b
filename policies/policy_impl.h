/* policy_impl.h - what a policy file implements, and the helpers shared by
 * the policy files.  Adding a policy = one file policy_<name>.c defining a
 * const struct policy_ops policy_<name> (with its option table), one
 * X(<name>) in the registry (policy.c), one test.
 *
 * A policy's answers are stateless between calls: everything it knows
 * about running jobs it infers from the view (owner[] of every node) on
 * each call, so the plugin, stopo whatif and a restarted slurmctld all see
 * the same answer.  It may keep its last scans to save work (ops->sync,
 * dragonfly-groups; mesh-blocks' cache of the last view), never anything
 * an answer depends on. */
#ifndef STOPO_POLICY_IMPL_H
#define STOPO_POLICY_IMPL_H

#include <stdarg.h>

#include "policies/policy.h"
#include "topo/util/spec.h"

struct policy;

/* One search of an isolating policy for REQ: with the nodes free in V
 * (EMPTY false: the nodes go into RES), or as if every usable node were
 * free (EMPTY true: only the status and the reason count).  Returns a
 * policy_status, or -1 when out of memory. */
typedef int (*policy_search_fn)(const struct policy *p,
				const struct policy_view *v,
				const struct policy_request *req,
				struct policy_result *res, bool empty);

/* A family a policy is the default for: under ROUTING only (NULL: any),
 * the highest PRIORITY among the policies that declare the family wins
 * (as hwloc's components do); linear is every family's last resort. */
struct policy_default_for {
	const char *family; /* as topo_behaves_as_family names it */
	const char *routing;
	int priority;
};

struct policy_ops {
	const char *name;
	/* The families it is the default for, { 0 }-terminated (NULL:
	 * none). */
	const struct policy_default_for *default_for;
	/* The options with their defaults, { 0 }-terminated (NULL: none);
	 * anything else is an error.  policy_spec lists every one. */
	const struct spec_opt *opts;
	/* Whether the policy claims isolation for (most of) its jobs. */
	bool isolating;
	/* Whether it also places jobs not isolated by design (NULL: never);
	 * see policy_shares. */
	bool (*shares)(const void *state);
	/* Check the family and the options (policy_opt_*), set p->state.
	 * Returns 0 or -1 with err set. */
	int (*create)(struct policy *p, struct err *err);
	/* Free p->state (may be NULL). */
	void (*destroy)(void *state);
	/* Place (see policy_place); res->nodes has room for req->nodes and
	 * res->n, isolated and reason are cleared by the caller.  The
	 * request has been checked: 1 <= nodes <= number of nodes. */
	enum policy_status (*place)(const struct policy *p,
				    const struct policy_view *v,
				    const struct policy_request *req,
				    struct policy_result *res);
	/* Isolating policies give a search instead of place: policy_place
	 * runs it through policy_place_isolated.  The search sets
	 * res->isolated when it places. */
	policy_search_fn search;
	/* Whether placing never gets harder as running jobs end: if the
	 * search does not answer WAIT on a view, it does not on any view
	 * with more nodes free (same usable mask, free nodes kept free).
	 * Will-run then bisects over the end times instead of asking at
	 * each (willrun.c); the replay test checks the answers agree. */
	bool monotone;
	/* Whether an answer never depends on the request's job id (no seed
	 * drawn from it, no nodes of the job's own): will-run's kept
	 * answers (willrun.c) then serve every job asking the same. */
	bool anonymous;
	/* Or, for a policy that is not: whether its answer to REQ is
	 * (NULL: never). */
	bool (*anonymous_for)(const struct policy *p,
			      const struct policy_request *req);
	/* Bring what the policy keeps between calls (a cache of its last
	 * scans, never an answer of its own) to view V; NULL: it keeps
	 * nothing.  See policy_sync. */
	void (*sync)(const struct policy *p, const struct policy_view *v);
	/* See policy_resv_level; NULL: -1. */
	int (*resv_level)(const struct policy *p, const uint32_t *nodes,
			  uint32_t n);
};

struct policy {
	const struct policy_ops *ops;
	const struct topo *t;
	const struct routing *r;
	struct spec args; /* the spec as given, checked against ops->opts */
	struct policy_opts opts; /* as created (policy_create_opt) */
	char spec[320];
	void *state;
	/* will-run's last sort of the running jobs by end and its last
	 * answers (willrun.c), reused while the same jobs are passed at the
	 * same time on the same machine state */
	struct willrun_cache *wrc;
};

/* The will-run sort cache of a policy: new (NULL out of memory; will-run
 * then sorts every call) and free (NULL is fine). */
struct willrun_cache *willrun_cache_new(void);
void willrun_cache_free(struct willrun_cache *c);

/* Ops of policy NAME or NULL. */
const struct policy_ops *policy_find(const char *name);

/* Option KEY of P (given, else its default); "" when P's policy has no
 * such key. */
const char *policy_opt(const struct policy *p, const char *key);
/* Show option KEY (one of P's) as VALUE in policy_spec, e.g. "-" for an
 * option the chosen mode ignores; create may call it.  Returns 0 or -1
 * when VALUE is too long. */
int policy_opt_show(struct policy *p, const char *key, const char *value);
/* Option KEY as an integer in [lo, hi].  Returns 0 or -1 with err set. */
int policy_opt_long(const struct policy *p, const char *key, long lo, long hi,
		    long *out, struct err *err);
/* Option KEY as the index of one of CHOICES (NULL-terminated).  Returns 0
 * or -1 with err set naming the accepted values. */
int policy_opt_choice(const struct policy *p, const char *key,
		      const char *const *choices, int *out, struct err *err);

/* Format RES->reason; returns STATUS (for `return policy_say(...)`). */
enum policy_status policy_say(struct policy_result *res,
			      enum policy_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Whether node I is free and usable in V. */
static inline bool policy_node_ok(const struct policy_view *v, uint32_t i)
{
	return v->owner[i] == POLICY_FREE && (!v->usable || v->usable[i]);
}

/* Whether node I could be used on an empty machine (usable). */
static inline bool policy_node_usable(const struct policy_view *v, uint32_t i)
{
	return !v->usable || v->usable[i];
}

/* A well-mixed hash of a job id (open-addressing tables of job ids). */
static inline uint32_t policy_hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* Job table: dense indices for the job ids present in owner[] (open
 * addressing; built per call in O(N)).  idx[i] is the dense index of the
 * owner of node i or UINT32_MAX for a free node; ids[j] the job id of
 * index j. */
struct policy_jobs {
	uint32_t n;    /* distinct jobs */
	uint32_t *idx; /* [N] */
	uint32_t *ids; /* [n] */
};
/* Build the table for the N nodes of OWNER.  Returns 0 or -1 (memory). */
int policy_jobs_build(struct policy_jobs *j, const uint32_t *owner, uint32_t n);
void policy_jobs_free(struct policy_jobs *j);

/* Free usable nodes of V in id order into OUT (room for N); returns the
 * count. */
uint32_t policy_free_nodes(const struct policy *p, const struct policy_view *v,
			   uint32_t *out);
/* The free usable nodes of V in id order when there are at least NEED:
 * a new array (caller frees) of *nfree entries.  Otherwise NULL, with
 * RES's reason "waiting for NEED free nodes (F free)" or "out of memory"
 * (the status is POLICY_WAIT either way). */
uint32_t *policy_free_enough(const struct policy *p,
			     const struct policy_view *v, uint32_t need,
			     uint32_t *nfree, struct policy_result *res);

/* Place REQ with SEARCH.  A job that has to wait (POLICY_WAIT, reason
 * "waiting for X") but for which the search fails even on the empty
 * machine (attempt 0) can never run: POLICY_NEVER "can never run
 * isolated: needs X".  Out of memory in the first search: POLICY_WAIT.
 * res->isolated is cleared unless the job was placed. */
enum policy_status policy_place_isolated(const struct policy *p,
					 const struct policy_view *v,
					 const struct policy_request *req,
					 struct policy_result *res,
					 policy_search_fn search);

/* Seed for (SEED, job, attempt): deterministic, well mixed. */
uint64_t policy_seed(uint64_t seed, uint32_t job_id, uint32_t attempt);
/* Draw K distinct elements of POOL[0..npool) uniformly (partial
 * Fisher-Yates from SEED; POOL is permuted) into OUT.  K <= npool. */
void policy_pick_random(uint32_t *pool, uint32_t npool, uint32_t k,
			uint64_t seed, uint32_t *out);

/* A candidate (leaf, pod, group, router ...) and its sort key.  Sorted
 * with policy_cand_cmp: ascending key, ties by ascending id, so every call
 * (and every attempt index) sees the candidates in the same order. */
struct policy_cand {
	uint64_t key;
	uint32_t id;
};
/* qsort comparator of struct policy_cand (see above). */
int policy_cand_cmp(const void *a, const void *b);

/* Sort A[0..n) ascending (node lists handed back are sorted). */
void policy_sort_u32(uint32_t *a, uint32_t n);

#endif
