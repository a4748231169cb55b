/* routing_dragonfly.c - min, vlb and ugal on the dragonfly and the Cray
 * Cascade (paper 002 Sec. 2.3), for any family whose switches are split
 * into groups joined by global links.
 *
 * Within a group the "local" paths from router x to router y are all the
 * shortest paths over the group's own links (dfly: the direct link;
 * Cascade: the direct row or column link, or the two 2-hop paths through
 * the corners, X-first and Y-first); parallel links are separate paths.
 *
 *   MIN(x->y)  same group: the local paths.  Otherwise, for EVERY global
 *              link u->v from x's group to y's group: local(x->u), the
 *              global link, local(v->y).  One path per global link (times
 *              the local choices), whatever its length: a*h/(g-1) paths in
 *              dfly(p,a,h,g) when g-1 divides a*h.
 *   VLB(s->d)  for every intermediate switch I: MIN(s->I) followed by
 *              MIN(I->d), concatenated literally (never pruned; equal link
 *              sequences through different I stay separate paths).  I runs
 *              over every switch outside the source and destination groups
 *              (a*(g-2) switches: a^3 h^2 (g-2)/(g-1)^2 paths, paper 002
 *              Eq. 1).  Within one group option intra= decides: "local"
 *              (default) every other router of the group (I != s, d);
 *              "global" every switch of the g-1 other groups.
 *              When a flow has no intermediate at all (g = 2, or a group
 *              of two routers with intra=local) vlb routes it on its MIN
 *              paths, tagged MIN.
 *   ugal       MIN and VLB paths together, each tagged with its class.
 *
 * Counting never enumerates paths: per-pair MIN hop histograms come from
 * the local distance/path-count tables and the global link lists, and the
 * VLB histogram is the sum over intermediates of the convolution of two
 * MIN histograms (O(switches * links per group pair) per flow).
 *
 * Link sets are derived per group (see linkset()), never by enumeration,
 * whenever every group is connected and every pair of groups is joined by
 * at least one global link; otherwise routing.c's enumeration is used. */
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

enum mode { MODE_MIN, MODE_VLB, MODE_UGAL };

#define UNREACH 255
#define MAX_LOCAL_DIAM 15    /* keeps every path within ROUTING_MAX_HOPS */
#define MAX_PAIRS (1u << 24) /* local distance tables */
#define HL (2 * MAX_LOCAL_DIAM + 2) /* MIN histogram length */

struct df {
	enum mode mode;
	bool intra_global;
	bool complete; /* groups connected, every group pair joined */
	uint32_t S, G;
	uint32_t maxa;	   /* largest group: middle key = v * maxa + idx[u] */
	uint32_t *mem_off; /* [G+1] */
	uint32_t *mem;	   /* switches by group, ascending */
	uint32_t *idx;	   /* [S] index within its group */
	size_t *mat_off;   /* [G] into dist / np */
	uint8_t *dist;	   /* local hop distance, UNREACH if none */
	uint32_t *np;	   /* number of local shortest paths */
	uint32_t *one;	   /* the local link x -> y when it is the only
			    * local shortest path, else UINT32_MAX */
	uint8_t *diam;	   /* [G] local diameter */
	uint8_t maxdiam;
	uint32_t *nlocal;	  /* [G] local (intra-group) directed links */
	uint32_t *gl_off;	  /* [G+1] */
	uint32_t *gl;		  /* global links out of each group, by
			      * (destination group, id) */
	uint32_t *gl_pair;	  /* [G*G+1] or NULL: start in gl of a -> b */
	struct routing_dfly info; /* routing_dfly() */
	bool has_info;
};

static const struct spec_opt opts[] = {
	{ .key = "intra",
	  .def = "local",
	  .help = "VLB intermediates: local (other groups) or global (any)" },
	{ 0 },
};

/* Generated dragonflies and Cascades, and Topology=graph recognised as
 * either (topo_recog_dragonfly.c: all-to-all groups or Cascade groups,
 * global links between). */
static bool applies(const struct topo *t)
{
	enum topo_kind k = topo_behaves_as(t);

	return (k == TOPO_DRAGONFLY || k == TOPO_CASCADE) &&
	       topo_num_groups(t) > 0;
}

/* Hot-path accessors: struct topo is visible inside topo/ (topo_impl.h),
 * and the out-of-line public accessors dominate counting time. */
static inline uint32_t grp(const struct df *df, const struct topo *t,
			   uint32_t s)
{
	(void)df;
	return t->sw_group[s];
}

#define LINK(t, l) (&(t)->links[l])
#define GROUP(t, s) ((t)->sw_group[s])

static inline uint8_t D(const struct df *df, uint32_t g, uint32_t x, uint32_t y)
{
	uint32_t a = df->mem_off[g + 1] - df->mem_off[g];

	return df->dist[df->mat_off[g] + (size_t)df->idx[x] * a + df->idx[y]];
}

static inline uint32_t NP(const struct df *df, uint32_t g, uint32_t x,
			  uint32_t y)
{
	uint32_t a = df->mem_off[g + 1] - df->mem_off[g];

	return df->np[df->mat_off[g] + (size_t)df->idx[x] * a + df->idx[y]];
}

/* The only local shortest path x -> y when it is one link (*L), or x ==
 * y (no link, *N = 0): true with *N links; false otherwise. */
static inline bool one_hop(const struct df *df, uint32_t g, uint32_t x,
			   uint32_t y, uint32_t *l, uint32_t *n)
{
	uint32_t a = df->mem_off[g + 1] - df->mem_off[g];

	if (x == y) {
		*n = 0;
		return true;
	}
	*l = df->one[df->mat_off[g] + (size_t)df->idx[x] * a + df->idx[y]];
	*n = 1;
	return *l != UINT32_MAX;
}

static void df_free(struct df *df)
{
	if (!df)
		return;
	free(df->one);
	free(df->mem_off);
	free(df->mem);
	free(df->idx);
	free(df->mat_off);
	free(df->dist);
	free(df->np);
	free(df->diam);
	free(df->nlocal);
	free(df->gl_off);
	free(df->gl);
	free(df->gl_pair);
	free(df);
}

