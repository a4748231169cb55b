/* model.h - throughput models: given flows and the paths each may use,
 * predict the rate of every flow (paper 000 Sec. II).
 *
 *   hm   Hoefler's method: each of a flow's k paths is a sub-flow; a link
 *        of capacity C crossed u times by sub-flows gives each C/u; a
 *        sub-flow gets the minimum over its links; a flow the sum.
 *   jm   Jain's method (Sec. II-D): HM increments on the residual capacity
 *        of unsaturated paths, repeated until every path is saturated; a
 *        link saturates when its residual is <= 1e-12 and the link(s) that
 *        set the smallest increment always saturate.  Where the routing
 *        gives factored path sets (dragonfly and Cascade under vlb and
 *        ugal, routing_stems) model_run solves on stems and middles
 *        without enumerating the paths: the same rates up to the order of
 *        floating-point sums, in a fraction of the time and memory
 *        (jm:method=paths forces enumeration, method=factored requires
 *        the factored sets).
 *   mcf  maximum concurrent flow: one LP, maximise alpha with every flow
 *        carrying at least alpha*demand over its paths; rate = alpha*demand.
 *   mmf  weighted max-min fair rates (Fig. 1-2: iterative LPs, warm
 *        started; saturated flows found from the LP duals), or progressive
 *        filling when every flow has one path; with a mix, filling for
 *        the single-path flows and the LPs on the multi-path ones.
 *   ugal0 .. ugal5  paper 002's UGAL-G Models 0-5 on a dragonfly or
 *        Cascade with routing ugal: MCF where the MIN and the VLB paths of
 *        a flow are grouped (per path, per hop count or all together) and
 *        the paths of a group share one rate; built from the topology's
 *        structure (ugal_tpl.h), never from enumerated VLB paths.
 * Rates are in units of link capacity.  HM and JM ignore demands; MCF and
 * MMF use them as weights.  A path is a list of directed link ids taken
 * literally: a link crossed twice by one path is loaded twice.
 *
 * Two entries: model_run (a routing and a flow list) and model_solve (a
 * hand-built instance: capacities and explicit path sets, no topology).
 * "Did it run" (the return value) is kept apart from "what was the answer"
 * (res->status): an LP that hit its time limit is status MODEL_TIME_LIMIT
 * with return 0.  Only model_lp.c includes <glpk.h>.
 */
#ifndef STOPO_MODEL_H
#define STOPO_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evaluator/traffic/flows.h"
#include "topo/util/err.h"
#include "topo/routing.h"

enum model_status {
	MODEL_OPTIMAL = 0,    /* the model's answer, exact to tolerance */
	MODEL_TIME_LIMIT = 1, /* LP stopped at opts->time_limit_ms; rates are
			       * the best feasible allocation known (MMF:
			       * levels fixed so far; MCF: all 0) */
	MODEL_INFEASIBLE = 2, /* the LP has no solution (cannot happen for
			       * valid input; reported, never aborted) */
	MODEL_FAILED = 3,     /* the solver gave up (numerical trouble) */
};

enum model_mmf_method {
	MODEL_MMF_AUTO = 0,    /* progressive filling if every flow has one
				* path, the hybrid otherwise */
	MODEL_MMF_LP = 1,      /* always the iterative LP (Fig. 1-2): the
				* reference */
	MODEL_MMF_FILLING = 2, /* progressive filling; error unless single
				* path */
	MODEL_MMF_HYBRID = 3   /* progressive filling for the single-path
				* flows, the iterative LP on the multi-path
				* flows and the links they cross only, solved
				* when its level is next (model_mmf.c); the
				* LP's answer */
};

/* Which engine solves the max-concurrent-flow LPs of mcf and ugal0 ..
 * ugal5 (evaluator/models/mcf_tpl.h). */
