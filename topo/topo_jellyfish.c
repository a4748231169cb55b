/* topo_jellyfish.c - jfish(N, r, p) of paper 000 (Jellyfish, Singla et
 * al.): N switches with r ports each, p ports to compute nodes and
 * d = r - p ports wired at random into a simple d-regular switch graph.
 * Node i on switch i/p.
 *
 * Construction (deterministic from seed=, generator rng.h):
 *   1. While two distinct non-adjacent switches both have a free port:
 *      join a random such pair (64 random draws of two entries of the
 *      list of switches with free ports; if all fail, count the valid
 *      pairs of that list and join one of them chosen at random).
 *   2. Otherwise let u be the first entry of the free list (initially
 *      switches 0..N-1; a switch whose ports fill is replaced by the last
 *      entry).  If u has >= 2 free ports: find a cable (x, y) with x, y
 *      not u and neither adjacent to u; remove it, join u-x and u-y
 *      (Jellyfish's incremental expansion step).
 *   3. Otherwise, with v the second entry of the free list: find a cable
 *      (x, y) with x, y outside {u, v}, x not adjacent to u and y not
 *      adjacent to v; remove it, join u-x and v-y.
 *   A cable is found by 64 random draws (a uniformly random entry y of
 *   x's adjacency list over all switches x), then, if those fail, by a
 *   uniform choice among all valid cables in (x, list position) order.
 *   4. If the switch graph is disconnected, start again from step 1 with
 *      the generator's continuing stream (at most 100 attempts).
 * Cables are then added in order of (lower switch, higher switch). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo/util/rng.h"
#include "topo/topo_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "n", .def = "64", .help = "switches" },
	{ .key = "r", .def = "6", .help = "ports per switch" },
	{ .key = "p", .def = "1", .help = "node ports per switch" },
	{ .key = "seed", .def = "1", .help = "seed of the random wiring" },
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "link", .def = "1", .help = "switch link capacity" },
	{ 0 },
};

struct jf {
	uint32_t n, d;
	uint32_t *adj;	/* [n*d], adjacency lists, first deg[v] valid */
	uint32_t *deg;	/* [n] */
	uint32_t *list; /* switches with a free port: list[0 .. m) */
	uint32_t *pos;	/* [n] index in list, or UINT32_MAX */
	uint32_t m;
	uint64_t *bits; /* n*n adjacency bit matrix when n <= BITS_MAX */
	struct rng rng;
};

/* Dense adjacency matrix up to this many switches (8 MiB). */
#define BITS_MAX 8192

static void set_bit(struct jf *j, uint32_t u, uint32_t v, bool on)
{
	uint64_t i = (uint64_t)u * j->n + v, m = 1ULL << (i % 64);

	if (!j->bits)
		return;
	if (on)
		j->bits[i / 64] |= m;
	else
		j->bits[i / 64] &= ~m;
}

static bool adjacent(const struct jf *j, uint32_t u, uint32_t v)
{
	if (j->bits) {
		uint64_t i = (uint64_t)u * j->n + v;

		return j->bits[i / 64] >> (i % 64) & 1;
	}
	for (uint32_t k = 0; k < j->deg[u]; k++)
		if (j->adj[(size_t)u * j->d + k] == v)
			return true;
	return false;
}

/* Take a switch that just filled its last port off the free list (the
 * last entry moves into its place). */
static void settle(struct jf *j, uint32_t u)
{
	uint32_t i = j->pos[u], last;

	if (j->deg[u] < j->d || i == UINT32_MAX)
		return;
	last = j->list[--j->m];
	j->list[i] = last;
	j->pos[last] = i;
	j->pos[u] = UINT32_MAX;
}

static void join(struct jf *j, uint32_t u, uint32_t v)
{
	j->adj[(size_t)u * j->d + j->deg[u]++] = v;
	j->adj[(size_t)v * j->d + j->deg[v]++] = u;
	set_bit(j, u, v, true);
	set_bit(j, v, u, true);
	settle(j, u);
	settle(j, v);
}

static void drop_half(struct jf *j, uint32_t u, uint32_t v)
{
	uint32_t *a = j->adj + (size_t)u * j->d;

	for (uint32_t k = 0; k < j->deg[u]; k++)
		if (a[k] == v) {
			a[k] = a[--j->deg[u]];
			return;
		}
}

/* Remove cable x-y whose ends are about to be joined again (their free
 * lists do not change: each regains the port at once). */
static void unjoin(struct jf *j, uint32_t u, uint32_t v)
{
	drop_half(j, u, v);
	drop_half(j, v, u);
	set_bit(j, u, v, false);
	set_bit(j, v, u, false);
}

