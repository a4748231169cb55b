/*****************************************************************************\
 *  reason.c - the pending reasons select/topo gives: the job's Reason and
 *  state description, its SystemComment, and the log (once per kind of
 *  reason).
\*****************************************************************************/

#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin/select_topo.h"

/* The pending reason: the text, prefixed, is the job's state description;
 * 22.05's select_nodes() leaves it (and the reason code
 * TOPO_WAIT_REASON) alone, 24.11's resets both to Resources after every
 * main-scheduler pass (select_topo(8)).  So whether a reason is new is
 * remembered here, per job (a slot per job id modulo SAID_SLOTS), not
 * read back from the job, and the text is also the job's SystemComment
 * while it waits, which no scheduler pass touches: there users of both
 * versions read it steadily (squeue -O system_comment, scontrol show
 * job). */
#define SAID_SLOTS 1024
static struct {
	uint32_t job_id, hash;
} said[SAID_SLOTS];

/* A hash of the kind of reason S: its text without digits, so that
 * "(at most 2 in one)" and "(at most 3 in one)", or two node lists, are
 * one kind. */
static uint32_t _hash_kind(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		if ((*s < '0') || (*s > '9'))
			h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

/* Whether the job's SystemComment is select/topo's pending reason. */
static bool _comment_is_reason(const job_record_t *job_ptr)
{
	return job_ptr->system_comment &&
	       !strncmp(job_ptr->system_comment, REASON_PREFIX,
			strlen(REASON_PREFIX));
}

/* The SystemComment set to the pending reason WHY (or, WHY NULL, the
 * reason removed).  A SystemComment Slurm wrote (a burst buffer's
 * failure, a credential failure) is left alone: the reason is then in
 * the Reason field and the log only. */
void reason_comment(job_record_t *job_ptr, const char *why)
{
	if (job_ptr->system_comment && !_comment_is_reason(job_ptr))
		return;
	if (!why) {
		if (job_ptr->system_comment) {
			xfree(job_ptr->system_comment);
			last_job_update = time(NULL);
		}
		return;
	}
	if (job_ptr->system_comment &&
	    !strcmp(job_ptr->system_comment + strlen(REASON_PREFIX), why))
		return;
	xfree(job_ptr->system_comment);
	xstrfmtcat(job_ptr->system_comment, "%s%s", REASON_PREFIX, why);
	last_job_update = time(NULL);
}

void reason_set(job_record_t *job_ptr, const char *why)
{
	uint32_t h = _hash_kind(why), k = job_ptr->job_id % SAID_SLOTS;

	reason_comment(job_ptr, why);

	/* Unchanged: no job update.  last_job_update makes slurmctld save
	 * every job's state and clients refetch; backfill asks every pending
	 * job each pass, so touching it for the same reason costs a state
	 * save per pass (bench-slurm). */
	if ((job_ptr->state_reason == TOPO_WAIT_REASON) &&
	    job_ptr->state_desc &&
	    !strncmp(job_ptr->state_desc, REASON_PREFIX,
		     strlen(REASON_PREFIX)) &&
	    !strcmp(job_ptr->state_desc + strlen(REASON_PREFIX), why))
		return;
	/* At info once per kind of reason a job gets, its numbers' changes
	 * at debug (select_topo(8)): backfill tests every pending job every
	 * pass, and counts of free nodes change with every job's end. */
	if ((said[k].job_id != job_ptr->job_id) || (said[k].hash != h))
		info("%s: %pJ pending: %s", TOPO_NAME, job_ptr, why);
	else
		debug("%s: %pJ pending: %s", TOPO_NAME, job_ptr, why);
	said[k].job_id = job_ptr->job_id;
	said[k].hash = h;
	xfree(job_ptr->state_desc);
	xstrfmtcat(job_ptr->state_desc, "%s%s", REASON_PREFIX, why);
	job_ptr->state_reason = TOPO_WAIT_REASON;
	last_job_update = time(NULL);
}

void reason_clear(job_record_t *job_ptr)
{
	reason_comment(job_ptr, NULL);
	if ((job_ptr->state_reason == TOPO_WAIT_REASON) &&
	    job_ptr->state_desc &&
	    !strncmp(job_ptr->state_desc, REASON_PREFIX,
		     strlen(REASON_PREFIX))) {
		job_ptr->state_reason = WAIT_RESOURCES;
		xfree(job_ptr->state_desc);
	}
}
