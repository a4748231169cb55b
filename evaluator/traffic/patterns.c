/* patterns.c - traffic pattern generators (paper 000: random(X), perm(X);
 * paper 001 Sec. III-B: transpose, butterfly, bit reversal, perfect
 * shuffle, hot-region; paper 003 Sec. III-B: Unstructured Mesh, Stencil,
 * Pairs, Spread, Sub-AlltoAll; paper 004 Eq. 8-11: stencil demands).
 *
 * Every generator works on ranks 0..n-1; emit() maps ranks to node ids.
 * Random choices come from topo/rng.h only, in a fixed order, so a spec
 * and a seed determine the flows.  Definitions (also in stopo-eval(1)):
 *
 *   random:X   every rank sends to X distinct other ranks, uniform
 *              (Floyd's sampling), X <= n-1.
 *   perm:X     X uniform random derangements (Fisher-Yates, rejected
 *              while a fixed point exists): rank i -> pi_j(i), X <= n-1.
 *   shift:x    i -> (i + x) mod n, x mod n != 0; bare "shift" draws x
 *              uniformly from 1..n-1.
 *   alltoall   every ordered pair of distinct ranks.
 *   bit patterns (n = 2^b, b >= 1; other n are an error, restrict the
 *              ranks with --nodes), s = source bits s_{b-1}..s_0:
 *              transpose d = s rotated right by floor(b/2) bits (the
 *                        matrix transpose when b is even),
 *              bitrev    d_i = s_{b-1-i},
 *              bitcomp   d_i = not s_i,
 *              shuffle   d = s rotated left by 1 bit,
 *              butterfly s with bits 0 and b-1 swapped;
 *              ranks the permutation maps to themselves send nothing.
 *   tornado    i -> (i + ceil(n/2) - 1) mod n, n >= 3.
 *   hotregion  every rank s sends to every other rank d with demand
 *              0.75/(n-1) + [d < h] * 0.25/(h - [s < h]), h = max(1, n/8):
 *              25 % of each rank's traffic to ranks 0..h-1, 75 % uniform;
 *              a rank's demands sum to 1 (when s is the only hot rank its
 *              hot share is spread uniformly instead).
 *   stencil:dims=B0xB1x..[,elements=A0xA1x..]  ranks on a periodic
 *              Cartesian grid (rank = x0 + B0*(x1 + B1*x2 ...)), n = prod
 *              Bk; every rank sends to its two neighbours along each axis
 *              with Bk > 1 (one neighbour, both faces, when Bk = 2).
 *              Demand 1 per face; with elements= the demand is paper 004
 *              Eq. 10-11: m_k*(1 + [Bk = 2]), m_k = (Bk/Ak) /
 *              (2 sum_{i: Bi>1} Bi/Ai), proportional to the contact
 *              surface mu_k of Eq. 8, each rank's demands summing to 1
 *              (Ak must be a multiple of Bk).
 *   subA2A:size=S  ranks in consecutive groups of S (the last group may
 *              be smaller), all-to-all inside each group.
 *   spread:X   a random relabelling pi and X distinct random offsets o_j
 *              in 1..n-1: pi(i) -> pi((i + o_j) mod n); every rank sends
 *              to X distinct ranks and receives from X.
 *   pairs      a random perfect matching (pi(2i), pi(2i+1)), both
 *              directions; with odd n one rank sends nothing.
 *   umesh:degree=D  unstructured mesh: every rank picks D distinct ranks
 *              uniformly from its ring window i-D..i+D (mod n), the
 *              neighbour relation is made symmetric and every neighbour
 *              pair exchanges in both directions (D..2D neighbours).
 * Random patterns accept seed=S in the spec, overriding the caller's seed.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/traffic/flows.h"
#include "topo/util/spec.h"
#include "topo/util/rng.h"

#define MAX_DIMS 8

struct gen {
	const char *text;	     /* the spec as given, for messages */
	const struct spec *a;	     /* parsed and checked */
	const struct spec_opt *opts; /* the pattern's options */
	const uint32_t *nodes;
	uint32_t n;
	struct rng rng;
	struct flows *out;
	struct err *err;
};

