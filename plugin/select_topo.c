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
const char plugin_type[] = "select/topo";
const uint32_t plugin_id = 177;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

extern int init(void)
{
	if (wrap_context)
		return SLURM_SUCCESS;
	wrap_type = conf_choose_wrap();
	conf_check_params();
	if (!(wrap_context = plugin_context_create("select", wrap_type,
						   (void **)&wrap, wrap_syms,
						   sizeof(wrap_syms)))) {
		error("%s: cannot load %s", plugin_type, wrap_type);
		return SLURM_ERROR;
	}
	if (conf_ctld_selected())
		info("%s: loaded, wrapping %s", plugin_type, wrap_type);
	else
		debug("%s: loaded, wrapping %s", plugin_type, wrap_type);
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

extern int select_p_state_save(char *dir_name)
{
	return (*(wrap.state_save))(dir_name);
}

extern int select_p_state_restore(char *dir_name)
{
	return (*(wrap.state_restore))(dir_name);
}

extern int select_p_job_init(list_t *jobs)
{
	int rc = (*(wrap.job_init))(jobs);

	slurm_mutex_lock(&topo_lock);
	owner_rebuild_locked(jobs);
	slurm_mutex_unlock(&topo_lock);
	return rc;
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
			struct err err = { { 0 } };
			uint32_t *nodes, n;

			owner[t] = POLICY_FREE;
			nodes = owner_nodes_locked(job_ptr->job_id, &n);
			if (tracking &&
			    (tstate_track_add(tstate, job_ptr->job_id, nodes, n,
					      &err) < 0))
				error("%s: %pJ: %s", plugin_type, job_ptr,
				      err.msg);
			xfree(nodes);
			owner_protect_locked(job_ptr);
		}
	}
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

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

extern bitstr_t *select_p_step_pick_nodes(job_record_t *job_ptr,
					  select_jobinfo_t *jobinfo,
					  uint32_t node_count,
					  bitstr_t **avail_nodes)
{
	return (*(wrap.step_pick_nodes))(job_ptr, jobinfo, node_count,
					 avail_nodes);
}

extern int select_p_step_start(step_record_t *step_ptr)
{
	return (*(wrap.step_start))(step_ptr);
}

extern int select_p_step_finish(step_record_t *step_ptr, bool killing_step)
{
	return (*(wrap.step_finish))(step_ptr, killing_step);
}

extern int select_p_select_nodeinfo_pack(select_nodeinfo_t *nodeinfo,
					 buf_t *buffer,
					 uint16_t protocol_version)
{
	return (*(wrap.nodeinfo_pack))(nodeinfo, buffer, protocol_version);
}

extern int select_p_select_nodeinfo_unpack(select_nodeinfo_t **nodeinfo,
					   buf_t *buffer,
					   uint16_t protocol_version)
{
	return (*(wrap.nodeinfo_unpack))(nodeinfo, buffer, protocol_version);
}

extern select_nodeinfo_t *select_p_select_nodeinfo_alloc(void)
{
	return (*(wrap.nodeinfo_alloc))();
}

extern int select_p_select_nodeinfo_free(select_nodeinfo_t *nodeinfo)
{
	return (*(wrap.nodeinfo_free))(nodeinfo);
}

extern int select_p_select_nodeinfo_set_all(void)
{
	return (*(wrap.nodeinfo_set_all))();
}

extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	return (*(wrap.nodeinfo_set))(job_ptr);
}

