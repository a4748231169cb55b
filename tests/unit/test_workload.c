/* test_workload.c - job lists: SWF fields and fallbacks, CSV, JSON job
 * lists, squeue --json (Slurm 22.05) with node names mapped through
 * topo.conf, running-job files, and every bad record as "file:line: what"
 * or skipped and counted. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sim/workload.h"
#include "policies/machine/machine.h"

static void parse_ok(const char *text, const struct wl_opts *o,
		     struct workload *w)
{
	struct err err = { 0 };

	cr_assert_eq(workload_parse("t", text, strlen(text), o, w, &err), 0,
		     "%s", err.msg);
}

Test(workload, swf_fields)
{
	static const char swf[] =
		"; Version: 2\n"
		"; MaxNodes: 128\n"
		"  ; MaxProcs: 512\n"
		"\n"
		"1 0 -1 100 16 -1 -1 16 200 -1 1 1 1 1 1 1 -1 -1\n"
		/* allocated -1: requested (8) is used; requested time -1: the
		 * run time */
		"2 5 3 50 -1 -1 -1 9 -1 -1 1 1 1 1 1 1 -1 -1\n"
		/* run time beyond the limit: killed at the limit */
		"3 7 -1 500 4 -1 -1 4 60 -1 1 1 1 1 1 1 -1 -1\n"
		"4 8 -1 0 1 -1 -1 1 -1 -1 0 1 1 1 1 1 -1 -1\n";
	struct wl_opts o;
	struct workload w;

	wl_opts_init(&o);
	o.cores_per_node = 4;
	parse_ok(swf, &o, &w);
	cr_assert_eq(w.format, WL_SWF);
	cr_assert_eq(w.n, 4);
	cr_assert_eq(w.max_nodes, 128);
	cr_assert_eq(w.jobs[0].id, 1);
	cr_assert_eq(w.jobs[0].nodes, 4); /* 16 / 4 */
	cr_assert_eq(w.jobs[0].runtime, 100);
	cr_assert_eq(w.jobs[0].limit, 200);
	cr_assert_eq(w.jobs[0].line, 5);
	cr_assert_eq(w.jobs[1].submit, 5);
	cr_assert_eq(w.jobs[1].nodes, 3); /* ceil(9 / 4) */
	cr_assert_eq(w.jobs[1].limit, 50);
	cr_assert_eq(w.jobs[2].runtime, 60);
	cr_assert_eq(w.jobs[3].runtime, 0);
	cr_assert_eq(w.jobs[3].limit, 1);
	cr_assert_eq(w.jobs[3].nodes, 1);
	workload_free(&w);
	workload_free(NULL);
}

struct bad_case {
	char text[200];
	char want[120]; /* substring of the message, after "t:LINE: " */
	int line;
};

