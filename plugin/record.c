/*****************************************************************************\
 *  record.c - what a job start records: the link sharing of every running
 *  job, the job's predicted rate (a predictor thread, PredictBudget=),
 *  written in start order to topo_jobs.log and the AdminComment by the
 *  recorder thread; the rank order the nne policy planned.
\*****************************************************************************/

#include "config.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"
#include "policies/rankorder.h"

/*
 * A prediction that hit its budget: at info, what was recorded.
 */
static void _log_overrun(uint32_t job_id, const char *model, uint32_t budget,
			 const struct teval *ev)
{
	if (!ev->modelled || ev->status != MODEL_TIME_LIMIT)
		return;
	if (ev->overran)
		info("%s: JobId=%u: prediction with %s not done within PredictBudget=%u ms: recorded status=time-limit without rates",
		     TOPO_NAME, job_id, model, budget);
	else if (ev->has_bound)
		info("%s: JobId=%u: prediction with %s stopped at its time limit (PredictBudget=%u ms): recorded alpha=%.4g, bound=%.4g (gap %.2g)",
		     TOPO_NAME, job_id, model, budget, ev->alpha, ev->bound,
		     ev->gap);
	else
		info("%s: JobId=%u: prediction with %s stopped at its time limit (PredictBudget=%u ms): recorded the best allocation it knew",
		     TOPO_NAME, job_id, model, budget);
}

/* The running jobs other than JOB_PTR holding some of its nodes (two
 * jobs on one node share its injection link): how many of its nodes are
 * held twice, and up to MAX of those jobs' ids, ","-separated, into BUF. */
static uint32_t _node_sharing(job_record_t *job_ptr, char *buf, size_t len)
{
	list_itr_t *it;
	job_record_t *j;
	bitstr_t *both;
	uint32_t held = 0, njobs = 0;
	size_t o = 0;

	buf[0] = '\0';
	if (!job_ptr->node_bitmap || !job_list)
		return 0;
	both = bit_alloc(node_record_count);
	it = list_iterator_create(job_list);
	while ((j = list_next(it))) {
		if ((j == job_ptr) || !j->node_bitmap ||
		    !(IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j)) ||
		    !bit_overlap_any(j->node_bitmap, job_ptr->node_bitmap))
			continue;
		bit_or(both, j->node_bitmap);
		if ((njobs++ < 8) && (o < len))
			o += snprintf(buf + o, len - o, "%s%u", o ? "," : "",
				      j->job_id);
	}
	list_iterator_destroy(it);
	bit_and(both, job_ptr->node_bitmap);
	held = bit_set_count(both);
	FREE_NULL_BITMAP(both);
	if ((njobs > 8) && (o < len))
		snprintf(buf + o, len - o, ",...");
	return held;
}

/* Append LINE to StateSaveLocation/topo_jobs.log, stamped with WHEN in
 * ISO 8601 local time. */
