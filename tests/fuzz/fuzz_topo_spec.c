/* fuzz_topo_spec.c - topology specs ("dragonfly:p=2,a=4", "torus
 * dims=4x4") through topo_create.
 *
 * Checked: a built topology passes topo_check; its canonical spec builds
 * the same topology; nodes, groups and mesh dims agree with the switch
 * count; on small topologies the statistics agree with pairwise BFS
 * distances. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "topo/topo.h"

#define MAX_INPUT 512
#define MAX_SIZE 20000	 /* nodes + switches + cables (fuzz_topo_size) */
#define MAX_STATS_SW 32u /* all-pairs statistics only below */

static void check_shape(const struct topo *t)
{
	uint32_t S = topo_num_switches(t), N = topo_num_nodes(t);
	uint32_t G = topo_num_groups(t), dims[TOPO_MAX_DIMS];
	int nd = topo_dims(t, dims);
	uint64_t prod = 1;

	FUZZ_CHECK(topo_num_links(t) >= 2 * N &&
			   topo_first_switch_link(t) == 2 * N,
		   "link layout");
	for (uint32_t i = 0; i < N; i++) {
		uint32_t sw = topo_node_switch(t, i), cnt, k;
		const uint32_t *on = topo_switch_nodes(t, sw, &cnt);

		FUZZ_CHECK(sw < S, "node %u on switch %u of %u", i, sw, S);
		for (k = 0; k < cnt && on[k] != i; k++)
			;
		FUZZ_CHECK(k < cnt, "switch %u does not list node %u", sw, i);
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t g = topo_switch_group(t, s);

		FUZZ_CHECK(g == TOPO_NONE || g < G, "switch %u in group %u", s,
			   g);
	}
	for (int d = 0; d < nd; d++)
		prod *= dims[d];
	FUZZ_CHECK(nd == 0 || prod == S, "dims give %llu routers, not %u",
		   (unsigned long long)prod, S);
}

static void check_stats(const struct topo *t)
{
	struct topo_stats st;
	struct err err = { 0 };
	uint32_t S = topo_num_switches(t), far = 0;
	int broken = 0;

	FUZZ_CHECK(!topo_stats(t, &st, &err), "topo_stats: %s", err.msg);
	FUZZ_CHECK(st.radix_min <= st.radix_max, "radix %u..%u", st.radix_min,
		   st.radix_max);
	for (uint32_t a = 0; a < S; a++)
		for (uint32_t b = 0; b < S; b++) {
			uint32_t d = topo_switch_distance(t, a, b);

			FUZZ_CHECK(d == topo_switch_distance(t, b, a),
				   "distance %u-%u not symmetric", a, b);
			FUZZ_CHECK((a == b) == (d == 0), "distance %u-%u = %u",
				   a, b, d);
			if (d == UINT32_MAX)
				broken = 1;
			else if (d > far)
				far = d;
		}
	FUZZ_CHECK(st.connected == !broken, "connected says %d",
		   (int)st.connected);
	FUZZ_CHECK(st.diameter == (broken ? UINT32_MAX : far),
		   "diameter %u, BFS %u", st.diameter, far);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct err err = { 0 };
	struct topo *t, *again;
	char *spec;

	if (size > MAX_INPUT || !(spec = fuzz_rest(&in)))
		return 0;
	if (fuzz_topo_size(spec) > MAX_SIZE) {
		free(spec);
		return 0;
	}
	t = topo_create(spec, &err);
	free(spec);
	if (!t) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		return 0;
	}
	FUZZ_CHECK(!topo_check(t, &err), "topo_check: %s", err.msg);
	check_shape(t);
	again = topo_create(topo_spec(t), &err);
	FUZZ_CHECK(again, "canonical spec '%s' does not build: %s",
		   topo_spec(t), err.msg);
	FUZZ_CHECK(topo_num_nodes(again) == topo_num_nodes(t) &&
			   topo_num_switches(again) == topo_num_switches(t) &&
			   topo_num_links(again) == topo_num_links(t) &&
			   !strcmp(topo_spec(again), topo_spec(t)),
		   "canonical spec '%s' builds another topology", topo_spec(t));
	topo_destroy(again);
	if (topo_num_switches(t) <= MAX_STATS_SW)
		check_stats(t);
	topo_destroy(t);
	return 0;
}
