/* topo_recog_fattree.c - recognising an explicit switch graph as a
 * fat-tree: the recogniser of topo_fattree.c's ops.
 *
 * A fat-tree (folded Clos): the leaves are the switches with compute nodes,
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
 * O(S + L) plus, for the roots, O(leaves x (S + levels x leaves / 64)). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_recog_impl.h"

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
		if (recog_nnodes(t, s))
			v[n++] = recog_nnodes(t, s);
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
	uint32_t n = recog_neighbours(t, x, nb);

	return n == recog_neighbours(t, y, nb2) &&
	       !memcmp(nb, nb2, n * sizeof(*nb));
}

/* Whether switch X, with fewer nodes than the median, has a twin without
 * nodes (a spine beside the spine that carries storage hosts). */
static int twin_of_empty(const struct topo *t, uint32_t x, uint32_t median,
			 uint32_t *nb, uint32_t *nb2)
{
	uint32_t cnt, first = topo_switch_out(t, x, &cnt);

	if (recog_nnodes(t, x) >= median || !cnt)
		return 0;
	/* a twin shares every neighbour: look among those of the first */
	{
		uint32_t v = t->links[first].to, vc;
		uint32_t vf = topo_switch_out(t, v, &vc);

		for (uint32_t i = 0; i < vc; i++) {
			uint32_t y = t->links[vf + i].to;

			if (y != x && !recog_nnodes(t, y) &&
			    twins(t, x, y, nb, nb2))
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
	uint32_t D = recog_max_degree(t), median = median_nodes(t);
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
			recog_nnodes(t, s) &&
					!twin_of_empty(t, s, median, nb, nb2) ?
				0 :
				TOPO_NONE;
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t x = t->links[l].from, y = t->links[l].to;

		if (x > y || f->leaf_id[x] == TOPO_NONE ||
		    f->leaf_id[y] == TOPO_NONE)
			continue;
		if (recog_nnodes(t, x) == recog_nnodes(t, y)) {
			snprintf(f->why, f->whylen,
				 "cable %s-%s joins two switches with %u "
				 "compute node%s each",
				 topo_switch_label(t, x, a, sizeof(a)),
				 topo_switch_label(t, y, b, sizeof(b)),
				 recog_nnodes(t, x),
				 recog_nnodes(t, x) == 1 ? "" : "s");
			goto out;
		}
		f->leaf_id[recog_nnodes(t, x) < recog_nnodes(t, y) ? x : y] =
			TOPO_NONE;
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
				 topo_switch_label(t, x, a, sizeof(a)),
				 topo_switch_label(t, y, b, sizeof(b)), lev[x],
				 lev[y], note);
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
				 topo_switch_label(t, s, a, sizeof(a)),
				 topo_switch_label(t, o, b, sizeof(b)));
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

/* Fat-tree test (a topo_recognise_fn).  Returns 0 (recognised: LEV, GRP,
 * IDLE, counts set), 1 (not a fat-tree, WHY set) or -1 (memory). */
int recog_fattree(const struct topo *t, uint32_t *lev, uint32_t *grp,
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
		rc->hosting += f.leaf_id[s] == TOPO_NONE &&
			       recog_nnodes(t, s) > 0;
		par[s] = s;
		mask[s] = lev[s] <= 1 && !idle[s];
	}
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t a = t->links[l].from, b = t->links[l].to;

		if (mask[a] && mask[b])
			par[recog_uf_find(par, a)] = recog_uf_find(par, b);
	}
	rc->groups = recog_number_classes(S, par, mask, grp, f.stamp);
	rc->levels = top + 1;
	rc->family = "fattree";
	r = 0;
out:
	ft_free(&f);
	free(par);
	free(mask);
	return r;
}
