/* fuzz_workload.h - the workload readers' harness body, shared by
 * fuzz_swf.c, fuzz_csv.c, fuzz_json.c, fuzz_squeue.c (workload_parse) and
 * fuzz_running.c (workload_parse_running). */
#ifndef STOPO_FUZZ_WORKLOAD_H
#define STOPO_FUZZ_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "evaluator/sim/workload.h"

/* Parse DATA[0..SIZE) as FORMAT, or as a running-jobs file when
 * RUNNING, with the options of an option byte (skip_bad, cores per node,
 * a node count, a 64-node machine named n[00-63], WL_AUTO, a default time
 * limit): the input's (fuzz_options), else DEFAULTS.  Checks the jobs
 * read (see fuzz_workload.c).  Returns 0. */
int fuzz_workload(const uint8_t *data, size_t size, enum wl_format format,
		  int running, uint8_t defaults);

#endif
