/* routing_graph.c - routings over the plain switch graph, for jellyfish and
 * explicit graphs (and allowed on every family: paper 000 also runs
 * k-shortest-path routing on tori, and they serve as a reference
 * elsewhere).
 *
 * A path here is a sequence of directed switch links; parallel links
 * between the same two switches are different links, so each gives a
 * separate path (as in the dragonfly routings).  Paths are ordered by
 *   1. hop count, then
 *   2. the sequence of link ids, lexicographically.
 * Because switch links are numbered by (from, to) (topo.h), rule 2 is the
 * lexicographic order of the switch sequences, with parallel links in id
 * order; "ties broken by lower switch ids".
 *
 * shortest  all shortest paths between the two switches.  Counted by
 *           dynamic programming over BFS distances (no enumeration); link
 *           sets per destination over the shortest-path DAG.
 * ksp:k=K   the first K simple paths (no switch repeated) in the order
 *           above, by Yen's algorithm; fewer when fewer exist.  Default
 *           K = 4.
 */
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

#define MAX_LIST_LINKS (1ULL << 27)
#define KSP_MAX_K 4096

static bool any_family(const struct topo *t)
{
	(void)t;
	return true;
}

/* Scratch for one query: distances to a target and a BFS queue. */
struct scratch {
	uint32_t *dist;
	uint32_t *queue;
	uint32_t nq;
};

static int scratch_init(struct scratch *s, uint32_t nsw)
{
	s->dist = malloc((nsw ? nsw : 1) * sizeof(*s->dist));
	s->queue = malloc((nsw ? nsw : 1) * sizeof(*s->queue));
	s->nq = 0;
	return s->dist && s->queue ? 0 : -1;
}

static void scratch_free(struct scratch *s)
{
	free(s->dist);
	free(s->queue);
}

/* Hop distances of every switch TO switch DST, walking links backwards,
 * skipping removed links (rm_link, indexed by switch link id - first) and
 * removed switches (either may be NULL).  s->queue lists the reached
 * switches in nondecreasing distance.  With STOP != TOPO_NONE the search
 * ends once every switch closer than STOP is settled (enough to walk down
 * from STOP); the others may keep UINT32_MAX. */
static void bfs_to(const struct topo *t, uint32_t dst, const uint8_t *rm_sw,
		   const uint8_t *rm_link, uint32_t stop, struct scratch *s)
{
	uint32_t S = topo_num_switches(t), first = topo_first_switch_link(t);
	uint32_t head = 0;

	for (uint32_t i = 0; i < S; i++)
		s->dist[i] = UINT32_MAX;
	s->dist[dst] = 0;
	s->nq = 0;
	s->queue[s->nq++] = dst;
	while (head < s->nq) {
		uint32_t v = s->queue[head++], cnt;
		const uint32_t *in;

		if (stop != TOPO_NONE && s->dist[stop] <= s->dist[v])
			break;
		in = topo_switch_in(t, v, &cnt);

		for (uint32_t q = 0; q < cnt; q++) {
			uint32_t u = topo_link(t, in[q])->from;

			if (s->dist[u] != UINT32_MAX || (rm_sw && rm_sw[u]) ||
			    (rm_link && rm_link[in[q] - first]))
				continue;
			s->dist[u] = s->dist[v] + 1;
			s->queue[s->nq++] = u;
		}
	}
}

/* ---- shortest ---- */

/* Number of shortest paths from every switch to the BFS target (in
 * s->dist), parallel links counted each; UINT64_MAX marks overflow. */
static int count_dag(const struct topo *t, const struct scratch *s,
		     uint64_t *cnt)
{
	for (uint32_t q = 0; q < s->nq; q++) {
		uint32_t u = s->queue[q], n;
		uint32_t first = topo_switch_out(t, u, &n);
		uint64_t c = q == 0 ? 1 : 0;

		for (uint32_t l = first; l < first + n; l++) {
			uint32_t v = topo_link(t, l)->to;

			if (s->dist[v] + 1 != s->dist[u])
				continue;
			if (cnt[v] == UINT64_MAX ||
			    __builtin_add_overflow(c, cnt[v], &c))
				return -1;
		}
		cnt[u] = c;
	}
	return 0;
}

