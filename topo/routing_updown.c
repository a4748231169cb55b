/* routing_updown.c - ecmp on a Topology=graph recognised as a fat-tree
 * (topo_recog.c): every shortest up/down path between two leaves.  With
 * L the lowest level of a common ancestor of the two leaves, a path climbs
 * L levels to such an ancestor and descends L levels, every parallel cable
 * a path of its own.  The k-ary n-tree's closed forms (routing_fattree.c)
 * do not hold on an irregular tree, so paths are enumerated: a DFS pruned
 * to switches below a lowest common ancestor going up and ancestors of the
 * destination going down. */
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
		err_set(err, "out of memory");
		goto out;
	}
	mark_up(t, ssw, m, 1, q);
	mark_up(t, dsw, m, 2, q);
	for (uint32_t s = 0; s < S; s++)
		if ((m[s] & 3) == 3 && topo_switch_level(t, s) < L)
			L = topo_switch_level(t, s);
	if (L == UINT32_MAX || L > ROUTING_MAX_HOPS) {
		err_set(err, "ecmp: switches %u and %u have no common ancestor",
			ssw, dsw);
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
		err_set(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(m);
	free(q);
	return rc;
}
