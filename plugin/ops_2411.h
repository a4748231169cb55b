/*****************************************************************************\
 *  ops_2411.h - the select interface of Slurm 24.11 (31 ops: 22.05's less
 *  job_signal, jobinfo_sprint, jobinfo_xstrdup, update_node_config and
 *  resv_test; job_test takes resv_exc_ptr and will_run_ptr), for
 *  select/topo: the ops table is no longer public, so topo_select_ops_t
 *  copies src/interfaces/select.c's and TOPO_SELECT_SYMS its symbol
 *  names in the same order.  Included by slurm_compat.h only.
\*****************************************************************************/
#ifndef _SELECT_TOPO_OPS_2411_H
#define _SELECT_TOPO_OPS_2411_H

#include "src/interfaces/select.h"

/* src/interfaces/select.c's slurm_select_ops_t (not in a header). */
typedef struct {
	uint32_t(*plugin_id);
	int (*state_save)(char *dir_name);
	int (*state_restore)(char *dir_name);
	int (*job_init)(list_t *job_list);
	int (*node_init)(void);
	int (*job_test)(job_record_t *job_ptr, bitstr_t *bitmap,
			uint32_t min_nodes, uint32_t max_nodes,
			uint32_t req_nodes, uint16_t mode,
			list_t *preeemptee_candidates,
			list_t **preemptee_job_list, resv_exc_t *resv_exc_ptr,
			will_run_data_t *will_run_ptr);
	int (*job_begin)(job_record_t *job_ptr);
	int (*job_ready)(job_record_t *job_ptr);
	int (*job_expand)(job_record_t *from_job_ptr, job_record_t *to_job_ptr);
	int (*job_resized)(job_record_t *job_ptr, node_record_t *node_ptr);
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	bitstr_t *(*step_pick_nodes)(job_record_t *job_ptr,
				     select_jobinfo_t *step_jobinfo,
				     uint32_t node_count,
				     bitstr_t **avail_nodes);
	int (*step_start)(step_record_t *step_ptr);
	int (*step_finish)(step_record_t *step_ptr, bool killing_step);
	int (*nodeinfo_pack)(select_nodeinfo_t *nodeinfo, buf_t *buffer,
			     uint16_t protocol_version);
	int (*nodeinfo_unpack)(select_nodeinfo_t **nodeinfo, buf_t *buffer,
			       uint16_t protocol_version);
	select_nodeinfo_t *(*nodeinfo_alloc)(void);
	int (*nodeinfo_free)(select_nodeinfo_t *nodeinfo);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*nodeinfo_get)(select_nodeinfo_t *nodeinfo,
			    enum select_nodedata_type dinfo,
			    enum node_states state, void *data);
	select_jobinfo_t *(*jobinfo_alloc)(void);
	int (*jobinfo_free)(select_jobinfo_t *jobinfo);
	int (*jobinfo_set)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	int (*jobinfo_get)(select_jobinfo_t *jobinfo,
			   enum select_jobdata_type data_type, void *data);
	select_jobinfo_t *(*jobinfo_copy)(select_jobinfo_t *jobinfo);
	int (*jobinfo_pack)(select_jobinfo_t *jobinfo, buf_t *buffer,
			    uint16_t protocol_version);
	int (*jobinfo_unpack)(select_jobinfo_t **jobinfo_pptr, buf_t *buffer,
			      uint16_t protocol_version);
	int (*get_info_from_plugin)(enum select_plugindata_info dinfo,
				    job_record_t *job_ptr, void *data);
	int (*reconfigure)(void);
} topo_select_ops_t;

#define TOPO_SELECT_SYMS                                                       \
	"plugin_id", "select_p_state_save", "select_p_state_restore",          \
		"select_p_job_init", "select_p_node_init",                     \
		"select_p_job_test", "select_p_job_begin",                     \
		"select_p_job_ready", "select_p_job_expand",                   \
		"select_p_job_resized", "select_p_job_fini",                   \
		"select_p_job_suspend", "select_p_job_resume",                 \
		"select_p_step_pick_nodes", "select_p_step_start",             \
		"select_p_step_finish", "select_p_select_nodeinfo_pack",       \
		"select_p_select_nodeinfo_unpack",                             \
		"select_p_select_nodeinfo_alloc",                              \
		"select_p_select_nodeinfo_free",                               \
		"select_p_select_nodeinfo_set_all",                            \
		"select_p_select_nodeinfo_set",                                \
		"select_p_select_nodeinfo_get",                                \
		"select_p_select_jobinfo_alloc",                               \
		"select_p_select_jobinfo_free", "select_p_select_jobinfo_set", \
		"select_p_select_jobinfo_get", "select_p_select_jobinfo_copy", \
		"select_p_select_jobinfo_pack",                                \
		"select_p_select_jobinfo_unpack",                              \
		"select_p_get_info_from_plugin", "select_p_reconfigure"

#endif
