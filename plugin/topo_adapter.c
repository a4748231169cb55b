/*****************************************************************************\
 *  topo_adapter.c - the Slurm-free half of select/topo (see topo_adapter.h).
 *
 *  The prediction model runs in one predictor thread so that a job start
 *  never waits for it: predictions queue in start order and their answers
 *  are collected later (tstate_pending_*).  Each gets the budget from the
 *  moment the thread begins it: only the LP models honour a time limit,
 *  and building a large instance (every path of every flow) or running JM
 *  on it can take seconds, so an answer not there in time is recorded as
 *  time-limit and the model left to finish in the thread.  The machine it
 *  reads is shared (counted references), so a reconfiguration does not
 *  free it under the thread.
 *  One thread for the process: GLPK keeps its environment per thread.
\*****************************************************************************/
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "plugin/topo_adapter.h"

#define MAX_CACHED_POLICIES 64

/* The machine, shared by the state and the prediction running on it:
 * freed by the last to let go. */
struct shared_machine {
	atomic_uint refs;
	struct machine *m;
};

struct cached_policy {
	char *spec;
	struct policy *p;
};

struct tstate {
	struct shared_machine *sm;
	struct machine *m;	       /* sm->m */
	const struct routing *routing; /* the machine's */
	uint32_t n;		       /* topology nodes */
	uint32_t ns;   /* Slurm node slots (node_record_count) */
	uint32_t *s2t; /* [ns] Slurm node index -> topology node */
	uint32_t *t2s; /* [n] topology node -> Slurm node index */
	struct cached_policy cache[MAX_CACHED_POLICIES]; /* --topo-policy */
	uint32_t ncache;
	struct ls_state *ls;  /* link sets of the running jobs */
	struct ls_state *iso; /* of the isolated ones (tstate_protect) */
};

static const struct policy *cached(struct tstate *s, const char *spec,
				   struct err *err);

/*
 * The machine checks topo.conf and every policy line (PartitionPolicy= of
 * any partition, DefaultPolicy=) with the lines the parser kept; this adds
 * the check against slurm.conf's nodes.  PARTS is not needed any more:
 * the policy of every partition is already created.
 */
/* Every PartitionPolicy= names a partition of PARTS[0..NPARTS). */
static int check_partitions(const struct machine *m, const char *path,
			    const char *const *parts, uint32_t nparts,
			    struct err *err)
{
	for (uint32_t i = 0; i < machine_num_partitions(m); i++) {
		const char *name = NULL, *text = NULL;
		char known[512] = "";
		size_t len = 0;
		uint32_t line = 0, k;

		machine_partition(m, i, &name, &text, &line);
		for (k = 0; k < nparts; k++)
			if (parts[k] && !strcmp(parts[k], name))
				break;
		if (k < nparts)
			continue;
		for (k = 0; k < nparts && len < sizeof(known); k++)
			len += (size_t)snprintf(known + len,
						sizeof(known) - len, "%s%s",
						k ? ", " : "",
						parts[k] ? parts[k] : "?");
		return err_set(err,
			       "%s:%u: PartitionPolicy=%s:%s: slurm.conf has "
			       "no partition '%s' (it has: %s)",
			       path, line, name, text, name,
			       nparts ? known : "none");
	}
	return 0;
}

/* Slurm's static nodes (not DYNAMIC), the empty slots left out. */
static uint32_t count_static(const char *const *names, const uint8_t *dynamic,
			     uint32_t nslurm)
{
	uint32_t i, k = 0;

	for (i = 0; i < nslurm; i++)
		k += names[i] && !(dynamic && dynamic[i]);
	return k;
}

int tstate_map(struct tstate *s, const char *const *names,
	       const uint8_t *dynamic, uint32_t nslurm, struct err *err)
{
	const char *path = machine_source(s->m) ? machine_source(s->m) :
						  "topo.conf";
	uint32_t i, line = machine_line(s->m, TOPO_CONF_NODENAME);
	uint32_t nstatic = count_static(names, dynamic, nslurm);
	uint32_t *s2t, *t2s;

	if (nstatic > s->n)
		return err_set(err,
			       "%s:%u: topology has %u nodes but slurm.conf "
			       "has %u",
			       path, machine_line(s->m, TOPO_CONF_TOPOLOGY),
			       s->n, nstatic);
	s2t = malloc(sizeof(uint32_t) * (nslurm ? nslurm : 1));
	t2s = malloc(sizeof(uint32_t) * (s->n ? s->n : 1));
	if (!s2t || !t2s) {
		free(s2t);
		free(t2s);
		return err_nomem(err, "%s: out of memory", path);
	}
	for (i = 0; i < s->n; i++)
		t2s[i] = TOPO_NONE;
	for (i = 0; i < nslurm; i++) {
		uint32_t t = names[i] ? machine_node_index(s->m, names[i]) :
					TOPO_NONE;

		s2t[i] = TOPO_NONE;
		if (!names[i])
			continue;
		if (t == TOPO_NONE || t >= s->n) {
			/* a node created at run time may be outside */
			if (dynamic && dynamic[i])
				continue;
			free(s2t);
			free(t2s);
			return err_set(err,
				       "%s:%u: slurm.conf node %s is not in "
				       "NodeName=",
				       path, line, names[i]);
		}
		if (t2s[t] != TOPO_NONE) {
			free(s2t);
			free(t2s);
			return err_set(err,
				       "%s:%u: slurm.conf node %s appears "
				       "twice",
				       path, line, names[i]);
		}
		s2t[i] = t;
		t2s[t] = i;
	}
	free(s->s2t);
	free(s->t2s);
	s->s2t = s2t;
	s->t2s = t2s;
	s->ns = nslurm;
	return 0;
}

