/* ugal_tpl.c - the templates of paper 002's UGAL-G Models 0-5 from the
 * dragonfly / Cascade structure (see ugal_tpl.h).
 *
 * The structure is rebuilt here from the public topology (topo.h) with
 * routing_dragonfly.c's definitions, which tests/unit/test_ugal.c checks
 * against routing_paths flow by flow:
 *   local(x -> y)  every shortest path over the links inside the group;
 *   MIN(x -> y)    local(x -> y) in one group; otherwise, for every global
 *                  link u -> v from x's group to y's, local(x -> u), the
 *                  link, local(v -> y);
 *   VLB(s -> d)    MIN(s -> I) + MIN(I -> d) for every intermediate I:
 *                  the switches outside both groups, or, for a flow inside
 *                  one group with intra=local, the group's other routers.
 * Per group, the local distances, path counts and the local paths
 * themselves (a few short ones: Cascade has at most two 2-hop paths per
 * router pair) are tabulated once.  A MIN half is then described by its
 * path count per hop count and a list of (hops, link, crossings) entries,
 * and a flow's grouped columns are sums of products of two halves per
 * intermediate, accumulated in dense per-group arrays (touched lists keep
 * the reset cheap). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/ugal_tpl.h"
#include "topo/util/par.h"
#include "topo/util/spec.h"

static void ufac_free(struct ugal_fac *u);

#define UNREACH 255
#define MAX_DIAM 30		    /* local diameter; keeps hops < 255 */
#define HMAX (2 * MAX_DIAM + 2)	    /* hop counts of a MIN half */
#define MAX_LOCAL ((size_t)1 << 27) /* links of all local paths */
#define MAX_PAIRS \
	((size_t)1 << 24) /* router pairs inside groups; also
				     * switch pairs of a factored template
				     * (S <= 4096: ids fit uint16_t) */

/* The structure of a dragonfly or Cascade seen by the UGAL models. */
struct unet {
	const struct topo *t;
	bool intra_global;
	uint32_t S, G, L;
	uint32_t *grp;	   /* [S] group of each switch */
	uint32_t *mem_off; /* [G+1] */
	uint32_t *mem;	   /* [S] switches by group, ascending */
	uint32_t *idx;	   /* [S] index within its group */
	size_t *mat_off;   /* [G] start of the group's pair tables */
	uint8_t *dist;	   /* local hop distance of a pair, UNREACH */
	double *np;	   /* local shortest paths of a pair */
	size_t *lp_off;	   /* [pairs+1] links of a pair's local paths,
			    * path after path (each dist links) */
	uint32_t *lp_link;
	uint32_t *gl_off; /* [G*G+1] global links by (from, to) group */
	uint32_t *gl;
	uint32_t maxhalf; /* most hops of a MIN half */
};

/* ---- the structure ---- */

static size_t pidx(const struct unet *n, uint32_t x, uint32_t y)
{
	uint32_t g = n->grp[x];
	size_t a = n->mem_off[g + 1] - n->mem_off[g];

	return n->mat_off[g] + (size_t)n->idx[x] * a + n->idx[y];
}

static void unet_free(struct unet *n)
{
	if (!n)
		return;
	free(n->grp);
	free(n->mem_off);
	free(n->mem);
	free(n->idx);
	free(n->mat_off);
	free(n->dist);
	free(n->np);
	free(n->lp_off);
	free(n->lp_link);
	free(n->gl_off);
	free(n->gl);
	free(n);
}

/* Group membership, and where each group's pair tables start. */
static int build_groups(struct unet *n, struct err *err)
{
	const struct topo *t = n->t;
	size_t pairs = 0;
	uint32_t *pos;

	n->grp = malloc(((size_t)n->S + 1) * sizeof(*n->grp));
	n->mem_off = calloc((size_t)n->G + 1, sizeof(*n->mem_off));
	n->mem = malloc(((size_t)n->S + 1) * sizeof(*n->mem));
	n->idx = malloc(((size_t)n->S + 1) * sizeof(*n->idx));
	n->mat_off = malloc(((size_t)n->G + 1) * sizeof(*n->mat_off));
	if (!n->grp || !n->mem_off || !n->mem || !n->idx || !n->mat_off)
		return err_nomem(err, "out of memory");
	for (uint32_t s = 0; s < n->S; s++) {
		n->grp[s] = topo_switch_group(t, s);
		if (n->grp[s] >= n->G)
			return err_set(err, "switch %u has no group", s);
		n->mem_off[n->grp[s] + 1]++;
	}
	for (uint32_t g = 0; g < n->G; g++) {
		size_t a = n->mem_off[g + 1]; /* still the group's size */

		n->mat_off[g] = pairs;
		pairs += a * a;
		if (pairs > MAX_PAIRS)
			return err_set(err,
				       "groups too large for the UGAL "
				       "models (%zu router pairs)",
				       pairs);
		n->mem_off[g + 1] += n->mem_off[g];
	}
	n->mat_off[n->G] = pairs;
	pos = malloc(((size_t)n->G + 1) * sizeof(*pos));
	if (!pos)
		return err_nomem(err, "out of memory");
	memcpy(pos, n->mem_off, ((size_t)n->G + 1) * sizeof(*pos));
	for (uint32_t s = 0; s < n->S; s++) {
		uint32_t g = n->grp[s];

		n->idx[s] = pos[g] - n->mem_off[g];
		n->mem[pos[g]++] = s;
	}
	free(pos);
	return 0;
}

/* Local distances and path counts from router X of group G (BFS over the
 * links inside the group). */
static int bfs(struct unet *n, uint32_t g, uint32_t x, uint32_t *queue,
	       struct err *err)
{
	const struct topo *t = n->t;
	size_t row = pidx(n, x, x) - n->idx[x];
	uint32_t head = 0, tail = 0;

	n->dist[row + n->idx[x]] = 0;
	n->np[row + n->idx[x]] = 1;
	queue[tail++] = x;
	while (head < tail) {
		uint32_t u = queue[head++], cnt;
		uint32_t first = topo_switch_out(t, u, &cnt);
		uint8_t du = n->dist[row + n->idx[u]];

		for (uint32_t l = first; l < first + cnt; l++) {
			uint32_t z = topo_link(t, l)->to;
			size_t iz = row + n->idx[z];

			if (n->grp[z] != g)
				continue;
			if (n->dist[iz] == UNREACH) {
				if (du + 1 > MAX_DIAM)
					return err_set(err,
						       "group %u: local "
						       "diameter above %d",
						       g, MAX_DIAM);
				n->dist[iz] = (uint8_t)(du + 1);
				queue[tail++] = z;
			}
			if (n->dist[iz] == du + 1)
				n->np[iz] += n->np[row + n->idx[u]];
		}
	}
	return 0;
}

/* Append every local shortest path X -> Y of group G (links only, each
 * after the prefix buf[0..len)) at *out. */
static void walk(const struct unet *n, uint32_t g, uint32_t x, uint32_t y,
		 uint32_t *buf, uint32_t len, uint32_t **out)
{
	const struct topo *t = n->t;
	uint32_t cnt, first;
	uint8_t dx = n->dist[pidx(n, x, y)];

	if (x == y) {
		if (len)
			memcpy(*out, buf, len * sizeof(*buf));
		*out += len;
		return;
	}
	first = topo_switch_out(t, x, &cnt);
	for (uint32_t l = first; l < first + cnt; l++) {
		uint32_t z = topo_link(t, l)->to;

		if (n->grp[z] != g || n->dist[pidx(n, z, y)] != dx - 1)
			continue;
		buf[len] = l;
		walk(n, g, z, y, buf, len + 1, out);
	}
}

static int build_local(struct unet *n, struct err *err)
{
	size_t pairs = n->mat_off[n->G], total = 0;
	uint32_t *queue, maxdiam = 0;

	n->dist = malloc(pairs ? pairs : 1);
	n->np = calloc(pairs ? pairs : 1, sizeof(*n->np));
	n->lp_off = malloc((pairs + 1) * sizeof(*n->lp_off));
	queue = malloc(((size_t)n->S + 1) * sizeof(*queue));
	if (!n->dist || !n->np || !n->lp_off || !queue) {
		free(queue);
		return err_nomem(err, "out of memory");
	}
	memset(n->dist, UNREACH, pairs ? pairs : 1);
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t k = n->mem_off[g]; k < n->mem_off[g + 1]; k++)
			if (bfs(n, g, n->mem[k], queue, err)) {
				free(queue);
				return -1;
			}
	free(queue);
	for (size_t p = 0; p < pairs; p++) {
		n->lp_off[p] = total;
		if (n->dist[p] == UNREACH)
			continue;
		if (n->dist[p] > maxdiam)
			maxdiam = n->dist[p];
		if (n->np[p] * n->dist[p] > (double)MAX_LOCAL ||
		    total + (size_t)(n->np[p] * n->dist[p]) > MAX_LOCAL)
			return err_range(err, "too many local shortest paths "
					      "inside the groups");
		total += (size_t)(n->np[p] * n->dist[p]);
	}
	n->lp_off[pairs] = total;
	n->lp_link = malloc((total ? total : 1) * sizeof(*n->lp_link));
	if (!n->lp_link)
		return err_nomem(err, "out of memory");
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t i = n->mem_off[g]; i < n->mem_off[g + 1]; i++)
			for (uint32_t j = n->mem_off[g]; j < n->mem_off[g + 1];
			     j++) {
				uint32_t x = n->mem[i], y = n->mem[j];
				uint32_t buf[MAX_DIAM + 1];
				size_t p = pidx(n, x, y);
				uint32_t *out = n->lp_link + n->lp_off[p];

				if (n->dist[p] != UNREACH)
					walk(n, g, x, y, buf, 0, &out);
			}
	n->maxhalf = 2 * maxdiam + 1;
	return 0;
}

static int build_global(struct unet *n, struct err *err)
{
	const struct topo *t = n->t;
	size_t nb = (size_t)n->G * n->G;
	uint32_t *pos, ng = 0;

	n->gl_off = calloc(nb + 1, sizeof(*n->gl_off));
	if (!n->gl_off)
		return err_nomem(err, "out of memory");
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < n->S; s++) {
			uint32_t cnt, first = topo_switch_out(t, s, &cnt);

			for (uint32_t l = first; l < first + cnt; l++) {
				uint32_t z = topo_link(t, l)->to;
				size_t b = (size_t)n->grp[s] * n->G + n->grp[z];

				if (n->grp[z] == n->grp[s])
					continue;
				if (pass == 0)
					n->gl_off[b + 1]++;
				else
					n->gl[pos[b]++] = l;
			}
		}
		if (pass == 1)
			break;
		for (size_t b = 0; b < nb; b++)
			n->gl_off[b + 1] += n->gl_off[b];
		ng = n->gl_off[nb];
		n->gl = malloc(((size_t)ng + 1) * sizeof(*n->gl));
		pos = malloc((nb + 1) * sizeof(*pos));
		if (!n->gl || !pos) {
			free(pos);
			return err_nomem(err, "out of memory");
		}
		memcpy(pos, n->gl_off, (nb + 1) * sizeof(*pos));
	}
	free(pos);
	return 0;
}