/* Groups' member lists. */
static int build_groups(struct df *df, const struct topo *t, struct err *err)
{
	uint32_t *pos;

	df->mem_off = calloc((size_t)df->G + 1, sizeof(uint32_t));
	df->mem = malloc((size_t)df->S * sizeof(uint32_t));
	df->idx = malloc((size_t)df->S * sizeof(uint32_t));
	pos = calloc((size_t)df->G + 1, sizeof(uint32_t));
	if (!df->mem_off || !df->mem || !df->idx || !pos) {
		free(pos);
		return err_nomem(err, "out of memory");
	}
	for (uint32_t s = 0; s < df->S; s++) {
		uint32_t g = GROUP(t, s);

		if (g >= df->G) {
			free(pos);
			return err_set(err, "switch %u has no group", s);
		}
		df->mem_off[g + 1]++;
	}
	for (uint32_t g = 0; g < df->G; g++) {
		if (df->mem_off[g + 1] > df->maxa)
			df->maxa = df->mem_off[g + 1];
		df->mem_off[g + 1] += df->mem_off[g];
	}
	memcpy(pos, df->mem_off, ((size_t)df->G + 1) * sizeof(uint32_t));
	for (uint32_t s = 0; s < df->S; s++) {
		uint32_t g = GROUP(t, s);

		df->idx[s] = pos[g] - df->mem_off[g];
		df->mem[pos[g]++] = s;
	}
	free(pos);
	return 0;
}

/* All-pairs local distances and shortest-path counts, BFS per router over
 * the links that stay inside its group. */
static int build_local(struct df *df, const struct topo *t, struct err *err)
{
	size_t total = 0;
	uint32_t *queue;

	df->mat_off = malloc(((size_t)df->G ? df->G : 1) * sizeof(size_t));
	df->diam = calloc(df->G ? df->G : 1, 1);
	df->nlocal = calloc(df->G ? df->G : 1, sizeof(uint32_t));
	if (!df->mat_off || !df->diam || !df->nlocal)
		return err_nomem(err, "out of memory");
	for (uint32_t g = 0; g < df->G; g++) {
		size_t a = df->mem_off[g + 1] - df->mem_off[g];

		df->mat_off[g] = total;
		total += a * a;
		if (total > MAX_PAIRS)
			return err_set(err,
				       "groups too large for dragonfly "
				       "routing (%zu router pairs)",
				       total);
	}
	df->dist = malloc(total ? total : 1);
	df->np = calloc(total ? total : 1, sizeof(uint32_t));
	df->one = malloc((total ? total : 1) * sizeof(uint32_t));
	queue = malloc((size_t)(df->S ? df->S : 1) * sizeof(uint32_t));
	if (!df->dist || !df->np || !df->one || !queue) {
		free(queue);
		return err_nomem(err, "out of memory");
	}
	memset(df->dist, UNREACH, total ? total : 1);
	memset(df->one, 0xff, (total ? total : 1) * sizeof(uint32_t));
	df->complete = true;
	for (uint32_t g = 0; g < df->G; g++) {
		uint32_t a = df->mem_off[g + 1] - df->mem_off[g];

		for (uint32_t i = 0; i < a; i++) {
			uint8_t *dist =
				df->dist + df->mat_off[g] + (size_t)i * a;
			uint32_t *np = df->np + df->mat_off[g] + (size_t)i * a;
			uint32_t head = 0, tail = 0;

			dist[i] = 0;
			np[i] = 1;
			queue[tail++] = df->mem[df->mem_off[g] + i];
			while (head < tail) {
				uint32_t u = queue[head++], cnt;
				uint32_t first = topo_switch_out(t, u, &cnt);
				uint32_t du = dist[df->idx[u]];

				for (uint32_t l = first; l < first + cnt; l++) {
					uint32_t z = LINK(t, l)->to;
					uint32_t iz = df->idx[z];

					if (GROUP(t, z) != g)
						continue;
					if (dist[iz] == UNREACH) {
						if (du + 1 > MAX_LOCAL_DIAM) {
							free(queue);
							return err_set(
								err,
								"group %u: local diameter above %d",
								g,
								MAX_LOCAL_DIAM);
						}
						dist[iz] = (uint8_t)(du + 1);
						queue[tail++] = z;
					}
					if (dist[iz] == du + 1)
						np[iz] += np[df->idx[u]];
				}
			}
			if (tail < a)
				df->complete = false;
			/* the single-link local paths out of router i */
			uint32_t x = df->mem[df->mem_off[g] + i], cnt;
			uint32_t first = topo_switch_out(t, x, &cnt);

			for (uint32_t l = first; l < first + cnt; l++) {
				uint32_t z = LINK(t, l)->to, iz = df->idx[z];

				if (GROUP(t, z) == g && dist[iz] == 1 &&
				    np[iz] == 1)
					df->one[df->mat_off[g] + (size_t)i * a +
						iz] = l;
			}
			for (uint32_t j = 0; j < a; j++)
				if (dist[j] != UNREACH && dist[j] > df->diam[g])
					df->diam[g] = dist[j];
		}
		if (df->diam[g] > df->maxdiam)
			df->maxdiam = df->diam[g];
	}
	free(queue);
	return 0;
}

struct gkey {
	uint32_t g, l;
};

static int cmp_gkey(const void *x, const void *y)
{
	const struct gkey *a = x, *b = y;

	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	return a->l < b->l ? -1 : a->l > b->l;
}

/* Per group: its outgoing global links sorted by destination group. */
static int build_global(struct df *df, const struct topo *t, struct err *err)
{
	uint32_t n = 0;
	struct gkey *key;

	df->gl_off = calloc((size_t)df->G + 1, sizeof(uint32_t));
	df->gl = malloc(((size_t)topo_num_links(t) + 1) * sizeof(uint32_t));
	key = malloc(((size_t)topo_num_links(t) + 1) * sizeof(*key));
	if (!df->gl_off || !df->gl || !key) {
		free(key);
		return err_nomem(err, "out of memory");
	}
	for (uint32_t g = 0; g < df->G; g++) {
		uint32_t start = n;

		for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
			uint32_t cnt,
				first = topo_switch_out(t, df->mem[k], &cnt);

			for (uint32_t l = first; l < first + cnt; l++) {
				uint32_t h =
					topo_switch_group(t, LINK(t, l)->to);

				if (h != g)
					key[n++] = (struct gkey){ h, l };
				else
					df->nlocal[g]++;
			}
		}
		df->gl_off[g + 1] = n;
		qsort(key + start, n - start, sizeof(*key), cmp_gkey);
	}
	for (uint32_t k = 0; k < n; k++)
		df->gl[k] = key[k].l;
	free(key);
	/* the links of each group pair at once (G^2 entries; beyond 4,096
	 * groups glinks bisects instead) */
	if (df->G && df->G <= 4096) {
		size_t np = (size_t)df->G * df->G;

		df->gl_pair = malloc((np + 1) * sizeof(*df->gl_pair));
		if (!df->gl_pair)
			return err_nomem(err, "out of memory");
		for (uint32_t a = 0; a < df->G; a++) {
			uint32_t k = df->gl_off[a];

			for (uint32_t b = 0; b < df->G; b++) {
				df->gl_pair[(size_t)a * df->G + b] = k;
				while (k < df->gl_off[a + 1] &&
				       GROUP(t, LINK(t, df->gl[k])->to) == b)
					k++;
			}
		}
		df->gl_pair[np] = df->gl_off[df->G];
	}
	return 0;
}

