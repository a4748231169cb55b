/* ugal_tpl.h - paper 002's UGAL-G LP Models 0-5 as path templates
 * (mcf_tpl.h), built from the dragonfly / Cascade structure.
 *
 * Over the ugal path set of a flow (MIN and VLB paths, routing.h), a model
 * groups the paths and gives every path of a group the same rate x_g
 * (paper 002 Table 2):
 *
 *   model  MIN paths          VLB paths
 *   0      individual         individual      (the upper bound)
 *   1      individual         by hop count
 *   2      individual         all together
 *   3      by hop count       by hop count    (the paper's robust default)
 *   4      by hop count       all together
 *   5      all together       all together
 *
 * A group's column of the template (its mult and per-link crossing
 * counts) is computed from the structure, never by enumerating the flow's
 * VLB paths: a VLB path s -> I -> d is a MIN half s -> I followed by a
 * MIN half I -> d, so the group of VLB paths of h hops crosses link e
 *     sum_I sum_{h1+h2=h} Cnt(s,I,h1)[e] N(I,d,h2) + N(s,I,h1) Cnt(I,d,h2)[e]
 * times, where N(x,y,l) counts the MIN paths x -> y of l hops and
 * Cnt(x,y,l)[e] their crossings of e; a MIN half is, per global link
 * u -> v joining the two groups, a local shortest path x -> u, the link
 * and a local shortest path v -> y.  Per flow this costs
 * O(intermediates x entries of two halves), whatever the number of paths
 * (a Cascade flow has 3,538,944 VLB paths but at most 12 Model 3 groups).
 * Only "individual" control needs one column per path; the number of
 * columns is known in closed form (ugal_tpl_count) before anything is
 * built, and ugal_tpl_build refuses a template above its limit.
 *
 * Conventions are routing.h's: a link crossed twice by one path counts
 * twice, equal link sequences through different intermediates are
 * different paths, hops count switch-to-switch links, and a flow within
 * one switch has one 0-hop MIN path (its injection and ejection links).
 *
 * To run Model k on flows F under routing R with any solver:
 *     struct ugal_tpl tp;
 *     if (ugal_tpl_build(R, F, k, limit, &tp, err)) ... error
 *     mcf_tpl_solve_glpk(&tp.lp, opts, &res, err);   (or the fast solver)
 *     rate of flow f = res.alpha * F->demand[f]
 *     ugal_tpl_free(&tp);
 */
#ifndef STOPO_UGAL_TPL_H
#define STOPO_UGAL_TPL_H

#include <stdint.h>

#include "evaluator/models/mcf_tpl.h"
#include "evaluator/traffic/flows.h"
#include "topo/util/err.h"
#include "topo/routing.h"

#define UGAL_NMODELS 6
#define UGAL_HOPS_ANY 255 /* hops of a group of paths of several lengths */

/* How a model groups the MIN or the VLB paths of a flow. */
enum ugal_ctl {
	UGAL_CTL_PATH = 0, /* individual: one group per path */
	UGAL_CTL_HOPS = 1, /* path-length-based random: one per hop count */
	UGAL_CTL_ALL = 2,  /* all random: one group */
};

/* The control of Model MODEL over MIN and VLB paths (table above).
 * Returns 0, or -1 when MODEL > 5. */
int ugal_control(unsigned model, enum ugal_ctl *min, enum ugal_ctl *vlb);

/* A built template.  lp's arrays are the owned arrays below; lp.cap and
 * lp.demand are the topology's capacities and F's demands (copied). */
struct ugal_tpl {
	struct mcf_tpl lp;
	uint8_t *cls;  /* [ngroups] enum path_class of group g's paths */
	uint8_t *hops; /* [ngroups] their hop count, UGAL_HOPS_ANY when the
			* group mixes lengths */
	double paths;  /* sum of mult: every MIN and VLB path of F */
	/* owned storage of lp */
	double *cap, *demand, *mult, *col_cnt;
	uint32_t *flow_off, *col_off, *col_link;
	/* ugal_tpl_build_factored: lp.op = &op, its context fac */
	struct mcf_tpl_op op;
	struct ugal_fac *fac;
};

/* Check that the UGAL models apply to R: a "ugal" routing (either intra=)
 * on a dragonfly or cascade topology.  Returns 0, or -1 with err saying
 * what is wrong ("needs a dragonfly or cascade topology, not fattree",
 * "needs routing ugal, not min"). */
int ugal_check(const struct routing *r, struct err *err);

/* Number of LP columns of Model MODEL on flows F under R (one per group,
 * plus alpha), in closed form: no path and no column is built.  Returns 0
 * with *cols set, or -1 with err set (see ugal_tpl_build). */
int ugal_tpl_count(const struct routing *r, const struct flows *f,
		   unsigned model, uint64_t *cols, struct err *err);

/* Build the template of Model MODEL (0..5) for flows F under R; groups of
 * flow f are lp.flow_off[f] .. lp.flow_off[f+1]-1, MIN groups first, each
 * class by ascending hops.  LIMIT (0: none) bounds the LP's columns: above
 * it nothing is built and err reads "ugalK: the LP would have N
 * variables, more than limit=L".  Returns 0 (free with ugal_tpl_free), or
 * -1 with err set (not ugal_check's routing, node out of range, self-flow,
 * a flow without a path, memory). */
int ugal_tpl_build(const struct routing *r, const struct flows *f,
		   unsigned model, uint64_t limit, struct ugal_tpl *out,
		   struct err *err);

/* As ugal_tpl_build, but the VLB groups' link crossings (all but their
 * injection and ejection links) are left to an operator, lp.op, instead
 * of explicit columns: the same matrix M (tests/unit/test_ugal.c compares
 * products), applied in O(flows x intermediates x hops + global links x
 * routers^2) instead of O(non-zeros) (~6e7 for a Cascade permutation),
 * on two threads for 2^17+ half-table cells (each product starts and joins
 * its own; none outlives it).  Memory: O(switches^2 x hops + flows x
 * intermediates).  Only mcf_tpl_solve_fast takes such a template (GLPK
 * refuses it), and the operator is not re-entrant (one solve at a time per
 * template).  Model 0 (individual VLB paths) gets the explicit template
 * (lp.op NULL).  Returns as ugal_tpl_build (also -1 above 4096
 * switches); free with ugal_tpl_free. */
int ugal_tpl_build_factored(const struct routing *r, const struct flows *f,
			    unsigned model, uint64_t limit,
			    struct ugal_tpl *out, struct err *err);

/* Free what ugal_tpl_build allocated; NULL is a no-op. */
void ugal_tpl_free(struct ugal_tpl *tp);

#endif
