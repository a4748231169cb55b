/* policy_mesh_blocks.c - convex blocks of whole routers on express mesh,
 * HyperX and torus (paper 003 Sec. IV-B-3), the Blue Gene / Cray XE way.
 *
 * Under dor and minimal routing (topo/routing_mesh.c) every hop moves
 * toward the destination in its dimension, so all paths between routers of
 * a cuboid stay inside it: a job whose routers lie in a cuboid uses only
 * links between routers of that cuboid.  On a torus this holds only when
 * every extent is the whole ring or e with 2(e-1) < k (shorter than half
 * the ring; at exactly half, minimal routing goes both ways round), so
 * only such blocks are handed out (a block may wrap around the ring).
 *
 * The policy infers each running multi-router job's box (its routers'
 * bounding cuboid; on a torus the shortest cyclic interval per dimension,
 * or the whole ring when that interval is half the ring or more, since
 * flows may then go round the other way) from owner[] and keeps boxes
 * disjoint:
 *   - a job that fits on one router goes to a router with enough free
 *     nodes (routers inside another job's box first, then fewest free,
 *     then lowest id): it uses no switch-to-switch link, so it may take
 *     leftover routers of any block;
 *   - any other job gets a cuboid of whole routers (every node free and
 *     usable) that lies in no other job's box, and takes its nodes router
 *     by router in id order within the cuboid (so its own box is inside
 *     the cuboid); leftover routers of its box serve single-router jobs
 *     only.
 * mode=variable (default): any cuboid of at least ceil(n/p) routers, least
 * waste first (fewest routers), then most compact (smallest longest
 * extent), then shortest extents in the highest dimensions (2x1x1 before
 * 1x1x2), then lowest origin id.
 * mode=building-block: the machine is tiled with blocks of shape block=
 * (e.g. 2x2x2, each extent dividing the dimension); a job gets a cuboid of
 * ceil(n / (block routers * p)) or more whole free blocks, chosen in the
 * same order on the block grid. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"

#define D TOPO_MAX_DIMS

static const struct spec_opt opts[] = {
	{ .key = "mode",
	  .def = "variable",
	  .help = "variable (any convex block) or building-block" },
	{ .key = "block",
	  .def = "2x2x2",
	  .help = "building-block extents, one per dimension" },
	{ 0 },
};
static const char *const modes[] = { "variable", "building-block", NULL };

struct shape {
	uint32_t e[D]; /* extent in cells */
	uint32_t vol;  /* cells */
	uint32_t maxe; /* longest extent in routers */
};

struct mb {
	int n; /* dimensions */
	bool torus;
	uint32_t k[D];	/* routers per dimension */
	uint32_t c[D];	/* cell (block) extent, 1 in variable mode */
	uint32_t kc[D]; /* cells per dimension */
	uint32_t p;	/* nodes per router (max) */
	uint32_t R, ncells;
	bool blocks;
	struct shape *shapes; /* allowed shapes, sorted */
	uint32_t nshapes;
	uint32_t *rc;	   /* [R * D] router coordinates */
	uint64_t *last[D]; /* [cell words] cells with x_d = kc_d - 1 */
	uint32_t ext[D];   /* extended grid (prefix sums): kc or 2kc */
	size_t next;	   /* cells of the extended grid + 1 per dim */
	uint32_t koff[D];  /* offset of dimension d in a job's counts */
	uint32_t sumk;	   /* sum of k */
	struct mcache *cache;
};

struct mcache;
struct fs;
static struct fs *fs_new(void);
static void fs_destroy(struct fs *f);
static void cache_destroy(struct mcache *c);
static struct mcache *cache_new(const struct mb *m, uint32_t N);

static int parse_block(const char *s, uint32_t *out, int n)
{
	int i = 0;

	while (*s) {
		char *end;
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || v == 0 || v > 1u << 20 || i >= n)
			return -1;
		out[i++] = (uint32_t)v;
		if (*end == 'x')
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	return i == n ? 0 : -1;
}

static int cmp_shape(const void *a, const void *b)
{
	const struct shape *x = a, *y = b;

	if (x->vol != y->vol)
		return x->vol < y->vol ? -1 : 1;
	if (x->maxe != y->maxe)
		return x->maxe < y->maxe ? -1 : 1;
	/* then short extents in the high dimensions first: 2x1x1 before
	 * 1x1x2, so blocks grow along dimension 0 (node order) */
	for (int i = D - 1; i >= 0; i--)
		if (x->e[i] != y->e[i])
			return x->e[i] < y->e[i] ? -1 : 1;
	return 0;
}

/* Whether extent E routers is allowed in a dimension of K routers. */
static bool extent_ok(const struct mb *m, uint32_t e, uint32_t k)
{
	return !m->torus || e == k || 2 * (uint64_t)(e - 1) < k;
}

static int build_shapes(struct mb *m)
{
	uint64_t total = 1;
	uint32_t e[D];

	for (int i = 0; i < m->n; i++)
		total *= m->kc[i];
	m->shapes = malloc(total * sizeof(*m->shapes));
	if (!m->shapes)
		return -1;
	for (int i = 0; i < D; i++)
		e[i] = 1;
	for (;;) {
		struct shape s = { .vol = 1 };
		bool ok = true;
		int i;

		for (i = 0; i < m->n; i++) {
			uint32_t r = e[i] * m->c[i];

			ok = ok && extent_ok(m, r, m->k[i]);
			s.e[i] = e[i];
			s.vol *= e[i];
			if (r > s.maxe)
				s.maxe = r;
		}
		if (ok)
			m->shapes[m->nshapes++] = s;
		for (i = 0; i < m->n && ++e[i] > m->kc[i]; i++)
			e[i] = 1;
		if (i == m->n)
			break;
	}
	qsort(m->shapes, m->nshapes, sizeof(*m->shapes), cmp_shape);
	return 0;
}

static void destroy(void *state)
{
	struct mb *m = state;

	if (m) {
		cache_destroy(m->cache);
		free(m->shapes);
		free(m->rc);
		for (int d = 0; d < D; d++)
			free(m->last[d]);
	}
	free(m);
}

