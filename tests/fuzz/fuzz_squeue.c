/* fuzz_squeue.c - squeue --json output (running jobs' nodes mapped through NodeName=) through the workload reader; the checks are
 * fuzz_workload.c's. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_workload(data, size, WL_JSON, 0, 0x20);
}
