/* policy_clustered.c - baseline of paper 003 Sec. III-B-2: "most of the
 * nodes assigned to a job are topologically close, but ~10% may be
 * arbitrarily scattered on the system".
 *
 * Node ids follow the topology (leaf by leaf, router by router, group by
 * group), so "close" is a run of free nodes of least id span: for a job of
 * n nodes, c = n - round(n * scatter / 100) nodes are the c consecutive free
 * usable nodes (in id order) whose id span is smallest (ties: lowest
 * start), and the other n - c are drawn at random among the remaining free
 * nodes from seed= mixed with the job id and attempt.  Attempt k takes the
 * k-th window in (span, start) order.  No isolation claim. */
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "seed", .def = "1", .help = "seed of the scattered nodes" },
	{ .key = "scatter",
	  .def = "10",
	  .help = "percent of a job's nodes drawn at random" },
	{ 0 },
};

static int create(struct policy *p, struct err *err)
{
	long x;

	return policy_opt_long(p, "seed", 0, 0x7fffffffL, &x, err) ||
			       policy_opt_long(p, "scatter", 0, 100, &x, err) ?
		       -1 :
		       0;
}

struct win {
	uint32_t span, start;
};

static int cmp_win(const void *a, const void *b)
{
	const struct win *x = a, *y = b;

	if (x->span != y->span)
		return x->span < y->span ? -1 : 1;
	return (x->start > y->start) - (x->start < y->start);
}

/* Start index (in FR) of the ATTEMPT-th window of C free nodes. */
static int pick_window(const uint32_t *fr, uint32_t f, uint32_t c,
		       uint32_t attempt, uint32_t *start)
{
	uint32_t nw = f - c + 1;
	struct win *w;

	if (attempt >= nw)
		return -1;
	if (attempt == 0) {
		uint32_t best = 0;

		for (uint32_t i = 1; i < nw; i++)
			if (fr[i + c - 1] - fr[i] < fr[best + c - 1] - fr[best])
				best = i;
		*start = best;
		return 0;
	}
	w = malloc(nw * sizeof(*w));
	if (!w)
		return -1;
	for (uint32_t i = 0; i < nw; i++)
		w[i] = (struct win){ fr[i + c - 1] - fr[i], i };
	qsort(w, nw, sizeof(*w), cmp_win);
	*start = w[attempt].start;
	free(w);
	return 0;
}

/* Sort K distinct node ids below N through a bitmap of N bits: O(N/64 +
 * K), where qsort of clustered's hundreds of drawn nodes per question was
 * a tenth of a what-if run.  Returns -1 (A untouched) when out of
 * memory. */
static int sort_distinct(uint32_t *a, uint32_t k, uint32_t n)
{
	uint32_t words = (n + 63) / 64, o = 0;
	uint64_t *bits;

	if (k < 2)
		return 0;
	bits = calloc(words, sizeof(*bits));
	if (!bits)
		return -1;
	for (uint32_t i = 0; i < k; i++)
		bits[a[i] / 64] |= UINT64_C(1) << (a[i] % 64);
	for (uint32_t w = 0; w < words; w++)
		for (uint64_t b = bits[w]; b; b &= b - 1)
			a[o++] = w * 64 + (uint32_t)__builtin_ctzll(b);
	free(bits);
	return 0;
}

/* A[0..c) and A[c..n) are each ascending: make A[0..n) ascending, with
 * TMP (n entries) as the buffer. */
static void merge_sorted(uint32_t *a, uint32_t c, uint32_t n, uint32_t *tmp)
{
	uint32_t i = 0, j = c, o = 0;

	if (c == 0 || c == n || a[c - 1] < a[c])
		return;
	while (i < c && j < n)
		tmp[o++] = a[i] < a[j] ? a[i++] : a[j++];
	while (i < c)
		tmp[o++] = a[i++];
	while (j < n)
		tmp[o++] = a[j++];
	memcpy(a, tmp, (size_t)n * sizeof(*a));
}

static enum policy_status place(const struct policy *p,
				const struct policy_view *v,
				const struct policy_request *req,
				struct policy_result *res)
{
	uint64_t seed = strtoull(policy_opt(p, "seed"), NULL, 10);
	long scatter = strtol(policy_opt(p, "scatter"), NULL, 10);
	uint32_t n = req->nodes, nscat, f, c, s;
	uint32_t *fr = policy_free_enough(p, v, n, &f, res);

	if (!fr)
		return POLICY_WAIT;
	nscat = (uint32_t)(((uint64_t)n * (uint64_t)scatter + 50) / 100);
	c = n - nscat;
	if (c == 0) {
		s = 0;
	} else if (pick_window(fr, f, c, req->attempt, &s)) {
		free(fr);
		return policy_say(res, POLICY_NEVER,
				  "no candidate #%u (%u "
				  "windows of %u free nodes)",
				  req->attempt, f - c + 1, c);
	}
	for (uint32_t i = 0; i < c; i++)
		res->nodes[i] = fr[s + i];
	/* the rest: the free nodes outside the window, drawn at random */
	for (uint32_t i = s + c; i < f; i++)
		fr[i - c] = fr[i];
	policy_pick_random(fr, f - c, nscat,
			   policy_seed(seed, req->job_id, req->attempt),
			   res->nodes + c);
	/* the window is in id order already: sort the few drawn nodes and
	 * merge (through FR, no longer needed and at least N long) */
	if (sort_distinct(res->nodes + c, nscat, topo_num_nodes(p->t)))
		policy_sort_u32(res->nodes + c, nscat);
	merge_sorted(res->nodes, c, n, fr);
	res->n = n;
	free(fr);
	return POLICY_PLACED;
}

const struct policy_ops policy_clustered = {
	.name = "clustered",
	.opts = opts,
	.isolating = false,
	.create = create,
	.place = place,
};