int ugal_check(const struct routing *r, struct err *err)
{
	const struct topo *t;

	if (!r)
		return err_set(err, "no routing");
	t = routing_topo(r);
	if (!topo_behaves_traits(t)->groups)
		return err_set(err,
			       "needs a dragonfly or cascade topology, not "
			       "%s",
			       topo_family(t));
	if (strcmp(routing_name(r), "ugal"))
		return err_set(err, "needs routing ugal, not %s",
			       routing_name(r));
	return 0;
}

static struct unet *unet_create(const struct routing *r, struct err *err)
{
	static const struct spec_syntax syn = { SPEC_BLANKS, "option" };
	struct unet *n;
	struct spec s;
	const char *intra;

	if (ugal_check(r, err))
		return NULL;
	if (spec_parse(routing_spec(r), &syn, &s, err))
		return NULL;
	intra = spec_given(&s, "intra");
	n = calloc(1, sizeof(*n));
	if (!n) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	n->t = routing_topo(r);
	n->intra_global = intra && !strcmp(intra, "global");
	n->S = topo_num_switches(n->t);
	n->G = topo_num_groups(n->t);
	n->L = topo_num_links(n->t);
	if (n->G == 0 || n->G > 65535) {
		err_set(err, "%u groups: not a dragonfly", n->G);
		unet_free(n);
		return NULL;
	}
	if (build_groups(n, err) || build_local(n, err) ||
	    build_global(n, err)) {
		unet_free(n);
		return NULL;
	}
	return n;
}

/* Global links from group A to group B: *cnt ids from the result. */
static const uint32_t *glinks(const struct unet *n, uint32_t a, uint32_t b,
			      uint32_t *cnt)
{
	size_t k = (size_t)a * n->G + b;

	*cnt = n->gl_off[k + 1] - n->gl_off[k];
	return n->gl + n->gl_off[k];
}

/* Does group G hold intermediates of the VLB paths s -> d (every switch
 * of G but s and d)?  Those of a flow inside one group with intra=local
 * are the group's other routers; otherwise the switches outside the
 * source and destination groups (routing.h). */
static bool inter_group(const struct unet *n, uint32_t s, uint32_t d,
			uint32_t g)
{
	uint32_t gs = n->grp[s], gd = n->grp[d];

	if (gs == gd && !n->intra_global)
		return g == gs;
	return g != gs && g != gd;
}

/* ---- MIN halves ---- */

/* MIN(x -> y) by hops: n[h] paths of h hops and, when entries are kept,
 * (hop, link, w): the paths of `hop` hops cross `link` w times in all. */
struct half {
	double n[HMAX];
	uint32_t len, cap;
	uint8_t *hop;
	uint32_t *link;
	double *w;
};

static void half_free(struct half *h)
{
	free(h->hop);
	free(h->link);
	free(h->w);
	memset(h, 0, sizeof(*h));
}

static int half_add(struct half *h, uint32_t hop, uint32_t link, double w)
{
	if (h->len == h->cap) {
		uint32_t nc = h->cap ? 2 * h->cap : 64;
		uint8_t *a = realloc(h->hop, nc);
		uint32_t *b;
		double *c;

		if (!a)
			return -1;
		h->hop = a;
		b = realloc(h->link, nc * sizeof(*b));
		if (!b)
			return -1;
		h->link = b;
		c = realloc(h->w, nc * sizeof(*c));
		if (!c)
			return -1;
		h->w = c;
		h->cap = nc;
	}
	h->hop[h->len] = (uint8_t)hop;
	h->link[h->len] = link;
	h->w[h->len] = w;
	h->len++;
	return 0;
}

/* Add the links of every local path of pair P, each with weight W, at
 * HOP. */
static int half_local(const struct unet *n, struct half *h, size_t p,
		      uint32_t hop, double w)
{
	for (size_t e = n->lp_off[p]; e < n->lp_off[p + 1]; e++)
		if (half_add(h, hop, n->lp_link[e], w))
			return -1;
	return 0;
}

/* Fill H with MIN(x -> y), x != y; entries only when ENT.  Returns 0 or -1
 * (memory). */
static int half_min(const struct unet *n, uint32_t x, uint32_t y,
		    struct half *h, bool ent)
{
	uint32_t gx = n->grp[x], gy = n->grp[y], cnt;
	const uint32_t *gl;

	memset(h->n, 0, (n->maxhalf + 1) * sizeof(h->n[0]));
	h->len = 0;
	if (gx == gy) {
		size_t p = pidx(n, x, y);

		if (n->dist[p] == UNREACH)
			return 0;
		h->n[n->dist[p]] += n->np[p];
		return ent ? half_local(n, h, p, n->dist[p], 1) : 0;
	}
	gl = glinks(n, gx, gy, &cnt);
	for (uint32_t k = 0; k < cnt; k++) {
		const struct topo_link *lk = topo_link(n->t, gl[k]);
		size_t p1 = pidx(n, x, lk->from), p2 = pidx(n, lk->to, y);
		uint32_t hop;
		double n1, n2;

		if (n->dist[p1] == UNREACH || n->dist[p2] == UNREACH)
			continue;
		hop = n->dist[p1] + 1u + n->dist[p2];
		n1 = n->np[p1];
		n2 = n->np[p2];
		h->n[hop] += n1 * n2;
		if (ent && (half_local(n, h, p1, hop, n2) ||
			    half_add(h, hop, gl[k], n1 * n2) ||
			    half_local(n, h, p2, hop, n1)))
			return -1;
	}
	return 0;
}

/* Individual MIN(x -> y) link sequences, x != y: path i is
 * link[off[i] .. off[i+1]). */
struct seqs {
	uint32_t n, cap;
	size_t *off;
	uint32_t *link;
	size_t lcap;
};

static void seqs_free(struct seqs *q)
{
	free(q->off);
	free(q->link);
	memset(q, 0, sizeof(*q));
}

/* Append the concatenation of A[0..na), B[0..nb) and C[0..nc). */
static int seqs_add(struct seqs *q, const uint32_t *a, size_t na,
		    const uint32_t *b, size_t nb, const uint32_t *c, size_t nc)
{
	size_t used = q->n ? q->off[q->n] : 0, len = na + nb + nc;

	if (q->n + 1 >= q->cap) {
		uint32_t ncap = q->cap ? 2 * q->cap : 64;
		size_t *o = realloc(q->off, ((size_t)ncap + 1) * sizeof(*o));

		if (!o)
			return -1;
		q->off = o;
		q->cap = ncap;
		if (!q->n)
			q->off[0] = 0;
	}
	if (used + len > q->lcap) {
		size_t nl = q->lcap ? 2 * q->lcap : 256;
		uint32_t *l;

		while (nl < used + len)
			nl *= 2;
		l = realloc(q->link, nl * sizeof(*l));
		if (!l)
			return -1;
		q->link = l;
		q->lcap = nl;
	}
	/* memcpy from NULL is undefined even for 0 bytes */
	if (na)
		memcpy(q->link + used, a, na * sizeof(*a));
	if (nb)
		memcpy(q->link + used + na, b, nb * sizeof(*b));
	if (nc)
		memcpy(q->link + used + na + nb, c, nc * sizeof(*c));
	q->off[++q->n] = used + len;
	return 0;
}

static int min_seqs(const struct unet *n, uint32_t x, uint32_t y,
		    struct seqs *q)
{
	uint32_t gx = n->grp[x], gy = n->grp[y], cnt;
	const uint32_t *gl;

	q->n = 0;
	if (gx == gy) {
		size_t p = pidx(n, x, y), d = n->dist[p];

		if (d == UNREACH)
			return 0;
		for (size_t k = 0; k < (size_t)n->np[p]; k++)
			if (seqs_add(q, n->lp_link + n->lp_off[p] + k * d, d,
				     NULL, 0, NULL, 0))
				return -1;
		return 0;
	}
	gl = glinks(n, gx, gy, &cnt);
	for (uint32_t k = 0; k < cnt; k++) {
		const struct topo_link *lk = topo_link(n->t, gl[k]);
		size_t p1 = pidx(n, x, lk->from), p2 = pidx(n, lk->to, y);
		size_t d1 = n->dist[p1], d2 = n->dist[p2];

		if (d1 == UNREACH || d2 == UNREACH)
			continue;
		/* path k1 of a pair starts at lp_off + k1 * dist (a pair
		 * x, x has one path of no link) */
		for (size_t k1 = 0; k1 < (size_t)n->np[p1]; k1++)
			for (size_t k2 = 0; k2 < (size_t)n->np[p2]; k2++)
				if (seqs_add(q,
					     n->lp_link + n->lp_off[p1] +
						     k1 * d1,
					     d1, gl + k, 1,
					     n->lp_link + n->lp_off[p2] +
						     k2 * d2,
					     d2))
					return -1;
	}
	return 0;
}

/* ---- the template under construction ---- */

struct tb {
	uint32_t ngroups, gcap;
	size_t nent, ecap;
	double *mult;
	uint8_t *cls, *hops;
	uint32_t *col_off;
	uint32_t *col_link;
	double *col_cnt;
	double paths;
};

static int tb_group(struct tb *b, double mult, uint8_t cls, uint8_t hops)
{
	if (b->ngroups + 1 >= b->gcap) {
		uint32_t nc = b->gcap ? 2 * b->gcap : 1024;
		double *m = realloc(b->mult, nc * sizeof(*m));
		uint8_t *c, *h;
		uint32_t *o;

		if (!m)
			return -1;
		b->mult = m;
		c = realloc(b->cls, nc);
		if (!c)
			return -1;
		b->cls = c;
		h = realloc(b->hops, nc);
		if (!h)
			return -1;
		b->hops = h;
		o = realloc(b->col_off, ((size_t)nc + 1) * sizeof(*o));
		if (!o)
			return -1;
		b->col_off = o;
		b->gcap = nc;
	}
	if (b->ngroups == UINT32_MAX - 1)
		return -1;
	b->mult[b->ngroups] = mult;
	b->cls[b->ngroups] = cls;
	b->hops[b->ngroups] = hops;
	b->col_off[b->ngroups] = (uint32_t)b->nent;
	b->ngroups++;
	b->paths += mult;
	return 0;
}