enum model_engine {
	MODEL_ENGINE_AUTO = 0,	/* exact when the LP has at most
				 * MODEL_EXACT_NONZEROS non-zeros, else fast */
	MODEL_ENGINE_EXACT = 1, /* GLPK's simplex: the optimum */
	MODEL_ENGINE_FAST = 2,	/* the first-order solver: a certified
				 * interval [alpha, bound] within gap */
};

/* Up to this many LP non-zeros, MODEL_ENGINE_AUTO solves exactly: GLPK
 * takes 0.07 s on the 6,019 of dragonfly:p=2,a=4,h=2,g=9 ugal3 perm:1 but
 * 8.5 s on the 85,117 of dragonfly:p=3,a=6,h=3,g=19, where the
 * first-order solver needs 0.07 s to 1 % (stopo-eval(1), PERFORMANCE). */
#define MODEL_EXACT_NONZEROS 20000

struct model_opts {
	uint32_t time_limit_ms;	  /* LP models, whole run; 0 = no limit */
	enum model_engine engine; /* mcf and ugal0 .. ugal5 */
	double gap; /* fast engine: stop when (bound - alpha) / alpha <= gap
		     * (default 0.01; at least 1e-6) */
	uint32_t top_links;  /* most loaded links to report (default 10; 0:
			      * none, and no pass over the paths for link
			      * loads) */
	uint32_t need_flows; /* 0 (default): every flow's rate.  N > 0: only
			      * flows 0 .. N-1 need their final rate; jm
			      * stops once all their paths are saturated (the
			      * rates of later flows are then lower bounds,
			      * and so are the aggregate and node
			      * statistics); other models ignore it */
	double dual_tol;     /* MMF: a flow is saturated when
			      * |dual| * demand > dual_tol (default 1e-9) */
	enum model_mmf_method mmf_method;
	/* hm: stem links kept per flow set (default 2^25, 128 MiB); the
	 * stems of the flows beyond are built again when rated.  Tests
	 * lower it to take that path. */
	size_t hm_stem_budget;
	/* hm's closed form on a dragonfly: most weights memoised per
	 * direction (default 2^24, 128 MiB); beyond, they are computed per
	 * flow.  Tests set 0 to take that path. */
	size_t hm_dfly_memo_max;
	/* ... and the most path records of one group pair's table
	 * (default 2^20, 24 MiB); a flow set with a pair needing more is
	 * rated flow by flow.  Tests set 0 to take that path. */
	size_t hm_dfly_rec_max;
};

/* Defaults: no time limit, MODEL_ENGINE_AUTO, gap 0.01, 10 links,
 * dual_tol 1e-9, MODEL_MMF_AUTO, every flow needed, hm's budgets as
 * above. */
void model_opts_init(struct model_opts *o);

/* An instance.  Flow i's paths are path ids flow_off[i] .. flow_off[i+1]-1;
 * path p's links are links[path_off[p] .. path_off[p+1]).  Every link id
 * must be < nlinks, every capacity finite and >= 0, every demand finite and
 * > 0, every path non-empty; model_solve checks and reports violations. */
struct model_input {
	uint32_t nlinks;
	double *cap; /* [nlinks] */
	uint32_t nflows;
	double *demand;	    /* [nflows]; NULL = all 1 */
	uint32_t *src;	    /* [nflows] source node (per-node statistics);
			       * NULL = flow i is its own node */
	uint32_t *flow_off; /* [nflows+1] */
	uint32_t npaths;    /* = flow_off[nflows] */
	uint32_t *path_off; /* [npaths+1] */
	uint32_t *links;    /* [path_off[npaths]] */
	uint8_t owned;	    /* set by model_input_build: arrays are freed by
			       * model_input_free */
};

/* Build the instance of flows F under routing R (every path of every flow,
 * link capacities from the topology).  Returns 0 or -1 with err set (bad
 * node id, self-flow, memory).  Free with model_input_free. */
int model_input_build(const struct routing *r, const struct flows *f,
		      struct model_input *in, struct err *err);
/* Free what model_input_build allocated; NULL is a no-op. */
void model_input_free(struct model_input *in);

