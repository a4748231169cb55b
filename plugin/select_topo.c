/*****************************************************************************\
 *  select_topo.c - node selection plugin that places jobs so that they do
 *  not share network links: the entry points.
 *
 *  select/topo wraps a stock select plugin, select/cons_tres or
 *  select/linear (topo.conf's Wrap=), the way select/cray_aries wraps
 *  other_select: every select_p_* call is delegated, except that
 *  select_p_job_test first asks the allocation policy of the job's
 *  partition (topo.conf) for an isolated node set among the candidate
 *  nodes and narrows the bitmap to it (job_test.c).  The plugin keeps the
 *  owner (job id) of every node, from job_begin/job_fini/job_resized/
 *  job_expand and from the job list after a restart or reconfiguration,
 *  so that the policy sees the truth (owner.c).
 *
 *  Every error path logs and either falls back to the wrapped plugin or
 *  holds the job pending with a reason: the plugin never takes slurmctld
 *  down except for a bad topo.conf at start-up (fatal with file:line).
 *  See select_topo(8); the files and what they share: select_topo.h.
\*****************************************************************************/

#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"
#include "plugin/slurmd_check.h"

static const char *wrap_syms[] = { TOPO_SELECT_SYMS };
static plugin_context_t *wrap_context = NULL;
topo_select_ops_t wrap;
/* topo.conf's Wrap=, a static string of topo_conf.c; it cannot change
 * while the process runs (see conf_load). */
const char *wrap_type = "select/cons_tres";

/*
 * State of the topology side, slurmctld only.  topo_lock protects it;
 * slurmctld calls the select plugin under its own locks, the mutex only
 * guards against the few calls made without the job write lock.
 */
pthread_mutex_t topo_lock = PTHREAD_MUTEX_INITIALIZER;
struct tstate *tstate = NULL;
uint32_t *owner = NULL;
char *conf_path = NULL;
bool tracking = false;
struct topo_claim claim;

/* The plugin is compiled with -fvisibility=hidden: what follows is Slurm's
 * plugin interface (plugin_*, init, fini, select_p_*) and the globals
 * below, visible; select_topo.map exports nothing else. */
#pragma GCC visibility push(default)

/*
 * These are defined here so that the plugin also loads into slurmd and
 * the client commands, which do not define them (the same as
 * select/cons_tres does).  In slurmctld the executable's definitions take
 * precedence.
 */
slurm_conf_t slurm_conf;
node_record_t **node_record_table_ptr;
list_t *job_list;
list_t *part_list;
int node_record_count;
time_t last_job_update;

const char plugin_name[] = "Topology-aware interference-free selection";
/* SelectType=select/topo_cons_tres: Slurm tests the SelectType for
 * "cons_tres" where it tests no plugin id (default SelectTypeParameters,
 * MaxNodeCount, dynamic nodes, heterogeneous GRES): the name gives
 * select/topo cons_tres's behaviour there (select_topo(8), SLURM
 * VERSIONS).  Messages say select/topo (TOPO_NAME). */
const char plugin_type[] = "select/topo_cons_tres";
/* Up to 24.11 an id of its own; from 25.05 the wrapped plugin's, set in
 * init(): slurmctld tests the id alone for cons_tres (slurm_compat.h). */
#if TOPO_ID_OF_WRAPPED
uint32_t plugin_id = TOPO_PLUGIN_ID;
#else
const uint32_t plugin_id = TOPO_PLUGIN_ID;
#endif
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (wrap_context)
		return SLURM_SUCCESS;
	wrap_type = conf_choose_wrap();
	conf_check_params();
	slurmd_check_cores();
	if (!(wrap_context = plugin_context_create("select", wrap_type,
						   (void **)&wrap, wrap_syms,
						   sizeof(wrap_syms)))) {
		error("%s: cannot load %s", TOPO_NAME, wrap_type);
		return SLURM_ERROR;
	}
#if TOPO_ID_OF_WRAPPED
	plugin_id = *wrap.plugin_id;
#endif
	if (conf_ctld_selected())
		info("%s: loaded, wrapping %s", TOPO_NAME, wrap_type);
	else
		debug("%s: loaded, wrapping %s", TOPO_NAME, wrap_type);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	slurm_mutex_lock(&topo_lock);
	tstate_destroy(tstate);
	tstate = NULL;
	xfree(owner);
	xfree(conf_path);
	xfree(claim.ranks);
	claim.nranks = 0;
	slurm_mutex_unlock(&topo_lock);
	/* the threads run the plugin's code: stop them before unloading */
	record_stop();
	if (wrap_context) {
		plugin_context_destroy(wrap_context);
		wrap_context = NULL;
	}
	return SLURM_SUCCESS;
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     list_t *preemptee_candidates,
			     list_t **preemptee_job_list, TOPO_JOB_TEST_TAIL)
{
	const struct topo_jt_tail tail = TOPO_JT_TAIL_INIT;

	return job_test(job_ptr, bitmap, min_nodes, max_nodes, req_nodes, mode,
			&tail);
}

