/* topo.h - interconnect topologies: a directed, capacitated graph of
 * switches plus compute nodes.
 *
 * Numbering is a contract shared by stopo output, flow files, job files and
 * the Slurm plugin:
 *   - nodes     0 .. N-1  (node i may carry a Slurm node name, see topo_conf)
 *   - switches  0 .. S-1  (family-specific order, see each family)
 *   - links     0 .. L-1  directed:
 *       [0, N)      injection link of node i   (node i -> its switch)
 *       [N, 2N)     ejection link of node i    (its switch -> node i)
 *       [2N, L)     switch-to-switch links, sorted by (from, to); parallel
 *                   cables between the same pair are consecutive.
 *     Every cable is two directed links with equal capacity; each link knows
 *     its reverse.
 *
 * A struct topo is immutable once built and may be shared read-only between
 * threads.  No GLPK, no Slurm here.
 */
#ifndef STOPO_TOPO_H
#define STOPO_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/util/err.h"

#define TOPO_NONE UINT32_MAX
#define TOPO_MAX_DIMS 8

enum topo_kind {
	TOPO_DRAGONFLY,
	TOPO_CASCADE,
	TOPO_FATTREE,
	TOPO_EXPRESSMESH,
	TOPO_HYPERX,
	TOPO_TORUS,
	TOPO_JELLYFISH,
	TOPO_GRAPH,
};

enum topo_link_kind {
	TOPO_LINK_INJECT, /* node -> switch */
	TOPO_LINK_EJECT,  /* switch -> node */
	TOPO_LINK_LOCAL,  /* intra-group (dragonfly, cascade), mesh, generic */
	TOPO_LINK_GLOBAL, /* between dragonfly / cascade groups */
	TOPO_LINK_UP,	  /* fat-tree, toward the roots */
	TOPO_LINK_DOWN,	  /* fat-tree, toward the leaves */
};

struct topo_link {
	uint32_t from;	  /* switch id; node id for TOPO_LINK_INJECT */
	uint32_t to;	  /* switch id; node id for TOPO_LINK_EJECT */
	uint32_t reverse; /* id of the link of the same cable, other direction */
	double capacity;
	enum topo_link_kind kind;
};

struct topo;

/* Key/value parameters of a family, e.g. "p=2,a=4,h=2,g=9". */
struct topo_param {
	char key[32];
	char value[96];
};

/* Build a topology from SPEC, "family:key=value,..." (or a bare family
 * name with defaults); never a file (a topo.conf is read by topo_conf.h,
 * or by the machine, which also tells --topo arguments apart).  Returns a
 * new topology (free with topo_destroy) or NULL with err set. */
struct topo *topo_create(const char *spec, struct err *err);

/* Build family FAMILY from NPARAMS parameters.  Unknown keys and bad values
 * are errors.  Returns a new topology or NULL with err set. */
struct topo *topo_create_family(const char *family,
				const struct topo_param *params, size_t nparams,
				struct err *err);

/* Split "family:k=v,k=v" (spaces also separate, as in topo.conf's
 * "Topology=dragonfly p=4 a=8") into FAMILY and PARAMS (at most
 * TOPO_MAX_PARAMS = 16).  Returns 0 or -1 with err set. */
int topo_parse_spec(const char *spec, char *family, size_t famlen,
		    struct topo_param *params, size_t *nparams,
		    struct err *err);

/* Free a topology; NULL is a no-op. */
void topo_destroy(struct topo *t);

/* Names of the registered families, NULL-terminated (static storage). */
const char *const *topo_family_names(void);

enum topo_kind topo_kind(const struct topo *t);
/* Family name ("dragonfly", "fattree", ...). */
const char *topo_family(const struct topo *t);
/* Canonical spec string, e.g. "dragonfly:p=2,a=4,h=2,g=9" (borrowed). */
const char *topo_spec(const struct topo *t);
/* Value of integer parameter KEY of the family (after defaults), or -1. */
long topo_param_int(const struct topo *t, const char *key);
/* Every parameter of the family, given or defaulted, in the family's key
 * order (e.g. p, a, h, g, inject, local, global); *params is set to the
 * array (borrowed).  Returns the count. */
size_t topo_params(const struct topo *t, const struct topo_param **params);

uint32_t topo_num_nodes(const struct topo *t);
uint32_t topo_num_switches(const struct topo *t);
uint32_t topo_num_links(const struct topo *t);