static int create(struct policy *p, struct err *err)
{
	struct mb *m;
	int mode;
	uint32_t blk[D];

	if (!topo_traits(p->t)->grid)
		return err_set(err,
			       "policy mesh-blocks: topology %s is not "
			       "an express mesh, HyperX or torus",
			       topo_family(p->t));
	if (policy_opt_choice(p, "mode", modes, &mode, err))
		return -1;
	if (strcmp(routing_name(p->r), "dor") &&
	    strcmp(routing_name(p->r), "minimal"))
		return err_set(err,
			       "policy mesh-blocks: routing %s "
			       "is not supported (dor, minimal)",
			       routing_spec(p->r));
	m = calloc(1, sizeof(*m));
	if (!m)
		return err_nomem(err, "policy mesh-blocks: out of memory");
	m->n = topo_dims(p->t, m->k);
	m->torus = topo_traits(p->t)->wraps;
	m->blocks = mode == 1;
	m->R = topo_num_switches(p->t);
	for (uint32_t s = 0; s < m->R; s++) {
		uint32_t cnt;

		topo_switch_nodes(p->t, s, &cnt);
		if (cnt > m->p)
			m->p = cnt;
	}
	if (m->blocks && parse_block(policy_opt(p, "block"), blk, m->n)) {
		int n = m->n;

		destroy(m);
		return err_set(err,
			       "policy mesh-blocks: block=%s: want %d "
			       "extents like 2x2x2",
			       policy_opt(p, "block"), n);
	}
	m->ncells = 1;
	m->next = 1;
	for (int i = 0; i < m->n; i++) {
		m->c[i] = m->blocks ? blk[i] : 1;
		if (m->k[i] % m->c[i]) {
			uint32_t ki = m->k[i];

			destroy(m);
			return err_set(err,
				       "policy mesh-blocks: block=%s: "
				       "extent %u does not divide dimension "
				       "%d (%u)",
				       policy_opt(p, "block"), blk[i], i, ki);
		}
		m->kc[i] = m->k[i] / m->c[i];
		m->ncells *= m->kc[i];
		m->ext[i] = m->torus ? 2 * m->kc[i] : m->kc[i];
		m->next *= m->ext[i] + 1;
	}
	if (m->n == 0 || build_shapes(m)) {
		destroy(m);
		return err_set(err, "policy mesh-blocks: no router grid");
	}
	m->rc = malloc((size_t)m->R * D * sizeof(*m->rc));
	if (!m->rc) {
		destroy(m);
		return err_nomem(err, "policy mesh-blocks: out of memory");
	}
	for (int d = 0; d < m->n; d++) {
		m->last[d] = calloc((m->ncells + 63) / 64, sizeof(uint64_t));
		if (!m->last[d]) {
			destroy(m);
			return err_nomem(err,
					 "policy mesh-blocks: out of memory");
		}
	}
	{
		uint32_t cx[D] = { 0 };

		for (uint32_t c = 0;; c++) {
			int d;

			for (d = 0; d < m->n; d++)
				if (cx[d] == m->kc[d] - 1)
					m->last[d][c / 64] |= UINT64_C(1)
							      << (c % 64);
			for (d = 0; d < m->n && ++cx[d] >= m->kc[d]; d++)
				cx[d] = 0;
			if (d == m->n)
				break;
		}
	}
	for (uint32_t r = 0; r < m->R; r++) {
		uint32_t x = r;

		for (int d = 0; d < m->n; d++) {
			m->rc[(size_t)r * D + d] = x % m->k[d];
			x /= m->k[d];
		}
	}
	for (int d = 0; d < m->n; d++) {
		m->koff[d] = m->sumk;
		m->sumk += m->k[d];
	}
	m->cache = cache_new(m, topo_num_nodes(p->t));
	if (!m->cache) {
		destroy(m);
		return err_nomem(err, "policy mesh-blocks: out of memory");
	}
	if (!m->blocks) /* canonical spec: block= does not apply */
		policy_opt_show(p, "block", "-");
	p->state = m;
	return 0;
}

/* ---- per call ---- */

struct st {
	uint32_t *rfree; /* [R] free usable nodes */
	uint8_t *ravail; /* [R] whole and outside every job's box */
	uint8_t *inbox;	 /* [R] inside some multi-router job's box */
	uint32_t *pre;	 /* prefix sums of available cells, extended
			  * (the reference search only) */
	uint64_t *cav;	 /* [words] available cells, bit = cell index */
};

static void st_free(struct st *s)
{
	free(s->rfree);
	free(s->ravail);
	free(s->inbox);
	free(s->pre);
	free(s->cav);
}

static uint32_t router_of(const struct mb *m, const uint32_t *x)
{
	uint32_t r = 0;

	for (int i = m->n - 1; i >= 0; i--)
		r = r * m->k[i] + x[i] % m->k[i];
	return r;
}

/* Interval [lo, lo+len) (mod k on a torus) covering the coordinates
 * marked in PRESENT[0..k). */
static void hull(const struct mb *m, const uint8_t *present, uint32_t k,
		 uint32_t *lo, uint32_t *len)
{
	uint32_t first = k, last = 0, gap = 0, gapend = 0, run = 0;

	for (uint32_t x = 0; x < k; x++)
		if (present[x]) {
			if (first == k)
				first = x;
			last = x;
		}
	*lo = first;
	*len = last - first + 1;
	if (!m->torus)
		return;
	/* largest circular run of absent coordinates */
	for (uint32_t i = 0; i < 2 * k; i++) {
		run = present[(first + 1 + i) % k] ? 0 : run + 1;
		if (run > gap && run < k) {
			gap = run;
			gapend = (first + 1 + i) % k;
		}
	}
	*lo = (gapend + 1) % k;
	*len = k - gap;
}

