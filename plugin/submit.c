/*****************************************************************************\
 *  submit.c - the submission check job_submit/topo calls: can the job
 *  ever run isolated in one of its partitions?
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
#include "src/slurmctld/reservation.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"

/*
 * The submission check (job_submit/topo calls it, in slurmctld, with the
 * job and partition locks job_submit plugins are called with): can the
 * job ever run isolated in one of its partitions?  The same policy, the
 * same sizing and the same parsers as job_test's test-only mode, on the
 * job as submitted; a refusal goes back to the user as ERR_MSG.
 */
static const char *_desc_env(job_desc_msg_t *d, const char *key)
{
	return job_env_value(d->spank_job_env, d->spank_job_env_size, key);
}

/* One partition: SLURM_SUCCESS, or an error code with *WHY set. */
static int _submit_check_part(job_desc_msg_t *d, part_record_t *part,
			      char **why)
{
	struct err err = { 0 };
	struct policy_request req = { .job_id = 0xfffffff1u };
	struct policy_result res = { 0 };
	struct tsize_policy c = { 0 };
	uint32_t n = tstate_nodes(tstate), *cap, *cpus, *empty;
	uint64_t *mem;
	const char *grid, *override = _desc_env(d, ENV_POLICY);
	slurmctld_resv_t *resv = NULL;
	bitstr_t *offer = NULL, *exc = NULL;
	uint8_t *usable;
	struct tsize z;
	struct tjob j = { 0 };
	bool none = false;
	int rc = SLURM_SUCCESS;

	c.p = tstate_policy(tstate, part->name, override, &none, &err);
	if (!c.p && none)
		return SLURM_SUCCESS;
	if (!c.p) {
		xstrfmtcat(*why, "select/topo: partition %s: %s", part->name,
			   err.msg);
		return ESLURM_INVALID_PARTITION_NAME;
	}
	if (!policy_isolating(c.p))
		return SLURM_SUCCESS;
	if (d->req_nodes && d->req_nodes[0]) {
		xstrfmtcat(
			*why,
			"select/topo: explicit node lists (-w) are not supported in partition %s: its policy %s chooses the nodes",
			part->name, policy_spec(c.p));
		return ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	grid = _desc_env(d, ENV_GRID);
	if (grid && *grid && (policy_grid_parse(grid, &req, &err) < 0)) {
		xstrfmtcat(*why, "select/topo: --topo-%s", err.msg);
		return ESLURM_INVALID_NODE_COUNT;
	}
	req.pattern = _desc_env(d, ENV_PATTERN);
	if (d->reservation && d->reservation[0] &&
	    !(resv = find_resv_name(d->reservation)))
		return SLURM_SUCCESS; /* slurmctld says it has none */

	/* What the job may use: the partition's nodes in any state (a
	 * drained node returns), within its reservation, less -x. */
	offer = bit_copy(part->node_bitmap);
	if (resv && resv->node_bitmap)
		bit_and(offer, resv->node_bitmap);
	if (d->exc_nodes && d->exc_nodes[0] &&
	    !TOPO_NODE_NAME2BITMAP(d->exc_nodes, true, &exc))
		bit_and_not(offer, exc);
	FREE_NULL_BITMAP(exc);
	usable = usable_from_bitmap(offer);

	j.min_nodes = (d->min_nodes != NO_VAL) ? d->min_nodes : 0;
	j.max_nodes = (d->max_nodes != NO_VAL) ? d->max_nodes : 0;
	j.num_tasks = (d->num_tasks != NO_VAL) ? d->num_tasks : 0;
	j.min_cpus = (d->min_cpus != NO_VAL) ? d->min_cpus : 0;
	j.cpus_per_task = (d->cpus_per_task != NO_VAL16) ? d->cpus_per_task : 0;
	j.ntasks_per_node =
		(d->ntasks_per_node != NO_VAL16) ? d->ntasks_per_node : 0;
	if ((j.ntasks_per_node) && !j.num_tasks && j.min_nodes)
		j.num_tasks = j.ntasks_per_node * j.min_nodes;
	if ((d->pn_min_memory != NO_VAL64) && (d->pn_min_memory & MEM_PER_CPU))
		j.mem_per_cpu = d->pn_min_memory & ~MEM_PER_CPU;
	j.overcommit = (d->overcommit != NO_VAL8) && d->overcommit;
	cap = xcalloc(n + 1, sizeof(uint32_t));
	cpus = xcalloc(n + 1, sizeof(uint32_t));
	mem = xcalloc(n + 1, sizeof(uint64_t));
	empty = xcalloc(n + 1, sizeof(uint32_t));
	node_resources(cpus, mem);
	tsize_from_job(&j, n, cpus, mem, cap, &z);
	res.nodes = xcalloc(n + 1, sizeof(uint32_t));
	c.owner = empty;
	if (tsize_place(&z, n, usable, false, &req, &res, tsize_policy_place,
			&c) == POLICY_NEVER) {
		char note[256];

		resv_explain(resv, note, sizeof(note));
		xstrfmtcat(
			*why,
			"select/topo: this job can never run isolated under %s in partition %s%s%s: %s%s",
			policy_spec(c.p), part->name,
			resv ? ", reservation " : "", resv ? resv->name : "",
			res.reason, note);
		rc = ESLURM_REQUESTED_NODE_CONFIG_UNAVAILABLE;
	}
	xfree(res.nodes);
	xfree(cap);
	xfree(cpus);
	xfree(mem);
	xfree(empty);
	xfree(usable);
	FREE_NULL_BITMAP(offer);
	return rc;
}

int submit_check(job_desc_msg_t *d, char **err_msg)
{
	char *parts, *tok, *save = NULL, *why = NULL;
	int rc = SLURM_SUCCESS, first = SLURM_SUCCESS;
	bool some_ok = false;

	slurm_mutex_lock(&topo_lock);
	if (!owner_usable_locked()) {
		slurm_mutex_unlock(&topo_lock);
		return SLURM_SUCCESS;
	}
	/* Several partitions: refused only when every one refuses. */
	parts = xstrdup(d->partition);
	tok = parts ? strtok_r(parts, ",", &save) : NULL;
	do {
		part_record_t *part = conf_part_named(tok);
		char *msg = NULL;

		if (!part) {
			some_ok = true; /* slurmctld says it has none */
			continue;
		}
		rc = _submit_check_part(d, part, &msg);
		if (rc == SLURM_SUCCESS) {
			some_ok = true;
		} else if (!why) {
			why = msg;
			first = rc;
			msg = NULL;
		}
		xfree(msg);
	} while (tok && (tok = strtok_r(NULL, ",", &save)));
	xfree(parts);
	slurm_mutex_unlock(&topo_lock);
	if (some_ok || !why) {
		xfree(why);
		return SLURM_SUCCESS;
	}
	info("%s: submission refused: %s", TOPO_NAME, why);
	if (err_msg) {
		xfree(*err_msg);
		*err_msg = why;
	} else {
		xfree(why);
	}
	return first;
}