static int shortest_count_sw(const struct routing *r, uint32_t sa, uint32_t sb,
			     uint64_t *n, uint32_t *hops, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t S = topo_num_switches(t);
	struct scratch s;
	uint64_t *cnt = malloc((S ? S : 1) * sizeof(*cnt));
	int rc = 0;

	if (scratch_init(&s, S) || !cnt) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	bfs_to(t, sb, NULL, NULL, sa, &s);
	if (s.dist[sa] == UINT32_MAX) {
		rc = routing_unreachable(t, "shortest", sa, sb, err);
		goto out;
	}
	for (uint32_t i = 0; i < S; i++)
		cnt[i] = 0;
	if (count_dag(t, &s, cnt) || cnt[sa] == UINT64_MAX) {
		rc = err_set(err,
			     "shortest: path count between switches %u "
			     "and %u exceeds 2^64",
			     sa, sb);
		goto out;
	}
	*n = cnt[sa];
	*hops = s.dist[sa];
out:
	scratch_free(&s);
	free(cnt);
	return rc;
}

static int shortest_count(const struct routing *r, uint32_t src, uint32_t dst,
			  struct routing_count *c, struct err *err)
{
	uint64_t n;
	uint32_t h;

	if (shortest_count_sw(r, topo_node_switch(r->t, src),
			      topo_node_switch(r->t, dst), &n, &h, err))
		return -1;
	routing_count_add(c, PATH_MIN, h, n);
	return 0;
}

struct dfs {
	const struct topo *t;
	const uint32_t *dist;
	uint32_t *path;
	uint32_t len;
	struct pathset *out;
};

/* Every shortest continuation from U, links in ascending id order (so the
 * paths come out in the documented order). */
static int dfs_shortest(struct dfs *d, uint32_t u)
{
	uint32_t n, first;

	if (d->dist[u] == 0)
		return pathset_add(d->out, d->path, d->len + 1, PATH_MIN);
	first = topo_switch_out(d->t, u, &n);
	for (uint32_t l = first; l < first + n; l++) {
		uint32_t v = topo_link(d->t, l)->to;

		if (d->dist[v] + 1 != d->dist[u])
			continue;
		d->path[d->len++] = l;
		if (dfs_shortest(d, v))
			return -1;
		d->len--;
	}
	return 0;
}

static int shortest_paths(const struct routing *r, uint32_t src, uint32_t dst,
			  struct pathset *out, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t sa = topo_node_switch(t, src), sb = topo_node_switch(t, dst);
	struct scratch s;
	struct dfs d = { .t = t, .out = out };
	uint64_t n;
	uint32_t h;
	int rc = 0;

	if (shortest_count_sw(r, sa, sb, &n, &h, err))
		return -1;
	if (n > MAX_LIST_LINKS / (h + 2))
		return err_set(err,
			       "shortest: %llu paths between nodes %u "
			       "and %u are too many to list; count them "
			       "instead",
			       (unsigned long long)n, src, dst);
	d.path = malloc((h + 2) * sizeof(*d.path));
	if (scratch_init(&s, topo_num_switches(t)) || !d.path) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	bfs_to(t, sb, NULL, NULL, sa, &s);
	d.dist = s.dist;
	d.path[0] = topo_inject_link(t, src);
	d.len = 1;
	/* the ejection link rides in the slot after the last switch link */
	d.path[h + 1] = topo_eject_link(t, dst);
	if (dfs_shortest(&d, sa))
		rc = err_nomem(err, "out of memory");
out:
	scratch_free(&s);
	free(d.path);
	return rc;
}

/* Union over sources in W of the shortest-path DAG toward each
 * destination in W: process switches by decreasing distance, marking the
 * DAG links out of every switch reached from a source. */
