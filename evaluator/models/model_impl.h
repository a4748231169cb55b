/* model_impl.h - the model ops table and what the model files share;
 * internal to evaluator/.
 *
 * model_core.c validates the instance, allocates the result and, after a
 * model's solve has filled res->path_rates and res->rates (and status,
 * alpha, iterations, LP sizes), derives every statistic from them. */
#ifndef STOPO_MODEL_IMPL_H
#define STOPO_MODEL_IMPL_H

#include "evaluator/models/mcf_tpl.h"
#include "evaluator/models/model.h"
#include "topo/util/spec.h"

struct model_ops {
	const char *name;
	/* The options, { 0 }-terminated (NULL: none); "hm:x=1" is an error
	 * naming them. */
	const struct spec_opt *opts;
	/* Fill res->path_rates[npaths] and res->rates[nflows] (both zeroed
	 * on entry) and the solver fields.  IN is valid.  Returns 0, or -1
	 * with err set (memory, solver misuse). */
	int (*solve)(const struct model_input *in, const struct model_opts *o,
		     struct model_result *res, struct err *err);
	/* Or, for a model built from the routing's structure (solve NULL):
	 * run on flows F (checked: nodes in range, no self-flow) under R
	 * with spec S (options checked against opts).  Fill res->rates
	 * [nflows] and LOAD[topo_num_links] (both zeroed on entry), status,
	 * alpha, the solver fields and paths_total; model_core.c derives the
	 * statistics.  CAP[topo_num_links] holds the topology's
	 * capacities; a model that takes other bandwidths (nne's inject=,
	 * local=, global=) writes them there, and the most loaded links are
	 * ranked against them.  Returns 0, or -1 with err set. */
	int (*run)(const struct spec *s, const struct routing *r,
		   const struct flows *f, const struct model_opts *o,
		   struct model_result *res, double *load, double *cap,
		   struct err *err);
	/* NULL: the model applies to every routing.  Otherwise 0, or -1 with
	 * err saying why not. */
	int (*applies)(const struct routing *r, struct err *err);
	/* Optional: check the values of S's options (lookup calls it, so
	 * model_check reports a bad value).  Returns 0 or -1 with err set. */
	int (*check)(const struct spec *s, struct err *err);
	/* Optional, for a model with both solve and run: whether model_run
	 * (and so stopo eval and whatif) uses run under R rather than
	 * enumerating paths for solve. */
	bool (*runs)(const struct spec *s, const struct routing *r);
};

/* The registry (model_registry.c), NULL-terminated, in --model all order. */
extern const struct model_ops *const model_table[];

/* Link -> path incidence of IN: for link l, entries off[l] .. off[l+1]-1
 * of path[] are the paths crossing it, once per crossing, in path order. */
struct model_incid {
	uint32_t *off;	/* [nlinks+1] */
	uint32_t *path; /* [entries] */
};
int model_incid_build(const struct model_input *in, struct model_incid *ic,
		      struct err *err);
void model_incid_free(struct model_incid *ic);

/* A factored instance (routing_stems, model_factor.c): flow i's stems
 * are flow_off[i] .. flow_off[i+1]-1 and its common links (the injection
 * and ejection, on every one of its paths once) flinks[floff[i] ..
 * floff[i+1]); stem s has links slinks[stem_off[s] .. stem_off[s+1]),
 * middle set smid[s] and flow sflow[s]; middle set m's segments are
 * mid_off[m] .. mid_off[m+1]-1, segment g's links glinks[seg_off[g] ..
 * seg_off[g+1]).  Stem s of flow i stands for one path per segment of its
 * set: i's common links, s's links and the segment's.  Set 0 is the
 * single segment without links (the stem alone is a path).  Links are
 * numbered densely in order of first use: glob[l] is the topology's id,
 * cap[l] its capacity. */
struct model_finput {
	uint32_t nlinks;
	double *cap;
	uint32_t *glob;
	uint32_t nflows;
	uint32_t *flow_off, *src;
	uint32_t *floff, *flinks;
	uint32_t nstems;
	uint32_t *stem_off, *slinks, *smid, *sflow;
	uint32_t nmids;
	uint32_t *mid_off;
	uint32_t nsegs;
	uint32_t *seg_off, *glinks;
	uint64_t npaths; /* paths stood for: sum over stems of segments */
};
/* The factored instance of flows F under R (routing_middle_keys(R) > 0).
 * Returns 0 or -1 with err set (bad flow, memory). */
