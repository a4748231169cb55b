/* willrun.c - the will-run search (see willrun.h): release the running
 * jobs one end time at a time on a copy of the owners until the policy
 * places the job.
 *
 * Set-up, O(N + R log R) for N nodes and R running jobs: the jobs sorted
 * by end (equal ends form one group), a hash from job id to group, and the
 * busy nodes counting-sorted by the group of their owner, so that
 * releasing a group costs the number of its nodes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"
#include "policies/willrun.h"

#define NO_GROUP UINT32_MAX

/* The end-time groups and the busy nodes in release order. */
struct groups {
	uint32_t n;	  /* groups */
	int64_t *end;	  /* [n] end time of group g */
	uint32_t *jobs;	  /* [n] running jobs of group g */
	uint32_t *first;  /* [n+1] group g's nodes: order[first[g] ..
			   * first[g+1]) */
	uint32_t *usable; /* [n] of which usable in the view */
	uint32_t *order;  /* [N] released nodes, by group */
	uint32_t nfree;	  /* free usable nodes of the view */
};

struct ent {
	int64_t end;
	uint32_t id;
};

static int cmp_ent(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static void groups_free(struct groups *g)
{
	free(g->end);
	free(g->jobs);
	free(g->first);
	free(g->usable);
	free(g->order);
	memset(g, 0, sizeof(*g));
}

/* Kept answers.  A backfill pass asks about one pending job after
 * another on one machine state, and many ask for the same count of nodes
 * (the sizes of a workload are few); the search is a function of the
 * state (owners, usable mask, running jobs and their ends, NOW) and of
 * the request (count, attempt, pattern; the job id too where the answer
 * may depend on it, policy_ops.anonymous), so the last MEMO_N
 * answers on one state are kept and given again to an equal request.
 * The state is compared in full at every call (O(N + R), against the
 * search's O(N) set-up and its questions); a new state drops them all
 * (epoch).  Requests with a task grid, and calls that want a rank order
 * (res->rank_node), are not kept: the order lives in the caller's
 * buffer. */
#define MEMO_N 16

struct memo_ans {
	bool used, anon; /* anon: for every job id */
	uint32_t job_id, nodes, attempt;
	char *pattern; /* NULL: none */
	struct policy_will_run wr;
	uint32_t n, *res_nodes; /* [n] */
	bool isolated;
	char reason[sizeof(((struct policy_result *)0)->reason)];
};

struct memo {
	uint64_t epoch;	 /* bumped at every new state */
	bool valid;	 /* the state below is one */
	uint32_t N;	 /* nodes of owner[] and usable[] */
	uint32_t *owner; /* [N] */
	uint8_t *usable; /* [N], NULL when the view had none */
	bool has_usable;
	struct policy_running *run; /* [nrun] as given */
	uint32_t nrun, runcap;
	int64_t now;
	uint32_t next; /* the entry to replace */
	struct memo_ans ans[MEMO_N];
};

/* The last sort: a backfill pass asks will-run for one pending job after
 * another with the same running jobs (Slurm lists them afresh for each),
 * so the sort is kept with a copy of the list it sorted and reused when
 * the list and NOW are the same (a comparison, O(R), for O(R log R)). */
struct willrun_cache {
	pthread_mutex_t lock;
	struct policy_running *run; /* [cap] the list sorted */
	struct ent *ent;	    /* [cap] its sort */
	uint32_t nrun, cap;
	int64_t now;
	bool valid;
	struct memo memo;
};

static void memo_clear(struct memo *m)
{
	for (uint32_t k = 0; k < MEMO_N; k++) {
		free(m->ans[k].pattern);
		free(m->ans[k].res_nodes);
		memset(&m->ans[k], 0, sizeof(m->ans[k]));
	}
	m->next = 0;
}

struct willrun_cache *willrun_cache_new(void)
{
	struct willrun_cache *c = calloc(1, sizeof(*c));

	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

void willrun_cache_free(struct willrun_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->lock);
	free(c->run);
	free(c->ent);
	memo_clear(&c->memo);
	free(c->memo.owner);
	free(c->memo.usable);
	free(c->memo.run);
	free(c);
}

/* Whether A and B list the same jobs and ends, field by field (not
 * memcmp: the callers' padding bytes are not set). */
static bool same_jobs(const struct policy_running *a,
		      const struct policy_running *b, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (a[k].job_id != b[k].job_id || a[k].end != b[k].end)
			return false;
	return true;
}

/* Whether the memo's state is V's (N nodes), RUN's and NOW's. */
static bool memo_same(const struct memo *m, const struct policy_view *v,
		      uint32_t N, const struct policy_running *run,
		      uint32_t nrun, int64_t now)
{
	return m->valid && m->N == N && m->now == now && m->nrun == nrun &&
	       m->has_usable == (v->usable != NULL) &&
	       same_jobs(m->run, run, nrun) &&
	       !memcmp(m->owner, v->owner, (size_t)N * sizeof(*v->owner)) &&
	       (!v->usable || !memcmp(m->usable, v->usable, N));
}

/* The memo to V's state (a copy of it), its answers dropped.  Returns
 * false when out of memory (the memo is then no state). */
static bool memo_reset(struct memo *m, const struct policy_view *v, uint32_t N,
		       const struct policy_running *run, uint32_t nrun,
		       int64_t now)
{
	memo_clear(m);
	m->epoch++;
	m->valid = false;
	if (m->N != N || !m->owner) {
		free(m->owner);
		free(m->usable);
		m->owner = malloc((size_t)(N ? N : 1) * sizeof(*m->owner));
		m->usable = malloc(N ? N : 1);
		m->N = m->owner && m->usable ? N : 0;
		if (!m->N)
			return false;
	}
	if (nrun > m->runcap) {
		free(m->run);
		m->run = malloc((size_t)nrun * sizeof(*m->run));
		m->runcap = m->run ? nrun : 0;
		if (!m->run)
			return false;
	}
	memcpy(m->owner, v->owner, (size_t)N * sizeof(*m->owner));
	m->has_usable = v->usable != NULL;
	if (v->usable)
		memcpy(m->usable, v->usable, N);
	if (nrun)
		memcpy(m->run, run, (size_t)nrun * sizeof(*run));
	m->nrun = nrun;
	m->now = now;
	m->valid = true;
	return true;
}

/* Whether P's answer to REQ never depends on the job id. */
static bool anonymous(const struct policy *p, const struct policy_request *req)
{
	return p->ops->anonymous ||
	       (p->ops->anonymous_for && p->ops->anonymous_for(p, req));
}

/* Whether entry A answers REQ. */
static bool memo_match(const struct memo_ans *a,
		       const struct policy_request *req)
{
	return a->used && a->nodes == req->nodes &&
	       a->attempt == req->attempt &&
	       (a->anon || a->job_id == req->job_id) &&
	       (a->pattern ? req->pattern && !strcmp(a->pattern, req->pattern) :
			     !req->pattern);
}

/* A kept answer to REQ on V's state into RES and WR (true), or false;
 * *EPOCH gets the state's epoch for memo_keep (0: do not keep). */
static bool memo_find(struct willrun_cache *c, const struct policy_view *v,
		      uint32_t N, const struct policy_running *run,
		      uint32_t nrun, int64_t now,
		      const struct policy_request *req,
		      struct policy_result *res, struct policy_will_run *wr,
		      uint64_t *epoch)
{
	struct memo *m = &c->memo;
	bool hit = false;

	*epoch = 0;
	pthread_mutex_lock(&c->lock);
	if (!memo_same(m, v, N, run, nrun, now)) {
		if (memo_reset(m, v, N, run, nrun, now))
			*epoch = m->epoch;
		pthread_mutex_unlock(&c->lock);
		return false;
	}
	*epoch = m->epoch;
	for (uint32_t k = 0; k < MEMO_N && !hit; k++) {
		const struct memo_ans *a = &m->ans[k];

		if (!memo_match(a, req))
			continue;
		*wr = a->wr;
		res->n = a->n;
		if (a->n)
			memcpy(res->nodes, a->res_nodes,
			       (size_t)a->n * sizeof(*res->nodes));
		res->isolated = a->isolated;
		res->nranks = 0;
		memcpy(res->reason, a->reason, sizeof(res->reason));
		hit = true;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

/* Keep the answer (RES, WR) to REQ, found on the state of EPOCH, unless
 * the memo has moved to another state since. */
static void memo_keep(struct willrun_cache *c, const struct policy *p,
		      uint64_t epoch, const struct policy_request *req,
		      const struct policy_result *res,
		      const struct policy_will_run *wr)
{
	struct memo *m = &c->memo;
	struct memo_ans *a;
	uint32_t *nodes = NULL;
	char *pat = NULL;

	if (res->n && !(nodes = malloc((size_t)res->n * sizeof(*nodes))))
		return;
	if (req->pattern && !(pat = strdup(req->pattern))) {
		free(nodes);
		return;
	}
	if (res->n)
		memcpy(nodes, res->nodes, (size_t)res->n * sizeof(*nodes));
	pthread_mutex_lock(&c->lock);
	if (!m->valid || m->epoch != epoch) {
		pthread_mutex_unlock(&c->lock);
		free(nodes);
		free(pat);
		return;
	}
	a = &m->ans[m->next];
	m->next = (m->next + 1) % MEMO_N;
	free(a->pattern);
	free(a->res_nodes);
	a->used = true;
	a->anon = anonymous(p, req);
	a->job_id = a->anon ? 0 : req->job_id;
	a->nodes = req->nodes;
	a->attempt = req->attempt;
	a->pattern = pat;
	a->wr = *wr;
	a->n = res->n;
	a->res_nodes = nodes;
	a->isolated = res->isolated;
	memcpy(a->reason, res->reason, sizeof(a->reason));
	pthread_mutex_unlock(&c->lock);
}

/* ENT[0..nrun) = RUN's entries (ends clamped to NOW) sorted, from C when
 * it holds this sort, else sorted and kept in C (C may be NULL). */
static void sort_ends(struct willrun_cache *c, const struct policy_running *run,
		      uint32_t nrun, int64_t now, struct ent *ent)
{
	size_t rb = (size_t)nrun * sizeof(*run),
	       eb = (size_t)nrun * sizeof(*ent);

	if (c) {
		pthread_mutex_lock(&c->lock);
		if (c->valid && c->nrun == nrun && c->now == now &&
		    same_jobs(c->run, run, nrun)) {
			if (nrun)
				memcpy(ent, c->ent, eb);
			pthread_mutex_unlock(&c->lock);
			return;
		}
	}
	for (uint32_t k = 0; k < nrun; k++) {
		ent[k].end = run[k].end < now ? now : run[k].end;
		ent[k].id = run[k].job_id;
	}
	if (nrun > 1)
		qsort(ent, nrun, sizeof(*ent), cmp_ent);
	if (!c)
		return;
	c->valid = false;
	if (nrun > c->cap) {
		free(c->run);
		free(c->ent);
		c->run = malloc(rb);
		c->ent = malloc(eb);
		c->cap = c->run && c->ent ? nrun : 0;
	}
	if (nrun <= c->cap) {
		if (nrun) {
			memcpy(c->run, run, rb);
			memcpy(c->ent, ent, eb);
		}
		c->nrun = nrun;
		c->now = now;
		c->valid = true;
	}
	pthread_mutex_unlock(&c->lock);
}

/* Sort RUN into groups of equal (clamped) end (through C); ENT gets the
 * sorted entries and GRP[k] the group of ENT[k]. */
static void group_ends(struct groups *g, struct willrun_cache *c,
		       const struct policy_running *run, uint32_t nrun,
		       int64_t now, struct ent *ent, uint32_t *grp)
{
	sort_ends(c, run, nrun, now, ent);
	g->n = 0;
	for (uint32_t k = 0; k < nrun; k++) {
		if (k == 0 || ent[k].end != ent[k - 1].end) {
			g->end[g->n] = ent[k].end;
			g->jobs[g->n++] = 0;
		}
		g->jobs[g->n - 1]++;
		grp[k] = g->n - 1;
	}
}

/* Group of every node's owner (NODE_GRP[i], NO_GROUP for free nodes and
 * jobs not running), through an open-addressing table of the job ids;
 * the earliest group wins for an id given twice. */
static int node_groups(const uint32_t *owner, uint32_t N, const struct ent *ent,
		       const uint32_t *grp, uint32_t nrun, uint32_t *node_grp)
{
	uint32_t cap = 16, *keys, *vals;

	while (cap < 2 * (uint64_t)nrun)
		cap *= 2;
	keys = calloc(cap, sizeof(*keys));
	vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (uint32_t k = 0; k < nrun; k++) {
		uint32_t id = ent[k].id, h;

		if (id == POLICY_FREE)
			continue;
		for (h = policy_hash32(id) & (cap - 1);
		     keys[h] && keys[h] != id; h = (h + 1) & (cap - 1))
			;
		if (!keys[h]) {
			keys[h] = id;
			vals[h] = grp[k];
		}
	}
	for (uint32_t i = 0, last = POLICY_FREE, lastg = NO_GROUP; i < N; i++) {
		uint32_t id = owner[i], h;

		if (id == POLICY_FREE) {
			node_grp[i] = NO_GROUP;
			continue;
		}
		if (id != last) { /* jobs mostly hold runs of nodes */
			for (h = policy_hash32(id) & (cap - 1);
			     keys[h] && keys[h] != id; h = (h + 1) & (cap - 1))
				;
			last = id;
			lastg = keys[h] ? vals[h] : NO_GROUP;
		}
		node_grp[i] = lastg;
	}
	free(keys);
	free(vals);
	return 0;
}

/* Build G for view V (N nodes) and RUN.  Returns 0 or -1 (memory). */
static int groups_build(struct groups *g, struct willrun_cache *c,
			const struct policy_view *v, uint32_t N,
			const struct policy_running *run, uint32_t nrun,
			int64_t now)
{
	struct ent *ent = malloc((size_t)nrun * sizeof(*ent));
	uint32_t *grp = malloc((size_t)nrun * sizeof(*grp));
	uint32_t *node_grp = malloc((size_t)(N ? N : 1) * sizeof(*node_grp));
	int rc = -1;

	memset(g, 0, sizeof(*g));
	g->end = malloc((size_t)nrun * sizeof(*g->end));
	g->jobs = malloc((size_t)nrun * sizeof(*g->jobs));
	g->first = calloc((size_t)nrun + 1, sizeof(*g->first));
	g->usable = calloc((size_t)nrun, sizeof(*g->usable));
	g->order = malloc((size_t)(N ? N : 1) * sizeof(*g->order));
	if (!ent || !grp || !node_grp || !g->end || !g->jobs || !g->first ||
	    !g->usable || !g->order)
		goto out;
	group_ends(g, c, run, nrun, now, ent, grp);
	if (node_groups(v->owner, N, ent, grp, nrun, node_grp))
		goto out;
	/* counting sort: first[q + 1] counts group q's nodes, then becomes
	 * the end of group q in order[] */
	for (uint32_t i = 0; i < N; i++) {
		uint32_t q = node_grp[i];

		if (q == NO_GROUP) {
			g->nfree += policy_node_ok(v, i);
			continue;
		}
		g->first[q + 1]++;
		g->usable[q] += policy_node_usable(v, i);
	}
	for (uint32_t q = 0; q < g->n; q++)
		g->first[q + 1] += g->first[q];
	for (uint32_t i = 0; i < N; i++)
		if (node_grp[i] != NO_GROUP)
			g->order[g->first[node_grp[i]]++] = i;
	for (uint32_t q = g->n; q > 0; q--)
		g->first[q] = g->first[q - 1];
	g->first[0] = 0;
	rc = 0;
out:
	free(ent);
	free(grp);
	free(node_grp);
	if (rc)
		groups_free(g);
	return rc;
}

/* SV (over SIM) to the machine with the first Q groups released, from
 * the first *CUR (nodes of later groups back to their owners in V): a new
 * gen, with the nodes that changed as the hint (order[] between the two
 * points). */
static void move_to(const struct groups *g, const struct policy_view *v,
		    uint32_t *sim, struct policy_view *sv, uint32_t *cur,
		    uint32_t q)
{
	uint32_t a = g->first[*cur], b = g->first[q];

	for (uint32_t k = a; k < b; k++)
		sim[g->order[k]] = POLICY_FREE;
	for (uint32_t k = b; k < a; k++)
		sim[g->order[k]] = v->owner[g->order[k]];
	*cur = q;
	sv->base_gen = sv->gen;
	sv->changed = g->order + (a < b ? a : b);
	sv->nchanged = a < b ? b - a : a - b;
	sv->gen = policy_gen_next();
}

/* Ask P about the machine after the first Q groups (see move_to). */
static enum policy_status ask_at(const struct policy *p,
				 const struct policy_view *v,
				 const struct groups *g, uint32_t *sim,
				 struct policy_view *sv, uint32_t *cur,
				 uint32_t q, const struct policy_request *req,
				 struct policy_result *res)
{
	move_to(g, v, sim, sv, cur, q);
	return policy_place_again(p, sv, req, res);
}

/* The linear search's answer for a monotone policy (policy_ops.monotone:
 * once placed after q groups, placed after any more), by galloping then
 * bisection over the points where it asks: after a group that frees
 * nodes, with enough free nodes.  It asks about log2 of the groups it
 * releases instead of every one, each with a fresh gen and the nodes
 * moved since the last question as the hint (a policy that keeps scans
 * brings them along).  Returns the number of
 * groups released at the answer (g->n when it waits for them all) and
 * leaves SV and RES as the linear search would: the answer's state and
 * reply.  *ASKED tells whether any question was asked. */
static uint32_t gallop(const struct policy *p, const struct policy_view *v,
		       const struct groups *g, uint32_t *sim,
		       struct policy_view *sv, const struct policy_request *req,
		       struct policy_result *res, enum policy_status *st,
		       bool *asked)
{
	uint32_t *pts = malloc(((size_t)g->n + 1) * sizeof(*pts));
	uint32_t npts = 0, nfree = g->nfree, cur = 0, lo, hi, step, at;
	uint32_t last = UINT32_MAX; /* point of the reply in RES */

	*asked = false;
	if (!pts)
		return UINT32_MAX;
	for (uint32_t q = 0; q < g->n; q++) {
		nfree += g->usable[q];
		if (g->first[q + 1] > g->first[q] && nfree >= req->nodes)
			pts[npts++] = q + 1;
	}
	if (!npts) {
		free(pts);
		return g->n;
	}
	/* gallop: pts[0], pts[1], pts[3], pts[7], ... until placed */
	lo = 0; /* no answer before pts[lo] */
	hi = npts;
	for (at = 0, step = 1;; step *= 2) {
		if (at >= npts - 1)
			at = npts - 1;
		*st = ask_at(p, v, g, sim, sv, &cur, pts[at], req, res);
		*asked = true;
		last = at;
		if (*st != POLICY_WAIT) {
			hi = at;
			break;
		}
		lo = at + 1;
		if (at == npts - 1)
			break;
		at += step;
	}
	if (hi == npts) { /* waits at the last point: the full machine */
		free(pts);
		return g->n;
	}
	/* bisect in [lo, hi]: hi answers, nothing below lo does */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		*st = ask_at(p, v, g, sim, sv, &cur, pts[mid], req, res);
		last = mid;
		if (*st != POLICY_WAIT)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (last != hi) /* the reply at the answer */
		*st = ask_at(p, v, g, sim, sv, &cur, pts[hi], req, res);
	at = pts[hi];
	free(pts);
	return at;
}

/* The search itself (policy_will_run's arguments, checked). */
static int search(const struct policy *p, const struct policy_view *v,
		  const struct policy_running *run, uint32_t nrun, int64_t now,
		  const struct policy_request *req, struct policy_result *res,
		  struct policy_will_run *wr, struct err *err)
{
	struct policy_view sv, v0;
	struct groups g;
	uint32_t N, *sim, q = 0;
	enum policy_status st;
	bool stale = false;

	/* a view without a version gets one for this call (its owners do
	 * not change during it): the policy's scan of it is then the base
	 * of the first question's change hint */
	if (!v->gen) {
		v0 = *v;
		v0.gen = policy_gen_next();
		v0.base_gen = 0;
		v0.changed = NULL;
		v0.nchanged = 0;
		v = &v0;
	}
	memset(wr, 0, sizeof(*wr));
	wr->start = now;
	st = policy_place(p, v, req, res);
	snprintf(wr->now_reason, sizeof(wr->now_reason), "%s",
		 st == POLICY_PLACED ? "" : res->reason);
	wr->status = st;
	if (st != POLICY_WAIT || nrun == 0)
		return 0;
	N = topo_num_nodes(p->t);
	sim = malloc((size_t)(N ? N : 1) * sizeof(*sim));
	if (!sim || groups_build(&g, p->wrc, v, N, run, nrun, now)) {
		free(sim);
		return err_nomem(err, "will-run: out of memory");
	}
	memcpy(sim, v->owner, (size_t)N * sizeof(*sim));
	sv.owner = sim;
	sv.usable = v->usable;
	/* a new gen at every release, with the nodes freed since the last
	 * question as the hint (order[] lists each node once) */
	sv.gen = v->gen ? v->gen : policy_gen_next(); /* SIM holds V */
	sv.base_gen = 0;
	sv.changed = NULL;
	sv.nchanged = 0;
	if (p->ops->monotone && !p->opts.reference_search) {
		bool any;

		q = gallop(p, v, &g, sim, &sv, req, res, &st, &any);
		if (q == UINT32_MAX) {
			free(sim);
			groups_free(&g);
			return err_nomem(err, "will-run: out of memory");
		}
		for (uint32_t k = 0; k < q; k++)
			wr->jobs += g.jobs[k];
		if (q)
			wr->start = g.end[q - 1];
		/* waits after every group: the linear search asks the
		 * machine with every job gone unless its last question
		 * was that one */
		if (st == POLICY_WAIT && !any && g.first[g.n] > 0) {
			move_to(&g, v, sim, &sv, &(uint32_t){ 0 }, g.n);
			st = policy_place(p, &sv, req, res);
		}
		wr->groups = q;
		wr->status = st;
		free(sim);
		groups_free(&g);
		return 0;
	}
	while (q < g.n) {
		for (uint32_t k = g.first[q]; k < g.first[q + 1]; k++)
			sim[g.order[k]] = POLICY_FREE;
		if (g.first[q + 1] > g.first[q]) {
			if (!stale) {
				sv.base_gen = sv.gen;
				sv.changed = g.order + g.first[q];
				sv.nchanged = 0;
				sv.gen = policy_gen_next();
			}
			sv.nchanged += g.first[q + 1] - g.first[q];
		}
		stale |= g.first[q + 1] > g.first[q];
		g.nfree += g.usable[q];
		wr->jobs += g.jobs[q];
		wr->start = g.end[q];
		q++;
		if (!stale || g.nfree < req->nodes)
			continue;
		st = policy_place_again(p, &sv, req, res);
		stale = false;
		if (st != POLICY_WAIT)
			break;
	}
	/* still waiting: the reason of the machine with every job gone */
	if (st == POLICY_WAIT && stale) {
		st = policy_place(p, &sv, req, res);
	}
	wr->groups = q;
	wr->status = st;
	free(sim);
	groups_free(&g);
	return 0;
}

int policy_will_run(const struct policy *p, const struct policy_view *v,
		    const struct policy_running *run, uint32_t nrun,
		    int64_t now, const struct policy_request *req,
		    struct policy_result *res, struct policy_will_run *wr,
		    struct err *err)
{
	uint64_t epoch = 0;
	bool memo;

	if (!p || !v || !v->owner || !req || !res || !res->nodes || !wr ||
	    (nrun && !run))
		return err_set(err, "will-run: policy, view with owners, "
				    "request, result buffer and running jobs "
				    "are required");
	memo = p->wrc && !p->opts.willrun_forget && !p->opts.reference_search &&
	       !req->ngrid && !res->rank_node;
	if (memo && memo_find(p->wrc, v, topo_num_nodes(p->t), run, nrun, now,
			      req, res, wr, &epoch))
		return 0;
	if (search(p, v, run, nrun, now, req, res, wr, err))
		return -1;
	if (memo && epoch)
		memo_keep(p->wrc, p, epoch, req, res, wr);
	return 0;
}
