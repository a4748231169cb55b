/* policy_dragonfly_groups.c - group-contained jobs on dragonfly and Cray
 * Cascade (paper 003 Sec. IV-B-1), with the intra-group rule derived from
 * the routing's link sets (topo/routing_dragonfly.c):
 *
 *   - A job on one router uses no switch-to-switch link at all: it may go
 *     to any router with enough free nodes, always isolated.
 *   - min on dragonfly (full-mesh groups): a flow x -> y inside a group
 *     takes the direct link x -> y, and a flow leaving the group takes
 *     x -> gateway, the global links of its own pair of groups, gateway ->
 *     y.  Every local link a job uses starts or ends at one of its own
 *     routers, and both ends are its own for intra-group flows; so
 *     multi-router jobs are isolated when no router holds two of them
 *     ("router rule").  min on Cascade: the two-hop row/column paths pass
 *     through routers of other jobs, so a group holds at most one
 *     multi-router job ("group rule").
 *   - ugal / vlb with intra=local: the Valiant detours of a job on several
 *     routers of a group go through every other router of the group, so
 *     the group rule applies; a job spanning groups detours through every
 *     group, so it conflicts with every other multi-router job.
 *   - ugal / vlb with intra=global: even a group-contained multi-router
 *     job detours through every other group (their local links and the
 *     global links of its group), so at most one multi-router job can run
 *     isolated in the whole machine; the others wait (single-router jobs
 *     always run).
 * Jobs larger than a group get m = ceil(n / group nodes) whole free groups
 * (under min these are isolated: MIN paths stay in the job's groups).
 * Under Valiant routing option large= decides: "wait" (default) holds the
 * job until no other multi-router job runs, then places it isolated (and
 * later multi-router jobs wait for it); "shared" places it on whole groups
 * at once, reported not isolated, and jobs whose only conflicts are such
 * large jobs are placed too, reported not isolated.
 *
 * Candidate order (attempts): single routers (fewest free first, then
 * lowest id), then groups (fewest available nodes first, then lowest id),
 * then, for large jobs, m whole groups: the k-th candidate takes the k-th
 * to (k+m-1)-th whole groups in id order.
 *
 * Monotone (policy_ops.monotone): as jobs end, free nodes per router and
 * group, whole groups and available nodes only grow, and the multi-router
 * and group-spanning jobs that make a job wait only go; the shared tier
 * of dragonfly-balanced waits only for free nodes (its "fits a group"
 * test reads usable nodes, not free ones).  So a job placed on a view is
 * placed on any view with more nodes free, and will-run bisects. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"

enum mode { MODE_MIN, MODE_VLB_LOCAL, MODE_VLB_GLOBAL };

static const struct spec_opt opts[] = {
	{ .key = "large",
	  .def = "wait",
	  .help = "jobs above a group: wait for whole groups, or shared" },
	{ 0 },
};
static const char *const large_choices[] = { "wait", "shared", NULL };

struct dfg {
	enum mode mode;
	bool router_rule; /* min on full-mesh groups */
	bool large_shared;
	bool balanced;	  /* dragonfly-balanced: a shared tier after these */
	uint32_t S, G;	  /* switches, groups */
	uint32_t a;	  /* routers per group (max) */
	uint32_t gnodes;  /* nodes per group (max) */
	uint32_t p;	  /* nodes per router (max) */
	uint32_t *gfirst; /* [G+1] group g: gsw[gfirst[g] .. gfirst[g+1]) */
	uint32_t *gsw;	  /* [S] switches by group, then id */
	uint32_t *nsw;	  /* [N] switch of each node (>= S: none) */
	uint32_t *ngrp;	  /* [N] its group (>= G: none) */
	struct st_cache *cache; /* the last scan of a view with gen */
};

static void destroy(void *state);
static struct st_cache *cache_new(void);

/* Set up P for dragonfly-groups, or dragonfly-balanced when BALANCED. */
static int create_any(struct policy *p, bool balanced, struct err *err)
{
	const char *rn = routing_name(p->r), *rs = routing_spec(p->r);
	const char *me = p->ops->name;
	enum topo_kind k = topo_kind(p->t);
	struct dfg *d;
	int large = 0;

	bool gdf = k == TOPO_GRAPH && topo_behaves_traits(p->t)->groups;

	if (k == TOPO_GRAPH && !gdf)
		return err_set(
			err,
			"policy %s: topology graph %s%s%s (the policy "
			"needs a dragonfly or cascade and "
			"its min/vlb/ugal routing)",
			me,
			topo_graph_family(p->t) ? "recognised as " :
						  "not recognised",
			topo_graph_family(p->t) ? topo_graph_family(p->t) :
						  ": ",
			topo_graph_family(p->t) ? "" : topo_graph_why(p->t));
	if (!topo_traits(p->t)->groups && !gdf)
		return err_set(err,
			       "policy %s: topology %s is "
			       "not a dragonfly or cascade",
			       me, topo_family(p->t));
	if (!balanced &&
	    policy_opt_choice(p, "large", large_choices, &large, err))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return err_nomem(err, "policy %s: out of memory", me);
	d->balanced = balanced;
	if (strcmp(rn, "min") == 0) {
		d->mode = MODE_MIN;
	} else if (strcmp(rn, "vlb") == 0 || strcmp(rn, "ugal") == 0) {
		d->mode = strstr(rs, "intra=global") ? MODE_VLB_GLOBAL :
						       MODE_VLB_LOCAL;
	} else {
		free(d);
		return err_set(err,
			       "policy %s: routing %s is "
			       "not supported (min, vlb, ugal)",
			       me, rs);
	}
	/* full-mesh groups: generated and recognised dragonflies */
	d->router_rule = d->mode == MODE_MIN &&
			 topo_behaves_traits(p->t)->group_mesh;
	d->large_shared = large == 1;
	d->S = topo_num_switches(p->t);
	d->G = topo_num_groups(p->t);
	d->gfirst = calloc((size_t)d->G + 1, sizeof(*d->gfirst));
	d->cache = cache_new();
	if (!d->gfirst || !d->cache || d->G == 0) {
		free(d->gfirst);
		free(d->cache);
		free(d);
		return err_set(err, "policy %s: no groups", me);
	}
	/* the switches of group g: gsw[gfirst[g] .. gfirst[g+1]), by id
	 * (generated: the range group*a .. group*a + a - 1) */
	d->gsw = malloc(((size_t)d->S + 1) * sizeof(*d->gsw));
	if (!d->gsw) {
		destroy(d);
		return err_nomem(err, "policy %s: out of memory", me);
	}
	for (uint32_t s = 0; s < d->S; s++) {
		uint32_t gs = topo_switch_group(p->t, s), cnt;

		if (gs >= d->G) {
			destroy(d);
			return err_set(err,
				       "policy %s: switch %u is in no group",
				       me, s);
		}
		d->gfirst[gs + 1]++;
		topo_switch_nodes(p->t, s, &cnt);
		if (cnt > d->p)
			d->p = cnt;
	}
	for (uint32_t g = 0; g < d->G; g++)
		d->gfirst[g + 1] += d->gfirst[g];
	{
		uint32_t *at = malloc(((size_t)d->G + 1) * sizeof(*at));

		if (!at) {
			destroy(d);
			return err_nomem(err, "policy %s: out of memory", me);
		}
		memcpy(at, d->gfirst, (size_t)d->G * sizeof(*at));
		for (uint32_t s = 0; s < d->S; s++)
			d->gsw[at[topo_switch_group(p->t, s)]++] = s;
		free(at);
	}
	d->nsw = malloc(((size_t)topo_num_nodes(p->t) + 1) * sizeof(*d->nsw));
	d->ngrp = malloc(((size_t)topo_num_nodes(p->t) + 1) * sizeof(*d->ngrp));
	if (!d->nsw || !d->ngrp) {
		destroy(d);
		return err_nomem(err, "policy %s: out of memory", me);
	}
	for (uint32_t x = 0; x < topo_num_nodes(p->t); x++) {
		d->nsw[x] = topo_node_switch(p->t, x);
		d->ngrp[x] = d->nsw[x] < d->S ?
				     topo_switch_group(p->t, d->nsw[x]) :
				     UINT32_MAX;
	}
	for (uint32_t g = 0; g < d->G; g++) {
		uint32_t na = d->gfirst[g + 1] - d->gfirst[g], nn = 0;

		if (na > d->a)
			d->a = na;
		for (uint32_t i = d->gfirst[g]; i < d->gfirst[g + 1]; i++) {
			uint32_t cnt;

			topo_switch_nodes(p->t, d->gsw[i], &cnt);
			nn += cnt;
		}
		if (nn > d->gnodes)
			d->gnodes = nn;
	}
	p->state = d;
	return 0;
}

