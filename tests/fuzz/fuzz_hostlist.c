/* fuzz_hostlist.c - Slurm hostlist expressions ("nid[0000-0071],login")
 * through hl_error and libslurm (hl_parse), and index lists ("0-3,8")
 * through workload_nodes.  Input: the expression, then optionally a NUL
 * byte and a byte whose lowest bit picks the index-list path.
 *
 * Checked: what hl_error accepts, libslurm parses into as many names as
 * the expression says (the product of each name's bracket ranges,
 * counted here independently), shifts out exactly that many well-formed
 * names, and its ranged form parses back to the same names; index lists
 * give ids below the node count, as many as the ranges hold. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sim/workload.h"
#include "tests/fuzz/fuzz.h"
#include "topo/util/hl.h"

#define MAX_INPUT 1024
#define MAX_EXPAND 20000u /* names shifted out only below */
#define NNODES 4096u	  /* index lists: node ids below */

/* Ids in index list LIST ("0-3,8"), which workload_nodes accepted. */
static double count_indices(const char *s)
{
	double total = 0;

	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		total += (double)(hi - lo + 1);
		s = *end ? end + 1 : end;
	}
	return total;
}

static void check_hostlist(const char *expr)
{
	const char *why = hl_error(expr);
	struct hl *h, *back;
	double want;
	uint64_t n;
	char *ranged, **names;

	if (why) {
		FUZZ_CHECK(!hl_parse(expr), "hl_parse takes what hl_error "
					    "refuses");
		return;
	}
	h = hl_parse(expr);
	if (!h)
		return; /* out of memory */
	want = fuzz_hl_names(expr);
	n = hl_count(h);
	FUZZ_CHECK((double)n == want,
		   "'%s': libslurm counts %llu names, the "
		   "expression says %.0f",
		   expr, (unsigned long long)n, want);
	if (n > MAX_EXPAND) {
		hl_destroy(h);
		return;
	}
	ranged = hl_ranged(h);
	names = calloc(n ? n : 1, sizeof(*names));
	back = ranged ? hl_parse(ranged) : NULL;
	FUZZ_CHECK(!ranged || back, "ranged form '%s' of '%s' does not parse",
		   ranged, expr);
	for (uint64_t i = 0; names && i < n; i++) {
		names[i] = hl_shift(h);
		FUZZ_CHECK(names[i] && *names[i], "'%s': name %llu missing",
			   expr, (unsigned long long)i);
		for (const char *c = names[i]; *c; c++)
			FUZZ_CHECK(isalnum((unsigned char)*c) || *c == '.' ||
					   *c == '_' || *c == '-',
				   "'%s': name '%s'", expr, names[i]);
	}
	FUZZ_CHECK(!names || !hl_shift(h), "'%s': more than %llu names", expr,
		   (unsigned long long)n);
	for (uint64_t i = 0; names && back && i < n; i++) {
		char *b = hl_shift(back);

		FUZZ_CHECK(b && !strcmp(b, names[i]),
			   "'%s' ranged as '%s': name %llu is '%s', not '%s'",
			   expr, ranged, (unsigned long long)i, b ? b : "",
			   names[i]);
		free(b);
	}
	for (uint64_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	free(ranged);
	hl_destroy(back);
	hl_destroy(h);
}

static void check_indices(const char *list)
{
	struct err err = { 0 };
	uint32_t n = 0, *v = workload_nodes(list, NULL, NNODES, &n, &err);

	if (!v) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		return;
	}
	FUZZ_CHECK(n >= 1 && (double)n == count_indices(list), "'%s': %u ids",
		   list, n);
	for (uint32_t i = 0; i < n; i++)
		FUZZ_CHECK(v[i] < NNODES, "'%s': id %u", list, v[i]);
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	const uint8_t *opt;
	char *expr;

	if (size > MAX_INPUT)
		return 0;
	opt = fuzz_options(&in, 1);
	if (!(expr = fuzz_rest(&in)))
		return 0;
	if (opt && (opt[0] & 1))
		check_indices(expr);
	else
		check_hostlist(expr);
	free(expr);
	return 0;
}
