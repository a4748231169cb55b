/* workload.h - job lists for the what-if simulator and the link-sharing
 * report.
 *
 * Formats (chosen by content; see stopo-whatif(1)):
 *   SWF   Standard Workload Format of the Parallel Workloads Archive: one
 *         job per line, 18 whitespace-separated fields, ';' header lines.
 *         Used: 1 job id, 2 submit time, 4 run time, 5 allocated
 *         processors (8 requested processors when 5 is -1), 9 requested
 *         time (-1: the run time).  Processors become nodes with
 *         cores_per_node, rounded up.  "; MaxNodes:" (or "; MaxProcs:"
 *         divided by cores_per_node, first when cores_per_node > 1:
 *         the units the sizes are in) gives the machine size: a
 *         positive whole number, -1 or N/A (unknown), text after it
 *         ignored; a key repeated must repeat its value.
 *   CSV   header "id,submit,nodes,runtime,limit[,pattern[,comm_fraction]]";
 *         limit empty or -1 means the run time, comm_fraction empty
 *         none; '#' comment lines.
 *   JSON  {"jobs":[{"id","submit","nodes","runtime","limit","pattern",
 *         "comm_fraction"}]} or a bare array of such objects.
 *   squeue --json output (Slurm 22.05: objects with "job_id",
 *         "job_state", "nodes" hostlist, "node_count", "submit_time",
 *         "start_time", "time_limit" in minutes or null; 24.11: the same
 *         with job_state a list, state first then flags, and numbers as
 *         {"set","infinite","number"}): jobs holding
 *         nodes (RUNNING, CONFIGURING, COMPLETING, SUSPENDED) keep them
 *         (names mapped through topo.conf NodeName=), PENDING jobs are
 *         simulated, finished jobs are ignored.  Run times are unknown:
 *         a job runs to its time limit.
 * Times are seconds, from 0 to WL_TIME_MAX (time limits in squeue's
 * minutes to WL_TIME_MAX / 60): beyond is "FIELD: out of range", so that
 * no sum of times overflows.  Records that cannot be used are errors
 * "FILE:LINE: what", or skipped and counted with skip_bad.
 */
#ifndef STOPO_WORKLOAD_H
#define STOPO_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The largest time or duration a workload may give: 10^12 s (31,688
 * years), so that start + limit and every sum of the simulator stay far
 * inside int64_t. */
#define WL_TIME_MAX 1000000000000LL
#include <stdio.h>

#include "policies/machine/machine.h"
#include "topo/util/err.h"

enum wl_format {
	WL_AUTO = 0,
	WL_SWF,
	WL_CSV,
	WL_JSON, /* job list or squeue --json, told apart per job object */
};

struct wl_job {
	uint32_t id;
	int64_t submit;	 /* s */
	int64_t runtime; /* s, how long it really runs (<= limit) */
	int64_t limit;	 /* s, time limit (> 0) used for reservations */
	uint32_t nodes;	 /* nodes requested */
	char *pattern;	 /* traffic pattern spec or NULL */
	char *partition; /* squeue: its partition, or NULL */
	char *comment;	 /* squeue: its admin_comment, or NULL */
	uint32_t line;	 /* source line (JSON: index in "jobs" + 1) */
	/* its communication fraction (CSV column and JSON key
	 * comm_fraction, 0 to 1), or -1 when not given */
	double comm_fraction;
	/* squeue: a job holding nodes now */
	bool running;
	int64_t start;	 /* s, when running */
	uint32_t *alloc; /* its nodes (nodes entries), when running */
};

/* Records skipped for one reason (skip_bad): the message of the first
 * (its values stand for those of the others), where it was, how many. */
struct wl_skip {
	char what[200];
	uint32_t line; /* its line (JSON: its index in "jobs" + 1) */
	bool json;     /* placed "jobs[K]" (K = line - 1), not at a line */
	uint32_t count;
	char key[200]; /* the message with its values left out */
};

/* Reasons kept apart; the records of any further reason are counted in
 * workload.skipped_other. */
#define WL_SKIP_REASONS 16