/* Mark the boxes of multi-router jobs in s->inbox. */
static int mark_boxes(const struct policy *p, const struct mb *m,
		      const struct policy_view *v, struct st *s)
{
	uint32_t N = topo_num_nodes(p->t), kmax = 0, np = 0, total = 0;
	struct policy_jobs jobs;
	uint32_t *cnt, *pos, *last, *pj, *pr, *list;
	uint8_t *present;
	int rc = -1;

	if (policy_jobs_build(&jobs, v->owner, N))
		return -1;
	for (int i = 0; i < m->n; i++)
		if (m->k[i] > kmax)
			kmax = m->k[i];
	cnt = calloc((size_t)jobs.n + 1, sizeof(*cnt));
	pos = malloc(((size_t)jobs.n + 1) * sizeof(*pos));
	last = malloc(((size_t)jobs.n + 1) * sizeof(*last));
	pj = malloc(((size_t)N + 1) * sizeof(*pj));
	pr = malloc(((size_t)N + 1) * sizeof(*pr));
	list = malloc(((size_t)N + 1) * sizeof(*list));
	present = calloc(kmax, 1);
	if (!cnt || !pos || !last || !pj || !pr || !list || !present)
		goto out;
	/* (job, router) pairs, at most one per node, grouped by job */
	for (uint32_t j = 0; j < jobs.n; j++)
		last[j] = UINT32_MAX;
	for (uint32_t r = 0; r < m->R; r++) {
		uint32_t c;
		const uint32_t *nodes = topo_switch_nodes(p->t, r, &c);

		for (uint32_t i = 0; i < c; i++) {
			uint32_t j = jobs.idx[nodes[i]];

			if (j == UINT32_MAX || last[j] == r)
				continue;
			last[j] = r;
			cnt[j]++;
			pj[np] = j;
			pr[np++] = r;
		}
	}
	for (uint32_t j = 0; j < jobs.n; j++) {
		pos[j] = total;
		total += cnt[j];
	}
	for (uint32_t i = 0; i < np; i++)
		list[pos[pj[i]]++] = pr[i];
	for (uint32_t j = 0; j < jobs.n; j++)
		pos[j] -= cnt[j];
	for (uint32_t j = 0; j < jobs.n; j++) {
		uint32_t lo[D], len[D], x[D], idx[D];
		int d;

		if (cnt[j] < 2)
			continue;
		for (d = 0; d < m->n; d++) {
			memset(present, 0, m->k[d]);
			for (uint32_t i = 0; i < cnt[j]; i++)
				present[m->rc[(size_t)list[pos[j] + i] * D + d]] =
					1;
			hull(m, present, m->k[d], &lo[d], &len[d]);
			/* a torus interval of half the ring or more: flows
			 * may go round the other way, the whole ring is its */
			if (!extent_ok(m, len[d], m->k[d])) {
				lo[d] = 0;
				len[d] = m->k[d];
			}
			idx[d] = 0;
		}
		for (;;) {
			for (d = 0; d < m->n; d++)
				x[d] = lo[d] + idx[d];
			s->inbox[router_of(m, x)] = 1;
			for (d = 0; d < m->n && ++idx[d] >= len[d]; d++)
				idx[d] = 0;
			if (d == m->n)
				break;
		}
	}
	rc = 0;
out:
	policy_jobs_free(&jobs);
	free(cnt);
	free(pos);
	free(last);
	free(pj);
	free(pr);
	free(list);
	free(present);
	return rc;
}

/* Whether the cell at cell coordinates CX is available: all its routers
 * are. */
static bool cell_ok(const struct mb *m, const struct st *s, const uint32_t *cx)
{
	uint32_t r0[D], idx[D] = { 0 };
	int d;

	for (d = 0; d < m->n; d++)
		r0[d] = cx[d] * m->c[d];
	for (;;) {
		uint32_t rx[D];

		for (d = 0; d < m->n; d++)
			rx[d] = r0[d] + idx[d];
		if (!s->ravail[router_of(m, rx)])
			return false;
		for (d = 0; d < m->n && ++idx[d] >= m->c[d]; d++)
			idx[d] = 0;
		if (d == m->n)
			return true;
	}
}

/* Prefix sums over the extended cell grid: pre[(x0+1) + (ext0+1)*(...)]
 * = number of available cells with extended coordinates < x (the
 * reference search). */
static void prefix(const struct mb *m, struct st *s)
{
	uint32_t x[D] = { 0 }, stride[D];
	size_t sz = 1;

	for (int d = 0; d < m->n; d++) {
		stride[d] = (uint32_t)sz;
		sz *= m->ext[d] + 1;
	}
	memset(s->pre, 0, sz * sizeof(*s->pre));
	/* cell values at index (x+1) */
	for (;;) {
		size_t at = 0;
		uint32_t cx[D];
		int d;

		for (d = 0; d < m->n; d++) {
			at += (size_t)(x[d] + 1) * stride[d];
			cx[d] = x[d] % m->kc[d];
		}
		s->pre[at] = cell_ok(m, s, cx);
		for (d = 0; d < m->n && ++x[d] >= m->ext[d]; d++)
			x[d] = 0;
		if (d == m->n)
			break;
	}
	/* running sums, one dimension at a time */
	for (int d = 0; d < m->n; d++) {
		size_t st = stride[d], span = st * (m->ext[d] + 1);

		for (size_t base = 0; base < sz; base += span)
			for (size_t off = st; off < span; off += st)
				for (size_t r = 0; r < st; r++)
					s->pre[base + off + r] +=
						s->pre[base + off - st + r];
	}
}

/* s->cav: bit c set when cell c (c0 + kc0 * (c1 + kc1 * ...)) is
 * available. */
static void cell_bits(const struct mb *m, struct st *s)
{
	uint32_t cx[D] = { 0 };

	if (!m->blocks) { /* a cell is a router, numbered alike */
		for (uint32_t r = 0; r < m->R; r++)
			if (s->ravail[r])
				s->cav[r / 64] |= UINT64_C(1) << (r % 64);
		return;
	}

	for (uint32_t c = 0;; c++) {
		int d;

		if (cell_ok(m, s, cx))
			s->cav[c / 64] |= UINT64_C(1) << (c % 64);
		for (d = 0; d < m->n && ++cx[d] >= m->kc[d]; d++)
			cx[d] = 0;
		if (d == m->n)
			break;
	}
}

/* ---- the state of the last view asked, kept between calls ----
 * The per-call state (free nodes per router, the routers inside some
 * multi-router job's box, the available cells) is kept for the last view
 * asked and brought to the next one by the nodes whose owner or
 * usability changed: will-run asks about views a few released jobs
 * apart, and one backfill pass asks them of the same machine.  Each job
 * keeps, per dimension, how many of its nodes sit at each router
 * coordinate, from which its box is the same hull mark_boxes takes (a job
 * is on one router when each dimension has one coordinate); a router's
 * count of covering boxes replaces the inbox mark.  The state is the
 * content of the view, never its identity, so any view gets the answer
 * of a fresh scan (the replay test compares them). */
struct jslot {
	uint32_t id;
	uint8_t state; /* SLOT_EMPTY, SLOT_LIVE, SLOT_TOMB */
	uint32_t nn;   /* nodes */
	bool touched, boxed;
	uint32_t lo[D], len[D];
	uint32_t *cnt; /* [sumk] nodes per coordinate, per dimension */
};
enum { SLOT_EMPTY, SLOT_LIVE, SLOT_TOMB };