static int perr_code(const struct gen *g, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr_code(const struct gen *g, int code, const char *fmt, ...)
{
	char buf[192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return err_code(g->err, code, "pattern '%s': %s", g->text, buf);
}

/* Bad pattern text; the same out of memory. */
#define perr(g, ...) perr_code(g, EINVAL, __VA_ARGS__)
#define perr_nomem(g) perr_code(g, ENOMEM, "out of memory")

static int emit(struct gen *g, uint32_t s, uint32_t d, double w)
{
	uint32_t a = g->nodes ? g->nodes[s] : s;
	uint32_t b = g->nodes ? g->nodes[d] : d;

	if (flows_add(g->out, a, b, w))
		return err_nomem(g->err,
				 "pattern '%s': out of memory (or more "
				 "than 2^32 flows)",
				 g->text);
	return 0;
}

/* Argument KEY: given (as key= or the bare first value), else its
 * default, else NULL. */
static const char *arg_get(const struct gen *g, const char *key)
{
	return spec_value(g->a, g->opts, key);
}

static int parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	*v = strtoul(s, &end, 10);
	return errno || *end ? -1 : 0;
}

/* Argument KEY (given or default, see arg_get); must lie in [lo, hi]. */
static int count_arg(struct gen *g, const char *key, unsigned long lo,
		     unsigned long hi, unsigned long *out)
{
	const char *s = arg_get(g, key);

	if (!s)
		return perr(g, "needs %s=", key);
	if (parse_ulong(s, out))
		return perr(g, "%s: not a non-negative integer", key);
	if (*out < lo || *out > hi) {
		char buf[96];

		snprintf(buf, sizeof(buf), "%s=%lu out of range %lu..%lu", key,
			 *out, lo, hi);
		return perr(g, "%s (for %u ranks)", buf, g->n);
	}
	return 0;
}

static int need_ranks(struct gen *g, uint32_t min)
{
	if (g->n < min)
		return perr(g, "needs at least %u ranks", min);
	return 0;
}

/* Choose K distinct values from [0, M) into OUT (Floyd's algorithm), using
 * MARK (M bytes, all 0 on entry and on return). */
static void floyd(struct rng *r, uint32_t m, uint32_t k, uint32_t *out,
		  uint8_t *mark)
{
	for (uint32_t j = m - k, i = 0; j < m; j++, i++) {
		uint32_t t = (uint32_t)rng_below(r, (uint64_t)j + 1);

		if (mark[t])
			t = j;
		mark[t] = 1;
		out[i] = t;
	}
	for (uint32_t i = 0; i < k; i++)
		mark[out[i]] = 0;
}

static void shuffle_perm(struct rng *r, uint32_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)rng_below(r, i);
		uint32_t t = p[i - 1];

		p[i - 1] = p[j];
		p[j] = t;
	}
}

static int gen_random(struct gen *g)
{
	unsigned long x;
	uint32_t *pick;
	uint8_t *mark;
	int rc = 0;

	if (need_ranks(g, 2) || count_arg(g, "x", 1, g->n - 1, &x))
		return -1;
	pick = malloc(x * sizeof(*pick));
	mark = calloc(g->n, 1);
	if (!pick || !mark) {
		rc = perr_nomem(g);
		goto out;
	}
	for (uint32_t s = 0; s < g->n && !rc; s++) {
		/* X of the n-1 others: values >= s shift up by one */
		floyd(&g->rng, g->n - 1, (uint32_t)x, pick, mark);
		for (uint32_t i = 0; i < x && !rc; i++)
			rc = emit(g, s, pick[i] + (pick[i] >= s), 1.0);
	}
out:
	free(pick);
	free(mark);
	return rc;
}

