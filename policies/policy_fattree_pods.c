/* policy_fattree_pods.c - interference-free placement on a k-ary n-tree,
 * paper 003 Sec. IV-B-2 (rules i-iv), generalised to n levels.
 *
 * Units: a level-l unit is the k^l leaves whose indices agree in base-k
 * digits l..n-2 (leaf w is in unit w / k^l): level 0 = one leaf switch,
 * level 1 = a pod, level n-1 = the whole machine.  On a Topology=graph
 * recognised as a fat-tree (topo_recog_fattree.c: missing switches,
 * unequal pods, leaves with unused ports), a level-l unit is a connected
 * component of the switches of levels 0..l; create checks that up/down
 * routing (ecmp) between two leaves of a unit stays in it (they have an
 * ancestor in it), which is what the argument below needs, and refuses
 * the graph otherwise.
 * Counts of units become counts of nodes there: "m whole units" is "whole
 * units holding n nodes", the same choices on a regular tree.  Under minimal up/down
 * routing (ecmp, dmodk) the up-links of a unit's top switches carry only
 * traffic of jobs with nodes inside AND outside the unit ("crossing" it),
 * and every other switch-to-switch link belongs to exactly one unit that
 * way.  So link sets are pairwise disjoint iff every unit is crossed by at
 * most one job.  The policy keeps that invariant:
 *   - a job of n <= k nodes goes to one leaf (rule i): it crosses nothing
 *     and uses no switch-to-switch link, so it may take leftover nodes of
 *     any leaf, even one crossed by another job;
 *   - otherwise, with j the smallest level whose units hold n nodes, it
 *     gets m = ceil(n / (k^j nodes)) WHOLE level-(j-1) units (every node
 *     free and usable) inside one level-j unit (rule ii for j = 1: whole
 *     leaves in one pod; rule iv for j = n-1 = 2: whole pods).  It crosses
 *     only units it fills first, and no unit at level >= j.
 * The job gets exactly n nodes (lowest ids of its units); the unused rest
 * of its last unit stays free but is crossed by the job, so only jobs that
 * do not cross it can use it: single-leaf jobs in a partly used leaf,
 * and multi-leaf jobs on whole leaves left in a partly used pod (the
 * paper's rule iii).  A policy call sees only owner[], and that inference
 * is exact: a unit with a busy node is never "whole".
 *
 * Candidates (attempt order): single-leaf jobs: leaves with enough free
 * nodes, fewest free first (best fit), then lowest id; larger jobs: level-j
 * units with enough whole sub-units, fewest whole sub-units first, then
 * lowest id, and in each unit every run of m consecutive whole sub-units
 * from the lowest.
 *
 * Option large=leaves applies rule iii to jobs larger than a pod (j >= 2):
 * instead of whole pods they get m = ceil(n / k) whole leaves inside one
 * level-j unit, in pods (generally: units of levels 1..j-1) that no running
 * job crosses; the pods may hold other jobs that stay inside them.  The
 * job then crosses those pods, so they are closed to other multi-pod jobs
 * until it ends.  large=pods (default) is the paper's practical rule iv.
 *
 * Option rule=links (the default; rule=paper is the rounding above, and
 * large=leaves without a rule= of its own selects it) drops the rounding
 * to whole units, keeping only what isolation needs (the invariant above, for units of every level 0..n-2,
 * a leaf included): a job whose nodes span level j (their lowest common
 * unit is a level-j unit) crosses every unit below level j holding one of
 * its nodes, so it may take any free nodes of leaves whose units at levels
 * 0..j-1 no running job crosses.  A leaf then holds single-leaf jobs and
 * at most one multi-leaf job; a pod holds pod-contained jobs on other
 * leaves and at most one job spanning pods; and so on up.  Candidates: the
 * lowest level j first; then, for j >= 1, level-j units a running job
 * already crosses before the others (they are closed to jobs spanning
 * above them until it ends: +0.34 points of utilisation on
 * fattree:k=22,n=3); then the units with the fewest such nodes (best
 * fit), lowest id; inside a unit, the sub-units with the most such
 * nodes first (fewest units crossed) until one holds the rest, which then
 * takes it: the smallest that does (best fit: leftovers beside
 * single-leaf jobs, partly used pods). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "large",
	  .def = "pods",
	  .help = "jobs above a pod: whole pods, or leaves (rule iii)" },
	{ .key = "rule",
	  .def = "links",
	  .help = "paper: whole units (rules i-iv); links: any nodes whose "
		  "links stay private" },
	{ 0 },
};
static const char *const large_choices[] = { "pods", "leaves", NULL };
static const char *const rule_choices[] = { "paper", "links", NULL };

/* The unit tree.  Leaves are numbered 0..leaves-1 so that every unit is
 * a run of consecutive leaves and a level-l unit's children a run of
 * consecutive level-(l-1) units (on a generated k-ary n-tree: leaf w is
 * switch w, level-l unit u holds leaves u k^l .. (u+1) k^l - 1).  On a
 * Topology=graph recognised as a fat-tree, a level-l unit is a connected
 * component of the switches of levels 0..l, numbered depth first (children
 * by their lowest leaf switch), so a k-ary n-tree written out as a graph
 * gets the generated numbering. */
struct ft {
	bool links;	  /* rule=links */
	bool rule3;	  /* large=leaves: rule iii for jobs above a pod */
	bool regular;	  /* every leaf kmax nodes, every unit the same
			    * number of children (reasons count units) */
	bool by_links;	  /* a graph's units checked by link sets */
	uint32_t n;	  /* levels; level n-1 is the whole machine */
	uint32_t leaves;  /* nu[0] */
	uint32_t kmax;	  /* most nodes on a leaf */
	uint32_t *sw;	  /* [leaves] switch of leaf w */
	uint32_t *cap;	  /* [leaves] nodes on leaf w */
	uint32_t *nleaf;  /* [N] leaf of each node (NO_LEAF: hosted above) */
	bool hosted;	  /* some node is hosted above level 0 */
	uint32_t nu[16];  /* units of each level */
	uint32_t *lf[16]; /* [nu[l]+1] unit u's leaves: lf[l][u]..lf[l][u+1] */
	uint32_t *cf[16]; /* l >= 1: [nu[l]+1] children cf[l][u]..cf[l][u+1] */
	uint32_t *up[16]; /* [leaves] the level-l unit of leaf w */
	uint64_t *ucap[16];  /* [nu[l]] nodes of each unit */
	uint64_t maxcap[16]; /* nodes of the largest level-l unit */
	struct lcache *lc;   /* rule=links: the last views' counts */
};

#define NO_LEAF UINT32_MAX

static struct lcache *lcache_new(void);
static void lcache_free(struct lcache *c);

static void destroy(void *state)
{
	struct ft *f = state;

	if (!f)
		return;
	lcache_free(f->lc);
	free(f->sw);
	free(f->cap);
	free(f->nleaf);
	for (uint32_t l = 0; l < 16; l++) {
		free(f->lf[l]);
		free(f->cf[l]);
		free(f->up[l]);
		free(f->ucap[l]);
	}
	free(f);
}

/* Allocate the per-level arrays for NU[] units; fill caps and maxcap
 * from lf[] and cap[], and regular.  Returns 0 or -1 (memory). */
static int ft_alloc_level(struct ft *f, uint32_t l)
{
	f->lf[l] = calloc((size_t)f->nu[l] + 1, sizeof(uint32_t));
	f->cf[l] = calloc((size_t)f->nu[l] + 1, sizeof(uint32_t));
	f->up[l] = calloc((size_t)f->leaves + 1, sizeof(uint32_t));
	f->ucap[l] = calloc((size_t)f->nu[l] + 1, sizeof(uint64_t));
	return f->lf[l] && f->cf[l] && f->up[l] && f->ucap[l] ? 0 : -1;
}

static void ft_finish(struct ft *f, const struct topo *t)
{
	uint32_t N = topo_num_nodes(t);

	f->regular = true;
	/* nodes on no leaf (hosted above level 0: storage on a spine) are
	 * never placed; a running job holding one spans the whole tree */
	for (uint32_t i = 0; i < N; i++)
		f->nleaf[i] = NO_LEAF;
	for (uint32_t w = 0; w < f->leaves; w++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(t, f->sw[w], &cnt);

		f->cap[w] = cnt;
		for (uint32_t i = 0; i < cnt; i++)
			if (nodes[i] < N)
				f->nleaf[nodes[i]] = w;
		if (cnt > f->kmax)
			f->kmax = cnt;
	}
	for (uint32_t w = 0; w < f->leaves; w++)
		f->regular = f->regular && f->cap[w] == f->kmax;
	for (uint32_t i = 0; i < N && !f->hosted; i++)
		f->hosted = f->nleaf[i] == NO_LEAF;
	for (uint32_t l = 0; l < f->n; l++) {
		f->maxcap[l] = 0;
		for (uint32_t u = 0; u < f->nu[l]; u++) {
			uint64_t c = 0;

			for (uint32_t w = f->lf[l][u]; w < f->lf[l][u + 1]; w++)
				c += f->cap[w];
			f->ucap[l][u] = c;
			if (c > f->maxcap[l])
				f->maxcap[l] = c;
			if (l > 0 && f->cf[l][u + 1] - f->cf[l][u] !=
					     f->cf[l][1] - f->cf[l][0])
				f->regular = false;
		}
	}
}

/* The unit tree of a generated k-ary n-tree. */
static int ft_generated(struct ft *f, const struct topo *t, uint32_t k)
{
	uint64_t pw = 1;

	for (uint32_t l = 0; l + 1 < f->n; l++)
		pw *= k;
	f->leaves = (uint32_t)pw;
	f->sw = calloc(f->leaves, sizeof(uint32_t));
	f->cap = calloc(f->leaves, sizeof(uint32_t));
	f->nleaf = calloc((size_t)topo_num_nodes(t) + 1, sizeof(uint32_t));
	if (!f->sw || !f->cap || !f->nleaf)
		return -1;
	pw = 1; /* k^l */
	for (uint32_t l = 0; l < f->n; l++) {
		f->nu[l] = (uint32_t)(f->leaves / pw);
		if (ft_alloc_level(f, l))
			return -1;
		for (uint32_t u = 0; u <= f->nu[l]; u++) {
			f->lf[l][u] = (uint32_t)(u * pw);
			f->cf[l][u] = l ? u * k : u;
		}
		for (uint32_t w = 0; w < f->leaves; w++)
			f->up[l][w] = (uint32_t)(w / pw);
		pw *= k;
	}
	for (uint32_t w = 0; w < f->leaves; w++)
		f->sw[w] = w;
	ft_finish(f, t);
	return 0;
}

