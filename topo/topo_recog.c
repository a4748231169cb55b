/* topo_recog.c - family recognition of an explicit switch graph
 * (Topology=graph), so that what a generated family knows (levels, pods,
 * groups) also holds for a real fabric read from a topo.conf.
 *
 * The switch graph must be connected; otherwise nothing is recognised and
 * why names its parts (topo_conf refuses such a file at load).
 *
 * Fat-tree (folded Clos): the leaves are the switches with compute nodes,
 * but for those that host storage or login nodes on a spine: a switch
 * cabled to another switch with more nodes, or one with fewer nodes than
 * the median whose neighbours are those of a switch without nodes (the
 * spine beside it).  A switch's
 * height is its BFS distance from the leaves; every cable must join
 * adjacent heights.  The roots are the lowest switches above every leaf
 * through which up/down routing joins every two leaves (a leaf's
 * ancestors at or below the roots' height cover all leaves); the levels
 * are the heights up to the roots'.  A switch higher than the roots is on
 * no up/down route between two leaves: it is idle (a director chip with no
 * edge switch cabled to it), and takes its level from the roots (the
 * roots' level minus its distance from them), so it adds no level.  Pods
 * are the connected components of the non-idle switches of levels 0 and 1
 * (as the k-ary n-tree's w div k); switches above level 1 have no pod.
 * Unequal pods, missing switches and leaves with unused ports are
 * allowed.
 *
 * Dragonfly: groups are cliques (every switch linked to every other of its
 * group: all-to-all local links) found greedily, each switch taking first
 * the neighbours it shares most neighbours with; cables between groups are
 * the global links.  The graph is a dragonfly when it has at least two
 * groups, every group has the same number (at least 3) of switches, and
 * global links join every group to every other (directly or through
 * others).
 *
 * Cascade (Cray XC, Aries): the cliques are a group's rows (chassis); two
 * rows are in one group when the links between them are a perfect
 * matching (the column links: each router to the router of its slot).  The
 * graph is a Cascade when the rows so joined make at least two groups of R
 * rows x C columns each (R, C >= 2), every two rows of a group matched and
 * the matchings consistent (columns all-to-all), and global links join the
 * groups.
 *
 * All run in O(S + L) plus, for the fat-tree's roots, O(leaves x (S +
 * levels x leaves / 64)) and, for the cliques, the sum of squared
 * degrees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_impl.h"

/* Distinct switch neighbours of S, ascending, into NB (degree room). */
static uint32_t neighbours(const struct topo *t, uint32_t s, uint32_t *nb)
{
	uint32_t cnt, first = topo_switch_out(t, s, &cnt), n = 0;

	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t to = t->links[first + i].to;

		if (!n || nb[n - 1] != to)
			nb[n++] = to;
	}
	return n;
}

static uint32_t max_degree(const struct topo *t)
{
	uint32_t m = 0;

	for (uint32_t s = 0; s < t->nswitches; s++)
		if (t->out_off[s + 1] - t->out_off[s] > m)
			m = t->out_off[s + 1] - t->out_off[s];
	return m;
}

static uint32_t uf_find(uint32_t *p, uint32_t x)
{
	while (p[x] != x) {
		p[x] = p[p[x]];
		x = p[x];
	}
	return x;
}

static uint32_t nnodes(const struct topo *t, uint32_t s)
{
	return t->sw_node_off[s + 1] - t->sw_node_off[s];
}

static const char *label(const struct topo *t, uint32_t s, char *buf,
			 size_t len)
{
	return topo_switch_label(t, s, buf, len);
}

/* Number the components of P's classes by their lowest member, into GRP
 * (TOPO_NONE for switches with MASK[s] == 0).  Returns the count. */
static uint32_t number_classes(uint32_t S, uint32_t *p, const uint8_t *mask,
			       uint32_t *grp, uint32_t *root_id)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < S; s++)
		root_id[s] = TOPO_NONE;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t r;

		if (!mask[s]) {
			grp[s] = TOPO_NONE;
			continue;
		}
		r = uf_find(p, s);
		if (root_id[r] == TOPO_NONE)
			root_id[r] = n++;
		grp[s] = root_id[r];
	}
	return n;
}

/* ---- connectivity ---- */

/* The connected parts of the switch graph, into COMP (part of each
 * switch, numbered by their lowest switch).  Returns the count, or
 * UINT32_MAX when out of memory. */
