/* policy.h - job allocation policies behind one ops table, shared by the
 * Slurm plugin and stopo (what the offline evaluator predicts is what
 * production does).
 *
 * A policy is bound at creation to a topology and a routing (whether two
 * jobs interfere depends on the routing), is immutable afterwards and is
 * deterministic: the same view and request give the same answer. */
#ifndef STOPO_POLICY_H
#define STOPO_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/util/err.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define POLICY_FREE 0u /* owner[] value of a free node */
#define POLICY_MAX_GRID 3

/* What the policy sees of the machine now. */
struct policy_view {
	/* [N] job id holding each node, POLICY_FREE when free. */
	const uint32_t *owner;
	/* [N] nonzero when the node may be given to this request (partition,
	 * node state, Slurm's candidate bitmap); NULL means every node. */
	const uint8_t *usable;
	/* 0, or a version of what owner[] and usable[] hold: two views with
	 * the same nonzero gen hold the same, so a policy may reuse what it
	 * derived from the last one (a simulator's backfill asks hundreds
	 * of jobs about one machine state).  The caller bumps it at every
	 * change. */
	uint64_t gen;
	/* Optional, with a nonzero gen: the view holds what the view of
	 * gen BASE_GEN (same usable pointer) held but at the nodes
	 * CHANGED[0..NCHANGED) (distinct), so a policy that kept what it
	 * derived from that view need only look at these (will-run's
	 * releases).  NULL: no hint. */
	uint64_t base_gen;
	const uint32_t *changed;
	uint32_t nchanged;
};

/* A new view version, unique in the process (thread-safe): every caller
 * that sets policy_view.gen takes them from here, so that two callers
 * sharing a policy never give one gen to two states. */
uint64_t policy_gen_next(void);

struct policy_request {
	uint32_t job_id; /* nonzero */
	uint32_t nodes;	 /* node count */
	/* 0 = best candidate; k = the k-th alternative (the plugin asks again
	 * when the wrapped select plugin refused a candidate). */
	uint32_t attempt;
	const char *pattern; /* traffic pattern spec or NULL */
	uint32_t ngrid;	     /* Cartesian task grid dims, 0 when absent */
	uint32_t grid[POLICY_MAX_GRID];
};

enum policy_status {
	POLICY_PLACED = 0, /* result holds the nodes */
	POLICY_WAIT,	   /* not now: reason says what it waits for */
	POLICY_NEVER,	   /* can never be placed (too large, no such
			    * attempt, ...): reason says why */
};

struct policy_result {
	uint32_t *nodes; /* caller-allocated, room for request.nodes */
	uint32_t n;	 /* = request.nodes when placed */
	/* Whether the placement is guaranteed interference-free (MLS = TLS =
	 * 0 against every running job).  false for baselines and for
	 * dragonfly-groups' large=shared jobs. */
	bool isolated;
	char reason[192]; /* human text for WAIT / NEVER */
	/* Optional (NULL: not wanted): room for RANK_CAP entries.  A policy
	 * that plans the job's rank order (nne, for a job with a Cartesian
	 * grid spanning groups) writes there the node of every rank, rank
	 * order (rank = x0 + B0 (x1 + B1 x2)), and sets NRANKS to the number
	 * of ranks; NRANKS 0: no plan, the caller's own order stands (also
	 * when RANK_CAP is too small). */
	uint32_t *rank_node;
	uint32_t rank_cap, nranks;
};

struct policy;

/* Create policy SPEC ("name[:key=value,...]", e.g. "dragonfly-groups:
 * large=wait", "random:seed=7") for topology T and routing R (both
 * borrowed, must outlive the policy).  NULL with err set when the name or
 * an option is unknown or the policy does not apply to T's family. */
struct policy *policy_create(const char *spec, const struct topo *t,
			     const struct routing *r, struct err *err);
/* Knobs for tests and benchmarks, fixed when a policy is created; zeroed
 * (or policy_create) is the product's behaviour. */
struct policy_opts {
	/* Answer with the searches used before their fast paths (the replay
	 * tests compare both answers). */
	bool reference_search;
	/* Will-run searches every call instead of giving its last answer
	 * again to an equal request (benchmarks timing the search). */
	bool willrun_forget;
};
/* policy_create with options O (NULL: zeroed). */
struct policy *policy_create_opt(const char *spec, const struct topo *t,
				 const struct routing *r,
				 const struct policy_opts *o, struct err *err);
/* The spec "default" stands for the family's default policy under the
 * routing (policy_default_spec); policy_spec then gives the policy it
 * resolved to. */
#define POLICY_DEFAULT "default"
/* The default policy of T's family under R: fattree-pods on fat-trees,
 * mesh-blocks on express meshes, HyperX and tori, dragonfly-groups on
 * dragonflies and Cascade under min, dragonfly-balanced under vlb and
 * ugal, linear otherwise and wherever the family's own does not apply to
 * the routing.  A static string. */
const char *policy_default_spec(const struct topo *t, const struct routing *r);
/* Why the family's own policy (the first of its list) does not apply to T
 * under R, so that the default fell back: its policy_create message in
 * BUF (LEN bytes), returned; NULL when it applies or the family has none
 * but linear. */
