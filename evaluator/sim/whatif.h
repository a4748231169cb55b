/* whatif.h - dry run of a job queue: an event-driven simulation with FCFS
 * plus EASY backfill (Slurm's default behaviour), every job placed by an
 * allocation policy, with the link sharing (MLS/TLS) of the running jobs
 * tracked at every start and end and, optionally, each job's predicted
 * communication rate.
 *
 * Scheduling, at every moment something happens (arrival, end):
 *   1. Start queue heads in submit order while the policy places them.
 *   2. The first job that waits gets a reservation (policy_will_run,
 *      the plugin's will-run search): running jobs are released on a copy
 *      of the machine in order of expected end (start + time limit), jobs
 *      ending at the same time together, and the first end after which
 *      the policy places it is its reserved start, the nodes it would get
 *      then its reserved nodes.
 *   3. Later jobs (at most bf_depth) start now if the policy places them
 *      and they do not delay the reservation: either their time limit ends
 *      before the reserved start, or they are placed on nodes outside the
 *      reserved set.  A job no smaller than one that just failed in the
 *      same mode of the same pass is not tried again.
 * A job the policy calls NEVER (or that waits on an empty machine) is
 * dropped and reported.  Jobs really end after min(run time, limit).
 *
 * Run times as the trace gives them, or moved by interference (a
 * run-time model; the jobs of an squeue snapshot already running keep
 * their ends):
 *   isolation_gain G > 0 (Jigsaw's model): the trace's run times hold
 *     the interference of the traced machine; a job progresses 1 + G
 *     times faster in every interval in which its link set shares no
 *     link with another running job's.
 *   comm_fraction F (0 to 1, per job from the workload where given):
 *     the trace's run time is the job's time alone; a fraction F of it
 *     is communication, progressing at s = (its predicted rate now) /
 *     (its predicted rate alone on the same nodes), s = 1 while it
 *     shares no link, so it runs at 1 / (1 - F + F / s) of its pace
 *     alone; s is computed at its start and again whenever a job
 *     sharing a link with it starts or ends (the model in force, rates
 *     required).  A job that reaches its time limit is killed there.
 * Ends are whole seconds, rounded up.  Reservations and backfill keep
 * using the time limits; ends that move move the passes.
 */
#ifndef STOPO_WHATIF_H
#define STOPO_WHATIF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "evaluator/sim/workload.h"
#include "topo/util/err.h"
#include "topo/routing.h"
#include "topo/topo.h"

/* Bounded slowdown threshold (s): max(1, (wait + run) / max(run, 10)). */
#define WHATIF_BSLD_TAU 10.0

/* DONE of TOTAL WHAT ("jobs": placed or dropped; "rates": deferred rates
 * computed, see rate_threads) */
typedef void (*whatif_progress_fn)(void *arg, uint32_t done, uint32_t total,
				   const char *what);

struct whatif_opts {
	bool rates;	     /* predict each job's communication rate */
	const char *pattern; /* pattern of jobs without one, for rates
				 * (NULL = WHATIF_DEFAULT_PATTERN) */
	const char *model;   /* throughput model for rates (NULL = "jm") */
	uint32_t bf_depth;   /* jobs tried for backfill per pass (0 =
				 * 500, Slurm's bf_max_job_test) */
	uint64_t seed;	     /* seeds random patterns (job id + seed) */
	whatif_progress_fn progress; /* called after every job started or
				      * dropped, with their count, or
				      * every rate computed (the callback
				      * throttles); may be NULL */
	void *progress_arg;
	/* May be NULL; once set (by another thread), whatif_run gives up at
	 * its next event and fails with err code ECANCELED (text
	 * WHATIF_STOPPED) */
	const atomic_bool *stop;
	/* Threads for the predicted rates (0 or 1: none besides the
	 * caller's).  With more, and a model that takes flows (not paths,
	 * not hm's running counts: dragonfly and Cascade under vlb or
	 * ugal), the schedule is simulated first, each start recording
	 * the jobs its rate depends on (its sharing component), and the
	 * rates are computed afterwards on that many threads: the same
	 * numbers, since a rate never changes the schedule.  Progress then
	 * counts the rates done. */
	uint32_t rate_threads;
	/* hm's rates under comm_fraction, with its closed form, again at
	 * every start and end: the jobs rated on the same counts are shared
	 * out among rate_threads threads, or, with CELLS_RUNNING (the
	 * simulations of a run going on now; may be NULL), THREADS divided
	 * by that where more: threads freed by simulations that ended help
	 * those still going.  The same rates either way. */
	const atomic_uint *cells_running;
	uint32_t threads;
	/* Run-time models (see the top): G >= 0 (0: off), F in [0, 1] of
	 * the jobs without their own (wl_job.comm_fraction), below 0: off.
	 * At most one of them. */
	double isolation_gain;
	double comm_fraction;
	/* Tests: the backfill's check that a job keeps the head's
	 * reservation builds the machine at the reserved start afresh at
	 * every question, not as a change of the last one (the same
	 * answers, slower: the second method the kept one is tested
	 * against). */
	bool keeps_fresh;
};

