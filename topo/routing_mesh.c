/* routing_mesh.c - dimension-order (dor) and minimal routing on the
 * mesh-like families: expressmesh, hyperx and torus (paper 003 Sec. II-C).
 *
 * Both routings move "toward the destination" in every dimension.
 *
 * Express mesh / HyperX (gap g; HyperX is g = 1): within dimension i a hop
 * goes from coordinate x to y with |y - x| = 1 + m*g and never passes the
 * destination coordinate (paper 003 Sec. II-C-1, rules 1-3).  The fewest
 * such hops over a distance D >= 1 is h(D) = ((D - 1) mod g) + 1 (each hop
 * is 1 mod g long), and the fewest-hop sequences are exactly the
 * compositions of D into h(D) parts that are each 1 mod g: there are
 * C(M + h - 1, h - 1) of them, M = (D - h) / g.  For g >= 3 a path that
 * overshoots and comes back can be shorter than h(D); the paper's rule
 * forbids it (deadlock freedom), and so do we: "minimal" means fewest hops
 * among toward-destination paths.  For g <= 2 this equals the graph
 * distance.  Every h(D) <= g, hence the diameter bound n*g.
 *
 * Torus: within a dimension of size k the shorter way round the ring, in
 * unit hops.  When both ways are equally long (k even, distance k/2, k > 2)
 * minimal uses both and dor takes the positive direction.  A dimension of
 * size 2 has one cable, hence one path.
 *
 * dor: dimensions in the order 0, 1, ..., n-1.  Within an express-mesh
 * dimension it takes the paper's rule 2/3 with the express option first:
 * one hop to the farthest router that is joined to the current one and
 * does not pass the destination coordinate (the direct link when there is
 * one, rule 1), then unit mesh hops; this uses h(D) hops.  One path.
 *
 * minimal: every interleaving of the dimensions and, within each
 * dimension, every fewest-hop toward-destination sequence.  Count =
 * multinomial(H; h_0, ..., h_{n-1}) * prod_i seq_i, H = sum h_i.
 *
 * Link sets: if the switches hosting the job form a box (an interval in
 * every dimension; for a torus dimension the interval must be the whole
 * ring or shorter than half of it, so that no pair goes round the other
 * way) the link set is the set of links internal to the box, both
 * directions: every path stays in the box and every internal link is the
 * one-hop path of its end points.  Otherwise dor factors by dimension
 * (dor_linkset, O(S * k) per dimension) and minimal marks, per destination
 * switch, the links reachable from the job's switches in the graph of
 * toward steps (toward_links, O(S * steps) per destination).  No path is
 * enumerated.
 */
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

/* Refuse to list more path links than this (about 512 MB). */
#define MAX_LIST_LINKS (1ULL << 27)

struct mesh {
	int n;
	bool torus;
	bool dor;
	uint32_t k[TOPO_MAX_DIMS];
	uint32_t stride[TOPO_MAX_DIMS];
	uint32_t gap[TOPO_MAX_DIMS]; /* express mesh / hyperx; 0 for torus */
};

static bool mesh_applies(const struct topo *t)
{
	enum topo_kind k = topo_kind(t);

	return k == TOPO_EXPRESSMESH || k == TOPO_HYPERX || k == TOPO_TORUS;
}

/* The gap of dimension I, read off the links of router 0: the smallest
 * distance d >= 2 joined to it is 1 + gap.  A dimension without such a
 * link behaves as a plain mesh line (gap k - 1). */
static uint32_t infer_gap(const struct topo *t, const struct mesh *m, int i)
{
	uint32_t k = m->k[i], cnt;

	if (k <= 2)
		return 1;
	for (uint32_t d = 2; d < k; d++)
		if (topo_link_between(t, 0, d * m->stride[i], &cnt) !=
		    TOPO_NONE)
			return d - 1;
	return k - 1;
}