static uint32_t parts(const struct topo *t, uint32_t *comp)
{
	uint32_t S = t->nswitches,
		 *par = malloc(((size_t)S + 1) * sizeof(*par));
	uint32_t *root = malloc(((size_t)S + 1) * sizeof(*root));
	uint8_t *all = malloc((size_t)S + 1);
	uint32_t n;

	if (!par || !root || !all) {
		free(par);
		free(root);
		free(all);
		return UINT32_MAX;
	}
	for (uint32_t s = 0; s < S; s++) {
		par[s] = s;
		all[s] = 1;
	}
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++)
		par[uf_find(par, t->links[l].from)] =
			uf_find(par, t->links[l].to);
	n = number_classes(S, par, all, comp, root);
	free(par);
	free(root);
	free(all);
	return n;
}

/* WHY: the parts of a disconnected graph, "2 parts: a, b (2 switches,
 * 4 nodes); c (1 switch, 2 nodes)", the first three parts and three
 * switches of each named. */
static void describe_parts(const struct topo *t, const uint32_t *comp,
			   uint32_t np, char *why, size_t len)
{
	size_t off = 0;

	off += (size_t)snprintf(why, len,
				"the switch graph is not connected (%u "
				"parts: ",
				np);
	for (uint32_t p = 0; p < np && p < 3 && off < len; p++) {
		uint32_t ns = 0, nn = 0, shown = 0;
		char b[80];

		for (uint32_t s = 0; s < t->nswitches; s++) {
			if (comp[s] != p)
				continue;
			ns++;
			nn += nnodes(t, s);
			if (shown < 3 && off < len)
				off += (size_t)snprintf(
					why + off, len - off, "%s%s",
					shown++ ? ", " : "",
					label(t, s, b, sizeof(b)));
		}
		if (off < len)
			off += (size_t)snprintf(why + off, len - off,
						"%s (%u switch%s, %u node%s)%s",
						ns > shown ? ", ..." : "", ns,
						ns == 1 ? "" : "es", nn,
						nn == 1 ? "" : "s",
						p + 1 < np && p < 2 ? "; " :
						np > 3		    ? "; ..." :
								      "");
	}
	if (off < len)
		snprintf(why + off, len - off, ")");
}

/* ---- fat-tree ---- */

/* Scratch of the fat-tree test. */
struct ft {
	const struct topo *t;
	uint32_t S, nleaves, words, maxh;
	uint32_t *h;	   /* [S] height: BFS distance from the leaves */
	uint32_t *leaf_id; /* [S] index of a leaf, TOPO_NONE otherwise */
	uint32_t *queue;   /* [S] */
	uint32_t *stamp;   /* [S] */
	uint64_t *desc;	   /* [S x words] leaves below each switch */
	uint64_t *acc;	   /* [words] */
	char *why;
	size_t whylen;
};