/* Global links from group A to group B: *cnt ids starting at the result. */
static const uint32_t *glinks(const struct df *df, const struct topo *t,
			      uint32_t a, uint32_t b, uint32_t *cnt)
{
	uint32_t lo = df->gl_off[a], hi = df->gl_off[a + 1], first;

	if (df->gl_pair) {
		size_t k = (size_t)a * df->G + b;

		*cnt = df->gl_pair[k + 1] - df->gl_pair[k];
		return df->gl + df->gl_pair[k];
	}
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (GROUP(t, LINK(t, df->gl[mid])->to) < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < df->gl_off[a + 1] && GROUP(t, LINK(t, df->gl[lo])->to) == b)
		lo++;
	*cnt = lo - first;
	return df->gl + first;
}

/* routing_dfly()'s structure, when the paths have its shape. */
static void dfly_info(struct df *df, const struct topo *t, enum mode mode)
{
	struct routing_dfly *d = &df->info;

	if (mode == MODE_MIN || df->intra_global || !df->complete ||
	    !df->gl_pair || df->G < 3)
		return;
	for (uint32_t g = 0; g < df->G; g++) {
		uint32_t a = df->mem_off[g + 1] - df->mem_off[g];

		if (!a)
			return;
		for (uint32_t x = 0; x < a; x++)
			for (uint32_t y = 0; y < a; y++)
				if (x != y &&
				    df->one[df->mat_off[g] + (size_t)x * a + y] ==
					    UINT32_MAX)
					return;
	}
	d->G = df->G;
	d->S = df->S;
	d->min = mode == MODE_UGAL;
	d->vlb = true;
	d->maxa = df->maxa;
	d->mem_off = df->mem_off;
	d->mem = df->mem;
	d->idx = df->idx;
	d->group = t->sw_group;
	d->gl = df->gl;
	d->gl_pair = df->gl_pair;
	d->local = df->one;
	d->lo = df->mat_off;
	df->has_info = true;
}

extern const struct routing_ops routing_vlb, routing_ugal;

const struct routing_dfly *routing_dfly(const struct routing *r)
{
	const struct df *df;

	if (!r || (r->ops != &routing_vlb && r->ops != &routing_ugal))
		return NULL;
	df = r->priv;
	return df->has_info ? &df->info : NULL;
}

static int init_mode(struct routing *r, const struct topo_args *args,
		     enum mode mode, struct err *err)
{
	const struct topo *t = r->t;
	const char *intra = targ_str(args, "intra");
	struct df *df;

	if (intra && strcmp(intra, "local") && strcmp(intra, "global"))
		return err_set(err, "intra=%s: must be 'local' or 'global'",
			       intra);
	df = calloc(1, sizeof(*df));
	if (!df)
		return err_nomem(err, "out of memory");
	df->mode = mode;
	df->intra_global = intra && !strcmp(intra, "global");
	df->S = topo_num_switches(t);
	df->G = topo_num_groups(t);
	if (build_groups(df, t, err) || build_local(df, t, err) ||
	    build_global(df, t, err)) {
		df_free(df);
		return -1;
	}
	for (uint32_t a = 0; a < df->G && df->complete; a++)
		for (uint32_t b = 0; b < df->G; b++) {
			uint32_t cnt;

			if (a == b)
				continue;
			glinks(df, t, a, b, &cnt);
			if (!cnt) {
				df->complete = false;
				break;
			}
		}
	dfly_info(df, t, mode);
	r->priv = df;
	return 0;
}

static int init_min(struct routing *r, const struct topo_args *args,
		    struct err *err)
{
	return init_mode(r, args, MODE_MIN, err);
}

static int init_vlb(struct routing *r, const struct topo_args *args,
		    struct err *err)
{
	return init_mode(r, args, MODE_VLB, err);
}

static int init_ugal(struct routing *r, const struct topo_args *args,
		     struct err *err)
{
	return init_mode(r, args, MODE_UGAL, err);
}

static void fini(struct routing *r)
{
	df_free(r->priv);
	r->priv = NULL;
}

/* ---- counting ---- */

/* Add the hop histogram of MIN(x->y), x in group GX and y in group GY,
 * to h: one entry per global link of GL[0..cnt) (the links GX -> GY), or
 * the local paths when GX == GY. */
static void hist_links(const struct df *df, uint32_t x, uint32_t y, uint32_t gx,
		       uint32_t gy, const struct topo *t, const uint32_t *gl,
		       uint32_t cnt, uint64_t *h)
{
	if (gx == gy) {
		if (D(df, gx, x, y) != UNREACH)
			h[D(df, gx, x, y)] += NP(df, gx, x, y);
		return;
	}
	for (uint32_t k = 0; k < cnt; k++) {
		const struct topo_link *lk = LINK(t, gl[k]);
		uint8_t d1 = D(df, gx, x, lk->from), d2 = D(df, gy, lk->to, y);

		if (d1 == UNREACH || d2 == UNREACH)
			continue;
		h[d1 + 1 + d2] += (uint64_t)NP(df, gx, x, lk->from) *
				  NP(df, gy, lk->to, y);
	}
}

/* Add the VLB paths whose halves have hop histograms A and B to c. */
static void conv_add(const struct df *df, const uint64_t *a, const uint64_t *b,
		     struct routing_count *c)
{
	uint32_t hl = 2u * df->maxdiam + 2;

	for (uint32_t x = 0; x < hl; x++)
		if (a[x])
			for (uint32_t y = 0; y < hl; y++)
				if (b[y])
					routing_count_add(c, PATH_VLB, x + y,
							  a[x] * b[y]);
}

/* VLB histogram of s -> d: per intermediate group, the global link lists
 * are looked up once; per intermediate, two MIN histograms convolved. */
static void count_vlb(const struct df *df, const struct topo *t, uint32_t s,
		      uint32_t d, struct routing_count *c)
{
	uint32_t gs = grp(df, t, s), gd = grp(df, t, d);
	bool local = gs == gd && !df->intra_global;

	for (uint32_t g = 0; g < df->G; g++) {
		const uint32_t *gl1 = NULL, *gl2 = NULL;
		uint32_t n1 = 0, n2 = 0;

		if (local ? g != gs : (g == gs || g == gd))
			continue;
		if (!local) {
			gl1 = glinks(df, t, gs, g, &n1);
			gl2 = glinks(df, t, g, gd, &n2);
		}
		for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
			uint32_t i = df->mem[k];
			uint64_t a[HL], b[HL];

			if (i == s || i == d)
				continue;
			/* only the first 2 * maxdiam + 2 entries are used */
			memset(a, 0, (2u * df->maxdiam + 2) * sizeof(*a));
			memset(b, 0, (2u * df->maxdiam + 2) * sizeof(*b));
			hist_links(df, s, i, gs, g, t, gl1, n1, a);
			hist_links(df, i, d, g, gd, t, gl2, n2, b);
			conv_add(df, a, b, c);
		}
	}
}