struct tstate *tstate_load(const char *path, const char *const *names,
			   const uint8_t *dynamic, uint32_t nslurm,
			   const char *const *parts, uint32_t nparts,
			   struct err *err)
{
	struct tstate *s = calloc(1, sizeof(*s));

	if (!s) {
		err_nomem(err, "%s: out of memory", path);
		return NULL;
	}
	if (!(s->sm = calloc(1, sizeof(*s->sm)))) {
		err_nomem(err, "%s: out of memory", path);
		goto fail;
	}
	atomic_init(&s->sm->refs, 1);
	if (!(s->m = s->sm->m = machine_load(path, NULL, err)) ||
	    machine_check_predict(s->m, model_check_routing, err))
		goto fail;
	if (parts && check_partitions(s->m, path, parts, nparts, err))
		goto fail;
	s->routing = machine_routing(s->m);
	s->n = topo_num_nodes(machine_topo(s->m));
	if (!machine_has_names(s->m)) {
		err_set(err,
			"%s: no NodeName= line: topo.conf must name the "
			"Slurm node of every topology node",
			path);
		goto fail;
	}
	if (tstate_map(s, names, dynamic, nslurm, err))
		goto fail;
	return s;
fail:
	tstate_destroy(s);
	return NULL;
}

static void sm_release(struct shared_machine *sm)
{
	if (sm && atomic_fetch_sub(&sm->refs, 1) == 1) {
		machine_destroy(sm->m);
		free(sm);
	}
}

void tstate_destroy(struct tstate *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < s->ncache; i++) {
		policy_destroy(s->cache[i].p);
		free(s->cache[i].spec);
	}
	ls_state_destroy(s->ls);
	ls_state_destroy(s->iso);
	sm_release(s->sm);
	free(s->s2t);
	free(s->t2s);
	free(s);
}

const struct topo *tstate_topo(const struct tstate *s)
{
	return machine_topo(s->m);
}

const struct routing *tstate_routing(const struct tstate *s)
{
	return s->routing;
}

const char *tstate_wrap(const struct tstate *s)
{
	return machine_wrap(s->m);
}

