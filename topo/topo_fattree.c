/* topo_fattree.c - the k-ary n-tree (paper 001, Petrini): k^n nodes, n
 * levels of k^(n-1) switches.  Switch id = level*k^(n-1) + w; node i on leaf
 * i/k; a level-l switch w links up to every level-(l+1) switch whose index
 * differs from w only in base-k digit l (digit 0 least significant).  A pod
 * is the k leaves (and k level-1 switches) sharing w div k. */
#include "topo/topo_recog_impl.h"

static const struct spec_opt opts[] = {
	{ .key = "k", .def = "4", .help = "arity: nodes per leaf, ports up" },
	{ .key = "n", .def = "3", .help = "levels" },
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "link", .def = "1", .help = "switch link capacity" },
	{ 0 },
};

static int build(struct topo_builder *b, const struct topo_args *args,
		 struct err *err)
{
	long k, n;
	double cinj, clink;
	uint64_t per = 1, pw = 1;

	if (targ_int(args, "k", 1, 1 << 16, &k, err) ||
	    targ_int(args, "n", 1, 16, &n, err) ||
	    targ_double(args, "inject", &cinj, err) ||
	    targ_double(args, "link", &clink, err))
		return -1;
	for (long i = 0; i < n - 1; i++) {
		per *= (uint64_t)k;
		if (per > UINT32_MAX) /* beyond every limit */
			return tb_check_size(UINT64_MAX, 0, 0, err);
	}
	if (tb_check_size(per * (uint64_t)n, per * (uint64_t)k,
			  per * (uint64_t)k * (uint64_t)(n - 1), err))
		return -1;
	b->nswitches = (uint32_t)(per * (uint64_t)n);
	b->inject_cap = cinj;
	if (tb_levels(b) || tb_groups(b, n >= 2 ? (uint32_t)(per / k) : 0))
		return err_nomem(err, "out of memory");
	for (uint32_t l = 0; l < (uint32_t)n; l++)
		for (uint32_t w = 0; w < per; w++) {
			uint32_t s = l * (uint32_t)per + w;

			b->sw_level[s] = l;
			if (n >= 2 && l <= 1)
				b->sw_group[s] = w / (uint32_t)k;
		}
	for (uint32_t w = 0; w < per; w++)
		for (long q = 0; q < k; q++)
			if (tb_node(b, w))
				return err_nomem(err, "out of memory");
	for (uint32_t l = 0; l + 1 < (uint32_t)n; l++, pw *= (uint64_t)k) {
		for (uint32_t w = 0; w < per; w++) {
			uint32_t digit = (uint32_t)((w / pw) % (uint64_t)k);
			uint32_t base = w - digit * (uint32_t)pw;

			for (uint32_t d = 0; d < (uint32_t)k; d++) {
				uint32_t up = base + d * (uint32_t)pw;

				if (tb_cable(b, l * (uint32_t)per + w,
					     (l + 1) * (uint32_t)per + up,
					     clink, TOPO_LINK_UP,
					     TOPO_LINK_DOWN))
					return err_nomem(err, "out of memory");
			}
		}
	}
	return 0;
}

const struct topo_family_ops topo_family_fattree = {
	.name = "fattree",
	.traits = { .routing = "ecmp", .unit = "pod", .levels = true },
	/* tried before the dragonfly's, as recognition always was */
	.recognise = { .fn = recog_fattree, .priority = 20, .as = "fat-tree" },
	.kind = TOPO_FATTREE,
	.opts = opts,
	.build = build,
};