/* Step 1: one random joinable pair, or false when there is none. */
static bool join_random_pair(struct jf *j)
{
	uint32_t m = j->m;
	const uint32_t *list = j->list;
	uint64_t valid = 0, pick;

	for (int tries = 0; tries < 64 && m >= 2; tries++) {
		uint32_t u = list[rng_below(&j->rng, m)];
		uint32_t v = list[rng_below(&j->rng, m)];

		if (u != v && !adjacent(j, u, v)) {
			join(j, u, v);
			return true;
		}
	}
	for (uint32_t a = 0; a < m; a++)
		for (uint32_t b = a + 1; b < m; b++)
			valid += !adjacent(j, list[a], list[b]);
	if (!valid)
		return false;
	pick = rng_below(&j->rng, valid);
	for (uint32_t a = 0; a < m; a++)
		for (uint32_t b = a + 1; b < m; b++)
			if (!adjacent(j, list[a], list[b]) && pick-- == 0) {
				join(j, list[a], list[b]);
				return true;
			}
	return false;
}

/* A random cable (x, y), x < y in the adjacency sense: the k-th directed
 * adjacency entry, taken in one of its two directions. */
static bool random_cable(struct jf *j, uint32_t *x, uint32_t *y)
{
	uint64_t total = 0, k;

	for (uint32_t v = 0; v < j->n; v++)
		total += j->deg[v];
	if (!total)
		return false;
	k = rng_below(&j->rng, total);
	for (uint32_t v = 0; v < j->n; v++) {
		if (k < j->deg[v]) {
			*x = v;
			*y = j->adj[(size_t)v * j->d + k];
			return true;
		}
		k -= j->deg[v];
	}
	return false;
}

static bool rewire_ok(const struct jf *j, uint32_t u, uint32_t v, uint32_t x,
		      uint32_t y)
{
	return x != u && x != v && y != u && y != v && !adjacent(j, u, x) &&
	       !adjacent(j, v, y);
}

/* Steps 2 and 3: rewire one cable to use the free ports of u and v (u == v
 * for a switch with >= 2 free ports): 64 random draws, then a uniform
 * choice among all valid cables (one always exists when step 1 found no
 * pair: see the man page).  Returns false only if none exists. */
static bool rewire(struct jf *j, uint32_t u, uint32_t v)
{
	uint64_t valid = 0, pick;

	for (int tries = 0; tries < 64; tries++) {
		uint32_t x, y;

		if (!random_cable(j, &x, &y))
			return false;
		if (!rewire_ok(j, u, v, x, y))
			continue;
		unjoin(j, x, y);
		join(j, u, x);
		join(j, v, y);
		return true;
	}
	for (uint32_t x = 0; x < j->n; x++)
		for (uint32_t k = 0; k < j->deg[x]; k++)
			valid += rewire_ok(j, u, v, x,
					   j->adj[(size_t)x * j->d + k]);
	if (!valid)
		return false;
	pick = rng_below(&j->rng, valid);
	for (uint32_t x = 0; x < j->n; x++)
		for (uint32_t k = 0; k < j->deg[x]; k++) {
			uint32_t y = j->adj[(size_t)x * j->d + k];

			if (rewire_ok(j, u, v, x, y) && pick-- == 0) {
				unjoin(j, x, y);
				join(j, u, x);
				join(j, v, y);
				return true;
			}
		}
	return false;
}

static bool connected(const struct jf *j, uint32_t *queue, uint8_t *seen)
{
	uint32_t head = 0, tail = 0;

	memset(seen, 0, j->n);
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t k = 0; k < j->deg[u]; k++) {
			uint32_t v = j->adj[(size_t)u * j->d + k];

			if (!seen[v]) {
				seen[v] = 1;
				queue[tail++] = v;
			}
		}
	}
	return tail == j->n;
}

/* One attempt of steps 1-3; false if the rewiring got stuck. */
static bool regular_graph(struct jf *j)
{
	memset(j->deg, 0, j->n * sizeof(*j->deg));
	if (j->bits)
		memset(j->bits, 0, ((uint64_t)j->n * j->n + 63) / 64 * 8);
	for (uint32_t v = 0; v < j->n; v++) {
		j->list[v] = v;
		j->pos[v] = v;
	}
	j->m = j->n;
	while (j->m) {
		uint32_t u = j->list[0];

		if (join_random_pair(j))
			continue;
		if (j->d - j->deg[u] >= 2) {
			if (!rewire(j, u, u))
				return false;
		} else if (j->m >= 2) {
			if (!rewire(j, u, j->list[1]))
				return false;
		} else {
			return false; /* one free port: odd n*d, checked */
		}
	}
	return true;
}