static int gen_perm(struct gen *g)
{
	unsigned long x;
	uint32_t *p;
	int rc = 0;

	/* at most n-1 permutations, as random: and spread: take at most n-1
	 * destinations: no pattern makes more flows than alltoall's order
	 * (a job's prediction in the plugin generates them) */
	if (need_ranks(g, 2) || count_arg(g, "x", 1, g->n - 1, &x))
		return -1;
	if ((uint64_t)x * g->n >= UINT32_MAX)
		return perr(g, "too many flows");
	p = malloc(g->n * sizeof(*p));
	if (!p)
		return perr_nomem(g);
	for (unsigned long j = 0; j < x && !rc; j++) {
		bool fixed;

		do {
			shuffle_perm(&g->rng, p, g->n);
			fixed = false;
			for (uint32_t i = 0; i < g->n && !fixed; i++)
				fixed = p[i] == i;
		} while (fixed);
		for (uint32_t i = 0; i < g->n && !rc; i++)
			rc = emit(g, i, p[i], 1.0);
	}
	free(p);
	return rc;
}

static int gen_shift(struct gen *g)
{
	unsigned long x;
	const char *s;

	if (need_ranks(g, 2))
		return -1;
	s = arg_get(g, "x");
	if (!s) {
		x = 1 + rng_below(&g->rng, g->n - 1);
	} else {
		if (count_arg(g, "x", 0, ULONG_MAX, &x))
			return -1;
		if (x % g->n == 0)
			return perr(g,
				    "shift %lu is a multiple of the rank "
				    "count (self-flows)",
				    x);
		x %= g->n;
	}
	for (uint32_t i = 0; i < g->n; i++)
		if (emit(g, i, (uint32_t)((i + x) % g->n), 1.0))
			return -1;
	return 0;
}

static int gen_alltoall(struct gen *g)
{
	if (need_ranks(g, 2))
		return -1;
	if ((uint64_t)g->n * (g->n - 1) >= UINT32_MAX)
		return perr(g, "%u ranks give more than 2^32 flows", g->n);
	for (uint32_t s = 0; s < g->n; s++)
		for (uint32_t d = 0; d < g->n; d++)
			if (s != d && emit(g, s, d, 1.0))
				return -1;
	return 0;
}

/* ---- bit permutations ---- */

static uint32_t rotl(uint32_t v, unsigned r, unsigned b)
{
	uint32_t mask = b >= 32 ? UINT32_MAX : (1u << b) - 1;

	r %= b;
	if (!r)
		return v;
	return ((v << r) | (v >> (b - r))) & mask;
}

static uint32_t bit_dest(const char *name, uint32_t s, unsigned b)
{
	uint32_t d = 0;

	if (!strcmp(name, "transpose"))
		return rotl(s, b - b / 2, b); /* right by floor(b/2) */
	if (!strcmp(name, "shuffle"))
		return rotl(s, 1, b);
	if (!strcmp(name, "bitcomp"))
		return ~s & (b >= 32 ? UINT32_MAX : (1u << b) - 1);
	if (!strcmp(name, "bitrev")) {
		for (unsigned i = 0; i < b; i++)
			if (s & (1u << i))
				d |= 1u << (b - 1 - i);
		return d;
	}
	/* butterfly: swap bits 0 and b-1 */
	d = s & ~(1u | (1u << (b - 1)));
	if (s & 1u)
		d |= 1u << (b - 1);
	if (s & (1u << (b - 1)))
		d |= 1u;
	return d;
}

static int gen_bits(struct gen *g)
{
	unsigned b = 0;

	if (g->n < 2 || (g->n & (g->n - 1)))
		return perr(g,
			    "needs a power-of-two rank count, got %u "
			    "(use --nodes to pick 2^b nodes)",
			    g->n);
	while ((1u << b) < g->n)
		b++;
	for (uint32_t s = 0; s < g->n; s++) {
		uint32_t d = bit_dest(g->a->name, s, b);

		if (d != s && emit(g, s, d, 1.0))
			return -1;
	}
	return 0;
}

static int gen_tornado(struct gen *g)
{
	uint32_t off;

	if (need_ranks(g, 3))
		return -1;
	off = (g->n + 1) / 2 - 1;
	for (uint32_t i = 0; i < g->n; i++)
		if (emit(g, i, (uint32_t)(((uint64_t)i + off) % g->n), 1.0))
			return -1;
	return 0;
}

