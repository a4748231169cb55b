/* routing_fattree.c - routings of the k-ary n-tree: ecmp and dmodk.
 *
 * Leaf w (level 0) and a switch at level l are numbered by their index
 * w < k^(n-1) in base k (digits 0..n-2, digit 0 least significant); the
 * up-link from level l to level l+1 changes digit l and nothing else, and
 * the down-link from level l+1 to level l changes digit l back.  A flow
 * between leaves ws != wd must climb to level L = 1 + the highest digit in
 * which ws and wd differ: every shortest path goes up L levels choosing
 * digit l freely at level l, then down L levels setting digit l to wd's.
 *
 *   ecmp   all k^L shortest up/down paths (2L hops each).
 *   dmodk  one path: at level l the up-port, i.e. the new digit l, is
 *          (dst / k^l) mod k where dst is the destination NODE id (the
 *          up-ports of a switch are ordered by the switch they reach, so
 *          port d reaches the switch whose digit l is d).  The down path is
 *          then forced.
 *
 * Link sets are computed structurally (see linkset_ecmp/linkset_dmodk). */
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

struct ft {
	uint32_t k, n, per; /* arity, levels, switches per level */
	uint32_t pw[17];    /* k^i for i <= n */
};

static bool applies(const struct topo *t)
{
	return topo_kind(t) == TOPO_FATTREE;
}

/* A Topology=graph recognised as a fat-tree: ecmp by routing_updown.c. */
static bool updown(const struct topo *t)
{
	const char *g = topo_graph_family(t);

	return g && !strcmp(g, "fattree");
}

/* Per call (hot: every pair's paths): routing_create already checked
 * applies_ecmp, so a graph here is a recognised fat-tree. */
static bool on_graph(const struct routing *r)
{
	return topo_kind(r->t) == TOPO_GRAPH;
}

static bool applies_ecmp(const struct topo *t)
{
	return applies(t) || updown(t);
}

/* k and n from the topology itself (levels and nodes per leaf), so that
 * defaults of the family's parameters need not be known here. */
static int init(struct routing *r, const struct topo_args *args,
		struct err *err)
{
	const struct topo *t = r->t;
	uint32_t S = topo_num_switches(t), N = topo_num_nodes(t), n, k;
	struct ft *ft;

	(void)args;
	if (updown(t))
		return updown_init(r, err);
	if (!S || !N)
		return err_set(err, "empty fat-tree");
	n = topo_switch_level(t, S - 1) + 1;
	topo_switch_nodes(t, 0, &k);
	if (n > 16 || S % n || k < 1)
		return err_set(err, "not a k-ary n-tree");
	ft = calloc(1, sizeof(*ft));
	if (!ft)
		return err_nomem(err, "out of memory");
	ft->k = k;
	ft->n = n;
	ft->pw[0] = 1;
	for (uint32_t i = 1; i <= n; i++)
		ft->pw[i] = ft->pw[i - 1] * k;
	ft->per = ft->pw[n - 1];
	if ((uint64_t)ft->per * n != S || (uint64_t)ft->per * k != N) {
		free(ft);
		return err_set(err,
			       "not a k-ary n-tree (%u switches, %u "
			       "nodes)",
			       S, N);
	}
	r->priv = ft;
	return 0;
}

static void fini(struct routing *r)
{
	if (on_graph(r)) {
		updown_fini(r);
		return;
	}
	free(r->priv);
	r->priv = NULL;
}

static uint32_t digit(const struct ft *ft, uint32_t w, uint32_t l)
{
	return (w / ft->pw[l]) % ft->k;
}

static uint32_t set_digit(const struct ft *ft, uint32_t w, uint32_t l,
			  uint32_t d)
{
	return w - digit(ft, w, l) * ft->pw[l] + d * ft->pw[l];
}

/* Level to climb to between distinct leaves: 1 + highest differing digit. */
static uint32_t climb(const struct ft *ft, uint32_t ws, uint32_t wd)
{
	uint32_t L = 0;

	for (uint32_t l = 0; l + 1 < ft->n; l++)
		if (digit(ft, ws, l) != digit(ft, wd, l))
			L = l + 1;
	return L;
}

/* The switch-to-switch link between level-l switch a and level-l2 switch
 * b (adjacent levels).  Always exists in a k-ary n-tree. */
static uint32_t link(const struct topo *t, const struct ft *ft, uint32_t la,
		     uint32_t a, uint32_t lb, uint32_t b)
{
	uint32_t cnt;

	return topo_link_between(t, la * ft->per + a, lb * ft->per + b, &cnt);
}

/* Append the path that takes up-digits CHOICE[0..L-1]. */
static int add_path(const struct routing *r, uint32_t src, uint32_t dst,
		    uint32_t L, const uint32_t *choice, struct pathset *out)
{
	const struct ft *ft = r->priv;
	const struct topo *t = r->t;
	uint32_t buf[2 * 16 + 2], len = 0;
	uint32_t cur = topo_node_switch(t, src);
	uint32_t wd = topo_node_switch(t, dst);

	buf[len++] = topo_inject_link(t, src);
	for (uint32_t l = 0; l < L; l++) {
		uint32_t next = set_digit(ft, cur, l, choice[l]);

		buf[len++] = link(t, ft, l, cur, l + 1, next);
		cur = next;
	}
	for (uint32_t l = L; l-- > 0;) {
		uint32_t next = set_digit(ft, cur, l, digit(ft, wd, l));

		buf[len++] = link(t, ft, l + 1, cur, l, next);
		cur = next;
	}
	buf[len++] = topo_eject_link(t, dst);
	return pathset_add(out, buf, len, PATH_MIN);
}

