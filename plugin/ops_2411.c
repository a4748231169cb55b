/*****************************************************************************\
 *  ops_2411.c - the select calls Slurm 22.05 and 24.11 make and 25.05
 *  removed (slurm_compat.h: TOPO_SELECT_OPS31): state save and restore,
 *  job_init, steps, node and job select info, get_info_from_plugin, and
 *  22.05's five more (TOPO_SELECT_LEGACY).  All are passed to the wrapped
 *  plugin; job_init also rebuilds node ownership from the job list and
 *  22.05's resv_test places reservations by the partition's policy.
\*****************************************************************************/

#include "config.h"

#include "slurm/slurm.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"

#if TOPO_SELECT_OPS31

/* Compiled with -fvisibility=hidden: these are Slurm's interface. */
#pragma GCC visibility push(default)

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

/*
 * Slurm 22.05 only: the calls 24.11 dropped.  24.11 has no
 * select_p_resv_test: it asks job_test for a reservation's nodes, with a
 * stand-in job (resv_job_test in resv.c).
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

/* Each against the ops table entry it fills (slurm_compat.h). */
TOPO_CHECK_SELECT_P(state_save, state_save);
TOPO_CHECK_SELECT_P(state_restore, state_restore);
TOPO_CHECK_SELECT_P(job_init, job_init);
TOPO_CHECK_SELECT_P(step_pick_nodes, step_pick_nodes);
TOPO_CHECK_SELECT_P(step_start, step_start);
TOPO_CHECK_SELECT_P(step_finish, step_finish);
TOPO_CHECK_SELECT_P(nodeinfo_pack, select_nodeinfo_pack);
TOPO_CHECK_SELECT_P(nodeinfo_unpack, select_nodeinfo_unpack);
TOPO_CHECK_SELECT_P(nodeinfo_alloc, select_nodeinfo_alloc);
TOPO_CHECK_SELECT_P(nodeinfo_free, select_nodeinfo_free);
TOPO_CHECK_SELECT_P(nodeinfo_get, select_nodeinfo_get);
TOPO_CHECK_SELECT_P(jobinfo_alloc, select_jobinfo_alloc);
TOPO_CHECK_SELECT_P(jobinfo_free, select_jobinfo_free);
TOPO_CHECK_SELECT_P(jobinfo_set, select_jobinfo_set);
TOPO_CHECK_SELECT_P(jobinfo_get, select_jobinfo_get);
TOPO_CHECK_SELECT_P(jobinfo_copy, select_jobinfo_copy);
TOPO_CHECK_SELECT_P(jobinfo_pack, select_jobinfo_pack);
TOPO_CHECK_SELECT_P(jobinfo_unpack, select_jobinfo_unpack);
TOPO_CHECK_SELECT_P(get_info_from_plugin, get_info_from_plugin);
#if TOPO_SELECT_LEGACY
TOPO_CHECK_SELECT_P(job_signal, job_signal);
TOPO_CHECK_SELECT_P(jobinfo_sprint, select_jobinfo_sprint);
TOPO_CHECK_SELECT_P(jobinfo_xstrdup, select_jobinfo_xstrdup);
TOPO_CHECK_SELECT_P(update_node_config, update_node_config);
TOPO_CHECK_SELECT_P(resv_test, resv_test);
#endif

#endif /* TOPO_SELECT_OPS31 */
