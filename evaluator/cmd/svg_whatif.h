/* svg_whatif.h - stopo whatif --svg / --html: the outcomes of the
 * policies as charts (plot.h), one colour per policy in every panel:
 *   0 utilisation over time (% of the nodes busy, a step function)
 *   1 MLS over time, 2 TLS over time (%, after every start and end)
 *   3 CDF of the waits, 4 CDF of the turnarounds (% of the jobs that
 *     started, against hours)
 *   with a sweep of a run-time model's parameter, 5 mean turnaround (h)
 *   and 6 throughput (jobs per day) against it, the break-even of each
 *   isolating policy marked.
 * Time series are of the sweep's first value.  Times are hours from the
 * first submit. */
#ifndef STOPO_SVG_WHATIF_H
#define STOPO_SVG_WHATIF_H

#include <stdio.h>

#include "evaluator/sim/whatif.h"
#include "evaluator/sim/workload.h"
#include "topo/routing.h"
#include "topo/util/err.h"

struct whatif_chart {
	const char *title;
	const char *const *labels; /* [npol] the policies as given */
	uint32_t npol;
	/* [nval * npol]: value v of the sweep, policy p at v * npol + p */
	const struct whatif_result *res;
	uint32_t nval;
	const double *val;	  /* [nval] the sweep's values */
	const char *sweep_label;  /* its axis ("isolation gain G"), NULL:
				   * no sweep panels */
	const double *break_even; /* [npol] where each beats the baseline
				   * (NAN: not marked) */
	const struct workload *w; /* the jobs simulated (patterns) */
	uint64_t seed;		  /* the simulation's (patterns' seeds) */
	const struct routing *r;
	uint32_t nnodes;
};

/* The chart of C to F (a self-contained SVG).  Returns 0, or -1 with err
 * set (memory, a job's link set, write error). */
int svg_whatif(FILE *f, const struct whatif_chart *c, struct err *err);

/* An HTML page to F: the chart inline and a table of each policy's
 * outcomes (at every value of the sweep).  Returns as svg_whatif. */
int html_whatif(FILE *f, const struct whatif_chart *c, struct err *err);

#endif