struct mcache {
	pthread_mutex_t lock;
	bool mapped;	     /* nsw and rn made */
	uint64_t gen;	     /* of the view held (0: unknown) ... */
	const uint8_t *uptr; /* ... with this usable pointer (a gen is a
			      * version of owner[] with one usable[]) */
	uint32_t N;
	uint32_t *own;	 /* [N] owner[] of the view held */
	uint8_t *use;	 /* [N] usable in it */
	uint32_t *nsw;	 /* [N] router of node */
	uint32_t *rn;	 /* [R] nodes of router */
	uint32_t *cover; /* [R] boxes covering the router */
	uint8_t *dirt;	 /* [R] router on the dirty list */
	uint32_t *dirty, ndirty;
	uint32_t *touched, ntouched, tcap;
	struct jslot *tab;
	uint32_t cap, used; /* used: live + tombstones */
	struct st s;	    /* rfree, ravail, inbox, cav */
	struct fs *fs;	    /* the search's free-origin sets */
	uint8_t *present;   /* [kmax] scratch */
};

static void cache_destroy(struct mcache *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; c->tab && i < c->cap; i++)
		free(c->tab[i].cnt);
	free(c->tab);
	free(c->own);
	free(c->use);
	free(c->nsw);
	free(c->rn);
	free(c->cover);
	free(c->dirt);
	free(c->dirty);
	free(c->touched);
	free(c->present);
	st_free(&c->s);
	fs_destroy(c->fs);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static struct mcache *cache_new(const struct mb *m, uint32_t N)
{
	struct mcache *c = calloc(1, sizeof(*c));
	uint32_t kmax = 1;

	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	for (int d = 0; d < m->n; d++)
		if (m->k[d] > kmax)
			kmax = m->k[d];
	c->N = N;
	c->cap = 64;
	c->own = calloc((size_t)N + 1, sizeof(*c->own));
	c->use = calloc((size_t)N + 1, 1);
	c->nsw = malloc(((size_t)N + 1) * sizeof(*c->nsw));
	c->rn = calloc((size_t)m->R + 1, sizeof(*c->rn));
	c->cover = calloc((size_t)m->R + 1, sizeof(*c->cover));
	c->dirt = calloc((size_t)m->R + 1, 1);
	c->dirty = malloc(((size_t)m->R + 1) * sizeof(*c->dirty));
	c->tab = calloc(c->cap, sizeof(*c->tab));
	c->present = calloc(kmax, 1);
	c->s.rfree = calloc((size_t)m->R + 1, sizeof(*c->s.rfree));
	c->s.ravail = calloc((size_t)m->R + 1, 1);
	c->s.inbox = calloc((size_t)m->R + 1, 1);
	c->s.cav = calloc((m->ncells + 63) / 64 + 1, sizeof(*c->s.cav));
	c->fs = fs_new();
	if (!c->fs || !c->own || !c->use || !c->nsw || !c->rn || !c->cover ||
	    !c->dirt || !c->dirty || !c->tab || !c->present || !c->s.rfree ||
	    !c->s.ravail || !c->s.inbox || !c->s.cav) {
		cache_destroy(c);
		return NULL;
	}
	return c;
}

/* The slot of job ID, made when MAKE (NULL: none, or out of memory). */
static struct jslot *slot_of(const struct mb *m, struct mcache *c, uint32_t id,
			     bool make)
{
	uint32_t h = policy_hash32(id) & (c->cap - 1);
	struct jslot *tomb = NULL;

	for (;; h = (h + 1) & (c->cap - 1)) {
		struct jslot *x = &c->tab[h];

		if (x->state == SLOT_LIVE && x->id == id)
			return x;
		if (x->state == SLOT_TOMB && !tomb)
			tomb = x;
		if (x->state == SLOT_EMPTY)
			break;
	}
	if (!make)
		return NULL;
	if (!tomb) {
		if (2 * (c->used + 1) > c->cap) { /* grow, dropping tombs */
			struct jslot *old = c->tab;
			uint32_t ocap = c->cap;

			c->tab = calloc((size_t)ocap * 2, sizeof(*c->tab));
			if (!c->tab) {
				c->tab = old;
				return NULL;
			}
			c->cap = ocap * 2;
			c->used = 0;
			for (uint32_t i = 0; i < ocap; i++) {
				if (old[i].state != SLOT_LIVE) {
					free(old[i].cnt);
					continue;
				}
				h = policy_hash32(old[i].id) & (c->cap - 1);
				while (c->tab[h].state != SLOT_EMPTY)
					h = (h + 1) & (c->cap - 1);
				c->tab[h] = old[i];
				c->used++;
			}
			free(old);
			return slot_of(m, c, id, true);
		}
		c->used++;
		tomb = &c->tab[h];
	}
	if (!tomb->cnt)
		tomb->cnt = malloc(((size_t)m->sumk + 1) * sizeof(uint32_t));
	if (!tomb->cnt)
		return NULL;
	memset(tomb->cnt, 0, (size_t)m->sumk * sizeof(uint32_t));
	tomb->id = id;
	tomb->state = SLOT_LIVE;
	tomb->nn = 0;
	tomb->touched = tomb->boxed = false;
	return tomb;
}

static void dirty(struct mcache *c, uint32_t r)
{
	if (!c->dirt[r]) {
		c->dirt[r] = 1;
		c->dirty[c->ndirty++] = r;
	}
}

/* Add DELTA (+1 or -1) to the cover count of the routers in J's box. */
static void cover_box(const struct mb *m, struct mcache *c,
		      const struct jslot *j, int delta)
{
	uint32_t x[D], idx[D] = { 0 };
	int d;

	for (;;) {
		uint32_t r;

		for (d = 0; d < m->n; d++)
			x[d] = j->lo[d] + idx[d];
		r = router_of(m, x);
		if (delta > 0 ? c->cover[r]++ == 0 : --c->cover[r] == 0)
			dirty(c, r);
		for (d = 0; d < m->n && ++idx[d] >= j->len[d]; d++)
			idx[d] = 0;
		if (d == m->n)
			break;
	}
}

/* J's box from its counts, as mark_boxes takes it; false: J is on one
 * router (no box). */
static bool job_box(const struct mb *m, struct mcache *c, const struct jslot *j,
		    uint32_t *lo, uint32_t *len)
{
	bool multi = false;

	for (int d = 0; d < m->n; d++) {
		const uint32_t *cnt = j->cnt + m->koff[d];
		uint32_t ncoord = 0;

		for (uint32_t x = 0; x < m->k[d]; x++)
			ncoord += c->present[x] = cnt[x] > 0;
		multi |= ncoord > 1;
		hull(m, c->present, m->k[d], &lo[d], &len[d]);
		if (!extent_ok(m, len[d], m->k[d])) {
			lo[d] = 0;
			len[d] = m->k[d];
		}
	}
	return multi;
}

