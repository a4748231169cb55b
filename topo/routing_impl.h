/* routing_impl.h - the routing ops table; internal to topo/.
 *
 * Adding a routing: one routing_<family>.c defining a const struct
 * routing_ops named routing_<name> with its option table, one X(<name>) in
 * the ROUTINGS list of routing.c, one test. */
#ifndef STOPO_ROUTING_IMPL_H
#define STOPO_ROUTING_IMPL_H

#include "topo/routing.h"
#include "topo/topo_impl.h"

#define ROUTING_MAX_OPTS 8

struct routing;

struct routing_ops {
	const char *name; /* "min", "vlb", "ugal", "ecmp", ... */
	/* The options, { 0 }-terminated (NULL: none); anything else is an
	 * error.  routing_spec lists every one with its value. */
	const struct spec_opt *opts;
	bool multipath;
	/* True when the paths of a flow depend only on its two switches
	 * (not on the node ids): link sets are then enumerated over switch
	 * pairs.  False is always safe (dmodk depends on the destination). */
	bool switch_paths;
	/* Whether this routing applies to T's family. */
	bool (*applies)(const struct topo *t);
	/* Parse the options (targ_*: given, else the table's default) and
	 * precompute; may set r->priv.  Optional. */
	int (*init)(struct routing *r, const struct topo_args *args,
		    struct err *err);
	/* Free r->priv.  Optional. */
	void (*fini)(struct routing *r);
	/* Append every path from node SRC to node DST (distinct switches;
	 * routing.c handles src and dst on one switch) to OUT, injection and
	 * ejection links included.  Required. */
	int (*paths)(const struct routing *r, uint32_t src, uint32_t dst,
		     struct pathset *out, struct err *err);
	/* Count without enumerating.  Optional: routing.c enumerates when
	 * NULL. */
	int (*count)(const struct routing *r, uint32_t src, uint32_t dst,
		     struct routing_count *c, struct err *err);
	/* Structural link set of all ordered pairs of NODES (see
	 * routing_linkset).  Optional: routing.c enumerates when NULL. */
	int (*linkset)(const struct routing *r, const uint32_t *nodes,
		       uint32_t n, uint8_t *used, struct err *err);
	/* Factored path sets (routing_stems; optional, all three or none).
	 * middle_keys returns 0 when R offers none (e.g. min routing);
	 * stems appends the stems of SRC -> DST (distinct switches) to OUT;
	 * middles appends KEY's segments to OUT. */
	uint32_t (*middle_keys)(const struct routing *r);
	int (*stems)(const struct routing *r, uint32_t src, uint32_t dst,
		     struct stemset *out, struct err *err);
	int (*middles)(const struct routing *r, uint32_t key,
		       struct pathset *out, struct err *err);
};

struct routing {
	const struct topo *t;
	const struct routing_ops *ops;
	char spec[128];
	long opt[ROUTING_MAX_OPTS]; /* parsed options, meaning per routing */
	void *priv;
};

/* Add N paths of class CLS and HOPS hops to C (hops >= ROUTING_MAX_HOPS
 * go to the last bucket). */
void routing_count_add(struct routing_count *c, enum path_class cls,
		       uint32_t hops, uint64_t n);

/* "WHO: A cannot reach B" in ERR, the switches by name where the
 * topo.conf names them.  Returns -1. */
int routing_unreachable(const struct topo *t, const char *who, uint32_t a,
			uint32_t b, struct err *err);

/* ecmp on a Topology=graph recognised as a fat-tree: append every
 * shortest up/down path from node SRC to node DST (distinct switches) to
 * OUT (routing_updown.c).  Returns 0 or -1 with err set. */
int updown_paths(const struct routing *r, uint32_t src, uint32_t dst,
		 struct pathset *out, struct err *err);
/* Its link set (routing_linkset) without enumerating paths, from the
 * leaf classes updown_init computes into r->priv (updown_fini frees). */
int updown_init(struct routing *r, struct err *err);
void updown_fini(struct routing *r);
int updown_linkset(const struct routing *r, const uint32_t *nodes, uint32_t n,
		   uint8_t *used, struct err *err);

#endif
