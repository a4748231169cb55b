/* policy_fattree_pods.c - interference-free placement on a k-ary n-tree,
 * paper 003 Sec. IV-B-2 (rules i-iv), generalised to n levels.
 *
 * Units: a level-l unit is the k^l leaves whose indices agree in base-k
 * digits l..n-2 (leaf w is in unit w / k^l): level 0 = one leaf switch,
 * level 1 = a pod, level n-1 = the whole machine.  Under minimal up/down
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
 * Option rule=links drops the rounding to whole units, keeping only what
 * isolation needs (the invariant above, for units of every level 0..n-2,
 * a leaf included): a job whose nodes span level j (their lowest common
 * unit is a level-j unit) crosses every unit below level j holding one of
 * its nodes, so it may take any free nodes of leaves whose units at levels
 * 0..j-1 no running job crosses.  A leaf then holds single-leaf jobs and
 * at most one multi-leaf job; a pod holds pod-contained jobs on other
 * leaves and at most one job spanning pods; and so on up.  Candidates: the
 * lowest level j first, then level-j units with the fewest such nodes
 * (best fit), lowest id; inside a unit, the sub-units with the most such
 * nodes first (fewest units crossed) until one holds the rest, which then
 * takes it: the smallest that does (best fit: leftovers beside
 * single-leaf jobs, partly used pods). */
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "large",
	  .def = "pods",
	  .help = "jobs above a pod: whole pods, or leaves (rule iii)" },
	{ .key = "rule",
	  .def = "paper",
	  .help = "paper: whole units (rules i-iv); links: any nodes whose "
		  "links stay private" },
	{ 0 },
};
static const char *const large_choices[] = { "pods", "leaves", NULL };
static const char *const rule_choices[] = { "paper", "links", NULL };

struct ft {
	bool links;	 /* rule=links */
	bool rule3;	 /* large=leaves: rule iii for jobs above a pod */
	uint32_t k, n;	 /* arity, levels */
	uint32_t leaves; /* k^(n-1) */
	uint64_t pw[17]; /* pw[l] = k^l */
};

static int create(struct policy *p, struct err *err)
{
	struct ft *f;
	long k, n;
	int large, rule;

	if (topo_kind(p->t) == TOPO_GRAPH)
		return err_set(
			err,
			"policy fattree-pods: topology graph %s%s%s "
			"(the policy needs a generated k-ary n-tree)",
			topo_graph_family(p->t) ? "recognised as " :
						  "not recognised",
			topo_graph_family(p->t) ? topo_graph_family(p->t) :
						  ": ",
			topo_graph_family(p->t) ? "" : topo_graph_why(p->t));
	if (topo_kind(p->t) != TOPO_FATTREE)
		return err_set(err,
			       "policy fattree-pods: topology %s is not "
			       "a fat-tree",
			       topo_family(p->t));
	if (policy_opt_choice(p, "large", large_choices, &large, err) ||
	    policy_opt_choice(p, "rule", rule_choices, &rule, err))
		return -1;
	if (rule == 1 && large == 1)
		return err_set(err, "policy fattree-pods: large=leaves is a "
				    "rule=paper option (rule=links takes any "
				    "private leaves already)");
	k = topo_param_int(p->t, "k");
	n = topo_param_int(p->t, "n");
	if (k < 1 || n < 1 || n > 16)
		return err_set(err, "policy fattree-pods: fat-tree without "
				    "k and n parameters");
	f = calloc(1, sizeof(*f));
	if (!f)
		return err_set(err, "policy fattree-pods: out of memory");
	f->rule3 = large == 1;
	f->links = rule == 1;
	f->k = (uint32_t)k;
	f->n = (uint32_t)n;
	f->pw[0] = 1;
	for (uint32_t l = 1; l <= f->n; l++)
		f->pw[l] = f->pw[l - 1] * f->k;
	f->leaves = (uint32_t)f->pw[f->n - 1];
	if ((uint64_t)f->leaves * f->k != topo_num_nodes(p->t)) {
		free(f);
		return err_set(err, "policy fattree-pods: node count does not "
				    "match k^n");
	}
	p->state = f;
	return 0;
}

