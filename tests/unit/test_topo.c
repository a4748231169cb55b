/* test_topo.c - topology families: counts, degrees, symmetry,
 * connectivity, groups/pods; topo_check runs on every instance. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "topo/topo.h"

static struct topo *mk(const char *spec)
{
	struct err err = { "" };
	struct topo *t = topo_create(spec, &err);

	cr_assert_not_null(t, "%s: %s", spec, err.msg);
	cr_assert_eq(topo_check(t, &err), 0, "%s: %s", spec, err.msg);
	return t;
}

struct count_case {
	char spec[64]; /* arrays, not pointers: Criterion runs each case in a new process */
	uint32_t nodes, switches, switch_links, groups;
	uint32_t radix_min, radix_max, diameter;
};

/* Hand-computed: dfly(p,a,h,g) has p*a*g nodes, a*g switches,
 * g*a(a-1) local + a*g*h global directed links when g-1 divides a*h;
 * radix p + (a-1) + h.  k-ary n-tree: k^n nodes, n*k^(n-1) switches,
 * 2*(n-1)*k^n directed switch links; leaf radix 2k, top radix k. */
static const struct count_case counts[] = {
	{ "dragonfly:p=2,a=4,h=2,g=9", 72, 36, 9 * 12 + 36 * 2, 9, 7, 7, 3 },
	{ "dragonfly:p=1,a=2,h=1,g=3", 6, 6, 3 * 2 + 6, 3, 3, 3, 3 },
	{ "fattree:k=4,n=3", 64, 48, 2 * 2 * 64, 4, 4, 8, 4 },
	{ "fattree:k=2,n=2", 4, 4, 2 * 4, 1, 2, 4, 2 },
};

ParameterizedTestParameters(topo, counts)
{
	return cr_make_param_array(struct count_case, counts,
				   sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(const struct count_case *c, topo, counts)
{
	struct topo *t = mk(c->spec);
	struct topo_stats st;

	cr_expect_eq(topo_num_nodes(t), c->nodes, "%s nodes", c->spec);
	cr_expect_eq(topo_num_switches(t), c->switches, "%s switches", c->spec);
	cr_expect_eq(topo_num_links(t), 2 * c->nodes + c->switch_links,
		     "%s links", c->spec);
	cr_expect_eq(topo_num_groups(t), c->groups, "%s groups", c->spec);
	cr_assert_eq(topo_stats(t, &st, NULL), 0);
	cr_expect_eq(st.radix_min, c->radix_min, "%s radix_min %u", c->spec,
		     st.radix_min);
	cr_expect_eq(st.radix_max, c->radix_max, "%s radix_max %u", c->spec,
		     st.radix_max);
	cr_expect_eq(st.diameter, c->diameter, "%s diameter %u", c->spec,
		     st.diameter);
	cr_expect(st.connected);
	topo_destroy(t);
}

Test(topo, destroy_null)
{
	topo_destroy(NULL);
}