static int parse_seed(const struct topo_args *args, uint64_t *seed,
		      struct err *err)
{
	const char *v = targ_str(args, "seed");
	char *end;

	*seed = 1;
	errno = 0;
	if (*v == '-')
		return err_set(err,
			       "parameter seed=%s: not an unsigned integer", v);
	*seed = strtoull(v, &end, 0);
	if (errno || end == v || *end)
		return err_set(err,
			       "parameter seed=%s: not an unsigned integer", v);
	return 0;
}

static int build(struct topo_builder *b, const struct topo_args *args,
		 struct err *err)
{
	long n, r, p;
	double cinj, clink;
	uint64_t seed;
	struct jf j = { 0 };
	uint32_t *queue = NULL;
	uint8_t *seen = NULL;
	int attempt, rc = -1;

	if (targ_int(args, "n", 1, 1 << 20, &n, err) ||
	    targ_int(args, "r", 1, 1 << 16, &r, err) ||
	    targ_int(args, "p", 0, 1 << 16, &p, err) ||
	    parse_seed(args, &seed, err) ||
	    targ_double(args, "inject", &cinj, err) ||
	    targ_double(args, "link", &clink, err))
		return -1;
	if (p >= r)
		return err_set(err, "p=%ld leaves no switch ports (r=%ld)", p,
			       r);
	j.n = (uint32_t)n;
	j.d = (uint32_t)(r - p);
	if (j.d >= j.n)
		return err_set(err, "r-p=%u switch ports need n > %u switches",
			       j.d, j.d);
	if ((uint64_t)j.n * j.d % 2)
		return err_set(err,
			       "n*(r-p)=%llu is odd: no (r-p)-regular "
			       "graph exists",
			       (unsigned long long)j.n * j.d);
	if (tb_check_size(j.n, (uint64_t)j.n * (uint64_t)p,
			  (uint64_t)j.n * j.d / 2, err))
		return -1;
	j.adj = malloc((size_t)j.n * j.d * sizeof(*j.adj));
	j.deg = calloc(j.n, sizeof(*j.deg));
	j.list = malloc(j.n * sizeof(*j.list));
	j.pos = malloc(j.n * sizeof(*j.pos));
	queue = malloc(j.n * sizeof(*queue));
	seen = malloc(j.n);
	if (j.n <= BITS_MAX)
		j.bits = malloc(((uint64_t)j.n * j.n + 63) / 64 * 8);
	if ((j.n <= BITS_MAX && !j.bits) || !j.adj || !j.deg || !j.list ||
	    !j.pos || !queue || !seen) {
		err_nomem(err, "out of memory");
		goto out;
	}
	rng_seed(&j.rng, seed);
	for (attempt = 0; attempt < 100; attempt++)
		if (regular_graph(&j) && connected(&j, queue, seen))
			break;
	if (attempt == 100) {
		err_set(err,
			"no connected %u-regular graph on %u switches "
			"after 100 attempts",
			j.d, j.n);
		goto out;
	}
	b->nswitches = j.n;
	b->inject_cap = cinj;
	for (uint32_t s = 0; s < j.n; s++)
		for (long k = 0; k < p; k++)
			if (tb_node(b, s)) {
				err_nomem(err, "out of memory");
				goto out;
			}
	for (uint32_t u = 0; u < j.n; u++) {
		uint32_t *a = j.adj + (size_t)u * j.d;

		/* sorted neighbour lists give the documented cable order */
		for (uint32_t x = 1; x < j.deg[u]; x++)
			for (uint32_t y = x; y > 0 && a[y - 1] > a[y]; y--) {
				uint32_t tmp = a[y];

				a[y] = a[y - 1];
				a[y - 1] = tmp;
			}
		for (uint32_t k = 0; k < j.deg[u]; k++)
			if (a[k] > u &&
			    tb_cable(b, u, a[k], clink, TOPO_LINK_LOCAL,
				     TOPO_LINK_LOCAL)) {
				err_nomem(err, "out of memory");
				goto out;
			}
	}
	rc = 0;
out:
	free(j.adj);
	free(j.deg);
	free(j.list);
	free(j.pos);
	free(j.bits);
	free(queue);
	free(seen);
	return rc;
}

const struct topo_family_ops topo_family_jellyfish = {
	.name = "jellyfish",
	.traits = { .routing = "shortest" },
	.kind = TOPO_JELLYFISH,
	.opts = opts,
	.build = build,
};