/* Is switch I an intermediate of the VLB paths of flow s -> d? */
static bool is_intermediate(const struct df *df, const struct topo *t,
			    uint32_t s, uint32_t d, uint32_t i)
{
	uint32_t gs = grp(df, t, s), gd = grp(df, t, d), gi = grp(df, t, i);

	if (i == s || i == d)
		return false;
	if (gs == gd && !df->intra_global)
		return gi == gs;
	return gi != gs && gi != gd;
}

static int count(const struct routing *r, uint32_t src, uint32_t dst,
		 struct routing_count *c, struct err *err)
{
	const struct df *df = r->priv;
	const struct topo *t = r->t;
	uint32_t s = topo_node_switch(t, src), d = topo_node_switch(t, dst);

	(void)err;
	if (df->mode != MODE_MIN)
		count_vlb(df, t, s, d, c);
	if (df->mode != MODE_VLB || c->by_class[PATH_VLB] == 0) {
		uint32_t gs = grp(df, t, s), gd = grp(df, t, d), n = 0;
		const uint32_t *gl = gs == gd ? NULL :
						glinks(df, t, gs, gd, &n);
		uint64_t h[HL] = { 0 };

		hist_links(df, s, d, gs, gd, t, gl, n, h);
		for (uint32_t x = 0; x < HL; x++)
			if (h[x])
				routing_count_add(c, PATH_MIN, x, h[x]);
	}
	return 0;
}

/* ---- enumeration ---- */

/* Append every local shortest path x -> y (links only) to OUT, each
 * prefixed by buf[0..len). */
static int local_walk(const struct df *df, const struct topo *t, uint32_t g,
		      uint32_t x, uint32_t y, uint32_t *buf, uint32_t len,
		      struct pathset *out)
{
	uint8_t dx = D(df, g, x, y);
	uint32_t cnt, first;

	if (x == y)
		return pathset_add(out, buf, len, PATH_MIN);
	if (dx == UNREACH)
		return 0;
	first = topo_switch_out(t, x, &cnt);
	if (dx == 1) {
		/* the links x -> y themselves (out-links are sorted by
		 * destination), found by bisection */
		uint32_t lo = first, hi = first + cnt;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (LINK(t, mid)->to < y)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < first + cnt && LINK(t, lo)->to == y; lo++) {
			buf[len] = lo;
			if (pathset_add(out, buf, len + 1, PATH_MIN))
				return -1;
		}
		return 0;
	}
	for (uint32_t l = first; l < first + cnt; l++) {
		uint32_t z = LINK(t, l)->to;

		if (GROUP(t, z) != g || D(df, g, z, y) != dx - 1)
			continue;
		buf[len] = l;
		if (local_walk(df, t, g, z, y, buf, len + 1, out))
			return -1;
	}
	return 0;
}

/* Append path I of P (its links) to BUF at LEN; the new length. */
static inline uint32_t put(uint32_t *buf, uint32_t len, const struct pathset *p,
			   uint32_t i)
{
	for (uint32_t e = p->off[i]; e < p->off[i + 1]; e++)
		buf[len++] = p->links[e];
	return len;
}

/* Append every MIN(x->y) link sequence to OUT (class MIN). */
static int min_seqs(const struct df *df, const struct topo *t, uint32_t x,
		    uint32_t y, struct pathset *out, struct pathset *tmp1,
		    struct pathset *tmp2)
{
	uint32_t gx = grp(df, t, x), gy = grp(df, t, y), cnt;
	uint32_t buf[ROUTING_MAX_HOPS + 2];
	const uint32_t *gl;

	if (gx == gy)
		return local_walk(df, t, gx, x, y, buf, 0, out);
	gl = glinks(df, t, gx, gy, &cnt);
	for (uint32_t k = 0; k < cnt; k++) {
		const struct topo_link *lk = LINK(t, gl[k]);

		pathset_clear(tmp1);
		pathset_clear(tmp2);
		if (local_walk(df, t, gx, x, lk->from, buf, 0, tmp1) ||
		    local_walk(df, t, gy, lk->to, y, buf, 0, tmp2))
			return -1;
		for (uint32_t i = 0; i < tmp1->n; i++)
			for (uint32_t j = 0; j < tmp2->n; j++) {
				uint32_t len = 0;

				len = put(buf, len, tmp1, i);
				buf[len++] = gl[k];
				len = put(buf, len, tmp2, j);
				if (pathset_add(out, buf, len, PATH_MIN))
					return -1;
			}
	}
	return 0;
}

/* Append inject + A[i] + B[j] + eject for all i, j (B NULL: just A). */
static int emit(const struct topo *t, uint32_t src, uint32_t dst,
		const struct pathset *A, const struct pathset *B,
		enum path_class cls, struct pathset *out)
{
	uint32_t buf[2 * ROUTING_MAX_HOPS + 4];
	uint32_t nb = B ? B->n : 1;

	for (uint32_t i = 0; i < A->n; i++)
		for (uint32_t j = 0; j < nb; j++) {
			uint32_t len = 0;

			buf[len++] = topo_inject_link(t, src);
			len = put(buf, len, A, i);
			for (uint32_t e = B ? B->off[j] : 0;
			     B && e < B->off[j + 1]; e++)
				buf[len++] = B->links[e];
			buf[len++] = topo_eject_link(t, dst);
			if (pathset_add(out, buf, len, cls))
				return -1;
		}
	return 0;
}

static int paths(const struct routing *r, uint32_t src, uint32_t dst,
		 struct pathset *out, struct err *err)
{
	const struct df *df = r->priv;
	const struct topo *t = r->t;
	uint32_t s = topo_node_switch(t, src), d = topo_node_switch(t, dst);
	struct pathset a, b, t1, t2;
	uint32_t nvlb = 0;
	int rc = -1;

