/*****************************************************************************\
 *  slurm_compat.h - what differs between the Slurm series select/topo
 *  builds against: 22.05 (Debian 12), 24.11 (Debian 13), 25.11 and 26.05
 *  (SchedMD's releases).  With the generation headers it includes
 *  (ops_2205.h, ops_2411.h, ops_2511.h: the wrapped plugin's ops table of
 *  each select interface), the only place in plugin/ that tests
 *  SLURM_VERSION_NUMBER.
 *
 *  - TOPO_SLURM_GEN: 2205, 2411, 2511 or 2605; any other series is a
 *    compile error (configure refuses it first);
 *  - 26.05's slurm_load_job() takes a slurm_step_id_t: TOPO_LOAD_JOB;
 *    25.05 adds slurm_spank_init_failure_mode: TOPO_SPANK_FAILURE_MODE
 *    (these two are all the SPANK plugin, which sees Slurm's public
 *    headers only, includes: TOPO_COMPAT_PUBLIC);
 *  - the select interface: 36 ops in 22.05 (TOPO_SELECT_LEGACY: five
 *    calls 24.11 dropped, resv_test among them), 31 in 24.11, 12 from
 *    25.05 (TOPO_SELECT_OPS31 is 0: state save/restore, job_init, steps,
 *    node and job select info left), 26.05 adds job_mem_reduce
 *    (TOPO_SELECT_MEM_REDUCE); the ops 25.05 removed are forwarded in
 *    ops_2411.c;
 *  - the plugin id: up to 24.11 slurmctld, slurmd and the commands load
 *    every select plugin of PluginDir and refuse a duplicate id, so
 *    select/topo has its own (TOPO_PLUGIN_ID); from 25.05 only
 *    SelectType's is loaded and slurmctld tests the id alone for
 *    "cons_tres" (running_cons_tres()), so select/topo reports the
 *    wrapped plugin's (TOPO_ID_OF_WRAPPED);
 *  - whether slurmd and the commands load select plugins at all
 *    (TOPO_SELECT_OUTSIDE_CTLD: up to 24.11);
 *  - 25.11 renames CR_CPU, CR_CORE, CR_SOCKET to SELECT_*: TOPO_CR_*;
 *  - select_p_job_test's arguments after the preemptee list differ
 *    (exc_core_bitmap in 22.05; resv_exc_ptr and will_run_ptr from
 *    24.11): TOPO_JOB_TEST_TAIL declares them, struct topo_jt_tail
 *    carries them through the plugin, TOPO_JT_ARGS(t) passes them on;
 *  - List/ListIterator became list_t * / list_itr_t * and struct
 *    job_details job_details_t in 24.11: the plugin is written with the
 *    new names, typedefs supply them in 22.05;
 *  - node_name2bitmap gained an invalid-hostlist argument:
 *    TOPO_NODE_NAME2BITMAP;
 *  - from 24.11 scontrol reconfigure execs a new slurmctld:
 *    TOPO_RECONF_RESTART says whether this one was started so;
 *  - from 24.11 there is no select_p_resv_test: slurmctld asks job_test
 *    for a reservation's nodes with a stand-in job, TOPO_RESV_STANDIN;
 *  - the pending reason the scheduler leaves alone (WAIT_BLOCK_D_ACTION)
 *    is gone from 24.11: TOPO_WAIT_REASON is the reason select/topo sets
 *    (the scheduler resets it to Resources between backfill passes, see
 *    select_topo(8)).
 *
 *  TOPO_CHECK_SELECT_P() in select_topo.c checks, at compile time, every
 *  select_p_* definition against the ops table entry it fills and
 *  select_p_job_test against Slurm's own select_g_job_test declaration.
\*****************************************************************************/
#ifndef _SELECT_TOPO_SLURM_COMPAT_H
#define _SELECT_TOPO_SLURM_COMPAT_H

#include "slurm/slurm.h"
#include "slurm/slurm_version.h"

#define TOPO_SERIES(major, minor)                                        \
	((SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0)) && \
	 (SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(major, minor + 1, 0)))
#if TOPO_SERIES(22, 5)
#define TOPO_SLURM_GEN 2205
#elif TOPO_SERIES(24, 11)
#define TOPO_SLURM_GEN 2411
#elif TOPO_SERIES(25, 11)
#define TOPO_SLURM_GEN 2511
#elif TOPO_SERIES(26, 5)
#define TOPO_SLURM_GEN 2605
#else
#error "select/topo supports Slurm 22.05, 24.11, 25.11 and 26.05 only (slurm/slurm_version.h says otherwise: check the -I order, configure --with-slurm-build)"
#endif

/* 26.05's slurm_load_job() takes the job as a slurm_step_id_t. */
#if TOPO_SLURM_GEN >= 2605
#define TOPO_LOAD_JOB(resp, id, flags)                              \
	slurm_load_job((resp),                                      \
		       ((slurm_step_id_t){ .sluid = 0,              \
					   .job_id = (id),          \
					   .step_het_comp = NO_VAL, \
					   .step_id = NO_VAL }),    \
		       (flags))
