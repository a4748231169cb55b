/* fuzz_routing_spec.c - routing specs ("ugal:intra=global", "ksp k=3")
 * through routing_create on a topology, then paths, counts and link sets
 * of a few node pairs.  Input: a topology spec line, a routing spec line
 * (empty: the family's default), then bytes choosing node pairs.
 *
 * Checked: the canonical routing spec creates the same routing; every
 * path is a chain of links from the source's injection to the
 * destination's ejection; routing_count (closed forms where the routing
 * has them) agrees with the enumerated paths by class and hop count;
 * routing_linkset (structural where it can be) equals
 * routing_linkset_enum. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define MAX_INPUT 1024
#define MAX_SIZE 3000	  /* nodes + switches + cables (fuzz_topo_size) */
#define MAX_PATHS 4096u	  /* enumerate a pair only below */
#define MAX_LINKSET 2000u /* routing_linkset_enum only below (paths) */
#define PAIRS 3
#define SET 4

/* The last topology and routing, kept while the input keeps their specs
 * (most mutations change the bytes after them). */
static struct {
	char *tspec, *rspec;
	struct topo *t;
	struct routing *r;
} cache;

static void drop_routing(void)
{
	routing_destroy(cache.r);
	free(cache.rspec);
	cache.r = NULL;
	cache.rspec = NULL;
}

static const struct topo *get_topo(char *spec)
{
	struct err err = { 0 };

	if (cache.tspec && !strcmp(cache.tspec, spec)) {
		free(spec);
		return cache.t;
	}
	drop_routing();
	topo_destroy(cache.t);
	free(cache.tspec);
	cache.tspec = spec;
	cache.t = NULL;
	if (fuzz_topo_size(spec) <= MAX_SIZE)
		cache.t = topo_create(spec, &err);
	return cache.t;
}

static void check_path(const struct topo *t, const struct pathset *ps,
		       uint32_t i, uint32_t src, uint32_t dst)
{
	uint32_t a = ps->off[i], b = ps->off[i + 1];

	FUZZ_CHECK(b - a >= 2 && ps->cls[i] <= PATH_VLB, "path %u", i);
	FUZZ_CHECK(ps->links[a] == topo_inject_link(t, src) &&
			   ps->links[b - 1] == topo_eject_link(t, dst),
		   "path %u of %u->%u does not start and end at them", i, src,
		   dst);
	for (uint32_t k = a; k + 1 < b; k++) {
		FUZZ_CHECK(ps->links[k] < topo_num_links(t) &&
				   ps->links[k + 1] < topo_num_links(t),
			   "path %u: link id out of range", i);
		FUZZ_CHECK(topo_link(t, ps->links[k])->to ==
				   topo_link(t, ps->links[k + 1])->from,
			   "path %u of %u->%u breaks after link %u", i, src,
			   dst, ps->links[k]);
	}
}

/* Paths of SRC->DST against routing_count. */
static void check_pair(const struct routing *r, uint32_t src, uint32_t dst)
{
	const struct topo *t = routing_topo(r);
	struct routing_count c, e;
	struct pathset ps;
	struct err err = { 0 };

	if (routing_count(r, src, dst, &c, &err)) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		return;
	}
	if (c.total > MAX_PATHS)
		return;
	pathset_init(&ps);
	if (routing_paths(r, src, dst, &ps, &err)) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		pathset_free(&ps);
		return;
	}
	memset(&e, 0, sizeof(e));
	for (uint32_t i = 0; i < ps.n; i++) {
		uint32_t h = pathset_hops(&ps, t, i);

		check_path(t, &ps, i, src, dst);
		e.total++;
		e.by_class[ps.cls[i]]++;
		e.by_hops[h < ROUTING_MAX_HOPS ? h : ROUTING_MAX_HOPS]++;
	}
	FUZZ_CHECK(!memcmp(&c, &e, sizeof(c)),
		   "%s: %u->%u counted %llu paths (%llu vlb), enumerated "
		   "%llu (%llu vlb)",
		   routing_spec(r), src, dst, (unsigned long long)c.total,
		   (unsigned long long)c.by_class[PATH_VLB],
		   (unsigned long long)e.total,
		   (unsigned long long)e.by_class[PATH_VLB]);
	pathset_free(&ps);
}

static void check_linkset(const struct routing *r, const uint32_t *nodes,
			  uint32_t n)
{
	uint32_t L = topo_num_links(routing_topo(r));
	uint8_t *a = calloc(L, 1), *b = calloc(L, 1);
	struct err err = { 0 };
	int ra, rb;

	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	ra = routing_linkset(r, nodes, n, a, &err);
	rb = routing_linkset_enum(r, nodes, n, b, &err);
	FUZZ_CHECK(ra == rb, "routing_linkset %d, by enumeration %d", ra, rb);
	for (uint32_t l = 0; !ra && l < L; l++)
		FUZZ_CHECK(a[l] == b[l],
			   "%s: link %u in the link set %d, by enumeration "
			   "%d",
			   routing_spec(r), l, a[l], b[l]);
	free(a);
	free(b);
}

static const struct routing *get_routing(const struct topo *t, char *spec)
{
	struct err err = { 0 };
	struct routing *again;
	const char *s = *spec ? spec : routing_default(t);

	if (cache.rspec && !strcmp(cache.rspec, spec)) {
		free(spec);
		return cache.r;
	}
	drop_routing();
	cache.rspec = spec;
	if (fuzz_routing_slow(s))
		return NULL;
	cache.r = routing_create(t, s, &err);
	if (!cache.r) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		return NULL;
	}
	again = routing_create(t, routing_spec(cache.r), &err);
	FUZZ_CHECK(again && !strcmp(routing_spec(again), routing_spec(cache.r)),
		   "canonical routing '%s' does not create it again: %s",
		   routing_spec(cache.r), err.msg);
	routing_destroy(again);
	return cache.r;
}

/* Paths of every ordered pair of NODES[0..N) by routing_count, or
 * UINT64_MAX when one fails. */
static uint64_t set_paths(const struct routing *r, const uint32_t *nodes,
			  uint32_t n)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			struct routing_count c;

			if (i == j)
				continue;
			if (routing_count(r, nodes[i], nodes[j], &c, NULL))
				return UINT64_MAX;
			sum += c.total;
		}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	const struct topo *t;
	const struct routing *r;
	uint32_t N, set[SET], nset = 0;
	char *tspec, *rspec;

	if (size > MAX_INPUT || !(tspec = fuzz_line(&in)))
		return 0;
	if (!(t = get_topo(tspec)) || !(rspec = fuzz_line(&in)))
		return 0;
	if (!(r = get_routing(t, rspec)))
		return 0;
	N = topo_num_nodes(t);
	for (int k = 0; k < PAIRS && in.n && N; k++) {
		uint32_t src = fuzz_u16(&in) % N, dst = fuzz_u16(&in) % N;
		struct pathset ps;
		struct err err = { 0 };

		if (src == dst) {
			pathset_init(&ps);
			FUZZ_CHECK(routing_paths(r, src, dst, &ps, &err),
				   "paths from node %u to itself", src);
			pathset_free(&ps);
			continue;
		}
		check_pair(r, src, dst);
		if (nset < SET)
			set[nset++] = src;
		if (nset < SET)
			set[nset++] = dst;
	}
	/* the link set of those nodes, when their pairs are few paths */
	if (nset >= 2 && set_paths(r, set, nset) <= MAX_LINKSET)
		check_linkset(r, set, nset);
	return 0;
}
