/* topo_recog.c - family recognition of an explicit switch graph
 * (Topology=graph), so that what a generated family knows (levels, pods,
 * groups) also holds for a real fabric read from a topo.conf.
 *
 * Fat-tree (folded Clos): the leaves are the switches with compute nodes;
 * a switch's level is its BFS distance from the nearest leaf.  The graph
 * is a fat-tree when it is connected, has at least two levels, every cable
 * joins adjacent levels (layered: no cable within a level, none skipping
 * one) and every two leaves have a common ancestor (up/down routing
 * connects them).  Pods are the connected components of the subgraph of
 * levels 0 and 1 (as the k-ary n-tree's w div k); switches above level 1
 * have no pod.  Unequal pods, missing switches and leaves with unused
 * ports are allowed.
 *
 * Dragonfly: groups are cliques (every switch linked to every other of its
 * group: all-to-all local links) found greedily, each switch taking first
 * the neighbours it shares most neighbours with; cables between groups are
 * the global links.  The graph is a dragonfly when it has at
 * least two groups, every group has the same number (at least 3) of
 * switches, and global links join every group to every other (directly
 * or through others).
 *
 * Both run in O(S + L) plus, for the fat-tree's common-ancestor check,
 * O(leaves x (switches + tops x leaves / 64)) and, for the cliques, the
 * sum of squared degrees. */
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

/* Every two leaves have a common ancestor: each leaf reaches, going up,
 * top switches (no up-link) whose descendant leaves cover all leaves. */
static int common_ancestors(const struct topo *t, const uint32_t *lev,
			    uint32_t *queue, uint32_t *stamp, char *why,
			    size_t whylen)
{
	uint32_t S = t->nswitches, nleaves = 0, ntops = 0, words;
	uint32_t *leaf_id = malloc((size_t)S * sizeof(*leaf_id));
	uint32_t *top_id = malloc((size_t)S * sizeof(*top_id));
	uint64_t *desc = NULL, *acc = NULL;
	int rc = -1;

	if (!leaf_id || !top_id)
		goto out;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t cnt, first = topo_switch_out(t, s, &cnt);
		bool top = true;

		leaf_id[s] = lev[s] == 0 ? nleaves++ : TOPO_NONE;
		for (uint32_t i = 0; i < cnt && top; i++)
			top = lev[t->links[first + i].to] < lev[s];
		top_id[s] = top ? ntops++ : TOPO_NONE;
	}
	words = (nleaves + 63) / 64;
	desc = calloc((size_t)ntops * words + 1, sizeof(*desc));
	acc = calloc((size_t)words + 1, sizeof(*acc));
	if (!desc || !acc)
		goto out;
	memset(stamp, 0xff, (size_t)S * sizeof(*stamp));
	/* leaves below each top: BFS down */
	for (uint32_t s = 0; s < S; s++) {
		uint64_t *d = desc + (size_t)top_id[s] * words;
		uint32_t h = 0, tl = 0;

		if (top_id[s] == TOPO_NONE)
			continue;
		queue[tl++] = s;
		stamp[s] = s;
		while (h < tl) {
			uint32_t u = queue[h++], cnt;
			uint32_t first = topo_switch_out(t, u, &cnt);

			if (leaf_id[u] != TOPO_NONE)
				d[leaf_id[u] / 64] |= 1ull << (leaf_id[u] % 64);
			for (uint32_t i = 0; i < cnt; i++) {
				uint32_t v = t->links[first + i].to;

				if (lev[v] < lev[u] && stamp[v] != s) {
					stamp[v] = s;
					queue[tl++] = v;
				}
			}
		}
	}
	memset(stamp, 0xff, (size_t)S * sizeof(*stamp));
	/* each leaf: BFS up, union of its tops' leaves */
	for (uint32_t s = 0; s < S; s++) {
		uint32_t h = 0, tl = 0;

		if (leaf_id[s] == TOPO_NONE)
			continue;
		memset(acc, 0, (size_t)words * sizeof(*acc));
		queue[tl++] = s;
		stamp[s] = s;
		while (h < tl) {
			uint32_t u = queue[h++], cnt;
			uint32_t first = topo_switch_out(t, u, &cnt);

			if (top_id[u] != TOPO_NONE)
				for (uint32_t w = 0; w < words; w++)
					acc[w] |=
						desc[(size_t)top_id[u] * words +
						     w];
			for (uint32_t i = 0; i < cnt; i++) {
				uint32_t v = t->links[first + i].to;

				if (lev[v] > lev[u] && stamp[v] != s) {
					stamp[v] = s;
					queue[tl++] = v;
				}
			}
		}
		for (uint32_t l = 0; l < nleaves; l++)
			if (!(acc[l / 64] >> (l % 64) & 1)) {
				uint32_t o = 0;

				while (leaf_id[o] != l)
					o++;
				snprintf(why, whylen,
					 "leaves %u and %u have no common "
					 "ancestor",
					 s, o);
				rc = 1;
				goto out;
			}
	}
	rc = 0;
out:
	free(leaf_id);
	free(top_id);
	free(desc);
	free(acc);
	return rc;
}

/* Fat-tree test.  Returns 0 (recognised: LEV, GRP, counts set), 1 (not a
 * fat-tree, WHY set) or -1 (memory). */
static int try_fattree(struct topo *t, uint32_t *lev, uint32_t *grp,
		       struct topo_recog *rc, char *why, size_t whylen)
{
	uint32_t S = t->nswitches, h = 0, tl = 0, maxl = 0;
	uint32_t *queue = malloc((size_t)S * sizeof(*queue));
	uint32_t *par = malloc((size_t)S * sizeof(*par));
	uint32_t *tmp = malloc((size_t)S * sizeof(*tmp));
	uint8_t *mask = calloc(S, 1);
	int r = -1;