int model_finput_build(const struct routing *r, const struct flows *f,
		       struct model_finput *in, struct err *err);
void model_finput_free(struct model_finput *in);

/* *P (of *CAP elements of SIZE bytes) grown to hold at least N.
 * Returns 0 or -1 (memory; *P unchanged). */
int model_grow(void *p, size_t *cap, size_t n, size_t size);

/* The method= option (auto, paths or factored) of the models that also
 * run on factored path sets (hm, jm), in option table OPTS: its value
 * checked (0, or -1 with err set), and whether S takes the factored form
 * under R (factored always; auto where R gives factored path sets). */
int model_method_check(const struct spec *s, const struct spec_opt *opts,
		       struct err *err);
bool model_method_factored(const struct spec *s, const struct spec_opt *opts,
			   const struct routing *r);

/* Jain's method on a factored instance (model_jm.c): the rates of the
 * path-level method on the paths IN stands for, equal up to the order of
 * floating-point sums.  RATES[nflows] and LOAD[nlinks] (dense ids; may be
 * NULL) are zeroed and filled; NEED_FLOWS as in model_opts.  *ROUNDS gets
 * the rounds run.  Returns 0 or -1 with err set (memory). */
int model_jm_factored(const struct model_finput *in, uint32_t need_flows,
		      double *rates, double *load, uint32_t *rounds,
		      struct err *err);

/* Weighted max-min fair rates by progressive filling (single path per
 * flow; model_mmf.c).  Fills res->path_rates, res->rates, alpha and
 * iterations. */
int model_filling(const struct model_input *in, struct model_result *res,
		  struct err *err);

/* The LP models (model_lp.c, the only file that includes <glpk.h>). */
int model_lp_mmf(const struct model_input *in, const struct model_opts *o,
		 struct model_result *res, struct err *err);

/* Path templates (mcf_tpl.h) solved for a model (model_tpl.c).  The
 * template LP's non-zeros, and whether O solves P exactly (GLPK) rather
 * than with the certified first-order solver. */
uint64_t model_tpl_nonzeros(const struct mcf_tpl *p);
bool model_tpl_exact(const struct mcf_tpl *p, const struct model_opts *o);
/* Solve P with O's engine (a factored template, P->op, always with the
 * first-order solver), gap and time limit; fill res's status, alpha
 * (feasible, the lower end), bound, gap, solver, iterations, variables
 * and LP sizes, and X[ngroups] with per-path rates of the groups
 * achieving alpha (all 0 unless the status is optimal or time-limit).
 * Returns 0, or -1 with err set (bad template, memory, GLPK error). */
int model_tpl_solve(const struct mcf_tpl *p, const struct model_opts *o,
		    struct model_result *res, double *x, struct err *err);
/* From X of model_tpl_solve: every flow's rate alpha * demand into
 * RATES[nflows], X rescaled so that each flow's groups carry exactly its
 * rate (X only shrinks: loads stay within capacity), and, when LOAD is
 * not NULL, the resulting loads added to LOAD[nlinks]. */
void model_tpl_rates(const struct mcf_tpl *p, double alpha, double *x,
		     double *rates, double *load);

/* The reduced LP of the hybrid MMF method (model_mmf.c builds the state,
 * model_lp.c holds GLPK): columns x_p for the paths of the NMULTI
 * multi-path flows MULTI[] and one level t; row r (< NROWS) is link
 * ROW_LINK[r] (every link of a multi-path path has one):
 *   t W[r] + sum_p m_p x_p <= rhs[r],
 * and for multi-path flow MULTI[k]:
 *   sum_{p of k} x_p >= demand t          (level[k] < 0: unfixed)
 *   sum_{p of k} x_p  = demand level[k]   (fixed).
 * Maximise t.  DEADLINE (model_now() time, 0 = none) bounds every solve.
 * create fills res->lp_rows, lp_cols and lp_nonzeros; NULL with err set
 * on memory or GLPK error.  model_mlp_free(NULL) is a no-op. */
