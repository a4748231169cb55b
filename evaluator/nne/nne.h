/* nne.h - paper 004: the Cartesian nearest-neighbour exchange on a
 * dragonfly, its closed-form bandwidth bounds, and the planner that picks
 * the Cartesian sub-box gamma each group hosts.
 *
 * The application (Sec. 3.2): a d-dimensional domain of alpha elements
 * split into beta tasks (alpha_k a multiple of beta_k); task x sends to its
 * two neighbours along every axis with beta_k > 1 (periodic; one neighbour
 * over both faces when beta_k = 2).  A message along k carries the contact
 * surface, mu_k = mu |alpha|/|beta| beta_k/alpha_k bytes (Eq. 8), and is
 * the share m_k of the task's traffic (Eq. 10).
 *
 * A Cartesian placement gives every group a gamma-box of tasks (gamma_k
 * divides beta_k): |gamma| tasks per group, lambda_k = beta_k/gamma_k
 * boxes per axis, |lambda| groups (Sec. 3.4).  The bounds are on the
 * relative demand delta of the most loaded global link (per unit of the
 * nodes' effective injection bandwidth B_eff):
 *
 *   Cartesian/direct   (Eq. 16)  max_k ([lk > 1] + [lk = 2]) |g|/g_k m_k
 *   Cartesian/indirect (Eq. 17)  4 sum_k [lk > 1] |g|/g_k m_k / (ah - 1)
 *   random/direct      (Eq. 20)  |g|/|l| log|l| / log log|l|
 *
 * and B_eff <= min(B_P, B_R / delta) (Eq. 5-6, 21, 23, 25); a task's
 * exchange completes in (bytes it sends) / B_eff.
 *
 * On any dragonfly, not only the balanced one of the paper: a Valiant
 * path's intermediate group is uniform over the g - 2 groups that are
 * neither source nor destination (the paper's ah - 1 when g = ah + 1),
 * and a group pair joined by k global links splits its traffic over them;
 * the bounds use the fewest links that join two groups (nne_net.pair_links),
 * so they hold for every choice of groups.
 *
 * Eq. 17 maximises Eq. 15 as if two hosting groups that are not neighbours
 * always existed.  When every pair of hosting groups are neighbours (one
 * axis with lambda_k = 2 or 3) its maximum is not attained:
 * nne_delta_indirect_exact gives the maximum over the pairs the placement
 * really has, and the planner ranks by it.
 */
#ifndef STOPO_NNE_H
#define STOPO_NNE_H

#include <stdbool.h>
#include <stdint.h>

#include "topo/topo.h"
#include "topo/util/err.h"

#define NNE_MAX_DIMS 8
#define NNE_DEFAULT_MU 1024.0 /* bytes per element per face (Sec. 4) */
#define NNE_DEFAULT_LINK_RATE \
	5e9 /* bytes/s of a capacity-1 link: the
				    * paper's 40 Gbit/s */

/* A Cartesian nearest-neighbour exchange. */
struct nne_app {
	uint32_t d;		      /* dimensions, 1 .. NNE_MAX_DIMS */
	uint32_t beta[NNE_MAX_DIMS];  /* tasks per axis (>= 1) */
	uint32_t alpha[NNE_MAX_DIMS]; /* elements per axis (k * beta) */
	double mu;		      /* bytes per element per face */
};

/* Parse "B0xB1x.." (1 .. NNE_MAX_DIMS positive sizes) into V, *ND set.
 * WHAT names the value in messages.  Returns 0 or -1 with err set. */
int nne_parse_dims(const char *what, const char *s, uint32_t *v, uint32_t *nd,
		   struct err *err);

/* Fill A from GRID ("16x8x8"), ELEMENTS (NULL: one element per task,
 * alpha = beta) and MU (<= 0: NNE_DEFAULT_MU).  Returns 0, or -1 with err
 * set (bad sizes, elements of another dimension count or not multiples of
 * the grid, more than 2^31 tasks). */
int nne_app_init(struct nne_app *a, const char *grid, const char *elements,
		 double mu, struct err *err);

/* V[0..D) as "V0xV1x.." into BUF (LEN bytes, truncated to fit);
 * returns BUF. */
char *nne_dims_format(const uint32_t *v, uint32_t d, char *buf, size_t len);
/* A's exchange as a traffic pattern, "stencil:dims=B..,elements=A.."
 * (evaluator/traffic's stencil: the same demands, Eq. 10-11), into BUF;
 * returns BUF. */
char *nne_pattern(const struct nne_app *a, char *buf, size_t len);

/* |beta|: the number of tasks. */
uint64_t nne_tasks(const struct nne_app *a);
/* Eq. 10: M[k] = m_k, the share of a task's traffic sent to one neighbour
 * along k (0 when beta_k = 1); sum over k of 2 m_k is 1 (or 0 when every
 * beta_k is 1). */
void nne_m(const struct nne_app *a, double *m);
/* Eq. 8: mu_k, bytes of one message along axis K. */
double nne_msg_bytes(const struct nne_app *a, uint32_t k);
/* Bytes one task sends: sum over k with beta_k > 1 of 2 mu_k. */
double nne_task_bytes(const struct nne_app *a);

/* The network numbers the bounds need. */
struct nne_net {
	uint32_t groups; /* g */
	uint32_t nodes_per_group;
	uint32_t inter;		 /* Valiant intermediate groups: g - 2 */
	uint32_t pair_links;	 /* fewest global links joining two groups */
	double bp, bl, br;	 /* injection, local, global link bandwidth,
			      * bytes/s */
	uint32_t tasks_per_node; /* ranks sharing a node (>= 1; 1 in the
				  * paper): a group of F usable nodes
				  * holds F * tasks_per_node tasks, and
				  * each task injects at most B_P /
				  * tasks_per_node */
};

