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
	uint32_t S, G;	  /* switches, groups */
	uint32_t a;	  /* routers per group (max) */
	uint32_t gnodes;  /* nodes per group (max) */
	uint32_t p;	  /* nodes per router (max) */
	uint32_t *gfirst; /* [G+1] first switch of each group (sorted) */
};

static int create(struct policy *p, struct err *err)
{
	const char *rn = routing_name(p->r), *rs = routing_spec(p->r);
	enum topo_kind k = topo_kind(p->t);
	struct dfg *d;
	int large;

	if (k != TOPO_DRAGONFLY && k != TOPO_CASCADE)
		return err_set(err,
			       "policy dragonfly-groups: topology %s is "
			       "not a dragonfly or cascade",
			       topo_family(p->t));
	if (policy_opt_choice(p, "large", large_choices, &large, err))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return err_set(err, "policy dragonfly-groups: out of memory");
	if (strcmp(rn, "min") == 0) {
		d->mode = MODE_MIN;
	} else if (strcmp(rn, "vlb") == 0 || strcmp(rn, "ugal") == 0) {
		d->mode = strstr(rs, "intra=global") ? MODE_VLB_GLOBAL :
						       MODE_VLB_LOCAL;
	} else {
		free(d);
		return err_set(err,
			       "policy dragonfly-groups: routing %s is "
			       "not supported (min, vlb, ugal)",
			       rs);
	}
	d->router_rule = d->mode == MODE_MIN && k == TOPO_DRAGONFLY;
	d->large_shared = large == 1;
	d->S = topo_num_switches(p->t);
	d->G = topo_num_groups(p->t);
	d->gfirst = calloc((size_t)d->G + 1, sizeof(*d->gfirst));
	if (!d->gfirst || d->G == 0) {
		free(d->gfirst);
		free(d);
		return err_set(err, "policy dragonfly-groups: no groups");
	}
	/* groups are contiguous switch ranges (switch id = group*a + r) */
	for (uint32_t s = 0, g = 0; s < d->S; s++) {
		uint32_t gs = topo_switch_group(p->t, s), cnt;

		if (gs != g && gs != g + 1) {
			free(d->gfirst);
			free(d);
			return err_set(err, "policy dragonfly-groups: groups "
					    "are not contiguous switch ranges");
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

static void destroy(void *state)
{
	struct dfg *d = state;

	if (d)
		free(d->gfirst);
	free(d);
}

/* What the view says, per call. */
struct st {
	uint32_t *rfree;	   /* [S] free usable nodes per router */
	uint8_t *rmulti;	   /* [S] router holds a multi-router job */
	uint32_t *gavail;	   /* [G] free usable nodes available to a new
			     * group-contained multi-router job */
	uint8_t *gwhole;	   /* [G] every node free and usable */
	uint8_t *gmulti;	   /* [G] group holds a multi-router job */
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

static int scan(const struct policy *p, const struct dfg *d,
		const struct policy_view *v, bool empty, struct st *s)
{
	uint32_t N = topo_num_nodes(p->t);
	struct policy_jobs jobs = { 0 };
	uint32_t *jrouter = NULL, *jgroup = NULL;
	uint8_t *jflags = NULL;

	memset(s, 0, sizeof(*s));
	s->mem = calloc((size_t)d->S + 2 * (size_t)d->G, sizeof(uint32_t));
	s->rmulti = calloc((size_t)d->S + 2 * (size_t)d->G, 1);
	if (!s->mem || !s->rmulti) {
		st_free(s);
		return -1;
	}
	s->rfree = s->mem;
	s->gavail = s->mem + d->S;
	s->gwhole = s->rmulti + d->S;
	s->gmulti = s->gwhole + d->G;
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
		for (uint32_t x = 0; x < N; x++) {
			uint32_t j = jobs.idx[x], sw;

			if (j == UINT32_MAX || !(jflags[j] & 1))
				continue;
			sw = topo_node_switch(p->t, x);
			s->rmulti[sw] = 1;
			s->gmulti[topo_switch_group(p->t, sw)] = 1;
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
		if (!d->router_rule)
			s->gavail[g] = s->gmulti[g] ? 0 : tot;
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

/* policy_search_fn: scan V (or the empty machine), then search */
static int scan_search(const struct policy *p, const struct policy_view *v,
		       const struct policy_request *req,
		       struct policy_result *res, bool empty)
{
	const struct dfg *d = p->state;
	struct st s;
	enum policy_status st;

	if (scan(p, d, v, empty, &s))
		return -1;
	st = search(p, d, v, &s, req, res, !empty);
	st_free(&s);
	return st;
}

const struct policy_ops policy_dragonfly_groups = {
	.name = "dragonfly-groups",
	.opts = opts,
	.isolating = true,
	.create = create,
	.destroy = destroy,
	.search = scan_search,
};