static int paths_ecmp(const struct routing *r, uint32_t src, uint32_t dst,
		      struct pathset *out, struct err *err)
{
	const struct ft *ft = r->priv;
	uint32_t L, choice[16];

	if (on_graph(r))
		return updown_paths(r, src, dst, out, err);
	L = climb(ft, topo_node_switch(r->t, src), topo_node_switch(r->t, dst));
	for (uint32_t c = 0; c < ft->pw[L]; c++) {
		for (uint32_t l = 0; l < L; l++)
			choice[l] = (c / ft->pw[l]) % ft->k;
		if (add_path(r, src, dst, L, choice, out))
			return err_nomem(err, "out of memory");
	}
	return 0;
}

static int paths_dmodk(const struct routing *r, uint32_t src, uint32_t dst,
		       struct pathset *out, struct err *err)
{
	const struct ft *ft = r->priv;
	uint32_t L = climb(ft, topo_node_switch(r->t, src),
			   topo_node_switch(r->t, dst));
	uint32_t choice[16];

	for (uint32_t l = 0; l < L; l++)
		choice[l] = (dst / ft->pw[l]) % ft->k;
	if (add_path(r, src, dst, L, choice, out))
		return err_nomem(err, "out of memory");
	return 0;
}

static int count_ecmp(const struct routing *r, uint32_t src, uint32_t dst,
		      struct routing_count *c, struct err *err)
{
	const struct ft *ft = r->priv;
	uint32_t L;

	if (on_graph(r)) {
		struct pathset ps;
		int rc;

		pathset_init(&ps);
		rc = updown_paths(r, src, dst, &ps, err);
		for (uint32_t i = 0; !rc && i < ps.n; i++)
			routing_count_add(c, PATH_MIN,
					  pathset_hops(&ps, r->t, i), 1);
		pathset_free(&ps);
		return rc;
	}
	L = climb(ft, topo_node_switch(r->t, src), topo_node_switch(r->t, dst));
	(void)err;
	routing_count_add(c, PATH_MIN, 2 * L, ft->pw[L]);
	return 0;
}

static int count_dmodk(const struct routing *r, uint32_t src, uint32_t dst,
		       struct routing_count *c, struct err *err)
{
	const struct ft *ft = r->priv;
	uint32_t L = climb(ft, topo_node_switch(r->t, src),
			   topo_node_switch(r->t, dst));

	(void)err;
	routing_count_add(c, PATH_MIN, 2 * L, 1);
	return 0;
}

/* Distinct leaves of the job (ascending) into *leaves; returns count, or
 * UINT32_MAX on memory failure. */
static uint32_t job_leaves(const struct topo *t, const uint32_t *nodes,
			   uint32_t n, uint32_t per, uint32_t **leaves)
{
	uint8_t *seen = calloc(per, 1);
	uint32_t *v = malloc((n ? n : 1) * sizeof(*v)), cnt = 0;

	if (!seen || !v) {
		free(seen);
		free(v);
		return UINT32_MAX;
	}
	for (uint32_t i = 0; i < n; i++)
		seen[topo_node_switch(t, nodes[i])] = 1;
	for (uint32_t w = 0; w < per; w++)
		if (seen[w])
			v[cnt++] = w;
	free(seen);
	*leaves = v;
	return cnt;
}

/* Highest level any flow of the job climbs to: with D the highest digit in
 * which the job's leaves are not all equal, every leaf has a partner
 * differing in digit D and none differs higher, so every leaf climbs to
 * D+1 for some destination (0 for a single leaf). */
static uint32_t job_climb(const struct ft *ft, const uint32_t *leaves,
			  uint32_t nl)
{
	uint32_t L = 0;

	for (uint32_t i = 1; i < nl; i++) {
		uint32_t c = climb(ft, leaves[0], leaves[i]);

		if (c > L)
			L = c;
	}
	return L;
}

static void mark_pair(const struct topo *t, uint32_t l, uint8_t *used)
{
	used[l] = 1;
	used[topo_link(t, l)->reverse] = 1;
}

/* ecmp: a leaf x climbing to level L uses every up-link out of the
 * level-l switches (l < L) that agree with x on digits >= l, and, as a
 * destination, the reverse (down) links into the same switches. */