static int gen_hotregion(struct gen *g)
{
	uint32_t h;

	if (need_ranks(g, 2))
		return -1;
	if ((uint64_t)g->n * (g->n - 1) >= UINT32_MAX)
		return perr(g, "%u ranks give more than 2^32 flows", g->n);
	h = g->n / 8 ? g->n / 8 : 1;
	for (uint32_t s = 0; s < g->n; s++) {
		uint32_t hot = h - (s < h);

		for (uint32_t d = 0; d < g->n; d++) {
			double w;

			if (d == s)
				continue;
			if (hot == 0)
				w = 1.0 / (g->n - 1);
			else
				w = 0.75 / (g->n - 1) +
				    (d < h ? 0.25 / hot : 0);
			if (emit(g, s, d, w))
				return -1;
		}
	}
	return 0;
}

/* ---- application patterns (paper 003) ---- */

static int parse_dims(struct gen *g, const char *key, const char *s,
		      uint32_t *v, int *nd)
{
	*nd = 0;
	while (*s) {
		char *end;
		unsigned long x;

		errno = 0;
		if (!isdigit((unsigned char)*s))
			break;
		x = strtoul(s, &end, 10);
		if (errno || x == 0 || x > UINT32_MAX || *nd == MAX_DIMS)
			break;
		v[(*nd)++] = (uint32_t)x;
		s = end;
		if (*s == 'x' || *s == 'X')
			s++;
		else if (*s)
			break;
		else
			return 0;
	}
	return perr(g, "%s: expected up to 8 positive sizes like 8x8x4", key);
}

static int gen_stencil(struct gen *g)
{
	const char *ds = arg_get(g, "dims");
	const char *es = arg_get(g, "elements");
	uint32_t beta[MAX_DIMS], alpha[MAX_DIMS];
	double m[MAX_DIMS], sum = 0;
	int nd, na;
	uint64_t prod = 1;

	if (!ds)
		return perr(g, "needs dims=B0xB1x..");
	if (parse_dims(g, "dims", ds, beta, &nd))
		return -1;
	for (int k = 0; k < nd; k++) {
		prod *= beta[k]; /* both below 2^32: no overflow */
		if (prod > UINT32_MAX)
			return perr(g, "dims=%s: more than %u ranks", ds,
				    UINT32_MAX);
	}
	if (prod != g->n)
		return err_set(g->err,
			       "pattern '%s': dims=%s has %llu ranks, "
			       "the node list %u",
			       g->text, ds, (unsigned long long)prod, g->n);
	for (int k = 0; k < nd; k++)
		m[k] = 1.0;
	if (es) {
		if (parse_dims(g, "elements", es, alpha, &na))
			return -1;
		if (na != nd)
			return perr(g,
				    "elements=%s: one size per dimension of "
				    "dims (%lu)",
				    es, (unsigned long)nd);
		for (int k = 0; k < nd; k++) {
			if (alpha[k] % beta[k])
				return perr(g,
					    "elements=%s: each size must be a "
					    "multiple of the dims size (%lu)",
					    es, (unsigned long)beta[k]);
			if (beta[k] > 1)
				sum += (double)beta[k] / alpha[k];
		}
		for (int k = 0; k < nd; k++)
			m[k] = sum > 0 ?
				       (double)beta[k] / alpha[k] / (2 * sum) :
				       0;
	}
	for (uint32_t r = 0; r < g->n; r++) {
		uint32_t stride = 1, x, rest = r;

		for (int k = 0; k < nd; k++) {
			x = rest % beta[k];
			rest /= beta[k];
			if (beta[k] > 1) {
				uint32_t up = r - x * stride +
					      ((x + 1) % beta[k]) * stride;
				uint32_t down =
					r - x * stride +
					((x + beta[k] - 1) % beta[k]) * stride;

				if (beta[k] == 2) {
					if (emit(g, r, up, 2 * m[k]))
						return -1;
				} else if (emit(g, r, up, m[k]) ||
					   emit(g, r, down, m[k])) {
					return -1;
				}
			}
			stride *= beta[k];
		}
	}
	return 0;
}

