/* routing.h - routing path sets over a struct topo.
 *
 * A path is a list of directed link ids, injection and ejection included,
 * taken literally: a VLB path is MIN(src->I) + MIN(I->dst), never pruned, so
 * it may revisit a router and a link crossed twice is loaded twice.  A flow
 * within one switch has one path of 0 hops (injection, ejection).  Hop
 * count = switch-to-switch links on the path.
 *
 * Routings are given as "NAME[:key=value,...]" ("ugal:intra=global",
 * "ksp:k=4") and resolved through an ops table (routing_*.c, one file per
 * routing family).  A struct routing borrows its topology, is immutable and
 * may be shared read-only between threads.
 */
#ifndef STOPO_ROUTING_H
#define STOPO_ROUTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/util/err.h"
#include "topo/topo.h"

#define ROUTING_MAX_HOPS 64

enum path_class {
	PATH_MIN = 0, /* minimal (also: every path of non-UGAL routings) */
	PATH_VLB = 1, /* Valiant: through an intermediate switch */
};

/* A set of paths, flat: path i is links[off[i] .. off[i+1]). */
struct pathset {
	uint32_t n;	 /* number of paths */
	uint32_t *off;	 /* n+1 entries */
	uint32_t *links; /* off[n] entries */
	uint8_t *cls;	 /* enum path_class per path */
	uint32_t cap_paths;
	size_t cap_links;
};

/* Path counts by class and hop count, computed without enumeration where
 * the family allows it (dragonfly: paper 002's formulas).  by_hops[h] is
 * the number of paths of h hops; the last bucket holds every path of
 * ROUTING_MAX_HOPS hops or more. */
struct routing_count {
	uint64_t total;
	uint64_t by_class[2];
	uint64_t by_hops[ROUTING_MAX_HOPS + 1];
};

struct routing;

/* Initialise an empty path set (no allocation). */
void pathset_init(struct pathset *ps);
/* Forget all paths, keep the memory. */
void pathset_clear(struct pathset *ps);
/* Free the memory; the set is empty again. */
void pathset_free(struct pathset *ps);
/* Append one path of LEN links with class CLS.  Returns 0 or -1 (memory). */
int pathset_add(struct pathset *ps, const uint32_t *links, uint32_t len,
		enum path_class cls);
/* Hops (switch-to-switch links) of path I. */
uint32_t pathset_hops(const struct pathset *ps, const struct topo *t,
		      uint32_t i);

/* Create routing SPEC over T (borrowed; must outlive the routing).
 * Returns NULL with err set when the name is unknown, an option is bad or
 * the routing does not apply to T's family. */
struct routing *routing_create(const struct topo *t, const char *spec,
			       struct err *err);
/* Free; NULL is a no-op. */
void routing_destroy(struct routing *r);

/* Default routing name for a topology family ("ugal" for dragonfly,
 * "ecmp" for fat-tree, "dor" for meshes, "shortest" otherwise). */
const char *routing_default(const struct topo *t);
/* Canonical spec of R, e.g. "ugal:intra=local": every option of the
 * routing with its value, given or default (borrowed). */
const char *routing_spec(const struct routing *r);
/* Name of R's routing, e.g. "ugal" (static storage). */
const char *routing_name(const struct routing *r);
const struct topo *routing_topo(const struct routing *r);
/* True for routings with several paths per flow used adaptively (ugal,
 * vlb, ecmp, minimal, ksp, shortest), where a flow may use every path. */
bool routing_multipath(const struct routing *r);

/* Replace OUT with every path from node SRC to node DST.  Returns 0, or -1
 * with err set (bad node ids, memory). */
int routing_paths(const struct routing *r, uint32_t src, uint32_t dst,
		  struct pathset *out, struct err *err);

/* Count the paths from SRC to DST by class and hops.  Returns 0 or -1. */
int routing_count(const struct routing *r, uint32_t src, uint32_t dst,
		  struct routing_count *c, struct err *err);

/* Link set of a job: set used[l] = 1 for every switch-to-switch link l that
 * any path of any flow between two distinct nodes of NODES (all ordered
 * pairs) can use.  USED has topo_num_links entries and is not cleared
 * first.  Computed structurally per family when possible, by enumeration
 * otherwise.  Returns 0 or -1. */
int routing_linkset(const struct routing *r, const uint32_t *nodes, uint32_t n,
		    uint8_t *used, struct err *err);