static int shortest_linkset(const struct routing *r, const uint32_t *nodes,
			    uint32_t n, uint8_t *used, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t S = topo_num_switches(t), ns = 0;
	uint8_t *in_w = calloc(S ? S : 1, 1), *reach = malloc(S ? S : 1);
	uint32_t *w = malloc((n ? n : 1) * sizeof(*w));
	struct scratch s;
	int rc = 0;

	if (scratch_init(&s, S) || !in_w || !reach || !w) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t q = 0; q < n; q++) {
		uint32_t sw = topo_node_switch(t, nodes[q]);

		if (!in_w[sw]) {
			in_w[sw] = 1;
			w[ns++] = sw;
		}
	}
	for (uint32_t x = 0; ns > 1 && x < ns; x++) {
		uint32_t d = w[x];

		bfs_to(t, d, NULL, NULL, TOPO_NONE, &s);
		memcpy(reach, in_w, S);
		for (uint32_t q = s.nq; q-- > 1;) {
			uint32_t u = s.queue[q], cnt, first;

			if (!reach[u])
				continue;
			first = topo_switch_out(t, u, &cnt);
			for (uint32_t l = first; l < first + cnt; l++) {
				uint32_t v = topo_link(t, l)->to;

				if (s.dist[v] + 1 == s.dist[u]) {
					used[l] = 1;
					reach[v] = 1;
				}
			}
		}
		for (uint32_t y = 0; y < ns; y++)
			if (s.dist[w[y]] == UINT32_MAX) {
				rc = routing_unreachable(t, "shortest", w[y], d,
							 err);
				goto out;
			}
	}
out:
	scratch_free(&s);
	free(in_w);
	free(reach);
	free(w);
	return rc;
}

/* ---- ksp (Yen) ---- */

/* A path of switch links; paths are compared by (hops, link ids). */
struct kpath {
	uint32_t len;
	uint32_t *l;
};

static int kpath_cmp(const struct kpath *a, const struct kpath *b)
{
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	for (uint32_t i = 0; i < a->len; i++)
		if (a->l[i] != b->l[i])
			return a->l[i] < b->l[i] ? -1 : 1;
	return 0;
}

struct yen {
	const struct topo *t;
	uint32_t first; /* first switch link id */
	struct scratch s;
	uint8_t *rm_sw;	     /* [S] */
	uint8_t *rm_link;    /* [L - first] */
	struct kpath *a, *b; /* accepted, candidates */
	uint32_t na, nb, capb;
};

static void yen_free(struct yen *y)
{
	for (uint32_t i = 0; i < y->na; i++)
		free(y->a[i].l);
	for (uint32_t i = 0; i < y->nb; i++)
		free(y->b[i].l);
	free(y->a);
	free(y->b);
	free(y->rm_sw);
	free(y->rm_link);
	scratch_free(&y->s);
}

/* The first path (in the documented order) from U to the BFS target in
 * y->s, avoiding removed switches and links, appended to P (room for
 * dist[u] more links).  Greedy: the smallest link id that keeps the
 * distance falling. */
static void greedy(struct yen *y, uint32_t u, uint32_t *p)
{
	const struct topo *t = y->t;

	while (y->s.dist[u]) {
		uint32_t n, first = topo_switch_out(t, u, &n);

		for (uint32_t l = first; l < first + n; l++) {
			uint32_t v = topo_link(t, l)->to;

			if (y->rm_link[l - y->first] || y->rm_sw[v] ||
			    y->s.dist[v] + 1 != y->s.dist[u])
				continue;
			*p++ = l;
			u = v;
			break;
		}
	}
}

static bool known(const struct kpath *set, uint32_t n, const struct kpath *p)
{
	for (uint32_t i = 0; i < n; i++)
		if (!kpath_cmp(&set[i], p))
			return true;
	return false;
}

/* Spur paths off the last accepted path (Yen's inner loop). */
static int yen_spurs(struct yen *y, uint32_t sb)
{
	const struct topo *t = y->t;
	const struct kpath *prev = &y->a[y->na - 1];
	uint32_t S = topo_num_switches(t);
	uint32_t L = topo_num_links(t) - y->first;

	for (uint32_t i = 0; i < prev->len; i++) {
		uint32_t spur = topo_link(t, prev->l[i])->from;
		struct kpath c;

		memset(y->rm_sw, 0, S);
		memset(y->rm_link, 0, L);
		/* root switches (before the spur) are off limits */
		for (uint32_t j = 0; j < i; j++)
			y->rm_sw[topo_link(t, prev->l[j])->from] = 1;
		/* so is the next link of every accepted path with this root */
		for (uint32_t q = 0; q < y->na; q++)
			if (y->a[q].len > i &&
			    !memcmp(y->a[q].l, prev->l, i * sizeof(uint32_t)))
				y->rm_link[y->a[q].l[i] - y->first] = 1;
		bfs_to(t, sb, y->rm_sw, y->rm_link, spur, &y->s);
		if (y->s.dist[spur] == UINT32_MAX)
			continue;
		c.len = i + y->s.dist[spur];
		c.l = malloc((c.len ? c.len : 1) * sizeof(*c.l));
		if (!c.l)
			return -1;
		memcpy(c.l, prev->l, i * sizeof(uint32_t));
		greedy(y, spur, c.l + i);
		if (known(y->b, y->nb, &c) || known(y->a, y->na, &c)) {
			free(c.l);
			continue;
		}
		if (y->nb == y->capb) {
			uint32_t nc = y->capb ? 2 * y->capb : 16;
			struct kpath *nbp = realloc(y->b, nc * sizeof(*nbp));

			if (!nbp) {
				free(c.l);
				return -1;
			}
			y->b = nbp;
			y->capb = nc;
		}
		y->b[y->nb++] = c;
	}
	return 0;
}