static int create(struct policy *p, struct err *err)
{
	return create_any(p, false, err);
}

static int create_balanced(struct policy *p, struct err *err)
{
	return create_any(p, true, err);
}

/* policy_shares: large=shared under Valiant routing, and
 * dragonfly-balanced */
static bool shares(const void *state)
{
	const struct dfg *d = state;

	return d->balanced || (d->large_shared && d->mode != MODE_MIN);
}

/* policy_resv_level.  A job on one router uses no link: its nodes.
 * Under the router rule (min on full-mesh groups) a multi-router job
 * conflicts only with multi-router jobs on its own routers: whole
 * routers.  Under the group rule (min on Cascade; Valiant with large=
 * shared, where only group-contained jobs make it wait): its group.  A
 * job spanning groups gets whole groups, which under min keep every other
 * job's paths out.  Under Valiant routing with large=wait a job outside
 * the reservation that spans groups (or, with intra=global, any
 * multi-router job) detours through the reserved group: no rounding keeps
 * it out (2).  dragonfly-balanced places shared instead of waiting on
 * links: at most its groups. */
static int resv_level(const struct policy *p, const uint32_t *nodes, uint32_t n)
{
	const struct dfg *d = p->state;
	bool one_router = true, one_group = true;

	for (uint32_t i = 1; i < n; i++) {
		one_router &= d->nsw[nodes[i]] == d->nsw[nodes[0]];
		one_group &= d->ngrp[nodes[i]] == d->ngrp[nodes[0]];
	}
	if (!n || one_router)
		return -1;
	if (one_group && d->router_rule)
		return 0;
	if (d->balanced || d->mode == MODE_MIN ||
	    (d->large_shared && d->mode == MODE_VLB_LOCAL) ||
	    (d->large_shared && !one_group))
		return 1;
	return 2;
}

static void cache_free(struct st_cache *c);

static void destroy(void *state)
{
	struct dfg *d = state;

	if (d) {
		free(d->gfirst);
		free(d->gsw);
		free(d->nsw);
		free(d->ngrp);
		cache_free(d->cache);
	}
	free(d);
}

/* What the view says, per call. */
struct st {
	uint32_t *rfree;	   /* [S] free usable nodes per router */
	uint8_t *rmulti;	   /* [S] router holds a multi-router job */
	uint32_t *gavail;	   /* [G] free usable nodes available to a new
			     * group-contained multi-router job */
	uint8_t *gwhole;	   /* [G] every node free and usable */
	uint32_t *gfree;	   /* [G] free usable nodes */
	uint32_t *gnmulti;	   /* [G] multi-router jobs with nodes there */
	uint32_t *gjob;		   /* [G] one of them, for reasons */
	uint32_t *gusable;	   /* [G] usable nodes, free or not */
	uint32_t nmulti;	   /* running multi-router jobs */
	uint32_t nlarge;	   /* of which spanning groups */
	uint32_t a_multi, a_large; /* one id of each, for reasons */
	uint32_t *mem;
};

static void st_free(struct st *s)
{
	free(s->mem);
	free(s->rmulti);
}

/* The scans of the last views (policy_view), in NSLOT slots: a caller
 * asks about several machine states in turn (the machine now with and
 * without a usable mask, the machine at a reservation, will-run's
 * releases), and each keeps its slot, found by gen, by the change hint's
 * base gen, or by the view's owner and usable pointers.  A slot keeps the
 * owners and usable flags it scanned, so that the next view is scanned
 * incrementally: only the groups whose nodes changed are recounted
 * (will-run releases a few jobs at a time, a simulator starts and ends a
 * few).  The answer is what a fresh scan
 * gives, whatever the change: a job that lost part of its nodes or
 * gained some, or a large change, is scanned afresh.  A view with a
 * nonzero gen equal to the slot's is not even compared. */
#define NF_MULTI 1u /* the node's job spans routers */
#define NF_LARGE 2u /* ... and groups */