static const char *unit_name(uint32_t l, bool plural);

/* A leaf of a fat-tree graph: a level-0 switch with nodes (nodes hosted
 * higher up, storage on a spine, are in no unit: never placed). */
static bool graph_leaf(const struct topo *t, uint32_t s)
{
	uint32_t cnt;

	topo_switch_nodes(t, s, &cnt);
	return cnt > 0 && topo_switch_level(t, s) == 0;
}

static uint32_t uf_root(uint32_t *par, uint32_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* The unit tree of a graph recognised as a fat-tree (levels from
 * topo_switch_level): a level-l unit is a component of levels 0..l, but
 * with LEV1 (not NULL) the pods are the leaves of equal LEV1[s].  Returns
 * 0 (f->by_links when up/down routing between two leaves of one unit
 * would leave it: ft_links decides), -1 (memory) or 1 with ERR set. */
static int ft_graph(struct ft *f, const struct topo *t, const uint32_t *lev1,
		    struct err *err)
{
	uint32_t S = topo_num_switches(t), *par = NULL, *comp = NULL;
	uint32_t *order = NULL, *stack = NULL, *key = NULL;
	uint64_t *desc = NULL, *acc = NULL;
	uint32_t words;
	int rc = -1;

	f->n = topo_graph_levels(t);
	if (f->n < 2 || f->n > 16) {
		err_set(err,
			"policy fattree-pods: a fat-tree graph of %u levels "
			"(2 to 16 supported)",
			f->n);
		return 1;
	}
	for (uint32_t s = 0; s < S; s++)
		f->leaves += graph_leaf(t, s);
	words = (f->leaves + 63) / 64;
	f->sw = calloc((size_t)f->leaves + 1, sizeof(uint32_t));
	f->cap = calloc((size_t)f->leaves + 1, sizeof(uint32_t));
	f->nleaf = calloc((size_t)topo_num_nodes(t) + 1, sizeof(uint32_t));
	par = malloc((size_t)S * sizeof(*par));
	/* comp[l * S + s]: component root of switch s at level l */
	comp = malloc((size_t)S * f->n * sizeof(*comp));
	order = malloc((size_t)S * sizeof(*order));
	key = malloc((size_t)S * sizeof(*key));
	stack = malloc(((size_t)S + 1) * sizeof(*stack));
	if (!f->sw || !f->cap || !f->nleaf || !par || !comp || !order || !key ||
	    !stack)
		goto out;
	for (uint32_t s = 0; s < S; s++)
		par[s] = s;
	for (uint32_t l = 0; l < f->n; l++) {
		for (uint32_t x = topo_first_switch_link(t);
		     x < topo_num_links(t); x++) {
			const struct topo_link *k = topo_link(t, x);

			if (topo_switch_level(t, k->from) == l &&
			    topo_switch_level(t, k->to) < l)
				par[uf_root(par, k->from)] =
					uf_root(par, k->to);
			else if (topo_switch_level(t, k->to) == l &&
				 topo_switch_level(t, k->from) < l)
				par[uf_root(par, k->to)] =
					uf_root(par, k->from);
		}
		for (uint32_t s = 0; s < S; s++)
			comp[(size_t)l * S + s] = uf_root(par, s);
	}
	if (lev1 && f->n >= 3) {
		/* the pods a chassis' leaf chips make (director fat-trees):
		 * each within one level-2 unit */
		for (uint32_t s = 0; s < S; s++)
			if (graph_leaf(t, s))
				comp[(size_t)S + s] = lev1[s];
		for (uint32_t s = 0; s < S; s++)
			for (uint32_t o = 0; o < S; o++)
				if (graph_leaf(t, s) && graph_leaf(t, o) &&
				    lev1[s] == lev1[o] &&
				    comp[(size_t)2 * S + s] !=
					    comp[(size_t)2 * S + o]) {
					rc = 1;
					goto out;
				}
	}
	/* leaves in depth-first order of the component tree, children by
	 * their lowest leaf switch: sort leaves by (top-down component keys),
	 * the key of a component being its lowest leaf switch */
	for (uint32_t l = 0; l < f->n; l++) {
		for (uint32_t s = 0; s < S; s++)
			key[s] = UINT32_MAX;
		for (uint32_t s = S; s-- > 0;)
			if (graph_leaf(t, s))
				key[comp[(size_t)l * S + s]] = s;
		for (uint32_t s = 0; s < S; s++)
			comp[(size_t)l * S + s] = key[comp[(size_t)l * S + s]];
	}
	{
		uint32_t nl = 0;

		for (uint32_t s = 0; s < S; s++)
			if (graph_leaf(t, s))
				order[nl++] = s;
		/* insertion sort by the key vector, top level first (leaves
		 * are few: thousands) */
		for (uint32_t i = 1; i < nl; i++) {
			uint32_t x = order[i], j = i;

			while (j > 0) {
				uint32_t y = order[j - 1];
				int c = 0;

				for (uint32_t l = f->n; l-- > 0 && !c;) {
					uint32_t a = comp[(size_t)l * S + x],
						 b = comp[(size_t)l * S + y];

					c = a < b ? -1 : a > b;
				}
				if (c >= 0)
					break;
				order[j] = y;
				j--;
			}
			order[j] = x;
		}
		for (uint32_t w = 0; w < nl; w++)
			f->sw[w] = order[w];
	}
	/* units: runs of leaves with equal component at each level */
	for (uint32_t l = 0; l < f->n; l++) {
		uint32_t nu = 0;

		for (uint32_t w = 0; w < f->leaves; w++)
			nu += w == 0 ||
			      comp[(size_t)l * S + f->sw[w]] !=
				      comp[(size_t)l * S + f->sw[w - 1]];
		f->nu[l] = nu;
		if (ft_alloc_level(f, l))
			goto out;
		nu = 0;
		for (uint32_t w = 0; w < f->leaves; w++) {
			if (w > 0 && comp[(size_t)l * S + f->sw[w]] !=
					     comp[(size_t)l * S + f->sw[w - 1]])
				f->lf[l][++nu] = w;
			f->up[l][w] = nu;
		}
		f->lf[l][f->nu[l]] = f->leaves;
		for (uint32_t u = 0; u <= f->nu[l]; u++)
			f->cf[l][u] = l == 0	    ? u :
				      u == f->nu[l] ? f->nu[l - 1] :
						      f->up[l - 1][f->lf[l][u]];
	}
	if (f->nu[f->n - 1] != 1) {
		err_set(err, "policy fattree-pods: the top level of the "
			     "fat-tree graph is not connected");
		rc = 1;
		goto out;
	}
	ft_finish(f, t);
	/* up/down routing keeps a unit's traffic inside it: each leaf's
	 * ancestors at levels <= l reach down to every leaf of its level-l
	 * unit (desc: leaves below each switch; acc: below its ancestors) */
	desc = calloc((size_t)S * words + 1, sizeof(*desc));
	acc = calloc((size_t)words + 1, sizeof(*acc));
	if (!desc || !acc)
		goto out;
	for (uint32_t w = 0; w < f->leaves; w++)
		key[f->sw[w]] = w;
	for (uint32_t l = 0; l < f->n; l++)
		for (uint32_t s = 0; s < S; s++) {
			uint32_t cnt, first;

			if (topo_switch_level(t, s) != l)
				continue;
			if (l == 0 && graph_leaf(t, s))
				desc[(size_t)s * words + key[s] / 64] |=
					1ull << (key[s] % 64);
			first = topo_switch_out(t, s, &cnt);
			for (uint32_t i = 0; i < cnt; i++) {
				uint32_t v = topo_link(t, first + i)->to;

				if (topo_switch_level(t, v) + 1 == l)
					for (uint32_t x = 0; x < words; x++)
						desc[(size_t)s * words + x] |=
							desc[(size_t)v * words +
							     x];
			}
		}
	for (uint32_t w = 0; w < f->leaves; w++) {
		uint32_t h = 0, tl = 0;

		memset(acc, 0, (size_t)words * sizeof(*acc));
		for (uint32_t s = 0; s < S; s++)
			par[s] = 0; /* visited */
		stack[tl++] = f->sw[w];
		par[f->sw[w]] = 1;
		/* BFS up, level by level (levels rise by one per hop) */
		for (uint32_t l = 0; l < f->n; l++) {
			uint32_t end = tl, cover = 0, u = f->up[l][w];

			for (uint32_t i = h; i < end; i++)
				for (uint32_t x = 0; x < words; x++)
					acc[x] |=
						desc[(size_t)stack[i] * words +
						     x];
			for (uint32_t x = 0; x < words; x++)
				cover += (uint32_t)__builtin_popcountll(acc[x]);
			if (cover != f->lf[l][u + 1] - f->lf[l][u]) {
				uint32_t o = f->lf[l][u];

				while (o < f->lf[l][u + 1] &&
				       acc[o / 64] >> (o % 64) & 1)
					o++;
				/* their up/down routes leave the unit:
				 * whether it still isolates is for the
				 * link sets to say (ft_links) */
				(void)o;
				f->by_links = true;
				rc = 0;
				goto out;
			}
			for (uint32_t i = h; i < end; i++) {
				uint32_t cnt, first = topo_switch_out(
						      t, stack[i], &cnt);

				for (uint32_t j = 0; j < cnt; j++) {
					uint32_t v =
						topo_link(t, first + j)->to;

					if (topo_switch_level(t, v) == l + 1 &&
					    !par[v]) {
						par[v] = 1;
						stack[tl++] = v;
					}
				}
			}
			h = end;
		}
	}
	rc = 0;
out:
	free(par);
	free(comp);
	free(order);
	free(key);
	free(stack);
	free(desc);
	free(acc);
	return rc;
}

/* ---- units checked by link sets ----
 *
 * The isolation argument needs, for every switch-to-switch link some job
 * may use, a unit that every pair of leaves using the link crosses (one
 * leaf inside, the other outside): then a job using the link crosses
 * that unit, and two jobs never cross one unit.  On a k-ary n-tree, and a
 * graph whose up/down routes stay in their units, each link has one (the
 * unit below its upper end).  Elsewhere (a director whose edge switches
 * meet the chassis in other groupings, routes from the subnet manager's
 * tables) the link sets of every pair of leaves under the routing in
 * force decide: each link keeps, per level, the units that split every
 * pair seen on it (at most two: the units of the first pair's leaves). */

/* Per link and level: the two candidate units, LS_NONE both before any
 * pair, LS_FAIL when none is left. */
#define LS_NONE UINT32_MAX
#define LS_FAIL (UINT32_MAX - 1)

struct ownstate {
	uint32_t (*cand)[2]; /* [levels x links] */
	uint32_t *pair;	     /* [links x 2] the first pair using it */
	uint32_t *bad;	     /* [links x 2] a pair no level-0 unit split */
	uint32_t L;
};

/* Leaf pair (A, B) uses link X: keep the units that split it. */
static void own_pair(struct ownstate *ls, const struct ft *f, uint32_t x,
		     uint32_t a, uint32_t b)
{
	if (ls->pair[2 * x] == LS_NONE) {
		ls->pair[2 * x] = a;
		ls->pair[2 * x + 1] = b;
	}
	for (uint32_t l = 0; l + 1 < f->n; l++) {
		uint32_t *c = ls->cand[(size_t)l * ls->L + x];
		uint32_t ua = f->up[l][a], ub = f->up[l][b];

		if (c[0] == LS_FAIL)
			continue;
		if (ua == ub) {
			c[0] = c[1] = LS_FAIL;
		} else if (c[0] == LS_NONE) {
			c[0] = ua;
			c[1] = ub;
		} else {
			uint32_t k0 = c[0] == ua || c[0] == ub ? c[0] : LS_FAIL;
			uint32_t k1 = c[1] == ua || c[1] == ub ? c[1] : LS_FAIL;

			c[0] = k0 != LS_FAIL ? k0 : k1;
			c[1] = k0 != LS_FAIL ? k1 : LS_FAIL;
		}
		if (l == 0 && c[0] == LS_FAIL && ls->bad[2 * x] == LS_NONE) {
			ls->bad[2 * x] = a;
			ls->bad[2 * x + 1] = b;
		}
	}
}

/* ERR: link X's pairs that no unit splits. */
static int own_fail(const struct ownstate *ls, const struct ft *f,
		    const struct topo *t, uint32_t x, struct err *err)
{
	const struct topo_link *k = topo_link(t, x);
	char a[80], b[80], p0[80], p1[80], q0[80], q1[80];
	uint32_t q = 2 * x;

	return err_set(
		err,
		"policy fattree-pods: no isolating unit above the "
		"leaf switches: cable %s-%s carries the traffic of "
		"leaves %s and %s and of %s and %s, which no unit "
		"separates",
		topo_switch_label(t, k->from, a, sizeof(a)),
		topo_switch_label(t, k->to, b, sizeof(b)),
		topo_switch_label(t, f->sw[ls->pair[2 * x]], p0, sizeof(p0)),
		topo_switch_label(t, f->sw[ls->pair[2 * x + 1]], p1,
				  sizeof(p1)),
		topo_switch_label(t, f->sw[ls->bad[q]], q0, sizeof(q0)),
		topo_switch_label(t, f->sw[ls->bad[q + 1]], q1, sizeof(q1)));
}

/* The pairs of a multipath routing (ecmp) by the link set of every two
 * leaves.  0, or 1 with ERR set. */
static int pairs_by_sets(struct ownstate *ls, const struct ft *f,
			 const struct topo *t, const struct routing *r,
			 uint32_t *nodes, uint8_t *used, struct err *err)
{
	uint32_t L = topo_num_links(t), first = topo_first_switch_link(t);

	for (uint32_t a = 0; a < f->leaves; a++)
		for (uint32_t b = a + 1; b < f->leaves; b++) {
			uint32_t c1, c2;
			const uint32_t *n1 =
				topo_switch_nodes(t, f->sw[a], &c1);
			const uint32_t *n2 =
				topo_switch_nodes(t, f->sw[b], &c2);

			memcpy(nodes, n1, c1 * sizeof(*nodes));
			memcpy(nodes + c1, n2, c2 * sizeof(*nodes));
			memset(used, 0, L);
			if (routing_linkset(r, nodes, c1 + c2, used, err))
				return 1;
			for (uint32_t x = first; x < L; x++)
				if (used[x])
					own_pair(ls, f, x, a, b);
		}
	return 0;
}

/* The pairs of a one-path routing (lft, whose routes depend on the
 * destination node): the path from every other leaf to every node of a
 * leaf, O(leaf nodes x leaves x hops) instead of every pair's link
 * set.  0, 1 with ERR set, or -1. */
static int pairs_by_paths(struct ownstate *ls, const struct ft *f,
			  const struct topo *t, const struct routing *r,
			  struct err *err)
{
	uint32_t first = topo_first_switch_link(t);
	struct pathset ps;
	int rc = 0;

	pathset_init(&ps);
	for (uint32_t d = 0; d < topo_num_nodes(t) && !rc; d++) {
		uint32_t b = f->nleaf[d];

		for (uint32_t a = 0; b != NO_LEAF && a < f->leaves && !rc;
		     a++) {
			uint32_t cnt;
			const uint32_t *na =
				topo_switch_nodes(t, f->sw[a], &cnt);

			if (a == b)
				continue;
			if (routing_paths(r, na[0], d, &ps, err)) {
				rc = 1;
				break;
			}
			for (uint32_t k = 0; k < ps.off[ps.n]; k++)
				if (ps.links[k] >= first)
					own_pair(ls, f, ps.links[k], a, b);
		}
	}
	pathset_free(&ps);
	return rc;
}

/* Check F's units against the link sets of every two leaves under R.
 * 0, -1 (memory) or 1 with ERR set. */
static int ft_links(const struct ft *f, const struct topo *t,
		    const struct routing *r, struct err *err)
{
	uint32_t L = topo_num_links(t), first = topo_first_switch_link(t);
	uint32_t lv = f->n > 1 ? f->n - 1 : 1, *nodes = NULL;
	struct ownstate ls = { .L = L };
	uint8_t *used = malloc((size_t)L + 1);
	int rc = -1;

	ls.cand = malloc(((size_t)lv * L + 1) * sizeof(*ls.cand));
	ls.pair = malloc(((size_t)2 * L + 1) * sizeof(*ls.pair));
	ls.bad = malloc(((size_t)2 * L + 1) * sizeof(*ls.bad));
	nodes = malloc(((size_t)topo_num_nodes(t) + 1) * sizeof(*nodes));
	if (!used || !ls.cand || !ls.pair || !ls.bad || !nodes)
		goto out;
	memset(ls.cand, 0xff, ((size_t)lv * L + 1) * sizeof(*ls.cand));
	memset(ls.pair, 0xff, ((size_t)2 * L + 1) * sizeof(*ls.pair));
	memset(ls.bad, 0xff, ((size_t)2 * L + 1) * sizeof(*ls.bad));
	rc = routing_multipath(r) ?
		     pairs_by_sets(&ls, f, t, r, nodes, used, err) :
		     pairs_by_paths(&ls, f, t, r, err);
	if (rc)
		goto out;
	rc = 0;
	for (uint32_t x = first; x < L && !rc; x++) {
		bool owned = ls.pair[2 * x] == LS_NONE;

		for (uint32_t l = 0; l + 1 < f->n && !owned; l++)
			owned = ls.cand[(size_t)l * L + x][0] != LS_FAIL;
		if (!owned) {
			own_fail(&ls, f, t, x, err);
			rc = 1;
		}
	}
out:
	if (rc < 0)
		err_nomem(err, "policy fattree-pods: out of memory");
	free(used);
	free(ls.cand);
	free(ls.pair);
	free(ls.bad);
	free(nodes);
	return rc;
}

/* The leaf groupings of every chassis of a director fat-tree: the
 * components of the non-idle switches above level 0, each grouping the
 * leaves by their level-1 neighbour in it (the lowest when several).
 * Returns their count, their keys in *PARTS ([count x S], UINT32_MAX for
 * no leaf), or UINT32_MAX when out of memory. */
static uint32_t chassis_parts(const struct topo *t, uint32_t **parts)
{
	uint32_t S = topo_num_switches(t), n = 0;
	uint32_t *par = malloc(((size_t)S + 1) * sizeof(*par));
	uint32_t *id = malloc(((size_t)S + 1) * sizeof(*id));
	uint32_t *v = NULL;

	*parts = NULL;
	if (!par || !id)
		goto nomem;
	for (uint32_t s = 0; s < S; s++)
		par[s] = s;
	for (uint32_t x = topo_first_switch_link(t); x < topo_num_links(t);
	     x++) {
		const struct topo_link *k = topo_link(t, x);

		if (topo_switch_level(t, k->from) &&
		    topo_switch_level(t, k->to))
			par[uf_root(par, k->from)] = uf_root(par, k->to);
	}
	for (uint32_t s = 0; s < S; s++)
		id[s] = UINT32_MAX;
	for (uint32_t s = 0; s < S; s++)
		if (topo_switch_level(t, s) == 1 && !topo_switch_idle(t, s) &&
		    id[uf_root(par, s)] == UINT32_MAX)
			id[uf_root(par, s)] = n++;
	v = malloc(((size_t)n * S + 1) * sizeof(*v));
	if (!v)
		goto nomem;
	memset(v, 0xff, ((size_t)n * S + 1) * sizeof(*v));
	for (uint32_t x = topo_first_switch_link(t); x < topo_num_links(t);
	     x++) {
		const struct topo_link *k = topo_link(t, x);
		uint32_t c = id[uf_root(par, k->to)];

		if (graph_leaf(t, k->from) &&
		    topo_switch_level(t, k->to) == 1 && c != UINT32_MAX &&
		    k->to < v[(size_t)c * S + k->from])
			v[(size_t)c * S + k->from] = k->to;
	}
	free(par);
	free(id);
	*parts = v;
	return n;
nomem:
	free(par);
	free(id);
	return UINT32_MAX;
}

/* The units of fattree-pods on a graph into *F (replaced): the
 * components of each level, checked by the link sets of the routing in
 * force unless they are ecmp's by construction; failing that, on a
 * director, the pods one chassis' leaf chips make.  0, -1 or 1 with ERR
 * set (the components' reason). */
static int graph_units(struct ft **f, const struct policy *p, struct err *err)
{
	bool ecmp = !strcmp(routing_name(p->r), "ecmp");
	uint32_t *parts = NULL, np, S = topo_num_switches(p->t);
	int rc = ft_graph(*f, p->t, NULL, err);

	if (!rc && ((*f)->by_links || !ecmp))
		rc = ft_links(*f, p->t, p->r, err);
	if (rc <= 0 || topo_graph_levels(p->t) < 3)
		return rc;
	np = chassis_parts(p->t, &parts);
	if (np == UINT32_MAX)
		return -1;
	for (uint32_t c = 0; c < np && rc > 0; c++) {
		struct ft *g = calloc(1, sizeof(*g));
		struct err sub = { 0 };
		bool all = true;
		int r;

		for (uint32_t s = 0; s < S; s++)
			all = all && (!graph_leaf(p->t, s) ||
				      parts[(size_t)c * S + s] != UINT32_MAX);
		if (g) {
			g->rule3 = (*f)->rule3;
			g->links = (*f)->links;
		}
		r = !g	? -1 :
		    all ? ft_graph(g, p->t, parts + (size_t)c * S, &sub) :
			  1;
		if (!r)
			r = ft_links(g, p->t, p->r, &sub);
		if (r == 0) {
			destroy(*f);
			*f = g;
			rc = 0;
		} else {
			destroy(g);
			if (r < 0)
				rc = -1;
		}
	}
	free(parts);
	return rc;
}

static int create(struct policy *p, struct err *err)
{
	struct ft *f;
	int large, rule, rc;

	if (topo_kind(p->t) == TOPO_GRAPH &&
	    (!topo_graph_family(p->t) ||
	     strcmp(topo_graph_family(p->t), "fattree") != 0))
		return err_set(
			err,
			"policy fattree-pods: topology graph %s%s%s "
			"(the policy needs a k-ary n-tree or a graph "
			"recognised as a fat-tree)",
			topo_graph_family(p->t) ? "recognised as " :
						  "not recognised",
			topo_graph_family(p->t) ? topo_graph_family(p->t) :
						  ": ",
			topo_graph_family(p->t) ? "" : topo_graph_why(p->t));
	if (topo_kind(p->t) == TOPO_GRAPH &&
	    strcmp(routing_name(p->r), "ecmp") != 0 &&
	    strcmp(routing_name(p->r), "lft") != 0)
		return err_set(err,
			       "policy fattree-pods: routing %s on a fat-tree "
			       "graph (isolation needs up/down routing, ecmp, "
			       "or the subnet manager's tables, lft)",
			       routing_name(p->r));
	if (!topo_traits(p->t)->levels && topo_kind(p->t) != TOPO_GRAPH)
		return err_set(err,
			       "policy fattree-pods: topology %s is not "
			       "a fat-tree",
			       topo_family(p->t));
	if (policy_opt_choice(p, "large", large_choices, &large, err) ||
	    policy_opt_choice(p, "rule", rule_choices, &rule, err))
		return -1;
	if (rule == 1 && large == 1) {
		/* large=leaves is the paper's rule iii: without a rule=
		 * of its own it asks for the paper's rules */
		bool given = false;

		for (size_t i = 0; i < p->args.n; i++)
			given |= !strcmp(p->args.item[i].key, "rule");
		if (given)
			return err_set(err,
				       "policy fattree-pods: large=leaves is "
				       "a rule=paper option (rule=links takes "
				       "any private leaves already)");
		rule = 0;
		if (policy_opt_show(p, "rule", "paper"))
			return err_range(err, "policy fattree-pods: too many "
					      "options");
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return err_nomem(err, "policy fattree-pods: out of memory");
	f->rule3 = large == 1;
	f->links = rule == 1;
	/* without it (out of memory) every call counts afresh */
	f->lc = f->links ? lcache_new() : NULL;
	if (topo_kind(p->t) == TOPO_GRAPH) {
		rc = graph_units(&f, p, err);
	} else {
		long k = topo_param_int(p->t, "k"),
		     n = topo_param_int(p->t, "n");

		if (k < 1 || n < 1 || n > 16) {
			destroy(f);
			return err_set(err, "policy fattree-pods: fat-tree "
					    "without k and n parameters");
		}
		f->n = (uint32_t)n;
		rc = ft_generated(f, p->t, (uint32_t)k);
		if (!rc &&
		    (uint64_t)f->leaves * (uint64_t)k != topo_num_nodes(p->t)) {
			destroy(f);
			return err_set(err, "policy fattree-pods: node count "
					    "does not match k^n");
		}
	}
	if (rc) {
		destroy(f);
		if (rc < 0)
			return err_nomem(err, "policy fattree-pods: out of "
					      "memory");
		return -1;
	}
	p->state = f;
	return 0;
}

/* Unit names for reasons. */
static const char *unit_name(uint32_t l, bool plural)
{
	if (l == 0)
		return plural ? "leaf switches" : "leaf switch";
	if (l == 1)
		return plural ? "pods" : "pod";
	return plural ? "subtrees" : "subtree";
}

/* Per-call counts.  nfree[w]: free usable nodes of leaf w; whole[l][u]:
 * number of whole level-(l-1) units inside level-l unit u (l >= 1), and
 * wcap[l][u] their nodes; a unit is whole when all its children are
 * (a leaf: nfree == cap). */
struct counts {
	uint32_t *nfree;
	uint32_t *whole[16];
	uint64_t *wcap[16];
	uint32_t *mem;
	uint64_t *wmem;
	/* large=leaves: crossed[l][u] for 1 <= l <= n-2: a running job has
	 * nodes inside and outside level-l unit u */
	uint8_t *crossed[16];
	uint8_t *cmem;
};

static uint32_t nchild(const struct ft *f, uint32_t l, uint32_t u)
{
	return f->cf[l][u + 1] - f->cf[l][u];
}

/* Lowest level whose unit holds both leaves A and B. */
static uint32_t lca_level(const struct ft *f, uint32_t a, uint32_t b)
{
	uint32_t l = 0;

	while (l + 1 < f->n && f->up[l][a] != f->up[l][b])
		l++;
	return l;
}

/* Mark the units crossed by running jobs (O(N n)). */
static int mark_crossed(const struct policy *p, const struct ft *f,
			const struct policy_view *v, struct counts *c)
{
	uint32_t N = topo_num_nodes(p->t), *first, *span;
	struct policy_jobs jobs;
	size_t total = 0;
	uint8_t *q;

	for (uint32_t l = 1; l + 1 < f->n; l++)
		total += f->nu[l];
	c->cmem = calloc(total + 1, 1);
	if (!c->cmem || policy_jobs_build(&jobs, v->owner, N))
		return -1;
	q = c->cmem;
	for (uint32_t l = 1; l + 1 < f->n; l++) {
		c->crossed[l] = q;
		q += f->nu[l];
	}
	first = malloc(((size_t)jobs.n + 1) * sizeof(*first));
	span = calloc((size_t)jobs.n + 1, sizeof(*span));
	if (!first || !span) {
		free(first);
		free(span);
		policy_jobs_free(&jobs);
		return -1;
	}
	for (uint32_t j = 0; j < jobs.n; j++)
		first[j] = UINT32_MAX;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t j = jobs.idx[i], w = f->nleaf[i], l;

		if (j == UINT32_MAX)
			continue;
		if (w == NO_LEAF)
			span[j] = f->n - 1;
		else if (first[j] == UINT32_MAX)
			first[j] = w;
		else if ((l = lca_level(f, w, first[j])) > span[j])
			span[j] = l;
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t j = jobs.idx[i], w = f->nleaf[i];

		if (j == UINT32_MAX || w == NO_LEAF)
			continue;
		for (uint32_t l = 1; l < span[j] && l + 1 < f->n; l++)
			c->crossed[l][f->up[l][w]] = 1;
	}
	free(first);
	free(span);
	policy_jobs_free(&jobs);
	return 0;
}

static int count(const struct policy *p, const struct ft *f,
		 const struct policy_view *v, bool empty, struct counts *c)
{
	size_t total = f->leaves, wtotal = 0;
	uint32_t *q;
	uint64_t *qw;

	memset(c, 0, sizeof(*c));
	for (uint32_t l = 1; l < f->n; l++) {
		total += f->nu[l];
		wtotal += f->nu[l];
	}
	c->mem = calloc(total, sizeof(uint32_t));
	c->wmem = calloc(wtotal + 1, sizeof(uint64_t));
	if (!c->mem || !c->wmem) {
		free(c->mem);
		free(c->wmem);
		return -1;
	}
	if (f->rule3 && f->n >= 3) {
		/* on the empty machine nothing crosses (crossed[] NULL) */
		if (!empty && mark_crossed(p, f, v, c)) {
			free(c->mem);
			free(c->wmem);
			free(c->cmem);
			return -1;
		}
	}
	c->nfree = c->mem;
	q = c->mem + f->leaves;
	qw = c->wmem;
	for (uint32_t l = 1; l < f->n; l++) {
		c->whole[l] = q;
		c->wcap[l] = qw;
		q += f->nu[l];
		qw += f->nu[l];
	}
	for (uint32_t w = 0; w < f->leaves; w++) {
		uint32_t cnt, nf = 0;
		const uint32_t *nodes = topo_switch_nodes(p->t, f->sw[w], &cnt);

		for (uint32_t i = 0; i < cnt; i++)
			nf += empty ? policy_node_usable(v, nodes[i]) :
				      policy_node_ok(v, nodes[i]);
		c->nfree[w] = nf;
	}
	for (uint32_t l = 1; l < f->n; l++)
		for (uint32_t u = 0; u < f->nu[l - 1]; u++) {
			bool w = l == 1 ? c->nfree[u] == f->cap[u] :
					  c->whole[l - 1][u] ==
						  nchild(f, l - 1, u);
			uint32_t up = f->up[l][f->lf[l - 1][u]];

			c->whole[l][up] += w;
			if (w)
				c->wcap[l][up] += f->ucap[l - 1][u];
		}
	return 0;
}

static bool sub_whole(const struct ft *f, const struct counts *c, uint32_t l,
		      uint32_t s)
{
	return l == 0 ? c->nfree[s] == f->cap[s] :
			c->whole[l][s] == nchild(f, l, s);
}

/* Single-leaf job: the ATTEMPT-th leaf (best fit).  Returns the leaf or
 * UINT32_MAX; *ncand = number of candidates; *most = most free on a leaf. */
static uint32_t find_leaf(const struct ft *f, const struct counts *c,
			  uint32_t need, uint32_t attempt, uint32_t *ncand,
			  uint32_t *most)
{
	struct policy_cand *cd = malloc(f->leaves * sizeof(*cd));
	uint32_t nc = 0, r = UINT32_MAX;

	*most = 0;
	for (uint32_t w = 0; w < f->leaves; w++) {
		if (c->nfree[w] > *most)
			*most = c->nfree[w];
		if (c->nfree[w] >= need && cd)
			cd[nc++] = (struct policy_cand){ c->nfree[w], w };
	}
	*ncand = nc;
	if (!cd)
		return UINT32_MAX;
	if (attempt < nc) {
		qsort(cd, nc, sizeof(*cd), policy_cand_cmp);
		r = cd[attempt].id;
	}
	free(cd);
	return r;
}

/* Starting points of runs of whole level-(J-1) sub-units of level-J unit U
 * (in id order, from a whole one) holding NEED nodes: a run from the i-th
 * whole sub-unit takes the following whole ones until NEED is reached. */
static uint64_t unit_runs(const struct ft *f, const struct counts *c,
			  uint32_t j, uint32_t u, uint64_t need)
{
	uint64_t rest = c->wcap[j][u], runs = 0;

	for (uint32_t s = f->cf[j][u]; s < f->cf[j][u + 1] && rest >= need; s++)
		if (sub_whole(f, c, j - 1, s)) {
			runs++;
			rest -= f->ucap[j - 1][s];
		}
	return runs;
}

/* Job inside one level-J unit on whole level-(J-1) units holding NEED
 * nodes: the ATTEMPT-th candidate.  Sets *unit and *first (index of the
 * first whole sub-unit of the run among the whole sub-units of the unit,
 * in id order).  Returns 0, or -1 with *ncand = candidates and *best =
 * most whole sub-units (nodes in them when BYCAP) in a unit. */
static int find_units(const struct ft *f, const struct counts *c, uint32_t j,
		      uint64_t need, uint32_t attempt, uint32_t *unit,
		      uint32_t *first, uint64_t *ncand, uint64_t *best,
		      bool bycap)
{
	uint32_t nu = f->nu[j], nc = 0;
	struct policy_cand *cd = malloc(((size_t)nu + 1) * sizeof(*cd));
	uint64_t seen = 0;
	int rc = -1;

	*best = 0;
	*ncand = 0;
	if (!cd)
		return -1;
	for (uint32_t u = 0; u < nu; u++) {
		uint64_t w = c->wcap[j][u];
		uint64_t b = bycap ? w : c->whole[j][u];

		if (b > *best)
			*best = b;
		if (w >= need) {
			cd[nc++] = (struct policy_cand){ w, u };
			*ncand += unit_runs(f, c, j, u, need);
		}
	}
	qsort(cd, nc, sizeof(*cd), policy_cand_cmp);
	for (uint32_t i = 0; i < nc; i++) {
		uint64_t here = unit_runs(f, c, j, cd[i].id, need);

		if (attempt < seen + here) {
			*unit = cd[i].id;
			*first = (uint32_t)(attempt - seen);
			rc = 0;
			break;
		}
		seen += here;
	}
	free(cd);
	return rc;
}

static void take_leaves(const struct policy *p, const struct ft *f,
			const struct policy_view *v, uint32_t lo, uint32_t hi,
			uint32_t need, struct policy_result *res);

/* large=leaves (rule iii): leaf W is whole and its units at levels
 * 1..J-1 are crossed by no running job. */
static bool leaf_eligible(const struct ft *f, const struct counts *c,
			  uint32_t j, uint32_t w)
{
	bool ok = c->nfree[w] == f->cap[w];

	for (uint32_t l = 1; l < j && ok && c->crossed[l]; l++)
		ok = !c->crossed[l][f->up[l][w]];
	return ok;
}

/* large=leaves (rule iii), job inside one level-J unit (J >= 2) on whole
 * leaves holding NEED nodes whose units at levels 1..J-1 no running job
 * crosses.  Candidates: level-J units with enough nodes on such leaves,
 * fewest first, then lowest id; in the unit, level-(J-1) sub-units with
 * the most such nodes first (fewest units crossed), then lowest id.
 * Fills RES when FILL. */
static enum policy_status find_leaves(const struct policy *p,
				      const struct ft *f,
				      const struct policy_view *v,
				      const struct counts *c, uint32_t j,
				      uint32_t need, uint32_t attempt,
				      struct policy_result *res, bool fill)
{
	uint32_t nu = f->nu[j], nsub = f->nu[j - 1], nc = 0;
	uint64_t *elig = calloc((size_t)nsub + 1, sizeof(*elig)), best = 0;
	struct policy_cand *cd = malloc(((size_t)nu + 1) * sizeof(*cd));
	enum policy_status st;

	if (!elig || !cd) {
		free(elig);
		free(cd);
		return policy_say(res, POLICY_WAIT, "out of memory");
	}
	/* nodes on eligible leaves of each level-(j-1) unit */
	for (uint32_t w = 0; w < f->leaves; w++)
		if (leaf_eligible(f, c, j, w))
			elig[f->up[j - 1][w]] += f->cap[w];
	for (uint32_t u = 0; u < nu; u++) {
		uint64_t e = 0;

		for (uint32_t s = f->cf[j][u]; s < f->cf[j][u + 1]; s++)
			e += elig[s];
		if (e > best)
			best = e;
		if (e >= need)
			cd[nc++] = (struct policy_cand){ e, u };
	}
	if (attempt >= nc) {
		if (nc)
			st = policy_say(res, POLICY_NEVER,
					"no candidate #%u "
					"(%u candidates)",
					attempt, nc);
		else if (f->regular)
			st = policy_say(res, POLICY_WAIT,
					"waiting for %u whole "
					"leaf switches in %s no other job "
					"crosses (%u such in one %s)",
					(need + f->kmax - 1) / f->kmax,
					unit_name(j - 1, true),
					(uint32_t)(best / f->kmax),
					unit_name(j, false));
		else
			st = policy_say(res, POLICY_WAIT,
					"waiting for whole leaf switches "
					"with %u nodes in %s no other job "
					"crosses (%llu such nodes in one %s)",
					need, unit_name(j - 1, true),
					(unsigned long long)best,
					unit_name(j, false));
		free(elig);
		free(cd);
		return st;
	}
	qsort(cd, nc, sizeof(*cd), policy_cand_cmp);
	if (fill) {
		uint32_t u = cd[attempt].id, ns = 0;
		struct policy_cand *sub =
			malloc(((size_t)nchild(f, j, u) + 1) * sizeof(*sub));

		if (!sub) {
			free(elig);
			free(cd);
			return policy_say(res, POLICY_WAIT, "out of memory");
		}
		for (uint32_t s = f->cf[j][u]; s < f->cf[j][u + 1]; s++)
			if (elig[s])
				sub[ns++] = (struct policy_cand){
					UINT64_MAX - elig[s], s
				};
		qsort(sub, ns, sizeof(*sub), policy_cand_cmp);
		res->n = 0;
		for (uint32_t i = 0; i < ns && res->n < need; i++)
			for (uint32_t w = f->lf[j - 1][sub[i].id];
			     w < f->lf[j - 1][sub[i].id + 1] && res->n < need;
			     w++) {
				struct policy_result part = *res;

				if (!leaf_eligible(f, c, j, w))
					continue;
				part.nodes = res->nodes + res->n;
				take_leaves(p, f, v, w, w + 1, need - res->n,
					    &part);
				res->n += part.n;
			}
		free(sub);
		policy_sort_u32(res->nodes, res->n);
	}
	free(elig);
	free(cd);
	return POLICY_PLACED;
}

/* Give the job NEED nodes: the free usable nodes of leaves [lo, hi) in id
 * order. */
static void take_leaves(const struct policy *p, const struct ft *f,
			const struct policy_view *v, uint32_t lo, uint32_t hi,
			uint32_t need, struct policy_result *res)
{
	res->n = 0;
	for (uint32_t w = lo; w < hi && res->n < need; w++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(p->t, f->sw[w], &cnt);

		for (uint32_t i = 0; i < cnt && res->n < need; i++)
			if (policy_node_ok(v, nodes[i]))
				res->nodes[res->n++] = nodes[i];
	}
}

/* Try to place on counts C.  Returns PLACED, or WAIT with a reason
 * (callers decide WAIT/NEVER), or NEVER for a too-high attempt. */
static enum policy_status try_place(const struct policy *p, const struct ft *f,
				    const struct policy_view *v,
				    const struct counts *c,
				    const struct policy_request *req,
				    struct policy_result *res, bool fill)
{
	uint32_t need = req->nodes, j = 0;

	while (j + 1 < f->n && f->maxcap[j] < need)
		j++;
	if (j == 0) {
		uint32_t nc, most;
		uint32_t w = find_leaf(f, c, need, req->attempt, &nc, &most);

		if (w == UINT32_MAX) {
			if (nc > 0)
				return policy_say(res, POLICY_NEVER,
						  "no candidate #%u (%u "
						  "candidates)",
						  req->attempt, nc);
			return policy_say(res, POLICY_WAIT,
					  "waiting for a "
					  "leaf switch with %u free nodes "
					  "(most free on a leaf: %u)",
					  need, most);
		}
		if (fill)
			take_leaves(p, f, v, w, w + 1, need, res);
		return POLICY_PLACED;
	}
	if (j >= 2 && f->rule3)
		return find_leaves(p, f, v, c, j, need, req->attempt, res,
				   fill);
	{
		uint64_t subnodes = f->maxcap[j - 1];
		uint32_t m = (uint32_t)((need + subnodes - 1) / subnodes);
		uint32_t unit, first, sub, idx = 0;
		uint64_t nc, best;
		bool top = j == f->n - 1;

		if (find_units(f, c, j, need, req->attempt, &unit, &first, &nc,
			       &best, !f->regular)) {
			if (nc > 0)
				return policy_say(res, POLICY_NEVER,
						  "no candidate #%u (%llu "
						  "candidates)",
						  req->attempt,
						  (unsigned long long)nc);
			if (!f->regular && top)
				return policy_say(
					res, POLICY_WAIT,
					"waiting for whole %s with %u nodes "
					"(%llu nodes in whole ones)",
					unit_name(j - 1, true), need,
					(unsigned long long)best);
			if (!f->regular)
				return policy_say(
					res, POLICY_WAIT,
					"waiting for whole %s with %u "
					"nodes in one %s (at most %llu "
					"nodes of whole ones in one)",
					unit_name(j - 1, true), need,
					unit_name(j, false),
					(unsigned long long)best);
			if (top)
				return policy_say(res, POLICY_WAIT,
						  "waiting for %u whole %s "
						  "(%u whole)",
						  m, unit_name(j - 1, true),
						  (uint32_t)best);
			return policy_say(res, POLICY_WAIT,
					  "waiting for %u "
					  "whole %s in one %s (at most %u "
					  "in one)",
					  m, unit_name(j - 1, true),
					  unit_name(j, false), (uint32_t)best);
		}
		if (!fill)
			return POLICY_PLACED;
		/* the whole sub-units of unit from the first-th on */
		res->n = 0;
		for (sub = f->cf[j][unit]; sub < f->cf[j][unit + 1]; sub++) {
			if (!sub_whole(f, c, j - 1, sub))
				continue;
			if (idx >= first && res->n < need) {
				uint32_t got = res->n;
				struct policy_result part = *res;

				part.nodes = res->nodes + got;
				take_leaves(p, f, v, f->lf[j - 1][sub],
					    f->lf[j - 1][sub + 1], need - got,
					    &part);
				res->n = got + part.n;
			}
			idx++;
		}
		return POLICY_PLACED;
	}
}

/* ---- rule=links ---- */

/* Per call: free usable nodes per leaf, and for each leaf the lowest
 * level at which a running job crosses one of its units. */
struct lstate {
	uint32_t *nfree;    /* [leaves] */
	uint8_t *low;	    /* [leaves] lowest crossed level of the leaf's
			     * units (n: none) */
	uint32_t *e;	    /* [leaves] nodes the job may take on each leaf */
	uint8_t *cross[16]; /* levels 1..n-2: [nu[l]] a running job crosses
			     * the unit (NULL: none does) */
};

static void lstate_free(struct lstate *s)
{
	free(s->nfree);
	free(s->low);
	free(s->e);
	for (uint32_t l = 0; l < 16; l++)
		free(s->cross[l]);
	memset(s, 0, sizeof(*s));
}

/* O(N + leaves * n), no division per node: a job's span is the level of
 * the lowest unit holding its lowest and highest leaf (units are runs of
 * consecutive leaves); a unit of level l is crossed when a job of span
 * > l has a node in it, i.e. when the largest span of the jobs on its
 * leaves exceeds l. */
static int lstate_build(const struct policy *p, const struct ft *f,
			const struct policy_view *v, bool empty,
			struct lstate *s)
{
	uint32_t N = topo_num_nodes(p->t), L = f->leaves;
	uint32_t *lo = NULL, *hi = NULL, *span = NULL, *m = NULL;
	struct policy_jobs jobs = { 0 };
	int rc = -1;

	memset(s, 0, sizeof(*s));
	s->nfree = calloc(L, sizeof(*s->nfree));
	s->e = calloc(L, sizeof(*s->e));
	s->low = malloc(L);
	if (!s->nfree || !s->e || !s->low)
		return -1;
	memset(s->low, (int)f->n, L);
	for (uint32_t w = 0; w < L; w++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(p->t, f->sw[w], &cnt);

		for (uint32_t i = 0; i < cnt; i++)
			s->nfree[w] += empty ? policy_node_usable(v, nodes[i]) :
					       policy_node_ok(v, nodes[i]);
	}
	if (empty || f->n < 2)
		return 0;
	if (policy_jobs_build(&jobs, v->owner, N))
		return -1;
	lo = malloc(((size_t)jobs.n + 1) * sizeof(*lo));
	hi = calloc((size_t)jobs.n + 1, sizeof(*hi));
	span = calloc((size_t)jobs.n + 1, sizeof(*span));
	m = calloc(L, sizeof(*m)); /* largest span of a job on each unit */
	if (!lo || !hi || !span || !m)
		goto out;
	for (uint32_t l = 1; l + 1 < f->n; l++)
		if (!(s->cross[l] = calloc(f->nu[l], 1)))
			goto out;
	for (uint32_t j = 0; j < jobs.n; j++)
		lo[j] = UINT32_MAX;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t j = jobs.idx[i], w = f->nleaf[i];

		if (j != UINT32_MAX && w == NO_LEAF)
			span[j] = f->n - 1; /* a hosted node: marked below */
		else if (j != UINT32_MAX) {
			if (w < lo[j])
				lo[j] = w;
			if (w > hi[j])
				hi[j] = w;
		}
	}
	for (uint32_t j = 0; j < jobs.n; j++)
		if (!span[j] && lo[j] != UINT32_MAX)
			span[j] = lca_level(f, lo[j], hi[j]);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t j = jobs.idx[i], w = f->nleaf[i];

		if (j != UINT32_MAX && w != NO_LEAF && span[j] > m[w])
			m[w] = span[j];
	}
	/* level by level, m[u] = the largest span on unit u's leaves */
	for (uint32_t l = 0; l + 1 < f->n; l++) {
		for (uint32_t u = 0; u < f->nu[l]; u++) {
			if (l > 0) {
				uint32_t x = 0;

				for (uint32_t c = f->cf[l][u];
				     c < f->cf[l][u + 1]; c++)
					if (m[c] > x)
						x = m[c];
				m[u] = x; /* u <= c: overwritten after read */
			}
			if (m[u] > l && s->cross[l])
				s->cross[l][u] = 1;
			if (m[u] > l)
				for (uint32_t w = f->lf[l][u];
				     w < f->lf[l][u + 1]; w++)
					if (s->low[w] > l)
						s->low[w] = (uint8_t)l;
		}
	}
	rc = 0;