static void _jobs_log(time_t when, const char *line)
{
	char *path = NULL, stamp[64];
	struct tm tm;
	FILE *f;

	localtime_r(&when, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S%z", &tm);
	xstrfmtcat(path, "%s/topo_jobs.log", slurm_conf.state_save_location);
	if ((f = fopen(path, "a"))) {
		fprintf(f, "%s %s\n", stamp, line);
		fclose(f);
	} else {
		debug("%s: cannot append to %s: %m", TOPO_NAME, path);
	}
	xfree(path);
}

/* The policy a running job's partition (and --topo-policy) gives, for the
 * record: its spec, "none" when the wrapped plugin placed it alone. */
static const char *_policy_of(job_record_t *job_ptr)
{
	const struct policy *p = job_policy(job_ptr);

	return p ? policy_spec(p) : "none";
}

/*
 * " placement=isolated", " placement=shared why=\"...\"" or
 * " placement=oblivious" into BUF: what the job's policy said of the
 * placement it chose (select_topo(8)), empty when unknown (placed before
 * a restart, or by the wrapped plugin alone).  An isolated claim that
 * the start contradicts (EV: links used by other jobs; NSHARED: nodes
 * held by other jobs) is an error in the log: the guarantee is exact.
 */
static void _placement(job_record_t *job_ptr, const struct teval *ev,
		       uint32_t nshared, char *buf, size_t len)
{
	const struct policy *p = job_policy(job_ptr);
	enum policy_placement k = POLICY_PLACEMENT_UNKNOWN;

	if (p && !policy_isolating(p))
		k = POLICY_PLACEMENT_OBLIVIOUS;
	else if (p && claim.job_id == job_ptr->job_id)
		k = claim.isolated ? POLICY_PLACEMENT_ISOLATED :
				     POLICY_PLACEMENT_SHARED;
	if (claim.job_id == job_ptr->job_id)
		claim.job_id = 0;
	policy_placement_format(
		k, claim.why[0] ? claim.why : "not isolated by the policy", buf,
		len);
	if (k == POLICY_PLACEMENT_ISOLATED && (ev->job_shared || nshared))
		error("%s: %pJ placed isolated by %s shares %u links and %u nodes with other jobs",
		      TOPO_NAME, job_ptr, policy_spec(p), ev->job_shared,
		      nshared);
}

/*
 * The record of a job start, written to topo_jobs.log and the job's
 * AdminComment once its prediction is answered.  Records are written in
 * start order: a start finds the queue empty and no prediction to wait
 * for (a job of one node, or of more than MAX_MODEL_NODES) and writes its
 * own at once; otherwise the recorder thread writes it when the predictor
 * answers (within PredictBudget= of beginning it), taking the job write
 * lock.  rec_lock protects the queue; the order is slurmctld's locks,
 * then rec_lock.
 */
struct topo_rec {
	struct topo_rec *next;
	uint32_t job_id;
	time_t start;	       /* the job's start_time */
	struct tpending *pend; /* NULL: ev is complete */
	struct teval ev;
	uint32_t n, nshared;
	char *policy, *with, *place;
	char *partition; /* the job's, for stopo report --history */
	char *error;	 /* the evaluation failed: why (no ev) */
	char model[32];	 /* for the overrun line */
	uint32_t budget;
};

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rec_cond = PTHREAD_COND_INITIALIZER;
static struct topo_rec *rec_head, *rec_tail;
static pthread_t rec_thread;
static bool rec_running, rec_stop;

static void _rec_free(struct topo_rec *r)
{
	struct err err = { 0 };

	if (r->pend)
		(void)tstate_pending_finish(r->pend, &r->ev, &err);
	xfree(r->policy);
	xfree(r->partition);
	xfree(r->with);
	xfree(r->place);
	xfree(r->error);
	xfree(r);
}

/*
 * Write R's record (its prediction answered): topo_jobs.log, the job's
 * AdminComment (when still empty and the job has not started again
 * since), the overrun line at info and the record at debug flag
 * SelectType.  Under the job write lock.
 */
static void _rec_write(struct topo_rec *r)
{
	struct err err = { 0 };
	job_record_t *job_ptr;
	char line[512], with[256], *rec = NULL;

	if (r->pend) {
		int rc = tstate_pending_finish(r->pend, &r->ev, &err);

		r->pend = NULL;
		if (rc < 0) {
			error("%s: JobId=%u: evaluation: %s [%s]", TOPO_NAME,
			      r->job_id, err.msg, err_kind(&err));
			r->error = xstrdup(err.msg);
		}
	}
	if (r->error) {
		xstrfmtcat(
			rec,
			"job=%u nodes=%u policy=%s node_shared=%u status=failed error=\"%s\" partition=%s",
			r->job_id, r->n, r->policy, r->nshared, r->error,
			r->partition);
		_jobs_log(r->start, rec);
		xfree(rec);
		return;
	}
	_log_overrun(r->job_id, r->model, r->budget, &r->ev);
	tstate_record(&r->ev, line, sizeof(line));
	log_flag(SELECT_TYPE, "%s: JobId=%u started on %u nodes: %s", TOPO_NAME,
		 r->job_id, r->n, line);
	job_ptr = job_list ? find_job_record(r->job_id) : NULL;
	if (job_ptr && !job_ptr->admin_comment &&
	    (job_ptr->start_time == r->start))
		xstrfmtcat(job_ptr->admin_comment, "topo: %s%s", line,
			   r->place);
	xstrfmtcat(rec,
		   "job=%u nodes=%u %s partition=%s policy=%s node_shared=%u",
		   r->job_id, r->n, line, r->partition, r->policy, r->nshared);
	if (r->nshared)
		xstrfmtcat(rec, " node_shares_with=%s", r->with);
	xstrcat(rec, r->place);
	if (r->ev.job_nshares)
		xstrfmtcat(rec, " shares_with=%s",
			   tstate_partners_text(&r->ev, with, sizeof(with)));
	_jobs_log(r->start, rec);
	xfree(rec);
}

/* Write the records at the head of the queue whose predictions are
 * answered.  Under the job write lock and rec_lock. */
static void _rec_drain_locked(void)
{
	struct topo_rec *r;

	while ((r = rec_head) && (!r->pend || tstate_pending_ready(r->pend))) {
		if (!(rec_head = r->next))
			rec_tail = NULL;
		_rec_write(r);
		_rec_free(r);
	}
}

static void *_recorder(void *arg)
{
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };

	(void)arg;
	slurm_mutex_lock(&rec_lock);
	while (!rec_stop) {
		struct topo_rec *r = rec_head;

		if (!r) {
			slurm_cond_wait(&rec_cond, &rec_lock);
			continue;
		}
		/* only this thread takes records off the queue */
		slurm_mutex_unlock(&rec_lock);
		if (r->pend)
			tstate_pending_wait(r->pend);
		lock_slurmctld(job_write);
		slurm_mutex_lock(&rec_lock);
		if (!rec_stop)
			_rec_drain_locked();
		slurm_mutex_unlock(&rec_lock);
		unlock_slurmctld(job_write);
		slurm_mutex_lock(&rec_lock);
	}
	slurm_mutex_unlock(&rec_lock);
	return NULL;
}