/* A job of the scanned owners. */
struct jent {
	uint32_t id;	 /* 0: empty slot */
	uint32_t count;	 /* its nodes; 0: gone (the slot stays a tombstone) */
	uint32_t first;	 /* its lowest node */
	uint32_t router; /* switch and group of a node of it */
	uint32_t group;
	uint8_t flags; /* NF_* */
	uint8_t added; /* new in the change being applied */
};

/* A multi-router job: id, lowest node, whether it spans groups. */
struct mjob {
	uint32_t id, first;
	bool large;
};

struct st_slot {
	uint64_t gen;
	const uint8_t *usable; /* the view's usable pointer, with gen */
	const uint32_t *optr;  /* and its owner pointer */
	uint64_t used;	       /* when last used (cache tick) */
	bool valid;
	struct st st;
	uint32_t *owner; /* [N] owners scanned */
	uint8_t *usab;	 /* [N] usable as scanned */
	uint8_t *nflag;	 /* [N] NF_* of the node's job */
	uint32_t *chg;	 /* [N] scratch: changed nodes */
	uint32_t *seen;	 /* [gnodes] scratch: multi jobs of a group */
	uint8_t *gmark;	 /* [G] scratch: groups to recount */
	struct jent *jt; /* job table, open addressing */
	uint32_t jcap, jused;
	struct mjob *multi; /* the multi-router jobs */
	uint32_t nm, mcap;
};

#define NSLOT 4

struct st_cache {
	pthread_mutex_t lock;
	uint64_t tick;
	struct st_slot slot[NSLOT];
};

static struct st_cache *cache_new(void)
{
	struct st_cache *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void slot_free(struct st_slot *k)
{
	if (k->valid)
		st_free(&k->st);
	free(k->owner);
	free(k->usab);
	free(k->nflag);
	free(k->chg);
	free(k->seen);
	free(k->gmark);
	free(k->jt);
	free(k->multi);
	memset(k, 0, sizeof(*k));
}

static void cache_free(struct st_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < NSLOT; i++)
		slot_free(&c->slot[i]);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int st_alloc(const struct dfg *d, struct st *s)
{
	memset(s, 0, sizeof(*s));
	s->mem = calloc((size_t)d->S + 5 * (size_t)d->G, sizeof(uint32_t));
	s->rmulti = calloc((size_t)d->S + (size_t)d->G, 1);
	if (!s->mem || !s->rmulti) {
		st_free(s);
		return -1;
	}
	s->rfree = s->mem;
	s->gavail = s->mem + d->S;
	s->gfree = s->gavail + d->G;
	s->gnmulti = s->gfree + d->G;
	s->gjob = s->gnmulti + d->G;
	s->gusable = s->gjob + d->G;
	s->gwhole = s->rmulti + d->S;
	return 0;
}

/* Count group G of S from V: free and usable nodes per router, routers
 * and jobs of multi-router jobs (NFLAG per node, NULL on the EMPTY
 * machine, where every usable node counts as free).  The multi-router
 * jobs of the group are told apart in SEEN (room for the group's
 * nodes); gjob is the last one met in switch and node order. */
static void group_count(const struct policy *p, const struct dfg *d,
			const struct policy_view *v, const uint8_t *nflag,
			uint32_t *seen, struct st *s, uint32_t g)
{
	uint32_t tot = 0, cap = 0, nseen = 0, last = POLICY_FREE;

	s->gusable[g] = s->gavail[g] = s->gnmulti[g] = s->gjob[g] = 0;
	for (uint32_t r = d->gfirst[g]; r < d->gfirst[g + 1]; r++) {
		uint32_t cnt, sw = d->gsw[r];
		const uint32_t *nodes = topo_switch_nodes(p->t, sw, &cnt);

		s->rfree[sw] = 0;
		s->rmulti[sw] = 0;
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t x = nodes[i], id, k;

			s->gusable[g] += policy_node_usable(v, x);
			if (!nflag) {
				s->rfree[sw] += policy_node_usable(v, x);
				continue;
			}
			s->rfree[sw] += policy_node_ok(v, x);
			if (!(nflag[x] & NF_MULTI))
				continue;
			s->rmulti[sw] = 1;
			id = v->owner[x];
			if (id == last)
				continue;
			last = id;
			for (k = 0; k < nseen && seen[k] != id; k++)
				;
			if (k < nseen)
				continue;
			seen[nseen++] = id;
			s->gnmulti[g]++;
			s->gjob[g] = id;
		}
		cap += cnt;
		tot += s->rfree[sw];
		if (d->router_rule && !s->rmulti[sw])
			s->gavail[g] += s->rfree[sw];
	}
	s->gwhole[g] = tot == cap;
	s->gfree[g] = tot;
	if (!d->router_rule)
		s->gavail[g] = s->gnmulti[g] ? 0 : tot;
}

/* The scan of the empty machine (every usable node free), into S (the
 * caller frees it with st_free).  Returns 0 or -1 (memory). */
static int scan_empty(const struct policy *p, const struct dfg *d,
		      const struct policy_view *v, struct st *s)
{
	if (st_alloc(d, s))
		return -1;
	for (uint32_t g = 0; g < d->G; g++)
		group_count(p, d, v, NULL, NULL, s, g);
	return 0;
}

/* The entry of job ID in K's table, or NULL. */
static struct jent *jfind(struct st_slot *k, uint32_t id)
{
	for (uint32_t h = policy_hash32(id) & (k->jcap - 1);;
	     h = (h + 1) & (k->jcap - 1))
		if (k->jt[h].id == id)
			return &k->jt[h];
		else if (!k->jt[h].id)
			return NULL;
}

/* The entry of job ID, a new empty one when absent (the table has room:
 * jreserve). */
static struct jent *jget(struct st_slot *k, uint32_t id)
{
	uint32_t h = policy_hash32(id) & (k->jcap - 1);

	for (; k->jt[h].id && k->jt[h].id != id; h = (h + 1) & (k->jcap - 1))
		;
	if (!k->jt[h].id) {
		k->jt[h] = (struct jent){ .id = id, .router = UINT32_MAX };
		k->jused++;
	}
	return &k->jt[h];
}

/* Room for MORE new jobs at load <= 1/2: rehash the jobs still present
 * (dropping the tombstones) into a table large enough.  0 or -1. */