out:
	free(lo);
	free(hi);
	free(span);
	free(m);
	policy_jobs_free(&jobs);
	return rc;
}

/* rule=links: the counts of the last views with a nonzero gen
 * (policy_view.gen), one per slot, found by gen and usable pointer: a
 * simulator's backfill pass asks hundreds of jobs about the machine as
 * it is, with and without a usable mask, and will-run asks about the
 * machine with a few more jobs released at a time.  A slot keeps what it
 * counted (owners, usable flags, its jobs with their leaves and spans,
 * the largest span on every unit), so a view given as a change of its
 * gen (policy_view.base_gen, changed) is counted from it: the leaves
 * whose nodes changed, and the units above them.  The counts are those
 * a fresh count makes, whatever the change; a job that lost part of its
 * nodes or gained some is counted afresh.  Locked: the plugin's callers
 * may share the policy. */
#define LSLOTS 6

/* A job of a counted view: its nodes, lowest and highest leaf, span
 * (the level of the lowest unit holding both); id 0: an empty entry. */
struct ljob {
	uint32_t id, count, lo, hi;
	uint8_t span, fresh, shrunk;
};

struct lslot {
	bool valid;
	uint64_t gen, used;
	uint32_t hits; /* asked again since it was counted */
	const uint8_t *usable;
	struct lstate s;
	uint32_t *owner;   /* [N] owners counted */
	uint8_t *usab;	   /* [N] usable flags counted */
	uint8_t *mm[16];   /* levels 0..n-2: [nu[l]] the largest span of a
			    * job with a node in the unit */
	struct ljob *jt;   /* open addressing, linear probing */
	uint32_t jcap, jn; /* entries, jobs */
	uint32_t *aff;	   /* [leaves] scratch: the leaves changed */
	uint8_t *amark;	   /* [max units] scratch marks */
	uint32_t *touch;   /* [N] scratch: the jobs a change touched */
	uint32_t *diff;	   /* [N] scratch: the nodes a view changed */
};

