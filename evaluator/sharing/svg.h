/* svg.h - a picture of link sharing for administrators (stopo report
 * --svg): the machine switch by switch, grouped by pod / dragonfly group,
 * every node coloured by the job holding it, every switch shaded by the
 * most jobs on one of its links, jobs that share links outlined in red,
 * with a legend and MLS/TLS in the title. */
#ifndef STOPO_SVG_H
#define STOPO_SVG_H

#include <stdio.h>

#include "evaluator/sharing/linkshare.h"
#include "topo/util/err.h"
#include "topo/topo.h"

/* Write the picture of RES (computed for JOBS, same order) on T to F.
 * TITLE is the first line of the heading.  Returns 0, or -1 with err set
 * (write error, memory). */
int svg_write(FILE *f, const struct topo *t, const char *title,
	      const struct ls_job *jobs, const struct ls_result *res,
	      struct err *err);

/* S (nothing when NULL) as XML character data or an attribute value:
 * & < > " escaped, the control characters XML 1.0 forbids dropped (all
 * below 0x20 but newline).  Every SVG writer of stopo uses it. */
void svg_text(FILE *f, const char *s);

#endif