/* The same, always by enumerating routing_paths (reference for tests). */
int routing_linkset_enum(const struct routing *r, const uint32_t *nodes,
			 uint32_t n, uint8_t *used, struct err *err);

/* Factored path sets.  Where a routing offers them (routing_middle_keys
 * > 0: dragonfly and Cascade under vlb and ugal), a flow's paths are
 * given without enumerating them as stems and middles: a stem is a list
 * of links with a middle key, and its paths are the stem combined with
 * every middle segment of its key (routing_middles); key
 * ROUTING_NO_MIDDLE means the stem alone is one path.  A VLB stem holds
 * the injection, the source-side local path and global link, the
 * destination-side global link and local path and the ejection; its
 * middles are the local paths v -> I -> u through every router I of the
 * intermediate group (v where the stem arrives, u where it leaves).  The
 * flow's paths, each as a multiset of links, are exactly those of
 * routing_paths: a path model run on stems and middles gives the same
 * answer without the paths (evaluator/models/model_jm.c). */
#define ROUTING_NO_MIDDLE UINT32_MAX

struct stemset {
	struct pathset p; /* the stems' links and classes */
	uint32_t *key;	  /* [p.n] middle key or ROUTING_NO_MIDDLE */
	uint32_t cap_key;
};

void stemset_init(struct stemset *ss);
void stemset_clear(struct stemset *ss);
void stemset_free(struct stemset *ss);
/* Append a stem.  Returns 0 or -1 (memory). */
int stemset_add(struct stemset *ss, const uint32_t *links, uint32_t len,
		enum path_class cls, uint32_t key);

/* Number of middle keys of R (keys are below it); 0 when R gives no
 * factored path sets. */
uint32_t routing_middle_keys(const struct routing *r);
/* Replace OUT with the stems of every path from node SRC to node DST.
 * Returns 0, or -1 with err set (bad node ids, memory, R not factored). */
int routing_stems(const struct routing *r, uint32_t src, uint32_t dst,
		  struct stemset *out, struct err *err);
/* Replace OUT with the middle segments of KEY (a segment may have no
 * link: the stem's path then passes straight through).  Returns 0, or -1
 * with err set (KEY out of range or not a key of R, memory). */
int routing_middles(const struct routing *r, uint32_t key, struct pathset *out,
		    struct err *err);

/* The structure behind vlb and ugal (intra=local) on a dragonfly whose
 * local paths are all single links, for models that count its paths in
 * closed form (model_hm_dfly.c).  Its stems (routing_stems), for a flow
 * from router s (group A) to router d (group B), x->y the local link:
 *   s == d:  inject, eject.
 *   A == B:  MIN (when min): inject, s->d, eject; VLB (when vlb): for
 *            every other router I of A: inject, s->I, I->d, eject; vlb
 *            without such an I routes on MIN.
 *   A != B:  MIN (when min): for every global link x->y from A to B:
 *            inject, s->x (x != s), x->y, y->d (y != d), eject.  VLB
 *            (when vlb): for every group C other than A and B, every
 *            global link x->v from A to C and u->y from C to B: inject,
 *            s->x (x != s), x->v, u->y, y->d (y != d), eject, middle
 *            key v * maxa + idx[u], whose segments are, for every
 *            router I of C in id order, v->I (I != v) then I->u (I != u).
 * Classes: MIN and VLB as routing_paths gives them. */
struct routing_dfly {
	uint32_t G, S;		 /* groups, switches */
	bool min, vlb;		 /* which stems */
	uint32_t maxa;		 /* routers of the largest group */
	const uint32_t *mem_off; /* [G+1] into mem */
	const uint32_t *mem;	 /* routers of each group, ascending */
	const uint32_t *idx;	 /* [S] a router's index in its group */
	const uint32_t *group;	 /* [S] a router's group */
	/* global links A -> B: gl[gl_pair[A G + B] .. gl_pair[A G + B + 1]) */
	const uint32_t *gl, *gl_pair;
	/* local link x -> y (x != y, one group g): local[lo[g] + idx[x]
	 * a_g + idx[y]], a_g = the routers of g */
	const uint32_t *local;
	const size_t *lo;
};

/* R's dragonfly structure, or NULL when R is not vlb or ugal with
 * intra=local, or the topology has fewer than three groups, a group pair
 * without a global link, an empty group, or a local path that is not one
 * link (Cascade, parallel local links). */
const struct routing_dfly *routing_dfly(const struct routing *r);

/* Names of the registered routings, NULL-terminated. */
const char *const *routing_names(void);

#endif
