/* topo_dragonfly.c - dfly(p,a,h,g) of paper 002 Sec. 2.1.
 *
 * Switch id = group*a + r; node i on switch i/p; routers of a group are a
 * full mesh.  Global port t (0..a*h-1) of group i sits on router t/h; with
 * k = t mod (g-1) it goes to group j = k (k < i) or k+1, copy c = t div (g-1),
 * and lands on port c*(g-1) + (i < j ? i : i-1) of group j.  A pair of groups
 * gets one cable per copy that exists on both sides; ports without a
 * partner are counted as unconnected. */
#include "topo/topo_recog_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "p", .def = "2", .help = "nodes per router" },
	{ .key = "a", .def = "4", .help = "routers per group" },
	{ .key = "h", .def = "2", .help = "global ports per router" },
	{ .key = "g", .help = "groups (default a*h+1, at most a*h+1)" },
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "local", .def = "1", .help = "intra-group link capacity" },
	{ .key = "global", .def = "1", .help = "global link capacity" },
	{ 0 },
};

static int build(struct topo_builder *b, const struct topo_args *args,
		 struct err *err)
{
	long p, a, h, g;
	double cinj, cloc, cglob;
	uint32_t S, ports;

	if (targ_int(args, "p", 1, 1 << 16, &p, err) ||
	    targ_int(args, "a", 1, 1 << 16, &a, err) ||
	    targ_int(args, "h", 0, 1 << 16, &h, err) ||
	    targ_int_computed(args, "g", a * h + 1, 1, 1 << 20, &g, err) ||
	    targ_double(args, "inject", &cinj, err) ||
	    targ_double(args, "local", &cloc, err) ||
	    targ_double(args, "global", &cglob, err))
		return -1;
	if (g > a * h + 1)
		return err_set(err, "g=%ld exceeds a*h+1=%ld", g, a * h + 1);
	if (tb_check_size((uint64_t)a * (uint64_t)g,
			  (uint64_t)a * (uint64_t)g * (uint64_t)p,
			  (uint64_t)g * (uint64_t)a * (uint64_t)(a - 1) / 2 +
				  (uint64_t)g * (uint64_t)a * (uint64_t)h / 2,
			  err))
		return -1;
	S = (uint32_t)(a * g);
	ports = (uint32_t)(a * h);
	b->nswitches = S;
	b->inject_cap = cinj;
	if (tb_groups(b, (uint32_t)g))
		return err_nomem(err, "out of memory");
	for (uint32_t s = 0; s < S; s++) {
		b->sw_group[s] = s / (uint32_t)a;
		for (long k = 0; k < p; k++)
			if (tb_node(b, s))
				return err_nomem(err, "out of memory");
	}
	for (uint32_t grp = 0; grp < (uint32_t)g; grp++)
		for (uint32_t r = 0; r < (uint32_t)a; r++)
			for (uint32_t q = r + 1; q < (uint32_t)a; q++)
				if (tb_cable(b, grp * a + r, grp * a + q, cloc,
					     TOPO_LINK_LOCAL, TOPO_LINK_LOCAL))
					return err_nomem(err, "out of memory");
	if (g < 2) {
		b->unconnected_ports = (uint32_t)g * ports;
		return 0;
	}
	for (uint32_t i = 0; i < (uint32_t)g; i++) {
		for (uint32_t t = 0; t < ports; t++) {
			uint32_t k = t % (uint32_t)(g - 1);
			uint32_t j = k < i ? k : k + 1;
			uint32_t c = t / (uint32_t)(g - 1);
			uint32_t land =
				c * (uint32_t)(g - 1) + (i < j ? i : i - 1);

			if (land >= ports) {
				b->unconnected_ports++;
				continue;
			}
			if (i > j)
				continue; /* the cable is added from group j */
			if (tb_cable(b, i * a + t / h, j * a + land / h, cglob,
				     TOPO_LINK_GLOBAL, TOPO_LINK_GLOBAL))
				return err_nomem(err, "out of memory");
		}
	}
	return 0;
}

const struct topo_family_ops topo_family_dragonfly = {
	.name = "dragonfly",
	.traits = { .routing = "ugal",
		    .unit = "group",
		    .groups = true,
		    .group_mesh = true },
	/* answers "cascade" too (topo_recog_dragonfly.c) */
	.recognise = { .fn = recog_dragonfly,
		       .priority = 10,
		       .as = "dragonfly" },
	.kind = TOPO_DRAGONFLY,
	.opts = opts,
	.build = build,
};