static int mesh_init(struct routing *r, const struct topo_args *args,
		     struct err *err)
{
	struct mesh *m = calloc(1, sizeof(*m));
	uint32_t stride = 1;

	if (!m)
		return err_nomem(err, "out of memory");
	m->n = topo_dims(r->t, m->k);
	m->torus = topo_kind(r->t) == TOPO_TORUS;
	m->dor = !strcmp(r->ops->name, "dor");
	for (int i = 0; i < m->n; i++) {
		m->stride[i] = stride;
		stride *= m->k[i];
	}
	for (int i = 0; i < m->n; i++)
		m->gap[i] = m->torus ? 0 : infer_gap(r->t, m, i);
	r->priv = m;
	return 0;
}

static void mesh_fini(struct routing *r)
{
	free(r->priv);
	r->priv = NULL;
}

/* ---- one dimension ---- */

/* Fewest toward-destination express-mesh hops over distance D. */
static uint32_t em_hops(uint32_t d, uint32_t g)
{
	return d ? (d - 1) % g + 1 : 0;
}

/* Ring distances from X to Y: forward (+) and backward (-). */
static void ring(uint32_t x, uint32_t y, uint32_t k, uint32_t *fwd,
		 uint32_t *bwd)
{
	*fwd = (y + k - x) % k;
	*bwd = (x + k - y) % k;
}

/* Hops needed in dimension I from coordinate X to Y. */
static uint32_t dim_hops(const struct mesh *m, int i, uint32_t x, uint32_t y)
{
	uint32_t f, b;

	if (!m->torus)
		return em_hops(x > y ? x - y : y - x, m->gap[i]);
	ring(x, y, m->k[i], &f, &b);
	return f < b ? f : b;
}

/* C(n, k) or UINT64_MAX on overflow. */
static uint64_t binom(uint64_t n, uint64_t k)
{
	unsigned __int128 c = 1;

	if (k > n)
		return 0;
	if (k > n - k)
		k = n - k;
	for (uint64_t i = 1; i <= k; i++) {
		c = c * (n - k + i) / i;
		if (c > UINT64_MAX)
			return UINT64_MAX;
	}
	return (uint64_t)c;
}

/* Number of fewest-hop toward sequences in dimension I from X to Y. */
static uint64_t dim_seqs(const struct mesh *m, int i, uint32_t x, uint32_t y)
{
	uint32_t f, b, d, h;

	if (x == y)
		return 1;
	if (m->torus) {
		ring(x, y, m->k[i], &f, &b);
		return f == b && m->k[i] > 2 ? 2 : 1;
	}
	d = x > y ? x - y : y - x;
	h = em_hops(d, m->gap[i]);
	return binom((d - h) / m->gap[i] + h - 1, h - 1);
}

/* Next coordinates from X on a fewest-hop toward sequence to Y in
 * dimension I (ascending); returns how many (at most k). */
static uint32_t dim_next(const struct mesh *m, int i, uint32_t x, uint32_t y,
			 uint32_t *next)
{
	uint32_t n = 0, k = m->k[i];

	if (x == y)
		return 0;
	if (m->torus) {
		uint32_t f, b;

		ring(x, y, k, &f, &b);
		if (b <= f && !(b == f && k == 2))
			next[n++] = (x + k - 1) % k;
		if (f <= b)
			next[n++] = (x + 1) % k;
		if (n == 2 && next[0] > next[1]) {
			uint32_t tmp = next[0];

			next[0] = next[1];
			next[1] = tmp;
		}
		return n;
	}
	{
		uint32_t g = m->gap[i], d = x > y ? x - y : y - x;
		uint32_t h = em_hops(d, g);

		for (uint32_t len = 1; len <= d; len += g)
			if (em_hops(d - len, g) + 1 == h)
				next[n++] = len;
		/* lengths ascend; turn them into coordinates, ascending */
		for (uint32_t j = 0; j < n; j++)
			next[j] = y > x ? x + next[j] : x - next[j];
		if (y < x)
			for (uint32_t a = 0, z = n - 1; a < z; a++, z--) {
				uint32_t tmp = next[a];

				next[a] = next[z];
				next[z] = tmp;
			}
		return n;
	}
}