struct workload {
	struct wl_job *jobs;
	uint32_t n, cap;
	uint32_t skipped;      /* bad records skipped (skip_bad) */
	struct wl_skip *skips; /* [nskips] why, in order of first record */
	uint32_t nskips;
	uint32_t skipped_other; /* skipped for reasons beyond the first
				 * WL_SKIP_REASONS */
	/* after a failure (W otherwise empty): the error was a bad record,
	 * one skip_bad would have skipped */
	bool refused;
	uint32_t ignored;   /* squeue jobs that neither run nor pend */
	uint32_t max_nodes; /* machine size from the SWF header, or 0 */
	/* the SWF header's MaxNodes: and MaxProcs: as written (0: absent
	 * or unknown); processors are cores when MaxProcs is the larger */
	uint32_t hdr_max_nodes, hdr_max_procs;
	int64_t now; /* squeue: the latest submit/start time seen */
	enum wl_format format;
	bool squeue; /* input was squeue --json */
	char *name;  /* the NAME read, for messages (workload_job_where) */
};

struct wl_opts {
	uint32_t cores_per_node;       /* SWF processors per node (0 = 1) */
	bool skip_bad;		       /* skip and count bad records */
	const struct machine *machine; /* NodeName= mapping for squeue;
					* NULL or no names: node names must
					* be node indices */
	uint32_t nnodes;	       /* node ids must be below (0 = any) */
	int64_t default_limit;	       /* squeue jobs without a time limit
					  * (0 = 86400 s) */
	enum wl_format format;	       /* WL_AUTO: by content */
	/* read no record after the first MAX_JOBS jobs (0: all): what
	 * follows is neither checked nor counted (a JSON document is
	 * still parsed whole, its jobs converted up to there) */
	uint32_t max_jobs;
};

/* Set the defaults (cores_per_node 1, no skipping, WL_AUTO). */
void wl_opts_init(struct wl_opts *o);

/* Read PATH ("-" = stdin) into W (free with workload_free).  Returns 0,
 * or -1 with err set to "PATH:LINE: what" (W is then empty but for
 * W->refused). */
int workload_load(const char *path, const struct wl_opts *o, struct workload *w,
		  struct err *err);

/* The same on text TEXT of LEN bytes; NAME is used in messages. */
int workload_parse(const char *name, const char *text, size_t len,
		   const struct wl_opts *o, struct workload *w,
		   struct err *err);

/* Read a running-jobs file: one job per line, "ID NODES [PATTERN]", NODES
 * a Slurm hostlist ("n[0-3]", mapped through O->machine) or node indices
 * ("0-3,8"); '#' starts a comment.  Every job is running (alloc set).
 * Returns 0 or -1 with err "NAME:LINE: what" (W empty then). */
int workload_parse_running(const char *name, const char *text, size_t len,
			   const struct wl_opts *o, struct workload *w,
			   struct err *err);

/* Expand a Slurm hostlist ("n[0-3,8]") or an index list ("0-3,8") into
 * node ids through M's node names (or as plain indices below NNODES when
 * M is NULL or has no names).  Returns a new array (*n entries, caller
 * frees), or NULL with err set. */
uint32_t *workload_nodes(const char *list, const struct machine *m,
			 uint32_t nnodes, uint32_t *n, struct err *err);

/* Free the jobs; W is empty again.  NULL is a no-op. */
void workload_free(struct workload *w);

/* Read a whole file ("-" = stdin) into a new NUL-terminated buffer
 * (*len bytes, caller frees).  NULL with err set ("PATH: what"). */
/* Prefix err with where job I of W was read: "NAME:LINE: job ID" (the
 * job-list JSON: "NAME: jobs[K]: job ID"; "job ID" when unknown).
 * Returns -1. */
int workload_job_where(const struct workload *w, uint32_t i, struct err *err);
/* The place alone ("NAME:LINE", "NAME: jobs[K]") in BUF, or NULL when
 * unknown. */
const char *workload_job_place(const struct workload *w, uint32_t i, char *buf,
			       size_t len);

char *workload_slurp(const char *path, size_t *len, struct err *err);

/* Read F (a file, a pipe, stdin; the caller's, left open; NAME in
 * messages) to its end into a new NUL-terminated buffer of *len bytes
 * (caller frees).  NULL with err set: "NAME: out of memory", "NAME: read
 * error", "NAME:LINE: NUL byte" (found while reading), or the file size
 * over the limit file= (topo/util/limits.h). */
char *wl_read_stream(FILE *f, const char *name, size_t *len, struct err *err);

#endif