	pathset_init(&a);
	pathset_init(&b);
	pathset_init(&t1);
	pathset_init(&t2);
	if (df->mode != MODE_VLB) {
		if (min_seqs(df, t, s, d, &a, &t1, &t2) ||
		    emit(t, src, dst, &a, NULL, PATH_MIN, out))
			goto nomem;
	}
	if (df->mode != MODE_MIN) {
		uint32_t before = out->n;

		for (uint32_t i = 0; i < df->S; i++) {
			if (!is_intermediate(df, t, s, d, i))
				continue;
			pathset_clear(&a);
			pathset_clear(&b);
			if (min_seqs(df, t, s, i, &a, &t1, &t2) ||
			    min_seqs(df, t, i, d, &b, &t1, &t2) ||
			    emit(t, src, dst, &a, &b, PATH_VLB, out))
				goto nomem;
		}
		nvlb = out->n - before;
	}
	if (df->mode == MODE_VLB && nvlb == 0) {
		pathset_clear(&a);
		if (min_seqs(df, t, s, d, &a, &t1, &t2) ||
		    emit(t, src, dst, &a, NULL, PATH_MIN, out))
			goto nomem;
	}
	if (out->n == 0) {
		err_set(err, "no path from node %u to node %u", src, dst);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	err_nomem(err, "out of memory");
out:
	pathset_free(&a);
	pathset_free(&b);
	pathset_free(&t1);
	pathset_free(&t2);
	return rc;
}

/* ---- factored path sets ---- */

/* Keys only where the VLB paths are regular: groups connected and every
 * pair of groups joined (otherwise min_seqs' gaps would have to be
 * mirrored), and only when there are VLB paths at all. */
static uint32_t middle_keys(const struct routing *r)
{
	const struct df *df = r->priv;

	if (df->mode == MODE_MIN || !df->complete)
		return 0;
	return df->S * df->maxa;
}

/* Append inject + A[i] + eject for every i as stems of KEY. */
static int emit_stems(const struct topo *t, uint32_t src, uint32_t dst,
		      const struct pathset *A, enum path_class cls,
		      struct stemset *out)
{
	uint32_t buf[2 * ROUTING_MAX_HOPS + 4];

	for (uint32_t i = 0; i < A->n; i++) {
		uint32_t len = 0;

		buf[len++] = topo_inject_link(t, src);
		len = put(buf, len, A, i);
		buf[len++] = topo_eject_link(t, dst);
		if (stemset_add(out, buf, len, cls, ROUTING_NO_MIDDLE))
			return -1;
	}
	return 0;
}

/* The VLB stems of s -> d through group G (neither s's nor d's group):
 * per global link k1 (s's group -> G), k2 (G -> d's group) and local
 * paths s -> from(k1), to(k2) -> d: inject, the local path, k1, k2, the
 * local path, eject; key (to(k1), from(k2)).  The local paths to(k2) -> d
 * depend on k2 alone: walked once each into T2 when first needed, not
 * once per k1. */
static int vlb_stems(const struct df *df, const struct topo *t, uint32_t src,
		     uint32_t dst, uint32_t g, struct pathset *t1,
		     struct pathset *t2, struct stemset *out)
{
	uint32_t s = topo_node_switch(t, src), d = topo_node_switch(t, dst);
	uint32_t gs = grp(df, t, s), gd = grp(df, t, d), n1, n2;
	const uint32_t *gl1 = glinks(df, t, gs, g, &n1);
	const uint32_t *gl2 = glinks(df, t, g, gd, &n2);
	uint32_t buf[2 * ROUTING_MAX_HOPS + 4];
	/* per k2: when to(k2) -> d is a single path of n2h <= 1 links, that
	 * link h2 (n2h 2: not so); its paths in T2, o2[2 k2] ..
	 * o2[2 k2 + 1], once a stem needed them (UINT32_MAX: not yet) */
	uint32_t small[4 * 64];
	uint32_t *h2 = n2 <= 64 ? small : malloc((size_t)n2 * 4 * sizeof(*h2));
	uint32_t *n2h = h2 ? h2 + n2 : NULL, *o2 = n2h ? n2h + n2 : NULL;
	int rc = -1;

	if (!h2)
		return -1;
	pathset_clear(t2);
	for (uint32_t k2 = 0; k2 < n2; k2++) {
		const struct topo_link *l2 = LINK(t, gl2[k2]);

		h2[k2] = UINT32_MAX;
		if (!one_hop(df, gd, l2->to, d, &h2[k2], &n2h[k2]))
			n2h[k2] = 2; /* a walk */
		o2[2 * k2] = UINT32_MAX;
	}
	for (uint32_t k1 = 0; k1 < n1; k1++) {
		const struct topo_link *l1 = LINK(t, gl1[k1]);
		uint32_t h1 = UINT32_MAX, n1h;
		bool f1 = one_hop(df, gs, s, l1->from, &h1, &n1h);

		pathset_clear(t1);
		if (!f1 && local_walk(df, t, gs, s, l1->from, buf, 0, t1))
			goto out;
		for (uint32_t k2 = 0; k2 < n2; k2++) {
			const struct topo_link *l2 = LINK(t, gl2[k2]);
			uint32_t key = l1->to * df->maxa + df->idx[l2->from];
			uint32_t m = 0;

			if (f1 && n2h[k2] <= 1) {
				/* both local parts single paths of at most
				 * one link: the stem straight away */
				buf[m++] = topo_inject_link(t, src);
				if (n1h)
					buf[m++] = h1;
				buf[m++] = gl1[k1];
				buf[m++] = gl2[k2];
				if (n2h[k2])
					buf[m++] = h2[k2];
				buf[m++] = topo_eject_link(t, dst);
				if (stemset_add(out, buf, m, PATH_VLB, key))
					goto out;
				continue;
			}
			if (f1 && !t1->n &&
			    local_walk(df, t, gs, s, l1->from, buf, 0, t1))
				goto out;
			if (o2[2 * k2] == UINT32_MAX) {
				o2[2 * k2] = t2->n;
				if (local_walk(df, t, gd, l2->to, d, buf, 0,
					       t2))
					goto out;
				o2[2 * k2 + 1] = t2->n;
			}
			for (uint32_t i = 0; i < t1->n; i++)
				for (uint32_t j = o2[2 * k2];
				     j < o2[2 * k2 + 1]; j++) {
					uint32_t len = 0;

					buf[len++] = topo_inject_link(t, src);
					len = put(buf, len, t1, i);
					buf[len++] = gl1[k1];
					buf[len++] = gl2[k2];
					len = put(buf, len, t2, j);
					buf[len++] = topo_eject_link(t, dst);
					if (stemset_add(out, buf, len, PATH_VLB,
							key))
						goto out;
				}
		}
	}
	rc = 0;
out:
	if (h2 != small)
		free(h2);
	return rc;
}

/* The stems of paths(): the same paths, the VLB ones through another
 * group factored by their middle key. */
static int stems(const struct routing *r, uint32_t src, uint32_t dst,
		 struct stemset *out, struct err *err)
{
	const struct df *df = r->priv;
	const struct topo *t = r->t;
	uint32_t s = topo_node_switch(t, src), d = topo_node_switch(t, dst);
	uint32_t gs = grp(df, t, s), gd = grp(df, t, d), before = out->p.n;
	bool local = gs == gd && !df->intra_global;
	struct pathset a, b, t1, t2;
	int rc = -1;