uint32_t tstate_unpoliced(const struct tstate *s, const char *const *parts,
			  uint32_t nparts, char *buf, size_t len)
{
	uint32_t n = 0;
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (uint32_t i = 0; i < nparts; i++) {
		if (!parts[i] || machine_policy(s->m, parts[i], NULL, NULL))
			continue;
		if (len && at < len) {
			int w = snprintf(buf + at, len - at, "%s%s",
					 n ? ", " : "", parts[i]);

			at += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	if (len > 4 && at >= len)
		strcpy(buf + len - 4, "...");
	return n;
}

const char *tstate_predict(const struct tstate *s)
{
	return machine_predict(s->m, NULL);
}

uint32_t tstate_predict_budget(const struct tstate *s)
{
	return machine_predict_budget(s->m, NULL);
}

uint32_t tstate_nodes(const struct tstate *s)
{
	return s->n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint32_t tstate_leaf_switches(const struct tstate *s, const uint32_t *nodes,
			      uint32_t n)
{
	const struct topo *t = tstate_topo(s);
	uint32_t *sw, i, k = 0;

	if (!n)
		return 0;
	sw = malloc(n * sizeof(*sw));
	if (!sw)
		return n; /* at most one per node */
	for (i = 0; i < n; i++)
		sw[i] = topo_node_switch(t, nodes[i]);
	qsort(sw, n, sizeof(*sw), cmp_u32);
	for (i = 0; i < n; i++)
		k += !i || (sw[i] != sw[i - 1]);
	free(sw);
	return k;
}

static uint32_t node_unit(const struct topo *t, uint32_t node, int level)
{
	uint32_t sw = topo_node_switch(t, node);

	if (level <= 0 || sw == TOPO_NONE)
		return sw;
	return topo_switch_group(t, sw);
}

uint32_t tstate_expand_units(const struct tstate *s, const uint8_t *avail,
			     const uint32_t *nodes, uint32_t n, int level,
			     uint8_t *out)
{
	const struct topo *t = tstate_topo(s);
	uint32_t nn = tstate_nodes(s), nu, i, k = 0;
	uint8_t *mark;

	nu = level <= 0 ? topo_num_switches(t) : topo_num_groups(t);
	memset(out, 0, nn);
	mark = calloc(nu + 1, 1);
	for (i = 0; i < n; i++) {
		uint32_t u = node_unit(t, nodes[i], level);

		if (nodes[i] < nn)
			out[nodes[i]] = 1;
		if (mark && u < nu)
			mark[u] = 1;
	}
	for (i = 0; i < nn; i++) {
		uint32_t u;

		if (!out[i] && mark && (!avail || avail[i])) {
			u = node_unit(t, i, level);
			out[i] = u < nu && mark[u];
		}
		k += out[i];
	}
	free(mark);
	return k;
}

uint32_t tstate_s2t(const struct tstate *s, uint32_t i)
{
	return i < s->ns ? s->s2t[i] : TOPO_NONE;
}

uint32_t tstate_slurm_nodes(const struct tstate *s)
{
	return s->ns;
}

uint32_t tstate_unmapped(const struct tstate *s, const char *const *names,
			 uint32_t nslurm, char *buf, size_t len)
{
	uint32_t i, k = 0;
	size_t o = 0;

	if (len)
		buf[0] = '\0';
	if (names) {
		for (i = 0; i < nslurm && i < s->ns; i++) {
			if (!names[i] || s->s2t[i] != TOPO_NONE)
				continue;
			if (o < len)
				o += (size_t)snprintf(buf + o, len - o, "%s%s",
						      k ? "," : "", names[i]);
			k++;
		}
	} else {
		for (i = 0; i < s->n; i++) {
			if (s->t2s[i] != TOPO_NONE)
				continue;
			if (o < len)
				o += (size_t)snprintf(
					buf + o, len - o, "%s%s", k ? "," : "",
					machine_node_name(s->m, i));
			k++;
		}
	}
	if (o >= len && len > 4)
		strcpy(buf + len - 4, "...");
	return k;
}

uint32_t tstate_t2s(const struct tstate *s, uint32_t t)
{
	return t < s->n ? s->t2s[t] : TOPO_NONE;
}

static const struct policy *cached(struct tstate *s, const char *spec,
				   struct err *err)
{
	struct policy *p;
	uint32_t i;

	for (i = 0; i < s->ncache; i++)
		if (!strcmp(s->cache[i].spec, spec))
			return s->cache[i].p;
	if (!(p = policy_create(spec, machine_topo(s->m), s->routing, err)))
		return NULL;
	if (s->ncache == MAX_CACHED_POLICIES) {
		/* Bounded: the oldest per-job spec makes room. */
		policy_destroy(s->cache[0].p);
		free(s->cache[0].spec);
		memmove(&s->cache[0], &s->cache[1],
			sizeof(s->cache[0]) * (MAX_CACHED_POLICIES - 1));
		s->ncache--;
	}
	if (!(s->cache[s->ncache].spec = strdup(spec))) {
		policy_destroy(p);
		err_nomem(err, "out of memory");
		return NULL;
	}
	s->cache[s->ncache++].p = p;
	return p;
}

const struct policy *tstate_policy(struct tstate *s, const char *partition,
				   const char *override, bool *none,
				   struct err *err)
{
	const char *spec;
	const struct policy *part = machine_policy(s->m, partition, &spec,
						   NULL),
			    *job;

	*none = false;
	if (!override || !*override) {
		*none = !part;
		return part;
	}
	if (!(job = cached(s, override, err)))
		return NULL;
	if (part && policy_isolating(part) && !policy_isolating(job)) {
		err_set(err,
			"--topo-policy=%s is not isolating but partition "
			"%s requires isolation (%s)",
			override, partition ? partition : "(default)", spec);
		return NULL;
	}
	return job;
}

struct pair {
	uint32_t owner, node;
};

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->owner != y->owner)
		return x->owner < y->owner ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* MLS/TLS of the running jobs (OWNER) and JOB_ID's share. */
static int evaluate_sharing(const struct tstate *s, const uint32_t *owner,
			    uint32_t job_id, struct teval *ev, struct err *err)
{
	struct pair *pairs = malloc(sizeof(*pairs) * (s->n + 1));
	uint32_t *nodes = malloc(sizeof(uint32_t) * (s->n + 1));
	struct ls_job *jobs = malloc(sizeof(*jobs) * (s->n + 1));
	struct ls_result lr;
	uint32_t np = 0, nj = 0, i;
	int rc = -1;

	memset(&lr, 0, sizeof(lr));
	if (!pairs || !nodes || !jobs) {
		err_nomem(err, "out of memory");
		goto out;
	}
	for (i = 0; i < s->n; i++)
		if (owner[i] != POLICY_FREE) {
			pairs[np].owner = owner[i];
			pairs[np++].node = i;
		}
	qsort(pairs, np, sizeof(*pairs), cmp_pair);
	for (i = 0; i < np; i++) {
		nodes[i] = pairs[i].node;
		if (i == 0 || pairs[i].owner != pairs[i - 1].owner) {
			jobs[nj].id = pairs[i].owner;
			jobs[nj].nodes = &nodes[i];
			jobs[nj].n = 0;
			jobs[nj].pattern = NULL;
			jobs[nj].seed = 0;
			nj++;
		}
		jobs[nj - 1].n++;
	}
	ev->njobs = nj;
	if (linkshare_compute(s->routing, jobs, nj, &lr, err) < 0)
		goto out;
	ev->mls = lr.mls;
	ev->tls = lr.tls;
	for (i = 0; i < lr.njobs; i++)
		if (lr.jobs[i].id == job_id) {
			ev->job_links = lr.jobs[i].links;
			ev->job_shared = lr.jobs[i].shared;
			ev->job_nshares = lr.jobs[i].nshares;
			for (uint32_t q = 0;
			     q < ev->job_nshares && q < TEVAL_PARTNERS; q++)
				ev->partners[q] = lr.jobs[i].shares_with[q];
		}
	rc = 0;
out:
	linkshare_free(&lr);
	free(pairs);
	free(nodes);
	free(jobs);
	return rc;
}

/* ---- the predictor thread ---- */

/* Predictions waiting for the thread at most (a job start beyond that is
 * recorded time-limit at once) and how long one may wait to be begun. */
#define PRED_MAX_QUEUED 1024
#define PRED_MAX_AGE_MS 60000

/* One prediction, shared by its tpending handle and the predictor
 * thread (everything but f, spec and sm under pred_lock). */
struct prediction {
	struct prediction *next; /* in the queue */
	unsigned refs;
	struct shared_machine *sm; /* a reference */
	const char *spec;	   /* the machine's */
	uint32_t budget;	   /* ms, the model's time once begun */
	struct flows f;
	struct timespec posted, deadline; /* CLOCK_MONOTONIC */
	struct timespec answered;	  /* when done */
	bool taken; /* begun by the thread: deadline set */
	bool done;
	bool late; /* not run: the queue was full, too old, or stopped */
	int rc;
	struct err err;
	struct model_result mr; /* the statistics; arrays freed */
};

struct tpending {
	struct prediction *p;
};

static pthread_once_t pred_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t pred_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pred_work; /* the thread waits for the queue */
static pthread_cond_t pred_done; /* handles wait, monotonic clock */
static struct prediction *pred_head, *pred_tail; /* posted, not taken */
static uint32_t pred_queued;
static pthread_t pred_thread;
static bool pred_running, pred_stop;

static void pred_init(void)
{
	pthread_condattr_t a;

	pthread_cond_init(&pred_work, NULL);
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&pred_done, &a);
	pthread_condattr_destroy(&a);
}

/* Milliseconds from now to T (negative when past). */
static double ms_until(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(t->tv_sec - now.tv_sec) * 1e3 +
	       (double)(t->tv_nsec - now.tv_nsec) * 1e-6;
}

/* *T plus MS milliseconds. */
static void ts_add_ms(struct timespec *t, uint32_t ms)
{
	t->tv_sec += ms / 1000;
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* Drop a reference (under pred_lock); true when P is to be freed. */
static bool pred_unref(struct prediction *p)
{
	return --p->refs == 0;
}

static void pred_free(struct prediction *p)
{
	flows_free(&p->f);
	sm_release(p->sm);
	free(p);
}

/* Run P's model with nine tenths of its budget as the time limit (a
 * tenth kept for handing the answer back). */
static void pred_run(struct prediction *p)
{
	struct model_opts opts;
	struct model_result mr;

	memset(&mr, 0, sizeof(mr));
	model_opts_init(&opts);
	opts.time_limit_ms = p->budget * 9 / 10 ? p->budget * 9 / 10 : 1;
	opts.top_links = 0;
	p->rc = model_run(p->spec, machine_routing(p->sm->m), &p->f, &opts, &mr,
			  &p->err);
	if (p->rc == 0) {
		model_result_free(&mr);
		p->mr = mr;
	}
}

/* P answered (run or not): done, and the thread's reference dropped.
 * Under pred_lock; returns whether P is to be freed. */
static bool pred_answered(struct prediction *p)
{
	clock_gettime(CLOCK_MONOTONIC, &p->answered);
	p->done = true;
	pthread_cond_broadcast(&pred_done);
	return pred_unref(p);
}

/* The predictor's niceness: predictions are background work, and on a
 * busy controller host the thread must not take a CPU from slurmctld's
 * scheduling threads (Linux: a thread's own nice value).  It also runs
 * under SCHED_IDLE where the kernel has it: a fifth of nice 19's share
 * (CFS weight 3 against 15) while another thread wants the CPU, never
 * starved outright. */
#define PRED_NICE 19

static void *pred_main(void *arg)
{
	(void)arg;
	(void)setpriority(PRIO_PROCESS, (id_t)gettid(), PRED_NICE);
#ifdef SCHED_IDLE
	{
		struct sched_param sp = { 0 };

		(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
	}
#endif
	pthread_mutex_lock(&pred_lock);
	for (;;) {
		struct prediction *p;
		bool last;

		while (!pred_head && !pred_stop)
			pthread_cond_wait(&pred_work, &pred_lock);
		if (pred_stop)
			break;
		p = pred_head;
		if (!(pred_head = p->next))
			pred_tail = NULL;
		pred_queued--;
		p->next = NULL;
		p->taken = true;
		clock_gettime(CLOCK_MONOTONIC, &p->deadline);
		p->late = ms_until(&p->posted) < -PRED_MAX_AGE_MS;
		ts_add_ms(&p->deadline, p->budget);
		pthread_cond_broadcast(&pred_done); /* its deadline is set */
		if (!p->late) {
			pthread_mutex_unlock(&pred_lock);
			pred_run(p);
			pthread_mutex_lock(&pred_lock);
		}
		last = pred_answered(p);
		if (last) {
			pthread_mutex_unlock(&pred_lock);
			pred_free(p);
			pthread_mutex_lock(&pred_lock);
		}
	}
	pthread_mutex_unlock(&pred_lock);
	model_thread_done();
	return NULL;
}

void tstate_predictor_stop(void)
{
	struct prediction *p, *next, *gone = NULL;

	pthread_once(&pred_once, pred_init);
	pthread_mutex_lock(&pred_lock);
	if (!pred_running) {
		pthread_mutex_unlock(&pred_lock);
		return;
	}
	pred_stop = true;
	pthread_cond_signal(&pred_work);
	pthread_cond_broadcast(&pred_done);
	pthread_mutex_unlock(&pred_lock);
	pthread_join(pred_thread, NULL);
	pthread_mutex_lock(&pred_lock);
	/* what was never begun is answered late */
	for (p = pred_head; p; p = next) {
		next = p->next;
		p->next = NULL;
		p->late = true;
		if (pred_answered(p)) {
			p->next = gone;
			gone = p;
		}
	}
	pred_head = pred_tail = NULL;
	pred_queued = 0;
	pred_running = pred_stop = false;
	pthread_mutex_unlock(&pred_lock);
	for (p = gone; p; p = next) {
		next = p->next;
		pred_free(p);
	}
}

/* Queue P for the predictor thread (started if need be), which holds a
 * reference of its own; a full queue answers P late at once.  Under
 * pred_lock; returns 0, or -1 with err set. */
static int pred_post(struct prediction *p, struct err *err)
{
	if (!pred_running) {
		if (pthread_create(&pred_thread, NULL, pred_main, NULL))
			return err_set(err,
				       "cannot start the predictor thread");
		pred_running = true;
	}
	p->refs++;
	if (pred_queued >= PRED_MAX_QUEUED) {
		p->taken = p->late = true;
		p->deadline = p->posted;
		pred_answered(p); /* the caller's reference remains */
		return 0;
	}
	if (pred_tail)
		pred_tail->next = p;
	else
		pred_head = p;
	pred_tail = p;
	pred_queued++;
	pthread_cond_signal(&pred_work);
	return 0;
}

/* Whether P's answer is known: done, or begun and past its deadline, or
 * the thread stopping.  Under pred_lock. */
static bool pred_ready(const struct prediction *p)
{
	return p->done || pred_stop ||
	       (p->taken && ms_until(&p->deadline) <= 0);
}

/* Wait until P is ready (pred_ready).  Under pred_lock. */
static void pred_wait(struct prediction *p)
{
	while (!pred_ready(p)) {
		if (p->taken)
			pthread_cond_timedwait(&pred_done, &pred_lock,
					       &p->deadline);
		else
			pthread_cond_wait(&pred_done, &pred_lock);
	}
}

/* *OUT: a prediction of the job's flows (EV's pattern) under S's model,
 * posted at T0, holding a reference to S's machine; NULL when the
 * pattern gives no flow.  Returns 0, or -1 with err set (a bad pattern,
 * memory). */
static int pred_new(const struct tstate *s, const struct teval *ev,
		    uint32_t job_id, const uint32_t *nodes, uint32_t n,
		    const struct timespec *t0, struct prediction **out,
		    struct err *err)
{
	struct prediction *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return err_nomem(err, "out of memory");
	flows_init(&p->f);
	rc = flows_pattern(ev->pattern, nodes, n, job_id, &p->f, err);
	if (rc < 0 || !p->f.n) {
		flows_free(&p->f);
		free(p);
		return rc < 0 ? -1 : 0;
	}
	p->refs = 1;
	p->spec = machine_predict(s->m, NULL);
	p->budget = machine_predict_budget(s->m, NULL);
	p->posted = *t0;
	atomic_fetch_add(&s->sm->refs, 1);
	p->sm = s->sm;
	*out = p;
	return 0;
}

/* P's answer into EV: the model's status and statistics when done (and
 * run), else MODEL_TIME_LIMIT without rates; ev->seconds from the post
 * to the answer (or the deadline).  Under pred_lock.  Returns 0, or -1
 * with err set when the model failed to run. */
static int pred_answer(const struct prediction *p, struct teval *ev,
		       struct err *err)
{
	const struct timespec *t = p->done ? &p->answered : &p->deadline;

	ev->status = MODEL_TIME_LIMIT;
	ev->overran = ev->has_alpha = ev->has_bound = false;
	ev->rate_mean = ev->rate_min = ev->aggregate = 0;
	ev->alpha = ev->bound = ev->gap = 0;
	ev->seconds = (double)(t->tv_sec - p->posted.tv_sec) +
		      (double)(t->tv_nsec - p->posted.tv_nsec) * 1e-9;
	if (!p->done || p->late) {
		if (!p->taken)
			ev->seconds = -ms_until(&p->posted) * 1e-3;
		ev->overran = true;
		return 0;
	}
	if (p->rc < 0)
		return err_from(err, &p->err, NULL);
	ev->status = p->mr.status;
	ev->rate_mean = p->mr.mean_rate;
	ev->rate_min = p->mr.min_rate;
	ev->aggregate = p->mr.aggregate;
	ev->has_alpha = p->mr.lp_rows > 0 || p->mr.alpha > 0;
	ev->alpha = p->mr.alpha;
	ev->has_bound = p->mr.solver && isfinite(p->mr.bound) &&
			p->mr.bound > p->mr.alpha;
	ev->bound = p->mr.bound;
	ev->gap = p->mr.gap;
	return 0;
}

/* Post the prediction of the job's pattern (for 2 to MAX_MODEL_NODES
 * nodes): *PEND its handle, NULL when the job is not modelled. */
static int evaluate_start(const struct tstate *s, uint32_t job_id,
			  const uint32_t *nodes, uint32_t n,
			  uint32_t max_model_nodes, struct teval *ev,
			  struct tpending **pend, struct err *err)
{
	struct timespec t0;
	struct prediction *p;
	int rc;

	*pend = NULL;
	if (n < 2 || n > max_model_nodes)
		return 0; /* ev->modelled stays false */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pred_new(s, ev, job_id, nodes, n, &t0, &p, err) < 0)
		return -1;
	if (!p)
		return 0;
	if (!(*pend = malloc(sizeof(**pend)))) {
		pred_free(p);
		return err_nomem(err, "out of memory");
	}
	(*pend)->p = p;
	ev->modelled = true;
	ev->flows = p->f.n;
	pthread_once(&pred_once, pred_init);
	pthread_mutex_lock(&pred_lock);
	rc = pred_post(p, err);
	pthread_mutex_unlock(&pred_lock);
	if (rc < 0) {
		pred_free(p);
		free(*pend);
		*pend = NULL;
	}
	return rc;
}

bool tstate_pending_ready(const struct tpending *t)
{
	bool ready;

	pthread_mutex_lock(&pred_lock);
	ready = pred_ready(t->p);
	pthread_mutex_unlock(&pred_lock);
	return ready;
}

void tstate_pending_wait(const struct tpending *t)
{
	pthread_mutex_lock(&pred_lock);
	pred_wait(t->p);
	pthread_mutex_unlock(&pred_lock);
}

int tstate_pending_finish(struct tpending *t, struct teval *ev, struct err *err)
{
	struct prediction *p = t->p;
	bool last;
	int rc;

	pthread_mutex_lock(&pred_lock);
	pred_wait(p);
	rc = pred_answer(p, ev, err);
	last = pred_unref(p);
	pthread_mutex_unlock(&pred_lock);
	if (last)
		pred_free(p);
	free(t);
	return rc;
}

/* The rates of the job's pattern under the prediction model (for 2 to
 * MAX_MODEL_NODES nodes), waited for. */
static int evaluate_model(const struct tstate *s, uint32_t job_id,
			  const uint32_t *nodes, uint32_t n,
			  uint32_t max_model_nodes, struct teval *ev,
			  struct err *err)
{
	struct tpending *t;

	if (evaluate_start(s, job_id, nodes, n, max_model_nodes, ev, &t, err) <
	    0)
		return -1;
	return t ? tstate_pending_finish(t, ev, err) : 0;
}

/* EV cleared, with the pattern and the model's name. */
static void set_pattern(const struct tstate *s, struct teval *ev,
			const char *pattern)
{
	const char *spec = machine_predict(s->m, NULL);

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->pattern, sizeof(ev->pattern), "%s",
		 pattern && *pattern ? pattern : TSTATE_DEFAULT_PATTERN);
	snprintf(ev->model, sizeof(ev->model), "%.*s", (int)strcspn(spec, ":"),
		 spec);
}

int tstate_evaluate(const struct tstate *s, const uint32_t *owner,
		    uint32_t job_id, const uint32_t *nodes, uint32_t n,
		    const char *pattern, uint32_t max_model_nodes,
		    struct teval *ev, struct err *err)
{
	set_pattern(s, ev, pattern);
	if (evaluate_sharing(s, owner, job_id, ev, err) < 0)
		return -1;
	return evaluate_model(s, job_id, nodes, n, max_model_nodes, ev, err);
}

int tstate_track_reset(struct tstate *s, const uint32_t *owner, struct err *err)
{
	struct pair *pairs = malloc(sizeof(*pairs) * (s->n + 1));
	uint32_t *nodes = malloc(sizeof(uint32_t) * (s->n + 1));
	uint32_t np = 0, i, first;
	int rc = -1;

	ls_state_destroy(s->ls);
	s->ls = NULL;
	ls_state_destroy(s->iso);
	s->iso = NULL;
	if (!pairs || !nodes) {
		err_nomem(err, "out of memory");
		goto out;
	}
	if (!(s->ls = ls_state_create(s->routing, err)))
		goto out;
	for (i = 0; i < s->n; i++)
		if (owner[i] != POLICY_FREE) {
			pairs[np].owner = owner[i];
			pairs[np++].node = i;
		}
	qsort(pairs, np, sizeof(*pairs), cmp_pair);
	for (i = 0; i < np; i++)
		nodes[i] = pairs[i].node;
	for (first = 0, i = 1; i <= np; i++) {
		if (i < np && pairs[i].owner == pairs[first].owner)
			continue;
		if (tstate_track_add(s, pairs[first].owner, &nodes[first],
				     i - first, err) < 0)
			goto out;
		first = i;
	}
	rc = 0;
out:
	if (rc < 0) {
		ls_state_destroy(s->ls);
		s->ls = NULL;
	}
	free(pairs);
	free(nodes);
	return rc;
}

int tstate_track_add(struct tstate *s, uint32_t job_id, const uint32_t *nodes,
		     uint32_t n, struct err *err)
{
	struct ls_job j = { .id = job_id, .nodes = nodes, .n = n };

	if (!s->ls) {
		err_set(err, "link-sharing tracker not initialised");
		return -1;
	}
	ls_state_remove(s->ls, job_id);
	return ls_state_add_job(s->ls, &j, err);
}

void tstate_track_remove(struct tstate *s, uint32_t job_id)
{
	if (s->ls)
		ls_state_remove(s->ls, job_id);
	if (s->iso)
		ls_state_remove(s->iso, job_id);
}

bool tstate_respect_isolation(const struct tstate *s)
{
	return machine_respect_isolation(s->m);
}

int tstate_protect(struct tstate *s, uint32_t job_id, const uint32_t *nodes,
		   uint32_t n, struct err *err)
{
	struct ls_job j = { .id = job_id, .nodes = nodes, .n = n };

	if (!s->iso && !(s->iso = ls_state_create(s->routing, err)))
		return -1;
	ls_state_remove(s->iso, job_id);
	return ls_state_add_job(s->iso, &j, err);
}

int tstate_conflicts(const struct tstate *s, const uint32_t *nodes, uint32_t n,
		     struct err *err)
{
	struct ls_job j = { .id = 0, .nodes = nodes, .n = n };
	uint32_t *links = NULL, nl = 0, i;
	int hit = 0;

	if (!s->iso || !ls_state_njobs(s->iso) || n < 2)
		return 0;
	if (linkshare_linkset(s->routing, &j, NULL, &links, &nl, err) < 0)
		return -1;
	for (i = 0; i < nl && !hit; i++)
		hit = ls_state_link_jobs(s->iso, links[i]) > 0;
	free(links);
	return hit;
}

int tstate_evaluate_start(const struct tstate *s, uint32_t job_id,
			  const uint32_t *nodes, uint32_t n,
			  const char *pattern, uint32_t max_model_nodes,
			  struct teval *ev, struct tpending **pend,
			  struct err *err)
{
	struct ls_job_now now;

	*pend = NULL;
	set_pattern(s, ev, pattern);
	if (!s->ls || ls_state_job(s->ls, job_id, &now) < 0) {
		err_set(err, "job %u is not tracked", job_id);
		return -1;
	}
	ev->mls = ls_state_mls(s->ls);
	ev->tls = ls_state_tls(s->ls);
	ev->njobs = ls_state_njobs(s->ls);
	ev->job_links = now.links;
	ev->job_shared = now.shared;
	if (ls_state_partners(s->ls, job_id, ev->partners, TEVAL_PARTNERS,
			      &ev->job_nshares, err) < 0)
		return -1;
	return evaluate_start(s, job_id, nodes, n, max_model_nodes, ev, pend,
			      err);
}

int tstate_evaluate_tracked(const struct tstate *s, uint32_t job_id,
			    const uint32_t *nodes, uint32_t n,
			    const char *pattern, uint32_t max_model_nodes,
			    struct teval *ev, struct err *err)
{
	struct tpending *t;

	if (tstate_evaluate_start(s, job_id, nodes, n, pattern, max_model_nodes,
				  ev, &t, err) < 0)
		return -1;
	return t ? tstate_pending_finish(t, ev, err) : 0;
}

const char *tstate_status_name(int status)
{
	switch (status) {
	case MODEL_OPTIMAL:
		return "optimal";
	case MODEL_TIME_LIMIT:
		return "time-limit";
	case MODEL_INFEASIBLE:
		return "infeasible";
	default:
		return "failed";
	}
}

const char *tstate_record(const struct teval *ev, char *buf, size_t len)
{
	char alpha[96] = "";

	if (!ev->modelled) {
		snprintf(buf, len,
			 "pattern=%s jm=none model=%s status=skipped links=%u "
			 "shared=%u running=%u mls=%.4g tls=%.4g",
			 ev->pattern, ev->model, ev->job_links, ev->job_shared,
			 ev->njobs, ev->mls, ev->tls);
		return buf;
	}
	if (ev->has_alpha && ev->has_bound)
		snprintf(alpha, sizeof(alpha),
			 " alpha=%.4g bound=%.4g gap=%.2g", ev->alpha,
			 ev->bound, ev->gap);
	else if (ev->has_alpha)
		snprintf(alpha, sizeof(alpha), " alpha=%.4g", ev->alpha);
	snprintf(buf, len,
		 "pattern=%s flows=%u model=%s status=%s jm_mean=%.4g "
		 "jm_min=%.4g jm_aggregate=%.4g%s links=%u shared=%u "
		 "running=%u mls=%.4g tls=%.4g",
		 ev->pattern, ev->flows, ev->model,
		 tstate_status_name(ev->status), ev->rate_mean, ev->rate_min,
		 ev->aggregate, alpha, ev->job_links, ev->job_shared, ev->njobs,
		 ev->mls, ev->tls);
	return buf;
}

const char *tstate_partners_text(const struct teval *ev, char *buf, size_t len)
{
	size_t at = 0;
	uint32_t q;

	if (len)
		buf[0] = '\0';
	for (q = 0; q < ev->job_nshares && q < TEVAL_PARTNERS && at < len; q++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", q ? "," : "",
				       ev->partners[q]);
	if (ev->job_nshares > TEVAL_PARTNERS && at < len)
		snprintf(buf + at, len - at, ",+%u",
			 ev->job_nshares - TEVAL_PARTNERS);
	return buf;
}

/* Job sizing (tsize_place). */

enum policy_status tsize_policy_place(void *ctx, const uint8_t *usable,
				      const struct policy_request *req,
				      struct policy_result *res)
{
	const struct tsize_policy *c = ctx;
	struct policy_view v = { .owner = c->owner, .usable = usable };

	return policy_place(c->p, &v, req, res);
}

struct sizing {
	const struct tsize *z;
	uint32_t n, capmax;
	uint32_t need;	       /* z->need, or 0 without z->cap */
	bool short_fit;	       /* the last sized() ran out of nodes at HI */
	const uint8_t *usable; /* the caller's, with nodes of CAP 0 off */
	struct policy_request *req;
	struct policy_result *res;
	tsize_fn fn;
	void *ctx;
};

static uint32_t div_up(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

/* What the nodes of RES hold. */
static uint64_t held(const struct sizing *g)
{
	uint64_t have = 0;
	uint32_t i;

	for (i = 0; i < g->res->n; i++)
		if (g->res->nodes[i] < g->n)
			have += g->z->cap[g->res->nodes[i]];
	return have;
}

/* The usable nodes holding at least MIN units, into MASK[n]; whether any
 * usable node was dropped. */
static bool mask_cap(const struct sizing *g, const uint8_t *usable,
		     uint32_t min, uint8_t *mask)
{
	bool dropped = false;
	uint32_t t;

	for (t = 0; t < g->n; t++) {
		bool u = !usable || usable[t];

		mask[t] = u && (g->z->cap[t] >= min);
		dropped |= u && !mask[t];
	}
	return dropped;
}

/* Place at least COUNT nodes holding NEED among USABLE (capmax the
 * largest CAP there). */
static enum policy_status sized(struct sizing *g, const uint8_t *usable,
				uint32_t capmax, uint32_t count)
{
	const struct tsize *z = g->z;
	uint32_t m = count, round;
	enum policy_status st;

	g->short_fit = false;
	if (g->need && (div_up(g->need, capmax) > m))
		m = div_up(g->need, capmax);
	for (round = 0; round < 64; round++) {
		uint64_t have;

		if (m > z->hi)
			break;
		g->req->nodes = m;
		st = g->fn(g->ctx, usable, g->req, g->res);
		if (st != POLICY_PLACED)
			return st;
		have = g->need ? held(g) : 0;
		if (have >= g->need)
			return POLICY_PLACED;
		m += div_up(g->need - have, capmax);
	}
	g->res->n = 0;
	g->short_fit = true;
	snprintf(
		g->res->reason, sizeof(g->res->reason),
		"its %u %s do not fit on %u nodes of those it may use (at most %u per node)",
		g->need, z->unit ? z->unit : "tasks", z->hi, capmax);
	return POLICY_NEVER;
}

/* sized(), and at HI once more on the nodes holding NEED / HI each. */
static enum policy_status sized_all(struct sizing *g, uint32_t count)
{
	enum policy_status st = sized(g, g->usable, g->capmax, count);
	uint32_t min;
	uint8_t *mask;

	if (!g->short_fit)
		return st;
	min = div_up(g->need, g->z->hi);
	if ((min <= 1) || (min > g->capmax))
		return st;
	mask = malloc(g->n ? g->n : 1);
	if (!mask)
		return st;
	if (mask_cap(g, g->usable, min, mask))
		st = sized(g, mask, g->capmax, count);
	free(mask);
	return st;
}

enum policy_status tsize_place(const struct tsize *z, uint32_t n,
			       const uint8_t *usable, bool largest,
			       struct policy_request *req,
			       struct policy_result *res, tsize_fn fn,
			       void *ctx)
{
	struct sizing g = { .z = z,
			    .n = n,
			    .usable = usable,
			    .req = req,
			    .res = res,
			    .fn = fn,
			    .ctx = ctx };
	uint8_t *mask = NULL;
	enum policy_status st;
	uint32_t t, lo, hi, first = z->first;

	res->n = 0;
	res->reason[0] = '\0';
	if (z->need && z->cap) {
		/* Nodes that cannot hold the per-node share are not usable. */
		mask = malloc(n ? n : 1);
		if (!mask) {
			snprintf(res->reason, sizeof(res->reason),
				 "out of memory");
			return POLICY_WAIT;
		}
		mask_cap(&g, usable, 1, mask);
		g.usable = mask;
		for (t = 0; t < n; t++)
			if (mask[t] && (z->cap[t] > g.capmax))
				g.capmax = z->cap[t];
		if (!g.capmax) {
			free(mask);
			snprintf(
				res->reason, sizeof(res->reason),
				"no node it may use holds its per-node share of %s",
				z->unit ? z->unit : "tasks");
			return POLICY_NEVER;
		}
		g.need = z->need;
	}
	if (first < z->lo)
		first = z->lo;
	if (first > z->hi)
		first = z->hi;
	st = sized_all(&g, largest ? first : z->lo);
	if (!largest || (st == POLICY_PLACED) || (first == z->lo))
		goto out;
	/* The largest count in [LO, FIRST) that places (binary search:
	 * a count that places means smaller ones do for these policies;
	 * the answer is checked by placing it last). */
	st = sized_all(&g, z->lo);
	if (st != POLICY_PLACED)
		goto out;
	lo = z->lo;
	hi = first - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;

		if (sized_all(&g, mid) == POLICY_PLACED)
			lo = mid;
		else
			hi = mid - 1;
	}
	st = sized_all(&g, lo);
out:
	if (st == POLICY_PLACED)
		req->nodes = res->n;
	free(mask);
	return st;
}

void tsize_from_job(const struct tjob *j, uint32_t n, const uint32_t *cpus,
		    const uint64_t *mem, uint32_t *cap, struct tsize *z)
{
	uint32_t cpt = j->cpus_per_task ? j->cpus_per_task : 1;
	uint32_t tpn = j->ntasks_per_node, t;

	memset(z, 0, sizeof(*z));
	z->lo = j->min_nodes ? j->min_nodes : 1;
	z->hi = (j->max_nodes && (j->max_nodes < n)) ? j->max_nodes : n;
	if (z->hi < z->lo)
		z->hi = z->lo; /* the policy says why it cannot */
	z->first = j->req_nodes ? j->req_nodes : z->lo;
	if (j->overcommit)
		return;
	if (j->num_tasks) {
		z->need = j->num_tasks;
		z->unit = "tasks";
	} else if (j->min_cpus > z->lo) {
		z->need = j->min_cpus;
		z->unit = "CPUs";
		cpt = 1;
		tpn = 0;
	} else {
		return;
	}
	for (t = 0; t < n; t++) {
		uint64_t c = cpus[t];

		if (j->mem_per_cpu && mem && mem[t] &&
		    (mem[t] / j->mem_per_cpu < c))
			c = mem[t] / j->mem_per_cpu;
		c /= cpt;
		if (tpn)
			c = (c >= tpn) ? tpn : 0;
		cap[t] = (uint32_t)c;
	}
	z->cap = cap;
}