/* The submission check job_submit/topo finds here (submit.c). */
extern int select_p_topo_submit_check(job_desc_msg_t *d, char **err_msg)
{
	return submit_check(d, err_msg);
}

extern int select_p_node_init(void)
{
	int rc = (*(wrap.node_init))();

	if (running_in_slurmctld())
		conf_load();
	return rc;
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	int rc = (*(wrap.job_begin))(job_ptr);

	slurm_mutex_lock(&topo_lock);
	if (owner_usable_locked()) {
		owner_set_locked(job_ptr, true);
		if (rc == SLURM_SUCCESS) {
			reason_comment(job_ptr, NULL);
			record_ranks_locked(job_ptr);
			record_evaluate_locked(job_ptr);
			owner_protect_locked(job_ptr);
		}
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_ready(job_record_t *job_ptr)
{
	return (*(wrap.job_ready))(job_ptr);
}

extern int select_p_job_expand(job_record_t *from_job_ptr,
			       job_record_t *to_job_ptr)
{
	int rc = (*(wrap.job_expand))(from_job_ptr, to_job_ptr);

	slurm_mutex_lock(&topo_lock);
	owner_rebuild_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_resized(job_record_t *job_ptr, node_record_t *node_ptr)
{
	int rc = (*(wrap.job_resized))(job_ptr, node_ptr);

	slurm_mutex_lock(&topo_lock);
	if (owner_usable_locked() && node_ptr) {
		uint32_t t = tstate_s2t(tstate, node_ptr->index);

		if ((t != TOPO_NONE) && (owner[t] == job_ptr->job_id)) {
			struct err err = { 0 };
			uint32_t *nodes, n;

			owner[t] = POLICY_FREE;
			nodes = owner_nodes_locked(job_ptr->job_id, &n);
			if (tracking &&
			    (tstate_track_add(tstate, job_ptr->job_id, nodes, n,
					      &err) < 0))
				error("%s: %pJ: %s [%s]", TOPO_NAME, job_ptr,
				      err.msg, err_kind(&err));
			xfree(nodes);
			owner_protect_locked(job_ptr);
		}
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

#if TOPO_SELECT_MEM_REDUCE
/* 26.05: the job's per-node memory tracking reduced (it shrank). */
extern void select_p_job_mem_reduce(job_record_t *job_ptr)
{
	(*(wrap.job_mem_reduce))(job_ptr);
}
#endif

extern int select_p_job_fini(job_record_t *job_ptr)
{
	int rc = (*(wrap.job_fini))(job_ptr);

	slurm_mutex_lock(&topo_lock);
	if (owner_usable_locked()) {
		uint32_t i, n = tstate_nodes(tstate);

		/* By id, not by bitmap: the bitmap may already have lost
		 * nodes (resize, node failure). */
		for (i = 0; i < n; i++)
			if (owner[i] == job_ptr->job_id)
				owner[i] = POLICY_FREE;
		tstate_track_remove(tstate, job_ptr->job_id);
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

extern int select_p_job_suspend(job_record_t *job_ptr, bool indf_susp)
{
	return (*(wrap.job_suspend))(job_ptr, indf_susp);
}

extern int select_p_job_resume(job_record_t *job_ptr, bool indf_susp)
{
	return (*(wrap.job_resume))(job_ptr, indf_susp);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*(wrap.nodeinfo_set_all))();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*(wrap.nodeinfo_set))(job_ptr);
}

extern int select_p_reconfigure(void)
{
	int rc = (*(wrap.reconfigure))();

	slurm_mutex_lock(&topo_lock);
	conf_remap_locked();
	owner_rebuild_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

/* Every select_p_* against the ops table entry it fills (Slurm's own
 * slurm_select_ops_t in 22.05, a copy of select.c's from 24.11), and
 * job_test against Slurm's declaration of select_g_job_test, which has
 * the same arguments.  ops_2411.c checks the ops 25.05 removed. */
TOPO_CHECK_SELECT_P(node_init, node_init);
TOPO_CHECK_SELECT_P(job_test, job_test);
TOPO_CHECK_SELECT_P(job_begin, job_begin);
TOPO_CHECK_SELECT_P(job_ready, job_ready);
TOPO_CHECK_SELECT_P(job_expand, job_expand);
TOPO_CHECK_SELECT_P(job_resized, job_resized);
TOPO_CHECK_SELECT_P(job_fini, job_fini);
TOPO_CHECK_SELECT_P(job_suspend, job_suspend);
TOPO_CHECK_SELECT_P(job_resume, job_resume);
TOPO_CHECK_SELECT_P(nodeinfo_set_all, select_nodeinfo_set_all);
TOPO_CHECK_SELECT_P(nodeinfo_set, select_nodeinfo_set);
TOPO_CHECK_SELECT_P(reconfigure, reconfigure);
#if TOPO_SELECT_MEM_REDUCE
TOPO_CHECK_SELECT_P(job_mem_reduce, job_mem_reduce);
#endif
_Static_assert(__builtin_types_compatible_p(__typeof__(&select_g_job_test),
					    __typeof__(&select_p_job_test)),
	       "select_p_job_test differs from Slurm's select_g_job_test");
