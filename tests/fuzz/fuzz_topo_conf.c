/* fuzz_topo_conf.c - topo.conf text through the parser (topo_conf_parse)
 * and, when it parses, through the machine (machine_parse: the routing and
 * the policies of every partition built and checked).
 *
 * Checked: errors are "fuzz.conf:LINE: what" with LINE a line of the text
 * (or "fuzz.conf: what"); a parsed file gives a topology passing
 * topo_check, directive lines within the text, node names that are
 * distinct and found again by the hash index, and a canonical spec that
 * builds the same topology again. */
#include <stdlib.h>
#include <string.h>

#include "policies/machine/machine.h"
#include "tests/fuzz/fuzz.h"
#include "topo/topo_conf.h"

#define NAME "fuzz.conf"
#define MAX_INPUT 8192
#define MAX_SIZE 20000 /* nodes + switches + cables (fuzz_conf_size) */

static void check_topo(const struct topo *t, const char *family)
{
	struct err err = { 0 };
	struct topo *again;

	FUZZ_CHECK(!topo_check(t, &err), "topo_check: %s", err.msg);
	if (!strcmp(family, "graph"))
		return;
	/* the canonical spec builds the same topology */
	again = topo_create(topo_spec(t), &err);
	FUZZ_CHECK(again, "canonical spec '%s' does not build: %s",
		   topo_spec(t), err.msg);
	FUZZ_CHECK(topo_num_nodes(again) == topo_num_nodes(t) &&
			   topo_num_switches(again) == topo_num_switches(t) &&
			   topo_num_links(again) == topo_num_links(t),
		   "canonical spec '%s' builds another topology", topo_spec(t));
	topo_destroy(again);
}

static void check_conf(const struct topo_conf *c, uint32_t lines)
{
	const struct topo *t = topo_conf_topo(c);
	uint32_t n = topo_num_nodes(t);
	const char *wrap = topo_conf_wrap(c);

	check_topo(t, topo_family(t));
	for (int k = 0; k < TOPO_CONF_NKEYS; k++)
		FUZZ_CHECK(topo_conf_line(c, (enum topo_conf_key)k) <= lines,
			   "directive %d on line %u of %u", k,
			   topo_conf_line(c, (enum topo_conf_key)k), lines);
	FUZZ_CHECK(!strcmp(wrap, "select/cons_tres") ||
			   !strcmp(wrap, "select/linear"),
		   "Wrap= gives '%s'", wrap);
	if (topo_conf_has_names(c)) {
		for (uint32_t i = 0; i < n; i++) {
			const char *nm = topo_conf_node_name(c, i);

			FUZZ_CHECK(nm && *nm, "node %u has no name", i);
			FUZZ_CHECK(topo_conf_node_index(c, nm) == i,
				   "name '%s' of node %u maps to %u", nm, i,
				   topo_conf_node_index(c, nm));
		}
	}
	FUZZ_CHECK(!topo_conf_node_name(c, n), "a name past the last node");
	for (uint32_t i = 0; i < topo_conf_num_partition_policies(c); i++) {
		const char *part, *pol;
		uint32_t line;

		FUZZ_CHECK(!topo_conf_partition_policy(c, i, &part, &pol,
						       &line) &&
				   *part && *pol && line >= 1 && line <= lines,
			   "PartitionPolicy= entry %u", i);
	}
}

static void check_machine(const struct machine *m, uint32_t lines)
{
	const struct topo *t = machine_topo(m);
	uint32_t line;

	FUZZ_CHECK(machine_routing(m) && machine_predict(m, &line) &&
			   line <= lines,
		   "machine without routing or prediction");
	FUZZ_CHECK(machine_predict_budget(m, &line) >= 1 &&
			   machine_predict_budget(m, NULL) <=
				   MACHINE_PREDICT_BUDGET_MAX_MS &&
			   line <= lines,
		   "PredictBudget= out of range: %u",
		   machine_predict_budget(m, NULL));
	for (uint32_t i = 0; i < machine_num_partitions(m); i++) {
		const char *part, *text;

		FUZZ_CHECK(machine_partition(m, i, &part, &text, &line) &&
				   line >= 1 && line <= lines,
			   "partition %u without a policy", i);
		FUZZ_CHECK(machine_policy(m, part, NULL, NULL) ==
				   machine_partition(m, i, NULL, NULL, NULL),
			   "partition '%s' finds another policy", part);
	}
	if (machine_has_names(m))
		for (uint32_t i = 0; i < topo_num_nodes(t); i++)
			FUZZ_CHECK(machine_node_index(
					   m, machine_node_name(m, i)) == i,
				   "machine name of node %u", i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct err err = { 0 };
	struct topo_conf *c;
	struct machine *m;
	uint32_t lines;
	char *text;

	if (size > MAX_INPUT || !(text = fuzz_rest(&in)))
		return 0;
	if (fuzz_conf_size(text) > MAX_SIZE) {
		free(text);
		return 0;
	}
	lines = fuzz_lines(text, strlen(text));
	c = topo_conf_parse(NAME, text, &err);
	if (!c) {
		FUZZ_CHECK_ERR(&err, NAME, lines);
		free(text);
		return 0;
	}
	check_conf(c, lines);
	topo_conf_destroy(c);
	err.msg[0] = '\0';
	m = machine_parse(NAME, text, NULL, &err);
	if (m) {
		check_machine(m, lines);
		machine_destroy(m);
	} else {
		FUZZ_CHECK_ERR(&err, NAME, lines);
	}
	free(text);
	return 0;
}
