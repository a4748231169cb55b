/* report_metrics.h - stopo report --metrics: the link sharing of the
 * running jobs in the Prometheus text exposition format (version 0.0.4),
 * for node_exporter's textfile collector.  Ratios are 0 to 1 (base units,
 * the _ratio suffix); counts of things now are gauges (no _total).
 *
 *   stopo_mls_ratio, stopo_tls_ratio             the whole machine
 *   stopo_partition_mls_ratio{partition}         its jobs' worst share
 *   stopo_partition_tls_ratio{partition}         of the links its jobs
 *                                                use, those used by two
 *                                                jobs or more (of any)
 *   stopo_jobs_running{partition,sharing}        sharing="isolated" or
 *                                                "shared" (links or nodes)
 *   stopo_links_used, stopo_links_shared         switch links now
 *   stopo_nodes_shared                           nodes held by two jobs
 *   stopo_isolation_broken_jobs                  jobs placed isolated
 *                                                that share links
 * A job without a partition (--jobs) is in partition="none". */
#ifndef STOPO_REPORT_METRICS_H
#define STOPO_REPORT_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "evaluator/sharing/linkshare.h"
#include "topo/routing.h"
#include "topo/util/err.h"

struct metrics_in {
	const struct routing *r;
	const struct ls_job *jobs;  /* [njobs] the running jobs */
	const struct ls_result *ls; /* computed for them */
	const char *const *part;    /* [njobs] partitions (NULL: none) */
	uint32_t njobs;
	uint32_t nodes_shared, broken;
};

/* The metrics of IN to F.  Returns 0, or -1 with err set (memory, a
 * job's link set). */
int report_metrics(FILE *f, const struct metrics_in *in, struct err *err);

#endif
