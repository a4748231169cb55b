/* report_history.h - stopo report --history: the link sharing of the
 * past, per partition and per day, from the records select/topo wrote
 * of every job start (StateSaveLocation/topo_jobs.log, select_topo(8))
 * and, for run times, sacct --json output. */
#ifndef STOPO_REPORT_HISTORY_H
#define STOPO_REPORT_HISTORY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "topo/util/err.h"

/* What `stopo report --history` is asked. */
struct history_args {
	/* topo_jobs.log ("-" = stdin; NULL: in the StateSaveLocation
	 * 'scontrol show config' says) */
	const char *log;
	const char *since, *until; /* YYYY-MM-DD[THH:MM:SS] or NULL */
	const char *sacct;	   /* sacct --json output, or NULL */
	const char *svg;	   /* --svg FILE, or NULL */
	uint32_t top;		   /* most shared jobs per row (0 = all) */
	bool json;
	bool metrics; /* counters per partition, Prometheus's format */
};

/* A job start that shared: links (of its own) or nodes. */
struct history_job {
	uint32_t job, nodes, links, shared, node_shared;
	const char *with; /* node_shares_with=, "" when none */
	/* shares_with=: the jobs sharing its links, "" when none or in
	 * a record written before the field */
	const char *links_with;
};

/* One day of one partition. */
struct history_row {
	char day[11]; /* YYYY-MM-DD, the records' local time */
	const char *partition;
	uint32_t started, isolated; /* isolated: no link, no node shared */
	uint32_t shared_links;	    /* starts that shared links */
	/* node-hours of the starts that shared links (their nodes times
	 * their run time in sacct), attributed to their start day; known
	 * when every such start is in sacct's output */
	double shared_nodeh;
	bool nodeh_known;
	struct history_job *top; /* [ntop] most shared links first */
	uint32_t ntop;
};

struct history {
	struct history_row *rows; /* [nrows] by day, then partition */
	uint32_t nrows;
	uint32_t records; /* job starts read (within since/until) */
	char first[11], last[11];
};

/* Run `stopo report --history` as A asks: read, sum, print (text or
 * JSON) and draw.  Returns an exit status (cli.h). */
int report_history(const struct history_args *a);

/* The chart of H to F (svg_history.c): per partition, jobs started,
 * the share of them isolated and the node-hours that shared links, per
 * day.  Returns 0, or -1 with err set. */
int svg_history(FILE *f, const char *title, const struct history *h,
		struct err *err);

#endif
