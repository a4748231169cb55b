/* topo_recog_dragonfly.c - recognising an explicit switch graph as a
 * dragonfly or a Cascade: the recogniser of topo_dragonfly.c's ops, which
 * answers for both (a Cascade's rows are the dragonfly test's cliques,
 * and a graph of those cliques is tried as a Cascade first).
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
 * O(S + L) plus, for the cliques, the sum of squared degrees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_recog_impl.h"

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
	uint32_t S = t->nswitches, D = recog_max_degree(t), G = 0;
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
		n = recog_neighbours(t, s, nb);
		for (uint32_t i = 0; i < n; i++)
			mark[nb[i]] = s;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t n2, common = 0;

			if (grp[nb[i]] != TOPO_NONE)
				continue;
			n2 = recog_neighbours(t, nb[i], nb2);
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
		par[recog_uf_find(par, a)] = recog_uf_find(par, b);
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
		if (recog_uf_find(par, g) != recog_uf_find(par, 0)) {
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

/* Dragonfly and Cascade test (a topo_recognise_fn), as recog_fattree;
 * LEV and IDLE stay 0. */
int recog_dragonfly(const struct topo *t, uint32_t *lev, uint32_t *grp,
		    uint8_t *idle, struct topo_recog *rc, char *why,
		    size_t whylen)
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
