/* bench_routing.c - routing at paper 003 scale: path counting (closed
 * form) and enumeration on dragonfly:p=7,a=15,h=8,g=106, and structural
 * link sets of hundreds of jobs on ~10,000-node dragonfly, Cascade and
 * fat-tree machines, against enumeration on a few small jobs.
 * Run by `make bench`; prints timings, asserts nothing.  Times are CPU
 * time of this process (CLOCK_PROCESS_CPUTIME_ID), so that a machine
 * shared with other work still gives comparable numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "topo/routing.h"

static struct topo *mk(const char *spec)
{
	struct err err = { 0 };
	struct topo *t = topo_create(spec, &err);

	if (!t) {
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		exit(1);
	}
	return t;
}

static struct routing *mkr(const struct topo *t, const char *spec)
{
	struct err err = { 0 };
	struct routing *r = routing_create(t, spec, &err);

	if (!r) {
		fprintf(stderr, "%s: %s\n", spec, err.msg);
		exit(1);
	}
	return r;
}

static void bench_paths(const char *tspec, const char *rspec, int flows,
			bool enumerate)
{
	struct topo *t = mk(tspec);
	struct routing *r;
	uint32_t N = topo_num_nodes(t);
	unsigned seed = 1;
	double t0, t1, create;
	uint64_t total = 0;
	struct pathset ps;

	t0 = bench_cpu();
	r = mkr(t, rspec);
	create = bench_cpu() - t0;
	t0 = bench_cpu();
	for (int i = 0; i < flows; i++) {
		struct routing_count c;
		uint32_t s = (uint32_t)rand_r(&seed) % N;
		uint32_t d = (s + 1 + (uint32_t)rand_r(&seed) % (N - 1)) % N;

		routing_count(r, s, d, &c, NULL);
		total += c.total;
	}
	t1 = bench_cpu();
	printf("%-34s %-18s create %7.2f ms  count   %8.1f us/flow "
	       "(%d flows, %.0f paths/flow)\n",
	       tspec, rspec, 1e3 * create, 1e6 * (t1 - t0) / flows, flows,
	       (double)total / flows);
	if (enumerate) {
		int nf = flows / 10 ? flows / 10 : 1;

		pathset_init(&ps);
		total = 0;
		seed = 1;
		t0 = bench_cpu();
		for (int i = 0; i < nf; i++) {
			uint32_t s = (uint32_t)rand_r(&seed) % N;
			uint32_t d =
				(s + 1 + (uint32_t)rand_r(&seed) % (N - 1)) % N;

			(void)rand_r(&seed);
			routing_paths(r, s, d, &ps, NULL);
			total += ps.n;
		}
		t1 = bench_cpu();
		printf("%-34s %-18s                   enumerate %6.1f us/flow "
		       "(%.2f Mpaths/s)\n",
		       "", "", 1e6 * (t1 - t0) / nf,
		       (double)total / (t1 - t0) / 1e6);
		pathset_free(&ps);
	}
	routing_destroy(r);
	topo_destroy(t);
}

/* Cut the machine into jobs: half contiguous blocks, half scattered
 * (random nodes), sizes 2..maxsize; time structural link sets. */