/* Node I's router R moves between J's counts by DELTA. */
static int count_node(const struct mb *m, struct mcache *c, uint32_t id,
		      uint32_t r, int delta)
{
	struct jslot *j = slot_of(m, c, id, delta > 0);

	if (!j)
		return -1;
	for (int d = 0; d < m->n; d++)
		j->cnt[m->koff[d] + m->rc[(size_t)r * D + d]] +=
			(uint32_t)delta;
	j->nn += (uint32_t)delta;
	if (!j->touched) {
		if (c->ntouched == c->tcap) {
			uint32_t ncap = c->tcap ? 2 * c->tcap : 64;
			uint32_t *t = realloc(c->touched, ncap * sizeof(*t));

			if (!t)
				return -1;
			c->touched = t;
			c->tcap = ncap;
		}
		c->touched[c->ntouched++] = id;
		j->touched = true;
	}
	return 0;
}

/* Forget everything (after running out of memory half way). */
static void cache_reset(const struct mb *m, struct mcache *c)
{
	for (uint32_t i = 0; i < c->cap; i++) {
		c->tab[i].state = SLOT_EMPTY;
		c->tab[i].touched = false;
	}
	c->used = 0;
	c->ntouched = c->ndirty = 0;
	c->gen = 0;
	memset(c->own, 0, (size_t)c->N * sizeof(*c->own));
	memset(c->use, 0, c->N);
	memset(c->cover, 0, (size_t)m->R * sizeof(*c->cover));
	memset(c->dirt, 0, m->R);
	memset(c->s.rfree, 0, (size_t)m->R * sizeof(*c->s.rfree));
	memset(c->s.ravail, 0, m->R);
	memset(c->s.inbox, 0, m->R);
	memset(c->s.cav, 0, (m->ncells + 63) / 64 * sizeof(*c->s.cav));
}

/* Bring the cache (locked) to view V.  Returns 0 or -1 (out of memory:
 * the cache is reset). */
static int cache_sync(const struct policy *p, const struct mb *m,
		      struct mcache *c, const struct policy_view *v)
{
	if (!c->mapped) {
		c->mapped = true;
		for (uint32_t i = 0; i < c->N; i++) {
			c->nsw[i] = topo_node_switch(p->t, i);
			c->rn[c->nsw[i]]++;
		}
	}
	/* the nodes to look at: none for the view held (same gen), the
	 * hint's from the view held, else all */
	bool same = v->gen && v->gen == c->gen && v->usable == c->uptr;
	bool hint = !same && v->gen && v->changed && v->base_gen &&
		    v->base_gen == c->gen && v->usable == c->uptr;
	uint32_t n = same ? 0 : hint ? v->nchanged : c->N;

	c->gen = 0; /* until synced */
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = hint ? v->changed[k] : k;
		uint32_t o = v->owner[i], r;
		uint8_t u = !v->usable || v->usable[i];
		bool was, now;

		if (o == c->own[i] && u == c->use[i])
			continue;
		r = c->nsw[i];
		was = c->own[i] == POLICY_FREE && c->use[i];
		now = o == POLICY_FREE && u;
		if (was != now) {
			c->s.rfree[r] += now ? 1 : (uint32_t)-1;
			dirty(c, r);
		}
		if (o != c->own[i] &&
		    ((c->own[i] != POLICY_FREE &&
		      count_node(m, c, c->own[i], r, -1)) ||
		     (o != POLICY_FREE && count_node(m, c, o, r, +1))))
			goto oom;
		c->own[i] = o;
		c->use[i] = u;
	}
	for (uint32_t t = 0; t < c->ntouched; t++) {
		struct jslot *j = slot_of(m, c, c->touched[t], false);
		uint32_t lo[D] = { 0 }, len[D] = { 0 }; /* memcmp: all D */
		bool boxed;

		j->touched = false;
		boxed = j->nn > 0 && job_box(m, c, j, lo, len);
		if (boxed == j->boxed &&
		    (!boxed || (!memcmp(lo, j->lo, sizeof(lo)) &&
				!memcmp(len, j->len, sizeof(len)))))
			goto keep;
		if (j->boxed)
			cover_box(m, c, j, -1);
		j->boxed = boxed;
		if (boxed) {
			memcpy(j->lo, lo, sizeof(lo));
			memcpy(j->len, len, sizeof(len));
			cover_box(m, c, j, +1);
		}
keep:
		if (!j->nn)
			j->state = SLOT_TOMB;
	}
	c->ntouched = 0;
	for (uint32_t k = 0; k < c->ndirty; k++) {
		uint32_t r = c->dirty[k], cell = r, cx[D];

		c->dirt[r] = 0;
		c->s.inbox[r] = c->cover[r] > 0;
		c->s.ravail[r] = c->rn[r] > 0 && c->s.rfree[r] == c->rn[r] &&
				 !c->cover[r];
		if (m->blocks) {
			cell = 0;
			for (int d = m->n - 1; d >= 0; d--) {
				cx[d] = m->rc[(size_t)r * D + d] / m->c[d];
				cell = cell * m->kc[d] + cx[d];
			}
			if (cell_ok(m, &c->s, cx))
				c->s.cav[cell / 64] |= UINT64_C(1)
						       << (cell % 64);
			else
				c->s.cav[cell / 64] &=
					~(UINT64_C(1) << (cell % 64));
		} else if (c->s.ravail[r]) {
			c->s.cav[cell / 64] |= UINT64_C(1) << (cell % 64);
		} else {
			c->s.cav[cell / 64] &= ~(UINT64_C(1) << (cell % 64));
		}
	}
	c->ndirty = 0;
	c->gen = v->gen;
	c->uptr = v->usable;
	return 0;
oom:
	cache_reset(m, c);
	return -1;
}

/* ---- free-origin sets ----
 * F(e): the origins o (cell index o0 + kc0 * (o1 + kc1 * ...)) at which
 * the cuboid of extent e holds only available cells.  F(1,...,1) is the
 * cells' availability; for e_d >= 2, F(e) = F(e - u_d) AND F(e - u_d)
 * moved back by one cell along d, since [o, o+e_d) is [o, o+e_d-1) and
 * [o+1, o+e_d); the move wraps round the ring on a torus and drops off
 * the end on a mesh, so F(e) holds no origin whose box would leave the
 * mesh.  Each set is a bitset in scan order (dimension 0 fastest): its
 * set bits, first to last, are the boxes the box-by-box scan finds, in
 * its order.  Sets are computed on demand and kept for the call (an
 * empty set as NULL: every larger shape's is empty too). */