static int jreserve(struct st_slot *k, uint32_t more)
{
	uint32_t live = 0, cap = 16, ocap = k->jcap;
	struct jent *old = k->jt;

	if (old && 2 * ((uint64_t)k->jused + more) <= ocap)
		return 0;
	for (uint32_t h = 0; h < ocap; h++)
		live += old[h].id && old[h].count;
	while (cap < 4 * ((uint64_t)live + more))
		cap *= 2;
	k->jt = calloc(cap, sizeof(*k->jt));
	if (!k->jt) {
		k->jt = old;
		return -1;
	}
	k->jcap = cap;
	k->jused = 0;
	for (uint32_t h = 0; h < ocap; h++)
		if (old[h].id && old[h].count)
			*jget(k, old[h].id) = old[h];
	free(old);
	return 0;
}

/* Add node X of job E to its flags (switch SW, group G). */
static void jnode(struct jent *e, uint32_t sw, uint32_t g)
{
	if (e->router == UINT32_MAX) {
		e->router = sw;
		e->group = g;
	} else if (e->router != sw) {
		e->flags |= NF_MULTI;
		if (e->group != g)
			e->flags |= NF_LARGE;
	}
}

/* nmulti, nlarge, a_multi and a_large of S from K's multi-router jobs:
 * the ids of those with the highest lowest node (a fresh scan meets jobs
 * in node order and keeps the last). */
static void globals(struct st_slot *k, struct st *s)
{
	uint32_t fm = 0, fl = 0;

	s->nmulti = k->nm;
	s->nlarge = 0;
	s->a_multi = s->a_large = 0;
	for (uint32_t i = 0; i < k->nm; i++) {
		const struct mjob *m = &k->multi[i];

		if (!s->a_multi || m->first > fm) {
			s->a_multi = m->id;
			fm = m->first;
		}
		if (!m->large)
			continue;
		s->nlarge++;
		if (!s->a_large || m->first > fl) {
			s->a_large = m->id;
			fl = m->first;
		}
	}
}

static int multi_add(struct st_slot *k, const struct jent *e)
{
	if (k->nm == k->mcap) {
		uint32_t cap = k->mcap ? 2 * k->mcap : 16;
		struct mjob *m = realloc(k->multi, cap * sizeof(*m));

		if (!m)
			return -1;
		k->multi = m;
		k->mcap = cap;
	}
	k->multi[k->nm++] =
		(struct mjob){ e->id, e->first, (e->flags & NF_LARGE) != 0 };
	return 0;
}

static void multi_remove(struct st_slot *k, uint32_t id)
{
	for (uint32_t i = 0; i < k->nm; i++)
		if (k->multi[i].id == id) {
			k->multi[i] = k->multi[--k->nm];
			return;
		}
}

/* Slot K emptied (no longer valid), with its per-node arrays for N
 * nodes.  0, or -1 out of memory. */
static int slot_arrays(const struct dfg *d, struct st_slot *k, size_t n)
{
	if (k->valid)
		st_free(&k->st);
	k->valid = false;
	if (!k->owner) {
		k->owner = malloc(n * sizeof(*k->owner));
		k->usab = malloc(n);
		k->nflag = malloc(n);
		k->chg = malloc(n * sizeof(*k->chg));
		k->seen = malloc(((size_t)d->gnodes + 1) * sizeof(*k->seen));
		k->gmark = malloc(d->G);
		if (!k->owner || !k->usab || !k->nflag || !k->chg || !k->seen ||
		    !k->gmark)
			return -1;
	}
	return 0;
}

/* Scan V afresh into slot K (N nodes).  Returns 0 or -1 (memory; K is
 * then invalid). */
static int slot_scan(const struct policy *p, const struct dfg *d,
		     const struct policy_view *v, struct st_slot *k, uint32_t N)
{
	size_t n = N ? N : 1;

	if (slot_arrays(d, k, n))
		goto oom;
	free(k->jt);
	k->jt = NULL;
	k->jcap = k->jused = 0;
	k->nm = 0;
	if (jreserve(k, 16) || st_alloc(d, &k->st))
		goto oom;
	memcpy(k->owner, v->owner, (size_t)N * sizeof(*k->owner));
	for (uint32_t x = 0; x < N; x++) {
		struct jent *e;

		k->usab[x] = policy_node_usable(v, x);
		if (v->owner[x] == POLICY_FREE)
			continue;
		if (jreserve(k, 1))
			goto oom_st;
		e = jget(k, v->owner[x]);
		if (!e->count++)
			e->first = x;
	}
	for (uint32_t sw = 0; sw < d->S; sw++) {
		uint32_t cnt, g = topo_switch_group(p->t, sw);
		const uint32_t *nodes = topo_switch_nodes(p->t, sw, &cnt);

		for (uint32_t i = 0; i < cnt; i++)
			if (v->owner[nodes[i]] != POLICY_FREE)
				jnode(jfind(k, v->owner[nodes[i]]), sw, g);
	}
	for (uint32_t h = 0; h < k->jcap; h++)
		if (k->jt[h].id && (k->jt[h].flags & NF_MULTI) &&
		    multi_add(k, &k->jt[h]))
			goto oom_st;
	for (uint32_t x = 0; x < N; x++)
		k->nflag[x] = v->owner[x] == POLICY_FREE ?
				      0 :
				      jfind(k, v->owner[x])->flags;
	for (uint32_t g = 0; g < d->G; g++)
		group_count(p, d, v, k->nflag, k->seen, &k->st, g);
	globals(k, &k->st);
	k->valid = true;
	return 0;
oom_st:
	st_free(&k->st);
oom:
	slot_free(k);
	return -1;
}

/* Bring slot K (valid) to view V by its changes (V's hint when it is
 * relative to K's view, else found by comparing): 1 when done, 0 when
 * the change needs a fresh scan, -1 out of memory. */