struct lcache {
	pthread_mutex_t lock;
	uint64_t tick;
	struct lslot slot[LSLOTS];
	/* the empty machine with every node usable (the question whether
	 * a job can ever run, policy_place's first wait): built once */
	bool have_empty;
	struct lstate empty;
};

static struct lcache *lcache_new(void)
{
	struct lcache *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void lslot_free(struct lslot *k)
{
	lstate_free(&k->s);
	free(k->owner);
	free(k->usab);
	for (uint32_t l = 0; l < 16; l++)
		free(k->mm[l]);
	free(k->jt);
	free(k->aff);
	free(k->amark);
	free(k->touch);
	free(k->diff);
	memset(k, 0, sizeof(*k));
}

static void lcache_free(struct lcache *c)
{
	if (!c)
		return;
	for (int i = 0; i < LSLOTS; i++)
		lslot_free(&c->slot[i]);
	lstate_free(&c->empty);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Job ID's entry in K's table: found, or the empty one it would take. */
static struct ljob *ljob_at(struct lslot *k, uint32_t id)
{
	uint32_t h = policy_hash32(id) & (k->jcap - 1);

	while (k->jt[h].id && k->jt[h].id != id)
		h = (h + 1) & (k->jcap - 1);
	return &k->jt[h];
}

/* Remove entry E of K's table (backward shift: no tombstones). */
static void ljob_remove(struct lslot *k, struct ljob *e)
{
	uint32_t i = (uint32_t)(e - k->jt), j = i;

	for (;;) {
		uint32_t h;

		j = (j + 1) & (k->jcap - 1);
		if (!k->jt[j].id)
			break;
		h = policy_hash32(k->jt[j].id) & (k->jcap - 1);
		/* J's entry may move to I when its home is not in (I, J] */
		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		k->jt[i] = k->jt[j];
		i = j;
	}
	memset(&k->jt[i], 0, sizeof(k->jt[i]));
	k->jn--;
}

/* Whether node I of V is usable (its owner aside). */
static uint8_t usable_of(const struct policy_view *v, uint32_t i)
{
	return !v->usable || v->usable[i];
}

/* Leaf W's free usable nodes and the largest span on it, from K's
 * owners and flags. */
static void lslot_leaf(const struct policy *p, const struct ft *f,
		       struct lslot *k, uint32_t w)
{
	uint32_t cnt, nf = 0, last = POLICY_FREE;
	const uint32_t *nodes = topo_switch_nodes(p->t, f->sw[w], &cnt);
	uint8_t m = 0, lastspan = 0;

	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t x = nodes[i], o = k->owner[x];

		if (o == POLICY_FREE) {
			nf += k->usab[x];
			continue;
		}
		if (o != last) {
			last = o;
			lastspan = ljob_at(k, o)->span;
		}
		if (lastspan > m)
			m = lastspan;
	}
	k->s.nfree[w] = nf;
	if (f->n > 1) /* levels 0..n-2: none on a one-switch tree */
		k->mm[0][w] = m;
}

/* Leaf W's lowest crossed level: the lowest l whose unit's largest span
 * exceeds l (n: none). */
static void lslot_low(const struct ft *f, struct lslot *k, uint32_t w)
{
	uint8_t low = (uint8_t)f->n;

	for (uint32_t l = 0; l + 1 < f->n; l++)
		if (k->mm[l][l ? f->up[l][w] : w] > l) {
			low = (uint8_t)l;
			break;
		}
	k->s.low[w] = low;
}

/* Level-L unit U's largest span from its children's (L >= 1); whether
 * it changed.  Its crossed flag follows. */
static bool lslot_unit(const struct ft *f, struct lslot *k, uint32_t l,
		       uint32_t u)
{
	uint8_t m = 0, was = k->mm[l][u];

	for (uint32_t c = f->cf[l][u]; c < f->cf[l][u + 1]; c++)
		if (k->mm[l - 1][c] > m)
			m = k->mm[l - 1][c];
	k->mm[l][u] = m;
	if (k->s.cross[l])
		k->s.cross[l][u] = m > l;
	return m != was;
}

/* Room in K for the machine (first use).  0 or -1. */
static int lslot_alloc(const struct ft *f, struct lslot *k, uint32_t N)
{
	uint32_t L = f->leaves, most = L;

	if (k->owner)
		return 0;
	k->owner = malloc((size_t)(N ? N : 1) * sizeof(*k->owner));
	k->usab = malloc(N ? N : 1);
	k->touch = malloc((size_t)(N ? N : 1) * sizeof(*k->touch));
	k->diff = malloc((size_t)(N ? N : 1) * sizeof(*k->diff));
	k->aff = malloc((size_t)L * sizeof(*k->aff));
	k->s.nfree = calloc(L, sizeof(*k->s.nfree));
	k->s.e = calloc(L, sizeof(*k->s.e));
	k->s.low = malloc(L);
	if (!k->owner || !k->usab || !k->touch || !k->diff || !k->aff ||
	    !k->s.nfree || !k->s.e || !k->s.low)
		return -1;
	for (uint32_t l = 0; l + 1 < f->n; l++) {
		if (!(k->mm[l] = calloc(f->nu[l], 1)))
			return -1;
		if (l && !(k->s.cross[l] = calloc(f->nu[l], 1)))
			return -1;
		most = f->nu[l] > most ? f->nu[l] : most;
	}
	k->amark = calloc(most, 1);
	k->jcap = 64;
	k->jt = calloc(k->jcap, sizeof(*k->jt));
	return k->amark && k->jt ? 0 : -1;
}

/* Room in K's job table for one more job (at most half full): the
 * table doubled and its entries moved when needed.  0 or -1. */
static int ljob_room(struct lslot *k)
{
	struct ljob *old = k->jt;
	uint32_t cap = k->jcap;

	if (2 * ((uint64_t)k->jn + 1) <= k->jcap)
		return 0;
	k->jt = calloc((size_t)cap * 2, sizeof(*k->jt));
	if (!k->jt) {
		k->jt = old;
		return -1;
	}
	k->jcap = cap * 2;
	for (uint32_t h = 0; h < cap; h++)
		if (old[h].id)
			*ljob_at(k, old[h].id) = old[h];
	free(old);
	return 0;
}

/* K, a copy of slot FROM (its view and counts).  0 or -1. */
static int lslot_copy(const struct ft *f, struct lslot *k,
		      const struct lslot *from, uint32_t N)
{
	uint32_t L = f->leaves;

	if (lslot_alloc(f, k, N))
		return -1;
	if (k->jcap != from->jcap) {
		struct ljob *jt = malloc((size_t)from->jcap * sizeof(*jt));

		if (!jt)
			return -1;
		free(k->jt);
		k->jt = jt;
		k->jcap = from->jcap;
	}
	memcpy(k->jt, from->jt, (size_t)k->jcap * sizeof(*k->jt));
	k->jn = from->jn;
	memcpy(k->owner, from->owner, (size_t)N * sizeof(*k->owner));
	memcpy(k->usab, from->usab, N);
	memcpy(k->s.nfree, from->s.nfree, (size_t)L * sizeof(*k->s.nfree));
	memcpy(k->s.low, from->s.low, L);
	for (uint32_t l = 0; l + 1 < f->n; l++) {
		memcpy(k->mm[l], from->mm[l], f->nu[l]);
		if (l)
			memcpy(k->s.cross[l], from->s.cross[l], f->nu[l]);
	}
	return 0;
}

/* V counted afresh into K: O(N + units).  0 or -1 (memory). */
static int lslot_count(const struct policy *p, const struct ft *f,
		       struct lslot *k, const struct policy_view *v)
{
	uint32_t N = topo_num_nodes(p->t), last = POLICY_FREE;
	struct ljob *e = NULL;

