/* fuzz_pattern_spec.c - traffic pattern specs ("random:2,seed=3",
 * "stencil:dims=4x4") through flows_pattern_check and flows_pattern.
 * Input: the spec line, then bytes: the rank count (0..255), the seed and
 * whether the ranks map onto a node list (given by the following bytes,
 * which may repeat a node).
 *
 * Checked, as flows.h states it: a spec flows_pattern_check refuses is
 * refused by flows_pattern too; generated flows join two distinct nodes
 * of the list (ranks below the count without one) with a positive finite
 * demand, and at most alltoall's order of them; the same spec and seed
 * give the same flows, and a pattern that draws nothing gives them for
 * any seed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/traffic/flows.h"
#include "tests/fuzz/fuzz.h"

#define MAX_INPUT 1024

static int same(const struct flows *a, const struct flows *b)
{
	if (a->n != b->n)
		return 0;
	return !a->n || /* no arrays then */
	       (!memcmp(a->src, b->src, a->n * sizeof(*a->src)) &&
		!memcmp(a->dst, b->dst, a->n * sizeof(*a->dst)) &&
		!memcmp(a->demand, b->demand, a->n * sizeof(*a->demand)));
}

static void check_flows(const struct flows *f, const uint32_t *nodes,
			uint32_t n, uint32_t maxid)
{
	uint8_t *in = calloc(maxid + 1, 1);

	if (!in)
		return;
	for (uint32_t i = 0; i < n; i++)
		in[nodes ? nodes[i] : i] = 1;
	for (uint32_t k = 0; k < f->n; k++) {
		FUZZ_CHECK(f->src[k] <= maxid && f->dst[k] <= maxid &&
				   in[f->src[k]] && in[f->dst[k]],
			   "flow %u: %u -> %u outside the node list", k,
			   f->src[k], f->dst[k]);
		FUZZ_CHECK(f->src[k] != f->dst[k], "flow %u: self-flow on %u",
			   k, f->src[k]);
		FUZZ_CHECK(isfinite(f->demand[k]) && f->demand[k] > 0,
			   "flow %u: demand %g", k, f->demand[k]);
	}
	free(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct err ec = { 0 }, err = { 0 };
	struct flows f, g;
	uint32_t n, nodes[256], maxid = 0, *list = NULL;
	uint64_t seed;
	char *spec;
	int checked, rc;

	if (size > MAX_INPUT || !(spec = fuzz_line(&in)))
		return 0;
	n = fuzz_u8(&in);
	seed = fuzz_u64(&in);
	if (fuzz_u8(&in) & 1) {
		for (uint32_t i = 0; i < n; i++) {
			nodes[i] = fuzz_u16(&in);
			if (nodes[i] > maxid)
				maxid = nodes[i];
		}
		list = nodes;
	} else if (n) {
		maxid = n - 1;
	}
	flows_init(&f);
	flows_init(&g);
	checked = flows_pattern_check(spec, &ec);
	rc = flows_pattern(spec, list, n, seed, &f, &err);
	if (checked) {
		FUZZ_CHECK_ERR(&ec, NULL, 0);
		FUZZ_CHECK(rc, "flows_pattern takes '%s', the check says: %s",
			   spec, ec.msg);
	}
	if (rc) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		FUZZ_CHECK(f.n == 0, "%u flows left after an error", f.n);
	} else {
		/* no pattern makes more flows than alltoall's order (the
		 * stencil: two per dimension and rank) */
		FUZZ_CHECK(f.n <= (n * (n - 1) > 16 * n ? n * (n - 1) : 16 * n),
			   "'%s': %u flows on %u ranks", spec, f.n, n);
		check_flows(&f, list, n, maxid);
		FUZZ_CHECK(!flows_pattern(spec, list, n, seed, &g, &err) &&
				   same(&f, &g),
			   "'%s': the same seed gives other flows", spec);
		if (!flows_pattern_random(spec))
			FUZZ_CHECK(!flows_pattern(spec, list, n, seed + 1, &g,
						  &err) &&
					   same(&f, &g),
				   "'%s' draws nothing but depends on the seed",
				   spec);
	}
	flows_free(&f);
	flows_free(&g);
	free(spec);
	return 0;
}
