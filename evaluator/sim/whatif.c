/* whatif.c - FCFS + EASY backfill simulation of a workload under an
 * allocation policy (see whatif.h for the scheduling rules). */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evaluator/traffic/flows.h"
#include "evaluator/sharing/linkshare.h"
#include "evaluator/models/model.h"
#include "evaluator/sim/whatif.h"
#include "policies/policy.h"
#include "policies/willrun.h"
#include "topo/util/par.h"

struct ev {
	int64_t t;
	uint32_t job;
};

/* Running jobs (indices) whose link set holds one link, and where the
 * link is in each one's link set (its index q there): a job's
 * positions in these lists are kept after its links (links[i] + nlinks
 * [i]), so that its end takes it out of each in O(1). */
struct onlink {
	uint32_t *job, *qi;
	uint32_t n, cap;
};

struct sim {
	const struct topo *t;
	const struct routing *r;
	struct policy *pol;
	const struct workload *w;
	const struct whatif_opts *o;
	struct whatif_result *res;
	struct err *err;
	uint32_t N;
	uint32_t *owner; /* [N] job index + 1, POLICY_FREE when free */
	/* [N] running snapshot jobs holding the node besides its owner
	 * (NULL until a snapshot shares a node) */
	uint32_t *extra;
	uint32_t nfree;
	uint32_t *tmp;		/* [N] owner copy for reservations */
	uint8_t *usable;	/* [N] backfill mask (0 on reserved nodes) */
	uint8_t *scratch;	/* [L] zeroed link marks */
	uint32_t *buf;		/* [N] policy result */
	uint32_t *buf2;		/* [N] policy result of reservation checks */
	uint32_t *rbuf, *rbuf2; /* [N] their rank orders (nne's grid jobs) */
	uint32_t *resv;		/* [N] reserved nodes of the head */
	uint32_t nresv;
	struct policy_running *rel; /* running jobs (id = index + 1) by
				     * expected end (reserve) */
	uint32_t relk; /* the first relk end before the head starts */
	uint32_t *bfb; /* jobs backfilled this pass that end before
			* the reservation */
	uint32_t nbfb;
	struct ls_state *ls;
	uint32_t *run; /* running job indices */
	uint32_t nrun;
	struct ev *heap; /* actual ends, min-heap */
	uint32_t nheap;
	uint32_t *queue; /* waiting job indices, FCFS */
	uint32_t nq;
	uint32_t *arr; /* simulated jobs by arrival */
	uint32_t narr, next;
	int64_t *arrival; /* [njobs] when the job joins the queue */
	/* [njobs] the policy answered PLACED or WAIT once: later asks skip
	 * its checks and its "never" search (policy_place_again) */
	uint8_t *asked;
	/* rates: path links cached for the running jobs (jin[]) */
	uint64_t cached;
	/* version of owner[] and usable[] (policy_view.gen), bumped at
	 * every change of either */
	uint64_t gen;
	/* version of owner[] alone, and the last reservation (reserve)
	 * made at one: head, start, running jobs ended by then (its nodes
	 * stay in resv[]) */
	uint64_t over, rs_over;
	/* the change hints (policy_view.base_gen, changed) of the views
	 * without a usable mask [0] and with s->usable [1]: the nodes
	 * whose owner (and for [1] usable flag) changed since the version
	 * last shown in such a view */
	struct hint {
		uint64_t shown, base;
		uint32_t *chg, n;
		uint8_t *in;
		bool ok;
	} hint[2];
	uint32_t *kchg; /* [N] keeps_reservation's change */
	/* keeps_reservation's machine at the reserved start through one
	 * backfill pass (kr_valid): s->tmp, built at the pass's first
	 * question, view version kr_gen; the nodes of the last question's
	 * job (krn, nkrn: given back at the next question unless it
	 * started), krmark/krstamp to tell the change's nodes apart */
	uint32_t *krn, nkrn, *krmark, krstamp;
	uint64_t kr_gen;
	bool kr_valid;
	uint32_t rs_head, rs_relk;
	int64_t rs_when;
	bool rs_valid;
	int64_t now, tlast, tfirst;
	int64_t tend; /* latest end so far */
	double mls_int, tls_int, busy;
	double cur_mls, cur_tls;
	/* rates: each running job's link set, flows and (path models)
	 * their paths, built once at its start; per link the running jobs
	 * whose link set holds it */
	uint32_t **links;
	uint32_t *nlinks;
	struct flows *jflows;	 /* [njobs] */
	struct model_input *jin; /* [njobs] (global link ids) */
	struct onlink *onlink;	 /* [L] */
	uint32_t nindexed;	 /* jobs with a link in onlink */
	bool paths;		 /* the model works on paths */
	uint32_t *stamp;	 /* [L] link marks */
	uint32_t stampv;
	uint8_t *incomp; /* [njobs] */
	uint32_t *comp;	 /* [njobs] the sharing component */
	uint32_t *lid;	 /* [L] compact id in cin, UINT32_MAX when none */
	uint32_t *lglob; /* [L] global id of compact link */
	/* the component's instance (compact link ids; arrays grown as
	 * needed, kept from start to start) and its allocated flows, paths
	 * and crossings */
	struct model_input cin;
	size_t cin_f, cin_p, cin_e;
	/* rates under hm: the sub-flow counts of the running jobs, kept
	 * current at each start and end (none of the above is used) */
	struct model_hm_state *hm;
	struct model_hm_set *hmset; /* [njobs] */
	/* deferred rates (whatif_opts.rate_threads > 1, flow models): the
	 * flows of every job kept to the end, and per start a task: the
	 * job and its sharing component (itself first), comp. entries
	 * tk_off[k] .. tk_off[k + 1] of tk_comp */
	bool defer;
	uint32_t ntk, tk_cap;
	uint32_t *tk_off; /* [tk_cap + 1] */
	uint32_t *tk_comp;
	size_t tk_ccap;
	/* run-time models (whatif.h): every simulated job's work left and
	 * pace, its end pushed again at every change of pace; heap entries
	 * whose job has ended or moved its end are skipped (stale) */
	bool dyn;
	uint32_t heap_cap;
	uint8_t *live;	 /* [njobs] running (dyn) */
	double *left;	 /* [njobs] trace seconds of work left at tupd */
	double *pace;	 /* [njobs] trace seconds done per second */
	int64_t *tupd;	 /* [njobs] when left was brought up to date */
	uint8_t *shares; /* [njobs] its link set shares a link now */
	uint8_t *capped; /* [njobs] its end is its time limit, work left */
	/* comm_fraction: each job's fraction, rate alone on its nodes (-1
	 * until needed) and rate now; the running jobs sharing a link with
	 * one that starts or ends (nbr, marked in nmark with nmarkv) are
	 * rated again once every start and end of that second is done
	 * (dirty, marked in dmark with dmarkv): no time passes in between,
	 * so each is rated once per second, on the final state */
	bool fmode;
	double *frac, *alone, *rnow; /* [njobs] */
	/* hm: the counts' version rnow[k] is of (model_hm_state_version;
	 * UINT64_MAX: none): a job rated at its start with no start or end
	 * after it in that second is not rated again */
	uint64_t *rver;	       /* [njobs] */
	uint32_t *nbr, *nmark; /* [njobs] */
	uint32_t nnbr, nmarkv;
	uint32_t *dirty, *dmark, ndirty, dmarkv; /* [njobs] */
	struct model_hm_state *hm_alone;	 /* hm: an empty state to rate a
					  * job alone in */
	/* hm's closed form: the running jobs not yet rated alone (aq, naq;
	 * rate_dirty rates them among its tasks, thread t > 0 in alst[t],
	 * thread 0 in hm_alone) */
	uint32_t *aq, naq;
	size_t *aoff; /* [njobs] aq[q]'s flows' rates at rall + aoff[q] */
	struct model_hm_state **alst;
	/* hm's closed form: the dirty jobs to rate again (todo), their
	 * flows' rates at rall + roff[q], and the tasks (runs of a job's
	 * flows) shared out among threads, thread t > 0 rating in room[t],
	 * thread 0 in the state's own scratch (rate_dirty) */
	uint32_t *todo, ntodo;
	size_t *roff;
	double *rall;
	size_t rall_cap;
	struct rate_task {
		uint32_t q, off, n; /* s->todo[q]'s flows off .. off + n */
		bool alone;	    /* s->aq[q]'s flows, all, rated alone */
	} * task;
	uint32_t ntask, task_cap;
	struct model_hm_room **room;
	uint32_t nroom;
};

/* Work below this (trace seconds) is done: sums of paces times whole
 * seconds carry rounding. */
#define WORK_EPS 1e-6

void whatif_opts_init(struct whatif_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->bf_depth = 500;
	o->comm_fraction = -1;
}

void whatif_result_free(struct whatif_result *res)
{
	if (!res)
		return;
	for (uint32_t i = 0; res->jobs && i < res->njob_out; i++)
		free(res->jobs[i].nodes);
	free(res->jobs);
	memset(res, 0, sizeof(*res));
}

/* Push end T of JOB.  Returns 0, or -1 out of memory (the heap grows
 * under a run-time model, whose stale entries wait their turn). */
static int heap_push(struct sim *s, int64_t t, uint32_t job)
{
	uint32_t i;

	if (s->nheap == s->heap_cap) {
		uint32_t cap = s->heap_cap < UINT32_MAX / 2 ? 2 * s->heap_cap :
							      UINT32_MAX;
		struct ev *h = cap > s->heap_cap ?
				       realloc(s->heap, cap * sizeof(*h)) :
				       NULL;

		if (!h)
			return -1;
		s->heap = h;
		s->heap_cap = cap;
	}
	i = s->nheap++;

	while (i) {
		uint32_t p = (i - 1) / 2;

		if (s->heap[p].t < t ||
		    (s->heap[p].t == t && s->heap[p].job < job))
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i].t = t;
	s->heap[i].job = job;
	return 0;
}

static struct ev heap_pop(struct sim *s)
{
	struct ev top = s->heap[0], last = s->heap[--s->nheap];
	uint32_t i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= s->nheap)
			break;
		if (c + 1 < s->nheap && (s->heap[c + 1].t < s->heap[c].t ||
					 (s->heap[c + 1].t == s->heap[c].t &&
					  s->heap[c + 1].job < s->heap[c].job)))
			c++;
		if (last.t < s->heap[c].t ||
		    (last.t == s->heap[c].t && last.job <= s->heap[c].job))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* The machine changes at NODES[0..N): owner[] (USABLE_ONLY false) or
 * usable[] only: a new view version, and the nodes noted for the next
 * views' hints (a change of usable[] alone is none to the views without
 * it). */
static void changing(struct sim *s, const uint32_t *nodes, uint32_t n,
		     bool usable_only)
{
	for (int t = 0; t < 2; t++) {
		struct hint *h = &s->hint[t];

		if (s->gen == h->shown) { /* the first change since shown */
			for (uint32_t q = 0; q < h->n; q++)
				h->in[h->chg[q]] = 0;
			h->n = 0;
			h->ok = true;
			h->base = s->gen;
		}
		for (uint32_t k = 0; k < n && (t || !usable_only); k++)
			if (!h->in[nodes[k]]) {
				h->in[nodes[k]] = 1;
				h->chg[h->n++] = nodes[k];
			}
	}
	s->gen = policy_gen_next();
}