static int tb_entry(struct tb *b, uint32_t link, double cnt)
{
	if (b->nent == b->ecap) {
		size_t nc = b->ecap ? 2 * b->ecap : 4096;
		uint32_t *l;
		double *c;

		if (nc >= UINT32_MAX)
			return -1;
		l = realloc(b->col_link, nc * sizeof(*l));
		if (!l)
			return -1;
		b->col_link = l;
		c = realloc(b->col_cnt, nc * sizeof(*c));
		if (!c)
			return -1;
		b->col_cnt = c;
		b->ecap = nc;
	}
	b->col_link[b->nent] = link;
	b->col_cnt[b->nent] = cnt;
	b->nent++;
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* One group of a single path of LEN links (duplicates merged). */
static int tb_path(struct tb *b, uint32_t *links, size_t len, uint8_t cls,
		   uint8_t hops)
{
	qsort(links, len, sizeof(*links), cmp_u32);
	if (tb_group(b, 1, cls, hops))
		return -1;
	for (size_t i = 0; i < len;) {
		size_t j = i;

		while (j < len && links[j] == links[i])
			j++;
		if (tb_entry(b, links[i], (double)(j - i)))
			return -1;
		i = j;
	}
	return 0;
}

/* Per-flow accumulators: slot (class, hops) or (class, all), each a dense
 * column over the links with the list of links touched. */
struct acc {
	uint32_t L, per_cls; /* slots per class: hops 0..2*maxhalf, all */
	double mult[2 * (2 * HMAX + 1)];
	double *col[2 * (2 * HMAX + 1)];
	uint32_t *touched[2 * (2 * HMAX + 1)];
	uint32_t nt[2 * (2 * HMAX + 1)];
};

static void acc_free(struct acc *a)
{
	for (uint32_t s = 0; s < 2 * a->per_cls; s++) {
		free(a->col[s]);
		free(a->touched[s]);
	}
}

static uint32_t slot(const struct acc *a, enum path_class cls,
		     enum ugal_ctl ctl, uint32_t hops)
{
	return (uint32_t)cls * a->per_cls +
	       (ctl == UGAL_CTL_ALL ? a->per_cls - 1 : hops);
}

static int acc_add(struct acc *a, uint32_t s, uint32_t link, double w)
{
	if (!a->col[s]) {
		a->col[s] = calloc(a->L, sizeof(double));
		a->touched[s] = malloc((size_t)a->L * sizeof(uint32_t));
		if (!a->col[s] || !a->touched[s])
			return -1;
	}
	if (a->col[s][link] == 0)
		a->touched[s][a->nt[s]++] = link;
	a->col[s][link] += w;
	return 0;
}

/* Emit slot S as a group (plus the injection and ejection links of its
 * paths) and clear it. */
static int acc_emit(struct acc *a, uint32_t s, struct tb *b, uint32_t inj,
		    uint32_t ej, uint8_t cls, uint8_t hops)
{
	double m = a->mult[s];

	if (m <= 0)
		return 0;
	if (acc_add(a, s, inj, m) || acc_add(a, s, ej, m) ||
	    tb_group(b, m, cls, hops))
		return -1;
	qsort(a->touched[s], a->nt[s], sizeof(uint32_t), cmp_u32);
	for (uint32_t k = 0; k < a->nt[s]; k++) {
		uint32_t l = a->touched[s][k];

		if (tb_entry(b, l, a->col[s][l]))
			return -1;
		a->col[s][l] = 0;
	}
	a->nt[s] = 0;
	a->mult[s] = 0;
	return 0;
}

/* Emit every slot of class CLS, by ascending hops, then the "all" one. */
static int acc_emit_class(struct acc *a, enum path_class cls, struct tb *b,
			  uint32_t inj, uint32_t ej)
{
	for (uint32_t h = 0; h < a->per_cls; h++)
		if (acc_emit(a, (uint32_t)cls * a->per_cls + h, b, inj, ej,
			     (uint8_t)cls,
			     h == a->per_cls - 1 ? UGAL_HOPS_ANY : (uint8_t)h))
			return -1;
	return 0;
}

/* ---- per flow ---- */

struct work {
	const struct unet *n;
	enum ugal_ctl min, vlb;
	struct half h1, h2;
	struct seqs q1, q2;
	bool factored; /* VLB groups: mult, injection and ejection only */
	uint32_t *buf;
	size_t bufcap;
	struct acc acc;
};

/* Room for LEN links in w->buf. */
static int buf_room(struct work *w, size_t len)
{
	if (len > w->bufcap) {
		uint32_t *p = realloc(w->buf, len * sizeof(*p));

		if (!p)
			return -1;
		w->buf = p;
		w->bufcap = len;
	}
	return 0;
}

/* A path inj + A + B + ej as its own group. */
static int path_group(struct work *w, struct tb *b, uint32_t inj, uint32_t ej,
		      const uint32_t *a, size_t na, const uint32_t *c,
		      size_t nc, enum path_class cls)
{
	if (buf_room(w, na + nc + 2))
		return -1;
	w->buf[0] = inj;
	if (na)
		memcpy(w->buf + 1, a, na * sizeof(*a));
	if (nc)
		memcpy(w->buf + 1 + na, c, nc * sizeof(*c));
	w->buf[1 + na + nc] = ej;
	return tb_path(b, w->buf, na + nc + 2, (uint8_t)cls,
		       (uint8_t)(na + nc));
}

/* The MIN groups of s -> d (distinct switches). */
static int min_groups(struct work *w, struct tb *b, uint32_t s, uint32_t d,
		      uint32_t inj, uint32_t ej)
{
	struct acc *a = &w->acc;

	if (w->min == UGAL_CTL_PATH) {
		if (min_seqs(w->n, s, d, &w->q1))
			return -1;
		for (uint32_t i = 0; i < w->q1.n; i++)
			if (path_group(w, b, inj, ej, w->q1.link + w->q1.off[i],
				       w->q1.off[i + 1] - w->q1.off[i], NULL, 0,
				       PATH_MIN))
				return -1;
		return 0;
	}
	if (half_min(w->n, s, d, &w->h1, true))
		return -1;
	for (uint32_t h = 0; h <= w->n->maxhalf; h++)
		a->mult[slot(a, PATH_MIN, w->min, h)] += w->h1.n[h];
	for (uint32_t k = 0; k < w->h1.len; k++)
		if (acc_add(a, slot(a, PATH_MIN, w->min, w->h1.hop[k]),
			    w->h1.link[k], w->h1.w[k]))
			return -1;
	return acc_emit_class(a, PATH_MIN, b, inj, ej);
}

/* Add the VLB paths through one intermediate (halves h1 = s -> I and
 * h2 = I -> d) to the slots. */
static int vlb_through(struct work *w)
{
	struct acc *a = &w->acc;
	const struct half *A = &w->h1, *B = &w->h2;
	uint32_t la[HMAX], lb[HMAX], na = 0, nb = 0;
	double ta = 0, tb = 0;

	for (uint32_t h = 0; h <= w->n->maxhalf; h++) {
		if (A->n[h] > 0) {
			la[na++] = h;
			ta += A->n[h];
		}
		if (B->n[h] > 0) {
			lb[nb++] = h;
			tb += B->n[h];
		}
	}
	if (!na || !nb)
		return 0;
	if (w->factored) { /* the links are the operator's (ufac) */
		for (uint32_t i = 0; i < na; i++)
			for (uint32_t j = 0; j < nb; j++)
				a->mult[slot(a, PATH_VLB, w->vlb,
					     la[i] + lb[j])] +=
					A->n[la[i]] * B->n[lb[j]];
		return 0;
	}
	if (w->vlb == UGAL_CTL_ALL) {
		uint32_t s = slot(a, PATH_VLB, UGAL_CTL_ALL, 0);

		a->mult[s] += ta * tb;
		for (uint32_t k = 0; k < A->len; k++)
			if (acc_add(a, s, A->link[k], A->w[k] * tb))
				return -1;
		for (uint32_t k = 0; k < B->len; k++)
			if (acc_add(a, s, B->link[k], ta * B->w[k]))
				return -1;
		return 0;
	}
	for (uint32_t i = 0; i < na; i++)
		for (uint32_t j = 0; j < nb; j++)
			a->mult[slot(a, PATH_VLB, UGAL_CTL_HOPS,
				     la[i] + lb[j])] +=
				A->n[la[i]] * B->n[lb[j]];
	for (uint32_t k = 0; k < A->len; k++)
		for (uint32_t j = 0; j < nb; j++)
			if (acc_add(a,
				    slot(a, PATH_VLB, UGAL_CTL_HOPS,
					 A->hop[k] + lb[j]),
				    A->link[k], A->w[k] * B->n[lb[j]]))
				return -1;
	for (uint32_t k = 0; k < B->len; k++)
		for (uint32_t i = 0; i < na; i++)
			if (acc_add(a,
				    slot(a, PATH_VLB, UGAL_CTL_HOPS,
					 la[i] + B->hop[k]),
				    B->link[k], A->n[la[i]] * B->w[k]))
				return -1;
	return 0;
}

/* The VLB groups of s -> d (distinct switches). */
static int vlb_groups(struct work *w, struct tb *b, uint32_t s, uint32_t d,
		      uint32_t inj, uint32_t ej)
{
	const struct unet *n = w->n;

	for (uint32_t k = 0; k < n->S; k++) {
		uint32_t i = n->mem[k], g = n->grp[i];

		if (!inter_group(n, s, d, g)) {
			k = n->mem_off[g + 1] - 1; /* skip the group */
			continue;
		}
		if (i == s || i == d)
			continue;
		if (w->vlb == UGAL_CTL_PATH) {
			if (min_seqs(n, s, i, &w->q1) ||
			    min_seqs(n, i, d, &w->q2))
				return -1;
			for (uint32_t x = 0; x < w->q1.n; x++)
				for (uint32_t y = 0; y < w->q2.n; y++)
					if (path_group(
						    w, b, inj, ej,
						    w->q1.link + w->q1.off[x],
						    w->q1.off[x + 1] -
							    w->q1.off[x],
						    w->q2.link + w->q2.off[y],
						    w->q2.off[y + 1] -
							    w->q2.off[y],
						    PATH_VLB))
						return -1;
			continue;
		}
		if (half_min(n, s, i, &w->h1, !w->factored) ||
		    half_min(n, i, d, &w->h2, !w->factored) || vlb_through(w))
			return -1;
	}
	return w->vlb == UGAL_CTL_PATH ?
		       0 :
		       acc_emit_class(&w->acc, PATH_VLB, b, inj, ej);
}

/* Groups of a control over path counts by hop H[0..nh). */
static double ngroups_of(enum ugal_ctl ctl, const double *h, uint32_t nh)
{
	double sum = 0, distinct = 0;

	for (uint32_t k = 0; k < nh; k++) {
		sum += h[k];
		distinct += h[k] > 0;
	}
	return ctl == UGAL_CTL_PATH ? sum :
	       ctl == UGAL_CTL_HOPS ? distinct :
				      (sum > 0);
}

/* Number of groups of flow s -> d (distinct switches), closed form. */
static int count_flow(struct work *w, uint32_t s, uint32_t d, double *groups)
{
	const struct unet *n = w->n;
	double vh[2 * HMAX] = { 0 };

	if (half_min(n, s, d, &w->h1, false))
		return -1;
	*groups = ngroups_of(w->min, w->h1.n, n->maxhalf + 1);
	for (uint32_t k = 0; k < n->S; k++) {
		uint32_t i = n->mem[k], g = n->grp[i];

		if (!inter_group(n, s, d, g)) {
			k = n->mem_off[g + 1] - 1; /* skip the group */
			continue;
		}
		if (i == s || i == d)
			continue;
		if (half_min(n, s, i, &w->h1, false) ||
		    half_min(n, i, d, &w->h2, false))
			return -1;
		for (uint32_t x = 0; x <= n->maxhalf; x++)
			if (w->h1.n[x] > 0)
				for (uint32_t y = 0; y <= n->maxhalf; y++)
					vh[x + y] += w->h1.n[x] * w->h2.n[y];
	}
	*groups += ngroups_of(w->vlb, vh, 2 * n->maxhalf + 1);
	return 0;
}

static int check_flow(const struct topo *t, const struct flows *f, uint32_t i,
		      struct err *err)
{
	uint32_t nn = topo_num_nodes(t);

	if (f->src[i] >= nn || f->dst[i] >= nn)
		return err_set(err, "flow %u: node %u out of range (%u nodes)",
			       i, f->src[i] >= nn ? f->src[i] : f->dst[i], nn);
	if (f->src[i] == f->dst[i])
		return err_set(err, "flow %u: self-flow at node %u", i,
			       f->src[i]);
	if (!(f->demand[i] > 0))
		return err_set(err, "flow %u: demand %g is not positive", i,
			       f->demand[i]);
	return 0;
}

static int work_init(struct work *w, const struct unet *n, unsigned model,
		     struct err *err)
{
	memset(w, 0, sizeof(*w));
	w->n = n;
	if (ugal_control(model, &w->min, &w->vlb))
		return err_set(err, "no UGAL model %u (0..5)", model);
	w->acc.L = n->L;
	w->acc.per_cls = 2 * n->maxhalf + 2;
	return 0;
}

static void work_free(struct work *w)
{
	half_free(&w->h1);
	half_free(&w->h2);
	seqs_free(&w->q1);
	seqs_free(&w->q2);
	free(w->buf);
	acc_free(&w->acc);
}

/* Closed-form columns with the structure N built. */
static int count_all(const struct unet *n, const struct flows *f,
		     unsigned model, uint64_t *cols, struct err *err)
{
	const struct topo *t = n->t;
	struct work w;
	double total = 1; /* alpha */
	int rc = -1;

	if (work_init(&w, n, model, err))
		return -1;
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s, d;
		double g;

		if (check_flow(t, f, i, err))
			goto out;
		s = topo_node_switch(t, f->src[i]);
		d = topo_node_switch(t, f->dst[i]);
		if (s == d) {
			total += 1;
			continue;
		}
		if (count_flow(&w, s, d, &g)) {
			err_nomem(err, "out of memory");
			goto out;
		}
		if (g == 0) {
			err_set(err, "no path from node %u to node %u",
				f->src[i], f->dst[i]);
			goto out;
		}
		total += g;
	}
	*cols = total >= 1.8e19 ? UINT64_MAX : (uint64_t)total;
	rc = 0;
out:
	work_free(&w);
	return rc;
}

