/* par.h - the one "parallel for, falling back to the calling thread".
 *
 * A loop split into parts: part 0 runs on the calling thread, every other
 * part on a thread of its own; a part whose thread cannot start (or every
 * part, when threads are not wanted) runs on the calling thread after
 * part 0.  Work-sharing loops (each part takes the next item not yet
 * taken) and fixed splits (part p does rows [N*p/P, N*(p+1)/P)) both fit.
 * The caller's FN synchronises whatever its parts share.
 */
#ifndef STOPO_PAR_H
#define STOPO_PAR_H

#include <stdbool.h>
#include <stdint.h>

/* One part of a loop: ARG is the caller's, PART in [0, nparts). */
typedef void (*par_fn)(void *arg, uint32_t part);

/* Run FN(ARG, p) for every p in [0, NPARTS) as above, on threads when
 * THREADS (else all on the calling thread, in order).  THREAD_DONE (NULL:
 * none) runs on each started thread after its part, never on the calling
 * thread.  Returns once every part has returned; cannot fail. */
void par_run(uint32_t nparts, bool threads, par_fn fn, void *arg,
	     void (*thread_done)(void));

/* The CPUs the calling thread may run on (its affinity mask, which a
 * Slurm allocation's cpuset or taskset narrows, as nproc(1) counts), or
 * the online CPUs where the mask cannot be read; at least 1. */
uint32_t par_cpus(void);

#endif
