/* fuzz_csv.c - CSV job lists (id,submit,nodes,runtime,limit[,pattern[,comm_fraction]]) through the workload reader; the checks are
 * fuzz_workload.c's. */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_workload(data, size, WL_CSV, 0, 0);
}