static void ft_free(struct ft *f)
{
	free(f->h);
	free(f->leaf_id);
	free(f->queue);
	free(f->stamp);
	free(f->desc);
	free(f->acc);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The median node count of the switches with nodes (0 when memory runs
 * out: then no switch is below it). */
static uint32_t median_nodes(const struct topo *t)
{
	uint32_t *v = malloc(((size_t)t->nswitches + 1) * sizeof(*v)), n = 0;
	uint32_t m;

	if (!v)
		return 0;
	for (uint32_t s = 0; s < t->nswitches; s++)
		if (nnodes(t, s))
			v[n++] = nnodes(t, s);
	if (n)
		qsort(v, n, sizeof(*v), cmp_u32);
	m = n ? v[n / 2] : 0;
	free(v);
	return m;
}

/* Whether switches X and Y have the same distinct switch neighbours
 * (NB, NB2: degree room). */
static bool twins(const struct topo *t, uint32_t x, uint32_t y, uint32_t *nb,
		  uint32_t *nb2)
{
	uint32_t n = neighbours(t, x, nb);

	return n == neighbours(t, y, nb2) && !memcmp(nb, nb2, n * sizeof(*nb));
}

/* Whether switch X, with fewer nodes than the median, has a twin without
 * nodes (a spine beside the spine that carries storage hosts). */
static int twin_of_empty(const struct topo *t, uint32_t x, uint32_t median,
			 uint32_t *nb, uint32_t *nb2)
{
	uint32_t cnt, first = topo_switch_out(t, x, &cnt);

	if (nnodes(t, x) >= median || !cnt)
		return 0;
	/* a twin shares every neighbour: look among those of the first */
	{
		uint32_t v = t->links[first].to, vc;
		uint32_t vf = topo_switch_out(t, v, &vc);

		for (uint32_t i = 0; i < vc; i++) {
			uint32_t y = t->links[vf + i].to;

			if (y != x && !nnodes(t, y) && twins(t, x, y, nb, nb2))
				return 1;
		}
	}
	return 0;
}

/* The leaves: switches with nodes, but for those that host nodes above
 * the leaves (storage, login): a switch cabled to a switch with more
 * nodes, or with fewer nodes than the median and the same neighbours as
 * a switch without nodes.  Returns 0, 1 (not a fat-tree, why set) or -1. */
static int find_leaves(struct ft *f)
{
	const struct topo *t = f->t;
	uint32_t D = max_degree(t), median = median_nodes(t);
	uint32_t *nb = malloc(((size_t)D + 1) * sizeof(*nb));
	uint32_t *nb2 = malloc(((size_t)D + 1) * sizeof(*nb2));
	char a[80], b[80];
	int r = 1;

	if (!nb || !nb2) {
		r = -1;
		goto out;
	}
	for (uint32_t s = 0; s < f->S; s++)
		f->leaf_id[s] =
			nnodes(t, s) && !twin_of_empty(t, s, median, nb, nb2) ?
				0 :
				TOPO_NONE;
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t x = t->links[l].from, y = t->links[l].to;

		if (x > y || f->leaf_id[x] == TOPO_NONE ||
		    f->leaf_id[y] == TOPO_NONE)
			continue;
		if (nnodes(t, x) == nnodes(t, y)) {
			snprintf(f->why, f->whylen,
				 "cable %s-%s joins two switches with %u "
				 "compute node%s each",
				 label(t, x, a, sizeof(a)),
				 label(t, y, b, sizeof(b)), nnodes(t, x),
				 nnodes(t, x) == 1 ? "" : "s");
			goto out;
		}
		f->leaf_id[nnodes(t, x) < nnodes(t, y) ? x : y] = TOPO_NONE;
	}
	for (uint32_t s = 0; s < f->S; s++)
		if (f->leaf_id[s] != TOPO_NONE)
			f->leaf_id[s] = f->nleaves++;
	if (f->nleaves == f->S) {
		snprintf(f->why, f->whylen, "every switch has compute nodes");
		goto out;
	}
	r = 0;
out:
	free(nb);
	free(nb2);
	return r;
}

/* BFS from QUEUE[0..TL) (their levels in LEV set): every switch without
 * a level (TOPO_NONE) gets its BFS parent's plus STEP (no lower than 0).
 * The queue ends with every switch reached, in BFS order. */
static void spread(const struct topo *t, uint32_t *lev, uint32_t *queue,
		   uint32_t tl, int step)
{
	for (uint32_t hd = 0; hd < tl;) {
		uint32_t u = queue[hd++], cnt;
		uint32_t first = topo_switch_out(t, u, &cnt);

		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t v = t->links[first + i].to;

			if (lev[v] == TOPO_NONE) {
				lev[v] = step < 0 && !lev[u] ?
						 0 :
						 lev[u] + (uint32_t)step;
				queue[tl++] = v;
			}
		}
	}
}

/* Whether every cable joins adjacent levels of LEV; WHY (with NOTE) names
 * the first that does not.  0 or 1. */
static int adjacent(struct ft *f, const uint32_t *lev, const char *note)
{
	const struct topo *t = f->t;
	char a[80], b[80];

	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t x = t->links[l].from, y = t->links[l].to;

		if (lev[x] + 1 != lev[y] && lev[y] + 1 != lev[x]) {
			snprintf(f->why, f->whylen,
				 "cable %s-%s joins levels %u and %u (not "
				 "adjacent)%s",
				 label(t, x, a, sizeof(a)),
				 label(t, y, b, sizeof(b)), lev[x], lev[y],
				 note);
			return 1;
		}
	}
	return 0;
}