/* The machine now, in view V (its usable mask set): its version, and
 * how it changed since the version last shown in such a view (the
 * policy may then count only that). */
static void shown(struct sim *s, struct policy_view *v)
{
	struct hint *h = &s->hint[v->usable != NULL];

	v->gen = s->gen;
	if (h->ok && h->base != s->gen) {
		v->base_gen = h->base;
		v->changed = h->chg;
		v->nchanged = h->n;
	}
	h->shown = s->gen;
}

/* Ask the policy to place job I on view V, the nodes into BUF. */
static enum policy_status place_view(struct sim *s, uint32_t i,
				     const struct policy_view *v,
				     struct policy_result *pr, uint32_t *buf)
{
	const struct wl_job *j = &s->w->jobs[i];
	struct policy_request rq = {
		.job_id = i + 1,
		.nodes = j->nodes,
		.pattern = j->pattern,
	};
	enum policy_status st;

	memset(pr, 0, sizeof(*pr));
	pr->nodes = buf;
	pr->rank_node = buf == s->buf ? s->rbuf : s->rbuf2;
	pr->rank_cap = s->N;
	if (j->nodes > s->N) {
		snprintf(pr->reason, sizeof(pr->reason),
			 "%u nodes requested, "
			 "the machine has %u",
			 j->nodes, s->N);
		return POLICY_NEVER;
	}
	if (s->asked[i])
		return policy_place_again(s->pol, v, &rq, pr);
	st = policy_place(s->pol, v, &rq, pr);
	s->asked[i] = st != POLICY_NEVER;
	return st;
}

/* ... on the machine now (OWNER s->owner, with its version and change
 * hint) or another OWNER (no version), under USABLE. */
static enum policy_status place_into(struct sim *s, uint32_t i,
				     const uint32_t *owner,
				     const uint8_t *usable,
				     struct policy_result *pr, uint32_t *buf)
{
	struct policy_view v = { .owner = owner, .usable = usable };

	if (owner == s->owner)
		shown(s, &v);
	return place_view(s, i, &v, pr, buf);
}

static enum policy_status place(struct sim *s, uint32_t i,
				const uint32_t *owner, const uint8_t *usable,
				struct policy_result *pr)
{
	return place_into(s, i, owner, usable, pr, s->buf);
}

/* Progress: the jobs placed so far (started or dropped), after every
 * start, so that a pass that starts many slow jobs (predicted rates)
 * reports too. */
static void report(const struct sim *s)
{
	/* deferred rates: progress counts the rates done (rate_tasks) */
	if (s->o->progress && !s->defer)
		s->o->progress(s->o->progress_arg,
			       s->res->started + s->res->dropped, s->w->n,
			       "jobs");
}

