/* topo_mesh.c - mesh-like families: express mesh (paper 003 Sec. II-A),
 * HyperX and torus.
 *
 * Routers form a k0 x k1 x ... grid; router id = l0 + k0*(l1 + k1*(l2 ...))
 * (topo_switch_coord); p nodes per router, node i on router i/p.  Links
 * only join routers whose coordinates differ in exactly one dimension.
 *
 *   expressmesh:dims=AxBxC,gap=G,p=P  paper 003 Eq. 1-2: within a
 *       dimension, l and l' are joined iff |l - l'| = 1 + m*G for some
 *       m >= 0 (m = 0 is the mesh link of Eq. 1; Eq. 2's bound
 *       m <= ceil(k/G) never binds because l + 1 + m*G < k already implies
 *       m < k/G).
 *   hyperx:dims=AxBxC,p=P  express mesh with gap 1: every distance 1 + m is
 *       a link, i.e. all-to-all within each dimension (paper 003: "When
 *       g = 1, we obtain a HyperX network with all-to-all connectivity
 *       along every dimension").
 *   torus:dims=AxBxC,p=P  ring in every dimension: l joined to (l+1) mod k.
 *       A dimension of size 2 has one cable (l=0 - l=1), size 1 none.
 *
 * Capacities: inject= (node links), link= (router cables), default 1.
 * One cable per router pair (no parallel links).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_impl.h"

#define MAX_ROUTERS 10000000ULL

static const struct spec_opt em_opts[] = {
	{ .key = "dims", .def = "4x4x4", .help = "router grid, AxBxC" },
	{ .key = "gap", .def = "2", .help = "express link gap g" },
	{ .key = "p", .def = "1", .help = "nodes per router" },
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "link", .def = "1", .help = "router link capacity" },
	{ 0 },
};
static const struct spec_opt hx_opts[] = {
	{ .key = "dims", .def = "4x4x4", .help = "router grid, AxBxC" },
	{ .key = "p", .def = "1", .help = "nodes per router" },
	{ .key = "inject", .def = "1", .help = "node link capacity" },
	{ .key = "link", .def = "1", .help = "router link capacity" },
	{ 0 },
};

/* Parse "AxBxC" (1..TOPO_MAX_DIMS sizes, each >= 1) into b->dims. */
static int parse_dims(struct topo_builder *b, const char *s, struct err *err)
{
	const char *p = s;
	uint64_t prod = 1;
	int n = 0;

	for (;;) {
		char *end;
		unsigned long v;

		if (*p < '0' || *p > '9')
			return err_set(err,
				       "parameter dims=%s: want sizes "
				       "like 4x4x4",
				       s);
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v < 1 || v > 1000000)
			return err_set(err,
				       "parameter dims=%s: size %.*s "
				       "must be in [1, 1000000]",
				       s, (int)(end - p), p);
		if (n == TOPO_MAX_DIMS)
			return err_set(err,
				       "parameter dims=%s: more than %d "
				       "dimensions",
				       s, TOPO_MAX_DIMS);
		b->dims[n++] = (uint32_t)v;
		prod *= v;
		if (prod > MAX_ROUTERS)
			return err_set(err,
				       "parameter dims=%s: more than "
				       "%llu routers",
				       s, MAX_ROUTERS);
		p = end;
		if (!*p)
			break;
		if (*p != 'x' && *p != 'X')
			return err_set(err,
				       "parameter dims=%s: want sizes "
				       "like 4x4x4",
				       s);
		p++;
	}
	b->ndims = n;
	b->nswitches = (uint32_t)prod;
	return 0;
}

/* Joined in one dimension at distance DIST (>= 1)? gap 0 means torus. */
static bool joined(uint32_t dist, uint32_t k, uint32_t gap)
{
	if (gap == 0)
		return dist == 1 || (k > 2 && dist == k - 1);
	return (dist - 1) % gap == 0;
}

/* Number of cables within one line of length K. */
static uint64_t line_cables(uint32_t k, uint32_t gap)
{
	uint64_t n = 0;

	if (gap == 0)
		return k <= 1 ? 0 : k == 2 ? 1 : k;
	for (uint32_t d = 1; d < k; d += gap)
		n += k - d;
	return n;
}

/* Common builder; GAP 0 = torus. */
static int build_grid(struct topo_builder *b, const struct topo_args *args,
		      uint32_t gap, struct err *err)
{
	long p;
	double cinj, clink;
	uint64_t ncab = 0, stride = 1;

	if (parse_dims(b, targ_str(args, "dims"), err) ||
	    targ_int(args, "p", 1, 100000, &p, err) ||
	    targ_double(args, "inject", &cinj, err) ||
	    targ_double(args, "link", &clink, err))
		return -1;
	for (int i = 0; i < b->ndims; i++)
		ncab += line_cables(b->dims[i], gap) *
			(b->nswitches / b->dims[i]);
	if (tb_check_size(b->nswitches, (uint64_t)p * b->nswitches, ncab, err))
		return -1;
	b->inject_cap = cinj;
	for (uint32_t s = 0; s < b->nswitches; s++)
		for (long q = 0; q < p; q++)
			if (tb_node(b, s))
				return err_nomem(err, "out of memory");
	/* Each cable once: from router s to a larger coordinate in dim i
	 * (for the torus wrap link k-1 -> 0, from the router at k-1). */
	for (int i = 0; i < b->ndims; stride *= b->dims[i], i++) {
		uint32_t k = b->dims[i];

		for (uint32_t s = 0; s < b->nswitches; s++) {
			uint32_t l = (uint32_t)((s / stride) % k);

			/* distances 1, 1+g, 1+2g, ... (torus: 1 and the
			 * wrap k-1), one cable per pair */
			for (uint32_t d = 1; l + d < k;
			     d = gap ? d + gap :
				       (d == 1 && l == 0 && k > 2 ? k - 1 :
								    k)) {
				if (!joined(d, k, gap))
					continue;
				if (tb_cable(b, s, s + (uint32_t)(d * stride),
					     clink, TOPO_LINK_LOCAL,
					     TOPO_LINK_LOCAL))
					return err_nomem(err, "out of memory");
			}
		}
	}
	return 0;
}

static int build_em(struct topo_builder *b, const struct topo_args *args,
		    struct err *err)
{
	long gap;

	if (targ_int(args, "gap", 1, 1000000, &gap, err))
		return -1;
	return build_grid(b, args, (uint32_t)gap, err);
}

static int build_hx(struct topo_builder *b, const struct topo_args *args,
		    struct err *err)
{
	return build_grid(b, args, 1, err);
}

static int build_torus(struct topo_builder *b, const struct topo_args *args,
		       struct err *err)
{
	return build_grid(b, args, 0, err);
}

const struct topo_family_ops topo_family_expressmesh = {
	.name = "expressmesh",
	.traits = { .routing = "dor", .grid = true },
	.kind = TOPO_EXPRESSMESH,
	.opts = em_opts,
	.build = build_em,
};

const struct topo_family_ops topo_family_hyperx = {
	.name = "hyperx",
	.traits = { .routing = "dor", .grid = true },
	.kind = TOPO_HYPERX,
	.opts = hx_opts,
	.build = build_hx,
};

const struct topo_family_ops topo_family_torus = {
	.name = "torus",
	.traits = { .routing = "dor", .grid = true, .wraps = true },
	.kind = TOPO_TORUS,
	.opts = hx_opts,
	.build = build_torus,
};
