/* topo_cascade.c - the Cray Cascade (XC) dragonfly of paper 002 Sec. 2.2.
 *
 * A group is 6 chassis x 16 routers (two cabinets of three chassis), four
 * compute nodes per router.  Router id within a group r = chassis*16 +
 * slot; switch id = group*96 + r; node i on switch i/4.  Inside a group:
 *   - all-to-all within a chassis (the "row", 15 cables per router),
 *     capacity local= (default 1);
 *   - all-to-all within a slot across the 6 chassis (the "column", 5
 *     cables per router), each one cable of capacity column= (default 3:
 *     the paper's three links per pair, one cable so that path counts are
 *     the paper's 2 x 24 x 2 = 96 MIN paths).
 * Global links: pair= cables (default 24) between every pair of groups.
 * Group i has global ports t = 0 .. (groups-1)*pair - 1; port t sits on
 * router t mod 96 (round-robin over the routers); with k = t mod
 * (groups-1) it goes to group j = k (k < i) or k+1, copy c = t div
 * (groups-1), and lands on port c*(groups-1) + (i < j ? i : i-1) of group
 * j.  Every port is used; the pair's cables sit on distinct routers when
 * pair <= 96.  An Aries router has 10 global ports, so (groups-1)*pair may
 * not exceed 960. */
#include "topo/topo_impl.h"

enum {
	CHASSIS = 6,
	SLOTS = 16,
	ROUTERS = CHASSIS * SLOTS,
	NODES = 4,
	GLOBAL_PORTS = 10
};

static const struct spec_opt opts[] = {
	{ .key = "groups", .def = "6", .help = "groups of 96 routers" },
	{ .key = "pair", .def = "24", .help = "cables between two groups" },
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "local", .def = "1", .help = "chassis (row) link capacity" },
	{ .key = "column", .def = "3", .help = "column link capacity" },
	{ .key = "global", .def = "1", .help = "global link capacity" },
	{ 0 },
};

static int intra_group(struct topo_builder *b, uint32_t base, double cloc,
		       double ccol)
{
	for (uint32_t c = 0; c < CHASSIS; c++)
		for (uint32_t s = 0; s < SLOTS; s++) {
			uint32_t r = c * SLOTS + s;

			for (uint32_t s2 = s + 1; s2 < SLOTS; s2++)
				if (tb_cable(b, base + r, base + c * SLOTS + s2,
					     cloc, TOPO_LINK_LOCAL,
					     TOPO_LINK_LOCAL))
					return -1;
			for (uint32_t c2 = c + 1; c2 < CHASSIS; c2++)
				if (tb_cable(b, base + r, base + c2 * SLOTS + s,
					     ccol, TOPO_LINK_LOCAL,
					     TOPO_LINK_LOCAL))
					return -1;
		}
	return 0;
}

static int build(struct topo_builder *b, const struct topo_args *args,
		 struct err *err)
{
	long g, pair;
	double cinj, cloc, ccol, cglob;
	uint32_t ports;

	if (targ_int(args, "groups", 1, 4096, &g, err) ||
	    targ_int(args, "pair", 1, ROUTERS * GLOBAL_PORTS, &pair, err) ||
	    targ_double(args, "inject", &cinj, err) ||
	    targ_double(args, "local", &cloc, err) ||
	    targ_double(args, "column", &ccol, err) ||
	    targ_double(args, "global", &cglob, err))
		return -1;
	if ((g - 1) * pair > ROUTERS * GLOBAL_PORTS)
		return err_set(err,
			       "(groups-1)*pair = %ld global ports per "
			       "group exceeds %d (96 routers x 10 ports)",
			       (g - 1) * pair, ROUTERS * GLOBAL_PORTS);
	b->nswitches = (uint32_t)g * ROUTERS;
	b->inject_cap = cinj;
	if (tb_groups(b, (uint32_t)g))
		return err_set(err, "out of memory");
	for (uint32_t s = 0; s < b->nswitches; s++) {
		b->sw_group[s] = s / ROUTERS;
		for (int k = 0; k < NODES; k++)
			if (tb_node(b, s))
				return err_set(err, "out of memory");
	}
	for (uint32_t grp = 0; grp < (uint32_t)g; grp++)
		if (intra_group(b, grp * ROUTERS, cloc, ccol))
			return err_set(err, "out of memory");
	ports = (uint32_t)((g - 1) * pair);
	for (uint32_t i = 0; g > 1 && i < (uint32_t)g; i++) {
		for (uint32_t t = 0; t < ports; t++) {
			uint32_t k = t % (uint32_t)(g - 1);
			uint32_t j = k < i ? k : k + 1;
			uint32_t c = t / (uint32_t)(g - 1);
			uint32_t land =
				c * (uint32_t)(g - 1) + (i < j ? i : i - 1);

			if (i > j)
				continue; /* the cable is added from group j */
			if (tb_cable(b, i * ROUTERS + t % ROUTERS,
				     j * ROUTERS + land % ROUTERS, cglob,
				     TOPO_LINK_GLOBAL, TOPO_LINK_GLOBAL))
				return err_set(err, "out of memory");
		}
	}
	return 0;
}

const struct topo_family_ops topo_family_cascade = {
	.name = "cascade",
	.kind = TOPO_CASCADE,
	.opts = opts,
	.build = build,
};