static void destroy(void *state)
{
	free(state);
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
 * a level-l unit is whole when whole[l][u] == k (leaves: nfree == k). */
struct counts {
	uint32_t *nfree;
	uint32_t *whole[16];
	uint32_t *mem;
	/* large=leaves: crossed[l][u] for 1 <= l <= n-2: a running job has
	 * nodes inside and outside level-l unit u */
	uint8_t *crossed[16];
	uint8_t *cmem;
};

/* Lowest level whose unit holds both leaves A and B. */
static uint32_t lca_level(const struct ft *f, uint32_t a, uint32_t b)
{
	uint32_t l = 0;

	while (a != b) {
		a /= f->k;
		b /= f->k;
		l++;
	}
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
		total += f->pw[f->n - 1 - l];
	c->cmem = calloc(total + 1, 1);
	if (!c->cmem || policy_jobs_build(&jobs, v->owner, N))
		return -1;
	q = c->cmem;
	for (uint32_t l = 1; l + 1 < f->n; l++) {
		c->crossed[l] = q;
		q += f->pw[f->n - 1 - l];
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
		uint32_t j = jobs.idx[i], w = topo_node_switch(p->t, i), l;

		if (j == UINT32_MAX)
			continue;
		if (first[j] == UINT32_MAX)
			first[j] = w;
		else if ((l = lca_level(f, w, first[j])) > span[j])
			span[j] = l;
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t j = jobs.idx[i], w = topo_node_switch(p->t, i);

		if (j == UINT32_MAX)
			continue;
		for (uint32_t l = 1; l < span[j] && l + 1 < f->n; l++)
			c->crossed[l][w / f->pw[l]] = 1;
	}
	free(first);
	free(span);
	policy_jobs_free(&jobs);
	return 0;
}

static int count(const struct policy *p, const struct ft *f,
		 const struct policy_view *v, bool empty, struct counts *c)
{
	size_t total = f->leaves;
	uint32_t *q;

	memset(c, 0, sizeof(*c));
	for (uint32_t l = 1; l < f->n; l++)
		total += f->pw[f->n - 1 - l];
	c->mem = calloc(total, sizeof(uint32_t));
	if (!c->mem)
		return -1;
	if (f->rule3 && f->n >= 3) {
		/* on the empty machine nothing crosses (crossed[] NULL) */
		if (!empty && mark_crossed(p, f, v, c)) {
			free(c->mem);
			free(c->cmem);
			return -1;
		}
	}
	c->nfree = c->mem;
	q = c->mem + f->leaves;
	for (uint32_t l = 1; l < f->n; l++) {
		c->whole[l] = q;
		q += f->pw[f->n - 1 - l];
	}
	for (uint32_t w = 0; w < f->leaves; w++) {
		uint32_t cnt, nf = 0;
		const uint32_t *nodes = topo_switch_nodes(p->t, w, &cnt);

		for (uint32_t i = 0; i < cnt; i++)
			nf += empty ? policy_node_usable(v, nodes[i]) :
				      policy_node_ok(v, nodes[i]);
		c->nfree[w] = nf;
	}
	for (uint32_t l = 1; l < f->n; l++)
		for (uint32_t u = 0; u < f->pw[f->n - l]; u++) {
			bool w = l == 1 ? c->nfree[u] == f->k :
					  c->whole[l - 1][u] == f->k;

			c->whole[l][u / f->k] += w;
		}
	return 0;
}

static bool sub_whole(const struct ft *f, const struct counts *c, uint32_t l,
		      uint32_t s)
{
	return l == 0 ? c->nfree[s] == f->k : c->whole[l][s] == f->k;
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

/* Job inside one level-J unit on M whole level-(J-1) units: the ATTEMPT-th
 * candidate.  Sets *unit and *first (index of the first of the M whole
 * sub-units among the whole sub-units of the unit, in id order).  Returns
 * 0, or -1 with *ncand = candidates and *best = most whole sub-units in a
 * unit. */
static int find_units(const struct ft *f, const struct counts *c, uint32_t j,
		      uint32_t m, uint32_t attempt, uint32_t *unit,
		      uint32_t *first, uint64_t *ncand, uint32_t *best)
{
	uint32_t nu = (uint32_t)f->pw[f->n - 1 - j], nc = 0;
	struct policy_cand *cd = malloc(nu * sizeof(*cd));
	uint64_t seen = 0;
	int rc = -1;

	*best = 0;
	*ncand = 0;
	if (!cd)
		return -1;
	for (uint32_t u = 0; u < nu; u++) {
		uint32_t w = c->whole[j][u];

		if (w > *best)
			*best = w;
		if (w >= m) {
			cd[nc++] = (struct policy_cand){ w, u };
			*ncand += w - m + 1;
		}
	}
	qsort(cd, nc, sizeof(*cd), policy_cand_cmp);
	for (uint32_t i = 0; i < nc; i++) {
		uint64_t here = cd[i].key - m + 1;

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

static void take_leaves(const struct policy *p, const struct policy_view *v,
			uint32_t lo, uint32_t hi, uint32_t need,
			struct policy_result *res);

/* large=leaves (rule iii), job inside one level-J unit (J >= 2) on M whole
 * leaves whose units at levels 1..J-1 no running job crosses.  Candidates:
 * level-J units with enough such leaves, fewest first, then lowest id; in
 * the unit, level-(J-1) sub-units with the most such leaves first (fewest
 * units crossed), then lowest id.  Fills RES when FILL. */
static enum policy_status find_leaves(const struct policy *p,
				      const struct ft *f,
				      const struct policy_view *v,
				      const struct counts *c, uint32_t j,
				      uint32_t need, uint32_t attempt,
				      struct policy_result *res, bool fill)
{
	uint32_t m = (need + f->k - 1) / f->k;
	uint32_t nu = (uint32_t)f->pw[f->n - 1 - j];
	uint32_t nsub = (uint32_t)f->pw[f->n - j]; /* level j-1 units */
	uint32_t per = (uint32_t)f->pw[j - 1];	   /* leaves per sub-unit */
	uint32_t *elig = calloc(nsub, sizeof(*elig)), nc = 0, best = 0;
	struct policy_cand *cd = malloc(((size_t)nu + 1) * sizeof(*cd));
	enum policy_status st;

	if (!elig || !cd) {
		free(elig);
		free(cd);
		return policy_say(res, POLICY_WAIT, "out of memory");
	}
	for (uint32_t w = 0; w < f->leaves; w++) {
		bool ok = c->nfree[w] == f->k;

		for (uint32_t l = 1; l < j && ok && c->crossed[l]; l++)
			ok = !c->crossed[l][w / f->pw[l]];
		elig[w / per] += ok;
	}
	for (uint32_t u = 0; u < nu; u++) {
		uint32_t e = 0;

		for (uint32_t s = u * f->k; s < (u + 1) * f->k; s++)
			e += elig[s];
		if (e > best)
			best = e;
		if (e >= m)
			cd[nc++] = (struct policy_cand){ e, u };
	}
	if (attempt >= nc) {
		st = nc ? policy_say(res, POLICY_NEVER,
				     "no candidate #%u "
				     "(%u candidates)",
				     attempt, nc) :
			  policy_say(res, POLICY_WAIT,
				     "waiting for %u whole "
				     "leaf switches in %s no other job "
				     "crosses (%u such in one %s)",
				     m, unit_name(j - 1, true), best,
				     unit_name(j, false));
		free(elig);
		free(cd);
		return st;
	}
	qsort(cd, nc, sizeof(*cd), policy_cand_cmp);
	if (fill) {
		uint32_t u = cd[attempt].id, ns = 0;
		struct policy_cand *sub = malloc(f->k * sizeof(*sub));

		if (!sub) {
			free(elig);
			free(cd);
			return policy_say(res, POLICY_WAIT, "out of memory");
		}
		for (uint32_t s = u * f->k; s < (u + 1) * f->k; s++)
			if (elig[s])
				sub[ns++] = (struct policy_cand){
					UINT32_MAX - elig[s], s
				};
		qsort(sub, ns, sizeof(*sub), policy_cand_cmp);
		res->n = 0;
		for (uint32_t i = 0; i < ns && res->n < need; i++)
			for (uint32_t w = sub[i].id * per;
			     w < (sub[i].id + 1) * per && res->n < need; w++) {
				bool ok = c->nfree[w] == f->k;

				for (uint32_t l = 1;
				     l < j && ok && c->crossed[l]; l++)
					ok = !c->crossed[l][w / f->pw[l]];
				if (!ok)
					continue;
				{
					struct policy_result part = *res;

					part.nodes = res->nodes + res->n;
					take_leaves(p, v, w, w + 1,
						    need - res->n, &part);
					res->n += part.n;
				}
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
static void take_leaves(const struct policy *p, const struct policy_view *v,
			uint32_t lo, uint32_t hi, uint32_t need,
			struct policy_result *res)
{
	res->n = 0;
	for (uint32_t w = lo; w < hi && res->n < need; w++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(p->t, w, &cnt);

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

	while ((uint64_t)f->pw[j + 1] < need)
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
			take_leaves(p, v, w, w + 1, need, res);
		return POLICY_PLACED;
	}
	if (j >= 2 && f->rule3)
		return find_leaves(p, f, v, c, j, need, req->attempt, res,
				   fill);
	{
		uint64_t subnodes = f->pw[j];
		uint32_t m = (uint32_t)((need + subnodes - 1) / subnodes);
		uint32_t unit, first, best, sub, lo, hi, idx = 0;
		uint64_t nc;
		bool top = j == f->n - 1;

		if (find_units(f, c, j, m, req->attempt, &unit, &first, &nc,
			       &best)) {
			if (nc > 0)
				return policy_say(res, POLICY_NEVER,
						  "no candidate #%u (%llu "
						  "candidates)",
						  req->attempt,
						  (unsigned long long)nc);
			if (top)
				return policy_say(res, POLICY_WAIT,
						  "waiting for %u whole %s "
						  "(%u whole)",
						  m, unit_name(j - 1, true),
						  best);
			return policy_say(res, POLICY_WAIT,
					  "waiting for %u "
					  "whole %s in one %s (at most %u "
					  "in one)",
					  m, unit_name(j - 1, true),
					  unit_name(j, false), best);
		}
		if (!fill)
			return POLICY_PLACED;
		/* the first-th .. (first+m-1)-th whole sub-units of unit */
		res->n = 0;
		for (sub = unit * f->k; sub < (unit + 1) * f->k; sub++) {
			if (!sub_whole(f, c, j - 1, sub))
				continue;
			if (idx >= first && idx < first + m) {
				lo = (uint32_t)(sub * f->pw[j - 1]);
				hi = (uint32_t)(lo + f->pw[j - 1]);
				uint32_t got = res->n;
				struct policy_result part = *res;

				part.nodes = res->nodes + got;
				take_leaves(p, v, lo, hi, need - got, &part);
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
	uint32_t *nfree; /* [leaves] */
	uint8_t *low;	 /* [leaves] lowest crossed level of the leaf's units
			  * (n: none) */
	uint32_t *e;	 /* [leaves] nodes the job may take on each leaf */
};

static void lstate_free(struct lstate *s)
{
	free(s->nfree);
	free(s->low);
	free(s->e);
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
		const uint32_t *nodes = topo_switch_nodes(p->t, w, &cnt);

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
	for (uint32_t j = 0; j < jobs.n; j++)
		lo[j] = UINT32_MAX;
	/* node i on leaf i/k (counted, not divided: this runs per call) */
	for (uint32_t i = 0, w = 0, t = 0; i < N; i++) {
		uint32_t j = jobs.idx[i];

		if (j != UINT32_MAX) {
			if (w < lo[j])
				lo[j] = w;
			if (w > hi[j])
				hi[j] = w;
		}
		if (++t == f->k) {
			t = 0;
			w++;
		}
	}
	for (uint32_t j = 0; j < jobs.n; j++)
		span[j] = lca_level(f, lo[j], hi[j]);
	for (uint32_t i = 0, w = 0, t = 0; i < N; i++) {
		uint32_t j = jobs.idx[i];

		if (j != UINT32_MAX && span[j] > m[w])
			m[w] = span[j];
		if (++t == f->k) {
			t = 0;
			w++;
		}
	}
	/* level by level, m[u] = the largest span on unit u's leaves */
	for (uint32_t l = 0; l + 1 < f->n; l++) {
		uint32_t nu = (uint32_t)f->pw[f->n - 1 - l],
			 per = (uint32_t)f->pw[l];

		for (uint32_t u = 0; u < nu; u++) {
			if (l > 0) {
				uint32_t x = 0;

				for (uint32_t c = u * f->k; c < (u + 1) * f->k;
				     c++)
					if (m[c] > x)
						x = m[c];
				m[u] = x; /* u <= c: overwritten after read */
			}
			if (m[u] > l)
				for (uint32_t w = u * per; w < (u + 1) * per;
				     w++)
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

/* Nodes of the leaves of level-L unit U the job may take (s->e). */
static uint32_t unit_sum(const struct ft *f, const struct lstate *s, uint32_t l,
			 uint32_t u)
{
	uint32_t sum = 0, lo = (uint32_t)(u * f->pw[l]);

	for (uint32_t w = lo; w < lo + f->pw[l]; w++)
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
		const uint32_t *nodes = topo_switch_nodes(p->t, u, &cnt);

		for (uint32_t i = 0; i < cnt && x; i++)
			if (policy_node_ok(v, nodes[i])) {
				res->nodes[res->n++] = nodes[i];
				x--;
			}
		return;
	}
	sub = malloc(f->k * sizeof(*sub));
	if (!sub)
		return; /* res->n < need: the caller waits */
	/* keys UINT32_MAX - e: the most takeable first, ties lowest id */
	for (uint32_t c = u * f->k; c < (u + 1) * f->k; c++) {
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
	while (f->pw[j0 + 1] < need)
		j0++;
	for (uint32_t j = j0; j < f->n; j++) {
		uint32_t nu = (uint32_t)f->pw[f->n - 1 - j], nc = 0;

		for (uint32_t w = 0; w < f->leaves; w++)
			s->e[w] = s->low[w] >= j ? s->nfree[w] : 0;
		for (uint32_t u = 0; u < nu; u++) {
			uint32_t e = unit_sum(f, s, j, u);

			if (e > most)
				most = e;
			if (e >= need)
				cd[nc++] = (struct policy_cand){ e, u };
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
	free(c.cmem);
	if (st == POLICY_PLACED)
		res->isolated = true;
	return st;
}

const struct policy_ops policy_fattree_pods = {
	.name = "fattree-pods",
	.opts = opts,
	.isolating = true,
	.monotone = true,
	.create = create,
	.destroy = destroy,
	.search = count_place,
};
