/*****************************************************************************\
 *  resv.c - reservations of partitions with an isolating policy: the
 *  nodes the policy gives a job of that size, rounded up to whole
 *  switches or groups (22.05's resv_test; from 24.11 a stand-in job in
 *  will-run mode).
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

/* The partition a reservation is for: its own, else the default one. */
static const char *_resv_partition(resv_desc_msg_t *resv)
{
	part_record_t *part;

	if (resv->partition)
		return resv->partition;
	part = conf_part_named(NULL);
	return part ? part->name : NULL;
}

/*
 * A whole-node reservation of NODE_CNT nodes for a partition with an
 * isolating policy: the nodes the policy gives a job of that size on an
 * empty machine among AVAIL (whole leaves, pods, groups, blocks as the
 * policy rounds), so that an isolated job of that size fits it.  NULL
 * when the policy does not apply or cannot place it (the wrapped plugin
 * chooses then).
 */
bitstr_t *resv_place_locked(resv_desc_msg_t *resv, uint32_t node_cnt,
			    bitstr_t *avail, bool *refuse)
{
	struct err err = { 0 };
	const char *part = _resv_partition(resv);
	uint32_t n = tstate_nodes(tstate);
	struct policy_request req = { .job_id = 0xfffffff0u,
				      .nodes = node_cnt };
	struct policy_result res = { 0 };
	const struct policy *p;
	uint32_t *empty;
	uint8_t *usable;
	bitstr_t *ret = NULL;
	int from = -1; /* policy_resv_level of the placement */
	bool none = false;
	char *names;

	p = tstate_policy(tstate, part, NULL, &none, &err);
	if (!p || !policy_isolating(p) || (node_cnt > n))
		return NULL;
	/* Nodes for a reservation that exists: Slurm replacing its down or
	 * drained nodes, or an update adding some.  Nodes added one by one
	 * would break the alignment isolated jobs need: it keeps its nodes
	 * (its jobs wait for them to return). */
	if (resv->name && find_resv_name(resv->name)) {
		info("%s: reservation %s: not adding %u nodes elsewhere under %s (its jobs need its nodes aligned); it keeps the nodes it has",
		     TOPO_NAME, resv->name, node_cnt, policy_spec(p));
		*refuse = true;
		return NULL;
	}
	empty = xcalloc(n + 1, sizeof(uint32_t));
	usable = usable_from_bitmap(avail);
	res.nodes = xcalloc(n + 1, sizeof(uint32_t));
	{
		struct policy_view v = { .owner = empty, .usable = usable };
		uint8_t *unit = xcalloc(n + 1, 1);
		uint32_t *placed = xcalloc(n + 1, sizeof(uint32_t)), np, t;
		int level;

		if (policy_place(p, &v, &req, &res) == POLICY_PLACED) {
			/* The placement, else it rounded up to whole switches,
			 * else to whole groups (pods): the first of these in
			 * which the policy places the job alone, from the
			 * units the policy needs whole (policy_resv_level:
			 * fattree-pods' rule=links shares partial leaves and
			 * pods with jobs that cross nothing of the job's;
			 * above groups, none keeps out every job that could
			 * make it wait: groups, and an error in the log). */
			np = res.n;
			memcpy(placed, res.nodes, np * sizeof(uint32_t));
			from = policy_resv_level(p, placed, np);
			for (level = from > 1 ? 1 : from; !ret && level <= 1;
			     level++) {
				struct policy_view in = { .owner = empty,
							  .usable = unit };

				if (level < 0) {
					memset(unit, 0, n);
					for (t = 0; t < np; t++)
						unit[placed[t]] = 1;
				} else {
					tstate_expand_units(tstate, usable,
							    placed, np, level,
							    unit);
				}
				if (policy_place(p, &in, &req, &res) !=
				    POLICY_PLACED)
					continue;
				res.n = 0;
				for (t = 0; t < n; t++)
					if (unit[t])
						res.nodes[res.n++] = t;
				ret = bitmap_from_result(&res);
			}
			if (!ret)
				snprintf(
					res.reason, sizeof(res.reason),
					"no whole switches or groups around its placement hold it");
		}
		xfree(placed);
		xfree(unit);
	}
	if (ret) {
		names = bitmap2node_name(ret);
		info("%s: reservation %s: %u nodes placed as %s places a job of that size: %s (%u nodes)",
		     TOPO_NAME, resv->name ? resv->name : "(new)", node_cnt,
		     policy_spec(p), names, bit_set_count(ret));
		if (from > 1)
			error("%s: reservation %s: under %s and %s an isolated job in it may still wait for jobs outside it (Valiant detours through its groups, or units above pods): no whole switches or groups keep them out",
			      TOPO_NAME, resv->name ? resv->name : "(new)",
			      policy_spec(p),
			      routing_spec(tstate_routing(tstate)));
		xfree(names);
	} else {
		info("%s: reservation %s: %s cannot place %u nodes among those available (%s): %s chooses them",
		     TOPO_NAME, resv->name ? resv->name : "(new)",
		     policy_spec(p), node_cnt, res.reason, wrap_type);
	}
	xfree(res.nodes);
	xfree(usable);
	xfree(empty);
	return ret;
}