int ugal_control(unsigned model, enum ugal_ctl *min, enum ugal_ctl *vlb)
{
	static const enum ugal_ctl tab[UGAL_NMODELS][2] = {
		{ UGAL_CTL_PATH, UGAL_CTL_PATH },
		{ UGAL_CTL_PATH, UGAL_CTL_HOPS },
		{ UGAL_CTL_PATH, UGAL_CTL_ALL },
		{ UGAL_CTL_HOPS, UGAL_CTL_HOPS },
		{ UGAL_CTL_HOPS, UGAL_CTL_ALL },
		{ UGAL_CTL_ALL, UGAL_CTL_ALL },
	};

	if (model >= UGAL_NMODELS)
		return -1;
	*min = tab[model][0];
	*vlb = tab[model][1];
	return 0;
}

int ugal_tpl_count(const struct routing *r, const struct flows *f,
		   unsigned model, uint64_t *cols, struct err *err)
{
	struct unet *n = unet_create(r, err);
	int rc;

	if (!n)
		return -1;
	rc = count_all(n, f, model, cols, err);
	unet_free(n);
	return rc;
}

void ugal_tpl_free(struct ugal_tpl *tp)
{
	if (!tp)
		return;
	free(tp->cls);
	free(tp->hops);
	free(tp->cap);
	free(tp->demand);
	free(tp->mult);
	free(tp->col_cnt);
	free(tp->flow_off);
	free(tp->col_off);
	free(tp->col_link);
	ufac_free(tp->fac);
	memset(tp, 0, sizeof(*tp));
}

static int build_flows(struct work *w, const struct flows *f, struct tb *b,
		       uint32_t *flow_off, struct err *err)
{
	const struct topo *t = w->n->t;

	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t s = topo_node_switch(t, f->src[i]);
		uint32_t d = topo_node_switch(t, f->dst[i]);
		uint32_t inj = topo_inject_link(t, f->src[i]);
		uint32_t ej = topo_eject_link(t, f->dst[i]);

		flow_off[i] = b->ngroups;
		if (s == d) {
			uint32_t l[2] = { inj, ej };

			/* one 0-hop MIN path */
			if (tb_path(b, l, 2, PATH_MIN,
				    w->min == UGAL_CTL_ALL ? UGAL_HOPS_ANY : 0))
				return err_nomem(err, "out of memory");
			continue;
		}
		if (min_groups(w, b, s, d, inj, ej) ||
		    vlb_groups(w, b, s, d, inj, ej))
			return err_nomem(err,
					 "out of memory (template of %u "
					 "groups)",
					 b->ngroups);
	}
	flow_off[f->n] = b->ngroups;
	return 0;
}

/* ---- the factored VLB columns (ugal_tpl_build_factored) ----
 *
 * M_op x = sum over flows f = s -> d and intermediates I of the halves:
 * the rate x_L of f's VLB group of L hops puts, on the half s -> I of l1
 * hops, sum_l2 x_{l1+l2} N(I,d,l2) (each of its paths is followed by
 * N(I,d,l2) second halves), and on I -> d of l2 hops sum_l1 x_{l1+l2}
 * N(s,I,l1).  The rates of every (x, y, hops) half go to a table H, which
 * is then spread, per global link k = u -> v from x's group to y's, over
 * local(x -> u), k and local(v -> y) (half_min's expansion), and the
 * local pairs' rates over their local paths' links.  M_op' y runs the same
 * steps backwards.
 *
 * The path-count vectors N(x,y,.) take few distinct values (276 over the
 * 331,776 switch pairs of a 6-group Cascade), so they are kept once in a
 * dictionary and a pair holds an index.  The rate a flow puts on a half
 * depends on the other half's vector only: per flow and side, the
 * distinct vectors it uses and each intermediate's index among them are
 * listed once (build_plans), a product convolves the flow's rates with
 * each listed vector, and each (flow, intermediate) costs an HL-wide
 * addition per side.  The adjoint sums the half costs per vector first
 * and convolves once per vector.  An entry of H at a hop count without a
 * path is never read (the spreads read a pair's existing hop counts), so
 * the forward sums are not masked.
 *
 * Order (H is 16 MB on that Cascade; each pass over it costs): forward,
 * the halves I -> d are written as rows of H by destination; then per
 * switch x its row (halves x -> y) is assembled in a buffer from its
 * flows' halves and a column gather, and spread over the global links at
 * once, XB rows of a group together (they share the far pair tables'
 * loads: half the L1 misses of one row at a time).  Adjoint, per switch
 * x the row of costs is built from the links (XB rows together) and
 * priced for the flows from x while in cache; then per destination a
 * column gather prices the halves into it, skipping the rows of the
 * destination's group where no flow into it has an intermediate.  Parts of a product run on
 * threads by group or by switch (run_step).  Cost per product:
 * O(flows x intermediates x HL + flows x distinct vectors x HL x hops +
 * global links x routers^2), with no per-path and no per-column link
 * list. */
#define NONE UINT32_MAX
/* Half hop counts 0..HL-1 with HL = the longest MIN half + 1; the
 * kernels are specialised for HL = PAD, Cascade's (dragonfly: 4).  Padding
 * Cascade's rows to 8 (cache-line rows) was measured 15 % slower: the
 * table is mostly streamed, and 6 of 8 slots carry data. */
#define PAD 6
#define NPART 2 /* parts (threads) of a product */
/* Rows of H a global-link spread takes at once (p_fwd_rows, p_adj_rows):
 * they share the loads of the far pair tables. */
#define XB 4
/* Products on at least this many half-table entries (S^2 HL) run on
 * NPART threads: cascade:groups=2 (the unit tests) and up. */
#define THREAD_CELLS ((size_t)1 << 17)

/* Workspace of the products. */
struct ufac_ws {
	double *tab; /* [nd*HL] per vector of a flow: its rates or costs */
	double *col; /* [XB*S*HL] the halves into one destination, or XB
		     * rows */
};

struct ugal_fac {
	struct unet *n;
	uint32_t S, HL, NL; /* half hop counts 0..HL-1, VLB 0..NL-1 */
	uint32_t nf;
	uint32_t *fs, *fd;  /* [nf] switches of the flows */
	uint32_t *vg;	    /* [nf*NL] group of f's VLB paths of L hops */
	uint32_t nd;	    /* distinct path-count vectors */
	double *dict;	    /* [nd*HL] the vectors */
	uint8_t *dlo, *dhi; /* [nd] first and past-last non-zero hops */
	uint32_t *id;	    /* [S*S] vector of MIN(x -> y), by (x, y) */
	/* Per flow f, its pairs (f, I) ioff[f] .. ioff[f+1]-1: the
	 * intermediates iv, and for side 0 (halves s -> I, weighed by the
	 * vector of I -> d) and side 1 (halves I -> d, by that of s -> I)
	 * lid = the pair's index in the flow's distinct vectors
	 * vl[side][voff[side][f] ..] */
	size_t *ioff;
	uint16_t *iv, *lid[2];
	size_t *voff[2];
	uint32_t *vl[2];
	uint32_t *src_off;  /* [S+1] flows by source switch: */
	uint32_t *by_src;   /* [nf] */
	uint32_t *dst_off;  /* [S+1] flows by destination switch: */
	uint32_t *by_dst;   /* [nf] */
	double *h;	    /* [S*S*HL] half rates or costs, rows by (x, y) */
	double *xis;	    /* [nf*NL] per flow rates or costs by VLB hops */
	uint32_t *poff;	    /* [pairs] of a local pair (v, y): the offset
			     * y HL + dist(v, y) in a row of H, or NONE */
	bool threads;	    /* run the parts of a product on threads */
	bool *inner;	    /* [S] a flow into d has intermediates in d's
			     * group (else column d of H is 0 there) */
	size_t *glv;	    /* [global links] of link u -> v of n->gl:
			     * where v's row of the pair tables starts */
	uint32_t *glu;	    /* [global links] u's index in its group */
	double *rl[NPART];  /* [pairs] per part: local pair rates or costs */
	uint32_t *t2off;    /* [global links + 1] per link of n->gl, an
			     * offset in t2s (room for its far group) */
	double *t2s[NPART]; /* per part, per global link: the far group's
			     * pair rates */
	struct ufac_ws ws[NPART];
};