static int slot_update(const struct policy *p, const struct dfg *d,
		       const struct policy_view *v, struct st_slot *k,
		       uint32_t N)
{
	const uint32_t *chg = k->chg;
	uint32_t nch = 0, most = N / 2; /* above: a fresh scan is cheaper */

	if (v->changed && v->gen && v->base_gen && v->base_gen == k->gen &&
	    v->usable == k->usable) {
		chg = v->changed;
		nch = v->nchanged;
		most = N; /* no comparing: the hint is worth it whole */
	} else {
		for (uint32_t x = 0; x < N; x++)
			if (v->owner[x] != k->owner[x] ||
			    policy_node_usable(v, x) != k->usab[x])
				k->chg[nch++] = x;
	}
	if (nch == 0)
		return 1;
	if (nch > most)
		return 0;
	/* jobs that left: all their nodes must have gone (jobs hold runs
	 * of nodes: the last entry is kept) */
	struct jent *e = NULL;

	for (uint32_t i = 0; i < nch; i++) {
		uint32_t x = chg[i], o = k->owner[x];

		if (o == POLICY_FREE || o == v->owner[x])
			continue;
		if (!e || e->id != o)
			e = jfind(k, o);
		e->count--;
	}
	e = NULL;
	for (uint32_t i = 0; i < nch; i++) {
		uint32_t x = chg[i], o = k->owner[x];

		if (o == POLICY_FREE || o == v->owner[x] || (e && e->id == o))
			continue;
		e = jfind(k, o);
		if (e->count)
			return 0; /* shrank */
		if (e->flags & NF_MULTI)
			multi_remove(k, o);
		e->flags = 0;
	}
	/* jobs that came: all their nodes must be new */
	if (jreserve(k, nch))
		return -1;
	e = NULL;
	for (uint32_t i = 0; i < nch; i++) {
		uint32_t x = chg[i], n = v->owner[x], sw = d->nsw[x];

		if (n == POLICY_FREE || n == k->owner[x])
			continue;
		if (!e || e->id != n) {
			e = jget(k, n);
			if (e->count && !e->added)
				return 0; /* grew */
			if (!e->count)
				*e = (struct jent){ .id = n,
						    .first = x,
						    .router = UINT32_MAX,
						    .added = 1 };
		}
		e->count++;
		if (x < e->first)
			e->first = x;
		if (sw < d->S)
			jnode(e, sw, d->ngrp[x]);
	}
	memset(k->gmark, 0, d->G);
	e = NULL;
	for (uint32_t i = 0; i < nch; i++) {
		uint32_t x = chg[i], n = v->owner[x];

		if (n == POLICY_FREE)
			e = NULL;
		else if (!e || e->id != n)
			e = jfind(k, n);
		if (e && e->added) {
			e->added = 0;
			if ((e->flags & NF_MULTI) && multi_add(k, e))
				return -1;
		}
		k->owner[x] = n;
		k->usab[x] = policy_node_usable(v, x);
		k->nflag[x] = e ? e->flags : 0;
		if (d->ngrp[x] < d->G)
			k->gmark[d->ngrp[x]] = 1;
	}
	for (uint32_t g = 0; g < d->G; g++)
		if (k->gmark[g])
			group_count(p, d, v, k->nflag, k->seen, &k->st, g);
	globals(k, &k->st);
	return 1;
}

/* Sorted candidates (key = free count) among N items with counts CNT[i]
 * >= need; returns the number, or UINT32_MAX when out of memory. */
static uint32_t rank(const uint32_t *cnt, uint32_t n, uint32_t need,
		     struct policy_cand **out)
{
	struct policy_cand *c = malloc(((size_t)n + 1) * sizeof(*c));
	uint32_t k = 0;

	*out = c;
	if (!c)
		return UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		if (cnt[i] >= need)
			c[k++] = (struct policy_cand){ cnt[i], i };
	qsort(c, k, sizeof(*c), policy_cand_cmp);
	return k;
}

/* Fill RES with NEED free usable nodes of group G: routers allowed under
 * the rule, most free first. */
static void take_group(const struct policy *p, const struct dfg *d,
		       const struct policy_view *v, const struct st *s,
		       uint32_t g, uint32_t need, struct policy_result *res)
{
	uint32_t na = d->gfirst[g + 1] - d->gfirst[g], k = 0;
	struct policy_cand *c = malloc(((size_t)na + 1) * sizeof(*c));

	res->n = 0;
	if (!c)
		return;
	for (uint32_t i = d->gfirst[g]; i < d->gfirst[g + 1]; i++) {
		uint32_t sw = d->gsw[i];

		if (!(d->router_rule && s->rmulti[sw]) && s->rfree[sw])
			/* most free first: key = UINT32_MAX - free */
			c[k++] =
				(struct policy_cand){ UINT32_MAX - s->rfree[sw],
						      sw };
	}
	qsort(c, k, sizeof(*c), policy_cand_cmp);
	for (uint32_t i = 0; i < k && res->n < need; i++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(p->t, c[i].id, &cnt);

		for (uint32_t x = 0; x < cnt && res->n < need; x++)
			if (policy_node_ok(v, nodes[x]))
				res->nodes[res->n++] = nodes[x];
	}
	free(c);
	policy_sort_u32(res->nodes, res->n);
}

/* Fill RES with NEED free usable nodes of router SW. */
static void take_router(const struct policy *p, const struct policy_view *v,
			uint32_t sw, uint32_t need, struct policy_result *res)
{
	uint32_t cnt;
	const uint32_t *nodes = topo_switch_nodes(p->t, sw, &cnt);

	res->n = 0;
	for (uint32_t x = 0; x < cnt && res->n < need; x++)
		if (policy_node_ok(v, nodes[x]))
			res->nodes[res->n++] = nodes[x];
}

/* Fill RES with NEED free usable nodes of the switches gsw[lo .. hi). */
static void take_switches(const struct policy *p, const struct dfg *d,
			  const struct policy_view *v, uint32_t lo, uint32_t hi,
			  uint32_t need, struct policy_result *res)
{
	res->n = 0;
	for (uint32_t i = lo; i < hi && res->n < need; i++) {
		uint32_t cnt;
		const uint32_t *nodes =
			topo_switch_nodes(p->t, d->gsw[i], &cnt);

		for (uint32_t x = 0; x < cnt && res->n < need; x++)
			if (policy_node_ok(v, nodes[x]))
				res->nodes[res->n++] = nodes[x];
	}
}

/* Would a new multi-router job (LARGE: spanning groups) conflict with a
 * running one?  Sets *blocker to one conflicting job id and *only_large
 * when every conflicting job spans groups. */
static bool conflicts(const struct dfg *d, const struct st *s, bool large,
		      uint32_t *blocker, bool *only_large)
{
	*only_large = true;
	if (d->mode == MODE_MIN)
		return false; /* candidates already avoid every conflict */
	if (d->mode == MODE_VLB_GLOBAL || large) {
		*blocker = s->a_multi;
		*only_large = s->nmulti == s->nlarge;
		return s->nmulti > 0;
	}
	*blocker = s->a_large;
	return s->nlarge > 0;
}