/* Heights from the leaves; every cable joins adjacent heights.  0, 1. */
static int heights(struct ft *f)
{
	uint32_t tl = 0;

	for (uint32_t s = 0; s < f->S; s++) {
		f->h[s] = f->leaf_id[s] != TOPO_NONE ? 0 : TOPO_NONE;
		if (!f->h[s])
			f->queue[tl++] = s;
	}
	spread(f->t, f->h, f->queue, tl, 1);
	for (uint32_t s = 0; s < f->S; s++)
		if (f->h[s] != TOPO_NONE && f->h[s] > f->maxh)
			f->maxh = f->h[s];
	return adjacent(f, f->h, "");
}

/* The leaves below every switch (switches in the BFS order of heights,
 * which f->queue still holds). */
static void fill_desc(struct ft *f)
{
	const struct topo *t = f->t;

	for (uint32_t q = 0; q < f->S; q++) {
		uint32_t s = f->queue[q], cnt,
			 first = topo_switch_out(t, s, &cnt);
		uint64_t *d = f->desc + (size_t)s * f->words;

		if (f->leaf_id[s] != TOPO_NONE)
			d[f->leaf_id[s] / 64] |= 1ull << (f->leaf_id[s] % 64);
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t v = t->links[first + i].to;

			if (f->h[v] + 1 == f->h[s])
				for (uint32_t w = 0; w < f->words; w++)
					d[w] |= f->desc[(size_t)v * f->words +
							w];
		}
	}
}

/* The height by which leaf S's ancestors cover every leaf, into *TOP.
 * Returns 0, or 1 with why naming a leaf it shares no ancestor with. */
static int leaf_top(struct ft *f, uint32_t s, uint32_t *top)
{
	const struct topo *t = f->t;
	uint32_t hd = 0, tl = 0, need = f->nleaves;
	char a[80], b[80];

	memset(f->acc, 0, (size_t)f->words * sizeof(*f->acc));
	f->queue[tl++] = s;
	f->stamp[s] = s;
	/* BFS up, one height at a time */
	for (uint32_t lev = 0; hd < tl; lev++) {
		uint32_t end = tl, cover = 0;

		for (uint32_t i = hd; i < end; i++) {
			uint32_t u = f->queue[i], cnt;
			uint32_t first = topo_switch_out(t, u, &cnt);

			for (uint32_t w = 0; w < f->words; w++)
				f->acc[w] |= f->desc[(size_t)u * f->words + w];
			for (uint32_t k = 0; k < cnt; k++) {
				uint32_t v = t->links[first + k].to;

				if (f->h[v] == lev + 1 && f->stamp[v] != s) {
					f->stamp[v] = s;
					f->queue[tl++] = v;
				}
			}
		}
		for (uint32_t w = 0; w < f->words; w++)
			cover += (uint32_t)__builtin_popcountll(f->acc[w]);
		if (cover == need) {
			*top = lev;
			return 0;
		}
		hd = end;
	}
	for (uint32_t o = 0; o < f->S; o++) {
		uint32_t l = f->leaf_id[o];

		if (l != TOPO_NONE && !(f->acc[l / 64] >> (l % 64) & 1)) {
			snprintf(f->why, f->whylen,
				 "leaves %s and %s have no common ancestor",
				 label(t, s, a, sizeof(a)),
				 label(t, o, b, sizeof(b)));
			break;
		}
	}
	return 1;
}

/* Levels of the idle switches (above the roots at height TOP): TOP minus
 * their distance from the roots.  0, or 1 when a cable then joins
 * levels that are not adjacent. */
static int idle_levels(struct ft *f, uint32_t top, uint32_t *lev)
{
	uint32_t tl = 0;

	for (uint32_t s = 0; s < f->S; s++) {
		lev[s] = f->h[s] <= top ? f->h[s] : TOPO_NONE;
		if (f->h[s] == top)
			f->queue[tl++] = s;
	}
	spread(f->t, lev, f->queue, tl, -1);
	return adjacent(f, lev,
			" once the switches on no up/down route take their "
			"level from the roots");
}

/* Fat-tree test.  Returns 0 (recognised: LEV, GRP, IDLE, counts set), 1
 * (not a fat-tree, WHY set) or -1 (memory). */