#else
#define TOPO_LOAD_JOB(resp, id, flags) slurm_load_job((resp), (id), (flags))
#endif

/* From 25.05 a SPANK plugin may say how its init's failure is handled
 * (slurm_spank_init_failure_mode; any non-zero return is a failure). */
#define TOPO_SPANK_FAILURE_MODE (TOPO_SLURM_GEN >= 2511)

/* Up to 24.11 slurmd loads the select plugin and tests SelectType for the
 * string "select/cons_tres" (slurmd_check.c); SlurmdParameters=
 * config_overrides is CTL_CONF_OR in 22.05, CONF_FLAG_OR later. */
#define TOPO_SLURMD_CR_FLAG (TOPO_SLURM_GEN <= 2411)
/* 24.11's slurmd reads slurm.conf's node and the hardware before it
 * loads the select plugin, 22.05's after. */
#define TOPO_SLURMD_READS_FIRST (TOPO_SLURM_GEN == 2411)
/* 24.11's slurmd keeps slurm.conf's split when only CPUs= describes the
 * node, before it looks at cr_flag; 22.05's has no such case. */
#define TOPO_SLURMD_ONLY_CPUS (TOPO_SLURM_GEN == 2411)
#if TOPO_SLURM_GEN == 2205
#define TOPO_CONF_FLAG_OR CTL_CONF_OR
#else
#define TOPO_CONF_FLAG_OR CONF_FLAG_OR
#endif

/* The SPANK plugin stops here: it compiles against Slurm's public
 * headers only. */
#ifndef TOPO_COMPAT_PUBLIC

#define TOPO_SELECT_LEGACY (TOPO_SLURM_GEN == 2205)
/* From 25.11 whole-node Flags=IGNORE_JOBS reservations are placed
 * without the select plugin (reservation.c's _resv_select). */
#define TOPO_RESV_IGN_JOBS_UNASKED (TOPO_SLURM_GEN >= 2511)
#define TOPO_SELECT_OPS31 (TOPO_SLURM_GEN <= 2411)
#define TOPO_SELECT_MEM_REDUCE (TOPO_SLURM_GEN >= 2605)
#define TOPO_SELECT_OUTSIDE_CTLD (TOPO_SLURM_GEN <= 2411)

/* select/topo's own plugin id (up to 24.11), unique among Slurm's. */
#define TOPO_PLUGIN_ID 177
#define TOPO_ID_OF_WRAPPED (TOPO_SLURM_GEN >= 2511)

#if TOPO_SLURM_GEN >= 2511
#define TOPO_CR_CPU SELECT_CPU
#define TOPO_CR_CORE SELECT_CORE
#define TOPO_CR_SOCKET SELECT_SOCKET
#else
#define TOPO_CR_CPU CR_CPU
#define TOPO_CR_CORE CR_CORE
#define TOPO_CR_SOCKET CR_SOCKET
#endif

/* MaxNodeCount given (22.05 leaves 0, later releases NO_VAL, when not);
 * TaskPluginParam=SlurmdSpecOverride (25.11 on). */
#if TOPO_SLURM_GEN == 2205
#define TOPO_MAX_NODE_CNT_SET() (slurm_conf.max_node_cnt != 0)
#else
#define TOPO_MAX_NODE_CNT_SET() \
	((slurm_conf.max_node_cnt != 0) && (slurm_conf.max_node_cnt != NO_VAL))
#endif
#if TOPO_SLURM_GEN >= 2511
#define TOPO_SPEC_OVERRIDE_SET() \
	(slurm_conf.task_plugin_param & SLURMD_SPEC_OVERRIDE)
#else
#define TOPO_SPEC_OVERRIDE_SET() false
#endif

#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

#if TOPO_SELECT_LEGACY

typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;

#include "plugin/ops_2205.h"

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

#else /* 24.11 on */

#if TOPO_SELECT_OPS31
#include "plugin/ops_2411.h"
#else
#include "plugin/ops_2511.h"
#endif

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

/* No reason survives select_nodes() from 24.11; Resources is what it
 * sets. */
#define TOPO_WAIT_REASON WAIT_RESOURCES

#define TOPO_NODE_NAME2BITMAP(names, best_effort, bitmap) \
	node_name2bitmap(names, best_effort, bitmap, NULL)

/* Whether this slurmctld was started by scontrol reconfigure, which from
 * 24.11 execs a new slurmctld with SLURMCTLD_RECONF set (controller.c). */
#define TOPO_RECONF_RESTART() (getenv("SLURMCTLD_RECONF") != NULL)

/* The job reservation.c's _resv_select() tests for a reservation's nodes
 * (job_mgr_copy_resv_desc_to_job_record): will-run, job id 0 and no
 * preemptee list, which no scheduler's call has (backfill's jobs have
 * ids, job_start_data passes a list). */
#define TOPO_RESV_STANDIN(job_ptr, mode, preemptee_job_list)       \
	(((mode) == SELECT_MODE_WILL_RUN) && !(job_ptr)->job_id && \
	 !(preemptee_job_list))

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

#endif /* TOPO_COMPAT_PUBLIC */
#endif