/* Search on state S.  Returns PLACED (res filled when FILL), WAIT with a
 * reason, or NEVER for an attempt beyond the candidates. */
static enum policy_status search(const struct policy *p, const struct dfg *d,
				 const struct policy_view *v,
				 const struct st *s,
				 const struct policy_request *req,
				 struct policy_result *res, bool fill)
{
	uint32_t need = req->nodes, at = req->attempt, nr = 0, ng = 0, most = 0;
	struct policy_cand *c = NULL;
	uint32_t blocker = 0;
	bool only_large = true, large = need > d->gnodes;

	/* 1. single routers */
	if (need <= d->p) {
		nr = rank(s->rfree, d->S, need, &c);
		if (nr == UINT32_MAX)
			return policy_say(res, POLICY_WAIT, "out of memory");
		if (at < nr) {
			if (fill)
				take_router(p, v, c[at].id, need, res);
			free(c);
			res->isolated = true;
			return POLICY_PLACED;
		}
		free(c);
		at -= nr;
	}
	/* 2./3. multi-router jobs */
	if (conflicts(d, s, large, &blocker, &only_large) &&
	    !(d->large_shared && (large || only_large))) {
		if (nr > 0)
			return policy_say(res, POLICY_NEVER,
					  "no candidate "
					  "#%u (%u candidates)",
					  req->attempt, nr);
		if (d->mode == MODE_VLB_GLOBAL)
			return policy_say(res, POLICY_WAIT,
					  "waiting for "
					  "multi-router job %u to end (under "
					  "intra=global every multi-router "
					  "job detours through every group)",
					  blocker);
		if (large)
			return policy_say(res, POLICY_WAIT,
					  "waiting for the "
					  "%u multi-router jobs to end (a "
					  "job spanning groups detours "
					  "through every group)",
					  s->nmulti);
		return policy_say(res, POLICY_WAIT,
				  "waiting for job %u, "
				  "which spans groups, to end",
				  blocker);
	}
	res->isolated = !conflicts(d, s, large, &blocker, &only_large);
	if (!large) {
		ng = rank(s->gavail, d->G, need, &c);
		if (ng == UINT32_MAX)
			return policy_say(res, POLICY_WAIT, "out of memory");
		if (at < ng) {
			if (fill)
				take_group(p, d, v, s, c[at].id, need, res);
			free(c);
			return POLICY_PLACED;
		}
		free(c);
		if (ng + nr > 0)
			return policy_say(res, POLICY_NEVER,
					  "no candidate "
					  "#%u (%u candidates)",
					  req->attempt, ng + nr);
		for (uint32_t g = 0; g < d->G; g++)
			if (s->gavail[g] > most)
				most = s->gavail[g];
		return policy_say(res, POLICY_WAIT,
				  "waiting for %u free "
				  "nodes in one group%s (at most %u)",
				  need,
				  d->router_rule ?
					  " on routers without "
					  "another multi-router job" :
					  " without another multi-router job",
				  most);
	}
	{
		uint32_t m = (need + d->gnodes - 1) / d->gnodes, nw, idx = 0;

		for (uint32_t g = 0; g < d->G; g++)
			most += s->gwhole[g];
		nw = most >= m ? most - m + 1 : 0;
		if (at >= nw) {
			if (nw > 0)
				return policy_say(res, POLICY_NEVER,
						  "no "
						  "candidate #%u (%u "
						  "candidates)",
						  req->attempt, nw);
			return policy_say(res, POLICY_WAIT,
					  "waiting for %u "
					  "whole groups (%u whole)",
					  m, most);
		}
		/* the at-th .. (at+m-1)-th whole groups */
		res->n = 0;
		for (uint32_t g = 0; g < d->G && fill; g++) {
			struct policy_result part = *res;

			if (!s->gwhole[g])
				continue;
			if (idx >= at && idx < at + m) {
				part.nodes = res->nodes + res->n;
				take_switches(p, d, v, d->gfirst[g],
					      d->gfirst[g + 1], need - res->n,
					      &part);
				res->n += part.n;
			}
			idx++;
		}
		if (fill) /* a graph's groups need not be id ranges */
			policy_sort_u32(res->nodes, res->n);
		if (d->mode != MODE_MIN && d->large_shared)
			res->isolated = false;
		return POLICY_PLACED;
	}
}

/* ---- dragonfly-balanced: the shared tier ---- */

/* Fill RES with NEED free usable nodes of the groups GS[0..ng) in that
 * order, within a group from the routers without a multi-router job
 * first, then most free first (the fewest routers: a multi-router job's
 * Valiant detours load every link out of and into its routers). */
static void take_groups(const struct policy *p, const struct dfg *d,
			const struct policy_view *v, const struct st *s,
			const uint32_t *gs, uint32_t ng, uint32_t need,
			struct policy_result *res)
{
	struct policy_cand *c = malloc(((size_t)d->a + 1) * sizeof(*c));

	res->n = 0;
	if (!c)
		return;
	for (uint32_t i = 0; i < ng && res->n < need; i++) {
		uint32_t g = gs[i], k = 0;

		for (uint32_t j = d->gfirst[g]; j < d->gfirst[g + 1]; j++) {
			uint32_t sw = d->gsw[j];

			if (s->rfree[sw])
				c[k++] = (struct policy_cand){
					((uint64_t)s->rmulti[sw] << 32) |
						(UINT32_MAX - s->rfree[sw]),
					sw
				};
		}
		qsort(c, k, sizeof(*c), policy_cand_cmp);
		for (uint32_t q = 0; q < k && res->n < need; q++) {
			uint32_t cnt;
			const uint32_t *nodes =
				topo_switch_nodes(p->t, c[q].id, &cnt);

			for (uint32_t x = 0; x < cnt && res->n < need; x++)
				if (policy_node_ok(v, nodes[x]))
					res->nodes[res->n++] = nodes[x];
		}
	}
	free(c);
	policy_sort_u32(res->nodes, res->n);
}