	pathset_init(&a);
	pathset_init(&b);
	pathset_init(&t1);
	pathset_init(&t2);
	if (df->mode != MODE_VLB &&
	    (min_seqs(df, t, s, d, &a, &t1, &t2) ||
	     emit_stems(t, src, dst, &a, PATH_MIN, out)))
		goto nomem;
	before = out->p.n;
	for (uint32_t g = 0; g < df->G; g++) {
		if (local ? g != gs : (g == gs || g == gd))
			continue;
		if (!local) {
			if (df->mem_off[g + 1] > df->mem_off[g] &&
			    vlb_stems(df, t, src, dst, g, &t1, &t2, out))
				goto nomem;
			continue;
		}
		for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
			uint32_t i = df->mem[k];

			if (i == s || i == d)
				continue;
			pathset_clear(&a);
			pathset_clear(&b);
			if (min_seqs(df, t, s, i, &a, &t1, &t2) ||
			    min_seqs(df, t, i, d, &b, &t1, &t2))
				goto nomem;
			/* a x b, each a single-path stem */
			for (uint32_t x = 0; x < a.n; x++)
				for (uint32_t y = 0; y < b.n; y++) {
					uint32_t buf[2 * ROUTING_MAX_HOPS + 4],
						len = 0;

					buf[len++] = topo_inject_link(t, src);
					len = put(buf, len, &a, x);
					len = put(buf, len, &b, y);
					buf[len++] = topo_eject_link(t, dst);
					if (stemset_add(out, buf, len, PATH_VLB,
							ROUTING_NO_MIDDLE))
						goto nomem;
				}
		}
	}
	if (df->mode == MODE_VLB && out->p.n == before) {
		pathset_clear(&a);
		if (min_seqs(df, t, s, d, &a, &t1, &t2) ||
		    emit_stems(t, src, dst, &a, PATH_MIN, out))
			goto nomem;
	}
	if (out->p.n == 0) {
		err_set(err, "no path from node %u to node %u", src, dst);
		goto out;
	}
	rc = 0;
	goto out;
nomem:
	err_nomem(err, "out of memory");
out:
	pathset_free(&a);
	pathset_free(&b);
	pathset_free(&t1);
	pathset_free(&t2);
	return rc;
}

/* The middles of key (v, u): local(v -> I) + local(I -> u) for every
 * router I of v's group, in id order, every pair of local paths. */
static int middles(const struct routing *r, uint32_t key, struct pathset *out,
		   struct err *err)
{
	const struct df *df = r->priv;
	const struct topo *t = r->t;
	uint32_t v = key / df->maxa, g = grp(df, t, v), iu = key % df->maxa;
	uint32_t buf[ROUTING_MAX_HOPS + 2], u;
	struct pathset a, b;
	int rc = -1;

	if (iu >= df->mem_off[g + 1] - df->mem_off[g])
		return err_set(err, "middle key %u: group %u has %u routers",
			       key, g, df->mem_off[g + 1] - df->mem_off[g]);
	u = df->mem[df->mem_off[g] + iu];
	pathset_init(&a);
	pathset_init(&b);
	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
		uint32_t i = df->mem[k];

		pathset_clear(&a);
		pathset_clear(&b);
		if (local_walk(df, t, g, v, i, buf, 0, &a) ||
		    local_walk(df, t, g, i, u, buf, 0, &b))
			goto nomem;
		for (uint32_t x = 0; x < a.n; x++)
			for (uint32_t y = 0; y < b.n; y++) {
				uint32_t len = 0;

				for (uint32_t e = a.off[x]; e < a.off[x + 1];
				     e++)
					buf[len++] = a.links[e];
				for (uint32_t e = b.off[y]; e < b.off[y + 1];
				     e++)
					buf[len++] = b.links[e];
				if (pathset_add(out, buf, len, PATH_VLB))
					goto nomem;
			}
	}
	rc = 0;
	goto out;
nomem:
	err_nomem(err, "out of memory");
out:
	pathset_free(&a);
	pathset_free(&b);
	return rc;
}

/* ---- structural link sets ---- */

/* Every link of every local shortest path x -> y. */
static uint32_t mark_local(const struct df *df, const struct topo *t,
			   uint32_t g, uint32_t x, uint32_t y, uint8_t *used)
{
	uint8_t dx;
	uint32_t cnt, first, fresh = 0;

	if (x == y)
		return 0;
	dx = D(df, g, x, y);
	first = topo_switch_out(t, x, &cnt);
	if (dx == 1) {
		/* one hop: the links x -> y themselves (the out-links are
		 * sorted by destination), found by bisection */
		uint32_t lo = first, hi = first + cnt;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (LINK(t, mid)->to < y)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t l = lo; l < first + cnt && LINK(t, l)->to == y;
		     l++) {
			fresh += !used[l];
			used[l] = 1;
		}
		return fresh;
	}
	for (uint32_t l = first; l < first + cnt; l++) {
		uint32_t z = LINK(t, l)->to;

		if (GROUP(t, z) != g || D(df, g, z, y) != dx - 1)
			continue;
		fresh += !used[l];
		used[l] = 1;
		fresh += mark_local(df, t, g, z, y, used);
	}
	return fresh;
}

/* Every link of every local shortest path from V to any router of its
 * group: the links x->z with dist(v,z) = dist(v,x) + 1. */
static uint32_t mark_from_all(const struct df *df, const struct topo *t,
			      uint32_t v, uint8_t *used)
{
	uint32_t g = grp(df, t, v), fresh = 0;

	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
		uint32_t x = df->mem[k], cnt, first;
		uint8_t dx = D(df, g, v, x);

		if (dx >= df->diam[g])
			continue;
		first = topo_switch_out(t, x, &cnt);
		for (uint32_t l = first; l < first + cnt; l++) {
			uint32_t z = LINK(t, l)->to;

			if (GROUP(t, z) == g && D(df, g, v, z) == dx + 1) {
				fresh += !used[l];
				used[l] = 1;
			}
		}
	}
	return fresh;
}

/* Every link of every local shortest path from any router of its group
 * to U: the links x->z with dist(x,u) = dist(z,u) + 1. */
static uint32_t mark_to_all(const struct df *df, const struct topo *t,
			    uint32_t u, uint8_t *used)
{
	uint32_t g = grp(df, t, u), fresh = 0;

	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
		uint32_t z = df->mem[k], cnt;
		uint8_t dz = D(df, g, z, u);
		const uint32_t *in;

		if (dz >= df->diam[g])
			continue;
		in = topo_switch_in(t, z, &cnt);
		for (uint32_t e = 0; e < cnt; e++) {
			uint32_t x = LINK(t, in[e])->from;

			if (GROUP(t, x) == g && D(df, g, x, u) == dz + 1) {
				fresh += !used[in[e]];
				used[in[e]] = 1;
			}
		}
	}
	return fresh;
}