struct model_link_load {
	uint32_t link;
	double load, capacity;
};

struct model_result {
	const char *model; /* "hm", "jm", "mcf", "mmf", "ugal0" .. "ugal5"
			    * (static storage) */
	int status;	   /* enum model_status */
	uint32_t nflows;
	double *rates; /* [nflows], input order */
	uint32_t npaths;
	double *path_rates; /* [npaths] rate on each path (sum per flow =
				 * rates[i]) */
	double aggregate;   /* sum of rates */
	double mean_rate, min_rate, max_rate;
	double alpha; /* mcf: the concurrent level; mmf: the first
				 * level (= mcf); hm/jm: 0 */
	/* per node: sum of the rates of the flows it sends, over the distinct
	 * source nodes (paper 001) */
	uint32_t nnodes;
	double node_min, node_mean, node_max, node_jain;
	uint32_t ntop; /* most loaded links, by load/capacity */
	struct model_link_load *top;
	/* how the answer was found */
	uint32_t iterations; /* jm rounds; mmf: LPs solved + filling
			      * levels */
	uint32_t lp_rows, lp_cols;
	uint64_t lp_nonzeros; /* of the (first) LP */
	double seconds;	      /* wall time of the solve */
	uint64_t paths_total; /* paths of every flow: npaths, or for the
			       * UGAL models (npaths 0, path_rates NULL)
			       * their count, summed over the groups */
	/* the template LP models (mcf, ugal0 .. ugal5; 0 and NULL
	 * otherwise) */
	uint64_t variables; /* LP columns: one per path group, and alpha */
	double bound;	    /* certified upper bound on alpha: = alpha when
			     * solved exactly, infinity when unknown */
	double gap;	    /* (bound - alpha) / alpha; 0 when exact */
	const char *solver; /* "glpk" (exact) or "pdhg" (the certified
			     * first-order solver; static storage) */
};

/* Number of registered models (hm, jm, mcf, mmf, ...). */
size_t model_count(void);
/* Name of model I in registry order, NULL when I >= model_count(). */
const char *model_name(size_t i);
/* Check that SPEC ("name[:key=value,...]") names a registered model with
 * options it knows.  Returns 0, or -1 with err set, e.g. "unknown model
 * 'x' (known: hm, jm, mcf, mmf)". */
int model_check(const char *spec, struct err *err);

/* Check that model SPEC can run under routing R.  Returns 0, or -1 with
 * err saying why not (an unknown model; the UGAL models need routing ugal
 * on a dragonfly or cascade topology). */
int model_applies(const char *spec, const struct routing *r, struct err *err);

/* model_check, then model_applies: SPEC names a model with options it
 * knows and that model runs under R.  The check of a Predict= model. */
int model_check_routing(const char *spec, const struct routing *r,
			struct err *err);

/* True when model SPEC works on enumerated paths under R (hm, jm, mcf,
 * mmf: a struct model_input, model_solve); false for the models built
 * from the routing's structure (ugal0 .. ugal5: model_run only), for hm
 * and jm where R gives factored path sets (method=auto, and for any R
 * with method=factored: model_run solves on stems and middles, never
 * enumerating) and for unknown names.
 * R NULL: whether the model can work on paths at all. */
bool model_uses_paths(const char *spec, const struct routing *r);

/* Run model SPEC on flows F under R: the path models on every path of F
 * (see model_input_build), the UGAL models on templates built from R's
 * structure (evaluator/models/ugal_tpl.h).  OPTS NULL means defaults.
 * Fills RES (free with model_result_free).  Returns 0 when the model ran,
 * whatever res->status says; -1 with err set on an unknown model, a model
 * that does not apply to R, bad input, a UGAL LP above its limit= or
 * memory. */
int model_run(const char *spec, const struct routing *r, const struct flows *f,
	      const struct model_opts *opts, struct model_result *res,
	      struct err *err);

/* The same on an explicit instance (path models only).  Returns 0 or -1
 * with err set. */