static void ws_free(struct ufac_ws *w)
{
	free(w->tab);
	free(w->col);
	memset(w, 0, sizeof(*w));
}

static int ws_init(struct ufac_ws *w, uint32_t nd, uint32_t S, uint32_t HL)
{
	memset(w, 0, sizeof(*w));
	w->tab = malloc(((size_t)nd * HL + 1) * sizeof(*w->tab));
	w->col = malloc(((size_t)XB * S * HL + 1) * sizeof(*w->col));
	if (!w->tab || !w->col) {
		ws_free(w);
		return -1;
	}
	return 0;
}

static void ufac_free(struct ugal_fac *u)
{
	if (!u)
		return;
	unet_free(u->n);
	free(u->fs);
	free(u->fd);
	free(u->vg);
	free(u->dict);
	free(u->dlo);
	free(u->dhi);
	free(u->id);
	free(u->ioff);
	free(u->iv);
	for (int k = 0; k < 2; k++) {
		free(u->lid[k]);
		free(u->voff[k]);
		free(u->vl[k]);
	}
	free(u->src_off);
	free(u->by_src);
	free(u->dst_off);
	free(u->by_dst);
	free(u->h);
	free(u->xis);
	free(u->poff);
	free(u->t2off);
	free(u->inner);
	free(u->glv);
	free(u->glu);
	for (uint32_t t = 0; t < NPART; t++) {
		free(u->rl[t]);
		free(u->t2s[t]);
		ws_free(&u->ws[t]);
	}
	free(u);
}

static double *hrow(const struct ugal_fac *u, double *t, uint32_t x, uint32_t y)
{
	return t + ((size_t)x * u->S + y) * u->HL;
}

/* The intermediates of flow F into INTER; returns their number. */
static uint32_t inters(const struct ugal_fac *u, uint32_t f, uint32_t *inter)
{
	const struct unet *n = u->n;
	uint32_t s = u->fs[f], d = u->fd[f], ni = 0;

	for (uint32_t g = 0; g < n->G; g++) {
		if (!inter_group(n, s, d, g))
			continue;
		for (uint32_t k = n->mem_off[g]; k < n->mem_off[g + 1]; k++)
			if (n->mem[k] != s && n->mem[k] != d)
				inter[ni++] = n->mem[k];
	}
	return ni;
}

/* OUT[j] = sum_{k = lo..hi-1} ZETA[j + k] V[k], j < HL: the rates on a
 * half's j hops of the VLB paths whose other half has path counts V. */
static inline void conv(uint32_t HL, const double *restrict zeta,
			const double *restrict v, uint32_t lo, uint32_t hi,
			double *restrict out)
{
	for (uint32_t j = 0; j < HL; j++) {
		double acc = 0;

		for (uint32_t k = lo; k < hi; k++)
			acc += zeta[j + k] * v[k];
		out[j] = acc;
	}
}

/* XI[j + k] += G[j] V[k]: the adjoint of conv. */
static inline void fold(uint32_t HL, double *restrict xi,
			const double *restrict g, const double *restrict v,
			uint32_t lo, uint32_t hi)
{
	for (uint32_t k = lo; k < hi; k++)
		for (uint32_t j = 0; j < HL; j++)
			xi[j + k] += g[j] * v[k];
}

static inline void vadd(uint32_t HL, double *restrict a,
			const double *restrict b)
{
	for (uint32_t j = 0; j < HL; j++)
		a[j] += b[j];
}

/* A column of H is a row per S*HL doubles: hardware prefetchers do not
 * follow that stride, so its gathers fetch AHEAD rows ahead. */
#define AHEAD 8
static inline void prefetch(const double *p)
{
#if defined(__GNUC__)
	__builtin_prefetch(p);
#else
	(void)p;
#endif
}

static inline void vcopy(uint32_t HL, double *restrict a,
			 const double *restrict b)
{
	for (uint32_t j = 0; j < HL; j++)
		a[j] = b[j];
}

static bool any_rate(const struct ugal_fac *u, uint32_t f)
{
	const double *zeta = u->xis + (size_t)f * u->NL;

	for (uint32_t L = 0; L < u->NL; L++)
		if (zeta[L] != 0)
			return true;
	return false;
}

/* Flow F's rate on the halves from (TO_DST false: s -> I) or into (true:
 * I -> d) its intermediates, into ROW[I*HL..] (+=). */
static void fwd_flow(struct ugal_fac *u, struct ufac_ws *w, uint32_t f,
		     bool to_dst, double *row)
{
	uint32_t HL = u->HL;
	const double *zeta = u->xis + (size_t)f * u->NL;
	const uint16_t *iv = u->iv + u->ioff[f], *lid = u->lid[to_dst];
	const uint32_t *vl = u->vl[to_dst] + u->voff[to_dst][f];
	size_t nv = u->voff[to_dst][f + 1] - u->voff[to_dst][f];
	size_t ni = u->ioff[f + 1] - u->ioff[f];

	lid += u->ioff[f];
	for (size_t k = 0; k < nv; k++) {
		uint32_t v = vl[k];
		const double *dv = u->dict + (size_t)v * HL;
		double *t = w->tab + k * HL;

		if (HL == PAD)
			conv(PAD, zeta, dv, u->dlo[v], u->dhi[v], t);
		else
			conv(HL, zeta, dv, u->dlo[v], u->dhi[v], t);
	}
	if (HL == PAD)
		for (size_t j = 0; j < ni; j++)
			vadd(PAD, row + (size_t)iv[j] * PAD,
			     w->tab + (size_t)lid[j] * PAD);
	else
		for (size_t j = 0; j < ni; j++)
			vadd(HL, row + (size_t)iv[j] * HL,
			     w->tab + (size_t)lid[j] * HL);
}

/* fold(PAD, XI, TAB[k], V_k) summed over the NV vectors V_k = dict[VL[k]]
 * of a flow: first by hop k of the vector, P[k][j] = sum V_k[k] TAB[k][j]
 * (whole rows, in place), then shifted into XI once.  Folding each vector
 * into XI directly rereads every XI[j + k] right after an overlapping
 * store, and the stalled store forwarding cost a third of the adjoint's
 * flow step. */
static void fold_pad(const struct ugal_fac *u, const double *tab,
		     const uint32_t *vl, size_t nv, double *restrict xi)
{
	double P[PAD][PAD] = { { 0 } };

	for (size_t k = 0; k < nv; k++) {
		uint32_t v = vl[k];
		const double *g = tab + k * PAD;
		const double *dv = u->dict + (size_t)v * PAD;

		for (uint32_t h = u->dlo[v]; h < u->dhi[v]; h++)
			for (uint32_t j = 0; j < PAD; j++)
				P[h][j] += dv[h] * g[j];
	}
	for (uint32_t h = 0; h < PAD; h++)
		for (uint32_t j = 0; j < PAD; j++)
			xi[j + h] += P[h][j];
}

/* The adjoint of fwd_flow: flow F's costs by VLB hops (+=) from the half
 * costs ROW[I*HL..]. */
static void adj_flow(struct ugal_fac *u, struct ufac_ws *w, uint32_t f,
		     bool to_dst, const double *row)
{
	uint32_t HL = u->HL;
	double *xi = u->xis + (size_t)f * u->NL;
	const uint16_t *iv = u->iv + u->ioff[f], *lid = u->lid[to_dst];
	const uint32_t *vl = u->vl[to_dst] + u->voff[to_dst][f];
	size_t nv = u->voff[to_dst][f + 1] - u->voff[to_dst][f];
	size_t ni = u->ioff[f + 1] - u->ioff[f];

	lid += u->ioff[f];
	memset(w->tab, 0, nv * HL * sizeof(*w->tab));
	if (HL == PAD)
		for (size_t j = 0; j < ni; j++)
			vadd(PAD, w->tab + (size_t)lid[j] * PAD,
			     row + (size_t)iv[j] * PAD);
	else
		for (size_t j = 0; j < ni; j++)
			vadd(HL, w->tab + (size_t)lid[j] * HL,
			     row + (size_t)iv[j] * HL);
	if (HL == PAD) {
		fold_pad(u, w->tab, vl, nv, xi);
		return;
	}
	for (size_t k = 0; k < nv; k++) {
		uint32_t v = vl[k];
		const double *g = w->tab + k * HL;
		const double *dv = u->dict + (size_t)v * HL;

		fold(HL, xi, g, dv, u->dlo[v], u->dhi[v]);
	}
}

/* ROW[I*HL..] = (forward) or -> (ADJ) the halves s -> I of the flows from
 * S: rates are added to ROW, costs read from it. */
static void by_src(struct ugal_fac *u, struct ufac_ws *w, uint32_t s, bool adj,
		   double *row)
{
	for (uint32_t k = u->src_off[s]; k < u->src_off[s + 1]; k++) {
		uint32_t f = u->by_src[k];

		if (adj)
			adj_flow(u, w, f, false, row);
		else if (any_rate(u, f))
			fwd_flow(u, w, f, false, row);
	}
}

/* The halves I -> d of the flows into D.  Forward: their rates into row d
 * of u->h read as by (destination, I) (the forward product's layout).
 * ADJ: their costs from column d of u->h by (x, y). */