#define WHATIF_STOPPED "stopped"

#define WHATIF_DEFAULT_PATTERN "random:1"

/* Set the defaults (no run-time model: isolation_gain 0,
 * comm_fraction -1). */
void whatif_opts_init(struct whatif_opts *o);

struct whatif_job {
	uint32_t id;		    /* from the workload */
	int64_t submit, start, end; /* start = end = -1 when dropped */
	uint32_t *nodes;	    /* [n] allocated nodes */
	uint32_t n;
	bool dropped;	       /* the policy never placed it */
	bool was_running;      /* squeue: already running at the start */
	bool claimed_isolated; /* the policy claimed isolation */
	bool ran_isolated;     /* shared no link at any moment of its run */
	bool shared_at_start;  /* shared a link when it started */
	uint32_t order;	       /* 1 for the first job started, 2 for the
				* next, ... (jobs starting at one time in
				* the order the simulator started them);
				* 0 when dropped */
	uint32_t links;	       /* |l_i| */
	double rate;	       /* predicted communication rate at its start
				 * (units of link capacity), or 0 */
	double stretch;	       /* (end - start) / its trace run time (1
				* for a run time of 0) */
	bool killed;	       /* a run-time model made it reach its time
				* limit: ended there, its work lost */
	char reason[192];      /* why it was dropped; for a job placed
				* not isolated, what the policy said it
				* shares ("" from baselines) */
};

struct whatif_result {
	char policy[96]; /* canonical policy spec */
	uint32_t njobs;	 /* jobs in the workload */
	uint32_t started, dropped;
	double utilization;	/* node-seconds used / (N * makespan) */
	double makespan;	/* s, first arrival to last end */
	double mean_wait;	/* s, simulated jobs that started */
	double mean_bsld;	/* bounded slowdown, tau = 10 s */
	uint32_t isolated_jobs; /* jobs that ran isolated */
	/* claimed isolated but shared a link at its start: the claim was
	 * false (0 for every policy) */
	uint32_t violations;
	/* claimed isolated, then joined by a job placed shared (by design:
	 * dragonfly-balanced, dragonfly-groups:large=shared) */
	uint32_t later_shared;
	double mls_max, tls_max;   /* worst over time, percent */
	double mls_mean, tls_mean; /* time-averaged over the makespan */
	bool rates;
	double rate_sum;     /* sum of the jobs' predicted rates */
	double rate_mean;    /* per started job */
	uint32_t backfilled; /* jobs started ahead of an earlier job */
	/* nodes held by two or more running jobs of an squeue snapshot
	 * (Slurm shares nodes under OverSubscribe): each stays busy until
	 * the last of them ends */
	uint32_t snapshot_shared_nodes;
	/* of the started jobs, those of the snapshot already running (the
	 * means of waits, turnaround and stretch leave them out) */
	uint32_t snapshot_running;
	/* over the simulated jobs that started (not those of a snapshot
	 * already running): turnaround = end - submit, its mean and 95th
	 * percentile (nearest rank); throughput over the makespan, in jobs
	 * that completed (not killed) and in node-hours of their trace run
	 * times, per day; stretch (whatif_job.stretch), mean and largest;
	 * killed jobs and the node-hours they ran for nothing */
	double mean_turnaround, p95_turnaround;
	double jobs_per_day, nodeh_per_day;
	double mean_stretch, max_stretch;
	uint32_t killed;
	double lost_nodeh;
	bool runtime_model; /* a run-time model was in force */
	bool isolating;	    /* policy_isolating */
	double seconds;	    /* wall time of the simulation */
	uint32_t njob_out;
	struct whatif_job *jobs; /* [njobs], workload order */
};

/* Simulate workload W on topology T with routing R and policy POLICY
 * ("name[:opts]").  Fills RES (free with whatif_result_free).  Returns 0,
 * or -1 with err set (bad policy, a job's nodes out of range, memory). */
int whatif_run(const struct topo *t, const struct routing *r,
	       const char *policy, const struct workload *w,
	       const struct whatif_opts *o, struct whatif_result *res,
	       struct err *err);

/* Free RES's arrays; NULL is a no-op. */
void whatif_result_free(struct whatif_result *res);

struct json_object;

/* RES as a JSON object (every field by its name, doubles as C99
 * hexadecimal strings so that they read back to the same bits; with
 * JOBS the jobs too, their nodes as index ranges): a cell of stopo
 * whatif --array.  NULL out of memory.  The caller puts it. */
struct json_object *whatif_result_json(const struct whatif_result *res,
				       bool jobs);
/* ... and back into RES (free with whatif_result_free): 0, or -1 with
 * err "WHAT: FIELD: why" (RES empty then). */
int whatif_result_from_json(struct json_object *o, const char *what,
			    struct whatif_result *res, struct err *err);
/* What json-c accepts in TEXT[0..LEN) and JSON does not allow (a NUL
 * byte, a key repeated in one object, a comment, an escaped NUL: the
 * workload readers' rules), as "NAME:LINE: ..." in err.  0 or -1. */
int whatif_json_check(const char *name, const char *text, size_t len,
		      struct err *err);

#endif