/* The dor step from X toward Y in dimension I. */
static uint32_t dim_dor_next(const struct mesh *m, int i, uint32_t x,
			     uint32_t y)
{
	uint32_t k = m->k[i];

	if (m->torus) {
		uint32_t f, b;

		ring(x, y, k, &f, &b);
		return f <= b ? (x + 1) % k : (x + k - 1) % k;
	}
	{
		uint32_t g = m->gap[i], d = x > y ? x - y : y - x;
		uint32_t len = 1 + g * ((d - 1) / g);

		return y > x ? x + len : x - len;
	}
}

/* ---- helpers ---- */

static void coords(const struct mesh *m, uint32_t sw, uint32_t *c)
{
	for (int i = 0; i < m->n; i++) {
		c[i] = sw % m->k[i];
		sw /= m->k[i];
	}
}

/* Switch id of SW with coordinate I moved from X to Y. */
static uint32_t moved(const struct mesh *m, uint32_t sw, int i, uint32_t x,
		      uint32_t y)
{
	return sw - x * m->stride[i] + y * m->stride[i];
}

static uint32_t link_of(const struct topo *t, uint32_t a, uint32_t b)
{
	uint32_t cnt;

	return topo_link_between(t, a, b, &cnt);
}

/* Count of the pair's paths and their hop count (no enumeration). */
static int pair_count(const struct routing *r, uint32_t sa, uint32_t sb,
		      uint64_t *total, uint32_t *hops, struct err *err)
{
	const struct mesh *m = r->priv;
	uint32_t a[TOPO_MAX_DIMS], b[TOPO_MAX_DIMS];
	uint64_t n = 1, sum = 0;

	coords(m, sa, a);
	coords(m, sb, b);
	for (int i = 0; i < m->n; i++) {
		uint32_t h = dim_hops(m, i, a[i], b[i]);
		uint64_t c;

		sum += h;
		if (m->dor)
			continue;
		/* multinomial as a product of binomials */
		c = binom(sum, h);
		if (c == UINT64_MAX || __builtin_mul_overflow(n, c, &n))
			goto overflow;
		c = dim_seqs(m, i, a[i], b[i]);
		if (c == UINT64_MAX || __builtin_mul_overflow(n, c, &n))
			goto overflow;
	}
	*total = n;
	*hops = (uint32_t)sum;
	return 0;
overflow:
	return err_set(err,
		       "%s: path count between switches %u and %u "
		       "exceeds 2^64",
		       r->ops->name, sa, sb);
}

static int mesh_count(const struct routing *r, uint32_t src, uint32_t dst,
		      struct routing_count *c, struct err *err)
{
	uint64_t n;
	uint32_t h;

	if (pair_count(r, topo_node_switch(r->t, src),
		       topo_node_switch(r->t, dst), &n, &h, err))
		return -1;
	routing_count_add(c, PATH_MIN, h, n);
	return 0;
}

/* ---- enumeration ---- */

struct walk {
	const struct routing *r;
	const struct mesh *m;
	uint32_t dst[TOPO_MAX_DIMS];
	uint32_t cur[TOPO_MAX_DIMS];
	uint32_t *path; /* [0] injection, then switch links */
	uint32_t len;
	uint32_t eject;
	struct pathset *out;
};

static int walk_emit(struct walk *w)
{
	w->path[w->len] = w->eject;
	return pathset_add(w->out, w->path, w->len + 1, PATH_MIN);
}

static int walk_step(struct walk *w, uint32_t sw, int i, uint32_t y);

/* Depth-first over every interleaving and every fewest-hop hop.  The
 * frame is small and a unique tail (one dimension left, one sequence) is
 * walked iteratively, so the depth stays below ~sqrt(list limit) even for
 * very long rings. */