/* Stop the recorder (for fini, under no slurmctld lock): the records
 * still waiting are dropped. */
void record_stop(void)
{
	struct topo_rec *r;

	slurm_mutex_lock(&rec_lock);
	rec_stop = true;
	slurm_cond_broadcast(&rec_cond);
	slurm_mutex_unlock(&rec_lock);
	tstate_predictor_stop(); /* wakes a wait for a prediction */
	if (rec_running)
		pthread_join(rec_thread, NULL);
	slurm_mutex_lock(&rec_lock);
	while ((r = rec_head)) {
		rec_head = r->next;
		_rec_free(r);
	}
	rec_tail = NULL;
	rec_running = rec_stop = false;
	slurm_mutex_unlock(&rec_lock);
}

/* Queue R, or write it at once when nothing is ahead of it and it waits
 * for no prediction.  Under the job write lock. */
static void _rec_post(struct topo_rec *r)
{
	slurm_mutex_lock(&rec_lock);
	if (!rec_head && !r->pend) {
		slurm_mutex_unlock(&rec_lock);
		_rec_write(r);
		_rec_free(r);
		return;
	}
	if (!rec_running) {
		if (pthread_create(&rec_thread, NULL, _recorder, NULL)) {
			slurm_mutex_unlock(&rec_lock);
			error("%s: JobId=%u: cannot start the recorder thread: its prediction is recorded at once",
			      TOPO_NAME, r->job_id);
			_rec_write(r); /* waits for the prediction */
			_rec_free(r);
			return;
		}
		rec_running = true;
	}
	r->next = NULL;
	if (rec_tail)
		rec_tail->next = r;
	else
		rec_head = r;
	rec_tail = r;
	slurm_cond_signal(&rec_cond);
	slurm_mutex_unlock(&rec_lock);
}

/*
 * In-process evaluator: the link sharing of every running job at once,
 * logged at info in one line (policy, nodes, isolated or what it shares),
 * and the job's predicted communication rate (the Predict= model over its
 * pattern, run by the predictor thread within PredictBudget= of beginning
 * it: the start does not wait), recorded with the sharing in
 * StateSaveLocation/topo_jobs.log (one line per job start, also when the
 * evaluation failed) and in the job's AdminComment (when empty) once
 * answered (struct topo_rec).  Link sets are kept incrementally
 * (tstate_track_*): a job start costs its own link set, not every running
 * job's.
 */
