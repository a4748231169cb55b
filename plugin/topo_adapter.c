/*****************************************************************************\
 *  topo_adapter.c - the Slurm-free half of select/topo (see topo_adapter.h).
\*****************************************************************************/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/topo_adapter.h"

#define MAX_CACHED_POLICIES 64

struct cached_policy {
	char *spec;
	struct policy *p;
};

struct tstate {
	struct machine *m;
	const struct routing *routing; /* the machine's */
	uint32_t n;
	uint32_t *s2t; /* [n] Slurm node index -> topology node */
	uint32_t *t2s; /* [n] topology node -> Slurm node index */
	struct cached_policy cache[MAX_CACHED_POLICIES]; /* --topo-policy */
	uint32_t ncache;
	struct ls_state *ls; /* link sets of the running jobs */
};

static const struct policy *cached(struct tstate *s, const char *spec,
				   struct err *err);

/*
 * The machine checks topo.conf and every policy line (PartitionPolicy= of
 * any partition, DefaultPolicy=) with the lines the parser kept; this adds
 * the check against slurm.conf's nodes.  PARTS is not needed any more:
 * the policy of every partition is already created.
 */
struct tstate *tstate_load(const char *path, const char *const *names,
			   uint32_t nslurm, const char *const *parts,
			   uint32_t nparts, struct err *err)
{
	struct tstate *s = calloc(1, sizeof(*s));
	uint32_t i, line;

	(void)parts;
	(void)nparts;
	if (!s) {
		err_set(err, "%s: out of memory", path);
		return NULL;
	}
	if (!(s->m = machine_load(path, NULL, err)))
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
	if (s->n != nslurm) {
		err_set(err,
			"%s:%u: topology has %u nodes but slurm.conf "
			"has %u",
			path, machine_line(s->m, TOPO_CONF_TOPOLOGY), s->n,
			nslurm);
		goto fail;
	}
	s->s2t = malloc(sizeof(uint32_t) * (s->n ? s->n : 1));
	s->t2s = malloc(sizeof(uint32_t) * (s->n ? s->n : 1));
	if (!s->s2t || !s->t2s) {
		err_set(err, "%s: out of memory", path);
		goto fail;
	}
	line = machine_line(s->m, TOPO_CONF_NODENAME);
	for (i = 0; i < s->n; i++)
		s->t2s[i] = TOPO_NONE;
	for (i = 0; i < nslurm; i++) {
		uint32_t t = names[i] ? machine_node_index(s->m, names[i]) :
					TOPO_NONE;

		if (t == TOPO_NONE || t >= s->n) {
			err_set(err,
				"%s:%u: slurm.conf node %s is not in "
				"NodeName=",
				path, line, names[i] ? names[i] : "?");
			goto fail;
		}
		if (s->t2s[t] != TOPO_NONE) {
			err_set(err,
				"%s:%u: slurm.conf node %s appears "
				"twice",
				path, line, names[i]);
			goto fail;
		}
		s->s2t[i] = t;
		s->t2s[t] = i;
	}
	return s;
fail:
	tstate_destroy(s);
	return NULL;
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
	machine_destroy(s->m);
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

uint32_t tstate_nodes(const struct tstate *s)
{
	return s->n;
}

uint32_t tstate_s2t(const struct tstate *s, uint32_t i)
{
	return i < s->n ? s->s2t[i] : TOPO_NONE;
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
		err_set(err, "out of memory");
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
		err_set(err, "out of memory");
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
		}
	rc = 0;
out:
	linkshare_free(&lr);
	free(pairs);
	free(nodes);
	free(jobs);
	return rc;
}

/* JM rates of the job's pattern (for 2 to MAX_MODEL_NODES nodes). */
static int evaluate_jm(const struct tstate *s, uint32_t job_id,
		       const uint32_t *nodes, uint32_t n,
		       uint32_t max_model_nodes, struct teval *ev,
		       struct err *err)
{
	struct model_opts opts;
	struct model_result mr;
	struct flows f;
	int rc = 0;

	memset(&mr, 0, sizeof(mr));
	if (n < 2 || n > max_model_nodes)
		return 0; /* ev->modelled stays false */
	flows_init(&f);
	model_opts_init(&opts);
	opts.time_limit_ms = 1000;
	if (flows_pattern(ev->pattern, nodes, n, job_id, &f, err) < 0 ||
	    model_run("jm", s->routing, &f, &opts, &mr, err) < 0) {
		rc = -1;
	} else if (f.n) {
		ev->modelled = true;
		ev->flows = f.n;
		ev->rate_mean = mr.mean_rate;
		ev->rate_min = mr.min_rate;
		ev->aggregate = mr.aggregate;
	}
	model_result_free(&mr);
	flows_free(&f);
	return rc;
}

static void set_pattern(struct teval *ev, const char *pattern)
{
	memset(ev, 0, sizeof(*ev));
	snprintf(ev->pattern, sizeof(ev->pattern), "%s",
		 pattern && *pattern ? pattern : TSTATE_DEFAULT_PATTERN);
}

int tstate_evaluate(const struct tstate *s, const uint32_t *owner,
		    uint32_t job_id, const uint32_t *nodes, uint32_t n,
		    const char *pattern, uint32_t max_model_nodes,
		    struct teval *ev, struct err *err)
{
	set_pattern(ev, pattern);
	if (evaluate_sharing(s, owner, job_id, ev, err) < 0)
		return -1;
	return evaluate_jm(s, job_id, nodes, n, max_model_nodes, ev, err);
}

int tstate_track_reset(struct tstate *s, const uint32_t *owner, struct err *err)
{
	struct pair *pairs = malloc(sizeof(*pairs) * (s->n + 1));
	uint32_t *nodes = malloc(sizeof(uint32_t) * (s->n + 1));
	uint32_t np = 0, i, first;
	int rc = -1;

	ls_state_destroy(s->ls);
	s->ls = NULL;
	if (!pairs || !nodes) {
		err_set(err, "out of memory");
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
}

int tstate_evaluate_tracked(const struct tstate *s, uint32_t job_id,
			    const uint32_t *nodes, uint32_t n,
			    const char *pattern, uint32_t max_model_nodes,
			    struct teval *ev, struct err *err)
{
	struct ls_job_now now;

	set_pattern(ev, pattern);
	if (!s->ls || ls_state_job(s->ls, job_id, &now) < 0) {
		err_set(err, "job %u is not tracked", job_id);
		return -1;
	}
	ev->mls = ls_state_mls(s->ls);
	ev->tls = ls_state_tls(s->ls);
	ev->njobs = ls_state_njobs(s->ls);
	ev->job_links = now.links;
	ev->job_shared = now.shared;
	return evaluate_jm(s, job_id, nodes, n, max_model_nodes, ev, err);
}