	if (lslot_alloc(f, k, N))
		return -1;
	memset(k->jt, 0, k->jcap * sizeof(*k->jt));
	k->jn = 0;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t o = v->owner[i], w = f->nleaf[i];

		k->owner[i] = o;
		k->usab[i] = usable_of(v, i);
		if (o == POLICY_FREE)
			continue;
		if (o != last) {
			e = ljob_at(k, o);
			if (!e->id) {
				if (ljob_room(k))
					return -1;
				e = ljob_at(k, o);
				*e = (struct ljob){ o, 0, w, w, 0, 0, 0 };
				k->jn++;
			}
			last = o;
		}
		e->count++;
		if (w < e->lo)
			e->lo = w;
		if (w > e->hi)
			e->hi = w;
	}
	for (uint32_t h = 0; h < k->jcap; h++)
		if (k->jt[h].id)
			k->jt[h].span =
				(uint8_t)lca_level(f, k->jt[h].lo, k->jt[h].hi);
	for (uint32_t w = 0; w < f->leaves; w++)
		lslot_leaf(p, f, k, w);
	for (uint32_t l = 1; l + 1 < f->n; l++)
		for (uint32_t u = 0; u < f->nu[l]; u++)
			lslot_unit(f, k, l, u);
	for (uint32_t w = 0; w < f->leaves; w++)
		lslot_low(f, k, w);
	return 0;
}