static void by_dst(struct ugal_fac *u, struct ufac_ws *w, uint32_t d, bool adj)
{
	const uint32_t *grp = u->n->grp;
	uint32_t S = u->S, HL = u->HL, gd = grp[d];
	double *col = adj ? w->col : hrow(u, u->h, d, 0);
	bool inner = u->inner[d];

	if (!adj)
		memset(col, 0, (size_t)S * HL * sizeof(*col));
	if (u->dst_off[d] == u->dst_off[d + 1])
		return;
	/* the flows' intermediates: no switch of d's group unless inner */
	if (adj && HL == PAD) {
		for (uint32_t i = 0; i < S; i++) {
			prefetch(hrow(u, u->h, i + AHEAD < S ? i + AHEAD : i,
				      d));
			if (inner || grp[i] != gd)
				vcopy(PAD, col + (size_t)i * PAD,
				      hrow(u, u->h, i, d));
		}
	} else if (adj) {
		for (uint32_t i = 0; i < S; i++)
			if (inner || grp[i] != gd)
				vcopy(HL, col + (size_t)i * HL,
				      hrow(u, u->h, i, d));
	}
	for (uint32_t k = u->dst_off[d]; k < u->dst_off[d + 1]; k++) {
		uint32_t f = u->by_dst[k];

		if (adj)
			adj_flow(u, w, f, true, col);
		else if (any_rate(u, f))
			fwd_flow(u, w, f, true, col);
	}
}

/* One global link j = u -> v from the rows' group to group B of NB
 * switches, for K rows (K <= XB: a constant once inlined) whose rates of
 * the halves over j are at R[k][poff] (R[k] at the row's hops to u, + 1):
 * per row its total O1[k] weighted by the far pairs' path counts, and
 * into T[iy] the far pair (v, y)'s rates, summed over the rows.  The
 * rows share the loads of the far pair tables and of T. */
static inline void fwd_link(uint32_t K, uint32_t nb, const uint32_t *poff,
			    const double *npv, const double *const *R,
			    const double *npu, double *o1, double *t)
{
	for (uint32_t k = 0; k < K; k++)
		o1[k] = 0;
	for (uint32_t iy = 0; iy < nb; iy++) {
		uint32_t o = poff[iy];
		double ts = 0;

		if (o == NONE)
			continue;
		for (uint32_t k = 0; k < K; k++) {
			double val = R[k][o];

			o1[k] += npv[iy] * val;
			ts += npu[k] * val;
		}
		t[iy] += ts;
	}
}

/* Spread the rates RS[b][y*HL + hops] of the halves from the NX switches
 * XS (one group's, NX <= XB) over the global links of their group (OUT),
 * the local pairs (RL) and, per global link j, T2[t2off[j] + iy] (for the
 * pairs (v, y) at the far end, added to RL by the caller once all of the
 * group's rows are done). */
static void p_fwd_rows(const struct ugal_fac *u, const uint32_t *xs,
		       uint32_t nx, double *const *RS, double *rl, double *t2,
		       double *out)
{
	const struct unet *n = u->n;
	uint32_t A = n->grp[xs[0]], HL = u->HL;
	size_t px[XB];

	for (uint32_t b = 0; b < nx; b++)
		px[b] = pidx(n, xs[b], xs[b]) - n->idx[xs[b]];
	for (uint32_t B = 0; B < n->G; B++) {
		uint32_t nb = n->mem_off[B + 1] - n->mem_off[B];
		uint32_t j0 = n->gl_off[(size_t)A * n->G + B];
		uint32_t j1 = n->gl_off[(size_t)A * n->G + B + 1];

		if (A == B)
			continue;
		for (uint32_t j = j0; j < j1; j++) {
			size_t pv = u->glv[j], pu[XB];
			const double *r[XB];
			double npu[XB], o1[XB], sum = 0;
			uint32_t K = 0;

			for (uint32_t b = 0; b < nx; b++) {
				size_t p = px[b] + u->glu[j];

				if (n->dist[p] == UNREACH)
					continue;
				pu[K] = p;
				npu[K] = n->np[p];
				r[K++] = RS[b] + n->dist[p] + 1;
			}
			if (K == XB)
				fwd_link(XB, nb, u->poff + pv, n->np + pv, r,
					 npu, o1, t2 + u->t2off[j]);
			else
				fwd_link(K, nb, u->poff + pv, n->np + pv, r,
					 npu, o1, t2 + u->t2off[j]);
			for (uint32_t k = 0; k < K; k++) {
				rl[pu[k]] += o1[k];
				sum += npu[k] * o1[k];
			}
			out[n->gl[j]] += sum;
		}
	}
	for (uint32_t b = 0; b < nx; b++)
		for (uint32_t j = n->mem_off[A]; j < n->mem_off[A + 1]; j++) {
			uint32_t y = n->mem[j];
			size_t p = pidx(n, xs[b], y);

			if (xs[b] != y && n->dist[p] != UNREACH)
				rl[p] += RS[b][(size_t)y * HL + n->dist[p]];
		}
}

/* The forward product's halves from the switches of groups [A0, A1), XB
 * rows at a time (the halves s -> I of their flows and the halves into them, from
 * u->h by destination), spread over OUT's global links and part T's local
 * pair rates u->rl[T]. */
static void fwd_groups(struct ugal_fac *u, uint32_t t, uint32_t A0, uint32_t A1,
		       double *out)
{
	const struct unet *n = u->n;
	struct ufac_ws *w = &u->ws[t];
	uint32_t S = u->S, HL = u->HL, A;
	uint32_t j0 = n->gl_off[(size_t)A0 * n->G];
	uint32_t j1 = n->gl_off[(size_t)A1 * n->G];
	double *t2 = u->t2s[t], *RS[XB];

	memset(t2 + u->t2off[j0], 0,
	       (u->t2off[j1] - u->t2off[j0]) * sizeof(*t2));
	for (uint32_t i = n->mem_off[A0]; i < n->mem_off[A1];) {
		uint32_t nx;

		A = n->grp[n->mem[i]];
		nx = n->mem_off[A + 1] - i < XB ? n->mem_off[A + 1] - i : XB;
		for (uint32_t b = 0; b < nx; b++) {
			uint32_t x = n->mem[i + b];
			double *R = RS[b] = w->col + (size_t)b * S * HL;

			memset(R, 0, (size_t)S * HL * sizeof(*R));
			by_src(u, w, x, false, R);
			/* column x of H: 0 in the rows of x's group but
			 * inner ones */
			if (HL == PAD)
				for (uint32_t y = 0; y < S; y++) {
					prefetch(hrow(
						u, u->h,
						y + AHEAD < S ? y + AHEAD : y,
						x));
					if (u->inner[y] || n->grp[y] != A)
						vadd(PAD, R + (size_t)y * PAD,
						     hrow(u, u->h, y, x));
				}
			else
				for (uint32_t y = 0; y < S; y++)
					if (u->inner[y] || n->grp[y] != A)
						vadd(HL, R + (size_t)y * HL,
						     hrow(u, u->h, y, x));
		}
		p_fwd_rows(u, n->mem + i, nx, RS, u->rl[t], t2, out);
		i += nx;
	}
	for (uint32_t j = j0; j < j1; j++) {
		uint32_t v = topo_link(n->t, n->gl[j])->to;
		size_t pv = pidx(n, v, v) - n->idx[v];
		uint32_t nb = u->t2off[j + 1] - u->t2off[j];

		for (uint32_t iy = 0; iy < nb; iy++)
			u->rl[t][pv + iy] += t2[u->t2off[j] + iy];
	}
}

/* Spread the local pair rates of the parts u->rl[0..NPART-1] over the
 * links of the local paths: OUT += ... */
static void p_fwd_local(struct ugal_fac *u, double *out)
{
	const struct unet *n = u->n;
	size_t pairs = n->mat_off[n->G];

	for (uint32_t t = 1; t < NPART; t++)
		for (size_t p = 0; p < pairs; p++)
			u->rl[0][p] += u->rl[t][p];
	for (size_t p = 0; p < pairs; p++) {
		double r = u->rl[0][p];

		if (r == 0)
			continue;
		for (size_t e = n->lp_off[p]; e < n->lp_off[p + 1]; e++)
			out[n->lp_link[e]] += r;
	}
}

/* The adjoint of fwd_link: per row k, ROW[k][poff] += the far pair's
 * path count x C1[k] + NPU[k] x the far pair's cost RLV[iy]. */
static inline void adj_link(uint32_t K, uint32_t nb, const uint32_t *poff,
			    const double *npv, const double *rlv,
			    double *const *row, const double *c1,
			    const double *npu)
{
	for (uint32_t iy = 0; iy < nb; iy++) {
		uint32_t o = poff[iy];

		if (o == NONE)
			continue;
		for (uint32_t k = 0; k < K; k++)
			row[k][o] += npv[iy] * c1[k] + npu[k] * rlv[iy];
	}
}

/* Rows XS[0..NX) (one group's, NX <= XB) of u->h: the cost of the halves
 * from each under link prices Y, given the local pairs' costs u->rl[0]
 * (x-major: the rows stay in cache, and by_src reads them next). */
static void p_adj_rows(struct ugal_fac *u, const uint32_t *xs, uint32_t nx,
		       const double *y)
{
	const struct unet *n = u->n;
	const double *rloc = u->rl[0];
	uint32_t A = n->grp[xs[0]], HL = u->HL;
	double *rows[XB];
	size_t px[XB];

	for (uint32_t b = 0; b < nx; b++) {
		rows[b] = hrow(u, u->h, xs[b], 0);
		px[b] = pidx(n, xs[b], xs[b]) - n->idx[xs[b]];
		memset(rows[b], 0, (size_t)u->S * HL * sizeof(*rows[b]));
	}
	for (uint32_t B = 0; B < n->G; B++) {
		uint32_t j0 = n->gl_off[(size_t)A * n->G + B];
		uint32_t j1 = n->gl_off[(size_t)A * n->G + B + 1];
		uint32_t nb = n->mem_off[B + 1] - n->mem_off[B];

		if (A == B)
			continue;
		for (uint32_t j = j0; j < j1; j++) {
			size_t pv = u->glv[j];
			double *r[XB], c1[XB], npu[XB];
			uint32_t K = 0;

			for (uint32_t b = 0; b < nx; b++) {
				size_t p = px[b] + u->glu[j];

				if (n->dist[p] == UNREACH)
					continue;
				npu[K] = n->np[p];
				c1[K] = rloc[p] + npu[K] * y[n->gl[j]];
				r[K++] = rows[b] + n->dist[p] + 1;
			}
			if (K == XB)
				adj_link(XB, nb, u->poff + pv, n->np + pv,
					 rloc + pv, r, c1, npu);
			else
				adj_link(K, nb, u->poff + pv, n->np + pv,
					 rloc + pv, r, c1, npu);
		}
	}
	for (uint32_t b = 0; b < nx; b++)
		for (uint32_t j = n->mem_off[A]; j < n->mem_off[A + 1]; j++) {
			uint32_t yy = n->mem[j];
			size_t p = pidx(n, xs[b], yy);

			if (xs[b] != yy && n->dist[p] != UNREACH)
				rows[b][(size_t)yy * HL + n->dist[p]] +=
					rloc[p];
		}
}

/* The steps of a product, each over a range [lo, hi) of switches or
 * groups, run as parts: part T uses u->ws[T], u->rl[T], u->t2s[T]. */
enum step { STEP_DST, STEP_FWD, STEP_ADJ };

