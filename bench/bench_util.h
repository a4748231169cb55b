/* bench_util.h - what the benchmark programs share: their clocks. */
#ifndef STOPO_BENCH_UTIL_H
#define STOPO_BENCH_UTIL_H

#include <time.h>

/* Seconds on clock ID (CLOCK_MONOTONIC: wall; CLOCK_PROCESS_CPUTIME_ID:
 * the process's CPU time). */
static inline double bench_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double bench_wall(void)
{
	return bench_clock(CLOCK_MONOTONIC);
}

static inline double bench_cpu(void)
{
	return bench_clock(CLOCK_PROCESS_CPUTIME_ID);
}

#endif