static int gen_suba2a(struct gen *g)
{
	unsigned long size;

	if (!arg_get(g, "size"))
		return perr(g, "needs size=S");
	if (need_ranks(g, 2) || count_arg(g, "size", 2, g->n, &size))
		return -1;
	if ((uint64_t)g->n * (size - 1) >= UINT32_MAX)
		return perr(g, "too many flows");
	for (uint32_t base = 0; base < g->n; base += (uint32_t)size) {
		uint32_t end = base + size < g->n ? base + (uint32_t)size :
						    g->n;

		for (uint32_t s = base; s < end; s++)
			for (uint32_t d = base; d < end; d++)
				if (s != d && emit(g, s, d, 1.0))
					return -1;
	}
	return 0;
}

static int gen_spread(struct gen *g)
{
	unsigned long x;
	uint32_t *pi, *off;
	uint8_t *mark;
	int rc = 0;

	if (need_ranks(g, 2) || count_arg(g, "x", 1, g->n - 1, &x))
		return -1;
	pi = malloc(g->n * sizeof(*pi));
	off = malloc(x * sizeof(*off));
	mark = calloc(g->n, 1);
	if (!pi || !off || !mark) {
		rc = perr_nomem(g);
		goto out;
	}
	shuffle_perm(&g->rng, pi, g->n);
	floyd(&g->rng, g->n - 1, (uint32_t)x, off, mark);
	for (uint32_t i = 0; i < g->n && !rc; i++)
		for (uint32_t j = 0; j < x && !rc; j++)
			rc = emit(g, pi[i],
				  pi[((uint64_t)i + off[j] + 1) % g->n], 1.0);
out:
	free(pi);
	free(off);
	free(mark);
	return rc;
}