static int linkset_ecmp(const struct routing *r, const uint32_t *nodes,
			uint32_t n, uint8_t *used, struct err *err)
{
	const struct ft *ft = r->priv;
	const struct topo *t = r->t;
	uint32_t *leaves, nl, L;
	uint8_t *done;

	if (on_graph(r))
		return updown_linkset(r, nodes, n, used, err);
	nl = job_leaves(t, nodes, n, ft->per, &leaves);
	if (nl == UINT32_MAX)
		return err_nomem(err, "out of memory");
	L = job_climb(ft, leaves, nl);
	done = calloc((size_t)ft->per * ft->n, 1);
	if (!done) {
		free(leaves);
		return err_nomem(err, "out of memory");
	}
	for (uint32_t i = 0; i < nl; i++) {
		for (uint32_t l = 0; l < L; l++) {
			uint32_t base = leaves[i] / ft->pw[l] * ft->pw[l];

			if (done[l * ft->per + base])
				continue;
			done[l * ft->per + base] = 1;
			for (uint32_t j = 0; j < ft->pw[l]; j++) {
				uint32_t cnt;
				uint32_t first = topo_switch_out(
					t, l * ft->per + base + j, &cnt);

				for (uint32_t e = first; e < first + cnt; e++)
					if (topo_link(t, e)->kind ==
					    TOPO_LINK_UP)
						mark_pair(t, e, used);
			}
		}
	}
	free(done);
	free(leaves);
	return 0;
}

struct lowq {
	uint32_t low, q;
};

static int cmp_lowq(const void *x, const void *y)
{
	const struct lowq *a = x, *b = y;

	if (a->low != b->low)
		return a->low < b->low ? -1 : 1;
	if (a->q != b->q)
		return a->q < b->q ? -1 : 1;
	return 0;
}

/* dmodk.  Up-link at level l of the flow src -> dst leaves the switch
 * (digits >= l of leaf(src), digits < l of dst mod k^l) and takes digit
 * (dst / k^l) mod k; it is used iff leaf(src) and leaf(dst) differ in a
 * digit >= l.  So with P = leaf(src) / k^l, Q = leaf(dst) / k^l and
 * low = dst mod k^(l+1): link (P, low) is used iff some job node dst has
 * that low and a Q != P.  Down-link at level l of dst is fixed by dst
 * alone and used iff some source climbs above l (job_climb). */
static int linkset_dmodk(const struct routing *r, const uint32_t *nodes,
			 uint32_t n, uint8_t *used, struct err *err)
{
	const struct ft *ft = r->priv;
	const struct topo *t = r->t;
	uint32_t *leaves, nl, L, *pre = NULL;
	struct lowq *lq = NULL;
	int rc = -1;

	nl = job_leaves(t, nodes, n, ft->per, &leaves);
	if (nl == UINT32_MAX)
		return err_nomem(err, "out of memory");
	L = job_climb(ft, leaves, nl);
	lq = malloc((n ? n : 1) * sizeof(*lq));
	pre = malloc((nl ? nl : 1) * sizeof(*pre));
	if (!lq || !pre) {
		err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t l = 0; l < L; l++) {
		uint32_t np = 0;

		/* distinct prefixes P of the sources (leaves ascend) */
		for (uint32_t i = 0; i < nl; i++) {
			uint32_t p = leaves[i] / ft->pw[l];

			if (!np || pre[np - 1] != p)
				pre[np++] = p;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t wd = topo_node_switch(t, nodes[i]);

			lq[i].low = (uint32_t)(nodes[i] %
					       ((uint64_t)ft->pw[l] * ft->k));
			lq[i].q = wd / ft->pw[l];
		}
		qsort(lq, n, sizeof(*lq), cmp_lowq);
		for (uint32_t i = 0; i < n;) {
			uint32_t j = i, low = lq[i].low;
			bool multi;

			while (j < n && lq[j].low == low)
				j++;
			multi = lq[j - 1].q != lq[i].q;
			for (uint32_t a = 0; a < np; a++) {
				uint32_t from, to, cd = low / ft->pw[l];

				if (!multi && pre[a] == lq[i].q)
					continue;
				from = pre[a] * ft->pw[l] + low % ft->pw[l];
				to = set_digit(ft, from, l, cd);
				used[link(t, ft, l, from, l + 1, to)] = 1;
			}
			i = j;
		}
		/* down-links of level l (from level l+1) for every dst */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t wd = topo_node_switch(t, nodes[i]);
			uint64_t span = (uint64_t)ft->pw[l] * ft->k;
			uint32_t v =
				(uint32_t)(wd / span * span + nodes[i] % span);
			uint32_t v2 = set_digit(ft, v, l, digit(ft, wd, l));

			used[link(t, ft, l + 1, v, l, v2)] = 1;
		}
	}
	rc = 0;
out:
	free(lq);
	free(pre);
	free(leaves);
	return rc;
}

const struct routing_ops routing_ecmp = {
	.name = "ecmp",
	.multipath = true,
	.switch_paths = true,
	.applies = applies_ecmp,
	.init = init,
	.fini = fini,
	.paths = paths_ecmp,
	.count = count_ecmp,
	.linkset = linkset_ecmp,
};

const struct routing_ops routing_dmodk = {
	.name = "dmodk",
	.multipath = false,
	.switch_paths = false,
	.applies = applies,
	.init = init,
	.fini = fini,
	.paths = paths_dmodk,
	.count = count_dmodk,
	.linkset = linkset_dmodk,
};