/* slurmctld's reservations; weak: absent in slurmd and the commands. */
extern list_t *resv_list __attribute__((weak));

/*
 * The existing reservation a 24.11 stand-in job is for, if any: when
 * slurmctld replaces or adds nodes to a reservation, the stand-in starts
 * when the reservation does and has no time limit (its request has no
 * duration); a new one has a duration, unless it was given an end time
 * and starts the very second an existing one does (then it is taken for
 * that one and refused: select_topo(8)).
 */
static slurmctld_resv_t *_standin_resv(job_record_t *job_ptr)
{
	slurmctld_resv_t *r, *found = NULL;
	list_itr_t *it;

	if (!&resv_list || !resv_list || !job_ptr->details ||
	    (job_ptr->time_limit != NO_VAL))
		return NULL;
	it = list_iterator_create(resv_list);
	while ((r = list_next(it)))
		if (r->node_bitmap &&
		    (r->start_time == job_ptr->details->begin_time)) {
			found = r;
			break;
		}
	list_iterator_destroy(it);
	return found;
}

/*
 * 24.11: slurmctld chooses a reservation's nodes by calling job_test in
 * will-run mode for a stand-in job (job id 0, no preemptee list; see
 * TOPO_RESV_STANDIN).  The same placement as 22.05's resv_test, into
 * BITMAP; the stand-in carries no reservation name: _standin_resv finds
 * the reservation Slurm replaces or adds nodes to.
 * SLURM_SUCCESS or SLURM_ERROR when placed or refused, 1 to delegate.
 */
int resv_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t node_cnt)
{
	slurmctld_resv_t *old = _standin_resv(job_ptr);
	resv_desc_msg_t resv = { .partition = job_ptr->partition,
				 .name = old ? old->name : NULL };
	bitstr_t *ret = NULL;
	bool refuse = false;

	/* Core reservations (CoreCnt=, TRES=cpu=) are the wrapped plugin's:
	 * an existing one by its flags, a new one by its stand-in's core
	 * request (an existing one's stand-in has its TRES string too). */
	if (!node_cnt || (old ? !(old->ctld_flags & RESV_CTLD_FULL_NODE) :
				(job_ptr->details && job_ptr->details->mc_ptr)))
		return 1;
	slurm_mutex_lock(&topo_lock);
	if (owner_usable_locked())
		ret = resv_place_locked(&resv, node_cnt, bitmap, &refuse);
	slurm_mutex_unlock(&topo_lock);
	if (ret) {
		bit_and(bitmap, ret);
		FREE_NULL_BITMAP(ret);
		return SLURM_SUCCESS;
	}
	return refuse ? SLURM_ERROR : 1;
}

/*
 * From 25.11 slurmctld chooses the nodes of a whole-node reservation with
 * Flags=IGNORE_JOBS itself, the first nodes in order, without asking the
 * select plugin (reservation.c's _resv_select), so its nodes need not be
 * the whole switches or groups an isolated job of its size needs (given
 * Nodes=, RESERVE_FLAG_SPEC_NODES, they are the administrator's).
 */
bool resv_unasked(const slurmctld_resv_t *resv)
{
	return resv && TOPO_RESV_IGN_JOBS_UNASKED &&
	       (resv->flags & RESERVE_FLAG_IGN_JOBS) &&
	       !(resv->flags & RESERVE_FLAG_SPEC_NODES) &&
	       (resv->ctld_flags & RESV_CTLD_FULL_NODE);
}

void resv_explain(const slurmctld_resv_t *resv, char *note, size_t len)
{
	static uint32_t said[64];
	uint32_t k;

	if (len)
		note[0] = '\0';
	if (!resv_unasked(resv))
		return;
	snprintf(
		note, len,
		"; reservation %s has Flags=IGNORE_JOBS: slurmctld chose its nodes itself, without the policy: create it without IGNORE_JOBS, or give it whole leaf switches (Nodes=)",
		resv->name);
	k = resv->resv_id % (sizeof(said) / sizeof(said[0]));
	if (said[k] == resv->resv_id + 1)
		return;
	said[k] = resv->resv_id + 1;
	error("%s: reservation %s (Flags=IGNORE_JOBS): its nodes %s were chosen by slurmctld alone (Slurm 25.11 on asks no select plugin for them) and do not hold every isolated job of its size: create it without IGNORE_JOBS, or with Nodes= of whole leaf switches or groups",
	      TOPO_NAME, resv->name, resv->node_list);
}