static void drop(struct sim *s, uint32_t i, const char *why)
{
	struct whatif_job *o = &s->res->jobs[i];

	o->dropped = true;
	o->start = o->end = -1;
	snprintf(o->reason, sizeof(o->reason), "%s", why);
	s->res->dropped++;
	report(s);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The running jobs sharing links with job I, directly or through others:
 * a search over the link -> jobs incidence from I's links, each link and
 * each incidence entry looked at once.  Into s->comp (I first, the others
 * by index); returns their number. */
static uint32_t component(struct sim *s, uint32_t i)
{
	uint32_t nc = 0;

	if (++s->stampv == 0) {
		memset(s->stamp, 0, topo_num_links(s->t) * sizeof(*s->stamp));
		s->stampv = 1;
	}
	s->comp[nc++] = i;
	s->incomp[i] = 1;
	for (uint32_t c = 0; c < nc; c++) {
		uint32_t j = s->comp[c];

		for (uint32_t q = 0; q < s->nlinks[j]; q++) {
			uint32_t l = s->links[j][q];
			const struct onlink *ol = &s->onlink[l];

			if (s->stamp[l] == s->stampv)
				continue;
			s->stamp[l] = s->stampv;
			for (uint32_t k = 0; k < ol->n; k++)
				if (!s->incomp[ol->job[k]]) {
					s->incomp[ol->job[k]] = 1;
					s->comp[nc++] = ol->job[k];
				}
		}
	}
	for (uint32_t c = 0; c < nc; c++)
		s->incomp[s->comp[c]] = 0;
	qsort(s->comp + 1, nc - 1, sizeof(*s->comp), cmp_u32);
	return nc;
}

/* *P to N elements.  Returns 0 or -1 (*P unchanged). */
static int resize_u32(uint32_t **p, size_t n)
{
	uint32_t *q = realloc(*p, n * sizeof(*q));

	if (!q)
		return -1;
	*p = q;
	return 0;
}

static int resize_dbl(double **p, size_t n)
{
	double *q = realloc(*p, n * sizeof(*q));

	if (!q)
		return -1;
	*p = q;
	return 0;
}

/* Room in s->cin for NF flows, NP paths and NE crossings. */
static int cin_room(struct sim *s, size_t nf, size_t np, size_t ne)
{
	struct model_input *in = &s->cin;

	if (nf + 1 > s->cin_f) {
		size_t n = 2 * (nf + 1);

		if (resize_dbl(&in->demand, n) || resize_u32(&in->src, n) ||
		    resize_u32(&in->flow_off, n))
			return -1;
		s->cin_f = n;
	}
	if (np + 1 > s->cin_p) {
		size_t n = 2 * (np + 1);

		if (resize_u32(&in->path_off, n))
			return -1;
		s->cin_p = n;
	}
	if (ne + 1 > s->cin_e) {
		size_t n = 2 * (ne + 1);

		if (resize_u32(&in->links, n))
			return -1;
		s->cin_e = n;
	}
	return 0;
}

/* s->cin: the cached instances of the NC jobs of s->comp one after the
 * other, links renumbered densely in order of first crossing, so the
 * model's per-link work is over the component's links, not the
 * machine's.  Returns 0 or -1 with s->err set. */
static int assemble(struct sim *s, uint32_t nc)
{
	struct model_input *in = &s->cin;
	size_t nf = 0, np = 0, ne = 0;
	uint32_t nl = 0;

	for (uint32_t c = 0; c < nc; c++) {
		const struct model_input *ji = &s->jin[s->comp[c]];

		if (!ji->path_off)
			continue;
		nf += ji->nflows;
		np += ji->npaths;
		ne += ji->path_off[ji->npaths];
	}
	if (np >= UINT32_MAX || ne >= UINT32_MAX)
		return err_set(s->err, "more than 2^32 paths or path links");
	if (cin_room(s, nf, np, ne))
		return err_nomem(s->err, "out of memory");
	nf = np = ne = 0;
	for (uint32_t c = 0; c < nc; c++) {
		const struct model_input *ji = &s->jin[s->comp[c]];
		uint32_t jne;

		if (!ji->path_off) /* fewer than 2 nodes: no flows */
			continue;
		jne = ji->path_off[ji->npaths];
		for (uint32_t f = 0; f < ji->nflows; f++) {
			in->demand[nf + f] = ji->demand[f];
			in->src[nf + f] = ji->src[f];
			in->flow_off[nf + f] = (uint32_t)np + ji->flow_off[f];
		}
		for (uint32_t p = 0; p < ji->npaths; p++)
			in->path_off[np + p] = (uint32_t)ne + ji->path_off[p];
		for (uint32_t e = 0; e < jne; e++) {
			uint32_t l = ji->links[e];

			if (s->lid[l] == UINT32_MAX) {
				s->lid[l] = nl;
				s->lglob[nl++] = l;
			}
			in->links[ne + e] = s->lid[l];
		}
		nf += ji->nflows;
		np += ji->npaths;
		ne += jne;
	}
	in->flow_off[nf] = (uint32_t)np;
	in->path_off[np] = (uint32_t)ne;
	for (uint32_t l = 0; l < nl; l++) {
		in->cap[l] = topo_link(s->t, s->lglob[l])->capacity;
		s->lid[s->lglob[l]] = UINT32_MAX;
	}
	in->nlinks = nl;
	in->nflows = (uint32_t)nf;
	in->npaths = (uint32_t)np;
	return 0;
}

/* The rate of job COMP[0] under the flow model MODEL: its flows and
 * those of the other NC - 1 jobs of COMP one after the other (for the
 * models built from the routing's structure, which take flows), the
 * model stopped once the first job's rates are final.  Reads S's
 * routing and job flows only, so threads may run it at once (each with
 * its own ERR).  Returns 0 or -1 with err set. */
static int flows_rate(const struct sim *s, const char *model,
		      const uint32_t *comp, uint32_t nc, double *rate,
		      struct err *err)
{
	uint32_t nmine = s->jflows[comp[0]].n;
	struct model_result mr;
	struct model_opts mo;
	struct flows all;
	int rc = 0;

	*rate = 0;
	model_opts_init(&mo);
	mo.top_links = 0;
	mo.need_flows = nmine;
	memset(&mr, 0, sizeof(mr));
	flows_init(&all);
	for (uint32_t c = 0; c < nc && !rc; c++) {
		const struct flows *f = &s->jflows[comp[c]];

		for (uint32_t k = 0; k < f->n && !rc; k++)
			if (flows_add(&all, f->src[k], f->dst[k], f->demand[k]))
				rc = err_nomem(err, "out of memory");
	}
	if (!rc)
		rc = model_run(model, s->r, &all, &mo, &mr, err);
	for (uint32_t f = 0; !rc && f < nmine; f++)
		*rate += mr.rates[f];
	flows_free(&all);
	model_result_free(&mr);
	return rc ? -1 : 0;
}

/* Predicted rate of job I at its start: the model over the flows of I and
 * of every running job connected to it through shared links (jobs outside
 * that component share no link with it, so they cannot change its rates).
 * Every job's flows and paths were built at its start (job_cache), so
 * this only copies them; I's flows come first, and the model stops as
 * soon as their rates are final (model_opts.need_flows). */
static int job_rate(struct sim *s, uint32_t i, double *rate)
{
	const char *model = s->o->model ? s->o->model : "jm";
	uint32_t nc, nmine = s->jflows[i].n;
	struct model_result mr;
	struct model_opts mo;
	int rc;

	*rate = 0;
	if (s->res->jobs[i].n < 2 || !nmine)
		return 0;
	nc = component(s, i);
	if (!s->paths)
		rc = flows_rate(s, model, s->comp, nc, rate, s->err);
	else {
		model_opts_init(&mo);
		mo.top_links = 0;
		mo.need_flows = nmine;
		memset(&mr, 0, sizeof(mr));
		rc = assemble(s, nc);
		if (!rc)
			rc = model_solve(model, &s->cin, &mo, &mr, s->err);
		for (uint32_t f = 0; !rc && f < nmine; f++)
			*rate += mr.rates[f];
		model_result_free(&mr);
	}
	if (rc) {
		err_prefix(s->err, "rate");
		workload_job_where(s->w, i, s->err);
	}
	return rc ? -1 : 0;
}

/* Deferred rates: record job I's task, its sharing component now (the
 * rate itself comes from rate_tasks after the simulation).  Returns 0
 * or -1 with s->err set. */
static int defer_rate(struct sim *s, uint32_t i)
{
	uint32_t nc;
	size_t at;

	if (s->res->jobs[i].n < 2 || !s->jflows[i].n)
		return 0;
	nc = component(s, i);
	at = s->ntk ? s->tk_off[s->ntk] : 0;
	if (at + nc >= UINT32_MAX)
		return err_set(s->err, "rate: more than 2^32 jobs in the "
				       "recorded sharing components");
	if (s->ntk + 1 >= s->tk_cap) {
		uint32_t n = s->tk_cap ? 2 * s->tk_cap : 64;

		if (resize_u32(&s->tk_off, (size_t)n + 1))
			return err_nomem(s->err, "out of memory");
		s->tk_cap = n;
	}
	if (at + nc > s->tk_ccap) {
		size_t n = 2 * (at + nc);

		if (resize_u32(&s->tk_comp, n))
			return err_nomem(s->err, "out of memory");
		s->tk_ccap = n;
	}
	memcpy(s->tk_comp + at, s->comp, nc * sizeof(*s->comp));
	s->tk_off[s->ntk] = (uint32_t)at;
	s->tk_off[++s->ntk] = (uint32_t)(at + nc);
	return 0;
}

/* Predicted rate of job I at its start under hm: its flows' counts added
 * to the running jobs' (model_hm_state), their rates summed.  hm's rate
 * of a flow depends only on the counts of its own links, so this is hm
 * over every running job, without the component or any path kept. */
static int job_hm(struct sim *s, uint32_t i, double *rate)
{
	const char *defpat = s->o->pattern ? s->o->pattern :
					     WHATIF_DEFAULT_PATTERN;
	const struct wl_job *j = &s->w->jobs[i];
	const struct whatif_job *o = &s->res->jobs[i];
	/* comm_fraction rates the job again later: its flows kept */
	struct flows own, *f = s->jflows ? &s->jflows[i] : &own;
	double *r = NULL;
	int rc = 0;

	*rate = 0;
	if (o->n < 2)
		return 0;
	flows_init(f);
	if (flows_pattern(j->pattern ? j->pattern : defpat, o->nodes, o->n,
			  s->o->seed + j->id, f, s->err)) {
		rc = workload_job_where(s->w, i, s->err);
		goto out;
	}
	r = malloc(((size_t)f->n + 1) * sizeof(*r));
	if (!r) {
		rc = err_nomem(s->err, "out of memory");
		goto out;
	}
	if (model_hm_state_add(s->hm, f, r, &s->hmset[i], s->err)) {
		err_prefix(s->err, "rate");
		rc = workload_job_where(s->w, i, s->err);
		goto out;
	}
	for (uint32_t k = 0; k < f->n; k++)
		*rate += r[k];
	if (s->rver)
		s->rver[i] = model_hm_state_version(s->hm);
out:
	free(r);
	if (f == &own)
		flows_free(f);
	return rc;
}

/* Path links the rates may keep cached at once (4 bytes each): beyond,
 * a clean error rather than memory without end (cascade under ugal has
 * millions of paths per flow). */
#define WHATIF_MAX_PATH_LINKS (UINT64_C(1) << 28)

/* What job I (N >= 2 nodes) brings to the rates of the jobs it will
 * share links with: its flows (its pattern, seeded by its id) and, for a
 * path model, their paths; and its place in the link -> jobs incidence.
 * Built once here, dropped by job_uncache at its end. */
static int job_cache(struct sim *s, uint32_t i)
{
	const char *defpat = s->o->pattern ? s->o->pattern :
					     WHATIF_DEFAULT_PATTERN;
	const struct wl_job *j = &s->w->jobs[i];
	const struct whatif_job *o = &s->res->jobs[i];

	if (o->n < 2)
		return 0;
	if (flows_pattern(j->pattern ? j->pattern : defpat, o->nodes, o->n,
			  s->o->seed + j->id, &s->jflows[i], s->err))
		return workload_job_where(s->w, i, s->err);
	if (s->paths &&
	    model_input_build(s->r, &s->jflows[i], &s->jin[i], s->err)) {
		err_prefix(s->err, "rate");
		return workload_job_where(s->w, i, s->err);
	}
	if (s->paths) {
		s->cached += s->jin[i].path_off[s->jin[i].npaths];
		if (s->cached > WHATIF_MAX_PATH_LINKS) {
			err_set(s->err,
				"rate: the running jobs' routing paths "
				"reach %" PRIu64 " path links (more than "
				"%" PRIu64 ", %" PRIu64 " MiB): the routing "
				"has too many paths to predict rates; use "
				"--no-rates",
				s->cached, (uint64_t)WHATIF_MAX_PATH_LINKS,
				(uint64_t)WHATIF_MAX_PATH_LINKS * 4 >> 20);
			return workload_job_where(s->w, i, s->err);
		}
	}
	return 0;
}

static void job_uncache(struct sim *s, uint32_t i)
{
	if (!s->defer) /* deferred rates read them after the simulation */
		flows_free(&s->jflows[i]);
	if (s->jin[i].path_off)
		s->cached -= s->jin[i].path_off[s->jin[i].npaths];
	model_input_free(&s->jin[i]);
}

/* Job I's link set (s->links[i]) into the link -> running jobs
 * incidence. */
static int index_links(struct sim *s, uint32_t i)
{
	uint32_t *pos = s->links[i] + s->nlinks[i];

	if (s->nlinks[i])
		s->nindexed++;
	for (uint32_t q = 0; q < s->nlinks[i]; q++) {
		struct onlink *ol = &s->onlink[s->links[i][q]];

		if (ol->n == ol->cap) {
			uint32_t n = ol->cap ? 2 * ol->cap : 4;

			if (resize_u32(&ol->job, n) || resize_u32(&ol->qi, n))
				return err_nomem(s->err, "out of memory");
			ol->cap = n;
		}
		ol->job[ol->n] = i;
		ol->qi[ol->n] = q;
		pos[q] = ol->n++;
	}
	return 0;
}

/* ... and out of it at its end. */
static void unindex_links(struct sim *s, uint32_t i)
{
	const uint32_t *pos = s->links[i] + s->nlinks[i];

	if (s->nlinks[i])
		s->nindexed--;
	/* the last of each list moves to I's place */
	for (uint32_t q = 0; q < s->nlinks[i]; q++) {
		struct onlink *ol = &s->onlink[s->links[i][q]];
		uint32_t p = pos[q], last = --ol->n;

		if (p != last) {
			uint32_t j = ol->job[last], jq = ol->qi[last];

			ol->job[p] = j;
			ol->qi[p] = jq;
			s->links[j][s->nlinks[j] + jq] = p;
		}
	}
	free(s->links[i]);
	s->links[i] = NULL;
	s->nlinks[i] = 0;
}

/* ---- run-time models ---- */

/* Job K's pace now (trace seconds per second): 1 + G while its link set
 * shares no link; with comm_fraction F, 1 / (1 - F + F / c), c its rate
 * now over its rate alone (at most 1; 1 while it shares no link). */
static double pace_of(const struct sim *s, uint32_t k)
{
	double c = 1, f;

	if (!s->fmode)
		return s->shares[k] ? 1.0 : 1.0 + s->o->isolation_gain;
	if (s->shares[k] && s->alone[k] > 0 && s->rnow[k] < s->alone[k])
		c = s->rnow[k] / s->alone[k];
	/* a rate of 0 would never end: the limit does */
	if (c < 1e-12)
		c = 1e-12;
	f = s->frac[k];
	return 1 / (1 - f + f / c);
}

/* Job K's end at its pace from now: its work left at that pace, whole
 * seconds rounded up, at most its time limit (capped: killed there if
 * nothing changes).  Pushed when it moved, or when FORCE (its start).
 * Returns 0, or -1 with s->err set. */
static int set_end(struct sim *s, uint32_t k, bool force)
{
	struct whatif_job *o = &s->res->jobs[k];
	int64_t room = o->start + s->w->jobs[k].limit - s->now, e;
	double d = s->left[k] <= WORK_EPS ?
			   0 :
			   ceil(s->left[k] / s->pace[k] - WORK_EPS);

	s->capped[k] = d > (double)room;
	e = d >= (double)room ? s->now + room : s->now + (int64_t)d;
	if (!force && e == o->end)
		return 0;
	o->end = e;
	return heap_push(s, e, k) ? err_nomem(s->err, "out of memory") : 0;
}

/* comm_fraction: whether job K's end can no longer move, so that its
 * rates from now on change nothing: it is capped (ends, killed, at its
 * limit) and its work left now exceeds the time to its limit even at
 * pace 1, the most a comm_fraction pace can be.  Then it stays so: a
 * second later its work left is down by its pace (at most 1) and the
 * time to its limit by 1, and set_end gives the limit again.  The output
 * (end, killed, stretch, work lost) does not read the work left or the
 * pace, so such a job is neither rated nor repaced again (on Lublin's
 * workload, whose limits are its run times, a job is pinned once it has
 * been slowed at all). */
static bool pinned(const struct sim *s, uint32_t k)
{
	int64_t room = s->res->jobs[k].start + s->w->jobs[k].limit - s->now;
	double left;

	if (!s->capped[k])
		return false;
	left = s->left[k] - s->pace[k] * (double)(s->now - s->tupd[k]);
	return left > WORK_EPS && ceil(left - WORK_EPS) > (double)room;
}

/* Job K's work brought to now at its old pace, then its new pace and
 * end. */
static int repace(struct sim *s, uint32_t k)
{
	s->left[k] -= s->pace[k] * (double)(s->now - s->tupd[k]);
	s->tupd[k] = s->now;
	s->pace[k] = pace_of(s, k);
	return set_end(s, k, false);
}

/* The jobs whose sharing turned over at the last change of s->ls:
 * their flag flipped, the simulated ones repaced. */
static int flips(struct sim *s)
{
	const uint32_t *ids;
	uint32_t n = ls_state_flipped(s->ls, &ids);

	for (uint32_t q = 0; q < n; q++) {
		uint32_t k = ids[q] - 1;

		s->shares[k] ^= 1;
		/* comm_fraction: every job sharing a link is rated and
		 * repaced after (neighbours) */
		if (!s->fmode && s->live[k] && !s->w->jobs[k].running &&
		    repace(s, k))
			return -1;
	}
	return 0;
}

/* The running jobs whose link set shares a link with job I's (I's
 * still indexed) into s->nbr[0 .. s->nnbr), in the order I's links
 * meet them: done once every other indexed job is (under ugal on a
 * dragonfly, after the first few of thousands of links). */
static void neighbours(struct sim *s, uint32_t i)
{
	uint32_t all = s->nindexed ? s->nindexed - 1 : 0;

	if (++s->nmarkv == 0) {
		memset(s->nmark, 0, s->w->n * sizeof(*s->nmark));
		s->nmarkv = 1;
	}
	s->nnbr = 0;
	s->nmark[i] = s->nmarkv;
	for (uint32_t q = 0; q < s->nlinks[i] && s->nnbr < all; q++) {
		const struct onlink *ol = &s->onlink[s->links[i][q]];

		for (uint32_t k = 0; k < ol->n; k++)
			if (s->nmark[ol->job[k]] != s->nmarkv) {
				s->nmark[ol->job[k]] = s->nmarkv;
				s->nbr[s->nnbr++] = ol->job[k];
			}
	}
}

/* Job K's predicted rate now, among the running jobs (a model other
 * than hm's running counts: rate_dirty rates those), into
 * s->rnow[k]. */
static int rerate(struct sim *s, uint32_t k)
{
	const struct flows *f = &s->jflows[k];
	double r = 0;

	if (s->res->jobs[k].n < 2 || !f->n) {
		s->rnow[k] = 0;
		return 0;
	}
	if (job_rate(s, k, &r))
		return -1;
	s->rnow[k] = r;
	return 0;
}

/* Job I's predicted rate alone on its nodes (no other job running),
 * into s->alone[i], under a model other than hm (rate_dirty rates hm's
 * among its tasks). */
static int rate_alone(struct sim *s, uint32_t i)
{
	const char *model = s->o->model ? s->o->model : "jm";
	const struct flows *f = &s->jflows[i];
	double r = 0;
	int rc = 0;

	s->alone[i] = 0;
	if (s->res->jobs[i].n < 2 || !f->n)
		return 0;
	if (s->paths) {
		struct model_result mr;
		struct model_opts mo;

		model_opts_init(&mo);
		mo.top_links = 0;
		memset(&mr, 0, sizeof(mr));
		rc = model_solve(model, &s->jin[i], &mo, &mr, s->err);
		for (uint32_t q = 0; !rc && q < mr.nflows; q++)
			r += mr.rates[q];
		model_result_free(&mr);
	} else {
		rc = flows_rate(s, model, &i, 1, &r, s->err);
	}
	if (rc) {
		err_prefix(s->err, "rate alone");
		return workload_job_where(s->w, i, s->err);
	}
	s->alone[i] = r;
	return 0;
}

/* comm_fraction: job K to be rated again and repaced at the end of
 * this second's pass. */
static void mark_dirty(struct sim *s, uint32_t k)
{
	if (s->dmark[k] == s->dmarkv)
		return;
	s->dmark[k] = s->dmarkv;
	s->dirty[s->ndirty++] = k;
}

/* ... the running jobs of s->nbr (those sharing a link with a job that
 * just started or ended). */
static void mark_neighbours(struct sim *s)
{
	for (uint32_t q = 0; q < s->nnbr; q++)
		mark_dirty(s, s->nbr[q]);
}

/* The threads to rate on now: whatif_opts.rate_threads, or more while
 * other cells of the run have ended (cells_running). */
static uint32_t threads_now(const struct sim *s)
{
	uint32_t n = s->o->rate_threads;

	if (s->o->cells_running && s->o->threads) {
		uint32_t r = atomic_load(s->o->cells_running);

		if (r && s->o->threads / r > n)
			n = s->o->threads / r;
	}
	return n ? n : 1;
}

/* Task K of a pool of threads failed with E: E kept in *ERR (under MU)
 * when K is below the lowest failed so far (*FAIL), and every thread
 * told to stop. */
static void task_failed(pthread_mutex_t *mu, uint32_t *fail, struct err *err,
			atomic_bool *stop, uint32_t k, const struct err *e)
{
	pthread_mutex_lock(mu);
	if (k < *fail) {
		*fail = k;
		*err = *e;
	}
	pthread_mutex_unlock(mu);
	atomic_store(stop, true);
}

/* rate_dirty's threads: each rates the next task not yet taken (a run
 * of one job's flows, rates into s->rall); the first failure (of the
 * lowest task) gives the error. */
struct rate_batch {
	struct sim *s;
	atomic_uint next;
	atomic_bool stop;
	uint32_t fail; /* lowest failed task, UINT32_MAX: none */
	struct err err;
	pthread_mutex_t mu;
};

/* Task K's job rated alone on thread T's own empty state (thread 0:
 * s->hm_alone), as rate_alone rates it, the rates into s->rall. */
static int alone_task(struct sim *s, const struct rate_task *k, uint32_t t,
		      struct err *e)
{
	struct model_hm_state *st = t ? s->alst[t] : s->hm_alone;
	struct model_hm_set set;

	if (model_hm_state_add(st, &s->jflows[s->aq[k->q]],
			       s->rall + s->aoff[k->q], &set, e))
		return -1;
	model_hm_state_remove(st, &set);
	return 0;
}

/* Task K, a run of a job's flows, rated on the counts now on thread T:
 * thread 0 in the state's own scratch (a whole job as any rating, a run
 * of one, only with rooms: a closed form, in the closed form's), thread
 * T > 0 in room T. */
static int rerate_task(struct sim *s, const struct rate_task *k, uint32_t t,
		       struct err *e)
{
	const struct flows *f = &s->jflows[s->todo[k->q]];
	struct flows v = { .n = k->n,
			   .cap = k->n,
			   .src = f->src + k->off,
			   .dst = f->dst + k->off,
			   .demand = f->demand + k->off };
	double *out = s->rall + s->roff[k->q] + k->off;

	if (t)
		return model_hm_state_rate_in(s->hm, s->room[t], &v, out, e);
	if (v.n == f->n)
		return model_hm_state_rate(s->hm, f, &s->hmset[s->todo[k->q]],
					   out, e);
	return model_hm_state_rate_in(s->hm, NULL, &v, out, e);
}

static void batch_part(void *arg, uint32_t t)
{
	struct rate_batch *b = arg;
	struct sim *s = b->s;
	uint32_t q;

	while ((q = atomic_fetch_add(&b->next, 1)) < s->ntask &&
	       !atomic_load(&b->stop)) {
		const struct rate_task *k = &s->task[q];
		struct err e;

		memset(&e, 0, sizeof(e));
		if (k->alone ? alone_task(s, k, t, &e) :
			       rerate_task(s, k, t, &e))
			task_failed(&b->mu, &b->fail, &b->err, &b->stop, q, &e);
	}
}

/* s->aq's jobs (each a task, rated alone) and s->todo's jobs' flows as
 * tasks for NTH threads (a job of more than a quarter of a thread's
 * share in runs of that size, to keep the threads busy to the end),
 * s->rall room for their rates, and rooms (and, with jobs to rate alone,
 * empty states) for threads 1 .. NTH - 1 (*NTH 1 where the state has no
 * closed form: whole jobs, rated through the state).  Returns 0 or -1. */
static int batch_plan(struct sim *s, uint32_t *nth)
{
	size_t tot = 0, run;
	uint32_t nt = s->naq;

	if (*nth > s->nroom) {
		struct model_hm_room **r =
			realloc(s->room, *nth * sizeof(*s->room));
		struct model_hm_state **a;

		if (!r)
			return err_nomem(s->err, "out of memory");
		s->room = r;
		a = realloc(s->alst, *nth * sizeof(*s->alst));
		if (!a)
			return err_nomem(s->err, "out of memory");
		s->alst = a;
		memset(r + s->nroom, 0, (*nth - s->nroom) * sizeof(*r));
		memset(a + s->nroom, 0, (*nth - s->nroom) * sizeof(*a));
		s->nroom = *nth;
	}
	for (uint32_t t = 1; t < *nth; t++) {
		if (!s->room[t]) {
			if (model_hm_room_create(s->hm, &s->room[t], s->err))
				return -1;
			if (!s->room[t]) { /* no closed form: one thread */
				*nth = 1;
				break;
			}
		}
		if (s->naq && !s->alst[t]) {
			s->alst[t] = model_hm_state_create(
				s->r, s->o->model ? s->o->model : "hm", NULL,
				s->err);
			if (!s->alst[t])
				return -1;
		}
	}
	for (uint32_t q = 0; q < s->naq; q++) {
		s->aoff[q] = tot;
		tot += s->jflows[s->aq[q]].n;
	}
	for (uint32_t q = 0; q < s->ntodo; q++) {
		s->roff[q] = tot;
		tot += s->jflows[s->todo[q]].n;
	}
	run = *nth > 1 ? (tot + 4 * *nth - 1) / (4 * *nth) : tot;
	if (run < 256)
		run = 256;
	for (uint32_t q = 0; q < s->ntodo; q++) {
		uint32_t n = s->jflows[s->todo[q]].n;

		nt += (uint32_t)((n + run - 1) / run);
	}
	if (nt > s->task_cap) {
		struct rate_task *t = realloc(s->task, nt * sizeof(*t));

		if (!t)
			return err_nomem(s->err, "out of memory");
		s->task = t;
		s->task_cap = nt;
	}
	s->ntask = 0;
	/* the whole jobs first, then the runs fill in */
	for (uint32_t q = 0; q < s->naq; q++)
		s->task[s->ntask++] = (struct rate_task){
			.q = q, .n = s->jflows[s->aq[q]].n, .alone = true
		};
	for (uint32_t q = 0; q < s->ntodo; q++) {
		uint32_t n = s->jflows[s->todo[q]].n;

		for (uint32_t off = 0; off < n; off += (uint32_t)run)
			s->task[s->ntask++] = (struct rate_task){
				.q = q,
				.off = off,
				.n = n - off < run ? n - off : (uint32_t)run
			};
	}
	if (tot + 1 > s->rall_cap) {
		if (resize_dbl(&s->rall, 2 * (tot + 1)))
			return err_nomem(s->err, "out of memory");
		s->rall_cap = 2 * (tot + 1);
	}
	return 0;
}

/* Job K's rate: its flows' rates at s->rall + OFF summed in flow
 * order. */
static double job_sum(const struct sim *s, uint32_t k, size_t off)
{
	const double *r = s->rall + off;
	double sum = 0;

	for (uint32_t i = 0; i < s->jflows[k].n; i++)
		sum += r[i];
	return sum;
}

/* hm's closed form: the jobs of s->todo rated on the counts now, on
 * threads_now() threads (the caller one of them), each rating the next
 * task not yet taken: the same rates as one job after another, since
 * rating reads the counts only and a flow's rate is its own (each job's
 * summed in its flows' order after). */
static int rate_dirty(struct sim *s)
{
	struct rate_batch b = { .s = s, .fail = UINT32_MAX };
	uint64_t ver = model_hm_state_version(s->hm);
	uint32_t nth = threads_now(s);

	/* one large job too is shared out, in runs */
	if (batch_plan(s, &nth))
		return -1;
	if (nth > s->ntask)
		nth = s->ntask;
	atomic_init(&b.next, 0);
	atomic_init(&b.stop, false);
	pthread_mutex_init(&b.mu, NULL);
	par_run(nth, true, batch_part, &b, NULL);
	pthread_mutex_destroy(&b.mu);
	if (b.fail != UINT32_MAX) {
		const struct rate_task *k = &s->task[b.fail];

		*s->err = b.err;
		err_prefix(s->err, k->alone ? "rate alone" : "rate");
		return workload_job_where(
			s->w, k->alone ? s->aq[k->q] : s->todo[k->q], s->err);
	}
	for (uint32_t q = 0; q < s->naq; q++)
		s->alone[s->aq[q]] = job_sum(s, s->aq[q], s->aoff[q]);
	for (uint32_t q = 0; q < s->ntodo; q++) {
		s->rnow[s->todo[q]] = job_sum(s, s->todo[q], s->roff[q]);
		s->rver[s->todo[q]] = ver;
	}
	return 0;
}

/* The marked jobs still running, each rated (when it shares a link:
 * alone is no matter otherwise) and repaced once.  Under hm the rates
 * come first, all on the same counts (rate_dirty), then the paces. */
static int flush_dirty(struct sim *s)
{
	s->ntodo = s->naq = 0;
	for (uint32_t q = 0; s->fmode && s->hm && q < s->ndirty; q++) {
		uint32_t k = s->dirty[q];

		if (!s->live[k] || s->w->jobs[k].running || !s->shares[k] ||
		    pinned(s, k))
			continue;
		/* rated alone among rate_dirty's tasks, as rate_alone */
		if (s->alone[k] < 0 &&
		    (s->res->jobs[k].n < 2 || !s->jflows[k].n))
			s->alone[k] = 0;
		else if (s->alone[k] < 0)
			s->aq[s->naq++] = k;
		if (s->res->jobs[k].n < 2 || !s->jflows[k].n)
			s->rnow[k] = 0;
		else if (s->rver[k] != model_hm_state_version(s->hm))
			s->todo[s->ntodo++] = k;
	}
	if ((s->ntodo || s->naq) && rate_dirty(s))
		return -1;
	for (uint32_t q = 0; s->fmode && q < s->ndirty; q++) {
		uint32_t k = s->dirty[q];

		if (!s->live[k] || s->w->jobs[k].running || pinned(s, k))
			continue;
		if (!s->hm && s->shares[k] && s->alone[k] < 0 &&
		    rate_alone(s, k))
			return -1;
		if ((!s->hm && s->shares[k] && rerate(s, k)) || repace(s, k))
			return -1;
	}
	s->ndirty = 0;
	if (s->fmode && ++s->dmarkv == 0) {
		memset(s->dmark, 0, s->w->n * sizeof(*s->dmark));
		s->dmarkv = 1;
	}
	return 0;
}

/* Simulated job I starts under the model (ADDED: its link set joined
 * s->ls just now, so the flips are its): its whole trace run time to
 * do, its pace, its end; then the jobs it turned (comm_fraction: every
 * job sharing a link with it, rated again). */
static int dyn_start(struct sim *s, uint32_t i, bool added)
{
	struct ls_job_now jn;

	s->left[i] = (double)s->w->jobs[i].runtime;
	s->tupd[i] = s->now;
	s->shares[i] = added && !ls_state_job(s->ls, i + 1, &jn) &&
		       jn.shared > 0;
	if (s->fmode) /* its pace at the end of the pass (flush_dirty) */
		s->rnow[i] = s->res->jobs[i].rate;
	s->pace[i] = pace_of(s, i);
	if (set_end(s, i, true) || (added && flips(s)))
		return -1;
	if (!s->fmode)
		return 0;
	neighbours(s, i);
	mark_neighbours(s);
	mark_dirty(s, i);
	return 0;
}

static int start(struct sim *s, uint32_t i, const uint32_t *nodes, uint32_t n,
		 bool claimed, int64_t st, int64_t end)
{
	const struct wl_job *j = &s->w->jobs[i];
	struct whatif_job *o = &s->res->jobs[i];
	/* the link set of the job's own pattern (all pairs without one),
	 * seeded as its rate's flows are */
	struct ls_job lj = { .id = i + 1,
			     .nodes = nodes,
			     .n = n,
			     .pattern = j->pattern,
			     .seed = s->o->seed + j->id };
	uint32_t *links, nl;

	o->nodes = malloc((n ? n : 1) * sizeof(*o->nodes));
	if (!o->nodes)
		return err_nomem(s->err, "out of memory");
	memcpy(o->nodes, nodes, n * sizeof(*nodes));
	o->n = n;
	o->start = st;
	o->end = end;
	o->claimed_isolated = claimed;
	o->order = s->res->started + 1;
	changing(s, nodes, n, false); /* owner[] changes below */
	s->over++;
	for (uint32_t k = 0; k < n; k++) {
		if (s->owner[nodes[k]] == POLICY_FREE) {
			s->nfree--;
		} else if (!j->running) {
			return err_set(s->err,
				       "policy %s placed job %u on node "
				       "%u, busy with job %u",
				       policy_spec(s->pol), j->id, nodes[k],
				       s->w->jobs[s->owner[nodes[k]] - 1].id);
		} else {
			/* a node two snapshot jobs share: busy until the last
			 * ends (start_running lists each node once per job) */
			if (!s->extra &&
			    !(s->extra = calloc(s->N, sizeof(*s->extra))))
				return err_nomem(s->err, "out of memory");
			s->res->snapshot_shared_nodes += !s->extra[nodes[k]]++;
			continue;
		}
		s->owner[nodes[k]] = i + 1;
	}
	if (linkshare_linkset(s->r, &lj, s->scratch, &links, &nl, s->err))
		return workload_job_where(s->w, i, s->err);
	o->links = nl;
	if (s->links) {
		/* the links, then where I is in their lists */
		s->links[i] = malloc(2 * (nl ? nl : 1) * sizeof(uint32_t));
		if (!s->links[i]) {
			free(links);
			return err_nomem(s->err, "out of memory");
		}
		if (nl)
			memcpy(s->links[i], links, nl * sizeof(uint32_t));
		s->nlinks[i] = nl;
	}
	if (end == st) {
		/* run time 0: no moment of sharing for it or anyone (it
		 * ends in this same second's next pass); a claim of
		 * isolation is still checked against the jobs running */
		for (uint32_t k = 0; claimed && k < nl; k++)
			if (ls_state_link_jobs(s->ls, links[k]))
				o->shared_at_start = true;
		free(links);
		o->ran_isolated = true;
	} else if (ls_state_add(s->ls, i + 1, links, nl, s->err)) {
		return -1;
	} else if (claimed) {
		struct ls_job_now jn;

		o->shared_at_start = !ls_state_job(s->ls, i + 1, &jn) &&
				     jn.shared > 0;
	}
	s->run[s->nrun++] = i;
	if (s->dyn)
		s->live[i] = 1;
	if ((!s->dyn || j->running) && heap_push(s, end, i))
		return err_nomem(s->err, "out of memory");
	if (s->links && index_links(s, i))
		return -1;
	if (s->hm ? job_hm(s, i, &o->rate) :
		    s->o->rates && (job_cache(s, i) ||
				    (s->defer ? defer_rate(s, i) :
						job_rate(s, i, &o->rate))))
		return -1;
	if (s->dyn && !j->running && dyn_start(s, i, end != st))
		return -1;
	s->res->started++;
	report(s);
	return 0;
}

/* A running job other than I whose nodes hold X (index + 1): the node's
 * owner once I ends, for a node snapshot jobs share (rare: a scan). */
static uint32_t other_holder(const struct sim *s, uint32_t i, uint32_t x)
{
	for (uint32_t r = 0; r < s->nrun; r++) {
		const struct whatif_job *o = &s->res->jobs[s->run[r]];

		if (s->run[r] == i)
			continue;
		for (uint32_t k = 0; k < o->n; k++)
			if (o->nodes[k] == x)
				return s->run[r] + 1;
	}
	return POLICY_FREE; /* not reached: extra[x] counts a holder */
}

/* Job I ends now.  Returns 0, or -1 with s->err set (a run-time
 * model's repaced jobs). */
static int finish(struct sim *s, uint32_t i)
{
	struct whatif_job *o = &s->res->jobs[i];
	struct ls_job_now jn;
	bool was_in;

	if (o->end > s->tend)
		s->tend = o->end;
	if (s->fmode)
		neighbours(s, i);	    /* rated again once it is gone */
	changing(s, o->nodes, o->n, false); /* owner[] changes below */
	s->over++;
	for (uint32_t k = 0; k < o->n; k++) {
		uint32_t x = o->nodes[k];

		if (s->extra && s->extra[x]) { /* another job still holds it */
			s->extra[x]--;
			if (s->owner[x] == i + 1)
				s->owner[x] = other_holder(s, i, x);
		} else if (s->owner[x] == i + 1) {
			s->owner[x] = POLICY_FREE;
			s->nfree++;
		}
	}
	if (!ls_state_job(s->ls, i + 1, &jn))
		o->ran_isolated = !jn.ever_shared;
	was_in = !ls_state_remove(s->ls, i + 1);
	for (uint32_t k = 0; k < s->nrun; k++)
		if (s->run[k] == i) {
			s->run[k] = s->run[--s->nrun];
			break;
		}
	if (s->links)
		unindex_links(s, i);
	if (s->hm)
		model_hm_state_remove(s->hm, &s->hmset[i]);
	else if (s->o->rates)
		job_uncache(s, i);
	if (s->hm && s->jflows)
		flows_free(&s->jflows[i]);
	if (!s->dyn)
		return 0;
	s->live[i] = 0;
	o->killed = s->capped[i];
	if (was_in && flips(s))
		return -1;
	if (s->fmode)
		mark_neighbours(s);
	return 0;
}

static int64_t exp_end(const struct sim *s, uint32_t i)
{
	const struct whatif_job *o = &s->res->jobs[i];
	int64_t e = o->start + s->w->jobs[i].limit;

	return e > o->end ? e : o->end;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct policy_running *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return (x->job_id > y->job_id) - (x->job_id < y->job_id);
}

/* Reservation of waiting head I: the will-run search (policies/
 * willrun.h) over the running jobs' expected ends, equal ends released
 * together.  *WHEN = the first end after which the policy places the
 * head, s->resv its nodes then, s->relk the running jobs ended by then
 * (the first relk of s->rel, sorted by expected end).  Returns 0, 1 when
 * it cannot be placed even with every running job gone (PR holds the
 * reason), or -1 with s->err set. */
static int reserve(struct sim *s, uint32_t i, int64_t *when,
		   struct policy_result *pr)
{
	const struct wl_job *j = &s->w->jobs[i];
	struct policy_view v = { .owner = s->owner };
	struct policy_request rq = {
		.job_id = i + 1,
		.nodes = j->nodes,
		.pattern = j->pattern,
	};
	struct policy_will_run wr;

	for (uint32_t k = 0; k < s->nrun; k++) {
		s->rel[k].job_id = s->run[k] + 1;
		s->rel[k].end = exp_end(s, s->run[k]);
	}
	qsort(s->rel, s->nrun, sizeof(*s->rel), cmp_rel);
	memset(pr, 0, sizeof(*pr));
	pr->nodes = s->buf;
	/* The same head on the same running jobs, asked again later (a pass
	 * after an arrival): the answer stands while its start is still
	 * ahead, since the releases up to it and the states the search
	 * asks about are the same (every expected end is at least now). */
	if (s->rs_valid && s->rs_over == s->over && s->rs_head == i &&
	    s->rs_when >= s->now) {
		*when = s->rs_when;
		s->relk = s->rs_relk;
		return 0;
	}
	s->rs_valid = false;
	shown(s, &v);
	if (policy_will_run(s->pol, &v, s->rel, s->nrun, s->now, &rq, pr, &wr,
			    s->err))
		return workload_job_where(s->w, i, s->err);
	if (wr.status != POLICY_PLACED)
		return 1;
	memcpy(s->resv, pr->nodes, pr->n * sizeof(*s->resv));
	s->nresv = pr->n;
	*when = wr.start;
	s->relk = wr.jobs;
	s->rs_valid = true;
	s->rs_over = s->over;
	s->rs_head = i;
	s->rs_when = wr.start;
	s->rs_relk = wr.jobs;
	return 0;
}

static void queue_remove(struct sim *s, uint32_t pos)
{
	memmove(&s->queue[pos], &s->queue[pos + 1],
		(s->nq - pos - 1) * sizeof(*s->queue));
	s->nq--;
}

/* IN with every "job K" (K = the policy's id, workload index + 1) written
 * as the workload's job id, into OUT. */
static void renumber(const struct sim *s, const char *in, char *out,
		     size_t size)
{
	size_t o = 0;

	while (*in && o + 1 < size) {
		char *end;
		unsigned long k;

		if (strncmp(in, "job ", 4) || in[4] < '0' || in[4] > '9') {
			out[o++] = *in++;
			continue;
		}
		k = strtoul(in + 4, &end, 10);
		if (k >= 1 && k <= s->w->n)
			o += (size_t)snprintf(out + o, size - o, "job %u",
					      s->w->jobs[k - 1].id);
		else
			o += (size_t)snprintf(out + o, size - o, "%.*s",
					      (int)(end - in), in);
		if (o >= size)
			o = size - 1;
		in = end;
	}
	out[o] = '\0';
}

static int start_placed(struct sim *s, uint32_t i,
			const struct policy_result *pr)
{
	const struct wl_job *j = &s->w->jobs[i];

	/* the policy's word on what a job not isolated shares */
	if (!pr->isolated)
		renumber(s, pr->reason, s->res->jobs[i].reason,
			 sizeof(s->res->jobs[i].reason));
	/* a planned rank order (one rank per node) is the job's node order,
	 * which its pattern's flows follow */
	return start(s, i, pr->nranks == pr->n ? pr->rank_node : pr->nodes,
		     pr->n, pr->isolated, s->now, s->now + j->runtime);
}

/* Whether head H still fits at its reserved start if job I, running
 * past it, takes PR's nodes now: the machine as it will be then (the jobs
 * ending before released, I's nodes busy) must still place H.  Isolating
 * policies may refuse a reserved set because of a neighbour (a dragonfly
 * group holding another multi-router job), so "outside the reserved
 * nodes" alone does not protect the head. */
static bool keeps_reservation(struct sim *s, uint32_t h, uint32_t i,
			      const struct policy_result *pr)
{
	struct policy_result hr;
	/* a version of its own, given as a change of the last one asked:
	 * a policy that counted that one counts only the change */
	struct policy_view v = { .owner = s->tmp,
				 .gen = policy_gen_next(),
				 .changed = s->kchg };

	if (!s->kr_valid || s->o->keeps_fresh) {
		/* the pass's first question: the machine now, the jobs
		 * ending by the reserved start released (those backfilled
		 * before it in this pass too) */
		v.base_gen = s->gen;
		memcpy(s->tmp, s->owner, s->N * sizeof(*s->tmp));
		for (uint32_t q = 0; q < s->relk + s->nbfb; q++) {
			uint32_t j = q < s->relk ? s->rel[q].job_id - 1 :
						   s->bfb[q - s->relk];
			const struct whatif_job *o = &s->res->jobs[j];

			for (uint32_t x = 0; x < o->n; x++)
				if (s->tmp[o->nodes[x]] == j + 1) {
					s->tmp[o->nodes[x]] = POLICY_FREE;
					s->kchg[v.nchanged++] = o->nodes[x];
				}
		}
		s->nkrn = 0;
		s->kr_valid = true;
	} else {
		/* the last one, its job's nodes given back unless it
		 * started (then it runs at the reserved start too: it ends
		 * after it); a job backfilled before the start since took
		 * free nodes that stay free here, as released */
		v.base_gen = s->kr_gen;
		if (++s->krstamp == 0) {
			memset(s->krmark, 0, s->N * sizeof(*s->krmark));
			s->krstamp = 1;
		}
		for (uint32_t k = 0; k < s->nkrn; k++) {
			s->tmp[s->krn[k]] = POLICY_FREE;
			s->krmark[s->krn[k]] = s->krstamp;
			s->kchg[v.nchanged++] = s->krn[k];
		}
	}
	/* I's nodes, free now and so free in tmp (place asked the machine
	 * now) */
	for (uint32_t k = 0; k < pr->n; k++) {
		uint32_t x = pr->nodes[k];

		s->tmp[x] = i + 1;
		s->krn[k] = x;
		if (!s->nkrn || s->krmark[x] != s->krstamp)
			s->kchg[v.nchanged++] = x;
	}
	s->nkrn = pr->n;
	s->kr_gen = v.gen;
	return place_view(s, h, &v, &hr, s->buf2) == POLICY_PLACED;
}

static int backfill(struct sim *s, int64_t shadow)
{
	struct policy_result pr;
	uint32_t fail_full = UINT32_MAX, fail_out = UINT32_MAX, tried = 0;
	uint32_t depth = s->o->bf_depth ? s->o->bf_depth : 500;
	uint32_t free_out = s->nfree;
	int rc = 0;

	s->nbfb = 0;
	s->kr_valid = false;
	if (s->nresv)
		changing(s, s->resv, s->nresv, true); /* usable[] changes */
	for (uint32_t k = 0; k < s->nresv; k++) {
		s->usable[s->resv[k]] = 0;
		if (s->owner[s->resv[k]] == POLICY_FREE)
			free_out--;
	}
	for (uint32_t pos = 1; pos < s->nq && tried < depth && s->nfree;) {
		uint32_t i = s->queue[pos];
		const struct wl_job *j = &s->w->jobs[i];
		bool before = s->now + j->limit <= shadow;
		enum policy_status st;

		if (before ? (j->nodes > s->nfree || j->nodes >= fail_full) :
			     (j->nodes > free_out || j->nodes >= fail_out)) {
			pos++;
			continue;
		}
		tried++;
		st = place(s, i, s->owner, before ? NULL : s->usable, &pr);
		if (st == POLICY_PLACED && !before &&
		    !keeps_reservation(s, s->queue[0], i, &pr)) {
			pos++;
			continue;
		}
		if (st == POLICY_PLACED) {
			for (uint32_t k = 0; k < pr.n; k++)
				free_out -= s->usable[pr.nodes[k]];
			if (!before)
				s->nkrn = 0; /* it stays in keeps' machine */
			if (start_placed(s, i, &pr)) {
				rc = -1;
				break;
			}
			s->res->backfilled++;
			if (before)
				s->bfb[s->nbfb++] = i;
			queue_remove(s, pos);
		} else if (st == POLICY_NEVER && before) {
			drop(s, i, pr.reason);
			queue_remove(s, pos);
		} else {
			if (before)
				fail_full = j->nodes;
			else
				fail_out = j->nodes;
			pos++;
		}
	}
	for (uint32_t k = 0; k < s->nresv; k++)
		s->usable[s->resv[k]] = 1;
	changing(s, s->resv, s->nresv, true);
	return rc;
}

static int schedule(struct sim *s)
{
	struct policy_result pr;

	while (s->nq) {
		uint32_t i = s->queue[0];
		enum policy_status st = place(s, i, s->owner, NULL, &pr);
		int64_t shadow = s->now;
		int r;

		if (st == POLICY_PLACED) {
			if (start_placed(s, i, &pr))
				return -1;
			queue_remove(s, 0);
			continue;
		}
		if (st == POLICY_NEVER) {
			drop(s, i, pr.reason);
			queue_remove(s, 0);
			continue;
		}
		if (!s->nrun) {
			char why[192];

			snprintf(why, sizeof(why),
				 "waits even on an empty "
				 "machine: %.150s",
				 pr.reason);
			drop(s, i, why);
			queue_remove(s, 0);
			continue;
		}
		r = reserve(s, i, &shadow, &pr);
		if (r < 0)
			return -1;
		if (r > 0) {
			char why[192];

			snprintf(why, sizeof(why),
				 "cannot be placed even on an "
				 "empty machine: %.140s",
				 pr.reason);
			drop(s, i, why);
			queue_remove(s, 0);
			continue;
		}
		return backfill(s, shadow);
	}
	return 0;
}

static void advance(struct sim *s, int64_t t)
{
	if (t > s->tlast) {
		double dt = (double)(t - s->tlast);

		s->mls_int += s->cur_mls * dt;
		s->tls_int += s->cur_tls * dt;
		s->busy += (double)(s->N - s->nfree) * dt;
		s->tlast = t;
	}
	s->now = t;
}

static void measure(struct sim *s)
{
	s->cur_mls = ls_state_mls(s->ls);
	s->cur_tls = ls_state_tls(s->ls);
	if (s->cur_mls > s->res->mls_max)
		s->res->mls_max = s->cur_mls;
	if (s->cur_tls > s->res->tls_max)
		s->res->tls_max = s->cur_tls;
}

/* FCFS order: arrival, then submit time (squeue jobs pending before the
 * snapshot all arrive "now"), then workload order. */
static int cmp_arr_ctx(const void *a, const void *b, void *ctx)
{
	const struct sim *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (s->arrival[x] != s->arrival[y])
		return s->arrival[x] < s->arrival[y] ? -1 : 1;
	if (s->w->jobs[x].submit != s->w->jobs[y].submit)
		return s->w->jobs[x].submit < s->w->jobs[y].submit ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* comm_fraction: every running job's link set indexed (neighbours),
 * its flows kept (rated again), its fraction, rates alone and now. */
static int fmode_setup(struct sim *s, uint32_t nj, uint32_t L)
{
	s->defer = false; /* rates move ends: never after the schedule */
	if (!s->links) {  /* hm: none of the component machinery */
		s->links = calloc(nj ? nj : 1, sizeof(*s->links));
		s->nlinks = calloc(nj ? nj : 1, sizeof(*s->nlinks));
		s->onlink = calloc(L ? L : 1, sizeof(*s->onlink));
		s->jflows = calloc(nj ? nj : 1, sizeof(*s->jflows));
	}
	s->frac = malloc((nj ? nj : 1) * sizeof(*s->frac));
	s->alone = calloc(nj ? nj : 1, sizeof(*s->alone));
	s->rnow = calloc(nj ? nj : 1, sizeof(*s->rnow));
	s->rver = malloc((nj ? nj : 1) * sizeof(*s->rver));
	s->nbr = malloc((nj ? nj : 1) * sizeof(*s->nbr));
	s->nmark = calloc(nj ? nj : 1, sizeof(*s->nmark));
	s->dirty = malloc((nj ? nj : 1) * sizeof(*s->dirty));
	s->dmark = calloc(nj ? nj : 1, sizeof(*s->dmark));
	s->todo = malloc((nj ? nj : 1) * sizeof(*s->todo));
	s->roff = malloc((nj ? nj : 1) * sizeof(*s->roff));
	s->aq = malloc((nj ? nj : 1) * sizeof(*s->aq));
	s->aoff = malloc((nj ? nj : 1) * sizeof(*s->aoff));
	if (!s->links || !s->nlinks || !s->onlink || !s->jflows || !s->frac ||
	    !s->alone || !s->rnow || !s->rver || !s->nbr || !s->nmark ||
	    !s->dirty || !s->dmark || !s->todo || !s->roff || !s->aq ||
	    !s->aoff)
		return -1;
	s->dmarkv = 1;
	for (uint32_t i = 0; i < nj; i++) {
		s->frac[i] = s->w->jobs[i].comm_fraction >= 0 ?
				     s->w->jobs[i].comm_fraction :
				     s->o->comm_fraction;
		s->alone[i] = -1;
		s->rver[i] = UINT64_MAX;
	}
	if (s->hm) {
		s->hm_alone = model_hm_state_create(
			s->r, s->o->model ? s->o->model : "hm", NULL, s->err);
		if (!s->hm_alone)
			return -1;
	}
	return 0;
}

static int setup(struct sim *s)
{
	uint32_t nj = s->w->n, L = topo_num_links(s->t);

	s->owner = calloc(s->N, sizeof(*s->owner));
	s->tmp = malloc(s->N * sizeof(*s->tmp));
	s->usable = malloc(s->N);
	s->buf = malloc(s->N * sizeof(*s->buf));
	s->buf2 = malloc(s->N * sizeof(*s->buf2));
	s->rbuf = malloc(s->N * sizeof(*s->rbuf));
	s->rbuf2 = malloc(s->N * sizeof(*s->rbuf2));
	s->rel = malloc((nj ? nj : 1) * sizeof(*s->rel));
	s->bfb = malloc((nj ? nj : 1) * sizeof(*s->bfb));
	s->resv = malloc(s->N * sizeof(*s->resv));
	s->scratch = calloc(L ? L : 1, 1);
	s->run = malloc((nj ? nj : 1) * sizeof(*s->run));
	s->heap = malloc((nj ? nj : 1) * sizeof(*s->heap));
	s->queue = malloc((nj ? nj : 1) * sizeof(*s->queue));
	s->arr = malloc((nj ? nj : 1) * sizeof(*s->arr));
	s->arrival = malloc((nj ? nj : 1) * sizeof(*s->arrival));
	s->asked = calloc(nj ? nj : 1, 1);
	for (int t = 0; t < 2; t++) {
		s->hint[t].chg = malloc(s->N * sizeof(*s->hint[t].chg));
		s->hint[t].in = calloc(s->N ? s->N : 1, 1);
		if (!s->hint[t].chg || !s->hint[t].in)
			return -1;
	}
	s->kchg = malloc(s->N * sizeof(*s->kchg));
	s->krn = malloc(s->N * sizeof(*s->krn));
	s->krmark = calloc(s->N ? s->N : 1, sizeof(*s->krmark));
	s->res->jobs = calloc(nj ? nj : 1, sizeof(*s->res->jobs));
	if (!s->owner || !s->tmp || !s->usable || !s->buf || !s->buf2 ||
	    !s->rbuf || !s->rbuf2 || !s->rel || !s->bfb || !s->resv ||
	    !s->scratch || !s->run || !s->heap || !s->queue || !s->arr ||
	    !s->arrival || !s->asked || !s->kchg || !s->krn || !s->krmark ||
	    !s->res->jobs)
		return -1;
	s->res->njob_out = nj;
	s->heap_cap = nj ? nj : 1;
	if (s->dyn) {
		s->live = calloc(nj ? nj : 1, 1);
		s->left = calloc(nj ? nj : 1, sizeof(*s->left));
		s->pace = calloc(nj ? nj : 1, sizeof(*s->pace));
		s->tupd = calloc(nj ? nj : 1, sizeof(*s->tupd));
		s->shares = calloc(nj ? nj : 1, 1);
		s->capped = calloc(nj ? nj : 1, 1);
		if (!s->live || !s->left || !s->pace || !s->tupd ||
		    !s->shares || !s->capped)
			return -1;
	}
	memset(s->usable, 1, s->N);
	s->gen = policy_gen_next();
	s->nfree = s->N;
	if (s->o->rates &&
	    model_hm_incremental(s->o->model ? s->o->model : "jm")) {
		s->hm = model_hm_state_create(
			s->r, s->o->model ? s->o->model : "hm", NULL, s->err);
		if (!s->hm)
			return -1;
		s->hmset = calloc(nj ? nj : 1, sizeof(*s->hmset));
		if (!s->hmset)
			return -1;
	} else if (s->o->rates) {
		s->paths = model_uses_paths(s->o->model ? s->o->model : "jm",
					    s->r);
		s->defer = !s->paths && s->o->rate_threads > 1;
		s->links = calloc(nj ? nj : 1, sizeof(*s->links));
		s->nlinks = calloc(nj ? nj : 1, sizeof(*s->nlinks));
		s->jflows = calloc(nj ? nj : 1, sizeof(*s->jflows));
		s->jin = calloc(nj ? nj : 1, sizeof(*s->jin));
		s->onlink = calloc(L ? L : 1, sizeof(*s->onlink));
		s->stamp = calloc(L ? L : 1, sizeof(*s->stamp));
		s->incomp = calloc(nj ? nj : 1, 1);
		s->comp = malloc((nj ? nj : 1) * sizeof(*s->comp));
		s->lid = malloc((L ? L : 1) * sizeof(*s->lid));
		s->lglob = malloc((L ? L : 1) * sizeof(*s->lglob));
		s->cin.cap = malloc((L ? L : 1) * sizeof(*s->cin.cap));
		if (!s->links || !s->nlinks || !s->jflows || !s->jin ||
		    !s->onlink || !s->stamp || !s->incomp || !s->comp ||
		    !s->lid || !s->lglob || !s->cin.cap)
			return -1;
		memset(s->lid, 0xff, (L ? L : 1) * sizeof(*s->lid));
	}
	if (s->fmode && fmode_setup(s, nj, L))
		return -1;
	s->ls = ls_state_create(s->r, s->err);
	return s->ls ? 0 : -1;
}

static void teardown(struct sim *s)
{
	for (uint32_t i = 0; s->hmset && i < s->w->n; i++)
		model_hm_state_remove(NULL, &s->hmset[i]);
	free(s->hmset);
	model_hm_state_destroy(s->hm);
	for (uint32_t i = 0; s->links && i < s->w->n; i++)
		free(s->links[i]);
	for (uint32_t i = 0; s->jflows && i < s->w->n; i++)
		flows_free(&s->jflows[i]);
	for (uint32_t i = 0; s->jin && i < s->w->n; i++)
		model_input_free(&s->jin[i]);
	for (uint32_t l = 0; s->onlink && l < topo_num_links(s->t); l++) {
		free(s->onlink[l].job);
		free(s->onlink[l].qi);
	}
	free(s->links);
	free(s->nlinks);
	free(s->tk_off);
	free(s->tk_comp);
	free(s->jflows);
	free(s->jin);
	free(s->onlink);
	free(s->stamp);
	free(s->incomp);
	free(s->asked);
	for (int t = 0; t < 2; t++) {
		free(s->hint[t].chg);
		free(s->hint[t].in);
	}
	free(s->kchg);
	free(s->krn);
	free(s->krmark);
	free(s->comp);
	free(s->lid);
	free(s->lglob);
	free(s->cin.cap);
	free(s->cin.demand);
	free(s->cin.src);
	free(s->cin.flow_off);
	free(s->cin.path_off);
	free(s->cin.links);
	ls_state_destroy(s->ls);
	free(s->owner);
	free(s->extra);
	free(s->tmp);
	free(s->usable);
	free(s->buf);
	free(s->buf2);
	free(s->rbuf);
	free(s->rbuf2);
	free(s->rel);
	free(s->bfb);
	free(s->resv);
	free(s->scratch);
	free(s->run);
	free(s->heap);
	free(s->queue);
	free(s->arr);
	free(s->arrival);
	free(s->live);
	free(s->left);
	free(s->pace);
	free(s->tupd);
	free(s->shares);
	free(s->capped);
	free(s->frac);
	free(s->alone);
	free(s->rnow);
	free(s->rver);
	free(s->nbr);
	free(s->nmark);
	free(s->dirty);
	free(s->dmark);
	free(s->todo);
	free(s->roff);
	free(s->aq);
	free(s->aoff);
	free(s->rall);
	free(s->task);
	for (uint32_t t = 0; t < s->nroom; t++) {
		model_hm_room_destroy(s->room[t]);
		if (s->alst)
			model_hm_state_destroy(s->alst[t]);
	}
	free(s->room);
	free(s->alst);
	model_hm_state_destroy(s->hm_alone);
	policy_destroy(s->pol);
}

/* Jobs already running (squeue): they keep their nodes from s->now. */
static int start_running(struct sim *s)
{
	uint32_t n;

	for (uint32_t k = 0; k < s->N; k++)
		s->tmp[k] = POLICY_FREE;
	for (uint32_t i = 0; i < s->w->n; i++) {
		const struct wl_job *j = &s->w->jobs[i];
		int64_t end = j->start + j->limit;

		if (!j->running)
			continue;
		for (uint32_t k = 0; k < j->nodes; k++)
			if (j->alloc[k] >= s->N)
				return err_set(s->err,
					       "job %u: node %u out of "
					       "range (%u nodes)",
					       j->id, j->alloc[k], s->N);
		if (end < s->now)
			end = s->now;
		s->res->jobs[i].was_running = true;
		/* each node once, in the job's order (a snapshot may list
		 * one twice) */
		n = 0;
		for (uint32_t k = 0; k < j->nodes; k++)
			if (s->tmp[j->alloc[k]] != i + 1) {
				s->tmp[j->alloc[k]] = i + 1;
				s->buf[n++] = j->alloc[k];
			}
		if (start(s, i, s->buf, n, false, j->start, end))
			return -1;
	}
	return 0;
}

static void summarise(struct sim *s)
{
	struct whatif_result *res = s->res;
	double wsum = 0, bsum = 0;
	uint32_t nw = 0;
	/* to the last end: a job dropped later does not stretch it (nothing
	 * runs after the last end, so the integrals stop there too) */
	double span = s->tend > s->tfirst ? (double)(s->tend - s->tfirst) : 0;

	for (uint32_t i = 0; i < s->w->n; i++) {
		const struct whatif_job *o = &res->jobs[i];
		const struct wl_job *j = &s->w->jobs[i];
		double wait, run, b;

		if (o->dropped)
			continue;
		if (o->ran_isolated)
			res->isolated_jobs++;
		if (o->claimed_isolated && o->shared_at_start)
			res->violations++;
		else if (o->claimed_isolated && !o->ran_isolated)
			res->later_shared++;
		res->rate_sum += o->rate;
		if (o->was_running) {
			res->snapshot_running++;
			continue;
		}
		wait = (double)(o->start - j->submit);
		run = (double)(o->end - o->start);
		b = (wait + run) /
		    (run > WHATIF_BSLD_TAU ? run : WHATIF_BSLD_TAU);
		wsum += wait;
		bsum += b > 1 ? b : 1;
		nw++;
	}
	res->makespan = span;
	res->utilization = span > 0 ? s->busy / ((double)s->N * span) : 0;
	res->mean_wait = nw ? wsum / nw : 0;
	res->mean_bsld = nw ? bsum / nw : 0;
	res->mls_mean = span > 0 ? s->mls_int / span : s->cur_mls;
	res->tls_mean = span > 0 ? s->tls_int / span : s->cur_tls;
	res->rates = s->o->rates;
	res->rate_mean = res->started ? res->rate_sum / res->started : 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Turnaround, throughput, stretch and the killed jobs (whatif_result)
 * over the simulated jobs that started.  Returns 0, or -1 with s->err
 * set (memory for the percentile). */
static int outcomes(struct sim *s)
{
	struct whatif_result *res = s->res;
	double *ta = malloc((s->w->n ? s->w->n : 1) * sizeof(*ta));
	double tsum = 0, ssum = 0, work = 0, days;
	uint32_t n = 0, done = 0;

	if (!ta)
		return err_nomem(s->err, "out of memory");
	for (uint32_t i = 0; i < s->w->n; i++) {
		struct whatif_job *o = &res->jobs[i];
		const struct wl_job *j = &s->w->jobs[i];
		double run = (double)(o->end - o->start);

		if (o->dropped)
			continue;
		o->stretch = j->runtime > 0 && !o->was_running ?
				     run / (double)j->runtime :
				     1;
		if (o->was_running)
			continue;
		ta[n++] = (double)(o->end - j->submit);
		tsum += ta[n - 1];
		ssum += o->stretch;
		if (o->stretch > res->max_stretch)
			res->max_stretch = o->stretch;
		if (o->killed) {
			res->killed++;
			res->lost_nodeh += (double)o->n * run / 3600;
			continue;
		}
		done++;
		work += (double)o->n * (double)j->runtime / 3600;
	}
	qsort(ta, n, sizeof(*ta), cmp_dbl);
	res->mean_turnaround = n ? tsum / n : 0;
	/* nearest rank: the smallest value with 95 % of them at or below */
	res->p95_turnaround = n ? ta[(uint32_t)ceil(0.95 * n) - 1] : 0;
	res->mean_stretch = n ? ssum / n : 0;
	days = res->makespan / 86400;
	res->jobs_per_day = days > 0 ? done / days : 0;
	res->nodeh_per_day = days > 0 ? work / days : 0;
	free(ta);
	return 0;
}

/* Deferred rates: the recorded tasks shared out among
 * o->rate_threads threads (the caller one of them), each taking the
 * next one not yet taken; progress counts the rates done, reported by
 * whichever thread computed one (one at a time).  The first failure
 * stops the others; its error, of the lowest task that failed, is
 * s->err. */
struct rate_pool {
	const struct sim *s;
	const char *model;
	atomic_uint next;
	uint32_t done; /* rates done (under mu) */
	atomic_bool stop;
	uint32_t fail; /* lowest failed task, UINT32_MAX: none */
	struct err err;
	pthread_mutex_t mu;
};

static void rate_worker(struct rate_pool *p)
{
	const struct sim *s = p->s;
	uint32_t k;

	while ((k = atomic_fetch_add(&p->next, 1)) < s->ntk &&
	       !atomic_load(&p->stop)) {
		const uint32_t *comp = s->tk_comp + s->tk_off[k];
		uint32_t nc = s->tk_off[k + 1] - s->tk_off[k];
		struct err e;
		double rate;

		memset(&e, 0, sizeof(e));
		if (s->o->stop && atomic_load(s->o->stop))
			err_code(&e, ECANCELED, WHATIF_STOPPED);
		else if (!flows_rate(s, p->model, comp, nc, &rate, &e)) {
			s->res->jobs[comp[0]].rate = rate;
			if (s->o->progress) { /* one thread at a time */
				pthread_mutex_lock(&p->mu);
				s->o->progress(s->o->progress_arg, ++p->done,
					       s->ntk, "rates");
				pthread_mutex_unlock(&p->mu);
			}
			continue;
		} else {
			err_prefix(&e, "rate");
			workload_job_where(s->w, comp[0], &e);
		}
		task_failed(&p->mu, &p->fail, &p->err, &p->stop, k, &e);
	}
}

/* One part of rate_tasks: the next rates not yet taken. */
static void rate_part(void *arg, uint32_t part)
{
	(void)part;
	rate_worker(arg);
}

static int rate_tasks(struct sim *s)
{
	struct rate_pool p = { .s = s,
			       .model = s->o->model ? s->o->model : "jm",
			       .fail = UINT32_MAX };
	uint32_t nth = s->o->rate_threads;

	if (!s->ntk)
		return 0;
	if (nth > s->ntk)
		nth = s->ntk;
	if (!nth)
		nth = 1;
	atomic_init(&p.next, 0);
	atomic_init(&p.stop, false);
	pthread_mutex_init(&p.mu, NULL);
	/* the caller takes tasks too; progress after every rate */
	if (s->o->progress)
		s->o->progress(s->o->progress_arg, 0, s->ntk, "rates");
	/* a thread frees GLPK's environment, if the model used it */
	par_run(nth, true, rate_part, &p, model_thread_done);
	pthread_mutex_destroy(&p.mu);
	if (s->o->progress)
		s->o->progress(s->o->progress_arg, p.done, s->ntk, "rates");
	if (p.fail != UINT32_MAX) {
		*s->err = p.err;
		return -1;
	}
	return 0;
}

/* Run-time models: heap entries of jobs that ended or whose end moved
 * since they were pushed are dropped from the top. */
static void drop_stale(struct sim *s)
{
	while (s->dyn && s->nheap &&
	       (!s->live[s->heap[0].job] ||
		s->res->jobs[s->heap[0].job].end != s->heap[0].t))
		heap_pop(s);
}

static int simulate(struct sim *s)
{
	const struct workload *w = s->w;

	s->now = w->squeue ? w->now : INT64_MAX;
	for (uint32_t i = 0; i < w->n; i++) {
		s->res->jobs[i].id = w->jobs[i].id;
		s->res->jobs[i].submit = w->jobs[i].submit;
		if (w->jobs[i].running)
			continue;
		s->arrival[i] = w->squeue && w->jobs[i].submit < w->now ?
					w->now :
					w->jobs[i].submit;
		s->arr[s->narr++] = i;
		if (!w->squeue && s->arrival[i] < s->now)
			s->now = s->arrival[i];
	}
	if (s->now == INT64_MAX)
		s->now = 0;
	s->tfirst = s->tlast = s->tend = s->now;
	qsort_r(s->arr, s->narr, sizeof(*s->arr), cmp_arr_ctx, s);
	if (start_running(s))
		return -1;
	measure(s);
	while (s->next < s->narr || s->nheap || s->nq) {
		int64_t t = INT64_MAX;

		if (s->o->stop && atomic_load(s->o->stop))
			return err_code(s->err, ECANCELED, WHATIF_STOPPED);
		drop_stale(s);
		if (s->nheap)
			t = s->heap[0].t;
		if (s->next < s->narr && s->arrival[s->arr[s->next]] < t)
			t = s->arrival[s->arr[s->next]];
		if (t == INT64_MAX) {
			/* only waiting jobs and nothing that could free
			 * nodes: schedule() drops them; stop if it cannot */
			uint32_t before = s->nq;

			if (schedule(s) || flush_dirty(s))
				return -1;
			if (s->nq == before)
				break;
			continue;
		}
		advance(s, t);
		for (drop_stale(s); s->nheap && s->heap[0].t == t;
		     drop_stale(s))
			if (finish(s, heap_pop(s).job))
				return -1;
		while (s->next < s->narr && s->arrival[s->arr[s->next]] <= t)
			s->queue[s->nq++] = s->arr[s->next++];
		if (schedule(s) || flush_dirty(s))
			return -1;
		measure(s);
	}
	for (uint32_t q = 0; q < s->nq; q++)
		drop(s, s->queue[q], "never placed");
	s->nq = 0;
	if (s->defer && rate_tasks(s))
		return -1;
	summarise(s);
	return outcomes(s);
}

int whatif_run(const struct topo *t, const struct routing *r,
	       const char *policy, const struct workload *w,
	       const struct whatif_opts *o, struct whatif_result *res,
	       struct err *err)
{
	struct whatif_opts def;
	struct sim s;
	struct timespec t0, t1;
	int rc;

	if (!o) {
		whatif_opts_init(&def);
		o = &def;
	}
	memset(res, 0, sizeof(*res));
	memset(&s, 0, sizeof(s));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s.t = t;
	s.r = r;
	s.w = w;
	s.o = o;
	s.res = res;
	s.err = err;
	s.N = topo_num_nodes(t);
	if (!(o->isolation_gain >= 0 && o->isolation_gain <= 1e6))
		return err_set(err, "isolation gain %g: want 0 to 1e6",
			       o->isolation_gain);
	if (o->comm_fraction > 1 || isnan(o->comm_fraction))
		return err_set(err, "comm fraction %g: want 0 to 1",
			       o->comm_fraction);
	s.fmode = o->comm_fraction >= 0;
	if (s.fmode && o->isolation_gain > 0)
		return err_set(err, "an isolation gain and a comm fraction "
				    "read the trace's run times two ways: "
				    "give one");
	if (s.fmode && !o->rates)
		return err_set(err, "a comm fraction needs the predicted "
				    "rates");
	s.dyn = o->isolation_gain > 0 || s.fmode;
	s.pol = policy_create(policy, t, r, err);
	if (!s.pol)
		return -1;
	res->isolating = policy_isolating(s.pol);
	res->runtime_model = s.dyn;
	snprintf(res->policy, sizeof(res->policy), "%s", policy_spec(s.pol));
	res->njobs = w->n;
	if (setup(&s)) {
		err_nomem(err, "out of memory");
		teardown(&s);
		whatif_result_free(res);
		return -1;
	}
	rc = simulate(&s);
	teardown(&s);
	if (rc) {
		whatif_result_free(res);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return 0;
}
