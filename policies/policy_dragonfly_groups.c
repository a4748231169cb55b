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
 * to (k+m-1)-th whole groups in id order. */
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
	uint32_t *gfirst; /* [G+1] first switch of each group (sorted) */
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

	if (k != TOPO_DRAGONFLY && k != TOPO_CASCADE)
		return err_set(err,
			       "policy %s: topology %s is "
			       "not a dragonfly or cascade",
			       me, topo_family(p->t));
	if (!balanced &&
	    policy_opt_choice(p, "large", large_choices, &large, err))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return err_set(err, "policy %s: out of memory", me);
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
	d->router_rule = d->mode == MODE_MIN && k == TOPO_DRAGONFLY;
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
	/* groups are contiguous switch ranges (switch id = group*a + r) */
	for (uint32_t s = 0, g = 0; s < d->S; s++) {
		uint32_t gs = topo_switch_group(p->t, s), cnt;

		if (gs != g && gs != g + 1) {
			destroy(d);
			return err_set(err,
				       "policy %s: groups are not "
				       "contiguous switch ranges",
				       me);
		}
		if (gs == g + 1 || s == 0)
			d->gfirst[gs] = s;
		g = gs;
		topo_switch_nodes(p->t, s, &cnt);
		if (cnt > d->p)
			d->p = cnt;
	}
	d->gfirst[d->G] = d->S;
	for (uint32_t g = 0; g < d->G; g++) {
		uint32_t na = d->gfirst[g + 1] - d->gfirst[g], nn = 0;

		if (na > d->a)
			d->a = na;
		for (uint32_t s = d->gfirst[g]; s < d->gfirst[g + 1]; s++) {
			uint32_t cnt;

			topo_switch_nodes(p->t, s, &cnt);
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

static void cache_free(struct st_cache *c);

static void destroy(void *state)
{
	struct dfg *d = state;

	if (d) {
		free(d->gfirst);
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

/* The scans of the last views with a nonzero gen (policy_view), reused
 * while the gen stays (the state a gen names is fixed): one for views
 * with every node usable, one for views with a usable array (backfill
 * asks both about one state). */
struct st_slot {
	uint64_t gen;
	const uint8_t *usable; /* the view's usable pointer, with gen */
	bool valid;
	struct st st;
};

struct st_cache {
	pthread_mutex_t lock;
	struct st_slot slot[2];
};

static struct st_cache *cache_new(void)
{
	struct st_cache *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void cache_free(struct st_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < 2; i++)
		if (c->slot[i].valid)
			st_free(&c->slot[i].st);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static int scan(const struct policy *p, const struct dfg *d,
		const struct policy_view *v, bool empty, struct st *s)
{
	uint32_t N = topo_num_nodes(p->t);
	struct policy_jobs jobs = { 0 };
	uint32_t *jrouter = NULL, *jgroup = NULL;
	uint8_t *jflags = NULL;

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
	if (!empty) {
		if (policy_jobs_build(&jobs, v->owner, N))
			goto oom;
		jrouter = malloc(((size_t)jobs.n + 1) * sizeof(*jrouter));
		jgroup = malloc(((size_t)jobs.n + 1) * sizeof(*jgroup));
		jflags = calloc((size_t)jobs.n + 1, 1);
		if (!jrouter || !jgroup || !jflags)
			goto oom;
		for (uint32_t j = 0; j < jobs.n; j++)
			jrouter[j] = UINT32_MAX;
	}
	for (uint32_t sw = 0; sw < d->S; sw++) {
		uint32_t cnt, g = topo_switch_group(p->t, sw);
		const uint32_t *nodes = topo_switch_nodes(p->t, sw, &cnt);

		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t x = nodes[i], j;

			s->gusable[g] += policy_node_usable(v, x);
			if (empty) {
				s->rfree[sw] += policy_node_usable(v, x);
				continue;
			}
			s->rfree[sw] += policy_node_ok(v, x);
			j = jobs.idx[x];
			if (j == UINT32_MAX)
				continue;
			if (jrouter[j] == UINT32_MAX) {
				jrouter[j] = sw;
				jgroup[j] = g;
			} else if (jrouter[j] != sw) {
				jflags[j] |= 1;
				if (jgroup[j] != g)
					jflags[j] |= 2;
			}
		}
	}
	if (!empty) {
		for (uint32_t j = 0; j < jobs.n; j++) {
			if (!(jflags[j] & 1))
				continue;
			s->nmulti++;
			s->a_multi = jobs.ids[j];
			if (jflags[j] & 2) {
				s->nlarge++;
				s->a_large = jobs.ids[j];
			}
		}
		/* jrouter[] now holds the last group counted per job:
		 * groups are contiguous switch ranges, visited in order */
		for (uint32_t j = 0; j < jobs.n; j++)
			jrouter[j] = UINT32_MAX;
		for (uint32_t sw = 0; sw < d->S; sw++) {
			uint32_t cnt, g = topo_switch_group(p->t, sw);
			const uint32_t *nodes =
				topo_switch_nodes(p->t, sw, &cnt);

			for (uint32_t i = 0; i < cnt; i++) {
				uint32_t j = jobs.idx[nodes[i]];

				if (j == UINT32_MAX || !(jflags[j] & 1))
					continue;
				s->rmulti[sw] = 1;
				if (jrouter[j] != g) {
					jrouter[j] = g;
					s->gnmulti[g]++;
					s->gjob[g] = jobs.ids[j];
				}
			}
		}
	}
	for (uint32_t g = 0; g < d->G; g++) {
		uint32_t tot = 0, cap = 0;

		for (uint32_t sw = d->gfirst[g]; sw < d->gfirst[g + 1]; sw++) {
			uint32_t cnt;

			topo_switch_nodes(p->t, sw, &cnt);
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
	policy_jobs_free(&jobs);
	free(jrouter);
	free(jgroup);
	free(jflags);
	return 0;
oom:
	policy_jobs_free(&jobs);
	free(jrouter);
	free(jgroup);
	free(jflags);
	st_free(s);
	return -1;
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
	for (uint32_t sw = d->gfirst[g]; sw < d->gfirst[g + 1]; sw++)
		if (!(d->router_rule && s->rmulti[sw]) && s->rfree[sw])
			/* most free first: key = UINT32_MAX - free */
			c[k++] =
				(struct policy_cand){ UINT32_MAX - s->rfree[sw],
						      sw };
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

static void take_switches(const struct policy *p, const struct policy_view *v,
			  uint32_t lo, uint32_t hi, uint32_t need,
			  struct policy_result *res)
{
	res->n = 0;
	for (uint32_t sw = lo; sw < hi && res->n < need; sw++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(p->t, sw, &cnt);

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
				take_switches(p, v, c[at].id, c[at].id + 1,
					      need, res);
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
				take_switches(p, v, d->gfirst[g],
					      d->gfirst[g + 1], need - res->n,
					      &part);
				res->n += part.n;
			}
			idx++;
		}
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

		for (uint32_t sw = d->gfirst[g]; sw < d->gfirst[g + 1]; sw++)
			if (s->rfree[sw])
				c[k++] = (struct policy_cand){
					((uint64_t)s->rmulti[sw] << 32) |
						(UINT32_MAX - s->rfree[sw]),
					sw
				};
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

/* policy_search_fn: scan V (or the empty machine), then search */
static int scan_search(const struct policy *p, const struct policy_view *v,
		       const struct policy_request *req,
		       struct policy_result *res, bool empty)
{
	const struct dfg *d = p->state;
	struct st_cache *c = d->cache;
	struct st_slot *k = &c->slot[v->usable != NULL];
	struct st s;
	enum policy_status st;
	bool cached = !empty && v->gen;

	if (cached) {
		pthread_mutex_lock(&c->lock);
		if (!k->valid || k->gen != v->gen || k->usable != v->usable) {
			if (k->valid)
				st_free(&k->st);
			k->valid = !scan(p, d, v, false, &k->st);
			k->gen = v->gen;
			k->usable = v->usable;
		}
		if (!k->valid) {
			pthread_mutex_unlock(&c->lock);
			return -1;
		}
		s = k->st;
	} else if (scan(p, d, v, empty, &s)) {
		return -1;
	}
	if (d->balanced)
		st = search_balanced(p, d, v, &s, req, res, !empty);
	else
		st = search(p, d, v, &s, req, res, !empty);
	if (cached)
		pthread_mutex_unlock(&c->lock);
	else
		st_free(&s);
	return st;
}

const struct policy_ops policy_dragonfly_groups = {
	.name = "dragonfly-groups",
	.opts = opts,
	.isolating = true,
	.shares = shares,
	.create = create,
	.destroy = destroy,
	.search = scan_search,
};

const struct policy_ops policy_dragonfly_balanced = {
	.name = "dragonfly-balanced",
	.opts = NULL,
	.isolating = true,
	.shares = shares,
	.create = create_balanced,
	.destroy = destroy,
	.search = scan_search,
};