/* Link ID (must be < topo_num_links).  Borrowed. */
const struct topo_link *topo_link(const struct topo *t, uint32_t id);
static inline uint32_t topo_inject_link(const struct topo *t, uint32_t node)
{
	(void)t;
	return node;
}
uint32_t topo_eject_link(const struct topo *t, uint32_t node);
/* First switch-to-switch link id (= 2N). */
uint32_t topo_first_switch_link(const struct topo *t);

/* The name the topo.conf gives switch SW (Topology=graph), or NULL for
 * the generated families (borrowed). */
const char *topo_switch_name(const struct topo *t, uint32_t sw);
/* Switch SW as messages name it: its name, else "switch SW", in BUF (LEN
 * bytes).  Returns BUF. */
const char *topo_switch_label(const struct topo *t, uint32_t sw, char *buf,
			      size_t len);

/* Switch of node NODE. */
uint32_t topo_node_switch(const struct topo *t, uint32_t node);
/* Nodes attached to switch SW, ascending; *count set.  Borrowed. */
const uint32_t *topo_switch_nodes(const struct topo *t, uint32_t sw,
				  uint32_t *count);
/* Outgoing switch-to-switch links of SW: ids first .. first+*count-1
 * (contiguous, sorted by destination).  Returns first. */
uint32_t topo_switch_out(const struct topo *t, uint32_t sw, uint32_t *count);
/* Incoming switch-to-switch link ids of SW, sorted by source.  Borrowed. */
const uint32_t *topo_switch_in(const struct topo *t, uint32_t sw,
			       uint32_t *count);
/* First link from switch A to switch B and the number of parallel links
 * (consecutive ids) in *count; TOPO_NONE (and *count = 0) if none. */
uint32_t topo_link_between(const struct topo *t, uint32_t a, uint32_t b,
			   uint32_t *count);

/* Groups: dragonfly / cascade groups; fat-tree pods (levels 0 and 1, pod of
 * leaf w = w div k; switches at level >= 2 have no pod).  Families without
 * groups have 0 groups and every switch is in TOPO_NONE. */
uint32_t topo_num_groups(const struct topo *t);
uint32_t topo_switch_group(const struct topo *t, uint32_t sw);

/* Fat-tree level of a switch (0 = leaf); 0 for other families. */
uint32_t topo_switch_level(const struct topo *t, uint32_t sw);

/* Family recognition of an explicit graph (Topology=graph, see
 * topo.conf(5) RECOGNITION): "fattree" (leaves: the switches with nodes
 * but for storage or login hosts on a spine; levels up to the roots that
 * join every two leaves; pods = components of levels 0 and 1, as
 * topo_switch_group), "cascade" (groups of rows x columns, each row and
 * each column all-to-all) or "dragonfly" (groups = all-to-all cliques of
 * equal size), else NULL (also for every generated family, and for a
 * graph that is not connected).  Static storage. */
const char *topo_graph_family(const struct topo *t);
/* Why an explicit graph was not recognised (borrowed), or NULL when it
 * was. */
const char *topo_graph_why(const struct topo *t);
/* Levels of a recognised fat-tree graph (1 for a dragonfly, 0 if none). */
uint32_t topo_graph_levels(const struct topo *t);
/* Cables between the groups of a recognised dragonfly graph (else 0). */
uint32_t topo_graph_global_links(const struct topo *t);

/* Everything recognition found, for describing it. */
struct topo_graph_info {
	const char *family; /* as topo_graph_family */
	const char *why;    /* as topo_graph_why */
	uint32_t parts;	    /* connected parts of the switch graph */
	uint32_t levels, groups, group_size;
	uint32_t rows, cols;	     /* Cascade: a group's rows x columns */
	uint32_t global_links;	     /* dragonfly, Cascade */
	uint32_t pair_min, pair_max; /* global links between two groups */
	uint32_t idle;		     /* fat-tree: switches on no up/down
				      * route between two leaves */
	uint32_t hosting;	     /* fat-tree: switches above level 0
				      * with compute nodes */
};
/* Fill GI for graph T.  Returns 0, or -1 (GI zeroed) when T is not a
 * Topology=graph. */
int topo_graph_info(const struct topo *t, struct topo_graph_info *gi);
/* Whether switch SW of a recognised fat-tree graph is idle: higher than
 * the roots, on no up/down route between two leaves (it has a level, from
 * the roots, and no pod).  False elsewhere. */
bool topo_switch_idle(const struct topo *t, uint32_t sw);
/* The kind T behaves as: its own, or for a graph recognised as a family
 * that family's (TOPO_FATTREE, TOPO_DRAGONFLY, TOPO_CASCADE); TOPO_GRAPH
 * for a graph recognised as nothing. */