static int try_fattree(struct topo *t, uint32_t *lev, uint32_t *grp,
		       uint8_t *idle, struct topo_recog *rc, char *why,
		       size_t whylen)
{
	uint32_t S = t->nswitches, top = 0;
	struct ft f = { .t = t, .S = S, .why = why, .whylen = whylen };
	uint32_t *par = NULL;
	uint8_t *mask = NULL;
	int r = -1;

	f.h = malloc(((size_t)S + 1) * sizeof(*f.h));
	f.leaf_id = malloc(((size_t)S + 1) * sizeof(*f.leaf_id));
	f.queue = malloc(((size_t)S + 1) * sizeof(*f.queue));
	f.stamp = malloc(((size_t)S + 1) * sizeof(*f.stamp));
	par = malloc(((size_t)S + 1) * sizeof(*par));
	mask = calloc((size_t)S + 1, 1);
	if (!f.h || !f.leaf_id || !f.queue || !f.stamp || !par || !mask)
		goto out;
	r = find_leaves(&f);
	if (!r)
		r = heights(&f);
	if (r)
		goto out;
	r = -1;
	f.words = (f.nleaves + 63) / 64;
	f.desc = calloc((size_t)S * f.words + 1, sizeof(*f.desc));
	f.acc = calloc((size_t)f.words + 1, sizeof(*f.acc));
	if (!f.desc || !f.acc)
		goto out;
	fill_desc(&f);
	memset(f.stamp, 0xff, (size_t)S * sizeof(*f.stamp));
	for (uint32_t s = 0; s < S; s++) {
		uint32_t ls;

		if (f.leaf_id[s] == TOPO_NONE)
			continue;
		r = leaf_top(&f, s, &ls);
		if (r)
			goto out;
		top = ls > top ? ls : top;
	}
	r = 1;
	if (top < 1) { /* a single leaf */
		snprintf(why, whylen, "one leaf switch, no switch above it");
		goto out;
	}
	r = idle_levels(&f, top, lev);
	if (r)
		goto out;
	rc->idle = rc->hosting = 0;
	for (uint32_t s = 0; s < S; s++) {
		idle[s] = f.h[s] > top;
		rc->idle += idle[s];
		rc->hosting += f.leaf_id[s] == TOPO_NONE && nnodes(t, s) > 0;
		par[s] = s;
		mask[s] = lev[s] <= 1 && !idle[s];
	}
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t a = t->links[l].from, b = t->links[l].to;

		if (mask[a] && mask[b])
			par[uf_find(par, a)] = uf_find(par, b);
	}
	rc->groups = number_classes(S, par, mask, grp, f.stamp);
	rc->levels = top + 1;
	rc->family = "fattree";
	r = 0;
out:
	ft_free(&f);
	free(par);
	free(mask);
	return r;
}

/* ---- dragonfly and Cascade ---- */

struct cand {
	uint32_t sw, common;
};

static int cmp_cand(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->common != b->common)
		return a->common > b->common ? -1 : 1;
	return a->sw < b->sw ? -1 : a->sw > b->sw;
}

/* Greedy all-to-all cliques into GRP, their sizes into SIZE.  Returns
 * their count, or UINT32_MAX when out of memory. */
static uint32_t cliques(const struct topo *t, uint32_t *grp, uint32_t *size)
{
	uint32_t S = t->nswitches, D = max_degree(t), G = 0;
	uint32_t *nb = malloc(((size_t)D + 1) * sizeof(*nb));
	uint32_t *nb2 = malloc(((size_t)D + 1) * sizeof(*nb2));
	uint32_t *mark = malloc(((size_t)S + 1) * sizeof(*mark));
	uint32_t *mem = malloc(((size_t)D + 2) * sizeof(*mem));
	struct cand *c = malloc(((size_t)D + 1) * sizeof(*c));

	if (!nb || !nb2 || !mark || !mem || !c) {
		G = UINT32_MAX;
		goto out;
	}
	for (uint32_t s = 0; s < S; s++) {
		grp[s] = TOPO_NONE;
		mark[s] = TOPO_NONE;
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t n, nc = 0, nm = 0;

		if (grp[s] != TOPO_NONE)
			continue;
		n = neighbours(t, s, nb);
		for (uint32_t i = 0; i < n; i++)
			mark[nb[i]] = s;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t n2, common = 0;

			if (grp[nb[i]] != TOPO_NONE)
				continue;
			n2 = neighbours(t, nb[i], nb2);
			for (uint32_t j = 0; j < n2; j++)
				common += mark[nb2[j]] == s;
			c[nc++] = (struct cand){ nb[i], common };
		}
		if (nc) /* qsort(NULL, 0, ...) is undefined */
			qsort(c, nc, sizeof(*c), cmp_cand);
		grp[s] = G;
		mem[nm++] = s;
		for (uint32_t i = 0; i < nc; i++) {
			uint32_t cnt;
			bool all = true;

			for (uint32_t j = 1; j < nm && all; j++)
				all = topo_link_between(t, c[i].sw, mem[j],
							&cnt) != TOPO_NONE;
			if (all) {
				grp[c[i].sw] = G;
				mem[nm++] = c[i].sw;
			}
		}
		size[G++] = nm;
	}