struct part {
	struct ugal_fac *u;
	enum step step;
	bool adj;
	uint32_t t, lo, hi;
	const double *in;
	double *out;
};

static void part_run(const struct part *k)
{
	struct ugal_fac *u = k->u;
	const struct unet *n = u->n;

	switch (k->step) {
	case STEP_DST: /* switches */
		for (uint32_t d = k->lo; d < k->hi; d++)
			by_dst(u, &u->ws[k->t], d, k->adj);
		break;
	case STEP_FWD: /* groups */
		fwd_groups(u, k->t, k->lo, k->hi, k->out);
		break;
	case STEP_ADJ: /* groups: rows of H, then their flows' costs */
		for (uint32_t i = n->mem_off[k->lo]; i < n->mem_off[k->hi];) {
			uint32_t A = n->grp[n->mem[i]];
			uint32_t nx = n->mem_off[A + 1] - i < XB ?
					      n->mem_off[A + 1] - i :
					      XB;

			p_adj_rows(u, n->mem + i, nx, k->in);
			for (uint32_t b = 0; b < nx; b++)
				by_src(u, &u->ws[k->t], n->mem[i + b], true,
				       hrow(u, u->h, n->mem[i + b], 0));
			i += nx;
		}
		break;
	}
}

static void part_of(void *arg, uint32_t t)
{
	part_run((const struct part *)arg + t);
}

/* Run STEP over [0, N) in NPART parts: part 0 here, the others on threads
 * when u->threads (a part whose thread does not start runs here).  Parts
 * write disjoint rows and columns of u->h, flows' u->xis and OUT's global
 * links; the rest is their own buffers. */
static void run_step(struct ugal_fac *u, enum step step, bool adj, uint32_t N,
		     const double *in, double *out)
{
	struct part k[NPART];

	for (uint32_t t = 0; t < NPART; t++)
		k[t] = (struct part){ .u = u,
				      .step = step,
				      .adj = adj,
				      .t = t,
				      .lo = (uint32_t)((uint64_t)N * t / NPART),
				      .hi = (uint32_t)((uint64_t)N * (t + 1) /
						       NPART),
				      .in = in,
				      .out = out };
	par_run(NPART, u->threads, part_of, k, NULL);
}

static void ufac_mul(void *ctx, const double *x, double *out)
{
	struct ugal_fac *u = ctx;
	size_t pairs = u->n->mat_off[u->n->G];
	bool any = false;

	for (uint32_t f = 0; f < u->nf; f++) {
		const uint32_t *vg = u->vg + (size_t)f * u->NL;
		double *zeta = u->xis + (size_t)f * u->NL;

		for (uint32_t L = 0; L < u->NL; L++) {
			zeta[L] = vg[L] == NONE ? 0 : x[vg[L]];
			any |= zeta[L] != 0;
		}
	}
	if (!any)
		return;
	run_step(u, STEP_DST, false, u->S, NULL, out);
	for (uint32_t t = 0; t < NPART; t++)
		memset(u->rl[t], 0, (pairs + 1) * sizeof(*u->rl[t]));
	run_step(u, STEP_FWD, false, u->n->G, NULL, out);
	p_fwd_local(u, out);
}

static void ufac_mul_t(void *ctx, const double *y, double *out)
{
	struct ugal_fac *u = ctx;
	const struct unet *n = u->n;
	size_t pairs = n->mat_off[n->G];

	for (size_t p = 0; p < pairs; p++) {
		double c = 0;

		for (size_t e = n->lp_off[p]; e < n->lp_off[p + 1]; e++)
			c += y[n->lp_link[e]];
		u->rl[0][p] = c;
	}
	memset(u->xis, 0, ((size_t)u->nf * u->NL + 1) * sizeof(*u->xis));
	run_step(u, STEP_ADJ, true, n->G, y, NULL);
	run_step(u, STEP_DST, true, u->S, NULL, NULL);
	for (uint32_t f = 0; f < u->nf; f++) {
		const uint32_t *vg = u->vg + (size_t)f * u->NL;
		const double *xi = u->xis + (size_t)f * u->NL;

		for (uint32_t L = 0; L < u->NL; L++)
			if (vg[L] != NONE)
				out[vg[L]] += xi[L];
	}
}

/* Dictionary of the path-count vectors: an open-addressing hash table of
 * vector ids (NONE: empty), grown to keep it at most half full. */
struct dict_ht {
	uint32_t *slot;
	size_t cap;    /* a power of two */
	uint32_t dcap; /* room in u->dict */
};

static size_t vhash(const double *v, uint32_t HL)
{
	const unsigned char *p = (const unsigned char *)v;
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < HL * sizeof(*v); i++)
		h = (h ^ p[i]) * 1099511628211u;
	return (size_t)h;
}

static int ht_grow(struct ugal_fac *u, struct dict_ht *t)
{
	size_t nc = t->cap ? 2 * t->cap : 1024;
	uint32_t *s = malloc(nc * sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < nc; i++)
		s[i] = NONE;
	for (uint32_t v = 0; v < u->nd; v++) {
		size_t j = vhash(u->dict + (size_t)v * u->HL, u->HL) & (nc - 1);

		while (s[j] != NONE)
			j = (j + 1) & (nc - 1);
		s[j] = v;
	}
	free(t->slot);
	t->slot = s;
	t->cap = nc;
	return 0;
}

/* The id of vector V[HL] in u's dictionary, added if new.  Returns it, or
 * NONE (memory). */
static uint32_t dict_id(struct ugal_fac *u, struct dict_ht *t, const double *v)
{
	uint32_t HL = u->HL;
	size_t j;

	if (2 * ((size_t)u->nd + 1) > t->cap && ht_grow(u, t))
		return NONE;
	for (j = vhash(v, HL) & (t->cap - 1); t->slot[j] != NONE;
	     j = (j + 1) & (t->cap - 1))
		if (!memcmp(u->dict + (size_t)t->slot[j] * HL, v,
			    HL * sizeof(*v)))
			return t->slot[j];
	if (u->nd == t->dcap) {
		uint32_t nc = t->dcap ? 2 * t->dcap : 256;
		double *d = realloc(u->dict, (size_t)nc * HL * sizeof(*d));

		if (!d)
			return NONE;
		u->dict = d;
		t->dcap = nc;
	}
	memcpy(u->dict + (size_t)u->nd * HL, v, HL * sizeof(*v));
	t->slot[j] = u->nd;
	return u->nd++;
}

/* u->dict, dlo, dhi and id from the MIN halves of every switch pair.
 * Returns 0 or -1 (memory). */
static int build_dict(struct ugal_fac *u)
{
	const struct unet *n = u->n;
	struct dict_ht t = { NULL, 0, 0 };
	struct half hf;
	double v[HMAX];
	int rc = -1;

	memset(&hf, 0, sizeof(hf));
	memset(v, 0, sizeof(v));
	for (uint32_t x = 0; x < u->S; x++)
		for (uint32_t y = 0; y < u->S; y++) {
			uint32_t id;

			if (x != y) {
				/* no entries: no allocation */
				half_min(n, x, y, &hf, false);
				memcpy(v, hf.n,
				       (n->maxhalf + 1) * sizeof(double));
			} else {
				memset(v, 0, sizeof(v));
			}
			id = dict_id(u, &t, v);
			if (id == NONE)
				goto out;
			u->id[(size_t)x * u->S + y] = id;
		}
	u->dlo = malloc((size_t)u->nd + 1);
	u->dhi = malloc((size_t)u->nd + 1);
	if (!u->dlo || !u->dhi)
		goto out;
	for (uint32_t k = 0; k < u->nd; k++) {
		const double *d = u->dict + (size_t)k * u->HL;
		uint32_t lo = u->HL, hi = 0;

		for (uint32_t l = 0; l < u->HL; l++)
			if (d[l] != 0) {
				lo = l < lo ? l : lo;
				hi = l + 1;
			}
		u->dlo[k] = (uint8_t)(lo < hi ? lo : 0);
		u->dhi[k] = (uint8_t)hi;
	}
	rc = 0;
out:
	free(t.slot);
	return rc;
}

/* u->ioff, iv, lid, voff and vl of every flow (see struct ugal_fac).
 * Returns 0 or -1 (memory). */
static int build_plans(struct ugal_fac *u)
{
	uint32_t S = u->S, *inter = malloc(((size_t)S + 1) * sizeof(*inter));
	uint32_t *stamp = calloc((size_t)u->nd + 1, sizeof(*stamp));
	uint16_t *loc = malloc(((size_t)u->nd + 1) * sizeof(*loc));
	size_t np = 0, nv[2] = { 0, 0 };
	int rc = -1;

	u->ioff = malloc(((size_t)u->nf + 1) * sizeof(*u->ioff));
	u->voff[0] = malloc(((size_t)u->nf + 1) * sizeof(*u->voff[0]));
	u->voff[1] = malloc(((size_t)u->nf + 1) * sizeof(*u->voff[1]));
	if (!inter || !stamp || !loc || !u->ioff || !u->voff[0] || !u->voff[1])
		goto out;
	/* two rounds: count, then fill */
	for (int round = 0; round < 2; round++) {
		np = nv[0] = nv[1] = 0;
		for (uint32_t f = 0; f < u->nf; f++) {
			uint32_t ni = inters(u, f, inter);

			u->ioff[f] = np;
			for (int k = 0; k < 2; k++) {
				/* a new epoch per flow and side */
				uint32_t ep = 2 * f + (uint32_t)k + 1;

				u->voff[k][f] = nv[k];
				for (uint32_t j = 0; j < ni; j++) {
					uint32_t i = inter[j];
					uint32_t v =
						k ? u->id[(size_t)u->fs[f] * S +
							  i] :
						    u->id[(size_t)i * S +
							  u->fd[f]];

					if (stamp[v] != ep) {
						stamp[v] = ep;
						loc[v] = (uint16_t)(nv[k] -
								    u->voff[k]
									   [f]);
						if (round)
							u->vl[k][nv[k]] = v;
						nv[k]++;
					}
					if (round)
						u->lid[k][np + j] = loc[v];
				}
			}
			for (uint32_t j = 0; round && j < ni; j++)
				u->iv[np + j] = (uint16_t)inter[j];
			np += ni;
		}
		u->ioff[u->nf] = np;
		u->voff[0][u->nf] = nv[0];
		u->voff[1][u->nf] = nv[1];
		if (round)
			break;
		memset(stamp, 0, ((size_t)u->nd + 1) * sizeof(*stamp));
		u->iv = malloc((np + 1) * sizeof(*u->iv));
		u->lid[0] = malloc((np + 1) * sizeof(*u->lid[0]));
		u->lid[1] = malloc((np + 1) * sizeof(*u->lid[1]));
		u->vl[0] = malloc((nv[0] + 1) * sizeof(*u->vl[0]));
		u->vl[1] = malloc((nv[1] + 1) * sizeof(*u->vl[1]));
		if (!u->iv || !u->lid[0] || !u->lid[1] || !u->vl[0] ||
		    !u->vl[1])
			goto out;
	}
	rc = 0;
out:
	free(inter);
	free(stamp);
	free(loc);
	return rc;
}