/* V, K's view changed at the NCHG nodes CHG (distinct, the others as
 * K holds them), counted into K from what it holds.  Returns 0, 1 when
 * the change is not one of whole jobs coming and going (count afresh),
 * or -1 (memory; K is then invalid). */
static int lslot_apply(const struct policy *p, const struct ft *f,
		       struct lslot *k, const struct policy_view *v,
		       const uint32_t *chg, uint32_t nchg)
{
	uint32_t naff = 0, nt = 0, N = topo_num_nodes(p->t);
	int rc = 0;

	for (uint32_t q = 0; q < nchg; q++) {
		uint32_t x = chg[q], oo, no, w;
		uint8_t nu;

		if (x >= N)
			return 1;
		oo = k->owner[x];
		no = v->owner[x];
		nu = usable_of(v, x);
		if (oo == no && k->usab[x] == nu)
			continue;
		w = f->nleaf[x];
		if (!k->amark[w]) {
			k->amark[w] = 1;
			k->aff[naff++] = w;
		}
		k->usab[x] = nu;
		k->owner[x] = no;
		if (oo == no)
			continue;
		if (oo != POLICY_FREE) {
			struct ljob *e = ljob_at(k, oo);

			if (!e->id) { /* not a job K counted */
				rc = 1;
				goto out;
			}
			if (!e->shrunk && !e->fresh)
				k->touch[nt++] = oo;
			e->shrunk = 1;
			e->count--;
		}
		if (no != POLICY_FREE) {
			struct ljob *e = ljob_at(k, no);

			if (!e->id) {
				if (ljob_room(k)) {
					rc = -1;
					goto out;
				}
				e = ljob_at(k, no);
				*e = (struct ljob){ no, 0, w, w, 0, 1, 0 };
				k->jn++;
				k->touch[nt++] = no;
			} else if (!e->fresh) { /* a job grew */
				rc = 1;
				goto out;
			}
			e->count++;
			if (w < e->lo)
				e->lo = w;
			if (w > e->hi)
				e->hi = w;
		}
	}
	/* whole jobs only: those that lost nodes lost them all */
	for (uint32_t t = 0; t < nt; t++) {
		struct ljob *e = ljob_at(k, k->touch[t]);

		if (e->shrunk && (e->count || e->fresh)) {
			rc = 1;
			goto out;
		}
	}
	for (uint32_t t = 0; t < nt; t++) {
		struct ljob *e = ljob_at(k, k->touch[t]);

		if (e->shrunk) {
			ljob_remove(k, e);
			continue;
		}
		e->span = (uint8_t)lca_level(f, e->lo, e->hi);
		e->fresh = 0;
	}
	nt = 0;
	for (uint32_t a = 0; a < naff; a++) {
		k->amark[k->aff[a]] = 0;
		lslot_leaf(p, f, k, k->aff[a]);
	}
	/* up the levels: the units above the changed leaves; the leaves
	 * of a unit whose largest span moved get their low again */
	for (uint32_t l = 1; l + 1 < f->n; l++) {
		uint32_t nu = 0;

		for (uint32_t a = 0; a < naff; a++) {
			uint32_t u = f->up[l][k->aff[a]];

			if (k->amark[u])
				continue;
			k->amark[u] = 1;
			k->touch[nu++] = u;
			if (lslot_unit(f, k, l, u))
				k->amark[u] = 2;
		}
		for (uint32_t q = 0; q < nu; q++) {
			uint32_t u = k->touch[q];

			if (k->amark[u] == 2)
				for (uint32_t w = f->lf[l][u];
				     w < f->lf[l][u + 1]; w++)
					lslot_low(f, k, w);
			k->amark[u] = 0;
		}
	}
	for (uint32_t a = 0; a < naff; a++)
		lslot_low(f, k, k->aff[a]);
	return 0;
out:
	for (uint32_t a = 0; a < naff; a++)
		k->amark[k->aff[a]] = 0;
	return rc;
}