static int walk_min(struct walk *w, uint32_t sw)
{
	const struct mesh *m = w->m;
	int left = 0, last = 0;

	for (int i = 0; i < m->n; i++)
		if (w->cur[i] != w->dst[i])
			left++, last = i;
	if (left == 0 ||
	    (left == 1 && dim_seqs(m, last, w->cur[last], w->dst[last]) == 1)) {
		uint32_t len = w->len, x = left ? w->cur[last] : 0;
		int rc;

		while (left && w->cur[last] != w->dst[last]) {
			uint32_t y = dim_dor_next(m, last, w->cur[last],
						  w->dst[last]);
			uint32_t to = moved(m, sw, last, w->cur[last], y);

			w->path[w->len++] = link_of(w->r->t, sw, to);
			w->cur[last] = y;
			sw = to;
		}
		rc = walk_emit(w);
		w->len = len;
		if (left)
			w->cur[last] = x;
		return rc;
	}
	for (int i = 0; i < m->n; i++) {
		uint32_t x = w->cur[i], y = w->dst[i];

		if (x == y)
			continue;
		if (m->torus) {
			uint32_t nx[2], cnt = dim_next(m, i, x, y, nx);

			for (uint32_t j = 0; j < cnt; j++)
				if (walk_step(w, sw, i, nx[j]))
					return -1;
		} else {
			uint32_t g = m->gap[i], d = x > y ? x - y : y - x;
			uint32_t h = em_hops(d, g);

			for (uint32_t len = 1; len <= d; len += g)
				if (em_hops(d - len, g) + 1 == h &&
				    walk_step(w, sw, i,
					      y > x ? x + len : x - len))
					return -1;
		}
	}
	return 0;
}

/* One hop in dimension I to coordinate Y, then the rest. */
static int walk_step(struct walk *w, uint32_t sw, int i, uint32_t y)
{
	uint32_t x = w->cur[i], to = moved(w->m, sw, i, x, y);
	int rc;

	w->path[w->len++] = link_of(w->r->t, sw, to);
	w->cur[i] = y;
	rc = walk_min(w, to);
	w->cur[i] = x;
	w->len--;
	return rc;
}

static int mesh_paths(const struct routing *r, uint32_t src, uint32_t dst,
		      struct pathset *out, struct err *err)
{
	const struct mesh *m = r->priv;
	uint32_t sa = topo_node_switch(r->t, src);
	uint32_t sb = topo_node_switch(r->t, dst);
	struct walk w = { .r = r, .m = m, .out = out };
	uint64_t n;
	uint32_t h;
	int rc = 0;

	if (pair_count(r, sa, sb, &n, &h, err))
		return -1;
	if (n > MAX_LIST_LINKS / (h + 2))
		return err_set(err,
			       "%s: %llu paths between nodes %u and %u "
			       "are too many to list; count them instead",
			       r->ops->name, (unsigned long long)n, src, dst);
	w.path = malloc((h + 2) * sizeof(*w.path));
	if (!w.path)
		return err_nomem(err, "out of memory");
	coords(m, sa, w.cur);
	coords(m, sb, w.dst);
	w.path[0] = topo_inject_link(r->t, src);
	w.len = 1;
	w.eject = topo_eject_link(r->t, dst);
	if (m->dor) {
		uint32_t sw = sa;

		for (int i = 0; i < m->n; i++)
			while (w.cur[i] != w.dst[i]) {
				uint32_t y =
					dim_dor_next(m, i, w.cur[i], w.dst[i]);
				uint32_t to = moved(m, sw, i, w.cur[i], y);

				w.path[w.len++] = link_of(r->t, sw, to);
				w.cur[i] = y;
				sw = to;
			}
		rc = walk_emit(&w);
	} else {
		rc = walk_min(&w, sa);
	}
	free(w.path);
	return rc ? err_nomem(err, "out of memory") : 0;
}

