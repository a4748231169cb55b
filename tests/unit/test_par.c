/* test_par.c - par_run: every part runs exactly once, part 0 on the
 * calling thread, with and without threads; thread_done runs on started
 * threads only (never more than nparts - 1 times).  par_cpus counts the
 * CPUs of the affinity mask, as a Slurm allocation or taskset narrows
 * it. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "topo/util/par.h"

#define MAXP 16

struct rec {
	int runs[MAXP];
	pthread_t caller, on[MAXP];
};

static int ndone;

static void count_done(void)
{
	__atomic_add_fetch(&ndone, 1, __ATOMIC_RELAXED);
}

static void part(void *arg, uint32_t p)
{
	struct rec *r = arg;

	__atomic_add_fetch(&r->runs[p], 1, __ATOMIC_RELAXED);
	r->on[p] = pthread_self();
}

Test(par, every_part_once)
{
	static const struct {
		uint32_t n;
		bool threads;
	} cases[] = {
		{ .n = 1, .threads = true },  { .n = 2, .threads = true },
		{ .n = 8, .threads = true },  { .n = MAXP, .threads = true },
		{ .n = 1, .threads = false }, { .n = 8, .threads = false },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct rec r = { .caller = pthread_self() };

		ndone = 0;
		par_run(cases[c].n, cases[c].threads, part, &r, count_done);
		for (uint32_t p = 0; p < cases[c].n; p++)
			cr_expect_eq(r.runs[p], 1, "case %zu part %u", c, p);
		for (uint32_t p = cases[c].n; p < MAXP; p++)
			cr_expect_eq(r.runs[p], 0, "case %zu part %u", c, p);
		cr_expect(pthread_equal(r.on[0], r.caller),
			  "case %zu: part 0 on the calling thread", c);
		cr_expect_leq(ndone, (int)cases[c].n - 1, "case %zu", c);
		if (!cases[c].threads) {
			cr_expect_eq(ndone, 0, "case %zu: no threads", c);
			for (uint32_t p = 0; p < cases[c].n; p++)
				cr_expect(pthread_equal(r.on[p], r.caller));
		}
	}
}

Test(par, no_parts_is_a_no_op)
{
	struct rec r = { .caller = pthread_self() };

	par_run(0, true, part, &r, count_done);
	cr_expect_eq(r.runs[0], 0);
}

/* par_cpus: the affinity mask's CPUs (counted here one by one), and 1
 * once this test's process is pinned to one of them; never more than
 * the online CPUs. */
Test(par, cpus_follow_the_affinity_mask)
{
	cpu_set_t set, one;
	int n = 0, first = -1;

	CPU_ZERO(&set);
	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set)) {
			n++;
			if (first < 0)
				first = c;
		}
	cr_expect_eq(par_cpus(), (uint32_t)n);
	cr_expect_leq(par_cpus(), (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	cr_expect_eq(par_cpus(), 1u);
	cr_assert_eq(sched_setaffinity(0, sizeof(set), &set), 0);
	cr_expect_eq(par_cpus(), (uint32_t)n);
}
