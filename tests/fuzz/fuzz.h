/* fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share.
 *
 * Each fuzz_<path>.c defines LLVMFuzzerTestOneInput for one input path of
 * the product (a reader, a spec grammar, the plugin adapter's request
 * path) and checks what it can of the answer: a crash, a sanitizer report,
 * a leak or a broken invariant (FUZZ_CHECK: message, then abort()) is a
 * finding.  The same file links with libFuzzer (make fuzz, clang) or with
 * replay.c (make check, any compiler), which feeds it the regression
 * corpus tests/fuzz/corpus/<path>/.
 *
 * Harnesses skip (return 0 without calling the product) inputs that would
 * legitimately take long: topologies above a size cap, traffic of more
 * flows than a cap.  The product's own limits are far larger (10^8 cables),
 * and a harness must stay fast on every input it accepts. */
#ifndef STOPO_FUZZ_H
#define STOPO_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "topo/util/err.h"

/* The libFuzzer entry point every harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: print "fuzz: FILE:LINE: what" and abort() (libFuzzer
 * then writes the input out as a crash). */
_Noreturn void fuzz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define FUZZ_CHECK(cond, ...)                                       \
	do {                                                        \
		if (!(cond))                                        \
			fuzz_fail(__FILE__, __LINE__, __VA_ARGS__); \
	} while (0)

/* The input, consumed from the front. */
struct fuzz_in {
	const uint8_t *p;
	size_t n;
};

/* The next line of IN (up to '\n', which is consumed, or to the end) as a
 * new NUL-terminated string (a NUL byte in it ends it early); NULL when out
 * of memory.  The caller frees. */
char *fuzz_line(struct fuzz_in *in);
/* The rest of IN as a new NUL-terminated string (as fuzz_line); IN is then
 * empty. */
char *fuzz_rest(struct fuzz_in *in);
/* The next byte, or 0 when IN is empty. */
uint8_t fuzz_u8(struct fuzz_in *in);
/* The next 2 or 8 bytes, little-endian (missing bytes read as 0). */
uint16_t fuzz_u16(struct fuzz_in *in);
uint64_t fuzz_u64(struct fuzz_in *in);

/* A harness's options at the end of its input: when IN ends with a NUL
 * byte and N more bytes, those N bytes (IN then ends before the NUL);
 * else NULL, for the harness's defaults.  So a file of the format (a seed
 * from tests/data) is an input as it is, and the readers still see NUL
 * bytes inside the text. */
const uint8_t *fuzz_options(struct fuzz_in *in, size_t n);

/* Number of lines of TEXT[0..LEN) as the readers count them (a last line
 * without '\n' counts; an empty text has one). */
uint32_t fuzz_lines(const char *text, size_t len);

/* Check the message of a failed call: not empty, and when NAME is not
 * NULL, "NAME:LINE: what" with 1 <= LINE <= MAXLINE or "NAME: what". */
void fuzz_check_err(const char *file, int line, const struct err *e,
		    const char *name, uint32_t maxline);
#define FUZZ_CHECK_ERR(e, name, maxline) \
	fuzz_check_err(__FILE__, __LINE__, e, name, maxline)

/* Whether routing spec SPEC asks for more paths per pair than a harness
 * enumerates quickly (ksp with k above 16: Yen's algorithm per pair). */
int fuzz_routing_slow(const char *spec);

/* Names of hostlist EXPR, which hl_error accepts: per comma-separated
 * name the product of its brackets' sizes (each the sum of its ranges'),
 * counted without libslurm. */
double fuzz_hl_names(const char *expr);

/* What topology spec SPEC would build, estimated from its parameters as
 * the families use them (nodes + switches + cables; the defaults of each
 * family's option table), 0 when SPEC does not parse or names no family
 * (the product rejects it before building anything). */
double fuzz_topo_size(const char *spec);
/* The same for topo.conf text TEXT: its Topology= line (logical lines
 * joined as the parser joins them), or for Topology=graph the SwitchName=
 * lines' switches, links and Nodes= counts, plus the names of the
 * NodeName= lines. */
double fuzz_conf_size(const char *text);

#endif
