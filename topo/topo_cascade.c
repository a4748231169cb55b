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
 * not exceed 960.
 *
 * Real machines wire the global cables by blocks instead (block=W,
 * bundle=B; the Aries link lists of NERSC's Edison and ALCF's Theta): in
 * every chassis (row), the other groups take blocks of W consecutive
 * slots in turn, group i's k-th other group (k = j, or j-1 when j > i)
 * the block k mod (16/W), so a router serves ceil((groups-1)/(16/W))
 * groups; router (i, row, bW + p) is cabled to router (j, row, b'W + p),
 * b' the block group j gives group i, by B parallel cables, one link of
 * capacity B x global.  pair is then 6 W B: Edison is
 * cascade:groups=15,block=2,bundle=2 (24 cables per group pair), Theta
 * cascade:groups=9,block=4,bundle=2 (48). */
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
	{ .key = "pair",
	  .help = "cables between two groups (default 24; 6 x block x "
		  "bundle with block=)" },
	{ .key = "block",
	  .help = "wire each other group to a block of this many slots "
		  "in every chassis (1, 2, 4, 8 or 16; default: round "
		  "robin over the routers)" },
	{ .key = "bundle",
	  .help = "with block=: parallel cables per router pair, one link "
		  "of bundle x global capacity (default 1)" },
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

/* The global links of the block wiring (see above): G groups, blocks of
 * W slots, B cables a router pair. */
static int block_wiring(struct topo_builder *b, uint32_t G, uint32_t W,
			uint32_t B, double cglob)
{
	uint32_t nb = SLOTS / W;

	for (uint32_t i = 0; i < G; i++)
		for (uint32_t j = i + 1; j < G; j++) {
			uint32_t bi = (j - 1) % nb; /* i's block for j */
			uint32_t bj = i % nb;	    /* j's block for i */

			for (uint32_t r = 0; r < CHASSIS; r++)
				for (uint32_t p = 0; p < W; p++)
					if (tb_cable(b,
						     i * ROUTERS + r * SLOTS +
							     bi * W + p,
						     j * ROUTERS + r * SLOTS +
							     bj * W + p,
						     B * cglob,
						     TOPO_LINK_GLOBAL,
						     TOPO_LINK_GLOBAL))
						return -1;
		}
	return 0;
}

/* block= and bundle= (both absent: round robin, *W = 0), checked: W
 * divides the 16 slots, a router's global ports hold its groups' cables,
 * PAIR (when given) is 6 W B. */
static int block_args(const struct topo_args *args, long g, long *w, long *bn,
		      struct err *err)
{
	long per;

	*w = *bn = 0;
	if (!targ_str(args, "block")) {
		if (targ_str(args, "bundle"))
			return err_set(err, "bundle= needs block= (the "
					    "round-robin wiring has one "
					    "cable a router pair)");
		return 0;
	}
	if (targ_int(args, "block", 1, SLOTS, w, err) ||
	    targ_int_computed(args, "bundle", 1, 1, GLOBAL_PORTS, bn, err))
		return -1;
	if (SLOTS % *w)
		return err_set(err,
			       "block=%ld: must divide the %d slots of "
			       "a chassis (1, 2, 4, 8, 16)",
			       *w, SLOTS);
	per = (g - 1 + SLOTS / *w - 1) / (SLOTS / *w);
	if (per * *bn > GLOBAL_PORTS)
		return err_set(err,
			       "block=%ld,bundle=%ld: a router serves %ld "
			       "groups, %ld cable%s each: more than its %d "
			       "global ports",
			       *w, *bn, per, *bn, *bn == 1 ? "" : "s",
			       GLOBAL_PORTS);
	return 0;
}

static int build(struct topo_builder *b, const struct topo_args *args,
		 struct err *err)
{
	long g, pair, w, bn;
	double cinj, cloc, ccol, cglob;
	uint32_t ports;

	if (targ_int(args, "groups", 1, 4096, &g, err) ||
	    block_args(args, g, &w, &bn, err) ||
	    targ_int_computed(args, "pair", w ? CHASSIS * w * bn : 24, 1,
			      ROUTERS * GLOBAL_PORTS, &pair, err) ||
	    targ_double(args, "inject", &cinj, err) ||
	    targ_double(args, "local", &cloc, err) ||
	    targ_double(args, "column", &ccol, err) ||
	    targ_double(args, "global", &cglob, err))
		return -1;
	if (w && pair != CHASSIS * w * bn)
		return err_set(err,
			       "pair=%ld, but block=%ld,bundle=%ld wire %ld "
			       "cables between two groups (6 x block x "
			       "bundle)",
			       pair, w, bn, CHASSIS * w * bn);
	if ((g - 1) * pair > ROUTERS * GLOBAL_PORTS)
		return err_set(err,
			       "(groups-1)*pair = %ld global ports per "
			       "group exceeds %d (96 routers x 10 ports)",
			       (g - 1) * pair, ROUTERS * GLOBAL_PORTS);
	b->nswitches = (uint32_t)g * ROUTERS;
	b->inject_cap = cinj;
	if (tb_groups(b, (uint32_t)g))
		return err_nomem(err, "out of memory");
	for (uint32_t s = 0; s < b->nswitches; s++) {
		b->sw_group[s] = s / ROUTERS;
		for (int k = 0; k < NODES; k++)
			if (tb_node(b, s))
				return err_nomem(err, "out of memory");
	}
	for (uint32_t grp = 0; grp < (uint32_t)g; grp++)
		if (intra_group(b, grp * ROUTERS, cloc, ccol))
			return err_nomem(err, "out of memory");
	if (w)
		return block_wiring(b, (uint32_t)g, (uint32_t)w, (uint32_t)bn,
				    cglob) ?
			       err_nomem(err, "out of memory") :
			       0;
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
				return err_nomem(err, "out of memory");
		}
	}
	return 0;
}

const struct topo_family_ops topo_family_cascade = {
	.name = "cascade",
	.traits = { .routing = "ugal", .unit = "group", .groups = true },
	/* no recogniser of its own: the dragonfly's answers "cascade" */
	.kind = TOPO_CASCADE,
	.opts = opts,
	.build = build,
};