struct fs {
	const struct mb *m;
	size_t words;
	uint32_t stride[D];
	uint64_t **F;	/* [ncells] by shape index, when known; NULL:
			 * empty */
	uint32_t *made; /* [ncells] shapes whose F holds a buffer */
	uint32_t nmade;
	uint32_t *known; /* [ncells] F computed in this call: = stamp */
	uint32_t stamp;
	uint64_t **pool; /* [ncells + 1] buffers of words for reuse */
	uint32_t npool;
	uint32_t *chain; /* [sum kc] shapes to compute, with ... */
	uint8_t *dim;	 /* ... the dimension each one grows */
};

/* The arrays and buffers are kept between calls (in the cache, used
 * under its lock): each call only stamps what it computes. */
static struct fs *fs_new(void)
{
	return calloc(1, sizeof(struct fs));
}

/* The arrays (not the buffers they point to). */
static void fs_arrays_free(struct fs *f)
{
	free(f->F);
	free(f->made);
	free(f->known);
	free(f->pool);
	free(f->chain);
	free(f->dim);
}

static void fs_destroy(struct fs *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->nmade; i++)
		free(f->F[f->made[i]]);
	for (uint32_t i = 0; i < f->npool; i++)
		free(f->pool[i]);
	fs_arrays_free(f);
	free(f);
}

static bool fs_known(const struct fs *f, uint32_t idx)
{
	return f->known[idx] == f->stamp;
}

/* A buffer of f->words words (NULL: out of memory). */
static uint64_t *fs_buf(struct fs *f)
{
	if (f->npool)
		return f->pool[--f->npool];
	return malloc(f->words * sizeof(uint64_t));
}

/* The sets of the cells S holds available.  Returns 0 or -1. */
static int fs_init(struct fs *f, const struct mb *m, const struct st *s)
{
	if (!f->F) {
		uint32_t sumk = 1;

		f->m = m;
		f->words = (m->ncells + 63) / 64;
		for (int d = 0; d < m->n; d++) {
			f->stride[d] = d ? f->stride[d - 1] * m->kc[d - 1] : 1;
			sumk += m->kc[d];
		}
		f->F = calloc(m->ncells, sizeof(*f->F));
		f->made = malloc(m->ncells * sizeof(*f->made));
		f->known = calloc(m->ncells, sizeof(*f->known));
		f->pool = malloc(((size_t)m->ncells + 1) * sizeof(*f->pool));
		f->chain = malloc(sumk * sizeof(*f->chain));
		f->dim = malloc(sumk);
		if (!f->F || !f->made || !f->known || !f->pool || !f->chain ||
		    !f->dim) {
			fs_arrays_free(f);
			memset(f, 0, sizeof(*f));
			return -1;
		}
	}
	/* the last call's buffers back to the pool */
	while (f->nmade)
		f->pool[f->npool++] = f->F[f->made[--f->nmade]];
	if (++f->stamp == 0) {
		memset(f->known, 0, m->ncells * sizeof(*f->known));
		f->stamp = 1;
	}
	f->known[0] = f->stamp;
	f->F[0] = NULL;
	for (size_t w = 0; w < f->words; w++)
		if (s->cav[w]) {
			f->F[0] = fs_buf(f);
			if (!f->F[0])
				return -1;
			memcpy(f->F[0], s->cav, f->words * sizeof(uint64_t));
			f->made[f->nmade++] = 0;
			break;
		}
	return 0;
}

/* F(child) from F(parent), the child one cell longer along D. */
static int fs_grow(struct fs *f, uint32_t child, uint32_t parent, int d)
{
	const struct mb *m = f->m;
	const uint64_t *in = f->F[parent], *last = m->last[d];
	size_t words = f->words, q = f->stride[d] / 64;
	size_t sh2 = (size_t)(m->kc[d] - 1) * f->stride[d], q2 = sh2 / 64;
	unsigned r = (unsigned)(f->stride[d] % 64), r2 = (unsigned)(sh2 % 64);
	uint64_t *out, any = 0;

	f->known[child] = f->stamp;
	f->F[child] = NULL;
	if (!in)
		return 0;
	out = fs_buf(f);
	if (!out)
		return -1;
	/* in one pass: the neighbour one cell further along d (bit i + s,
	 * s = stride of d) for origins not last along d; for the last, the
	 * first (torus: bit i - (kc_d - 1) s) or none (mesh).  A mesh's
	 * words whose neighbours are all inside first, without a branch
	 * (the hot loop of the search: it vectorises), then the rest. */
	size_t w = 0, inner = words > q + 1 ? words - q - 1 : 0;

	if (!m->torus && r) {
		for (; w < inner; w++) {
			uint64_t mv = ((in[w + q] >> r) |
				       (in[w + q + 1] << (64 - r))) &
				      ~last[w];

			any |= out[w] = in[w] & mv;
		}
	} else if (!m->torus) {
		for (; w < inner; w++)
			any |= out[w] = in[w] & in[w + q] & ~last[w];
	}
	for (; w < words; w++) {
		uint64_t lo = w + q < words ? in[w + q] : 0;
		uint64_t hi = w + q + 1 < words ? in[w + q + 1] : 0;
		uint64_t mv = (r ? (lo >> r) | (hi << (64 - r)) : lo) &
			      ~last[w];

		if (m->torus && w >= q2) {
			uint64_t l2 = in[w - q2];
			uint64_t b2 = w > q2 ? in[w - q2 - 1] : 0;

			mv |= (r2 ? (l2 << r2) | (b2 >> (64 - r2)) : l2) &
			      last[w];
		}
		any |= out[w] = in[w] & mv;
	}
	if (any) {
		f->F[child] = out;
		f->made[f->nmade++] = child;
	} else {
		f->pool[f->npool++] = out;
	}
	return 0;
}

/* F(E), computed from the nearest known smaller shape (taking off one
 * cell at a time, lowest dimension first).  Returns 0 or -1 (out of
 * memory); *OUT is NULL when no box of shape E is free. */
static int fs_get(struct fs *f, const uint32_t *e, const uint64_t **out)
{
	const struct mb *m = f->m;
	uint32_t x[D], n = 0, idx = 0, want;

	for (int d = 0; d < m->n; d++) {
		x[d] = e[d];
		idx += (x[d] - 1) * f->stride[d];
	}
	want = idx;
	while (!fs_known(f, idx)) {
		int d = 0;

		while (x[d] < 2)
			d++;
		f->chain[n] = idx;
		f->dim[n++] = (uint8_t)d;
		x[d]--;
		idx -= f->stride[d];
	}
	while (n-- > 0)
		if (fs_grow(f, f->chain[n], f->chain[n] - f->stride[f->dim[n]],
			    f->dim[n]))
			return -1;
	*out = f->F[want];
	return 0;
}

