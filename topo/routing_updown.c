/* routing_updown.c - ecmp on a Topology=graph recognised as a fat-tree
 * (topo_recog_fattree.c): every shortest up/down path between two
 * leaves.  With L the lowest level of a common ancestor of the two leaves,
 * a path climbs L levels to such an ancestor and descends L levels, every
 * parallel cable a path of its own.  The k-ary n-tree's closed forms
 * (routing_fattree.c) do not hold on an irregular tree, so paths are
 * enumerated: a DFS pruned to switches below a lowest common ancestor
 * going up and ancestors of the destination going down. */
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

/* Mark M[s] |= BIT for S and every switch above it (up-links only). */
static void mark_up(const struct topo *t, uint32_t s, uint8_t *m, uint8_t bit,
		    uint32_t *q)
{
	uint32_t h = 0, tl = 0;

	m[s] |= bit;
	q[tl++] = s;
	while (h < tl) {
		uint32_t u = q[h++], cnt, first = topo_switch_out(t, u, &cnt);

		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t v = topo_link(t, first + i)->to;

			if (topo_switch_level(t, v) > topo_switch_level(t, u) &&
			    !(m[v] & bit)) {
				m[v] |= bit;
				q[tl++] = v;
			}
		}
	}
}

struct walk {
	const struct topo *t;
	const uint8_t *m; /* 1: above src, 2: above dst, 4: below a top */
	uint32_t L, dsw, src, dst;
	uint32_t buf[2 * ROUTING_MAX_HOPS + 2], len;
	struct pathset *out;
};

/* Extend the path at U (DOWN: descending). */
static int walk(struct walk *w, uint32_t u, bool down)
{
	const struct topo *t = w->t;
	uint32_t lu = topo_switch_level(t, u), cnt;
	uint32_t first = topo_switch_out(t, u, &cnt);

	if (down && u == w->dsw) {
		w->buf[w->len] = topo_eject_link(t, w->dst);
		return pathset_add(w->out, w->buf, w->len + 1, PATH_MIN);
	}
	if (!down && lu == w->L)
		return walk(w, u, true);
	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t v = topo_link(t, first + i)->to;
		uint32_t lv = topo_switch_level(t, v);
		bool ok = down ? lv + 1 == lu && (w->m[v] & 2) :
				 lv == lu + 1 && (w->m[v] & 4);

		if (!ok)
			continue;
		w->buf[w->len++] = first + i;
		if (walk(w, v, down))
			return -1;
		w->len--;
	}
	return 0;
}