struct model_mlp;
struct model_mlp_sol {
	int status;	    /* enum model_status of the solve */
	double t;	    /* optimal level (status MODEL_OPTIMAL) */
	double *y;	    /* [nrows] |dual| of the link rows */
	double *lam;	    /* [nmulti] |dual| of the unfixed flows' level
			     * rows t_k >= t (0 for fixed flows) */
	double *path_rates; /* [npaths] of the input: the multi-path flows'
			     * paths are written, others untouched */
};
struct model_mlp *model_mlp_create(const struct model_input *in, uint32_t nrows,
				   const uint32_t *row_link, const double *W,
				   const double *rhs, uint32_t nmulti,
				   const uint32_t *multi, double deadline,
				   struct model_result *res, struct err *err);
/* Set W, rhs and level (only what changed reaches GLPK, the basis is
 * kept) and solve; fills SOL.  Returns 0 (whatever sol->status says) or
 * -1 with err set on a GLPK internal error (M is then unusable). */
int model_mlp_solve(struct model_mlp *m, const double *W, const double *rhs,
		    const double *level, struct model_mlp_sol *sol,
		    struct err *err);
void model_mlp_free(struct model_mlp *m);

/* Weighted max-min fair rates, the hybrid method (model_mmf.c):
 * progressive filling for the single-path flows, the reduced LP above for
 * the multi-path ones and the links they cross. */
int model_mmf_hybrid(const struct model_input *in, const struct model_opts *o,
		     struct model_result *res, struct err *err);

/* Flow I's rate set to TARGET, its path rates scaled to sum to it (rate
 * and paths 0 when they summed to 0). */
void model_settle(const struct model_input *in, struct model_result *res,
		  uint32_t i, double target);

/* Demand of flow I (1 when the instance has none). */
static inline double model_demand(const struct model_input *in, uint32_t i)
{
	return in->demand ? in->demand[i] : 1.0;
}

/* Seconds on a monotonic clock. */
double model_now(void);

/* hm's per-link sub-flow counts of one flow set being added: ADD[l]
 * (0 outside TOUCH[0 .. *ntouch), the links with a count). */
struct hm_counter {
	double *add;
	uint32_t *touch, *ntouch;
};

static inline void hm_count(struct hm_counter *c, uint32_t l, double n)
{
	if (c->add[l] == 0)
		c->touch[(*c->ntouch)++] = l;
	c->add[l] += n;
}

/* Hoefler's method on routing_dfly's structure (model_hm_dfly.c): the
 * factored hm's counts and rates without building stems.  hm_dfly_create
 * sets *OUT to NULL when R has no such structure, or over 1,024 groups
 * (its tables per group pair).  hm_dfly_count counts flow set F into C
 * (and *NPATHS, the paths stood for, when not NULL); hm_dfly_rates then
 * rates F from SH[l] = capacity / count of the links F's paths cross (it
 * cannot fail).  Those that can return 0 or -1 with err set. */
struct hm_dfly;
/* Whether hm SPEC has method=auto (the closed form where it applies). */
bool model_hm_auto(const char *spec);
/* hm_dfly_create memoises at most MEMO_MAX weights per direction
 * (model_opts.hm_dfly_memo_max) and builds tables of at most REC_MAX path
 * records (model_opts.hm_dfly_rec_max) per group pair. */
int hm_dfly_create(const struct routing *r, size_t memo_max, size_t rec_max,
		   struct hm_dfly **out, struct err *err);
void hm_dfly_destroy(struct hm_dfly *x);
int hm_dfly_count(struct hm_dfly *x, const struct flows *f,
		  struct hm_counter *c, uint64_t *npaths, struct err *err);
void hm_dfly_rates(struct hm_dfly *x, const struct flows *f, const double *sh,
		   double *rates);
/* Forget the key shares hm_dfly_rates kept
 * (hm_dfly_count does too): before rating a set again on shares that
 * moved. */
void hm_dfly_forget(struct hm_dfly *x);
/* Before hm_dfly_rates rates F (counted before) again: what it kept is
 * forgotten unless VER, the counts' version, is the one it was kept at
 * (sets rated one after another on the same counts share it), and room
 * is made for F's tables. */
int hm_dfly_prepare(struct hm_dfly *x, const struct flows *f, uint64_t ver,
		    struct err *err);

#endif