/* Available cells in the box [o, o+e) of the extended grid. */
static uint32_t box_sum(const struct mb *m, const struct st *s,
			const uint32_t *o, const uint32_t *e)
{
	int64_t sum = 0;

	for (uint32_t mask = 0; mask < (1u << m->n); mask++) {
		size_t at = 0, stride = 1;
		int sign = 1;

		for (int d = 0; d < m->n; d++) {
			uint32_t x = o[d];

			if (mask & (1u << d)) {
				x += e[d];
			} else {
				sign = -sign;
			}
			at += x * stride;
			stride *= m->ext[d] + 1;
		}
		sum += sign * (int64_t)s->pre[at];
	}
	return (uint32_t)sum;
}

/* Per-call state; the cells' availability only for jobs on several
 * routers. */
static int scan(const struct policy *p, const struct mb *m,
		const struct policy_view *v, bool empty, bool blocks,
		struct st *s)
{
	memset(s, 0, sizeof(*s));
	s->rfree = calloc(m->R, sizeof(*s->rfree));
	s->ravail = calloc(m->R, 1);
	s->inbox = calloc(m->R, 1);
	if (blocks && p->opts.reference_search)
		s->pre = malloc(m->next * sizeof(*s->pre));
	else if (blocks)
		s->cav = calloc((m->ncells + 63) / 64, sizeof(*s->cav));
	if (!s->rfree || !s->ravail || !s->inbox ||
	    (blocks && !s->pre && !s->cav) ||
	    (!empty && mark_boxes(p, m, v, s))) {
		st_free(s);
		return -1;
	}
	for (uint32_t r = 0; r < m->R; r++) {
		uint32_t c;
		const uint32_t *nodes = topo_switch_nodes(p->t, r, &c);

		for (uint32_t i = 0; i < c; i++)
			s->rfree[r] += empty ? policy_node_usable(v, nodes[i]) :
					       policy_node_ok(v, nodes[i]);
		s->ravail[r] = c > 0 && s->rfree[r] == c && !s->inbox[r];
	}
	if (s->pre)
		prefix(m, s);
	else if (s->cav)
		cell_bits(m, s);
	return 0;
}

/* Take NEED nodes from the cuboid of cells at origin O, shape E. */
static void take_box(const struct policy *p, const struct mb *m,
		     const struct policy_view *v, const uint32_t *o,
		     const uint32_t *e, uint32_t need,
		     struct policy_result *res)
{
	uint32_t idx[D] = { 0 }, len[D];
	int d;

	for (d = 0; d < m->n; d++)
		len[d] = e[d] * m->c[d];
	res->n = 0;
	for (;;) {
		uint32_t x[D], c;
		const uint32_t *nodes;

		for (d = 0; d < m->n; d++)
			x[d] = o[d] * m->c[d] + idx[d];
		nodes = topo_switch_nodes(p->t, router_of(m, x), &c);
		for (uint32_t i = 0; i < c && res->n < need; i++)
			if (policy_node_ok(v, nodes[i]))
				res->nodes[res->n++] = nodes[i];
		for (d = 0; d < m->n && ++idx[d] >= len[d]; d++)
			idx[d] = 0;
		if (d == m->n || res->n == need)
			break;
	}
	policy_sort_u32(res->nodes, res->n);
}

static void shape_str(const struct mb *m, const uint32_t *e, char *buf,
		      size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int d = 0; d < m->n && o < len; d++)
		o += (size_t)snprintf(buf + o, len - o, "%s%u", d ? "x" : "",
				      e[d]);
}

/* Whether extent E is at least as long on every axis as one of the N
 * extents in FAILED. */
static bool holds_failed(const struct mb *m, const uint32_t *e,
			 const uint32_t (*failed)[D], uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		int d;

		for (d = 0; d < m->n && e[d] >= failed[i][d]; d++)
			;
		if (d == m->n)
			return true;
	}
	return false;
}

/* The free boxes of shape SH (origins F), in scan order: each one
 * before the AT-th counts into *SEEN and *FOUND; the AT-th's origin goes
 * to O (returns true). */
static bool pick_origin(const struct mb *m, const struct fs *f,
			const uint64_t *F, const struct shape *sh, uint32_t at,
			uint32_t *seen, uint32_t *found, uint32_t *o)
{
	bool ring = false; /* whole torus rings: their origin 0 only */

	for (int d = 0; d < m->n; d++)
		ring |= m->torus && sh->e[d] == m->kc[d] && m->kc[d] > 1;
	for (size_t w = 0; w < f->words; w++) {
		uint64_t b = F[w];

		if (!b)
			continue;
		if (!ring) {
			uint32_t pc = (uint32_t)__builtin_popcountll(b);

			if (*seen + pc <= at) {
				*seen += pc;
				*found += pc;
				continue;
			}
		}
		while (b) {
			uint32_t c = (uint32_t)(w * 64) +
				     (uint32_t)__builtin_ctzll(b);
			bool ok = true;

			b &= b - 1;
			for (int d = 0; d < m->n; d++) {
				o[d] = c % m->kc[d];
				c /= m->kc[d];
				ok = ok && !(m->torus && sh->e[d] == m->kc[d] &&
					     o[d]);
			}
			if (!ok)
				continue;
			if (*seen == at)
				return true;
			(*seen)++;
			(*found)++;
		}
	}
	return false;
}

static enum policy_status search(const struct policy *p, const struct mb *m,
				 const struct policy_view *v,
				 const struct st *s,
				 const struct policy_request *req,
				 struct policy_result *res, bool fill)
{
	uint32_t need = req->nodes, at = req->attempt, nr = 0;
	uint64_t cellnodes = (uint64_t)m->p;
	uint32_t cells, seen = 0, total, zero[D] = { 0 };
	/* Shapes with no free box so far.  A shape at least as long on every
	 * axis has none either (its box at any origin it may take holds
	 * theirs at the same origin, which they may take too), so it is
	 * passed over: the answer is the full scan's. */
	uint32_t(*failed)[D] = NULL, nfailed = 0;
	enum policy_status st;
	struct fs *f = m->cache->fs; /* the cache is locked */