ParameterizedTestParameters(workload, bad_records)
{
	static struct bad_case cases[] = {
		{ "1 0 -1 10 4 -1 -1 4\n", "8 fields", 1 },
		{ "; c\n1 0 -1 x 4 -1 -1 4 10\n",
		  "field 4: 'x' is not a number", 2 },
		{ "0 0 -1 10 4 -1 -1 4 10\n", "field 1", 1 },
		{ "1 -5 -1 10 4 -1 -1 4 10\n", "field 2", 1 },
		{ "1 0 -1 -1 4 -1 -1 4 10\n", "run time unknown", 1 },
		/* a negative run time is what it is, not "unknown (-1)" */
		{ "1 0 -1 -7 4 -1 -1 4 10\n",
		  "field 4: run time -7 is negative", 1 },
		{ "1 0 -1 10 -1 -1 -1 -1 10\n", "no processor count", 1 },
		{ "id,submit,nodes,runtime,limit\n1,0,4,10\n", "want 5", 2 },
		{ "id,submit,nodes,runtime,limit\n1,0,zero,10,10\n",
		  "nodes: 'zero' is not an integer", 2 },
		{ "id,submit,nodes,runtime,limit\n\n1,0,0,10,10\n",
		  "nodes must be a positive integer", 3 },
		{ "id,submit,nodes,runtime,limit\n1,0,2,10,0\n",
		  "limit must be positive", 2 },
		{ "id,submit,size\n", "header must be", 1 },
		/* an open quote in the header left the fields unset and
		 * they were compared (tests/fuzz/corpus/csv/bug_header_quote)
		 */
		{ "id,\"submit\n", "header must be", 1 },
		{ "id,submit,\"nodes,x\n", "header must be", 1 },
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":2,\"runtime\":5},\n"
		  "{\"id\":2,\"submit\":0,\"runtime\":5}]}",
		  "jobs[1]: \"nodes\" missing", -1 },
		{ "{\"jobs\":[{\"id\":1,\n\"submit\":0,,}]}", "bad JSON", 2 },
		/* an end of input on the last line, not the one after it
		 * (tests/fuzz/corpus/json/bug_eof_line) */
		{ "{\"jobs\":[\n", "bad JSON: unexpected end of input", 1 },
		{ "[\n{\"id\":1,\n\n", "bad JSON: unexpected end of input", 3 },
		{ "{\"nojobs\":1}", "no \"jobs\" array", 1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"RUNNING\",\"nodes\":"
		  "\"n[0-1]\",\"time_limit\":5}]}",
		  "need a topo.conf", -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"PENDING\","
		  "\"time_limit\":5}]}",
		  "pending with no node_count", -1 },
		/* nodes missing, or a number: not an "empty node list" */
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"RUNNING\","
		  "\"time_limit\":5}]}",
		  "job 5: RUNNING, but no \"nodes\" string", -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"RUNNING\","
		  "\"nodes\":7,\"time_limit\":5}]}",
		  "job 5: RUNNING, but no \"nodes\" string", -1 },
		/* 24.11: job_state a list whose first entry is the state */
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":[],"
		  "\"node_count\":2,\"time_limit\":5}]}",
		  "job 5: job_state missing (want a string or a list of "
		  "strings)",
		  -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":[7],"
		  "\"node_count\":2,\"time_limit\":5}]}",
		  "job 5: job_state missing", -1 },
		/* Times near 2^63 overflowed (time_limit * 60, start +
		 * limit, sums of the simulator) and exited 0 with wrong
		 * answers: every time field is bounded by WL_TIME_MAX. */
		{ "1 9223372036854775000 -1 10 4 -1 -1 4 10\n",
		  "field 2 (submit time): out of range (at most 1000000000000 s)",
		  1 },
		{ "1 0 -1 9223372036854775000 4 -1 -1 4 10\n",
		  "field 4 (run time): out of range", 1 },
		{ "; x\n1 0 -1 10 4 -1 -1 4 1000000000001\n",
		  "field 9 (requested time): out of range", 2 },
		{ "id,submit,nodes,runtime,limit\n1,9223372036854775000,2,10,10\n",
		  "submit: out of range (at most 1000000000000 s)", 2 },
		{ "id,submit,nodes,runtime,limit\n1,0,2,1000000000001,-1\n",
		  "runtime: out of range", 2 },
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":2,\"runtime\":5,"
		  "\"limit\":9223372036854775000}]}",
		  "limit: out of range", -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"PENDING\","
		  "\"node_count\":2,\"time_limit\":153722867280912930}]}",
		  "job 5: time_limit: out of range (at most 16666666666 minutes)",
		  -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"PENDING\","
		  "\"node_count\":2,\"time_limit\":5,"
		  "\"submit_time\":9223372036854775000}]}",
		  "job 5: submit_time: out of range (0 to 1000000000000 s)",
		  -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"PENDING\","
		  "\"node_count\":2,\"time_limit\":5,\"start_time\":-3}]}",
		  "job 5: start_time: out of range", -1 },
		/* a JSON number beyond int64_t was cast all the same
		 * (undefined; tests/fuzz/corpus/squeue/bug_double_cast) */
		{ "{\"jobs\":[{\"id\":1e300,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5}]}",
		  "jobs[0]: \"id\" is not an integer", -1 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"PENDING\","
		  "\"node_count\":2,\"time_limit\":5,"
		  "\"submit_time\":-9.3e18}]}",
		  "job 5: submit_time, start_time or node_count is not an "
		  "integer",
		  -1 },
		/* a running job started before its submission read as a
		 * negative wait (tests/fuzz/corpus/squeue/bug_start_first) */
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"RUNNING\","
		  "\"nodes\":\"0-1\",\"time_limit\":5,\"submit_time\":20,"
		  "\"start_time\":10}]}",
		  "job 5: start_time 10 before submit_time 20", -1 },
		/* Lenient formats (issue 13, class 3): trailing text after
		 * the JSON document, unknown keys of a job list. */
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5}]}\n\n garbage",
		  "bad JSON: text after the end of the document", 3 },
		/* json-c reads comments; a key repeated across one (the
		 * job would run on 8 nodes) is caught as a comment */
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":4,"
		  "\"runtime\":10\n/* \" */ ,\"nodes\":8 /* \" */ }]}",
		  "bad JSON: a comment (JSON has none)", 2 },
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5,\"colour\":7}]}",
		  "jobs[0]: unknown key \"colour\" (id, submit, nodes, runtime, "
		  "limit, pattern, comm_fraction)",
		  -1 },
		/* One rule for job ids (class 3): unique in every format;
		 * json-c's silent last-key-wins is an error; a pattern is
		 * checked where it is read (class 6: FILE:LINE). */
		{ "1 0 -1 10 4 -1 -1 4 10\n; c\n1 5 -1 10 4 -1 -1 4 10\n",
		  "job id 1 repeats line 1", 3 },
		{ "id,submit,nodes,runtime,limit\n7,0,2,10,10\n8,0,2,10,10\n"
		  "7,1,2,10,10\n",
		  "job id 7 repeats line 2", 4 },
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5},{\"id\":1,\"submit\":3,\"nodes\":2,"
		  "\"runtime\":5}]}",
		  "jobs[1]: job id 1 repeats jobs[0]", -1 },
		/* squeue jobs are placed like job lists (found by fuzz_squeue:
		 * the index + 1 was printed as a line) */
		{ "{\"jobs\":[{\"job_id\":7,\"job_state\":\"PENDING\","
		  "\"node_count\":2,\"time_limit\":5},{\"job_id\":7,"
		  "\"job_state\":\"PENDING\",\"node_count\":2,"
		  "\"time_limit\":5}]}",
		  "jobs[1]: job id 7 repeats jobs[0]", -1 },
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\n\"nodes\":2,"
		  "\"runtime\":5,\"id\":2}]}",
		  "bad JSON: key \"id\" repeated (first on line 1)", 2 },
		{ "{\"jobs\":[{\"id\":1,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5,\n\"\\u0069d\":2}]}",
		  "bad JSON: key \"id\" repeated (first on line 1)", 2 },
		/* json-c takes single-quoted keys: the same key (found by
		 * tests/fuzz/fuzz_json reading past the end when the scan did
		 * not know single quotes) */
		{ "{\"jobs\":[{\"id\":1,\n'id':2,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5}]}",
		  "bad JSON: key \"id\" repeated (first on line 1)", 2 },
		{ "{\"jobs\":[],\n\"jobs\":[{\"id\":1,\"submit\":0,"
		  "\"nodes\":2,\"runtime\":5}]}",
		  "bad JSON: key \"jobs\" repeated (first on line 1)", 2 },
		{ "id,submit,nodes,runtime,limit,pattern\n3,0,2,10,10,bogus\n",
		  "job 3: pattern 'bogus': unknown pattern 'bogus'", 2 },
		/* An escaped NUL in a JSON string was read as the end of
		 * it ("random\u0000:1" as "random"), silently: refused at
		 * its line in every JSON reader, keys and values alike
		 * (tests/fuzz/corpus/json/bug_escaped_nul). */
		{ "{\"jobs\":[\n{\"id\":4,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5,\"pattern\":\"random\\u0000:1\"}]}",
		  "bad JSON: an escaped NUL (\\u0000) in a string", 2 },
		{ "{\"jobs\":[{\"job_id\":5,\"job_state\":\"RUNNING\",\n\n"
		  "\"nodes\":\"0-1\\u0000,7\",\"time_limit\":5}]}",
		  "bad JSON: an escaped NUL (\\u0000) in a string", 3 },
		{ "[{\"id\\u0000x\":4}]", "bad JSON: an escaped NUL", 1 },
		/* a job's communication fraction: a number from 0 to 1 */
		{ "id,submit,nodes,runtime,limit,pattern,comm_fraction\n"
		  "1,0,2,10,10,,0.3\n2,0,2,10,10,,half\n",
		  "comm_fraction: 'half' is not a number", 3 },
		{ "id,submit,nodes,runtime,limit,pattern,comm_fraction\n"
		  "1,0,2,10,10,,1.5\n",
		  "comm_fraction must be from 0 to 1", 2 },
		{ "id,submit,nodes,runtime,limit,pattern,comm_fraction\n"
		  "1,0,2,10,10,,-0.1\n",
		  "comm_fraction must be from 0 to 1", 2 },
		{ "{\"jobs\":[{\"id\":4,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5,\"comm_fraction\":\"0.3\"}]}",
		  "jobs[0]: \"comm_fraction\" is not a number", -1 },
		{ "{\"jobs\":[{\"id\":4,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5,\"comm_fraction\":2}]}",
		  "jobs[0]: comm_fraction must be from 0 to 1", -1 },
		{ "{\"jobs\":[{\"id\":4,\"submit\":0,\"nodes\":2,"
		  "\"runtime\":5,\"pattern\":\"perm:seed=x\"}]}",
		  "jobs[0]: job 4: pattern 'perm:seed=x': seed: not a "
		  "non-negative integer",
		  -1 },
	};

	return cr_make_param_array(struct bad_case, cases,
				   sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct bad_case *c, workload, bad_records)
{
	struct wl_opts o;
	struct workload w;
	struct err err = { 0 };
	char prefix[32];

	wl_opts_init(&o);
	cr_assert_eq(workload_parse("t", c->text, strlen(c->text), &o, &w,
				    &err),
		     -1, "accepted: %s", c->text);
	cr_assert_eq(w.n, 0);
	cr_assert(strstr(err.msg, c->want), "'%s' lacks '%s'", err.msg,
		  c->want);
	if (c->line > 0) {
		snprintf(prefix, sizeof(prefix), "t:%d: ", c->line);
		cr_assert_eq(strncmp(err.msg, prefix, strlen(prefix)), 0,
			     "'%s' does not start with '%s'", err.msg, prefix);
	} else {
		cr_assert_eq(strncmp(err.msg, "t: jobs[", 8), 0, "%s", err.msg);
	}
	/* with skip_bad the record is counted, never an error */
	o.skip_bad = true;
	if (!strstr(c->want, "header") && !strstr(c->want, "JSON") &&
	    !strstr(c->want, "array")) {
		cr_assert_eq(workload_parse("t", c->text, strlen(c->text), &o,
					    &w, &err),
			     0, "%s", err.msg);
		cr_assert_geq(w.skipped, 1);
		workload_free(&w);
	}
}