static void bench_linksets(const char *tspec, const char *rspec, int njobs,
			   uint32_t maxsize)
{
	struct topo *t = mk(tspec);
	struct routing *r = mkr(t, rspec);
	uint32_t N = topo_num_nodes(t), L = topo_num_links(t);
	uint32_t *perm = malloc(N * sizeof(*perm)), off = 0;
	uint8_t *used = malloc(L);
	unsigned seed = 7;
	double t0, worst = 0, sum = 0;
	uint64_t links = 0, nodes = 0;
	int done = 0;

	for (uint32_t i = 0; i < N; i++)
		perm[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rand_r(&seed) % (i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	for (int k = 0; k < njobs; k++) {
		uint32_t n = 2 + (uint32_t)rand_r(&seed) % (maxsize - 1);
		uint32_t *nodes_k = malloc(n * sizeof(*nodes_k));
		uint32_t start = (uint32_t)rand_r(&seed) % N;
		double dt;

		for (uint32_t i = 0; i < n; i++)
			nodes_k[i] = k % 2 ? perm[(off + i) % N] :
					     (start + i) % N;
		off += n;
		memset(used, 0, L);
		t0 = bench_cpu();
		routing_linkset(r, nodes_k, n, used, NULL);
		dt = bench_cpu() - t0;
		sum += dt;
		if (dt > worst)
			worst = dt;
		for (uint32_t l = 0; l < L; l++)
			links += used[l];
		nodes += n;
		done++;
		free(nodes_k);
	}
	printf("%-34s %-18s linkset %7.3f ms/job mean, %7.3f ms worst "
	       "(%d jobs, %.0f nodes, %.0f links per job)\n",
	       tspec, rspec, 1e3 * sum / done, 1e3 * worst, done,
	       (double)nodes / done, (double)links / done);
	free(perm);
	free(used);
	routing_destroy(r);
	topo_destroy(t);
}

/* One job both ways: structural against enumeration. */
static void bench_linkset_enum(const char *tspec, const char *rspec, uint32_t n)
{
	struct topo *t = mk(tspec);
	struct routing *r = mkr(t, rspec);
	uint32_t N = topo_num_nodes(t), L = topo_num_links(t);
	uint32_t *nodes = malloc(n * sizeof(*nodes));
	uint8_t *a = calloc(L, 1), *b = calloc(L, 1);
	unsigned seed = 3;
	double t0, ts, te;
	uint32_t diff = 0;

	for (uint32_t i = 0; i < n; i++)
		nodes[i] = (uint32_t)rand_r(&seed) % N;
	t0 = bench_cpu();
	routing_linkset(r, nodes, n, a, NULL);
	ts = bench_cpu() - t0;
	t0 = bench_cpu();
	routing_linkset_enum(r, nodes, n, b, NULL);
	te = bench_cpu() - t0;
	for (uint32_t l = 0; l < L; l++)
		diff += a[l] != b[l];
	printf("%-34s %-18s %u scattered nodes: structural %.3f ms, "
	       "enumerated %.1f ms, %u links differ\n",
	       tspec, rspec, n, 1e3 * ts, 1e3 * te, diff);
	free(nodes);
	free(a);
	free(b);
	routing_destroy(r);
	topo_destroy(t);
}

int main(void)
{
	const char *big = "dragonfly:p=7,a=15,h=8,g=106";

	printf("== path counts (closed form) and enumeration\n");
	bench_paths(big, "min", 100000, true);
	bench_paths(big, "ugal", 10000, true);
	bench_paths(big, "ugal:intra=global", 10000, false);
	bench_paths("cascade:groups=6", "ugal", 1000, false);
	bench_paths("fattree:k=22,n=3", "ecmp", 100000, true);
	printf("== structural link sets, hundreds of jobs\n");
	bench_linksets(big, "min", 300, 200);
	bench_linksets(big, "ugal", 300, 200);
	bench_linksets(big, "ugal:intra=global", 300, 200);
	bench_linksets(big, "ugal", 100, 2000);
	bench_linksets("cascade:groups=26", "ugal", 200, 200);
	bench_linksets("cascade:groups=26", "min", 200, 200);
	bench_linksets("fattree:k=22,n=3", "ecmp", 300, 200);
	bench_linksets("fattree:k=22,n=3", "dmodk", 300, 200);
	bench_linksets("fattree:k=22,n=3", "dmodk", 100, 4000);
	printf("== structural against enumeration\n");
	bench_linkset_enum(big, "min", 40);
	bench_linkset_enum(big, "ugal", 8);
	bench_linkset_enum("fattree:k=22,n=3", "dmodk", 200);
	return 0;
}