void record_evaluate_locked(job_record_t *job_ptr)
{
	struct err err = { 0 };
	struct topo_rec *r;
	uint32_t *nodes, n = 0, nshared;
	char with[96], place[256];
	char *names;
	const char *policy;

	if (!tracking)
		return;
	nodes = owner_nodes_locked(job_ptr->job_id, &n);
	policy = _policy_of(job_ptr);
	/* job_ptr->nodes is set after job_begin. */
	names = job_ptr->node_bitmap ? bitmap2node_name(job_ptr->node_bitmap) :
				       xstrdup("?");
	nshared = _node_sharing(job_ptr, with, sizeof(with));
	r = xmalloc(sizeof(*r));
	r->job_id = job_ptr->job_id;
	r->start = job_ptr->start_time;
	r->n = n;
	r->nshared = nshared;
	r->policy = xstrdup(policy);
	/* the partition it runs in (a job submitted to several lists them
	 * all in job_ptr->partition) */
	r->partition = xstrdup(job_ptr->part_ptr && job_ptr->part_ptr->name ?
				       job_ptr->part_ptr->name :
			       job_ptr->partition ? job_ptr->partition :
						    "-");
	r->with = xstrdup(with);
	snprintf(r->model, sizeof(r->model), "%s", tstate_predict(tstate));
	r->budget = tstate_predict_budget(tstate);
	if ((tstate_track_add(tstate, job_ptr->job_id, nodes, n, &err) < 0) ||
	    (tstate_evaluate_start(tstate, job_ptr->job_id, nodes, n,
				   job_env(job_ptr, ENV_PATTERN),
				   MAX_MODEL_NODES, &r->ev, &r->pend,
				   &err) < 0)) {
		error("%s: %pJ: evaluation: %s [%s]", TOPO_NAME, job_ptr,
		      err.msg, err_kind(&err));
		info("%s: %pJ started on %s (%u nodes), policy %s: not evaluated: %s",
		     TOPO_NAME, job_ptr, names, n, policy, err.msg);
		r->error = xstrdup(err.msg);
	} else {
		_placement(job_ptr, &r->ev, nshared, place, sizeof(place));
		r->place = xstrdup(place);
		if (nshared)
			info("%s: %pJ started on %s (%u nodes), policy %s: shares %u of its nodes with job(s) %s, %u of its %u links with other jobs",
			     TOPO_NAME, job_ptr, names, n, policy, nshared,
			     with, r->ev.job_shared, r->ev.job_links);
		else if (r->ev.job_shared)
			info("%s: %pJ started on %s (%u nodes), policy %s: not isolated, %u of its %u links used by other jobs;%s",
			     TOPO_NAME, job_ptr, names, n, policy,
			     r->ev.job_shared, r->ev.job_links, place);
		else
			info("%s: %pJ started on %s (%u nodes), policy %s: isolated (%u links);%s",
			     TOPO_NAME, job_ptr, names, n, policy,
			     r->ev.job_links, place);
	}
	xfree(names);
	xfree(nodes);
	_rec_post(r);
}

/*
 * The rank order the policy planned for JOB_PTR (nne, a grid job spanning
 * groups), in its SystemComment as "topo_grid=AxBxC topo_ranks=TEXT": the
 * position in the job's node list (Slurm's node order, as job_ptr->nodes
 * lists them) of every rank's node, rank order (policies/rankorder.h).
 * srun --topo-ranks (spank_topo) reads it and lays the ranks out so.
 */
void record_ranks_locked(job_record_t *job_ptr)
{
	uint32_t *at = NULL, *pos = NULL, k = 0, i;
	const char *grid = job_env(job_ptr, ENV_GRID);
	char *text = NULL;

	if ((claim.job_id != job_ptr->job_id) || !claim.nranks)
		return;
	if (!job_ptr->node_bitmap)
		goto out;
	at = xcalloc(node_record_count + 1, sizeof(uint32_t));
	for (i = 0; i < (uint32_t)node_record_count; i++)
		if (bit_test(job_ptr->node_bitmap, i))
			at[i] = ++k;
	pos = xcalloc(claim.nranks, sizeof(uint32_t));
	for (i = 0; i < claim.nranks; i++) {
		uint32_t s = tstate_t2s(tstate, claim.ranks[i]);

		if ((s >= (uint32_t)node_record_count) || !at[s]) {
			error("%s: %pJ: the planned rank %u is on a node the job was not given: rank order not recorded",
			      TOPO_NAME, job_ptr, i);
			goto out;
		}
		pos[i] = at[s] - 1;
	}
	if (rankorder_format(pos, claim.nranks, &text) < 0) {
		error("%s: %pJ: out of memory: rank order not recorded",
		      TOPO_NAME, job_ptr);
		goto out;
	}
	xstrfmtcat(job_ptr->system_comment, "%stopo_grid=%s %s%s",
		   job_ptr->system_comment ? " " : "", grid ? grid : "?",
		   RANKORDER_KEY, text);
	info("%s: %pJ: rank order of grid %s recorded (%u ranks on %u nodes): srun --topo-ranks lays the ranks out as planned",
	     TOPO_NAME, job_ptr, grid ? grid : "?", claim.nranks, k);
	if (job_ptr->details && (job_ptr->details->num_tasks != NO_VAL) &&
	    job_ptr->details->num_tasks &&
	    (job_ptr->details->num_tasks != claim.nranks))
		info("%s: %pJ asks %u tasks, its grid %s has %u ranks: srun --topo-ranks launches %u",
		     TOPO_NAME, job_ptr, job_ptr->details->num_tasks,
		     grid ? grid : "?", claim.nranks, claim.nranks);
out:
	free(text);
	xfree(pos);
	xfree(at);
	claim.nranks = 0;
}
