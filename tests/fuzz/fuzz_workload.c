/* fuzz_workload.c - workloads (SWF, CSV, JSON job lists, squeue --json)
 * and running-jobs files through workload_parse and
 * workload_parse_running.
 *
 * Checked, as workload.h states it: errors are "fuzz.wl:LINE: what" with
 * LINE a line of the text, or "fuzz.wl: what" (JSON: "fuzz.wl: jobs[I]:
 * what"), and leave the workload empty; every job read has an id, at
 * least one node, times in 0..WL_TIME_MAX, a positive limit and a run
 * time within it, a communication fraction from 0 to 1 or -1 (none),
 * and its source line; a running job holds distinct
 * nodes of the machine (no node held twice in a running-jobs file) since
 * its start, which is not before its submission (when squeue gives it). */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_workload.h"

#define NAME "fuzz.wl"
#define MAX_INPUT 16384
#define NODES 64u

static const char conf[] = "Topology=fattree k=4 n=3\n"
			   "NodeName=n[00-63]\n";

static const struct machine *named_machine(void)
{
	static struct machine *m;
	struct err err = { 0 };

	if (!m)
		m = machine_parse("fuzz-machine.conf", conf, NULL, &err);
	FUZZ_CHECK(m, "the harness's machine: %s", err.msg);
	return m;
}

static void check_job(const struct wl_job *j, const struct workload *w,
		      uint32_t lines, uint32_t nnodes, uint8_t *held)
{
	FUZZ_CHECK(j->id >= 1 && j->nodes >= 1, "job %u: %u nodes", j->id,
		   j->nodes);
	FUZZ_CHECK(j->submit >= 0 && j->submit <= WL_TIME_MAX,
		   "job %u: submit %lld", j->id, (long long)j->submit);
	FUZZ_CHECK(j->limit >= 1 && j->limit <= WL_TIME_MAX &&
			   j->runtime >= 0 && j->runtime <= j->limit,
		   "job %u: runtime %lld, limit %lld", j->id,
		   (long long)j->runtime, (long long)j->limit);
	FUZZ_CHECK(j->comm_fraction == -1 ||
			   (j->comm_fraction >= 0 && j->comm_fraction <= 1),
		   "job %u: comm_fraction %g", j->id, j->comm_fraction);
	FUZZ_CHECK(j->line >= 1 && (w->format == WL_JSON || j->line <= lines),
		   "job %u: line %u of %u", j->id, j->line, lines);
	FUZZ_CHECK(!w->squeue || (j->submit <= w->now &&
				  (!j->running || j->start <= w->now)),
		   "job %u after 'now' %lld", j->id, (long long)w->now);
	if (!j->running) {
		FUZZ_CHECK(!j->alloc, "job %u: nodes but not running", j->id);
		return;
	}
	FUZZ_CHECK(j->alloc, "running job %u without nodes", j->id);
	FUZZ_CHECK(j->start >= 0 && j->start <= WL_TIME_MAX,
		   "job %u: start %lld", j->id, (long long)j->start);
	FUZZ_CHECK(!w->squeue || !j->start || j->submit <= j->start,
		   "job %u starts at %lld, before its submission at %lld",
		   j->id, (long long)j->start, (long long)j->submit);
	for (uint32_t i = 0; i < j->nodes; i++) {
		uint32_t x = j->alloc[i];

		FUZZ_CHECK(!nnodes || x < nnodes, "job %u: node %u of %u",
			   j->id, x, nnodes);
		if (!held || x >= nnodes)
			continue;
		FUZZ_CHECK(!held[x], "node %u held twice (job %u)", x, j->id);
		held[x] = 1;
	}
}

int fuzz_workload(const uint8_t *data, size_t size, enum wl_format format,
		  int running, uint8_t defaults)
{
	struct fuzz_in in = { data, size };
	struct wl_opts o;
	struct workload w;
	struct err err = { 0 };
	const uint8_t *given;
	uint8_t opt, held[NODES];
	uint32_t lines, nnodes;
	const char *text;
	int rc;

	if (size > MAX_INPUT)
		return 0;
	given = fuzz_options(&in, 1);
	opt = given ? given[0] : defaults;
	wl_opts_init(&o);
	o.skip_bad = opt & 1;
	o.cores_per_node = (opt >> 1) & 7;
	o.machine = opt & 0x20 ? named_machine() : NULL;
	/* with a machine, its node count (as stopo whatif and report pass
	 * them) */
	o.nnodes = (opt & 0x10) || o.machine ? NODES : 0;
	o.format = opt & 0x40 ? WL_AUTO : format;
	o.default_limit = opt & 0x80 ? 60 : 0;
	/* a running-jobs file names nodes of the machine (as stopo report
	 * reads one: node ids below the topology's count) */
	if (running && !o.nnodes)
		o.nnodes = NODES;
	nnodes = o.nnodes;
	text = (const char *)in.p;
	lines = fuzz_lines(text, in.n);
	rc = running ? workload_parse_running(NAME, text, in.n, &o, &w, &err) :
		       workload_parse(NAME, text, in.n, &o, &w, &err);
	if (rc) {
		FUZZ_CHECK_ERR(&err, NAME, lines);
		FUZZ_CHECK(!w.n && !w.jobs, "%u jobs left after an error", w.n);
		return 0;
	}
	FUZZ_CHECK(w.n <= w.cap && (w.format == WL_JSON || w.skipped <= lines),
		   "%u jobs, %u skipped of %u lines", w.n, w.skipped, lines);
	FUZZ_CHECK(o.format == WL_AUTO || w.format == o.format,
		   "format %d read as %d", (int)o.format, (int)w.format);
	memset(held, 0, sizeof(held));
	for (uint32_t k = 0; k < w.n; k++) {
		const struct wl_job *j = &w.jobs[k];

		check_job(j, &w, lines, nnodes, running ? held : NULL);
		FUZZ_CHECK(!running || (j->running && j->limit == 1),
			   "running-jobs file: job %u not running", j->id);
	}
	workload_free(&w);
	return 0;
}