/* The nodes where V differs from what slot K counted (owner or usable
 * flag) into K->diff; their number, or UINT32_MAX when they are more
 * than LIMIT (then counted afresh).  Runs of equal owners are skipped
 * by blocks. */
static uint32_t lslot_diff(struct lslot *k, const struct policy_view *v,
			   uint32_t N, uint32_t limit)
{
	uint32_t n = 0;

	for (uint32_t b = 0; b < N; b += 64) {
		uint32_t e = b + 64 < N ? b + 64 : N;

		if (!memcmp(k->owner + b, v->owner + b,
			    (e - b) * sizeof(*k->owner)) &&
		    (v->usable ? !memcmp(k->usab + b, v->usable + b, e - b) :
				 !memchr(k->usab + b, 0, e - b)))
			continue;
		for (uint32_t i = b; i < e; i++)
			if (k->owner[i] != v->owner[i] ||
			    k->usab[i] != usable_of(v, i)) {
				if (n == limit)
					return UINT32_MAX;
				k->diff[n++] = i;
			}
	}
	return n;
}

/* The slot holding V's counts, made when none does: from the slot of
 * V's hint base when one holds it (same usable pointer), else from the
 * slot counted last with that usable pointer, told apart node by node,
 * else afresh in the slot given up; C locked.  NULL out of memory. */