int updown_paths(const struct routing *r, uint32_t src, uint32_t dst,
		 struct pathset *out, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t S = topo_num_switches(t), L = UINT32_MAX, h = 0, tl = 0;
	uint32_t ssw = topo_node_switch(t, src), dsw = topo_node_switch(t, dst);
	uint8_t *m = calloc(S, 1);
	uint32_t *q = malloc((size_t)S * sizeof(*q));
	struct walk w = { .t = t, .src = src, .dst = dst, .out = out };
	int rc = -1;

	if (!m || !q) {
		err_nomem(err, "out of memory");
		goto out;
	}
	mark_up(t, ssw, m, 1, q);
	mark_up(t, dsw, m, 2, q);
	for (uint32_t s = 0; s < S; s++)
		if ((m[s] & 3) == 3 && topo_switch_level(t, s) < L)
			L = topo_switch_level(t, s);
	if (L == UINT32_MAX || L > ROUTING_MAX_HOPS) {
		char la[80], lb[80];

		err_set(err, "ecmp: %s and %s have no common ancestor",
			topo_switch_label(t, ssw, la, sizeof(la)),
			topo_switch_label(t, dsw, lb, sizeof(lb)));
		goto out;
	}
	/* below a lowest common ancestor, on src's side */
	for (uint32_t s = 0; s < S; s++)
		if ((m[s] & 3) == 3 && topo_switch_level(t, s) == L) {
			m[s] |= 4;
			q[tl++] = s;
		}
	while (h < tl) {
		uint32_t u = q[h++], cnt, first = topo_switch_out(t, u, &cnt);

		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t v = topo_link(t, first + i)->to;

			if (topo_switch_level(t, v) < topo_switch_level(t, u) &&
			    (m[v] & 1) && !(m[v] & 4)) {
				m[v] |= 4;
				q[tl++] = v;
			}
		}
	}
	w.m = m;
	w.L = L;
	w.dsw = dsw;
	w.buf[w.len++] = topo_inject_link(t, src);
	if (walk(&w, ssw, false)) {
		err_nomem(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(m);
	free(q);
	return rc;
}

/* Structural link set of ecmp on a fat-tree graph (routing_linkset).
 * With Up(a) the switches reachable upward from leaf a (a included) and
 * CA(a,b) the lowest-level switches of Up(a) & Up(b), a pair's paths climb
 * from a through the switches of Up(a) that have a switch of CA(a,b) above
 * them (or are one) and descend the same way into b.  So over the job's
 * ordered pairs of distinct leaves, a cable between adjacent levels (either
 * direction) is used iff both ends are in Up(a) for some leaf a of the job
 * and its upper end has a switch of T(a) = the union over the job's other
 * leaves b of CA(a,b) above it (or is one); a cable to a leaf only when
 * the leaf is the job's.
 *
 * Leaves with the same Up(a) above level 0 (a pod's leaves, on a k-ary
 * n-tree) form a class: its members' contributions merge into one with T =
 * the union of theirs, where two members of a class have CA = the class's
 * lowest level.  Classes, their Up sets (bitsets, each level's bits
 * word-aligned) and every switch's up-links and down-links in are computed
 * once (updown_init).  A call marks, per class, the cables of its Up below
 * the top level and of its job leaves (a top switch's cables all lead
 * down into some class's Up): O(J + C^2 W + C |Up below the top| d) for J
 * leaves in C classes, W words and degree d, instead of every path of
 * every pair. */
struct updown {
	uint32_t S, nlev, W, ncls;
	uint32_t base[ROUTING_MAX_HOPS + 2]; /* first word of each level */
	uint32_t *lev;			     /* [S] level */
	uint32_t *pos; /* [S] bit index (base[lev] * 64 + index in level) */
	uint32_t *at;  /* [W * 64] switch of each bit */
	uint32_t *cls; /* [S] class of a leaf (UINT32_MAX: not a leaf) */
	uint64_t *up;  /* [ncls * W] Up of each class above level 0 */
	/* switch s's up-links: ul[uoff[s] .. uoff[s+1]); the down-links
	 * into it (from the level above): dl[doff[s] .. doff[s+1]) */
	uint32_t *uoff, *ul, *doff, *dl;
};

static bool bit(const uint64_t *set, uint32_t pos)
{
	return set[pos / 64] >> (pos % 64) & 1;
}

void updown_fini(struct routing *r)
{
	struct updown *u = r->priv;

	if (u) {
		free(u->lev);
		free(u->pos);
		free(u->at);
		free(u->cls);
		free(u->up);
		free(u->uoff);
		free(u->ul);
		free(u->doff);
		free(u->dl);
		free(u);
	}
	r->priv = NULL;
}

int updown_init(struct routing *r, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t S = topo_num_switches(t), cnt[ROUTING_MAX_HOPS + 1] = { 0 };
	struct updown *u = calloc(1, sizeof(*u));
	uint32_t *q = malloc(((size_t)S + 1) * sizeof(*q));
	uint64_t *cur = NULL;

	if (!u || !q)
		goto oom;
	r->priv = u;
	u->S = S;
	u->lev = malloc(((size_t)S + 1) * sizeof(*u->lev));
	u->pos = malloc(((size_t)S + 1) * sizeof(*u->pos));
	u->cls = malloc(((size_t)S + 1) * sizeof(*u->cls));
	if (!u->lev || !u->pos || !u->cls)
		goto oom;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t l = topo_switch_level(t, s);

		if (l > ROUTING_MAX_HOPS) {
			free(q);
			updown_fini(r);
			return err_set(err, "ecmp: switch %u above level %u", s,
				       ROUTING_MAX_HOPS);
		}
		u->lev[s] = l;
		u->pos[s] = cnt[l]++;
		if (l + 1 > u->nlev)
			u->nlev = l + 1;
	}
	for (uint32_t l = 0; l < u->nlev; l++)
		u->base[l + 1] = u->base[l] + (cnt[l] + 63) / 64;
	u->W = u->base[u->nlev];
	u->at = calloc((size_t)u->W * 64 + 1, sizeof(*u->at));
	cur = malloc(((size_t)u->W + 1) * sizeof(*cur));
	if (!u->at || !cur)
		goto oom;
	for (uint32_t s = 0; s < S; s++) {
		u->pos[s] += u->base[u->lev[s]] * 64;
		u->at[u->pos[s]] = s;
	}
	/* up-links out of and down-links into every switch */
	u->uoff = calloc((size_t)S + 2, sizeof(*u->uoff));
	u->doff = calloc((size_t)S + 2, sizeof(*u->doff));
	u->ul = malloc(((size_t)t->nlinks + 1) * sizeof(*u->ul));
	u->dl = malloc(((size_t)t->nlinks + 1) * sizeof(*u->dl));
	if (!u->uoff || !u->doff || !u->ul || !u->dl)
		goto oom;
	for (uint32_t l = t->out_off[0]; l < t->nlinks; l++) {
		uint32_t a = t->links[l].from, b = t->links[l].to;

		if (u->lev[b] == u->lev[a] + 1)
			u->uoff[a + 1]++;
		else if (u->lev[a] == u->lev[b] + 1)
			u->doff[b + 1]++;
	}
	for (uint32_t x = 0; x < S; x++) {
		u->uoff[x + 1] += u->uoff[x];
		u->doff[x + 1] += u->doff[x];
	}
	for (uint32_t l = t->out_off[0]; l < t->nlinks; l++) {
		uint32_t a = t->links[l].from, b = t->links[l].to;

		if (u->lev[b] == u->lev[a] + 1)
			u->ul[u->uoff[a]++] = l;
		else if (u->lev[a] == u->lev[b] + 1)
			u->dl[u->doff[b]++] = l;
	}
	for (uint32_t x = S; x > 0; x--) { /* back to starts */
		u->uoff[x] = u->uoff[x - 1];
		u->doff[x] = u->doff[x - 1];
	}
	u->uoff[0] = u->doff[0] = 0;
	/* each leaf's Up above level 0 (BFS upward), merged into classes */
	for (uint32_t s = 0; s < S; s++) {
		uint32_t h = 0, tl = 0, c;

		u->cls[s] = UINT32_MAX;
		if (u->lev[s] != 0)
			continue;
		memset(cur, 0, (size_t)u->W * sizeof(*cur));
		q[tl++] = s;
		while (h < tl) {
			uint32_t x = q[h++], n,
				 first = topo_switch_out(t, x, &n);

			for (uint32_t k = 0; k < n; k++) {
				uint32_t v = topo_link(t, first + k)->to;

				if (u->lev[v] == u->lev[x] + 1 &&
				    !bit(cur, u->pos[v])) {
					cur[u->pos[v] / 64] |=
						1ull << (u->pos[v] % 64);
					q[tl++] = v;
				}
			}
		}
		for (c = 0; c < u->ncls; c++)
			if (!memcmp(u->up + (size_t)c * u->W, cur,
				    (size_t)u->W * sizeof(*cur)))
				break;
		if (c == u->ncls) {
			uint64_t *g = realloc(u->up, ((size_t)c + 1) * u->W *
							     sizeof(*g));

			if (!g)
				goto oom;
			u->up = g;
			memcpy(u->up + (size_t)c * u->W, cur,
			       (size_t)u->W * sizeof(*cur));
			u->ncls++;
		}
		u->cls[s] = c;
	}
	free(q);
	free(cur);
	return 0;
oom:
	free(q);
	free(cur);
	updown_fini(r);
	return err_nomem(err, "out of memory");
}