/* Why a job in group G (ALONE: in one group) is not isolated. */
static void say_shared(const struct dfg *d, const struct st *s, bool alone,
		       uint32_t g, uint32_t ngroups, struct policy_result *res)
{
	if (!alone)
		snprintf(res->reason, sizeof(res->reason),
			 "shared: spans %u groups while %u multi-router "
			 "job%s run%s (e.g. job %u); %s",
			 ngroups, s->nmulti, s->nmulti == 1 ? "" : "s",
			 s->nmulti == 1 ? "s" : "", s->a_multi,
			 d->mode == MODE_MIN ?
				 "its minimal paths cross their routers" :
				 "Valiant detours cross every group");
	else if (s->gnmulti[g])
		snprintf(res->reason, sizeof(res->reason),
			 "shared: group %u already holds %u multi-router "
			 "job%s (e.g. job %u)",
			 g, s->gnmulti[g], s->gnmulti[g] == 1 ? "" : "s",
			 s->gjob[g]);
	else
		snprintf(res->reason, sizeof(res->reason),
			 "shared: job %u %s, its Valiant detours cross "
			 "group %u",
			 d->mode == MODE_VLB_GLOBAL ? s->a_multi : s->a_large,
			 d->mode == MODE_VLB_GLOBAL ?
				 "runs on several routers (intra=global)" :
				 "spans groups",
			 g);
}

/* The shared tier, for a job with no isolated candidate: one candidate
 * (attempt 0).  A job that fits a group goes to the group with enough
 * free nodes holding the fewest multi-router jobs (then the best fit), or
 * waits for one when some group could hold it.  Otherwise it spans
 * groups: those without a multi-router job first, most free first.
 * Reported isolated only when no other multi-router job runs (then
 * nothing can share a link with it). */
static enum policy_status shared_tier(const struct policy *p,
				      const struct dfg *d,
				      const struct policy_view *v,
				      const struct st *s,
				      const struct policy_request *req,
				      struct policy_result *res, bool fill)
{
	uint32_t need = req->nodes, total = 0, best = UINT32_MAX, ng = 0;
	uint64_t bkey = UINT64_MAX;
	bool fits = false;
	struct policy_cand *c;
	uint32_t *gs;

	for (uint32_t g = 0; g < d->G; g++)
		total += s->gfree[g];
	if (total < need)
		return policy_say(res, POLICY_WAIT,
				  "waiting for %u free nodes (%u free)", need,
				  total);
	if (req->attempt > 0)
		return policy_say(res, POLICY_NEVER,
				  "no candidate #%u (1 candidates)",
				  req->attempt);
	for (uint32_t g = 0; g < d->G && need <= d->gnodes; g++) {
		uint64_t key = ((uint64_t)s->gnmulti[g] << 32) | s->gfree[g];

		fits |= s->gusable[g] >= need;
		if (s->gfree[g] >= need && key < bkey) {
			bkey = key;
			best = g;
		}
	}
	if (best != UINT32_MAX) {
		res->isolated = s->nmulti == 0;
		if (fill)
			take_groups(p, d, v, s, &best, 1, need, res);
		if (!res->isolated)
			say_shared(d, s, true, best, 1, res);
		return POLICY_PLACED;
	}
	/* a job that fits a group waits for one rather than span groups:
	 * spanning, its detours would load links in every group */
	if (fits)
		return policy_say(res, POLICY_WAIT,
				  "waiting for %u free nodes in one group "
				  "(it fits one; spanning groups would share "
				  "links in all of them)",
				  need);
	c = malloc(((size_t)d->G + 1) * sizeof(*c));
	gs = malloc(((size_t)d->G + 1) * sizeof(*gs));
	if (!c || !gs) {
		free(c);
		free(gs);
		return policy_say(res, POLICY_WAIT, "out of memory");
	}
	for (uint32_t g = 0; g < d->G; g++)
		if (s->gfree[g])
			c[ng++] = (struct policy_cand){
				((uint64_t)(s->gnmulti[g] > 0) << 32) |
					(UINT32_MAX - s->gfree[g]),
				g
			};
	qsort(c, ng, sizeof(*c), policy_cand_cmp);
	for (uint32_t i = 0, got = 0; i < ng && got < need; i++) {
		gs[i] = c[i].id;
		got += s->gfree[c[i].id];
		best = i + 1;
	}
	res->isolated = s->nmulti == 0;
	if (fill)
		take_groups(p, d, v, s, gs, best, need, res);
	if (!res->isolated)
		say_shared(d, s, false, 0, best, res);
	free(c);
	free(gs);
	return POLICY_PLACED;
}

/* dragonfly-balanced: the dragonfly-groups candidates first (isolated),
 * then the shared tier, so that the job waits only for free nodes. */
static enum policy_status search_balanced(const struct policy *p,
					  const struct dfg *d,
					  const struct policy_view *v,
					  const struct st *s,
					  const struct policy_request *req,
					  struct policy_result *res, bool fill)
{
	enum policy_status st = search(p, d, v, s, req, res, fill);

	if (st != POLICY_WAIT)
		return st; /* placed, or an attempt beyond isolated ones */
	res->reason[0] = '\0';
	return shared_tier(p, d, v, s, req, res, fill);
}

/* Bring slot K to view V (the cache locked): 0, or -1 out of memory
 * (K is then invalid). */
static int slot_to(const struct policy *p, const struct dfg *d,
		   const struct policy_view *v, struct st_slot *k)
{
	uint32_t N = topo_num_nodes(p->t);
	int rc = 1;

	if (k->valid && v->gen && k->gen == v->gen && k->usable == v->usable)
		return 0;
	rc = k->valid ? slot_update(p, d, v, k, N) : 0;
	if (rc == 0)
		rc = slot_scan(p, d, v, k, N) ? -1 : 1;
	if (rc < 0 && k->valid)
		slot_free(k); /* a failed update leaves it half done */
	k->gen = v->gen;
	k->usable = v->usable;
	k->optr = v->owner;
	return k->valid ? 0 : -1;
}

/* Make DST (not valid, or another view's) a copy of valid slot SRC.
 * Returns 0, or -1 out of memory (DST is then freed). */
