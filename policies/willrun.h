/* willrun.h - when could a job start if the running jobs ended at their
 * time limits?  The one will-run rule, shared by the plugin's
 * SELECT_MODE_WILL_RUN (Slurm's backfill) and stopo whatif's reservations,
 * so that both give the same start and nodes:
 *
 *   release the running jobs in order of their end times, all the jobs
 *   ending at one time together, and answer with the first end time after
 *   which the policy places the job (and the nodes it chose then).
 *
 * The search is linear in the end times: a placement need not be monotone
 * in what was released (a policy may choose another unit, or refuse, when
 * more is free), so a binary search could return a later time or other
 * nodes.  Two kinds of end time are passed over without asking the
 * policy, which changes no answer: those after which fewer usable nodes
 * are free than the job asks for (a policy never places then), and those
 * that free no node (the view does not change). */
#ifndef STOPO_WILLRUN_H
#define STOPO_WILLRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "policies/policy.h"

/* A running job as the will-run search sees it. */
struct policy_running {
	uint32_t job_id; /* its nodes are those with this owner[] value */
	int64_t end;	 /* expected end (its time limit); an end before
			  * the search's NOW counts as NOW */
};

/* What the will-run search found (besides the policy's result). */
struct policy_will_run {
	/* The policy's last answer: PLACED (the result holds the nodes),
	 * NEVER (the result's reason says why), or WAIT when the policy
	 * does not place the job even after every running job ended. */
	enum policy_status status;
	uint32_t groups; /* end times released: 0 = now; on WAIT, all */
	uint32_t jobs;	 /* running jobs released (those ending by start) */
	int64_t start;	 /* NOW when groups is 0, else the last released
			  * end time (at least NOW) */
	/* Why the job cannot start now (the policy's reason with nothing
	 * released), or "" when it can. */
	char now_reason[192];
};

/* Will-run search for REQ under P from the machine as V shows it, with
 * the running jobs RUN[0..NRUN) (nodes whose owner is in no entry are
 * never released; entries owning no node are counted in JOBS but free
 * nothing; for a job id given twice the earlier end counts) at time NOW.
 * The policy is asked with V's usable mask throughout.  RES is as for
 * policy_place (caller-allocated nodes, room for req->nodes) and holds the
 * policy's last answer: the nodes when WR->status is PLACED, else the
 * reason.  V, RUN and REQ are not modified (the search works on a copy of
 * V's owners).  Returns 0, or -1 with err set (a required argument is
 * NULL, out of memory); WR is then undefined. */
/* Will-run keeps its last answers on one machine state and gives them
 * again to an equal request, unless P was created with
 * policy_opts.willrun_forget. */
int policy_will_run(const struct policy *p, const struct policy_view *v,
		    const struct policy_running *run, uint32_t nrun,
		    int64_t now, const struct policy_request *req,
		    struct policy_result *res, struct policy_will_run *wr,
		    struct err *err);

#endif
