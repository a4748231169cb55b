#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#include "topo/util/par.h"

struct part {
	par_fn fn;
	void *arg;
	uint32_t p;
	void (*done)(void);
	pthread_t th;
	bool started;
};

static void *part_thread(void *arg)
{
	struct part *k = arg;

	k->fn(k->arg, k->p);
	if (k->done)
		k->done();
	return NULL;
}

void par_run(uint32_t nparts, bool threads, par_fn fn, void *arg,
	     void (*thread_done)(void))
{
	struct part *k = NULL;

	if (!nparts)
		return;
	/* no memory for the threads' records: every part here */
	if (threads && nparts > 1)
		k = calloc(nparts, sizeof(*k));
	for (uint32_t p = 1; k && p < nparts; p++) {
		k[p] = (struct part){
			.fn = fn, .arg = arg, .p = p, .done = thread_done
		};
		k[p].started =
			!pthread_create(&k[p].th, NULL, part_thread, &k[p]);
	}
	fn(arg, 0);
	for (uint32_t p = 1; p < nparts; p++) {
		if (k && k[p].started)
			pthread_join(k[p].th, NULL);
		else
			fn(arg, p);
	}
	free(k);
}

uint32_t par_cpus(void)
{
	long n = -1;
#ifdef CPU_COUNT
	cpu_set_t set;

	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
#endif
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}