/* NET of dragonfly or Cascade T: groups, the fewest global links between
 * two groups, tasks_per_node 1, and bandwidths = the topology's
 * capacities (injection link of node 0, the smallest local and global)
 * times LINK_RATE bytes/s
 * (<= 0: NNE_DEFAULT_LINK_RATE).  BW, when not NULL, replaces them (bytes/s
 * injection, local, global; an entry <= 0 keeps the topology's).  Returns
 * 0, or -1 with err set (not a family with groups, fewer than 3 groups, a
 * pair of groups with no global link). */
int nne_net_from_topo(const struct topo *t, double link_rate, const double *bw,
		      struct nne_net *net, struct err *err);

/* Placement and routing strategies (Sec. 3.5). */
enum nne_strategy {
	NNE_CART_DIRECT = 0,
	NNE_CART_INDIRECT = 1,
	NNE_RANDOM_DIRECT = 2,
	NNE_NSTRATEGIES
};
/* "cartesian/direct", "cartesian/indirect", "random/direct". */
const char *nne_strategy_name(enum nne_strategy s);

/* Whether GAMMA (d entries) divides A's grid axis by axis. */
bool nne_gamma_divides(const struct nne_app *a, const uint32_t *gamma);

/* The relative demand on the most loaded global link for A placed as
 * GAMMA on NET (per link: divided by NET->pair_links), before the
 * injection limit.  0 when no traffic leaves a group. */
double nne_delta_direct(const struct nne_app *a, const uint32_t *gamma,
			const struct nne_net *net); /* Eq. 16 */
double nne_delta_indirect(const struct nne_app *a, const uint32_t *gamma,
			  const struct nne_net *net); /* Eq. 17 */
/* Eq. 15 maximised over the group pairs the placement has: hosting
 * pairs (2E - 2 delta_direct(i,j)) / inter, a hosting and an empty group
 * E / inter (when NET has more groups than the placement uses), E the
 * traffic one group sends to others.  Equals Eq. 17 unless every two
 * hosting groups are neighbours. */
double nne_delta_indirect_exact(const struct nne_app *a, const uint32_t *gamma,
				const struct nne_net *net);
/* Eq. 20 with its balls-into-bins factor, kept within what it estimates:
 * the fullest of |lambda| bins holds at least |gamma|/|lambda| of the
 * |gamma| balls and at most all of them (the factor log/loglog is below 1
 * or undefined for |lambda| <= 15).  0 when |lambda| = 1. */
double nne_delta_random(const struct nne_app *a, const uint32_t *gamma,
			const struct nne_net *net);

/* One strategy for one gamma, evaluated. */
struct nne_plan {
	enum nne_strategy strategy;
	uint32_t gamma[NNE_MAX_DIMS]; /* random: gamma of the same |gamma| */
	uint32_t lambda[NNE_MAX_DIMS];
	uint32_t per_group;	  /* |gamma|: tasks in each group */
	uint32_t nodes_per_group; /* ceil(|gamma| / tasks_per_node) */
	uint32_t groups;	  /* |lambda| */
	double delta;		  /* the ranking demand (indirect: exact) */
	double delta_paper;	  /* the paper's closed form (Eq. 16, 17, 20) */
	double bw;		  /* B_eff, bytes/s per node */
	bool inject_bound;	  /* B_P / tasks_per_node is the limit, not the
			     * global links */
	double seconds;		  /* task bytes / bw */
};

/* Evaluate GAMMA with strategy S on NET into P.  Returns 0, or -1 with err
 * set when gamma does not divide the grid. */
int nne_evaluate(const struct nne_app *a, const uint32_t *gamma,
		 enum nne_strategy s, const struct nne_net *net,
		 struct nne_plan *p, struct err *err);

/* Every plan: every gamma dividing A's grid (random/direct: one per
 * distinct |gamma|) under each strategy in MASK (bit 1 << s), that fits:
 * |lambda| of the NET->groups groups with room for |gamma| tasks each
 * (GROUP_FREE[g] usable nodes times tasks_per_node; NULL: every group
 * wholly usable).  Sorted fastest
 * first (ties: the smaller delta, fewer groups, the strategy, gamma).  *OUT is a
 * new array of *N plans (caller frees; NULL and 0 when nothing fits).
 * Returns 0 or -1 with err set (memory). */
int nne_plan_all(const struct nne_app *a, const struct nne_net *net,
		 const uint32_t *group_free, unsigned mask,
		 struct nne_plan **out, uint32_t *n, struct err *err);

/* The nodes of plan P on T: |lambda| groups chosen among those with at
 * least P->nodes_per_group usable nodes (USABLE[node] != 0; NULL: all),
 * the tightest fit first (the fewest usable nodes, then the lowest id),
 * and in each that many nodes spread over its routers as evenly as their
 * usable nodes allow (those with the most first), each router's nodes
 * consecutive in the group's order, so that neighbouring ranks of a box
 * (axis 0 fastest) share a router.  RANK_NODE[r] (|beta| entries)
 * receives the node of rank r (rank = x0 + b0 (x1 + b1 x2 ..)):
 * Cartesian plans put the ranks of gamma-box (x_k / g_k) in the group of
 * that box index, local rank i of the box (axis 0 fastest) on the group's
 * node i / TPN; random plans deal a random permutation (SEED) of the
 * ranks, |gamma| per group.
 * GROUPS[|lambda|] receives the groups in box order.  Returns 0, or -1
 * with err set (not enough usable groups, memory). */
int nne_layout(const struct topo *t, const uint8_t *usable,
	       const struct nne_app *a, const struct nne_plan *p, uint32_t tpn,
	       uint64_t seed, uint32_t *rank_node, uint32_t *groups,
	       struct err *err);

#endif
