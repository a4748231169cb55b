/* fuzz_cell.c - the cells of stopo whatif --array (DIR/cells/K.json)
 * through whatif_json_check and whatif_result_from_json, as --merge
 * reads them.
 *
 * Checked: an error names the cell ("cell: ...") or its line
 * ("cell:LINE: ..."), and leaves the result empty; a result read has its
 * jobs' node ranges within the counts they give, and written out again
 * (whatif_result_json) reads back to the same jobs. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sim/whatif.h"
#include "tests/fuzz/fuzz.h"

#define NAME "cell"
#define MAX_INPUT 16384

static void same_again(const struct whatif_result *r)
{
	struct json_object *o = whatif_result_json(r, true);
	struct whatif_result back;
	struct err err = { 0 };

	if (!o)
		return; /* out of memory */
	FUZZ_CHECK(!whatif_result_from_json(o, NAME, &back, &err),
		   "a cell written again does not read back: %s", err.msg);
	FUZZ_CHECK(back.njob_out == r->njob_out && back.started == r->started,
		   "read back %u jobs, %u started; was %u, %u", back.njob_out,
		   back.started, r->njob_out, r->started);
	for (uint32_t i = 0; i < r->njob_out; i++)
		FUZZ_CHECK(back.jobs[i].n == r->jobs[i].n &&
				   (!r->jobs[i].n ||
				    !memcmp(back.jobs[i].nodes,
					    r->jobs[i].nodes,
					    r->jobs[i].n * sizeof(uint32_t))),
			   "job %u's nodes read back otherwise", i);
	whatif_result_free(&back);
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok;
	struct json_object *o;
	struct whatif_result r;
	struct err err = { 0 };
	const char *text = (const char *)data;

	if (size > MAX_INPUT)
		return 0;
	if (whatif_json_check(NAME, text, size, &err)) {
		FUZZ_CHECK(!strncmp(err.msg, NAME ":", strlen(NAME) + 1),
			   "error without its place: %s", err.msg);
		return 0;
	}
	tok = json_tokener_new();
	if (!tok)
		return 0;
	o = json_tokener_parse_ex(tok, text, (int)size);
	if (o && json_tokener_get_parse_end(tok) == size) {
		if (whatif_result_from_json(o, NAME, &r, &err)) {
			FUZZ_CHECK(!strncmp(err.msg, NAME ":",
					    strlen(NAME) + 1),
				   "error without its cell: %s", err.msg);
			FUZZ_CHECK(!r.jobs && !r.njob_out,
				   "a result left after an error");
		} else {
			same_again(&r);
			whatif_result_free(&r);
		}
	}
	json_object_put(o);
	json_tokener_free(tok);
	return 0;
}
