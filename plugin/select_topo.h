/*****************************************************************************\
 *  select_topo.h - what the files of select/topo share (private; the way
 *  select_cons_tres.h is cons_tres's):
 *
 *    select_topo.c  entry points: init, fini, every select_p_* of the
 *                   Slurm version built against, forwarding to the
 *                   wrapped plugin
 *    ops_2411.c     the pass-through ops 25.05 removed (22.05, 24.11)
 *    conf.c         topo.conf: the wrapped plugin, loading and checking
 *                   the file, its last good copy
 *    owner.c        node ownership (the job holding each topology node),
 *                   the policy each job runs under, RespectIsolation=
 *    reason.c       pending reasons (Reason, SystemComment, the log)
 *    job_test.c     job_test: job size, run-now, test-only, will-run
 *    resv.c         reservations placed by the partition's policy
 *    submit.c       the submission check job_submit/topo calls
 *    record.c       the job-start record: link sharing, the prediction's
 *                   thread, topo_jobs.log, the rank order
 *
 *  Locking: slurmctld calls the select plugin under its own locks;
 *  topo_lock guards the topology state below (functions named *_locked
 *  expect it held).  The recorder thread takes slurmctld's job write
 *  lock, then its own rec_lock (record.c).
\*****************************************************************************/
#ifndef _SELECT_TOPO_H
#define _SELECT_TOPO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "plugin/slurm_compat.h"
#include "plugin/topo_adapter.h"

/* Slurm's plugin_type of this plugin, the SelectType that loads it. */
extern const char plugin_type[];
/* The name messages give it. */
#define TOPO_NAME "select/topo"

/* How often job_test asks the policy again when the wrapped plugin
 * refuses. */
#define MAX_ATTEMPTS 8
/* Largest job whose rates are predicted at start (n^2 flows for
 * alltoall); MLS/TLS are computed for every job. */
#define MAX_MODEL_NODES 128
/* Largest grid whose rank order is recorded (4 bytes a rank while the
 * job is placed; its text is a few bytes a node). */
#define MAX_RANKS (1u << 22)
/* Pending reasons are prefixed with this. */
#define REASON_PREFIX "topo: "
/* The SPANK plugin's job control variables, as they appear in
 * job_ptr->spank_job_env (slurmd adds a SPANK_ prefix only when it
 * exports them to the job's environment). */
#define ENV_POLICY "TOPO_POLICY="
#define ENV_PATTERN "TOPO_PATTERN="
#define ENV_GRID "TOPO_GRID="
/* owner[] value the policy sees on nodes Slurm does not offer now. */
#define OWNER_UNAVAILABLE 0xfffffffeu

/* select_topo.c: the wrapped plugin (topo.conf's Wrap=, chosen once when
 * the plugin is loaded: conf_choose_wrap) and its ops. */
extern topo_select_ops_t wrap;
extern const char *wrap_type;

/* The topology side, slurmctld only, under topo_lock. */
extern pthread_mutex_t topo_lock;
extern struct tstate *tstate; /* the loaded topo.conf */
extern uint32_t *owner;	      /* [N] job id per topology node */
extern char *conf_path;	      /* the file tstate was loaded from */
extern bool tracking;	      /* tstate's link-sharing tracker is on */

/* What the policy said of the placement job_test's run-now chose last
 * (job_begin follows job_test in the same scheduling pass): isolated,
 * or shared and why, and the rank order it planned (nne: the topology
 * node of every rank).  Recorded at the job's start (record.c). */
struct topo_claim {
	uint32_t job_id;
	bool isolated;
	char why[sizeof(((struct policy_result *)0)->reason)];
	uint32_t *ranks, nranks;
};
extern struct topo_claim claim;

/* conf.c */
/* Whether this process is slurmctld with SelectType=this plugin. */
bool conf_ctld_selected(void);
/* The plugin to wrap (topo.conf's Wrap=; static).  Fatal in slurmctld
 * when topo.conf cannot be read. */
const char *conf_choose_wrap(void);
/* Fatal when SelectTypeParameters cannot be honoured by the wrapped
 * plugin (slurmctld). */
void conf_check_params(void);
/* Load topo.conf and check it against the node table (node_init): fatal
 * at start-up, logged and the old one kept on reconfiguration. */
void conf_load(void);
/* Map Slurm's node table onto the topology again (nodes created or
 * deleted at run time). */