out:
	free(nb);
	free(nb2);
	free(mark);
	free(mem);
	free(c);
	return G;
}

/* Count the links between the groups GRP[] of T (G of them), the fewest
 * and most between two, and whether they join every group; WHY when not.
 * Returns 0, 1 or -1. */
static int global_links(const struct topo *t, const uint32_t *grp, uint32_t G,
			struct topo_recog *rc, char *why, size_t whylen)
{
	uint32_t *par = malloc(((size_t)G + 1) * sizeof(*par));
	uint32_t *pair = calloc((size_t)G * G + 1, sizeof(*pair));
	int r = 0;

	if (!par || !pair) {
		free(par);
		free(pair);
		return -1;
	}
	rc->global_links = 0;
	for (uint32_t g = 0; g < G; g++)
		par[g] = g;
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t a = grp[t->links[l].from], b = grp[t->links[l].to];

		if (t->links[l].from > t->links[l].to || a == b)
			continue;
		rc->global_links++;
		pair[(size_t)(a < b ? a : b) * G + (a < b ? b : a)]++;
		par[uf_find(par, a)] = uf_find(par, b);
	}
	rc->pair_min = UINT32_MAX;
	rc->pair_max = 0;
	for (uint32_t a = 0; a < G; a++)
		for (uint32_t b = a + 1; b < G; b++) {
			uint32_t n = pair[(size_t)a * G + b];

			rc->pair_min = n < rc->pair_min ? n : rc->pair_min;
			rc->pair_max = n > rc->pair_max ? n : rc->pair_max;
		}
	for (uint32_t g = 1; g < G && !r; g++)
		if (uf_find(par, g) != uf_find(par, 0)) {
			snprintf(why, whylen,
				 "no global links join group 0 and group %u",
				 g);
			r = 1;
		}
	free(par);
	free(pair);
	return r;
}

/* Whether the links from the switches of row A to those of row B (rows
 * of K switches) are a perfect matching: each switch of A has links to
 * exactly one switch of B, a different one each.  ROW[s] is the row of
 * switch s; the match of A's i-th switch goes to M[i] (in B's order). */
static bool matched(const struct topo *t, const uint32_t *mem_a,
		    const uint32_t *row, uint32_t b, uint32_t k,
		    const uint32_t *idx, uint32_t *m, uint8_t *seen)
{
	memset(seen, 0, k);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t cnt, first = topo_switch_out(t, mem_a[i], &cnt);
		uint32_t to = TOPO_NONE;

		for (uint32_t q = 0; q < cnt; q++) {
			uint32_t v = t->links[first + q].to;

			if (row[v] != b)
				continue;
			if (to != TOPO_NONE && to != v)
				return false;
			to = v;
		}
		if (to == TOPO_NONE || seen[idx[to]])
			return false;
		seen[idx[to]] = 1;
		m[i] = idx[to];
	}
	return true;
}

/* Cascade test on the cliques ROW[] (NR rows of K switches): rows joined
 * by perfect matchings make the groups, into GRP.  Returns 0 (a Cascade),
 * 1 (not) or -1. */