/* The first K simple paths from SA to SB into y->a (best first).
 * Returns 0, 1 if SB is unreachable, -1 on memory. */
static int yen_run(struct yen *y, uint32_t sa, uint32_t sb, uint32_t k)
{
	const struct topo *t = y->t;
	uint32_t S = topo_num_switches(t);

	y->first = topo_first_switch_link(t);
	y->rm_sw = calloc(S ? S : 1, 1);
	y->rm_link = calloc(topo_num_links(t) - y->first + 1, 1);
	y->a = calloc(k, sizeof(*y->a));
	if (scratch_init(&y->s, S) || !y->rm_sw || !y->rm_link || !y->a)
		return -1;
	bfs_to(t, sb, NULL, NULL, sa, &y->s);
	if (y->s.dist[sa] == UINT32_MAX)
		return 1;
	y->a[0].len = y->s.dist[sa];
	y->a[0].l = malloc((y->a[0].len ? y->a[0].len : 1) * sizeof(uint32_t));
	if (!y->a[0].l)
		return -1;
	greedy(y, sa, y->a[0].l);
	y->na = 1;
	while (y->na < k) {
		uint32_t best = 0;

		if (yen_spurs(y, sb))
			return -1;
		if (!y->nb)
			break;
		for (uint32_t i = 1; i < y->nb; i++)
			if (kpath_cmp(&y->b[i], &y->b[best]) < 0)
				best = i;
		y->a[y->na++] = y->b[best];
		y->b[best] = y->b[--y->nb];
	}
	return 0;
}

static int ksp_init(struct routing *r, const struct topo_args *args,
		    struct err *err)
{
	long k;

	if (targ_int(args, "k", 1, KSP_MAX_K, &k, err))
		return -1;
	r->opt[0] = k;
	return 0;
}

static int ksp_paths(const struct routing *r, uint32_t src, uint32_t dst,
		     struct pathset *out, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t sa = topo_node_switch(t, src), sb = topo_node_switch(t, dst);
	struct yen y = { .t = t };
	uint32_t *buf = NULL;
	int rc = yen_run(&y, sa, sb, (uint32_t)r->opt[0]);

	if (rc > 0) {
		rc = routing_unreachable(t, "ksp", sa, sb, err);
		goto out;
	}
	if (rc < 0)
		goto nomem;
	for (uint32_t i = 0; i < y.na; i++) {
		uint32_t *nb = realloc(buf, (y.a[i].len + 2) * sizeof(*buf));

		if (!nb)
			goto nomem;
		buf = nb;
		buf[0] = topo_inject_link(t, src);
		memcpy(buf + 1, y.a[i].l, y.a[i].len * sizeof(*buf));
		buf[y.a[i].len + 1] = topo_eject_link(t, dst);
		if (pathset_add(out, buf, y.a[i].len + 2, PATH_MIN))
			goto nomem;
	}
	goto out;
nomem:
	rc = err_nomem(err, "out of memory");
out:
	free(buf);
	yen_free(&y);
	return rc;
}

static const struct spec_opt ksp_opts[] = {
	{ .key = "k", .def = "4", .help = "paths per switch pair" },
	{ 0 },
};

const struct routing_ops routing_shortest = {
	.name = "shortest",
	.multipath = true,
	.switch_paths = true,
	.applies = any_family,
	.paths = shortest_paths,
	.count = shortest_count,
	.linkset = shortest_linkset,
};

const struct routing_ops routing_ksp = {
	.name = "ksp",
	.opts = ksp_opts,
	.multipath = true,
	.switch_paths = true,
	.applies = any_family,
	.init = ksp_init,
	.paths = ksp_paths,
};