/* The SWF header's number is read within its line and within LEN: a text
 * not ending in a NUL byte (tests/fuzz/corpus/swf/bug_header_overread;
 * the sanitized make check sees a read past the end). */
Test(workload, swf_header_within_text)
{
	static const char head[] = "; MaxNodes: 64";
	static const char next[] = "; MaxNodes:\n72 0 -1 1 1 -1 -1 1 1\n";
	char *text = malloc(sizeof(head) - 1);
	struct workload w;
	struct err err = { 0 };

	cr_assert_not_null(text);
	memcpy(text, head, sizeof(head) - 1);
	cr_assert_eq(workload_parse("t", text, sizeof(head) - 1, NULL, &w,
				    &err),
		     0, "%s", err.msg);
	cr_expect_eq(w.max_nodes, 64);
	workload_free(&w);
	/* a number on the next line is not MaxNodes': its line is bad */
	cr_assert_eq(workload_parse("t", next, strlen(next), NULL, &w, &err),
		     -1);
	cr_expect_str_eq(err.msg, "t:1: MaxNodes: '' is not a positive whole "
				  "number below 2^32 (nor -1 or N/A: unknown)");
	free(text);
}

/* The archive's header habits (issue 47): N/A is unknown like -1, text
 * after the number is a note, a key repeated must repeat its value,
 * MaxProcs above MaxNodes is kept for the warning that processors are
 * cores; the machine size is MaxNodes, else MaxProcs over the cores per
 * node. */