/* A step coprime with N of about sqrt(N): visiting 0, step, 2 step, ...
 * mod N spreads over the rows and columns of a Cascade group early, so
 * the whole-group coverage that stops the loops below is reached after a
 * few routers (the order does not change the result). */
static uint32_t stride(uint32_t n)
{
	uint32_t s = 1;

	while (s * s < n)
		s++;
	for (s++; n > 1; s++) {
		uint32_t a = s, b = n;

		while (b) {
			uint32_t r = a % b;

			a = b;
			b = r;
		}
		if (a == 1)
			break;
	}
	return n > 1 ? s % n : 0;
}

/* Local links of group G already in USED. */
static uint32_t count_marked(const struct df *df, const struct topo *t,
			     uint32_t g, const uint8_t *used)
{
	uint32_t n = 0;

	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
		uint32_t cnt, first = topo_switch_out(t, df->mem[k], &cnt);

		for (uint32_t l = first; l < first + cnt; l++)
			n += GROUP(t, LINK(t, l)->to) == g && used[l];
	}
	return n;
}

struct job {
	uint32_t *cnt;	  /* [G] job switches per group */
	uint32_t *sw;	  /* job switches, grouped: sw[off[g] .. ) */
	uint32_t *off;	  /* [G+1] */
	uint32_t *groups; /* job groups, ascending */
	uint32_t ng;
	uint8_t *flag; /* [S] scratch bitmaps, 4 bits used */
};

enum {
	EXIT_MIN = 1,
	ENTRY_MIN = 2,
	EXIT_VLB = 4,
	ENTRY_VLB = 8,
	FROM_ALL = 16,
	TO_ALL = 32,
	IN_JOB = 64
};

static void job_free(struct job *j)
{
	free(j->cnt);
	free(j->sw);
	free(j->off);
	free(j->groups);
	free(j->flag);
}

static int job_build(const struct df *df, const struct topo *t,
		     const uint32_t *nodes, uint32_t n, struct job *j)
{
	uint32_t G = df->G, *pos;

	memset(j, 0, sizeof(*j));
	j->cnt = calloc(G ? G : 1, sizeof(uint32_t));
	j->off = calloc((size_t)G + 1, sizeof(uint32_t));
	j->groups = malloc((G ? G : 1) * sizeof(uint32_t));
	j->flag = calloc(df->S ? df->S : 1, 1);
	j->sw = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!j->cnt || !j->off || !j->groups || !j->flag || !j->sw)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = topo_node_switch(t, nodes[i]);

		if (j->flag[s] & IN_JOB)
			continue;
		j->flag[s] |= IN_JOB;
		j->cnt[grp(df, t, s)]++;
	}
	for (uint32_t g = 0; g < G; g++) {
		j->off[g + 1] = j->off[g] + j->cnt[g];
		if (j->cnt[g])
			j->groups[j->ng++] = g;
	}
	pos = malloc(((size_t)G + 1) * sizeof(uint32_t));
	if (!pos)
		return -1;
	memcpy(pos, j->off, ((size_t)G + 1) * sizeof(uint32_t));
	for (uint32_t g = 0; g < G; g++)
		for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++)
			if (j->flag[df->mem[k]] & IN_JOB)
				j->sw[pos[g]++] = df->mem[k];
	free(pos);
	return 0;
}

/* Is the first half of a VLB path from job group GS through group GI used
 * (equivalently, by symmetry, the second half through GI into GS)?  Some
 * flow out of GS must admit GI as intermediate group. */
static bool half_used(const struct df *df, const struct job *j, uint32_t gs,
		      uint32_t gi)
{
	if (gi == gs)
		return false;
	if (df->intra_global && j->cnt[gs] >= 2)
		return true; /* a flow inside GS, through GI */
	if (j->ng >= 3)
		return true;		  /* some destination group is not GI */
	return j->ng == 2 && !j->cnt[gi]; /* the one other group is not GI */
}

/* Every local link of group G: each is the one-hop shortest path between
 * its end points, so this is the union of local(v -> all) over all v. */
static void mark_group(const struct df *df, const struct topo *t, uint32_t g,
		       uint8_t *used)
{
	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
		uint32_t cnt, first = topo_switch_out(t, df->mem[k], &cnt);

		for (uint32_t l = first; l < first + cnt; l++)
			if (GROUP(t, LINK(t, l)->to) == g)
				used[l] = 1;
	}
}

static uint32_t count_flag(const struct df *df, const struct job *j, uint32_t g,
			   uint8_t f)
{
	uint32_t n = 0;

	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++)
		n += (j->flag[df->mem[k]] & f) != 0;
	return n;
}

/* Mark local paths from each job switch of G to every router flagged
 * EXIT_F and from every router flagged ENTRY_F to each job switch of G.
 * When every router of G is flagged, that is local(s -> all). */
static void mark_ends(const struct df *df, const struct topo *t,
		      const struct job *j, uint32_t g, uint8_t exit_f,
		      uint8_t entry_f, uint8_t *used)
{
	uint32_t a = df->mem_off[g + 1] - df->mem_off[g];
	bool all_exit = count_flag(df, j, g, exit_f) == a;
	bool all_entry = count_flag(df, j, g, entry_f) == a;
	uint32_t have = count_marked(df, t, g, used);

	uint32_t nj = j->off[g + 1] - j->off[g], step = stride(nj);

	for (uint32_t i = 0, q = 0; i < nj; i++, q = (q + step) % nj) {
		uint32_t sw = j->sw[j->off[g] + q];

		if (have >= df->nlocal[g])
			return;
		if (all_exit)
			have += mark_from_all(df, t, sw, used);
		if (all_entry)
			have += mark_to_all(df, t, sw, used);
	}
	if (all_exit && all_entry)
		return;
	for (uint32_t k = df->mem_off[g]; k < df->mem_off[g + 1]; k++) {
		uint32_t u = df->mem[k];

		for (uint32_t q = j->off[g]; q < j->off[g + 1]; q++) {
			if (have >= df->nlocal[g])
				return;
			if (!all_exit && (j->flag[u] & exit_f))
				have += mark_local(df, t, g, j->sw[q], u, used);
			if (!all_entry && (j->flag[u] & entry_f))
				have += mark_local(df, t, g, u, j->sw[q], used);
		}
	}
}

/* local(v -> all) for routers flagged FROM_ALL and local(all -> u) for
 * those flagged TO_ALL, stopping as soon as every local link of G is
 * marked (with many flagged routers a few of them already cover it). */
