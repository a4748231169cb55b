/*****************************************************************************\
 *  owner.c - node ownership: the job holding each topology node (from job
 *  begin/fini/resize/expand, rebuilt from the job list after a restart or
 *  reconfiguration), the policy each job runs under, and under
 *  RespectIsolation=yes the protected links of isolated jobs.
\*****************************************************************************/

#include "config.h"

#include <inttypes.h>
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
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"

/* Whether the topology state matches the node table now. */
bool owner_usable_locked(void)
{
	return tstate && owner &&
	       (tstate_slurm_nodes(tstate) == (uint32_t)node_record_count);
}

void owner_set_locked(job_record_t *job_ptr, bool set)
{
	int i, last;

	if (!job_ptr->node_bitmap)
		return;
	last = bit_fls(job_ptr->node_bitmap);
	for (i = bit_ffs(job_ptr->node_bitmap); (i >= 0) && (i <= last); i++) {
		uint32_t t;

		if (!bit_test(job_ptr->node_bitmap, i))
			continue;
		t = tstate_s2t(tstate, i);
		if (t == TOPO_NONE)
			continue;
		if (set)
			owner[t] = job_ptr->job_id;
		else if (owner[t] == job_ptr->job_id)
			owner[t] = POLICY_FREE;
	}
}

static int _rebuild_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		owner_set_locked(job_ptr, true);
	return 0;
}

static int _protect_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;

	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		owner_protect_locked(job_ptr);
	return 0;
}

/* owner[] from the job list (after a restart or reconfiguration); the
 * link-sharing tracker is rebuilt when anything changed. */
void owner_rebuild_locked(list_t *jobs)
{
	struct err err = { 0 };
	uint32_t n;
	uint32_t *old;

	if (!owner_usable_locked())
		return;
	n = tstate_nodes(tstate);
	old = xcalloc(n + 1, sizeof(uint32_t));
	memcpy(old, owner, sizeof(uint32_t) * n);
	memset(owner, 0, sizeof(uint32_t) * n);
	if (jobs)
		list_for_each(jobs, _rebuild_one, NULL);
	if (!tracking || memcmp(old, owner, sizeof(uint32_t) * n)) {
		tracking = (tstate_track_reset(tstate, owner, &err) == 0);
		if (!tracking)
			error("%s: link-sharing tracker: %s [%s]", TOPO_NAME,
			      err.msg, err_kind(&err));
		else if (jobs)
			list_for_each(jobs, _protect_one, NULL);
	}
	xfree(old);
}

/* Topology ids of the nodes JOB_ID holds in owner[] (xfree). */
uint32_t *owner_nodes_locked(uint32_t job_id, uint32_t *count)
{
	uint32_t n = tstate_nodes(tstate), i, *nodes;

	nodes = xcalloc(n + 1, sizeof(uint32_t));
	*count = 0;
	for (i = 0; i < n; i++)
		if (owner[i] == job_id)
			nodes[(*count)++] = i;
	return nodes;
}

/* The value of KEY ("NAME=") among the SPANK job control variables
 * ENV[0..N), or NULL. */
const char *job_env_value(char **env, uint32_t n, const char *key)
{
	size_t len = strlen(key);
	uint32_t i;

	for (i = 0; env && (i < n); i++)
		if (env[i] && !strncmp(env[i], key, len))
			return env[i] + len;
	return NULL;
}

const char *job_env(job_record_t *job_ptr, const char *key)
{
	return job_env_value(job_ptr->spank_job_env,
			     job_ptr->spank_job_env_size, key);
}

/* The policy the job runs under (its partition's, or its --topo-policy),
 * or NULL when none applies. */
const struct policy *job_policy(job_record_t *job_ptr)
{
	struct err err = { 0 };
	const char *part = job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL;
	bool none = false;

	return tstate_policy(tstate, part, job_env(job_ptr, ENV_POLICY), &none,
			     &err);
}

bool job_isolating(job_record_t *job_ptr)
{
	const struct policy *p = job_policy(job_ptr);

	return p && policy_isolating(p);
}

/* RespectIsolation=yes: an isolated running job's links are protected
 * from jobs of partitions without an isolating policy. */
void owner_protect_locked(job_record_t *job_ptr)
{
	struct err err = { 0 };
	uint32_t *nodes, n = 0;

	if (!tracking || !tstate_respect_isolation(tstate) ||
	    !job_isolating(job_ptr))
		return;
	nodes = owner_nodes_locked(job_ptr->job_id, &n);
	if (tstate_protect(tstate, job_ptr->job_id, nodes, n, &err) < 0)
		error("%s: %pJ: protecting its links: %s [%s]", TOPO_NAME,
		      job_ptr, err.msg, err_kind(&err));
	xfree(nodes);
}