/* ---- link sets ---- */

/* Union, over the sources in SW (ON flags), of the links of their paths
 * to switch D: every path toward D lives in the graph of "next steps"
 * toward D (dor: one next step per switch; minimal: every fewest-hop
 * toward step in every unfinished dimension), and every walk in that graph
 * from a source is one of its paths, so marking the links reachable from
 * the sources is exact.  SEEN and QUEUE have S entries, NEXT k_max. */
static void toward_links(const struct routing *r, uint32_t d,
			 const uint32_t *sw, uint32_t ns, uint8_t *seen,
			 uint32_t *queue, uint32_t *next, uint8_t *used)
{
	const struct mesh *m = r->priv;
	uint32_t dc[TOPO_MAX_DIMS], c[TOPO_MAX_DIMS], head = 0, tail = 0;

	coords(m, d, dc);
	for (uint32_t q = 0; q < ns; q++)
		if (sw[q] != d) {
			seen[sw[q]] = 1;
			queue[tail++] = sw[q];
		}
	while (head < tail) {
		uint32_t u = queue[head++];

		coords(m, u, c);
		for (int i = 0; i < m->n; i++) {
			uint32_t cnt;

			if (c[i] == dc[i])
				continue;
			if (m->dor) {
				next[0] = dim_dor_next(m, i, c[i], dc[i]);
				cnt = 1;
			} else {
				cnt = dim_next(m, i, c[i], dc[i], next);
			}
			for (uint32_t q = 0; q < cnt; q++) {
				uint32_t v = moved(m, u, i, c[i], next[q]);

				used[link_of(r->t, u, v)] = 1;
				if (v != d && !seen[v]) {
					seen[v] = 1;
					queue[tail++] = v;
				}
			}
			if (m->dor)
				break;
		}
	}
	for (uint32_t q = 0; q < tail; q++)
		seen[queue[q]] = 0;
}

/* Is the switch set SW[0..ns) (distinct) a box whose pairs keep their
 * paths inside it? */
static bool is_box(const struct mesh *m, const uint32_t *sw, uint32_t ns)
{
	uint32_t lo[TOPO_MAX_DIMS], hi[TOPO_MAX_DIMS], c[TOPO_MAX_DIMS];
	uint64_t vol = 1;

	for (int i = 0; i < m->n; i++)
		lo[i] = UINT32_MAX, hi[i] = 0;
	for (uint32_t q = 0; q < ns; q++) {
		coords(m, sw[q], c);
		for (int i = 0; i < m->n; i++) {
			if (c[i] < lo[i])
				lo[i] = c[i];
			if (c[i] > hi[i])
				hi[i] = c[i];
		}
	}
	for (int i = 0; i < m->n; i++) {
		uint32_t len = hi[i] - lo[i] + 1;

		if (m->torus && len != m->k[i] && 2 * (len - 1) >= m->k[i])
			return false;
		vol *= len;
	}
	/* the bounding box is full iff it holds exactly ns switches */
	return vol == ns;
}

/* dor link set, factored by dimension: a dor path from s to d moves in
 * dimension i along the line whose lower coordinates are d's and upper
 * coordinates s's, from s_i to d_i.  So for every line of dimension i the
 * hops used are those of the line paths from X (i-th coordinates of the
 * job's switches that share the line's upper coordinates) to Y (those of
 * the switches sharing its lower coordinates).  Line paths toward one y
 * form a tree (the next step depends only on the position), so each y
 * costs O(k).  Total O(S * k) per dimension.  ON flags the job's
 * switches. */