const char *policy_default_why(const struct topo *t, const struct routing *r,
			       char *buf, size_t len);
/* Free; NULL is a no-op. */
void policy_destroy(struct policy *p);

/* Check SPEC's grammar, name and options as policy_create does, without a
 * topology (what the SPANK plugin can check at submission).  Returns 0 or
 * -1 with err set to policy_create's message for the same spec. */
int policy_check(const char *spec, struct err *err);

/* Place REQ on the machine as V shows it.  Returns the status (never
 * fails otherwise; out-of-memory is POLICY_WAIT with a reason).
 * PLACED: res->nodes[0..n) ascending, all free and usable in V.
 * WAIT: no candidate now, but one exists with every usable node free.
 * NEVER: not even then (too large, no such shape ...), or req->attempt is
 * beyond the candidates (attempt k is the k-th best distinct candidate).
 * The policy infers everything about running jobs from V alone, so the
 * answer depends only on (V, REQ).  See stopo-policies(7). */
enum policy_status policy_place(const struct policy *p,
				const struct policy_view *v,
				const struct policy_request *req,
				struct policy_result *res);

/* The Cartesian task grid "A", "AxB" or "AxBxC" (--topo-grid: positive
 * integers up to POLICY_GRID_MAX each, 1 to POLICY_MAX_GRID of them) into
 * REQ->grid and REQ->ngrid; the one parser of the SPANK plugin (at
 * submission) and the controller.  Returns 0, or -1 with err set to
 * "grid S: why" and REQ->ngrid 0. */
#define POLICY_GRID_MAX 1000000u
int policy_grid_parse(const char *s, struct policy_request *req,
		      struct err *err);

/* policy_place again for a request that policy_place answered PLACED or
 * WAIT for (on the same usable nodes or a superset: will-run's releases,
 * a simulator's later passes): the request is not re-checked, and an
 * isolating policy's WAIT is not re-examined for "never" on the empty
 * machine (the first answer settled that it can run).  The same answer
 * as policy_place but WAIT where policy_place might say NEVER for a
 * smaller usable set (an attempt beyond the candidates still says
 * NEVER).  Saves the second search of every wait. */
enum policy_status policy_place_again(const struct policy *p,
				      const struct policy_view *v,
				      const struct policy_request *req,
				      struct policy_result *res);

/* Tell P that the machine is as V shows it, without asking anything: a
 * policy that keeps its last scans (dragonfly-groups, dragonfly-balanced)
 * brings them to V, best through V's change hint.  Answers never depend
 * on it; it saves the next question a fresh scan (will-run gives back
 * the state it asked from after its releases).  */
void policy_sync(const struct policy *p, const struct policy_view *v);

/* What select/topo records of each start (topo_jobs.log, the job's
 * AdminComment) and stopo report reads back: " placement=NAME", with
 * why="..." for a shared one.  One format, written and parsed here. */
enum policy_placement {
	POLICY_PLACEMENT_UNKNOWN, /* not recorded */
	POLICY_PLACEMENT_ISOLATED,
	POLICY_PLACEMENT_SHARED,    /* by design, with the policy's reason */
	POLICY_PLACEMENT_OBLIVIOUS, /* a policy that does not isolate */
	POLICY_PLACEMENT_N
};
/* "isolated", "shared", "oblivious"; NULL for UNKNOWN. */
const char *policy_placement_name(enum policy_placement k);
/* " placement=NAME" (SHARED: " placement=shared why=\"WHY\"", double
 * quotes in WHY written as single ones) into BUF; "" for UNKNOWN. */
void policy_placement_format(enum policy_placement k, const char *why,
			     char *buf, size_t len);
/* The placement recorded in TEXT (NULL: none) and, for a shared one, its
 * why into WHY (LEN bytes; "" when absent). */
enum policy_placement policy_placement_parse(const char *text, char *why,
					     size_t len);

const char *policy_name(const struct policy *p);
/* Canonical spec with options (borrowed). */
const char *policy_spec(const struct policy *p);
/* Whether the policy claims isolation for the jobs it places. */
bool policy_isolating(const struct policy *p);
/* Whether an isolating policy also places jobs it does not call isolated,
 * by design (dragonfly-balanced, dragonfly-groups:large=shared under
 * Valiant routing): their sharing links is no broken isolation. */
bool policy_shares(const struct policy *p);
/* The units a reservation for a job the policy placed on NODES[0..N) of
 * an empty machine must hold whole, so that no job outside it can ever
 * make that placement wait: -1 the nodes alone, 0 their switches, 1
 * their groups (fat-tree pods, dragonfly groups), 2 and above larger
 * units (a caller rounding only to switches and groups must refuse).
 * -1 for a policy whose own placement already refuses partial units
 * where it must (fattree-pods' paper rules). */
int policy_resv_level(const struct policy *p, const uint32_t *nodes,
		      uint32_t n);
/* Names of the registered policies, NULL-terminated. */
const char *const *policy_names(void);

#endif