extern int select_p_select_nodeinfo_get(select_nodeinfo_t *nodeinfo,
					enum select_nodedata_type dinfo,
					enum node_states state, void *data)
{
	return (*(wrap.nodeinfo_get))(nodeinfo, dinfo, state, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_alloc(void)
{
	return (*(wrap.jobinfo_alloc))();
}

extern int select_p_select_jobinfo_free(select_jobinfo_t *jobinfo)
{
	return (*(wrap.jobinfo_free))(jobinfo);
}

extern int select_p_select_jobinfo_set(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*(wrap.jobinfo_set))(jobinfo, data_type, data);
}

extern int select_p_select_jobinfo_get(select_jobinfo_t *jobinfo,
				       enum select_jobdata_type data_type,
				       void *data)
{
	return (*(wrap.jobinfo_get))(jobinfo, data_type, data);
}

extern select_jobinfo_t *select_p_select_jobinfo_copy(select_jobinfo_t *jobinfo)
{
	return (*(wrap.jobinfo_copy))(jobinfo);
}

extern int select_p_select_jobinfo_pack(select_jobinfo_t *jobinfo,
					buf_t *buffer,
					uint16_t protocol_version)
{
	return (*(wrap.jobinfo_pack))(jobinfo, buffer, protocol_version);
}

extern int select_p_select_jobinfo_unpack(select_jobinfo_t **jobinfo,
					  buf_t *buffer,
					  uint16_t protocol_version)
{
	return (*(wrap.jobinfo_unpack))(jobinfo, buffer, protocol_version);
}

extern int select_p_get_info_from_plugin(enum select_plugindata_info dinfo,
					 job_record_t *job_ptr, void *data)
{
	return (*(wrap.get_info_from_plugin))(dinfo, job_ptr, data);
}

extern int select_p_reconfigure(void)
{
	int rc = (*(wrap.reconfigure))();

	slurm_mutex_lock(&topo_lock);
	owner_rebuild_locked(job_list);
	slurm_mutex_unlock(&topo_lock);
	return rc;
}

/*
 * Slurm 22.05 only (slurm_compat.h): the calls 24.11 dropped.  24.11 has
 * no select_p_resv_test: it asks job_test for a reservation's nodes, with
 * a stand-in job (_resv_job_test above).
 */
#if TOPO_SELECT_LEGACY
extern int select_p_job_signal(job_record_t *job_ptr, int signal)
{
	return (*(wrap.job_signal))(job_ptr, signal);
}

extern char *select_p_select_jobinfo_sprint(select_jobinfo_t *jobinfo,
					    char *buf, size_t size, int mode)
{
	return (*(wrap.jobinfo_sprint))(jobinfo, buf, size, mode);
}

extern char *select_p_select_jobinfo_xstrdup(select_jobinfo_t *jobinfo,
					     int mode)
{
	return (*(wrap.jobinfo_xstrdup))(jobinfo, mode);
}

extern int select_p_update_node_config(int index)
{
	return (*(wrap.update_node_config))(index);
}

extern bitstr_t *select_p_resv_test(resv_desc_msg_t *resv_desc_ptr,
				    uint32_t node_cnt, bitstr_t *avail_bitmap,
				    bitstr_t **core_bitmap)
{
	bitstr_t *ret = NULL;

	/* Core reservations (CoreCnt=) are the wrapped plugin's. */
	if (node_cnt && avail_bitmap && !resv_desc_ptr->core_cnt &&
	    !(core_bitmap && *core_bitmap)) {
		bool refuse = false;

		slurm_mutex_lock(&topo_lock);
		if (owner_usable_locked())
			ret = resv_place_locked(resv_desc_ptr, node_cnt,
						avail_bitmap, &refuse);
		slurm_mutex_unlock(&topo_lock);
		if (ret) {
			bit_and(avail_bitmap, ret);
			return ret;
		}
		if (refuse)
			return NULL;
	}
	return (*(wrap.resv_test))(resv_desc_ptr, node_cnt, avail_bitmap,
				   core_bitmap);
}
#endif

/* Every select_p_* against the ops table entry it fills (Slurm's own
 * slurm_select_ops_t in 22.05), and job_test against Slurm's declaration
 * of select_g_job_test, which has the same arguments. */
TOPO_CHECK_SELECT_P(state_save, state_save);
TOPO_CHECK_SELECT_P(state_restore, state_restore);
TOPO_CHECK_SELECT_P(job_init, job_init);
TOPO_CHECK_SELECT_P(node_init, node_init);
TOPO_CHECK_SELECT_P(job_test, job_test);
TOPO_CHECK_SELECT_P(job_begin, job_begin);
TOPO_CHECK_SELECT_P(job_ready, job_ready);
TOPO_CHECK_SELECT_P(job_expand, job_expand);
TOPO_CHECK_SELECT_P(job_resized, job_resized);
TOPO_CHECK_SELECT_P(job_fini, job_fini);
TOPO_CHECK_SELECT_P(job_suspend, job_suspend);
TOPO_CHECK_SELECT_P(job_resume, job_resume);
TOPO_CHECK_SELECT_P(step_pick_nodes, step_pick_nodes);
TOPO_CHECK_SELECT_P(step_start, step_start);
TOPO_CHECK_SELECT_P(step_finish, step_finish);
TOPO_CHECK_SELECT_P(nodeinfo_pack, select_nodeinfo_pack);
TOPO_CHECK_SELECT_P(nodeinfo_unpack, select_nodeinfo_unpack);
TOPO_CHECK_SELECT_P(nodeinfo_alloc, select_nodeinfo_alloc);
TOPO_CHECK_SELECT_P(nodeinfo_free, select_nodeinfo_free);
TOPO_CHECK_SELECT_P(nodeinfo_set_all, select_nodeinfo_set_all);
TOPO_CHECK_SELECT_P(nodeinfo_set, select_nodeinfo_set);
TOPO_CHECK_SELECT_P(nodeinfo_get, select_nodeinfo_get);
TOPO_CHECK_SELECT_P(jobinfo_alloc, select_jobinfo_alloc);
TOPO_CHECK_SELECT_P(jobinfo_free, select_jobinfo_free);
TOPO_CHECK_SELECT_P(jobinfo_set, select_jobinfo_set);
TOPO_CHECK_SELECT_P(jobinfo_get, select_jobinfo_get);
TOPO_CHECK_SELECT_P(jobinfo_copy, select_jobinfo_copy);
TOPO_CHECK_SELECT_P(jobinfo_pack, select_jobinfo_pack);
TOPO_CHECK_SELECT_P(jobinfo_unpack, select_jobinfo_unpack);
TOPO_CHECK_SELECT_P(get_info_from_plugin, get_info_from_plugin);
TOPO_CHECK_SELECT_P(reconfigure, reconfigure);
#if TOPO_SELECT_LEGACY
TOPO_CHECK_SELECT_P(job_signal, job_signal);
TOPO_CHECK_SELECT_P(jobinfo_sprint, select_jobinfo_sprint);
TOPO_CHECK_SELECT_P(jobinfo_xstrdup, select_jobinfo_xstrdup);
TOPO_CHECK_SELECT_P(update_node_config, update_node_config);
TOPO_CHECK_SELECT_P(resv_test, resv_test);
#endif
_Static_assert(__builtin_types_compatible_p(__typeof__(&select_g_job_test),
					    __typeof__(&select_p_job_test)),
	       "select_p_job_test differs from Slurm's select_g_job_test");