static int dor_linkset(const struct routing *r, const uint8_t *on,
		       uint8_t *used)
{
	const struct mesh *m = r->priv;
	uint32_t S = topo_num_switches(r->t);

	for (int i = 0; i < m->n; i++) {
		uint32_t k = m->k[i], st = m->stride[i];
		uint32_t lower = st, upper = S / (st * k);
		uint8_t *x = calloc((size_t)upper * k, 1);
		uint8_t *y = calloc((size_t)lower * k, 1);
		uint8_t *seen = calloc(k, 1);

		if (!x || !y || !seen) {
			free(x);
			free(y);
			free(seen);
			return -1;
		}
		for (uint32_t s = 0; s < S; s++)
			if (on[s]) {
				uint32_t c = (s / st) % k;

				x[(size_t)(s / (st * k)) * k + c] = 1;
				y[(size_t)(s % st) * k + c] = 1;
			}
		for (uint32_t lo = 0; lo < lower; lo++)
			for (uint32_t up = 0; up < upper; up++) {
				const uint8_t *xs = x + (size_t)up * k;
				const uint8_t *ys = y + (size_t)lo * k;
				uint32_t base = lo + up * st * k;

				for (uint32_t to = 0; to < k; to++) {
					if (!ys[to])
						continue;
					memset(seen, 0, k);
					seen[to] = 1;
					for (uint32_t from = 0; from < k;
					     from++) {
						uint32_t z = from;

						if (!xs[from])
							continue;
						while (!seen[z]) {
							uint32_t z2 =
								dim_dor_next(
									m, i, z,
									to);

							seen[z] = 1;
							used[link_of(
								r->t,
								base + z * st,
								base + z2 * st)] =
								1;
							z = z2;
						}
					}
				}
			}
		free(x);
		free(y);
		free(seen);
	}
	return 0;
}

static int mesh_linkset(const struct routing *r, const uint32_t *nodes,
			uint32_t n, uint8_t *used, struct err *err)
{
	const struct topo *t = r->t;
	const struct mesh *m = r->priv;
	uint32_t S = topo_num_switches(t), ns = 0, kmax = 1;
	uint8_t *on = calloc(S ? S : 1, 1);
	uint32_t *sw = malloc((n ? n : 1) * sizeof(*sw));
	uint32_t *queue = NULL, *next = NULL;
	int rc = 0;

	if (!on || !sw) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t q = 0; q < n; q++) {
		uint32_t s = topo_node_switch(t, nodes[q]);

		if (!on[s]) {
			on[s] = 1;
			sw[ns++] = s;
		}
	}
	if (ns < 2)
		goto out;
	if (is_box(m, sw, ns)) {
		for (uint32_t q = 0; q < ns; q++) {
			uint32_t cnt, first = topo_switch_out(t, sw[q], &cnt);

			for (uint32_t l = first; l < first + cnt; l++)
				if (on[topo_link(t, l)->to])
					used[l] = 1;
		}
		goto out;
	}
	if (m->dor) {
		if (dor_linkset(r, on, used))
			rc = err_nomem(err, "out of memory");
		goto out;
	}
	for (int i = 0; i < m->n; i++)
		if (m->k[i] > kmax)
			kmax = m->k[i];
	queue = malloc(S * sizeof(*queue));
	next = malloc(kmax * sizeof(*next));
	if (!queue || !next) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	memset(on, 0, S); /* reused as the "seen" flags */
	for (uint32_t q = 0; q < ns; q++)
		toward_links(r, sw[q], sw, ns, on, queue, next, used);
out:
	free(on);
	free(sw);
	free(queue);
	free(next);
	return rc;
}

const struct routing_ops routing_dor = {
	.name = "dor",
	.multipath = false,
	.switch_paths = true,
	.applies = mesh_applies,
	.init = mesh_init,
	.fini = mesh_fini,
	.paths = mesh_paths,
	.count = mesh_count,
	.linkset = mesh_linkset,
};

const struct routing_ops routing_minimal = {
	.name = "minimal",
	.multipath = true,
	.switch_paths = true,
	.applies = mesh_applies,
	.init = mesh_init,
	.fini = mesh_fini,
	.paths = mesh_paths,
	.count = mesh_count,
	.linkset = mesh_linkset,
};