static int try_cascade(const struct topo *t, const uint32_t *row, uint32_t nr,
		       uint32_t k, uint32_t *grp, struct topo_recog *rc)
{
	uint32_t S = t->nswitches, G = 0, R = 0;
	uint32_t *mem = malloc(((size_t)S + 1) * sizeof(*mem));
	uint32_t *off = calloc((size_t)nr + 2, sizeof(*off));
	uint32_t *idx = malloc(((size_t)S + 1) * sizeof(*idx));
	uint32_t *col = malloc(((size_t)S + 1) * sizeof(*col));
	uint32_t *rg = malloc(((size_t)nr + 1) * sizeof(*rg));
	uint32_t *m = malloc(((size_t)k + 1) * sizeof(*m));
	uint32_t *first = malloc(((size_t)nr + 1) * sizeof(*first));
	uint8_t *seen = malloc((size_t)k + 1);
	int r = -1;

	if (!mem || !off || !idx || !col || !rg || !m || !first || !seen)
		goto out;
	for (uint32_t s = 0; s < S; s++)
		off[row[s] + 2]++;
	for (uint32_t i = 0; i < nr; i++)
		off[i + 2] += off[i + 1];
	for (uint32_t s = 0; s < S; s++) {
		idx[s] = off[row[s] + 1] - off[row[s]];
		mem[off[row[s] + 1]++] = s;
	}
	r = 1;
	for (uint32_t i = 0; i < nr; i++)
		rg[i] = TOPO_NONE;
	/* each new group: its first row gives the columns; a later row
	 * joins when the links to every row already in are perfect
	 * matchings, slot to slot (the columns all-to-all) */
	for (uint32_t a = 0; a < nr; a++) {
		uint32_t n = 0;

		if (rg[a] != TOPO_NONE)
			continue;
		rg[a] = G;
		first[n++] = a;
		for (uint32_t i = 0; i < k; i++)
			col[mem[off[a] + i]] = i;
		for (uint32_t b = a + 1; b < nr; b++) {
			bool all = rg[b] == TOPO_NONE;

			for (uint32_t x = 0; x < n && all; x++) {
				const uint32_t *mx = mem + off[first[x]];

				all = matched(t, mx, row, b, k, idx, m, seen);
				for (uint32_t i = 0; i < k && all; i++)
					all = x ? col[mem[off[b] + m[i]]] ==
							      col[mx[i]] :
						  true;
				for (uint32_t i = 0; i < k && all && !x; i++)
					col[mem[off[b] + m[i]]] = col[mx[i]];
			}
			if (!all)
				continue;
			rg[b] = G;
			first[n++] = b;
		}
		if (G == 0)
			R = n;
		if (n != R || n < 2)
			goto out;
		G++;
	}
	if (G < 2)
		goto out;
	for (uint32_t s = 0; s < S; s++)
		grp[s] = rg[row[s]];
	rc->groups = G;
	rc->rows = R;
	rc->cols = k;
	rc->group_size = R * k;
	r = 0;
out:
	free(mem);
	free(off);
	free(idx);
	free(col);
	free(rg);
	free(m);
	free(first);
	free(seen);
	return r;
}

/* Dragonfly and Cascade test, as try_fattree. */
static int try_dragonfly(struct topo *t, uint32_t *grp, struct topo_recog *rc,
			 char *why, size_t whylen)
{
	uint32_t S = t->nswitches, G;
	uint32_t *size = calloc((size_t)S + 1, sizeof(*size));
	uint32_t *row = malloc(((size_t)S + 1) * sizeof(*row));
	int r = -1;

	if (!size || !row)
		goto out;
	G = cliques(t, row, size);
	if (G == UINT32_MAX)
		goto out;
	r = 1;
	if (G < 2) {
		snprintf(why, whylen, "one clique of all switches");
		goto out;
	}
	for (uint32_t g = 1; g < G; g++)
		if (size[g] != size[0]) {
			snprintf(why, whylen,
				 "all-to-all groups of unequal sizes (%u and "
				 "%u switches)",
				 size[0], size[g]);
			goto out;
		}
	if (size[0] < 2) {
		snprintf(why, whylen,
			 "no all-to-all groups of 3 switches or more");
		goto out;
	}
	r = try_cascade(t, row, G, size[0], grp, rc);
	if (r < 0)
		goto out;
	if (r == 0) {
		r = global_links(t, grp, rc->groups, rc, why, whylen);
		if (!r)
			rc->family = "cascade";
		goto out;
	}
	if (size[0] < 3) {
		snprintf(why, whylen,
			 "no all-to-all groups of 3 switches or more");
		goto out;
	}
	memcpy(grp, row, (size_t)S * sizeof(*grp));
	rc->groups = G;
	rc->group_size = size[0];
	r = global_links(t, grp, G, rc, why, whylen);
	if (!r)
		rc->family = "dragonfly";
out:
	rc->levels = 1;
	free(size);
	free(row);
	return r;
}