	if (need <= m->p) {
		struct policy_cand *c = malloc(((size_t)m->R + 1) * sizeof(*c));

		if (!c)
			return policy_say(res, POLICY_WAIT, "out of memory");
		for (uint32_t r = 0; r < m->R; r++)
			if (s->rfree[r] >= need)
				c[nr++] = (struct policy_cand){
					((uint64_t)!s->inbox[r] << 32) |
						s->rfree[r],
					r
				};
		if (at < nr) {
			if (at == 0) { /* the best: one pass */
				for (uint32_t i = 1; i < nr; i++)
					if (policy_cand_cmp(&c[i], &c[0]) < 0)
						c[0] = c[i];
			} else {
				qsort(c, nr, sizeof(*c), policy_cand_cmp);
			}
			if (fill) {
				uint32_t cnt;
				const uint32_t *nodes =
					topo_switch_nodes(p->t, c[at].id, &cnt);

				res->n = 0;
				for (uint32_t i = 0; i < cnt && res->n < need;
				     i++)
					if (policy_node_ok(v, nodes[i]))
						res->nodes[res->n++] = nodes[i];
			}
			free(c);
			return POLICY_PLACED;
		}
		free(c);
		if (nr > 0)
			return policy_say(res, POLICY_NEVER,
					  "no candidate "
					  "#%u (%u candidates)",
					  req->attempt, nr);
		return policy_say(res, POLICY_WAIT,
				  "waiting for a router "
				  "with %u free nodes",
				  need);
	}
	for (int d = 0; d < m->n; d++)
		cellnodes *= m->c[d];
	cells = (uint32_t)((need + cellnodes - 1) / cellnodes);
	if (p->opts.reference_search) {
		total = box_sum(m, s, zero, m->kc);
	} else {
		total = 0;
		for (uint32_t w = 0; w < (m->ncells + 63) / 64; w++)
			total += (uint32_t)__builtin_popcountll(s->cav[w]);
		if (fs_init(f, m, s)) {
			return policy_say(res, POLICY_WAIT, "out of memory");
		}
	}
	for (uint32_t i = 0; i < m->nshapes; i++) {
		const struct shape *sh = &m->shapes[i];
		uint32_t o[D] = { 0 }, lim[D], found = 0;
		int d;

		if (sh->vol > total) /* shapes are sorted by volume */
			break;
		if (sh->vol < cells)
			continue;
		if (sh->vol * cellnodes < need)
			continue;
		if (p->opts.reference_search &&
		    holds_failed(m, sh->e, failed, nfailed))
			continue;
		if (!p->opts.reference_search) {
			const uint64_t *F;
			uint32_t idx = 0;
			bool none = false;

			/* no box one cell shorter along some axis: none of
			 * this shape (F(e) is inside F(e - u_d)); in O(D),
			 * where the failed list costs O(shapes failed) */
			for (d = 0; d < m->n; d++)
				idx += (sh->e[d] - 1) * f->stride[d];
			for (d = 0; d < m->n && !none; d++)
				none = sh->e[d] >= 2 &&
				       fs_known(f, idx - f->stride[d]) &&
				       !f->F[idx - f->stride[d]];
			if (none) {
				f->known[idx] = f->stamp;
				f->F[idx] = NULL;
				continue;
			}

			if (fs_get(f, sh->e, &F))
				goto oom;
			if (F &&
			    pick_origin(m, f, F, sh, at, &seen, &found, o)) {
				if (fill)
					take_box(p, m, v, o, sh->e, need, res);
				free(failed);
				return POLICY_PLACED;
			}
		} else {
			for (d = 0; d < m->n; d++)
				lim[d] = m->torus && sh->e[d] < m->kc[d] ?
						 m->kc[d] :
						 m->kc[d] - sh->e[d] + 1;
			for (;;) {
				if (box_sum(m, s, o, sh->e) == sh->vol) {
					if (seen == at) {
						if (fill)
							take_box(p, m, v, o,
								 sh->e, need,
								 res);
						free(failed);
						return POLICY_PLACED;
					}
					seen++;
					found++;
				}
				for (d = 0; d < m->n && ++o[d] >= lim[d]; d++)
					o[d] = 0;
				if (d == m->n)
					break;
			}
		}
		if (!found && p->opts.reference_search) {
			/* an antichain: a shape holding one listed is never
			 * scanned, so never listed */
			void *nf = realloc(failed,
					   (nfailed + 1) * sizeof(*failed));

			if (!nf)
				goto oom;
			failed = nf;
			memcpy(failed[nfailed++], sh->e, sizeof(failed[0]));
		}
	}
	free(failed);
	if (seen > 0)
		return policy_say(res, POLICY_NEVER,
				  "no candidate #%u (%u "
				  "candidates)",
				  req->attempt, seen);
	{
		char blk[64];

		shape_str(m, m->c, blk, sizeof(blk));
		if (m->blocks)
			st = policy_say(res, POLICY_WAIT,
					"waiting for a "
					"cuboid of %u free %s blocks (%u "
					"free)",
					cells, blk, total);
		else
			st = policy_say(res, POLICY_WAIT,
					"waiting for a cuboid of "
					"%u free routers (%u free)",
					cells, total);
	}
	return st;
oom:
	free(failed);
	return policy_say(res, POLICY_WAIT, "out of memory");
}

/* policy_search_fn: scan V (or the empty machine), then search */
static int scan_search(const struct policy *p, const struct policy_view *v,
		       const struct policy_request *req,
		       struct policy_result *res, bool empty)
{
	const struct mb *m = p->state;
	struct st s;
	enum policy_status st;

	if (!empty && !p->opts.reference_search) {
		pthread_mutex_lock(&m->cache->lock);
		if (cache_sync(p, m, m->cache, v)) {
			pthread_mutex_unlock(&m->cache->lock);
			return -1;
		}
		st = search(p, m, v, &m->cache->s, req, res, true);
		pthread_mutex_unlock(&m->cache->lock);
		if (st == POLICY_PLACED)
			res->isolated = true;
		return st;
	}
	if (scan(p, m, v, empty, req->nodes > m->p, &s))
		return -1;
	pthread_mutex_lock(&m->cache->lock); /* the search's sets */
	st = search(p, m, v, &s, req, res, !empty);
	pthread_mutex_unlock(&m->cache->lock);
	st_free(&s);
	if (st == POLICY_PLACED)
		res->isolated = true;
	return st;
}

static const struct policy_default_for default_for[] = {
	{ .family = "expressmesh", .priority = 10 },
	{ .family = "hyperx", .priority = 10 },
	{ .family = "torus", .priority = 10 },
	{ 0 },
};

const struct policy_ops policy_mesh_blocks = {
	.name = "mesh-blocks",
	.default_for = default_for,
	.anonymous = true,
	.opts = opts,
	.isolating = true,
	.monotone = true,
	.create = create,
	.destroy = destroy,
	.search = scan_search,
};
