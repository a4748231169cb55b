/*****************************************************************************\
 *  slurm_compat.h - what differs between the Slurm versions select/topo
 *  builds against: 22.05 (Debian 12) and 24.11 (Debian 13).  The only
 *  place in plugin/ that tests SLURM_VERSION_NUMBER.
 *
 *  - the select interface header moved (src/common/select.h in 22.05,
 *    src/interfaces/select.h in 24.11) and its ops table is no longer
 *    public in 24.11: topo_select_ops_t is Slurm's own slurm_select_ops_t
 *    in 22.05 and a copy of 24.11's (src/interfaces/select.c) in 24.11,
 *    with TOPO_SELECT_SYMS the symbol names in the same order;
 *  - 22.05 has five select_p_* calls 24.11 dropped (job_signal,
 *    select_jobinfo_sprint, select_jobinfo_xstrdup, update_node_config,
 *    resv_test): TOPO_SELECT_LEGACY is 1 where they exist;
 *  - select_p_job_test's arguments after the preemptee list differ
 *    (exc_core_bitmap in 22.05; resv_exc_ptr and will_run_ptr in 24.11):
 *    TOPO_JOB_TEST_TAIL declares them, struct topo_jt_tail carries them
 *    through the plugin, TOPO_JT_ARGS(t) passes them on;
 *  - List/ListIterator became list_t * / list_itr_t * and struct
 *    job_details job_details_t in 24.11: the plugin is written with the
 *    new names, typedefs supply them in 22.05;
 *  - node_name2bitmap gained an invalid-hostlist argument:
 *    TOPO_NODE_NAME2BITMAP;
 *  - 24.11's scontrol reconfigure execs a new slurmctld: TOPO_RECONF_RESTART
 *    says whether this one was started so;
 *  - 24.11 has no select_p_resv_test: it asks job_test for a
 *    reservation's nodes with a stand-in job, TOPO_RESV_STANDIN;
 *  - the pending reason the scheduler leaves alone (WAIT_BLOCK_D_ACTION)
 *    is gone in 24.11: TOPO_WAIT_REASON is the reason select/topo sets
 *    (24.11's scheduler resets it to Resources between backfill passes,
 *    see select_topo(8)).
 *
 *  TOPO_CHECK_SELECT_P() in select_topo.c checks, at compile time, every
 *  select_p_* definition against the ops table entry it fills and
 *  select_p_job_test against Slurm's own select_g_job_test declaration.
\*****************************************************************************/
#ifndef _SELECT_TOPO_SLURM_COMPAT_H
#define _SELECT_TOPO_SLURM_COMPAT_H

#include "slurm/slurm.h"
#include "slurm/slurm_version.h"

#if (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0)) && \
	(SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0))
#define TOPO_SELECT_LEGACY 1
#elif (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)) && \
	(SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0))
#define TOPO_SELECT_LEGACY 0
#else
#error "select/topo supports Slurm 22.05 and 24.11 only (slurm/slurm_version.h says otherwise: check the -I order, configure --with-slurm-build)"
#endif

#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

#if TOPO_SELECT_LEGACY

#include "src/common/select.h"
#include "src/common/slurm_selecttype_info.h"

typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;
typedef slurm_select_ops_t topo_select_ops_t;

#define TOPO_JOB_TEST_TAIL bitstr_t *exc_core_bitmap
struct topo_jt_tail {
	list_t *preemptee_candidates;
	list_t **preemptee_job_list;
	bitstr_t *exc_core_bitmap;
};
#define TOPO_JT_TAIL_INIT                                     \
	{                                                     \
		.preemptee_candidates = preemptee_candidates, \
		.preemptee_job_list = preemptee_job_list,     \
		.exc_core_bitmap = exc_core_bitmap            \
	}
#define TOPO_JT_ARGS(t) \
	(t)->preemptee_candidates, (t)->preemptee_job_list, (t)->exc_core_bitmap

#define TOPO_WAIT_REASON WAIT_BLOCK_D_ACTION

#define TOPO_NODE_NAME2BITMAP(names, best_effort, bitmap) \
	node_name2bitmap(names, best_effort, bitmap)

/* 22.05's reconfigure runs in the same slurmctld. */
#define TOPO_RECONF_RESTART() false

/* 22.05 chooses reservations' nodes through select_p_resv_test. */
#define TOPO_RESV_STANDIN(job_ptr, mode, preemptee_job_list) false

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

#else /* 24.11 */

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

#define TOPO_JOB_TEST_TAIL \
	resv_exc_t *resv_exc_ptr, will_run_data_t *will_run_ptr
struct topo_jt_tail {
	list_t *preemptee_candidates;
	list_t **preemptee_job_list;
	resv_exc_t *resv_exc_ptr;
	will_run_data_t *will_run_ptr;
};
#define TOPO_JT_TAIL_INIT                                                  \
	{                                                                  \
		.preemptee_candidates = preemptee_candidates,              \
		.preemptee_job_list = preemptee_job_list,                  \
		.resv_exc_ptr = resv_exc_ptr, .will_run_ptr = will_run_ptr \
	}
#define TOPO_JT_ARGS(t)                                                        \
	(t)->preemptee_candidates, (t)->preemptee_job_list, (t)->resv_exc_ptr, \
		(t)->will_run_ptr

/* No reason survives select_nodes() in 24.11; Resources is what it sets. */
#define TOPO_WAIT_REASON WAIT_RESOURCES

#define TOPO_NODE_NAME2BITMAP(names, best_effort, bitmap) \
	node_name2bitmap(names, best_effort, bitmap, NULL)

/* Whether this slurmctld was started by scontrol reconfigure, which in
 * 24.11 execs a new slurmctld with SLURMCTLD_RECONF set (controller.c). */
#define TOPO_RECONF_RESTART() (getenv("SLURMCTLD_RECONF") != NULL)

/* The job reservation.c's _resv_select() tests for a reservation's nodes
 * (job_mgr_copy_resv_desc_to_job_record): will-run, job id 0 and no
 * preemptee list, which no scheduler's call has (backfill's jobs have
 * ids, job_start_data passes a list). */
#define TOPO_RESV_STANDIN(job_ptr, mode, preemptee_job_list)       \
	(((mode) == SELECT_MODE_WILL_RUN) && !(job_ptr)->job_id && \
	 !(preemptee_job_list))

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

/* The ops table holds one pointer per symbol: a name missing from (or
 * added to) TOPO_SELECT_SYMS without its member is a compile error. */
_Static_assert(sizeof((const char *[]){ TOPO_SELECT_SYMS }) /
			       sizeof(const char *) ==
		       sizeof(topo_select_ops_t) / sizeof(void *),
	       "TOPO_SELECT_SYMS and topo_select_ops_t differ in length");

/* Whether select_p_NAME, as defined, has the type of OPS's member MEMBER. */
#define TOPO_CHECK_SELECT_P(member, name)                                    \
	_Static_assert(__builtin_types_compatible_p(                         \
			       __typeof__(((topo_select_ops_t *)0)->member), \
			       __typeof__(&select_p_##name)),                \
		       "select_p_" #name " differs from Slurm's ops table")

#endif
