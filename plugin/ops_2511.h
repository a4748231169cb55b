/*****************************************************************************\
 *  ops_2511.h - the select interface from Slurm 25.05 on (25.11 and
 *  26.05 here): 12 ops (node and job select info, steps, state save and
 *  restore left the interface), 26.05 adds job_mem_reduce
 *  (TOPO_SELECT_MEM_REDUCE).  topo_select_ops_t copies
 *  src/interfaces/select.c's slurm_select_ops_t, TOPO_SELECT_SYMS its
 *  symbol names in the same order.  Included by slurm_compat.h only.
\*****************************************************************************/
#ifndef _SELECT_TOPO_OPS_2511_H
#define _SELECT_TOPO_OPS_2511_H

#include "src/interfaces/select.h"

/* src/interfaces/select.c's slurm_select_ops_t (not in a header). */
typedef struct {
	uint32_t(*plugin_id);
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
#if TOPO_SELECT_MEM_REDUCE
	void (*job_mem_reduce)(job_record_t *job_ptr);
#endif
	int (*job_fini)(job_record_t *job_ptr);
	int (*job_suspend)(job_record_t *job_ptr, bool indf_susp);
	int (*job_resume)(job_record_t *job_ptr, bool indf_susp);
	int (*nodeinfo_set_all)(void);
	int (*nodeinfo_set)(job_record_t *job_ptr);
	int (*reconfigure)(void);
} topo_select_ops_t;

#if TOPO_SELECT_MEM_REDUCE
#define TOPO_SELECT_MEM_REDUCE_SYM "select_p_job_mem_reduce",
#else
#define TOPO_SELECT_MEM_REDUCE_SYM
#endif
#define TOPO_SELECT_SYMS                                        \
	"plugin_id", "select_p_node_init", "select_p_job_test", \
		"select_p_job_begin", "select_p_job_ready",     \
		"select_p_job_expand", "select_p_job_resized",  \
		TOPO_SELECT_MEM_REDUCE_SYM "select_p_job_fini", \
		"select_p_job_suspend", "select_p_job_resume",  \
		"select_p_select_nodeinfo_set_all",             \
		"select_p_select_nodeinfo_set", "select_p_reconfigure"

#endif