/* OFF[S+1] and BY[nf]: the flows by switch SW[f] (counting sort, in flow
 * order within a switch). */
static void sort_flows(uint32_t S, uint32_t nf, const uint32_t *sw,
		       uint32_t *off, uint32_t *by)
{
	memset(off, 0, ((size_t)S + 1) * sizeof(*off));
	for (uint32_t f = 0; f < nf; f++)
		off[sw[f] + 1]++;
	for (uint32_t s = 0; s < S; s++)
		off[s + 1] += off[s];
	for (uint32_t f = 0; f < nf; f++)
		by[off[sw[f]]++] = f;
	for (uint32_t s = S; s > 0; s--)
		off[s] = off[s - 1];
	off[0] = 0;
}

/* The operator of the VLB groups of TP (built with w->factored) for flows
 * F; takes N over when it succeeds (freed with the operator).  Returns it
 * or NULL (memory, or more than MAX_PAIRS switch pairs). */
static struct ugal_fac *ufac_create(struct unet *n, const struct flows *f,
				    const struct ugal_tpl *tp, struct err *err)
{
	struct ugal_fac *u = calloc(1, sizeof(*u));
	const struct topo *t = n->t;
	size_t cells, hbytes, nt2 = 0;
	uint32_t ngl = n->gl_off[(size_t)n->G * n->G];
	bool mem = true;

	if (!u) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	u->S = n->S;
	u->HL = n->maxhalf + 1;
	u->NL = 2 * u->HL - 1;
	u->nf = f->n;
	if ((size_t)n->S * n->S > MAX_PAIRS) {
		err_range(err, "too many switches for the factored UGAL "
			       "template");
		ufac_free(u);
		return NULL;
	}
	cells = (size_t)n->S * n->S * u->HL;
	/* aligned_alloc: a multiple of the alignment */
	hbytes = ((cells ? cells : 1) * sizeof(double) + 63) / 64 * 64;
	u->fs = malloc(((size_t)f->n + 1) * sizeof(*u->fs));
	u->fd = malloc(((size_t)f->n + 1) * sizeof(*u->fd));
	u->vg = malloc(((size_t)f->n * u->NL + 1) * sizeof(*u->vg));
	u->id = malloc(((size_t)n->S * n->S + 1) * sizeof(*u->id));
	u->src_off = malloc(((size_t)n->S + 1) * sizeof(*u->src_off));
	u->by_src = malloc(((size_t)f->n + 1) * sizeof(*u->by_src));
	u->dst_off = malloc(((size_t)n->S + 1) * sizeof(*u->dst_off));
	u->by_dst = malloc(((size_t)f->n + 1) * sizeof(*u->by_dst));
	u->h = aligned_alloc(64, hbytes);
	u->xis = malloc(((size_t)f->n * u->NL + 1) * sizeof(*u->xis));
	u->poff = malloc((n->mat_off[n->G] + 1) * sizeof(*u->poff));
	u->t2off = malloc(((size_t)ngl + 1) * sizeof(*u->t2off));
	u->inner = calloc((size_t)n->S + 1, sizeof(*u->inner));
	u->glv = malloc(((size_t)ngl + 1) * sizeof(*u->glv));
	u->glu = malloc(((size_t)ngl + 1) * sizeof(*u->glu));
	if (u->t2off) {
		u->t2off[0] = 0;
		for (uint32_t j = 0; j < ngl; j++) {
			uint32_t B = n->grp[topo_link(t, n->gl[j])->to];

			u->t2off[j + 1] =
				u->t2off[j] + n->mem_off[B + 1] - n->mem_off[B];
		}
		nt2 = u->t2off[ngl];
	}
	for (uint32_t k = 0; k < NPART; k++) {
		u->rl[k] = malloc((n->mat_off[n->G] + 1) * sizeof(*u->rl[k]));
		u->t2s[k] = malloc(((size_t)nt2 + 1) * sizeof(*u->t2s[k]));
		mem &= u->rl[k] && u->t2s[k];
	}
	if (!u->fs || !u->fd || !u->vg || !u->id || !u->src_off || !u->by_src ||
	    !u->dst_off || !u->by_dst || !u->h || !u->xis || !u->poff ||
	    !u->t2off || !u->inner || !u->glv || !u->glu || !mem) {
		err_nomem(err, "out of memory");
		ufac_free(u);
		return NULL;
	}
	u->n = n;
	mem = !build_dict(u);
	for (uint32_t k = 0; k < NPART && mem; k++)
		mem = !ws_init(&u->ws[k], u->nd, u->S, u->HL);
	if (!mem) {
		u->n = NULL; /* not taken over */
		err_nomem(err, "out of memory");
		ufac_free(u);
		return NULL;
	}
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t *vg = u->vg + (size_t)i * u->NL;

		u->fs[i] = topo_node_switch(t, f->src[i]);
		u->fd[i] = topo_node_switch(t, f->dst[i]);
		if (inter_group(n, u->fs[i], u->fd[i], n->grp[u->fd[i]]))
			u->inner[u->fd[i]] = true;
		for (uint32_t L = 0; L < u->NL; L++)
			vg[L] = NONE;
		for (uint32_t g = tp->flow_off[i]; g < tp->flow_off[i + 1];
		     g++) {
			if (tp->cls[g] != PATH_VLB)
				continue;
			if (tp->hops[g] == UGAL_HOPS_ANY) {
				for (uint32_t L = 0; L < u->NL; L++)
					vg[L] = g;
			} else if (tp->hops[g] < u->NL) {
				vg[tp->hops[g]] = g;
			}
		}
	}
	for (uint32_t j = 0; j < ngl; j++) {
		const struct topo_link *lk = topo_link(t, n->gl[j]);

		u->glv[j] = pidx(n, lk->to, lk->to) - n->idx[lk->to];
		u->glu[j] = n->idx[lk->from];
	}
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t i = n->mem_off[g]; i < n->mem_off[g + 1]; i++)
			for (uint32_t j = n->mem_off[g]; j < n->mem_off[g + 1];
			     j++) {
				uint32_t x = n->mem[i], y = n->mem[j];
				size_t p = pidx(n, x, y);

				u->poff[p] = n->dist[p] == UNREACH ?
						     NONE :
						     y * u->HL + n->dist[p];
			}
	if (build_plans(u)) {
		err_nomem(err, "out of memory");
		u->n = NULL; /* not taken over */
		ufac_free(u);
		return NULL;
	}
	u->threads = cells >= THREAD_CELLS;
	sort_flows(u->S, u->nf, u->fs, u->src_off, u->by_src);
	sort_flows(u->S, u->nf, u->fd, u->dst_off, u->by_dst);
	return u;
}

static int build_tpl(const struct routing *r, const struct flows *f,
		     unsigned model, uint64_t limit, bool factored,
		     struct ugal_tpl *out, struct err *err)
{
	struct unet *n;
	struct work w;
	struct tb b;
	uint64_t cols;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	n = unet_create(r, err);
	if (!n)
		return -1;
	if (count_all(n, f, model, &cols, err))
		goto out_net;
	if (limit && cols > limit) {
		err_set(err,
			"Model %u needs %llu LP variables, more than "
			"limit=%llu (raise it with ugal%u:limit=N)",
			model, (unsigned long long)cols,
			(unsigned long long)limit, model);
		goto out_net;
	}
	if (cols - 1 >= UINT32_MAX) {
		err_set(err, "Model %u needs %llu LP variables (at most 2^32)",
			model, (unsigned long long)cols);
		goto out_net;
	}
	if (work_init(&w, n, model, err))
		goto out_net;
	w.factored = factored && w.vlb != UGAL_CTL_PATH;
	out->flow_off = malloc(((size_t)f->n + 1) * sizeof(*out->flow_off));
	out->demand = malloc(((size_t)f->n + 1) * sizeof(*out->demand));
	out->cap = malloc(((size_t)n->L + 1) * sizeof(*out->cap));
	if (!out->flow_off || !out->demand || !out->cap) {
		err_nomem(err, "out of memory");
		goto out_work;
	}
	if (build_flows(&w, f, &b, out->flow_off, err))
		goto out_work;
	if (tb_group(&b, 1, 0, 0)) { /* room for col_off[ngroups] */
		err_nomem(err, "out of memory");
		goto out_work;
	}
	b.ngroups--;
	b.paths -= 1;
	b.col_off[b.ngroups] = (uint32_t)b.nent;
	for (uint32_t l = 0; l < n->L; l++)
		out->cap[l] = topo_link(n->t, l)->capacity;
	if (f->n)
		memcpy(out->demand, f->demand,
		       (size_t)f->n * sizeof(*out->demand));
	out->mult = b.mult;
	out->cls = b.cls;
	out->hops = b.hops;
	out->col_off = b.col_off;
	out->col_link = b.col_link;
	out->col_cnt = b.col_cnt;
	out->paths = b.paths;
	memset(&b, 0, sizeof(b));
	out->lp = (struct mcf_tpl){ .nlinks = n->L,
				    .cap = out->cap,
				    .nflows = f->n,
				    .demand = out->demand,
				    .flow_off = out->flow_off,
				    .ngroups = out->flow_off[f->n],
				    .mult = out->mult,
				    .col_off = out->col_off,
				    .col_link = out->col_link,
				    .col_cnt = out->col_cnt };
	if (w.factored) {
		out->fac = ufac_create(n, f, out, err);
		if (!out->fac)
			goto out_work;
		n = NULL; /* the operator's now */
		out->op = (struct mcf_tpl_op){ .mul = ufac_mul,
					       .mul_t = ufac_mul_t,
					       .ctx = out->fac,
					       .min_entry = 1 };
		out->lp.op = &out->op;
	}
	rc = 0;
out_work:
	work_free(&w);
out_net:
	free(b.mult);
	free(b.cls);
	free(b.hops);
	free(b.col_off);
	free(b.col_link);
	free(b.col_cnt);
	if (rc)
		ugal_tpl_free(out);
	unet_free(n);
	return rc;
}

int ugal_tpl_build(const struct routing *r, const struct flows *f,
		   unsigned model, uint64_t limit, struct ugal_tpl *out,
		   struct err *err)
{
	return build_tpl(r, f, model, limit, false, out, err);
}

int ugal_tpl_build_factored(const struct routing *r, const struct flows *f,
			    unsigned model, uint64_t limit,
			    struct ugal_tpl *out, struct err *err)
{
	return build_tpl(r, f, model, limit, true, out, err);
}