Test(workload, swf_header_keys)
{
	static const struct {
		const char *text;
		uint32_t cpn, max_nodes, hdr_nodes, hdr_procs;
		const char *err; /* NULL: parses */
	} cases[] = {
		{ "; MaxNodes: N/A\n; MaxProcs: 240\n", 1, 240, 0, 240, NULL },
		{ "; MaxNodes: N/A\n; MaxProcs: 240\n", 8, 30, 0, 240, NULL },
		{ "; MaxNodes: 128\n; MaxProcs: N/A\n", 1, 128, 128, 0, NULL },
		{ "; MaxNodes: N/A (see the note)\n", 1, 0, 0, 0, NULL },
		{ "; MaxNodes: 338 (batch partition; 512 total)\n"
		  "; MaxProcs: 338\n",
		  1, 338, 338, 338, NULL },
		{ "; MaxProcs: 1024\n; MaxNodes: 128\n", 1, 128, 128, 1024,
		  NULL },
		{ "; MaxNodes: 128\n;\n; MaxNodes: 128\n", 1, 128, 128, 0,
		  NULL },
		{ "; MaxNodes: 128\n;\n; MaxNodes: 256\n", 1, 0, 0, 0,
		  "t:3: MaxNodes: 256, but line 1 gave 128" },
		{ "; MaxProcs: -1\n; MaxProcs: 64\n", 1, 0, 0, 0,
		  "t:2: MaxProcs: 64, but line 1 gave -1" },
		{ "; MaxNodes: N/Ax\n", 1, 0, 0, 0,
		  "t:1: MaxNodes: 'N/Ax' is not a positive whole number" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct workload w;
		struct wl_opts o;
		struct err err = { 0 };
		int rc;

		wl_opts_init(&o);
		o.cores_per_node = cases[i].cpn;
		rc = workload_parse("t", cases[i].text, strlen(cases[i].text),
				    &o, &w, &err);
		if (cases[i].err) {
			cr_expect_eq(rc, -1, "case %zu parsed", i);
			cr_expect(strstr(err.msg, cases[i].err), "case %zu: %s",
				  i, err.msg);
			continue;
		}
		cr_expect_eq(rc, 0, "case %zu: %s", i, err.msg);
		cr_expect_eq(w.max_nodes, cases[i].max_nodes, "case %zu", i);
		cr_expect_eq(w.hdr_max_nodes, cases[i].hdr_nodes, "case %zu",
			     i);
		cr_expect_eq(w.hdr_max_procs, cases[i].hdr_procs, "case %zu",
			     i);
		workload_free(&w);
	}
}

/* SWF: the fields read are whole numbers (stopo(1): nothing silently
 * clamped); the averages of fields 6 and 7 may have fractions; MaxNodes
 * may be followed by text, and -1 is unknown. */
Test(workload, swf_whole_numbers)
{
	static const struct {
		const char *text;
		const char *err; /* NULL: parses */
	} cases[] = {
		{ "1 0 -1 1.5 2 -1 -1 2 10\n",
		  "t:1: field 4: not a whole number (SWF counts seconds and "
		  "processors in integers)" },
		{ "1 0.7 -1 1 2 -1 -1 2 10\n", "t:1: field 2: not a whole" },
		{ "1 0 -1 1 2.5 -1 -1 2 10\n", "t:1: field 5: not a whole" },
		{ "1 0 -1 1 2 -1 -1 2 10.25\n", "t:1: field 9: not a whole" },
		{ "1 0 -1 100.0 2 2.5 3.75 2 200\n", NULL },
		{ "; MaxNodes: 64 (the machine)\n1 0 -1 1 2 -1 -1 2 10\n",
		  NULL },
		{ "; MaxProcs: -1\n1 0 -1 1 2 -1 -1 2 10\n", NULL },
		{ "; MaxNodes: abc\n", "t:1: MaxNodes: 'abc' is not" },
		{ "\n; MaxProcs: 0\n", "t:2: MaxProcs: '0' is not" },
		{ "; MaxNodes: 4294967296\n", "t:1: MaxNodes: '4294967296'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct workload w;
		struct err err = { 0 };
		int rc = workload_parse("t", cases[i].text,
					strlen(cases[i].text), NULL, &w, &err);

		if (!cases[i].err) {
			cr_expect_eq(rc, 0, "case %zu: %s", i, err.msg);
			if (!rc && i == 4)
				cr_expect(w.n == 1 &&
						  w.jobs[0].runtime == 100 &&
						  w.jobs[0].nodes == 2,
					  "100.0 s on 2 processors");
			if (!rc && i == 5)
				cr_expect_eq(w.max_nodes, 64);
			if (!rc)
				workload_free(&w);
			continue;
		}
		cr_expect_eq(rc, -1, "case %zu parsed", i);
		cr_expect(!strncmp(err.msg, cases[i].err, strlen(cases[i].err)),
			  "case %zu: '%s', want '%s...'", i, err.msg,
			  cases[i].err);
	}
}

Test(workload, csv_and_json_lists)
{
	static const char csv[] = "# comment\n"
				  "id,submit,nodes,runtime,limit,pattern\n"
				  "1,0,4,100,200,random:2\n"
				  "2,10,8,50,,\n"
				  "3,20,2,30,-1,\"stencil:dims=2x1\"\n";
	static const char json[] =
		"[{\"id\":5,\"submit\":1,\"nodes\":3,\"runtime\":9,\"limit\":20,"
		"\"pattern\":\"pairs\"},{\"id\":6,\"submit\":2,\"nodes\":1,"
		"\"runtime\":4}]";
	struct workload w;

	parse_ok(csv, NULL, &w);
	cr_assert_eq(w.format, WL_CSV);
	cr_assert_eq(w.n, 3);
	cr_assert_str_eq(w.jobs[0].pattern, "random:2");
	cr_assert_eq(w.jobs[0].limit, 200);
	cr_assert_eq(w.jobs[1].limit, 50);
	cr_assert_null(w.jobs[1].pattern);
	cr_assert_str_eq(w.jobs[2].pattern, "stencil:dims=2x1");
	cr_assert_eq(w.jobs[2].line, 5);
	workload_free(&w);
	parse_ok(json, NULL, &w);
	cr_assert_eq(w.format, WL_JSON);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.jobs[0].limit, 20);
	cr_assert_str_eq(w.jobs[0].pattern, "pairs");
	cr_assert_eq(w.jobs[1].limit, 4);
	cr_assert_not(w.squeue);
	cr_assert_eq(w.jobs[0].comm_fraction, -1, "none given");
	workload_free(&w);
}

/* A job's communication fraction (--comm-fraction's per-job value): the
 * seventh CSV column (empty: none) and the JSON key; none is -1. */
/* Skipped records by reason: values left out of the reason (ids,
 * quoted text, counts but a field's number), the first record's message
 * and line kept; reasons beyond WL_SKIP_REASONS counted together; a
 * refusal marks the workload refused. */
Test(workload, skip_reasons)
{
	char text[4096];
	size_t len = 0;
	struct wl_opts o;
	struct workload w;
	struct err err = { 0 };

	/* lines 1-2: run time -1; 3-4: 'x', 'y' in field 4 (one reason);
	 * 5: 'z' in field 2; 6-7: 3 and 5 fields (one reason); 9: job id 8
	 * again */
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"1 0 -1 -1 1 -1 -1 1 10\n"
				"2 0 -1 -1 1 -1 -1 1 10\n"
				"3 0 -1 x 1 -1 -1 1 10\n"
				"4 0 -1 y 1 -1 -1 1 10\n"
				"5 z -1 1 1 -1 -1 1 10\n"
				"6 0 -1\n"
				"7 0 -1 1 1\n"
				"8 0 -1 1 1 -1 -1 1 10\n"
				"8 0 -1 1 1 -1 -1 1 10\n");
	wl_opts_init(&o);
	o.skip_bad = true;
	cr_assert_eq(workload_parse("t", text, len, &o, &w, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(w.n, 1);
	cr_assert_eq(w.skipped, 8);
	cr_assert_eq(w.nskips, 5);
	cr_assert_str_eq(w.skips[0].what, "field 4: run time unknown (-1)");
	cr_assert_eq(w.skips[0].count, 2);
	cr_assert_eq(w.skips[0].line, 1);
	cr_assert_str_eq(w.skips[1].what, "field 4: 'x' is not a number");
	cr_assert_eq(w.skips[1].count, 2);
	cr_assert_eq(w.skips[1].line, 3);
	cr_assert_str_eq(w.skips[2].what, "field 2: 'z' is not a number");
	cr_assert_eq(w.skips[2].count, 1);
	cr_assert_eq(w.skips[3].count, 2, "3 fields and 5 fields");
	cr_assert_eq(w.skips[3].line, 6);
	cr_assert_str_eq(w.skips[4].what, "job id 8 repeated");
	cr_assert_eq(w.skips[4].line, 9);
	cr_assert_eq(w.skipped_other, 0);
	workload_free(&w);

	/* 9 + 6 + 5 reasons: a word in each of fields 1-9, a fraction in
	 * each of the 6 fields read, and 5 more kinds: the last 4 beyond
	 * WL_SKIP_REASONS (16) are counted together */
	len = 0;
	for (int f = 0; f < 9; f++) {
		for (int k = 0; k < 9; k++)
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						k == f ? "w " :
						k      ? "1 " :
							 "%d ",
						100 + f);
		text[len - 1] = '\n';
	}
	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"1.5 0 -1 1 1 -1 -1 1 10\n"
				"201 0.5 -1 1 1 -1 -1 1 10\n"
				"202 0 -1 1.5 1 -1 -1 1 10\n"
				"203 0 -1 1 1.5 -1 -1 1 10\n"
				"204 0 -1 1 1 -1 -1 1.5 10\n"
				"205 0 -1 1 1 -1 -1 1 10.5\n"
				"0 0 -1 1 1 -1 -1 1 10\n"
				"206 -3 -1 1 1 -1 -1 1 10\n"
				"207 0 -1 -1 1 -1 -1 1 10\n"
				"208 0 -1 -5 1 -1 -1 1 10\n"
				"209 0 -1 1 -1 -1 -1 -1 10\n");
	cr_assert_eq(workload_parse("t", text, len, &o, &w, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(w.skipped, 20);
	cr_assert_eq(w.nskips, WL_SKIP_REASONS);
	cr_assert_eq(w.skipped_other, 4);
	cr_assert_str_eq(w.skips[0].what, "field 1: 'w' is not a number");
	cr_assert_str_eq(w.skips[8].what, "field 9: 'w' is not a number");
	workload_free(&w);

	/* a refusal: the workload says it was a record */
	o.skip_bad = false;
	cr_assert_eq(workload_parse("t", "1 0 -1 -1 1 -1 -1 1 10\n", 23, &o, &w,
				    &err),
		     -1);
	cr_assert(w.refused);
	cr_assert_eq(w.n, 0);
	/* not a record: a bad header */
	cr_assert_eq(workload_parse("t", "; MaxNodes: x\n", 14, &o, &w, &err),
		     -1);
	cr_assert_not(w.refused);
}

/* "\\u0000" in JSON is a backslash and "u0000", no NUL: read as
 * written. */
Test(workload, json_backslash_not_nul)
{
	static const char json[] =
		"[{\"id\":5,\"submit\":1,\"nodes\":3,\"runtime\":9,"
		"\"pattern\":\"random:1\"},{\"id\":6,\"submit\":1,"
		"\"nodes\":3,\"runtime\":9,\"junk\\\\u0000\":1}]";
	struct workload w;
	struct err err = { 0 };
	struct wl_opts o;

	wl_opts_init(&o);
	cr_assert_eq(workload_parse("t", json, strlen(json), &o, &w, &err), -1);
	/* the key read is "junk\u0000": unknown, not an escaped NUL */
	cr_assert(strstr(err.msg, "unknown key \"junk\\u0000\""), "%s",
		  err.msg);
}

Test(workload, comm_fraction)
{
	static const char csv[] =
		"id,submit,nodes,runtime,limit,pattern,comm_fraction\n"
		"1,0,4,100,200,random:2,0.25\n"
		"2,10,8,50,,,\n"
		"3,20,2,30,-1,,1\n"
		"4,20,2,30,-1\n";
	static const char json[] =
		"[{\"id\":5,\"submit\":1,\"nodes\":3,\"runtime\":9,"
		"\"comm_fraction\":0.5},{\"id\":6,\"submit\":2,\"nodes\":1,"
		"\"runtime\":4,\"comm_fraction\":0},{\"id\":7,\"submit\":2,"
		"\"nodes\":1,\"runtime\":4,\"comm_fraction\":null}]";
	struct workload w;

	parse_ok(csv, NULL, &w);
	cr_assert_eq(w.n, 4);
	cr_assert_eq(w.jobs[0].comm_fraction, 0.25);
	cr_assert_eq(w.jobs[1].comm_fraction, -1);
	cr_assert_eq(w.jobs[2].comm_fraction, 1);
	cr_assert_eq(w.jobs[3].comm_fraction, -1);
	workload_free(&w);
	parse_ok(json, NULL, &w);
	cr_assert_eq(w.n, 3);
	cr_assert_eq(w.jobs[0].comm_fraction, 0.5);
	cr_assert_eq(w.jobs[1].comm_fraction, 0);
	cr_assert_eq(w.jobs[2].comm_fraction, -1);
	workload_free(&w);
	/* SWF has no such field */
	parse_ok("1 0 -1 10 4 -1 -1 4 10\n", NULL, &w);
	cr_assert_eq(w.jobs[0].comm_fraction, -1);
	workload_free(&w);
}

/* SNAP, a queue of job 12 running on n[00-03,08] (submitted at 100,
 * started at 120, 2 minutes), job 13 pending for 4 nodes (submitted at
 * 130, no limit) and job 14 cancelled, read through topo.conf names as
 * those jobs by hand. */
static void check_queue(const char *snap)
{
	static const char conf_text[] = "Topology=fattree k=4 n=2\n"
					"NodeName=n[00-15]\n";
	struct err err = { 0 };
	struct machine *c = machine_parse("topo.conf", conf_text, NULL, &err);
	struct wl_opts o;
	struct workload w;

	cr_assert_not_null(c, "%s", err.msg);
	wl_opts_init(&o);
	o.machine = c;
	o.nnodes = 16;
	o.default_limit = 777;
	parse_ok(snap, &o, &w);
	cr_assert(w.squeue);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.ignored, 1);
	cr_assert_eq(w.now, 130);
	cr_assert(w.jobs[0].running);
	cr_assert_eq(w.jobs[0].nodes, 5);
	cr_assert_eq(w.jobs[0].alloc[0], 0);
	cr_assert_eq(w.jobs[0].alloc[3], 3);
	cr_assert_eq(w.jobs[0].alloc[4], 8);
	cr_assert_eq(w.jobs[0].start, 120);
	cr_assert_eq(w.jobs[0].limit, 120, "minutes -> seconds");
	cr_assert_not(w.jobs[1].running);
	cr_assert_eq(w.jobs[1].nodes, 4);
	cr_assert_eq(w.jobs[1].limit, 777, "null limit -> default");
	workload_free(&w);
	machine_destroy(c);
}

/* squeue --json as Slurm 22.05 writes it (v0.0.38 job fields; only the
 * ones used here plus a few others), names through topo.conf. */
Test(workload, squeue_names)
{
	static const char snap[] =
		"{\n \"meta\": {\"plugin\": {\"type\": \"openapi/v0.0.38\"}},\n"
		" \"errors\": [],\n \"jobs\": [\n"
		"  {\"account\": \"\", \"job_id\": 12, \"job_state\": \"RUNNING\","
		" \"nodes\": \"n[00-03,08]\", \"node_count\": 5,"
		" \"submit_time\": 100, \"start_time\": 120, \"time_limit\": 2,"
		" \"partition\": \"batch\"},\n"
		"  {\"job_id\": 13, \"job_state\": \"PENDING\", \"nodes\": \"\","
		" \"node_count\": 4, \"submit_time\": 130, \"start_time\": 0,"
		" \"time_limit\": null},\n"
		"  {\"job_id\": 14, \"job_state\": \"CANCELLED\", \"nodes\": \"n01\","
		" \"node_count\": 1, \"submit_time\": 1, \"start_time\": 1,"
		" \"time_limit\": 1}\n ]\n}\n";
	check_queue(snap);
}

/* Slurm 24.11's squeue --json (data_parser v0.0.42): job_state a list,
 * the state then its flags; numbers {set, infinite, number}.  The same
 * queue as squeue_names gives the same jobs. */
Test(workload, squeue_2411)
{
	/* RUNNING, PENDING with a flag, CANCELLED; the pending job's
	 * limit is infinite */
	static const char snap[] =
		"{\"jobs\": [\n"
		"  {\"job_id\": 12, \"job_state\": [\"RUNNING\"],"
		" \"nodes\": \"n[00-03,08]\","
		" \"node_count\": {\"set\": true, \"infinite\": false, \"number\": 5},"
		" \"submit_time\": {\"set\": true, \"infinite\": false, \"number\": 100},"
		" \"start_time\": {\"set\": true, \"infinite\": false, \"number\": 120},"
		" \"time_limit\": {\"set\": true, \"infinite\": false, \"number\": 2},"
		" \"partition\": \"batch\"},\n"
		"  {\"job_id\": 13,"
		" \"job_state\": [\"PENDING\", \"REQUEUED\"],"
		" \"nodes\": \"\", \"node_count\": {\"set\": true, \"infinite\": false, \"number\": 4},"
		" \"submit_time\": {\"set\": true, \"infinite\": false, \"number\": 130},"
		" \"start_time\": {\"set\": true, \"infinite\": false, \"number\": 0},"
		" \"time_limit\": {\"set\": false, \"infinite\": true,"
		" \"number\": 0}},\n"
		"  {\"job_id\": 14, \"job_state\": [\"CANCELLED\"],"
		" \"nodes\": \"n01\", \"node_count\": {\"set\": true, \"infinite\": false, \"number\": 1},"
		" \"submit_time\": {\"set\": true, \"infinite\": false, \"number\": 1},"
		" \"start_time\": {\"set\": true, \"infinite\": false, \"number\": 1},"
		" \"time_limit\": {\"set\": true, \"infinite\": false, \"number\": 1}}\n]}\n";

	check_queue(snap);
}

Test(workload, running_file)
{
	static const char conf_text[] = "Topology=fattree k=4 n=2\n"
					"NodeName=n[00-15]\n";
	static const char jobs[] = "# id nodes\n"
				   "101 n[00-03]\n"
				   "102 4-5,9   stencil:dims=3x1\n"
				   "\n";
	struct err err = { 0 };
	struct machine *c = machine_parse("topo.conf", conf_text, NULL, &err);
	struct wl_opts o;
	struct workload w;

	cr_assert_not_null(c, "%s", err.msg);
	wl_opts_init(&o);
	o.machine = c;
	o.nnodes = 16;
	cr_assert_eq(workload_parse_running("j", jobs, strlen(jobs), &o, &w,
					    &err),
		     0, "%s", err.msg);
	cr_assert_eq(w.n, 2);
	cr_assert_eq(w.jobs[0].nodes, 4);
	cr_assert_eq(w.jobs[1].nodes, 3);
	cr_assert_eq(w.jobs[1].alloc[2], 9);
	cr_assert_str_eq(w.jobs[1].pattern, "stencil:dims=3x1");
	workload_free(&w);
	cr_assert_eq(workload_parse_running("j", "7 n99\n", 6, &o, &w, &err),
		     -1);
	cr_assert_str_eq(err.msg, "j:1: job 7: node 'n99' is not in topo.conf "
				  "NodeName=");
	cr_assert_eq(workload_parse_running("j", "\n7 0-16\n", 8, &o, &w, &err),
		     -1);
	cr_assert(strstr(err.msg, "j:2: job 7: bad node list '0-16'"), "%s",
		  err.msg);
	cr_assert_eq(workload_parse_running("j", "x 0-1\n", 6, &o, &w, &err),
		     -1);
	cr_assert(strstr(err.msg, "j:1: job id 'x'"), "%s", err.msg);
	cr_assert_eq(workload_parse_running("j", "7 0-1\n8 2\n7 3\n", 14, &o,
					    &w, &err),
		     -1);
	cr_assert_str_eq(err.msg, "j:3: job id 7 repeats line 1");
	cr_assert_eq(workload_parse_running("j", "\n7 0-1 shfit\n", 13, &o, &w,
					    &err),
		     -1);
	cr_assert(strstr(err.msg, "j:2: job 7: pattern 'shfit': unknown "
				  "pattern 'shfit'"),
		  "%s", err.msg);
	machine_destroy(c);
}

Test(workload, load_file_errors)
{
	struct workload w;
	struct err err = { 0 };

	cr_assert_eq(workload_load("/nonexistent/x.swf", NULL, &w, &err), -1);
	cr_assert(strstr(err.msg, "/nonexistent/x.swf: "), "%s", err.msg);
	/* /dev/zero: the first NUL is found in the first buffer read */
	cr_assert_eq(workload_load("/dev/zero", NULL, &w, &err), -1);
	cr_assert_str_eq(err.msg, "/dev/zero:1: NUL byte");
}

/* Where a job was read names it in later errors (whatif, report). */
Test(workload, job_where)
{
	static const char csv[] = "id,submit,nodes,runtime,limit\n"
				  "# x\n5,0,2,10,10\n";
	static const char json[] = "{\"jobs\":[{\"id\":1,\"submit\":0,"
				   "\"nodes\":2,\"runtime\":5},"
				   "{\"id\":9,\"submit\":0,"
				   "\"nodes\":2,\"runtime\":5}]}";
	struct workload w;
	struct err err = { 0 };

	parse_ok(csv, NULL, &w);
	err_set(&err, "boom");
	workload_job_where(&w, 0, &err);
	cr_expect_str_eq(err.msg, "t:3: job 5: boom");
	workload_free(&w);
	parse_ok(json, NULL, &w);
	err_set(&err, "boom");
	workload_job_where(&w, 1, &err);
	cr_expect_str_eq(err.msg, "t: jobs[1]: job 9: boom");
	workload_free(&w);
}

/* wl_read_stream reads to the end past its 64 KiB first buffer (the byte
 * pattern shows a lost or repeated chunk), NUL-terminates, leaves the
 * stream open, and reports a stream it cannot read. */
/* A NUL byte is an error at its line in every reader (it silently ended
 * a JSON string or a line); skip_bad does not hide it. */
Test(workload, nul_byte)
{
	static const char swf[] = "1 0 -1 10 4 -1 -1 4 10\n2 0 -1 1\0 4 -1 "
				  "-1 4 10\n";
	static const char json[] = "{\"jobs\":[{\"id\":1,\"submit\":0,\n"
				   "\"nodes\":2,\"runtime\":5,\"pattern\":"
				   "\"shift\0x\"}]}";
	static const char jobs[] = "1 0-3\n2 4\0-7\n";
	struct wl_opts o;
	struct workload w;
	struct err err = { 0 };

	wl_opts_init(&o);
	o.skip_bad = true;
	cr_expect_eq(workload_parse("t", swf, sizeof(swf) - 1, &o, &w, &err),
		     -1);
	cr_expect_str_eq(err.msg, "t:2: NUL byte");
	cr_expect_eq(workload_parse("t", json, sizeof(json) - 1, &o, &w, &err),
		     -1);
	cr_expect_str_eq(err.msg, "t:2: NUL byte");
	cr_expect_eq(workload_parse_running("t", jobs, sizeof(jobs) - 1, &o, &w,
					    &err),
		     -1);
	cr_expect_str_eq(err.msg, "t:2: NUL byte");
}

Test(workload, read_stream)
{
	const size_t n = 200000;
	struct err err = { 0 };
	FILE *f = tmpfile();
	size_t len = 0;
	char *buf;

	cr_assert(f);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i * 7 % 26), f);
	rewind(f);
	buf = wl_read_stream(f, "t", &len, &err);
	cr_assert_not_null(buf, "%s", err.msg);
	cr_assert_eq(len, n);
	cr_assert_eq(buf[n], '\0');
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(buf[i], 'a' + (int)(i * 7 % 26), "byte %zu", i);
	free(buf);
	cr_assert_eq(fgetc(f), EOF);
	cr_assert_not(ferror(f));
	fclose(f);

	f = fopen("/dev/null", "w"); /* write-only: fread fails */
	cr_assert(f);
	cr_assert_null(wl_read_stream(f, "t", &len, &err));
	cr_assert_str_eq(err.msg, "t: Bad file descriptor"); /* strerror */
	fclose(f);
	cr_assert_null(workload_slurp("/nonexistent/x", &len, &err));
	cr_assert_str_eq(err.msg, "/nonexistent/x: No such file or directory");
}
