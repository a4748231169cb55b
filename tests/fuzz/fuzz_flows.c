/* fuzz_flows.c - flows files ("src dst [demand]" lines) through
 * flows_read.  Input: two bytes giving the node count (1..1024), then the
 * file.
 *
 * Checked: errors are "fuzz.flows:LINE: what" with LINE a line of the file
 * (or "fuzz.flows: what"); read flows have node ids below the node count,
 * no self-flow and positive finite demands, and the list is not empty. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "evaluator/traffic/flows.h"
#include "tests/fuzz/fuzz.h"

#define NAME "fuzz.flows"
#define MAX_INPUT 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct err err = { 0 };
	struct flows f;
	const uint8_t *opt;
	uint32_t nnodes = 1024;
	FILE *fp;

	if (size > MAX_INPUT)
		return 0;
	if ((opt = fuzz_options(&in, 2)))
		nnodes = 1 + (uint32_t)(opt[0] | opt[1] << 8) % 1024;
	/* fmemopen of 0 bytes fails: an empty file is a "w+" stream */
	fp = in.n ? fmemopen((void *)in.p, in.n, "r") : tmpfile();
	if (!fp)
		return 0;
	flows_init(&f);
	if (flows_read(fp, NAME, nnodes, &f, &err)) {
		FUZZ_CHECK_ERR(&err, NAME,
			       fuzz_lines((const char *)in.p, in.n));
	} else {
		FUZZ_CHECK(f.n > 0, "no flows and no error");
		for (uint32_t k = 0; k < f.n; k++) {
			FUZZ_CHECK(f.src[k] < nnodes && f.dst[k] < nnodes,
				   "flow %u: %u -> %u of %u nodes", k, f.src[k],
				   f.dst[k], nnodes);
			FUZZ_CHECK(f.src[k] != f.dst[k], "flow %u: self-flow",
				   k);
			FUZZ_CHECK(isfinite(f.demand[k]) && f.demand[k] > 0,
				   "flow %u: demand %g", k, f.demand[k]);
		}
	}
	fclose(fp);
	flows_free(&f);
	return 0;
}