static int slot_copy(const struct dfg *d, struct st_slot *dst,
		     const struct st_slot *src, uint32_t N)
{
	size_t n = N ? N : 1;

	if (slot_arrays(d, dst, n))
		goto oom;
	if (dst->jcap != src->jcap) {
		free(dst->jt);
		if (!(dst->jt = malloc(src->jcap * sizeof(*dst->jt))))
			goto oom;
	}
	if (dst->mcap < src->nm) {
		struct mjob *m = realloc(dst->multi, src->mcap * sizeof(*m));

		if (!m)
			goto oom;
		dst->multi = m;
		dst->mcap = src->mcap;
	}
	if (st_alloc(d, &dst->st))
		goto oom;
	memcpy(dst->owner, src->owner, n * sizeof(*dst->owner));
	memcpy(dst->usab, src->usab, n);
	memcpy(dst->nflag, src->nflag, n);
	memcpy(dst->jt, src->jt, src->jcap * sizeof(*dst->jt));
	if (src->nm)
		memcpy(dst->multi, src->multi, src->nm * sizeof(*dst->multi));
	memcpy(dst->st.mem, src->st.mem,
	       ((size_t)d->S + 5 * (size_t)d->G) * sizeof(uint32_t));
	memcpy(dst->st.rmulti, src->st.rmulti, (size_t)d->S + (size_t)d->G);
	dst->st.nmulti = src->st.nmulti;
	dst->st.nlarge = src->st.nlarge;
	dst->st.a_multi = src->st.a_multi;
	dst->st.a_large = src->st.a_large;
	dst->jcap = src->jcap;
	dst->jused = src->jused;
	dst->nm = src->nm;
	dst->gen = src->gen;
	dst->usable = src->usable;
	dst->optr = src->optr;
	dst->valid = true;
	return 0;
oom:
	slot_free(dst);
	return -1;
}

/* The least recently used slot other than NOT. */
static struct st_slot *slot_lru(struct st_cache *c, const struct st_slot * not )
{
	struct st_slot *lru = NULL;

	for (int i = 0; i < NSLOT; i++) {
		struct st_slot *x = &c->slot[i];

		if (x == not )
			continue;
		if (!lru || !x->valid || (lru->valid && x->used < lru->used))
			lru = x;
		if (!x->valid)
			break;
	}
	return lru;
}

/* The slot for V (the cache locked): the one that holds V's gen, else
 * the base of V's hint, else the last one asked with V's owner and
 * usable pointers, else the least recently used.  The base of a hint
 * that was scanned from other owners (will-run's first question on its
 * copy of the machine) is copied rather than changed, so that the slot
 * of the machine itself stays for the next will-run. */
static struct st_slot *slot_pick(const struct dfg *d, struct st_cache *c,
				 const struct policy_view *v, uint32_t N)
{
	struct st_slot *k = NULL, *lru = &c->slot[0];

	for (int i = 0; i < NSLOT && !k; i++) {
		struct st_slot *x = &c->slot[i];

		if (x->valid && v->gen && x->gen == v->gen &&
		    x->usable == v->usable)
			k = x;
	}
	for (int i = 0; i < NSLOT && !k; i++) {
		struct st_slot *x = &c->slot[i];

		if (x->valid && v->changed && v->base_gen &&
		    x->gen == v->base_gen && x->usable == v->usable) {
			k = x;
			if (x->optr != v->owner) {
				struct st_slot *y = slot_lru(c, x);

				if (!slot_copy(d, y, x, N))
					k = y;
			}
		}
	}
	for (int i = 0; i < NSLOT && !k; i++) {
		struct st_slot *x = &c->slot[i];

		if (x->valid && x->optr == v->owner && x->usable == v->usable)
			k = x;
	}
	for (int i = 1; i < NSLOT && !k; i++)
		if (!c->slot[i].valid ||
		    (lru->valid && c->slot[i].used < lru->used))
			lru = &c->slot[i];
	if (!k)
		k = lru;
	k->used = ++c->tick;
	return k;
}

/* policy_ops.sync */
static void sync_view(const struct policy *p, const struct policy_view *v)
{
	const struct dfg *d = p->state;
	struct st_cache *c = d->cache;

	pthread_mutex_lock(&c->lock);
	(void)slot_to(p, d, v, slot_pick(d, c, v, topo_num_nodes(p->t)));
	pthread_mutex_unlock(&c->lock);
}

/* policy_search_fn: scan V (or the empty machine), then search */
static int scan_search(const struct policy *p, const struct policy_view *v,
		       const struct policy_request *req,
		       struct policy_result *res, bool empty)
{
	const struct dfg *d = p->state;
	struct st_cache *c = d->cache;
	struct st_slot *k;
	struct st s;
	enum policy_status st;

	if (empty) {
		if (scan_empty(p, d, v, &s))
			return -1;
		st = d->balanced ?
			     search_balanced(p, d, v, &s, req, res, false) :
			     search(p, d, v, &s, req, res, false);
		st_free(&s);
		return st;
	}
	pthread_mutex_lock(&c->lock);
	k = slot_pick(d, c, v, topo_num_nodes(p->t));
	if (slot_to(p, d, v, k)) {
		pthread_mutex_unlock(&c->lock);
		return -1;
	}
	st = d->balanced ? search_balanced(p, d, v, &k->st, req, res, true) :
			   search(p, d, v, &k->st, req, res, true);
	pthread_mutex_unlock(&c->lock);
	return st;
}

/* Minimal routing keeps a job's traffic in its groups: groups; any
 * other spreads it, and the balanced tiers then do better. */
static const struct policy_default_for groups_default_for[] = {
	{ .family = "dragonfly", .routing = "min", .priority = 20 },
	{ .family = "cascade", .routing = "min", .priority = 20 },
	{ 0 },
};
static const struct policy_default_for balanced_default_for[] = {
	{ .family = "dragonfly", .priority = 10 },
	{ .family = "cascade", .priority = 10 },
	{ 0 },
};

const struct policy_ops policy_dragonfly_groups = {
	.name = "dragonfly-groups",
	.default_for = groups_default_for,
	.anonymous = true,
	.opts = opts,
	.isolating = true,
	.monotone = true,
	.shares = shares,
	.create = create,
	.destroy = destroy,
	.search = scan_search,
	.sync = sync_view,
	.resv_level = resv_level,
};

const struct policy_ops policy_dragonfly_balanced = {
	.name = "dragonfly-balanced",
	.default_for = balanced_default_for,
	.anonymous = true,
	.opts = NULL,
	.isolating = true,
	.monotone = true,
	.shares = shares,
	.create = create_balanced,
	.destroy = destroy,
	.search = scan_search,
	.sync = sync_view,
	.resv_level = resv_level,
};