	if (!queue || !par || !tmp || !mask)
		goto out;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t cnt;

		topo_switch_nodes(t, s, &cnt);
		lev[s] = cnt ? 0 : TOPO_NONE;
		if (cnt)
			queue[tl++] = s;
	}
	while (h < tl) {
		uint32_t u = queue[h++], cnt;
		uint32_t first = topo_switch_out(t, u, &cnt);

		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t v = t->links[first + i].to;

			if (lev[v] == TOPO_NONE) {
				lev[v] = lev[u] + 1;
				maxl = lev[v] > maxl ? lev[v] : maxl;
				queue[tl++] = v;
			}
		}
	}
	r = 1;
	if (tl < S) {
		snprintf(why, whylen, "the switch graph is disconnected");
		goto out;
	}
	if (maxl < 1) {
		snprintf(why, whylen, "every switch has compute nodes");
		goto out;
	}
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t a = lev[t->links[l].from], b = lev[t->links[l].to];

		if (a + 1 != b && b + 1 != a) {
			snprintf(why, whylen,
				 "cable %u-%u joins levels %u and %u "
				 "(not adjacent)",
				 t->links[l].from, t->links[l].to, a, b);
			goto out;
		}
	}
	r = common_ancestors(t, lev, queue, tmp, why, whylen);
	if (r)
		goto out;
	for (uint32_t s = 0; s < S; s++) {
		par[s] = s;
		mask[s] = lev[s] <= 1;
	}
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++) {
		uint32_t a = t->links[l].from, b = t->links[l].to;

		if (lev[a] <= 1 && lev[b] <= 1)
			par[uf_find(par, a)] = uf_find(par, b);
	}
	rc->groups = number_classes(S, par, mask, grp, tmp);
	rc->levels = maxl + 1;
	rc->family = "fattree";
out:
	free(queue);
	free(par);
	free(tmp);
	free(mask);
	return r;
}

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

/* Dragonfly test, as try_fattree. */
static int try_dragonfly(struct topo *t, uint32_t *grp, struct topo_recog *rc,
			 char *why, size_t whylen)
{
	uint32_t S = t->nswitches, D = max_degree(t), G = 0;
	uint32_t *nb = malloc(((size_t)D + 1) * sizeof(*nb));
	uint32_t *nb2 = malloc(((size_t)D + 1) * sizeof(*nb2));
	uint32_t *mark = malloc(((size_t)S + 1) * sizeof(*mark));
	uint32_t *mem = malloc(((size_t)D + 1) * sizeof(*mem));
	uint32_t *size = calloc((size_t)S + 1, sizeof(*size));
	struct cand *c = malloc(((size_t)D + 1) * sizeof(*c));
	int r = -1;

	if (!nb || !nb2 || !mark || !mem || !size || !c)
		goto out;
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
	if (size[0] < 3) {
		snprintf(why, whylen,
			 "no all-to-all groups of 3 switches or more");
		goto out;
	}
	rc->groups = G;
	rc->group_size = size[0];
	rc->global_links = 0;
	/* the groups joined by global links (size[] reused as the
	 * union-find parents: the sizes are checked above) */
	for (uint32_t g = 0; g < G; g++)
		size[g] = g;
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++)
		if (t->links[l].from < t->links[l].to &&
		    grp[t->links[l].from] != grp[t->links[l].to]) {
			uint32_t a = grp[t->links[l].from];
			uint32_t b = grp[t->links[l].to];

			rc->global_links++;
			while (size[a] != a)
				a = size[a] = size[size[a]];
			while (size[b] != b)
				b = size[b] = size[size[b]];
			if (a != b)
				size[a > b ? a : b] = a < b ? a : b;
		}
	for (uint32_t g = 1; g < G; g++) {
		uint32_t a = g;

		while (size[a] != a)
			a = size[a];
		if (a != 0) {
			snprintf(why, whylen,
				 "no global links join group 0 and group %u",
				 g);
			goto out;
		}
	}
	rc->levels = 1;
	rc->family = "dragonfly";
	r = 0;
out:
	free(nb);
	free(nb2);
	free(mark);
	free(mem);
	free(size);
	free(c);
	return r;
}

int topo_recognise(struct topo *t)
{
	uint32_t S = t->nswitches;
	uint32_t *lev = malloc(((size_t)S + 1) * sizeof(*lev));
	uint32_t *grp = malloc(((size_t)S + 1) * sizeof(*grp));
	struct topo_recog rc = { 0 };
	char why1[96] = "", why2[96] = "";
	int r;

	if (!lev || !grp)
		goto nomem;
	r = try_fattree(t, lev, grp, &rc, why1, sizeof(why1));
	if (r < 0)
		goto nomem;
	if (r > 0) {
		memset(lev, 0, ((size_t)S + 1) * sizeof(*lev));
		r = try_dragonfly(t, grp, &rc, why2, sizeof(why2));
		if (r < 0)
			goto nomem;
	}
	if (r > 0) {
		snprintf(t->recog.why, sizeof(t->recog.why),
			 "not a fat-tree: %s; not a dragonfly: %s", why1, why2);
		free(lev);
		free(grp);
		return 0;
	}
	t->recog.family = rc.family;
	t->recog.levels = rc.levels;
	t->recog.groups = rc.groups;
	t->recog.group_size = rc.group_size;
	t->recog.global_links = rc.global_links;
	free(t->sw_level);
	free(t->sw_group);
	t->sw_level = lev;
	t->sw_group = grp;
	t->ngroups = rc.groups;
	return 0;
nomem:
	free(lev);
	free(grp);
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