int topo_recognise(struct topo *t)
{
	uint32_t S = t->nswitches;
	uint32_t *lev = malloc(((size_t)S + 1) * sizeof(*lev));
	uint32_t *grp = malloc(((size_t)S + 1) * sizeof(*grp));
	uint8_t *idle = calloc((size_t)S + 1, 1);
	struct topo_recog rc = { 0 };
	char why1[140] = "", why2[140] = "";
	int r;

	if (!lev || !grp || !idle)
		goto nomem;
	rc.parts = parts(t, grp);
	if (rc.parts == UINT32_MAX)
		goto nomem;
	t->recog.parts = rc.parts;
	if (rc.parts > 1) {
		describe_parts(t, grp, rc.parts, t->recog.why,
			       sizeof(t->recog.why));
		goto none;
	}
	r = try_fattree(t, lev, grp, idle, &rc, why1, sizeof(why1));
	if (r < 0)
		goto nomem;
	if (r > 0) {
		memset(lev, 0, ((size_t)S + 1) * sizeof(*lev));
		memset(idle, 0, (size_t)S + 1);
		r = try_dragonfly(t, grp, &rc, why2, sizeof(why2));
		if (r < 0)
			goto nomem;
	}
	if (r > 0) {
		snprintf(t->recog.why, sizeof(t->recog.why),
			 "not a fat-tree: %s; not a dragonfly: %s", why1, why2);
		goto none;
	}
	t->recog = rc;
	free(t->sw_level);
	free(t->sw_group);
	free(t->sw_idle);
	t->sw_level = lev;
	t->sw_group = grp;
	t->sw_idle = rc.idle ? idle : NULL;
	if (!rc.idle)
		free(idle);
	t->ngroups = rc.groups;
	return 0;
none:
	free(lev);
	free(grp);
	free(idle);
	return 0;
nomem:
	free(lev);
	free(grp);
	free(idle);
	return -1;
}

const char *topo_graph_family(const struct topo *t)
{
	return t->kind == TOPO_GRAPH ? t->recog.family : NULL;
}

const char *topo_graph_why(const struct topo *t)
{
	if (t->kind != TOPO_GRAPH)
		return "not an explicit graph";
	return t->recog.family ? NULL : t->recog.why;
}

uint32_t topo_graph_levels(const struct topo *t)
{
	return topo_graph_family(t) ? t->recog.levels : 0;
}

uint32_t topo_graph_global_links(const struct topo *t)
{
	return topo_graph_family(t) ? t->recog.global_links : 0;
}

int topo_graph_info(const struct topo *t, struct topo_graph_info *gi)
{
	memset(gi, 0, sizeof(*gi));
	if (t->kind != TOPO_GRAPH)
		return -1;
	gi->family = t->recog.family;
	gi->why = topo_graph_why(t);
	gi->parts = t->recog.parts;
	if (!gi->family)
		return 0;
	gi->levels = t->recog.levels;
	gi->groups = t->recog.groups;
	gi->group_size = t->recog.group_size;
	gi->rows = t->recog.rows;
	gi->cols = t->recog.cols;
	gi->global_links = t->recog.global_links;
	gi->pair_min = t->recog.pair_min;
	gi->pair_max = t->recog.pair_max;
	gi->idle = t->recog.idle;
	gi->hosting = t->recog.hosting;
	return 0;
}

bool topo_switch_idle(const struct topo *t, uint32_t sw)
{
	return t->sw_idle && sw < t->nswitches && t->sw_idle[sw];
}

enum topo_kind topo_behaves_as(const struct topo *t)
{
	const char *f = topo_graph_family(t);

	if (t->kind != TOPO_GRAPH || !f)
		return t->kind;
	if (!strcmp(f, "fattree"))
		return TOPO_FATTREE;
	return !strcmp(f, "cascade") ? TOPO_CASCADE : TOPO_DRAGONFLY;
}

const char *topo_behaves_as_family(const struct topo *t)
{
	const char *f = topo_graph_family(t);

	if (t->kind != TOPO_GRAPH || !f)
		return t->family;
	if (!strcmp(f, "fattree") || !strcmp(f, "cascade"))
		return f;
	return "dragonfly";
}