static void mark_some(const struct df *df, const struct topo *t,
		      const struct job *j, uint32_t g, uint8_t *used)
{
	uint32_t have = UINT32_MAX, a = df->mem_off[g + 1] - df->mem_off[g];
	uint32_t step = stride(a);

	for (uint32_t i = 0, k = 0; i < a; i++, k = (k + step) % a) {
		uint32_t s = df->mem[df->mem_off[g] + k];

		if (!(j->flag[s] & (FROM_ALL | TO_ALL)))
			continue;
		if (have == UINT32_MAX)
			have = count_marked(df, t, g, used);
		if (have == df->nlocal[g])
			return;
		if (j->flag[s] & FROM_ALL)
			have += mark_from_all(df, t, s, used);
		if (j->flag[s] & TO_ALL)
			have += mark_to_all(df, t, s, used);
	}
}

/*
 * Link set of all ordered pairs of the job's switches, group by group.
 *
 * MIN, flows inside a group G: the local paths between its job switches.
 * MIN, flows G -> H (both job groups): every global link G -> H, local
 *   paths from each job switch of G to the links' sources (EXIT_MIN) and
 *   from their targets (ENTRY_MIN) to each job switch of H.
 * VLB through group I: a path's first half from job group G is
 *   local(s -> u), a global link u -> v from G to I and local(v -> any
 *   router of I); its second half into job group H is local(any router of
 *   I -> u'), a global link u' -> v' and local(v' -> d).  Both halves are
 *   used exactly when some flow admits I as intermediate (half_used), and
 *   the two halves are independent, so the union is taken per (G, I).
 * VLB inside a group with intra=local: local(s -> I) for every other
 *   router I, when some destination d != s, I exists; and symmetrically.
 * vlb's fallback to MIN (flows without any intermediate) adds the MIN
 *   links of those flows.
 */
static int linkset(const struct routing *r, const uint32_t *nodes, uint32_t n,
		   uint8_t *used, struct err *err)
{
	const struct df *df = r->priv;
	const struct topo *t = r->t;
	bool want_min = df->mode != MODE_VLB, want_vlb = df->mode != MODE_MIN;
	struct job j;

	if (!df->complete)
		return routing_linkset_enum(r, nodes, n, used, err);
	if (job_build(df, t, nodes, n, &j)) {
		job_free(&j);
		return err_nomem(err, "out of memory");
	}
	for (uint32_t q = 0; q < j.ng; q++) {
		uint32_t g = j.groups[q];
		uint32_t a = df->mem_off[g + 1] - df->mem_off[g];
		bool vlb_empty = df->intra_global ? df->G < 2 : a < 3;

		uint32_t have, need = df->nlocal[g];

		if (j.cnt[g] < 2)
			continue;
		/* Every step below only adds local links of G: stop once they
		 * are all marked. */
		have = count_marked(df, t, g, used);
		/* MIN inside G (ugal, min, or vlb without intermediates) */
		if (want_min || vlb_empty)
			for (uint32_t x = j.off[g]; x < j.off[g + 1]; x++)
				for (uint32_t y = j.off[g];
				     y < j.off[g + 1] && have < need; y++)
					have += mark_local(df, t, g, j.sw[x],
							   j.sw[y], used);
		/* VLB inside G through its own routers: with a third job
		 * switch every router is an intermediate of some flow, so
		 * the union over I of local(s -> I) is local(s -> all) */
		if (want_vlb && !df->intra_global && !vlb_empty &&
		    j.cnt[g] >= 3)
			for (uint32_t i = 0, x = 0, nj = j.cnt[g],
				      step = stride(nj);
			     i < nj && have < need; i++, x = (x + step) % nj) {
				uint32_t sw = j.sw[j.off[g] + x];

				have += mark_from_all(df, t, sw, used);
				have += mark_to_all(df, t, sw, used);
			}
		else if (want_vlb && !df->intra_global && !vlb_empty)
			for (uint32_t k = df->mem_off[g];
			     k < df->mem_off[g + 1]; k++) {
				uint32_t I = df->mem[k];

				if (j.flag[I] & IN_JOB)
					continue; /* two job switches: I != s, d */
				for (uint32_t x = j.off[g];
				     x < j.off[g + 1] && have < need; x++) {
					have += mark_local(df, t, g, j.sw[x], I,
							   used);
					have += mark_local(df, t, g, I, j.sw[x],
							   used);
				}
			}
	}
	/* global links out of each job group */
	for (uint32_t q = 0; q < j.ng; q++) {
		uint32_t g = j.groups[q];

		for (uint32_t k = df->gl_off[g]; k < df->gl_off[g + 1]; k++) {
			uint32_t l = df->gl[k];
			const struct topo_link *lk = LINK(t, l);
			uint32_t h = grp(df, t, lk->to);

			/* MIN g -> h; vlb falls back to MIN when g = 2 */
			if (j.cnt[h] && (want_min || df->G == 2)) {
				used[l] = 1;
				j.flag[lk->from] |= EXIT_MIN;
				j.flag[lk->to] |= ENTRY_MIN;
			}
			if (want_vlb && half_used(df, &j, g, h)) {
				const struct topo_link *rv =
					LINK(t, lk->reverse);

				used[l] = 1;
				used[lk->reverse] = 1;
				j.flag[lk->from] |= EXIT_VLB;
				j.flag[lk->to] |= FROM_ALL;
				j.flag[rv->from] |= TO_ALL;
				j.flag[rv->to] |= ENTRY_VLB;
			}
		}
	}
	for (uint32_t q = 0; q < j.ng; q++)
		mark_ends(df, t, &j, j.groups[q], EXIT_MIN | EXIT_VLB,
			  ENTRY_MIN | ENTRY_VLB, used);
	for (uint32_t g = 0; g < df->G; g++) {
		uint32_t a = df->mem_off[g + 1] - df->mem_off[g];

		if (count_flag(df, &j, g, FROM_ALL) == a ||
		    count_flag(df, &j, g, TO_ALL) == a) {
			mark_group(df, t, g, used);
			continue;
		}
		mark_some(df, t, &j, g, used);
	}
	job_free(&j);
	return 0;
}

const struct routing_ops routing_min = {
	.name = "min",
	.multipath = true,
	.switch_paths = true,
	.applies = applies,
	.init = init_min,
	.fini = fini,
	.paths = paths,
	.count = count,
	.linkset = linkset,
};

const struct routing_ops routing_vlb = {
	.name = "vlb",
	.opts = opts,
	.multipath = true,
	.switch_paths = true,
	.applies = applies,
	.init = init_vlb,
	.fini = fini,
	.paths = paths,
	.count = count,
	.linkset = linkset,
	.middle_keys = middle_keys,
	.stems = stems,
	.middles = middles,
};

const struct routing_ops routing_ugal = {
	.name = "ugal",
	.opts = opts,
	.multipath = true,
	.switch_paths = true,
	.applies = applies,
	.init = init_ugal,
	.fini = fini,
	.paths = paths,
	.count = count,
	.linkset = linkset,
	.middle_keys = middle_keys,
	.stems = stems,
	.middles = middles,
};