static int gen_pairs(struct gen *g)
{
	uint32_t *pi;
	int rc = 0;

	if (need_ranks(g, 2))
		return -1;
	pi = malloc(g->n * sizeof(*pi));
	if (!pi)
		return perr_nomem(g);
	shuffle_perm(&g->rng, pi, g->n);
	for (uint32_t i = 0; i + 1 < g->n && !rc; i += 2)
		rc = emit(g, pi[i], pi[i + 1], 1.0) ||
		     emit(g, pi[i + 1], pi[i], 1.0);
	free(pi);
	return rc ? -1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int gen_umesh(struct gen *g)
{
	unsigned long deg;
	uint32_t w, win, *pick;
	uint64_t *edge, nedge = 0;
	uint8_t *mark;
	int rc = 0;

	if (!arg_get(g, "degree"))
		return perr(g, "needs degree=D");
	if (need_ranks(g, 2) || count_arg(g, "degree", 1, g->n - 1, &deg))
		return -1;
	/* the window: D ranks on each side, or all others when that wraps */
	w = (uint32_t)deg;
	win = 2 * (uint64_t)w >= g->n - 1 ? g->n - 1 : 2 * w;
	pick = malloc(deg * sizeof(*pick));
	mark = calloc(g->n, 1);
	edge = malloc((size_t)g->n * deg * sizeof(*edge));
	if (!pick || !mark || !edge) {
		rc = perr_nomem(g);
		goto out;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		floyd(&g->rng, win, (uint32_t)deg, pick, mark);
		for (uint32_t j = 0; j < deg; j++) {
			uint32_t d;

			if (win == g->n - 1) { /* every other rank */
				d = pick[j] + (pick[j] >= i);
			} else { /* offsets -w..-1, 1..w */
				int64_t o = pick[j] < w ?
						    -(int64_t)w + pick[j] :
						    (int64_t)pick[j] - w + 1;
				d = (uint32_t)(((int64_t)i + o + g->n) % g->n);
			}
			edge[nedge++] = i < d ? (uint64_t)i << 32 | d :
						(uint64_t)d << 32 | i;
		}
	}
	qsort(edge, nedge, sizeof(*edge), cmp_u64);
	for (uint64_t e = 0; e < nedge && !rc; e++) {
		uint32_t a = (uint32_t)(edge[e] >> 32), b = (uint32_t)edge[e];

		if (e && edge[e] == edge[e - 1])
			continue;
		rc = emit(g, a, b, 1.0) || emit(g, b, a, 1.0);
	}
	rc = rc ? -1 : 0;
out:
	free(pick);
	free(mark);
	free(edge);
	return rc;
}

/* ---- the registry ----
 *
 * A pattern declares its arguments once: the bare first value of
 * "random:2" sets the option marked .positional; a pattern that draws
 * random numbers declares seed= (default: the caller's seed), which is
 * what makes it random. */

struct pattern_ops {
	const char *name;
	const struct spec_opt *opts; /* { 0 }-terminated; NULL: none */
	int (*gen)(struct gen *g);
};

static const struct spec_opt random_opts[] = {
	{ .key = "x",
	  .def = "1",
	  .help = "destinations per rank",
	  .positional = true },
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};
static const struct spec_opt perm_opts[] = {
	{ .key = "x", .def = "1", .help = "permutations", .positional = true },
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};
static const struct spec_opt shift_opts[] = {
	{ .key = "x",
	  .help = "distance (default: drawn from 1..n-1)",
	  .positional = true },
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};
static const struct spec_opt stencil_opts[] = {
	{ .key = "dims", .help = "rank grid B0xB1x.. (required)" },
	{ .key = "elements", .help = "element grid A0xA1x.. (demands)" },
	{ 0 },
};
static const struct spec_opt suba2a_opts[] = {
	{ .key = "size", .help = "group size S (required)" },
	{ 0 },
};
static const struct spec_opt spread_opts[] = {
	{ .key = "x",
	  .def = "1",
	  .help = "offsets per rank",
	  .positional = true },
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};
static const struct spec_opt pairs_opts[] = {
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};
static const struct spec_opt umesh_opts[] = {
	{ .key = "degree", .help = "picks per rank D (required)" },
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};

static const struct pattern_ops patterns[] = {
	{ .name = "random", .opts = random_opts, .gen = gen_random },
	{ .name = "perm", .opts = perm_opts, .gen = gen_perm },
	{ .name = "shift", .opts = shift_opts, .gen = gen_shift },
	{ .name = "alltoall", .gen = gen_alltoall },
	{ .name = "transpose", .gen = gen_bits },
	{ .name = "bitrev", .gen = gen_bits },
	{ .name = "bitcomp", .gen = gen_bits },
	{ .name = "shuffle", .gen = gen_bits },
	{ .name = "butterfly", .gen = gen_bits },
	{ .name = "tornado", .gen = gen_tornado },
	{ .name = "hotregion", .gen = gen_hotregion },
	{ .name = "stencil", .opts = stencil_opts, .gen = gen_stencil },
	{ .name = "subA2A", .opts = suba2a_opts, .gen = gen_suba2a },
	{ .name = "spread", .opts = spread_opts, .gen = gen_spread },
	{ .name = "pairs", .opts = pairs_opts, .gen = gen_pairs },
	{ .name = "umesh", .opts = umesh_opts, .gen = gen_umesh },
	{ 0 },
};

/* How pattern specs are written: "random:2,seed=3", "stencil:dims=4x4". */
static const struct spec_syntax pattern_syntax = { SPEC_POSITIONAL,
						   "argument" };

static const char *pattern_at(size_t i)
{
	return patterns[i].name;
}

/* Derived once from the registry (pthread_once: safe under threads). */
static const char *names[sizeof(patterns) / sizeof(patterns[0])];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void fill_names(void)
{
	for (size_t i = 0; patterns[i].name; i++)
		names[i] = patterns[i].name;
}

const char *const *flows_pattern_names(void)
{
	pthread_once(&names_once, fill_names);
	return names;
}

static const struct pattern_ops *find(const char *name)
{
	for (size_t i = 0; patterns[i].name; i++)
		if (!strcmp(patterns[i].name, name))
			return &patterns[i];
	return NULL;
}

static bool draws_random(const struct pattern_ops *pt)
{
	for (size_t i = 0; pt->opts && pt->opts[i].key; i++)
		if (!strcmp(pt->opts[i].key, "seed"))
			return true;
	return false;
}

/* Parse TEXT and check it against its pattern's table into A; *PT is the
 * pattern.  Errors: "pattern 'TEXT': what". */
static int parse(const char *text, struct spec *a,
		 const struct pattern_ops **pt, struct err *err)
{
	char known[256];

	if (spec_parse(text, &pattern_syntax, a, err))
		return err_prefix(err, "pattern '%s'", text);
	*pt = find(a->name);
	if (!*pt)
		return err_set(
			err, "pattern '%s': unknown pattern '%s' (known: %s)",
			text, a->name,
			spec_known_names(pattern_at, known, sizeof(known)));
	if (spec_given(a, "seed") && !draws_random(*pt))
		return err_set(err, "pattern '%s': %s is not random (no seed=)",
			       text, a->name);
	if (spec_check(a, (*pt)->opts, &pattern_syntax, err))
		return err_prefix(err, "pattern '%s'", text);
	return 0;
}

int flows_pattern_random(const char *spec)
{
	struct spec a;
	const struct pattern_ops *pt;

	if (!spec || parse(spec, &a, &pt, NULL))
		return 0;
	/* shift with an explicit distance draws nothing */
	if (!strcmp(a.name, "shift") && spec_given(&a, "x"))
		return 0;
	return draws_random(pt);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* A rank list must not repeat a node (that would make self-flows). */
static int check_nodes(const uint32_t *nodes, uint32_t n, const char *spec,
		       struct err *err)
{
	uint32_t *c;
	int rc = 0;

	if (!nodes || n < 2)
		return 0;
	c = malloc((size_t)n * sizeof(*c));
	if (!c)
		return err_nomem(err, "pattern '%s': out of memory", spec);
	memcpy(c, nodes, (size_t)n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_u32);
	for (uint32_t i = 1; i < n && !rc; i++)
		if (c[i] == c[i - 1])
			rc = err_set(err,
				     "pattern '%s': node %u appears twice "
				     "in the node list",
				     spec, c[i]);
	free(c);
	return rc;
}

/* The seed= of A, when given, into *SEED. */
static int given_seed(const struct spec *a, const char *spec, uint64_t *seed,
		      struct err *err)
{
	const char *s = spec_given(a, "seed");
	unsigned long long sv;
	char *end;

	if (!s)
		return 0;
	errno = 0;
	sv = strtoull(s, &end, 10);
	if (errno || *end || !isdigit((unsigned char)*s))
		return err_set(err,
			       "pattern '%s': seed: not a non-negative "
			       "integer",
			       spec);
	*seed = sv;
	return 0;
}

int flows_pattern_check(const char *spec, struct err *err)
{
	struct spec a;
	const struct pattern_ops *pt;
	uint64_t seed = 0;

	if (!spec)
		return err_set(err, "pattern: no spec");
	return parse(spec, &a, &pt, err) || given_seed(&a, spec, &seed, err) ?
		       -1 :
		       0;
}

int flows_pattern(const char *spec, const uint32_t *nodes, uint32_t n,
		  uint64_t seed, struct flows *out, struct err *err)
{
	struct spec a;
	struct gen g;
	const struct pattern_ops *pt;

	if (!spec || !out)
		return err_set(err, "pattern: no spec");
	if (parse(spec, &a, &pt, err) || check_nodes(nodes, n, spec, err) ||
	    given_seed(&a, spec, &seed, err))
		return -1;
	g.text = spec;
	g.a = &a;
	g.opts = pt->opts;
	g.nodes = nodes;
	g.n = n;
	g.out = out;
	g.err = err;
	rng_seed(&g.rng, seed);
	flows_clear(out);
	if (pt->gen(&g)) {
		flows_clear(out);
		return -1;
	}
	return 0;
}