/* Lowest level of A & B (W words, levels from 1): OR it into T. */
static void lowest_common(const struct updown *u, const uint64_t *a,
			  const uint64_t *b, uint64_t *t)
{
	for (uint32_t l = 1; l < u->nlev; l++) {
		uint64_t any = 0;

		for (uint32_t w = u->base[l]; w < u->base[l + 1]; w++) {
			uint64_t x = a[w] & b[w];

			t[w] |= x;
			any |= x;
		}
		if (any)
			return;
	}
}

/* Switch Y's up-links and the down-links into it: used when their upper
 * end is in D. */
static void mark_cables(const struct updown *u, const struct topo *t,
			uint32_t y, const uint64_t *d, uint8_t *used)
{
	for (uint32_t e = u->uoff[y]; e < u->uoff[y + 1]; e++)
		used[u->ul[e]] |= bit(d, u->pos[t->links[u->ul[e]].to]);
	for (uint32_t e = u->doff[y]; e < u->doff[y + 1]; e++)
		used[u->dl[e]] |= bit(d, u->pos[t->links[u->dl[e]].from]);
}

int updown_linkset(const struct routing *r, const uint32_t *nodes, uint32_t n,
		   uint8_t *used, struct err *err)
{
	const struct topo *t = r->t;
	const struct updown *u = r->priv;
	uint32_t S = u->S, W = u->W, J = 0, P = 0;
	uint32_t *ncls = calloc((size_t)u->ncls + 1, sizeof(*ncls));
	uint32_t *present = malloc(((size_t)u->ncls + 1) * sizeof(*present));
	uint8_t *mine = calloc((size_t)S + 1, 1);
	uint32_t *leaf = malloc(((size_t)n + 1) * sizeof(*leaf));
	uint64_t *tt = malloc(((size_t)W + 1) * sizeof(*tt));
	uint64_t *d = malloc(((size_t)W + 1) * sizeof(*d));
	int rc = -1;

	if (!ncls || !present || !mine || !leaf || !tt || !d) {
		err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		if (u->lev[topo_node_switch(t, nodes[i])] > 0) {
			/* a node hosted above the leaves (storage on a
			 * spine): its pairs by their paths */
			rc = routing_linkset_enum(r, nodes, n, used, err);
			goto out;
		}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = topo_node_switch(t, nodes[i]), c = u->cls[s];

		if (mine[s] || c == UINT32_MAX)
			continue;
		mine[s] = 1;
		leaf[J++] = s;
		if (!ncls[c]++)
			present[P++] = c;
	}
	for (uint32_t p = 0; J >= 2 && p < P; p++) {
		uint32_t c = present[p];
		const uint64_t *up = u->up + (size_t)c * W;

		/* T: lowest common levels with the other classes, and with
		 * itself when it holds two of the job's leaves */
		memset(tt, 0, (size_t)W * sizeof(*tt));
		if (ncls[c] >= 2)
			lowest_common(u, up, up, tt);
		for (uint32_t o = 0; o < P; o++)
			if (o != p)
				lowest_common(u, up,
					      u->up + (size_t)present[o] * W,
					      tt);
		/* D, from the level below the top down (top switches have
		 * no up-link) */
		memcpy(d, tt, (size_t)W * sizeof(*d));
		for (uint32_t w = u->base[u->nlev - 1]; w-- > u->base[1];)
			for (uint64_t m = up[w] & ~d[w]; m; m &= m - 1) {
				uint32_t x =
					u->at[w * 64 +
					      (uint32_t)__builtin_ctzll(m)];

				for (uint32_t e = u->uoff[x];
				     e < u->uoff[x + 1]; e++)
					if (bit(d,
						u->pos[t->links[u->ul[e]].to])) {
						d[w] |= 1ull
							<< (u->pos[x] % 64);
						break;
					}
			}
		/* the cables of Up below the top and of the class's leaves
		 * of the job, both ways: used when the upper end is in D */
		for (uint32_t i = 0; i < J; i++)
			if (u->cls[leaf[i]] == c)
				mark_cables(u, t, leaf[i], d, used);
		for (uint32_t w = u->base[1]; w < u->base[u->nlev - 1]; w++)
			for (uint64_t m = up[w]; m; m &= m - 1)
				mark_cables(u, t,
					    u->at[w * 64 +
						  (uint32_t)__builtin_ctzll(m)],
					    d, used);
	}
	rc = 0;
out:
	free(ncls);
	free(present);
	free(mine);
	free(leaf);
	free(tt);
	free(d);
	return rc;
}