void conf_remap_locked(void);
/* The partition named NAME, or the default partition (NAME NULL). */
part_record_t *conf_part_named(const char *name);

/* owner.c */
/* Whether the topology state matches the node table now. */
bool owner_usable_locked(void);
/* owner[] of JOB_PTR's nodes set to it (SET) or freed (those it holds). */
void owner_set_locked(job_record_t *job_ptr, bool set);
/* owner[] from the job list JOBS (NULL: none run); the link-sharing
 * tracker rebuilt when anything changed. */
void owner_rebuild_locked(list_t *jobs);
/* Topology ids of the nodes JOB_ID holds in owner[] (xfree). */
uint32_t *owner_nodes_locked(uint32_t job_id, uint32_t *count);
/* RespectIsolation=yes: protect the links of JOB_PTR when isolated. */
void owner_protect_locked(job_record_t *job_ptr);
/* The value of KEY ("NAME=") among the SPANK job control variables
 * ENV[0..N), or NULL. */
const char *job_env_value(char **env, uint32_t n, const char *key);
/* The value of KEY among JOB_PTR's SPANK job control variables. */
const char *job_env(job_record_t *job_ptr, const char *key);
/* The policy JOB_PTR runs under (its partition's, or its --topo-policy),
 * or NULL when none applies. */
const struct policy *job_policy(job_record_t *job_ptr);
bool job_isolating(job_record_t *job_ptr);

/* reason.c */
/* JOB_PTR pends with select/topo's reason WHY (Reason, SystemComment,
 * logged once per kind of reason). */
void reason_set(job_record_t *job_ptr, const char *why);
/* select/topo's reason removed (the job starts or is not held back). */
void reason_clear(job_record_t *job_ptr);
/* The SystemComment set to WHY, or (NULL) select/topo's reason there
 * removed; a SystemComment Slurm wrote is left alone. */
void reason_comment(job_record_t *job_ptr, const char *why);

/* job_test.c */
/* select_p_job_test; TAIL carries the version's trailing arguments. */
int job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t min_nodes,
	     uint32_t max_nodes, uint32_t req_nodes, uint16_t mode,
	     const struct topo_jt_tail *tail);
/* Per topology node: its CPUs (less specialised cores) and memory (MB,
 * less MemSpecLimit), from Slurm's node records. */
void node_resources(uint32_t *cpus, uint64_t *mem);
/* The topology nodes of Slurm BITMAP, [tstate_nodes] 0/1 (xfree). */
uint8_t *usable_from_bitmap(bitstr_t *bitmap);
/* The Slurm bitmap of RES's topology nodes (FREE_NULL_BITMAP). */
bitstr_t *bitmap_from_result(struct policy_result *res);

/* resv.c */
/* A whole-node reservation of NODE_CNT nodes among AVAIL for RESV's
 * partition, placed by its policy; NULL when the wrapped plugin chooses
 * (*REFUSE: refused outright). */
bitstr_t *resv_place_locked(resv_desc_msg_t *resv, uint32_t node_cnt,
			    bitstr_t *avail, bool *refuse);
/* 24.11 on: a reservation's stand-in job (TOPO_RESV_STANDIN) placed into
 * BITMAP; SLURM_SUCCESS or SLURM_ERROR, or 1 to delegate. */
int resv_job_test(job_record_t *job_ptr, bitstr_t *bitmap, uint32_t node_cnt);

/* Whether slurmctld chose RESV's nodes without asking the select plugin
 * (25.11 on: a whole-node reservation with Flags=IGNORE_JOBS). */
bool resv_unasked(const slurmctld_resv_t *resv);
/* Why RESV's nodes may not hold an isolated job, when resv_unasked, into
 * NOTE (LEN bytes; "" otherwise), to follow a reason; logged once per
 * reservation. */
void resv_explain(const slurmctld_resv_t *resv, char *note, size_t len);

/* submit.c */
/* Whether job D can ever run isolated in one of its partitions:
 * SLURM_SUCCESS, or an error code with *ERR_MSG saying why. */
int submit_check(job_desc_msg_t *d, char **err_msg);

/* record.c */
/* The rank order the policy planned for JOB_PTR into its SystemComment. */
void record_ranks_locked(job_record_t *job_ptr);
/* The job-start record of JOB_PTR: sharing now, its prediction queued. */
void record_evaluate_locked(job_record_t *job_ptr);
/* Stop the recorder and predictor threads (fini; no slurmctld lock). */
void record_stop(void);

#endif
