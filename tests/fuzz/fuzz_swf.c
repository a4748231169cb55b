/* fuzz_swf.c - the Standard Workload Format (one job per line, 18 fields) through the workload reader; the checks are
 * fuzz_workload.c's. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_workload(data, size, WL_SWF, 0, 0);
}