int model_solve(const char *spec, const struct model_input *in,
		const struct model_opts *opts, struct model_result *res,
		struct err *err);

/* Hoefler's method kept current as flow sets come and go (whatif's
 * rates under hm): each link's sub-flow count over the sets present.
 * hm's rates of a flow depend only on the counts of its own paths' links,
 * and counts add, so the rates of a set added last are those of
 * path-level hm over every set present (equal up to the order of sums). */
struct model_hm_state;
/* What a set added: its links (topology ids) and their counts. */
struct model_hm_set {
	uint32_t n;
	uint32_t *link;
	double *cnt;
};
/* An empty state on R's topology for hm SPEC (NULL: "hm"): method=auto
 * counts a dragonfly's paths in closed form (routing_dfly), factored
 * always through the routing's stems; O's hm budgets (NULL: the
 * defaults of model_opts_init).  NULL with err set (memory). */
struct model_hm_state *model_hm_state_create(const struct routing *r,
					     const char *spec,
					     const struct model_opts *o,
					     struct err *err);
void model_hm_state_destroy(struct model_hm_state *h);
/* Add flows F (every path of each, as model_input_build would give) and
 * fill RATES[F->n] with their hm rates among every set present, F's
 * included; *SET gets what to remove later.  Returns 0, or -1 with err
 * set (bad flow, memory) and the state unchanged. */
int model_hm_state_add(struct model_hm_state *h, const struct flows *f,
		       double *rates, struct model_hm_set *set,
		       struct err *err);
/* Take SET's counts back out and free it (H NULL: only free it). */
void model_hm_state_remove(struct model_hm_state *h, struct model_hm_set *set);
/* RATES[F->n]: the hm rates now, among every set present, of flows F
 * added earlier (model_hm_state_add, which gave SET) and still present;
 * nothing is counted (a rate again after other sets came or went).
 * SET may be NULL (the links are found again); given, the closed form
 * on a dragonfly skips finding them.  Costs at most what the add cost.
 * Returns 0, or -1 with err set. */
int model_hm_state_rate(struct model_hm_state *h, const struct flows *f,
			const struct model_hm_set *set, double *rates,
			struct err *err);
/* The version of H's counts: it moves on with every add and remove that
 * changes a count, and rates of the same flows at the same version are
 * the same to the last bit. */
uint64_t model_hm_state_version(const struct model_hm_state *h);
/* Room for another thread to rate H's sets in at once with the caller
 * (model_hm_state_rate_in): the closed form's tables and key shares,
 * its own.  *OUT is NULL where H has no closed form (its rates use H's
 * own scratch: one thread only).  Returns 0, or -1 with err set. */
struct model_hm_room;
int model_hm_room_create(const struct model_hm_state *h,
			 struct model_hm_room **out, struct err *err);
void model_hm_room_destroy(struct model_hm_room *m);
/* The closed form's rates of flows F (of sets added earlier and still
 * present; any of their flows, in any runs) in room M (of H), or, with M
 * NULL, in H's own: H is only read, so threads each with a room of their
 * own (one of them may take H's) may rate at once, while nothing is added
 * or removed, and get model_hm_state_rate's rates to the last bit.
 * Returns 0, or -1 with err set (memory, a bad flow, H without a closed
 * form). */
int model_hm_state_rate_in(struct model_hm_state *h, struct model_hm_room *m,
			   const struct flows *f, double *rates,
			   struct err *err);
/* Whether SPEC is hm to be run on factored instances (method=auto or
 * factored): then model_hm_state gives its rates. */
bool model_hm_incremental(const char *spec);

/* Free RES's arrays (RES itself is the caller's); NULL is a no-op. */
void model_result_free(struct model_result *res);

/* Free what the models keep for the calling thread: GLPK's environment,
 * created by the first LP a thread solves and otherwise lost when the
 * thread exits.  A thread that ran models calls it before it exits. */
void model_thread_done(void);

#endif
