/*****************************************************************************\
 *  ops_2205.h - the select interface of Slurm 22.05 (36 ops), for
 *  select/topo: the wrapped plugin's ops table is Slurm's own
 *  slurm_select_ops_t (src/common/select.h) and TOPO_SELECT_SYMS its
 *  symbol names in the same order (src/common/select.c's
 *  node_select_syms).  Included by slurm_compat.h only.
\*****************************************************************************/
#ifndef _SELECT_TOPO_OPS_2205_H
#define _SELECT_TOPO_OPS_2205_H

#include "src/common/select.h"
#include "src/common/slurm_selecttype_info.h"

typedef slurm_select_ops_t topo_select_ops_t;

#define TOPO_SELECT_SYMS                                                       \
	"plugin_id", "select_p_state_save", "select_p_state_restore",          \
		"select_p_job_init", "select_p_node_init",                     \
		"select_p_job_test", "select_p_job_begin",                     \
		"select_p_job_ready", "select_p_job_expand",                   \
		"select_p_job_resized", "select_p_job_signal",                 \
		"select_p_job_fini", "select_p_job_suspend",                   \
		"select_p_job_resume", "select_p_step_pick_nodes",             \
		"select_p_step_start", "select_p_step_finish",                 \
		"select_p_select_nodeinfo_pack",                               \
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
		"select_p_select_jobinfo_sprint",                              \
		"select_p_select_jobinfo_xstrdup",                             \
		"select_p_get_info_from_plugin",                               \
		"select_p_update_node_config", "select_p_reconfigure",         \
		"select_p_resv_test"

#endif