static struct lslot *lcache_get(const struct policy *p, const struct ft *f,
				struct lcache *c, const struct policy_view *v)
{
	struct lslot *k = &c->slot[0], *base = NULL;
	uint32_t N = topo_num_nodes(p->t), nchg = 0;
	const uint32_t *chg = NULL;

	for (int i = 0; i < LSLOTS; i++) {
		struct lslot *x = &c->slot[i];

		if (x->valid && x->gen == v->gen && x->usable == v->usable) {
			x->used = ++c->tick;
			x->hits++;
			return x;
		}
		if (x->valid && v->changed && v->base_gen &&
		    x->gen == v->base_gen && x->usable == v->usable)
			base = x;
		/* given up: an empty slot, else one asked once (will-run's
		 * releases, views of a moment), least recently used first */
		if (!x->valid ||
		    (k->valid && (!x->hits > !k->hits ||
				  (!x->hits == !k->hits && x->used < k->used))))
			k = x;
	}
	if (base) {
		chg = v->changed;
		nchg = v->nchanged;
	} else {
		/* no hint, or its base is gone: the one counted last with
		 * the same usable pointer, told apart */
		for (int i = 0; i < LSLOTS; i++) {
			struct lslot *x = &c->slot[i];

			if (x->valid && x->usable == v->usable &&
			    (!base || x->used > base->used))
				base = x;
		}
		if (base)
			nchg = lslot_diff(base, v, N, N / 2);
		if (base && nchg == UINT32_MAX)
			base = NULL;
		chg = base ? base->diff : NULL;
	}
	if (base) {
		/* counted on a copy of a base asked more than once, which
		 * stays (a simulator asks about the machine again after
		 * will-run's releases), on the base itself when it was asked
		 * once (will-run moves on from each release) or the copy
		 * cannot be made */
		int rc;

		if (k == base || !base->hits || lslot_copy(f, k, base, N)) {
			k = base;
		} else if (chg == base->diff) { /* the copy has its own */
			memcpy(k->diff, base->diff, nchg * sizeof(*chg));
			chg = k->diff;
		}
		rc = lslot_apply(p, f, k, v, chg, nchg);
		if (rc == 0)
			goto got;
	}
	k->valid = false;
	if (lslot_count(p, f, k, v))
		return NULL;
got:
	k->valid = true;
	k->hits = 0;
	k->gen = v->gen;
	k->usable = v->usable;
	k->used = ++c->tick;
	return k;
}

/* Nodes of the leaves of level-L unit U the job may take (s->e). */
static uint32_t unit_sum(const struct ft *f, const struct lstate *s, uint32_t l,
			 uint32_t u)
{
	uint32_t sum = 0;

	for (uint32_t w = f->lf[l][u]; w < f->lf[l][u + 1]; w++)
		sum += s->e[w];
	return sum;
}

/* Take X nodes inside level-L unit U: leaves in id order at level 0;
 * above, the sub-units with the fewest takeable nodes first until one
 * holds the rest, which then takes it (the smallest such). */
static void pick(const struct policy *p, const struct ft *f,
		 const struct policy_view *v, const struct lstate *s,
		 uint32_t l, uint32_t u, uint32_t x, struct policy_result *res)
{
	struct policy_cand *sub;
	uint32_t ns = 0;

	if (l == 0) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(p->t, f->sw[u], &cnt);

		for (uint32_t i = 0; i < cnt && x; i++)
			if (policy_node_ok(v, nodes[i])) {
				res->nodes[res->n++] = nodes[i];
				x--;
			}
		return;
	}
	sub = malloc(((size_t)nchild(f, l, u) + 1) * sizeof(*sub));
	if (!sub)
		return; /* res->n < need: the caller waits */
	/* keys UINT32_MAX - e: the most takeable first, ties lowest id */
	for (uint32_t c = f->cf[l][u]; c < f->cf[l][u + 1]; c++) {
		uint32_t e = unit_sum(f, s, l - 1, c);

		if (e)
			sub[ns++] = (struct policy_cand){ UINT32_MAX - e, c };
	}
	qsort(sub, ns, sizeof(*sub), policy_cand_cmp);
	for (uint32_t i = 0; i < ns && x; i++) {
		uint32_t fit = UINT32_MAX;

		/* the smallest remaining sub-unit that holds the rest (the
		 * lowest id of equals): backwards, takeable rises */
		for (uint32_t q = ns; q-- > i;) {
			uint32_t e = UINT32_MAX - sub[q].key;

			if (e < x)
				continue;
			if (fit != UINT32_MAX && e > UINT32_MAX - sub[fit].key)
				break;
			fit = q;
		}
		if (fit != UINT32_MAX) {
			pick(p, f, v, s, l - 1, sub[fit].id, x, res);
			break;
		}
		pick(p, f, v, s, l - 1, sub[i].id, UINT32_MAX - sub[i].key,
		     res);
		x -= UINT32_MAX - sub[i].key;
	}
	free(sub);
}

/* rule=links: the ATTEMPT-th candidate (lowest span level first, then
 * best fit).  Fills RES when FILL. */
static enum policy_status links_try(const struct policy *p, const struct ft *f,
				    const struct policy_view *v,
				    struct lstate *s,
				    const struct policy_request *req,
				    struct policy_result *res, bool fill)
{
	uint32_t need = req->nodes, j0 = 0, seen = 0, most = 0;
	struct policy_cand *cd = malloc(((size_t)f->leaves + 1) * sizeof(*cd));

	if (!cd)
		return policy_say(res, POLICY_WAIT, "out of memory");
	while (j0 + 1 < f->n && f->maxcap[j0] < need)
		j0++;
	for (uint32_t j = j0; j < f->n; j++) {
		uint32_t nu = f->nu[j], nc = 0;

		for (uint32_t w = 0; w < f->leaves; w++)
			s->e[w] = s->low[w] >= j ? s->nfree[w] : 0;
		for (uint32_t u = 0; u < nu; u++) {
			uint32_t e = unit_sum(f, s, j, u);
			/* units another job crosses first: no job spanning
			 * above them can use them until it ends */
			uint64_t open = j > 0 && s->cross[j] && !s->cross[j][u];

			if (e > most)
				most = e;
			if (e >= need)
				cd[nc++] = (struct policy_cand){ open << 32 | e,
								 u };
		}
		if (req->attempt >= seen + nc) {
			seen += nc;
			continue;
		}
		qsort(cd, nc, sizeof(*cd), policy_cand_cmp);
		if (fill) {
			res->n = 0;
			pick(p, f, v, s, j, cd[req->attempt - seen].id, need,
			     res);
			policy_sort_u32(res->nodes, res->n);
		}
		free(cd);
		if (fill && res->n != need)
			return policy_say(res, POLICY_WAIT, "out of memory");
		return POLICY_PLACED;
	}
	free(cd);
	if (seen)
		return policy_say(res, POLICY_NEVER,
				  "no candidate #%u (%u candidates)",
				  req->attempt, seen);
	return policy_say(res, POLICY_WAIT,
			  "waiting for %u free nodes on leaf switches no "
			  "other multi-leaf job uses (at most %u)",
			  need, most);
}

/* policy_search_fn: count the free nodes of V (or of the empty machine),
 * then place */
static int count_place(const struct policy *p, const struct policy_view *v,
		       const struct policy_request *req,
		       struct policy_result *res, bool empty)
{
	const struct ft *f = p->state;
	struct counts c;
	enum policy_status st;

	/* (the counts kept from view to view know leaves only: a tree with
	 * nodes hosted above them counts every view afresh) */
	if (f->links && empty && !v->usable && f->lc && !f->hosted) {
		struct lcache *lc = f->lc;

		pthread_mutex_lock(&lc->lock);
		if (!lc->have_empty && !lstate_build(p, f, v, true, &lc->empty))
			lc->have_empty = true;
		st = lc->have_empty ?
			     links_try(p, f, v, &lc->empty, req, res, false) :
			     POLICY_WAIT;
		pthread_mutex_unlock(&lc->lock);
		if (!lc->have_empty) {
			lstate_free(&lc->empty);
			return -1;
		}
		if (st == POLICY_PLACED)
			res->isolated = true;
		return st;
	}
	if (f->links && !empty && v->gen && f->lc && !f->hosted) {
		struct lslot *k;

		pthread_mutex_lock(&f->lc->lock);
		k = lcache_get(p, f, f->lc, v);
		st = k ? links_try(p, f, v, &k->s, req, res, true) :
			 POLICY_WAIT;
		pthread_mutex_unlock(&f->lc->lock);
		if (!k)
			return -1;
		if (st == POLICY_PLACED)
			res->isolated = true;
		return st;
	}
	if (f->links) {
		struct lstate s;

		if (lstate_build(p, f, v, empty, &s)) {
			lstate_free(&s);
			return -1;
		}
		st = links_try(p, f, v, &s, req, res, !empty);
		lstate_free(&s);
		if (st == POLICY_PLACED)
			res->isolated = true;
		return st;
	}
	if (count(p, f, v, empty, &c))
		return -1;
	st = try_place(p, f, v, &c, req, res, !empty);
	free(c.mem);
	free(c.wmem);
	free(c.cmem);
	if (st == POLICY_PLACED)
		res->isolated = true;
	return st;
}

/* rule=links: a job spanning level j (its leaves' lowest common unit)
 * crosses its units of levels 0..j-1, which another job with a node in
 * one of them would cross too; a reservation holding the job's level-(j-1)
 * units whole keeps every such job out.  A single-leaf job crosses
 * nothing: its nodes alone.  The paper's rules place only on whole units,
 * which the plugin's rounding finds by asking the policy: -1. */
static int resv_level(const struct policy *p, const uint32_t *nodes, uint32_t n)
{
	const struct ft *f = p->state;
	uint32_t lo = UINT32_MAX, hi = 0;

	if (!f->links || !n)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t w = f->nleaf[nodes[i]];

		if (w == NO_LEAF)
			return f->n - 1; /* not this policy's: the top */
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	return (int)lca_level(f, lo, hi) - 1;
}

static const struct policy_default_for default_for[] = {
	{ .family = "fattree", .priority = 10 },
	{ 0 },
};

const struct policy_ops policy_fattree_pods = {
	.name = "fattree-pods",
	.default_for = default_for,
	.anonymous = true,
	.opts = opts,
	.isolating = true,
	.monotone = true,
	.create = create,
	.destroy = destroy,
	.search = count_place,
	.resv_level = resv_level,
};