enum topo_kind topo_behaves_as(const struct topo *t);
/* What a family is, as data (each family's ops hold its own), so code
 * above topo/ asks a trait instead of naming families. */
struct topo_traits {
	const char *routing; /* the default routing (routing_default) */
	const char *unit;    /* what isolates a job: "pod", "group"; NULL
			      * for none */
	bool levels;	     /* switches in levels, up/down routes (fat-tree) */
	bool groups;	     /* groups of routers joined by global links
			      * (dragonfly, Cascade) */
	bool group_mesh;     /* ... each group's routers joined all-to-all
			      * (dragonfly) */
	bool grid;	     /* routers on a grid, topo_dims (mesh-like) */
	bool wraps;	     /* ... that wraps around (torus) */
};
/* T's own family's traits (a graph's: shortest routing, nothing else).
 * Static storage. */
const struct topo_traits *topo_traits(const struct topo *t);
/* The traits of the family T behaves as (topo_behaves_as): a graph
 * recognised as a fat-tree has the fat-tree's. */
const struct topo_traits *topo_behaves_traits(const struct topo *t);
/* The same as a family name ("fattree", "dragonfly", ...; "graph" for a
 * graph recognised as nothing): what policies declare defaults for.
 * Static storage. */
const char *topo_behaves_as_family(const struct topo *t);

/* Mesh-like families (expressmesh, hyperx, torus): number of dimensions and
 * their sizes (router grid); 0 for others.  dims must hold TOPO_MAX_DIMS. */
int topo_dims(const struct topo *t, uint32_t *dims);
/* Router coordinates of SW (mesh-like families); coord holds TOPO_MAX_DIMS.
 * Router id = l0 + d0*(l1 + d1*(l2 ...)). */
void topo_switch_coord(const struct topo *t, uint32_t sw, uint32_t *coord);

/* Summary statistics (see stopo-topo(1) for definitions). */
/* How topo_stats found the switch-to-switch distances. */
enum topo_stats_method {
	TOPO_STATS_EXACT,    /* a BFS from every switch */
	TOPO_STATS_SYMMETRY, /* exact: a BFS from one switch per orbit of the
			      * family's automorphisms, weighted by the
			      * orbit's size (torus, hyperx: 1 orbit; k-ary
			      * n-tree: 1 per level) */
	TOPO_STATS_SAMPLED,  /* BFS from random switches: avg_hops an
			      * estimate (avg_hops_se its standard error),
			      * diameter a lower bound */
};

struct topo_stats {
	uint32_t radix_min, radix_max; /* node ports + network ports */
	uint32_t diameter;	       /* switch graph, hops; UINT32_MAX if
					* disconnected */
	double avg_hops;	       /* over ordered distinct switch pairs */
	uint32_t unconnected_ports;    /* e.g. dragonfly global ports left
					* free when g-1 does not divide a*h */
	bool connected;		       /* always exact */
	enum topo_stats_method method;
	uint32_t sources;   /* BFS sources behind the distances */
	double avg_hops_se; /* standard error of avg_hops; 0 unless sampled */
};

/* What topo_stats_opt may do: exact or symmetry when the work (sources x
 * (switches + switch links)) fits BUDGET, else sample.  Zeroed means the
 * defaults (topo_stats). */
struct topo_stats_opts {
	uint64_t budget;  /* 0: 10^9 */
	uint32_t samples; /* sample this many sources (at least 64; the
			   * switches or more: exact); 0: sample only beyond
			   * the budget, as many sources as it allows */
	bool exact;	  /* a BFS from every switch whatever it costs */
	uint64_t seed;	  /* of the sampled sources (0: 1) */
	/* Called now and then during long work (may be NULL). */
	void (*progress)(void *ctx, uint32_t done, uint32_t total);
	void *ctx;
};

/* Compute statistics within the default budget (see topo_stats_opt). */
int topo_stats(const struct topo *t, struct topo_stats *st, struct err *err);
int topo_stats_opt(const struct topo *t, const struct topo_stats_opts *o,
		   struct topo_stats *st, struct err *err);
/* The method's name: "exact", "symmetry", "sampled". */
const char *topo_stats_method_name(enum topo_stats_method m);

/* Hop distance between switches (BFS; for one-off queries). */
uint32_t topo_switch_distance(const struct topo *t, uint32_t a, uint32_t b);

/* Consistency checker: link-id layout, reverse links, equal capacities of
 * the two directions, positive capacities, node attachments, sorted
 * adjacency.  Returns 0 or -1 with err naming the first violation. */
int topo_check(const struct topo *t, struct err *err);

#endif
